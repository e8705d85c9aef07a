"""DeformableConvolution-1 and -8 and DeformablePSROIPooling-1 (ops/deformable.py) against OpenVINO: shape rules, CPU
kernels and rounding rules.

DeformableConvolution: 240 seeded cases (v1 and v8, with and without a mask, bilinear_interpolation_pad both ways;
groups and deformable groups of 1 to 3, kernels of 1 to 3, strides, dilations, pads and auto_pad; offsets putting taps
on and between pixels, on the image's edges and up to two pixels beyond, infinite and far ones (NaN ones with the pad:
without it CPU crashes on them); data with NaN, +-inf, +-0 and subnormals; f32 and f16), 60 to a model compiled once:
within the rounding rule's bound (measured: at most 0.29 of it, half the f32 elements bit for bit; ops/deformable.py).
Bounds: 30 cases, data, filters and mask moved within their bounds. Shape rule: 400 seeded nodes on Parameters of
partial shapes and element types, dynamic ones included, against OpenVINO's inference (some 150 accepted). ``ir-tools
compare`` end to end on DCNv1 and v2 layers.

DeformablePSROIPooling: 150 seeded cases (offsets of 1 or output_dim classes or none, part sizes 1 to 3, bins 0 to 3,
rois partly off the image and on half pixels, -1 batch indices, data with NaN and infinities; f32 and f16), 75 to a
model: within the rounding rule's bound (at most 0.21 of it in f32). Shape rule: 200 seeded nodes.
"""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset8 as ops8
import pytest

from ir_tools.ops.deformable import DEFORMABLE_CONVOLUTION_1 as DC1
from ir_tools.ops.deformable import DEFORMABLE_CONVOLUTION_8 as DC8
from ir_tools.ops.deformable import DEFORMABLE_PSROI_POOLING_1 as PS
from ir_tools.ops.deformable import PS_MODE
from ir_tools.ops.rounding import EXACT

