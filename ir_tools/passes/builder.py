"""GraphBuilder: add layers to a Graph with ports, dims and edges filled in; and the one rewrite helper.

Importers and rewriting passes build layers through this one helper, so new layers always
get OpenVINO's port numbering (inputs 0..n-1, outputs from n), precisions and dims taken from
their producers, and output dims from the op table's shape rule. ``replace_layer`` is how a pass
swaps a layer for what it built: consumers move over, names stay, every new layer records its origin.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache

import numpy as np

from ..base.dims import Shape, shape_to_ints, show_shape
from ..base.dtypes import ElementType, element_type, from_numpy
from ..base.errors import IrToolsError
from ..ir.model import Edge, Graph, Layer, Port, PortRecord, RtNode, require_graph
from ..ir.names import names_attribute
from ..ops import attrs as A
from ..ops.opsets import lookup
from ..ops.spec import TensorType
from .shapes import check_arity, declared_type_of

#: An output of a layer: (layer id, output port id).
Output = tuple[str, int]


def output_of(layer: Layer, index: int = 0) -> Output:
    """The ``index``-th output of ``layer`` as an ``Output`` (layer id, port id): what ``GraphBuilder.add`` takes as an
    input and ``const``/``parameter`` return (``add`` takes a Layer too, meaning its first output)."""
    if not isinstance(layer, Layer) or type(index) is not int:
        raise IrToolsError(f"output_of(layer, index) takes a Layer and an int, not {layer!r}, {index!r}",
                           code="E-USAGE")
    if not -len(layer.outputs) <= index < len(layer.outputs):
        raise IrToolsError(f"output_of: no output {index}, the layer has {len(layer.outputs)}", layer.loc,
                           code="E-PASS")
    return (layer.id, layer.outputs[index].id)


#: The rt_info attribute naming what a rewritten layer came from.
ORIGIN = "ir_tools_origin"


class GraphBuilder:
    """Adds layers to ``graph`` as OpenVINO would build them: ports numbered (inputs 0..n-1, outputs from n), input
    types taken from the producers, output types from the op's shape rule, edges connected. ``add`` returns the
    ``Layer`` it adds; ``const`` and ``parameter`` return its ``Output`` (layer id, port id), which ``add`` takes
    as an input, as it takes a Layer (its first output). ``replace_layer`` swaps a layer for what a callback
    builds. A refusal (a bad shape, an unknown attribute) is an IrToolsError naming the layer built."""

    def __init__(self, graph: Graph):
        self.graph = require_graph(graph, "GraphBuilder")
        self.created: list[Layer] = []  # every layer added through this builder, in order

    def type_of(self, out: Output | Layer) -> TensorType:
        """The type of an output port: a Parameter's from its attributes, as OpenVINO reads it (a pass that gives an
        input another ``shape`` builds on the new one, not on its port's dims); any other's as its port declares it
        (read from its record: no Port objects for a layer only read from), which is what the re-inference after
        ``apply`` wrote: a layer after an input changed in place keeps its dims until then."""
        _, layer, record = self._located(out)
        return _declared(layer, record)

    def output(self, out: Output | Layer) -> Output:
        """``out`` as ``(layer id, output port id)`` (a Layer stands for its first output); IrToolsError (E-PASS) for
        anything else, or an output the graph does not have."""
        return self._located(out)[0]

    def _located(self, out: Output | Layer) -> tuple[Output, Layer, PortRecord]:
        """``output``'s answer, with the layer and the record of the port it names (``add`` takes the type from
        them)."""
        if isinstance(out, Layer):
            out = output_of(self.graph.own(out)) if out.outputs else (out.id, None)
        if not (isinstance(out, tuple) and len(out) == 2 and isinstance(out[0], str)):
            raise IrToolsError(f"an input is an output (layer id, output port id) or a Layer, not {out!r}",
                               code="E-PASS")
        if not self.graph.has_layer(out[0]):
            raise IrToolsError(f"input {out!r}: the graph has no layer with id {out[0]!r}", code="E-PASS")
        layer = self.graph.layer(out[0])
        record = None if out[1] is None else layer.output_record(out[1])
        if record is None:
            raise IrToolsError(f"input {out!r}: layer '{layer.name}' (id {layer.id}) has no output port {out[1]} (its "
                               f"outputs: {layer.output_ids()})", code="E-PASS")
        return out, layer, record

    def parameter(self, name: str, element: str, shape: Shape) -> Output:
        """A model input: a Parameter of ``element`` type (``f32``) and ``shape`` (-1 or ``Dim`` for a dynamic dim), its
        layer and tensor named ``name`` (a comma in it escaped: one name); returns its output."""
        attrs = self.attrs("Parameter", "opset1", shape=shape, element_type=element)
        return output_of(self.add("Parameter", "opset1", attrs, [], name, names=names_attribute([name])))

    def const(self, value: np.ndarray, name: str) -> Output:
        """A Const holding ``value`` in memory (the writer lays it out in the ``.bin``)."""
        value = np.asarray(value)
        if value.dtype.byteorder == ">" or (value.dtype.byteorder == "=" and np.little_endian is False):
            value = value.astype(value.dtype.newbyteorder("<"))  # (the IR's weights are little-endian)
        value = np.ascontiguousarray(value).reshape(np.shape(value))  # (ascontiguousarray makes a scalar 1-D)
        try:
            element = from_numpy(value.dtype).name
        except KeyError:
            raise IrToolsError(f"numpy type {value.dtype} is not an IR element type (give the Const a value of one: "
                               "f32, f16, i64, u8, boolean...)", code="E-ATTR") from None
        attrs = self.attrs("Const", "opset1", element_type=element, shape=value.shape, offset=0, size=value.nbytes)
        return output_of(self.add("Const", "opset1", attrs, [], name, data=value.tobytes()))

    def result(self, source: Output, name: str) -> Layer:
        """A model output: a Result reading ``source``, its layer named ``name`` (the output is named as OpenVINO reads
        it: ``rename_output``)."""
        return self.add("Result", "opset1", None, [source], name)

    def convert(self, source: Output | Layer, element: str | ElementType, name: str, *, names: str | None = None,
                outputs: Sequence[TensorType] | None = None) -> Layer:
        """A Convert-1 of ``source`` into ``element`` (``"f32"``, or an ElementType: its name is the
        ``destination_type``), the layer named ``name``, its output tensor ``names``; ``outputs`` as ``add``'s. The one
        spelling of the Convert the rewrites and the importer build (a widening, a narrowing, a no-op giving a tensor
        a port of its own), so each writes it alike."""
        destination = element.name if isinstance(element, ElementType) else element
        return self.add("Convert", "opset1", {"destination_type": destination}, [source], name, outputs=outputs,
                        names=names)

    def add(
        self,
        op_type: str,
        version: str,
        attrs: Mapping[str, str] | object | None,
        inputs: Sequence[Output | Layer],
        name: str,
        outputs: Sequence[TensorType] | None = None,
        names: str | None = None,
        data: bytes | None = None,
    ) -> Layer:
        """Add a layer fed by ``inputs`` (outputs, or layers standing for their first output); ``attrs`` is the op's
        typed attribute object (``attrs(...)``), None for its defaults, or raw IR strings. Output types come from
        the op's shape rule unless given."""
        if attrs is None:
            attrs = self.attrs(op_type, version)
        raw = dict(attrs) if isinstance(attrs, Mapping) else A.encode(attrs)
        located = [self._located(o) for o in inputs]
        inputs = [out for out, _, _ in located]
        layer = Layer(self.graph.new_id(), name, op_type, version, raw, data=data)
        found = layer.misfit()
        if found is not None:  # (raw attributes of another type, a name that is no string: failed inside, or later)
            raise IrToolsError(f"GraphBuilder.add({op_type!r}, ...) builds no layer the IR can hold: {found}",
                               code="E-USAGE")
        in_types = [_declared(source, record) for _, source, record in located]
        layer.inputs = [_port(i, t) for i, t in enumerate(in_types)]
        spec = lookup(op_type, version)
        if spec is not None:
            check_arity(layer, spec, len(inputs), None)
        if outputs is None:
            if spec is not None and spec.infer is not None:
                values = [self._value(o) if i in spec.value_inputs else None for i, o in enumerate(inputs)]
                try:
                    outputs = spec.infer(A.decode(spec.attrs, layer.attrs, lambda: layer.loc), in_types, values)
                except IrToolsError as exc:  # (the caller's mistake, or a case it did not foresee: say what it built)
                    exc.message = (f"the {spec.label} layer '{name}' it builds refuses its inputs "
                                   f"({', '.join(_shown(t) for t in in_types)}): {exc.message}")
                    raise
            if outputs is None:
                raise IrToolsError(f"ir_tools has no shape rule for {op_type}@{version} on these inputs; pass the "
                                   "output types explicitly (outputs=[TensorType(...)])", code="E-PASS")
        layer.outputs = [_port(len(inputs) + j, t) for j, t in enumerate(outputs)]
        if names and layer.outputs:
            layer.outputs[0].names = names
        self.graph.add_layer(layer)
        self.created.append(layer)
        for i, src in enumerate(inputs):
            self.graph.add_edge(Edge(src[0], src[1], layer.id, i))
        return layer

    @staticmethod
    def attrs(op_type: str, version: str, **values: object) -> object:
        """The typed attributes of ``op_type`` at ``version`` (``"opset1"``...): ``values`` over the defaults.
        IrToolsError (E-ATTR) for an op ir_tools does not model, a missing value or an unknown name."""
        spec = lookup(op_type, version)
        if spec is None:
            raise IrToolsError(f"ir_tools does not model {op_type}@{version}: pass its attributes as strings",
                               code="E-ATTR")
        A.field_names(spec.attrs, values, spec.label)
        try:
            return spec.attrs(**values)
        except TypeError as exc:
            raise IrToolsError(f"{spec.label} attributes: {exc}", code="E-ATTR") from None

    def replace_layer(self, layer: Layer, build: Callable[[], Sequence[Output]], origin: str) -> list[Layer]:
        """Replace ``layer`` by what ``build`` adds; returns the new layers.

        ``build`` returns one new output per output of ``layer``, or per output of its op where the layer declares
        only the first ones (as OpenVINO reads it: the others are dropped unless something else reads them). Each
        takes over its port's tensor names, rt_info and consumers; the layer producing the first keeps ``layer``'s own
        rt_info.
        Every new layer records ``origin`` and ``layer``'s file and line; ``layer`` is removed, and what fed it that
        nothing reads now (``drop_unused``: its Consts a rewrite laid out anew, say). A refusal
        (IrToolsError) while ``build`` runs is reported at ``layer``, unless it names a layer of its own.
        """
        self.graph.own(layer)
        if not callable(build):
            raise IrToolsError(f"replace_layer(layer, build, origin): build is a function that adds the new layers and "
                               f"returns their outputs, not {build!r}", code="E-USAGE")
        start = len(self.created)
        try:
            outputs = build()
        except IrToolsError as exc:
            refused_at(exc, layer)
            raise
        outputs = [self.output(out) for out in outputs]
        spec = lookup(layer.type, layer.version)
        if len(outputs) != len(layer.outputs) and (spec is None or len(outputs) != spec.n_outputs):
            raise IrToolsError(f"replace_layer: build returned {len(outputs)} output(s) for the layer's "
                               f"{len(layer.outputs)} (one new output per output)", layer.loc, code="E-PASS")
        outputs, undeclared = outputs[:len(layer.outputs)], outputs[len(layer.outputs):]
        new = self.created[start:]
        fed_it = [self.graph.layer(edge.from_layer) for edge in self.graph.in_edges(layer.id)]
        for made in new:
            made.rt_info = with_origin(made.rt_info, origin)
            made.file, made.line = layer.file, layer.line
        for i, (old_port, out) in enumerate(zip(layer.outputs, outputs, strict=True)):
            final = self.graph.layer(out[0])
            if i == 0:
                final.rt_info = with_origin(layer.rt_info, origin)
            new_port = final.output(out[1])
            new_port.names, new_port.rt_info = old_port.names, old_port.rt_info
            self.graph.redirect_consumers((layer.id, old_port.id), out)
        self.graph.remove_layer(layer.id)
        drop_unused(self.graph, [*fed_it, *(self.graph.layer(out[0]) for out in undeclared)])
        return [made for made in new if self.graph.has_layer(made.id)]

    def _value(self, out: Output) -> np.ndarray | None:
        layer = self.graph.layer(out[0])
        return self.graph.const_array(layer) if layer.is_a("Const") else None


