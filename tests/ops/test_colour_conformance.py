"""NV12toRGB-8, NV12toBGR-8, I420toRGB-8, I420toBGR-8 (ops/colour.py) against OpenVINO: shape rules and CPU kernel.

Kernel: 320 seeded cases (the four ops, on one input or on planes; u8, f32, f16 and f64 frames of 1 to 3 images of 2
to 16 by 2 to 24 pixels: u8 anywhere in 0..255, floats integral in 0..255, anywhere in -100..400, and the special
values +-0, +-inf, NaN, subnormals, the clamp's edges and the u8 rounding's ties) batched 80 to a model and compiled
once per model for OpenVINO CPU: bit for bit. Then every (y, u, v) of u8 through NV12toRGB on the CPU: bit for bit.
Shape rules: 400 seeded nodes on Parameters (partial shapes, element types u8, real or not, dynamic) must give our
rule's output, or both refuse; RGBtoNV12-17 and BGRtoNV12-17 (shape rules alone: OpenVINO cannot compute them) 300
more.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset8 as ops8
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.base.errors import UnsupportedError
from ir_tools.ops.colour import (
    BGR_TO_NV12_17,
    I420_TO_BGR_8,
    I420_TO_RGB_8,
    NV12_TO_BGR_8,
    NV12_TO_RGB_8,
    RGB_TO_NV12_17,
    ToNV12Attrs,
)
from ir_tools.ops.core import NoAttrs
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import (
    Case,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    blur,
    check_versions,
    openvino_outcome,
    our_outcome,
    parameters,
    pick,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino


@cache
def _cpu_compiles() -> bool:
    """Whether OpenVINO CPU compiles a colour conversion here: 2026.4.1 cannot below AVX-512 (ops/colour.py)."""
    p = ops1.parameter([1, 6, 4, 1], np.uint8)
    try:
        ov.Core().compile_model(ov.Model([ops8.nv12_to_rgb(p)], [p]), "CPU", CPU_CONFIG)
    except RuntimeError:
        return False
    return True


on_cpu = pytest.mark.skipif("not _cpu_compiles()", reason="OpenVINO CPU cannot compile colour conversions here")

SEED = 420
CASES_PER_MODEL = 80
#: type -> (OpenVINO's builder, inputs of the planar form, chroma channels)
OPS: dict[str, tuple[Callable[..., ov.Node], int, int]] = {
    "NV12toRGB": (ops8.nv12_to_rgb, 2, 2), "NV12toBGR": (ops8.nv12_to_bgr, 2, 2),
    "I420toRGB": (ops8.i420_to_rgb, 3, 1), "I420toBGR": (ops8.i420_to_bgr, 3, 1)}
SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40, 3e38, -3e38, 16, 128, 255, 256, -1,
                    255.5, 254.5, 0.5, -0.5, 15.999, 127.5, 128.5, 1e30], np.float32)


def frame_values(rng: np.random.Generator, dtype: np.dtype, shape: tuple[int, ...], special: float = 0.2
                 ) -> np.ndarray:
    """u8 anywhere; floats integral in 0..255 (a third), anywhere in -100..400, ``special`` of them special values."""
    n = int(np.prod(shape))
    if dtype == np.uint8:
        return rng.integers(0, 256, n).astype(np.uint8).reshape(shape)
    x = rng.uniform(-100, 400, n)
    integral = rng.random(n) < 0.33
    x[integral] = rng.integers(0, 256, int(integral.sum()))
    chosen = rng.random(n) < special
    x[chosen] = rng.choice(SPECIAL, int(chosen.sum()))
    with np.errstate(over="ignore"):
        return x.astype(np.float32).astype(dtype).reshape(shape)


def frames(rng: np.random.Generator, op: str, dtype: np.dtype, n: int, h: int, w: int, planar: bool,
           special: float = 0.2) -> list[np.ndarray]:
    """The inputs of ``op`` for ``n`` images of h by w: one [n, h * 3/2, w, 1] input, or its planes."""
    _, planes, channels = OPS[op]
    if not planar:
        return [frame_values(rng, dtype, (n, h * 3 // 2, w, 1), special)]
    chroma = [frame_values(rng, dtype, (n, h // 2, w // 2, channels), special) for _ in range(planes - 1)]
    return [frame_values(rng, dtype, (n, h, w, 1), special), *chroma]


def colour_cases(rng: np.random.Generator, count: int, special: float = 0.2, largest: int = 16) -> list[Case]:
    """``count`` cases: the four ops in turn, u8, f32, f16 and f64, one input or planes, 1 to 3 images of up to
    ``largest`` by ``largest`` * 3/2 pixels (``special``: the share of special float values)."""
    cases = []
    for i in range(count):
        op = list(OPS)[i % 4]
        dtype = np.dtype((np.uint8, np.float32, np.float16, np.float64)[(i // 4) % 4])
        n = int(rng.integers(1, 4))
        h, w = 2 * int(rng.integers(1, largest // 2 + 1)), 2 * int(rng.integers(1, largest * 3 // 4 + 1))
        xs = frames(rng, op, dtype, n, h, w, bool(rng.random() < 0.5), special)
        cases.append(Case(f"{op} {dtype}{[x.shape for x in xs]}", xs, lambda ps, op=op: OPS[op][0](*ps), bits=True))
    return cases


@on_cpu
@pytest.mark.parametrize("part", range(4))
def test_values_bit_for_bit(part: int, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, part])
    assert_all_pass(colour_cases(rng, CASES_PER_MODEL), tmp_path)


@on_cpu
def test_every_u8_pixel_bit_for_bit() -> None:
    """Every (y, u, v) of u8, 16.7M pixels, through NV12toRGB: the CPU rounds to even where the f32 value is a tie
    (OpenVINO's reference rounds it away from zero)."""
    u, v = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    uv = np.broadcast_to(np.stack([u, v], -1), (64, 256, 256, 2)).astype(np.uint8)
    y = np.tile(np.arange(256, dtype=np.uint8).reshape(64, 1, 2, 2), (1, 256, 1, 256)).reshape(64, 512, 512, 1)
    py, puv = (ops1.parameter(list(x.shape), np.uint8) for x in (y, uv))
    model = ov.Model([ops8.nv12_to_rgb(py, puv)], [py, puv])
    theirs = ov.Core().compile_model(model, "CPU", CPU_CONFIG)({0: y, 1: uv})[0]
    ours = NV12_TO_RGB_8.kernel(NoAttrs(), [y, uv])[0]
    assert np.array_equal(ours, theirs)


def test_other_element_types_are_not_modelled() -> None:
    with pytest.raises(UnsupportedError):
        I420_TO_RGB_8.kernel(NoAttrs(), [np.zeros((1, 3, 2, 1), np.int32)])


def test_the_bound_carries_moved_inputs() -> None:
    """f32 and f64 frames moved anywhere within their bounds (0 to 40 f32 ulps of each value, half of them 0.5 more:
    across the clamp's edges) give results within the rule's bound, for each op, one input or planes."""
    rng = np.random.default_rng([SEED, 7])
    for i, spec in enumerate((NV12_TO_RGB_8, NV12_TO_BGR_8, I420_TO_RGB_8, I420_TO_BGR_8) * 4):
        dtype = (np.float32, np.float64)[i % 2]
        xs = [frame_values(rng, np.float32, x.shape).astype(dtype) for x in
              frames(rng, spec.type, np.dtype(np.uint8), 2, 6, 8, planar=i % 8 < 4)]
        xs = [np.where(np.isfinite(x), x, 7) for x in xs]
        bounds = [np.abs(x) * rng.integers(0, 41, x.shape) * 2.0**-23 + rng.choice([0, 0.5], x.shape) for x in xs]
        assert_bounds_carry_moves(spec, {}, xs, bounds, rng, spec.type)


def test_the_bound_carries_moved_u8_inputs() -> None:
    """u8 frames whose values may be a step off (a bound of 1, as a rounded Convert gives): every frame moved by -1, 0
    or +1 per value gives u8 results within the rule's bound, the rounding to integers' extra step included."""
    rng = np.random.default_rng([SEED, 8])
    for spec in (NV12_TO_RGB_8, NV12_TO_BGR_8, I420_TO_RGB_8, I420_TO_BGR_8):
        for planar in (True, False):
            xs = frames(rng, spec.type, np.dtype(np.uint8), 2, 8, 8, planar)
            ys = spec.kernel(NoAttrs(), xs)
            limit = spec.rounding(spec.kernel, NoAttrs(), xs, [np.ones(x.shape) for x in xs], ys)[0]
            for _ in range(16):
                moved = [np.clip(x + rng.integers(-1, 2, x.shape), 0, 255).astype(np.uint8) for x in xs]
                got = spec.kernel(NoAttrs(), moved)[0].astype(np.float64)
                assert np.all(np.abs(got - ys[0]) <= limit), spec.type


def _shape_case(rng: np.random.Generator) -> tuple[str, Callable, Callable]:
    op = pick(rng, list(OPS))
    _, planes, channels = OPS[op]
    n, h, w = (int(rng.integers(1, 5)) * 2 + int(rng.random() < 0.15) for _ in range(3))
    planar = rng.random() < 0.6
    if planar:
        lengths = [[n, h, w, 1], *[[n, h // 2 + int(rng.random() < 0.1), w // 2, channels]] * (planes - 1)]
    else:
        lengths = [[n, h * 3 // 2 + int(rng.random() < 0.2), w, 1]]
    if rng.random() < 0.15:  # a wrong rank or channel count
        j = int(rng.integers(len(lengths)))
        lengths[j] = lengths[j][:3] if rng.random() < 0.5 else [*lengths[j][:3], int(rng.integers(1, 4))]
    shapes = [None if rng.random() < 0.1 else tuple(blur(rng, d) for d in dims) for dims in lengths]
    elements = [pick(rng, ["u8", "u8", "f32", "f32", "f16", "bf16", "f64", "i32", "boolean", None])] * len(lengths)
    if rng.random() < 0.15:
        elements[-1] = pick(rng, ["u8", "f32", None])

    def theirs():
        return openvino_outcome(lambda: OPS[op][0](*parameters(elements, shapes)))

    def ours():
        return our_outcome(op, "opset8", {}, tensor_types(elements, shapes), [None] * len(shapes))

    return f"{op} {elements} {[show(s) for s in shapes]}", theirs, ours


def test_shape_rules_agree() -> None:
    rng = np.random.default_rng([SEED, 1])
    assert_shapes_agree([_shape_case(rng) for _ in range(400)])


def _to_nv12_case(rng: np.random.Generator) -> tuple[str, Callable, Callable]:
    op = pick(rng, ["RGBtoNV12", "BGRtoNV12"])
    single = bool(rng.random() < 0.5)
    lengths = [int(rng.integers(1, 4)), *(int(rng.integers(1, 5)) * 2 + int(rng.random() < 0.15) for _ in range(2)),
               3 if rng.random() < 0.85 else int(rng.integers(1, 5))]
    lengths = lengths[:3] if rng.random() < 0.05 else lengths
    shape = None if rng.random() < 0.1 else tuple(blur(rng, d) for d in lengths)
    element = pick(rng, ["u8", "u8", "f32", "f32", "f16", "bf16", "f64", "i32", "boolean", None])

    def theirs():
        return openvino_outcome(lambda: NodeFactory("opset17").create(
            op, parameters([element], [shape])[0].outputs(), {"single_plane": single}))

    def ours():
        return our_outcome(op, "opset17", {"single_plane": str(single).lower()}, tensor_types([element], [shape]),
                           [None])

    return f"{op} single_plane={single} {element} {show(shape)}", theirs, ours


def test_to_nv12_shape_rules_agree() -> None:
    """RGBtoNV12-17 and BGRtoNV12-17: 300 seeded nodes, each single_plane value."""
    rng = np.random.default_rng([SEED, 2])
    assert_shapes_agree([_to_nv12_case(rng) for _ in range(300)])


@pytest.mark.parametrize("element", ["f8e4m3", "f8e5m2", "f4e2m1", "nf4"])
def test_to_nv12_refuses_narrow_types(element: str) -> None:
    p = ops1.parameter([1, 4, 6, 3], getattr(ov.Type, element))
    assert openvino_outcome(lambda: NodeFactory("opset17").create("RGBtoNV12", p.outputs(), {})) == "rejects"
    assert our_outcome("RGBtoNV12", "opset17", {}, tensor_types([element], [None]), [None]) == "rejects"


@pytest.mark.parametrize("spec", [RGB_TO_NV12_17, BGR_TO_NV12_17], ids=lambda s: s.type)
def test_to_nv12_has_no_cpu_kernel(spec) -> None:
    """OpenVINO's CPU plugin cannot compile it (nor evaluate it): no kernel, and ``check`` says why."""
    p = ops1.parameter([1, 4, 6, 3], np.uint8)
    node = NodeFactory("opset17").create(spec.type, p.outputs(), {})
    with pytest.raises(RuntimeError, match="Cannot fallback on ngraph reference"):
        ov.Core().compile_model(ov.Model(node.outputs(), [p]), "CPU", CPU_CONFIG)
    assert spec.kernel is None and spec.cpu_refuses(ToNV12Attrs(), tensor_types(["u8"], [None]), [None])


def test_two_of_i420s_inputs_are_refused() -> None:
    assert our_outcome("I420toRGB", "opset8", {}, tensor_types(["u8"] * 2, [None, None]), [None] * 2) == "rejects"


@pytest.mark.parametrize("element", ["f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1", "nf4", "i8", "u4"])
def test_narrow_types(element: str) -> None:
    """OpenVINO takes u8 and every real type (its ``is_real``: the f8 and f4 types too, not nf4)."""
    theirs = openvino_outcome(lambda: ops8.nv12_to_rgb(ops1.parameter([1, 6, 4, 1], getattr(ov.Type, element))))
    assert (theirs == "rejects") == (element in ("nf4", "i8", "u4"))
    assert our_outcome("NV12toRGB", "opset8", {}, tensor_types([element], [((1, 1), (6, 6), (4, 4), (1, 1))]),
                       [None]) == theirs


def test_opsets(tmp_path: Path) -> None:
    y, uv = ops1.parameter([1, 4, 4, 1], np.uint8), ops1.parameter([1, 2, 2, 2], np.uint8)
    u, v = ops1.parameter([1, 2, 2, 1], np.uint8), ops1.parameter([1, 2, 2, 1], np.uint8)
    rgb = ops1.parameter([1, 4, 6, 3], np.uint8)
    nodes = {"NV12toRGB": ops8.nv12_to_rgb(y, uv), "NV12toBGR": ops8.nv12_to_bgr(y, uv),
             "I420toRGB": ops8.i420_to_rgb(y, u, v), "I420toBGR": ops8.i420_to_bgr(y, u, v),
             **{op: NodeFactory("opset17").create(op, rgb.outputs(), {}) for op in ("RGBtoNV12", "BGRtoNV12")}}
    assert check_versions(nodes, [y, uv, u, v, rgb], tmp_path) == []


@on_cpu
def test_compare_checks_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A camera frame's preprocessing: NV12 (u8, one input) to BGR, then Convert and a Multiply, and an I420 (f32
    planes computed by a Multiply) to RGB, compared end to end and per layer, nothing left unchecked."""
    x = ops1.parameter([1, 12, 8, 1], np.uint8, name="frame")
    scaled = ops1.multiply(ops1.convert(ops8.nv12_to_bgr(x), "f32"), ops1.constant(np.float32(1 / 255)))
    y, u, v = (ops1.parameter(s, np.float32, name=n) for s, n in (([1, 8, 8, 1], "y"), ([1, 4, 4, 1], "u"),
                                                                  ([1, 4, 4, 1], "v")))
    rgb = ops8.i420_to_rgb(ops1.multiply(y, ops1.constant(np.float32(3.7))), u, v)
    xml = tmp_path / "colour.xml"
    ov.save_model(ov.Model([ops1.result(scaled), ops1.result(rgb)], [x, y, u, v], "colour"), xml)
    assert_compare_passes(xml, capsys, {"NV12toBGR@opset8", "I420toRGB@opset8"}, outputs=2)