from .conformance import (
    Case,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    blur,
    check_versions,
    openvino_outcome,
    our_outcome,
    parameters,
    pick,
    rule_limits,
    run_cases,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 8118
PER_MODEL = 60


def _raw(version: int, strides, pads, dilations, auto_pad: str, group: int, dg: int, pad: bool) -> dict[str, str]:
    raw = {"strides": ",".join(map(str, strides)), "pads_begin": ",".join(map(str, pads[0])),
           "pads_end": ",".join(map(str, pads[1])), "dilations": ",".join(map(str, dilations)),
           "auto_pad": auto_pad, "group": str(group), "deformable_group": str(dg)}
    if version == 8:
        raw["bilinear_interpolation_pad"] = "true" if pad else "false"
    return raw


def _out_length(n: int, k: int, s: int, d: int, pads: tuple[int, int], auto_pad: str) -> int:
    if auto_pad in ("same_upper", "same_lower"):
        return -(-n // s)
    if auto_pad == "valid":
        pads = (0, 0)
    return (n + sum(pads) - (k - 1) * d - 1) // s + 1


def _data(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    """Normal values, a few integers (ties of the lerps), and now and then NaN, +-inf, +-0 and subnormals."""
    x = rng.standard_normal(shape) * float(pick(rng, [1.0, 1.0, 8.0, 0.01]))
    if rng.random() < 0.3:
        specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40 if dtype == np.float32 else 3e-8]
        spots = rng.random(shape) < 0.02
        x[spots] = rng.choice(specials, int(spots.sum()))
    return x.astype(dtype)


def _offsets(rng: np.random.Generator, shape, dtype, pad: bool) -> np.ndarray:
    """Offsets between -2.5 and 2.5 pixels: a third whole or half pixels (a tap on a pixel, on an edge), now and then
    infinities, or far (a tap CPU leaves out), and with ``pad`` NaN (without it CPU crashes on NaN)."""
    off = rng.uniform(-2.5, 2.5, shape)
    off = np.where(rng.random(shape) < 0.33, np.round(off * 2) / 2, off)
    if rng.random() < 0.15:
        spots = rng.random(shape) < 0.03
        off[spots] = rng.choice([np.inf, -np.inf, 1e4, -1e4] + [np.nan] * pad, int(spots.sum()))
    return off.astype(dtype)


def dc_case(rng: np.random.Generator, version: int, dtype=np.float32) -> tuple[Case, dict[str, str]]:
    """A DeformableConvolution of ``version`` (8: a mask half the time) on seeded shapes, attributes and values."""
    group, dg = int(pick(rng, [1, 1, 2, 3])), int(pick(rng, [1, 1, 2, 3]))
    per = int(rng.integers(1, 4))
    c = group * dg * per
    o = group * int(rng.integers(1, 4))
    k = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    strides = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
    dilations = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
    pads = ((int(rng.integers(0, 2)), int(rng.integers(0, 2))), (int(rng.integers(0, 2)), int(rng.integers(0, 2))))
    auto_pad = pick(rng, ["explicit"] * 5 + ["valid", "same_upper", "same_lower"])
    n = int(rng.integers(1, 3))
    spatial = [int(rng.integers((kk - 1) * d + 1, (kk - 1) * d + 6)) for kk, d in zip(k, dilations, strict=True)]
    out = [_out_length(spatial[i], k[i], strides[i], dilations[i], (pads[0][i], pads[1][i]), auto_pad)
           for i in range(2)]
    pad = version == 8 and bool(rng.random() < 0.5)
    inputs = [_data(rng, (n, c, *spatial), dtype), _offsets(rng, (n, 2 * dg * k[0] * k[1], *out), dtype, pad),
              (rng.standard_normal((o, c // group, *k)) * float(pick(rng, [1.0, 0.1]))).astype(dtype)]
    masked = version == 8 and bool(rng.random() < 0.5)
    if masked:
        mask = rng.uniform(-0.5, 1.5, (n, dg * k[0] * k[1], *out))
        mask = np.where(rng.random(mask.shape) < 0.1, pick(rng, [0.0, -0.0, 1.0]), mask)
        inputs.append(mask.astype(pick(rng, [dtype, dtype, np.float32])))
    raw = _raw(version, strides, pads, dilations, auto_pad, group, dg, pad)

    def build(ps, raw=raw, version=version):
        args = (list(strides), list(pads[0]), list(pads[1]), list(dilations))
        if version == 1:
            return ops1.deformable_convolution(*ps, *args, auto_pad=auto_pad, group=group, deformable_group=dg)
        return ops8.deformable_convolution(ps[0], ps[1], ps[2], *args, mask=ps[3] if len(ps) > 3 else None,
                                           auto_pad=auto_pad, group=group, deformable_group=dg,
                                           bilinear_interpolation_pad=pad)

    spec = DC1 if version == 1 else DC8
    what = f"DeformableConvolution-{version} {np.dtype(dtype).name} {[list(v.shape) for v in inputs]} {raw}"
    return Case(what, inputs, build, rule_limits(spec, raw, inputs)), raw


def dc_cases(rng: np.random.Generator, count: int) -> list[Case]:
    return [dc_case(rng, (1, 8, 8)[i % 3], np.float16 if i % 5 == 4 else np.float32)[0] for i in range(count)]


def test_kernel_within_its_rounding_bound(tmp_path):
    failures = run_cases(dc_cases(np.random.default_rng(SEED), 240), tmp_path, PER_MODEL)
    assert not failures, f"{len(failures)} of 240 differ:\n" + "\n".join(failures[:20])


def test_bounds_carry_moves():
    """Data, filters and mask moved within their bounds move the exact result by no more than the rule's bound for
    those input bounds (the offsets exact: moved, they move a place, and the rule gives no bound)."""
    rng = np.random.default_rng(SEED + 1)
    for i in range(30):
        case, raw = dc_case(rng, (1, 8)[i % 2])
        inputs = [np.nan_to_num(v, nan=0.5, posinf=3.0, neginf=-3.0) for v in case.inputs]
        inputs[1] = np.clip(inputs[1], -3.0, 3.0)
        scale = float(pick(rng, [1e-6, 1e-3, 0.5]))
        bounds = [np.abs(rng.standard_normal(v.shape)) * scale for v in inputs]
        bounds[1] = EXACT
        if rng.random() < 0.3:
            bounds[2] = EXACT
        assert_bounds_carry_moves(DC1 if len(raw) == 7 else DC8, raw, inputs, bounds, rng, case.what)


def _dims(rng: np.random.Generator, lengths: list[int], ranks: list[int]) -> tuple | None:
    """A partial shape around ``lengths`` (a dynamic rank now and then, another rank now and then)."""
    if rng.random() < 0.08:
        return None
    rank = int(pick(rng, ranks))
    lengths = (lengths + [3] * rank)[:rank]
    return tuple(blur(rng, int(v), statics=8) for v in lengths)


def _shape_case(rng: np.random.Generator):
    version = int(pick(rng, [1, 8]))
    group, dg = (int(pick(rng, [1, 1, 2, 3] * 6 + [0])) for _ in range(2))
    k = [int(rng.integers(1, 4)), int(rng.integers(1, 4))]
    c, o = max(group, 1) * max(dg, 1) * int(rng.integers(1, 3)), max(group, 1) * int(rng.integers(1, 3))
    strides = [int(rng.integers(1, 3)) for _ in range(2)]
    dilations = [int(rng.integers(1, 3)) for _ in range(2)]
    pads = ([int(rng.integers(0, 2)) for _ in range(2)], [int(rng.integers(0, 2)) for _ in range(2)])
    auto_pad = pick(rng, ["explicit"] * 4 + ["valid", "same_upper", "same_lower"])
    if rng.random() < 0.06:
        strides, dilations = pick(rng, [([], dilations), (strides, []), ([1, 1, 1], dilations), ([0, 1], dilations)])
    spatial = [int(rng.integers(k[i] * dilations[i] if dilations else k[i], 9)) for i in range(2)]
    out = [_out_length(spatial[i], k[i], (strides or [1, 1])[i % max(len(strides), 1)] or 1,
                       (dilations or [1, 1])[i], (pads[0][i], pads[1][i]), auto_pad) for i in range(2)]
    n = int(rng.integers(1, 3))
    off_c, mask_c = 2 * max(dg, 1) * k[0] * k[1], max(dg, 1) * k[0] * k[1]
    if rng.random() < 0.1:
        off_c += 1
    shapes = [_dims(rng, [n, c, *spatial], [4] * 20 + [3, 5, 1]), _dims(rng, [n, off_c, *out], [4] * 25 + [3]),
              _dims(rng, [o + (rng.random() < 0.05), c // max(group, 1), *k], [4] * 25 + [5])]
    elements = [pick(rng, ["f32"] * 12 + ["f16", "i32", "boolean", None]) for _ in range(3)]
    if rng.random() < 0.85:
        elements = [elements[0]] * 3 if rng.random() < 0.8 else [elements[0], None, elements[0]]
    masked = version == 8 and rng.random() < 0.6
    if masked:
        shapes.append(_dims(rng, [n, mask_c + (rng.random() < 0.05), *out], [4] * 25 + [3]))
        elements.append(pick(rng, ["f32"] * 6 + ["f16", "i32", "boolean", None]))
        if shapes[3] is not None and shapes[2] is not None and len(shapes[2]) < 4:
            shapes[2] = None  # (OpenVINO reads filters[2] and [3] of a mask's unchecked: undefined)
    raw = _raw(version, strides, pads, dilations, auto_pad, group, dg, bool(rng.random() < 0.5))
    typed = " ".join(f"{e}{show(s)}" for e, s in zip(elements, shapes, strict=True))
    what = f"DeformableConvolution-{version} {typed} {raw}"

    def theirs():
        def build():
            ps = parameters(elements, shapes)
            args = (strides, pads[0], pads[1], dilations)
            if version == 1:
                return ops1.deformable_convolution(*ps, *args, auto_pad=auto_pad, group=group, deformable_group=dg)
            return ops8.deformable_convolution(ps[0], ps[1], ps[2], *args, mask=ps[3] if masked else None,
                                               auto_pad=auto_pad, group=group, deformable_group=dg,
                                               bilinear_interpolation_pad=raw["bilinear_interpolation_pad"] == "true")
        return openvino_outcome(build)

    def ours():
        return our_outcome("DeformableConvolution", f"opset{version}", raw, tensor_types(elements, shapes),
                           [None] * len(shapes))

    return what, theirs, ours


def test_shape_rule():
    rng = np.random.default_rng(SEED + 2)
    assert_shapes_agree([_shape_case(rng) for _ in range(400)])


def test_opset_versions(tmp_path):
    ps = [ops1.parameter(s, np.float32) for s in ([1, 2, 5, 5], [1, 18, 3, 3], [2, 2, 3, 3], [3, 5])]
    nodes = {"DeformableConvolution": ops8.deformable_convolution(*ps[:3], [1, 1], [0, 0], [0, 0], [1, 1]),
             "DeformablePSROIPooling": ops1.deformable_psroi_pooling(ps[0], ps[3], 2, 0.5, 1)}
    assert not check_versions(nodes, ps, tmp_path)


def test_compare_checks_them(tmp_path, capsys):
    """DCNv1 and v2 as exported: offsets (and a sigmoid mask) predicted by a Convolution of the data, into
    DeformableConvolution-1 and -8 (bilinear pad both ways): compared end to end and per layer, nothing unchecked.
    The layer with bilinear_interpolation_pad has pads of its own: OpenVINO CPU shares one executor between layers
    of equal shapes, strides, dilations and pads_begin whatever their bilinear_interpolation_pad (its cache key
    leaves it out; ops/deformable.py), and would compute it as the first layer's."""
    rng = np.random.default_rng(SEED + 3)
    data = ops1.parameter([1, 4, 7, 6], np.float32, name="data")

    def conv(channels: int) -> ov.Node:
        w = (rng.standard_normal((channels, 4, 3, 3)) * 0.2).astype(np.float32)
        return ops1.convolution(data, ops1.constant(w), [1, 1], [1, 1], [1, 1], [1, 1])

    def filters() -> ov.Node:
        return ops1.constant(rng.standard_normal((3, 4, 3, 3)).astype(np.float32))

    args = ([1, 1], [1, 1], [1, 1], [1, 1])
    outputs = [ops1.deformable_convolution(data, conv(18), filters(), *args),
               ops8.deformable_convolution(data, conv(36), filters(), *args, mask=ops1.sigmoid(conv(18)),
                                           deformable_group=2),
               ops8.deformable_convolution(data, conv(18), filters(), [1, 1], [0, 0], [2, 2], [1, 1],
                                           bilinear_interpolation_pad=True)]
    xml = tmp_path / "deformable.xml"
    ov.save_model(ov.Model([ops1.result(y) for y in outputs], [data], "deformable"), xml)
    assert_compare_passes(xml, capsys, {"DeformableConvolution@opset1", "DeformableConvolution@opset8"}, outputs=3)


# --- DeformablePSROIPooling-1 --------------------------------------------------------------------

PS_SCALES = [1.0, 0.5, 0.25, 0.0625]


def _ps_raw(d: int, scale: float, g: int, bins: tuple[int, int], trans_std: float, part: int,
            mode: str = PS_MODE) -> dict[str, str]:
    return {"output_dim": str(d), "spatial_scale": repr(scale), "group_size": str(g), "mode": mode,
            "spatial_bins_x": str(bins[0]), "spatial_bins_y": str(bins[1]), "trans_std": repr(trans_std),
            "part_size": str(part)}


def ps_case(rng: np.random.Generator, dtype=np.float32) -> tuple[Case, dict[str, str]]:
    """A DeformablePSROIPooling with offsets two times in three: rois partly off the image, on half pixels, a -1
    batch index now and then; bins of 0 to 3; data with NaN and infinities now and then."""
    n, d, g = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
    bins = (int(pick(rng, [1, 2, 3, 0])), int(pick(rng, [1, 2, 3])))
    h, w = (int(v) for v in rng.integers(1, 13, 2))
    scale = float(pick(rng, PS_SCALES))
    count = int(rng.integers(1, 5))
    x = _data(rng, (n, d * g * g + int(pick(rng, [0, 0, 0, 2])), h, w), dtype)
    start = rng.uniform(-0.3, 1.1, (count, 2)) * np.array([w, h]) / scale
    extent = rng.uniform(-0.1, 1.0, (count, 2)) * np.array([w, h]) / scale
    corners = np.concatenate([start, start + extent], 1)
    corners = np.where(rng.random(corners.shape) < 0.3, np.round(corners * 2) / 2, corners)
    batch = rng.integers(0, n, (count, 1)).astype(np.float64)
    if rng.random() < 0.1:
        batch[int(rng.integers(0, count))] = -1
    inputs = [x, np.concatenate([batch, corners], 1).astype(dtype)]
    part, trans_std = int(rng.integers(1, 4)), float(pick(rng, [0.1, 0.5, 1.0]))
    if rng.random() < 0.67:
        classes = int(pick(rng, [1, d]))
        inputs.append(rng.uniform(-0.6, 0.6, (count, 2 * classes, part, part)).astype(dtype))
    raw = _ps_raw(d, scale, g, bins, trans_std, part)

    def build(ps, d=d, scale=scale, g=g, bins=bins, trans_std=trans_std, part=part):
        return ops1.deformable_psroi_pooling(ps[0], ps[1], d, scale, g, PS_MODE, bins[0], bins[1], trans_std, part,
                                             offsets=ps[2] if len(ps) > 2 else None)

    what = f"DeformablePSROIPooling-1 {np.dtype(dtype).name} {[list(v.shape) for v in inputs]} {raw}"
    return Case(what, inputs, build, rule_limits(PS, raw, inputs)), raw


def ps_cases(rng: np.random.Generator, count: int) -> list[Case]:
    return [ps_case(rng, np.float16 if i % 5 == 4 else np.float32)[0] for i in range(count)]


def test_psroi_kernel_within_its_rounding_bound(tmp_path):
    failures = run_cases(ps_cases(np.random.default_rng(SEED + 4), 150), tmp_path, 75)
    assert not failures, f"{len(failures)} of 150 differ:\n" + "\n".join(failures[:20])


def test_psroi_bounds_carry_moves():
    """Data moved within its bounds moves the exact result by no more than the rule's bound (rois and offsets exact:
    moved, they move the places, and the rule gives no bound)."""
    rng = np.random.default_rng(SEED + 5)
    for _ in range(30):
        case, raw = ps_case(rng)
        inputs = [np.nan_to_num(case.inputs[0], nan=0.5, posinf=3.0, neginf=-3.0), *case.inputs[1:]]
        bounds = [np.abs(rng.standard_normal(inputs[0].shape)) * float(pick(rng, [1e-6, 1e-3, 0.5]))]
        assert_bounds_carry_moves(PS, raw, inputs, bounds + [EXACT] * (len(inputs) - 1), rng, case.what)


def _ps_shape_case(rng: np.random.Generator):
    d, g = (int(pick(rng, [1, 2, 3] * 4 + [0, -1])) for _ in range(2))
    shapes = [_dims(rng, [2, 8, 5, 6], [4] * 12 + [3, 5]), _dims(rng, [3, 5], [2] * 12 + [1, 3])]
    if rng.random() < 0.5:
        shapes.append(_dims(rng, [3, 2, 2, 2], [4] * 12 + [3]))
    elements = [pick(rng, ["f32"] * 4 + ["f16", "i32", "boolean", None]) for _ in shapes]
    mode = pick(rng, [PS_MODE] * 5 + ["bilinear"])
    raw = _ps_raw(d, 0.5, g, (2, 2), 0.1, 2, mode)
    typed = " ".join(f"{e}{show(s)}" for e, s in zip(elements, shapes, strict=True))
    what = f"DeformablePSROIPooling-1 {typed} {raw}"

    def theirs():
        def build():
            ps = parameters(elements, shapes)
            return ops1.deformable_psroi_pooling(ps[0], ps[1], d, 0.5, g, mode, 2, 2, 0.1, 2,
                                                 offsets=ps[2] if len(ps) > 2 else None)
        return openvino_outcome(build)

    def ours():
        return our_outcome("DeformablePSROIPooling", "opset1", raw, tensor_types(elements, shapes),
                           [None] * len(shapes))

    return what, theirs, ours


def test_psroi_shape_rule():
    rng = np.random.default_rng(SEED + 6)
    assert_shapes_agree([_ps_shape_case(rng) for _ in range(200)])


def test_psroi_compare_checks_it(tmp_path, capsys):
    """R-FCN's head: a Convolution's score maps pooled by DeformablePSROIPooling without and with offsets (rois
    drawn by compare inside the image): compared end to end and per layer, nothing unchecked."""
    rng = np.random.default_rng(SEED + 7)
    data = ops1.parameter([1, 4, 9, 8], np.float32, name="data")
    maps = ops1.convolution(data, ops1.constant((rng.standard_normal((18, 4, 1, 1)) * 0.5).astype(np.float32)),
                            [1, 1], [0, 0], [0, 0], [1, 1])
    rois = ops1.parameter([3, 5], np.float32, name="rois")
    offsets = ops1.constant(rng.uniform(-0.3, 0.3, (3, 4, 2, 2)).astype(np.float32))
    outputs = [ops1.deformable_psroi_pooling(maps, rois, 2, 0.5, 3, PS_MODE, 2, 2),
               ops1.deformable_psroi_pooling(maps, rois, 2, 0.5, 3, PS_MODE, 1, 2, 0.2, 2, offsets=offsets)]
    xml = tmp_path / "psroi.xml"
    ov.save_model(ov.Model([ops1.result(y) for y in outputs], [data, rois], "psroi"), xml)
    assert_compare_passes(xml, capsys, {"DeformablePSROIPooling@opset1"}, outputs=2)
