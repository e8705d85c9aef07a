"""Pass infrastructure: a pass takes a Graph and returns a PassResult; a manager runs a list."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..ir.model import Graph


@dataclass
class PassResult:
    graph: Graph
    modified: bool
    stats: Counter[str] = field(default_factory=Counter)  # e.g. {"AvgPool-14 -> AvgPool-1": 3}


GraphPass = Callable[[Graph], PassResult]


def run_passes(graph: Graph, passes: Sequence[GraphPass]) -> PassResult:
    """Run ``passes`` in order; the result is modified if any pass modified the graph."""
    total = PassResult(graph, False)
    for graph_pass in passes:
        result = graph_pass(total.graph)
        total = PassResult(result.graph, total.modified or result.modified, total.stats + result.stats)
    return total
