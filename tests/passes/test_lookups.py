"""Finding layers by type: ``Graph.by_type``, ``of_types``, ``Layer.is_a`` and ``Op`` read a type by one spelling rule
(``ops.opsets.type_query``), follow a type changed in place, and refuse what can find nothing (found by a QA run of
the Python API)."""

from __future__ import annotations

from ir_tools import Graph, GraphBuilder, Op, Pass, TensorType, matches, read_ir
from ir_tools.base.dims import shape_from_ints
from tests.conftest import SAMPLES


def with_unmodelled_op() -> tuple[Graph, str]:
    """x -> ReLU -> Inverse (an op ir_tools does not model) -> result; the Inverse layer's id."""
    g = Graph()
    b = GraphBuilder(g)
    x = b.parameter("x", "f32", shape_from_ints((4, 4)))
    relu = b.add("ReLU", "opset1", None, [x], "relu")
    inv = b.add("Inverse", "opset14", {"adjoint": "false"}, [relu], "inv",
                outputs=[TensorType("f32", shape_from_ints((4, 4)))])
    b.result(inv, "out")
    return g, inv.id


def test_by_type_follows_a_type_changed_in_place() -> None:
    """by_type answered from an index made when layers were added: a ReLU made a Sigmoid in place was still found as a
    ReLU (touch() and Pass.run did not help) while matches() found Sigmoids."""
    graph = read_ir(SAMPLES / "mixed_network.xml")
    relus = [lay.id for lay in graph.by_type("ReLU")]
    assert relus

    class ReluToSigmoid(Pass):
        def apply(self, graph: Graph) -> bool:
            for layer in graph.by_type("ReLU"):
                layer.type = "Sigmoid"
                graph.touch(layer.id)
            return True

    ReluToSigmoid().run(graph)
    assert graph.by_type("ReLU") == []
    assert [lay.id for lay in graph.by_type("Sigmoid")] == relus
    assert [m.root.id for m in matches(graph, Op("Sigmoid"))] == relus
    graph.layer(relus[0]).type = "Tanh"  # untouched, outside a pass: found as what it is now too
    assert [lay.id for lay in graph.by_type("Tanh")] == relus[:1]
