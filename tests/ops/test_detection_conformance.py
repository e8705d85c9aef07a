"""ReorgYolo-2, RegionYolo-1, PriorBoxClustered-1, PriorBox-1, PriorBox-8, DetectionOutput-1 and DetectionOutput-8
(ops/detection.py) against OpenVINO: shape rules and CPU kernels.

Kernels: ReorgYolo, 160 seeded cases (strides 1 to 3, f32 with NaN, infinities, -0 and subnormals, f16, i32 within
2^24, i8, u8) batched 40 to a model, bit for bit. RegionYolo, 160 seeded cases (YOLO v2 with do_softmax and YOLO v3
with a mask, coords 2 to 4, classes 0 to 6, f32 and f16, values up to +-30 and the special values, class scores
within 80 of each other and finite: module doc), 40 to a model, within the rounding rule (Sigmoid-1's on the
logistic entries, SoftMax-8's and CPU's max on the classes, exact elsewhere); its propagation on 20 moved inputs.
PriorBoxClustered, 120 cases, and PriorBox-1 and -8, 120 cases (SSD's min and max sizes, aspect ratios, flip, clip,
steps of 0, -1 and others, MXNet's scale_all_sizes false, fixed sizes with densities and fixed ratios, variances of
0, 1 and 4 values; image dims of 0 too), 60 to a model, bit for bit, a third of them (and PriorBox-8 of
min_max_aspect_ratios_order false) of Constant sizes, which OpenVINO folds by its reference. DetectionOutput-1 and -8,
300 seeded cases (``kernel_case``: Caffe's and MXNet's ways, both code types, variances in the target or not,
normalized or in pixels with prior boxes of image id -1, clipping, share_location, backgrounds, top_k and keep_top_k
cutting or not, 3 or 5 inputs, f32 and f16; scores on a grid meeting ties and thresholds exactly, NMS's overlaps kept
off its threshold by the rounding rule's error) 100 to a model, within the rounding rule. Shape rules: 400 seeded
Parameters of partial shapes and element types (dynamic ones too) per YOLO op, 450 of the priors (output sizes
Constants or not), 300 of DetectionOutput, against OpenVINO's inference. ``check_versions``: opset1 (ReorgYolo read
from opset2) to opset16. Three models through ``compare``, end to end and per layer.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset2 as ops2
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.ops import attrs as A
from ir_tools.ops.detection import DETECTION_OUTPUT_1, DETECTION_OUTPUT_8, REGION_YOLO_1, exact_boxes

from .conformance import (
    ELEMENTS,
    TINY,
    Case,
    Operand,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    check_versions,
    openvino_outcome,
    our_outcome,
    parameters,
    partial_shape,
    pick,
    random_bounds,
    rule_limits,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 8484
CASES_PER_MODEL = 40
SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, TINY / 4, -TINY / 4, 88.0, -88.0, -104.0], np.float32)
REORG_TYPES = (np.float32, np.float16, np.int32, np.int8, np.uint8)


def _sprinkle(rng: np.random.Generator, x: np.ndarray, share: float) -> np.ndarray:
    """``x`` with a ``share`` of its elements the special values (in its float type)."""
    flat = x.reshape(-1)
    at = rng.random(flat.size) < share
    flat[at] = rng.choice(SPECIALS, int(at.sum())).astype(x.dtype)
    return x


def reorg_case(rng: np.random.Generator, i: int) -> Case:
    dtype = REORG_TYPES[i % len(REORG_TYPES)]
    s = int(rng.integers(1, 4))
    shape = [int(rng.integers(1, 3)), s * s * int(rng.integers(1, 4)), s * int(rng.integers(1, 4)),
             s * int(rng.integers(1, 4))]
    if np.dtype(dtype).kind == "f":
        x = _sprinkle(rng, (rng.standard_normal(shape) * 10).astype(dtype), 0.05)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(max(info.min, -(2**24)), min(info.max, 2**24), shape, dtype=dtype, endpoint=True)
    return Case(f"ReorgYolo stride {s} {x.dtype}{shape}", [x], lambda p, s=s: ops2.reorg_yolo(p[0], [s]), bits=True)


def region_raw(rng: np.random.Generator, softmax: bool) -> dict[str, str]:
    coords, classes = int(rng.integers(2, 5)), int(rng.integers(0, 7))
    num = int(rng.integers(1, 6 if softmax else 9))
    mask = sorted(rng.choice(num, int(rng.integers(1, num + 1)), replace=False).tolist())
    axis, end_axis = (1, 3) if rng.random() < 0.7 else (int(rng.integers(-4, 4)), int(rng.integers(-4, 4)))
    return {"coords": str(coords), "classes": str(classes), "num": str(num),
            "do_softmax": "true" if softmax else "false", "mask": ",".join(map(str, mask)), "axis": str(axis),
            "end_axis": str(end_axis), "anchors": ",".join(f"{v:g}" for v in rng.uniform(1, 50, 2 * num))}


def region_node(p: ov.Node, raw: dict[str, str]) -> ov.Node:
    mask = [int(v) for v in raw["mask"].split(",")]
    return ops1.region_yolo(p, int(raw["coords"]), int(raw["classes"]), int(raw["num"]), raw["do_softmax"] == "true",
                            mask, int(raw["axis"]), int(raw["end_axis"]), [float(v) for v in raw["anchors"].split(",")])


def region_case(rng: np.random.Generator, i: int) -> Case:
    raw = region_raw(rng, i % 2 == 0)
    attrs = A.decode(REGION_YOLO_1.attrs, raw)
    regions = attrs.num if attrs.do_softmax else len(attrs.mask)
    shape = [int(rng.integers(1, 3)), regions * (attrs.coords + attrs.classes + 1), int(rng.integers(1, 6)),
             int(rng.integers(1, 6))]
    dtype = (np.float32, np.float32, np.float16)[i % 3]
    x = _sprinkle(rng, (rng.standard_normal(shape) * rng.choice([1.0, 5.0, 30.0])).astype(dtype), 0.02)
    if attrs.do_softmax:  # class scores within 80 of each other, finite: CPU's max is not the row's (module doc)
        scores = x.reshape(shape[0], regions, -1, *shape[2:])[:, :, attrs.coords + 1:]
        scores[...] = np.clip(np.nan_to_num(scores, posinf=40, neginf=-40), -40, 40)
    return Case(f"RegionYolo {raw} {x.dtype}{shape}", [x], lambda p, raw=raw: region_node(p[0], raw),
                rule_limits(REGION_YOLO_1, raw, [x]))


@pytest.mark.parametrize("part", range(4))
def test_reorg_bit_for_bit(part: int, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, part])
    assert_all_pass([reorg_case(rng, i) for i in range(CASES_PER_MODEL)], tmp_path)


@pytest.mark.parametrize("part", range(4))
def test_region_within_the_rule(part: int, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, 10 + part])
    assert_all_pass([region_case(rng, i) for i in range(CASES_PER_MODEL)], tmp_path)


def test_region_bound_carries_moves() -> None:
    rng = np.random.default_rng([SEED, 20])
    for i in range(20):
        raw = region_raw(rng, i % 2 == 0)
        attrs = A.decode(REGION_YOLO_1.attrs, raw)
        regions = attrs.num if attrs.do_softmax else len(attrs.mask)
        shape = (1, regions * (attrs.coords + attrs.classes + 1), 3, 2)
        x = (rng.standard_normal(shape) * 4).astype(np.float32)
        bound = np.abs(x) * rng.uniform(0, 1e-3, shape)
        assert_bounds_carry_moves(REGION_YOLO_1, raw, [x], [bound], rng, raw)


def test_reorg_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 30])
    cases = []
    for _ in range(400):
        stride = pick(rng, [[1], [2], [3], [2, 5], []])
        lengths = [int(rng.integers(0, 13)) for _ in range(int(rng.integers(3, 6)))]
        shape = None if rng.random() < 0.1 else random_bounds(rng, lengths)
        element = pick(rng, ["f32", "f16", "i32", "u8", "boolean", None])

        def theirs(shape=shape, element=element, stride=stride):
            return openvino_outcome(lambda: ops2.reorg_yolo(ops1.parameter(partial_shape(shape), ELEMENTS[element]),
                                                            stride))

        def ours(shape=shape, element=element, stride=stride):
            return our_outcome("ReorgYolo", "opset2", {"stride": ",".join(map(str, stride))},
                               tensor_types([element], [shape]), [None])

        cases.append((f"ReorgYolo {stride} {element}{show(shape)}", theirs, ours))
    assert_shapes_agree(cases)


def test_region_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 31])
    cases = []
    for _ in range(400):
        raw = region_raw(rng, rng.random() < 0.5)
        if rng.random() < 0.3:
            raw |= {"axis": str(int(rng.integers(-5, 5))), "end_axis": str(int(rng.integers(-5, 5)))}
        lengths = [int(rng.integers(0, 13)) for _ in range(int(rng.integers(3, 6)))]
        shape = None if rng.random() < 0.1 else random_bounds(rng, lengths)
        element = pick(rng, ["f32", "f16", "bf16", "f64", "i32", "boolean", None])

        def theirs(shape=shape, element=element, raw=raw):
            return openvino_outcome(lambda: region_node(ops1.parameter(partial_shape(shape), ELEMENTS[element]), raw))

        def ours(shape=shape, element=element, raw=raw):
            return our_outcome("RegionYolo", "opset1", raw, tensor_types([element], [shape]), [None])

        cases.append((f"RegionYolo {raw} {element}{show(shape)}", theirs, ours))
    assert_shapes_agree(cases)


def test_opsets(tmp_path: Path) -> None:
    p = ops1.parameter([1, 8, 4, 4], np.float32)
    sizes = ops1.constant(np.array([2, 2], np.int64))
    nodes = {"ReorgYolo": ops2.reorg_yolo(p, [2]),
             "RegionYolo": ops1.region_yolo(p, 2, 1, 2, True, [0], 1, 3),
             "PriorBox": prior_node([sizes, sizes], {"min_size": "2"}, 1),
             "PriorBoxClustered": clustered_node([sizes, sizes], {"width": "2", "height": "2"})}
    assert check_versions(nodes, [p], tmp_path) == []


def test_compare_checks_them(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A YOLO v2 tail (Convolution -> ReorgYolo -> RegionYolo) compared by ``compare``, end to end and per layer."""
    rng = np.random.default_rng(3)
    x = ops1.parameter([1, 4, 8, 8], np.float32, name="x")
    w = ops1.constant((rng.standard_normal((8, 4, 1, 1)) * 0.5).astype(np.float32))
    conv = ops1.convolution(x, w, [1, 1], [0, 0], [0, 0], [1, 1])
    reorg = ops2.reorg_yolo(conv, [2])  # [1, 32, 4, 4]: 2 regions of coords 4, classes 11
    y = ops1.region_yolo(reorg, 4, 11, 2, True, [0, 1], 1, 3)
    xml = tmp_path / "yolo.xml"
    ov.save_model(ov.Model([ops1.result(y)], [x], "yolo"), xml)
    assert_compare_passes(xml, capsys, {"ReorgYolo@opset2", "RegionYolo@opset1"}, outputs=1)


