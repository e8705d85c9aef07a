"""What OpenVINO's XML parser (pugixml, default options) reads that libxml2 refuses, and how to spell it for libxml2.

pugixml does not validate: it reads what its own grammar holds (``parse_tree``, ``parse_exclamation``,
``parse_doctype_group``, ``strconv_escape``). Inside the root that is also a comment holding ``--``, an XML
declaration past the prolog, ``&`` or ``&name;`` that is no reference it knows (kept as written), ``]]>`` in text,
``<`` in an attribute value, an attribute repeated (OpenVINO reads the first); outside the root, text (before it:
a line a tool wrote above ``<net>``). After the root it reads past text, elements and DOCTYPEs, which it skips
unparsed (nothing in them is declared or loaded). ``reads_past`` says whether it reads past what follows the root;
``respelled`` writes a document it reads in a form libxml2 reads with the same values. Measured against OpenVINO
2026.4's ``read_model`` (``tests/ir/test_pugixml.py``).
"""

from __future__ import annotations

import re

#: pugixml's ct_space, ct_start_symbol and ct_symbol character classes (bytes of UTF-8 at or above 0x80 are symbols).
_SPACE = frozenset(b" \t\r\n")
_START = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_:") | frozenset(range(0x80, 0x100))
_SYMBOL = _START | frozenset(b"0123456789-.")
#: A reference pugixml replaces (``strconv_escape``); any other ``&`` it keeps as written.
_REFERENCE = re.compile(rb"&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);")
#: In a text or attribute value: what libxml2 refuses that pugixml keeps as written.
_UNESCAPED = re.compile(rb"&|<|(?<=\]\])>")


class _Refused(Exception):
    """pugixml stops: the document is refused."""


def reads_past(rest: bytes) -> bool:
    """Whether pugixml reads past ``rest``, all that follows a document's root element (UTF-8)."""
    try:
        _Scan(rest).document()
    except _Refused:
        return False
    return True


def respelled(document: bytes) -> bytes | None:
    """A UTF-8 ``document`` as libxml2 reads it with the values pugixml reads (inside the root: references it keeps
    as written escaped, ``<`` in values escaped, ``>`` of ``]]>`` in text escaped, repeated attributes, comments'
    ``-`` and XML declarations past the prolog blanked; text outside the root blanked; no line added or removed);
    None if pugixml refuses it, or it needs no respelling."""
    scan = _Scan(document, respell=True)
    try:
        scan.document()
    except _Refused:
        return None
    if not scan.edits:
        return None
    parts, at = [], 0
    for start, end, spelled in scan.edits:
        parts += [document[at:start], spelled]
        at = end
    parts.append(document[at:])
    return b"".join(parts)


def _escaped(value: bytes) -> bytes:
    """A text or attribute value as pugixml reads it, spelled for libxml2."""
    def escape(found: re.Match) -> bytes:
        if found[0] == b"&":
            return found[0] if _REFERENCE.match(value, found.start()) else b"&amp;"
        return b"&lt;" if found[0] == b"<" else b"&gt;"

    return _UNESCAPED.sub(escape, value)


def _blank(span: bytes) -> bytes:
    """``span`` as blanks, its line breaks kept."""
    return bytes(b if b == 0x0A else 0x20 for b in span)


