"""Inverse-14: attributes, shape rule, a kernel that computes it as OpenVINO CPU does, bit for bit, and its rounding
rule (``exact``).

The inverse of each matrix of the last two dims (``adjoint``: of its transpose). Checked against the installed
openvino by tests/ops/test_inverse_conformance.py. Measured on openvino 2026.4.1:

- opset14..16 (not opset17). Attribute adjoint (a flag, false where omitted). Shape inference
  (inverse_shape_inference.hpp): on a static rank, a rank below 2 is refused ("Input must be at least a 2D matrix."),
  and so are last two dims both static and unequal ("Input must contain square matrices of the same shape.");
  intervals, even disjoint ones, pass. The output is the input's partial shape as it is (nothing merged), a dynamic
  rank gives a dynamic rank. Then the element type: real (``is_real``: f16, bf16, f32, f64, f8 and f4 types) or
  dynamic, else "Expected floating point type as element type for the 'data' input." (nf4, integers, boolean and
  string); the output's is the input's.
- The op has no evaluate(), so OpenVINO neither folds it nor bounds its values (``evaluates=never``: an Inverse of a
  Const feeding a Reshape's target leaves its dims dynamic, an If's condition both bodies merged); CPU computes it
  (intel_cpu/src/nodes/inverse.cpp), a Const input too, in f32 whatever the input type (f16 and bf16 converted
  exactly, f64 saturated into f32's range, as ``embedding.cpu_values``; the f32 result rounded back: to f16 to
  nearest, overflowing to inf; to f64 saturated: inf is 3.4028235e38). Per matrix, adjoint transposing it first: LU
  decomposition with partial pivoting (pivot of column k: the first row below k whose |U[j, k]| is strictly greater
  than the best so far, from row k: a NaN never wins nor is beaten; whole rows of L and U swapped), ``L[i, k] = U[i,
  k] / U[k, k]``, then ``U[i, j] -= L[i, k] * U[k, j]`` (i > k, j >= k); then per column c, forward substitution from
  ``Y[i] = (P[i] == c)``, ``Y[i] -= L[i, j] * Y[j]`` for j < i in order, and backward ``X[i] = Y[i]``, ``X[i] -= U[i,
  j] * X[j]`` for j > i in order, ``X[i] /= U[i, i]``. Each product and difference is rounded on its own: no FMA
  (with FMAs, 200 of 200 random 8 x 8 matrices differ). A NaN result is x86's: a NaN operand's, quieted; of two NaNs,
  the first operand's (``L * Y``, ``U * X`` as written), which the kernel says where numpy may not; an invalid
  operation (0 / 0, inf - inf, 0 * inf), the default NaN 0xffc00000. So a singular matrix gives infinities and NaNs as
  that arithmetic does; an empty input an empty output. On 480 seeded cases (1,133 matrices: n 0 to 8, batch dims 0
  to 2, f32, f16, bf16 and f64, fed or a Const, adjoint either way; singular, near-singular, badly scaled, NaN,
  infinities, +-0, subnormals, f64 beyond f32's range), 46 named ones and dynamic dims (12 shapes): bit for bit, NaNs'
  bits included; so were 6,400 more seeded cases and 64,000 random matrices, up to 30% of their elements NaN,
  infinities, zeros or subnormals, measured once. (CPU flushes an f32 subnormal of a Const to zero and keeps a fed
  one: not modelled, as for every op. These are CPU's answers at ``INFERENCE_PRECISION_HINT`` f32, as ir_tools
  compiles.)
- The rounding rule is ``exact``: the kernel is CPU's arithmetic, bit for bit; where the input may differ from the
  reference's, a pivot may change and a near-singular matrix's inverse moves without bound, so no bound.
- adjoint is the inverse of the transpose, not the inverse times det(A) that some of OpenVINO's sources compute
  (so on every release from 2024.2 to 2026.4.1, measured on one 2 x 2 matrix).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError
from . import attrs as A
from .cpu import fma
from .embedding import cpu_values
from .rounding import exact
from .spec import OpSpec, TensorType, never

NOT_A_MATRIX = "Input must be at least a 2D matrix."
NOT_SQUARE = "Input must contain square matrices of the same shape."
NOT_REAL = "Expected floating point type as element type for the 'data' input."


@dataclass(frozen=True, slots=True)
class InverseAttrs:
    adjoint: bool = A.attr("adjoint", A.BOOL, False)


def _infer(a: InverseAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """inverse_shape_inference.hpp, then Inverse::validate_and_infer_types' element type check (the module doc)."""
    x = inputs[0]
    if x.shape is not None:
        if len(x.shape) < 2:
            raise OpValidationError(NOT_A_MATRIX)
        rows, columns = x.shape[-2:]
        if rows.is_static and columns.is_static and rows.lo != columns.lo:
            raise OpValidationError(NOT_SQUARE)
    if x.element is not None and x.element not in REAL_TYPES:
        raise OpValidationError(NOT_REAL)
    return [TensorType(x.element, x.shape)]


