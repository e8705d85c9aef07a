"""MatrixNms-8 and MulticlassNms-8/-9 (attributes, shape rules, reference kernels, rounding rules): the NMS layers of
PaddlePaddle's detection models (PP-YOLO, PicoDet). NMSRotated-13 is NonMaxSuppression-9's kin: ops/nms.py.

Checked against the installed openvino (shape rules and CPU kernels) by tests/ops/test_nms_multiclass_conformance.py.
Measured on openvino 2026.4.1, beyond the specification:

- Validation (both ops): boxes and scores of f32, f16 or bf16 (a dynamic type refused too) and of the same type,
  output_type i64 or i32, nms_top_k, keep_top_k and background_class each -1 or more (MatrixNms checks them only
  where boxes' rank is static); MulticlassNms's nms_eta in [0, 1], its roisnum (MulticlassNms-9's third input) of
  i32 or i64. selected_outputs is of the boxes' type, selected_indices and the per-image counts of output_type.
- Shape inference: boxes of a rank compatible with 3, scores with 3 (MulticlassNms-9 with roisnum: 2, roisnum 1).
  Where boxes' rank is static: MulticlassNms refuses scores of a dynamic rank (its inference reads scores[0]:
  "Accessing out-of-range dimension"); boxes[0] (with roisnum: the classes) compatible with scores[0], boxes[2]
  with 4, and where scores' rank is static boxes[1] with scores[2] (with roisnum scores[1]). The selected count is
  [0..M]: M from nms_top_k > -1 as min(boxes[1]'s upper bound, nms_top_k) (dynamic where boxes[1] is unbounded),
  else boxes[1]; times the classes (scores[1]; with roisnum boxes[0]; background_class not subtracted); capped by
  keep_top_k > -1 (MatrixNms: min(upper bound, keep_top_k), dynamic where unbounded; MulticlassNms: keep_top_k where
  below a bounded upper bound); times the images (scores[0]; with roisnum roisnum[0]); [0..?] where unbounded.
  Without scores' rank (MulticlassNms-9 with roisnum: or roisnum's) the count is dynamic. The per-image count is
  [boxes[0]] (with roisnum [roisnum[0]]) where MatrixNms's boxes' rank is static, where MulticlassNms's count is
  inferred; else [?].
- CPU computes in f32 (f16 and bf16 inputs converted exactly) and writes selected_outputs rows [class, score, the
  box's four values as given] converted to the boxes' type, selected_indices image * N + box (with roisnum:
  (offset + box) * C + class, offset the boxes of the images before), the per-image counts.
- MulticlassNms: a class's candidates are the boxes scoring at least score_threshold (NaN never), by score, equal
  scores by box index; only the first nms_top_k of them (-1: all) are taken, one by one: suppressed where its IoU
  with a box selected before it in the class is at least the threshold, else selected. The threshold is
  iou_threshold; with nms_eta below 1 (CPU's nmsWithEta) it is multiplied by nms_eta (f32) after each selection
  while above 0.5, and a candidate scoring score_threshold exactly is compared with the last box selected alone
  (the loop over the selected boxes stops once the score is score_threshold or below). IoU in f32: norm 0
  (normalized) or 1, area (y2 - y1 + norm) (x2 - x1 + norm) of the coordinates as given [y1, x1, y2, x2] (not
  reordered), 0 where either area is 0 or less, else intersection max(min(y2) - max(y1) + norm, 0)
  max(min(x2) - max(x1) + norm, 0) over (area_a + area_b - intersection). background_class's class selects
  nothing. Per image the selections (all classes) are ordered by score descending, scores within 1e-6 by class then
  box, the first keep_top_k (-1: all) kept; then with sort_result_across_batch ``score`` orders all by (score
  descending, image, class, box), ``classid`` by (class, image, score descending, box); without it ``classid``
  orders each image by (class, score descending, box); ``none`` (and ``score`` without it) keeps the per-image
  order. With roisnum, image b's boxes of class c are boxes[c, offset : offset + roisnum[b]]; roisnum 0 selects
  nothing.
- MatrixNms: a class's candidates are the boxes scoring above score_threshold (strictly; NaN too), by score (CPU's
  partial_sort: equal scores in an undefined order), the first nms_top_k (-1: all). IoU of the candidates i > j in
  f32 over [x1, y1, x2, y2] as given: 0 where they do not overlap (x2 of one below x1 of the other, or y), else
  intersection (min(x2) - max(x1) + norm) (min(y2) - max(y1) + norm) over (area_i + area_j - intersection), an area
  0 where x2 < x1 or y2 < y1, else (x2 - x1 + norm) (y2 - y1 + norm). max_iou[j] is j's largest IoU with the
  candidates before it (0 for the first; a NaN IoU skipped). Candidate i's decay is the least over j < i (NaN
  skipped) of linear: (1 - iou) / ((1 - max_iou[j]) + 1e-10f), all f32 (the source's 1. is a double: the compiled
  code rounds otherwise, measured: 17 of the suite's linear cases differ in f64); gaussian:
  expf((max_iou[j]^2 - iou^2) gaussian_sigma), f32 (expf: f64 exp rounded to f32, glibc's being correctly
  rounded on the suite's cases). Its decayed score decay * score (f32) is kept where above post_threshold (the
  first candidate undecayed). Per image (background_class's class none) the selections ordered by (score
  descending, class, index), the first keep_top_k kept; with sort_result_across_batch ``score`` orders all by
  (score descending, image, class, index), ``classid`` by (class, image, score descending, index); else the
  per-image order (``classid`` and ``none`` too).
- bf16: MulticlassNms and NMSRotated compute on bf16 inputs converted to f32 exactly (their bf16 outputs the f32
  results rounded: copies of bf16 values, exact); CPU refuses to compile MatrixNms of bf16 ("unsupported 'boxes'
  input precision: bf16"; f16 it runs): ``check`` refuses it (E-OP).
- The kernels refuse what CPU fails on, leaves unwritten or orders in an undefined way: MulticlassNms's scores of an
  image's selections within 1e-6 but not equal (CPU's comparator is then no strict order), nms_top_k 0 (CPU leaves
  its counts unwritten), roisnum negative or past the boxes; MatrixNms's NaN scores and equal scores among a class's
  candidates (partial_sort), no box selected at all (CPU fails: "Total number of boxes is less or equal than 0";
  ``check`` refuses a MatrixNms whose Const scores hold no candidate, E-OP: it fails on any boxes); boxes holding
  NaN or infinities; an empty input (CPU answers [0, 6] and [0, 1], MatrixNms's counts unwritten).
- Rounding: every output is an input value copied, exact, and MatrixNms's decayed scores are CPU's f32 arithmetic
  (bit for bit on the suite's cases): exact inputs give exact outputs; a bound on an input gives none (a selection
  may change).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import Dim
from ..base.errors import OpValidationError
from ..base.packed import is_bf16, to_bf16
from . import attrs as A
from .intervals import ANY, INF, Iv, compatible, dmul, guarded, iv, to_dim
from .nms import NMS_FLOATS, by_score, nms_rounding
from .spec import OpSpec, TensorType

_F32 = np.float32
_SORTS = A.enum("score", "classid", "none")


@dataclass(frozen=True, slots=True)
class _SharedAttrs:
    """The attributes MatrixNms and MulticlassNms share."""

    sort_result_type: str = A.attr("sort_result_type", _SORTS, "none")
    sort_result_across_batch: bool = A.attr("sort_result_across_batch", A.BOOL, False)
    output_type: str = A.attr("output_type", A.enum("i64", "i32"), "i64")
    score_threshold: float = A.attr("score_threshold", A.FLOAT, 0.0)
    nms_top_k: int = A.attr("nms_top_k", A.INT, -1)
    keep_top_k: int = A.attr("keep_top_k", A.INT, -1)
    background_class: int = A.attr("background_class", A.INT, -1)
    normalized: bool = A.attr("normalized", A.BOOL, True)


@dataclass(frozen=True, slots=True)
class MatrixNmsAttrs(_SharedAttrs):
    decay_function: str = A.attr("decay_function", A.enum("gaussian", "linear"), "linear")
    gaussian_sigma: float = A.attr("gaussian_sigma", A.FLOAT, 2.0)
    post_threshold: float = A.attr("post_threshold", A.FLOAT, 0.0)


@dataclass(frozen=True, slots=True)
class MulticlassNmsAttrs(_SharedAttrs):
    iou_threshold: float = A.attr("iou_threshold", A.FLOAT, 0.0)
    nms_eta: float = A.attr("nms_eta", A.FLOAT, 1.0)


# --- shape rules ---------------------------------------------------------------------------------------------------


def _validate(a, inputs: Sequence[TensorType]) -> None:
    """Both ops' element type and attribute checks (module doc)."""
    boxes, scores = inputs[0].element, inputs[1].element
    for what, element in (("boxes", boxes), ("scores", scores)):
        if element not in NMS_FLOATS:
            raise OpValidationError(f"{what} of element type {element}: it must be f32, f16 or bf16")
    if boxes != scores:
        raise OpValidationError(f"boxes of {boxes} and scores of {scores}: they must be of one type")
    if len(inputs) == 3 and inputs[2].element not in ("i32", "i64"):
        raise OpValidationError(f"roisnum of element type {inputs[2].element}: it must be i32 or i64")
    if isinstance(a, MulticlassNmsAttrs):
        _attributes(a)
        if not 0.0 <= _F32(a.nms_eta) <= 1.0:
            raise OpValidationError(f"nms_eta {a.nms_eta}: it must be in [0, 1]")


