"""``compare A.xml --against B``: two models on the same inputs, A on OpenVINO CPU, B on OpenVINO CPU (an IR) or
onnxruntime (an ONNX file). Every output of A is compared with B's output of the same name; per layer, every tensor
A computes is matched by name with one B computes (the names OpenVINO's frontends keep from the source model: an
ONNX tensor's name becomes the IR port's), each pair compared, and the first pair in A's topological order beyond its
tolerance is the first drift. Each model runs end to end on its own: a drift shows where the two part and everything
downstream of it.

The tolerance (docs/SEMANTICS.md, "compare --against"), unless the caller gives ``Tolerances``: a tensor t may differ
by ``W(t) + IMPLEMENTATION * max|t|``, rtol 0, W the weight rounding carried to t (``Drift``, ``carried``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..base.dtypes import element_type
from ..base.errors import did_you_mean
from ..ir.model import Graph, Layer
from ..ir.names import input_name, output_name, tensor_names
from ..ops.rounding import unit
from .compare import CompareReport, LayerComparison, TensorComparison, Tolerances, compare_tensors, peak
from .inputs import InputError, Recipe, check_inputs, describe
from .numeric_check import constant_layers
from .onnxruntime import OnnxModel
from .openvino import ModelFiles
from .runners import OpenVinoRunner

#: Two f32 implementations of one model (OpenVINO against onnxruntime, or against another OpenVINO graph of it) round
#: differently (accumulation order, fused or decomposed ops): up to this fraction of max|tensor|, as
#: ``migrate --check-with`` allows another release's kernels.
IMPLEMENTATION = 1e-4
#: What two f32 implementations of one layer with weights may differ by, of max|output|: its sums taken in another
#: order (blocked, Winograd, fused multiply-add) differ statistically by about sqrt(n) u for n terms: 64 u = 2^-18
#: for n up to 4096 (a 3x3 convolution of 455 channels). Carried through the graph as the weights' rounding is.
ACCUMULATION = 2.0**-18


@dataclass(frozen=True)
class Drift:
    """The derived tolerance of a tensor t: ``W(t) + implementation * max|t|``, rtol 0.

    ``implementation``: two f32 implementations' rounding of the tensor itself. ``W``: what each layer with weights
    adds, carried through the graph by ``carried``: ``accumulation`` (its f32 sums in another order) and ``unit``
    (the unit roundoff of the coarser float type where the two models' weights, or inputs, differ in type: 2^-11 for
    f16 against f32; 0 where they agree) of its max|output|."""

    types: tuple[str, str]  # the coarsest float type of A's and of B's weights and inputs
    unit: float
    implementation: float = IMPLEMENTATION
    accumulation: float = ACCUMULATION

    def atol(self, carried: float, expected: np.ndarray) -> float:
        return carried + self.implementation * peak(expected)

    def text(self) -> str:
        weights = f"weights {self.types[0]} against {self.types[1]}"
        terms = [f"2^{int(np.log2(u))}" for u in (self.unit, self.accumulation) if u]
        per_layer = f"({' + '.join(terms)})" if len(terms) > 1 else terms[0]
        return (f"atol W + {self.implementation:g} x max|tensor|, rtol 0 ({weights}; W adds {per_layer} x max|output| "
                "at each layer with float weights and carries its inputs' W, scaled up where the values grow beyond "
                "their peak so far, never down)")

    def to_dict(self) -> dict:
        return {"rule": self.text(), "implementation": self.implementation, "unit": self.unit,
                "accumulation": self.accumulation, "weights": list(self.types)}


@dataclass(frozen=True)
class Tensor:
    """A tensor a model computes from its inputs: ``key`` finds its value in a run, ``names`` match it, ``fallback``
    (an IR's layer name and output index) matches an unnamed one between two IRs."""

    key: object
    names: tuple[str, ...]
    op: str
    fallback: tuple[str, int] | None = None

    @property
    def label(self) -> str:
        return self.names[0] if self.names else f"{self.fallback[0]}:{self.fallback[1]}" if self.fallback else "?"


class IrModel:
    """An IR (``graph``, the parse of ``files``) run by OpenVINO CPU in this process."""

    def __init__(self, graph: Graph, files: ModelFiles):
        self.graph = graph
        self.runner = OpenVinoRunner(graph, files)
        self.path = files.xml
        self.name = self.runner.name
        self.order = graph.topological_order()
        self.constant = constant_layers(graph, self.order)
        self.inputs = {input_name(graph, p): p for p in graph.parameters()}

    def input_dtype(self, name: str) -> np.dtype:
        et = element_type(self.inputs[name].attrs.get("element_type", ""))
        return np.dtype(et.numpy if et is not None and et.numpy is not None else np.float32)

    def check_inputs(self, inputs: Mapping[str, np.ndarray]) -> None:
        check_inputs(self.graph, inputs)

    def outputs(self) -> list[str]:
        return [output_name(self.graph, r) for r in self.graph.results()]

    def tensors(self) -> list[Tensor]:
        """Every used output port of a layer computed from the inputs (not Parameters, Results or constant
        subgraphs: weights and their decompression), in topological order. An output nothing consumes (MaxPool's
        indices beside its values) is left out: it takes no part in what the model computes, and an index of a
        maximum flips between near-equal values at any rounding."""
        return [Tensor((layer.id, port.id), tuple(tensor_names(port.names)), layer.kind, (layer.name, index))
                for layer in self.order if self.computed(layer) for index, port in enumerate(layer.outputs)
                if self.graph.consumers(layer.id, port.id)]

    def computed(self, layer: Layer) -> bool:
        return layer.id not in self.constant and not layer.is_a("Parameter") and not layer.is_a("Result")

    def float_types(self) -> set[np.dtype]:
        """The float element types of its weights (Consts) and of its inputs."""
        found = set()
        for layer in self.graph.layers():
            if layer.is_a("Const") or layer.is_a("Parameter"):
                et = element_type(layer.attrs.get("element_type", ""))
                if et is not None and et.numpy is not None and np.dtype(et.numpy).kind == "f":
                    found.add(np.dtype(et.numpy))
        return found

    def run(self, inputs: Mapping[str, np.ndarray], per_layer: bool) -> tuple[dict[str, np.ndarray], dict]:
        """The outputs by name and, with ``per_layer``, each computed tensor's value by its key."""
        hidden = frozenset(self.graph.layer(lid).name for lid in self.constant)
        done = self.runner.infer(inputs, per_layer=per_layer, hidden=hidden)
        return done.outputs, done.layers


def derive(model: IrModel, against: IrModel | OnnxModel) -> Drift:
    """The tolerance of ``compare --against`` for these two models (see ``Drift``)."""
    def coarsest(types: set[np.dtype]) -> np.dtype:
        return max(types, key=unit, default=np.dtype(np.float32))

    a, b = coarsest(model.float_types()), coarsest(against.float_types())
    return Drift((element_type_name(a), element_type_name(b)), 0.0 if a == b else max(unit(a), unit(b)))


def element_type_name(dtype: np.dtype) -> str:
    return {"float16": "f16", "float32": "f32", "float64": "f64"}.get(dtype.name, dtype.name)


def carried(model: IrModel, drift: Drift, values: Mapping[tuple[str, int], np.ndarray],
            inputs: Mapping[str, np.ndarray], against: IrModel | OnnxModel) -> dict[tuple[str, int], float]:
    """W per output port of ``model``'s computed layers (and Parameters): the error that rounding the weights to
    ``drift.unit``, and two f32 implementations, may have put there, from the peaks of A's values (``values``, by
    port). A layer with a float constant input (weights, a scale, a bias) adds ``unit * max|output|`` (each weight
    rounded by at most ``unit`` of itself, the errors of its n products adding up statistically to about ``unit`` of
    the output's scale) and ``drift.accumulation * max|output|``. It carries the largest W of its inputs: unchanged
    where the values shrink (an absolute error does not shrink through cos of a large angle, x - mean, or a bias
    add), scaled where they grow beyond the largest peak on any path before (a relative error keeps through a
    scaling layer). So W(t) / S(t), S(t) the largest peak on a path to t, is at most the per-layer terms times the
    weighted layers on one path: ``unit * depth * max|tensor|`` with the largest scale the error may have been made
    at. Integer and boolean tensors (shapes, indices) are exact and carry nothing. An input whose type differs
    between the two models (f16 against f32) starts with ``unit * max|input|``."""
    graph, found = model.graph, {}
    scale = {}  # S: the largest peak on a path to the port
    for layer in model.order:
        if layer.id in model.constant:
            continue
        if layer.is_a("Parameter"):
            value = inputs[input_name(graph, layer)]
            differs = value.dtype != against.input_dtype(input_name(graph, layer))
            scale[(layer.id, layer.outputs[0].id)] = p = peak(value) if value.dtype.kind == "f" else 0.0
            found[(layer.id, layer.outputs[0].id)] = drift.unit * p if differs else 0.0
            continue
        weighted, sources = False, []
        for port in layer.inputs:
            producer = graph.producer(layer.id, port.id)
            if producer is None:
                continue
            key = (producer[0].id, producer[1].id)
            if producer[0].id in model.constant:
                et = element_type(producer[1].precision or "")
                weighted |= et is not None and et.numpy is not None and np.dtype(et.numpy).kind == "f"
            elif key in found:
                sources.append((found[key], scale[key]))
        for port in layer.outputs:
            value = values.get((layer.id, port.id))
            if value is not None and value.dtype.kind != "f":  # integers and booleans: exact, no scale (shapes)
                found[(layer.id, port.id)] = scale[(layer.id, port.id)] = 0.0
                continue
            p = peak(value) if value is not None else 0.0
            carry = max((w * max(1.0, p / s) if s > 0 else w for w, s in sources), default=0.0)
            scale[(layer.id, port.id)] = max([p, *(s for _, s in sources)])
            found[(layer.id, port.id)] = carry + ((drift.unit + drift.accumulation) * p if weighted else 0.0)
    return found


def against_inputs(model: IrModel, against: IrModel | OnnxModel, inputs: Mapping[str, np.ndarray]
                   ) -> dict[str, np.ndarray]:
    """``inputs`` (validated for ``model``) as ``against`` takes them: the same names (E-INPUT naming those that
    differ), float values in its float type (an f16 model's inputs are f16), each checked against its shapes."""
    check_inputs(model.graph, inputs)
    ours, theirs = set(model.inputs), set(against.inputs)
    if ours != theirs:
        lines = [f"'{n}' (A) is not an input of B{did_you_mean(n, theirs - ours)}" for n in sorted(ours - theirs)]
        lines += [f"'{n}' (B) is not an input of A{did_you_mean(n, ours - theirs)}" for n in sorted(theirs - ours)]
        raise InputError(f"the two models' inputs differ: {'; '.join(lines)}; A's inputs: {', '.join(sorted(ours))}, "
                         f"B's ({against.path.name}): {', '.join(sorted(theirs))}")
    fed = {}
    for name, value in inputs.items():
        want = against.input_dtype(name)
        if value.dtype != want and not (value.dtype.kind == want.kind == "f"):
            raise InputError(f"input '{name}' is {value.dtype} in A and {want} in B ({against.path.name})")
        fed[name] = value.astype(want, copy=False)
    against.check_inputs(fed)
    return fed


@dataclass
class Matching:
    """A's tensors paired with B's: ``pairs`` (A's tensor, B's tensor, matched by layer name) in A's order."""

    pairs: list[tuple[Tensor, Tensor, bool]] = field(default_factory=list)
    unmatched: list[Tensor] = field(default_factory=list)  # A's
    unmatched_against: list[Tensor] = field(default_factory=list)  # B's

    def to_dict(self, named: int) -> dict:
        return {"matched": len(self.pairs), "by_layer_name": sum(by_layer for _, _, by_layer in self.pairs),
                "named": named, "unmatched": [t.label for t in self.unmatched],
                "unmatched_against": [{"name": t.label, "op": t.op} for t in self.unmatched_against]}


def match(ours: list[Tensor], theirs: list[Tensor]) -> Matching:
    """Each of ``ours`` with the first of ``theirs`` holding one of its names; an unnamed one with the tensor of the
    same layer name and output index (two IRs of one model: an f16 twin, a model before and after migrate)."""
    by_name: dict[str, Tensor] = {}
    for t in theirs:
        for name in t.names:
            by_name.setdefault(name, t)
    by_layer = {t.fallback: t for t in theirs if t.fallback is not None and not t.names}
    found, used = Matching(), set()
    for t in ours:
        other = next((by_name[n] for n in t.names if n in by_name), None)
        fallback = other is None and not t.names and t.fallback in by_layer
        other = by_layer[t.fallback] if fallback else other
        if other is None:
            found.unmatched.append(t)
        else:
            found.pairs.append((t, other, fallback))
            used.add(id(other))
    found.unmatched_against = [t for t in theirs if id(t) not in used]
    return found


def compare_against(model: IrModel, against: IrModel | OnnxModel, inputs: Mapping[str, np.ndarray],
                    tolerances: Tolerances | None = None, per_layer: bool = False,
                    source: Mapping[str, object] | None = None,
                    recipes: Mapping[str, Recipe] | None = None) -> CompareReport:
    """A (``model``, on OpenVINO) against B (``against``) on ``inputs`` (keyed by A's input names; validated here):
    the outputs, and per layer (when asked, or when an output fails) every tensor matched by name. ``tolerances``:
    the caller's, else the derived ``Drift``. ``source`` and ``recipes`` say where the inputs came from (as
    ``CompareOptions`` does)."""
    fed = against_inputs(model, against, inputs)
    drift = None if tolerances is not None else derive(model, against)
    config = {"openvino": model.runner.version, "device": "CPU", "INFERENCE_PRECISION_HINT": "f32",
              "atol": tolerances.atol if tolerances else 0.0, "rtol": tolerances.rtol if tolerances else 0.0,
              "atol_by_name": dict(tolerances.atol_by_name) if tolerances else {},
              "rtol_by_name": dict(tolerances.rtol_by_name) if tolerances else {}, **(source or {})}
    if drift is not None:
        config["tolerance"] = drift.text()
    report = CompareReport(str(model.path), config)
    report.inputs = describe(inputs, recipes or {}, f"from {config['inputs']}" if "inputs" in config else "given")

    # The derived tolerance needs the peak of every tensor of A: A runs per layer then.
    ours, layers = model.run(inputs, per_layer or drift is not None)
    their_outputs, their_values = _theirs(against, fed, per_layer)
    weights = carried(model, drift, layers, inputs, against) if drift is not None else {}

    def judged(name: str, named: str, key: tuple[str, int] | None, actual: np.ndarray,
               expected: np.ndarray) -> TensorComparison:
        """``actual`` against ``expected`` at the user's tolerances for ``named`` (an output or a layer), else the
        derived ones of the port ``key``."""
        if drift is None:
            atol, rtol = tolerances.for_name(named)  # type: ignore[union-attr]
        else:
            atol, rtol = drift.atol(weights.get(key, 0.0) if key is not None else 0.0, expected), 0.0
        return compare_tensors(name, actual, expected, atol, rtol)

    results = {output_name(model.graph, r): r for r in model.graph.results()}
    for name, value in ours.items():
        result = results[name]
        found = model.graph.producer(result.id, result.inputs[0].id) if result.inputs else None
        producer = found[0] if found is not None and found[0].id not in model.constant else None
        key = (found[0].id, found[1].id) if producer is not None else None
        if name in their_outputs:
            report.outputs.append(judged(name, name, key, value, their_outputs[name]))
        else:
            report.outputs.append(TensorComparison(
                name, False, None, 0.0, 0.0, min_atol_to_pass=None, min_rtol_to_pass=None,
                note=f"B ({against.path.name}) has no output of this name; its outputs: "
                     f"{', '.join(sorted(their_outputs))}{did_you_mean(name, their_outputs)}"))
    summary = {"model": str(against.path), "runner": against.name,
               "tolerance": drift.to_dict() if drift is not None else None,
               "outputs_unmatched": sorted(set(their_outputs) - set(ours)), "tensors": None}
    if not per_layer and not report.passed:
        per_layer = True
        if not layers:
            ours, layers = model.run(inputs, True)
        their_outputs, their_values = _theirs(against, fed, True)
    if per_layer:
        theirs = against.tensors()
        if isinstance(against, OnnxModel):
            theirs = [Tensor(t.name, (t.name,), t.op_type) for t in theirs]
        ours_list = model.tensors()
        found = match(ours_list, theirs)
        summary["tensors"] = found.to_dict(sum(1 for t in ours_list if t.names))
        _compare_pairs(model, found, layers, their_values, judged, report)
    report.against = summary
    report.reference_outputs, report.openvino_outputs = their_outputs, ours
    report.openvino_layers = {f"{model.graph.layer(lid).name}:{pid}": v for (lid, pid), v in layers.items()}
    return report


def _theirs(against: IrModel | OnnxModel, fed: Mapping[str, np.ndarray], per_layer: bool) -> tuple[dict, dict]:
    """B's outputs by name and, with ``per_layer``, its computed tensors by key."""
    if isinstance(against, IrModel):
        return against.run(fed, per_layer)
    values = against.run(fed, [t.name for t in against.tensors()] if per_layer else [])
    return {name: values[name] for name in against.outputs()}, values


def _compare_pairs(model: IrModel, found: Matching, layers: Mapping, their_values: Mapping, judged,
                   report: CompareReport) -> None:
    """Each matched pair compared, as A's layers' entries (in A's order); A's unmatched tensors as not checked."""
    graph = model.graph
    entries: dict[str, LayerComparison] = {}
    for ours, theirs, _ in found.pairs:
        layer = graph.layer(ours.key[0])  # type: ignore[index]
        actual, expected = layers.get(ours.key), their_values.get(theirs.key)
        if actual is None or expected is None:
            who = "OpenVINO did not expose it in A" if actual is None else "B's runner did not return it"
            _not_checked(report, layer, f"tensor '{ours.label}': {who}")
            continue
        entry = entries.get(layer.id)
        if entry is None:
            entry = entries[layer.id] = LayerComparison(layer.id, layer.name, layer.kind, layer.line, [])
            report.layers.append(entry)
        label = ours.label
        if actual.shape != expected.shape and _squeezed(actual.shape) == _squeezed(expected.shape):
            label, expected = f"{label} (shape {list(expected.shape)} in B)", expected.reshape(actual.shape)
        entry.outputs.append(judged(label, layer.name, ours.key, actual, expected))
    for t in found.unmatched:
        layer = graph.layer(t.key[0])  # type: ignore[index]
        why = f"no tensor of B is named {' or '.join(t.names)}" if t.names else "unnamed, and B has no such layer"
        _not_checked(report, layer, f"tensor '{t.label}': {why}")
    position = {layer.id: i for i, layer in enumerate(model.order)}
    report.layers.sort(key=lambda lay: position[lay.layer_id])
    failing = next(((lay, t) for lay in report.layers for t in lay.outputs if not t.passed), None)
    if failing is not None:
        lay, t = failing
        report.first_divergence = {"layer_id": lay.layer_id, "name": lay.name, "type": lay.kind, "line": lay.line,
                                   "tensor": t.name}


def _squeezed(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The dims but those of 1: OpenVINO's frontends keep a scalar of ONNX's (a Gather of one index) as [1]."""
    return tuple(d for d in shape if d != 1)


def _not_checked(report: CompareReport, layer: Layer, reason: str) -> None:
    report.not_checked.append({"layer_id": layer.id, "name": layer.name, "type": layer.kind, "line": layer.line,
                               "reason": reason})

