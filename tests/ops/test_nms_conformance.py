"""NonMaxSuppression-1, -3, -4, -5 and -9 (ops/nms.py) against OpenVINO: shape rules and CPU kernels.

Kernel: 480 seeded cases judged by OpenVINO CPU, batched into one model (read and run by ir_tools, compiled once),
NonMaxSuppression-5 and -9 alike: about 290 of hard NMS and 190 of soft NMS (50 of them with more than 16 boxes
selected in a class: several of CPU's 16-lane products); 1 to 3 batches and classes, 1 to 70 boxes, corner boxes
(coordinates in either order, some duplicated) and center boxes, with boxes of no area in hard NMS (their IoU with
each other is NaN); scores quantized to a few levels in half the cases (ties within and across classes and batches)
and holding NaN now and then; boxes and scores of f32 or f16; 3 to 6 inputs; max_output_boxes_per_class of i64, i32
or integral f32, a Constant or (one case in four) a Parameter, from 1 to past N, and 2^31 - 1 or 2^40 as Constants;
iou_threshold and score_threshold in and out of [0, 1]; soft_nms_sigma 0, negative (hard NMS) or in [0.05, 2];
sort_result_descending both ways, output_type i64 and i32. Every output must be CPU's bit for bit, but for 24 cases
of max_output_boxes_per_class 0, where CPU leaves valid_outputs unwritten (ops/nms.py) and only the selections are
compared. What CPU refuses (no max input, a negative max) or reads otherwise than OpenVINO's inference (a fractional
max) the kernel refuses (``test_kernel_refuses_what_cpu_refuses``); soft NMS's exp is oneDNN's
(``test_soft_nms_weights_are_onednn_exp``), and two boxes of no area score inf
(``test_soft_nms_of_boxes_without_area``). Soft NMS depends on the instruction set CPU's JIT kernel is built for
(AVX-512, AVX2 or SSE4.1): the kernel runs at this process's (``nms.cpu_isa()``, which honours ONEDNN_MAX_CPU_ISA as
OpenVINO does), and ``test_soft_nms_at_other_instruction_sets`` runs CPU at each lower one (a subprocess with
ONEDNN_MAX_CPU_ISA set) on 100 soft-NMS cases of 20 to 48 boxes, all kept, the kernel at that one bit for bit.
NonMaxSuppression-1, -3 and -4, which CPU computes as -9: 312 seeded cases of the same draws in one model
(``test_legacy_values_bit_equal``; about 100 of each version), hard NMS, 2 to 5 inputs (f16 thresholds in some),
12 of max 0 and about 40 of two inputs (saved with OpenVINO's default inputs: max 0), about 70 where CPU's rows
outnumber the inferred static count and 90 where they fall short (no padding), selected_indices bit for bit;
two inputs given to the kernel as a file may declare them (``test_legacy_without_max_selects_none``); what CPU
refuses to compile, ``cpu_refuses`` (``test_legacy_refused_as_cpu_refuses``); ``compare`` on the three, end to end
and per layer (``test_legacy_versions_compared_end_to_end_and_per_layer``).
Shape rules: 1500 seeded nodes of the five versions on Parameters and Constants of partial shapes (static, dynamic,
interval and unbounded dims, dynamic ranks, ranks 2 to 4), 2 to 6 inputs (5 for -1/3/4), max known or not (negative,
0, past N, 2^40; i64, i32, u8, f32, boolean), element types f32, f16, bf16, i32, f64 and dynamic, both output types:
our rule's outputs (element types and partial shapes, intervals included) must be OpenVINO's, or both refuse; and 7
interval cases the seeds rarely meet. ``check_versions``: each version in exactly its opsets; ``compare`` checks a
detection head end to end and per layer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset9 as ops9
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.base.errors import OpValidationError
from ir_tools.cli import main
from ir_tools.ops import attrs as A
from ir_tools.ops.nms import ISAS, NMS_9, cpu_isa, run_nms
from ir_tools.ops.opsets import lookup
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import (
    NUMPY,
    Case,
    Operand,
    assert_all_pass,
    assert_compare_passes,
    assert_shapes_agree,
    bits_differ,
    blur,
    check_versions,
    element_name,
    openvino_outcome,
    our_outcome,
    pick,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 909
KERNEL_CASES = 480
EMPTY_CASES = 24  # max_output_boxes_per_class 0
LEGACY = (1, 3, 4)  # the versions of one output, which CPU computes as NonMaxSuppression-9
LEGACY_CASES = 300
LEGACY_EMPTY = 12
SHAPE_CASES = 1500
SOFT_CASES = 100  # run by CPU at each instruction set below this machine's
VERSIONS = (1, 3, 4, 5, 9)
FACTORIES = {version: NodeFactory(f"opset{version}") for version in VERSIONS}


def node(inputs: list[ov.Node], version: int = 9, encoding: str = "corner", descending: bool = True,
         output_type: str = "i64") -> ov.Node:
    """A NonMaxSuppression of that version on exactly these inputs (openvino.opset9's helper adds the optional
    ones); NonMaxSuppression-1 has no output_type."""
    attrs = {"box_encoding": encoding, "sort_result_descending": descending, "output_type": output_type}
    if version == 1:
        del attrs["output_type"]
    return FACTORIES[version].create("NonMaxSuppression", [n.output(0) for n in inputs], attrs)


# --- kernel --------------------------------------------------------------------------------------------------------


def boxes_of(rng: np.random.Generator, shape: tuple[int, int], encoding: str, flat: bool) -> np.ndarray:
    """[B, N, 4] boxes: corner ones with coordinates in either order, center ones of positive size, all of some
    area; some duplicated and, where ``flat``, some of no area (two such boxes have a NaN IoU)."""
    b, n = shape
    if encoding == "corner":
        boxes = np.round(rng.random((b, n, 4)) * 10, int(rng.integers(1, 4)))
        boxes[..., 2:] += (boxes[..., 2:] == boxes[..., :2]) * 0.5
    else:
        boxes = np.round(np.concatenate([rng.random((b, n, 2)) * 10, rng.random((b, n, 2)) * 4], axis=-1),
                         int(rng.integers(1, 4)))
        boxes[..., 2:] = np.maximum(boxes[..., 2:], 0.1)
    copies = rng.random((b, n)) < 0.1
    boxes[copies] = boxes[:, :1][np.nonzero(copies)[0]][:, 0]
    if flat:  # no height: y2 = y1 (corner), h = 0 (center)
        zero = rng.random((b, n)) < 0.15
        boxes[zero, 2 if encoding == "corner" else 3] = boxes[zero, 0] if encoding == "corner" else 0.0
    return boxes.astype(np.float32)


def scores_of(rng: np.random.Generator, shape: tuple[int, int, int]) -> np.ndarray:
    scores = rng.random(shape)
    if rng.random() < 0.5:  # ties
        scores = np.round(scores * int(rng.integers(2, 6))) / 5
    scores = scores.astype(np.float32)
    if rng.random() < 0.15:
        scores[rng.random(shape) < 0.1] = np.nan
    return scores


def kernel_case(rng: np.random.Generator, empty: bool = False, versions: tuple[int, ...] = (5, 9)) -> Case:
    """A case of one of ``versions``: of NonMaxSuppression-1/3/4, 2 to 5 inputs (a node of 2 OpenVINO saves with its
    default inputs: max 0), hard NMS, thresholds of f16 now and then, one output compared bit for bit, empty ones
    too."""
    batches, classes = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    sigma = pick(rng, [0.0] * 8 + [-0.5] + [float(np.round(rng.uniform(0.05, 2), 3))] * 7)
    soft = sigma > 0
    n = int(rng.integers(1, 71 if soft and rng.random() < 0.6 else 30))
    encoding = pick(rng, ["corner", "center"])
    boxes = boxes_of(rng, (batches, n), encoding, flat=not soft and rng.random() < 0.3)
    scores = scores_of(rng, (batches, classes, n))
    if rng.random() < 0.2:
        boxes, scores = boxes.astype(np.float16), scores.astype(np.float16)
    version = pick(rng, versions)
    legacy = version < 5
    count = 6 if soft and not legacy else pick(rng, [2] + [3, 4, 5] * 3) if legacy else int(rng.integers(3, 7))
    fed = rng.random() < 0.25  # the max a Parameter (then within int32, which CPU reads it through)
    most = 0 if empty else pick(rng, [1, 2, n, n + 3, int(rng.integers(1, n + 1))] * 4 +
                                [2**31 - 1] + ([] if fed else [2**40]))
    max_type = pick(rng, [np.int64, np.int64] + ([np.int32] if most < 2**31 else []) +
                    ([np.float32] if most < 2**24 else []))
    thresholds = [np.float32(pick(rng, [0.0, 1.0, 1.5, round(float(rng.random()), 2)] + [float(rng.random())] * 4)),
                  np.float32(pick(rng, [0.0, -0.1, 0.3, float(rng.random()) * 0.6]))]
    if legacy and rng.random() < 0.2:
        thresholds = [t.astype(np.float16) for t in thresholds]
    extra = [np.array(most, max_type), *thresholds, np.float32(sigma)][:count - 2]
    attrs = dict(version=version, encoding=encoding, descending=bool(rng.random() < 0.5),
                 output_type=pick(rng, ["i64", "i32"]))
    consts = [j for j in range(2, count) if not (j == 2 and fed)]
    what = (f"NMS {attrs} boxes {boxes.dtype}{list(boxes.shape)} scores {list(scores.shape)} "
            f"{[v.item() for v in extra]}")
    free_valid = (None, None, lambda w: np.inf)  # (CPU leaves valid_outputs unwritten)
    return Case(what, [boxes, scores, *extra], lambda p: node(p, **attrs), consts=consts, bits=legacy or not empty,
                limits=free_valid if empty and not legacy else (None,))


def kernel_cases(rng: np.random.Generator, count: int, empty: int = 0, versions: tuple[int, ...] = (5, 9)
                 ) -> list[Case]:
    return [kernel_case(rng, versions=versions) for _ in range(count)] + \
        [kernel_case(rng, empty=True, versions=versions) for _ in range(empty)]


def test_values_bit_equal(tmp_path: Path) -> None:
    assert_all_pass(kernel_cases(np.random.default_rng(SEED), KERNEL_CASES, EMPTY_CASES), tmp_path)


def test_legacy_values_bit_equal(tmp_path: Path) -> None:
    """NonMaxSuppression-1, -3 and -4, which CPU computes as -9 (ops/nms.py): LEGACY_CASES seeded cases and
    LEGACY_EMPTY of max 0, one model; selected_indices must be CPU's bit for bit (its rows, their order, its element
    type)."""
    assert_all_pass(kernel_cases(np.random.default_rng([SEED, 3]), LEGACY_CASES, LEGACY_EMPTY, LEGACY), tmp_path)


def test_rounding_rule() -> None:
    """Exact inputs give exact outputs (the kernel is CPU's arithmetic, soft NMS at this machine's instruction set);
    scores within any bound may change the selection (two equal scores a bound apart pick the other box first), so a
    bound on an input gives none. NonMaxSuppression-1/3/4, computed as -9, share the rule."""
    assert all(lookup("NonMaxSuppression", f"opset{v}").rounding is NMS_9.rounding for v in LEGACY)
    boxes = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1]]], np.float32)
    scores = np.array([[[0.5, 0.5]]], np.float32)
    extra = [np.int64(1), np.float32(0.5), np.float32(0.0), np.float32(0.0)]
    attrs = A.decode(NMS_9.attrs, {})
    inputs = [boxes, scores, *extra]
    outputs = NMS_9.compute(attrs, inputs)
    exact = [np.zeros(())] * 6
    assert all(float(np.max(b)) == 0 for b in NMS_9.rounding(NMS_9.kernel, attrs, inputs, exact, outputs))
    nudged = NMS_9.compute(attrs, [boxes, scores + np.array([[[0, 1e-6]]], np.float32), *extra])
    assert nudged[0][0, 2] != outputs[0][0, 2]
    with_bound = [np.zeros(()), np.full((), 1e-6), *exact[2:]]
    assert all(np.isinf(b).all() for b in NMS_9.rounding(NMS_9.kernel, attrs, inputs, with_bound, outputs))
    soft = [boxes, scores, np.int64(2), np.float32(0.5), np.float32(0.0), np.float32(0.5)]
    bounds = NMS_9.rounding(NMS_9.kernel, attrs, soft, exact, NMS_9.compute(attrs, soft))
    assert all(float(np.max(b)) == 0 for b in bounds)


def cpu_outcome(inputs: list[np.ndarray], **attrs) -> list[np.ndarray] | str:
    """OpenVINO CPU's outputs of a node on Parameters holding ``inputs``, or its error."""
    params = [ops1.parameter(list(x.shape), ov.Type(x.dtype)) for x in inputs]
    try:
        request = ov.Core().compile_model(ov.Model(node(params, **attrs).outputs(), params), "CPU",
                                          CPU_CONFIG).create_infer_request()
        request.infer(inputs)
    except RuntimeError as exc:
        return str(exc)
    return [t.data.copy() for t in request.output_tensors]


