"""Unary element-wise ops and activations: attributes, shape rules (same shape) and reference kernels.

Sigmoid, Tanh, Exp, Log, Sqrt, Erf, Abs, Negative, Floor, Ceiling, Sign, Sin, Cos (all opset1), Round-5,
Clamp-1, Elu-1, Selu-1, Swish-4, HSwish-4, HSigmoid-5, Mish-4, SoftPlus-4, Gelu-2, Gelu-7, SoftSign-9, LogicalNot-1
and PRelu-1; the trigonometric and hyperbolic Tan, Sinh, Cosh, Asin, Acos, Atan (opset1) and Asinh-4, Acosh-4,
Atanh-4.

Element types OpenVINO's shape inference accepts (measured on openvino 2026.4.1; a dynamic type
always passes): most refuse boolean and string; Round and Elu take every type (boolean and string
included), Clamp refuses boolean only (string passes), LogicalNot takes any type and keeps it, PRelu
checks nothing at all (output = data); Mish, SoftPlus, Gelu and SoftSign want a real type; Swish too,
and its beta must have exactly the data's element type (a dynamic one does not match f32) and rank 0.
Checked by tests/ops/test_elementwise_conformance.py.

Kernels compute in float64 and round once to the output type (f32, f16, f64); checked against
OpenVINO CPU by the same test module, which states the measured tolerances (the CPU approximates
exp, erf, log and so Mish, SoftPlus and Gelu in f32). Where the CPU's answer is a plain definition
(how its max/min instructions treat NaN and zeros) the kernels follow it; where it is merely
inaccurate they keep the exact value. Measured on openvino 2026.4.1, beyond the specification:

- Transcendental ops on integer data (Sigmoid, Tanh, Exp, Log, Sqrt, Erf, Sin, Cos, Elu, HSwish,
  HSigmoid) are refused (UnsupportedError): OpenVINO CPU computes them in f32 and rounds to nearest
  (Exp(1) = 3, out-of-range gives INT_MIN) while OpenVINO's evaluator truncates (Exp(1) = 2) and its
  Sin gives 0 everywhere. The trigonometric and hyperbolic ones too: on i32, CPU's Asin(1) is 2, the evaluator's 1;
  Sinh(100) 2147483520 against INT_MIN; Atanh(1) 2147483520 against INT_MAX, and Atanh(2) INT_MIN against INT_MAX.
- Tan, Sinh, Cosh, Asin, Acos, Atan, Asinh, Acosh and Atanh: OpenVINO CPU's Math node calls the C library's f32
  function (tanf, sinhf...) on f32 values (f16 and f64 converted to f32 and back). NaN gives NaN, and so does an
  input outside the domain (Tan of +-inf, |x| > 1 for Asin, Acos and Atanh, x < 1 for Acosh); the others'
  infinities give their limits; Atanh(+-1) is +-inf, Sinh and Cosh overflow to inf from |x| = 89.41599 exactly
  where the exact value rounds to inf; zeros keep their sign (Tan, Sinh, Asin, Atan, Asinh, Atanh of -0 are -0;
  Acos(1) and Acosh(1) +0); f32 subnormals are computed as they are (not flushed): all as the float64 kernels give
  them.
- Sign(NaN) is NaN and Sign(-0) is +0; Abs(-0) is +0; Floor, Ceiling and Round half_to_even keep -0;
  Round half_away_from_zero gives +0 for -0 but -0 for -0.4 (CPU), 3 for 2.5 and -3 for -2.5.
- Clamp is the CPU's ``min(max(x, lo), hi)`` with x86's max/min: NaN gives min, and -0 against a
  bound of 0 gives +0. The bounds are rounded to the element type first (to nearest for floats; for
  integers min rounds up and max down, then both saturate to the type's range, as the evaluator).
- HSigmoid(NaN) is 0 (CPU; so HSwish(NaN) is NaN); Elu(-0) is +0.
- Exp(NaN) is +inf on CPU and its f32 exp overflows from x = 88.38; Gelu(+-inf) is NaN on CPU and
  overflows for |x| > 1.7e38: the kernels keep NaN and the exact values.
- Gelu-2 is Gelu-7 with approximation_mode erf (the IR reader takes "TANH"/"ERF" in any case).
- PRelu: a 1-D slope whose length equals the data's channel dim (dim 1, dim 0 for 1-D data) applies
  per channel; any other slope broadcasts numpy-style against the data (an IR can hold a slope that
  neither way fits: OpenVINO's shape inference checks nothing, the kernel refuses it).
- LogicalNot of a non-boolean type gives ``!x`` in that type (1 for 0, else 0), as the evaluator.
- Selu-1 (data, alpha, lambda): element types merged, a real one (or dynamic), the output of data's partial shape
  (alpha and lambda of any shape). CPU compiles only constant alpha and lambda and reads their first element where
  the evaluator reads element i % size: the kernel takes one-element alpha and lambda only (UnsupportedError else).
  CPU computes alpha lambda (exp(x) - 1) with exp(x) - 1, not expm1: near 0 its error is absolute, up to 0.5 f32
  ulps at 1 times |alpha lambda| beyond 4 ulps of |y| (measured on 882,000 values per alpha, lambda; the rule
  allows twice that); lambda x is one product.

Rounding bounds (ops.rounding.elementwise): on 92,000 f32 values over [-30, 30] and near 0, OpenVINO
CPU's Sigmoid, Tanh, Exp, Log, Sqrt, Sin, Cos, SoftSign, HSigmoid and Swish stay within 2 ulps of |y|;
its approximations of Erf, Mish, SoftPlus and Gelu (erf mode) also need an absolute error of 3.3, 8.3,
16.2 and 9.0 f32 ulps at 1 (HSwish 0.5, Gelu tanh mode 1.3). The rules allow 4 ulps of |y| and twice
the measured absolute error; the selections and exact ops (Abs, Clamp, Floor, Round...) have bound 0.
The trigonometric and hyperbolic ops (glibc 2.36's f32 functions), on 650,000 to 720,000 f32 values each (seeded:
near 0 and subnormal, [-4, 4], magnitudes 1e-3 to 3e38, Tan near 120,000 of its poles up to |x| = 3e6, Sinh and
Cosh over [85, 90], Asin, Acos, Atanh and Acosh within 1e-8 to 1 of +-1 and beyond; and every f32 within 1e-4 of
pi/2, one in four of [89, 89.42] for Sinh and Cosh, every one within 1e-3 of +-1 for Asin, Acos and Atanh and in
[0.9999, 1.001] for Acosh): Tan 0.73, Sinh 1.47, Cosh 1.36, Asin 0.78, Acos 0.82, Atan 0.67, Asinh 1.06, Acosh 1.09
and Atanh 1.09 ulps of |y| at most (no absolute error: subnormal results exact); on every f16 value, f16 results are
the float64 value rounded once but for at most 8 an op, one f16 ulp off (the f32 result's rounding near a tie).
Their rules are ``elementwise``'s (4 ulps of |y|) with the corners of the input's interval, and Tan's
``_tan_change``. Cosh's minimum 1 at 0 needs no ``extremum``: an interval holding 0 has b >= |x|, and its far end
moves Cosh by cosh(|x| + b) - cosh(x) >= cosh(2x) - cosh(x) >= cosh(x) - 1, as far as the minimum does. An interval
reaching outside the domain has a NaN corner, so no bound (an f32 or f16 input beyond +-1 is at least an ulp beyond,
which float64 ends keep).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .arithmetic import select, unary_rule
from .attrs import FLOAT
from .bounds import BoundRule, abs_bounds, evaluated
from .core import NoAttrs
from .rounding import ACCUMULATION_UNIT, APPROXIMATION_ULPS, Change, Extremum, elementwise, gamma, is_exact, unit
from .spec import ARITHMETIC, FLOATS, Evaluates, Kernel, OpSpec, TensorType, all_but, never, on, on_arithmetic


@dataclass(frozen=True, slots=True)
class ClampAttrs:
    """Defaults (Clamp's, Elu's) are OpenVINO's for an omitted attribute, which its IR reader reads (measured on
    2026.4.1: tests/test_read_by_design.py)."""

    min: float = A.attr("min", FLOAT, 0.0)
    max: float = A.attr("max", FLOAT, 0.0)


@dataclass(frozen=True, slots=True)
class EluAttrs:
    alpha: float = A.attr("alpha", FLOAT, 0.0)


@dataclass(frozen=True, slots=True)
class RoundAttrs:
    mode: str = A.attr("mode", A.enum("half_to_even", "half_away_from_zero"), "half_to_even")


@dataclass(frozen=True, slots=True)
class Gelu7Attrs:
    approximation_mode: str = A.attr("approximation_mode", A.enum("erf", "tanh"), "erf")


# --- shape rules -----------------------------------------------------------------------------------


def _clamp_rule(a: ClampAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    _check_bounds(a)
    return unary_rule(frozenset({"boolean"}))(a, inputs, values)


def _check_bounds(a: ClampAttrs) -> None:
    if not a.min <= a.max:
        raise OpValidationError(f"min {a.min!r} must be less than or equal to max {a.max!r}")


def _swish_rule(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    x = inputs[0]
    if x.element is not None and x.element not in REAL_TYPES:
        raise OpValidationError(f"input of element type {x.element}: it must be a floating-point type")
    if len(inputs) == 2:
        beta = inputs[1]
        if beta.element != x.element:
            raise OpValidationError(f"beta of element type {beta.element or 'dynamic'}: it must be the input's "
                                    f"({x.element or 'dynamic'})")
        if beta.shape is not None and len(beta.shape) != 0:
            raise OpValidationError(f"beta has rank {len(beta.shape)}: it must be a scalar")
    return [TensorType(x.element, x.shape)]


def _prelu_rule(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    return [TensorType(inputs[0].element, inputs[0].shape)]


# --- kernels ---------------------------------------------------------------------------------------


def _hard_sigmoid_rule(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """OpenVINO's: alpha and beta of static shape must be scalars; the three element types equal."""
    x, alpha, beta = inputs
    for name, t in (("alpha", alpha), ("beta", beta)):
        if t.shape is not None and all(d.is_static for d in t.shape) and len(t.shape) != 0:
            raise OpValidationError(f"{name} has shape {[d.lo for d in t.shape]}: it must be a scalar")
    if not x.element == alpha.element == beta.element:
        raise OpValidationError(f"element types {x.element}, {alpha.element}, {beta.element} (data, alpha, beta): "
                                "they must be equal")
    return [TensorType(x.element, x.shape)]


