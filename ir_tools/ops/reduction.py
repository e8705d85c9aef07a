"""ReduceSum/Mean/Max/Min/Prod-1, ReduceL1/L2-4 and ReduceLogicalAnd/Or-1.

Shape rules are OpenVINO's (reduce_shape_inference.hpp); kernels follow OpenVINO CPU on
floats and the specification (OpenVINO's evaluator) on integers. Checked by
tests/ops/test_reduction_conformance.py. Measured on openvino 2026.4.1, beyond the specification:

- Reduce axes: each must lie in [-r, r-1] with r = max(rank, 1) or the op is rejected. A scalar input
  takes axis 0 or -1 with keep_dims false (the output is the scalar), and nothing with keep_dims
  true. Without constant axes the output is a dynamic shape of the input's rank with keep_dims, of
  rank - 1 when the axes input holds exactly one element (static shape [] or [1]), else of dynamic
  rank. Empty axes leave the input as it is. Axes may repeat.
- Arithmetic reductions refuse boolean data only (u1, nf4, string... pass); logical ones want
  boolean. Axes must be of an integer type (not real, not boolean).
- Floats are summed and multiplied in float64 and rounded once; an empty reduction gives 0 for
  ReduceMean (not NaN), the float32 extremes (-/+3.4e38) for ReduceMax/Min, 0 for ReduceSum/L1/L2
  and 1 for ReduceProd.
- ReduceMax/Min: the CPU starts from the float32 extreme (-3.4e38 for Max) and keeps
  ``acc = acc > x ? acc : x`` (``<`` for Min) element by element in the order of the reduced elements,
  so a reduction of -inf only gives -3.4e38, and NaN wins when it comes last but is dropped when a
  number follows it: the result is the extreme of the elements after the last NaN. That is what
  it does where it does not vectorise across the reduced elements (the innermost non-unit axis kept,
  or reduced over fewer elements than a vector holds); there its result depends on the lanes and
  the instruction set, and no rule reproduces it. This kernel always follows the sequential rule.
- Integers follow the specification: sums and products wrap around in the element type, ReduceMean
  divides the wrapped sum truncating toward zero, ReduceL2 truncates the square root. (The CPU
  plugin computes i32 through f32, saturates i8/u8 sums, wraps u8 products and computes i64 as i32.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.dtypes import F32_MAX, REAL_TYPES
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .bounds import INF, BoundRule, Bounds, NoBounds, evaluated, moved, ordered
from .operands import normalize_axis
from .rounding import (
    accumulation,
    exact,
    moves,
)
from .spec import FLOATS, Evaluates, Kernel, OpSpec, TensorType, all_but, always, on, on_arithmetic


@dataclass(frozen=True, slots=True)
class ReduceAttrs:
    keep_dims: bool = A.attr("keep_dims", A.BOOL, False)


# --- shape rules -----------------------------------------------------------------------------------


def _reduce(logical: bool):
    def infer(a: ReduceAttrs, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
        data, axes = inputs
        if logical and data.element not in (None, "boolean"):
            raise OpValidationError(f"data of element type {data.element}: it must be boolean")
        if not logical and data.element == "boolean":
            raise OpValidationError("data of element type boolean: it must be numeric")
        if axes.element in REAL_TYPES or axes.element == "boolean":
            raise OpValidationError(f"axes of element type {axes.element}: they must be integers")
        if axes.shape is not None and len(axes.shape) > 1:
            raise OpValidationError(f"axes have rank {len(axes.shape)}: they must be a scalar or 1-D")
        if data.shape is not None and values[1] is not None:
            rank = len(data.shape)
            picked = {normalize_axis(int(v), rank) for v in np.asarray(values[1]).reshape(-1)}
            if a.keep_dims:
                if rank == 0 and picked:
                    raise OpValidationError("keep_dims on a scalar input: there is no axis to keep")
                return [TensorType(data.element, tuple(Dim(1, 1) if i in picked else d
                                                       for i, d in enumerate(data.shape)))]
            return [TensorType(data.element, tuple(d for i, d in enumerate(data.shape) if i not in picked))]
        if data.shape is None:
            return [TensorType(data.element, None)]
        if a.keep_dims:
            return [TensorType(data.element, (DYNAMIC,) * len(data.shape))]
        if axes.shape is not None and all(d.is_static and d.lo == 1 for d in axes.shape):  # one axis
            return [TensorType(data.element, (DYNAMIC,) * max(len(data.shape) - 1, 0))]
        return [TensorType(data.element, None)]

    return infer


# --- kernels ---------------------------------------------------------------------------------------


def _axes(x: np.ndarray, axes: np.ndarray) -> tuple[int, ...]:
    if axes.ndim > 1:
        raise OpValidationError(f"axes have rank {axes.ndim}: they must be a scalar or 1-D")
    if axes.dtype.kind not in "iu":
        raise OpValidationError(f"axes of type {axes.dtype}: they must be integers")
    picked = sorted({normalize_axis(int(v), x.ndim) for v in axes.reshape(-1)})
    return tuple(picked) if x.ndim else ()


def _wrap(total: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """An exact int64/uint64 result brought into ``dtype`` the way C++ casts it (wrap-around)."""
    return np.asarray(total).astype(dtype)


def _wide(dtype: np.dtype) -> type:
    return np.uint64 if dtype.kind == "u" else np.int64


def _sequential_extreme(x: np.ndarray, axes: tuple[int, ...], op: str) -> np.ndarray:
    """ReduceMax/Min as the CPU computes it element by element (see the module doc): ``acc`` starts at the
    float32 extreme -/+3.4e38 and takes ``acc > x ? acc : x`` (``<`` for Min). So: NaN when the last
    element is NaN, else the extreme of the elements after the last NaN, else (no NaN) the extreme of
    all the elements and the start value (a reduction of -inf only gives -3.4e38)."""
    start = -F32_MAX if op == "max" else F32_MAX
    if not np.isnan(x).any():  # the common case: the extreme and the start value
        found = (np.max if op == "max" else np.min)(x, axis=axes).astype(np.float64)
        return np.maximum(found, start) if op == "max" else np.minimum(found, start)
    keep = [i for i in range(x.ndim) if i not in axes]
    n = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
    flat = np.transpose(x, keep + list(axes)).reshape([x.shape[i] for i in keep] + [n])
    nan = np.isnan(flat)
    after = np.cumsum(nan[..., ::-1], axis=-1)[..., ::-1] == 0  # no NaN at or after this position
    extreme, fill = (np.max, -np.inf) if op == "max" else (np.min, np.inf)
    best = extreme(np.where(after, flat, fill), axis=-1, initial=fill).astype(np.float64)
    clean = ~nan.any(axis=-1)
    best = np.where(clean, np.maximum(best, start) if op == "max" else np.minimum(best, start), best)
    if n:
        best = np.where(nan[..., -1], np.nan, best)
    return best


def _reduction(kind: str) -> Callable:
    def run(a: ReduceAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(args[0])
        axes = _axes(x, np.asarray(args[1]))
        if a.keep_dims and x.ndim == 0 and np.asarray(args[1]).size:
            raise OpValidationError("keep_dims on a scalar input: there is no axis to keep")
        out = _reduce_values(kind, x, axes)
        if a.keep_dims:
            out = np.expand_dims(out, axes)
        return [np.asarray(out)]

    return run


def _reduce_values(kind: str, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    dtype = x.dtype
    if kind in ("and", "or"):
        if dtype != np.bool_:
            raise OpValidationError(f"data of type {dtype}: it must be boolean")
        return (np.all if kind == "and" else np.any)(x, axis=axes)
    if dtype == np.bool_:
        raise OpValidationError("data of type bool: it must be numeric")
    count = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
    if dtype.kind == "f":
        with np.errstate(over="ignore"):  # -3.4e38 is -inf in f16, as on the CPU
            return _float_reduce(kind, x, axes, count).astype(dtype)
    if dtype.kind not in "iu":
        raise UnsupportedError(f"{kind} reduction of element type {dtype}")
    return _int_reduce(kind, x, axes, count)


def _float_reduce(kind: str, x: np.ndarray, axes: tuple[int, ...], count: int) -> np.ndarray:
    with np.errstate(all="ignore"):
        if kind in ("max", "min"):
            return _sequential_extreme(x, axes, kind) if count else \
                np.full([n for i, n in enumerate(x.shape) if i not in axes], -F32_MAX if kind == "max" else F32_MAX)
        w = x.astype(np.float64)
        if kind == "prod":
            return np.prod(w, axis=axes)
        if kind == "l1":
            w = np.abs(w)
        elif kind == "l2":
            w = w * w
        total = np.sum(w, axis=axes)
        if kind == "l2":
            return np.sqrt(total)
        if kind == "mean":
            return total / count if count else total
        return total


def _int_reduce(kind: str, x: np.ndarray, axes: tuple[int, ...], count: int) -> np.ndarray:
    dtype = x.dtype
    shape = [n for i, n in enumerate(x.shape) if i not in axes]
    if kind in ("max", "min"):
        if not count:
            info = np.iinfo(dtype)
            return np.full(shape, info.min if kind == "max" else info.max, dtype)
        return (np.max if kind == "max" else np.min)(x, axis=axes)
    wide = x.astype(_wide(dtype))
    with np.errstate(all="ignore"):
        if kind == "prod":
            return _wrap(np.prod(wide, axis=axes), dtype)
        if kind == "l1":
            wide = np.abs(wide)
        elif kind == "l2":
            wide = wide * wide
        total = _wrap(np.sum(wide, axis=axes), dtype)
        if kind == "l2":
            return np.trunc(np.sqrt(np.maximum(total.astype(np.float64), 0))).astype(dtype)
        if kind == "mean":
            if not count:
                return total
            t = total.astype(_wide(dtype))
            q = np.abs(t) // count if dtype.kind == "i" else t // count
            return _wrap(np.where(t < 0, -q, q) if dtype.kind == "i" else q, dtype)
        return total


def _reduced(a: ReduceAttrs, args: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> int:
    """The length of each output's sum: input elements per output element."""
    return np.size(args[0]) // max(np.size(outputs[0]), 1)


