"""ErfInv-17 (torch.erfinv): shape rule, and a kernel that computes it as OpenVINO CPU's x64 JIT emitter does, bit for
bit (docs/SEMANTICS.md). ``passes/downgrade/erfinv`` builds its table of the emitter's factors from the same steps.

The emitter evaluates Giles' approximation in f32: ``v = 1 - x*x`` (two roundings), ``w = -log(v)`` by its own log
(``v``'s exponent ``e`` and ``t = v / 2^e - 1``, a polynomial in ``t``, ``e ln2 + p(t) t``), then ``q`` a polynomial in
``w - 2.5`` where ``w < 5``, else in ``sqrt(w) - 3``, and ``y = q * x``; ``|x| = 1`` gives ``+-inf``, ``|x| > 1`` and
NaN the NaN 0x7fc00000. Its multiply-adds are FMAs where oneDNN may use AVX2 or more, a product then a sum on SSE4.1
(measured on 2026.4: 4.6M values each at AVX-512, AVX2 and SSE4.1, none apart). f16 is computed in f32 and rounded;
bf16 and f64 are not modelled (the CPU computes f64 in f32 and gives ``+-1`` as ``+-3.4028235e38``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from ..base.errors import UnsupportedError
from .arithmetic import unary_rule
from .core import NoAttrs
from .cpu import fma, mayiuse
from .rounding import elementwise
from .spec import OpSpec, never

#: ``1 - x*x`` of an f32 ``|x| < 1`` is a multiple of 2^-24 in [2^-23, 1] (Sterbenz, or the ulp of [0.5, 1)).
GRID = 2**24

#: The emitter's constants (bit patterns, as its table holds them): the log polynomial from its t^7 coefficient
#: down to 1, ln 2, and the two branches' polynomials from the highest coefficient down.
_LOG = (0xBE000000, 0x3E12491B, 0xBE2AAAC1, 0x3E4CCCCD, 0xBE800000, 0x3EAAAA9F, 0xBF000000, 0x3F800000)
_LN2 = 0x3F317218
_CENTRAL = (0x32F16588, 0x34B84B36, 0xB66C7357, 0xB6935AC1, 0x396532DB, 0xBAA45408, 0xBB88E4EF, 0x3E7C8F63,
            0x3FC02E2F)
_TAIL = (0xB951F09B, 0x38D3B56B, 0x3AB0DC72, 0xBB70BDE7, 0x3BBC127B, 0xBBF9C5D7, 0xBC1AA57E, 0x3F8036DB, 0x40354F7E)


def _f32(bits: int) -> np.float32:
    return np.array(bits, np.uint32).view(np.float32)[()]


def _multiply_add(a: np.ndarray, b: np.ndarray | np.float32, c: np.float32, fused: bool) -> np.ndarray:
    """``a * b + c`` in f32: rounded once (an FMA), or not ``fused``: the product rounded, then the sum."""
    if fused:
        return fma(a, b, c)
    return np.asarray(a * b, np.float32) + c


def _horner(coefficients: tuple[int, ...], s: np.ndarray, fused: bool) -> np.ndarray:
    """The emitter's Horner scheme: ``r = r * s + c`` from the highest coefficient down."""
    r = np.full(s.shape, _f32(coefficients[0]), np.float32)
    for bits in coefficients[1:]:
        r = _multiply_add(r, s, _f32(bits), fused)
    return r


