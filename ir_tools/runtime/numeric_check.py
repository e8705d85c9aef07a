"""``compare``: run a model in OpenVINO CPU and in the numpy reference, and report agreement.

End to end when we can execute every layer; layer by layer otherwise (and whenever asked, or
when an output fails, to find the first diverging layer): each layer we execute is fed
OpenVINO's own activations for its inputs, so a difference is pinned to that layer.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import IrToolsError
from ..ir.model import Graph, Layer
from ..ops.core import const_array
from .compare import CompareReport, LayerComparison, Tolerances, compare_tensors
from .executor import Interpreter, execute, supported
from .inputs import check_inputs
from .openvino import run_openvino

_PLUMBING = ("parameter", "const", "result")


def compare_model(
    graph: Graph,
    inputs: Mapping[str, np.ndarray],
    tolerances: Tolerances | None = None,
    per_layer: bool = False,
    extra_config: Mapping[str, object] | None = None,
    saved: Mapping[str, np.ndarray] | None = None,
) -> CompareReport:
    """Compare OpenVINO with the reference; with ``saved`` (see ``saved_arrays``) also with earlier outputs."""
    tolerances = tolerances or Tolerances()
    saved = saved or {}
    check_inputs(graph, inputs)
    executable = all(supported(layer) for layer in graph.layers())
    want_layers = per_layer or not executable or any(k.startswith(LAYER_PREFIX) for k in saved)
    ov_run = run_openvino(graph, inputs, per_layer=want_layers)
    config = {"openvino": ov_run.version, **ov_run.config, "atol": tolerances.atol, "rtol": tolerances.rtol,
              "atol_by_name": dict(tolerances.atol_by_name), "rtol_by_name": dict(tolerances.rtol_by_name),
              **(extra_config or {})}
    report = CompareReport(str(graph.source) if graph.source else graph.name, config)
    if executable:
        report.reference_outputs = Interpreter(graph).run(inputs)
        for name, expected in report.reference_outputs.items():
            report.outputs.append(compare_tensors(name, ov_run.outputs[name], expected, *tolerances.for_name(name)))
    if saved:
        _compare_saved(graph, ov_run, saved, tolerances, report)
    if want_layers or not report.passed:
        if not ov_run.layers:
            ov_run = run_openvino(graph, inputs, per_layer=True)
        _compare_layers(graph, ov_run.layers, tolerances, report)
    report.openvino_outputs = ov_run.outputs
    report.openvino_layers = {f"{graph.layer(lid).name}:{pid}": v for (lid, pid), v in ov_run.layers.items()}
    position = {layer.id: i for i, layer in enumerate(graph.topological_order())}
    report.layers.sort(key=lambda lay: position[lay.layer_id])
    failing = next((lay for lay in report.layers if not lay.passed), None)
    if failing is not None:
        report.first_divergence = {"layer_id": failing.layer_id, "name": failing.name, "type": failing.kind,
                                   "line": failing.line}
    return report


OUTPUT_PREFIX, REFERENCE_PREFIX, LAYER_PREFIX = "openvino/", "reference/", "layer/"


def saved_arrays(report: CompareReport) -> dict[str, np.ndarray]:
    """What ``--save-outputs`` writes: OpenVINO and reference outputs, and OpenVINO's layer activations."""
    arrays = {OUTPUT_PREFIX + k: v for k, v in report.openvino_outputs.items()}
    arrays.update({REFERENCE_PREFIX + k: v for k, v in report.reference_outputs.items()})
    arrays.update({LAYER_PREFIX + k: v for k, v in report.openvino_layers.items()})
    return arrays


def _compare_saved(graph: Graph, ov_run, saved: Mapping[str, np.ndarray], tol: Tolerances,
                   report: CompareReport) -> None:
    """OpenVINO now vs OpenVINO's saved outputs and activations (a model or its inputs changed since)."""
    for name, value in ov_run.outputs.items():
        if OUTPUT_PREFIX + name in saved:
            report.outputs.append(compare_tensors(f"{name} (vs saved)", value, saved[OUTPUT_PREFIX + name],
                                                  *tol.for_name(name)))
    for layer in graph.topological_order():
        outputs = []
        for port in layer.outputs:
            key = f"{LAYER_PREFIX}{layer.name}:{port.id}"
            if key in saved and (layer.id, port.id) in ov_run.layers:
                outputs.append(compare_tensors(f"{layer.name}:{port.id} (vs saved)", ov_run.layers[(layer.id, port.id)],
                                               saved[key], *tol.for_name(layer.name)))
        _add_layer_result(report, layer, outputs)


def _compare_layers(graph: Graph, ov_values: dict, tolerances: Tolerances, report: CompareReport) -> None:
    for layer in graph.topological_order():
        if layer.type.lower() in _PLUMBING:
            continue
        if not supported(layer):
            report.not_checked.append(_layer_ref(layer, "no reference kernel for this op"))
            continue
        args = [_activation(graph, layer, port.id, ov_values) for port in layer.inputs]
        if any(a is None for a in args):
            report.not_checked.append(_layer_ref(layer, "OpenVINO did not expose an input activation"))
            continue
        try:
            expected = execute(graph, layer, args)
        except IrToolsError as exc:
            report.not_checked.append(_layer_ref(layer, f"reference failed: {exc.message}"))
            continue
        outputs = []
        for port, value in zip(layer.outputs, expected, strict=True):
            actual = ov_values.get((layer.id, port.id))
            if actual is None:
                continue
            name = f"{layer.name}:{port.id}"
            atol, rtol = tolerances.for_name(layer.name)
            outputs.append(compare_tensors(name, actual, value, atol, rtol))
        _add_layer_result(report, layer, outputs)


def _activation(graph: Graph, layer: Layer, port_id: int, ov_values: dict) -> np.ndarray | None:
    found = graph.producer(layer.id, port_id)
    if found is None:
        return None
    src, port = found
    if src.type.lower() == "const":
        return const_array(graph, src)
    return ov_values.get((src.id, port.id))


def _layer_ref(layer: Layer, reason: str) -> dict:
    return {"layer_id": layer.id, "name": layer.name, "type": layer.kind, "line": layer.line, "reason": reason}


def _add_layer_result(report: CompareReport, layer: Layer, outputs: list) -> None:
    """Append ``outputs`` to the layer's entry (one entry per layer, whatever was compared)."""
    if not outputs:
        return
    entry = next((lay for lay in report.layers if lay.layer_id == layer.id), None)
    if entry is None:
        report.layers.append(LayerComparison(layer.id, layer.name, layer.kind, layer.line, outputs))
    else:
        entry.outputs.extend(outputs)
