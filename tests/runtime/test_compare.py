"""Comparison semantics: an element fails only when it exceeds both tolerances; NaN vs number fails."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ir_tools.base.errors import IrToolsError
from ir_tools.runtime.compare import BOUND, TOLERANCES, Tolerances, _loose_bounds, _tensor_line, compare_tensors

finite = st.floats(-1e3, 1e3, allow_nan=False, width=32)


def test_fails_only_when_both_tolerances_exceeded():
    expected = np.array([100.0, 1.0, 0.0], np.float32)
    actual = np.array([100.05, 1.05, 0.0], np.float32)
    # element 0: abs 0.05 > atol 0.01 but rel 5e-4 <= rtol 1e-3 -> passes; element 1: rel 0.05 -> fails
    r = compare_tensors("y", actual, expected, atol=0.01, rtol=1e-3)
    assert not r.passed and r.mismatches == 1 and r.first_mismatch == [1]
    assert compare_tensors("y", actual, expected, atol=0.06, rtol=1e-3).passed


def test_nan_and_inf():
    nan = np.float32("nan")
    assert compare_tensors("y", np.array([nan, 1]), np.array([nan, 1]), 0, 0).passed
    r = compare_tensors("y", np.array([nan, 1]), np.array([0.0, 1]), 1e9, 1e9)
    assert not r.passed and r.nan_actual == 1 and r.nan_expected == 0
    assert r.min_atol_to_pass is None and r.min_rtol_to_pass is None
    assert compare_tensors("y", np.array([np.inf]), np.array([np.inf]), 0, 0).passed
    assert not compare_tensors("y", np.array([np.inf]), np.array([-np.inf]), 1e9, 1e9).passed


def test_shape_mismatch_fails_with_a_note():
    r = compare_tensors("y", np.zeros((1, 2)), np.zeros((2, 1)), 1, 1)
    assert not r.passed and "shape" in r.note


@settings(max_examples=300, deadline=None)
@given(arrays(np.float32, st.integers(1, 40), elements=finite), arrays(np.float32, st.integers(1, 40), elements=finite),
       st.sampled_from([0.0, 1e-6, 1e-3, 0.5]), st.sampled_from([0.0, 1e-6, 1e-3, 0.5]))
def test_reported_minimum_tolerances_are_tight(a, b, atol, rtol):
    """The printed minimum atol (at this rtol) passes, and anything smaller fails; same for rtol."""
    n = min(a.size, b.size)
    a, b = a[:n], b[:n]
    r = compare_tensors("y", a, b, atol, rtol)
    assert compare_tensors("y", a, b, max(atol, r.min_atol_to_pass), rtol).passed
    assert compare_tensors("y", a, b, atol, max(rtol, r.min_rtol_to_pass)).passed
    if not r.passed:
        assert r.min_atol_to_pass > atol and r.min_rtol_to_pass > rtol
        assert not compare_tensors("y", a, b, np.nextafter(r.min_atol_to_pass, 0), rtol).passed
        assert r.mismatches == int(np.sum((np.abs(a.astype(float) - b) > atol)
                                          & (np.abs(a.astype(float) - b) > rtol * np.abs(b.astype(float)))))


def test_what_passed_a_tensor_is_said_the_tolerances_or_its_per_element_bound():
    """compare --against's tensors pass within W, per element: the logits of the target zoo's f16 stateful Llama
    against its f32 original (max abs 2.25e-4, atol 8.3e-5) passed with min_atol_to_pass 0 and the text's "atol
    8.63e-05" beside "0 mismatched", what decided unsaid. passed_by says it, and the text that the bound decided."""
    expected = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    actual = expected + np.array([2.25e-4, 1e-5, 0.0, -1e-4], np.float32)
    bound = np.array([3e-4, 3e-4, 0.0, 1e-4])
    r = compare_tensors("logits", actual, expected, 8.3e-5, 0.0, bound=bound)
    assert r.passed and r.passed_by == BOUND and r.min_atol_to_pass == 0.0 and r.error_to_bound < 1
    assert compare_tensors("logits", actual, expected, 8.3e-5, 0.0, bound=bound).to_dict()["passed_by"] == BOUND
    assert "each within its own bound, which decided" in _tensor_line(r)
    r = compare_tensors("logits", actual, expected, 3e-4, 0.0, bound=bound)
    assert r.passed and r.passed_by == TOLERANCES and "which decided" not in _tensor_line(r)
    assert compare_tensors("logits", actual, expected, 3e-4, 0.0).passed_by == TOLERANCES
    r = compare_tensors("logits", actual, expected, 8.3e-5, 0.0, bound=bound / 2)
    assert not r.passed and r.passed_by is None and r.min_atol_to_pass == pytest.approx(2.25e-4, rel=1e-3)


