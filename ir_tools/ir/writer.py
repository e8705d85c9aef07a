"""Graph -> IR v11 (or v10) ``.xml`` + ``.bin``: deterministic bytes, atomic replacement.

The same graph always gives the same files: layers and edges in graph order, attributes in
their stored order, Const payloads laid out in layer order with identical payloads shared.
Both files are written to temporaries beside the target and renamed into place, so a failure
leaves nothing half-written (atomic as ``base/files.write_atomically`` is: the rename, not an fsync, which
would cost more than OpenVINO's whole ``save_model`` of a small model); a graph's own source files are never
replaced unless asked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable
from html import escape
from pathlib import Path
from typing import TypeVar

from ..base.dims import parse_int
from ..base.errors import IrToolsError, ReadError
from ..base.files import Chunks, same_file, write_together
from .bodies import PORT_MAPS
from .model import Graph, Layer, PortRecord, RtNode
from .reader import HEADER_BYTES


def write_ir(
    graph: Graph,
    xml_path: str | Path,
    ir_version: int | None = None,
    bin_path: str | Path | None = None,
    overwrite_input: bool = False,
) -> tuple[Path, Path]:
    """Write ``graph`` as IR (``ir_files``, both files or neither); returns the (xml, bin) paths written."""
    (bin_path, _), (xml_path, _) = files = ir_files(graph, xml_path, ir_version, bin_path, overwrite_input)
    write_together(files)
    return xml_path, bin_path


def ir_files(
    graph: Graph,
    xml_path: str | Path,
    ir_version: int | None = None,
    bin_path: str | Path | None = None,
    overwrite_input: bool = False,
) -> list[tuple[Path, Chunks]]:
    """The (.bin, .xml) paths and contents writing ``graph`` as IR at its own IR version, for
    ``base.files.write_together`` (a command writing more files beside them writes all together). ``ir_version``, if
    given, must be it: another is made by ``passes.interface_names.set_ir_version``, which keeps the names OpenVINO
    reports, as the public ``write_ir`` and ``--ir-version`` do (written as is, a v11 graph's names change in v10, or
    collide). IrToolsError (E-OVERWRITE) where either is the input's file (unless ``overwrite_input``) or both are one
    file."""
    if ir_version not in (None, graph.ir_version):
        raise IrToolsError(f"the graph is IR v{graph.ir_version}, not v{ir_version}: ir_tools.write_ir(graph, path, "
                           f"ir_version={ir_version}) makes it v{ir_version} first", code="E-USAGE")
    ir_version = graph.ir_version
    if ir_version not in (10, 11):
        raise IrToolsError(f"can write IR v10 or v11, not v{ir_version}", code="E-USAGE")
    xml_path = Path(xml_path)
    bin_path = Path(bin_path) if bin_path else xml_path.with_suffix(".bin")
    if same_file(xml_path, bin_path):  # (the .xml, written second, would replace the weights)
        raise IrToolsError(f"the weights file {bin_path} is the .xml file: give another bin_path", code="E-OVERWRITE")
    if not overwrite_input:
        sources = [p for p in (graph.source, graph.weights.path if graph.weights else None) if p]
        for target in (xml_path, bin_path):
            if any(same_file(target, s) for s in sources):
                raise IrToolsError(f"refusing to overwrite the input file {target}", code="E-OVERWRITE")
    packer = _Packer()
    try:
        xml_bytes = _encoded(_render(graph, ir_version, packer))
    except Exception:  # (a caller's value of another type fails the rendering: said where, if so)
        refuse_misfits(graph)
        raise
    return [(bin_path, packer.chunks), (xml_path, [xml_bytes])]


def refuse_misfits(graph: Graph) -> None:
    """IrToolsError (E-USAGE) at the first layer whose fields a caller set to what the IR cannot hold
    (``Graph.misfits``: an attribute ``auto_broadcast=1``, which no string spells as OpenVINO reads it); nothing is
    written. Asked where the rendering fails (every value written is a string: ``_attrs``), so it costs nothing
    otherwise."""
    misfits = graph.misfits()
    if misfits:
        layer, found = misfits[0]
        more = f" (and {len(misfits) - 1} more layer(s))" if len(misfits) > 1 else ""
        raise IrToolsError(f"the layer cannot be written as IR: {found}{more}", layer.loc, code="E-USAGE")


def to_bytes(graph: Graph, ir_version: int = 11) -> tuple[bytes, bytes]:
    """The (xml, bin) contents ``write_ir`` would write; lets a runtime load a graph without files."""
    packer = _Packer()
    return _encoded(_render(graph, ir_version, packer)), b"".join(packer.chunks)


def _encoded(text: str) -> bytes:
    """The written document: ``text`` in UTF-8, with blanks before ``</net>`` where it would end within
    ``HEADER_BYTES`` bytes (a model of a layer or two), so that every release reads it."""
    data = text.encode("utf-8")
    at = data.rindex(b"</net>")
    short = HEADER_BYTES + 1 - (at + len(b"</net>"))
    return data if short <= 0 else data[:at] + b" " * short + data[at:]


class _Packer:
    """Lays Const payloads out in the new ``.bin`` in the order asked, sharing identical ones. Payloads stay views
    of the input ``.bin`` (read-only memoryviews hash and compare by content) until they are written; a payload is
    hashed only once another of its size and its sampled bytes (``_sample``) is met (only those can be equal), so
    most weights are read once, to be written."""

    def __init__(self) -> None:
        self.chunks: list[memoryview] = []
        self._seen: dict[memoryview, int] = {}  # payload -> its offset, for the (size, sample)s met more than once
        # (size, sample) -> its one payload and offset; None: more than one
        self._lone: dict[tuple[int, bytes], tuple[memoryview, int] | None] = {}
        self._end = 0

    def add(self, data: memoryview) -> tuple[int, int]:
        data = data.cast("B") if data.format != "B" else data
        size = len(data)
        kind = (size, _sample(data))
        if kind not in self._lone:
            self._lone[kind] = (data, self._end)
            return self._append(data), size
        lone = self._lone[kind]
        if lone is not None:
            self._seen[lone[0]] = lone[1]
            self._lone[kind] = None
        offset = self._seen.get(data)
        if offset is None:
            offset = self._seen[data] = self._append(data)
        return offset, size

    def _append(self, data: memoryview) -> int:
        """Lay ``data`` out at the end; returns its offset."""
        offset = self._end
        self.chunks.append(data)
        self._end += len(data)
        return offset


def _sample(data: memoryview) -> bytes:
    """A few bytes from the start, the middle and the end of a payload: two payloads of one size that differ there
    differ, and are not hashed (weights of one shape repeat in a network, and hashing reads every byte)."""
    size = len(data)
    if size <= 48:
        return bytes(data)
    middle = size // 2
    return bytes(data[:16]) + bytes(data[middle:middle + 16]) + bytes(data[-16:])


def _relocate(node: RtNode, owner: Layer, graph: Graph, packer: _Packer) -> RtNode:
    """A verbatim subtree (e.g. a Loop body) with its Const layers' offsets moved to the new ``.bin``."""
    children = tuple(_relocate(child, owner, graph, packer) for child in node.children)
    if node.tag == "layer" and dict(node.attrs).get("type") == "Const":
        children = tuple(_relocated_data(c, owner, graph, packer) if c.tag == "data" else c for c in children)
    return RtNode(node.tag, node.attrs, children, node.text, node.payload)


