"""NonMaxSuppression-1, -3, -4, -5 and -9 and NMSRotated-13 (attributes, shape rule, reference kernel, rounding
rule).

Checked against the installed openvino (shape rules and CPU kernel) by tests/ops/test_nms_conformance.py. Measured on
OpenVINO 2026.4.1, beyond the specification:

- NonMaxSuppression-5 (opset5..8) is -9 (opset9..16) in every respect measured here: the same validation, shape
  inference and CPU outputs. Inputs boxes [B, N, 4], scores [B, C, N], then optionally max_output_boxes_per_class,
  iou_threshold, score_threshold and soft_nms_sigma (2 to 6 inputs). Outputs selected_indices and valid_outputs of
  ``output_type`` (i64, the default, or i32; another refused), selected_scores always f32 (f16 and bf16 inputs too).
- Shape inference: boxes and scores must be of a rank compatible with 3, inputs 2 to 5 each a scalar or of one
  element (a shape compatible with [] or [1]); boxes, scores, iou_threshold, score_threshold and soft_nms_sigma of
  f32, f16, bf16 or a dynamic type; max_output_boxes_per_class of any type (a known boolean value is refused).
  Where both ranks are static, batch dims and box dims (boxes[1], scores[2]) must be compatible (intervals that
  meet), and boxes[2] compatible with 4 (checked whenever boxes' rank is static). The selected count is [0..M]
  with M = min(boxes[1]'s upper bound, max) * scores[0]'s upper bound * scores[1]'s upper bound, where max is
  max_output_boxes_per_class's value read as int64 (floats truncated, wider unsigned values wrapped); it is
  dynamic where max is unknown, where boxes[1] is unbounded or the minimum negative, where scores' rank is dynamic,
  and where a bound of scores[0] or scores[1] is unbounded (while a count of [0..0] stays 0). valid_outputs is [1].
- CPU computes in f32 (f16 and bf16 inputs converted exactly) and reads max_output_boxes_per_class through i32:
  0 gives empty outputs, a negative value makes the inference fail ("Cannot get dims for non static shape"), the
  kernel refuses it, and so without the input (2 inputs: CPU reads 0); a fractional float value CPU rounds to nearest
  (2.7 selects 3) where the inference truncates it, the kernel refuses it; a Constant above 2^31 - 1 CPU saturates
  (all boxes kept), a non-constant one it wraps (2^32 + 3 reads 3): the kernel reads the value as it is,
  min(value, N).
- Candidates of a class are the boxes whose score is above score_threshold (strictly; NaN never), taken by score,
  equal scores by box index (the smaller first). With soft_nms_sigma 0 or less (or absent) a candidate is
  suppressed where its IoU with a box selected before it in the class is at least iou_threshold (a NaN IoU never
  suppresses; a threshold of 0 suppresses every box after the first). IoU is CPU's f32 arithmetic, box by box:
  corner boxes [y1, x1, y2, x2] ordered by min/max per axis, center boxes [xc, yc, w, h] as xc -+ w * 0.5 and
  yc -+ h * 0.5 (not ordered: a negative width gives a negative area), areas (y2 - y1) (x2 - x1), intersection
  max(min(y2) - max(y1), 0) max(min(x2) - max(x1), 0), IoU intersection / (area_a + area_b - intersection); two
  boxes of no area give NaN. A class selects at most min(max, N) boxes.
- Soft NMS (soft_nms_sigma above 0): iou_threshold is not read. A candidate's score is multiplied by
  exp(-0.5 / sigma * IoU^2) for every box selected in its class since it was last scored; where the score falls to
  score_threshold or below it is dropped, where it is unchanged it is selected, else it goes back among the
  candidates with its new score. CPU computes the factors with oneDNN's exp (a degree-5 polynomial on a reduction
  by ln 2; values below ln(2^-126) give 0) over the selected boxes from the last to the first, a vector at a time
  multiplied together as a tree before they scale the score, then one at a time. Its JIT kernel is built for the
  best instruction set the CPU has of AVX-512 (avx512_core: 16 lanes), AVX2 (8) and SSE4.1 (4; its exp multiplies,
  then adds, where the others fuse the two), capped by ONEDNN_MAX_CPU_ISA: ``ISAS``, and ``cpu_isa()`` the one
  this process runs at (/proc/cpuinfo's flags; AVX2 assumed where they cannot be read). The kernel follows it bit
  for bit at each of the three (measured with ONEDNN_MAX_CPU_ISA on an AVX-512 CPU). Without SSE4.1 (or off x86)
  CPU runs its C++ reference instead (std::exp of scale * IoU * IoU, one box at a time): not modelled, the kernel
  computes as SSE4.1 there. A NaN IoU (two boxes of no area) the exp clamps to ln(FLT_MAX) and makes a factor of
  inf: the candidate comes back scored inf and is selected. A NaN score (0 times inf, with a negative
  score_threshold) CPU takes back among the candidates for ever: the kernel refuses it.
- Output: the classes' selections in batch and class order, each in its selection order; with
  ``sort_result_descending`` all of them sorted by score, descending, equal scores by batch, class and box index
  (across batches too). selected_scores rows are [batch, class, score] as f32; valid_outputs is the row count.
- NonMaxSuppression-1 (opset1..2; no output_type, i64 indices), -3 (opset3) and -4 (opset4): one output,
  selected_indices; 2 to 5 inputs, max and the thresholds scalars ([1] refused), the same dim checks as -9's, no
  element type checked; -3 takes output_type i64 or i32, -4 any element type (f32 too; OpenVINO's reader refuses
  an IR of one, "Output type must be i32 or i64": not modelled). -1 and -3 infer
  [min(N, max * C), 3] where N and max * C (max as a Dimension: -1 dynamic, another negative value 0; times
  scores[1]'s interval) are static, else [?, 3]; -4 infers [min(N, max) * B * C, 3] (B and C scores' upper bounds)
  where both ranks are static, N static and max known, else [?, 3]. A node of 2 to 4 inputs ``ov.save_model``
  writes with the others as Constants (max an i32 0, the thresholds 0), and OpenVINO's reader fills them for a
  layer that declares fewer ports. CPU converts each to a NonMaxSuppression-9 on the same inputs (its
  ConvertNMS1/3/4ToNMS9 passes: max 0, iou_threshold and score_threshold 0 where absent, soft_nms_sigma 0; -1's
  indices i64) and outputs its selected_indices: as many rows as boxes selected (none with 2 inputs), in -9's
  order (sort_result_descending either way, box_encoding corner or center), no row of -1 or padding, whatever the
  inferred shape (9 rows where -1 infers [6, 3] and -4 [12, 3]; a ShapeOf of the layer still gives the inferred
  one, folded). So CPU refuses what -9's validation refuses and -1/3/4's does not check (``cpu_refuses``): -4's
  output_type other than i64 and i32, boxes, scores and thresholds not of f32, f16 or bf16; it fails, as for -9,
  on a negative max and reads a fractional one rounded (the kernel refuses both). The kernel is -9's hard NMS
  (``run_legacy_nms``), its rounding rule -9's.
- NMSRotated-13 (opset13..16; tests/ops/test_nms_multiclass_conformance.py): five inputs, boxes [B, N, 5] of
  [x_center, y_center, width, height, angle]; inference as NonMaxSuppression-9's with boxes[2] compatible with 5,
  inputs 0, 1, 3 and 4 of any real type (f64 too) or a dynamic one, input 2 of an integer type or a dynamic one (not
  boolean, not a float); attributes sort_result_descending, output_type (i64 or i32) and clockwise. CPU runs its
  C++ code (no JIT kernel), in f32, and reads max_output_boxes_per_class and the thresholds as NonMaxSuppression-9
  does. Candidates score above score_threshold, by score, equal scores by index; a candidate of area w h 0 or less
  is kept unless iou_threshold is below 0 (then, after the first, suppressed), else it is suppressed where its IoU
  with a box selected before it in the class is above iou_threshold (strictly: NonMaxSuppression-9's is at least; a
  NaN IoU never suppresses). The rotated IoU, bit for bit as CPU's f32 arithmetic: the corners from the box's
  centre, its size and cos and sin of the angle (negated where not clockwise; glibc's cosf and sinf, correctly
  rounded: f64 rounded to f32 here) times 0.5; the intersection polygon's points (each edge pair's crossing where
  the 2x2 determinant is above 1e-14 and both parameters in [0, 1], then each box's corners within the other by
  projections on its first and last edges), 0 for two points or fewer; their convex hull by Graham's scan (the
  lowest point, then the rest sorted by std::sort, at most 16 points an insertion sort, by a comparator counting
  cross products below 1e-6 as ties broken by distance; a point at distance 1e-8 or less dropped; a turn of 0 or
  more popped) and its area as a fan of |cross products| halved; IoU intersection / ((area_a + area_b) -
  intersection), 0 where the selected box's area is 0 or less. More than 16 intersection points (boxes sharing
  edges) the kernel refuses: std::sort then partitions by a comparator that is no strict order.
- Not copied from CPU: where max_output_boxes_per_class is 0 (and the output shapes are static) or boxes or scores
  hold no element, CPU leaves valid_outputs unwritten (whatever the memory held); the kernel gives 0.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from ..base.dims import Dim
from ..base.dtypes import INTEGER_TYPES, REAL_TYPES
from ..base.errors import OpValidationError
from . import attrs as A
from .core import ELEMENT
from .cpu import fma, mayiuse
from .intervals import ANY, Iv, canon, compatible, dmul, guarded, is_static, iv, to_dim
from .rounding import EXACT, any_differs
from .spec import OpSpec, TensorType, never

NMS_FLOATS = ("f32", "f16", "bf16")
_INPUT_NAMES = ("boxes", "scores", "max_output_boxes_per_class", "iou_threshold", "score_threshold",
                "soft_nms_sigma")


@dataclass(frozen=True, slots=True)
class NmsAttrs:
    box_encoding: str = A.attr("box_encoding", A.enum("corner", "center"), "corner")
    sort_result_descending: bool = A.attr("sort_result_descending", A.BOOL, True)
    output_type: str = A.attr("output_type", A.enum("i64", "i32"), "i64")


@dataclass(frozen=True, slots=True)
class NmsRotatedAttrs:
    sort_result_descending: bool = A.attr("sort_result_descending", A.BOOL, True)
    output_type: str = A.attr("output_type", A.enum("i64", "i32"), "i64")
    clockwise: bool = A.attr("clockwise", A.BOOL, True)


@dataclass(frozen=True, slots=True)
class Nms1Attrs:
    box_encoding: str = A.attr("box_encoding", A.enum("corner", "center"), "corner")
    sort_result_descending: bool = A.attr("sort_result_descending", A.BOOL, True)


@dataclass(frozen=True, slots=True)
class Nms4Attrs(Nms1Attrs):
    """NonMaxSuppression-4 does not check its output_type: any element type is read and inferred."""

    output_type: str = A.attr("output_type", ELEMENT, "i64")


# --- shape rule ----------------------------------------------------------------------------------------------------


def _rank3(t: TensorType, what: str) -> None:
    if t.shape is not None and len(t.shape) != 3:
        raise OpValidationError(f"{what} must be 3-D, got rank {len(t.shape)}")


def _one_element(t: TensorType, what: str) -> None:
    """A scalar or a tensor of one element: a shape compatible with [] or [1]."""
    if t.shape is None or len(t.shape) == 0:
        return
    if len(t.shape) != 1 or not compatible(iv(t.shape[0]), (1, 1)):
        raise OpValidationError(f"{what} must be a scalar or hold one element, got shape {list(map(str, t.shape))}")


def _upper(d: Dim) -> Iv:
    """Dimension(d.get_max_length()): an unbounded dim's -1 is a dynamic Dimension."""
    return ANY if d.hi is None else (d.hi, d.hi)


