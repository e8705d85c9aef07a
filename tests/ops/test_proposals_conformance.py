"""Proposal-1 and -4, GenerateProposals-9, ExperimentalDetectronGenerateProposalsSingleImage-6 and
ExperimentalDetectronDetectionOutput-6 (ops/proposals.py) against OpenVINO: shape rules and CPU kernels.

Kernels, bit for bit against CPU, 60 seeded cases to a model, every sixth of f16 inputs: Proposal, 240 cases (both
versions, Caffe's and TensorFlow's framework, 1 to 9 anchors of random ratios and scales, base sizes, strides, min
sizes, pre- and post-NMS counts (0 too), thresholds -0.1 to 1, every clip and normalize flag, box scales, image info
of 3 and 4 values, a Constant or not); GenerateProposals, 120 (1 to 3 images, im_info of 3 and 4 values, both
roi_num types, normalized or not); ExperimentalDetectronGenerateProposalsSingleImage, 120; and
ExperimentalDetectronDetectionOutput, 120 (1 to 5 classes, rois of no width, every count sign, more detections than
max_detections_per_image). Scores with ties (quarters), NaN, infinities and zeros; deltas with NaN, infinity and log
sizes beyond exp's range. Proposal-4's scores are compared where CPU writes them (the kept rows: module doc).
Shape rules: 400, 500, 300 and 500 seeded nodes on Parameters of partial shapes and element types (dynamic ones too)
against OpenVINO's inference. ``check_versions`` of every version; the kernel's refusals of what crashes CPU; one
Faster R-CNN head through ``compare``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.base.errors import OpValidationError, UnsupportedError
from ir_tools.ops import attrs as A
from ir_tools.ops.proposals import (
    PROPOSAL_4,
    DetectronOutputAttrs,
    DetectronProposalsAttrs,
    GenerateProposalsAttrs,
    ProposalAttrs,
)

from .conformance import (
    ELEMENTS,
    Case,
    assert_compare_passes,
    assert_shapes_agree,
    bits_differ,
    blur,
    case_outputs,
    check_versions,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 8686
CASES_PER_MODEL = 60


def proposal_raw(rng: np.random.Generator, anchors: tuple[int, int], most: int = 60) -> dict[str, str]:
    """Attributes as the IR holds them: ``anchors`` ratios and scales (integers and not), the rest at random (up to
    ``most`` rows per image); at least 8 boxes before NMS (fewer crash CPU: module doc)."""
    ratios = [pick(rng, [0.5, 1.0, 2.0, round(float(rng.uniform(0.2, 3)), 4)]) for _ in range(anchors[0])]
    scales = [pick(rng, [8.0, 16.0, 32.0, round(float(rng.uniform(0.5, 20)), 4)]) for _ in range(anchors[1])]
    flag = lambda: pick(rng, ["true", "false"])  # noqa: E731
    return {"base_size": str(int(rng.integers(1, 20))), "pre_nms_topn": str(int(rng.integers(8, 300))),
            "post_nms_topn": str(int(rng.integers(1, most))),
            "nms_thresh": pick(rng, ["0.7", "0.3", "0", "1", "-0.1", f"{rng.uniform(0, 1):.4g}"]),
            "feat_stride": str(int(rng.integers(1, 20))), "min_size": str(int(rng.integers(0, 20))),
            "ratio": ",".join(repr(r) for r in ratios), "scale": ",".join(repr(s) for s in scales),
            "clip_before_nms": flag(), "clip_after_nms": flag(), "normalize": flag(),
            "box_size_scale": pick(rng, ["1", "5", "0.3"]), "box_coordinate_scale": pick(rng, ["1", "10", "0.7"]),
            "framework": pick(rng, ["", "tensorflow"])}


def proposal_node(ps: list[ov.Node], raw: dict[str, str], version: int) -> ov.Node:
    """By NodeFactory (opset4's function asks numpy integer types), attributes decoded as ours are."""
    a = A.decode(ProposalAttrs, raw)
    attrs = {name: list(v) if isinstance(v, tuple) else v
             for name, v in ((name, getattr(a, name)) for name in ProposalAttrs.__dataclass_fields__)}
    return NodeFactory(f"opset{version}").create("Proposal", [p.output(0) for p in ps], attrs)


def _sprinkle(rng: np.random.Generator, x: np.ndarray, values: list[float], share: float) -> np.ndarray:
    flat = x.reshape(-1)
    at = rng.random(flat.size) < share
    flat[at] = rng.choice(np.array(values, np.float32), int(at.sum()))
    return x


def scores_like(rng: np.random.Generator, shape: tuple[int, ...], i: int) -> np.ndarray:
    """Scores in [0, 1): quarters (equal scores) in every third case, the special values in every fourth."""
    scores = rng.random(shape).astype(np.float32)
    if i % 3 == 0:
        scores = np.round(scores * 4) / np.float32(4)
    return _sprinkle(rng, scores, [np.nan, np.inf, -np.inf, -0.0, 0.0], 0.03 if i % 4 == 1 else 0.0)


def deltas_like(rng: np.random.Generator, shape: tuple[int, ...], i: int, big: float) -> np.ndarray:
    """Box deltas of a random spread; in every fourth case ``big``, NaN, infinity, -0 and log sizes beyond f32's exp
    range."""
    deltas = (rng.standard_normal(shape) * pick(rng, [0.3, 2.0])).astype(np.float32)
    return _sprinkle(rng, deltas, [np.nan, 89.0, -104.0, big, np.inf, -0.0], 0.02 if i % 4 == 2 else 0.0)


def assert_bit_for_bit(make: Callable[[np.random.Generator, int], Case], seed: int, tmp_path: Path) -> None:
    """``CASES_PER_MODEL`` cases of ``make`` in one model, every sixth of f16 inputs (CPU computes in f32 and rounds the
    outputs once): ``proposal_failures`` finds none."""
    rng = np.random.default_rng([SEED, seed])
    cases = [make(rng, i) for i in range(CASES_PER_MODEL)]
    for case in cases[5::6]:
        case.inputs = [x.astype(np.float16) if x.dtype == np.float32 else x for x in case.inputs]
        case.what += " f16"
    failures = proposal_failures(cases, tmp_path)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:10])


