"""Seeded cut points of a model, and the one measurement of ``extract`` at each: tests/test_extract.py and
scripts/extract_zoo.py use both.

``cut_points``: a tensor to cut at, one or two tensors it feeds as outputs, and now and then a second cut input among
their other sources, all named (as OpenVINO names them) and each computed from the model's inputs, not from constants
alone; the tensors the part also needs fed are added as ``extract`` names them (``CutError.unfed``: model inputs, the
outputs of the ReadValues it would hold); a candidate ``extract`` refuses otherwise (a cut input nothing reads) is
skipped and counted.

``measure``: the part is written, read back and checked (``read_valid``), its ``.bin`` compared with the payloads of
its Consts, and run by OpenVINO CPU on the original's activations at its inputs (the user's inputs at a model input
it keeps), per layer (every op an output, ``infer(per_layer=True)``), as the original's activations were computed.
Each output must equal the original's activation there: bit for bit (NaN where NaN), or, where OpenVINO computed a
layer of the part with another kernel than the original's (measured: swin_small_test's MVN, its input equal bit for
bit, in 1 part of 100, 4.8e-7 apart; the stateful Llama's attention reading the state, 1.1e-8), within the bound on
|part - original| that the rounding rules (ops/rounding) carry from that layer to the output (``_within_bounds``):
each is an f32 computation of the same exact value. ``plain`` also measures a run of the part with only its outputs
(OpenVINO may then fuse ops the per-layer run computed one by one), its distance from the original's activations in
units of max|activation|, judged by nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ir_tools import Graph, read_valid, write_ir
from ir_tools.ir.bodies import body_layers
from ir_tools.ir.model import Layer
from ir_tools.ir.names import input_name, output_names
from ir_tools.ops.rounding import EXACT
from ir_tools.passes.extract import CutError, extract, find_tensor, tensor_name, tensor_ports
from ir_tools.passes.shapes import Propagation
from ir_tools.runtime.executor import execute, rounding_bounds, supported
from ir_tools.runtime.openvino import ModelFiles
from ir_tools.runtime.runners import OpenVinoRunner

PortKey = tuple[str, int]


@dataclass
class Original:
    """A model, its inputs, and OpenVINO's per-layer run of it on them: what every cut of it is measured against."""

    graph: Graph
    files: ModelFiles
    inputs: dict[str, np.ndarray]
    propagation: Propagation
    activations: dict[PortKey, np.ndarray] = field(init=False)
    ports: dict[str, PortKey] = field(init=False)

    def __post_init__(self) -> None:
        # (an Assign's output made a model output: OpenVINO refuses to compile, "Incorrect output port number")
        sinks = frozenset(layer.name for layer in self.graph.layers() if layer.type == "Assign")
        self.activations = OpenVinoRunner(self.graph, self.files).infer(self.inputs, per_layer=True,
                                                                        hidden=sinks).layers
        self.ports = tensor_ports(self.graph)

    def name(self, key: PortKey) -> str:
        """The first name of the tensor at ``key`` that names it (``tensor_ports``)."""
        return next(name for name, port in self.ports.items() if port == key)


@dataclass
class Cut:
    inputs: list[str]
    outputs: list[str]


@dataclass
class Measured:
    """One part: its size, whether each output equals the original's activation, and the plain run's distance."""

    cut: Cut
    layers: int
    bin_bytes: int
    payload_bytes: int  # the distinct payloads of the part's Consts (its bodies' too): what its .bin must hold
    bounded: list[str]  # outputs not equal bit for bit, within their rounding bound
    unequal: list[str]  # outputs neither
    plain_distance: float | None = None  # max |plain - original| / max |original| over the outputs

    @property
    def equal(self) -> bool:
        """Every output equals the original's activation (bit for bit or within its bound), the .bin its weights."""
        return not self.unequal and self.bin_bytes == self.payload_bytes


def _downstream(graph: Graph, key: PortKey) -> set[str]:
    """The layers that read the tensor at ``key``, directly or not."""
    seen: set[str] = set()
    todo = [edge.to_layer for edge in graph.consumers(*key)]
    while todo:
        layer_id = todo.pop()
        if layer_id not in seen:
            seen.add(layer_id)
            todo += [edge.to_layer for edge in graph.out_edges(layer_id)]
    return seen


