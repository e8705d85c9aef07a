"""FakeConvert-13 (opset13 to opset16): shape rule, reference kernel and rounding rule.

FakeConvert emulates an 8-bit float on f32, f16 or bf16 data (NNCF writes it for f8e4m3 and f8e5m2 quantization):
``t = x * scale - shift``, ``t`` rounded to the ``destination_type`` grid, ``y = (t + shift) / scale``; ``shift``
(optional) is 0 where omitted.

Measured on openvino 2026.4.1 (tests/ops/test_fake_convert_conformance.py), beyond the specification: the CPU plugin
decomposes the layer (FakeConvertDecomposition) and computes it in f32 whatever the data's type (f16 data rounded
to f16 once, at the end): ``t = x * scale - shift`` in two roundings (no FMA), clamped to the type's largest
magnitude (448, 57344; NaN gives the lowest, -448 or -57344; infinities clamp); ``t`` rounded to f16 by OpenVINO's
own ``float16(float)`` (to nearest even, but where the rounding to 11 bits of a value below the f16 normal range
carries, at magnitudes in [2^k (1 - 2^-12), 2^k) for k <= -15, it gives ``float16(2 t)``; on a CPU with AVX512-FP16,
oneDNN's conversion instead, vcvtps2ph's, to nearest even without that doubling: ``f16_doubles_carries``), then to
the f8 grid (to
nearest even; quantum 2^-9 below 2^-6 for f8e4m3, 2^-16 below 2^-14 for f8e5m2); back as ``(u - (0 - shift)) *
(1 / scale)``, the reciprocal correctly rounded (a Const scale's reciprocal is folded by ``powf`` instead: 1 ulp off
in about one case in 2000; a Const shift is negated exactly, which turns ``-0 - (0 - 0)`` into +0; a Const
scale of one element but 1 multiplies as ``r u + 0``, a -0 coming out +0).
A layer whose inputs OpenVINO knows when it compiles the model (Consts: weights) it folds by its evaluate()
instead, the reference's other arithmetic (``folded``: in the data's own type, the f8 grid emulated on f16 bits,
a division by the scale; 42 of 48 seeded layers differ from the kernel's somewhere, by up to a step of the f8 grid).
Shape inference: scale and shift shapes must merge (equal where both static); the output is the data's shape
broadcast with the scale's (numpy), which must not grow the data's; one element type for all inputs, bf16, f16 or
f32; ``destination_type`` f8e4m3 or f8e5m2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from ..base.errors import OpValidationError, UnsupportedError
from ..base.packed import is_bf16, ov_bfloat16
from . import attrs as A
from .arithmetic import broadcast_shapes, merge_elements, merge_shapes
from .cpu import mayiuse
from .rounding import ACCUMULATION_UNIT, is_exact, output_rounding
from .spec import Kernel, OpSpec, TensorType

#: The destination_type OpenVINO's reader gives a layer without one (measured on 2026.4: it reads and runs it).
OMITTED_DESTINATION = "f8e4m3"


@dataclass(frozen=True, slots=True)
class FakeConvertAttrs:
    destination_type: str = A.attr("destination_type", A.enum("f8e4m3", "f8e5m2"), OMITTED_DESTINATION)


@dataclass(frozen=True, slots=True)
class Float8:
    """An 8-bit float type as FakeConvert rounds to it: significant bits, smallest normal exponent, largest value."""

    bits: int
    min_exponent: int
    largest: float

    @property
    def quantum(self) -> float:
        """The spacing of its subnormals (and of its smallest binade)."""
        return 2.0 ** (self.min_exponent - self.bits + 1)


FLOAT8 = {"f8e4m3": Float8(4, -6, 448.0), "f8e5m2": Float8(3, -14, 57344.0)}
#: f16 as a grid: 11 significant bits, smallest normal exponent -14.
F16_GRID = Float8(11, -14, 65504.0)
#: The smallest power of two whose f16 neighbourhood OpenVINO's ``float16(float)`` rounds exactly: below it, in the
#: f16 subnormal range, a carry of the rounding to 11 bits doubles the result.
F16_CARRY_EXACT_FROM = 2.0**-14


def _infer(a: FakeConvertAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    element = inputs[0].element
    for t in inputs[1:]:
        element = merge_elements(element, t.element, "FakeConvert's inputs")
    if element is not None and element not in ("f32", "f16", "bf16"):
        raise OpValidationError(f"data of {element}: FakeConvert takes bf16, f16 or f32")
    if len(inputs) == 3:
        merge_shapes(inputs[1].shape, inputs[2].shape)  # (OpValidationError where they differ; no further use)
    data = inputs[0].shape
    out = broadcast_shapes(data, inputs[1].shape, "numpy")
    if data is not None and out is not None:
        merge_shapes(data, out)  # (OpValidationError where the scale would broadcast the data)
    return [TensorType(element, out if data is not None else None)]


def grid(v: np.ndarray, fmt: Float8) -> np.ndarray:
    """``v`` (float64 of f32 values) rounded to nearest even on ``fmt``'s grid: ``fmt.bits`` significant bits, no
    finer than ``fmt.quantum``; signs and zeros kept (no clamp: the caller's)."""
    with np.errstate(all="ignore"):
        exponent = np.floor(np.log2(np.abs(v)))
    exponent = np.where(np.isfinite(exponent), np.maximum(exponent, fmt.min_exponent), fmt.min_exponent)
    step = np.exp2(exponent - (fmt.bits - 1))
    return np.copysign(np.rint(v / step) * step, v)


@cache
def f16_doubles_carries() -> bool:
    """Whether the current OpenVINO CPU rounds to f16 on the way to an f8 type by its own ``float16(float)``, whose
    carry below f16's normal range doubles (``openvino_f16``): unless oneDNN may use AVX512-FP16 here (its
    ``avx512_core_fp16``: the CPU's flags, ONEDNN_MAX_CPU_ISA), where its intel_cpu/nodes/common/cpu_convert.cpp
    converts by oneDNN's fp8 emulation, vcvtps2ph's rounding (measured on 2026.4, a Xeon with AVX512-FP16: the 320
    seeded layers of tests/ops/test_fake_convert_conformance.py, 40 of them f8e5m2 layers the doubling would miss)."""
    return not mayiuse("AVX512_CORE_FP16")


def openvino_f16(t: np.ndarray) -> np.ndarray:
    """The current OpenVINO CPU's rounding to f16 of float64 ``t`` of f32 values within f16's range, on the way to an
    f8 type: to nearest even; where it rounds by its own ``float16(float)`` (``f16_doubles_carries``), a value whose
    rounding to 11 bits carries to a power of two ``2^k``, ``k <= -15`` (the f16 subnormal range: magnitude in
    [2^k (1 - 2^-12), 2^k)), comes out as ``float16(2 t)``, the exponent taken after the carry."""
    if not f16_doubles_carries():
        return grid(t, F16_GRID)
    magnitude = np.abs(t)
    with np.errstate(all="ignore"):
        power = np.exp2(np.ceil(np.log2(magnitude)))
    carries = (magnitude >= power * (1 - 2.0**-12)) & (magnitude < power) & (power < F16_CARRY_EXACT_FROM)
    return grid(np.where(carries, 2 * t, t), F16_GRID)


def _run(a: FakeConvertAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(args[0])
    if x.dtype.kind != "f":  # (f64: the executor's exact values, computed as the CPU computes f32)
        raise UnsupportedError(f"FakeConvert of {x.dtype} data")
    fmt = FLOAT8[a.destination_type]
    scale = np.broadcast_to(np.asarray(args[1], np.float32), x.shape)
    largest = np.float32(fmt.largest)
    with np.errstate(all="ignore"):
        t = x.astype(np.float32) * scale
        if len(args) == 3:
            shift = np.broadcast_to(np.asarray(args[2], np.float32), x.shape)
            t = t - shift
        t = np.where(np.isnan(t), -largest, np.clip(t, -largest, largest))
        u = grid(openvino_f16(t.astype(np.float64)), fmt).astype(np.float32)
        if len(args) == 3:
            u = u - (np.float32(0) - shift)
        y = u * (np.float32(1) / scale)
        return [y.astype(x.dtype)]


def ov_float16(values: np.ndarray) -> np.ndarray:
    """f32 ``values`` rounded to f16 by OpenVINO's own ``float16(float)`` (src/core/src/type/float16.cpp), bit for bit:
    to nearest even, an f32 subnormal a zero of its sign, a value past f16's range infinite, and below f16's normal
    range the carry of the rounding taken into the exponent before the value is shifted into a subnormal (the
    doubling ``openvino_f16`` describes)."""
    iv = np.ascontiguousarray(np.asarray(values, np.float32)).view(np.uint32).astype(np.int64)
    sign, exp32 = iv & 0x80000000, iv & 0x7F800000
    frac = (iv & 0x007FFFFF) << 3
    kept = frac & 0x03FF0000
    special = sign | 0x7C000000 | np.where(frac == 0, 0, np.where(kept == 0, 0x00010000, kept))  # inf, NaN
    biased = (exp32 >> 23) - 127 + 15
    frac = np.where(_rounds_up(frac), frac + 0x8000, frac)
    carried = (frac & 0x7C000000) != 0
    biased = np.where(carried, biased + 1, biased)
    frac = np.where(carried, 0, frac & 0x03FF0000)
    normal = np.where(biased > 30, sign | 0x7C000000, sign | (np.maximum(biased, 0) << 26) | frac)
    hidden = 0x04000000 | ((iv & 0x007FFFFF) << 3)  # (below the normal range: the hidden 1 restored, shifted off)
    right = 1 - biased
    sticky = (hidden & ((np.int64(1) << np.clip(right, 0, 31)) - 1)) != 0
    sticky = np.where(biased < -30, hidden != 0, sticky)
    small = np.where(right > 31, 0, hidden >> np.clip(right, 0, 31)) | sticky
    small = np.where(_rounds_up(small), small + 0x8000, small)
    bits = np.where(exp32 == 0x7F800000, special, np.where(exp32 == 0, sign, np.where(biased > 0, normal,
                                                                                         sign | small)))
    return (bits >> 16).astype(np.uint16).view(np.float16).reshape(np.shape(values))


def _rounds_up(frac: np.ndarray) -> np.ndarray:
    """``float16(float)``'s test for rounding up the 10 bits kept at bits 16 to 25 of ``frac``: the guard bit set and
    the last bit kept or a bit below the guard."""
    return ((frac & 0x1FFFF) == 0x18000) | ((frac & 0x7FFF) != 0)


def emulate_f8(t: np.ndarray, destination: str) -> np.ndarray:
    """f16 ``t`` on the ``destination`` grid as OpenVINO's reference emulates it on the f16 bits
    (reference/src/op/fake_convert.cpp, ``emulate_f8e4m3_on_fp16`` and ``emulate_f8e5m2_on_fp16``, clamping), bit
    for bit. f8e5m2: to nearest even at 2 mantissa bits, an infinite result (or infinity, or a NaN of no high
    mantissa bit) clamped to +-57344. f8e4m3: below 2^-9 a zero of its sign; past 448 (NaN and infinities too) +-448;
    to nearest even at 3 mantissa bits unless at least 0x5F80 in magnitude bits, and below 2^-6 that rounded value
    truncated to the subnormal step (not rounded to it)."""
    bits = np.ascontiguousarray(np.asarray(t, np.float16)).view(np.uint16).astype(np.int64)
    if destination == "f8e5m2":
        bits = np.where((bits & 0x7C00) != 0x7C00, bits + (((bits & 0xFF) > 0x80) | ((bits & 0x180) == 0x180)) * 0x100,
                        bits) & 0xFF00
        bits -= ((bits & 0x7F00) == 0x7C00) * 0x100
    else:
        with np.errstate(invalid="ignore"):
            bits = np.where(np.abs(np.asarray(t, np.float32)) < 2.0**-9, 0, bits)
        exponent = ((bits & 0x7C00) >> 10) - 15
        sign, mantissa = bits & 0x8000, bits & 0x03FF
        can_round = (bits & 0x7FFF) < 0x5F80
        clamped = exponent > 8
        flushed = ~clamped & (exponent < -9)
        exponent = np.where(clamped, 8, np.where(flushed, -15, exponent))
        mantissa = np.where(clamped, 0x300, np.where(flushed, 0, mantissa))
        mantissa = np.where((exponent == 8) & (mantissa >= 0x300), 0x300, mantissa)
        up = ((mantissa & 0x7F) > 0x40) | ((mantissa & 0xC0) == 0xC0)
        mantissa = np.where(~clamped & can_round & up, mantissa + 0x80, mantissa)  # (NaN and infinities: clamped)
        shift = np.where(exponent < -6, -6 - exponent, 0)
        mantissa = (((mantissa >> shift) & 0xFF80) << shift) + ((exponent + 15) << 10)
        bits = (mantissa | sign) & 0xFFFF
    return bits.astype(np.uint16).view(np.float16).reshape(np.shape(t))


def _folded(a: FakeConvertAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """OpenVINO's evaluate() of the layer (openvino/reference/fake_convert.hpp), by which it folds a FakeConvert of
    known inputs, as its CPU plugin folds weights fake-converted (measured on 2026.4: 1 element in 4 differs from the
    kernel's): in the data's own type, each f16 or bf16 step rounded by OpenVINO's ``float16(float)`` or
    ``bfloat16(float)``, ``t = x * scale - shift`` (shift 0 where omitted: a -0 comes out +0); ``t`` to f16 by
    ``float16(float)`` (measured: its carry's doubling, not vcvtps2ph's rounding, on this AVX2 CPU too), the f8 grid
    emulated on its bits (``emulate_f8``), back to the data's type; then ``y = (u + shift) / scale``, a division."""
    x = np.asarray(args[0])
    if x.dtype.kind != "f":
        raise UnsupportedError(f"FakeConvert of {x.dtype} data")
    shape = x.shape
    scale = np.broadcast_to(np.asarray(args[1], np.float32), shape)
    shift = np.broadcast_to(np.asarray(args[2], np.float32) if len(args) == 3 else np.float32(0), shape)
    with np.errstate(all="ignore"):
        if x.dtype == np.float16 or is_bf16(x.dtype):
            step = ov_float16 if x.dtype == np.float16 else ov_bfloat16  # (f32 in, f32 of the type's values out)
            t = step(step(x.astype(np.float32) * scale).astype(np.float32) - shift).astype(np.float32)
            u = emulate_f8(ov_float16(t), a.destination_type).astype(np.float32)
            u = step(u).astype(np.float32)  # (exact for f16; bf16 rounds an f16 of 11 bits)
            return [step(step(u + shift).astype(np.float32) / scale)]
        t = x.astype(np.float32) * scale - shift
        u = emulate_f8(ov_float16(t), a.destination_type).astype(np.float32)
        return [((u + shift) / scale).astype(x.dtype)]


def _rounding(kernel: Kernel, a: FakeConvertAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
              outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Exact inputs: the kernel's value but for a Const scale's reciprocal, which OpenVINO folds 1 ulp off (and the
    signs of zero a Const scale or shift changes): one f32 ulp. Inexact ones move ``t`` by ``|s| bx + |x| bs + bs bx
    + bo`` (and its own two roundings), which may cross a rounding boundary: ``u`` moves by that plus one step of the
    f8 grid at the larger magnitude (and ``openvino_f16``'s doubling, near f16's subnormal range); ``y = (u + o) / s``
    by ``(du + bo) / |s|`` plus ``|u + o| bs / (|s| (|s| - bs))``."""
    y = outputs[0]
    own = output_rounding(y, 1.0)
    if all(is_exact(b) for b in bounds):
        return [own]
    fmt = FLOAT8[a.destination_type]
    shape = np.shape(y)
    x, s = (np.broadcast_to(np.asarray(v, np.float64), shape) for v in args[:2])
    o = np.broadcast_to(np.asarray(args[2], np.float64), shape) if len(args) == 3 else np.zeros(shape)
    bx, bs = (np.broadcast_to(b, shape) for b in bounds[:2])
    bo = np.broadcast_to(bounds[2], shape) if len(args) == 3 else np.zeros(shape)
    with np.errstate(all="ignore"):
        t = x * s - o
        dt = np.abs(s) * bx + np.abs(x) * bs + bs * bx + bo + 4 * ACCUMULATION_UNIT * (np.abs(x * s) + np.abs(o))
        reach = np.minimum(np.abs(t) + dt, fmt.largest)
        step = np.exp2(np.maximum(np.floor(np.log2(reach)), fmt.min_exponent) - (fmt.bits - 1))
        u = np.clip(np.abs(t), 0, fmt.largest) + np.abs(o)
        du = dt + step + np.where(np.abs(t) - dt < F16_CARRY_EXACT_FROM, _carry_jump(fmt), 0.0)
        bound = own + (du + bo) / np.abs(s) + u * bs / (np.abs(s) * (np.abs(s) - bs))
        bound = np.where((bs < np.abs(s)) & np.isfinite(bound), bound, np.inf)
    return [bound]


def _carry_jump(fmt: Float8) -> float:
    """How far ``openvino_f16``'s doubling moves ``u``: from ``2^k`` to ``2^(k+1)``, ``k <= -15``, where ``fmt``
    keeps values that small (f8e5m2) and the CPU doubles (``f16_doubles_carries``); else nothing."""
    return F16_CARRY_EXACT_FROM / 2 if fmt.quantum < F16_CARRY_EXACT_FROM and f16_doubles_carries() else 0.0


FAKE_CONVERT_13 = OpSpec("FakeConvert", "FakeConvert-13", FakeConvertAttrs, (2, 3), 1, _infer, _run,
                         rounding=_rounding, folded=_folded, folded_on=(0, 1, 2))
