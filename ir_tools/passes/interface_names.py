"""Model input and output names across IR versions.

OpenVINO names the inputs and outputs of an IR v10 model after layers too: a Parameter by its own
name, an output by its producer's name (plus ``.N``, the output index, when the producer has several
outputs), beside the names its ports carry. An IR v11 model has only the names its ports carry. The
name OpenVINO reports (``get_any_name``) is the smallest of a tensor's names. So a v10 model written as
v11 must carry the layer-derived names explicitly, and a v11 model written as v10 must not gain a
layer-derived name smaller than its own (``logits`` reported as ``__module.lm_head/aten::linear/MatMul``),
or code that feeds or reads the model by name breaks (and ``migrate --check`` with it).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ..base.diagnostics import Diagnostic
from ..base.errors import IrToolsError, did_you_mean
from ..ir.bodies import fresh_subgraphs, with_bodies
from ..ir.model import Edge, Graph, Layer, Port, require_graph
from ..ir.names import (
    given_names,
    input_name,
    names_attribute,
    output_names,
    renamed_names,
    reported_names,
    resolved_names,
    result_names,
    tensor_names,
    v10_output_name,
)
from ..ir.writer import refuse_misfits
from ..ir.writer import write_ir as write_graph
from .shapes import fix_dims, propagate

if TYPE_CHECKING:
    from .builder import GraphBuilder


def keep_v10_names(graph: Graph) -> int:
    """Give every input and output port the name OpenVINO gives it in IR v10 after its layer (``reported_names``),
    beside its own, where no other input or output port holds that name (an inner tensor's holding it loses it: in
    v10 OpenVINO reports it on the output, 'mp.0' beside an inner tensor 'mp.0'; left there, the v11 output had no
    name); and drop each Result's ``output_names``, which IR v10 does not read and v11 reads instead of the port's
    names. Returns how many ports were named."""
    held = {name: (layer.id, port_id) for layer in graph.layers() for port_id, _, _, names, *_ in layer.output_records()
            for name in tensor_names(names)}
    interface = [(p, p.outputs[0], p.name) for p in graph.parameters() if p.outputs]
    interface += [(*found, v10_output_name(*found)) for r in graph.results()
                  if r.inputs and (found := graph.producer(r.id, r.inputs[0].id)) is not None]
    ports = {(layer.id, port.id) for layer, port, _ in interface}
    named = 0
    for layer, port, name in interface:
        names = tensor_names(port.names)
        inner = held.get(name)
        if name not in names and inner is not None and inner not in ports:
            other = graph.layer(inner[0]).output(inner[1])
            other.names = names_attribute([n for n in tensor_names(other.names) if n != name])
            graph.touch(inner[0])
            del held[name]
        if name not in names and held.get(name, (layer.id, port.id)) == (layer.id, port.id):
            port.names = names_attribute([*names, name])
            held[name] = (layer.id, port.id)
            graph.touch(layer.id)
            named += 1
    for result in graph.results():
        if result.extra.pop("output_names", None) is not None:
            graph.touch(result.id)
    return named


def keep_v11_names(graph: Graph) -> int:
    """Rename each Parameter and each producer of an output whose IR v10 name is not one of its port's own names to
    the smallest of them, so OpenVINO reports the same names in v10 (for a producer of several outputs, ``L.N`` still
    adds one, which sorts after ``L``); where another layer has that name (releases before 2024.1 refuse
    two layers of one name), to the first of ``name_``, ``name__``... that none has. A tensor of ``shared_tensors``
    is named by its layer alone (``named_by_layer``). Returns how many layers were renamed.
    A tensor name elsewhere does not stand in the way of the smallest name: it is one of the port's own, so a tensor
    of that name elsewhere is a duplicate the file holds already, which OpenVINO reads (it keeps both); it does of
    ``name_`` (``_added``: 'res_' beside an inner tensor 'res_' reported 'res_' on the output, beside another output's
    'res_' made a file every release refuses), and of the ``name.N`` a layer of several outputs adds (TopK 'b' of
    outputs 'a', 'b' beside an output 'b.1': migrate --ir-version 10 refused its own file)."""
    exact = named_by_layer(graph)
    taken = {name for name, _ in exact.values()}
    wanted: dict[str, str] = {}  # layer id -> the largest of the smallest names its interface ports carry
    interface = [(p, p.outputs[0]) for p in graph.parameters() if p.outputs]
    interface += [found for r in graph.results() if r.inputs and (found := graph.producer(r.id, r.inputs[0].id))]
    for layer, port in interface:
        names = tensor_names(port.names)
        derived = layer.name if layer.is_a("Parameter") else v10_output_name(layer, port)
        if names and derived not in names and layer.id not in exact:
            wanted[layer.id] = max(wanted.get(layer.id, ""), min(names))
    owners: dict[str, set[str]] = {}  # a layer name -> the ids of the layers that have it
    for layer in graph.layers():
        owners.setdefault(layer.name, set()).add(layer.id)

    def rename(layer: Layer, name: str) -> None:
        owners[layer.name].discard(layer.id)
        owners.setdefault(name, set()).add(layer.id)
        layer.name = name

    renamed = 0
    for layer_id, (name, port) in exact.items():
        for other in sorted(owners.get(name, set()) - {layer_id}):  # (a Result, or a layer whose name no one reads)
            free = name + "_"
            while owners.get(free):
                free += "_"
            rename(graph.layer(other), free)
            renamed += 1
        layer = graph.layer(layer_id)
        port.names = None
        renamed += layer.name != name
        rename(layer, name)
    held: dict[str, set[tuple[str, int]]] = {}  # a tensor name -> the ports holding it
    for layer in graph.layers():
        for port_id, _, _, names, *_ in layer.output_records():
            for name in tensor_names(names):
                held.setdefault(name, set()).add((layer.id, port_id))
    for layer_id, name in wanted.items():
        layer, own = graph.layer(layer_id), name
        while (owners.get(name, {layer_id}) != {layer_id} or name in taken
               or ((name != own or len(layer.outputs) > 1)
                   and any(held.get(added, set()) - {(layer_id, port_id)}
                           for added, port_id in _added(layer, name).items()))):
            name += "_"
        rename(layer, name)
    return renamed + len(wanted)


def _added(layer: Layer, name: str) -> dict[str, int]:
    """The names OpenVINO adds in IR v10 to the inputs and outputs of ``layer`` named ``name`` (``reported_names``),
    each with the id of the port it names: its own, ``name.N`` for output N of several. One another tensor holds
    already would name two tensors: OpenVINO refuses it on another input or output (E-NAME-COLLISION), and reports an
    inner tensor's name on the output too."""
    if len(layer.outputs) < 2:
        return {name: layer.outputs[0].id}
    return {f"{name}.{i}": port.id for i, port in enumerate(layer.outputs)}


