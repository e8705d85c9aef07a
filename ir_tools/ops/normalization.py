"""BatchNormInference-1/-5, MVN-1/-6, GroupNormalization-12, NormalizeL2-1, GRN-1 and LRN-1: attributes, shape rules,
reference kernels.

BatchNormInference-1 takes (gamma, beta, data, mean, variance), BatchNormInference-5 (data, gamma, beta,
mean, variance). Sums and square roots are computed in float64 and rounded once to the data's type.
Checked by tests/ops/test_normalization_conformance.py and tests/ops/test_group_normalization_conformance.py.
Measured on openvino 2026.4.1, beyond the specification:

- BatchNormInference: the five element types must be equal (dynamic merges) and real; data of rank
  >= 2 (dynamic rank passes); gamma, beta, mean and variance must merge into one 1-D shape whose dim
  merges with the data's channel dim (intervals intersect), and the output's channel dim is that
  merge; epsilon must be >= 0.
- MVN-1: the element type and ``reduction_axes`` are not checked and the shape is kept. The kernel
  reduces over ``reduction_axes`` when given (the specification), else over 1.. (across_channels) or
  2.. ; eps goes inside the square root, rounded to f32 first (as the CPU: 1e-50 becomes 0). OpenVINO
  CPU ignores reduction_axes but for whether axis 1 is among them (see
  tests/ops/test_normalization_conformance.py).
- MVN-6: a static axes shape must be 1-D and no longer than the data's rank; neither the axis values
  nor the element types are checked (the kernel takes axes in [-r, r-1]). ``eps`` is read as f32. OpenVINO
  CPU gives NaN for f16 data of shape [2,1,2] normalised along the axis of one element with eps 1e-9 (a
  zero variance, and eps lost below f16's range), 0 for [4,1] or f32 data: the kernel gives 0.
- GroupNormalization-12 (opset12..16; data [N, C, ...], scale [C], bias [C]): shape inference checks no element
  type (i32, boolean and mixed types pass; the output is the data's type and partial shape) nor epsilon (a negative
  one passes); num_groups must be positive; scale and bias of rank 1 or dynamic, compatible with each other and with
  the data's channel dim (intervals that meet); data of rank >= 2 (dynamic rank passes); a static channel count at
  least num_groups and divisible by it (0 channels refused), a dynamic or interval one unchecked. CPU takes one of
  two paths, which compute alike: a snippets Subgraph (static shapes, N * num_groups at least its threads, a group
  within its L1 cache), else GroupNormalizationDecomposition into Reshape + MVN + Reshape + Multiply + Add (dynamic
  shapes, large groups, one group). Both take the mean as an f32 sum times an f32 1 / n and the variance in a second
  pass, the f32 mean of (x - mean)^2 (the plugin's sources; measured: with means 10^4 times the spread, where a
  one-pass E[x^2] - mean^2 would lose every digit, they stay within the two-pass bound), epsilon as f32 (f16 data
  too: 1e-9 keeps a constant f16 group at 0, not NaN), then 1 / sqrt, and compute f16 data in f32, rounded once.
  CPU compiles no integer data ("Cannot fallback on ngraph reference implementation": the kernel refuses it,
  UnsupportedError); f32 data with f16 scale and bias only on the snippets path (the MVN path's Multiply refuses the
  mix): the kernel computes it. A NaN or an infinity in a group makes the whole group NaN, a constant group with
  epsilon 0 gives NaN (0 / 0) on both; empty data give empty results.
- NormalizeL2: a static axes rank must be 0 or 1; constant axes must lie in [-r, r-1]; axes may be a
  Parameter and of any type; ``eps`` is read as f32. Empty axes give 0 for +-0 and
  1 for anything else, NaN included (CPU). Fed axes CPU computes otherwise (``_normalize_l2_fed``, the kernel:
  empty ones divide each element by its own norm, a NaN sum is eps in max mode; ``_normalize_l2`` on axes known at
  shape inference, ``OpSpec.folded``).
- GRN-1 (opset1..16): y = x / sqrt(sum over the channels (axis 1) of x^2 + bias), NormalizeL2 over axis 1 with bias
  added (read as f32). Shape inference wants a rank of 2, 3 or 4 (a dynamic rank passes) and takes any element type.
  OpenVINO CPU's GRN node sums the squares of the f32 values in double, takes the root of the sum plus bias in
  double, rounds it to f32 and divides in f32 (its sources, grn.cpp); f16 data go through f32 (a Convert either
  side). The kernel computes so: bit for bit on 60 seeded cases of f32 and f16 (NaN, infinities, zeros,
  subnormals, 3e38, whose f32 norm overflows to inf and gives 0); it refuses integer data (UnsupportedError) as
  NormalizeL2 does.
- LRN: axes of an integer type (or dynamic); a static axes shape must be 1-D and no longer than the
  data's rank; a non-negative axis must be below the rank (a negative one passes shape inference, the
  kernel refuses it), and axes OpenVINO cannot fold count as [1]. The window along an axis is
  [i - (size-1)/2, i + (size-1)/2] clipped to the data, alpha is divided by size ** len(axes). OpenVINO
  CPU truncates ``bias`` to an integer; the kernel uses it as given.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.dims import Dim
from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .arithmetic import merge_dim, merge_elements, merge_shapes
from .attrs import FLOAT
from .intervals import compatible, iv, to_dim
from .rounding import (
    ACCUMULATION_UNIT,
    APPROXIMATION,
    EXACT,
    elementwise,
    gamma,
    is_exact,
    output_rounding,
    unit,
)
from .spec import Kernel, OpSpec, RoundingRule, TensorType, never, on


@dataclass(frozen=True, slots=True)
class BatchNormAttrs:
    """Every default of this module's attribute classes is OpenVINO's for an omitted attribute, which its IR reader
    reads (measured on 2026.4.1 for each attribute: tests/test_read_by_design.py): eps 0, LRN's all 0."""

    epsilon: float = A.attr("epsilon", FLOAT, 0.0)


