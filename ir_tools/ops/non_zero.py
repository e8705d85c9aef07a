"""NonZero-3: attributes, shape rule, reference kernel and rounding rule.

Checked against the installed openvino (shape rule and CPU kernel) by tests/ops/test_non_zero_conformance.py. Measured
on OpenVINO 2026.4.1:

- NonZero-3 is in opset3..16; data of any element type (boolean and dynamic included); ``output_type`` i64 (the
  default) or i32, any other refused.
- Shape inference: data of rank r >= 1 gives [r, 0..N], N the product of the dims' upper bounds (unbounded if one
  is; a static 0 where a dim's upper bound is 0); a scalar or a dynamic rank gives [?, ?].
- CPU gives the indices of the nonzero elements in row-major order, one row per dim (NaN is nonzero, -0 is zero); a
  scalar counts as of shape [1] ([1, 1] or [1, 0]).
- The output is indices: exact where the data are, unbounded where they may differ (``rounding.exact``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim
from . import attrs as A
from .intervals import INF, iv
from .rounding import exact
from .spec import OpSpec, TensorType


@dataclass(frozen=True, slots=True)
class NonZeroAttrs:
    output_type: str = A.attr("output_type", A.enum("i64", "i32"), "i64")


def _non_zero(a: NonZeroAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data = inputs[0]
    if data.shape is None or len(data.shape) == 0:
        return [TensorType(a.output_type, (DYNAMIC, DYNAMIC))]
    most = 1
    for d in data.shape:
        hi = iv(d)[1]
        if hi == 0:
            most = 0
            break
        most = INF if hi == INF or most == INF or most * hi >= INF else most * hi
    count = Dim(0, None if most == INF else most)
    return [TensorType(a.output_type, (Dim(len(data.shape), len(data.shape)), count))]


def _run_non_zero(a: NonZeroAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(args[0])
    found = np.nonzero(x.reshape(x.shape or (1,)))
    out = np.stack(found) if found else np.zeros((0, 0), np.int64)
    return [out.astype(np.int64 if a.output_type == "i64" else np.int32)]


NON_ZERO_3 = OpSpec("NonZero", "NonZero-3", NonZeroAttrs, (1, 1), 1, _non_zero, _run_non_zero, rounding=exact)
