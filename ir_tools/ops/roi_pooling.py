"""ROIPooling-2 and PSROIPooling-1: attributes, shape rules, kernels and rounding rules.

(Below: ROIPooling, then PSROIPooling.)

ROIPooling pools each region of interest ``rois[r] = (batch, x1, y1, x2, y2)`` of feature map [N, C, H, W] into
[R, C, pooled_h, pooled_w]. ``max``: the corners times spatial_scale rounded to whole pixels, the region split into
bins of whole pixels, each bin's largest element. ``bilinear``: the corners are in [0, 1] (spatial_scale unused), and
each output is one bilinear sample of the image at the bin's place. OpenVINO's sources: core/shape_inference
roi_pooling_shape_inference.hpp and the CPU plugin's nodes/roi_pooling.cpp (a JIT kernel on x86; its geometry is C++).
ROIPooling written "opset1" is read as opset2's (``opsets._READ_FROM``). Checked against the installed openvino by
tests/ops/test_roi_pooling_conformance.py.

Measured on openvino 2026.4.1 (CPU), beyond the specification:

- Attributes: the reader reads ``output_roi`` (a list; ``output_size``, which the serializer also writes, is not read)
  and then ``pooled_h`` and ``pooled_w`` over its two values: any of the three may be omitted while the others give
  both sizes; a list of other than 2 values is refused (an empty one with pooled_h or pooled_w given crashes the
  reader: a segmentation fault). Sizes of 0 are refused; pooled -1 is a size_t's -1, a dynamic dim.
  spatial_scale must be a normal positive f32 (omitted it is 0: refused; 1e-40, inf and NaN refused); method max
  (its default) or bilinear, in that spelling.
- max: each corner is f32(coordinate) times the scale in double, rounded half away from zero (C's round) to an
  int; the region is at least 1 pixel a side (x2 - x1 + 1); bin i of P over L pixels covers [floor(i L / P),
  ceil((i + 1) L / P)) from the start, clamped to the image; an empty bin gives 0. The JIT kernel starts from the
  bin's first element (row-major) and replaces it with a strictly greater one: ties keep the first, a NaN first
  stays, a later NaN is never taken.
- bilinear: the place of output (i, j) along y is, for pooled_h > 1, i ((y2 - y1)(H - 1) / (pooled_h - 1)) +
  y1 (H - 1), or y2 (H - 1) for the last i (each step an f32 operation); for pooled_h 1, 0.5 (y1 + y2) (H - 1) in
  double, rounded to f32. A place below 0 or past H - 1 on either axis gives 0; else the pixels floor and ceil of it
  (ceil clamped to the image), and CPU lerps in f32 with FMAs: along x on both rows, then along y. The kernel takes
  the exact lerps of CPU's f32 places; its bound: each lerp a + (b - a) t (t in [0, 1]) computed as
  fma(fl(b - a), t, a) is within u |b - a| (1 + u) + u |a + (b - a) t| of the exact value, under
  gamma(3) 3 M for M the largest |pixel| of the four, and the outer lerp carries its inputs' errors with weights
  1 - t and t: 6 gamma(4) M in all (a non-FMA implementation stays within it too), plus both sides' output rounding.
- f16 data is computed in f32 (rois read as f32), rounded once into f16. A batch index is the roi's first value cast
  to int (truncated): the rois from the first -1 on give 0s; one outside [0, N) CPU reads out of bounds: the kernel
  refuses it (so does it rois of NaN or infinities, whose places CPU casts to int).
- On 180 seeded cases: max 15,313 elements bit for bit (f32 and f16, NaN, infinities and ties among the values);
  bilinear 7,107 of 9,982 f32 elements CPU's to the bit, the others within 0.094 of the bound; f16 all equal.

PSROIPooling pools [N, output_dim bins, H, W] into [R, output_dim, group_size, group_size] (nodes/psroi_pooling.cpp,
C++ throughout). Measured on openvino 2026.4.1, beyond the specification:

- Attributes omitted read as 0 (output_dim, group_size, spatial_scale, spatial_bins_x and _y) and mode as "" (both
  refused but the bins in average mode); mode is compared as written ("BILINEAR" refused). output_dim and group_size
  are size_t: a group_size of -1 passes (its square wraps to 1) and makes the output's last two dims dynamic (the
  rule answers so; the kernel refuses it). Data and rois may be of different real types (a dynamic one refused).
- average: output (c, i, j) is the mean of channel (c g + i) g + j over its bin: the corners rounded half away from
  zero (x2 + 1 and y2 + 1 first) times the scale in f32, a region of at least 0.1 a side, bin i from floor(i size +
  start) to ceil((i + 1) size + start), clamped to the image; CPU sums the bin row by row in f32 and divides by its
  count; an empty bin gives 0.
- bilinear: the corners times the scale are the region in [0, 1] of the image; each of spatial_bins_y x
  spatial_bins_x sub-bins gives one bilinear sample of channel c + (k_y bins_x + k_x) output_dim at place (i, j) of
  it (as ROIPooling's, but without the last place's special case, and 0.5 (lo + hi)(L - 1) in f32 for g 1); off the
  image a sample adds 0; CPU lerps without FMAs, sums the samples in f32 and divides by their count.
- f16 data is computed in f32, rounded once. Batch indices as ROIPooling's (from the first -1 on, 0s).
- On 120 seeded cases: average 1,030 of 1,130 f32 elements CPU's to the bit, the others within 0.17 of the bound;
  bilinear 490 of 771, within 0.067; f16 within 0.53 (one element off by an f16 rounding).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .arithmetic import merge_dim
from .attrs import FLOAT
from .rounding import any_differs, gamma, is_exact, moves, output_rounding
from .spec import Kernel, OpSpec, TensorType, never

METHODS = ("max", "bilinear")
PS_MODES = ("average", "bilinear")
_F32 = np.float32
_I32_MAX = 2**31 - 1


@dataclass(frozen=True, slots=True)
class ROIPoolingAttrs:
    """ROIPooling-2: ``output_roi`` read first, ``pooled_h`` and ``pooled_w`` over it (None: output_roi's); method
    is a string the shape rule matches in this spelling only."""

    output_roi: tuple[int, ...] = A.attr("output_roi", A.UINT_LIST, (0, 0))
    pooled_h_attr: int | None = A.attr("pooled_h", A.INT, None)
    pooled_w_attr: int | None = A.attr("pooled_w", A.INT, None)
    spatial_scale: float = A.attr("spatial_scale", FLOAT, 0.0)
    method: str = A.attr("method", A.STRING, "max")
    #: Written by OpenVINO's serializer beside output_roi, which its reader reads instead: known, so that check does
    #: not call it unknown, and not read.
    output_size: str = A.attr("output_size", A.STRING, "")

    @property
    def pooled(self) -> tuple[int, int]:
        """(pooled_h, pooled_w) as OpenVINO's size_t reads them, as int64 (-1: dynamic)."""
        if len(self.output_roi) != 2:
            raise OpValidationError(f"output_roi holds {len(self.output_roi)} values, expected 2 (pooled_h, pooled_w)")
        h = self.output_roi[0] if self.pooled_h_attr is None else self.pooled_h_attr
        w = self.output_roi[1] if self.pooled_w_attr is None else self.pooled_w_attr
        return _int64_of_size(h), _int64_of_size(w)


def _int64_of_size(value: int) -> int:
    """A size_t read from an integer, as int64."""
    return (value + 2**63) % 2**64 - 2**63


def _choice(what: str, value: str, choices: tuple[str, ...]) -> None:
    """A string attribute OpenVINO compares as written (not an enum: no other case)."""
    if value not in choices:
        raise OpValidationError(f"{what} must be {' or '.join(choices)}, got '{value}'")


def _pooled_dim(v: int) -> Dim:
    return DYNAMIC if v == -1 else Dim(v, v)


def _scale(a: Any) -> np.float32:
    """spatial_scale as the op holds it (an f32), refused as OpenVINO refuses it: normal and positive."""
    with np.errstate(all="ignore"):
        s = _F32(a.spatial_scale)
    if not (np.isfinite(s) and s >= np.finfo(np.float32).tiny):
        raise OpValidationError(f"spatial_scale must be a positive normal f32, got {a.spatial_scale}")
    return s


def _real_pair(data: TensorType, rois: TensorType) -> str | None:
    """The output element type: data and rois of one real type (a dynamic one is refused: it is not real)."""
    if data.element not in REAL_TYPES or data.element != rois.element:
        raise OpValidationError(f"feature maps and rois must be of one floating point type, got {data.element} and "
                                f"{rois.element}")
    return data.element


def _rois_count(rois: TensorType, width: int) -> Dim:
    if rois.shape is None:
        return DYNAMIC
    if len(rois.shape) != 2:
        raise OpValidationError(f"rois must be 2-D, got rank {len(rois.shape)}")
    if merge_dim(rois.shape[1], Dim(width, width)) is None:
        raise OpValidationError(f"rois must hold {width} values a row, got {rois.shape[1]}")
    return rois.shape[0]


def _feature_map(data: TensorType) -> Dim:
    if data.shape is not None and len(data.shape) != 4:
        raise OpValidationError(f"feature maps must be 4-D, got rank {len(data.shape)}")
    return DYNAMIC if data.shape is None else data.shape[1]


# --- ROIPooling ----------------------------------------------------------------------------------


def _roi_infer(a: ROIPoolingAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, rois = inputs
    _choice("method", a.method, METHODS)
    element = _real_pair(data, rois)
    channels = _feature_map(data)
    count = _rois_count(rois, 5)
    ph, pw = a.pooled
    if ph == 0 or pw == 0 or ph < -1 or pw < -1:
        raise OpValidationError(f"pooled_h and pooled_w must be positive, got {ph} and {pw}")
    _scale(a)
    return [TensorType(element, (count, channels, _pooled_dim(ph), _pooled_dim(pw)))]


def round_half_away(v: np.ndarray) -> np.ndarray:
    """C's round of doubles: half away from zero, exactly."""
    whole = np.trunc(v)
    return whole + np.sign(v) * (np.abs(v - whole) >= 0.5)


def roi_operands(args: Sequence[np.ndarray], width: int) -> tuple[np.ndarray, np.ndarray]:
    x, rois = np.asarray(args[0]), np.asarray(args[1])
    if x.ndim != 4 or rois.ndim != 2 or rois.shape[1] != width:
        raise OpValidationError(f"feature maps {list(x.shape)} and rois {list(rois.shape)}: needs [N, C, H, W] and "
                                f"[R, {width}]")
    if x.dtype.kind != "f" or rois.dtype.kind != "f":
        raise OpValidationError(f"{x.dtype} feature maps and {rois.dtype} rois: they must be floating point")
    return x, rois


def roi_batches(rois: np.ndarray, n: int) -> np.ndarray:
    """Each roi's batch index (its first value cast to int), -1 from the first -1 on; refused outside [0, N)."""
    with np.errstate(all="ignore"):
        first = rois[:, 0].astype(_F32)
    if not np.all(np.isfinite(first)) or np.any(np.abs(first) >= 2.0**31):
        raise UnsupportedError(f"batch indices {first.tolist()[:4]}: not ints")
    batch = np.trunc(first).astype(np.int64)
    stop = np.flatnonzero(batch == -1)
    if stop.size:
        batch[stop[0]:] = -1
    bad = [int(b) for b in batch if b != -1 and not 0 <= b < n]
    if bad:
        raise UnsupportedError(f"batch indices {bad[:4]} outside [0, {n}): OpenVINO CPU reads out of the feature maps")
    return batch


def _max_bins(start: int, end: int, pooled: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """[pooled] bin starts and ends along one axis of a region [start, end] of whole pixels, clamped to the image."""
    size = max(end - start + 1, 1)
    if size * (pooled + 1) > _I32_MAX:
        raise UnsupportedError(f"a region of {size} pixels in {pooled} bins overflows CPU's int arithmetic")
    i = np.arange(pooled, dtype=np.int64)
    lo, hi = (i * size) // pooled, -((-(i + 1) * size) // pooled)
    return np.clip(lo + start, 0, length), np.clip(hi + start, 0, length)


def _corners(rois: np.ndarray, scale: np.float32) -> np.ndarray:
    """[R, 4] (x1, y1, x2, y2) as CPU's max rounds them: f32 coordinates times the scale in double, C's round."""
    scaled = round_half_away(rois[:, 1:].astype(_F32).astype(np.float64) * float(scale))
    if np.any(~np.isfinite(scaled)) or np.any(np.abs(scaled) > 2**30):
        raise UnsupportedError("roi corners beyond CPU's int range")
    return scaled.astype(np.int64)


def _largest(image: np.ndarray, rows: tuple[int, int], cols: tuple[int, int]) -> np.ndarray:
    """[C]: the first largest element of image[:, rows, cols] in row-major order (strictly greater replaces)."""
    block = image[:, rows[0]:rows[1], cols[0]:cols[1]].reshape(image.shape[0], -1)
    best = block[:, 0].copy()
    for k in range(1, block.shape[1]):
        np.copyto(best, block[:, k], where=block[:, k] > best)
    return best


def _roi_max(a: ROIPoolingAttrs, x: np.ndarray, rois: np.ndarray, batch: np.ndarray) -> np.ndarray:
    ph, pw = a.pooled
    n, c, h, w = x.shape
    out = np.zeros((len(rois), c, ph, pw), x.dtype)
    corners = _corners(rois, _scale(a))
    for r in range(len(rois)):
        if batch[r] < 0:
            continue
        x1, y1, x2, y2 = (int(v) for v in corners[r])
        hs, he = _max_bins(y1, y2, ph, h)
        ws, we = _max_bins(x1, x2, pw, w)
        for i in range(ph):
            for j in range(pw):
                if he[i] > hs[i] and we[j] > ws[j]:
                    out[r, :, i, j] = _largest(x[batch[r]], (hs[i], he[i]), (ws[j], we[j]))
    return out


@dataclass(frozen=True, slots=True)
class _Places:
    """Per roi and output, CPU's bilinear sample: whether it lies on the image, its four pixels and its weights."""

    inside: np.ndarray  # [R, P] bool, along one axis
    low: np.ndarray  # [R, P] int
    high: np.ndarray
    t: np.ndarray  # [R, P] f32, the place minus low


def _places(start: np.ndarray, end: np.ndarray, pooled: int, length: int) -> _Places:
    """One axis of every roi's bilinear samples in ROIPooling, in f32 operation by operation as CPU computes them."""
    span = _F32(length - 1)
    with np.errstate(all="ignore"):
        if pooled > 1:
            step = ((end - start) * span) / _F32(pooled - 1)
            i = np.arange(pooled, dtype=_F32)[None, :]
            place = (i * step[:, None] + (start * span)[:, None]).astype(_F32)
            place[:, -1] = end * span
        else:
            place = (0.5 * (start.astype(np.float64) + end).astype(_F32).astype(np.float64)
                     * float(length - 1)).astype(_F32)[:, None]
    return _on_image(place, length)


def _on_image(place: np.ndarray, length: int) -> _Places:
    """Samples at f32 ``place``s along an axis of ``length`` pixels: on the image in [0, length - 1], the pixels at
    floor and ceil (clamped), the weight the place minus the floor."""
    inside = (place >= 0) & (place <= _F32(length - 1))
    at = np.where(inside, place, _F32(0))
    low = np.floor(at).astype(np.int64)
    high = np.minimum(np.ceil(at).astype(np.int64), length - 1)
    return _Places(inside, low, high, (at - low.astype(_F32)).astype(_F32))


def _taps(a: ROIPoolingAttrs, x: np.ndarray, rois: np.ndarray, batch: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The four pixels of each output's bilinear sample, [R, C, ph, pw, 4] (tl, tr, bl, br; 0 off the image or past
    a -1), and its weights t_x, t_y [R, ph, pw]."""
    ph, pw = a.pooled
    coords = finite_rois(rois[:, 1:].astype(_F32))
    ys, xs = _places(coords[:, 1], coords[:, 3], ph, x.shape[2]), _places(coords[:, 0], coords[:, 2], pw, x.shape[3])
    live = ys.inside[:, :, None] & xs.inside[:, None, :] & (batch >= 0)[:, None, None]
    image = x[np.maximum(batch, 0)]  # [R, C, H, W]
    r = np.arange(len(rois))[:, None, None]
    taps = np.stack([image[r, :, rows[:, :, None], cols[:, None, :]]
                     for rows in (ys.low, ys.high) for cols in (xs.low, xs.high)], -1)  # [R, ph, pw, C, 4]
    taps = np.where(live[:, :, :, None, None], taps, 0).transpose(0, 3, 1, 2, 4)
    tx = np.broadcast_to(xs.t[:, None, :], live.shape)
    ty = np.broadcast_to(ys.t[:, :, None], live.shape)
    return taps, tx, ty


def finite_rois(coords: np.ndarray) -> np.ndarray:
    """Roi corners CPU can sample at: a NaN or infinite place it casts to int (undefined)."""
    if not np.all(np.isfinite(coords)):
        raise UnsupportedError("rois holding NaN or infinities: OpenVINO CPU casts their places to int")
    return coords


def _lerps(taps: np.ndarray, tx: np.ndarray, ty: np.ndarray) -> np.ndarray:
    """The exact bilinear values of the taps, float64."""
    v = taps.astype(np.float64)
    tx, ty = tx[:, None].astype(np.float64), ty[:, None].astype(np.float64)
    top = v[..., 0] + (v[..., 1] - v[..., 0]) * tx
    bottom = v[..., 2] + (v[..., 3] - v[..., 2]) * tx
    return top + (bottom - top) * ty


def _run_roi(a: ROIPoolingAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, rois = roi_operands(args, 5)
    batch = roi_batches(rois, x.shape[0])
    if min(a.pooled) < 1:
        raise UnsupportedError(f"ROIPooling of pooled sizes {a.pooled}")
    if len(rois) and x.shape[1] and (x.shape[2] == 0 or x.shape[3] == 0):
        raise UnsupportedError(f"ROIPooling of an empty feature map {list(x.shape)}")
    if a.method == "max":
        return [_roi_max(a, x, rois, batch)]
    taps, tx, ty = _taps(a, x, rois, batch)
    with np.errstate(all="ignore"):
        return [_lerps(taps, tx, ty).astype(x.dtype)]


_SELECTS = moves(0)


def _roi_rounding(kernel: Kernel, a: ROIPoolingAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                  outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """max selects (``moves``: exact, a bin's largest bound bounds its change). bilinear: 6 gamma(4) M of the four
    pixels (module doc) plus both sides' output rounding; a data bound moves an output by at most its four pixels'
    largest (the weights are convex). Moved rois (a place, a bin or a batch index): no bound."""
    if a.method == "max":
        return _SELECTS(kernel, a, args, bounds, outputs)
    if any_differs(args, bounds, (1,)):
        return [np.full((), np.inf)]
    x, rois = roi_operands(args, 5)
    batch = roi_batches(rois, x.shape[0])
    taps = _taps(a, np.abs(x.astype(np.float64)), rois, batch)[0]
    bound = 6.0 * gamma(4) * taps.max(-1) + output_rounding(outputs[0])
    if not is_exact(bounds[0]):
        moved = _taps(a, np.broadcast_to(bounds[0], x.shape).astype(np.float64), rois, batch)[0]
        bound = bound + moved.max(-1)
    return [bound]


ROI_POOLING_2 = OpSpec("ROIPooling", "ROIPooling-2", ROIPoolingAttrs, (2, 2), 1, _roi_infer, _run_roi,
                       rounding=_roi_rounding, evaluates=never)


# --- PSROIPooling --------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PSROIPoolingAttrs:
    """PSROIPooling-1: omitted, output_dim, group_size, spatial_scale and the bins are 0 (refused but the bins in
    average mode), mode empty (refused: it is matched in this spelling only)."""

    output_dim: int = A.attr("output_dim", A.INT, 0)
    group_size: int = A.attr("group_size", A.INT, 0)
    spatial_scale: float = A.attr("spatial_scale", FLOAT, 0.0)
    mode: str = A.attr("mode", A.STRING, "")
    spatial_bins_x: int = A.attr("spatial_bins_x", A.INT, 0)
    spatial_bins_y: int = A.attr("spatial_bins_y", A.INT, 0)

    @property
    def bins(self) -> int:
        """Input channels per output channel: group_size^2 (average) or spatial_bins_x spatial_bins_y (bilinear)."""
        return self.group_size**2 if self.mode == "average" else self.spatial_bins_x * self.spatial_bins_y


def _size_t_dim(value: int) -> Dim:
    """OpenVINO's Dimension of a size_t attribute read from an integer: -1 dynamic, another negative value 0."""
    v = _int64_of_size(value)
    return DYNAMIC if v == -1 else Dim(max(v, 0), max(v, 0))


def _ps_infer(a: PSROIPoolingAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """OpenVINO's rule, which reads output_dim and group_size as size_t: a group_size of -1 passes (its square wraps
    to 1) and gives dynamic dims."""
    data, rois = inputs
    _choice("mode", a.mode, PS_MODES)
    if data.element not in REAL_TYPES or rois.element not in REAL_TYPES:
        raise OpValidationError(f"feature maps and rois must be of floating point types, got {data.element} and "
                                f"{rois.element}")
    if a.group_size == 0:
        raise OpValidationError("group_size must be positive, got 0")
    if a.mode == "bilinear" and min(a.spatial_bins_x, a.spatial_bins_y) <= 0:
        raise OpValidationError(f"spatial_bins_x and spatial_bins_y must be positive in bilinear mode, got "
                                f"{a.spatial_bins_x} and {a.spatial_bins_y}")
    _scale(a)
    channels = _feature_map(data)
    group = _int64_of_size(a.group_size)
    area = group * group if a.mode == "average" else a.spatial_bins_x * a.spatial_bins_y
    need = _size_t_dim(a.output_dim * area)
    if merge_dim(channels, need) is None:
        raise OpValidationError(f"feature maps of {channels} channels: expected output_dim ({a.output_dim}) times "
                                f"{area}")
    g = _size_t_dim(a.group_size)
    return [TensorType(data.element, (_rois_count(rois, 5), _size_t_dim(a.output_dim), g, g))]


def _ps_average(a: PSROIPoolingAttrs, x: np.ndarray, rois: np.ndarray, batch: np.ndarray) -> np.ndarray:
    """Each output (c, i, j) of a roi the mean of its bin of channel (c g + i) g + j, CPU's f32 bin geometry: the
    corners rounded half away from zero (x2 + 1 first) times the scale, a region of at least 0.1, bin edges floor and
    ceil of i size + start, clamped to the image; an empty bin gives 0."""
    g, d = a.group_size, a.output_dim
    n, c, h, w = x.shape
    out = np.zeros((len(rois), d, g, g))
    scale = _scale(a)
    corners = finite_rois(rois[:, 1:].astype(_F32))
    with np.errstate(all="ignore"):
        start = round_half_away(corners[:, :2]).astype(_F32) * scale
        end = round_half_away(corners[:, 2:] + _F32(1)).astype(_F32) * scale
        size = np.maximum(end - start, _F32(0.1)) / _F32(g)
        at = np.arange(g + 1, dtype=_F32)[None, :, None] * size[:, None, :] + start[:, None, :]  # [R, g + 1, 2]
    low = np.clip(np.floor(at[:, :-1]), [0, 0], [w, h]).astype(np.int64)
    high = np.clip(np.ceil(at[:, 1:]), [0, 0], [w, h]).astype(np.int64)
    channel = np.arange(d)[:, None, None] * g * g + np.arange(g)[:, None] * g + np.arange(g)  # [d, g, g]
    for r in range(len(rois)):
        if batch[r] < 0:
            continue
        image = x[batch[r]].astype(np.float64)
        for i in range(g):
            for j in range(g):
                (xs, xe), (ys, ye) = (low[r, j, 0], high[r, j, 0]), (low[r, i, 1], high[r, i, 1])
                if ye > ys and xe > xs:
                    out[r, :, i, j] = image[channel[:, i, j], ys:ye, xs:xe].mean(axis=(1, 2))
    return out


def _ps_places(start: np.ndarray, size: np.ndarray, k: int, bins: int, g: int, length: int) -> _Places:
    """One axis of every roi's bilinear samples in sub-bin ``k`` of ``bins``, at the g outputs, in f32 as CPU computes
    them: the sub-bin [lo, hi] of the region, then i (hi - lo)(L - 1) / (g - 1) + lo (L - 1), or for g 1 the middle,
    0.5 (lo + hi)(L - 1)."""
    span = _F32(length - 1)
    with np.errstate(all="ignore"):
        part = size / _F32(bins)
        lo, hi = start + _F32(k) * part, start + _F32(k + 1) * part
        if g > 1:
            step = ((hi - lo) * span) / _F32(g - 1)
            place = np.arange(g, dtype=_F32)[None, :] * step[:, None] + (lo * span)[:, None]
        else:
            place = (_F32(0.5) * (lo + hi) * span)[:, None]
    return _on_image(place.astype(_F32), length)


def _ps_bilinear(a: PSROIPoolingAttrs, x: np.ndarray, rois: np.ndarray, batch: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Each output (c, i, j) of a roi the mean over the spatial_bins_y x spatial_bins_x sub-bins of the region of one
    bilinear sample each (of channel c + (k_y bins_x + k_x) output_dim, at place i, j of the sub-bin; 0 off the
    image), float64 of CPU's f32 places; and per output the mean of its samples' largest |pixel| (the rounding
    rule's M)."""
    g, d, bx, by = a.group_size, a.output_dim, a.spatial_bins_x, a.spatial_bins_y
    h, w = x.shape[2:]
    scale = _scale(a)
    with np.errstate(all="ignore"):
        corners = finite_rois(rois[:, 1:].astype(_F32)) * scale
        start, size = corners[:, :2], (corners[:, 2:] - corners[:, :2]).astype(_F32)
    total, largest = np.zeros((len(rois), d, g, g)), np.zeros((len(rois), d, g, g))
    rows_of = np.arange(len(rois))[:, None, None, None]
    image = x[np.maximum(batch, 0)].astype(np.float64)  # [R, C, H, W]
    for ky in range(by):
        ys = _ps_places(start[:, 1], size[:, 1], ky, by, g, h)
        for kx in range(bx):
            xs = _ps_places(start[:, 0], size[:, 0], kx, bx, g, w)
            channel = (np.arange(d) + (ky * bx + kx) * d)[None, :, None, None]
            taps = np.stack([image[rows_of, channel, rows[:, None, :, None], cols[:, None, None, :]]
                             for rows in (ys.low, ys.high) for cols in (xs.low, xs.high)], -1)  # [R, d, g, g, 4]
            live = (ys.inside[:, :, None] & xs.inside[:, None, :] & (batch >= 0)[:, None, None])[:, None]
            taps = np.where(live[..., None], taps, 0.0)
            total += _lerps(taps, np.broadcast_to(xs.t[:, None, :], (len(rois), g, g)),
                            np.broadcast_to(ys.t[:, :, None], (len(rois), g, g)))
            largest += np.abs(taps).max(-1)
    return total / (bx * by), largest / (bx * by)


def _ps_operands(a: PSROIPoolingAttrs, args: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x, rois = roi_operands(args, 5)
    if a.group_size <= 0:
        raise UnsupportedError(f"PSROIPooling of group_size {a.group_size}")
    if x.shape[1] != a.output_dim * a.bins:
        raise OpValidationError(f"PSROIPooling of {x.shape[1]} channels, output_dim {a.output_dim}, group_size "
                                f"{a.group_size}")
    if len(rois) and a.output_dim and (x.shape[2] == 0 or x.shape[3] == 0):
        raise UnsupportedError(f"PSROIPooling of an empty feature map {list(x.shape)}")
    return x, rois, roi_batches(rois, x.shape[0])


def _run_ps(a: PSROIPoolingAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, rois, batch = _ps_operands(a, args)
    y = _ps_average(a, x, rois, batch) if a.mode == "average" else _ps_bilinear(a, x, rois, batch)[0]
    with np.errstate(all="ignore"):
        return [y.astype(x.dtype)]


def _ps_rounding(kernel: Kernel, a: PSROIPoolingAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                 outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """average: CPU sums a bin's n pixels in f32 and divides by n: within gamma(n + 1) of the mean of |pixel| (n is at
    most H W). bilinear: each sample within 6 gamma(4) of its largest |pixel|
    (as ROIPooling's), their sum of b samples and the division within gamma(b + 1) of the mean of those: (6 gamma(4)
    + gamma(b + 1)) times the mean of the samples' largest |pixel|. Both plus both sides' output rounding; a data
    bound moves an output by at most its kernel on the bounds (weights not negative, summing to 1). Moved rois: no
    bound."""
    if any_differs(args, bounds, (1,)):
        return [np.full((), np.inf)]
    x, rois, batch = _ps_operands(a, args)
    magnitude = np.abs(x.astype(np.float64))
    if a.mode == "average":
        own = gamma(x.shape[2] * x.shape[3] + 1) * _ps_average(a, magnitude, rois, batch)
    else:
        own = (6.0 * gamma(4) + gamma(a.bins + 1)) * _ps_bilinear(a, magnitude, rois, batch)[1]
    bound = own + output_rounding(outputs[0])
    if not is_exact(bounds[0]):
        bound = bound + kernel(a, [np.broadcast_to(bounds[0], x.shape).astype(np.float64), rois])[0]
    return [bound]


PSROI_POOLING_1 = OpSpec("PSROIPooling", "PSROIPooling-1", PSROIPoolingAttrs, (2, 2), 1, _ps_infer, _run_ps,
                         rounding=_ps_rounding, evaluates=never)
