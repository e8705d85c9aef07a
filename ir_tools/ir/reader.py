"""Safe lxml parsing of IR v10/v11 ``.xml`` (+ ``.bin``) into a Graph, source lines kept.

A document with a DOCTYPE is rejected before it is parsed (that is where XXE and
billion-laughs payloads live): libxml2 expands internal entities inside attribute values
even with ``resolve_entities=False``, so refusing after the parse would be too late.
Parsing never loads a DTD or touches the network.
No document tree is built (for a large model it would take more memory than OpenVINO's whole read):
libxml2 checks that the document is well-formed, keeping nothing, on a thread of its own (it releases the GIL,
so the check takes a second core), while the text is scanned from element to element; the graph is returned only
once the check passed, and a malformed document's error is libxml2's, whatever the scan met.
A layer or edge spelled as OpenVINO writes it is read by regular expressions (``_LAYER``); other elements are
parsed by lxml (a run of them at a time) and read from lxml's elements (``_Reader.layer``); both paths give the
same graph.
Problems that leave the file readable (bad dims, duplicate ids, dangling edges) are not
raised: they are collected in ``graph.load_diagnostics`` so ``check`` can report them all.
"""

from __future__ import annotations

import io
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from lxml import etree

from ..base.diagnostics import Diagnostic
from ..base.dims import INT64_MAX, as_layer_id, parse_int, parse_port_dim, parse_uint64_attr
from ..base.errors import IrToolsError, ReadError, SourceLoc
from .model import Graph, Layer, PortFields, PortRecord, RtNode, Weights
from .pugixml import reads_past, respelled

SUPPORTED_IR_VERSIONS = (10, 11)
MAX_DIM = INT64_MAX
_EDGE_KEYS = ("from-layer", "from-port", "to-layer", "to-port")
_PRESCAN_CHUNK = 1 << 16
#: libxml2 reads no entity, DTD or network resource, and keeps its limits (nesting 256 deep, a text or attribute of
#: 10 MB): lifted (``huge_tree``), an older libxml2 nests without bound, past what the reader's walk of a tree takes.
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
    """The root start tag, with its name and attributes."""

    def __init__(self, tag: str, attrib: dict):
        super().__init__(tag)
        self.tag, self.attrib = tag, dict(attrib)


class _PrologTarget:
    """Parser target that stops at the DOCTYPE (unsafe) or at the root element (safe)."""

    def doctype(self, name: str, pubid: str | None, system: str | None) -> None:
        raise _Doctype(name)

    def start(self, tag: str, attrib: dict, nsmap: dict | None = None) -> None:
        if tag.startswith("{"):  # the name as written, which is what OpenVINO (pugixml) reads
            uri, tag = tag[1:].split("}", 1)
            prefix = next((p for p, u in (nsmap or {}).items() if u == uri and p), None)
            tag = f"{prefix}:{tag}" if prefix and (nsmap or {}).get(None) != uri else tag
        raise _RootReached(tag, attrib)

    def end(self, tag: str) -> None:
        pass

    def data(self, data: str) -> None:
        pass

    def close(self) -> None:
        return None


