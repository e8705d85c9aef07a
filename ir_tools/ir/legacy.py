"""Legacy IR (v7 and older): parsed into a Graph that keeps each legacy ``Pooling`` layer as it is.

OpenVINO 2022+ cannot read these files at all. ``parse_legacy`` only parses: ``Input`` becomes a
Parameter, every unconsumed output gets a Result, ``Pooling`` stays; what a legacy Pooling means
and its lowering to opset8 live in ``passes.legacy``.
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from ..base.dims import INT64_MAX, parse_int
from ..base.dtypes import element_type
from ..base.errors import ReadError, SourceLoc, UnsupportedError
from .model import Edge, Graph, Layer, Port
from .reader import parse_xml, source_line

LEGACY_MAX_VERSION = 7


def parse_legacy(xml_path: str | Path) -> Graph:
    """Read a legacy IR file: Input -> Parameter, Pooling kept as is, Results added; other types refused."""
    xml_path = Path(xml_path)
    file = str(xml_path)
    root = parse_xml(xml_path).getroot()
    if root.tag != "net":
        raise ReadError(f"root element is <{root.tag}>, expected <net>", SourceLoc(file, root.sourceline))
    try:
        version = int(root.get("version", ""))
    except ValueError:
        raise ReadError(f"<net version> must be an integer, got '{root.get('version')}'",
                        SourceLoc(file, root.sourceline)) from None
    if version > LEGACY_MAX_VERSION:
        raise ReadError(f"IR version {version} is not legacy IR (v{LEGACY_MAX_VERSION} or older)",
                        SourceLoc(file, root.sourceline))
    for el in root.iter("pre-process"):
        raise UnsupportedError("<pre-process> (input mean/scale) is not supported by the legacy reader",
                               SourceLoc(file, source_line(el)))
    graph = Graph(root.get("name", "model"), version)
    graph.source = xml_path
    refused = []
    for el in root.iterfind("layers/layer"):
        layer = _layer(el, file)
        if graph.has_layer(layer.id):
            first = graph.layer(layer.id)
            raise ReadError(f"layer ids must be unique, but id {layer.id} is already used by '{first.name}' at line "
                            f"{first.line}", SourceLoc(file, layer.line, layer.id, layer.name), code="E-DUP-ID")
        graph.add_layer(layer)
        if not _supported(layer):
            method = f" pool-method={layer.attrs.get('pool-method', 'max')}" if layer.type == "Pooling" else ""
            refused.append(f"'{layer.name}' ({layer.type}{method}, line {layer.line})")
    if refused:
        raise UnsupportedError(f"legacy IR: {len(refused)} layer(s) have no conversion (only Input and average "
                               f"Pooling do): {', '.join(refused)}", SourceLoc(file, root.sourceline))
    for el in root.iterfind("edges/edge"):
        try:
            edge = Edge(el.get("from-layer", ""), int(el.get("from-port", "")), el.get("to-layer", ""),
                        int(el.get("to-port", "")), source_line(el))
        except ValueError:
            raise ReadError(f"<edge> needs integer ports: {dict(el.attrib)}",
                            SourceLoc(file, source_line(el))) from None
        for lid, port, ports in ((edge.from_layer, edge.from_port, "outputs"), (edge.to_layer, edge.to_port, "inputs")):
            if not graph.has_layer(lid):
                raise ReadError(f"edge refers to missing layer {lid}", SourceLoc(file, source_line(el)),
                                code="E-EDGE-LAYER")
            if all(p.id != port for p in getattr(graph.layer(lid), ports)):
                raise ReadError(f"edge refers to port {port} of layer {lid}, which has no such "
                                f"{ports[:-1]} port", SourceLoc(file, source_line(el)), code="E-EDGE-PORT")
        graph.add_edge(edge)
    _fed(graph, file)
    cycle = graph.find_cycle()
    if cycle:
        raise ReadError(f"the layers form a cycle through ids {', '.join(cycle)}", SourceLoc(file, root.sourceline))
    for layer in list(graph.layers()):
        for port in layer.outputs:
            if not graph.consumers(layer.id, port.id):
                sink = Layer(graph.new_id(), f"{port.names}/sink", "Result", "opset1",
                             inputs=[Port(0, port.precision, port.dims)], file=file, line=layer.line)
                graph.add_layer(sink)
                graph.add_edge(Edge(layer.id, port.id, sink.id, 0))
    return graph


def _fed(graph: Graph, file: str) -> None:
    """ReadError unless every input port has one producer (what ``LowerLegacy`` takes for granted)."""
    for layer in graph.layers():
        for port in layer.inputs:
            found = len(graph.producers(layer.id, port.id))
            if found != 1:
                code, what = ("E-INPUT-UNFED", "none") if found == 0 else ("E-INPUT-MULTI", str(found))
                raise ReadError(f"input port {port.id} needs one producer, found {what}",
                                SourceLoc(file, port.line or layer.line, layer.id, layer.name, layer.type), code=code)


def _supported(layer: Layer) -> bool:
    return layer.type == "Parameter" or (layer.type == "Pooling" and layer.attrs.get("pool-method") == "avg")


def _layer(el: etree._Element, file: str) -> Layer:
    """One legacy <layer>: Input becomes a Parameter; attributes of <data> or <pooling_data> are kept."""
    lid, name, kind = el.get("id", ""), el.get("name", ""), el.get("type", "")
    if not lid or not kind:
        raise ReadError("<layer> needs 'id' and 'type' attributes", SourceLoc(file, source_line(el)))
    number = parse_int(lid) if lid.isascii() and lid.isdigit() else None
    if number is None or number > INT64_MAX:  # as the reader of IR v10/v11: ids the migrated file can keep
        raise ReadError(f"layer id must be a non-negative integer of at most {INT64_MAX}, got '{lid[:40]}'",
                        SourceLoc(file, source_line(el), None, name), code="E-LAYER")
    layer = Layer(lid, name, kind, None, file=file, line=source_line(el))
    precision = el.get("precision", "FP32")
    for child in el:
        if child.tag in ("data", "pooling_data"):
            layer.attrs.update(child.attrib)
        elif child.tag in ("input", "output"):
            ports = [_port(p, precision, file) for p in child if p.tag == "port"]
            if child.tag == "input":
                layer.inputs = ports
            else:
                layer.outputs = ports
                for port in ports:
                    port.names = name if len(ports) == 1 else f"{name}.{port.id}"
    if kind == "Input":
        port = layer.outputs[0] if len(layer.outputs) == 1 else None
        et = element_type(port.precision) if port else None
        if port is None or et is None or any(d < 1 for d in port.dims):
            raise ReadError("an Input layer needs one output port with a known precision and positive dims",
                            SourceLoc(file, source_line(el)))
        layer.type, layer.version = "Parameter", "opset1"
        layer.attrs = {"shape": ",".join(map(str, port.dims)), "element_type": et.name}
    elif kind == "Pooling" and (len(layer.inputs) != 1 or len(layer.outputs) != 1):
        raise ReadError("a Pooling layer needs one input and one output port", SourceLoc(file, source_line(el)))
    return layer


def _port(el: etree._Element, precision: str, file: str) -> Port:
    text = el.get("id", "")
    port_id = parse_int(text) if text.isascii() and text.isdigit() else None
    if port_id is None or port_id > INT64_MAX:  # as the reader of IR v10/v11: ids the migrated file can keep
        raise ReadError(f"port id must be a non-negative integer of at most {INT64_MAX}, got '{text[:40]}'",
                        SourceLoc(file, source_line(el)), code="E-PORT")
    try:
        dims = tuple(int((d.text or "").strip()) for d in el if d.tag == "dim")
    except ValueError:
        raise ReadError("<dim>s must be integers", SourceLoc(file, source_line(el))) from None
    et = element_type(el.get("precision", precision))
    if et is None:
        raise ReadError(f"unknown precision '{el.get('precision', precision)}'", SourceLoc(file, source_line(el)))
    return Port(port_id, et.precision, dims, line=source_line(el))

