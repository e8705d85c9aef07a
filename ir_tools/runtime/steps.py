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
   a model changed since (a state written from the wrong tensor) diverges there. Where the saved report holds
   activations (``compare --steps --per-layer --save-outputs``), OpenVINO runs per layer and each step's
   activations are compared with the saved ones of their step too (``LAYER:PORT (step K) (vs saved)``), so a
   changed layer (a weight, a swapped input) is named itself, not the output or state it reaches.
4. With ``options.per_layer``, each step is also compared layer by layer as ``numeric_check.LayerCheck`` compares
   one inference (each layer the reference executes, fed OpenVINO's activations of that step), its tensors named
   ``LAYER:PORT (step K)``; a ReadValue is compared with what OpenVINO's variable held before the step (its state
   after the previous one; at step 1, the init value the kernel gives). An Assign's output is none OpenVINO lets a
   model have: what it writes is compared as the state after the step (rule 2).
5. The first divergence is the first step with a comparison that failed, and in it the one whose layer comes first
   in the graph's order: the layer itself per layer, a Result for an output, the Assign that wrote a variable.
6. With ``options.per_layer`` the outputs come from the run with every layer an output, which OpenVINO compiles
   otherwise: the model as it is runs the steps too, and each step's outputs are held to that run's
   (``numeric_check.compiled_as_is``, named ``NAME (step K)``; not for a model holding a FakeQuantize).
7. With ``options.deployed`` (``--config``: a KV cache of u8, dynamic quantization), the steps run again as
   deployed, and the report's ``deployment`` says which step's layers, outputs and variables those settings move
   beyond their bound, as for one inference (``numeric_check``): a measured deviation, not in the verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
from threadpoolctl import threadpool_limits

from ..base.errors import IrToolsError, UnsupportedError
from ..ir.model import Graph, Layer
from ..ir.names import output_names
from ..ops.rounding import EXACT
from ..passes.stateless import state_names
from .compare import CompareReport, LayerComparison, TensorComparison, Tolerances, compare_saved, compare_tensors
from .executor import Bounded, BoundedInterpreter, Interpreter, stateful
from .inputs import InputError, check_inputs, describe
from .numeric_check import (
    LAYER_PREFIX,
    OUTPUT_PREFIX,
    CompareOptions,
    LayerCheck,
    as_cpu_holds,
    compiled_as_is,
    constant_layers,
    deployment,
    fed_outputs,
    levels_may_flip,
    moved_beyond,
    named_tolerances,
)
from .openvino import ModelFiles, OpenVinoRun, run_openvino_steps
from .runners import OutputComparison, Runner


