"""Passes a user would write, run by tests/passes/test_transform.py through the API and `ir-tools transform`."""

from __future__ import annotations

import sys

import numpy as np

from ir_tools import AnyInput, Const, Graph, GraphBuilder, Op, Pass, PassResult, matches, output_of


class FoldTransposes(Pass):
    """Transpose(Transpose(x, inner), outer) is Transpose(x, inner[outer]); an identity order is no Transpose."""

    pattern = Op("Transpose", Op("Transpose", AnyInput("x"), Const("inner")), Const("outer"), name="last")

    def apply(self, graph: Graph) -> PassResult:
        build = GraphBuilder(graph)
        folded = 0
        for m in matches(graph, self.pattern):
            order = m.value("inner")[m.value("outer")]
            last = m["last"]
            if np.array_equal(order, np.arange(order.size)):
                graph.replace_all_uses(last, m["x"])
            else:
                perm = build.const(order.astype(np.int64), f"{last.name}/order")
                graph.replace_all_uses(last, build.add("Transpose", "opset1", None, [m["x"], perm], last.name))
            folded += 1
        graph.remove_dead()
        return PassResult(graph, folded > 0, {"Transpose pairs folded": folded} if folded else {})


class UnfeedFirstRelu(Pass):
    """Breaks the graph: disconnects the first ReLU's input (for the tests of the gate)."""

    def apply(self, graph: Graph) -> bool:
        (relu, *_) = graph.by_type("ReLU")
        for edge in graph.in_edges(relu.id):
            graph.remove_edge(edge)
        return True


class UnfeedFirstReluSilently(UnfeedFirstRelu):
    """As UnfeedFirstRelu, returning nothing: the graph recorded the edge it removed (the gate ran regardless)."""

    def apply(self, graph: Graph) -> bool:
        super().apply(graph)
        return False


class ZeroStridesSilently(Pass):
    """Sets a Convolution's strides to 0 in place, telling the graph nothing and returning nothing: only a check of
    what ``transform`` writes, or the gate of ``Pass.run`` after a pass that does not record its changes, finds it."""

    def apply(self, graph: Graph) -> None:
        (conv, *_) = graph.by_type("Convolution")
        conv.attrs = {**conv.attrs, "strides": ",".join("0" for _ in conv.attrs["strides"].split(","))}


class ShortConst(Pass):
    """Adds a model output: the first ReLU times a Const whose shape says more values than its payload holds."""

    def apply(self, graph: Graph) -> bool:
        (relu, *_) = graph.by_type("ReLU")
        build = GraphBuilder(graph)
        short = build.const(np.ones(1, np.float32), "short")
        graph.layer(short[0]).attrs["shape"] = "1, 8, 1, 1"
        build.result(build.add("Multiply", "opset1", None, [relu, short], "scaled"), "scaled/result")
        return True


class Crashes(Pass):
    """Fails with an ordinary Python error (for the tests of the gate)."""

    def apply(self, graph: Graph) -> bool:
        return {}["missing"]


class Exits(Pass):
    """Calls sys.exit (for the tests of the gate: a pass does not end the command)."""

    def apply(self, graph: Graph) -> bool:
        sys.exit(3)


class BuildsAnUnknownOp(Pass):
    """Asks the builder for an op ir_tools does not model, with typed attributes (the builder's refusal)."""

    def apply(self, graph: Graph) -> bool:
        (first, *_) = graph.layers()
        GraphBuilder(graph).add("NoSuchOp", "opset1", None, [first], "made")
        return True


class RewritesReluWrongly(Pass):
    """Replaces the first ReLU by an Add of its input and an i32 Const (the builder's shape rule refuses f32 beside
    i32): the refusal is reported at the ReLU, the layer being replaced."""

    def apply(self, graph: Graph) -> bool:
        (relu, *_) = graph.by_type("ReLU")
        build = GraphBuilder(graph)
        x = graph.input_keys(relu.id, relu.input_ids())[0]
        build.replace_layer(relu, lambda: [output_of(build.add("Add", "opset1", None, [
            x, build.const(np.ones(1, np.int32), "one")], "added"))], "ReLU")
        return True


class CrashesAtRelu(Pass):
    """Says it rewrites the first ReLU (``Pass.at``), then fails with an ordinary Python error there."""

    def apply(self, graph: Graph) -> bool:
        (self.at, *_) = graph.by_type("ReLU")
        return [][0]


class ReturnsAnotherGraph(Pass):
    """Builds its result on a copy and returns that (as a functional pass would): ``transform`` wrote the graph it
    was given, unchanged, and said nothing."""

    def apply(self, graph: Graph) -> PassResult:
        from ir_tools import read_ir

        copy = read_ir(graph.source)
        (relu, *_) = copy.by_type("ReLU")
        copy.replace_all_uses(relu, copy.input_keys(relu.id, relu.input_ids())[0])
        copy.remove_dead()
        return PassResult(copy, True)
