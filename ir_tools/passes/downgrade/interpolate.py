"""Interpolate-11 as Interpolate-4."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...ir.model import Graph, Layer
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..pattern import typed_attrs
from .base import Downgrade

#: The modes Interpolate-4 has; -11 adds bilinear_pillow and bicubic_pillow.
_MODES_OF_4 = ("nearest", "linear", "linear_onnx", "cubic")


class InterpolateTo4(Downgrade):
    """Interpolate-11 as Interpolate-4, as OpenVINO's own ConvertInterpolate11ToInterpolate4 (docs/SEMANTICS.md):
    the same attributes; -11's input 1 (sizes or scales, as shape_calculation_mode says) goes to -4's sizes or
    scales, and the other is a Const of ones (i32 sizes, f32 scales), which -4 reads only for its type, one per axis
    (the axes input's length, else the data's rank); axes stay input 3. bilinear_pillow and bicubic_pillow, which -4
    does not have, are left for InterpolatePillowTo1 (``interpolate_pillow``); a length unknown from the declared
    dims, for ``retarget`` to refuse."""

    rewrites = {"Interpolate-11": "into Interpolate-4 (not bilinear_pillow or bicubic_pillow)"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            a = typed_attrs(layer)
            count = _axis_count(layer)
            if a.mode not in _MODES_OF_4 or count is None:
                continue
            builder.replace_layer(layer, lambda: [_as_4(builder, layer, a.shape_calculation_mode, count)],  # noqa: B023
                                  origin_text(layer, "Interpolate-11"))
            stats[f"Interpolate-11 ({a.shape_calculation_mode}) -> Interpolate-4"] += 1
        return PassResult(graph, bool(stats), stats)


def _axis_count(layer: Layer) -> int | None:
    """How many axes the layer resizes: the axes input's declared length, else the data's declared rank."""
    dims = layer.inputs[2].dims if len(layer.inputs) == 3 else layer.inputs[0].dims
    if dims is None or (len(layer.inputs) == 3 and (len(dims) != 1 or dims[0] < 0)):
        return None
    return dims[0] if len(layer.inputs) == 3 else len(dims)


def _as_4(builder: GraphBuilder, layer: Layer, shape_mode: str, count: int) -> Output:
    graph, name = builder.graph, layer.name
    data, given, *axes = (graph.producer_key(layer.id, port) for port in layer.input_ids())
    if shape_mode == "scales":
        sizes, scales = builder.const(np.ones(count, np.int32), f"{name}/sizes"), given
    else:
        sizes, scales = given, builder.const(np.ones(count, np.float32), f"{name}/scales")
    return output_of(builder.add("Interpolate", "opset4", dict(layer.attrs), [data, sizes, scales, *axes], name))
