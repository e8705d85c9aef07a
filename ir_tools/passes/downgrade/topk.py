"""TopK-11 as TopK-3 (releases before 2023.0 have no opset11)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ...ir.model import Graph
from ...ops import attrs as A
from ..base import PassResult
from .base import Downgrade, respelled


@dataclass(frozen=True, slots=True)
class _Stable:
    """The one attribute TopK-11 adds to TopK-3 (ir_tools does not model TopK otherwise)."""

    stable: bool = A.attr("stable", A.BOOL, False)


class TopKTo3(Downgrade):
    """TopK-11 with ``stable="false"`` (the default) as TopK-3: the same op without the attribute, respelled.

    ``stable="true"`` is left, for ``retarget`` to refuse: OpenVINO's reference breaks ties by index in every
    version, but the CPU's TopK-3 does not (docs/SEMANTICS.md 7: with sort=value it ordered tied elements
    otherwise than TopK-11 stable in 73 of 120 cases with ties, on axes of 17 elements or more, on 2023.0 and the
    current release; sort=index agreed in 120 of 120, which is a measurement, not a rule of the CPU's algorithms).
    """

    rewrites = {"TopK-11": "into TopK-3 where stable is false"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in self.layers(graph):
            if A.decode(_Stable, layer.attrs, layer.loc).stable:
                continue
            respelled(graph, layer, "opset3")
            layer.attrs = {k: v for k, v in layer.attrs.items() if k != "stable"}
            stats["TopK-11 (stable false) -> TopK-3"] += 1
        return PassResult(graph, bool(stats), stats)
