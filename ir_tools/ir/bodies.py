"""The bodies of TensorIterator, Loop and If as graphs: the one place a layer's ``<body>`` (``<then_body>``,
``<else_body>``) and ``<port_map>`` (``<back_edges>``, ``<then_port_map>``, ``<else_port_map>``) are read.

The reader keeps those children verbatim (``Layer.children``, so that the writer and ``extract`` carry them as they
are); ``subgraphs`` makes each body a ``Graph`` of its own (its layers, edges, Parameters and Results; its Consts read
from the outer model's ``.bin``, which it shares) and its port map an ``ops.control_flow.PortMap``, once per layer
(remembered per outer graph for as long as the layer keeps the same children). ``with_bodies`` is the way back: a body
graph a pass changed written as the layer's children again (a Const the pass made carries its payload in memory,
``RtNode.payload``, which the writer lays out in the one ``.bin``), the port maps as they were.

How OpenVINO's IR reader reads a port map (src/frontends/ir/src/ir_deserializer.cpp, measured on 2026.4.1):
an ``<input>`` with an ``axis`` slices its input; one whose ``internal_layer_id`` a ``<back_edges>`` edge goes to is
merged (the edge's ``from-layer``, a Result, gives the next iteration's value); any other is invariant. An
``<output>`` with an ``axis`` concatenates the iterations, any other gives the last one. An
``<input>``'s ``external_port_id`` names an input port of the layer; the ``<output>``s are numbered by theirs, in
order (an output port map naming ids 3 and 9 gives the layer's first and second outputs), and one of -1 is the body's
own (with a ``purpose``: Loop's ``current_iteration`` and ``execution_condition``, matched exactly). An ``<input>`` of
-1 with no other purpose feeds nothing (its Parameter is left unfed, which OpenVINO's CPU plugin runs); a Loop with no
``execution_condition`` it refuses, as it refuses an input of a TensorIterator (of a Loop, from the third) that no
``<input>`` describes. A body's Parameters and Results are numbered in file order.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass

from ..base.dims import as_layer_id, parse_int, parse_port_dim, parse_uint64_attr
from ..base.errors import IrToolsError, SourceLoc
from ..ops.control_flow import BODY_TAGS, ConcatOut, InvariantIn, IterOut, MergedIn, PortMap, SliceIn
from .model import Edge, Graph, Layer, Port, PortRecord, RtNode

#: The layer children a body's owner holds before its ports (OpenVINO writes them there): its port maps; its bodies
#: go after its ports.
PORT_MAPS = frozenset({"port_map", "back_edges", "then_port_map", "else_port_map"})


@dataclass(frozen=True)
class Subgraph:
    """One body: its graph, its Parameters and Results in file order, and how the layer's ports map onto them."""

    graph: Graph
    parameters: tuple[Layer, ...]
    results: tuple[Layer, ...]
    port_map: PortMap


_MADE: weakref.WeakKeyDictionary[Graph, dict[str, tuple[tuple[RtNode, ...], tuple[Subgraph, ...]]]] = (
    weakref.WeakKeyDictionary())


def subgraphs(graph: Graph, layer: Layer) -> tuple[Subgraph, ...]:
    """The bodies of ``layer`` (a TensorIterator or Loop: one; an If: then, else), made once (graphs to read, not to
    change: ``fresh_subgraphs``); ReadError (located at the layer) for a body or port map OpenVINO could not read
    either."""
    made = _MADE.setdefault(graph, {})
    found = made.get(layer.id)
    if found is not None and found[0] is layer.children:
        return found[1]
    bodies = fresh_subgraphs(graph, layer)
    made[layer.id] = (layer.children, bodies)
    return bodies


def fresh_subgraphs(graph: Graph, layer: Layer) -> tuple[Subgraph, ...]:
    """``subgraphs`` made anew, graphs of the caller's own: a pass changes them and puts them back (``with_bodies``),
    and one that fails half-way leaves the bodies the layer's children hold, and ``subgraphs`` reads, as they were."""
    tags = BODY_TAGS.get(_canonical(layer), ())
    return tuple(_subgraph(graph, layer, body_tag, map_tag) for body_tag, map_tag in tags)


#: ``body_layers``' answers, by the identity of the children they were read from (kept, so the identity stays theirs).
_INNER: dict[int, tuple[tuple[RtNode, ...], tuple[Layer, ...]]] = {}
_INNER_KEPT = 4096


