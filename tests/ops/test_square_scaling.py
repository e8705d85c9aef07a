"""The statistical bound's sums of squares are summed in f32, scaled into its range by powers of two, and unscaled by
their exponents (ops/rounding.unscaled_squares): the division by the scales' squares where that is representable, and
an infinite bound where their product underflows (f64 values near 2^600, a bound that grew so fed to the next layer's
rule: compare died of ZeroDivisionError on a Convolution of a migrated f8 resnet18), never a division by zero."""

from __future__ import annotations

import numpy as np

from ir_tools.ops import attrs as A
from ir_tools.ops.convolution import _conv_magnitude
from ir_tools.ops.matmul import MatMulAttrs, _magnitude
from ir_tools.ops.opsets import lookup
from ir_tools.ops.rounding import SQUARE_SLACK, square_scale, unscaled_squares


def test_unscaled_squares_divide_by_the_scales_squares() -> None:
    rng = np.random.default_rng(7)
    for _ in range(2000):
        size = np.abs(rng.standard_normal(5)).astype(np.float32) * np.float32(2.0 ** rng.integers(-60, 60))
        scales = [2.0 ** int(k) for k in rng.integers(-250, 250, 2)]
        divisor = scales[0] ** 2 * scales[1] ** 2
        expected = size.astype(np.float64) * SQUARE_SLACK / divisor if 0 < divisor < np.inf else None
        got = unscaled_squares(size, *scales)
        if expected is not None and np.isfinite(expected).all():
            np.testing.assert_array_equal(got, expected)


def test_squares_of_values_near_2_to_600_bound_to_infinity() -> None:
    """A Convolution's and a MatMul's sums of squares of f64 values near 2^600 (their squares beyond f64): inf."""
    huge = np.full((1, 2, 4, 4), 2.0**600)
    assert square_scale(huge) == 2.0**-601
    convolution = lookup("Convolution", "opset1")
    attrs = A.decode(convolution.attrs, {"strides": "1,1", "dilations": "1,1", "pads_begin": "0,0",
                                         "pads_end": "0,0"})
    [size] = _conv_magnitude(grouped=False)(attrs, [huge, np.full((3, 2, 3, 3), 2.0**600)], 2)
    assert size.shape == (1, 3, 2, 2) and np.isposinf(size).all()
    [size] = _magnitude(MatMulAttrs(), [np.full((3, 5), 2.0**600), np.full((5, 2), -(2.0**600))], 2)
    assert size.shape == (3, 2) and np.isposinf(size).all()
