"""ExperimentalDetectronPriorGridGenerator-6, ExperimentalDetectronROIFeatureExtractor-6 and
ExperimentalDetectronTopKROIs-6: the ROI layers of Detectron's Mask R-CNN as OpenVINO converts it (Open Model Zoo's
instance-segmentation-security models): attributes, shape rules, reference kernels and rounding rules.

- PriorGridGenerator shifts each of A priors [A, 4] (x1, y1, x2, y2) to every cell of a feature map's H x W grid:
  x + stride_x (w + 0.5), y + stride_y (h + 0.5), as [H, W, A, 4] or, ``flatten``, [H W A, 4]. A stride of 0 is the
  image's width (height) over the grid's.
- ROIFeatureExtractor assigns each roi [R, 4] a level of the pyramid (the feature maps, inputs 1..L) by the
  canonical rule floor(2 + log2(sqrt(area) / 224 + 1e-6)) clamped to [0, L - 1], and pools it there by ROIAlign
  (average, spatial scale 1 / pyramid_scales[level], ``aligned``: -0.5 after the scale) into
  [R, C, output_size, output_size]; its second output is the rois as given (the specification's "reordered"
  rois: CPU copies its input).
- TopKROIs takes the rois [R, 4] of the max_rois largest probabilities [R], the largest first.

OpenVINO's sources: core/shape_inference experimental_detectron_*_shape_inference.hpp and
experimental_detectron_shape_infer_utils.cpp, the CPU plugin's nodes/experimental_detectron_*.cpp. Checked against the
installed openvino by tests/ops/test_detectron_conformance.py. Measured on openvino 2026.4.1, beyond the
specification:

- Opsets: each of the three in opset6..16 (and read from "experimental" or "extension" as opset6's). Every attribute
  may be omitted: flatten false, h, w, strides 0; output_size and sampling_ratio 0, pyramid_scales empty, aligned
  false; max_rois 0. max_rois and output_size are int64s (a dim of -1 is dynamic, of another negative value 0); a
  max_rois of 2^63 or more is refused by the reader.
- Element types: the inputs are of one real type (dynamic ones take the others'; all dynamic gives dynamic). Shape
  rules: as their sources, ranks checked only where static (TopKROIs' rois must be 2-D, its probabilities only
  compatible with 1-D, their counts compatible; PriorGridGenerator's priors 2-D of 4 columns, feature map and image
  4-D of compatible batches; ROIFeatureExtractor's rois compatible with [R, 4], each level compatible with
  [1, C, H, W], C merged over the levels, the first static one's taken as it is).
- CPU computes all three in f32 (f16 inputs converted, its outputs rounded once into f16): PriorGridGenerator and
  ROIFeatureExtractor operation by operation as the kernels here (no FMA), TopKROIs copies rows: every output of the
  360 seeded cases is CPU's to the bit, so is a [1000, 256, 7, 7] extraction from a four-level pyramid of 256
  channels (OpenVINO's reader tests' model, on random inputs). f64 data CPU rounds to f32: the kernels compute it
  in float64 (the exact values) and the rounding rules count CPU's roundings.
- PriorGridGenerator: h and w attributes other than 0 set CPU's grid, but shape inference takes the feature map's
  dims: where they differ CPU writes another number of rows than the output holds: the kernel refuses it.
- ROIFeatureExtractor: output_size 0 kills the process where a roi is pooled (SIGFPE: CPU divides by it), as fewer
  pyramid_scales than the levels pooled did (a segmentation fault: CPU reads past them); where no roi is pooled (all of
  no area, as zeros) CPU runs it: the kernel refuses them only where a roi is pooled. A roi's level takes f32 area,
  sqrt, / 224, + 1e-6 and log2 (the f32 of the double log2 here, which CPU's log2f gives on the measured rois), floor of
  + 2. A roi of an area not above 0 (or NaN) gets level L, which CPU never pools: its features are 0. ROIAlign: start =
  x scale - offset, size max(end - start, 1) (aligned too), sampling_ratio above 0 or ceil(size / output_size) samples
  an axis, at start + bin p + (k + 0.5) bin / n; each sample's 4 products summed, the samples summed from 0 and divided
  by the count once. Fewer pyramid_scales than levels pooled is refused by the kernel, so are non-finite sample
  positions.
- TopKROIs: CPU sorts with std::sort on > (not stable): tied probabilities whose rows differ, where one of them is
  taken, give either order, and the kernel refuses them, as NaN probabilities. A max_rois above R leaves CPU's rows
  from R on unwritten: refused.
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
from .concat import MANY
from .intervals import compatible, dmul, guarded, iv, size_dim, to_dim
from .roi_align import MOST_SAMPLES as _MOST_SAMPLES
from .roi_align import bilinear_taps, sample_values, sum_in_order
from .rounding import ACCUMULATION_UNIT, EXACT, any_differs, gamma, is_exact, moves, output_rounding
from .spec import Kernel, OpSpec, TensorType, never

_F32 = np.float32
_FOUR = Dim(4, 4)


@dataclass(frozen=True, slots=True)
class PriorGridGeneratorAttrs:
    flatten: bool = A.attr("flatten", A.BOOL, False)
    h: int = A.attr("h", A.INT, 0)
    w: int = A.attr("w", A.INT, 0)
    stride_x: float = A.attr("stride_x", FLOAT, 0.0)
    stride_y: float = A.attr("stride_y", FLOAT, 0.0)


@dataclass(frozen=True, slots=True)
class ROIFeatureExtractorAttrs:
    output_size: int = A.attr("output_size", A.INT, 0)
    sampling_ratio: int = A.attr("sampling_ratio", A.INT, 0)
    pyramid_scales: tuple[int, ...] = A.attr("pyramid_scales", A.UINT_LIST, ())
    aligned: bool = A.attr("aligned", A.BOOL, False)


@dataclass(frozen=True, slots=True)
class TopKROIsAttrs:
    max_rois: int = A.attr("max_rois", A.INT, 0)


# --- shape rules ---------------------------------------------------------------------------------


def one_real_element(inputs: Sequence[TensorType]) -> str | None:
    """The inputs' one real element type (None: all dynamic), as ``all_inputs_same_floating_type``."""
    known = {t.element for t in inputs if t.element is not None}
    if len(known) > 1 or not known <= REAL_TYPES:
        raise OpValidationError(f"the inputs must be of one floating point type, got {[t.element for t in inputs]}")
    return next(iter(known), None)


