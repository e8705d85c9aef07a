"""MatrixNms-8, MulticlassNms-8/-9 (ops/nms_multiclass.py) and NMSRotated-13 (ops/nms.py) against OpenVINO: shape
rules and CPU kernels.

Kernel: 420 seeded cases judged by OpenVINO CPU bit for bit (every output: types, shapes, bytes), in one model (read
and run by ir_tools, compiled once): 120 MatrixNms, 180 MulticlassNms (-8 and -9, half of -9's with roisnum of i32 or
i64, zeros among them), 120 NMSRotated. 1 to 3 images and classes, 1 to 40 boxes (NMSRotated 16), corner boxes with
coordinates in either order (no or negative area), some duplicated, in [0, 1] (normalized) or [0, 40]; rotated boxes
of any angle, some duplicated, turned by a right angle, of no or negative size; scores distinct (MatrixNms refuses
ties) or quantized to a few levels (ties within and across classes and images), with NaN now and then (not
MatrixNms's: refused); boxes and scores of f32 or f16; every sort_result_type, both sort_result_across_batch,
nms_top_k and keep_top_k -1 or small, background_class -1, in range or past the classes, both output types;
MatrixNms both decay functions, gaussian_sigma and post_threshold; MulticlassNms iou_threshold 0 to 1, nms_eta 1 or
below (0 too), score_threshold hit exactly; NMSRotated max_output_boxes_per_class a Constant or a Parameter, both
orientations, iou_threshold and score_threshold negative too. ``test_rotated_iou_is_cpus_to_the_bit``: 80 pairs of
overlapping rotated boxes at two thresholds, our f32 IoU and the float below it: CPU keeps both, then one, so our
IoU is CPU's to the bit. What CPU fails on, leaves unwritten or orders in an undefined way the kernels refuse
(``test_kernel_refuses``). Shape rules: 400 seeded MatrixNms/MulticlassNms nodes and 200 NMSRotated nodes on
Parameters (and Constants) of partial shapes (static, dynamic, interval and unbounded dims, dynamic ranks, wrong
ranks and last dims) and element types (f32, f16, bf16, f64, i32, dynamic), attributes in and out of range: our
outputs (types, intervals) must be OpenVINO's, or both refuse. ``check_versions`` and a ``compare`` of a detection
head end to end and per layer.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.base.errors import OpValidationError
from ir_tools.ops import attrs as A
from ir_tools.ops.nms import NMS_ROTATED_13, _rotated_iou, _vertices
from ir_tools.ops.nms_multiclass import MATRIX_NMS_8, MULTICLASS_NMS_9
from ir_tools.ops.spec import TensorType
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import (
    Case,
    Operand,
    assert_all_pass,
    assert_compare_passes,
    assert_shapes_agree,
    blur,
    check_versions,
    openvino_outcome,
    our_outcome,
    pick,
    to_dims,
)

pytestmark = pytest.mark.openvino

SEED = 818
MATRIX_CASES = 120
MULTICLASS_CASES = 180
ROTATED_CASES = 120
IOU_CASES = 80  # box pairs, each at two thresholds
SHAPE_CASES = 400
ROTATED_SHAPE_CASES = 200
FACTORIES = {v: NodeFactory(f"opset{v}") for v in (8, 9)}
ROTATED = NodeFactory("opset13")


def node(op: str, inputs: list[ov.Node], attrs: dict, version: int = 8) -> ov.Node:
    return FACTORIES[version].create(op, [n.output(0) for n in inputs], attrs)


# --- kernels -------------------------------------------------------------------------------------------------------


def boxes_of(rng: np.random.Generator, shape: tuple[int, ...], normalized: bool) -> np.ndarray:
    """[..., 4] boxes: corners mostly ordered, some swapped (no or negative area), some duplicated."""
    scale = 1.0 if normalized else 40.0
    lo = rng.random((*shape, 2)) * scale
    boxes = np.concatenate([lo, lo + rng.random((*shape, 2)) * scale * 0.5], axis=-1)
    boxes = np.round(boxes, int(rng.integers(1, 4)) + (2 if normalized else 0))
    swap = rng.random(shape) < 0.08
    boxes[swap] = boxes[swap][:, [2, 3, 0, 1]]
    copies = rng.random(shape) < 0.1
    flat = boxes.reshape(-1, 4)
    flat[copies.reshape(-1)] = flat[0]
    return boxes.astype(np.float32)


def scores_of(rng: np.random.Generator, shape: tuple[int, ...], ties: bool, nan: bool = True) -> np.ndarray:
    """Distinct (MatrixNms refuses ties) or quantized scores, NaN now and then where ``nan`` (MatrixNms refuses it)."""
    if ties:
        scores = np.round(rng.random(shape) * int(rng.integers(2, 8))) / 8
    else:
        scores = rng.permutation(np.arange(1, np.prod(shape) + 1))[:np.prod(shape)].reshape(shape) / (np.prod(shape)
                                                                                                  + 1.0)
    scores = scores.astype(np.float32)
    if nan and rng.random() < 0.15:
        scores[rng.random(shape) < 0.1] = np.nan
    return scores


def common_attrs(rng: np.random.Generator, classes: int) -> dict:
    return {"sort_result_type": pick(rng, ["score", "classid", "none"]),
            "sort_result_across_batch": bool(rng.random() < 0.5),
            "output_type": pick(rng, ["i64", "i32"]),
            "nms_top_k": pick(rng, [-1, -1, 1, 3, 10]),
            "keep_top_k": pick(rng, [-1, -1, 1, 4, 12]),
            "background_class": pick(rng, [-1, -1, 0, classes - 1, classes]),
            "normalized": bool(rng.random() < 0.6)}


def matrix_case(rng: np.random.Generator) -> Case:
    batches, classes, n = int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 41))
    attrs = common_attrs(rng, classes)
    attrs |= {"score_threshold": pick(rng, [0.0, 0.1, 0.3]), "decay_function": pick(rng, ["linear", "gaussian"]),
              "gaussian_sigma": pick(rng, [2.0, 0.5, 4.0]), "post_threshold": pick(rng, [0.0, 0.05, 0.2])}
    if classes == 1:
        attrs["background_class"] = -1  # (something kept: CPU fails on nothing)
    boxes = boxes_of(rng, (batches, n), attrs["normalized"])
    scores = scores_of(rng, (batches, classes, n), ties=False, nan=False)
    scores[:, :, 0] = np.maximum(np.nan_to_num(scores[:, :, 0]), 0.999)  # (something kept: CPU fails on nothing)
    if rng.random() < 0.2:
        boxes, scores = boxes.astype(np.float16), scores.astype(np.float16)
    what = f"MatrixNms {attrs} boxes {boxes.dtype}{list(boxes.shape)} scores {list(scores.shape)}"
    return Case(what, [boxes, scores], lambda p: node("MatrixNms", p, attrs), bits=True,
                consts=[1] if rng.random() < 0.3 else [])


def multiclass_case(rng: np.random.Generator) -> Case:
    version = pick(rng, [8, 9, 9])
    rois = version == 9 and rng.random() < 0.5
    batches, classes, n = int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 41))
    attrs = common_attrs(rng, classes)
    attrs |= {"iou_threshold": pick(rng, [0.3, 0.5, 0.7, 0.0, 1.0]), "score_threshold": pick(rng, [0.0, 0.2, 0.5]),
              "nms_eta": pick(rng, [1.0, 1.0, 0.9, 0.5, 0.0])}
    if attrs["nms_top_k"] == 0:
        attrs["nms_top_k"] = -1
    ties = rng.random() < 0.5
    if rois:
        counts = rng.integers(0, n + 1, batches)
        total = int(counts.sum())
        if total == 0:
            counts[0], total = 1, 1
        boxes = boxes_of(rng, (classes, total), attrs["normalized"])
        scores = scores_of(rng, (classes, total), ties)
        inputs = [boxes, scores, counts.astype(pick(rng, [np.int32, np.int64]))]
    else:
        boxes = boxes_of(rng, (batches, n), attrs["normalized"])
        inputs = [boxes, scores_of(rng, (batches, classes, n), ties)]
    if rng.random() < 0.2:
        inputs[0], inputs[1] = inputs[0].astype(np.float16), inputs[1].astype(np.float16)
    what = f"MulticlassNms-{version} {attrs} " + " ".join(f"{x.dtype}{list(x.shape)}" for x in inputs)
    return Case(what, inputs, lambda p: node("MulticlassNms", p, attrs, version), bits=True)


def rotated_boxes(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """[..., 5] boxes [xc, yc, w, h, angle]: overlapping, some duplicated, some turned by a right angle (shared
    edges), now and then of no or negative width or height."""
    centres = np.round(rng.random((*shape, 2)) * 8, 2)
    sizes = np.round(rng.random((*shape, 2)) * 4 + 0.5, 2)
    angles = np.round((rng.random((*shape, 1)) - 0.5) * 2 * np.pi, 3)
    boxes = np.concatenate([centres, sizes, angles], axis=-1)
    flat = boxes.reshape(-1, 5)
    copies = rng.random(len(flat)) < 0.1
    flat[copies] = flat[0]
    turned = rng.random(len(flat)) < 0.05
    flat[turned] = flat[0] + np.array([0, 0, 0, 0, np.pi / 2])
    if rng.random() < 0.2:
        flat[rng.random(len(flat)) < 0.1, int(rng.integers(2, 4))] = pick(rng, [0.0, -1.0])
    return boxes.astype(np.float32)


def rotated_case(rng: np.random.Generator) -> Case:
    batches, classes, n = int(rng.integers(1, 3)), int(rng.integers(1, 3)), int(rng.integers(1, 17))
    boxes = rotated_boxes(rng, (batches, n))
    scores = scores_of(rng, (batches, classes, n), ties=rng.random() < 0.5)
    if rng.random() < 0.2:
        boxes, scores = boxes.astype(np.float16), scores.astype(np.float16)
    fed = rng.random() < 0.25
    most = np.array(pick(rng, [1, 2, n, n + 3, int(rng.integers(1, n + 1))]), pick(rng, [np.int64, np.int32]))
    thresholds = [np.float32(pick(rng, [0.0, 0.3, 0.5, 0.7, 1.0, -0.1, round(float(rng.random()), 3)])),
                  np.float32(pick(rng, [0.0, -0.1, 0.3, float(rng.random()) * 0.6]))]
    attrs = {"sort_result_descending": bool(rng.random() < 0.5), "output_type": pick(rng, ["i64", "i32"]),
             "clockwise": bool(rng.random() < 0.5)}
    what = (f"NMSRotated {attrs} boxes {boxes.dtype}{list(boxes.shape)} scores {list(scores.shape)} "
            f"{[most.item(), *(float(x) for x in thresholds)]}")
    return Case(what, [boxes, scores, most, *thresholds], lambda p: ROTATED.create("NMSRotated", [
        x.output(0) for x in p], attrs), consts=[3, 4] if fed else [2, 3, 4], bits=True)


def kernel_cases(rng: np.random.Generator, matrix: int, multiclass: int, rotated: int = 0) -> list[Case]:
    return ([matrix_case(rng) for _ in range(matrix)] + [multiclass_case(rng) for _ in range(multiclass)]
            + [rotated_case(rng) for _ in range(rotated)])


def test_values_bit_equal(tmp_path: Path) -> None:
    cases = kernel_cases(np.random.default_rng(SEED), MATRIX_CASES, MULTICLASS_CASES, ROTATED_CASES)
    assert_all_pass(cases, tmp_path)


def test_rotated_iou_is_cpus_to_the_bit(tmp_path: Path) -> None:
    """Two rotated boxes, the second suppressed exactly where its IoU with the first is above iou_threshold: with the
    threshold our f32 IoU CPU keeps both, with the float below it one (IoU_CASES pairs of random boxes, both
    orientations), so our IoU is CPU's bit for bit."""
    rng = np.random.default_rng([SEED, 3])
    cases = []
    for k in range(IOU_CASES):
        boxes = rotated_boxes(rng, (1, 2))
        boxes[0, :, 2:4] = np.abs(boxes[0, :, 2:4]) + np.float32(1)
        boxes[0, 1, :2] = boxes[0, 0, :2] + (rng.random(2) * 0.4).astype(np.float32)  # (they overlap)
        clockwise = bool(k % 2)
        second = boxes[0, 1]
        iou = _rotated_iou(_vertices(second, clockwise), second[2] * second[3], boxes[0, 0], clockwise)
        assert 0 < iou < 1, iou
        attrs = {"clockwise": clockwise, "sort_result_descending": False}
        for threshold, kept in ((iou, 2), (np.nextafter(iou, np.float32(-1)), 1)):
            inputs = [boxes, np.array([[[0.9, 0.8]]], np.float32), np.int64(2), np.float32(threshold), np.float32(0)]
            cases.append(Case(f"IoU {iou!r} of {boxes.tolist()} {attrs} threshold {threshold!r}: {kept} kept",
                              inputs, lambda p, a=attrs: ROTATED.create("NMSRotated", [x.output(0) for x in p], a),
                              consts=[2, 3, 4], bits=True))
            assert NMS_ROTATED_13.kernel(A.decode(NMS_ROTATED_13.attrs, {"clockwise": str(clockwise).lower()}),
                                         inputs)[2][0] == kept
    assert_all_pass(cases, tmp_path)


