"""``fix_dims`` counts the ports it corrects: other dims or another precision than declared, not a precision
written where a port declares none (Model Optimizer's input ports), which ``shapes --fix`` called corrections on
clean public IRs (add_abc.xml: "5 port(s) corrected"); it writes nothing over what check accepts (a decompression
Convert's FP16, a declared refinement), unless a change made the declared dims stale."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ir_tools import Graph, Pass
from ir_tools.cli import main
from ir_tools.ir.reader import read_ir
from ir_tools.passes.shapes import fix_dims, propagate

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
            p.attrs["shape"] = "?," + p.attrs["shape"].split(",", 1)[1]
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


@pytest.mark.openvino
def test_dims_fix_cannot_reach_are_not_called_nothing_to_fix(tmp_path: Path, capsys) -> None:
    """A wrong dim inside a Loop's body: check finds it, fix_dims writes outer ports only; shapes --fix says so and
    exits 1, writing nothing (the first corpus run with bodies re-inferred: ov_core_loop_2d_add.xml)."""
    import numpy as np
    import openvino as ov
    import openvino.opset8 as o8

    inner = o8.parameter([1, 2], np.float32, name="inner")
    added = o8.result(o8.add(inner, o8.constant(np.ones((1, 2), np.float32)), name="body_add"))
    loop = o8.loop(o8.constant(np.int64(2)), o8.constant(True))
    loop.set_function(ov.Model([o8.result(o8.constant(True)), added], [inner], "body"))
    loop.set_special_body_ports([-1, 0])
    x = o8.parameter([1, 2], np.float32, name="x")
    loop.set_merged_input(inner, x.output(0), added.output(0))
    model = tmp_path / "loop.xml"
    ov.save_model(ov.Model([loop.get_iter_value(added.output(0), -1)], [x], "loop"), str(model))
    text = model.read_text()  # body_add's output declared [1,3]
    dim = re.search(r'name="body_add".*?<output>\s*<port[^>]*>\s*<dim>1</dim>\s*<dim>(2)</dim>', text, re.S)
    model.write_text(text[:dim.start(1)] + "3" + text[dim.end(1):])
    assert main(["shapes", "--fix", "-o", str(tmp_path / "out.xml"), str(model)]) == 1
    out = capsys.readouterr().out
    assert "error[E-SHAPE]: layer 'Loop" in out and "not written: none of the dims above could be corrected" in out
    assert not (tmp_path / "out.xml").exists()