def clustered_raw(rng: np.random.Generator) -> dict[str, str]:
    n = int(rng.integers(0, 5))
    steps = [pick(rng, [0.0, 0.0, float(rng.integers(1, 20)), float(np.float32(rng.uniform(0.5, 30)))])
             for _ in range(3)]
    return {"width": ",".join(f"{v:.6g}" for v in rng.uniform(0.5, 80, n)),
            "height": ",".join(f"{v:.6g}" for v in rng.uniform(0.5, 80, n)),
            "clip": pick(rng, ["true", "false"]), "step": f"{steps[0]:.7g}", "step_w": f"{steps[1]:.7g}",
            "step_h": f"{steps[2]:.7g}", "offset": pick(rng, ["0.5", "0", f"{rng.uniform(0, 1):.7g}"]),
            "variance": ",".join(f"{v:.6g}" for v in rng.uniform(0.05, 0.3, pick(rng, [0, 1, 4])))}


def floats_of(text: str) -> list[float]:
    return [float(v) for v in text.split(",")] if text else []


def clustered_node(ps: list[ov.Node], raw: dict[str, str]) -> ov.Node:
    """By NodeFactory, which takes every value the IR can hold (opset1's function refuses steps of 0)."""
    attrs = {k: (floats_of(v) if k in ("width", "height", "variance") else v == "true" if k == "clip" else float(v))
             for k, v in raw.items()}
    return NodeFactory("opset1").create("PriorBoxClustered", [p.output(0) for p in ps], attrs)


