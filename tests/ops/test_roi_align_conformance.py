"""ROIAlign-3, ROIAlign-9 and ROIAlignRotated-15 (ops/roi_align.py) against OpenVINO: shape rule, CPU kernel and
rounding rule, with the harness of tests/ops/conformance.py.

Kernel: 320 seeded cases (a quarter f16; ROIAlign-9 in both modes and every aligned_mode, ROIAlign-3 in both modes,
40 cases each; images of 1 to 40 pixels a side, spatial scales from 1/32 to 2, sampling_ratio 0 to 3, rois partly or
wholly off the image, a third of their coordinates on whole or half pixels, aligned ones of negative size, bins of no
sample, empty outputs, data all below 0 for max) in one model compiled once for OpenVINO CPU; every element must be
within the rounding rule's bound alone (NaN where CPU gives NaN). Kernel refusals: the batch indices CPU refuses or
stops at. Shape rule: 600 seeded nodes on Parameters of partial shapes (dynamic ranks, wrong ranks, intervals, rois
rows that may not match the batch indices, a last rois dim other than 4), element types that may differ or not be
allowed, and pooled sizes of 0 and below, must give our rule's output partial shape and element type, or both
refuse; pooled sizes past a C int read from an IR. The rule's propagation: data and rois moved within their bounds
move the exact result by no more than the bound.

ROIAlignRotated-15: 240 seeded cases (a quarter f16; boxes of any angle, either sense, partly or wholly off the image,
of negative sizes; data holding NaN and infinities now and then), 120 to a model: bit for bit. Its shape rule on 400
nodes of its own and among the 600 above (its rois rows of 5); its refusals, its rule's propagation, its opsets and
one model compared.
"""

from __future__ import annotations

import re

import numpy as np
import openvino as ov
import openvino.opset3 as ops3
import openvino.opset9 as ops9
import openvino.opset15 as ops15
import pytest

