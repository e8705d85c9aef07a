"""inspect's text names each input's shape as it names the outputs' dims: bracketed, so a scalar input (Model
Server's scalar model) reads ``[]`` where it read nothing at all, and ``1, 3`` as ``[1,3]``; a dynamic dim is ``?``
in both (outputs and layers said -1); the JSON has a schema_version."""

from __future__ import annotations

from pathlib import Path

from ir_tools.ir.inspect import render_text, summary
from ir_tools.ir.reader import read_ir


def test_input_shapes_are_bracketed_as_output_dims(tmp_path: Path) -> None:
    xml = tmp_path / "scalar.xml"
    xml.write_text(
        '<?xml version="1.0"?>\n<net name="m" version="11">\n<layers>\n'
        '<layer id="0" name="s" type="Parameter" version="opset1"><data shape="" element_type="f32"/>'
        '<output><port id="0" precision="FP32"/></output></layer>\n'
        '<layer id="1" name="v" type="Parameter" version="opset1"><data shape="?, 3" element_type="f32"/>'
        '<output><port id="0" precision="FP32"><dim>-1</dim><dim>3</dim></port></output></layer>\n'
        '<layer id="2" name="sum" type="Add" version="opset1"><input><port id="0" precision="FP32"/>'
        '<port id="1" precision="FP32"><dim>-1</dim><dim>3</dim></port></input>'
        '<output><port id="2" precision="FP32"><dim>-1</dim><dim>3</dim></port></output></layer>\n'
        '<layer id="3" name="out" type="Result" version="opset1"><input><port id="0" precision="FP32">'
        "<dim>-1</dim><dim>3</dim></port></input></layer>\n</layers>\n<edges>\n"
        '<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>\n'
        '<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>\n'
        '<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>\n</edges>\n</net>\n')
    text = render_text(summary(read_ir(xml)))
    assert "\n  s: FP32 []\n" in text and "\n  v: FP32 [?,3]\n" in text
    assert "\n  out: FP32 [?,3]\n" in text  # (a dynamic dim is ? throughout the text; -1 in the JSON, as in the file)
    assert summary(read_ir(xml))["schema_version"] == 1


def test_every_name_of_a_tensor_is_shown(tmp_path: Path) -> None:
    """A tensor of two names shows both (text) and lists both (JSON ``tensor_names``): inspect showed the first only,
    while extract cuts at either (from a QA run)."""
    import numpy as np
    import openvino as ov
    import openvino.opset8 as o

    x = o.parameter([1, 4], np.float32, name="x")
    relu = o.relu(x)
    relu.output(0).get_tensor().set_names({"46", "input.3"})
    ov.save_model(ov.Model([o.result(o.exp(relu))], [x]), tmp_path / "m.xml")
    info = summary(read_ir(tmp_path / "m.xml"))
    (layer,) = [lay for lay in info["layers"] if lay["type"] == "ReLU"]
    assert sorted(layer["tensor_names"][0]) == ["46", "input.3"]
    line = next(line for line in render_text(info).splitlines() if "[ReLU@opset1]" in line)
    assert "'46'" in line and "'input.3'" in line, line
