"""OpenVINO's bounds of a value it cannot compute (``evaluate_lower``/``evaluate_upper``, src/core/src/
bound_evaluate.cpp), for the shape walk (passes/shapes.py, rule 5).

A value computed from the dims of a shape that is not static (``ShapeOf`` of ``[?,3,2..10]`` and what follows it)
has no constant, but OpenVINO bounds each of its elements and its shape inference reads those bounds: as a constant
where the bounds are equal (``get_constant_from_source``: ``Gather(ShapeOf(x), 1)`` is 3), and as a partial shape
where a rule reads a shape (``evaluate_as_partial_shape``: a Broadcast to ``Concat(ShapeOf(x)[2], [7])`` is
``[2..10,7]``). ``Bounds`` holds them as int64 arrays, ``INF`` (int64 max) an unbounded upper bound, as OpenVINO's
upper bound of an i64 value is (of an i32 one int32 max, which reads as unbounded alike); an f32 value's (shape
arithmetic through floats, as ONNX exports write it: ``Cast(Shape) -> Div -> Floor -> Cast``) as float32 arrays, the
f32 maximum its unbounded upper bound, as OpenVINO's is.

Measured on 2026.4.1 (through a Broadcast-3's output shape, ``tests/passes/test_value_bounds.py``):

- Movement ops (Gather, Concat, Squeeze, Unsqueeze, Reshape, Split, VariadicSplit, Slice, StridedSlice, Select of an
  exact condition, ReduceMax and ReduceMin, and Convert between i32 and i64) move the bounds as they move values:
  each bound is the op on the inputs' bounds, its other inputs exact (a Gather of indices that are not, a Select of
  such a condition: none at all).
- Add, Subtract and Multiply bound by interval arithmetic (``10 - [2..10]`` is ``[0..8]``, ``[2..10] * -1``
  ``[-10..-2]``), but an element computed from an unbounded one is ``[0..INF]``: ``[4..] + 5`` is ``?``, not
  ``[9..]`` (``arithmetic``). Maximum, Minimum and FloorMod by the corners of the inputs' intervals (``cornered``:
  ``[2..10] % 3`` is ``[1..2]``, not the true ``[0..2]``); Divide, Mod, Abs, Equal and ReduceProd by rules of their
  own (in their modules). ReduceSum, Greater, Less, Floor and Ceiling only where every input is exact (``evaluated``).
- f32 values (measured on 2026.4.1: the tensors' bounds, ``get_lower_value``, on random chains of the ops below, and
  ``tests/passes/test_value_bounds.py``'s ``Convert -> Divide -> Floor -> Convert``): Convert between integers and
  f32 maps an unbounded bound to the other type's (``converted``); Add, Subtract, Multiply, Maximum and Minimum bound
  as of integers, in f32 arithmetic (``[2..10] + 2.5`` is ``[4.5..12.5]``); Divide by a rule of its own (``[2..10] /
  3.0`` is ``[0.6666667..3.3333333]``); Floor and Ceiling only where exact; Gather, Concat, Squeeze, Unsqueeze and
  Reshape move them. Other ops' bounds of f32 values, and of f16 and f64 ones, are not modelled (passes/shapes.py,
  ``OpSpec.float_bounds``).
- Where OpenVINO evaluates no bounds (``NO_BOUNDS``), neither does it of what any op computes from the value: the
  value is unknown to OpenVINO, as a Parameter's data is, and a rule reading it is given None (a Reshape to
  ``Concat([7], Floor(ShapeOf(x)[0]))`` is ``[?,?]``). A rule's None is "not modelled": the reading rule leaves its
  layer to OpenVINO.
- A lower bound below 0 where a rule reads the value as a shape is OpenVINO's error ("Value for partial shape
  evaluation can't be lower than zero"): such a rule answers None, and OpenVINO's verdict says it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .intervals import INF, Iv

#: Where OpenVINO's upper bound of an i32 value is unbounded (its ``ShapeOf`` of ``?`` gives int32 max).
INT32_MAX = np.iinfo(np.int32).max


#: The f32 maximum: OpenVINO's upper bound of an f32 value computed from an unbounded one.
F32_MAX = float(np.finfo(np.float32).max)


def typed(value: Any) -> np.ndarray:
    """A bound as ``Bounds`` holds it: a float one in its own type, an integer or boolean one as int64."""
    array = np.asarray(value)
    return array if array.dtype.kind == "f" else array.astype(np.int64)


@dataclass(frozen=True, eq=False)
class Bounds:
    """The lower and upper bounds of a value, arrays of its shape: int64 ones of an integer or boolean value, ``hi``
    ``INF`` where unbounded; float32 ones of an f32 value, ``hi`` ``F32_MAX`` where unbounded (``dims`` and ``pairs``
    read integer ones)."""

    lo: np.ndarray
    hi: np.ndarray

    @staticmethod
    def of(value: np.ndarray) -> Bounds:
        """A known value as its own bounds."""
        exact = typed(value)
        return Bounds(exact, exact)

    @property
    def unbounded(self) -> np.ndarray:
        """Where the upper bound is unbounded (OpenVINO's: its type's maximum)."""
        return self.hi == (F32_MAX if self.hi.dtype.kind == "f" else INF)

    @property
    def exact(self) -> bool:
        """Whether the bounds are equal: OpenVINO then reads the value as a constant."""
        return bool(np.array_equal(self.lo, self.hi))

    def dims(self) -> list[Iv] | None:
        """The value read as a partial shape (``evaluate_as_partial_shape``), an interval per element; None where a
        lower bound is below 0 (OpenVINO refuses it)."""
        lo, hi = self.lo.reshape(-1).tolist(), self.hi.reshape(-1).tolist()
        if any(v < 0 for v in lo):
            return None
        return [(a, INF if b >= INF else b) for a, b in zip(lo, hi, strict=True)]


class NoBounds:
    """What OpenVINO knows of a value whose bounds it cannot evaluate (its ``evaluate_lower`` fails: Floor of a value
    that is not exact, an op with an input so): nothing, as of a Parameter's data; a rule reading it is given None."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_BOUNDS"


