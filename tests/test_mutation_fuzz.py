"""The mutation fuzzer's fast slice (tests/mutation_fuzz.py), and one test per kind of broken promise it found.

``scripts/fuzz_mutations.py --cases N`` is the long run. The slice without OpenVINO (check and shapes as
``--no-openvino``, no compare) belongs to the fast tier; the slice with OpenVINO's verdict and compare is marked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from ir_tools import check
from ir_tools.base.dims import parse_int
from ir_tools.ir.reader import parse_may_start
from tests.mutation_fuzz import SOURCES, Mutant, broken_promises, make_case, run_command

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
#: Seeds of the fast slice: each tier takes its own, so the two together try twice as many cases.
FAST_CASES = 240
OPENVINO_CASES = 120


@pytest.mark.parametrize("first", range(0, FAST_CASES, 40))
def test_mutations_keep_every_promise_without_openvino(first: int, tmp_path: Path) -> None:
    broken = []
    for seed in range(first, first + 40):
        case = make_case(seed, tmp_path)
        broken += [f"{case}: {promise}" for promise in broken_promises(case, openvino=False)]
    assert broken == []


@pytest.mark.openvino
@pytest.mark.parametrize("first", range(FAST_CASES, FAST_CASES + OPENVINO_CASES, 40))
def test_mutations_keep_every_promise_with_openvino(first: int, tmp_path: Path) -> None:
    broken = []
    for seed in range(first, first + 40):
        case = make_case(seed, tmp_path)
        broken += [f"{case}: {promise}" for promise in broken_promises(case, openvino=True)]
    assert broken == []


def test_every_source_is_clean() -> None:
    """The fuzzer mutates files that check finds clean (the samples' own deliberate errors aside)."""
    for source in SOURCES:
        if source.name not in ("wrong_dims.xml", "legacy_v7_pooling.xml"):
            assert [d for d in check(source, openvino=False) if d.severity == "error"] == [], source


# -- one test per kind of broken promise the fuzzer found -------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
@pytest.mark.parametrize("bom", [False, True], ids=["no BOM", "BOM"])
def test_utf16_and_utf32_read_as_utf8(encoding: str, bom: bool, tmp_path: Path) -> None:
    """libxml2 and OpenVINO (pugixml) detect UTF-16 and UTF-32 from the first bytes, with or without a byte order
    mark; the reader read only UTF-16 with one (AttributeError in every command otherwise)."""
    source = SAMPLES / "mixed_network.xml"
    for declare in (True, False):  # the declaration may even name another encoding: the first bytes win
        mutant = Mutant(etree.parse(str(source)).getroot(), None, encoding, bom, declare)
        path = tmp_path / f"{encoding}.xml"
        path.write_bytes(mutant.to_bytes())
        path.with_suffix(".bin").write_bytes(source.with_suffix(".bin").read_bytes())
        assert [d.code for d in check(path, openvino=False)] == [d.code for d in check(source, openvino=False)]
        code, printed, _ = run_command(["inspect", str(path)])
        assert code == 0 and "AvgPool" in printed


def test_integers_of_thousands_of_digits_are_out_of_range() -> None:
    """Python's int() refuses 4300 digits and more (ValueError, E-INTERNAL in every command): such a value is as far
    out of range as 10**40."""
    assert parse_int("9" * 5000) == 10**40 and parse_int("-" + "9" * 5000) == -(10**40)
    assert parse_int("0" * 5000 + "7") == 7 and parse_int(" 12 ") == 12 and parse_int("1.5") is None


def test_legacy_ir_is_not_handed_to_openvino() -> None:
    """OpenVINO's IR frontend declines legacy IR, and then its TensorFlow frontend tries the file and prints
    ``E0000 ... Error parsing text-format tensorflow.GraphDef`` on stderr: the reader knows it is legacy first."""
    assert not parse_may_start(SAMPLES / "legacy_v7_pooling.xml")
    assert parse_may_start(SAMPLES / "mixed_network.xml")
