"""Numpy kernels for the ops the rewrites emit around pooling: Pad, Slice, StridedSlice, convolutions,
element-wise arithmetic and ReLU.

They are kernels only, on purpose: an OpSpec would give them a shape rule, and ``check`` and ``shapes``
would start re-inferring these ops. Their declared dims stay trusted; the executor falls back to
``support_kernel`` when the registry has no kernel. A kernel takes the layer's raw attributes and its
input arrays and returns its output arrays, in the input's dtype, with the values of the OpenVINO op
specification. Checked against OpenVINO CPU by tests/ops/test_support_kernels.py; what OpenVINO 2026.4.1
does that the specification does not say, measured there:

- Pad-1 takes negative pads as Pad-12 does, on CPU: the input is padded first, then cropped, so a
  reflect pad at one end still mirrors elements that a negative pad crops at the other end. reflect
  needs pads < length, symmetric pads <= length.
- Slice-8 and StridedSlice-1 clamp as ONNX Slice does, not as Python: with a negative step a start
  before the first element reads the first element (Python reads nothing).
- StridedSlice-1: a shrink entry whose begin is masked takes index 0 (the CPU plugin; OpenVINO's
  evaluator takes begin[i] there, the specification does not say).
- ReLU gives 0 for NaN and +0 for -0 (``x > 0 ? x : 0``).
- Float results are IEEE-rounded from the exact value (float64 accumulation for convolutions).
- These types are read in opset1 to opset16 from their first version on; opset17 is refused.

Integer arithmetic follows the specification (and OpenVINO's own evaluator), not the CPU plugin:
Add, Subtract and Multiply wrap (CPU saturates i8/u8); Divide with ``m_pythondiv`` floors (CPU
truncates, through f32) and refuses a zero divisor.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np

from ..errors import OpValidationError, UnsupportedError
from . import attrs as A
from .pool_geometry import AUTO_PADS, dilated, same_pads
from .registry import opset_range

#: (raw IR attributes, input arrays) -> output arrays
Kernel = Callable[[Mapping[str, str], Sequence[np.ndarray]], list[np.ndarray]]


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


@dataclass(frozen=True, slots=True)
class ConvolutionAttrs:
    """Convolution-1 and GroupConvolution-1. Negative pads are refused: OpenVINO CPU cannot compile them."""

    strides: tuple[int, ...] = A.attr("strides", A.UINT_LIST)
    dilations: tuple[int, ...] = A.attr("dilations", A.UINT_LIST)
    pads_begin: tuple[int, ...] = A.attr("pads_begin", A.UINT_LIST, ())
    pads_end: tuple[int, ...] = A.attr("pads_end", A.UINT_LIST, ())
    auto_pad: str = A.attr("auto_pad", A.enum(*AUTO_PADS), "explicit")


@dataclass(frozen=True, slots=True)
class BinaryAttrs:
    auto_broadcast: str = A.attr("auto_broadcast", A.enum("none", "explicit", "numpy", "pdpd"), "numpy")


@dataclass(frozen=True, slots=True)
class DivideAttrs(BinaryAttrs):
    pythondiv: bool = A.attr("m_pythondiv", A.BOOL, True)


def _ints(value: np.ndarray) -> list[int]:
    return [int(v) for v in np.asarray(value).reshape(-1)]


def _per_axis(what: str, values: Sequence[int], rank: int) -> None:
    if len(values) != rank:
        raise OpValidationError(f"{what} has {len(values)} values, the input has rank {rank}")


def _pad(raw: Mapping[str, str], args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Pad with the non-negative pads, then crop by the negative ones (OpenVINO's order, see the module doc)."""
    mode = A.decode(PadAttrs, raw).pad_mode
    x, begin, end = args[0], _ints(args[1]), _ints(args[2])
    _per_axis("pads_begin", begin, x.ndim)
    _per_axis("pads_end", end, x.ndim)
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


def _slice(raw: Mapping[str, str], args: Sequence[np.ndarray]) -> list[np.ndarray]:
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