def test_kernel_refuses_what_cpu_refuses() -> None:
    """CPU fails without a max input and with a negative max (it leaves its outputs unsized); it rounds a fractional
    max (2.7 selects 3 boxes a class) where OpenVINO's inference truncates it (at most 2). The kernel refuses all
    three."""
    rng = np.random.default_rng(1)
    boxes, scores = rng.random((1, 8, 4)).astype(np.float32), rng.random((1, 1, 8)).astype(np.float32)
    attrs = A.decode(NMS_9.attrs, {})
    for extra in ([], [np.int64(-1)]):
        assert "non static shape" in cpu_outcome([boxes, scores, *extra]), extra
        with pytest.raises(OpValidationError):
            NMS_9.kernel(attrs, [boxes, scores, *extra])
    fraction = [boxes, scores, np.float32(2.7), np.float32(1.0)]
    assert len(cpu_outcome(fraction)[0]) == 3
    inferred = node([ops1.parameter([1, 8, 4]), ops1.parameter([1, 1, 8]), ops1.constant(np.float32(2.7)),
                     ops1.constant(np.float32(1.0))]).get_output_partial_shape(0)
    assert inferred[0].get_max_length() == 2
    with pytest.raises(OpValidationError):
        NMS_9.kernel(attrs, fraction)


