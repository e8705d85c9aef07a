"""TensorIterator-0, Loop-5 and If-8: ops that run a body (a graph of their own) once, or once an iteration.

An op here knows its bodies only through what the caller binds (``Bodies``, the attrs its rule, kernel and rounding
rule are given): the port maps, read by ``ir.bodies``, and one object per body that re-infers it (``ShapeBody``, bound
by ``passes/shapes.py`` on its shape walk) or runs it (``RunBody``, bound by ``runtime/executor.py`` on its
interpreter). So this module stays below the graph, as every op does, and the body is walked by the one shape walk and
the one executor there are. ``OpSpec.bodies`` names the layer children that hold them; the ``<data>`` attributes of
these ops are none.

Shape rules (OpenVINO's: src/core/src/op/tensor_iterator.cpp, loop.cpp, if.cpp; checked by
tests/ops/test_control_flow_conformance.py):

1. A body Parameter takes the shape of what feeds it (its element type stays the one it declares): a merged or
   invariant input's shape; a sliced one's with ``part_size`` at ``axis`` (where its rank is known). A Parameter
   nothing feeds keeps its declared type.
2. TensorIterator's iteration count: ``(|end - start| + 1) / part_size`` of a sliced input whose dim at ``axis`` is
   static (start and end negative from the dim's end); without a sliced input, ``|end - start| / part_size`` of its
   first concatenated output. A concatenated output is the body value's shape with ``count * part_size`` (the
   output's) at ``axis`` (a scalar as ``[1]``; an unknown count: that dim dynamic); a last-iteration output is the
   body value's type (measured on 2026.4.1: the 2021 sources made more of it dynamic).
3. Loop's iteration count is known where its trip count is and the body's condition is constant true (a constant,
   or a Parameter fed by a constant): the trip count; a constant false condition: 1. A concatenated output multiplies
   its axis dim by that count (else the dim is dynamic; a scalar is ``[1]``); a constant false execution condition
   makes it ``[0]`` and the first dim of a static last-iteration output 0. A merged input's dims of 0 are dynamic in
   its Parameter (a state that starts empty). Then, while the Result of a last-iteration output that a back edge
   feeds to a Parameter of static rank does not lie within it (another rank, or a dim whose interval is not within
   the Parameter's), the Parameter's dims that do not are made dynamic (or its rank) and the body is inferred again,
   at most as many rounds as the iteration count where it is known; the output is the Result's type then ([0, 4]
   grown by a [1, 4] row each iteration: [1.., 4]). Measured on 2026.4.1 (loop.cpp of 2025 relaxes what is not
   compatible, and keeps no 0 dims): 1,440 seeded growing states, tests/ops/test_control_flow_conformance.py.
4. If with a constant condition: the outputs of the body it selects, the only body re-inferred with the layer's
   inputs; the other keeps its Parameters' declared types (OpenVINO 2026.4 validates the selected body alone: a
   dynamic model made static by ``Model.reshape`` and saved kept the other's dims dynamic, DeBERTa's). Otherwise
   each output merges the two bodies'
   values: one element type (E-OP if they differ); equal ranks give each dim the two's if equal, their range if both
   are static and differ, else dynamic; ranks of at most 1 that differ give a dynamic 1-D shape, any other
   difference a dynamic rank.
A body holding a layer with no rule of ours makes the rule answer None (OpenVINO's inference is adopted), as does a
Loop whose body condition a Parameter takes from an input OpenVINO may know the value of and we cannot compute.

Kernels (OpenVINO's reference, src/core/reference/src/op/tensor_iterator.cpp, loop.cpp, if.cpp): the body is run
once an iteration; a sliced input gives the iteration its ``part_size`` slice (from the end backward where ``stride``
is negative), a merged one its initial value and then what its back edge's Result gave, an invariant one the same
value each time; Loop runs while the trip count (negative: no limit) and the body's condition allow, and feeds
``current_iteration`` the iteration's number unless a back edge feeds it; concatenated outputs join the iterations'
values along ``axis`` (backward for a negative stride), the others give the last iteration's. If runs the body its
condition selects. Rounding: each iteration's values carry the bounds the body's own layers give (the body's bounded
run), iterated; a condition or trip count that may differ leaves no bound.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..base.dims import DYNAMIC, Dim, Shape
from ..base.errors import OpValidationError, UnsupportedError
from .intervals import dynamic
from .rounding import any_differs, may_differ
from .spec import OpSpec, TensorType

#: The layer children holding each op's bodies and their port maps, in the order ``Bodies`` holds them.
BODY_TAGS: dict[str, tuple[tuple[str, str], ...]] = {
    "TensorIterator": (("body", "port_map"),),
    "Loop": (("body", "port_map"),),
    "If": (("then_body", "then_port_map"), ("else_body", "else_port_map")),
}
#: A value the caller cannot compute and OpenVINO may know: given for an input beyond ``value_inputs``, which the caller
#: reads when the rule asks (Loop's rule asks for the input feeding its body's condition Parameter).
UNKNOWN_TO_US = object()
#: More iterations than this a Loop with no trip count is refused (the reference would run on; OpenVINO too).
MAX_ITERATIONS = 1 << 16


@dataclass(frozen=True)
class Slicing:
    """Parts along ``axis`` (a port map's slicing attributes): from ``start`` to ``end`` (negative: from the axis's end)
    in steps of ``stride``, ``part_size`` long each."""

    axis: int
    start: int
    stride: int
    part_size: int
    end: int


@dataclass(frozen=True)
class SliceIn(Slicing):
    """A layer input sliced along ``axis``, one part an iteration, into body Parameter ``param``."""

    input: int
    param: int


@dataclass(frozen=True)
class MergedIn:
    """A layer input feeding ``param`` at the first iteration; body Result ``result`` feeds it after."""

    input: int
    param: int
    result: int


@dataclass(frozen=True)
class InvariantIn:
    """A layer input feeding ``param`` at every iteration."""

    input: int
    param: int


@dataclass(frozen=True)
class ConcatOut(Slicing):
    """A layer output joining body Result ``result`` of every iteration along ``axis``."""

    output: int
    result: int


@dataclass(frozen=True)
class IterOut:
    """A layer output giving body Result ``result`` of the last iteration."""

    output: int
    result: int


@dataclass(frozen=True)
class PortMap:
    """How a layer's inputs and outputs (by position) map onto one body's Parameters and Results (by position);
    Loop's special ports: the Parameter fed the iteration's number and the Result holding the body's condition."""

    inputs: tuple[SliceIn | MergedIn | InvariantIn, ...]
    outputs: tuple[ConcatOut | IterOut, ...]
    current_iteration: int | None = None
    condition: int | None = None


