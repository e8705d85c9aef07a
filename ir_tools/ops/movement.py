"""Pad, Slice, StridedSlice, Roll and Reverse: shape rules and reference kernels.

Values follow the OpenVINO op specification; checked against OpenVINO CPU by
tests/ops/test_support_kernels.py. The shape rules are OpenVINO's shape inference (interval bounds
included, ops/intervals.py), checked by tests/ops/test_shaping_conformance.py; like every rule they
read a value input None as unknown to OpenVINO too (a Parameter feeds it). What OpenVINO 2026.4.1
does that the specification does not say, measured there:

- Pad-1 takes negative pads as Pad-12 does, on CPU: the input is padded first, then cropped, so a
  reflect pad at one end still mirrors elements that a negative pad crops at the other end. reflect
  needs pads < length, symmetric pads <= length.
- Slice-8 and StridedSlice-1 clamp as ONNX Slice does, not as Python: with a negative step a start
  before the first element reads the first element (Python reads nothing).
- StridedSlice-1: a shrink entry whose begin is masked takes index 0 (the CPU plugin; OpenVINO's
  evaluator takes begin[i] there, the specification does not say, and so does a layer OpenVINO folds, its data
  known too: ``_evaluated_strided_slice`` is the ``folded`` kernel, which the shape walk reads). A shrink begin
  outside its axis of length n, fed when the model runs or beside a dynamic dim (a Const one on a static dim CPU refuses
  to compile: ``_shrink_out_of_range``), is clamped into [0, n - 1] after counting a negative one from
  the end (7 and -7 of 3 take 2 and 0); on an axis of length 0 CPU gives arbitrary values.
- Shape inference reads an i32 begin, end, start, stop or pad equal to the i32 minimum or maximum as
  the i64 one (so 2147483647 is "to the end" of an unbounded dim). A pad that makes a static dim
  negative gives a dynamic dim, not an error. Slice with unknown start/stop/step of static length n and
  no axes slices the first n dims only (each becomes 0..its maximum).
- Reverse-1 (opset1 only): ``mode`` in any case, "index" where omitted. Index axes named twice reverse once; CPU (its
  reference) reads a negative one from the end (-1 of rank 3 is 2) and refuses one outside [-r, r - 1] when it runs,
  where shape inference reads a negative one as 0 (so -5 of rank 3 passes it). Empty axes copy the data. Bit for bit
  on 60 seeded cases (six element types, rank 1 to 4, both modes, axes Const and fed).
- StridedSlice with a begin or end OpenVINO knows nothing of (no bounds: a Parameter's data, a Floor of a dim not
  static) slices an axis its mask does not set to 0..ceil(max / |stride|), whatever the other of begin and end
  says (a dim of 10 by stride 2 is 0..5, by stride 1 and an end of 0 0..10; an unbounded one stays so), as if both
  were any i64; strides not known make each sliced dim 0..max. Where the mask of such a begin or end sets a sliced
  axis, the rule declines: OpenVINO takes the default at some such axes and not at others (a Parameter's begin,
  begin_mask [1, 1, 1] and end [3, 2, 1] slice [10, 10, 10] to [3, 2, ..10]), by a rule not found. Its
  ellipsis then counts no new axis after it (the new axes are counted from begin's length only where begin is
  known: ``[4,5,6,7]`` with ellipsis, a sliced axis and a new axis is ``[4,5,..6,1,7]``). A stride of 0 is refused
  all the same. Measured on 2026.4.1.
- Values OpenVINO bounds (ops/bounds.py): Slice's start and stop, StridedSlice's begin and end and Pad's pads are read
  as their bounds (``get_input_bounds``: a start of ``[2..10]`` on a dim of 10 is ``..8``); Slice's step and axes and
  StridedSlice's strides only as constants (bounded ones slice every dim to 0..its maximum, as Slice's rule does;
  StridedSlice's declines, as for unknown ones). Slice and StridedSlice of a shape vector, their other inputs known,
  bound their outputs by slicing the lower and the upper bounds (the bounds of ``[?,3,2..10,4..,..6]`` sliced 4:0:-1
  are ``[..6,4..,2..10,3]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, INT64_MAX, INT64_MIN, Dim
from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError
from . import attrs as A
from .bounds import Bounds, NoBounds, moved, pairs
from .core import NoAttrs
from .intervals import Iv, compatible, contains, dim_of, guarded, iv
from .operands import bounds, integral, normalize_axis
from .rounding import moves
from .spec import OpSpec, TensorType, never


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
class ReverseAttrs:
    mode: str = A.attr("mode", A.enum("index", "mask"), "index")


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


def _flag(mask: tuple[int, ...], i: int) -> bool:
    return i < len(mask) and mask[i] != 0


def _entries(a: StridedSliceAttrs, count: int, rank: int) -> list[tuple[str, int | None]]:
    """Per entry of begin (``count``), its kind (ellipsis, new, shrink or slice: per entry an ellipsis wins over a
    new axis, a new axis over shrink) and the input axis it consumes (shrink and slice; entries after the ellipsis
    consume the last axes)."""
    kinds = ["ellipsis" if _flag(a.ellipsis_mask, i) else "new" if _flag(a.new_axis_mask, i)
             else "shrink" if _flag(a.shrink_axis_mask, i) else "slice" for i in range(count)]
    consumers = [i for i, kind in enumerate(kinds) if kind in ("shrink", "slice")]
    if kinds.count("ellipsis") > 1 or len(consumers) > rank:
        raise OpValidationError(f"the masks make {kinds.count('ellipsis')} ellipses and slice {len(consumers)} "
                                f"axes of a rank-{rank} input")
    first = kinds.index("ellipsis") if "ellipsis" in kinds else len(kinds)
    after = [i for i in consumers if i > first]
    axis_of = {i: t for t, i in enumerate(i for i in consumers if i < first)}
    axis_of |= {i: rank - len(after) + t for t, i in enumerate(after)}
    return [(kind, axis_of.get(i)) for i, kind in enumerate(kinds)]


def _strided_slice(a: StridedSliceAttrs, args: Sequence[np.ndarray], evaluator: bool = False) -> list[np.ndarray]:
    """A numpy basic index built from the masks (``_entries``). Bounds are clamped as Slice-8's, a shrink index as
    CPU clamps it (the module doc); ``evaluator``: a masked shrink entry takes its begin, as OpenVINO's evaluator does
    (its constant folding and bounds, measured on 2026.4.1: begin 2 masked of ``[10,20,30,40]`` is 30, -1 40)."""
    _check_masks(a)
    x, begin, end = args[0], _ints(args[1]), _ints(args[2])
    strides = _ints(args[3]) if len(args) > 3 else [1] * len(begin)
    if not len(begin) == len(end) == len(strides):
        raise OpValidationError(f"begin, end and strides have {len(begin)}, {len(end)} and {len(strides)} values")
    index: list[object] = []
    for i, (kind, axis) in enumerate(_entries(a, len(begin), x.ndim)):
        if kind in ("ellipsis", "new"):
            index.append(Ellipsis if kind == "ellipsis" else None)
            continue
        n = x.shape[axis]
        if kind == "shrink":
            at = 0 if _flag(a.begin_mask, i) and not evaluator else begin[i]
            if n == 0:  # (CPU reads memory outside the data there: its values are arbitrary)
                raise OpValidationError(f"shrink index {at} of an axis of length 0")
            index.append(min(max(at + n if at < 0 else at, 0), n - 1))
            continue
        if strides[i] == 0:
            raise OpValidationError("strides must not be 0")
        bounds = _bounds(begin[i], end[i], strides[i], n)
        index.append(slice(None if _flag(a.begin_mask, i) else bounds.start,
                           None if _flag(a.end_mask, i) else bounds.stop, strides[i]))
    return [x[tuple(index)]]


def _evaluated_strided_slice(a: StridedSliceAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """StridedSlice as OpenVINO's evaluator computes it."""
    return _strided_slice(a, args, evaluator=True)


