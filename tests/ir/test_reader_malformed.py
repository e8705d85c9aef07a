"""Malformed documents: libxml2 checks the document on a thread of its own while the reader scans the text
(``reader._WellFormed``), so the scan may meet the damage first, or read past it. Whatever it met, ``read_ir``'s error
must be libxml2's, at its line, as a whole-document parse gives it (or, where OpenVINO's parser reads the document,
its warning W-XML must be): seeded corruptions of an OpenVINO-saved IR (``test_reader_fast.SOURCE``), each anywhere
in the file."""

from __future__ import annotations

import random
from pathlib import Path

from lxml import etree

from ir_tools.base.errors import ReadError
from ir_tools.ir import reader
from ir_tools.ir.reader import read_ir
from tests.ir.test_reader_fast import editable_copy


def _corrupt(text: str, rng: random.Random) -> str:
    """``text`` with one damage at a random place: cut short, a character dropped, or markup that is never closed or
    does not match."""
    at = rng.randrange(len(text))
    kind = rng.randrange(6)
    if kind == 0:
        return text[:at]
    if kind == 1:
        return text[:at] + text[at + 1:]
    inserted = ["<", "<!--", '="', "</layer>", "&"][kind - 2]
    return text[:at] + inserted + text[at:]


def _libxml2(path: Path) -> tuple[str, int | None] | None:
    """The error a whole-document parse gives, as ``read_ir`` words it; None if the document is well-formed."""
    try:
        etree.parse(str(path), etree.XMLParser(**reader._SAFE))
    except etree.XMLSyntaxError as exc:
        return f"malformed XML: {exc.msg}", exc.lineno or None
    return None


def test_seeded_corruptions_get_libxml2s_error(tmp_path: Path) -> None:
    rng = random.Random(7)
    source, path = editable_copy(tmp_path)
    malformed = 0
    for _ in range(400):
        path.write_text(_corrupt(source, rng))
        expected = _libxml2(path)
        try:
            graph = read_ir(path)
        except ReadError as exc:
            got = exc.message, exc.loc.line
        else:  # (or OpenVINO's parser reads it, as ``read_ir`` then does: libxml2's error is in its warning, W-XML)
            got = next(((d.message, d.loc.line) for d in graph.load_diagnostics if d.code == "W-XML"), None)
        if expected is None:  # still well-formed (a character dropped from a text, say): not a malformed-XML error
            assert got is None or not got[0].startswith("malformed XML"), got
            continue
        malformed += 1
        assert got is not None and got[1] == expected[1] and expected[0].removeprefix("malformed XML: ") in got[0], got
    assert malformed > 300, malformed