def _attributes(a) -> None:
    """nms_top_k, keep_top_k and background_class: -1 or more (MatrixNms checks them where boxes' rank is known)."""
    for name in ("nms_top_k", "keep_top_k", "background_class"):
        if getattr(a, name) < -1:
            raise OpValidationError(f"{name} {getattr(a, name)}: it must be -1 or more")


def _rank(t: TensorType, rank: int, what: str) -> None:
    if t.shape is not None and len(t.shape) != rank:
        raise OpValidationError(f"{what} must be {rank}-D, got rank {len(t.shape)}")


def _agree(a: Dim, b: Dim, what: str) -> None:
    if not compatible(iv(a), iv(b)):
        raise OpValidationError(f"{what}: {a} and {b} differ")


def _hi(i: Iv) -> int:
    """Dimension::get_max_length(): -1 where unbounded."""
    return -1 if i[1] == INF else i[1]


def _fixed(n: int) -> Iv:
    """Dimension(n): -1 dynamic."""
    return ANY if n == -1 else (n, n)


def _per_class(a, boxes: Dim) -> Iv:
    """nms_top_k > -1: Dimension(min(boxes[1]'s upper bound, nms_top_k)), else boxes[1]."""
    return _fixed(min(_hi(iv(boxes)), a.nms_top_k)) if a.nms_top_k > -1 else iv(boxes)


