"""Structural checks of a Graph, each with its own stable diagnostic code.

| code              | what                                                              |
|-------------------|-------------------------------------------------------------------|
| E-EDGE-PORT       | an edge names a port its layer does not have                      |
| E-INPUT-UNFED     | an input port with no producer                                    |
| E-INPUT-MULTI     | an input port with several producers                              |
| E-CYCLE           | the layers form a cycle                                           |
| W-DEAD            | a layer that no Result depends on                                 |
| E-EDGE-PRECISION  | precisions of the two ends of an edge differ                      |
| E-EDGE-DIMS       | declared dims of the two ends of an edge differ                   |
| E-BIN-MISSING     | Const layers but no ``.bin`` file                                 |
| E-CONST-BOUNDS    | a Const's [offset, offset+size) lies outside the ``.bin``         |
| E-CONST-SIZE      | a Const's size is smaller than element type x shape               |
| E-OPSET           | the layer's opset does not contain its type                       |
| W-EMPTY-WINDOW    | a pooling window with no data (OpenVINO CPU gives NaN or 0 there) |

The reader adds E-DUP-ID, E-EDGE-LAYER, E-DIM and friends; shape propagation adds E-SHAPE,
E-TYPE, E-OP, E-ATTR and E-ARITY.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..diagnostics import Diagnostic
from ..dtypes import byte_size, element_type
from ..errors import IrToolsError, SourceLoc
from ..ir.dims import show
from ..ops import attrs as A
from ..ops.core import ConstAttrs
from ..ops.pool_geometry import counts_padding, window_counts
from ..ops.pooling import geometry as pool_geometry_of
from ..ops.registry import TensorType, known_type, lookup, opsets_of
from .model import Edge, Graph

MAX_OPSET = 17
_OPSET = re.compile(r"opset(\d+)")


def structural_checks(graph: Graph) -> list[Diagnostic]:
    """Every structural problem of ``graph`` at once, in file order per check."""
    out: list[Diagnostic] = []
    for check in (_edge_ports, _fed_inputs, _cycles, _edge_agreement, _constants, _opsets, _dead_layers):
        out.extend(check(graph))
    return out


def _edge_loc(graph: Graph, edge: Edge) -> SourceLoc:
    return SourceLoc(str(graph.source) if graph.source else None, edge.line)


def _edge_text(e: Edge) -> str:
    return f"edge {e.from_layer}:{e.from_port} -> {e.to_layer}:{e.to_port}"


def _edge_ports(graph: Graph) -> Iterator[Diagnostic]:
    for e in graph.edges():
        src, dst = graph.layer(e.from_layer), graph.layer(e.to_layer)
        if src.output(e.from_port) is None:
            have = [p.id for p in src.outputs]
            yield Diagnostic("error", "E-EDGE-PORT", f"{_edge_text(e)}: layer '{src.name}' has no output port "
                             f"{e.from_port} (outputs: {have})", _edge_loc(graph, e))
        if dst.input(e.to_port) is None:
            have = [p.id for p in dst.inputs]
            yield Diagnostic("error", "E-EDGE-PORT", f"{_edge_text(e)}: layer '{dst.name}' has no input port "
                             f"{e.to_port} (inputs: {have})", _edge_loc(graph, e))


def _fed_inputs(graph: Graph) -> Iterator[Diagnostic]:
    for layer in graph.layers():
        for port in layer.inputs:
            edges = graph.producers(layer.id, port.id)
            if not edges:
                yield Diagnostic("error", "E-INPUT-UNFED", f"input port {port.id} has no producer (no edge ends there)",
                                 layer.port_loc(port))
            elif len(edges) > 1:
                sources = ", ".join(f"{e.from_layer}:{e.from_port}" for e in edges)
                yield Diagnostic("error", "E-INPUT-MULTI", f"input port {port.id} has {len(edges)} producers "
                                 f"({sources}); exactly one expected", layer.port_loc(port))


def _cycles(graph: Graph) -> Iterator[Diagnostic]:
    cycle = graph.find_cycle()
    if cycle:
        first = graph.layer(cycle[0])
        names = " -> ".join(f"'{graph.layer(i).name}' ({i})" for i in [*cycle, cycle[0]])
        yield Diagnostic("error", "E-CYCLE", f"the graph has a cycle: {names}", first.loc)


def _edge_agreement(graph: Graph) -> Iterator[Diagnostic]:
    for e in graph.edges():
        src_port = graph.layer(e.from_layer).output(e.from_port)
        dst_layer = graph.layer(e.to_layer)
        dst_port = dst_layer.input(e.to_port)
        if src_port is None or dst_port is None:
            continue  # reported by _edge_ports
        if src_port.precision != dst_port.precision:
            yield Diagnostic("error", "E-EDGE-PRECISION", f"input port {dst_port.id}: precision {dst_port.precision}, "
                             f"but its producer ({_edge_text(e)}) gives {src_port.precision}",
                             dst_layer.port_loc(dst_port))
        if src_port.dims != dst_port.dims:
            yield Diagnostic("error", "E-EDGE-DIMS", f"input port {dst_port.id}: dims {show(dst_port.dims)}, "
                             f"but its producer ({_edge_text(e)}) gives {show(src_port.dims)}",
                             dst_layer.port_loc(dst_port))


def _constants(graph: Graph) -> Iterator[Diagnostic]:
    consts = graph.by_type("Const")
    if not consts:
        return
    weights = graph.weights
    if weights is None or not weights.exists:
        yield Diagnostic("error", "E-BIN-MISSING", f"weights file {weights.path if weights else '(none)'} is missing; "
                         f"{len(consts)} Const layers need it", SourceLoc(str(graph.source) if graph.source else None))
        return
    for layer in consts:
        try:
            a = A.decode(ConstAttrs, layer.attrs, layer.loc)
        except IrToolsError as exc:
            yield Diagnostic("error", exc.code, exc.message, layer.loc)
            continue
        if a.offset + a.size > weights.size:
            yield Diagnostic("error", "E-CONST-BOUNDS", f"bytes [{a.offset}, {a.offset + a.size}) lie outside "
                             f"{weights.path.name} ({weights.size} bytes)", layer.loc)
        et = element_type(a.element_type)
        count = 1
        for n in a.shape:
            count *= n
        if et is not None and et.bits and a.size < byte_size(et, count):
            yield Diagnostic("error", "E-CONST-SIZE", f"size {a.size} is smaller than {a.element_type}"
                             f"{list(a.shape)} needs ({byte_size(et, count)} bytes)", layer.loc)


def _opsets(graph: Graph) -> Iterator[Diagnostic]:
    for layer in graph.layers():
        version = layer.version or ""
        match = _OPSET.fullmatch(version)
        if match and not 1 <= int(match.group(1)) <= MAX_OPSET:
            yield Diagnostic("error", "E-OPSET", f"unknown opset '{version}' (opset1..opset{MAX_OPSET} exist)",
                             layer.loc)
        elif known_type(layer.type) and lookup(layer.type, version) is None:
            have = opsets_of(layer.type)
            yield Diagnostic("error", "E-OPSET", f"opset '{version}' does not contain {layer.type} "
                             f"(it is in {have[0]}..{have[-1]})", layer.loc)


def _dead_layers(graph: Graph) -> Iterator[Diagnostic]:
    live = graph.ancestors(r.id for r in graph.results())
    for layer in graph.layers():
        if layer.id not in live:
            what = "model input" if layer.type.lower() == "parameter" else "layer"
            yield Diagnostic("warning", "W-DEAD", f"no Result depends on this {what}", layer.loc)


def empty_window_warnings(graph: Graph, types: dict[tuple[str, int], TensorType]) -> list[Diagnostic]:
    """W-EMPTY-WINDOW: pooling windows with no data tap (ceil rounding can create them)."""
    out = []
    for layer in graph.by_type("AvgPool"):
        spec = lookup(layer.type, layer.version)
        edges = graph.producers(layer.id, layer.inputs[0].id) if spec and layer.inputs else []
        data = types.get((edges[0].from_layer, edges[0].from_port)) if len(edges) == 1 else None
        if data is None or data.shape is None or not all(d.is_static for d in data.shape):
            continue
        try:
            a = A.decode(spec.attrs, layer.attrs, layer.loc)
            g = pool_geometry_of(a, data, spec.label)
        except IrToolsError:
            continue  # reported by shape propagation
        for axis, (dim, out_dim) in enumerate(zip(data.shape[2:], g.spatial, strict=True)):
            counts = window_counts(dim.lo, a.kernel[axis], a.strides[axis], a.dilations_or_ones[axis],
                                   g.pads_begin[axis], out_dim.lo)
            empty = int((counts == 0).sum())
            if empty:
                value = "0" if counts_padding(g.pads_begin, g.pads_end, a.exclude_pad) else "NaN"
                out.append(Diagnostic(
                    "warning", "W-EMPTY-WINDOW",
                    f"{a.rounding_type} rounding makes {empty} window(s) on spatial axis {axis} with no data "
                    f"(input {dim.lo}, kernel {a.kernel[axis]}, stride {a.strides[axis]}, pads "
                    f"{g.pads_begin[axis]}/{g.pads_end[axis]}); OpenVINO CPU outputs {value} there",
                    layer.loc,
                ))
    return out