def test_tolerance_parsing():
    t = Tolerances.parse(["1e-3", "out:0.5"], ["pool1:1e-2"])
    assert t.for_name("out") == (0.5, 1e-5)
    assert t.for_name("pool1") == (1e-3, 1e-2)
    assert t.for_name("other") == (1e-3, 1e-5)
    with pytest.raises(IrToolsError, match="--atol"):
        Tolerances.parse(["x:abc"], [])
    with pytest.raises(IrToolsError, match="finite number of at least 0"):
        Tolerances.parse([], ["-1"])
    for wrong in ({"atol": -1.0}, {"rtol": float("nan")}, {"atol_by_name": {"out": float("inf")}}, {"atol": "x"}):
        with pytest.raises(IrToolsError) as caught:  # the library's, as the CLI's (found by a QA run of the library)
            Tolerances(**wrong)
        assert caught.value.code == "E-USAGE"


def test_chunked_comparison_equals_one_pass(monkeypatch):
    """A tensor larger than a chunk gives the report one pass over it would (counts, maxima, first mismatch)."""
    from ir_tools.runtime import compare

    rng = np.random.default_rng(5)
    expected = rng.standard_normal((3, 7, 11)).astype(np.float32)
    actual = expected + rng.standard_normal(expected.shape).astype(np.float32) * 1e-5
    actual[1, 2, 3], actual[2, 0, 0], expected[0, 5, 5] = np.nan, np.inf, np.nan
    bound = np.abs(expected.astype(np.float64)) * 1e-6
    whole = compare_tensors("t", actual, expected, 1e-6, 1e-6, bound=bound)
    monkeypatch.setattr(compare, "CHUNK_ELEMENTS", 17)
    chunked = compare_tensors("t", actual, expected, 1e-6, 1e-6, bound=bound)
    assert chunked == whole and whole.first_mismatch is not None and whole.mismatches > 3


