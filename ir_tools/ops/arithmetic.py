"""Binary element-wise ops, Select and ReLU: OpenVINO's broadcasting shape rules and reference kernels.

Add, Subtract, Multiply, Divide, Power, Maximum, Minimum, SquaredDifference, FloorMod, Mod (arithmetic);
Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual (comparison, boolean output); LogicalAnd/Or/Xor
and opset1's Xor (boolean in and out); Select-1; ReLU-1, and the shared unary rule the activations use.

Shapes follow OpenVINO's ``PartialShape::broadcast_merge_into`` and ``Dimension::broadcast_merge``
(eltwise_shape_inference.hpp), intervals included: two dims that both may be 1 give the interval
spanning both; a dim that may be 1 against one that cannot gives the other; else the two must
intersect and give the intersection (``[1..5]`` with ``3`` is ``3``, ``[0..2]`` with ``[2..4]`` is
``[2..4]``, ``[2..5]`` with ``[4..8]`` is ``[4..5]``, ``?`` with ``1`` is ``?``). A dynamic rank gives a
dynamic rank (numpy, pdpd); ``none`` merges the shapes (equal ranks, intersecting dims). pdpd aligns
the second shape at ``auto_broadcast.auto_broadcast_axis`` of the first (-1: at the end) and keeps the
first shape's rank; a second dim longer than the first is refused. Checked by
tests/ops/test_elementwise_conformance.py. Measured on openvino 2026.4.1, beyond the specification:

- The IR reader takes ``auto_broadcast="explicit"`` as ``none`` and the enum in any case
  (``NUMPY``). pdpd's axis is the attribute ``auto_broadcast.auto_broadcast_axis`` (default 0, not
  -1); the specification documents no such attribute.
- Element types: the two inputs must be equal (a dynamic type merges with any). Arithmetic refuses
  boolean and string (u1, i4, nf4 pass); comparisons take any; logical ops want boolean.

Kernels follow OpenVINO CPU on floats and the specification (OpenVINO's evaluator) on integers;
checked against OpenVINO CPU by tests/ops/test_support_kernels.py and test_elementwise_conformance.py:

- ReLU gives 0 for NaN and +0 for -0 (``x > 0 ? x : 0``).
- Add, Subtract, Multiply and SquaredDifference wrap integers around (CPU saturates i8/u8 Add, and its
  i8 SquaredDifference is garbage); Divide with ``m_pythondiv`` floors (CPU truncates, through f32) and
  refuses a zero divisor, as do integer FloorMod and Mod (OpenVINO's evaluator dies of SIGFPE there).
- Greater and GreaterEqual are true where either input is NaN (the CPU's ``!(x <= y)`` and
  ``!(x < y)`` on SSE4.1 and AVX-512; the evaluator, and the CPU on AVX2, say false: their rounding rule
  allows either answer there); Less, LessEqual and Equal are false there, NotEqual true.
- Maximum/Minimum are ``x > y ? x : y`` / ``x < y ? x : y`` as the CPU computes them: a NaN in either
  input gives the second input, and of two zeros the second one (the evaluator gives the first).
- Power computes ``pow`` in float64 and rounds once; integers truncate toward zero, and a result out
  of the type's range is the type's minimum for i32/i64 (x86's conversion: CPU and evaluator agree),
  saturated for 8- and 16-bit types (the CPU; the evaluator has no such kernel).
- FloorMod (sign of the divisor) and Mod (sign of the dividend) are exact: the remainder of the two
  values as given, a zero remainder is +0, and NaN where either input is not finite or the divisor is
  0. OpenVINO CPU computes ``x - y * floor(x / y)`` in f32, and on AVX2 rounds the product before subtracting
  (measured: all of 200,000 values equal that formula's); so their rounding rule allows half an f32 ulp of
  ``|y n|`` more, and ``|y|`` where the quotient is within its rounding of an integer (there n can be one off).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import Dim, Shape
from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError
from . import attrs as A
from .bounds import F32_MAX, INF, BoundRule, Bounds, arithmetic, cornered, evaluated, from_unbounded, moved, ordered
from .core import NoAttrs
from .rounding import ACCUMULATION_UNIT, elementwise, is_exact, may_differ
from .spec import ARITHMETIC, Evaluates, Kernel, OpSpec, RoundingRule, TensorType, all_but, always, on, on_arithmetic

#: The IR spelling of auto_broadcast; OpenVINO's reader takes "explicit" as "none".
AUTO_BROADCAST = A.enum("none", "explicit", "numpy", "pdpd")


@dataclass(frozen=True, slots=True)
class BinaryAttrs:
    auto_broadcast: str = A.attr("auto_broadcast", AUTO_BROADCAST, "numpy")
    pdpd_axis: int | None = A.attr("auto_broadcast.auto_broadcast_axis", A.INT, None)  # None: OpenVINO's 0


@dataclass(frozen=True, slots=True)
class DivideAttrs(BinaryAttrs):
    pythondiv: bool = A.attr("m_pythondiv", A.BOOL, True)


# --- shapes ----------------------------------------------------------------------------------------


def _has_one(d: Dim) -> bool:
    return d.lo <= 1 and (d.hi is None or d.hi >= 1)


def merge_dim(a: Dim, b: Dim) -> Dim | None:
    """OpenVINO's ``Dimension::merge``: the intersection of the intervals, None when empty."""
    lo = max(a.lo, b.lo)
    hi = b.hi if a.hi is None else a.hi if b.hi is None else min(a.hi, b.hi)
    return None if hi is not None and hi < lo else Dim(lo, hi)


