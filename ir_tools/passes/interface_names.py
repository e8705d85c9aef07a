"""Model input and output names across IR versions.

OpenVINO names the inputs and outputs of an IR v10 model after layers when its ports carry no
``names``: a Parameter by its own name, an output by its producer's name (plus ``.N``, the output
index, when the producer has several outputs). An IR v11 model has only the names its ports
carry. So a v10 model written as v11 must carry those names explicitly, or code that feeds or
reads the model by name breaks (and ``migrate --check`` with it).
"""

from __future__ import annotations

from ..ir.model import Graph, Layer, Port


def v10_output_name(producer: Layer, port: Port) -> str:
    """The name OpenVINO gives an IR v10 output fed by ``port`` of ``producer`` (a Parameter's is its own name)."""
    return producer.name + (f".{producer.outputs.index(port)}" if len(producer.outputs) > 1 else "")


def keep_v10_names(graph: Graph) -> int:
    """Give every unnamed input and output port the name OpenVINO gives it in IR v10; returns how many."""
    named = 0
    for parameter in graph.parameters():
        port = parameter.outputs[0] if parameter.outputs else None
        if port is not None and not port.names:
            port.names = _escaped(parameter.name)
            named += 1
    for result in graph.results():
        found = graph.producer(result.id, result.inputs[0].id) if result.inputs else None
        if found is not None and not found[1].names:
            found[1].names = _escaped(v10_output_name(*found))
            named += 1
    return named


def _escaped(name: str) -> str:
    """A single tensor name in the ``names`` attribute: commas are escaped, as OpenVINO writes them."""
    return name.replace(",", "\\,")