def _strided_slice(raw: Mapping[str, str], args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """A numpy basic index built from the masks. Per entry an ellipsis wins over a new axis, a new axis
    over shrink; entries after the ellipsis consume the last axes. Bounds are clamped as Slice-8's."""
    a = A.decode(StridedSliceAttrs, raw)
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


def convolution(x: np.ndarray, w: np.ndarray, groups: int, strides: Sequence[int], dilations: Sequence[int],
                pads_begin: Sequence[int], pads_end: Sequence[int]) -> np.ndarray:
    """Grouped convolution, weights [G*Cout/G, Cin/G, k...]; exact sums (float64, int64), in x's dtype.

    One einsum per kernel offset over a strided view of the padded input: numpy's cost is per pass,
    and there are prod(kernel) passes whatever the channel counts.
    """
    n_spatial = x.ndim - 2
    if w.ndim != x.ndim or not 1 <= n_spatial <= 3:
        raise OpValidationError(f"input rank {x.ndim} and weights rank {w.ndim}: expected both 3, 4 or 5")
    batch, channels = x.shape[:2]
    cout, cin, kernel = w.shape[0], w.shape[1], w.shape[2:]
    if channels != groups * cin or cout % groups:
        raise OpValidationError(f"{groups} group(s) of weights {list(w.shape)} do not fit {channels} input channels")
    acc = np.float64 if x.dtype.kind == "f" else np.int64
    padded = np.pad(x.astype(acc), [(0, 0), (0, 0), *zip(pads_begin, pads_end, strict=True)])
    out = [(n - dilated(k, d)) // s + 1
           for n, k, s, d in zip(padded.shape[2:], kernel, strides, dilations, strict=True)]
    if any(o < 1 for o in out):
        raise OpValidationError(f"the dilated kernel {list(kernel)} does not fit the padded input "
                                f"{list(padded.shape[2:])}")
    data = padded.reshape(batch, groups, cin, *padded.shape[2:])
    weights = w.astype(acc).reshape(groups, cout // groups, cin, *kernel)
    y = np.zeros((batch, groups, cout // groups, *out), acc)
    for offset in product(*(range(k) for k in kernel)):
        window = tuple(slice(o * d, o * d + (m - 1) * s + 1, s)
                       for o, d, m, s in zip(offset, dilations, out, strides, strict=True))
        y += np.einsum("ngc...,goc->ngo...", data[(..., *window)], weights[(..., *offset)])
    return y.reshape(batch, cout, *out).astype(x.dtype)


def _conv_kernel(grouped: bool) -> Kernel:
    def run(raw: Mapping[str, str], args: Sequence[np.ndarray]) -> list[np.ndarray]:
        a = A.decode(ConvolutionAttrs, raw)
        x, w = args
        if grouped:
            if w.ndim != x.ndim + 1:
                raise OpValidationError(f"GroupConvolution weights {list(w.shape)} need rank {x.ndim + 1}")
            groups, w = w.shape[0], w.reshape(w.shape[0] * w.shape[1], *w.shape[2:])
        else:
            groups = 1
        kernel, lengths = w.shape[2:], x.shape[2:]
        pads_begin = a.pads_begin or (0,) * len(kernel)
        pads_end = a.pads_end or (0,) * len(kernel)
        for what, values in (("strides", a.strides), ("dilations", a.dilations), ("pads_begin", pads_begin),
                             ("pads_end", pads_end)):
            _per_axis(what, values, len(kernel))
        if a.auto_pad == "valid":
            pads_begin = pads_end = (0,) * len(kernel)
        elif a.auto_pad in ("same_upper", "same_lower"):
            pads = [same_pads(n, k, s, d, a.auto_pad == "same_upper")
                    for n, k, s, d in zip(lengths, kernel, a.strides, a.dilations, strict=True)]
            pads_begin, pads_end = [b for b, _ in pads], [e for _, e in pads]
        return [convolution(x, w, groups, a.strides, a.dilations, pads_begin, pads_end)]

    return run


def _binary(ufunc: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Kernel:
    def run(raw: Mapping[str, str], args: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, y = _broadcastable(A.decode(BinaryAttrs, raw), args)
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


def _divide(raw: Mapping[str, str], args: Sequence[np.ndarray]) -> list[np.ndarray]:
    a = A.decode(DivideAttrs, raw)
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


def _relu(raw: Mapping[str, str], args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = args[0]
    return [np.where(x > 0, x, np.zeros((), x.dtype))]


_ALL = opset_range(1, 16)
_TABLE: dict[tuple[str, tuple[str, ...]], Kernel] = {
    ("pad", opset_range(1, 11)): _pad,
    ("pad", opset_range(12, 16)): _pad,
    ("slice", opset_range(8, 16)): _slice,
    ("stridedslice", _ALL): _strided_slice,
    ("convolution", _ALL): _conv_kernel(grouped=False),
    ("groupconvolution", _ALL): _conv_kernel(grouped=True),
    ("add", _ALL): _binary(np.add),
    ("subtract", _ALL): _binary(np.subtract),
    ("multiply", _ALL): _binary(np.multiply),
    ("divide", _ALL): _divide,
    ("relu", _ALL): _relu,
}
_BY_VERSION = {(op, opset): kernel for (op, opsets), kernel in _TABLE.items() for opset in opsets}


def support_kernel(layer_type: str, version: str | None) -> Kernel | None:
    """The kernel for a layer's type (case-insensitive, as OpenVINO reads it) and exact ``version``."""
    return _BY_VERSION.get((layer_type.lower(), version or ""))