def agreeing(what: str, build: Callable[[list[ov.Node], dict[str, str]], ov.Node], op: str, opset: str,
             raw: dict[str, str], elements: list[str | None], shapes: list) -> tuple:
    """A shape case for ``assert_shapes_agree``: OpenVINO's inference of ``build`` on Parameters, and our rule's."""

    def theirs():
        return openvino_outcome(lambda: build(
            [ops1.parameter(partial_shape(s), ELEMENTS[e]) for e, s in zip(elements, shapes, strict=True)], raw))

    def ours():
        return our_outcome(op, opset, raw, tensor_types(elements, shapes), [None] * len(shapes))

    return f"{what} {raw} {elements} {[show(s) for s in shapes]}", theirs, ours


def proposal_case(rng: np.random.Generator, i: int, small: bool = False) -> Case:
    """``small``: one image of up to 4 anchors and few rows, Proposal-4 only where it keeps every row (the stored
    answers'). Every 20th case (small: the first of each version) keeps no box, pre_nms_topn and post_nms_topn 0:
    empty outputs (and an omitted count, which OpenVINO reads as 0, crashes no CPU run of the stored layer)."""
    raw = proposal_raw(rng, (int(rng.integers(1, 3 if small else 4)), int(rng.integers(1, 3 if small else 4))),
                       8 if small else 60)
    empty = i < 2 if small else i % 20 == 0
    if empty:
        raw |= {"pre_nms_topn": "0", "post_nms_topn": "0"}
    a = A.decode(ProposalAttrs, raw)
    count = len(a.ratio) * len(a.scale)
    n, h, w = int(rng.integers(1, 2 if small else 3)), int(rng.integers(1, 7)), int(rng.integers(1, 5 if small else 7))
    while count * h * w < 8:
        h += 1
    probs = scores_like(rng, (n, 2 * count, h, w), i)
    deltas = deltas_like(rng, (n, 4 * count, h, w), i, 40.0)
    info = [float(rng.integers(10, 300)), float(rng.integers(10, 300)), float(rng.uniform(0.3, 2))]
    if i % 2:
        info.append(float(rng.uniform(0.3, 2)))
    version = (1, 4)[i % 2] if empty else pick(rng, [1, 4])
    image = np.array(info, np.float32)
    if small and not written(PROPOSAL_4.kernel(a, [probs, deltas, image])[0], n).all():
        version = 1  # (CPU would leave scores unwritten)
    return Case(f"Proposal-{version} {raw} {list(probs.shape)} {info}", [probs, deltas, image],
                lambda p, raw=raw, version=version: proposal_node(p, raw, version), bits=True,
                consts=[2] if small or i % 5 == 0 else [])


