"""Reading an op's inputs as OpenVINO does: integer element types, value inputs (ints, bounds), axes
(``normalize_axis``) and the rank checks the shape rules share."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..base.dims import INT64_MAX, INT64_MIN, Shape
from ..base.dtypes import INTEGER_TYPES
from ..base.errors import OpValidationError
from .spec import TensorType


def integral(t: TensorType, what: str) -> None:
    """Refuse a non-integer index-like input (an unknown element type passes)."""
    if t.element is not None and t.element not in INTEGER_TYPES:
        raise OpValidationError(f"{what} must be of an integer element type, got {t.element}")


def ints(value: np.ndarray) -> list[int]:
    """The values as Python ints (floats truncated toward zero, as OpenVINO casts them)."""
    flat = np.asarray(value).reshape(-1)
    if flat.dtype.kind == "f":
        if not np.all(np.isfinite(flat)):
            raise OpValidationError(f"values {flat.tolist()} are not finite")
        flat = np.trunc(flat)
    return [int(v) for v in flat]


def bounds(value: np.ndarray) -> list[int]:
    """Values read as OpenVINO's bounds: an i32 minimum or maximum stands for the i64 one."""
    arr = np.asarray(value)
    out = ints(arr)
    if arr.dtype == np.int32:
        limits = {2**31 - 1: INT64_MAX, -(2**31): INT64_MIN}
        out = [limits.get(v, v) for v in out]
    return out


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    """OpenVINO's normalize_axis: ``axis`` in [-r, r - 1] with r = max(rank, 1) (a scalar takes [-1, 0]), made
    non-negative."""
    r = max(rank, 1)
    if not -r <= axis < r:
        raise OpValidationError(f"{what} {axis} is out of the range [{-r}, {r - 1}] of a rank-{rank} input")
    return axis + r if axis < 0 else axis


def outside_axis(indices: np.ndarray | None, data: Shape, axis: int | None, from_end: bool) -> int | None:
    """A Const index (``indices``) out of range along ``axis`` of every data of partial shape ``data``, or None: at or
    past the axis dim's largest length, or below minus that (``from_end`` False: below 0, an op that counts none
    from the end; ``axis`` None: only that is known). OpenVINO's CPU plugin refuses such an index when it runs (a
    scatter below -n writes outside the tensor): a rule on the file's constants, so never where the data may be empty,
    which CPU runs."""
    if indices is None or indices.size == 0 or indices.dtype.kind not in "iu" or not data or \
            any(d.lo == 0 for d in data):
        return None
    hi = data[axis % len(data)].hi if axis is not None and -len(data) <= axis < len(data) else None
    low, high = int(indices.min()), int(indices.max())
    lowest = -hi if from_end and hi is not None else None if from_end else 0
    if lowest is not None and low < lowest:
        return low
    return high if hi is not None and high >= hi else None


def scalar_axis(value: np.ndarray) -> int:
    """The one value of an axis input."""
    raw = ints(value)
    if len(raw) != 1:
        raise OpValidationError(f"axis has {len(raw)} values, expected one")
    return raw[0]


def not_scalar(shape: Shape, op: str) -> None:
    if shape is not None and len(shape) == 0:
        raise OpValidationError(f"{op} needs an input of rank 1 or more, got a scalar")


def rank1(t: TensorType, what: str) -> None:
    if t.shape is not None and len(t.shape) != 1:
        raise OpValidationError(f"{what} must be 1-D, got rank {len(t.shape)}")


def static_size(t: TensorType) -> int | None:
    """The element count of a fully static shape, else None."""
    if t.shape is None or not all(d.is_static for d in t.shape):
        return None
    return math.prod(d.lo for d in t.shape)


def same_elements(inputs: Sequence[TensorType]) -> str | None:
    """The one element type the inputs share (unknown ones aside); refused when they differ."""
    known = {t.element for t in inputs if t.element is not None}
    if len(known) > 1:
        raise OpValidationError(f"inputs of element types {', '.join(sorted(known))}: they must be equal")
    return known.pop() if known else None
