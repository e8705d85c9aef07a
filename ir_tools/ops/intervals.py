"""OpenVINO's interval arithmetic on dimensions (``ov::Interval``, ``ov::Dimension``), for the shape rules.

An interval is ``(lo, hi)`` with ``INF`` (``Interval::s_max``) for an unbounded maximum; ``(INF, INF)`` is
OpenVINO's empty interval, what an inverted ``Interval(min, max)`` becomes. OpenVINO accepts a shape holding
an empty dimension, but a ``Dim`` cannot hold one: ``to_dim`` raises ``Unmatched`` there, and a rule wrapped
in ``guarded`` answers None (not re-inferred, OpenVINO's inference adopted) instead of refusing the node.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ..base.dims import DYNAMIC, INT64_MAX, Dim, Shape

INF = INT64_MAX  # OpenVINO's Interval::s_max: an unbounded maximum
Iv = tuple[int, int]  # (min, max) with max INF for unbounded; (INF, INF) is OpenVINO's empty interval
EMPTY: Iv = (INF, INF)
ONE: Iv = (1, 1)
ZERO: Iv = (0, 0)
ANY: Iv = (0, INF)


class Unmatched(Exception):
    """A case whose OpenVINO answer we cannot represent (an empty dimension): the rule gives None."""


def iv(d: Dim) -> Iv:
    """A Dim as an interval."""
    return (d.lo, INF if d.hi is None else d.hi)


def canon(lo: int, hi: int) -> Iv:
    """Interval(min, max): an inverted interval is empty, the bounds are clipped to [0, INF]."""
    if hi < lo:
        return EMPTY
    return (max(0, min(INF, lo)), max(0, min(INF, hi)))


def to_dim(i: Iv) -> Dim:
    """An interval as a Dim; ``Unmatched`` for the empty interval, which OpenVINO accepts and a Dim cannot hold."""
    if is_empty(i):
        raise Unmatched()
    return Dim(i[0], None if i[1] == INF else i[1])


def size_dim(value: int) -> Dim:
    """OpenVINO's Dimension of an int64 size (an attribute, or a sizes value): -1 is dynamic, another negative value
    0, and the largest int64 its empty interval (``Unmatched``)."""
    return to_dim(ANY if value == -1 else canon(value, value))


def dim_of(lo: int, hi: int) -> Dim:
    """Dimension(min, max) from lengths where -1 means unbounded (and a -1 minimum means 0)."""
    lo_v = 0 if lo == -1 else lo
    hi_v = INF if hi == -1 else hi
    return to_dim(canon(lo_v, hi_v))


def is_empty(i: Iv) -> bool:
    return i[0] == INF


def is_static(i: Iv) -> bool:
    return i[0] == i[1] and not is_empty(i)


def _clip_times(a: int, b: int) -> int:
    if a == 0 or b == 0:
        return 0
    if a == INF or b == INF or a > INF // b:
        return INF
    return a * b


def _clip_add(a: int, b: int) -> int:
    return INF if a == INF or b == INF or a + b > INF else a + b


def _clip_minus(a: int, b: int) -> int:
    return 0 if a <= b else INF if a == INF else a - b


def dmul(a: Iv, b: Iv) -> Iv:
    """Dimension * Dimension: bounds multiplied, saturating at INF; an empty operand gives the empty interval."""
    if b == ONE:
        return a
    if a == ONE:
        return b
    if is_empty(a):
        return a
    if is_empty(b):
        return b
    return canon(_clip_times(a[0], b[0]), _clip_times(a[1], b[1]))


def dadd(a: Iv, b: Iv) -> Iv:
    """Dimension + Dimension: bounds added, saturating at INF; an empty operand gives the empty interval."""
    if b == ZERO:
        return a
    if a == ZERO:
        return b
    if is_empty(a) or is_empty(b):
        return EMPTY
    return canon(_clip_add(a[0], b[0]), _clip_add(a[1], b[1]))


def dsub(a: Iv, b: Iv) -> Iv:
    """Dimension - Dimension: [a.lo - b.hi, a.hi - b.lo], clipped at 0; an empty operand gives the empty interval."""
    if is_empty(a) or is_empty(b):
        return EMPTY
    return canon(_clip_minus(a[0], b[1]), _clip_minus(a[1], b[0]))


def ddiv(a: Iv, n: int) -> Iv:
    """Dimension / n: bounds divided in double precision, the lower one ceiled, the upper floored. A division by
    zero casts an infinite (or NaN) double to int64, INT64_MIN on x86, which the interval clips to 0."""
    if n == 1:
        return a
    if a == ANY:
        return ANY
    if n == 0:
        return ZERO
    return canon(math.ceil(float(a[0]) / n), math.floor(float(a[1]) / n))


def meet(a: Iv, b: Iv) -> Iv:
    """Dimension & Dimension: the intersection (empty when they are not compatible)."""
    return canon(max(a[0], b[0]), min(a[1], b[1]))


def compatible(a: Iv, b: Iv) -> bool:
    return not is_empty(meet(a, b))


def contains(a: Iv, v: int) -> bool:
    return a[0] <= v <= a[1] and not is_empty(a)


def broadcast_merge(a: Iv, b: Iv) -> Iv | None:
    """Dimension::broadcast_merge; None when the dims cannot be broadcast together."""
    a1, b1 = contains(a, 1), contains(b, 1)
    if a1 and b1:
        return canon(min(a[0], b[0]), max(a[1], b[1]))
    if a1:
        return b
    if b1:
        return a
    m = meet(a, b)
    return None if is_empty(m) else m


def dims(shape: Sequence[Iv]) -> tuple[Dim, ...]:
    return tuple(to_dim(i) for i in shape)


def dynamic(rank: int | None) -> Shape:
    """``rank`` dynamic dims, or a dynamic rank for None."""
    return None if rank is None else (DYNAMIC,) * rank


def static_dims(shape: Sequence[int]) -> tuple[Dim, ...]:
    return tuple(Dim(n, n) for n in shape)


def guarded(rule: Callable) -> Callable:
    """A shape rule that answers None where OpenVINO's answer has no representation here (an empty dim)."""

    def infer(a, inputs, values):
        try:
            return rule(a, inputs, values)
        except Unmatched:
            return None

    return infer