NO_BOUNDS = NoBounds()

#: A bound rule: the decoded attributes and each input's bounds (an input of a known value: ``Bounds.of`` it) ->
#: each output's bounds, ``NO_BOUNDS`` where OpenVINO evaluates none, or None where we do not model what it does.
BoundRule = Callable[[Any, Sequence[Bounds]], list[Bounds] | NoBounds | None]


def moved(kernel: Callable[[Any, Sequence[np.ndarray]], list[np.ndarray]], data: tuple[int, ...] | None = (0,),
          ) -> BoundRule:
    """The bounds of an op that moves its ``data`` inputs' elements (None: every input): ``kernel`` on the lower
    bounds, then on the upper ones, its other inputs exact; else none (``NO_BOUNDS``: OpenVINO's evaluators ask them
    exact, ``has_and_set_bound``, measured on 2026.4.1 for a Gather's indices and a Select's condition). Of f32 values
    the same (measured for Gather, Concat, Squeeze, Unsqueeze and Reshape: ``F32_MAX`` moves as any value)."""

    def rule(attrs: Any, inputs: Sequence[Bounds]) -> list[Bounds] | NoBounds:
        moving = range(len(inputs)) if data is None else data
        if any(i not in moving and not b.exact for i, b in enumerate(inputs)):
            return NO_BOUNDS
        lo, hi = kernel(attrs, [b.lo for b in inputs]), kernel(attrs, [b.hi for b in inputs])
        return [Bounds(typed(a), typed(b)) for a, b in zip(lo, hi, strict=True)]

    return rule


