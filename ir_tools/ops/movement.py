"""Pad, Slice and StridedSlice: reference kernels (no shape rules yet: declared dims are trusted).

Values follow the OpenVINO op specification; checked against OpenVINO CPU by
tests/ops/test_support_kernels.py. What OpenVINO 2026.4.1 does that the specification does not say,
measured there:

- Pad-1 takes negative pads as Pad-12 does, on CPU: the input is padded first, then cropped, so a
  reflect pad at one end still mirrors elements that a negative pad crops at the other end. reflect
  needs pads < length, symmetric pads <= length.
- Slice-8 and StridedSlice-1 clamp as ONNX Slice does, not as Python: with a negative step a start
  before the first element reads the first element (Python reads nothing).
- StridedSlice-1: a shrink entry whose begin is masked takes index 0 (the CPU plugin; OpenVINO's
  evaluator takes begin[i] there, the specification does not say).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.errors import OpValidationError
from . import attrs as A
from .core import NoAttrs
from .spec import OpSpec


@dataclass(frozen=True, slots=True)
class PadAttrs:
    pad_mode: str = A.attr("pad_mode", A.enum("constant", "edge", "reflect", "symmetric"), "constant")


@dataclass(frozen=True, slots=True)
class StridedSliceAttrs:
    """Masks hold one 0/1 flag per entry of ``begin``; missing trailing flags are 0."""

    begin_mask: tuple[int, ...] = A.attr("begin_mask", A.UINT_LIST, ())
    end_mask: tuple[int, ...] = A.attr("end_mask", A.UINT_LIST, ())
    new_axis_mask: tuple[int, ...] = A.attr("new_axis_mask", A.UINT_LIST, ())
    shrink_axis_mask: tuple[int, ...] = A.attr("shrink_axis_mask", A.UINT_LIST, ())
    ellipsis_mask: tuple[int, ...] = A.attr("ellipsis_mask", A.UINT_LIST, ())


def _ints(value: np.ndarray) -> list[int]:
    return [int(v) for v in np.asarray(value).reshape(-1)]



def _pad(a: PadAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Pad with the non-negative pads, then crop by the negative ones (OpenVINO's order, see the module doc)."""
    mode = a.pad_mode
    x, begin, end = args[0], _ints(args[1]), _ints(args[2])
    A.per_axis("pads_begin", begin, x.ndim)
    A.per_axis("pads_end", end, x.ndim)
    limit = {"reflect": 0, "symmetric": 1}.get(mode)
    for axis, (n, b, e) in enumerate(zip(x.shape, begin, end, strict=True)):
        if limit is not None and max(b, e) >= n + limit:
            raise OpValidationError(f"{mode} pads {b}/{e} on axis {axis} of length {n} reach beyond the data")
    widths = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end, strict=True)]
    if mode == "constant":
        value = args[3].reshape(()) if len(args) > 3 else np.zeros((), x.dtype)
        y = np.pad(x, widths, constant_values=value.astype(x.dtype))
    else:
        y = np.pad(x, widths, mode=mode)
    crop = tuple(slice(max(-b, 0), max(0, n + min(e, 0))) for n, b, e in zip(y.shape, begin, end, strict=True))
    return [y[crop]]


def _slice(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = args[0]
    start, stop, step = (_ints(a) for a in args[1:4])
    axes = _ints(args[4]) if len(args) > 4 else list(range(len(start)))
    if not len(start) == len(stop) == len(step) == len(axes):
        raise OpValidationError(f"start, stop, step and axes have {len(start)}, {len(stop)}, {len(step)} and "
                                f"{len(axes)} values")
    index = [slice(None)] * x.ndim
    seen = set()
    for axis, b, e, s in zip(axes, start, stop, step, strict=True):
        if not -x.ndim <= axis < x.ndim or axis % x.ndim in seen:
            raise OpValidationError(f"axes {axes} must be distinct axes of a rank-{x.ndim} input")
        if s == 0:
            raise OpValidationError("step must not be 0")
        seen.add(axis % x.ndim)
        index[axis] = _bounds(b, e, s, x.shape[axis])
    return [x[tuple(index)]]


def _bounds(start: int, stop: int, step: int, n: int) -> slice:
    """Slice-8's clamping (ONNX's): a negative index counts from the end; then, for a negative step, start
    goes into [0, n-1] and stop into [-1, n-1] (Python would take a start below 0 as "nothing")."""
    start, stop = (v + n if v < 0 else v for v in (start, stop))
    if step > 0:
        return slice(min(max(start, 0), n), min(max(stop, 0), n), step)
    start, stop = min(max(start, 0), n - 1), min(max(stop, -1), n - 1)
    return slice(start, None if stop < 0 else stop, step) if n else slice(0, 0)


def _strided_slice(a: StridedSliceAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """A numpy basic index built from the masks. Per entry an ellipsis wins over a new axis, a new axis
    over shrink; entries after the ellipsis consume the last axes. Bounds are clamped as Slice-8's."""
    x, begin, end = args[0], _ints(args[1]), _ints(args[2])
    strides = _ints(args[3]) if len(args) > 3 else [1] * len(begin)
    if not len(begin) == len(end) == len(strides):
        raise OpValidationError(f"begin, end and strides have {len(begin)}, {len(end)} and {len(strides)} values")

    def flag(mask: tuple[int, ...], i: int) -> bool:
        return i < len(mask) and mask[i] != 0

    kinds = ["ellipsis" if flag(a.ellipsis_mask, i) else "new" if flag(a.new_axis_mask, i)
             else "shrink" if flag(a.shrink_axis_mask, i) else "slice" for i in range(len(begin))]
    consumers = [i for i, kind in enumerate(kinds) if kind in ("shrink", "slice")]
    if kinds.count("ellipsis") > 1 or len(consumers) > x.ndim:
        raise OpValidationError(f"the masks make {kinds.count('ellipsis')} ellipses and slice {len(consumers)} "
                                f"axes of a rank-{x.ndim} input")
    first = kinds.index("ellipsis") if "ellipsis" in kinds else len(kinds)
    after = [i for i in consumers if i > first]
    axis_of = {i: t for t, i in enumerate(i for i in consumers if i < first)}
    axis_of |= {i: x.ndim - len(after) + t for t, i in enumerate(after)}
    index: list[object] = []
    for i, kind in enumerate(kinds):
        if kind in ("ellipsis", "new"):
            index.append(Ellipsis if kind == "ellipsis" else None)
            continue
        n = x.shape[axis_of[i]]
        if kind == "shrink":
            at = 0 if flag(a.begin_mask, i) else begin[i]
            if not -n <= at < n:
                raise OpValidationError(f"shrink index {at} is outside an axis of length {n}")
            index.append(at)
            continue
        if strides[i] == 0:
            raise OpValidationError("strides must not be 0")
        bounds = _bounds(begin[i], end[i], strides[i], n)
        index.append(slice(None if flag(a.begin_mask, i) else bounds.start,
                           None if flag(a.end_mask, i) else bounds.stop, strides[i]))
    return [x[tuple(index)]]


PAD_1 = OpSpec("Pad", "Pad-1", PadAttrs, (3, 4), 1, kernel=_pad)
PAD_12 = OpSpec("Pad", "Pad-12", PadAttrs, (3, 4), 1, kernel=_pad)
SLICE_8 = OpSpec("Slice", "Slice-8", NoAttrs, (4, 5), 1, kernel=_slice)
STRIDED_SLICE_1 = OpSpec("StridedSlice", "StridedSlice-1", StridedSliceAttrs, (3, 4), 1, kernel=_strided_slice)
