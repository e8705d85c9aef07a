"""``compare``: run a model in OpenVINO CPU and in the numpy reference, and report agreement.

End to end when we can execute every layer; layer by layer otherwise (and whenever asked, when
an output fails, to find the first diverging layer, or when an output's end-to-end bound is too loose to fail,
``compare.too_loose``): each layer we execute is fed
OpenVINO's own activations for its inputs, so a difference is pinned to that layer. Both the
per-layer and the saved-output comparisons are walks of the one graph walker over an environment
seeded with OpenVINO's activations.

Every comparison of a reference value carries its rounding bound (ops.rounding): per layer, the layer's
own rounding on OpenVINO's inputs; end to end, the bounds propagated from the inputs through every layer.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace

import numpy as np
from threadpoolctl import threadpool_limits

from ..base.dtypes import REAL_TYPES, element_type
from ..base.errors import IrToolsError, UnsupportedError, did_you_mean
from ..base.packed import BF16
from ..ir.model import Graph, Layer, Port
from ..ir.names import input_name, output_names, reported_names, resolved_names, result_names
from ..ir.walker import PortKey, Walker
from ..ops.opsets import lookup
from ..ops.rounding import handed_over, is_exact, taken_in, unit
from ..passes.shapes import declared_type
from .compare import (
    IMPLEMENTATION,
    CompareReport,
    LayerComparison,
    TensorComparison,
    Tolerances,
    compare_saved,
    compare_tensors,
    peak,
    too_loose,
)
from .executor import (
    OWN_STEPS,
    Bounded,
    BoundedInterpreter,
    Interpreter,
    body_inputs,
    execute,
    rounding_bounds,
    supported,
    unheld_float,
    unrunnable_inner,
)
from .inputs import InputError, Recipe, check_inputs, describe
from .openvino import ModelFiles, OpenVinoRun
from .openvino_infer import ON_INPUTS
from .runners import ActivationRunner, OpenVinoRunner

OUTPUT_PREFIX, REFERENCE_PREFIX, LAYER_PREFIX = "openvino/", "reference/", "layer/"


@dataclass(frozen=True)
class CompareOptions:
    """How ``compare_model`` compares, and what its report records besides."""

    tolerances: Tolerances = field(default_factory=Tolerances)
    #: also compare every layer, fed OpenVINO's activations
    per_layer: bool = False
    #: per layer, also compare constant subgraphs (weight decompression, shape arithmetic), which are otherwise
    #: computed by the reference alone
    compare_constants: bool = False
    #: OpenVINO's earlier outputs and activations (see ``saved_arrays``), to compare OpenVINO now with
    saved: Mapping[str, np.ndarray] = field(default_factory=dict)
    #: where the inputs came from (``{"seed": 0}``, ``{"inputs": path}``), recorded in the report's config
    source: Mapping[str, object] = field(default_factory=dict)
    #: how each seeded input was made (``inputs.recipes``), by name: the report says it of each input
    recipes: Mapping[str, Recipe] = field(default_factory=dict)
    #: called with each layer's name as the per-layer comparison reaches it
    progress: Callable[[str], None] | None = None
    #: OpenVINO CPU settings as the user deploys the model (``--config KEY=VALUE``): OpenVINO runs again with them,
    #: and the report says which layers and outputs they move beyond their bound, and by how much
    deployed: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        Tolerances.given(self.tolerances, "CompareOptions(tolerances=...)")


def compare_model(graph: Graph, inputs: Mapping[str, np.ndarray], options: CompareOptions,
                  openvino: ActivationRunner | ModelFiles | None = None) -> CompareReport:
    """Compare OpenVINO with the reference; with ``options.saved`` also with OpenVINO's earlier outputs.

    OpenVINO is ``openvino`` when a runner (in this process or a child's), else this process's on the
    ``ModelFiles`` given (``graph`` must be their parse), else on ``graph`` itself. The graph must pass ``check``
    (see ``passes.validate.read_valid``); the inputs are validated here. Per layer, constant subgraphs (weight
    decompression, shape arithmetic) are computed by the reference and not compared, unless
    ``options.compare_constants``. The inputs are validated, the constant layers found and the topological
    order computed once, and handed to every walk.
    The reference runs with one BLAS thread: after OpenVINO has run, its worker threads stay in the
    process, and OpenBLAS's spinning workers on the same cores stall small products.
    """
    inputs = check_inputs(graph, inputs)
    options = replace(options, tolerances=named_tolerances(graph, options.tolerances))
    _refuse_state(graph)
    refuse_unmatched(graph, options.saved)
    runner = openvino if openvino is not None and not isinstance(openvino, ModelFiles) else OpenVinoRunner(
        graph, openvino)
    with threadpool_limits(limits=1, user_api="blas"):
        try:
            return _compare_model(graph, inputs, options, runner)
        except _Refused:  # checked layer by layer, as a model with a layer of no kernel is
            return _compare_model(graph, inputs, options, runner, end_to_end_runs=False)
        except IrToolsError as exc:
            if exc.code == "E-OPENVINO" and ON_INPUTS in exc.message:
                raise where_inputs_fail(graph, inputs, exc) from None
            raise


def where_inputs_fail(graph: Graph, inputs: Mapping[str, np.ndarray], refusal: IrToolsError) -> IrToolsError:
    """OpenVINO's refusal of inputs it compiled the model for (``ON_INPUTS``: a Reshape's pattern that does not fit
    their dims) with the layer and line where they fail, as the reference finds them running on the same inputs
    (``ir-tools run`` names it, in its code; OpenVINO names a node of its own compiled graph); the refusal as it is
    where the reference cannot run the model; where it runs them, the refusal saying so (OpenVINO's own: a kernel it
    could not make on this CPU, say)."""
    try:
        Interpreter(graph).evaluate(inputs)
    except IrToolsError as failed:
        if failed.loc.layer_id is not None and not isinstance(failed, UnsupportedError):
            words = refusal.message.split(f"{ON_INPUTS}: ", 1)[-1]
            return IrToolsError(f"these inputs do not fit the model here: {failed.message} (OpenVINO, which "
                                f"compiled the model, refuses them too: {words})", failed.loc, failed.code)
        return refusal
    return IrToolsError(f"{refusal.message} (the reference runs the model on these inputs through every layer: they "
                        "fit it, and the refusal is OpenVINO's own)", refusal.loc, refusal.code)


def named_tolerances(graph: Graph, tolerances: Tolerances) -> Tolerances:
    """``tolerances`` with a per-name value given by another name of an output (OpenVINO takes an output by any of
    its names: ``--atol huge:V`` for an output ``big,huge``) held also under the name the commands key that output by
    (``output_names``), unless one is given under that name itself; the name given is kept (a layer of that name keeps
    its tolerance). E-USAGE for a per-name tolerance (``--atol NAME:V``) that names no output, layer or state variable
    of the model: a misspelt one would leave the default in force without a word. A variable is named by its id, as
    the report names its comparison (``state VARIABLE_ID (step K)``) and looks its tolerance up."""
    aliases = _output_aliases(graph)
    names = set(aliases) | {layer.name for layer in graph.layers()} | {
        layer.attrs.get("variable_id", "") for kind in ("ReadValue", "Assign") for layer in graph.by_type(kind)}
    for what, name in tolerances.unknown_names(names):
        raise IrToolsError(f"--{what} {name}:...: the model has no output or layer '{name}'"
                           f"{did_you_mean(name, names)}", code="E-USAGE")
    by_name = {}
    for what in ("atol", "rtol"):
        given = getattr(tolerances, f"{what}_by_name")
        held = dict(given)
        for name, value in given.items():
            for key in aliases.get(name, ()):
                held.setdefault(key, value)
        by_name[f"{what}_by_name"] = held
    return replace(tolerances, **by_name)


def _output_aliases(graph: Graph) -> dict[str, list[str]]:
    """Each name an output is reported by (``reported_names`` of the tensor feeding its Result, and its own) -> the
    ``output_names`` of each output of that name (two Results of one tensor are two outputs)."""
    resolved, named = resolved_names(graph), output_names(graph)
    aliases: dict[str, list[str]] = {}
    for result in graph.results():
        key = named[result.id]
        found = graph.producer(result.id, result.inputs[0].id) if result.inputs else None
        reported = reported_names(graph, *found, resolved) if found else []
        for name in dict.fromkeys([key, *result_names(graph, result), *reported]):
            aliases.setdefault(name, []).append(key)
    return aliases


def _refuse_state(graph: Graph) -> None:
    """E-UNSUPPORTED for a stateful model (ReadValue/Assign), named: ``compare_model`` runs one inference on each side
    and compares no state; ``ir_tools.compare_steps`` (``compare --steps``) runs such a model step by step."""
    stateful = [layer for layer in graph.layers() if layer.type.lower() in ("readvalue", "assign")]
    if stateful:
        variables = {layer.attrs.get("variable_id") for layer in stateful}
        first = stateful[0]
        raise UnsupportedError(f"a stateful model ({len(variables)} variable(s) that ReadValue reads and Assign "
                               "writes; this layer is the first): one inference compares no state; compare it over "
                               "steps, the state carried (ir_tools.compare_steps, compare --steps N)",
                               loc=first.loc)


def refuse_unmatched(graph: Graph, saved: Mapping[str, np.ndarray]) -> None:
    """InputError for saved outputs (``--load-outputs``) none of which is an output or a layer's activation of
    ``graph``: nothing would be compared with them, and the verdict would say nothing of them."""
    if not saved:
        return
    outputs = {OUTPUT_PREFIX + name for name in output_names(graph).values()}
    activations = {f"{LAYER_PREFIX}{layer.name}:{pid}" for layer in graph.layers() for pid in layer.output_ids()}
    if any(key in outputs or key in activations for key in saved):
        return
    if any(key.endswith(")") and "(step " in key for key in saved):
        why = ("they are of the steps of a stateful model (their names end in '(step K)'), and it runs once here "
               "(`compare --steps N` compares steps; `reduce` runs one inference)")
    else:
        shown = ", ".join(sorted(key[len(OUTPUT_PREFIX):] for key in saved if key.startswith(OUTPUT_PREFIX))[:5])
        why = f"the model's outputs are {', '.join(sorted(o[len(OUTPUT_PREFIX):] for o in outputs)[:5])}; the " \
              f"file's are {shown or 'none'}"
    raise InputError(f"--load-outputs: none of the saved outputs or activations is of this model, so none would be "
                     f"compared: {why}")


class _Refused(Exception):
    """The reference refused a layer of the end-to-end run (UnsupportedError: an attribute value its kernel does not
    compute, Interpolate's antialias): the model is then compared layer by layer, that layer not checked."""


def _compare_model(graph: Graph, inputs: Mapping[str, np.ndarray], options: CompareOptions,
                   runner: ActivationRunner, end_to_end_runs: bool = True) -> CompareReport:
    """``compare_model`` once; ``end_to_end_runs`` False: as a model with a layer the reference cannot run."""
    tolerances, saved = options.tolerances, options.saved
    order = graph.topological_order()
    executable = end_to_end_runs and all(supported(layer) for layer in order)
    want_layers = options.per_layer or not executable or any(k.startswith(LAYER_PREFIX) for k in saved)
    constant = constant_layers(graph, order)
    folded = frozenset() if options.compare_constants else constant
    hidden = frozenset(graph.layer(lid).name for lid in folded)
    in_two = executable and not any(_holds_bodies(layer) for layer in order)  # a per-layer check runs as two walks
    shared = want_layers and in_two
    # checking every layer against its own bound, the end-to-end walk needs an output's bound only where the output
    # exceeds --atol/--rtol (``_outputs_compared``), as a coarse output surely does; --config's deviations are
    # measured against the bounds
    bounded_walk = not want_layers or bool(options.deployed) or _coarse_output(graph, tolerances)
    end_to_end = _KeepingInterpreter(graph, folded if want_layers else frozenset(),
                                     _constants_first(order, folded) if shared else order, bounded_walk,
                                     beside=not shared) if executable else None
    bounding = None if bounded_walk or end_to_end is None else \
        lambda: _Rebounded(graph, order, end_to_end).evaluate(inputs)
    computed = end_to_end.kept if end_to_end is not None else {}
    layered: _Walk | None = None
    if shared and end_to_end is not None:  # (the worker's walk, then the main thread's)
        claims, layered = _layer_walks(graph, order, tolerances, (constant, folded), computed, saved, end_to_end)
    bounded: dict[str, Bounded] = {}
    opened: Future[OpenVinoRun] = Future()
    helped: CompareReport | Exception | None = None
    compared: tuple[list[TensorComparison], list[dict]] | None = None
    with ThreadPoolExecutor(max_workers=1) as pool:  # OpenVINO releases the GIL: it compiles and infers meanwhile
        pending = pool.submit(_openvino, runner, inputs, want_layers, hidden, layered, opened, options.progress)
        try:
            if end_to_end is not None:
                try:
                    bounded = end_to_end.evaluate(inputs)
                except IrToolsError as exc:  # (the walker names the layer, keeping UnsupportedError's code)
                    if exc.code != UnsupportedError.code:
                        raise
                    raise _Refused() from exc
            if layered is not None and opened.exception() is None:  # the end-to-end walk is done: help the worker
                compared = _outputs_compared(bounded, opened.result().outputs, tolerances,  # (beside its walk)
                                             fed_outputs(graph), bounding)
                try:
                    helped = layered(opened.result(), None)
                except Exception as exc:
                    helped = exc
        except BaseException:  # the end-to-end walk failed, or was interrupted: its error is the one reported, at once
            if layered is not None:
                claims.abandoned = True
            raise
        finally:
            ov_run, part = pending.result()  # OpenVINO's refusal, if any, is the error reported
    if helped is not None:
        part = _joined(claims, part, helped)
    config = {"openvino": ov_run.version, **ov_run.config, "atol": tolerances.atol, "rtol": tolerances.rtol,
              "atol_by_name": dict(tolerances.atol_by_name), "rtol_by_name": dict(tolerances.rtol_by_name),
              **options.source}
    report = CompareReport(str(graph.source) if graph.source else graph.name, config)
    given = f"from {options.source['inputs']}" if "inputs" in options.source else "given"
    report.inputs = describe(graph, inputs, options.recipes, given)
    if want_layers or not executable:
        report.folded = sum(1 for lid in folded if not graph.layer(lid).is_a("Const"))
    if executable:
        report.reference_outputs = {name: value for name, (value, _) in bounded.items()}
        report.outputs, report.too_loose = compared or _outputs_compared(bounded, ov_run.outputs, tolerances,
                                                                         fed_outputs(graph), bounding)
    if saved:
        SavedCheck(graph, order, ov_run, saved, tolerances, report).run(ov_run.layers)
    if isinstance(part, Exception):  # the per-layer walk failed: raised where it would have run
        raise part
    plain = None if ov_run.layers else ov_run  # (OpenVINO's run of the model as it is, not every layer an output)
    if part is not None:
        _merge(report, part)
    elif want_layers or report.failed or report.too_loose:
        if not ov_run.layers:
            ov_run = runner.infer(inputs, per_layer=True, hidden=hidden)
        if in_two:
            walks = _layer_walks(graph, order, tolerances, (constant, folded), computed, saved, end_to_end)
            _merge(report, _checked_in_two(*walks, ov_run, options.progress))
        else:
            LayerCheck(graph, order, tolerances, report, constant, folded, options.progress, computed,
                       ov_run.reads, saved, reused=end_to_end).run(ov_run.layers)
    if ov_run.layers and report.outputs and not levels_may_flip(order):
        report.compiled_as_is = compiled_as_is((plain or runner.infer(inputs)).outputs, ov_run.outputs, tolerances)
    _mark_incomparable(graph, report)
    report.openvino_outputs = ov_run.outputs
    report.openvino_layers = {**{f"{graph.layer(lid).name}:{pid}": v for (lid, pid), v in ov_run.layers.items()},
                              **report.openvino_layers}  # (and those of bodies LayerCheck ran: LAYER/iteration K/...)
    position = {layer.id: i for i, layer in enumerate(order)}
    report.layers.sort(key=lambda lay: position[lay.layer_id])
    failing = next((lay for lay in report.layers if not lay.passed), None)
    if failing is not None:  # inside a failing layer's body, the first of its own layers that failed, if one did
        failing = next((lay for lay in report.layers if lay.layer_id == failing.layer_id and lay is not failing
                        and not lay.passed), failing)
        report.first_divergence = {"layer_id": failing.layer_id, "name": failing.name, "type": failing.kind,
                                   "line": failing.line}
        if why := skipped_rounding(graph, graph.layer(failing.layer_id), ov_run.layers):
            report.first_divergence["why"] = why
    if options.deployed:
        report.deployment = _deployment(graph, order, inputs, options, runner, (constant, folded, hidden), report,
                                        bounded)
    return report


def skipped_rounding(graph: Graph, layer: Layer, activations: Mapping[PortKey, np.ndarray]) -> str | None:
    """Why ``layer`` diverges, where it is a Convert after a Convert to a narrower float (i32 -> f16 -> f32) and
    OpenVINO's values are the input of that narrowing, not rounded: at f32 inference precision OpenVINO CPU holds an
    f16 inside a model in f32 (70000 stays 70000, where f16 makes it inf; SEMANTICS section 7), and rounds only what
    it exposes; None otherwise."""
    inner = graph.producer(layer.id, layer.inputs[0].id) if layer.is_a("Convert") and layer.inputs else None
    if inner is None or not inner[0].is_a("Convert") or not inner[0].inputs:
        return None
    source = graph.producer_key(inner[0].id, inner[0].inputs[0].id)
    before, narrowed = activations.get(source), activations.get((inner[0].id, inner[1].id))
    value = activations.get((layer.id, layer.outputs[0].id)) if layer.outputs else None
    if before is None or narrowed is None or value is None or narrowed.dtype.kind != "f":
        return None
    direct, rounded = before.astype(value.dtype), narrowed.astype(value.dtype)
    differs = direct != rounded
    if not np.array_equal(value, direct, equal_nan=True) or not differs.any():
        return None
    at = np.flatnonzero(differs)[0]
    path = [declared_type(p).element for p in (inner[0].inputs[0], inner[1], layer.outputs[0])]
    return (f"OpenVINO CPU held the {path[1]} of the Convert before it, '{inner[0].name}' ({' -> '.join(path)}), in "
            f"f32: its values are that Convert's input, never rounded to {path[1]} ({before.flat[at]} stays "
            f"{direct.flat[at]:g}, where {path[1]} makes it {rounded.flat[at]:g})")


def _coarse_output(graph: Graph, tolerances: Tolerances) -> bool:
    """Whether an output is ``_coarse``: its end-to-end bound decides."""
    named = output_names(graph)
    return any(result.inputs and _coarse(result.inputs[0], tolerances.for_name(named[result.id])[1])
               for result in graph.results())


def _identical(actual: np.ndarray, expected: np.ndarray) -> bool:
    """Whether ``actual`` is ``expected`` element for element (NaN never is), told from a prefix first: an output
    computed otherwise differs somewhere in its first few thousand elements."""
    if actual.shape != expected.shape:
        return False
    flat_a, flat_e = actual.reshape(-1), expected.reshape(-1)
    return np.array_equal(flat_a[:_PREFIX], flat_e[:_PREFIX]) and np.array_equal(flat_a, flat_e)


#: The elements ``_identical`` compares first.
_PREFIX = 1 << 12


def _coarse(port: Port, rtol: float) -> bool:
    """Whether ``port`` holds a float narrower than f32 and ``rtol`` is below f16's unit roundoff (2^-11; the others
    round coarser): its own rounding alone takes it past --atol/--rtol wherever it is computed otherwise."""
    et = element_type(port.precision or "")
    return et is not None and et.name in REAL_TYPES and et.bits < 32 and rtol < unit(np.dtype(np.float16))


def levels_may_flip(order: list[Layer]) -> bool:
    """Whether the model holds a FakeQuantize: two compiles of it may round a value to another quantization level, a
    step no defect, so its outputs are not held to each other (``compiled_as_is``)."""
    return any(layer.is_a("FakeQuantize") for layer in order)


def compiled_as_is(plain: Mapping[str, np.ndarray], layered: Mapping[str, np.ndarray], tolerances: Tolerances
                   ) -> list[dict]:
    """Each float output of the model as OpenVINO compiles it as it is (``plain``) against the run the layers were
    checked in, every layer an output (``layered``), within ``IMPLEMENTATION`` of the output's largest magnitude (and
    atol): OpenVINO CPU fuses otherwise when layers are outputs, and a fusion of the model as it is may compute it
    wrongly, which no layer checked shows (T5 made static: its mask added to its position bias regrouped, the bias
    lost, last_hidden_state 0.229 off for 2.9; every layer and the output of the checked run passed, with
    ``--per-layer`` too). One beyond fails the report. Not asked where ``levels_may_flip`` (mobilenet_v3_large_int8's
    logits 0.0047 apart for 0.035)."""
    found = []
    for name, theirs in layered.items():
        if name not in plain or theirs.dtype.kind != "f":
            continue
        ours, theirs = np.asarray(plain[name], np.float64), np.asarray(theirs, np.float64)
        if ours.shape != theirs.shape:
            continue
        alike = (ours == theirs) | (np.isnan(ours) & np.isnan(theirs))  # (the same infinity, or both NaN)
        with np.errstate(invalid="ignore"):
            apart = np.where(alike, 0.0, np.abs(ours - theirs))
        worst = math.inf if np.isnan(apart).any() else float(np.max(apart, initial=0.0))
        limit = IMPLEMENTATION * peak(theirs) + tolerances.for_name(name)[0]
        found.append({"name": name, "max_abs_difference": worst, "limit": limit, "passed": worst <= limit})
    return found


def _outputs_compared(bounded: Mapping[str, Bounded], outputs: Mapping[str, np.ndarray], tolerances: Tolerances,
                      fed: frozenset[str], bounding: Callable[[], Mapping[str, Bounded]] | None = None,
                      ) -> tuple[list[TensorComparison], list[dict]]:
    """Each output of OpenVINO against the end-to-end reference within its bound, and those whose bound is too loose
    to fail (``compare.too_loose``); in the main thread beside the worker's per-layer walk, once both have run.
    ``bounding``: where the walk propagated no bounds, the walk that does, run only if an output with no bound exceeds
    its --atol/--rtol; that output is then compared within its bound. ``fed``: the outputs OpenVINO gives as fed
    (``fed_outputs``)."""
    found, loose = [], []
    rewalked: Mapping[str, Bounded] | None = None
    for name, (expected, bound) in bounded.items():
        found.append(compare_tensors(name, outputs[name], as_cpu_holds(expected, name in fed),
                                     *tolerances.for_name(name), bound=bound))
        if not found[-1].passed and bound is None and bounding is not None:
            if rewalked is None:
                rewalked = bounding()
            expected, bound = rewalked[name]
            found[-1] = compare_tensors(name, outputs[name], as_cpu_holds(expected, name in fed),
                                        *tolerances.for_name(name), bound=bound)
        entry = too_loose(found[-1], expected)
        if entry is not None:
            loose.append(entry)
    return found, loose


def _openvino(runner: ActivationRunner, inputs: Mapping[str, np.ndarray], per_layer: bool, hidden: frozenset[str],
              layered: _Walk | None,
              opened: Future[OpenVinoRun], step: Callable[[str], None] | None,
              ) -> tuple[OpenVinoRun, CompareReport | Exception | None]:
    """OpenVINO's run (the worker thread's, beside the end-to-end reference), also handed to ``opened``; then, with
    ``layered``, the per-layer walk on its activations, in the same thread: it would otherwise wait for the
    end-to-end run to end, one core idle on each side (vit_b_16: 4.4 s after 8.5 s), and the main thread joins it
    when the end-to-end run ends (``_Claims``). What it reports (or the error it raised) is merged where the walk
    would have run; the end-to-end run hands it the folded layers' values and bounds as it reaches them
    (``_KeepingInterpreter.settle``)."""
    try:
        run = runner.infer(inputs, per_layer=per_layer, hidden=hidden)
        if layered is not None and not run.layers:
            run = runner.infer(inputs, per_layer=True, hidden=hidden)
    except BaseException as exc:
        opened.set_exception(exc)
        raise
    opened.set_result(run)
    if layered is None:
        return run, None
    try:
        return run, layered(run, step)
    except Exception as exc:  # (an error of the reference on OpenVINO's values; the end-to-end one's comes first)
        return run, exc


class _Claims:
    """The layers one of the two per-layer walks has claimed to check: each walks every layer (the folded ones give
    both their values) and checks those it claims first, so the two share the checks wherever each is; and where a
    walk failed."""

    def __init__(self, order: list[Layer]):
        self.position = {layer.id: i for i, layer in enumerate(order)}
        self._taken: set[str] = set()
        self._lock = threading.Lock()
        self.failed: dict[int, str] = {}  # id of the exception a walk raised -> the layer it raised at
        self.abandoned = False  # the end-to-end walk failed (or was interrupted): the per-layer walks stop

    def take(self, layer_id: str) -> bool:
        with self._lock:
            if layer_id in self._taken:
                return False
            self._taken.add(layer_id)
            return True


#: One of two per-layer walks over OpenVINO's activations (with a progress step, or None): its own report.
_Walk = Callable[[OpenVinoRun, Callable[[str], None] | None], CompareReport]


def _layer_walks(graph: Graph, order: list[Layer], tolerances: Tolerances,
                 kinds: tuple[frozenset[str], frozenset[str]], computed: dict[str, list[np.ndarray]],
                 saved: Mapping[str, np.ndarray], reused: _KeepingInterpreter | None) -> tuple[_Claims, _Walk]:
    """Two per-layer walks that share the checks: their ``_Claims``, and the walk each runs, which checks the layers it
    claims first and records an error it raises with the layer it raised at. ``kinds``: the constant and the folded
    layers."""
    constant, folded = kinds
    claims = _Claims(order)
    checks = _costliest_first(graph, order, constant)

    def walk(run: OpenVinoRun, step: Callable[[str], None] | None) -> CompareReport:
        check = LayerCheck(graph, checks, tolerances, CompareReport("", {}), constant, folded, step, computed,
                           run.reads, saved, reused=reused, claims=claims)
        try:
            check.run(run.layers)
        except Exception as exc:
            claims.failed[id(exc)] = check.at
            raise
        return check.report

    return claims, walk


def _checked_in_two(claims: _Claims, walk: _Walk, run: OpenVinoRun, step: Callable[[str], None] | None,
                    ) -> CompareReport:
    """Every layer checked on OpenVINO's activations ``run`` after the end-to-end walk (its outputs failed, or their
    bound was too loose to fail) by the two ``_layer_walks``, one in a worker thread, as ``--per-layer``'s are: the
    checks are mostly numpy on large arrays, which releases the GIL."""

    def guarded(walk_step: Callable[[str], None] | None) -> CompareReport | Exception:
        try:
            return walk(run, walk_step)
        except Exception as exc:
            return exc

    with ThreadPoolExecutor(max_workers=1) as pool:
        theirs = pool.submit(guarded, step)
        try:
            mine = guarded(None)
        except BaseException:  # interrupted: the worker's walk stops at its next check
            claims.abandoned = True
            raise
        part = _joined(claims, theirs.result(), mine)
    if isinstance(part, Exception):
        raise part
    assert part is not None
    return part


class _Abandoned(Exception):
    """Raised by a per-layer walk beside an end-to-end walk that failed: that walk's error is the one reported."""


def _joined(claims: _Claims, part: CompareReport | Exception | None,
            helped: CompareReport | Exception) -> CompareReport | Exception | None:
    """The two per-layer walks' reports as one walk's (entries in the order of the layers), or the error the first
    failing layer raised."""
    if part is None:
        return helped
    position = claims.position
    failures = [e for e in (part, helped) if isinstance(e, Exception)]
    if failures:
        return min(failures, key=lambda e: position.get(claims.failed.get(id(e), ""), len(position)))
    assert isinstance(part, CompareReport) and isinstance(helped, CompareReport)
    joined = CompareReport("", {})
    _merge(joined, part)
    _merge(joined, helped)  # (each layer is checked by one walk: no entry of one joins the other's)
    joined.layers.sort(key=lambda lay: position[lay.layer_id])
    joined.not_checked.sort(key=lambda e: position[e["layer_id"]])
    return joined


def _constants_first(order: list[Layer], folded: frozenset[str]) -> list[Layer]:
    """The end-to-end walk's order beside a per-layer walk: the ``folded`` layers (weight decompression, shape
    arithmetic) first, then the others, each group in ``order``. A per-layer check waits for the folded layers it
    reads (``_KeepingInterpreter.settle``): the check of a MatMul on the last decompressed weight, a Llama's lm_head,
    then runs while the end-to-end walk computes the activations, not after it."""
    return [layer for layer in order if layer.id in folded] + [layer for layer in order if layer.id not in folded]


def _costliest_first(graph: Graph, order: list[Layer], constant: frozenset[str]) -> list[Layer]:
    """The per-layer walks' order: the ``constant`` layers and the Parameters (whose values a check reads) in
    ``order``, then the layers checked, those with the most constant input elements (weights) first. A check reads
    OpenVINO's activations, not what the check of a producer gave, so any order after those is the same checks; the
    costliest first, the two walks end together, not one checking a lm_head alone at the end."""
    first = [layer for layer in order if layer.id in constant or layer.is_a("Parameter")]
    rest = [layer for layer in order if not (layer.id in constant or layer.is_a("Parameter"))]

    def weights(layer: Layer) -> int:
        total = 0
        for port in layer.inputs:
            found = graph.producer(layer.id, port.id)
            if found is not None and found[0].id in constant and port.dims and min(port.dims) >= 0:
                total += math.prod(port.dims)
        return total

    return first + sorted(rest, key=weights, reverse=True)


def _holds_bodies(layer: Layer) -> bool:
    """A TensorIterator, Loop or If: its bodies' interpreters are shared by the walks (``executor.bind``), so the
    per-layer walk of a model holding one runs after the end-to-end walk, not beside it."""
    spec = lookup(layer.type, layer.version)
    return spec is not None and bool(spec.bodies)


def _merge(report: CompareReport, part: CompareReport) -> None:
    """What the per-layer walk reported into ``part`` added to ``report`` as if it had walked ``report`` itself: a
    layer's outputs join its entry from ``SavedCheck`` if there is one."""
    entries = {}
    for entry in report.layers:
        entries.setdefault(entry.layer_id, entry)
    for entry in part.layers:
        found = entries.get(entry.layer_id)
        if found is None:
            report.layers.append(entry)
        else:
            found.outputs.extend(entry.outputs)
    report.not_checked += part.not_checked
    report.openvino_layers.update(part.openvino_layers)
    report.bodies += part.bodies


def _deployment(graph: Graph, order: list[Layer], inputs: Mapping[str, np.ndarray], options: CompareOptions,
                runner: ActivationRunner, constants: tuple[frozenset[str], frozenset[str], frozenset[str]],
                report: CompareReport, bounded: Mapping[str, Bounded]) -> dict:
    """OpenVINO again with ``options.deployed`` over the pinned settings: the layers and outputs within their bound
    when pinned and beyond it when deployed, each with its error/bound and largest difference, and every output's
    deviation from the reference; a measured deviation of those settings, not a defect of the model. The outputs
    are those of the model compiled as deployed, with only its own outputs: a model with every layer an output
    computes otherwise (exposed layers are not fused: the int4 Llama of the target zoo at bf16, logits 0.00485 from
    the reference so, 0.00586 as deployed), so the layers come from a second compile with every layer exposed,
    each checked on its own inputs as in the pinned run. Also how many outputs the settings changed at all (none:
    they change nothing on this CPU, as dynamic quantization on one without AVX-512), per-layer run against
    per-layer run."""
    if not isinstance(runner, OpenVinoRunner):
        raise IrToolsError("deployment settings (--config) apply to this process's OpenVINO", code="E-USAGE")
    constant, folded, hidden = constants
    deployed = OpenVinoRunner(runner.graph, runner.files, options.deployed)
    ran = deployed.infer(inputs, per_layer=True, hidden=hidden)
    scratch = CompareReport(report.model, {})
    LayerCheck(graph, order, options.tolerances, scratch, constant, folded, None, {}, ran.reads).run(ran.layers)
    pinned = {layer.layer_id: layer.passed for layer in report.layers}
    moved = [moved_beyond(layer.name, layer.kind, layer.line, layer.outputs) for layer in scratch.layers
             if not layer.passed and pinned.get(layer.layer_id, True)]
    plain = deployed.infer(inputs).outputs
    fed = fed_outputs(graph)
    outputs = [compare_tensors(name, plain[name], as_cpu_holds(expected, name in fed),
                               *options.tolerances.for_name(name), bound=bound)
               for name, (expected, bound) in bounded.items()]
    changed = sum(not np.array_equal(value, report.openvino_outputs[name], equal_nan=True)
                  for name, value in ran.outputs.items())
    return deployment(options.deployed, len(scratch.layers), changed, moved, outputs, report)


def deployment(config: Mapping[str, str], layers_compared: int, changed: int, moved: list[dict],
               outputs: list[TensorComparison], report: CompareReport) -> dict:
    """The report's ``deployment`` (one inference's, or a stateful model's steps'): the settings, how many layers
    were compared as deployed and how many outputs the settings changed at all, the layers they ``moved`` beyond
    their bound, and each of ``outputs`` as deployed, those beyond their bound that passed as pinned (``report``'s)
    listed as moved."""
    pinned = {t.name: t.passed for t in report.outputs}
    return {"config": dict(config), "layers_compared": layers_compared, "outputs_changed": changed,
            "layers_moved": moved,
            "outputs_moved": [moved_beyond(t.name, None, None, [t]) for t in outputs
                              if not t.passed and pinned.get(t.name, True)],
            "outputs": [moved_beyond(t.name, None, None, [t]) for t in outputs]}


def moved_beyond(name: str, kind: str | None, line: int | None, outputs: list[TensorComparison]) -> dict:
    """A layer or output the deployment settings moved beyond its bound: how far (the worst of its outputs), as the
    report's ``deployment`` lists it."""
    worst = max(outputs, key=lambda t: (t.error_to_bound or 0.0, t.max_abs_error))
    return {"name": name, "type": kind, "line": line, "error_to_bound": worst.error_to_bound,
            "max_abs_error": worst.max_abs_error}


#: Why LayerCheck leaves a layer whose reference and OpenVINO differ by design (not a defect of either).
SATURATES = ("8-bit integer arithmetic: OpenVINO CPU saturates where the specification (and the reference) wraps "
             "around; not comparable")


def _mark_incomparable(graph: Graph, report: CompareReport) -> None:
    """A failed output downstream of a layer the reference and OpenVINO compute differently by design (8-bit
    saturation) is not comparable, not failed: the end-to-end values cannot agree there."""
    sources = {entry["layer_id"] for entry in report.not_checked if entry["reason"] == SATURATES}
    if not sources:
        return
    results = {name: graph.layer(rid) for rid, name in output_names(graph).items()}
    for t in report.outputs:
        result = results.get(t.name)
        if t.passed or result is None:
            continue
        upstream = sorted(graph.ancestors([result.id]) & sources)
        if upstream:
            first = graph.layer(upstream[0])
            t.comparable = False
            t.note = (f"not comparable: it depends on '{first.name}' ({first.kind}), whose 8-bit "
                      "arithmetic OpenVINO CPU saturates where the reference wraps around")


def constant_layers(graph: Graph, order: list[Layer] | None = None) -> frozenset[str]:
    """Ids of the layers whose values depend on no Parameter (Consts and what the reference computes from Consts
    alone); ``order`` is the graph's topological order, when the caller has it."""
    constant: set[str] = set()
    for layer in graph.topological_order() if order is None else order:
        if layer.is_a("Const") or (
                layer.inputs and not layer.is_a("Result") and supported(layer)
                and all((found := graph.producer(layer.id, port.id)) is not None and found[0].id in constant
                        for port in layer.inputs)):
            constant.add(layer.id)
    return frozenset(constant)


def data_tensors(graph: Graph, order: list[Layer] | None = None) -> frozenset[PortKey]:
    """The output ports of ``graph`` whose values depend on what the model is fed (a Parameter's or a state's values,
    not only through a ShapeOf): OpenVINO computes them when the model runs, where the others (shape arithmetic of a
    part, whose inputs have static dims, and constants) it may fold when it compiles. ``order``: the graph's
    topological order, when the caller has it."""
    found: set[PortKey] = set()
    for layer in graph.topological_order() if order is None else order:
        fed = layer.is_a("Parameter") or layer.type.lower() == "readvalue" or (not layer.is_a("ShapeOf") and any(
            graph.producer_key(layer.id, port.id) in found for port in layer.inputs))
        if fed:
            found.update((layer.id, port.id) for port in layer.outputs)
    return frozenset(found)


def saved_arrays(report: CompareReport) -> dict[str, np.ndarray]:
    """What ``--save-outputs`` writes: OpenVINO and reference outputs, and OpenVINO's layer activations."""
    arrays = {OUTPUT_PREFIX + k: v for k, v in report.openvino_outputs.items()}
    arrays.update({REFERENCE_PREFIX + k: v for k, v in report.reference_outputs.items()})
    arrays.update({LAYER_PREFIX + k: v for k, v in report.openvino_layers.items()})
    return arrays


class _ReportWalker(Walker["np.ndarray | None"]):
    """A walk over OpenVINO's activations (the seeded environment) that adds layer results to a report;
    every layer's values stay OpenVINO's, so each layer is judged on its own."""

    def __init__(self, graph: Graph, order: list[Layer], tolerances: Tolerances, report: CompareReport):
        super().__init__(graph, order=order)
        self.tolerances = tolerances
        self.report = report

    def missing(self, layer: Layer, port: Port) -> None:
        return None  # OpenVINO did not expose that activation

    def run(self, env: Mapping[tuple[str, str], np.ndarray] | None = None, dirty: set[str] | None = None
            ) -> dict[tuple[str, str], np.ndarray | None]:
        """The walk over OpenVINO's activations ``env``, each bf16 one as ``BF16`` (``tagged_bf16``): a check reads
        its inputs' activations from the seeded environment, whatever order it runs in."""
        ports = {(layer.id, port.id): port for layer in self.order for port in layer.outputs}
        seeded = {key: tagged_bf16(value, ports[key]) if key in ports else value for key, value in (env or {}).items()}
        return super().run(seeded, dirty)

    def openvino_values(self, layer: Layer) -> list[np.ndarray | None]:
        return [self.env.get((layer.id, port.id)) for port in layer.outputs]

    def add(self, layer: Layer, outputs: list[TensorComparison]) -> None:
        """Append ``outputs`` to the layer's entry (one entry per layer, whatever was compared)."""
        if not outputs:
            return
        entry = next((lay for lay in self.report.layers if lay.layer_id == layer.id), None)
        if entry is None:
            self.report.layers.append(LayerComparison(layer.id, layer.name, layer.kind, layer.line, outputs))
        else:
            entry.outputs.extend(outputs)


_I32 = np.iinfo(np.int32)


def as_cpu_holds(value: np.ndarray, fed: bool = False) -> np.ndarray:
    """The reference's value as OpenVINO CPU holds it: CPU computes i64 tensors as i32, saturating what does not fit
    (a Slice's "to the end", 2^63 - 1, is 2^31 - 1 there; measured on swin3d_t's shifted windows); but an output a
    Result reads from an input directly (``fed``, ``fed_outputs``), which CPU gives as fed (2^33 + 5 too, measured on
    2026.4: compare FAILed it against the reference's saturated 2^31 - 1)."""
    return np.clip(value, _I32.min, _I32.max) if value.dtype == np.int64 and not fed else value


def fed_outputs(graph: Graph) -> frozenset[str]:
    """The outputs (``output_names``) a Result reads from a Parameter directly (``as_cpu_holds``)."""
    named = output_names(graph)
    return frozenset(named[result.id] for result in graph.results()
                     if (found := graph.producer(result.id, result.inputs[0].id)) is not None
                     and found[0].is_a("Parameter"))


def as_declared(value: np.ndarray | None, port: Port) -> np.ndarray | None:
    """OpenVINO's value of an input in the float type the file declares: read_model gives an IR v10 f16 input f32
    (the f16 values fed come back exactly), and its consumers must be computed in f16 as OpenVINO computes them
    and rounds what it exposes, else the reference's f32 result is held to an f32 bound (a Convolution on Open
    Model Zoo's FP16 IRs failed at 229 times its bound)."""
    et = element_type(port.precision or "")
    want = et.numpy if et is not None else None
    if value is None or want is None or value.dtype == want or value.dtype.kind != "f" or want.kind != "f":
        return value
    return value.astype(want)


def fits(shape: tuple[int, ...], dims: tuple[int, ...]) -> bool:
    """Whether an activation of ``shape`` may be a port's of declared ``dims`` (-1 dynamic; none: a scalar or a dynamic
    rank, which say nothing here)."""
    return not dims or len(shape) == len(dims) and all(d < 0 or d == n for n, d in zip(shape, dims, strict=True))


def _misfits(layer: Layer, actual: list[np.ndarray | None]) -> dict[int, tuple[int, ...]]:
    """The outputs of ``layer`` OpenVINO exposed (``actual``) at other dims than their port's (not ``fits``), by index,
    each with the shape it gave; none of an op whose outputs are so (``OpSpec.selects_rows``)."""
    spec = lookup(layer.type, layer.version)
    if spec is not None and spec.selects_rows:
        return {}
    return {i: value.shape for i, (value, port) in enumerate(zip(actual, layer.outputs, strict=True))
            if value is not None and not fits(value.shape, port.dims)}


def misfit(port: Port, shape: tuple[int, ...]) -> str:
    """What a report says of an activation OpenVINO exposed at other dims than its ``port``'s (not ``fits``): not that
    port's tensor (measured on 2026.4.1: the layers inside a partial RoPE, gpt_neox's and phi's, give the fused
    kernel's whole output)."""
    return (f"OpenVINO exposed output {port.id} as {list(shape)}, where the model's dims are {list(port.dims)} (the "
            "output of a kernel it fused the layer into, a partial RoPE's, for one)")


def tagged_bf16(value: np.ndarray | None, port: Port) -> np.ndarray | None:
    """OpenVINO's value of a port the file declares bf16 (f32 values: ``openvino_infer._values``) as ``BF16``, so that
    its consumers' bounds are bf16's; any other as it is."""
    et = element_type(port.precision or "")
    if value is None or et is None or et.name != "bf16" or value.dtype != np.float32:
        return value
    return value.view(BF16)


#: The integer types OpenVINO CPU computes saturating for the ops whose spec says ``cpu_saturates``.
_NARROW_INTS = (np.dtype(np.int8), np.dtype(np.uint8))


class _KeepingInterpreter(BoundedInterpreter):
    """The end-to-end run, keeping the values of the ``folded`` layers it computes (the per-layer walk needs the
    same ones: decompressed f16 weights are converted once, not twice), and their bounds where the per-layer walk
    would compute the very same ones (``reused``: the same rule, no ``statistical`` variant, fed the same bounds),
    those it needs: an NNCF int8 embedding's decompression (16M elements) then has its bounds computed once, not
    twice (half of compare's time on a 50M-parameter Llama)."""

    def __init__(self, graph: Graph, folded: frozenset[str], order: list[Layer], bounded: bool = True,
                 beside: bool = True):
        super().__init__(graph, order, bounded, beside)
        self.folded = folded
        self.kept: dict[str, list[np.ndarray]] = {}
        # not bounded: the other layers' outputs, for a second walk that bounds them (``_Rebounded``)
        self.outputs_of: dict[str, list[np.ndarray]] = {}
        self.reused: set[str] = set()  # folded layers whose per-layer bounds are these
        self.kept_bounds: dict[tuple[str, str], np.ndarray] = {}  # of ``reused`` layers a per-layer bound reads
        self._walked = 0  # layers of ``order`` run so far
        self._begun = 0  # layers of ``order`` begun so far (``_run_node``: their inputs' bounds kept)
        self._ended = False  # the walk ended (or failed): nothing more comes
        self._progress = threading.Condition()
        self._settled: dict[str, tuple[int, int]] | None = None  # per folded layer: see ``settle``
        # the folded layers' outputs a layer the per-layer walk checks reads (their bounds are kept as they are made)
        self._read_apart = {key for layer in self.order if layer.id not in folded
                            for key in graph.input_keys(layer.id, layer.input_ids())
                            if key is not None and key[0] in folded}

    def evaluate(self, inputs: Mapping[str, np.ndarray]) -> dict[str, Bounded]:
        try:
            return super().evaluate(inputs)
        finally:
            with self._progress:
                self._ended = True
                self._progress.notify_all()

    def settle(self, layer_id: str) -> None:
        """Wait until what this run keeps for the folded layer ``layer_id`` is all there: the layer has run (its
        values in ``kept``, whether it is ``reused``, and the bounds of its outputs a checked layer reads), and the
        first folded consumer of each of its outputs has begun (it puts the bounds it is given in ``kept_bounds``
        before it computes); at once if the walk has ended, or failed. A per-layer check of a MatMul on a decompressed
        weight then runs once the weight is made (``_constants_first``), beside the end-to-end walk, not after it.
        For a per-layer walk in another thread (``_openvino``)."""
        with self._progress:
            if self._ended:
                return
            if self._settled is None:
                self._settled = self._settling()
            ran, begun = self._settled.get(layer_id, (0, 0))
            while (self._walked < ran or self._begun < begun) and not self._ended:
                self._progress.wait()

    def _settling(self) -> dict[str, tuple[int, int]]:
        """Per folded layer, how many layers of ``order`` have run, and how many have begun (its first folded
        consumers), before it is settled (``settle``)."""
        ran: dict[str, int] = {}
        begun: dict[str, int] = {}
        first: set[tuple[str, int]] = set()
        for i, layer in enumerate(self.order):
            if layer.id in self.folded:
                ran[layer.id] = i + 1
            for key in self.graph.input_keys(layer.id, layer.input_ids()) if layer.id in self.folded else ():
                if key is not None and key[0] in self.folded and key not in first:
                    first.add(key)
                    begun[key[0]] = i + 1
        return {lid: (ran.get(lid, 0), begun.get(lid, 0)) for lid in ran.keys() | begun.keys()}

    def run_node(self, layer: Layer, args: list[Bounded]) -> list[Bounded]:
        found = self._run_node(layer, args)
        with self._progress:
            self._walked += 1
            self._progress.notify_all()
        return found

    def _begin(self) -> None:
        """The layer being run has begun: what it keeps of its inputs is there."""
        with self._progress:
            self._begun += 1
            self._progress.notify_all()

    def _run_node(self, layer: Layer, args: list[Bounded]) -> list[Bounded]:
        if layer.is_a("Const"):
            self._begin()
            return super().run_node(layer, args)
        keys = self.graph.input_keys(layer.id, layer.input_ids())
        reused = layer.id in self.folded and self._same_per_layer(layer, keys, args)
        if not reused:
            for key, (_, bound) in zip(keys, args, strict=False):  # a per-layer bound here reads these
                if key is not None and key[0] in self.reused and bound is not None:
                    self.kept_bounds[key] = bound
        self._begin()
        found = super().run_node(layer, args)
        if not (self.bounded or layer.id in self.folded or any(layer.is_a(kind) for kind in OWN_STEPS)):
            self.outputs_of[layer.id] = [value for value, _ in found]
        if layer.id in self.folded:
            self.kept[layer.id] = [value for value, _ in found]
            if reused:
                self.reused.add(layer.id)
                for pid, (_, bound) in zip(layer.output_ids(), found, strict=False):
                    if (layer.id, pid) in self._read_apart and bound is not None:
                        self.kept_bounds[(layer.id, pid)] = bound
        return found

    def _same_per_layer(self, layer: Layer, keys: list[tuple[str, str] | None], args: list[Bounded]) -> bool:
        """Whether ``LayerCheck`` would compute the bounds this run did: the rule has no ``statistical`` variant (and
        no bodies), and each input is a Const or a ``reused`` layer whose bound ``LayerCheck.input_bounds`` takes as
        it is (not None, and not exact where it would take ``taken_in`` of the value instead)."""
        spec = lookup(layer.type, layer.version)
        if spec is None or spec.bodies or hasattr(spec.rounding, "statistical") or None in keys:
            return False
        for key, (value, bound) in zip(keys, args, strict=False):
            producer = self.graph.layer(key[0])  # type: ignore[index]
            if not (producer.is_a("Const") or producer.id in self.reused) or bound is None or \
                    (is_exact(bound) and not is_exact(taken_in(value))):
                return False
        return True


class _Rebounded(BoundedInterpreter):
    """The end-to-end walk again, propagating bounds, for an output beyond its tolerances (``_outputs_compared``),
    after ``first``, which did not: every layer's values are the first walk's (``outputs_of``; the folded layers'
    those it still keeps), so that only the rules run; the folded layers' bounds are the first walk's where it kept
    them for the per-layer walk, and of the others, only those a bound still to compute reads are computed (an NNCF
    model's weights are not decompressed again, nor their bounds computed again)."""

    def __init__(self, graph: Graph, order: list[Layer], first: _KeepingInterpreter):
        super().__init__(graph, order, beside=False)  # (beside the worker's per-layer walk)
        self.kept, self.kept_bounds, self.outputs_of = first.kept, first.kept_bounds, first.outputs_of
        self.needed: set[str] = set()  # folded layers whose bounds are computed
        for layer in reversed(self.order):
            if layer.id in self.kept and not self._known(layer) and any(
                    edge.to_layer not in self.kept or edge.to_layer in self.needed
                    for pid in layer.output_ids() for edge in graph.consumers(layer.id, pid)):
                self.needed.add(layer.id)

    def _known(self, layer: Layer) -> list[np.ndarray] | None:
        """The bounds of ``layer``'s outputs the first walk kept, if it kept them all."""
        bounds = [self.kept_bounds.get((layer.id, pid)) for pid in layer.output_ids()]
        return None if any(bound is None for bound in bounds) else bounds

    def run_node(self, layer: Layer, args: list[Bounded]) -> list[Bounded]:
        folded = layer.id in self.kept
        values = self.kept[layer.id] if folded else self.outputs_of.get(layer.id)
        if values is None:
            return super().run_node(layer, args)
        bounds = self._known(layer) if folded else None
        if bounds is None and (not folded or layer.id in self.needed):
            bounds = rounding_bounds(self.graph, layer, [v for v, _ in args], [b for _, b in args], values,
                                     statistical=True)
        return list(zip(values, bounds or [None] * len(values), strict=True))


#: The iterations of a body compared on OpenVINO (``LayerCheck.inside``): all up to this many, else the first and the
#: last half of it (each is one compile and inference of the body).
BODY_ITERATIONS = 8


def _picked(count: int) -> list[int]:
    """The iterations of ``count`` whose body is compared."""
    if count <= BODY_ITERATIONS:
        return list(range(count))
    half = BODY_ITERATIONS // 2
    return [*range(half), *range(count - half, count)]


#: The most producers of one layer whose rounding ``LayerCheck.kernel_bounds`` adds (a fused kernel covers a few
#: layers: RoPE's two Multiplys, rotate-half and Concat; RMS's Power, ReduceMean, Add, Sqrt and Divide).
_KERNEL_LAYERS = 16


class LayerCheck(_ReportWalker):
    """Each layer the reference executes, fed OpenVINO's activations, against OpenVINO's own output; the
    ``folded`` layers (constant subgraphs, a subset of the ``constant`` layers) are computed by the reference
    alone, to feed the checks (or taken from ``computed``, by layer id, where the end-to-end run computed them
    already)."""

    def __init__(self, graph: Graph, order: list[Layer], tolerances: Tolerances, report: CompareReport,
                 constant: frozenset[str], folded: frozenset[str], step: Callable[[str], None] | None,
                 computed: dict[str, list[np.ndarray]], reads: Mapping[str, frozenset[str]] | None = None,
                 saved: Mapping[str, np.ndarray] | None = None, reused: _KeepingInterpreter | None = None,
                 claims: _Claims | None = None):
        super().__init__(graph, order, tolerances, report)
        self.keeping = reused
        self.claims = claims  # shared with another walk: check only the layers claimed first (and keep ``computed``)
        self.at = ""  # the layer being walked
        self.reused = reused.reused if reused is not None else set()  # folded layers whose bounds the end-to-end
        self.kept_bounds = reused.kept_bounds if reused is not None else {}  # run computed as this walk would
        self.reads = reads or {}
        self.saved = saved or {}
        self.folded = folded
        self.computed = computed
        self.constant = constant
        self.step = step or (lambda _: None)
        self.folded_bounds: dict[tuple[str, str], np.ndarray] = {}  # (layer id, port id) -> its rounding bound

    def run_node(self, layer: Layer, args: list[np.ndarray | None]) -> list[np.ndarray | None]:
        self.at = layer.id
        self.step(layer.name)
        if layer.is_a("Const"):  # OpenVINO does not expose Consts: they feed the checks, where numpy holds them
            return [self.graph.const_array(layer) if supported(layer) else None]
        if layer.id in self.folded:
            if self.keeping is not None:
                self.keeping.settle(layer.id)
            found = (self.computed.pop if self.claims is None else self.computed.get)(layer.id, None)
            values = found if found is not None else list(execute(self.graph, layer, args))  # type: ignore[arg-type]
            if layer.id in self.reused:
                take = self.kept_bounds.pop if self.claims is None else self.kept_bounds.get
                bounds = [take((layer.id, port.id), None) for port in layer.outputs]
            else:
                bounds = rounding_bounds(self.graph, layer, args, self.input_bounds(layer, args), values)  # type: ignore
            self.folded_bounds.update({(layer.id, port.id): bound for port, bound in zip(layer.outputs, bounds,
                                                                                        strict=True)
                                       if bound is not None and not is_exact(bound)})
            return values
        actual = self.openvino_values(layer)
        if layer.is_a("Parameter"):
            return [as_declared(value, port) for value, port in zip(actual, layer.outputs, strict=True)]
        if layer.is_a("Result") or not layer.outputs:  # (an Assign may declare no output: nothing to compare)
            return actual
        if self.claims is not None and not self.claims.take(layer.id):
            return self.fitted(layer, args, actual)  # the other walk checks it
        if self.claims is not None and self.claims.abandoned:
            raise _Abandoned("the end-to-end walk failed")
        if not supported(layer):
            self.not_checked(layer, self.why_not_run(layer))
        elif lookup(layer.type, layer.version).cpu_saturates and any(a is not None and a.dtype in _NARROW_INTS
                                                                      for a in args):
            self.not_checked(layer, SATURATES)
        elif any(a is None for a in args):
            self.not_checked(layer, "OpenVINO did not expose an input activation")
        else:
            misfits = _misfits(layer, actual)
            exposed = [None if i in misfits else value for i, value in enumerate(actual)]
            try:
                compared, own = self.compared(layer, args, exposed)  # type: ignore[arg-type]
                # (what reads a misfit is fed the reference's value, from OpenVINO's inputs)
                actual = [own[i] if i in misfits else value for i, value in enumerate(actual)]
            except IrToolsError as exc:
                self.not_checked(layer, f"the reference does not compute {exc.message}" if exc.code ==
                                 UnsupportedError.code else f"reference failed: {exc.message}")
                return actual
            self.add(layer, compared)
            for i, shape in misfits.items():
                self.not_checked(layer, f"{misfit(layer.outputs[i], shape)}: what reads it is checked on the "
                                 "reference's value")
            if lookup(layer.type, layer.version).bodies:
                self.inside(layer, args)  # type: ignore[arg-type]
        return actual

    def fitted(self, layer: Layer, args: list[np.ndarray | None], actual: list[np.ndarray | None]
               ) -> list[np.ndarray | None]:
        """OpenVINO's outputs ``actual`` of a layer the other walk checks, but those it exposed at other dims than
        their port's (not ``fits``: a partial RoPE's Add), each the reference's value from OpenVINO's inputs, as
        the walk that checks it feeds its readers: which walk claims the layer and which its reader is a race (the
        reader was fed the fused kernel's [1, 4, 8, 16] for the Add's [1, 4, 8, 8], E-EXEC now and then)."""
        misfits = _misfits(layer, actual)
        if not misfits or not supported(layer) or any(a is None for a in args):
            return actual
        own = execute(self.graph, layer, args)  # type: ignore[arg-type]
        return [own[i] if i in misfits else value for i, value in enumerate(actual)]

    def why_not_run(self, layer: Layer, graph: Graph | None = None) -> str:
        """Why the reference cannot run ``layer`` (of ``graph``, the walk's by default): a body's owner names the first
        layer of its bodies it cannot run, ``LAYER/BODY/INNER`` at its own line, and that layer's reason."""
        spec = lookup(layer.type, layer.version)
        if spec is not None and spec.bodies:
            found = unrunnable_inner(graph or self.graph, layer)
            if found is None:
                return "no reference kernel for a layer of its body"
            name, inner = found
            return f"{name} ({inner.kind}, line {inner.line}) of its body: {_why_not(inner)}"
        return _why_not(layer)

    def compared(self, layer: Layer, args: list[np.ndarray], actual: list[np.ndarray | None]
                 ) -> tuple[list[TensorComparison], list[np.ndarray]]:
        """Each output OpenVINO exposed (``actual``) against the reference's on the same inputs ``args`` (and
        the reference's outputs, which are returned too): within --atol/--rtol, or else within its rounding
        bound, computed only then. An element fails only beyond all three, and most layers are within the
        tolerances: their rules, a third of a per-layer walk, would change no verdict. A ``_coarse`` output's
        own rounding takes it beyond them wherever it is computed otherwise: its layer is compared within its
        bound at once, unless every output is the reference's to the bit (a layer that moves or picks values:
        Concat, ReLU, MaxPool)."""
        outputs = execute(self.graph, layer, args)
        expected = [as_cpu_holds(value) for value in outputs]
        atol, rtol = self.tolerances.for_name(layer.name)
        exposed = [i for i, got in enumerate(actual) if got is not None]

        def against(bounds: list[np.ndarray | None]) -> list[TensorComparison]:
            return [compare_tensors(f"{layer.name}:{layer.outputs[i].id}", actual[i], expected[i], atol, rtol,
                                    bound=bounds[i]) for i in exposed]

        if not any(_coarse(layer.outputs[i], rtol) for i in exposed) or \
                all(_identical(actual[i], expected[i]) for i in exposed):  # type: ignore[arg-type]
            found = against([None] * len(expected))
            if all(t.passed for t in found):
                return found, outputs
        return against(rounding_bounds(self.graph, layer, args, self.kernel_bounds(layer, args), outputs)), outputs

    def inside(self, layer: Layer, args: list[np.ndarray]) -> None:
        """A TensorIterator's, Loop's or If's bodies compared layer by layer, as the model is: OpenVINO cannot expose
        a body's tensors, so each iteration's body (every one up to ``BODY_ITERATIONS``, else the first and the last
        half of that many) runs as a model of its own on OpenVINO, fed what the reference's kernel fed it on
        OpenVINO's activations of the layer's inputs, and ``compare_model`` checks its every layer (against saved
        activations too); its entries are named ``LAYER/iteration K/INNER`` (an If's ``LAYER/then/INNER``), and
        ``report.bodies`` says which iterations were compared and which were not."""
        try:
            fed = body_inputs(self.graph, layer, args)
        except IrToolsError:
            return  # the layer's own comparison failed on it already
        for sub, iterations in fed:
            body = sub.graph.name.rsplit("/", 1)[-1]
            picked = _picked(len(iterations))
            compared = 0
            for k in picked:
                where = f"{layer.name}/{body}" if layer.is_a("If") else f"{layer.name}/iteration {k}"
                inputs = {input_name(sub.graph, p): iterations[k][i] for i, p in enumerate(sub.parameters)
                          if i in iterations[k]}
                prefix = f"{LAYER_PREFIX}{where}/"
                saved = {LAYER_PREFIX + key[len(prefix):]: v for key, v in self.saved.items() if key.startswith(prefix)}
                try:
                    inner = compare_model(sub.graph, inputs, CompareOptions(self.tolerances, per_layer=True,
                                                                            saved=saved))
                except IrToolsError as exc:
                    self.not_checked(layer, f"{where}: the body on OpenVINO: {exc.message}")
                    continue
                for entry in inner.layers:
                    self.report.layers.append(LayerComparison(
                        layer.id, f"{where}/{entry.name}", entry.kind, layer.line,
                        [replace(t, name=f"{where}/{t.name}") for t in entry.outputs]))
                compared += len(inner.layers)
                self.report.not_checked += [{**entry, "layer_id": layer.id, "name": f"{where}/{entry['name']}",
                                             "line": layer.line} for entry in inner.not_checked]
                self.report.openvino_layers.update({f"{where}/{key}": v for key, v in inner.openvino_layers.items()})
                self.report.bodies += [{**b, "layer": f"{where}/{b['layer']}"} for b in inner.bodies]  # nested
            if iterations:
                self.report.bodies.append({"layer": layer.name, "body": body, "iterations": len(iterations),
                                           "compared": picked, "layers_compared": compared})

    def input_bounds(self, layer: Layer, args: list[np.ndarray]) -> list[np.ndarray]:
        """A Const is exact, and a folded constant subgraph's value within its rounding bound (OpenVINO folds or fuses
        it in its own way: it decompresses int8 and int4 weights in f32 where the file's Multiply by the scale is f16
        or bf16); OpenVINO's f16 (bf16) activations, those of a constant subgraph compared (--compare-constants) too,
        were computed in f32 and rounded when handed over (ops.rounding.handed_over); an f64 input or constant was
        rounded to f32 when OpenVINO took it in (ops.rounding.taken_in)."""
        bounds = []
        for port, value in zip(layer.inputs, args, strict=False):
            found = self.graph.producer(layer.id, port.id)
            if found is not None and (found[0].id in self.folded or found[0].is_a("Const")):
                bounds.append(self.folded_bounds.get((found[0].id, found[1].id), taken_in(value)))
            elif found is not None and found[0].is_a("Parameter"):
                bounds.append(taken_in(value))
            else:
                bounds.append(handed_over(value))
        return bounds

    def kernel_bounds(self, layer: Layer, args: list[np.ndarray], reads: frozenset[str] | None = None,
                      seen: set[str] | None = None) -> list[np.ndarray]:
        """``input_bounds``, but where OpenVINO computes a producer inside this layer's kernel (``reads``, the layers
        whose outputs that kernel reads: its RoPE and RMS fusions compute a Multiply by the cosines, or a reciprocal
        square root, apart for the output asked for and again, unrounded, inside), the producer's own rounding
        bound on OpenVINO's activations is added to the input's: the kernel did not use the rounded value OpenVINO
        exposes (docs/SEMANTICS.md, "Per-layer bounds where OpenVINO CPU fuses layers"). Producers of producers
        likewise, up to ``_KERNEL_LAYERS``. Only for float results: a comparison or a Convert to integers OpenVINO
        fuses with its float producers (Swin's and BERT's masks) computes them as it does apart, and any bound on
        its input would let the result flip where the input is 0, unchecked."""
        bounds = self.input_bounds(layer, args)
        reads = self.reads.get(layer.name) if reads is None else reads
        if reads is None or not all(getattr(element_type(port.precision or ""), "name", None) in REAL_TYPES
                                    for port in layer.outputs):
            return bounds
        seen = set() if seen is None else seen
        for i, port in enumerate(layer.inputs):
            found = self.graph.producer(layer.id, port.id)
            if found is None or found[0].name in reads or found[0].id in self.constant or found[0].id in seen \
                    or len(seen) >= _KERNEL_LAYERS or found[0].is_a("Parameter") or not supported(found[0]):
                continue
            producer, output = found
            seen.add(producer.id)
            keys = self.graph.input_keys(producer.id, producer.input_ids())
            inputs = [self.env.get(key) if key is not None else None for key in keys]
            if any(value is None for value in inputs):
                continue
            try:
                values = execute(self.graph, producer, inputs)  # type: ignore[arg-type]
                own = rounding_bounds(self.graph, producer, inputs,  # type: ignore[arg-type]
                                      self.kernel_bounds(producer, inputs, reads, seen), values)  # type: ignore
            except IrToolsError:
                continue
            bound = own[producer.outputs.index(output)]
            if bound is not None:
                bounds[i] = bounds[i] + bound
        return bounds

    def not_checked(self, layer: Layer, reason: str) -> None:
        self.report.not_checked.append({"layer_id": layer.id, "name": layer.name, "type": layer.kind,
                                        "line": layer.line, "reason": reason})


def _why_not(layer: Layer) -> str:
    """Why the reference cannot run ``layer``, a layer without bodies ``supported`` refuses."""
    spec = lookup(layer.type, layer.version)
    unheld = layer.attrs.get("destination_type") if spec is not None and spec.type == "Convert" else \
        unheld_float(layer) if spec is not None and spec.kernel is not None else None
    return f"the reference has no {unheld} values" if unheld else "no reference kernel for this op"


class SavedCheck(_ReportWalker):
    """OpenVINO now against OpenVINO's saved outputs and activations (a model or its inputs changed since)."""

    def __init__(self, graph: Graph, order: list[Layer], ov_run: OpenVinoRun, saved: Mapping[str, np.ndarray],
                 tolerances: Tolerances, report: CompareReport):
        super().__init__(graph, order, tolerances, report)
        self.saved = saved
        for name, value in ov_run.outputs.items():
            if OUTPUT_PREFIX + name in saved:
                report.outputs.append(compare_saved(name, value, saved[OUTPUT_PREFIX + name],
                                                    *tolerances.for_name(name)))

    def run_node(self, layer: Layer, args: list[np.ndarray | None]) -> list[np.ndarray | None]:
        actual = self.openvino_values(layer)
        outputs = []
        for port, value in zip(layer.outputs, actual, strict=True):
            key = f"{LAYER_PREFIX}{layer.name}:{port.id}"
            if key in self.saved and value is not None:
                outputs.append(compare_saved(f"{layer.name}:{port.id}", value, self.saved[key],
                                             *self.tolerances.for_name(layer.name)))
        self.add(layer, outputs)
        return actual