def clustered_case(rng: np.random.Generator, i: int) -> Case:
    """Output and image sizes as Parameters (CPU's node) or, one case in three, Constants (folded by OpenVINO's
    reference when it compiles), i32 or i64."""
    raw = clustered_raw(rng)
    dtype = (np.int32, np.int64)[i % 2]
    h, w = (int(v) for v in rng.integers(1, 9, 2))
    image = np.array([h, w], dtype) * rng.integers(1, 40, 2).astype(dtype) + rng.integers(0, 5, 2).astype(dtype)
    if i % 10 == 1:  # (an image dim of 0: divisions by zero, infinities and NaN)
        image[int(rng.integers(0, 2))] = 0
    inputs = [np.array([h, w], dtype), image]
    return Case(f"PriorBoxClustered {raw} {inputs}", inputs, lambda ps, raw=raw: clustered_node(ps, raw),
                consts=(0, 1) if i % 3 == 0 else (), bits=True)


@pytest.mark.parametrize("part", range(2))
def test_clustered_bit_for_bit(part: int, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, 40 + part])
    assert_all_pass([clustered_case(rng, i) for i in range(60)], tmp_path)


PRIOR_LISTS = ("min_size", "max_size", "aspect_ratio", "density", "fixed_ratio", "fixed_size", "variance")