@dataclass(frozen=True, slots=True)
class Mvn1Attrs:
    eps: float = A.attr("eps", FLOAT, 0.0)
    across_channels: bool = A.attr("across_channels", A.BOOL, False)  # enum and flag defaults: OpenVINO's reader's
    normalize_variance: bool = A.attr("normalize_variance", A.BOOL, False)
    reduction_axes: tuple[int, ...] = A.attr("reduction_axes", A.UINT_LIST, ())


@dataclass(frozen=True, slots=True)
class Mvn6Attrs:
    eps: float = A.attr("eps", FLOAT, 0.0)
    normalize_variance: bool = A.attr("normalize_variance", A.BOOL, False)
    eps_mode: str = A.attr("eps_mode", A.enum("inside_sqrt", "outside_sqrt"), "inside_sqrt")


@dataclass(frozen=True, slots=True)
class GroupNormAttrs:
    num_groups: int = A.attr("num_groups", A.INT)
    epsilon: float = A.attr("epsilon", FLOAT, 0.0)


@dataclass(frozen=True, slots=True)
class NormalizeL2Attrs:
    eps: float = A.attr("eps", FLOAT, 0.0)
    eps_mode: str = A.attr("eps_mode", A.enum("add", "max"), "add")


@dataclass(frozen=True, slots=True)
class GrnAttrs:
    bias: float = A.attr("bias", FLOAT, 1.0)  # (GRN's reader reads an omitted bias as 1)


@dataclass(frozen=True, slots=True)
class LrnAttrs:
    alpha: float = A.attr("alpha", FLOAT, 0.0)
    beta: float = A.attr("beta", FLOAT, 0.0)
    bias: float = A.attr("bias", FLOAT, 0.0)
    size: int = A.attr("size", A.UINT, 0)


# --- BatchNormInference ----------------------------------------------------------------------------

_BN_NAMES = ("gamma", "beta", "mean", "variance")