from ir_tools.base.errors import IrToolsError, UnsupportedError
from ir_tools.ops import attrs as A
from ir_tools.ops.roi_align import ALIGNED_MODES, MODES
from ir_tools.ops.roi_align import ROI_ALIGN_3 as RA3
from ir_tools.ops.roi_align import ROI_ALIGN_9 as RA9
from ir_tools.ops.roi_align import ROI_ALIGN_ROTATED_15 as RAR
from ir_tools.ops.rounding import EXACT
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import (
    Bounds,
    Case,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    blur,
    check_versions,
    from_openvino,
    openvino_outcome,
    our_outcome,
    parameters,
    pick,
    rule_limits,
    run_cases,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 30911
#: (version, mode, aligned_mode): ROIAlign-9 in every mode, ROIAlign-3 (asymmetric alone).
SETTINGS = [(9, mode, aligned) for mode in MODES for aligned in ALIGNED_MODES] + [(3, mode, "asymmetric")
                                                                                 for mode in MODES]
SCALES = [1.0, 0.5, 0.25, 0.125, 1 / 16, 1 / 32, 0.3, 2.0]
#: ROIAlignRotated-15's settings: (15, its one mode, the angle's sense).
ROTATED = [(15, "avg", "clockwise"), (15, "avg", "counterclockwise")]


def _raw(version: int, pooled: tuple[int, int], ratio: int, scale: float, mode: str, aligned: str) -> dict[str, str]:
    raw = {"pooled_h": str(pooled[0]), "pooled_w": str(pooled[1]), "sampling_ratio": str(ratio),
           "spatial_scale": repr(scale)}
    if version == 15:
        return raw | {"clockwise_mode": "true" if aligned == "clockwise" else "false"}
    return raw | {"mode": mode} | ({"aligned_mode": aligned} if version == 9 else {})


def _node(version: int, ps, pooled: tuple[int, int], ratio: int, scale: float, mode: str, aligned: str) -> ov.Node:
    """ROIAlign-3, ROIAlign-9, or ROIAlignRotated-15 (version 15: ``aligned`` "clockwise" or not, mode unused)."""
    if version == 15:
        return ops15.roi_align_rotated(*ps, pooled[0], pooled[1], ratio, scale, aligned == "clockwise")
    if version == 3:
        return ops3.roi_align(*ps, pooled[0], pooled[1], ratio, scale, mode)
    return ops9.roi_align(*ps, pooled[0], pooled[1], ratio, scale, mode, aligned)


def _rois(rng: np.random.Generator, count: int, image: np.ndarray, scale: float, aligned: bool, ratio: int,
          pooled: tuple[int, int]) -> np.ndarray:
    """[count, 4] rois in input coordinates (the image's size over the scale): starts from 30% before the image to
    10% past it, sizes up to twice the image; aligned ones of a negative size now and then (above -pooled bins'
    worth with sampling_ratio 0, where CPU's sample count stays 0 or more); a third of the coordinates on whole or
    half pixels."""
    size = image / scale
    start = rng.uniform(-0.3, 1.1, (count, 2)) * size
    extent = rng.uniform(0.0, 1.0, (count, 2)) * size * float(pick(rng, [0.2, 1.0, 2.0]))
    if aligned and rng.random() < 0.25:
        limit = np.array(pooled[::-1], np.float64) / scale * 0.95 if ratio == 0 else size
        extent = -rng.uniform(0.0, 1.0, (count, 2)) * limit
    rois = np.concatenate([start, start + extent], 1)
    on_grid = np.round(rois * scale * 2) / 2 / scale
    return np.where(rng.random(rois.shape) < 0.33, on_grid, rois)


def kernel_case(rng: np.random.Generator, setting: tuple[int, str, str], dtype) -> Case:
    version, mode, aligned = setting
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 5))
    large = rng.random() < 0.3
    h, w = (int(v) for v in rng.integers(16, 41, 2)) if large else (int(v) for v in rng.integers(1, 12, 2))
    x = rng.standard_normal((n, c, h, w)) * float(pick(rng, [1.0, 1.0, 10.0, 0.01]))
    if mode == "max" and rng.random() < 0.2:
        x = -np.abs(x) - 0.5  # every sample below 0: max gives 0
    scale = float(pick(rng, SCALES))
    pooled = (int(rng.integers(0 if rng.random() < 0.03 else 1, 5)), int(rng.integers(1, 5)))
    ratio = int(pick(rng, [0, 0, 1, 2, 3]))
    count = int(rng.integers(1, 5))
    rois = _rois(rng, count, np.array([w, h], np.float64), scale, aligned != "asymmetric", ratio, pooled)
    indices = rng.integers(0, n, count).astype(pick(rng, [np.int32, np.int64]))
    inputs = [x.astype(dtype), rois.astype(dtype), indices]

    def build(ps, version=version, pooled=pooled, ratio=ratio, scale=scale, mode=mode, aligned=aligned):
        return _node(version, ps, pooled, ratio, scale, mode, aligned)

    spec = RA3 if version == 3 else RA9
    what = (f"ROIAlign-{version} {np.dtype(dtype).name} {list(x.shape)} rois {rois.tolist()} {indices.tolist()} "
            f"pooled {pooled} ratio {ratio} scale {scale} {mode} {aligned}")
    return Case(what, inputs, build, rule_limits(spec, _raw(version, pooled, ratio, scale, mode, aligned), inputs))


def kernel_cases(rng: np.random.Generator, per_setting: int) -> list[Case]:
    return [kernel_case(rng, setting, np.float16 if i % 4 == 3 else np.float32)
            for i in range(per_setting) for setting in SETTINGS]


def test_roi_align_kernel_within_its_rounding_bound(tmp_path):
    assert_all_pass(kernel_cases(np.random.default_rng(SEED), 40), tmp_path)


