"""Gather-8 as Gather-7."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dtypes import element_type
from ...ir.model import Edge, Graph, Layer
from ...ops.operands import normalize_axis
from ..base import PassResult
from ..builder import GraphBuilder, Output, output_of
from ..shapes import declared_type
from .base import Downgrade, drop_unused, numpy_dtype


class GatherTo7(Downgrade):
    """Gather-8 as Gather-7 (for releases before 2022.1), where its axis is a Const. Gather-8 adds negative
    indices, counted from the end of the axis; both give zeros for an index outside the axis (Gather-7 for any
    negative one: measured on OpenVINO 2023.0 and 2026.4 CPU). So the indices in [-dim, 0) are made non-negative:

    1. Const indices on a static axis dim: in a new Const (as OpenVINO's own ConvertGather8ToGather7);
    2. otherwise: ``Select(indices < 0, indices + dim, indices)`` before the Gather-7, ``dim`` a Const or taken
       from ShapeOf (an index below -dim stays negative: zeros, as Gather-8 gives);
    3. a Gather-8 whose axis is fed is left, for ``retarget`` to refuse.

    Rule 2 holds for indices within i32 (OpenVINO CPU computes Less, Add and Select of i64 in i32).
    """

    rewrites = {"Gather-8": "into Gather-7 where its axis is a constant"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            keys = [graph.producer_key(layer.id, port) for port in layer.input_ids()]
            data = declared_type(graph.layer(keys[0][0]).output(keys[0][1]))
            indices_layer, axis_layer = graph.layer(keys[1][0]), graph.layer(keys[2][0])
            if data.shape is None or not axis_layer.is_a("Const"):
                continue
            axis = normalize_axis(int(graph.const_array(axis_layer).reshape(-1)[0]), len(data.shape))
            dim = data.shape[axis]
            constant = indices_layer.is_a("Const")
            if constant and not (graph.const_array(indices_layer) < 0).any():
                rule = "indices >= 0"
            elif constant and dim.is_static:
                indices = graph.const_array(indices_layer)
                normal = np.where((indices < 0) & (indices >= -dim.lo), indices + dim.lo, indices)
                _feed_indices(graph, layer, builder.const(normal.astype(indices.dtype), f"{layer.name}/indices"))
                drop_unused(graph, [indices_layer])
                rule = "Const indices made non-negative"
            else:
                _feed_indices(graph, layer, _non_negative(builder, layer, keys[0], keys[1], axis))
                rule = "indices made non-negative by a Select"
            layer.version = "opset7"
            graph.touch(layer.id)
            stats[f"Gather-8 -> Gather-7 ({rule})"] += 1
        return PassResult(graph, bool(stats), stats)


def _feed_indices(graph: Graph, layer: Layer, source: Output) -> None:
    port = layer.input_ids()[1]
    graph.remove_edge(graph.producers(layer.id, port)[0])
    graph.add_edge(Edge(source[0], source[1], layer.id, port))


def _non_negative(builder: GraphBuilder, layer: Layer, data: Output, indices: Output, axis: int) -> Output:
    """Rule 2: ``Select(indices < 0, indices + dim, indices)``."""
    name, dtype = layer.name, numpy_dtype(builder, indices, "i64")
    dim_type = builder.type_of(data).shape[axis]
    if dim_type.is_static:
        dim = builder.const(np.array(dim_type.lo, dtype), f"{name}/dim")
    else:
        shape = builder.add("ShapeOf", "opset1", None, [data], f"{name}/shape")
        picked = builder.add("Gather", "opset1", None, [shape, builder.const(np.array(axis, np.int64), f"{name}/at"),
                                                        builder.const(np.array(0, np.int64), f"{name}/axis0")],
                             f"{name}/dim_i64")
        dim = output_of(picked if dtype == np.int64 else builder.add(
            "Convert", "opset1", {"destination_type": element_type(builder.type_of(indices).element).name},
            [picked], f"{name}/dim"))
    zero = builder.const(np.array(0, dtype), f"{name}/zero")
    negative = builder.add("Less", "opset1", None, [indices, zero], f"{name}/negative")
    shifted = builder.add("Add", "opset1", None, [indices, dim], f"{name}/shifted")
    return output_of(builder.add("Select", "opset1", None, [negative, shifted, indices], f"{name}/indices"))