def cut_points(original: Original, count: int, seed: int) -> tuple[list[Cut], int]:
    """``count`` seeded cuts ``extract`` accepts, and how many candidates it refused on the way; none through what
    computes an If's condition from shapes (``_conditions``)."""
    graph, rng = original.graph, np.random.default_rng(seed)
    conditions = _conditions(graph)
    variable = set().union(*(_downstream(graph, (p.id, p.outputs[0].id)) for p in graph.parameters())) - conditions
    named = sorted({key for key in original.ports.values() if key[0] in variable and key in original.activations})
    cuts: list[Cut] = []
    refused = 0
    while len(cuts) < count:
        if refused > 20 * count:
            raise RuntimeError(f"extract refused {refused} candidates of {original.files.xml}, accepted {len(cuts)}")
        start = named[rng.integers(len(named))]
        below = _downstream(graph, start)
        ends = [key for key in named if key[0] in below]
        if not ends:
            continue
        outputs = [ends[i] for i in sorted(set(rng.integers(len(ends), size=rng.integers(1, 3))))]
        inputs = [start]
        if rng.random() < 0.3:
            above = graph.ancestors(key[0] for key in outputs)
            others = [key for key in named if key[0] in above and key not in (start, *outputs)]
            inputs += [others[rng.integers(len(others))]] if others else []
        cut = Cut([original.name(key) for key in inputs], [original.name(key) for key in outputs])
        while True:
            try:
                extract(graph, cut.inputs, cut.outputs, original.propagation)
            except CutError as exc:
                if exc.unfed and not any(key[0] in conditions for key in exc.unfed):
                    cut.inputs += [tensor_name(graph, key) for key in exc.unfed]  # (unnamed: LAYER:PORT)
                    continue
                refused += 1
                break
            cuts.append(cut)
            break
    return cuts, refused


def _conditions(graph: Graph) -> set[str]:
    """The layers computing an If's condition from shapes (ShapeOf and what follows it up to the If): a cut there
    makes the condition an input, and an If of a dynamic rank that OpenVINO folds only where it sees the condition
    compare a dim with itself (DeBERTa-v2's) is then compiled by none."""
    conditions = graph.ancestors(key[0] for layer in graph.by_type("If")
                                 if (key := graph.producer_key(layer.id, layer.input_ids()[0])) is not None)
    shapes = set().union(*(_downstream(graph, (layer.id, layer.outputs[0].id)) for layer in graph.by_type("ShapeOf")))
    return {layer_id for layer_id in conditions if layer_id in shapes or graph.layer(layer_id).is_a("ShapeOf")}


def _all_layers(graph: Graph) -> list[Layer]:
    """The layers of ``graph`` and of the bodies of its TensorIterators, Loops and Ifs (nested ones too): whose
    Consts the ``.bin`` holds."""
    found, todo = [], list(graph.layers())
    while todo:
        layer = todo.pop()
        found.append(layer)
        todo += body_layers(layer) if layer.children else ()
    return found


def measure(original: Original, cut: Cut, directory: Path, plain: bool = False) -> Measured:
    """The part at ``cut`` written into ``directory`` and measured (see the module's docstring)."""
    graph = original.graph
    part = extract(graph, cut.inputs, cut.outputs, original.propagation)
    xml, bin_path = write_ir(part, directory / "part.xml", part.ir_version)
    written = read_valid(xml)
    payloads = {bytes(part.const_bytes(layer)) for layer in _all_layers(part) if layer.is_a("Const")}
    feed = {}
    for parameter in written.parameters():
        name = input_name(written, parameter)
        key = find_tensor(graph, original.ports, name)  # (a tensor without a name is called LAYER:PORT)
        source = graph.layer(key[0])
        feed[name] = original.inputs[input_name(graph, source)] if source.is_a("Parameter") else \
            original.activations[key]
    runner = OpenVinoRunner(written, ModelFiles(xml, bin_path))
    run = runner.infer(feed, per_layer=True)
    got = run.outputs
    wants = {name: original.activations[original.ports[name]] for name in cut.outputs}
    inexact = [name for name, want in wants.items() if not np.array_equal(got[name], want, equal_nan=True)]
    bounded = _within_bounds(original, written, feed, run.layers, inexact) if inexact else []
    found = Measured(cut, len(part), bin_path.stat().st_size, sum(map(len, payloads)), bounded,
                     [name for name in inexact if name not in bounded])
    if plain:
        got = runner.run(feed)
        found.plain_distance = max(_distance(got[name], want) for name, want in wants.items())
    return found


