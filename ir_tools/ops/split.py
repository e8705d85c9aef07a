"""Split and VariadicSplit: attributes, shape rules and reference kernels.

Shape rules are OpenVINO's shape inference (src/core/shape_inference), interval bounds included
(ops/intervals.py), checked against the installed openvino by tests/ops/test_shaping_conformance.py; kernels are
checked there against OpenVINO CPU. Measured on OpenVINO 2026.4.1, beyond its specification:

- Both accept a negative axis.
- Split of an interval dim computes each bound as bound * (1.0f / num_splits) in single precision
  (29999999..30000001 in 3 is 10000000, not 9999999..10000000).
- A VariadicSplit whose split_lengths has a dynamic shape has no outputs at all in OpenVINO: the rule
  answers None there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.errors import OpValidationError
from . import attrs as A
from .bounds import Bounds, moved
from .core import NoAttrs
from .intervals import INF, Iv, contains, dynamic, guarded, is_static, iv
from .operands import integral, ints, normalize_axis, not_scalar, scalar_axis
from .rounding import moves
from .spec import OpSpec, TensorType

# --- Split and VariadicSplit ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SplitAttrs:
    num_splits: int = A.attr("num_splits", A.UINT)


def _split(a: SplitAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, axis_t = inputs
    n = a.num_splits
    if n <= 0:
        raise OpValidationError("num_splits must be positive")
    integral(axis_t, "axis")
    if axis_t.shape is not None and len(axis_t.shape) != 0:
        raise OpValidationError(f"axis must be a scalar, got rank {len(axis_t.shape)}")
    shape = data.shape
    if values[1] is None or shape is None:
        return [TensorType(data.element, None if shape is None else dynamic(len(shape)))] * n
    not_scalar(shape, "Split")
    axis = normalize_axis(scalar_axis(values[1]), len(shape))
    d = iv(shape[axis])
    if is_static(d):
        if d[0] % n:
            raise OpValidationError(f"the axis has length {d[0]}, not divisible by num_splits {n}")
        part = Dim(d[0] // n, d[0] // n)
    else:
        if d[1] < n:
            raise OpValidationError(f"the axis has length {shape[axis]}, less than num_splits {n}")
        part = Dim(_f32_part(d[0], n), None if d[1] == INF else _f32_part(d[1], n))
    out = shape[:axis] + (part,) + shape[axis + 1:]
    return [TensorType(data.element, out)] * n


def _f32_part(length: int, n: int) -> int:
    """OpenVINO's bound of an interval dim split in n: length * (1.0f / n), in single precision, truncated."""
    return int(np.float32(length) * (np.float32(1) / np.float32(n)))


def _run_split(a: SplitAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, axis = args
    axis = normalize_axis(scalar_axis(axis), x.ndim)
    if a.num_splits <= 0 or x.shape[axis] % a.num_splits:
        raise OpValidationError(f"axis of length {x.shape[axis]} cannot be split in {a.num_splits}")
    return list(np.split(x, a.num_splits, axis=axis))


def _lengths(raw: list[int], dim: Iv) -> list[int]:
    """Split lengths with the -1 resolved when the axis is static (left -1 otherwise): what the others leave, as
    OpenVINO's Dimension of it where they add up to more than the axis, which it then accepts (measured on 2026.4.1:
    [7,3,4,-1] of a 5 gives [7],[3],[4],[0], and [4,-1] of a 3 gives [4],[?]: -1 is a dynamic dim, another negative
    length 0; tests/passes/test_value_bounds.py)."""
    if any(v < -1 for v in raw):
        raise OpValidationError(f"split lengths {raw} hold a value below -1")
    if raw.count(-1) > 1:
        raise OpValidationError(f"split lengths {raw} hold more than one -1")
    total = sum(v for v in raw if v != -1)
    out = list(raw)
    if is_static(dim):
        if -1 in raw:
            left = dim[0] - total
            out[raw.index(-1)] = left if left >= -1 else 0
        elif total != dim[0]:
            raise OpValidationError(f"split lengths {raw} do not add up to the axis length {dim[0]}")
    return out


def _variadic_split(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    """VariadicSplit-1; an axis or split_lengths OpenVINO bounds but does not know it reads as unknown (measured on
    2026.4.1: lengths ``[2..10, -1]`` or ``[3, 2..10]`` of a 30 give ``?`` twice, a bounded axis ``?`` in every
    dim)."""
    values = [None if isinstance(v, Bounds) else v for v in values]
    data, axis_t, lengths_t = inputs
    integral(axis_t, "axis")
    integral(lengths_t, "split_lengths")
    if axis_t.shape is not None and not (len(axis_t.shape) == 0 or
                                         (len(axis_t.shape) == 1 and contains(iv(axis_t.shape[0]), 1))):
        raise OpValidationError("axis must be a scalar or of shape [1]")
    if lengths_t.shape is None or not all(d.is_static for d in lengths_t.shape):
        return None  # OpenVINO does not know how many outputs there are
    if len(lengths_t.shape) != 1:
        raise OpValidationError(f"split_lengths must be 1-D, got rank {len(lengths_t.shape)}")
    count = lengths_t.shape[0].lo
    shape = data.shape
    if shape is None or values[1] is None:
        return [TensorType(data.element, None if shape is None else dynamic(len(shape)))] * count
    not_scalar(shape, "VariadicSplit")
    axis = normalize_axis(scalar_axis(values[1]), len(shape))
    if values[2] is None:
        return [TensorType(data.element, shape[:axis] + (DYNAMIC,) + shape[axis + 1:])] * count
    lengths = _lengths(ints(values[2]), iv(shape[axis]))
    return [TensorType(data.element, shape[:axis] + (DYNAMIC if n == -1 else Dim(n, n),) + shape[axis + 1:])
            for n in lengths]


def _run_variadic_split(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, axis, lengths = args
    axis = normalize_axis(scalar_axis(axis), x.ndim)
    sizes = _lengths(ints(lengths), (x.shape[axis], x.shape[axis]))
    return list(np.split(x, np.cumsum(sizes)[:-1], axis=axis)) if sizes else []


# --- specs ------------------------------------------------------------------------------------------

# (bounds, measured on 2026.4.1: each output the split of the lower and of the upper bounds, axis and lengths known)
SPLIT_1 = OpSpec("Split", "Split-1", SplitAttrs, (2, 2), -1, guarded(_split), _run_split, (1,), rounding=moves(0),
                 bounds=moved(_run_split))
VARIADIC_SPLIT_1 = OpSpec("VariadicSplit", "VariadicSplit-1", NoAttrs, (3, 3), -1, guarded(_variadic_split),
                          _run_variadic_split, (1, 2), rounding=moves(0), reads_bounds=True,
                          bounds=moved(_run_variadic_split))
