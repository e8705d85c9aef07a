"""The shape plumbing of real networks: Reshape, Squeeze, Unsqueeze, Transpose, Concat, Split,
VariadicSplit, Gather, GatherND, ScatterNDUpdate, ShapeOf, Broadcast, Tile and Range. Attributes, shape rules and
reference kernels.

Shape rules are OpenVINO's shape inference (src/core/shape_inference), interval bounds included,
checked against the installed openvino by tests/ops/test_shaping_conformance.py; kernels are checked
there against OpenVINO CPU. A value input (a target shape, axes, repeats...) is read from ``values``;
None there means the value is unknown, and the rule answers what OpenVINO infers when it knows
nothing of it (a Parameter feeds it). When OpenVINO may know more than we do (bounds of a ShapeOf
of a dynamic shape, symbols), the walker does not call the rule (passes/shapes.py, rule 4); a rule
returns None for a case it cannot match (Broadcast pdpd, VariadicSplit whose split_lengths has a
dynamic shape, where OpenVINO makes no outputs at all, and any answer holding an empty dim, min >
max, which a Dim cannot hold).

What OpenVINO 2026.4.1 does that its specification does not say, measured there:

- Reshape: the target shape must be 1-D (a scalar 1 is refused). Without special_zero, a 0 with a
  -1 reads the -1 as the input's element count divided by the other non-zero dims ([0,3] to
  [0,-1] is [0,1], [0,3] to [5,-1] is [5,0]).
- Squeeze-1 and Squeeze-15 leave an axis that is not 1 in place instead of refusing it; with
  axes of unknown value and one element, Squeeze-1 gives rank - 1 dynamic dims, Squeeze-15 a
  dynamic rank. Unsqueeze with unknown axes gives a dynamic rank whatever their count.
- Concat, Gather, Split, VariadicSplit and Unsqueeze accept negative axes; Transpose does not.
- Split of an interval dim computes each bound as bound * (1.0f / num_splits) in single precision
  (29999999..30000001 in 3 is 10000000, not 9999999..10000000).
- Broadcast-1 and Broadcast-3 read mode case-insensitively, "none" as "explicit"; a missing mode is
  numpy for Broadcast-3 and explicit for Broadcast-1, and a Broadcast-1 with two inputs is numpy
  whatever its mode. The target shape of numpy mode is the output as given (a -1 there is a
  dynamic dim, another negative value 0).
- Gather gives zeros for an index out of [-n, n - 1] (OpenVINO's evaluator; CPU too, except on 1-D
  data, where it reads beyond the tensor); a negative index in range is counted from the end by
  Gather-8, and by the evaluator for Gather-1/7 too, but read as out of range by CPU there: the
  reference refuses negative indices before Gather-8.
- GatherND-5 and GatherND-8 take indices of any integer type (u8, i4, u1...; floats and boolean are
  refused, string and nf4 oddly are not). CPU counts a negative index in [-n, -1] from the end in
  both versions (GatherND has no evaluator) and reads whatever lies at the linear offset of an index
  out of [-n, n - 1], within the tensor or beyond it: the reference refuses those. A GatherND-5
  with batch_dims > 1 fuses the batch dims into their product (an interval product, saturating at
  the unbounded maximum); GatherND-8 keeps them. Index tuples of length 0 (indices [..., 0]) pass
  shape inference, but CPU leaves the output unwritten: the reference refuses them.
- ScatterNDUpdate-3 is in opset4..14 (its type info says opset4), ScatterNDUpdate-15 in opset15..16. Indices
  must be i32 or i64, updates of data's element type (a dynamic one merges); where the expected updates rank
  (data rank + indices rank - 1 - k) is 0, shape inference takes any updates shape, CPU only a scalar. CPU counts
  a negative index in [-n, -1] from the end and refuses one out of [-n, n - 1] when it runs; it leaves the data
  as it is for index tuples of length 0 (the evaluator applies the updates to the whole tensor): the reference
  refuses both. Reduction none writes duplicates in parallel (undefined; the reference takes the last); the
  reductions run in index order, floats in f32 (f16 too), integers wrapping, min/max as ``u < acc ? u : acc``
  (NaN in data stays, NaN in updates is skipped). Boolean data is reduced as u8 and read back as nonzero (sub
  of three trues from True is True, the evaluator's xor False; 256 trues sum to False). i64 data is computed
  as i32 by CPU; the reference keeps i64.
- Tile reads negative repeats as 0.
- Range-4 refuses a zero step as Range-1 does (its specification allows one), but a step that an
  integer output_type truncates to zero (-0.75 to i64) gives 0 elements. Its output_type may be
  missing (the output type is then dynamic).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim, Shape
from ..base.dtypes import INTEGER_TYPES, REAL_TYPES
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .core import ELEMENT, NoAttrs
from .intervals import (
    ANY,
    INF,
    ONE,
    ZERO,
    Iv,
    broadcast_merge,
    canon,
    compatible,
    contains,
    dadd,
    ddiv,
    dims,
    dmul,
    dynamic,
    guarded,
    is_empty,
    is_static,
    iv,
    meet,
    static_dims,
    to_dim,
)
from .operands import (
    bounds,
    integral,
    ints,
    normalize_axis,
    not_scalar,
    rank1,
    same_elements,
    scalar_axis,
    static_size,
)
from .rounding import EXACT, accumulation, exact, moves
from .spec import OpSpec, TensorType

# --- Reshape ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReshapeAttrs:
    special_zero: bool = A.attr("special_zero", A.BOOL, False)


def reshape_dims(shape: Shape, pattern: Sequence[int], special_zero: bool) -> tuple[Dim, ...]:
    """Reshape-1's output for a known target (OpenVINO's reshape_shape_inference, interval products included)."""
    minus_one = None
    wanted: list[Iv] = []
    for i, v in enumerate(pattern):
        if v == -1:
            if minus_one is not None:
                raise OpValidationError("the target shape has more than one -1")
            minus_one = i
            wanted.append(ANY)
        elif v >= 0:
            wanted.append((v, v))
        else:
            raise OpValidationError(f"the target shape has {v} at index {i}: only -1 may be negative")
    out: list[Iv] = []
    ins: list[Iv] = []
    outs: list[Iv] = []
    in_p, out_p = [ONE, ONE], [ONE, ONE]  # (static product, dynamic product)
    if shape is None:
        for p in wanted:
            if special_zero and p == ZERO:
                out.append(ANY)
                in_p[1] = out_p[1] = ANY
            else:
                out.append(p)
                outs.append(p)
    else:
        for i, p in enumerate(wanted):
            ignore = special_zero and p == ZERO
            if i == minus_one:
                out.append(ANY)
            elif ignore:
                if i >= len(shape):
                    raise OpValidationError(f"special_zero copies dim {i}, the input has rank {len(shape)}")
                out.append(iv(shape[i]))
            else:
                out.append(p)
                outs.append(p)
            if i < len(shape) and not ignore:
                ins.append(iv(shape[i]))
        ins += [iv(d) for d in shape[len(wanted):]]

    def mul(prod: list[Iv], value: Iv) -> None:
        if is_static(value):
            prod[0] = dmul(value, prod[0])
        else:
            prod[1] = dmul(value, prod[1])

    rest = list(outs)
    for d in ins:
        j = next((k for k, o in enumerate(rest) if o == d and is_static(d) and d != ZERO), None)
        if j is None:
            mul(in_p, d)
        else:
            del rest[j]
    for o in rest:
        mul(out_p, o)
    if in_p[0] != out_p[0]:
        in_p[1] = dmul(in_p[1], in_p[0])
        out_p[1] = dmul(out_p[1], out_p[0])

    if minus_one is not None:
        if out_p[0] == ZERO and in_p[0] != ZERO:
            raise OpValidationError("cannot infer the -1 dim: the other output dims hold a 0, the input none")
        m, po = in_p[1], out_p[1]
        if is_static(m) and is_static(po):
            m = ddiv(m, po[0])
        else:
            lo, hi = m
            po_min = -1 if po[0] == INF else po[0]
            hi = hi // po_min if hi != INF and po_min != 0 and po != ANY else INF
            if po[1] != 0:
                lo = 0 if lo == 0 else 1 + (lo - 1) // po[1]
            m = canon(lo, hi)
        if out_p[0] != ZERO and is_empty(m):
            raise OpValidationError("the input's element count is not divisible by the other output dims")
        out[minus_one] = m
    if shape is not None and all(d.is_static for d in shape) and all(is_static(o) for o in out):
        zero_dims = ZERO in wanted
        if not ((zero_dims and special_zero) or minus_one is not None) and in_p[0] != out_p[0]:
            shown = [o[0] for o in out]
            raise OpValidationError(f"cannot reshape {[d.lo for d in shape]} to {shown}: element counts differ")
    return dims(out)


def _reshape(a: ReshapeAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, pattern = inputs
    integral(pattern, "the target shape")
    rank1(pattern, "the target shape")
    if values[1] is None:
        n = None if pattern.shape is None or not pattern.shape[0].is_static else pattern.shape[0].lo
        return [TensorType(data.element, dynamic(n))]
    return [TensorType(data.element, reshape_dims(data.shape, bounds(values[1]), a.special_zero))]


def _run_reshape(a: ReshapeAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, pattern = args
    if pattern.dtype.kind not in "iu" or pattern.ndim != 1:
        raise OpValidationError(f"the target shape must be a 1-D integer tensor, got "
                                f"{pattern.dtype}{list(pattern.shape)}")
    out = reshape_dims(static_dims(x.shape), bounds(pattern), a.special_zero)
    return [x.reshape([d.lo for d in out])]


# --- Squeeze and Unsqueeze --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Squeeze15Attrs:
    allow_axis_skip: bool = A.attr("allow_axis_skip", A.BOOL, False)


def _axes_rank(t: TensorType) -> None:
    """Axes of Squeeze and Unsqueeze: a scalar or 1-D (a partly dynamic shape passes, as in OpenVINO)."""
    if t.shape is not None and all(d.is_static for d in t.shape) and len(t.shape) > 1:
        raise OpValidationError(f"axes must be a scalar or 1-D, got rank {len(t.shape)}")


def _squeeze(v15: bool):
    def infer(a, inputs: Sequence[TensorType], values) -> list[TensorType]:
        data = inputs[0]
        shape = data.shape
        axes: set[int] | None = set()
        if len(inputs) == 2:
            t = inputs[1]
            integral(t, "axes")
            _axes_rank(t)
            axes = None
            axes_size = static_size(t)
            if shape is not None and axes_size is not None:
                if values[1] is not None:
                    axes = {normalize_axis(v, len(shape), "axis") for v in ints(values[1])}
                elif len(shape) > 0 and axes_size == 1:
                    if any(contains(iv(d), 1) for d in shape):
                        return [TensorType(data.element, None if v15 else dynamic(len(shape) - 1))]
                    return [TensorType(data.element, shape)]
        if shape is None or axes is None:
            return [TensorType(data.element, None)]
        skip = getattr(a, "allow_axis_skip", False)
        if v15 and skip and any(not d.is_static and contains(iv(d), 1) and i in axes for i, d in enumerate(shape)):
            return [TensorType(data.element, None)]
        if not axes:
            if any(not d.is_static and contains(iv(d), 1) for d in shape):
                return [TensorType(data.element, None)]
            return [TensorType(data.element, tuple(d for d in shape if not contains(iv(d), 1)))]
        return [TensorType(data.element, tuple(d for i, d in enumerate(shape)
                                                 if i not in axes or not contains(iv(d), 1)))]

    return infer


def _run_squeeze(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = args[0]
    if len(args) == 1 or args[1].size == 0:
        return [x.reshape([n for n in x.shape if n != 1])]
    axes = {normalize_axis(v, x.ndim) for v in ints(args[1])}
    return [x.reshape([n for i, n in enumerate(x.shape) if i not in axes or n != 1])]


def unsqueeze_dims(shape: tuple[Dim, ...], raw: Sequence[int]) -> tuple[Dim, ...]:
    if not raw:
        raise OpValidationError("axes must not be empty")
    unique = set(raw)
    expanded = len(shape) + len(unique)
    axes = sorted({normalize_axis(v, expanded) for v in unique})
    out = list(shape)
    for axis in axes:
        if axis > len(out) + 1:
            raise OpValidationError(f"axis {axis} is not valid")
        out.insert(axis, Dim(1, 1)) if axis <= len(out) else out.append(Dim(1, 1))
    return tuple(out)


def _unsqueeze(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, t = inputs
    integral(t, "axes")
    _axes_rank(t)
    if values[1] is None or data.shape is None:
        return [TensorType(data.element, None)]
    return [TensorType(data.element, unsqueeze_dims(data.shape, ints(values[1])))]


def _run_unsqueeze(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, axes = args
    return [x.reshape([d.lo for d in unsqueeze_dims(static_dims(x.shape), ints(axes))])]


# --- Transpose --------------------------------------------------------------------------------------


def _order(raw: list[int], rank: int) -> list[int]:
    if not raw:
        return list(range(rank - 1, -1, -1))
    if sorted(raw) != list(range(rank)):
        raise OpValidationError(f"order {raw} is not a permutation of the {rank} axes of the input")
    return raw


def _transpose(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, order = inputs
    integral(order, "order")
    if order.shape is not None:
        if len(order.shape) != 1:
            raise OpValidationError(f"order must be 1-D, got rank {len(order.shape)}")
        rank = ANY if data.shape is None else (len(data.shape), len(data.shape))
        if not (compatible(iv(order.shape[0]), rank) or iv(order.shape[0]) == ZERO):
            raise OpValidationError(f"order has {order.shape[0]} values, the input has rank {rank[0]}")
    if values[1] is None:
        return [TensorType(data.element, None if data.shape is None else dynamic(len(data.shape)))]
    raw = ints(values[1])
    if data.shape is None:
        return [TensorType(data.element, dynamic(len(raw)))]
    return [TensorType(data.element, tuple(data.shape[i] for i in _order(raw, len(data.shape))))]


def _run_transpose(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, order = args
    return [np.transpose(x, _order(ints(order), x.ndim))]


# --- Concat -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConcatAttrs:
    axis: int = A.attr("axis", A.INT, 0)


def _concat(a: ConcatAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    element = same_elements(inputs)
    out: list[Iv] | None = None
    total = ZERO
    axis = 0
    for t in inputs:
        if t.shape is None:
            total = dadd(total, ANY)
            continue
        not_scalar(t.shape, "Concat")
        axis = normalize_axis(a.axis, len(t.shape))
        total = dadd(total, iv(t.shape[axis]))
        this = [ANY if i == axis else iv(d) for i, d in enumerate(t.shape)]
        if out is None:
            out = this
            continue
        if len(out) != len(this):
            raise OpValidationError(f"inputs of ranks {len(out)} and {len(this)}: they must be equal")
        merged = [meet(x, y) for x, y in zip(out, this, strict=True)]
        if any(is_empty(m) for m in merged):
            raise OpValidationError(f"input dims differ off the concatenation axis {axis}")
        out = merged
    if out is None:
        return [TensorType(element, None)]
    out[axis] = total
    return [TensorType(element, dims(out))]


def _run_concat(a: ConcatAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    if len({x.dtype for x in args}) > 1:
        raise OpValidationError("inputs of different element types")
    if args[0].ndim == 0:
        raise OpValidationError("cannot concatenate scalars")
    axis = normalize_axis(a.axis, args[0].ndim)
    if any(x.ndim != args[0].ndim or x.shape[:axis] + x.shape[axis + 1:] != args[0].shape[:axis] +
           args[0].shape[axis + 1:] for x in args):
        raise OpValidationError(f"shapes {[list(x.shape) for x in args]} differ off axis {axis}")
    return [np.concatenate(args, axis=axis)]


# --- Split and VariadicSplit ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SplitAttrs:
    num_splits: int = A.attr("num_splits", A.UINT)


def _split(a: SplitAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, axis_t = inputs
    n = a.num_splits
    if n <= 0:
        raise OpValidationError("num_splits must be positive")
    integral(axis_t, "axis")
    if axis_t.shape is not None and len(axis_t.shape) != 0:
        raise OpValidationError(f"axis must be a scalar, got rank {len(axis_t.shape)}")
    shape = data.shape
    if values[1] is None or shape is None:
        return [TensorType(data.element, None if shape is None else dynamic(len(shape)))] * n
    not_scalar(shape, "Split")
    axis = normalize_axis(scalar_axis(values[1]), len(shape))
    d = iv(shape[axis])
    if is_static(d):
        if d[0] % n:
            raise OpValidationError(f"the axis has length {d[0]}, not divisible by num_splits {n}")
        part = Dim(d[0] // n, d[0] // n)
    else:
        if d[1] < n:
            raise OpValidationError(f"the axis has length {shape[axis]}, less than num_splits {n}")
        part = Dim(_f32_part(d[0], n), None if d[1] == INF else _f32_part(d[1], n))
    out = shape[:axis] + (part,) + shape[axis + 1:]
    return [TensorType(data.element, out)] * n


def _f32_part(length: int, n: int) -> int:
    """OpenVINO's bound of an interval dim split in n: length * (1.0f / n), in single precision, truncated."""
    return int(np.float32(length) * (np.float32(1) / np.float32(n)))


