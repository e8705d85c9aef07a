"""ConvertPromoteTypes-14 migrated for OpenVINO 2023.0 (passes/downgrade/convert_promote_types.py): a Convert-1 of
each input to the promoted type; equal to the current OpenVINO exactly, types included."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ir_tools.ops.releases import release
from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, migrate

pytestmark = NEEDS_2023

TYPES = (np.bool_, np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
         np.uint32, np.uint64)

#: The conversions 2023.0 computes otherwise than the current OpenVINO (tests/downgrade/test_integer_convert.py).
SATURATED = release("2023.0").converts_otherwise


def _lossless(source: type, target: np.dtype) -> bool:
    return np.can_cast(source, target, "safe") and not (np.dtype(source).itemsize == 8 and target.kind == "f")


def promote_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, int]:
    """Up to ``cases`` ConvertPromoteTypes-14 layers on two Parameters of drawn types (scalar or not) and drawn
    attributes, those OpenVINO builds (it refuses unsafe pairs) into a type that holds both inputs' values (numpy's
    safe casts, but 64-bit integers into f64) and that 2023.0 converts as the current OpenVINO does (not u32 into
    i64 or u64: ``integer_convert_saturates``); the path and how many."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset14 as o14

    params, results = [], []
    for i in range(cases):
        t0, t1 = (TYPES[int(j)] for j in rng.integers(0, len(TYPES), 2))
        s0, s1 = ([] if rng.random() < 0.3 else [int(n) for n in rng.integers(1, 4, int(rng.integers(1, 3)))]
                  for _ in range(2))
        x, y = o1.parameter(s0, t0, name=f"a{i}"), o1.parameter(s1, t1, name=f"b{i}")
        try:
            node = o14.convert_promote_types(x, y, bool(rng.random() < 0.5), bool(rng.random() < 0.5),
                                             ("f32", "i64", "f64", "u64")[i % 4], name=f"promote{i}")
        except RuntimeError:
            continue
        promoted = node.get_output_element_type(0)
        if not all(_lossless(t, promoted.to_dtype()) for t in (t0, t1)) or {
                f"{ov.Type(t).get_type_name()}->{promoted.get_type_name()}" for t in (t0, t1)} & SATURATED:
            continue
        params += [x, y]
        results += [o1.result(node.output(0), name=f"y{i}"), o1.result(node.output(1), name=f"z{i}")]
    ov.save_model(ov.Model(results, params, "promotes"), str(path), compress_to_fp16=False)
    return path, len(results) // 2


def test_convert_promote_types_14_runs_on_2023_equal_to_the_current_openvino(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model, built = promote_model(tmp_path / "promotes.xml", np.random.default_rng(14), 500)
    out, printed = migrate(model, capsys)
    assert f"rewrote {built} x ConvertPromoteTypes-14 -> Convert-1" in printed, printed
    assert built > 240
    assert assert_runs_equal(model, out) == 2 * built


def test_convert_promote_types_14_lossy_between_integers_wrapped_else_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An i8 scalar into a u16 tensor by unsafe pytorch scalar promotion (-34 is 65502 on the current CPU, 0 on
    2023.0's) and a u16 scalar into an i8 tensor by (safe) pytorch scalar promotion (40000 is -25536, not 127): the
    current OpenVINO's wrap, equal on 2023.0; i32 with f16 unsafe (65504 on 2023.0 where the current OpenVINO gives
    inf): refused (i32 with f32, converted alike: tests/downgrade/test_release_defects.py)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset14 as o14

    for name, t0, t1, unsafe, scalar, value in (("u16_i8", np.uint16, np.int8, True, True, -34),
                                                ("i32_f16", np.int32, np.float16, True, False, None),
                                                ("scalar", np.int8, np.uint16, False, True, 40000)):
        x, y = o1.parameter([2], t0, name="x"), o1.parameter([] if scalar else [2], t1, name="y")
        node = o14.convert_promote_types(x, y, unsafe, scalar, name=name)
        path = tmp_path / f"{name}.xml"
        ov.save_model(ov.Model(node.outputs(), [x, y], name), str(path))
        if value is None:
            assert_refused(path, name, "ConvertPromoteTypes of opset14", capsys)
            continue
        out, printed = migrate(path, capsys)
        assert "rewrote 1 x ConvertPromoteTypes-14 -> Convert-1" in printed, printed
        assert assert_runs_equal(path, out, inputs={"x": np.array([1, 2], t0), "y": np.array(value, t1)}) == 2


def test_convert_promote_types_14_scalar_promotion_by_the_inferred_rank(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Pytorch scalar promotion of an i32 tensor with an i64 of a dynamic rank (a Parameter's, or a Reshape's by a fed
    shape, whose port the IR declares without dims, as a scalar's): OpenVINO leaves the type dynamic, decided when it
    runs (i64 for a tensor; a scalar it refuses to promote so), and no Convert-1 stands for that, so migrate refuses
    it (it used to convert the Parameter's into i64). An i64 tensor with an i32 Reshape'd by an empty Const shape (a
    scalar, declared without dims too): rewritten, and runs equal on 2023.0."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset14 as o14

    for case in ("parameter", "reshape", "scalar"):
        t0, t1 = (np.int64, np.int32) if case == "scalar" else (np.int32, np.int64)
        x = o1.parameter([2], t0, name="x")
        y = o1.parameter(ov.PartialShape.dynamic() if case == "parameter" else [1], t1, name="y")
        dims = [o1.parameter([-1], np.int64, name="dims")] if case == "reshape" else []
        shaped = y if case == "parameter" else o1.reshape(y, dims[0] if dims else
                                                           ov.op.Constant(np.zeros(0, np.int64)), False)
        node = o14.convert_promote_types(x, shaped, False, True, name="promote")
        assert node.get_output_element_type(0).is_dynamic() == (case != "scalar")
        path = tmp_path / f"{case}.xml"
        ov.save_model(ov.Model(node.outputs(), [x, y, *dims], case), str(path))
        if case != "scalar":
            assert_refused(path, "promote", "ConvertPromoteTypes of opset14", capsys)
            continue
        out, printed = migrate(path, capsys)
        assert "rewrote 1 x ConvertPromoteTypes-14 -> Convert-1" in printed, printed
        assert assert_runs_equal(path, out, inputs={"x": np.array([1, 2], t0), "y": np.array([7], t1)}) == 2
