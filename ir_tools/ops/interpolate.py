"""Interpolate-1, Interpolate-4 and Interpolate-11: attributes, shape rules and reference kernels.

Shape rules are OpenVINO's (interpolate_shape_inference.hpp, interpolate_base.cpp), checked against
the installed openvino by tests/ops/test_interpolate_conformance.py. Measured on openvino 2026.4.1,
beyond the specification:

1. Interpolate-4 checks the element types of sizes *and* scales whatever shape_calculation_mode
   says, but only the rank of the one it uses (and of axes); Interpolate-11 checks the type its mode
   needs and that every input after the data is 1-D. Data must be f32, f16, bf16, f64, i8, u8, i32 or
   i64.
2. pads_begin/pads_end are cut or zero-extended to the data rank, then added to every dim (bounds of
   intervals too); padding changes axes the op does not resize as well.
3. Axes must be in [0, rank) (negative axes are refused); repeated axes are allowed, the last value
   wins. sizes/scales may hold more values than there are axes (the extra ones are ignored), not
   fewer. Unknown axes give a fully dynamic shape of the data rank; unknown sizes/scales give dynamic
   dims on the axes.
4. sizes: -1 is a dynamic dim, any other negative value 0. scales: each bound is multiplied in
   float32 by ``scale + 1e-6`` (float32) and truncated toward zero; a scale of exactly 1 keeps the
   dim, an unbounded bound stays unbounded. A negative scale on an interval gives OpenVINO an empty
   interval (shown as ``-1..``): the rule does not re-infer such a layer. Sizes OpenVINO bounds but cannot
   compute (ops/bounds.py: a ShapeOf of dims that are not static) it reads as a partial shape, each axis the bounds'
   interval (``[1..10]`` gives ``1..10``; a lower bound below 0 it refuses); scales and axes so bounded are not
   modelled (the layer left to OpenVINO).
6. Interpolate-4 refuses bilinear_pillow and bicubic_pillow (after its element type checks).
5. Interpolate-1: the sizes of the (sorted, de-duplicated) axes replace those dims, pads do not change
   the shape; a sizes input with fewer values than axes makes OpenVINO read past it (garbage dims):
   the rule does not re-infer such a layer. Its mode is a free string (the reader accepts "area" or
   "NEAREST"); align_corners defaults to true.

Kernels compute what OpenVINO's reference (openvino/reference/interpolate.hpp) computes: source
coordinates and weights in float32 exactly as it does, the weighted sums in float64, rounded once.
Every mode is separable (an axis at a time): nearest picks, linear_onnx, linear (antialias false: a
triangle filter normalised over the taps inside the data) and cubic weigh. Interpolate-1 runs as the
Interpolate-4 OpenVINO converts it to (ConvertInterpolate1ToInterpolate4). bilinear_pillow and bicubic_pillow
weigh by OpenVINO CPU's tables (``pillow_taps``), on float data of rank 4 resized on its last two axes
without pads, where they were measured. Not executed: antialias, the pillow modes elsewhere, linear/cubic on
integers, Interpolate-1's "area".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .bounds import Bounds
from .intervals import INF, guarded, iv, size_dim, to_dim
from .rounding import EXACT, accumulation, any_differs, moves
from .spec import FLOATS, OpSpec, TensorType, never, on

MODES = ("nearest", "linear", "linear_onnx", "cubic", "bilinear_pillow", "bicubic_pillow")
SHAPE_MODES = ("sizes", "scales")
TRANSFORMS = ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners")
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")

DATA_TYPES = ("f32", "f16", "bf16", "f64", "i8", "u8", "i32", "i64")
SIZE_TYPES = ("i32", "i64", "u32", "u64")
SCALE_TYPES = ("f32", "f16", "bf16")
INTEGER_TYPES = ("i4", "i8", "i16", "i32", "i64", "u1", "u2", "u3", "u4", "u6", "u8", "u16", "u32", "u64")


NUMBER = A.Codec("a number", A.FLOAT.parse, lambda v: repr(float(v)))


@dataclass(frozen=True, slots=True)
class InterpolateAttrs:
    """Interpolate-4 and Interpolate-11; defaults are OpenVINO's for an omitted attribute."""

    mode: str = A.attr("mode", A.enum(*MODES), "nearest")
    shape_calculation_mode: str = A.attr("shape_calculation_mode", A.enum(*SHAPE_MODES), "sizes")
    coordinate_transformation_mode: str = A.attr("coordinate_transformation_mode", A.enum(*TRANSFORMS),
                                                 "half_pixel")
    nearest_mode: str = A.attr("nearest_mode", A.enum(*NEAREST_MODES), "round_prefer_floor")
    antialias: bool = A.attr("antialias", A.BOOL, False)
    pads_begin: tuple[int, ...] = A.attr("pads_begin", A.UINT_LIST, ())
    pads_end: tuple[int, ...] = A.attr("pads_end", A.UINT_LIST, ())
    cube_coeff: float = A.attr("cube_coeff", NUMBER, -0.75)


