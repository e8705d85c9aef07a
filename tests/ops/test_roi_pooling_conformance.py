"""AdaptiveMaxPool-8 (ops/pooling.py), ROIPooling-2 and PSROIPooling-1 (ops/roi_pooling.py) against OpenVINO: shape
rules, CPU kernels and rounding rules, with the harness of tests/ops/conformance.py.

AdaptiveMaxPool: 180 seeded cases (ranks 3 to 5, bins down- and upsampling, every element type CPU pools through f32,
ties, NaN, +-inf, +-0, subnormals, f64 beyond the f32 range, integers beyond 2^24 and i64/u32/u64 beyond 32 bits),
bit for bit, values and indices. ROIPooling: 180 seeded cases (max bit for bit; bilinear within its rounding rule),
f32 and f16, rois partly or wholly off the image, on half pixels, inverted, batch indices up to a -1. PSROIPooling:
120 seeded cases, average and bilinear, within the rounding rule. Each op's cases in one model compiled once. Shape
rules: 200 to 300 seeded nodes each on Parameters of partial shapes and dynamic types against OpenVINO's inference.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset2 as ops2
import openvino.opset8 as ops8
import pytest

import ir_tools
from ir_tools.base.errors import UnsupportedError
from ir_tools.ops import attrs as A
from ir_tools.ops.pooling import ADAPTIVE_MAX_POOL_8 as AMP
from ir_tools.ops.roi_pooling import PSROI_POOLING_1 as PS
from ir_tools.ops.roi_pooling import ROI_POOLING_2 as RP
from ir_tools.ops.rounding import EXACT

from .conformance import (
    Case,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    blur,
    check_versions,
    constant,
    openvino_outcome,
    our_outcome,
    parameters,
    pick,
    rule_limits,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 40417

# --- AdaptiveMaxPool-8 -----------------------------------------------------------------------------

#: Element types CPU pools (through f32, module doc of ops/pooling.py).
AMP_TYPES = [np.float32, np.float32, np.float32, np.float16, np.float64, np.int32, np.int8, np.uint8, np.int64,
             np.uint32, np.uint64, np.int16, np.uint16]


def _amp_data(rng: np.random.Generator, shape: tuple[int, ...], dtype) -> np.ndarray:
    """Values with ties (a few levels), and for floats NaN, +-inf, +-0 and subnormals; integers near their type's and
    f32's limits."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        x = rng.integers(-3, 4, shape).astype(np.float64) if rng.random() < 0.4 else rng.standard_normal(shape)
        specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40 if dtype != np.float16 else 3e-8]
        if dtype == np.float64:
            specials += [1e300, -1e300, 1.0 + 2.0**-40]
        spots = rng.random(shape) < 0.15
        x[spots] = rng.choice(specials, int(spots.sum()))
        return x.astype(dtype)
    info = np.iinfo(dtype)
    x = rng.integers(max(info.min, -5), min(info.max, 5) + 1, shape).astype(dtype)
    edges = [v for v in (info.min, info.max, 2**24, 2**24 + 1, 2**31 - 1, 2**31 + 5, 2**40 + 1, 2**32 - 1)
             if info.min <= v <= info.max]
    spots = rng.random(shape) < 0.2
    x[spots] = np.array(edges, dtype)[rng.integers(0, len(edges), int(spots.sum()))]
    return x


def amp_case(rng: np.random.Generator, dtype) -> Case:
    rank = int(rng.integers(3, 6))
    spatial = [int(v) for v in rng.integers(1, 9 if rank < 5 else 5, rank - 2)]
    sizes = [int(rng.integers(1, 2 * n + 2)) if rng.random() < 0.85 else int(pick(rng, [0, 1, n])) for n in spatial]
    shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4)), *spatial)
    x = _amp_data(rng, shape, dtype)
    size = np.array(sizes, pick(rng, [np.int32, np.int64]))

    def build(ps, size=size):
        return ops8.adaptive_max_pool(ps[0], ps[1], "i32")

    what = f"AdaptiveMaxPool-8 {np.dtype(dtype).name} {list(shape)} into {sizes}"
    return Case(what, [x, size], build, consts=(1,), bits=True)