def v10_output_names(graph: Graph) -> dict[str, str]:
    """Result id -> the name OpenVINO gives its output after its producer in IR v10 (``v10_output_name``); empty for
    another IR version. ``keep_v10_output_names`` gives them back after a rewrite."""
    if graph.ir_version != 10:
        return {}
    return {result.id: v10_output_name(*found) for result in graph.results()
            if result.inputs and (found := graph.producer(result.id, result.inputs[0].id)) is not None}


def keep_v10_output_names(graph: Graph, before: dict[str, str]) -> int:
    """Rename the producer of each IR v10 output whose name after its producer was ``before``'s (``v10_output_names``
    of the graph before a rewrite, which replaced the producer: Pad-12 by Pad-1 and a StridedSlice 'PAD/crop') to that
    name again, and that of an output the rewrite made (``--stateless``: a state's) to the smallest of its tensor's
    names (``keep_v11_names``), where no other layer has it and its producer is no Parameter, so OpenVINO names the
    output as before, or only as its tensor. Where that name is no ``L.N`` and the new producer has several outputs
    (an If inlined whose body's Result read TopK's: OpenVINO names it 'L.N', reported before the tensor's 'z'), the
    output gets a tensor of its own (``own_tensor``) named so, its names moved to it. A layer that no input or output
    is named after and that has the name (an If's body layer named as the If, inlined) is renamed first
    (``_free_name``). Returns how many layers were renamed or made."""
    if graph.ir_version != 10:
        return 0
    from .builder import GraphBuilder

    builder = GraphBuilder(graph)
    names = {layer.name for layer in graph.layers()}
    interface = {layer.id for layer in graph.parameters()}
    interface |= {key[0] for r in graph.results() if r.inputs and (key := graph.producer_key(r.id, r.inputs[0].id))}
    held = {name: (layer.id, port_id) for layer in graph.layers() for port_id, _, _, names_, *_ in
            layer.output_records() for name in tensor_names(names_)}  # (a tensor's name: OpenVINO refuses it twice)
    renamed: set[str] = set()
    for result in graph.results():
        found = graph.producer(result.id, result.inputs[0].id) if result.inputs else None
        if found is None or found[0].id in renamed or found[0].is_a("Parameter"):
            continue
        layer, port = found
        was = before.get(result.id, min(tensor_names(port.names), default=None))
        if was is None or held.get(was, (layer.id, port.id)) != (layer.id, port.id):
            continue
        suffix = v10_output_name(layer, port)[len(layer.name):]  # ('.N' for output N of several)
        name = was[:len(was) - len(suffix)] if suffix and was.endswith(suffix) else None if suffix else was
        if not name and _free_name(graph, was, names, interface) and (
                convert := _results_own_tensor(builder, layer, port, was)) is not None:
            names.add(was)
            renamed.add(convert.id)
        elif name and name != layer.name and _free_name(graph, name, names, interface):
            names.discard(layer.name)
            layer.name = name
            names.add(name)
            renamed.add(layer.id)
            graph.touch(layer.id)
    return len(renamed)