def _prolog(f: BinaryIO) -> tuple[int | None, _RootReached | None]:
    """The line of the prolog's DOCTYPE (None if there is none), and the root start tag if it was reached; reads
    only up to it.

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
        return newlines + chunk[: max(at, 0)].count(b"\n") + 1, False
    except _RootReached as root:
        return None, root
    except etree.ParseError:
        pass
    return None, None


@contextmanager
def _safe_source(xml_path: Path) -> Iterator[BinaryIO]:
    """The open file, at its start, once its prolog is known to have no DOCTYPE (E-XML-UNSAFE otherwise).

    A file object, because lxml must not take the path for a URL. An OSError while it is read
    becomes a ReadError.
    """
    name = str(xml_path)
    try:
        with open(xml_path, "rb") as f:
            line, _ = _prolog(f)
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
        if xml_path.is_symlink() and not xml_path.exists():
            reason = (f"it is a link to {os.readlink(xml_path)}, which does not exist (content git-annex or DVC "
                      "keeps elsewhere and has not fetched?)")
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


#: How a git LFS pointer file begins: what a clone without git-lfs holds in place of a file kept in LFS (OpenVINO's
#: own test IRs are), with the size of the file it stands for on a later line.
_LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\n"


def lfs_pointer(name: str | Path) -> int | None:
    """The size of the file a git LFS pointer file stands for, None for another file."""
    try:
        with open(name, "rb") as f:
            head = f.read(LFS_POINTER_HEAD)
    except OSError:
        return None
    return lfs_pointer_size(head)


#: How many of a file's first bytes ``lfs_pointer_size`` reads.
LFS_POINTER_HEAD = 512


def lfs_pointer_size(head: bytes) -> int | None:
    """``lfs_pointer`` of a file whose first ``LFS_POINTER_HEAD`` bytes (or all, if fewer) are ``head``."""
    size = re.search(rb"^size (\d+)$", head, re.MULTILINE)
    return int(size[1]) if head.startswith(_LFS_POINTER) and size else None


def _malformed(name: str, exc: etree.ParseError) -> ReadError:
    other = _OTHER_FORMATS.get(Path(name).suffix.lower())
    if other:
        return ReadError(f"not an IR file: {Path(name).name} is {other}", SourceLoc(name))
    size = lfs_pointer(name)
    if size is not None:
        return ReadError(f"not an IR file: {Path(name).name} is a git LFS pointer to a file of {size} bytes, what a "
                         "clone without git-lfs holds in its place: `git lfs pull` in its repository fetches it",
                         SourceLoc(name, 1))
    message = _LIBXML_ADVICE.sub("", exc.msg).replace("\n", " ")  # (advice for a C caller; one line)
    if _LIMITS.search(message):
        return ReadError(f"beyond the XML parser's limits (nesting 256 deep, a text or attribute of 10 MB, kept "
                         f"against oversized input; OpenVINO's reader has none): {message}",
                         SourceLoc(name, exc.lineno or None))
    return ReadError(f"{_MALFORMED}{message}", SourceLoc(name, exc.lineno or None))


#: How a ReadError for a document libxml2 finds not well-formed starts.
_MALFORMED = "malformed XML: "


#: What libxml2 says of a document past its limits (not malformed).
_LIMITS = re.compile(r"Resource limit exceeded|Excessive depth|Huge input lookup")


#: libxml2's advice to its C caller, in some of its messages ("use XML_PARSE_HUGE option").
_LIBXML_ADVICE = re.compile(r",? (?:use|try) XML_PARSE_HUGE(?: option)?")


def parse_may_start(xml_path: Path) -> bool:
    """False for what ``read_ir`` refuses at or before the root start tag: another model format (by its suffix), a
    file it cannot open, a prolog with a DOCTYPE or that is not XML, a root other than ``<net>`` or of an IR version
    other than 10 and 11 (legacy IR: OpenVINO's IR frontend declines those, and then its other frontends try the file
    and write to stderr). Reads only up to the root start tag: for a caller that hands the file to another parser
    (OpenVINO) before ``read_ir`` has read it."""
    if xml_path.suffix.lower() in _OTHER_FORMATS:
        return False
    try:
        with open(xml_path, "rb") as f:
            doctype, root = _prolog(f)
    except OSError:
        return False
    return (doctype is None and root is not None and root.tag == "net"
            and parse_int(root.attrib.get("version")) in SUPPORTED_IR_VERSIONS)


def parse_xml(xml_path: Path) -> etree._ElementTree:
    """Parse safely; ReadError for a missing file or malformed XML, E-XML-UNSAFE for any DOCTYPE."""
    try:
        with _safe_source(xml_path) as f:
            return etree.parse(f, _parser())
    except etree.ParseError as exc:
        raise _malformed(str(xml_path), exc) from None


def graph_of(source: Graph | str | os.PathLike, read: Callable[[str | Path], Graph] | None = None) -> Graph:
    """``source`` itself if it is a Graph, else the IR file it names read by ``read`` (``read_ir`` unless given): the
    public calls take a graph or a path, as ``migrate`` does. IrToolsError (E-USAGE) for anything else."""
    if isinstance(source, Graph):
        return source
    if isinstance(source, str | os.PathLike):
        return (read or read_ir)(source)
    raise IrToolsError(f"expected a Graph or the path of an .xml file, not {type(source).__name__}", code="E-USAGE")


def ir_path(xml_path: str | os.PathLike, bin_path: str | os.PathLike | None, call: str) -> Path:
    """``xml_path`` as a Path; IrToolsError (E-USAGE) naming ``call`` where it or ``bin_path`` is no path (a Graph,
    which is read already; None; bytes), which failed inside."""
    if not isinstance(xml_path, str | os.PathLike) or not isinstance(bin_path, str | os.PathLike | None):
        wrong = xml_path if not isinstance(xml_path, str | os.PathLike) else bin_path
        raise IrToolsError(f"{call} reads the path of an .xml file (and of its .bin), not {type(wrong).__name__}",
                           code="E-USAGE")
    return Path(xml_path)


def read_ir(xml_path: str | Path, bin_path: str | Path | None = None) -> Graph:
    """Read an IR v10/v11 model; the ``.bin`` defaults to the one next to the ``.xml``.

    Raises ReadError when the file cannot be read at all, IrVersionError for other IR versions. A document that is
    not well-formed XML but that OpenVINO's parser reads (``pugixml.respelled``) is read as OpenVINO reads it, with
    W-XML at libxml2's error. IrToolsError (E-USAGE) for what is no path (a Graph: it is read already).
    """
    xml_path = ir_path(xml_path, bin_path, "read_ir")
    try:
        return _read_document(xml_path, bin_path, _document(xml_path))
    except ReadError as exc:
        refused = exc
    data = _document(xml_path)  # (again: while a document is read, nothing else holds its bytes)
    lenient = refused.message.startswith(_MALFORMED) and encoding_of(data).startswith("utf-8") and respelled(data)
    if not lenient:
        raise refused
    try:
        graph = _read_document(xml_path, bin_path, lenient)
    except ReadError:
        raise refused from None
    message = refused.message.removeprefix(_MALFORMED)
    graph.load_diagnostics.insert(0, Diagnostic(
        "warning", "W-XML", f"not well-formed XML ({message}); OpenVINO's parser reads it, as ir_tools does, but "
        "other XML tools refuse it (a command that writes the model writes it well-formed)", refused.loc))
    return graph


def _document(xml_path: Path) -> bytes:
    """The bytes of ``xml_path``, once its prolog is known to have no DOCTYPE (E-XML-UNSAFE otherwise)."""
    with _safe_source(xml_path) as f:
        return f.read()


def _read_document(xml_path: Path, bin_path: str | Path | None, data: bytes) -> Graph:
    """``read_ir`` of the bytes ``data`` of ``xml_path``, without its respelling."""
    stood_in = b"&#" in data and _standing_in(data)
    data = stood_in or data
    check = _WellFormed(data, str(xml_path))
    try:
        text = ""
        try:
            text = _text(data, str(xml_path))
            del data  # (the check keeps the bytes while it parses them, and after only if they are malformed)
            graph = _Reader(xml_path, bin_path, check).read(text)
        except Exception:
            check.passed()  # a malformed document: libxml2's error, not what the scan met
            if not (check.namespaces and text):
                raise
        else:
            check.passed()
        if check.namespaces:  # (read again, as OpenVINO reads it: rare, and the common case pays nothing)
            graph = _Reader(xml_path, bin_path, check).read(_without_namespaces(text))
            _named_back(graph)
        if stood_in:
            _stood_in_for(graph)
        if check.trailing is not None:
            graph.load_diagnostics.append(Diagnostic(
                "warning", "W-TRAILING", "content after </net>: OpenVINO reads past it and ignores it",
                SourceLoc(str(xml_path), check.trailing)))
        return graph
    except etree.ParseError as exc:
        # A parser without a tree words some errors differently: report the whole-document
        # parser's message and line, so that a malformed file reads the same whichever path met the error.
        if stood_in:  # (the document as read: its references to control characters are not what is wrong)
            try:
                etree.parse(io.BytesIO(stood_in), _parser())
            except etree.ParseError as whole:
                raise _malformed(str(xml_path), whole) from None
        else:
            parse_xml(xml_path)  # (the file, as read: libxml2 words a limit otherwise in a buffer, "AttValue length
            # too long" in lxml 5.0's)
        raise _malformed(str(xml_path), exc) from None


#: A character reference to a character XML 1.0 has no place for, a C0 control but tab and line ends: OpenVINO's
#: serializer (pugixml) writes one for such a character in a name ("&#01;"), as ``writer`` does, and its reader reads
#: it; libxml2 refuses it. Groups: 1 the code in hex, 2 in decimal.
_CONTROL_REF = re.compile(rb"&#(?:x0*([0-9a-fA-F]{1,2})|0*([0-9]{1,2}));")
#: Plane 15's private use characters, one per C0 control: while libxml2 reads, each stands in for its control's
#: reference (``_standing_in``), and the values read are given the controls back (``_stood_in_for``).
_STAND_IN = 0xF0000
_CONTROLS = {_STAND_IN + code: chr(code) for code in range(32)}


def _standing_in(data: bytes) -> bytes | None:
    """``data`` with each reference to a control character (``_CONTROL_REF``) made one to its stand-in; None if it
    holds none, or holds a stand-in already (then libxml2 refuses the reference, as before)."""
    found = False

    def stand_in(ref: re.Match) -> bytes:
        nonlocal found
        code = int(ref.group(1), 16) if ref.group(1) is not None else int(ref.group(2))
        if code >= 32 or code in (9, 10, 13):
            return ref.group(0)
        found = True
        return b"&#x%X;" % (_STAND_IN + code)

    replaced = _CONTROL_REF.sub(stand_in, data)
    return replaced if found and chr(_STAND_IN).encode()[:3] not in data else None


#: What stands for a colon in a name (an element's, an attribute's) while lxml reads a document that declares XML
#: namespaces, and what follows a bare ``xmlns``: two code points XML allows in names that no IR holds. OpenVINO's
#: reader (pugixml) processes no namespaces: ``<net xmlns="...">`` is a ``<net>`` with an attribute ``xmlns``, and
#: ``<ir:layer>`` is an element named "ir:layer", not a layer; ``_without_namespaces`` spells the document so for lxml,
#: and ``_named_back`` gives the names read their colons back.
_COLON, _BARE = "\U000EFFFD", "\U000EFFFC"
_NAMES_BACK = str.maketrans({_COLON: ":", _BARE: ""})
#: A start or end tag (groups: 1 its name, 2 its attributes), or what may hold a "<" that is no tag.
_TAG = re.compile(r"<!--.*?-->|<\?.*?\?>|<!\[CDATA\[.*?\]\]>|<!.*?>"
                  r"""|</?([^\s/>!?]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)""", re.DOTALL)
_ATTR_NAME = re.compile(r"""(\s+)([^\s=/>]+)(\s*=\s*(?:"[^"]*"|'[^']*'))""")


