"""Seeded cut points of a model, and the one measurement of ``extract`` at each: tests/test_extract.py and
scripts/extract_zoo.py use both.

``cut_points``: a tensor to cut at, one or two tensors it feeds as outputs, and now and then a second cut input among
their other sources, all named (as OpenVINO names them) and each computed from the model's inputs, not from constants
alone; the model inputs the part also needs are added as ``extract`` names them (``CutError.unfed``); a candidate
``extract`` refuses otherwise (the model's state inside it, a cut input nothing reads) is skipped and counted. Never a
ReadValue's output: OpenVINO CPU computes the attention reading the state with another kernel than one reading an
input, which tests/test_extract.py measures on its own, within a rounding bound.

``measure``: the part is written, read back and checked (``read_valid``), its ``.bin`` compared with the payloads of
its Consts, and run by OpenVINO CPU on the original's activations at its inputs (the user's inputs at a model input
it keeps); each output must equal the original's activation there bit for bit (NaN where NaN). Both are OpenVINO's
per-layer runs (every op an output, ``infer(per_layer=True)``), so the part's layers run the kernels the original's ran
on the same values: any difference is the cut's. A plain run of the part (only its outputs) lets OpenVINO fuse ops the
per-layer run of the original computed one by one; ``plain`` also measures that run, how far from the original's
activations in units of max|activation| (measured on the target zoo: 0 on most parts, 1.6e-7 at most, an f32 ulp: a
fused kernel's rounding, which compare's rounding rules, not this test, bound).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ir_tools import Graph, read_valid, write_ir
from ir_tools.ir.names import input_name
from ir_tools.passes.extract import CutError, extract, tensor_ports
from ir_tools.passes.shapes import Propagation
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
    payload_bytes: int  # the distinct payloads of the part's Consts: what its .bin must hold
    unequal: list[str]  # outputs whose value differs from the original's activation
    plain_distance: float | None = None  # max |plain - original| / max |original| over the outputs

    @property
    def equal(self) -> bool:
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
    """``count`` seeded cuts ``extract`` accepts, and how many candidates it refused on the way."""
    graph, rng = original.graph, np.random.default_rng(seed)
    variable = set().union(*(_downstream(graph, (p.id, p.outputs[0].id)) for p in graph.parameters()))
    named = sorted({key for key in original.ports.values() if key[0] in variable and key in original.activations
                    and graph.layer(key[0]).type != "ReadValue"})
    cuts: list[Cut] = []
    refused = 0
    while len(cuts) < count:
        start = named[rng.integers(len(named))]
        below = _downstream(graph, start)
        ends = [key for key in named if key[0] in below and not graph.layer(key[0]).is_a("Result")]
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
                if exc.unfed:
                    cut.inputs += [original.name(key) for key in exc.unfed]
                    continue
                refused += 1
                break
            cuts.append(cut)
            break
    return cuts, refused


def measure(original: Original, cut: Cut, directory: Path, plain: bool = False) -> Measured:
    """The part at ``cut`` written into ``directory`` and measured (see the module's docstring)."""
    graph = original.graph
    part = extract(graph, cut.inputs, cut.outputs, original.propagation)
    xml, bin_path = write_ir(part, directory / "part.xml", part.ir_version)
    written = read_valid(xml)
    payloads = {bytes(part.const_bytes(layer)) for layer in part.layers() if layer.is_a("Const")}
    feed = {}
    for parameter in written.parameters():
        name = input_name(written, parameter)
        source = graph.layer(original.ports[name][0])
        feed[name] = original.inputs[input_name(graph, source)] if source.is_a("Parameter") else \
            original.activations[original.ports[name]]
    runner = OpenVinoRunner(written, ModelFiles(xml, bin_path))
    got = runner.infer(feed, per_layer=True).outputs
    wants = {name: original.activations[original.ports[name]] for name in cut.outputs}
    unequal = [name for name, want in wants.items() if name not in got or got[name].shape != want.shape
               or not np.array_equal(got[name], want, equal_nan=True)]
    found = Measured(cut, len(part), bin_path.stat().st_size, sum(map(len, payloads)), unequal)
    if plain:
        got = runner.run(feed)
        found.plain_distance = max(_distance(got[name], want) for name, want in wants.items())
    return found


def _distance(got: np.ndarray, want: np.ndarray) -> float:
    """max |got - want| / max |want| (0 for equal arrays, exact types and empty ones; inf for another shape)."""
    if got.shape != want.shape:
        return float("inf")
    if want.size == 0 or np.array_equal(got, want, equal_nan=True):
        return 0.0
    scale = float(np.abs(want[np.isfinite(want)]).max(initial=0.0)) or 1.0
    return float(np.nanmax(np.abs(got.astype(np.float64) - want))) / scale