def _free_name(graph: Graph, name: str, names: set[str], interface: set[str]) -> bool:
    """Whether no layer of ``graph`` has the name ``name`` once each having it is renamed ``name_``, ``name__``...
    (the first no layer has); False, renaming none, where one is of ``interface`` (a Parameter or an output's producer:
    IR v10 names a model input or output after it). ``names``: the graph's layer names, kept up to date."""
    holders = [layer for layer in graph.layers() if layer.name == name] if name in names else []
    if any(layer.id in interface for layer in holders):
        return False
    for layer in holders:
        free = name + "_"
        while free in names:
            free += "_"
        layer.name = free
        names.add(free)
        graph.touch(layer.id)
    names.discard(name)
    return True


def shared_tensors(graph: Graph) -> list[tuple[Layer, Port, str]]:
    """Each tensor an IR v10 file may not name on its port, with why: a model input that is an output too, or a tensor
    feeding several outputs. From 2025.0 on OpenVINO gives each Result a tensor of its own, sharing its producer's
    names, and refuses an output's name that an input or another output holds, the same tensor's too ("Model tensor
    names have collisions"; 2023.0-2024.6 read such a file: measured on the 20 releases 2023.0-2026.4). The name
    OpenVINO adds after the layer is no such name: named by its layer alone, every release reads the tensor alike."""
    feeding: dict[tuple[str, int], list[Layer]] = {}
    for result in graph.results():
        found = graph.producer(result.id, result.inputs[0].id) if result.inputs else None
        if found is not None:
            feeding.setdefault((found[0].id, found[1].id), []).append(result)
    shared = []
    for (layer_id, port_id), results in feeding.items():
        layer = graph.layer(layer_id)
        if layer.is_a("Parameter"):
            shared.append((layer, layer.output(port_id), "a model input that is an output too"))
        elif len(results) > 1:
            shared.append((layer, layer.output(port_id), f"a tensor feeding {len(results)} outputs"))
    return shared


def named_by_layer(graph: Graph) -> dict[str, tuple[str, Port]]:
    """Layer id -> the name it takes, and the port, so that IR v10 names each tensor of ``shared_tensors`` as its port
    does (its port's names then dropped): the one name, less ``.N`` for output N of a layer of several outputs.
    E-NAME-COLLISION (an IrToolsError) for a tensor no layer name can name so: several names, or one not ending
    ``.N``; the same name wanted for two layers."""
    exact: dict[str, tuple[str, Port]] = {}
    refused = []
    for layer, port, why in shared_tensors(graph):
        names = tensor_names(port.names)
        suffix = v10_output_name(layer, port)[len(layer.name):] if not layer.is_a("Parameter") else ""
        if not names:
            continue
        if len(names) > 1 or not names[0].endswith(suffix) or names[0] == suffix or layer.id in exact:
            refused.append(f"'{layer.name}' port {port.id} ({why}), named {', '.join(map(repr, names))}")
            continue
        exact[layer.id] = (names[0][:len(names[0]) - len(suffix)], port)
    wanted = [name for name, _ in exact.values()]
    refused += [f"two tensors named '{name}'" for name in dict.fromkeys(wanted) if wanted.count(name) > 1]
    if refused:
        raise IrToolsError("IR v10 cannot name these tensors as the model does, and OpenVINO from 2025.0 on refuses "
                           "them named on their ports ('Model tensor names have collisions'): " + "; ".join(refused)
                           + "; IR v10 names such a tensor after its layer alone (one name, 'L.N' for output N)",
                           code="E-NAME-COLLISION")
    return exact


