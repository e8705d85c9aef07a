"""How a model's inputs and outputs are named, one way for every command (inspect, run, compare, OpenVINO's runs).

OpenVINO names a tensor by the names its port carries (``names``: commas inside a name escaped ``\\,``); an IR v10
model's inputs and outputs also take the names of layers: a Parameter its own, an output its producer's (plus
``.N``, the output index, when the producer has several outputs).
"""

from __future__ import annotations

import re
from collections import Counter

from ..base.errors import IrToolsError
from .model import Graph, Layer, Port

_UNESCAPED_COMMA = re.compile(r"(?<!\\),")


def tensor_names(names: str | None) -> list[str]:
    """A port's ``names`` attribute (or a Result's ``output_names``) as OpenVINO reads it from 2025.1 on: split at each
    comma not escaped ``\\,``, empty parts dropped, blanks kept (``' lead'`` is a name of its own; 2023.0-2025.0
    stripped them: SEMANTICS section 1)."""
    if not names:
        return []
    if "," not in names:  # one name (most ports): nothing to split or unescape
        return [names]
    return [name for part in _UNESCAPED_COMMA.split(names) if (name := part.replace("\\,", ","))]


def names_attribute(names: list[str]) -> str | None:
    """Tensor names as a port's ``names`` attribute (commas inside a name escaped, as OpenVINO writes them); None for
    none."""
    return ",".join(name.replace(",", "\\,") for name in names) or None


def v10_output_name(producer: Layer, port: Port) -> str:
    """The name OpenVINO gives an IR v10 output fed by ``port`` of ``producer`` (a Parameter's is its own name)."""
    return producer.name + (f".{producer.outputs.index(port)}" if len(producer.outputs) > 1 else "")


def result_names(graph: Graph, result: Layer) -> list[str]:
    """A Result's own names (``output_names``) as OpenVINO reads them: in IR v11 (from 2025.1 on, before the names of
    the tensor feeding it); none in IR v10, from which no release reads them (measured on 2023.0, 2024.0, 2025.0 and
    2026.4: a v10 Result's output_names 'zzz' beside its producer 'relu' of tensor 'a': each reports 'a', 'relu')."""
    return [] if graph.ir_version == 10 else tensor_names(result.extra.get("output_names"))


def given_names(graph: Graph, keys: list[tuple[str, int]] | None = None) -> dict[tuple[str, int], list[str]]:
    """Each named output port ``(layer id, port id)`` (of ``keys`` alone, where given) with its tensor names as
    written, each once (a Result's own, ``result_names``, joined to those of the tensor feeding it), before OpenVINO
    renames those an earlier tensor holds (``resolved_names``)."""
    given: dict[tuple[str, int], list[str]] = {}
    wanted = None if keys is None else set(keys)
    layers = graph.layers() if keys is None else map(graph.layer, dict.fromkeys(key[0] for key in keys))
    for layer in layers:
        for port_id, _, _, names, *_ in layer.output_records():  # records: no Port object per port
            if names and (listed := tensor_names(names)) and (wanted is None or (layer.id, port_id) in wanted):
                given[(layer.id, port_id)] = listed if len(listed) == 1 else list(dict.fromkeys(listed))
    for result in graph.results():
        own = result_names(graph, result)
        key = graph.producer_key(result.id, result.inputs[0].id) if own and result.inputs else None
        if key is not None and key[1] in graph.layer(key[0]).output_ids():  # (an edge from no port: E-EDGE-PORT)
            given[key] = list(dict.fromkeys([*given.get(key, []), *own]))
    return given


def resolved_names(graph: Graph, given: dict[tuple[str, int], list[str]] | None = None,
                   ) -> dict[tuple[str, int], list[str]]:
    """Each named output port ``(layer id, port id)`` with its tensor names as OpenVINO reads them from 2025.1 on: in
    IR v11 a Result's ``output_names`` join the names of the tensor feeding it; then a name an earlier tensor holds is
    renamed ``NAME_N`` (the smallest N from 1 no earlier tensor holds), the tensors taken in this order: the
    Parameters', those feeding Results (both in file order: ``_interface_keys``), then the others in topological
    order. Measured on 2025.1-2026.4 (a pass's Multiply fed by 'logits' and feeding a Result named 'logits' takes the
    name, and the 'logits' before becomes 'logits_1'); 2023.0-2025.0 keep every name where it is written and read no
    ``output_names`` (SEMANTICS section 1). ``given``: the graph's ``given_names``, returned itself where no name is
    on two tensors (nothing renamed)."""
    given = given_names(graph) if given is None else given
    if not _repeated(given):
        return given
    order = _interface_keys(graph)
    order += [(layer.id, pid) for layer in _sorted(graph) for pid in layer.output_ids()]  # (ids: no Port objects)
    return _resolve(order, given)


def renamed_names(graph: Graph) -> dict[tuple[str, int], dict[str, str]]:
    """Each output port of ``graph`` holding a tensor name OpenVINO renames from 2025.1 on (``resolved_names``: an
    earlier tensor holds it), with those names -> what it reads them as."""
    given = given_names(graph)
    resolved = resolved_names(graph, given)
    if resolved is given:
        return {}  # (no name on two tensors)
    return {key: {old: new for old, new in zip(given[key], names, strict=True) if old != new}
            for key, names in resolved.items() if names != given.get(key)}