def _outputs(a, element: str, count: Iv | None, batches: Dim | None) -> list[TensorType]:
    selected = to_dim(ANY if count is None or _hi(count) == -1 else (0, count[1]))
    return [TensorType(element, (selected, Dim(6, 6))), TensorType(a.output_type, (selected, Dim(1, 1))),
            TensorType(a.output_type, (batches if batches is not None else Dim(0, None),))]


def _matrix_nms(a: MatrixNmsAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """MatrixNms-8's (module doc)."""
    _validate(a, inputs)
    boxes, scores = inputs[0].shape, inputs[1].shape
    _rank(inputs[0], 3, "boxes")
    _rank(inputs[1], 3, "scores")
    count, batches = None, None
    if boxes is not None:
        _attributes(a)
        count = _per_class(a, boxes[1])
        if scores is not None:
            _agree(boxes[0], scores[0], "boxes' and scores' batch dims")
            _agree(boxes[1], scores[2], "boxes' and scores' box counts")
            count = dmul(count, iv(scores[1]))
            if a.keep_top_k > -1:
                count = _fixed(min(_hi(count), a.keep_top_k))
            count = dmul(count, iv(scores[0]))
        else:
            count = None
        _agree(boxes[2], Dim(4, 4), "boxes' last dim must be 4")
        batches = boxes[0]
    return _outputs(a, inputs[0].element, count, batches)


def _multiclass_nms(a: MulticlassNmsAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """MulticlassNms-8's and -9's (module doc)."""
    _validate(a, inputs)
    rois = len(inputs) == 3
    boxes, scores = inputs[0].shape, inputs[1].shape
    _rank(inputs[0], 3, "boxes")
    _rank(inputs[1], 2 if rois else 3, "scores")
    if rois:
        _rank(inputs[2], 1, "roisnum")
    count, batches = None, None
    if boxes is not None:
        if scores is None:
            raise OpValidationError("scores of a dynamic rank with boxes of rank 3: OpenVINO's inference fails "
                                    "(\"Accessing out-of-range dimension\")")
        _agree(boxes[0], scores[0], "boxes' and scores' first dims")
        _agree(boxes[2], Dim(4, 4), "boxes' last dim must be 4")
        _agree(boxes[1], scores[1 if rois else 2], "boxes' and scores' box counts")
        images = inputs[2].shape if rois else scores
        if images is not None:
            classes = boxes[0] if rois else scores[1]
            count = dmul(_per_class(a, boxes[1]), iv(classes))
            if -1 < a.keep_top_k < _hi(count):
                count = (a.keep_top_k, a.keep_top_k)
            count = dmul(count, iv(images[0]))
            batches = images[0] if rois else boxes[0]
    return _outputs(a, inputs[0].element, count, batches)


# --- kernels -------------------------------------------------------------------------------------------------------


def _floats(args: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """boxes and scores as f32 (exact from f16 and bf16); refused where CPU's answer is not its computation."""
    boxes, scores = (np.asarray(x).astype(_F32) for x in args[:2])
    if boxes.size == 0 or scores.size == 0:
        raise OpValidationError("an empty boxes or scores: OpenVINO CPU answers outputs of shapes [0, 6], [0, 1] "
                                "and [0], a count its inference does not give")
    if not np.all(np.isfinite(boxes)):
        raise OpValidationError("boxes hold NaN or an infinity (CPU's IoU comparisons then decide by operand order)")
    return boxes, scores


def _candidates(s: np.ndarray, keep: np.ndarray, top_k: int) -> np.ndarray:
    """The box indices where ``keep``, by score descending (equal scores by index), the first ``top_k`` (-1 all)."""
    order = by_score(s, keep)
    return order if top_k == -1 else order[:top_k]


def _outputs_of(a, rows: list[tuple], boxes_of, dtype: np.dtype, batches: int) -> list[np.ndarray]:
    """rows (score, batch, class, box index, output index) as CPU writes them: [class, score, box] rows of the
    boxes' type, the indices and the per-batch counts of output_type."""
    index_type = np.int64 if a.output_type == "i64" else np.int32
    out = np.array([[r[2], r[0], *boxes_of(r)] for r in rows], _F32).reshape(len(rows), 6)
    out = to_bf16(out) if is_bf16(dtype) else out.astype(dtype)
    indices = np.array([r[4] for r in rows], index_type).reshape(len(rows), 1)
    counts = np.bincount(np.array([r[1] for r in rows], np.intp), minlength=batches).astype(index_type)
    return [out, indices, counts]


def _order(a, rows: list[tuple], per_image) -> list[tuple]:
    """rows (score, batch, class, box, index) in CPU's output order: per image by ``per_image``, keep_top_k kept,
    then sorted across batch or (MulticlassNms's classid) within each image."""
    kept = []
    for b in sorted({r[1] for r in rows}):
        mine = sorted((r for r in rows if r[1] == b), key=per_image)
        kept += mine if a.keep_top_k == -1 else mine[:a.keep_top_k]
    if a.sort_result_across_batch and a.sort_result_type == "score":
        kept.sort(key=lambda r: (-r[0], r[1], r[2], r[4]))
    elif a.sort_result_across_batch and a.sort_result_type == "classid":
        kept.sort(key=lambda r: (r[2], r[1], -r[0], r[4]))
    return kept


def _mc_iou(box: np.ndarray, others: np.ndarray, norm: np.float32) -> np.ndarray:
    """MulticlassNms's IoU of ``box`` with ``others`` in CPU's f32 (module doc)."""
    def area(b):
        return (b[..., 2] - b[..., 0] + norm) * (b[..., 3] - b[..., 1] + norm)

    a_i, a_j = area(box), area(others)
    height = np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]) + norm
    width = np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]) + norm
    inter = np.maximum(height, _F32(0)) * np.maximum(width, _F32(0))
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = inter / ((a_i + a_j) - inter)
    return np.where((a_i <= 0) | (a_j <= 0), _F32(0), iou)


