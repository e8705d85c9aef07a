"""How model inputs and outputs are named, the same way for our executor and OpenVINO."""

from __future__ import annotations

from ..ir.model import Graph, Layer
from ..passes.interface_names import v10_output_name


def _first_name(names: str | None) -> str | None:
    if not names:
        return None
    return names.split(",")[0].strip() or None


def input_name(graph: Graph, parameter: Layer) -> str:
    """A Parameter's first tensor name, or its layer name."""
    port = parameter.outputs[0] if parameter.outputs else None
    return _first_name(port.names if port else None) or parameter.name


def output_name(graph: Graph, result: Layer) -> str:
    """The first tensor name of the port feeding a Result; without one, the name OpenVINO gives it in IR v10
    (after its producer), else the Result's layer name."""
    found = graph.producer(result.id, result.inputs[0].id) if result.inputs else None
    if found and _first_name(found[1].names):
        return _first_name(found[1].names)
    return v10_output_name(*found) if found and graph.ir_version == 10 else result.name
