"""Gather-8 as Gather-7."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...ir.model import Edge, Graph
from ...ops.operands import normalize_axis
from ..base import PassResult
from ..builder import GraphBuilder
from ..shapes import declared_type
from .base import Downgrade, drop_unused


class GatherTo7(Downgrade):
    """Gather-8 as Gather-7 (for releases before 2022.1). Gather-8 adds negative indices (counted from the end of
    the axis); so, as OpenVINO's own ConvertGather8ToGather7, a Gather-8 whose indices and axis are Consts, on a
    static axis dim, with every index in [-dim, dim), becomes Gather-7 with the negative indices made
    non-negative. Any other is left, for ``retarget`` to refuse."""

    rewrites = {"Gather-8": "into Gather-7 where its indices and axis are constants within the axis"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in self.layers(graph):
            keys = [graph.producer_key(layer.id, port) for port in layer.input_ids()]
            data = declared_type(graph.layer(keys[0][0]).output(keys[0][1]))
            indices_layer, axis_layer = graph.layer(keys[1][0]), graph.layer(keys[2][0])
            if data.shape is None or not (indices_layer.is_a("Const") and axis_layer.is_a("Const")):
                continue
            dim = data.shape[normalize_axis(int(graph.const_array(axis_layer).reshape(-1)[0]), len(data.shape))]
            indices = graph.const_array(indices_layer)
            if not dim.is_static or ((indices < -dim.lo) | (indices >= dim.lo)).any():
                continue
            if (indices < 0).any():
                normal = GraphBuilder(graph).const(np.where(indices < 0, indices + dim.lo, indices).astype(
                    indices.dtype), f"{layer.name}/indices")
                port = layer.input_ids()[1]
                graph.remove_edge(graph.producers(layer.id, port)[0])
                graph.add_edge(Edge(normal[0], normal[1], layer.id, port))
                drop_unused(graph, [indices_layer])
            layer.version = "opset7"
            stats["Gather-8 -> Gather-7"] += 1
        return PassResult(graph, bool(stats), stats)
