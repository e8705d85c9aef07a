"""ExperimentalDetectronPriorGridGenerator-6, ExperimentalDetectronROIFeatureExtractor-6 and
ExperimentalDetectronTopKROIs-6 (ops/detectron.py) against OpenVINO: shape rules, CPU kernels and rounding rules, with
the harness of tests/ops/conformance.py. OpenVINO's Python opsets hold none of them: NodeFactory builds them.

Kernels: 360 seeded cases (120 per op, a quarter f16), batched 90 to a model and compiled once per model for OpenVINO
CPU, every output bit for bit: grids of 0 to 12 cells a side, strides 0 (from the image) or given, both layouts, the h
and w attributes 0 or the feature map's, priors holding NaN, infinities, -0 and subnormals now and then; top
probabilities of 0 to 40 rois (probabilities distinct, or tied on equal rows), rois holding special values; pyramids of
1 to 4 levels and rois of every size (areas near the canonical level boundaries, of no area, off the image), output
sizes 1 to 7, sampling_ratio 0, 1, 2 or -1, aligned or not, levels holding NaN and infinities. Kernel refusals: what CPU
leaves unwritten or orders unstably. Shape rules: 300 seeded nodes per op (some 150 of them valid) on Parameters of
partial shapes (dynamic ranks, wrong ranks, intervals) and element types that may differ or not be real, with sizes of
-2 to 7, must give our rule's output, or both refuse. Rounding rules: inputs moved within their bounds move the exact
result by no more than the bound. One model through ``ir-tools compare``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.base.errors import UnsupportedError
from ir_tools.ops import attrs as A
from ir_tools.ops.detectron import PRIOR_GRID_GENERATOR_6 as GRID
from ir_tools.ops.detectron import ROI_FEATURE_EXTRACTOR_6 as FEATURES
from ir_tools.ops.detectron import TOP_K_ROIS_6 as TOP
from ir_tools.ops.rounding import EXACT

from .conformance import (
    Case,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    check_versions,
    openvino_outcome,
    our_outcome,
    parameters,
    pick,
    run_cases,
    show,
    tensor_types,
)
from .test_roi_align_conformance import shape_around

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 60606
PER_MODEL = 90
PRIOR_GRID, FEATURE_EXTRACTOR, TOP_K_ROIS = (f"ExperimentalDetectron{t}" for t in ("PriorGridGenerator",
                                                                                   "ROIFeatureExtractor", "TopKROIs"))
SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 1e-41, -3e-39], np.float32)


def ir_attrs(attrs: dict) -> dict[str, str]:
    """Attributes as the IR spells them."""
    def spell(v) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, list):
            return ",".join(map(str, v))
        return repr(v) if isinstance(v, float) else str(v)

    return {k: spell(v) for k, v in attrs.items()}


def node(op: str, attrs: dict, inputs: list[ov.Node]) -> ov.Node:
    return NodeFactory("opset6").create(op, [p.output(0) for p in inputs], attrs)


Drawn = tuple[str, dict, list[np.ndarray], str]  # (op, attributes, inputs, what)


def case(drawn: Drawn) -> Case:
    op, attrs, inputs, what = drawn
    return Case(f"{op[21:]} {what} {attrs}", inputs, lambda ps, op=op, attrs=attrs: node(op, attrs, ps), bits=True)


def _sprinkle(rng: np.random.Generator, x: np.ndarray, chance: float) -> np.ndarray:
    """Some of ``x`` (f32) set to NaN, infinities, -0 or subnormals."""
    spots = rng.random(x.shape) < chance
    return np.where(spots, SPECIALS[rng.integers(0, len(SPECIALS), x.shape)], x).astype(x.dtype)


# --- kernels -------------------------------------------------------------------------------------


def grid_case(rng: np.random.Generator, dtype) -> Drawn:
    count = int(rng.integers(0 if rng.random() < 0.05 else 1, 6))
    h, w = (int(rng.integers(0 if rng.random() < 0.05 else 1, 13)) for _ in range(2))
    priors = (rng.standard_normal((count, 4)) * float(pick(rng, [1.0, 30.0, 300.0]))).astype(np.float32)
    if rng.random() < 0.2:
        priors = _sprinkle(rng, priors, 0.2)
    attrs = {"flatten": bool(rng.random() < 0.5), "h": h if rng.random() < 0.2 else 0,
             "w": w if rng.random() < 0.2 else 0, "stride_x": float(pick(rng, [0.0, 0.0, 4.0, 16.0, 0.3, 7.7, -2.0])),
             "stride_y": float(pick(rng, [0.0, 0.0, 8.0, 32.0, 0.5, 3.3]))}
    image = (1, 1, *(int(n) for n in rng.integers(1, 800 if rng.random() < 0.3 else 24, 2)))
    inputs = [priors.astype(dtype), np.zeros((1, 2, h, w), dtype), np.zeros(image, dtype)]
    return PRIOR_GRID, attrs, inputs, f"{np.dtype(dtype).name} priors {count} grid {h}x{w} image {image}"


def distinct_probabilities(rng: np.random.Generator, count: int, dtype) -> np.ndarray:
    """``count`` probabilities distinct in ``dtype`` (multiples of 1/64 in f16), some beyond [0, 1] or infinite."""
    if np.dtype(dtype) == np.float16:
        probs = rng.permutation(64)[:count] / 64.0
    else:
        probs = rng.permutation(count) / max(count, 1) + rng.uniform(0, 0.5 / max(count, 1), count)
    if count > 2 and rng.random() < 0.3:
        probs[:2] = [np.inf, -np.inf]
    return probs.astype(dtype)


def top_case(rng: np.random.Generator, dtype) -> Drawn:
    count = int(rng.integers(0 if rng.random() < 0.05 else 1, 41))
    rois = (rng.standard_normal((count, 4)) * 100).astype(np.float32)
    if rng.random() < 0.2:
        rois = _sprinkle(rng, rois, 0.1)
    probs = distinct_probabilities(rng, count, dtype)
    if count > 3 and rng.random() < 0.3:  # equal rows of one probability: any order is the same
        rois[1] = rois[0]
        probs[1] = probs[0]
    attrs = {"max_rois": int(rng.integers(0, count + 1))}
    return TOP_K_ROIS, attrs, [rois.astype(dtype), probs], f"{np.dtype(dtype).name} {count} rois"


SCALES = [4, 8, 16, 32, 64]


def feature_rois(rng: np.random.Generator, count: int, size: np.ndarray) -> np.ndarray:
    """[count, 4] rois on an image of ``size`` (w, h): starts from 20% before to 10% past it, sides from 1 to twice
    the image; some squares of sides near 112, 224 and 448 (where the level changes), some of no or negative area."""
    start = rng.uniform(-0.2, 1.1, (count, 2)) * size
    sides = np.exp(rng.uniform(0.0, np.log(2 * size.max()), (count, 2)))
    near = rng.random(count) < 0.2
    sides[near] = (pick(rng, [112.0, 224.0, 448.0]) + rng.uniform(-1e-3, 1e-3, (int(near.sum()), 1)))
    sides[rng.random(count) < 0.1, 0] *= -float(rng.random())
    return np.concatenate([start, start + sides], 1).astype(np.float32)


def feature_case(rng: np.random.Generator, dtype) -> Drawn:
    levels = int(rng.integers(1, 5))
    first = int(rng.integers(0, len(SCALES) - levels + 1))
    scales = SCALES[first:first + levels]
    channels = int(rng.integers(1, 4))
    size = rng.integers(16, 240, 2).astype(np.float64)  # the image's (w, h)
    maps = []
    for s in scales:
        h, w = (max(1, int(np.ceil(n / s)) + int(rng.integers(-1, 2))) for n in size[::-1])
        x = (rng.standard_normal((1, channels, h, w)) * float(pick(rng, [1.0, 10.0, 0.01]))).astype(np.float32)
        maps.append(_sprinkle(rng, x, 0.05) if rng.random() < 0.1 else x)
    count = int(rng.integers(1, 9))
    attrs = {"output_size": int(rng.integers(1, 8)),
             "sampling_ratio": int(pick(rng, [0, 0, 1, 2, -1])), "pyramid_scales": scales,
             "aligned": bool(rng.random() < 0.5)}
    inputs = [feature_rois(rng, count, size).astype(dtype), *(m.astype(dtype) for m in maps)]
    return FEATURE_EXTRACTOR, attrs, inputs, f"{np.dtype(dtype).name} {count} rois on {[list(m.shape) for m in maps]}"


def kernel_cases(rng: np.random.Generator, per_op: int) -> list[Case]:
    return [case(make(rng, np.float16 if i % 4 == 3 else np.float32))
            for i in range(per_op) for make in (grid_case, top_case, feature_case)]


def test_kernels_are_cpus_to_the_bit(tmp_path: Path) -> None:
    cases = kernel_cases(np.random.default_rng(SEED), 120)
    failures = run_cases(cases, tmp_path, PER_MODEL)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])


def test_kernels_refuse_what_cpu_leaves_undefined() -> None:
    """Measured: a max_rois above the rois leaves CPU's rows past them unwritten (garbage); 40 rois of one
    probability come out of CPU's sort out of order; a grid attribute other than the feature map's writes fewer or
    more rows than the output holds; fewer pyramid_scales than levels crashed the process, so does output_size 0
    (SIGFPE)."""
    rois = np.arange(160, dtype=np.float32).reshape(40, 4)
    top = A.decode(TOP.attrs, {"max_rois": "5"})
    for probs in (np.full(40, 0.5, np.float32), np.r_[np.zeros(39), np.nan].astype(np.float32)):
        with pytest.raises(UnsupportedError):
            TOP.compute(top, [rois, probs])
    with pytest.raises(UnsupportedError):
        TOP.compute(top, [rois[:3], np.arange(3, dtype=np.float32)])
    priors, features, image = np.ones((2, 4), np.float32), np.zeros((1, 1, 4, 3), np.float32), np.zeros((1, 1, 16, 12))
    for raw in ({"h": "2"}, {"h": "5", "w": "3"}):
        with pytest.raises(UnsupportedError):
            GRID.compute(A.decode(GRID.attrs, raw), [priors, features, image.astype(np.float32)])
    for raw in ({"output_size": "2", "pyramid_scales": "4"}, {"output_size": "0", "pyramid_scales": "4,8"}):
        with pytest.raises(UnsupportedError):
            FEATURES.compute(A.decode(FEATURES.attrs, raw), [np.array([[0, 0, 200, 200]], np.float32), features,
                                                             features])  # (level 1)
        empty = FEATURES.compute(A.decode(FEATURES.attrs, raw), [np.zeros((1, 4), np.float32), features, features])
        assert not empty[0].any()  # (no roi of an area: none pooled, CPU runs it)


def test_input_bounds_move_through_the_rules() -> None:
    """Priors and levels moved anywhere within their bounds (a random sign per element) move the exact result by no
    more than the rule's bound with those input bounds (rois unmoved: their level may change)."""
    rng = np.random.default_rng(SEED + 2)
    for _ in range(40):
        for make, spec in ((grid_case, GRID), (feature_case, FEATURES)):
            _, attrs, inputs, what = make(rng, np.float32)
            if not all(np.isfinite(x).all() for x in inputs):
                continue
            scale = float(pick(rng, [1e-6, 1e-3, 1e-1]))
            bounds = [EXACT] + [np.abs(rng.standard_normal(x.shape)) * scale if rng.random() < 0.7 else EXACT
                                for x in inputs[1:]]
            if spec is GRID:
                bounds = [np.abs(rng.standard_normal(inputs[0].shape)) * scale, EXACT, EXACT]
            assert_bounds_carry_moves(spec, ir_attrs(attrs), inputs, bounds, rng, what)