def prior_raw(rng: np.random.Generator, version: int) -> dict[str, str]:
    """PriorBox attributes of SSD's forms (min and max sizes, aspect ratios, flip) and the fixed-size ones (densities,
    fixed ratios), values of 6 significant digits (what OpenVINO's serializer writes of a list of floats)."""
    def values(lo: float, hi: float, n: int) -> str:
        return ",".join(f"{v:.6g}" for v in rng.uniform(lo, hi, n))

    fixed = rng.random() < 0.3
    n = int(rng.integers(1, 4))
    raw = {"min_size": values(2, 60, n), "max_size": values(60, 120, pick(rng, [0, n, n - 1])),
           "aspect_ratio": ",".join(str(v) for v in rng.choice([2.0, 3.0, 0.5, 1.5, 1.0], int(rng.integers(0, 3)),
                                                                replace=False)),
           "density": "", "fixed_ratio": "", "fixed_size": "",
           "clip": pick(rng, ["true", "false"]), "flip": pick(rng, ["true", "false"]),
           "step": pick(rng, ["0", "8", "16", f"{rng.uniform(1, 30):.7g}"]), "offset": pick(rng, ["0.5", "0"]),
           "variance": values(0.05, 0.3, pick(rng, [0, 1, 4])), "scale_all_sizes": pick(rng, ["true", "true", "false"])}
    if raw["scale_all_sizes"] == "false":  # (max_size is not counted then: OpenVINO writes past the output)
        raw |= {"min_size": values(0.05, 0.5, n), "max_size": "", "step": pick(rng, ["-1", "0.05", "0"])}
    if fixed:  # (min_size boxes, or fixed ratios other than one per aspect ratio, are not counted either)
        k = int(rng.integers(1, 3))
        raw |= {"min_size": "", "max_size": "", "fixed_size": ",".join(str(v) for v in rng.integers(4, 40, k)),
                "density": ",".join(str(v) for v in rng.integers(1, 4, k))}
        if rng.random() < 0.4:
            raw |= {"aspect_ratio": "", "fixed_ratio": pick(rng, ["1", "2", "0.5"])}
    if version == 8:
        raw["min_max_aspect_ratios_order"] = pick(rng, ["true", "false"])
    return raw


def prior_node(ps: list[ov.Node], raw: dict[str, str], version: int) -> ov.Node:
    attrs = {k: (floats_of(v) if k in PRIOR_LISTS else v == "true" if v in ("true", "false") else float(v))
             for k, v in raw.items()}
    return NodeFactory(f"opset{version}").create("PriorBox", [p.output(0) for p in ps], attrs)


def prior_case(rng: np.random.Generator, i: int) -> Case:
    """PriorBox-1 and -8 in turn, sizes as Parameters (CPU's node) or, one case in three and every PriorBox-8 of
    min_max_aspect_ratios_order false (CPU compiles it folded only), Constants (folded by OpenVINO's reference), i32
    or i64."""
    version = (1, 8)[i % 2]
    raw = prior_raw(rng, version)
    dtype = (np.int32, np.int64)[i // 2 % 2]
    h, w = (int(v) for v in rng.integers(1, 7, 2))
    image = np.array([h, w], dtype) * rng.integers(1, 40, 2).astype(dtype) + rng.integers(0, 5, 2).astype(dtype)
    inputs = [np.array([h, w], dtype), image]
    return Case(f"PriorBox-{version} {raw} {inputs}", inputs, lambda ps, raw=raw, v=version: prior_node(ps, raw, v),
                consts=(0, 1) if i % 3 == 0 or raw.get("min_max_aspect_ratios_order") == "false" else (), bits=True)


@pytest.mark.parametrize("part", range(2))
def test_prior_box_bit_for_bit(part: int, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, 60 + part])
    assert_all_pass([prior_case(rng, i) for i in range(60)], tmp_path)