@dataclass(frozen=True)
class BodyValue:
    """What a body's re-inference says of one Result: its type, its value where constant, and the Parameter (by
    position) feeding it directly, if one does."""

    type: TensorType
    value: np.ndarray | None
    parameter: int | None


class ShapeBody(Protocol):
    def infer(self, shapes: dict[int, Shape]) -> list[BodyValue] | None:
        """The body's Results after re-inferring it with Parameters ``shapes`` (by position; the others as declared);
        None where a layer of the body has no rule of ours."""


class RunBody(Protocol):
    def run(self, params: dict[int, Any], bounded: bool) -> list[Any]:
        """The body's Results (by position) run on Parameter values (by position): arrays, or with ``bounded``
        (value, bound) pairs."""

    def iteration_value(self, k: int) -> np.ndarray:
        """Iteration ``k``'s number as the current-iteration Parameter declares it (i32 or i64, scalar or [1])."""


class BodySources(Protocol):
    def source(self, result: int) -> tuple[np.ndarray | None, int | None]:
        """What feeds body Result ``result`` (by position): its value where a Const does (else None), and the
        Parameter (by position) feeding it directly, if one does."""


@dataclass(frozen=True, eq=False)
class Bodies:
    """The attrs of TensorIterator, Loop and If: their port maps and bodies, bound by whoever walks the layer."""

    maps: tuple[PortMap, ...]
    bodies: tuple[Any, ...]  # ShapeBody, RunBody, or (``OpSpec.cpu_refuses``) BodySources
    bounded: bool = False  # the RunBodies run on (value, bound) pairs


