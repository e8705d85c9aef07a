"""Squeeze-15 with allow_axis_skip as Squeeze-1 (or an identity Reshape-1)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.opsets import lookup
from ...ops.reshape import ReshapeAttrs
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from .base import Downgrade, drop_unused


class SqueezeSkipTo1(Downgrade):
    """Squeeze-15 with ``allow_axis_skip="true"`` on an input of static shape, exactly, where its axes are a Const
    (or absent):

    1. no axes, or none listed: Squeeze-15 squeezes every dim of 1 whatever allow_axis_skip, as Squeeze-1 does:
       respelled;
    2. axes listed: an axis whose dim is 1 is squeezed, any other skipped: Squeeze-1 with the axes whose dim is 1
       (2023.0's Squeeze-1 refuses an axis that is not 1), or where there is none, Reshape-1 to the input's own
       shape (a pattern of zeros with special_zero);
    3. a dynamic input is left, for ``retarget`` to refuse, as are axes that are not a Const: OpenVINO CPU
       (2026.4) refuses to compile Squeeze-15 with allow_axis_skip on any dynamic input ("Squeeze is not
       implemented"), so there is no behaviour to reproduce.
    """

    rewrites = {"Squeeze-15": "into Squeeze-1 (or an identity Reshape-1) where allow_axis_skip is true, its axes "
                              "constant and its input of static shape"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            spec = lookup(layer.type, layer.version)
            if not A.decode(spec.attrs, layer.attrs, layer.loc).allow_axis_skip:
                continue  # Respell's
            keys = [graph.producer_key(layer.id, port) for port in layer.input_ids()]
            shape = builder.type_of(keys[0]).shape
            source = graph.layer(keys[1][0]) if len(keys) == 2 else None
            if shape is None or not all(d.is_static for d in shape) or (source and not source.is_a("Const")):
                continue
            listed = [] if source is None else [int(v) for v in graph.const_array(source).reshape(-1)]
            if not listed:
                layer.version, layer.attrs = "opset1", {}
                graph.touch(layer.id)
                stats["Squeeze-15 (allow_axis_skip, no axes) -> Squeeze-1"] += 1
                continue
            if not all(-len(shape) <= a < len(shape) for a in listed):
                continue
            squeezed = sorted({a % len(shape) for a in listed if shape[a].lo == 1})
            builder.replace_layer(layer, lambda: [_squeeze(builder, layer, keys[0], squeezed)],  # noqa: B023
                                  origin_text(layer, spec.label))
            drop_unused(graph, [source])
            stats[f"Squeeze-15 (allow_axis_skip) -> {'Squeeze-1' if squeezed else 'Reshape-1'}"] += 1
        return PassResult(graph, bool(stats), stats)


def _squeeze(builder: GraphBuilder, layer: Layer, data: Output, squeezed: list[int]) -> Output:
    name = layer.name
    if squeezed:
        axes = builder.const(np.array(squeezed, np.int64), f"{name}/axes")
        return output_of(builder.add("Squeeze", "opset1", None, [data, axes], name))
    rank = len(builder.type_of(data).shape or ())
    same = builder.const(np.zeros(rank, np.int64), f"{name}/same_shape")
    return output_of(builder.add("Reshape", "opset1", ReshapeAttrs(special_zero=True), [data, same], name))
