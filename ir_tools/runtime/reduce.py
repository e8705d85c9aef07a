"""``reduce``: a failing model shrunk to a small part that still fails, for a bug report or to find the layer at
fault, as Polygraphy's ``debug reduce`` does for ONNX.

A candidate is a set of the model's computing layers (not its Parameters, Results, or constant subgraphs, which a
part keeps whole where it needs them); ``passes.extract`` cuts it out: its inputs are the tensors it reads from
outside, fed the original's activations there, its outputs the tensors it hands outside (or to a Result). The search,
on the layers in topological order:

1. outputs: bisection for the shortest prefix that fails (it holds the fault, and the fault shows in a tensor it
   hands on);
2. inputs: bisection for the shortest suffix of that prefix that fails;
3. one layer at a time: each layer left out in turn, kept out where the part still fails, until none can be.

Every candidate runs OpenVINO in a child process (``ChildOpenVinoRunner``), so a crash (a signal, an abort) is a
failure of the candidate, never of ir_tools. What "fails" means is a ``Failure``: ``compare_fails`` (compare's
verdict on the part: OpenVINO against the reference, and against saved activations), ``against_fails`` (the part
against the same part of another model) or ``openvino_fails`` (OpenVINO refuses or crashes, optionally with a
message matching a pattern). Only OpenVINO's own refusal or crash (E-OPENVINO) counts as a part failing: any other
error is ir_tools' or the user's (inputs, saved activations or an original that do not fit), which no part mends,
so it ends the reduction (``refuse_incomparable`` says it of the whole model before anything is reduced). A part
that cannot be compared (the original holds no such part) is ``NotCompared``: said so, never "passes".
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..base.errors import IrToolsError, SourceLoc, did_you_mean
from ..ir.model import Graph
from ..ir.names import input_name, names_attribute, output_names, reported_names, tensor_names
from ..ir.walker import PortKey
from ..passes.builder import GraphBuilder
from ..passes.extract import CutError, extract, tensor_name, tensor_ports
from ..passes.shapes import fix_dims
from ..passes.validate import InvalidModelError, check_graph, require_valid
from .against import computed_tensors, match
from .compare import Tolerances, compare_tensors
from .executor import Interpreter, stateful, supported
from .inputs import InputError, static_when_fed
from .numeric_check import (
    LAYER_PREFIX,
    OUTPUT_PREFIX,
    CompareOptions,
    compare_model,
    constant_layers,
    data_tensors,
    refuse_unmatched,
)
from .openvino import OpenVinoRun
from .runners import ChildOpenVinoRunner
from .verdict import fix_shapes


@dataclass
class Candidate:
    """A part as it runs: the graph, what its inputs are fed (by input name), and the tensors of the model it was
    cut at (with their values: the small integer ones are constants of the part) and computes, by output port."""

    part: Graph
    inputs: dict[str, np.ndarray]
    cuts: dict[PortKey, np.ndarray]
    outputs: list[PortKey]


#: Why a candidate fails (a line), or None where it does not: the property a reduction keeps.
Failure = Callable[[Candidate, "Runs"], "str | None"]


class ReduceError(IrToolsError):
    """The whole graph does not fail as ``fails`` says: there is nothing to reduce (E-REDUCE)."""

    code = "E-REDUCE"


class NotCompared(Exception):
    """A part a ``Failure`` cannot judge (the original holds no such part, or OpenVINO refuses the original's): why."""


def _openvino_failure(exc: IrToolsError) -> str:
    """A part's failure, where OpenVINO refused or crashed on it (E-OPENVINO); any other error is ir_tools' own or the
    user's, not the part failing: raised again."""
    if exc.code != "E-OPENVINO":
        raise exc
    return f"{exc.code}: {exc.message}"


@dataclass
class Step:
    """One candidate tried: the phase, how many computing layers it holds, and why it failed (None: it did not, or
    it could not be cut, then ``uncut`` says why and it was not run, or not compared, then ``not_compared`` says
    why)."""

    phase: str
    layers: int
    failure: str | None
    uncut: str | None = None
    not_compared: str | None = None

    def line(self) -> str:
        """The step as ``reduce`` prints it."""
        verdict = (f"fails: {self.failure}" if self.failure else f"cannot be cut: {self.uncut}" if self.uncut else
                   f"not compared: {self.not_compared}" if self.not_compared else "passes")
        return f"{self.phase:<12}{self.layers:>6} layers  {verdict}"


#: A candidate's child is killed, and the candidate fails, after this many times the longest run that finished
#: (at least ``HANG_SECONDS``), or ``HANG_BEFORE_ANY_SECONDS`` while no run has finished: OpenVINO may hang where it
#: crashes (measured: a child of the swin3d fixture's reduction waiting on a futex for minutes; another, on the
#: original model, in glibc's ``free`` inside ``compile_model``, which no finished run had bounded).
HANG_FACTOR, HANG_SECONDS, HANG_BEFORE_ANY_SECONDS = 20, 30.0, 600.0


@dataclass
class Runs:
    """The OpenVINO runs (each one compile, in a child process) the reduction has made, and the longest that
    finished."""

    count: int = 0
    longest: float = 0.0

    def runner(self, part: Graph) -> ChildOpenVinoRunner:
        """OpenVINO of this interpreter, in a child process, on ``part``; each inference counted, and killed as hung
        past ``HANG_FACTOR`` times the longest run so far (``HANG_BEFORE_ANY_SECONDS`` before a run has finished)."""
        timeout = max(HANG_SECONDS, HANG_FACTOR * self.longest) if self.longest else HANG_BEFORE_ANY_SECONDS
        return _Counted(self, part, timeout)


class _Counted(ChildOpenVinoRunner):
    def __init__(self, runs: Runs, part: Graph, timeout: float | None):
        super().__init__(sys.executable, part, timeout=timeout)
        self.runs = runs

    def infer(self, inputs: Mapping[str, np.ndarray], per_layer: bool = False,
              hidden: frozenset[str] = frozenset()) -> OpenVinoRun:
        self.runs.count += 1
        start = time.perf_counter()
        found = super().infer(inputs, per_layer, hidden)
        self.runs.longest = max(self.runs.longest, time.perf_counter() - start)
        return found


@dataclass
class Reduction:
    """The smallest failing part found (``candidate``: its graph ``part`` and the ``inputs`` it is fed, by its input
    names), why it fails, and every step."""

    candidate: Candidate
    failure: str
    layers: int
    original_layers: int
    steps: list[Step] = field(default_factory=list)
    runs: int = 0

    @property
    def part(self) -> Graph:
        """The smallest failing part found, a valid graph of its own (``write_ir`` writes it)."""
        return self.candidate.part

    @property
    def inputs(self) -> dict[str, np.ndarray]:
        """What the part is fed to fail, by its input names: the whole model's activations at its cut."""
        return self.candidate.inputs


def compare_fails(options: CompareOptions) -> Failure:
    """Fails where compare does on the part (OpenVINO against the reference, and against ``options.saved``, whose
    activations are keyed by layer name, which a part keeps), or where OpenVINO refuses or crashes on it."""

    def fails(candidate: Candidate, runs: Runs) -> str | None:
        try:
            report = compare_model(candidate.part, candidate.inputs, options, runs.runner(candidate.part))
        except IrToolsError as exc:
            return _openvino_failure(exc)
        if not report.failed:  # (a part that compares nothing does not fail)
            return None
        if report.first_divergence is not None:
            found = report.first_divergence
            return f"compare fails; first divergence: layer '{found['name']}' ({found['type']})"
        failed = next(t for t in report.outputs if not t.passed)
        return f"compare fails at output '{failed.name}'"

    return fails


def openvino_fails(matching: str | None = None) -> Failure:
    """Fails where OpenVINO refuses or crashes on the part (its words matching the regular expression ``matching``,
    when given)."""
    pattern = re.compile(matching) if matching else None

    def fails(candidate: Candidate, runs: Runs) -> str | None:
        try:
            runs.runner(candidate.part).run(candidate.inputs)
        except IrToolsError as exc:
            failure = _openvino_failure(exc)
            if pattern is None or pattern.search(exc.message):
                return failure
        return None

    fails.openvino_alone = True  # type: ignore[attr-defined]  (``judged_by_openvino_alone``)
    return fails


def judged_by_openvino_alone(fails: Failure) -> bool:
    """Whether ``fails`` judges a part by OpenVINO alone (``openvino_fails``), needing no reference: the parts may
    then be fed what the reference computed before a layer it refuses (``activations``' ``partial``), for the command
    and the library alike."""
    return getattr(fails, "openvino_alone", False)


class against_fails:  # noqa: N801 (a Failure, made as compare_fails and openvino_fails are)
    """Fails where a part of ``model`` computes other values than the same part of ``original`` (cut at the same
    tensors, matched as ``compare --against`` matches them, ``against.match``: by name, an unnamed one by layer name
    and output port; fed the same values; both on OpenVINO, each in a child) beyond ``tolerances``, or where OpenVINO
    refuses or crashes on it. A part ``original`` holds no such part of (a tensor it lacks, or holds of another type
    or shape; OpenVINO refusing it) is ``NotCompared``. Where the two are no models of one structure, E-USAGE at
    once (``_refuse_incomparable``)."""

    def __init__(self, model: Graph, original: Graph, tolerances: Tolerances):
        self.model, self.original = model, original
        self.tolerances = Tolerances.given(tolerances, "against_fails(tolerances=...)")
        self.propagation = require_valid(original)
        self.original_data = data_tensors(original)
        self.twins = _twins(model, original)
        self._refuse_incomparable()

    def _refuse_incomparable(self) -> None:
        """E-USAGE where ``original`` is no model of ``model``'s structure, so that no part of it could be compared, or
        a part of another computation would: an input or output of ``model`` it lacks (by name, as ``compare
        --against`` matches them), or a tensor matched of another element type or dims."""
        inputs = {input_name(self.original, p) for p in self.original.parameters()}
        for parameter in self.model.parameters():
            if (parameter.id, parameter.outputs[0].id) not in self.twins:
                name = input_name(self.model, parameter)
                raise IrToolsError(f"--against: the two models' inputs differ: '{name}' (A) is not an input of the "
                                   f"original{did_you_mean(name, inputs)}; its inputs: {', '.join(sorted(inputs))}",
                                   code="E-USAGE")
        outputs = set(output_names(self.original).values())
        for name in output_names(self.model).values():
            if name not in outputs:
                raise IrToolsError(f"--against: the original has no output '{name}': its outputs: "
                                   f"{', '.join(sorted(outputs))}{did_you_mean(name, outputs)}", code="E-USAGE")
        for ours, theirs in self.twins.items():
            mine, other = self.model.layer(ours[0]).output(ours[1]), self.original.layer(theirs[0]).output(theirs[1])
            if (mine.precision, mine.dims) != (other.precision, other.dims):
                raise IrToolsError(
                    f"--against: the original is no model of this one's structure (parts of both are compared): "
                    f"tensor '{tensor_name(self.model, ours)}' is {mine.precision} {list(mine.dims or ())} here and "
                    f"'{tensor_name(self.original, theirs)}' {other.precision} {list(other.dims or ())} there",
                    code="E-USAGE")

    def original_part(self, candidate: Candidate) -> Candidate:
        """The same part of the original, fed the same values, with the input and output names of ``candidate``'s
        part (so that ``compare PART --against ORIGINAL_PART`` matches them); NotCompared where there is none."""
        twin = {key: self.twins.get(key) for key in [*candidate.cuts, *candidate.outputs]}
        lacking = next((key for key, found in twin.items() if found is None), None)
        if lacking is not None:
            raise NotCompared(f"the original has no tensor '{tensor_name(self.model, lacking)}'")
        cuts = {twin[key]: value for key, value in candidate.cuts.items()}
        outputs = {key: twin[key] for key in candidate.outputs}
        try:
            part = extract(self.original, list(cuts), list(outputs.values()), self.propagation)  # type: ignore[arg-type]
        except IrToolsError as exc:
            raise NotCompared(f"no such part of the original: {exc.message}") from None
        sources = _sources(part, self.original)
        if not set(sources.values()) <= cuts.keys():
            raise NotCompared("the original's part reads other tensors")
        pinned = _pinned(part, {name: cuts[key] for name, key in sources.items()},
                         {name: key in self.original_data for name, key in sources.items()})
        if pinned is None:
            raise NotCompared("the original's part is not a valid model once fed these values")
        ours = {key: name for name, key in _sources(candidate.part, self.model).items()}
        mine = {twin[key]: ours[key] for key in candidate.cuts if key in ours}
        _rename(pinned[0], {name: mine[key] for name, key in sources.items() if name in pinned[1]},
                {other: _output_names(candidate.part)[key] for key, other in outputs.items()})
        return Candidate(pinned[0], {mine[sources[name]]: value for name, value in pinned[1].items()},
                         candidate.cuts, candidate.outputs)

    def __call__(self, candidate: Candidate, runs: Runs) -> str | None:
        theirs_part = self.original_part(candidate)
        try:
            ours = runs.runner(candidate.part).run(candidate.inputs)
        except IrToolsError as exc:
            return _openvino_failure(exc)
        try:
            theirs = runs.runner(theirs_part.part).run(theirs_part.inputs)
        except IrToolsError as exc:
            raise NotCompared(f"the original's part: {_openvino_failure(exc)}") from None
        for name in _output_names(candidate.part).values():
            found = compare_tensors(name, ours[name], theirs[name], *self.tolerances.for_name(name))
            if not found.passed:
                return f"'{name}' differs from the original's: max abs {found.max_abs_error:.3g}"
        return None


def _twins(model: Graph, original: Graph) -> dict[PortKey, PortKey]:
    """Each tensor of ``model`` with the one of ``original`` it is matched with, as ``compare --against`` matches them
    (``against.match``); a model input with the original's of the same name."""
    def tensors(graph: Graph) -> list:
        order = graph.topological_order()
        return computed_tensors(graph, order, constant_layers(graph, order))

    found = {ours.key: theirs.key for ours, theirs, _ in match(tensors(model), tensors(original)).pairs}
    named = tensor_ports(original)
    for parameter in model.parameters():
        key = (parameter.id, parameter.outputs[0].id)
        twin = next((named[n] for n in reported_names(model, parameter, parameter.outputs[0]) if n in named), None)
        if twin is not None and original.layer(twin[0]).is_a("Parameter"):
            found[key] = twin
    return found  # type: ignore[return-value]


def _rename(part: Graph, inputs: Mapping[str, str], outputs: Mapping[PortKey, str]) -> None:
    """The part's inputs (by name) and outputs (by port) called as given: its Parameters and the tensors its Results
    read take those names first."""
    for parameter in part.parameters():
        name = inputs.get(input_name(part, parameter))
        if name is not None:
            parameter.name, parameter.outputs[0].names = name, names_attribute([name])
    for result in part.results():
        key = part.producer_key(result.id, result.inputs[0].id)
        if key in outputs:
            port = part.layer(key[0]).output(key[1])
            port.names = names_attribute([outputs[key], *(n for n in tensor_names(port.names) if n != outputs[key])])
            result.extra.pop("output_names", None)


def _sources(part: Graph, graph: Graph) -> dict[str, PortKey]:
    """Each input of a part of ``graph`` (by name), with the output port of ``graph`` it stands for."""
    found = {}
    for parameter in part.parameters():
        edge = part.consumers(parameter.id, parameter.outputs[0].id)
        key = graph.producer_key(edge[0].to_layer, edge[0].to_port) if edge else None
        if key is not None:
            found[input_name(part, parameter)] = key
    return found


def _output_names(part: Graph) -> dict[PortKey, str]:
    """Each output of a part by the port that computes it (the part keeps the model's layer ids)."""
    named = output_names(part)
    return {part.producer_key(r.id, r.inputs[0].id): named[r.id] for r in part.results()}  # type: ignore


def activations(graph: Graph, inputs: Mapping[str, np.ndarray], saved: Mapping[str, np.ndarray],
                runs: Runs, partial: bool = False) -> dict[PortKey, np.ndarray]:
    """Every tensor of the original the cuts may be fed from, by output port: the activations saved from it (by
    ``compare --save-outputs``, keyed by layer name) first; else OpenVINO's (in a child: it may crash on the whole
    model); else the reference's. With ``partial`` (``openvino_fails``, which needs no reference), the reference's up
    to a layer it refuses or cannot run (a Loop of zero iterations, which crashes OpenVINO): the parts fed from those
    alone are tried. Saved activations of which none is this model's are refused as compare refuses them
    (``refuse_unmatched``: E-INPUT), and so is one of another shape than OpenVINO's here, where the inputs' shapes fix
    it (``static_when_fed``; not a dim that follows from the data: a Faster R-CNN with a changed Convolution keeps 333
    boxes where the original kept 318, which compare reports as a difference, and reduce refused as activations "of
    another model or input")."""
    refuse_unmatched(graph, saved)
    found: dict[PortKey, np.ndarray] = {}
    try:
        found.update(runs.runner(graph).infer(inputs, per_layer=True).layers)
    except IrToolsError:
        if partial or all(supported(layer) for layer in graph.layers()):
            found.update(_Everything(graph).values(inputs, partial))
    named = output_names(graph)
    keys = {f"{OUTPUT_PREFIX}{named[r.id]}": graph.producer_key(r.id, r.inputs[0].id) for r in graph.results()}
    keys.update({f"{LAYER_PREFIX}{layer.name}:{port.id}": (layer.id, port.id)
                 for layer in graph.layers() for port in layer.outputs})
    static = static_when_fed(graph, inputs) if saved else set()
    for key, port in keys.items():
        value, ours = saved.get(key), found.get(port)  # type: ignore[arg-type]
        if value is not None and ours is not None and np.shape(value) != np.shape(ours) and port in static:
            raise InputError(f"--load-outputs: '{key}' is {list(np.shape(value))} there and {list(np.shape(ours))} "
                             "here: the saved activations are of another model or input")
    for layer in graph.layers():
        if layer.is_a("Parameter"):
            found[layer.id, layer.outputs[0].id] = np.asarray(inputs[input_name(graph, layer)])
        for port in layer.outputs:
            value = saved.get(f"{LAYER_PREFIX}{layer.name}:{port.id}")
            if value is not None:
                found[layer.id, port.id] = value
    return found


class _Everything(Interpreter):
    """The reference, keeping every value."""

    def values(self, inputs: Mapping[str, np.ndarray], partial: bool = False) -> dict[PortKey, np.ndarray]:
        """Every value; with ``partial``, those computed before a layer the reference refuses, if it does."""
        self.free = False
        self.inputs, self.outputs = inputs, {}
        try:
            return self.run()
        except IrToolsError:
            if not partial:
                raise
            return dict(self.env)


def reduce_model(graph: Graph, fed: Mapping[PortKey, np.ndarray], fails: Failure, runs: Runs,
                 progress: Callable[[Step], None] | None = None) -> Reduction:
    """The smallest part of ``graph`` (valid) found to fail, its cuts fed from ``fed``; ReduceError when the whole
    model does not fail."""
    return _Reducer(graph, fed, fails, runs, progress or (lambda _: None)).run()


class _Reducer:
    def __init__(self, graph: Graph, fed: Mapping[PortKey, np.ndarray], fails: Failure, runs: Runs,
                 progress: Callable[[Step], None]):
        self.graph, self.fed, self.fails, self.runs, self.progress = graph, fed, fails, runs, progress
        self.propagation = require_valid(graph)
        order = graph.topological_order()
        self.data = data_tensors(graph, order)
        constant = constant_layers(graph, order)
        self.order = [layer.id for layer in order if layer.id not in constant
                      and not (layer.is_a("Parameter") or layer.is_a("Result") or layer.is_a("Const"))]
        self.steps: list[Step] = []
        self.found: dict[frozenset[str], tuple[Candidate, str] | None] = {}

    def run(self) -> Reduction:
        everything = frozenset(self.order)
        if self.attempt("whole model", everything) is None:
            raise ReduceError(f"{self._whole_model_unjudged()}: there is nothing to reduce",
                              SourceLoc(str(self.graph.source) if self.graph.source else None))
        n = len(self.order)
        low, high = 0, n - 1  # the shortest failing prefix ends at high
        while low < high:
            mid = (low + high) // 2
            if self.attempt("outputs", frozenset(self.order[:mid + 1])) is not None:
                high = mid
            else:
                low = mid + 1
        end = high
        low, high = 0, end  # the shortest failing suffix of that prefix starts at low
        while low < high:
            mid = (low + high + 1) // 2
            if self.attempt("inputs", frozenset(self.order[mid:end + 1])) is not None:
                low = mid
            else:
                high = mid - 1
        members = frozenset(self.order[low:end + 1])
        changed = True
        while changed and len(members) > 1:
            changed = False
            for layer_id in sorted(members, key=self.order.index, reverse=True):
                fewer = members - {layer_id}
                if self.attempt("one layer", fewer) is not None:
                    members, changed = fewer, True
        candidate, failure = self.found[members]  # type: ignore[misc]
        settle_dims(candidate.part)
        return Reduction(candidate, failure, len(members), n, self.steps, self.runs.count)

    def _whole_model_unjudged(self) -> str:
        """Why the whole model's step found no failure: it does not fail, or it was never run or compared (a stateful
        model's whole part, not valid as cut, was said not to fail, though compare --against found it did)."""
        step = self.steps[-1]
        if step.uncut:
            return f"the whole model cannot be cut and fed as a part ({step.uncut}), so nothing was run"
        if step.not_compared:
            return f"the whole model cannot be compared ({step.not_compared})"
        if stateful(self.graph):  # (a state written from another tensor differs in no output of one inference)
            return ("the model does not fail as asked in one inference (reduce compares its outputs, not its state, "
                    "which the next step reads: `ir-tools compare MODEL --steps 2`, with the same --against, compares "
                    "every state after each step and names the Assign where one diverges)")
        return "the model does not fail as asked"

    def attempt(self, phase: str, members: frozenset[str]) -> str | None:
        """Why the part of ``members`` fails; None where it does not, or no part can be cut there."""
        if members not in self.found:
            candidate = self.candidate(members)
            cut = isinstance(candidate, Candidate)
            failure = skipped = None
            try:
                failure = self.fails(candidate, self.runs) if cut else None
            except NotCompared as exc:
                skipped = str(exc)
            self.found[members] = (candidate, failure) if cut and failure is not None else None
            self.steps.append(Step(phase, len(members), failure, None if cut else candidate, skipped))
            self.progress(self.steps[-1])
        found = self.found[members]
        return None if found is None else found[1]

    def candidate(self, members: frozenset[str]) -> Candidate | str:
        """The part of ``members`` as it runs; why not, where it cannot be cut or fed."""
        graph = self.graph
        cuts: set[PortKey] = set()
        outs: list[PortKey] = []
        for layer_id in self.order:
            if layer_id not in members:
                continue
            layer = graph.layer(layer_id)
            for port in layer.inputs:
                key = graph.producer_key(layer_id, port.id)
                if key is not None and key[0] not in members and not self._constant(key[0]):
                    cuts.add(key)
            for port in layer.outputs:
                readers = graph.consumers(layer_id, port.id)
                if any(edge.to_layer not in members for edge in readers):
                    outs.append((layer_id, port.id))
        for _ in range(4):  # a cut that leaves model inputs or state unfed names them: add them and cut again; a
            # state so fed is no output (a ReadValue read after the part: each prefix of a Whisper decoder's was "both
            # a cut input and an output"), and a cut input then read by nothing in the part (one only a state's
            # initial value is computed from) is left out
            if not outs:
                return "nothing it computes is read after it"
            try:
                part = extract(graph, sorted(cuts), outs, self.propagation)
                break
            except CutError as exc:
                if not (exc.unfed or exc.unread):
                    return exc.message
                cuts.update(exc.unfed)
                cuts.difference_update(exc.unread)
                outs = [key for key in outs if key not in cuts]
        else:
            return "its cut leaves inputs or state unfed"
        sources = _sources(part, graph)
        unfed = next((key for key in sources.values() if key not in self.fed), None)
        if unfed is not None:
            return (f"the original gave no value for '{graph.layer(unfed[0]).name}:{unfed[1]}', which it is fed "
                    "(OpenVINO did not expose it or, where OpenVINO failed on the whole model, the reference stopped "
                    "before it)")
        pinned = _pinned(part, {name: self.fed[key] for name, key in sources.items()},
                         {name: key in self.data for name, key in sources.items()})
        if pinned is None:
            return "it is not a valid model once fed the original's values"
        return Candidate(*pinned, {key: self.fed[key] for key in sources.values()}, outs)

    def _constant(self, layer_id: str) -> bool:
        layer = self.graph.layer(layer_id)
        return layer.is_a("Const") or (layer_id not in self.order and not layer.is_a("Parameter"))


#: Integer cut inputs up to this many elements (shapes, indices, masks) become constants of the part.
_PINNED_ELEMENTS = 4096


def settle_dims(part: Graph) -> None:
    """``part``'s dims as OpenVINO infers them where our rules infer less (a part fed an empty state, its dim left
    dynamic by ``_pinned``: a Broadcast after it declared [-1,2,2,-1,8] where OpenVINO infers [1,2,2,8..,8], which
    ``check`` reports), before it is written; OpenVINO re-infers dims when it reads a part, so the runs need not.
    Left as they are where OpenVINO refuses to read it (``--until openvino-fails`` may find such a part)."""
    try:
        fix_shapes(part)
    except IrToolsError as exc:
        if exc.code != "E-OPENVINO":
            raise


def _pinned(part: Graph, inputs: dict[str, np.ndarray], data: Mapping[str, bool]
            ) -> tuple[Graph, dict[str, np.ndarray]] | None:
    """The part as fed: small integer cut inputs of shape arithmetic or constants (not ``data``: by input name,
    whether the model computes it from what it is fed, ``data_tensors``) become Consts of their values, the others
    Parameters of their values' static dims (a dim of 0 dynamic, as a stateful model's state is where it starts
    empty: OpenVINO CPU dies compiling a static empty Gather, each state's beam reorder, so the whole of a stateful
    model was "not a valid model once fed the original's values" and reduce said it did not fail), every dim
    re-inferred; OpenVINO then folds and specialises the part as it did the whole model (a dynamic Reshape target
    would hide what it knew at compile time), and computes when it runs what it computed so (token ids and masks made
    Consts, a language model's part was folded whole, computed by OpenVINO's constant folding: a Funnel whose CPU
    Einsum fails did not fail). The inputs of a part holding a TensorIterator, Loop or If keep the dims the whole
    model gives them (of the values' rank where our rules know none): its bodies would infer the values' dims, which
    ``fix_dims`` does not write into their ports (E-SHAPE; every part of a DeBERTa holding its If was not valid). Its
    shape arithmetic is pinned all the same: an If's condition left an input, OpenVINO CPU cannot tell the rank the
    If gives and refuses it (a healthy DeBERTa's part failed), as it refuses an input of dynamic rank. None where the
    part is then not valid (a body whose ports declare no dims, fed an input of a known rank)."""
    builder = GraphBuilder(part)
    bodies = any(layer.children for layer in part.layers())
    for parameter in part.parameters():
        name = input_name(part, parameter)
        value = inputs[name]
        if value.dtype.kind in "iub" and value.size <= _PINNED_ELEMENTS and not data[name]:
            const = builder.const(value, parameter.name)
            part.layer(const[0]).outputs[0].names = parameter.outputs[0].names  # (the input goes; its tensor stays)
            part.replace_all_uses(parameter, const)
            part.remove_layer(parameter.id)
            del inputs[name]
            continue
        if bodies:  # (see the docstring)
            if parameter.outputs[0].dims is not None:
                continue
            dims: tuple[int, ...] = (-1,) * value.ndim
        else:  # (a dim of 0 dynamic: see the docstring)
            dims = tuple(d if d else -1 for d in value.shape)
        parameter.attrs["shape"] = ",".join(str(d) for d in dims)
        parameter.outputs[0].dims = dims
    result = check_graph(part)[1]
    if result is None:
        return None
    fix_dims(part, result)
    try:
        require_valid(part)
    except InvalidModelError:
        return None
    return part, inputs