def _run_split(a: SplitAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, axis = args
    axis = normalize_axis(scalar_axis(axis), x.ndim)
    if a.num_splits <= 0 or x.shape[axis] % a.num_splits:
        raise OpValidationError(f"axis of length {x.shape[axis]} cannot be split in {a.num_splits}")
    return list(np.split(x, a.num_splits, axis=axis))


def _lengths(raw: list[int], dim: Iv) -> list[int]:
    """Split lengths with the -1 resolved when the axis is static (left -1 otherwise)."""
    if any(v < -1 for v in raw):
        raise OpValidationError(f"split lengths {raw} hold a value below -1")
    if raw.count(-1) > 1:
        raise OpValidationError(f"split lengths {raw} hold more than one -1")
    total = sum(v for v in raw if v != -1)
    out = list(raw)
    if is_static(dim):
        if -1 in raw:
            out[raw.index(-1)] = dim[0] - total
            total = dim[0]
        if total != dim[0]:
            raise OpValidationError(f"split lengths {raw} do not add up to the axis length {dim[0]}")
    return out


def _variadic_split(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    data, axis_t, lengths_t = inputs
    integral(axis_t, "axis")
    integral(lengths_t, "split_lengths")
    if axis_t.shape is not None and not (len(axis_t.shape) == 0 or
                                         (len(axis_t.shape) == 1 and contains(iv(axis_t.shape[0]), 1))):
        raise OpValidationError("axis must be a scalar or of shape [1]")
    if lengths_t.shape is None or not all(d.is_static for d in lengths_t.shape):
        return None  # OpenVINO does not know how many outputs there are
    if len(lengths_t.shape) != 1:
        raise OpValidationError(f"split_lengths must be 1-D, got rank {len(lengths_t.shape)}")
    count = lengths_t.shape[0].lo
    shape = data.shape
    if shape is None or values[1] is None:
        return [TensorType(data.element, None if shape is None else dynamic(len(shape)))] * count
    not_scalar(shape, "VariadicSplit")
    axis = normalize_axis(scalar_axis(values[1]), len(shape))
    if values[2] is None:
        return [TensorType(data.element, shape[:axis] + (DYNAMIC,) + shape[axis + 1:])] * count
    lengths = _lengths(ints(values[2]), iv(shape[axis]))
    return [TensorType(data.element, shape[:axis] + (DYNAMIC if n == -1 else Dim(n, n),) + shape[axis + 1:])
            for n in lengths]


def _run_variadic_split(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, axis, lengths = args
    axis = normalize_axis(scalar_axis(axis), x.ndim)
    sizes = _lengths(ints(lengths), (x.shape[axis], x.shape[axis]))
    return list(np.split(x, np.cumsum(sizes)[:-1], axis=axis)) if sizes else []


# --- Gather -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GatherAttrs:
    batch_dims: int = A.attr("batch_dims", A.INT, 0)


def _gather(a, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, indices, axis_t = inputs
    integral(indices, "indices")
    integral(axis_t, "axis")
    if axis_t.shape is not None and all(d.is_static for d in axis_t.shape):
        if not (len(axis_t.shape) == 0 or (len(axis_t.shape) == 1 and axis_t.shape[0].lo == 1)):
            raise OpValidationError(f"axis must be a scalar or have 1 element, got shape "
                                    f"{[d.lo for d in axis_t.shape]}")
    batch = getattr(a, "batch_dims", 0)
    if batch < 0 and indices.shape is not None:
        batch += len(indices.shape)
    axis = None
    if values[2] is not None:
        not_scalar(data.shape, "Gather")
        axis = ints(values[2])[0]
        if data.shape is not None:
            axis = normalize_axis(axis, len(data.shape))
        if not (batch <= axis or batch < 0 or axis < 0):
            raise OpValidationError(f"batch_dims {batch} must be <= axis {axis}")
    if indices.shape is not None and batch >= 0 and batch > len(indices.shape):
        raise OpValidationError(f"batch_dims {batch} must be <= the indices rank {len(indices.shape)}")
    if data.shape is None or indices.shape is None:
        return [TensorType(data.element, None)]
    out_rank = len(data.shape) + len(indices.shape) - 1 - batch
    if out_rank < 0:
        raise OpValidationError(f"data of rank {len(data.shape)} and indices of rank {len(indices.shape)} with "
                                f"batch_dims {batch} make a negative output rank")
    if batch > min(len(data.shape), out_rank):
        raise OpValidationError(f"batch_dims {batch} exceeds the data rank {len(data.shape)} or the output rank "
                                f"{out_rank}")
    out: list[Dim] = [DYNAMIC] * out_rank
    for i in range(batch):
        m = meet(iv(data.shape[i]), iv(indices.shape[i]))
        if is_empty(m):
            raise OpValidationError("data and indices dims differ within batch_dims")
        out[i] = to_dim(m)
    if axis is not None:
        out[batch:] = list(data.shape[batch:axis]) + list(indices.shape[batch:]) + list(data.shape[axis + 1:])
    return [TensorType(data.element, tuple(out))]


def _run_gather(negative: bool):
    def run(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, idx, axis_v = args
        if idx.dtype.kind not in "iu":
            raise OpValidationError(f"indices must be integers, got {idx.dtype}")
        axis = normalize_axis(scalar_axis(axis_v), x.ndim)
        batch = getattr(a, "batch_dims", 0)
        if batch < 0:
            batch += idx.ndim
        if not 0 <= batch <= min(axis, idx.ndim) or x.shape[:batch] != idx.shape[:batch]:
            raise OpValidationError(f"batch_dims {batch} does not fit data {list(x.shape)}, indices "
                                    f"{list(idx.shape)} and axis {axis}")
        n = x.shape[axis]
        flat = idx.astype(np.int64)
        if not negative and np.any((flat < 0) & (flat >= -n)):
            raise OpValidationError("negative indices need Gather-8 (OpenVINO CPU reads them as out of range, its "
                                    "evaluator counts them from the end)")
        outside = (flat < -n) | (flat >= n)  # OpenVINO's evaluator gives zeros there
        flat = np.where(outside, 0, np.where(flat < 0, flat + n, flat))
        out_shape = x.shape[:axis] + idx.shape[batch:] + x.shape[axis + 1:]
        out = np.zeros(out_shape, x.dtype)
        if n == 0:
            return [out]
        for b in np.ndindex(*x.shape[:batch]):
            taken = np.take(x[b], flat[b], axis=axis - batch)
            mask = outside[b].reshape((1,) * (axis - batch) + outside[b].shape + (1,) * (x.ndim - axis - 1))
            out[b] = np.where(mask, np.zeros((), x.dtype), taken)
        return [out]

    return run


# --- GatherND ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GatherNDAttrs:
    batch_dims: int = A.attr("batch_dims", A.UINT, 0)


def _gather_nd(fused: bool):
    """gather_nd_shape_inference.hpp; ``fused``: GatherND-5, whose batch dims become their product."""

    def infer(a: GatherNDAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
        data, indices = inputs
        integral(indices, "indices")
        batch = a.batch_dims
        for t, what in ((data, "data"), (indices, "indices")):
            if t.shape is not None and len(t.shape) <= batch:
                raise OpValidationError(f"{what} of rank {len(t.shape)} with batch_dims {batch}: the rank must be "
                                        f"at least 1 and above batch_dims")
        if data.shape is None or indices.shape is None or not indices.shape[-1].is_static:
            return [TensorType(data.element, None)]
        k = indices.shape[-1].lo
        if k + batch > len(data.shape):
            raise OpValidationError(f"index tuples of length {k} with batch_dims {batch} exceed the data rank "
                                    f"{len(data.shape)}")
        merged = [meet(iv(d), iv(i)) for d, i in zip(data.shape[:batch], indices.shape[:batch], strict=True)]
        if any(is_empty(m) for m in merged):
            raise OpValidationError("data and indices dims differ within batch_dims")
        if fused and batch > 1:
            total = ONE
            for m in merged:
                total = dmul(total, m)
            merged = [total]
        return [TensorType(data.element, dims(merged) + indices.shape[batch:-1] + data.shape[batch + k:])]

    return infer


def _run_gather_nd(fused: bool):
    def run(a: GatherNDAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, idx = args
        if idx.dtype.kind not in "iu":
            raise OpValidationError(f"indices must be integers, got {idx.dtype}")
        batch = a.batch_dims
        if min(x.ndim, idx.ndim) <= batch or idx.shape[-1] + batch > x.ndim or x.shape[:batch] != idx.shape[:batch]:
            raise OpValidationError(f"batch_dims {batch} does not fit data {list(x.shape)} and indices "
                                    f"{list(idx.shape)}")
        k = idx.shape[-1]
        if k == 0:
            raise OpValidationError("index tuples of length 0 (OpenVINO CPU leaves the output unwritten)")
        lengths = np.array(x.shape[batch:batch + k], np.int64)
        flat = idx.astype(np.int64)
        if np.any((flat < -lengths) | (flat >= lengths)):
            raise OpValidationError(f"an index is out of range for dims {lengths.tolist()} (OpenVINO CPU reads "
                                    "whatever lies at its offset)")
        flat = np.where(flat < 0, flat + lengths, flat)
        n, m = math.prod(x.shape[:batch]), math.prod(idx.shape[batch:-1])
        rows = flat.reshape(n, m, k)
        taken = x.reshape((n,) + x.shape[batch:])[(np.arange(n)[:, None],) + tuple(rows[..., j] for j in range(k))]
        lead = (n,) if fused and batch > 1 else x.shape[:batch]
        return [taken.reshape(lead + idx.shape[batch:-1] + x.shape[batch + k:])]

    return run


# --- ScatterNDUpdate --------------------------------------------------------------------------------

SCATTER_REDUCTIONS = ("none", "sum", "sub", "prod", "min", "max")


@dataclass(frozen=True, slots=True)
class ScatterNDUpdate15Attrs:
    reduction: str = A.attr("reduction", A.enum(*SCATTER_REDUCTIONS), "none")


def _scatter_nd(a, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """scatter_nd_base_shape_inference.hpp and ScatterNDBase::validate_and_infer_types: the output is data's
    partial shape as it is; updates are only checked (for rank and compatibility) where the ranks and k are known."""
    data, indices, updates = inputs
    if indices.element is not None and indices.element not in ("i32", "i64"):
        raise OpValidationError(f"indices must be i32 or i64, got {indices.element}")
    if data.element is not None and updates.element is not None and data.element != updates.element:
        raise OpValidationError(f"updates of element type {updates.element} differ from data of {data.element}")
    element = data.element if data.element is not None else updates.element
    for t, what in ((data, "data"), (indices, "indices")):
        if t.shape is not None and len(t.shape) == 0:
            raise OpValidationError(f"{what} must have rank 1 or more, got a scalar")
    if data.shape is None or indices.shape is None or not indices.shape[-1].is_static:
        return [TensorType(element, data.shape)]
    k = indices.shape[-1].lo
    if k > len(data.shape):
        raise OpValidationError(f"index tuples of length {k} exceed the data rank {len(data.shape)}")
    if updates.shape is not None:
        want = indices.shape[:-1] + data.shape[k:]  # rank 0: any updates pass (the CPU wants a scalar)
        if want and len(updates.shape) != len(want):
            raise OpValidationError(f"updates have rank {len(updates.shape)}, expected {len(want)}: the rank of "
                                    f"indices.shape[:-1] + data.shape[{k}:]")
        for i, (w, u) in enumerate(zip(want, updates.shape, strict=False)):
            if not compatible(iv(w), iv(u)):
                raise OpValidationError(f"updates dim {i} is {u}, expected {w} (indices.shape[:-1] + "
                                        f"data.shape[{k}:])")
    return [TensorType(element, data.shape)]


def _scatter_rows(x: np.ndarray, idx: np.ndarray, upd: np.ndarray) -> tuple[np.ndarray, int]:
    """The row of x.reshape(-1, slice) each index tuple updates (negative indices counted from the end), and the
    slice size; OpValidationError where OpenVINO CPU refuses the node or its indices."""
    if idx.dtype not in (np.int32, np.int64):
        raise OpValidationError(f"indices must be i32 or i64, got {idx.dtype}")
    if upd.dtype != x.dtype:
        raise OpValidationError(f"updates of element type {upd.dtype} differ from data of {x.dtype}")
    if x.ndim == 0 or idx.ndim == 0 or idx.shape[-1] > x.ndim:
        raise OpValidationError(f"indices {list(idx.shape)} do not fit data {list(x.shape)}")
    k = idx.shape[-1]
    want = idx.shape[:-1] + x.shape[k:]
    if upd.shape != want:
        raise OpValidationError(f"updates have shape {list(upd.shape)}, expected indices.shape[:-1] + "
                                f"data.shape[{k}:] = {list(want)}")
    n, size = math.prod(idx.shape[:-1]), math.prod(x.shape[k:])
    if n == 0:
        return np.zeros(0, np.int64), size
    if k == 0:
        raise OpValidationError("index tuples of length 0 (OpenVINO CPU leaves the data as it is, its evaluator "
                                "applies every update to the whole tensor)")
    lengths = np.array(x.shape[:k], np.int64)
    flat = idx.reshape(n, k).astype(np.int64)
    if np.any((flat < -lengths) | (flat >= lengths)):
        raise OpValidationError(f"an index is out of range for dims {lengths.tolist()} (OpenVINO CPU refuses it)")
    flat = np.where(flat < 0, flat + lengths, flat)
    return np.ravel_multi_index(tuple(flat.T), x.shape[:k]).astype(np.int64), size


def _run_scatter_nd(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Updates applied one after another in index order (none: the last write wins, where OpenVINO CPU writes
    duplicates in parallel). Floats are reduced in float64 and rounded once; NaN in data stays, NaN in updates
    is skipped by min and max (the CPU's ``u < acc ? u : acc``). Integers wrap; booleans are reduced as u8 (wrapping)
    and read back as nonzero, as the CPU computes them."""
    x, idx, upd = args
    reduction = getattr(a, "reduction", "none")
    rows, size = _scatter_rows(x, idx, upd)
    out = x.copy()
    if rows.size == 0 or size == 0:
        return [out]
    flat, new = out.reshape(-1, size), upd.reshape(-1, size)
    if reduction == "none":
        _, first = np.unique(rows[::-1], return_index=True)  # each row's last update
        keep = rows.size - 1 - first
        flat[rows[keep]] = new[keep]
        return [out]
    kind = x.dtype.kind
    wide = np.float64 if kind == "f" else np.uint8 if kind == "b" else x.dtype
    acc, terms = flat.astype(wide), new.astype(wide)
    if kind == "f" and reduction in ("min", "max"):
        (np.fmin if reduction == "min" else np.fmax).at(acc, rows, terms)
        acc[np.isnan(flat)] = np.nan
    else:
        ufunc = {"sum": np.add, "sub": np.subtract, "prod": np.multiply, "min": np.minimum, "max": np.maximum}
        with np.errstate(over="ignore", invalid="ignore"):
            ufunc[reduction].at(acc, rows, terms)
    with np.errstate(over="ignore"):
        flat[...] = acc != 0 if kind == "b" else acc.astype(x.dtype)
    return [out]


def _updates_per_element(a, args: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> np.ndarray:
    """How many updates each output element accumulates (a sum of that many + 1 terms, rounded that many times)."""
    x, idx, upd = args
    rows, size = _scatter_rows(x, idx, upd)
    if size == 0:
        return np.zeros(x.shape, np.int64)
    counts = np.zeros(math.prod(x.shape) // size, np.int64)
    np.add.at(counts, rows, 1)
    return np.broadcast_to(counts[:, None], (counts.size, size)).reshape(x.shape)


def _scatter_sum_magnitude(a, args: Sequence[np.ndarray], exponent: int) -> list[np.ndarray]:
    """Sum |terms|^e per element (for sub too: the terms are subtracted, their magnitudes add)."""
    x, idx, upd = args
    return _run_scatter_nd(_SCATTER_SUM, [np.abs(np.asarray(x, np.float64)) ** exponent, idx,
                                          np.abs(np.asarray(upd, np.float64)) ** exponent])


_SCATTER_SUM = ScatterNDUpdate15Attrs("sum")
_SCATTER_MAX = ScatterNDUpdate15Attrs("max")
_SCATTER_MOVES = moves(0, 2)
_SCATTER_SUMS = accumulation(_updates_per_element, (0, 2), _scatter_sum_magnitude)
_SCATTER_PRODUCTS = accumulation(_updates_per_element, (0, 2))


def _scatter_nd_rounding(kernel, a, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                         outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Integers and booleans: exact. none: elements move, their bounds with them. min and max pick one of an
    element's candidates: the largest of their bounds. sum and sub: gamma(n) sum|terms| (n the element's updates)
    + output rounding, input bounds added; prod: gamma(n) prod|terms| likewise (``accumulation``, worst case both
    for one layer and end to end: the terms are data, not products of two inputs)."""
    if np.asarray(outputs[0]).dtype.kind != "f":
        return [EXACT]
    reduction = getattr(a, "reduction", "none")
    if reduction == "none":
        return _SCATTER_MOVES(kernel, a, args, bounds, outputs)
    if reduction in ("min", "max"):
        return _SCATTER_MOVES(kernel, _SCATTER_MAX, args, bounds, outputs)
    return (_SCATTER_PRODUCTS if reduction == "prod" else _SCATTER_SUMS)(kernel, a, args, bounds, outputs)


# --- ShapeOf ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShapeOf3Attrs:
    output_type: str = A.attr("output_type", ELEMENT)


def _shape_of(a, inputs: Sequence[TensorType], values) -> list[TensorType]:
    et = getattr(a, "output_type", "i64")
    if et not in ("i32", "i64"):
        raise OpValidationError(f"output_type must be i32 or i64, got {et}")
    shape = inputs[0].shape
    return [TensorType(et, (DYNAMIC,) if shape is None else (Dim(len(shape), len(shape)),))]


def _run_shape_of(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    et = getattr(a, "output_type", "i64")
    if et not in ("i32", "i64"):
        raise OpValidationError(f"output_type must be i32 or i64, got {et}")
    return [np.array(args[0].shape, np.int32 if et == "i32" else np.int64)]


# --- Broadcast --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Broadcast1Attrs:
    mode: str = A.attr("mode", A.enum("numpy", "explicit", "none", "pdpd"), "explicit")


@dataclass(frozen=True, slots=True)
class Broadcast3Attrs:
    mode: str = A.attr("mode", A.enum("numpy", "explicit", "none", "bidirectional", "pdpd"), "numpy")


def _mode(a) -> str:
    return "explicit" if a.mode == "none" else a.mode


def _target_dims(value: np.ndarray) -> list[Iv]:
    """A target shape's values as dims: -1 is dynamic, another negative value 0."""
    return [ANY if v == -1 else canon(v, v) for v in ints(value)]


def _broadcast(v3: bool):
    def infer(a, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
        mode = _mode(a)
        if v3 and mode == "explicit" and len(inputs) != 3:
            raise OpValidationError("explicit mode needs the axes_mapping input")
        if v3 and mode != "explicit" and len(inputs) != 2:
            raise OpValidationError(f"{mode} mode takes no axes_mapping input")
        if not v3 and mode == "explicit" and len(inputs) != 3:
            mode = "numpy"  # Broadcast-1 without axes_mapping is numpy, whatever its mode says
        data, target_t = inputs[0], inputs[1]
        integral(target_t, "the target shape")
        if target_t.shape is not None and len(target_t.shape) != 1:
            raise OpValidationError(f"the target shape must be 1-D, got rank {len(target_t.shape)}")
        if mode == "pdpd":
            return None
        target = None if values[1] is None else _target_dims(values[1])
        n = None if target_t.shape is None or not target_t.shape[0].is_static else target_t.shape[0].lo
        shape = data.shape
        if mode == "explicit":
            axes_t = inputs[2]
            integral(axes_t, "axes_mapping")
            if axes_t.shape is not None and len(axes_t.shape) != 1:
                raise OpValidationError(f"axes_mapping must be 1-D, got rank {len(axes_t.shape)}")
            out = dims(target) if target is not None else dynamic(n)
            if shape is not None and target_t.shape is not None and static_size(axes_t) is not None:
                count = axes_t.shape[0].lo
                rank = 1 if len(shape) == 0 and count > 0 else len(shape)
                if count != rank:
                    raise OpValidationError(f"axes_mapping has {count} values, the input has rank {rank}")
                if target is not None and values[2] is not None:
                    _explicit_axes(shape, ints(values[2]), target)
            return [TensorType(data.element, out)]
        if mode == "numpy":
            if target is None:
                return [TensorType(data.element, dynamic(n))]
            if shape is not None:
                if len(target) < len(shape):
                    raise OpValidationError(f"the target shape has rank {len(target)}, less than the input's "
                                            f"{len(shape)}")
                for d, t in zip(shape, target[len(target) - len(shape):], strict=True):
                    di = iv(d)
                    if not (not d.is_static or not is_static(t) or compatible(di, ONE) or compatible(di, t)):
                        raise OpValidationError(f"input dim {d} cannot be broadcast to {to_dim(t)}")
            return [TensorType(data.element, dims(target))]
        # bidirectional
        if target is None:
            if shape is None or n is None:
                return [TensorType(data.element, None)]
            merged = _broadcast_merge([ANY] * n, [iv(d) for d in shape])
            return [TensorType(data.element, dims(merged))]
        if shape is None:
            return [TensorType(data.element, None)]
        return [TensorType(data.element, dims(_broadcast_merge(target, [iv(d) for d in shape])))]

    return infer


def _broadcast_merge(a: list[Iv], b: list[Iv]) -> list[Iv]:
    rank = max(len(a), len(b))
    a = [ONE] * (rank - len(a)) + a
    b = [ONE] * (rank - len(b)) + b
    out = []
    for x, y in zip(a, b, strict=True):
        m = broadcast_merge(x, y)
        if m is None:
            raise OpValidationError(f"dims {to_dim(x)} and {to_dim(y)} cannot be broadcast together")
        out.append(m)
    return out


def _explicit_axes(shape: tuple[Dim, ...], axes: list[int], target: list[Iv]) -> None:
    if axes != sorted(axes):
        raise OpValidationError(f"axes_mapping {axes} is not sorted")
    if any(v < 0 or v >= len(target) for v in axes):
        raise OpValidationError(f"axes_mapping {axes} reaches beyond the target rank {len(target)}")
    if len(shape) == 0 and axes and not compatible(target[axes[0]], ONE):
        raise OpValidationError(f"a scalar maps to target dim {to_dim(target[axes[0]])}, expected 1")
    if len(shape) > 0:
        for d, axis in zip(shape, axes, strict=False):
            if not (compatible(target[axis], iv(d)) or compatible(iv(d), ONE)):
                raise OpValidationError(f"input dim {d} maps to target dim {to_dim(target[axis])}")


def _run_broadcast(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, target = args[0], ints(args[1])
    mode = _mode(a)
    if mode == "explicit" and len(args) < 3:
        mode = "numpy"  # Broadcast-1 without axes_mapping (Broadcast-3's rule refuses that)
    if mode == "pdpd":
        raise UnsupportedError("Broadcast mode pdpd is not supported by the reference")
    if any(v < 0 for v in target):
        raise OpValidationError(f"target shape {target} has a negative value")
    if mode == "numpy":
        if len(target) < x.ndim or any(n not in (1, t) for n, t in zip(x.shape, target[len(target) - x.ndim:],
                                                                        strict=True)):
            raise OpValidationError(f"shape {list(x.shape)} cannot be broadcast to {target}")
        return [np.broadcast_to(x, target).copy()]
    if mode == "bidirectional":
        try:
            shape = np.broadcast_shapes(x.shape, tuple(target))
        except ValueError:
            raise OpValidationError(f"shapes {list(x.shape)} and {target} do not broadcast") from None
        return [np.broadcast_to(x, shape).copy()]
    axes = ints(args[2])
    if len(axes) != x.ndim and not (x.ndim == 0 and len(axes) == 1):
        raise OpValidationError(f"axes_mapping {axes} does not map the {x.ndim} input axes")
    _explicit_axes(static_dims(x.shape), axes, [(t, t) for t in target])
    lifted = [1] * len(target)
    for n, axis in zip(x.shape, axes, strict=False):
        if n not in (1, target[axis]):
            raise OpValidationError(f"input dim {n} maps to target dim {target[axis]}")
        lifted[axis] = n
    return [np.broadcast_to(x.reshape(lifted), target).copy()]


# --- Tile -------------------------------------------------------------------------------------------


def _tile(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, repeats_t = inputs
    integral(repeats_t, "repeats")
    if repeats_t.shape is not None and len(repeats_t.shape) != 1:
        raise OpValidationError(f"repeats must be 1-D, got rank {len(repeats_t.shape)}")
    shape = data.shape
    if shape is not None and values[1] is not None:
        reps = [(max(v, 0), max(v, 0)) for v in ints(values[1])]
        rank = max(len(shape), len(reps))
        reps = [ONE] * (rank - len(reps)) + reps
        lead = rank - len(shape)
        return [TensorType(data.element, dims(reps[:lead] + [dmul(iv(d), r) for d, r in zip(shape, reps[lead:],
                                                                                               strict=True)]))]
    if shape is not None and repeats_t.shape is not None and repeats_t.shape[0].is_static:
        return [TensorType(data.element, dynamic(max(len(shape), repeats_t.shape[0].lo)))]
    return [TensorType(data.element, None)]


def _run_tile(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, repeats = args
    reps = [max(v, 0) for v in ints(repeats)]
    if len(reps) < x.ndim:
        reps = [1] * (x.ndim - len(reps)) + reps
    return [np.tile(x, reps)]


#: What Range takes: OpenVINO's integral numbers (nf4 among them) and real types.
_RANGE_TYPES = INTEGER_TYPES | REAL_TYPES | {"nf4"}


# --- Range ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Range4Attrs:
    output_type: str | None = A.attr("output_type", ELEMENT, None)


def _range_checks(values: Sequence[float | None]) -> None:
    """OpenVINO checks each known value: finite, and a step not zero (Range-4 too, whatever its spec says)."""
    for name, v in zip(("start", "stop", "step"), values, strict=True):
        if v is not None and not math.isfinite(v):
            raise OpValidationError(f"{name} {v} is not finite")
    if values[2] == 0:
        raise OpValidationError("step must not be zero")


def _range_count(start: float, stop: float, step: float, integral_out: bool) -> int | None:
    """OpenVINO's element count, max(ceil((stop - start) / step), 0) after truncating the inputs of an integer
    output; a step truncated to zero gives 0 elements (measured); None for a count beyond uint32."""
    if integral_out:
        start, stop, step = math.trunc(start), math.trunc(stop), math.trunc(step)
    if step == 0:
        return 0
    span = 0 if (step > 0 and start >= stop) or (step < 0 and start <= stop) else stop - start
    count = math.ceil(abs(span) / abs(step))
    return count if count < 2**32 else None


def _range_scalar(value: np.ndarray) -> float:
    flat = np.asarray(value).reshape(-1)
    if flat.size != 1:
        raise OpValidationError(f"expected a single value, got {flat.size}")
    return float(flat[0])


def _range(v4: bool):
    def infer(a, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
        for name, t in zip(("start", "stop", "step"), inputs, strict=True):
            if t.shape is not None and len(t.shape) != 0:
                raise OpValidationError(f"{name} must be a scalar, got rank {len(t.shape)}")
            if t.element is not None and t.element not in _RANGE_TYPES:
                raise OpValidationError(f"{name} must be numeric, got {t.element}")
        if v4:
            et = a.output_type
            if et is not None and et not in _RANGE_TYPES:
                raise OpValidationError(f"output_type must be numeric, got {et}")
        else:
            et = same_elements(inputs)
            if et in ("boolean", "u1", "i4", "u4"):
                raise OpValidationError(f"start, stop and step of element type {et} are not supported")
            if et is None:
                return [TensorType(None, (DYNAMIC,))]
        known = [None if v is None else _range_scalar(v) for v in values]
        _range_checks(known)
        if any(v is None for v in known):
            return [TensorType(et, (DYNAMIC,))]
        integral_out = (et in INTEGER_TYPES) if v4 else (inputs[0].element in INTEGER_TYPES)
        count = _range_count(*known, integral_out)
        if count is None:
            return None
        return [TensorType(et, (Dim(count, count),))]

    return infer


def _run_range(v4: bool):
    def run(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        if v4:
            if a.output_type is None:
                raise UnsupportedError("Range-4 without output_type has a dynamic output type")
            dtype = np.dtype(_numpy_type(a.output_type))
        else:
            if len({x.dtype for x in args}) > 1:
                raise OpValidationError("start, stop and step of different element types")
            dtype = args[0].dtype
        start, stop, step = (_range_scalar(x) for x in args)
        _range_checks([start, stop, step])
        count = _range_count(start, stop, step, dtype.kind in "iu")
        if count is None:
            raise UnsupportedError(f"Range from {start} to {stop} by {step}: more than 2**32 elements")
        if dtype.kind in "iu":
            with np.errstate(over="ignore"):
                first = np.array(math.trunc(start) if v4 else int(args[0].reshape(())), np.int64)
                delta = np.array(math.trunc(step) if v4 else int(args[2].reshape(())), np.int64)
                return [(first + np.arange(count, dtype=np.int64) * delta).astype(dtype)]
        first = np.asarray(start, dtype) if v4 else args[0].reshape(()).astype(dtype)
        delta = np.asarray(step, dtype) if v4 else args[2].reshape(()).astype(dtype)
        with np.errstate(over="ignore"):
            return [(first + np.arange(count).astype(dtype) * delta).astype(dtype)]

    return run


def _numpy_type(name: str) -> type:
    table = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
             "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}
    if name not in table:
        raise UnsupportedError(f"Range output type {name} is not supported by the reference")
    return table[name]


# --- specs ------------------------------------------------------------------------------------------


MANY = 1 << 30  # Concat: any number of inputs

RESHAPE_1 = OpSpec("Reshape", "Reshape-1", ReshapeAttrs, (2, 2), 1, guarded(_reshape), _run_reshape, (1,),
                   rounding=moves(0))
SQUEEZE_1 = OpSpec("Squeeze", "Squeeze-1", NoAttrs, (1, 2), 1, guarded(_squeeze(False)), _run_squeeze, (1,),
                   rounding=moves(0))
SQUEEZE_15 = OpSpec("Squeeze", "Squeeze-15", Squeeze15Attrs, (1, 2), 1, guarded(_squeeze(True)), _run_squeeze, (1,),
                    rounding=moves(0))
UNSQUEEZE_1 = OpSpec("Unsqueeze", "Unsqueeze-1", NoAttrs, (2, 2), 1, guarded(_unsqueeze), _run_unsqueeze, (1,),
                     rounding=moves(0))
TRANSPOSE_1 = OpSpec("Transpose", "Transpose-1", NoAttrs, (2, 2), 1, guarded(_transpose), _run_transpose, (1,),
                     rounding=moves(0))
CONCAT_1 = OpSpec("Concat", "Concat-1", ConcatAttrs, (1, MANY), 1, guarded(_concat), _run_concat, rounding=moves())
#: n_outputs -1: as many outputs as the shape rule gives (num_splits, or the length of split_lengths)
SPLIT_1 = OpSpec("Split", "Split-1", SplitAttrs, (2, 2), -1, guarded(_split), _run_split, (1,), rounding=moves(0))
VARIADIC_SPLIT_1 = OpSpec("VariadicSplit", "VariadicSplit-1", NoAttrs, (3, 3), -1, guarded(_variadic_split),
                          _run_variadic_split, (1, 2), rounding=moves(0))
GATHER_1 = OpSpec("Gather", "Gather-1", NoAttrs, (3, 3), 1, guarded(_gather), _run_gather(False), (2,),
                  rounding=moves(0))
GATHER_7 = OpSpec("Gather", "Gather-7", GatherAttrs, (3, 3), 1, guarded(_gather), _run_gather(False), (2,),
                  rounding=moves(0))
GATHER_8 = OpSpec("Gather", "Gather-8", GatherAttrs, (3, 3), 1, guarded(_gather), _run_gather(True), (2,),
                  rounding=moves(0))
GATHER_ND_5 = OpSpec("GatherND", "GatherND-5", GatherNDAttrs, (2, 2), 1, guarded(_gather_nd(True)),
                     _run_gather_nd(True), rounding=moves(0))
GATHER_ND_8 = OpSpec("GatherND", "GatherND-8", GatherNDAttrs, (2, 2), 1, guarded(_gather_nd(False)),
                     _run_gather_nd(False), rounding=moves(0))
SCATTER_ND_UPDATE_3 = OpSpec("ScatterNDUpdate", "ScatterNDUpdate-3", NoAttrs, (3, 3), 1, guarded(_scatter_nd),
                             _run_scatter_nd, rounding=_scatter_nd_rounding)
SCATTER_ND_UPDATE_15 = OpSpec("ScatterNDUpdate", "ScatterNDUpdate-15", ScatterNDUpdate15Attrs, (3, 3), 1,
                              guarded(_scatter_nd), _run_scatter_nd, rounding=_scatter_nd_rounding)
SHAPE_OF_1 = OpSpec("ShapeOf", "ShapeOf-1", NoAttrs, (1, 1), 1, _shape_of, _run_shape_of, rounding=exact)
SHAPE_OF_3 = OpSpec("ShapeOf", "ShapeOf-3", ShapeOf3Attrs, (1, 1), 1, _shape_of, _run_shape_of, rounding=exact)
BROADCAST_1 = OpSpec("Broadcast", "Broadcast-1", Broadcast1Attrs, (2, 3), 1, guarded(_broadcast(False)),
                     _run_broadcast, (1, 2), rounding=moves(0))
BROADCAST_3 = OpSpec("Broadcast", "Broadcast-3", Broadcast3Attrs, (2, 3), 1, guarded(_broadcast(True)),
                     _run_broadcast, (1, 2), rounding=moves(0))
TILE_1 = OpSpec("Tile", "Tile-1", NoAttrs, (2, 2), 1, guarded(_tile), _run_tile, (1,), rounding=moves(0))
RANGE_1 = OpSpec("Range", "Range-1", NoAttrs, (3, 3), 1, guarded(_range(False)), _run_range(False), (0, 1, 2),
                 rounding=exact)
RANGE_4 = OpSpec("Range", "Range-4", Range4Attrs, (3, 3), 1, guarded(_range(True)), _run_range(True), (0, 1, 2),
                 rounding=exact)
