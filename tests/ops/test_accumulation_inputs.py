"""What an accumulation's rounding rule adds for its inputs' errors, per layer (the worst case): for MatMul and
Convolution, f16 and f32 values with f16 activations' handed-over bounds or arbitrary float64 ones, the rule's bound
against the same worst case evaluated here in float64 from its definition, 2 u_out |y| + gamma(n) K(|x| + b_x,
|w| + b_w) + K(|x| + b_x, |w| + b_w) - K(|x|, |w|): never below it, and within a few gamma(n) of it (the rule's
f32 sums of magnitudes, each scaled up by 1 + gamma(n), are the only slack)."""

from __future__ import annotations

import numpy as np
import pytest

from ir_tools.ops.convolution import CONVOLUTION_1, ConvolutionAttrs
from ir_tools.ops.matmul import MATMUL_1, MatMulAttrs
from ir_tools.ops.rounding import gamma, handed_over, output_rounding

CASES = 120


def _bound(rng: np.random.Generator, value: np.ndarray, kind: int) -> np.ndarray:
    """An f16 activation's handed-over bound, an arbitrary float64 one (not f32 values: rounded up on the way), or
    one broadcast from a scalar."""
    if kind == 0 and value.dtype == np.float16:
        return handed_over(value)
    if kind == 2:
        return np.full((), rng.uniform(1e-6, 1e-3))
    return np.abs(value.astype(np.float64)) * rng.uniform(1e-7, 1e-3, value.shape) + rng.uniform(0, 1e-6)


def _case(rng: np.random.Generator, i: int):
    dtype = (np.float16, np.float32)[i % 2]
    exact_weights = i % 3 == 0
    if i % 4 < 2:
        m, k, n = rng.integers(1, 24, 3)
        x = rng.standard_normal((2, m, k)).astype(dtype)
        w = rng.standard_normal((n, k)).astype(dtype)
        spec, attrs = MATMUL_1, MatMulAttrs(transpose_b=True)
        exact = lambda a, b: np.matmul(a, np.swapaxes(b, -1, -2))  # noqa: E731
        terms = k
    else:
        cin, cout, size, taps = (int(v) for v in (*rng.integers(1, 6, 2), rng.integers(5, 9), rng.integers(1, 4)))
        x = np.maximum(rng.standard_normal((2, cin, size, size)), 0).astype(dtype)  # ReLU'd: many exact zeros
        w = rng.standard_normal((cout, cin, taps, taps)).astype(dtype)
        spec = CONVOLUTION_1
        attrs = ConvolutionAttrs(strides=(1, 1), dilations=(1, 1), pads_begin=(1, 1), pads_end=(1, 1))
        exact = lambda a, b: CONVOLUTION_1.kernel(attrs, [a, b])[0]  # noqa: E731 (float64 sums of float64 values)
        terms = cin * taps * taps
    bounds = [_bound(rng, x, i % 3), np.zeros(()) if exact_weights else _bound(rng, w, (i + 1) % 3)]
    return spec, attrs, [x, w], bounds, exact, terms


@pytest.mark.parametrize("seed", range(2))
def test_the_worst_case_of_the_inputs_errors(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for i in range(CASES):
        spec, attrs, args, bounds, exact, terms = _case(rng, i)
        outputs = spec.kernel(attrs, args)
        found = spec.rounding(spec.kernel, attrs, args, bounds, outputs)[0]
        x, w = (np.abs(v.astype(np.float64)) for v in args)
        bx, bw = (np.broadcast_to(b, v.shape) for b, v in zip(bounds, args, strict=True))
        size, widened = exact(x, w), exact(x + bx, w + bw)
        g = gamma(terms)
        wanted = output_rounding(outputs[0]) + g * widened + (widened - size)
        assert np.all(found >= wanted), (i, float(np.max(wanted - found)))
        assert np.all(found <= wanted * (1 + 6 * g) + 1e-30), (i, float(np.max(found / wanted)))