def written(rois: np.ndarray, images: int) -> np.ndarray:
    """Per row of Proposal-4's scores, whether CPU writes it: the rows before the first of -1 in its image."""
    rows = rois.reshape(images, -1, 5)
    kept = np.cumsum(rows[:, :, 0] == -1, axis=1) == 0
    return kept.reshape(-1)


def proposal_failures(cases: list[Case], tmp_path: Path) -> list[str]:
    """Every case bit for bit, Proposal-4's scores where CPU writes them."""
    failures = []
    for case, (ours, theirs, _) in zip(cases, case_outputs(cases, tmp_path), strict=True):
        if case.what.startswith("Proposal-4") and ours[0] is not None and ours[1] is not None:
            at = written(ours[0], case.inputs[0].shape[0])
            ours[1], theirs[1] = ours[1][at], theirs[1][at]
        for k, (got, want) in enumerate(zip(ours, theirs, strict=True)):
            problem = "missing from ours" if got is None else bits_differ(got, want)
            if problem:
                failures.append(f"{case.what} (output {k}): {problem}")
    return failures


@pytest.mark.parametrize("part", range(4))
def test_proposal_bit_for_bit(part: int, tmp_path: Path) -> None:
    assert_bit_for_bit(proposal_case, part, tmp_path)


def test_kernel_refuses_what_cpu_cannot_run() -> None:
    """Fewer than 8 boxes before NMS with post_nms_topn above 1 (CPU's vector loop reads past them: a segmentation
    fault), class_probs not of 2 A channels, image info CPU refuses."""
    raw = {"base_size": "4", "pre_nms_topn": "5", "post_nms_topn": "3", "ratio": "1", "scale": "1"}
    probs, deltas = np.ones((1, 2, 3, 3), np.float32), np.zeros((1, 4, 3, 3), np.float32)
    image = np.array([10, 10, 1], np.float32)
    attrs = A.decode(ProposalAttrs, raw)
    with pytest.raises(UnsupportedError, match="1 to 7"):
        PROPOSAL_4.kernel(attrs, [probs, deltas, image])
    with pytest.raises(UnsupportedError, match="2 A"):
        PROPOSAL_4.kernel(attrs, [probs[:, :1], deltas, image])
    attrs = A.decode(ProposalAttrs, {**raw, "pre_nms_topn": "9"})
    with pytest.raises(OpValidationError, match="height and width"):
        PROPOSAL_4.kernel(attrs, [probs, deltas, np.array([0, 10, 1], np.float32)])
    assert PROPOSAL_4.crashes(A.decode(ProposalAttrs, raw), frozenset({0}))


def rarely(rng: np.random.Generator, usual, other):
    """``usual``, or one time in 12 ``other``."""
    return other if rng.random() < 1 / 12 else usual