def compare_steps(graph: Graph, steps: Sequence[Mapping[str, np.ndarray]], options: CompareOptions,
                  files: ModelFiles | None = None) -> CompareReport:
    """Compare OpenVINO with the reference over ``steps`` (each step's inputs, by input name) of a stateful model
    (rules 1 to 5). The graph must pass ``check``; the inputs are validated here. E-USAGE for a graph without state,
    whose inferences stand alone."""
    if not stateful(graph):
        raise IrToolsError(f"{graph.source.name if graph.source else graph.name} holds no state (no ReadValue or "
                           "Assign): each inference stands alone; compare one (ir_tools.compare, compare without "
                           "--steps)", code="E-USAGE")
    if options.compare_constants:
        raise UnsupportedError("compare --steps compares every output and every state after each step; "
                               "--compare-constants does not take steps yet")
    if options.saved and not any(key.endswith(")") and "(step " in key for key in options.saved):
        raise InputError("--load-outputs: the saved outputs are of one inference, not of steps (no name ends in "
                         "'(step K)'), so none would be compared: save them with `compare --steps N --save-outputs`")
    options = replace(options, tolerances=named_tolerances(graph, options.tolerances))  # (as compare_model)
    steps = [check_inputs(graph, inputs) for inputs in steps]
    order = graph.topological_order()
    constant = constant_layers(graph, order)
    saved_layers = any(key.startswith(LAYER_PREFIX) for key in options.saved)
    layers_wanted = options.per_layer or saved_layers
    hidden = frozenset(graph.layer(lid).name for lid in constant) if layers_wanted else frozenset()
    reference = BoundedInterpreter(graph, order)
    ours: list[tuple[dict[str, Bounded], dict[str, Bounded]]] = []
    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(run_openvino_steps, graph, list(steps), files,  # OpenVINO releases the GIL
                              layers_wanted, hidden)
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
    report.inputs = describe(graph, steps[0], options.recipes, given)
    writers = state_writers(graph)
    results = {name: graph.layer(rid) for rid, name in output_names(graph).items()}
    fed = fed_outputs(graph)
    position = {layer.id: i for i, layer in enumerate(order)}
    report.steps = []
    as_is: list[list[dict]] = [[] for _ in steps]  # per step, its outputs as the model compiles as it is (rule 6)
    if options.per_layer and not levels_may_flip(order):
        plain = run_openvino_steps(graph, list(steps), files)
        as_is = [at_step(compiled_as_is(ran.outputs, run.outputs, tolerances), k)
                 for k, ((ran, _), (run, _)) in enumerate(zip(plain, theirs, strict=True), 1)]
        report.compiled_as_is = [t for found in as_is for t in found]
    held: dict[str, np.ndarray] = {}  # OpenVINO's variables before the step
    for k, (inputs, (outputs, variables), (run, states)) in enumerate(zip(steps, ours, theirs, strict=True), 1):
        layered = _per_layer(graph, order, constant, run, held, k, options, report) if options.per_layer else []
        layered += _layers_against_saved(graph, order, run, k, options, report) if saved_layers else []
        report.openvino_layers.update({f"{graph.layer(lid).name}:{pid} (step {k})": value
                                       for (lid, pid), value in run.layers.items()})
        held = states
        compared: list[tuple[Layer | None, str, TensorComparison]] = []  # (its layer, its tolerances' name, it)
        for name, state, expected, found, t in _step_compared(k, run.outputs, states, outputs, variables, tolerances,
                                                             fed):
            report.reference_outputs[t.name] = expected
            if found is not None:
                report.openvino_outputs[t.name] = found
            compared.append((writers.get(name) if state else results.get(name), name, t))
        compared += _against_saved(compared, report.openvino_outputs, options.saved, tolerances)
        report.outputs += [t for _, _, t in compared]
        compared += layered
        report.steps.append({"step": k, "inputs": {name: list(np.shape(v)) for name, v in inputs.items()},
                             "passed": all(t.passed for _, _, t in compared)
                             and all(t["passed"] for t in as_is[k - 1])})
        failed = [(layer, t) for layer, _, t in compared if not t.passed and t.comparable]
        if failed and report.first_divergence is None:
            layer, t = min(failed, key=lambda e: position[e[0].id] if e[0] is not None else len(order))
            report.first_divergence = {"step": k, "tensor": t.name, **located(layer)}
    if options.deployed:
        report.deployment = _deployment(graph, order, constant, list(steps), files, options, report, ours,
                                        layers_wanted)
    return report


