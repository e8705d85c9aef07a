"""How the conformance suites judge ours against OpenVINO's answers, without OpenVINO: per-output value limits
(``Limit``, ``mismatch``, ``rule_limits``: the op's rounding rule) and shape outcomes (``Bounds``, ``Outcome``,
``our_outcome``). ``conformance`` (which runs OpenVINO) and ``test_answers`` (stored answers) share them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ir_tools.base.dims import Dim
from ir_tools.base.errors import IrToolsError
from ir_tools.ops import attrs as A
from ir_tools.ops.opsets import lookup
from ir_tools.ops.rounding import EXACT
from ir_tools.ops.spec import OpSpec, TensorType

Limit = Callable[[np.ndarray], np.ndarray]  # OpenVINO's output (as float64) -> allowed absolute difference per element
Bounds = tuple[tuple[int, int | None], ...] | None  # a partial shape; None is a dynamic rank
Outcome = tuple | str  # ((element, bounds), ...) per output, or "rejects" (or, ours only, "declines": the rule's None)


def mismatch(got: np.ndarray, want: np.ndarray, limit: Limit | None, signed_zeros: bool = False) -> str | None:
    """What is wrong with ``got`` (ours) against ``want`` (OpenVINO's) within ``limit`` (None: equal, NaN
    matching NaN; integers and booleans are compared equal, but where the limit is infinite), or None.
    ``signed_zeros``: a zero must also have OpenVINO's sign."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"ours {got.dtype}{list(got.shape)}, OpenVINO {want.dtype}{list(want.shape)}"
    if got.dtype.kind != "f":
        if np.array_equal(got, want):
            return None
        bad = got != want
        if limit is not None:  # elements without a bound (an infinite limit: TopK's undetermined indices) are free
            bad &= ~np.isinf(np.broadcast_to(limit(want.astype(np.float64)), want.shape))
            if not bad.any():
                return None
        return f"{int(bad.sum())} element(s) differ: ours {got[bad][:6]}, OpenVINO {want[bad][:6]}"
    g, w = got.astype(np.float64), want.astype(np.float64)
    nan = np.isnan(w)
    if not np.array_equal(np.isnan(g), nan):
        where = np.flatnonzero(np.isnan(g) != nan)[:4]
        return f"NaN positions differ: ours {g.ravel()[where]}, OpenVINO {w.ravel()[where]}"
    zeros = (g == 0) & (w == 0)
    if signed_zeros and not np.array_equal(np.signbit(g[zeros]), np.signbit(w[zeros])):
        return "the sign of a zero differs"
    if limit is None:
        bad = ~((g == w) | nan)
        return f"{int(bad.sum())} element(s) differ: ours {g[bad][:6]}, OpenVINO {w[bad][:6]}" if bad.any() else None
    infinite = np.isinf(w) | np.isinf(g)
    if not np.array_equal(g[infinite], w[infinite]):
        return f"infinities differ: ours {g[infinite][:4]}, OpenVINO {w[infinite][:4]}"
    with np.errstate(invalid="ignore"):
        bad = ~nan & ~infinite & ~(np.abs(g - w) <= limit(w))
    if not bad.any():
        return None
    where = np.flatnonzero(bad)[:4]
    return (f"{int(bad.sum())} element(s) off, max {np.max(np.abs(g - w)[bad]):.3g}: ours {g.ravel()[where]}, "
            f"OpenVINO {w.ravel()[where]}")


def tolerance(rtol: float, atol: float, extra: Callable[[], np.ndarray] | None = None) -> Limit:
    """The limit atol + rtol |OpenVINO's value| (plus ``extra()``, a per-element bound, when given)."""
    if extra is None:
        return lambda w: atol + rtol * np.abs(w)
    return lambda w: atol + rtol * np.abs(w) + extra()


def rule_limits(spec: OpSpec, raw: dict[str, str], inputs: Sequence[np.ndarray]) -> tuple[Limit, ...]:
    """Per output, the op's rounding bound on exact ``inputs`` (attributes as the IR spells them), as a Case limit:
    OpenVINO's output must lie within it of ours."""
    attrs = A.decode(spec.attrs, raw)
    outputs = spec.kernel(attrs, list(inputs))
    bounds = spec.rounding(spec.kernel, attrs, list(inputs), [EXACT] * len(inputs), outputs)
    return tuple((lambda w, b=b: b) for b in bounds)


def to_dims(shape: Bounds) -> tuple[Dim, ...] | None:
    return None if shape is None else tuple(Dim(lo, hi) for lo, hi in shape)


def from_dims(shape) -> Bounds:
    return None if shape is None else tuple((d.lo, d.hi) for d in shape)


def show(shape: Bounds) -> str:
    if shape is None:
        return "[...]"
    return "[" + ",".join(str(lo) if lo == hi else f"{lo}..{'' if hi is None else hi}" for lo, hi in shape) + "]"


def our_outcome(op: str, version: str, raw: dict[str, str], inputs: list[TensorType],
                values: list[np.ndarray | None]) -> Outcome:
    """Our rule's answer: output (element, bounds) pairs, "rejects" (it raised) or "declines" (it answered None)."""
    spec = lookup(op, version)
    assert spec is not None and spec.infer is not None, (op, version)
    try:
        outs = spec.infer(A.decode(spec.attrs, raw), inputs, values)
    except IrToolsError:
        return "rejects"
    return "declines" if outs is None else tuple((t.element, from_dims(t.shape)) for t in outs)


def describe(outcome: Outcome) -> str:
    return outcome if isinstance(outcome, str) else " ".join(f"{e}{show(s)}" for e, s in outcome)
