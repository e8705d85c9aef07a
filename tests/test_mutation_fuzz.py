"""The mutation fuzzer's fast slice (tests/mutation_fuzz.py), and one test per kind of broken promise it found.

``scripts/fuzz_mutations.py --cases N`` is the long run. The slice without OpenVINO (check and shapes as
``--no-openvino``, no compare) belongs to the fast tier; the slice with OpenVINO's verdict and compare is marked.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from lxml import etree

from ir_tools import check
from ir_tools.base.dims import parse_int
from ir_tools.ir.reader import parse_may_start
from tests.mutation_fuzz import SOURCES, Mutant, apart, broken_promises, make_case, run_command

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
#: Seeds of the fast slice: each tier takes its own, so the two together try twice as many cases.
FAST_CASES = 200
OPENVINO_CASES = 80


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


def _codes(path: Path) -> set[str]:
    return {d.code for d in check(path, openvino=False) if d.severity == "error"}


@pytest.mark.parametrize(("old", "new", "code"), [
    ('<layer id="1" name="pool" ', '<layer id="1" ', "E-LAYER"),  # OpenVINO: missing mandatory attribute: name
    ('<layer id="1" ', '<layer id="9223372036854775808" ', "E-LAYER"),  # OpenVINO reads ids with std::stoll
    ('<layer id="1" ', f'<layer id="{"9" * 5000}" ', "E-LAYER"),
    ('<port id="1" ', '<port id="9223372036854775808" ', "E-PORT"),
    ('<port id="1" ', f'<port id="{"9" * 5000}" ', "E-PORT"),
    ("<dim>3</dim>", f"<dim>{'9' * 5000}</dim>", "E-DIM"),
])
def test_what_openvino_refuses_in_names_and_ids_check_reports(old: str, new: str, code: str, tmp_path: Path) -> None:
    """Found by the fuzzer where only OpenVINO's verdict refused the file (inspect, run and migrate went on), or
    where Python's int() refused the text (E-INTERNAL)."""
    text = (SAMPLES / "avgpool1_same_upper.xml").read_text()
    assert old in text
    path = tmp_path / "model.xml"
    path.write_text(text.replace(old, new, 1))
    assert code in _codes(path)
    for command in (["inspect", str(path)], ["migrate", str(path), "-o", str(tmp_path / "out.xml")]):
        exit_code, printed, _ = run_command(command)
        assert exit_code == 1 and "E-INTERNAL" not in printed and not (tmp_path / "out.xml").exists()


@pytest.mark.parametrize(("old", "new", "code"), [
    ('<layer id="2" ', '<layer id="1" ', "E-DUP-ID"),
    ('<layer id="2" ', f'<layer id="{"9" * 5000}" ', "E-LAYER"),  # ValueError: int string conversion limit
    ('\t\t<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>\n', "", "E-INPUT-UNFED"),
    ('<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>',
     '<edge from-layer="0" from-port="4294967296" to-layer="1" to-port="0"/>', "E-EDGE-PORT"),
    ('<port id="0">', '<port id="-1">', "E-PORT"),  # (migrate wrote a Parameter of port -1, which check refuses)
])
def test_legacy_ir_that_cannot_be_lowered_is_refused_with_its_line(old: str, new: str, code: str,
                                                                   tmp_path: Path) -> None:
    """Legacy IR v7 through migrate: a repeated layer id, a deleted edge, a port id of 4294967296 were ValueError
    and IndexError (E-INTERNAL) or a pass's TypeError (E-PASS)."""
    text = (SAMPLES / "legacy_v7_pooling.xml").read_text()
    assert old in text
    path = tmp_path / "legacy.xml"
    path.write_text(text.replace(old, new, 1))
    exit_code, printed, native = run_command(["migrate", str(path), "-o", str(tmp_path / "out.xml")])
    assert exit_code == 2 and f"error[{code}]" in printed and f"{path}:" in printed, printed
    assert "E-INTERNAL" not in printed and "E-PASS" not in printed and native == ""
    assert not (tmp_path / "out.xml").exists()


