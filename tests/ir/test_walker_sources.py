"""``Walker.sources``: each layer's input keys as ``Graph.input_keys`` gives them, kept for a subclass that reads them
again (shape propagation's values), also where the walk leaves out an optional input nothing feeds."""

from __future__ import annotations

from pathlib import Path

from ir_tools.ir.model import Layer
from ir_tools.ir.reader import read_ir
from ir_tools.ir.walker import Walker


class _Arity(Walker[int]):
    def run_node(self, layer: Layer, args: list[int]) -> list[int]:
        return [len(args)] * len(layer.output_ids())


def test_the_sources_of_a_layer_keep_an_input_the_walk_leaves_out(tmp_path: Path) -> None:
    port = '<port id="{}" precision="FP32"><dim>2</dim></port>'
    xml = tmp_path / "m.xml"
    xml.write_text(
        '<?xml version="1.0"?>\n<net name="m" version="11">\n<layers>\n'
        '<layer id="0" name="x" type="Parameter" version="opset1"><data shape="2" element_type="f32"/>'
        f"<output>{port.format(0)}</output></layer>\n"
        '<layer id="1" name="r" type="ReLU" version="opset1">'
        f"<input>{port.format(0)}{port.format(1)}</input><output>{port.format(2)}</output></layer>\n"
        '<layer id="2" name="y" type="Result" version="opset1"><input>' + port.format(0) + "</input></layer>\n"
        "</layers>\n<edges>\n"
        '<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>\n'
        '<edge from-layer="1" from-port="2" to-layer="2" to-port="0"/>\n'
        "</edges>\n</net>\n")
    graph = read_ir(xml)
    walker = _Arity(graph)
    env = walker.run()
    assert env[("1", 2)] == 1  # ReLU takes one input: the unfed second port is left out
    assert walker.sources == {layer.id: graph.input_keys(layer.id, layer.input_ids()) for layer in graph.layers()}
    assert walker.sources["1"] == [("0", 0), None]