def unshared_outputs(graph: Graph) -> Iterator[tuple[Layer, list[str]]]:
    """Each Result whose own names (``output_names``, which OpenVINO reads from 2025.1 on) are not its producer's
    tensor names, with them: two Results of one tensor named otherwise, or a Result renamed alone. OpenVINO 2025.0
    and older, and any reading IR v10, name that output after the tensor (measured on 2023.0, 2024.0, 2025.0: two
    Results of one tensor both take its name; the current OpenVINO refuses such an IR v10 file, "Model tensor names
    have collisions"). None in IR v10, whose ``output_names`` no release reads (``result_names``): every release, the
    current one too, names its outputs alike."""
    for result in graph.results():
        own = result_names(graph, result)
        found = graph.producer(result.id, result.inputs[0].id) if own and result.inputs else None
        if found is not None and set(own) != set(tensor_names(found[1].names)):
            yield result, own


def own_output_tensors(graph: Graph) -> int:
    """Give each Result of ``unshared_outputs`` a tensor of its own carrying its names: a Convert to the type it
    reads (the same numbers), so that every release, in IR v10 and v11, names the output as the current OpenVINO
    does; returns how many."""
    from .builder import GraphBuilder, origin_text

    builder = GraphBuilder(graph)
    made = 0
    for result, own in list(unshared_outputs(graph)):
        edge = graph.in_edges(result.id)[0]
        convert = own_tensor(builder, (edge.from_layer, edge.from_port), own, f"{result.name}/own_tensor",
                             origin_text(result, "output_names of Result"))
        if convert is None:
            continue  # (a port without a precision: no Convert can be written; left as it is)
        graph.remove_edge(edge)
        graph.add_edge(Edge(convert.id, convert.outputs[0].id, result.id, edge.to_port))
        made += 1
    return made


def own_shared_tensors(graph: Graph) -> int:
    """Give each tensor of ``shared_tensors`` that output N of a layer of several holds, named one name not ending
    ``.N`` (TopK's indices 'ti' read by two Results), a tensor of its own read by those Results: a Convert to its
    type (``own_tensor``: the same numbers), its name moved to it. IR v10 names such a tensor after its layer alone
    (``named_by_layer``), 'L.N' for output N of several, so without it no layer name names the tensor so
    (E-NAME-COLLISION); the Convert, of one output, takes the name. Returns how many."""
    from .builder import GraphBuilder

    builder = GraphBuilder(graph)
    made = 0
    for layer, port, _ in shared_tensors(graph):
        names = tensor_names(port.names)
        suffix = v10_output_name(layer, port)[len(layer.name):]
        if layer.is_a("Parameter") or not suffix or len(names) != 1 or names[0].endswith(suffix):
            continue  # (named by its layer, or by no layer name at all: left to ``named_by_layer``)
        made += _results_own_tensor(builder, layer, port, f"{layer.name}/output_{port.id}") is not None
    return made


