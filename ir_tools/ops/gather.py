"""Gather, GatherND and GatherElements: attributes, shape rules and reference kernels.

Shape rules are OpenVINO's shape inference (src/core/shape_inference), interval bounds included
(ops/intervals.py), checked against the installed openvino by tests/ops/test_shaping_conformance.py; kernels are
checked there against OpenVINO CPU (GatherND's by tests/ops/test_gather_nd_conformance.py, GatherElements' by
tests/ops/test_gather_elements_conformance.py). Measured on OpenVINO 2026.4.1, beyond its specification:

- Gather accepts a negative axis. It gives zeros for an index out of [-n, n - 1] (OpenVINO's
  evaluator; CPU too, except on 1-D data, where it reads beyond the tensor); a negative index in
  range is counted from the end by Gather-8, and by the evaluator for Gather-1/7 too, but read as
  out of range by CPU there: the reference refuses negative indices before Gather-8.
- GatherND-5 and GatherND-8 take indices of any integer type (u8, i4, u1...; floats and boolean are
  refused, string and nf4 oddly are not). CPU counts a negative index in [-n, -1] from the end in
  both versions (GatherND has no evaluator) and reads whatever lies at the linear offset of an index
  out of [-n, n - 1], within the tensor or beyond it: the reference refuses those. A GatherND-5
  with batch_dims > 1 fuses the batch dims into their product (an interval product, saturating at
  the unbounded maximum); GatherND-8 keeps them. Index tuples of length 0 (indices [..., 0]) pass
  shape inference, but CPU leaves the output unwritten: the reference refuses them.
- GatherElements-6 (opset6..16) takes indices of i32 or i64 only (a dynamic type is refused too); a missing
  ``axis`` reads as 0. The output is data's element type and indices' partial shape, each dim but the axis's
  merged (intersected) with data's: equal static dims, intersecting intervals, else refused; data of a dynamic rank
  gives indices' shape, indices of a dynamic rank data's with the axis dim dynamic. CPU counts a negative index in
  [-n, -1] from the end and refuses one out of [-n, n - 1] when it runs; on an empty axis (n = 0) it does not
  refuse but gives whatever memory holds: the reference refuses all of those. Data of any element type (boolean,
  8- to 64-bit integers, f16, f32) moves bit for bit; CPU holds i64 and u64 data in 32 bits (2^40 + 5 comes out 5)
  and f64 in f32, the reference keeps them. Indices dims must equal data's but on the axis when it runs too (a
  dynamic shape fed otherwise is refused).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.errors import OpValidationError
from . import attrs as A
from .bounds import moved
from .core import NoAttrs
from .intervals import ONE, dims, dmul, guarded, is_empty, iv, meet, to_dim
from .operands import integral, ints, normalize_axis, not_scalar, outside_axis, scalar_axis
from .rounding import EXACT, is_exact, may_differ, moves
from .spec import I32_I64, OpSpec, TensorType, all_but, all_of, never, on

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


# --- GatherElements ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GatherElementsAttrs:
    axis: int = A.attr("axis", A.INT, 0)


def _gather_elements(a: GatherElementsAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """gather_elements_shape_inference.hpp: indices' shape, each dim but the axis's merged with data's."""
    data, indices = inputs
    if indices.element not in ("i32", "i64"):
        raise OpValidationError(f"indices must be i32 or i64, got {indices.element or 'a dynamic type'}")
    axis = a.axis if data.shape is None else normalize_axis(a.axis, len(data.shape))
    for t in (data, indices):
        not_scalar(t.shape, "GatherElements")
    if data.shape is None:
        return [TensorType(data.element, indices.shape)]
    if indices.shape is None:
        return [TensorType(data.element, data.shape[:axis] + (DYNAMIC,) + data.shape[axis + 1:])]
    if len(data.shape) != len(indices.shape):
        raise OpValidationError(f"data of rank {len(data.shape)} and indices of rank {len(indices.shape)}: the ranks "
                                "must be equal")
    merged = [iv(i) if k == axis else meet(iv(d), iv(i))
              for k, (d, i) in enumerate(zip(data.shape, indices.shape, strict=True))]
    if any(is_empty(m) for m in merged):
        raise OpValidationError(f"data and indices dims differ off the axis {axis}")
    return [TensorType(data.element, dims(merged))]


