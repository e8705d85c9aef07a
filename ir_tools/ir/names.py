"""How a model's inputs and outputs are named, one way for every command (inspect, run, compare, OpenVINO's runs).

OpenVINO names a tensor by the names its port carries (``names``: commas inside a name escaped ``\\,``); an IR v10
model's inputs and outputs also take the names of layers: a Parameter its own, an output its producer's (plus
``.N``, the output index, when the producer has several outputs).
"""

from __future__ import annotations

import re

from .model import Graph, Layer, Port

_UNESCAPED_COMMA = re.compile(r"(?<!\\),")


def tensor_names(names: str | None) -> list[str]:
    """A port's ``names`` attribute (or a Result's ``output_names``) as OpenVINO reads it from 2025.1 on: split at each
    comma not escaped ``\\,``, empty parts dropped, blanks kept (``' lead'`` is a name of its own; 2023.0-2025.0
    stripped them: SEMANTICS section 1)."""
    if not names:
        return []
    return [name for part in _UNESCAPED_COMMA.split(names) if (name := part.replace("\\,", ","))]


def names_attribute(names: list[str]) -> str | None:
    """Tensor names as a port's ``names`` attribute (commas inside a name escaped, as OpenVINO writes them); None for
    none."""
    return ",".join(name.replace(",", "\\,") for name in names) or None


def v10_output_name(producer: Layer, port: Port) -> str:
    """The name OpenVINO gives an IR v10 output fed by ``port`` of ``producer`` (a Parameter's is its own name)."""
    return producer.name + (f".{producer.outputs.index(port)}" if len(producer.outputs) > 1 else "")


def reported_names(graph: Graph, layer: Layer, port: Port) -> list[str]:
    """The names of the tensor an output port holds, as OpenVINO reports them (``Output.get_names``), and as
    ``input_name`` calls a Parameter without any: the port's own names, then in IR v10 the name OpenVINO gives an
    input after its Parameter and an output after its producer (``v10_output_name``)."""
    names = [name for name in tensor_names(port.names) if name]
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


def output_name(graph: Graph, result: Layer) -> str:
    """The first name a Result gives its output (``output_names``, which OpenVINO writes from 2025.1 on and reads
    before the producer's: two Results of one tensor may name it otherwise), else the first tensor name of the port
    feeding it; without one, the name OpenVINO gives it in IR v10 (after its producer), else the Result's layer
    name."""
    own = [name for name in tensor_names(result.extra.get("output_names")) if name]
    if own:
        return own[0]
    found = graph.producer(result.id, result.inputs[0].id) if result.inputs else None
    names = tensor_names(found[1].names) if found else []
    if names and names[0]:
        return names[0]
    return v10_output_name(*found) if found and graph.ir_version == 10 else result.name