def test_kernel_refuses_the_batch_indices_cpu_refuses_or_stops_at():
    """CPU refuses a batch index below -1 or not below N when it infers; at a -1 it stops, leaving the rois from it on
    unwritten (never promised to be zeros). The kernel refuses all three."""
    x = np.random.default_rng(SEED + 3).standard_normal((2, 1, 4, 4)).astype(np.float32)
    rois = np.array([[0, 0, 2, 2], [1, 1, 3, 3]], np.float32)
    params = [ops9.parameter(list(v.shape), v.dtype) for v in (x, rois, np.zeros(2, np.int32))]
    model = ov.Model([_node(9, params, (1, 1), 2, 1.0, "avg", "asymmetric")], params)
    request = ov.Core().compile_model(model, "CPU", CPU_CONFIG).create_infer_request()
    attrs = A.decode(RA9.attrs, _raw(9, (1, 1), 2, 1.0, "avg", "asymmetric"))
    for indices in ([0, 2], [0, -2], [0, -1]):
        batch = np.array(indices, np.int32)
        if indices[1] == -1:
            request.infer([x, rois, batch])
        else:
            with pytest.raises(RuntimeError):
                request.infer([x, rois, batch])
        with pytest.raises(UnsupportedError):
            RA9.compute(attrs, [x, rois, batch])


def test_opset_versions(tmp_path):
    x, rois, indices = (ops9.parameter(s, t) for s, t in (([1, 2, 5, 5], np.float32), ([3, 4], np.float32),
                                                           ([3], np.int32)))
    nodes = {"ROIAlign": _node(9, [x, rois, indices], (2, 2), 2, 1.0, "avg", "half_pixel")}
    assert not check_versions(nodes, [x, rois, indices], tmp_path)


def test_input_bounds_move_through_the_rule():
    """Data and rois moved anywhere within their bounds (a random sign per element) move the exact result by no more
    than the rule's bound with those input bounds: 160 seeded f32 cases (rois of positive sizes, whose sample counts
    stay 0 or more wherever they move)."""
    rng = np.random.default_rng(SEED + 2)
    for i in range(20 * len(SETTINGS)):
        version, mode, aligned = SETTINGS[i % len(SETTINGS)]
        case = kernel_case(rng, (version, mode, "asymmetric" if version == 3 else aligned), np.float32)
        x, rois, indices = case.inputs
        rois = np.concatenate([np.minimum(rois[:, :2], rois[:, 2:]), np.maximum(rois[:, :2], rois[:, 2:]) + 1], 1)
        scale = float(rng.choice([1e-6, 1e-3, 1e-1]))
        bounds = [np.abs(rng.standard_normal(x.shape)) * scale if rng.random() < 0.7 else EXACT,
                  np.abs(rng.standard_normal(rois.shape)) * scale if rng.random() < 0.5 else EXACT, EXACT]
        raw = _raw(version, (2, 3), int(rng.integers(0, 3)), float(pick(rng, SCALES)), mode, aligned)
        spec = RA3 if version == 3 else RA9
        assert_bounds_carry_moves(spec, raw, [x, rois.astype(np.float32), indices], bounds, rng, case.what)


# --- shape rule ------------------------------------------------------------------------------------


def shape_around(rng: np.random.Generator, dims: list[int]) -> Bounds:
    """A partial shape around ``dims``: now and then of a dynamic rank, or of one dim less or more; each dim
    ``blur``red."""
    if rng.random() < 0.08:
        return None
    if rng.random() < 0.06:
        dims = dims[:-1] if rng.random() < 0.5 else [*dims, 2]
    return tuple(blur(rng, n) for n in dims)