# --- shape rules ---------------------------------------------------------------------------------


def _elements(rng: np.random.Generator, n: int) -> list[str | None]:
    first = pick(rng, ["f32"] * 4 + ["f16", None])
    return [first if rng.random() < 0.85 else pick(rng, ["f32", "f16", "i32", "boolean", None]) for _ in range(n)]


def shape_case(rng: np.random.Generator, op: str):
    count = int(rng.integers(0, 6))
    box = [count, 4 if rng.random() > 0.1 else int(pick(rng, [3, 5]))]
    if op == PRIOR_GRID:
        batch = int(rng.integers(1, 3))
        dims = [box, [batch, 3, *(int(n) for n in rng.integers(1, 6, 2))],
                [batch if rng.random() > 0.1 else 3, 3, 32, 32]]
        attrs = {"flatten": bool(rng.random() < 0.5), "h": 0, "w": 0, "stride_x": 0.0, "stride_y": 0.0}
    elif op == FEATURE_EXTRACTOR:
        channels = int(rng.integers(1, 4))
        dims = [box, *([1 if rng.random() > 0.1 else 2, channels if rng.random() > 0.1 else 5, 8, 8]
                       for _ in range(int(rng.integers(1, 4))))]
        attrs = {"output_size": int(pick(rng, [1, 2, 7, 0, -1, -2])), "sampling_ratio": 2,
                 "pyramid_scales": [4, 8, 16], "aligned": False}
    else:
        dims = [box, [count if rng.random() > 0.15 else int(rng.integers(0, 6))]]
        attrs = {"max_rois": int(pick(rng, [1, 3, 100, 0, -1, -2]))}
    shapes = [shape_around(rng, d) for d in dims]
    elements = _elements(rng, len(dims))
    what = f"{op} {attrs} " + " ".join(f"{e}{show(s)}" for e, s in zip(elements, shapes, strict=True))

    def theirs():
        return openvino_outcome(lambda: node(op, attrs, parameters(elements, shapes)))

    def ours():
        return our_outcome(op, "opset6", ir_attrs(attrs), tensor_types(elements, shapes), [None] * len(dims))

    return what, theirs, ours