def converted(attrs: Any, inputs: Sequence[Bounds]) -> list[Bounds] | None:
    """Convert's bounds (convert.cpp ``evaluate_bound``), measured on 2026.4.1: each bound converted, one equal to the
    input type's maximum becoming the output type's (unbounded stays unbounded). Between i32 and i64 the same (an i32
    one out of its range: none modelled). To f32 the nearest f32, an unbounded one ``F32_MAX``: our Bounds hold an i32
    value's unbounded bound as int32 max or ``INF`` alike, so int32 max reads as unbounded, and a bound between the
    two is not modelled. From f32 to i32 or i64 truncated toward zero (``[0.67..3.33]`` is ``[0..3]``, -1.5 is -1),
    ``F32_MAX`` unbounded (``INF``); a bound not finite or beyond the destination's range (OpenVINO's cast makes it
    the type's minimum) is not modelled. Of other types, none modelled."""
    (b,) = inputs
    destination = getattr(attrs, "destination_type", None)
    if b.lo.dtype.kind == "f":
        return [b] if destination == "f32" else _from_f32(b, destination)
    if destination == "f32":
        return _to_f32(b)
    finite = b.hi[b.hi < INF]
    if destination not in ("i32", "i64") or destination == "i32" and (
            b.lo.min(initial=0) < np.iinfo(np.int32).min or finite.max(initial=0) > INT32_MAX):
        return None
    return [b]


def _to_f32(b: Bounds) -> list[Bounds] | None:
    """``converted``'s i32 or i64 bounds to f32."""
    ends = []
    for v in (b.lo, b.hi):
        top = v >= INT32_MAX
        if np.any(top & (v != INT32_MAX) & (v < INF)):
            return None
        ends.append(np.where(top, np.float32(F32_MAX), v.astype(np.float32)).astype(np.float32))
    return [Bounds(*ends)]


def _from_f32(b: Bounds, destination: str | None) -> list[Bounds] | None:
    """``converted``'s f32 bounds to i32 or i64."""
    if destination not in ("i32", "i64"):
        return None
    limit = 2.0 ** (31 if destination == "i32" else 63)
    ends = []
    for v in (b.lo, b.hi):
        top = v == np.float32(F32_MAX)
        whole = np.trunc(np.where(top, 0, v).astype(np.float64))
        if not np.all(np.isfinite(whole)) or np.any((whole < -limit) | (whole >= limit)):
            return None
        ends.append(np.where(top, INF, whole.astype(np.int64)))
    return [Bounds(*ends)]


def from_unbounded(lo: np.ndarray, hi: np.ndarray, unbounded: np.ndarray) -> Bounds:
    """Bounds ``lo`` and ``hi``, but ``[0..INF]`` (of floats ``[0..F32_MAX]``) where ``unbounded``: OpenVINO's bound of
    an element computed from an unbounded one (its ``dynamic_mask``s)."""
    lo, hi = typed(lo), typed(hi)
    top = F32_MAX if hi.dtype.kind == "f" else INF
    return Bounds(np.where(unbounded, 0, lo).astype(lo.dtype), np.where(unbounded, top, hi).astype(hi.dtype))


def arithmetic(op: str) -> BoundRule:
    """Add's, Subtract's or Multiply's bounds: interval arithmetic, broadcast as the op broadcasts (numpy), an element
    computed from an unbounded one unbounded from 0; of f32 values the same in f32 (measured on 2026.4.1: ``[2..10] +
    2.5`` is ``[4.5..12.5]``, ``[2..10] * -2.0`` ``[-20..-4]``, ``? * 0.5`` ``[0..F32_MAX]``)."""

    def rule(attrs: Any, inputs: Sequence[Bounds]) -> list[Bounds] | None:
        a, b = inputs
        if getattr(attrs, "auto_broadcast", "numpy") != "numpy":
            return None
        with np.errstate(over="ignore", invalid="ignore"):
            if op == "Add":
                lo, hi = a.lo + b.lo, a.hi + b.hi
            elif op == "Subtract":
                lo, hi = a.lo - b.hi, a.hi - b.lo
            else:
                corners = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
                lo, hi = np.minimum.reduce(corners), np.maximum.reduce(corners)
        return [from_unbounded(lo, hi, a.unbounded | b.unbounded)]

    return rule


