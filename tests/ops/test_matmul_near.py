"""matmul.near, the per-layer check of a MatMul started from the end-to-end walk's evaluation of it, against
OpenVINO CPU and against the product computed afresh.

Seeded cases, one OpenVINO model per shape: x' (the end-to-end walk's activations: rows of magnitudes from 2^-6 to
2^6, 1% of their elements 50 times larger) and x (OpenVINO's), each row x' moved by a relative 2^-e (e from 18 to 30, or
not at all), times f32 weights (columns of magnitudes from 2^-4 to 2^4, transposed or not). For each element:

- OpenVINO's MatMul of x is within near's bound of near's value (the rounding rule, as a per-layer check uses it);
- near's value is within u |x @ y| (its rounding into f32) plus the error it allows itself, gamma(n + 2) |d| @ |y|,
  of the float64 product;
- near's bound is the rule's bound on x computed afresh, to within NEARBY (its spread) and the rule's own f32
  rounding of |x| @ |y| (gamma(n)) either way; on rows where x is x', near's value and bound are the kernel's and
  the rule's, bit for bit.

And near declines (None: the check computes the layer afresh) where x is not near x', where an activation is
infinite or NaN, and for forms it does not take (f16, transpose_a, a stack of weights).
"""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset8 as o8
import pytest

from ir_tools.ops.matmul import _BLOCK_ELEMENTS, MATMUL_1, NEARBY, MatMulAttrs, _column_magnitudes, near, recorded
from ir_tools.ops.rounding import EXACT, gamma

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 20261126
U = 2.0**-24

#: (rows, inner, columns, transpose_b): each row of x one case.
SHAPES = [(300, 64, 48, False), (200, 768, 96, True), (120, 3072, 40, False)]


def _evaluated(attrs: MatMulAttrs, x: np.ndarray, w: np.ndarray):
    """The end-to-end walk's run of the layer on x: the kernel and the rule, recorded."""
    with recorded() as evaluation:
        out = MATMUL_1.kernel(attrs, [x, w])
        MATMUL_1.rounding.statistical(MATMUL_1.kernel, attrs, [x, w], [EXACT, EXACT], out)
    return evaluation


def _cases(rng: np.random.Generator, rows: int, inner: int, columns: int, transpose_b: bool):
    scale = np.exp2(rng.uniform(-6, 6, (rows, 1)))
    before = (rng.standard_normal((rows, inner)) * scale).astype(np.float32)
    spikes = rng.random((rows, inner)) < 0.01
    before[spikes] *= 50
    moved = np.exp2(-rng.uniform(18, 30, (rows, 1))) * rng.uniform(-1, 1, (rows, inner))
    moved[rng.random(rows) < 0.1] = 0.0
    x = (before * (1.0 + moved)).astype(np.float32)
    w = (rng.standard_normal((inner, columns)) * np.exp2(rng.uniform(-4, 4, columns))).astype(np.float32)
    return before, x, (np.ascontiguousarray(w.T) if transpose_b else w)


@pytest.mark.parametrize("rows,inner,columns,transpose_b", SHAPES)
def test_near_is_within_openvinos_rounding_and_the_rules_bound(rows, inner, columns, transpose_b):
    rng = np.random.default_rng([SEED, inner])
    before, x, w = _cases(rng, rows, inner, columns, transpose_b)
    attrs = MatMulAttrs(transpose_b=transpose_b)
    found = near(attrs, _evaluated(attrs, before, w), [x, w])
    assert found is not None
    value, bound = found

    parameter = o8.parameter([rows, inner], np.float32, name="x")
    product = o8.matmul(parameter, o8.constant(w), False, transpose_b)
    compiled = ov.Core().compile_model(ov.Model([product], [parameter]), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    actual = compiled({0: x})[0]
    error = np.abs(actual.astype(np.float64) - value)
    assert np.all(error <= bound), f"error/bound up to {np.max(error / bound):.3g}"

    weights = (w.T if transpose_b else w).astype(np.float64)
    exact = x.astype(np.float64) @ weights
    own = gamma(inner + 2) * (np.abs(x.astype(np.float64) - before) @ np.abs(weights))
    assert np.all(np.abs(value - exact) <= U * np.abs(exact) + own * (1 + 2**-20) + 2.0**-149)

    kernel = MATMUL_1.kernel(attrs, [x, w])[0]
    afresh = MATMUL_1.rounding(MATMUL_1.kernel, attrs, [x, w], [EXACT, EXACT], [kernel])[0]
    ratio = bound / afresh
    slack = 2 * gamma(inner)
    assert ratio.min() >= 1 - slack and ratio.max() <= 1 + 2 * NEARBY + slack
    same = (x == before).all(axis=1)  # rows OpenVINO's activations left as the end-to-end walk's: the rule's bits
    assert same.sum() >= rows // 20
    assert np.array_equal(value[same], kernel[same]) and np.array_equal(bound[same], afresh[same])


def test_near_declines_what_it_cannot_bound_as_tightly():
    rng = np.random.default_rng(SEED)
    before, x, w = _cases(rng, 40, 64, 16, False)
    attrs = MatMulAttrs()
    evaluation = _evaluated(attrs, before, w)
    assert near(attrs, evaluation, [x, w]) is not None

    far = x.copy()
    far[3] *= 1.01  # one row moved by 1%: |d| colsum |y| beyond NEARBY of |x'| @ |y|
    assert near(attrs, evaluation, [far, w]) is None
    for special in (np.inf, np.nan):
        odd = x.copy()
        odd[5, 7] = special
        with np.errstate(all="raise"):  # (and no warning)
            assert near(attrs, evaluation, [odd, w]) is None
    infinite = before.copy()
    infinite[0, 0] = np.inf
    assert near(attrs, _evaluated(attrs, infinite, w), [x, w]) is None

    assert near(attrs, evaluation, [x.astype(np.float16), w.astype(np.float16)]) is None
    assert near(MatMulAttrs(transpose_a=True), evaluation, [x, w]) is None
    assert near(attrs, evaluation, [x[:20], w]) is None
    stacked = _evaluated(attrs, before[None], np.stack([w, w]))
    assert near(attrs, stacked, [x[None], np.stack([w, w])]) is None
    assert near(attrs, _evaluated(attrs, before.astype(np.float16), w.astype(np.float16)),
                [x.astype(np.float16), w.astype(np.float16)]) is None


@pytest.mark.parametrize("transpose_b", [False, True])
def test_column_magnitudes_are_the_sums_over_the_whole(transpose_b: bool) -> None:
    """near's colsum |y| of a weight larger than a block (a transposed one summed a block of columns at a time) has
    the bits of summing |y| whole."""
    rng = np.random.default_rng(SEED)
    w = (rng.standard_normal((1000, 4500)) * np.exp2(rng.uniform(-20, 20, 4500))).astype(np.float32)
    y = np.ascontiguousarray(w.T).T if transpose_b else w  # (a transposed weight: a column-major view)
    assert y.size > _BLOCK_ELEMENTS and y.shape[1] % (_BLOCK_ELEMENTS // y.shape[0])
    assert np.array_equal(_column_magnitudes(y), np.abs(y).sum(axis=0, dtype=np.float64))