@pytest.mark.parametrize("op", [PRIOR_GRID, FEATURE_EXTRACTOR, TOP_K_ROIS])
def test_shape_rules_agree(op: str) -> None:
    rng = np.random.default_rng([SEED, len(op)])
    assert_shapes_agree([shape_case(rng, op) for _ in range(300)])


def test_opset_versions(tmp_path: Path) -> None:
    rois, probs = ops1.parameter([3, 4], np.float32), ops1.parameter([3], np.float32)
    level, image = ops1.parameter([1, 2, 4, 4], np.float32), ops1.parameter([1, 2, 16, 16], np.float32)
    params = [rois, probs, level, image]
    nodes = {TOP_K_ROIS: node(TOP_K_ROIS, {"max_rois": 2}, [rois, probs]),
             PRIOR_GRID: node(PRIOR_GRID, {"flatten": True, "h": 0, "w": 0, "stride_x": 0.0, "stride_y": 0.0},
                              [rois, level, image]),
             FEATURE_EXTRACTOR: node(FEATURE_EXTRACTOR, {"output_size": 2, "sampling_ratio": 2,
                                                         "pyramid_scales": [4], "aligned": False}, [rois, level])}
    assert not check_versions(nodes, params, tmp_path)


def test_compare_checks_them(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Mask R-CNN's chain in small: a prior grid, its top rois by a score, their features on a two-level pyramid,
    compared end to end and per layer, nothing left unchecked."""
    rng = np.random.default_rng(SEED + 5)
    priors = ops1.constant((rng.standard_normal((3, 4)) * 8 + [0, 0, 16, 16]).astype(np.float32))
    p2, p3 = ops1.parameter([1, 4, 16, 16], np.float32, name="p2"), ops1.parameter([1, 4, 8, 8], np.float32, name="p3")
    image = ops1.parameter([1, 3, 64, 64], np.float32, name="image")
    grid = node(PRIOR_GRID, {"flatten": True, "h": 0, "w": 0, "stride_x": 4.0, "stride_y": 4.0}, [priors, p2, image])
    scores = ops1.parameter([768], np.float32, name="scores")
    top = node(TOP_K_ROIS, {"max_rois": 20}, [grid, scores])
    features = node(FEATURE_EXTRACTOR, {"output_size": 3, "sampling_ratio": 2, "pyramid_scales": [4, 8],
                                        "aligned": False}, [top, p2, p3])
    xml = tmp_path / "detectron.xml"
    ov.save_model(ov.Model([ops1.result(features.output(0))], [p2, p3, image, scores], "detectron"), xml)
    assert_compare_passes(xml, capsys, {f"{t}@opset6" for t in (PRIOR_GRID, TOP_K_ROIS, FEATURE_EXTRACTOR)},
                          outputs=1)