def amp_cases(rng: np.random.Generator, count: int) -> list[Case]:
    return [amp_case(rng, AMP_TYPES[i % len(AMP_TYPES)]) for i in range(count)]


def test_adaptive_max_pool_kernel_is_cpus_bit_for_bit(tmp_path):
    assert_all_pass(amp_cases(np.random.default_rng(SEED), 180), tmp_path)


def test_adaptive_max_pool_bounds_carry_moves():
    """Data moved within its bounds moves each maximum by no more than the bin's largest bound. The kernel computes
    in f32 as CPU does (an f64 it rounds): values on a grid of 2^-10 and bounds on one of 2^-14 keep every moved value
    an f32 value."""
    rng = np.random.default_rng(SEED + 5)
    for _ in range(40):
        case = amp_case(rng, np.float32)
        x, size = case.inputs
        x = np.round(np.nan_to_num(x, nan=0.0, posinf=8.0, neginf=-8.0) * 2**10) / 2**10
        bound = rng.integers(0, 2**int(rng.integers(1, 13)), x.shape) / 2**14
        assert_bounds_carry_moves(AMP, {"index_element_type": "i32"}, [x, size], [bound, EXACT], rng, case.what)


def _amp_shape_case(rng: np.random.Generator):
    rank = int(pick(rng, [3, 4, 5, 2, 6]))
    data = None if rng.random() < 0.1 else tuple(blur(rng, int(n)) for n in rng.integers(1, 6, rank))
    count = rank - 2 if rng.random() < 0.85 else int(pick(rng, [1, 2, 3, 4]))
    known = rng.random() < 0.6
    values = rng.integers(-2, 5, count).astype(pick(rng, [np.int32, np.int64]))
    element = pick(rng, ["f32", "f16", "i32", "u8", None])
    index = pick(rng, ["i32", "i64", "i32", "f32", "u8"])
    size_shape = None if rng.random() < 0.1 else (blur(rng, count),)
    what = f"AdaptiveMaxPool {element}{show(data)} size {values.tolist() if known else show(size_shape)} {index}"

    def size_node():
        return constant(values) if known else parameters(["i64"], [size_shape])[0]

    def theirs():
        return openvino_outcome(lambda: ops8.adaptive_max_pool(parameters([element], [data])[0], size_node(), index))

    def ours():
        size_type = tensor_types([str(ov.Type(values.dtype)) if known else "i64"],
                                 [((count, count),) if known else size_shape])
        return our_outcome("AdaptiveMaxPool", "opset8", {"index_element_type": index},
                           tensor_types([element], [data]) + size_type, [None, values if known else None])

    return what, theirs, ours


def test_adaptive_max_pool_shape_rule():
    rng = np.random.default_rng(SEED + 1)
    assert_shapes_agree([_amp_shape_case(rng) for _ in range(200)])


# --- ROIPooling-2 --------------------------------------------------------------------------------

ROI_SCALES = [1.0, 0.5, 0.25, 0.0625, 0.3, 2.0]


def _roi_raw(pooled: tuple[int, int], scale: float, method: str) -> dict[str, str]:
    return {"output_roi": f"{pooled[0]},{pooled[1]}", "pooled_h": str(pooled[0]), "pooled_w": str(pooled[1]),
            "spatial_scale": repr(scale), "method": method}