def size_operands(rng: np.random.Generator) -> list[Operand]:
    """Output size and image size: Parameters of partial shapes and element types, or Constants (of two values or
    not)."""
    operands = []
    for _ in range(2):
        element = pick(rng, ["i32", "i64", "u8", "f32", "boolean", None])
        if rng.random() < 0.4 and element in ("i32", "i64", "u8"):
            operands.append(Operand(element, value=[int(v) for v in rng.integers(0, 9, pick(rng, [2, 2, 2, 1, 3]))]))
        else:
            lengths = [int(rng.integers(0, 4)) for _ in range(pick(rng, [1, 1, 1, 0, 2]))]
            operands.append(Operand(element, None if rng.random() < 0.1 else random_bounds(rng, lengths)))
    return operands


def test_prior_shape_rules_agree() -> None:
    """PriorBoxClustered-1, PriorBox-1 and PriorBox-8 (attributes of every form, densities and fixed ratios of any
    count too) on ``size_operands``, against OpenVINO's inference."""
    rng = np.random.default_rng([SEED, 50])
    cases = []
    for i in range(450):
        version = (0, 1, 8)[i % 3]
        if version == 0:
            raw = clustered_raw(rng)
            if rng.random() < 0.1:
                raw["height"] = raw["height"] + ",3" if raw["height"] else "3"
        else:
            raw = prior_raw(rng, version)
            if rng.random() < 0.3:
                raw |= {"density": "2,1.5", "fixed_ratio": pick(rng, ["", "1,2,3"])}
        operands = size_operands(rng)

        def theirs(operands=operands, raw=raw, version=version):
            ps = [o.node() for o in operands]
            return openvino_outcome(lambda: clustered_node(ps, raw) if version == 0 else prior_node(ps, raw, version))

        def ours(operands=operands, raw=raw, version=version):
            types, values = zip(*(o.ours() for o in operands), strict=True)
            return our_outcome("PriorBoxClustered" if version == 0 else "PriorBox", f"opset{max(version, 1)}", raw,
                               list(types), list(values))

        cases.append((f"PriorBox{version or 'Clustered'} {raw} {[str(o) for o in operands]}", theirs, ours))
    assert_shapes_agree(cases)


