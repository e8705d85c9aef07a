"""Inputs of unusual forms get seeded data OpenVINO accepts: a scalar stays a scalar, an index is in range."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset8 as ops
import pytest

from ir_tools import read_ir
from ir_tools.cli import main
from ir_tools.runtime.inputs import random_inputs

pytestmark = pytest.mark.openvino


@pytest.fixture
def scalar_and_index_model(tmp_path: Path) -> Path:
    scalar = ops.parameter([], np.float32, name="s")
    indices = ops.parameter([64], np.int32, name="idx")
    data = ops.parameter([7, 12], np.float32, name="data")
    for p in (scalar, indices, data):
        p.output(0).set_names({p.get_friendly_name()})
    gathered = ops.gather(data, indices, ops.constant(np.int64(1)))
    model = ov.Model([ops.add(scalar, ops.constant(np.float32(1))), gathered], [scalar, indices, data], "forms")
    path = tmp_path / "forms.xml"
    ov.save_model(model, path)
    return path


def test_scalar_stays_scalar_and_indices_are_in_range(scalar_and_index_model: Path) -> None:
    inputs = random_inputs(read_ir(scalar_and_index_model), seed=3, shapes={})
    assert inputs["s"].shape == () and inputs["s"].dtype == np.float32
    # the rows of Gather's axis 1 (12), not of data's other dim (7)
    assert inputs["idx"].dtype == np.int32 and inputs["idx"].min() >= 0 and 7 <= inputs["idx"].max() < 12
    assert len(np.unique(inputs["idx"])) > 1


def test_compare_runs_them(scalar_and_index_model: Path, capsys) -> None:
    assert main(["compare", str(scalar_and_index_model)]) == 0, capsys.readouterr()


def test_floats_for_integer_indices_are_refused(scalar_and_index_model: Path, tmp_path: Path, capsys) -> None:
    """Float token ids or indices (1.7: which one?) ran without a word; a float for a float input is taken."""
    given = random_inputs(read_ir(scalar_and_index_model), 0, {})
    np.savez(tmp_path / "floats.npz", **{**given, "idx": given["idx"].astype(np.float32)})
    assert main(["compare", str(scalar_and_index_model), "--inputs", str(tmp_path / "floats.npz")]) == 2
    assert "E-INPUT]: input 'idx' holds float32 values, the model takes i32: give it int32 values" in \
        capsys.readouterr().err
    np.savez(tmp_path / "doubles.npz", **{**given, "data": given["data"].astype(np.float64)})
    assert main(["run", str(scalar_and_index_model), "--inputs", str(tmp_path / "doubles.npz"), "-o",
                 str(tmp_path / "out.npz"), "-q"]) == 0
    assert {value.dtype for value in np.load(tmp_path / "out.npz").values()} == {np.dtype(np.float32)}  # as declared


def test_integers_for_a_float_input_are_refused(scalar_and_index_model: Path, tmp_path: Path, capsys) -> None:
    """Integers (an int32 or a uint8 image) for an f32 input: the reference computed in integers, and compare said
    PASSED on a difference of 8.6, its rounding bound infinite (found by a QA run)."""
    given = random_inputs(read_ir(scalar_and_index_model), 0, {})
    for dtype in (np.int32, np.uint8, np.bool_):
        np.savez(tmp_path / "ints.npz", **{**given, "data": given["data"].astype(dtype)})
        assert main(["compare", str(scalar_and_index_model), "--inputs", str(tmp_path / "ints.npz")]) == 2
        assert f"E-INPUT]: input 'data' holds {np.dtype(dtype)} values, the model takes f32: give it float32 " \
               "values" in capsys.readouterr().err


def test_given_indices_outside_the_rows_are_said(scalar_and_index_model: Path, tmp_path: Path, capsys) -> None:
    """A token id past the embedding (OpenVINO gave garbage on a compressed one): the report's inputs say how many."""
    given = random_inputs(read_ir(scalar_and_index_model), 0, {})
    given["idx"][:3] = [12, -13, 40]
    np.savez(tmp_path / "outside.npz", **given)
    main(["compare", str(scalar_and_index_model), "--inputs", str(tmp_path / "outside.npz")])
    assert "; 3 of 64 outside the 12 rows of Gather " in capsys.readouterr().out


def test_raw_byte_inputs_are_refused_as_inputs(scalar_and_index_model: Path, tmp_path: Path, capsys) -> None:
    """bf16, f8 or i4 arrays numpy saves as raw bytes (void) reached OpenVINO and were reported as its refusal
    (E-OPENVINO: 'could not broadcast input array'; found by a QA run over onnx's backend cases)."""
    given = random_inputs(read_ir(scalar_and_index_model), 0, {})
    np.savez(tmp_path / "void.npz", **{**given, "data": given["data"].view(np.dtype("V4"))})
    assert main(["compare", str(scalar_and_index_model), "--inputs", str(tmp_path / "void.npz")]) == 2
    assert "E-INPUT]: input 'data' holds values of numpy type |V4, not numbers numpy can read (the model takes f32)" \
        in capsys.readouterr().err