def _roi_rows(rng: np.random.Generator, count: int, n: int, image: np.ndarray, scale: float, method: str
              ) -> np.ndarray:
    """[count, 5] rois: a batch index (a -1 now and then, which ends the rois), then corners; max's in input
    coordinates (the image over the scale), from 30% before the image to 10% past it, a third on half pixels,
    inverted now and then; bilinear's in [0, 1] mostly, some beyond."""
    size = image / scale if method == "max" else np.ones(2)
    start = rng.uniform(-0.3, 1.1, (count, 2)) * size
    extent = rng.uniform(-0.1, 1.0, (count, 2)) * size * float(pick(rng, [0.3, 1.0, 1.5]))
    corners = np.concatenate([start, start + extent], 1)
    if method == "max":
        halves = np.round(corners * scale * 2) / 2 / scale
        corners = np.where(rng.random(corners.shape) < 0.33, halves, corners)
    elif rng.random() < 0.7:
        corners = np.clip(corners, 0.0, 1.0)
    batch = rng.integers(0, n, (count, 1)).astype(np.float64)
    if rng.random() < 0.1:
        batch[int(rng.integers(0, count))] = -1
    return np.concatenate([batch, corners], 1)


def roi_case(rng: np.random.Generator, method: str, dtype) -> Case:
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 20))
    h, w = (int(v) for v in rng.integers(1, 14, 2))
    x = rng.standard_normal((n, c, h, w)) * float(pick(rng, [1.0, 10.0, 0.01]))
    if method == "max":
        x = np.where(rng.random(x.shape) < 0.3, np.round(x), x)  # ties
        x[rng.random(x.shape) < 0.05] = pick(rng, [np.nan, np.inf, -np.inf, -0.0])
    scale = float(pick(rng, ROI_SCALES))
    pooled = (int(rng.integers(1, 5)), int(rng.integers(1, 5)))
    rois = _roi_rows(rng, int(rng.integers(1, 5)), n, np.array([w, h], np.float64), scale, method)
    inputs = [x.astype(dtype), rois.astype(dtype)]

    def build(ps, pooled=pooled, scale=scale, method=method):
        return ops2.roi_pooling(ps[0], ps[1], list(pooled), scale, method)

    raw = _roi_raw(pooled, scale, method)
    what = f"ROIPooling-2 {np.dtype(dtype).name} {list(x.shape)} rois {rois.tolist()} pooled {pooled} {scale} {method}"
    if method == "max":
        return Case(what, inputs, build, bits=True)
    return Case(what, inputs, build, rule_limits(RP, raw, inputs))


def roi_cases(rng: np.random.Generator, per_method: int) -> list[Case]:
    return [roi_case(rng, method, np.float16 if i % 4 == 3 else np.float32)
            for i in range(per_method) for method in ("max", "bilinear")]


def test_roi_pooling_kernel_against_cpu(tmp_path):
    assert_all_pass(roi_cases(np.random.default_rng(SEED + 2), 90), tmp_path)


def test_roi_pooling_bounds_carry_moves():
    rng = np.random.default_rng(SEED + 3)
    for i in range(40):
        method = ("max", "bilinear")[i % 2]
        case = roi_case(rng, method, np.float32)
        x, rois = case.inputs
        x = np.nan_to_num(x, nan=0.0, posinf=1e3, neginf=-1e3)
        raw = _roi_raw((int(rng.integers(1, 5)), int(rng.integers(1, 5))), float(pick(rng, ROI_SCALES)), method)
        bound = np.abs(rng.standard_normal(x.shape)) * float(pick(rng, [1e-6, 1e-3, 0.5]))
        assert_bounds_carry_moves(RP, raw, [x, rois], [bound, EXACT], rng, case.what)