def _mc_class(a: MulticlassNmsAttrs, boxes: np.ndarray, s: np.ndarray, top_k: int) -> list[int]:
    """One class of one image: the boxes kept, in selection order."""
    norm = _F32(0 if a.normalized else 1)
    threshold, eta = _F32(a.iou_threshold), _F32(a.nms_eta)
    adaptive = 0 <= eta < 1  # (CPU's nmsWithEta)
    selected: list[int] = []
    for box in _candidates(s, s >= _F32(a.score_threshold), top_k):
        against = selected[-1:] if adaptive and s[box] <= _F32(a.score_threshold) else selected
        if against and np.any(_mc_iou(boxes[box], boxes[against], norm) >= threshold):
            continue
        selected.append(int(box))
        if eta < 1 and threshold > _F32(0.5):
            threshold = threshold * eta
    return selected


def _near_ties(rows: list[tuple]) -> None:
    for b in {r[1] for r in rows}:
        s = np.unique(np.array([r[0] for r in rows if r[1] == b], _F32))
        if np.any(np.abs(np.diff(s)) < _F32(1e-6)):
            raise OpValidationError("scores within 1e-6 of each other but not equal among an image's selections: "
                                    "OpenVINO CPU orders them in an undefined order")


def run_multiclass_nms(a: MulticlassNmsAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """MulticlassNms-8's and -9's CPU outputs (module doc)."""
    boxes, scores = _floats(args)
    if a.nms_top_k == 0:
        raise OpValidationError("nms_top_k 0: OpenVINO CPU leaves its outputs unwritten")
    shared = scores.ndim == 3
    if shared:
        batches, classes, n = scores.shape
        slices = [(b, 0, n) for b in range(batches)]
    else:
        rois = np.asarray(args[2]).astype(np.int64)
        classes, n = scores.shape
        if np.any(rois < 0) or rois.sum() > n:
            raise OpValidationError(f"roisnum {rois.tolist()}: negative or past the {n} boxes (OpenVINO CPU reads "
                                    "beyond them)")
        batches = len(rois)
        offsets = np.concatenate([[0], np.cumsum(rois)])
        slices = [(b, int(offsets[b]), int(rois[b])) for b in range(batches)]
    top_k = -1 if a.nms_top_k == -1 else min(a.nms_top_k, boxes.shape[1])
    rows = []
    for b, start, count in slices:
        for c in range(classes):
            if c == a.background_class or count == 0:
                continue
            bx = boxes[b] if shared else boxes[c, start:start + count]
            s = scores[b, c] if shared else scores[c, start:start + count]
            for box in _mc_class(a, bx, s, top_k):
                index = b * n + box if shared else (start + box) * classes + c
                rows.append((s[box], b, c, box, index))
    _near_ties(rows)
    rows = _order(a, rows, lambda r: (-r[0], r[2], r[3]))
    if not a.sort_result_across_batch and a.sort_result_type == "classid":
        rows.sort(key=lambda r: (r[1], r[2], -r[0], r[3]))

    def coordinates(r):
        return boxes[r[1], r[3]] if shared else boxes[r[2], r[4] // classes]

    return _outputs_of(a, rows, coordinates, np.asarray(args[0]).dtype, batches)


def _matrix_iou(i: np.ndarray, j: np.ndarray, norm: np.float32) -> np.float32:
    """MatrixNms's IoU of candidate ``i`` with an earlier one ``j`` in CPU's f32 (module doc)."""
    if j[0] > i[2] or j[2] < i[0] or j[1] > i[3] or j[3] < i[1]:
        return _F32(0)

    def area(b):
        if b[2] < b[0] or b[3] < b[1]:
            return _F32(0)
        return (b[2] - b[0] + norm) * (b[3] - b[1] + norm)

    inter = (min(i[2], j[2]) - max(i[0], j[0]) + norm) * (min(i[3], j[3]) - max(i[1], j[1]) + norm)
    with np.errstate(invalid="ignore", divide="ignore"):
        return inter / (area(i) + area(j) - inter)


def _decay(a: MatrixNmsAttrs, iou: np.ndarray, max_iou: np.ndarray) -> np.ndarray:
    """The decays of one candidate against the earlier ones (module doc)."""
    if a.decay_function == "linear":
        return (_F32(1) - iou) / ((_F32(1) - max_iou) + _F32(1e-10))
    x = (max_iou * max_iou - iou * iou) * _F32(a.gaussian_sigma)
    with np.errstate(over="ignore"):
        return np.exp(x.astype(np.float64)).astype(_F32)


def _matrix_class(a: MatrixNmsAttrs, boxes: np.ndarray, s: np.ndarray) -> list[tuple[int, np.float32]]:
    """One class of one image: (box, decayed score) kept, in candidate order."""
    if np.any(np.isnan(s)):
        raise OpValidationError("a NaN score: OpenVINO CPU takes it among the candidates and sorts them in an "
                                "undefined order")
    order = _candidates(s, s > _F32(a.score_threshold), a.nms_top_k)
    if len(np.unique(s[s > _F32(a.score_threshold)])) != np.count_nonzero(s > _F32(a.score_threshold)):
        raise OpValidationError("equal scores among a class's candidates: OpenVINO CPU sorts them in an undefined "
                                "order")
    if len(order) == 0:
        return []
    norm, post = _F32(0 if a.normalized else 1), _F32(a.post_threshold)
    k = len(order)
    iou = np.zeros((k, k), _F32)
    for p in range(1, k):
        for q in range(p):
            iou[p, q] = _matrix_iou(boxes[order[p]], boxes[order[q]], norm)
    max_iou = np.array([0] + [np.max(np.nan_to_num(iou[p, :p], nan=0.0), initial=0) for p in range(1, k)], _F32)
    kept = [(int(order[0]), s[order[0]])] if s[order[0]] > post else []
    for p in range(1, k):
        decays = _decay(a, iou[p, :p], max_iou[:p])
        least = _F32(1)
        for d in decays:
            least = d if d < least else least
        score = least * s[order[p]]
        if score > post:
            kept.append((int(order[p]), score))
    return kept


def run_matrix_nms(a: MatrixNmsAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """MatrixNms-8's CPU outputs (module doc)."""
    boxes, scores = _floats(args)
    batches, classes, n = scores.shape
    rows = []
    for b in range(batches):
        for c in range(classes):
            if c != a.background_class:
                rows += [(score, b, c, box, b * n + box) for box, score in _matrix_class(a, boxes[b], scores[b, c])]
    if not rows:
        raise OpValidationError("no box selected: OpenVINO CPU fails (\"Total number of boxes is less or equal "
                                "than 0\")")
    rows = _order(a, rows, lambda r: (-r[0], r[2], r[4]))
    return _outputs_of(a, rows, lambda r: boxes[r[1], r[3]], np.asarray(args[0]).dtype, batches)


def _matrix_cpu_refuses(a: MatrixNmsAttrs, inputs: Sequence[TensorType], values) -> str | None:
    """MatrixNms of bf16 (CPU's node takes f32 and f16 alone), or on Const scores none of which (background_class's
    aside) is a candidate: CPU fails on any boxes."""
    if "bf16" in (inputs[0].element, inputs[1].element):
        return "OpenVINO CPU refuses MatrixNms of bf16 (\"unsupported 'boxes' input precision: bf16\")"
    if len(values) < 2 or values[1] is None or np.asarray(values[1]).ndim != 3 or np.asarray(values[1]).size == 0:
        return None
    scores = np.asarray(values[1]).astype(_F32)
    scores = np.delete(scores, a.background_class, axis=1) if 0 <= a.background_class < scores.shape[1] else scores
    if np.any((scores > _F32(a.score_threshold)) | np.isnan(scores)):
        return None
    return (f"no score above score_threshold {a.score_threshold}: OpenVINO CPU selects no box and fails (\"Total "
            "number of boxes is less or equal than 0\")")


MATRIX_NMS_8 = OpSpec("MatrixNms", "MatrixNms-8", MatrixNmsAttrs, (2, 2), 3, guarded(_matrix_nms), run_matrix_nms,
                      rounding=nms_rounding, cpu_refuses=_matrix_cpu_refuses)
MULTICLASS_NMS_8 = OpSpec("MulticlassNms", "MulticlassNms-8", MulticlassNmsAttrs, (2, 2), 3, guarded(_multiclass_nms),
                          run_multiclass_nms, rounding=nms_rounding)
MULTICLASS_NMS_9 = OpSpec("MulticlassNms", "MulticlassNms-9", MulticlassNmsAttrs, (2, 3), 3, guarded(_multiclass_nms),
                          run_multiclass_nms, rounding=nms_rounding)