def cpu_outcome(op: str, inputs: list[np.ndarray], attrs: dict, version: int = 8) -> list[np.ndarray] | str:
    """OpenVINO CPU's outputs of a node on Parameters holding ``inputs``, or its error."""
    params = [ops1.parameter(list(x.shape), ov.Type(x.dtype)) for x in inputs]
    try:
        request = ov.Core().compile_model(ov.Model(node(op, params, attrs, version).outputs(), params), "CPU",
                                          CPU_CONFIG).create_infer_request()
        request.infer(inputs)
    except RuntimeError as exc:
        return str(exc)
    return [request.get_output_tensor(k).data.copy() for k in range(3)]


def test_kernel_refuses() -> None:
    """What CPU fails on, leaves unwritten or orders in an undefined way, the kernel refuses: MatrixNms selecting no box
    (CPU fails), a NaN score (CPU sorts it among the candidates) and equal candidate scores (partial_sort: undefined
    order); MulticlassNms's nms_top_k 0 (its per-image counts unwritten), scores within 1e-6 but not equal (CPU's
    comparator is no strict order), roisnum past the boxes; either on an empty input. ``check`` refuses (E-OP) a
    MatrixNms on Const scores of no candidate, and one of bf16, which CPU cannot compile."""
    rng = np.random.default_rng(3)
    boxes = rng.random((2, 5, 4)).astype(np.float32)
    boxes[..., 2:] += 1
    scores = rng.random((2, 3, 5)).astype(np.float32)
    assert "Total number of boxes" in cpu_outcome("MatrixNms", [boxes, scores * 0], {})
    matrix, multiclass = (A.decode(spec.attrs, {}) for spec in (MATRIX_NMS_8, MULTICLASS_NMS_9))
    tied, nan = scores.copy(), scores.copy()
    tied[0, 0, 1], nan[1, 2, 3] = tied[0, 0, 0], np.nan
    near = scores.copy()
    near[1, 1] = np.nextafter(near[1, 0], np.float32(2))  # (iou_threshold 0: one box a class, these two)
    refused = [(MATRIX_NMS_8, matrix, [boxes, scores * 0]), (MATRIX_NMS_8, matrix, [boxes, tied]),
               (MATRIX_NMS_8, matrix, [boxes, nan]), (MATRIX_NMS_8, matrix, [boxes[:, :0], scores[:, :, :0]]),
               (MULTICLASS_NMS_9, A.decode(MULTICLASS_NMS_9.attrs, {"nms_top_k": "0"}), [boxes, scores]),
               (MULTICLASS_NMS_9, multiclass, [boxes, near]),
               (MULTICLASS_NMS_9, multiclass, [np.tile(boxes[:1, :4], (3, 1, 1)), scores[0, :, :4],
                                                 np.array([3, 2], np.int32)])]
    for spec, attrs, inputs in refused:
        with pytest.raises(OpValidationError):
            spec.kernel(attrs, inputs)
    assert len(MULTICLASS_NMS_9.kernel(multiclass, [boxes, scores])[0]) == 6  # (the same, unrefused)
    types = [TensorType("f32", to_dims(((2, 2), (5, 5), (4, 4)))), TensorType("f32", to_dims(((2, 2), (3, 3), (5, 5))))]
    assert "fails" in MATRIX_NMS_8.cpu_refuses(matrix, types, [None, scores * 0])  # (check: E-OP on such Consts)
    assert MATRIX_NMS_8.cpu_refuses(matrix, types, [None, scores]) is None
    params = [ops1.parameter([2, 5, 4], np.float32), ops1.parameter([2, 3, 5], np.float32)]
    bf16 = node("MatrixNms", [ops1.convert(p, ov.Type.bf16) for p in params], {})
    with pytest.raises(RuntimeError, match="precision: bf16"):
        ov.Core().compile_model(ov.Model(bf16.outputs(), params), "CPU", CPU_CONFIG)
    halves = [TensorType("bf16", t.shape) for t in types]
    assert "bf16" in MATRIX_NMS_8.cpu_refuses(matrix, halves, [None, None])