def _max_boxes(value: np.ndarray) -> int:
    """max_output_boxes_per_class's value as OpenVINO's inference reads it into int64."""
    flat = np.asarray(value).reshape(-1)
    if flat.dtype == np.bool_:
        raise OpValidationError("max_output_boxes_per_class of boolean values cannot be read")
    if flat.dtype.kind == "f":
        if not np.isfinite(flat[0]):
            return -1  # (a cast OpenVINO leaves undefined: nothing is bounded then)
        return int(np.trunc(flat[0]))
    return int(flat[:1].astype(np.int64)[0])


def _dims_agree(boxes: TensorType, scores: TensorType, coordinates: int = 4) -> None:
    """Batch dims and box dims compatible where both ranks are static, boxes[2] compatible with ``coordinates``."""
    if boxes.shape is not None and scores.shape is not None:
        if not compatible(iv(boxes.shape[0]), iv(scores.shape[0])):
            raise OpValidationError(f"boxes' batch dim {boxes.shape[0]} and scores' {scores.shape[0]} differ")
        if not compatible(iv(boxes.shape[1]), iv(scores.shape[2])):
            raise OpValidationError(f"boxes hold {boxes.shape[1]} boxes, scores {scores.shape[2]}")
    if boxes.shape is not None and not compatible(iv(boxes.shape[2]), (coordinates, coordinates)):
        raise OpValidationError(f"boxes' last dim is {boxes.shape[2]}: it must be {coordinates}")


