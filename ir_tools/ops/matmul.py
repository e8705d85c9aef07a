"""MatMul-1 (OpenVINO's v0::MatMul, in opset1 to opset16): shape rule and reference kernel.

The shape rule is OpenVINO's matmul_shape_inference.hpp; checked with the kernel by
tests/ops/test_matmul_conformance.py. Measured on openvino 2026.4.1, beyond the specification:

- transpose_a/transpose_b are ignored on 1-D operands; scalars are refused.
- The inner dims must intersect unless one of them is dynamic (then anything passes: [2..3] against
  [5..7] is accepted). Batch dims broadcast as Dimension::broadcast_merge does on intervals: two that
  both may be 1 give their hull ([1..3] and [0..5] give [0..5]), one that may be 1 gives the other
  ([1..3] and [2..5] give [2..5], [?] and [4] give [4]), else their intersection; no intersection
  is refused unless one is dynamic, and then the output dim is [?] ([2..3] and [5..6]).
- The element types must be equal (a dynamic one takes the other's).
- Floats are multiplied and summed in float64 (BLAS) and rounded once: OpenVINO CPU's f16 results
  are the exactly rounded ones too. Integers follow the specification (wrap around in the element
  type); the CPU plugin computes i32 through f32, saturates i8 and computes i64 as i32.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .rounding import accumulation
from .spec import OpSpec, TensorType


@dataclass(frozen=True, slots=True)
class MatMulAttrs:
    transpose_a: bool = A.attr("transpose_a", A.BOOL, False)
    transpose_b: bool = A.attr("transpose_b", A.BOOL, False)


def _intersect(a: Dim, b: Dim) -> Dim | None:
    lo = max(a.lo, b.lo)
    hi = b.hi if a.hi is None else a.hi if b.hi is None else min(a.hi, b.hi)
    return None if hi is not None and lo > hi else Dim(lo, hi)


def _may_be_one(d: Dim) -> bool:
    return d.lo <= 1 and (d.hi is None or d.hi >= 1)


def broadcast_merge(a: Dim, b: Dim) -> Dim | None:
    """OpenVINO's Dimension::broadcast_merge; None where it fails."""
    if _may_be_one(a) and _may_be_one(b):
        return Dim(min(a.lo, b.lo), None if a.hi is None or b.hi is None else max(a.hi, b.hi))
    if _may_be_one(a):
        return b
    if _may_be_one(b):
        return a
    return _intersect(a, b)


