"""SoftMax's rounding rule takes polynomial upper bounds of e^t and e^t - 1 for arguments of at most 2^-10
(``softmax._exp_above``): seeded arguments against the exponential in extended precision, and the rule's bounds
against those it gives with numpy's exp and expm1 throughout (``_SMALL`` set to 0). And an input error never makes
SoftMax's or LogSoftmax's bound smaller than an exact input's."""

from __future__ import annotations

import numpy as np
import pytest

from ir_tools.ops import softmax
from ir_tools.ops.rounding import EXACT
from ir_tools.ops.softmax import LOG_SOFTMAX_5, SOFTMAX_8, Softmax8Attrs, _exp_above

SEED = 20261126


def _arguments(rng: np.random.Generator, largest: float) -> np.ndarray:
    """Magnitudes from 2^-60 to ``largest``, both signs, and zeros."""
    t = np.exp2(rng.uniform(-60, np.log2(largest), 4000)) * rng.choice([-1.0, 1.0], 4000)
    t[rng.random(4000) < 0.05] = 0.0
    return t


@pytest.mark.parametrize("minus_one", [False, True])
def test_small_arguments_get_an_upper_bound_of_the_exponential(minus_one: bool) -> None:
    rng = np.random.default_rng([SEED, minus_one])
    t = _arguments(rng, softmax._SMALL)
    found = _exp_above(t, minus_one).astype(np.longdouble)
    exact = (np.expm1 if minus_one else np.exp)(t.astype(np.longdouble))
    ulp = np.spacing(np.abs(exact).astype(np.float64)).astype(np.longdouble)
    assert np.all(found >= exact - ulp)  # above, but for its own last rounding (exp's is as large)
    assert np.all(found - exact <= 0.51 * t.astype(np.longdouble) ** 2 + 2 * ulp)  # t^2 (1/2 - t/6 - ...) above


@pytest.mark.parametrize("minus_one", [False, True])
def test_other_arguments_get_the_exponential(minus_one: bool) -> None:
    rng = np.random.default_rng([SEED, 2 + minus_one])
    for t in (_arguments(rng, 30.0), np.array([1e-5, np.nan]), np.array([1e-5, np.inf]), np.array([-np.inf])):
        expected = np.expm1(t) if minus_one else np.exp(t)
        assert np.array_equal(_exp_above(t, minus_one), expected, equal_nan=True)


@pytest.mark.parametrize("spec", [SOFTMAX_8, LOG_SOFTMAX_5], ids=["SoftMax", "LogSoftmax"])
def test_bounds_are_those_of_the_exponential_or_a_little_above(spec, monkeypatch) -> None:
    """Per case a [rows, n] input along the last axis, an input bound from 2^-40 to 2^-10 of a row's values (each
    row its own, some all below 2^-26) or up to 2^-4 (then numpy's exponential): the rule's bound is at least its
    bound with numpy's exponential throughout and at most 2^-10 above it."""
    rng = np.random.default_rng([SEED, spec.type == "LogSoftmax"])
    attrs = Softmax8Attrs(axis=-1)
    for _ in range(200):
        rows, n = int(rng.integers(1, 6)), int(rng.integers(1, 300))
        x = (rng.standard_normal((rows, n)) * rng.choice([0.1, 1.0, 10.0])).astype(np.float32)
        largest = rng.choice([2.0**-10, 2.0**-4])
        bound = np.abs(x).astype(np.float64) * np.exp2(rng.uniform(-40, np.log2(largest), (rows, 1)))
        outputs = spec.kernel(attrs, [x])
        found = spec.rounding(spec.kernel, attrs, [x], [bound], outputs)[0]
        with monkeypatch.context() as patch:
            patch.setattr(softmax, "_SMALL", 0.0)
            exact = spec.rounding(spec.kernel, attrs, [x], [bound], outputs)[0]
        assert np.all(found >= exact * (1 - 2.0**-50)) and np.all(found <= exact * (1 + 2.0**-10))