def body_layers(layer: Layer) -> tuple[Layer, ...]:
    """The layers of every body of ``layer`` (a nested body's owner among them, its own body kept in its children),
    read without building graphs: what a question about their ops needs (can the reference run them all?)."""
    found = _INNER.get(id(layer.children))
    if found is not None and found[0] is layer.children:
        return found[1]
    tags = {body for body, _ in BODY_TAGS.get(_canonical(layer), ())}
    inner = tuple(_layer(node, layer) for body in layer.children if body.tag in tags
                  for section in body.children if section.tag == "layers"
                  for node in section.children if node.tag == "layer")
    if len(_INNER) >= _INNER_KEPT:
        _INNER.clear()
    _INNER[id(layer.children)] = (layer.children, inner)
    return inner


def located(owner: Layer, body: Graph, loc: SourceLoc) -> SourceLoc:
    """``loc``, of a layer inside ``body`` (one of ``owner``'s), at its own line (the owner's, where it has none: a
    layer a rewrite made) with the layer named ``LAYER/BODY/INNER``: where a finding inside a body is reported (nested
    bodies compose: ``A/body/B/body/C``)."""
    name = f"{owner.name}/{body.name.rsplit('/', 1)[-1]}/{loc.layer_name or ''}"
    return SourceLoc(owner.file, owner.line if loc.line is None else loc.line, owner.id, name, loc.layer_kind)


def with_bodies(owner: Layer, subs: Sequence[Subgraph]) -> tuple[RtNode, ...]:
    """``owner``'s children with each body written from its graph (``subs``: ``subgraphs(graph, owner)``, their
    graphs changed in place), its port maps and back edges as they are. Those name the body's Parameters and Results
    by id and number them in file order, so a body must keep them, ids and order (a rewrite changes what lies
    between); IrToolsError (E-PASS) otherwise."""
    tags = [body for body, _ in BODY_TAGS.get(_canonical(owner), ())]
    made: dict[str, Graph] = {}
    for tag, sub in zip(tags, subs, strict=True):
        graph = sub.graph
        if [p.id for p in graph.parameters()] != [p.id for p in sub.parameters] or \
                [r.id for r in graph.results()] != [r.id for r in sub.results]:
            raise IrToolsError(f"a rewrite inside <{tag}> changed its Parameters or Results, which its port map "
                               "names", owner.loc, "E-PASS")
        made[tag] = graph
    return tuple(body_node(child, made[child.tag]) if child.tag in made else child for child in owner.children)


def body_node(body: RtNode, graph: Graph) -> RtNode:
    """``<body>`` (its tag and attributes, and any child but its layers and edges, as they were) holding ``graph``'s
    layers and edges, in graph order."""
    layers = RtNode("layers", (), tuple(_layer_node(layer) for layer in graph.layers()))
    edges = RtNode("edges", (), tuple(RtNode("edge", (("from-layer", a), ("from-port", str(p)), ("to-layer", b),
                                                      ("to-port", str(q))), line=line)
                                      for a, p, b, q, line in graph.links()))
    rest = tuple(child for child in body.children if child.tag not in ("layers", "edges"))
    return RtNode(body.tag, body.attrs, (layers, edges, *rest), body.text)


def _layer_node(layer: Layer) -> RtNode:
    """A body's ``<layer>`` as ``_layer`` reads it back: attributes, ``<data>`` (a Const's payload in memory, if a
    pass made it), ``<rt_info>``, port maps, ports, then bodies."""
    head = (("id", layer.id), ("name", layer.name), ("type", layer.type),
            *((("version", layer.version),) if layer.version is not None else ()), *layer.extra.items())
    children = []
    if layer.attrs or layer.data is not None:
        children.append(RtNode("data", tuple(layer.attrs.items()), payload=layer.data))
    if layer.rt_info:
        children.append(RtNode("rt_info", (), layer.rt_info))
    children += [c for c in layer.children if c.tag in PORT_MAPS]
    for tag, records in (("input", layer.input_records()), ("output", layer.output_records())):
        if records:
            children.append(RtNode(tag, (), tuple(map(_port_node, records))))
    children += [c for c in layer.children if c.tag not in PORT_MAPS]
    return RtNode("layer", head, tuple(children), line=layer.line)


def _port_node(record: PortRecord) -> RtNode:
    pid, precision, dims, names, extra, rt_info, line = record
    attrs = (("id", str(pid)), *((("precision", precision),) if precision is not None else ()),
             *((("names", names),) if names is not None else ()), *(extra or {}).items())
    children = tuple(RtNode("dim", text=str(d)) for d in dims or ())
    return RtNode("port", attrs, (*children, *((RtNode("rt_info", (), rt_info),) if rt_info else ())), line=line)