@pytest.mark.parametrize("kind", ["ReadValue", "Assign", "readvalue"])
def test_a_state_op_without_variable_id_never_reaches_openvino(kind: str, tmp_path: Path) -> None:
    """OpenVINO's reader crashes the process (a segmentation fault) on a ReadValue or Assign without variable_id:
    check reports it (E-ATTR), and hands the file to OpenVINO only once it is otherwise clean, not while our
    checks run. (Found by the fuzzer: an AvgPool retyped ReadValue killed check.)"""
    text = (SAMPLES / "avgpool14_ceil_torch.xml").read_text()
    path = tmp_path / "state.xml"
    path.write_text(text.replace('type="AvgPool" version="opset14"', f'type="{kind}" version="opset6"'))
    assert "E-ATTR" in _codes(path)
    exit_code, printed, native = run_command(["check", str(path)])
    assert exit_code == 1 and "error[E-ATTR]" in printed and native == ""


@pytest.mark.openvino
@pytest.mark.parametrize("encoding", ["utf-16-be", "utf-16-le", "utf-32-le"])
def test_a_malformed_utf16_or_utf32_document_never_reaches_openvino(encoding: str, tmp_path: Path) -> None:
    """OpenVINO's IR frontend declines a UTF-16 or UTF-32 IR that is not well-formed and has no weights file beside it
    (measured on 2026.4: a UTF-8 one it refuses itself), and its TensorFlow frontend then tries the file and prints
    ``E0000 ... Error parsing text-format tensorflow.GraphDef`` on stderr: check and shapes hand such a file to
    OpenVINO only once our checks find it clean, not while they run. (Found by the fuzzer: a UTF-16-BE IR cut short,
    its .bin deleted, seed 186387.)"""
    data = Mutant(etree.parse(str(SAMPLES / "avgpool16_dilations.xml")).getroot(), None, encoding, False,
                  True).to_bytes()
    path = tmp_path / "cut.xml"
    path.write_bytes(data[: len(data) * 99 // 100 // 4 * 4])  # (cut between two code units; no .bin)
    for command in (["check", str(path)], ["shapes", str(path)]):
        exit_code, printed, native = run_command(command)
        assert exit_code == 2 and "error[E-READ]" in printed and native == "", (command, printed, native)


@pytest.mark.openvino
def test_shapes_fix_writes_nothing_that_check_rejects(tmp_path: Path) -> None:
    """A .bin replaced by text gives AdaptiveAvgPool an output_shape of text bytes: the inferred dims overflow int64.
    shapes --fix wrote them (check then said E-SIZE); now the corrected model passes check or nothing is written."""
    source = SAMPLES / "adaptive_avgpool8.xml"
    path = tmp_path / source.name
    path.write_text(source.read_text())
    path.with_suffix(".bin").write_bytes(b"this is not a weights file\n")
    out = tmp_path / "fixed.xml"
    exit_code, printed, _ = run_command(["shapes", str(path), "--fix", "-o", str(out)])
    assert exit_code == 1 and "error[E-SIZE]" in printed and not out.exists()


@pytest.mark.openvino
@pytest.mark.parametrize(("kind", "version"), [("StringTensorPack", "opset15"), ("StringTensorUnpack", "opset15")])
def test_what_only_openvino_can_judge_is_asked_before_acting(kind: str, version: str, tmp_path: Path) -> None:
    """A layer of an op ir_tools has no shape rule for is judged by OpenVINO alone: run, migrate, inspect and compare
    ask its verdict before acting, as check does (found by the fuzzer: an AvgPool retyped TopK, or TensorIterator
    without a body, passed every check of ours; run and migrate went on and wrote files; TensorIterator has a rule
    now, which refuses a missing body; TopK, Selu, ReverseSequence, CTCGreedyDecoder and Proposal have rules now:
    Bucketize and RandomUniform stood in until they had rules too: StringTensorPack and StringTensorUnpack, of one f32
    input where they take three and a string one, stand in)."""
    source = SAMPLES / "avgpool16_dilations.xml"
    path = tmp_path / "model.xml"
    retyped = f'type="{kind}" version="{version}"'
    path.write_text(source.read_text().replace('type="AvgPool" version="opset16"', retyped))
    assert _codes(path) == set()  # our checks alone find nothing
    out = tmp_path / "out"
    out.mkdir()
    for command in (["run", str(path), "-o", str(out / "o.npz")], ["migrate", str(path), "-o", str(out / "o.xml")],
                    ["inspect", str(path)], ["compare", str(path), "--save-outputs", str(out / "s.npz")]):
        exit_code, printed, native = run_command(command)
        assert exit_code == 1 and "error[E-OPENVINO]" in printed and native == "", printed
    assert list(out.iterdir()) == []


def test_new_layers_get_ids_openvino_reads_after_an_id_of_int64_max(tmp_path: Path) -> None:
    """A layer id of 2**63-1 is valid (OpenVINO reads ids as int64); the ids migrate gave new layers counted on past
    it, and check rejected the file migrate wrote (E-LAYER)."""
    text = (SAMPLES / "avgpool14_ceil_torch.xml").read_text()
    largest = str(2**63 - 1)
    path = tmp_path / "model.xml"
    text = text.replace('<layer id="2"', f'<layer id="{largest}"').replace('to-layer="2"', f'to-layer="{largest}"')
    path.write_text(text)
    (tmp_path / "model.bin").write_bytes((SAMPLES / "avgpool14_ceil_torch.bin").read_bytes())
    out = tmp_path / "out.xml"
    exit_code, printed, _ = run_command(["migrate", str(path), "-o", str(out)])
    assert exit_code == 0 and "AvgPool (opset8)" in printed, printed
    assert _codes(out) == set()


def test_a_name_too_long_for_an_npz_is_refused_and_nothing_written(tmp_path: Path) -> None:
    """An output named with 100,000 characters is valid IR, but an .npz (a zip) holds names of at most 65535 bytes:
    run said E-INTERNAL (struct.error)."""
    long = "p" * 100_000
    path = tmp_path / "model.xml"
    text = (SAMPLES / "avgpool16_dilations.xml").read_text()
    path.write_text(text.replace('names="pool"', f'names="{long}"').replace('output_names="pool"',
                                                                         f'output_names="{long}"'))
    (tmp_path / "model.bin").write_bytes((SAMPLES / "avgpool16_dilations.bin").read_bytes())
    exit_code, printed, _ = run_command(["run", str(path), "-o", str(tmp_path / "out.npz")])
    assert exit_code == 2 and "error[E-UNSUPPORTED]" in printed and "65531 bytes" in printed, printed
    assert not (tmp_path / "out.npz").exists()


@pytest.mark.parametrize(("value", "refused"), [(" ", True), ("", False), (" 1, 1 ", False)])
def test_a_list_attribute_of_blanks_is_refused_as_openvino_refuses_it(value: str, refused: bool,
                                                                      tmp_path: Path) -> None:
    """OpenVINO's reader takes an empty list attribute but refuses one of blanks ("Cannot parse ' '"): check alone
    said nothing, so inspect, run and migrate went on (fuzz seed 7451: AvgPool pads_begin=' ')."""
    path = tmp_path / "model.xml"
    path.write_text((SAMPLES / "avgpool1_same_upper.xml").read_text().replace('pads_begin="0, 0"',
                                                                           f'pads_begin="{value}"'))
    assert ("E-ATTR" in _codes(path)) == refused


def test_a_case_that_crashes_is_a_broken_promise_and_the_run_goes_on() -> None:
    """The long run computes each case in a forked child (``apart``): a crash in native code (seed 73753 crashed
    OpenVINO) is a broken promise that says where, where it ended the whole run without a word."""
    def crashing() -> list[str]:
        os.kill(os.getpid(), signal.SIGSEGV)
        return []

    assert apart(lambda: ["one", "two"]) == ["one", "two"]
    [broken] = apart(crashing)
    assert "error[E-CRASH]" in broken and "segmentation fault" in broken and "crashing" in broken, broken
