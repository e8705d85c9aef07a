"""GraphBuilder and its one rewrite helper, ``replace_layer`` (no OpenVINO)."""

from __future__ import annotations

import numpy as np
import pytest

from ir_tools.base.dims import Dim
from ir_tools.base.errors import IrToolsError
from ir_tools.ir.model import Graph, RtNode
from ir_tools.passes.builder import ORIGIN, GraphBuilder, output_of


def origin_of(layer) -> str | None:
    return next((dict(n.attrs)["value"] for n in layer.rt_info if dict(n.attrs).get("name") == ORIGIN), None)


def test_replace_layer_moves_names_consumers_and_records_the_origin() -> None:
    g = Graph()
    b = GraphBuilder(g)
    x = b.parameter("x", "f32", (Dim(1, 1), Dim(4, 4)))
    old = b.add("Convert", "opset1", {"destination_type": "f32"}, [x], "old")
    old.outputs[0].names = "y"
    old.rt_info = (RtNode("attribute", (("name", "keep"), ("value", "1"))),)
    b.result(output_of(old), "out")
    old.file, old.line = "m.xml", 42

    def build():
        one = b.const(np.ones((1, 4), np.float32), "one")
        return [output_of(b.add("Multiply", "opset1", {}, [x, one], "new", outputs=[b.type_of(x)]))]

    new = b.replace_layer(old, build, "Convert-1 (opset1) 'old'")
    assert not g.has_layer(old.id)
    assert [lay.name for lay in new] == ["one", "new"]
    assert all(origin_of(lay) == "Convert-1 (opset1) 'old'" and lay.line == 42 for lay in new)
    final = g.layer(new[-1].id)
    assert final.outputs[0].names == "y"
    assert [dict(n.attrs).get("name") for n in final.rt_info] == ["keep", ORIGIN]
    (result,) = g.results()
    assert g.producer(result.id, 0)[0] is final


def test_many_new_layers_get_consecutive_ids() -> None:
    """New ids come from a counter (benchmarks/bench_build.py times 10k and 50k layers)."""
    g = Graph()
    b = GraphBuilder(g)
    out = b.parameter("x", "f32", (Dim(1, 1),))
    for i in range(5_000):
        out = output_of(b.add("Convert", "opset1", {"destination_type": "f32"}, [out], f"c{i}"))
    assert len(g) == 5_001 and g.new_id() == "5001"


def test_a_pass_builds_on_the_shape_it_gives_an_input() -> None:
    """A pass that gives the model's input another shape (its ``shape`` attribute, which is what OpenVINO reads) and
    builds on it was refused: the builder read the Parameter's port dims, which only the re-inference after the pass
    writes ("cannot reshape [1, 3, 32, 32] to [1, 12288]"; found by a QA run of the Python API)."""
    from ir_tools import Pass, read_ir
    from tests.conftest import SAMPLES

    class Resize64(Pass):
        def apply(self, graph: Graph) -> bool:
            (p,) = graph.parameters()
            p.attrs["shape"] = "1,3,64,64"
            graph.touch(p.id)
            b = GraphBuilder(graph)
            assert [d.as_int() for d in b.type_of((p.id, 0)).shape] == [1, 3, 64, 64]
            target = b.const(np.array([1, 3 * 64 * 64], np.int64), "shape")
            assert b.type_of(target).shape == (Dim(2, 2),)
            flat = b.add("Reshape", "opset1", b.attrs("Reshape", "opset1", special_zero=False), [p, target], "flat")
            b.result(flat, "flat/sink")
            return True

    graph = read_ir(SAMPLES / "mixed_network.xml")
    Resize64().run(graph)
    assert graph.parameters()[0].outputs[0].dims == (1, 3, 64, 64)
    assert (1, 12288) in [r.inputs[0].dims for r in graph.results()]


def test_convert_builds_a_convert_1_into_the_destination_type() -> None:
    """``convert`` writes the Convert-1 every rewrite builds: destination_type the element type's name (given as a
    name or an ElementType), its output of that type and of its input's dims, the layer and tensor named as asked."""
    from ir_tools.base.dtypes import ELEMENT_TYPES

    g = Graph()
    b = GraphBuilder(g)
    x = b.parameter("x", "f32", (Dim(2, 2), Dim(3, 3)))
    wide = b.convert(x, "i64", "x/i64", names="x_i64")
    narrow = b.convert(wide, ELEMENT_TYPES["f16"], "x/f16")
    for layer, element, precision in ((wide, "i64", "I64"), (narrow, "f16", "FP16")):
        assert (layer.type, layer.version, layer.attrs) == ("Convert", "opset1", {"destination_type": element})
        assert b.type_of(layer).element == element
        assert (layer.outputs[0].precision, layer.outputs[0].dims) == (precision, (2, 3))
    assert (wide.name, wide.outputs[0].names, narrow.name) == ("x/i64", "x_i64", "x/f16")
    assert g.producer(narrow.id, narrow.inputs[0].id)[0] is wide


def test_an_attribute_the_rule_cannot_read_is_refused_at_the_layer_built() -> None:
    """A raw attribute value the op does not read is refused naming the layer ``add`` builds (its id, name and kind)
    and what it was given; nothing is added."""
    g = Graph()
    b = GraphBuilder(g)
    x = b.parameter("x", "f32", (Dim(2, 2),))
    with pytest.raises(IrToolsError) as caught:
        b.add("Convert", "opset1", {"destination_type": "f33"}, [x], "x/f33")
    exc = caught.value
    assert (exc.loc.layer_id, exc.loc.layer_name, exc.loc.layer_kind) == ("1", "x/f33", "Convert@opset1")
    assert exc.message.startswith("the Convert-1 layer 'x/f33' it builds refuses its inputs (f32 [2]): attribute "
                                  "'destination_type' must be an element type")
    assert len(g) == 1


def test_decode_locates_a_refusal_where_a_callable_says() -> None:
    """``decode``'s location may be a callable, asked only for a refusal's location."""
    from ir_tools.base.errors import SourceLoc
    from ir_tools.ops import attrs as A
    from ir_tools.ops.core import CONVERT_1

    asked: list[SourceLoc] = []

    def where() -> SourceLoc:
        asked.append(SourceLoc("m.xml", 7, "3", "conv", "Convert@opset1"))
        return asked[-1]

    assert A.decode(CONVERT_1.attrs, {"destination_type": "F16"}, where).destination_type == "f16"
    assert asked == []
    with pytest.raises(IrToolsError) as caught:
        A.decode(CONVERT_1.attrs, {"destination_type": "f33"}, where)
    assert len(asked) == 1 and caught.value.loc is asked[0]