def _picked(kernel: Kernel, a: ReduceAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
            outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """ReduceMax and ReduceMin pick one element of each window: its error is within the largest bound there (the
    max of the bounds; ReduceMin's own kernel would take their min)."""
    return _MOVES(_MAX, a, args, bounds, outputs)


_MAX, _MOVES = _reduction("max"), moves(0)
#: Sums and products: gamma(n) of the sum (product) of |terms|; maxima and minima move their element's bound; logic
#: is exact.
_ROUNDING = {"sum": accumulation(_reduced, (0,)), "mean": accumulation(_reduced, (0,)),
             "l1": accumulation(_reduced, (0,)), "prod": accumulation(_reduced, (0,), linear=False),
             "l2": accumulation(_reduced, (0,), linear=False), "max": _picked, "min": _picked, "and": exact,
             "or": exact}


def _no_axes_dropped(a: ReduceAttrs, inputs: Sequence[TensorType], values) -> str | None:
    """A Const of no axes with keep_dims false on data of 2 dims or more: shape inference leaves the data as it is,
    but OpenVINO CPU refuses to compile the layer ("gets incorrect number of input/output dimensions"; measured on
    2026.4 for every reduction, static and dynamic dims; of 1 dim or none, or with keep_dims, it runs). Of Const
    data it folds the layer away."""
    data, axes = inputs[0].shape, values[1]
    if a.keep_dims or axes is None or np.asarray(axes).size or values[0] is not None or data is None or len(data) < 2:
        return None
    return f"no axes, keep_dims false, on data of rank {len(data)}: OpenVINO CPU refuses to compile such a reduction"


def _extreme_bounds(kind: str) -> BoundRule:
    """ReduceMax's or ReduceMin's bounds, measured on 2026.4.1: the op on the lower bounds, then on the upper ones
    (OpenVINO's default bound evaluation), an unbounded element staying so (ReduceMax of ``[[4..], 3]`` is ``4..``);
    its axes exact. Of an empty reduction (the type's extreme, which OpenVINO's evaluation takes through f32) none
    modelled."""
    moved_bounds = moved(_reduction(kind))

    def rule(a: ReduceAttrs, inputs: Sequence[Bounds]) -> list[Bounds] | NoBounds | None:
        return None if inputs[0].lo.size == 0 else moved_bounds(a, inputs)

    return rule


def _prod_bounds(a: ReduceAttrs, inputs: Sequence[Bounds]) -> list[Bounds] | None:
    """ReduceProd's bounds, measured on 2026.4.1 (reduce_prod.cpp): the product of the lower bounds, and of the upper
    ones, even where they are negative (``[-3..5] * -2`` is ``[6..-10]``); the upper bound INF where an upper bound is
    unbounded and none is 0 (``3 * [4..]`` is ``[12..]``, as the lower one stays); its axes exact. A product past the
    i32 range wraps in the value's type: not modelled (None); nor a reduction to several elements with an unbounded
    upper bound (OpenVINO then sets the first alone)."""
    data, axes = inputs
    if not axes.exact:
        return None
    (lo,), (hi,) = _PROD(a, [data.lo, axes.lo]), _PROD(a, [data.hi, axes.lo])
    ends = [data.lo]
    if np.any(data.hi >= INF) and not np.any(data.hi == 0):
        if hi.size != 1:
            return None
        hi = np.full_like(hi, INF)
    else:
        ends.append(data.hi)
    wide = (_PROD(a, [b.astype(np.float64), axes.lo])[0] for b in ends)  # (the true products)
    if any(np.any(np.abs(w) > np.iinfo(np.int32).max) for w in wide):
        return None
    return [Bounds(lo, hi)]


_PROD = _reduction("prod")
#: OpenVINO's bounds of each reduction's output (ops.bounds), where it has them.
_BOUNDS: dict[str, BoundRule] = {"max": _extreme_bounds("max"), "min": _extreme_bounds("min"),
                                 "prod": ordered(_prod_bounds), "sum": evaluated(_reduction("sum"))}


def _reduce_spec(op: str, label: str, kind: str, evaluates: Evaluates) -> OpSpec:
    logical = kind in ("and", "or")
    return OpSpec(op, label, ReduceAttrs, (2, 2), 1, _reduce(logical), _reduction(kind), (1,),
                  rounding=_ROUNDING[kind], cpu_refuses=_no_axes_dropped, bounds=_BOUNDS.get(kind), evaluates=evaluates)


REDUCE_SUM_1 = _reduce_spec("ReduceSum", "ReduceSum-1", "sum", on_arithmetic)
REDUCE_MEAN_1 = _reduce_spec("ReduceMean", "ReduceMean-1", "mean", on_arithmetic)
REDUCE_MAX_1 = _reduce_spec("ReduceMax", "ReduceMax-1", "max", on(all_but("f64", "i16", "u16")))
REDUCE_MIN_1 = _reduce_spec("ReduceMin", "ReduceMin-1", "min", on(all_but("f64", "i16", "u16")))
REDUCE_PROD_1 = _reduce_spec("ReduceProd", "ReduceProd-1", "prod", on_arithmetic)
REDUCE_L1_4 = _reduce_spec("ReduceL1", "ReduceL1-4", "l1", on(FLOATS | {"i32", "i64"}))
REDUCE_L2_4 = _reduce_spec("ReduceL2", "ReduceL2-4", "l2", on(FLOATS))
REDUCE_LOGICAL_AND_1 = _reduce_spec("ReduceLogicalAnd", "ReduceLogicalAnd-1", "and", always)
REDUCE_LOGICAL_OR_1 = _reduce_spec("ReduceLogicalOr", "ReduceLogicalOr-1", "or", always)
