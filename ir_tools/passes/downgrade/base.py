"""What every downgrade shares: a pass that rewrites layers of newer op versions into older ones, exactly, and
says which op versions it rewrites (``check --target`` names it beside each layer a release cannot create), and
which layers of them a release computes wrongly (its measured defects, ``ops/releases.DEFECTS``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import ClassVar

import numpy as np

from ...base.dtypes import element_type
from ...ir.model import Graph, Layer
from ...ops.releases import Release, op_label
from ..base import Pass
from ..builder import GraphBuilder, Output


class Downgrade(Pass):
    """A rewrite into older op versions, of the layers ``target`` cannot create (every one without a target).
    ``rewrites``: op label -> what it becomes and when, as ``check --target`` prints it ("into MaxPool-8
    (ceil_torch on static spatial dims)"). ``repairs``: defect (a key of ``ops/releases.DEFECTS``) -> whether it hits
    a layer of those op versions: for a target with that defect, such a layer is rewritten too, though it creates
    it."""

    rewrites: ClassVar[dict[str, str]] = {}
    repairs: ClassVar[dict[str, Callable[[Graph, Layer], bool]]] = {}
    records_changes = True

    def __init__(self, target: Release | None = None) -> None:
        self.target = target  # None: every layer of those op versions; else only those the release cannot create

    def layers(self, graph: Graph) -> Iterator[Layer]:
        """The layers to rewrite, in file order (a snapshot: the pass may edit the graph). A layer's type, in any case,
        is its label's (``PRelu-1`` aside, whose type is PReLU): only layers of those types are asked for a label."""
        for layer in graph.of_types(label.rsplit("-", 1)[0].lower() for label in self.rewrites):
            if op_label(layer.type, layer.version) in self.rewrites and (
                    self.target is None or not self.target.creates(layer.type, layer.version or "", layer.attrs)
                    or self.defect(graph, layer) is not None):
                yield layer

    def defect(self, graph: Graph, layer: Layer) -> str | None:
        """The defect of the target (a key of ``ops/releases.DEFECTS``) that hits ``layer``, one of this pass's op
        versions; None without one (or without a target)."""
        if self.target is None or op_label(layer.type, layer.version) not in self.rewrites:
            return None
        found = (key for key, hits in self.repairs.items() if key in self.target.miscomputes and hits(graph, layer))
        return next(found, None)


def drop_unused(graph: Graph, layers: Iterable[Layer]) -> None:
    """Remove those of ``layers`` (the inputs of a layer just replaced, say its Consts) that nothing reads now."""
    for layer in layers:
        if graph.has_layer(layer.id) and not any(graph.consumers(layer.id, port.id) for port in layer.outputs):
            graph.remove_layer(layer.id)


def source(graph: Graph, layer: Layer, index: int) -> Output:
    """The output feeding ``layer``'s input ``index`` (the gate before a pass: every input is fed)."""
    key = graph.producer_key(layer.id, layer.input_ids()[index])
    assert key is not None
    return key


def numpy_dtype(builder: GraphBuilder, out: Output, default: str = "") -> np.dtype:
    """The numpy type of what ``out`` carries (``default`` where its element type is not known)."""
    return np.dtype(element_type(builder.type_of(out).element or default).numpy)
