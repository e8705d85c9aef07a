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
                         rounding=_rounding)
