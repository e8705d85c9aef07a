"""TopK-1, TopK-3 and TopK-11: attributes, shape rules, reference kernels and rounding rule.

Checked against the installed openvino (shape rules and CPU kernels) by tests/ops/test_topk_conformance.py. Measured
on OpenVINO 2026.4.1:

- TopK-1 is in opset1..2, TopK-3 in opset3..10, TopK-11 (``stable``) in opset11..16; outputs values (data's type)
  and indices (``index_element_type``, i32 or i64). Data of rank 1 or more, k a scalar; the output dims are data's
  with the axis dim k where k is known (the rule declines where it is not: OpenVINO bounds it by k's and the dim's
  intervals, not modelled). k of an integer type; TopK-1 refuses u8 and a dynamic type.
- Order: mode max gives the largest first, min the smallest; sort index orders the k chosen by index. The kernel
  takes equal values by index (the smaller first) and counts NaN larger than every number. What CPU does there
  varies (600 seeded cases): equal values come in another order unless the sort is stable; where the k-th value
  ties with the next, which of them is taken varies even when stable (u8, 1946 elements, k 917); sort none gives
  another order (only k = 1 is determined); NaN lands where its comparisons leave it. The rounding rule gives no
  bound to what is not determined (``_determined``): the indices where chosen values tie (unstable sort), values and
  indices where the k-th value ties with the next, where a slice holds NaN, and for sort none with k > 1. A stable
  TopK-11 needs sort value or index.
- The values output is a selection: its rounding bound is the largest bound along the axis (an order statistic moves
  by no more than the largest move of its candidates); the indices are exact where the data are, unbounded else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import Dim
from ..base.dtypes import INTEGER_TYPES
from ..base.errors import OpValidationError
from . import attrs as A
from .operands import normalize_axis
from .rounding import EXACT, any_differs, is_exact
from .spec import OpSpec, TensorType, on_arithmetic

_MODES = A.enum("max", "min")
_SORTS = A.enum("value", "index", "none")
_INDEX_TYPES = A.enum("i32", "i64")


@dataclass(frozen=True, slots=True)
class TopKAttrs:
    """Defaults are OpenVINO's for an omitted attribute, which its IR reader reads (measured on 2026.4.1, every
    version: tests/test_read_by_design.py)."""

    axis: int = A.attr("axis", A.INT, 0)
    mode: str = A.attr("mode", _MODES, "max")
    sort: str = A.attr("sort", _SORTS, "none")
    index_element_type: str = A.attr("index_element_type", _INDEX_TYPES, "i32")


@dataclass(frozen=True, slots=True)
class TopK11Attrs(TopKAttrs):
    """TopK-1/3's attributes and ``stable``."""

    stable: bool = A.attr("stable", A.BOOL, False)


