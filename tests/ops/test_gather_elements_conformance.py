"""GatherElements-6 (ops/gather.py) against OpenVINO: shape rule and CPU kernel.

Kernel: 400 seeded cases (f32 with NaN and -0, f16, i32, i64 within i32's range, i16, i8, u8 and boolean data of
rank 1 to 4; every axis, positive and negative; indices i32 or i64, negative ones in [-n, -1] included, as many as
data's or fewer or more along the axis, empty ones too) batched into one model, data and indices fed as Parameters,
compiled once for OpenVINO CPU: every output must be OpenVINO's bit for bit (the rounding rule moves values: exact).
Indices out of [-n, n - 1], which CPU refuses when it runs, are refused by the kernel too. Shape rule: 600 seeded
nodes on Parameters (partial shapes and dynamic ranks, ranks that differ, scalars, dims off the axis that differ,
axes out of range, indices of i32, i64, u8, f32 or a dynamic type) must give our rule's output, or both refuse.
Rounding rule: on 100 of the kernel's cases, data moved within its bounds stays within the rule's bound, and an
inexact index leaves its output element unbounded. ``check_versions``: opset6..16 read GatherElements-6; ``compare``
checks a model of it end to end and per layer.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset6 as ops6
import pytest

from ir_tools.base.errors import OpValidationError
from ir_tools.ops import attrs as A
from ir_tools.ops.gather import GATHER_ELEMENTS_6
from ir_tools.ops.rounding import EXACT

from .conformance import (
    Case,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    blur,
    check_versions,
    openvino_outcome,
    our_outcome,
    parameters,
    pick,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 6606
DTYPES = (np.float32, np.float16, np.int32, np.int64, np.int16, np.int8, np.uint8, np.bool_)


def values(rng: np.random.Generator, dtype: type, shape: list[int]) -> np.ndarray:
    if dtype is np.bool_:
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(np.int32 if dtype is np.int64 else dtype)  # CPU holds i64 as i32
        return rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
    x = rng.standard_normal(shape).astype(dtype)
    x[rng.random(shape) < 0.05] = np.nan
    x[rng.random(shape) < 0.05] = -0.0
    return x


def kernel_inputs(rng: np.random.Generator, dtype: type) -> tuple[np.ndarray, np.ndarray, int]:
    """Data, indices within [-n, n - 1] and the axis."""
    rank = int(rng.integers(1, 5))
    data = [int(n) for n in rng.integers(1, 5, rank)]
    axis = int(rng.integers(-rank, rank))
    a = axis % rank
    index_shape = list(data)
    index_shape[a] = int(rng.integers(1, 7))  # fewer, as many or more than data's along the axis
    if rng.random() < 0.05:
        index_shape[int(rng.integers(rank))] = 0  # empty indices (data too, off the axis)
        data = [0 if k != a and index_shape[k] == 0 else n for k, n in enumerate(data)]
    n = data[a]
    idx = rng.integers(-n, n, index_shape).astype(pick(rng, [np.int32, np.int64]))
    return values(rng, dtype, data), idx, axis


def kernel_case(rng: np.random.Generator, dtype: type) -> Case:
    x, idx, axis = kernel_inputs(rng, dtype)
    what = f"GatherElements axis={axis} {x.dtype}{list(x.shape)} indices {idx.dtype}{idx.tolist()}"
    return Case(what, [x, idx], lambda p, axis=axis: ops6.gather_elements(*p, axis), bits=True)


def test_values_bit_equal(tmp_path: Path) -> None:
    rng = np.random.default_rng(SEED)
    assert_all_pass([kernel_case(rng, DTYPES[i % len(DTYPES)]) for i in range(400)], tmp_path)


def test_bounds_move_with_their_elements() -> None:
    """Data moved anywhere within its bounds moves the result by no more than the rule's bound (100 seeded f32 cases);
    an output element whose index may differ has no bound."""
    rng = np.random.default_rng([SEED, 2])
    for _ in range(100):
        x, idx, axis = kernel_inputs(rng, np.float32)
        x = np.nan_to_num(x, nan=1.0)
        raw, what = {"axis": str(axis)}, (axis, idx.tolist())
        bound = np.abs(rng.standard_normal(x.shape)) * float(rng.choice([1e-6, 1e-3, 1e-1]))
        assert_bounds_carry_moves(GATHER_ELEMENTS_6, raw, [x, idx], [bound, EXACT], rng, what)
        if idx.size:
            index_bound = np.zeros(idx.shape)
            index_bound.reshape(-1)[0] = 1.0
            attrs = A.decode(GATHER_ELEMENTS_6.attrs, raw)
            (found,) = GATHER_ELEMENTS_6.rounding(GATHER_ELEMENTS_6.kernel, attrs, [x, idx], [bound, index_bound],
                                                  GATHER_ELEMENTS_6.kernel(attrs, [x, idx]))
            assert np.array_equal(np.isinf(found), index_bound > 0), what


def compiled(data: list[int], indices: list[int], axis: int) -> ov.CompiledModel:
    x, i = ops6.parameter(data, np.float32), ops6.parameter(indices, np.int32)
    return ov.Core().compile_model(ov.Model([ops6.gather_elements(x, i, axis)], [x, i]), "CPU")


@pytest.mark.parametrize("index", [3, -4, 7, -2**31])
def test_out_of_range_indices_are_refused(index: int) -> None:
    """OpenVINO CPU refuses an index out of [-n, n - 1] when it runs; so does the kernel."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.zeros((2, 4), np.int32)
    idx[1, 2] = index
    with pytest.raises(RuntimeError, match="exceed data size"):
        compiled([3, 4], [2, 4], 0)([x, idx])
    with pytest.raises(OpValidationError):
        GATHER_ELEMENTS_6.kernel(A.decode(GATHER_ELEMENTS_6.attrs, {"axis": "0"}), [x, idx])


