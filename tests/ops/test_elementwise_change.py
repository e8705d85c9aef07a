"""Element-wise rounding rules bound what an input error can do: for seeded x and input bounds b from 2^-20 to 4
(times 1 + |x|), every output over [x - b, x + b], sampled at 129 points with the kernel in float64, is within the
rule's bound of the reference output; for two-input ops, over both intervals (a grid of 17 by 17). The ends of the
intervals alone miss the turning points of Swish, Mish and HSwish, the periods of Sin and Cos and the jumps of
FloorMod and Mod (before: 37x, 9x, 795x, 5,000x and 16x below the sampled change), the turning point of Gelu's tanh
approximation (12x), the wraps of a conversion to an integer type (u8: 8% below) and the 0 of one to boolean, and the
equality inside the intervals of Equal and NotEqual (both bounds 0 where the output can change by 1). No OpenVINO."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from ir_tools.ops.core import NoAttrs
from ir_tools.ops.opsets import lookup

SEED = 20261126
POINTS = np.linspace(-1.0, 1.0, 129)

#: One-input ops whose rule takes the kernel over the input's interval (Log and Sqrt on positive inputs).
UNARY = ["Sin", "Cos", "Mish", "HSwish", "Swish", "Sigmoid", "Tanh", "Exp", "Erf", "SoftPlus", "SoftSign", "HSigmoid",
         "Abs", "Floor", "Ceiling", "Negative", "Sign", "Log", "Sqrt", "Gelu", "Elu", "Relu"]


def _spec(name: str):
    return next(spec for version in ("opset9", "opset7", "opset5", "opset4", "opset1")
                if (spec := lookup(name, version)) is not None)


def _cases(rng: np.random.Generator, positive: bool) -> tuple[np.ndarray, np.ndarray]:
    x = (rng.standard_normal(1000) * rng.choice([0.5, 2.0, 6.0], 1000)).astype(np.float32)
    b = np.exp2(rng.uniform(-20, 2, 1000)) * (1.0 + np.abs(x))
    if positive:
        x = np.abs(x) + np.float32(0.5)
        b = np.minimum(b, 0.4)
    return x, b


def _assert_within(spec, attrs, args: list[np.ndarray], bounds: list[np.ndarray]) -> None:
    x, b = args[0], bounds[0]
    y = spec.kernel(attrs, args)[0]
    with np.errstate(all="ignore"):
        bound = np.broadcast_to(spec.rounding(spec.kernel, attrs, args, bounds, [y])[0], x.shape)
        sampled = x.astype(np.float64)[:, None] + b[:, None] * POINTS
        moved = spec.kernel(attrs, [sampled, *[np.asarray(v, np.float64) for v in args[1:]]])[0]
        change = np.nanmax(np.abs(moved - y.astype(np.float64)[:, None]), axis=1)
        # (a change computed in float64 may be an ulp of the values it subtracts above the exact one: ReLU's b)
        computed = 2.0**-52 * np.nanmax(np.maximum(np.abs(moved), np.abs(y.astype(np.float64))[:, None]), axis=1)
    over = np.flatnonzero(change > bound + computed)
    assert not over.size, (f"{spec.label}: x {x[over[:3]]}, b {b[over[:3]]}: the output moves by {change[over[:3]]}, "
                           f"bound {bound[over[:3]]}")


@pytest.mark.parametrize("name", UNARY)
def test_an_input_error_moves_the_output_within_the_bound(name: str) -> None:
    spec = _spec(name)
    rng = np.random.default_rng([SEED, UNARY.index(name)])
    x, b = _cases(rng, positive=name in ("Log", "Sqrt"))
    attrs = spec.attrs(alpha=0.7) if name == "Elu" else spec.attrs()
    _assert_within(spec, attrs, [x], [b])


@pytest.mark.parametrize("name,attrs", [("Round", {"mode": "half_to_even"}), ("Round", {"mode": "half_away_from_zero"}),
                                        ("Clamp", {"min": -1.0, "max": 2.0}), ("Gelu", {"approximation_mode": "tanh"}),
                                        ("Gelu", {"approximation_mode": "erf"})])
def test_ops_with_attributes_move_within_the_bound(name: str, attrs: dict) -> None:
    spec = next(s for version in ("opset7", "opset5", "opset1") if (s := lookup(name, version)) is not None)
    x, b = _cases(np.random.default_rng([SEED, 400, len(name), len(str(attrs))]), positive=False)
    _assert_within(spec, spec.attrs(**attrs), [x], [b])


def test_hard_sigmoid_moves_within_the_bound() -> None:
    spec = _spec("HardSigmoid")
    x, b = _cases(np.random.default_rng([SEED, 500]), positive=False)
    _assert_within(spec, spec.attrs(), [x, np.float32(0.2), np.float32(0.5)], [b, np.zeros(()), np.zeros(())])


@pytest.mark.parametrize("destination", ["u8", "i8", "u16", "i16", "i32", "u32", "boolean"])
def test_a_conversion_moves_within_the_bound_across_wraps_and_zero(destination: str) -> None:
    """Intervals up to 4 times 1 + |x| around values up to 6,000: many cross a wrap of the 8- and 16-bit types, and
    those of boolean conversions hold 0 (sampled at 0 too)."""
    spec = _spec("Convert")
    rng = np.random.default_rng([SEED, 600, len(destination)])
    x, b = _cases(rng, positive=False)
    x = (x * rng.choice([1.0, 40.0, 1000.0], x.size)).astype(np.float32)
    attrs = spec.attrs(destination_type=destination)
    y = spec.kernel(attrs, [x])[0]
    with np.errstate(all="ignore"):
        bound = np.broadcast_to(spec.rounding(spec.kernel, attrs, [x], [b], [y])[0], x.shape)
        sampled = np.concatenate([x.astype(np.float64)[:, None] + b[:, None] * POINTS,
                                  np.where(np.abs(x) <= b, 0.0, x)[:, None]], axis=1)
        moved = spec.kernel(attrs, [sampled])[0].astype(np.float64)
        change = np.max(np.abs(moved - y.astype(np.float64)[:, None]), axis=1)
    over = np.flatnonzero(change > bound)
    assert not over.size, f"x {x[over[:3]]} +- {b[over[:3]]}: moved by {change[over[:3]]}, bound {bound[over[:3]]}"


@pytest.mark.parametrize("beta", [0.5, 2.0, -1.5, 0.0])
def test_swish_of_any_beta_moves_within_the_bound(beta: float) -> None:
    spec = _spec("Swish")
    x, b = _cases(np.random.default_rng([SEED, 100, int(abs(beta) * 10)]), positive=False)
    _assert_within(spec, NoAttrs(), [x, np.float32(beta)], [b, np.zeros(())])


@pytest.mark.parametrize("beta,spread", [(1.0, 0.3), (-2.0, 0.5), (0.2, 0.3)])
def test_swish_with_an_inexact_beta_moves_within_the_bound(beta: float, spread: float) -> None:
    """Beta within ``spread`` too: outputs sampled over both intervals (9 betas), the bound infinite where beta's
    interval holds 0 and x's the far turning point."""
    spec = _spec("Swish")
    x, b = _cases(np.random.default_rng([SEED, 200, int(spread * 10)]), positive=False)
    args = [x, np.float32(beta)]
    y = spec.kernel(NoAttrs(), args)[0].astype(np.float64)
    with np.errstate(all="ignore"):
        bound = spec.rounding(spec.kernel, NoAttrs(), args, [b, np.full((), spread)], [y.astype(np.float32)])[0]
        change = np.zeros(x.shape)
        for c in np.linspace(beta - spread, beta + spread, 9):
            moved = spec.kernel(NoAttrs(), [x.astype(np.float64)[:, None] + b[:, None] * POINTS, np.float64(c)])[0]
            change = np.fmax(change, np.nanmax(np.abs(moved - y[:, None]), axis=1))
    assert np.all(change <= bound)


