"""The detection helpers of SSD and YOLO models: ReorgYolo-2, RegionYolo-1, PriorBoxClustered-1, PriorBox-1,
PriorBox-8, DetectionOutput-1 and DetectionOutput-8 (attributes, shape rules, kernels and rounding rules).

Checked against the installed openvino (shape rules and CPU kernels) by tests/ops/test_detection_conformance.py.
Measured on openvino 2026.4.1, beyond the specification:

- ReorgYolo is in opset2..16, and written ``opset1`` it is read from opset2 (``opsets._READ_FROM``). Its one
  attribute ``stride`` is a list of which only the first value counts; an empty or omitted one is refused. Data of any
  element type (a dynamic one too), of rank 4 (a dynamic rank gives a dynamic rank): [N, C s^2, H / s, W / s], the
  divisions on intervals as ``ddiv`` (a dim holding no multiple of s refused), a static C below s^2 refused (an
  interval is not checked). Stride 0 gives [N, 0, 0, 0], and OpenVINO's CPU plugin dies of a division by zero
  (SIGFPE) running it: ``check`` refuses it. The CPU reads the input buffer as [N, C / s^2, H s, W s] and writes
  output [n, c, h, w] (enumerated as the input's [N, C, H, W]) from element [n, c % C', h s + (c / C') / s,
  w s + (c / C') % s] of it, C' = C / s^2: Darknet's reorg, bit for bit on every element type. It moves the data
  through f32 (i32 beyond 2^24 comes out rounded, 2^31 - 1 as 2147483520), which the kernel does not copy: it moves
  every type bit for bit. A C no multiple of s^2 the CPU reads misaligned: the kernel refuses it.
- RegionYolo-1 is in opset1..16. Data of a real element type only (a dynamic one is refused), of rank 4 (a dynamic
  rank gives a dynamic rank; OpenVINO's is "1 to 4"). With do_softmax the dims axis..end_axis (each in [-4, 3]) are
  multiplied into one (end_axis before axis: the input's shape), else the output is the input's with dim 1
  ``len(mask) (coords + classes + 1)``. Per batch and region (``num`` of them with do_softmax, else ``len(mask)``),
  each of ``coords + classes + 1`` entries an [H, W] plane: CPU takes the logistic of entries 0 and 1 (x and y: not
  w and h, whatever ``coords``), and of the objectness entry ``coords`` (without do_softmax also of every class
  entry); with do_softmax the class entries are a softmax over the classes (per position). The other entries pass
  unchanged. The kernel refuses a channel count other than regions times entries (the CPU reads the buffer flat,
  OpenVINO's reference only batch 0's part), coords below 2 (the logistic taken twice) and bf16 data; it computes in
  float64 and rounds once. CPU computes in f32 (f16 in f32, rounded once at the end): the logistic by its exp
  approximation, e / (1 + e) of e = exp(-|x|), then 1 - that for x >= 0, which flushes to 0 below -87.3; on
  1.5M values (f32 and f16, in [-30, 30]) measured within 3.4 f32 ulps of |y| (Sigmoid-1's rule allows 4, plus the
  output's rounding).
  CPU's softmax over the classes (``SoftmaxGeneric``: positions in vectors of 16 on AVX-512, 8 on AVX2, the rest one
  by one) was measured to subtract, at some positions of a vector, another class score than the row's maximum (the
  first one, it seems: one row of scores [-200, 1, 2, 3] at every position gives [0, 0.09, 0.24, 0.67] at position 0
  and [0, NaN, NaN, NaN] at position 1, on AVX-512 and at ONEDNN_MAX_CPU_ISA=AVX2 alike): a defect, which the kernel
  does not copy (it takes the maximum). Where the scores of a position span less than 88 the results are still right
  but for the rounding of x - m, up to 129 f32 ulps of y measured (scores in [-40, 40]), which the rounding rule adds
  to SoftMax-8's rule (2 u (max - min) y); where they span more, or hold NaN or an infinity, CPU's answer (NaN rows,
  or 0 and NaN) is not bounded.
- PriorBoxClustered-1 (opset1..16), PriorBox-1 (opset1..7) and PriorBox-8 (opset8..16): two inputs of integer types
  (a dynamic one passes; floats and boolean are refused), the output size of rank 1 (or dynamic) and the image size
  of the output size's rank where that is known (any rank where it is not). The output is f32 [2, 4 H W priors]
  where the output size [H, W] is known (it must hold two values), else [2, ?]. PriorBoxClustered counts its widths
  as its priors (heights as many, else refused); PriorBox counts OpenVINO's ``number_of_priors`` (its aspect ratios,
  1 included, deduplicated after rounding to 1e-6 in f32, then min and max sizes, fixed sizes and densities), which
  does not always count the boxes it writes (max sizes without scale_all_sizes, min sizes beside fixed sizes, fixed
  ratios other than one per aspect ratio): the kernel refuses those. Omitted attributes: clip true for
  PriorBoxClustered, scale_all_sizes and min_max_aspect_ratios_order true for PriorBox, the others 0 or empty.
- The priors' kernels compute in f32 as OpenVINO does, each operation rounded once (no FMA): bit for bit with CPU's
  nodes and with OpenVINO's reference, which folds the layer where its inputs are known when it compiles (a ShapeOf of
  a static shape). One difference between the two, measured: a fixed size's grid starts at the centre minus half the
  fixed size, which CPU's PriorBox computes in f32 (21 / 2 = 10.5) and the reference by an integer division (10): the
  kernel follows CPU, ``folded`` the reference. CPU compiles PriorBox-8 only where it can make it a PriorBox-1
  (min_max_aspect_ratios_order true) or fold it. Fewer densities than fixed sizes make OpenVINO read past the end of
  the list (a segmentation fault where it is empty): ``check`` refuses them. OpenVINO's serializer writes a list of
  floats to 6 significant digits (27.91249 as 27.9125), so a model saved from memory and read again holds other
  widths than the one compiled: the suite's attributes have 6 digits.
- DetectionOutput-1 (opset1..7) and DetectionOutput-8 (opset8..16): shape rules (OpenVINO's ``shape_infer_base``,
  DetectionOutput-8's classes counted from the dims by ``compute_num_classes``). 3 or 5 inputs; box logits and
  proposals of a real type (a dynamic one refused), the class predictions of box logits' type exactly, the additional
  ones of the class predictions' and box logits'. num_classes (DetectionOutput-1) must be 1 or more; code_type one of
  the two Caffe spellings, exactly (CORNER_SIZE refused). The output, of box logits' type, is [1, 1, N, 7]: N the
  images times keep_top_k[0] where it is positive, else (keep_top_k[0] -1 and top_k positive) times top_k and the
  classes, else times the prior boxes and the classes, an unknown count making N dynamic. An empty keep_top_k
  (omitted) crashes OpenVINO's shape inference (a segmentation fault reading the model: it reads the first value):
  ``check`` refuses it.
- DetectionOutput's kernel is CPU's node (both versions: the classes counted from the dims, num_classes unread),
  measured on 2026.4.1: it computes in f32 (f16 and f64 inputs converted), its output converted to box logits' type.
  The proposals hold per image (one for all, or one each) the prior boxes, [xmin, ymin, xmax, ymax] normalized, else
  [image id, xmin, ymin, xmax, ymax] in pixels, divided by input_width and input_height in f32; not normalized, a
  prior box of image id -1 ends the boxes counted. Their variances are the first 4 P values of the second plane
  (which holds 5 P where not normalized). Decoding, each operation rounded in f32 in this order: CORNER, prior +
  variance * logit; CENTER_SIZE, Caffe's centre and size, exp(variance * logit) * prior size; clip_before_nms clips to
  [0, 1] (NaN to 1). With 5 inputs the prior boxes are decoded by the ARM's box predictions first, and those boxes
  decoded again by the box logits as prior boxes, divided by the image's dims a second time where not normalized,
  clipped at both steps; a prior box whose ARM score (the second of its two) is below objectness_score scores 1 for
  background_label_id and 0 for every other class. Caffe's way (decrease_label_id false): per class but
  background_label_id (-1, or a class beyond the last: none), the prior boxes scoring above confidence_threshold
  (strictly), by score, ties by prior box, the first top_k (-1: all; 0 or below -1: none), then NMS: a box is dropped
  whose overlap with a kept one is above nms_threshold (strictly; the overlap 0 where the boxes are apart or the
  intersection has no width or height). MXNet's (decrease_label_id true, which CPU refuses to run with a
  background_label_id other than 0): per prior box its best class from 1 (the first of the highest score at or above
  confidence_threshold and above -1), by score, ties by class * P + prior box, the first top_k of the image, then NMS
  per class; labels one less. Then per image, where keep_top_k[0] is 0 or more and the detections exceed it, the best
  keep_top_k[0] by score, ties by prior box (one prior box's equal scores in two classes: CPU's std::sort leaves their
  order unspecified, the kernel takes the lower class first). The output: every image's detections packed, per image
  per class, by score, ties by prior box, [image, label, score, xmin, ymin, xmax, ymax] (clipped with clip_after_nms),
  then, where the output holds more rows, a row of image id -1 and zeros, zeros after. Where keep_top_k[0] is neither
  positive nor -1 and top_k is positive CPU writes top_k rows per image and class: with a top_k above the prior boxes
  it refuses to run ("insufficient output buffer size", which check does not know), below them the last rows are left
  unwritten (stale values, measured): the kernel refuses both, and bf16 inputs (not modelled). CPU's sparse path (a
  confidence_threshold above its sparsity threshold and 8 bytes per class and prior box beyond its L3 cache) reads
  the same, not measured. Scores are moved: exact; the coordinates' rounding rule is derived from the operations
  (``_decode_error``), and on 300 seeded cases CPU was ours bit for bit on all but one (within 1.4% of the bound).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.dtypes import INTEGER_TYPES, REAL_TYPES
from ..base.errors import OpValidationError, UnsupportedError
from ..base.packed import is_bf16
from . import attrs as A
from .activations import SIGMOID_1, sigmoid
from .core import NoAttrs
from .intervals import ANY, ONE, Iv, compatible, ddiv, dmul, guarded, is_empty, is_static, iv, to_dim
from .operands import ints, normalize_axis
from .rounding import ACCUMULATION_UNIT, APPROXIMATION, EXACT, any_differs, exact, is_exact, moves, output_rounding
from .softmax import SOFTMAX_8, Softmax8Attrs, softmax
from .spec import Kernel, OpSpec, ShapeRule, TensorType, never


def _list_of(item: A.Codec, what: str) -> A.Codec:
    """A comma-separated list of ``item`` values (an empty attribute an empty list)."""

    def parse(text: str) -> tuple:
        return () if text == "" else tuple(item.parse(p) for p in text.split(","))

    return A.Codec(f"a comma-separated list of {what}", parse, lambda v: ",".join(item.format(x) for x in v))


INT_LIST = _list_of(A.INT, "integers")
FLOAT_LIST = _list_of(A.FLOAT, "numbers")


# --- ReorgYolo-2 ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReorgYoloAttrs:
    """``stride``: a list, of which the first value counts; OpenVINO refuses an empty or omitted one."""

    stride: tuple[int, ...] = A.attr("stride", A.UINT_LIST, ())


def _reorg_rule(a: ReorgYoloAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    (data,) = inputs
    if not a.stride:
        raise OpValidationError("stride is empty: it is required")
    if data.shape is None:
        return [TensorType(data.element, None)]
    if len(data.shape) != 4:
        raise OpValidationError(f"data of rank {len(data.shape)}: [N, C, H, W] is required")
    s = a.stride[0]
    channels = data.shape[1]
    if channels.is_static and channels.lo < s * s:
        raise OpValidationError(f"{channels.lo} channels: C >= stride * stride ({s * s}) is required")
    spatial = []
    for d in data.shape[2:]:
        out = ddiv(iv(d), s)
        if is_empty(out):
            raise OpValidationError(f"a spatial dim {d} holds no multiple of stride {s}")
        spatial.append(to_dim(out))
    return [TensorType(data.element, (data.shape[0], to_dim(dmul(iv(channels), (s * s, s * s))), *spatial))]


def _reorg(a: ReorgYoloAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """CPU's reorg (module doc): the input buffer read as [N, C', H s, W s], output [n, c, h, w] over the input's
    [N, C, H, W] taken from [n, c % C', h s + (c / C') / s, w s + (c / C') % s], then shaped [N, C s^2, H/s, W/s]."""
    x = np.asarray(args[0])
    if x.ndim != 4:
        raise OpValidationError(f"data of rank {x.ndim}: [N, C, H, W] is required")
    s = _stride(a)
    n, c, h, w = x.shape
    if c % (s * s) or h % s or w % s:
        raise UnsupportedError(f"ReorgYolo-2 of [{n}, {c}, {h}, {w}] by stride {s}: C must be a multiple of "
                               "stride * stride and H, W of stride (OpenVINO CPU reads the buffer misaligned else)")
    depth = c // (s * s)
    # [N, C', H s, W s] as [N, C', H, s_h, W, s_w]; output [n, (s_h, s_w, c'), h, w] over [N, C, H, W]
    src = x.reshape(n, depth, h, s, w, s).transpose(0, 3, 5, 1, 2, 4)
    return [np.ascontiguousarray(src).reshape(n, c * s * s, h // s, w // s)]


def _stride(a: ReorgYoloAttrs) -> int:
    if not a.stride or a.stride[0] == 0:
        raise OpValidationError("stride must be 1 or more")
    return a.stride[0]


def _reorg_crashes(a: ReorgYoloAttrs, read: frozenset[int]) -> str | None:
    if a.stride and a.stride[0] == 0:
        return "stride 0: OpenVINO's CPU plugin dies of a division by zero (SIGFPE) running it"
    return None


REORG_YOLO_2 = OpSpec("ReorgYolo", "ReorgYolo-2", ReorgYoloAttrs, (1, 1), 1, guarded(_reorg_rule), _reorg,
                      rounding=moves(0), crashes=_reorg_crashes, evaluates=never)


# --- RegionYolo-1 -----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RegionYoloAttrs:
    """Defaults are what OpenVINO's IR reader takes for an omitted attribute (0, false, empty)."""

    coords: int = A.attr("coords", A.UINT, 0)
    classes: int = A.attr("classes", A.UINT, 0)
    num: int = A.attr("num", A.UINT, 0)
    do_softmax: bool = A.attr("do_softmax", A.BOOL, False)
    mask: tuple[int, ...] = A.attr("mask", INT_LIST, ())
    axis: int = A.attr("axis", A.INT, 0)
    end_axis: int = A.attr("end_axis", A.INT, 0)
    anchors: tuple[float, ...] = A.attr("anchors", FLOAT_LIST, ())


def _entries(a: RegionYoloAttrs) -> int:
    return a.coords + a.classes + 1


def _region_rule(a: RegionYoloAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    (data,) = inputs
    if data.element not in REAL_TYPES:
        raise OpValidationError(f"data of element type {data.element or 'dynamic'}: it must be a floating-point type")
    if data.shape is None:
        return [TensorType(data.element, None)]
    if len(data.shape) != 4:
        raise OpValidationError(f"data of rank {len(data.shape)}: it must be 4")
    if not a.do_softmax:
        n = _entries(a) * len(a.mask)
        return [TensorType(data.element, (data.shape[0], to_dim((n, n)), *data.shape[2:]))]
    axis = normalize_axis(a.axis, 4)
    end = normalize_axis(a.end_axis, 4, "end_axis")
    joined = iv(data.shape[axis])
    for d in data.shape[axis + 1:end + 1]:
        joined = dmul(joined, iv(d))
    return [TensorType(data.element, (*data.shape[:axis], to_dim(joined), *data.shape[max(axis, end) + 1:]))]


def _regions(a: RegionYoloAttrs, x: np.ndarray) -> int:
    """The regions per batch the kernel reads; refuses what it does not model (module doc)."""
    if x.dtype not in (np.float32, np.float16, np.float64):
        raise UnsupportedError(f"RegionYolo-1 of element type {x.dtype}: only f32, f16 and f64 are modelled")
    if x.ndim != 4:
        raise OpValidationError(f"data of rank {x.ndim}: it must be 4")
    regions = a.num if a.do_softmax else len(a.mask)
    if x.shape[1] != regions * _entries(a) or a.coords < 2:
        raise UnsupportedError(f"RegionYolo-1 of {x.shape[1]} channels, {regions} regions of coords {a.coords} and "
                               f"classes {a.classes}: only channels = regions * (coords + classes + 1) with coords 2 "
                               "or more are modelled")
    return regions


def _planes(a: RegionYoloAttrs, x: np.ndarray, regions: int) -> np.ndarray:
    """``x`` as [N, regions, entries, H, W]."""
    return x.reshape(x.shape[0], regions, _entries(a), *x.shape[2:])


def _logistic_entries(a: RegionYoloAttrs) -> tuple[slice, slice]:
    """The entries CPU takes the logistic of: x and y, and the objectness (with the classes, without do_softmax)."""
    return slice(0, 2), slice(a.coords, a.coords + 1 if a.do_softmax else _entries(a))


def _out_shape(a: RegionYoloAttrs, shape: tuple[int, ...]) -> tuple[int, ...]:
    (out,) = _region_rule(a, [TensorType("f32", tuple(to_dim((d, d)) for d in shape))], [None])
    return tuple(d.lo for d in out.shape)


def _region(a: RegionYoloAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(args[0])
    regions = _regions(a, x)
    w = _planes(a, x.astype(np.float64), regions)
    y = w.copy()
    for entries in _logistic_entries(a):
        y[:, :, entries] = sigmoid(w[:, :, entries])
    if a.do_softmax and a.classes:
        y[:, :, a.coords + 1:] = softmax(w[:, :, a.coords + 1:], 2, log=False)
    return [y.astype(x.dtype).reshape(_out_shape(a, x.shape))]


#: CPU's exp flushes to zero what would be below twice the smallest normal f32 (a logistic below -87.3 is 0).
_FLUSHED = 2.0**-125


def _region_rounding(kernel: Kernel, a: RegionYoloAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                     outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Sigmoid-1's rule on the logistic entries (plus CPU's flush to zero below 2^-125), SoftMax-8's (over the classes)
    on the class entries with do_softmax, and the input's bound moved unchanged on the others. CPU's softmax may
    subtract another class score of the row than its maximum (module doc): d = x - m is then rounded by up to
    u |d| <= u (max - min) more, in each e^d and in their sum, 2 u (max - min) y beyond SoftMax-8's bound."""
    x = np.asarray(args[0])
    regions = _regions(a, x)
    xs, ys = _planes(a, x, regions), _planes(a, np.asarray(outputs[0]).reshape(x.shape), regions)
    b = bounds[0]
    out = np.array(np.broadcast_to(b, x.shape), np.float64) if not is_exact(b) else np.zeros(x.shape)
    bs = _planes(a, out, regions)

    def apply(spec: OpSpec, attrs, entries: slice) -> None:
        part = np.ascontiguousarray(xs[:, :, entries])
        bound = EXACT if is_exact(b) else np.ascontiguousarray(bs[:, :, entries])
        bs[:, :, entries] = spec.rounding(spec.kernel, attrs, [part], [bound],
                                          [np.ascontiguousarray(ys[:, :, entries])])[0]

    for entries in _logistic_entries(a):
        apply(SIGMOID_1, NoAttrs(), entries)
        bs[:, :, entries] += _FLUSHED
    if a.do_softmax and a.classes:
        scores = slice(a.coords + 1, None)
        apply(SOFTMAX_8, Softmax8Attrs(2), scores)
        w = xs[:, :, scores].astype(np.float64)
        with np.errstate(invalid="ignore"):
            spread = np.fmax.reduce(w, axis=2, keepdims=True) - np.fmin.reduce(w, axis=2, keepdims=True)
            bs[:, :, scores] += 2 * ACCUMULATION_UNIT * spread * np.abs(ys[:, :, scores].astype(np.float64))
    return [out.reshape(np.shape(outputs[0]))]


REGION_YOLO_1 = OpSpec("RegionYolo", "RegionYolo-1", RegionYoloAttrs, (1, 1), 1, guarded(_region_rule), _region,
                       rounding=_region_rounding, evaluates=never)


# --- PriorBoxClustered-1 ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PriorBoxClusteredAttrs:
    """Defaults are what OpenVINO's IR reader takes for an omitted attribute (clip true, the others 0 or empty)."""

    step: float = A.attr("step", A.FLOAT, 0.0)
    step_w: float = A.attr("step_w", A.FLOAT, 0.0)
    step_h: float = A.attr("step_h", A.FLOAT, 0.0)
    width: tuple[float, ...] = A.attr("width", FLOAT_LIST, ())
    height: tuple[float, ...] = A.attr("height", FLOAT_LIST, ())
    clip: bool = A.attr("clip", A.BOOL, True)
    offset: float = A.attr("offset", A.FLOAT, 0.0)
    variance: tuple[float, ...] = A.attr("variance", FLOAT_LIST, ())


def _prior_rule(priors: Callable[[Any], int], check: Callable[[Any], None] = lambda a: None) -> ShapeRule:
    """The PriorBox family's shape rule: two 1-D integer inputs (output size, image size), the output f32
    [2, 4 H W priors] where the output size [H, W] is known, else [2, ?]."""

    def infer(a, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
        for t, what in zip(inputs, ("output size", "image size"), strict=True):
            if t.element is not None and t.element not in INTEGER_TYPES:
                raise OpValidationError(f"{what} of element type {t.element}: it must be an integer type")
        check(a)
        size, image = (None if t.shape is None else len(t.shape) for t in inputs)
        if size not in (None, 1) or (size is not None and image not in (None, size)):
            raise OpValidationError(f"output size of rank {size} and image size of rank {image}: the output size "
                                    "must be 1-D, and the image size too where the output size's rank is known")
        if values[0] is None:
            return [TensorType("f32", (Dim(2, 2), DYNAMIC))]
        size = ints(values[0])
        if len(size) != 2:
            raise OpValidationError(f"output size holds {len(size)} values: it must hold two")
        if min(size) < 0:
            return None  # (a negative value is a dynamic dim to OpenVINO's shape from a constant)
        n = 4 * size[0] * size[1] * priors(a)
        return [TensorType("f32", (Dim(2, 2), Dim(n, n)))]

    return infer


def _clustered_check(a: PriorBoxClusteredAttrs) -> None:
    if len(a.width) != len(a.height):
        raise OpValidationError(f"{len(a.width)} widths and {len(a.height)} heights: they must be as many")


def _sizes(args: Sequence[np.ndarray]) -> tuple[int, int, int, int]:
    """(H, W) of the output size and (IH, IW) of the image size, read as OpenVINO CPU reads them (i32)."""
    size, image = (ints(np.asarray(v).astype(np.int32)) for v in args[:2])
    if len(size) != 2 or len(image) < 2:
        raise OpValidationError(f"output size {size} and image size {image}: two values each are required")
    if min(size) < 0:
        raise OpValidationError(f"output size {size} is negative")
    return size[0], size[1], image[0], image[1]


def _variances(variance: tuple[float, ...], priors: int, h: int, w: int) -> np.ndarray:
    """The output's second row: each prior's four variances (one given: four times; none: 0.1)."""
    if len(variance) not in (0, 1, 4):
        raise OpValidationError(f"{len(variance)} variances: 0, 1 or 4 are allowed")
    v = np.array(variance or (0.1,), np.float32)
    return np.broadcast_to(np.resize(v, 4), (h * w * priors, 4)).reshape(-1)


def _clustered(a: PriorBoxClusteredAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """OpenVINO's computation (CPU's and its reference's alike) in f32, each operation rounded as there."""
    h, w, ih, iw = _sizes(args)
    f = np.float32
    step_w = f(a.step_w) if a.step_w != 0 else f(a.step)
    step_h = f(a.step_h) if a.step_h != 0 else f(a.step)
    if step_w == 0 and step_h == 0:
        step_w, step_h = f(iw) / f(w), f(ih) / f(h)
    cx = ((np.arange(w, dtype=f) + f(a.offset)) * step_w)[None, :, None]
    cy = ((np.arange(h, dtype=f) + f(a.offset)) * step_h)[:, None, None]
    half_w, half_h = np.array(a.width, f) / f(2), np.array(a.height, f) / f(2)
    with np.errstate(divide="ignore", invalid="ignore"):  # (an image dim of 0: infinities and NaN, as OpenVINO's)
        boxes = np.stack(np.broadcast_arrays((cx - half_w) / f(iw), (cy - half_h) / f(ih), (cx + half_w) / f(iw),
                                             (cy + half_h) / f(ih)), axis=-1)
    if a.clip:
        boxes = _clip01(boxes)
    return [np.stack([boxes.reshape(-1), _variances(a.variance, len(a.width), h, w)])]


def _clip01(x: np.ndarray) -> np.ndarray:
    """``std::min(std::max(x, 0.0f), 1.0f)``: NaN and -0 kept."""
    x = np.where(x < 0, np.float32(0), x)
    return np.where(np.float32(1) < x, np.float32(1), x)


PRIOR_BOX_CLUSTERED_1 = OpSpec("PriorBoxClustered", "PriorBoxClustered-1", PriorBoxClusteredAttrs, (2, 2), 1,
                               _prior_rule(lambda a: len(a.width), _clustered_check), _clustered, value_inputs=(0,),
                               rounding=exact)


# --- PriorBox-1 and PriorBox-8 ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PriorBox1Attrs:
    """Defaults are what OpenVINO's IR reader takes for an omitted attribute (scale_all_sizes true, the others false,
    0 or empty). PriorBox-1 puts each min_size's max_size box before its aspect ratios' (``_order``)."""

    min_size: tuple[float, ...] = A.attr("min_size", FLOAT_LIST, ())
    max_size: tuple[float, ...] = A.attr("max_size", FLOAT_LIST, ())
    aspect_ratio: tuple[float, ...] = A.attr("aspect_ratio", FLOAT_LIST, ())
    density: tuple[float, ...] = A.attr("density", FLOAT_LIST, ())
    fixed_ratio: tuple[float, ...] = A.attr("fixed_ratio", FLOAT_LIST, ())
    fixed_size: tuple[float, ...] = A.attr("fixed_size", FLOAT_LIST, ())
    clip: bool = A.attr("clip", A.BOOL, False)
    flip: bool = A.attr("flip", A.BOOL, False)
    step: float = A.attr("step", A.FLOAT, 0.0)
    offset: float = A.attr("offset", A.FLOAT, 0.0)
    variance: tuple[float, ...] = A.attr("variance", FLOAT_LIST, ())
    scale_all_sizes: bool = A.attr("scale_all_sizes", A.BOOL, True)


@dataclass(frozen=True, slots=True)
class PriorBox8Attrs(PriorBox1Attrs):
    """PriorBox-1's, and ``min_max_aspect_ratios_order`` (default true)."""

    min_max_aspect_ratios_order: bool = A.attr("min_max_aspect_ratios_order", A.BOOL, True)


def _order(a: PriorBox1Attrs) -> bool:
    """Whether each min_size's max_size box comes before its aspect ratios' (PriorBox-1: always)."""
    return a.min_max_aspect_ratios_order if isinstance(a, PriorBox8Attrs) else True


def _normalized_ratios(a: PriorBox1Attrs) -> int:
    """How many aspect ratios OpenVINO's ``normalized_aspect_ratio`` counts: a set of the ratios (and their inverses
    with flip) rounded to 1e-6 in f32, and 1."""
    f = np.float32
    unique = {f(1)}
    for ratio in np.array(a.aspect_ratio, f):
        with np.errstate(divide="ignore"):
            for r in (ratio, f(1) / ratio) if a.flip else (ratio,):
                unique.add(f(np.round(r * f(1e6))) / f(1e6))
    return len(unique)


def _number_of_priors(a: PriorBox1Attrs) -> int:
    """OpenVINO's ``PriorBox::number_of_priors``: the priors per position the output's shape counts."""
    ratios = _normalized_ratios(a)
    if a.fixed_size:
        n = ratios * len(a.fixed_size)
    elif a.scale_all_sizes:
        n = ratios * len(a.min_size) + len(a.max_size)
    else:
        n = ratios + len(a.min_size) - 1
    for density in a.density:
        side = int(density)
        n += (len(a.fixed_ratio) if a.fixed_ratio else ratios) * (side * side - 1)
    return n


def _aspect_ratios(a: PriorBox1Attrs) -> list[np.float32]:
    """The ratios the kernel walks: 1, then each new one (not within 1e-6 of one before) and, with flip, its inverse."""
    f = np.float32
    ratios = [f(1)]
    for ratio in np.array(a.aspect_ratio, f):
        if abs(ratio) < np.finfo(f).eps:
            raise UnsupportedError("an aspect_ratio of 0: OpenVINO CPU refuses it")
        if all(abs(float(ratio - r)) >= 1e-6 for r in ratios):
            ratios.append(ratio)
            if a.flip:
                ratios.append(f(1) / ratio)
    return ratios


def _prior_box(a: PriorBox1Attrs, args: Sequence[np.ndarray], folded: bool = False) -> list[np.ndarray]:
    """OpenVINO CPU's PriorBox in f32, each operation rounded as there: per position, the fixed sizes' boxes (each
    density's grid), then per min_size its box, its max_size's and its aspect ratios' (the order of the last two
    swapped where min_max_aspect_ratios_order is false). ``folded``: as OpenVINO's reference, which folds it, computes
    a grid's corner: half the fixed size by an integer division (module doc)."""
    h, w, ih, iw = _sizes(args)
    f = np.float32
    priors = _number_of_priors(a)
    ratios = _aspect_ratios(a)
    if a.fixed_size and len(a.density) < len(a.fixed_size):
        raise UnsupportedError("fewer densities than fixed sizes: OpenVINO reads past their end")
    step, min_size = f(a.step), np.array(a.min_size, f)
    if not a.scale_all_sizes:  # (MXNet's PriorBox)
        step = f(ih) / f(h) if step == -1 else step * f(ih)
        min_size = min_size * f(ih)
    iwi, ihi = f(1) / f(iw), f(1) / f(ih)
    if step == 0:
        cx = (np.arange(w, dtype=f) + f(0.5)) * (f(iw) / f(w))
        cy = (np.arange(h, dtype=f) + f(0.5)) * (f(ih) / f(h))
    else:
        cx, cy = (f(a.offset) + np.arange(w, dtype=f)) * step, (f(a.offset) + np.arange(h, dtype=f)) * step
    cx, cy = np.broadcast_arrays(cx[None, :], cy[:, None])
    boxes: list[np.ndarray] = []

    def box(x: np.ndarray, y: np.ndarray, half_w: np.float32, half_h: np.float32, clip: bool) -> None:
        out = [(x - half_w) * iwi, (y - half_h) * ihi, (x + half_w) * iwi, (y + half_h) * ihi]
        if clip:  # x > 0 ? x : 0 and x < 1 ? x : 1 (NaN to 0 and 1)
            out = [np.where(out[0] > 0, out[0], f(0)), np.where(out[1] > 0, out[1], f(0)),
                   np.where(out[2] < 1, out[2], f(1)), np.where(out[3] < 1, out[3], f(1))]
        boxes.append(np.stack(out, axis=-1))

    def grid(size: np.float32, density: int, half_w: np.float32, half_h: np.float32) -> None:
        corner = f(int(size) // 2) if folded else f(int(size)) / f(2)
        shift = int(size / f(density))
        for r in range(density):
            for c in range(density):
                x = cx - corner + f(shift) / f(2) + f(c * shift)
                y = cy - corner + f(shift) / f(2) + f(r * shift)
                box(x, y, half_w, half_h, True)

    for s, size in enumerate(np.array(a.fixed_size, f)):
        half = f(int(size)) * f(0.5)
        density = int(a.density[s])
        if a.fixed_ratio:
            for ratio in np.sqrt(np.array(a.fixed_ratio, f)):
                grid(size, density, size * f(0.5) * ratio, size * f(0.5) / ratio)
            continue
        grid(size, density, half, half)
        for ratio in ratios:
            if abs(float(ratio) - 1.0) >= 1e-6:
                root = np.sqrt(ratio)
                grid(size, density, size * f(0.5) * root, size * f(0.5) / root)
    for i, size in enumerate(min_size):
        box(cx, cy, size * f(0.5), size * f(0.5), False)
        steps = []
        if i < len(a.max_size):
            half = np.sqrt(size * f(a.max_size[i])) * f(0.5)
            steps.append(lambda half=half: box(cx, cy, half, half, False))
        if a.scale_all_sizes or i == len(min_size) - 1:
            base = min_size[i if a.scale_all_sizes else 0]
            roots = [np.sqrt(r) for r in ratios if abs(float(r) - 1.0) >= 1e-6]
            steps.insert(len(steps) if _order(a) else 0,
                         lambda base=base, roots=roots: [box(cx, cy, base * f(0.5) * r, base * f(0.5) / r, False)
                                                        for r in roots])
        for add in steps:
            add()
    if len(boxes) != priors:
        raise UnsupportedError(f"PriorBox of {len(boxes)} boxes per position where OpenVINO's shape counts {priors} "
                               "(aspect ratios within 1e-6 of each other): not modelled")
    coords = np.stack(boxes, axis=2).reshape(-1) if boxes else np.zeros(0, f)
    if a.clip:
        coords = _clip01(coords)
    return [np.stack([coords, _variances(a.variance, priors, h, w)])]


def _prior_crashes(a: PriorBox1Attrs, read: frozenset[int]) -> str | None:
    if not a.fixed_size or len(a.density) >= len(a.fixed_size):
        return None
    return (f"{len(a.fixed_size)} fixed sizes and {len(a.density)} densities: OpenVINO reads a density per fixed size, "
            "past the end of the list (a segmentation fault where it is empty: compiling the layer where OpenVINO "
            "folds it, else running it)")


def _folded_prior_box(a: PriorBox1Attrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return _prior_box(a, args, folded=True)


#: (Both inputs are value inputs, though the rule reads the output size's alone: OpenVINO folds the layer, by its
#: reference, where both are known when it compiles, and the executor asks ``value_inputs`` which.)
PRIOR_BOX_1 = OpSpec("PriorBox", "PriorBox-1", PriorBox1Attrs, (2, 2), 1, _prior_rule(_number_of_priors), _prior_box,
                     value_inputs=(0, 1), rounding=exact, folded=_folded_prior_box, crashes=_prior_crashes)
PRIOR_BOX_8 = OpSpec("PriorBox", "PriorBox-8", PriorBox8Attrs, (2, 2), 1, _prior_rule(_number_of_priors), _prior_box,
                     value_inputs=(0, 1), rounding=exact, folded=_folded_prior_box, crashes=_prior_crashes)


# --- DetectionOutput-1 and DetectionOutput-8 (shape rules) ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DetectionOutput8Attrs:
    """Defaults are what OpenVINO's IR reader takes for an omitted attribute; an omitted (empty) keep_top_k crashes
    it (``_detection_crashes``)."""

    background_label_id: int = A.attr("background_label_id", A.INT, 0)
    top_k: int = A.attr("top_k", A.INT, -1)
    variance_encoded_in_target: bool = A.attr("variance_encoded_in_target", A.BOOL, False)
    keep_top_k: tuple[int, ...] = A.attr("keep_top_k", INT_LIST, ())
    code_type: str = A.attr("code_type", A.STRING, "caffe.PriorBoxParameter.CORNER")
    share_location: bool = A.attr("share_location", A.BOOL, True)
    nms_threshold: float = A.attr("nms_threshold", A.FLOAT, 0.0)
    confidence_threshold: float = A.attr("confidence_threshold", A.FLOAT, 0.0)
    clip_after_nms: bool = A.attr("clip_after_nms", A.BOOL, False)
    clip_before_nms: bool = A.attr("clip_before_nms", A.BOOL, False)
    decrease_label_id: bool = A.attr("decrease_label_id", A.BOOL, False)
    normalized: bool = A.attr("normalized", A.BOOL, False)
    input_height: int = A.attr("input_height", A.UINT, 1)
    input_width: int = A.attr("input_width", A.UINT, 1)
    objectness_score: float = A.attr("objectness_score", A.FLOAT, 0.0)


@dataclass(frozen=True, slots=True)
class DetectionOutput1Attrs(DetectionOutput8Attrs):
    """DetectionOutput-8's, and ``num_classes`` (an omitted one is 0, which OpenVINO refuses)."""

    num_classes: int = A.attr("num_classes", A.INT, 0)


_CODE_TYPES = ("caffe.PriorBoxParameter.CORNER", "caffe.PriorBoxParameter.CENTER_SIZE")


def _need(condition: bool, message: str) -> None:
    if not condition:
        raise OpValidationError(message)


def _static(shape, i: int) -> int | None:
    """Dim ``i`` of a partial shape of a static rank, where static; else None."""
    if shape is None:
        return None
    d = shape[i]
    return d.lo if d.is_static else None


def _priors_from(length: int | None, per: int, what: str, priors: int) -> int:
    """The prior boxes a dim of ``length`` (None: not static), ``per`` values each, tells: its quotient where
    ``priors`` is not known yet (0), else ``priors``, which it must then hold exactly."""
    if length is None:
        return priors
    if not priors:
        _need(length % per == 0, f"{what} ({length}) must be a multiple of {per}")
        return length // per
    _need(length == priors * per, f"{what} ({length}) must be {priors * per}")
    return priors


def _counts(a: DetectionOutput8Attrs, shapes: list) -> tuple[int, int]:
    """OpenVINO's ``compute_num_classes`` (DetectionOutput-8): the classes and prior boxes the input dims tell, 0 where
    they do not."""
    box, cls, proposals, *aux = shapes
    size = 4 if a.normalized else 5
    priors = classes = 0
    if _static(proposals, 2) is not None:
        _need(_static(proposals, 2) % size == 0, f"proposals' dim 2 ({_static(proposals, 2)}) must be a multiple of "
                                                 f"the prior box size ({size})")
        priors = _static(proposals, 2) // size
        _need(priors > 0, "no prior boxes: proposals' dim 2 is 0")
    if not priors and aux and _static(aux[0], 1) is not None:
        _need(_static(aux[0], 1) % 2 == 0, f"additional class predictions' dim 1 ({_static(aux[0], 1)}) must be even")
        priors = _static(aux[0], 1) // 2
        _need(priors > 0, "no prior boxes: additional class predictions' dim 1 is 0")
    if priors and _static(cls, 1) is not None:
        _need(_static(cls, 1) % priors == 0, f"class predictions' dim 1 ({_static(cls, 1)}) must be a multiple of the "
                                             f"prior boxes ({priors})")
        classes = _static(cls, 1) // priors
    for logits in (box, *aux[1:]):
        if not classes and priors and _static(logits, 1) is not None and not a.share_location:
            _need(_static(logits, 1) % (priors * 4) == 0, f"box logits' dim 1 ({_static(logits, 1)}) must be a "
                                                          f"multiple of 4 times the prior boxes ({priors * 4})")
            classes = _static(logits, 1) // (priors * 4)
    return classes, priors


def _detection_rule(a: DetectionOutput8Attrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """OpenVINO's ``shape_infer_base``: the classes (DetectionOutput-1's attribute, else ``_counts``) and prior boxes
    the dims tell, checked against every input; output [1, 1, N, 7], N the images times keep_top_k[0] where it is
    positive, else times top_k and the classes where keep_top_k[0] is -1 and top_k positive, else times the prior
    boxes and the classes (unknown ones dynamic)."""
    if isinstance(a, DetectionOutput1Attrs):
        _need(a.num_classes > 0, f"num_classes {a.num_classes}: it must be 1 or more")
    _need(a.code_type in _CODE_TYPES, f"code_type '{a.code_type}': it must be one of {', '.join(_CODE_TYPES)}")
    _need(len(inputs) in (3, 5), f"{len(inputs)} inputs: DetectionOutput takes 3 or 5")
    elements = [t.element for t in inputs]
    _need(elements[0] in REAL_TYPES, f"box logits of element type {elements[0] or 'dynamic'}: it must be real")
    _need(elements[1] == elements[0], "class predictions' element type must be box logits'")
    _need(elements[2] in REAL_TYPES, f"proposals of element type {elements[2] or 'dynamic'}: it must be real")
    _need(len(inputs) == 3 or (elements[3] == elements[1] and elements[4] == elements[0]),
          "the additional predictions' element types must be the class predictions' and box logits'")
    shapes = [t.shape for t in inputs]
    names = ("box logits", "class predictions", "proposals", "additional class predictions",
             "additional box predictions")
    for shape, rank, what in zip(shapes, (2, 2, 3, 2, 2)[:len(shapes)], names[:len(shapes)], strict=True):
        _need(shape is None or len(shape) == rank, f"{what} of rank {len(shape or ())}: it must be {rank}")
    box, cls, proposals, *aux = shapes
    classes, priors = (a.num_classes, 0) if isinstance(a, DetectionOutput1Attrs) else _counts(a, shapes)
    locations = 1 if a.share_location else classes
    size = 4 if a.normalized else 5
    images: Iv = ANY
    known = False
    if box is not None:
        images, known = iv(box[0]), True
        if not priors and _static(box, 1) is not None:
            _need(locations != 0 and _static(box, 1) % (locations * 4) == 0,
                  f"box logits' dim 1 ({_static(box, 1)}) must be a multiple of 4 times the location classes")
            priors = _static(box, 1) // (locations * 4)
        if priors > 0 and locations > 0:
            n = priors * locations * 4
            _need(compatible(iv(box[1]), (n, n)), f"box logits' dim 1 {box[1]}: {n} expected")
    if cls is not None:
        if (not known or not is_static(images)) and cls[0].is_static:
            images, known = iv(cls[0]), True
        else:
            _need(compatible(iv(cls[0]), images), "class predictions' dim 0 must be the batch's")
        if classes:
            priors = _priors_from(_static(cls, 1), classes, "class predictions' dim 1", priors)
    if proposals is not None:
        _need(compatible(iv(proposals[0]), ONE) or compatible(iv(proposals[0]), images),
              "proposals' dim 0 must be 1 or the batch's")
        second = 1 if a.variance_encoded_in_target else 2
        _need(compatible(iv(proposals[1]), (second, second)), f"proposals' dim 1 must be {second}")
        priors = _priors_from(_static(proposals, 2), size, "proposals' dim 2", priors)
    if aux:
        aux_cls, aux_box = aux
        if aux_cls is not None:
            _need(compatible(iv(aux_cls[0]), images), "additional class predictions' dim 0 must be the batch's")
            if priors:
                _need(compatible(iv(aux_cls[1]), (2 * priors, 2 * priors)),
                      f"additional class predictions' dim 1 must be {2 * priors}")
            if aux_cls[1].is_static:
                priors = aux_cls[1].lo // 2
        _need(aux_box is None or box is None or (len(aux_box) == len(box) and all(
            compatible(iv(p), iv(q)) for p, q in zip(aux_box, box, strict=True))),
            "additional box predictions' shape must be box logits'")
    if not a.keep_top_k:  # (OpenVINO's reader crashes: ``_detection_crashes`` says so)
        return [TensorType(elements[0], (Dim(1, 1), Dim(1, 1), DYNAMIC, Dim(7, 7)))]
    top = a.keep_top_k[0]
    dim_priors, dim_classes = ((n, n) if n else ANY for n in (priors, classes))
    if top > 0:
        boxes = dmul(images, (top, top))
    elif top == -1 and a.top_k > 0:
        boxes = dmul(dmul(images, (a.top_k, a.top_k)), dim_classes)
    else:
        boxes = dmul(dmul(images, dim_priors), dim_classes)
    return [TensorType(elements[0], (Dim(1, 1), Dim(1, 1), to_dim(boxes), Dim(7, 7)))]


def _detection_crashes(a: DetectionOutput8Attrs, read: frozenset[int]) -> str | None:
    if a.keep_top_k:
        return None
    return ("keep_top_k is empty: OpenVINO's shape inference reads its first value, past the end of the list (a "
            "segmentation fault reading the model)")


#: Where CPU reads the DetectionOutput inputs: box logits, class predictions, proposals, and the ARM's class and box
#: predictions.
_LOC, _CONF, _PRIORS, _ARM_CONF, _ARM_LOC = range(5)


@dataclass(frozen=True, slots=True)
class _Layout:
    """The counts CPU's node reads from the dims (``prepareParams``) and the output's rows."""

    images: int
    classes: int
    priors: int
    locations: int  # 1 with share_location, else the classes
    size: int  # a prior's values: 4 normalized, else 5 (an image id first)
    rows: int


def _layout(a: DetectionOutput8Attrs, args: Sequence[np.ndarray]) -> _Layout:
    """CPU's counts; refuses what CPU refuses to run or leaves unwritten (module doc)."""
    loc, conf, proposals = args[:3]
    if any(is_bf16(x.dtype) or x.dtype.kind != "f" for x in args):
        raise UnsupportedError("DetectionOutput of bf16 or non-float inputs: only f32, f16 and f64 are modelled")
    size = 4 if a.normalized else 5
    priors = proposals.shape[-1] // size
    _need(priors > 0 and conf.shape[1] % priors == 0, "class predictions must hold a score per prior box and class")
    classes = conf.shape[1] // priors
    locations = 1 if a.share_location else classes
    _need(loc.shape[1] == priors * locations * 4, "box logits must hold 4 values per prior box and location class")
    if a.decrease_label_id and a.background_label_id != 0:
        raise UnsupportedError("decrease_label_id with a background_label_id other than 0: OpenVINO's CPU plugin "
                               "refuses to run it")
    images, keep = conf.shape[0], a.keep_top_k[0]
    if keep > 0:
        rows = images * keep
    elif keep == -1 and a.top_k > 0:
        rows = images * a.top_k * classes
    else:
        rows = images * priors * classes
        if a.top_k > 0 and a.top_k != priors:
            raise UnsupportedError(f"keep_top_k {keep} with top_k {a.top_k} of {priors} prior boxes: OpenVINO's CPU "
                                   "plugin writes top_k rows per image and class (refusing to run it where that is "
                                   "more than the output holds, leaving the last rows unwritten where it is less)")
    return _Layout(images, classes, priors, locations, size, rows)


def _prior_planes(a: DetectionOutput8Attrs, lay: _Layout, proposals: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray | None, list[int]]:
    """Per image of the proposals (1, or each image): the prior boxes [B, P, size], their variances [B, P, 4] (the
    first 4 P values of the second plane, which holds 5 P where not normalized; None where encoded in the target),
    and per image the prior boxes counted (``getActualPriorNum``: not normalized, the boxes before the first of
    image id -1)."""
    batches = proposals.shape[0]
    boxes = proposals[:, 0].reshape(batches, lay.priors, lay.size)
    variances = None if a.variance_encoded_in_target else proposals[:, 1, :4 * lay.priors].reshape(batches, -1, 4)
    actual = []
    for b in range(batches):
        ends = np.flatnonzero(boxes[b, :, 0] == -1) if not a.normalized else ()
        actual.append(int(ends[0]) if len(ends) else lay.priors)
    return boxes, variances, actual * lay.images if batches == 1 else actual


def _decode(a: DetectionOutput8Attrs, prior: np.ndarray, offset: int, loc: np.ndarray, variance: np.ndarray | None
            ) -> np.ndarray:
    """CPU's ``decodeBBoxes`` in the arrays' type, each operation rounded in CPU's order (exp in float64, rounded
    once: glibc's expf is within 0.502 ulps): ``prior`` [..., P, offset + 4], ``loc`` and
    ``variance`` [..., P, 4] -> [..., P, 4], clipped to [0, 1] with clip_before_nms."""
    t = loc.dtype.type
    q = prior[..., offset:offset + 4]
    if not a.normalized:
        q = q / np.array([a.input_width, a.input_height] * 2, loc.dtype)
    if variance is not None:
        loc = variance * loc
    if a.code_type.endswith("CORNER"):
        y = q + loc
    else:
        size = q[..., 2:] - q[..., :2]
        centre = (q[..., :2] + q[..., 2:]) / t(2)
        half = (np.exp(loc[..., 2:].astype(np.float64)).astype(loc.dtype) * size) / t(2)
        middle = loc[..., :2] * size + centre
        y = np.concatenate([middle - half, middle + half], axis=-1)
    return _clip_unit(y) if a.clip_before_nms else y


def _clip_unit(y: np.ndarray) -> np.ndarray:
    """std::max(0.0f, std::min(1.0f, y)): NaN to 1."""
    t = y.dtype.type
    y = np.where(y < 1, y, t(1))
    return np.where(y > 0, y, t(0))


#: A decoding step: (prior boxes, their error, the offset of their coordinates, logits, variances) -> (boxes, error).
_Step = Callable[[np.ndarray, np.ndarray, int, np.ndarray, "np.ndarray | None"], tuple[np.ndarray, np.ndarray]]


def _decode_images(a: DetectionOutput8Attrs, lay: _Layout, args: Sequence[np.ndarray], step: _Step
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Every image's decoded boxes [N, L, P, 4] and their error by ``step``: with 5 inputs the ARM's box predictions
    first, then the box logits on those boxes as prior boxes of 4 values (divided by the image's dims again where not
    normalized, as CPU does)."""
    boxes, variances, _ = _prior_planes(a, lay, args[_PRIORS])
    values, errors = [], []
    for n in range(lay.images):
        b = n if boxes.shape[0] > 1 else 0
        variance = None if variances is None else variances[b]
        prior, error, offset = boxes[b], np.zeros(4), lay.size - 4
        for logits in ([args[_ARM_LOC], args[_LOC]] if len(args) == 5 else [args[_LOC]]):
            loc = logits[n].reshape(lay.priors, lay.locations, 4).swapaxes(0, 1)
            prior, error = step(prior, error, offset, loc, variance)
            offset = 0
        values.append(prior)
        errors.append(error)
    return np.stack(values), np.stack(errors)


def _decoded(a: DetectionOutput8Attrs, lay: _Layout, args: Sequence[np.ndarray]) -> np.ndarray:
    """Every image's decoded boxes [N, L, P, 4] in the inputs' type (``_decode``)."""
    return _decode_images(a, lay, args, lambda p, e, offset, loc, v: (_decode(a, p, offset, loc, v), e))[0]


def _overlaps(boxes: np.ndarray, sizes: np.ndarray, i: int, kept: list[int]) -> np.ndarray:
    """CPU's ``JaccardOverlap`` of box ``i`` with each kept box, in the boxes' type (0 where they are apart)."""
    b, k = boxes[i], boxes[kept]
    apart = (k[:, 0] > b[2]) | (k[:, 2] < b[0]) | (k[:, 1] > b[3]) | (k[:, 3] < b[1])
    width = np.minimum(b[2], k[:, 2]) - np.maximum(b[0], k[:, 0])
    height = np.minimum(b[3], k[:, 3]) - np.maximum(b[1], k[:, 1])
    inside = width * height
    with np.errstate(all="ignore"):  # (0 / 0 where they are apart)
        iou = inside / (sizes[i] + sizes[kept] - inside)
    return np.where(apart | (width <= 0) | (height <= 0), boxes.dtype.type(0), iou)


def _suppressed(boxes: np.ndarray, sizes: np.ndarray, p: int, kept: list[int], threshold: np.float32) -> bool:
    return bool(kept) and bool((_overlaps(boxes, sizes, p, kept) > threshold).any())


def _best_first(scores: np.ndarray, keys: np.ndarray, k: int) -> np.ndarray:
    """``keys`` by score, highest first, ties by key (CPU's ``topk``), the first ``k`` (-1: all; below: none)."""
    order = keys[np.lexsort((keys, -scores))]
    return order if k == -1 else order[:max(k, 0)]


def _detections(a: DetectionOutput8Attrs, lay: _Layout, args: Sequence[np.ndarray], boxes: np.ndarray
                ) -> list[tuple[int, int, int, np.float32]]:
    """The output's rows as (image, class, prior box, score), in CPU's order: per image, per class, by score (ties by
    prior box)."""
    f = np.float32
    conf = args[_CONF].astype(f).reshape(lay.images, lay.priors, lay.classes).transpose(0, 2, 1).copy()
    if len(args) == 5:  # an ARM prior below objectness_score: background 1, every other class 0
        arm = args[_ARM_CONF].astype(f).reshape(lay.images, lay.priors, 2)[:, :, 1] < f(a.objectness_score)
        background = (np.arange(lay.classes) == a.background_label_id)[None, :, None]
        conf = np.where(arm[:, None, :], background.astype(f), conf)
    threshold, nms = f(a.confidence_threshold), f(a.nms_threshold)
    sizes = (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])
    actual = _prior_planes(a, lay, args[_PRIORS])[2]
    rows = []
    for n in range(lay.images):
        s = conf[n, :, :actual[n]]
        candidates: list[tuple[int, int]] = []  # (class, prior box), in the order NMS meets them
        if a.decrease_label_id:  # MXNet: per prior box its best class (from 1, conf >= threshold), then per class NMS
            valid = np.where((s[1:] >= threshold) & (s[1:] > -1), s[1:], -np.inf)
            found = np.flatnonzero((valid > -np.inf).any(axis=0))
            if found.size:  # (the first class of the highest score)
                keys = (valid[:, found].argmax(axis=0) + 1) * lay.priors + found
                candidates = [divmod(int(k), lay.priors) for k in _best_first(conf[n].reshape(-1)[keys], keys, a.top_k)]
        else:  # Caffe: per class other than the background, conf > threshold, top_k, NMS
            for c in range(lay.classes):
                if c != a.background_label_id:
                    found = np.flatnonzero(s[c] > threshold)
                    candidates += [(c, int(p)) for p in _best_first(s[c, found], found, a.top_k)]
        kept: list[list[int]] = [[] for _ in range(lay.classes)]
        for c, p in candidates:
            where = 0 if a.share_location else c
            if not _suppressed(boxes[n, where], sizes[n, where], p, kept[c], nms):
                kept[c].append(p)
        chosen = [(conf[n, c, p], p, c) for c in range(lay.classes) for p in kept[c]]
        if -1 < a.keep_top_k[0] < len(chosen):  # by score, ties by prior box (then class: CPU's order unspecified)
            chosen = sorted(chosen, key=lambda r: (-r[0], r[1], r[2]))[:a.keep_top_k[0]]
            chosen.sort(key=lambda r: r[2])  # (stable: per class, in the order sorted)
        rows += [(n, c, p, score) for score, p, c in chosen]
    return rows


def _detection_output(a: DetectionOutput8Attrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """CPU's DetectionOutput (module doc): in f32, rows [image, label, score, xmin, ymin, xmax, ymax] of every
    detection, then a row of image id -1 where the output holds more, then zeros."""
    args = [np.asarray(x) for x in args]
    lay = _layout(a, args)
    f32 = [x.astype(np.float32) for x in args]
    boxes = _decoded(a, lay, f32)
    out = np.zeros((lay.rows, 7), np.float32)
    rows = _detections(a, lay, f32, boxes)
    for i, (n, c, p, score) in enumerate(rows):
        box = boxes[n, 0 if a.share_location else c, p]
        out[i] = [n, c - a.decrease_label_id, score, *(_clip_unit(box) if a.clip_after_nms else box)]
    if len(rows) < lay.rows:
        out[len(rows), 0] = -1
    return [out.astype(args[_LOC].dtype).reshape(1, 1, lay.rows, 7)]


def _decode_error(a: DetectionOutput8Attrs, prior: np.ndarray, error: np.ndarray, offset: int, loc: np.ndarray,
                  variance: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """``_decode`` in float64, and how far an f32 evaluation in CPU's order may be from it given the prior
    coordinates' own ``error``: each operation's rounding (u of its result), exp within APPROXIMATION of its rounded
    argument's, and the errors of its operands carried through (clipping to [0, 1] moves no value further)."""
    u = ACCUMULATION_UNIT
    q, e = prior[..., offset:offset + 4], np.broadcast_to(error, prior[..., offset:offset + 4].shape)
    if not a.normalized:
        dims = np.array([a.input_width, a.input_height] * 2, np.float64)
        q = q / dims
        e = e / dims + u * np.abs(q)
    el = np.zeros_like(loc)
    if variance is not None:
        loc = variance * loc
        el = u * np.abs(loc)
    if a.code_type.endswith("CORNER"):
        y = q + loc
        err = e + el + u * np.abs(y)
    else:
        size = q[..., 2:] - q[..., :2]
        es = e[..., 2:] + e[..., :2] + u * np.abs(size)
        centre = (q[..., :2] + q[..., 2:]) / 2
        ec = (e[..., :2] + e[..., 2:]) / 2 + u * np.abs(centre)
        grown = np.exp(loc[..., 2:])
        eg = grown * (np.expm1(el[..., 2:]) + APPROXIMATION * np.exp(el[..., 2:]))
        half = grown * size / 2
        eh = (grown * es + np.abs(size) * eg + eg * es + 2 * u * np.abs(half)) / 2
        step = loc[..., :2] * size
        em = (el[..., :2] * np.abs(size) + np.abs(loc[..., :2]) * es + el[..., :2] * es + u * np.abs(step) + ec
              + u * np.abs(step + centre))
        middle = step + centre
        y = np.concatenate([middle - half, middle + half], axis=-1)
        err = np.concatenate([em + eh] * 2, axis=-1) + u * np.abs(y)
    return (_clip_unit(y) if a.clip_before_nms else y), np.broadcast_to(err * (1 + 2.0**-20), y.shape)


def exact_boxes(a: DetectionOutput8Attrs, args: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The decoded boxes [N, L, P, 4] of the inputs (rounded to f32, as CPU takes them) in float64, and how far an f32
    evaluation in CPU's order may be from them (the conformance suite keeps NMS's overlaps away from its threshold
    by it)."""
    args = [np.asarray(x).astype(np.float32).astype(np.float64) for x in args]
    return _decode_images(a, _layout(a, args), args, partial(_decode_error, a))


def _detection_rounding(kernel: Kernel, a: DetectionOutput8Attrs, args: Sequence[np.ndarray],
                        bounds: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Image ids, labels and scores exact (scores are moved, compared with f32 thresholds as CPU does); a detection's
    coordinates within twice ``_decoded_error`` of the f32-rounded inputs (ours and CPU's f32 evaluations are each
    within it of the exact boxes), plus the rounding into the output's type. Where an input may differ, no bound: a
    choice (a threshold, an order, an overlap) may change."""
    if any_differs(args, bounds, range(len(args))):
        return [np.full((), np.inf)]
    args = [np.asarray(x) for x in args]
    lay = _layout(a, args)
    f32 = [x.astype(np.float32) for x in args]
    rows = _detections(a, lay, f32, _decoded(a, lay, f32))
    error = exact_boxes(a, args)[1]
    bound = np.zeros((lay.rows, 7))
    for i, (n, c, p, _) in enumerate(rows):
        bound[i, 3:] = 2 * error[n, 0 if a.share_location else c, p]
    y = np.asarray(outputs[0])
    if y.dtype != np.float32:
        bound = bound + output_rounding(y.reshape(lay.rows, 7)) * (np.arange(7) >= 3)
    return [bound.reshape(y.shape)]


DETECTION_OUTPUT_1 = OpSpec("DetectionOutput", "DetectionOutput-1", DetectionOutput1Attrs, (3, 5), 1,
                            guarded(_detection_rule), _detection_output, rounding=_detection_rounding,
                            crashes=_detection_crashes, evaluates=never)
DETECTION_OUTPUT_8 = OpSpec("DetectionOutput", "DetectionOutput-8", DetectionOutput8Attrs, (3, 5), 1,
                            guarded(_detection_rule), _detection_output, rounding=_detection_rounding,
                            crashes=_detection_crashes, evaluates=never)
