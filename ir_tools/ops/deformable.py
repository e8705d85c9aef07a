"""DeformableConvolution-1, DeformableConvolution-8 and DeformablePSROIPooling-1: attributes, shape rules, kernels
and rounding rules. (Below: DeformableConvolution, then DeformablePSROIPooling.)

A deformable convolution is a 2-D convolution whose every kernel tap reads the data not at its grid place but at that
place plus a learnt offset: ``offsets`` [N, 2 DG KH KW, OH, OW] holds, per deformable group g (the data channels split
into ``deformable_group`` runs), tap k = kh KW + kw and output place, the offset along y (channel g 2 K + 2 k) and
along x (the next channel); the data is sampled there bilinearly. v8 adds ``mask`` [N, DG KH KW, OH, OW], which
scales each sample (DCNv2), and ``bilinear_interpolation_pad``. OpenVINO's sources: core/shape_inference
deformable_convolution_shape_inference.hpp, core/src/op/deformable_convolution.cpp and the CPU plugin's
nodes/def_conv.cpp. Checked against the installed openvino by tests/ops/test_deformable_conformance.py.

The shape rule is Convolution's (ops/convolution.py, ``forward_spatial``: strides, dilations, pads and auto_pad)
on rank-4 data, offsets, filters [O, C / group, KH, KW] and mask. Measured on openvino 2026.4.1, beyond the
specification:

1. The number of spatial axes comes from the data rank (minus 2), else the filters rank (minus 2), else 2 if the
   offsets' rank is known; else the output is of dynamic rank and nothing is checked (group 0 passes). Data of
   rank 1 counts as "not known" (OpenVINO's unsigned rank - 2 wraps to its "undefined" marker).
2. Data, offsets and filters must be of one element type (a dynamic one merges; all dynamic gives a dynamic
   output), boolean refused; the mask may be of any type but boolean. Omitted, ``group`` and ``deformable_group``
   read as 0 (refused where the rank is known), ``bilinear_interpolation_pad`` as false.
3. Checks, on partial shapes as intervals: group and deformable_group at least 1; the data and filters' channels
   and the offsets' and mask's divisible by their groups (some multiple lies in the interval); the data's channels
   compatible with filters[1] * group; offsets[1] compatible with 2 DG KH KW and mask[1] with DG KH KW; the
   offsets' batch merged into the output's, the mask's compatible with the data's; the offsets' and mask's spatial
   dims compatible with the output's. The output is [batch, filters[0], spatial].

Kernel (CPU, nodes/def_conv.cpp: all inputs converted to f32): a tap's place is ``f32(oh sh - pt + kh dh) +
offset_y`` (one f32 addition), likewise along x. Without bilinear_interpolation_pad a place off [0, H) or [0, W)
gives 0; else the pixels at floor and ceil (clamped to the image), the weight ``ly = place - floor`` (f32) and
``hy = 1 - ly`` (f32). With bilinear_interpolation_pad a place off (-1, H) x (-1, W) gives 0 (C's int cast: NaN and
infinities too); else the pixels floor and floor + 1 with pixels beyond the image weighing 0. CPU multiplies the
weights ``hy hx m`` in f32 (m the mask, 1 for v1), skips a pixel whose f32 weight is zero (+0 only in the JIT kernel,
used for group 1; +-0 in the C++ one, used otherwise: so a NaN pixel with a -0 weight gives NaN at group 1 only),
sums the four products in f32, and accumulates sample times filter over channels and taps in f32 (FMAs, in blocks of
16 channels, in the JIT kernel). The kernel computes the sampled values and the sum exactly (float64) from CPU's f32
places and weights, skipping as CPU does.

Rounding rule (``accumulation``): each of the n = C / group KH KW terms w hy hx m v reaches the sum through at
most 6 f32 roundings of its own (the weight's two products, the product with the pixel, three additions of the
four) and n of the accumulation (FMAs: one rounding per step): within gamma(n + 6) of the sum of |terms|, which the
kernel computes on |data|, |filters| and |mask| (the bilinear weights are not negative), plus both sides' output
rounding; data, filters and mask bounds propagate as through a product of three; moved offsets (a place): no bound.

Measured on openvino 2026.4.1 (CPU, AVX-512), beyond the specification:

- On 240 seeded cases (11,203 elements): f32 within 0.29 of the bound (v1) and 0.23 (v8), half the elements CPU's
  to the bit; f16 all but one equal (within 0.39). NaN and infinities in the data propagate as in the exact sum;
  infinite or far offsets put a tap off the image (0).
- A NaN offset without bilinear_interpolation_pad crashes the process (a segmentation fault: CPU's compiled
  "place within the image" test lets NaN through and it reads at floor(NaN)); the kernel refuses such offsets.
  With the pad, a NaN place gives 0.
- CPU's executor cache key (nodes/def_conv.cpp, DefConvKey) leaves out bilinear_interpolation_pad: two layers of one
  compiled model with equal input and output layouts, strides, dilations and pads_begin share one executor, and the
  one prepared second computes with the first's bilinear_interpolation_pad (measured: a layer with the pad computed
  without it). Not modelled: compare reports such a layer as a mismatch.

DeformablePSROIPooling (R-FCN with deformable parts) pools [N, C, H, W] into [R, output_dim, group_size,
group_size]; OpenVINO's sources: core/shape_inference deformable_psroi_pooling_shape_inference.hpp, the CPU plugin's
nodes/psroi_pooling.cpp (C++, f32). Measured on openvino 2026.4.1, beyond the specification:

- Shape rule: only the ranks (data 4, rois 2, offsets 4) and output_dim, group_size >= 1 are checked; the output
  takes the data's element type, whatever it is (boolean too) and the rois' first dim. Omitted attributes read as
  output_dim 0 (refused), spatial_scale 0, group_size 1, mode bilinear_deformable, bins 1, trans_std 1, part_size 1.
  CPU compiles mode bilinear_deformable only (``cpu_refuses``).
- Kernel, in f32 as CPU: the corners rounded half away from zero, start = c * scale - 0.5, end = (c + 1) * scale -
  0.5, a region of at least 0.1 a side, bins of region / group_size, sub-bins of bin / spatial_bins. Output (c, h, w)
  reads channel (c g + h) g + w; its bin starts at w bin + start + t size, t = offsets[roi, 2 k, ph, pw] trans_std
  (along y channel 2 k + 1; k = c / (output_dim / classes), classes = offsets channels / 2, ph = h part_size / g).
  Each sub-bin corner start + i sub within [-0.5, L - 0.5] (both axes) is clamped onto the image and sampled
  bilinearly (floor and ceil; a NaN pixel with weight 0 gives NaN), the others left out; the output is the mean of
  the samples, 0 where there are none, and 0 for the rois from a batch index -1 on. f16 is computed in f32.
- The kernel refuses what CPU reads out of bounds at: a batch index >= N (CPU asserts only > N), data of fewer
  channels than output_dim group_size^2, offsets not of [>= rois, 2 classes, part_size, part_size] with classes
  dividing output_dim, and NaN places (NaN offsets, or infinite ones times a trans_std of 0).
- Rounding rule (``accumulation``): a sample's terms w v each reach the sum through 7 f32 roundings (1 - t twice,
  their product, the product with the pixel, three additions), then up to S - 1 additions of the S =
  spatial_bins_x spatial_bins_y samples and the division: within gamma(S + 7) of the mean of sum |w v|, the kernel
  on |data|, plus both sides' output rounding; data bounds propagate through the kernel (weights not negative,
  summing to 1); moved rois or offsets (places): no bound.
- On 150 seeded cases: f32 2,443 of 2,983 elements CPU's to the bit, the others within 0.21 of the bound; f16 all
  but one equal, that one within 0.94 (an f16 rounding of a value on the edge of two).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim, Shape
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .convolution import ConvolutionAttrs, forward_pads, forward_spatial
from .intervals import ddiv, dmul, guarded, is_empty, iv, meet, to_dim
from .roi_pooling import finite_rois, roi_batches, roi_operands, round_half_away
from .rounding import accumulation
from .spec import OpSpec, TensorType, never

_F32 = np.float32
#: Sampled values held at once by the kernel (float64, several arrays of them): channels are taken in blocks.
_SAMPLES = 1 << 20
#: Each term's own f32 roundings before the accumulation (module doc).
_OWN_ROUNDINGS = 6
_NAMES = ("data", "offsets", "filters", "mask")


@dataclass(frozen=True, slots=True)
class DeformableConvolutionAttrs(ConvolutionAttrs):
    """DeformableConvolution-1: Convolution-1's attributes, group and deformable_group (omitted: 0, refused)."""

    group: int = A.attr("group", A.INT, 0)
    deformable_group: int = A.attr("deformable_group", A.INT, 0)

    @property
    def bilinear_pad(self) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class DeformableConvolution8Attrs(DeformableConvolutionAttrs):
    """DeformableConvolution-8: v1's and bilinear_interpolation_pad (omitted: false)."""

    bilinear_interpolation_pad: bool = A.attr("bilinear_interpolation_pad", A.BOOL, False)

    @property
    def bilinear_pad(self) -> bool:
        return self.bilinear_interpolation_pad