def _within_bounds(original: Original, part: Graph, feed: dict[str, np.ndarray],
                   activations: dict[PortKey, np.ndarray], outputs: list[str]) -> list[str]:
    """The ``outputs`` where the part's activation lies within a rounding bound of the original's: walking the part,
    each tensor's bound on |part - original| is 0 where the two are equal, else what the layer's rounding rule gives on
    the original's input values: its own rounding (the original's error) plus its rounding with the inputs' bounds
    (the part's), both from the exact value on those inputs (``executor.rounding_bounds``, end to end as ``compare``).
    No bound (so not within) past a layer without a kernel or rule whose values differ."""
    graph = original.graph
    value: dict[PortKey, np.ndarray] = {}  # the original's value of each tensor of the part
    bound: dict[PortKey, np.ndarray | None] = {}
    for layer in part.topological_order():
        if layer.is_a("Result"):
            continue
        if layer.is_a("Parameter"):
            key = (layer.id, layer.outputs[0].id)
            value[key], bound[key] = feed[input_name(part, layer)], EXACT
            continue
        if layer.is_a("Const"):
            key = (layer.id, layer.outputs[0].id)
            value[key], bound[key] = graph.const_array(graph.layer(layer.id)), EXACT
            continue
        keys = [part.producer_key(layer.id, port.id) for port in layer.inputs]
        args, given = [value.get(key) for key in keys], [bound.get(key) for key in keys]
        rounded = None
        for port in layer.outputs:
            key = (layer.id, port.id)
            value[key] = original.activations.get(key)
            if value[key] is not None and np.array_equal(activations.get(key), value[key], equal_nan=True):
                bound[key] = EXACT
                continue
            if rounded is None:
                rounded = _difference_bounds(part, layer, args, given)
            bound[key] = rounded[layer.outputs.index(port)]
    within, named = [], output_names(part)
    for result in part.results():
        name, key = named[result.id], part.producer_key(result.id, result.inputs[0].id)
        if name in outputs and bound.get(key) is not None and activations[key].shape == value[key].shape:
            difference = np.abs(activations[key].astype(np.float64) - value[key])
            if np.all((difference <= bound[key]) | (np.isnan(activations[key]) & np.isnan(value[key]))):
                within.append(name)
    return within


def _difference_bounds(part: Graph, layer, args: list, given: list) -> list[np.ndarray | None]:
    """Per output of ``layer``: own rounding plus rounding with the inputs' bounds, from the exact value on ``args``
    (None where an input value or bound, a kernel or a rule is missing)."""
    if any(arg is None for arg in args) or any(b is None for b in given) or not supported(layer):
        return [None] * len(layer.outputs)
    exact = execute(part, layer, args)
    own = rounding_bounds(part, layer, args, [EXACT] * len(args), exact, statistical=True)
    carried = rounding_bounds(part, layer, args, given, exact, statistical=True)
    return [None if a is None or b is None else a + b for a, b in zip(own, carried, strict=True)]


def _distance(got: np.ndarray, want: np.ndarray) -> float:
    """max |got - want| / max |want| (0 for equal arrays, exact types and empty ones; inf for another shape)."""
    if got.shape != want.shape:
        return float("inf")
    if want.size == 0 or np.array_equal(got, want, equal_nan=True):
        return 0.0
    scale = float(np.abs(want[np.isfinite(want)]).max(initial=0.0)) or 1.0
    return float(np.nanmax(np.abs(got.astype(np.float64) - want))) / scale
