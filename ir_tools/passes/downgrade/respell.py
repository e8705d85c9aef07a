"""Newer op versions that are an older one while their added attribute has its default."""

from __future__ import annotations

from collections import Counter

from ...ir.model import Graph
from ...ops import attrs as A
from ...ops.opsets import lookup
from ..base import PassResult
from .base import Downgrade

#: label -> (the added attribute, its default, the older version's opset). ScatterNDUpdate-15 adds reductions
#: (``none`` is -3's update); Squeeze-15 adds allow_axis_skip.
_SAME_AS_OLDER = {"ScatterNDUpdate-15": ("reduction", "none", "opset4"),
                  "Squeeze-15": ("allow_axis_skip", False, "opset1")}


class Respell(Downgrade):
    """A layer of a newer op version whose added attribute has its default, written as the older version (which
    has no such attribute): ScatterNDUpdate-15 ``reduction="none"`` as -3, Squeeze-15 ``allow_axis_skip="false"``
    as -1. Any other is left, for another downgrade or for ``retarget`` to refuse."""

    rewrites = {"ScatterNDUpdate-15": "into ScatterNDUpdate-3 where its reduction is none",
                "Squeeze-15": "into Squeeze-1 where allow_axis_skip is false"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in self.layers(graph):
            spec = lookup(layer.type, layer.version)
            attribute, default, opset = _SAME_AS_OLDER[spec.label]
            if getattr(A.decode(spec.attrs, layer.attrs, layer.loc), attribute) != default:
                continue
            older = lookup(layer.type, opset)
            layer.version, layer.attrs = opset, {}
            stats[f"{spec.label} ({attribute} {default}) -> {older.label}"] += 1
        return PassResult(graph, bool(stats), stats)
