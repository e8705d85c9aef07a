"""Newer op versions that are an older one, inputs and attributes alike (measured): NonMaxSuppression-9 as
NonMaxSuppression-5, and MulticlassNms-9 without its roisnum input as MulticlassNms-8."""

from __future__ import annotations

from collections import Counter

from ...ir.model import Graph, Layer
from ..base import PassResult
from .base import Downgrade, respelled

#: label -> (the older version's opset, the most inputs the older version takes: a layer with more is left).
_SAME = {"NonMaxSuppression-9": ("opset5", 6), "MulticlassNms-9": ("opset8", 2)}


class SameOpTo(Downgrade):
    """A layer of a newer op version whose inputs and attributes the older one has, respelled (releases before 2022.2
    have no opset9). Measured on OpenVINO 2023.0 and 2026.4: NonMaxSuppression-9 and -5 (every attribute, soft NMS,
    tied scores) and MulticlassNms-9 and -8 (every attribute, two inputs) give the same three outputs on 200 of 200
    layers each (``tests/downgrade/test_same_op.py``). MulticlassNms-9 with roisnum (its third input), which -8 lacks,
    is left, for ``retarget`` to refuse (``declines``)."""

    rewrites = {"NonMaxSuppression-9": "into NonMaxSuppression-5",
                "MulticlassNms-9": "into MulticlassNms-8 where it has no roisnum input"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in self.layers(graph):
            label = _label(layer)
            opset = _SAME[label][0]
            respelled(graph, layer, opset)
            stats[f"{label} -> {label.split('-')[0]}-{opset.removeprefix('opset')}"] += 1
        return PassResult(graph, bool(stats), stats)

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        """A layer with more inputs than the older version takes (MulticlassNms-9's roisnum)."""
        label = _label(layer)
        if len(layer.inputs) > _SAME[label][1]:
            return f"it has {len(layer.inputs)} inputs, which {label.split('-')[0]}-{_SAME[label][0][5:]} does not take"
        return None


def _label(layer: Layer) -> str:
    """The label of ``_SAME`` that ``layer`` (one of the pass's) is."""
    return next(label for label in _SAME if label.split("-")[0].lower() == layer.type.lower())
