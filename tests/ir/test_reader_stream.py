"""The streamed reader against a whole-document parse: every layer, port and edge, and their lines (the
lines of their start tags, which past line 65535 libxml2 alone gets wrong by the text after the tag), of a
file long enough to be read in many chunks and to pass line 65535, with comments between the layers and
the edges before the layers."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from ir_tools.ir.model import Layer, Port
from ir_tools.ir.reader import read_ir


def _layer(i: int) -> str:
    port = ('<port id="{id}" precision="FP32">\n\t\t\t\t\t<dim>1</dim>\n\t\t\t\t\t<dim>{c}</dim>\n'
            '\t\t\t\t</port>\n')
    inputs = "" if i == 0 else "\t\t\t<input>\n\t\t\t\t" + port.format(id=0, c=i % 7 + 1) + "\t\t\t</input>\n"
    return (f'\t\t<layer id="{i}" name="l{i}" type="{"Parameter" if i == 0 else "Relu"}" version="opset1">\n'
            f'\t\t\t<data shape="1,{i % 7 + 1}" element_type="f32" />\n{inputs}'
            "\t\t\t<output>\n\t\t\t\t" + port.format(id=1, c=i % 7 + 1) + "\t\t\t</output>\n\t\t</layer>\n"
            + ("\t\t<!-- a comment between layers -->\n" if i % 97 == 0 else ""))


@pytest.mark.parametrize("edges_first", [False, True])
def test_lines_match_a_whole_document_parse(tmp_path: Path, edges_first: bool) -> None:
    n = 5000  # ~80k lines, ~2 MB: many chunks, past line 65535
    layers = "\t<layers>\n" + "".join(_layer(i) for i in range(n)) + "\t</layers>\n"
    edges = "\t<edges>\n" + "".join(f'\t\t<edge from-layer="{i - 1}" from-port="1" to-layer="{i}" to-port="0" />\n'
                                    for i in range(1, n)) + "\t</edges>\n"
    body = edges + layers if edges_first else layers + edges
    xml = tmp_path / "long.xml"
    xml.write_text(f'<?xml version="1.0"?>\n<net name="long" version="11">\n{body}</net>\n')
    assert xml.read_text().count("\n") > 65535

    graph = read_ir(xml)
    root = etree.parse(str(xml)).getroot()
    expected = {el.get("id"): el for el in root.iterfind("layers/layer")}
    assert [layer.id for layer in graph.layers()] == list(expected)
    for layer in graph.layers():
        el = expected[layer.id]
        assert layer.line == el.sourceline or el.sourceline >= 65535  # (past it libxml2's lines are off: below)
        ports = [(int(p.get("id")), p.sourceline) for p in el.iterfind("*/port")]
        assert [p.id for p in layer.inputs + layer.outputs] == [port_id for port_id, _ in ports]
    edges = [(e.get("from-layer"), int(e.get("to-port"))) for e in root.iterfind("edges/edge")]
    assert [(e.from_layer, e.to_port) for e in graph.edges()] == edges
    # every line is where the start tag is, also past line 65535
    text = xml.read_text().splitlines()
    starts = {tag: [i + 1 for i, line in enumerate(text) if line.lstrip().startswith(f"<{tag} ")]
              for tag in ("layer", "port", "edge")}
    assert [layer.line for layer in graph.layers()] == starts["layer"]
    assert [p.line for layer in graph.layers() for p in layer.inputs + layer.outputs] == starts["port"]
    assert [e.line for e in graph.edges()] == starts["edge"]
    assert graph.load_diagnostics == []


def test_port_records_without_port_objects() -> None:
    # a line equal to a port id must not be taken for the id
    layer = Layer.from_records("3", "a", "Add", "opset1", {},
                               (0, "FP32", (1,), None, None, (), 1, 1, "FP32", (2,), None, None, (), 0),
                               (2, "FP32", (1,), None, None, (), 2), (), None, (), None, 5)
    assert layer.input_record(1) == (1, "FP32", (2,), None, None, (), 0)
    assert layer.input_record(2) is None and layer.output_record(2)[6] == 2
    assert layer.input_ids() == [0, 1]
    layer.inputs[1].dims = (3,)  # once Port objects exist, the records are theirs
    assert layer.input_record(1) == (1, "FP32", (3,), None, {}, (), 0)
    assert isinstance(layer.inputs[0], Port)