def broadcast_dim(a: Dim, b: Dim) -> Dim | None:
    """OpenVINO's ``Dimension::broadcast_merge`` (numpy rules on intervals), None when they do not broadcast."""
    a_one, b_one = _has_one(a), _has_one(b)
    if a_one and b_one:
        return Dim(min(a.lo, b.lo), None if a.hi is None or b.hi is None else max(a.hi, b.hi))
    if a_one:
        return b
    if b_one:
        return a
    return merge_dim(a, b)


def _show(shape: Shape) -> str:
    return "[...]" if shape is None else "[" + ",".join(str(d) for d in shape) + "]"


def merge_shapes(x: Shape, y: Shape) -> Shape:
    """OpenVINO's ``PartialShape::merge_into`` (auto_broadcast none); OpValidationError when they differ."""
    if x is None:
        return y
    if y is None:
        return x
    merged = [merge_dim(a, b) for a, b in zip(x, y, strict=False)] if len(x) == len(y) else [None]
    if None in merged:
        raise OpValidationError(f"shapes {_show(x)} and {_show(y)} differ (auto_broadcast none needs equal shapes)")
    return tuple(merged)  # type: ignore[arg-type]


def broadcast_shapes(x: Shape, y: Shape, mode: str = "numpy", axis: int | None = None) -> Shape:
    """The shape of an element-wise op on ``x`` and ``y`` under ``mode`` (OpenVINO's broadcast_merge_into)."""
    if mode in ("none", "explicit"):
        return merge_shapes(x, y)
    if x is None or y is None:
        return None
    if mode == "pdpd":
        return _pdpd_shape(x, y, 0 if axis is None else axis)
    rank = max(len(x), len(y))
    ones = (Dim(1, 1),)
    xs, ys = ones * (rank - len(x)) + x, ones * (rank - len(y)) + y
    out = [broadcast_dim(a, b) for a, b in zip(xs, ys, strict=True)]
    if None in out:
        raise OpValidationError(f"shapes {_show(x)} and {_show(y)} do not broadcast (numpy)")
    return tuple(out)  # type: ignore[arg-type]


def _pdpd_shape(x: tuple[Dim, ...], y: tuple[Dim, ...], axis: int) -> Shape:
    what = f"shapes {_show(x)} and {_show(y)} do not broadcast (pdpd, axis {axis})"
    if len(y) > len(x) or axis < -1:
        raise OpValidationError(what)
    start = len(x) - len(y) if axis == -1 else axis
    if start + len(y) > len(x):
        raise OpValidationError(what)
    out = list(x)
    for i, s in enumerate(y):
        d = x[start + i]
        merged = broadcast_dim(d, s)
        if merged is None or (d.is_static and s.is_static and s.lo > d.lo):
            raise OpValidationError(what)
        out[start + i] = merged
    return tuple(out)


def merge_elements(a: str | None, b: str | None, what: str = "inputs") -> str | None:
    """OpenVINO's ``element::Type::merge``: equal types, a dynamic one (None) merging with any."""
    if a is not None and b is not None and a != b:
        raise OpValidationError(f"{what} of element types {a} and {b}: they must be equal")
    return a if a is not None else b


