"""CumSum-3: attributes, shape rule, reference kernel and rounding rule.

Checked against the installed openvino (shape rule and CPU kernel) by tests/ops/test_cum_sum_conformance.py. Measured
on OpenVINO 2026.4.1:

- CumSum-3 is in opset3..16. Shape inference: the output is data's element type (any, dynamic included) and partial
  shape; axis must be i32 or i64 (a dynamic type is refused), of any shape (OpenVINO reads its first element).
- exclusive: each element sums the ones before it (the first is 0); reverse: the sums run from the end. A negative
  axis counts from the end.
- CPU sums f32 and f16 in f32 and rounds each output once (f16 ones of 2048 and 4096 ones sum to 6144 exactly);
  integers wrap (i8 and u8 too, no saturation); i64 is held as i32. The reference sums floats in float64 and rounds
  once; it refuses an axis that is not a scalar, which CPU does not compile, and boolean data, not measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .rounding import accumulation
from .spec import OpSpec, TensorType, on


@dataclass(frozen=True, slots=True)
class CumSumAttrs:
    exclusive: bool = A.attr("exclusive", A.BOOL, False)
    reverse: bool = A.attr("reverse", A.BOOL, False)


def _cum_sum(a: CumSumAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, axis = inputs
    if axis.element not in ("i32", "i64"):
        raise OpValidationError(f"axis of element type {axis.element or 'dynamic'}: it must be i32 or i64")
    return [TensorType(data.element, data.shape)]


def _axis(x: np.ndarray, args: Sequence[np.ndarray]) -> int:
    axis = np.asarray(args[1])
    if axis.dtype not in (np.int32, np.int64):
        raise OpValidationError(f"axis of element type {axis.dtype}: it must be i32 or i64")
    if axis.ndim != 0:
        raise UnsupportedError(f"an axis of shape {list(axis.shape)}: OpenVINO CPU compiles only a scalar one")
    value = int(axis.reshape(-1)[0])
    if not -max(x.ndim, 1) <= value < max(x.ndim, 1):
        raise OpValidationError(f"axis {value} is out of a rank-{x.ndim} input")
    return value % max(x.ndim, 1)


def _run_cum_sum(a: CumSumAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Sums along the axis (floats in float64, rounded once; integers wrapping in their type), shifted by one for
    exclusive, from the end for reverse."""
    x = np.asarray(args[0])
    if x.dtype.kind not in "iuf":
        raise UnsupportedError(f"CumSum of element type {x.dtype}")
    if x.ndim == 0:
        raise OpValidationError("data must have rank 1 or more")
    axis = _axis(x, args)
    w = x.astype(np.float64) if x.dtype.kind == "f" else x
    if a.reverse:
        w = np.flip(w, axis)
    with np.errstate(over="ignore"):
        out = np.cumsum(w, axis=axis, dtype=w.dtype)
    if a.exclusive and out.shape[axis]:  # (along an axis of length 0 there is nothing to shift)
        out = np.concatenate([np.zeros_like(np.take(out, [0], axis=axis)),
                              np.take(out, np.arange(out.shape[axis] - 1), axis=axis)], axis=axis)
    if a.reverse:
        out = np.flip(out, axis)
    return [np.ascontiguousarray(out).astype(x.dtype, copy=False)]


def _terms(a: CumSumAttrs, args: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> np.ndarray:
    """Per element, the number of terms its sum adds (its place along the axis, counted from where the sums start),
    broadcastable to the output."""
    x = np.asarray(args[0])
    axis = _axis(x, args)
    n = x.shape[axis]
    count = np.arange(n, dtype=np.int64) + (0 if a.exclusive else 1)
    if a.reverse:
        count = count[::-1]
    return count.reshape([n if i == axis else 1 for i in range(x.ndim)])


CUM_SUM_3 = OpSpec("CumSum", "CumSum-3", CumSumAttrs, (2, 2), 1, _cum_sum, _run_cum_sum,
                   rounding=accumulation(_terms, (0,)), evaluates=on({"f32"}))