BINARY = ["Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "SquaredDifference", "Power", "PRelu",
          "FloorMod", "Mod", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"]


@pytest.mark.parametrize("name", BINARY)
def test_input_errors_move_a_binary_output_within_the_bound(name: str) -> None:
    """Divisors kept at least 0.5 from 0 and within 0.4 of their size; Power's base positive, its exponent in
    [-3, 3]."""
    spec = _spec(name)
    rng = np.random.default_rng([SEED, 300 + BINARY.index(name)])
    grid = np.linspace(-1.0, 1.0, 17)
    for scale in (2.0**-20, 2.0**-8, 2.0**-2, 1.0):
        x, y = ((rng.standard_normal(500) * rng.choice([0.5, 2.0, 6.0], 500)).astype(np.float32) for _ in range(2))
        bx, by = (scale * (1.0 + np.abs(v)) * rng.random(500) for v in (x, y))
        if name in ("Divide", "FloorMod", "Mod"):
            y = (y + np.float32(0.5) * np.sign(y)).astype(np.float32)
            by = np.minimum(by, 0.4 * np.abs(y))
        if name == "Power":
            x, y, bx = (np.abs(x) + np.float32(0.5)).astype(np.float32), np.clip(y, -3, 3), np.minimum(bx, 0.4)
        attrs = spec.attrs()
        out = spec.kernel(attrs, [x, y])[0]
        with np.errstate(all="ignore"):
            bound = np.broadcast_to(spec.rounding(spec.kernel, attrs, [x, y], [bx, by], [out])[0], x.shape)
            tx = x.astype(np.float64)[:, None, None] + bx[:, None, None] * grid[:, None]
            ty = y.astype(np.float64)[:, None, None] + by[:, None, None] * grid[None, :]
            tx, ty = (v.reshape(500, -1) for v in np.broadcast_arrays(tx, ty))
            common = np.clip(x.astype(np.float64), y - by, y + by)  # held by both intervals, where they meet
            meets = np.abs(common - x) <= bx
            tx = np.concatenate([tx, np.where(meets, common, tx[:, 0])[:, None]], axis=1)
            ty = np.concatenate([ty, np.where(meets, common, ty[:, 0])[:, None]], axis=1)
            moved = spec.kernel(attrs, [tx, ty])[0]
            change = np.nanmax(np.abs(moved - out.astype(np.float64)[:, None]), axis=1)
        over = np.flatnonzero(change > bound)
        assert not over.size, f"x {x[over[:3]]} +- {bx[over[:3]]}, y {y[over[:3]]} +- {by[over[:3]]}: moved by " \
                              f"{change[over[:3]]}, bound {bound[over[:3]]}"


def test_select_with_a_condition_that_may_flip_moves_within_the_bound() -> None:
    """A condition with a bound (a comparison of inexact values that may flip) may pick the other input."""
    spec = _spec("Select")
    rng = np.random.default_rng([SEED, 700])
    cond = rng.random(1000) < 0.5
    then, other = ((rng.standard_normal(1000) * 4).astype(np.float32) for _ in range(2))
    bounds = [np.where(rng.random(1000) < 0.5, 1.0, 0.0), rng.random(1000) * 0.1, rng.random(1000) * 0.1]
    y = spec.kernel(spec.attrs(), [cond, then, other])[0].astype(np.float64)
    bound = spec.rounding(spec.kernel, spec.attrs(), [cond, then, other], bounds, [y.astype(np.float32)])[0]
    change = np.zeros(1000)
    for flip, t, e in product((False, True), (-1.0, 1.0), (-1.0, 1.0)):
        picked = np.where(cond ^ (flip & (bounds[0] > 0)), then + t * bounds[1], other + e * bounds[2])
        change = np.maximum(change, np.abs(picked - y))
    slack = 2.0**-48 * (np.abs(then) + np.abs(other) + 1.0)  # (float64's own roundings of the two sides)
    assert np.all(change <= bound + slack)


def test_fake_quantize_with_inexact_data_and_ranges_moves_within_the_bound() -> None:
    """Data and any of the four ranges inexact (bounds 2^-20 to 2 of their size), levels 2 to 256, inverted input
    ranges too: 300 perturbations each (ends and uniform) of 400 cases. Before, inexact ranges were ignored (changes
    up to 6.8 million times the bound)."""
    spec = _spec("FakeQuantize")
    rng = np.random.default_rng([SEED, 800])
    for _ in range(400):
        attrs = spec.attrs(levels=int(rng.choice([2, 3, 16, 255, 256])))
        x = (rng.standard_normal(8) * 2).astype(np.float32)
        low, high = np.float32(rng.uniform(-3, 0)), np.float32(rng.uniform(0.1, 3))
        if rng.random() < 0.2:
            low, high = high, low
        args = [x, *(np.asarray(v, np.float32) for v in (low, high, rng.uniform(-5, 0), rng.uniform(0, 5)))]
        scale, inexact = 2.0 ** rng.uniform(-20, 1), rng.random(5) < 0.5
        bounds = [np.full(8, scale * inexact[0]), *(np.asarray(scale * abs(float(v)) * rng.random() * w)
                                                    for v, w in zip(args[1:], inexact[1:], strict=True))]
        y = spec.kernel(attrs, args)[0].astype(np.float64)
        bound = spec.rounding(spec.kernel, attrs, args, bounds, [y.astype(np.float32)])[0]
        steps = [np.where(rng.random((300, np.size(v))) < 0.5, rng.choice([-1.0, 1.0], (300, np.size(v))),
                          rng.uniform(-1, 1, (300, np.size(v)))) for v in args]  # 300 draws of each input at once
        moved = [v.astype(np.float64) + b * step for v, b, step in zip(args, bounds, steps, strict=True)]
        change = np.max(np.abs(spec.kernel(attrs, moved)[0] - y), axis=0)
        assert np.all(change <= bound), (attrs, args, bounds, change, bound)