def test_shape_rules_agree() -> None:
    rng = np.random.default_rng([SEED, 30])
    cases = []
    for i in range(400):
        version = 1 if i % 2 else 4
        raw = {"post_nms_topn": str(pick(rng, [0, 1, 3, 300])), "ratio": "1", "scale": "1"}
        batch, anchors = int(rng.integers(0, 4)), int(rng.integers(0, 5))
        shapes = [None if rng.random() < 0.1 else
                  tuple(blur(rng, n) for n in [batch, anchors * 2, 3, 4][:rarely(rng, 4, 3)]),
                  None if rng.random() < 0.1 else
                  tuple(blur(rng, n) for n in [rarely(rng, batch, batch + 1), rarely(rng, anchors * 4, anchors * 2),
                                               3, 4]),
                  None if rng.random() < 0.1 else
                  tuple(blur(rng, n) for n in [rarely(rng, pick(rng, [3, 4]), pick(rng, [2, 5]))][:rarely(rng, 1, 0)])]
        elements = [rarely(rng, pick(rng, ["f32", "f16", "f64", "bf16"]), pick(rng, ["i32", None])) for _ in range(3)]
        cases.append(agreeing(f"Proposal-{version}", partial(proposal_node, version=version), "Proposal",
                              f"opset{version}", raw, elements, shapes))
    assert_shapes_agree(cases)


def test_opsets(tmp_path: Path) -> None:
    """Proposal-1 in opset1..3 and -4 in opset4..16, GenerateProposals-9 in opset9..16,
    ExperimentalDetectronGenerateProposalsSingleImage-6 and ExperimentalDetectronDetectionOutput-6 in opset6..16."""
    ps = [ops1.parameter(s, np.float32) for s in ([1, 2, 3, 3], [1, 4, 3, 3], [3])]
    raw = {"base_size": "4", "pre_nms_topn": "9", "post_nms_topn": "3", "ratio": "1", "scale": "1"}
    assert check_versions({"Proposal": proposal_node(ps, raw, 1)}, ps, tmp_path) == []
    counts = {"pre_nms_count": "9", "post_nms_count": "3"}
    ps = [ops1.parameter(s, np.float32) for s in ([1, 3], [3, 3, 1, 4], [1, 4, 3, 3], [1, 1, 3, 3])]
    assert check_versions({"GenerateProposals": generate_node(ps, counts)}, ps, tmp_path) == []
    ps = [ops1.parameter(s, np.float32) for s in ([3], [9, 4], [4, 3, 3], [1, 3, 3])]
    assert check_versions({DETECTRON: detectron_node(ps, counts)}, ps, tmp_path) == []
    ps = [ops1.parameter(s, np.float32) for s in ([5, 4], [5, 8], [5, 2], [1, 3])]
    raw = {"num_classes": "2", "post_nms_count": "3", "max_detections_per_image": "4", "deltas_weights": "1,1,1,1"}
    assert check_versions({OUTPUT: output_node(ps, raw)}, ps, tmp_path) == []