class _Scan:
    """pugixml's parse of ``text`` from the document level; with ``respell``, the ``edits`` (start, end, spelling)
    that make it a document libxml2 reads alike (``respelled``)."""

    def __init__(self, text: bytes, respell: bool = False):
        self.text, self.at, self.respell = text, 0, respell
        self.edits: list[tuple[int, int, bytes]] = []

    def edit(self, start: int, end: int, spelled: bytes) -> None:
        """With ``respell``: ``text[start:end]`` is to be ``spelled`` for libxml2 (where it differs)."""
        if self.respell and spelled != self.text[start:end]:
            self.edits.append((start, end, spelled))

    def byte(self, offset: int = 0) -> int:
        """The byte ``offset`` after the cursor, 0 past the end (pugixml's terminating zero)."""
        at = self.at + offset
        return self.text[at] if at < len(self.text) else 0

    def skip_to(self, end: bytes) -> int:
        """Past the next ``end``, returning where it starts; refused if there is none."""
        found = self.text.find(end, self.at)
        if found < 0:
            raise _Refused
        self.at = found + len(end)
        return found

    def name(self) -> bytes:
        """A run of symbol characters at the cursor (maybe empty)."""
        start = self.at
        while self.at < len(self.text) and self.text[self.at] in _SYMBOL:
            self.at += 1
        return self.text[start:self.at]

    def blanks(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in _SPACE:
            self.at += 1

    def document(self) -> None:
        """The whole text, as pugixml's ``parse_tree`` reads it; ``_Refused`` where it stops."""
        open_elements: list[bytes] = []
        prolog = self.at = 3 if self.text.startswith(b"\xef\xbb\xbf") else 0
        while self.at < len(self.text):
            start = self.at
            if self.byte() != ord("<"):  # text: read as it is inside an element, skipped outside the root
                found = self.text.find(b"<", self.at)
                self.at = len(self.text) if found < 0 else found
                spelled = _escaped if open_elements else _blank
                self.edit(start, self.at, spelled(self.text[start:self.at]))
                continue
            self.at += 1
            ch = self.byte()
            if ch in _START:
                name = self.name()
                if self.start_tag():
                    open_elements.append(name)
            elif ch == ord("/"):
                self.at += 1
                if not open_elements or self.name() != open_elements.pop():
                    raise _Refused
                self.blanks()
                if self.byte() != ord(">"):
                    raise _Refused
                self.at += 1
            elif ch == ord("?"):
                self.at += 1
                if self.byte() not in _START:
                    raise _Refused
                target = self.name()
                self.skip_to(b"?>")
                if target.lower() == b"xml" and start != prolog:  # (a declaration past the prolog: skipped)
                    self.edit(start, self.at, _blank(self.text[start:self.at]))
            elif ch == ord("!"):
                self.exclamation(bool(open_elements))
            else:
                raise _Refused
        if open_elements:
            raise _Refused

    def start_tag(self) -> bool:
        """The rest of a start tag, after its name: True if it leaves the element open."""
        ch = self.byte()
        self.at += 1
        if ch == ord(">"):
            return True
        if ch == ord("/"):
            return self.self_closed()
        if ch not in _SPACE:
            raise _Refused
        names: set[bytes] = set()
        while True:
            self.blanks()
            ch = self.byte()
            if ch in _START:
                self.attribute(names)
            elif ch == ord("/"):
                self.at += 1
                return self.self_closed()
            elif ch == ord(">"):
                self.at += 1
                return True
            else:
                raise _Refused

    def self_closed(self) -> bool:
        """The ``>`` of ``/>``."""
        if self.byte() != ord(">"):
            raise _Refused
        self.at += 1
        return False

    def attribute(self, names: set[bytes]) -> None:
        """Name, maybe blanks, ``=``, maybe blanks, a quoted value, then no symbol; one of ``names`` (read before in
        its tag) is blanked, as OpenVINO reads the first."""
        start = self.at
        name = self.name()
        self.blanks()
        if self.byte() != ord("="):
            raise _Refused
        self.at += 1
        self.blanks()
        value = self.quoted()
        if self.byte() in _START:
            raise _Refused
        if name in names:
            self.edit(start, self.at, _blank(self.text[start:self.at]))
        else:
            names.add(name)
            self.edit(value, self.at - 1, _escaped(self.text[value:self.at - 1]))

    def quoted(self) -> int:
        """A string in single or double quotes; returns where its value starts."""
        quote = self.byte()
        if quote not in (ord('"'), ord("'")):
            raise _Refused
        self.at += 1
        start = self.at
        self.skip_to(bytes([quote]))
        return start

    def exclamation(self, inside: bool) -> None:
        """``<!``: a comment, CDATA, or at the document level a DOCTYPE (skipped as pugixml skips it)."""
        self.at += 1
        if self.text.startswith(b"--", self.at):
            self.at += 2
            body = self.at
            end = self.skip_to(b"-->")
            if b"--" in self.text[body:end] or self.text[end - 1:end] == b"-":
                self.edit(body, end, self.text[body:end].replace(b"-", b" "))
        elif self.text.startswith(b"[CDATA[", self.at):
            self.skip_to(b"]]>")
        elif self.text.startswith(b"DOCTYPE", self.at) and not inside:
            self.at += 7
            self.doctype()
        else:
            raise _Refused

    def doctype(self) -> None:
        """A DOCTYPE's groups, to its closing ``>`` (pugixml's ``parse_doctype_group``)."""
        depth = 0
        while self.at < len(self.text):
            if self.text.startswith(b"<![", self.at):
                self.ignore_section()
            elif self.text.startswith(b"<!", self.at) and self.byte(2) != ord("-"):
                self.at += 2
                depth += 1
            elif self.byte() in (ord('"'), ord("'")):
                self.quoted()
            elif self.byte() == ord("<"):
                if self.text.startswith(b"<?", self.at):
                    self.at += 2
                    self.skip_to(b"?>")
                elif self.text.startswith(b"<!--", self.at):
                    self.at += 4
                    self.skip_to(b"-->")
                else:
                    raise _Refused
            elif self.byte() == ord(">"):
                self.at += 1
                if depth == 0:
                    return
                depth -= 1
            else:
                self.at += 1
        raise _Refused

    def ignore_section(self) -> None:
        """``<![ ... ]]>`` inside a DOCTYPE, nested ones included."""
        self.at += 3
        depth = 0
        while True:
            opened, closed = self.text.find(b"<![", self.at), self.text.find(b"]]>", self.at)
            if closed < 0:
                raise _Refused
            if 0 <= opened < closed:
                self.at, depth = opened + 3, depth + 1
                continue
            self.at = closed + 3
            if depth == 0:
                return
            depth -= 1
