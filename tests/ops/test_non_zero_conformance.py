"""NonZero-3 (ops/non_zero.py) against OpenVINO: shape rule and CPU kernel.

Kernel: 300 seeded cases (f32 with NaN, -0 and zeros, f16, i32, i64, i8, u8 and boolean data of rank 0 to 4, empty
dims included, from all zeros to all nonzero; output_type i32 and i64) batched into one model and compiled once for
OpenVINO CPU (its outputs of data-dependent dims): every output must be OpenVINO's bit for bit (row-major order; the
rounding rule is exact). Shape rule: 300 seeded Parameters of partial shapes (static, dynamic, interval and unbounded
dims, zero dims, dynamic ranks, scalars) and element types must give our rule's output. ``check_versions``:
opset3..16 read NonZero-3.
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
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 3003
DTYPES = (np.float32, np.float16, np.int32, np.int64, np.int8, np.uint8, np.bool_)


def data(rng: np.random.Generator, dtype: type) -> np.ndarray:
    shape = [int(n) for n in rng.integers(1, 5, int(rng.integers(0, 5)))]
    if shape and rng.random() < 0.1:
        shape[int(rng.integers(len(shape)))] = 0
    density = float(pick(rng, [0.0, 0.1, 0.5, 0.9, 1.0]))
    keep = rng.random(shape) < density
    if dtype is np.bool_:
        return keep
    if np.dtype(dtype).kind in "iu":
        x = rng.integers(1, 100, shape).astype(dtype)
    else:
        x = rng.standard_normal(shape).astype(dtype)
        x[rng.random(shape) < 0.1] = np.nan
    x = np.where(keep, x, np.zeros((), dtype)).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[(~keep) & (rng.random(shape) < 0.5)] = -0.0
    return x


def non_zero_cases(rng: np.random.Generator, n: int) -> list[Case]:
    cases = []
    for i in range(n):
        x = data(rng, DTYPES[i % len(DTYPES)])
        output_type = pick(rng, ["i64", "i32"])
        cases.append(Case(f"NonZero {x.dtype}{list(x.shape)} {output_type}", [x],
                          lambda p, t=output_type: ops3.non_zero(p[0], t), bits=True))
    return cases


def test_values_bit_equal(tmp_path: Path) -> None:
    assert_all_pass(non_zero_cases(np.random.default_rng(SEED), 300), tmp_path)


def test_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 1])
    cases = []
    for _ in range(300):
        lengths = [int(n) for n in rng.integers(0, 6, int(rng.integers(0, 5)))]
        shape = None if rng.random() < 0.1 else random_bounds(rng, lengths)
        element, output_type = pick(rng, ["f32", "i32", "boolean", None]), pick(rng, ["i64", "i32"])

        def theirs(shape=shape, element=element, output_type=output_type):
            return openvino_outcome(lambda: ops3.non_zero(ops3.parameter(partial_shape(shape), ELEMENTS[element]),
                                                          output_type))

        def ours(shape=shape, element=element, output_type=output_type):
            return our_outcome("NonZero", "opset3", {"output_type": output_type}, tensor_types([element], [shape]),
                               [None])

        cases.append((f"NonZero {element}{show(shape)} {output_type}", theirs, ours))
    assert_shapes_agree(cases)


def test_opsets(tmp_path: Path) -> None:
    p = ops3.parameter([2, 3], np.float32)
    assert check_versions({"NonZero": ops3.non_zero(p, "i64")}, [p], tmp_path) == []


def test_compare_checks_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Relu -> NonZero (the positions of the positive inputs) compared end to end and per layer (NonZero was not
    checked, the output not compared)."""

    x = ops3.parameter([3, 8], np.float32, name="x")
    y = ops3.non_zero(ops3.relu(x), "i32")
    xml = tmp_path / "nonzero.xml"
    ov.save_model(ov.Model([ops3.result(y)], [x], "nonzero"), xml)
    assert_compare_passes(xml, capsys, {"NonZero@opset3"}, outputs=1)