def test_equal_chunks_fold_as_the_definitions_say(monkeypatch):
    """Seeded tensors whose chunks are equal, unequal, or hold NaN or Inf (equal or not), each with a bound per element
    or one for all: every count and maximum is what its definition gives over the whole tensor, computed here in
    plain numpy."""
    from ir_tools.runtime import compare

    monkeypatch.setattr(compare, "CHUNK_ELEMENTS", 16)
    rng = np.random.default_rng(11)
    for case in range(300):
        expected = rng.standard_normal(int(rng.integers(1, 120))).astype(np.float32)
        actual = expected.copy()
        for chunk in range(0, expected.size, 16):
            kind = rng.integers(5)
            at = chunk + int(rng.integers(min(16, expected.size - chunk)))
            if kind == 1:  # a rounding apart
                actual[at] = np.nextafter(actual[at], np.float32(np.inf))
            elif kind == 2:  # Inf on both sides
                actual[at] = expected[at] = np.inf
            elif kind == 3:  # NaN on both sides
                actual[at] = expected[at] = np.nan
            elif kind == 4:  # far apart
                actual[at] += 1
        bound = np.abs(expected.astype(np.float64)) * 2.0**-24 if case % 2 else np.float64(case / 1e6)
        got = compare_tensors("t", actual, expected, 1e-6, 1e-6, bound=bound)
        finite = np.isfinite(actual) & np.isfinite(expected)
        diff = np.abs(actual[finite].astype(np.float64) - expected[finite])
        scale, limit = np.abs(expected[finite].astype(np.float64)), np.broadcast_to(bound, expected.shape)[finite]
        with np.errstate(divide="ignore", invalid="ignore"):
            assert got.max_abs_error == (diff.max() if diff.size else 0.0)
            assert got.max_rel_error == np.nan_to_num(np.fmax.reduce(diff / scale, initial=0.0), nan=0.0)
            assert got.error_to_bound == np.nan_to_num(np.fmax.reduce(diff / limit, initial=0.0), nan=0.0)
        assert got.bound_max == (limit.max() if limit.size else 0.0)  # (NaN and Inf are judged without a bound)
        assert got.mismatches == np.count_nonzero((diff > limit) & (diff > 1e-6) & (diff > 1e-6 * scale))
        assert (got.nan_expected, got.inf_expected) == (np.isnan(expected).sum(), np.isinf(expected).sum())
        assert got.passed == (got.mismatches == 0)


def test_a_loose_end_to_end_bound_is_named_so():
    """An infinite bound (a rule that gave up) is said to let every difference pass; a finite one is quantified."""
    y = np.array([1.0, 2.0])
    infinite = compare_tensors("logits", y + 1e-3, y, 1e-5, 1e-5, bound=np.full(2, np.inf))
    finite = compare_tensors("scores", y + 1e-3, y, 1e-5, 1e-5, bound=np.full(2, 1.0))
    (note,) = _loose_bounds([infinite, finite])
    assert "logits (infinite: no difference can fail)" in note and "scores (1, 1e+03 times" in note
    # an output with no difference at all passed on nothing: no note (it stood beside most CNNs'; from a QA run)
    assert _loose_bounds([compare_tensors("same", y, y, 1e-5, 1e-5, bound=np.full(2, 1.0))]) == []


@pytest.mark.openvino
def test_the_text_report_is_compact_unless_v(capsys) -> None:
    """Issue 25, point 3: per layer, compare printed every layer (300-930 lines for a small transformer); now the
    outputs, the failed layers, a count and the closest to their bound, and everything with -v."""
    from ir_tools.cli import main
    from tests.conftest import SAMPLES

    assert main(["compare", str(SAMPLES / "mixed_network.xml"), "--per-layer"]) == 0
    compact = capsys.readouterr().out
    assert "layers (the reference fed OpenVINO's activations, or vs saved activations): 6 compared, 0 failed; " \
           "-v lists every layer" in compact and "  conv1 (id" not in compact
    assert main(["compare", str(SAMPLES / "mixed_network.xml"), "--per-layer", "-v"]) == 0
    full = capsys.readouterr().out
    assert "  conv1 (id" in full and len(full.splitlines()) > len(compact.splitlines()) + 10


