"""The region-proposal layers of Faster and Mask R-CNN: Proposal-1 and Proposal-4, GenerateProposals-9,
ExperimentalDetectronGenerateProposalsSingleImage-6 and ExperimentalDetectronDetectionOutput-6 (attributes, shape
rules, kernels and rounding rules).

Checked against the installed openvino (shape rules and CPU kernels) by tests/ops/test_proposals_conformance.py.
Measured on openvino 2026.4.1, beyond the specification:

- Proposal-1 (opset1..3) and Proposal-4 (opset4..16): class_probs [N, 2A, H, W] and bbox_deltas [N, 4A, H, W] of rank
  4 (or dynamic), image_shape of rank 1 whose dim is compatible with [3, 4] (an interval meeting it passes), all three
  of a real type (a dynamic one refused). bbox_deltas' dim 1 must be compatible with twice class_probs', the batches
  compatible; output [batch * post_nms_topn, 5] of class_probs' type (batch their merge, else the one known), and
  Proposal-4's scores [batch * post_nms_topn]. Omitted attributes: base_size, pre_nms_topn, post_nms_topn 0 (OpenVINO
  value-initialises them), feat_stride and min_size 1, clip_before_nms true.
- CPU's Proposal (bit for bit, f32): A = len(ratio) len(scale) anchors of ``generate_anchors`` (framework "": offset
  1, ratios' widths and heights rounded half away from zero; "tensorflow": offset 0, not rounded, anchors shifted by
  half the base size, x and y and the image's height and width swapped, the anchors first clamped to the image);
  another framework CPU refuses. Boxes decoded per position (h W + w) A + anchor, each operation rounded once in f32,
  but the centre ``dx * ww + ctr_x``, which the build contracts to one fused multiply-add; the deltas divided by
  box_coordinate_scale and box_size_scale; exp by the C library's expf (glibc's is not correctly rounded: 344 of
  600,000 values differ from exp in f64 rounded once, and with that exp 3 of 6 batches of 40 cases differ); clamped to
  [0, size - offset] with clip_before_nms; a box under min_size times the image's scale gets score 0 (0 times the
  score: NaN for an infinite one). Then libstdc++'s ``std::partial_sort`` by ``score >`` to pre_nms_topn: equal and
  NaN scores end in the order its heap select and heap sort leave them, which ``_partial_sort`` follows step by step
  (an emulation: a stable sort fails the suite). NMS (``_nms``): IoU with offset, a box suppressed where
  ``nms_thresh < IoU``; its AVX2 loop (8 boxes at a time) skips the boxes that do not overlap, where the scalar tail
  compares ``nms_thresh < 0``. Kept boxes (at most post_nms_topn) written [image, x0, y0, x1, y1], clamped to
  [0, size] with clip_after_nms, divided by the size with normalize; the rows after them 0, the first of them -1 in
  its image column. Proposal-4's scores CPU writes for the kept rows only: the rest hold whatever its memory held (the
  kernel gives 0; the suite compares the written rows, the stored answers only layers keeping every row).
- CPU refuses an image_shape of height or width not positive and normal, or of a scale negative or not finite
  (``cpu_refuses`` where it is a constant). It crashes (a segmentation fault running it, not compiling it) where 1 to
  7 boxes enter NMS with post_nms_topn above 1 (its vector loop counts ``num_boxes - 8`` unsigned), and where
  post_nms_topn is 0 with boxes (it writes a kept row past its empty list): ``crashes`` on the attributes, the kernel
  refuses the counts the shapes give.
- GenerateProposals-9 (opset9..16): im_info [N, 3 or 4], anchors [H, W, A, 4], deltas [N, 4A, H, W], scores
  [N, A, H, W], any element types (integers pass); rois [0..N_max post_nms_count, 4] and scores of im_info's type,
  roi_num [N] of roi_num_type (i64 or i32, else refused); pre_nms_count and post_nms_count must be positive and nms_eta
  1. CPU: the anchors (shared by the images) refined as Proposal's but without a fused multiply-add, log sizes capped
  at log(1000 / 16), x1 and y1 less the offset (1 where normalized is false), always clamped to [0, size - offset];
  boxes under min_size times the scales (1 where im_info holds neither 3 nor 4 values) dead before NMS; sorted as
  Proposal's; NMS scalar (no vector loop: a negative threshold suppresses every later box); the images' kept boxes
  one after the other. Bit for bit.
- ExperimentalDetectronGenerateProposalsSingleImage-6 (opset6..16): im_info [3], anchors [?, 4], deltas [?, H, W],
  scores [?, H, W] of one real type (``detectron.one_real_element``); rois [post_nms_count, 4], scores
  [post_nms_count]. CPU:
  GenerateProposals' refinement at offset 1 (min_size unscaled, no scales read), the score multiplied by the min_size
  flag before the sort, NMS at offset 0, scalar; rows after the kept ones 0. post_nms_count 0 with boxes crashes it
  (a segmentation fault running it), a negative one it cannot compile.
- ExperimentalDetectronDetectionOutput-6 (opset6..16): rois [R, 4], deltas [R, 4 num_classes], scores
  [R, num_classes], im_info [1, 3] of one real type; boxes [max_detections_per_image, 4], classes (i32) and scores.
  CPU reads no im_info and ignores class_agnostic_box_regression: rois of width or height 0 or less skipped (0s);
  per class but 0 the deltas divided by deltas_weights (offset 1, log sizes capped at max_delta_log_wh), corners
  clamped at 0 only; per class the boxes scored above score_threshold by score (equal ones by index: a total order),
  NMS by ``JaccardOverlap`` (offset 1, suppressing above nms_threshold), the first post_nms_count (-1: all); then the
  detections in class order, or where more than max_detections_per_image the first of ``std::partial_sort`` by score,
  equal scores by roi index (equal both across classes: libstdc++'s order). Empty deltas_weights with 2 classes or
  more crash it (it reads the first).
- Not modelled (the kernels refuse): inputs of other shapes than CPU reads, empty feature maps, negative counts.
  Every kernel computes in f32 and rounds its outputs to the inputs' type once (f16 inputs measured bit for bit too);
  exact where its inputs are (``exact``): a moved input may move a choice, so no bound then.
"""
from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import Dim
from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .core import ELEMENT
from .cpu import fma
from .detection import FLOAT_LIST
from .detectron import one_real_element
from .intervals import ANY, Iv, compatible, dmul, guarded, is_empty, iv, meet, size_dim, to_dim
from .rounding import exact
from .spec import OpSpec, TensorType, never