def roi_align_shape_case(rng: np.random.Generator, settings: list[tuple[int, str, str]]):
    version, mode, aligned = pick(rng, settings)
    count = int(rng.integers(0, 6))
    box = 5 if version == 15 else 4
    last = box if rng.random() > 0.1 else int(pick(rng, [box - 1, box + 1]))
    shapes = [shape_around(rng, [int(n) for n in rng.integers(1, 6, 4)]),
              shape_around(rng, [count, last]),
              shape_around(rng, [count if rng.random() > 0.15 else int(rng.integers(0, 6))])]
    elements = [pick(rng, ["f32"] * 5 + ["f16", "i32", "u8", "boolean", None]),
                pick(rng, ["f32"] * 5 + ["f16", "i64", None]),
                pick(rng, ["i32"] * 4 + ["i64", "u8", "f32", "boolean", None])]
    if rng.random() < 0.5 and elements[0] != "f16":
        elements[1] = elements[0]
    pooled = (int(pick(rng, [1, 2, 3, 7, 0, -1, -3])), int(pick(rng, [1, 2, 5, 0, -1, -2])))
    ratio, scale = int(pick(rng, [0, 2, -1])), float(pick(rng, [1.0, 0.0625, 0.0, -1.0]))
    what = (f"ROIAlign-{version} {aligned} " + " ".join(f"{e}{show(s)}" for e, s in zip(elements, shapes, strict=True))
            + f" pooled {pooled}")

    def theirs():
        return openvino_outcome(lambda: _node(version, parameters(elements, shapes), pooled, ratio, scale, mode,
                                              aligned))

    def ours():
        op = "ROIAlignRotated" if version == 15 else "ROIAlign"
        return our_outcome(op, f"opset{version}", _raw(version, pooled, ratio, scale, mode, aligned),
                           tensor_types(elements, shapes), [None] * 3)

    return what, theirs, ours


def test_roi_align_shape_rule():
    rng = np.random.default_rng(SEED + 1)
    cases = [roi_align_shape_case(rng, SETTINGS + ROTATED) for _ in range(600)]
    assert_shapes_agree(cases)


@pytest.mark.parametrize("pooled", ["2147483648", "4294967295", "4294967298", "-2147483649"])
def test_pooled_sizes_are_c_ints(tmp_path, pooled: str):
    """pooled_h past a C int, read from an IR: OpenVINO wraps it to 32 bits (2^31 is -2^31: a dim of 0; 2^32 - 1
    is -1: dynamic), and so does our rule."""
    params = [ops9.parameter(s, t) for s, t in (([1, 2, 5, 5], np.float32), ([3, 4], np.float32), ([3], np.int32))]
    path = tmp_path / "roi.xml"
    ov.save_model(ov.Model([_node(9, params, (2, 2), 2, 1.0, "avg", "asymmetric")], params), str(path))
    text = re.sub(r'pooled_h="2"', f'pooled_h="{pooled}"', path.read_text())
    model = ov.Core().read_model(text, ov.Tensor(np.zeros(0, np.uint8)))
    theirs = from_openvino(model.output(0).get_partial_shape())
    raw = _raw(9, (2, 2), 2, 1.0, "avg", "asymmetric") | {"pooled_h": pooled}
    ours = our_outcome("ROIAlign", "opset9", raw, tensor_types(["f32", "f32", "i32"], [
        ((1, 1), (2, 2), (5, 5), (5, 5)), ((3, 3), (4, 4)), ((3, 3),)]), [None] * 3)
    assert ours == (("f32", theirs),), (ours, theirs)


def test_kernel_refuses_what_it_cannot_match():
    """Negative sampling ratios and sample counts (CPU's garbage), max over NaN: refused, named."""
    x = np.ones((1, 1, 4, 4), np.float32)
    indices = np.zeros(1, np.int32)
    for raw, rois in ((_raw(9, (2, 2), -1, 1.0, "avg", "asymmetric"), [[0, 0, 2, 2]]),
                      (_raw(9, (1, 2), 0, 1.0, "avg", "half_pixel"), [[3, 3, 1, 1]])):
        with pytest.raises(IrToolsError):
            RA9.compute(A.decode(RA9.attrs, raw), [x, np.array(rois, np.float32), indices])
    with pytest.raises(UnsupportedError):
        RA9.compute(A.decode(RA9.attrs, _raw(9, (1, 1), 1, 1.0, "max", "asymmetric")),
                    [np.full_like(x, np.nan), np.array([[0, 0, 2, 2]], np.float32), indices])


# --- ROIAlignRotated-15 ----------------------------------------------------------------------------