def _roi_shape_case(rng: np.random.Generator):
    count = int(rng.integers(0, 6))
    rank = int(pick(rng, [4] * 8 + [3, 5]))
    data = None if rng.random() < 0.08 else tuple(blur(rng, int(n)) for n in rng.integers(1, 6, rank))
    last = 5 if rng.random() > 0.1 else int(pick(rng, [4, 6]))
    rois = None if rng.random() < 0.08 else (blur(rng, count), blur(rng, last))[:int(pick(rng, [2] * 9 + [1]))]
    elements = [pick(rng, ["f32"] * 5 + ["f16", "i32", None]), pick(rng, ["f32"] * 5 + ["f16", "i64", None])]
    if rng.random() < 0.5:
        elements[1] = elements[0]
    pooled = (int(pick(rng, [1, 2, 3, 7, 0])), int(pick(rng, [1, 2, 5, 0])))
    scale, method = float(pick(rng, [1.0, 0.0625, 0.0, -1.0, 1e-40])), pick(rng, ["max", "bilinear"])
    what = f"ROIPooling {' '.join(f'{e}{show(s)}' for e, s in zip(elements, (data, rois), strict=True))} {pooled} " \
           f"{scale} {method}"

    def theirs():
        return openvino_outcome(lambda: ops2.roi_pooling(*parameters(elements, [data, rois]), list(pooled), scale,
                                                         method))

    def ours():
        return our_outcome("ROIPooling", "opset2", _roi_raw(pooled, scale, method),
                           tensor_types(elements, [data, rois]), [None] * 2)

    return what, theirs, ours


def test_roi_pooling_shape_rule():
    rng = np.random.default_rng(SEED + 4)
    assert_shapes_agree([_roi_shape_case(rng) for _ in range(300)])


def test_opset_versions(tmp_path):
    data, rois, size = ops8.parameter([1, 2, 6, 6], np.float32), ops8.parameter([3, 5], np.float32), \
        ops8.constant(np.array([2, 3], np.int32))
    nodes = {"AdaptiveMaxPool": ops8.adaptive_max_pool(data, size, "i32"),
             "ROIPooling": ops2.roi_pooling(data, rois, [2, 2], 1.0, "max"),
             "PSROIPooling": ops1.psroi_pooling(data, rois, 2, 1, 1.0, 1, 1, "average")}
    assert not check_versions(nodes, [data, rois], tmp_path)


# --- PSROIPooling-1 ------------------------------------------------------------------------------


def _ps_raw(output_dim: int, group: int, scale: float, mode: str, bins: tuple[int, int]) -> dict[str, str]:
    return {"output_dim": str(output_dim), "group_size": str(group), "spatial_scale": repr(scale), "mode": mode,
            "spatial_bins_x": str(bins[0]), "spatial_bins_y": str(bins[1])}


def ps_case(rng: np.random.Generator, mode: str, dtype) -> Case:
    return _ps_case(rng, mode, dtype)[0]


def _ps_case(rng: np.random.Generator, mode: str, dtype) -> tuple[Case, dict[str, str]]:
    """A case and its attributes as the IR spells them."""
    n, d, g = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
    bins = (int(rng.integers(1, 4)), int(rng.integers(1, 4))) if mode == "bilinear" else \
        (int(rng.integers(0, 3)), int(rng.integers(0, 3)))
    c = d * (g * g if mode == "average" else bins[0] * bins[1])
    h, w = (int(v) for v in rng.integers(1, 14, 2))
    x = rng.standard_normal((n, c, h, w)) * float(pick(rng, [1.0, 10.0, 0.01]))
    scale = float(pick(rng, ROI_SCALES))
    rois = _roi_rows(rng, int(rng.integers(1, 5)), n, np.array([w, h], np.float64), scale,
                     "max" if mode == "average" else "bilinear")
    if mode == "bilinear":  # (bilinear's corners times the scale are in [0, 1])
        rois[:, 1:] /= scale
    inputs = [x.astype(dtype), rois.astype(dtype)]

    def build(ps, d=d, g=g, scale=scale, mode=mode, bins=bins):
        return ops1.psroi_pooling(ps[0], ps[1], d, g, scale, bins[0], bins[1], mode)

    raw = _ps_raw(d, g, scale, mode, bins)
    what = f"PSROIPooling-1 {np.dtype(dtype).name} {list(x.shape)} rois {rois.tolist()} {raw}"
    return Case(what, inputs, build, rule_limits(PS, raw, inputs)), raw