def test_legacy_refused_as_cpu_refuses() -> None:
    """CPU computes NonMaxSuppression-1/3/4 as -9, whose validation refuses what theirs accepts: ``cpu_refuses`` says
    exactly which of these layers CPU refuses to compile (-4's output_type other than i64 and i32; boxes, scores or a
    threshold of neither f32 nor f16), and the kernel refuses those output types, a negative max (CPU fails) and a
    fractional one (CPU rounds it, 2.7 selecting 3 boxes a class, where inference truncates) as it does -9's."""
    rng = np.random.default_rng(2)
    boxes, scores = rng.random((1, 8, 4)).astype(np.float32), rng.random((1, 2, 8)).astype(np.float32)
    thresholds = [np.float32(0.9), np.float32(0.1)]
    variants = [(4, output_type, {}) for output_type in ("i64", "i32", "f32", "i8", "u64")] + [
        (version, "i32", {j: dtype}) for version in LEGACY for j, dtype in
        [(0, np.float64), (0, np.int32), (1, np.float64), (3, np.float64), (3, np.int32), (4, np.float16),
         (0, np.float16)]]
    mismatches = []
    for version, output_type, dtypes in variants:
        inputs = [x.astype(dtypes.get(j, x.dtype)) for j, x in enumerate([boxes, scores, np.int64(3), *thresholds])]
        spec = lookup("NonMaxSuppression", f"opset{version}")
        raw = {} if version == 1 else {"output_type": output_type}
        said = spec.cpu_refuses(A.decode(spec.attrs, raw), tensor_types([element_name(ov.Type(x.dtype))
                                                                         for x in inputs], [None] * 5), [None] * 5)
        found = cpu_outcome(inputs, version=version, output_type=output_type)
        if (said is None) != isinstance(found, list):
            mismatches.append(f"NMS-{version} {output_type} {dtypes}: ours {said}, CPU {found}")
        if said is not None and output_type not in ("i64", "i32"):
            with pytest.raises(OpValidationError):
                spec.kernel(A.decode(spec.attrs, raw), inputs)
    assert not mismatches, "\n".join(mismatches)
    for version in LEGACY:
        spec, negative = lookup("NonMaxSuppression", f"opset{version}"), [boxes, scores, np.int64(-1)]
        assert "non static shape" in cpu_outcome(negative, version=version)
        with pytest.raises(OpValidationError):
            spec.kernel(A.decode(spec.attrs, {}), negative)
        fraction = [boxes, scores, np.float32(2.7), *thresholds]
        assert len(cpu_outcome(fraction, version=version)[0]) == 6
        with pytest.raises(OpValidationError):
            spec.kernel(A.decode(spec.attrs, {}), fraction)