def _strided_slice_bounds(a: StridedSliceAttrs, inputs: Sequence[Bounds]) -> list[Bounds] | NoBounds | None:
    """StridedSlice's bounds, measured on 2026.4.1: its evaluator's slice of the lower and of the upper bounds
    (begin, end and strides known; a negative stride reverses both alike). None where a shrink entry's begin is
    outside its axis, which the evaluator refuses (the kernel clamps it as CPU does)."""
    data, begin = inputs[0], inputs[1]
    try:
        entries = _entries(a, begin.lo.size, data.lo.ndim)
    except OpValidationError:
        return None
    for i, (kind, axis) in enumerate(entries):
        if kind == "shrink" and not -data.lo.shape[axis] <= int(begin.lo.reshape(-1)[i]) < data.lo.shape[axis]:
            return None
    return moved(_evaluated_strided_slice)(a, inputs)


def _shrink_out_of_range(a: StridedSliceAttrs, inputs: Sequence[TensorType], values) -> str | None:
    """A shrink entry whose Const begin is outside its axis, on data of a static shape: OpenVINO's CPU plugin refuses
    to compile it (its slice plan: "begin >= -(int64_t(input_shape[i_in])) && begin < ..."), its begin_mask
    notwithstanding (measured on 2026.4; on a dynamic shape it runs, clamping)."""
    shape, begin = inputs[0].shape, values[1]
    if begin is None or shape is None or not all(d.is_static for d in shape):
        return None
    try:
        entries = _entries(a, begin.size, len(shape))
    except OpValidationError:  # (the shape rule's to report)
        return None
    for i, (kind, axis) in enumerate(entries):
        n, at = (shape[axis].lo, int(begin.reshape(-1)[i])) if kind == "shrink" else (0, 0)
        if kind == "shrink" and not -n <= at < n:
            return (f"shrink entry {i}: begin {at} is outside axis {axis} of length {n}: OpenVINO CPU refuses to "
                    f"compile it{' (begin_mask notwithstanding)' if _flag(a.begin_mask, i) else ''}")
    return None


