"""BitwiseAnd/Or/Xor/Not-13: attributes, shape rules, reference kernels.

Shapes are the binary element-wise ops' (ops/arithmetic.py: numpy, pdpd and none broadcasting on intervals);
BitwiseNot keeps its input's type and shape. Checked by tests/ops/test_bitwise_conformance.py. Measured on
openvino 2026.4.1, beyond the specification:

- Element types: every type but the real ones (``is_integral``): integers of any width (u1, i4...), boolean,
  nf4 and string pass shape inference; f16, f32, bf16, f8... are refused. The two inputs must be equal.
- On boolean the ops are LogicalAnd/Or/Xor/Not. The kernels are numpy's bitwise ops, exact (two's complement for
  signed types), and refuse the types numpy cannot hold (u1, i4, nf4, string).
- OpenVINO CPU computes i64, u64 and u32 in i32: values beyond 32 bits come out wrong (an i64 AND of two values
  near 2^40 is some 32-bit number). The kernels follow the specification; the conformance cases keep i64/u64
  within i32's range, as the CPU then agrees.

BitwiseLeftShift/RightShift-15 take the binary ops' rule, boolean refused too. Measured on openvino 2026.4.1 CPU:
every type is shifted in i32 by ``s & 31``; the kernels are the CPU's bit for bit but where it departs from the
specification (u32 ``>>``, the 64-bit types: BITWISE_LEFT_SHIFT_15).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError, UnsupportedError
from .arithmetic import BinaryAttrs, broadcast_shapes, broadcastable, merge_elements
from .core import NoAttrs
from .rounding import exact
from .spec import Kernel, OpSpec, TensorType, never, on


def _integral(element: str | None) -> None:
    """OpenVINO's check: a dynamic type or one that is not real."""
    if element in REAL_TYPES:
        raise OpValidationError(f"input of element type {element}: it must be integer or boolean")


def _binary_rule(a: BinaryAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    x, y = inputs
    et = merge_elements(x.element, y.element)
    _integral(et)
    return [TensorType(et, broadcast_shapes(x.shape, y.shape, a.auto_broadcast, a.pdpd_axis))]


def _not_rule(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    (x,) = inputs
    _integral(x.element)
    return [TensorType(x.element, x.shape)]


def _held(x: np.ndarray) -> None:
    if x.dtype.kind not in "iub":
        raise UnsupportedError(f"bitwise op on element type {x.dtype}: the reference computes integers and booleans")


def _binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Kernel:
    def run(a: BinaryAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, y = broadcastable(a, args)
        _held(x)
        return [np.asarray(fn(x, y))]

    return run


def _not(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(args[0])
    _held(x)
    return [np.invert(x)]


def _binary_spec(op: str, fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> OpSpec:
    return OpSpec(op, f"{op}-13", BinaryAttrs, (2, 2), 1, _binary_rule, _binary(fn), rounding=exact, evaluates=never)


BITWISE_AND_13 = _binary_spec("BitwiseAnd", np.bitwise_and)
BITWISE_OR_13 = _binary_spec("BitwiseOr", np.bitwise_or)
BITWISE_XOR_13 = _binary_spec("BitwiseXor", np.bitwise_xor)
BITWISE_NOT_13 = OpSpec("BitwiseNot", "BitwiseNot-13", NoAttrs, (1, 1), 1, _not_rule, _not, rounding=exact,
                        evaluates=never)


def _shift_rule(a: BinaryAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """The binary ops' rule, boolean refused too (OpenVINO's ``is_integral_number``: nf4 and string pass)."""
    out = _binary_rule(a, inputs, values)
    if out[0].element == "boolean":
        raise OpValidationError("shift of element type boolean: it must be an integer number")
    return out


def _shifted(x: np.ndarray, s: np.ndarray, left: bool) -> np.ndarray:
    """``x << s`` or ``x >> s`` as OpenVINO CPU computes them on the types of 32 bits or less (a signed type's ``>>``
    arithmetic), and as the specification on u32 ``>>`` (logical) and the 64-bit types (BITWISE_LEFT_SHIFT_15)."""
    _held(x)
    if x.dtype.kind == "b":
        raise UnsupportedError("shift of element type boolean")
    bits = x.dtype.itemsize * 8
    if bits == 64 or (x.dtype == np.uint32 and not left):
        k = s & x.dtype.type(bits - 1)  # (typed: numpy 1.x widens a 0-d array beside a Python int)
        return np.left_shift(x, k) if left else np.right_shift(x, k)
    k = s.astype(np.int64).astype(np.int32) & np.int32(31)
    wide = x.astype(np.int64).astype(np.int32)  # (u32: its bits, as i32)
    if left:
        wide = (wide.astype(np.int64) << k).astype(np.uint64).astype(np.uint32).view(np.int32)
    else:
        wide = wide >> k
    return wide.view(np.uint32) if x.dtype == np.uint32 else wide.astype(x.dtype)


def _shift_spec(op: str, left: bool) -> OpSpec:
    return OpSpec(op, f"{op}-15", BinaryAttrs, (2, 2), 1, _shift_rule,
                  _binary(lambda x, s: _shifted(x, s, left)), rounding=exact, evaluates=on({"i32"}))


#: BitwiseLeftShift-15 and BitwiseRightShift-15 (opset15..16): the binary ops' broadcasting and types, boolean
#: refused too. Measured on openvino 2026.4.1 CPU (every type, 20,000 seeded pairs each in a probe and 4,000 in
#: tests/ops/test_promote_shift_conformance.py, amounts negative, 0, bits - 1, the width and more, 31, 32, 2^31, the
#: type's limits): every type is shifted in i32, its low 32 bits, by ``s & 31`` (x86's count), the result truncated
#: to the type, a 64-bit one's sign-extended: i8 ``1 << -1`` is 0, i8 ``40 << 4`` is -128, i8 ``-128 >> 100`` is -8,
#: i32 ``x << 32`` is x; ``>>`` is arithmetic on signed types and on u32 too (3653403231 >> 1 gives 3974185263).
#: Where the specification (C++ ``a << b``, ``a >> b`` in the type) defines the result, that is the CPU's on every
#: type of 16 bits or less, i32 and u32 ``<<`` (an amount out of [0, 32) it leaves undefined): the kernels compute
#: the CPU's there, bit for bit; and the specification's where the CPU departs from it: u32 ``>>`` logical, i64 and
#: u64 in 64 bits by ``s & 63`` (the CPU gives i64 ``1 << 40`` as 256, ``2^40 >> 8`` as 0). A Constant input the CPU
#: saturates into i32 first (a u32 of 2^31 or more, an i64 or u64 beyond i32: 2147483647 or -2147483648; both inputs
#: Constants, or one beside a fed one), where a fed one is taken in its low 32 bits.
BITWISE_LEFT_SHIFT_15 = _shift_spec("BitwiseLeftShift", left=True)
BITWISE_RIGHT_SHIFT_15 = _shift_spec("BitwiseRightShift", left=False)