def _relocated_data(data: RtNode, owner: Layer, graph: Graph, packer: _Packer) -> RtNode:
    """A body Const's <data> with its payload moved (one a rewrite made, from memory); errors name the layer that
    owns the body."""
    attrs = dict(data.attrs)
    if data.payload is not None:
        new_offset, new_size = packer.add(memoryview(data.payload))
        attrs.update(offset=str(new_offset), size=str(new_size))
        return RtNode(data.tag, tuple(attrs.items()), data.children, data.text)
    offset, size = parse_int(attrs.get("offset")), parse_int(attrs.get("size"))
    if offset is None or size is None:
        raise ReadError("a Const inside its body needs integer 'offset' and 'size' attributes", owner.loc,
                        code="E-ATTR")
    if graph.weights is None or not graph.weights.exists:
        raise ReadError("a Const inside its body needs the weights file, which is missing", owner.loc,
                        code="E-BIN-MISSING")
    try:
        payload = graph.weights.read(offset, size)
    except ReadError as exc:
        raise ReadError(f"a Const inside its body: {exc.message}", owner.loc, code="E-CONST-BOUNDS") from None
    new_offset, new_size = packer.add(payload)
    attrs.update(offset=str(new_offset), size=str(new_size))
    return RtNode(data.tag, tuple(attrs.items()), data.children, data.text)


