"""NV12toRGB-8, NV12toBGR-8, I420toRGB-8 and I420toBGR-8: the colour conversions OpenVINO's PrePostProcessor puts in
front of a model that takes camera frames. Shape rules, and a kernel that computes them as OpenVINO CPU does, bit for
bit. And the other way, RGBtoNV12-17 and BGRtoNV12-17: shape rules alone.

Frames are NHWC. NV12 comes as one input, the Y plane with the interleaved UV plane below it ([N, H * 3 / 2, W, 1]),
or as two, Y [N, H, W, 1] and UV [N, H / 2, W / 2, 2]; I420 as one input, Y then the U plane then the V plane, each
plane's rows one after the other ([N, H * 3 / 2, W, 1]), or as three, Y, U [N, H / 2, W / 2, 1] and V alike. Each
U, V sample serves a 2x2 block of Y. The output [N, H, W, 3] (RGB, or BGR) is of the input's element type: u8, or a
real type.

Measured on openvino 2026.4.1:

- The four are in opset8 to opset16 (opset17 holds none of them). No attributes.
- Shape rules (OpenVINO's nv12_shape_inference.hpp and i420_shape_inference.hpp, on intervals): Y of rank 4 (or a
  dynamic rank) with 1 channel; one input: H times 2, divided by 3 (an interval's lower bound ceiled, its upper one
  floored; one holding no multiple is refused); more: the UV plane (U merged with V for I420) of rank 4 with 2 channels
  (NV12) or 1 (I420), its H and W times 2, merged into Y's shape (channels aside); then the output's channels are 3 and
  its H and W must hold an even length (an unbounded H of one input becomes bounded: 1.. gives 1..3074457345618258432,
  2 (2^63 - 1) / 3 floored). The inputs' element types merge (a dynamic one merges with any) and must be u8 or real
  (the f8 and f4 types too; not nf4 nor other integers), or dynamic.
- The CPU computes in f32 (f16 data converted to f32 on the way in, f64 data saturated into f32's range: an infinity
  is 3.4028235e38, so that G of y = 3e38 and v = inf is 255, not the 0 of NaN; the result back in the data's type): with
  ``c = (y - 16) * 1.164``, ``d = u - 128``, ``e = v - 128`` (each rounded), ``R = c + 1.596 e``,
  ``G = (c - 0.391 d) - 0.813 e``, ``B = c + 2.018 d``, each product and each sum rounded (no FMA: by FMAs 576 of 3840
  f32 values came out otherwise), then ``min(max(x, 0), 255)`` where a NaN gives 0 (vmaxps), and for u8 rounded to
  nearest, ties to even (vcvtps2dq): all 16.7M (y, u, v) of u8 bit for bit. OpenVINO's reference (its evaluator)
  rounds ties away from zero (std::round): 19,216 of those 50M u8 channels, where the f32 value is a tie, differ; the
  kernel follows the CPU.
- OpenVINO CPU compiles them only where oneDNN may use AVX-512: with ONEDNN_MAX_CPU_ISA at AVX2 or SSE41 every one
  of them, u8 or f32, fails to compile ("jit_load_emitter: have unexpected number of elements to load"), where an Add
  compiles; the kernel is this machine's AVX-512 one (the same on the JIT's tails: widths 2 to 66).
- bf16 data is not modelled (compare lists it as not checked); nor are the f8 and f4 types, which OpenVINO's shape
  inference takes.
- RGBtoNV12-17 and BGRtoNV12-17 (opset17 only): an image [N, H, W, 3] (rank 4 or dynamic, channels holding 3, H and W
  holding an even length) of u8, f16, bf16, f32 or f64 (not the f8 and f4 types) to NV12 of its type: single_plane
  (true where omitted) [N, H * 3 / 2, W, 1] (H times 3, divided by 2 on intervals: 3..7 gives 5..10), else Y [N, H, W,
  1] and UV [N, H / 2, W / 2, 2]. OpenVINO's CPU plugin cannot compile either ("Cannot fallback on ngraph reference
  implementation": no evaluate), so there is no kernel to check: ``check`` refuses the layer (``cpu_refuses``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim, Shape
from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .arithmetic import merge_elements, merge_shapes
from .core import NoAttrs
from .embedding import cpu_values
from .intervals import contains, ddiv, dmul, guarded, is_empty, iv, to_dim
from .rounding import ACCUMULATION_UNIT, EXACT, is_exact
from .spec import Kernel, OpSpec, TensorType, never

_F = np.float32
#: BT.601 as the CPU's converter holds it: Y's offset and scale, U's and V's offset, and the R, G, B factors.
_Y_OFFSET, _Y_SCALE, _UV_OFFSET = _F(16), _F(1.164), _F(128)
_V_TO_R, _U_TO_G, _V_TO_G, _U_TO_B = _F(1.596), _F(0.391), _F(0.813), _F(2.018)
#: Per output channel R, G, B: the factors of (y, u, v) in the formula, by magnitude.
_FACTORS = tuple(tuple(float(f) for f in row) for row in ((_Y_SCALE, 0, _V_TO_R), (_Y_SCALE, _U_TO_G, _V_TO_G),
                                                          (_Y_SCALE, _U_TO_B, 0)))
_TWICE = (2, 2)


# --- shape rules -------------------------------------------------------------------------------------


def _colour_rule(planes: int, uv_channels: int) -> Callable:
    """The shape rule of NV12 (``planes`` 2, UV of ``uv_channels`` 2) or I420 (3, 1), on one input or ``planes``."""

    def infer(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
        if len(inputs) not in (1, planes):
            raise OpValidationError(f"{len(inputs)} inputs: it takes 1 or {planes}")
        y = inputs[0].shape
        if y is not None and (len(y) != 4 or not contains(iv(y[3]), 1)):
            raise OpValidationError(f"Y of shape {_show(y)}: it must be [N, H, W, 1]")
        out = list(y) if y is not None else [DYNAMIC] * 4
        if len(inputs) == 1:
            height = ddiv(dmul(iv(out[1]), _TWICE), 3)
            if is_empty(height):
                raise OpValidationError(f"a single plane of height {out[1]}: it must be divisible by 3")
            out[1] = to_dim(height)
        else:
            if planes == 2:  # (NV12 merges Y's shape, its channels made UV's 2, with UV's doubled; I420 keeps Y's)
                out[3] = Dim(uv_channels, uv_channels)
            out = list(_merged(tuple(out), _full_size(inputs[1:], uv_channels), "Y and the chroma planes"))
        out[3] = Dim(3, 3)
        for axis, what in ((1, "height"), (2, "width")):
            if is_empty(ddiv(iv(out[axis]), 2)):
                raise OpValidationError(f"an image {what} of {out[axis]}: it must be even")
        element = inputs[0].element
        for other in inputs[1:]:
            element = merge_elements(element, other.element)
        if element is not None and element != "u8" and element not in REAL_TYPES:
            raise OpValidationError(f"inputs of element type {element}: they must be u8 or a floating-point type")
        return [TensorType(element, tuple(out))]

    return guarded(infer)


def _full_size(uv: Sequence[TensorType], channels: int) -> Shape:
    """The chroma plane (U merged with V for I420) of rank 4 and ``channels`` channels, its H and W doubled: what it
    must agree with in Y's shape."""
    shape = uv[0].shape
    for other in uv[1:]:
        shape = _merged(shape, other.shape, "U and V")
    if shape is None:
        return None
    if len(shape) != 4 or not contains(iv(shape[3]), channels):
        raise OpValidationError(f"a chroma plane of shape {_show(shape)}: it must be [N, H/2, W/2, {channels}]")
    return (shape[0], to_dim(dmul(iv(shape[1]), _TWICE)), to_dim(dmul(iv(shape[2]), _TWICE)), shape[3])