def test_compare_checks_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A Faster R-CNN head (Convolutions -> Softmax over the two classes -> Proposal-4's boxes) compared end to end
    and per layer; the scores output, which CPU writes only for the kept rows, is not a model output."""
    rng = np.random.default_rng(4)
    x = ops1.parameter([1, 8, 6, 7], np.float32, name="x")
    anchors = 6
    cls = ops1.convolution(x, ops1.constant((rng.standard_normal((2 * anchors, 8, 1, 1)) * 0.5).astype(np.float32)),
                           [1, 1], [0, 0], [0, 0], [1, 1])
    soft = ops1.reshape(ops1.softmax(ops1.reshape(cls, ops1.constant(np.array([1, 2, -1], np.int64)), False), 1),
                        ops1.constant(np.array([1, 2 * anchors, 6, 7], np.int64)), False)
    box = ops1.convolution(x, ops1.constant((rng.standard_normal((4 * anchors, 8, 1, 1)) * 0.1).astype(np.float32)),
                           [1, 1], [0, 0], [0, 0], [1, 1])
    info = ops1.constant(np.array([96, 112, 1], np.float32))
    raw = {"base_size": "16", "pre_nms_topn": "200", "post_nms_topn": "30", "nms_thresh": "0.7", "feat_stride": "16",
           "min_size": "4", "ratio": "0.5,1,2", "scale": "2,4", "normalize": "true"}
    proposal = proposal_node([soft, box, info], raw, 4)
    xml = tmp_path / "rpn.xml"
    ov.save_model(ov.Model([ops1.result(proposal.output(0))], [x], "rpn"), xml)
    assert_compare_passes(xml, capsys, {"Proposal@opset4"}, outputs=1)


# --- GenerateProposals-9 ----------------------------------------------------------------------------------------


def generate_raw(rng: np.random.Generator) -> dict[str, str]:
    return {"min_size": pick(rng, ["0", "1", "4", f"{rng.uniform(0, 8):.4g}"]),
            "nms_threshold": pick(rng, ["0.7", "0.3", "0", "1", "-0.1", f"{rng.uniform(0, 1):.4g}"]),
            "pre_nms_count": str(int(rng.integers(1, 300))), "post_nms_count": str(int(rng.integers(1, 60))),
            "normalized": pick(rng, ["true", "false"]), "roi_num_type": pick(rng, ["i64", "i32"])}


def generate_node(ps: list[ov.Node], raw: dict[str, str]) -> ov.Node:
    a = A.decode(GenerateProposalsAttrs, raw)
    attrs = {name: getattr(a, name) for name in GenerateProposalsAttrs.__dataclass_fields__}
    return NodeFactory("opset9").create("GenerateProposals", [p.output(0) for p in ps], attrs)


def generate_case(rng: np.random.Generator, i: int, small: bool = False) -> Case:
    """``small``: up to 2 images of up to 3 anchors on a grid of up to 4 by 4 (the stored answers')."""
    raw = generate_raw(rng)
    top = 3 if small else 5
    n, count, h, w = (int(rng.integers(1, top - 1)), int(rng.integers(1, top)), int(rng.integers(1, top + 2)),
                      int(rng.integers(1, top + 2)))
    info = np.stack([np.array([rng.integers(10, 300), rng.integers(10, 300), rng.uniform(0.3, 2), rng.uniform(0.3, 2)])
                     for _ in range(n)]).astype(np.float32)[:, :pick(rng, [3, 4])]
    corner = rng.uniform(-20, 200, (h, w, count, 2))
    size = rng.uniform(0, 60, (h, w, count, 2))
    anchors = np.concatenate([corner, corner + size], axis=-1).astype(np.float32)
    deltas = deltas_like(rng, (n, 4 * count, h, w), i, 5.0)
    scores = scores_like(rng, (n, count, h, w), i)
    return Case(f"GenerateProposals-9 {raw} {list(scores.shape)} {info.shape}", [info, anchors, deltas, scores],
                lambda p, raw=raw: generate_node(p, raw), bits=True)


@pytest.mark.parametrize("part", range(2))
def test_generate_bit_for_bit(part: int, tmp_path: Path) -> None:
    assert_bit_for_bit(generate_case, 40 + part, tmp_path)


def test_generate_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 50])
    cases = []
    for _ in range(500):
        raw = {"pre_nms_count": rarely(rng, "5", "0"), "post_nms_count": rarely(rng, pick(rng, ["3", "1", "300"]), "0"),
               "nms_eta": rarely(rng, "1", "0.5"), "roi_num_type": rarely(rng, pick(rng, ["i64", "i32"]), "f32")}
        n, count, h, w = (int(v) for v in rng.integers(0, 5, 4))
        dims = [[n, rarely(rng, pick(rng, [3, 4]), 2)], [h, w, count, rarely(rng, 4, 3)], [n, 4 * count, h, w],
                [rarely(rng, n, n + 1), rarely(rng, count, count + 1), h, rarely(rng, w, w + 1)]]
        shapes = [None if rng.random() < 0.1 else tuple(blur(rng, d) for d in ds[:rarely(rng, len(ds), len(ds) - 1)])
                  for ds in dims]
        elements = [pick(rng, ["f32", "f16", "f64", "bf16", "i32", None]) for _ in range(4)]
        cases.append(agreeing("GenerateProposals-9", generate_node, "GenerateProposals", "opset9", raw, elements,
                              shapes))
    assert_shapes_agree(cases)


