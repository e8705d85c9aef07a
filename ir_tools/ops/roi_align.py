"""ROIAlign-3, ROIAlign-9 and ROIAlignRotated-15: attributes, shape rules, reference kernels and rounding rules.

ROIAlign pools each region of interest ``rois[r] = (x1, y1, x2, y2)`` (in input coordinates, times
``spatial_scale``) of image ``batch_indices[r]`` of data [N, C, H, W] into [R, C, pooled_h, pooled_w] bins: each bin
averages (``avg``) or takes the largest of (``max``) sampling_ratio x sampling_ratio bilinear samples at the centres
of a regular grid over it (sampling_ratio 0: ceil(bin size) per axis). ROIAlign-9 adds ``aligned_mode``:
``asymmetric`` (ROIAlign-3's only one; the region's size is at least 1), ``half_pixel_for_nn`` (-0.5 after the
scale) and ``half_pixel`` (+0.5 before it, -0.5 after; torchvision's ``aligned=True``), both without the minimum size.
torchvision's fasterrcnn converted by OpenVINO holds ROIAlign-9, asymmetric (its ``aligned=False``), avg,
sampling_ratio 2. OpenVINO's sources: core/shape_inference roi_align_shape_utils.hpp,
reference/roi_align.hpp and the CPU plugin's nodes/roi_align.cpp.

Checked against the installed openvino by tests/ops/test_roi_align_conformance.py. Measured on OpenVINO 2026.4.1,
beyond the specification:

- Opsets: ROIAlign-3 in opset3..8, ROIAlign-9 in opset9..16. Every attribute may be omitted: pooled_h, pooled_w,
  sampling_ratio and spatial_scale are then 0, mode avg, aligned_mode asymmetric. pooled_h, pooled_w and
  sampling_ratio are C ints: an output dim is OpenVINO's Dimension of the value (-1 dynamic, another negative value
  0; 2^31 wraps to -2^31, 2^32 - 1 to -1).
  No attribute value is refused by shape inference (negative sampling ratios, a scale of 0, NaN or inf too).
- Shape inference: data and rois are of one real element type (one dynamic takes the other's; both dynamic are
  refused); batch_indices of an integer type (neither real nor boolean; a dynamic one passes). Ranks need only be
  compatible with 4, 2 and 1, the rois' last dim with 4; the output's R is the rois' first dim merged with the batch
  indices' (an empty intersection is refused), C data's dim 1.
- CPU's geometry is computed in f32 (rois read as f32), operation by operation as the kernel does it: region,
  bins, sample positions, sample counts (ceil of the f32 bin size) and each axis's bilinear weights are the kernel's
  to the bit (a count or position off would move an output by far more than the rounding rule, which 320 seeded
  cases hold it to). A sample beyond [-1, W] or [-1, H] contributes 0 and counts in the average; one in [-1, 0)
  reads pixel 0; one at or past the last pixel reads the last.
- ``max`` starts from 0: it is max(0, samples), so a bin of negative samples gives 0 (OpenVINO's reference too).
- A bin of no samples (sampling_ratio 0 and an aligned region whose bins are of a size in (-1, 0] on an axis) gives
  NaN in ``avg`` (0 times 1 / 0) and 0 in ``max``: so does the kernel. A negative count (bins of size -1 or less
  there, or a negative sampling_ratio) gives what CPU's code does not mean (0s in the measured runs): the kernel
  refuses it.
- A batch index of -1 ends CPU's rois: the ones from it on are not written (zeros in the measured runs, never
  promised), and a -1 first refuses the inference; so does an index below -1 or not below N. The kernel refuses
  all of them.
- avg sums each sample's 4 pixels times the f32 product of the axes' weights, in f32 (FMAs, in an order that depends
  on the layout CPU chose) and multiplies by f32(1 / n); the kernel takes the exact products (avg is then separable:
  a matrix per axis) and divides in float64; max uses CPU's f32 products. On the 320 cases 160 outputs are CPU's to
  the bit (81 of the 240 f32 ones), the others within 0.63 of the rounding bound.
- f16 data runs, computed in f32 and rounded once into f16 (within the bound); f64 data runs too (the plugin computes
  it in f32). The batch indices may be of any integer type.

ROIAlignRotated-15 pools boxes ``rois[r] = (centre x, centre y, width, height, angle)`` (times ``spatial_scale``; the
centre then -0.5) turned by the angle in radians (counterclockwise; ``clockwise_mode``: clockwise) about their centre:
average only, no aligned modes, no minimum size. Measured on openvino 2026.4.1:

- Opsets 15..16. Attributes as ROIAlign's, plus clockwise_mode (false when omitted). Shape rule: ROIAlign's, rois
  rows of 5.
- CPU runs OpenVINO's reference kernel in f32 (f16 and f64 data converted; rois read as f32): its f32 operations in
  its order are the kernel's (sample grid start + bin index x bin + step x (k + 0.5), the turn y cos - x sin + cy
  and y sin + x cos + cx, cos and sin the f32 of the double ones; each sample's 4 products summed left to right,
  divided by the count and added from 0): 240 seeded cases are CPU's to the bit, f16 ones too (rounded once).
- A sample off the image reads pixel (0, 0) at weight 0: NaN where that pixel is NaN or infinite (so does the
  kernel). A bin of no samples (sampling_ratio 0 on a box of size 0) gives 0; a negative sample count (a negative
  sampling_ratio, or sampling_ratio 0 on a box of a negative size) fails CPU's assertion when it runs: refused, as
  are batch indices outside the data (CPU reads past them) and boxes or samples not finite. With sampling_ratio 0 a
  pooled size of 0 makes every box's count negative (ceil(size / 0) cast to INT_MIN): ``cpu_refuses`` names it, and
  a negative sampling_ratio, on rois of a count above 0.
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
from .intervals import ANY, canon, to_dim
from .rounding import ACCUMULATION_UNIT, any_differs, gamma, is_exact, output_rounding
from .spec import FLOATS, Kernel, OpSpec, TensorType, never, on

MODES = ("avg", "max")
ALIGNED_MODES = ("asymmetric", "half_pixel_for_nn", "half_pixel")
#: (offset before the scale, offset after it, aligned: a region's size is not raised to 1) per aligned_mode.
_OFFSETS = {"asymmetric": (0.0, 0.0, False), "half_pixel_for_nn": (0.0, -0.5, True),
            "half_pixel": (0.5, -0.5, True)}
_F32 = np.float32


@dataclass(frozen=True, slots=True)
class ROIAlign3Attrs:
    pooled_h: int = A.attr("pooled_h", A.INT, 0)
    pooled_w: int = A.attr("pooled_w", A.INT, 0)
    sampling_ratio: int = A.attr("sampling_ratio", A.INT, 0)
    spatial_scale: float = A.attr("spatial_scale", FLOAT, 0.0)
    mode: str = A.attr("mode", A.enum(*MODES), "avg")

    @property
    def aligned_mode(self) -> str:
        return "asymmetric"


@dataclass(frozen=True, slots=True)
class ROIAlign9Attrs:
    pooled_h: int = A.attr("pooled_h", A.INT, 0)
    pooled_w: int = A.attr("pooled_w", A.INT, 0)
    sampling_ratio: int = A.attr("sampling_ratio", A.INT, 0)
    spatial_scale: float = A.attr("spatial_scale", FLOAT, 0.0)
    mode: str = A.attr("mode", A.enum(*MODES), "avg")
    aligned_mode: str = A.attr("aligned_mode", A.enum(*ALIGNED_MODES), "asymmetric")


@dataclass(frozen=True, slots=True)
class ROIAlignRotated15Attrs:
    pooled_h: int = A.attr("pooled_h", A.INT, 0)
    pooled_w: int = A.attr("pooled_w", A.INT, 0)
    sampling_ratio: int = A.attr("sampling_ratio", A.INT, 0)
    spatial_scale: float = A.attr("spatial_scale", FLOAT, 0.0)
    clockwise_mode: bool = A.attr("clockwise_mode", A.BOOL, False)


Attrs = ROIAlign3Attrs | ROIAlign9Attrs


def _c_int(value: int) -> int:
    """An attribute as the C int OpenVINO holds it (wrapped to 32 bits)."""
    return (value + 2**31) % 2**32 - 2**31


# --- shape rule ----------------------------------------------------------------------------------


def _pooled(value: int) -> Dim:
    """OpenVINO's Dimension of a C int: -1 is dynamic, another negative value 0."""
    v = _c_int(value)
    return to_dim(ANY if v == -1 else canon(v, v))