def ps_cases(rng: np.random.Generator, per_mode: int) -> list[Case]:
    return [ps_case(rng, mode, np.float16 if i % 4 == 3 else np.float32) for i in range(per_mode)
            for mode in ("average", "bilinear")]


def test_psroi_pooling_kernel_within_its_rounding_bound(tmp_path):
    assert_all_pass(ps_cases(np.random.default_rng(SEED + 6), 60), tmp_path)


def test_psroi_pooling_bounds_carry_moves():
    """Data moved within its bounds moves the exact result by no more than the rule's bound with that data bound."""
    rng = np.random.default_rng(SEED + 9)
    for i in range(40):
        case, raw = _ps_case(rng, ("average", "bilinear")[i % 2], np.float32)
        x, rois = case.inputs
        bound = np.abs(rng.standard_normal(x.shape)) * float(pick(rng, [1e-6, 1e-3, 0.5]))
        assert_bounds_carry_moves(PS, raw, [x, rois], [bound, EXACT], rng, case.what)


def _ps_shape_case(rng: np.random.Generator):
    mode = pick(rng, ["average", "bilinear"])
    d, g = int(pick(rng, [1, 2, 3, 0])), int(pick(rng, [1, 2, 3, 0, -1]))
    bins = (int(pick(rng, [1, 2, 0])), int(pick(rng, [1, 3, 0, -1])))
    channels = d * (g * g if mode == "average" else bins[0] * bins[1])
    if rng.random() < 0.15:
        channels += 1
    rank = int(pick(rng, [4] * 8 + [3, 5]))
    data = None if rng.random() < 0.08 else tuple(blur(rng, int(n)) for n in [2, max(channels, 0), 5, 6][:rank] +
                                                   [3] * (rank - 4))
    rois = None if rng.random() < 0.08 else (blur(rng, int(rng.integers(0, 5))), blur(rng, int(pick(rng, [5] * 9 +
                                                                                                   [4]))))
    elements = [pick(rng, ["f32"] * 5 + ["f16", "i32", None]), pick(rng, ["f32"] * 5 + ["f16", "i64", None])]
    if rng.random() < 0.5:
        elements[1] = elements[0]
    scale = float(pick(rng, [1.0, 0.0625, 0.0, -1.0]))
    raw = _ps_raw(d, g, scale, mode, bins)
    what = f"PSROIPooling {' '.join(f'{e}{show(s)}' for e, s in zip(elements, (data, rois), strict=True))} {raw}"

    def theirs():
        return openvino_outcome(lambda: ops1.psroi_pooling(*parameters(elements, [data, rois]), d, g, scale, bins[0],
                                                           bins[1], mode))

    def ours():
        return our_outcome("PSROIPooling", "opset1", raw, tensor_types(elements, [data, rois]), [None] * 2)

    return what, theirs, ours


def test_psroi_pooling_shape_rule():
    rng = np.random.default_rng(SEED + 7)
    assert_shapes_agree([_ps_shape_case(rng) for _ in range(300)])