def test_legacy_without_max_selects_none() -> None:
    """A NonMaxSuppression-1/3/4 of two inputs (a file may declare no more: OpenVINO's reader fills the defaults; the
    seeded cases' two-input nodes are saved with them) selects nothing on CPU, max read as 0: the kernel given two
    inputs too."""
    rng = np.random.default_rng(3)
    inputs = [rng.random((2, 6, 4)).astype(np.float32), rng.random((2, 3, 6)).astype(np.float32)]
    for version in LEGACY:
        spec = lookup("NonMaxSuppression", f"opset{version}")
        cpu = cpu_outcome(inputs, version=version)
        ours = spec.kernel(A.decode(spec.attrs, {}), inputs)
        assert [x.tobytes() for x in ours] == [x.tobytes() for x in cpu] and cpu[0].shape == (0, 3), version


def test_soft_nms_weights_are_onednn_exp() -> None:
    """Soft NMS's decay exp(-0.5 / sigma IoU^2) is oneDNN's exp, not the correctly rounded one: a candidate scored
    against one selected box gets score * exp(...) as CPU computes it, which differs from numpy's exp in the last
    bit for some IoUs. Both boxes share an edge and slide, so the IoU sweeps [0, 1)."""
    offsets = np.linspace(0.0, 0.99, 64, dtype=np.float32)
    boxes = np.stack([np.array([[0, 0, 1, 1], [0, o, 1, 1 + o]], np.float32) for o in offsets])
    scores = np.tile(np.array([[[0.9, 0.8]]], np.float32), (len(offsets), 1, 1))
    extra = [np.int64(2), np.float32(0.5), np.float32(0.0), np.float32(0.3)]
    cpu = cpu_outcome([boxes, scores, *extra], descending=False)
    _, ours_scores, _ = NMS_9.kernel(A.decode(NMS_9.attrs, {"sort_result_descending": "false"}),
                                     [boxes, scores, *extra])
    assert ours_scores.tobytes() == cpu[1].tobytes()
    iou = (1 - offsets) / (1 + offsets)
    rounded = np.float32(0.8) * np.exp((np.float32(-0.5) / np.float32(0.3)) * np.square(iou.astype(np.float32)))
    assert np.any(rounded.astype(np.float32) != cpu[1][1::2, 2])