def _deployment(graph: Graph, order: list[Layer], constant: frozenset[str], steps: list[Mapping[str, np.ndarray]],
                files: ModelFiles | None, options: CompareOptions, report: CompareReport,
                ours: list[tuple[dict[str, Bounded], dict[str, Bounded]]], layers_wanted: bool) -> dict:
    """Rule 7: the steps again with ``options.deployed`` over the pinned settings (a KV cache of u8, say), as
    ``numeric_check`` runs one inference so: with every layer an output, each step's layers checked on their own
    inputs (rule 4, ``LAYER (step K)``); the model as it is, each step's outputs and variables against the
    reference's; those the settings moved beyond their bound (a measured deviation, not in the verdict), and how
    many step outputs they changed at all (the same kind of run against the pinned one)."""
    hidden = frozenset(graph.layer(lid).name for lid in constant)
    layered = run_openvino_steps(graph, steps, files, True, hidden, options.deployed)
    plain = run_openvino_steps(graph, steps, files, deployed=options.deployed)
    pinned = {t.name: t.passed for lay in report.layers for t in lay.outputs}
    held: dict[str, np.ndarray] = {}
    compared, moved = 0, []
    for k, (run, states) in enumerate(layered, 1):
        part = CompareReport(report.model, report.config)
        _per_layer(graph, order, constant, run, held, k, options, part)
        held = states
        compared += len(part.layers)
        moved += [moved_beyond(f"{lay.name} (step {k})", lay.kind, lay.line, lay.outputs) for lay in part.layers
                  if not lay.passed and all(pinned.get(t.name, True) for t in lay.outputs)]
    fed = fed_outputs(graph)
    outputs = [t for k, ((run, states), (bounded, variables)) in enumerate(zip(plain, ours, strict=True), 1)
               for *_, t in _step_compared(k, run.outputs, states, bounded, variables, options.tolerances, fed)]
    changed = sum(not np.array_equal(value, report.openvino_outputs[f"{name} (step {k})"], equal_nan=True)
                  for k, (run, _) in enumerate(layered if layers_wanted else plain, 1)
                  for name, value in run.outputs.items())
    return deployment(options.deployed, compared, changed, moved, outputs, report)


def _step_compared(k: int, ran: Mapping[str, np.ndarray], states: Mapping[str, np.ndarray],
                   outputs: Mapping[str, Bounded], variables: Mapping[str, Bounded], tolerances: Tolerances,
                   fed: frozenset[str]) -> list[tuple[str, bool, np.ndarray, np.ndarray | None, TensorComparison]]:
    """Rule 2 for step ``k``: each output OpenVINO gave (``ran``) and each variable it holds after the step
    (``states``) against the reference's (``outputs``, ``variables``), within the tolerances and the bound; per
    comparison, the output's name or the variable's id, whether it is a variable, the reference's value, OpenVINO's
    (None: it holds no such variable), and the comparison (``NAME (step K)``, ``state VARIABLE_ID (step K)``)."""
    found: list[tuple[str, bool, np.ndarray, np.ndarray | None, TensorComparison]] = []
    for name, (expected, bound) in outputs.items():
        found.append((name, False, expected, ran[name], compare_tensors(
            f"{name} (step {k})", ran[name], as_cpu_holds(expected, name in fed), *tolerances.for_name(name),
            bound=bound)))
    for vid, (expected, bound) in variables.items():
        what = f"state {vid} (step {k})"
        if vid not in states:
            found.append((vid, True, expected, None, TensorComparison(what, False, list(expected.shape), 0.0, 0.0,
                                                                      note="OpenVINO holds no such variable")))
            continue
        held = as_variable(states[vid], expected)
        found.append((vid, True, expected, held, compare_tensors(what, held, as_cpu_holds(expected),
                                                                  *tolerances.for_name(vid), bound=bound)))
    return found


def at_step(found: list[dict], k: int) -> list[dict]:
    """``compiled_as_is`` entries of step ``k``, each named ``NAME (step K)``."""
    return [{**t, "name": f"{t['name']} (step {k})"} for t in found]


def as_variable(value: np.ndarray, like: np.ndarray) -> np.ndarray:
    """What ``query_state`` gives as the variable ``like`` holds: OpenVINO CPU gives a scalar variable as [1], and a
    variable of a float type narrower than its inference precision (f16) in f32, values exact (measured, 2026.4)."""
    if value.shape != like.shape and value.size == like.size:
        value = value.reshape(like.shape)
    if value.dtype != like.dtype and value.dtype.kind == like.dtype.kind == "f":
        narrowed = value.astype(like.dtype)
        value = narrowed if np.array_equal(narrowed, value, equal_nan=True) else value
    return value


