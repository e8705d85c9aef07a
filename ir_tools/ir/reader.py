"""Safe lxml parsing of IR v10/v11 ``.xml`` (+ ``.bin``) into a Graph, source lines kept.

A document with a DOCTYPE is rejected before it is parsed (that is where XXE and
billion-laughs payloads live): libxml2 expands internal entities inside attribute values
even with ``resolve_entities=False``, so refusing after the parse would be too late.
Parsing never loads a DTD or touches the network.
The file is streamed: each top-level ``<layer>`` and ``<edge>`` is read as soon as it is
complete and then dropped, so the whole document tree never sits in memory.
Problems that leave the file readable (bad dims, duplicate ids, dangling edges) are not
raised: they are collected in ``graph.load_diagnostics`` so ``check`` can report them all.
"""

from __future__ import annotations

import re
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from lxml import etree

from ..base.diagnostics import Diagnostic
from ..base.dims import parse_int
from ..base.errors import ReadError, SourceLoc
from .model import Edge, Graph, Layer, Port, RtNode, Weights

SUPPORTED_IR_VERSIONS = (10, 11)
MAX_DIM = 2**63 - 1
_EDGE_KEYS = ("from-layer", "from-port", "to-layer", "to-port")
_PRESCAN_CHUNK = 1 << 16
_SAFE = {"resolve_entities": False, "no_network": True, "load_dtd": False, "huge_tree": False}
#: A ``<dim>`` text that is valid without a second look: -1, or up to 18 digits (so within int64),
#: maybe between ASCII blanks. Anything else takes the path that checks and reports it.
_PLAIN_DIM = re.compile(r"[ \t\r\n]*(?:-1|[0-9]{1,18})[ \t\r\n]*")


class IrVersionError(ReadError):
    """``<net version>`` is not 10 or 11: legacy IR (v7 and older), an unknown version, or not a number."""

    code = "E-IR-VERSION"


def _parser() -> etree.XMLParser:
    return etree.XMLParser(dtd_validation=False, **_SAFE)


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


@contextmanager
def _safe_source(xml_path: Path) -> Iterator[BinaryIO]:
    """The open file, at its start, once its prolog is known to have no DOCTYPE (E-XML-UNSAFE otherwise).

    A file object, because lxml must not take the path for a URL. An OSError while it is read
    becomes a ReadError.
    """
    name = str(xml_path)
    try:
        with open(xml_path, "rb") as f:
            line = _doctype_line(f)
            if line is not None:
                raise ReadError(
                    "IR files must not have a DOCTYPE, found one: its entities and DTD are refused unread "
                    "(the place for XXE and billion-laughs payloads)",
                    SourceLoc(name, line),
                    code="E-XML-UNSAFE",
                )
            f.seek(0)
            yield f
    except OSError as exc:
        reason = exc.strerror or "not readable"
        raise ReadError(f"cannot read file: {reason}", SourceLoc(name)) from None


#: Model formats that are not IR, by file suffix: what the file is and what reads it.
_OTHER_FORMATS = {
    ".onnx": "an ONNX model: `ir-tools convert-onnx` converts it to IR",
    ".pb": "a TensorFlow model: OpenVINO's `ovc` converts it to IR",
    ".tflite": "a TensorFlow Lite model: OpenVINO's `ovc` converts it to IR",
    ".pt": "a PyTorch file: `openvino.convert_model` converts a loaded torch module to IR",
    ".pth": "a PyTorch file: `openvino.convert_model` converts a loaded torch module to IR",
    ".pdmodel": "a PaddlePaddle model: OpenVINO's `ovc` converts it to IR",
    ".bin": "the weights of an IR: give the .xml beside it",
    ".blob": "a compiled OpenVINO model (export_model), not IR",
}


def _malformed(name: str, exc: etree.ParseError) -> ReadError:
    other = _OTHER_FORMATS.get(Path(name).suffix.lower())
    if other:
        return ReadError(f"not an IR file: {Path(name).name} is {other}", SourceLoc(name))
    return ReadError(f"malformed XML: {exc.msg}", SourceLoc(name, exc.lineno or None))


def parse_xml(xml_path: Path) -> etree._ElementTree:
    """Parse safely; ReadError for a missing file or malformed XML, E-XML-UNSAFE for any DOCTYPE."""
    try:
        with _safe_source(xml_path) as f:
            return etree.parse(f, _parser())
    except etree.ParseError as exc:
        raise _malformed(str(xml_path), exc) from None


def read_ir(xml_path: str | Path, bin_path: str | Path | None = None) -> Graph:
    """Read an IR v10/v11 model; the ``.bin`` defaults to the one next to the ``.xml``.

    Raises ReadError when the file cannot be read at all, IrVersionError for other IR versions.
    """
    xml_path = Path(xml_path)
    with _safe_source(xml_path) as f:
        try:
            return _Reader(xml_path, bin_path).read(f)
        except etree.ParseError as exc:
            # The streaming parser words some errors differently: report the whole-document
            # parser's message and line, which is what a malformed file has always produced.
            parse_xml(xml_path)
            raise _malformed(str(xml_path), exc) from None