def own_body_tensors(graph: Graph) -> int:
    """In each body of each If of ``graph``, give each Result but the first reading one tensor a tensor of its own
    (``own_tensor``). OpenVINO folds an If of a known condition into its body, and from 2025.0 on compiles no IR v10
    model two of whose outputs then read one tensor ("Model operation names have collisions with tensor names";
    measured on 2025.0 and 2026.4, where the IR v11 form compiles, and the IR v10 one with a Convert before the second
    Result). Returns how many."""
    from .builder import GraphBuilder, origin_text

    made = 0
    for owner in graph.by_type("If"):
        subs = fresh_subgraphs(graph, owner)
        count = 0
        for sub in subs:
            builder, read = GraphBuilder(sub.graph), set()
            for result in sub.results:
                edge = sub.graph.in_edges(result.id)[0]
                key = (edge.from_layer, edge.from_port)
                if key in read and (convert := own_tensor(builder, key, [], f"{result.name}/own_tensor",
                                                          origin_text(result, "Result"))) is not None:
                    sub.graph.remove_edge(edge)
                    sub.graph.add_edge(Edge(convert.id, convert.outputs[0].id, result.id, edge.to_port))
                    count += 1
                read.add(key)
        if count:
            owner.children = with_bodies(owner, subs)
            graph.touch(owner.id)
            made += count
    return made


def _results_own_tensor(builder: GraphBuilder, layer: Layer, port: Port, name: str) -> Layer | None:
    """The Results reading ``port`` of ``layer`` made to read a tensor of their own (``own_tensor``, layer ``name``),
    which takes the port's names (dropped from it: one tensor of each name); None, nothing changed, for a port without
    a precision."""
    from .builder import origin_text

    graph = builder.graph
    convert = own_tensor(builder, (layer.id, port.id), tensor_names(port.names), name,
                         origin_text(layer, f"output {port.id} of {layer.type}"))
    if convert is None:
        return None
    port.names = None
    for edge in list(graph.consumers(layer.id, port.id)):
        if graph.layer(edge.to_layer).is_a("Result"):
            graph.remove_edge(edge)
            graph.add_edge(Edge(convert.id, convert.outputs[0].id, edge.to_layer, edge.to_port))
    graph.touch(layer.id)
    return convert


def own_tensor(builder: GraphBuilder, source: tuple[str, int], names: list[str], name: str,
               origin: str) -> Layer | None:
    """A Convert of ``source`` to the type it holds (the same numbers), layer ``name``, its tensor named ``names``: an
    output's tensor of its own, which every release names apart from ``source`` (recording ``origin``); None for a
    port without a precision."""
    from .builder import with_origin

    element = builder.type_of(source).element
    if not element:
        return None
    convert = builder.convert(source, element, name, names=names_attribute(names))
    convert.rt_info = with_origin(convert.rt_info, origin)
    return convert


def set_ir_version(graph: Graph, version: int) -> int:
    """Make ``graph`` IR ``version``, keeping the input and output names OpenVINO reports, and declaring the dims
    OpenVINO infers as it reads that version (``dims_as_read``); returns how many ports' dims that changed."""
    if graph.ir_version == 10 and version != 10:
        keep_v10_names(graph)
    elif graph.ir_version != 10 and version == 10:
        own_output_tensors(graph)
        own_shared_tensors(graph)
        own_body_tensors(graph)
        keep_v11_names(graph)
    changed = graph.ir_version != version
    graph.ir_version = version
    return dims_as_read(graph) if changed else 0


def unique_tensor_names(graph: Graph) -> int:
    """Rename each tensor name an earlier tensor holds as OpenVINO reads it from 2025.1 on (``resolved_names``: a
    UNet's output 'sample', after its input 'sample', becomes 'sample_1'; in IR v11 a Result's ``output_names`` with
    its tensor's), so that a release before 2025.1 reads the model as IR v10 (``ops/releases
    .V10_REPEATED_TENSOR_NAMES_FROM``) and reports the names the current one does: of a graph as read, before a rewrite
    adds a tensor (a name such a tensor repeats is a clash ``migrate_graph`` refuses). Returns how many ports were
    renamed."""
    renamed = renamed_names(graph)
    for key, new in renamed.items():
        layer = graph.layer(key[0])
        port = layer.output(key[1])
        port.names = names_attribute([new.get(n, n) for n in tensor_names(port.names)])
        for edge in graph.consumers(*key):
            reader = graph.layer(edge.to_layer)
            if reader.is_a("Result") and (own := result_names(graph, reader)):
                reader.extra["output_names"] = names_attribute([new.get(n, n) for n in own])
                graph.touch(reader.id)
        graph.touch(layer.id)
    return len(renamed)


