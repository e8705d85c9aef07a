"""``check`` refuses attribute values OpenVINO's CPU plugin crashes on (``OpSpec.crashes``) by the op table as it is
now: an op version registered with a ``crashes`` rule is looked for, and no longer once unregistered; and the gate
after a pass finds one at a layer the pass left as it was, whose output it made read."""

from __future__ import annotations

import dataclasses

from ir_tools import Graph, GraphBuilder, Pass, PassError, PassResult, output_of
from ir_tools.base.dims import shape_from_ints
from ir_tools.ops import opsets
from ir_tools.ops.arithmetic import RELU_1
from ir_tools.passes.validate import check_graph, require_valid


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


def max_pool_graph() -> Graph:
    """x f32[1,2,7,7] -> MaxPool-8 (ceil, no dilations: OpenVINO reads ones) -> out; its indices (output 1) unread."""
    g = Graph()
    b = GraphBuilder(g)
    x = b.parameter("x", "f32", shape_from_ints((1, 2, 7, 7)))
    attrs = b.attrs("MaxPool", "opset8", strides=(2, 2), pads_begin=(0, 0), pads_end=(0, 0), kernel=(2, 2),
                    rounding_type="ceil", index_element_type="i64")
    b.result(output_of(b.add("MaxPool", "opset8", attrs, [x], "mp")), "out")
    (pool,) = g.by_type("MaxPool")
    pool.attrs = {k: v for k, v in pool.attrs.items() if k != "dilations"}
    return g


class ReadIndices(Pass):
    """Makes the MaxPool's indices a model output (through a Convert), telling the graph: the MaxPool itself is left
    as it was."""

    records_changes = True

    def apply(self, graph: Graph) -> PassResult:
        (pool,) = graph.by_type("MaxPool")
        b = GraphBuilder(graph)
        convert = b.add("Convert", "opset1", b.attrs("Convert", "opset1", destination_type="f32"),
                        [(pool.id, pool.outputs[1].id)], "indices_f32")
        b.result(output_of(convert), "indices")
        return PassResult(graph, True, {})


def test_the_gate_after_a_pass_finds_a_crash_at_a_layer_it_left_unchanged() -> None:
    """A MaxPool without dilations whose indices the model reads crashes OpenVINO's CPU inference (ops/pooling.py,
    tests/test_read_by_design.py): once a pass made them read, its gate let the graph through, as it looked only at
    the layers changed; ``check`` of the same graph refused it."""
    graph = max_pool_graph()
    require_valid(graph)  # (clean: the indices are not read)
    try:
        ReadIndices().run(graph)
    except PassError as exc:
        refused = [(d.code, d.loc.layer_name) for d in exc.diagnostics if d.code == "E-ATTR"]
    else:
        refused = []
    assert refused == [("E-ATTR", "mp")]
    assert [d.loc.layer_name for d in check_graph(graph)[0] if d.code == "E-ATTR"] == ["mp"]
