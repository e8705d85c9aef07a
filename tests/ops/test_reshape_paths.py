"""Reshape's integer path (``_static_reshape``) against its interval path (``_interval_reshape``, checked against
OpenVINO by test_shaping_conformance.py): wherever the integer path answers, both give the same dims; elsewhere it
leaves the case, refusals included, to the interval path. Seeded, no OpenVINO."""

from __future__ import annotations

import random

from ir_tools.base.dims import DYNAMIC, Dim
from ir_tools.base.errors import OpValidationError
from ir_tools.ops.intervals import INF, Unmatched
from ir_tools.ops.reshape import _interval_reshape, _static_reshape, reshape_dims


def _dim(rng: random.Random) -> Dim:
    kind = rng.random()
    if kind < 0.7:
        n = rng.choice([1, 1, 2, 3, 4, 6, 8, 12, 16]) if rng.random() < 0.95 else rng.choice([0, INF, INF - 1])
        return Dim(n, n)
    if kind < 0.85:
        return DYNAMIC
    lo = rng.randint(0, 6)
    return Dim(lo, rng.choice([None, lo + rng.randint(1, 8), INF]))


def _case(rng: random.Random) -> tuple[tuple[Dim, ...] | None, list[int], bool]:
    shape = None if rng.random() < 0.03 else tuple(_dim(rng) for _ in range(rng.randint(0, 5)))
    rank = len(shape or ())
    if shape is not None and rng.random() < 0.6:  # a pattern made to fit: the input's lengths regrouped
        lengths = [d.lo if d.is_static else 0 for d in shape]
        pattern, i = [], 0
        while i < len(lengths):
            group = rng.randint(1, 2)
            n = 1
            for length in lengths[i:i + group]:
                n *= length
            pattern.append(n)
            i += group
        if pattern and rng.random() < 0.6:
            pattern[rng.randrange(len(pattern))] = -1
    else:
        choices = [-1, -1, 0, 0, 1, 2, 3, 4, 6, 8, 12, 24, -2, INF]
        pattern = [rng.choice(choices) for _ in range(rng.randint(0, rank + 2))]
    if rng.random() < 0.5 and pattern:
        for i in rng.sample(range(len(pattern)), rng.randint(1, len(pattern))):
            if i < rank and rng.random() < 0.5:
                pattern[i] = 0
    return shape, pattern, rng.random() < 0.6


def _interval_answer(shape, pattern, special_zero):
    try:
        return _interval_reshape(shape, pattern, special_zero)
    except (OpValidationError, Unmatched) as exc:
        return type(exc)


def test_the_integer_path_answers_as_the_interval_path() -> None:
    rng = random.Random(20261127)
    answered = 0
    for _ in range(20000):
        shape, pattern, special_zero = _case(rng)
        plain = _static_reshape(shape, pattern, special_zero)
        general = _interval_answer(shape, pattern, special_zero)
        if plain is not None:
            answered += 1
            assert plain == general, (shape, pattern, special_zero)
        assert (reshape_dims(shape, pattern, special_zero) if plain is not None or isinstance(general, tuple)
                else general) == general
    assert answered > 4000  # (the cases a network's reshapes are: the integer path is taken)


def test_the_integer_path_takes_a_network_s_reshapes() -> None:
    static = tuple(Dim(n, n) for n in (384, 8, 16))
    assert _static_reshape(static, [384, 128], False) == (Dim(384, 384), Dim(128, 128))
    copied = (DYNAMIC, DYNAMIC, Dim(128, 128))
    assert _static_reshape(copied, [0, 0, -1, 32], True) == (DYNAMIC, DYNAMIC, Dim(4, 4), Dim(32, 32))
    assert _static_reshape(copied, [-1, 0], True) is None  # a dynamic length multiplied: intervals