#: A Const's ``<data>`` attributes as OpenVINO writes them.
_CONST_KEYS = ("element_type", "shape", "offset", "size")
#: Attribute escaping as OpenVINO's serializer (pugixml) does it, so our bytes match its bytes.
_ATTR_ESCAPES = {ord("&"): "&amp;", ord("<"): "&lt;", ord('"'): "&quot;",
                 **{c: f"&#{c:02d};" for c in range(32)}}
#: Whether a value holds a character ``_ATTR_ESCAPES`` replaces (a search costs a third of a translate).
_NEEDS_ESCAPE = re.compile('[&<"\x00-\x1f]').search


def _escaped(value: str) -> str:
    """An attribute value as pugixml writes it between double quotes."""
    return value.translate(_ATTR_ESCAPES) if _NEEDS_ESCAPE(value) else value


def _attrs(items: Iterable[tuple[str, str]]) -> str:
    """Attributes as written (each value a string: another, a caller's, fails here, for ``refuse_misfits`` to say)."""
    return "".join([f' {k}="{_escaped(v)}"' for k, v in items])


def _rt(nodes: tuple[RtNode, ...], indent: str, out: list[str]) -> None:
    for node in nodes:
        if node.children:
            out.append(f"{indent}<{node.tag}{_attrs(node.attrs)}>")
            _rt(node.children, indent + "\t", out)
            out.append(f"{indent}</{node.tag}>")
        elif node.text is not None:
            out.append(f"{indent}<{node.tag}{_attrs(node.attrs)}>{escape(node.text, quote=False)}</{node.tag}>")
        else:
            out.append(f"{indent}<{node.tag}{_attrs(node.attrs)} />")


_Key = TypeVar("_Key", bound=Hashable)


class _Rendered(dict[_Key, str]):
    """Texts by key, each rendered by ``render`` when first asked for: what a file repeats is rendered once."""

    def __init__(self, render: Callable[[_Key], str]) -> None:
        super().__init__()
        self.render = render

    def __missing__(self, key: _Key) -> str:
        text = self[key] = self.render(key)
        return text


class _Texts:
    """The parts of a file that many layers or ports share, each rendered once. Keys are plain strings, ints, and
    tuples of them or of RtNodes; the texts are what ``_attrs`` and ``_rt`` give."""

    def __init__(self) -> None:
        self.kinds = _Rendered(_kind)  # a layer's (type, version) -> those attributes
        self.data = _Rendered(_data)  # a layer's <data> attributes as items -> its <data> line
        self.const_heads = _Rendered(_const_head)  # a Const's (element_type, shape) -> its <data> line up to offset
        self.rt_infos = _Rendered(_rt_info)  # a layer's rt_info -> its <rt_info> element
        self.precisions = _Rendered(_precision)  # a port's precision -> that attribute
        self.port_ends = _Rendered(_port_end)  # a port's dims -> the end of its element: <dim>s, closing tag


def _kind(kind: tuple[str, str | None]) -> str:
    op_type, version = kind
    return _attrs([("type", op_type)] if version is None else [("type", op_type), ("version", version)])


def _data(items: tuple[tuple[str, str], ...]) -> str:
    return f"\t\t\t<data{_attrs(items)} />"


def _const_head(kind: tuple[str, str]) -> str:
    return f"\t\t\t<data{_attrs(zip(_CONST_KEYS[:2], kind, strict=True))}"


def _rt_info(nodes: tuple[RtNode, ...]) -> str:
    lines = ["\t\t\t<rt_info>"]
    _rt(nodes, "\t\t\t\t", lines)
    lines.append("\t\t\t</rt_info>")
    return "\n".join(lines)


def _precision(precision: str | None) -> str:
    return "" if precision is None else f' precision="{_escaped(precision)}"'


def _port_end(dims: tuple[int, ...] | None) -> str:
    """What follows the attributes of a port without rt_info: its ``<dim>`` lines and closing tag, if it has dims."""
    if not dims:
        return " />"
    return ">\n" + "\n".join(f"\t\t\t\t\t<dim>{d}</dim>" for d in dims) + "\n\t\t\t\t</port>"


