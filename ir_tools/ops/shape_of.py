"""ShapeOf-1 and ShapeOf-3: attributes, shape rule and reference kernel.

Shape rules are OpenVINO's shape inference (src/core/shape_inference), interval bounds included
(ops/intervals.py), checked against the installed openvino by tests/ops/test_shaping_conformance.py; kernels are
checked there against OpenVINO CPU.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.errors import OpValidationError
from . import attrs as A
from .core import ELEMENT, NoAttrs
from .rounding import EXACT
from .spec import OpSpec, TensorType


@dataclass(frozen=True, slots=True)
class ShapeOf3Attrs:
    output_type: str = A.attr("output_type", ELEMENT)


def _shape_of(a, inputs: Sequence[TensorType], values) -> list[TensorType]:
    et = getattr(a, "output_type", "i64")
    if et not in ("i32", "i64"):
        raise OpValidationError(f"output_type must be i32 or i64, got {et}")
    shape = inputs[0].shape
    return [TensorType(et, (DYNAMIC,) if shape is None else (Dim(len(shape), len(shape)),))]


def _run_shape_of(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    et = getattr(a, "output_type", "i64")
    if et not in ("i32", "i64"):
        raise OpValidationError(f"output_type must be i32 or i64, got {et}")
    return [np.array(args[0].shape, np.int32 if et == "i32" else np.int64)]


def _reads_no_values(kernel, a, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                     outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """A shape is exact whatever its input's values are."""
    return [EXACT]


# --- specs ------------------------------------------------------------------------------------------

SHAPE_OF_1 = OpSpec("ShapeOf", "ShapeOf-1", NoAttrs, (1, 1), 1, _shape_of, _run_shape_of, rounding=_reads_no_values)
SHAPE_OF_3 = OpSpec("ShapeOf", "ShapeOf-3", ShapeOf3Attrs, (1, 1), 1, _shape_of, _run_shape_of,
                    rounding=_reads_no_values)
