"""``compare --steps N`` on a stateful model: OpenVINO and the reference run as a generation loop runs the model.

1. Both sides start from an unset state (OpenVINO's infer request reset; a fresh ``BoundedInterpreter``) and run the
   same steps in turn (``inputs.generation_step``: the prompt, then one token a step), each carrying its own state
   from step to step: OpenVINO one infer request (``openvino.run_openvino_steps``), the reference one interpreter.
2. After each step, every output and every variable (OpenVINO's ``query_state`` against the reference's, by
   variable id) is compared within the tolerances and the rounding bound the reference propagates, state included
   (a variable's bound is carried into the next step as its value is). Each comparison is named
   ``NAME (step K)``, a variable's ``state VARIABLE_ID (step K)``, steps counted from 1.
3. With ``options.saved`` (``--load-outputs`` of a report saved by ``compare --steps``), OpenVINO's outputs and
   variables of each step are also compared with the saved ones of the same name (``NAME (step K) (vs saved)``):
   a model changed since (a state written from the wrong tensor) diverges there.
4. The first divergence is the first step with a comparison that failed, and in it the one whose layer comes first
   in the graph's order: a Result for an output, the Assign that wrote it for a variable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import threadpool_limits

from ..base.errors import UnsupportedError
from ..ir.model import Graph, Layer
from ..ir.names import output_name
from .compare import CompareReport, TensorComparison, Tolerances, compare_tensors
from .executor import Bounded, BoundedInterpreter
from .inputs import check_inputs, describe
from .numeric_check import OUTPUT_PREFIX, CompareOptions, as_cpu_holds
from .openvino import ModelFiles, run_openvino_steps


def compare_steps(graph: Graph, steps: Sequence[Mapping[str, np.ndarray]], options: CompareOptions,
                  files: ModelFiles | None = None) -> CompareReport:
    """Compare OpenVINO with the reference over ``steps`` (each step's inputs, by input name) of a stateful model
    (rules 1 to 3). The graph must pass ``check``; the inputs are validated here."""
    if options.per_layer or options.compare_constants:
        raise UnsupportedError("compare --steps compares every output and every state after each step, end to end; "
                               "--per-layer and --compare-constants do not take steps yet")
    for inputs in steps:
        check_inputs(graph, inputs)
    order = graph.topological_order()
    reference = BoundedInterpreter(graph, order)
    ours: list[tuple[dict[str, Bounded], dict[str, Bounded]]] = []
    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(run_openvino_steps, graph, list(steps), files)  # OpenVINO releases the GIL
        try:
            for inputs in steps:
                outputs = reference.evaluate(inputs)
                ours.append((outputs, dict(reference.variables.values)))
        finally:
            theirs = pending.result()  # OpenVINO's refusal, if any, is the error reported
    first_run = theirs[0][0]
    tolerances = options.tolerances
    config = {"openvino": first_run.version, **first_run.config, "atol": tolerances.atol, "rtol": tolerances.rtol,
              "atol_by_name": dict(tolerances.atol_by_name), "rtol_by_name": dict(tolerances.rtol_by_name),
              **options.source, "steps": len(steps)}
    report = CompareReport(str(graph.source) if graph.source else graph.name, config)
    given = f"from {options.source['inputs']}" if "inputs" in options.source else "given"
    report.inputs = describe(steps[0], options.recipes, given)
    writers = _writers(graph)
    results = {output_name(graph, result): result for result in graph.results()}
    position = {layer.id: i for i, layer in enumerate(order)}
    report.steps = []
    for k, (inputs, (outputs, variables), (run, states)) in enumerate(zip(steps, ours, theirs, strict=True), 1):
        compared: list[tuple[Layer | None, str, TensorComparison]] = []  # (its layer, its tolerances' name, it)
        for name, (expected, bound) in outputs.items():
            what = f"{name} (step {k})"
            report.openvino_outputs[what], report.reference_outputs[what] = run.outputs[name], expected
            compared.append((results.get(name), name, compare_tensors(
                what, run.outputs[name], as_cpu_holds(expected), *tolerances.for_name(name), bound=bound)))
        for vid, (expected, bound) in variables.items():
            what = f"state {vid} (step {k})"
            found = states.get(vid)
            report.reference_outputs[what] = expected
            if found is None:
                compared.append((writers.get(vid), vid, TensorComparison(what, False, list(expected.shape), 0.0, 0.0,
                                                                         note="OpenVINO holds no such variable")))
                continue
            report.openvino_outputs[what] = found
            compared.append((writers.get(vid), vid, compare_tensors(what, found, as_cpu_holds(expected),
                                                                    *tolerances.for_name(vid), bound=bound)))
        compared += _against_saved(compared, report.openvino_outputs, options.saved, tolerances)
        report.outputs += [t for _, _, t in compared]
        report.steps.append({"step": k, "inputs": {name: list(np.shape(v)) for name, v in inputs.items()},
                             "passed": all(t.passed for _, _, t in compared)})
        failed = [(layer, t) for layer, _, t in compared if not t.passed and t.comparable]
        if failed and report.first_divergence is None:
            layer, t = min(failed, key=lambda e: position[e[0].id] if e[0] is not None else len(order))
            report.first_divergence = {"step": k, "tensor": t.name, **_where(layer)}
    return report


def _against_saved(compared: list[tuple[Layer | None, str, TensorComparison]], now: Mapping[str, np.ndarray],
                   saved: Mapping[str, np.ndarray],
                   tolerances: Tolerances) -> list[tuple[Layer | None, str, TensorComparison]]:
    """Rule 3: each of this step's OpenVINO values against the saved one of its name, where one was saved."""
    return [(layer, name, compare_tensors(f"{t.name} (vs saved)", now[t.name], saved[OUTPUT_PREFIX + t.name],
                                          *tolerances.for_name(name)))
            for layer, name, t in compared if OUTPUT_PREFIX + t.name in saved and t.name in now]


def _writers(graph: Graph) -> dict[str, Layer]:
    """The first Assign (in file order) writing each variable, by variable id."""
    out: dict[str, Layer] = {}
    for layer in graph.layers():
        if layer.is_a("Assign"):
            out.setdefault(layer.attrs["variable_id"], layer)
    return out


def _where(layer: Layer | None) -> dict[str, object]:
    if layer is None:
        return {"layer_id": "", "name": "", "type": "", "line": None}
    return {"layer_id": layer.id, "name": layer.name, "type": layer.kind, "line": layer.line}