def _run_gather_elements(a: GatherElementsAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each output element is data's at its index along the axis (negative ones counted from the end); an index out
    of [-n, n - 1] is refused, as OpenVINO CPU refuses it (or, on an empty axis, gives whatever memory holds)."""
    x, idx = args
    if idx.dtype not in (np.int32, np.int64):
        raise OpValidationError(f"indices must be i32 or i64, got {idx.dtype}")
    if x.ndim == 0 or idx.ndim != x.ndim:
        raise OpValidationError(f"data {list(x.shape)} and indices {list(idx.shape)} must have one rank, 1 or more")
    axis = normalize_axis(a.axis, x.ndim)
    if x.shape[:axis] + x.shape[axis + 1:] != idx.shape[:axis] + idx.shape[axis + 1:]:
        raise OpValidationError(f"data {list(x.shape)} and indices {list(idx.shape)} differ off the axis {axis}")
    n = x.shape[axis]
    flat = idx.astype(np.int64)
    if np.any((flat < -n) | (flat >= n)):
        raise OpValidationError(f"an index is out of [{-n}, {n - 1}] (OpenVINO CPU refuses it)")
    return [np.take_along_axis(x, np.where(flat < 0, flat + n, flat), axis)]


# --- rounding rule ----------------------------------------------------------------------------------

_MOVES = moves(0)


def _gather_rounding(kernel, a, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                     outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Exact, data's errors moved with their elements (``moves``); where an index is inexact, the element it picks may
    be any other (or zeros, or whatever CPU reads beyond the data, out of range): the output elements that index
    gives have no bound (inf)."""
    (found,) = _MOVES(kernel, a, args, [bounds[0], EXACT, *bounds[2:]], outputs)  # (the index: below)
    if len(bounds) < 2 or is_exact(bounds[1]):
        return [found]
    x, idx = np.asarray(args[0]), np.asarray(args[1])
    moving = may_differ(idx, bounds[1])
    if not moving.any():
        return [found]
    y = np.asarray(outputs[0])
    if isinstance(a, GatherElementsAttrs):  # (one index per output element)
        return [np.where(moving, np.inf, found)]
    if isinstance(a, GatherNDAttrs):
        batch, k = a.batch_dims, idx.shape[-1]
        lead = y.shape[:y.ndim - (idx.ndim - 1 - batch) - (x.ndim - batch - k)]
        per_tuple = moving.any(axis=-1).reshape(lead + idx.shape[batch:-1] + (1,) * (x.ndim - batch - k))
    else:
        axis = normalize_axis(scalar_axis(args[2]), x.ndim)
        batch = getattr(a, "batch_dims", 0)
        batch = batch + idx.ndim if batch < 0 else batch
        per_tuple = moving.reshape(idx.shape[:batch] + (1,) * (axis - batch) + idx.shape[batch:] +
                                   (1,) * (x.ndim - axis - 1))
    return [np.where(per_tuple, np.inf, np.broadcast_to(found, y.shape))]


def _empty_static_output(a, inputs: Sequence[TensorType], values) -> str | None:
    """Data and indices of static shapes giving an output of no element: OpenVINO CPU divides by 0 compiling such a
    Gather, and the process dies of SIGFPE (measured on 2026.4 for Gather-1, -7 and -8; of dynamic shapes, empty as it
    runs, it runs, and so does data empty only along the axis). Of Const data and indices it folds the layer away."""
    if values[0] is not None and values[1] is not None or \
            not all(t.shape is not None and all(d.is_static for d in t.shape) for t in inputs[:2]):
        return None
    out = guarded(_gather)(a, inputs, values)
    if out is None or out[0].shape is None or not any(d.hi == 0 for d in out[0].shape):
        return None
    dims = ",".join(str(d) for d in out[0].shape)
    return (f"its output [{dims}] holds no element, of inputs of static shapes: OpenVINO CPU divides by 0 compiling "
            "such a Gather, and the process dies (SIGFPE)")


# --- specs ------------------------------------------------------------------------------------------

#: Gather-1's and -7's bounds, measured on 2026.4.1: moved as Gather-8's, a negative index counted from the end (as
#: their evaluator counts it, which bound evaluation runs, though OpenVINO CPU reads it as out of range).
_EVALUATED_GATHER = moved(_run_gather(True))

#: What OpenVINO's Gather evaluates: its data of any type but f64, i16, u16, its indices of i32 and i64 alone.
_GATHER_EVALUATES = all_of(on(all_but("f64", "i16", "u16")), on(I32_I64, 1))
GATHER_1 = OpSpec("Gather", "Gather-1", NoAttrs, (3, 3), 1, guarded(_gather), _run_gather(False), (2,),
                  rounding=_gather_rounding, index_input=1, cpu_refuses=_empty_static_output,
                  bounds=_EVALUATED_GATHER, float_bounds=True, evaluates=_GATHER_EVALUATES)
GATHER_7 = OpSpec("Gather", "Gather-7", GatherAttrs, (3, 3), 1, guarded(_gather), _run_gather(False), (2,),
                  rounding=_gather_rounding, index_input=1, cpu_refuses=_empty_static_output,
                  bounds=_EVALUATED_GATHER, float_bounds=True, evaluates=_GATHER_EVALUATES)
GATHER_8 = OpSpec("Gather", "Gather-8", GatherAttrs, (3, 3), 1, guarded(_gather), _run_gather(True), (2,),
                  rounding=_gather_rounding, index_input=1, cpu_refuses=_empty_static_output,
                  bounds=moved(_run_gather(True)), float_bounds=True, evaluates=_GATHER_EVALUATES)
GATHER_ND_5 = OpSpec("GatherND", "GatherND-5", GatherNDAttrs, (2, 2), 1, guarded(_gather_nd(True)),
                     _run_gather_nd(True), rounding=_gather_rounding, index_input=1, evaluates=never)
GATHER_ND_8 = OpSpec("GatherND", "GatherND-8", GatherNDAttrs, (2, 2), 1, guarded(_gather_nd(False)),
                     _run_gather_nd(False), rounding=_gather_rounding, index_input=1, evaluates=never)


def _element_index_out_of_range(a: GatherElementsAttrs, inputs: Sequence[TensorType], values) -> str | None:
    """A Const index out of [-n, n - 1] of the axis: CPU refuses it when it runs (the module doc)."""
    bad = outside_axis(values[1], inputs[0].shape, a.axis, from_end=True)
    return None if bad is None else f"index {bad} is outside the axis: OpenVINO CPU refuses it when it runs"


GATHER_ELEMENTS_6 = OpSpec("GatherElements", "GatherElements-6", GatherElementsAttrs, (2, 2), 1,
                           guarded(_gather_elements), _run_gather_elements, rounding=_gather_rounding, index_input=1,
                           cpu_refuses=_element_index_out_of_range, evaluates=never)