def _without_namespaces(text: str) -> str:
    """``text`` with each name spelled so that lxml declares and resolves no namespace (see ``_COLON``); the lines
    are kept."""
    def attribute(found: re.Match) -> str:
        name = found.group(2)
        name = name + _BARE if name == "xmlns" else name.replace(":", _COLON)
        return found.group(1) + name + found.group(3)

    def tag(found: re.Match) -> str:
        if found.group(1) is None:
            return found.group(0)
        head = found.group(0)[: found.start(2) - found.start(0)].replace(":", _COLON)
        return head + _ATTR_NAME.sub(attribute, found.group(2))

    return _TAG.sub(tag, text)


def _named_back(graph: Graph) -> None:
    """Give every name read its colon back (``_without_namespaces``): attributes of the net, of layers, of their
    ``<data>`` and ports, and the elements and attributes of rt_info and subgraph bodies."""
    def keys(items: dict[str, str] | None) -> dict[str, str] | None:
        return items and {k.translate(_NAMES_BACK): v for k, v in items.items()}

    def tree(nodes: tuple[RtNode, ...]) -> tuple[RtNode, ...]:
        return tuple(RtNode(node.tag.translate(_NAMES_BACK), tuple(keys(dict(node.attrs)).items()),
                            tree(node.children), node.text, node.payload, node.line) for node in nodes)

    graph.rt_info, graph.net_extra = tree(graph.rt_info), keys(graph.net_extra)
    for layer in graph.layers():
        layer.rt_info, layer.children, layer.attrs = tree(layer.rt_info), tree(layer.children), keys(layer.attrs)
        if layer.extra:
            layer.extra = keys(layer.extra)
        for port in (*layer.inputs, *layer.outputs):
            port.rt_info, port.extra = tree(port.rt_info), keys(port.extra)


def _stood_in_for(graph: Graph) -> None:
    """Give every value read the control characters their stand-ins stood for (``_standing_in``): names,
    attributes, port names and rt_info, of the model and of each layer, bodies included."""
    def back(value: str | None) -> str | None:
        return value.translate(_CONTROLS) if value else value

    def tree(nodes: tuple[RtNode, ...]) -> tuple[RtNode, ...]:
        return tuple(RtNode(node.tag, tuple((k, back(v)) for k, v in node.attrs), tree(node.children),
                            back(node.text), node.payload, node.line) for node in nodes)

    graph.name, graph.rt_info = back(graph.name), tree(graph.rt_info)
    graph.net_extra = {k: back(v) for k, v in graph.net_extra.items()}
    for layer in graph.layers():
        layer.name, layer.rt_info, layer.children = back(layer.name), tree(layer.rt_info), tree(layer.children)
        layer.attrs = {k: back(v) for k, v in layer.attrs.items()}
        if layer.extra:
            layer.extra = {k: back(v) for k, v in layer.extra.items()}
        for port in (*layer.inputs, *layer.outputs):
            port.names, port.rt_info = back(port.names), tree(port.rt_info)
            port.extra = {k: back(v) for k, v in port.extra.items()}


def _net_version(root: etree._Element, file: str, line: int | None) -> int:
    """The IR version of a ``<net>`` root (at ``line``); ReadError or IrVersionError if it is not one we read."""
    if root.tag != "net":
        raise ReadError(f"root element is <{root.tag.translate(_NAMES_BACK)}>, expected <net>", SourceLoc(file, line))
    version_text = root.get("version")
    version = parse_int(version_text)
    if version is None:
        found = "no version attribute" if version_text is None else f"'{version_text}'"
        message = f"<net version> must be 10 or 11, got {found}"
        raise IrVersionError(message, SourceLoc(file, line))
    if version not in SUPPORTED_IR_VERSIONS:
        hint = (
            "it is legacy IR (v7 or older) that current OpenVINO cannot read; `ir-tools migrate` converts it"
            if version <= 7
            else "only IR v10 and v11 exist"
        )
        raise IrVersionError(f"IR version {version} is not supported: {hint}", SourceLoc(file, line))
    return version


def _rt_tree(el: etree._Element, shared: dict | None = None,
             line_of: Callable[[etree._Element], int] | None = None) -> tuple[RtNode, ...]:
    """The element children of ``el`` as verbatim trees (rt_info, subgraph bodies, port maps).

    With ``shared``, equal trees (and equal tuples of them) are one object, which is safe as they
    are immutable: a model repeats the same few rt_info entries thousands of times. With ``line_of`` (a body's, never
    shared: equal bodies lie on other lines), each node holds its element's line.
    """
    nodes = []
    for c in el[:]:
        tag = c.tag
        if isinstance(tag, str):  # not a comment or processing instruction
            fields = (tag, tuple(c.items()), _rt_tree(c, shared, line_of), (c.text or "").strip() or None)
            if line_of is not None:
                nodes.append(RtNode(*fields, line=line_of(c)))
            else:
                nodes.append(RtNode(*fields) if shared is None else _shared(fields, shared))
    found = tuple(nodes)
    return found if shared is None else shared.setdefault(found, found)


#: The legacy sections OpenVINO reads into the model's rt_info when the file has no ``<rt_info>`` (see legacy_rt_info).
_LEGACY_META = ("meta_data", "quantization_parameters")
#: The names OpenVINO's serializer writes as a tag (``is_correct_tag_name``): others are ``<info name=...>``.
_TAG_NAME = re.compile(r"[A-Za-z_][\w.-]*", re.ASCII)


def _rt_entry(key: str, value: str | dict) -> RtNode:
    """An rt_info entry as OpenVINO's serializer writes a model's: a string as ``value``, a map's entries in key
    order; a key that is no XML name (or starts with "xml") as ``<info name=KEY>``."""
    if _TAG_NAME.fullmatch(key) and key[:3].lower() != "xml":
        tag, attrs = key, ()
    else:
        tag, attrs = "info", (("name", key),)
    if isinstance(value, str):
        return RtNode(tag, (*attrs, ("value", value)))
    return RtNode(tag, attrs, tuple(_rt_entry(k, value[k]) for k in sorted(value)))


def _pot_map(el: etree._Element) -> dict:
    """POT's ``<quantization_parameters>`` (or an element in it) as OpenVINO reads it (``MetaDataParser::parse_node``):
    each child by its ``name`` attribute, else its tag; a ``value`` (an ``<unset>``'s ``unset_cli_parameters``), else
    a map of its children; the section's ``<config>`` is its text as pugixml prints it, without the tags, line
    breaks and repeated spaces."""
    found: dict = {}
    section = el.get("name", el.tag.translate(_NAMES_BACK))
    for child in el.iterchildren(tag=etree.Element):
        key = child.get("name", child.tag.translate(_NAMES_BACK))
        if key == "config" and section == "quantization_parameters":
            printed = _pugi_printed(child).replace(f"<{child.tag}>", "").replace(f"</{child.tag}>", "")
            found[key] = re.sub(" +", " ", printed.replace("\n", ""))
        elif child.get("value") is not None:
            found[key] = child.get("value")
        elif child.tag == "unset" and child.get("unset_cli_parameters") is not None:
            found[key] = child.get("unset_cli_parameters")
        else:
            found[key] = _pot_map(child)
    return found