def _interface_keys(graph: Graph) -> list[tuple[str, int]]:
    """The output ports of the Parameters and of the layers feeding Results, in the order OpenVINO names tensors."""
    keys = [(p.id, p.outputs[0].id) for p in graph.parameters() if p.outputs]
    keys += [key for r in graph.results() if r.inputs and (key := graph.producer_key(r.id, r.inputs[0].id))]
    return list(dict.fromkeys(keys))


def _repeated(given: dict[tuple[str, int], list[str]]) -> bool:
    """Whether a name of ``given`` is on two tensors."""
    every = [name for names in given.values() for name in names]
    return len(every) != len(set(every))


def _resolve(order: list[tuple[str, int]], given: dict[tuple[str, int], list[str]],
             ) -> dict[tuple[str, int], list[str]]:
    """``resolved_names``' renaming, the tensors taken in ``order``."""
    seen: set[str] = set()
    resolved: dict[tuple[str, int], list[str]] = {}
    for key in dict.fromkeys(order):
        for name in given.get(key, []):
            if name in seen:
                n = 1
                while f"{name}_{n}" in seen:
                    n += 1
                name = f"{name}_{n}"
            seen.add(name)
            resolved.setdefault(key, []).append(name)
    return resolved


def _sorted(graph: Graph) -> list[Layer]:
    """The layers in topological order, or in file order on a cycle (which OpenVINO refuses and check reports)."""
    try:
        return graph.topological_order()
    except IrToolsError:
        return graph.layers()


def reported_names(graph: Graph, layer: Layer, port: Port,
                   resolved: dict[tuple[str, int], list[str]] | None = None) -> list[str]:
    """The names of the tensor an output port holds, as OpenVINO reports them (``Output.get_names``), and as
    ``input_name`` calls a Parameter without any: the port's own names (``resolved``'s, where given: ``resolved_names``
    of the graph), then in IR v10 the name OpenVINO gives an input after its Parameter and an output after its producer
    (``v10_output_name``)."""
    names = list(resolved.get((layer.id, port.id), [])) if resolved is not None else tensor_names(port.names)
    if layer.is_a("Parameter") and (graph.ir_version == 10 or not names):
        names.append(layer.name)
    elif graph.ir_version == 10 and any(graph.layer(edge.to_layer).is_a("Result")
                                        for edge in graph.consumers(layer.id, port.id)):
        names.append(v10_output_name(layer, port))
    return list(dict.fromkeys(names))


def input_name(graph: Graph, parameter: Layer) -> str:
    """A Parameter's first tensor name, or its layer name."""
    port = parameter.outputs[0] if parameter.outputs else None
    names = tensor_names(port.names if port else None)
    return names[0] if names and names[0] else parameter.name


def output_names(graph: Graph) -> dict[str, str]:
    """Each Result's id -> the first name it gives its output: its own (``result_names``: its ``output_names``, which
    OpenVINO writes from 2025.1 on and reads before the producer's in IR v11: two Results of one tensor may name it
    otherwise), else the first tensor name of the port feeding it, either as OpenVINO reads it from 2025.1 on
    (``resolved_names``: a UNet's output 'sample', after its input 'sample', is 'sample_1'); without one, the name
    OpenVINO gives it in IR v10 (after its producer), else the Result's layer name. Only inputs and outputs come
    before an output in OpenVINO's order, so only their names are looked at (not an input's: OpenVINO takes the
    inputs first, so only two inputs of one name would rename one, which no model measured has); all in one pass
    over them (a model may have thousands of outputs)."""
    keys = _interface_keys(graph)
    given = given_names(graph, keys)
    holders = Counter(name for names in given.values() for name in names)
    renamed: dict[tuple[str, int], list[str]] | None = None
    named = {}
    for result in graph.results():
        own = result_names(graph, result)
        found = graph.producer(result.id, result.inputs[0].id) if result.inputs else None
        names = own or (tensor_names(found[1].names) if found else [])
        name = names[0] if names else ""
        if name and found:
            key = (found[0].id, found[1].id)
            if holders[name] > (name in given.get(key, ())):  # another input or output holds it
                renamed = _resolve(keys, given) if renamed is None else renamed
                name = dict(zip(given.get(key, []), renamed.get(key, []), strict=True)).get(name, name)
        elif not name:
            name = v10_output_name(*found) if found and graph.ir_version == 10 else result.name
        named[result.id] = name
    return named


def output_renames(original: Graph, rewritten: Graph) -> dict[str, str]:
    """The name ``rewritten`` gives an output -> the name ``original`` gives it, for each Result the two share (by
    layer name) where the names differ: an output without a tensor name is named after its Result, and IR v10 names
    it after its producer (``output_names``), so a model migrated to v10 renames it. Outputs compared across such a
    migration are paired through this."""
    named_before, named_after = output_names(original), output_names(rewritten)
    before = {result.name: named_before[result.id] for result in original.results()}
    after = {named_after[result.id]: before.get(result.name) for result in rewritten.results()}
    return {now: was for now, was in after.items() if was is not None and was != now}
