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
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from lxml import etree

from ..base.diagnostics import Diagnostic
from ..base.dims import parse_int
from ..base.errors import ReadError, SourceLoc
from .model import _WIDTH, Graph, Layer, PortFields, PortRecord, RtNode, Weights, _insert

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


def parse_may_start(xml_path: Path) -> bool:
    """False for what ``read_ir`` refuses before parsing: another model format (by its suffix), a file it cannot open,
    a prolog with a DOCTYPE. Reads only up to the root start tag: for a caller that hands the file to another parser
    (OpenVINO) before ``read_ir`` has read it."""
    if xml_path.suffix.lower() in _OTHER_FORMATS:
        return False
    try:
        with _safe_source(xml_path):
            return True
    except ReadError:
        return False


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


def _rt_tree(el: etree._Element, shared: dict | None = None) -> tuple[RtNode, ...]:
    """The element children of ``el`` as verbatim trees (rt_info, subgraph bodies, port maps).

    With ``shared``, equal trees (and equal tuples of them) are one object, which is safe as they
    are immutable: a model repeats the same few rt_info entries thousands of times.
    """
    nodes = []
    for c in el[:]:
        tag = c.tag
        if isinstance(tag, str):  # not a comment or processing instruction
            fields = (tag, tuple(c.items()), _rt_tree(c, shared), (c.text or "").strip() or None)
            if shared is None:
                nodes.append(RtNode(*fields))
            else:  # keyed by the fields, a 4-tuple that never equals a tuple of RtNodes (keyed below)
                node = shared.get(fields)
                if node is None:
                    node = shared[fields] = RtNode(*fields)
                nodes.append(node)
    found = tuple(nodes)
    return found if shared is None else shared.setdefault(found, found)


#: libxml2 keeps an element's line in 16 bits: from this line on, lxml's ``sourceline`` is that of the node
#: after the start tag (the first child, else the next sibling, else the previous one), and a text node's line
#: is where the text ends.
_BIG_LINE = 65535


def source_line(el: etree._Element) -> int | None:
    """The line of ``el``'s start tag, also past line 65535 (``_BIG_LINE``): the line libxml2 gives, less the
    line breaks of the text it was taken from (the whitespace after the start tag, or after an empty element)."""
    line = el.sourceline
    if line is None or line < _BIG_LINE:  # (None: an element not from a parse)
        return line
    text = el.text if el.text is not None or len(el) else el.tail
    return line - text.count("\n") if text else line


#: Past line 65535 libxml2 keeps line numbers on text nodes only, and an element's ``sourceline``
#: comes from the nodes after it (its children, up to 4 next siblings; previous ones at the end of
#: its parent). So a top-level element is read only once 4 later siblings have been parsed (or its
#: section has ended), and freed only once 4 more have been read, as the whole-document parse saw it.
_LOOKAHEAD = 4
#: Bytes fed to the parser at a time: bounds the part of the tree held in memory.
_CHUNK = 1 << 15
_NO_ATTRS: dict[str, str] = {}  # a layer without <data> yet (replaced by a dict of its own)


class _Section:
    """One top-level ``<layers>`` or ``<edges>`` while it is parsed: its ``<layer>`` (``<edge>``) children are
    read in order, each once ``_LOOKAHEAD`` later ones are complete, and freed once ``_LOOKAHEAD`` later ones
    have been read (see ``_LOOKAHEAD``)."""

    def __init__(self, el: etree._Element, take: Callable[[etree._Element], None]):
        self.el, self.tag, self.take = el, el.tag[:-1], take
        self.seen = 0  # children of ``el`` already looked at (the last one may have been incomplete)
        self.pending: list[etree._Element] = []  # the ``tag`` children not freed yet
        self.done = 0  # how many of them have been read

    def read(self, complete: bool) -> None:
        """Read what is ready; everything, once the section is ``complete``."""
        el, tag, pending = self.el, self.tag, self.pending
        new = el[self.seen :]
        self.seen += len(new)
        pending += [child for child in new if child.tag == tag]
        # all but the last child are complete (a later sibling has started)
        end = len(pending) if complete else max(self.done, len(pending) - 1 - _LOOKAHEAD)
        take = self.take
        for ready in pending[self.done : end]:
            take(ready)
        self.done = end
        if self.done > _LOOKAHEAD and not complete:
            last = pending[self.done - _LOOKAHEAD - 1]
            at = el.index(last) + 1
            del el[:at]
            self.seen -= at
            del pending[: self.done - _LOOKAHEAD]
            self.done = _LOOKAHEAD