# --- ExperimentalDetectronGenerateProposalsSingleImage-6 --------------------------------------------------------

DETECTRON = "ExperimentalDetectronGenerateProposalsSingleImage"


def detectron_node(ps: list[ov.Node], raw: dict[str, str]) -> ov.Node:
    a = A.decode(DetectronProposalsAttrs, raw)
    attrs = {name: getattr(a, name) for name in DetectronProposalsAttrs.__dataclass_fields__}
    return NodeFactory("opset6").create(DETECTRON, [p.output(0) for p in ps], attrs)


def detectron_case(rng: np.random.Generator, i: int, small: bool = False) -> Case:
    """One image (``small``: up to 3 anchors on a grid of up to 4 by 4, the stored answers'). Every 20th case (small:
    the first) keeps no box, pre_nms_count and post_nms_count 0: empty outputs (and an omitted count, which OpenVINO
    reads as 0, crashes no CPU run of the stored layer)."""
    raw = {k: v for k, v in generate_raw(rng).items() if k in ("min_size", "nms_threshold", "pre_nms_count")}
    raw["post_nms_count"] = str(int(rng.integers(1, 60)))
    if i % 20 == 0:
        raw |= {"pre_nms_count": "0", "post_nms_count": "0"}
    top = 3 if small else 5
    count, h, w = int(rng.integers(1, top)), int(rng.integers(1, top + 2)), int(rng.integers(1, top + 2))
    info = np.array([rng.integers(10, 300), rng.integers(10, 300), rng.uniform(0.3, 2)], np.float32)
    corner = rng.uniform(-20, 200, (h * w * count, 2))
    anchors = np.concatenate([corner, corner + rng.uniform(0, 60, (h * w * count, 2))], axis=-1).astype(np.float32)
    deltas = deltas_like(rng, (4 * count, h, w), i, 5.0)
    scores = scores_like(rng, (count, h, w), i) - np.float32(0.2 if i % 5 == 4 else 0.0)
    return Case(f"{DETECTRON}-6 {raw} {list(scores.shape)}", [info, anchors, deltas, scores],
                lambda p, raw=raw: detectron_node(p, raw), bits=True)


@pytest.mark.parametrize("part", range(2))
def test_detectron_bit_for_bit(part: int, tmp_path: Path) -> None:
    assert_bit_for_bit(detectron_case, 60 + part, tmp_path)


def test_detectron_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 70])
    cases = []
    for _ in range(300):
        raw = {"post_nms_count": pick(rng, ["3", "1", "300", "0", "-1", "-2"])}
        count, h, w = (int(v) for v in rng.integers(0, 5, 3))
        dims = [[rarely(rng, 3, pick(rng, [2, 4]))], [h * w * count, rarely(rng, 4, 3)], [4 * count, h, w],
                [count, rarely(rng, h, h + 1), rarely(rng, w, w + 1)]]
        shapes = [None if rng.random() < 0.1 else tuple(blur(rng, d) for d in ds[:rarely(rng, len(ds), len(ds) - 1)])
                  for ds in dims]
        element = pick(rng, ["f32", "f16", "f64", "bf16", "i32", None])
        elements = [rarely(rng, pick(rng, [element, element, None]), pick(rng, ["f32", "f16", "i32"]))
                    for _ in range(4)]
        cases.append(agreeing(f"{DETECTRON}-6", detectron_node, DETECTRON, "opset6", raw, elements, shapes))
    assert_shapes_agree(cases)