def _infer(a: Attrs | ROIAlignRotated15Attrs, inputs: Sequence[TensorType], values, box: int = 4
           ) -> list[TensorType]:
    """ROIAlign's rule (and ROIAlignRotated's, whose rois rows hold ``box`` = 5 numbers)."""
    data, rois, indices = inputs
    known = {t.element for t in (data, rois) if t.element is not None}
    if len(known) != 1 or next(iter(known)) not in REAL_TYPES:
        raise OpValidationError(f"data and rois must be of one floating point type, got {data.element} and "
                                f"{rois.element}")
    if indices.element is not None and (indices.element in REAL_TYPES or indices.element == "boolean"):
        raise OpValidationError(f"batch_indices must be of an integer type, got {indices.element}")
    for t, rank, what in ((data, 4, "data"), (rois, 2, "rois"), (indices, 1, "batch_indices")):
        if t.shape is not None and len(t.shape) != rank:
            raise OpValidationError(f"{what} must be {rank}-D, got rank {len(t.shape)}")
    count = DYNAMIC
    if rois.shape is not None:
        if merge_dim(rois.shape[1], Dim(box, box)) is None:
            raise OpValidationError(f"rois must hold {box} numbers a row, got {rois.shape[1]}")
        count = rois.shape[0]
    if indices.shape is not None:
        merged = merge_dim(count, indices.shape[0])
        if merged is None:
            raise OpValidationError(f"{count} rois and {indices.shape[0]} batch indices")
        count = merged
    channels = data.shape[1] if data.shape is not None else DYNAMIC
    return [TensorType(known.pop(), (count, channels, _pooled(a.pooled_h), _pooled(a.pooled_w)))]


