"""SegmentMax-16: shape rule and a kernel that computes as OpenVINO CPU does, exactly, checked by
tests/ops/test_embedding_conformance.py (``passes/downgrade/segment_max`` rewrites it for older releases).

Output row s is the maximum of the data rows whose segment id is s; the rows count num_segments where given, else
the largest id plus one; a row no id names is 0 (fill_mode ZERO) or the type's lowest value (LOWEST).

Measured on openvino 2026.4.1 (CPU): each output row starts at the type's lowest value and takes
``std::max(acc, x)`` of its rows in order, so a NaN is skipped, a segment of only NaN or -inf gives f32's lowest
(-3.4028235e38), and of equal values the first is kept (-0.0 then 0.0 gives -0.0); an empty segment gives 0 (ZERO)
or the lowest (LOWEST). f16 and f64 are computed in f32 (an f16 lowest is -inf as the output); i8 and u8 in their
type; i16, u16, i32, u32, i64 and u64 in i32 (each value wrapped to 32 bits: i64 2^40 is 0, u32 2^31 + 5 is less
than 3), the result wrapped back (i16's lowest 0, i64's -2^31, u64's 2^64 - 2^31). Segment ids are read as i32; ids
of num_segments or more are skipped; unsorted ids are refused when it runs, a negative id crashes the process (a double
free) and data of 0 rows with a num_segments gives whatever memory holds: the reference refuses all three. f64 is
converted to f32 saturating (inf is 3.4028235e38): the kernel clamps f64 so, but keeps its values (f32's lowest as its
start) rather than rounding them to f32, which the bound of an f64 input taken in covers (``rounding.taken_in``).
Shape inference: segment_ids and num_segments of i32, i64 or a dynamic type; the rows are a known num_segments (a
negative one: a dynamic dim), else, without a num_segments, known ids' maximum plus one (known unsorted ids refused;
known ids of none crash it, a segmentation fault: the maximum of no ids).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.dtypes import F32_MAX
from ..base.errors import OpValidationError, UnsupportedError
from ..base.packed import is_bf16
from . import attrs as A
from .embedding import as_i32, cpu_values, index_type, rank_of
from .intervals import compatible, iv
from .operands import ints
from .rounding import moves
from .spec import Kernel, OpSpec, TensorType, never


@dataclass(frozen=True, slots=True)
class SegmentMaxAttrs:
    fill_mode: str = A.attr("fill_mode", A.enum("zero", "lowest"), "zero")


def _infer(a: SegmentMaxAttrs, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    data, ids = inputs[:2]
    index_type(ids, "segment_ids", dynamic=True)
    if len(inputs) == 3:
        index_type(inputs[2], "num_segments", dynamic=True)
    if data.shape is not None and not data.shape:
        raise OpValidationError("The data input cannot be a scalar")
    rank_of(ids, 1, "segment_ids")
    if data.shape is not None and ids.shape is not None and not compatible(iv(data.shape[0]), iv(ids.shape[0])):
        raise OpValidationError("The number of elements in segment_ids must match the first dimension of data")
    known = None if values[1] is None else ints(values[1])
    if known is not None and known != sorted(known):
        raise OpValidationError("segment_ids must be sorted")
    if len(inputs) == 3:
        rank_of(inputs[2], 0, "num_segments")
    first = DYNAMIC
    if len(inputs) == 3:
        if values[2] is not None:
            first = _dim(ints(values[2])[0])
    elif known:
        first = _dim(max(known) + 1)
    if known == []:
        return None  # (OpenVINO takes the maximum of no ids)
    if data.shape is None:
        return [TensorType(data.element, None)]
    return [TensorType(data.element, (first, *data.shape[1:]))]


def _dim(n: int) -> Dim:
    """A known row count as OpenVINO reads it: a negative one as a dynamic dim."""
    return Dim(n, n) if n >= 0 else DYNAMIC


def _work(dtype: np.dtype) -> tuple[np.dtype, float]:
    """The type OpenVINO CPU takes the maxima in, and the value each row starts from (its lowest)."""
    if is_bf16(dtype):
        raise UnsupportedError("SegmentMax-16 of bf16 is not modelled (ops/segments.py)")
    if dtype.kind == "f":
        return (np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)), -F32_MAX
    if dtype.kind not in "iu":
        raise UnsupportedError(f"SegmentMax-16 of {dtype} is not modelled (ops/segments.py)")
    work = dtype if dtype in (np.dtype(np.int8), np.dtype(np.uint8)) else np.dtype(np.int32)
    return work, int(np.iinfo(work).min)


def _run(a: SegmentMaxAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(args[0])
    if x.shape[0] == 0:
        raise OpValidationError("SegmentMax of data of 0 rows (OpenVINO CPU crashes)")
    ids = as_i32(args[1]).astype(np.int64).reshape(-1)
    if ids.size and ids.min() < 0:
        raise OpValidationError(f"segment id {int(ids.min())} is negative (OpenVINO CPU crashes)")
    if np.any(np.diff(ids) < 0):
        raise OpValidationError("segment_ids must be sorted (OpenVINO CPU refuses them)")
    count = int(as_i32(args[2]).reshape(-1)[0]) if len(args) > 2 else int(ids.max(initial=-1)) + 1
    if count < 0:
        raise OpValidationError(f"num_segments {count} is negative")
    work, lowest = _work(x.dtype)
    data = cpu_values(x.reshape(x.shape[0], -1), work)
    kept = ids < count
    sizes = np.bincount(ids[kept], minlength=count)
    starts = np.searchsorted(ids, np.arange(count))  # (sorted ids: each segment's rows are one run)
    out = np.full((count, data.shape[1]), np.array(lowest).astype(work))
    for k in range(int(sizes.max(initial=0))):
        live = np.flatnonzero(sizes > k)
        row = data[starts[live] + k]
        acc = out[live]
        out[live] = np.where(acc < row, row, acc)  # std::max(acc, x): a NaN never replaces, ties keep the first
    if a.fill_mode == "zero":
        out[sizes == 0] = 0
    return [out.astype(x.dtype).reshape((count, *x.shape[1:]))]


_MOVES = moves(0)


def _picked(kernel: Kernel, a: SegmentMaxAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
            outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each output picks one element of its segment (or a fill value, exact): within the largest bound there, the
    kernel of fill_mode ZERO on the bounds (LOWEST's fill would be a negative bound)."""
    return _MOVES(kernel, SegmentMaxAttrs("zero"), args, bounds, outputs)


SEGMENT_MAX_16 = OpSpec("SegmentMax", "SegmentMax-16", SegmentMaxAttrs, (2, 3), 1, _infer, _run, value_inputs=(1, 2),
                        rounding=_picked, index_input=1, evaluates=never)
