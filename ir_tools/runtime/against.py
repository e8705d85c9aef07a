"""``compare A.xml --against B``: two models on the same inputs, A on OpenVINO CPU, B on OpenVINO CPU (an IR) or
onnxruntime (an ONNX file). Every output of A is compared with B's output of the same name; per layer, every tensor
A computes is matched by name with one B computes (the names OpenVINO's frontends keep from the source model: an
ONNX tensor's name becomes the IR port's), each pair compared, and the first pair in A's topological order beyond its
tolerance is the first drift. Each model runs end to end on its own: a drift shows where the two part and everything
downstream of it.

The tolerance (docs/SEMANTICS.md, "compare --against"), unless the caller gives ``Tolerances``: an element of a
tensor t may differ by its bound W or by ``IMPLEMENTATION * max|t|``, rtol 0 (``Drift``); W is what the two models'
weights and inputs differ by, ``SPREAD`` times, propagated through A's graph by the ops' rounding rules
(``carried``); a layer B computes as A does from the same values (``same_computations``) may not differ at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from ..base.dtypes import element_type
from ..base.errors import IrToolsError, SourceLoc, did_you_mean
from ..ir.model import Graph, Layer, Port
from ..ir.names import input_name, output_names, output_renames, resolved_names, tensor_names
from ..ir.walker import Walker
from ..ops.opsets import lookup
from ..ops.rounding import EXACT, is_exact, rounding_error, unit
from ..passes.shapes import read_as_decompression
from .compare import (
    IMPLEMENTATION,
    CompareReport,
    LayerComparison,
    TensorComparison,
    Tolerances,
    compare_tensors,
    peak,
    too_loose,
)
from .executor import Bounded, execute, rounding_bounds
from .inputs import InputError, Recipe, check_inputs, describe
from .numeric_check import compiled_as_is, constant_layers, data_tensors, fits, levels_may_flip, misfit
from .onnxruntime import OnnxModel
from .openvino import ModelFiles
from .runners import OpenVinoRunner

#: The bound propagated in quadrature (``carried``) is a standard deviation's scale: an element's difference may
#: reach this many times it (a normal variable exceeds 6 of its deviations with probability 2e-9).
SPREAD = 6.0


@dataclass(frozen=True)
class Drift:
    """The derived tolerance of a tensor t: an element may differ by ``spread * W(t)`` or by ``implementation *
    max|t|``, rtol 0. W (``carried``): what the two models' weights and inputs differ by, propagated through A's
    graph by each op's rounding rule, which adds one implementation's own f32 rounding on the way."""

    ours: np.dtype  # the coarsest float type of A's weights and inputs
    theirs: np.dtype  # of B's
    compressed: tuple[str, ...] = ()  # the element types of the compressed weights both hold alike
    implementation: float = IMPLEMENTATION
    spread: float = SPREAD

    @property
    def types(self) -> tuple[str, str]:
        return element_type_name(self.ours), element_type_name(self.theirs)

    @property
    def unit(self) -> float:
        """The unit roundoff of the coarser type where the two differ (0 where they agree)."""
        return 0.0 if self.ours == self.theirs else max(unit(self.ours), unit(self.theirs))

    def rounded(self, value: np.ndarray) -> np.ndarray:
        """The bound W starts with at A's float constant ``value``: ``spread`` times how far B's copy of it is.
        That is, where B's type is coarser, exactly |value - value rounded to it| (beyond its range, its largest
        value: ovc clips what it compresses); where B's is finer, half an ulp of A's (B's value, of which A's is the
        rounding, lies within it); nothing where they agree."""
        if value.dtype.kind != "f" or unit(self.theirs) == unit(value.dtype):
            return EXACT
        if unit(self.theirs) < unit(value.dtype):
            return self.spread * rounding_error(value)
        top = float(np.finfo(self.theirs).max)
        return self.differs(value, np.clip(value, -top, top).astype(self.theirs))

    def coarse(self, value: np.ndarray) -> np.ndarray:
        """A float ``value`` rounded to the coarser of the two models' types (beyond its range, its largest value):
        what one model's weight and its copy in the other both round to."""
        coarser = max((self.ours, self.theirs), key=unit)
        if value.dtype.kind != "f":
            return value
        top = float(np.finfo(coarser).max)
        return np.clip(value, -top, top).astype(coarser)

    def differs(self, value: np.ndarray, theirs: np.ndarray) -> np.ndarray:
        """``spread`` |value - theirs| (``theirs`` B's copy of A's ``value``), or EXACT where they are equal."""
        bound = np.asarray(np.abs(np.subtract(value, theirs, dtype=np.float64)))  # (a 0-d array: not a scalar)
        return np.multiply(bound, self.spread, out=bound) if bound.any() else EXACT

    def atol(self, expected: np.ndarray) -> float:
        return self.implementation * peak(expected)

    def text(self) -> str:
        alike = f", both compressed alike ({', '.join(self.compressed)})" if self.compressed else ""
        return (f"an element within W or {self.implementation:g} x max|tensor|, rtol 0 (weights {self.types[0]} "
                f"against {self.types[1]}{alike}; W: {self.spread:g} times what the weights and inputs differ by, "
                "propagated by each op's rounding rule in quadrature, with one implementation's f32 rounding)")

    def to_dict(self) -> dict:
        return {"rule": self.text(), "implementation": self.implementation, "unit": self.unit,
                "spread": self.spread, "weights": list(self.types)}