class _Reader:
    """Turns <layer> and <edge> elements into the graph; what cannot be used becomes a diagnostic.

    Built for large files: an edge is kept as a plain tuple until it is connected, dims as a tuple
    of ints shared by every port that spells them alike, and the common spellings of layers, ports
    and edges take a path without per-attribute dicts.
    """

    def __init__(self, xml_path: Path, bin_path: str | Path | None):
        self.xml_path = xml_path
        self.bin_path = Path(bin_path) if bin_path else xml_path.with_suffix(".bin")
        self.file = str(xml_path)
        self.graph: Graph | None = None
        self.diagnostics: list[Diagnostic] = []
        # (from_layer, from_port, to_layer, to_port, line), or why an <edge> is unusable: connected once
        # every layer exists
        self.edges: list[tuple | Diagnostic] = []
        self.plain_dims: dict[tuple[str, ...], tuple[int, ...]] = {}  # <dim> texts -> dims, when all valid
        # (("id", id), ("precision", precision), <dim> texts) of a plain port -> its (id, precision, dims) fields (see
        # ports): the first two as el.items() gives them
        self.known_ports: dict[tuple[tuple[str, str], tuple[str, str], tuple[str, ...]],
                               tuple[int, str, tuple[int, ...]]] = {}
        self.shared: dict = {}  # verbatim trees read so far (see _rt_tree)

    def read(self, f: BinaryIO) -> Graph:
        """Stream the file: layers in file order, then edges, wherever they are in the file.

        The parser reports only where a ``<layers>`` or ``<edges>`` starts; after each chunk, the complete
        children of the current one are read from the tree (no event per element).
        """
        parser = etree.XMLPullParser(events=("start",), tag=("layers", "edges"), **_SAFE)
        end = None  # the root, once the parser has closed

        def rest() -> Iterator[None]:
            """Feed the rest of the file, a chunk at a time."""
            nonlocal end
            while chunk := f.read(_CHUNK):
                parser.feed(chunk)
                yield
            end = parser.close()

        root = None
        section: _Section | None = None
        for _ in rest():
            for _, el in parser.read_events():
                if root is None:  # the <net> start tag has been parsed by now
                    root = el.getroottree().getroot()
                    self.start(root, rest())  # (which parses the rest of the file first if it must raise)
                if el.getparent() is root:  # not a subgraph's <layers> or <edges>
                    if section is not None:
                        section.read(complete=True)  # (a later sibling has started)
                    section = _Section(el, self.layer if el.tag == "layers" else self.edge)
            if section is not None:
                section.read(complete=False)
        if root is None:
            root = end
            self.start(root, ())
        if section is not None:
            section.read(complete=True)
        self.connect_all()
        for child in root:
            if child.tag == "rt_info":
                self.graph.rt_info = _rt_tree(child, self.shared)
        self.graph.load_diagnostics = self.diagnostics
        return self.graph

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

    def edge(self, el: etree._Element) -> None:
        self.edges.append(self.link(el))

    def layer(self, el: etree._Element) -> None:
        line = source_line(el)
        items = el.items()
        if (len(items) == 4 and items[0][0] == "id" and items[1][0] == "name" and items[2][0] == "type"
                and items[3][0] == "version"):  # as OpenVINO writes them
            layer_id, name, op_type, version = sys.intern(items[0][1]), items[1][1], items[2][1], items[3][1]
            extra = None
        else:
            extra = dict(items)
            layer_id, name = sys.intern(extra.pop("id", "")), extra.pop("name", "")
            op_type, version = extra.pop("type", ""), extra.pop("version", None)
            extra = extra or None  # (a dict emptied by pop() keeps its size)
        if not layer_id or not op_type:
            loc = SourceLoc(self.file, line, layer_id or None, name)
            message = (f"<layer> needs a '{'type' if layer_id else 'id'}' attribute, found none; "
                       "the layer and its edges are ignored")
            self.diagnostics.append(Diagnostic("error", "E-LAYER", message, loc))
            return
        # Interned: a model has few types and opsets.
        layer = Layer._read(layer_id, name, sys.intern(op_type), version and sys.intern(version), _NO_ATTRS, (), (),
                            (), extra, (), self.file, line)
        number = int(layer_id) if layer_id.isdigit() and layer_id.isascii() else -1
        if not 0 <= number < 2**64:
            self.problem("E-LAYER", f"layer id must be an unsigned 64-bit integer (OpenVINO refuses others), "
                         f"got '{layer_id}'", line, layer)
        for child in el[:]:  # (a slice makes the children's proxies faster than iterating does)
            tag = child.tag
            if tag == "data":
                layer.attrs = dict(child.items())
            elif tag == "input":
                layer._inputs = self.ports(child, layer)
            elif tag == "output":
                layer._outputs = self.ports(child, layer)
            elif tag == "rt_info":
                layer.rt_info = _rt_tree(child, self.shared)
            elif isinstance(tag, str):  # <body>, <port_map>, <then_body>...: kept verbatim
                layer.children += (RtNode(tag, tuple(child.items()), _rt_tree(child, self.shared)),)
        if layer.attrs is _NO_ATTRS:
            layer.attrs = {}
        ins, outs = layer._inputs, layer._outputs
        if len(ins) + len(outs) > _WIDTH:  # more than one port: are their ids unique?
            ids = ins[::_WIDTH] + outs[::_WIDTH]
            if len(set(ids)) != len(ids):
                self.repeated_ports(layer)
        layers = self.graph._layers
        if layer_id not in layers:  # Graph.add_layer, without checking the id again
            layers[layer_id] = layer
            if number >= self.graph._next_id:
                self.graph._next_id = number + 1
        else:
            first = layers[layer_id]
            self.problem(
                "E-DUP-ID",
                f"layer ids must be unique, but id {layer_id} is already used by '{first.name}' at line {first.line}; "
                "this layer is ignored",
                line,
                layer,
            )

    def ports(self, section: etree._Element, layer: Layer) -> PortFields:
        """The ``<port>``s of an ``<input>`` or ``<output>``, as the layer keeps them until asked for Port objects
        (see PortFields). A port spelled as OpenVINO writes them (``id`` and ``precision``, maybe ``names``,
        then only plain ``<dim>``s) takes a path that parses nothing seen before."""
        fields = []
        known = self.known_ports
        for el in section[:]:
            if el.tag != "port":
                continue
            items = el.items()
            children = el[:]
            texts = tuple([dim.text for dim in children if dim.tag == "dim"])
            n = len(items)
            if len(texts) == len(children) and (n == 2 or (n == 3 and items[2][0] == "names")):
                # only plain ports are in ``known``: a port found there has the attribute names of one
                head = known.get((items[0], items[1], texts))
                if head is not None:
                    fields += head
                    fields += (items[2][1] if n == 3 else None, None, (), source_line(el))
                    continue
            fields += self.port(el, layer, items, children, texts)
        return tuple(fields)

    def port(self, el: etree._Element, layer: Layer, items: list[tuple[str, str]], children: list[etree._Element],
             texts: tuple[str | None, ...]) -> PortRecord:
        """A port not seen before (or not plain): parsed and checked; a plain one is remembered for ``ports``."""
        line = source_line(el)
        n = len(items)
        plain = len(texts) == len(children)  # as OpenVINO writes them: see ports
        if n == 2 and items[0][0] == "id" and items[1][0] == "precision":
            id_text, precision, names, extra = items[0][1], sys.intern(items[1][1]), None, None
        elif n == 3 and items[0][0] == "id" and items[1][0] == "precision" and items[2][0] == "names":
            id_text, precision, names, extra = items[0][1], sys.intern(items[1][1]), items[2][1], None
        else:
            plain = False
            extra = dict(items)
            id_text, precision, names = extra.pop("id", None), extra.pop("precision", None), extra.pop("names", None)
            precision = precision and sys.intern(precision)
            extra = extra or None
        if id_text is not None and id_text.isdigit() and id_text.isascii():
            port_id = int(id_text)
        else:
            plain = False
            port_id = parse_int(id_text)
            if port_id is None or port_id < 0:
                self.problem("E-PORT", f"port id must be a non-negative integer, got '{id_text or ''}'", line, layer)
                port_id = -1
        rt_info = ()
        if len(texts) != len(children):  # other children: an rt_info is kept (the last one), anything else ignored
            for child in children:
                if child.tag == "rt_info":
                    rt_info = _rt_tree(child, self.shared)
        dims = ()  # no <dim>: a scalar, or a dynamic rank (the file cannot tell)
        if texts:
            dims = self.plain_dims.get(texts) or self.new_dims(el, texts, layer)
            plain = plain and texts in self.plain_dims
        if plain:
            self.known_ports[(items[0], items[1], texts)] = (port_id, precision, dims)
        return (port_id, precision, dims, names, extra, rt_info, line)

    def new_dims(self, el: etree._Element, texts: tuple[str | None, ...], layer: Layer) -> tuple[int, ...]:
        """The dims of a port whose ``<dim>`` texts were not seen yet: plain ones are remembered (one
        tuple then serves every port that spells them alike), others are checked and reported one by one."""
        if None not in texts and all(map(_PLAIN_DIM.fullmatch, texts)):
            dims = self.plain_dims[texts] = tuple(map(int, texts))
            return dims
        return tuple(self.dim(child, layer) for child in el.iterchildren("dim"))

    def repeated_ports(self, layer: Layer) -> None:
        """E-PORT for each port whose id an earlier port of the layer has."""
        seen: dict[int, PortRecord] = {}
        for port in layer.input_records() + layer.output_records():
            if port[0] in seen:
                self.problem("E-PORT", f"port ids must be unique within a layer, but port {port[0]} is already "
                             f"declared at line {seen[port[0]][6]}", port[6], layer)
            elif port[0] >= 0:
                seen[port[0]] = port

    def dim(self, el: etree._Element, layer: Layer) -> int:
        text = (el.text or "").strip()
        value = parse_int(text)
        if value is None:
            self.problem("E-DIM", f"<dim> must be an integer (-1 for dynamic), got '{text}'", source_line(el), layer)
        elif value < -1:
            self.problem("E-DIM", f"<dim> must be -1 (dynamic) or at least 0, got {text}", source_line(el), layer)
        elif value > MAX_DIM:
            self.problem("E-DIM", f"<dim> must fit in int64 (at most {MAX_DIM}), got {text}", source_line(el), layer)
        else:
            return value
        return -1

    def link(self, el: etree._Element) -> tuple | Diagnostic:
        """The edge an <edge> declares, as a plain tuple, or the diagnostic saying why it cannot be used
        (needs no graph)."""
        items = el.items()
        if len(items) == 4:
            (k0, from_layer), (k1, from_port), (k2, to_layer), (k3, to_port) = items
            if (k0 == "from-layer" and k1 == "from-port" and k2 == "to-layer" and k3 == "to-port"
                    and from_port.isdigit() and to_port.isdigit() and from_port.isascii() and to_port.isascii()):
                return (sys.intern(from_layer), int(from_port), sys.intern(to_layer), int(to_port), source_line(el))
        attrib = dict(items)
        try:
            from_port, to_port = parse_int(attrib["from-port"]), parse_int(attrib["to-port"])
            if from_port is not None and to_port is not None:
                return (sys.intern(attrib["from-layer"]), from_port, sys.intern(attrib["to-layer"]), to_port,
                        source_line(el))
        except KeyError:
            pass
        wrong = [f"{key} is missing" for key in _EDGE_KEYS if key not in attrib]
        wrong += [f"{key}='{attrib[key]}' is not an integer" for key in ("from-port", "to-port")
                  if key in attrib and parse_int(attrib[key]) is None]
        message = ("<edge> needs from-layer, from-port, to-layer and to-port (ports as integers), "
                   f"but {', '.join(wrong)}; the edge is ignored")
        return Diagnostic("error", "E-EDGE", message, SourceLoc(self.file, source_line(el)))

    def connect_all(self) -> None:
        """Connect the edges read, in file order (they may precede the layers in the file); ``Graph._link``
        inlined for the common case of a port's first edge."""
        graph = self.graph
        layers, ins, outs = graph._layers, graph._in, graph._out
        forward = True  # every edge goes to a later line (so to a later layer): no cycle, no sort to do
        for item in self.edges:
            if type(item) is not tuple:
                self.diagnostics.append(item)
                continue
            from_layer, to_layer, line = item[0], item[2], item[4]
            src, dst = layers.get(from_layer), layers.get(to_layer)
            if src is None or dst is None:
                lid = from_layer if src is None else to_layer
                self.problem("E-EDGE-LAYER", f"edge {_edge_text(item)} refers to layer {lid}, which does not exist",
                             line)
                continue
            link = item  # its ids are the layers' own strings (interned): one per layer, however many edges name it
            slot = ins.get(to_layer)
            if slot is None:
                ins[to_layer] = link
            elif type(slot[0]) is str and not (slot[3] == link[3] and slot[1] == link[1] and slot[0] == link[0]):
                ins[to_layer] = (slot, link)  # a layer's second edge in (where _insert would add it)
            else:
                other = _insert(ins, to_layer, link, 0, link)
                if other is not None:
                    self.problem("E-EDGE", f"edge {_edge_text(item)} is declared twice (first at line {other[4]}); "
                                 "the repeat is ignored", line)
                    continue
            slot = outs.get(from_layer)
            if slot is None:
                outs[from_layer] = link
            elif type(slot[0]) is str:
                outs[from_layer] = (slot, link)
            else:
                _insert(outs, from_layer, link, 2, None)
            if forward and not (src.line is not None and dst.line is not None and src.line < dst.line):
                forward = False
        graph._forward = True if forward else None
        self.edges = []


def _edge_text(e: tuple) -> str:
    return f"{e[0]}:{e[1]} -> {e[2]}:{e[3]}"
