"""``extract``: the part of a model between named tensors, as a model of its own (``ir-tools extract``; what
``reduce`` cuts its candidates with).

Rules:
1. A tensor is named as OpenVINO reports it (``names.reported_names``: one of its port's tensor names, in IR v10 also
   an input's or output's layer-derived name, a nameless Parameter's layer name), or ``LAYER:PORT``, a layer's name
   and output port id (``port_name``: as ``compare`` names a layer's output, what a tensor without a name is called);
   a caller may also give an output port itself, ``(layer id, port id)``. A tensor given twice in one list is
   refused. A name several ports carry is where OpenVINO keeps it, the others ``name_1`` and so on
   (``names.resolved_names``: a Result's ``output_names`` counted, inputs first, then outputs; W-NAME-DUP). A name no
   tensor has is refused with the nearest one, a name inside a body (TensorIterator, Loop, If) too: a body is kept
   whole or not at all.
2. The part is every layer an output depends on, walking up from the outputs and stopping at the cut inputs. Each
   cut input becomes a Parameter of the element type and dims shape propagation infers there (what OpenVINO infers:
   dynamic dims stay dynamic), named as it was cut (its layer, and the first of its tensor names, which it keeps);
   a cut at one of the model's own inputs keeps that Parameter. Each output gets a Result, the original's own if it
   had one, with the name it was asked by first among its tensor names. A port without a tensor name is named
   ``LAYER:PORT`` in the part, so that the name the part's input or output has finds it in the original again; a
   port whose name OpenVINO renamed in the original (``NAME_1``) carries the names it reports there (``_as_reported``).
3. Refused (``CutError``, E-CUT): no outputs; a tensor both a cut input and an output, or an output that is a model
   input; a Const as a cut input (the part holds its constants itself); the model's state inside the part (a
   ReadValue reads what an Assign of an earlier inference wrote, which the part cannot keep: cut at the ReadValue's
   output to feed the state as an input); an input of the model the part needs but the cut does not name (as
   Polygraphy's ``surgeon extract``, which keeps an original input only when it is named: the part's inputs are
   exactly the ones asked for; each is named with a layer that needs it); a cut input nothing in the part reads
   (every path from it to the outputs passes another cut input, or none exists). For the first two,
   ``CutError.unfed`` holds the tensors to add to the cut inputs, for a user and for a caller that cuts by program
   (``reduce``): the ReadValues' outputs; for an unfed input, the tensors nearest the cut that mend it (``_mending``:
   those computed from the model's input alone that a layer fed by the cut reads, such as a residual branch's),
   the model inputs themselves where an output is computed from them alone.
4. The part keeps its layers' ids, names, attributes, rt_info and source lines, and the original's Consts by
   reference (the writer lays out only the payloads of the layers it writes, so the ``.bin`` holds only the weights
   the part uses); it must pass ``check``, or the failure is a PassError.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from ..base.dims import format_shape, shape_to_ints
from ..base.dtypes import element_type
from ..base.errors import IrToolsError, SourceLoc, did_you_mean
from ..ir.model import Edge, Graph, Layer, Port, RtNode
from ..ir.names import names_attribute, reported_names, resolved_names, tensor_names
from ..ir.reader import graph_of
from ..ir.walker import PortKey
from ..ops.spec import TensorType
from .base import PassError
from .builder import with_origin
from .checks import STATE_TYPES
from .shapes import Propagation, declared_type
from .validate import InvalidModelError, read_valid, require_valid

#: A tensor as a caller names it: one of its names, or its output port ``(layer id, port id)``.
Tensor = str | PortKey

_STATE = frozenset(kind.lower() for kind in STATE_TYPES)


class CutError(IrToolsError):
    """The cut makes no model of its own (E-CUT): no outputs; a tensor both a cut input and an output; a Const as a
    cut input; the model's state (ReadValue/Assign) inside the part; a model input the part needs that the cut does
    not name; a cut input nothing in the part reads. ``unfed``: the tensors to add to the cut inputs, where that
    mends it (the outputs of the ReadValues the part would hold, the tensors nearest the cut that feed it from a
    model input, or the model inputs themselves); ``unread``: the cut inputs nothing in the part reads, to leave
    out where that mends it (a model input only a state's initial value is computed from, once the state is cut)."""

    code = "E-CUT"

    def __init__(self, message: str, loc: SourceLoc | None = None, unfed: Sequence[PortKey] = (),
                 unread: Sequence[PortKey] = ()):
        super().__init__(message, loc)
        self.unfed, self.unread = list(unfed), list(unread)


def extract(graph: Graph | str | Path, inputs: Iterable[Tensor], outputs: Iterable[Tensor],
            propagation: Propagation | None = None) -> Graph:
    """The part of ``graph`` that computes ``outputs`` from ``inputs``, a new graph that passes ``check``; ``graph``
    is left as it is. A tensor is named as OpenVINO reports it (``tensor_ports``), or ``LAYER:PORT`` (a layer's name
    and output port id, as ``compare`` names a layer's output), or given as ``(layer id, port id)``. The part is
    every layer the outputs depend on up to the cut inputs; each cut input becomes a Parameter of the type shape
    propagation infers there, keeping its tensor name; each output gets a Result. The part keeps its layers' ids,
    names, attributes and rt_info, and shares the original's weights. CutError (E-CUT) when the cut makes no model
    of its own. ``propagation``: ``graph``'s shape propagation when the caller has it (``require_valid`` returns it),
    else ``graph`` is checked here."""
    if propagation is None:
        graph = graph_of(graph, read_valid)  # (or the IR file at a path)
        propagation = require_valid(graph)
    loc = SourceLoc(str(graph.source) if graph.source else None)
    inputs, outputs = ([given] if isinstance(given, str) else given for given in (inputs, outputs))  # (one name)
    names = _Names(graph)
    cuts = names.resolve(inputs, "cut input", loc)
    ends = names.resolve(outputs, "output", loc)
    if not ends:
        raise CutError("no outputs: name at least one tensor the part is to compute", loc)
    for key, name in ends.items():
        if key in cuts:
            raise CutError(f"{_called(graph, key, name)} is both a cut input and an output: the part would compute "
                           "nothing for it", loc)
        if graph.layer(key[0]).is_a("Parameter"):
            raise CutError(f"output {_called(graph, key, name)} is an input of the model: the part would compute "
                           "nothing for it", loc)
    for key, name in cuts.items():
        layer = graph.layer(key[0])
        if layer.is_a("Const"):
            raise CutError(f"cut input {_called(graph, key, name)} is a constant: the part holds its constants itself "
                           "(leave it out)", layer.loc)
    kept = _part(graph, cuts, ends, loc)
    part = _build(graph, kept, cuts, ends, propagation)
    try:
        require_valid(part)
    except InvalidModelError as exc:  # a bug of the cut (rule 4): say so, with check's findings
        raise PassError(f"extract left the part invalid ({len(exc.diagnostics)} diagnostic(s) follow)", loc,
                        exc.diagnostics) from None
    return part


def _called(graph: Graph, key: PortKey, name: str | None) -> str:
    """A tensor in a message: its name, else its port."""
    if name is not None:
        return f"'{name}'"
    layer = graph.layer(key[0])
    return f"output port {key[1]} of {layer.kind} '{layer.name}' (id {layer.id})"


def port_name(layer: Layer, port: Port) -> str:
    """``LAYER:PORT``: a layer's output as ``compare`` names it (``--per-layer``, ``--against``), which extract takes
    (rule 1) and gives a port without a tensor name (rule 2)."""
    return f"{layer.name}:{port.id}"


def tensor_name(graph: Graph, key: PortKey, resolved: dict[PortKey, list[str]] | None = None) -> str:
    """What a tensor is called: its first name as OpenVINO reports it (``resolved``: ``resolved_names(graph)``, a
    name two ports carry being ``NAME_1`` on one), else its ``port_name``."""
    layer = graph.layer(key[0])
    port = layer.output(key[1])
    resolved = resolved_names(graph) if resolved is None else resolved
    return next(iter(reported_names(graph, layer, port, resolved)), port_name(layer, port))


def tensor_ports(graph: Graph | str | Path) -> dict[str, PortKey]:
    """Every tensor name of the top-level graph as OpenVINO reports it (``Output.get_names``: a port's tensor names as
    ``names.resolved_names`` gives them, a name several ports carry kept on one and ``NAME_1``... on the others, and in
    IR v10 also the names it gives inputs and outputs after their layers), with the output port ``(layer id, port
    id)`` holding it. What ``extract`` takes; as it, of the IR file at a path too."""
    graph = graph_of(graph)
    resolved = resolved_names(graph)
    ports: dict[str, PortKey] = {}
    for layer in graph.topological_order():
        for port in layer.outputs:
            for name in reported_names(graph, layer, port, resolved):
                ports.setdefault(name, (layer.id, port.id))
    return ports


def find_tensor(graph: Graph, ports: dict[str, PortKey], name: str) -> PortKey | None:
    """The port of a tensor name (``ports``: ``tensor_ports(graph)``), else of a ``LAYER:PORT`` name (rule 1)."""
    if name in ports:
        return ports[name]
    layer_name, _, port = name.rpartition(":")
    for layer in graph.layers():
        if layer.name == layer_name and port.isdigit() and layer.output(int(port)) is not None:
            return layer.id, int(port)
    return None


class _Names:
    """Tensors asked for by name or port, found (rule 1)."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.ports = tensor_ports(graph)
        self.resolved = resolved_names(graph)

    def resolve(self, tensors: Iterable[Tensor], what: str, loc: SourceLoc) -> dict[PortKey, str]:
        """Each tensor's output port, with the name it was asked by (a port's first reported name, else its
        ``port_name``); names no tensor has, and a tensor given twice, are a CutError naming each."""
        found: dict[PortKey, str] = {}
        asked: dict[PortKey, str] = {}
        problems = []
        for tensor in tensors:
            if not isinstance(tensor, str | tuple):
                raise IrToolsError(f"{what} {tensor!r}: a tensor is a name (as OpenVINO reports it) or an output port "
                                   "(layer id, port id)", loc, code="E-USAGE")
            key = self._port(tensor, what, loc) if isinstance(tensor, tuple) else self.find(tensor)
            if key is None:
                problems.append(f"no tensor is named '{tensor}' ({what}){self._hint(str(tensor))}")
                continue
            name = tensor if isinstance(tensor, str) else tensor_name(self.graph, key, self.resolved)
            if key in found:
                twice = (f"'{name}' given twice" if asked[key] == name
                         else f"'{asked[key]}' and '{name}' name one tensor")
                problems.append(f"{what}s: {twice} (give it once)")
                continue
            found[key], asked[key] = name, name
        if problems:
            raise CutError("; ".join(problems), loc)
        return found

    def find(self, name: str) -> PortKey | None:
        return find_tensor(self.graph, self.ports, name)

    def _port(self, key: PortKey, what: str, loc: SourceLoc) -> PortKey:
        layer_id, port_id = key
        if not self.graph.has_layer(layer_id) or self.graph.layer(layer_id).output(port_id) is None:
            raise CutError(f"{what} {key}: the model has no layer '{layer_id}' with output port {port_id}", loc)
        return layer_id, port_id

    def _hint(self, name: str) -> str:
        """Why a name is unknown, when it can say: the body that holds it; a layer of that name (``inspect`` lists
        layers, and ``compare --per-layer`` names a layer's output ``LAYER:PORT``), and the tensors it outputs; else
        the nearest name."""
        layer_name, _, port = name.rpartition(":")
        for layer in self.graph.layers():
            if any(name in tensor_names(dict(node.attrs).get("names")) for node in _nodes(layer.children, "port")):
                return (f": it is inside the body of {layer.kind} '{layer.name}' (id {layer.id}), which a part keeps "
                        "whole or not at all")
            if layer.name == name or layer.name == layer_name and port.isdigit():
                held = [f"port {p.id}: '{tensor_name(self.graph, (layer.id, p.id), self.resolved)}'"
                        for p in layer.outputs]
                which = "" if layer.name == name else f"port {port} is not one of its outputs; "
                return (f": that is {layer.kind} layer '{layer.name}' (id {layer.id}); {which}cut at a tensor it "
                        f"outputs ({'; '.join(held) or 'it has no output'})")
        return did_you_mean(name, self.ports)


def _nodes(nodes: Iterable[RtNode], tag: str) -> Iterator[RtNode]:
    """Every element with ``tag`` among ``nodes`` and their children, at any depth (a body's layers and ports)."""
    for node in nodes:
        if node.tag == tag:
            yield node
        yield from _nodes(node.children, tag)


def _state(layer: Layer) -> str | None:
    """The variable a layer reads or writes, itself or in its body; None for a layer without state."""
    if layer.type.lower() in _STATE:
        return layer.attrs.get("variable_id", "?")
    for node in _nodes(layer.children, "layer"):
        if dict(node.attrs).get("type", "").lower() in _STATE:
            data = next(_nodes(node.children, "data"), None)
            return dict(data.attrs).get("variable_id", "?") if data is not None else "?"
    return None


def _part(graph: Graph, cuts: dict[PortKey, str], ends: dict[PortKey, str], loc: SourceLoc,
          ) -> set[str]:
    """The ids of the layers the outputs depend on up to the cut inputs (rule 2), or a CutError (rule 3)."""
    kept: set[str] = set()
    todo = [key[0] for key in ends]
    unfed: dict[PortKey, Layer] = {}  # a model input the part needs -> the first layer found needing it
    read: set[PortKey] = set()  # the cut inputs a layer of the part reads
    state: list[tuple[Layer, str]] = []
    while todo:
        layer_id = todo.pop()
        if layer_id in kept:
            continue
        kept.add(layer_id)
        layer = graph.layer(layer_id)
        variable = _state(layer)
        if variable is not None:
            state.append((layer, variable))
            continue
        for link in graph.in_links(layer_id):
            source = (link[0], link[1])
            if source in cuts:
                read.add(source)
            elif graph.layer(link[0]).is_a("Parameter"):
                unfed.setdefault(source, layer)
            else:
                todo.append(link[0])
    if state:
        (first, variable), *others = state
        hint = _cut_hint(graph, first, " to feed the state as an input")
        raise CutError(f"the part would hold the model's state: this layer reads or writes variable '{variable}', "
                       f"whose value earlier inferences wrote{hint}"
                       + _also([(layer, f"variable '{v}'{_cut_hint(graph, layer)}") for layer, v in others]), first.loc,
                       unfed=[(layer.id, layer.outputs[0].id) for layer, _ in state
                              if layer.type.lower() == "readvalue" and layer.outputs])
    if unfed:
        (key, first), *others = [(key, layer) for key, layer in unfed.items()]
        mending = _mending(graph, kept, cuts, ends, set(unfed))
        raise CutError(f"the cut leaves the model's input '{_input_name(graph, key)}' unfed, and this layer needs it"
                       + _also([(layer, f"'{_input_name(graph, k)}'") for k, layer in others])
                       + f": add {', '.join(repr(tensor_name(graph, k)) for k in mending)} to the cut inputs (the "
                       "tensors nearest the cut that feed the part from the model's inputs)", first.loc, unfed=mending)
    unread = [key for key in cuts if key not in read]
    if unread:
        raise CutError(f"nothing in the part reads cut input(s) {', '.join(_called(graph, k, cuts[k]) for k in unread)}"
                       ": no path from them to the outputs, or each passes another cut input", loc, unread=unread)
    return kept


def _mending(graph: Graph, kept: set[str], cuts: dict[PortKey, str], ends: dict[PortKey, str],
             unfed: set[PortKey]) -> list[PortKey]:
    """The tensors that, added to the cut inputs, leave no model input unfed, nearest the cut (rule 3): each tensor
    computed from the unfed inputs alone (not from a cut input) that a layer computed from a cut input reads; the
    unfed inputs themselves where an output is computed from them alone. In topological order."""
    order = [layer for layer in graph.topological_order() if layer.id in kept]
    fed: set[str] = set()  # the layers of the part computed from a cut input
    alone: set[PortKey] = set(unfed)  # the tensors computed from unfed inputs (and constants) alone
    found: list[PortKey] = []
    for layer in order:
        sources = [(link[0], link[1]) for link in graph.in_links(layer.id)]
        if any(key in cuts or key[0] in fed for key in sources):
            fed.add(layer.id)
            found += [key for key in sources if key in alone and key not in found]
        elif any(key in alone for key in sources):
            alone.update((layer.id, port.id) for port in layer.outputs)
    if any(key[0] not in fed for key in ends):
        found += [key for key in sorted(unfed) if key not in found]
    return found


def _also(others: list[tuple[Layer, str]]) -> str:
    """The other layers of a refusal, each with what it concerns."""
    return "".join(f"; also {what} at {layer.kind} '{layer.name}' (id {layer.id}, line {layer.line})"
                   for layer, what in others)


def _cut_hint(graph: Graph, layer: Layer, why: str = "") -> str:
    """How to feed a ReadValue's state instead: cut at its output."""
    if layer.type.lower() != "readvalue" or not layer.outputs:
        return ""
    key = (layer.id, layer.outputs[0].id)
    name = next(iter(reported_names(graph, layer, layer.outputs[0], resolved_names(graph))), None)
    at = _called(graph, key, name)  # (an unnamed one is "output port N of ...")
    return f" (cut at {'its output ' if name is not None else ''}{at}{why})"


def _input_name(graph: Graph, key: PortKey) -> str:
    layer = graph.layer(key[0])
    return reported_names(graph, layer, layer.output(key[1]))[0]


def _build(graph: Graph, kept: set[str], cuts: dict[PortKey, str], ends: dict[PortKey, str],
           propagation: Propagation) -> Graph:
    """The part: Parameters for the cut inputs, the kept layers (copied, in the original's order), Results."""
    part = Graph(graph.name, graph.ir_version)
    part.rt_info, part.net_extra, part.line = graph.rt_info, dict(graph.net_extra), graph.line
    part.source, part.weights = graph.source, graph.weights  # the part's layers came from there
    taken = {graph.layer(layer_id).name for layer_id in kept}
    next_id = int(graph.new_id())
    resolved = resolved_names(graph)
    fed: dict[PortKey, PortKey] = {}  # a cut input -> the part's output port that now holds it
    for key, name in cuts.items():
        source = graph.layer(key[0])
        if source.is_a("Parameter"):
            parameter = _copy(source)
            parameter.outputs[0].names = _first(_as_reported(parameter.outputs[0].names, resolved.get(key)), name)
        else:
            port = source.output(key[1])
            parameter = _parameter(str(next_id), _unique(name, taken),
                                   propagation.types.get(key) or declared_type(port),
                                   _first(_as_reported(port.names, resolved.get(key)), name),
                                   source, port)
            next_id += 1
        taken.add(parameter.name)
        part.add_layer(parameter)
        fed[key] = (parameter.id, parameter.outputs[0].id)
    for layer in graph.layers():
        if layer.id in kept:
            copy = part.add_layer(_copy(layer))
            for port in copy.outputs:
                if (layer.id, port.id) in cuts:
                    port.names = None  # now the Parameter's (one tensor name, one tensor)
                else:
                    port.names = _as_reported(port.names, resolved.get((layer.id, port.id)))
    for layer_id in kept:
        consumer = part.layer(layer_id)
        for link in graph.in_links(layer_id):
            source = fed.get((link[0], link[1]))
            if source is None:
                part.add_edge(Edge(*link))
                continue
            part.add_edge(Edge(*source, link[2], link[3], link[4]))
            feeding, port = part.layer(source[0]).output(source[1]), consumer.input(link[3])
            port.precision, port.dims = feeding.precision, feeding.dims  # the edge's two ends agree
    for key, name in ends.items():
        producer = part.layer(key[0])
        port = producer.output(key[1])
        port.names = _first(port.names, name)
        results = [graph.layer(e.to_layer) for e in graph.consumers(*key) if graph.layer(e.to_layer).is_a("Result")]
        if results and not part.has_layer(results[0].id):
            result = _copy(results[0])
        else:
            result = Layer(str(next_id), _unique(name, taken), "Result", "opset1",
                           {}, [Port(0)], file=producer.file, line=producer.line)
            next_id += 1
        taken.add(result.name)
        result.inputs[0].precision, result.inputs[0].dims = port.precision, port.dims
        part.add_layer(result)
        part.add_edge(Edge(*key, result.id, result.inputs[0].id))
    return part


def _copy(layer: Layer) -> Layer:
    """A layer of the part: the original's fields, its ports and dicts its own."""
    return Layer(layer.id, layer.name, layer.type, layer.version, dict(layer.attrs),
                 [replace(p, extra=dict(p.extra)) for p in layer.inputs],
                 [replace(p, extra=dict(p.extra)) for p in layer.outputs], layer.rt_info, dict(layer.extra),
                 layer.children, layer.file, layer.line, layer.data)


def _parameter(layer_id: str, name: str, t: TensorType, names: str | None, source: Layer, port: Port) -> Layer:
    """A Parameter of type ``t`` standing for output ``port`` of ``source``, which it records as its origin."""
    element = t.element or declared_type(port).element
    et = element_type(element or "")
    if et is None:
        raise CutError(f"cut input '{name}': its element type is not known, so no Parameter can stand for it",
                       source.loc)
    # (its shape written whatever it is: A.encode leaves out a field of None, a dynamic rank here, and a Parameter
    # without a shape is a scalar; a cut at a DeBERTa's If output, of a rank our rules do not infer, was "declared
    # [...], inferred []")
    attrs = {"shape": format_shape(t.shape), "element_type": et.name}
    origin = with_origin((), f"cut at output port {port.id} of {source.kind} '{source.name}' (id {source.id})")
    return Layer(layer_id, name, "Parameter", "opset1", attrs, [], [Port(0, et.precision, shape_to_ints(t.shape),
                 names)], origin, file=source.file, line=source.line)


def _as_reported(names: str | None, reported: list[str] | None) -> str | None:
    """A port's ``names`` attribute in the part: the names OpenVINO reports for it in the original (``reported``:
    its ``resolved_names``) where one of its own was renamed there (a name two ports carry is ``NAME_1`` on one), so
    that the part's tensors are called as the original's, and no two carry one name (OpenVINO would rename them in
    the part's own order, which is not the original's); else ``names`` as written."""
    if reported and set(tensor_names(names)) - set(reported):
        return names_attribute(reported)
    return names


def _first(names: str | None, name: str) -> str:
    """A ``names`` attribute with ``name`` first (added if missing), so that the tensor is called what it was asked
    by (``names.input_name``, ``output_names``)."""
    return names_attribute([name, *(n for n in tensor_names(names) if n != name)])


def _unique(name: str, taken: set[str]) -> str:
    """``name``, or ``name_``, ``name__``... the first no layer of the part has (``interface_names`` does the
    same)."""
    while name in taken:
        name += "_"
    return name