@dataclass(frozen=True)
class Tensor:
    """A tensor a model computes from its inputs: ``key`` finds its value in a run, ``names`` match it, ``fallback``
    (an IR's layer name and output port id, ``LAYER:PORT`` as extract takes it) matches an unnamed one between two
    IRs."""

    key: object
    names: tuple[str, ...]
    op: str
    fallback: tuple[str, int] | None = None

    @property
    def label(self) -> str:
        return self.names[0] if self.names else f"{self.fallback[0]}:{self.fallback[1]}" if self.fallback else "?"


class IrModel:
    """An IR (``graph``, the parse of ``files``; without files, the graph itself as written) run by OpenVINO CPU in
    this process."""

    def __init__(self, graph: Graph, files: ModelFiles | None = None):
        self.graph = graph
        self.runner = OpenVinoRunner(graph, files)
        self.path = files.xml if files is not None else graph.source or Path(graph.name or "model")
        self.name = self.runner.name
        self.order = graph.topological_order()
        self.constant = constant_layers(graph, self.order)
        self.data = data_tensors(graph, self.order)  # (its shape arithmetic: ``_Carried``, at every step)
        self.inputs = {input_name(graph, p): p for p in graph.parameters()}

    def input_dtype(self, name: str) -> np.dtype:
        et = element_type(self.inputs[name].attrs.get("element_type", ""))
        return np.dtype(et.numpy if et is not None and et.numpy is not None else np.float32)

    def check_inputs(self, inputs: Mapping[str, np.ndarray]) -> None:
        check_inputs(self.graph, inputs)

    def outputs(self) -> list[str]:
        return list(output_names(self.graph).values())

    def tensors(self) -> list[Tensor]:
        return computed_tensors(self.graph, self.order, self.constant)

    def float_types(self) -> set[np.dtype]:
        return float_types(self.graph)

    def run(self, inputs: Mapping[str, np.ndarray], per_layer: bool) -> tuple[dict[str, np.ndarray], dict]:
        """The outputs by name and, with ``per_layer``, each computed tensor's value by its key."""
        hidden = frozenset(self.graph.layer(lid).name for lid in self.constant)
        done = self.runner.infer(inputs, per_layer=per_layer, hidden=hidden)
        return done.outputs, done.layers

    def as_compiled(self, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The outputs of the model as OpenVINO compiles it as it is (no layer an output), by name."""
        return self.runner.infer(inputs).outputs


def computed_tensors(graph: Graph, order: list[Layer], constant: frozenset[str]) -> list[Tensor]:
    """Every used output port of a layer computed from the inputs (not Parameters, Results or ``constant``
    subgraphs: weights and their decompression), in topological ``order``, with its names as OpenVINO reads them
    (``resolved_names``: a name written on two tensors stays on the one a Result reads, the other's is renamed, so
    that it is matched with B's tensor of that name, not with B's first tensor holding it). An output nothing
    consumes (MaxPool's indices beside its values) is left out: it takes no part in what the model computes, and an
    index of a maximum flips between near-equal values at any rounding."""
    names = resolved_names(graph)
    return [Tensor((layer.id, port.id), tuple(names.get((layer.id, port.id), ())), layer.kind, (layer.name, port.id))
            for layer in order if layer.id not in constant and not layer.is_a("Parameter")
            and not layer.is_a("Result") for port in layer.outputs if graph.consumers(layer.id, port.id)]


def float_types(graph: Graph) -> set[np.dtype]:
    """The float element types of a model's weights (Consts) and of its inputs."""
    found = set()
    for layer in graph.layers():
        if layer.is_a("Const") or layer.is_a("Parameter"):
            et = element_type(layer.attrs.get("element_type", ""))
            if et is not None and et.numpy is not None and np.dtype(et.numpy).kind == "f":
                found.add(np.dtype(et.numpy))
    return found


def compressed_weights(graph: Graph) -> Counter[str]:
    """A model's compressed weights, counted by element type: Consts of at most 8 bits (u8, i4, nf4, f8e4m3...; not
    boolean) that a Convert reads. Their values are the quantization of the float weights a twin holds, not those
    weights rounded to another float type."""
    found: Counter[str] = Counter()
    for layer in graph.by_type("Const"):
        et = element_type(layer.attrs.get("element_type", ""))
        if et is not None and 0 < et.bits <= 8 and et.name != "boolean" and any(
                graph.layer(link[2]).is_a("Convert") for link in graph.out_links(layer.id)):
            found[et.name] += 1
    return found


def _compression(found: Counter[str]) -> str:
    return ", ".join(f"{n} {name}" for name, n in sorted(found.items())) + " compressed weight Consts" if found else \
        "no compressed weights"


def weights_differ(ours: Graph, theirs: Graph) -> str | None:
    """How two IRs' weights differ in kind (float types, or compression), in words; None where they agree."""
    a, b = compressed_weights(ours), compressed_weights(theirs)
    if a != b:
        return f"A holds {_compression(a)}, B {_compression(b)}"
    names = [sorted(element_type_name(t) for t in float_types(g)) for g in (ours, theirs)]
    return None if names[0] == names[1] else f"A's weights and inputs are {'/'.join(names[0]) or 'not float'}, " \
                                             f"B's {'/'.join(names[1]) or 'not float'}"


def derive(model: IrModel, against: IrModel | OnnxModel) -> Drift:
    """The tolerance of ``compare --against`` for these two models (see ``Drift``); E-USAGE where their weights are
    compressed otherwise (one quantized, say): what quantizing moves, no rounding rule bounds."""
    def coarsest(types: set[np.dtype]) -> np.dtype:
        return max(types, key=unit, default=np.dtype(np.float32))

    compressed = derivable(model, against)
    return Drift(coarsest(model.float_types()), coarsest(against.float_types()), tuple(sorted(compressed)))


def derivable(model: IrModel, against: IrModel | OnnxModel) -> Counter[str]:
    """The compressed weights both models hold alike (``compressed_weights``); E-USAGE where they differ: the derived
    tolerance bounds two copies of one model's weights in float types, and what quantizing moves no rounding rule
    bounds."""
    ours = compressed_weights(model.graph)
    theirs = compressed_weights(against.graph) if isinstance(against, IrModel) else Counter()
    if ours != theirs:
        raise IrToolsError(f"the derived tolerance bounds two copies of one model's weights in float types, and these "
                           f"are compressed otherwise: A holds {_compression(ours)}, B ({against.path.name}) "
                           f"{_compression(theirs)}; what quantizing moves, no rounding rule bounds: give "
                           "--atol/--rtol to compare them at a tolerance of yours", code="E-USAGE")
    return ours


def element_type_name(dtype: np.dtype) -> str:
    return {"float16": "f16", "float32": "f32", "float64": "f64"}.get(dtype.name, dtype.name)


@dataclass(frozen=True)
class Alike:
    """What B computes as A does (``same_computations``): ``same``, A's layers that may not differ at all (W 0);
    ``weights_differ``, per layer of A fed a constant B holds otherwise in the same place (a weight moved), what the
    report says (W starts there from what B holds, ``TheirWeights``)."""

    same: frozenset[str] = frozenset()
    weights_differ: list[dict] = field(default_factory=list)
    #: per layer fed such a constant, each differing Const of A compared with B's exactly: a failure of that layer
    compared: Mapping[str, list[TensorComparison]] = field(default_factory=dict)


#: A Const's attributes that say where its bytes are in the .bin, not what they are.
PLACEMENT = ("offset", "size")


def _same_constant(model: IrModel, against: IrModel, a: Layer, b: Layer, differing: dict[str, Layer],
                   seen: dict[tuple[str, str], bool]) -> bool:
    """Whether B's constant subgraph ending at ``b`` is A's ending at ``a`` op for op (types, versions, attributes,
    wiring; a Const of the same element type and shape). A Const pair whose bytes differ is added to ``differing``
    (A's id: B's Const) and counts as the same op: its values are compared, not assumed (SEMANTICS section 9)."""
    key = (a.id, b.id)
    if key in seen:
        return seen[key]
    seen[key] = False
    if a.is_a("Const") and b.is_a("Const"):
        kept = [{k: v for k, v in layer.attrs.items() if k not in PLACEMENT} for layer in (a, b)]
        if kept[0] != kept[1]:
            return False
        if bytes(model.graph.const_bytes(a)) != bytes(against.graph.const_bytes(b)):
            differing[a.id] = b
        seen[key] = True
        return True
    if (a.type, a.version, a.attrs, a.children, len(a.inputs)) != (b.type, b.version, b.attrs, b.children,
                                                                   len(b.inputs)) or b.id not in against.constant:
        return False
    if read_as_decompression(model.graph, a) != read_as_decompression(against.graph, b):
        return False  # (one read as decompression, one folded: another kernel reads it, a MatMul of compressed weights)
    for ours, theirs in zip(a.inputs, b.inputs, strict=True):
        pa, pb = model.graph.producer(a.id, ours.id), against.graph.producer(b.id, theirs.id)
        if pa is None or pb is None:
            if pa is not pb:
                return False
        elif pa[0].outputs.index(pa[1]) != pb[0].outputs.index(pb[1]) or \
                not _same_constant(model, against, pa[0], pb[0], differing, seen):
            return False
    seen[key] = True
    return True


def _weights_differ(layer: Layer, port: int, pairs: list[tuple[str, np.ndarray, np.ndarray]]
                    ) -> tuple[dict, list[TensorComparison]]:
    """What the report says of ``layer``, fed at input ``port`` constants whose ``pairs`` (a name, A's values, B's)
    differ: each, how many of its values differ and by how much at most; and each compared with B's exactly (two
    models whose weights differ are not the same model: the layer fails, the first drift where nothing before it
    does). ``pairs`` holds the values as they are to be equal (of one type: A's and B's rounded to the coarser)."""
    found, compared = [], []
    for name, a, b in pairs:
        differ = a != b if a.dtype.kind != "f" else ~((a == b) | (np.isnan(a) & np.isnan(b)))
        found.append({"const": name, "differ": int(np.count_nonzero(differ)), "of": int(a.size),
                      "max_abs": float(np.max(np.abs(np.subtract(a, b, dtype=np.float64))[differ]))})
        compared.append(compare_tensors(f"weights '{name}' (input {port})", a, b, 0.0, 0.0, sides=("A", "B")))
    return {"layer_id": layer.id, "name": layer.name, "type": layer.kind, "line": layer.line, "input": port,
            "consts": found}, compared


def same_computations(model: IrModel, against: IrModel | OnnxModel, drift: Drift, inputs: Mapping[str, np.ndarray],
                      fed: Mapping[str, np.ndarray], held: Mapping[str, np.ndarray] | None = None) -> Alike:
    """A's layers that B computes as A does: B an IR holding the weights in A's types (the derivation's premise is
    that B's weights are A's, in their types: here the same) with a layer of the same name, type, version, attributes
    and bodies (a Loop's, verbatim), fed the same values (the same input values; a constant computed alike from the
    same values, ``_same_constant``; a port of such a layer of the same name). OpenVINO CPU runs both on the same
    kernel from the same values, which gives the same bits: the layer's tensors may not differ at all. Found in A's
    order; a layer of B changed in kind (a rewrite, a pad moved) and what it feeds is not among them, nor a ReadValue
    of a variable ``held`` says may differ (``carried``), nor a layer fed a constant whose values differ from B's
    (a weight moved), which the report names (``Alike.weights_differ``) and W starts from."""
    if not isinstance(against, IrModel) or drift.unit:
        return Alike()
    theirs = {layer.name: layer for layer in against.graph.layers()}
    same: set[str] = set()
    seen: dict[tuple[str, str], bool] = {}
    said: list[dict] = []
    compared: dict[str, list[TensorComparison]] = {}
    for layer in model.order:
        other = theirs.get(layer.name)
        if layer.id in model.constant or other is None or (other.type, other.version, other.attrs, other.children) != (
                layer.type, layer.version, layer.attrs, layer.children) or len(other.inputs) != len(layer.inputs):
            continue
        if layer.is_a("ReadValue") and not is_exact((held or {}).get(layer.attrs["variable_id"], EXACT)):
            continue
        if layer.is_a("Parameter"):
            name = input_name(model.graph, layer)
            if inputs[name].dtype == fed[name].dtype and np.array_equal(inputs[name], fed[name], equal_nan=True):
                same.add(layer.id)
            continue
        fed_alike = True
        for i, (ours, other_port) in enumerate(zip(layer.inputs, other.inputs, strict=True)):
            a = model.graph.producer(layer.id, ours.id)
            b = against.graph.producer(other.id, other_port.id)
            if a is None or b is None:
                fed_alike &= a is None and b is None
            elif a[0].id in model.constant:
                moved: dict[str, Layer] = {}
                alike = a[0].outputs.index(a[1]) == b[0].outputs.index(b[1]) and \
                    _same_constant(model, against, a[0], b[0], moved, seen)
                if alike and moved:
                    entry, found = _weights_differ(layer, i, [
                        (model.graph.layer(lid).name, model.graph.const_array(model.graph.layer(lid)),
                         against.graph.const_array(theirs)) for lid, theirs in moved.items()])
                    said.append(entry)
                    compared.setdefault(layer.id, []).extend(found)
                fed_alike &= alike and not moved
            else:
                fed_alike &= a[0].id in same and a[0].name == b[0].name and \
                    a[0].outputs.index(a[1]) == b[0].outputs.index(b[1])
        if fed_alike:
            same.add(layer.id)
    return Alike(frozenset(same), said, compared)


class TheirWeights:
    """B's value at each input of A's layers that a constant feeds (A's weights, after their decompression): the
    input of B's layer of the same name, type and arity, where B computes it from constants too and it has A's
    shape; computed by the reference from B's constants when first asked. W starts there from exactly what A's and
    B's weights differ by (``Drift.differs``: an f16 weight of A against B's f32 differs by its rounding, an f16
    exponent 2 against B's f32 2 by nothing); where B holds no such input (an ONNX model, a layer B lacks), from
    the worst case of A's weight type against B's (``Drift.rounded``)."""

    def __init__(self, against: IrModel | OnnxModel):
        self.graph = against.graph if isinstance(against, IrModel) else None
        self.constant = against.constant if isinstance(against, IrModel) else frozenset()
        self.layers = {layer.name: layer for layer in self.graph.layers()} if self.graph is not None else {}
        self.values: dict[tuple[str, int], np.ndarray | None] = {}
        #: per layer of A, its inputs (index, name, A's value, B's) whose weights differ by more than rounding to
        #: the coarser type (both rounded to it), found by ``carried``: the report names them, the layer fails
        self.differ: dict[str, list[tuple[int, str, np.ndarray, np.ndarray]]] = {}

    def said(self, graph: Graph) -> tuple[list[dict], dict[str, list[TensorComparison]]]:
        """``differ`` as ``same_computations`` says a weight moved: the report's entries, each layer's failures."""
        entries, compared = [], {}
        for lid, inputs in self.differ.items():
            for index, name, ours, other in inputs:
                entry, found = _weights_differ(graph.layer(lid), index, [(name, ours, other)])
                entries.append(entry)
                compared.setdefault(lid, []).extend(found)
        return entries, compared

    def at(self, layer: Layer, index: int, shape: tuple[int, ...]) -> np.ndarray | None:
        """B's value at input ``index`` of A's ``layer`` (of ``shape``), or None where B holds none."""
        other = self.layers.get(layer.name)
        if other is None or other.type != layer.type or len(other.inputs) != len(layer.inputs):
            return None
        found = self.graph.producer(other.id, other.inputs[index].id)  # type: ignore[union-attr]
        if found is None or found[0].id not in self.constant:
            return None
        value = self._value(*found)
        return value if value is not None and value.shape == shape else None

    def _value(self, layer: Layer, port: Port) -> np.ndarray | None:
        key = (layer.id, port.id)
        if key not in self.values:
            graph = self.graph
            assert graph is not None
            args = []
            for p in layer.inputs:
                found = graph.producer(layer.id, p.id)
                args.append(self._value(*found) if found is not None else None)
            outputs: list[np.ndarray | None] = [None] * len(layer.outputs)
            if all(a is not None for a in args):
                try:
                    outputs = list(execute(graph, layer, args))  # type: ignore[arg-type]
                except IrToolsError:
                    pass
            self.values.update({(layer.id, q.id): v for q, v in zip(layer.outputs, outputs, strict=True)})
        return self.values[key]


class _Carried(Walker[Bounded]):
    """The walk of ``carried``: each layer's value is A's (OpenVINO's activation, or a constant the reference computes
    from A's weights), paired with the bound on how far B's value of it may be (see ``carried``)."""

    def __init__(self, model: IrModel, drift: Drift, values: Mapping[tuple[str, int], np.ndarray],
                 inputs: Mapping[str, np.ndarray], fed: Mapping[str, np.ndarray], held: dict[str, np.ndarray],
                 alike: Alike, theirs: TheirWeights | None):
        super().__init__(model.graph, free=True, order=model.order)
        self.model, self.drift, self.values, self.inputs, self.fed, self.held = model, drift, values, inputs, fed, held
        self.same, self.theirs = alike.same, theirs
        self.found: dict[tuple[str, int], np.ndarray] = {}
        self.written: dict[str, np.ndarray] = {}

    def missing(self, layer: Layer, port: Port) -> Bounded:
        return None, None  # type: ignore[return-value]  (an input OpenVINO did not expose)

    def run_node(self, layer: Layer, args: list[Bounded]) -> list[Bounded]:
        graph = self.graph
        if layer.is_a("Parameter"):
            name = input_name(graph, layer)
            value = self.inputs[name]
            bound = self.drift.differs(value, self.fed[name]) if value.dtype.kind == "f" else EXACT
            return [self.keep(layer, layer.outputs[0], value, bound)]
        if layer.is_a("Result"):
            return []
        if layer.is_a("Const"):
            value = graph.const_array(layer)
            return [(value, self.drift.rounded(value))]
        if layer.id not in self.model.constant:
            args = [self.weight(layer, i, arg) for i, arg in enumerate(args)]
        if layer.is_a("Assign") and args:
            self.written[layer.attrs["variable_id"]] = args[0][1]
        values = [v for v, _ in args]
        if layer.is_a("ReadValue") and layer.attrs["variable_id"] in self.held:  # a variable an earlier step wrote
            port = layer.outputs[0]
            return [self.keep(layer, port, self.values.get((layer.id, port.id)), self.held[layer.attrs["variable_id"]])]
        if layer.id in self.model.constant:
            outputs = execute(graph, layer, values)
        else:
            outputs = [self.values.get((layer.id, port.id)) for port in layer.outputs]
        if layer.id in self.same or (layer.id not in self.model.constant and self._shape_arithmetic(layer, args)):
            return [self.keep(layer, port, value, EXACT) for port, value in zip(layer.outputs, outputs, strict=True)]
        bounds: list[np.ndarray | None] = [None] * len(outputs)
        if all(v is not None for v in values) and all(v is not None for v in outputs):
            try:
                bounds = rounding_bounds(graph, layer, values, [b for _, b in args], outputs, statistical=True,
                                         shared=True)
            except IrToolsError:
                pass
        spec = lookup(layer.type, layer.version)
        ruled = spec is not None and spec.rounding is not None
        return [self.keep(layer, port, value, bound if bound is not None else _grown(args, value), ruled)
                for port, value, bound in zip(layer.outputs, outputs, bounds, strict=True)]

    def _shape_arithmetic(self, layer: Layer, args: list[Bounded]) -> bool:
        """Whether ``layer`` computes from its inputs' shapes alone (not ``data_tensors``: through a ShapeOf) and
        constants that B holds alike (each input's W 0): B computes the same values, where a rule's bound would add
        an implementation's rounding (mobilevit's patch count, 8 / 2 ceiled, would then be 5 as well as 4: every
        Reshape after it, and all it feeds, of no bound)."""
        return not any((layer.id, port.id) in self.model.data for port in layer.outputs) and \
            all(bound is not None and is_exact(bound) for _, bound in args)

    def weight(self, layer: Layer, index: int, arg: Bounded) -> Bounded:
        """Input ``index`` of a computed ``layer``: a constant of A (a weight) with the bound of exactly what B's
        value there differs by, where B holds one (``TheirWeights``); else as it came."""
        value = arg[0]
        found = self.graph.producer(layer.id, layer.inputs[index].id)
        if value is None or self.theirs is None or found is None or found[0].id not in self.model.constant:
            return arg
        theirs = self.theirs.at(layer, index, np.shape(value))
        if theirs is None:
            return arg
        if self.drift.unit:  # (where the types agree, ``same_computations`` names a weight moved)
            ours, other = self.drift.coarse(value), self.drift.coarse(theirs)
            if not np.array_equal(ours, other, equal_nan=ours.dtype.kind == "f"):
                self.theirs.differ.setdefault(layer.id, []).append((index, found[0].name, ours, other))
        return value, self.drift.differs(value, theirs)

    def keep(self, layer: Layer, port: Port, value: np.ndarray | None, bound: np.ndarray, ruled: bool = True
             ) -> Bounded:
        """A computed port's pair, its bound kept for the comparisons (the walk frees what it no longer needs). An
        integer or boolean output of a layer no rule covers (not ``ruled``) is exact from exact inputs and may be any
        value otherwise (an index taken from a float that may differ, as a Bucketize's bucket, whose rule says the
        same); one of a rule, what the rule says (TopK's indices may differ where its values may)."""
        if value is not None and value.dtype.kind != "f" and not ruled and not is_exact(bound):
            bound = np.asarray(np.inf)
        self.found[(layer.id, port.id)] = bound
        return value, bound  # type: ignore[return-value]


def _grown(args: list[Bounded], value: np.ndarray | None) -> np.ndarray:
    """The bound of a layer no rounding rule covers (no kernel, or an input OpenVINO did not expose): its inputs'
    largest bound, scaled up where its values grow beyond its inputs' peak (a relative error keeps through a
    scaling layer), never down (an absolute error does not shrink through cos of a large angle or x - mean)."""
    carry = max((float(np.max(b)) if b is not None and np.size(b) else np.inf if b is None else 0.0
                 for _, b in args), default=0.0)
    before = max((peak(v) for v, _ in args if v is not None and v.dtype.kind == "f"), default=0.0)
    after = peak(value) if value is not None and value.dtype.kind == "f" else 0.0
    return np.asarray(carry * max(1.0, after / before) if before > 0 else carry, np.float64)


def carried(model: IrModel, drift: Drift, values: Mapping[tuple[str, int], np.ndarray],
            inputs: Mapping[str, np.ndarray], fed: Mapping[str, np.ndarray],
            held: dict[str, np.ndarray] | None = None, alike: Alike = Alike(), theirs: TheirWeights | None = None
            ) -> dict[tuple[str, int], np.ndarray]:
    """W per output port of ``model``'s computed layers and Parameters, per element: how far B's value may be from
    A's, from what differs between them, propagated with each op's rounding rule (ops.rounding) in its statistical
    variant (errors of different terms independent, added in quadrature), on A's values (``values``: OpenVINO's
    activations, by port; constants the reference computes from A's weights).

    What differs: each weight of A (a constant a computed layer reads) against B's value there (``theirs``,
    ``TheirWeights``: exactly A's minus B's), else each float Const of A against B's copy (``Drift.rounded``: exactly
    A's value minus its rounding to B's coarser type, or half an ulp of A's where B's is finer), each input as B is
    fed it (``fed``: exactly the rounding of A's input to B's type), both ``drift.spread`` times (the quadrature sum
    is a deviation's scale; taken at the source, a non-linear op is evaluated at the size the error may reach). Each
    rule adds the op's own f32 rounding on the way: one of the two implementations' (the tolerance's
    ``implementation`` term stands for the other's). A layer no rule covers carries its inputs' largest W (``_grown``).

    ``held``, for a stateful model's steps: each variable's W (by variable id) before this inference, which its
    ReadValues give (a variable not in it gives its init value, as at the first step); replaced by the W of what
    each Assign writes. ``alike``: what B computes as A does (``same_computations``): W 0 there."""
    held = {} if held is None else held
    walk = _Carried(model, drift, values, inputs, fed, held, alike, theirs)
    with threadpool_limits(limits=1, user_api="blas"):  # (small products beside OpenVINO's threads, as compare)
        walk.run()
    held.update(walk.written)
    return walk.found


def their_names(model: IrModel, against: IrModel | OnnxModel) -> dict[str, str]:
    """A's input names -> B's: an input of A answers to any of its tensor's names, of which B may know another (an ONNX
    model's input, an IR's first name being a later one of A's)."""
    theirs = set(against.inputs)
    return {name: next((n for n in tensor_names(p.outputs[0].names) if n in theirs), name) if p.outputs else name
            for name, p in model.inputs.items()}


def as_theirs(model: IrModel, against: IrModel | OnnxModel, fed: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``fed`` (keyed by A's input names) keyed by B's."""
    names = their_names(model, against)
    return {names.get(name, name): value for name, value in fed.items()}


def against_inputs(model: IrModel, against: IrModel | OnnxModel, inputs: Mapping[str, np.ndarray]
                   ) -> dict[str, np.ndarray]:
    """``inputs`` (validated for ``model``) as ``against`` takes them, still keyed by A's names (``as_theirs`` gives
    B's): the same inputs (E-INPUT naming those that differ), float values in its float type (an f16 model's inputs
    are f16), each checked against its shapes."""
    check_inputs(model.graph, inputs)
    aliases = their_names(model, against)
    ours, theirs = set(aliases.values()), set(against.inputs)
    if ours != theirs:
        lines = [f"'{n}' (A) is not an input of B{did_you_mean(n, theirs - ours)}" for n in sorted(ours - theirs)]
        lines += [f"'{n}' (B) is not an input of A{did_you_mean(n, ours - theirs)}" for n in sorted(theirs - ours)]
        raise InputError(f"the two models' inputs differ: {'; '.join(lines)}; A's inputs: {', '.join(sorted(ours))}, "
                         f"B's ({against.path.name}): {', '.join(sorted(theirs))}")
    fed = {}
    for name, value in inputs.items():
        want = against.input_dtype(aliases[name])
        if value.dtype != want and not (value.dtype.kind == want.kind == "f"):
            raise InputError(f"input '{name}' is {value.dtype} in A and {want} in B ({against.path.name})")
        fed[name] = value.astype(want, copy=False)
    try:
        against.check_inputs(as_theirs(model, against, fed))
    except InputError as exc:  # (B's refusal, at B's path: A's inputs fit A)
        raise InputError(f"B ({against.path.name}) does not take A's inputs: {exc.message}",
                         SourceLoc(str(against.path))) from None
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
    same layer name and output port (two IRs of one model: an f16 twin, a model before and after migrate)."""
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
                    recipes: Mapping[str, Recipe] | None = None,
                    held: dict[str, np.ndarray] | None = None) -> CompareReport:
    """A (``model``, on OpenVINO) against B (``against``) on ``inputs`` (keyed by A's input names; validated here):
    the outputs, and per layer (when asked, or when an output fails) every tensor matched by name. ``tolerances``:
    the caller's, else the derived ``Drift``. ``source`` and ``recipes`` say where the inputs came from (as
    ``CompareOptions`` does); ``held``, a stateful model's variables' W from step to step (``carried``)."""
    inputs = check_inputs(model.graph, inputs)
    fed = against_inputs(model, against, inputs)
    drift = None if tolerances is not None else derive(model, against)
    config = {"openvino": model.runner.version, "device": "CPU", "INFERENCE_PRECISION_HINT": "f32",
              "atol": tolerances.atol if tolerances else 0.0, "rtol": tolerances.rtol if tolerances else 0.0,
              "atol_by_name": dict(tolerances.atol_by_name) if tolerances else {},
              "rtol_by_name": dict(tolerances.rtol_by_name) if tolerances else {}, **(source or {})}
    if drift is not None:
        config["tolerance"] = drift.text()
    report = CompareReport(str(model.path), config)
    given = f"from {config['inputs']}" if "inputs" in config else "given"
    report.inputs = describe(model.graph, inputs, recipes or {}, given)

    # The derived tolerance needs the peak of every tensor of A: A runs per layer then, and B too, so that both expose
    # the same tensors (an exposed tensor is not fused away: x * c - x computed by one FMA or by two roundings).
    layered = per_layer or drift is not None
    ours, layers = model.run(inputs, layered)
    plain = None if layered else ours  # (A as it is compiled, where that run was already made)
    their_outputs, their_values = _theirs(model, against, as_theirs(model, against, fed), layered)
    (layers, misfit_a), (their_values, misfit_b) = _fitting(model, layers, "A"), _fitting(against, their_values, "B")
    alike = same_computations(model, against, drift, inputs, fed, held) if drift is not None else Alike()
    same = alike.same
    theirs = TheirWeights(against)
    weights = carried(model, drift, layers, inputs, fed, held, alike, theirs) if drift is not None else {}
    said, differing = theirs.said(model.graph)
    alike = Alike(alike.same, alike.weights_differ + said, {**alike.compared, **differing})

    def judged(name: str, named: str, key: tuple[str, int] | None, actual: np.ndarray,
               expected: np.ndarray) -> TensorComparison:
        """``actual`` against ``expected`` at the user's tolerances for ``named`` (an output or a layer), else the
        derived ones of the port ``key``."""
        if drift is None:
            return compare_tensors(name, actual, expected, *tolerances.for_name(named))  # type: ignore[union-attr]
        bound = weights.get(key, EXACT) if key is not None else EXACT
        atol = 0.0 if key is not None and key[0] in same else drift.atol(expected)  # the same bits: nothing
        return compare_tensors(name, actual, expected, atol, 0.0, bound=bound)

    for lid, found in alike.compared.items():  # (weights that differ: a failure whatever the tensors show)
        layer = model.graph.layer(lid)
        report.layers.append(LayerComparison(layer.id, layer.name, layer.kind, layer.line, list(found)))
    results = {name: model.graph.layer(rid) for rid, name in output_names(model.graph).items()}
    their_tensors = _their_tensors(against)
    their_names = {name for t in their_tensors for name in t.names}
    loose: list[dict] = []
    for name, value in ours.items():
        result = results[name]
        found = model.graph.producer(result.id, result.inputs[0].id) if result.inputs else None
        producer = found[0] if found is not None and found[0].id not in model.constant else None
        key = (found[0].id, found[1].id) if producer is not None else None
        if name in their_outputs:
            report.outputs.append(judged(name, name, key, value, their_outputs[name]))
            if drift is not None and (found_loose := too_loose(report.outputs[-1], their_outputs[name])):
                loose.append(found_loose)
        elif name in their_names:  # (an output A adds, a debug output say: B's tensor of its name is compared)
            report.outputs.append(TensorComparison(
                name, True, None, 0.0, 0.0, min_atol_to_pass=None, min_rtol_to_pass=None, comparable=False,
                note=f"B ({against.path.name}) computes a tensor of this name but has no output of it: compared "
                     "among the tensors"))
        else:
            report.outputs.append(TensorComparison(
                name, False, None, 0.0, 0.0, min_atol_to_pass=None, min_rtol_to_pass=None,
                note=f"B ({against.path.name}) has no output of this name; its outputs: "
                     f"{', '.join(sorted(their_outputs))}{did_you_mean(name, their_outputs)}"))
    summary = {"model": str(against.path), "runner": against.name,
               "tolerance": drift.to_dict() if drift is not None else None,
               "outputs_unmatched": sorted(set(their_outputs) - set(ours)), "tensors": None,
               **({"weights_differ": alike.weights_differ} if alike.weights_differ else {})}
    report.too_loose = loose
    if not per_layer and (report.failed or loose):  # where A and B part, or W is too loose to show it
        per_layer = True
        if not layered:
            ours, layers = model.run(inputs, True)
            their_outputs, their_values = _theirs(model, against, as_theirs(model, against, fed), True)
            (layers, misfit_a), (their_values, misfit_b) = (_fitting(model, layers, "A"),
                                                            _fitting(against, their_values, "B"))
    if per_layer:
        ours_list = model.tensors()
        found = match(ours_list, their_tensors)
        summary["tensors"] = found.to_dict(sum(1 for t in ours_list if t.names))
        _compare_pairs(model, found, layers, their_values, judged, report, (misfit_a, misfit_b))
    if (layered or per_layer) and not levels_may_flip(model.order):  # A's outputs came from a run per layer
        report.compiled_as_is = compiled_as_is(plain if plain is not None else model.as_compiled(inputs), ours,
                                               tolerances or Tolerances())
    report.against = summary
    report.reference_outputs, report.openvino_outputs = their_outputs, ours
    report.openvino_layers = {f"{model.graph.layer(lid).name}:{pid}": v for (lid, pid), v in layers.items()}
    return report


def _their_tensors(against: IrModel | OnnxModel) -> list[Tensor]:
    """B's computed tensors, an ONNX model's as an IR's (named by their one name)."""
    if isinstance(against, OnnxModel):
        return [Tensor(t.name, (t.name,), t.op_type) for t in against.tensors()]
    return against.tensors()


def _theirs(model: IrModel, against: IrModel | OnnxModel, fed: Mapping[str, np.ndarray],
            per_layer: bool) -> tuple[dict, dict]:
    """B's outputs by name and, with ``per_layer``, its computed tensors by key. An output of an IR B that A names
    otherwise through a Result of the same name goes by A's name (``output_renames``: an unnamed output, named after
    its producer in IR v10 and after its Result in v11, as ``migrate --ir-version 10`` leaves it)."""
    if isinstance(against, IrModel):
        outputs, values = against.run(fed, per_layer)
        renames = output_renames(model.graph, against.graph)
        return {renames.get(name, name): value for name, value in outputs.items()}, values
    values = against.run(fed, [t.name for t in against.tensors()] if per_layer else [])
    return {name: values[name] for name in against.outputs()}, values


def _compare_pairs(model: IrModel, found: Matching, layers: Mapping, their_values: Mapping, judged,
                   report: CompareReport, misfits: tuple[Mapping, Mapping]) -> None:
    """Each matched pair compared, as A's layers' entries (in A's order); A's unmatched tensors, and those either
    model's OpenVINO exposed at other dims (``misfits``: A's, B's), as not checked."""
    graph = model.graph
    entries = {lay.layer_id: lay for lay in report.layers}  # (a layer whose weights differ has one already)
    for ours, theirs, _ in found.pairs:
        layer = graph.layer(ours.key[0])  # type: ignore[index]
        actual, expected = layers.get(ours.key), their_values.get(theirs.key)
        why = misfits[0].get(ours.key) or misfits[1].get(theirs.key)
        if why is not None:
            _not_checked(report, layer, f"tensor '{ours.label}': {why}")
            continue
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


def _fitting(model: IrModel | OnnxModel, values: Mapping, side: str) -> tuple[dict, dict[tuple[str, int], str]]:
    """An IR's activations (``values``, of model ``side``, A or B) but those its OpenVINO exposed at other dims than
    their port's (``numeric_check.misfit``: not that port's tensor), and those, each with what the report says of it:
    neither compared nor carried (a layer reading one carries its inputs' W, ``_grown``), where their rules met the
    other dims (E-EXEC "operands could not be broadcast": gpt_neox against itself migrated to IR v10)."""
    if not isinstance(model, IrModel):
        return dict(values), {}
    kept, misfits = {}, {}
    for key, value in values.items():
        port = model.graph.layer(key[0]).output(key[1])
        if port is not None and not fits(value.shape, port.dims):
            misfits[key] = f"{misfit(port, value.shape)} in {side}"
        else:
            kept[key] = value
    return kept, misfits


def _squeezed(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The dims but those of 1: OpenVINO's frontends keep a scalar of ONNX's (a Gather of one index) as [1]."""
    return tuple(d for d in shape if d != 1)


def _not_checked(report: CompareReport, layer: Layer, reason: str) -> None:
    report.not_checked.append({"layer_id": layer.id, "name": layer.name, "type": layer.kind, "line": layer.line,
                               "reason": reason})

