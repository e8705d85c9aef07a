"""Graph, Layer, Port: the one in-memory model of an IR. The only module that touches networkx (lazily).

Layers keep their attributes verbatim (strings, in file order) so that any model, including
ops we do not understand, round-trips; typed views come from the op registry.
"""

from __future__ import annotations

import heapq
import mmap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..base.dims import INT64_MAX
from ..base.errors import IrToolsError, ReadError, SourceLoc, did_you_mean
from ..ops import attrs as A
from ..ops.core import ConstAttrs, const_value
from ..ops.opsets import reads_as, type_key, type_query


@dataclass(frozen=True, slots=True)
class RtNode:
    """One XML element kept verbatim (tag, attributes, children, text): rt_info entries and the
    layer children we do not interpret, such as the ``<body>`` of a TensorIterator, Loop or If. ``payload``: on the
    ``<data>`` of a Const a rewrite made inside a body, its bytes in memory (as ``Layer.data``; the writer lays them
    out in the ``.bin``, read ones stay there). ``line``: where an element of a body was read (its layers and ports are
    reported there); not part of what the node is (equality, hash)."""

    tag: str
    attrs: tuple[tuple[str, str], ...] = ()
    children: tuple[RtNode, ...] = ()
    text: str | None = None
    payload: bytes | None = None
    line: int | None = field(default=None, compare=False)


@dataclass(slots=True)
class Port:
    """One ``<port>`` of a layer: ``id`` (unique in the layer), ``precision`` (``FP32`` or ``f32``), ``dims`` (-1 a
    dynamic dim, None a dynamic rank), ``names`` (the tensor names, verbatim: comma separated, a comma inside a name
    written ``\\,``: set the names of a model input or output with ``rename_input``/``rename_output``), other
    attributes verbatim (``extra``), rt_info, and its source line."""

    id: int
    precision: str | None = None
    dims: tuple[int, ...] | None = ()  # -1: dynamic dim; None: dynamic rank (written without <dim>)
    names: str | None = None  # the ``names`` attribute verbatim (comma separated tensor names)
    extra: dict[str, str] = field(default_factory=dict)  # other port attributes, verbatim
    rt_info: tuple[RtNode, ...] = ()
    line: int | None = None


#: A port without its Port object: the fields of Port in order, ``(id, precision, dims, names, extra,
#: rt_info, line)``, with ``extra`` None when empty. Plain strings, ints and tuples, which the cyclic GC
#: stops tracking once it has seen them (a Port is tracked for as long as it lives, and a tuple holding
#: a dict, even an empty one, stays tracked).
PortRecord = tuple[int, "str | None", "tuple[int, ...] | None", "str | None", "dict[str, str] | None",
                   "tuple[RtNode, ...]", "int | None"]
#: The input or output ports of a read layer until something asks for their Port objects: their records
#: one after another in one flat tuple, so that a layer adds two tuples to the objects the GC counts
#: while it is read, not two plus one per port.
PortFields = tuple
PORT_WIDTH = 7  # fields per port in PortFields
_LAYER_FIELDS = ("id", "name", "type", "version", "attrs", "inputs", "outputs", "rt_info", "extra", "children",
                 "file", "line", "data")


def _ports(fields: PortFields) -> list[Port]:
    return [Port(fields[i], fields[i + 1], fields[i + 2], fields[i + 3], {} if fields[i + 4] is None else fields[i + 4],
                 fields[i + 5], fields[i + 6]) for i in range(0, len(fields), PORT_WIDTH)]


def _records(ports: list[Port] | PortFields) -> list[PortRecord]:
    """One side's ports as records, whether Port objects were made or not."""
    if type(ports) is list:
        return [(p.id, p.precision, p.dims, p.names, p.extra or None, p.rt_info, p.line) for p in ports]
    if len(ports) <= PORT_WIDTH:  # no port or one (most sides): its fields are its record
        return [ports] if ports else []
    return [ports[i : i + PORT_WIDTH] for i in range(0, len(ports), PORT_WIDTH)]


def _record(ports: list[Port] | PortFields, port_id: int) -> PortRecord | None:
    """The record of the first port of one side with id ``port_id`` (as ``Layer.input`` finds it), or None."""
    if type(ports) is list:
        for p in ports:
            if p.id == port_id:
                return (p.id, p.precision, p.dims, p.names, p.extra, p.rt_info, p.line)
        return None
    try:  # (found in C: an id sits every PORT_WIDTH fields, an int elsewhere is a line)
        i = ports.index(port_id)
        while i % PORT_WIDTH:
            i = ports.index(port_id, i + 1)
    except ValueError:
        return None
    return ports[i : i + PORT_WIDTH]


#: How many times a layer's type was changed in place, in any graph: an index of types made before is stale.
_RETYPED = 0
#: The longest list of one type's layers ``Graph._indexed`` removes a layer from (a longer one: the index made again).
_INDEXED_REMOVAL = 64