@pytest.mark.openvino
def test_an_output_downstream_of_8_bit_saturation_is_not_comparable(tmp_path, capsys) -> None:
    """Issue 25, point 11: an i8 Multiply as output failed by 219 while the same report called it not comparable
    (OpenVINO CPU saturates 8-bit arithmetic, the reference wraps as the specification says)."""
    import json

    import numpy as np
    import openvino as ov
    import openvino.opset1 as o1

    from ir_tools.cli import main
    from tests.conftest import REPORT_SCHEMA

    x = o1.parameter([4, 8], np.int8, name="x")
    product = o1.multiply(x, o1.constant(np.full((4, 8), 7, np.int8)), name="MULTIPLY")
    model = tmp_path / "i8.xml"
    ov.save_model(ov.Model([product], [x], "i8"), str(model))
    assert main(["compare", str(model)]) == 1  # nothing compared: never exit 0, which a CI takes for a pass
    out = capsys.readouterr().out
    assert "[NOT COMPARABLE] Result_" in out and "it depends on 'MULTIPLY'" in out and "[FAIL]" not in out
    assert "NOTHING COMPARED (no output compared; not comparable, so not compared: Result_" in out  # never PASSED
    assert main(["compare", str(model), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    import jsonschema

    jsonschema.validate(report, REPORT_SCHEMA)
    assert not report["passed"] and not report["compared"] and report["outputs"][0]["comparable"] is False



def test_a_misspelt_tolerance_name_is_refused_by_the_library_too() -> None:
    """Tolerances(atol_by_name={'pol1': ...}) left the default in force without a word, where the CLI says 'did you
    mean pool1?' (found by a QA run of the library)."""
    import ir_tools
    from ir_tools.runtime.numeric_check import CompareOptions
    from tests.conftest import SAMPLES

    graph = ir_tools.read_valid(SAMPLES / "mixed_network.xml")
    with pytest.raises(IrToolsError, match=r"no output or layer 'pol1' \(did you mean pool1\?\)"):
        ir_tools.compare(graph, {"input": np.zeros((1, 3, 32, 32), np.float32)},
                         CompareOptions(tolerances=Tolerances(atol_by_name={"pol1": 1.0})))


def reject(constant: str) -> None:
    raise ValueError(f"not strict JSON: {constant}")


@pytest.mark.openvino
def test_every_json_document_is_strict(tmp_path, capsys, check_report) -> None:
    """JSON has no Infinity: compare against saved outputs of zeros (an error where the expected value is 0: max rel
    error and the smallest rtol to pass infinite) printed `Infinity`, which JSON.parse refuses (found by a QA run);
    now "inf", as the schema says. check and inspect print strict JSON too."""
    import json

    import openvino as ov
    import openvino.opset1 as o1

    from ir_tools.cli import main
    from ir_tools.runtime.numeric_check import OUTPUT_PREFIX

    x = o1.parameter([2, 3], np.float32, name="x")
    model = tmp_path / "m.xml"
    ov.save_model(ov.Model([o1.multiply(x, o1.constant(np.float32(3)), name="times")], [x], "m"), str(model))
    saved = tmp_path / "saved.npz"
    assert main(["compare", str(model), "--save-outputs", str(saved), "-q"]) == 0
    zeros = {k: np.zeros_like(v) if k.startswith(OUTPUT_PREFIX) else v for k, v in np.load(saved).items()}
    np.savez(saved, **zeros)
    capsys.readouterr()
    assert main(["compare", str(model), "--load-outputs", str(saved), "--format", "json"]) == 1
    report = check_report(json.loads(capsys.readouterr().out, parse_constant=reject))
    vs_saved = next(t for t in report["outputs"] if t["name"].endswith("(vs saved)"))
    assert vs_saved["max_rel_error"] == "inf" and vs_saved["min_rtol_to_pass"] == "inf"
    for command in ("check", "inspect"):
        main([command, str(model), "--format", "json"])
        json.loads(capsys.readouterr().out, parse_constant=reject)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_64_bit_integers_beyond_float64_are_compared_exactly(dtype):
    """2^53 + 1 and 2^53 are one float64: a difference of 1 there is a mismatch all the same, at atol 0."""
    info = np.iinfo(dtype)
    expected = np.array([2**53, info.max, info.min, 7], dtype)
    actual = np.array([2**53 + 1, info.max - 1, info.min, 7], dtype)
    r = compare_tensors("ids", actual, expected, 0.0, 0.0)
    assert not r.passed and r.mismatches == 2 and r.first_mismatch == [0] and r.max_abs_error == 1.0
    assert compare_tensors("ids", actual, expected, 1.0, 0.0).passed
    int64 = np.iinfo(np.int64)
    assert compare_tensors("ids", np.array([int64.max]), np.array([int64.min]), 0.0, 0.0).max_abs_error == 2.0**64
