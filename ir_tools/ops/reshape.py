"""Reshape, Squeeze and Unsqueeze: attributes, shape rules and reference kernels.

Shape rules are OpenVINO's shape inference (src/core/shape_inference), interval bounds included
(ops/intervals.py), checked against the installed openvino by tests/ops/test_shaping_conformance.py; kernels are
checked there against OpenVINO CPU. Measured on OpenVINO 2026.4.1, beyond its specification:

- Reshape: the target shape must be 1-D (a scalar 1 is refused). Without special_zero, a 0 with a
  -1 reads the -1 as the input's element count divided by the other non-zero dims ([0,3] to
  [0,-1] is [0,1], [0,3] to [5,-1] is [5,0]). A target fed when the model runs the CPU reads otherwise
  (``_run_reshape``, the kernel; ``_fold_reshape`` where it is known at shape inference, docs/SEMANTICS.md).
  A target OpenVINO bounds but cannot compute (ShapeOf of a shape not static...) it reads as intervals
  (``_bounded_pattern``), checked by tests/passes/test_value_bounds.py.
- Squeeze-1 and Squeeze-15 leave an axis that is not 1 in place instead of refusing it; with
  axes of unknown value and one element, Squeeze-1 gives rank - 1 dynamic dims, Squeeze-15 a
  dynamic rank. Unsqueeze accepts negative axes; with unknown axes it gives a dynamic rank whatever
  their count.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import Dim, Shape
from ..base.errors import OpValidationError
from . import attrs as A
from .bounds import Bounds, moved, pairs
from .core import NoAttrs
from .intervals import (
    ANY,
    INF,
    ONE,
    ZERO,
    Iv,
    Unmatched,
    canon,
    contains,
    ddiv,
    dims,
    dmul,
    dynamic,
    guarded,
    is_empty,
    is_static,
    iv,
    static_dims,
)
from .operands import bounds, integral, ints, normalize_axis, rank1, static_size
from .rounding import moves
from .spec import OpSpec, TensorType

# --- Reshape ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReshapeAttrs:
    special_zero: bool = A.attr("special_zero", A.BOOL, False)


def reshape_dims(shape: Shape, pattern: Sequence[int], special_zero: bool) -> tuple[Dim, ...]:
    """Reshape-1's output for a known target (OpenVINO's reshape_shape_inference, interval products included)."""
    plain = _static_reshape(shape, pattern, special_zero)
    return plain if plain is not None else _interval_reshape(shape, pattern, special_zero)


def _static_reshape(shape: Shape, pattern: Sequence[int], special_zero: bool) -> tuple[Dim, ...] | None:
    """``_interval_reshape``'s answer by integer arithmetic, where every length it multiplies is static and positive
    and the target valid (most reshapes of a network; a dim that special_zero copies may be dynamic, it is not
    multiplied): tests/ops/test_reshape_paths.py compares the two. None elsewhere."""
    if shape is None:
        return None
    copied = special_zero and 0 in pattern
    total = 1
    for i, d in enumerate(shape):
        if copied and i < len(pattern) and pattern[i] == 0:
            if d.lo >= INF or (d.hi is not None and d.hi >= INF):
                return None
        elif d.hi != d.lo or not 0 < d.lo < INF:
            return None
        else:
            total *= d.lo
    out: list[Dim | None] = []
    minus_one = None
    known = 1
    for i, v in enumerate(pattern):
        if v == 0 and copied and i < len(shape):
            out.append(shape[i])
            continue
        if v == -1 and minus_one is None:
            minus_one = len(out)
            out.append(None)
            continue
        if not 0 < v < INF:
            return None
        out.append(Dim(v, v))
        known *= v
    if total >= INF or known >= INF:  # (the interval products saturate there)
        return None
    if minus_one is not None:
        if total % known:
            return None
        n = total // known
        out[minus_one] = Dim(n, n)
    elif known != total:
        return None
    return tuple(out)


def _interval_reshape(shape: Shape, pattern: Sequence[int], special_zero: bool) -> tuple[Dim, ...]:
    """``reshape_dims`` on intervals: every case."""
    minus_one = None
    wanted: list[Iv] = []
    for i, v in enumerate(pattern):
        if v == -1:
            if minus_one is not None:
                raise OpValidationError("the target shape has more than one -1")
            minus_one = i
            wanted.append(ANY)
        elif v >= 0:
            wanted.append((v, v))
        else:
            raise OpValidationError(f"the target shape has {v} at index {i}: only -1 may be negative")
    return _reshape_intervals(shape, wanted, minus_one, special_zero)


def _bounded_pattern(pattern: Bounds, element: str | None) -> tuple[list[Iv], int | None]:
    """A target OpenVINO bounds but cannot compute, as its shape inference reads it (measured on 2026.4.1, as its
    ``get_pattern_and_minus_one_idx`` says): each element a dim of its bounds (``bounds.pairs``: of i32, int32 max is
    unbounded), a lower bound of -1 read as 0 (``[-1..7]`` is ``..7``, ``[-1..0]`` a 0 that special_zero copies);
    both bounds -1 the -1; a lower bound below -1 ``?`` where the upper one is not negative (``[-3..5]``), else
    refused. ``_reshape_intervals`` then resolves the -1 on these dims (``x[2..10,6]`` to ``Concat(ShapeOf(x)[0],
    -1)`` is ``[2..10,2..30]``), a dynamic dim never cancelling an equal one of the input: OpenVINO's reader sets no
    symbols, by which it would (``x[?,?,768]`` to ``Concat(ShapeOf(x)[0:2], [12,-1])`` is ``[?,?,12,?]``)."""
    wanted: list[Iv] = []
    minus_one = None
    for i, (lo, hi) in enumerate(pairs(pattern, element)):
        if lo == hi == -1:
            if minus_one is not None:
                raise OpValidationError("the target shape has more than one -1")
            minus_one = i
            wanted.append(ANY)
        elif lo >= -1:
            wanted.append(canon(lo, hi))  # (its lower bound of -1 clipped to 0)
        elif hi >= 0:
            wanted.append(ANY)
        else:
            raise OpValidationError(f"the target shape's element {i} is bounded by [{lo}, {hi}]: both negative")
    return wanted, minus_one


def _reshape_intervals(shape: Shape, wanted: list[Iv], minus_one: int | None, special_zero: bool,
                       ) -> tuple[Dim, ...]:
    """Reshape-1's output for a target read as intervals, ``minus_one`` the index of its -1 (reshape_shape_inference:
    its ``Product`` on ov::Dimension, a static dim of the input cancelling an equal one of the target)."""
    out: list[Iv] = []
    ins: list[Iv] = []
    outs: list[Iv] = []
    in_p, out_p = [ONE, ONE], [ONE, ONE]  # (static product, dynamic product)
    if shape is None:
        for p in wanted:
            if special_zero and p == ZERO:
                out.append(ANY)
                in_p[1] = out_p[1] = ANY
            else:
                out.append(p)
                outs.append(p)
    else:
        for i, p in enumerate(wanted):
            ignore = special_zero and p == ZERO
            if i == minus_one:
                out.append(ANY)
            elif ignore:
                if i >= len(shape):
                    raise OpValidationError(f"special_zero copies dim {i}, the input has rank {len(shape)}")
                out.append(iv(shape[i]))
            else:
                out.append(p)
                outs.append(p)
            if i < len(shape) and not ignore:
                ins.append(iv(shape[i]))
        ins += [iv(d) for d in shape[len(wanted):]]

    def mul(prod: list[Iv], value: Iv) -> None:
        if is_static(value):
            prod[0] = dmul(value, prod[0])
        else:
            prod[1] = dmul(value, prod[1])

    rest = list(outs)
    for d in ins:
        j = next((k for k, o in enumerate(rest) if o == d and is_static(d) and d != ZERO), None)
        if j is None:
            mul(in_p, d)
        else:
            del rest[j]
    for o in rest:
        mul(out_p, o)
    if in_p[0] != out_p[0]:
        in_p[1] = dmul(in_p[1], in_p[0])
        out_p[1] = dmul(out_p[1], out_p[0])

    if minus_one is not None:
        if out_p[0] == ZERO and in_p[0] != ZERO:
            raise OpValidationError("cannot infer the -1 dim: the other output dims hold a 0, the input none")
        m, po = in_p[1], out_p[1]
        divided = is_static(m) and is_static(po)
        if divided:
            m = ddiv(m, po[0])
        else:
            lo, hi = m
            po_min = -1 if po[0] == INF else po[0]
            hi = hi // po_min if hi != INF and po_min != 0 and po != ANY else INF
            if po[1] != 0:
                lo = 0 if lo == 0 else 1 + (lo - 1) // po[1]
            m = canon(lo, hi)
        if out_p[0] != ZERO and is_empty(m):
            if not divided:  # OpenVINO's -1 dim is then its empty interval (x[1,2..9] to [-1,1,12]: [1..0,1,12])
                raise Unmatched()
            raise OpValidationError("the input's element count is not divisible by the other output dims")
        out[minus_one] = m
    if shape is not None and all(d.is_static for d in shape) and all(is_static(o) for o in out):
        zero_dims = ZERO in wanted
        if not ((zero_dims and special_zero) or minus_one is not None) and in_p[0] != out_p[0]:
            shown = [o[0] for o in out]
            raise OpValidationError(f"cannot reshape {[d.lo for d in shape]} to {shown}: element counts differ")
    return dims(out)


def _reshape(a: ReshapeAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, pattern = inputs
    integral(pattern, "the target shape")
    rank1(pattern, "the target shape")
    target = values[1]
    if target is None:
        n = None if pattern.shape is None or not pattern.shape[0].is_static else pattern.shape[0].lo
        return [TensorType(data.element, dynamic(n))]
    if isinstance(target, Bounds):
        wanted, minus_one = _bounded_pattern(target, pattern.element)
        return [TensorType(data.element, _reshape_intervals(data.shape, wanted, minus_one, a.special_zero))]
    return [TensorType(data.element, reshape_dims(data.shape, bounds(target), a.special_zero))]


def _target(pattern: np.ndarray) -> None:
    if pattern.dtype.kind not in "iu" or pattern.ndim != 1:
        raise OpValidationError(f"the target shape must be a 1-D integer tensor, got "
                                f"{pattern.dtype}{list(pattern.shape)}")


def _fold_reshape(a: ReshapeAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Reshape on a target known at shape inference: the shape rule's dims."""
    x, pattern = args
    _target(pattern)
    out = reshape_dims(static_dims(x.shape), bounds(pattern), a.special_zero)
    return [x.reshape([d.lo for d in out])]