class _StepLayerCheck(LayerCheck):
    """``LayerCheck`` of one step (rule 4): a ReadValue against what OpenVINO's variable held before the step."""

    def __init__(self, graph: Graph, order: list[Layer], options: CompareOptions, report: CompareReport,
                 constant: frozenset[str], reads: Mapping[str, frozenset[str]], held: Mapping[str, np.ndarray]):
        super().__init__(graph, order, options.tolerances, report, constant, constant, None, {}, reads)
        self.held = held

    def run_node(self, layer: Layer, args: list[np.ndarray | None]) -> list[np.ndarray | None]:
        before = self.held.get(layer.attrs["variable_id"]) if layer.is_a("ReadValue") else None
        if before is None:
            return super().run_node(layer, args)
        actual = self.openvino_values(layer)
        if actual[0] is not None:
            port = layer.outputs[0]
            self.add(layer, [compare_tensors(f"{layer.name}:{port.id}", actual[0], before,
                                             *self.tolerances.for_name(layer.name), bound=EXACT)])
        return actual


def _per_layer(graph: Graph, order: list[Layer], constant: frozenset[str], run: OpenVinoRun,
               held: Mapping[str, np.ndarray], step: int, options: CompareOptions,
               report: CompareReport) -> list[tuple[Layer | None, str, TensorComparison]]:
    """Rule 4 for one step: its layers' comparisons, named for the step; what it could not check is added to the
    report's ``not_checked`` once over all steps."""
    part = CompareReport(report.model, report.config)
    _StepLayerCheck(graph, order, options, part, constant, run.reads, held).run(run.layers)
    known = {entry["layer_id"] for entry in report.not_checked}
    report.not_checked += [entry for entry in part.not_checked if entry["layer_id"] not in known]
    out = []
    for entry in part.layers:
        for t in entry.outputs:
            t.name = f"{t.name} (step {step})"
        report.layers.append(LayerComparison(entry.layer_id, entry.name, entry.kind, entry.line, entry.outputs))
        out += [(graph.layer(entry.layer_id), entry.name, t) for t in entry.outputs]
    return out


def _against_saved(compared: list[tuple[Layer | None, str, TensorComparison]], now: Mapping[str, np.ndarray],
                   saved: Mapping[str, np.ndarray],
                   tolerances: Tolerances) -> list[tuple[Layer | None, str, TensorComparison]]:
    """Rule 3: each of this step's OpenVINO values against the saved one of its name, where one was saved."""
    return [(layer, name, compare_saved(t.name, now[t.name], saved[OUTPUT_PREFIX + t.name],
                                        *tolerances.for_name(name)))
            for layer, name, t in compared if OUTPUT_PREFIX + t.name in saved and t.name in now]


def _layers_against_saved(graph: Graph, order: list[Layer], run: OpenVinoRun, step: int, options: CompareOptions,
                          report: CompareReport) -> list[tuple[Layer | None, str, TensorComparison]]:
    """Rule 3 per layer: each activation OpenVINO gave at ``step`` against the saved one of its layer, port and step
    (``--load-outputs`` of ``compare --steps --per-layer --save-outputs``), as the report's layer entries."""
    out = []
    for layer in order:
        found = []
        for port in layer.outputs:
            key, value = f"{layer.name}:{port.id} (step {step})", run.layers.get((layer.id, port.id))
            if value is not None and LAYER_PREFIX + key in options.saved:
                found.append(compare_saved(key, value, options.saved[LAYER_PREFIX + key],
                                           *options.tolerances.for_name(layer.name)))
        if found:
            report.layers.append(LayerComparison(layer.id, layer.name, layer.kind, layer.line, found))
            out += [(layer, layer.name, t) for t in found]
    return out


