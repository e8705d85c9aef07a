"""The numpy reference executor: the graph walker with each layer's OpSpec kernel.

``Interpreter.run_node`` is the one place a layer is executed, so a subclass can observe or
replace it (as ``legacy_reference`` does for legacy Pooling). Values are dropped after their last
consumer has run. ``BoundedInterpreter`` also carries each value's rounding bound (ops.rounding)
from layer to layer, for comparing whole-model outputs.

Both carry a model's state as OpenVINO's infer request does (``Variables``): a ReadValue reads its variable, or runs
its kernel (the init value) while the variable is unset; an Assign's value becomes its variable's when the
inference has run to the end (a failed one changes nothing); the variables stay across ``evaluate`` calls of one
interpreter until ``reset_state``.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np

from ..base.dtypes import REAL_TYPES, element_type
from ..base.errors import IrToolsError, UnsupportedError
from ..base.packed import held_dtype, is_bf16, to_bf16, untagged, value_dtype
from ..ir.bodies import Subgraph, body_layers, subgraphs
from ..ir.model import Graph, Layer, Port
from ..ir.names import input_name, output_names
from ..ir.reader import graph_of
from ..ir.walker import Walker
from ..ops import attrs as A
from ..ops.control_flow import Bodies
from ..ops.opsets import lookup
from ..ops.rounding import taken_in
from ..passes.checks import STATE_TYPES
from ..passes.validate import require_valid
from .inputs import check_inputs


def supported(layer: Layer) -> bool:
    """True if the executor can run this layer (a Const, if numpy can hold its values: not a string; a Convert, if
    the reference holds its destination type: numpy's or bf16 (``base.packed.BF16``), not f8, f4 or i4, whose
    rounding the reference does not model; another layer, if its outputs are of no float type the reference lacks
    (``unheld_float``: a Multiply of f8 rounds its product to f8, which the reference does not); a TensorIterator,
    Loop or If, if it can run every layer of its bodies)."""
    spec = lookup(layer.type, layer.version)
    if spec is not None and spec.type == "Const":
        et = element_type(layer.attrs.get("element_type", ""))
        return et is not None and value_dtype(et) is not None
    if spec is not None and spec.type == "Convert":
        et = element_type(layer.attrs.get("destination_type", ""))
        return et is not None and held_dtype(et) is not None
    if spec is not None and spec.bodies:
        return all(supported(inner) for inner in body_layers(layer))
    return spec is not None and (spec.kernel is not None or spec.type in ("Parameter", "Result")) and (
        spec.type in ("Parameter", "Result") or unheld_float(layer) is None)


def unrunnable_inner(graph: Graph, layer: Layer) -> tuple[str, Layer] | None:
    """The first layer of ``layer``'s bodies (a TensorIterator's, Loop's or If's; nested bodies searched) that the
    reference cannot run (``supported``), named ``LAYER/BODY/INNER`` (``A/body/B/body/C``) as a body's diagnostics
    name it; None where it can run them all."""
    for sub in subgraphs(graph, layer):
        body = sub.graph.name.rsplit("/", 1)[-1]
        for inner in sub.graph.layers():
            if supported(inner):
                continue
            spec = lookup(inner.type, inner.version)
            found = unrunnable_inner(sub.graph, inner) if spec is not None and spec.bodies else None
            if found is not None:
                return f"{layer.name}/{body}/{found[0]}", found[1]
            return f"{layer.name}/{body}/{inner.name}", inner
    return None


def unheld_float(layer: Layer) -> str | None:
    """The float element type of an output of ``layer`` that the reference computes in no type of its own (f8, f4),
    if any, as its port declares it (OpenVINO gives such values as f32 ones: ``openvino_infer._values``)."""
    for port in layer.outputs:
        et = element_type(port.precision or "")
        if et is not None and et.name in REAL_TYPES and held_dtype(et) is None:
            return et.name
    return None


def as_held(layer: Layer, values: list[np.ndarray]) -> list[np.ndarray]:
    """A layer's outputs as the reference holds them: one its port declares bf16 rounded to bf16 as OpenVINO CPU
    rounds an f32 result (``to_bf16``), unless the kernel gave bf16 values itself (a Convert, ``BF16``); any other
    as it is, without a tag. Kernels are given f32 values (``execute``), as OpenVINO CPU computes bf16 in f32."""
    return [(value if is_bf16(value.dtype) else to_bf16(value))
            if i < len(layer.outputs) and _declares_bf16(layer.outputs[i]) else untagged(value)
            for i, value in enumerate(values)]


def _declares_bf16(port: Port) -> bool:
    et = element_type(port.precision or "")
    return et is not None and et.name == "bf16"


S = TypeVar("S")


class Variables(Generic[S]):
    """What a model's variables hold between inferences, by ``variable_id`` (a value, or a value and its bound)."""

    def __init__(self) -> None:
        self.values: dict[str, S] = {}
        self._written: dict[str, S] = {}

    def read(self, layer: Layer, init: Callable[[], S]) -> S:
        """A ReadValue's output: its variable, or ``init()`` while the variable is unset."""
        held = self.values.get(layer.attrs["variable_id"])
        return init() if held is None else held

    def write(self, layer: Layer, value: S) -> None:
        """An Assign's value, its variable's once the inference ends (``commit``)."""
        self._written[layer.attrs["variable_id"]] = value

    @contextmanager
    def inference(self) -> Iterator[None]:
        """One inference: its writes kept if it runs to the end, forgotten if it fails."""
        self._written = {}
        try:
            yield
        except BaseException:
            self._written = {}
            raise
        self.values.update(self._written)
        self._written = {}

    def reset(self) -> None:
        """Every variable unset, as OpenVINO's ``reset_state``."""
        self.values, self._written = {}, {}