def rotated_case(rng: np.random.Generator, dtype) -> Case:
    """Boxes (centre, size, angle) on images of 1 to 40 pixels a side: centres from 20% before the image to 20% past
    it, sides up to 1.5 times it (0 or negative now and then where sampling_ratio is not 0; there CPU refuses a
    negative sample count), angles any, whole quarter turns now and then; data holding NaN and infinities now and
    then (an off-image sample reads pixel (0, 0) at weight 0: NaN where that pixel is not finite)."""
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 5))
    h, w = (int(v) for v in rng.integers(16, 41, 2)) if rng.random() < 0.3 else (int(v) for v in rng.integers(1, 12, 2))
    x = (rng.standard_normal((n, c, h, w)) * float(pick(rng, [1.0, 10.0, 0.01]))).astype(np.float32)
    if rng.random() < 0.1:
        x[rng.random(x.shape) < 0.1] = pick(rng, [np.nan, np.inf, -np.inf])
    scale = float(pick(rng, SCALES))
    pooled = (int(rng.integers(0 if rng.random() < 0.03 else 1, 5)), int(rng.integers(1, 5)))
    ratio = int(pick(rng, [0, 0, 1, 2, 3]))
    count = int(rng.integers(1, 5))
    image = np.array([w, h], np.float64) / scale
    centre = rng.uniform(-0.2, 1.2, (count, 2)) * image
    size = rng.uniform(0.05, 1.5, (count, 2)) * image
    if ratio and rng.random() < 0.2:
        size[:, int(rng.integers(0, 2))] *= -float(rng.random())
    angle = rng.uniform(-7.0, 7.0, (count, 1))
    angle = np.where(rng.random((count, 1)) < 0.2, np.round(angle / (np.pi / 2)) * (np.pi / 2), angle)
    rois = np.concatenate([centre, size, angle], 1)
    indices = rng.integers(0, n, count).astype(pick(rng, [np.int32, np.int64]))
    sense = pick(rng, ["clockwise", "counterclockwise"])
    inputs = [x.astype(dtype), rois.astype(dtype), indices]

    def build(ps, pooled=pooled, ratio=ratio, scale=scale, sense=sense):
        return _node(15, ps, pooled, ratio, scale, "avg", sense)

    what = (f"ROIAlignRotated-15 {np.dtype(dtype).name} {list(x.shape)} rois {rois.tolist()} {indices.tolist()} "
            f"pooled {pooled} ratio {ratio} scale {scale} {sense}")
    return Case(what, inputs, build, bits=True)


def rotated_cases(rng: np.random.Generator, count: int) -> list[Case]:
    return [rotated_case(rng, np.float16 if i % 4 == 3 else np.float32) for i in range(count)]


def test_roi_align_rotated_kernel_is_cpus_to_the_bit(tmp_path):
    """240 seeded cases, 120 to a model: every output CPU's to the bit (NaN payloads and zeros' signs too)."""
    cases = rotated_cases(np.random.default_rng(SEED + 15), 240)
    failures = run_cases(cases, tmp_path, 120)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])


def test_roi_align_rotated_shape_rule():
    """400 more seeded nodes of ROIAlignRotated alone (rois rows of 4, 5 or 6; some 110 of them valid)."""
    rng = np.random.default_rng(SEED + 18)
    assert_shapes_agree([roi_align_shape_case(rng, ROTATED) for _ in range(400)])


def test_roi_align_rotated_refuses_what_cpu_refuses():
    """A negative sampling_ratio, or sampling_ratio 0 on a box of a negative size (a negative sample count): CPU's
    assertion fails when it runs; a batch index past the data (CPU reads past it): refused too."""
    x = np.ones((1, 1, 4, 4), np.float32)
    indices = np.zeros(1, np.int32)
    for ratio, roi, batch in ((-1, [2, 2, 2, 2, 0], indices), (0, [2, 2, -3, 2, 0.5], indices),
                              (1, [2, 2, 2, 2, 0], np.ones(1, np.int32))):
        with pytest.raises(UnsupportedError):
            RAR.compute(A.decode(RAR.attrs, _raw(15, (2, 2), ratio, 1.0, "avg", "clockwise")),
                        [x, np.array([roi], np.float32), batch])


