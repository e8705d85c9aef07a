"""The bodies of TensorIterator, Loop and If as graphs: the one place a layer's ``<body>`` (``<then_body>``,
``<else_body>``) and ``<port_map>`` (``<back_edges>``, ``<then_port_map>``, ``<else_port_map>``) are read.

The reader keeps those children verbatim (``Layer.children``, so that the writer and ``extract`` carry them as they
are); ``subgraphs`` makes each body a ``Graph`` of its own (its layers, edges, Parameters and Results; its Consts read
from the outer model's ``.bin``, which it shares) and its port map an ``ops.control_flow.PortMap``, once per layer
(remembered per outer graph for as long as the layer keeps the same children).

How OpenVINO's IR reader reads a port map (src/frontends/ir/src/ir_deserializer.cpp, measured on 2026.4.1):
an ``<input>`` with an ``axis`` slices its input; one whose ``internal_layer_id`` a ``<back_edges>`` edge goes to is
merged (the edge's ``from-layer``, a Result, gives the next iteration's value); any other is invariant. An
``<output>`` with an ``axis`` concatenates the iterations, any other gives the last one. An
``<input>``'s ``external_port_id`` names an input port of the layer; the ``<output>``s are numbered by theirs, in
order (an output port map naming ids 3 and 9 gives the layer's first and second outputs), and one of -1 is the body's
own (with a ``purpose``: Loop's ``current_iteration`` and ``execution_condition``). A body's Parameters and Results
are numbered in file order.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from ..base.dims import parse_int, parse_port_dim
from ..base.errors import IrToolsError
from ..ops.control_flow import BODY_TAGS, ConcatOut, InvariantIn, IterOut, MergedIn, PortMap, SliceIn
from .model import Edge, Graph, Layer, Port, RtNode


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
    """The bodies of ``layer`` (a TensorIterator or Loop: one; an If: then, else), made once; ReadError (located at
    the layer) for a body or port map OpenVINO could not read either."""
    made = _MADE.setdefault(graph, {})
    found = made.get(layer.id)
    if found is not None and found[0] is layer.children:
        return found[1]
    tags = BODY_TAGS.get(_canonical(layer), ())
    bodies = tuple(_subgraph(graph, layer, body_tag, map_tag) for body_tag, map_tag in tags)
    made[layer.id] = (layer.children, bodies)
    return bodies


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
        link = (a.get("from-layer"), parse_int(a.get("from-port")), a.get("to-layer"), parse_int(a.get("to-port")))
        if None in link or not graph.has_layer(link[0]) or not graph.has_layer(link[2]):
            raise IrToolsError(f"<{body_tag}> has an edge OpenVINO cannot read: {a}", where, "E-OP")
        graph.add_edge(Edge(*link))
    parameters = tuple(graph.parameters())
    results = tuple(graph.results())
    port_map = _port_map(owner, body_tag, _child(owner.children, map_tag),
                         _child(owner.children, "back_edges") if map_tag == "port_map" else None,
                         [p.id for p in parameters], [r.id for r in results])
    return Subgraph(graph, parameters, results, port_map)


def _layer(node: RtNode, owner: Layer) -> Layer:
    a = dict(node.attrs)
    layer = Layer(a.pop("id", ""), a.pop("name", ""), a.pop("type", ""), a.pop("version", None), extra=a,
                  file=owner.file, line=owner.line)
    children = []
    for child in node.children:
        if child.tag == "data":
            layer.attrs = dict(child.attrs)
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
    pid = parse_int(a.pop("id", None))
    dims = tuple(parse_port_dim(d.text) for d in node.children if d.tag == "dim")
    if pid is None or None in dims:
        raise IrToolsError(f"a port of its body is not readable ({dict(node.attrs)})", owner.loc, "E-OP")
    rt = _child(node.children, "rt_info")
    return Port(pid, a.pop("precision", None), dims, a.pop("names", None), a, () if rt is None else rt.children,
                owner.line)


def _port_map(owner: Layer, body_tag: str, node: RtNode | None, back_edges: RtNode | None,
              parameters: list[str], results: list[str]) -> PortMap:
    """The layer's ports mapped onto the body's Parameters and Results (by position, as OpenVINO numbers them)."""
    where = owner.loc
    inputs, outputs = owner.input_ids(), owner.output_ids()
    merged = {}
    for edge in () if back_edges is None else back_edges.children:
        a = dict(edge.attrs)
        if a.get("from-layer") not in results or a.get("to-layer") not in parameters:
            raise IrToolsError(f"a back edge must go from a Result of the body to one of its Parameters, got one from "
                               f"layer {a.get('from-layer')} to layer {a.get('to-layer')}", where, "E-OP")
        merged[a["to-layer"]] = results.index(a["from-layer"])
    ins, outs, current, condition = [], [], None, None
    items = () if node is None else node.children
    # OpenVINO numbers a port map's outputs by their external_port_id, in order, from 0 (those of -1 are the body's
    # own): the ids order the outputs and need not be the layer's port ids
    ranked = sorted({ext for item in items if item.tag == "output"
                     and (ext := parse_int(dict(item.attrs).get("external_port_id"))) is not None and ext >= 0})
    for item in items:
        a = dict(item.attrs)
        ext, internal = parse_int(a.get("external_port_id")), a.get("internal_layer_id")
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
        axis = parse_int(a.get("axis")) if "axis" in a else None
        slicing = {k: parse_int(a.get(k, d)) for k, d in (("start", "0"), ("stride", "1"), ("part_size", "1"),
                                                          ("end", "-1"))}
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
