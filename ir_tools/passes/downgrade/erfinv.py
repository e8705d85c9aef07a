"""ErfInv-17 as Multiply-1, Subtract-1, Gather-1 of a table and Select-1 (releases before 2026.2 have no opset17)."""

from __future__ import annotations

from functools import cache

import numpy as np

from ...ir.model import Graph, Layer
from ...ops.cpu import fma
from ..base import PassResult
from ..builder import GraphBuilder, Output, output_of
from ..shapes import declared_type
from .base import Downgrade, source

LABEL = "ErfInv-17"

#: The element types rewritten: f32, and f16 by way of f32 (the current CPU computes f16 so: measured).
TYPES = ("f32", "f16")

#: ``1 - x*x`` of an f32 ``|x| < 1`` is a multiple of 2^-24 in [2^-23, 1] (Sterbenz, or the ulp of [0.5, 1)).
GRID = 2**24


class ErfInvTo1(Downgrade):
    """ErfInv-17 as the current OpenVINO CPU computes it, bit for bit (docs/SEMANTICS.md). Its x64 JIT emitter
    evaluates Giles' approximation in f32: ``v = 1 - x*x`` (two roundings), ``w = -log(v)`` by the emitter's own log
    (``v``'s exponent ``e`` and ``t = v / 2^e - 1``, a polynomial in ``t`` by FMAs, ``fma(e, ln2, p(t) t)``), then
    ``q`` a polynomial in ``w - 2.5`` where ``w < 5``, else in ``sqrt(w) - 3`` (by FMAs), ``y = q * x``; ``|x| = 1``
    gives ``+-inf``, ``|x| > 1`` and NaN the NaN 0x7fc00000. No older op rounds an FMA once on every release (OpenVINO
    CPU fuses a Multiply-1 into the Add-1 it feeds on static shapes only), and ``w`` must be exact, as the two
    branches are 0.4% apart at ``w = 5``. But ``q`` depends on ``v`` alone, which takes 2^24 + 1 values (``GRID``):
    the rewrite looks ``q`` up in a table of all of them (``cpu_factors``; one per graph, 64 MiB) by Gather-1 at
    ``v * 2^24`` (exact; at 1 where ``|x| >= 1`` or NaN), multiplies it by ``x`` (Multiply-1, the emitter's last
    rounding) and sets ``+-inf`` and NaN by Select-1. f16 goes by way of f32, as the current CPU computes it; other
    types are left (``declines``)."""

    rewrites = {LABEL: "into Gather-1 of a table of the current CPU's factors (64 MiB, one per model or body) at "
                       "1 - x*x, Multiply-1 by x and Select-1 for x of magnitude 1 or more and NaN, on f32 and f16"}

    def apply(self, graph: Graph) -> PassResult:
        table: list[Output] = []  # the graph's one table, built with the first layer rewritten

        def build(builder: GraphBuilder, layer: Layer) -> Output:
            if not table:
                table.append(builder.const(cpu_factors(), f"{layer.name}/erfinv_factors"))
            return _erfinv(builder, layer, table[0])

        return self.replace_each(graph, build, LABEL, "Gather-1 + Multiply-1 + Select-1")

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        """An input of a type but f32 and f16: f64 the current CPU computes in f32 and gives ``+-1`` as
        ``+-3.4028235e38``, not ``+-inf`` (measured on 2026.4); bf16 is not measured."""
        element = declared_type(layer.inputs[0]).element
        if element in TYPES:
            return None
        return f"its input is {element or 'of an unknown type'}, where the rewrite is built and measured on f32 and f16"