def test_rounding_rule() -> None:
    """Exact inputs give exact outputs (copies, and MatrixNms's decays in CPU's f32 order); a bound on an input gives
    none (a choice may change)."""
    rng = np.random.default_rng(4)
    boxes = rng.random((1, 6, 4)).astype(np.float32)
    boxes[..., 2:] += 0.5
    scores = rng.random((1, 2, 6)).astype(np.float32)
    for spec in (MATRIX_NMS_8, MULTICLASS_NMS_9):
        attrs = A.decode(spec.attrs, {})
        outputs = spec.compute(attrs, [boxes, scores])
        exact = [np.zeros(())] * 2
        assert all(float(np.max(b)) == 0 for b in spec.rounding(spec.kernel, attrs, [boxes, scores], exact, outputs))
        loose = [np.zeros(()), np.full((), 1e-6)]
        assert all(np.isinf(b).all() for b in spec.rounding(spec.kernel, attrs, [boxes, scores], loose, outputs))


# --- shape rules ---------------------------------------------------------------------------------------------------


def around(rng: np.random.Generator, lengths: list[int]):
    """A partial shape around ``lengths`` (a dynamic rank one time in ten)."""
    if rng.random() < 0.1:
        return None
    return tuple((n, n) if rng.random() < 0.4 else blur(rng, n) for n in lengths)


