"""Pad-12 as Pad-1."""

from __future__ import annotations

from collections import Counter

from ...ir.model import Graph
from ..base import PassResult
from .base import Downgrade


class PadTo1(Downgrade):
    """Pad-12 as Pad-1: the same op but that Pad-12 also takes negative pads (a crop); so a Pad-12 whose pads are
    Consts, none negative, is respelled opset1, and any other is left, for ``retarget`` to refuse."""

    rewrites = {"Pad-12": "into Pad-1 where its pads are constants, none negative"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in self.layers(graph):
            pads = [graph.producer_key(layer.id, port) for port in layer.input_ids()[1:3]]
            sources = [graph.layer(key[0]) for key in pads if key is not None]
            if len(sources) != 2 or not all(s.is_a("Const") and (graph.const_array(s) >= 0).all() for s in sources):
                continue
            layer.version = "opset1"
            stats["Pad-12 (pads >= 0) -> Pad-1"] += 1
        return PassResult(graph, bool(stats), stats)