# --- kernel --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Axis:
    """One axis of one roi's samples, as CPU computes them in f32: per (bin, sample), the low and high pixel, their
    weights and whether the sample lies on the image (else it contributes 0)."""

    low: np.ndarray  # [bins, samples] int
    high: np.ndarray
    w_low: np.ndarray  # [bins, samples] f32
    w_high: np.ndarray
    inside: np.ndarray  # [bins, samples] bool
    position: np.ndarray  # [bins, samples] f32, before any clamping


def _axis(start: np.float32, size: np.float32, bins: int, count: int, length: int) -> _Axis:
    """The samples along one axis: ``count`` per bin at bin start + (k + 0.5) bin / count, each f32 step rounded."""
    with np.errstate(all="ignore"):
        step = _F32(size / _F32(bins))
        distance = _F32(step / _F32(count))
        origin = _F32(start) + np.arange(bins, dtype=_F32)[:, None] * step
        position = origin + distance * (_F32(0.5) + np.arange(count, dtype=_F32)[None, :])
    inside = (position >= -1.0) & (position <= length)
    p = np.maximum(np.where(inside, position, 0), _F32(0))
    low = np.trunc(p).astype(np.int64)
    last = low >= length - 1
    low = np.where(last, length - 1, low)
    p = np.where(last, low.astype(_F32), p)
    w_high = (p - low.astype(_F32)).astype(_F32)
    return _Axis(low, np.where(last, low, low + 1), (_F32(1) - w_high).astype(_F32), w_high, inside, position)


def _counts(a: Attrs, width: np.float32, height: np.float32) -> tuple[int, int]:
    """Samples per bin along x and y: sampling_ratio, or ceil of the f32 bin size."""
    ratio = _c_int(a.sampling_ratio)
    if ratio != 0:
        return ratio, ratio
    with np.errstate(all="ignore"):
        bins = (_F32(width / _F32(_c_int(a.pooled_w))), _F32(height / _F32(_c_int(a.pooled_h))))
    return int(np.ceil(bins[0])), int(np.ceil(bins[1]))


def _region(a: Attrs, roi: np.ndarray) -> tuple[np.float32, np.float32, np.float32, np.float32]:
    """(x1, y1, width, height) of one roi in f32, as CPU computes them."""
    before, after, aligned = _OFFSETS[a.aligned_mode]
    scale = _F32(a.spatial_scale)
    with np.errstate(all="ignore"):
        x1, y1, x2, y2 = ((roi.astype(_F32) + _F32(before)) * scale + _F32(after)).astype(_F32)
        width, height = _F32(x2 - x1), _F32(y2 - y1)
    if not aligned:
        width, height = max(width, _F32(1)), max(height, _F32(1))
    if not all(np.isfinite(v) for v in (x1, y1, width, height)):
        raise UnsupportedError(f"ROIAlign of a roi {roi.tolist()} at scale {a.spatial_scale}: not finite")
    return x1, y1, width, height