def test_soft_nms_of_boxes_without_area() -> None:
    """Two boxes of no area have a NaN IoU, which oneDNN's exp clamps to ln(FLT_MAX) (vminps keeps its second
    operand): the factor overflows to inf, and CPU selects the second box with the score inf, as the kernel does. A
    score of 0 (a negative score_threshold) times it is NaN, which CPU takes back among the candidates for ever: the
    kernel refuses it (not run on CPU)."""
    boxes = np.array([[[0, 0, 0, 1], [0, 0, 0, 1], [2, 2, 3, 3], [5, 5, 6, 6]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.7, 0.6]]], np.float32)
    extra = [np.int64(4), np.float32(0.5), np.float32(0.0), np.float32(0.5)]
    cpu = cpu_outcome([boxes, scores, *extra])
    ours = NMS_9.compute(A.decode(NMS_9.attrs, {}), [boxes, scores, *extra])
    assert cpu[1][0].tolist() == [0, 0, np.inf]
    assert [x.tobytes() for x in ours] == [x.tobytes() for x in cpu]
    with pytest.raises(OpValidationError, match="NaN"):
        NMS_9.compute(A.decode(NMS_9.attrs, {}), [boxes, np.array([[[0.9, 0.0, 0.7, 0.6]]], np.float32),
                                                  np.int64(4), np.float32(0.5), np.float32(-1.0), np.float32(0.5)])


def kernel_at(case: Case, isa: str) -> list[np.ndarray] | None:
    """The kernel's outputs on a kernel case of NonMaxSuppression-5/9 with soft NMS computed at ``isa`` (None where
    the kernel refuses it)."""
    built = case.build([ops1.parameter(list(x.shape), ov.Type(x.dtype)) for x in case.inputs])
    attrs = A.decode(NMS_9.attrs, {k: str(v).lower() for k, v in built.get_attributes().items()})
    try:
        return run_nms(attrs, case.inputs, isa)
    except OpValidationError:
        return None