@dataclass(frozen=True, slots=True)
class Interpolate1Attrs:
    """Interpolate-1 (OpenVINO's v0): mode is any string (its CPU plugin compiles ``V1_MODES``), align_corners
    defaults to true."""

    axes: tuple[int, ...] = A.attr("axes", A.UINT_LIST, ())
    mode: str = A.attr("mode", A.STRING, "")
    align_corners: bool = A.attr("align_corners", A.BOOL, True)
    antialias: bool = A.attr("antialias", A.BOOL, False)
    pads_begin: tuple[int, ...] = A.attr("pads_begin", A.UINT_LIST, ())
    pads_end: tuple[int, ...] = A.attr("pads_end", A.UINT_LIST, ())


# --- shape rules -----------------------------------------------------------------------------------


def _check_element(t: TensorType, allowed: Sequence[str], what: str) -> None:
    if t.element is not None and t.element not in allowed:
        raise OpValidationError(f"{what} element type {t.element} is not one of {', '.join(allowed)}")


def _check_1d(t: TensorType, what: str) -> None:
    if t.shape is not None and len(t.shape) != 1:
        raise OpValidationError(f"{what} must be 1-D, got rank {len(t.shape)}")


def _resized(pads: Sequence[int], rank: int) -> tuple[int, ...]:
    return tuple(pads[:rank]) + (0,) * max(0, rank - len(pads))


def _padded(d: Dim, pad: int) -> Dim:
    """ov::util::dim::padded with a non-negative pad."""
    if pad == 0:
        return d
    lo, hi = iv(d)
    return to_dim((lo + pad, INF if hi == INF or hi + pad >= INF else hi + pad))


def _times(bound: int, scale: np.float32) -> int:
    return int(np.trunc(np.float32(bound) * scale))


def scaled_dim(d: Dim, scale: float) -> Dim | None:
    """ov::util::dim::scale (rule 4): both bounds times ``scale + 1e-6`` in float32, truncated. None for
    the empty interval OpenVINO makes of a negative scale on an interval (an upper bound below the lower)."""
    s = np.float32(scale)
    if s == np.float32(1.0):
        return d
    s = np.float32(s + np.float32(1e-6))
    hi = -1 if d.hi is None else _times(d.hi, s)
    if d.is_static:
        return size_dim(hi)
    lo = _times(d.lo, s)
    lo, hi = 0 if lo == -1 else lo, INF if hi == -1 else hi
    return None if hi < lo else Dim(max(lo, 0), None if hi == INF else max(hi, 0))


def _axes(value: np.ndarray | None, rank: int) -> list[int] | None:
    if value is None:
        return None
    axes = [int(v) for v in np.asarray(value).reshape(-1)]
    if any(not 0 <= a < rank for a in axes):
        raise OpValidationError(f"axes {axes} must lie in [0, {rank}) for a rank-{rank} input")
    return axes


def _values(value: np.ndarray, count: int, what: str) -> np.ndarray:
    flat = np.asarray(value).reshape(-1)
    if flat.size < count:
        raise OpValidationError(f"{what} has {flat.size} values, fewer than the {count} axes")
    return flat


