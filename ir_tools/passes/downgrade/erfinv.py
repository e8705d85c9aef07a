"""ErfInv-17 as Multiply-1, Subtract-1, Gather-1 of a table and Select-1 (releases before 2026.2 have no opset17)."""

from __future__ import annotations

import numpy as np

from ...ir.model import Graph, Layer
from ...ops.erfinv import GRID, cpu_factors
from ..base import PassResult
from ..builder import GraphBuilder, Output, output_of
from ..shapes import declared_type
from .base import Downgrade, source

LABEL = "ErfInv-17"

#: The element types rewritten: f32, and f16 by way of f32 (the current CPU computes f16 so: measured).
TYPES = ("f32", "f16")


class ErfInvTo1(Downgrade):
    """ErfInv-17 as the current OpenVINO CPU computes it by FMAs (AVX2 and AVX-512), bit for bit: ``y = q(v) * x`` of
    ``v = 1 - x*x``, ``q`` the emitter's steps (``ops/erfinv.py``, docs/SEMANTICS.md). No older op rounds an FMA once
    on every release (OpenVINO CPU fuses a Multiply-1 into the Add-1 it feeds on static shapes only), and ``w`` must be
    exact, as the two branches are 0.4% apart at ``w = 5``. But ``q`` depends on ``v`` alone, which takes 2^24 + 1
    values (``GRID``): the rewrite looks ``q`` up in a table of all of them (``cpu_factors``; one per graph, 64 MiB)
    by Gather-1 at ``v * 2^24`` (exact; at 1 where ``|x| >= 1`` or NaN), multiplies it by ``x`` (Multiply-1, the
    emitter's last rounding) and sets ``+-inf`` and NaN by Select-1. f16 goes by way of f32, as the current CPU
    computes it; other types are left (``declines``)."""

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
