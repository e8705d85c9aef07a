"""The one table of diagnostic codes (ir_tools/base/codes.py): the README's table, the exit codes and every code the
source names follow it."""

from __future__ import annotations

import importlib.util
import re

import pytest

from ir_tools.base import codes
from ir_tools.base.codes import CODES, FATAL_CODES
from ir_tools.base.diagnostics import Diagnostic
from ir_tools.base.errors import IrToolsError
from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("make_codes_table", ROOT / "scripts" / "make_codes_table.py")
make_codes_table = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_codes_table)

#: A code as the source spells it: a string literal ``"E-..."`` or ``"W-..."``.
_LITERAL = re.compile(r"""["']([EW]-[A-Z0-9]+(?:-[A-Z0-9]+)*)["']""")


def test_each_code_is_described_once() -> None:
    assert len(CODES) == len(codes._TABLE), "a code is in the table twice"
    for code, entry in CODES.items():
        assert re.fullmatch(r"[EW](-[A-Z0-9]+)+", code), code
        assert code.startswith("W-") == (entry.severity == "warning"), code
        assert entry.meaning and "|" not in entry.meaning and "\n" not in entry.meaning, code


def test_the_readme_table_lists_every_code_with_its_severity_and_meaning() -> None:
    readme = (ROOT / "README.md").read_text()
    start, end = make_codes_table.section(readme)
    rows = [line for line in readme[start:end].splitlines() if line.startswith("| ")][1:]
    listed = {}
    for row in rows:
        code, severity, meaning = (cell.strip() for cell in row.strip("|").split(" | "))
        assert code not in listed, f"{code} is in the README's table twice"
        listed[code] = (severity, meaning)
    wanted = {code: (make_codes_table.SEVERITY[e.severity], e.meaning) for code, e in CODES.items()}
    differ = sorted(code for code in wanted.keys() | listed.keys() if wanted.get(code) != listed.get(code))
    assert not differ, f"the README's table differs from ir_tools/base/codes.py at {differ}: run " \
                       "`python scripts/make_codes_table.py`"
    assert make_codes_table.with_table(readme) == readme  # in the table's order, as the script writes it


def test_every_code_the_source_names_is_in_the_table() -> None:
    """Also the codes of paths no test runs (Diagnostic and IrToolsError refuse an unknown code when they meet it)."""
    named = {}
    for path in sorted((ROOT / "ir_tools").rglob("*.py")):
        if path.name == "codes.py" and path.parent.name == "base":
            continue
        for code in _LITERAL.findall(path.read_text()):
            named.setdefault(code, path.relative_to(ROOT))
    unknown = {code: str(path) for code, path in named.items() if code not in CODES}
    assert not unknown, f"codes missing from ir_tools/base/codes.py: {unknown}"
    unused = set(CODES) - set(named)
    assert not unused, f"codes nothing in ir_tools reports: {sorted(unused)}"


def test_fatal_codes_are_the_fatal_rows() -> None:
    assert FATAL_CODES == {code for code, e in CODES.items() if e.severity == "fatal"}
    assert {"E-READ", "E-XML-UNSAFE", "E-IR-VERSION", "E-INTERNAL", "E-USAGE"} <= FATAL_CODES
    assert "E-OPENVINO" not in FATAL_CODES  # check: exit 1 (its verdict on a file otherwise clean)


def test_an_unknown_code_is_refused() -> None:
    with pytest.raises(ValueError, match="E-NOPE"):
        Diagnostic("error", "E-NOPE", "message")
    with pytest.raises(ValueError, match="E-NOPE"):
        IrToolsError("message", code="E-NOPE")
    with pytest.raises(ValueError, match="E-NOPE"):
        type("Nope", (IrToolsError,), {"code": "E-NOPE"})
    with pytest.raises(ValueError, match="W-DEAD"):
        Diagnostic("error", "W-DEAD", "a warning's code reported as an error")
    assert Diagnostic("warning", "W-DEAD", "message").code == "W-DEAD"
    assert IrToolsError("message", code="E-USAGE").code == "E-USAGE"