_F = np.float32


@dataclass(frozen=True, slots=True)
class ProposalAttrs:
    """Defaults are what OpenVINO's IR reader takes for an omitted attribute (its ``Attributes``, value-initialised:
    base_size, pre_nms_topn and post_nms_topn 0)."""

    base_size: int = A.attr("base_size", A.UINT, 0)
    pre_nms_topn: int = A.attr("pre_nms_topn", A.UINT, 0)
    post_nms_topn: int = A.attr("post_nms_topn", A.UINT, 0)
    nms_thresh: float = A.attr("nms_thresh", A.FLOAT, 0.0)
    feat_stride: int = A.attr("feat_stride", A.UINT, 1)
    min_size: int = A.attr("min_size", A.UINT, 1)
    ratio: tuple[float, ...] = A.attr("ratio", FLOAT_LIST, ())
    scale: tuple[float, ...] = A.attr("scale", FLOAT_LIST, ())
    clip_before_nms: bool = A.attr("clip_before_nms", A.BOOL, True)
    clip_after_nms: bool = A.attr("clip_after_nms", A.BOOL, False)
    normalize: bool = A.attr("normalize", A.BOOL, False)
    box_size_scale: float = A.attr("box_size_scale", A.FLOAT, 1.0)
    box_coordinate_scale: float = A.attr("box_coordinate_scale", A.FLOAT, 1.0)
    framework: str = A.attr("framework", A.STRING, "")


# --- shape rule -------------------------------------------------------------------------------------------------


