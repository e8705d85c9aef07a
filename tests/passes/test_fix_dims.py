"""``fix_dims`` counts the ports it corrects: other dims or another precision than declared, not a precision
written where a port declares none (Model Optimizer's input ports), which ``shapes --fix`` called corrections on
clean public IRs (add_abc.xml: "5 port(s) corrected"); it writes nothing over what check accepts (a decompression
Convert's FP16, a declared refinement), unless a change made the declared dims stale. Inside the bodies of If, Loop and
TensorIterator it writes what OpenVINO's save_model writes there (the oracle: each test computes it)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from ir_tools import Graph, Pass
from ir_tools.cli import main
from ir_tools.ir.reader import read_ir
from ir_tools.ops.inverse import INVERSE_14
from ir_tools.ops.spec import OpSpec
from ir_tools.passes.shapes import fix_dims, propagate

from ..ops.control_flow_cases import BUILDERS, Ctx, if_of, if_op

if TYPE_CHECKING:
    from lxml import etree

BY_DESIGN = Path(__file__).parents[1] / "data" / "by_design"


def _model(folder: Path, relu_out: int) -> Path:
    """Parameter [1,4] -> ReLU (declaring [1,relu_out]) -> Result, IR v10 as Model Optimizer writes it: input ports
    without a precision."""
    def port(pid: int, last: int, precision: bool = True) -> str:
        attr = ' precision="FP32"' if precision else ""
        return f'<port id="{pid}"{attr}><dim>1</dim><dim>{last}</dim></port>'

    xml = folder / f"relu_{relu_out}.xml"
    xml.write_text(
        '<?xml version="1.0"?>\n<net name="m" version="10">\n<layers>\n'
        '<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,4" element_type="f32"/>\n'
        f"<output>{port(0, 4)}</output></layer>\n"
        f'<layer id="1" name="r" type="ReLU" version="opset1">\n<input>{port(0, 4, False)}</input>\n'
        f"<output>{port(1, relu_out)}</output></layer>\n"
        f'<layer id="2" name="r/sink_port_0" type="Result" version="opset1">\n<input>{port(0, relu_out, False)}'
        "</input></layer>\n</layers>\n<edges>\n"
        '<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>\n'
        '<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>\n</edges>\n</net>\n')
    return xml


def test_a_precision_filled_in_is_no_correction(tmp_path: Path, capsys) -> None:
    clean, wrong = _model(tmp_path, 4), _model(tmp_path, 5)
    graph = read_ir(clean)
    assert fix_dims(graph, propagate(graph)) == 0
    assert [p.precision for p in graph.layer("1").inputs + graph.layer("2").inputs] == ["FP32", "FP32"]  # written
    graph = read_ir(wrong)
    assert fix_dims(graph, propagate(graph)) == 2  # ReLU's output and the Result's input: [1,5] -> [1,4]
    assert main(["shapes", "--no-openvino", "--fix", "-o", str(tmp_path / "out.xml"), str(clean)]) == 0
    assert "nothing to fix" in capsys.readouterr().out and not (tmp_path / "out.xml").exists()  # as migrate says it
    assert main(["shapes", "--no-openvino", "--fix", "-o", str(tmp_path / "out.xml"), str(wrong)]) == 0
    assert "2 port(s) corrected" in capsys.readouterr().out and (tmp_path / "out.xml").exists()


def test_a_decompression_convert_declaring_fp16_is_no_correction(tmp_path: Path, capsys) -> None:
    """An fp16-compressed constant that is a model output: its decompression Convert declares FP16, as ov.save_model
    writes it, and check accepts it (OpenVINO reads no port precision); shapes --fix wrote FP32 over it and over the
    two input ports it feeds ("3 port(s) corrected", found by a QA run). Nothing to fix."""
    model = BY_DESIGN / "compressed_constant_output.xml"
    graph = read_ir(model)
    assert fix_dims(graph, propagate(graph)) == 0
    layers = {layer.name: layer for layer in graph.layers()}
    assert [layers["table"].outputs[0].precision, layers["shifted"].inputs[1].precision,
            layers["Result_6"].inputs[0].precision] == ["FP16"] * 3
    assert main(["shapes", "--no-openvino", "--fix", "-o", str(tmp_path / "out.xml"), str(model)]) == 0
    assert "nothing to fix" in capsys.readouterr().out and not (tmp_path / "out.xml").exists()


class DynamicBatch(Pass):
    """The model's input given a dynamic first dim (its shape attribute only, as a user's pass does)."""

    def apply(self, graph: Graph) -> bool:
        for p in graph.parameters():
            dims = p.attrs["shape"].split(",")
            if dims != [""]:  # (a scalar has none)
                p.attrs["shape"] = ",".join(["?", *dims[1:]])
        return True


class Touch(Pass):
    """A change that leaves every inferred type as it was."""

    def apply(self, graph: Graph) -> bool:
        graph.touch(graph.parameters()[0].id)
        return True


def test_dims_a_pass_made_dynamic_are_written_dynamic(tmp_path: Path) -> None:
    """A pass made the input dynamic: every dim after it is written as re-inferred, -1 where not static (as
    ov.Model.reshape and save_model write them). The static dims declared before lie within the new inferred ones,
    and fix_dims kept them as refinements: transform wrote [1,4] everywhere (found by a QA run). A declared refinement
    whose inferred type a pass did not change stays: the Loop's [3,2] where we infer [?,2]."""
    graph = read_ir(_model(tmp_path, 4))
    DynamicBatch().run(graph)
    assert [p.dims for layer in graph.layers() for p in (*layer.inputs, *layer.outputs)] == [(-1, 4)] * 4
    graph = read_ir(BY_DESIGN / "loop_trip_count_parameter.xml")
    (loop,) = graph.by_type("Loop")
    assert propagate(graph).types[(loop.id, loop.outputs[0].id)].shape[0].is_static is False
    Touch().run(graph)
    assert loop.outputs[0].dims == (3, 2)