def dims_as_read(graph: Graph) -> int:
    """Re-infer and write ``graph``'s dims after its IR version changed: OpenVINO reads a decompression mark in IR v11
    alone (``shapes.read_as_decompression``), so a value it leaves unbounded in v11 is folded in v10. A static
    model's Range of compressed f32 Consts is ``[?]`` in v11 and ``[16]`` in v10, and the ``-1`` declared before
    contradicts it. Returns how many ports were corrected; a graph whose shapes cannot be inferred is left as it is
    (0), for the check after to report."""
    if graph.find_cycle() is not None:
        return 0
    try:
        return fix_dims(graph, propagate(graph))
    except IrToolsError:
        return 0


def rename_input(graph: Graph, which: Layer | str, name: str) -> None:
    """Name a model input ``name`` as OpenVINO reads it (``model.input(name)``, ``get_names``, what ``run`` and
    ``random_inputs`` key it by): the Parameter's output tensor names become ``[name]``. ``which``: the Parameter, or
    the input's name now. In an IR v10 graph OpenVINO also names an input after its layer: the layer is renamed as
    ``write_ir(..., ir_version=10)`` renames it (``keep_v11_names``). E-USAGE for an unknown input or a name another
    tensor holds."""
    named = {p.id: input_name(graph, p) for p in require_graph(graph, "rename_input").parameters()}
    parameter = _interface(which, graph.parameters(), named, "input")
    _refuse_taken(graph, name, (parameter, parameter.outputs[0]))
    parameter.outputs[0].names = names_attribute([name])
    graph.touch(parameter.id)
    if graph.ir_version == 10:
        keep_v11_names(graph)


def rename_output(graph: Graph, which: Layer | str, name: str) -> None:
    """Name a model output ``name`` as OpenVINO reads it (``model.outputs[i].get_names()``, what ``run`` and
    ``compare`` key it by), as OpenVINO's ``output.set_names({name})`` and ``save_model`` write it: the Result's own
    ``output_names`` (read from OpenVINO 2025.1 on) and the names of the tensor feeding it (read before, and in IR
    v10). Another Result of that tensor keeps its name (as its own ``output_names``). ``which``: the Result, or the
    output's name now. E-USAGE for an unknown output or a name another tensor holds."""
    named = output_names(require_graph(graph, "rename_output"))
    result = _interface(which, graph.results(), named, "output")
    found = graph.producer(result.id, result.inputs[0].id) if result.inputs else None
    _refuse_taken(graph, name, found, result)
    if found is not None:
        producer, port = found
        for edge in graph.consumers(producer.id, port.id):
            other = graph.layer(edge.to_layer)
            if other is not result and other.is_a("Result") and not other.extra.get("output_names"):
                other.extra["output_names"] = names_attribute([output_names(graph)[other.id]])
                graph.touch(other.id)
        port.names = names_attribute([name])
        graph.touch(producer.id)
    result.extra["output_names"] = names_attribute([name])
    graph.touch(result.id)
    if graph.ir_version == 10:
        keep_v11_names(graph)


def _interface(which: Layer | str, layers: list[Layer], named: dict[str, str], what: str) -> Layer:
    """The Parameter or Result ``which`` names (itself, or the name of its input or output; ``named``: each of
    ``layers``' id -> that name)."""
    if isinstance(which, Layer):
        if any(layer is which for layer in layers):
            return which
        raise IrToolsError(f"layer '{which.name}' (id {which.id}) is no {what} of the model", code="E-USAGE")
    by_name = {named[layer.id]: layer for layer in layers}
    if which not in by_name:
        raise IrToolsError(f"the model has no {what} '{which}'{did_you_mean(str(which), by_name)}; its {what}s: "
                           f"{', '.join(by_name)}", code="E-USAGE")
    return by_name[which]