def _merged(x: Shape, y: Shape, what: str) -> Shape:
    """``PartialShape::merge_into``: OpValidationError where they disagree."""
    try:
        return merge_shapes(x, y)
    except OpValidationError:
        raise OpValidationError(f"{what} of shapes {_show(x)} and {_show(y)}: they disagree") from None


def _show(shape: Shape) -> str:
    return "[...]" if shape is None else "[" + ",".join(str(d) for d in shape) + "]"


# --- kernels -----------------------------------------------------------------------------------------


def _nv12_planes(args: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Y [N, H, W] and U, V [N, H/2, W/2] of NV12 given as one input or two."""
    if len(args) == 1:
        x = args[0][..., 0]
        height = x.shape[1] * 2 // 3
        return x[:, :height], x[:, height:, 0::2], x[:, height:, 1::2]
    return args[0][..., 0], args[1][..., 0], args[1][..., 1]


def _i420_planes(args: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Y [N, H, W] and U, V [N, H/2, W/2] of I420 given as one input or three."""
    if len(args) == 1:
        x = args[0][..., 0]
        n, rows, width = x.shape
        height = rows * 2 // 3
        chroma = x[:, height:].reshape(n, 2, height // 2, width // 2)
        return x[:, :height], chroma[:, 0], chroma[:, 1]
    return args[0][..., 0], args[1][..., 0], args[2][..., 0]


def _upsampled(plane: np.ndarray) -> np.ndarray:
    """A chroma plane [N, H/2, W/2] at Y's size: each sample over its 2x2 block."""
    return np.repeat(np.repeat(plane, 2, axis=1), 2, axis=2)


def _converted(y: np.ndarray, u: np.ndarray, v: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """R, G, B [N, H, W, 3] as the CPU computes them in f32 (f64 saturated into its range), clamped to [0, 255] (NaN
    to 0), in ``dtype``."""
    with np.errstate(all="ignore"):
        y, u, v = (cpu_values(p, np.dtype(_F)).astype(_F) for p in (y, u, v))
        c = (y - _Y_OFFSET) * _Y_SCALE
        d = _upsampled(u - _UV_OFFSET)
        e = _upsampled(v - _UV_OFFSET)
        rgb = np.stack([c + _V_TO_R * e, (c - _U_TO_G * d) - _V_TO_G * e, c + _U_TO_B * d], axis=-1)
    rgb = np.fmin(np.fmax(rgb, _F(0)), _F(255))
    return np.rint(rgb).astype(np.uint8) if dtype == np.uint8 else rgb.astype(dtype)


def _colour_kernel(planes: Callable, bgr: bool) -> Kernel:
    def run(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        xs = [np.asarray(x) for x in args]
        dtype = xs[0].dtype
        if dtype not in (np.uint8, np.float16, np.float32, np.float64):
            raise UnsupportedError(f"colour conversion of element type {dtype}: only u8, f16, f32 and f64 are "
                                   "modelled (ops/colour.py)")
        rgb = _converted(*planes(xs), dtype)
        return [rgb[..., ::-1].copy() if bgr else rgb]

    return run


# --- rounding rule -----------------------------------------------------------------------------------


def _colour_rounding(planes: Callable, bgr: bool) -> Callable:
    """Exact where the inputs are (the kernel is the CPU's, bit for bit). An input error moves each channel by at most
    its factors times the bounds (the clamp moves nothing more), plus the kernel's own f32 roundings on either side:
    about six per channel (the inputs' conversion to f32, the offsets, the products, the sums), each within u of the
    magnitudes ``M`` (1.164 (|y| + 16) and the chroma factors times |u| + 128, |v| + 128): 12 u M in all; a u8 result
    may step one more (rounding to integers)."""

    def rule(kernel: Kernel, a: NoAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        if all(is_exact(b) for b in bounds):
            return [EXACT]
        wide = [np.broadcast_to(np.asarray(b, np.float64), np.shape(x)) for x, b in zip(args, bounds, strict=True)]
        with np.errstate(all="ignore"):
            size = [np.abs(np.asarray(x, np.float64)) + w for x, w in zip(args, wide, strict=True)]
        by, bu, bv = (_upsampled(p) if i else p for i, p in enumerate(planes(wide)))
        my, mu, mv = (_upsampled(p) if i else p for i, p in enumerate(planes(size)))
        offsets = (my + 16.0, mu + 128.0, mv + 128.0)
        channels = []
        for factors in _FACTORS:
            moved = sum(f * b for f, b in zip(factors, (by, bu, bv), strict=True))
            magnitude = sum(f * m for f, m in zip(factors, offsets, strict=True))
            with np.errstate(invalid="ignore"):
                bound = moved + 12 * ACCUMULATION_UNIT * magnitude
            channels.append(np.where((moved > 0) | np.isnan(moved), bound, 0.0))
        out = np.stack(channels[::-1] if bgr else channels, axis=-1)
        out[np.isnan(out)] = np.inf
        if np.asarray(outputs[0]).dtype.kind != "f":
            out = np.where(out > 0, out + 1, 0.0)
        return [out]

    return rule


@dataclass(frozen=True, slots=True)
class ToNV12Attrs:
    """OpenVINO's IR reader takes an omitted single_plane as true (measured: tests/test_read_by_design.py)."""

    single_plane: bool = A.attr("single_plane", A.BOOL, True)


#: The element types RGBtoNV12 and BGRtoNV12 take: u8 and f16, bf16, f32, f64 (not the f8 and f4 types).
_TO_NV12_TYPES = frozenset({"u8", "f16", "bf16", "f32", "f64"})


def _to_nv12(a: ToNV12Attrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """RGB or BGR [N, H, W, 3] to NV12: one output [N, H * 3/2, W, 1], or Y [N, H, W, 1] and UV [N, H/2, W/2, 2]."""
    (x,) = inputs
    if x.shape is not None and (len(x.shape) != 4 or not contains(iv(x.shape[3]), 3)):
        raise OpValidationError(f"an image of shape {_show(x.shape)}: it must be [N, H, W, 3]")
    if x.element is not None and x.element not in _TO_NV12_TYPES:
        raise OpValidationError(f"an image of element type {x.element}: it must be u8, f16, bf16, f32 or f64")
    n, h, w, _ = x.shape if x.shape is not None else [DYNAMIC] * 4
    for d, what in ((h, "height"), (w, "width")):
        if is_empty(ddiv(iv(d), 2)):
            raise OpValidationError(f"an image {what} of {d}: it must be even")
    if a.single_plane:
        return [TensorType(x.element, (n, to_dim(ddiv(dmul(iv(h), (3, 3)), 2)), w, Dim(1, 1)))]
    half = [to_dim(ddiv(iv(d), 2)) for d in (h, w)]
    return [TensorType(x.element, (n, h, w, Dim(1, 1))), TensorType(x.element, (n, *half, Dim(2, 2)))]


def _no_cpu_kernel(a: ToNV12Attrs, inputs: Sequence[TensorType], values) -> str:
    return ("OpenVINO 2026.4.1's CPU plugin has no RGBtoNV12 or BGRtoNV12 (\"Cannot fallback on ngraph reference "
            "implementation\": it has no evaluate either)")


def _spec(op: str, planes: Callable, count: int, uv_channels: int, bgr: bool) -> OpSpec:
    return OpSpec(op, f"{op}-8", NoAttrs, (1, count), 1, _colour_rule(count, uv_channels),
                  _colour_kernel(planes, bgr), rounding=_colour_rounding(planes, bgr), evaluates=never)


NV12_TO_RGB_8 = _spec("NV12toRGB", _nv12_planes, 2, 2, bgr=False)
NV12_TO_BGR_8 = _spec("NV12toBGR", _nv12_planes, 2, 2, bgr=True)
I420_TO_RGB_8 = _spec("I420toRGB", _i420_planes, 3, 1, bgr=False)
I420_TO_BGR_8 = _spec("I420toBGR", _i420_planes, 3, 1, bgr=True)

#: Shape rules alone: OpenVINO can compute neither (so compare has nothing to check a kernel against).
RGB_TO_NV12_17 = OpSpec("RGBtoNV12", "RGBtoNV12-17", ToNV12Attrs, (1, 1), -1, guarded(_to_nv12),
                        cpu_refuses=_no_cpu_kernel)
BGR_TO_NV12_17 = OpSpec("BGRtoNV12", "BGRtoNV12-17", ToNV12Attrs, (1, 1), -1, guarded(_to_nv12),
                        cpu_refuses=_no_cpu_kernel)