def soft_case(rng: np.random.Generator) -> Case:
    """Soft NMS keeping many boxes a class: 20 to 48 boxes, max_output_boxes_per_class N, score_threshold 0 or
    0.05, sigma in [0.05, 2]: many 16-, 8- and 4-lane products."""
    batches, classes, n = int(rng.integers(1, 3)), int(rng.integers(1, 3)), int(rng.integers(20, 49))
    encoding = pick(rng, ["corner", "center"])
    boxes = boxes_of(rng, (batches, n), encoding, flat=False)
    scores = rng.random((batches, classes, n)).astype(np.float32)
    extra = [np.int64(n), np.float32(0.5), np.float32(pick(rng, [0.0, 0.05])),
             np.float32(round(float(rng.uniform(0.05, 2)), 3))]
    attrs = dict(encoding=encoding, descending=bool(rng.random() < 0.5))
    what = f"soft NMS {attrs} boxes {list(boxes.shape)} scores {list(scores.shape)} {[v.item() for v in extra]}"
    return Case(what, [boxes, scores, *extra], lambda p: node(p, **attrs), consts=[2, 3, 4, 5])


#: Run in a subprocess: the model (argv[1]) on CPU with the inputs of argv[2], its outputs saved to argv[3].
CPU_RUN = """
import sys, numpy as np, openvino as ov
from ir_tools.runtime.openvino import CPU_CONFIG
request = ov.Core().compile_model(sys.argv[1], "CPU", CPU_CONFIG).create_infer_request()
request.infer(dict(np.load(sys.argv[2])))
np.savez(sys.argv[3], *[t.data.copy() for t in request.output_tensors])
"""


def test_soft_nms_at_other_instruction_sets(tmp_path: Path) -> None:
    """CPU's soft NMS depends on the instruction set its JIT kernel is built for (ops/nms.py): for each one below
    this machine's, CPU runs SOFT_CASES soft-NMS cases (one model) in a subprocess with ONEDNN_MAX_CPU_ISA set, and
    the kernel at that instruction set must give its outputs bit for bit; cases that differ from this machine's
    must be among them."""
    below = list(ISAS)[list(ISAS).index(cpu_isa()) + 1:]
    if not below:
        pytest.skip(f"no instruction set below {cpu_isa()}")
    cases = [soft_case(np.random.default_rng([SEED, 2, k])) for k in range(SOFT_CASES)]
    feed, outputs, params = {}, [], []
    for i, case in enumerate(cases):
        ins = [ops1.parameter(list(x.shape), ov.Type(x.dtype), name=f"c{i}_{j}") for j, x in enumerate(case.inputs[:2])]
        feed |= {f"c{i}_{j}": x for j, x in enumerate(case.inputs[:2])}
        params += ins
        outputs += case.build([*ins, *(ov.op.Constant(np.array(x)) for x in case.inputs[2:])]).outputs()
    ov.save_model(ov.Model(outputs, params), tmp_path / "soft.xml", compress_to_fp16=False)
    np.savez(tmp_path / "feed.npz", **feed)
    here = [kernel_at(case, cpu_isa()) for case in cases]
    for isa in below:
        env = {**os.environ, "ONEDNN_MAX_CPU_ISA": isa.upper()}
        subprocess.run([sys.executable, "-c", CPU_RUN, tmp_path / "soft.xml", tmp_path / "feed.npz",
                        tmp_path / f"{isa}.npz"], env=env, check=True, timeout=120)
        with np.load(tmp_path / f"{isa}.npz") as npz:
            cpu = [npz[f"arr_{k}"] for k in range(len(npz.files))]
        failures, moved = [], 0
        for i, case in enumerate(cases):
            ours = kernel_at(case, isa)
            moved += any(a.tobytes() != b.tobytes() for a, b in zip(ours, here[i], strict=True))
            problems = [bits_differ(got, want) for got, want in zip(ours, cpu[3 * i:3 * i + 3], strict=True)]
            failures += [f"{case.what} (output {k}): {p}" for k, p in enumerate(problems) if p]
        assert not failures, f"{isa}: {len(failures)} differ:\n" + "\n".join(failures[:12])
        assert moved, f"{isa}: no case differs from {cpu_isa()}'s"


# --- shape rule ----------------------------------------------------------------------------------------------------

def around(rng: np.random.Generator, lengths: list[int]):
    """A partial shape around ``lengths`` (a dynamic rank one time in ten)."""
    if rng.random() < 0.1:
        return None
    return tuple((n, n) if rng.random() < 0.4 else blur(rng, n) for n in lengths)