def _pugi_printed(el: etree._Element, depth: int = 0) -> str:
    """An element as pugixml prints it (``xml_node::print``, indented by tabs): text escaped for ``&``, ``<`` and
    ``>``, attributes for ``"`` too."""
    def text(value: str) -> str:
        return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

    head = "\t" * depth + f"<{el.tag}" + "".join(f' {k}="{text(v).replace(chr(34), "&quot;")}"' for k, v in el.items())
    children = [c for c in el if isinstance(c.tag, str)]
    if not children:
        return f"{head}>{text(el.text)}</{el.tag}>\n" if el.text else f"{head} />\n"
    inner = "".join(_pugi_printed(c, depth + 1) for c in children)
    return f"{head}>\n{inner}" + "\t" * depth + f"</{el.tag}>\n"


def _shared(fields: tuple, shared: dict) -> RtNode:
    """The one RtNode of these fields in ``shared`` (keyed by the fields, a 4-tuple that never equals a tuple of
    RtNodes, which ``shared`` also holds)."""
    node = shared.get(fields)
    if node is None:
        node = shared[fields] = RtNode(*fields)
    return node


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


#: The end tag of the root element: what follows it is outside the IR.
_ROOT_END = re.compile(rb"</net\s*>")
#: The releases before 2024.5 refuse an IR whose document ends within its first ``HEADER_BYTES`` bytes
#: (``ops.releases.SHORT_DOCUMENTS_FROM``): their reader takes the IR version from a parse of those bytes. The writer
#: writes every document past them.
HEADER_BYTES = 512


def ends_within_header(xml_path: Path) -> bool:
    """Whether the document of ``xml_path`` ends within its first ``HEADER_BYTES`` bytes."""
    with open(xml_path, "rb") as f:
        return _ROOT_END.search(f.read(HEADER_BYTES)) is not None


def _ignored_after_root(data: bytes) -> int | None:
    """The line where content after ``</net>`` starts, where the document is well-formed up to there and OpenVINO's
    reader reads past the rest (``pugixml.reads_past``: elements, text, comments, DOCTYPEs... measured on OpenVINO
    2026.4: read and compiled; an unclosed or unopened element and a bare ``<`` refused). None otherwise: libxml2's
    error stands. An ASCII-compatible encoding only."""
    end = _ROOT_END.search(data)
    if end is None or not encoding_of(data).startswith("utf-8") or not reads_past(data[end.end():]):
        return None
    try:  # (the rest is never given to libxml2: a DOCTYPE there is skipped unparsed, as OpenVINO skips it)
        etree.fromstring(data[:end.end()], etree.XMLParser(target=_Discard(), **_SAFE))
    except etree.XMLSyntaxError:
        return None
    rest = data[end.end():]
    return data.count(b"\n", 0, len(data) - len(rest.lstrip())) + 1


class _Discard:
    """A parser target that keeps nothing: the parse only checks that the document is well-formed."""

    def close(self) -> None:
        return None


#: "xmlns" or "xml:", one of which a document that declares an XML namespace or uses the ``xml:`` prefix holds.
_NAMESPACE_USE = re.compile(rb"xml(?:ns|:)")


def _may_use_namespaces(data: bytes) -> bool:
    """Whether the document may declare an XML namespace or use the ``xml:`` prefix: it holds "xmlns" or "xml:" (or
    is in UTF-16 or UTF-32). A look at the bytes, on the thread that checks them (a parser target told of each
    declaration, ``start_ns``, would make that check slower)."""
    if encoding_of(data).startswith(("utf-16", "utf-32")):
        return True
    return _NAMESPACE_USE.search(data) is not None


#: An XML declaration's encoding (after a UTF-8 byte order mark, maybe).
_DECLARED_ENCODING = re.compile(rb'(?:\xef\xbb\xbf)?<\?xml[^>]*?\sencoding\s*=\s*["\']([A-Za-z][\w.-]*)["\']', re.ASCII)
#: The first bytes that say a document is UTF-32 or UTF-16, with or without a byte order mark (XML 1.0, appendix F:
#: a byte order mark, else the bytes of "<?" or "<"); libxml2 and OpenVINO (pugixml) read all of them, and then
#: ignore the encoding the declaration names. Longest first: UTF-32LE's mark starts with UTF-16LE's.
_DETECTED_ENCODINGS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
                       (b"<\x00\x00\x00", "utf-32-le"), (b"\x00\x00\x00<", "utf-32-be"), (b"\xff\xfe", "utf-16"),
                       (b"\xfe\xff", "utf-16"), (b"<\x00", "utf-16-le"), (b"\x00<", "utf-16-be"))


def encoding_of(data: bytes) -> str:
    """The encoding libxml2 reads ``data`` in: detected from its first bytes, else declared, else UTF-8."""
    detected = next((encoding for start, encoding in _DETECTED_ENCODINGS if data.startswith(start)), None)
    if detected:
        return detected
    declared = _DECLARED_ENCODING.match(data)
    return declared.group(1).decode() if declared else "utf-8"


class _WellFormed:
    """libxml2's parse of the whole document, keeping nothing, on a thread of its own: it releases the GIL, so the
    reader scans the text meanwhile. ``error`` is set once the parse failed (the scan stops at its next element);
    ``passed`` waits for the parse and raises its error (E-READ first where the bytes are not text), whatever it is."""

    def __init__(self, data: bytes, name: str):
        self.data, self.name = data, name
        self.error: BaseException | None = None
        self.namespaces = False  # the document may use XML namespaces (``_may_use_namespaces``; known once ``passed``)
        self.trailing: int | None = None  # the line of what follows the root (``_ignored_after_root``)
        self.thread = threading.Thread(target=self.parse, name="ir_tools-well-formed", daemon=True)
        self.thread.start()

    def parse(self) -> None:
        try:
            etree.fromstring(self.data, etree.XMLParser(target=_Discard(), **_SAFE))
        except etree.XMLSyntaxError as exc:
            self.trailing = _ignored_after_root(self.data)
            if self.trailing is None:
                self.error = exc
        except BaseException as exc:  # noqa: BLE001 (raised by ``passed``, on the reading thread)
            self.error = exc
        if self.error is None:
            self.namespaces = _may_use_namespaces(self.data)
            self.data = b""  # (only a malformed document's bytes are looked at again)

    def passed(self) -> None:
        self.thread.join()
        if isinstance(self.error, etree.ParseError) and Path(self.name).suffix.lower() not in _OTHER_FORMATS:
            _refuse_undecodable(self.data, encoding_of(self.data), self.name, self.error.lineno)
        if self.error is not None:
            raise self.error