# --- shape rules ------------------------------------------------------------------------------------


def _vector(t: TensorType, what: str) -> None:
    if t.shape is not None and len(t.shape) != 1:
        raise OpValidationError(f"{what} must be 1-D, got rank {len(t.shape)}")


def _wrap(value: int) -> int:
    """int64 arithmetic as C++ does it (pads of the i64 limits overflow)."""
    return (value + 2**63) % 2**64 - 2**63


def _padded(length: int, pad: int) -> int:
    """OpenVINO's dim::padded on a bound: -1 (unbounded) stays, a negative result becomes unbounded too."""
    total = _wrap(length + pad)
    return -1 if length == -1 or total < 0 else total


def _pad_infer(a: PadAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """Pad-1 and Pad-12; pads read as OpenVINO's bounds (``get_input_bounds``), measured on 2026.4.1: each dim padded
    by the pads' lower bounds at its lower bound and by their upper ones at its upper bound (a negative result
    unbounded), unbounded where a pad is bounded [0, unbounded]; the modes' checks on a static dim read the lower
    bounds."""
    data, begin_t, end_t = inputs[:3]
    integral(begin_t, "pads_begin")
    integral(end_t, "pads_end")
    if a.pad_mode == "constant" and len(inputs) == 4 and inputs[3].shape is not None and len(inputs[3].shape):
        raise OpValidationError(f"pad_value must be a scalar, got rank {len(inputs[3].shape)}")
    _vector(begin_t, "pads_begin")
    _vector(end_t, "pads_end")
    shape = data.shape
    if shape is None:
        return [TensorType(data.element, None)]
    if values[1] is None or values[2] is None:
        for t, what in ((begin_t, "pads_begin"), (end_t, "pads_end")):
            if t.shape is not None and t.shape[0].is_static and t.shape[0].lo > len(shape):
                raise OpValidationError(f"{what} has {t.shape[0].lo} values, the input has rank {len(shape)}")
        return [TensorType(data.element, (DYNAMIC,) * len(shape))]
    begin, end = pairs(values[1], begin_t.element), pairs(values[2], end_t.element)
    A.per_axis("pads_begin", begin, len(shape))
    A.per_axis("pads_end", end, len(shape))
    out = []
    for axis, (d, bs, es) in enumerate(zip(shape, begin, end, strict=True)):
        (b, b_hi), (e, e_hi) = bs, es
        mode, n = a.pad_mode, d.lo
        if d.is_static:
            if (b > 0 or e > 0) and ((mode == "edge" and n < 1) or (mode == "reflect" and n < 2)):
                raise OpValidationError(f"{mode} padding needs a longer axis {axis} than {n}")
            if (mode == "reflect" and not (b < n and e < n)) or (mode == "symmetric" and not (b <= n and e <= n)):
                raise OpValidationError(f"{mode} pads {b}/{e} on axis {axis} of length {n} reach beyond the data")
        diff, diff_hi = _wrap(b + e), _wrap(b_hi + e_hi)
        if diff == 0 and diff_hi == 0:
            out.append(d)
            continue
        hi = -1 if _unbounded_pad(bs) or _unbounded_pad(es) else _padded(-1 if d.hi is None else d.hi, diff_hi)
        out.append(dim_of(_padded(d.lo, diff), hi))
    return [TensorType(data.element, tuple(out))]


def _unbounded_pad(pad: tuple[int, int]) -> bool:
    """OpenVINO's pad::is_inf_padding: a pad bounded [0, unbounded] leaves the padded dim unbounded."""
    return pad[0] == 0 and pad[1] in (-1, INT64_MAX)


def _sliced_value(dim: int, start: int, stop: int, step: int) -> int:
    """OpenVINO's slice::get_sliced_value: the length of [start, stop) by step on a dim of length ``dim``
    (-1 unbounded); -1 for an unbounded result."""
    reverse = step < 0
    norm = INT64_MAX if dim == -1 else dim
    norm_max = norm == INT64_MAX
    start_neg = start < 0
    diff_sign = start_neg != (stop < 0)
    start_max = start == INT64_MAX
    start_limit = start_max or start == INT64_MIN
    stop_max = stop == INT64_MAX
    any_max = start_max or stop_max
    if norm_max and (diff_sign or any_max or start_limit):
        if reverse:
            ub = -1 if start_neg or any_max else -1 - start
        elif start_neg and not start_limit:
            ub = -start if stop_max else stop
        else:
            ub = -1
        lb = 0
    else:
        lower_max, upper_min = (norm - 1, -1) if reverse else (norm, 0)
        lb = min(max(start + norm if start < 0 else start, 0), lower_max)
        ub = min(max(stop + norm if stop < 0 else stop, upper_min), norm)
    if norm_max and lb == 0 and ub == -1:
        return -1
    length = min(0, ub - lb) if reverse else max(0, ub - lb)
    if step == -1:
        return -length
    if length != 0 and step != 1:
        length = length + 1 if reverse else length - 1
        q = abs(length) // abs(step)
        return (q if (length >= 0) == (step > 0) else -q) + 1
    return length


def _make_dim(d: Dim, start: Iv, stop: Iv, step: int) -> Dim:
    """OpenVINO's slice::make_dim for bounds of start and stop."""
    lo_len, hi_len = d.lo, -1 if d.hi is None else d.hi

    def within(b: int, upper: bool) -> bool:
        return hi_len == -1 or (b < hi_len if upper else b + hi_len >= 0)

    def corners(b: Iv) -> Iv:
        crossing = b[0] < 0 <= b[1]
        return (0 if crossing and within(b[0], False) else b[0], -1 if crossing and within(b[1], True) else b[1])

    start_lb, start_ub = corners(start)
    stop_lb, stop_ub = corners(stop)
    if step > 0:
        lb, ub = _sliced_value(lo_len, start_ub, stop_lb, step), _sliced_value(hi_len, start_lb, stop_ub, step)
    else:
        lb, ub = _sliced_value(lo_len, start_lb, stop_ub, step), _sliced_value(hi_len, start_ub, stop_lb, step)
    return dim_of(lb, ub)


def _upto(d: Dim) -> Dim:
    """Any length up to the dim's maximum."""
    return Dim(0, d.hi)


def _constant(value: np.ndarray | Bounds | None) -> list[int] | None:
    """A value input OpenVINO reads as a constant only (``get_input_const_data_as``: Slice's step and axes,
    StridedSlice's strides): its values (i32 limits as i64's), None where not known exactly (bounds it does not
    read)."""
    return None if value is None or isinstance(value, Bounds) else bounds(value)


def slice_infer(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """Slice-8; start and stop read as OpenVINO's bounds (``get_input_bounds``), step and axes as constants only
    (measured on 2026.4.1: a bounded step or axes slices every dim to 0..its maximum, as an unknown one)."""
    data = inputs[0]
    names = ("start", "stop", "step", "axes")
    for t, what in zip(inputs[1:], names, strict=False):
        integral(t, what)
    shape = data.shape
    if shape is None:
        return [TensorType(data.element, None)]
    if not shape:
        raise OpValidationError("data must not be a scalar")
    for t, what in zip(inputs[1:], names, strict=False):
        _vector(t, what)
        if t.shape is not None and t.shape[0].lo > len(shape):
            raise OpValidationError(f"{what} has {t.shape[0]} values, more than the input rank {len(shape)}")
    lengths = [None if t.shape is None else iv(t.shape[0]) for t in inputs[1:]]
    if any(x is not None and y is not None and not compatible(x, y) for x in lengths[:3] for y in lengths[:3]):
        raise OpValidationError("start, stop and step have different lengths")
    start, stop = (None if v is None else pairs(v, t.element) for v, t in zip(values[1:3], inputs[1:3], strict=True))
    steps = _constant(values[3])
    axis_map: dict[int, int] | None = None
    if len(inputs) > 4:
        if lengths[3] is not None and lengths[0] is not None and not compatible(lengths[3], lengths[0]):
            raise OpValidationError("axes and start have different lengths")
        if (given := _constant(values[4])) is not None:
            axes = [normalize_axis(v, len(shape)) for v in given]
            if len(set(axes)) != len(axes):
                raise OpValidationError(f"axes {axes} must be unique")
            axis_map = {axis: i for i, axis in enumerate(axes)}
    elif start is not None:
        axis_map = {i: i for i in range(len(start))}
    elif lengths[0] is not None and lengths[0][0] == lengths[0][1]:
        axis_map = {i: i for i in range(lengths[0][0])}
    out = []
    for axis, d in enumerate(shape):
        if axis_map is None:
            out.append(_upto(d))
        elif axis not in axis_map:
            out.append(d)
        elif start is not None and stop is not None and steps is not None:
            i = axis_map[axis]
            if steps[i] == 0:
                raise OpValidationError("step must not be 0")
            out.append(_make_dim(d, start[i], stop[i], steps[i]))
        else:
            out.append(_upto(d))
    return [TensorType(data.element, tuple(out))]


#: The bounds of a begin or end OpenVINO knows nothing of: any i64.
_ANY_INDEX: Iv = (INT64_MIN, INT64_MAX)


def _check_masks(a: StridedSliceAttrs) -> None:
    """OpenVINO's checks of the masks: flags 0 or 1, and each mask empty or as long as begin_mask."""
    masks = (a.begin_mask, a.end_mask, a.new_axis_mask, a.shrink_axis_mask, a.ellipsis_mask)
    if any(f not in (0, 1) for mask in masks for f in mask):
        raise OpValidationError("mask flags must be 0 or 1")
    if any(mask and len(mask) != len(a.begin_mask) for mask in masks):
        raise OpValidationError(f"masks of lengths {[len(m) for m in masks]}: each must be empty or as long as "
                                "begin_mask")


def _strided_slice_infer(a: StridedSliceAttrs, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    _check_masks(a)
    data = inputs[0]
    for t, what in zip(inputs[1:], ("begin", "end", "strides"), strict=False):
        integral(t, what)
        _vector(t, what)
    shape = data.shape
    if shape is None:
        return [TensorType(data.element, None)]
    rank = len(shape)

    def count(t: TensorType) -> int:
        return -1 if t.shape is None or not t.shape[0].is_static else t.shape[0].lo

    begin, end = (None if v is None else pairs(v, t.element) for v, t in zip(values[1:3], inputs[1:3], strict=True))
    n, n_end = count(inputs[1]), count(inputs[2])
    if len(inputs) > 3:
        strides = _constant(values[3])
    elif n != -1 or n_end != -1:  # OpenVINO makes default strides, ones as long as begin (else end)
        strides = [1] * (n if n != -1 else n_end)
    elif inputs[1].shape is None:
        raise OpValidationError("begin must be 1-D: default strides need a known rank of begin")
    else:
        strides = None
    if n != -1 and n_end != -1:
        if n != n_end:
            raise OpValidationError(f"begin has {n} values, end {n_end}")
    elif n_end != -1:
        n = n_end
    n_strides = -1 if strides is None else len(strides)
    if n != -1 and n_strides != -1:
        if n != n_strides:
            raise OpValidationError(f"strides has {n_strides} values, begin and end {n}")
    elif n_strides != -1:
        n = n_strides
    if n < 0:
        return [TensorType(data.element, None)]

    def flags(mask: tuple[int, ...]) -> set[int]:
        return {i for i, f in enumerate(mask) if f == 1}

    ellipsis, new_axis = flags(a.ellipsis_mask), flags(a.new_axis_mask)
    begin_mask, end_mask, shrink = flags(a.begin_mask), flags(a.end_mask), flags(a.shrink_axis_mask)
    if len(ellipsis) > 1:
        raise OpValidationError("ellipsis_mask sets more than one ellipsis")
    if not ellipsis and rank + len(new_axis) < n:
        raise OpValidationError(f"{n} begin/end values exceed the input rank {rank} plus {len(new_axis)} new axes")
    sliced = {axis for axis in range(n) if axis not in ellipsis | new_axis | shrink}
    if begin is None and not begin_mask.isdisjoint(sliced) or end is None and not end_mask.isdisjoint(sliced):
        return None  # (OpenVINO reads such a mask as set at some axes only, in ways not modelled here)
    out: list[Dim] = []
    k = 0  # the input axis next consumed

    def take() -> Dim:
        if k >= rank:
            raise OpValidationError(f"the masks consume more axes than the input's {rank}")
        return shape[k]

    for axis in range(n):
        if axis in ellipsis:
            before = sum(1 for i in range(axis) if i not in new_axis)
            new_after = 0 if begin is None else sum(1 for i in range(axis + 1, len(begin)) if i in new_axis)
            hidden = rank - (n - axis - new_after - 1) - before
            for _ in range(max(hidden, 0)):
                out.append(take())
                k += 1
        elif axis in new_axis:
            out.append(Dim(1, 1))
        elif axis in shrink:
            take()
            k += 1
        elif strides is None:
            out.append(_upto(take()))
            k += 1
        else:
            d = take()
            stride = strides[axis] if axis < len(strides) else 1
            if stride == 0:
                raise OpValidationError("strides must not be 0")
            norm = INT64_MAX if d.hi is None else d.hi
            start = ((norm, norm) if stride < 0 else (0, 0)) if axis in begin_mask else \
                None if begin is None else begin[axis]
            stop = ((-1 - norm, -1 - norm) if stride < 0 else (norm, norm)) if axis in end_mask else \
                None if end is None else end[axis]
            if start is None or stop is None:  # (either unknown: both read as any i64)
                start = stop = _ANY_INDEX
            out.append(_make_dim(d, start, stop, stride))
            k += 1
    out += shape[k:]
    return [TensorType(data.element, tuple(out))]


def _roll_infer(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """OpenVINO's Roll-7: shift and axes i32 or i64 scalars or 1-D, of one shape unless shift is a scalar; known
    axes within [-rank, rank); the output is the data's type."""
    data, shift, axes = inputs
    for t, what in ((shift, "shift"), (axes, "axes")):
        if t.element is not None and t.element not in ("i32", "i64"):
            raise OpValidationError(f"{what} must be i32 or i64, got {t.element}")
        if t.shape is not None and len(t.shape) > 1:
            raise OpValidationError(f"{what} must be a scalar or 1-D, got rank {len(t.shape)}")
    scalar = shift.shape is not None and len(shift.shape) == 0
    if not scalar and shift.shape is not None and axes.shape is not None and (
            len(shift.shape) != len(axes.shape) or not all(
                compatible(iv(x), iv(y)) for x, y in zip(shift.shape, axes.shape, strict=True))):
        raise OpValidationError("if shift is a 1-D vector, axes must be a 1-D tensor of the same size")
    if values[2] is not None and data.shape is not None:
        rank = max(len(data.shape), 1)  # a scalar takes the axes of a 1-D input (-1 and 0), measured
        for axis in bounds(values[2]):
            if not -rank <= axis < rank:
                raise OpValidationError(f"axis {axis} is not an axis of a rank-{len(data.shape)} input")
    return [data]


def _roll(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each axis rolled by its shift (a scalar shift for every axis; an axis named twice rolls by the sum)."""
    x = args[0]
    if x.ndim == 0:
        return [x]
    axes = [normalize_axis(v, x.ndim) for v in _ints(args[2])]
    shifts = _ints(args[1])
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    return [np.roll(x, shifts, axes)]


def _cropped_past(a: PadAttrs, inputs: Sequence[TensorType], values) -> str | None:
    """Const pads on a static axis of length n that OpenVINO's CPU plugin refuses (measured on 2026.4, Pad-1 and -12,
    every mode, which its shape inference accepts): an output length n + begin + end below 0 it refuses to compile
    ("Pad executor has undefined source memory"); a negative pad below -n beside an output of one element or more
    corrupts its heap when it runs (glibc aborts the process: "double free or corruption")."""
    shape, begin, end = inputs[0].shape, values[1], values[2]
    if shape is None or begin is None or end is None or not begin.size == end.size == len(shape):
        return None
    for axis, (d, b, e) in enumerate(zip(shape, _ints(begin), _ints(end), strict=True)):
        if not d.is_static:
            continue
        if d.lo + b + e < 0:
            return (f"axis {axis} of length {d.lo} padded by {b} and {e} comes out {d.lo + b + e} long: OpenVINO CPU "
                    f"refuses to compile it")
        if d.lo + b + e > 0 and min(b, e) < -d.lo:
            return (f"axis {axis} of length {d.lo} is cropped by {min(b, e)}, more than it holds: OpenVINO CPU "
                    f"corrupts its memory running it (the process aborts)")
    return None


def _reverse_infer(a: ReverseAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """OpenVINO's Reverse-1: axes 1-D (or of a dynamic rank); ``index`` axes of an integer type (any type neither
    real nor boolean passes, dynamic too), each known one (a negative one read as 0) below a static data rank;
    ``mask`` axes boolean (not dynamic), as many as a static data rank; the output is the data's type and shape."""
    data, axes = inputs
    if axes.shape is not None and len(axes.shape) != 1:
        raise OpValidationError(f"axes must be 1-D, got rank {len(axes.shape)}")
    if a.mode == "mask":
        if axes.element != "boolean":
            raise OpValidationError(f"axes of element type {axes.element}: mode 'mask' needs boolean")
        if data.shape is not None and axes.shape is not None and not contains(iv(axes.shape[0]), len(data.shape)):
            raise OpValidationError(f"{axes.shape[0]} mask entries for a rank-{len(data.shape)} input: they must be "
                                    "as many")
    else:
        if axes.element in REAL_TYPES or axes.element == "boolean":
            raise OpValidationError(f"axes of element type {axes.element}: mode 'index' needs an integer type")
        if data.shape is not None and values[1] is not None:
            for axis in _ints(values[1]):
                if max(axis, 0) >= len(data.shape):
                    raise OpValidationError(f"axis {axis} is not an axis of a rank-{len(data.shape)} input")
    return [data]


def _reverse(a: ReverseAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The data reversed along each axis named (once, however often named; a negative one counts from the end, as
    OpenVINO CPU's reference reads it) or whose mask entry is true."""
    x, axes = np.asarray(args[0]), np.asarray(args[1])
    if axes.ndim != 1:
        raise OpValidationError(f"axes must be 1-D, got rank {axes.ndim}")
    if a.mode == "mask":
        if axes.dtype != np.bool_ or axes.size != x.ndim:
            raise OpValidationError(f"mode 'mask' needs {x.ndim} boolean entries, got {axes.dtype}{list(axes.shape)}")
        picked = {i for i, flag in enumerate(axes.tolist()) if flag}
    else:
        picked = set()
        for axis in _ints(axes):
            if not -x.ndim <= axis < x.ndim:
                raise OpValidationError(f"axis {axis} is not an axis of a rank-{x.ndim} input")
            picked.add(axis % x.ndim)
    return [np.flip(x, tuple(sorted(picked))).copy() if picked else x]


PAD_1 = OpSpec("Pad", "Pad-1", PadAttrs, (3, 4), 1, guarded(_pad_infer), _pad, (1, 2), rounding=moves(0, 3),
               cpu_refuses=_cropped_past, reads_unfed_ports=True, reads_bounds=True)
PAD_12 = OpSpec("Pad", "Pad-12", PadAttrs, (3, 4), 1, guarded(_pad_infer), _pad, (1, 2), rounding=moves(0, 3),
                cpu_refuses=_cropped_past, reads_unfed_ports=True, reads_bounds=True)
ROLL_7 = OpSpec("Roll", "Roll-7", NoAttrs, (3, 3), 1, guarded(_roll_infer), _roll, (2,), rounding=moves(0),
                evaluates=never)
SLICE_8 = OpSpec("Slice", "Slice-8", NoAttrs, (4, 5), 1, guarded(slice_infer), _slice, (1, 2, 3, 4), rounding=moves(0),
                 reads_unfed_ports=True, reads_bounds=True, bounds=moved(_slice))
REVERSE_1 = OpSpec("Reverse", "Reverse-1", ReverseAttrs, (2, 2), 1, _reverse_infer, _reverse, (1,), rounding=moves(0))
STRIDED_SLICE_1 = OpSpec("StridedSlice", "StridedSlice-1", StridedSliceAttrs, (3, 4), 1,
                         guarded(_strided_slice_infer), _strided_slice, (1, 2, 3), rounding=moves(0),
                         cpu_refuses=_shrink_out_of_range, reads_unfed_ports=True, reads_bounds=True,
                         bounds=_strided_slice_bounds, folded=_evaluated_strided_slice, folded_on=(0, 1, 2, 3))