def _net_version(root: etree._Element, file: str) -> int:
    """The IR version of a ``<net>`` root; ReadError or IrVersionError if it is not one we read."""
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
    return version


def _rt_tree(el: etree._Element) -> tuple[RtNode, ...]:
    """The element children of ``el`` as verbatim trees (rt_info, subgraph bodies, port maps)."""
    return tuple(
        RtNode(c.tag, tuple(c.attrib.items()), _rt_tree(c), (c.text or "").strip() or None)
        for c in el
        if isinstance(c.tag, str)
    )


def _drop(el: etree._Element) -> None:
    """Free a top-level element that has been read, with whatever precedes it in its section."""
    parent = el.getparent()
    while parent[0] is not el:
        del parent[0]
    del parent[0]


#: Past line 65535 libxml2 keeps line numbers on text nodes only, and an element's ``sourceline``
#: comes from the nodes after it (its children, up to 4 next siblings; previous ones at the end of
#: its parent). So a top-level element is read only once 4 later siblings have been parsed (or its
#: section has ended), and freed only once 4 more have been read, as the whole-document parse saw it.
_LOOKAHEAD = 4


class _Reader:
    """Turns <layer> and <edge> elements into the graph; what cannot be used becomes a diagnostic."""

    def __init__(self, xml_path: Path, bin_path: str | Path | None):
        self.xml_path = xml_path
        self.bin_path = Path(bin_path) if bin_path else xml_path.with_suffix(".bin")
        self.file = str(xml_path)
        self.graph: Graph | None = None
        self.diagnostics: list[Diagnostic] = []
        self.edges: list[Edge | Diagnostic] = []  # connected once every layer exists
        self.plain_dims: dict[tuple[str, ...], tuple[int, ...]] = {}  # <dim> texts -> dims, when all valid

    def read(self, f: BinaryIO) -> Graph:
        """Stream the file: layers in file order, then edges, wherever they are in the file."""
        events = etree.iterparse(f, events=("end",), tag=("layer", "edge"), **_SAFE)
        root = section = tag = None
        recent: deque[etree._Element] = deque()  # the latest elements of the current <layers> or <edges>
        for _, el in events:
            if root is None:  # the <net> start tag has been parsed by now
                root = el.getroottree().getroot()
                self.start(root, events)
            parent = el.getparent()
            if parent is not section:
                if parent.getparent() is not root or parent.tag != el.tag + "s":
                    continue  # not a <layer> of <net><layers> or an <edge> of <net><edges> (a subgraph's, say)
                self.take_all(recent)
                section, tag = parent, el.tag
            elif el.tag != tag:
                continue
            recent.append(el)
            if len(recent) > _LOOKAHEAD:
                self.take(recent[-_LOOKAHEAD - 1])
            if len(recent) > 2 * _LOOKAHEAD:
                _drop(recent.popleft())
        if root is None:
            root = events.root
            self.start(root, ())
        self.take_all(recent)
        for edge in self.edges:
            if isinstance(edge, Diagnostic):
                self.diagnostics.append(edge)
            else:
                self.connect(edge)
        for child in root:
            if child.tag == "rt_info":
                self.graph.rt_info = _rt_tree(child)
        self.graph.load_diagnostics = self.diagnostics
        return self.graph

    def take(self, el: etree._Element) -> None:
        """Read one top-level <layer> or <edge>."""
        if el.tag == "layer":
            self.layer(el)
        else:
            self.edges.append(self.edge(el))

    def take_all(self, recent: deque[etree._Element]) -> None:
        """Read what is left of a complete section (those not read yet are the last ones)."""
        for el in list(recent)[-_LOOKAHEAD:]:
            self.take(el)
        recent.clear()

    def start(self, root: etree._Element, rest: Iterable) -> None:
        """Make the graph from the ``<net>`` root, or raise, but only once the rest parsed well (as before)."""
        try:
            version = _net_version(root, self.file)
        except ReadError:
            for _ in rest:  # a malformed file is reported as that first
                pass
            raise
        graph = self.graph = Graph(root.get("name", "model"), version)
        graph.net_extra = {k: v for k, v in root.attrib.items() if k not in ("name", "version")}
        graph.source = self.xml_path
        graph.line = root.sourceline
        graph.weights = Weights(self.bin_path)

    def problem(self, code: str, message: str, line: int | None, layer: Layer | None = None) -> None:
        loc = SourceLoc(self.file, line, layer.id, layer.name, layer.kind) if layer else SourceLoc(self.file, line)
        self.diagnostics.append(Diagnostic("error", code, message, loc))

    def layer(self, el: etree._Element) -> None:
        line = el.sourceline
        attrib = dict(el.items())
        layer_id, name = attrib.pop("id", ""), attrib.pop("name", "")
        op_type, version = attrib.pop("type", ""), attrib.pop("version", None)
        if not layer_id or not op_type:
            loc = SourceLoc(self.file, line, layer_id or None, name)
            message = (f"<layer> needs a '{'type' if layer_id else 'id'}' attribute, found none; "
                       "the layer and its edges are ignored")
            self.diagnostics.append(Diagnostic("error", "E-LAYER", message, loc))
            return
        # Interned: a model has few types and opsets. A fresh {}: a dict emptied by pop() keeps its size.
        layer = Layer(layer_id, name, sys.intern(op_type), version and sys.intern(version), extra=attrib or {},
                      file=self.file, line=line)
        if not (layer_id.isascii() and layer_id.isdigit() and int(layer_id) < 2**64):
            self.problem("E-LAYER", f"layer id must be an unsigned 64-bit integer (OpenVINO refuses others), "
                         f"got '{layer_id}'", line, layer)
        for child in el:
            tag = child.tag
            if tag == "data":
                layer.attrs = dict(child.items())
            elif tag == "input":
                layer.inputs = [self.port(p, layer) for p in child if p.tag == "port"]
            elif tag == "output":
                layer.outputs = [self.port(p, layer) for p in child if p.tag == "port"]
            elif tag == "rt_info":
                layer.rt_info = _rt_tree(child)
            elif isinstance(tag, str):  # <body>, <port_map>, <then_body>...: kept verbatim
                layer.children += (RtNode(tag, tuple(child.attrib.items()), _rt_tree(child)),)
        self.unique_ports(layer)
        try:
            self.graph.add_layer(layer)
        except ValueError:  # the id is taken
            first = self.graph.layer(layer_id)
            self.problem(
                "E-DUP-ID",
                f"layer ids must be unique, but id {layer_id} is already used by '{first.name}' at line {first.line}; "
                "this layer is ignored",
                line,
                layer,
            )

    def port(self, el: etree._Element, layer: Layer) -> Port:
        line = el.sourceline
        attrib = dict(el.items())
        id_text = attrib.pop("id", None)
        port_id = parse_int(id_text)
        if port_id is None or port_id < 0:
            self.problem("E-PORT", f"port id must be a non-negative integer, got '{id_text or ''}'", line, layer)
            port_id = -1
        precision, names = attrib.pop("precision", None), attrib.pop("names", None)
        texts = []
        rt_info = ()
        for child in el:
            tag = child.tag
            if tag == "dim":
                texts.append(child.text)
            elif tag == "rt_info":
                rt_info = _rt_tree(child)
        dims = ()  # no <dim>: a scalar, or a dynamic rank (the file cannot tell)
        if texts:
            key = tuple(texts)
            dims = self.plain_dims.get(key) or self.new_dims(el, key, layer)
        return Port(port_id, precision and sys.intern(precision), dims, names, attrib or {}, rt_info, line)

    def new_dims(self, el: etree._Element, texts: tuple[str | None, ...], layer: Layer) -> tuple[int, ...]:
        """The dims of a port whose ``<dim>`` texts were not seen yet: plain ones are remembered (one
        tuple then serves every port that spells them alike), others are checked and reported one by one."""
        if None not in texts and all(map(_PLAIN_DIM.fullmatch, texts)):
            dims = self.plain_dims[texts] = tuple(map(int, texts))
            return dims
        return tuple(self.dim(child, layer) for child in el if child.tag == "dim")

    def unique_ports(self, layer: Layer) -> None:
        ports = (*layer.inputs, *layer.outputs)
        if len({port.id for port in ports}) == len(ports):
            return
        seen: dict[int, Port] = {}
        for port in ports:
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

    def edge(self, el: etree._Element) -> Edge | Diagnostic:
        """The edge an <edge> declares, or the diagnostic saying why it cannot be used (needs no graph)."""
        attrib = dict(el.items())
        try:
            from_port, to_port = parse_int(attrib["from-port"]), parse_int(attrib["to-port"])
            if from_port is not None and to_port is not None:
                return Edge(attrib["from-layer"], from_port, attrib["to-layer"], to_port, el.sourceline)
        except KeyError:
            pass
        wrong = [f"{key} is missing" for key in _EDGE_KEYS if key not in attrib]
        wrong += [f"{key}='{attrib[key]}' is not an integer" for key in ("from-port", "to-port")
                  if key in attrib and parse_int(attrib[key]) is None]
        message = ("<edge> needs from-layer, from-port, to-layer and to-port (ports as integers), "
                   f"but {', '.join(wrong)}; the edge is ignored")
        return Diagnostic("error", "E-EDGE", message, SourceLoc(self.file, el.sourceline))

    def connect(self, edge: Edge) -> None:
        for lid in (edge.from_layer, edge.to_layer):
            if not self.graph.has_layer(lid):
                self.problem("E-EDGE-LAYER", f"edge {_edge_text(edge)} refers to layer {lid}, which does not exist",
                             edge.line)
                return
        for other in self.graph.producers(edge.to_layer, edge.to_port):
            if (other.from_layer, other.from_port) == (edge.from_layer, edge.from_port):
                self.problem("E-EDGE", f"edge {_edge_text(edge)} is declared twice (first at line {other.line}); "
                             "the repeat is ignored", edge.line)
                return
        self.graph.add_edge(edge)


def _edge_text(e: Edge) -> str:
    return f"{e.from_layer}:{e.from_port} -> {e.to_layer}:{e.to_port}"
