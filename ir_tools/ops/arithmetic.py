"""Add, Subtract, Multiply, Divide and ReLU: reference kernels (no shape rules yet: declared dims are trusted).

Checked against OpenVINO CPU by tests/ops/test_support_kernels.py. ReLU gives 0 for NaN and +0 for
-0 (``x > 0 ? x : 0``). Integer arithmetic follows the specification (and OpenVINO's own
evaluator), not the CPU plugin: Add, Subtract and Multiply wrap (CPU saturates i8/u8); Divide with
``m_pythondiv`` floors (CPU truncates, through f32) and refuses a zero divisor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .core import NoAttrs
from .spec import Kernel, OpSpec


@dataclass(frozen=True, slots=True)
class BinaryAttrs:
    auto_broadcast: str = A.attr("auto_broadcast", A.enum("none", "explicit", "numpy", "pdpd"), "numpy")


@dataclass(frozen=True, slots=True)
class DivideAttrs(BinaryAttrs):
    pythondiv: bool = A.attr("m_pythondiv", A.BOOL, True)


def _binary(ufunc: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Kernel:
    def run(a: BinaryAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, y = _broadcastable(a, args)
        with np.errstate(all="ignore"):
            return [np.asarray(ufunc(x, y))]

    return run


def _broadcastable(a: BinaryAttrs, args: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    x, y = args
    if x.dtype != y.dtype:
        raise OpValidationError(f"inputs of element types {x.dtype} and {y.dtype}: they must be equal")
    if a.auto_broadcast == "pdpd":
        raise UnsupportedError("auto_broadcast=pdpd is not supported by the reference")
    if a.auto_broadcast in ("none", "explicit") and x.shape != y.shape:
        raise OpValidationError(f"auto_broadcast={a.auto_broadcast} needs equal shapes, got {list(x.shape)} and "
                                f"{list(y.shape)}")
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise OpValidationError(f"shapes {list(x.shape)} and {list(y.shape)} do not broadcast") from None
    return x, y


def _divide(a: DivideAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, y = _broadcastable(a, args)
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


def _relu(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = args[0]
    return [np.where(x > 0, x, np.zeros((), x.dtype))]


ADD_1 = OpSpec("Add", "Add-1", BinaryAttrs, (2, 2), 1, kernel=_binary(np.add))
SUBTRACT_1 = OpSpec("Subtract", "Subtract-1", BinaryAttrs, (2, 2), 1, kernel=_binary(np.subtract))
MULTIPLY_1 = OpSpec("Multiply", "Multiply-1", BinaryAttrs, (2, 2), 1, kernel=_binary(np.multiply))
DIVIDE_1 = OpSpec("Divide", "Divide-1", DivideAttrs, (2, 2), 1, kernel=_divide)
RELU_1 = OpSpec("ReLU", "ReLU-1", NoAttrs, (1, 1), 1, kernel=_relu)
