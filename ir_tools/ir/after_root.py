"""What OpenVINO's XML parser (pugixml, default options) reads past after the root element, which libxml2 refuses.

OpenVINO reads the first element of a document and pugixml, not validating, reads past what follows it as long
as its own grammar holds: elements (an attribute repeated, ``<`` or an unknown ``&name;`` in a value), text
(any, ``&`` and ``&name;`` too), comments, processing instructions and XML declarations, CDATA, and DOCTYPEs,
which are skipped unparsed (nothing in them is declared or loaded). ``reads_past`` follows that grammar
(pugixml's ``parse_tree``, ``parse_exclamation``, ``parse_doctype_group``); measured against OpenVINO 2026.4's
``read_model`` on seeded sequences of such parts (``tests/ir/test_after_root.py``).
"""

from __future__ import annotations

#: pugixml's ct_space, ct_start_symbol and ct_symbol character classes (bytes of UTF-8 at or above 0x80 are symbols).
_SPACE = frozenset(b" \t\r\n")
_START = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_:") | frozenset(range(0x80, 0x100))
_SYMBOL = _START | frozenset(b"0123456789-.")


class _Refused(Exception):
    """pugixml stops: the document is refused."""


def reads_past(rest: bytes) -> bool:
    """Whether pugixml reads past ``rest``, all that follows a document's root element (UTF-8)."""
    try:
        _Scan(rest).document()
    except _Refused:
        return False
    return True


class _Scan:
    """pugixml's parse of ``text`` at the document level (no element open), keeping nothing."""

    def __init__(self, text: bytes):
        self.text, self.at = text, 0

    def byte(self, offset: int = 0) -> int:
        """The byte ``offset`` after the cursor, 0 past the end (pugixml's terminating zero)."""
        at = self.at + offset
        return self.text[at] if at < len(self.text) else 0

    def skip_to(self, end: bytes) -> None:
        """Past the next ``end``; refused if there is none."""
        found = self.text.find(end, self.at)
        if found < 0:
            raise _Refused
        self.at = found + len(end)

    def name(self) -> bytes:
        """A run of symbol characters at the cursor (maybe empty)."""
        start = self.at
        while self.byte() in _SYMBOL and self.at < len(self.text):
            self.at += 1
        return self.text[start:self.at]

    def blanks(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in _SPACE:
            self.at += 1

    def document(self) -> None:
        open_elements: list[bytes] = []
        while self.at < len(self.text):
            if self.byte() != ord("<"):
                found = self.text.find(b"<", self.at)  # text, inside an element or not: read as it is
                self.at = len(self.text) if found < 0 else found
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
                self.name()
                self.skip_to(b"?>")
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
        while True:
            self.blanks()
            ch = self.byte()
            if ch in _START:
                self.attribute()
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

    def attribute(self) -> None:
        """Name, maybe blanks, ``=``, maybe blanks, a quoted value (anything but its quote), then no symbol."""
        self.name()
        self.blanks()
        if self.byte() != ord("="):
            raise _Refused
        self.at += 1
        self.blanks()
        self.quoted()
        if self.byte() in _START:
            raise _Refused

    def quoted(self) -> None:
        """A string in single or double quotes."""
        quote = self.byte()
        if quote not in (ord('"'), ord("'")):
            raise _Refused
        self.at += 1
        self.skip_to(bytes([quote]))

    def exclamation(self, inside: bool) -> None:
        """``<!``: a comment, CDATA, or at the document level a DOCTYPE (skipped as pugixml skips it)."""
        self.at += 1
        if self.text.startswith(b"--", self.at):
            self.at += 2
            self.skip_to(b"-->")
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
        while self.at < len(self.text):
            if self.text.startswith(b"<![", self.at):
                self.at += 3
                depth += 1
            elif self.text.startswith(b"]]>", self.at):
                self.at += 3
                if depth == 0:
                    return
                depth -= 1
            else:
                self.at += 1
        raise _Refused
