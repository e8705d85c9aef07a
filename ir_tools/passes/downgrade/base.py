"""What every downgrade shares: a pass that rewrites layers of newer op versions into older ones, exactly, and
says which op versions it rewrites (``check --target`` names it beside each layer a release cannot create)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import ClassVar

from ...ir.model import Graph, Layer
from ...ops.releases import Release, op_label
from ..base import Pass


class Downgrade(Pass):
    """A rewrite into older op versions, of the layers ``target`` cannot create (every one without a target).
    ``rewrites``: op label -> what it becomes and when, as ``check --target`` prints it ("into MaxPool-8
    (ceil_torch on static spatial dims)")."""

    rewrites: ClassVar[dict[str, str]] = {}

    def __init__(self, target: Release | None = None) -> None:
        self.target = target  # None: every layer of those op versions; else only those the release cannot create

    def layers(self, graph: Graph) -> Iterator[Layer]:
        """The layers to rewrite, in file order (a snapshot: the pass may edit the graph)."""
        for layer in list(graph.layers()):
            if op_label(layer.type, layer.version) in self.rewrites and (
                    self.target is None or not self.target.creates(layer.type, layer.version or "", layer.attrs)):
                yield layer


def drop_unused(graph: Graph, layers: Iterable[Layer]) -> None:
    """Remove those of ``layers`` (the inputs of a layer just replaced, say its Consts) that nothing reads now."""
    for layer in layers:
        if graph.has_layer(layer.id) and not any(graph.consumers(layer.id, port.id) for port in layer.outputs):
            graph.remove_layer(layer.id)
