"""An Assign may leave its output port undeclared, as Model Optimizer before 2022 wrote it and OpenVINO reads it
(Model Server's summator.xml and rm_lstm4f.xml were E-ARITY "Assign-6 has 1 outputs, the layer declares 0");
more outputs than the op has are still E-ARITY."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ir_tools.cli import main


def _summator(folder: Path, assign_outputs: int) -> Path:
    def port(pid: int) -> str:
        return f'<port id="{pid}" precision="FP32"><dim>1</dim><dim>1</dim></port>'

    outputs = f"<output>{''.join(port(1 + i) for i in range(assign_outputs))}</output>" if assign_outputs else ""
    xml = folder / f"summator_{assign_outputs}.xml"
    xml.write_text(
        '<?xml version="1.0"?>\n<net name="summator" version="10">\n<layers>\n'
        '<layer id="0" name="init_value" type="Const" version="opset6">'
        f'<data element_type="f32" offset="0" shape="1,1" size="4"/><output>{port(1)}</output></layer>\n'
        '<layer id="1" name="read" type="ReadValue" version="opset6"><data variable_id="state"/>'
        f"<input>{port(0)}</input><output>{port(1)}</output></layer>\n"
        '<layer id="2" name="input" type="Parameter" version="opset6"><data element_type="f32" shape="1,1"/>'
        f"<output>{port(0)}</output></layer>\n"
        f'<layer id="3" name="add_sum" type="Add" version="opset6"><input>{port(0)}{port(1)}</input>'
        f"<output>{port(2)}</output></layer>\n"
        '<layer id="4" name="save" type="Assign" version="opset6"><data variable_id="state"/>'
        f"<input>{port(0)}</input>{outputs}</layer>\n"
        f'<layer id="5" name="output/sink_port_0" type="Result" version="opset6"><input>{port(0)}</input></layer>\n'
        "</layers>\n<edges>\n"
        '<edge from-layer="0" from-port="1" to-layer="1" to-port="0"/>\n'
        '<edge from-layer="2" from-port="0" to-layer="3" to-port="1"/>\n'
        '<edge from-layer="1" from-port="1" to-layer="3" to-port="0"/>\n'
        '<edge from-layer="3" from-port="2" to-layer="4" to-port="0"/>\n'
        '<edge from-layer="3" from-port="2" to-layer="5" to-port="0"/>\n</edges>\n</net>\n')
    xml.with_suffix(".bin").write_bytes(np.zeros(1, np.float32).tobytes())
    return xml


def test_an_assign_may_leave_its_output_undeclared(tmp_path: Path, capsys) -> None:
    for outputs, code in ((0, 0), (1, 0), (2, 1)):
        assert main(["check", "--no-openvino", str(_summator(tmp_path, outputs))]) == code, outputs
        out = capsys.readouterr().out
        assert ("E-ARITY" in out) == (code == 1), out