def _nms(a: NmsAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """NonMaxSuppression-5's and -9's (module doc)."""
    for j in (0, 1, 3, 4, 5):
        element = inputs[j].element if j < len(inputs) else None
        if element is not None and element not in NMS_FLOATS:
            raise OpValidationError(f"{_INPUT_NAMES[j]} of element type {element}: it must be f32, f16 or bf16")
    return _selected(a, inputs, values, 4)


def _selected(a: NmsAttrs, inputs: Sequence[TensorType], values, coordinates: int) -> list[TensorType]:
    """The outputs of NonMaxSuppression-9 and NMSRotated-13 (boxes of ``coordinates`` values)."""
    boxes, scores = inputs[0], inputs[1]
    _rank3(boxes, "boxes")
    _rank3(scores, "scores")
    for j in range(2, len(inputs)):
        _one_element(inputs[j], _INPUT_NAMES[j])
    _dims_agree(boxes, scores, coordinates)
    count = ANY
    if boxes.shape is not None and scores.shape is not None:
        if len(values) > 2 and values[2] is not None:
            most = min(-1 if boxes.shape[1].hi is None else boxes.shape[1].hi, _max_boxes(values[2]))
            count = ANY if most < 0 else canon(0, most)
        count = dmul(dmul(count, _upper(scores.shape[0])), _upper(scores.shape[1]))
    selected = (to_dim(count), Dim(3, 3))
    return [TensorType(a.output_type, selected), TensorType("f32", selected),
            TensorType(a.output_type, (Dim(1, 1),))]


def _nms_rotated(a: NmsRotatedAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """NMSRotated-13's: NonMaxSuppression-9's with boxes of 5 values, its 5 inputs of a real (2: an integral) type or
    a dynamic one."""
    for j, t in enumerate(inputs):
        if t.element is not None and t.element not in (INTEGER_TYPES if j == 2 else REAL_TYPES):
            raise OpValidationError(f"{_INPUT_NAMES[j]} of element type {t.element}: it must be "
                                    + ("an integer type" if j == 2 else "a floating-point type"))
    return _selected(a, inputs, values, 5)


def _legacy_checks(inputs: Sequence[TensorType]) -> None:
    """NonMaxSuppression-1/3/4's checks: 3-D boxes and scores, scalar thresholds and max (not [1]), batch and box dims
    compatible, boxes[2] compatible with 4; no element type checked."""
    boxes, scores = inputs[0], inputs[1]
    _rank3(boxes, "boxes")
    _rank3(scores, "scores")
    for j in range(2, len(inputs)):
        if inputs[j].shape is not None and len(inputs[j].shape) != 0:
            raise OpValidationError(f"{_INPUT_NAMES[j]} must be a scalar, got rank {len(inputs[j].shape)}")
    _dims_agree(boxes, scores)


def _dimension(value: int) -> Iv:
    """OpenVINO's Dimension(value): -1 is dynamic, another negative value the interval [0, 0]."""
    return ANY if value == -1 else canon(value, value)


def _nms_1(a, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """NonMaxSuppression-1's and -3's: min(N, max * C) where N and max * C are static, else dynamic."""
    _legacy_checks(inputs)
    boxes, scores = inputs[0], inputs[1]
    count = ANY
    if boxes.shape is not None:
        most = _dimension(_max_boxes(values[2])) if len(values) > 2 and values[2] is not None else ANY
        if scores.shape is not None:
            most = dmul(most, iv(scores.shape[1]))
        n = iv(boxes.shape[1])
        if is_static(n) and is_static(most):
            count = (min(n[0], most[0]),) * 2
    return [TensorType(getattr(a, "output_type", "i64"), (to_dim(count), Dim(3, 3)))]


def _nms_4(a: Nms4Attrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """NonMaxSuppression-4's: min(N, max) * B * C with B and C their upper bounds, where N is static and max known,
    else dynamic."""
    _legacy_checks(inputs)
    boxes, scores = inputs[0], inputs[1]
    count = ANY
    if boxes.shape is not None and scores.shape is not None and boxes.shape[1].is_static and len(values) > 2 \
            and values[2] is not None:
        count = _dimension(min(boxes.shape[1].lo, _max_boxes(values[2])))
        count = dmul(dmul(count, _upper(scores.shape[0])), _upper(scores.shape[1]))
    return [TensorType(a.output_type, (to_dim(count), Dim(3, 3)))]


# --- kernel --------------------------------------------------------------------------------------------------------

_F32 = np.float32
_HALF = _F32(0.5)


def _bits(h: int) -> np.float32:
    return np.array([h], np.uint32).view(_F32)[0]


#: oneDNN's exp: log2(e), ln(FLT_MAX), ln(FLT_MIN), ln(2), and its polynomial's p1..p5 (p0 = 1).
_LOG2E, _LN_MAX, _LN_MIN, _LN2 = _bits(0x3FB8AA3B), _bits(0x42B17218), _bits(0xC2AEAC50), _bits(0x3F317218)
_EXP_POLYNOMIAL = tuple(_bits(h) for h in (0x3C07CFCE, 0x3D2B9D0D, 0x3E2AAD40, 0x3EFFFEE3, 0x3F7FFFFB))

#: The instruction sets of CPU's soft-NMS JIT kernel, the best first: the selected boxes it scores a candidate
#: against at once (its f32 lanes) and whether its exp fuses multiply-adds (SSE4.1 has none: a product, then a sum).
ISAS = {"avx512_core": (16, True), "avx2": (8, True), "sse41": (4, False)}


@cache
def cpu_isa() -> str:
    """The instruction set OpenVINO CPU's NMS kernel runs at in this process: the best of ``ISAS`` oneDNN may use
    here (``cpu.mayiuse``: the CPU's flags, where they cannot be read AVX2 assumed, capped by ONEDNN_MAX_CPU_ISA).
    "sse41" where it may use none of them (CPU's reference code then, not modelled)."""
    return next((isa for isa in ISAS if mayiuse(isa.upper(), unknown=isa != "avx512_core")), "sse41")


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray, fused: bool = True) -> np.ndarray:
    """a b + c rounded once to f32 (vfmadd); not ``fused``: rounded twice (mulps, addps)."""
    if not fused:
        return np.asarray(a, _F32) * np.asarray(b, _F32) + np.asarray(c, _F32)
    return fma(a, b, c)


def _exp(x: np.ndarray, fused: bool = True) -> np.ndarray:
    """oneDNN's f32 exp as OpenVINO CPU's soft NMS computes it: x clamped to [ln(FLT_MIN), ln(FLT_MAX)] (by
    vminps/vmaxps: NaN becomes ln(FLT_MAX)), x = n ln 2 + r, exp(r) by a polynomial, times 2^n (as 2 * 2^(n - 1), which
    overflows to inf at the top); 0 below ln(FLT_MIN). r and the polynomial by multiply-adds, ``fused`` or not."""
    x = np.asarray(x, _F32)
    under = x < _LN_MIN
    x = np.where(x < _LN_MAX, x, _LN_MAX)
    x = np.where(x > _LN_MIN, x, _LN_MIN)
    n = np.floor(x * _LOG2E + _HALF)
    r = _fma(-n, _LN2, x, fused)
    power = ((n - _F32(1)).astype(np.int32) + 127 << 23).view(_F32)
    power = np.where(under, _F32(0), power)
    p = np.full_like(x, _EXP_POLYNOMIAL[0])
    for c in (*_EXP_POLYNOMIAL[1:], _F32(1)):
        p = _fma(p, r, c, fused)
    with np.errstate(over="ignore"):  # (inf at the top, as CPU's)
        return p * power * _F32(2)


def _corners(boxes: np.ndarray, encoding: str) -> tuple[np.ndarray, ...]:
    """y1, x1, y2, x2 per box, as CPU's kernel makes them (vminps/vmaxps pick the second operand on ties)."""
    c0, c1, c2, c3 = (boxes[..., k] for k in range(4))
    if encoding == "corner":
        return (np.where(c0 < c2, c0, c2), np.where(c1 < c3, c1, c3), np.where(c0 > c2, c0, c2),
                np.where(c1 > c3, c1, c3))
    half_w, half_h = c2 * _HALF, c3 * _HALF
    return c1 - half_h, c0 - half_w, c1 + half_h, c0 + half_w


def _iou(corners: tuple[np.ndarray, ...], areas: np.ndarray, others: np.ndarray, box: int) -> np.ndarray:
    """IoU of box ``box`` with the boxes ``others``, in CPU's f32 arithmetic and order."""
    y1, x1, y2, x2 = (c[others] for c in corners)
    cy1, cx1, cy2, cx2 = (c[box] for c in corners)
    height = np.where(y2 < cy2, y2, cy2) - np.where(y1 > cy1, y1, cy1)
    width = np.where(x2 < cx2, x2, cx2) - np.where(x1 > cx1, x1, cx1)
    inter = np.where(height > 0, height, _F32(0)) * np.where(width > 0, width, _F32(0))
    with np.errstate(invalid="ignore", divide="ignore"):  # (0 / 0: NaN, as CPU's)
        return inter / ((areas[others] + areas[box]) - inter)


def _tree_product(w: np.ndarray) -> np.float32:
    """The factors of a vector (4, 8 or 16 lanes) multiplied as CPU's horizontal product does: its 4-lane quarters
    paired (the first with the second, the third with the fourth, then the two products), then the four lanes of
    the result as (b0 b1) (b2 b3)."""
    b = w.reshape(-1, 4)
    while len(b) > 1:
        b = b[0::2] * b[1::2]
    b = b[0]
    return (b[0] * b[1]) * (b[2] * b[3])


def _hard(order: np.ndarray, corners, areas, iou_threshold: np.float32, most: int) -> list[int]:
    selected: list[int] = []
    for box in order:
        if len(selected) == most:
            break
        if selected and np.any(_iou(corners, areas, np.array(selected, np.intp), box) >= iou_threshold):
            continue
        selected.append(int(box))
    return selected


def _soft(order: np.ndarray, scores: np.ndarray, corners, areas, scale: np.float32, score_threshold: np.float32,
          most: int, isa: str) -> list[tuple[int, np.float32]]:
    """CPU's soft NMS at ``isa``: a candidate is scored against the boxes selected since it was last scored, from
    the last, a vector of lanes at a time (a tree product), then one by one."""
    lanes, fused = ISAS[isa]
    heap = [(-float(scores[box]), int(box), 0) for box in order]
    heapq.heapify(heap)
    selected: list[tuple[int, np.float32]] = []
    while heap and len(selected) < most:
        negative, box, since = heapq.heappop(heap)
        score = original = _F32(-negative)
        if len(selected) > since:
            others = np.array([b for b, _ in selected[since:]], np.intp)
            weights = _exp(np.square(_iou(corners, areas, others, box)) * scale, fused)
            end = len(weights)
            while end >= lanes and score > score_threshold:
                score = _tree_product(weights[end - lanes:end]) * score
                end -= lanes
            while end > 0 and score > score_threshold:
                end -= 1
                score = weights[end] * score
            if np.isnan(score):
                raise OpValidationError("soft NMS scored a candidate NaN (a score of 0 times an IoU of two boxes of "
                                        "no area): OpenVINO CPU takes it back among the candidates for ever")
            if score <= score_threshold:
                continue
        if score == original:
            selected.append((box, score))
        else:
            heapq.heappush(heap, (-float(score), box, len(selected)))
    return selected


def by_score(s: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The candidates (indices where ``keep``) by score descending, equal scores by index, as CPU sorts them."""
    at = np.flatnonzero(keep)
    return at[np.argsort(-s[at], kind="stable")]


def _scalar(args: Sequence[np.ndarray], j: int, default: float) -> np.float32:
    if len(args) <= j:
        return _F32(default)
    value = np.asarray(args[j])
    if value.size != 1:
        raise OpValidationError(f"{_INPUT_NAMES[j]} holds {value.size} values: it must hold one")
    return _F32(value.reshape(-1)[0])


def _max_per_class(args: Sequence[np.ndarray]) -> int:
    """max_output_boxes_per_class as CPU runs it: refused where negative or fractional (module doc)."""
    if len(args) < 3:
        raise OpValidationError("no max_output_boxes_per_class: OpenVINO CPU fails (it reads 0 and leaves its "
                                "outputs unsized)")
    value = np.asarray(args[2])
    if value.size != 1 or value.dtype == np.bool_:
        raise OpValidationError("max_output_boxes_per_class must hold one number")
    v = value.reshape(-1)[0]
    if value.dtype.kind == "f" and (not np.isfinite(v) or v != np.trunc(v)):
        raise OpValidationError(f"max_output_boxes_per_class {v}: OpenVINO CPU rounds it, its inference truncates")
    if v < 0:
        raise OpValidationError(f"max_output_boxes_per_class {v} is negative (OpenVINO CPU fails)")
    return int(v)


def run_nms(a: NmsAttrs, args: Sequence[np.ndarray], isa: str | None = None) -> list[np.ndarray]:
    """Per batch and class, the boxes NMS keeps (module doc), as rows [batch, class, box]; soft NMS as CPU computes
    it at ``isa`` (one of ``ISAS``; by default ``cpu_isa()``, this machine's)."""
    isa = isa or cpu_isa()
    boxes, scores = _boxes_and_scores(args, 4)
    most = min(_max_per_class(args), boxes.shape[1])
    iou_threshold, score_threshold = _scalar(args, 3, 0.0), _scalar(args, 4, 0.0)
    sigma = _scalar(args, 5, 0.0)
    scale = _F32(-0.5) / sigma if sigma > 0 else _F32(0)
    rows: list[tuple[float, int, int, int]] = []
    for b in range(boxes.shape[0] if most else 0):
        corners = _corners(boxes[b], a.box_encoding)
        areas = (corners[2] - corners[0]) * (corners[3] - corners[1])
        for c in range(scores.shape[1]):
            s = scores[b, c]
            order = by_score(s, s > score_threshold)
            if scale == 0:
                kept = [(box, s[box]) for box in _hard(order, corners, areas, iou_threshold, most)]
            else:
                kept = _soft(order, s, corners, areas, scale, score_threshold, most, isa)
            rows += [(score, b, c, box) for box, score in kept]
    return _outputs(a, rows)


def _boxes_and_scores(args: Sequence[np.ndarray], coordinates: int) -> tuple[np.ndarray, np.ndarray]:
    """boxes [B, N, coordinates] and scores [B, C, N] in f32 (as CPU converts f16 and bf16); boxes finite."""
    boxes, scores = np.asarray(args[0]).astype(_F32), np.asarray(args[1]).astype(_F32)
    if boxes.ndim != 3 or boxes.shape[2] != coordinates or scores.ndim != 3 or scores.shape[0] != boxes.shape[0] \
            or scores.shape[2] != boxes.shape[1]:
        raise OpValidationError(f"boxes {list(boxes.shape)} and scores {list(scores.shape)}: expected "
                                f"[B, N, {coordinates}] and [B, C, N]")
    if not np.all(np.isfinite(boxes)):
        raise OpValidationError("boxes hold NaN or an infinity (CPU's min and max then pick by operand order)")
    return boxes, scores


def _outputs(a: NmsAttrs, rows: list[tuple[float, int, int, int]]) -> list[np.ndarray]:
    """rows (score, batch, class, box), in selection order, as CPU outputs them (sorted where
    ``sort_result_descending``)."""
    if a.sort_result_descending:
        rows.sort(key=lambda r: (-r[0], r[1], r[2], r[3]))
    index_type = np.int64 if a.output_type == "i64" else np.int32
    indices = np.array([r[1:] for r in rows], index_type).reshape(len(rows), 3)
    selected_scores = np.array([(r[1], r[2], r[0]) for r in rows], _F32).reshape(len(rows), 3)
    return [indices, selected_scores, np.array([len(rows)], index_type)]


_CONVERTED = "OpenVINO CPU computes it as NonMaxSuppression-9, which takes"


def _legacy_cpu_refuses(a: Nms1Attrs | NmsAttrs | Nms4Attrs, inputs: Sequence[TensorType], values) -> str | None:
    """What NonMaxSuppression-9's validation refuses where CPU converts a NonMaxSuppression-1/3/4 to it (module
    doc): an output_type other than i64 and i32, boxes, scores and thresholds not of f32, f16 or bf16."""
    output_type = getattr(a, "output_type", "i64")
    if output_type not in ("i64", "i32"):
        return f"{_CONVERTED} output_type i64 or i32, not {output_type}"
    for j in (0, 1, 3, 4):
        element = inputs[j].element if j < len(inputs) else None
        if element is not None and element not in NMS_FLOATS:
            return f"{_CONVERTED} {_INPUT_NAMES[j]} of f32, f16 or bf16, not {element}"
    return None


def run_legacy_nms(a: Nms1Attrs | NmsAttrs | Nms4Attrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """NonMaxSuppression-1/3/4's CPU output: NonMaxSuppression-9's selected_indices on the same inputs, max 0 where
    absent (module doc); -4's output types that CPU refuses it refuses too."""
    refused = _legacy_cpu_refuses(a, (), None)
    if refused:
        raise OpValidationError(refused)
    args = [*args, np.int64(0)] if len(args) == 2 else args
    return run_nms(NmsAttrs(a.box_encoding, a.sort_result_descending, getattr(a, "output_type", "i64")), args)[:1]


# --- NMSRotated-13 --------------------------------------------------------------------------------------------------

_TWO = _F32(2)


def _vertices(box: np.ndarray, clockwise: bool) -> np.ndarray:
    """CPU's corners of a rotated box [xc, yc, w, h, angle] in f32: cos and sin of the angle (negated where not
    ``clockwise``) as glibc's cosf and sinf (correctly rounded), halved; [4, 2]."""
    x, y, w, h, angle = box
    theta = angle if clockwise else -angle
    cos, sin = _F32(np.cos(np.float64(theta))) * _HALF, _F32(np.sin(np.float64(theta))) * _HALF
    p0 = ((x - sin * h) - cos * w, (y + cos * h) - sin * w)
    p1 = ((x + sin * h) - cos * w, (y - cos * h) - sin * w)
    return np.array([p0, p1, (_TWO * x - p0[0], _TWO * y - p0[1]), (_TWO * x - p1[0], _TWO * y - p1[1])], _F32)


def _cross(a, b) -> np.float32:
    return a[0] * b[1] - b[0] * a[1]


def _dot(a, b) -> np.float32:
    return a[0] * b[0] + a[1] * b[1]


def _inside(points: np.ndarray, rect: np.ndarray) -> list[np.ndarray]:
    """The ``points`` within ``rect`` by CPU's projections on its first and last edges."""
    ab, da = rect[1] - rect[0], rect[0] - rect[3]
    ab_ab, ad_ad = _dot(ab, ab), _dot(da, da)
    found = []
    for p in points:
        ap = p - rect[0]
        on_ab, on_ad = _dot(ap, ab), -_dot(ap, da)
        if on_ab >= 0 and on_ad >= 0 and on_ab <= ab_ab and on_ad <= ad_ad:
            found.append(p)
    return found


def _intersections(p1: np.ndarray, p2: np.ndarray) -> list[np.ndarray]:
    """CPU's points of the intersection of two rotated rectangles: edge crossings, then each one's corners within
    the other (duplicates kept)."""
    v1, v2 = np.roll(p1, -1, axis=0) - p1, np.roll(p2, -1, axis=0) - p2
    found = []
    for i in range(4):
        for j in range(4):
            det = _cross(v2[j], v1[i])
            if abs(det) <= _F32(1e-14):
                continue
            v12 = p2[j] - p1[i]
            t1, t2 = _cross(v2[j], v12) / det, _cross(v1[i], v12) / det
            if _F32(0) <= t1 <= _F32(1) and _F32(0) <= t2 <= _F32(1):
                found.append(p1[i] + v1[i] * t1)
    return found + _inside(p1, p2) + _inside(p2, p1)


def _hull_area(points: list[np.ndarray]) -> np.float32:
    """CPU's convex hull (Graham's scan: its std::sort of at most 16 points, an insertion sort, by a comparator of a
    1e-6 tolerance) and the area of the polygon, in f32."""
    start = min(range(len(points)), key=lambda i: (points[i][1], points[i][0]))
    q = [p - points[start] for p in points]
    q[0], q[start] = q[start], q[0]

    def before(a, b) -> bool:
        turn = _cross(a, b)
        return _dot(a, a) < _dot(b, b) if abs(turn) < _F32(1e-6) else turn > 0

    for i in range(2, len(q)):  # (libstdc++'s __insertion_sort of q[1:])
        value = q[i]
        if before(value, q[1]):
            q[2:i + 1] = q[1:i]
            q[1] = value
            continue
        k = i
        while before(value, q[k - 1]):
            q[k] = q[k - 1]
            k -= 1
        q[k] = value
    k = next((k for k in range(1, len(q)) if _dot(q[k], q[k]) > _F32(1e-8)), len(q))
    if k == len(q):
        return _F32(0)
    hull = [q[0], q[k]]
    for p in q[k + 1:]:
        while len(hull) > 1 and _cross(p - hull[-2], hull[-1] - hull[-2]) >= 0:
            hull.pop()
        hull.append(p)
    area = _F32(0)
    for i in range(1, len(hull) - 1):
        area = area + abs(_cross(hull[i] - hull[0], hull[i + 1] - hull[0]))
    return area / _TWO


def _rotated_iou(vertices: np.ndarray, area: np.float32, other: np.ndarray, clockwise: bool) -> np.float32:
    """CPU's IoU of a candidate (its ``vertices`` and ``area``) with a selected box, in f32."""
    other_area = other[2] * other[3]
    if other_area <= 0:
        return _F32(0)
    points = _intersections(vertices, _vertices(other, clockwise))
    if len(points) > 16:
        raise OpValidationError("two rotated boxes of more than 16 intersection points (touching edges): CPU's "
                                "std::sort then partitions them by a comparator that is no strict order")
    inter = _hull_area(points) if len(points) > 2 else _F32(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return inter / ((area + other_area) - inter)


def run_nms_rotated(a: NmsRotatedAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """NMSRotated-13's CPU outputs (module doc)."""
    boxes, scores = _boxes_and_scores(args, 5)
    most = min(_max_per_class(args), boxes.shape[1])
    iou_threshold, score_threshold = _scalar(args, 3, 0.0), _scalar(args, 4, 0.0)
    rows: list[tuple[float, int, int, int]] = []
    for b in range(boxes.shape[0] if most else 0):
        for c in range(scores.shape[1]):
            s = scores[b, c]
            selected: list[int] = []
            for box in by_score(s, s > score_threshold):
                if len(selected) == most:
                    break
                area = boxes[b, box, 2] * boxes[b, box, 3]
                if area > 0:
                    vertices = _vertices(boxes[b, box], a.clockwise)
                    if any(_rotated_iou(vertices, area, boxes[b, j], a.clockwise) > iou_threshold for j in selected):
                        continue
                elif selected and _F32(0) > iou_threshold:
                    continue
                selected.append(int(box))
            rows += [(s[box], b, c, box) for box in selected]
    return _outputs(a, rows)


def nms_rounding(kernel, a: NmsAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                  outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Exact where every input is: the kernel is CPU's f32 arithmetic (soft NMS at ``cpu_isa()``). Where an input may
    differ, no bound: a choice may change."""
    if any_differs(args, bounds, range(len(args))):
        return [np.full((), np.inf) for _ in outputs]
    return [EXACT for _ in outputs]


NMS_1 = OpSpec("NonMaxSuppression", "NonMaxSuppression-1", Nms1Attrs, (2, 5), 1, guarded(_nms_1), run_legacy_nms,
               (2,), rounding=nms_rounding, cpu_refuses=_legacy_cpu_refuses, reads_unfed_ports=True,
               selects_rows=True, evaluates=never)
NMS_3 = OpSpec("NonMaxSuppression", "NonMaxSuppression-3", NmsAttrs, (2, 5), 1, guarded(_nms_1), run_legacy_nms,
               (2,), rounding=nms_rounding, cpu_refuses=_legacy_cpu_refuses, reads_unfed_ports=True,
               selects_rows=True, evaluates=never)
NMS_4 = OpSpec("NonMaxSuppression", "NonMaxSuppression-4", Nms4Attrs, (2, 5), 1, guarded(_nms_4), run_legacy_nms,
               (2,), rounding=nms_rounding, cpu_refuses=_legacy_cpu_refuses, reads_unfed_ports=True,
               selects_rows=True, evaluates=never)
NMS_5 = OpSpec("NonMaxSuppression", "NonMaxSuppression-5", NmsAttrs, (2, 6), 3, guarded(_nms), run_nms, (2,),
               rounding=nms_rounding)
NMS_9 = OpSpec("NonMaxSuppression", "NonMaxSuppression-9", NmsAttrs, (2, 6), 3, guarded(_nms), run_nms, (2,),
               rounding=nms_rounding)
NMS_ROTATED_13 = OpSpec("NMSRotated", "NMSRotated-13", NmsRotatedAttrs, (5, 5), 3, guarded(_nms_rotated),
                        run_nms_rotated, (2,), rounding=nms_rounding)