def drop_unused(graph: Graph, layers: Iterable[Layer]) -> None:
    """Remove those of ``layers`` (what fed a layer just replaced or rewired, say its Consts; what computed an If's
    condition) that nothing reads now, then in turn what fed only them; never a Parameter or a ReadValue (a model
    input, a state)."""
    todo = [layer.id for layer in layers]
    while todo:
        layer_id = todo.pop()
        if not graph.has_layer(layer_id) or graph.out_edges(layer_id) or any(
                graph.layer(layer_id).is_a(kind) for kind in ("Parameter", "ReadValue")):
            continue
        todo += [edge.from_layer for edge in graph.in_edges(layer_id)]
        graph.remove_layer(layer_id)


def origin_text(layer: Layer, label: str) -> str:
    """``AvgPool-14 (opset14) 'pool1'``: what a rewritten layer came from."""
    return f"{label} ({layer.version}) '{layer.name}'"


def with_origin(rt_info: tuple[RtNode, ...], text: str) -> tuple[RtNode, ...]:
    """``rt_info`` with the ``ir_tools_origin`` attribute set to ``text`` (an earlier one is replaced)."""
    return (*without_origin(rt_info), _origin_node(text))


@lru_cache(maxsize=256)
def _origin_node(text: str) -> RtNode:
    """The ``ir_tools_origin`` attribute of ``text``: one node (immutable) for the layers a rewrite builds in the place
    of one."""
    return RtNode("attribute", (("name", ORIGIN), ("version", "0"), ("value", text)))