def _canonical(layer: Layer) -> str:
    return next((t for t in BODY_TAGS if layer.is_a(t)), layer.type)


def _child(nodes: tuple[RtNode, ...], tag: str) -> RtNode | None:
    return next((n for n in nodes if n.tag == tag), None)


def _subgraph(outer: Graph, owner: Layer, body_tag: str, map_tag: str) -> Subgraph:
    where = owner.loc
    body = _child(owner.children, body_tag)
    if body is None:
        raise IrToolsError(f"{owner.type} needs a <{body_tag}>, found none", where, "E-OP")
    graph = Graph(f"{owner.name}/{body_tag}", outer.ir_version)
    graph.source, graph.weights, graph.line = outer.source, outer.weights, owner.line
    layers = _child(body.children, "layers")
    for node in () if layers is None else layers.children:
        if node.tag == "layer":
            layer = _layer(node, owner)
            if graph.has_layer(layer.id):
                raise IrToolsError(f"<{body_tag}> repeats layer id {layer.id}", where, "E-OP")
            graph.add_layer(layer)
    edges = _child(body.children, "edges")
    for node in () if edges is None else edges.children:
        if node.tag != "edge":
            continue
        a = dict(node.attrs)
        link = (_layer_id(a.get("from-layer")), parse_uint64_attr(a.get("from-port")), _layer_id(a.get("to-layer")),
                parse_uint64_attr(a.get("to-port")))
        if None in link or not graph.has_layer(link[0]) or not graph.has_layer(link[2]):
            raise IrToolsError(f"<{body_tag}> has an edge OpenVINO cannot read: {a}", where, "E-OP")
        graph.add_edge(Edge(*link, node.line))
    parameters = tuple(graph.parameters())
    results = tuple(graph.results())
    port_map = _port_map(owner, body_tag, _child(owner.children, map_tag),
                         _child(owner.children, "back_edges") if map_tag == "port_map" else None,
                         [p.id for p in parameters], [r.id for r in results])
    first = {"TensorIterator": 0, "Loop": 2}.get(_canonical(owner))  # (a Loop's trip count and condition: none)
    if first is not None:
        described = {d.input for d in port_map.inputs}
        unfed = [i for i in range(first, len(owner.input_ids())) if i not in described]
        if unfed:
            raise IrToolsError(f"input {unfed[0]} of the layer is described by no <input> of its port map, which "
                               "OpenVINO refuses (\"Number of inputs must be the same as number of input "
                               "descriptions\")", where, "E-OP")
    if port_map.condition is None and owner.is_a("Loop"):
        # (without one OpenVINO's reader refuses the Loop, "node index is out of range", or reads it with outputs of
        # a dynamic rank, which its CPU plugin refuses: measured on 2026.4.1)
        raise IrToolsError('its port map names no body Result of purpose "execution_condition" (spelled exactly so), '
                           "the body's condition OpenVINO requires of a Loop", where, "E-OP")
    return Subgraph(graph, parameters, results, port_map)


def _layer(node: RtNode, owner: Layer) -> Layer:
    a = dict(node.attrs)
    layer = Layer(as_layer_id(a.pop("id", "")), a.pop("name", ""), a.pop("type", ""), a.pop("version", None), extra=a,
                  file=owner.file, line=owner.line if node.line is None else node.line)
    children = []
    for child in node.children:
        if child.tag == "data":
            layer.attrs = dict(child.attrs)
            layer.data = child.payload
        elif child.tag in ("input", "output"):
            ports = [_port(p, owner) for p in child.children if p.tag == "port"]
            if child.tag == "input":
                layer.inputs = ports
            else:
                layer.outputs = ports
        elif child.tag == "rt_info":
            layer.rt_info = child.children
        else:
            children.append(child)
    layer.children = tuple(children)
    return layer


def _port(node: RtNode, owner: Layer) -> Port:
    a = dict(node.attrs)
    pid = parse_uint64_attr(a.pop("id", None))
    dims = tuple(parse_port_dim(d.text) for d in node.children if d.tag == "dim")
    if pid is None or None in dims:
        raise IrToolsError(f"a port of its body is not readable ({dict(node.attrs)})", owner.loc, "E-OP")
    rt = _child(node.children, "rt_info")
    return Port(pid, a.pop("precision", None), dims, a.pop("names", None), a, () if rt is None else rt.children,
                owner.line if node.line is None else node.line)