def _refuse_taken(graph: Graph, name: str, port: tuple[Layer, Port] | None, result: Layer | None = None) -> None:
    """E-USAGE for an empty name, or one that a tensor other than ``port``'s, or an output other than ``result``,
    holds (OpenVINO would rename one of them, or refuse the file)."""
    if not isinstance(name, str) or not name:
        raise IrToolsError(f"a name is a non-empty string, got {name!r}", code="E-USAGE")
    own = (port[0].id, port[1].id) if port is not None else None
    for layer in graph.layers():
        for port_id, _, _, names, *_ in layer.output_records():
            if (layer.id, port_id) != own and name in tensor_names(names):
                raise IrToolsError(f"tensor name '{name}' is taken: output port {port_id} of layer '{layer.name}' "
                                   f"(id {layer.id}) holds it", code="E-USAGE")
        if layer is not result and layer.is_a("Result") and name in tensor_names(layer.extra.get("output_names")):
            raise IrToolsError(f"output name '{name}' is taken: Result '{layer.name}' (id {layer.id}) names its "
                               "output so", code="E-USAGE")


def write_ir(graph: Graph, xml_path: str | Path, ir_version: int | None = None, bin_path: str | Path | None = None,
             overwrite_input: bool = False) -> tuple[Path, Path]:
    """``ir_tools.write_ir``: ``graph`` written as IR ``ir_version`` (by default its own), made that version first by
    ``set_ir_version`` (the graph is changed: the input and output names OpenVINO reports kept), as ``--ir-version``
    makes it; then ``ir.writer.write_ir`` (atomic, never over the input unless ``overwrite_input``)."""
    require_graph(graph, "write_ir")
    refuse_misfits(graph)  # (a caller's graph; before it is changed)
    if ir_version not in (None, graph.ir_version):
        if ir_version not in (10, 11):
            raise IrToolsError(f"can write IR v10 or v11, not {ir_version!r}", code="E-USAGE")
        set_ir_version(graph, ir_version)
    return write_graph(graph, xml_path, bin_path=bin_path, overwrite_input=overwrite_input)


def interface_clashes(graph: Graph) -> dict[str, list[Layer]]:
    """Each name that two tensors of the model's inputs and outputs report (``reported_names``), with the layers
    holding them: code that feeds or reads the model by that name gets one of them (OpenVINO before 2025.1 reports
    the name twice, later ones rename one)."""
    tensors = {(p.id, p.outputs[0].id): (p, p.outputs[0]) for p in graph.parameters() if p.outputs}
    for result in graph.results():
        if result.inputs and (found := graph.producer(result.id, result.inputs[0].id)) is not None:
            tensors[(found[0].id, found[1].id)] = found
    holders: dict[str, list[Layer]] = {}
    for layer, port in tensors.values():
        for name in reported_names(graph, layer, port):
            holders.setdefault(name, []).append(layer)
    return {name: layers for name, layers in holders.items() if len(layers) > 1}


def named_alike(graph: Graph) -> set[str]:
    """Each name that two of the model's inputs and outputs report as the current OpenVINO reads them (an input its
    ``reported_names``, an output its own, ``result_names``, else its tensor's): two Results of one tensor 'a', 'b',
    the second named 'b' alone (what ``save_model`` writes after ``model.outputs[1].set_names({'b'})``), report 'b'
    twice. The IR v11 model ``own_output_tensors`` makes of it for a release before 2025.1 puts 'b' on two tensors,
    which those releases report so too (``own_names_shared``)."""
    seen: set[str] = set()
    twice: set[str] = set()
    reports = [reported_names(graph, p, p.outputs[0]) for p in graph.parameters() if p.outputs]
    reports += [result_names(graph, r) or reported_names(graph, *found) for r in graph.results()
                if r.inputs and (found := graph.producer(r.id, r.inputs[0].id)) is not None]
    for names in reports:
        for name in set(names):
            (twice if name in seen else seen).add(name)
    return twice


def own_names_shared(graph: Graph, result: Layer, own: list[str]) -> list[str]:
    """The names of ``own`` (a Result's own names, ``unshared_outputs``) that another input or output of its tensor
    reports too (``named_alike``): given a tensor of its own (``own_output_tensors``), the Result shares them with
    that tensor. Releases before 2025.1 read two output tensors of one name in IR v11, each reported as named
    (measured on 2023.0, 2024.0, 2024.1 and 2025.0), none in IR v10 ("Model tensor names have collisions"; 2026.4:
    "Model operation names have collisions with tensor names")."""
    twice = named_alike(graph)
    found = graph.producer(result.id, result.inputs[0].id) if result.inputs else None
    kept = set(tensor_names(found[1].names)) if found is not None else set()
    return [name for name in own if name in twice and name in kept]


