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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError, UnsupportedError
from .arithmetic import BinaryAttrs, broadcast_shapes, broadcastable, merge_elements
from .core import NoAttrs
from .rounding import exact
from .spec import Kernel, OpSpec, TensorType


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
    return OpSpec(op, f"{op}-13", BinaryAttrs, (2, 2), 1, _binary_rule, _binary(fn), rounding=exact)


BITWISE_AND_13 = _binary_spec("BitwiseAnd", np.bitwise_and)
BITWISE_OR_13 = _binary_spec("BitwiseOr", np.bitwise_or)
BITWISE_XOR_13 = _binary_spec("BitwiseXor", np.bitwise_xor)
BITWISE_NOT_13 = OpSpec("BitwiseNot", "BitwiseNot-13", NoAttrs, (1, 1), 1, _not_rule, _not, rounding=exact)