def _loop_model(path: Path) -> None:
    """A Loop carrying x [1, 2] through x + 1 (trip count 2), saved by OpenVINO."""
    import openvino as ov
    import openvino.opset8 as o8

    inner = o8.parameter([1, 2], np.float32, name="inner")
    added = o8.result(o8.add(inner, o8.constant(np.ones((1, 2), np.float32)), name="body_add"))
    loop = o8.loop(o8.constant(np.int64(2)), o8.constant(True))
    loop.set_function(ov.Model([o8.result(o8.constant(True)), added], [inner], "body"))
    loop.set_special_body_ports([-1, 0])
    x = o8.parameter([1, 2], np.float32, name="x")
    loop.set_merged_input(inner, x.output(0), added.output(0))
    ov.save_model(ov.Model([loop.get_iter_value(added.output(0), -1)], [x], "loop"), str(path))


@pytest.mark.openvino
def test_dims_inside_a_body_are_corrected(tmp_path: Path, capsys) -> None:
    """A wrong dim inside a Loop's body: check finds it, and shapes --fix corrects it (it wrote outer ports only and
    said "not written: none of the dims above could be corrected", found by the first corpus run with bodies
    re-inferred: ov_core_loop_2d_add.xml); the Loop's layer keeps its port map."""
    model = tmp_path / "loop.xml"
    _loop_model(model)
    text = model.read_text()  # body_add's output declared [1,3]
    dim = re.search(r'name="body_add".*?<output>\s*<port[^>]*>\s*<dim>1</dim>\s*<dim>(2)</dim>', text, re.S)
    model.write_text(text[:dim.start(1)] + "3" + text[dim.end(1):])
    assert main(["shapes", "--fix", "-o", str(tmp_path / "out.xml"), str(model)]) == 0
    out = capsys.readouterr().out
    assert "error[E-SHAPE]: layer 'Loop" in out and "1 port(s) corrected" in out  # body_add's output
    assert main(["check", str(tmp_path / "out.xml")]) == 0
    assert (tmp_path / "out.xml").read_text() == text  # as OpenVINO saved it