def _text(data: bytes, name: str) -> str:
    """The document's text, with line ends as XML reads them (``\\r\\n`` and ``\\r`` are ``\\n``)."""
    encoding = encoding_of(data)
    try:
        text = data.decode(encoding)
    except (LookupError, UnicodeDecodeError) as exc:
        raise ReadError(f"cannot decode the file as {encoding}: {exc}", SourceLoc(name)) from None
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _refuse_undecodable(data: bytes, encoding: str, name: str, error_line: int | None) -> None:
    """E-READ at the line of the first bytes that are not text in the document's encoding, when they are where libxml2
    stopped (by ``error_line``; lxml words it "Invalid bytes in character encoding", and without a line when it reads
    a file; a document that is not XML at all stops earlier). XML must be text: libxml2 refuses such a
    file, while OpenVINO's reader (pugixml) passes the bytes into names, which its Python API then fails to decode
    (UnicodeDecodeError, measured on 2026.4): an error, not a warning."""
    try:
        data.decode(encoding)
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode(encoding, "replace")
        line, column = before.count("\n") + 1, len(before) - before.rfind("\n")
        if error_line is None or line > error_line:
            return
        raise ReadError(f"invalid {exc.encoding.upper()} at column {column}: bytes {data[exc.start:exc.end].hex(' ')} "
                        f"({exc.reason}); XML must be text in its encoding, and OpenVINO passes such bytes into names "
                        "its Python API cannot decode", SourceLoc(name, line)) from None
    except LookupError:
        return  # an encoding Python does not know: libxml2's own words


# The fast path: the spelling OpenVINO's serializer writes, one regular expression matching a whole ``<layer>`` or
# ``<edge>`` and every value in it as written. Anything else (other attribute orders or quotes, references, comments,
# port rt_info, subgraph bodies, dims that need a diagnostic...) is parsed by lxml, a run of such elements at a time
# (``_Reader.fragment``), and read as lxml elements (``_Reader.layer``). tests/ir/test_reader_fast.py holds the two
# paths equal. Their repeats are possessive (``*+``, ``++``: see ``_fast``).
_VALUE = r'[^"<&\t\n\r]*+'  # an attribute value that reads as written: no reference, no blank XML would normalise
_ATTRS = rf'(?:\s++[A-Za-z_][\w.:-]*+="{_VALUE}")*+'
_DIMS = r"(?:\s*+<dim>[^<]*+</dim>)*+"
_ANY_PORT = rf'<port id="[0-9]{{1,18}}" precision="{_VALUE}"(?: names="{_VALUE}")?\s*+(?:/>|>{_DIMS}\s*+</port>)'


def _fast(pattern: str) -> re.Pattern:
    """A fast-path pattern, compiled. Each of its repeats is possessive: nothing it matched could be given back to
    what follows it (which never starts with what it repeats), so the engine keeps no state to backtrack into; before
    Python 3.11, which has no possessive repeats, they are plain ones, which match the same."""
    if sys.version_info < (3, 11):
        pattern = pattern.replace("*+", "*").replace("++", "+")
    return re.compile(pattern, re.ASCII)


#: Blanks, then a layer (its id, and an edge's layers, as ``as_layer_id`` keeps them; others on the lxml path).
#: Groups: 1-4 id, name, type, version, 5 other attributes, 6 empty, where the start tag ends,
#: 7 <data>'s attributes, 8 <rt_info>'s body, 9 and 10 the <port>s of <input> and <output>.
_LAYER = _fast(
    rf'\s*+<layer id="((?!0[0-9])[0-9]{{1,18}})" name="({_VALUE})" type="([^"<&\s]++)" version="({_VALUE})"'
    rf"({_ATTRS})\s*+>()\s*+"
    rf"(?:<data({_ATTRS})\s*+/>\s*+)?"
    rf"(?:<rt_info>((?:\s*+<attribute{_ATTRS}\s*+/>)*+)\s*+</rt_info>\s*+)?"
    rf"(?:<input>((?:\s*+{_ANY_PORT})*+)\s*+</input>\s*+)?"
    rf"(?:<output>((?:\s*+{_ANY_PORT})*+)\s*+</output>\s*+)?"
    r"</layer>")
#: Groups: 1-3 id, precision, names, 4 "/" if it is empty, 5 empty, where the start tag ends, 6 the <dim>s.
_PORT = _fast(rf'<port id="([0-9]{{1,18}})" precision="({_VALUE})"(?: names="({_VALUE})")?\s*+(/)?>()'
              rf"(?(4)|({_DIMS})\s*+</port>)")
#: Blanks, then an edge (of layers ``as_layer_id`` keeps as written: no leading zero, blank or sign).
_EDGE = _fast(rf'\s*+<edge from-layer="((?!0[0-9]|[\s+-]){_VALUE})" from-port="([0-9]{{1,18}})" '
              rf'to-layer="((?!0[0-9]|[\s+-]){_VALUE})" to-port="([0-9]{{1,18}})"\s*+/>')
_ATTR = _fast(rf'([A-Za-z_][\w.:-]*+)="({_VALUE})"')
_RT_ATTRIBUTE = _fast(rf"<attribute({_ATTRS})\s*+/>")
_DIM_TEXT = re.compile(r"<dim>([^<]*)</dim>")
#: A fast port's ``names`` attribute (group 1 its value): what tells apart the ports of most sides spelled alike.
_NAMES = _fast(rf' names="({_VALUE})"')
#: One tag, comment, processing instruction or CDATA section; groups: 1 "/" for an end tag, 2 the tag's name, 3 "/"
#: for an empty element. In a well-formed document text never holds a "<", so a scan from one tag to the next is exact.
_MARKUP = re.compile(r"<!--.*?-->|<\?.*?\?>|<!\[CDATA\[.*?\]\]>"
                     r"""|<(/?)([^\s/>]+)(?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*(/?)>""", re.ASCII | re.DOTALL)
#: What may stand between two elements and carries nothing the reader keeps: text, comments, processing instructions.
_BETWEEN = re.compile(r"[^<]*(?:(?:<!--.*?-->|<\?.*?\?>|<!\[CDATA\[.*?\]\]>)[^<]*)*", re.DOTALL)
_NO_ATTRS: dict[str, str] = {}  # a layer without <data> yet (replaced by a dict of its own)
_NO_IDS: frozenset[int] = frozenset()  # the port ids of a fast layer's missing <input> or <output>


#: Text fed to lxml at once when elements leave the fast path one after another: few parser calls, and lines within
#: a fragment stay far below 65535 (``source_line``).
_RUN = 1 << 18
_END_TAG_REST = re.compile(r"\s*>", re.ASCII)
_TAG_NAME_END = re.compile(r"[\s/>]", re.ASCII)
_PROBE = 16  # elements in a row off the fast path, each found exactly, before a run of them is guessed (guessed_run)


def _short(text: str) -> str:
    """A value as a message quotes it: its first 40 characters, then how long it is."""
    return text if len(text) <= 40 else f"{text[:40]}... ({len(text)} characters)"


def _element_end(text: str, start: int) -> int:
    """Where the element whose start tag is at ``start`` ends (the document is well-formed)."""
    tag = _MARKUP.match(text, start)
    if tag.group(3):  # an empty element
        return tag.end()
    name, inside = tag.group(2), tag.end()
    close = text.find(f"</{name}", inside)
    # the first end tag of its name is its own unless an element of that name (or a longer one), a comment, a processing
    # instruction or a CDATA section starts before it
    if close >= 0 and all(text.find(opening, inside, close) < 0 for opening in (f"<{name}", "<!", "<?")):
        end = _END_TAG_REST.match(text, close + 2 + len(name))
        if end is not None:
            return end.end()
    depth = 0
    for tag in _MARKUP.finditer(text, start):
        if tag.group(2) is None:  # a comment, processing instruction or CDATA section
            continue
        depth += -1 if tag.group(1) else 0 if tag.group(3) else 1
        if depth == 0:
            return tag.end()
    raise etree.ParseError("element not closed", None, 0, 0)  # (not after libxml2 found the document well-formed)