def _less_product(a: np.ndarray, b: np.ndarray, c: np.ndarray, fused: bool) -> np.ndarray:
    """``a - b * c`` in f32: the product rounded, then the difference (CPU's), or rounded once (``fused``: an FMA)."""
    return fma(-b, c, a) if fused else a - _product(b, c)


def _product(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``b * c`` in f32; where both are NaN, ``b``'s, quieted: x86 gives the first operand's, and CPU's code multiplies
    in this order, where numpy's loops may take a product's operands either way round (a [3, 4, 1] by [3, 1, 5]
    product of NaNs of opposite signs gave both signs)."""
    out = b * c
    both = np.isnan(b) & np.isnan(c)
    if both.any():
        quiet = (np.asarray(b, np.float32).view(np.uint32) | np.uint32(0x00400000)).view(np.float32)
        out = np.where(both, quiet, out)
    return out


def lu_inverse(x: np.ndarray, fused: bool = False) -> np.ndarray:
    """The inverse of each f32 matrix of ``x`` [B, n, n] as OpenVINO CPU computes it in f32 (the module doc), all the
    matrices at once: L and U by partial pivoting, then every column's forward and backward substitution; ``fused``:
    each ``a - b * c`` by an FMA instead (the contraction a compiler may make, and CPU's build does not)."""
    u = x.astype(np.float32)  # (a copy: the decomposition writes into it)
    batch, n = u.shape[0], u.shape[-1]
    lower = np.zeros_like(u)
    lower[:, np.arange(n), np.arange(n)] = 1
    order = np.tile(np.arange(n), (batch, 1))
    every = np.arange(batch)
    with np.errstate(all="ignore"):
        for k in range(n):
            pivot, best = np.full(batch, k), np.abs(u[:, k, k])
            for j in range(k + 1, n):
                wins = np.abs(u[:, j, k]) > best  # (False beside a NaN)
                pivot[wins], best[wins] = j, np.abs(u[wins, j, k])
            moved = every[pivot != k]
            for m in (u, lower, order):
                m[moved, k], m[moved, pivot[moved]] = m[moved, pivot[moved]], m[moved, k]  # (copies)
            lower[:, k + 1:, k] = u[:, k + 1:, k] / u[:, k, k, None]
            u[:, k + 1:, k:] = _less_product(u[:, k + 1:, k:], lower[:, k + 1:, k, None], u[:, k, None, k:], fused)
        y = (order[:, :, None] == np.arange(n)).astype(np.float32)  # y[b, i, c]: (P e_c)[i]
        for i in range(n):
            for j in range(i):
                y[:, i] = _less_product(y[:, i], lower[:, i, j, None], y[:, j], fused)
        out = np.empty_like(y)
        for i in reversed(range(n)):
            row = y[:, i]
            for j in range(i + 1, n):
                row = _less_product(row, u[:, i, j, None], out[:, j], fused)
            out[:, i] = row / u[:, i, i, None]
    return out


def _run(a: InverseAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each matrix's inverse (adjoint: its transpose's) in f32 as OpenVINO CPU computes it, in the input's type
    (bf16 comes as f32: the executor rounds the result as CPU does)."""
    x = np.asarray(args[0])
    if x.ndim < 2:
        raise OpValidationError(NOT_A_MATRIX)
    if x.shape[-1] != x.shape[-2]:
        raise OpValidationError(NOT_SQUARE)
    if x.dtype.kind != "f":
        raise OpValidationError(NOT_REAL)
    n = x.shape[-1]
    matrices = cpu_values(x, np.dtype(np.float32)).astype(np.float32).reshape(math.prod(x.shape[:-2]), n, n)
    if a.adjoint:
        matrices = matrices.transpose(0, 2, 1)
    with np.errstate(over="ignore"):  # (an f16 overflow is inf, as CPU rounds it)
        return [cpu_values(lu_inverse(matrices).reshape(x.shape).astype(x.dtype), x.dtype)]


LABEL = "Inverse-14"
INVERSE_14 = OpSpec("Inverse", LABEL, InverseAttrs, (1, 1), 1, _infer, _run, rounding=exact, evaluates=never)
