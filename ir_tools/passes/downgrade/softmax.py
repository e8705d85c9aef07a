"""SoftMax-8 as SoftMax-1."""

from __future__ import annotations

from collections import Counter

from ...ir.model import Graph
from ...ops import attrs as A
from ...ops.softmax import Softmax1Attrs
from ..base import PassResult
from ..pattern import typed_attrs
from ..shapes import declared_type
from .base import Downgrade, source


class SoftMaxTo1(Downgrade):
    """SoftMax-8 as SoftMax-1 (for releases before 2022.1): SoftMax-8 only adds negative axes, counted from the
    rank; so with a static rank the axis is made non-negative, and on a dynamic rank a negative axis is left, for
    ``retarget`` to refuse."""

    rewrites = {"SoftMax-8": "into SoftMax-1 (a negative axis needs a static rank)"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in self.layers(graph):
            axis = typed_attrs(layer).axis
            if axis < 0:
                key = source(graph, layer, 0)
                shape = declared_type(graph.layer(key[0]).output(key[1])).shape
                if not shape:  # (a port without dims: a dynamic rank, as the IR writes one, or a scalar, which has
                    continue  # no axis for a SoftMax: either way, left; the QA run's E-PASS of a made axis of -1)
                axis += len(shape)
            layer.version, layer.attrs = "opset1", A.encode(Softmax1Attrs(axis))
            graph.touch(layer.id)
            stats["SoftMax-8 -> SoftMax-1"] += 1
        return PassResult(graph, bool(stats), stats)