def _rank(t: TensorType, rank: int, what: str) -> bool:
    """Whether ``t``'s rank is static (refusing another than ``rank``)."""
    if t.shape is not None and len(t.shape) != rank:
        raise OpValidationError(f"{what} must be {rank}-D, got rank {len(t.shape)}")
    return t.shape is not None


def _boxes(t: TensorType, what: str) -> None:
    if _rank(t, 2, what) and merge_dim(t.shape[1], _FOUR) is None:
        raise OpValidationError(f"{what} must hold 4 numbers a row, got {t.shape[1]}")


def _prior_grid_rule(a: PriorGridGeneratorAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    priors, features, image = inputs
    element = one_real_element(inputs)
    _boxes(priors, "priors")
    batches = _rank(features, 4, "feature_map")
    batches = _rank(image, 4, "im_data") and batches
    if batches and not compatible(iv(features.shape[0]), iv(image.shape[0])):
        raise OpValidationError(f"feature_map's batch {features.shape[0]} and im_data's {image.shape[0]} differ")
    grid = features.shape[2:] if features.shape is not None else (DYNAMIC, DYNAMIC)
    count = priors.shape[0] if priors.shape is not None else DYNAMIC
    if a.flatten:
        rows = to_dim(dmul(dmul(iv(grid[0]), iv(grid[1])), iv(count))) \
            if features.shape is not None and priors.shape is not None else DYNAMIC
        return [TensorType(element, (rows, _FOUR))]
    return [TensorType(element, (*grid, count, _FOUR))]


def _feature_rule(a: ROIFeatureExtractorAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    rois, levels = inputs[0], inputs[1:]
    element = one_real_element(inputs)
    _boxes(rois, "rois")
    count = rois.shape[0] if rois.shape is not None else DYNAMIC
    channels = None
    for level in levels:
        if not _rank(level, 4, "each level of the pyramid"):
            continue
        if not compatible(iv(level.shape[0]), (1, 1)):
            raise OpValidationError(f"a level of the pyramid holds {level.shape[0]} images, not 1")
        merged = level.shape[1] if channels is None else merge_dim(channels, level.shape[1])
        if merged is None:
            raise OpValidationError(f"the levels of the pyramid hold {channels} and {level.shape[1]} channels")
        channels = merged
    side = size_dim(a.output_size)
    channels = DYNAMIC if channels is None else channels
    return [TensorType(element, (count, channels, side, side)), TensorType(element, (count, _FOUR))]


def _top_rule(a: TopKROIsAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    rois, probs = inputs
    element = one_real_element(inputs)
    _boxes(rois, "input_rois")
    if _rank(probs, 1, "rois_probs") and rois.shape is not None and \
            not compatible(iv(rois.shape[0]), iv(probs.shape[0])):
        raise OpValidationError(f"{rois.shape[0]} rois and {probs.shape[0]} probabilities")
    return [TensorType(element, (size_dim(a.max_rois), _FOUR))]


# --- kernels -------------------------------------------------------------------------------------


def _kind(x: np.ndarray) -> type:
    """The type the kernels compute in: f32 as CPU, float64 for f64 data (which CPU rounds to f32 and the rounding
    rules count)."""
    return np.float64 if x.dtype == np.float64 else _F32


def _floats(args: Sequence[np.ndarray], what: str) -> list[np.ndarray]:
    found = [np.asarray(v) for v in args]
    if any(v.dtype.kind != "f" for v in found):
        raise OpValidationError(f"{what} of {[str(v.dtype) for v in found]}: the inputs must be floating point")
    return found


def _grid(a: PriorGridGeneratorAttrs, priors: np.ndarray, features: np.ndarray, image: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray]:
    """CPU's steps and cell offsets: step (w + 0.5) per column and step (h + 0.5) per row, in f32."""
    if priors.ndim != 2 or priors.shape[1] != 4 or features.ndim != 4 or image.ndim != 4:
        raise OpValidationError(f"PriorGridGenerator of priors {list(priors.shape)}, feature map "
                                f"{list(features.shape)} and image {list(image.shape)}")
    height, width = features.shape[2:]
    if (a.h and a.h != height) or (a.w and a.w != width):
        raise UnsupportedError(f"PriorGridGenerator of a grid {a.h} x {a.w} on a feature map of {height} x {width}: "
                               "OpenVINO CPU writes another number of rows than the output holds")
    with np.errstate(all="ignore"):
        step_x = _F32(a.stride_x) if a.stride_x else _F32(_F32(image.shape[3]) / _F32(width))
        step_y = _F32(a.stride_y) if a.stride_y else _F32(_F32(image.shape[2]) / _F32(height))
        return (step_x * (np.arange(width, dtype=_F32) + _F32(0.5)),
                step_y * (np.arange(height, dtype=_F32) + _F32(0.5)))


def _prior_grid(a: PriorGridGeneratorAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Every prior moved to every cell: [H, W, A, 4] (x1, y1, x2, y2) + the cell's offsets, in f32 as CPU (f64
    priors, which CPU rounds to f32, in float64: the exact sums)."""
    priors, features, image = _floats(args, "PriorGridGenerator")
    dx, dy = _grid(a, priors, features, image)
    shift = np.stack(np.broadcast_arrays(dx[None, :], dy[:, None], dx[None, :], dy[:, None]), -1)
    kind = _kind(priors)
    with np.errstate(all="ignore"):
        out = (priors.astype(kind)[None, None] + shift[:, :, None, :].astype(kind)).astype(kind)
    return [out.reshape((-1, 4) if a.flatten else out.shape).astype(priors.dtype)]


def _prior_grid_rounding(kernel: Kernel, a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                         outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """CPU's arithmetic is the kernel's (one rounded product per cell, one rounded sum per element, measured to the
    bit), so on one input both agree: exact, which lets the layers the grid steers (TopKROIs, ROIFeatureExtractor)
    be judged; priors moved within b move each sum by b, and each side rounds it once: b + 2 u (|y| + b), plus the
    output's rounding. The other inputs give only their shapes."""
    y = outputs[0]
    if is_exact(bounds[0]) and np.asarray(args[0]).dtype != np.float64:
        return [EXACT]
    priors = np.broadcast_to(bounds[0], args[0].shape).astype(np.float64)
    b = np.broadcast_to(priors, (*args[1].shape[2:], *priors.shape)).reshape(y.shape)
    return [b + 2.0 * ACCUMULATION_UNIT * (np.abs(y.astype(np.float64)) + b) + output_rounding(y)]


def _top_rois(a: TopKROIsAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The rows of the max_rois largest probabilities, the largest first (refusing where CPU's order is not one)."""
    rois, probs = _floats(args, "TopKROIs")
    if rois.ndim != 2 or rois.shape[1] != 4 or probs.shape != rois.shape[:1]:
        raise OpValidationError(f"TopKROIs of rois {list(rois.shape)} and probabilities {list(probs.shape)}")
    if a.max_rois > len(rois) or a.max_rois < 0:
        raise UnsupportedError(f"TopKROIs of {a.max_rois} of {len(rois)} rois: OpenVINO CPU leaves the rows past "
                               "the rois unwritten")
    p = probs.astype(_F32)
    if np.isnan(p).any():
        raise UnsupportedError("TopKROIs of NaN probabilities: OpenVINO CPU's sort has no order for them")
    order = np.argsort(-p, kind="stable")[:a.max_rois]
    rows = rois.astype(_F32).view(np.uint32)
    for value in np.unique(p[order]):
        if len(np.unique(rows[p == value], axis=0)) > 1:
            raise UnsupportedError(f"TopKROIs of different rois of one probability {value}: OpenVINO CPU's sort is "
                                   "not stable, their order unknown")
    return [rois[order].astype(rois.dtype)]


def _feature_levels(rois: np.ndarray, levels: int) -> np.ndarray:
    """Per roi its level, as CPU computes it in f32: floor(log2(sqrt(area) / 224 + 1e-6) + 2) within [0, L - 1];
    L (never pooled) for an area not above 0."""
    r = rois.astype(_F32)
    with np.errstate(all="ignore"):
        area = ((r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])).astype(_F32)
        scaled = (np.sqrt(area) / _F32(224)).astype(_F32) + _F32(1e-6)
        level = np.floor((np.log2(scaled.astype(np.float64)).astype(_F32) + _F32(2)).astype(_F32))
    found = np.clip(np.nan_to_num(level, nan=0.0), 0, levels - 1).astype(np.int64)
    return np.where(area > 0, found, levels)


def _feature_axis(start: np.float32, size: np.float32, bins: int, count: int) -> np.ndarray:
    """[bins, count] f32 sample positions: start + p bin + (k + 0.5) bin / count, each operation rounded."""
    with np.errstate(all="ignore"):
        step = _F32(size / _F32(bins))
        offsets = ((np.arange(count, dtype=_F32) + _F32(0.5)) * step / _F32(count)).astype(_F32)
        return ((start + np.arange(bins, dtype=_F32)[:, None] * step).astype(_F32) + offsets).astype(_F32)


def _feature_pool(a: ROIFeatureExtractorAttrs, args: Sequence[np.ndarray], in_f32: bool
                  ) -> tuple[np.ndarray, np.ndarray]:
    """[R, C, side, side] pooled on each roi's level, and the samples in a bin per roi (0 where not pooled):
    ``in_f32`` CPU's f32 arithmetic in its order, else the same sum in float64 (for the rounding rule)."""
    rois, levels = args[0], args[1:]
    side = a.output_size
    assigned = _feature_levels(rois, len(levels))
    used = assigned[assigned < len(levels)]
    if side < 0 or used.size and (side == 0 or used.max() >= len(a.pyramid_scales)):
        raise UnsupportedError(f"ROIFeatureExtractor of output_size {side} and pyramid_scales "
                               f"{list(a.pyramid_scales)} pooling levels {sorted(set(used.tolist()))}: OpenVINO CPU "
                               "divides by the size (0 kills the process) and reads scales past them (a crash)")
    kind = _F32 if in_f32 else np.float64
    channels = levels[0].shape[1]
    out = np.zeros((len(rois), channels, side, side), kind)
    counts = np.zeros(len(rois), np.int64)
    offset = _F32(0.5) if a.aligned else _F32(0)
    for r, level in enumerate(assigned):
        if level == len(levels) or out[r].size == 0:
            continue
        image = levels[level][0]
        h, w = image.shape[1:]
        with np.errstate(all="ignore"):
            scale = _F32(_F32(1) / _F32(a.pyramid_scales[level]))
            x1, y1, x2, y2 = ((rois[r].astype(_F32) * scale).astype(_F32) - offset).astype(_F32)
            width, height = max(_F32(x2 - x1), _F32(1)), max(_F32(y2 - y1), _F32(1))
        if not all(np.isfinite(v) for v in (x1, y1, width, height)):
            raise UnsupportedError(f"ROIFeatureExtractor of a roi {rois[r].tolist()} at scale {scale}: not finite")
        ratio = a.sampling_ratio
        sx, sy = (ratio, ratio) if ratio > 0 else (int(np.ceil(_F32(width / _F32(side)))),
                                                   int(np.ceil(_F32(height / _F32(side)))))
        if side * sy * side * sx > _MOST_SAMPLES:
            raise UnsupportedError(f"ROIFeatureExtractor of a roi {rois[r].tolist()} of {sy} x {sx} samples a bin: "
                                   "more than the kernel holds")
        counts[r] = sx * sy
        ys, xs = _feature_axis(y1, height, side, sy), _feature_axis(x1, width, side, sx)
        taps = bilinear_taps(ys[:, :, None, None], xs[None, None, :, :], h, w, sx * sy)
        with np.errstate(all="ignore"):
            out[r] = (sum_in_order(sample_values(image, taps, kind)) / kind(sx * sy)).astype(kind)
    return out, counts


def _features(a: ROIFeatureExtractorAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each roi's features pooled on its level, and the rois, in the inputs' element type."""
    found = _floats(args, "ROIFeatureExtractor")
    rois, levels = found[0], found[1:]
    if rois.ndim != 2 or rois.shape[1] != 4 or any(v.ndim != 4 or v.shape[0] != 1 for v in levels) or \
            len({v.shape[1] for v in levels}) != 1:
        raise OpValidationError(f"ROIFeatureExtractor of rois {list(rois.shape)} and levels "
                                f"{[list(v.shape) for v in levels]}")
    pooled = _feature_pool(a, [rois, *levels], _kind(levels[0]) == _F32)[0]
    return [pooled.astype(rois.dtype), rois.copy()]


def _feature_rounding(kernel: Kernel, a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                      outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """CPU's geometry and order are the kernel's, so on one input both agree to the bit; the rule still bounds each
    side's f32 arithmetic: n samples of 4 rounded products, summed from 0 and divided by n, are within gamma(n + 5)
    of K(|x|) (the exact float64 average of |weight pixel|; one more rounding for f64 data, which CPU rounds to
    f32); levels moved within b move the exact average by K(b) at most (weights are not negative):
    2 gamma(n + 5) K(|x| + b) + K(b), plus the output's rounding. Moved rois
    may change their level and samples: no bound. The second output is the rois, moved with them."""
    if any_differs(args, bounds, (0,)):
        return [np.full((), np.inf), np.full((), np.inf)]
    rois, levels = args[0], args[1:]
    y = outputs[0]
    wide = [np.abs(v).astype(np.float64) + np.broadcast_to(b, v.shape) for v, b in zip(levels, bounds[1:],
                                                                                        strict=True)]
    size, counts = _feature_pool(a, [rois, *wide], False)
    bound = 2.0 * gamma(counts + 5)[:, None, None, None] * size + output_rounding(y)
    if not all(is_exact(b) for b in bounds[1:]):
        moved = [np.broadcast_to(b, v.shape).astype(np.float64) for v, b in zip(levels, bounds[1:], strict=True)]
        bound = bound + _feature_pool(a, [rois, *moved], False)[0]
    return [np.nan_to_num(bound, nan=0.0), EXACT]


PRIOR_GRID_GENERATOR_6 = OpSpec("ExperimentalDetectronPriorGridGenerator", "ExperimentalDetectronPriorGridGenerator-6",
                                PriorGridGeneratorAttrs, (3, 3), 1, guarded(_prior_grid_rule), _prior_grid,
                                rounding=_prior_grid_rounding, evaluates=never)
ROI_FEATURE_EXTRACTOR_6 = OpSpec("ExperimentalDetectronROIFeatureExtractor",
                                 "ExperimentalDetectronROIFeatureExtractor-6", ROIFeatureExtractorAttrs, (2, MANY), 2,
                                 guarded(_feature_rule), _features, rounding=_feature_rounding, evaluates=never)
TOP_K_ROIS_6 = OpSpec("ExperimentalDetectronTopKROIs", "ExperimentalDetectronTopKROIs-6", TopKROIsAttrs, (2, 2), 1,
                      guarded(_top_rule), _top_rois, rounding=moves(0), evaluates=never)
