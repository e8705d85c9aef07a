"""Transpose: shape rule and reference kernel.

Shape rules are OpenVINO's shape inference (src/core/shape_inference), interval bounds included
(ops/intervals.py), checked against the installed openvino by tests/ops/test_shaping_conformance.py; kernels are
checked there against OpenVINO CPU. Unlike Concat, Gather or Split, Transpose refuses negative axes
in its order (measured on OpenVINO 2026.4.1).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..base.errors import OpValidationError
from .core import NoAttrs
from .intervals import ANY, ZERO, compatible, dynamic, guarded, iv
from .operands import integral, ints
from .rounding import moves
from .spec import OpSpec, TensorType


def _order(raw: list[int], rank: int) -> list[int]:
    if not raw:
        return list(range(rank - 1, -1, -1))
    if sorted(raw) != list(range(rank)):
        raise OpValidationError(f"order {raw} is not a permutation of the {rank} axes of the input")
    return raw


def _transpose(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, order = inputs
    integral(order, "order")
    if order.shape is not None:
        if len(order.shape) != 1:
            raise OpValidationError(f"order must be 1-D, got rank {len(order.shape)}")
        rank = ANY if data.shape is None else (len(data.shape), len(data.shape))
        if not (compatible(iv(order.shape[0]), rank) or iv(order.shape[0]) == ZERO):
            raise OpValidationError(f"order has {order.shape[0]} values, the input has rank {rank[0]}")
    if values[1] is None:
        return [TensorType(data.element, None if data.shape is None else dynamic(len(data.shape)))]
    raw = ints(values[1])
    if data.shape is None:
        return [TensorType(data.element, dynamic(len(raw)))]
    return [TensorType(data.element, tuple(data.shape[i] for i in _order(raw, len(data.shape))))]


def _run_transpose(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, order = args
    return [np.transpose(x, _order(ints(order), x.ndim))]


# --- specs ------------------------------------------------------------------------------------------

TRANSPOSE_1 = OpSpec("Transpose", "Transpose-1", NoAttrs, (2, 2), 1, guarded(_transpose), _run_transpose, (1,),
                     rounding=moves(0))