def _operands(a: Attrs | ROIAlignRotated15Attrs, args: Sequence[np.ndarray], box: int = 4
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x, rois, indices = (np.asarray(v) for v in args)
    if x.ndim != 4 or rois.ndim != 2 or rois.shape[1:] != (box,) or indices.shape != rois.shape[:1]:
        raise OpValidationError(f"ROIAlign of data {list(x.shape)}, rois {list(rois.shape)} and batch indices "
                                f"{list(indices.shape)}: needs [N, C, H, W], [R, {box}] and [R]")
    if x.dtype.kind != "f" or rois.dtype.kind != "f":
        raise OpValidationError(f"ROIAlign of {x.dtype} data and {rois.dtype} rois: they must be floating point")
    if indices.dtype.kind not in "iu":
        raise OpValidationError(f"ROIAlign of {indices.dtype} batch indices: they must be integers")
    bad = [int(i) for i in indices if not 0 <= int(i) < x.shape[0]]
    if bad:
        raise UnsupportedError(f"ROIAlign batch indices {bad[:4]} outside [0, {x.shape[0]}): OpenVINO CPU refuses "
                               "them, or stops at a -1 and leaves the rois after it unwritten")
    if min(_c_int(a.pooled_h), _c_int(a.pooled_w), _c_int(a.sampling_ratio)) < 0:
        raise UnsupportedError(f"ROIAlign of pooled size {a.pooled_h} x {a.pooled_w}, sampling_ratio "
                               f"{a.sampling_ratio}: OpenVINO CPU refuses a negative size and gives 0s for a "
                               "negative ratio")
    if len(rois) and x.shape[1] and (x.shape[2] == 0 or x.shape[3] == 0):
        raise UnsupportedError(f"ROIAlign of an empty image {list(x.shape)}")
    return x, rois, indices


def _spread(ax: _Axis, length: int) -> np.ndarray:
    """[bins, length]: each bin's samples' weights on the pixels of the axis, summed (0 for a sample off the image)."""
    bins = ax.low.shape[0]
    at = np.arange(bins)[:, None] * length
    places = np.concatenate([(at + ax.low).ravel(), (at + ax.high).ravel()])
    weights = np.concatenate([np.where(ax.inside, ax.w_low, 0).ravel(), np.where(ax.inside, ax.w_high, 0).ravel()])
    return np.bincount(places, weights.astype(np.float64), bins * length).reshape(bins, length)


#: Sampled values max holds at a time: [channels, pooled_h, samples, pooled_w, samples] in float64, some 32 MB.
_MAX_BLOCK = 1 << 22


def _largest(image: np.ndarray, ay: _Axis, ax: _Axis) -> np.ndarray:
    """max(0, every sample of each bin), [C, pooled_h, pooled_w]: each sample the 4 pixels around it times CPU's f32
    products of the two axes' weights, channels a block at a time."""
    (ph, sy), (pw, sx) = ay.low.shape, ax.low.shape
    inside = ay.inside[:, :, None, None] & ax.inside[None, None, :, :]
    taps = [(rows, cols, np.where(inside, (wy[:, :, None, None] * wx[None, None, :, :]).astype(_F32), 0))
            for rows, wy in ((ay.low, ay.w_low), (ay.high, ay.w_high))
            for cols, wx in ((ax.low, ax.w_low), (ax.high, ax.w_high))]
    out = np.zeros((image.shape[0], ph, pw))
    step = max(1, _MAX_BLOCK // max(1, ph * sy * pw * sx))
    for c in range(0, image.shape[0], step):
        value = np.zeros((min(step, image.shape[0] - c), ph, sy, pw, sx))
        for rows, cols, weight in taps:
            pixels = image[c:c + step, rows.reshape(-1)][:, :, cols.reshape(-1)]
            value += weight.astype(np.float64) * pixels.reshape(value.shape)
        out[c:c + step] = np.maximum(value.max(axis=(2, 4)), 0.0)
    return out


def _pool(a: Attrs, x: np.ndarray, rois: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pooled values in float64, [R, C, pooled_h, pooled_w], and per roi the samples in a bin. avg is linear and
    separable (a sample off either axis's image is off): each axis's weights summed per bin and pixel, and the image
    taken between them; its weights are then the exact products of the axes' f32 weights, where CPU rounds each
    product to f32 (which the rounding rule counts)."""
    ph, pw = _c_int(a.pooled_h), _c_int(a.pooled_w)
    n, c, h, w = x.shape
    out = np.zeros((len(rois), c, ph, pw))
    samples = np.zeros(len(rois), np.int64)
    if out.size == 0:  # (no bins: nothing CPU computes matters)
        return out, samples
    for r, roi in enumerate(rois):
        x1, y1, width, height = _region(a, roi)
        sx, sy = _counts(a, width, height)
        if sx < 0 or sy < 0:
            if sx * sy != 0:
                raise UnsupportedError(f"ROIAlign of a roi {roi.tolist()} giving {sy} x {sx} samples a bin: OpenVINO "
                                       "CPU's result there is none its code means")
            sx, sy = max(sx, 0), max(sy, 0)
        samples[r] = sx * sy
        if sx * sy == 0:
            out[r] = np.nan if a.mode == "avg" else 0.0
            continue
        ay, ax = _axis(y1, height, ph, sy, h), _axis(x1, width, pw, sx, w)
        image = x[int(indices[r])].astype(np.float64)
        if a.mode == "avg":
            out[r] = _spread(ay, h) @ image @ _spread(ax, w).T / (sx * sy)
        else:
            out[r] = _largest(image, ay, ax)
    return out, samples


def _run(a: Attrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each roi's bins, averaged or the largest of their samples (at least 0), in the data's element type."""
    x, rois, indices = _operands(a, args)
    if a.mode == "max" and not np.all(np.isfinite(x)):
        raise UnsupportedError("ROIAlign max of data holding infinities or NaN (CPU's maxps drops a NaN before a "
                               "number)")
    return [_pool(a, x, rois, indices)[0].astype(x.dtype)]


# --- rounding rule -------------------------------------------------------------------------------


def _hull(x: np.ndarray, b: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Per roi and channel, the spread of its image's channel within its bound ([x - b, x + b]) and 0 (which samples
    off the image and max's start bring in): both sides' outputs lie within it, wherever the samples fall."""
    flat = x.reshape(x.shape[:2] + (-1,)).astype(np.float64)
    wide = np.broadcast_to(b, x.shape).reshape(flat.shape)
    top, bottom = np.maximum((flat + wide).max(-1), 0.0), np.minimum((flat - wide).min(-1), 0.0)
    return (top - bottom)[indices.astype(np.int64)]


def _window(v: np.ndarray, rows: range, cols: range) -> np.ndarray:
    """[C, H, W]: at each pixel (r, c), the largest of ``v`` at rows r + rows and columns c + cols, clamped to the
    image."""
    h, w = v.shape[1:]
    out = np.full(v.shape, -np.inf)
    for dr in rows:
        for dc in cols:
            r, c = np.clip(np.arange(h) + dr, 0, h - 1), np.clip(np.arange(w) + dc, 0, w - 1)
            np.maximum(out, v[:, r][:, :, c], out=out)
    return out


@dataclass(frozen=True, slots=True)
class _Slopes:
    """Of one image whose pixels may each be off by up to ``b`` (the channel's largest bound): at each pixel, the
    largest change a move of under a pixel from its cell can make, per pixel of move along y (``dy``) and x
    (``dx``), and the largest |pixel| around (``top``), which a sample crossing the image's edge (-1, or H or W)
    gains or loses."""

    dy: np.ndarray  # [C, H, W]
    dx: np.ndarray
    top: np.ndarray

    @classmethod
    def of(cls, image: np.ndarray, b: np.ndarray) -> _Slopes:
        pad = 2.0 * b[:, None, None]
        vertical = np.abs(np.diff(image, axis=1, append=image[:, -1:]))
        horizontal = np.abs(np.diff(image, axis=2, append=image[:, :, -1:]))
        return cls(_window(vertical, range(-1, 2), range(-1, 3)) + pad,
                   _window(horizontal, range(-1, 3), range(-1, 2)) + pad,
                   _window(np.abs(image), range(-1, 3), range(-1, 3)) + pad / 2)


def _moves(a: Attrs, roi: np.ndarray, bound: np.ndarray) -> tuple[float, float, bool]:
    """How far any sample of a roi may move along x and y when its coordinates move within ``bound`` (the region's
    start by the scale times its bound, its size by that of both ends: a sample at fraction t < 1 of it moves by at
    most s (2 b_start + b_end)), plus f32 rounding on both sides; and whether its sample counts may change
    (sampling_ratio 0: a bin size within its move of a whole number)."""
    before, after, _ = _OFFSETS[a.aligned_mode]
    s = abs(float(_F32(a.spatial_scale)))
    scaled = (np.abs(roi.astype(np.float64)) + abs(before)) * s + abs(after)
    rounding = 32.0 * ACCUMULATION_UNIT * (scaled[:2] + scaled[2:] + 1.0)
    move = s * (2.0 * bound[:2] + bound[2:]) + rounding
    if _c_int(a.sampling_ratio) != 0:
        return float(move[0]), float(move[1]), False
    x1, y1, width, height = _region(a, roi)
    size = np.array([width, height], np.float64)
    pooled = np.array([_c_int(a.pooled_w), _c_int(a.pooled_h)], np.float64)
    change = s * (bound[:2] + bound[2:]) + rounding
    counts = np.ceil((size - change) / pooled) != np.ceil((size + change) / pooled)
    return float(move[0]), float(move[1]), bool(counts.any())


def _at(v: np.ndarray, rows: np.ndarray, cols: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """v [C, H, W] at every (row, column) pair of the samples, as [C, pooled_h, samples, pooled_w, samples]."""
    return v[:, rows][:, :, cols].reshape(shape)


def _moved_samples(a: Attrs, x: np.ndarray, b: np.ndarray, rois: np.ndarray, rois_bound: np.ndarray,
                   indices: np.ndarray) -> np.ndarray:
    """[R, C, pooled_h, pooled_w]: how far moved rois (within ``rois_bound``) move each output of data within ``b``.
    Where a sample may move a pixel or more, or a count may change, the spread of the roi's image channel (``_hull``);
    else per sample its move times the slopes around it, and the largest |pixel| around where it may cross the
    image's edge (a sample off the image is 0); avg's mean of those, max's largest."""
    ph, pw = _c_int(a.pooled_h), _c_int(a.pooled_w)
    n, c, h, w = x.shape
    hull = _hull(x, b, indices)
    out = np.broadcast_to(hull[:, :, None, None], (len(rois), c, ph, pw)).copy()
    slopes: dict[int, _Slopes] = {}
    wide = np.broadcast_to(b, x.shape)
    for r, roi in enumerate(rois):
        mx, my, recount = _moves(a, roi, np.broadcast_to(rois_bound, rois.shape)[r].astype(np.float64))
        if recount or mx >= 1.0 or my >= 1.0:
            continue
        x1, y1, width, height = _region(a, roi)
        sx, sy = _counts(a, width, height)
        if sx <= 0 or sy <= 0:
            continue
        i = int(indices[r])
        if i not in slopes:
            slopes[i] = _Slopes.of(x[i].astype(np.float64), wide[i].reshape(c, -1).max(-1))
        found = slopes[i]
        ay, ax = _axis(y1, height, ph, sy, h), _axis(x1, width, pw, sx, w)
        rows = np.trunc(np.clip(ay.position, 0, h - 1)).astype(np.int64).reshape(-1)
        cols = np.trunc(np.clip(ax.position, 0, w - 1)).astype(np.int64).reshape(-1)
        edge_y = (np.abs(ay.position + 1.0) <= my) | (np.abs(ay.position - h) <= my)
        edge_x = (np.abs(ax.position + 1.0) <= mx) | (np.abs(ax.position - w) <= mx)
        live = ((ay.inside | edge_y)[:, :, None, None] & (ax.inside | edge_x)[None, None, :, :])
        edge = edge_y[:, :, None, None] | edge_x[None, None, :, :]
        shape = (c, ph, sy, pw, sx)
        sample = np.where(live, my * _at(found.dy, rows, cols, shape) + mx * _at(found.dx, rows, cols, shape) +
                          np.where(edge, _at(found.top, rows, cols, shape), 0.0), 0.0)
        out[r] = sample.mean(axis=(2, 4)) if a.mode == "avg" else sample.max(axis=(2, 4))
    return out


def _rounding(kernel: Kernel, a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
              outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """CPU's geometry is the kernel's (f32, bit for bit), so only its f32 arithmetic differs: avg rounds each of the
    n samples' 4 weights (the kernel's are exact products), sums the products and multiplies by f32(1 / n), within
    gamma(4n + 4) of the sum of |weight pixel| over n (one more rounding for f64 data, which CPU rounds to f32); max
    takes one sample's 4-term sum of the kernel's own weights, within gamma(5) of its |terms|, and a largest of
    values each within e moves by e at most. Data's bound goes through the kernel itself (weights are not negative:
    its avg or max of the bounds bounds the change). Moved rois move the samples (``_moved_samples``): bilinear
    samples move continuously but across the image's edge. Moved batch indices: no bound."""
    if any_differs(args, bounds, (2,)):
        return [np.full((), np.inf)]
    x, rois, indices = _operands(a, args)
    y = outputs[0]
    wide = np.abs(x).astype(np.float64)
    if not is_exact(bounds[0]):
        wide = wide + np.broadcast_to(bounds[0], x.shape)
    size, samples = _pool(a, wide, rois, indices)
    if a.mode == "avg":
        own = gamma(4 * samples + 4)[:, None, None, None] * size
    else:
        own = gamma(5) * size
    bound = np.nan_to_num(own, nan=0.0) + output_rounding(y)
    if not is_exact(bounds[0]):
        moved = _pool(a, np.broadcast_to(bounds[0], x.shape).astype(np.float64), rois, indices)[0]
        bound = bound + np.nan_to_num(moved, nan=0.0)
    if not is_exact(bounds[1]) and bound.size:
        bound = bound + _moved_samples(a, x, bounds[0], rois, bounds[1], indices)
    return [bound]


# --- ROIAlignRotated-15 ----------------------------------------------------------------------------


def _infer_rotated(a: ROIAlignRotated15Attrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    return _infer(a, inputs, values, box=5)


def _rotated_cpu_refuses(a: ROIAlignRotated15Attrs, inputs: Sequence[TensorType], values) -> str | None:
    """Why OpenVINO CPU cannot run a ROIAlignRotated on any input (measured): on rois of a count above 0, a negative
    sampling_ratio, or sampling_ratio 0 and a pooled size of 0 (ceil(size / 0) is INT_MIN), fail its assertion that
    the sample counts are not negative."""
    rois = inputs[1].shape
    if rois is None or len(rois) != 2 or rois[0].lo == 0:
        return None
    ratio = _c_int(a.sampling_ratio)
    if ratio < 0 or ratio == 0 and 0 in (_c_int(a.pooled_h), _c_int(a.pooled_w)):
        return (f"sampling_ratio {ratio} and pooled size {a.pooled_h} x {a.pooled_w}: OpenVINO CPU's sample counts "
                "are negative, and its assertion fails when it runs")
    return None


#: The most samples a rotated roi's bins may hold together (sampling_ratio 0 on a large roi asks for ceil(bin size)
#: squared a bin), which the kernel holds at once; beyond, it refuses.
MOST_SAMPLES = 1 << 22


@dataclass(frozen=True, slots=True)
class Taps:
    """One roi's samples as a CPU reference kernel computes them (in f32, operation by operation): per sample, arrays
    of [pooled_h, samples_y, pooled_w, samples_x], the rows, columns and weights of its 4 pixels (pixel (0, 0) at
    weight 0 for a sample off the image, as CPU reads it) and the samples in a bin. ROIAlignRotated's and
    ExperimentalDetectronROIFeatureExtractor's (ops/detectron.py)."""

    rows: tuple[np.ndarray, ...]
    cols: tuple[np.ndarray, ...]
    weights: tuple[np.ndarray, ...]
    count: int


def bilinear_taps(y: np.ndarray, x: np.ndarray, h: int, w: int, count: int) -> Taps:
    """The taps of samples at f32 positions ``y`` and ``x`` (broadcast to [pooled_h, samples_y, pooled_w,
    samples_x]) on an image of h x w: a sample beyond [-1, W] or [-1, H] is off it; else each axis below 0 is 0,
    from the last pixel on the last one, with weights 1 - l and l of its fraction l, multiplied in f32."""
    inside = (x >= -1) & (x <= _F32(w)) & (y >= -1) & (y <= _F32(h))
    axes = []
    for p, length in ((y, h), (x, w)):
        p = np.maximum(np.where(inside, p, _F32(0)), _F32(0))
        low = np.trunc(p).astype(np.int64)
        last = low >= length - 1
        low = np.where(last, length - 1, low)
        high_w = (np.where(last, low.astype(_F32), p) - low.astype(_F32)).astype(_F32)
        axes.append((low, np.where(last, low, low + 1), (_F32(1) - high_w).astype(_F32), high_w))
    (y0, y1, hy, ly), (x0, x1, hx, lx) = axes
    weights = tuple(np.where(inside, (u * v).astype(_F32), _F32(0)) for u, v in ((hy, hx), (hy, lx), (ly, hx),
                                                                               (ly, lx)))
    return Taps(tuple(np.where(inside, r, 0) for r in (y0, y0, y1, y1)),
                tuple(np.where(inside, c, 0) for c in (x0, x1, x0, x1)), weights, count)


def sample_values(image: np.ndarray, taps: Taps, kind: type) -> np.ndarray:
    """[C, pooled_h, pooled_w, samples]: each sample's 4 pixels of ``image`` [C, H, W] times their weights, summed
    left to right in ``kind`` (f32: as CPU; float64: for a rounding rule), samples row-major in a bin."""
    with np.errstate(all="ignore"):
        value = None
        for rows, cols, weight in zip(taps.rows, taps.cols, taps.weights, strict=True):
            term = (weight.astype(kind) * image[:, rows, cols].astype(kind)).astype(kind)
            value = term if value is None else (value + term).astype(kind)
    value = value.transpose(0, 1, 3, 2, 4)
    return value.reshape(value.shape[:3] + (-1,))


def sum_in_order(values: np.ndarray) -> np.ndarray:
    """The sum over the last axis added one after the other from +0, as a C loop does (never -0)."""
    kind = values.dtype.type
    with np.errstate(all="ignore"):
        return np.add.accumulate(values, axis=-1, dtype=kind)[..., -1] + kind(0)


def _rotated_taps(a: ROIAlignRotated15Attrs, roi: np.ndarray, h: int, w: int) -> Taps:
    """The roi's samples: a grid over the box (centre - size / 2 ...) turned by the angle (minus it when clockwise)
    about the centre, at the scale and -0.5; the angle's cos and sin are the f32 of the double ones."""
    ph, pw, scale = _c_int(a.pooled_h), _c_int(a.pooled_w), _F32(a.spatial_scale)
    roi = roi.astype(_F32)
    if not np.all(np.isfinite(roi)):
        raise UnsupportedError(f"ROIAlignRotated of a roi {roi.tolist()}: not finite")
    with np.errstate(all="ignore"):
        cx, cy = _F32(roi[0] * scale) - _F32(0.5), _F32(roi[1] * scale) - _F32(0.5)
        width, height = _F32(roi[2] * scale), _F32(roi[3] * scale)
    if not all(np.isfinite(v) for v in (cx, cy, width, height)):
        raise UnsupportedError(f"ROIAlignRotated of a roi {roi.tolist()} at scale {a.spatial_scale}: not finite")
    with np.errstate(all="ignore"):
        angle = np.float64(-roi[4] if a.clockwise_mode else roi[4])
        cos, sin = _F32(np.cos(angle)), _F32(np.sin(angle))
        bin_w, bin_h = _F32(width / _F32(pw)), _F32(height / _F32(ph))
        ratio = _c_int(a.sampling_ratio)
        sx, sy = (ratio, ratio) if ratio else (int(np.ceil(bin_w)), int(np.ceil(bin_h)))
        if sx < 0 or sy < 0:
            raise UnsupportedError(f"ROIAlignRotated of a roi {roi.tolist()} giving {sy} x {sx} samples a bin: "
                                   "OpenVINO CPU refuses it")
        if ph * sy * pw * sx > MOST_SAMPLES:
            raise UnsupportedError(f"ROIAlignRotated of a roi {roi.tolist()} of {sy} x {sx} samples a bin: more "
                                   "than the kernel holds")
        py = (_F32(-height / _F32(2)) + np.arange(ph, dtype=_F32)[:, None] * bin_h) + \
            _F32(bin_h / _F32(sy)) * (np.arange(sy, dtype=_F32) + _F32(0.5))
        px = (_F32(-width / _F32(2)) + np.arange(pw, dtype=_F32)[:, None] * bin_w) + \
            _F32(bin_w / _F32(sx)) * (np.arange(sx, dtype=_F32) + _F32(0.5))
        py, px = py[:, :, None, None], px[None, None, :, :]
        y, x = (py * cos - px * sin) + cy, (py * sin + px * cos) + cx
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(x))):
        raise UnsupportedError(f"ROIAlignRotated of a roi {roi.tolist()} at scale {a.spatial_scale}: not finite")
    return bilinear_taps(y, x, h, w, sx * sy)


def _rotated_pool(a: ROIAlignRotated15Attrs, x: np.ndarray, rois: np.ndarray, indices: np.ndarray, in_f32: bool
                  ) -> tuple[np.ndarray, np.ndarray]:
    """[R, C, pooled_h, pooled_w] and the samples in a bin per roi. ``in_f32``: CPU's arithmetic, in its order (each
    sample's 4 products summed left to right, divided by the count, added to 0 sample after sample, row-major);
    else the same sum in float64 (for the rounding rule)."""
    ph, pw = _c_int(a.pooled_h), _c_int(a.pooled_w)
    n, c, h, w = x.shape
    kind = _F32 if in_f32 else np.float64
    out = np.zeros((len(rois), c, max(ph, 0), max(pw, 0)), kind)
    counts = np.zeros(len(rois), np.int64)
    if out.size == 0:
        return out, counts
    for r, roi in enumerate(rois):
        taps = _rotated_taps(a, roi, h, w)
        counts[r] = taps.count
        if taps.count == 0:
            continue
        step = max(1, MOST_SAMPLES // taps.weights[0].size)
        for at in range(0, c, step):
            values = sample_values(x[int(indices[r]), at:at + step], taps, kind)
            with np.errstate(all="ignore"):
                out[r, at:at + step] = sum_in_order((values / kind(taps.count)).astype(kind))
    return out, counts


def _run_rotated(a: ROIAlignRotated15Attrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each roi's bins averaged, computed in f32 as CPU does (f64 data, which CPU rounds to f32, in float64: the
    exact averages), in the data's element type."""
    x, rois, indices = _operands(a, args, box=5)
    return [_rotated_pool(a, x, rois, indices, x.dtype != np.float64)[0].astype(x.dtype)]


def _most_counts(a: ROIAlignRotated15Attrs, rois: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Per roi, the most samples a bin may hold with its width and height moved within ``bound``: sampling_ratio 0
    takes ceil(scaled size / pooled size) per axis (one more for the f32 rounding)."""
    ratio = _c_int(a.sampling_ratio)
    if ratio:
        return np.full(len(rois), ratio * ratio, np.int64)
    scale = abs(float(_F32(a.spatial_scale)))
    size = (np.abs(rois[:, 2:4].astype(np.float64)) + bound[:, 2:4]) * scale * (1.0 + 4 * ACCUMULATION_UNIT)
    per = np.ceil(size / np.array([_c_int(a.pooled_w), _c_int(a.pooled_h)], np.float64)) + 1.0
    return per.prod(axis=1).astype(np.int64)


def _rotated_rounding(kernel: Kernel, a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                      outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """CPU's geometry and order are the kernel's, so on one input both agree to the bit; the rule still bounds each
    side's f32 arithmetic: n samples of 4 rounded products summed, divided by n and added up from 0 are within
    gamma(n + 6) of K(|x|) (the exact float64 average of |weight pixel|; one rounding more for f64 data, which CPU
    rounds to f32), and data moved within b moves the exact average by K(b) at most (the weights are not negative):
    2 gamma(n + 6) K(|x| + b) + K(b), plus the output's rounding. Moved rois move the samples anywhere: every output
    is an average of samples each within the hull of its image channel and 0 (``_hull``), so the spread of that hull,
    plus both sides' rounding at the most samples a moved roi may take. Moved batch indices: no bound."""
    if any_differs(args, bounds, (2,)):
        return [np.full((), np.inf)]
    x, rois, indices = _operands(a, args, box=5)
    y = outputs[0]
    wide = np.abs(x).astype(np.float64)
    if not is_exact(bounds[0]):
        wide = wide + np.broadcast_to(bounds[0], x.shape)
    size, counts = _rotated_pool(a, wide, rois, indices, False)
    bound = 2.0 * gamma(counts + 6)[:, None, None, None] * size + output_rounding(y)
    if not is_exact(bounds[0]):
        bound = bound + _rotated_pool(a, np.broadcast_to(bounds[0], x.shape).astype(np.float64), rois, indices,
                                      False)[0]
    if not is_exact(bounds[1]) and bound.size:
        most = _most_counts(a, rois, np.broadcast_to(bounds[1], rois.shape).astype(np.float64))
        hull = _hull(x, bounds[0], indices)
        bound = bound + hull[:, :, None, None] * (1.0 + 2.0 * gamma(most + 6))[:, None, None, None]
    return [np.nan_to_num(bound, nan=0.0)]


ROI_ALIGN_3 = OpSpec("ROIAlign", "ROIAlign-3", ROIAlign3Attrs, (3, 3), 1, _infer, _run, rounding=_rounding,
                     index_input=2, evaluates=on(FLOATS))
ROI_ALIGN_9 = OpSpec("ROIAlign", "ROIAlign-9", ROIAlign9Attrs, (3, 3), 1, _infer, _run, rounding=_rounding,
                     index_input=2, evaluates=never)
ROI_ALIGN_ROTATED_15 = OpSpec("ROIAlignRotated", "ROIAlignRotated-15", ROIAlignRotated15Attrs, (3, 3), 1,
                              _infer_rotated, _run_rotated, rounding=_rotated_rounding, index_input=2,
                              cpu_refuses=_rotated_cpu_refuses, evaluates=never)
