"""Numpy reference kernels for AvgPool-1/14/16 and AdaptiveAvgPool-8 with OpenVINO CPU's values.

Geometry (validation, effective pads, output lengths, divisors) comes from pool_geometry, so these
kernels agree with shape inference by construction. Values follow SEMANTICS.md sections 3 and 4:

- Sums accumulate in float64 and the result is cast back to the input dtype.
- Integer inputs are rounded half to even, as OpenVINO CPU does. A window with no tap inside the
  data gives NaN for float inputs (OpenVINO CPU; the OpenVINO reference gives 0) and 0 for integers.

Speed: each spatial axis is summed separately by adding one strided slice per kernel tap
(``tap_ranges`` says which windows each tap reaches, so the input is never padded), cheapest axis
order first; adaptive pooling is a product with one averaging matrix per axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations
from math import prod

import numpy as np

from ..errors import OpValidationError
from ..ir.dims import Dim
from .pool_geometry import AUTO_PADS, ROUNDING_TYPES, counts_padding, pool_geometry, tap_ranges, window_counts

__all__ = ["adaptive_avg_pool", "avg_pool"]


def _check_dtype(x: np.ndarray) -> None:
    if x.dtype.kind not in "fiu":
        raise TypeError(f"pooling needs a float or integer input, got {x.dtype}")


def _finish(acc: np.ndarray, divisor: np.ndarray | float, dtype: np.dtype) -> np.ndarray:
    """Divide float64 sums and cast to ``dtype``: 0/0 is NaN for floats, 0 for integers (as OpenVINO CPU)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        if dtype.kind == "f":
            return np.divide(acc, divisor, out=np.empty(acc.shape, dtype), casting="same_kind")
        np.divide(acc, divisor, out=acc)
    np.rint(acc, out=acc)
    acc[np.isnan(acc)] = 0
    return acc.astype(dtype)


def _axis_order(shape: Sequence[int], out: Sequence[int], kernel: Sequence[int]) -> tuple[int, ...]:
    """Spatial axis order with the fewest element additions (each pass touches the shrunken array)."""

    def cost(order: tuple[int, ...]) -> int:
        dims, total = list(shape), 0
        for i in order:
            dims[2 + i] = out[i]
            total += kernel[i] * prod(dims)
        return total

    return min(permutations(range(len(out))), key=cost)


def _axis_sum(src: np.ndarray, axis: int, ranges: list[tuple[int, int, int]], stride: int, out: int) -> np.ndarray:
    """Float64 sums over one axis: for each tap, add its strided slice into the windows it reaches."""
    shape = list(src.shape)
    shape[axis] = out
    lead = (slice(None),) * axis
    full = [r for r in ranges if r[0] == 0 and r[1] == out]
    if full:
        first = full[0]
        acc = np.empty(shape, np.float64)
        acc[...] = src[lead + (slice(first[2], first[2] + (out - 1) * stride + 1, stride),)]
    else:
        first = None
        acc = np.zeros(shape, np.float64)
    for r in ranges:
        lo, hi, start = r
        if r is first or hi <= lo:
            continue
        dst = acc[lead + (slice(lo, hi),)]
        np.add(dst, src[lead + (slice(start, start + (hi - lo - 1) * stride + 1, stride),)], out=dst)
    return acc


def avg_pool(
    x: np.ndarray,
    kernel: Sequence[int],
    strides: Sequence[int],
    pads_begin: Sequence[int],
    pads_end: Sequence[int],
    exclude_pad: bool,
    rounding_type: str = "floor",
    auto_pad: str = "explicit",
    dilations: Sequence[int] | None = None,
) -> np.ndarray:
    """AvgPool-1/14/16 on an (N, C, spatial...) array with 1 to 3 spatial axes, as OpenVINO CPU computes it.

    Raises OpValidationError for any attribute set OpenVINO rejects.
    """
    x = np.asarray(x)
    _check_dtype(x)
    if auto_pad not in AUTO_PADS:
        raise OpValidationError(f"auto_pad {auto_pad!r} is not one of {', '.join(AUTO_PADS)}")
    if rounding_type not in ROUNDING_TYPES:
        raise OpValidationError(f"rounding_type {rounding_type!r} is not one of {', '.join(ROUNDING_TYPES)}")
    dil = tuple(dilations) if dilations is not None else (1,) * len(kernel)
    geo = pool_geometry(
        tuple(Dim(n, n) for n in x.shape), kernel, strides, dil, pads_begin, pads_end, auto_pad, rounding_type,
        exclude_pad,
    )
    out = [d.lo for d in geo.spatial]
    lengths = x.shape[2:]
    acc = x
    for i in _axis_order(x.shape, out, kernel):
        ranges = tap_ranges(lengths[i], kernel[i], strides[i], dil[i], geo.pads_begin[i], out[i])
        acc = _axis_sum(acc, 2 + i, ranges, strides[i], out[i])
    if counts_padding(geo.pads_begin, geo.pads_end, exclude_pad):
        divisor: np.ndarray | float = float(prod(kernel))
    else:
        counts = [
            window_counts(lengths[i], kernel[i], strides[i], dil[i], geo.pads_begin[i], out[i]) for i in range(len(out))
        ]
        divisor = counts[0].astype(np.float64)
        for c in counts[1:]:
            divisor = np.multiply.outer(divisor, c)
        if np.all(divisor == prod(kernel)):
            divisor = float(prod(kernel))
    return _finish(acc, divisor, x.dtype)


def _bins(length: int, size: int) -> np.ndarray:
    """(size, length) averaging matrix of AdaptiveAvgPool bins [floor(i*L/O), ceil((i+1)*L/O))."""
    i = np.arange(size)
    start = (i * length) // size
    end = -((-(i + 1) * length) // size)
    j = np.arange(length)
    inside = (j >= start[:, None]) & (j < end[:, None])
    return inside / (end - start)[:, None]


def adaptive_avg_pool(x: np.ndarray, output_size: Sequence[int]) -> np.ndarray:
    """AdaptiveAvgPool-8 on an (N, C, spatial...) array; output bins may be smaller than one element (upsampling)."""
    x = np.asarray(x)
    _check_dtype(x)
    sizes = [int(v) for v in np.asarray(output_size).reshape(-1)]
    if x.ndim not in (3, 4, 5):
        raise OpValidationError(f"expected a 3-D, 4-D or 5-D input, got rank {x.ndim}")
    if len(sizes) != x.ndim - 2:
        raise OpValidationError(f"output_size has {len(sizes)} values, expected {x.ndim - 2}")
    if any(v < 0 for v in sizes):
        raise OpValidationError(f"output_size {sizes} has a negative value")
    acc = x.astype(np.float64)
    for axis in range(x.ndim - 1, 1, -1):
        m = _bins(x.shape[axis], sizes[axis - 2])
        if axis == acc.ndim - 1:
            acc = acc @ m.T
        else:
            rest = prod(acc.shape[axis + 1 :])
            acc = (m @ acc.reshape(prod(acc.shape[:axis]), acc.shape[axis], rest)).reshape(
                acc.shape[:axis] + (sizes[axis - 2],) + acc.shape[axis + 1 :]
            )
    return _finish(acc, 1.0, x.dtype)
