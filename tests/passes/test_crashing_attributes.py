"""``check`` refuses attribute values OpenVINO's CPU plugin crashes on (``OpSpec.crashes``) by the op table as it is
now: an op version registered with a ``crashes`` rule is looked for, and no longer once unregistered."""

from __future__ import annotations

import dataclasses

from ir_tools import Graph, GraphBuilder
from ir_tools.base.dims import shape_from_ints
from ir_tools.ops import opsets
from ir_tools.ops.arithmetic import RELU_1
from ir_tools.passes.validate import check_graph


def relu_graph() -> Graph:
    """x f32[2,3] -> ReLU -> out."""
    g = Graph()
    b = GraphBuilder(g)
    x = b.parameter("x", "f32", shape_from_ints((2, 3)))
    b.result(b.add("ReLU", "opset1", None, [x], "relu"), "out")
    return g


def crash_refusals(graph: Graph) -> list[tuple[str, str | None]]:
    """The E-ATTR errors of ``check`` on ``graph``: (message, layer name)."""
    diags, _ = check_graph(graph)
    return [(d.message, d.loc.layer_name) for d in diags if d.code == "E-ATTR"]


def test_a_crashes_rule_registered_is_checked_until_unregistered() -> None:
    assert crash_refusals(relu_graph()) == []
    crashing = dataclasses.replace(RELU_1, label="ReLU-1 (crashing)",
                                   crashes=lambda attrs, read: "this ReLU crashes the CPU plugin (a test's rule)")
    opsets.register(crashing, 1, 16)
    try:
        assert crash_refusals(relu_graph()) == [("this ReLU crashes the CPU plugin (a test's rule)", "relu")]
    finally:
        opsets.unregister(crashing)
    assert crash_refusals(relu_graph()) == []