def duplicate_tensor_names(graph: Graph) -> Iterator[Diagnostic]:
    """W-NAME-DUP: a tensor name on several ports (in IR v11 a Result's ``output_names`` is one of the tensor feeding
    it): OpenVINO keeps it on one and renames the others (``resolved_names``), so code that asks for the tensor by
    name gets another one than the file says."""
    given = given_names(graph)
    resolved = resolved_names(graph, given)
    renaming = {key[0] for key, names in given.items() if resolved.get(key) != names}  # the layers OpenVINO renames at
    if not renaming:
        return  # no name on two tensors: none renamed, told with one parse per port
    holder = {name: layer_id for (layer_id, _), names in resolved.items() for name in names}  # who keeps each name
    for layer in graph.layers():
        if layer.id not in renaming or layer.repeats_a_port_id():  # (ports that cannot be told apart: E-PORT, which
            continue  # OpenVINO refuses)
        for port_id, _, _, names, _, _, line in layer.output_records():  # records: no Port object per port
            written = list(dict.fromkeys(tensor_names(names)))
            for old, new in zip(written, resolved.get((layer.id, port_id), []), strict=False):
                if old != new:
                    first = graph.layer(holder[old])
                    yield Diagnostic("warning", "W-NAME-DUP", f"output port {port_id}: tensor name '{old}' is also on "
                                     f"layer '{first.name}' (id {first.id}), which keeps it; OpenVINO reads this one "
                                     f"as tensor name '{new}'", layer.line_loc(line))


def v10_name_collisions(graph: Graph) -> Iterator[Diagnostic]:
    """E-NAME-COLLISION: what OpenVINO's reader refuses in IR v10. A tensor of ``shared_tensors`` named on its port
    ("Model tensor names have collisions", from 2025.0 on). And ("Model operation names have collisions with tensor
    names", every release) the name it gives each output after its producer and each input after its layer may not
    already belong to another input or output tensor (a name an input has is renamed on an output); those names are
    held per tensor, as OpenVINO adds them: a Parameter feeding a Result, or two Results of one port, take one."""
    if graph.ir_version != 10:
        return
    for layer, port, why in shared_tensors(graph):
        if names := tensor_names(port.names):
            yield Diagnostic("error", "E-NAME-COLLISION", f"output port {port.id}: OpenVINO from 2025.0 on refuses "
                             f"this IR v10 tensor named on its port ({', '.join(map(repr, names))}): {why}, each "
                             "output a tensor of its own ('Model tensor names have collisions'; `migrate --ir-version "
                             "10` names it after its layer alone)", layer.loc)
    inputs = {name: (parameter.id, parameter.outputs[0].id) for parameter in graph.parameters() if parameter.outputs
              for name in tensor_names(parameter.outputs[0].names)}
    taken = set(inputs)
    sources = [graph.producer(result.id, result.inputs[0].id) if result.inputs else None for result in graph.results()]
    for found in sources:
        taken.update(tensor_names(found[1].names) if found else [])
    held: dict[tuple[str, int], set[str]] = {}  # a tensor (its output port) -> its names, with those OpenVINO adds

    def names_of(layer: Layer, port: Port) -> set[str]:
        key = (layer.id, port.id)
        if key not in held:
            held[key] = {n for n in tensor_names(port.names) if inputs.get(n, key) == key}
        return held[key]

    for result, found in zip(graph.results(), sources, strict=True):
        if found is None:
            continue
        name, own = v10_output_name(*found), names_of(*found)
        if name in taken and name not in own:
            yield Diagnostic("error", "E-NAME-COLLISION", f"OpenVINO names this IR v10 output '{name}' after layer "
                             f"'{found[0].name}', and another input or output tensor already has that name", result.loc)
        taken.add(name)
        own.add(name)
    for parameter in graph.parameters():
        own = names_of(parameter, parameter.outputs[0]) if parameter.outputs else set()
        if parameter.name in taken and parameter.name not in own:
            yield Diagnostic("error", "E-NAME-COLLISION", f"OpenVINO names this IR v10 input '{parameter.name}' after "
                             "its layer, and another input or output tensor already has that name", parameter.loc)
        taken.add(parameter.name)
        own.add(parameter.name)
