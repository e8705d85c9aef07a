"""Safe lxml parsing of IR v10/v11 ``.xml`` (+ ``.bin``) into a Graph, source lines kept.

Parsing never expands entities, loads a DTD or touches the network; a document with a
DOCTYPE is rejected outright (that is where XXE and billion-laughs payloads live).
Problems that leave the file readable (bad dims, duplicate ids, dangling edges) are not
raised: they are collected in ``graph.load_diagnostics`` so ``check`` can report them all.
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from ..diagnostics import Diagnostic
from ..errors import ReadError, SourceLoc, UnsupportedError
from .model import Edge, Graph, Layer, Port, RtNode, Weights

SUPPORTED_IR_VERSIONS = (10, 11)
MAX_DIM = 2**63 - 1
_LAYER_KEYS = ("id", "name", "type", "version")


class LegacyIrError(UnsupportedError):
    code = "E-IR-VERSION"


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False, huge_tree=False
    )


def parse_xml(xml_path: Path) -> etree._ElementTree:
    """Parse safely; ReadError for a missing file, malformed XML or any DOCTYPE."""
    name = str(xml_path)
    try:
        tree = etree.parse(str(xml_path), _parser())
    except OSError:
        raise ReadError("cannot read file: no such file or not readable", SourceLoc(name)) from None
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if exc.lineno else None
        raise ReadError(f"malformed XML: {exc.msg}", SourceLoc(name, line)) from None
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise ReadError(
            "DOCTYPE declarations are not allowed in IR files (entity expansion and DTD loading are refused)",
            SourceLoc(name, 1),
            code="E-XML-UNSAFE",
        )
    return tree


def read_ir(xml_path: str | Path, bin_path: str | Path | None = None) -> Graph:
    """Read an IR v10/v11 model; the ``.bin`` defaults to the one next to the ``.xml``.

    Raises ReadError when the file cannot be read at all, LegacyIrError for other IR versions.
    """
    xml_path = Path(xml_path)
    root = parse_xml(xml_path).getroot()
    file = str(xml_path)
    if root.tag != "net":
        raise ReadError(f"root element is <{root.tag}>, expected <net>", SourceLoc(file, root.sourceline))
    version_text = root.get("version", "")
    try:
        version = int(version_text)
    except ValueError:
        message = f"<net version> must be an integer, got '{version_text}'"
        raise ReadError(message, SourceLoc(file, root.sourceline)) from None
    if version not in SUPPORTED_IR_VERSIONS:
        hint = (
            "it is legacy IR (v7 or older) that current OpenVINO cannot read; `ir-tools migrate` converts it"
            if version <= 7
            else "only IR v10 and v11 exist"
        )
        raise LegacyIrError(f"IR version {version} is not supported: {hint}", SourceLoc(file, root.sourceline))

    graph = Graph(root.get("name", "model"), version)
    graph.net_extra = {k: v for k, v in root.attrib.items() if k not in ("name", "version")}
    graph.source = xml_path
    graph.weights = Weights(Path(bin_path) if bin_path else xml_path.with_suffix(".bin"))
    reader = _Reader(file, graph)
    for child in root:
        if child.tag == "layers":
            for el in child:
                if el.tag == "layer":
                    reader.layer(el)
        elif child.tag == "edges":
            for el in child:
                if el.tag == "edge":
                    reader.edge(el)
        elif child.tag == "rt_info":
            graph.rt_info = _rt_tree(child)
    graph.load_diagnostics = reader.diagnostics
    return graph


def _rt_tree(el: etree._Element) -> tuple[RtNode, ...]:
    return tuple(
        RtNode(c.tag, tuple(c.attrib.items()), _rt_tree(c)) for c in el if isinstance(c.tag, str)
    )


class _Reader:
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
                self.problem("E-LAYER", f"<layer> has no '{key}' attribute", el.sourceline)
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
        if self.graph.has_layer(layer.id):
            first = self.graph.layer(layer.id)
            self.problem(
                "E-DUP-ID",
                f"layer id {layer.id} ('{layer.name}') is already used by '{first.name}' at line {first.line}",
                el.sourceline,
            )
            return
        self.graph.add_layer(layer)

    def port(self, el: etree._Element, layer: Layer) -> Port:
        attrib = el.attrib
        port = Port(id=-1, precision=attrib.get("precision"), names=attrib.get("names"), line=el.sourceline)
        port.extra = {k: v for k, v in attrib.items() if k not in ("id", "precision", "names")}
        try:
            port.id = int(attrib.get("id", ""))
        except ValueError:
            self.problem("E-PORT", f"port id must be an integer, got '{attrib.get('id')}'", el.sourceline, layer)
        dims: list[int] = []
        for child in el:
            if child.tag == "dim":
                dims.append(self.dim(child, layer))
            elif child.tag == "rt_info":
                port.rt_info = _rt_tree(child)
        port.dims = tuple(dims)  # no <dim>: a scalar, or a dynamic rank (the file cannot tell)
        return port

    def dim(self, el: etree._Element, layer: Layer) -> int:
        text = (el.text or "").strip()
        try:
            value = int(text)
        except ValueError:
            self.problem("E-DIM", f"<dim> must be an integer (-1 for dynamic), got '{text}'", el.sourceline, layer)
            return -1
        if value < -1 or value > MAX_DIM:
            what = "negative" if value < 0 else "larger than int64"
            self.problem("E-DIM", f"<dim> is {what}: {text}", el.sourceline, layer)
            return -1
        return value

    def edge(self, el: etree._Element) -> None:
        attrib = el.attrib
        try:
            edge = Edge(
                attrib["from-layer"],
                int(attrib["from-port"]),
                attrib["to-layer"],
                int(attrib["to-port"]),
                el.sourceline,
            )
        except (KeyError, ValueError):
            self.problem("E-EDGE", f"<edge> needs from-layer, integer from-port, to-layer, integer to-port: "
                         f"{dict(attrib)}", el.sourceline)
            return
        for lid in (edge.from_layer, edge.to_layer):
            if not self.graph.has_layer(lid):
                self.problem("E-EDGE-LAYER", f"edge {_edge_text(edge)} refers to missing layer {lid}", el.sourceline)
                return
        self.graph.add_edge(edge)


def _edge_text(e: Edge) -> str:
    return f"{e.from_layer}:{e.from_port} -> {e.to_layer}:{e.to_port}"

