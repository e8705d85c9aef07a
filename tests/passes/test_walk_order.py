"""The order shape propagation walks a graph in: Kahn's sort, the earliest ready layer (in file order) first, which
decides which diagnostic comes first; checked against a plain implementation on graphs whose edges do not all point
forward (as a spliced graph's), with parallel edges and layers of many inputs."""

from __future__ import annotations

import random

import pytest

from ir_tools.base.errors import IrToolsError
from ir_tools.ir.model import Edge, Graph, Layer, Port

N_INPUTS = 6


def _graph(rng: random.Random, n: int) -> Graph:
    """``n`` layers added in a shuffled order, each fed by up to ``N_INPUTS`` edges from earlier layers of a hidden
    order (several from one layer at times)."""
    rank = list(range(n))
    rng.shuffle(rank)
    g = Graph()
    for i in rank:
        g.add_layer(Layer(str(i), f"l{i}", "ReLU", "opset1", inputs=[Port(p) for p in range(N_INPUTS)],
                          outputs=[Port(N_INPUTS + p) for p in range(2)]))
    for i in range(1, n):
        for port in rng.sample(range(N_INPUTS), rng.randint(0, N_INPUTS)):
            g.add_edge(Edge(str(rng.randrange(i)), N_INPUTS + rng.randrange(2), str(i), port))
    return g


def _kahn(g: Graph) -> list[str] | None:
    """Kahn's sort as written plainly: the ready layer first in file order, one at a time."""
    ids = [layer.id for layer in g.layers()]
    waiting = {lid: len(g.in_edges(lid)) for lid in ids}
    order: list[str] = []
    while True:
        ready = [lid for lid in ids if waiting[lid] == 0 and lid not in order]
        if not ready:
            return order if len(order) == len(ids) else None
        order.append(ready[0])
        for edge in g.out_edges(ready[0]):
            waiting[edge.to_layer] -= 1


@pytest.mark.parametrize("seed", range(20))
def test_topological_order_is_kahns_with_the_earliest_ready_first(seed: int) -> None:
    g = _graph(random.Random(seed), 40)
    assert [layer.id for layer in g.topological_order()] == _kahn(g)
    assert g.find_cycle() is None


def test_a_cycle_has_no_order() -> None:
    g = _graph(random.Random(0), 12)
    g.add_layer(Layer("a", "a", "ReLU", "opset1", inputs=[Port(0)], outputs=[Port(1)]))
    g.add_layer(Layer("b", "b", "ReLU", "opset1", inputs=[Port(0)], outputs=[Port(1)]))
    g.add_edge(Edge("a", 1, "b", 0))
    g.add_edge(Edge("b", 1, "a", 0))
    assert _kahn(g) is None
    with pytest.raises(IrToolsError, match="cycle"):
        g.topological_order()
    assert set(g.find_cycle()) == {"a", "b"}