@pytest.mark.openvino
def test_dims_fix_cannot_reach_are_not_called_nothing_to_fix(tmp_path: Path, capsys,
                                                             set_aside: Callable[[OpSpec], None]) -> None:
    """An If whose condition OpenVINO computes and ir_tools cannot (Inverse-14 of a constant, its spec set aside: no
    rule nor kernel of ours) is not re-inferred, nor are its bodies: a wrong dim inside one, which check finds, shapes
    --fix cannot write; it says so and exits 1, writing nothing."""
    import openvino as ov
    import openvino.opset13 as o13
    import openvino.opset14 as o14

    set_aside(INVERSE_14)
    x = o13.parameter([1, 2], np.float32, name="x")
    tx, ex = o13.parameter([1, 2], np.float32), o13.parameter([1, 2], np.float32)
    then = ov.Model([o13.result(o13.multiply(tx, o13.constant(np.float32(2.0)), name="then_mul"))], [tx], "then")
    orelse = ov.Model([o13.result(o13.exp(ex))], [ex], "else")
    inverse = o14.inverse(o13.constant(np.array([[2.0]], np.float32)), adjoint=False)
    condition = o13.greater(o13.squeeze(inverse, o13.constant(np.array([0, 1]))), o13.constant(np.float32(0.25)))
    chosen = if_of(condition.output(0), x.output(0), then, orelse)
    model = tmp_path / "if.xml"
    ov.save_model(ov.Model([chosen], [x], "if"), str(model), compress_to_fp16=False)
    text = model.read_text()  # then_mul's output declared [1,3]
    dim = re.search(r'name="then_mul".*?<output>\s*<port[^>]*>\s*<dim>1</dim>\s*<dim>(2)</dim>', text, re.S)
    model.write_text(text[:dim.start(1)] + "3" + text[dim.end(1):])
    assert main(["shapes", "--fix", "-o", str(tmp_path / "out.xml"), str(model)]) == 1
    out = capsys.readouterr().out
    assert "error[E-EDGE-DIMS]: layer 'If" in out and "not written: none of the dims above could be corrected" in out
    assert not (tmp_path / "out.xml").exists()


# -- bodies against OpenVINO -------------------------------------------------------------------------------------------

#: The bodies' tags in an IR layer.
BODY_TAGS = ("body", "then_body", "else_body")


def _body_ports(path: Path) -> dict[tuple, tuple]:
    """Every port inside a body (nested ones too) of the IR at ``path``, by the names of its owners and bodies, its
    layer's name and its position: (precision, dims); and each body Parameter's shape attribute."""
    from lxml import etree

    found = {}

    def walk(layers: etree._Element, scope: tuple[str, ...]) -> None:
        for layer in layers.iterfind("layer"):
            name = layer.get("name")
            if scope:
                for kind in ("input", "output"):
                    for i, port in enumerate(layer.iterfind(f"{kind}/port")):
                        found[(scope, name, kind, i)] = (port.get("precision"),
                                                         tuple(int(d.text) for d in port.iterfind("dim")))
                if layer.get("type") == "Parameter":
                    found[(scope, name, "shape", 0)] = layer.find("data").get("shape")
            for tag in BODY_TAGS:
                for body in layer.iterfind(tag):
                    walk(body.find("layers"), (*scope, name, tag))

    walk(etree.parse(str(path)).getroot().find("layers"), ())
    return found


def _plant(source: Path, target: Path, rng: np.random.Generator, count: int) -> int:
    """``source`` with ``count`` ports inside its bodies declaring wrong dims (a static dim one more, or a dim
    appended), written to ``target`` with its ``.bin``; returns how many. (A Parameter's shape attribute is left:
    OpenVINO builds the body from it before its layer feeds it, and may refuse it.)"""
    import shutil

    from lxml import etree

    tree = etree.parse(str(source))
    ports = [port for tag in BODY_TAGS for port in tree.getroot().iterfind(f".//{tag}/layers/layer/*/port")
             if port.getparent().tag in ("input", "output")]
    for k in rng.choice(len(ports), size=min(count, len(ports)), replace=False):
        static = [d for d in ports[k].iterfind("dim") if int(d.text) >= 0]
        if static and rng.random() < 0.5:
            dim = static[int(rng.integers(len(static)))]
            dim.text = str(int(dim.text) + 1)
        else:
            etree.SubElement(ports[k], "dim").text = "3"
    tree.write(str(target))
    shutil.copy(source.with_suffix(".bin"), target.with_suffix(".bin"))
    return min(count, len(ports))