def pairs(value: np.ndarray | Bounds, element: str | None) -> list[tuple[int, int]]:
    """A value input read as OpenVINO's ``get_input_bounds`` reads it (Slice's start and stop, Pad's pads): each
    element's (lower, upper) bound, a known value's its own twice; of an i32 value, a bound equal to the i32 minimum
    or maximum stands for the i64 one (``get_value_or_limit_of``: int32 max is unbounded)."""
    b = value if isinstance(value, Bounds) else Bounds.of(value)
    limits = {INT32_MAX: INF, -INT32_MAX - 1: -INF - 1} if element == "i32" or (
        not isinstance(value, Bounds) and np.asarray(value).dtype == np.int32) else {}
    return [(limits.get(lo, lo), limits.get(hi, hi))
            for lo, hi in zip(b.lo.reshape(-1).tolist(), b.hi.reshape(-1).tolist(), strict=True)]


def cornered(kernel: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> BoundRule:
    """The bounds of a binary elementwise op OpenVINO bounds by the corners of its inputs' intervals (its
    ``interval_bound_evaluator``: Maximum, Minimum, FloorMod), measured on 2026.4.1: the least and the greatest of
    ``kernel`` on each pairing of the inputs' bounds, broadcast as the op broadcasts (numpy), so ``[2..10] % 3`` is
    ``[1..2]`` (its corners 2 and 1), not the true ``[0..2]``; an element computed from an unbounded one is ``[0..INF]``
    (``max(?, 3)`` is ``?``, not ``3..``), unless both inputs are exact (the op is then evaluated once); of f32 values
    the same (measured for Maximum and Minimum: ``max([1.0..5.0], 3.0)`` is ``[3..5]``, ``max(?, 3.0)``
    ``[0..F32_MAX]``)."""

    def rule(attrs: Any, inputs: Sequence[Bounds]) -> list[Bounds] | None:
        a, b = inputs
        if getattr(attrs, "auto_broadcast", "numpy") != "numpy":
            return None
        with np.errstate(over="ignore", invalid="ignore"):
            corners = [typed(kernel(x, y)) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
        lo, hi = typed(np.minimum.reduce(corners)), typed(np.maximum.reduce(corners))
        if a.exact and b.exact:
            return [Bounds(lo, hi)]
        return [from_unbounded(lo, hi, a.unbounded | b.unbounded)]

    return rule


def abs_bounds(attrs: Any, inputs: Sequence[Bounds]) -> list[Bounds] | None:
    """Abs's bounds, OpenVINO's own (abs.cpp ``evaluate_bound``), measured on 2026.4.1: the lesser and the greater of
    the bounds' absolute values, so ``|[-3..5]|`` is ``[3..5]`` (not ``[0..5]``) and ``|?|`` stays ``?``."""
    (b,) = inputs
    ends = np.abs(b.lo), np.abs(b.hi)
    return [Bounds(np.minimum(*ends), np.maximum(*ends))]


def ordered(rule: BoundRule) -> BoundRule:
    """``rule``, answering None where a lower bound it finds is above the upper one: OpenVINO's may be so (``Mod([2..9],
    -2)`` is ``[0..-3]``, ``[-6..-5] / [1..2]`` ``[-3..-5]``), and it reads such an element as a dynamic dim and takes
    it on by its corners (``1 - [0..-2]`` is ``[1..3]``), which the rules reading bounds do not model."""

    def checked(attrs: Any, inputs: Sequence[Bounds]) -> list[Bounds] | NoBounds | None:
        found = rule(attrs, inputs)
        return None if isinstance(found, list) and any(np.any(b.lo > b.hi) for b in found) else found

    return checked


def evaluated(kernel: Callable[[Any, Sequence[np.ndarray]], list[np.ndarray]]) -> BoundRule:
    """The bounds of an op OpenVINO bounds by its default bound evaluation alone (ReduceSum, Greater, Less, Floor,
    Ceiling; measured on 2026.4.1): none (``NO_BOUNDS``), not even ``[0..INF]``, unless every input is exact, the op
    then evaluated on them (a boolean output as 0 and 1)."""

    def rule(attrs: Any, inputs: Sequence[Bounds]) -> list[Bounds] | NoBounds:
        if not all(b.exact for b in inputs):
            return NO_BOUNDS
        return [Bounds.of(v) for v in kernel(attrs, [b.lo for b in inputs])]

    return rule