def initial_states(graph: Graph, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """What each ReadValue (but a held state's: no input) gives at a first inference on ``inputs`` (its variable's
    initial value, by the reference), by the name of its output: the state inputs of the model's stateless form
    (``passes/stateless``) at its first step. Only the ReadValues and what they read run (a few shape layers and a
    Broadcast of zeros): not the model, whose layers the reference may not all run (a GatherElements of GPT-J's made
    ``migrate --stateless --check`` refuse it)."""
    first: dict[str, np.ndarray] = {}
    names = state_names(graph)

    class FirstReads(Interpreter):
        def run_node(self, layer: Layer, args: list[np.ndarray]) -> list[np.ndarray]:
            out = super().run_node(layer, args)
            if layer.is_a("ReadValue") and layer.attrs.get("variable_id", "") in names:  # (a held state: no input)
                first[names[layer.attrs["variable_id"]][0]] = out[0]
            return out

    reads = graph.ancestors(layer.id for layer in graph.by_type("ReadValue")
                            if layer.attrs.get("variable_id", "") in names)
    try:
        walk = FirstReads(graph, [layer for layer in graph.topological_order() if layer.id in reads])
    except UnsupportedError as exc:
        raise UnsupportedError(f"the state's initial values (what each ReadValue reads first) are the reference's to "
                               f"compute, and {exc.message}", exc.loc) from None
    walk.evaluate(inputs)
    return first


def state_writers(graph: Graph) -> dict[str, Layer]:
    """The first Assign (in file order) writing each variable, by variable id."""
    out: dict[str, Layer] = {}
    for layer in graph.layers():
        if layer.is_a("Assign"):
            out.setdefault(layer.attrs["variable_id"], layer)
    return out


def located(layer: Layer | None) -> dict[str, object]:
    """Where a first divergence is, as the report says it: the layer's id, name, type and line (blank: none)."""
    if layer is None:
        return {"layer_id": "", "name": "", "type": "", "line": None}
    return {"layer_id": layer.id, "name": layer.name, "type": layer.kind, "line": layer.line}


def compare_stateless_steps(graph: Graph, original: list[tuple[OpenVinoRun, dict[str, np.ndarray]]],
                            steps: list[Mapping[str, np.ndarray]], first: Mapping[str, np.ndarray],
                            stateless: Runner,
                            held: Callable[[str, np.ndarray], tuple[float, float]]) -> list[OutputComparison]:
    """A stateful model (``graph``; ``original``: its outputs and variables after each of ``steps``, run on one infer
    request: ``run_openvino_steps``) against its stateless form (``passes/stateless``), which ``stateless`` runs once
    per step, fed the state it gave at the step before (at the first, ``first``: the variables' initial values,
    ``initial_states``, which the caller computes with the original's run, as what fails there is not the stateless
    form's doing): per step
    (``NAME (step K)``), each output, and each variable as the output it became, within ``held(name, expected)``
    (atol, rtol). A state mapped wrong diverges from the second step on, where one step alone cannot tell."""
    names = state_names(graph)
    inputs_of = {read.attrs.get("variable_id", ""): names[read.attrs.get("variable_id", "")][0]
                 for read in graph.by_type("ReadValue") if read.attrs.get("variable_id", "") in names}
    outputs_of = {vid: names[vid][1] for vid in inputs_of}
    found = []
    fed = dict(first)
    for k, ((run, variables), inputs) in enumerate(zip(original, steps, strict=True), 1):
        got = stateless.run({**inputs, **fed})
        want = {**run.outputs, **{outputs_of[vid]: value for vid, value in variables.items() if vid in outputs_of}}
        found += [OutputComparison(f"{name} (step {k})", compare_tensors(f"{name} (step {k})", got[name], value,
                                                                         *held(name, value)) if name in got else None)
                  for name, value in want.items()]
        fed = {inputs_of[vid]: got[name] for vid, name in outputs_of.items() if name in got}
    return found