def _minus_log(v: np.ndarray, fused: bool) -> np.ndarray:
    """The emitter's ``w = -log(v)`` of f32 ``v``, by FMAs or not (``fused``)."""
    bits = v.view(np.uint32)  # (typed constants: numpy 1.x makes an int64 of a 0-d uint32 and a Python int)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 126).astype(np.float32)  # v = m * 2^e, m in [0.5, 1)
    t = ((bits & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) * np.float32(0.5) - np.float32(1)
    return -_multiply_add(e, _f32(_LN2), _horner(_LOG, t, fused) * t, fused)


def factors(v: np.ndarray, fused: bool = True) -> np.ndarray:
    """The factor ``q`` of ``y = q * x`` the emitter computes at each f32 ``v = 1 - x*x`` in (0, 1], by FMAs or not
    (``fused``)."""
    w = _minus_log(v, fused)
    q = _horner(_CENTRAL, w - np.float32(2.5), fused)
    tail = ~(w < np.float32(5))  # (v below e^-5: a few in a thousand, computed apart)
    q[tail] = _horner(_TAIL, np.sqrt(w[tail]) - np.float32(3), fused)
    return q


@cache
def cpu_factors() -> np.ndarray:
    """``factors`` by FMAs (AVX2 and AVX-512) at every ``v = k / 2^24`` (index ``k``, 0 to 2^24; a v the emitter never
    meets, 0, holds what it would give), in chunks that stay in the CPU's cache, once per process."""
    out = np.empty(GRID + 1, np.float32)
    step = 2**15
    for start in range(0, GRID + 1, step):
        v = (np.arange(start, min(start + step, GRID + 1), dtype=np.float64) / GRID).astype(np.float32)
        out[start:start + v.size] = factors(v)
    return out


def _fused() -> bool:
    """Whether OpenVINO CPU's emitter multiply-adds by FMAs here: where oneDNN may use AVX2 (unknown flags: assumed)."""
    return mayiuse("AVX2", unknown=True)


def _erfinv(x: np.ndarray) -> np.ndarray:
    """ErfInv of f32 or f16 ``x`` as the emitter computes it here, in ``x``'s type."""
    w = x.astype(np.float32)
    with np.errstate(all="ignore"):
        inside = np.abs(w) < 1
        q = factors(np.where(inside, np.float32(1) - w * w, np.float32(1)), _fused())
        y = np.where(inside, q * w, w * np.float32(np.inf))  # (+-inf at +-1; NaN below)
        y = np.where(np.abs(w) <= 1, y, np.float32(np.nan))
    return y.astype(x.dtype)


def _run(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(args[0])
    if x.dtype not in (np.float32, np.float16):
        raise UnsupportedError(f"ErfInv-17 of element type {x.dtype}: only f32 and f16 are modelled (ops/erfinv.py)")
    return [_erfinv(x)]


@cache
def _branch(fused: bool) -> tuple[np.float32, np.float32]:
    """The two f32 ``x > 0`` either side of the emitter's branch at ``w = 5``, where its result steps down by 0.5%
    (2.0727920 to 2.0618165 by FMAs): the last of the central polynomial, the first of the tail's."""
    x = np.arange(*np.array([0.99662, 0.99663], np.float32).view(np.uint32), dtype=np.uint32).view(np.float32)
    first = int(np.argmax(~(_minus_log(np.float32(1) - x * x, fused) < np.float32(5))))
    return x[first - 1], x[first]


def _change(x: np.ndarray, y: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ErfInv's change over [x - b, x + b], ends rounded outward in ``x``'s type: the larger at its ends, where the
    emitter's result rises with x (measured over 50M consecutive f32 values: everywhere but at its branch), and where
    the interval holds the branch, also the values either side of it; no bound where it reaches +-1 (NaN or inf)."""
    wide = b.astype(np.float64)
    lo, hi = (_outward(x.astype(np.float64) + sign * wide, x.dtype, sign) for sign in (-1.0, 1.0))
    y64 = y.astype(np.float64)
    with np.errstate(invalid="ignore"):
        spread = np.fmax(np.abs(_erfinv(lo) - y64), np.abs(_erfinv(hi) - y64))
        before, after = _branch(_fused())
        for sign in (-1, 1):
            edge = np.array([before, after], np.float32) * np.float32(sign)
            holds = (lo <= edge.max()) & (hi >= edge.min())
            if holds.any():
                steps = np.abs(_erfinv(edge.astype(x.dtype)).astype(np.float64)[:, None] - y64[holds]).max(axis=0)
                spread[holds] = np.fmax(spread[holds], steps)
    spread[np.isnan(spread)] = np.inf
    return spread


def _outward(v: np.ndarray, dtype: np.dtype, sign: float) -> np.ndarray:
    """``v`` (float64) in ``dtype``, rounded away from it towards ``sign`` where rounding went the other way."""
    with np.errstate(over="ignore"):
        out = v.astype(dtype)
    wrong = out < v if sign > 0 else out > v
    return np.where(wrong, np.nextafter(out, dtype.type(sign * np.inf)), out)


ERFINV_17 = OpSpec("ErfInv", "ErfInv-17", NoAttrs, (1, 1), 1, unary_rule(None, real=True), _run,
                   rounding=elementwise(rounds=False, change=_change), evaluates=never)