def without_origin(rt_info: tuple[RtNode, ...]) -> tuple[RtNode, ...]:
    """``rt_info`` without its ``ir_tools_origin`` attribute."""
    return tuple(n for n in rt_info if dict(n.attrs).get("name") != ORIGIN)


def origin_of(rt_info: tuple[RtNode, ...]) -> str | None:
    """The text of the ``ir_tools_origin`` attribute, None without one."""
    return next((dict(n.attrs).get("value") for n in rt_info if dict(n.attrs).get("name") == ORIGIN), None)


def refused_at(exc: IrToolsError, layer: Layer) -> None:
    """Locate a refusal raised while ``layer`` was being rewritten at that layer, which the user can find (unless it
    names a layer of its own): ``replace_layer``'s, and ``Pass.applied``'s for a pass that says what it rewrites."""
    if exc.loc.layer_id is None:
        exc.loc, exc.message = layer.loc, f"ir_tools cannot rewrite it: {exc.message}"


def _shown(t: TensorType) -> str:
    """``i64 [4]``: a type as a refusal names it (``[...]``: a dynamic rank)."""
    return f"{t.element or '?'} {show_shape(t.shape)}"


def _declared(layer: Layer, record: PortRecord) -> TensorType:
    """The type of ``layer``'s output port of ``record`` (``GraphBuilder.type_of``)."""
    spec = lookup(layer.type, layer.version) if layer.is_a("Parameter") else None
    if spec is not None and spec.infer is not None:
        try:
            (made,) = spec.infer(A.decode(spec.attrs, layer.attrs, lambda: layer.loc), [], [])
        except IrToolsError:  # (attributes check refuses: as declared, for the gate to report)
            pass
        else:
            return made
    return declared_type_of(record[1], record[2])


def _port(port_id: int, t: TensorType) -> Port:
    et = element_type(t.element) if t.element else None
    return Port(port_id, et.precision if et else None, shape_to_ints(t.shape))