def _hard_sigmoid(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """max(0, min(1, alpha x + beta)) in float64, rounded once."""
    x, alpha, beta = (np.asarray(v) for v in args)
    if x.dtype.kind != "f":
        raise UnsupportedError(f"HardSigmoid of element type {x.dtype}")
    with np.errstate(all="ignore"):
        y = np.clip(alpha.astype(np.float64) * x.astype(np.float64) + beta.astype(np.float64), 0.0, 1.0)
    return [y.astype(x.dtype)]


def _hard_sigmoid_rounding(kernel, a: NoAttrs, args: Sequence[np.ndarray], bounds, outputs) -> list[np.ndarray]:
    """alpha x + beta is a product and a sum in f32: gamma(2) (|alpha x| + |beta|), which near 0 (where they
    cancel) is far more than ulps of the result; clipping is exact."""
    x, alpha, beta = (np.abs(np.asarray(v, np.float64)) for v in args)
    own = gamma(2) * (alpha * x + beta)
    return [elementwise(data=(0,))(kernel, a, args, bounds, outputs)[0] + own]


def _selu_rule(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """OpenVINO's: the three element types merged (a dynamic one merges), the result real or dynamic; data's shape."""
    element = None
    for t in inputs:
        if t.element is not None and element is not None and t.element != element:
            raise OpValidationError(f"element types {', '.join(str(i.element) for i in inputs)} (data, alpha, "
                                    "lambda): they must match")
        element = element or t.element
    if element is not None and element not in REAL_TYPES:
        raise OpValidationError(f"element type {element}: it must be a floating-point type")
    return [TensorType(element, inputs[0].shape)]


def _selu(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """lambda x for x > 0, else alpha lambda (exp(x) - 1), in float64 (expm1), rounded once."""
    x, alpha, lam = (np.asarray(v) for v in args)
    if x.dtype.kind != "f":
        raise UnsupportedError(f"Selu of element type {x.dtype}")
    if alpha.size != 1 or lam.size != 1:
        raise UnsupportedError(f"Selu with alpha of {alpha.size} and lambda of {lam.size} elements: OpenVINO CPU reads "
                               "the first element, its evaluator element i % size")
    w, a64, l64 = x.astype(np.float64), float(alpha.reshape(-1)[0]), float(lam.reshape(-1)[0])
    with np.errstate(all="ignore"):
        return [np.where(w > 0, l64 * w, a64 * l64 * np.expm1(w)).astype(x.dtype)]


_SELU_ABSOLUTE = 1.0  # f32 ulps at 1, times |alpha lambda| (module doc: 0.5 measured)


def _selu_rounding(kernel, a: NoAttrs, args: Sequence[np.ndarray], bounds, outputs) -> list[np.ndarray]:
    """4 ulps of |y| and the inputs' intervals (``elementwise``), plus, where x <= 0, the absolute error of
    exp(x) - 1 in f32 scaled by |alpha lambda|."""
    x = np.asarray(args[0])
    scale = abs(float(np.asarray(args[1], np.float64).reshape(-1)[0]) * float(np.asarray(args[2], np.float64)
                                                                               .reshape(-1)[0]))
    with np.errstate(invalid="ignore"):
        absolute = np.where(x > 0, 0.0, 2.0 * ACCUMULATION_UNIT * _SELU_ABSOLUTE * scale)
    return [_SELU_ELEMENTWISE(kernel, a, args, bounds, outputs)[0] + absolute]


def _float_kernel(name: str, fn: Callable[[np.ndarray], np.ndarray]) -> Callable:
    """A kernel computing ``fn`` in float64 and rounding once; integer data refused (see the module doc)."""

    def run(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(args[0])
        if x.dtype.kind != "f":
            raise UnsupportedError(f"{name} of element type {x.dtype}: OpenVINO's CPU plugin and its "
                                   "specification disagree on integers (see ops/activations.py)")
        with np.errstate(all="ignore"):
            return [np.asarray(fn(x.astype(np.float64))).astype(x.dtype)]

    return run


def _exact_kernel(fn: Callable[[np.ndarray], np.ndarray], numbers_only: bool = True) -> Callable:
    """A kernel whose result is exact in the input's own type (integers included)."""

    def run(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(args[0])
        if numbers_only and x.dtype.kind not in "iuf":
            raise OpValidationError(f"input of element type {x.dtype}: this op needs numbers")
        with np.errstate(all="ignore"):
            return [np.asarray(fn(x)).astype(x.dtype, copy=False)]

    return run


def _whole(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """``fn`` (floor, ceil) of floats; integers as they are, which numpy 1 would round through f64 (a u64 near 2^64
    coming out 0)."""
    return lambda x: x if x.dtype.kind in "iub" else fn(x)


# Cephes' rational approximations (ndtr.c), highest power first: erf = x T(x^2)/U(x^2) for |x| <= 1,
# erfc = exp(-x^2) P(|x|)/Q(|x|) above; within 3 float64 ulps of math.erf (tests/ops/test_elementwise_conformance.py).
_ERF_T = (9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3, 7.00332514112805075473e3,
          5.55923013010394962768e4)
_ERF_U = (1.0, 3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3,
          2.26290000613890934246e4, 4.92673942608635921086e4)
_ERFC_P = (2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
           4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2, 9.34528527171957607540e2,
           1.02755188689515710272e3, 5.57535335369399327526e2)
_ERFC_Q = (1.0, 1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2,
           9.75708501743205489753e2, 1.82390916687909736289e3, 2.24633760818710981792e3, 1.65666309194161350182e3,
           5.57535340817727675546e2)
_ERF_CHUNK = 1 << 15  # elements per block: the polynomials' passes stay in cache (4x faster than math.erf)


def _polynomial(coefficients: tuple[float, ...], x: np.ndarray) -> np.ndarray:
    y = x + coefficients[1] if coefficients[0] == 1.0 else x * coefficients[0] + coefficients[1]
    for c in coefficients[2:]:
        y *= x
        y += c
    return y


def _erf_small(s: np.ndarray) -> np.ndarray:
    z = s * s
    return s * _polynomial(_ERF_T, z) / _polynomial(_ERF_U, z)


def _erf_middle(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """erf(x) for 1 < |x| = m < 6."""
    return np.copysign(1.0 - np.exp(-m * m) * _polynomial(_ERFC_P, m) / _polynomial(_ERFC_Q, m), x)


def _erf_block(x: np.ndarray) -> np.ndarray:
    """One block. Where most of it is in the small range (Gelu's inputs / sqrt 2 mostly are), that range's formula
    runs on the whole block and the other elements, found once by index, are replaced (in place of gathers and
    scatters through boolean masks of the whole block: 2.5x faster); an element's value is the same either way (its
    own multiplies, adds and divide, correctly rounded; the middle range's on a gathered array, as before)."""
    a = np.abs(x)
    small = a <= 1.0
    n_small = int(np.count_nonzero(small))
    if n_small == x.size:
        return _erf_small(x)
    if n_small * 2 >= x.size:
        with np.errstate(all="ignore"):  # (the others' values, replaced below, may overflow)
            out = _erf_small(x)
        rest = np.flatnonzero(~small)
        values, magnitudes = x[rest], a[rest]
        replaced = np.copysign(1.0, values)  # |x| >= 6: erfc is below half an ulp of 1
        replaced[np.isnan(values)] = np.nan
        middle = magnitudes < 6.0  # (above 1: not small; NaN is not)
        if middle.any():
            replaced[middle] = _erf_middle(values[middle], magnitudes[middle])
        out[rest] = replaced
        return out
    middle = (a > 1.0) & (a < 6.0)  # NaN is in neither
    n_middle = int(np.count_nonzero(middle))
    if n_middle == x.size:
        return _erf_middle(x, a)
    out = np.copysign(np.ones_like(x), x)  # |x| >= 6: erfc is below half an ulp of 1
    if n_small + n_middle < x.size:
        out[np.isnan(x)] = np.nan
    if n_small:
        out[small] = _erf_small(x[small])
    if n_middle:
        out[middle] = _erf_middle(x[middle], a[middle])
    return out


def erf(x: np.ndarray) -> np.ndarray:
    """The error function of a float64 array (numpy has none), a block at a time."""
    flat = np.asarray(x, np.float64).reshape(-1)
    out = np.empty_like(flat)
    for start in range(0, flat.size, _ERF_CHUNK):
        out[start:start + _ERF_CHUNK] = _erf_block(flat[start:start + _ERF_CHUNK])
    return out.reshape(np.shape(x))


def sigmoid(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))  # no overflow, no cancellation
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _gelu_erf(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def _gelu_erf_kernel(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """``_gelu_erf`` through ``_float_kernel``, a block at a time: the same operations on each element, with every
    float64 temporary in cache and the output written in its own type (vit_b_16's [197, 3072]: 11 -> 4 ms)."""
    x = np.asarray(args[0])
    if x.dtype.kind != "f":
        return _float_kernel("Gelu", _gelu_erf)(a, args)
    flat = x.reshape(-1)
    out = np.empty(flat.shape, x.dtype)
    with np.errstate(all="ignore"):
        for start in range(0, flat.size, _ERF_CHUNK):
            w = flat[start:start + _ERF_CHUNK].astype(np.float64)
            e = _erf_block(w / math.sqrt(2.0))
            e += 1.0
            w *= 0.5
            w *= e
            out[start:start + _ERF_CHUNK] = w
    return [out.reshape(x.shape)]


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


_PHI_0 = 1.0 / math.sqrt(2.0 * math.pi)  # the normal density at 0
#: sup |g'| of Gelu g(x) = x Phi(x): g' = Phi + x phi peaks where g'' = phi (2 - x^2) vanishes, at sqrt(2) (rounded up).
_GELU_SLOPE = 1.1289042
#: min g, where g' = 0 (x = -0.7518), rounded down.
_GELU_MIN = -0.17


def _gelu_erf_change(x: np.ndarray, y: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|g(x + d) - g(x)| over |d| <= b for Gelu (erf mode) without evaluating erf: Taylor's |g'(x)| b + M b^2 / 2,
    M = max |g''| over [x - b, x + b] (2 phi(0) at 0, phi(m) (m^2 - 2) where the least |t| there, m, is 2 or more),
    at most sup|g'| b and, for a wide interval, g's range over it. g'(x) = Phi(x) + x phi(x) takes Phi = y / x from
    the reference output (its relative error, the output's rounding, allowed for 4 times, and f64's absolute error of
    1 + erf near 0); where y is zero or subnormal, the bounds |Phi - 1/2| <= phi(0) |x| and, below 0,
    Phi(x) <= phi(x) / |x| (Mills' ratio). Two corners would cost two more erf passes; a block at a time, in cache."""
    shape = np.shape(y)
    x, y, b = (np.asarray(v).reshape(-1) for v in (x, y, b))
    out = np.empty(x.shape, np.float64)
    with np.errstate(all="ignore"):
        for start in range(0, x.size, _ERF_CHUNK):
            block = slice(start, start + _ERF_CHUNK)
            out[block] = _gelu_erf_change_block(x[block].astype(np.float64), y[block], b[block])
    return out.reshape(shape)


def _gelu_erf_change_block(x: np.ndarray, y: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One block of ``_gelu_erf_change`` (x float64, the block's own copy). Each element's operations are as written
    (a sum's or a product's operands at most swapped, in place); the curvature of the few far elements is computed on
    those alone (found by index), and whether any element is not finite is read from two sums first."""
    u = unit(y.dtype)
    finfo = np.finfo(y.dtype) if y.dtype.kind == "f" else None  # else bfloat16: f32's range, 7 bits
    tiny, subnormal = (finfo.tiny, finfo.smallest_subnormal) if finfo else (2.0**-126, 2.0**-133)
    yw = y.astype(np.float64)
    a = np.abs(x)
    phi = np.multiply(x, -0.5)
    phi *= x
    np.exp(phi, out=phi)
    phi *= _PHI_0
    p = yw / x  # Phi(x)
    slope = x * phi
    slope += p
    np.abs(slope, out=slope)
    trust = np.abs(p)
    trust += a * phi
    trust *= 4.0 * u
    trust += 2.0**-50
    slope += trust
    untrusted = ~(np.abs(yw) >= tiny)
    if untrusted.any():
        loose = np.minimum(0.5 + 2.0 * _PHI_0 * a, np.where(x < 0, phi * (a + 1.0 / a), _GELU_SLOPE))
        slope[untrusted] = loose[untrusted]
    m = a - b
    np.maximum(m, 0.0, out=m)
    far = np.flatnonzero(m >= 2.0)
    bound = slope * b
    curved = np.full_like(b, _PHI_0)  # M / 2
    if far.size:
        at = m[far]
        curved[far] = np.exp(-0.5 * at * at) * (0.5 * _PHI_0) * (at * at - 2.0)
    curved *= b * b
    bound += curved
    np.minimum(bound, _GELU_SLOPE * b, out=bound)
    wide = b > 2.0**-10  # where the Taylor bound may be loose: g's range over the interval (-0.17 <= g(t) <= t+)
    if wide.any():
        span = np.maximum(np.maximum(x + b, 0.0) - yw, yw - np.maximum(_GELU_MIN, np.minimum(x - b, 0.0)))
        span *= 1.0 + 2.0**-40
        span += 2.0 * u * np.abs(yw) + subnormal + 2.0**-50 * (1.0 + a)  # y's errors
        bound = np.where(wide, np.minimum(bound, span), bound)
    if not (np.isfinite(np.sum(x)) and np.isfinite(np.sum(b))):  # (a sum of finite terms, all finite)
        bound[~(np.isfinite(x) & np.isfinite(b))] = np.inf
    return bound


def _hsigmoid(x: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(x), 0.0, np.clip(x + 3.0, 0.0, 6.0)) / 6.0  # NaN gives 0, as on CPU


def _sign(x: np.ndarray) -> np.ndarray:
    return np.sign(x) + (0 if x.dtype.kind != "f" else 0.0)  # np.sign(-0.0) is -0.0; OpenVINO gives 0


def _round(a: RoundAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(args[0])
    if x.dtype.kind != "f":
        return [x.copy()]
    w = x.astype(np.float64)
    if a.mode == "half_to_even":
        return [np.rint(w).astype(x.dtype)]
    r = np.where(w >= 0, np.floor(w + 0.5), np.ceil(w - 0.5))  # exact in float64 for f16/f32 data
    return [np.where(w == 0, 0.0, np.copysign(r, w)).astype(x.dtype)]  # -0 gives +0, -0.4 gives -0 (CPU)


def _clamp(a: ClampAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    _check_bounds(a)
    x = np.asarray(args[0])
    if x.dtype.kind == "f":
        lo, hi = x.dtype.type(a.min), x.dtype.type(a.max)
    elif x.dtype.kind in "iu":
        info = np.iinfo(x.dtype)
        lo = x.dtype.type(np.clip(math.ceil(a.min) if math.isfinite(a.min) else a.min, info.min, info.max))
        hi = x.dtype.type(np.clip(math.floor(a.max) if math.isfinite(a.max) else a.max, info.min, info.max))
    else:
        raise OpValidationError(f"input of element type {x.dtype}: Clamp needs numbers")
    m = select(x > lo, x, lo)  # the CPU's min(max(x, lo), hi) with x86's max/min: NaN gives min, -0 against 0 gives 0
    return [select(m < hi, m, hi)]


def _elu(a: EluAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return _float_kernel("Elu", lambda x: np.where(x > 0, x, a.alpha * np.expm1(x) + 0.0))(a, args)  # Elu(-0) = +0


def _swish(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(args[0])
    beta = 1.0
    if len(args) == 2:
        b = np.asarray(args[1])
        if b.dtype != x.dtype or b.ndim != 0:
            raise OpValidationError(f"beta {b.dtype}{list(b.shape)}: it must be a scalar of the input's type {x.dtype}")
        beta = float(b)
    return _float_kernel("Swish", lambda w: w * sigmoid(beta * w))(a, [x])


def _prelu(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, slope = (np.asarray(v) for v in args)
    if x.dtype != slope.dtype:
        raise OpValidationError(f"data and slope of element types {x.dtype} and {slope.dtype}: they must be equal")
    channel = 1 if x.ndim > 1 else 0
    if slope.ndim == 1 and x.ndim and x.shape[channel] == slope.shape[0]:
        slope = slope.reshape([-1 if i == channel else 1 for i in range(x.ndim)])
    try:
        if np.broadcast_shapes(x.shape, slope.shape) != x.shape:
            raise ValueError
    except ValueError:
        raise OpValidationError(f"slope of shape {list(slope.shape)} does not fit data of shape {list(x.shape)}") \
            from None
    with np.errstate(all="ignore"):
        if x.dtype.kind == "f":
            w = x.astype(np.float64)
            return [np.where(w < 0, w * slope.astype(np.float64), w).astype(x.dtype)]
        return [np.where(x < 0, x * slope, x).astype(x.dtype)]


def _logical_not(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(args[0])
    return [np.logical_not(x).astype(x.dtype)]  # any type, as the evaluator's ``!x``


def _gelu7(a: Gelu7Attrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return (_float_kernel("Gelu", _gelu_tanh) if a.approximation_mode == "tanh" else _gelu_erf_kernel)(a, args)


def _unary(op: str, label: str, fn: Callable, *, exact: bool = False, refused=frozenset({"boolean", "string"}),
           real: bool = False, absolute: float = 0.0, change: Change | None = None,
           extremum: Extremum | None = None, bounds: BoundRule | None = None, float_bounds: bool = False,
           evaluates: Evaluates = on_arithmetic) -> OpSpec:
    """``absolute``: the f32 ulps at 1 OpenVINO CPU's approximation of ``fn`` was measured to need (module doc);
    ``change`` and ``extremum``: as ``rounding.elementwise`` takes them; ``bounds``: OpenVINO's bounds (ops.bounds);
    ``evaluates``: as ``OpSpec`` takes it."""
    kernel = _exact_kernel(fn) if exact else _float_kernel(op, fn)
    rounding = elementwise(rounds=False) if exact else elementwise(_ULPS, absolute, change=change, extremum=extremum)
    return OpSpec(op, label, NoAttrs, (1, 1), 1, unary_rule(refused, real), kernel, rounding=rounding, bounds=bounds,
                  float_bounds=float_bounds, evaluates=evaluates)


def _periodic_change(fn: Callable[[np.ndarray], np.ndarray]) -> Change:
    """Sin's and Cos's change over [x - b, x + b]: the larger at its ends while b < pi / 2 (the interval then holds at
    most one turning point, and the end beyond it moves further), else 1 + |y|: the range [-1, 1] is all there is."""

    def change(x: np.ndarray, y: np.ndarray, b: np.ndarray) -> np.ndarray:
        w, whole = x.astype(np.float64), 1.0 + np.abs(y, dtype=np.float64)
        with np.errstate(all="ignore"):
            ends = np.fmax(np.abs(fn(w - b) - y), np.abs(fn(w + b) - y))  # (NaN at an infinite end: the range)
        return np.where(b < math.pi / 2, np.fmin(ends, whole), whole)

    return change


def _tan_change(x: np.ndarray, y: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Tan's change over [x - b, x + b]: Tan rises between its poles pi/2 + k pi, so where the interval holds none its
    change is the larger at its ends (rounded outward in float64: Tan there is at least as far from y). Where it may
    hold one, no bound: where the branch index floor((t - pi/2) / pi) differs at its ends widened by 2^-46 (|x| + b +
    1), more than float64's error in that index (pi's and the quotient's roundings, some 2^-52 |t|; so every interval
    at |x| past 2^47 or so), and where an end is not finite."""
    w = x.astype(np.float64)
    with np.errstate(all="ignore"):
        lo, hi = np.nextafter(w - b, -np.inf), np.nextafter(w + b, np.inf)
        margin = 2.0**-46 * (np.abs(w) + b + 1.0)
        pole = np.floor((lo - margin - math.pi / 2) / math.pi) != np.floor((hi + margin - math.pi / 2) / math.pi)
        y64 = y.astype(np.float64)
        ends = np.fmax(np.abs(np.tan(lo) - y64), np.abs(np.tan(hi) - y64))
    return np.where(pole | ~(ends < np.inf), np.inf, ends)  # (NaN ends too)


def _turning_at(lo: float, hi: float, value: float) -> Extremum:
    """An op's one turning point, in [lo, hi], with ``value`` beyond its output there."""
    return lambda attrs, args, bounds: (lo, hi, value)


#: Swish's (beta 1) minimum t + 1 at t = -1 - W(1/e) = -1.2784645427610738, and Mish's at -1.1924312145154953 (a root
#: of its derivative, bisected in float64), -0.3088434130172504: both held in wider intervals and rounded down.
_SWISH_TURN = (-1.2785, -1.2784, -0.2784645428)
_MISH_TURN = (-1.1925, -1.1924, -0.3088434131)
#: Gelu's tanh approximation turns at -0.7524614197339054 (golden-section search in float64), where it is
#: -0.1700407505712540: held and rounded down alike.
_GELU_TANH_TURN = (-0.7525, -0.7524, -0.1700407506)


def _swish_turn(a: NoAttrs, args: Sequence[np.ndarray],
                bounds: Sequence[np.ndarray]) -> tuple[float, float, float] | None:
    """x sigmoid(beta x) is Swish(beta x) / beta: its turning point and value those of beta 1 over beta (a minimum for
    beta > 0, a maximum below), over beta's interval; none at beta 0 (x / 2), none bounded where beta's interval holds
    0 and more."""
    if len(args) < 2:
        return _SWISH_TURN
    beta = float(np.asarray(args[1], np.float64))
    spread = 0.0 if len(bounds) < 2 or is_exact(bounds[1]) else float(np.max(bounds[1]))
    if beta == 0.0 and spread == 0.0:
        return None
    if not abs(beta) > spread:  # (NaN too)
        return -math.inf, math.inf, -math.inf
    lo, hi, value = _SWISH_TURN
    ends = [t / c for t in (lo, hi) for c in (beta - spread, beta + spread)]
    return min(ends), max(ends), value / (math.copysign(abs(beta) - spread, beta))


_ULPS = APPROXIMATION_ULPS


SIGMOID_1 = _unary("Sigmoid", "Sigmoid-1", sigmoid)
TANH_1 = _unary("Tanh", "Tanh-1", np.tanh)
EXP_1 = _unary("Exp", "Exp-1", np.exp)
LOG_1 = _unary("Log", "Log-1", np.log)
SQRT_1 = _unary("Sqrt", "Sqrt-1", np.sqrt, evaluates=on(ARITHMETIC | {"f64"}))
ERF_1 = _unary("Erf", "Erf-1", erf, absolute=8)
SIN_1 = _unary("Sin", "Sin-1", np.sin, change=_periodic_change(np.sin))
COS_1 = _unary("Cos", "Cos-1", np.cos, change=_periodic_change(np.cos))
TAN_1 = _unary("Tan", "Tan-1", np.tan, change=_tan_change)
SINH_1 = _unary("Sinh", "Sinh-1", np.sinh)
COSH_1 = _unary("Cosh", "Cosh-1", np.cosh)  # (its minimum needs no extremum: the module doc)
ASIN_1 = _unary("Asin", "Asin-1", np.arcsin)
ACOS_1 = _unary("Acos", "Acos-1", np.arccos)
ATAN_1 = _unary("Atan", "Atan-1", np.arctan)
ASINH_4 = _unary("Asinh", "Asinh-4", np.arcsinh)
ACOSH_4 = _unary("Acosh", "Acosh-4", np.arccosh)
ATANH_4 = _unary("Atanh", "Atanh-4", np.arctanh)
ABS_1 = _unary("Abs", "Abs-1", np.abs, exact=True, bounds=abs_bounds)
NEGATIVE_1 = _unary("Negative", "Negative-1", np.negative, exact=True, evaluates=on(FLOATS | {"i32", "i64"}))
FLOOR_1 = _unary("Floor", "Floor-1", _whole(np.floor), exact=True, bounds=evaluated(_exact_kernel(_whole(np.floor))),
                 float_bounds=True, evaluates=on(all_but("f64")))
CEILING_1 = _unary("Ceiling", "Ceiling-1", _whole(np.ceil), exact=True,
                   bounds=evaluated(_exact_kernel(_whole(np.ceil))), float_bounds=True,
                   evaluates=on(all_but("bf16", "f64")))
SIGN_1 = _unary("Sign", "Sign-1", _sign, exact=True)
HSWISH_4 = _unary("HSwish", "HSwish-4", lambda x: x * _hsigmoid(x), absolute=1,
                  extremum=_turning_at(-1.5, -1.5, -0.375), evaluates=on(FLOATS))  # t (t + 3) / 6 on [-3, 3]
HSIGMOID_5 = _unary("HSigmoid", "HSigmoid-5", _hsigmoid, evaluates=on(FLOATS))
MISH_4 = _unary("Mish", "Mish-4", lambda x: x * np.tanh(np.logaddexp(0.0, x)), refused=None, real=True, absolute=16,
                extremum=_turning_at(*_MISH_TURN), evaluates=on(FLOATS))
SOFTPLUS_4 = _unary("SoftPlus", "SoftPlus-4", lambda x: np.logaddexp(0.0, x), refused=None, real=True, absolute=32,
                    evaluates=on(FLOATS))
SOFTSIGN_9 = _unary("SoftSign", "SoftSign-9", lambda x: x / (1.0 + np.abs(x)), refused=None, real=True,
                    evaluates=never)  # (its evaluate() gives f32 values, but OpenVINO folds none: measured)
_GELU_ERF_ROUNDING = elementwise(_ULPS, 16, change=_gelu_erf_change)  # erf mode needs 9 ulps at 1, tanh mode 1.3
_GELU_TANH_ROUNDING = elementwise(_ULPS, 16, extremum=_turning_at(*_GELU_TANH_TURN))


def _gelu7_rounding(kernel: Kernel, attrs: Gelu7Attrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                    outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    rule = _GELU_TANH_ROUNDING if attrs.approximation_mode == "tanh" else _GELU_ERF_ROUNDING
    return rule(kernel, attrs, args, bounds, outputs)


GELU_2 = OpSpec("Gelu", "Gelu-2", NoAttrs, (1, 1), 1, unary_rule(None, real=True), _gelu_erf_kernel,
                rounding=_GELU_ERF_ROUNDING, evaluates=never)
GELU_7 = OpSpec("Gelu", "Gelu-7", Gelu7Attrs, (1, 1), 1, unary_rule(None, real=True), _gelu7,
                rounding=_gelu7_rounding, evaluates=on(FLOATS))
ROUND_5 = OpSpec("Round", "Round-5", RoundAttrs, (1, 1), 1, unary_rule(None), _round,
                 rounding=elementwise(rounds=False), evaluates=on(all_but("f64")))
CLAMP_1 = OpSpec("Clamp", "Clamp-1", ClampAttrs, (1, 1), 1, _clamp_rule, _clamp, rounding=elementwise(rounds=False),
                 evaluates=on(all_but("f64")))
_SELU_ELEMENTWISE = elementwise(_ULPS)
SELU_1 = OpSpec("Selu", "Selu-1", NoAttrs, (3, 3), 1, _selu_rule, _selu, rounding=_selu_rounding, evaluates=never)
ELU_1 = OpSpec("Elu", "Elu-1", EluAttrs, (1, 1), 1, unary_rule(None), _elu, rounding=elementwise(_ULPS, 2),
               evaluates=never)
SWISH_4 = OpSpec("Swish", "Swish-4", NoAttrs, (1, 2), 1, _swish_rule, _swish,
                 rounding=elementwise(_ULPS, extremum=_swish_turn), evaluates=on(FLOATS))
LOGICAL_NOT_1 = OpSpec("LogicalNot", "LogicalNot-1", NoAttrs, (1, 1), 1, unary_rule(None), _logical_not,
                       rounding=elementwise(rounds=False), evaluates=on(ARITHMETIC | {"u8", "boolean"}))
HARD_SIGMOID_1 = OpSpec("HardSigmoid", "HardSigmoid-1", NoAttrs, (3, 3), 1, _hard_sigmoid_rule, _hard_sigmoid,
                        rounding=_hard_sigmoid_rounding, evaluates=never)
PRELU_1 = OpSpec("PReLU", "PRelu-1", NoAttrs, (2, 2), 1, _prelu_rule, _prelu, rounding=elementwise(),
                 evaluates=on(FLOATS | {"i8"}))
