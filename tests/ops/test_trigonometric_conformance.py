"""Tan, Sinh, Cosh, Asin, Acos, Atan (opset1) and Asinh, Acosh, Atanh (opset4) (ops/activations.py) against OpenVINO:
shape rules, CPU kernels and rounding rules.

Kernels: 360 seeded cases (f32 and f16 data of rank 0 to 3, each op's values: near 0 and subnormal, moderate, large,
near Tan's poles, Sinh's and Cosh's overflow, the domain's edges +-1 and 1 and beyond them, and the special values
NaN, +-inf, +-0) batched 60 to a model and compiled once per model for OpenVINO CPU; then 18 cases of 6,000 to
16,000 values each (every op, f32 and f16, the same regions and the f32 values closest around the hard places), one
model. All within the rounding rule's bound on exact inputs (4 f32 ulps of |y| and both sides' output rounding; the
CPU was measured within 1.5, ops/activations.py), NaN where OpenVINO gives NaN, infinities and the signs of zeros as
OpenVINO's. Integer data: the kernels refuse it (CPU and OpenVINO's evaluator disagree, shown). Rounding rules: inputs
moved anywhere in their intervals (the ends, random points, Cosh's minimum 0, Tan's poles, the domain's edges) stay
within the rule's bound; Tan's intervals passing a pole by far less than float64's rounding have none, and those
stopping just short of one reach Tan's value at their end (poles in exact rational arithmetic). Shape rules: 200
seeded nodes on Parameters (partial shapes, every kind of element type, dynamic) give OpenVINO's output or both
refuse. ``check_versions``: the opsets that read each. One model through ``ir-tools compare``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset4 as ops4
import pytest

from ir_tools.base.errors import UnsupportedError
from ir_tools.ops.core import NoAttrs
from ir_tools.ops.opsets import lookup
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import (
    ELEMENTS,
    Case,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    check_versions,
    evaluate,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    random_bounds,
    rule_limits,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 4242
CASES_PER_MODEL = 60

#: op -> (its opset, OpenVINO's builder)
OPS: dict[str, tuple[str, Callable[[ov.Node], ov.Node]]] = {
    "Tan": ("opset1", ops1.tan), "Sinh": ("opset1", ops1.sinh), "Cosh": ("opset1", ops1.cosh),
    "Asin": ("opset1", ops1.asin), "Acos": ("opset1", ops1.acos), "Atan": ("opset1", ops1.atan),
    "Asinh": ("opset4", ops4.asinh), "Acosh": ("opset4", ops4.acosh), "Atanh": ("opset4", ops4.atanh),
}
#: Inputs every op meets: NaN, infinities, zeros, subnormals (f32's and f16's), the domain edges +-1 and beyond.
SPECIALS = (math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 1e-45, -1e-40, 1.1754942e-38, 6e-8, -3e-5, 2.0,
            -2.0, 0.5, 1e30)


def _signs(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.choice([-1.0, 1.0], n)


def _regions(rng: np.random.Generator, op: str, n: int, f16: bool) -> list[np.ndarray]:
    """``n`` values of each of the op's own regions (float64, before the cast)."""
    top = 4.8 if f16 else 38.5  # (f16's largest is 65504)
    common = [_signs(rng, n) * 10.0 ** rng.uniform(-30, -2, n), rng.uniform(-4, 4, n),
              _signs(rng, n) * 10.0 ** rng.uniform(0, top, n)]
    if op == "Tan":  # near its poles pi/2 + k pi
        k = rng.integers(-20000 if f16 else -10**6, 20000 if f16 else 10**6, n)
        return [*common, math.pi / 2 + k * math.pi + rng.standard_normal(n) * 1e-3,
                math.pi / 2 + rng.integers(-3, 3, n) * math.pi + rng.standard_normal(n) * 1e-6]
    if op in ("Sinh", "Cosh"):  # up to and beyond overflow: 89.41599 in f32, 11.78 in f16
        return [*common, _signs(rng, n) * (rng.uniform(10.5, 12.0, n) if f16 else rng.uniform(85.0, 89.6, n))]
    if op in ("Asin", "Acos", "Atanh"):  # inside (-1, 1), near its edges, beyond them
        return [*common, rng.uniform(-1, 1, n), _signs(rng, n) * (1 - 10.0 ** -rng.uniform(0, 8, n)),
                _signs(rng, n) * (1 + 10.0 ** -rng.uniform(-1, 7, n))]
    if op == "Acosh":  # near 1 and below it
        return [*common, 1 + 10.0 ** -rng.uniform(0, 8, n), rng.uniform(0.5, 1.0, n), rng.uniform(1, 100, n)]
    return common