def shape_case(rng: np.random.Generator):
    op, version = pick(rng, [("MatrixNms", 8), ("MulticlassNms", 8), ("MulticlassNms", 9), ("MulticlassNms", 9)])
    rois = op == "MulticlassNms" and version == 9 and rng.random() < 0.5
    b, n, c = (int(rng.integers(0, 6)) for _ in range(3))
    if rng.random() < 0.05:
        n += 1  # boxes and scores disagree
    floats = ["f32"] * 10 + ["f16", "bf16", None, "i32"]
    element = pick(rng, floats)
    elements = [element, element if rng.random() < 0.9 else pick(rng, floats)]
    if rois:
        lengths = [[c, n, 4 if rng.random() < 0.95 else 5], [c if rng.random() < 0.95 else c + 1, n], [b]]
        elements.append(pick(rng, ["i32", "i64", "i64", "f32", None]))
    else:
        lengths = [[b, n, 4 if rng.random() < 0.95 else 5], [b if rng.random() < 0.95 else b + 1, c, n]]
    if rng.random() < 0.05:
        lengths[1] = lengths[1][:-1]
    operands = [Operand(e, around(rng, lens)) for e, lens in zip(elements, lengths, strict=True)]
    attrs = {"nms_top_k": pick(rng, [-1, -1, 0, 2, 7, 100, -2]), "keep_top_k": pick(rng, [-1, -1, 0, 3, 9, 100, -2]),
             "background_class": pick(rng, [-1, -1, 0, 1, 9, -2]),
             "output_type": pick(rng, ["i64", "i32"] * 6 + ["f32"])}
    if op == "MulticlassNms":
        attrs["nms_eta"] = pick(rng, [1.0, 1.0, 0.5, 0.0, 1.5, -0.5])
    what = f"{op}-{version} {attrs} " + ", ".join(map(str, operands))

    def theirs():
        return openvino_outcome(lambda: node(op, [o.node() for o in operands], attrs, version))

    def ours():
        types, values = zip(*(o.ours() for o in operands), strict=True)
        raw = {k: str(v) for k, v in attrs.items()}
        return our_outcome(op, f"opset{version}", raw, list(types), list(values))

    return what, theirs, ours