def scalar_operand(rng: np.random.Generator, j: int, n: int) -> Operand:
    """Input j (2 to 5): mostly a scalar Constant (the max of several types and values), else a Parameter of a
    shape that may not hold one element."""
    if j == 2:
        element = pick(rng, ["i64"] * 4 + ["i32", "u8", "f32", "boolean"])
        value = pick(rng, [n, n + 2, max(n - 2, 0), 0, 1, -1, 2**40]) if element != "boolean" else True
        if element == "u8":
            value = abs(value) % 256
        elif element == "i32":
            value = min(value, 2**31 - 1)
    else:
        element = pick(rng, ["f32"] * 12 + ["f16", "bf16", None, "i32", "f64"])
        value = 0.5
    if rng.random() < 0.6 and element in NUMPY:
        return Operand(element, value=value if rng.random() < 0.85 else [value])
    shape = pick(rng, [()] * 3 + [((1, 1),), ((0, None),), None, ((2, 2),), ((1, 1), (1, 1))])
    return Operand(element, shape)


def shape_case(rng: np.random.Generator):
    b, n, c = (int(rng.integers(0, 5)) for _ in range(3))
    if rng.random() < 0.05:
        n += 1  # boxes and scores disagree
    box_lengths = [b, n, 4 if rng.random() < 0.95 else 5]
    if rng.random() < 0.05:
        box_lengths = box_lengths[:2]
    score_lengths = [b if rng.random() < 0.95 else b + 1, c, n]
    if rng.random() < 0.05:
        score_lengths = [*score_lengths, 1]
    floats = ["f32"] * 14 + ["f16", "bf16", None, "i32"]
    operands = [Operand(pick(rng, floats), around(rng, box_lengths)),
                Operand(pick(rng, floats), around(rng, score_lengths))]
    version = pick(rng, VERSIONS)
    count = int(rng.integers(2, 7 if version >= 5 else 6))
    operands += [scalar_operand(rng, j, n) for j in range(2, count)]
    attrs = {"box_encoding": pick(rng, ["corner", "center"]),
             "sort_result_descending": pick(rng, ["true", "false"]),
             "output_type": pick(rng, ["i64", "i32"] * 4 + ["f32"])}
    if version == 1:
        del attrs["output_type"]
    what = f"NMS-{version} {attrs} " + ", ".join(map(str, operands))

    def theirs():
        return openvino_outcome(lambda: node([o.node() for o in operands], version, attrs["box_encoding"],
                                             attrs["sort_result_descending"] == "true",
                                             attrs.get("output_type", "i64")))

    def ours():
        types, values = zip(*(o.ours() for o in operands), strict=True)
        return our_outcome("NonMaxSuppression", f"opset{version}", attrs, list(types), list(values))

    return what, theirs, ours


def test_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 1])
    assert_shapes_agree([shape_case(rng) for _ in range(SHAPE_CASES)])


def test_interval_inputs() -> None:
    """The cases the seeded ones rarely meet, each against OpenVINO: bounded and unbounded box counts, batch and
    class dims, a max of 0 times an unbounded dim, a 1-element max."""
    cases = []
    for boxes, scores, value in [
            (((2, 2), (3, 8), (4, 4)), ((1, 3), (2, 4), (3, 8)), 5),
            (((2, 2), (3, None), (4, 4)), ((2, 2), (1, 1), (0, None)), 5),
            (((2, 2), (10, 10), (4, 4)), ((0, None), (3, 3), (10, 10)), 0),
            (((2, 2), (10, 10), (4, 4)), ((2, 2), (0, None), (10, 10)), 3),
            (((2, 2), (10, 10), (3, 5)), ((2, 2), (0, 0), (10, 10)), 3),
            (((0, None), (0, 10), (0, None)), None, 7),
            (((2, 2), (10, 10), (4, 4)), ((2, 2), (3, 3), (10, 10)), [4])]:
        operands = [Operand("f32", boxes), Operand("f32", scores), Operand("i64", value=value)]
        what = " ".join(map(str, operands))
        cases.append((what, lambda o=operands: openvino_outcome(lambda: node([x.node() for x in o])),
                      lambda o=operands: our_outcome("NonMaxSuppression", "opset9", {},
                                                     *map(list, zip(*(x.ours() for x in o), strict=True)))))
    assert_shapes_agree(cases)


