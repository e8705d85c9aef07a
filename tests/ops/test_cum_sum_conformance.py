"""CumSum-3 (ops/cum_sum.py) against OpenVINO: shape rule and CPU kernel.

Kernel: 480 seeded cases (f32, f16, i32, i64 within i32's range, i8 and u8 data, i8 and u8 wrapping; ranks 1 to 4,
axes of 1 to 1000 elements, every axis positive and negative, i32 and i64 scalars (CPU compiles no other axis); all
four exclusive/reverse combinations) batched 80 to a model and compiled once per model for OpenVINO CPU: values
within the rounding rule's bound alone (integers equal; floats within gamma(k) times the sum of |terms| of each
element's k terms plus one rounding on each side). Shape rule: 300 seeded nodes on Parameters (data of partial shapes
and dynamic rank, axis of i32, i64, f32, u8 or dynamic type and any shape) must give our rule's output, or both
refuse. ``check_versions``: opset3..16 read CumSum-3.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset3 as ops3
import pytest

from .conformance import (
    ELEMENTS,
    Case,
    assert_all_pass,
    assert_compare_passes,
    assert_shapes_agree,
    check_versions,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    random_bounds,
    rule_limits,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 3303
DTYPES = (np.float32, np.float16, np.int32, np.int64, np.int8, np.uint8)


def data(rng: np.random.Generator, dtype: type, shape: list[int]) -> np.ndarray:
    if np.dtype(dtype).kind in "iu":
        if dtype in (np.int8, np.uint8) and rng.random() < 0.5:  # sums that wrap
            info = np.iinfo(dtype)
            return rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
        return rng.integers(-50 if dtype is not np.uint8 else 0, 50, shape).astype(dtype)
    scale = float(pick(rng, [1e-3, 1.0, 100.0]))
    return (rng.standard_normal(shape) * scale + float(pick(rng, [0.0, 0.0, 3.0])) * scale).astype(dtype)


def cum_sum_case(rng: np.random.Generator, dtype: type) -> Case:
    from ir_tools.ops.cum_sum import CUM_SUM_3

    rank = int(rng.integers(1, 5))
    shape = [int(n) for n in rng.integers(1, 6, rank)]
    axis = int(rng.integers(-rank, rank))
    if rng.random() < 0.15:
        shape[axis] = int(rng.integers(50, 1000 if rank == 1 else 200))
    x = data(rng, dtype, shape)
    exclusive, reverse = bool(rng.random() < 0.5), bool(rng.random() < 0.5)
    raw = {"exclusive": str(exclusive).lower(), "reverse": str(reverse).lower()}
    inputs = [x, np.array(axis, pick(rng, [np.int32, np.int64]))]
    what = f"CumSum {x.dtype}{shape} axis {axis} exclusive {exclusive} reverse {reverse}"
    return Case(what, inputs, lambda p: ops3.cumsum(p[0], p[1], exclusive, reverse),
                rule_limits(CUM_SUM_3, raw, inputs), consts=(1,))


def cum_sum_cases(rng: np.random.Generator, n: int) -> list[Case]:
    return [cum_sum_case(rng, DTYPES[i % len(DTYPES)]) for i in range(n)]


@pytest.mark.parametrize("part", range(6))
def test_values_within_the_bound(part: int, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, part])
    assert_all_pass(cum_sum_cases(rng, 80), tmp_path)


def test_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 1])
    cases = []
    for _ in range(300):
        lengths = [int(n) for n in rng.integers(0, 6, int(rng.integers(0, 5)))]
        shapes = [None if rng.random() < 0.1 else random_bounds(rng, lengths),
                  pick(rng, [(), ((1, 1),), ((2, 2),), None, ((0, None),)])]
        elements = [pick(rng, ["f32", "f16", "i32", "boolean", None]),
                    pick(rng, ["i32", "i64", "i64", "f32", "u8", None])]

        def theirs(shapes=shapes, elements=elements):
            return openvino_outcome(lambda: ops3.cumsum(*(ops3.parameter(partial_shape(s), ELEMENTS[e])
                                                          for s, e in zip(shapes, elements, strict=True))))

        def ours(shapes=shapes, elements=elements):
            return our_outcome("CumSum", "opset3", {}, tensor_types(elements, shapes), [None] * 2)

        cases.append((f"CumSum {elements} {[show(s) for s in shapes]}", theirs, ours))
    assert_shapes_agree(cases)


def test_opsets(tmp_path: Path) -> None:
    p = ops3.parameter([2, 3], np.float32)
    assert check_versions({"CumSum": ops3.cumsum(p, ops3.constant(np.int64(1)))}, [p], tmp_path) == []


def test_compare_checks_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Exp -> CumSum (exclusive, reverse, a negative axis) compared end to end and per layer (CumSum was not checked,
    its output not compared)."""

    x = ops3.parameter([2, 64], np.float32, name="x")
    y = ops3.cumsum(ops3.exp(x), ops3.constant(np.int32(-1)), True, True)
    xml = tmp_path / "cumsum.xml"
    ov.save_model(ov.Model([ops3.result(y)], [x], "cumsum"), xml)
    assert_compare_passes(xml, capsys, {"CumSum@opset3"}, outputs=1)


@pytest.mark.parametrize(("exclusive", "reverse"), [(True, False), (True, True)])
def test_exclusive_sums_along_an_axis_of_length_0(tmp_path: Path, exclusive: bool, reverse: bool) -> None:
    """CPU gives data of no element back (measured on 2026.4); the exclusive kernel failed ("IndexError: cannot do a
    non-empty take from an empty axes", E-EXEC)."""
    from ir_tools.cli import main

    data = ops3.parameter([2, -1], np.float32, name="data")
    xml = tmp_path / "cum_sum.xml"
    ov.save_model(ov.Model([ops3.cumsum(data, ops3.constant(np.int64(1)), exclusive, reverse)], [data]), xml)
    assert ov.Core().compile_model(xml, "CPU")({"data": np.ones((2, 0), np.float32)})[0].shape == (2, 0)
    assert main(["compare", str(xml), "--shape", "data:2,0", "-q"]) == 0
