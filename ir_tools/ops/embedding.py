"""Embedding bags: EmbeddingBagOffsetsSum-3, EmbeddingBagPackedSum-3, EmbeddingSegmentsSum-3 and their opset15
successors EmbeddingBagOffsets-15 and EmbeddingBagPacked-15 (attribute ``reduction``, sum or mean): shape rules and
kernels that compute as OpenVINO CPU does, bit for bit, checked by tests/ops/test_embedding_conformance.py.

Each output row is a bag of table rows: the rows at ``indices[offsets[b]:offsets[b + 1]]`` (offsets), at
``indices[b, :]`` (packed) or at the indices whose segment id is b (segments), each times its per_sample_weight where
given, summed; a mean divides the sum by the bag's length (per_sample_weights only with sum: OpenVINO's shape
inference refuses a mean with them). An empty bag is the row at default_index, unweighted (a mean divides it by 1),
or zeros without one (EmbeddingBagOffsets: or where it is -1).

Measured on openvino 2026.4.1 (CPU, f32 inference precision):

- One kernel sums every bag in order: ``acc = row[0] * w[0]``, then ``acc += row[k] * w[k]``, each product rounded
  before its sum (no FMA: 1,208 of 2,560 f32 sums of 30 weighted rows differ from FMAs, none from this), and a mean
  ``acc /= count``, one correctly rounded division. f16 tables (and weights) are computed in f32, rounded to f16 once
  at the end (1,552 of 2,560 such sums differ from f16 accumulation, none from f32's; a sum beyond 65504 is inf);
  f64 in f32, converted saturating (inf is 3.4028235e38; the reference clamps so, but keeps f64, whose rounding
  rule's unit is f32's: 300 seeded f64 layers within 0.40 of the bound). So the order is fixed and the kernel is
  OpenVINO's bit for bit; the rounding rule is still the accumulation bound, gamma(n) sum|terms| (n the longest bag)
  plus both sides' output rounding, for an implementation that sums otherwise.
- An f32 Constant's subnormals are zeros to the CPU (weights of 1e-40 give 0 where fed ones give 1e-40; a subnormal
  Const weight times an infinite row gives NaN), and an i64, u32 or u64 Constant saturates to i32 where a value fed
  wraps: the kernel follows the file's values as fed, and leaves both differences.
- Integers: i8, u8 and i32 tables are summed in their own type (wrapping at each step; a mean is the wrapped sum
  divided, truncating toward zero: i8 -5 / 2 is -2, 100 + 100 then / 2 is -28); i16, u16, u32, i64 and u64 in i32
  (each value wrapped to 32 bits: i64 2^40 + 5 is 5; u32 2^31 + 5 is negative), the i32 result wrapped back (sign
  extended: u64 -2 is 2^64 - 2).
- Indices, offsets, segment ids, num_segments and default_index are read as i32 (an i64 2^32 + 1 is 1). An index
  (or a default_index) a bag uses out of [0, rows) is refused when it runs; one no bag uses is not. Offsets must
  start within the indices (an offset equal to their number is refused, even for an empty last bag) and not
  decrease; indices before the first offset belong to no bag. Packed indices of 0 columns are refused.
- EmbeddingBagOffsetsSum-3 and EmbeddingBagOffsets-15 read a default_index of -1 as none (zeros); any other value
  is an index. EmbeddingSegmentsSum-3 reads -1 as an index (refused where a segment is empty).
- EmbeddingSegmentsSum-3: segment ids of num_segments or more, or negative, are skipped. CPU sums a segment as the
  run of its count of indices from its first id's position (``indices[p:p + count]``): right where each segment's
  ids are contiguous, otherwise it sums other indices (ids [0, 2, 0, 1] give segment 0 rows 0 and 1, not 0 and 2).
  The kernel computes that, as CPU does (an OpenVINO defect, left alone). num_segments 0 or negative is refused
  when it runs.
- Shape inference: indices, offsets, segment ids, num_segments and default_index must be i32 or i64 (a dynamic type
  is refused), offsets and default_index of the indices' type, segment ids and num_segments too, per_sample_weights
  of the table's (dynamic types match any); the output is the table's type and shape, its first dim the offsets'
  dim, the packed indices' first dim (merged with the weights'), or a known num_segments (a negative one, or one not
  known, a dynamic dim).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.dtypes import F32_MAX
from ..base.errors import OpValidationError, UnsupportedError
from ..base.packed import is_bf16
from . import attrs as A
from .core import NoAttrs
from .intervals import compatible, is_empty, iv, meet, to_dim
from .operands import ints
from .rounding import accumulation
from .spec import Kernel, OpSpec, RoundingRule, TensorType, never

_INDEX_TYPES = ("i32", "i64")
#: Table element types OpenVINO CPU sums in their own type; other integers it sums in i32.
_NATIVE = (np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int32))


@dataclass(frozen=True, slots=True)
class BagAttrs:
    reduction: str = A.attr("reduction", A.enum("sum", "mean"), "sum")


# --- shape rules ----------------------------------------------------------------------------------------------------


def index_type(t: TensorType, what: str, dynamic: bool = False) -> None:
    """OpenVINO's ``type == i32 || type == i64``: a dynamic element type is refused too, but where ``dynamic``."""
    if t.element not in _INDEX_TYPES and not (dynamic and t.element is None):
        raise OpValidationError(f"{what} type must be i32 or i64, got {t.element or 'dynamic'}")


