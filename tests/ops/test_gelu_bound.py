"""Gelu's (erf mode) propagated bound (ops.activations._gelu_erf_change) against the true change, without OpenVINO.

The rule bounds |g(x + d) - g(x)| over |d| <= b by Taylor's formula instead of evaluating g at the corners
x +- b (two erf passes). Checked on seeded x from 1e-8 to 1e8 (f32 and f16 outputs), b from 1e-7 |x| to 10 |x|,
and the special points (0, g's minimum, sup g', where y underflows): it must be at least the largest change
over 81 points of the interval, computed with math.erfc (f64 differences of g are good to some 1e-16 of g: the
allowance), and as tight as the corners were where b is a rounding error's size (b <= 1e-4 |x|): the whole bound, with
the op's own term, within 1%.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ir_tools.ops.activations import _gelu_erf, _gelu_erf_change
from ir_tools.ops.rounding import output_rounding

_ERFC = np.vectorize(math.erfc)


def _gelu(x: np.ndarray) -> np.ndarray:
    return x * 0.5 * _ERFC(-x / math.sqrt(2.0))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("scale", [1e-8, 1e-3, 1.0, 3.0, 10.0, 1e3, 1e8])
@pytest.mark.parametrize("relative", [1e-7, 1e-4, 1e-2, 10.0])
def test_gelu_change_bounds_the_true_change(dtype: type, scale: float, relative: float) -> None:
    rng = np.random.default_rng([int(-math.log10(relative)) + 9, int(math.log10(scale)) + 9])
    special = [0.0, -0.7518, math.sqrt(2.0), -8.0, -8.6, -13.0, -40.0, 3e4, -3e4]
    x = np.concatenate([rng.standard_normal(400) * scale, special])
    x = x[np.abs(x) < np.finfo(dtype).max].astype(dtype).astype(np.float64)
    b = np.abs(rng.standard_normal(x.size)) * relative * np.maximum(np.abs(x), 1e-3)
    y = _gelu_erf(x).astype(dtype)
    bound = _gelu_erf_change(x, y, b)
    g = _gelu(x)
    true = np.max([np.abs(_gelu(x + t * b) - g) for t in np.linspace(-1.0, 1.0, 81)], axis=0)
    allowance = 1e-16 * np.maximum(np.abs(g), 1.0) * (1.0 + np.abs(x))
    assert np.all(true <= bound + allowance), x[true > bound + allowance][:5]
    if relative <= 1e-4:
        corners = np.maximum(np.abs(_gelu_erf(x + b) - _gelu_erf(x)), np.abs(_gelu_erf(x - b) - _gelu_erf(x)))
        own = output_rounding(y) + 2.0**-19  # the rule's own term (and 16 f32 ulps at 1) that the change adds to
        assert np.all(own + bound <= 1.01 * (own + corners) + allowance)


def test_gelu_change_is_infinite_at_non_finite_values() -> None:
    x = np.array([np.nan, np.inf, -np.inf, 1.0])
    b = np.array([1e-6, 1e-6, 1e-6, np.inf])
    with np.errstate(invalid="ignore"):  # Gelu(-inf) is NaN
        y = _gelu_erf(x).astype(np.float32)
    assert np.all(np.isinf(_gelu_erf_change(x, y, b)))
