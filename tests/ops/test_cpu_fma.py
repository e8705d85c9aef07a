"""``ops.cpu.fma`` (the fused multiply-add that ErfInv's table and soft NMS's exp are computed by) against the exact
sum of Python's rationals rounded once to f32, nearest and ties to even: seeded triples over f32's whole exponent
range, sums that the f64 sum rounds onto an f32 midpoint (the double rounding it must not do), exact midpoints,
results below the least normal f32, and a scalar addend broadcast."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ir_tools.ops.cpu import fma


def _rounded(exact: Fraction) -> np.float32:
    """``exact`` rounded once to f32: the nearest of the three f32 values around its f64 rounding, ties to even."""
    guess = np.float32(float(exact))
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf))]
    return min(candidates, key=lambda c: (abs(Fraction(float(c)) - exact), int(np.float32(c).view(np.uint32)) & 1))


def _expected(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return np.array([_rounded(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
                     for x, y, z in zip(a, b, c, strict=True)], np.float32)


def _short(rng: np.random.Generator, n: int, exponents: np.ndarray) -> np.ndarray:
    """f32 values of 13 significant bits (so that a product of two has at most 26: a quarter are f32 midpoints)."""
    signs = rng.choice([-1.0, 1.0], n)
    return (signs * (4096 + rng.integers(0, 4096, n)) / 4096 * np.exp2(exponents)).astype(np.float32)


def test_fma_rounds_once() -> None:
    rng = np.random.default_rng(5)
    n = 3000
    wide = (rng.standard_normal(n) * np.exp2(rng.integers(-60, 60, n))).astype(np.float32)
    wide_b = (rng.standard_normal(n) * np.exp2(rng.integers(-60, 60, n))).astype(np.float32)
    wide_c = (rng.standard_normal(n) * np.exp2(rng.integers(-130, 60, n))).astype(np.float32)
    a, b = _short(rng, n, rng.integers(-20, 20, n)), _short(rng, n, rng.integers(-20, 20, n))
    exponent = np.floor(np.log2(np.abs(a.astype(np.float64) * b)))
    nudge = (rng.choice([-1.0, 1.0], n) * np.exp2(exponent - rng.integers(30, 90, n))).astype(np.float32)
    nudge[: n // 4] = 0  # exact midpoints: ties to even
    # (1 + u) (1 - u) 2^-150 = 2^-150 - u^2 2^-150 (u = j 2^-23), plus a multiple of 2^-149 below 2^-126: the f64 sum
    # rounds onto a midpoint of f32's subnormals (below half its last place), not of its normal values
    u = rng.integers(1, 64, n) * 2.0**-23
    shift = rng.integers(-3, 4, n)
    tiny_a = ((1 + u) * np.exp2(-75 + shift)).astype(np.float32)
    tiny_b = ((1 - u) * np.exp2(-75 - shift)).astype(np.float32)
    tiny_c = (rng.choice([-1.0, 1.0], n) * (2**20 + rng.integers(0, 2**22, n)) * 2.0**-149).astype(np.float32)
    cases = [(wide, wide_b, wide_c), (a, b, nudge), (tiny_a, tiny_b, tiny_c)]
    on_midpoints = []
    for x, y, z in cases:
        got = fma(x, y, z)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got.view(np.uint32), _expected(x, y, z).view(np.uint32))
        twice = (x.astype(np.float64) * y + z).astype(np.float32)
        on_midpoints.append(int(np.count_nonzero(twice != got)))
    assert min(on_midpoints[1:]) > 100, on_midpoints  # the cases do reach the double rounding fma must not do
    scalar = np.float32(rng.standard_normal())
    np.testing.assert_array_equal(fma(a, b, scalar), _expected(a, b, np.full(n, scalar)))