def _erfinv(builder: GraphBuilder, layer: Layer, table: Output) -> Output:
    """The class's rewrite of the ErfInv-17 ``layer``, reading the factors from ``table``."""
    name, x = layer.name, source(builder.graph, layer, 0)
    element = declared_type(layer.inputs[0]).element or "f32"
    narrow = element != "f32"
    if narrow:
        x = output_of(builder.convert(x, "f32", f"{name}/f32"))

    def const(value: float, what: str) -> Output:
        return builder.const(np.array(value, np.float32), f"{name}/{what}")

    def op(op_type: str, inputs: list[Output], what: str) -> Output:
        return output_of(builder.add(op_type, "opset1", None, inputs, f"{name}/{what}"))

    one = const(1.0, "one")
    v = op("Subtract", [one, op("Multiply", [x, x], "square")], "v")
    magnitude = op("Abs", [x], "abs")
    inside = op("Less", [magnitude, one], "inside")
    at = op("Select", [inside, v, one], "at")  # (|x| >= 1 and NaN: any index in range; replaced below)
    index = builder.convert(op("Multiply", [at, const(float(GRID), "grid")], "scaled"), "i32", f"{name}/index")
    axis = builder.const(np.array(0, np.int64), f"{name}/axis")
    factor = op("Gather", [table, output_of(index), axis], "factor")
    y = op("Select", [inside, op("Multiply", [factor, x], "inner"), op("Multiply", [x, const(np.inf, "inf")],
                                                                        "infinite")], "bounded")
    outputs = [declared_type(layer.outputs[0])]
    nan = const(np.nan, "nan")
    defined = op("LessEqual", [magnitude, one], "defined")
    if not narrow:
        return output_of(builder.add("Select", "opset1", None, [defined, y, nan], name, outputs=outputs))
    wide = op("Select", [defined, y, nan], "wide")
    return output_of(builder.convert(wide, element, name, outputs=outputs))


#: The emitter's constants (bit patterns, as its table holds them): the log polynomial from its t^7 coefficient
#: down to 1, ln 2, and the two branches' polynomials from the highest coefficient down.
_LOG = (0xBE000000, 0x3E12491B, 0xBE2AAAC1, 0x3E4CCCCD, 0xBE800000, 0x3EAAAA9F, 0xBF000000, 0x3F800000)
_LN2 = 0x3F317218
_CENTRAL = (0x32F16588, 0x34B84B36, 0xB66C7357, 0xB6935AC1, 0x396532DB, 0xBAA45408, 0xBB88E4EF, 0x3E7C8F63,
            0x3FC02E2F)
_TAIL = (0xB951F09B, 0x38D3B56B, 0x3AB0DC72, 0xBB70BDE7, 0x3BBC127B, 0xBBF9C5D7, 0xBC1AA57E, 0x3F8036DB, 0x40354F7E)


def _f32(bits: int) -> np.float32:
    return np.array(bits, np.uint32).view(np.float32)[()]


def _horner(coefficients: tuple[int, ...], s: np.ndarray) -> np.ndarray:
    """The emitter's Horner scheme: ``r = fma(r, s, c)`` from the highest coefficient down."""
    r = np.full(s.shape, _f32(coefficients[0]), np.float32)
    for bits in coefficients[1:]:
        r = fma(r, s, _f32(bits))
    return r


@cache
def cpu_factors() -> np.ndarray:
    """The factor ``q`` of ``y = q * x`` OpenVINO CPU's ErfInv-17 computes at each ``v = 1 - x*x = k / 2^24`` (index
    ``k``, 0 to 2^24; a v the emitter never meets, 0, holds what it would give), in f32, as its x64 JIT emitter computes
    it (AVX2 and AVX-512: FMAs). Computed in chunks that stay in the CPU's cache, once per process."""
    out = np.empty(GRID + 1, np.float32)
    step = 2**15
    for start in range(0, GRID + 1, step):
        v = (np.arange(start, min(start + step, GRID + 1), dtype=np.float64) / GRID).astype(np.float32)
        bits = v.view(np.uint32)
        e = ((bits >> 23).astype(np.int32) - 126).astype(np.float32)  # v = m * 2^e, m in [0.5, 1)
        t = ((bits & 0x7FFFFF) | 0x3F800000).view(np.float32) * np.float32(0.5) - np.float32(1)
        w = -fma(e, _f32(_LN2), _horner(_LOG, t) * t)
        factors = _horner(_CENTRAL, w - np.float32(2.5))
        tail = ~(w < np.float32(5))  # (v below e^-5: a few in a thousand, computed apart)
        factors[tail] = _horner(_TAIL, np.sqrt(w[tail]) - np.float32(3))
        out[start:start + v.size] = factors
    return out