# --- shape rule ------------------------------------------------------------------------------------


def _element(inputs: Sequence[TensorType]) -> str | None:
    """Rule 2: data, offsets and filters of one type (dynamic merges), the mask of its own; boolean refused."""
    known = {t.element for t in inputs[:3] if t.element is not None}
    if len(known) > 1:
        raise OpValidationError(f"data, offsets and filters must be of one element type, got "
                                f"{', '.join(str(t.element) for t in inputs[:3])}")
    et = next(iter(known), None)
    if et == "boolean":
        raise OpValidationError("the inputs must be numeric, got boolean")
    if len(inputs) > 3 and inputs[3].element == "boolean":
        raise OpValidationError("the mask must be numeric, got boolean")
    return et


def _divisible(dim: Dim, group: int, what: str, by: str) -> None:
    """OpenVINO's is_divisible: the interval divided by the group is not empty."""
    if is_empty(ddiv(iv(dim), group)):
        raise OpValidationError(f"the {what} channels {dim} are not divisible by {by} {group}")


def _compatible(a: Dim, b: Dim, message: str) -> None:
    if is_empty(meet(iv(a), iv(b))):
        raise OpValidationError(message)


def _check_mask(a: DeformableConvolutionAttrs, data: Shape, filters: Shape, mask: Shape) -> None:
    """v8's checks of a mask of known rank, made before the others (OpenVINO indexes its dims 0 and 1 and the
    filters' 2 and 3 unchecked)."""
    if len(mask) < 2 or (filters is not None and len(filters) < 4):
        raise OpValidationError(f"a mask of rank {len(mask)} with filters of rank "
                                f"{'?' if filters is None else len(filters)}: OpenVINO reads past their dims")
    if filters is not None:
        taps = dmul(dmul(iv(filters[2]), iv(filters[3])), (a.deformable_group, a.deformable_group))
        _compatible(mask[1], to_dim(taps), f"the mask's {mask[1]} channels do not fit {to_dim(taps)} (deformable "
                                           "group times the kernel's taps)")
    _divisible(mask[1], a.deformable_group, "mask's", "deformable_group")
    if data:
        _compatible(mask[0], data[0], f"the mask's batch {mask[0]} does not fit the data's {data[0]}")