def _binary_rule(kind: str) -> Callable:
    """The shape rule of an arithmetic, comparison or logical binary op."""

    def infer(a: BinaryAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
        x, y = inputs
        et = merge_elements(x.element, y.element)
        if kind == "arithmetic" and et in ("boolean", "string"):
            raise OpValidationError(f"inputs of element type {et}: this op does not support it")
        if kind == "logical" and et not in (None, "boolean"):
            raise OpValidationError(f"inputs of element type {et}: logical ops need boolean")
        shape = broadcast_shapes(x.shape, y.shape, a.auto_broadcast, a.pdpd_axis)
        return [TensorType(et if kind == "arithmetic" else "boolean", shape)]

    return infer


def unary_rule(refused: frozenset[str] | None = frozenset({"boolean", "string"}), real: bool = False) -> Callable:
    """Output = input type and shape; ``refused`` element types (or, with ``real``, every non-real one) rejected."""

    def infer(a, inputs: Sequence[TensorType], values) -> list[TensorType]:
        x = inputs[0]
        if real and x.element is not None and x.element not in REAL_TYPES:
            raise OpValidationError(f"input of element type {x.element}: it must be a floating-point type")
        if refused and x.element in refused:
            raise OpValidationError(f"input of element type {x.element}: this op does not support it")
        return [TensorType(x.element, x.shape)]

    return infer


def _select_rule(a: BinaryAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    cond, then, other = inputs
    if cond.element not in (None, "boolean"):
        raise OpValidationError(f"condition of element type {cond.element}: it must be boolean")
    et = merge_elements(then.element, other.element, "then and else")
    if a.auto_broadcast == "pdpd":  # else, then the condition, broadcast one way into then
        shape = broadcast_shapes(then.shape, other.shape, "pdpd", a.pdpd_axis)
        return [TensorType(et, broadcast_shapes(shape, cond.shape, "pdpd", a.pdpd_axis))]
    shape = broadcast_shapes(other.shape, then.shape, a.auto_broadcast)
    return [TensorType(et, broadcast_shapes(shape, cond.shape, a.auto_broadcast))]


# --- kernels ---------------------------------------------------------------------------------------


def _align(a: BinaryAttrs, x: tuple[int, ...], y: np.ndarray) -> np.ndarray:
    """``y`` reshaped so that numpy broadcasting against shape ``x`` does what ``a.auto_broadcast`` says
    (OpValidationError when the shapes do not go together)."""
    mode = a.auto_broadcast
    if mode in ("none", "explicit"):
        if x != y.shape:
            raise OpValidationError(f"auto_broadcast={mode} needs equal shapes, got {list(x)} and {list(y.shape)}")
        return y
    if mode == "pdpd":
        axis = 0 if a.pdpd_axis is None else a.pdpd_axis
        _pdpd_shape(tuple(Dim(n, n) for n in x), tuple(Dim(n, n) for n in y.shape), axis)
        start = len(x) - y.ndim if axis == -1 else axis
        return y.reshape((1,) * start + y.shape + (1,) * (len(x) - start - y.ndim))
    try:
        np.broadcast_shapes(x, y.shape)
    except ValueError:
        raise OpValidationError(f"shapes {list(x)} and {list(y.shape)} do not broadcast") from None
    return y


def broadcastable(a: BinaryAttrs, args: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The two inputs of a binary element-wise op, of one element type, ``y`` shaped to broadcast against ``x`` as
    ``a.auto_broadcast`` says (OpValidationError otherwise)."""
    x, y = (np.asarray(v) for v in args)
    if x.dtype != y.dtype:
        raise OpValidationError(f"inputs of element types {x.dtype} and {y.dtype}: they must be equal")
    return x, _align(a, x.shape, y)


def _numeric(x: np.ndarray) -> None:
    if x.dtype.kind not in "iuf":
        raise OpValidationError(f"inputs of element type {x.dtype}: this op needs numbers")


#: The f16 ops computed in float64, where the result of two f16 operands is exact, and rounded once into f16: the
#: correctly rounded result, as numpy's f16 loops give it, without their conversion of every element both ways.
_EXACT_IN_F64 = (np.add, np.subtract, np.multiply)


def _binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], kind: str = "arithmetic") -> Kernel:
    def run(a: BinaryAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, y = broadcastable(a, args)
        if kind == "logical" and x.dtype != np.bool_:
            raise OpValidationError(f"inputs of element type {x.dtype}: logical ops need boolean")
        if kind == "arithmetic":
            _numeric(x)
        with np.errstate(all="ignore"):
            if x.dtype == np.float16 and fn in _EXACT_IN_F64:
                return [np.asarray(fn(x.astype(np.float64), y.astype(np.float64))).astype(np.float16)]
            out = np.asarray(fn(x, y))
        return [out if kind != "arithmetic" else out.astype(x.dtype, copy=False)]

    return run


def _divide(a: DivideAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, y = broadcastable(a, args)
    _numeric(x)
    if x.dtype.kind not in "iu":
        with np.errstate(all="ignore"):
            return [np.asarray(np.divide(x, y))]
    if not np.all(y):
        raise OpValidationError("integer division by zero")
    with np.errstate(all="ignore"):
        q = np.floor_divide(x, y)
        if not a.pythondiv:  # truncate toward zero: undo the floor where the division was inexact and negative
            q = q + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0))).astype(q.dtype)
    return [np.asarray(q)]


def _power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "f":
        return np.power(x.astype(np.float64), y.astype(np.float64)).astype(x.dtype)
    p = np.trunc(np.power(x.astype(np.float64), y.astype(np.float64)))
    info = np.iinfo(x.dtype)
    if info.bits >= 32:  # x86's conversion of an out-of-range (or NaN, or infinite) double: the minimum
        fits = (p >= info.min) & (p <= info.max)
        return np.where(fits, np.nan_to_num(p), info.min).astype(x.dtype)
    return np.clip(np.nan_to_num(p, nan=0.0), info.min, info.max).astype(x.dtype)


def _remainder(floor: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def fn(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        if x.dtype.kind in "iu":
            if not np.all(y):
                raise OpValidationError("integer division by zero")
            return (np.remainder if floor else np.fmod)(x, y)
        w, v = x.astype(np.float64), y.astype(np.float64)
        r = np.fmod(w, v)  # exact
        if floor:
            r = np.where((r != 0) & ((r < 0) != (v < 0)), r + v, r)
        r = np.where(np.isfinite(w) & np.isfinite(v) & (v != 0), r + 0.0, np.nan)  # +0.0: no negative zero
        return r.astype(x.dtype)

    return fn


def _squared_difference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "f":
        d = x.astype(np.float64) - y.astype(np.float64)  # exact for f16/f32 inputs
        return (d * d).astype(x.dtype)
    d = x - y
    return d * d


def _select(a: BinaryAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    cond, then, other = (np.asarray(v) for v in args)
    if cond.dtype != np.bool_:
        raise OpValidationError(f"condition of element type {cond.dtype}: it must be boolean")
    if then.dtype != other.dtype:
        raise OpValidationError(f"then and else of element types {then.dtype} and {other.dtype}: they must be equal")
    if a.auto_broadcast == "pdpd":
        other, cond = _align(a, then.shape, other), _align(a, then.shape, cond)
    else:
        _align(a, other.shape, then)
        _align(a, np.broadcast_shapes(other.shape, then.shape), cond)
    return [select(cond, then, other)]


#: The signed integer type of each element size: ``select`` and ``_relu`` move an element's bits as one.
_BITS = {1: np.dtype(np.int8), 2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}


def select(cond: np.ndarray, then: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``np.where(cond, then, other)`` bit for bit, with no branch per element: numpy's where mispredicts on a mask
    with no long runs (a ReLU's, a Maximum's), where masking the two inputs' bits is several times faster for f32 and
    f16 (float64 arrays, twice the memory, gain less, and not at every size). For two inputs of one numeric or boolean
    type (np.where otherwise)."""
    then, other = np.asarray(then), np.asarray(other)
    bits = _BITS.get(then.dtype.itemsize)
    if then.dtype != other.dtype or then.dtype.kind not in "biuf" or bits is None:
        return np.where(cond, then, other)
    shape = np.broadcast_shapes(np.shape(cond), then.shape, other.shape)
    mask = np.empty(shape, bits)
    mask[...] = cond
    np.negative(mask, out=mask)  # all ones where cond holds
    out = np.bitwise_and(then.view(bits), mask, out=np.empty(shape, bits))
    np.invert(mask, out=mask)
    out |= np.bitwise_and(other.view(bits), mask, out=mask)
    return out.view(then.dtype)


def _relu(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(args[0])
    bits = _BITS.get(x.dtype.itemsize)
    if x.dtype.kind == "f" and bits is not None:  # x > 0 read from the bits (numpy compares f16 slowly): above +0
        v = x.view(bits)  # and at most +inf (a NaN gives 0, as x > 0 does)
        return [(v * ((v > 0) & (v <= np.array(np.inf, x.dtype).view(bits)))).view(x.dtype)]
    return [select(x > 0, x, np.zeros((), x.dtype))]


def _relu_change(x: np.ndarray, y: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The largest change of ReLU over [x - b, x + b], in closed form (a few passes where the corners take some
    twenty): min(b, max(x + b, 0)), b where x >= 0; an integer x moves by whole steps; no bound where x + b is +inf or
    NaN, as at the corners (inf - inf)."""
    step = b if x.dtype.kind == "f" else np.clip(np.ceil(b), -(2**31), 2**31)
    moved = np.asarray(np.add(x, step, dtype=np.float64))  # (of 0-d values: a scalar made an array)
    unbounded = np.isnan(moved)
    unbounded |= moved == np.inf
    np.clip(moved, 0.0, step, out=moved)
    moved[unbounded] = np.inf
    return moved


def _binary_spec(op: str, kind: str, fn, attrs: type = BinaryAttrs, ulps: float = 0.0, rounds: bool = True,
                 linear: tuple[float, float] | None = None, cpu_saturates: bool = False,
                 nan_undecided: bool = False, rounding: RoundingRule | None = None,
                 bounds: BoundRule | None = None, float_bounds: bool = False,
                 evaluates: Evaluates = on_arithmetic) -> OpSpec:
    kernel = fn if attrs is DivideAttrs else _binary(fn, kind)
    rounding = rounding or elementwise(ulps, rounds=rounds and kind == "arithmetic", linear=linear)
    return OpSpec(op, f"{op}-1", attrs, (2, 2), 1, _binary_rule(kind), kernel,
                  rounding=_either_at_nan(rounding) if nan_undecided else rounding, cpu_saturates=cpu_saturates,
                  bounds=bounds, float_bounds=float_bounds, evaluates=evaluates)


#: Where either input is NaN, broadcast as the op broadcasts.
_either_nan = _binary(lambda x, y: np.isnan(x) | np.isnan(y), "comparison")


def _either_at_nan(rule: RoundingRule) -> RoundingRule:
    """``rule``, and either answer where an input is NaN: OpenVINO CPU's Greater and GreaterEqual are true there on
    SSE4.1 and AVX-512 (unordered compares) but false on AVX2 (ordered ``vcmpgtps``/``vcmpgeps``), docs/SEMANTICS.md
    Corrections."""

    def either(kernel: Kernel, attrs: object, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
               outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        (bound,) = rule(kernel, attrs, args, bounds, outputs)
        if args[0].dtype.kind != "f":
            return [bound]
        (nan,) = _either_nan(attrs, args)
        return [np.maximum(bound, nan.astype(np.float64))]

    return either


def _at_output(attrs: BinaryAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
               shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """x, y (in float64) and their bounds at the output's ``shape``, y and its bound aligned with x as the op aligns
    them."""
    x, y = (np.broadcast_to(v, shape).astype(np.float64) for v in broadcastable(attrs, args))
    bx = np.broadcast_to(bounds[0], shape)
    by = np.broadcast_to(_align(attrs, np.shape(args[0]), np.broadcast_to(bounds[1], np.shape(args[1]))), shape)
    return x, y, bx, by


def _equality_rounding() -> RoundingRule:
    """Equal's and NotEqual's rule: x and y can be equal anywhere their intervals meet, which the corners of the
    intervals miss (x = 1 +- 0.5 and y = 1.25 are unequal at all four): either answer there."""
    corners = elementwise(rounds=False)

    def rule(kernel: Kernel, attrs: BinaryAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        (bound,) = corners(kernel, attrs, args, bounds, outputs)
        if all(is_exact(b) for b in bounds):
            return [bound]
        x, y, bx, by = _at_output(attrs, args, bounds, np.shape(outputs[0]))
        reach = bx + by
        with np.errstate(invalid="ignore"):  # (NaN: never equal, as the corners say)
            meet = (np.abs(x - y) <= reach) & (reach > 0)
        return [np.maximum(bound, meet.astype(np.float64))]

    return rule


_SELECT_DATA = elementwise(data=(1, 2), rounds=False)


def _select_rounding(kernel: Kernel, a: BinaryAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                     outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Select moves its pick's error; where the condition may be the other value (a comparison of inexact values
    that may flip), the output may be the other input: |then - else| plus the larger of their bounds."""
    (bound,) = _SELECT_DATA(kernel, a, args, bounds, outputs)
    if is_exact(bounds[0]):
        return [bound]
    shape = np.shape(outputs[0])
    cond, then, other = (np.asarray(v) for v in args)
    bc, bt, be = (np.broadcast_to(b, np.shape(v)) for b, v in zip(bounds, args, strict=True))
    if a.auto_broadcast == "pdpd":  # (as ``_select`` aligns them)
        other, cond = _align(a, then.shape, other), _align(a, then.shape, cond)
        be, bc = _align(a, then.shape, be), _align(a, then.shape, bc)
    with np.errstate(invalid="ignore"):
        jump = np.abs(then.astype(np.float64) - other.astype(np.float64)) + np.maximum(bt, be)
    jump = np.where(np.isnan(jump), np.inf, jump)
    return [np.where(np.broadcast_to(may_differ(cond, bc), shape), np.maximum(bound, jump), bound)]


def _remainder_rounding(floor: bool) -> RoundingRule:
    """FloorMod's and Mod's rule. OpenVINO CPU computes r = x - y n in f32, n the quotient's integer part (floor, or
    toward zero) of the f32 quotient, and on AVX2 (no fused multiply-add there) rounds y n before subtracting: half an
    f32 ulp of |y n| more than the output's rounding, and r off by |y| where the quotient is within its rounding of an
    integer (n one off). An input error: r is linear in x and y while n stays the same, and then moves most at the
    corners of the inputs' intervals (``elementwise``); where those intervals hold another n, r can be anywhere in its
    range, within |y| + b_y of any value of it (FloorMod's r has y's sign, Mod's x's: twice that where x's interval
    holds 0), and where y's interval holds 0, anywhere."""
    corners = elementwise()
    whole_part = np.floor if floor else np.trunc

    def rule(kernel: Kernel, attrs: BinaryAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        (bound,) = corners(kernel, attrs, args, bounds, outputs)
        if args[0].dtype.kind != "f":
            return [bound]
        x, y, bx, by = _at_output(attrs, args, bounds, np.shape(outputs[0]))
        with np.errstate(all="ignore"):
            quotient = x / y
            computed = ACCUMULATION_UNIT * np.abs(y * whole_part(quotient))  # (y n rounded to f32)
            near = np.abs(quotient - np.round(quotient)) <= 2.0 * ACCUMULATION_UNIT * np.abs(quotient)
            computed = np.where(near, computed + np.abs(y), computed)
            bound = bound + np.where(np.isfinite(computed), computed, 0.0)  # (a NaN output: no bound needed)
            if all(is_exact(b) for b in bounds):
                return [bound]
            quotients = [(x + sx * bx) / (y + sy * by) for sx in (-1.0, 1.0) for sy in (-1.0, 1.0)]
            low, high = np.fmin.reduce(quotients), np.fmax.reduce(quotients)  # (y's interval without 0: monotone)
            slack = 2.0**-50 * np.maximum(np.abs(low), np.abs(high))  # (a quotient within rounding of an integer)
            apart = np.abs(y) > by  # y's interval without 0 (NaN: not apart, no bound)
            jumps = ~apart | (whole_part(low - slack) != whole_part(high + slack))
            reach = np.abs(y) + by
            if not floor:
                reach = np.where(np.abs(x) <= bx, 2.0 * reach, reach)
            reach[~apart] = np.inf
        return [np.where(jumps, bound + reach, bound)]

    return rule


def _divide_bounds(a: DivideAttrs, inputs: Sequence[Bounds]) -> list[Bounds] | None:
    """Integer Divide's bounds, OpenVINO's own (divide.cpp ``evaluate_bound``), measured on 2026.4.1: where the
    divisor's upper bound is positive ``[x.lo / y.hi .. x.hi / y.lo]`` (a zero y.lo: INF), else ``[x.hi / y.lo ..
    x.lo / y.hi]``, each the op's division, even where that is not the true range (``[-3..5] / [1..2]`` is ``[-2..5]``);
    ``[0..INF]`` where x or y is unbounded. A divisor's interval holding 0 inside gives the type's least lower bound,
    and a divisor of upper bound 0 and lower 0 divides by zero: neither modelled (None)."""
    x, y = inputs
    if a.auto_broadcast != "numpy":
        return None
    if x.lo.dtype.kind == "f":
        return _float_divide_bounds(x, y)
    positive = y.hi > 0
    unbounded = (x.hi >= INF) | (y.hi >= INF)
    below = np.where(positive, y.hi, y.lo)
    if np.any(~unbounded & (y.lo < 0) & positive) or not np.all(below):
        return None
    (lo,) = _divide(a, [np.where(positive, x.lo, x.hi), below])
    above = np.where(positive, y.lo, y.hi)
    (hi,) = _divide(a, [np.where(positive, x.hi, x.lo), np.where(above == 0, 1, above)])
    return [Bounds(np.where(unbounded, 0, lo).astype(np.int64),
                   np.where(unbounded | (above == 0), INF, hi).astype(np.int64))]


def _float_divide_bounds(x: Bounds, y: Bounds) -> list[Bounds] | None:
    """f32 Divide's bounds, OpenVINO's own (divide.cpp ``evaluate_bound``), measured on 2026.4.1: as of integers, in
    f32 (``[2..10] / 3.0`` is ``[0.6666667..3.3333333]``), but a divisor's interval holding 0 inside gives
    ``[FLT_MIN..F32_MAX]`` (the least positive normal f32: ``8.0 / [-1..7]``), and a divisor bound of 0 where the
    upper bound divides by it ``F32_MAX`` (``8.0 / [0..4]`` is ``[2..F32_MAX]``); ``[0..F32_MAX]`` where x or y is
    unbounded. A lower bound divided by 0 (``8.0 / [0..0]``: inf) is not modelled (None)."""
    positive, around = y.hi > 0, (y.lo < 0) & (y.hi > 0)
    above = np.where(positive, y.lo, y.hi)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lo = np.where(positive, x.lo, x.hi) / np.where(positive, y.hi, y.lo)
        hi = np.where(positive, x.hi, x.lo) / np.where(above == 0, np.float32(1), above)
    lo = np.where(around, np.finfo(np.float32).tiny, lo).astype(np.float32)
    hi = np.where(around | (above == 0), F32_MAX, hi).astype(np.float32)
    found = from_unbounded(lo, hi, x.unbounded | y.unbounded)
    return [found] if np.all(np.isfinite(found.lo)) and np.all(np.isfinite(found.hi)) else None


def _c_remainder(x: int, m: int) -> int:
    """C's ``x % m`` (the sign of x)."""
    r = abs(x) % abs(m)
    return -r if x < 0 else r


def _mod_of(v1: int, v2: int, m: int) -> tuple[int, int]:
    """OpenVINO's ``mod_interval_value``: ``[v1..v2] % m``, the remainders of the ends or ``[0..m - 1]``."""
    r = (_c_remainder(v1, m), _c_remainder(v2, m))
    return (0, m - 1) if r[1] < r[0] or v2 != v1 and v2 - v1 >= m else r


def _mod_interval(v1: int, v2: int, m1: int, m2: int) -> tuple[int, int]:
    """OpenVINO's ``mod_interval`` (reference/mod.hpp): ``[v1..v2] % [m1..m2]``, as it computes it (its negative
    inputs too, which it leaves undefined)."""
    lo, hi = _mod_of(v1, v2, m1)
    if v2 != 0 and m1 != m2:
        lo2, hi2 = _mod_of(v1, v2, m2)
        lo, hi = min(lo, lo2), max(hi, hi2)
        if v2 == v1 and m2 - m1 != 1:
            half = -(-v2 // 2) if v2 < 0 else v2 // 2  # (C's division: toward zero)
            if m1 < half or m1 < v2 < m2:
                lo, hi = 0, _c_remainder(v2, half + 1) if half < m2 < v2 else m2 - 1
    return lo, hi


def _mod_bounds(a: BinaryAttrs, inputs: Sequence[Bounds]) -> list[Bounds] | None:
    """Mod's bounds, OpenVINO's own (mod.cpp ``evaluate_bound``, ``mod_interval``), measured on 2026.4.1: per element
    ``mod_interval`` of x's and the divisor's intervals (``[2..10] % 3`` is ``[0..2]``, ``[4..5] % 3`` ``[1..2]``);
    ``[0..INF]`` where the divisor's lower or upper bound is 0, its lower one unbounded, or x's upper one unbounded. A
    divisor's unbounded upper bound otherwise enters ``mod_interval`` as the type's maximum (i32's or i64's), which
    only its branch answering that maximum less 1 shows: not modelled (None); nor x and the divisor both exact with a
    divisor of 0 (OpenVINO then evaluates the op: 0)."""
    x, y = inputs
    if a.auto_broadcast != "numpy" or x.exact and y.exact and not np.all(y.lo):
        return None
    undefined = (y.lo == 0) | (y.hi == 0) | (y.lo >= INF) | (x.hi >= INF)
    shape = np.broadcast(undefined, x.lo).shape
    undefined = np.broadcast_to(undefined, shape)
    v1, v2, m1, m2 = (np.where(undefined, 1, np.broadcast_to(b, shape)).reshape(-1).tolist()
                      for b in (x.lo, x.hi, y.lo, y.hi))
    found = [_mod_interval(*e) for e in zip(v1, v2, m1, m2, strict=True)]
    lo = np.array([f[0] for f in found], np.int64).reshape(shape)
    hi = np.array([f[1] for f in found], np.int64).reshape(shape)
    if np.any(~undefined & (hi >= INF - 1)):
        return None  # (m2 - 1 of an unbounded m2: the type's maximum less 1)
    return [Bounds(np.where(undefined, 0, lo), np.where(undefined, INF, hi))]


_FLOOR_MOD_CORNERS = cornered(lambda x, y: np.remainder(x, np.where(y == 0, 1, y)))


def _floor_mod_bounds(a: BinaryAttrs, inputs: Sequence[Bounds]) -> list[Bounds] | None:
    """FloorMod's bounds: its corners (``cornered``), measured on 2026.4.1 (``[2..10] % 3`` is ``[1..2]``, not the
    true ``[0..2]``). A divisor's bound of 0 gives the type's least value at that corner (a remainder by zero): not
    modelled (None), unless the element is unbounded (``[0..INF]`` all the same)."""
    x, y = inputs
    zero = (y.lo == 0) | (y.hi == 0)
    if np.any(zero & ~((x.hi >= INF) | (y.hi >= INF))) or x.exact and y.exact and np.any(zero):
        return None
    return _FLOOR_MOD_CORNERS(a, inputs)


def _greater(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x > y, true where either is NaN (as ``_either_at_nan`` allows)."""
    return ~np.less_equal(x, y)


def _equal_bounds(a: BinaryAttrs, inputs: Sequence[Bounds]) -> list[Bounds] | None:
    """Equal's bounds, OpenVINO's own (equal.cpp), measured on 2026.4.1: of exact inputs the op; else true below where
    both inputs are one exact value, and true above where their intervals meet (``[4..] == 3`` is false, ``? == 3``
    either), broadcast as the op broadcasts (numpy)."""
    x, y = inputs
    if a.auto_broadcast != "numpy":
        return None
    if x.exact and y.exact:
        return [Bounds.of(x.lo == y.lo)]
    lo = (x.lo == x.hi) & (x.hi == y.lo) & (y.lo == y.hi)
    return [Bounds(lo.astype(np.int64), ((x.lo <= y.hi) & (y.lo <= x.hi)).astype(np.int64))]


def _select_of_bounds(a: BinaryAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """``_select`` of a condition given as bounds (0 and 1)."""
    return _select(a, [np.asarray(args[0]).astype(bool), *args[1:]])


#: Select's bounds, measured on 2026.4.1: none unless its condition is exact, then each bound picked from the then
#: and else inputs' (OpenVINO's default bound evaluation: an unbounded element stays so, ``4..`` is not ``?``).
_SELECT_BOUNDS = moved(_select_of_bounds, (1, 2))


#: OpenVINO CPU computes Add, Subtract and Multiply of 8-bit integers saturating (tests/ops/test_support_kernels.py).
ADD_1 = _binary_spec("Add", "arithmetic", np.add, linear=(1.0, 1.0), cpu_saturates=True, bounds=arithmetic("Add"),
                   float_bounds=True, evaluates=on(all_but("f64")))
SUBTRACT_1 = _binary_spec("Subtract", "arithmetic", np.subtract, linear=(1.0, -1.0), cpu_saturates=True,
                          bounds=arithmetic("Subtract"), float_bounds=True, evaluates=on(all_but("f64", "i16", "u16")))
MULTIPLY_1 = _binary_spec("Multiply", "arithmetic", np.multiply, cpu_saturates=True,
                          rounding=elementwise(bilinear=True), bounds=arithmetic("Multiply"), float_bounds=True,
                          evaluates=on(ARITHMETIC | {"f64"}))
DIVIDE_1 = _binary_spec("Divide", "arithmetic", _divide, DivideAttrs, ulps=1,  # x * (1 / y) is allowed
                        bounds=ordered(_divide_bounds), float_bounds=True)
POWER_1 = _binary_spec("Power", "arithmetic", _power, ulps=4)
MAXIMUM_1 = _binary_spec("Maximum", "arithmetic", lambda x, y: select(x > y, x, y), rounds=False,
                         bounds=cornered(np.maximum), float_bounds=True)
MINIMUM_1 = _binary_spec("Minimum", "arithmetic", lambda x, y: select(x < y, x, y), rounds=False,
                         bounds=cornered(np.minimum), float_bounds=True, evaluates=on(all_but("f64", "i8", "i16")))
SQUARED_DIFFERENCE_1 = _binary_spec("SquaredDifference", "arithmetic", _squared_difference, evaluates=on({"f32"}))
FLOOR_MOD_1 = _binary_spec("FloorMod", "arithmetic", _remainder(floor=True), rounding=_remainder_rounding(floor=True),
                           bounds=_floor_mod_bounds, evaluates=on(all_but("f64", "i16", "u16")))
MOD_1 = _binary_spec("Mod", "arithmetic", _remainder(floor=False), rounding=_remainder_rounding(floor=False),
                     bounds=ordered(_mod_bounds), evaluates=on(all_but("f32", "f16", "bf16", "f64")))
EQUAL_1 = _binary_spec("Equal", "comparison", np.equal, rounding=_equality_rounding(), bounds=_equal_bounds,
                       evaluates=always)
_ORDERED = on(ARITHMETIC | {"boolean"})  # (what OpenVINO evaluates of NotEqual and the order comparisons)
NOT_EQUAL_1 = _binary_spec("NotEqual", "comparison", np.not_equal, rounding=_equality_rounding(), evaluates=_ORDERED)
LESS_1 = _binary_spec("Less", "comparison", np.less, bounds=evaluated(_binary(np.less, "comparison")),
                      evaluates=_ORDERED)
LESS_EQUAL_1 = _binary_spec("LessEqual", "comparison", np.less_equal, evaluates=_ORDERED)
GREATER_1 = _binary_spec("Greater", "comparison", _greater, nan_undecided=True,
                         bounds=evaluated(_binary(_greater, "comparison")), evaluates=_ORDERED)
GREATER_EQUAL_1 = _binary_spec("GreaterEqual", "comparison", lambda x, y: ~np.less(x, y), nan_undecided=True,
                               evaluates=_ORDERED)
LOGICAL_AND_1 = _binary_spec("LogicalAnd", "logical", np.logical_and, evaluates=always)
LOGICAL_OR_1 = _binary_spec("LogicalOr", "logical", np.logical_or, evaluates=always)
LOGICAL_XOR_1 = _binary_spec("LogicalXor", "logical", np.logical_xor, evaluates=always)
#: opset1's "Xor" is the logical xor (``op::v0::Xor``, boolean in and out: measured, its reader and NodeFactory).
XOR_1 = _binary_spec("Xor", "logical", np.logical_xor, evaluates=always)
SELECT_1 = OpSpec("Select", "Select-1", BinaryAttrs, (3, 3), 1, _select_rule, _select, rounding=_select_rounding,
                  bounds=_SELECT_BOUNDS)
RELU_1 = OpSpec("ReLU", "ReLU-1", NoAttrs, (1, 1), 1, unary_rule(), _relu,
                rounding=elementwise(rounds=False, change=_relu_change), evaluates=on_arithmetic)