def _batch_norm_rule(order: tuple[int, ...]):
    """``order``: the input indices of data, gamma, beta, mean, variance."""

    def infer(a: BatchNormAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
        if not a.epsilon >= 0:
            raise OpValidationError(f"epsilon {a.epsilon!r} must be >= 0")
        data, *params = (inputs[i] for i in order)
        et = data.element
        for p in params:
            et = merge_elements(et, p.element, "data and gamma/beta/mean/variance")
        if et is not None and et not in REAL_TYPES:
            raise OpValidationError(f"inputs of element type {et}: they must be floating-point")
        channel = Dim(0, None)
        if data.shape is not None:
            if len(data.shape) < 2:
                raise OpValidationError(f"data has rank {len(data.shape)}: it must be at least 2")
            channel = data.shape[1]
        params_shape = None
        for p in params:
            try:
                params_shape = merge_shapes(params_shape, p.shape)
            except OpValidationError:
                raise OpValidationError("shapes of gamma/beta/mean/variance differ") from None
        if params_shape is not None:
            if len(params_shape) != 1:
                raise OpValidationError(f"gamma/beta/mean/variance have rank {len(params_shape)}: they must be 1-D")
            merged = merge_dim(channel, params_shape[0])
            if merged is None:
                raise OpValidationError(f"channel dim {channel} of the data does not match gamma/beta/mean/variance "
                                        f"of length {params_shape[0]}")
            channel = merged
        if channel.is_static and channel.lo < 1:
            raise OpValidationError("channel count must be at least 1")
        shape = None if data.shape is None else (data.shape[0], channel, *data.shape[2:])
        return [TensorType(et, shape)]

    return infer


def _batch_norm_inputs(order: tuple[int, ...], args: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
    """Data, then gamma, beta, mean and variance in float64, shaped to broadcast along the channel axis."""
    data, *params = (np.asarray(args[i]) for i in order)
    if data.dtype.kind != "f" or any(p.dtype != data.dtype for p in params):
        raise OpValidationError(f"inputs of element types {[str(v.dtype) for v in (data, *params)]}: they "
                                "must be one floating-point type")
    if data.ndim < 2 or any(p.shape != (data.shape[1],) for p in params):
        raise OpValidationError(f"data {list(data.shape)} with gamma/beta/mean/variance "
                                f"{[list(p.shape) for p in params]}: they must be 1-D of the channel count")
    shape = [-1 if i == 1 else 1 for i in range(data.ndim)]
    return data, *(p.astype(np.float64).reshape(shape) for p in params)


def _batch_norm(order: tuple[int, ...]):
    def run(a: BatchNormAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        data, gamma, beta, mean, var = _batch_norm_inputs(order, args)
        with np.errstate(all="ignore"):
            out = (data.astype(np.float64) - mean) / np.sqrt(var + a.epsilon) * gamma + beta
            return [out.astype(data.dtype)]

    return run


def _batch_norm_rounding(order: tuple[int, ...]) -> RoundingRule:
    """OpenVINO CPU folds the op into y = x s + t, s = gamma / sqrt(variance + eps), t = beta - mean s, a few
    roundings each, s and t folded in the element type (f16 for f16 data): (gamma(8) + 2 u) of |x s| + |mean s| +
    |beta|. The op is monotone in each input separately, so an
    input error propagates as the largest change over the corners of the inputs' intervals."""
    corners = elementwise(rounds=False)

    def rule(kernel: Kernel, a: BatchNormAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        data, gamma_, beta, mean, var = _batch_norm_inputs(order, args)
        with np.errstate(all="ignore"):
            scale = np.abs(gamma_ / np.sqrt(var + a.epsilon))
            own = (gamma(8) + 2.0 * unit(data.dtype)) * (np.abs(data.astype(np.float64)) * scale +
                                                          np.abs(mean) * scale + np.abs(beta))
        return [own + output_rounding(outputs[0]) + corners(kernel, a, args, bounds, outputs)[0]]

    return rule


# --- MVN ------------------------------------------------------------------------------------------


def _same_shape(a, inputs: Sequence[TensorType], values) -> list[TensorType]:
    return [TensorType(inputs[0].element, inputs[0].shape)]


def _axes_values(axes: np.ndarray, rank: int, what: str, negative: bool = True) -> tuple[int, ...]:
    """Axis values normalized against ``rank`` ([-r, r-1], or [0, r-1] without ``negative``)."""
    if axes.dtype.kind not in "iu":
        raise OpValidationError(f"{what} of element type {axes.dtype}: they must be integers")
    out = []
    for v in (int(v) for v in axes.reshape(-1)):
        if not (-rank if negative else 0) <= v < rank:
            low = -rank if negative else 0
            raise OpValidationError(f"{what}: axis {v} is out of the range [{low}, {rank - 1}] of a rank-{rank} input")
        out.append(v + rank if v < 0 else v)
    return tuple(sorted(set(out)))


def _mvn6_rule(a: Mvn6Attrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, axes = inputs
    if axes.shape is not None and all(d.is_static for d in axes.shape):
        if len(axes.shape) != 1:
            raise OpValidationError(f"axes have rank {len(axes.shape)}: they must be 1-D")
        if data.shape is not None and axes.shape[0].lo > len(data.shape):
            raise OpValidationError(f"{axes.shape[0].lo} axes for data of rank {len(data.shape)}")
    return [TensorType(data.element, data.shape)]  # axis values are not checked


@dataclass(frozen=True, slots=True)
class _MvnParams:
    """What an MVN layer computes, whichever version spelled it."""

    axes: tuple[int, ...]
    normalize_variance: bool
    eps: float  # read as f32
    inside: bool  # eps inside the square root


def _mvn1_params(a: Mvn1Attrs, args: Sequence[np.ndarray]) -> _MvnParams:
    rank = np.ndim(args[0])
    axes = a.reduction_axes or tuple(range(1 if a.across_channels else 2, rank))
    if any(ax >= rank for ax in axes):
        raise OpValidationError(f"reduction_axes {list(axes)} out of the range of a rank-{rank} input")
    return _MvnParams(tuple(sorted(set(axes))), a.normalize_variance, float(np.float32(a.eps)), True)


def _mvn6_params(a: Mvn6Attrs, args: Sequence[np.ndarray]) -> _MvnParams:
    axes = np.asarray(args[1])
    if axes.ndim != 1:
        raise OpValidationError(f"axes have rank {axes.ndim}: they must be 1-D")
    return _MvnParams(_axes_values(axes, np.ndim(args[0]), "axes"), a.normalize_variance, float(np.float32(a.eps)),
                      a.eps_mode == "inside_sqrt")


def _mvn_kernel(params: Callable[[Any, Sequence[np.ndarray]], _MvnParams]) -> Kernel:
    def run(a: Any, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        p = params(a, args)
        return [_mvn(np.asarray(args[0]), p.axes, p.normalize_variance, p.eps, p.inside)]

    return run


def _mvn_rounding(params: Callable[[Any, Sequence[np.ndarray]], _MvnParams], two_pass: bool = False) -> RoundingRule:
    """y = (x - mean) / D with D = sqrt(var + eps) or sqrt(var) + eps, each sum of n terms in f32 (the variance
    possibly in one pass, E[x^2] - mean^2: its error is relative to E[x^2], not to var; ``two_pass``, known to be
    the mean of (x - mean)^2, ``_two_pass_variance_error``: relative to var). Input errors b move
    x - mean by b + mean(b) and D by at most rms(b) (Minkowski). Then (dc + |y| dD) / (D - dD) bounds y's change.

    Normalised, an element is at most sqrt(n - 1) in magnitude (n - 1 times its square is at most the sum of the
    others', which the zero mean makes at least its square over n - 1): so y moves by at most that plus |y|,
    however large the input error (an input error as large as the deviation left the bound infinite: vit_b_16's
    end-to-end bound from its 5th LayerNorm on). The ``statistical`` variant, for whole-model propagation, takes the
    input errors as independent (ops.rounding.accumulation): the mean moves by rms(b) / sqrt(n), and D^2 by
    2 sqrt(mean(c^2 b^2) / n) + mean(b^2), so D by that over D (|D' - D| = |D'^2 - D^2| / (D' + D)), at most
    rms(b). A LayerNorm then passes an error on as 1 / D does (the worst case makes it (2 + |y|) / D: 7 times
    per LayerNorm of vit_b_16)."""

    def variant(statistical: bool) -> RoundingRule:
        def rule(kernel: Kernel, a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                 outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
            p = params(a, args)
            x = np.asarray(args[0], np.float64)
            if not x.size:
                return [EXACT]
            n = int(np.prod([x.shape[i] for i in p.axes]))
            mean = np.mean(x, axis=p.axes, keepdims=True)
            centred = x - mean
            wrong_mean = gamma(n + 1) * np.mean(np.abs(x), axis=p.axes, keepdims=True)
            d_centred = wrong_mean + ACCUMULATION_UNIT * np.abs(centred)
            b = None if is_exact(bounds[0]) else np.broadcast_to(bounds[0], x.shape)
            if b is not None:
                squares = np.mean(b * b, axis=p.axes, keepdims=True)
                shift = np.sqrt(squares / n) if statistical else np.mean(b, axis=p.axes, keepdims=True)
                d_centred = d_centred + b + shift
            y = np.abs(np.asarray(outputs[0], np.float64))
            own = output_rounding(outputs[0])
            if not p.normalize_variance:
                return [d_centred + own]
            with np.errstate(all="ignore"):
                var = np.mean(centred * centred, axis=p.axes, keepdims=True)
                if two_pass:
                    wrong_var = _two_pass_variance_error(centred, var, wrong_mean, p.axes, n)
                else:
                    wrong_var = gamma(n + 2) * (np.mean(x * x, axis=p.axes, keepdims=True) + mean * mean) + \
                        2.0 * np.abs(mean) * wrong_mean
                inner = var + (p.eps if p.inside else 0.0)
                root = np.sqrt(inner)
                d_root = root - np.sqrt(np.maximum(inner - wrong_var, 0.0)) + 2.0 * ACCUMULATION_UNIT * root
                if b is not None:
                    moved = np.sqrt(squares)
                    if statistical:
                        spread = 2.0 * np.sqrt(np.mean(centred * centred * b * b, axis=p.axes, keepdims=True) / n)
                        moved = np.fmin(moved, (spread + squares) / np.sqrt(var))
                    d_root = d_root + moved
                low = root + (0.0 if p.inside else p.eps) - d_root
                change = np.where(low > 0, (d_centred + y * d_root) / low, np.inf)
                if b is not None:
                    change = np.minimum(change, _mvn_largest(n) + y)
            return [change + own + 2.0 * ACCUMULATION_UNIT * y]

        return rule

    worst_case = variant(False)
    worst_case.statistical = variant(True)  # type: ignore[attr-defined]
    return worst_case


def _two_pass_variance_error(centred: np.ndarray, var: np.ndarray, wrong_mean: np.ndarray, axes: tuple[int, ...],
                             n: int) -> np.ndarray:
    """The most an f32 mean of (x - m')^2 (m' the f32 mean, off by at most ``wrong_mean``) is off var: each term
    c' = (c - d)(1 + r) with c = x - mean, |d| <= wrong_mean, |r| <= u, so mean(c'^2) - var = 2 mean(c e) +
    mean(e^2) for e = c' - c = r c - d (1 + r), where mean(c d) = d mean(c) = 0 (a shift of the mean moves no
    centred sum: what a one-pass variance lacks): at most 2 u (var + wrong_mean mean|c|) + mean((wrong_mean (1 + u)
    + u |c|)^2). Then n squares summed and scaled by an f32 1 / n: gamma(n + 2) of the result."""
    u = ACCUMULATION_UNIT
    spread = np.abs(centred)
    shifted = (1.0 + u) * wrong_mean + u * spread
    centring = 2.0 * u * (var + wrong_mean * np.mean(spread, axis=axes, keepdims=True)) + \
        np.mean(shifted * shifted, axis=axes, keepdims=True)
    return centring + gamma(n + 2) * (var + centring)


def _mvn_largest(n: int) -> float:
    """The largest magnitude OpenVINO's normalised element may have: sqrt(n - 1), and its f32 roundings (the
    deviation's n-term sums, the square root and the division) on top, generously (2^-10 relative)."""
    return math.sqrt(max(n - 1, 0)) * (1.0 + 2.0**-10)


def _mvn(x: np.ndarray, axes: tuple[int, ...], normalize_variance: bool, eps: float, inside: bool) -> np.ndarray:
    if x.dtype.kind != "f":
        raise UnsupportedError(f"MVN of element type {x.dtype}: the reference computes floating-point data only")
    w = x.astype(np.float64)
    with np.errstate(all="ignore"):
        centred = w - np.mean(w, axis=axes, keepdims=True) if w.size else w
        if normalize_variance and w.size:
            var = np.mean(centred * centred, axis=axes, keepdims=True)
            centred = centred / (np.sqrt(var + eps) if inside else np.sqrt(var) + eps)
    return centred.astype(x.dtype)


# --- GroupNormalization ---------------------------------------------------------------------------


def _group_norm_rule(a: GroupNormAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """group_normalization_shape_inference.hpp: element types are not checked; scale and bias of rank 1 (or dynamic),
    compatible with each other and with the data's channel dim; a static channel count of at least num_groups and
    divisible by it. The output is the data's type and partial shape."""
    data, scale, bias = inputs
    if a.num_groups <= 0:
        raise OpValidationError(f"num_groups {a.num_groups} must be positive")
    lengths = {}
    for what, t in (("scale", scale), ("bias", bias)):
        if t.shape is not None:
            if len(t.shape) != 1:
                raise OpValidationError(f"{what} has rank {len(t.shape)}: it must be 1-D")
            lengths[what] = iv(t.shape[0])
    if len(lengths) == 2 and not compatible(lengths["scale"], lengths["bias"]):
        raise OpValidationError(f"scale of length {scale.shape[0]} and bias of length {bias.shape[0]} differ")
    if data.shape is not None:
        if len(data.shape) < 2:
            raise OpValidationError(f"data has rank {len(data.shape)}: it must be at least 2")
        channels = data.shape[1]
        for what, length in lengths.items():
            if not compatible(iv(channels), length):
                raise OpValidationError(f"{what} of length {to_dim(length)} for {channels} channels")
        if channels.is_static and (channels.lo < a.num_groups or channels.lo % a.num_groups):
            raise OpValidationError(f"{channels.lo} channels cannot make {a.num_groups} groups of equal size")
    return [TensorType(data.element, data.shape)]


def _group_norm_inputs(a: GroupNormAttrs, args: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The data, then scale and bias in float64 shaped to broadcast along the channel axis."""
    x, scale, bias = (np.asarray(v) for v in args)
    if any(v.dtype.kind != "f" for v in (x, scale, bias)):
        raise UnsupportedError(f"GroupNormalization of element types {[str(v.dtype) for v in (x, scale, bias)]}: the "
                               "reference computes floating-point inputs only")
    if x.ndim < 2 or a.num_groups <= 0 or x.shape[1] < a.num_groups or x.shape[1] % a.num_groups or \
            scale.shape != (x.shape[1],) or bias.shape != (x.shape[1],):
        raise OpValidationError(f"data {list(x.shape)} in {a.num_groups} groups with scale {list(scale.shape)} and "
                                f"bias {list(bias.shape)}: they must be [N, C, ...], C a multiple of them, and [C]")
    channels = [-1 if i == 1 else 1 for i in range(x.ndim)]
    return x, scale.astype(np.float64).reshape(channels), bias.astype(np.float64).reshape(channels)


def _grouped(x: np.ndarray, groups: int) -> np.ndarray:
    """The data as [N, groups, the rest]: each group's elements along the last axis (empty data included)."""
    return x.reshape(x.shape[0], groups, math.prod(x.shape[1:]) // groups)


def _group_norm_params(a: GroupNormAttrs, args: Sequence[np.ndarray]) -> _MvnParams:
    """What the grouped data's normalisation computes: MVN over the last axis, epsilon read as f32 inside the root."""
    return _MvnParams((2,), True, float(np.float32(a.epsilon)), True)


def _normalized(a: GroupNormAttrs, x: np.ndarray) -> np.ndarray:
    """(x - mean) / sqrt(var + epsilon) over each group, in float64, in the data's shape."""
    p = _group_norm_params(a, [x])
    return _mvn(_grouped(x.astype(np.float64), a.num_groups), p.axes, True, p.eps, p.inside).reshape(x.shape)


def _group_norm(a: GroupNormAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, scale, bias = _group_norm_inputs(a, args)
    with np.errstate(all="ignore"):
        return [(_normalized(a, x) * scale + bias).astype(x.dtype)]


def _group_norm_rounding() -> RoundingRule:
    """y = z s + b with z the group's normalised value: OpenVINO CPU computes z as MVN does with a two-pass variance
    (MVN's rule on the grouped data bounds z's distance dz in f32, its input errors and its ``statistical`` variant
    included), then a product and a sum in f32 (u of |z s| and of |y|), and rounds y into the output's type. Input
    errors: the data's move z (within dz), the scale's b_s and the bias's b_b move y by (|s| + b_s) dz + |z| b_s +
    b_b."""
    grouped_mvn = _mvn_rounding(_group_norm_params, two_pass=True)

    def variant(normalized: RoundingRule) -> RoundingRule:
        def rule(kernel: Kernel, a: GroupNormAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                 outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
            x, scale, bias = _group_norm_inputs(a, args)
            if not x.size:
                return [EXACT]
            grouped = _grouped(x, a.num_groups)
            moved_data = EXACT if is_exact(bounds[0]) else _grouped(np.broadcast_to(bounds[0], x.shape), a.num_groups)
            with np.errstate(all="ignore"):
                z = _normalized(a, x)
                (dz,) = normalized(kernel, a, [grouped], [moved_data], [_grouped(z, a.num_groups)])
                dz = np.broadcast_to(dz, grouped.shape).reshape(x.shape)
                d_scale, d_bias = (EXACT if is_exact(bounds[i]) else
                                   np.broadcast_to(bounds[i], args[i].shape).reshape(scale.shape) for i in (1, 2))
                u = ACCUMULATION_UNIT
                z_abs, s_abs = np.abs(z), np.abs(scale)
                moved = (1.0 + 2.0 * u) * (s_abs + d_scale) * dz + z_abs * d_scale + d_bias
                own = u * (z_abs * s_abs + np.abs(z * scale + bias)) + output_rounding(outputs[0])
                return [np.nan_to_num(moved + own, nan=np.inf)]

        return rule

    worst_case = variant(grouped_mvn)
    worst_case.statistical = variant(grouped_mvn.statistical)  # type: ignore[attr-defined]
    return worst_case


# --- NormalizeL2 -----------------------------------------------------------------------------------


def _normalize_l2_rule(a: NormalizeL2Attrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, axes = inputs
    if axes.shape is not None and len(axes.shape) > 1:
        raise OpValidationError(f"axes have rank {len(axes.shape)}: they must be a scalar or 1-D")
    if data.shape is not None and values[1] is not None:
        _axes_values(np.asarray(values[1]), len(data.shape), "axes")
    return [TensorType(data.element, data.shape)]


def _l2_axes(args: Sequence[np.ndarray]) -> tuple[int, ...]:
    x, axes = np.asarray(args[0]), np.asarray(args[1])
    if axes.ndim > 1:
        raise OpValidationError(f"axes have rank {axes.ndim}: they must be a scalar or 1-D")
    if x.dtype.kind != "f":
        raise UnsupportedError(f"NormalizeL2 of element type {x.dtype}: the reference computes floating-point "
                               "data only")
    return _axes_values(axes, x.ndim, "axes")


def _l2_norm(a: NormalizeL2Attrs, w: np.ndarray, picked: tuple[int, ...]) -> np.ndarray:
    """The divisor: sqrt of the sum of squares with eps added or as a floor (eps read as f32)."""
    total = np.sum(w * w, axis=picked, keepdims=True)
    eps = float(np.float32(a.eps))
    return np.sqrt(total + eps if a.eps_mode == "add" else np.maximum(total, eps))


def _normalize_l2(a: NormalizeL2Attrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    picked = _l2_axes(args)
    x = np.asarray(args[0])
    w = x.astype(np.float64)
    with np.errstate(all="ignore"):
        if not picked:
            return [np.where(w == 0, 0.0, 1.0).astype(x.dtype)]  # x / x, but 0 for 0 and 1 for NaN (CPU)
        return [(w / _l2_norm(a, w, picked)).astype(x.dtype)]


def _normalize_l2_fed(a: NormalizeL2Attrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """OpenVINO CPU's NormalizeL2 of axes fed when it runs (measured: its reference, not the kernel it compiles for
    Const axes): x over sqrt(sum + eps), or sqrt of the larger of eps and the sum (eps where the sum is NaN); over no
    axis each element by its own square (-2 is -1, where Const axes give 1)."""
    picked = _l2_axes(args)
    x = np.asarray(args[0])
    w = x.astype(np.float64)
    total = np.sum(w * w, axis=picked, keepdims=True)
    eps = float(np.float32(a.eps))
    with np.errstate(all="ignore"):
        norm = np.sqrt(total + eps if a.eps_mode == "add" else np.where(eps < total, total, eps))
        return [(w / norm).astype(x.dtype)]


def _normalize_l2_rounding(kernel: Kernel, a: NormalizeL2Attrs, args: Sequence[np.ndarray],
                           bounds: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """y = x / N, N the norm of n squares summed in f32 (gamma(n + 1) of N^2, then a square root): the divisor
    may be off by dN, and an input error b moves x by b and N by at most the norm of b (Minkowski), so y moves
    by (b + |y| dN) / (N - dN). Empty axes of Const values give 0 for 0 and 1 otherwise, exactly: either where x's
    interval holds 0 (fed ones, each element over its own norm, are bound as any axes are)."""
    picked = _l2_axes(args)
    y0 = np.asarray(outputs[0])
    if not picked and bool(np.all((y0 == 0) | (y0 == 1) | np.isnan(y0))):
        if is_exact(bounds[0]):
            return [EXACT]
        b = np.broadcast_to(bounds[0], np.shape(args[0]))
        return [((np.abs(np.asarray(args[0], np.float64)) <= b) & (b > 0)).astype(np.float64)]
    w = np.asarray(args[0], np.float64)
    n = int(np.prod([w.shape[i] for i in picked]))
    with np.errstate(all="ignore"):
        norm = _l2_norm(a, w, picked)
        d_norm = norm - np.sqrt(np.maximum(norm * norm * (1.0 - gamma(n + 1)), 0.0)) + ACCUMULATION_UNIT * norm
        d_x = ACCUMULATION_UNIT * np.abs(w)
        if not is_exact(bounds[0]):
            b = np.broadcast_to(bounds[0], w.shape)
            d_x = d_x + b
            d_norm = d_norm + np.sqrt(np.sum(b * b, axis=picked, keepdims=True))
        y = np.abs(np.asarray(outputs[0], np.float64))
        low = norm - d_norm
        moved = np.where(low > 0, (d_x + y * d_norm) / low, np.inf)
    return [moved + output_rounding(outputs[0])]


# --- GRN -------------------------------------------------------------------------------------------


def _grn_rule(a: GrnAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data = inputs[0]
    if data.shape is not None and not 2 <= len(data.shape) <= 4:
        raise OpValidationError(f"data of rank {len(data.shape)}: GRN takes rank 2, 3 or 4")
    return [TensorType(data.element, data.shape)]


#: GRN's NormalizeL2: along the channels (axis 1), bias added inside the square root.
_CHANNELS = np.array([1], np.int64)


def _as_l2(a: GrnAttrs) -> NormalizeL2Attrs:
    return NormalizeL2Attrs(eps=a.bias, eps_mode="add")


def _grn(a: GrnAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """x / sqrt(sum over the channels of x^2 + bias) as OpenVINO CPU's GRN node computes it: the squares summed and
    the root taken in float64, the norm rounded to f32 and x divided by it in f32 (f16 data widened first, the result
    rounded once into it); float64 data exactly, in float64."""
    x = np.asarray(args[0])
    _l2_axes([x, _CHANNELS])  # (floats only)
    norm = _l2_norm(_as_l2(a), x.astype(np.float64), (1,))
    if x.dtype == np.float64:
        return [x / norm]
    return [(x.astype(np.float32) / norm.astype(np.float32)).astype(x.dtype)]


def _grn_rounding(kernel: Kernel, a: GrnAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                  outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """NormalizeL2's rule over the channels with eps = bias added: an f32 implementation's norm is within gamma(C + 1)
    of the exact one's square (CPU's, summed in float64 and rounded to f32 once, is within one f32 rounding), its
    quotient one rounding; an input error moves the norm by at most the norm of the errors."""
    return _normalize_l2_rounding(kernel, _as_l2(a), [args[0], _CHANNELS], bounds[:1], outputs)


# --- LRN -------------------------------------------------------------------------------------------


def _lrn_rule(a: LrnAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, axes = inputs
    if axes.element is not None and (axes.element in REAL_TYPES or axes.element == "boolean"):
        raise OpValidationError(f"axes of element type {axes.element}: they must be integers")
    if axes.shape is not None and all(d.is_static for d in axes.shape):
        if len(axes.shape) != 1:
            raise OpValidationError(f"axes have rank {len(axes.shape)}: they must be 1-D")
        if data.shape is not None and axes.shape[0].lo > len(data.shape):
            raise OpValidationError(f"{axes.shape[0].lo} axes for data of rank {len(data.shape)}")
    if data.shape is not None:  # OpenVINO checks non-negative axes only, and takes [1] for axes it cannot fold
        rank = len(data.shape)
        axes_values = [1] if values[1] is None else [int(v) for v in np.asarray(values[1]).reshape(-1)]
        for v in axes_values:
            if v >= rank:
                raise OpValidationError(f"axis {v} is out of the range of a rank-{rank} input")
    return [TensorType(data.element, data.shape)]


def _window_sums(values: np.ndarray, axes: tuple[int, ...], size: int) -> np.ndarray:
    """Sums over LRN's windows: [i - (size-1)/2, i + (size-1)/2] along each axis, clipped to the data (a box
    sum along each axis, as the window is a product of intervals)."""
    half = (int(size) - 1) // 2
    total = values
    for ax in axes:
        n = total.shape[ax]
        c = np.cumsum(np.moveaxis(total, ax, 0), axis=0)
        c = np.concatenate([np.zeros((1, *c.shape[1:])), c])
        i = np.arange(n)
        lo, hi = np.maximum(i - half, 0), np.minimum(i + half + 1, n)
        total = np.moveaxis(c[hi] - c[lo], 0, ax)
    return total


def _lrn_inputs(a: LrnAttrs, args: Sequence[np.ndarray]) -> tuple[np.ndarray, tuple[int, ...], float]:
    """Data, the axes and alpha / size^len(axes), the scale of the window's sum of squares."""
    x, axes = np.asarray(args[0]), np.asarray(args[1])
    if x.dtype.kind != "f":
        raise UnsupportedError(f"LRN of element type {x.dtype}: the reference computes floating-point data only")
    picked = _axes_values(axes, x.ndim, "axes", negative=False)
    return x, picked, a.alpha / float(a.size) ** len(picked) if a.size else np.inf


def _lrn(a: LrnAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, picked, scale = _lrn_inputs(a, args)
    w = x.astype(np.float64)
    total = _window_sums(w * w, picked, a.size)
    with np.errstate(all="ignore"):
        return [(w / np.power(a.bias + scale * total, a.beta)).astype(x.dtype)]


def _lrn_rounding(kernel: Kernel, a: LrnAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                  outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """y = x B^-beta with B = bias + scale T, T the window's sum of m squares in f32 (gamma(m + 1) T), a few more
    roundings of B, and the power approximated (relative error APPROXIMATION (1 + |beta log B|)). An input error b
    moves T by the window sum of 2|x| b + b^2. With B within [B - dB, B + dB], y moves by at most b max(B^-beta)
    + |x| max|B'^-beta - B^-beta| over the two ends."""
    x, picked, scale = _lrn_inputs(a, args)
    w = np.abs(x.astype(np.float64))
    m = int(np.prod([x.shape[i] for i in picked])) if picked else 1
    total = _window_sums(w * w, picked, a.size)
    with np.errstate(all="ignore"):
        base = a.bias + scale * total
        d_total = gamma(min(a.size, m) ** max(len(picked), 1) + 1) * total
        b = EXACT if is_exact(bounds[0]) else np.broadcast_to(bounds[0], x.shape)
        if b is not EXACT:
            d_total = d_total + _window_sums(2.0 * w * b + b * b, picked, a.size)
        d_base = scale * d_total + 2.0 * ACCUMULATION_UNIT * (abs(a.bias) + scale * total)
        power = np.power(base, -a.beta)
        ends = [np.where(end > 0, np.power(end, -a.beta), np.inf) for end in (base - d_base, base + d_base)]
        spread = np.maximum(np.abs(ends[0] - power), np.abs(ends[1] - power))
        moved = b * np.maximum(ends[0], ends[1]) + w * spread
        y = np.abs(np.asarray(outputs[0], np.float64))
        own = y * (APPROXIMATION * (1.0 + np.abs(a.beta * np.log(base))) + ACCUMULATION_UNIT)
    return [np.nan_to_num(moved + own, nan=np.inf) + output_rounding(outputs[0])]


_BN_1, _BN_5 = (2, 0, 1, 3, 4), (0, 1, 2, 3, 4)  # the input indices of data, gamma, beta, mean, variance
BATCH_NORM_INFERENCE_1 = OpSpec("BatchNormInference", "BatchNormInference-1", BatchNormAttrs, (5, 5), 1,
                                _batch_norm_rule(_BN_1), _batch_norm(_BN_1), rounding=_batch_norm_rounding(_BN_1),
                                evaluates=never)
BATCH_NORM_INFERENCE_5 = OpSpec("BatchNormInference", "BatchNormInference-5", BatchNormAttrs, (5, 5), 1,
                                _batch_norm_rule(_BN_5), _batch_norm(_BN_5), rounding=_batch_norm_rounding(_BN_5),
                                evaluates=never)
MVN_1 = OpSpec("MVN", "MVN-1", Mvn1Attrs, (1, 1), 1, _same_shape, _mvn_kernel(_mvn1_params),
               rounding=_mvn_rounding(_mvn1_params), evaluates=never)
MVN_6 = OpSpec("MVN", "MVN-6", Mvn6Attrs, (2, 2), 1, _mvn6_rule, _mvn_kernel(_mvn6_params), value_inputs=(1,),
               rounding=_mvn_rounding(_mvn6_params), evaluates=on({"f32"}))
GROUP_NORMALIZATION_12 = OpSpec("GroupNormalization", "GroupNormalization-12", GroupNormAttrs, (3, 3), 1,
                                _group_norm_rule, _group_norm, rounding=_group_norm_rounding(), evaluates=never)
NORMALIZE_L2_1 = OpSpec("NormalizeL2", "NormalizeL2-1", NormalizeL2Attrs, (2, 2), 1, _normalize_l2_rule,
                        _normalize_l2_fed, value_inputs=(1,), rounding=_normalize_l2_rounding,
                        folded=_normalize_l2, evaluates=never)
GRN_1 = OpSpec("GRN", "GRN-1", GrnAttrs, (1, 1), 1, _grn_rule, _grn, rounding=_grn_rounding, evaluates=never)
LRN_1 = OpSpec("LRN", "LRN-1", LrnAttrs, (2, 2), 1, _lrn_rule, _lrn, value_inputs=(1,), rounding=_lrn_rounding,
               evaluates=never)
