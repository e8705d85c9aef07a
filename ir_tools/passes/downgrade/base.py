"""What every downgrade shares: a pass that rewrites layers of newer op versions into older ones, exactly, and
says which op versions it rewrites (``check --target`` names it beside each layer a release cannot create), and
which layers of them a release computes wrongly (its measured defects, ``ops/releases.DEFECTS``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import ClassVar, TypeVar

import numpy as np

from ...base.dtypes import element_type
from ...ir.model import Edge, Graph, Layer
from ...ops.releases import Release, has_probed_values, op_label
from ..base import Pass, PassResult
from ..builder import GraphBuilder, Output, origin_of, origin_text, output_of, with_origin

T = TypeVar("T")


class Downgrade(Pass):
    """A rewrite into older op versions, of the layers ``target`` cannot create (every one without a target).
    ``rewrites``: op label -> what it becomes and when, as ``check --target`` prints it ("into MaxPool-8
    (ceil_torch on static spatial dims)"). ``repairs``: defect (a key of ``ops/releases.DEFECTS``) -> whether it hits
    a layer of those op versions: for a target with that defect, such a layer is rewritten too, though it creates
    it."""

    rewrites: ClassVar[dict[str, str]] = {}
    repairs: ClassVar[dict[str, Callable[[Graph, Layer], bool]]] = {}
    #: What the pass does to weights a target reads or computes otherwise (``unrepaired``), as ``check --target``
    #: says it ("repacks them"); empty for a pass that repairs none.
    repairs_weights: ClassVar[str] = ""
    #: Whether the pass rewrites inside bodies too (``passes/in_bodies``): one about the model's output names does not
    #: (``check --target`` asks those of the top level only).
    in_bodies: ClassVar[bool] = True
    records_changes = True
    #: The layer types of ``rewrites``' op versions, in lower case (a look-up of the graph's index of types).
    _types: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls._types = tuple(dict.fromkeys(label.rsplit("-", 1)[0].lower() for label in cls.rewrites))

    def __init__(self, target: Release | None = None) -> None:
        self.target = target  # None: every layer of those op versions; else only those the release cannot create

    def layers(self, graph: Graph) -> Iterator[Layer]:
        """The layers to rewrite, in file order (a snapshot: the pass may edit the graph). A layer's type, in any case,
        is its label's (``PRelu-1`` aside, whose type is PReLU): only layers of those types are asked for a label.
        Each is the pass's ``at`` while the caller rewrites it, so that a refusal names it; those it ``declines`` are
        left out."""
        created: dict[tuple[str, str], bool] = {}  # (type, version) -> created, whatever the attributes (most ops)
        ours: dict[tuple[str, str | None], bool] = {}  # (type, version) -> whether its label is one of ``rewrites``
        repairing = self.target is not None and not self.target.miscomputes.isdisjoint(self.repairs)
        for layer in graph.of_types(self._types):
            if not graph.has_layer(layer.id):  # (gone with a layer rewritten before it: ``drop_unused``)
                continue
            kind = (layer.type, layer.version)
            rewritten = ours.get(kind)
            if rewritten is None:
                rewritten = ours[kind] = op_label(*kind) in self.rewrites
            if rewritten and (self.target is None or not self._creates(layer, created)
                              or repairing and self.defect(graph, layer) is not None) \
                    and self.declines(graph, layer) is None:
                self.at = layer  # (a refusal while the caller rewrites it names it: ``Pass.applied``)
                yield layer
        self.at = None

    def decided(self, graph: Graph, decide: Callable[[Layer], T]) -> Iterator[tuple[Layer, T]]:
        """``layers``, all chosen before the caller rewrites any, each with what ``decide`` finds of it then: for a
        pass whose choice walks the whole graph (a rewrite changes the graph, and each layer asked after it would walk
        it again). Each is the pass's ``at`` while the caller rewrites it; one gone with a layer rewritten before it
        (``drop_unused``) is left out."""
        chosen = [(layer, decide(layer)) for layer in self.layers(graph)]
        for layer, found in chosen:
            if graph.has_layer(layer.id):
                self.at = layer
                yield layer, found
        self.at = None

    def replace_each(self, graph: Graph, build: Callable[[GraphBuilder, Layer], Output], label: str,
                     into: str) -> PassResult:
        """The whole ``apply`` of a pass that rewrites each of its ``layers`` alike: each replaced by the output
        ``build`` adds with the pass's builder (``GraphBuilder.replace_layer``, the new layers' origin the ``label``
        op version's), counted as ``label -> into``."""
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            builder.replace_layer(layer, lambda: [build(builder, layer)], origin_text(layer, label))  # noqa: B023
            stats[f"{label} -> {into}"] += 1
        return PassResult(graph, bool(stats), stats)

    def _creates(self, layer: Layer, created: dict[tuple[str, str], bool]) -> bool:
        """Whether the target creates ``layer``'s op version, remembered in ``created`` per type and version but for
        ops whose attribute values it may lack (``has_probed_values``)."""
        assert self.target is not None
        kind = (layer.type, layer.version or "")
        found = created.get(kind)
        if found is None:
            found = self.target.creates(*kind, layer.attrs)
            if not has_probed_values(*kind):
                created[kind] = found
        return found

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        """Why the pass leaves ``layer``, one of its op versions, as it is, in words (``check --target`` and
        ``migrate --target``'s refusal say it: "no rewrite applies to this layer: WHY"); None where it rewrites it
        (by default: a pass whose conditions its ``rewrites`` says). ``layers`` leaves them out, so that ``apply`` and
        the refusal cannot disagree."""
        return None

    def unrepaired(self, graph: Graph) -> Iterator[tuple[Layer, str]]:
        """The layers whose weights ``target`` reads or computes otherwise than the current OpenVINO, where this pass
        repairs them (its Consts, not its op versions), each with what the target does: ``check --target`` reports
        them, and ``retarget`` refuses one left. None by default."""
        return iter(())

    def defect(self, graph: Graph, layer: Layer) -> str | None:
        """The defect of the target (a key of ``ops/releases.DEFECTS``) that hits ``layer``, one of this pass's op
        versions; None without one (or without a target), and always for a target with none of ``repairs``' defects
        (``layers`` asks no layer then)."""
        if self.target is None or op_label(layer.type, layer.version) not in self.rewrites:
            return None
        miscomputes = self.target.miscomputes
        for key, hits in self.repairs.items():
            if key in miscomputes and hits(graph, layer):
                return key
        return None


def source(graph: Graph, layer: Layer, index: int) -> Output:
    """The output feeding ``layer``'s input ``index`` (the gate before a pass: every input is fed)."""
    key = graph.producer_key(layer.id, layer.input_ids()[index])
    assert key is not None
    return key


def const_input(graph: Graph, layer: Layer, index: int) -> np.ndarray | None:
    """The value feeding ``layer``'s input ``index`` where a Const feeds it (what a rewrite builds its constants
    from), else None."""
    producer = graph.layer(source(graph, layer, index)[0])
    return graph.const_array(producer) if producer.is_a("Const") else None


def numpy_dtype(builder: GraphBuilder, out: Output, default: str = "") -> np.dtype:
    """The numpy type of what ``out`` carries (``default`` where its element type is not known)."""
    return np.dtype(element_type(builder.type_of(out).element or default).numpy)


def respelled(graph: Graph, layer: Layer, version: str) -> None:
    """Give ``layer`` another op version in place (the caller sets its attributes), recording the version it had as a
    layer built in a rewritten one's place does (``ir_tools_origin``; the first kept, where a layer is rewritten
    twice: MaxPool-14 -> 8 -> 1), and telling the graph."""
    if origin_of(layer.rt_info) is None:
        layer.rt_info = with_origin(layer.rt_info, origin_text(layer, op_label(layer.type, layer.version) or ""))
    layer.version = version
    graph.touch(layer.id)


def feed(graph: Graph, layer: Layer, index: int, source: Output) -> None:
    """Feed ``layer``'s input ``index`` from ``source`` instead of what fed it."""
    port = layer.input_ids()[index]
    graph.remove_edge(graph.producers(layer.id, port)[0])
    graph.add_edge(Edge(source[0], source[1], layer.id, port))


def non_negative(builder: GraphBuilder, name: str, data: Output, indices: Output, axes: int | list[int]) -> Output:
    """``indices`` into ``data`` with each one in [-dim, 0) made non-negative (counted from the start, as an older op
    version that reads no negative index takes it), an index of ``axes``: every index counts along that axis (an
    int), or the last axis of ``indices`` holds one index per axis of the list (ScatterNDUpdate's index tuples). The
    dims are a Const on static dims, else taken from ShapeOf (``from_start``)."""
    dtype = numpy_dtype(builder, indices, "i64")
    shape = builder.type_of(data).shape
    picked = [axes] if isinstance(axes, int) else axes
    dims = [shape[axis] for axis in picked]
    if all(d.is_static for d in dims):
        return from_start(builder, name, indices, np.array([d.lo for d in dims], dtype).reshape(
            () if isinstance(axes, int) else (len(dims),)))
    size = builder.add("ShapeOf", "opset1", None, [data], f"{name}/shape")
    taken = builder.add("Gather", "opset1", None, [size, builder.const(np.array(axes, np.int64), f"{name}/at"),
                                                   builder.const(np.array(0, np.int64), f"{name}/axis0")],
                        f"{name}/dim_i64")
    dim = output_of(taken if dtype == np.int64 else builder.convert(
        taken, element_type(builder.type_of(indices).element).name, f"{name}/dim"))
    return from_start(builder, name, indices, dim)


def from_start(builder: GraphBuilder, name: str, indices: Output, dim: np.ndarray | Output) -> Output:
    """``indices`` with each one in [-dim, 0) plus ``dim`` (known values of the indices' type, or an output of it
    that broadcasts against them), counted from the start:

    1. Const indices and a known ``dim``: a new Const (as OpenVINO's own ConvertGather8ToGather7);
    2. otherwise ``Select(indices < 0, indices + dim, indices)``.

    An index below -dim stays negative (out of range, as before). Rule 2 holds for indices within i32 (OpenVINO CPU
    computes Less, Add and Select of i64 in i32)."""
    graph, dtype = builder.graph, numpy_dtype(builder, indices, "i64")
    source = graph.layer(indices[0])
    if isinstance(dim, np.ndarray):
        if source.is_a("Const"):
            value = graph.const_array(source)
            made = np.where((value < 0) & (value >= -dim), value + dim, value)
            return builder.const(made.astype(value.dtype), f"{name}/indices")
        dim = builder.const(dim.astype(dtype), f"{name}/dim")
    zero = builder.const(np.array(0, dtype), f"{name}/zero")
    negative = builder.add("Less", "opset1", None, [indices, zero], f"{name}/negative")
    shifted = builder.add("Add", "opset1", None, [indices, dim], f"{name}/shifted")
    return output_of(builder.add("Select", "opset1", None, [negative, shifted, indices], f"{name}/indices"))