def test_compare_checks_them(tmp_path, capsys):
    """A feature map scaled by a Multiply (whose rounding the pooling carries) into AdaptiveMaxPool, ROIPooling (max,
    bilinear) and PSROIPooling (average, bilinear), each on rois of its own, which compare draws inside the image
    (runtime/inputs.py, BOXES after a batch index): compared end to end and per layer, nothing left unchecked."""
    rng = np.random.default_rng(SEED + 8)
    data = ops1.parameter([2, 12, 9, 11], np.float32, name="data")
    scaled = ops1.multiply(data, ops1.constant(rng.standard_normal((1, 12, 1, 1)).astype(np.float32)))
    rois = [ops1.parameter([3, 5], np.float32, name=f"rois{k}") for k in range(4)]
    outputs = [ops8.adaptive_max_pool(scaled, ops8.constant(np.array([4, 5], np.int32)), "i32").output(0),
               ops2.roi_pooling(scaled, rois[0], [2, 3], 0.5, "max").output(0),
               ops2.roi_pooling(scaled, rois[1], [3, 2], 1.0, "bilinear").output(0),
               ops1.psroi_pooling(scaled, rois[2], 3, 2, 0.25, 1, 1, "average").output(0),
               ops1.psroi_pooling(scaled, rois[3], 2, 2, 0.5, 2, 3, "bilinear").output(0)]
    xml = tmp_path / "pooling.xml"
    ov.save_model(ov.Model([ops1.result(y) for y in outputs], [data, *rois], "pooling"), xml)
    assert_compare_passes(xml, capsys, {"AdaptiveMaxPool@opset8", "ROIPooling@opset2", "PSROIPooling@opset1"},
                          outputs=5)


def test_i64_indices_are_refused_as_cpu_refuses_them(tmp_path):
    """OpenVINO's CPU plugin refuses to compile an AdaptiveMaxPool-8 of i64 indices (the default), whichever outputs
    the model reads; check refuses it, and passes it with i32."""
    for index in ("i64", "i32"):
        data = ops8.parameter([1, 2, 6, 6], np.float32)
        pool = ops8.adaptive_max_pool(data, ops8.constant(np.array([2, 3], np.int32)), index)
        model = ov.Model([pool.output(0)], [data])
        xml = tmp_path / f"{index}.xml"
        ov.save_model(model, xml)
        if index == "i64":
            with pytest.raises(RuntimeError, match="i64"):
                ov.Core().compile_model(model, "CPU")
        errors = [d.message for d in ir_tools.check(xml, openvino=False) if d.severity == "error"]
        assert bool(errors) == (index == "i64") and all("i64" in e for e in errors), errors


def test_an_empty_output_roi_is_refused_before_openvino_reads_it(tmp_path):
    """OpenVINO's reader crashes the process on a ROIPooling whose output_roi is empty beside pooled_h and pooled_w (a
    segmentation fault, in a child here); check refuses it (E-OP) and hands such a file to OpenVINO only once our
    checks find it clean (``runtime/verdict``), and OpenVINO's serializer's output_size is no unknown attribute."""
    x = ops2.parameter([1, 4, 8, 8], np.float32, name="x")
    pooled = ops2.roi_pooling(x, ops2.constant(np.array([[0, 1, 1, 5, 5]], np.float32)), [2, 2], 0.5, "max")
    xml = tmp_path / "roi.xml"
    ov.save_model(ov.Model([pooled], [x]), xml)
    assert ir_tools.check(xml) == []
    text = xml.read_text()
    assert 'output_roi="2, 2"' in text and 'output_size="2, 2"' in text
    xml.write_text(text.replace('output_roi="2, 2"', 'output_roi=""'))
    read = f"import openvino as ov; ov.Core().read_model({str(xml)!r})"
    assert subprocess.run([sys.executable, "-c", read], capture_output=True).returncode < 0
    assert [(d.code, "output_roi holds 0 values" in d.message) for d in ir_tools.check(xml)] == [("E-OP", True)]


def test_kernels_refuse_batch_indices_cpu_reads_out_of_bounds():
    """A batch index at or past N (or below -1) CPU reads out of the feature maps: refused. From a -1 on, 0s."""
    x = np.ones((2, 2, 4, 4), np.float32)
    attrs = A.decode(RP.attrs, _roi_raw((1, 1), 1.0, "max"))
    with pytest.raises(UnsupportedError):
        RP.compute(attrs, [x, np.array([[2, 0, 0, 2, 2]], np.float32)])
    y = RP.compute(attrs, [x, np.array([[1, 0, 0, 2, 2], [-1, 0, 0, 2, 2], [0, 0, 0, 2, 2]], np.float32)])[0]
    assert y.ravel().tolist() == [1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