def _infer(a: DeformableConvolutionAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    et = _element(inputs)
    data, offsets, filters = (t.shape for t in inputs[:3])
    mask = inputs[3].shape if len(inputs) > 3 else None
    if mask is not None:
        _check_mask(a, data, filters, mask)
    ns = len(data) - 2 if data is not None else len(filters) - 2 if filters is not None else None
    if ns == -1 or (ns is None and offsets is not None):
        ns = 2 if offsets is not None else None
    if ns is None:
        return [TensorType(et, None)]
    for name, shape in zip(_NAMES, (data, offsets, filters, mask), strict=False):
        if shape is not None and len(shape) != 4:
            raise OpValidationError(f"the {name} must be of rank 4, got rank {len(shape)}")
    for name, value in (("group", a.group), ("deformable_group", a.deformable_group)):
        if value < 1:
            raise OpValidationError(f"{name} must be at least 1, got {value}")
    out = forward_spatial(a, data, filters, 2)
    batch = DYNAMIC
    if data is not None:
        _divisible(data[1], a.group, "data's", "group")
        batch = data[0]
    if offsets is not None:
        if filters is not None:
            taps = to_dim(dmul(dmul(iv(filters[2]), iv(filters[3])), (2 * a.deformable_group, 2 * a.deformable_group)))
            _compatible(offsets[1], taps, f"the offsets' {offsets[1]} channels do not fit {taps} (2 deformable group "
                                          "times the kernel's taps)")
        _divisible(offsets[1], a.deformable_group, "offsets'", "deformable_group")
        merged = meet(iv(batch), iv(offsets[0]))
        if is_empty(merged):
            raise OpValidationError(f"the offsets' batch {offsets[0]} does not fit the data's {batch}")
        batch = to_dim(merged)
    channels = DYNAMIC
    if filters is not None:
        _divisible(filters[0], a.group, "filters'", "group")
        if data is not None:
            need = to_dim(dmul(iv(filters[1]), (a.group, a.group)))
            _compatible(data[1], need, f"the data's {data[1]} channels do not fit filters of {need} (group times "
                                       "filters[1])")
        channels = filters[0]
    for name, shape in (("offsets'", offsets), ("mask's", mask)):
        if shape is not None and any(is_empty(meet(iv(o), iv(s))) for o, s in zip(out, shape[2:], strict=True)):
            raise OpValidationError(f"the {name} spatial dims {[str(d) for d in shape[2:]]} do not fit the output's "
                                    f"{[str(d) for d in out]}")
    return [TensorType(et, (batch, channels, *out))]


# --- kernel ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Axis:
    """One spatial axis of every tap's sample, [N, DG, K, OH, OW]: its two pixels and their exact weights."""

    inside: np.ndarray  # whether the place is one CPU samples at (bool)
    low: np.ndarray  # int pixel indices, clamped into the image
    high: np.ndarray
    w_low: np.ndarray  # f32 weights (0 where the pixel is off the image or the place is)
    w_high: np.ndarray


def _axis(place: np.ndarray, length: int, pad: bool) -> _Axis:
    """CPU's bilinear geometry along one axis from f32 ``place``s (module doc)."""
    with np.errstate(invalid="ignore"):
        inside = (place > -1) & (place < length) if pad else (place >= 0) & (place < length)
    at = np.where(inside, place, _F32(0))
    low = np.floor(at)
    high = low + 1 if pad else np.minimum(np.ceil(at), length - 1)
    frac = (at - low).astype(_F32)
    w_high = np.where(inside & (high < length), frac, _F32(0))
    w_low = np.where(inside & (low >= 0), (_F32(1) - frac).astype(_F32), _F32(0))
    clip = (0, length - 1)
    return _Axis(inside, np.clip(low, *clip).astype(np.int64), np.clip(high, *clip).astype(np.int64), w_low, w_high)


def _geometry(a: DeformableConvolutionAttrs, x: np.ndarray, offsets: np.ndarray, w: np.ndarray) -> tuple[_Axis, _Axis]:
    """Both axes of every tap's sample, from the offsets as CPU reads them (f32)."""
    n, _, h, wd = x.shape
    kh, kw = w.shape[2:]
    oh, ow = offsets.shape[2:]
    strides, dilations = a.strides or (1, 1), a.dilations or (1, 1)
    pb, _ = forward_pads(a, _static(x.shape), _static(w.shape), 2)
    dg = a.deformable_group
    off = offsets.astype(_F32).reshape(n, dg, kh * kw, 2, oh, ow)
    rows = (np.arange(oh)[None, :] * strides[0] - pb[0] + np.arange(kh)[:, None] * dilations[0]).astype(_F32)
    cols = (np.arange(ow)[None, :] * strides[1] - pb[1] + np.arange(kw)[:, None] * dilations[1]).astype(_F32)
    y = np.repeat(rows, kw, axis=0)[None, None, :, :, None] + off[:, :, :, 0]  # [N, DG, K, OH, OW], f32
    xs = np.tile(cols, (kh, 1))[None, None, :, None, :] + off[:, :, :, 1]
    return _axis(y, h, a.bilinear_pad), _axis(xs, wd, a.bilinear_pad)


def _static(shape: Sequence[int]) -> Shape:
    return tuple(Dim(v, v) for v in shape)


def _pixel_weights(a: DeformableConvolutionAttrs, ys: _Axis, xs: _Axis, mask: np.ndarray
                   ) -> list[tuple[np.ndarray, ...]]:
    """Per pixel of the four (low/high rows times low/high columns): its rows, columns, exact weight hy hx m
    (float64) and whether CPU skips it: a tap off the image (all four weights +0), or an f32 weight that is a zero it
    skips (+0; -0 too outside the JIT kernel, group > 1)."""
    found = []
    off = ~(ys.inside & xs.inside)
    m32 = mask.astype(_F32)
    for rows, wy in ((ys.low, ys.w_low), (ys.high, ys.w_high)):
        for cols, wx in ((xs.low, xs.w_low), (xs.high, xs.w_high)):
            with np.errstate(all="ignore"):
                cpu = (wy * wx).astype(_F32) * m32
                exact = wy.astype(np.float64) * wx * mask.astype(np.float64)
            skipped = off | ((cpu == 0) & ((a.group > 1) | ~np.signbit(cpu)))
            found.append((rows, cols, np.where(skipped, 0.0, exact), skipped))
    return found


def _kernel(a: DeformableConvolutionAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, offsets, w = (np.asarray(v) for v in args[:3])
    if any(v.dtype.kind != "f" for v in (x, offsets, w)):
        raise UnsupportedError(f"DeformableConvolution of {x.dtype}: OpenVINO CPU computes it in f32, measured on "
                               "floating point inputs only")
    n, c, _, _ = x.shape
    o, cg, kh, kw = w.shape
    g, dg = a.group, a.deformable_group
    oh, ow = offsets.shape[2:]
    taps = kh * kw
    mask = np.ones((n, dg * taps, oh, ow), _F32) if len(args) < 4 else np.asarray(args[3])
    if mask.dtype.kind not in "fiu":
        raise UnsupportedError(f"a mask of {mask.dtype}")
    if not a.bilinear_pad and np.isnan(offsets).any():
        raise UnsupportedError("NaN offsets without bilinear_interpolation_pad: OpenVINO CPU reads out of the data "
                               "(a segmentation fault, measured on 2026.4)")
    ys, xs = _geometry(a, x, offsets, w)
    pixels = _pixel_weights(a, ys, xs, mask.reshape(n, dg, taps, oh, ow))
    per_dg, og = c // dg, o // g
    weights = w.astype(np.float64).reshape(g, og, cg * taps)
    y = np.zeros((n, g, og, oh * ow))
    block = max(1, _SAMPLES // max(1, taps * oh * ow))
    batch = np.arange(n)[:, None, None, None, None]
    with np.errstate(all="ignore"):
        for lo, hi in _segments(c, (cg, per_dg, block)):
            d, group, first = lo // per_dg, lo // cg, lo % cg
            chans = np.arange(lo, hi)[None, :, None, None, None]
            sample = np.zeros((n, hi - lo, taps, oh, ow))
            for rows, cols, weight, skipped in pixels:
                term = x[batch, chans, rows[:, d][:, None], cols[:, d][:, None]] * weight[:, d][:, None]
                sample += np.where(skipped[:, d][:, None], 0.0, term)
            part = weights[group][:, first * taps:(first + hi - lo) * taps]
            y[:, group] += np.matmul(part, sample.reshape(n, (hi - lo) * taps, oh * ow))
        return [y.reshape(n, o, oh, ow).astype(x.dtype)]


def _segments(count: int, steps: Sequence[int]) -> list[tuple[int, int]]:
    """``range(count)`` cut at every multiple of each step: runs of channels within one group, one deformable group
    and one block."""
    cuts = sorted({count, *(i for s in steps for i in range(0, count, s))})
    return list(zip(cuts, cuts[1:], strict=False))


def _terms(a: DeformableConvolutionAttrs, args: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> int:
    """Each term's roundings (module doc): the accumulation's n = C / group KH KW and its own six."""
    return math.prod(np.shape(args[2])[1:]) + _OWN_ROUNDINGS


def _check_kernel_inputs(a: DeformableConvolutionAttrs, args: Sequence[np.ndarray]) -> None:
    """The static shapes the kernel needs, as the shape rule checks them (it runs first in the executor)."""
    types = [TensorType(None, _static(np.shape(v))) for v in args]
    _infer(a, types, [None] * len(args))


def _run(a: DeformableConvolutionAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    _check_kernel_inputs(a, args)
    return _kernel(a, args)


_ROUNDING = accumulation(_terms, data=(0, 2, 3))

DEFORMABLE_CONVOLUTION_1 = OpSpec("DeformableConvolution", "DeformableConvolution-1", DeformableConvolutionAttrs,
                                  (3, 3), 1, guarded(_infer), _run, rounding=_ROUNDING, evaluates=never)
DEFORMABLE_CONVOLUTION_8 = OpSpec("DeformableConvolution", "DeformableConvolution-8", DeformableConvolution8Attrs,
                                  (3, 4), 1, guarded(_infer), _run, rounding=_ROUNDING, evaluates=never)


# --- DeformablePSROIPooling ------------------------------------------------------------------------

#: The one mode OpenVINO CPU runs (nodes/psroi_pooling.cpp refuses the others).
PS_MODE = "bilinear_deformable"
#: Each sample's own f32 roundings before the sum of the samples (module doc of the op below).
_SAMPLE_ROUNDINGS = 7


@dataclass(frozen=True, slots=True)
class DeformablePSROIPoolingAttrs:
    """DeformablePSROIPooling-1, as OpenVINO reads omitted attributes: output_dim and spatial_scale 0 (output_dim 0
    refused), group_size 1, mode bilinear_deformable, the bins 1, trans_std 1, part_size 1."""

    output_dim: int = A.attr("output_dim", A.INT, 0)
    spatial_scale: float = A.attr("spatial_scale", A.FLOAT, 0.0)
    group_size: int = A.attr("group_size", A.INT, 1)
    mode: str = A.attr("mode", A.STRING, PS_MODE)
    spatial_bins_x: int = A.attr("spatial_bins_x", A.INT, 1)
    spatial_bins_y: int = A.attr("spatial_bins_y", A.INT, 1)
    trans_std: float = A.attr("trans_std", A.FLOAT, 1.0)
    part_size: int = A.attr("part_size", A.INT, 1)


def _ps_infer(a: DeformablePSROIPoolingAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """[rois, output_dim, group_size, group_size] of the data's element type, whatever it is; only ranks checked."""
    for name, t, rank in zip(("data", "rois", "offsets"), inputs, (4, 2, 4), strict=False):
        if t.shape is not None and len(t.shape) != rank:
            raise OpValidationError(f"the {name} must be of rank {rank}, got rank {len(t.shape)}")
    if a.output_dim < 1 or a.group_size < 1:
        raise OpValidationError(f"output_dim and group_size must be positive, got {a.output_dim} and {a.group_size}")
    rois = inputs[1].shape
    g = Dim(a.group_size, a.group_size)
    return [TensorType(inputs[0].element, (DYNAMIC if rois is None else rois[0], Dim(a.output_dim, a.output_dim),
                                            g, g))]


def _ps_cpu_refuses(a: DeformablePSROIPoolingAttrs, inputs: Sequence[TensorType], values) -> str | None:
    """OpenVINO CPU runs the bilinear_deformable mode only (measured on 2026.4: it refuses to compile another)."""
    if a.mode != PS_MODE:
        return f"mode '{a.mode}': OpenVINO CPU runs DeformablePSROIPooling in mode {PS_MODE} only"
    return None


def _ps_operands(a: DeformablePSROIPoolingAttrs, args: Sequence[np.ndarray]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """Data, rois, offsets (None) and batch indices, refused where CPU reads out of its inputs or loops unbounded."""
    x, rois = roi_operands(args, 5)
    if a.mode != PS_MODE:
        raise UnsupportedError(f"DeformablePSROIPooling in mode '{a.mode}'")
    g, d = a.group_size, a.output_dim
    if x.shape[1] < d * g * g or min(a.spatial_bins_x, a.spatial_bins_y) < 0 or 0 in x.shape[2:]:
        raise UnsupportedError(f"data {list(x.shape)} for output_dim {d}, group_size {g} and bins "
                               f"{a.spatial_bins_x}, {a.spatial_bins_y}: OpenVINO CPU reads past it (or loops)")
    offsets = None if len(args) < 3 else np.asarray(args[2], _F32)
    if offsets is not None:
        classes = offsets.shape[1] // 2
        if offsets.shape[0] < len(rois) or classes < 1 or d % classes or a.part_size < 1 \
                or offsets.shape[2:] != (a.part_size, a.part_size):
            raise UnsupportedError(f"offsets {list(offsets.shape)} for {len(rois)} rois, output_dim {d}, part_size "
                                   f"{a.part_size}: OpenVINO CPU reads them as [rois, 2 classes, part_size, part_size]")
    return x, rois, offsets, roi_batches(rois, x.shape[0])


def _ps_starts(a: DeformablePSROIPoolingAttrs, roi: np.ndarray, trans: np.ndarray | None
               ) -> tuple[np.ndarray, np.ndarray, np.float32, np.float32]:
    """One roi's bins, as CPU computes them in f32: per output (c, h, w) the start along x and y, [d, g, g], and the
    sub-bin sizes along x and y."""
    g, d = a.group_size, a.output_dim
    scale, half = _F32(a.spatial_scale), _F32(0.5)
    corners = round_half_away(finite_rois(roi[1:].astype(_F32)).astype(np.float64)).astype(_F32)
    start = corners[:2] * scale - half
    end = (corners[2:] + _F32(1)) * scale - half
    size = np.maximum(end - start, _F32(0.1))  # (x, y)
    bins = size / _F32(g)
    sub = bins / np.array([a.spatial_bins_x, a.spatial_bins_y], _F32)
    moved = np.zeros((2, d, g, g), _F32)
    if trans is not None:
        classes = trans.shape[0] // 2
        parts = np.arange(g) * a.part_size // g
        per = trans.reshape(classes, 2, a.part_size, a.part_size)[:, :, parts[:, None], parts[None, :]]
        moved = np.moveaxis(per[np.arange(d) // (d // classes)], 1, 0) * _F32(a.trans_std)  # [2, d, g, g]
    at = np.arange(g, dtype=_F32)
    xs = (at[None, None, :] * bins[0] + start[0]) + moved[0] * size[0]
    ys = (at[None, :, None] * bins[1] + start[1]) + moved[1] * size[1]
    return xs.astype(_F32), ys.astype(_F32), sub[0], sub[1]


def _ps_kernel(a: DeformablePSROIPoolingAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each output (c, h, w) of a roi the mean of the bilinear samples of channel (c g + h) g + w at the
    spatial_bins_y x spatial_bins_x sub-bin corners from its bin's start that lie within half a pixel of the image
    (clamped onto it), float64 of CPU's f32 places; 0 where none does, and for the rois from a batch index -1 on."""
    x, rois, offsets, batch = _ps_operands(a, args)
    g, d = a.group_size, a.output_dim
    h, w = x.shape[2:]
    out = np.zeros((len(rois), d, g, g))
    channel = (np.arange(d)[:, None, None] * g + np.arange(g)[:, None]) * g + np.arange(g)  # [d, g, g]
    with np.errstate(all="ignore"):
        for r in np.flatnonzero(batch >= 0):
            xs, ys, sub_x, sub_y = _ps_starts(a, rois[r], None if offsets is None else offsets[r])
            image = x[batch[r]].astype(np.float64)
            total, count = np.zeros((d, g, g)), np.zeros((d, g, g))
            for iy in range(a.spatial_bins_y):
                py = (ys + _F32(iy) * sub_y).astype(_F32)
                for ix in range(a.spatial_bins_x):
                    px = (xs + _F32(ix) * sub_x).astype(_F32)
                    if np.isnan(px).any() or np.isnan(py).any():
                        raise UnsupportedError("a NaN sampling place (NaN offsets, or infinite ones times a trans_std "
                                               "of 0): OpenVINO CPU reads at its int cast")
                    live = (px >= -0.5) & (px <= w - 0.5) & (py >= -0.5) & (py <= h - 0.5)
                    cx = np.clip(np.where(live, px, 0), 0, w - 1).astype(_F32)
                    cy = np.clip(np.where(live, py, 0), 0, h - 1).astype(_F32)
                    x1, y1 = np.floor(cx).astype(np.int64), np.floor(cy).astype(np.int64)
                    x2, y2 = np.ceil(cx).astype(np.int64), np.ceil(cy).astype(np.int64)
                    tx, ty = (cx - x1).astype(np.float64), (cy - y1).astype(np.float64)
                    value = ((1 - tx) * (1 - ty) * image[channel, y1, x1] + (1 - tx) * ty * image[channel, y2, x1]
                             + tx * (1 - ty) * image[channel, y1, x2] + tx * ty * image[channel, y2, x2])
                    total += np.where(live, value, 0.0)
                    count += live
            out[r] = np.where(count > 0, total / np.maximum(count, 1), 0.0)
        return [out.astype(x.dtype)]


def _ps_terms(a: DeformablePSROIPoolingAttrs, args: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> int:
    """A sample's own 7 roundings (its weights' three, the product, three additions), the sum of up to
    spatial_bins_x spatial_bins_y samples and the division: each term within gamma(S + 7)."""
    return max(a.spatial_bins_x * a.spatial_bins_y, 1) + _SAMPLE_ROUNDINGS


DEFORMABLE_PSROI_POOLING_1 = OpSpec("DeformablePSROIPooling", "DeformablePSROIPooling-1", DeformablePSROIPoolingAttrs,
                                    (2, 3), 1, _ps_infer, _ps_kernel, rounding=accumulation(_ps_terms, data=(0,)),
                                    cpu_refuses=_ps_cpu_refuses, evaluates=never)