def test_compare_checks_the_priors(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """An SSD head's priors (PriorBox-1, PriorBox-8 and PriorBoxClustered-1 of a feature map's and the image's dims,
    ShapeOf and StridedSlice: OpenVINO folds them by its reference) compared by ``compare``, end to end and per layer
    (the CPU's own nodes, fed by Parameters, are the kernel cases')."""
    x = ops1.parameter([1, 3, 40, 30], np.float32, name="x")
    feature = ops1.max_pool(x, [4, 4], [0, 0], [0, 0], [4, 4])

    def dims(node: ov.Node) -> ov.Node:
        return ops1.strided_slice(ops1.shape_of(node), ops1.constant(np.array([2], np.int64)),
                                  ops1.constant(np.array([4], np.int64)), ops1.constant(np.array([1], np.int64)),
                                  [0], [0])

    raw = {"min_size": "21", "max_size": "45", "aspect_ratio": "2,3", "clip": "false", "flip": "true", "step": "8",
           "offset": "0.5", "variance": "0.1,0.1,0.2,0.2"}
    fixed = {"fixed_size": "21", "density": "2", "step": "8", "offset": "0.5"}
    clustered = {"width": "10.5,30", "height": "20,14.5", "clip": "false", "step": "0", "step_w": "0", "step_h": "0",
                 "offset": "0.5", "variance": "0.1,0.1,0.2,0.2"}
    outputs = [prior_node([dims(feature), dims(x)], raw, 1), prior_node([dims(feature), dims(x)], fixed, 8),
               clustered_node([dims(feature), dims(x)], clustered)]
    xml = tmp_path / "priors.xml"
    ov.save_model(ov.Model([ops1.result(o) for o in outputs], [x], "priors"), xml)
    assert_compare_passes(xml, capsys, {"PriorBox@opset1", "PriorBox@opset8", "PriorBoxClustered@opset1"}, outputs=3)


def detection_raw(rng: np.random.Generator, version: int) -> dict[str, str]:
    raw = {"keep_top_k": pick(rng, ["200", "-1", "0", "100,50"]), "top_k": pick(rng, ["-1", "400", "0"]),
           "share_location": pick(rng, ["true", "true", "false"]), "normalized": pick(rng, ["true", "false"]),
           "variance_encoded_in_target": pick(rng, ["false", "false", "true"]),
           "code_type": pick(rng, ["caffe.PriorBoxParameter.CENTER_SIZE"] * 8 + ["caffe.PriorBoxParameter.CORNER"] * 3
                             + ["corner"]),
           "nms_threshold": "0.45", "confidence_threshold": "0.01", "background_label_id": "0"}
    if version == 1:
        raw["num_classes"] = str(pick(rng, [1, 2, 3, 21, 0]))
    return raw


def detection_node(ps: list[ov.Node], raw: dict[str, str], version: int) -> ov.Node:
    attrs = {k: ([int(v) for v in value.split(",")] if k == "keep_top_k" else value == "true"
                 if value in ("true", "false") else value if k == "code_type" else float(value)
                 if "threshold" in k or k == "objectness_score" else int(value)) for k, value in raw.items()}
    return NodeFactory(f"opset{version}").create("DetectionOutput", [p.output(0) for p in ps], attrs)


def detection_shapes(rng: np.random.Generator, raw: dict[str, str], spoil: bool = True) -> list[list[int]]:
    """Consistent input lengths for ``raw`` (which an inconsistent choice then spoils, one case in seven where
    ``spoil``)."""
    images, priors = int(rng.integers(1, 4)), int(rng.integers(1, 9))
    classes = int(raw.get("num_classes", rng.integers(1, 5))) or 2
    size = 4 if raw["normalized"] == "true" else 5
    locations = 1 if raw["share_location"] == "true" else classes
    lengths = [[images, priors * locations * 4], [images, priors * classes],
               [pick(rng, [1, images]), 1 if raw["variance_encoded_in_target"] == "true" else 2, priors * size],
               [images, priors * 2], [images, priors * locations * 4]]
    if spoil and rng.random() < 0.15:
        bad = lengths[int(rng.integers(0, 5))]
        bad[int(rng.integers(0, len(bad)))] += int(rng.integers(1, 3))
    return lengths


def detection_output_case(rng: np.random.Generator, i: int) -> Case:
    """The stored answers' cases (scripts/make_answers.py): ``kernel_case``'s, whose CPU values the kernel is judged
    on."""
    return kernel_case(rng, i)


def test_detection_output_shape_rules_agree() -> None:
    """DetectionOutput-1 and -8, 3 or 5 inputs of partial shapes around consistent lengths (some spoilt), element
    types real or not, against OpenVINO's inference."""
    rng = np.random.default_rng([SEED, 70])
    cases = []
    for i in range(300):
        version = (1, 8)[i % 2]
        raw = detection_raw(rng, version)
        n = pick(rng, [3, 5])
        lengths = detection_shapes(rng, raw)[:n]
        shapes = [None if rng.random() < 0.08 else random_bounds(rng, dims) if rng.random() < 0.3
                  else tuple((d, d) for d in dims) for dims in lengths]
        element = pick(rng, ["f32"] * 4 + ["f16", "i32", None])
        elements = [element if rng.random() < 0.95 else pick(rng, ["f32", "f16", None]) for _ in range(n)]

        def theirs(shapes=shapes, elements=elements, raw=raw, version=version):
            return openvino_outcome(lambda: detection_node(parameters(elements, shapes), raw, version))

        def ours(shapes=shapes, elements=elements, raw=raw, version=version):
            return our_outcome("DetectionOutput", f"opset{version}", raw, tensor_types(elements, shapes),
                               [None] * len(shapes))

        cases.append((f"DetectionOutput-{version} {raw} {elements} {[show(s) for s in shapes]}", theirs, ours))
    assert_shapes_agree(cases)


#: Class and ARM scores are drawn from this grid (exact in f16 and f32), and the thresholds are its points too: ties,
#: and scores equal to a threshold (> for Caffe's filter, >= for MXNet's, < for objectness), are met exactly.
SCORES = np.arange(33) / 32


def kernel_raw(rng: np.random.Generator, version: int) -> dict[str, str]:
    """DetectionOutput attributes of every form the kernel models: Caffe's and MXNet's (decrease_label_id), both code
    types, variances in the target or the proposals, normalized or in pixels of input_height/width, clipping before
    and after NMS, share_location, backgrounds (-1 too), top_k and keep_top_k cutting or not."""
    decrease = rng.random() < 0.25
    raw = {"keep_top_k": pick(rng, ["-1", "-1", "3", "8", "200", "0", "-2"]),
           "top_k": pick(rng, ["-1", "-1", "-1", "1", "3", "50", "0", "-2"]),
           "share_location": pick(rng, ["true", "true", "false"]), "normalized": pick(rng, ["true", "true", "false"]),
           "variance_encoded_in_target": pick(rng, ["false", "false", "true"]),
           "code_type": pick(rng, ["caffe.PriorBoxParameter.CENTER_SIZE"] * 2 + ["caffe.PriorBoxParameter.CORNER"]),
           "nms_threshold": pick(rng, ["0.3", "0.45", "0.6", "0.8"]),
           "confidence_threshold": pick(rng, ["0", "0.25", "0.5", "0.75"]),
           "background_label_id": "0" if decrease else pick(rng, ["0", "0", "-1", "1"]),
           "decrease_label_id": "true" if decrease else "false",
           "clip_before_nms": pick(rng, ["true", "false"]), "clip_after_nms": pick(rng, ["true", "false"]),
           "input_height": pick(rng, ["300", "200"]), "input_width": pick(rng, ["300", "512"]),
           "objectness_score": pick(rng, ["0", "0.25", "0.5"])}
    if version == 1:
        raw["num_classes"] = "0"  # (set by ``kernel_case`` from the classes drawn)
    return raw


def kernel_inputs(rng: np.random.Generator, raw: dict[str, str], images: int, priors: int, classes: int,
                  arm: bool) -> list[np.ndarray]:
    """Box logits, class predictions and proposals (prior boxes of centres in [0.1, 0.9] and sides in [0.1, 0.5] of the
    image, in pixels with an image id where not normalized: -1 at a prior box now and then, which ends the boxes
    CPU counts), and with ``arm`` the ARM's class and box predictions. Scores from ``SCORES``, distinct among a
    prior box's classes (so that no keep_top_k cut meets a tie of one prior box in two classes: CPU's std::sort
    leaves their order unspecified)."""
    normalized = raw["normalized"] == "true"
    locations = 1 if raw["share_location"] == "true" else classes
    batches = pick(rng, [1, images])
    centre, side = rng.uniform(0.1, 0.9, (batches, priors, 2)), rng.uniform(0.1, 0.5, (batches, priors, 2))
    boxes = np.concatenate([centre - side / 2, centre + side / 2], axis=-1)
    variances = np.broadcast_to([0.1, 0.1, 0.2, 0.2] if rng.random() < 0.5 else
                                rng.uniform(0.05, 0.3, (batches, priors, 4)), (batches, priors, 4)).reshape(batches, -1)
    if raw["code_type"].endswith("CORNER"):
        scale = 0.02 if raw["variance_encoded_in_target"] == "true" else 0.1
    else:
        scale = 0.3 if raw["variance_encoded_in_target"] == "true" else 1.0
    if not normalized:
        boxes = boxes * np.array([int(raw["input_width"]), int(raw["input_height"])] * 2)
        ids = np.zeros((batches, priors, 1))
        if rng.random() < 0.3:
            ids[int(rng.integers(0, batches)), int(rng.integers(1, priors)):, 0] = -1
        boxes = np.concatenate([ids, boxes], axis=-1)
        variances = np.concatenate([variances, np.zeros((batches, priors))], axis=-1)  # (CPU reads the first 4 P)
    planes = [boxes.reshape(batches, -1)] if raw["variance_encoded_in_target"] == "true" else \
        [boxes.reshape(batches, -1), variances]
    proposals = np.stack(planes, axis=1)
    conf = np.stack([np.stack([rng.choice(SCORES, classes, replace=False) for _ in range(priors)])
                     for _ in range(images)])
    inputs = [rng.normal(0, scale, (images, priors * locations * 4)), conf.reshape(images, -1), proposals]
    if arm:
        inputs += [rng.choice(SCORES, (images, priors * 2)), rng.normal(0, scale / 2, (images, priors * locations * 4))]
    return [x.astype(np.float32) for x in inputs]


def overlaps_decided(attrs, inputs: list[np.ndarray]) -> bool:
    """Whether every overlap NMS may compute (any two prior boxes of a location class) is on the same side of
    nms_threshold for any boxes within the rounding rule's error of the exact ones (``exact_boxes``): the interval of
    the overlap over those boxes (the intersection's sides grown or shrunk by the errors, the boxes' areas likewise),
    widened by 1e-5 for the f32 arithmetic of the overlap itself, does not hold the threshold."""
    boxes, errors = exact_boxes(attrs, inputs)
    boxes, errors = boxes.reshape(-1, boxes.shape[2], 4), errors.reshape(-1, boxes.shape[2], 4)
    threshold = float(np.float32(attrs.nms_threshold))
    for b, e in zip(boxes, errors, strict=True):
        lo, hi = b - e, b + e  # each coordinate's interval
        i, j = np.triu_indices(len(b), 1)
        wide = [np.maximum(np.minimum(hi[i, k + 2], hi[j, k + 2]) - np.maximum(lo[i, k], lo[j, k]), 0) for k in (0, 1)]
        narrow = [np.maximum(np.minimum(lo[i, k + 2], lo[j, k + 2]) - np.maximum(hi[i, k], hi[j, k]), 0)
                  for k in (0, 1)]
        big = (hi[:, 2] - lo[:, 0]) * (hi[:, 3] - lo[:, 1])
        small = np.maximum(lo[:, 2] - hi[:, 0], 0) * np.maximum(lo[:, 3] - hi[:, 1], 0)
        most = wide[0] * wide[1] / np.maximum(small[i] + small[j] - wide[0] * wide[1], 1e-30)
        least = narrow[0] * narrow[1] / (big[i] + big[j] - narrow[0] * narrow[1])
        if np.any((least * (1 - 1e-5) <= threshold) & (threshold <= most * (1 + 1e-5) + 1e-30)):
            return False
    return True


def kernel_case(rng: np.random.Generator, i: int) -> Case:
    """DetectionOutput-1 and -8 in turn (``kernel_raw``), 3 or 5 inputs (``kernel_inputs``) of 1 to 3 images, 2 to 10
    prior boxes and 1 to 5 classes, f32 or (one case in four) f16, redrawn until NMS's choices are decided
    (``overlaps_decided``): OpenVINO's output within the rounding rule (coordinates: the decoding's rounding; image
    ids, labels and scores exact)."""
    version = (1, 8)[i % 2]
    spec = DETECTION_OUTPUT_1 if version == 1 else DETECTION_OUTPUT_8
    images, priors, classes = int(rng.integers(1, 4)), int(rng.integers(2, 11)), pick(rng, [1, 2, 3, 4, 5] * 2 + [3, 4])
    raw = kernel_raw(rng, version)
    if int(raw["keep_top_k"]) in (0, -2) and int(raw["top_k"]) > 0:  # (CPU writes top_k rows per class: refused)
        raw["top_k"] = str(priors)
    if version == 1:
        raw["num_classes"] = str(classes)
    arm = rng.random() < 0.3
    while True:
        inputs = kernel_inputs(rng, raw, images, priors, classes, arm)
        if overlaps_decided(A.decode(spec.attrs, raw), inputs):
            break
    if i % 4 == 3:
        inputs = [x.astype(np.float16) for x in inputs]
    return Case(f"DetectionOutput-{version} {raw} {images}x{priors}x{classes}{' ARM' if arm else ''}", inputs,
                lambda ps, raw=raw, v=version: detection_node(ps, raw, v), rule_limits(spec, raw, inputs))


@pytest.mark.parametrize("part", range(3))
def test_detection_output_within_the_rule(part: int, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, 80 + part])
    assert_all_pass([kernel_case(rng, i) for i in range(100)], tmp_path)


