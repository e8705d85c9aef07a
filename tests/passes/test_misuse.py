"""Public calls given a plausible wrong argument raise an IrToolsError with its code that says what is wrong, never a
bare KeyError, ValueError, IndexError, TypeError or AttributeError from inside ir_tools; a path is taken wherever a
graph is, as migrate takes one (found by a QA run of the Python API)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import ir_tools
from ir_tools import GraphBuilder, IrToolsError, Op, PassManager, matches, read_ir
from tests.conftest import SAMPLES

MODEL = SAMPLES / "mixed_network.xml"


def refusals() -> dict[str, tuple[Callable[[], object], str, str]]:
    """What each wrong call raised: the call, its code, the words it says now."""
    graph = read_ir(MODEL)
    b = GraphBuilder(graph)
    (p,) = graph.parameters()
    relu = graph.by_type("ReLU")[0]
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
