"""A stateful model's state as inputs and outputs: the form optimum-intel exported before OpenVINO 2023.3, which
the releases that cannot run a dynamic state (``ops/releases.Release.runs_dynamic_state``) run."""

from __future__ import annotations

from collections import Counter

from ..base.dims import Shape, parse_shape, shape_from_ints
from ..base.dtypes import element_type
from ..ir.model import Edge, Graph, Layer
from ..ir.names import names_attribute, output_names, tensor_names
from .base import Pass, PassResult
from .builder import GraphBuilder, origin_text
from .interface_names import own_tensor


def variable_shape(layer: Layer) -> Shape:
    """A ReadValue's variable shape: its ``variable_shape`` (ReadValue-6), else its output's declared dims."""
    text = layer.attrs.get("variable_shape")
    if text is not None:
        try:
            return parse_shape(text)
        except ValueError:
            return None
    return shape_from_ints(layer.outputs[0].dims) if layer.outputs else None


def state_input(read: Layer) -> str:
    """The name of the input a ReadValue becomes: its output's first name, else its variable's id."""
    return next(iter(tensor_names(read.outputs[0].names)), None) or read.attrs.get("variable_id") or read.name


def state_output(variable_id: str, input_name: str | None) -> str:
    """The name of the output an Assign becomes: its variable's id less the name of the input its ReadValue became
    where the id starts with it (optimum-intel's ids join the two, as OpenVINO's MakeStateful makes them:
    ``past_key_values.0.keypresent.0.key``), else the id; ``present.`` and the input's name where that is the input's
    name too (a name on two tensors: OpenVINO renames one)."""
    if input_name and variable_id.startswith(input_name) and len(variable_id) > len(input_name):
        return variable_id[len(input_name):]
    return variable_id if variable_id != input_name else f"present.{input_name}"


def held_states(graph: Graph) -> set[str]:
    """The variables each Assign of which writes back what their one ReadValue read, that ReadValue computing the
    initial value from inputs that serve only to initialise states: a value computed at the first step and held after
    (optimum-intel's seq2seq decoders: each cross-attention key and value, from ``encoder_hidden_states``, which
    nothing else reads). The stateless form computes it again at each step from those inputs, which a generation loop
    feeds alike at each (an encoder's output: the same value), rather than taking it as an input, which no step
    before the first could give."""
    reads: dict[str, list[Layer]] = {}
    for read in graph.by_type("ReadValue"):
        reads.setdefault(read.attrs.get("variable_id", ""), []).append(read)
    assigns: dict[str, list[Layer]] = {}
    for write in graph.by_type("Assign"):
        assigns.setdefault(write.attrs.get("variable_id", ""), []).append(write)
    held = set()
    for vid, found in reads.items():
        read = found[0]
        init = graph.producer_key(read.id, read.input_ids()[0]) if read.input_ids() else None
        if len(found) != 1 or init is None:
            continue
        writes = assigns.get(vid, [])
        if writes and all(graph.producer_key(w.id, w.input_ids()[0]) == (read.id, read.output_ids()[0])
                          for w in writes) and all(_only_initialises(graph, lid) for lid in graph.ancestors([init[0]])
                                                   if graph.layer(lid).is_a("Parameter")):
            held.add(vid)
    return held


def _only_initialises(graph: Graph, source: str) -> bool:
    """Whether layer ``source`` reaches the model's outputs and states only through ReadValues' initial values."""
    seen, todo = {source}, [source]
    while todo:
        for edge in graph.out_edges(todo.pop()):
            reader = graph.layer(edge.to_layer)
            if reader.is_a("ReadValue"):
                continue
            if reader.is_a("Result") or reader.is_a("Assign"):
                return False
            if reader.id not in seen:
                seen.add(reader.id)
                todo.append(reader.id)
    return True


def state_names(graph: Graph) -> dict[str, tuple[str, str]]:
    """Each variable's id (but a held state's: ``held_states``) -> the names of the input its ReadValue becomes and
    of the output its Assign becomes (``state_input``, ``state_output``), each prefixed ``past.`` or ``present.``
    where it names one of the model's inputs or outputs already, or another state's (optimum-intel's BART decoder
    keeps a variable ``encoder_hidden_states`` beside its input of that name: E-NAME-COLLISION, where it now runs on
    2023.0)."""
    taken = {name for param in graph.parameters() for name in tensor_names(param.outputs[0].names)}
    taken.update(output_names(graph).values())
    held = held_states(graph)
    inputs: dict[str, str] = {}
    for read in graph.by_type("ReadValue"):
        if read.attrs.get("variable_id", "") in held:
            continue
        name = state_input(read)
        inputs[read.attrs.get("variable_id", "")] = name = f"past.{name}" if name in taken else name
        taken.add(name)
    names: dict[str, tuple[str, str]] = {}
    for vid in [*inputs, *(w.attrs.get("variable_id", "") for w in graph.by_type("Assign"))]:
        if vid not in names and vid not in held:
            name = state_output(vid, inputs.get(vid))
            names[vid] = (inputs.get(vid, ""), f"present.{name}" if name in taken else name)
            taken.add(names[vid][1])
    return names


