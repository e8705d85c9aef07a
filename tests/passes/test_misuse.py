"""Public calls given a plausible wrong argument raise an IrToolsError with its code that says what is wrong, never a
bare KeyError, ValueError, IndexError, TypeError or AttributeError from inside ir_tools; a path is taken wherever a
graph is, as migrate takes one (found by a QA run of the Python API)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import ir_tools
from ir_tools import AnyInput, GraphBuilder, IrToolsError, Op, PassManager, matches, read_ir
from tests.conftest import ROOT, SAMPLES

MODEL = SAMPLES / "mixed_network.xml"


def refusals() -> dict[str, tuple[Callable[[], object], str, str]]:
    """What each wrong call raised: the call, its code, the words it says now."""
    graph = read_ir(MODEL)
    b = GraphBuilder(graph)
    (p,) = graph.parameters()
    relu = graph.by_type("ReLU")[0]
    unmodelled = read_ir(MODEL)
    GraphBuilder(unmodelled).add("NoSuchOp", "opset1", {}, [unmodelled.layer(relu.id)], "n", outputs=[b.type_of(relu)])
    return {  # ValueError
        "an Add given one input": (lambda: b.add("Add", "opset1", None, [p], "a"), "E-ARITY",
                                   "Add-1 takes 2 inputs, the layer has 1"),
        # KeyError
        "an input from a missing layer": (lambda: b.add("ReLU", "opset1", None, [("999", 0)], "r"), "E-PASS",
                                          "input ('999', 0): the graph has no layer with id '999'"),
        # TypeError
        "an input from a missing port": (lambda: b.add("ReLU", "opset1", None, [(p.id, 5)], "r"), "E-PASS",
                                         "layer 'input' (id 0) has no output port 5 (its outputs: [0])"),
        # IndexError
        "an input given as a layer id": (lambda: b.add("ReLU", "opset1", None, [p.id], "r"), "E-PASS",
                                         "an input is an output (layer id, output port id) or a Layer, not '0'"),
        # KeyError (np.dtype("f16") is float128)
        "a complex64 Const": (lambda: b.const(np.zeros(2, np.complex64), "c"), "E-ATTR",
                              "numpy type complex64 is not an IR element type"),
        "a float128 Const": (lambda: b.const(np.zeros(2, np.dtype("f16")), "c"), "E-ATTR",
                             "numpy type float128 is not an IR element type"),
        # KeyError
        "a name the match does not bind": (lambda: next(matches(graph, Op("ReLU", name="r")))["zzz"], "E-PASS",
                                           "the match binds no 'zzz'; it binds: r"),
        "replace_all_uses of a missing layer": (lambda: graph.replace_all_uses(("999", 0), p), "E-PASS",
                                                "output ('999', 0): the graph has no layer with id '999'"),
        # ValueError (zip)
        "a build returning too few outputs": (lambda: b.replace_layer(relu, lambda: [], "test"), "E-PASS",
                                              "build returned 0 output(s) for the layer's 1"),
        # AttributeError
        "PassManager of a function": (lambda: PassManager([lambda graph: False]), "E-USAGE",
                                      "PassManager runs ir_tools.Pass instances"),
        "extract of an int tensor": (lambda: ir_tools.extract(graph, [42], ["pool1"]), "E-USAGE",
                                     "cut input 42: a tensor is a name"),
        "run of a list": (lambda: ir_tools.run([MODEL], {}), "E-USAGE",
                          "expected a Graph or the path of an .xml file, not list"),
        # IndexError
        "output_of an output the layer lacks": (lambda: ir_tools.output_of(p, 1), "E-PASS",
                                                "output_of: no output 1, the layer has 1"),
        # AttributeError ('tuple' object has no attribute 'attrs', 'type')
        "the value of an AnyInput": (lambda: next(matches(graph, Op("ReLU", AnyInput("x")))).value("x"), "E-PASS",
                                     "'x' binds an output ('3', 2) (an AnyInput), not a layer"),
        "the attributes of an AnyInput": (lambda: next(matches(graph, Op("ReLU", AnyInput("x")))).attrs("x"),
                                          "E-PASS", "'x' binds an output ('3', 2) (an AnyInput), not a layer"),
        # E-ATTR "missing attribute 'element_type'", of the layer's own attributes
        "the value of a layer not a Const": (lambda: next(matches(graph, Op("ReLU", name="r"))).value("r"), "E-PASS",
                                             "value('r'): 'r' binds layer 'relu1', a ReLU, not a Const"),
        # AttributeError ('NoneType' object has no attribute 'attrs')
        "the attributes of an op ir_tools does not model": (
            lambda: next(matches(unmodelled, Op("NoSuchOp", name="n"))).attrs("n"), "E-ATTR",
            "ir_tools does not model NoSuchOp@opset1: its attributes are the strings of layer.attrs"),
        # AttributeError ('tuple' object has no attribute 'unknown_names'); against_fails took it, to fail later
        "compare_against of a tuple of tolerances": (
            lambda: ir_tools.compare_against(graph, graph, ir_tools.random_inputs(graph), (1e-3, 1e-3)), "E-USAGE",
            "compare_against(tolerances=...) takes a Tolerances (Tolerances(atol=1e-4, "),
        "against_fails of a tuple of tolerances": (lambda: ir_tools.against_fails(graph, graph, (0, 0)), "E-USAGE",
                                                   "against_fails(tolerances=...) takes a Tolerances"),
        "CompareOptions of a tuple of tolerances": (lambda: ir_tools.CompareOptions(tolerances=(1e-3, 1e-3)),
                                                    "E-USAGE", "takes a Tolerances (Tolerances(atol=1e-4, "),
    }


@pytest.mark.parametrize("case", list(refusals()))
def test_a_wrong_argument_is_an_ir_tools_error_saying_what_is_wrong(case: str) -> None:
    call, code, words = refusals()[case]
    with pytest.raises(IrToolsError) as caught:
        call()
    assert caught.value.code == code and words in str(caught.value), str(caught.value)


def test_a_big_endian_array_makes_the_const_of_its_values() -> None:
    """np.load of a file from a big-endian machine gives '>f4' arrays: GraphBuilder.const raised KeyError on them."""
    graph = read_ir(MODEL)
    value = np.array([[1.5, -2.0, 3.25]], dtype=">f4")
    out = GraphBuilder(graph).const(value, "c")
    stored = graph.const_array(graph.layer(out[0]))
    assert stored.dtype == np.float32 and stored.dtype.isnative and np.array_equal(stored, value)
    assert graph.layer(out[0]).attrs["element_type"] == "f32"


def test_a_path_is_taken_wherever_a_graph_is() -> None:
    """run, extract, infer_shapes and random_inputs (and compare, in tests/test_library.py) raised AttributeError on a
    path, which migrate takes: now each reads it as migrate does (validated where the call validates a graph)."""
    graph = read_ir(MODEL)
    for source in (MODEL, str(MODEL)):
        inputs = ir_tools.random_inputs(source)
        assert {k: v.shape for k, v in inputs.items()} == {k: v.shape for k, v in ir_tools.random_inputs(graph).items()}
        ours = ir_tools.run(source, inputs)
        assert all(np.array_equal(ours[k], v) for k, v in ir_tools.run(graph, inputs).items())
        assert ir_tools.infer_shapes(source) == []
        assert len(ir_tools.extract(source, ["input"], ["pool1"])) == len(ir_tools.extract(graph, ["input"], ["pool1"]))
    with pytest.raises(ir_tools.InvalidModelError):  # validated as a graph is
        ir_tools.run(SAMPLES / "wrong_dims.xml", {})


def test_a_layer_of_another_graph_is_refused_not_taken_for_the_layer_of_its_id() -> None:
    """A Layer stands for its graph's layer by its id alone: a top-level layer given to a body's builder (or another
    model's) was silently wired to the body's layer of that id (the Loop's input 'x', id 1, read as the body's
    Constant_12), and replace_layer, replace_all_uses and set_bodies acted on the layer of that id likewise."""
    model = ROOT / "tests" / "data" / "by_design" / "loop_trip_count_parameter.xml"
    graph = read_ir(model)
    x, loop, result = graph.layer("1"), graph.by_type("Loop")[0], graph.layer("4")
    (body,) = ir_tools.bodies(graph, loop)
    add = body.by_type("Add")[0]
    build = GraphBuilder(body)
    calls = {"add": lambda: build.add("ReLU", "opset1", None, [x], "r"),
             "replace_all_uses": lambda: body.replace_all_uses(add, x),
             "replace_layer": lambda: build.replace_layer(x, lambda: [add], "test"),
             "set_bodies": lambda: ir_tools.set_bodies(body, loop, [body]),
             "a removed layer": lambda: GraphBuilder(graph).replace_layer(result, lambda: [("2", 0)], "test")}
    graph.remove_layer(result.id)
    for what, call in calls.items():
        with pytest.raises(IrToolsError) as caught:
            call()
        assert caught.value.code == "E-PASS" and "is not a layer of graph" in str(caught.value), (what, caught.value)
    assert "its id names layer 'Constant_12' here" in str(pytest.raises(IrToolsError, calls["add"]).value)
    assert len(body) == 6 and len(body.in_edges(add.id)) == 2  # nothing built, nothing moved
    same = read_ir(model).layer("1")  # the same model read again: its layer is equal to this graph's
    assert GraphBuilder(graph).add("ReLU", "opset1", None, [same], "r").inputs[0].dims == (1, 2)