def rotated_shape_case(rng: np.random.Generator):
    """NMSRotated-13: NonMaxSuppression-9's rule (test_nms_conformance) with boxes of 5 values and its own types."""
    b, n, c = (int(rng.integers(0, 6)) for _ in range(3))
    box_lengths = [b, n + (rng.random() < 0.05), pick(rng, [5] * 12 + [4])]
    score_lengths = [b if rng.random() < 0.95 else b + 1, c, n]
    floats = ["f32"] * 10 + ["f16", "bf16", "f64", None, "i32"]
    operands = [Operand(pick(rng, floats), around(rng, box_lengths)),
                Operand(pick(rng, floats), around(rng, score_lengths))]
    element = pick(rng, ["i64"] * 4 + ["i32", "u8", "f32", "boolean", None])
    value = pick(rng, [n, n + 2, 0, 1, -1, 2**40]) if element in ("i64", "i32") else None
    operands.append(Operand(element, value=min(value, 2**31 - 1)) if value is not None and rng.random() < 0.7
                    else Operand(element, pick(rng, [(), ((1, 1),), ((2, 2),), None])))
    operands += [Operand(pick(rng, floats), pick(rng, [(), (), ((1, 1),), ((0, None),), ((2, 2),)])) for _ in range(2)]
    attrs = {"sort_result_descending": pick(rng, ["true", "false"]), "clockwise": pick(rng, ["true", "false"]),
             "output_type": pick(rng, ["i64", "i32"] * 6 + ["f32"])}
    what = f"NMSRotated-13 {attrs} " + ", ".join(map(str, operands))

    def theirs():
        return openvino_outcome(lambda: ROTATED.create("NMSRotated", [o.node().output(0) for o in operands], {
            k: v if k == "output_type" else v == "true" for k, v in attrs.items()}))

    def ours():
        types, values = zip(*(o.ours() for o in operands), strict=True)
        return our_outcome("NMSRotated", "opset13", attrs, list(types), list(values))

    return what, theirs, ours