def test_a_convert_to_a_type_the_reference_lacks_is_not_checked(tmp_path: Path, capsys) -> None:
    """Convert to f8 (or i4; bf16 the reference computes): the reference has no such values; it said E-OP ('cannot
    convert to bf16'), exit 2, as if the file were wrong (found by a QA run over onnx's backend cases, 32 Cast
    cases)."""
    x = ops.parameter([3, 4], np.float32, name="x")
    ov.save_model(ov.Model([ops.convert(x, "f8e4m3", name="to_f8")], [x], "f8"), str(tmp_path / "f8.xml"))
    assert main(["compare", str(tmp_path / "f8.xml")]) == 1  # not E-OP's 2: nothing compared, so not 0 either
    out = capsys.readouterr().out
    assert "to_f8 (Convert@opset1, line " in out and "): the reference has no f8e4m3 values" in out, out
    assert "NOTHING COMPARED" in out
    import ir_tools  # the library's verdict is the command's: nothing compared has not passed (found by a QA run)

    report = ir_tools.compare(ir_tools.read_valid(tmp_path / "f8.xml"), {"x": np.ones((3, 4), np.float32)})
    assert not report.passed and not report.compared and not report.failed


def test_the_library_takes_inputs_as_the_commands_do(scalar_and_index_model: Path) -> None:
    """ir_tools.run and ir_tools.compare took float64 (computing in float64, where the CLI gave float32), integers
    for a float input, and a missing input (E-IR at the Parameter), unchecked (found by a QA run of the library)."""
    import ir_tools
    from ir_tools.base.errors import IrToolsError

    graph = ir_tools.read_valid(scalar_and_index_model)
    given = random_inputs(graph, 0, {})
    doubles = {**given, "data": given["data"].astype(np.float64)}
    assert {v.dtype for v in ir_tools.run(graph, doubles).values()} == {np.dtype(np.float32)}
    report = ir_tools.compare(graph, doubles)
    assert report.passed and {i["name"]: i["element_type"] for i in report.inputs}["data"] == "f32"
    for wrong, words in (({**given, "data": given["data"].astype(np.int32)}, "holds int32 values, the model takes "
                                                                               "f32"),
                         ({"idx": given["idx"]}, "missing ['data', 's']")):
        for call in (ir_tools.run, ir_tools.compare):
            with pytest.raises(IrToolsError, match=re.escape(words)) as caught:
                call(graph, wrong)
            assert caught.value.code == "E-INPUT"


def test_shape_takes_an_input_by_any_of_its_names(tmp_path: Path, capsys) -> None:
    """OpenVINO takes an input by any of its tensor's names (``model.reshape({'xa': ...})``), and so does --inputs;
    --shape refused the second name ("the model has no input 'xa'")."""
    x = ops.parameter([-1, 3], np.float32, name="x")
    x.output(0).set_names({"x", "xa"})
    path = tmp_path / "aliased.xml"
    ov.save_model(ov.Model([ops.relu(x)], [x], "aliased"), path)
    assert main(["compare", str(path), "--shape", "xa:5,3", "--format", "json"]) == 0, capsys.readouterr()
    assert '"shape": [\n        5,\n        3\n      ]' in capsys.readouterr().out


def test_integers_of_another_width_are_taken_in_the_inputs_type(tmp_path: Path, capsys) -> None:
    """int32 values for an i64 attention mask and a boolean one (as tokenizers may give them): OpenVINO converts them
    and runs; the reference computed in int32 and run and compare said E-OP at the model's Subtract and Select. A value
    the type does not hold (2 for a boolean: True?) is E-INPUT."""
    mask = ops.parameter([-1, -1], np.int64, name="attention_mask")
    keep = ops.parameter([-1, -1], np.bool_, name="keep")
    inverted = ops.subtract(ops.constant(np.int64(1)), mask)
    chosen = ops.select(keep, ops.constant(np.float32(1)), ops.constant(np.float32(0)))
    path = tmp_path / "masks.xml"
    ov.save_model(ov.Model([inverted, chosen], [mask, keep], "masks"), path)
    given = {"attention_mask": np.array([[1, 1, 0]], np.int32), "keep": np.array([[0, 1, 1]], np.int32)}
    want = ov.Core().compile_model(path, "CPU")(given)
    np.savez(tmp_path / "int32.npz", **given)
    assert main(["run", str(path), "--inputs", str(tmp_path / "int32.npz"), "-o", str(tmp_path / "out.npz")]) == 0
    got = np.load(tmp_path / "out.npz")
    assert [got[name].dtype for name in got] == [np.int64, np.float32]
    assert all(np.array_equal(got[name], want[i]) for i, name in enumerate(got))
    assert main(["compare", str(path), "--inputs", str(tmp_path / "int32.npz")]) == 0, capsys.readouterr()
    capsys.readouterr()
    np.savez(tmp_path / "two.npz", **{**given, "keep": np.array([[0, 2, 1]], np.int32)})
    assert main(["compare", str(path), "--inputs", str(tmp_path / "two.npz")]) == 2
    assert "input 'keep' holds int32 values, the model takes boolean, which does not hold 2" in capsys.readouterr().err


