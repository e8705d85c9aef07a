"""SoftMax-1/8 and LogSoftmax-5: attributes, shape rules, reference kernels and rounding rules.

Shape rules are OpenVINO's (softmax.cpp, log_softmax.cpp); the kernel follows OpenVINO CPU. Checked by
tests/ops/test_softmax_conformance.py. Measured on openvino 2026.4.1, beyond the specification:

- SoftMax-1's axis is unsigned, SoftMax-8's and LogSoftmax-5's in [-r, r-1] with r = max(rank, 1):
  a scalar takes axis 0 (and -1). Element types are not checked (integers pass, and the CPU
  rounds the float result to nearest, ties to even: softmax [0, 0] of i32 is [0, 0]).
- SoftMax/LogSoftmax with NaN or infinities on CPU: where ``x - max`` is NaN (a NaN, +inf against
  +inf, or a row of only -inf) the output is NaN and every other element of that row is 0
  (LogSoftmax: -inf), as if such an element added +inf to the row's sum. This kernel's row maximum
  ignores NaN and starts from -3.4e38, as the CPU's SoftMax along a short last axis does ([NaN, -inf]
  gives [NaN, 0]); its other kernels take
  ``acc > x ? acc : x`` (a NaN followed by -inf makes the maximum -inf and the row NaN, a NaN last
  makes the row NaN), and rows longer than a vector get NaN in more places: no rule reproduces all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.dtypes import F32_MAX
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .operands import normalize_axis
from .rounding import ACCUMULATION_UNIT, APPROXIMATION, gamma, is_exact, output_rounding
from .spec import FLOATS, Kernel, OpSpec, RoundingRule, TensorType, never, on


@dataclass(frozen=True, slots=True)
class Softmax1Attrs:
    axis: int = A.attr("axis", A.UINT, 0)


@dataclass(frozen=True, slots=True)
class Softmax8Attrs:
    axis: int = A.attr("axis", A.INT, 1)


# --- shape rule -------------------------------------------------------------------------------------


def _softmax(unsigned: bool):
    def infer(a, inputs: Sequence[TensorType], values) -> list[TensorType]:
        data = inputs[0]
        if data.shape is not None:
            rank = len(data.shape)
            if unsigned and a.axis >= max(rank, 1):
                raise OpValidationError(f"axis {a.axis} is out of the range [0, {max(rank, 1) - 1}] of a "
                                        f"rank-{rank} input")
            normalize_axis(a.axis, rank)
        return [TensorType(data.element, data.shape)]

    return infer


# --- kernel -----------------------------------------------------------------------------------------


def _run_softmax(log: bool) -> Callable:
    def run(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(args[0])
        if x.dtype.kind not in ("f" if log else "fiu"):  # integer LogSoftmax: the CPU rounds either way
            raise UnsupportedError(f"{'LogSoftmax' if log else 'SoftMax'} of element type {x.dtype}")
        axis = normalize_axis(a.axis, x.ndim)
        if isinstance(a, Softmax1Attrs) and a.axis >= max(x.ndim, 1):
            raise OpValidationError(f"axis {a.axis} is out of the range of a rank-{x.ndim} input")
        y = softmax(x.reshape(x.shape or (1,)).astype(np.float64), axis, log).reshape(x.shape)
        if x.dtype.kind in "iu":
            y = np.rint(y)
        return [y.astype(x.dtype)]

    return run


def softmax(x: np.ndarray, axis: int, log: bool) -> np.ndarray:
    """(Log)softmax of a float64 array along ``axis`` with OpenVINO CPU's NaN rule (module doc)."""
    with np.errstate(all="ignore"):
        top = np.fmax.reduce(x, axis=axis, keepdims=True) if x.shape[axis] else np.zeros_like(x)
        top[top == -np.inf] = -F32_MAX  # the CPU's start value: [NaN, -inf] gives [NaN, 0]
        d = x - top
        bad = np.isnan(d)
        if not bad.any():  # the common case, in place
            e = np.exp(d)
            total = np.sum(e, axis=axis, keepdims=True)
            if log:
                d -= np.log(total)
                return d
            e /= total
            return e
        e = np.exp(np.where(bad, -np.inf, d))
        total = np.sum(e, axis=axis, keepdims=True)
        any_bad = bad.any(axis=axis, keepdims=True)
        if log:
            normal = d - np.log(total)
            return np.where(any_bad, np.where(bad, np.nan, -np.inf), normal)
        return np.where(any_bad, np.where(bad, np.nan, 0.0), e / total)