# --- ExperimentalDetectronDetectionOutput-6 ---------------------------------------------------------------------

OUTPUT = "ExperimentalDetectronDetectionOutput"


def output_node(ps: list[ov.Node], raw: dict[str, str]) -> ov.Node:
    a = A.decode(DetectronOutputAttrs, raw)
    attrs = {name: list(v) if isinstance(v, tuple) else v
             for name, v in ((name, getattr(a, name)) for name in DetectronOutputAttrs.__dataclass_fields__)}
    return NodeFactory("opset6").create(OUTPUT, [p.output(0) for p in ps], attrs)


def output_case(rng: np.random.Generator, i: int, small: bool = False) -> Case:
    """Mask R-CNN's detection head on ``rois`` boxes (some of no width or height) of up to 5 classes, thresholds and
    counts at random (``small``: few rois, the stored answers'; the first of 1 class only, whose omitted
    deltas_weights then crash no CPU run of the stored layer)."""
    classes = 1 if small and i == 0 else int(rng.integers(1, 6))
    rois_num = int(rng.integers(1, 8 if small else 30))
    raw = {"score_threshold": pick(rng, ["0.05", "0.5", "0", "-0.1"]),
           "nms_threshold": pick(rng, ["0.5", "0.3", "0", "1", "-0.1"]),
           "max_delta_log_wh": pick(rng, ["4.135166645050049", "2", "100"]), "num_classes": str(classes),
           "post_nms_count": pick(rng, ["-1", "0", "3", str(int(rng.integers(1, 30)))]),
           "max_detections_per_image": str(int(rng.integers(0, 40))),
           "class_agnostic_box_regression": pick(rng, ["false", "true"]),
           "deltas_weights": pick(rng, ["10,10,5,5", "1,1,1,1", "0.5,2,0.7,3"])}
    corner = rng.uniform(-10, 200, (rois_num, 2))
    rois = np.concatenate([corner, corner + rng.uniform(-5, 60, (rois_num, 2))], axis=1).astype(np.float32)
    deltas = deltas_like(rng, (rois_num, 4 * classes), i, 50.0)
    scores = scores_like(rng, (rois_num, classes), i)
    info = np.array([[rng.integers(10, 300), rng.integers(10, 300), 1]], np.float32)
    return Case(f"{OUTPUT}-6 {raw} {list(scores.shape)}", [rois, deltas, scores, info],
                lambda p, raw=raw: output_node(p, raw), bits=True)


@pytest.mark.parametrize("part", range(2))
def test_output_bit_for_bit(part: int, tmp_path: Path) -> None:
    assert_bit_for_bit(output_case, 80 + part, tmp_path)


def test_output_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 90])
    cases = []
    for _ in range(500):
        classes = int(pick(rng, [0, 1, 3, 3, -1]))
        raw = {"num_classes": str(classes), "max_detections_per_image": pick(rng, ["0", "5", "100"])}
        n = int(rng.integers(0, 6))
        dims = [[rarely(rng, n, n + 1), rarely(rng, 4, 5)], [rarely(rng, n, n + 2), rarely(rng, 4 * classes, 3)],
                [rarely(rng, n, n + 3), rarely(rng, classes, classes + 1)],
                [rarely(rng, 1, 2), rarely(rng, 3, 4)]]
        shapes = [None if rng.random() < 0.1 else tuple(blur(rng, max(d, 0)) for d in ds[:rarely(rng, 2, 1)])
                  for ds in dims]
        element = pick(rng, ["f32", "f16", "f64", "bf16", "i32", None])
        elements = [rarely(rng, pick(rng, [element, element, None]), pick(rng, ["f32", "f16", "i32"]))
                    for _ in range(4)]
        cases.append(agreeing(f"{OUTPUT}-6", output_node, OUTPUT, "opset6", raw, elements, shapes))
    assert_shapes_agree(cases)
