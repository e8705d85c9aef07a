"""``compare A.xml --against B.xml --steps N``: two stateful IRs run as one generation loop, compared after each step.

1. Each model runs the same steps (``inputs.generation_step``: the prompt, then one token a step) on OpenVINO CPU,
   per layer, on one infer request reset first, its state carried from step to step (``openvino.run_openvino_steps``).
2. Each step is compared as ``against.compare_against`` compares one inference per layer (every output of A with
   B's of its name and every tensor matched by name, at the caller's tolerances, else the derived ones), on that
   step's values: every tensor takes part in the verdict, as a state's tolerance is that of the tensor written (3).
   The report lists the tensors when asked (``per_layer``) or when the step failed; each comparison is named
   ``NAME (step K)``.
3. After each step every variable of A is compared with B's of the same id (``state VARIABLE_ID (step K)``), at the
   tolerance of the tensor A's Assign writes it from: the caller's, else the one step 2 derived for that tensor
   (its bound W is also what the variable carries into the next step, where a ReadValue reads it: ``against.carried``);
   exactly where it has none (a state written from a constant).
4. The first divergence is the first step with a failed comparison, and in it the first in A's order: a layer
   itself, the Assign writing a variable, the Result of an output. A state written from the wrong tensor diverges at
   step 1 at its Assign (every tensor of step 1 is still equal); a changed weight at its layer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..base.errors import IrToolsError
from ..ir.model import Graph, Layer
from ..ir.names import output_names
from .against import IrModel, against_inputs, as_theirs, compare_against, derivable
from .compare import CompareReport, TensorComparison, Tolerances, compare_tensors
from .executor import stateful
from .inputs import Recipe, check_inputs
from .numeric_check import levels_may_flip, named_tolerances
from .onnxruntime import OnnxModel
from .openvino import run_openvino_steps
from .steps import as_variable, at_step, located, state_writers


class _Step(IrModel):
    """One step of ``model`` already run: ``run`` answers that step's outputs and activations (rule 2),
    ``as_compiled`` its outputs in the steps run as the model is compiled (None: not run)."""

    def __init__(self, model: IrModel, outputs: dict[str, np.ndarray], layers: dict,
                 plain: dict[str, np.ndarray] | None = None):
        vars(self).update(vars(model))  # the model's parse, order and runner, shared
        self.done, self.plain = (outputs, layers), plain

    def run(self, inputs: Mapping[str, np.ndarray], per_layer: bool) -> tuple[dict[str, np.ndarray], dict]:
        return self.done

    def as_compiled(self, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        assert self.plain is not None, "compare_against_steps runs the steps as compiled unless levels_may_flip"
        return self.plain


def compare_models(model: IrModel, against: IrModel | OnnxModel,
                   inputs: Mapping[str, np.ndarray] | Sequence[Mapping[str, np.ndarray]],
                   tolerances: Tolerances | None = None, per_layer: bool = False,
                   source: Mapping[str, object] | None = None,
                   recipes: Mapping[str, Recipe] | None = None) -> CompareReport:
    """``compare A --against B`` (``compare_against``); a stateful A over the steps ``inputs`` holds (each step's
    inputs; one mapping: one step), against a stateful IR B (``compare_against_steps``), else E-USAGE. For a model
    without state ``inputs`` is one inference's. E-USAGE for a per-name tolerance naming nothing of A."""
    if tolerances is not None:
        tolerances = named_tolerances(model.graph, Tolerances.given(tolerances, "compare_against(tolerances=...)"))
    if not stateful(model.graph):
        if not isinstance(inputs, Mapping):
            raise IrToolsError(f"{model.path.name} holds no state (no ReadValue or Assign): each inference stands "
                               "alone; give one inference's inputs, not steps", code="E-USAGE")
        return compare_against(model, against, inputs, tolerances, per_layer, source, recipes)
    steps = [inputs] if isinstance(inputs, Mapping) else list(inputs)
    if not isinstance(against, IrModel) or not stateful(against.graph):
        other = "is an ONNX file" if not isinstance(against, IrModel) else \
            "holds none (a stateless form, as `migrate --stateless` writes one: the state as inputs and outputs, is " \
            "compared with its original over the steps by `migrate --stateless --check`)"
        raise IrToolsError(f"{model.path.name} holds state (ReadValue/Assign): against another model, both run "
                           f"{len(steps)} step(s) of a generation loop and their state is compared, but "
                           f"{against.path.name} {other}", code="E-USAGE")
    return compare_against_steps(model, against, steps, tolerances, per_layer, source, recipes)