def _nested(ctx: Ctx) -> list:
    """A Loop (trip count 3) whose body holds an If on a Parameter's condition, whose then body holds a TensorIterator
    over x's columns: three bodies deep."""
    import openvino as ov
    import openvino.opset8 as o

    x = ctx.param("nest_x", [2, 3], np.float32)
    c = ctx.param("nest_c", [], np.bool_, value=np.array(True))
    tp, ep, part = o.parameter([2, 3], np.float32), o.parameter([2, 3], np.float32), o.parameter([2, 1], np.float32)
    ti_body = ov.Model([o.result(o.multiply(part, o.constant(np.float32(0.5))))], [part], "ti_body")
    ti = o.tensor_iterator()
    ti.set_body(ti_body)
    ti.set_sliced_input(part, tp.output(0), 0, 1, 1, -1, 1)
    joined = ti.get_concatenated_slices(ti_body.results[0].output(0), 0, 1, 1, -1, 1)
    then = ov.Model([o.result(joined)], [tp], "then")
    orelse = ov.Model([o.result(o.exp(ep))], [ep], "else")
    xi, ci = o.parameter([2, 3], np.float32), o.parameter([], np.bool_)
    chosen = if_of(ci, xi.output(0), then, orelse)
    value = o.add(chosen, o.constant(np.float32(1.0)))
    body = ov.Model([o.result(value), o.result(o.constant(True))], [xi, ci], "loop_body")
    loop = o.loop(o.constant(np.int64(3)), o.constant(True))
    loop.set_function(body)
    loop.set_special_body_ports([-1, 1])
    loop.set_merged_input(xi, x.output(0), value.output(0))
    loop.set_invariant_input(ci, c.output(0))
    return [loop.get_iter_value(body.results[0].output(0), -1)]


def _growing(ctx: Ctx) -> list:
    """A Loop (trip count 2) whose body appends a column to x [2, 3] carried by its back edge: OpenVINO makes the
    merged Parameter [2, ?] and infers the body again."""
    import openvino as ov
    import openvino.opset8 as o

    x = ctx.param("grow_x", [2, 3], np.float32)
    xi = o.parameter([2, 3], np.float32)
    value = o.concat([xi, o.constant(np.ones((2, 1), np.float32))], 1)
    body = ov.Model([o.result(value), o.result(o.constant(True))], [xi], "grow_body")
    loop = o.loop(o.constant(np.int64(2)), o.constant(True))
    loop.set_function(body)
    loop.set_special_body_ports([-1, 1])
    loop.set_merged_input(xi, x.output(0), value.output(0))
    return [loop.get_iter_value(body.results[0].output(0), -1)]


def bodies_case(seed: int, folder: Path) -> tuple[Path, dict[str, np.ndarray]]:
    """A model (saved by OpenVINO) of the seeded TensorIterators, Loops and Ifs of the control-flow suite (static for
    an even seed, dynamic for an odd one; an If's condition constant true, false or a Parameter), a Loop whose back
    edge changes the dims it carries, and three nested bodies; and what feeds it."""
    import openvino as ov
    import openvino.opset8 as o

    ctx = Ctx(np.random.default_rng(seed))
    outputs = [out for k, build in enumerate(BUILDERS.values()) for out in build(k, ctx, dynamic=seed % 2 == 1)]
    outputs += [*if_op(3, ctx, kind="true"), *if_op(4, ctx, kind="false"), *_growing(ctx), *_nested(ctx)]
    path = folder / f"bodies_{seed}.xml"
    ov.save_model(ov.Model([o.result(out) for out in outputs], ctx.params, "bodies"), str(path),
                  compress_to_fp16=False)
    return path, ctx.feed


def fixed_as_openvino_writes(seed: int, folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, int, list]:
    """``bodies_case(seed)`` with ports inside its bodies planted wrong, corrected by shapes --fix, held to
    OpenVINO: every body port of the corrected file as ``openvino.save_model`` writes the planted file OpenVINO read
    (it infers what a body's layer feeds it: declared dims it ignores), check finding no error, and OpenVINO computing
    the outputs it computes of the unplanted model. Returns the ports planted and compared, and what differs."""
    import openvino as ov

    from ir_tools.runtime.openvino import CPU_CONFIG

    source, feed = bodies_case(seed, folder)
    planted, fixed, oracle = (folder / f"{name}_{seed}.xml" for name in ("planted", "fixed", "oracle"))
    count = _plant(source, planted, np.random.default_rng(seed), 12)
    core = ov.Core()
    ov.save_model(core.read_model(str(planted)), str(oracle), compress_to_fp16=False)
    assert main(["shapes", "--fix", str(planted), "-o", str(fixed)]) == 0, capsys.readouterr().out
    assert main(["check", str(fixed)]) == 0, capsys.readouterr().out
    capsys.readouterr()
    want, got = _body_ports(oracle), _body_ports(fixed)
    differ = [(key, got.get(key), value) for key, value in want.items() if got.get(key) != value]
    differ += [(key, value, None) for key, value in got.items() if key not in want]
    outputs = [core.compile_model(str(path), "CPU", CPU_CONFIG)(feed) for path in (source, fixed)]
    for a, b in zip(*(out.to_tuple() for out in outputs), strict=True):
        np.testing.assert_array_equal(a, b)
    return count, len(want), differ