def _infer(a: MatMulAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    ta, tb = inputs
    if ta.element is not None and tb.element is not None and ta.element != tb.element:
        raise OpValidationError(f"inputs of element types {ta.element} and {tb.element}: they must be equal")
    element = ta.element if ta.element is not None else tb.element
    if ta.shape is None or tb.shape is None:
        return [TensorType(element, None)]
    if not ta.shape or not tb.shape:
        raise OpValidationError("scalars are not supported as MatMul inputs")
    x, y = list(ta.shape), list(tb.shape)
    if a.transpose_a and len(x) > 1:
        x[-2], x[-1] = x[-1], x[-2]
    if a.transpose_b and len(y) > 1:
        y[-2], y[-1] = y[-1], y[-2]
    if len(x) == 1:
        x.insert(0, Dim(1, 1))
    if len(y) == 1:
        y.append(Dim(1, 1))
    col, row = x[-1], y[-2]
    if _intersect(col, row) is None and col.is_static and row.is_static:
        raise OpValidationError(f"the first input's columns ({col}) do not match the second input's rows ({row})")
    if len(x) < len(y):
        x = [Dim(1, 1)] * (len(y) - len(x)) + x
    y = [Dim(1, 1)] * (len(x) - len(y)) + y
    out = []
    for i, (p, q) in enumerate(zip(x[:-2], y[:-2], strict=True)):
        merged = broadcast_merge(p, q)
        if merged is None:
            if p.is_static and q.is_static:
                raise OpValidationError(f"batch dims {p} and {q} at index {i} do not broadcast")
            merged = DYNAMIC
        out.append(merged)
    out += [x[-2], y[-1]]
    if len(ta.shape) == 1:
        del out[-2]
    if len(tb.shape) == 1:
        del out[-1]
    return [TensorType(element, tuple(out))]


def _run(a: MatMulAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, y = (np.asarray(v) for v in args)
    if x.dtype != y.dtype:
        raise OpValidationError(f"inputs of element types {x.dtype} and {y.dtype}: they must be equal")
    if x.ndim == 0 or y.ndim == 0:
        raise OpValidationError("scalars are not supported as MatMul inputs")
    if a.transpose_a and x.ndim > 1:
        x = np.swapaxes(x, -1, -2)
    if a.transpose_b and y.ndim > 1:
        y = np.swapaxes(y, -1, -2)
    inner_x, inner_y = x.shape[-1], y.shape[-2] if y.ndim > 1 else y.shape[0]
    if inner_x != inner_y:
        raise OpValidationError(f"the first input's columns ({inner_x}) do not match the second input's rows "
                                f"({inner_y})")
    try:
        np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    except ValueError:
        raise OpValidationError(f"batch dims {list(x.shape[:-2])} and {list(y.shape[:-2])} do not broadcast") from None
    if x.dtype.kind == "f":
        return [_blocked_product(x, y, np.float64).astype(x.dtype)]
    return _integer_product(x, y)


#: Inner-dim rows of the second input cast to float64 at a time (a large weight matrix is not copied whole).
_BLOCK_ELEMENTS = 1 << 22


def _blocked_product(x: np.ndarray, y: np.ndarray, dtype: type, absolute: bool = False) -> np.ndarray:
    """x @ y (|x| @ |y| if ``absolute``) summed in ``dtype``. A large y is cast a block of inner rows at a time,
    into memory the allocator reuses: casting a 100M-element weight matrix whole costs a fresh 800 MB and its
    page faults (2 s, against 0.14 s in blocks)."""
    def prepared(v: np.ndarray) -> np.ndarray:
        v = v.astype(dtype, copy=False)
        return np.abs(v) if absolute else v

    wide = prepared(x)
    if y.ndim != 2 or y.size <= _BLOCK_ELEMENTS:
        return np.matmul(wide, prepared(y))
    step = max(1, _BLOCK_ELEMENTS // y.shape[1])
    out = np.matmul(wide[..., :step], prepared(y[:step]))
    for k in range(step, y.shape[0], step):
        out += np.matmul(wide[..., k:k + step], prepared(y[k:k + step]))
    return out


def _magnitude(a: MatMulAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """|x| @ |y| in at least f32 (BLAS), for the rounding bound: no float64 copy of a large weight matrix."""
    x, y = (np.asarray(v) for v in args)
    if x.dtype.kind != "f":
        return _run(a, [np.abs(x), np.abs(y)])
    if a.transpose_a and x.ndim > 1:
        x = np.swapaxes(x, -1, -2)
    if a.transpose_b and y.ndim > 1:
        y = np.swapaxes(y, -1, -2)
    return [_blocked_product(x, y, np.promote_types(x.dtype, np.float32), absolute=True)]


def _integer_product(x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    if x.dtype.kind in "iu":
        wide = np.uint64 if x.dtype.kind == "u" else np.int64
        with np.errstate(all="ignore"):
            return [np.matmul(x.astype(wide), y.astype(wide)).astype(x.dtype)]
    raise UnsupportedError(f"MatMul of element type {x.dtype}")


def _inner(a: MatMulAttrs, args: Sequence[np.ndarray], outputs) -> int:
    """The length of each output's sum: the first input's columns (rows when transposed)."""
    shape = np.shape(args[0])
    return shape[-2] if a.transpose_a and len(shape) > 1 else shape[-1]


MATMUL_1 = OpSpec("MatMul", "MatMul-1", MatMulAttrs, (2, 2), 1, _infer, _run,
                  rounding=accumulation(_inner, magnitude=_magnitude))