def _same_element(a: TensorType, b: TensorType, what: str) -> None:
    if a.element is not None and b.element is not None and a.element != b.element:
        raise OpValidationError(f"{what} element type ({b.element}) must match {a.element}")


def rank_of(t: TensorType, rank: int, what: str) -> None:
    """Refuse a static rank other than ``rank``."""
    if t.shape is not None and len(t.shape) != rank:
        raise OpValidationError(f"{what} must be {'a scalar' if rank == 0 else f'{rank}D'}, got rank {len(t.shape)}")


def _shapes_compatible(a: TensorType, b: TensorType, what: str) -> None:
    if a.shape is None or b.shape is None:
        return
    if len(a.shape) != len(b.shape) or not all(compatible(iv(x), iv(y)) for x, y in zip(a.shape, b.shape,
                                                                                          strict=True)):
        raise OpValidationError(f"{what} shapes must be the same")


def _rows(table: TensorType, first: Dim) -> TensorType:
    """The table's shape with its first dim ``first`` (a table of a dynamic rank: a dynamic rank)."""
    if table.shape is None:
        return TensorType(table.element, None)
    if not table.shape:
        raise OpValidationError("EMB_TABLE can't be a scalar")
    return TensorType(table.element, (first, *table.shape[1:]))


def _common(inputs: Sequence[TensorType], rank: int, default: int | None, weights: int) -> None:
    """The checks every embedding op makes of its indices (input 1, of ``rank``), default_index and
    per_sample_weights (their input numbers; None: no default_index)."""
    index_type(inputs[1], "INDICES")
    rank_of(inputs[1], rank, "INDICES")
    if default is not None and len(inputs) > default:
        index_type(inputs[default], "DEFAULT_INDEX")
        _same_element(inputs[1], inputs[default], "DEFAULT_INDEX")
        rank_of(inputs[default], 0, "DEFAULT_INDEX")
    if len(inputs) > weights:
        _same_element(inputs[0], inputs[weights], "PER_SAMPLE_WEIGHTS")