class _Reader:
    """Turns <layer> and <edge> elements into the graph; what cannot be used becomes a diagnostic.

    Built for large files: the text is scanned from element to element, and the common spellings of layers,
    ports and edges are read by regular expressions (the fast path above) into plain tuples: an edge until it is
    connected, ports as PortFields, dims as a tuple of ints shared by every port that spells them alike.
    """

    def __init__(self, xml_path: Path, bin_path: str | Path | None, check: _WellFormed):
        self.xml_path = xml_path
        self.check = check  # the document's well-formedness, found meanwhile: the scan stops once it failed
        self.bin_path = Path(bin_path) if bin_path else xml_path.with_suffix(".bin")
        self.file = str(xml_path)
        self.graph: Graph | None = None
        self.diagnostics: list[Diagnostic] = []
        # (from_layer, from_port, to_layer, to_port, line), or why an <edge> is unusable: connected once
        # every layer exists
        self.edges: list[tuple | Diagnostic] = []
        self.plain_dims: dict[tuple[str, ...], tuple[int, ...]] = {}  # <dim> texts -> dims, when all valid
        self.dim_runs: dict[str, tuple[int, ...]] = {}  # the <dim>s of a fast port as written -> dims (all valid)
        # the ports of a fast <input>/<output> as written, names="..." values taken out -> port_template's
        self.port_runs: dict[str, tuple[tuple, frozenset[int] | None]] = {}
        self.data_runs: dict[str, dict[str, str]] = {}  # the attributes of a fast <data> as written -> their dict
        self.rt_runs: dict[str, tuple[RtNode, ...]] = {}  # the body of a fast <rt_info> as written -> its nodes
        # (("id", id), ("precision", precision), <dim> texts) of a plain port -> its (id, precision, dims) fields (see
        # ports): the first two as el.items() gives them
        self.known_ports: dict[tuple[tuple[str, str], tuple[str, str], tuple[str, ...]],
                               tuple[int, str, tuple[int, ...]]] = {}
        self.shared: dict = {}  # verbatim trees read so far (see _rt_tree)
        self.text = ""
        self.at, self.line = 0, 1  # a position in the text and its line (see line_at)
        self.base = 0  # added to the lines of the fragment being read (see fragment)
        self.context = ("", "")  # the start and end tags around a fragment: the root's, and its section's
        self.parser = _parser()

    def line_at(self, pos: int) -> int:
        """The line of ``pos`` in the text (counted from the last position asked for: the reader moves forward)."""
        at = self.at
        if pos >= at:
            self.line += self.text.count("\n", at, pos)
        else:
            self.line -= self.text.count("\n", pos, at)
        self.at = pos
        return self.line

    def line_of(self, el: etree._Element) -> int:
        """The line in the file of an element of the fragment being read."""
        return source_line(el) + self.base

    def fragment(self, start: int, end: int, whole: bool = False) -> list[etree._Element] | None:
        """The elements at ``text[start:end]`` (and any comments between them), parsed by lxml inside the start tags of
        their root and section (which may declare namespaces); their lines are made the file's by ``line_of``.
        ``whole``: None if the text closes its section and opens another (then it was not a run of elements)."""
        opening, closing = self.context
        self.base = self.line_at(start) - 1 - opening.count("\n")
        wrapper = etree.fromstring(opening + self.text[start:end] + closing, self.parser)
        if closing.count("</") == 1:  # inside the root
            return wrapper[:]
        return wrapper[0][:] if not whole or len(wrapper) == 1 else None  # inside its section

    def read(self, text: str) -> Graph:
        """Scan the text: the root, then its children, layers and edges wherever they are in it."""
        self.text = text
        start = _BETWEEN.match(text).end()
        tag = _MARKUP.match(text, start)
        name, empty = tag.group(2), tag.group(3)
        self.context = (tag.group(0), "" if empty else f"</{name}>")
        root = etree.fromstring(tag.group(0) + self.context[1], self.parser)
        self.start(root, self.line_at(tag.end()))
        pos = tag.end()
        # the first <meta_data> and <quantization_parameters> (and the base of their lines), until an <rt_info> is met
        # (then OpenVINO ignores them: None)
        legacy: dict[str, tuple[etree._Element, int]] | None = {}
        while not empty:
            if self.check.error is not None:
                raise self.check.error  # (``read_ir`` waits for the check and reports its error, once)
            pos = _BETWEEN.match(text, pos).end()
            tag = _MARKUP.match(text, pos)
            if tag.group(1):  # the root's end tag
                break
            if tag.group(2) in ("layers", "edges") and not tag.group(3):
                pos = self.section(tag)
            else:
                end = _element_end(text, pos)
                if tag.group(2) == "rt_info":
                    self.graph.rt_info = _rt_tree(self.fragment(pos, end)[0], self.shared)
                    legacy = None
                elif legacy is not None and tag.group(2) in _LEGACY_META and tag.group(2) not in legacy:
                    legacy[tag.group(2)] = (self.fragment(pos, end)[0], self.base)
                pos = end
        if legacy:
            self.graph.rt_info = self.legacy_rt_info(legacy)
        self.connect_all()
        self.graph.load_diagnostics = self.diagnostics
        self.text = ""
        return self.graph

    def legacy_rt_info(self, legacy: dict[str, tuple[etree._Element, int]]) -> tuple[RtNode, ...]:
        """The model's rt_info OpenVINO reads from the legacy sections of a file without ``<rt_info>``, as its
        serializer writes it back (``read_legacy_meta_data``, ``serialize_rt_info``): Model Optimizer's ``<meta_data>``,
        its ``<cli_parameters>`` copied as ``<conversion_parameters>`` and each other child's ``value`` as an entry of
        its tag; POT's ``<quantization_parameters>`` as ``<optimization>`` (present, maybe empty, once either section
        is); entries in key order. A child of ``<meta_data>`` without ``value`` is E-IR (OpenVINO refuses the file:
        "Unsupported legacy argument")."""
        entries: dict[str, RtNode] = {}
        meta, base = legacy.get("meta_data", (None, 0))
        for child in () if meta is None else meta.iterchildren(tag=etree.Element):
            tag = child.tag.translate(_NAMES_BACK)
            if tag == "cli_parameters":
                entries["conversion_parameters"] = RtNode("conversion_parameters", tuple(child.items()),
                                                          _rt_tree(child), (child.text or "").strip() or None)
            elif child.get("value") is not None:
                entries[tag] = _rt_entry(tag, child.get("value"))
            else:
                self.problem("E-IR", f"<meta_data> holds <{tag}> without a value: OpenVINO refuses the file "
                             f"('Unsupported legacy argument: {tag}')", source_line(child) + base)
        quantization = legacy.get("quantization_parameters")
        entries["optimization"] = _rt_entry("optimization", {} if quantization is None else _pot_map(quantization[0]))
        return tuple(entries[key] for key in sorted(entries))

    def section(self, opening: re.Match) -> int:
        """Read the ``<layer>`` (``<edge>``) children of a top-level ``<layers>`` (``<edges>``), others ignored; returns
        where the section ends."""
        text = self.text
        layers = opening.group(2) == "layers"
        fast, take_fast, take = (_LAYER, self.fast_layer, self.layer) if layers else (_EDGE, self.fast_edge, self.edge)
        child = "layer" if layers else "edge"
        root_opening, root_closing = self.context
        self.context = (root_opening + opening.group(0), f"</{opening.group(2)}>{root_closing}")
        pos = opening.end()
        if not layers:  # (fast_edge inlined)
            edges, count, at, line = self.edges, text.count, self.at, self.line
            while (found := _EDGE.match(text, pos)) is not None:
                pos = found.end()
                line += count("\n", at, pos)
                at = pos
                from_layer, from_port, to_layer, to_port = found.groups()
                edges.append((from_layer, int(from_port), to_layer, int(to_port), line))
            self.at, self.line = at, line
        check = self.check
        while True:
            if check.error is not None:  # a malformed document: its scan may go anywhere, libxml2 says what is wrong
                raise check.error  # (``read_ir`` waits for the check and reports its error, once)
            found = fast.match(text, pos)
            if found is None or not take_fast(found):  # not blanks and a fast element: skip to the next element
                pos = _BETWEEN.match(text, pos).end()
                if text.startswith("</", pos):
                    self.context = (root_opening, root_closing)
                    return _MARKUP.match(text, pos).end()
                found = fast.match(text, pos)
                if found is None or not take_fast(found):  # lxml reads it, and the elements after it up to a fast one
                    start = pos
                    for _ in range(_PROBE):
                        end = _element_end(text, pos)
                        pos = _BETWEEN.match(text, end).end()
                        if text.startswith("</", pos) or pos - start > _RUN or fast.match(text, pos) is not None:
                            elements = self.fragment(start, end)
                            break
                    else:  # none of the last _PROBE was fast: most likely the next ones are not either
                        elements, pos = self.guessed_run(start, pos, child)
                    for el in elements:
                        if el.tag == child:
                            take(el)
                    continue
            pos = found.end()

    def guessed_run(self, start: int, pos: int, child: str) -> tuple[list[etree._Element], int]:
        """The elements of a section from ``start`` (to ``pos`` known to be whole) up to the last ``<child`` start tag
        within ``_RUN``, and where they end. Such a cut is found in C and parsed without checking it; a cut inside a
        comment, a nested element or past the section leaves the fragment malformed or outside its section (then the
        elements are found one by one)."""
        text = self.text
        cut = text.rfind(f"<{child}", pos + 1, start + _RUN)
        while cut > pos and not _TAG_NAME_END.match(text, cut + 1 + len(child)):
            cut = text.rfind(f"<{child}", pos + 1, cut)
        if cut > pos:
            try:
                elements = self.fragment(start, cut, whole=True)
            except etree.XMLSyntaxError:
                pass
            else:
                if elements is not None:
                    return elements, cut
        end = _element_end(text, pos)
        return self.fragment(start, end), _BETWEEN.match(text, end).end()

    def fast_layer(self, found: re.Match) -> bool:
        """Read a layer the fast pattern matched; False, keeping nothing, if its dims need ``port``'s checks."""
        layer_id, name, op_type, version, more, _, data, rt_info, inputs, outputs = found.groups()
        tag_end = found.end(6)
        line = self.line_at(tag_end)
        ins = outs = ()
        in_ids = out_ids = _NO_IDS
        if inputs is not None:
            side = self.fast_ports(inputs, line + self.text.count("\n", tag_end, found.start(9)))
            if side is None:
                return False
            ins, in_ids = side
        if outputs is not None:
            side = self.fast_ports(outputs, line + self.text.count("\n", tag_end, found.start(10)))
            if side is None:
                return False
            outs, out_ids = side
        layer = Layer.from_records(layer_id, name, sys.intern(op_type), version and sys.intern(version),
                                   {} if data is None else self.fast_attrs(data), ins, outs,
                                   () if rt_info is None else self.fast_rt_info(rt_info),
                                   dict(_ATTR.findall(more)) if more else None, (), self.file, line)
        self.add(layer, int(layer_id), in_ids is None or out_ids is None or not in_ids.isdisjoint(out_ids))
        return True

    def fast_ports(self, ports: str, line: int) -> tuple[PortFields, frozenset[int] | None] | None:
        """The ports of a fast ``<input>`` or ``<output>`` (``ports``, starting on ``line``) and their ids (None if two
        share one); None if their dims are not all plain (see ``new_dims``). Sides spelled alike but for the values of
        their ports' names share one template, the names filled in."""
        key, names = ports, ()
        if 'names="' in ports:
            parts = _NAMES.split(ports)
            key, names = ' names=""'.join(parts[::2]), parts[1::2]
        found = self.port_runs.get(key)
        if found is None:
            found = self.port_template(key)
            if found is None:
                return None
            self.port_runs[key] = found
        template, ids = found
        if len(template) == 1:  # (most sides)
            head, named, offset = template[0]
            return head + (names[0] if named else None, None, (), line + offset), ids
        fields: list = []
        names = iter(names)
        for head, named, offset in template:
            fields += head
            fields += (next(names) if named else None, None, (), line + offset)
        return tuple(fields), ids

    def port_template(self, ports: str) -> tuple[tuple, frozenset[int] | None] | None:
        """The fast ports ``ports``, each as its ``(id, precision, dims)``, whether it has names and the line breaks
        before it, then their ids (None if two share one); None if their dims are not all plain."""
        template: list = []
        listed: list[int] = []  # (their ids)
        runs = self.dim_runs
        for port in _PORT.finditer(ports):
            port_id, precision, names, _, _, run = port.groups()
            dims = runs.get(run) if run else ()  # (run None: an empty <port/>; "": no <dim>)
            if dims is None:
                texts = _DIM_TEXT.findall(run)
                if not all(map(_PLAIN_DIM.fullmatch, texts)):
                    return None
                dims = runs[run] = tuple(map(int, texts))
            listed.append(pid := int(port_id))
            template.append(((pid, sys.intern(precision), dims), names is not None,
                             ports.count("\n", 0, port.end(5))))
        ids = frozenset(listed)
        return tuple(template), ids if len(ids) == len(listed) else None

    def fast_attrs(self, data: str) -> dict[str, str]:
        """The attributes of a fast ``<data>``, a dict of the layer's own, parsed once per spelling (the first layer
        takes the parsed dict, later ones a copy: nothing changes a layer's attrs while the file is read)."""
        attrs = self.data_runs.get(data)
        if attrs is None:
            attrs = self.data_runs[data] = dict(_ATTR.findall(data))
            return attrs
        return attrs.copy()

    def fast_rt_info(self, body: str) -> tuple[RtNode, ...]:
        """A layer's ``<rt_info>`` of ``<attribute .../>`` elements, as ``_rt_tree`` reads it (shared alike)."""
        nodes = self.rt_runs.get(body)
        if nodes is None:
            nodes = tuple(_shared(("attribute", tuple(_ATTR.findall(attrs)), (), None), self.shared)
                          for attrs in _RT_ATTRIBUTE.findall(body))
            nodes = self.rt_runs[body] = self.shared.setdefault(nodes, nodes)
        return nodes

    def fast_edge(self, found: re.Match) -> bool:
        from_layer, from_port, to_layer, to_port = found.groups()
        self.edges.append((from_layer, int(from_port), to_layer, int(to_port), self.line_at(found.end())))
        return True

    def start(self, root: etree._Element, line: int) -> None:
        """Make the graph from the ``<net>`` root (a copy of its start tag), or raise."""
        version = _net_version(root, self.file, line)
        graph = self.graph = Graph(root.get("name", "model"), version)
        graph.net_extra = {k: v for k, v in root.attrib.items() if k not in ("name", "version")}
        graph.source = self.xml_path
        graph.line = line
        graph.weights = Weights(self.bin_path)

    def problem(self, code: str, message: str, line: int | None, layer: Layer | None = None) -> None:
        loc = SourceLoc(self.file, line, layer.id, layer.name, layer.kind) if layer else SourceLoc(self.file, line)
        self.diagnostics.append(Diagnostic("error", code, message, loc))

    def edge(self, el: etree._Element) -> None:
        self.edges.append(self.link(el))

    def layer(self, el: etree._Element) -> None:
        line = self.line_of(el)
        items = el.items()
        if (len(items) == 4 and items[0][0] == "id" and items[1][0] == "name" and items[2][0] == "type"
                and items[3][0] == "version"):  # as OpenVINO writes them
            layer_id, name, op_type, version = as_layer_id(items[0][1]), items[1][1], items[2][1], items[3][1]
            extra = None
        else:
            extra = dict(items)
            layer_id, name = as_layer_id(extra.pop("id", "")), extra.pop("name", "")
            op_type, version = extra.pop("type", ""), extra.pop("version", None)
            extra = extra or None  # (a dict emptied by pop() keeps its size)
        if not layer_id or not op_type:
            loc = SourceLoc(self.file, line, layer_id or None, name)
            message = (f"<layer> needs a '{'type' if layer_id else 'id'}' attribute, found none; "
                       "the layer and its edges are ignored")
            self.diagnostics.append(Diagnostic("error", "E-LAYER", message, loc))
            return
        if "name" not in el.attrib:  # OpenVINO: "node <layer> is missing mandatory attribute: name"
            loc = SourceLoc(self.file, line, layer_id, None, op_type)
            message = "<layer> needs a 'name' attribute (OpenVINO refuses a layer without one), found none"
            self.diagnostics.append(Diagnostic("error", "E-LAYER", message, loc))
        # Interned: a model has few types and opsets.
        layer = Layer.from_records(layer_id, name, sys.intern(op_type), version and sys.intern(version), _NO_ATTRS,
                                   (), (), (), extra, (), self.file, line)
        number = self.layer_number(layer_id, line, layer)
        for child in el[:]:  # (a slice makes the children's proxies faster than iterating does)
            tag = child.tag
            if tag == "data":
                layer.attrs = dict(child.items())
            elif tag == "input":
                layer.set_port_records(inputs=self.ports(child, layer))
            elif tag == "output":
                layer.set_port_records(outputs=self.ports(child, layer))
            elif tag == "rt_info":
                layer.rt_info = _rt_tree(child, self.shared)
            elif isinstance(tag, str):  # <body>, <port_map>, <then_body>...: kept verbatim
                layer.children += (RtNode(tag, tuple(child.items()), _rt_tree(child, None, self.line_of),
                                          line=self.line_of(child)),)
        if layer.attrs is _NO_ATTRS:
            layer.attrs = {}
        self.add(layer, number, layer.repeats_a_port_id())

    def layer_number(self, layer_id: str, line: int, layer: Layer) -> int:
        """The layer id as a number, -1 (and E-LAYER) if it is not a non-negative int64 (OpenVINO reads it with
        ``std::stoll``)."""
        number = parse_int(layer_id) if layer_id.isdigit() and layer_id.isascii() else -1
        if not 0 <= number <= INT64_MAX:
            self.problem("E-LAYER", f"layer id must be a non-negative integer of at most {INT64_MAX} (OpenVINO "
                         f"refuses others), got '{_short(layer_id)}'", line, layer)
            return -1
        return number

    def add(self, layer: Layer, number: int, repeats: bool) -> None:
        """Add a read layer to the graph (E-PORT for each repeated port id if ``repeats``, E-DUP-ID for a repeated
        layer id)."""
        if repeats:
            self.repeated_ports(layer)
        first = self.graph.add_read_layer(layer, number)
        if first is not layer:
            layer_id, line = layer.id, layer.line
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
                    fields += (items[2][1] if n == 3 else None, None, (), self.line_of(el))
                    continue
            fields += self.port(el, layer, items, children, texts)
        return tuple(fields)

    def port(self, el: etree._Element, layer: Layer, items: list[tuple[str, str]], children: list[etree._Element],
             texts: tuple[str | None, ...]) -> PortRecord:
        """A port not seen before (or not plain): parsed and checked; a plain one is remembered for ``ports``."""
        line = self.line_of(el)
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
        port_id = parse_uint64_attr(id_text)
        if port_id is None:
            plain = False
            self.problem("E-PORT", f"port id must be a non-negative integer of at most {INT64_MAX} (OpenVINO "
                         f"refuses others), got '{_short(id_text or '')}'", line, layer)
            port_id = -1
        elif not (id_text.isdigit() and id_text.isascii()):
            plain = False
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
        value = parse_port_dim(text)
        if value is None:
            self.problem("E-DIM", f"<dim> must be an integer (-1 for dynamic) or an interval such as 1..4, got "
                         f"'{_short(text)}'", self.line_of(el), layer)
        elif value < -1:
            self.problem("E-DIM", f"<dim> must be -1 (dynamic) or at least 0, got {_short(text)}", self.line_of(el),
                         layer)
        elif value > MAX_DIM:
            self.problem("E-DIM", f"<dim> must fit in int64 (at most {MAX_DIM}), got {_short(text)}", self.line_of(el),
                         layer)
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
                return (as_layer_id(from_layer), parse_int(from_port), as_layer_id(to_layer), parse_int(to_port),
                        self.line_of(el))
        attrib = dict(items)
        try:
            from_port, to_port = parse_uint64_attr(attrib["from-port"]), parse_uint64_attr(attrib["to-port"])
            if from_port is not None and to_port is not None:
                return (as_layer_id(attrib["from-layer"]), from_port, as_layer_id(attrib["to-layer"]), to_port,
                        self.line_of(el))
        except KeyError:
            pass
        wrong = [f"{key} is missing" for key in _EDGE_KEYS if key not in attrib]
        wrong += [f"{key}='{attrib[key]}' is not a non-negative integer" for key in ("from-port", "to-port")
                  if key in attrib and parse_uint64_attr(attrib[key]) is None]
        message = ("<edge> needs from-layer, from-port, to-layer and to-port (ports as non-negative integers), "
                   f"but {', '.join(wrong)}; the edge is ignored")
        return Diagnostic("error", "E-EDGE", message, SourceLoc(self.file, self.line_of(el)))

    def connect_all(self) -> None:
        """Connect the edges read, in file order (they may precede the layers in the file)."""
        links = []
        for item in self.edges:
            if type(item) is tuple:
                links.append(item)
            else:
                self.diagnostics.append(item)
        for item, why in self.graph.link_read(links):
            if type(why) is str:
                self.problem("E-EDGE-LAYER", f"edge {_edge_text(item)} refers to layer {why}, which does not exist",
                             item[4])
            else:
                self.problem("E-EDGE", f"edge {_edge_text(item)} is declared twice (first at line {why[4]}): "
                             "OpenVINO refuses the file ('has incorrect input'); ir_tools reads the first", item[4])
        self.edges = []


def _edge_text(e: tuple) -> str:
    return f"{e[0]}:{e[1]} -> {e[2]}:{e[3]}"