def _proposal_rule(a: ProposalAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """OpenVINO's ``infer_prop_shape``: [batch * post_nms_topn, 5] (Proposal-4 also [batch * post_nms_topn])."""
    names = ("class_probs", "bbox_deltas", "image_shape")
    for t, what in zip(inputs, names, strict=True):
        if t.element not in REAL_TYPES:
            raise OpValidationError(f"{what} of element type {t.element or 'dynamic'}: it must be a real type")
    probs, deltas, image = (t.shape for t in inputs)
    for shape, rank, what in ((probs, 4, names[0]), (deltas, 4, names[1]), (image, 1, names[2])):
        if shape is not None and len(shape) != rank:
            raise OpValidationError(f"{what} of rank {len(shape)}: it must be {rank}")
    batch: Iv = ANY
    if probs is not None and deltas is not None:
        if not compatible(iv(deltas[1]), dmul(iv(probs[1]), (2, 2))):
            raise OpValidationError(f"bbox_deltas' dim 1 {deltas[1]} must be twice class_probs' {probs[1]}")
        if not compatible(iv(probs[0]), iv(deltas[0])):
            raise OpValidationError(f"class_probs' batch {probs[0]} and bbox_deltas' {deltas[0]} differ")
        batch = meet(iv(probs[0]), iv(deltas[0]))
    elif probs is not None or deltas is not None:
        batch = iv((probs or deltas)[0])
    if image is not None and not compatible(iv(image[0]), (3, 4)):
        raise OpValidationError(f"image_shape of {image[0]} elements: it must hold 3 or 4")
    rows = to_dim(dmul(batch, (a.post_nms_topn, a.post_nms_topn)))
    return [TensorType(inputs[0].element, (rows, Dim(5, 5))), TensorType(inputs[0].element, (rows,))]


def _proposal_1_rule(a: ProposalAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    return _proposal_rule(a, inputs, values)[:1]


# --- kernel -----------------------------------------------------------------------------------------------------


def _libm_expf() -> Callable[[float], float] | None:
    """The C library's expf, which OpenVINO CPU's ``std::exp(float)`` calls (None where it cannot be loaded)."""
    name = ctypes.util.find_library("m")
    if name is None:
        return None
    expf = ctypes.CDLL(name).expf
    expf.restype, expf.argtypes = ctypes.c_float, [ctypes.c_float]
    return expf


_EXPF = _libm_expf()


def _exp(x: np.ndarray) -> np.ndarray:
    """CPU's f32 exp, value by value (glibc's expf is not always correctly rounded: 344 of 600,000 values differ)."""
    if _EXPF is None:
        return np.exp(x.astype(np.float64)).astype(_F)
    return np.array([_EXPF(v) for v in x.reshape(-1).tolist()], _F).reshape(x.shape)


def _min(a: np.ndarray, b) -> np.ndarray:
    """std::min<float>(a, b): b < a ? b : a."""
    return np.where(b < a, b, a).astype(_F)


def _max(a, b: np.ndarray) -> np.ndarray:
    """std::max<float>(a, b): a < b ? b : a."""
    return np.where(a < b, b, a).astype(_F)


def _clamp(x: np.ndarray, top) -> np.ndarray:
    return _max(_F(0), _min(x, top))


@dataclass(frozen=True)
class _Conf:
    """CPU's ``proposal_conf`` per framework."""

    offset: np.float32
    initial_clip: bool
    shift_anchors: bool
    round_ratios: bool
    swap_xy: bool


def _conf(a: ProposalAttrs) -> _Conf:
    if a.framework == "tensorflow":
        return _Conf(_F(0), True, True, False, True)
    return _Conf(_F(1), False, False, True, False)


def _anchors(a: ProposalAttrs, c: _Conf) -> np.ndarray:
    """CPU's ``generate_anchors``: [4, ratios * scales] (x0, y0, x1, y1 about the origin), anchor r * scales + s."""
    base = _F(a.base_size)
    area = _F(a.base_size * a.base_size)
    center = _F(0.5) * (base - c.offset)
    ratios, scales = np.array(a.ratio, _F), np.array(a.scale, _F)
    ratio_w = np.sqrt(area / ratios)
    if c.round_ratios:  # (roundf: half away from zero)
        ratio_w = (np.sign(ratio_w) * np.floor(np.abs(ratio_w) + _F(0.5))).astype(_F)
        ratio_h = ratio_w * ratios
        ratio_h = (np.sign(ratio_h) * np.floor(np.abs(ratio_h) + _F(0.5))).astype(_F)
    else:
        ratio_h = ratio_w * ratios
    half_w = _F(0.5) * (ratio_w[:, None] * scales[None, :] - c.offset)
    half_h = _F(0.5) * (ratio_h[:, None] * scales[None, :] - c.offset)
    anchors = np.stack([center - half_w, center - half_h, center + half_w, center + half_h]).reshape(4, -1)
    return anchors - base * _F(0.5) if c.shift_anchors else anchors


def _enumerate(a: ProposalAttrs, c: _Conf, anchors: np.ndarray, scores: np.ndarray, deltas: np.ndarray,
               image: tuple[np.float32, ...]) -> np.ndarray:
    """CPU's ``enumerate_proposals_cpu`` for one image: [H W A, 5] (x0, y0, x1, y1, score), proposal (h W + w) A +
    anchor, each operation rounded once in f32."""
    img_h, img_w, scale_h, scale_w = image
    count, h, w = scores.shape
    ys, xs = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    if c.swap_xy:
        xs, ys = ys, xs
    x = (xs * a.feat_stride).astype(_F)[:, :, None]
    y = (ys * a.feat_stride).astype(_F)[:, :, None]
    d = deltas.reshape(count, 4, h, w).transpose(2, 3, 0, 1)  # [H, W, A, 4]
    dx, dy = d[..., 0] / _F(a.box_coordinate_scale), d[..., 1] / _F(a.box_coordinate_scale)
    dw, dh = d[..., 2] / _F(a.box_size_scale), d[..., 3] / _F(a.box_size_scale)
    x0, y0, x1, y1 = x + anchors[0], y + anchors[1], x + anchors[2], y + anchors[3]
    if c.initial_clip:
        x0, y0, x1, y1 = _clamp(x0, img_w), _clamp(y0, img_h), _clamp(x1, img_w), _clamp(y1, img_h)
    ww, hh = x1 - x0 + c.offset, y1 - y0 + c.offset
    ctr_x, ctr_y = x0 + _F(0.5) * ww, y0 + _F(0.5) * hh
    pred_x, pred_y = fma(dx, ww, ctr_x), fma(dy, hh, ctr_y)
    pred_w, pred_h = _exp(dw) * ww, _exp(dh) * hh
    x0, y0 = pred_x - _F(0.5) * pred_w, pred_y - _F(0.5) * pred_h
    x1, y1 = pred_x + _F(0.5) * pred_w, pred_y + _F(0.5) * pred_h
    if a.clip_before_nms:
        x0, x1 = _clamp(x0, img_w - c.offset), _clamp(x1, img_w - c.offset)
        y0, y1 = _clamp(y0, img_h - c.offset), _clamp(y1, img_h - c.offset)
    box_w, box_h = x1 - x0 + c.offset, y1 - y0 + c.offset
    min_w, min_h = _F(a.min_size) * scale_w, _F(a.min_size) * scale_h
    keep = ((min_w <= box_w) & (min_h <= box_h)).astype(_F)
    score = keep * scores.transpose(1, 2, 0)
    return np.stack([x0, y0, x1, y1, score], axis=-1).astype(_F).reshape(-1, 5)


def _top(scores: np.ndarray, middle: int) -> list[int]:
    """The indices of the first ``middle`` proposals as CPU's ``std::partial_sort`` by ``score >`` leaves them."""
    values = scores.tolist()
    return _partial_sort(len(values), middle, lambda i, j: values[i] > values[j])


def _partial_sort(count: int, middle: int, before: Callable[[int, int], bool]) -> list[int]:
    """libstdc++'s ``std::partial_sort`` of ``count`` items by the comparator ``before`` (a heap select, then a heap
    sort), step by step: the order it leaves items the comparator does not order (equal scores, NaN) in, which CPU's
    outputs keep. The indices of the first ``middle``."""
    order = list(range(count))

    def push(hole: int, top: int, value: int) -> None:
        parent = (hole - 1) // 2
        while hole > top and before(order[parent], value):
            order[hole] = order[parent]
            hole = parent
            parent = (hole - 1) // 2
        order[hole] = value

    def adjust(hole: int, length: int, value: int) -> None:
        top = child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if before(order[child], order[child - 1]):
                child -= 1
            order[hole] = order[child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            order[hole] = order[child - 1]
            hole = child - 1
        push(hole, top, value)

    def pop(last: int, result: int) -> None:
        value = order[result]
        order[result] = order[0]
        adjust(0, last, value)

    if middle > 1:
        for parent in range((middle - 2) // 2, -1, -1):
            adjust(parent, middle, order[parent])
    for i in range(middle, count):
        if middle and before(order[i], order[0]):
            pop(middle, i)
    for last in range(middle - 1, 0, -1):
        pop(last, last)
    return order[:middle]


def _nms(boxes: np.ndarray, thresh: np.float32, most: int, offset: np.float32, vector: bool,
         dead: np.ndarray | None = None) -> list[int]:
    """CPU's ``nms_cpu`` on the sorted boxes [K, 4] (``dead``: those dead from the start): a box not suppressed is
    kept (up to ``most``) and suppresses each later one whose IoU is above ``thresh``. ``vector``: built with its AVX2
    loop (Proposal's), which takes the later boxes 8 at a time, the rest one by one: both compute the same IoU where
    the boxes overlap, but where they do not the vector loop suppresses nothing and the scalar one compares
    ``thresh < 0`` (a negative threshold suppresses them)."""
    k = len(boxes)
    x0, y0, x1, y1 = (boxes[:, i] for i in range(4))
    dead = np.zeros(k, bool) if dead is None else dead.copy()
    kept: list[int] = []
    with np.errstate(all="ignore"):
        for box in range(k):
            if dead[box]:
                continue
            kept.append(box)
            if len(kept) == most:
                break
            tail = slice(box + 1, k)
            overlap = (x0[box] <= x1[tail]) & (y0[box] <= y1[tail]) & (x0[tail] <= x1[box]) & (y0[tail] <= y1[box])
            width = _max(_F(0), _min(x1[box], x1[tail]) - _max(x0[box], x0[tail]) + offset)
            height = _max(_F(0), _min(y1[box], y1[tail]) - _max(y0[box], y0[tail]) + offset)
            area = width * height
            area_a = (x1[box] - x0[box] + offset) * (y1[box] - y0[box] + offset)
            area_b = (x1[tail] - x0[tail] + offset) * (y1[tail] - y0[tail] + offset)
            iou = np.where(overlap, area / (area_a + area_b - area), _F(0))
            suppressed = thresh < iou
            if vector:
                suppressed &= overlap | (np.arange(box + 1, k) >= box + 1 + (k - box - 1) // 8 * 8)
            dead[tail] |= suppressed
    return kept


def _image_refused(info: np.ndarray) -> str | None:
    """Why CPU refuses to run on image_shape ``info`` (flat, 3 or 4 values), else None."""
    height, width, scale_h = info[0], info[1], info[2]
    scale_w = info[3] if info.size == 4 else scale_h
    if not all(np.isfinite(v) and v >= np.finfo(_F).tiny for v in (height, width)):
        return "image_shape's height and width must be positive normal numbers (CPU refuses others)"
    if not all(np.isfinite(v) and v >= 0 for v in (scale_h, scale_w)):
        return "image_shape's scales must be finite and not negative (CPU refuses others)"
    return None


def _image_info(image: np.ndarray) -> tuple[np.float32, ...]:
    """Height, width and the two scales CPU reads from image_shape (3 values: one scale for both); it refuses what
    it refuses."""
    info = image.astype(_F).reshape(-1)
    if info.size not in (3, 4):
        raise OpValidationError(f"image_shape of {info.size} elements: it must hold 3 or 4")
    problem = _image_refused(info)
    if problem:
        raise OpValidationError(problem)
    return info[0], info[1], info[2], info[3] if info.size == 4 else info[2]


def _proposal(a: ProposalAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """CPU's Proposal node (module doc): per image the proposals enumerated, partially sorted by score (libstdc++'s
    order), cut to pre_nms_topn, NMS'd to post_nms_topn and written as [image, x0, y0, x1, y1] (clipped, normalised),
    the rows after them 0 and the first of those -1 in its image column; Proposal-4 also the scores."""
    probs, deltas, image = (np.asarray(x) for x in args)
    if a.framework not in ("", "tensorflow"):
        raise UnsupportedError(f"Proposal of framework '{a.framework}': CPU runs '' (Caffe) and 'tensorflow' alone")
    count = len(a.ratio) * len(a.scale)
    if probs.ndim != 4 or deltas.ndim != 4 or probs.shape[1] != 2 * count or deltas.shape[1] != 4 * count \
            or probs.shape[0] != deltas.shape[0] or probs.shape[2:] != deltas.shape[2:]:
        raise UnsupportedError(f"Proposal of class_probs {list(probs.shape)} and bbox_deltas {list(deltas.shape)} "
                               f"for {count} anchors: CPU reads [N, 2 A, H, W] and [N, 4 A, H, W] (A the ratios "
                               "times the scales) whatever the shapes")
    if probs.shape[2] * probs.shape[3] == 0 or count == 0:
        raise UnsupportedError("Proposal of no proposals: CPU reads past its buffers")
    problem = _crash(min(count * probs.shape[2] * probs.shape[3], a.pre_nms_topn), a.post_nms_topn)
    if problem:
        raise UnsupportedError(f"Proposal of {problem}")
    c = _conf(a)
    info = _image_info(image)
    img = (info[1], info[0], *info[2:]) if c.swap_xy else info
    anchors = _anchors(a, c)
    top, thresh = a.post_nms_topn, _F(a.nms_thresh)
    rois = np.zeros((probs.shape[0], top, 5), _F)
    scores = np.zeros((probs.shape[0], top), _F)
    with np.errstate(all="ignore"):
        for n in range(probs.shape[0]):
            boxes = _enumerate(a, c, anchors, probs[n, count:].astype(_F), deltas[n].astype(_F), img)
            pre = min(len(boxes), a.pre_nms_topn)
            boxes = boxes[_top(boxes[:, 4], pre)]
            kept = _nms(boxes[:, :4], thresh, top, c.offset, vector=True)
            x0, y0, x1, y1 = (boxes[kept, i] for i in range(4))
            if a.clip_after_nms:
                x0, x1 = _clamp(x0, img[1]), _clamp(x1, img[1])
                y0, y1 = _clamp(y0, img[0]), _clamp(y1, img[0])
            if a.normalize:
                x0, x1, y0, y1 = x0 / img[1], x1 / img[1], y0 / img[0], y1 / img[0]
            rois[n, :len(kept)] = np.stack([np.full(len(kept), n, _F), x0, y0, x1, y1], axis=-1)
            scores[n, :len(kept)] = boxes[kept, 4]
            if len(kept) < top:
                rois[n, len(kept), 0] = -1
    return [rois.reshape(-1, 5).astype(probs.dtype), scores.reshape(-1).astype(probs.dtype)]


def _proposal_1(a: ProposalAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return _proposal(a, args)[:1]


def _crash(pre: int, post: int) -> str | None:
    """Why CPU crashes on ``pre`` boxes before NMS and post_nms_topn ``post`` (module doc), else None."""
    if 0 < pre < 8 and post > 1:
        return (f"{pre} boxes before NMS (1 to 7) and post_nms_topn {post}: OpenVINO's CPU plugin reads past them (a "
                "segmentation fault running it)")
    if pre > 0 and post == 0:
        return "post_nms_topn 0: OpenVINO's CPU plugin writes a row past its empty output (a segmentation fault)"
    return None


def _proposal_crashes(a: ProposalAttrs, read: frozenset[int]) -> str | None:
    return _crash(a.pre_nms_topn, a.post_nms_topn)


def _proposal_refused(a: ProposalAttrs, types: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> str | None:
    """CPU runs the frameworks '' and 'tensorflow' alone, and refuses a constant image_shape of a height or width
    not positive and normal, or a scale negative or not finite."""
    if a.framework not in ("", "tensorflow"):
        return f"framework '{a.framework}': OpenVINO's CPU plugin runs '' (Caffe's) and 'tensorflow' alone"
    image = values[2] if len(values) > 2 else None
    if image is None or np.asarray(image).size not in (3, 4):
        return None
    return _image_refused(np.asarray(image, _F).reshape(-1))


PROPOSAL_1 = OpSpec("Proposal", "Proposal-1", ProposalAttrs, (3, 3), 1, guarded(_proposal_1_rule), _proposal_1,
                    rounding=exact, crashes=_proposal_crashes,
                    cpu_refuses=_proposal_refused, evaluates=never)
PROPOSAL_4 = OpSpec("Proposal", "Proposal-4", ProposalAttrs, (3, 3), 2, guarded(_proposal_rule), _proposal,
                    rounding=exact, crashes=_proposal_crashes,
                    cpu_refuses=_proposal_refused, evaluates=never)


# --- GenerateProposals-9 ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GenerateProposalsAttrs:
    """Defaults are what OpenVINO's IR reader takes for an omitted attribute (its ``Attributes`` value-initialised:
    the counts 0, which it refuses; normalized true, nms_eta 1)."""

    min_size: float = A.attr("min_size", A.FLOAT, 0.0)
    nms_threshold: float = A.attr("nms_threshold", A.FLOAT, 0.0)
    pre_nms_count: int = A.attr("pre_nms_count", A.INT, 0)
    post_nms_count: int = A.attr("post_nms_count", A.INT, 0)
    normalized: bool = A.attr("normalized", A.BOOL, True)
    nms_eta: float = A.attr("nms_eta", A.FLOAT, 1.0)
    roi_num_type: str = A.attr("roi_num_type", ELEMENT, "i64")


def _merged(batch: Iv, d: Dim) -> Iv:
    """Dimension::merge into ``batch``, which a failed merge leaves as it was."""
    both = meet(batch, iv(d))
    return batch if is_empty(both) else both


def _need(condition: bool, message: str) -> None:
    if not condition:
        raise OpValidationError(message)


def _generate_rule(a: GenerateProposalsAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """OpenVINO's ``shape_infer`` of GenerateProposals-9: im_info [N, 3 or 4], anchors [H, W, A, 4], deltas
    [N, 4 A, H, W], scores [N, A, H, W] (compatible dims); rois [0..N post_nms_count, 4], scores [that], roi_num [N]."""
    _need(a.pre_nms_count > 0, f"pre_nms_count {a.pre_nms_count}: it must be 1 or more")
    _need(a.post_nms_count > 0, f"post_nms_count {a.post_nms_count}: it must be 1 or more")
    _need(a.nms_eta == 1.0, f"nms_eta {a.nms_eta}: it must be 1")
    info, anchors, deltas, scores = (t.shape for t in inputs)
    for shape, rank, what in ((info, 2, "im_info"), (anchors, 4, "anchors"), (deltas, 4, "deltas"),
                              (scores, 4, "scores")):
        _need(shape is None or len(shape) == rank, f"{what} of rank {len(shape or ())}: it must be {rank}")
    batch: Iv = ANY
    if info is not None:
        _need(compatible(iv(info[1]), (3, 4)), f"im_info's dim 1 {info[1]}: it must be 3 or 4")
        batch = _merged(batch, info[0])
    if anchors is not None:
        _need(compatible(iv(anchors[3]), (4, 4)), f"anchors' dim 3 {anchors[3]}: it must be 4")
    for shape in (deltas, scores):
        if shape is not None:
            batch = _merged(batch, shape[0])
    if deltas is not None and scores is not None:
        _need(compatible(iv(deltas[0]), iv(scores[0])), "deltas' and scores' batches differ")
        _need(compatible(iv(deltas[1]), dmul(iv(scores[1]), (4, 4))), "deltas' dim 1 must be 4 times scores'")
        _need(all(compatible(iv(deltas[k]), iv(scores[k])) for k in (2, 3)), "deltas' and scores' H, W differ")
        _need(info is None or compatible(iv(deltas[0]), iv(info[0])), "deltas' and im_info's batches differ")
    if scores is not None and anchors is not None:
        _need(all(compatible(iv(anchors[j]), iv(scores[k])) for j, k in ((0, 2), (1, 3), (2, 1))),
              "anchors' [H, W, A] must be scores' [H, W, A]")
    _need(a.roi_num_type in ("i32", "i64"), f"roi_num_type {a.roi_num_type}: it must be i64 or i32")
    top = dmul(batch, (a.post_nms_count, a.post_nms_count))[1]
    rois = to_dim((0, top))
    element = inputs[0].element
    return [TensorType(element, (rois, Dim(4, 4))), TensorType(element, (rois,)),
            TensorType(a.roi_num_type, (to_dim(batch),))]


#: CPU's cap on the deltas of log width and height: log(1000 / 16) in double, then f32.
_MAX_DELTA_LOG = _F(np.log(1000.0 / 16.0))


def _refine(offset: np.float32, anchors: np.ndarray, deltas: np.ndarray, scores: np.ndarray,
            image: np.ndarray, min_size: np.float32) -> np.ndarray:
    """CPU's ``refine_anchors`` for one image: [H W A, 6] (x0, y0, x1, y1, score, kept by min_size), proposal
    (h W + w) A + anchor, each operation rounded once in f32."""
    count, h, w = scores.shape
    info = image.reshape(-1)
    img_h, img_w = info[0], info[1]
    scale_h, scale_w = (info[2], info[2]) if info.size == 3 else (info[2], info[3]) if info.size == 4 \
        else (_F(1), _F(1))
    x0, y0, x1, y1 = (anchors[..., k] for k in range(4))  # [H, W, A]
    d = deltas.reshape(count, 4, h, w).transpose(2, 3, 0, 1)  # [H, W, A, 4]
    dx, dy, dw, dh = (d[..., k] for k in range(4))
    ww, hh = x1 - x0 + offset, y1 - y0 + offset
    ctr_x, ctr_y = x0 + _F(0.5) * ww, y0 + _F(0.5) * hh
    pred_x, pred_y = dx * ww + ctr_x, dy * hh + ctr_y
    pred_w, pred_h = _exp(_min(dw, _MAX_DELTA_LOG)) * ww, _exp(_min(dh, _MAX_DELTA_LOG)) * hh
    x0, y0 = pred_x - _F(0.5) * pred_w, pred_y - _F(0.5) * pred_h
    x1, y1 = pred_x + _F(0.5) * pred_w - offset, pred_y + _F(0.5) * pred_h - offset
    x0, x1 = _clamp(x0, img_w - offset), _clamp(x1, img_w - offset)
    y0, y1 = _clamp(y0, img_h - offset), _clamp(y1, img_h - offset)
    box_w, box_h = x1 - x0 + offset, y1 - y0 + offset
    keep = ((min_size * scale_w <= box_w) & (min_size * scale_h <= box_h)).astype(_F)
    return np.stack([x0, y0, x1, y1, scores.transpose(1, 2, 0), keep], axis=-1).astype(_F).reshape(-1, 6)


def _generate(a: GenerateProposalsAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """CPU's GenerateProposals node (module doc): per image the anchors refined, partially sorted by score
    (libstdc++'s order), cut to pre_nms_count, those below min_size dead, NMS'd to post_nms_count; the kept boxes of
    every image one after the other, their scores, and the count per image."""
    info, anchors, deltas, scores = (np.asarray(x) for x in args)
    if info.ndim != 2 or anchors.ndim != 4 or deltas.ndim != 4 or scores.ndim != 4 \
            or anchors.size != deltas[0].size or deltas[0].size != 4 * scores[0].size \
            or deltas.shape[2:] != scores.shape[2:] or anchors.shape[:3] != (*scores.shape[2:], scores.shape[1]) \
            or len(info) != len(scores) or len(deltas) != len(scores):
        raise UnsupportedError(f"GenerateProposals of im_info {list(info.shape)}, anchors {list(anchors.shape)}, "
                               f"deltas {list(deltas.shape)} and scores {list(scores.shape)}: CPU reads [N, 3 or 4], "
                               "[H, W, A, 4], [N, 4 A, H, W] and [N, A, H, W] whatever the shapes")
    if scores[0].size == 0:
        raise UnsupportedError("GenerateProposals of no anchors: CPU reads past its buffers")
    offset = _F(0) if a.normalized else _F(1)
    thresh, most = _F(a.nms_threshold), a.post_nms_count
    rois, kept_scores, counts = [], [], []
    with np.errstate(all="ignore"):
        for n in range(len(scores)):
            boxes = _refine(offset, anchors.astype(_F), deltas[n].astype(_F), scores[n].astype(_F),
                            info[n].astype(_F), _F(a.min_size))
            pre = min(len(boxes), a.pre_nms_count)
            boxes = boxes[_top(boxes[:, 4], pre)]
            kept = _nms(boxes[:, :4], thresh, most, offset, vector=False, dead=boxes[:, 5] != 1)
            rois.append(boxes[kept, :4])
            kept_scores.append(boxes[kept, 4])
            counts.append(len(kept))
    element = info.dtype
    return [np.concatenate(rois).reshape(-1, 4).astype(element), np.concatenate(kept_scores).astype(element),
            np.array(counts, a.roi_num_type.replace("i", "int"))]


GENERATE_PROPOSALS_9 = OpSpec("GenerateProposals", "GenerateProposals-9", GenerateProposalsAttrs, (4, 4), 3,
                              guarded(_generate_rule), _generate, rounding=exact)


# --- ExperimentalDetectronGenerateProposalsSingleImage-6 --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DetectronProposalsAttrs:
    """Defaults are what OpenVINO's IR reader takes for an omitted attribute (0)."""

    min_size: float = A.attr("min_size", A.FLOAT, 0.0)
    nms_threshold: float = A.attr("nms_threshold", A.FLOAT, 0.0)
    post_nms_count: int = A.attr("post_nms_count", A.INT, 0)
    pre_nms_count: int = A.attr("pre_nms_count", A.INT, 0)


def _detectron_rule(a: DetectronProposalsAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """OpenVINO's ``shape_infer``: im_info [3], anchors [?, 4], deltas [?, H, W] and scores [?, H, W] of one real
    type; rois [post_nms_count, 4] and scores [post_nms_count]."""
    element = one_real_element(inputs)
    info, anchors, deltas, scores = (t.shape for t in inputs)
    for shape, rank, what in ((info, 1, "im_info"), (anchors, 2, "anchors"), (deltas, 3, "deltas"),
                              (scores, 3, "scores")):
        _need(shape is None or len(shape) == rank, f"{what} of rank {len(shape or ())}: it must be {rank}")
    _need(info is None or compatible(iv(info[0]), (3, 3)), f"im_info of {info and info[0]} elements: it must be 3")
    _need(anchors is None or compatible(iv(anchors[1]), (4, 4)), "anchors' dim 1 must be 4")
    _need(deltas is None or scores is None or all(compatible(iv(deltas[k]), iv(scores[k])) for k in (1, 2)),
          "deltas' and scores' H, W differ")
    rows = size_dim(a.post_nms_count)
    return [TensorType(element, (rows, Dim(4, 4))), TensorType(element, (rows,))]


def _detectron(a: DetectronProposalsAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """CPU's ExperimentalDetectronGenerateProposalsSingleImage node (module doc): GenerateProposals' refinement of one
    image at offset 1 (min_size unscaled), each score times its min_size flag (0 or 1), partially sorted by that,
    NMS'd at offset 0 (scalar); post_nms_count rows, those after the kept boxes 0."""
    info, anchors, deltas, scores = (np.asarray(x) for x in args)
    if info.size < 2 or anchors.ndim != 2 or deltas.ndim != 3 or scores.ndim != 3 or anchors.shape[1:] != (4,) \
            or anchors.size != deltas.size or deltas.size != 4 * scores.size or deltas.shape[1:] != scores.shape[1:]:
        raise UnsupportedError(f"ExperimentalDetectronGenerateProposalsSingleImage of im_info {list(info.shape)}, "
                               f"anchors {list(anchors.shape)}, deltas {list(deltas.shape)} and scores "
                               f"{list(scores.shape)}: CPU reads [3], [H W A, 4], [4 A, H, W] and [A, H, W]")
    if scores.size == 0 or a.post_nms_count < 0 or a.pre_nms_count < 0:
        raise UnsupportedError("ExperimentalDetectronGenerateProposalsSingleImage of no anchors or a negative count: "
                               "CPU reads past its buffers")
    problem = _detectron_crashes(a, frozenset())
    if problem:
        raise UnsupportedError(problem)
    count, h, w = scores.shape
    with np.errstate(all="ignore"):
        boxes = _refine(_F(1), anchors.astype(_F).reshape(h, w, count, 4), deltas.astype(_F), scores.astype(_F),
                        np.array([info.reshape(-1)[0], info.reshape(-1)[1]], _F), _F(a.min_size))
        boxes[:, 4] = boxes[:, 5] * boxes[:, 4]
        pre = min(len(boxes), a.pre_nms_count)
        boxes = boxes[_top(boxes[:, 4], pre)]
        kept = _nms(boxes[:, :4], _F(a.nms_threshold), a.post_nms_count, _F(0), vector=False)
    rois = np.zeros((a.post_nms_count, 4), _F)
    rois[:len(kept)] = boxes[kept, :4]
    kept_scores = np.zeros(a.post_nms_count, _F)
    kept_scores[:len(kept)] = boxes[kept, 4]
    return [rois.astype(info.dtype), kept_scores.astype(info.dtype)]


def _detectron_crashes(a: DetectronProposalsAttrs, read: frozenset[int]) -> str | None:
    if a.post_nms_count == 0 and a.pre_nms_count > 0:
        return ("post_nms_count 0: OpenVINO's CPU plugin writes a kept box past its empty list (a segmentation fault "
                "running it)")
    return None


def _detectron_refused(a: DetectronProposalsAttrs, types: Sequence[TensorType],
                       values: Sequence[np.ndarray | None]) -> str | None:
    if a.post_nms_count < 0:
        return f"post_nms_count {a.post_nms_count}: OpenVINO's CPU plugin cannot compile it (a list of that size)"
    return None


DETECTRON_PROPOSALS_6 = OpSpec("ExperimentalDetectronGenerateProposalsSingleImage",
                               "ExperimentalDetectronGenerateProposalsSingleImage-6", DetectronProposalsAttrs, (4, 4),
                               2, guarded(_detectron_rule), _detectron, rounding=exact, crashes=_detectron_crashes,
                               cpu_refuses=_detectron_refused, evaluates=never)


# --- ExperimentalDetectronDetectionOutput-6 ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DetectronOutputAttrs:
    """Defaults are what OpenVINO's IR reader takes for an omitted attribute (0, false, empty)."""

    score_threshold: float = A.attr("score_threshold", A.FLOAT, 0.0)
    nms_threshold: float = A.attr("nms_threshold", A.FLOAT, 0.0)
    max_delta_log_wh: float = A.attr("max_delta_log_wh", A.FLOAT, 0.0)
    num_classes: int = A.attr("num_classes", A.INT, 0)
    post_nms_count: int = A.attr("post_nms_count", A.INT, 0)
    max_detections_per_image: int = A.attr("max_detections_per_image", A.UINT, 0)
    class_agnostic_box_regression: bool = A.attr("class_agnostic_box_regression", A.BOOL, False)
    deltas_weights: tuple[float, ...] = A.attr("deltas_weights", FLOAT_LIST, ())


def _output_rule(a: DetectronOutputAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """OpenVINO's ``shape_infer``: rois [R, 4], deltas [R, 4 num_classes], scores [R, num_classes] (their R
    compatible), im_info [1, 3], of one real type; boxes [max_detections_per_image, 4], classes (i32) and scores
    [max_detections_per_image]."""
    element = one_real_element(inputs)
    rois, deltas, scores, info = (t.shape for t in inputs)
    for shape, what in ((rois, "rois"), (deltas, "deltas"), (scores, "scores"), (info, "im_info")):
        _need(shape is None or len(shape) == 2, f"{what} of rank {len(shape or ())}: it must be 2")
    _need(rois is None or compatible(iv(rois[1]), (4, 4)), "rois' dim 1 must be 4")
    for shape, per, what in ((deltas, 4, "deltas"), (scores, 1, "scores")):
        n = a.num_classes * per
        _need(shape is None or compatible(iv(shape[1]), iv(size_dim(n))), f"{what}' dim 1 must be {n}")
    _need(info is None or (compatible(iv(info[0]), (1, 1)) and compatible(iv(info[1]), (3, 3))),
          "im_info must be [1, 3]")
    if rois is not None and deltas is not None and scores is not None:
        both = meet(iv(rois[0]), iv(deltas[0]))
        _need(not is_empty(both) and compatible(both, iv(scores[0])), "rois', deltas' and scores' dim 0 differ")
    rows = Dim(a.max_detections_per_image, a.max_detections_per_image)
    return [TensorType(element, (rows, Dim(4, 4))), TensorType("i32", (rows,)), TensorType(element, (rows,))]


def _jaccard(boxes: np.ndarray, areas: np.ndarray, i: int, kept: list[int]) -> np.ndarray:
    """CPU's ``JaccardOverlap`` (offset 1) of box ``i`` with each of ``kept``: 0 where they do not overlap."""
    x0, y0, x1, y1 = boxes[i]
    other = boxes[kept]
    apart = (other[:, 0] > x1) | (other[:, 2] < x0) | (other[:, 1] > y1) | (other[:, 3] < y0)
    width = _min(x1, other[:, 2]) - _max(x0, other[:, 0]) + _F(1)
    height = _min(y1, other[:, 3]) - _max(y0, other[:, 1]) + _F(1)
    size = width * height
    overlap = size / (areas[i] + areas[kept] - size)
    return np.where(apart | (width <= 0) | (height <= 0), _F(0), overlap)


def _class_nms(scores: np.ndarray, boxes: np.ndarray, areas: np.ndarray, a: DetectronOutputAttrs) -> list[int]:
    """CPU's ``nms_cf`` of one class: the boxes scored above score_threshold by score (equal ones by index), each kept
    unless its overlap with a box kept before it is above nms_threshold; the first post_nms_count (all for -1)."""
    candidates = np.nonzero(scores > _F(a.score_threshold))[0]
    order = candidates[np.lexsort((candidates, -scores[candidates].astype(np.float64)))]
    kept: list[int] = []
    for i in order.tolist():
        if not kept or not (_jaccard(boxes, areas, i, kept) > _F(a.nms_threshold)).any():
            kept.append(i)
    return kept if a.post_nms_count == -1 else kept[:max(a.post_nms_count, 0)]


def _detection_output(a: DetectronOutputAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """CPU's ExperimentalDetectronDetectionOutput node (module doc): the rois of positive width and height refined by
    each class's deltas (divided by deltas_weights, offset 1, log sizes capped at max_delta_log_wh, corners clamped
    at 0 only), NMS per class but the background (0), then the detections in class order, or where more than
    max_detections_per_image the first of libstdc++'s ``std::partial_sort`` by score (equal ones by roi index);
    rows after them 0."""
    rois, deltas, scores = (np.asarray(x, _F) for x in args[:3])
    classes, top = a.num_classes, a.max_detections_per_image
    if rois.ndim != 2 or rois.shape[1:] != (4,) or deltas.shape != (len(rois), 4 * classes) \
            or scores.shape != (len(rois), classes):
        raise UnsupportedError(f"ExperimentalDetectronDetectionOutput of rois {list(rois.shape)}, deltas "
                               f"{list(deltas.shape)} and scores {list(scores.shape)} for {classes} classes: CPU reads "
                               "[R, 4], [R, 4 num_classes] and [R, num_classes]")
    problem = _output_crashes(a, frozenset())
    if problem or (classes > 1 and len(a.deltas_weights) < 4):
        raise UnsupportedError(problem or "fewer than 4 deltas_weights: CPU reads past them")
    refined = np.zeros((max(classes, 1), len(rois), 4), _F)
    areas = np.zeros((max(classes, 1), len(rois)), _F)
    refined_scores = np.zeros((max(classes, 1), len(rois)), _F)
    with np.errstate(all="ignore"):
        x0, y0, x1, y1 = (rois[:, k] for k in range(4))
        valid = ~((x1 - x0 <= 0) | (y1 - y0 <= 0))
        ww, hh = x1 - x0 + _F(1), y1 - y0 + _F(1)
        ctr_x, ctr_y = x0 + _F(0.5) * ww, y0 + _F(0.5) * hh
        weights = np.array(a.deltas_weights[:4], _F)
        cap = _F(a.max_delta_log_wh)
        for c in range(1, classes):
            d = deltas[:, 4 * c:4 * c + 4] / weights
            pred_x, pred_y = d[:, 0] * ww + ctr_x, d[:, 1] * hh + ctr_y
            pred_w, pred_h = _exp(_min(d[:, 2], cap)) * ww, _exp(_min(d[:, 3], cap)) * hh
            box = [pred_x - _F(0.5) * pred_w, pred_y - _F(0.5) * pred_h,
                   pred_x + _F(0.5) * pred_w - _F(1), pred_y + _F(0.5) * pred_h - _F(1)]
            box = [_max(_F(0), v) for v in box]
            refined[c] = np.where(valid[:, None], np.stack(box, axis=-1), _F(0))
            areas[c] = np.where(valid, (box[2] - box[0] + _F(1)) * (box[3] - box[1] + _F(1)), _F(0))
            refined_scores[c] = np.where(valid, scores[:, c], _F(0))
        found = [(c, i) for c in range(1, classes) for i in _class_nms(refined_scores[c], refined[c], areas[c], a)]
    values = [float(refined_scores[c, i]) for c, i in found]
    if len(found) > top:
        found = [found[k] for k in _partial_sort(len(found), top, lambda p, q: values[p] > values[q] or (
            values[p] == values[q] and found[p][1] < found[q][1]))]
    boxes = np.zeros((top, 4), _F)
    out_scores = np.zeros(top, _F)
    labels = np.zeros(top, np.int32)
    for row, (c, i) in enumerate(found):
        boxes[row], out_scores[row], labels[row] = refined[c, i], refined_scores[c, i], c
    dtype = np.asarray(args[0]).dtype
    return [boxes.astype(dtype), labels, out_scores.astype(dtype)]


def _output_crashes(a: DetectronOutputAttrs, read: frozenset[int]) -> str | None:
    if a.num_classes > 1 and not a.deltas_weights:
        return ("deltas_weights is empty: OpenVINO's CPU plugin reads the first of them (a segmentation fault running "
                "it)")
    return None


DETECTRON_OUTPUT_6 = OpSpec("ExperimentalDetectronDetectionOutput", "ExperimentalDetectronDetectionOutput-6",
                            DetectronOutputAttrs, (4, 4), 3, guarded(_output_rule), _detection_output, rounding=exact,
                            crashes=_output_crashes, evaluates=never)
