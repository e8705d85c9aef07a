"""How model inputs and outputs are named, the same way for our executor and OpenVINO."""

from __future__ import annotations

from ..ir.model import Graph, Layer


def _first_name(names: str | None) -> str | None:
    if not names:
        return None
    return names.split(",")[0].strip() or None


def input_name(graph: Graph, parameter: Layer) -> str:
    """A Parameter's first tensor name, or its layer name."""
    port = parameter.outputs[0] if parameter.outputs else None
    return _first_name(port.names if port else None) or parameter.name


def output_name(graph: Graph, result: Layer) -> str:
    """The first tensor name of the port feeding a Result, or the Result's layer name."""
    found = graph.producer(result.id, result.inputs[0].id) if result.inputs else None
    return (_first_name(found[1].names) if found else None) or result.name
