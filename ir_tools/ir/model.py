"""Graph, Layer, Port: the one in-memory model of an IR. The only module that touches networkx.

Layers keep their attributes verbatim (strings, in file order) so that any model, including
ops we do not understand, round-trips; typed views come from the op registry.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
import numpy as np

from ..base.errors import IrToolsError, ReadError, SourceLoc
from ..ops import attrs as A
from ..ops.core import ConstAttrs, const_value
from ..ops.opsets import canonical_type


@dataclass(frozen=True, slots=True)
class RtNode:
    """One XML element kept verbatim (tag, attributes, children, text): rt_info entries and the
    layer children we do not interpret, such as the ``<body>`` of a TensorIterator, Loop or If."""

    tag: str
    attrs: tuple[tuple[str, str], ...] = ()
    children: tuple[RtNode, ...] = ()
    text: str | None = None


@dataclass(slots=True)
class Port:
    id: int
    precision: str | None = None
    dims: tuple[int, ...] | None = ()  # -1: dynamic dim; None: dynamic rank (written without <dim>)
    names: str | None = None  # the ``names`` attribute verbatim (comma separated tensor names)
    extra: dict[str, str] = field(default_factory=dict)  # other port attributes, verbatim
    rt_info: tuple[RtNode, ...] = ()
    line: int | None = None


@dataclass(slots=True)
class Layer:
    id: str
    name: str
    type: str
    version: str | None
    attrs: dict[str, str] = field(default_factory=dict)  # <data> attributes verbatim, in order
    inputs: list[Port] = field(default_factory=list)
    outputs: list[Port] = field(default_factory=list)
    rt_info: tuple[RtNode, ...] = ()
    extra: dict[str, str] = field(default_factory=dict)  # other <layer> attributes, verbatim
    children: tuple[RtNode, ...] = ()  # other child elements (subgraph bodies, port maps), verbatim
    file: str | None = None
    line: int | None = None
    data: bytes | None = None  # Const payload created in memory (read ones stay in the .bin)

    @property
    def kind(self) -> str:
        """``AvgPool@opset14`` style label used in histograms."""
        return f"{self.type}@{self.version}" if self.version else self.type

    @property
    def loc(self) -> SourceLoc:
        return SourceLoc(self.file, self.line, self.id, self.name, self.kind)

    def port_loc(self, port: Port) -> SourceLoc:
        return SourceLoc(self.file, port.line or self.line, self.id, self.name, self.kind)

    def input(self, port_id: int) -> Port | None:
        return next((p for p in self.inputs if p.id == port_id), None)

    def output(self, port_id: int) -> Port | None:
        return next((p for p in self.outputs if p.id == port_id), None)

    def port(self, port_id: int) -> Port | None:
        return self.input(port_id) or self.output(port_id)

    def is_a(self, op_type: str) -> bool:
        """True if OpenVINO reads this layer's type as ``op_type`` (one spelling rule: ops.opsets)."""
        return canonical_type(self.type) == op_type


@dataclass(frozen=True, slots=True)
class Edge:
    from_layer: str
    from_port: int
    to_layer: str
    to_port: int
    line: int | None = None


class Weights:
    """The ``.bin`` file, memory-mapped on first use; slices are bounds-checked."""

    def __init__(self, path: Path):
        self.path = path
        self._map: mmap.mmap | None = None
        self._size: int | None = None

    @property
    def exists(self) -> bool:
        return self._map is not None or self.path.is_file()

    @property
    def size(self) -> int:
        if self._size is None:
            self._size = self.path.stat().st_size
        return self._size

    def map(self) -> None:
        """Map the file now (once mapped, it may be deleted: the mapping keeps its contents)."""
        if self._map is None and self.size:
            with open(self.path, "rb") as f:
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)

    def read(self, offset: int, size: int) -> memoryview:
        if offset < 0 or size < 0 or offset + size > self.size:
            raise ReadError(f"bytes [{offset}, {offset + size}) lie outside {self.path.name} ({self.size} bytes)")
        if size == 0:
            return memoryview(b"")
        self.map()
        return memoryview(self._map)[offset : offset + size]