class Layer:
    """One ``<layer>``: its attributes verbatim, its ports, where it came from.

    Built like a dataclass (same fields, order and defaults; equality compares every field), with one
    difference inside: a layer the reader made keeps its ports as ``PortFields`` tuples, and ``inputs``
    / ``outputs`` make the Port lists on first use (once: after that the lists and Ports are the
    layer's own, and may be changed). Code that only needs ids or declared types (the walker, shape
    propagation) reads ``input_ids()`` / ``output_records()`` and makes no Port at all, which keeps the
    objects the GC must scan to about one per layer.
    """

    __slots__ = ("id", "name", "_type", "version", "attrs", "_inputs", "_outputs", "rt_info", "_extra", "children",
                 "file", "line", "data")
    __hash__ = None  # mutable, compared by value (as the dataclass it was)

    def __init__(self, id: str, name: str, type: str, version: str | None,  # noqa: A002 (the IR's names)
                 attrs: dict[str, str] | None = None, inputs: Iterable[Port] | None = None,
                 outputs: Iterable[Port] | None = None, rt_info: tuple[RtNode, ...] = (),
                 extra: dict[str, str] | None = None, children: tuple[RtNode, ...] = (), file: str | None = None,
                 line: int | None = None, data: bytes | memoryview | None = None):
        self.id = id
        self.name = name
        self._type = type
        self.version = version
        self.attrs = {} if attrs is None else attrs  # <data> attributes verbatim, in order
        self.inputs = [] if inputs is None else inputs
        self.outputs = [] if outputs is None else outputs
        self.rt_info = rt_info
        self._extra = extra  # other <layer> attributes, verbatim (see extra)
        self.children = children  # other child elements (subgraph bodies, port maps), verbatim
        self.file = file
        self.line = line
        self.data = data  # Const payload created in memory, read-only (read ones stay in the .bin)

    @classmethod
    def from_records(cls, id: str, name: str, type: str, version: str | None,  # noqa: A002
              attrs: dict[str, str], inputs: PortFields, outputs: PortFields,
              rt_info: tuple[RtNode, ...], extra: dict[str, str] | None, children: tuple[RtNode, ...],
              file: str | None, line: int | None) -> Layer:
        """A layer whose ports are still records (the reader's constructor)."""
        layer = cls.__new__(cls)
        layer.id, layer.name, layer._type, layer.version, layer.attrs = id, name, type, version, attrs
        layer._inputs, layer._outputs, layer.rt_info, layer._extra = inputs, outputs, rt_info, extra
        layer.children, layer.file, layer.line, layer.data = children, file, line, None
        return layer

    def _retype(self, op_type: str) -> None:
        """Change the type in place: every graph's index of types (``Graph.by_type``) is then made again."""
        global _RETYPED  # noqa: PLW0603 (one counter for every layer: a type changes rarely, is read often)
        self._type = op_type
        _RETYPED += 1

    # (read by a getter in C: every per-layer loop reads the type)
    type = property(attrgetter("_type"), _retype, doc="""The op type as written (``type="AvgPool"``).""")

    @property
    def extra(self) -> dict[str, str]:
        """The other ``<layer>`` attributes, verbatim. Made on first use: most layers have none, and an empty dict
        per layer would be one more object for every collection of the cyclic GC to count."""
        extra = self._extra
        if extra is None:
            extra = self._extra = {}
        return extra

    @extra.setter
    def extra(self, extra: dict[str, str]) -> None:
        self._extra = extra

    @property
    def inputs(self) -> list[Port]:
        """The input ports, in order (made from their records when first asked; editable, then written as they are)."""
        ports = self._inputs
        if type(ports) is not list:
            ports = self._inputs = _ports(ports)
        return ports

    @inputs.setter
    def inputs(self, ports: Iterable[Port]) -> None:
        self._inputs = ports if type(ports) is list else list(ports)

    @property
    def outputs(self) -> list[Port]:
        """The output ports, in order (OpenVINO numbers them after the inputs; made when first asked, as ``inputs``)."""
        ports = self._outputs
        if type(ports) is not list:
            ports = self._outputs = _ports(ports)
        return ports

    @outputs.setter
    def outputs(self, ports: Iterable[Port]) -> None:
        self._outputs = ports if type(ports) is list else list(ports)

    def input_ids(self) -> list[int]:
        """The ids of the input ports, in order, without making Port objects."""
        ports = self._inputs
        return [p.id for p in ports] if type(ports) is list else list(ports[::PORT_WIDTH])

    def output_ids(self) -> list[int]:
        """The ids of the output ports, in order, without making Port objects."""
        ports = self._outputs
        return [p.id for p in ports] if type(ports) is list else list(ports[::PORT_WIDTH])

    def declared_outputs(self) -> tuple[int, tuple[str | None, ...], tuple[tuple[int, ...] | None, ...]]:
        """``(number of input ports, output precisions, output dims)``: what the ports declare, less their ids, names
        and lines, to key a layer's shape rule by, without making Port objects."""
        ins, outs = self._inputs, self._outputs
        n_inputs = len(ins) if type(ins) is list else len(ins) // PORT_WIDTH
        if type(outs) is list:
            return n_inputs, tuple([p.precision for p in outs]), tuple([p.dims for p in outs])  # (lists: no generator)
        return n_inputs, outs[1::PORT_WIDTH], outs[2::PORT_WIDTH]

    def input_record(self, port_id: int) -> PortRecord | None:
        """The first input port with this id as a ``PortRecord``, without making Port objects; None if none."""
        return _record(self._inputs, port_id)

    def output_record(self, port_id: int) -> PortRecord | None:
        """The first output port with this id as a ``PortRecord``, without making Port objects; None if none."""
        return _record(self._outputs, port_id)

    def input_records(self) -> list[PortRecord]:
        """The input ports as ``PortRecord`` tuples (``extra`` may be None), without making Port objects."""
        return _records(self._inputs)

    def output_records(self) -> list[PortRecord]:
        """The output ports as ``PortRecord`` tuples (``extra`` may be None), without making Port objects."""
        return _records(self._outputs)

    def set_port_records(self, inputs: PortFields | None = None, outputs: PortFields | None = None) -> None:
        """Give the layer the input and/or output ports in ``PortFields`` form, without making Port objects (the
        reader's way: a Port list is made only when something asks for one)."""
        if inputs is not None:
            self._inputs = inputs
        if outputs is not None:
            self._outputs = outputs

    def repeats_a_port_id(self) -> bool:
        """True if two of the layer's ports (inputs and outputs together) share an id."""
        ins, outs = self._inputs, self._outputs
        if type(ins) is list or type(outs) is list:
            ids = self.input_ids() + self.output_ids()
            return len(set(ids)) != len(ids)
        if len(ins) + len(outs) <= PORT_WIDTH:  # one port at most
            return False
        ids = ins[::PORT_WIDTH] + outs[::PORT_WIDTH]
        return (len(ids) > 2 or ids[0] == ids[1]) and len(set(ids)) != len(ids)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in _LAYER_FIELDS)

    def __repr__(self) -> str:
        return f"Layer({', '.join(f'{f}={getattr(self, f)!r}' for f in _LAYER_FIELDS)})"

    @property
    def kind(self) -> str:
        """``AvgPool@opset14`` style label used in histograms."""
        return f"{self.type}@{self.version}" if self.version else self.type

    @property
    def loc(self) -> SourceLoc:
        """Where the layer is: its file, line, id, name and kind, as errors and diagnostics locate it."""
        return SourceLoc(self.file, self.line, self.id, self.name, self.kind)

    def port_loc(self, port: Port) -> SourceLoc:
        """Where ``port`` of this layer is: its own line (else the layer's)."""
        return self.line_loc(port.line)

    def line_loc(self, line: int | None) -> SourceLoc:
        """The layer at ``line`` (one of its ports'), else at its own line."""
        return SourceLoc(self.file, line or self.line, self.id, self.name, self.kind)

    def input(self, port_id: int) -> Port | None:
        """The input port of id ``port_id``, or None."""
        for p in self.inputs:
            if p.id == port_id:
                return p
        return None

    def output(self, port_id: int) -> Port | None:
        """The output port of id ``port_id``, or None."""
        for p in self.outputs:
            if p.id == port_id:
                return p
        return None

    def port(self, port_id: int) -> Port | None:
        """The input or output port of id ``port_id`` (ids are unique per layer), or None."""
        found = self.input(port_id)
        return self.output(port_id) if found is None else found

    def is_a(self, op_type: str) -> bool:
        """True if OpenVINO reads this layer's type as ``op_type``, spelled as a look-up may spell it ("Relu" is
        ReLU; one spelling rule: ``ops.opsets.type_query``)."""
        return reads_as(self._type, op_type)

    def misfit(self) -> str | None:
        """What field of the layer holds a value the IR cannot hold, in words (a caller's edit: an attribute set to
        an int, a port's names to a list), else None. Every check and the writer look here first: such a value made
        them fail inside, or was written as OpenVINO cannot read it (``auto_broadcast="1"``). A read layer's ports are
        records of the reader's own making, not looked at."""
        if self._fields_fit():
            ins, outs = self._inputs, self._outputs
            if (type(ins) is not list or all(map(_port_fits, ins))) and \
                    (type(outs) is not list or all(map(_port_fits, outs))):
                return None
        for what, value, kind in (("id", self.id, str), ("name", self.name, str), ("type", self._type, str),
                                  ("version", self.version, str | None)):
            if not isinstance(value, kind):
                return f"its {what} is {_shown(value)}, not a string{' or None' if what == 'version' else ''}"
        for what, texts in (("attrs", self.attrs), ("extra", self._extra or {})):
            found = _not_texts(texts)
            if found is not None:
                return (f"its {what} {found} (layer.attrs and layer.extra hold the IR's strings, as it writes them: "
                        "'numpy', '1,2'; GraphBuilder.attrs makes them from typed values)")
        for what, nodes in (("rt_info", self.rt_info), ("children", self.children)):
            if not (isinstance(nodes, tuple) and all(isinstance(n, RtNode) for n in nodes)):
                return f"its {what} is {_shown(nodes)}, not a tuple of RtNode"
        if self.data is not None and not isinstance(self.data, bytes | memoryview):
            return (f"its data is {_shown(self.data)}, not bytes (a Const's payload: value.tobytes(), or "
                    "GraphBuilder.const)")
        for side, ports in (("input", self._inputs), ("output", self._outputs)):
            if type(ports) is list:  # (records are the reader's)
                for port in ports:
                    found = _port_misfit(port)
                    if found is not None:
                        return f"{side} {found}"
        return None

    def _fields_fit(self) -> bool:
        """Whether every field but the ports is of its type, by a few comparisons (``misfit`` is asked of every layer
        by every check; it says what is wrong only where something is)."""
        attrs, extra, rt_info, children, data = self.attrs, self._extra, self.rt_info, self.children, self.data
        return (type(self.id) is str and type(self.name) is str and type(self._type) is str
                and (self.version is None or type(self.version) is str)
                and type(attrs) is dict and _STR.issuperset(map(type, attrs.values()))
                and _STR.issuperset(map(type, attrs))
                and (extra is None or (type(extra) is dict and _STR.issuperset(map(type, extra.values()))
                                       and _STR.issuperset(map(type, extra))))
                and type(rt_info) is tuple and (not rt_info or _NODE.issuperset(map(type, rt_info)))
                and type(children) is tuple and (not children or _NODE.issuperset(map(type, children)))
                and (data is None or type(data) is bytes or type(data) is memoryview))