@pytest.mark.parametrize("element", ["string", "i4"])
def test_an_input_of_a_type_the_reference_holds_no_values_of_is_unsupported(tmp_path: Path, capsys,
                                                                            element: str) -> None:
    """A string input (a plain Parameter -> Result, which OpenVINO CPU runs) said E-INPUT "no numpy type" when seeded
    and "not numbers numpy can read" when given; an i4 one given int8 values reached OpenVINO as an E-OPENVINO
    refusal ("could not broadcast"), which feeds it packed. Both are E-UNSUPPORTED, in one wording."""
    import openvino.opset15 as ops15

    x = ops15.parameter([2], getattr(ov.Type, element), name="x")
    ov.save_model(ov.Model([ops15.result(x)], [x], "typed"), str(tmp_path / "typed.xml"))
    given = np.array(["ab", "cde"]) if element == "string" else np.ones(2, np.int8)
    np.savez(tmp_path / "given.npz", x=given)
    said = f"E-UNSUPPORTED]: input 'x' is of element type {element}: run and compare feed inputs of the types the " \
        "numpy reference computes in"
    for fed in ([], ["--inputs", str(tmp_path / "given.npz")]):
        assert main(["compare", str(tmp_path / "typed.xml"), *fed]) == 2
        assert said in capsys.readouterr().err


def test_given_i64_values_beyond_i32_are_said_with_what_openvino_computes(tmp_path: Path, capsys) -> None:
    """OpenVINO CPU takes an i64 input's low 32 bits in every op but a Convert to a float type (2^33 + 5 plus 1 is 6:
    measured on 2026.4), where the reference adds to the whole value: compare FAILed on a difference of 2^33 with no
    word of why. The report's input says how many values are beyond i32, the first, and what CPU makes of it."""
    x = ops.parameter([4], np.int64, name="x")
    ov.save_model(ov.Model([ops.add(x, ops.constant(np.int64(1)))], [x], "wide"), str(tmp_path / "wide.xml"))
    given = np.array([7, 2**33 + 5, -(2**40) - 3, 2**31], np.int64)
    assert ov.Core().compile_model(tmp_path / "wide.xml", "CPU")({"x": given})[0].tolist() == [8, 6, -2, -2**31 + 1]
    np.savez(tmp_path / "wide.npz", x=given)
    assert main(["compare", str(tmp_path / "wide.xml"), "--inputs", str(tmp_path / "wide.npz")]) == 1
    assert "; 3 of 4 beyond i32 (the first 8589934597), which OpenVINO CPU computes in their low 32 bits (8589934597 " \
        "as 5) in every op but a Convert to a float type" in capsys.readouterr().out
    np.savez(tmp_path / "narrow.npz", x=given.clip(-2**30, 2**30))
    assert main(["compare", str(tmp_path / "wide.xml"), "--inputs", str(tmp_path / "narrow.npz")]) == 0
    assert "beyond i32" not in capsys.readouterr().out


def test_an_i64_input_a_result_reads_directly_is_compared_as_fed(tmp_path: Path, capsys) -> None:
    """OpenVINO CPU gives an i64 input a Result reads directly as fed, 2^33 + 5 too (measured on 2026.4), and so does
    the reference; compare read the reference's as CPU holds a computed i64 (saturated to 2^31 - 1) and FAILed."""
    x = ops.parameter([3], np.int64, name="x")
    x.output(0).set_names({"x"})
    ov.save_model(ov.Model([ops.result(x), ops.result(ops.convert(x, "f32"))], [x], "fed"), str(tmp_path / "fed.xml"))
    given = np.array([2**33 + 5, -(2**40), 7], np.int64)
    assert ov.Core().compile_model(tmp_path / "fed.xml", "CPU")({"x": given})[0].tolist() == given.tolist()
    np.savez(tmp_path / "fed.npz", x=given)
    assert main(["compare", str(tmp_path / "fed.xml"), "--inputs", str(tmp_path / "fed.npz")]) == 0, \
        capsys.readouterr().out