@pytest.mark.parametrize("spec", [SOFTMAX_8, LOG_SOFTMAX_5], ids=["SoftMax", "LogSoftmax"])
def test_an_input_error_never_lowers_the_bound(spec) -> None:
    """300 seeded [4, n] inputs, each element's bound 0 or 2^-30 of it: the outputs' rounding makes sum y_j e^b_j a
    little below 1 in some rows, and the rule's bound is still at least its bound on exact inputs everywhere (before,
    up to a relative 1.7% below it on 38% of the elements)."""
    rng = np.random.default_rng([SEED, 4 + (spec.type == "LogSoftmax")])
    attrs = Softmax8Attrs(axis=-1)
    for _ in range(300):
        x = (rng.standard_normal((4, int(rng.integers(2, 400)))) * rng.choice([0.1, 1.0, 10.0])).astype(np.float32)
        bound = np.abs(x).astype(np.float64) * 2.0**-30
        bound[rng.random(bound.shape) < 0.5] = 0.0
        outputs = spec.kernel(attrs, [x])
        exact = spec.rounding(spec.kernel, attrs, [x], [EXACT], outputs)[0]
        assert np.all(spec.rounding(spec.kernel, attrs, [x], [bound], outputs)[0] >= exact)


@pytest.mark.openvino
def test_an_element_whose_probability_vanished_is_bounded_from_its_input() -> None:
    """Rows with keys masked by f32's lowest value, each bounded by 2 of its ulps (an Add's own rounding of scores
    plus that mask), and a row whose element -120 (probability 0 in f32) has an input error of 130: OpenVINO CPU fed
    x + d, |d| <= b (seeded uniform draws, and every element at +b), lands within the rule's bound of the reference's
    SoftMax and LogSoftmax of x. Before, a masked row's bound was infinite everywhere (0 times e^4e31), and the element
    that may rise to a probability near 1 was bounded by 2^-125."""
    import openvino as ov
    import openvino.opset5 as ops5
    import openvino.opset8 as ops8

    from ir_tools.runtime.openvino import CPU_CONFIG

    rng = np.random.default_rng([SEED, 6])
    lowest = np.finfo(np.float32).min
    x = rng.standard_normal((4, 8)).astype(np.float32)
    x[0, 5:] = x[1, ::2] = x[2, 7] = lowest
    x[3, 2] = -120.0
    b = np.full(x.shape, 1e-3)
    b[x == lowest] = 2.0 * (np.nextafter(lowest, np.float32(0)) - lowest)  # (drawn toward 0: a finite f32)
    b[3, 2] = 130.0
    sign = np.where(x == lowest, 1.0, rng.choice([-1.0, 1.0], (4, *x.shape)))
    draws = np.concatenate([x + sign * rng.uniform(0.0, 1.0, (4, *x.shape)) * b, (x + b)[None]]).astype(np.float32)
    param = ops8.parameter(list(draws.shape), np.float32, name="x")
    model = ov.Model([ops8.softmax(param, -1), ops5.log_softmax(param, -1)], [param], "vanished")
    got = ov.Core().compile_model(model, "CPU", CPU_CONFIG)({"x": draws})
    attrs = Softmax8Attrs(axis=-1)
    for spec, output in zip((SOFTMAX_8, LOG_SOFTMAX_5), got.values(), strict=True):
        want = spec.kernel(attrs, [x])
        bound = spec.rounding(spec.kernel, attrs, [x], [b], want)[0]
        assert np.all(np.isfinite(bound)), (spec.label, bound)
        moved = np.abs(output.astype(np.float64) - want[0].astype(np.float64))
        assert np.all(moved <= bound), (spec.label, np.argwhere(moved > bound)[:4], moved.max(axis=0)[moved.max(
            axis=0) > bound], bound[moved.max(axis=0) > bound])
