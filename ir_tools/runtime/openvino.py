"""The OpenVINO runner: CPU, inference precision pinned to f32, configuration recorded.

The only module of the package that imports ``openvino``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import openvino as ov

from ..ir.model import Graph
from ..ir.writer import to_bytes
from .naming import input_name, output_name

#: The compile configuration every run uses; reports print it.
CPU_CONFIG: dict[str, str] = {"INFERENCE_PRECISION_HINT": "f32"}


@dataclass
class OpenVinoRun:
    outputs: dict[str, np.ndarray]  # keyed by output name (see runtime.naming)
    layers: dict[tuple[str, int], np.ndarray] = field(default_factory=dict)  # (layer id, port id) -> value
    config: dict[str, str] = field(default_factory=dict)
    version: str = ov.get_version()


def load(graph: Graph, core: ov.Core | None = None) -> ov.Model:
    """An ``ov.Model`` of ``graph``, loaded from memory (no temporary files)."""
    xml, blob = to_bytes(graph, graph.ir_version)
    weights = ov.Tensor(np.frombuffer(blob, dtype=np.uint8).copy()) if blob else ov.Tensor(np.empty(0, np.uint8))
    return (core or ov.Core()).read_model(xml.decode("utf-8"), weights)


def run_openvino(
    graph: Graph,
    inputs: dict[str, np.ndarray],
    per_layer: bool = False,
    threads: int | None = None,
) -> OpenVinoRun:
    """Run ``graph`` on CPU. ``per_layer`` adds every layer's outputs to the model (one compile)."""
    core = ov.Core()
    model = load(graph, core)
    if per_layer:
        skip = {"Result", "Constant"}
        model.add_outputs([out for op in model.get_ordered_ops() if op.get_type_name() not in skip
                           for out in op.outputs()])
    config = dict(CPU_CONFIG)
    if threads:
        config["INFERENCE_NUM_THREADS"] = str(threads)
    compiled = core.compile_model(model, "CPU", config)
    request = compiled.create_infer_request()
    feed = {name: np.ascontiguousarray(inputs[name]) for name in (input_name(graph, p) for p in graph.parameters())}
    request.infer(feed)
    by_source: dict[tuple[str, int], np.ndarray] = {}
    for i, result in enumerate(model.outputs):
        source = result.get_node().input_value(0)
        key = (source.get_node().get_friendly_name(), source.get_index())
        by_source[key] = request.get_output_tensor(i).data.copy()
    outputs, layers = {}, {}
    for layer in graph.layers():
        for index, port in enumerate(layer.outputs):
            if (layer.name, index) in by_source:
                layers[(layer.id, port.id)] = by_source[(layer.name, index)]
    for result in graph.results():
        found = graph.producer(result.id, result.inputs[0].id)
        if found:
            src, port = found
            outputs[output_name(graph, result)] = layers[(src.id, port.id)]
    return OpenVinoRun(outputs, layers if per_layer else {}, {"device": "CPU", **config})