def _rule(version: int):
    """Interpolate-4 (inputs data, sizes, scales[, axes]) or Interpolate-11 (data, sizes or scales[, axes])."""

    def infer(a: InterpolateAttrs, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
        data = inputs[0]
        scales_mode = a.shape_calculation_mode == "scales"
        _check_element(data, DATA_TYPES, "data")
        if version == 4:
            _check_element(inputs[1], SIZE_TYPES, "sizes")
            _check_element(inputs[2], SCALE_TYPES, "scales")
            axes_port, value_port = 3, 2 if scales_mode else 1
            if len(inputs) > 3:
                _check_element(inputs[3], SIZE_TYPES, "axes")
            if a.mode.endswith("_pillow"):
                raise OpValidationError(f"mode {a.mode} needs Interpolate-11 (opset11 or later)")
            _check_1d(inputs[value_port], "scales" if scales_mode else "sizes")
            if len(inputs) > 3:
                _check_1d(inputs[3], "axes")
        else:
            _check_element(inputs[1], SCALE_TYPES if scales_mode else SIZE_TYPES, "scales" if scales_mode else "sizes")
            axes_port, value_port = 2, 1
            if len(inputs) > 2:
                _check_element(inputs[2], SIZE_TYPES, "axes")
            for i, t in enumerate(inputs[1:], 1):
                _check_1d(t, "axes" if i == axes_port else "scales" if scales_mode else "sizes")
        if data.shape is None:
            return [TensorType(data.element, None)]
        value = values[value_port]
        if scales_mode and isinstance(value, Bounds) or len(values) > axes_port and isinstance(values[axes_port],
                                                                                             Bounds):
            return None  # (scales and axes of bounds not modelled: OpenVINO's reading of them not measured)
        rank = len(data.shape)
        pb, pe = _resized(a.pads_begin, rank), _resized(a.pads_end, rank)
        if len(inputs) > axes_port:
            axes = _axes(values[axes_port], rank)
            if axes is None:
                return [TensorType(data.element, (DYNAMIC,) * rank)]
        else:
            axes = list(range(rank))
        out = [_padded(d, b + e) for d, b, e in zip(data.shape, pb, pe, strict=True)]
        if value is None:
            for axis in axes:
                out[axis] = DYNAMIC
        elif isinstance(value, Bounds):  # sizes OpenVINO bounds, read as a partial shape (a lower bound below 0 it
            sizes = value.dims()  # refuses)
            if sizes is None:
                return None
            if len(sizes) < len(axes):
                raise OpValidationError(f"sizes has {len(sizes)} values, fewer than the {len(axes)} axes")
            for axis, size in zip(axes, sizes, strict=False):
                out[axis] = to_dim(size)
        elif scales_mode:
            for axis, s in zip(axes, _values(value, len(axes), "scales"), strict=False):
                scaled = scaled_dim(out[axis], float(s))
                if scaled is None:
                    return None  # OpenVINO's empty interval: no dims of ours say it
                out[axis] = scaled
        else:
            for axis, s in zip(axes, _values(value, len(axes), "sizes"), strict=False):
                out[axis] = size_dim(int(s))
        return [TensorType(data.element, tuple(out))]

    return infer


def _rule_1(a: Interpolate1Attrs, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    data, sizes = inputs
    if sizes.element is not None and sizes.element not in INTEGER_TYPES:
        raise OpValidationError(f"sizes element type {sizes.element} is not an integer type")
    if data.shape is None:
        return [TensorType(data.element, None)]
    rank = len(data.shape)
    axes = sorted(set(a.axes))
    if any(axis >= rank for axis in axes):
        raise OpValidationError(f"axes {list(a.axes)} must lie in [0, {rank}) for a rank-{rank} input")
    out = list(data.shape)
    if values[1] is None:
        for axis in axes:
            out[axis] = DYNAMIC
        return [TensorType(data.element, tuple(out))]
    flat = np.asarray(values[1]).reshape(-1)
    if flat.size < len(axes):
        return None  # OpenVINO reads past the sizes (rule 5): nothing to match
    for axis, v in zip(axes, flat, strict=False):
        out[axis] = size_dim(int(v))
    return [TensorType(data.element, tuple(out))]


# --- kernels ---------------------------------------------------------------------------------------

_F = np.float32


def source_coordinates(transform: str, out_len: int, in_len: int, scale: np.float32) -> np.ndarray:
    """The source coordinate of every output index on one axis, in float32 as OpenVINO computes it."""
    x = np.arange(out_len, dtype=_F)
    if scale == _F(1) or out_len == in_len:
        return x
    half = _F(0.5)
    with np.errstate(divide="ignore", invalid="ignore"):
        if transform == "pytorch_half_pixel":
            return (x + half) / scale - half if out_len > 1 else np.zeros(out_len, _F)
        if transform == "asymmetric":
            return x / scale
        if transform == "tf_half_pixel_for_nn":
            return (x + half) / scale
        if transform == "align_corners":
            return np.zeros(out_len, _F) if out_len == 1 else x * _F(in_len - 1) / _F(out_len - 1)
        return (x + half) / scale - half  # half_pixel


def nearest_indices(coords: np.ndarray, mode: str, downsample: bool, in_len: int) -> np.ndarray:
    """OpenVINO's nearest pixel of each float32 coordinate, clamped into the axis."""
    c = coords.astype(_F)
    with np.errstate(invalid="ignore"):
        away = _round_away(c)
        if mode == "round_prefer_floor":
            idx = np.where(c == np.trunc(c) + _F(0.5), np.floor(c), away)
        elif mode == "round_prefer_ceil":
            idx = away
        elif mode == "floor":
            idx = np.floor(c)
        elif mode == "ceil":
            idx = np.ceil(c)
        else:  # simple
            idx = np.ceil(c) if downsample else np.trunc(c)
    return np.clip(np.nan_to_num(idx, nan=0.0), 0, in_len - 1).astype(np.int64)


def _round_away(c: np.ndarray) -> np.ndarray:
    """std::round: halves away from zero (the fraction c - trunc(c) is exact in float32)."""
    t = np.trunc(c)
    return t + np.sign(c) * (np.abs(c - t) >= _F(0.5))


def _linear_onnx_weights(coords: np.ndarray, in_len: int) -> np.ndarray:
    c = np.clip(coords, _F(0), _F(in_len - 1)).astype(_F)
    i1 = np.minimum(c.astype(np.int64), in_len - 1)
    i2 = np.minimum(i1 + 1, in_len - 1)
    d1, d2 = np.abs(c - i1.astype(_F)), np.abs(c - i2.astype(_F))
    same = i1 == i2
    d1, d2 = np.where(same, _F(0.5), d1), np.where(same, _F(0.5), d2)
    w = np.zeros((len(c), in_len))
    rows = np.arange(len(c))
    np.add.at(w, (rows, i1), d2.astype(np.float64))
    np.add.at(w, (rows, i2), d1.astype(np.float64))
    return w


def _linear_weights(coords: np.ndarray, in_len: int) -> np.ndarray:
    """mode linear without antialias: triangle weights of the taps round(c)-2..round(c)+2 inside the axis,
    normalised to sum 1 (all zero when none has weight)."""
    w = np.zeros((len(coords), in_len))
    centre = _round_away(coords.astype(_F)).astype(np.int64)
    for k in range(-2, 3):
        tap = centre + k
        inside = (tap >= 0) & (tap < in_len)
        dz = coords.astype(_F) - tap.astype(_F)
        weight = np.maximum(_F(0), _F(1) - np.abs(dz)).astype(np.float64)
        rows = np.nonzero(inside)[0]
        np.add.at(w, (rows, tap[inside]), weight[inside])
    total = w.sum(axis=1, keepdims=True)
    return np.divide(w, total, out=np.zeros_like(w), where=total != 0)


def cubic_coefficients(s: np.ndarray, a: np.float32) -> np.ndarray:
    """OpenVINO's get_cubic_coeff, in float32: the weights of taps floor(c)-1 .. floor(c)+2."""
    s = np.abs(s.astype(_F))
    one, two = _F(1), _F(2)
    five, eight, four, three = _F(5), _F(8), _F(4), _F(3)
    c0 = ((a * (s + one) - five * a) * (s + one) + eight * a) * (s + one) - four * a
    c1 = ((a + two) * s - (a + three)) * s * s + one
    c2 = ((a + two) * (one - s) - (a + three)) * (one - s) * (one - s) + one
    c3 = ((a * (two - s) - five * a) * (two - s) + eight * a) * (two - s) - four * a
    return np.stack([c0, c1, c2, c3], axis=1)


def _cubic_weights(coords: np.ndarray, in_len: int, a: float) -> np.ndarray:
    c = coords.astype(_F)
    base = np.floor(c).astype(np.int64)
    coeffs = cubic_coefficients(c - base.astype(_F), _F(a)).astype(np.float64)
    w = np.zeros((len(c), in_len))
    rows = np.arange(len(c))
    for k in range(4):
        np.add.at(w, (rows, np.clip(base + k - 1, 0, in_len - 1)), coeffs[:, k])
    return w


#: The pillow modes: Pillow's resampling filters, which Interpolate-4 does not have.
PILLOW_MODES = ("bilinear_pillow", "bicubic_pillow")


def _pillow_filter(mode: str, m: np.float32) -> np.float32:
    """The filter's weight at distance ``m`` (in input elements over the filter's scale), as OpenVINO CPU computes
    it: bicubic's coefficient is -0.5 whatever cube_coeff says, its inner piece computed in float64."""
    m = abs(m)
    if mode == "bilinear_pillow":
        return _F(1) - m if m < 1 else _F(0)
    a = _F(-0.5)
    if m < 1:
        d = float(m)
        return _F(((float(a) + 2.0) * d - (float(a) + 3.0)) * d * d + 1.0)
    return (((m - _F(5)) * m + _F(8)) * m - _F(4)) * a if m < 2 else _F(0)


def _pillow_radius(mode: str, out_len: int, in_len: int) -> np.float32:
    return _F((1 if mode == "bilinear_pillow" else 2) * max(_F(1), _F(1) / (_F(out_len) / _F(in_len))))


def pillow_taps(mode: str, out_len: int, in_len: int) -> tuple[np.ndarray, np.ndarray]:
    """[out_len, K] input indices and float32 weights of a pillow mode on one axis, bit for bit OpenVINO CPU's
    (measured on 2026.4 by resizing identity matrices): output o weighs the input elements from round(centre -
    radius) to round(centre + radius) inside the axis (its window, every one multiplied, a weight of 0 too), by
    Pillow's filter centred on ``(o + 0.5) / (out_len / in_len)`` whatever the scales and
    coordinate_transformation_mode say, the radius the filter's support times the downscale (at least 1), each weight
    divided by their float32 sum. A row shorter than the longest window K ends in index ``in_len`` of weight 0."""
    scale = _F(out_len) / _F(in_len)
    stretch = max(_F(1), _F(1) / scale)
    radius = _pillow_radius(mode, out_len, in_len)
    rows = []
    for o in range(out_len):
        centre = _F(_F(o) + _F(0.5)) / scale
        first = max(int(_F(centre - radius) + _F(0.5)), 0)
        end = min(int(_F(centre + radius) + _F(0.5)), in_len)
        taps = [_pillow_filter(mode, _F((float(_F(_F(i) - centre)) + 0.5) * float(_F(1) / stretch)))
                for i in range(first, end)]
        total = _F(0)
        for t in taps:
            total = _F(total + t)
        rows.append((first, [_F(t / total) if total != 0 else t for t in taps]))
    longest = max((len(taps) for _, taps in rows), default=0)
    indices = np.full((out_len, longest), in_len, np.int64)
    weights = np.zeros((out_len, longest), _F)
    for o, (first, taps) in enumerate(rows):
        indices[o, :len(taps)] = np.arange(first, first + len(taps))
        weights[o, :len(taps)] = taps
    return indices, weights


def pillow_unmeasured(shape: Sequence[int], out_shape: Sequence[int], pads: Sequence[int], dtype: np.dtype,
                      ) -> str | None:
    """Why a pillow mode's layer is not one measured (float data of rank 4, only the last two axes resized, no
    pads), in words; None where it is."""
    if np.dtype(dtype).kind != "f":
        return f"its data is {np.dtype(dtype)}: OpenVINO rounds each pass of a pillow mode on integers"
    if len(shape) != 4:
        return f"its data is of rank {len(shape)}, not 4"
    if any(pads):
        return "it has pads"
    if list(shape[:2]) != list(out_shape[:2]):
        return "it resizes an axis other than the last two"
    return None


def weight_matrix(mode: str, transform: str, out_len: int, in_len: int, scale: np.float32, cube_coeff: float,
                  nearest_mode: str = "round_prefer_floor") -> np.ndarray:
    """[out_len, in_len]: each output element of one axis as a weighted sum of the input elements."""
    coords = source_coordinates(transform, out_len, in_len, _F(scale))
    if mode == "nearest":
        w = np.zeros((out_len, in_len))
        w[np.arange(out_len), nearest_indices(coords, nearest_mode, _F(scale) < _F(1), in_len)] = 1.0
        return w
    if mode == "linear_onnx":
        return _linear_onnx_weights(coords, in_len)
    if mode == "linear":
        return _linear_weights(coords, in_len)
    return _cubic_weights(coords, in_len, cube_coeff)


def interpolate(x: np.ndarray, out_shape: Sequence[int], axes: Sequence[int], scales: Sequence[float], mode: str,
                transform: str, nearest_mode: str, cube_coeff: float, pads_begin: Sequence[int],
                pads_end: Sequence[int], absolute: bool = False) -> np.ndarray:
    """Interpolate ``x`` (padded with zeros first) to ``out_shape``, ``scales`` (float32) per axis in ``axes``;
    ``absolute``: with the weights' magnitudes (each output's sum of |weight| x over its taps)."""
    if len(set(axes)) != len(axes):
        raise UnsupportedError(f"Interpolate with repeated axes {list(axes)}")
    if mode in PILLOW_MODES:
        return _pillow(x, out_shape, list(pads_begin) + list(pads_end), mode, absolute)
    if mode not in ("nearest", "linear", "linear_onnx", "cubic"):
        raise UnsupportedError(f"Interpolate mode {mode}")
    if mode != "nearest" and x.dtype.kind != "f":
        raise UnsupportedError(f"Interpolate mode {mode} on {x.dtype} data")
    rank = x.ndim
    pb, pe = _resized(pads_begin, rank), _resized(pads_end, rank)
    y = np.pad(x, list(zip(pb, pe, strict=True))) if any(pb) or any(pe) else x
    if mode != "nearest":
        y = y.astype(np.float64)
    for axis, scale in zip(axes, scales, strict=True):
        in_len, out_len = y.shape[axis], out_shape[axis]
        if out_len == in_len and mode == "nearest" and _F(scale) == _F(1):
            continue
        if in_len == 0:
            raise OpValidationError(f"cannot interpolate an empty axis {axis} to length {out_len}")
        if mode == "nearest":
            coords = source_coordinates(transform, out_len, in_len, _F(scale))
            y = np.take(y, nearest_indices(coords, nearest_mode, _F(scale) < _F(1), in_len), axis=axis)
            continue
        w = weight_matrix(mode, transform, out_len, in_len, _F(scale), cube_coeff)
        if absolute:  # (a tap clipped onto another's pixel adds its weight there first: |w| of the sum)
            w = np.abs(w)
        y = np.moveaxis(np.tensordot(w, y, axes=([1], [axis])), 0, axis)
    with np.errstate(over="ignore", invalid="ignore"):
        return y.astype(x.dtype)


def _pillow(x: np.ndarray, out_shape: Sequence[int], pads: Sequence[int], mode: str, absolute: bool) -> np.ndarray:
    """A pillow mode: each of the last two axes whose length changes weighed by ``pillow_taps`` (every element of an
    output's window multiplied, an inf or NaN reaching only the outputs whose windows hold it; an axis of the same
    length copied, whatever its scale), in float64, rounded once."""
    unmeasured = pillow_unmeasured(x.shape, out_shape, pads, x.dtype)
    if unmeasured is not None:
        raise UnsupportedError(f"Interpolate mode {mode} where {unmeasured}")
    y = x.astype(np.float64)
    for axis in (3, 2):
        if out_shape[axis] != y.shape[axis]:
            indices, weights = pillow_taps(mode, out_shape[axis], y.shape[axis])
            w = np.abs(weights) if absolute else weights
            padded = np.concatenate([y, np.zeros_like(np.take(y, [0], axis))], axis)  # (index past the end: 0)
            with np.errstate(invalid="ignore"):  # (0 x inf inside a window: NaN, as on OpenVINO)
                y = (np.take(padded, indices, axis) * w.astype(np.float64).reshape(w.shape + (1,) * (3 - axis))
                     ).sum(axis=axis + 1)
    return y.astype(x.dtype)


def _longest_sum(a: InterpolateAttrs | Interpolate1Attrs, args: Sequence[np.ndarray],
                  outputs: Sequence[np.ndarray]) -> int:
    """The longest sum of an output: 4 taps per axis, a pillow mode's window on each axis it resizes."""
    if a.mode not in PILLOW_MODES:
        return 4 ** np.ndim(args[0])
    lengths = zip(np.shape(outputs[0]), np.shape(args[0]), strict=True)
    return int(np.prod([pillow_taps(a.mode, n, m)[0].shape[1] for n, m in lengths if n != m]))


def _static_type(v: np.ndarray) -> TensorType:
    return TensorType(None, tuple(Dim(n, n) for n in np.shape(v)))


def resize_plan(version: int, a: InterpolateAttrs, args: Sequence[np.ndarray]) -> tuple[list[int], list[int],
                                                                                       list[np.float32]]:
    """(output shape, axes, float32 scales per axis) of an Interpolate-4/11 on these inputs; in sizes
    mode the scale is output / padded input, as OpenVINO's evaluate computes it."""
    x = np.asarray(args[0])
    (t,) = _rule(version)(a, [_static_type(v) for v in args], list(args))
    if not all(d.is_static for d in t.shape):
        raise OpValidationError(f"the output shape {[str(d) for d in t.shape]} is not static")
    out = [d.lo for d in t.shape]
    axes_port, value_port = (3, 2 if a.shape_calculation_mode == "scales" else 1) if version == 4 else (2, 1)
    axes = [int(v) for v in np.asarray(args[axes_port]).reshape(-1)] if len(args) > axes_port else list(range(x.ndim))
    rank = x.ndim
    padded = [n + b + e for n, b, e in zip(x.shape, _resized(a.pads_begin, rank), _resized(a.pads_end, rank),
                                         strict=True)]
    if a.shape_calculation_mode == "scales":
        scales = [_F(v) for v in np.asarray(args[value_port], np.float32).reshape(-1)[:len(axes)]]
    else:
        scales = [_F(out[axis]) / _F(padded[axis]) if padded[axis] else _F(0) for axis in axes]
    return out, axes, scales


def _kernel(version: int, absolute: bool = False):
    """Interpolate-4 or -11; ``absolute``: with the weights' magnitudes (``interpolate``)."""

    def run(a: InterpolateAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        if a.antialias:
            raise UnsupportedError("Interpolate with antialias")
        out, axes, scales = resize_plan(version, a, args)
        return [interpolate(np.asarray(args[0]), out, axes, scales, a.mode, a.coordinate_transformation_mode,
                            a.nearest_mode, a.cube_coeff, a.pads_begin, a.pads_end, absolute)]

    return run


def v4_attrs_of(a: Interpolate1Attrs, rank: int) -> tuple[str, str]:
    """(mode, coordinate_transformation_mode) of the Interpolate-4 OpenVINO converts an Interpolate-1 to."""
    mode = {"nearest": "nearest", "cubic": "cubic", "linear_onnx": "linear_onnx"}.get(a.mode)
    if a.mode == "linear":
        mode = "linear_onnx" if rank < 5 else "linear" if rank == 5 else None
    if mode is None:
        raise UnsupportedError(f"Interpolate-1 mode '{a.mode}' on a rank-{rank} input")
    transform = "asymmetric"
    if a.align_corners:
        transform = "align_corners"
    elif mode in ("linear", "linear_onnx") and not any(a.pads_begin) and not any(a.pads_end) and \
            not (rank == 4 and set(a.axes) == {2, 3}):
        transform = "half_pixel"
    return mode, transform


def _run_1(a: Interpolate1Attrs, args: Sequence[np.ndarray], absolute: bool = False) -> list[np.ndarray]:
    x = np.asarray(args[0])
    out_t = _rule_1(a, [_static_type(x), _static_type(args[1])], [None, np.asarray(args[1])])
    if out_t is None or not all(d.is_static for d in out_t[0].shape):
        raise OpValidationError("Interpolate-1 sizes do not give a static output shape")
    if any(a.pads_begin) or any(a.pads_end):
        raise UnsupportedError("Interpolate-1 with pads")
    if a.antialias:
        raise UnsupportedError("Interpolate with antialias")
    out = [d.lo for d in out_t[0].shape]
    mode, transform = v4_attrs_of(a, x.ndim)
    axes = sorted(set(a.axes))
    scales = [_F(out[axis]) / _F(x.shape[axis]) if x.shape[axis] else _F(0) for axis in axes]
    return [interpolate(x, out, axes, scales, mode, transform, "simple", -0.75, (), (), absolute)]


def _absolute_1(a: Interpolate1Attrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return _run_1(a, args, absolute=True)


_MOVES = moves(0)
_SUMS = accumulation(_longest_sum, data=(0,))


def _rounding(version: int):
    """Nearest picks (exact); the other modes are weighted sums of at most 4 taps per axis (a pillow mode: its window
    on each axis it resizes, ``pillow_taps``). Cubic's and bicubic_pillow's weights are not all positive: their
    sums of |terms|, and what the data's errors b move an output by (at most sum |w| b, reached with each error of
    its weight's sign), are those of the weights' magnitudes, the kernel with |w| in place of w; the signed weights'
    sum of b can be far smaller, or negative (b larger where w < 0: 69 times below the change, sampled
    by tests/ops/test_rule_sampling.py). Linear and linear_onnx weigh by positive weights: the kernel is that sum.

    Where a size, scale or axis the kernel reads is inexact (a float's bound above 0, an integer's of 1 or more), it
    may change the output's shape, move source coordinates across a nearest pixel's boundary (asymmetric, scale 2:
    coordinates on exact integers and halves) or move the weights: no bound (inf)."""
    absolute = _absolute_1 if version == 1 else _kernel(version, absolute=True)

    def rule(kernel, a, args: Sequence[np.ndarray], bounds, outputs) -> list[np.ndarray]:
        if version == 1:
            mode, read = v4_attrs_of(a, np.ndim(args[0]))[0], (1,)
        else:
            mode = a.mode
            read = (1, 2) if version == 11 else (2 if a.shape_calculation_mode == "scales" else 1, 3)
        if any_differs(args, bounds, read):
            return [np.full((), np.inf)]
        bounds = [bounds[0], *[EXACT] * (len(bounds) - 1)]  # (an input the mode does not read may differ)
        if mode == "nearest":
            return _MOVES(kernel, a, args, bounds, outputs)
        return _SUMS(absolute if mode in ("cubic", "bicubic_pillow") else kernel, a, args, bounds, outputs)

    return rule


#: The Interpolate-1 modes OpenVINO's CPU plugin compiles (matched exactly: "NEAREST" it does not).
V1_MODES = ("nearest", "linear", "linear_onnx", "cubic")


def _v1_mode(a: Interpolate1Attrs, read: frozenset[int]) -> str | None:
    """OpenVINO's reader reads any mode, none where it is omitted (a string, not an enum), but its CPU plugin
    compiles those of ``V1_MODES`` only ("Cannot fallback on ngraph reference implementation"; measured on 2026.4.1
    for ranks 3 to 5: "area", "bilinear", "NEAREST", "" refused)."""
    if a.mode in V1_MODES:
        return None
    return (f"mode '{a.mode}': OpenVINO reads it, but its CPU plugin cannot compile the layer, whose mode must be one "
            f"of {', '.join(V1_MODES)} (in lower case)")


def _v1_without_axes(a: Interpolate1Attrs, inputs: Sequence[TensorType], values) -> str | None:
    """Interpolate-1 without axes (omitted or empty): OpenVINO reads it as resizing no axis, but its CPU plugin cannot
    compile it where the sizes hold more than one value (ConvertInterpolate1ToInterpolate4 broadcasts them against
    the scales of no axes: "broadcast_merge_into" fails; measured on 2026.4, sizes a Const or a Parameter; of one
    value it compiles, and runs)."""
    sizes = inputs[1].shape
    if a.axes or sizes is None or len(sizes) != 1 or not sizes[0].is_static or sizes[0].lo <= 1:
        return None
    return (f"no axes, and {sizes[0].lo} sizes: OpenVINO reads it as resizing no axis, but its CPU plugin cannot "
            "compile it (its conversion to Interpolate-4 fails)")


INTERPOLATE_1 = OpSpec("Interpolate", "Interpolate-1", Interpolate1Attrs, (2, 2), 1, guarded(_rule_1), _run_1, (1,),
                       rounding=_rounding(1), crashes=_v1_mode, cpu_refuses=_v1_without_axes, evaluates=never)
INTERPOLATE_4 = OpSpec("Interpolate", "Interpolate-4", InterpolateAttrs, (3, 4), 1, guarded(_rule(4)), _kernel(4),
                       (1, 2, 3), rounding=_rounding(4), reads_bounds=True, evaluates=on(FLOATS | {"i8", "u8"}))
INTERPOLATE_11 = OpSpec("Interpolate", "Interpolate-11", InterpolateAttrs, (2, 3), 1, guarded(_rule(11)), _kernel(11),
                        (1, 2), rounding=_rounding(11), reads_bounds=True, evaluates=on(FLOATS | {"i8", "u8"}))