@pytest.mark.openvino
@pytest.mark.parametrize("seed", [0, 1])
def test_dims_inside_bodies_are_written_as_openvino_infers_them(seed: int, tmp_path: Path, capsys) -> None:
    """shapes --fix writes every port inside the bodies of If (then and else, a constant and a Parameter's
    condition), Loop (a back edge that changes its dims: OpenVINO's last inference), TensorIterator and three
    nested bodies as OpenVINO's save_model writes them; it wrote none (E-SHAPE and E-EDGE-DIMS inside bodies were not
    fixable)."""
    planted, compared, differ = fixed_as_openvino_writes(seed, tmp_path, capsys)
    assert planted >= 10 and compared > 100
    assert not differ, differ[:10]


def _grown(source: Path, target: Path, names: tuple[str, ...]) -> None:
    """``source`` with the first dim of each model input of ``names`` one more (its shape attribute and its port),
    written to ``target`` with its ``.bin``: what the bodies' layers feed them changes."""
    import shutil

    from lxml import etree

    tree = etree.parse(str(source))
    for layer in tree.getroot().iterfind("layers/layer[@type='Parameter']"):
        if layer.get("name") in names:
            data, dim = layer.find("data"), layer.find("output/port/dim")
            first, rest = data.get("shape").split(",", 1)
            data.set("shape", f"{int(first) + 1},{rest}")
            dim.text = str(int(dim.text) + 1)
    tree.write(str(target))
    shutil.copy(source.with_suffix(".bin"), target.with_suffix(".bin"))


