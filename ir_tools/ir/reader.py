"""Safe lxml parsing of IR v10/v11 ``.xml`` (+ ``.bin``) into a Graph, source lines kept.

A document with a DOCTYPE is rejected before it is parsed (that is where XXE and
billion-laughs payloads live): libxml2 expands internal entities inside attribute values
even with ``resolve_entities=False``, so refusing after the parse would be too late.
Parsing never loads a DTD or touches the network.
Problems that leave the file readable (bad dims, duplicate ids, dangling edges) are not
raised: they are collected in ``graph.load_diagnostics`` so ``check`` can report them all.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from lxml import etree

from ..diagnostics import Diagnostic
from ..errors import ReadError, SourceLoc
from .dims import parse_int
from .model import Edge, Graph, Layer, Port, RtNode, Weights

SUPPORTED_IR_VERSIONS = (10, 11)
MAX_DIM = 2**63 - 1
_LAYER_KEYS = ("id", "name", "type", "version")
_EDGE_KEYS = ("from-layer", "from-port", "to-layer", "to-port")
_PRESCAN_CHUNK = 1 << 16


class IrVersionError(ReadError):
    """``<net version>`` is not 10 or 11: legacy IR (v7 and older), an unknown version, or not a number."""

    code = "E-IR-VERSION"


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False, huge_tree=False
    )


class _Doctype(Exception):
    pass


class _RootReached(Exception):
    pass


class _PrologTarget:
    """Parser target that stops at the DOCTYPE (unsafe) or at the root element (safe)."""

    def doctype(self, name: str, pubid: str | None, system: str | None) -> None:
        raise _Doctype(name)

    def start(self, tag: str, attrib: dict, nsmap: dict | None = None) -> None:
        raise _RootReached

    def end(self, tag: str) -> None:
        pass

    def data(self, data: str) -> None:
        pass

    def close(self) -> None:
        return None


def _doctype_line(f: BinaryIO) -> int | None:
    """The line of the prolog's DOCTYPE, or None if there is none; reads only up to the root start tag.

    A syntax error here is left for the real parse to report with its own message.
    """
    parser = etree.XMLParser(target=_PrologTarget(), resolve_entities=False, no_network=True, load_dtd=False)
    newlines, chunk = 0, b""
    try:
        while chunk := f.read(_PRESCAN_CHUNK):
            parser.feed(chunk)
            newlines += chunk.count(b"\n")
        parser.close()
    except _Doctype:
        at = chunk.find(b"<!DOCTYPE")  # -1 for other encodings or a split chunk: the chunk's first line
        return newlines + chunk[: max(at, 0)].count(b"\n") + 1
    except (_RootReached, etree.ParseError):
        pass
    return None


def parse_xml(xml_path: Path) -> etree._ElementTree:
    """Parse safely; ReadError for a missing file or malformed XML, E-XML-UNSAFE for any DOCTYPE."""
    name = str(xml_path)
    try:
        with open(xml_path, "rb") as f:  # a file object: lxml must not take the path for a URL
            line = _doctype_line(f)
            if line is not None:
                raise ReadError(
                    "IR files must not have a DOCTYPE, found one: its entities and DTD are refused unread "
                    "(the place for XXE and billion-laughs payloads)",
                    SourceLoc(name, line),
                    code="E-XML-UNSAFE",
                )
            f.seek(0)
            return etree.parse(f, _parser())
    except OSError as exc:
        reason = exc.strerror or "not readable"
        raise ReadError(f"cannot read file: {reason}", SourceLoc(name)) from None
    except etree.ParseError as exc:
        raise ReadError(f"malformed XML: {exc.msg}", SourceLoc(name, exc.lineno or None)) from None


def read_ir(xml_path: str | Path, bin_path: str | Path | None = None) -> Graph:
    """Read an IR v10/v11 model; the ``.bin`` defaults to the one next to the ``.xml``.

    Raises ReadError when the file cannot be read at all, IrVersionError for other IR versions.
    """
    xml_path = Path(xml_path)
    root = parse_xml(xml_path).getroot()
    file = str(xml_path)
    if root.tag != "net":
        raise ReadError(f"root element is <{root.tag}>, expected <net>", SourceLoc(file, root.sourceline))
    version_text = root.get("version")
    version = parse_int(version_text)
    if version is None:
        found = "no version attribute" if version_text is None else f"'{version_text}'"
        message = f"<net version> must be 10 or 11, got {found}"
        raise IrVersionError(message, SourceLoc(file, root.sourceline))
    if version not in SUPPORTED_IR_VERSIONS:
        hint = (
            "it is legacy IR (v7 or older) that current OpenVINO cannot read; `ir-tools migrate` converts it"
            if version <= 7
            else "only IR v10 and v11 exist"
        )
        raise IrVersionError(f"IR version {version} is not supported: {hint}", SourceLoc(file, root.sourceline))

    graph = Graph(root.get("name", "model"), version)
    graph.net_extra = {k: v for k, v in root.attrib.items() if k not in ("name", "version")}
    graph.source = xml_path
    graph.weights = Weights(Path(bin_path) if bin_path else xml_path.with_suffix(".bin"))
    reader = _Reader(file, graph)
    for section, tag, read in (("layers", "layer", reader.layer), ("edges", "edge", reader.edge)):
        for child in root:  # all layers before any edge, whatever the order in the file
            if child.tag == section:
                for el in child:
                    if el.tag == tag:
                        read(el)
    for child in root:
        if child.tag == "rt_info":
            graph.rt_info = _rt_tree(child)
    graph.load_diagnostics = reader.diagnostics
    return graph


def _rt_tree(el: etree._Element) -> tuple[RtNode, ...]:
    """The element children of ``el`` as verbatim trees (rt_info, subgraph bodies, port maps)."""
    return tuple(
        RtNode(c.tag, tuple(c.attrib.items()), _rt_tree(c), (c.text or "").strip() or None)
        for c in el
        if isinstance(c.tag, str)
    )


class _Reader:
    """Turns <layer> and <edge> elements into the graph; what cannot be used becomes a diagnostic."""

    def __init__(self, file: str, graph: Graph):
        self.file = file
        self.graph = graph
        self.diagnostics: list[Diagnostic] = []

    def problem(self, code: str, message: str, line: int | None, layer: Layer | None = None) -> None:
        loc = SourceLoc(self.file, line, layer.id, layer.name, layer.kind) if layer else SourceLoc(self.file, line)
        self.diagnostics.append(Diagnostic("error", code, message, loc))

    def layer(self, el: etree._Element) -> None:
        attrib = el.attrib
        layer = Layer(
            id=attrib.get("id", ""),
            name=attrib.get("name", ""),
            type=attrib.get("type", ""),
            version=attrib.get("version"),
            extra={k: v for k, v in attrib.items() if k not in _LAYER_KEYS},
            file=self.file,
            line=el.sourceline,
        )
        for key in ("id", "type"):
            if not attrib.get(key):
                loc = SourceLoc(self.file, el.sourceline, layer.id or None, layer.name)
                message = f"<layer> needs a '{key}' attribute, found none; the layer and its edges are ignored"
                self.diagnostics.append(Diagnostic("error", "E-LAYER", message, loc))
                return
        for child in el:
            tag = child.tag
            if tag == "data":
                layer.attrs = dict(child.attrib)
            elif tag == "input":
                layer.inputs = [self.port(p, layer) for p in child if p.tag == "port"]
            elif tag == "output":
                layer.outputs = [self.port(p, layer) for p in child if p.tag == "port"]
            elif tag == "rt_info":
                layer.rt_info = _rt_tree(child)
            elif isinstance(tag, str):  # <body>, <port_map>, <then_body>...: kept verbatim
                layer.children += (RtNode(tag, tuple(child.attrib.items()), _rt_tree(child)),)
        self.unique_ports(layer)
        if self.graph.has_layer(layer.id):
            first = self.graph.layer(layer.id)
            self.problem(
                "E-DUP-ID",
                f"layer ids must be unique, but id {layer.id} is already used by '{first.name}' at line {first.line}; "
                "this layer is ignored",
                el.sourceline,
                layer,
            )
            return
        self.graph.add_layer(layer)

    def port(self, el: etree._Element, layer: Layer) -> Port:
        attrib = el.attrib
        port = Port(id=-1, precision=attrib.get("precision"), names=attrib.get("names"), line=el.sourceline)
        port.extra = {k: v for k, v in attrib.items() if k not in ("id", "precision", "names")}
        port_id = parse_int(attrib.get("id"))
        if port_id is None or port_id < 0:
            self.problem("E-PORT", f"port id must be a non-negative integer, got '{attrib.get('id', '')}'",
                         el.sourceline, layer)
        else:
            port.id = port_id
        dims: list[int] = []
        for child in el:
            if child.tag == "dim":
                dims.append(self.dim(child, layer))
            elif child.tag == "rt_info":
                port.rt_info = _rt_tree(child)
        port.dims = tuple(dims)  # no <dim>: a scalar, or a dynamic rank (the file cannot tell)
        return port

    def unique_ports(self, layer: Layer) -> None:
        seen: dict[int, Port] = {}
        for port in (*layer.inputs, *layer.outputs):
            if port.id in seen:
                self.problem("E-PORT", f"port ids must be unique within a layer, but port {port.id} is already "
                             f"declared at line {seen[port.id].line}", port.line, layer)
            elif port.id >= 0:
                seen[port.id] = port

    def dim(self, el: etree._Element, layer: Layer) -> int:
        text = (el.text or "").strip()
        value = parse_int(text)
        if value is None:
            self.problem("E-DIM", f"<dim> must be an integer (-1 for dynamic), got '{text}'", el.sourceline, layer)
        elif value < -1:
            self.problem("E-DIM", f"<dim> must be -1 (dynamic) or at least 0, got {text}", el.sourceline, layer)
        elif value > MAX_DIM:
            self.problem("E-DIM", f"<dim> must fit in int64 (at most {MAX_DIM}), got {text}", el.sourceline, layer)
        else:
            return value
        return -1

    def edge(self, el: etree._Element) -> None:
        attrib = el.attrib
        wrong = [f"{key} is missing" for key in _EDGE_KEYS if key not in attrib]
        wrong += [f"{key}='{attrib[key]}' is not an integer" for key in ("from-port", "to-port")
                  if key in attrib and parse_int(attrib[key]) is None]
        if wrong:
            self.problem("E-EDGE", "<edge> needs from-layer, from-port, to-layer and to-port (ports as integers), "
                         f"but {', '.join(wrong)}; the edge is ignored", el.sourceline)
            return
        edge = Edge(attrib["from-layer"], parse_int(attrib["from-port"]), attrib["to-layer"],
                    parse_int(attrib["to-port"]), el.sourceline)
        for lid in (edge.from_layer, edge.to_layer):
            if not self.graph.has_layer(lid):
                self.problem("E-EDGE-LAYER", f"edge {_edge_text(edge)} refers to layer {lid}, which does not exist",
                             el.sourceline)
                return
        for other in self.graph.producers(edge.to_layer, edge.to_port):
            if (other.from_layer, other.from_port) == (edge.from_layer, edge.from_port):
                self.problem("E-EDGE", f"edge {_edge_text(edge)} is declared twice (first at line {other.line}); "
                             "the repeat is ignored", el.sourceline)
                return
        self.graph.add_edge(edge)


def _edge_text(e: Edge) -> str:
    return f"{e.from_layer}:{e.from_port} -> {e.to_layer}:{e.to_port}"
