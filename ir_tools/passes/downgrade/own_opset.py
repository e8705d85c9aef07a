"""A layer spelled with a newer opset than its op version's own, for a release that lacks that opset."""

from __future__ import annotations

from collections import Counter

from ...ir.model import Graph
from ...ops.releases import has_probed_values, own_opset
from ..base import PassResult
from .base import Downgrade


class OwnOpset(Downgrade):
    """Every opset holds the op versions of the opsets before it, so AvgPool-1 is ``version="opset8"`` as well as
    ``"opset1"`` (``to_opset8`` writes the former). For a release that lacks the opset written (2021.4 has no
    opset8), a layer is respelled with its op version's own opset when the release creates it there; runs last."""

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        if self.target is None:
            return PassResult(graph, False, stats)
        left: set[tuple[str, str | None]] = set()  # (type, version) left whatever the attributes (most layers)
        for layer in graph.layers():
            kind = (layer.type, layer.version)
            if kind in left:
                continue
            own = own_opset(*kind)
            if own is None or own == layer.version:
                left.add(kind)
                continue
            if self.target.creates(layer.type, layer.version, layer.attrs) \
                    or not self.target.creates(layer.type, own, layer.attrs):
                if not (has_probed_values(*kind) or has_probed_values(layer.type, own)):  # (the same for every layer)
                    left.add(kind)
                continue
            stats[f"{layer.type} {layer.version} -> {own} (the same op version)"] += 1
            layer.version = own
            graph.touch(layer.id)
        return PassResult(graph, bool(stats), stats)