#: The types ``Layer._fields_fit`` and ``_port_fits`` accept (a subclass, numpy's int: looked at by ``misfit`` itself).
_STR, _NODE, _INT = frozenset({str}), frozenset({RtNode}), frozenset({int})


def _port_fits(port: Port) -> bool:
    """Whether every field of a Port is of its type, by a few comparisons (``_port_misfit`` says what is not)."""
    dims, extra, rt_info = port.dims, port.extra, port.rt_info
    return (type(port) is Port and type(port.id) is int and (port.precision is None or type(port.precision) is str)
            and (dims is None or (type(dims) is tuple and _INT.issuperset(map(type, dims))))
            and (port.names is None or type(port.names) is str)
            and type(extra) is dict and _STR.issuperset(map(type, extra.values())) and _STR.issuperset(map(type, extra))
            and type(rt_info) is tuple and (not rt_info or _NODE.issuperset(map(type, rt_info))))



def _shown(value: object) -> str:
    """``[1, 4] (a list)``: a value and its type, as a misfit names them."""
    kind = type(value).__name__
    return f"{value!r} ({'an' if kind[0] in 'aeiou' else 'a'} {kind})"


def _not_texts(texts: object) -> str | None:
    """What in ``texts`` is no string (or ``texts`` no dict of them), in words (``are ...``, ``'axis' is ...``);
    None if all are."""
    if not isinstance(texts, dict):
        return f"are {_shown(texts)}, not a dict"
    for key, value in texts.items():
        if not isinstance(key, str):
            return f"name {_shown(key)} is not a string"
        if not isinstance(value, str):
            return f"{key!r} is {_shown(value)}, not a string"
    return None


def _port_misfit(port: object) -> str | None:
    """What field of a Port holds what the IR cannot (``Layer.misfit``), in words; None if none."""
    if not isinstance(port, Port):
        return f"port {_shown(port)}: a layer's ports are Port objects"
    if not _is_int(port.id):
        return f"port {port.id!r}: its id is {_shown(port.id)}, not an int"
    where = f"port {port.id}"
    if not isinstance(port.precision, str | None):
        return f"{where}: its precision is {_shown(port.precision)}, not a string ('f32', 'FP32') or None"
    if port.dims is not None and not (isinstance(port.dims, tuple) and all(_is_int(d) for d in port.dims)):
        return (f"{where}: its dims are {_shown(port.dims)}, not a tuple of ints (-1 a dynamic dim) or None (a "
                "dynamic rank)")
    if not isinstance(port.names, str | None):
        return (f"{where}: its names are {_shown(port.names)}, not a string or None (the tensor's names in one "
                "string, comma separated, as the IR writes them; a model's input or output: rename_input, "
                "rename_output)")
    found = _not_texts(port.extra)
    if found is not None:
        return f"{where}: its extra {found}"
    if not (isinstance(port.rt_info, tuple) and all(isinstance(n, RtNode) for n in port.rt_info)):
        return f"{where}: its rt_info is {_shown(port.rt_info)}, not a tuple of RtNode"
    return None