def trig_values(rng: np.random.Generator, op: str, size: int, dtype: type, specials: bool = True) -> np.ndarray:
    """``size`` values drawn from the op's regions (``_regions``), a few special values (``SPECIALS``) among them."""
    pool = np.concatenate(_regions(rng, op, max(size, 1), dtype == np.float16))
    x = rng.choice(pool, size)
    if specials and size:
        at = rng.random(size) < 0.1
        x[at] = rng.choice(SPECIALS, int(at.sum()))
    with np.errstate(over="ignore"):
        return x.astype(dtype)


def trig_case(op: str, x: np.ndarray) -> Case:
    spec = lookup(op, OPS[op][0])
    return Case(f"{op} {x.dtype}{list(x.shape)} {x.ravel()[:4]}", [x], lambda ps, op=op: OPS[op][1](ps[0]),
                limits=rule_limits(spec, {}, [x]), signed_zeros=True)


def trigonometric_cases(rng: np.random.Generator, n: int, specials: bool = True) -> list[Case]:
    """``n`` cases, the ops and f32 / f16 in turn, of a shape of rank 0 to 3 (up to 9 per dim)."""
    cases = []
    for i in range(n):
        op, dtype = list(OPS)[i % len(OPS)], (np.float32, np.float16)[(i // len(OPS)) % 2]
        shape = [int(d) for d in rng.integers(1, 10, int(rng.integers(0, 4)))]
        cases.append(trig_case(op, trig_values(rng, op, math.prod(shape), dtype, specials).reshape(shape)))
    return cases


@pytest.mark.parametrize("part", range(6))
def test_values_within_the_rule(part: int, tmp_path: Path) -> None:
    assert_all_pass(trigonometric_cases(np.random.default_rng([SEED, part]), CASES_PER_MODEL), tmp_path)


def test_dense_regions(tmp_path: Path) -> None:
    """Every op at f32 and f16 on thousands of values of its regions, and the f32 values packed closest around its
    hard places: every one within 1e-4 of pi/2 (Tan), one in 16 of [89.3, 89.42] (Sinh, Cosh: overflow at 89.41599),
    every one within 2^-12 of +-1 (Asin, Acos, Atanh) and above 1 (Acosh); with their negatives."""
    rng = np.random.default_rng([SEED, 100])
    dense = {"Tan": (1.5707, 1.5709, 1), "Sinh": (89.3, 89.42, 16), "Cosh": (89.3, 89.42, 16),
             "Asin": (1 - 2**-12, 1.0001, 1), "Acos": (1 - 2**-12, 1.0001, 1), "Atanh": (1 - 2**-12, 1.0001, 1),
             "Acosh": (1.0, 1 + 2**-12, 1), "Atan": (1.0, 1.0001, 1), "Asinh": (0.1, 0.10001, 1)}
    cases = []
    for op, (lo, hi, step) in dense.items():
        ends = np.array([lo, hi], np.float32).view(np.int32)
        close = np.arange(*ends, step, dtype=np.int32).view(np.float32)
        x = np.concatenate([close, -close, trig_values(rng, op, 6000, np.float32)])
        cases += [trig_case(op, x), trig_case(op, trig_values(rng, op, 6000, np.float16))]
    assert_all_pass(cases, tmp_path)


def test_integers_are_refused() -> None:
    """CPU computes integer data in f32 and rounds to nearest, OpenVINO's evaluator truncates (Asin(1): 2 against 1):
    the kernels refuse it (UnsupportedError), as the module's other transcendental ops."""
    x = np.array([-1, 0, 1], np.int32)
    for op, (opset, _) in OPS.items():
        with pytest.raises(UnsupportedError, match="disagree on integers"):
            lookup(op, opset).kernel(NoAttrs(), [x])
    p = ops1.parameter([3], np.int32)
    cpu = ov.Core().compile_model(ov.Model([ops1.asin(p)], [p]), "CPU", CPU_CONFIG)({0: x})[0]
    assert cpu.tolist() == [-2, 0, 2] and evaluate(ops1.asin(ops1.constant(x)))[0].tolist() == [-1, 0, 1]


def _moved_values(rng: np.random.Generator, op: str) -> tuple[np.ndarray, np.ndarray]:
    """f32 inputs of ``op``'s regions whose result is finite (specials aside) and bounds from 0 to 64 ulps, some far
    wider (across Cosh's minimum or a pole of Tan), some reaching just to a domain edge or a little beyond."""
    x = trig_values(rng, op, 4000, np.float32, specials=False)
    with np.errstate(all="ignore"):
        x = x[np.isfinite(lookup(op, OPS[op][0]).kernel(NoAttrs(), [x])[0])]
    ulps = np.spacing(np.abs(x)).astype(np.float64)
    b = rng.integers(0, 65, x.size) * ulps
    wide = rng.random(x.size) < 0.1
    b[wide] = np.abs(x[wide]).astype(np.float64) * 10.0 ** rng.uniform(-6, 0.5, int(wide.sum()))
    if op in ("Asin", "Acos", "Atanh", "Acosh"):  # to the edge exactly, and a little beyond
        edge = np.where(x < 0, -1.0, 1.0)
        at = (rng.random(x.size) < 0.1) & (np.abs(edge - x) < 1e-3)
        b[at] = np.abs(edge[at] - x[at]) * rng.choice([1.0, 1.0 + 1e-9], int(at.sum()))
    return x, b


def _anywhere(op: str, x: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Points of [x - b, x + b] (float64): random ones, the ends, and the op's own hard points there: Cosh's minimum 0,
    Tan's poles (just either side), the domain edges +-1."""
    points = [x + t * b for t in (-1.0, 1.0, *rng.uniform(-1, 1, 6))]
    lo, hi = x - b, x + b
    if op == "Cosh":
        points.append(np.clip(0.0, lo, hi))
    if op == "Tan":
        pole = math.pi / 2 + np.floor((hi - math.pi / 2) / math.pi) * math.pi
        points += [np.clip(pole + s, lo, hi) for s in (-1e-12, 1e-12)]
    if op in ("Asin", "Acos", "Atanh", "Acosh"):
        points += [np.clip(e, lo, hi) for e in (-1.0, 1.0)]
    return np.stack(points)


@pytest.mark.parametrize("op", OPS)
def test_the_bound_carries_moved_inputs(op: str) -> None:
    """``assert_bounds_carry_moves`` (each input moved to an end of its interval), then every input moved to points
    anywhere in it (``_anywhere``): the exact result moves by no more than the rule's bound for those input bounds
    (which is infinite where an interval holds a pole or reaches beyond the domain)."""
    rng = np.random.default_rng([SEED, 7, list(OPS).index(op)])
    spec = lookup(op, OPS[op][0])
    x, b = _moved_values(rng, op)
    w = x.astype(np.float64)
    inside = w - b >= 1.0 if op == "Acosh" else np.abs(w) + b <= 1.0 if op in ("Asin", "Acos", "Atanh") else \
        np.ones(x.shape, bool)
    assert_bounds_carry_moves(spec, {}, [x[inside]], [b[inside]], rng, op)  # (its moved values must be numbers)
    y = spec.kernel(NoAttrs(), [w])[0]
    limit = spec.rounding(spec.kernel, NoAttrs(), [x], [b], [y.astype(np.float32)])[0]
    crossed = 0  # moves beyond the domain, across a pole of Tan or Cosh's minimum
    for point in _anywhere(op, w, b, rng):
        moved = spec.kernel(NoAttrs(), [point])[0]
        with np.errstate(invalid="ignore"):
            within = np.abs(moved - y) <= limit + 1e-12 * (np.abs(y) + np.abs(moved))
        assert np.all(within | (np.isnan(moved) & np.isinf(limit))), op  # (beyond the domain: no bound)
        crossed += _crossings(op, w, point, moved)
    assert crossed > 0 or op in ("Sinh", "Atan", "Asinh")


def _crossings(op: str, x: np.ndarray, moved_x: np.ndarray, moved: np.ndarray) -> int:
    """How many inputs moved across a pole of Tan, across Cosh's minimum 0, or beyond the domain (a NaN result)."""
    if op == "Tan":
        branch = [np.floor((v - math.pi / 2) / math.pi) for v in (x, moved_x)]
        return int(np.count_nonzero(branch[0] != branch[1]))
    if op == "Cosh":
        return int(np.count_nonzero(np.sign(moved_x) * np.sign(x) < 0))
    return int(np.count_nonzero(np.isnan(moved)))


def test_tan_bound_at_poles_and_far() -> None:
    """Tan's rule: an interval holding a pole, or within 2^-46 |x| of one, or at |x| past 2^47, has no bound; one
    between poles has a finite bound, however near the pole its end is (every f32 near pi/2, 2 ulps wide)."""
    spec = lookup("Tan", "opset1")
    below = np.array([1.5707962, 1.5707963], np.float32)  # below pi/2 = 1.57079632679...
    x = np.concatenate([below, np.float32([1.5707964, 1e15, -3e38, 1.0])])
    b = np.array([1e-7, 1e-8, 1e-7, 1e-3, 1.0, 0.5])
    limit = spec.rounding(spec.kernel, NoAttrs(), [x], [b], [spec.kernel(NoAttrs(), [x])[0]])[0]
    assert np.isfinite(limit[[1, 5]]).all() and np.isinf(limit[[0, 2, 3, 4]]).all(), limit


#: pi to 63 decimals, as a fraction: the poles of Tan at f32 arguments up to 1e9 to some 1e-50.
_PI = Fraction(Decimal("3.141592653589793238462643383279502884197169399375105820974944592"))


def test_tan_bound_where_an_end_just_passes_a_pole() -> None:
    """Intervals of f32 x (|x| from 4 to 1e9) whose end passes the nearest pole of Tan (found in exact rational
    arithmetic) by 2^-60 |x|, far below float64's rounding of x + b and of the pole's index: no bound for any (without
    the rule's margin, one in ten was given a finite one)."""
    rng = np.random.default_rng([SEED, 8])
    x = (rng.choice([-1.0, 1.0], 2000) * 10.0 ** rng.uniform(0.6, 9, 2000)).astype(np.float32)
    b = np.empty(x.size)
    for i, v in enumerate(x.tolist()):
        pole = _PI / 2 + round((Fraction(v) - _PI / 2) / _PI) * _PI
        b[i] = float(abs(pole - Fraction(v))) + abs(v) * 2.0**-60
    spec = lookup("Tan", "opset1")
    limit = spec.rounding(spec.kernel, NoAttrs(), [x], [b], [spec.kernel(NoAttrs(), [x])[0]])[0]
    assert np.isinf(limit).all(), x[np.isfinite(limit)][:5]


def test_tan_bound_where_an_end_nears_a_pole() -> None:
    """Intervals of f32 x (|x| from 1e6 to 1e9) whose end stops short of the nearest pole of Tan by e, 2^-44 |x| to
    four times that (just beyond the rule's margin; exact rational arithmetic): Tan there is +-cot(e), at least 1/e -
    e in magnitude, and the bound must reach it though float64 rounds the end x + b by up to 2^-53 |x| (the rule
    rounds the ends outward)."""
    rng = np.random.default_rng([SEED, 9])
    x = (rng.choice([-1.0, 1.0], 2000) * 10.0 ** rng.uniform(6, 9, 2000)).astype(np.float32)
    b, reach = np.empty(x.size), np.empty(x.size)
    for i, v in enumerate(x.tolist()):
        d = abs(_PI / 2 + round((Fraction(v) - _PI / 2) / _PI) * _PI - Fraction(v))  # (at most pi / 2)
        b[i] = float(d - Fraction(abs(v) * 2.0**-44 * rng.uniform(1, 4)))
        e = d - Fraction(b[i])  # (exactly)
        reach[i] = float(1 / e - e)
    spec = lookup("Tan", "opset1")
    y = spec.kernel(NoAttrs(), [x])[0]
    limit = spec.rounding(spec.kernel, NoAttrs(), [x], [b], [y])[0]
    assert np.all(limit >= reach - np.abs(y)), x[~(limit >= reach - np.abs(y))][:5]


def test_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 1])
    cases = []
    for i in range(200):
        op = list(OPS)[i % len(OPS)]
        lengths = [int(n) for n in rng.integers(0, 6, int(rng.integers(0, 5)))]
        shape = None if rng.random() < 0.1 else random_bounds(rng, lengths)
        element = pick(rng, ["f32", "f16", "bf16", "f64", "i32", "i64", "u8", "boolean", None])

        def theirs(op=op, shape=shape, element=element):
            return openvino_outcome(lambda: OPS[op][1](ops1.parameter(partial_shape(shape), ELEMENTS[element])))

        def ours(op=op, shape=shape, element=element):
            return our_outcome(op, OPS[op][0], {}, tensor_types([element], [shape]), [None])

        cases.append((f"{op} {element} {show(shape)}", theirs, ours))
    assert_shapes_agree(cases)


def test_opsets(tmp_path: Path) -> None:
    p = ops1.parameter([2, 3], np.float32)
    assert check_versions({op: build(p) for op, (_, build) in OPS.items()}, [p], tmp_path) == []


def test_compare_checks_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A MatMul feeding every op (Asin, Acos and Atanh through a Tanh, Acosh through Cosh + 1), compared end to end and
    per layer: nothing left unchecked. Small weights keep the Tanh within (-0.7, 0.7) and Tan away from its poles."""
    rng = np.random.default_rng(3)
    x = ops1.parameter([4, 16], np.float32, name="x")
    h = ops1.matmul(x, ops1.constant((rng.standard_normal((16, 8)) * 0.1).astype(np.float32)), False, False)
    t = ops1.tanh(h)
    ys = [ops1.tan(h), ops1.sinh(h), ops1.atan(h), ops4.asinh(h), ops1.asin(t), ops1.acos(t), ops4.atanh(t),
          ops4.acosh(ops1.add(ops1.cosh(h), ops1.constant(np.float32(1))))]
    xml = tmp_path / "trigonometric.xml"
    ov.save_model(ov.Model([ops1.result(y) for y in ys], [x], "trigonometric"), xml)
    assert_compare_passes(xml, capsys, {f"{op}@{opset}" for op, (opset, _) in OPS.items()}, outputs=len(ys))