def _softmax_rounding(log: bool) -> RoundingRule:
    """OpenVINO CPU computes d = x - max (one rounding, u |d|), e = exp(d) (an approximation), S = sum e in f32
    and y = e / S, or z = d - log S. With r_j the relative error of e_j, S is off by R = sum y_j r_j + gamma(n)
    relatively: SoftMax y (r + R), LogSoftmax u |d| + R + the log's own error. An input error b moves y by at
    most y expm1(b + log sum y_j e^b_j) and z by b + log sum y_j e^b_j (both sides of the exponential, Jensen), so
    that a larger input error never gives a smaller bound. Where y is 0 (a probability below f32's range: a score
    masked by f32's lowest value, whose own bound is some 2^-24 of it), y e^b is e^(log y + b), log y from the input
    (``_log_vanished``): not 0 times an infinite e^b (every bound of the row infinite), nor 0 where the error may raise
    the element to a probability."""

    def rule(kernel: Kernel, a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(args[0])
        if x.dtype.kind != "f":  # an integer SoftMax is a rounded probability: 0 or 1, either side of 0.5
            return [np.ones(())]
        if x.size == 0:  # no element to bound (an axis of 0, where np.fmax.reduce would raise)
            return [np.zeros(x.shape)]
        shape = x.shape or (1,)
        axis = normalize_axis(a.axis, len(shape))
        w, y = x.astype(np.float64).reshape(shape), np.asarray(outputs[0], np.float64).reshape(shape)
        with np.errstate(all="ignore"):
            d = w - np.fmax.reduce(w, axis=axis, keepdims=True)
            p = np.exp(y) if log else y
            vanished = p == 0
            log_p = _log_vanished(d, axis, vanished) if vanished.any() and not is_exact(bounds[0]) else None
            if log:
                r = ACCUMULATION_UNIT * np.abs(d) + APPROXIMATION
                big_r = np.sum(p * r, axis=axis, keepdims=True) + gamma(shape[axis])
                log_s = np.abs(d - y)
                own = ACCUMULATION_UNIT * np.abs(d) + big_r + APPROXIMATION * (log_s + 1.0)
            else:  # the same operations, in place (a product's operands swapped): SoftMax's rule is one of attention's
                r = np.abs(d, out=d)
                r *= ACCUMULATION_UNIT
                r += APPROXIMATION
                big_r = np.sum(p * r, axis=axis, keepdims=True) + gamma(shape[axis])
                own = r
                own += big_r
                own *= p
                own += _FLUSHED
            if not np.isfinite(np.sum(own)):  # (a sum of finite terms, all finite: nan_to_num changes nothing)
                own = np.nan_to_num(own, nan=0.0)
            own += np.reshape(output_rounding(outputs[0]), np.shape(own))
            if not is_exact(bounds[0]):
                b = np.broadcast_to(bounds[0], x.shape).reshape(shape)
                grown = _exp_above(b)
                grown *= p
                if log_p is not None:
                    grown[vanished] = np.exp(log_p + b[vanished])
                shift = np.log(np.sum(grown, axis=axis, keepdims=True))
                # at least 0 for the exact probabilities (sum 1, b >= 0); the outputs' rounding can make it a little
                # less, which would take more off the bound than any input error adds (-inf: no probabilities, kept)
                np.maximum(shift, 0.0, out=shift, where=shift > -np.inf)
                if log:
                    moved = b + shift
                elif np.isfinite(np.max(b)) and not np.isinf(shift).any():  # (np.max: NaN if there is one)
                    moved = _exp_above(np.add(b, shift, out=grown), minus_one=True)
                    moved *= p
                    np.minimum(moved, 1.0, out=moved)
                else:
                    moved = np.where(np.isinf(shift) | np.isinf(b), 1.0, np.minimum(p * np.expm1(b + shift), 1.0))
                if log_p is not None and not log:  # (y expm1(t) <= e^(log y + t), and a probability moves by <= 1)
                    moved[vanished] = np.fmin(np.exp(log_p + (b + shift)[vanished]), 1.0)
                if np.isnan(np.sum(moved)):
                    moved = np.where(np.isnan(moved), np.inf, moved)
                own += moved
        return [own.reshape(x.shape)]

    return rule


def _log_vanished(d: np.ndarray, axis: int, vanished: np.ndarray) -> np.ndarray:
    """log y of the elements ``vanished`` marks (their f32 probability 0), from d = x - max along ``axis``: d - log
    sum e^d, which the row's largest element (d 0) keeps finite."""
    return (d - np.log(np.sum(np.exp(d), axis=axis, keepdims=True)))[vanished]


#: Twice the smallest normal f32: OpenVINO CPU's exp flushes to zero what its scaling by 2^n would make subnormal.
_FLUSHED = 2.0**-125

#: The largest |t| for which the rule takes 1 + t + t^2 for e^t and t + t^2 for e^t - 1: numpy computes float64 exp
#: and expm1 an element at a time on AVX2, some ten times slower than these, and the input error's bound they take is
#: mostly far below 1.
_SMALL = 2.0**-10


def _exp_above(t: np.ndarray, minus_one: bool = False) -> np.ndarray:
    """e^t (e^t - 1 with ``minus_one``) of a float64 array, in a fresh array or where every |t| is at most _SMALL its
    upper bound 1 + t + t^2 (t + t^2): for |t| <= 1, e^t - 1 - t = t^2 (1/2 + t/6 + ...) <= t^2. At |t| = 2^-10
    that bound is a relative 2^-11 above e^t - 1; at |t| = 2^-26, as far from e^t as exp's own rounding."""
    if not (t.size == 0 or max(np.max(t), -np.min(t)) <= _SMALL):  # (NaN: not small)
        return np.expm1(t) if minus_one else np.exp(t)
    out = np.multiply(t, t)
    out += t
    if not minus_one:
        out += 1.0
    return out


SOFTMAX_1 = OpSpec("SoftMax", "SoftMax-1", Softmax1Attrs, (1, 1), 1, _softmax(True), _run_softmax(False),
                   rounding=_softmax_rounding(False), evaluates=on(FLOATS | {"f64"}))
SOFTMAX_8 = OpSpec("SoftMax", "SoftMax-8", Softmax8Attrs, (1, 1), 1, _softmax(False), _run_softmax(False),
                   rounding=_softmax_rounding(False), evaluates=on(FLOATS | {"f64"}))
LOG_SOFTMAX_5 = OpSpec("LogSoftmax", "LogSoftmax-5", Softmax8Attrs, (1, 1), 1, _softmax(False), _run_softmax(True),
                       rounding=_softmax_rounding(True), evaluates=never)