def _offsets_rule(a: BagAttrs | NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    table, indices, offsets = inputs[:3]
    index_type(offsets, "OFFSETS")
    _common(inputs, 1, 3, 4)
    _same_element(indices, offsets, "OFFSETS")
    rank_of(offsets, 1, "OFFSETS")
    if len(inputs) == 5:
        if getattr(a, "reduction", "sum") != "sum":
            raise OpValidationError("per_sample_weights are only supported with reduction sum")
        rank_of(inputs[4], 1, "PER_SAMPLE_WEIGHTS")
        _shapes_compatible(indices, inputs[4], "INDICES and PER_SAMPLE_WEIGHTS")
    return [_rows(table, offsets.shape[0] if offsets.shape is not None else DYNAMIC)]


def _packed_rule(a: BagAttrs | NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    table, indices = inputs[:2]
    _common(inputs, 2, None, 2)
    shape = indices.shape
    if len(inputs) == 3:
        if getattr(a, "reduction", "sum") != "sum":
            raise OpValidationError("per_sample_weights are only supported with reduction sum")
        weights = inputs[2]
        rank_of(weights, 2, "PER_SAMPLE_WEIGHTS")
        if shape is None:
            shape = weights.shape
        elif weights.shape is not None:
            merged = [meet(iv(x), iv(y)) for x, y in zip(shape, weights.shape, strict=True)]
            if any(is_empty(m) for m in merged):
                raise OpValidationError("INDICES and PER_SAMPLE_WEIGHTS shape must be same")
            shape = tuple(to_dim(m) for m in merged)
    return [_rows(table, shape[0] if shape is not None else DYNAMIC)]


def _segments_rule(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    table, indices, ids, count = inputs[:4]
    index_type(ids, "SEGMENT_IDS")
    _common(inputs, 1, 4, 5)
    index_type(count, "NUM_SEGMENTS")
    _same_element(indices, ids, "SEGMENT_IDS")
    _same_element(ids, count, "NUM_SEGMENTS")
    rank_of(ids, 1, "SEGMENT_IDS")
    _shapes_compatible(indices, ids, "INDICES and SEGMENT_IDS")
    rank_of(count, 0, "NUM_SEGMENTS")
    if len(inputs) == 6:
        rank_of(inputs[5], 1, "PER_SAMPLE_WEIGHTS")
        _shapes_compatible(indices, inputs[5], "INDICES and PER_SAMPLE_WEIGHTS")
    first = DYNAMIC
    if values[3] is not None:
        n = ints(values[3])[0]
        first = Dim(n, n) if n >= 0 else DYNAMIC  # (OpenVINO reads a negative count as a dynamic dim)
    return [_rows(table, first)]


# --- kernels --------------------------------------------------------------------------------------------------------


def _work(dtype: np.dtype) -> np.dtype:
    """The type OpenVINO CPU sums a table of ``dtype`` in (the module's docstring); f64 is kept (rounding's unit)."""
    if is_bf16(dtype):
        raise UnsupportedError("embedding bags of a bf16 table are not modelled (ops/embedding.py)")
    if dtype.kind == "f":
        return np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)
    if dtype.kind not in "iu":
        raise UnsupportedError(f"embedding bags of a {dtype} table are not modelled (ops/embedding.py)")
    return dtype if dtype in _NATIVE else np.dtype(np.int32)


def cpu_values(x: np.ndarray, work: np.dtype) -> np.ndarray:
    """``x`` in ``work``: an f64 value clamped to f32's range first, as OpenVINO CPU's conversion of f64 to f32 (the
    type it computes f64 in) saturates (inf is 3.4028235e38); integers wrapped."""
    if x.dtype == np.float64:
        return np.clip(x, -F32_MAX, F32_MAX)
    return x.astype(work)


def as_i32(values: np.ndarray) -> np.ndarray:
    """Index-like values as OpenVINO CPU reads them: i32, an i64 wrapped to its low 32 bits."""
    return np.asarray(values).astype(np.int64).astype(np.int32)


def bag_sums(table: np.ndarray, indices: np.ndarray, starts: np.ndarray, sizes: np.ndarray,
             weights: np.ndarray | None, default: int | None, mean: bool) -> np.ndarray:
    """Each bag b, the rows at ``indices[starts[b]:starts[b] + sizes[b]]`` times their weights, summed in order as
    OpenVINO CPU does (in ``_work``'s type); an empty bag the row at ``default`` (unweighted), or zeros (None); a
    ``mean`` divides by the bag's length (1 for the default row). An index a bag uses out of the rows: refused."""
    work = _work(table.dtype)
    rows = table.shape[0]
    data = cpu_values(table.reshape(rows, -1), work)
    empty = sizes == 0
    if default is not None and empty.any() and not 0 <= default < rows:
        raise OpValidationError(f"default_index {default} is out of [0, {rows}) (OpenVINO CPU refuses it)")
    out = np.zeros((starts.size, data.shape[1]), work)
    w = None if weights is None else cpu_values(np.asarray(weights).reshape(-1), work)
    flat = as_i32(indices).reshape(-1)
    for k in range(int(sizes.max(initial=0))):
        live = np.flatnonzero(sizes > k)
        at = starts[live] + k
        taken = flat[at]
        if taken.size and (taken.min() < 0 or taken.max() >= rows):
            bad = int(taken[(taken < 0) | (taken >= rows)][0])
            raise OpValidationError(f"index {bad} is out of [0, {rows}) (OpenVINO CPU refuses it)")
        term = data[taken] if w is None else _product(data[taken], w[at][:, None], work)
        out[live] = term if k == 0 else _add(out[live], term, work)
    if default is not None and empty.any():
        out[empty] = data[default]
    if mean:
        counts = np.maximum(sizes, 1)[:, None]
        out = out / counts.astype(work) if work.kind == "f" else _divide(out, counts, work)
    return out.astype(table.dtype).reshape((starts.size, *table.shape[1:]))


def _product(rows: np.ndarray, w: np.ndarray, work: np.dtype) -> np.ndarray:
    """rows * w rounded (floats) or wrapped (integers) into ``work``."""
    if work.kind == "f":
        return rows * w
    return (rows.astype(np.int64) * w.astype(np.int64)).astype(work)


def _add(acc: np.ndarray, term: np.ndarray, work: np.dtype) -> np.ndarray:
    if work.kind == "f":
        return acc + term
    return (acc.astype(np.int64) + term.astype(np.int64)).astype(work)


def _divide(total: np.ndarray, counts: np.ndarray, work: np.dtype) -> np.ndarray:
    """An integer sum divided by its count, truncating toward zero (C's ``/=``), in ``work``."""
    t = total.astype(np.int64)
    q = np.abs(t) // counts
    return np.where(t < 0, -q, q).astype(work)


def _default(args: Sequence[np.ndarray], at: int, none_at_minus_one: bool) -> int | None:
    """The default_index input ``at`` (None where absent, or -1 where that means none)."""
    if len(args) <= at:
        return None
    value = int(as_i32(args[at]).reshape(-1)[0])
    return None if none_at_minus_one and value == -1 else value


def _offset_bags(args: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """EmbeddingBagOffsets' bags: (starts, sizes), the offsets checked as OpenVINO CPU checks them."""
    n = np.asarray(args[1]).size
    offsets = as_i32(args[2]).astype(np.int64).reshape(-1)
    if offsets.size and (offsets.min() < 0 or offsets.max() >= n):
        raise OpValidationError(f"offsets {offsets.tolist()[:8]} must lie in [0, {n}), the number of indices "
                                "(OpenVINO CPU refuses an offset equal to it)")
    sizes = np.diff(np.append(offsets, n))
    if np.any(sizes < 0):
        raise OpValidationError("offsets must not decrease (OpenVINO CPU refuses them)")
    return offsets, sizes


def _run_offsets(a: BagAttrs | NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    starts, sizes = _offset_bags(args)
    return [bag_sums(np.asarray(args[0]), args[1], starts, sizes, args[4] if len(args) > 4 else None,
                     _default(args, 3, True), getattr(a, "reduction", "sum") == "mean")]


def _run_packed(a: BagAttrs | NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    bags, length = np.shape(args[1])
    if length == 0:
        raise OpValidationError("packed indices of 0 columns (OpenVINO CPU refuses them)")
    starts = np.arange(bags, dtype=np.int64) * length
    return [bag_sums(np.asarray(args[0]), args[1], starts, np.full(bags, length, np.int64),
                     args[2] if len(args) > 2 else None, None, getattr(a, "reduction", "sum") == "mean")]


def _segment_bags(args: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """EmbeddingSegmentsSum's bags as OpenVINO CPU makes them: (starts, sizes), a segment's start its first id's
    position and its size its number of ids (ids out of [0, num_segments) skipped)."""
    count = int(as_i32(args[3]).reshape(-1)[0])
    if count <= 0:
        raise OpValidationError(f"num_segments {count} (OpenVINO CPU refuses one below 1)")
    ids = as_i32(args[2]).astype(np.int64).reshape(-1)
    kept = (ids >= 0) & (ids < count)
    sizes = np.bincount(ids[kept], minlength=count)
    starts = np.zeros(count, np.int64)
    positions = np.flatnonzero(kept)
    starts[ids[positions[::-1]]] = positions[::-1]  # (the last write wins: each segment's first position)
    return starts, sizes


def _run_segments(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    starts, sizes = _segment_bags(args)
    return [bag_sums(np.asarray(args[0]), args[1], starts, sizes, args[5] if len(args) > 5 else None,
                     _default(args, 4, False), False)]


# --- rounding -------------------------------------------------------------------------------------------------------


def _longest_offsets(a, args: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> int:
    return max(int(_offset_bags(args)[1].max(initial=0)), 1)


def _longest_packed(a, args: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> int:
    return max(int(np.shape(args[1])[1]), 1)


def _longest_segments(a, args: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> int:
    return max(int(_segment_bags(args)[1].max(initial=0)), 1)


def _bag_rounding(longest: Callable[[Any, Sequence[np.ndarray], Sequence[np.ndarray]], int],
                  weights: int) -> RoundingRule:
    """The accumulation bound of sums of ``longest`` terms, linear in the table and, where given, in the weights
    (input ``weights``): ``rounding.accumulation`` over the inputs present (its statistical variant pairs two)."""
    plain, weighted = accumulation(longest, (0,)), accumulation(longest, (0, weights))

    def rule(kernel: Kernel, a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return (weighted if len(args) > weights else plain)(kernel, a, args, bounds, outputs)

    def statistical(kernel: Kernel, a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                    outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return (weighted if len(args) > weights else plain).statistical(kernel, a, args, bounds, outputs)

    rule.statistical = statistical  # type: ignore[attr-defined]
    rule.outputs_last = True  # type: ignore[attr-defined]
    return rule


def _offsets_spec(op: str, label: str, attrs: type) -> OpSpec:
    return OpSpec(op, label, attrs, (3, 5), 1, _offsets_rule, _run_offsets,
                  rounding=_bag_rounding(_longest_offsets, 4), index_input=1, evaluates=never)


def _packed_spec(op: str, label: str, attrs: type) -> OpSpec:
    return OpSpec(op, label, attrs, (2, 3), 1, _packed_rule, _run_packed, rounding=_bag_rounding(_longest_packed, 2),
                  index_input=1, evaluates=never)


EMBEDDING_BAG_OFFSETS_SUM_3 = _offsets_spec("EmbeddingBagOffsetsSum", "EmbeddingBagOffsetsSum-3", NoAttrs)
EMBEDDING_BAG_PACKED_SUM_3 = _packed_spec("EmbeddingBagPackedSum", "EmbeddingBagPackedSum-3", NoAttrs)
EMBEDDING_SEGMENTS_SUM_3 = OpSpec("EmbeddingSegmentsSum", "EmbeddingSegmentsSum-3", NoAttrs, (4, 6), 1,
                                  _segments_rule, _run_segments, value_inputs=(3,),
                                  rounding=_bag_rounding(_longest_segments, 5), index_input=1, evaluates=never)
EMBEDDING_BAG_OFFSETS_15 = _offsets_spec("EmbeddingBagOffsets", "EmbeddingBagOffsets-15", BagAttrs)
EMBEDDING_BAG_PACKED_15 = _packed_spec("EmbeddingBagPacked", "EmbeddingBagPacked-15", BagAttrs)