def compare_against_steps(model: IrModel, against: IrModel, steps: Sequence[Mapping[str, np.ndarray]],
                          tolerances: Tolerances | None = None, per_layer: bool = False,
                          source: Mapping[str, object] | None = None,
                          recipes: Mapping[str, Recipe] | None = None) -> CompareReport:
    """A (``model``) against B (``against``), both stateful IRs, over ``steps`` (each step's inputs by A's input
    names; validated here): rules 1 to 4. ``tolerances``, ``source`` and ``recipes`` as ``compare_against``'s."""
    steps = [check_inputs(model.graph, inputs) for inputs in steps]
    fed = [against_inputs(model, against, inputs) for inputs in steps]
    if tolerances is None:
        derivable(model, against)  # (before either model runs)
    ours = _run(model, list(steps))
    theirs = _run(against, [as_theirs(model, against, inputs) for inputs in fed])
    plain = [None] * len(steps) if levels_may_flip(model.order) else \
        [run.outputs for run, _ in run_openvino_steps(model.graph, list(steps), model.runner.files)]
    report: CompareReport | None = None
    position = {layer.id: i for i, layer in enumerate(model.order)}
    results = {name: model.graph.layer(rid) for rid, name in output_names(model.graph).items()}
    writers = state_writers(model.graph)
    held: dict[str, np.ndarray] = {}  # each variable's derived bound W, from step to step
    for k, (inputs, (a_run, a_states), (b_run, b_states), as_is) in enumerate(zip(steps, ours, theirs, plain,
                                                                                    strict=True), 1):
        step = compare_against(_Step(model, a_run.outputs, a_run.layers, as_is),
                               _Step(against, b_run.outputs, b_run.layers), inputs, tolerances, True, source, recipes,
                               held)
        states = [(writers.get(vid), _state(vid, k, value, b_states.get(vid), writers.get(vid), model.graph, step,
                                            tolerances, held.get(vid))) for vid, value in a_states.items()]
        failed = step.failed or any(not t.passed for _, t in states)
        if report is None:
            report = CompareReport(step.model, {**step.config, "steps": len(steps)})
            report.inputs, report.against, report.steps = step.inputs, step.against, []
        compared: list[tuple[Layer | None, TensorComparison]] = []
        for t in step.outputs:
            compared.append((results.get(t.name), t))
            t.name = f"{t.name} (step {k})"
        report.outputs += [t for _, t in compared] + [t for _, t in states]
        report.compiled_as_is += at_step(step.compiled_as_is, k)
        compared += states
        if per_layer or failed:
            for entry in step.layers:
                for t in entry.outputs:
                    t.name = f"{t.name} (step {k})"
                    compared.append((model.graph.layer(entry.layer_id), t))
            report.layers += step.layers
            known = {entry["layer_id"] for entry in report.not_checked}
            report.not_checked += [entry for entry in step.not_checked if entry["layer_id"] not in known]
        report.openvino_outputs.update({f"{name} (step {k})": v for name, v in step.openvino_outputs.items()})
        report.reference_outputs.update({f"{name} (step {k})": v for name, v in step.reference_outputs.items()})
        report.steps.append({"step": k, "inputs": {name: list(np.shape(v)) for name, v in inputs.items()},
                             "passed": not failed})
        wrong = [(layer, t) for layer, t in compared if not t.passed and t.comparable]
        if wrong and report.first_divergence is None:
            layer, t = min(wrong, key=lambda e: position[e[0].id] if e[0] is not None else len(position))
            report.first_divergence = {"step": k, "tensor": t.name, **located(layer)}
    assert report is not None  # steps is never empty
    return report


def _run(model: IrModel, steps: list[Mapping[str, np.ndarray]]) -> list:
    """Rule 1 for one model: per step, its OpenVINO run (per layer) and its variables after the step."""
    hidden = frozenset(model.graph.layer(lid).name for lid in model.constant)
    return run_openvino_steps(model.graph, steps, model.runner.files, True, hidden)


def _state(vid: str, step: int, value: np.ndarray, other: np.ndarray | None, writer: Layer | None, graph: Graph,
           report: CompareReport, tolerances: Tolerances | None, bound: np.ndarray | None) -> TensorComparison:
    """Rule 3: A's variable ``vid`` after ``step`` against B's (``bound``: the derived W of what its Assign wrote)."""
    what = f"state {vid} (step {step})"
    if other is None:
        return TensorComparison(what, False, list(value.shape), 0.0, 0.0, note="B holds no such variable")
    other = as_variable(other, value)
    if tolerances is not None:
        return compare_tensors(what, value, other, *tolerances.for_name(vid))
    source = graph.producer(writer.id, writer.inputs[0].id) if writer is not None and writer.inputs else None
    written = next((t for entry in report.layers if source is not None and entry.layer_id == source[0].id
                    for t in entry.outputs), None)
    atol, rtol = (written.atol, written.rtol) if written is not None else (0.0, 0.0)
    if bound is not None and np.shape(bound) != value.shape and np.size(bound) == value.size:
        bound = np.reshape(bound, value.shape)  # (a scalar variable OpenVINO holds as [1])
    return compare_tensors(what, value, other, atol, rtol, bound=bound)
