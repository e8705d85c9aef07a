"""Public calls given a plausible wrong argument raise an IrToolsError with its code that says what is wrong, never a
bare KeyError, ValueError, IndexError, TypeError or AttributeError from inside ir_tools; a path is taken wherever a
graph is, as migrate takes one (found by a QA run of the Python API)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import ir_tools
from ir_tools import AnyInput, Edge, GraphBuilder, IrToolsError, Layer, Op, Pass, PassManager, matches, read_ir
from ir_tools.ops.inverse import INVERSE_14
from ir_tools.ops.spec import OpSpec
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
        "replace_all_uses of a missing layer": (lambda: graph.replace_all_uses(("999", 0), p), "E-USAGE",
                                                "output ('999', 0): graph 'mixed_network' has no layer of id '999'"),
        # ValueError, as every mutator of Graph raised (E-PASS in a pass, as the pass's own bug)
        "add_edge from a missing layer": (lambda: graph.add_edge(Edge("999", 0, relu.id, 0)), "E-USAGE",
                                          f"edge 999:0 -> {relu.id}:0: graph 'mixed_network' has no layer of id '999'"),
        "remove_edge of an edge the graph lacks": (
            lambda: graph.remove_edge(Edge(p.id, 0, relu.id, 0)), "E-USAGE",
            f"remove_edge: graph 'mixed_network' has no edge {p.id}:0 -> {relu.id}:0 (the edges into {relu.id}:0: "),
        "add_layer of an id taken": (lambda: graph.add_layer(Layer(p.id, "x", "ReLU", "opset1")), "E-USAGE",
                                     f"add_layer: duplicate layer id {p.id}: graph 'mixed_network' has layer 'input'"),
        "redirect_consumers to a missing layer": (lambda: graph.redirect_consumers((p.id, 0), ("999", 0)), "E-USAGE",
                                                  "output ('999', 0): graph 'mixed_network' has no layer of id '999'"),
        # TypeError (unhashable type: 'Layer')
        "remove_layer of a Layer": (lambda: graph.remove_layer(relu), "E-USAGE",
                                    f"takes a layer id (a string) here, not a Layer: layer 'relu1' has id '{relu.id}'"),
        "consumers of a Layer": (lambda: graph.consumers(relu, 1), "E-USAGE",
                                 f"takes a layer id (a string) here, not a Layer: layer 'relu1' has id '{relu.id}'"),
        "in_edges of a Layer": (lambda: graph.in_edges(relu), "E-USAGE",
                                f"takes a layer id (a string) here, not a Layer: layer 'relu1' has id '{relu.id}'"),
        # IndexError (tuple index out of range), or the parts stored as they were
        "add_edge of three parts": (lambda: graph.add_edge((p.id, 0, relu.id)), "E-USAGE",
                                    "an edge is Edge(from_layer, from_port, to_layer, to_port)"),
        # AttributeError ('str' object has no attribute 'id')
        "bodies of a layer id": (lambda: ir_tools.bodies(graph, relu.id), "E-USAGE",
                                 f"expected a Layer, not '{relu.id}' (a str): graph.layer(id) gives the Layer"),
        # AttributeError ('int' object has no attribute 'lower'); TypeError for a list (unhashable)
        "by_type of a list": (lambda: graph.by_type(["ReLU", "Add"]), "E-USAGE", "by_type takes types, each a string"),
        # AttributeError ('AnyInput' object has no attribute 'accepts'), when the first match was asked for
        "matches of an AnyInput": (lambda: matches(graph, AnyInput("x")), "E-USAGE",
                                   "matches(graph, pattern) takes an Op pattern"),
        # AttributeError ('str' object has no attribute 'bind'), when matched
        "an Op fed a string": (lambda: Op("ReLU", "x"), "E-USAGE", "Op(...): input 0 'x' is not a pattern"),
        # TypeError ('int' object is not iterable); a float version matched nothing, silently
        "an Op of an int type": (lambda: Op(5), "E-USAGE", "Op(...): types 5 is not a type or a tuple of types"),
        "an Op of a float version": (lambda: Op("ReLU", version=1.0), "E-USAGE", "Op(...): version 1.0 is not an op"),
        # AttributeError ('str' object has no attribute 'source')
        "a pass run on a path": (lambda: PassManager([]).run(str(MODEL)), "E-USAGE",
                                 "PassManager.run takes a Graph (read_ir reads one from a file), not str"),
        # AttributeError ('str' object has no attribute 'has_layer'), at the first layer added
        "a builder of a path": (lambda: GraphBuilder(str(MODEL)), "E-USAGE",
                                "GraphBuilder takes a Graph (read_ir reads one from a file), not str"),
        # AttributeError ('str' object has no attribute 'parameters', 'results', 'own')
        "rename_input of a path": (lambda: ir_tools.rename_input(str(MODEL), "input", "x"), "E-USAGE",
                                   "rename_input takes a Graph (read_ir reads one from a file), not str"),
        "rename_output of a path": (lambda: ir_tools.rename_output(str(MODEL), "pool1", "x"), "E-USAGE",
                                    "rename_output takes a Graph (read_ir reads one from a file), not str"),
        "bodies of a path": (lambda: ir_tools.bodies(str(MODEL), relu), "E-USAGE",
                             "bodies takes a Graph (read_ir reads one from a file), not str"),
        # AttributeError ('str' object has no attribute 'outputs')
        "output_of a layer id": (lambda: ir_tools.output_of(relu.id), "E-USAGE",
                                 "output_of(layer, index) takes a Layer and an int"),
        # matched nothing, silently: an op ir_tools does not model has the IR's strings ('true'), never a bool
        "an attribute of an op ir_tools does not model given as a bool": (
            lambda: Op("Inverse", attrs={"adjoint": True}), "E-USAGE",
            "Op('Inverse', attrs=...): ir_tools does not model it, so its attributes are the IR's strings: give "
            "'adjoint' a string or a predicate on one, not True"),
        # AttributeError ('int' object has no attribute 'strip')
        "numpy_dtype of a number": (lambda: ir_tools.numpy_dtype(5), "E-ATTR",
                                    "5 is not an element type numpy holds"),
        # TypeError ('NoneType' object is not callable)
        "replace_layer without a build": (lambda: b.replace_layer(relu, None, "test"), "E-USAGE",
                                          "replace_layer(layer, build, origin): build is a function"),
        # TypeError ('Pass' object is not iterable)
        "PassManager of one pass": (lambda: PassManager(Pass()), "E-USAGE", "PassManager takes a list of passes"),
        # AttributeError ('int' object has no attribute 'isascii')
        "an attribute given as an int": (
            lambda: b.add("Add", "opset1", {"auto_broadcast": 1}, [p, p], "a"), "E-USAGE",
            "GraphBuilder.add('Add', ...) builds no layer the IR can hold: its attrs 'auto_broadcast' is 1 (an int)"),
        # TypeError (expected str, bytes or os.PathLike object, not Graph); read_valid: E-INTERNAL, "please report this"
        "read_ir of a Graph": (lambda: ir_tools.read_ir(graph), "E-USAGE",
                               "read_ir reads the path of an .xml file (and of its .bin), not Graph"),
        "read_valid of a Graph": (lambda: ir_tools.read_valid(graph), "E-USAGE",
                                  "read_valid reads the path of an .xml file (and of its .bin), not Graph"),
        # AttributeError ('str' object has no attribute 'topological_order')
        "fix_shapes of a path": (lambda: ir_tools.fix_shapes(str(MODEL)), "E-USAGE",
                                 "fix_shapes takes a Graph (read_ir reads one from a file), not str"),
        # AttributeError ('str' object has no attribute 'ir_version')
        "write_ir of a path": (lambda: ir_tools.write_ir(str(MODEL), "out.xml"), "E-USAGE",
                               "write_ir takes a Graph (read_ir reads one from a file), not str"),
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
def test_a_wrong_argument_is_an_ir_tools_error_saying_what_is_wrong(case: str,
                                                                     set_aside: Callable[[OpSpec], None]) -> None:
    set_aside(INVERSE_14)  # (Inverse stands for an op ir_tools does not model)
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
        assert ir_tools.tensor_ports(source) == ir_tools.tensor_ports(graph)  # (what extract takes: AttributeError)
    with pytest.raises(ir_tools.InvalidModelError):  # validated as a graph is
        ir_tools.run(SAMPLES / "wrong_dims.xml", {})
    assert ir_tools.inspect(graph) == ir_tools.inspect(MODEL)  # (and a graph wherever a path is: TypeError)


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


def test_a_refused_redirect_leaves_the_graph_as_it_was() -> None:
    """redirect_consumers to an output the graph lacks removed every consumer's edge, then raised on adding the first
    new one: the graph was left with the consumers fed by nothing (check: E-EDGE). Now it is refused first."""
    graph = read_ir(MODEL)
    relu = graph.by_type("ReLU")[0]
    source = graph.producer_key(relu.id, relu.inputs[0].id)
    before = graph.edges()
    for new in (("999", 0), (relu.id, 7), relu.id):
        with pytest.raises(IrToolsError) as caught:
            graph.redirect_consumers(source, new)
        assert caught.value.code == "E-USAGE"
        assert graph.edges() == before
    assert f"layer 'relu1' (id {relu.id}, ReLU) has no output port 7 (its outputs: [1])" in str(
        pytest.raises(IrToolsError, graph.redirect_consumers, source, (relu.id, 7)).value)
    assert ir_tools.check(graph, openvino=False) == []


#: A field of a layer set to a value of a type the IR cannot hold, as a pass might (``graph, layer -> None``), and
#: how the refusal names it.
MISFITS = {
    "an attribute a tuple": (lambda lay: lay.attrs.__setitem__("strides", (1, 1)), "its attrs 'strides' is (1, 1) "
                             "(a tuple), not a string"),
    "a tensor's names a list": (lambda lay: setattr(lay.outputs[0], "names", ["a", "b"]),
                                "output port 2: its names are ['a', 'b'] (a list), not a string or None"),
    "a port's dims a list": (lambda lay: setattr(lay.outputs[0], "dims", list(lay.outputs[0].dims)),
                             "output port 2: its dims are [1, "),
    "a name None": (lambda lay: setattr(lay, "name", None), "its name is None (a NoneType), not a string"),
    "a Const's data an array": (None, "its data is array("),
}


@pytest.mark.parametrize("case", list(MISFITS))
def test_a_field_set_to_what_the_ir_cannot_hold_is_named_not_failed_on_inside(case: str, tmp_path) -> None:
    """A pass that set an attribute to a tuple or an int, a tensor's names to a list, a port's dims to a list, a layer's
    name to None, or a Const's data to an array failed with a bare AttributeError or TypeError from inside the gate,
    or with E-INTERNAL ("please report this"), or with a gate's finding that says nothing ("dims [1,4], but its
    producer gives [1,4]"), or the gate passed and ``write_ir`` then failed half-way, or wrote ``auto_broadcast="1"``,
    which OpenVINO refuses ("is not a member of enum"). Now the gate, ``check`` and ``write_ir`` each refuse it at the
    layer (E-USAGE), and nothing is written."""
    edit, words = MISFITS[case]
    graph = read_ir(MODEL)
    layer = graph.by_type("Convolution")[0] if edit is not None else graph.by_type("Const")[0]

    class Edit(ir_tools.Pass):
        def apply(self, graph: ir_tools.Graph) -> bool:
            if edit is None:
                layer.data = np.zeros(3, np.float32)
            else:
                edit(layer)
            return True

    with pytest.raises(ir_tools.PassError) as caught:
        Edit().run(graph)
    errors = [d for d in caught.value.diagnostics if d.severity == "error"]
    assert [(d.code, d.loc.layer_id) for d in errors] == [("E-PASS", None), ("E-USAGE", layer.id)]
    assert words in errors[1].message, errors[1].message
    assert [(d.code, d.loc.layer_id) for d in ir_tools.check(graph, openvino=False)] == [("E-USAGE", layer.id)]
    with pytest.raises(IrToolsError, match="the layer cannot be written as IR") as refused:
        ir_tools.write_ir(graph, tmp_path / "out.xml", ir_version=10)
    assert refused.value.code == "E-USAGE" and not list(tmp_path.iterdir())


def test_a_body_holding_what_the_ir_cannot_is_refused_by_set_bodies() -> None:
    """set_bodies failed inside on a body whose Add had ``auto_broadcast=1`` (a bare AttributeError: 'int' object has
    no attribute 'isascii'), and took one whose tensor's names were made a list: check passed it and the file written
    named the tensor "['sum']". Now set_bodies refuses the body at its layer (E-USAGE) and the Loop keeps its body."""
    graph = read_ir(ROOT / "tests" / "data" / "by_design" / "loop_trip_count_parameter.xml")
    loop = graph.by_type("Loop")[0]
    children = loop.children
    for edit, words in ((lambda add: add.attrs.__setitem__("auto_broadcast", 1), "its attrs 'auto_broadcast' is 1"),
                        (lambda add: setattr(add.outputs[0], "names", ["sum"]), "its names are ['sum'] (a list)")):
        (body,) = ir_tools.bodies(graph, loop)
        add = body.by_type("Add")[0]
        edit(add)
        with pytest.raises(IrToolsError, match="the layer cannot be written as IR") as caught:
            ir_tools.set_bodies(graph, loop, [body])
        assert caught.value.code == "E-USAGE" and caught.value.loc.layer_id == add.id and words in str(caught.value)
        assert loop.children is children and ir_tools.check(graph, openvino=False) == []
    with pytest.raises(IrToolsError, match="set_bodies takes the bodies as Graphs"):
        ir_tools.set_bodies(graph, loop, ["body"])
    with pytest.raises(IrToolsError, match="set_bodies takes a list of the layer's bodies"):
        ir_tools.set_bodies(graph, loop, body)  # (TypeError: object of type 'Graph' has no len())