# --- tables and tools ----------------------------------------------------------------------------------------------


def test_opsets(tmp_path: Path) -> None:
    """NonMaxSuppression-1 in opset1..2, -3 in opset3, -4 in opset4, -5 in opset5..8, -9 in opset9..16 (a layer of
    one output, as NonMaxSuppression-1/3/4 have, read as each)."""
    boxes, scores = ops1.parameter([1, 8, 4], np.float32), ops1.parameter([1, 2, 8], np.float32)
    nms = node([boxes, scores, ops1.constant(np.int64(3)), ops1.constant(np.float32(0.5))], version=3)
    assert check_versions({"NonMaxSuppression": nms}, [boxes, scores], tmp_path) == []


def test_a_detection_head_compared_end_to_end_and_per_layer(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Boxes and per-class scores from a small head (MatMul, Sigmoid), then NonMaxSuppression-9 as torchvision's
    detection models hold it (corner boxes, i64 indices, thresholds as Constants), and a Gather of the selected
    scores: every output and layer checked by ``compare``."""
    rng = np.random.default_rng(7)
    features = ops1.parameter([1, 40, 8], np.float32, name="features")
    boxes = ops1.matmul(features, ops1.constant((rng.standard_normal((8, 4)) * 2).astype(np.float32)), False, False)
    logits = ops1.matmul(features, ops1.constant(rng.standard_normal((8, 3)).astype(np.float32)), False, False)
    scores = ops1.sigmoid(ops1.transpose(logits, ops1.constant(np.array([0, 2, 1], np.int64))))
    nms = ops9.non_max_suppression(boxes, scores, ops1.constant(np.int64(10)), ops1.constant(np.float32(0.5)),
                                   ops1.constant(np.float32(0.2)), ops1.constant(np.float32(0.0)))
    xml = tmp_path / "head.xml"
    outputs = [ops1.result(nms.output(k)) for k in range(3)]
    ov.save_model(ov.Model(outputs, [features], "head"), xml)
    assert_compare_passes(xml, capsys, {"NonMaxSuppression@opset9"}, outputs=3)



def test_legacy_versions_compared_end_to_end_and_per_layer(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """NonMaxSuppression-1, -3 and -4 as detectors converted years ago hold them, after a small head of two images:
    ``compare`` checks each output end to end (they were listed as not checked), and per layer each layer: -4's 60
    rows (every box kept) are its declared [min(N, max) * B * C, 3]; -1's and -3's are CPU's 60 rows too, where the
    file declares their inferred [max * C, 3], [30, 3] (ops/nms.py), the rows they select (``OpSpec.selects_rows``),
    not a fused kernel's output (runtime/numeric_check.misfit: they were left unchecked so)."""
    rng = np.random.default_rng(8)
    features = ops1.parameter([2, 40, 8], np.float32, name="features")
    boxes = ops1.matmul(features, ops1.constant((rng.standard_normal((8, 4)) * 2).astype(np.float32)), False, False)
    logits = ops1.matmul(features, ops1.constant(rng.standard_normal((8, 3)).astype(np.float32)), False, False)
    scores = ops1.sigmoid(ops1.transpose(logits, ops1.constant(np.array([0, 2, 1], np.int64))))
    thresholds = [ops1.constant(np.int64(10)), ops1.constant(np.float32(0.5)), ops1.constant(np.float32(0.2))]
    layers = [node([boxes, scores, *thresholds], 1),
              node([boxes, scores, *thresholds], 3, "center", False, "i32"),
              node([boxes, scores, *thresholds[:2]], 4, output_type="i32")]
    xml = tmp_path / "legacy.xml"
    ov.save_model(ov.Model([ops1.result(n) for n in layers], [features], "legacy"), xml)
    reports = []
    for args in ([], ["--per-layer"]):
        capsys.readouterr()
        assert main(["compare", str(xml), *args, "--format", "json"]) == 0
        reports.append(json.loads(capsys.readouterr().out))
    end_to_end, per_layer = reports
    assert end_to_end["passed"] and end_to_end["not_checked"] == [] and len(end_to_end["outputs"]) == 3
    assert per_layer["passed"] and per_layer["not_checked"] == []
    assert {f"NonMaxSuppression@opset{v}" for v in (1, 3, 4)} <= {layer["type"] for layer in per_layer["layers"]}