def stateful(graph: Graph) -> bool:
    """Whether ``graph`` holds state (a ReadValue or an Assign)."""
    return any(layer.is_a(kind) for layer in graph.layers() for kind in STATE_TYPES)


class Interpreter(Walker[np.ndarray]):
    """Runs a Graph with numpy: ``evaluate`` gives what reaches each Result, by output name; ``variables`` holds
    the model's state across calls (``reset_state`` unsets it). ``order``: only these layers, in this order (a part
    closed under producers: ``Graph.ancestors``), so that a layer outside it, even one the reference cannot run, is
    never asked for."""

    def __init__(self, graph: Graph, order: list[Layer] | None = None):
        super().__init__(graph, free=True, order=order)
        self.inputs: Mapping[str, np.ndarray] = {}
        self.outputs: dict[str, np.ndarray] = {}
        self.output_names = output_names(graph)  # (a Result's id -> its output's name)
        self.variables: Variables[np.ndarray] = Variables()
        self.refuse_unsupported()

    def evaluate(self, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The model's outputs for ``inputs`` (keyed by input name), keyed by output name."""
        self.inputs, self.outputs = inputs, {}
        with self.variables.inference():
            self.run()
        return self.outputs

    def reset_state(self) -> None:
        self.variables.reset()

    def refuse_unsupported(self) -> None:
        refuse_unsupported(self.order)

    def run_node(self, layer: Layer, args: list[np.ndarray]) -> list[np.ndarray]:
        if layer.is_a("Parameter"):
            return [input_value(self.graph, layer, self.inputs)]
        if layer.is_a("Result"):
            self.outputs[self.output_names[layer.id]] = untagged(args[0])
        elif layer.is_a("ReadValue"):
            return [self.variables.read(layer, lambda: execute(self.graph, layer, args)[0])]
        elif layer.is_a("Assign"):
            self.variables.write(layer, args[0])
        return execute(self.graph, layer, args)


def refuse_unsupported(layers: list[Layer]) -> None:
    unsupported = [layer for layer in layers if not supported(layer)]
    if unsupported:
        names = ", ".join(f"'{lay.name}' ({lay.kind}, line {lay.line})" for lay in unsupported[:10])
        more = f" and {len(unsupported) - 10} more" if len(unsupported) > 10 else ""
        raise UnsupportedError(f"the reference executor cannot run {len(unsupported)} layer(s): {names}{more}")


def input_value(graph: Graph, layer: Layer, inputs: Mapping[str, np.ndarray]) -> np.ndarray:
    """What a Parameter layer is fed, by its input name."""
    name = input_name(graph, layer)
    if name not in inputs:
        raise IrToolsError(f"no value given for input '{name}'")
    return np.asarray(inputs[name])


def execute(graph: Graph, layer: Layer, args: list[np.ndarray]) -> list[np.ndarray]:
    """Run one non-Parameter layer on given input values (the per-layer comparison feeds it OpenVINO's)."""
    spec = lookup(layer.type, layer.version)
    if spec is None or spec.type == "Parameter":
        raise UnsupportedError(f"the reference cannot execute {layer.kind} here", layer.loc)
    if spec.type == "Const":
        return [graph.const_array(layer)]
    if spec.type == "Result":
        return []
    if spec.kernel is None:
        raise UnsupportedError(f"{spec.label} has no reference kernel", layer.loc)
    attrs = bind(graph, layer) if spec.bodies else A.decode(spec.attrs, layer.attrs, layer.loc)
    # (an op whose shape rule reads no value, a Convert, is folded where its data is known)
    on = spec.value_inputs or range(len(layer.inputs)) if spec.folded_on is None else spec.folded_on
    folded = spec.folded is not None and known_at_inference(graph, layer, on)
    return as_held(layer, spec.compute(attrs, [untagged(arg) for arg in args], folded))


def known_at_inference(graph: Graph, layer: Layer, inputs: Sequence[int]) -> bool:
    """Whether OpenVINO knows the values of ``layer``'s input ports at ``inputs`` (positions) when it compiles the
    model, computed from Consts and the dims of static shapes (ShapeOf) alone: it then folds the layer or infers its
    output's shape from them, where its CPU plugin otherwise computes the layer on the values it is fed
    (``OpSpec.folded``). Not through a layer whose input element types (its ports' declared precisions: the graph is
    valid) OpenVINO's evaluate() of its op does not take (``OpSpec.evaluates``): it folds none."""
    todo = [graph.producer(layer.id, port.id) for i, port in enumerate(layer.inputs) if i in inputs]
    seen: set[str] = set()
    while todo:
        found = todo.pop()
        if found is None:
            return False
        producer, port = found
        if producer.id in seen or producer.is_a("Const"):
            continue
        seen.add(producer.id)
        if producer.is_a("ShapeOf"):
            dims = producer.inputs[0].dims if producer.inputs else None
            if dims is None or any(d < 0 for d in dims):
                return False
            continue
        spec = lookup(producer.type, producer.version)
        if not producer.inputs or spec is None or spec.bodies:
            return False
        elements = [element_type(p.precision or "") for p in producer.inputs]
        if not spec.evaluates([None if e is None else e.name for e in elements]):  # (ReadValue and Assign too)
            return False
        todo += [graph.producer(producer.id, p.id) for p in producer.inputs]
    return True


def bind(graph: Graph, layer: Layer) -> Bodies:
    """A TensorIterator's, Loop's or If's port maps and bodies, each run by an interpreter of its own (made once per
    body): what its kernel and rounding rule are given."""
    subs = subgraphs(graph, layer)
    runs = []
    for sub in subs:
        run = _BODY_RUNS.get(sub.graph)
        if run is None:
            run = _BODY_RUNS[sub.graph] = BodyRun(sub)
        runs.append(run)
    return Bodies(tuple(s.port_map for s in subs), tuple(runs))




#: A value and the bound on its rounding error (None: no bound known).
Bounded = tuple[np.ndarray, "np.ndarray | None"]


#: The layers ``BoundedInterpreter.run_node`` takes its own steps for (an input's value, an output, the state), not
#: their kernel and rule.
OWN_STEPS = ("Parameter", "Result", *STATE_TYPES)


class BoundedInterpreter(Walker[Bounded]):
    """Runs a Graph with numpy like Interpreter, each value paired with the rounding bound propagated to it:
    ``evaluate`` gives (value, bound) per output name (``order``: see Walker). Not ``bounded``: the inputs come with
    no bound (None), so only what is computed from constants alone has one, and no other rule runs. ``beside``: a
    large sum of products has its rule run in a thread beside its kernel (``_run_bounded``); not where another walk
    keeps the other core busy (compare's per-layer walk beside this one), which the extra thread only contends with."""

    def __init__(self, graph: Graph, order: list[Layer] | None = None, bounded: bool = True, beside: bool = True):
        super().__init__(graph, free=True, order=order)
        self.bounded = bounded
        self.rules_beside = beside
        self.inputs: Mapping[str, np.ndarray] = {}
        self.outputs: dict[str, Bounded] = {}
        self.output_names = output_names(graph)  # (a Result's id -> its output's name)
        self.variables: Variables[Bounded] = Variables()
        self.beside: ThreadPoolExecutor | None = None  # where a rule runs beside its kernel (``_run_bounded``)
        refuse_unsupported(self.order)

    def evaluate(self, inputs: Mapping[str, np.ndarray]) -> dict[str, Bounded]:
        self.inputs, self.outputs = inputs, {}
        with self.variables.inference(), \
                (ThreadPoolExecutor(max_workers=1) if self.rules_beside else nullcontext()) as self.beside:
            try:
                self.run()
            finally:
                self.beside = None
        return self.outputs

    def reset_state(self) -> None:
        self.variables.reset()

    def run_node(self, layer: Layer, args: list[Bounded]) -> list[Bounded]:
        if layer.is_a("Parameter"):
            value = input_value(self.graph, layer, self.inputs)
            return [(value, taken_in(value) if self.bounded else None)]
        if layer.is_a("Result"):
            value, bound = args[0]
            self.outputs[self.output_names[layer.id]] = (untagged(value), bound)
            return []
        if layer.is_a("ReadValue"):
            return [self.variables.read(layer, lambda: self._run_bounded(layer, args)[0])]
        if layer.is_a("Assign"):
            self.variables.write(layer, args[0])
        return self._run_bounded(layer, args)

    def _run_bounded(self, layer: Layer, args: list[Bounded]) -> list[Bounded]:
        """The layer's outputs and their bounds. A large sum of products (a MatMul's, a Convolution's) has its rule run
        in the ``beside`` thread while its kernel runs here: both are mostly BLAS products of the same size, and the
        rule reads the outputs last (``ops.rounding.accumulation``), which it waits for."""
        values, bounds = [v for v, _ in args], [b for _, b in args]
        if any(b is None for b in bounds):  # (no bound in, none out: ``rounding_bounds``) the kernel alone
            return [(value, None) for value in execute(self.graph, layer, values)]
        spec = lookup(layer.type, layer.version)
        rule = getattr(spec.rounding, "statistical", spec.rounding) if spec is not None else None
        if self.beside is None or not getattr(rule, "outputs_last", False) or \
                max((np.size(v) for v in values), default=0) < BESIDE_ELEMENTS:
            outputs = execute(self.graph, layer, values)
            return list(zip(outputs, rounding_bounds(self.graph, layer, values, bounds, outputs, statistical=True),
                            strict=True))
        made: Future[list[np.ndarray]] = Future()
        ruled = self.beside.submit(rounding_bounds, self.graph, layer, values, bounds, _Awaited(made), True)
        try:
            outputs = execute(self.graph, layer, values)
        except BaseException as exc:
            made.set_exception(exc)
            wait([ruled])
            raise
        made.set_result(outputs)
        return list(zip(outputs, ruled.result(), strict=True))


#: The fewest elements of a layer's largest input for its rule to run beside its kernel (a thread's hand-off costs
#: some 0.1 ms).
BESIDE_ELEMENTS = 1 << 15


class _Awaited(Sequence[np.ndarray]):
    """A layer's outputs as its kernel makes them in another thread: reading them waits for them."""

    def __init__(self, made: Future[list[np.ndarray]]):
        self._made = made

    def __getitem__(self, index):  # type: ignore[override]
        return self._made.result()[index]

    def __len__(self) -> int:
        return len(self._made.result())


def rounding_bounds(graph: Graph, layer: Layer, args: list[np.ndarray], bounds: list[np.ndarray | None],
                    outputs: list[np.ndarray], statistical: bool = False, shared: bool = False
                    ) -> list[np.ndarray | None]:
    """Per output, the rounding error an f32 implementation may have running ``layer`` on ``args``, whose own
    errors are within ``bounds``; None where no bound is known. ``statistical``: the rule's variant for errors
    propagated through a whole model (see ops.rounding.accumulation), where it has one; ``shared``: also what errors
    shared by the terms of a sum add to it, where the rule says (``shared``: MatMul's), as where two models' weights
    differ (``against.carried``)."""
    spec = lookup(layer.type, layer.version)
    if spec is not None and spec.type == "Const":
        return [taken_in(outputs[0])]
    if spec is None or spec.rounding is None or spec.kernel is None or any(b is None for b in bounds):
        return [None for _ in outputs]
    attrs = bind(graph, layer) if spec.bodies else A.decode(spec.attrs, layer.attrs, layer.loc)
    rule = getattr(spec.rounding, "statistical", spec.rounding) if statistical else spec.rounding
    with np.errstate(all="ignore"):  # an infinite bound met by a zero weight: NaN, read as no bound at all
        found = rule(spec.kernel, attrs, args, bounds, outputs)  # type: ignore[arg-type]
        more = getattr(spec.rounding, "shared", None) if shared else None
        extra = more(attrs, args, bounds) if more is not None else None
        if extra is not None and _broadcasts_to(extra, np.shape(outputs[0])):
            found = [np.add(found[0], extra), *found[1:]]
    return [_nan_as_inf(b) for b in found]


def _broadcasts_to(bound: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether ``bound`` is one of an output of ``shape`` (a rule's shared part, of operands broadcast otherwise than
    the output, is left out rather than misplaced)."""
    try:
        return np.broadcast_shapes(np.shape(bound), shape) == shape
    except ValueError:
        return False


def _nan_as_inf(bound: np.ndarray) -> np.ndarray:
    """``bound`` with NaN read as inf (no bound), looked for once (its maximum is NaN where an element is: no mask of
    a decompressed weight's 16M elements); copied only where there is one."""
    if np.size(bound) == 0 or not np.isnan(np.max(bound)):
        return bound
    return np.where(np.isnan(bound), np.inf, bound)


def run(graph: Graph | str | Path, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run a valid ``graph`` (or the IR file at a path) with the numpy reference kernels; outputs keyed by output name.

    The graph is validated first (InvalidModelError carries every diagnostic ``check`` gives), then the inputs, as
    ``ir-tools run`` validates them (``inputs.check_inputs``: E-INPUT, floats taken in the input's type).
    """
    graph = graph_of(graph)
    require_valid(graph)
    return Interpreter(graph).evaluate(check_inputs(graph, inputs))


def body_inputs(graph: Graph, layer: Layer, args: list[np.ndarray],
                ) -> list[tuple[Subgraph, list[dict[int, np.ndarray]]]]:
    """What a TensorIterator's, Loop's or If's kernel, run on ``args``, fed each of its bodies: per body, the values of
    its Parameters (by position) iteration by iteration (an If's body not taken: none)."""
    spec = lookup(layer.type, layer.version)
    runs = [BodyRun(sub, recording=True) for sub in subgraphs(graph, layer)]
    spec.kernel(Bodies(tuple(run.sub.port_map for run in runs), tuple(runs)), args)
    return [(run.sub, run.fed) for run in runs]


class BodyRun:
    """One body run as ``ops.control_flow.RunBody``: by an Interpreter, or a BoundedInterpreter on (value, bound)
    pairs, whose Parameters are fed by position and whose Results are read by position; ``recording``, what each run
    was fed is kept (``fed``)."""

    def __init__(self, sub: Subgraph, recording: bool = False):
        self.sub = sub
        self.walkers: dict[bool, _PlainBody | _BoundedBody] = {}
        self.fed: list[dict[int, object]] = []
        self.recording = recording

    def run(self, params: dict[int, object], bounded: bool) -> list[object]:
        if self.recording:
            self.fed.append(dict(params))
        walker = self.walkers.get(bounded)
        if walker is None:
            walker = self.walkers[bounded] = (_BoundedBody if bounded else _PlainBody)(self.sub.graph)
        walker.fed = {self.sub.parameters[i].id: v for i, v in params.items()}
        walker.got = {}
        walker.run()
        return [walker.got[r.id] for r in self.sub.results]

    def iteration_value(self, k: int) -> np.ndarray:
        layer = self.sub.parameters[self.sub.port_map.current_iteration]
        et = element_type(layer.attrs.get("element_type", ""))
        shape = layer.attrs.get("shape", "").strip()
        if et is None or et.numpy is None or et.name not in ("i32", "i64") or shape not in ("", "1"):
            raise UnsupportedError(f"the current-iteration Parameter '{layer.name}' must be an i32 or i64 scalar or "
                                   f"[1], is {layer.attrs.get('element_type')}[{shape}]", layer.loc)
        return np.full((1,) if shape else (), k, et.numpy)


class _Fed:
    """A body's walk: its Parameters fed by layer id (``fed``), what reaches its Results kept by layer id (``got``)."""

    fed: dict[str, object]
    got: dict[str, object]

    def run_node(self, layer: Layer, args: list) -> list:
        if layer.is_a("Parameter"):
            if layer.id not in self.fed:
                # (OpenVINO reads a port map that leaves one unfed, a Loop's counter whose purpose is not spelled
                # exactly "current_iteration" say, and its CPU plugin runs it on values of its own)
                raise UnsupportedError(f"body Parameter '{layer.name}', which no port of its layer feeds",
                                       layer.loc)
            fed = self.fed[layer.id]  # (in the type the Parameter declares: its layer's kernel gave f32 values)
            if isinstance(fed, tuple):  # a bounded body's (value, bound)
                return [(as_held(layer, [fed[0]])[0], fed[1])]
            return as_held(layer, [fed])
        if layer.is_a("Result"):
            self.got[layer.id] = args[0]
            return []
        return super().run_node(layer, args)  # type: ignore[misc]


class _PlainBody(_Fed, Interpreter):
    pass


class _BoundedBody(_Fed, BoundedInterpreter):
    pass


_BODY_RUNS: weakref.WeakKeyDictionary[Graph, BodyRun] = weakref.WeakKeyDictionary()
