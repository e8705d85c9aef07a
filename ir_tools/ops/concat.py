"""Concat: attributes, shape rule and reference kernel.

Shape rules are OpenVINO's shape inference (src/core/shape_inference), interval bounds included
(ops/intervals.py), checked against the installed openvino by tests/ops/test_shaping_conformance.py; kernels are
checked there against OpenVINO CPU. Concat accepts a negative axis (measured on OpenVINO 2026.4.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.errors import OpValidationError
from . import attrs as A
from .bounds import moved
from .intervals import ANY, ZERO, Iv, dadd, dims, guarded, is_empty, iv, meet
from .operands import normalize_axis, not_scalar, same_elements
from .rounding import moves
from .spec import OpSpec, TensorType


@dataclass(frozen=True, slots=True)
class ConcatAttrs:
    axis: int = A.attr("axis", A.INT, 0)


def _concat(a: ConcatAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    element = same_elements(inputs)
    out: list[Iv] | None = None
    total = ZERO
    axis = 0
    for t in inputs:
        if t.shape is None:
            total = dadd(total, ANY)
            continue
        not_scalar(t.shape, "Concat")
        axis = normalize_axis(a.axis, len(t.shape))
        total = dadd(total, iv(t.shape[axis]))
        this = [ANY if i == axis else iv(d) for i, d in enumerate(t.shape)]
        if out is None:
            out = this
            continue
        if len(out) != len(this):
            raise OpValidationError(f"inputs of ranks {len(out)} and {len(this)}: they must be equal")
        merged = [meet(x, y) for x, y in zip(out, this, strict=True)]
        if any(is_empty(m) for m in merged):
            raise OpValidationError(f"input dims differ off the concatenation axis {axis}")
        out = merged
    if out is None:
        return [TensorType(element, None)]
    out[axis] = total
    return [TensorType(element, dims(out))]


def _run_concat(a: ConcatAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    if len({x.dtype for x in args}) > 1:
        raise OpValidationError("inputs of different element types")
    if args[0].ndim == 0:
        raise OpValidationError("cannot concatenate scalars")
    axis = normalize_axis(a.axis, args[0].ndim)
    if any(x.ndim != args[0].ndim or x.shape[:axis] + x.shape[axis + 1:] != args[0].shape[:axis] +
           args[0].shape[axis + 1:] for x in args):
        raise OpValidationError(f"shapes {[list(x.shape) for x in args]} differ off axis {axis}")
    return [np.concatenate(args, axis=axis)]


# --- specs ------------------------------------------------------------------------------------------

MANY = 1 << 30  # Concat: any number of inputs

CONCAT_1 = OpSpec("Concat", "Concat-1", ConcatAttrs, (1, MANY), 1, guarded(_concat), _run_concat, rounding=moves(),
                  bounds=moved(_run_concat, None), float_bounds=True)