def test_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 1])
    assert_shapes_agree([shape_case(rng) for _ in range(SHAPE_CASES)]
                        + [rotated_shape_case(rng) for _ in range(ROTATED_SHAPE_CASES)])


# --- tables and tools ----------------------------------------------------------------------------------------------


def test_opsets(tmp_path: Path) -> None:
    """MatrixNms-8 in opset8..16, MulticlassNms-8 in opset8, -9 in opset9..16, NMSRotated-13 in opset13..16."""
    boxes, scores = ops1.parameter([1, 8, 4], np.float32), ops1.parameter([1, 2, 8], np.float32)
    nodes = {"MatrixNms": node("MatrixNms", [boxes, scores], {}),
             "MulticlassNms": node("MulticlassNms", [boxes, scores], {}, 9)}
    assert check_versions(nodes, [boxes, scores], tmp_path) == []
    rotated = ops1.parameter([1, 8, 5], np.float32)
    nms = ROTATED.create("NMSRotated", [rotated.output(0), scores.output(0), *(ops1.constant(x).output(0) for x in (
        np.int64(3), np.float32(0.5), np.float32(0.1)))], {})
    assert check_versions({"NMSRotated": nms}, [rotated, scores], tmp_path) == []


def test_a_detection_head_compared_end_to_end_and_per_layer(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """PP-YOLO's tail: boxes and per-class scores from a small head (MatMul, Sigmoid), then MulticlassNms-9 and
    MatrixNms-8 as PaddlePaddle exports them, and NMSRotated-13 on rotated boxes of the same features: every output
    and layer checked by ``compare``."""
    rng = np.random.default_rng(7)
    features = ops1.parameter([1, 30, 8], np.float32, name="features")
    boxes = ops1.matmul(features, ops1.constant((rng.random((8, 4)) * 2).astype(np.float32)), False, False)
    logits = ops1.matmul(features, ops1.constant(rng.standard_normal((8, 3)).astype(np.float32)), False, False)
    scores = ops1.sigmoid(ops1.transpose(logits, ops1.constant(np.array([0, 2, 1], np.int64))))
    multiclass = node("MulticlassNms", [boxes, scores], {"iou_threshold": 0.5, "score_threshold": 0.05,
                                                         "keep_top_k": 20, "sort_result_type": "score"}, 9)
    matrix = node("MatrixNms", [boxes, scores], {"score_threshold": 0.05, "post_threshold": 0.01,
                                                 "decay_function": "gaussian", "keep_top_k": 20})
    rotated_boxes = ops1.matmul(features, ops1.constant((rng.random((8, 5)) * 2).astype(np.float32)), False, False)
    rotated = ROTATED.create("NMSRotated", [rotated_boxes.output(0), scores.output(0), *(
        ops1.constant(x).output(0) for x in (np.int64(10), np.float32(0.4), np.float32(0.2)))], {})
    xml = tmp_path / "head.xml"
    outputs = [ops1.result(n.output(k)) for n in (multiclass, matrix, rotated) for k in range(3)]
    ov.save_model(ov.Model(outputs, [features], "head"), xml)
    assert_compare_passes(xml, capsys, {"MulticlassNms@opset9", "MatrixNms@opset8", "NMSRotated@opset13"}, outputs=9)
