"""Finding layers by type: ``Graph.by_type``, ``of_types``, ``Layer.is_a`` and ``Op`` read a type by one spelling rule
(``ops.opsets.type_query``), follow a type changed in place, and refuse what can find nothing (found by a QA run of
the Python API)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ir_tools import Graph, GraphBuilder, IrToolsError, Op, Pass, TensorType, matches, read_ir, write_ir
from ir_tools.base.dims import shape_from_ints
from ir_tools.ops.inverse import INVERSE_14
from ir_tools.ops.spec import OpSpec
from tests.conftest import SAMPLES


@pytest.fixture
def unmodelled(set_aside: Callable[[OpSpec], None]) -> tuple[Graph, str]:
    """x -> ReLU -> Inverse (an op ir_tools does not model: its Inverse-14 set aside) -> result; the Inverse layer's
    id."""
    set_aside(INVERSE_14)
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


def test_every_look_up_reads_a_type_by_one_rule(unmodelled: tuple[Graph, str]) -> None:
    """OpenVINO's Python spelling "Relu" found nothing through by_type (Op found it), and an op ir_tools does not model
    (Inverse) was found by neither by_type nor Op nor of_types unless spelled in lower case."""
    graph, inv = unmodelled
    relu = [lay.id for lay in graph.layers() if lay.type == "ReLU"]
    for spelling in ("ReLU", "Relu", "relu"):
        assert [lay.id for lay in graph.by_type(spelling)] == relu
        assert [m.root.id for m in matches(graph, Op(spelling))] == relu
        assert graph.layer(relu[0]).is_a(spelling)
    for spelling in ("Inverse", "inverse", "INVERSE"):
        assert [lay.id for lay in graph.by_type(spelling)] == [inv]
        assert [lay.id for lay in graph.of_types([spelling])] == [inv]
        assert [m.root.id for m in matches(graph, Op(spelling))] == [inv]
        assert graph.layer(inv).is_a(spelling)
    assert [lay.id for lay in graph.by_type("Parameter", "inverse")] == [graph.parameters()[0].id, inv]


def test_a_look_up_that_can_find_nothing_is_refused(unmodelled: tuple[Graph, str]) -> None:
    """by_type("Constant") (OpenVINO's Python name; its IR reader refuses type="Constant") and Op(version="banana")
    answered [] without a word."""
    graph, _ = unmodelled
    for ask in (lambda: graph.by_type("Constant"), lambda: Op("Constant"), lambda: graph.layer("0").is_a("Constant")):
        with pytest.raises(IrToolsError, match="did you mean Const") as refused:
            ask()
        assert refused.value.code == "E-USAGE"
    for version in ("banana", 3, "opset99"):
        with pytest.raises(IrToolsError, match=r"no layer of it has that version.*op versions 1; opsets opset1\.\.") \
                as refused:
            Op("Convolution", version=version)
        assert refused.value.code == "E-USAGE"  # (the caller's mistake, as Op("Constant") is)
    with pytest.raises(IrToolsError, match="no op version ir_tools models; opsets opset14"):
        Op("Inverse", version=14)
    assert len(list(matches(graph, Op("Inverse", version="opset14")))) == 1
    assert Op("MyExtensionOp", version="my_opset")  # an extension's op names its own opset


def test_by_type_follows_layers_added_and_removed() -> None:
    """The index of types is updated as layers are added and removed (not made again per pass): every answer equals a
    scan of the layers in order, through removals from short and long lists, a layer removed and added again, and a
    type spelled anew."""
    graph = read_ir(SAMPLES / "mixed_network.xml")
    builder = GraphBuilder(graph)
    x = builder.parameter("extra", "f32", shape_from_ints((70,)))

    def agrees() -> None:
        for layer_type in {layer.type for layer in graph.layers()} | {"ReLU", "Const", "Parameter", "Tanh"}:
            assert graph.by_type(layer_type) == [lay for lay in graph.layers() if lay.is_a(layer_type)]

    agrees()
    relus = [builder.add("ReLU", "opset1", None, [x], f"relu{i}") for i in range(70)]  # (a list past 64)
    agrees()
    graph.remove_layer(relus[3].id)
    agrees()
    tanh = builder.add("Tanh", "opset1", None, [x], "tanh")
    agrees()
    graph.remove_layer(tanh.id)
    graph.add_layer(tanh)  # (the same layer again: last in layer order)
    agrees()
    for relu in relus[4:]:
        graph.remove_layer(relu.id)
    agrees()
    graph.add_layer(relus[3])
    agrees()


@pytest.mark.openvino
def test_an_opset_in_a_pattern_means_the_op_version_it_holds(tmp_path) -> None:
    """Op("Add", version="opset13") matched nothing in a model whose Add is written opset1 (as OpenVINO writes it):
    the string was compared with the layer's version attribute. OpenVINO's WrapType("opset13.Add") matches it, both
    being Add-1; so now does Op, for every opset and layers written in several: the names each matches are
    OpenVINO's, and an opset without the op is refused by both."""
    import openvino as ov
    from openvino.passes import Matcher, WrapType

    g = Graph()
    b = GraphBuilder(g)
    x = b.parameter("x", "f32", shape_from_ints((1, 2, 8, 8)))
    out = x
    for version in ("opset1", "opset13", "opset16"):
        out = b.add("Add", version, None, [out, x], f"add_{version}")
        out = b.add("ReLU", version, None, [out], f"relu_{version}")
    for version in ("opset1", "opset8", "opset14", "opset15", "opset16"):
        out = b.add("AvgPool", version, b.attrs("AvgPool", version, strides=(1, 1), pads_begin=(0, 0),
                                                pads_end=(0, 0), kernel=(1, 1), exclude_pad=False), [out],
                    f"pool_{version}")
    b.result(out, "out")
    written, _ = write_ir(g, tmp_path / "versions.xml")
    model = ov.Core().read_model(written)
    for op_type, ov_type in (("Add", "Add"), ("ReLU", "Relu"), ("AvgPool", "AvgPool")):
        for n in range(1, 18):
            try:
                matcher = Matcher(WrapType(f"opset{n}.{ov_type}"), "m")
            except RuntimeError:  # (not in that opset)
                with pytest.raises(IrToolsError, match="no layer of it has that version") as refused:
                    Op(op_type, version=f"opset{n}")
                assert refused.value.code == "E-USAGE"
                continue
            theirs = sorted(op.get_friendly_name() for op in model.get_ordered_ops() if matcher.match(op.output(0)))
            ours = sorted(m.root.name for m in matches(read_ir(written), Op(op_type, version=f"opset{n}")))
            assert ours == theirs and ours, (op_type, n)
