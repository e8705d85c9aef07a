"""MatMul's blocked product (ops/matmul._blocked_product) casts a large weight a block at a time into one array it
reuses: it must give, bit for bit, the products of its blocks taken one by one, each cast afresh. A transposed weight
(column-major) goes a block of output columns at a time, a row-major one a block of inner rows at a time, summed in
order. Seeded shapes across several blocks, a short last one included, f32 and f16 weights."""

from __future__ import annotations

import numpy as np
import pytest

from ir_tools.ops import matmul
from ir_tools.ops.rounding import SQUARE_FLOOR, square_scale

BLOCK = 1 << 10


def _terms(v: np.ndarray, dtype: type, exponent: int, scale: float) -> np.ndarray:
    """What the product sums: v in ``dtype``, |v|, or (v scale)^2 in f32 at least SQUARE_FLOOR."""
    if exponent == 2:
        return np.maximum(np.square((v * v.dtype.type(scale)).astype(np.float32)), SQUARE_FLOOR)
    return np.abs(v, dtype=dtype) if exponent else v.astype(dtype)


@pytest.mark.parametrize("exponent", (0, 1, 2))
def test_blocked_product_sums_as_whole_blocks(monkeypatch: pytest.MonkeyPatch, exponent: int) -> None:
    monkeypatch.setattr(matmul, "_BLOCK_ELEMENTS", BLOCK)
    rng = np.random.default_rng(exponent)
    for case in range(60):
        m, k, n = (int(v) for v in rng.integers(1, 90, 3))
        k, n = k + 12, n + 12  # a weight of more than BLOCK elements
        wtype = (np.float32, np.float16)[case % 2]
        dtype = np.float64 if exponent == 0 else np.float32
        x = (rng.standard_normal((m, k)) * 2).astype(np.float32)
        w = (rng.standard_normal((n, k)) * 0.1).astype(wtype)
        scales = (square_scale(x), square_scale(w)) if exponent == 2 else (1.0, 1.0)
        wide = _terms(x, dtype, exponent, scales[0])
        # a transposed weight: a block of output columns at a time, each sum whole
        columns = max(1, BLOCK // k)
        got = matmul._blocked_product(x, w.T, dtype, exponent, scales)
        want = np.concatenate([np.matmul(wide, _terms(w.T[:, j:j + columns], dtype, exponent, scales[1]))
                               for j in range(0, n, columns)], axis=1)
        assert got.dtype == want.dtype and np.array_equal(got, want), case
        # a row-major weight: blocks of inner rows, summed in order
        rows = np.ascontiguousarray(w.T)
        step = max(1, BLOCK // n)
        got = matmul._blocked_product(x, rows, dtype, exponent, scales)
        want = np.matmul(wide[:, :step], _terms(rows[:step], dtype, exponent, scales[1]))
        for start in range(step, k, step):
            want += np.matmul(wide[:, start:start + step], _terms(rows[start:start + step], dtype, exponent, scales[1]))
        assert np.array_equal(got, want), case