def test_compare_checks_detection_output(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """An SSD head (class scores through SoftMax, DetectionOutput-1 on Constant proposals) compared by ``compare``, end
    to end and per layer: DetectionOutput is checked."""
    rng = np.random.default_rng(4)
    box, scores = ops1.parameter([1, 32], np.float32, name="box"), ops1.parameter([1, 8, 3], np.float32, name="scores")
    probabilities = ops1.softmax(scores, 2)
    centre, side = rng.uniform(0.2, 0.8, (8, 2)), rng.uniform(0.1, 0.4, (8, 2))
    priors = np.concatenate([centre - side / 2, centre + side / 2], axis=-1).reshape(-1)
    proposals = ops1.constant(np.stack([priors, np.tile([0.1, 0.1, 0.2, 0.2], 8)])[None].astype(np.float32))
    raw = {"keep_top_k": "10", "num_classes": "3", "normalized": "true", "nms_threshold": "0.45",
           "confidence_threshold": "0.01", "code_type": "caffe.PriorBoxParameter.CENTER_SIZE"}
    flat = ops1.reshape(probabilities, ops1.constant(np.array([1, 24], np.int64)), False)
    detections = detection_node([box, flat, proposals], raw, 1)
    xml = tmp_path / "ssd.xml"
    ov.save_model(ov.Model([ops1.result(detections), ops1.result(probabilities)], [box, scores], "ssd"), xml)
    assert_compare_passes(xml, capsys, {"DetectionOutput@opset1", "SoftMax@opset1"}, outputs=2)