@dataclass(frozen=True, slots=True)
class NoAttrs:
    """No ``<data>`` attributes."""


# -- shape rules -------------------------------------------------------------------------------------------


def _norm_axis(axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1):
        raise OpValidationError(f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def _static(shape: Shape) -> bool:
    return shape is not None and all(d.is_static for d in shape)


def _param_shapes(pm: PortMap, inputs: Sequence[TensorType]) -> dict[int, Shape]:
    """Rule 1."""
    shapes: dict[int, Shape] = {}
    for d in pm.inputs:
        shape = inputs[d.input].shape
        if isinstance(d, SliceIn) and shape is not None:
            axis = _norm_axis(d.axis, len(shape))
            shapes[d.param] = (*shape[:axis], Dim.of(d.part_size), *shape[axis + 1:])
        else:
            shapes[d.param] = shape
    return shapes


def _concat_shape(value: TensorType, d: ConcatOut, count: int | None) -> Shape:
    """Rule 2 (TensorIterator)."""
    shape = value.shape
    if shape is None:
        return None
    if not shape:
        if d.axis != 0:
            raise OpValidationError(f"a concatenated output of scalars needs axis 0, got {d.axis}")
        shape = (Dim.of(1),)
    axis = _norm_axis(d.axis, len(shape))
    return (*shape[:axis], Dim(0, None) if count is None else Dim.of(count * d.part_size), *shape[axis + 1:])


def _outputs(pm: PortMap, n: int, make: Callable[[ConcatOut | IterOut], TensorType]) -> list[TensorType]:
    found: dict[int, TensorType] = {}
    for d in pm.outputs:
        found[d.output] = make(d)
    if sorted(found) != list(range(n)):
        raise OpValidationError(f"the port map describes outputs {sorted(found)}, the layer has {n}")
    return [found[i] for i in range(n)]


def _infer_tensor_iterator(a: Bodies, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    """Rules 1 and 2."""
    pm, body = a.maps[0], a.bodies[0]
    _check_inputs(pm, len(inputs), 0)
    count = None
    for d in pm.inputs:
        shape = inputs[d.input].shape
        dim = None if shape is None or not isinstance(d, SliceIn) else shape[_norm_axis(d.axis, len(shape))]
        if dim is not None and dim.is_static:
            count = _slice_count(d, dim.lo)
    if count is None and not any(isinstance(d, SliceIn) for d in pm.inputs):
        count = _unsliced_count(pm)
    results = body.infer(_param_shapes(pm, inputs))
    if results is None:
        return None
    n = len(pm.outputs)

    def make(d: ConcatOut | IterOut) -> TensorType:
        value = results[d.result].type
        return TensorType(value.element, _concat_shape(value, d, count)) if isinstance(d, ConcatOut) else value

    return _outputs(pm, n, make)


def _check_inputs(pm: PortMap, n_inputs: int, first: int) -> None:
    """Each input the port map describes is the layer's, described once, and none before ``first`` (If's condition
    is no body's input)."""
    described = sorted(d.input for d in pm.inputs)
    if any(i < first or i >= n_inputs for i in described) or len(set(described)) != len(described):
        raise OpValidationError(f"the port map describes inputs {described} of the layer's {n_inputs}")


def _scalar(value: np.ndarray | None) -> Any:
    """The one element of a constant of one element; None if not known."""
    if value is None:
        return None
    flat = np.asarray(value).reshape(-1)
    if flat.size != 1:
        raise OpValidationError(f"a condition or trip count must hold one value, holds {flat.size}")
    return flat[0].item()


def _infer_loop(a: Bodies, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    """Rules 1 and 3."""
    pm, body = a.maps[0], a.bodies[0]
    _check_inputs(pm, len(inputs), 0)
    for what, i in (("trip count", 0), ("execution condition", 1)):
        shape = inputs[i].shape
        if shape is not None and len(shape) > 1:
            raise OpValidationError(f"the {what} must be of rank 0 or 1, is of rank {len(shape)}")
    execute = _scalar(values[1])
    zero = execute is not None and not execute
    shapes = _param_shapes(pm, inputs)
    for d in pm.inputs:  # (a state that starts empty, as a list grown by a Concat each iteration)
        held = shapes[d.param] if isinstance(d, MergedIn) else None
        if held is not None:
            shapes[d.param] = tuple(DYNAMIC if dim == _EMPTY else dim for dim in held)
    results = body.infer(shapes)
    if results is None:
        return None
    count = None
    if pm.condition is not None:
        cond = results[pm.condition]
        always = _scalar(cond.value)
        if always is None and cond.parameter is not None:
            feeding = next((d for d in pm.inputs if d.param == cond.parameter), None)
            given = None if feeding is None else values[feeding.input]
            if given is UNKNOWN_TO_US:
                return None  # OpenVINO may know that input's value: we cannot match it
            always = _scalar(given)
        trip = _scalar(values[0])
        if always is False:
            count = 1
        elif always is True and trip is not None:
            count = trip
    results = _relaxed(pm, body, shapes, results, count)
    if results is None:
        return None
    out: dict[int, TensorType] = {}
    for d in pm.outputs:
        value = results[d.result].type
        shape = value.shape
        if isinstance(d, ConcatOut):
            if zero:
                shape = (Dim.of(0),)
            elif shape is not None:
                shape = shape or (Dim.of(1),)
                axis = _norm_axis(d.axis, len(shape))
                dim = shape[axis]
                new = Dim.of(dim.lo * count) if dim.is_static and count is not None and count >= 0 else Dim(0, None)
                shape = (*shape[:axis], new, *shape[axis + 1:])
        elif zero and _static(shape) and shape:
            shape = (Dim.of(0), *shape[1:])
        out[d.output] = TensorType(value.element, shape)
    return _outputs(pm, len(pm.outputs), lambda d: out[d.output])


_EMPTY = Dim.of(0)


def _within(a: Dim, b: Dim) -> bool:
    """Whether dim ``a``'s interval lies within ``b``'s."""
    return b.lo <= a.lo and (b.hi is None or a.hi is not None and a.hi <= b.hi)


def _relaxed(pm: PortMap, body: ShapeBody, shapes: dict[int, Shape], results: list[BodyValue], count: int | None
             ) -> list[BodyValue] | None:
    """Rule 3's back edges: the body's Results once the Parameters they feed back hold them (each round makes a dim
    of a Parameter dynamic, or its rank, and infers the body again; at most ``count`` rounds where it is known)."""
    back = {d.result: d.param for d in pm.inputs if isinstance(d, MergedIn)}
    for _ in itertools.count() if count is None or count < 0 else range(count):
        changed = False
        for d in pm.outputs:
            param = back.get(d.result)
            held = None if param is None or isinstance(d, ConcatOut) else shapes.get(param)
            if held is None:
                continue
            value = results[d.result].type.shape
            if value is None or len(value) != len(held):
                shapes[param], changed = None, True
            elif not all(map(_within, value, held)):
                shapes[param] = tuple(h if _within(v, h) else DYNAMIC for v, h in zip(value, held, strict=True))
                changed = True
        if not changed:
            return results
        found = body.infer(shapes)
        if found is None:
            return None
        results = found
    return results


def _merge(then: TensorType, other: TensorType) -> TensorType:
    """Rule 4, a non-constant condition."""
    if then.element is not None and other.element is not None and then.element != other.element:
        raise OpValidationError(f"the then body gives {then.element}, the else body {other.element}")
    element = then.element if then.element is not None else other.element
    a, b = then.shape, other.shape
    if a is None or b is None:
        return TensorType(element, None)
    if len(a) != len(b):
        return TensorType(element, dynamic(1) if len(a) <= 1 and len(b) <= 1 else None)
    dims = []
    for x, y in zip(a, b, strict=True):
        if not x.is_static or not y.is_static:
            dims.append(Dim(0, None))
        else:
            dims.append(x if x == y else Dim(min(x.lo, y.lo), max(x.lo, y.lo)))
    return TensorType(element, tuple(dims))


def _infer_if(a: Bodies, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    """Rule 4."""
    shape = inputs[0].shape
    if shape is not None and len(shape) > 1:
        raise OpValidationError(f"the condition must be of rank 0 or 1, is of rank {len(shape)}")
    cond = _scalar(values[0])
    answers = []
    for selected, pm, body in zip((cond is None or bool(cond), cond is None or not cond), a.maps, a.bodies,
                                  strict=True):
        _check_inputs(pm, len(inputs), 1)
        results = body.infer(_param_shapes(pm, inputs) if selected else {})
        if results is None:
            return None
        answers.append({d.output: results[d.result].type for d in pm.outputs})
    n = max((max(x, default=-1) for x in answers), default=-1) + 1
    if cond is not None:
        chosen = answers[0 if cond else 1]
        if sorted(chosen) != list(range(len(chosen))):
            raise OpValidationError(f"the selected body describes outputs {sorted(chosen)}")
        return [chosen[i] for i in range(len(chosen))]
    for name, found in zip(("then", "else"), answers, strict=True):
        if sorted(found) != list(range(n)):
            raise OpValidationError(f"the {name} body describes outputs {sorted(found)}, the layer has {n}")
    return [_merge(answers[0][i], answers[1][i]) for i in range(n)]


# -- kernels ---------------------------------------------------------------------------------------------


def _value(item: Any, bounded: bool) -> np.ndarray:
    return item[0] if bounded else item


def _take(item: Any, axis: int, lo: int, hi: int, bounded: bool) -> Any:
    """Elements [lo, hi) of ``item`` along ``axis`` (a bound, broadcastable to its value, taken alike)."""
    if not bounded:
        return np.take(item, range(lo, hi), axis=axis)
    value, bound = item
    part = np.take(value, range(lo, hi), axis=axis)
    return part, (None if bound is None else np.take(np.broadcast_to(bound, value.shape), range(lo, hi), axis=axis))


def _join(items: list[Any], axis: int, bounded: bool) -> Any:
    """``items`` concatenated along ``axis`` (scalars as [1])."""
    if not bounded:
        return np.concatenate([np.reshape(v, (1,)) if np.ndim(v) == 0 else v for v in items], axis=axis)
    values = [np.reshape(v, (1,)) if np.ndim(v) == 0 else v for v, _ in items]
    if any(b is None for _, b in items):
        return np.concatenate(values, axis=axis), None
    bounds = [np.broadcast_to(b, v.shape) for v, (_, b) in zip(values, items, strict=True)]
    return np.concatenate(values, axis=axis), np.concatenate(bounds, axis=axis)


def _slices(d: SliceIn, item: Any, bounded: bool) -> list[Any]:
    """The parts of a sliced input, one an iteration, in iteration order: the whole axis in parts of ``part_size``
    (from its end backward where ``stride`` is negative), as OpenVINO's reference splits it; other slicings (a part
    of the axis, a stride other than the part) are refused, not guessed."""
    value = _value(item, bounded)
    axis = _norm_axis(d.axis, value.ndim)
    dim = value.shape[axis]
    start, end = (d.start + dim if d.start < 0 else d.start), (d.end + dim if d.end < 0 else d.end)
    whole = (start, end) == ((0, dim - 1) if d.stride > 0 else (dim - 1, 0))
    if not whole or abs(d.stride) != d.part_size or d.part_size < 1 or dim % d.part_size:
        raise UnsupportedError(f"slicing other than the whole axis in parts of |stride| (axis {d.axis} of {dim}: "
                               f"start {d.start}, end {d.end}, stride {d.stride}, part_size {d.part_size})")
    parts = [_take(item, axis, lo, lo + d.part_size, bounded) for lo in range(0, dim, d.part_size)]
    return parts if d.stride > 0 else parts[::-1]


def _iterate(pm: PortMap, body: RunBody, args: Sequence[Any], bounded: bool, loop: bool, trip: int | None) -> list[Any]:
    """The iterations of a TensorIterator (``loop`` False, ``trip`` its count) or a Loop (``trip``: its trip count,
    None for no limit), as OpenVINO's reference runs them; the layer's outputs."""
    params: dict[int, Any] = {}
    sliced = {d.param: _slices(d, args[d.input], bounded) for d in pm.inputs if isinstance(d, SliceIn)}
    for d in pm.inputs:
        if not isinstance(d, SliceIn):
            params[d.param] = args[d.input]
    back = [(d.param, d.result) for d in pm.inputs if isinstance(d, MergedIn)]
    counting = loop and pm.current_iteration is not None and pm.current_iteration not in params
    if counting:
        params[pm.current_iteration] = _exact(body.iteration_value(0), bounded)
    counting = counting and all(p != pm.current_iteration for p, _ in back)
    joined: dict[int, list[Any]] = {d.result: [] for d in pm.outputs if isinstance(d, ConcatOut)}
    results: list[Any] = []
    steered = False  # a body condition that may differ: the iterations, and so every output, may differ
    k = 0
    while trip is None or k < trip:
        if k >= MAX_ITERATIONS:
            raise UnsupportedError(f"the Loop ran {MAX_ITERATIONS} iterations without its condition ending it")
        for param, parts in sliced.items():
            if k < len(parts):  # (past its parts, a Loop's sliced input keeps the last, as the reference does)
                params[param] = parts[k]
        results = body.run(dict(params), bounded)
        for r, kept in joined.items():
            kept.append(results[r])
        k += 1
        if loop and pm.condition is not None:
            steered = steered or bounded and bool(may_differ(*results[pm.condition]).any())
            if not bool(np.reshape(_value(results[pm.condition], bounded), -1)[0]):
                break
        if counting:
            params[pm.current_iteration] = _exact(body.iteration_value(k), bounded)
        for param, r in back:
            params[param] = results[r]
    if not results:
        raise UnsupportedError("zero iterations (OpenVINO's reference refuses them too)")
    outputs: dict[int, Any] = {}
    for d in pm.outputs:
        if isinstance(d, ConcatOut):
            parts = joined[d.result] if d.stride > 0 else joined[d.result][::-1]
            rank = max(np.ndim(_value(parts[0], bounded)), 1)
            outputs[d.output] = _join(parts, _norm_axis(d.axis, rank), bounded)
        else:
            outputs[d.output] = results[d.result]
    if steered:
        return [(outputs[i][0], np.full((), np.inf)) for i in range(len(outputs))]
    return [outputs[i] for i in range(len(outputs))]


def _exact(value: np.ndarray, bounded: bool) -> Any:
    return (value, np.zeros((), np.float64)) if bounded else value


def _ti_count(pm: PortMap, args: Sequence[Any], bounded: bool) -> int:
    """Rule 2's iteration count, on values."""
    for d in pm.inputs:
        if isinstance(d, SliceIn):
            value = _value(args[d.input], bounded)
            return _slice_count(d, value.shape[_norm_axis(d.axis, value.ndim)])
    count = _unsliced_count(pm)
    if count is None:
        raise UnsupportedError("a TensorIterator without a sliced input or a concatenated output: OpenVINO knows no "
                               "iteration count")
    return count


def _slice_count(d: SliceIn, dim: int) -> int:
    """The iterations of a sliced input whose axis is ``dim`` long (rule 2)."""
    start, end = (d.start + dim if d.start < 0 else d.start), (d.end + dim if d.end < 0 else d.end)
    return (abs(end - start) + 1) // d.part_size


def _unsliced_count(pm: PortMap) -> int | None:
    """A TensorIterator's iteration count without a sliced input: its first concatenated output's (rule 2)."""
    first = next((d for d in pm.outputs if isinstance(d, ConcatOut)), None)
    return None if first is None else abs(first.end - first.start) // first.part_size


def _run(a: Bodies, args: Sequence[Any], op: str) -> list[Any]:
    """The kernel of each op over plain values or (``a.bounded``) (value, bound) pairs."""
    b = a.bounded
    if op == "If":
        chosen = 0 if bool(np.reshape(_value(args[0], b), -1)[0]) else 1
        pm, body = a.maps[chosen], a.bodies[chosen]
        results = body.run({d.param: args[d.input] for d in pm.inputs}, b)
        outputs = {d.output: results[d.result] for d in pm.outputs}
        return [outputs[i] for i in range(len(outputs))]
    pm, body = a.maps[0], a.bodies[0]
    if op == "TensorIterator":
        return _iterate(pm, body, args, b, loop=False, trip=_ti_count(pm, args, b))
    trip = int(np.reshape(_value(args[0], b), -1)[0])
    if trip == 0 or not bool(np.reshape(_value(args[1], b), -1)[0]):
        raise UnsupportedError("zero iterations (OpenVINO's reference refuses them too)")
    return _iterate(pm, body, args, b, loop=True, trip=None if trip < 0 else trip)


def _kernel(op: str) -> Callable[[Bodies, Sequence[np.ndarray]], list[np.ndarray]]:
    return lambda a, args: _run(a, args, op)


def _rounding(op: str) -> Callable:
    """Each iteration's values with the bounds the body's layers give them, iterated (the body's bounded run). An If's
    condition, a Loop's trip count or execution condition, or a body condition that may differ (``may_differ``) may
    run another body or another number of iterations: no bound."""
    choices = {"If": (0,), "Loop": (0, 1)}.get(op, ())

    def rule(kernel: Callable, a: Bodies, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> list[np.ndarray | None]:
        if any_differs(args, bounds, choices):
            return [np.full((), np.inf) for _ in outputs]
        found = _run(Bodies(a.maps, a.bodies, bounded=True), list(zip(args, bounds, strict=True)), op)
        return [b for _, b in found]

    return rule


def _cpu_slicing(a: Bodies, inputs: Sequence[TensorType], values) -> str | None:
    """Slicing of a static axis that OpenVINO's CPU plugin cannot iterate (its TensorIterator node; measured on
    2026.4 by 300 seeded slicings of a sliced input and 60 of a concatenated output, all as this says), which
    OpenVINO's reader and shape inference accept. Of a sliced input's axis and a concatenated output's (rule 2's
    length) n, CPU reads start and end as cuts (a negative one counted from n + 1: -1 is n), and the stretch between
    them (from end to start for a negative stride) must begin at 0 or after, end at n or before, and be a whole
    number of |stride| steps, one or more, as many for every port it slices (part_size is not looked at)."""
    pm = a.maps[0]
    lengths: list[tuple[SliceIn | ConcatOut, int]] = []
    count = None  # rule 2's
    for d in pm.inputs:
        shape = inputs[d.input].shape if isinstance(d, SliceIn) and d.input < len(inputs) else None
        if shape is not None and -len(shape) <= d.axis < len(shape) and shape[d.axis % len(shape)].is_static:
            lengths.append((d, shape[d.axis % len(shape)].lo))
            count = _slice_count(d, lengths[-1][1])
    if count is None and not any(isinstance(d, SliceIn) for d in pm.inputs):
        count = _unsliced_count(pm)
    if count is not None:
        lengths += [(d, count * d.part_size) for d in pm.outputs if isinstance(d, ConcatOut)]
    steps = {}
    for d, n in lengths:
        start, end = (cut + n + 1 if cut < 0 else cut for cut in (d.start, d.end))
        first, last = (end, start) if d.stride < 0 else (start, end)
        step = abs(d.stride)
        port = f"input {d.input}" if isinstance(d, SliceIn) else f"output {d.output}"
        if step == 0 or first < 0 or first >= last or last > n or last - first < step or (last - first) % step:
            return (f"{port} sliced on axis {d.axis} of {n} by start {d.start}, end {d.end}, stride {d.stride}: "
                    f"OpenVINO CPU refuses it (it iterates from {first} to {last} of [0, {n}] in steps of {step}: a "
                    f"stretch within the axis, a whole number of steps, one or more)")
        steps[port] = (last - first) // step
    if len(set(steps.values())) > 1:
        return (f"the ports sliced iterate different numbers of times on OpenVINO CPU ({steps}), which refuses "
                f"that")
    return None


def _cpu_loop(a: Bodies, inputs: Sequence[TensorType], values) -> str | None:
    """What OpenVINO's CPU plugin cannot run of a Loop its reader and shape inference accept (its TensorIterator node;
    measured on 2026.4, 340 seeded Loops as this says): a stride of 0 (it divides by it: the process dies of SIGFPE);
    a concatenated output where its Const execution condition is false (it refuses, "Shape mismatch"), or where its
    Const trip count is 0 and its body condition always true (SIGFPE); and more iterations than a sliced input has
    parts. It reads a part of |stride| (not part_size) at each iteration, from the axis's start (its end for a negative
    stride), whatever start and end say, and refuses to read past the axis: a sliced axis of static length n has
    n // |stride| parts, and a Loop of Const trip count t (-1: no end) and Const true execution condition runs t
    iterations where its body condition is always true, 1 where always false (none for t = 0). The body condition is
    known where a Const feeds it, or a Parameter an input (a Const) feeds unchanged; else nothing is said."""
    pm = a.maps[0]
    sliced = [d for d in pm.inputs if isinstance(d, SliceIn)]
    joined = [d for d in pm.outputs if isinstance(d, ConcatOut)]
    for d in (*sliced, *joined):
        if d.stride == 0:
            port = f"input {d.input}" if isinstance(d, SliceIn) else f"output {d.output}"
            return f"{port} sliced with stride 0: OpenVINO CPU divides by it, and the process dies (SIGFPE)"
    trip, execute = (_known(values[i]) if i < len(values) else None for i in (0, 1))
    always = None
    if pm.condition is not None and a.bodies:
        always, param = a.bodies[0].source(pm.condition)
        if always is None and param is not None:
            feeding = next((d for d in pm.inputs if isinstance(d, InvariantIn) and d.param == param), None)
            always = None if feeding is None or feeding.input >= len(values) else values[feeding.input]
        always = _known(always)
    if joined and execute is False:
        return (f"its execution condition is false, and output {joined[0].output} concatenates its iterations: "
                "OpenVINO CPU refuses to run such a Loop of no iteration")
    if joined and trip == 0 and always is True:
        return (f"its trip count is 0, its body condition always true, and output {joined[0].output} concatenates its "
                "iterations: OpenVINO CPU divides by 0 running it, and the process dies (SIGFPE)")
    count = None if trip is None or execute is not True or always is None else trip if always or not trip else 1
    for d in sliced if count is not None else ():
        shape = inputs[d.input].shape if d.input < len(inputs) else None
        if shape is None or d.axis >= len(shape) or not shape[d.axis].is_static:
            continue
        n = shape[d.axis].lo
        parts = n // abs(d.stride)
        if count < 0 or count > parts:
            runs = "without end" if count < 0 else f"{count} time(s)"
            return (f"input {d.input} sliced on axis {d.axis} of {n} in steps of {abs(d.stride)} has {parts} part(s), "
                    f"and the Loop runs {runs}: OpenVINO CPU refuses to read past the parts (at every inference)")
    return None


def _known(value: np.ndarray | None) -> Any:
    """The one element of a Const of one element, else None."""
    return None if value is None or np.asarray(value).size != 1 else np.asarray(value).reshape(-1)[0].item()


TENSOR_ITERATOR_0 = OpSpec("TensorIterator", "TensorIterator-0", NoAttrs, (0, 1 << 30), -1, _infer_tensor_iterator,
                           _kernel("TensorIterator"), rounding=_rounding("TensorIterator"), bodies=("body",),
                           cpu_refuses=_cpu_slicing)
LOOP_5 = OpSpec("Loop", "Loop-5", NoAttrs, (2, 1 << 30), -1, _infer_loop, _kernel("Loop"), value_inputs=(0, 1),
                rounding=_rounding("Loop"), bodies=("body",), cpu_refuses=_cpu_loop)
IF_8 = OpSpec("If", "If-8", NoAttrs, (1, 1 << 30), -1, _infer_if, _kernel("If"), value_inputs=(0,),
              rounding=_rounding("If"), bodies=("then_body", "else_body"))