def _port(record: PortRecord, texts: _Texts) -> str:
    """One port, from its record (``Layer.input_records``: no Port object is made for a layer read and not changed)."""
    pid, precision, dims, names, extra, rt_info, _ = record
    attrs = texts.precisions[precision]  # (what ``_attrs`` gives, written out: most ports have no more than these)
    if names is not None:
        attrs += f' names="{_escaped(names)}"'
    if extra:
        attrs += _attrs(extra.items())
    if not rt_info:
        return f'\t\t\t\t<port id="{pid}"{attrs}{texts.port_ends[dims]}'
    lines = [f'\t\t\t\t<port id="{pid}"{attrs}>', *(f"\t\t\t\t\t<dim>{d}</dim>" for d in dims or ()),
             "\t\t\t\t\t<rt_info>"]
    _rt(rt_info, "\t\t\t\t\t\t", lines)
    lines += ["\t\t\t\t\t</rt_info>", "\t\t\t\t</port>"]
    return "\n".join(lines)


def _side(opening: str, records: list[PortRecord], closing: str, out: list[str], texts: _Texts) -> None:
    """A layer's ``<input>`` or ``<output>`` (``opening``, ``closing``: its tags, indented), unless it has no port."""
    if records:
        out.append(opening)
        for record in records:
            out.append(_port(record, texts))
        out.append(closing)


def _layer(layer: Layer, lid: str, data: str | None, children: tuple[RtNode, ...], out: list[str],
           texts: _Texts) -> None:
    """One layer (``lid``: its id escaped; ``data``: its ``<data>`` line)."""
    extra = _attrs(layer.extra.items()) if layer.extra else ""
    out.append(f'\t\t<layer id="{lid}" name="{_escaped(layer.name)}"{texts.kinds[layer.type, layer.version]}{extra}>')
    if data is not None:
        out.append(data)
    if layer.rt_info:
        out.append(texts.rt_infos[layer.rt_info])
    if children:
        _rt(tuple(c for c in children if c.tag in PORT_MAPS), "\t\t\t", out)
    _side("\t\t\t<input>", layer.input_records(), "\t\t\t</input>", out, texts)
    _side("\t\t\t<output>", layer.output_records(), "\t\t\t</output>", out, texts)
    if children:
        _rt(tuple(c for c in children if c.tag not in PORT_MAPS), "\t\t\t", out)
    out.append("\t\t</layer>")


def _render(graph: Graph, ir_version: int, packer: _Packer) -> str:
    """The XML text; Const payloads are handed to ``packer`` in layer order as they are met."""
    out = ['<?xml version="1.0"?>', f"<net{_attrs([('name', graph.name), ('version', str(ir_version))])}"
           f"{_attrs(graph.net_extra.items())}>", "\t<layers>"]
    texts = _Texts()
    ids: dict[str, str] = {}  # layer id -> escaped, for the edges
    for layer in graph.layers():
        attrs = layer.attrs
        if layer.is_a("Const"):
            offset, size = packer.add(graph.const_bytes(layer))
            if tuple(attrs) == _CONST_KEYS:  # as OpenVINO writes them: element type and shape's text, then the numbers
                data = f'{texts.const_heads[attrs["element_type"], attrs["shape"]]} offset="{offset}" size="{size}" />'
            else:
                data = _data(tuple({**attrs, "offset": str(offset), "size": str(size)}.items()))
        else:
            data = texts.data[tuple(attrs.items())] if attrs else None
        children = layer.children
        if children:
            children = tuple(_relocate(child, layer, graph, packer) for child in children)
        lid = ids[layer.id] = _escaped(layer.id)
        _layer(layer, lid, data, children, out, texts)
    out.append("\t</layers>")
    out.append("\t<edges>")
    for from_layer, from_port, to_layer, to_port, _ in graph.links():  # (``edges()`` order, no Edge objects)
        out.append(f'\t\t<edge from-layer="{ids[from_layer]}" from-port="{from_port}" to-layer="{ids[to_layer]}" '
                   f'to-port="{to_port}" />')  # (port ids are ints: nothing to escape)
    out.append("\t</edges>")
    if graph.rt_info:
        out.append("\t<rt_info>")
        _rt(graph.rt_info, "\t\t", out)
        out.append("\t</rt_info>")
    out.append("</net>")
    return "\n".join(out) + "\n"