def _is_int(value: object) -> bool:
    """An int (numpy's too), not a bool: what a port id or a dim is."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


class Edge(NamedTuple):
    """One ``<edge>``: an output port feeding an input port. A tuple, so it compares equal to a plain
    ``(from_layer, from_port, to_layer, to_port, line)`` tuple; the graph stores edges as plain tuples
    (which the cyclic GC stops tracking) and hands out Edges."""

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
        self._view: memoryview | None = None  # of the whole map: ``read`` slices it
        self._size: int | None = None

    @property
    def exists(self) -> bool:
        return self._map is not None or self.path.is_file()

    @property
    def mapped(self) -> bool:
        """Whether the file is mapped already (its contents kept, whatever became of the file)."""
        return self._map is not None

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
            self._view = memoryview(self._map)

    def read(self, offset: int, size: int) -> memoryview:
        if offset < 0 or size < 0 or offset + size > self.size:
            raise ReadError(f"bytes [{offset}, {offset + size}) lie outside {self.path.name} ({self.size} bytes)")
        if size == 0:
            return memoryview(b"")
        if self._view is None:
            self.map()
        return self._view[offset : offset + size]


#: An edge as the graph stores it: ``(from_layer, from_port, to_layer, to_port, line)``.
_Link = tuple[str, int, str, int, "int | None"]
#: The edges of one layer's ``_in``/``_out`` slot: up to this many are kept in a tuple (which the GC
#: does not track), more in a list (so that adding one is not a copy of them all).
_SMALL = 16


def _slot_links(slot: _Link | tuple[_Link, ...] | list[_Link] | None) -> tuple[_Link, ...] | list[_Link]:
    """The links of one ``_in``/``_out`` slot: absent, one link, or a tuple or list of two or more."""
    if slot is None:
        return ()
    return (slot,) if type(slot[0]) is str else slot



class GraphMisuseError(IrToolsError, ValueError):
    """A call on a Graph that names what the graph does not hold (a layer, an edge, an output) or adds what it holds
    already (E-USAGE: the caller's mistake, not the model's; inside a pass, the pass's bug, named at its line). An
    IrToolsError as every refusal of ir_tools is, and still the ValueError these calls raised before."""

    code = "E-USAGE"


class UnknownLayerError(GraphMisuseError, KeyError):
    """A layer id the graph does not hold, and still the KeyError (``Graph.layer``) it raised before. ``what``: the call
    that named it (``edge 0:0 -> 9:0``), said before the id."""

    def __init__(self, graph: Graph, layer_id: object, what: str = ""):
        if isinstance(layer_id, Layer):
            found = f"takes a layer id (a string) here, not a Layer: layer '{layer_id.name}' has id {layer_id.id!r}"
        else:
            near = did_you_mean(str(layer_id), graph._layers) if isinstance(layer_id, str) else \
                f" (ids are strings: '{layer_id}')" if str(layer_id) in graph._layers else ""
            found = f"has no layer of id {layer_id!r}{near}"
        super().__init__(f"{what}{': ' if what else ''}graph '{graph.name}' {found}")


class Graph:
    """An IR network: layers keyed by id (in insertion order), edges between their ports.

    Storage is flat and built for large models: ``_layers`` maps ids to layers; ``_in`` and ``_out``
    map a layer id to the edges into / out of it, each edge a plain tuple (``_Link``): one link alone,
    or a tuple (a list past ``_SMALL``) of two or more, grouped by the layer at the other end (groups
    in the order their first edge was added, edges within a group in the order added). That is the
    order a networkx MultiDiGraph keeps (``_nx`` builds one for a cycle search), and the order
    ``edges()``, ``producers()`` and ``consumers()`` list edges in. Tuples of strings and ints (and
    str -> str dicts) are not tracked by the cyclic GC once it has seen them, so edges add no tracked
    objects: what a read model leaves tracked is its Layers, Ports and port lists, and collections stay
    cheap. networkx is imported only to name the layers along a cycle, in a graph that has one.
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
        self._layers: dict[str, Layer] = {}
        self._in: dict[str, _Link | tuple[_Link, ...] | list[_Link]] = {}  # to_layer -> edges into it
        self._out: dict[str, _Link | tuple[_Link, ...] | list[_Link]] = {}  # from_layer -> edges out of it
        self._next_id = 0  # above every numeric id: new ids in O(1)
        self._free_id = 0  # where the search for a free id goes on once _next_id is past int64
        self._forward: bool | None = True  # every edge points forward in layer order (None: not known)
        self._order: list[str] | None = None  # ``_sorted``'s answer on an acyclic graph, until a layer or edge changes
        self._spellings: dict[str, list[Layer]] | None = None  # ``_typing``'s answer, kept up to date (``_indexed``)
        self._spelled_at = -1  # ``_RETYPED`` when ``_spellings`` was made (a type changed since: made again)
        self._keyed: dict[str, list[str]] | None = None  # ``type_key`` -> its spellings in ``_spellings`` (``by_type``)
        # ids of the layers added, removed, ``touch``ed or fed otherwise (an edge into them added or removed), in order
        self.changes: list[str] = []

    # -- layers -------------------------------------------------------------------------------
    def add_layer(self, layer: Layer) -> Layer:
        """Add ``layer`` (a Layer whose id, a string, is unused: GraphMisuseError otherwise; ``new_id`` gives one)
        unconnected; returns it. ``GraphBuilder.add`` builds one with its ports and edges."""
        if not isinstance(layer, Layer) or not isinstance(layer.id, str):
            found = f"a Layer of id {layer.id!r}" if isinstance(layer, Layer) else f"a {type(layer).__name__}"
            raise GraphMisuseError(f"add_layer takes a Layer whose id is a string (as the IR writes ids: "
                                   f"Graph.new_id() gives a free one), not {found}")
        lid = layer.id
        if lid in self._layers:
            raise GraphMisuseError(f"add_layer: duplicate layer id {lid}: graph '{self.name}' has layer "
                                   f"'{self._layers[lid].name}' of that id already (Graph.new_id() gives a free one)")
        self._layers[lid] = layer
        self._order = None
        self._indexed(layer, True)
        self.changes.append(lid)
        if lid.isdigit() and lid.isascii():
            n = int(lid)
            if n >= self._next_id:
                self._next_id = n + 1
        return layer

    def remove_layer(self, layer_id: str) -> None:
        """Remove a layer and every edge into or out of it; UnknownLayerError for an id the graph does not hold."""
        if not isinstance(layer_id, str) or layer_id not in self._layers:
            raise UnknownLayerError(self, layer_id)
        links = dict.fromkeys((*_slot_links(self._in.get(layer_id)), *_slot_links(self._out.get(layer_id))))
        for link in links:  # a self-loop is in both
            self._unlink(link)
        self._indexed(self._layers.pop(layer_id), False)
        self._order = None
        self.changes.append(layer_id)

    def add_read_layer(self, layer: Layer, number: int) -> Layer:
        """``add_layer`` for the reader, whose ids are checked already (``number`` is the id as an int, -1 if it is
        not one): returns the layer that holds the id, ``layer`` itself unless the id was taken."""
        first = self._layers.setdefault(layer.id, layer)
        self._order = self._spellings = None
        if first is layer and number >= self._next_id:
            self._next_id = number + 1
        return first

    def touch(self, *layer_ids: str) -> None:
        """Record that these layers changed in place (type, version, attributes, ports, payload), as adding and
        removing layers and the edges into them is recorded: ``changes`` then tells a later check what to look at
        again (a pass that sets ``records_changes`` touches every layer it edits)."""
        self.changes.extend(layer_ids)

    def own(self, layer: Layer) -> Layer:
        """``layer`` if the graph holds it (or a layer equal to it, a copy's); IrToolsError (E-PASS) for another
        graph's Layer (a body's from ``bodies``, another model's) or one removed since, whose id would otherwise name
        another layer of this graph, or none: what is built on it would be wired to that layer, silently.
        GraphMisuseError for what is no Layer (an id: ``layer(id)`` gives its Layer)."""
        if not isinstance(layer, Layer):
            raise GraphMisuseError(f"expected a Layer, not {_shown(layer)}"
                                   f"{': graph.layer(id) gives the Layer of an id' if isinstance(layer, str) else ''}")
        held = self._layers.get(layer.id)
        if held is not layer and held != layer:
            here = f"its id names layer '{held.name}' here" if held is not None else "no layer here has its id"
            raise IrToolsError(f"layer '{layer.name}' (id {layer.id}) is not a layer of graph '{self.name}' ({here}): "
                               "another graph's (a body's, another model's), or removed from this one", code="E-PASS")
        return layer

    def has_layer(self, layer_id: str) -> bool:
        """Whether a layer of id ``layer_id`` is in the graph."""
        return layer_id in self._layers

    def layer(self, layer_id: str) -> Layer:
        """The layer of id ``layer_id`` (ids are strings, as the IR writes them); UnknownLayerError for an id the
        graph does not hold."""
        try:
            return self._layers[layer_id]
        except (KeyError, TypeError):  # (TypeError: a Layer, which is unhashable)
            raise UnknownLayerError(self, layer_id) from None

    def layers(self) -> Iterator[Layer]:
        """Layers in insertion (file) order."""
        return iter(self._layers.values())

    def __len__(self) -> int:
        return len(self._layers)

    def by_type(self, *types: str) -> list[Layer]:
        """Layers OpenVINO reads as one of ``types``, in layer order. A type is spelled in any case, as OpenVINO reads
        types ("Relu" is ReLU; an op ir_tools does not model, as written), Const aside; IrToolsError (E-USAGE) for
        "Constant", OpenVINO's Python name, which no layer has (one spelling rule: ``ops.opsets.type_query``). Of this
        graph's top level: a TensorIterator's, Loop's or If's body is a graph of its own (``ir_tools.bodies``).
        GraphMisuseError for a type that is no string (``of_types`` takes a list)."""
        for t in types:
            if not isinstance(t, str):
                raise GraphMisuseError(f"by_type takes types, each a string (by_type('Add', 'Subtract'); of_types "
                                       f"takes a list of them), not {_shown(t)}")
        spellings = self._typing()
        keyed = self._keyed
        if keyed is None:  # (each spelling's ``type_key`` once per index: a look-up is then one per type asked)
            keyed = self._keyed = {}
            for spelling in spellings:
                keyed.setdefault(type_key(spelling), []).append(spelling)
        return self._typed([spelling for key in dict.fromkeys(type_query(t) for t in types)
                            for spelling in keyed.get(key, ())])

    def of_types(self, types: Iterable[str]) -> list[Layer]:
        """``by_type`` of the types ``types`` holds."""
        return self.by_type(*types)

    def _typing(self) -> dict[str, list[Layer]]:
        """Each type spelling the graph holds -> its layers, in layer order: each of the twenty passes of a migration
        asks for a few types, which one index answers rather than a scan of every layer per pass. A layer added or
        removed updates it (``_indexed``); made again once any layer's type is changed in place (``Layer.type``'s
        setter counts), or the reader added layers."""
        if self._spellings is None or self._spelled_at != _RETYPED:
            self._spellings, self._spelled_at, self._keyed = {}, _RETYPED, None
            for layer in self._layers.values():
                self._spellings.setdefault(layer.type, []).append(layer)
        return self._spellings

    def _indexed(self, layer: Layer, added: bool) -> None:
        """Keep the index of types (``_typing``) up to date with ``layer`` added (at the end of the layer order) or
        removed, rather than made again at the next look-up: each pass of a migration that changes the graph would
        otherwise cost the next one a scan of every layer. A removal from a long list (say a Const's) drops the
        index instead (found by identity, a removal costs a scan of its list)."""
        spellings = self._spellings
        if spellings is None:
            return
        same = spellings.get(layer.type)
        if self._spelled_at != _RETYPED or (not added and (same is None or len(same) > _INDEXED_REMOVAL)):
            self._spellings = None
        elif added:
            if same is None:
                spellings[layer.type] = [layer]
                self._keyed = None
            else:
                same.append(layer)
        else:
            for i, other in enumerate(same):
                if other is layer:
                    del same[i]
                    break

    def _typed(self, spellings: list[str]) -> list[Layer]:
        """The layers of these type spellings (keys of ``_typing``), in layer order."""
        if len(spellings) <= 1:
            return list(self._typing()[spellings[0]]) if spellings else []
        wanted = set(spellings)
        return [layer for layer in self._layers.values() if layer.type in wanted]

    def misfits(self, layer_ids: Iterable[str] | None = None) -> list[tuple[Layer, str]]:
        """Each layer (of ``layer_ids``, those the graph holds; else every one) whose fields hold what the IR cannot
        (``Layer.misfit``), with what."""
        layers = self._layers.values() if layer_ids is None else \
            [self._layers[lid] for lid in layer_ids if lid in self._layers]
        return [(layer, found) for layer in layers if (found := layer.misfit()) is not None]

    def parameters(self) -> list[Layer]:
        """The Parameter layers (the model's inputs), in layer order."""
        return self.by_type("Parameter")

    def results(self) -> list[Layer]:
        """The Result layers (the model's outputs), in layer order."""
        return self.by_type("Result")

    def new_id(self) -> str:
        """A fresh numeric layer id: above every numeric id the graph has had, else (past int64, which OpenVINO
        reads ids as) a free one, sought upward from 0."""
        if self._next_id <= INT64_MAX:
            return str(self._next_id)
        while str(self._free_id) in self._layers:
            self._free_id += 1
        return str(self._free_id)

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
        """Connect two layers of the graph; an edge between the same two ports is replaced (keeping its place).
        GraphMisuseError for what is no ``Edge`` (layer ids strings, port ids ints) or names a layer the graph does
        not hold; ports the layers lack are ``check``'s to report (E-EDGE-PORT), as in a file."""
        link = _edge_link(edge)
        for lid in (link[0], link[2]):
            if lid not in self._layers:
                raise UnknownLayerError(self, lid, f"edge {_link_text(link)}")
        old = self._link(link)
        if old is not None:
            _replace(self._in, link[2], old, link)
            _replace(self._out, link[0], old, link)
        self.changes.append(link[2])

    def remove_edge(self, edge: Edge) -> None:
        """Remove the edge between the same two ports as ``edge`` (its line does not matter); GraphMisuseError if the
        graph has none, naming the edges into that port."""
        link = _edge_link(edge)
        found = self._find(link[0], link[1], link[2], link[3])
        if found is None:
            into = [_link_text(other) for other in self.producers(link[2], link[3])] if link[2] in self._layers else []
            raise GraphMisuseError(f"remove_edge: graph '{self.name}' has no edge {_link_text(link)} (the edges into "
                                   f"{link[2]}:{link[3]}: {', '.join(into) or 'none'})")
        self._unlink(found)

    def edges(self) -> list[Edge]:
        """Every edge: by source layer in layer order, then as ``out_edges`` lists them."""
        return [Edge._make(link) for link in self.links()]

    def in_edges(self, layer_id: str) -> list[Edge]:
        """Edges into a layer: grouped by source layer (in the order each was first connected), then as added."""
        return [Edge._make(link) for link in _slot_links(self._slot(self._in, layer_id))]

    def out_edges(self, layer_id: str) -> list[Edge]:
        """Edges out of a layer: grouped by target layer (in the order each was first connected), then as added."""
        return [Edge._make(link) for link in _slot_links(self._slot(self._out, layer_id))]

    def _slot(self, index: dict, layer_id: str) -> _Link | tuple[_Link, ...] | list[_Link] | None:
        """``index``'s slot of ``layer_id`` (None if no edge); UnknownLayerError for a Layer given for its id (a
        TypeError inside: a Layer is unhashable)."""
        try:
            return index.get(layer_id)
        except TypeError:
            raise UnknownLayerError(self, layer_id) from None

    def out_links(self, layer_id: str) -> tuple[_Link, ...] | list[_Link]:
        """The edges out of a layer as plain tuples (see ``links``), in ``out_edges`` order."""
        return _slot_links(self._out.get(layer_id))

    def in_links(self, layer_id: str) -> tuple[_Link, ...] | list[_Link]:
        """The edges into a layer as plain tuples (see ``links``), in ``in_edges`` order."""
        return _slot_links(self._in.get(layer_id))

    def producers(self, layer_id: str, port_id: int) -> list[Edge]:
        """Edges feeding one input port (normally exactly one), in ``in_edges`` order."""
        slot = self._slot(self._in, layer_id)
        if slot is None:
            return []
        if type(slot[0]) is str:
            return [Edge._make(slot)] if slot[3] == port_id else []
        return [Edge._make(link) for link in slot if link[3] == port_id]

    def consumers(self, layer_id: str, port_id: int) -> list[Edge]:
        """Edges reading one output port, in ``out_edges`` order."""
        slot = self._slot(self._out, layer_id)
        if slot is None:
            return []
        if type(slot[0]) is str:
            return [Edge._make(slot)] if slot[1] == port_id else []
        return [Edge._make(link) for link in slot if link[1] == port_id]

    def output_read(self, layer: Layer, index: int) -> bool:
        """Whether ``layer``'s output ``index`` (by position, as OpenVINO counts a layer's output ports) is declared
        and read: a layer may declare fewer outputs than its op has, the first ones, and OpenVINO reads it so."""
        return len(layer.outputs) > index and bool(self.consumers(layer.id, layer.outputs[index].id))

    def producer_key(self, layer_id: str, port_id: int) -> tuple[str, int] | None:
        """``(from_layer, from_port)`` of the one edge feeding an input port; None if none or several do."""
        slot = self._in.get(layer_id)
        if slot is None:
            return None
        if type(slot[0]) is str:
            return (slot[0], slot[1]) if slot[3] == port_id else None
        found = None
        for link in slot:
            if link[3] == port_id:
                if found is not None:
                    return None
                found = link
        return None if found is None else (found[0], found[1])

    def input_keys(self, layer_id: str, port_ids: list[int]) -> list[tuple[str, int] | None]:
        """``producer_key`` of each of a layer's input ports, in one call (the walker asks for every layer)."""
        slot = self._in.get(layer_id)
        if slot is None:
            return [None] * len(port_ids)
        if type(slot[0]) is str:  # one edge into the layer
            return [(slot[0], slot[1]) if pid == slot[3] else None for pid in port_ids]
        found: dict[int, tuple[str, int] | None] = {}  # (one pass over the edges, not one per port)
        for link in slot:
            found[link[3]] = None if link[3] in found else (link[0], link[1])
        return [found.get(pid) for pid in port_ids]

    def link_read(self, links: Iterable[_Link]) -> Iterator[tuple[_Link, str | _Link]]:
        """Connect the edges the reader read, in file order: ``add_edge`` for many, inlined for a port's first edge.
        Yields each edge left out with why: the id of a layer it names that does not exist, or the edge it repeats."""
        layers, ins, outs = self._layers, self._in, self._out
        forward = True  # every edge goes to a later line (so to a later layer): no cycle, no sort to do
        for item in links:
            from_layer, to_layer, line = item[0], item[2], item[4]
            src, dst = layers.get(from_layer), layers.get(to_layer)
            if src is None or dst is None:
                yield item, from_layer if src is None else to_layer
                continue
            link = (src.id, item[1], dst.id, item[3], line)  # the layers' own id strings: one per layer
            slot = ins.get(to_layer)
            if slot is None:
                ins[to_layer] = link
            elif type(slot[0]) is str and not (slot[3] == link[3] and slot[1] == link[1] and slot[0] == link[0]):
                ins[to_layer] = (slot, link)  # a layer's second edge in (where _insert would add it)
            else:
                other = _insert(ins, to_layer, link, 0, link)
                if other is not None:
                    yield item, other
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
        self._forward = True if forward else None
        self._order = None

    def producer(self, layer_id: str, port_id: int) -> tuple[Layer, Port] | None:
        """The layer and output port that feed an input port, if exactly one does."""
        key = self.producer_key(layer_id, port_id)
        if key is None:
            return None
        src = self._layers[key[0]]
        port = src.output(key[1])
        return None if port is None else (src, port)

    def output_port(self, out: Layer | tuple[str, int]) -> tuple[tuple[str, int], Port]:
        """``(layer id, output port id)`` of an output and its Port (a Layer, the graph's own, stands for its first
        output); GraphMisuseError for anything else, a layer the graph does not hold or a port its layer lacks."""
        if isinstance(out, Layer):
            self.own(out)
            if not out.outputs:
                raise GraphMisuseError(f"layer '{out.name}' (id {out.id}, {out.type}) has no output")
            return (out.id, out.outputs[0].id), out.outputs[0]
        if not (isinstance(out, tuple) and len(out) == 2 and isinstance(out[0], str) and _is_int(out[1])):
            raise GraphMisuseError(f"an output is a Layer or (layer id, output port id), not {out!r}")
        layer = self._layers.get(out[0])
        if layer is None:
            raise UnknownLayerError(self, out[0], f"output {out!r}")
        port = layer.output(out[1])
        if port is None:
            raise GraphMisuseError(f"output {out!r}: layer '{layer.name}' (id {layer.id}, {layer.type}) has no output "
                                   f"port {out[1]} (its outputs: {layer.output_ids()})")
        return out, port

    def redirect_consumers(self, old: Layer | tuple[str, int], new: Layer | tuple[str, int],
                           keep: str | None = None) -> None:
        """Make every consumer of output ``old`` read output ``new`` instead, but layer ``keep``. GraphMisuseError,
        the graph untouched, for an output the graph does not have (``output_port``)."""
        old, new = self.output_port(old)[0], self.output_port(new)[0]
        for e in self.consumers(*old):
            if e.to_layer != keep:
                self.remove_edge(e)
                self.add_edge(Edge(new[0], new[1], e.to_layer, e.to_port))

    def replace_all_uses(self, old: Layer | tuple[str, int], new: Layer | tuple[str, int]) -> None:
        """Make every consumer of output ``old`` read ``new`` instead (a Layer means its first output).

        The tensor names of ``old`` move to ``new``, beside its own (as OpenVINO's ``Output.replace`` adds them), so
        that a model output keeps its name when its producer is replaced or removed (in IR v10, whose outputs are
        named by the tensor feeding them; in v11 by the Result's ``output_names`` too); but a Parameter's stay: they
        name the model's input, which a layer inserted after it must not take (OpenVINO's
        ``replace_output_update_name`` keeps them on the Parameter too), and a Parameter with names of its own takes
        none. ``old``'s layer stays in the graph (``remove_dead`` drops it). ``new``'s own layer keeps reading
        ``old`` (a layer inserted after ``old``, fed by it, takes its uses, not a loop onto itself). GraphMisuseError
        (E-USAGE), the graph untouched, for an output the graph does not have (``output_port``).
        """
        old, old_port = self.output_port(old)
        new, new_port = self.output_port(new)
        if old_port.names and not self._layers[old[0]].is_a("Parameter") and (
                not new_port.names or not self._layers[new[0]].is_a("Parameter")):
            new_port.names = f"{new_port.names},{old_port.names}" if new_port.names else old_port.names
            old_port.names = None
        self.redirect_consumers(old, new, keep=new[0])

    def live_layers(self) -> set[str]:
        """Ids of the layers a Result or a state write (Assign, a sink in OpenVINO's model) depends on."""
        sinks = [*self.by_type("Result"), *self._typing().get("Assign", ())]  # (the index of types: no scan)
        return self.ancestors(layer.id for layer in sinks)

    def remove_dead(self) -> int:
        """Remove every layer nothing live depends on (``live_layers``), except the model's inputs
        (Parameters), which are part of its interface; returns how many were removed."""
        kept = self.live_layers().union(layer.id for layer in self.parameters())
        dead = [lid for lid in self._layers if lid not in kept]
        for lid in dead:
            self.remove_layer(lid)
        return len(dead)

    def links(self) -> list[_Link]:
        """Every edge as the graph stores it, a plain ``(from_layer, from_port, to_layer, to_port, line)`` tuple, in
        ``edges()`` order: for code that visits every edge and reports on few (no Edge object per edge)."""
        out = self._out
        links: list[_Link] = []
        for lid in self._layers:
            slot = out.get(lid)
            if slot is not None:
                if type(slot[0]) is str:
                    links.append(slot)
                else:
                    links.extend(slot)
        return links

    def _find(self, from_layer: str, from_port: int, to_layer: str, to_port: int) -> _Link | None:
        for link in _slot_links(self._in.get(to_layer)):
            if link[0] == from_layer and link[1] == from_port and link[3] == to_port:
                return link
        return None

    def _link(self, link: _Link) -> _Link | None:
        """Store ``link`` (its layers exist); returns, without storing it, one between the same ports if any."""
        old = _insert(self._in, link[2], link, 0, link)
        if old is not None:
            return old
        _insert(self._out, link[0], link, 2, None)
        self._order = None
        if self._forward:
            self._forward = False if link[0] == link[2] else None
        return None

    def _unlink(self, link: _Link) -> None:
        _remove(self._in, link[2], link)
        _remove(self._out, link[0], link)
        self._order = None
        self.changes.append(link[2])
        if self._forward is False:
            self._forward = None

    # -- algorithms ---------------------------------------------------------------------------
    def find_cycle(self) -> list[str] | None:
        """Layer ids along one cycle, or None if the graph is acyclic."""
        if self._points_forward() or self._sorted() is not None:
            return None
        import networkx as nx

        try:
            return [u for u, _, _ in nx.find_cycle(self._nx())]
        except nx.NetworkXNoCycle:
            return None

    def topological_order(self) -> list[Layer]:
        """Layers in an order where producers come first; ties keep file order. IrToolsError (E-CYCLE) on a cycle,
        which ``check`` reports with its layers.

        When every edge already points forward in file order (as in files OpenVINO writes), the
        sort would return file order itself, so that is returned without sorting.
        """
        if self._points_forward():
            return list(self._layers.values())
        order = self._sorted()
        if order is None:
            raise IrToolsError("the graph has a cycle (`ir-tools check` names its layers)",
                               SourceLoc(str(self.source) if self.source else None), code="E-CYCLE")
        return [self._layers[i] for i in order]

    def _sorted(self) -> list[str] | None:
        """Kahn's sort, the next layer always the earliest ready one in file order; None on a cycle. (Sorting
        here, not in networkx, spares importing networkx for a graph whose edges do not all point forward,
        as a spliced one.) Remembered until a layer or an edge is added or removed: a pass's gates, its shape
        re-inference and the walks after it sort a spliced graph once. Layers are handled by position in file
        order, so that the ready ones are a heap of ints."""
        if self._order is not None:
            return self._order
        ids = list(self._layers)
        position = {lid: i for i, lid in enumerate(ids)}
        waiting = [0] * len(ids)  # by position: the edges into a layer from layers not yet sorted
        for lid, slot in self._in.items():
            waiting[position[lid]] = 1 if type(slot[0]) is str else len(slot)
        ready = [i for i, n in enumerate(waiting) if n == 0]  # (ascending: a heap already)
        out = self._out
        order = []
        while ready:
            lid = ids[heapq.heappop(ready)]
            order.append(lid)
            slot = out.get(lid)
            if slot is None:
                continue
            for link in (slot,) if type(slot[0]) is str else slot:
                i = position[link[2]]
                waiting[i] -= 1
                if not waiting[i]:
                    heapq.heappush(ready, i)
        if len(order) != len(ids):
            return None
        self._order = order
        return order

    def _points_forward(self) -> bool:
        """True if every edge goes to a layer added later: then the graph is acyclic and file order is
        a topological order (then a large model needs neither a sort nor a cycle search). Remembered until
        an edge is added, or removed from a graph where one pointed backward."""
        if self._forward is None:
            position = {lid: i for i, lid in enumerate(self._layers)}
            self._forward = all(position[link[0]] < position[link[2]] for link in self.links())
        return self._forward

    def _nx(self):  # noqa: ANN202 (networkx is imported lazily)
        """The graph as a networkx MultiDiGraph (nodes in layer order, edges in ``edges()`` order)."""
        import networkx as nx

        g = nx.MultiDiGraph()
        g.add_nodes_from(self._layers)
        g.add_edges_from((u, v, (fp, tp)) for u, fp, v, tp, _ in self.links())
        return g

    def ancestors(self, layer_ids: Iterable[str]) -> set[str]:
        """The given layers and everything they depend on."""
        seen: set[str] = set()
        todo = []
        for lid in layer_ids:
            if lid not in seen:
                seen.add(lid)
                todo.append(lid)
        ins = self._in
        while todo:
            slot = ins.get(todo.pop())
            if slot is None:
                continue
            for link in ((slot,) if type(slot[0]) is str else slot):
                if link[0] not in seen:
                    seen.add(link[0])
                    todo.append(link[0])
        return seen


def require_graph(graph: object, call: str) -> Graph:
    """``graph`` if it is a Graph; IrToolsError (E-USAGE) naming ``call`` otherwise (a path, which failed inside: a
    call that changes a graph in place, or needs its own Layers, takes the Graph ``read_ir`` reads)."""
    if not isinstance(graph, Graph):
        raise IrToolsError(f"{call} takes a Graph (read_ir reads one from a file), not {type(graph).__name__}",
                           code="E-USAGE")
    return graph


def _insert(index: dict, key: str, link: _Link, group: int, same: _Link | None) -> _Link | None:
    """Add ``link`` to ``index[key]`` after the last link whose element ``group`` (the layer at the other
    end) is the same, else at the end. With ``same``, first look for a link between the same ports as
    it and return that one instead of adding."""
    slot = index.get(key)
    if slot is None:
        index[key] = link
        return None
    links = (slot,) if type(slot[0]) is str else slot
    if same is not None:
        for other in links:
            if other[3] == same[3] and other[1] == same[1] and other[0] == same[0] and other[2] == same[2]:
                return other
    end = link[group]
    at = len(links)
    for i in range(at - 1, -1, -1):
        if links[i][group] == end:
            at = i + 1
            break
    if type(links) is list:
        links.insert(at, link)
    else:
        links = (*links[:at], link, *links[at:])
        index[key] = links if len(links) <= _SMALL else list(links)
    return None


def _remove(index: dict, key: str, link: _Link) -> None:
    slot = index[key]
    if type(slot[0]) is str:
        del index[key]
        return
    if type(slot) is list:
        slot.remove(link)
    else:
        at = slot.index(link)
        slot = index[key] = slot[:at] + slot[at + 1 :]
    if len(slot) == 1:
        index[key] = slot[0]


def _replace(index: dict, key: str, old: _Link, new: _Link) -> None:
    slot = index[key]
    if type(slot[0]) is str:
        index[key] = new
    elif type(slot) is list:
        slot[slot.index(old)] = new
    else:
        at = slot.index(old)
        index[key] = (*slot[:at], new, *slot[at + 1 :])


def _link_text(link: tuple) -> str:
    return f"{link[0]}:{link[1]} -> {link[2]}:{link[3]}"


def _edge_link(edge: Edge | tuple) -> _Link:
    """``edge`` as the graph stores it; GraphMisuseError for what is no ``Edge(from_layer, from_port, to_layer,
    to_port)`` (the layer ids strings, the port ids ints), whose parts would otherwise be stored as they are."""
    if type(edge) is Edge and type(edge[0]) is str and type(edge[2]) is str and type(edge[1]) is int and \
            type(edge[3]) is int and (edge[4] is None or type(edge[4]) is int):
        return tuple(edge)  # (as the graph's own code makes them: told by a few comparisons)
    link = tuple(edge) if isinstance(edge, tuple) else ()
    if len(link) == 4:
        link = (*link, None)
    if not (len(link) == 5 and isinstance(link[0], str) and isinstance(link[2], str) and _is_int(link[1])
            and _is_int(link[3]) and (link[4] is None or _is_int(link[4]))):
        raise GraphMisuseError(f"an edge is Edge(from_layer, from_port, to_layer, to_port): layer ids strings, port "
                               f"ids ints; not {edge!r}")
    return (link[0], int(link[1]), link[2], int(link[3]), None if link[4] is None else int(link[4]))