def test_roi_align_rotated_cpu_refuses_negative_counts():
    """sampling_ratio 0 with a pooled size of 0 (every box's count ceil(size / 0), cast to INT_MIN), or a negative
    sampling_ratio: CPU fails when it runs, whatever the inputs; ``cpu_refuses`` says so (on rois of a count above
    0), and not with a ratio of 1."""
    x = np.zeros((1, 1, 4, 4), np.float32)
    rois, indices = np.zeros((2, 5), np.float32), np.zeros(2, np.int32)
    types = tensor_types(["f32", "f32", "i32"], [((1, 1), (1, 1), (4, 4), (4, 4)), ((2, 2), (5, 5)), ((2, 2),)])
    for pooled, ratio in (((0, 2), 0), ((2, 2), -1), ((0, 2), 1)):
        params = [ops9.parameter(list(v.shape), v.dtype) for v in (x, rois, indices)]
        model = ov.Model([_node(15, params, pooled, ratio, 1.0, "avg", "clockwise")], params)
        refusal = RAR.cpu_refuses(A.decode(RAR.attrs, _raw(15, pooled, ratio, 1.0, "avg", "clockwise")), types,
                                  [None] * 3)
        if ratio == 1:
            ov.Core().compile_model(model, "CPU", CPU_CONFIG)([x, rois, indices])
            assert refusal is None
        else:
            with pytest.raises(RuntimeError):
                ov.Core().compile_model(model, "CPU", CPU_CONFIG)([x, rois, indices])
            assert refusal is not None


def test_roi_align_rotated_bounds_carry_moves():
    """Data and boxes moved within their bounds move the exact (float64) result by no more than the rule's bound:
    some 50 seeded cases of finite f32 data and boxes of positive sizes."""
    rng = np.random.default_rng(SEED + 16)
    for case in rotated_cases(rng, 80):
        x, rois, indices = case.inputs
        if x.dtype != np.float32 or not np.isfinite(x).all() or (rois[:, 2:4] <= 0).any():
            continue
        scale = float(rng.choice([1e-6, 1e-3, 1e-1]))
        bounds = [np.abs(rng.standard_normal(x.shape)) * scale if rng.random() < 0.7 else EXACT,
                  np.abs(rng.standard_normal(rois.shape)) * scale if rng.random() < 0.5 else EXACT, EXACT]
        sense = "clockwise" if case.what.endswith(" clockwise") else "counterclockwise"
        assert_bounds_carry_moves(RAR, _raw(15, (2, 3), int(rng.integers(0, 3)), float(pick(rng, SCALES)), "avg",
                                            sense), [x, rois, indices], bounds, rng, case.what)


def test_roi_align_rotated_opsets(tmp_path):
    x, rois, indices = (ops9.parameter(s, t) for s, t in (([1, 2, 5, 5], np.float32), ([3, 5], np.float32),
                                                           ([3], np.int32)))
    nodes = {"ROIAlignRotated": _node(15, [x, rois, indices], (2, 2), 2, 1.0, "avg", "clockwise")}
    assert not check_versions(nodes, [x, rois, indices], tmp_path)


def test_compare_checks_roi_align_rotated(tmp_path, capsys):
    """A Relu feeding ROIAlignRotated's data, compared end to end and per layer (rois and indices given as
    constants), nothing left unchecked."""
    rng = np.random.default_rng(SEED + 17)
    x = ops9.parameter([2, 3, 12, 10], np.float32, name="x")
    rois = ops9.constant(np.array([[4, 5, 6, 3, 0.4], [8, 2, 5, 7, -1.2], [1, 1, 20, 20, 3.0]], np.float32))
    indices = ops9.constant(np.array([0, 1, 1], np.int32))
    y = _node(15, [ops9.relu(x), rois, indices], (3, 2), int(rng.integers(1, 3)), 1.0, "avg", "clockwise")
    xml = tmp_path / "rotated.xml"
    ov.save_model(ov.Model([y], [x], "rotated"), xml)
    assert_compare_passes(xml, capsys, {"ROIAlignRotated@opset15"}, outputs=1)