def test_an_empty_axis_is_refused() -> None:
    """Any index on an empty axis is out of range: OpenVINO CPU does not refuse it but gives whatever memory holds."""
    with pytest.raises(OpValidationError):
        GATHER_ELEMENTS_6.kernel(A.decode(GATHER_ELEMENTS_6.attrs, {"axis": "0"}),
                                 [np.zeros((0, 4), np.float32), np.zeros((1, 4), np.int32)])


@pytest.mark.parametrize("data, indices, axis", [([3, 4], [2, 4], 1), ([3, 4], [3, 4, 1], 0), ([], [], 0),
                                                 ([3, 4], [3, 4], 2)])
def test_kernel_refuses_what_openvino_refuses(data: list[int], indices: list[int], axis: int) -> None:
    with pytest.raises(RuntimeError):
        ops6.gather_elements(ops6.parameter(data, np.float32), ops6.parameter(indices, np.int32), axis)
    with pytest.raises(OpValidationError):
        GATHER_ELEMENTS_6.kernel(A.decode(GATHER_ELEMENTS_6.attrs, {"axis": str(axis)}),
                                 [np.zeros(data, np.float32), np.zeros(indices, np.int32)])


def test_indices_of_another_type_are_refused() -> None:
    for dtype in (np.uint8, np.int16, np.uint32):
        with pytest.raises(RuntimeError):
            ops6.gather_elements(ops6.parameter([2], np.float32), ops6.parameter([2], dtype), 0)
        with pytest.raises(OpValidationError):
            GATHER_ELEMENTS_6.kernel(A.decode(GATHER_ELEMENTS_6.attrs, {}), [np.zeros(2, np.float32),
                                                                             np.zeros(2, dtype)])


# --- shape rule ------------------------------------------------------------------------------------


def shape_case(rng: np.random.Generator):
    rank = int(rng.integers(0 if rng.random() < 0.05 else 1, 5))
    data = [int(n) for n in rng.integers(1, 5, rank)]
    axis = int(rng.integers(-rank, rank)) if rank and rng.random() < 0.9 else pick(rng, [-rank - 1, rank, 3])
    indices = list(data)
    if -rank <= axis < rank:
        indices[axis] = int(rng.integers(1, 6))
    if rng.random() < 0.15 and indices:  # a dim off the axis that differs
        indices[int(rng.integers(len(indices)))] += 1
    if rng.random() < 0.08:  # ranks that differ
        indices = indices[:-1] if indices and rng.random() < 0.5 else [*indices, 2]
    shapes = [None if rng.random() < 0.1 else tuple(blur(rng, n) for n in s) for s in (data, indices)]
    elements = [pick(rng, ["f32", "f32", "i32", "boolean", None]),
                pick(rng, ["u8", "f32", None] if rng.random() < 0.15 else ["i32", "i64"])]
    what = f"GatherElements axis={axis} {elements[0]}{show(shapes[0])} indices {elements[1]}{show(shapes[1])}"

    def theirs():
        return openvino_outcome(lambda: ops6.gather_elements(*parameters(elements, shapes), axis))

    def ours():
        return our_outcome("GatherElements", "opset6", {"axis": str(axis)}, tensor_types(elements, shapes),
                           [None, None])

    return what, theirs, ours


def test_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 1])
    assert_shapes_agree([shape_case(rng) for _ in range(600)])


def test_opsets(tmp_path: Path) -> None:
    x = ops6.parameter([2, 3], np.float32)
    node = ops6.gather_elements(x, ops6.constant(np.zeros((2, 3), np.int64)), 1)
    assert check_versions({"GatherElements": node}, [x], tmp_path) == []


def test_compare_checks_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Rotary-embedding style (GPT-J): a table's rows gathered element-wise at indices given as an input, compared end
    to end and per layer; the seeded indices stay within the table's dims (``index_input``)."""

    table = ops6.parameter([4, 16, 8], np.float32, name="table")
    positions = ops6.parameter([4, 3, 8], np.int64, name="positions")
    y = ops6.relu(ops6.gather_elements(table, positions, 1))
    xml = tmp_path / "gather_elements.xml"
    ov.save_model(ov.Model([ops6.result(y)], [table, positions], "gather_elements"), xml)
    assert_compare_passes(xml, capsys, {"GatherElements@opset6"})