@pytest.mark.openvino
def test_a_body_parameter_fed_another_shape_is_written_as_openvino_infers_it(tmp_path: Path, capsys) -> None:
    """Model inputs given another first dim: the Parameters of the bodies their layers feed take the new shape, their
    shape attribute too, as OpenVINO's save_model writes them (an If's body its constant condition does not select
    keeps its Parameter's; a TensorIterator's three bodies deep [2, 1] becomes [3, 1]), and OpenVINO computes of the
    corrected file what it computes of the edited one."""
    import openvino as ov

    from ir_tools.runtime.openvino import CPU_CONFIG

    source, feed = bodies_case(0, tmp_path)
    names = ("if3_x", "if4_x", "nest_x")
    grown, fixed, oracle = (tmp_path / f"{name}.xml" for name in ("grown", "fixed", "oracle"))
    _grown(source, grown, names)
    core = ov.Core()
    ov.save_model(core.read_model(str(grown)), str(oracle), compress_to_fp16=False)
    assert main(["shapes", "--fix", str(grown), "-o", str(fixed)]) == 0, capsys.readouterr().out
    assert main(["check", str(fixed)]) == 0, capsys.readouterr().out
    want, got = _body_ports(oracle), _body_ports(fixed)
    assert want == got
    before = _body_ports(grown)
    refed = {key[0] for key, value in want.items() if key[2] == "shape" and before[key] != value}
    assert {("if3", "then_body"), ("if4", "else_body")} < refed  # (the bodies the constant conditions select)
    assert not {("if3", "else_body"), ("if4", "then_body")} & refed
    assert any(len(scope) == 6 for scope in refed)  # (the TensorIterator inside the If inside the Loop)
    rng = np.random.default_rng(0)
    for name in names:
        feed[name] = rng.standard_normal((feed[name].shape[0] + 1, *feed[name].shape[1:])).astype(np.float32)
    outputs = [core.compile_model(str(path), "CPU", CPU_CONFIG)(feed) for path in (oracle, fixed)]
    for a, b in zip(*(out.to_tuple() for out in outputs), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.openvino
@pytest.mark.parametrize("seed", [0, 1])
def test_dims_a_pass_made_dynamic_are_written_dynamic_inside_bodies(seed: int, tmp_path: Path) -> None:
    """A pass made the inputs' first dim dynamic: inside the bodies too, the static dims declared before are stale
    and written as re-inferred, as OpenVINO's Model.reshape and save_model write them (a body's declared dims agreed
    with its re-inference in the check before the pass); fix_dims kept them, as refinements, or wrote no body."""
    import openvino as ov

    from ir_tools import write_ir
    from ir_tools.runtime.openvino import CPU_CONFIG

    source, feed = bodies_case(seed, tmp_path)
    graph = read_ir(source)
    DynamicBatch().run(graph)
    write_ir(graph, tmp_path / "dynamic.xml")
    core = ov.Core()
    model = core.read_model(str(source))
    model.reshape({p.get_friendly_name(): ov.PartialShape([-1, *p.get_partial_shape()[1:]])
                   for p in model.get_parameters() if p.get_partial_shape().rank.get_length()})
    ov.save_model(model, str(tmp_path / "oracle.xml"), compress_to_fp16=False)
    want, got = _body_ports(tmp_path / "oracle.xml"), _body_ports(tmp_path / "dynamic.xml")
    assert sum(-1 in value[1] for key, value in want.items() if key[2] != "shape") > 50
    assert want == got
    outputs = [core.compile_model(str(path), "CPU", CPU_CONFIG)(feed) for path in (source, tmp_path / "dynamic.xml")]
    for a, b in zip(*(out.to_tuple() for out in outputs), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.openvino
def test_a_body_parameter_shape_attribute_alone_wrong_is_corrected(tmp_path: Path, capsys) -> None:
    """The shape attribute of a body Parameter the layer feeds, edited alone (its port as fed): check finds the port
    contradicting it, and shapes --fix writes the attribute, as OpenVINO's save_model writes it, and counts it: it
    counted nothing and wrote nothing."""
    import openvino as ov
    from lxml import etree

    source, _ = bodies_case(0, tmp_path)
    tree = etree.parse(str(source))
    (data,) = tree.getroot().xpath("layers/layer[@name='if3']/then_body/layers/layer[@type='Parameter']/data")
    first, rest = data.get("shape").split(",", 1)
    data.set("shape", f"{int(first) + 3},{rest}")
    edited, fixed, oracle = (tmp_path / f"{name}.xml" for name in ("edited", "fixed", "oracle"))
    tree.write(str(edited))
    edited.with_suffix(".bin").write_bytes(source.with_suffix(".bin").read_bytes())
    ov.save_model(ov.Core().read_model(str(edited)), str(oracle), compress_to_fp16=False)
    assert main(["shapes", "--fix", str(edited), "-o", str(fixed)]) == 0
    out = capsys.readouterr().out
    assert "error[E-SHAPE]: layer 'if3/then_body/" in out and "1 port(s) corrected" in out
    assert _body_ports(fixed) == _body_ports(oracle) != _body_ports(edited)



# -- bodies as declared, against OpenVINO ------------------------------------------------------------------------------


def _body_parameters(root: etree._Element, weights: bytes) -> list[tuple[etree._Element, str, str]]:
    """Every f32 Parameter inside a body of the IR ``root`` (nested bodies too), with the names of its owners and
    bodies (``LAYER/BODY/``, as check names what it finds there) and the kind of body holding it (an If's: its
    condition a Const's, by the byte ``weights`` hold, or not)."""
    found = []
    for layer in root.iterfind(".//layer[@type='Parameter']"):
        body = layer.getparent().getparent()
        if body.tag not in BODY_TAGS or layer.find("data").get("element_type") != "f32":
            continue
        scope, node = [], body
        while node.tag in BODY_TAGS:
            scope[:0] = [node.getparent().get("name"), node.tag]
            node = node.getparent().getparent().getparent()
        owner = body.getparent()
        kind = owner.get("type")
        if kind == "If":
            (edge,) = owner.getparent().getparent().xpath(f"edges/edge[@to-layer='{owner.get('id')}'][@to-port='0']")
            (cond,) = owner.getparent().xpath(f"layer[@id='{edge.get('from-layer')}']")
            constant = None if cond.get("type") != "Const" else bool(weights[int(cond.find("data").get("offset"))])
            kind += (" of a Parameter's condition" if constant is None else
                     f", {'the selected' if (body.tag == 'then_body') == constant else 'the other'} body")
        found.append((layer, "/".join(scope) + "/", kind + (", nested" if len(scope) > 2 else "")))
    return found


def _declare(layer: etree._Element, dims: list[str]) -> None:
    """Body Parameter ``layer`` declaring ``dims`` (``?``: dynamic) as one consistent declaration: its ``shape``
    attribute, its port and the input ports it feeds, so that only the shape declared differs from the shape fed."""
    from lxml import etree

    layer.find("data").set("shape", ",".join(dims))
    ports = [layer.find("output/port")]
    for edge in layer.getparent().getparent().xpath(
            f"edges/edge[@from-layer='{layer.get('id')}'][@from-port='{ports[0].get('id')}']"):
        (reader,) = layer.getparent().xpath(f"layer[@id='{edge.get('to-layer')}']")
        ports += reader.xpath(f"input/port[@id='{edge.get('to-port')}']")
    for port in ports:
        for dim in port.findall("dim"):
            port.remove(dim)
        for d in dims:
            etree.SubElement(port, "dim").text = "-1" if d == "?" else d


def _variants(dims: list[str], rng: np.random.Generator) -> dict[str, list[str]]:
    """Declared shapes for a body Parameter fed ``dims``: one dim another (a static one one more, a dynamic one 3), a
    dim appended, every dim dynamic (harmless to any layer)."""
    if not dims:
        return {"other rank": ["1"], "dynamic": []}
    i = int(rng.integers(len(dims)))
    other = [*dims[:i], "3" if dims[i] == "?" else str(int(dims[i]) + 1), *dims[i + 1:]]
    return {"other dim": other, "other rank": [*dims, "1"], "dynamic": ["?"] * len(dims)}


def _declared_model(seed: int, folder: Path) -> Path:
    """A model (saved by OpenVINO) whose every body joins what it is fed with a Const on its last axis (Concat, which
    holds the other dims to the Const's): a TensorIterator (sliced), a Loop (invariant), Ifs of a constant true,
    a constant false and a Parameter's condition, and a Loop holding an If holding a TensorIterator; static for an
    even seed, some dims of the inputs dynamic for an odd one."""
    import openvino as ov
    import openvino.opset8 as o

    rng = np.random.default_rng(seed)
    ctx = Ctx(rng)
    r, c = (int(n) for n in rng.integers(1, 4, 2))

    def x(name: str, shape: list[int]) -> ov.Node:
        declared = [-1 if seed % 2 and rng.random() < 0.5 else d for d in shape]
        return ctx.param(name, declared, np.float32, shape)

    def joined(p: ov.Node, shape: list[int]) -> ov.Model:
        const = o.constant(np.ones([*shape[:-1], 1], np.float32))
        return ov.Model([o.result(o.concat([p, const], len(shape) - 1))], [p], "joined")

    def tensor_iterator(source: ov.Output, rows: int, name: str) -> ov.Output:
        part = o.parameter([rows, 1], np.float32)
        body = joined(part, [rows, 1])
        ti = o.tensor_iterator()
        ti.set_friendly_name(name)
        ti.set_body(body)
        ti.set_sliced_input(part, source, 0, 1, 1, -1, 1)
        return ti.get_concatenated_slices(body.results[0].output(0), 0, 1, 1, -1, 1)

    def if_on(cond: ov.Output, source: ov.Output, name: str) -> ov.Output:
        tp, ep = o.parameter([r, c], np.float32), o.parameter([r, c], np.float32)
        return if_of(cond, source, joined(tp, [r, c]), joined(ep, [r, c]), name)

    outputs = [tensor_iterator(x("ti_x", [r, c]).output(0), r, "ti")]
    lp_x, xi = x("loop_x", [r, c]), o.parameter([r, c], np.float32)
    body = joined(xi, [r, c])
    body.add_results([o.result(o.constant(True))])
    loop = o.loop(o.constant(np.int64(2)), o.constant(True))
    loop.set_friendly_name("loop")
    loop.set_function(body)
    loop.set_special_body_ports([-1, 1])
    loop.set_invariant_input(xi, lp_x.output(0))
    outputs.append(loop.get_iter_value(body.results[0].output(0), -1))
    outputs += [if_on(o.constant(True).output(0), x("if_true_x", [r, c]).output(0), "if_true"),
                if_on(o.constant(False).output(0), x("if_false_x", [r, c]).output(0), "if_false"),
                if_on(ctx.param("if_c", [], np.bool_, value=np.array(True)).output(0), x("if_x", [r, c]).output(0),
                      "if")]
    nest_x, ni, ci = x("nest_x", [r, c]), o.parameter([r, c], np.float32), o.parameter([], np.bool_)
    tp, ep = o.parameter([r, c], np.float32), o.parameter([r, c], np.float32)
    then = ov.Model([o.result(tensor_iterator(tp.output(0), r, "inner_ti"))], [tp], "then")
    chosen = if_of(ci, ni.output(0), then, joined(ep, [r, c]), "inner_if")
    body = ov.Model([o.result(chosen), o.result(o.constant(True))], [ni, ci], "nest_body")
    nest = o.loop(o.constant(np.int64(2)), o.constant(True))
    nest.set_friendly_name("nest")
    nest.set_function(body)
    nest.set_special_body_ports([-1, 1])
    nest.set_invariant_input(ni, nest_x.output(0))
    nest.set_invariant_input(ci, ctx.param("nest_c", [], np.bool_, value=np.array(True)).output(0))
    outputs.append(nest.get_iter_value(body.results[0].output(0), -1))
    path = folder / f"declared_{seed}.xml"
    ov.save_model(ov.Model([o.result(out) for out in outputs], ctx.params, "declared"), str(path),
                  compress_to_fp16=False)
    return path


def declared_cases(seed: int, folder: Path) -> list[tuple[str, str, bool, list[str]]]:
    """``_declared_model(seed)`` with one body Parameter at a time declaring another shape than it is fed
    (``_variants``), each read by OpenVINO and checked by ir_tools without it: (kind of body, variant, whether
    OpenVINO refuses the file, check's errors as ``CODE LAYER``, a layer of the planted body marked ``IN:``), the
    unplanted model's first."""
    import shutil

    import openvino as ov
    from lxml import etree

    from ir_tools.passes.validate import check

    source = _declared_model(seed, folder)
    weights = source.with_suffix(".bin").read_bytes()
    core, rng = ov.Core(), np.random.default_rng(seed)

    def judged(path: Path, scope: str = "") -> tuple[bool, list[str]]:
        try:
            core.read_model(str(path))
            refused = False
        except RuntimeError:
            refused = True
        found = [(d.code, d.loc.layer_name or "") for d in check(path) if d.severity == "error"]
        return refused, [f"{code} {'IN:' if scope and name.startswith(scope) else ''}{name}" for code, name in found]

    cases = [("unplanted", "", *judged(source))]
    for k in range(len(_body_parameters(etree.parse(str(source)).getroot(), weights))):
        tree = etree.parse(str(source))
        layer, scope, kind = _body_parameters(tree.getroot(), weights)[k]
        for variant, dims in _variants(layer.find("data").get("shape").split(",") if
                                       layer.find("data").get("shape") else [], rng).items():
            _declare(layer, dims)
            planted = folder / f"declared_{seed}_{k}_{variant.replace(' ', '_')}.xml"
            tree.write(str(planted))
            shutil.copy(source.with_suffix(".bin"), planted.with_suffix(".bin"))
            cases.append((kind, variant, *judged(planted, scope)))
    return cases


@pytest.mark.openvino
@pytest.mark.parametrize("seed", [0, 1])
def test_a_body_as_declared_is_refused_where_openvino_refuses_it(seed: int, tmp_path: Path) -> None:
    """OpenVINO builds each body from its Parameters' declared shapes and validates it before its layer feeds it: a
    body Parameter declaring a shape its layers refuse (a Concat's other dims held to its Const's) makes read_model
    refuse the file, though the shape fed fits. check without OpenVINO walked each body only as fed, and passed such
    files (Loop, TensorIterator, the body a constant If selects, both of a Parameter's If, nested ones). Oracle:
    OpenVINO refuses a planted file exactly where check reports an error in the planted body; a file it reads has no
    error, but E-SHAPE in the body a constant If does not select, which OpenVINO infers and writes as declared (its
    ports, left as fed, contradict that: rule 4 of ops/control_flow.py)."""
    cases = declared_cases(seed, tmp_path)
    assert cases[0] == ("unplanted", "", False, [])
    wrong = [case for case in cases[1:] if not (
        any(" IN:" in e for e in case[3]) if case[2] else
        all(e.startswith("E-SHAPE IN:") and case[0] == "If, the other body" for e in case[3]))]
    assert not wrong, wrong
    refused = {kind for kind, _, no, _ in cases if no}
    assert {"TensorIterator", "Loop", "If, the selected body", "If of a Parameter's condition",
            "TensorIterator, nested"} <= refused, refused
    assert not any(no for _, variant, no, _ in cases if variant == "dynamic")
