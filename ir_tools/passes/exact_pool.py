"""Exact average pooling in opset8: one description of the semantics, one way to emit it.

Every source form (AvgPool-1/14/16, legacy Pooling, ONNX AveragePool) is first described as a
WindowSpec, which says exactly which taps each window has and what it is divided by; ``emit``
then realises that spec with opset8 AvgPool (plus Pad or a slice where needed), or, when no AvgPool-1 form
exists (dilations), with the window sums added from strided slices and divided inside an AvgPool. The to-opset8
pass and the ONNX importer both call ``emit``. ``emit_dilated_floor`` is the one form of dilated windows on spatial
dims of any length (no WindowSpec: it needs no length).

A window that counts no tap is 0 divided by its divisor (``divisors``): by 0 (NaN) for ONNX and legacy Pooling, by
OpenVINO CPU's count for OpenVINO's AvgPool (``WindowSpec.openvino_counts``: NaN, -0.0 or +0.0 by where the window
lies, docs/SEMANTICS.md section 3). Every form below gives that value, bit for bit.

How ``emit`` chooses (every candidate is checked, not assumed: its window count and its whole
divisor map, OpenVINO CPU's counts of empty windows included, must equal the spec's):

1. Dilations (on an axis whose kernel is longer than 1) have no AvgPool-1 form: rule 5. On a kernel-1 axis a
   dilation changes only OpenVINO CPU's count of a window past the data (0, NaN, up to D past the end; negative,
   -0.0, beyond), which the divisor map holds: rule 3 takes an AvgPool-1 only where its counts are the same.
2. Slice the input (opset8 Slice) only where no non-negative pads_end gives few enough windows
   (or pads_begin is negative); elements no window reads are dropped, nothing else changes.
3. Try one opset8 AvgPool, in this order: the source's own pads_end and rounding
   (``prefer_pads_end``, ``prefer_rounding``); floor with ``pads_end = (out - 1)*S + K - L - pb``;
   ceil with a pads_end that gives ``out`` windows; each with both exclude-pad settings. OpenVINO's rules
   are applied as it applies them: exclude-pad rejects a kernel that fits in a pad, and
   exclude-pad=false with any non-zero pad divides by the whole kernel. With ``refused`` (``migrate --target`` for a
   release whose CPU plugin does not compile some AvgPool-1: ``downgrade/pooling.AvgPoolCompiled``) no candidate it
   refuses is taken, nor one right after a Pad OpenVINO could fold into it; where none is left and the divisor is
   the whole kernel, the same on the input extended by zeros (Concat-1, which OpenVINO does not fold) as far as the
   windows reach (``_zeros_appended``). Rule 5 is the last resort: OpenVINO CPU fuses its chain of Adds into
   Eltwise nodes whose inner operations take the running sum first, so where NaNs of both signs meet in a window
   (a NaN input and an inf - inf) the sum's NaN may take the other sign than AvgPool's (measured on 2026.4: 1 of
   about 120 such layers of 32 taps).
4. If none fits and the divisor counts taps outside the data (ONNX count_include_pad), zero-pad
   the counted range explicitly (opset1 Pad) and try rule 3 again on the padded input. OpenVINO
   folds a zero Pad into a following AvgPool-1 that has exclude-pad=false or no pads of its own,
   and the folded layer divides by the whole kernel (PadFusionAvgPool, measured): after a Pad,
   only candidates that keep their own meaning under that fold are taken.
5. Otherwise zero-pad the input (Pad-1), add the windows' taps in OpenVINO CPU's order from one StridedSlice per
   tap (``_tap_sum``; dilations included) and divide each sum by its window's count inside an AvgPool-1
   (``_divided``: OpenVINO CPU's Divide, or a Multiply by the reciprocal, rounds otherwise). A window that counts
   no tap sums to +0, which a Multiply by 1/divisor there (1 elsewhere) makes 0/divisor.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import product
from math import prod

import numpy as np

from ..base.dims import Dim
from ..base.dtypes import element_type
from ..base.errors import OpValidationError, UnsupportedError
from ..ops import attrs as A
from ..ops.movement import StridedSliceAttrs
from ..ops.pool_geometry import counts_padding, cpu_window_counts, dilated, out_length, pool_geometry, window_counts
from ..ops.pooling import AvgPoolAttrs
from ..ops.spec import TensorType
from .builder import GraphBuilder, Output, output_of

#: The most windows (and taps on one axis) ``emit`` takes: it holds an int64 divisor per window (256 MiB at most), where
#: an axis of 2**32 would ask for tens of GiB.
MAX_WINDOWS = 2**25


@dataclass(frozen=True, slots=True)
class WindowSpec:
    """Average pooling semantics on static spatial lengths, neutral of any op version.

    On spatial axis i, window j covers the taps ``j*strides[i] - pads_begin[i] + k*dilations[i]``
    for k in [0, kernel[i]), for j in [0, out[i]). Taps outside [0, lengths[i]) read zero. The
    window's value is the sum of its taps divided by ``prod(kernel)`` when ``count_all``, otherwise
    by the product over axes of the number of its taps inside [count_lo[i], count_hi[i])
    (exclude-pad: [0, L); ONNX count_include_pad: [-pads_begin, L + pads_end)). A window that counts no tap is 0
    over its divisor: 0 (NaN), or with ``openvino_counts`` (OpenVINO's AvgPool, whose count range is the data)
    OpenVINO CPU's count, the kernel less the taps cut off at each end of each axis (0 or negative there).

    ``prefer_pads_end`` (optional) and ``prefer_rounding`` are the source layer's own pads_end and
    rounding (ceil for ceil_torch): ``emit`` tries them first, so a layer whose meaning AvgPool-1
    already has keeps its attributes.
    """

    lengths: tuple[int, ...]
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    out: tuple[int, ...]
    count_all: bool
    count_lo: tuple[int, ...]
    count_hi: tuple[int, ...]
    prefer_pads_end: tuple[int, ...] | None = None
    prefer_rounding: str = "ceil"
    openvino_counts: bool = False

    @property
    def rank(self) -> int:
        return len(self.kernel)

    def tap_end(self, i: int) -> int:
        """One past the last tap of the last window on axis ``i``."""
        return (self.out[i] - 1) * self.strides[i] - self.pads_begin[i] + dilated(self.kernel[i], self.dilations[i])

    def needed_pad_end(self, i: int) -> int:
        """The end padding that makes floor rounding give exactly ``out[i]`` windows (may be negative)."""
        return self.tap_end(i) - self.lengths[i]


def divisors(spec: WindowSpec) -> np.ndarray:
    """The divisor of every window (int64, shape ``out``): the number of taps it counts, and where that is none,
    0, or with ``openvino_counts`` OpenVINO CPU's count (``pool_geometry.cpu_window_counts``, multiplied over the
    axes: 0, NaN's; negative, -0.0's; positive where two axes are negative, +0.0's)."""
    if spec.count_all:
        return np.full(spec.out, prod(spec.kernel), np.int64)
    return _counts(spec, cpu_window_counts if spec.openvino_counts else window_counts)


def _counts(spec: WindowSpec, per_axis: Callable[[int, int, int, int, int, int], np.ndarray]) -> np.ndarray:
    """The product over axes of ``per_axis`` (``window_counts`` or ``cpu_window_counts``) of the count range."""
    return _outer([
        per_axis(max(0, hi - lo), k, s, d, pb + lo, o)
        for hi, lo, k, s, d, pb, o in zip(spec.count_hi, spec.count_lo, spec.kernel, spec.strides, spec.dilations,
                                          spec.pads_begin, spec.out, strict=True)
    ])


def counts_no_tap(spec: WindowSpec) -> np.ndarray:
    """True for each window that counts no tap (its value is 0 over its divisor, whatever the input)."""
    if spec.count_all:
        return np.zeros(spec.out, bool)
    return _counts(spec, window_counts) == 0


def reference(x: np.ndarray, spec: WindowSpec) -> np.ndarray:
    """The spec evaluated from its definition with numpy (float64 sums): the oracle for tests and checks."""
    acc = np.asarray(x, np.float64)
    for i in range(spec.rank):
        axis = 2 + i
        starts = np.arange(spec.out[i]) * spec.strides[i] - spec.pads_begin[i]
        where = [1] * acc.ndim
        where[axis] = spec.out[i]
        total = np.zeros(acc.shape[:axis] + (spec.out[i],) + acc.shape[axis + 1:])
        for k in range(spec.kernel[i]):
            taps = starts + k * spec.dilations[i]
            inside = ((taps >= 0) & (taps < spec.lengths[i])).reshape(where)
            values = np.take(acc, np.clip(taps, 0, spec.lengths[i] - 1), axis=axis)
            total += np.where(inside, values, 0.0)  # not a product: an Inf outside the window stays out
        acc = total
    with np.errstate(invalid="ignore", divide="ignore"):
        return (acc / divisors(spec)).astype(x.dtype)  # an empty window's sum is +0


def emit(builder: GraphBuilder, x: Output, spec: WindowSpec, name: str,
         refused: Callable[[AvgPoolAttrs, tuple[int, ...]], bool] | None = None) -> Output:
    """Add layers computing ``spec`` on ``x`` using only opset8 ops; returns the result's output. ``refused``: which
    AvgPool-1 (its attributes, on spatial lengths) a target release does not compile (a measured defect): rule 3 then
    takes no such candidate, and none right after a Pad that OpenVINO could fold into it (the folded layer is another
    one), so that rule 5 realises what none realises."""
    _validate(spec)
    data = builder.type_of(x)
    if data.shape is None or len(data.shape) != spec.rank + 2:
        raise UnsupportedError(f"'{name}': the input needs a known rank of {spec.rank + 2}")
    target = divisors(spec)
    ones = tuple(1 if k == 1 else d for k, d in zip(spec.kernel, spec.dilations, strict=True))
    spec = replace(spec, dilations=ones)
    x, spec = _crop(builder, x, spec, name)
    if all(d == 1 for d in spec.dilations):
        after_pad = builder.graph.layer(x[0]).is_a("Pad")
        for layout, pads in ((spec, None), _pad_for_counting(spec)):
            if layout is None:
                break
            attrs = _fit_avg_pool(builder.type_of(x), layout, target, after_pad or pads is not None, refused)
            if attrs is not None:
                if pads is not None:
                    x = _pad(builder, x, layout, pads, name)
                return output_of(builder.add("AvgPool", "opset8", A.encode(attrs), [x], name))
        if refused is not None and spec.count_all:
            extended = _zeros_appended(builder, x, spec, target, refused, name)
            if extended is not None:
                return extended
    return _window_sum_divided(builder, x, spec, target, name)


def _zeros_appended(builder: GraphBuilder, x: Output, spec: WindowSpec, target: np.ndarray,
                    refused: Callable[[AvgPoolAttrs, tuple[int, ...]], bool], name: str) -> Output | None:
    """Rule 3 with ``refused``, where the divisor is the whole kernel: the input extended on each axis, by a Concat-1
    of zeros, as far as the windows reach (OpenVINO folds no Concat into the AvgPool, as it folds a Pad), and an
    AvgPool-1 the target compiles on it whose windows and divisors are the spec's (a tap on an appended zero adds +0,
    as one in the padding does); None where there is none, or the batch or channels are not static."""
    data = builder.type_of(x)
    if not all(d.is_static for d in data.shape[:2]) or data.element is None:
        return None
    reach = [max(0, spec.needed_pad_end(i)) for i in range(spec.rank)]
    lengths = tuple(n + z for n, z in zip(spec.lengths, reach, strict=True))
    wider = replace(spec, lengths=lengths, count_hi=lengths, prefer_pads_end=None)
    attrs = _fit_avg_pool(TensorType(data.element, _spatial(data, lengths)), wider, target, False, refused)
    if attrs is None:
        return None
    dtype = element_type(data.element).numpy
    shape = [d.lo for d in data.shape]
    for i, z in enumerate(reach):
        if not z:
            continue
        zeros = builder.const(np.zeros([*shape[:2 + i], z, *shape[3 + i:]], dtype), f"{name}/zeros{i}")
        shape[2 + i] += z
        x = output_of(builder.add("Concat", "opset1", builder.attrs("Concat", "opset1", axis=2 + i), [x, zeros],
                                  f"{name}/appended{i}", outputs=[TensorType(data.element, tuple(
                                      Dim(n, n) for n in shape))]))
    return output_of(builder.add("AvgPool", "opset8", A.encode(attrs), [x], name))


def _validate(spec: WindowSpec) -> None:
    n = spec.rank
    fields = ("lengths", "strides", "dilations", "pads_begin", "out", "count_lo", "count_hi")
    bad = [f for f in fields if len(getattr(spec, f)) != n]
    if bad or (spec.prefer_pads_end is not None and len(spec.prefer_pads_end) != n):
        raise UnsupportedError(f"WindowSpec fields {bad or ['prefer_pads_end']} do not have {n} values (one per axis)")
    for what in ("lengths", "kernel", "strides", "dilations", "out"):
        if any(v < 1 for v in getattr(spec, what)):
            raise UnsupportedError(f"WindowSpec {what} {list(getattr(spec, what))} must be positive")
    windows, taps = prod(spec.out), max(o * k for o, k in zip(spec.out, spec.kernel, strict=True))
    if max(windows, taps) > MAX_WINDOWS:
        raise UnsupportedError(f"{windows:,} windows of {list(spec.kernel)} taps ({list(spec.out)} per axis): the "
                               f"exact rewrite works out the divisor of every window, of at most {MAX_WINDOWS:,} "
                               "windows (and taps on an axis)")


def _outer(per_axis: list[np.ndarray]) -> np.ndarray:
    result = np.asarray(per_axis[0], np.int64)
    for counts in per_axis[1:]:
        result = np.multiply.outer(result, counts)
    return result


def _spatial(data: TensorType, lengths: tuple[int, ...]) -> tuple[Dim, ...]:
    return data.shape[:2] + tuple(Dim(n, n) for n in lengths)


def _i64(builder: GraphBuilder, values: list[int], name: str) -> Output:
    return builder.const(np.array(values, np.int64), name)


def _crop(builder: GraphBuilder, x: Output, spec: WindowSpec, name: str) -> tuple[Output, WindowSpec]:
    """Slice away input elements no window reads, on the axes where pads alone cannot drop windows."""
    axes, starts, stops = [], [], []
    lengths, pads, lo, hi = list(spec.lengths), list(spec.pads_begin), list(spec.count_lo), list(spec.count_hi)
    for i in range(spec.rank):
        k, s, d, pb, n = spec.kernel[i], spec.strides[i], spec.dilations[i], spec.pads_begin[i], spec.lengths[i]
        if pb >= 0 and out_length(n, k, s, d, pb, 0, "floor") <= spec.out[i]:
            continue
        start, stop = max(0, -pb), min(n, spec.tap_end(i))
        if stop <= start:
            raise UnsupportedError(f"'{name}': no window reads any data on spatial axis {i}")
        axes.append(2 + i)
        starts.append(start)
        stops.append(stop)
        lengths[i], pads[i], lo[i], hi[i] = stop - start, pb + start, lo[i] - start, hi[i] - start
    if not axes:
        return x, spec
    data = builder.type_of(x)
    spec = replace(spec, lengths=tuple(lengths), pads_begin=tuple(pads), count_lo=tuple(lo), count_hi=tuple(hi),
                   prefer_pads_end=None)
    inputs = [x, _i64(builder, starts, f"{name}/crop/start"), _i64(builder, stops, f"{name}/crop/stop"),
              _i64(builder, [1] * len(axes), f"{name}/crop/step"), _i64(builder, axes, f"{name}/crop/axes")]
    out = TensorType(data.element, _spatial(data, spec.lengths))
    return output_of(builder.add("Slice", "opset8", None, inputs, f"{name}/crop", outputs=[out])), spec


def _pad_for_counting(spec: WindowSpec) -> tuple[WindowSpec | None, tuple[tuple[int, int], ...] | None]:
    """The spec on an input zero-padded over the counted range, so exclude-pad counts what the spec counts."""
    if spec.count_all:
        return None, None
    pads, lengths, pb, lo, hi = [], [], [], [], []
    for i in range(spec.rank):
        first, end = -spec.pads_begin[i], spec.tap_end(i)
        c_lo, c_hi = max(spec.count_lo[i], first), min(spec.count_hi[i], end)
        a, b = max(0, -c_lo), max(0, c_hi - spec.lengths[i])
        pads.append((a, b))
        lengths.append(spec.lengths[i] + a + b)
        pb.append(spec.pads_begin[i] - a)
        lo.append(spec.count_lo[i] + a)
        hi.append(spec.count_hi[i] + a)
    if not any(a or b for a, b in pads):
        return None, None
    padded = replace(spec, lengths=tuple(lengths), pads_begin=tuple(pb), count_lo=tuple(lo), count_hi=tuple(hi),
                     prefer_pads_end=None)
    return padded, tuple(pads)


def _pad(builder: GraphBuilder, x: Output, spec: WindowSpec, pads: tuple[tuple[int, int], ...], name: str) -> Output:
    data = builder.type_of(x)
    begin = _i64(builder, [0, 0, *(a for a, _ in pads)], f"{name}/pad/begin")
    end = _i64(builder, [0, 0, *(b for _, b in pads)], f"{name}/pad/end")
    out = TensorType(data.element, _spatial(data, spec.lengths))
    layer = builder.add("Pad", "opset1", None, [x, begin, end], f"{name}/pad", outputs=[out])
    return output_of(layer)


def _fit_avg_pool(data: TensorType, spec: WindowSpec, target: np.ndarray, after_pad: bool,
                  refused: Callable[[AvgPoolAttrs, tuple[int, ...]], bool] | None = None) -> AvgPoolAttrs | None:
    """The first AvgPool-1 attribute set (rule 3) whose windows and divisors equal the spec's, or None.

    ``after_pad``: the input is a Pad layer, which OpenVINO's PadFusionAvgPool folds into an AvgPool-1
    with exclude-pad=false or without pads; the fused layer divides by the whole kernel, so such a
    candidate is only taken when every divisor already is the whole kernel. ``refused`` (``emit``'s): candidates a
    target does not compile are not taken, nor, after a Pad, one it could fold.
    """
    needed = [spec.needed_pad_end(i) for i in range(spec.rank)]
    floor_end = tuple(max(0, e) for e in needed)
    ceil_ends = [sorted({max(0, e - s + 1), min(max(0, e - s + 1) + 1, max(0, e)), max(0, e)})
                 for e, s in zip(needed, spec.strides, strict=True)]
    tries = []
    if spec.prefer_pads_end is not None:
        tries += [(spec.prefer_pads_end, spec.prefer_rounding)]
    tries += [(floor_end, "floor")] + [(ends, "ceil") for ends in product(*ceil_ends)]
    shape = _spatial(data, spec.lengths)
    whole_kernel = bool(np.all(target == prod(spec.kernel)))
    for exclude in (False, True) if spec.count_all else (True, False):
        for pads_end, rounding in tries:
            attrs = AvgPoolAttrs(spec.kernel, spec.strides, spec.pads_begin, tuple(pads_end), exclude, "explicit",
                                 rounding)
            fusable = not exclude or not any(attrs.pads_begin + attrs.pads_end)
            if after_pad and fusable and (not whole_kernel or refused is not None):
                continue
            if refused is not None and refused(attrs, spec.lengths):
                continue
            if _realises(attrs, shape, spec, target):
                return attrs
    return None


def _realises(a: AvgPoolAttrs, shape: tuple[Dim, ...], spec: WindowSpec, target: np.ndarray) -> bool:
    """True if OpenVINO's AvgPool-1 with ``a`` accepts ``shape`` and has exactly the spec's windows and divisors, as
    OpenVINO CPU counts them (``cpu_window_counts``: the empty windows' too)."""
    if any(p < 0 for p in a.pads_begin):
        return False
    ones = (1,) * spec.rank
    try:
        geo = pool_geometry(shape, a.kernel, a.strides, ones, a.pads_begin, a.pads_end, "explicit", a.rounding_type,
                            a.exclude_pad, ceil_torch_allowed=False)
    except OpValidationError:
        return False
    if tuple(d.lo for d in geo.spatial) != spec.out:
        return False
    if counts_padding(a.pads_begin, a.pads_end, a.exclude_pad):
        got = np.full(spec.out, prod(a.kernel), np.int64)
    else:
        got = _outer([cpu_window_counts(n, k, s, 1, pb, o) for n, k, s, pb, o in
                      zip(spec.lengths, a.kernel, a.strides, a.pads_begin, spec.out, strict=True)])
    return bool(np.array_equal(got, target))


def _window_sum_divided(builder: GraphBuilder, x: Output, spec: WindowSpec, target: np.ndarray, name: str) -> Output:
    """Rule 5: the window sums (``_tap_sum`` of the input zero-padded by Pad-1 as far as the windows reach), each
    divided by its count (``_divided``); where windows count no tap, a Multiply by 1/divisor there and 1 elsewhere:
    their sum, +0, becomes 0/divisor as OpenVINO CPU computes it (0 * inf: NaN, the x86 default one with the sign
    bit, as 0/0; -0.0 for a negative divisor). Measured, and so not: a Select of those constants (OpenVINO 2023.0
    and 2024.0 CPU give +0.0 where it picks a -0.0), a GroupConvolution of ones for the sums (OpenVINO CPU adds the
    taps in another order on one channel: ulps off), a Multiply by 1/count for the division (ulps off)."""
    data = builder.type_of(x)
    et = element_type(data.element or "")
    if et is None or et.numpy is None or et.numpy.kind != "f":
        raise UnsupportedError(f"'{name}': the exact decomposition needs a floating-point input, got {data.element}")
    pads_end = [max(0, spec.needed_pad_end(i)) for i in range(spec.rank)]
    for i in range(spec.rank):  # the crop has made the window count exact
        assert out_length(spec.lengths[i], spec.kernel[i], spec.strides[i], spec.dilations[i], spec.pads_begin[i],
                          pads_end[i], "floor") == spec.out[i]
    if any(spec.pads_begin) or any(pads_end):
        begin, end = _i64(builder, [0, 0, *spec.pads_begin], f"{name}/pad/begin"), _i64(builder, [0, 0, *pads_end],
                                                                                       f"{name}/pad/end")
        x = output_of(builder.add("Pad", "opset1", None, [x, begin, end], f"{name}/pad"))
    total = _tap_sum(builder, x, spec.kernel, spec.strides, spec.dilations, name)
    out = TensorType(data.element, _spatial(data, spec.out))
    empty = counts_no_tap(spec)
    counts = np.where(empty, target[~empty].min(initial=1), target)
    mean = _divided(builder, total, counts, out, f"{name}/mean" if empty.any() else name)
    if not empty.any():
        return mean
    with np.errstate(divide="ignore"):
        scale = np.where(empty, np.float32(1) / target.astype(np.float32), np.float32(1)).astype(et.numpy)
    scale = builder.const(scale.reshape((1, 1, *spec.out)), f"{name}/no_tap")
    return output_of(builder.add("Multiply", "opset1", None, [mean, scale], name, outputs=[out]))


def _tap_sum(builder: GraphBuilder, x: Output, kernel: tuple[int, ...], strides: tuple[int, ...],
             dilations: tuple[int, ...], name: str) -> Output:
    """The sum of each floor window's taps on ``x``, as OpenVINO CPU's AvgPool adds them (in f32, in kernel order,
    the last axis fastest): tap k of every window is one StridedSlice-1 (from ``k*D``, ``(K-1-k)*D`` short of the
    end, step S), added in that order, the tap first: where a NaN tap meets a NaN sum (say inf - inf's) the tap's
    sign is kept, as AvgPool keeps it (measured). (AvgPool adds from +0, so an all -0.0 sum is +0 there: the
    division fixes that.)"""
    rank = len(kernel)
    flags = (1, 1, *(0,) * rank)
    steps = builder.const(np.array([1, 1, *strides], np.int64), f"{name}/tap/strides")
    total: Output | None = None
    for tap in product(*(range(k) for k in kernel)):
        at = f"{name}/tap{'_'.join(map(str, tap))}"
        short = [(k - 1 - t) * d for k, t, d in zip(kernel, tap, dilations, strict=True)]
        begin = builder.const(np.array([0, 0, *(t * d for t, d in zip(tap, dilations, strict=True))], np.int64),
                              f"{at}/begin")
        end = builder.const(np.array([0, 0, *(-n for n in short)], np.int64), f"{at}/end")
        attrs = StridedSliceAttrs(begin_mask=flags, end_mask=(1, 1, *(int(n == 0) for n in short)),
                                  new_axis_mask=(0,) * (rank + 2), shrink_axis_mask=(0,) * (rank + 2),
                                  ellipsis_mask=(0,) * (rank + 2))
        taken = output_of(builder.add("StridedSlice", "opset1", attrs, [x, begin, end, steps], at))
        total = taken if total is None else output_of(builder.add("Add", "opset1", None, [taken, total], f"{at}/sum"))
    assert total is not None
    return total


def _divided(builder: GraphBuilder, sums: Output, counts: np.ndarray | int, out: TensorType, name: str) -> Output:
    """``sums`` divided by ``counts`` (one count, at any length of the spatial dims, or one per window, from 1) as
    OpenVINO CPU's AvgPool divides, so bit for bit: its Divide multiplies by a rounded reciprocal (measured).

    Each sum becomes a row of ``hi`` (the largest count) values, the sum and then zeros (a Pad-1); an AvgPool-1 adds
    them from +0 (the sum unchanged but -0.0, which becomes +0.0 as in the pooling's own sum) and divides. One count:
    kernel and stride ``[1, hi]`` divide by ``hi`` (folded into the pool's pads or not, the divisor stays the whole
    kernel), and a Reshape restores the shape. Counts from ``lo`` to ``hi``: the AvgPool-1 excludes ``hi - lo``
    begin pads at stride 1, so column ``t`` holds the sum over ``lo + t`` (its window ends at data position
    ``lo + t`` and begins at or before the sum), and a Gather-8 takes each window's column."""
    lo, hi = (counts, counts) if isinstance(counts, int) else (int(counts.min()), int(counts.max()))
    rows = builder.add("Reshape", "opset1", builder.attrs("Reshape", "opset1", special_zero=True),
                       [sums, _i64(builder, [0, 0, -1, 1], f"{name}/rows/shape")], f"{name}/rows")
    padded = builder.add("Pad", "opset1", None, [rows, _i64(builder, [0, 0, 0, 0], f"{name}/rows/pad_begin"),
                                                 _i64(builder, [0, 0, 0, hi - 1], f"{name}/rows/pad_end")],
                         f"{name}/rows/padded")
    if lo == hi:
        mean = AvgPoolAttrs((1, hi), (1, hi), (0, 0), (0, 0), False, "explicit", "floor")
        divided = builder.add("AvgPool", "opset8", A.encode(mean), [padded], f"{name}/divided")
        shape = builder.add("ShapeOf", "opset1", None, [sums], f"{name}/shape")
        return output_of(builder.add("Reshape", "opset1", None, [divided, shape], name, outputs=[out]))
    table = AvgPoolAttrs((1, hi), (1, 1), (0, hi - lo), (0, 0), True, "explicit", "floor")
    divided = builder.add("AvgPool", "opset8", A.encode(table), [padded], f"{name}/divided")
    flat = builder.add("Reshape", "opset1", builder.attrs("Reshape", "opset1", special_zero=True),
                       [divided, _i64(builder, [0, 0, -1], f"{name}/divided/shape")], f"{name}/divided/flat")
    columns = hi - lo + 1
    index = np.arange(counts.size, dtype=np.int64).reshape(counts.shape) * columns + (counts - lo)
    return output_of(builder.add("Gather", "opset8", None, [output_of(flat), builder.const(index, f"{name}/column"),
                                                           _i64(builder, [2], f"{name}/axis")], name, outputs=[out]))


def emit_dilated_floor(builder: GraphBuilder, x: Output, kernel: tuple[int, ...], strides: tuple[int, ...],
                       dilations: tuple[int, ...], out: TensorType, name: str) -> Output:
    """Average pooling with dilations, no pads and floor windows (each wholly in the data), in opset1 ops and an
    opset8 AvgPool, at every length of the spatial dims: ``out`` is the pooled type.

    OpenVINO CPU's AvgPool (-1 and -16 alike, measured on 2026.4 and 2023.0) sums a window's taps in f32 in kernel
    order (the last axis fastest) from +0, then divides by their count: here the sums of ``_tap_sum``, divided by
    ``prod(K)`` in ``_divided``."""
    total = _tap_sum(builder, x, kernel, strides, dilations, name)
    return _divided(builder, total, prod(kernel), out, name)