class Stateless(Pass):
    """Each ReadValue becomes a Parameter of its variable's type and shape, with its output's names (an optimum-intel
    export: ``past_key_values.0.key``), and each Assign a Result of what it writes, named as ``state_output`` says
    (``present.0.key``); what only computed a ReadValue's initial value goes. One step of the stateful model is then
    one inference of this one, fed the state it held (the initial value at the first step: a cache of length 0)
    and giving the state it keeps. A held state (``held_states``: a seq2seq decoder's cross-attention key or value)
    is no input: its ReadValue's readers read what computed its initial value, and its Assigns go."""

    records_changes = True

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        names = state_names(graph)  # (but the held states': ``held_states``)
        for layer in graph.by_type("ReadValue", "Assign"):  # (in layer order: what it builds is numbered so)
            if not graph.has_layer(layer.id):  # (a held state's Assign, gone with its ReadValue)
                continue
            if layer.is_a("ReadValue") and layer.attrs.get("variable_id", "") not in names:
                _computed_each_step(graph, builder, layer)
                stats["ReadValue held -> its initial value, computed at each step"] += 1
            elif layer.is_a("ReadValue"):
                port = layer.outputs[0]
                name = names[layer.attrs.get("variable_id", "")][0]
                et = element_type(layer.attrs.get("variable_type", "")) or element_type(port.precision or "")
                assert et is not None  # (check: a ReadValue's output has a precision)
                shape = variable_shape(layer)
                if shape is None:  # (every dim dynamic: the rank of its output)
                    shape = shape_from_ints([-1] * len(port.dims or []))
                names_before = tensor_names(port.names)
                made = builder.replace_layer(layer, lambda: [builder.parameter(name, et.name, shape)],  # noqa: B023
                                             origin_text(layer, "ReadValue"))
                source = (made[0].id, made[0].outputs[0].id)
                if _own_output(graph, builder, source, names_before, f"{layer.name}/own_tensor",
                               origin_text(layer, "ReadValue")):  # (the state read is an output: its names go)
                    names_before = []
                kept = [name, *(n for n in names_before if n != name)]  # (replace_layer kept the
                made[0].outputs[0].names = names_attribute(kept)  # ReadValue's names: maybe none)
                stats["ReadValue -> Parameter"] += 1
            elif layer.is_a("Assign"):
                written = graph.producer_key(layer.id, layer.input_ids()[0])
                assert written is not None  # (the gate before a pass: every input is fed)
                port = graph.layer(written[0]).output(written[1])
                name = names[layer.attrs.get("variable_id", "")][1]
                if _interface(graph, written):  # (its names name an output or an input already: a tensor of its own)
                    own = own_tensor(builder, written, [name], f"{layer.name}/own_tensor", origin_text(layer, "Assign"))
                    written = (own.id, own.outputs[0].id) if own is not None else written
                else:
                    port.names = names_attribute([name, *(n for n in tensor_names(port.names) if n != name)])  # first
                    graph.touch(written[0])
                builder.result(written, f"{layer.name}/state")
                graph.remove_layer(layer.id)
                stats["Assign -> Result"] += 1
        if stats:
            graph.remove_dead()
        return PassResult(graph, bool(stats), stats)


def _computed_each_step(graph: Graph, builder: GraphBuilder, read: Layer) -> None:
    """A held state's ReadValue (``held_states``) made what computes its initial value: its readers read that (its
    output's names on a tensor of their own, where it has any), and its variable's Assigns go."""
    vid = read.attrs.get("variable_id", "")
    for write in graph.by_type("Assign"):
        if write.attrs.get("variable_id", "") == vid:
            graph.remove_layer(write.id)
    source = graph.producer_key(read.id, read.input_ids()[0])
    assert source is not None  # (``held_states``: it is fed)
    names = tensor_names(read.outputs[0].names)
    own = own_tensor(builder, source, names, f"{read.name}/own_tensor", origin_text(read, "ReadValue")) \
        if names else None
    graph.redirect_consumers((read.id, read.outputs[0].id), source if own is None else (own.id, own.outputs[0].id))
    graph.remove_layer(read.id)


def _own_output(graph: Graph, builder: GraphBuilder, source: tuple[str, int], names: list[str], name: str,
                origin: str) -> bool:
    """The Results reading ``source`` (a ReadValue made a Parameter) made to read a tensor of their own named
    ``names``, the ReadValue's (``own_tensor``), so that the input keeps only the name ``state_names`` chose apart
    from the outputs' (with theirs too, two tensors of one name: ``migrate`` refused the model); whether any was."""
    results = [e for e in graph.consumers(*source) if graph.layer(e.to_layer).is_a("Result")]
    own = own_tensor(builder, source, names, name, origin) if results else None
    if own is None:
        return False
    for edge in results:
        graph.remove_edge(edge)
        graph.add_edge(Edge(own.id, own.outputs[0].id, edge.to_layer, edge.to_port))
    return True


def _interface(graph: Graph, source: tuple[str, int]) -> bool:
    """Whether the tensor of ``source`` is a model input or feeds an output."""
    return graph.layer(source[0]).is_a("Parameter") or any(
        graph.layer(edge.to_layer).is_a("Result") for edge in graph.consumers(*source))
