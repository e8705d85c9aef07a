"""Gather-8 as Gather-7, and Gather-7 as Gather-1."""

from __future__ import annotations

from collections import Counter

from ...ir.model import Graph, Layer
from ...ops.operands import normalize_axis
from ..base import PassResult
from ..builder import GraphBuilder, Output, drop_unused
from ..shapes import declared_type
from .base import Downgrade, feed, non_negative, respelled
from .convert_promote_types import INDICES_ALIKE


class GatherTo7(Downgrade):
    """Gather-8 as Gather-7 (for releases before 2022.1), where its axis is a Const. Gather-8 adds negative
    indices, counted from the end of the axis; both give zeros for an index outside the axis (Gather-7 for any
    negative one: measured on OpenVINO 2023.0 and 2026.4 CPU). So the indices in [-dim, 0) are made non-negative
    (``non_negative``: a new Const, or a Select; one below -dim stays negative: zeros, as Gather-8 gives). A Gather-8
    whose axis is fed is left, for ``retarget`` to refuse."""

    rewrites = {"Gather-8": "into Gather-7 where its axis is a constant"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            keys = [graph.producer_key(layer.id, port) for port in layer.input_ids()]
            data = declared_type(graph.layer(keys[0][0]).output(keys[0][1]))
            indices_layer, axis_layer = graph.layer(keys[1][0]), graph.layer(keys[2][0])
            keys[1] = _as_read(graph, keys[1])
            if data.shape is None or not axis_layer.is_a("Const"):
                continue
            axis = normalize_axis(int(graph.const_array(axis_layer).reshape(-1)[0]), len(data.shape))
            constant = indices_layer.is_a("Const")
            if constant and not (graph.const_array(indices_layer) < 0).any():
                rule = "indices >= 0"
            else:
                rule = "Const indices made non-negative" if constant and data.shape[axis].is_static else \
                    "indices made non-negative by a Select"
                feed(graph, layer, 1, non_negative(builder, layer.name, keys[0], keys[1], axis))
                drop_unused(graph, [indices_layer])
            respelled(graph, layer, "opset7")
            stats[f"Gather-8 -> Gather-7 ({rule})"] += 1
        return PassResult(graph, bool(stats), stats)


def _as_read(graph: Graph, indices: Output) -> Output:
    """The indices as a Gather reads them: those of a Convert-1 of ``INDICES_ALIKE`` (i32 into u32) are its input,
    which every release reads in its place, a negative one from the end (torchvision's detectors index their boxes
    so); any others as they are."""
    layer = graph.layer(indices[0])
    source = graph.producer_key(layer.id, layer.input_ids()[0]) if layer.is_a("Convert") else None
    if source is None:
        return indices
    given = declared_type(graph.layer(source[0]).output(source[1])).element
    return source if f"{given}->{declared_type(layer.outputs[0]).element}" in INDICES_ALIKE else indices


class GatherTo1(Downgrade):
    """Gather-7 as Gather-1 (for opset1 to opset6 targets), where its batch_dims is 0 (or -rank(indices), the same
    axis): Gather-7 adds only batch_dims, and both versions read the indices alike (OpenVINO's evaluator counts a
    negative one from the end, its CPU gives zeros: ``ops/gather.py``). After ``GatherTo7``, so a Gather-8 is
    rewritten this far too. Any other is left, for ``retarget`` to refuse."""

    rewrites = {"Gather-7": "into Gather-1 where its batch_dims is 0"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in self.layers(graph):
            respelled(graph, layer, "opset1")
            layer.attrs = {name: text for name, text in layer.attrs.items() if name != "batch_dims"}
            stats["Gather-7 -> Gather-1 (batch_dims 0)"] += 1
        return PassResult(graph, bool(stats), stats)

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        """A batch_dims other than 0 (Gather-1 has none), or one whose indices' rank is not known."""
        batch = int(layer.attrs.get("batch_dims", "0"))
        dims = declared_type(layer.inputs[1]).shape if len(layer.inputs) > 1 else None
        if batch == 0 or dims is not None and batch == -len(dims):
            return None
        return f"its batch_dims is {batch}, and Gather-1 gathers along no batch dims"