def _layer_id(text: str | None) -> str | None:
    """A layer an edge, a back edge or a port map names, as the body's layers are named (``as_layer_id``)."""
    return None if text is None else as_layer_id(text)


def _port_map(owner: Layer, body_tag: str, node: RtNode | None, back_edges: RtNode | None,
              parameters: list[str], results: list[str]) -> PortMap:
    """The layer's ports mapped onto the body's Parameters and Results (by position, as OpenVINO numbers them)."""
    where = owner.loc
    inputs, outputs = owner.input_ids(), owner.output_ids()
    merged = {}
    for edge in () if back_edges is None else back_edges.children:
        a = dict(edge.attrs)
        source, target = _layer_id(a.get("from-layer")), _layer_id(a.get("to-layer"))
        if source not in results or target not in parameters:
            raise IrToolsError(f"a back edge must go from a Result of the body to one of its Parameters, got one from "
                               f"layer {a.get('from-layer')} to layer {a.get('to-layer')}", where, "E-OP")
        merged[target] = results.index(source)
    ins, outs, current, condition = [], [], None, None
    items = () if node is None else node.children
    # OpenVINO numbers a port map's outputs by their external_port_id, in order, from 0 (those of -1 are the body's
    # own): the ids order the outputs and need not be the layer's port ids
    ranked = sorted({ext for item in items if item.tag == "output"
                     and (ext := parse_int(dict(item.attrs).get("external_port_id"))) is not None and ext >= 0})
    for item in items:
        a = dict(item.attrs)
        ext, internal = parse_int(a.get("external_port_id")), _layer_id(a.get("internal_layer_id"))
        purpose = a.get("purpose")
        table = parameters if item.tag == "input" else results
        if internal not in table:
            kind = "Parameter" if item.tag == "input" else "Result"
            raise IrToolsError(f"<{item.tag}> of its port map names internal_layer_id {internal}, which is no {kind} "
                            f"of <{body_tag}>", where, "E-OP")
        index = table.index(internal)
        if purpose == "current_iteration" and item.tag == "input":
            current = index
            continue
        if purpose == "execution_condition" and item.tag == "output":
            condition = index
            continue
        if item.tag == "input":
            if ext is not None and ext < 0 and "axis" not in a and internal not in merged:
                continue  # (a Parameter no input feeds: OpenVINO describes none, whatever its purpose says)
            if ext not in inputs:
                raise IrToolsError(f"<input> of its port map names external_port_id {a.get('external_port_id')}, "
                                   "which is no input port of the layer", where, "E-OP")
            position = inputs.index(ext)
        elif ext is not None and ext < 0:
            continue  # (a Result the body alone uses)
        elif ext is None or ranked.index(ext) >= len(outputs):
            raise IrToolsError(f"<output> of its port map names external_port_id {a.get('external_port_id')}, "
                               f"output {len(ranked) if ext is None else ranked.index(ext)} in the order of those "
                               f"ids, but the layer has {len(outputs)} output port(s)", where, "E-OP")
        else:
            position = ranked.index(ext)
        # (OpenVINO reads a sliced input's axis as an unsigned integer: -1, or 1 with a blank after it, it refuses; a
        # concatenated output's as a signed one; measured on 2026.4)
        read = parse_uint64_attr if item.tag == "input" else parse_int
        axis = read(a["axis"]) if "axis" in a else None
        slicing = {k: parse_int(a.get(k, d)) for k, d in (("start", "0"), ("stride", "1"), ("part_size", "1"),
                                                          ("end", "-1"))}
        if "axis" in a and axis is None and item.tag == "input":
            raise IrToolsError(f"<input> of its port map has axis '{a['axis']}': OpenVINO reads a sliced input's axis "
                               "as an unsigned integer, and refuses the model", where, "E-OP")
        if None in slicing.values() or ("axis" in a and axis is None):
            raise IrToolsError(f"<{item.tag}> of its port map has a slicing attribute that is not an integer: {a}",
                            where, "E-OP")
        if item.tag == "input":
            if axis is not None:
                ins.append(SliceIn(axis=axis, **slicing, input=position, param=index))
            elif internal in merged:
                ins.append(MergedIn(position, index, merged[internal]))
            else:
                ins.append(InvariantIn(position, index))
        elif axis is not None:
            outs.append(ConcatOut(axis=axis, **slicing, output=position, result=index))
        else:
            outs.append(IterOut(position, index))
    return PortMap(tuple(ins), tuple(outs), current, condition)
