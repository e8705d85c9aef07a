"""IsNaN-10, IsInf-10 and IsFinite-10 (opset10..16): which class of float each element is, a boolean output.

Shape inference (measured on openvino 2026.4.1): the input must be of a real element type (f16, f32, f64, bf16, the
f8 and f4 types) or dynamic; i32, boolean, u1, nf4 and string are refused; the output is boolean of the input's
partial shape. IsInf's ``detect_negative`` and ``detect_positive`` are true where omitted (its IR reader).

OpenVINO CPU computes the three in f32 (its JIT emitters, ``jit_is_*_emitter``): f16 and bf16 are widened exactly, f64
is converted to f32 saturating (an f64 infinity, or 1e39, becomes +-3.4028235e38: IsInf false, IsFinite true; an f64
below f32's range a subnormal, or 0). Measured on openvino 2026.4.1, beside the specification: on AVX-512 IsFinite
is ``vfpclassps`` with the denormal class among the non-finite ones, so an f32 (or bf16) subnormal is not finite
there, where on AVX2 and SSE4.1 (``(x & inf) != inf``) it is; IsNaN and IsInf agree with the specification on every
instruction set (NaN payloads of either sign, both zeros), and IsInf with both flags false is all false. The kernel
follows the instruction set (``ops/cpu.mayiuse``). A Constant input CPU converts to f32 first (f64 saturated alike)
and folds: there a subnormal is finite on any instruction set (IsFinite's ``folded``). Checked bit for bit on 120
seeded cases (3,600 values of random f32 and f16 bits and f64 around f32's limits, every IsInf flag pair, a sixth of
them Constants) at AVX-512, and on 20,000 f32 values at AVX2 (tests/ops/test_small_ops_conformance.py).

The kernels are exact. An input error can change the answer only where the input's interval reaches another class:
beyond the largest finite value of its type (it rounds to an infinity there), into the subnormals (IsFinite on
AVX-512), or NaN (a NaN or infinite bound). Like the comparison ops' rule (the kernel at the corners of the
interval, ``rounding.elementwise``), the rule evaluates the kernel at the interval's ends rounded into the input's
type, and at 0 and the least bf16 subnormal of either sign where the interval holds them: 1 where any differs, else 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError
from ..base.packed import BF16, is_bf16, to_bf16
from . import attrs as A
from .core import NoAttrs
from .cpu import mayiuse
from .rounding import EXACT, is_exact
from .spec import Kernel, OpSpec, TensorType, never


@dataclass(frozen=True, slots=True)
class IsInfAttrs:
    detect_negative: bool = A.attr("detect_negative", A.BOOL, True)
    detect_positive: bool = A.attr("detect_positive", A.BOOL, True)


def _rule(a: object, inputs: Sequence[TensorType], values) -> list[TensorType]:
    x = inputs[0]
    if x.element is not None and x.element not in REAL_TYPES:
        raise OpValidationError(f"input of element type {x.element}: it must be a floating-point type")
    return [TensorType("boolean", x.shape)]


_F32_MAX = np.float32(np.finfo(np.float32).max)
_F32_TINY = np.float32(np.finfo(np.float32).tiny)


def _as_cpu_f32(x: np.ndarray) -> np.ndarray:
    """The f32 values OpenVINO CPU classifies: f16 and bf16 (held as f32) exactly, f64 saturated into f32's range."""
    if x.dtype.kind != "f":
        raise OpValidationError(f"input of element type {x.dtype}: it must be a floating-point type")
    if x.dtype == np.float64:
        return np.clip(x, -_F32_MAX, _F32_MAX).astype(np.float32)  # (NaN stays NaN)
    return x.astype(np.float32)


def _is_nan(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.isnan(_as_cpu_f32(np.asarray(args[0])))]


def _is_inf(a: IsInfAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [_infinite(a, _as_cpu_f32(np.asarray(args[0])))]


def _infinite(a: IsInfAttrs, w: np.ndarray) -> np.ndarray:
    """IsInf of ``w`` by the flags: +inf where ``detect_positive``, -inf where ``detect_negative``."""
    found = np.zeros(w.shape, np.bool_)
    if a.detect_positive:
        found |= w == np.inf
    if a.detect_negative:
        found |= w == -np.inf
    return found


def _is_finite(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    finite = _is_finite_folded(a, args)[0]
    if mayiuse("AVX512_CORE", unknown=True):  # vfpclassps: a subnormal is not finite
        w = _as_cpu_f32(np.asarray(args[0]))
        finite &= ~((np.abs(w) < _F32_TINY) & (w != 0))
    return [finite]


def _is_finite_folded(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """IsFinite of a Constant, which OpenVINO CPU folds: of its f32 values (f64 saturated), subnormals finite."""
    return [np.isfinite(_as_cpu_f32(np.asarray(args[0])))]


#: The least positive subnormal of bf16 (2^-133), one of f32 too: the rule's probe of the subnormal class.
_SUBNORMAL = 2.0**-133


def _in_type(v: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Float64 values rounded into ``dtype`` (to nearest: beyond its largest finite value, an infinity)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return to_bf16(v.astype(np.float32)) if is_bf16(dtype) else v.astype(dtype)


def _class_rounding(kernel: Kernel, a: object, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                    outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """1 where a value within the input's bound may be of another class (the kernel at the ends of the interval
    rounded into the input's type, and at 0 and +-2^-133 where the interval holds them, differs from the output), else
    0. The classes lie along the line as NaN aside, -inf, finite, subnormal, 0, subnormal, finite, inf: an interval
    reaches every class between its ends', and holds a subnormal (or 0) whose ends are none only where it holds
    +-2^-133 (or 0)."""
    if is_exact(bounds[0]):
        return [EXACT]
    x = np.asarray(args[0])
    y = np.asarray(outputs[0])
    b = np.broadcast_to(np.asarray(bounds[0], np.float64), x.shape)
    differs = np.zeros(x.shape, np.bool_)
    with np.errstate(invalid="ignore"):
        w = x.astype(np.float64)
        for end in (w - b, w + b):
            differs |= kernel(a, [_in_type(end, x.dtype)])[0] != y
        for probe in (-_SUBNORMAL, 0.0, _SUBNORMAL):
            holds = (w - b <= probe) & (w + b >= probe)
            if holds.any():
                point = np.full((), probe, BF16 if is_bf16(x.dtype) else x.dtype)
                differs |= holds & (kernel(a, [point])[0] != y)
    return [differs.astype(np.float64)]


IS_NAN_10 = OpSpec("IsNaN", "IsNaN-10", NoAttrs, (1, 1), 1, _rule, _is_nan, rounding=_class_rounding, evaluates=never)
IS_INF_10 = OpSpec("IsInf", "IsInf-10", IsInfAttrs, (1, 1), 1, _rule, _is_inf, rounding=_class_rounding,
                   evaluates=never)
IS_FINITE_10 = OpSpec("IsFinite", "IsFinite-10", NoAttrs, (1, 1), 1, _rule, _is_finite, rounding=_class_rounding,
                      folded=_is_finite_folded, evaluates=never)