def _run_reshape(a: ReshapeAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """OpenVINO CPU's Reshape on a target fed when it runs (its own shape inference, measured): special_zero copies
    the input dim at a 0 within its rank (another 0 is 0); the -1 is the element count of the dims not copied over
    the other target values, or 0 where one of those is 0 ([0,3] to [0,-1] is [0,0], not the shape rule's [0,1]);
    the output must then hold the input's element count."""
    x, pattern = args
    _target(pattern)
    raw = ints(pattern)
    if raw.count(-1) > 1 or any(v < -1 for v in raw):
        raise OpValidationError(f"the target shape {raw} holds a negative value other than one -1")
    out, copied, known = list(raw), set(), 1
    for i, v in enumerate(raw):
        if v == 0 and a.special_zero and i < x.ndim:
            out[i] = x.shape[i]
            copied.add(i)
        elif v != -1:
            known *= v
    if -1 in raw:
        rest = math.prod(n for i, n in enumerate(x.shape) if i not in copied)
        out[raw.index(-1)] = 0 if known == 0 else rest // known
    if math.prod(out) != x.size:
        raise OpValidationError(f"cannot reshape {list(x.shape)} to {raw}: element counts differ")
    return [x.reshape(out)]


# --- Squeeze and Unsqueeze --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Squeeze15Attrs:
    allow_axis_skip: bool = A.attr("allow_axis_skip", A.BOOL, False)


def _axes_rank(t: TensorType) -> None:
    """Axes of Squeeze and Unsqueeze: a scalar or 1-D (a partly dynamic shape passes, as in OpenVINO)."""
    if t.shape is not None and all(d.is_static for d in t.shape) and len(t.shape) > 1:
        raise OpValidationError(f"axes must be a scalar or 1-D, got rank {len(t.shape)}")


def _squeeze(v15: bool):
    def infer(a, inputs: Sequence[TensorType], values) -> list[TensorType]:
        data = inputs[0]
        shape = data.shape
        axes: set[int] | None = set()
        if len(inputs) == 2:
            t = inputs[1]
            integral(t, "axes")
            _axes_rank(t)
            axes = None
            axes_size = static_size(t)
            if shape is not None and axes_size is not None:
                if values[1] is not None:
                    axes = {normalize_axis(v, len(shape), "axis") for v in ints(values[1])}
                elif len(shape) > 0 and axes_size == 1:
                    if any(contains(iv(d), 1) for d in shape):
                        return [TensorType(data.element, None if v15 else dynamic(len(shape) - 1))]
                    return [TensorType(data.element, shape)]
        if shape is None or axes is None:
            return [TensorType(data.element, None)]
        skip = getattr(a, "allow_axis_skip", False)
        if v15 and skip and any(not d.is_static and contains(iv(d), 1) and i in axes for i, d in enumerate(shape)):
            return [TensorType(data.element, None)]
        if not axes:
            if any(not d.is_static and contains(iv(d), 1) for d in shape):
                return [TensorType(data.element, None)]
            return [TensorType(data.element, tuple(d for d in shape if not contains(iv(d), 1)))]
        return [TensorType(data.element, tuple(d for i, d in enumerate(shape)
                                                 if i not in axes or not contains(iv(d), 1)))]

    return infer


def _run_squeeze(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = args[0]
    if len(args) == 1 or args[1].size == 0:
        return [x.reshape([n for n in x.shape if n != 1])]
    axes = {normalize_axis(v, x.ndim) for v in ints(args[1])}
    return [x.reshape([n for i, n in enumerate(x.shape) if i not in axes or n != 1])]


def unsqueeze_dims(shape: tuple[Dim, ...], raw: Sequence[int]) -> tuple[Dim, ...]:
    if not raw:
        raise OpValidationError("axes must not be empty")
    unique = set(raw)
    expanded = len(shape) + len(unique)
    axes = sorted({normalize_axis(v, expanded) for v in unique})
    out = list(shape)
    for axis in axes:
        if axis > len(out) + 1:
            raise OpValidationError(f"axis {axis} is not valid")
        out.insert(axis, Dim(1, 1)) if axis <= len(out) else out.append(Dim(1, 1))
    return tuple(out)


def _unsqueeze(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, t = inputs
    integral(t, "axes")
    _axes_rank(t)
    if values[1] is None or data.shape is None:
        return [TensorType(data.element, None)]
    return [TensorType(data.element, unsqueeze_dims(data.shape, ints(values[1])))]


def _run_unsqueeze(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, axes = args
    return [x.reshape([d.lo for d in unsqueeze_dims(static_dims(x.shape), ints(axes))])]


# --- specs ------------------------------------------------------------------------------------------

RESHAPE_1 = OpSpec("Reshape", "Reshape-1", ReshapeAttrs, (2, 2), 1, guarded(_reshape), _run_reshape, (1,),
                   rounding=moves(0), folded=_fold_reshape, bounds=moved(_run_reshape), reads_bounds=True,
                   float_bounds=True)
SQUEEZE_1 = OpSpec("Squeeze", "Squeeze-1", NoAttrs, (1, 2), 1, guarded(_squeeze(False)), _run_squeeze, (1,),
                   rounding=moves(0), bounds=moved(_run_squeeze), float_bounds=True)
SQUEEZE_15 = OpSpec("Squeeze", "Squeeze-15", Squeeze15Attrs, (1, 2), 1, guarded(_squeeze(True)), _run_squeeze, (1,),
                    rounding=moves(0), bounds=moved(_run_squeeze), float_bounds=True)
UNSQUEEZE_1 = OpSpec("Unsqueeze", "Unsqueeze-1", NoAttrs, (2, 2), 1, guarded(_unsqueeze), _run_unsqueeze, (1,),
                     rounding=moves(0), bounds=moved(_run_unsqueeze), float_bounds=True)