def _topk(a, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, k = inputs
    if getattr(a, "stable", False) and a.sort == "none":
        raise OpValidationError("a stable TopK needs sort value or index")
    if k.element is not None and k.element not in INTEGER_TYPES:
        raise OpValidationError(f"k of element type {k.element}: it must be an integer")
    if k.shape is not None and len(k.shape) != 0:
        raise OpValidationError(f"k of rank {len(k.shape)}: it must be a scalar")
    if data.shape is None:
        return [TensorType(data.element, None), TensorType(a.index_element_type, None)]
    if len(data.shape) == 0:
        raise OpValidationError("data must have rank 1 or more")
    axis = normalize_axis(a.axis, len(data.shape))
    if len(values) < 2 or values[1] is None:
        return None  # type: ignore[return-value]
    count = int(np.asarray(values[1]).reshape(-1)[0])
    if count < 0:
        raise OpValidationError(f"k is {count}: it must not be negative")
    shape = (*data.shape[:axis], Dim(count, count), *data.shape[axis + 1:])
    return [TensorType(data.element, shape), TensorType(a.index_element_type, shape)]


def _topk_1(a, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """TopK-1's: as later versions', k of a signed integer type (u8 and a dynamic type refused)."""
    k = inputs[1]
    if k.element not in ("i8", "i16", "i32", "i64"):
        raise OpValidationError(f"k of element type {k.element or 'dynamic'}: TopK-1 needs a signed integer")
    return _topk(a, inputs, values)


def _run_topk(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Per slice along the axis, the k largest (max) or smallest (min) values, equal ones by index, NaN largest; then
    ordered by index for sort index."""
    x, k = np.asarray(args[0]), np.asarray(args[1])
    if x.ndim == 0:
        raise OpValidationError("data must have rank 1 or more")
    if k.ndim != 0 or k.dtype.kind not in "iu":
        raise OpValidationError(f"k {k.dtype}{list(k.shape)}: it must be an integer scalar")
    axis, count = normalize_axis(a.axis, x.ndim), int(k)
    n = x.shape[axis]
    if not 0 <= count <= n:
        raise OpValidationError(f"k is {count}: it must be within [0, {n}], the axis' length")
    moved = np.moveaxis(x, axis, -1)
    if a.mode == "max":  # descending, equal values by index: a stable ascending sort of the reversed row, reversed
        order = (n - 1 - np.argsort(moved[..., ::-1], axis=-1, kind="stable"))[..., ::-1]
    else:
        order = np.argsort(moved, axis=-1, kind="stable")
    chosen = order[..., :count]
    if a.sort == "index":
        chosen = np.sort(chosen, axis=-1)
    picked = np.take_along_axis(moved, chosen, axis=-1)
    index_type = np.int64 if a.index_element_type == "i64" else np.int32
    return [np.ascontiguousarray(np.moveaxis(picked, -1, axis)),
            np.ascontiguousarray(np.moveaxis(chosen, -1, axis)).astype(index_type)]


def _determined(a, x: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Per slice along the axis (kept as a dim of 1), whether OpenVINO CPU's values and its indices are determined
    (module doc): not where the slice holds NaN, nor where the k-th value ties with the next (which of the equal ones
    is taken varies, stable or not); the indices not where two chosen values tie, unless the sort is stable; sort none
    only for k = 1."""
    axis = normalize_axis(a.axis, x.ndim)
    moved = np.moveaxis(x, axis, -1)
    ordered = np.sort(moved, axis=-1)  # ascending, NaN last
    if a.mode == "max":
        ordered = ordered[..., ::-1]
    unknown = np.isnan(moved).any(axis=-1) if x.dtype.kind == "f" else np.zeros(moved.shape[:-1], bool)
    if 0 < count < moved.shape[-1]:
        unknown |= ordered[..., count - 1] == ordered[..., count]
    chosen = ordered[..., :count]
    ties = (chosen[..., 1:] == chosen[..., :-1]).any(axis=-1) if count > 1 else np.zeros(unknown.shape, bool)
    if a.sort == "none" and count > 1:
        unknown = np.ones_like(unknown)
    stable = getattr(a, "stable", False) and a.sort != "none"
    values = ~unknown
    indices = values if stable or a.sort == "index" else values & ~ties
    return np.expand_dims(values, axis), np.expand_dims(indices, axis)


def _topk_rounding(kernel, a, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                   outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Where OpenVINO CPU's choice is determined (``_determined``): values exact where the data are, else the largest
    bound along the axis (an order statistic moves by no more than its candidates' largest move); indices exact where
    the data are. No bound elsewhere, nor where the data may differ for the indices, nor where k may differ."""
    if any_differs(args, bounds, (1,)):
        return [np.full((), np.inf), np.full((), np.inf)]
    x = np.asarray(args[0])
    if x.size == 0:
        return [EXACT, EXACT]
    values_known, indices_known = _determined(a, x, int(np.asarray(args[1])))
    inf = np.inf
    if is_exact(bounds[0]):
        value_bound, index_bound = EXACT, EXACT
    elif x.dtype.kind != "f":
        differs = any_differs(args, bounds, (0,))
        value_bound = index_bound = np.full((), inf) if differs else EXACT
    else:
        axis = normalize_axis(a.axis, x.ndim)
        value_bound = np.max(np.broadcast_to(np.asarray(bounds[0], np.float64), x.shape), axis=axis, keepdims=True)
        index_bound = np.full((), inf)
    return [np.where(values_known, value_bound, inf), np.where(indices_known, index_bound, inf)]


def _k_outside_axis(a, inputs: Sequence[TensorType], values) -> str | None:
    """A Const k of 0, or larger than the axis can be long, on data that cannot be empty: OpenVINO's shape inference
    gives an axis dim of k, but its CPU plugin refuses the layer ("K (0) must be greater or equal to 1", "K (7)
    exceeds the axis dimension (5)": when it compiles static data, when it runs dynamic data), TopK-1, -3 and -11
    alike (measured on 2026.4; data with no element it runs, and an axis dim that may reach k where it does)."""
    data, k = inputs[0], values[1]
    if k is None or k.size != 1 or data.shape is None or any(d.lo == 0 for d in data.shape):
        return None
    count = int(k.reshape(-1)[0])
    if count == 0:
        return "k is 0: OpenVINO CPU refuses a TopK of k 0 on data that is not empty (k must be 1 or more)"
    dim = data.shape[normalize_axis(a.axis, len(data.shape))]
    if dim.hi is not None and count > dim.hi:
        return (f"k is {count}, more than the axis' length {dim}: OpenVINO CPU refuses a TopK of a k beyond its axis "
                "on data that is not empty")
    return None


TOPK_1 = OpSpec("TopK", "TopK-1", TopKAttrs, (2, 2), 2, _topk_1, _run_topk, (1,), rounding=_topk_rounding,
                cpu_refuses=_k_outside_axis, evaluates=on_arithmetic)
TOPK_3 = OpSpec("TopK", "TopK-3", TopKAttrs, (2, 2), 2, _topk, _run_topk, (1,), rounding=_topk_rounding,
                cpu_refuses=_k_outside_axis, evaluates=on_arithmetic)
TOPK_11 = OpSpec("TopK", "TopK-11", TopK11Attrs, (2, 2), 2, _topk, _run_topk, (1,), rounding=_topk_rounding,
                 cpu_refuses=_k_outside_axis, evaluates=on_arithmetic)