class Graph:
    """An IR network: layers as nodes (keyed by id), edges keyed by ``(from_port, to_port)``.

    Methods that run per layer or per port on large models read networkx's own dicts (``_node``,
    ``_succ``, ``_pred``: ``{neighbour: {key: data}}``) instead of building its views, which costs
    several times more; the order is the same.
    """

    def __init__(self, name: str = "model", ir_version: int = 11):
        self.name = name
        self.ir_version = ir_version
        self.rt_info: tuple[RtNode, ...] = ()
        self.net_extra: dict[str, str] = {}  # other <net> attributes, verbatim
        self.source: Path | None = None  # the .xml it was read from
        self.line: int | None = None  # the line of its <net> element
        self.weights: Weights | None = None
        self.load_diagnostics: list = []  # recoverable problems the reader found (Diagnostic)
        self._g = nx.MultiDiGraph()
        self._next_id = 0  # above every numeric id: new ids in O(1)

    # -- layers -------------------------------------------------------------------------------
    def add_layer(self, layer: Layer) -> Layer:
        if layer.id in self._g:
            raise ValueError(f"duplicate layer id {layer.id}")
        self._g.add_node(layer.id, layer=layer)
        if layer.id.isdigit() and layer.id.isascii():
            self._next_id = max(self._next_id, int(layer.id) + 1)
        return layer

    def remove_layer(self, layer_id: str) -> None:
        self._g.remove_node(layer_id)

    def has_layer(self, layer_id: str) -> bool:
        return layer_id in self._g

    def layer(self, layer_id: str) -> Layer:
        return self._g.nodes[layer_id]["layer"]

    def layers(self) -> Iterator[Layer]:
        """Layers in insertion (file) order."""
        return (data["layer"] for data in self._g._node.values())

    def __len__(self) -> int:
        return self._g.number_of_nodes()

    def by_type(self, *types: str) -> list[Layer]:
        """Layers OpenVINO reads as one of ``types`` (canonical spellings, e.g. "AvgPool")."""
        wanted = set(types)
        return [layer for layer in self.layers() if canonical_type(layer.type) in wanted]

    def parameters(self) -> list[Layer]:
        return self.by_type("Parameter")

    def results(self) -> list[Layer]:
        return self.by_type("Result")

    def new_id(self) -> str:
        """A fresh numeric layer id, above every numeric id the graph has had."""
        return str(self._next_id)

    def const_bytes(self, layer: Layer) -> memoryview:
        """A Const layer's payload: in memory if a pass made it, else its slice of the ``.bin``."""
        if layer.data is not None:
            return memoryview(layer.data)
        try:
            offset, size = int(layer.attrs["offset"]), int(layer.attrs["size"])
        except (KeyError, ValueError):
            raise ReadError("Const needs integer 'offset' and 'size' attributes", layer.loc) from None
        if self.weights is None or not self.weights.exists:
            path = self.weights.path if self.weights else "the .bin file"
            raise ReadError(f"weights file {path} is missing", layer.loc, code="E-BIN-MISSING")
        try:
            return self.weights.read(offset, size)
        except ReadError as exc:
            raise ReadError(exc.message, layer.loc, code="E-CONST-BOUNDS") from None

    def const_array(self, layer: Layer) -> np.ndarray:
        """A Const layer's value (a read-only view of the ``.bin`` where possible)."""
        try:
            return const_value(A.decode(ConstAttrs, layer.attrs), self.const_bytes(layer))
        except IrToolsError as exc:
            raise type(exc)(exc.message, layer.loc, exc.code) from None

    # -- edges --------------------------------------------------------------------------------
    def add_edge(self, edge: Edge) -> None:
        self._g.add_edge(edge.from_layer, edge.to_layer, key=(edge.from_port, edge.to_port), edge=edge)

    def remove_edge(self, edge: Edge) -> None:
        self._g.remove_edge(edge.from_layer, edge.to_layer, key=(edge.from_port, edge.to_port))

    def edges(self) -> list[Edge]:
        return [data["edge"] for _, _, data in self._g.edges(data=True)]

    def in_edges(self, layer_id: str) -> list[Edge]:
        return [d["edge"] for _, _, d in self._g.in_edges(layer_id, data=True)]

    def out_edges(self, layer_id: str) -> list[Edge]:
        return [d["edge"] for _, _, d in self._g.out_edges(layer_id, data=True)]

    def producers(self, layer_id: str, port_id: int) -> list[Edge]:
        """Edges feeding one input port (normally exactly one), in ``in_edges`` order."""
        return [d["edge"] for keys in self._g._pred.get(layer_id, {}).values()
                for (_, to_port), d in keys.items() if to_port == port_id]

    def consumers(self, layer_id: str, port_id: int) -> list[Edge]:
        """Edges reading one output port, in ``out_edges`` order."""
        return [d["edge"] for keys in self._g._succ.get(layer_id, {}).values()
                for (from_port, _), d in keys.items() if from_port == port_id]

    def producer(self, layer_id: str, port_id: int) -> tuple[Layer, Port] | None:
        """The layer and output port that feed an input port, if exactly one does."""
        edges = self.producers(layer_id, port_id)
        if len(edges) != 1 or not self.has_layer(edges[0].from_layer):
            return None
        src = self.layer(edges[0].from_layer)
        port = src.output(edges[0].from_port)
        return None if port is None else (src, port)

    def redirect_consumers(self, old: tuple[str, int], new: tuple[str, int]) -> None:
        """Make every consumer of output ``old`` read output ``new`` instead."""
        for e in self.consumers(*old):
            self.remove_edge(e)
            self.add_edge(Edge(new[0], new[1], e.to_layer, e.to_port))

    # -- algorithms ---------------------------------------------------------------------------
    def find_cycle(self) -> list[str] | None:
        """Layer ids along one cycle, or None if the graph is acyclic."""
        if self._points_forward():
            return None
        try:
            return [u for u, _, _ in nx.find_cycle(self._g)]
        except nx.NetworkXNoCycle:
            return None

    def topological_order(self) -> list[Layer]:
        """Layers in an order where producers come first; ties keep file order. Fails on cycles.

        When every edge already points forward in file order (as in files OpenVINO writes), the
        sort would return file order itself, so that is returned without sorting.
        """
        if self._points_forward():
            return list(self.layers())
        position = {node: i for i, node in enumerate(self._g)}
        order = nx.lexicographical_topological_sort(self._g, key=position.__getitem__)
        return [self.layer(i) for i in order]

    def _points_forward(self) -> bool:
        """True if every edge goes to a layer added later: then the graph is acyclic and file order is
        a topological order (networkx's cycle search and sort take seconds on large models)."""
        position = {node: i for i, node in enumerate(self._g)}
        return all(position[u] < position[v] for u, targets in self._g._succ.items() for v in targets)

    def ancestors(self, layer_ids: Iterable[str]) -> set[str]:
        """The given layers and everything they depend on."""
        seen: set[str] = set()
        for lid in layer_ids:
            if lid not in seen:
                seen.add(lid)
                seen |= nx.ancestors(self._g, lid)
        return seen
