"""A layer spelled with a newer opset than its op version's own, for a release that lacks that opset."""

from __future__ import annotations

from collections import Counter

from ...ir.model import Graph
from ...ops.releases import own_opset
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
        owns: dict[tuple[str, str | None], str | None] = {}  # (type, version) -> its own opset (asked once each)
        for layer in graph.layers():
            kind = (layer.type, layer.version)
            own = owns[kind] if kind in owns else owns.setdefault(kind, own_opset(*kind))
            if own is None or own == layer.version or self.target.creates(layer.type, layer.version, layer.attrs) \
                    or not self.target.creates(layer.type, own, layer.attrs):
                continue
            stats[f"{layer.type} {layer.version} -> {own} (the same op version)"] += 1
            layer.version = own
            graph.touch(layer.id)
        return PassResult(graph, bool(stats), stats)
