"""Numpy reference kernels for AvgPool-1/14/16 and AdaptiveAvgPool-8 with OpenVINO CPU's values.

Geometry (validation, effective pads, output lengths) comes from pool_geometry, so these kernels
agree with shape inference by construction. Values follow docs/SEMANTICS.md sections 3 and 4 and are
checked against OpenVINO CPU by tests/ops/test_avg_pool_conformance.py:

- OpenVINO CPU adds a window's taps in f32, one by one in row-major kernel order, then divides the
  sum by the divisor. Float inputs are summed in f32 here too (f64 ones in f64), integers exactly in f64.
- Integer results are rounded half to even, as OpenVINO CPU does.
- A window with no tap inside the data gives what OpenVINO CPU gives: NaN, or -0.0 when it starts
  more than one dilation past the end of the data (see cpu_window_counts); 0 for integers.

A cost estimate chooses, per shape, between summing

- jointly: every window's taps gathered by index and added in OpenVINO's order, which gives
  OpenVINO's values bit for bit but pays per tap and window (small inputs, small adaptive bins);
- in passes: one axis after the other, each axis's taps in order, far fewer adds where windows
  overlap (4 instead of 8 for 3x3) but rounded differently from OpenVINO. Each side is within
  gamma(n) sum|x| of the exact sum, so the two may differ by twice that in the worst case; measured
  on the conformance cases the difference stays under 0.4 of ops.rounding.accumulation's bound
  (gamma(n) sum|x| + 2 u |y|), at most 2 ulps of the window's mean |x|.

Speed: numpy pays per call and per pass over memory, and an element-wise op on a strided view or on
short rows costs 2 to 10 times one on a contiguous run, while a copy costs little more. So a pass
over a strided axis first copies the data into contiguous stride phases (along an outer axis by
whole rows, each moved as one void item; along the last axis of f32 data with stride 2 by reading
pairs of floats as uint64 and casting them to uint32, which keeps the first), and then adds offset
slices of the flattened phases, one per tap. The windows such a slice gets wrong (those with a tap
outside the data, whose slice reads a neighbouring row) are recomputed from views. Other ways a pass
may go: strided views directly (long runs after the axis), sums at every position and then every
stride-th copied (few taps), a take per tap of adaptive bins, a product with a vector of ones (BLAS)
for a window of a whole trailing axis. Plans are cached per shape, with every slice and index worked
out; big temporaries are reused between calls, and a big input goes in parts of channels.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from math import prod

import numpy as np

from ..base.dims import Dim
from ..base.errors import OpValidationError
from .pool_geometry import AUTO_PADS, ROUNDING_TYPES, counts_padding, cpu_window_counts, pool_geometry

__all__ = ["adaptive_avg_pool", "avg_pool"]

# Cost estimate in nanoseconds (numpy 2.4 and OpenBLAS on an AMD EPYC, arrays in L3): a numpy call; per
# element: an add over contiguous runs, and more per operand that is a strided view with runs shorter than
# 4096 (numpy copies it through a buffer), a copy, a strided copy, a uint64 -> uint32 cast, a gather by
# index, an operand of a column op (a cache line each), a flop of a BLAS vector product; per item of a
# void copy, per row of a strided copy or view.
_NS_CALL, _NS_ADD, _NS_VIEW, _NS_COPY, _NS_STRIDED, _NS_CAST = 1500.0, 0.09, 0.065, 0.075, 0.275, 0.13
_NS_GATHER, _NS_COLUMN, _NS_FLOP, _NS_ITEM, _NS_ROW = 0.47, 0.6, 0.025, 1.0, 3.0
# Inputs bigger than this go in parts of whole channels, so that a part's temporaries stay in the cache
# (3-D 32x16x64x64 f32, 8 MB: 15-20% faster in 2 parts; 2-D inputs of 3 MB gain nothing in parts).
_PART_BYTES = 4 << 20
_LITTLE = sys.byteorder == "little"  # the low half of two float32 read as one uint64 is the first float

Step = Callable[[np.ndarray, "_Scratch"], np.ndarray]


@dataclass(frozen=True, slots=True)
class _Axis:
    """One spatial axis: window o sums input[index[o, k]] over the taps k whose index is >= 0."""

    length: int
    out: int
    index: np.ndarray  # (out, taps) input index of each tap, -1 outside the data (padding, or past a bin)
    stride: int = 0  # regular windows: index[o, k] = o*stride + offsets[k] inside the data; 0 for adaptive bins
    offsets: tuple[int, ...] = ()

    @property
    def taps(self) -> int:
        return self.index.shape[1]

    @property
    def whole(self) -> bool:
        """One window of all the data."""
        return self.out == 1 and np.array_equal(self.index[0], np.arange(self.length))

    def inner(self) -> tuple[int, int]:
        """The windows [lo, hi) with every tap inside the data (a range for regular windows)."""
        full = np.flatnonzero((self.index >= 0).all(axis=1))
        return (int(full[0]), int(full[-1]) + 1) if full.size else (0, 0)

    def borders(self) -> list[tuple[int, list[int]]]:
        """The windows outside inner() and the input indices of their taps inside the data, in order."""
        lo, hi = self.inner()
        return [(o, [int(i) for i in self.index[o] if i >= 0]) for o in (*range(lo), *range(hi, self.out))]


def _regular(length: int, out: int, kernel: int, stride: int, dilation: int, pad: int) -> _Axis:
    offsets = tuple(k * dilation - pad for k in range(kernel))
    index = np.arange(out)[:, None] * stride + np.array(offsets)[None, :]
    index[(index < 0) | (index >= length)] = -1
    return _Axis(length, out, _readonly(index), stride, offsets)


def adaptive_bins(length: int, out: int) -> tuple[_Axis, np.ndarray]:
    """Bin i covers [floor(i*L/O), ceil((i+1)*L/O)): the axis and the bin sizes."""
    i = np.arange(out)
    start, end = (i * length) // out, -((-(i + 1) * length) // out)
    index = start[:, None] + np.arange(int((end - start).max()))[None, :]
    index[index >= end[:, None]] = -1
    return _Axis(length, out, _readonly(index)), (end - start).astype(np.float64)


def _readonly(a: np.ndarray) -> np.ndarray:
    """Plans are cached and shared, so their arrays must never change."""
    a.setflags(write=False)
    return a


# --- running ---------------------------------------------------------------------------------------

_POOL: dict[int, list[np.ndarray]] = {}  # free scratch buffers by size in bytes, kept between calls
_POOL_BYTES = 1 << 26


class _Scratch:
    """The temporary arrays of one call, reused from earlier calls: a fresh big array costs a page fault
    per 4 KB on first touch (glibc hands blocks of one size back to the system each time), which can
    take longer than the pooling itself. At most _POOL_BYTES stay pooled between calls."""

    def __init__(self) -> None:
        self.taken: list[np.ndarray] = []

    def empty(self, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        size = prod(shape) * dtype.itemsize
        try:
            buffer = _POOL.get(size, []).pop()
        except IndexError:
            buffer = np.empty(size, np.uint8)
        self.taken.append(buffer)
        return buffer.view(dtype).reshape(shape)

    def release(self) -> None:
        kept = sum(b.size for free in _POOL.values() for b in free)
        for buffer in self.taken:
            if kept + buffer.size <= _POOL_BYTES:
                _POOL.setdefault(buffer.size, []).append(buffer)
                kept += buffer.size
        self.taken.clear()


def _items(a: np.ndarray, before: int, item: np.dtype | None) -> np.ndarray:
    """Contiguous ``a`` as (before, length) items: the runs after the axis as one void item each (``item``),
    so that a copy moves each with one memcpy however short it is; elements when ``item`` is None."""
    return a.reshape(before, -1) if item is None else a.reshape(-1).view(item).reshape(before, -1)


def _gather(dst: np.ndarray, src: np.ndarray, start: int, step: int) -> None:
    """dst[p, j] = src[p, start + j*step] for (rows, length) ``src`` and (rows, n) ``dst`` (element or void
    items). A float32 stride 2 copy reads each float as the low half of a uint64 and casts it to uint32."""
    rows, n = dst.shape
    length = src.shape[1]
    if step == 2 and src.dtype == np.float32 and _LITTLE and length % 2 == 0:
        flat, first = src.reshape(-1), start % 2
        pairs = flat[first : first + 2 * ((flat.size - first) // 2)].view(np.uint64)
        begin = (start - first) // 2
        whole = min(rows, (pairs.size - begin) // (length // 2))  # the last pair may run past the buffer
        np.copyto(dst[:whole].view(np.uint32), pairs[begin : begin + whole * (length // 2)].reshape(whole, -1)[:, :n],
                  casting="unsafe")
        dst, src = dst[whole:], src[whole:]
    if dst.size:
        np.copyto(dst, src[:, start : start + step * (n - 1) + 1 : step])


def _fix(src: np.ndarray, out: np.ndarray, borders: list[tuple[int, list[int]]]) -> None:
    """Recompute the border windows of (before, length, run) ``src`` into (before, out, run) ``out``."""
    for o, taps in borders:
        target = out[:, o]
        if len(taps) < 2:
            target[...] = src[:, taps[0]] if taps else 0
            continue
        np.add(src[:, taps[0]], src[:, taps[1]], out=target)
        for i in taps[2:]:
            np.add(target, src[:, i], out=target)


def _views_step(a: _Axis, shape: tuple[int, int, int]) -> Step:
    """Pool the middle axis of (before, length, run) with adds of strided views (long runs)."""
    before, _, run = shape
    lo, hi = a.inner()
    taps = [slice(lo * a.stride + t, (hi - 1) * a.stride + t + 1, a.stride) for t in a.offsets]
    borders = a.borders()

    def step(src: np.ndarray, scratch: _Scratch) -> np.ndarray:
        src, out = src.reshape(shape), scratch.empty((before, a.out, run), src.dtype)
        if hi > lo:
            target = out[:, lo:hi]
            if len(taps) == 1:
                np.copyto(target, src[:, taps[0]])
            else:
                np.add(src[:, taps[0]], src[:, taps[1]], out=target)
            for tap in taps[2:]:
                np.add(target, src[:, tap], out=target)
        _fix(src, out, borders)
        return out

    return step


def _offsets_step(a: _Axis, shape: tuple[int, int, int], dtype: np.dtype) -> Step:
    """Pool the middle axis of (before, length, run) with adds of offset slices of its flattened stride
    phases (the input itself for stride 1). The output keeps ``pitch`` windows (junk past a.out) so
    that every phase and the output share one layout."""
    before, length, run = shape
    s, pitch = a.stride, _offset_pitch(a)
    item = np.dtype((np.void, run * dtype.itemsize)) if run > 1 else None
    counts = [max(0, min(pitch, -(-(length - c) // s))) for c in range(s)]
    n = before * pitch * run
    terms = [(off % s, (off // s) * run) for off in a.offsets]
    ranges = [(max(0, -t), n - max(0, t)) for _, t in terms]
    if len(terms) > 1:  # the first add takes two taps
        ranges[1] = (max(ranges[0][0], ranges[1][0]), min(ranges[0][1], ranges[1][1]))
    borders = a.borders()
    # the sums can go into a copied phase that only one of the first two taps reads, each element at its
    # own place (less memory to go through: 5-9% faster for 3x3 stride 2)
    used = [c for c, _ in terms]
    reuse = next((c for c, t in terms[:2] if t == 0 and used.count(c) == 1 and len(terms) > 1 and s > 1), None)

    def step(src: np.ndarray, scratch: _Scratch) -> np.ndarray:
        src = src.reshape(shape)
        phases = [src.reshape(-1)]
        if s > 1 or pitch != length:
            rows = _items(src, before, item)
            phases = []
            for c, count in enumerate(counts):
                phase = scratch.empty((before, pitch, run), src.dtype)
                _gather(_items(phase, before, item)[:, :count], rows, c, s)
                if count < pitch:
                    phase[:, count:] = 0
                phases.append(phase.reshape(-1))
        flat = phases[reuse] if reuse is not None else scratch.empty((n,), src.dtype)
        out = flat.reshape(before, pitch, run)
        (c0, t0), (lo, hi) = terms[0], ranges[-1 if len(terms) == 1 else 1]
        if len(terms) == 1:
            np.copyto(flat[lo:hi], phases[c0][lo + t0 : hi + t0])
        else:
            c1, t1 = terms[1]
            np.add(phases[c0][lo + t0 : hi + t0], phases[c1][lo + t1 : hi + t1], out=flat[lo:hi])
        for (c, t), (lo, hi) in zip(terms[2:], ranges[2:], strict=True):
            np.add(flat[lo:hi], phases[c][lo + t : hi + t], out=flat[lo:hi])
        _fix(src, out, borders)
        return out

    return step


def _sampled_step(a: _Axis, shape: tuple[int, int, int], dtype: np.dtype) -> Step:
    """Pool the middle axis of (before, length, run) with stride > 1 by adds of offset slices of the input
    itself, which sum a window at every position, then copy every stride-th of those rows: no phases to
    copy first, which pays where windows have few taps."""
    before, length, run = shape
    item = np.dtype((np.void, run * dtype.itemsize)) if run > 1 else None
    lo, hi = a.inner()
    n, reach = before * length * run, (a.offsets[-1] - a.offsets[0]) * run
    shifts = [(t - a.offsets[0]) * run for t in a.offsets]
    borders = a.borders()

    def step(src: np.ndarray, scratch: _Scratch) -> np.ndarray:
        flat, out = src.reshape(-1), scratch.empty((before, a.out, run), dtype)
        if hi > lo:
            sums = scratch.empty((before, length, run), dtype)
            every = sums.reshape(-1)[: n - reach]
            np.add(flat[shifts[0] : n - reach + shifts[0]], flat[shifts[1] : n - reach + shifts[1]], out=every)
            for t in shifts[2:]:
                np.add(every, flat[t : n - reach + t], out=every)
            _gather(_items(out, before, item)[:, lo:hi], _items(sums, before, item), lo * a.stride + a.offsets[0],
                    a.stride)
        _fix(src.reshape(shape), out, borders)
        return out

    return step


def _taps_step(a: _Axis, shape: tuple[int, int, int], dtype: np.dtype) -> Step:
    """Pool the middle axis of (before, length, run) with adaptive bins: the taps of all bins gathered by
    index, the taps past a bin zeroed, and each bin's taps added in order. With long rows of windows
    (out * run) one take gathers (before, taps, out, run) and the adds run along those rows; else a take
    per tap gathers (taps, before, out, run) and the adds run along all rows at once (a reduction along
    short rows costs per row)."""
    before, _, run = shape
    item = np.dtype((np.void, run * dtype.itemsize)) if run > 1 else None
    index = np.maximum(a.index.T, 0)  # (taps, out)
    past_k, past_o = np.nonzero(a.index.T < 0)
    along_rows = a.out * run >= 256

    def step(src: np.ndarray, scratch: _Scratch) -> np.ndarray:
        src = _items(src.reshape(shape), before, item)
        out = scratch.empty((before, a.out, run), dtype)
        if along_rows:
            taps = scratch.empty((before, a.taps, a.out, run), dtype)
            np.take(src, index.reshape(-1), axis=1, out=_items(taps, before, item), mode="clip")
            if past_k.size:
                taps[:, past_k, past_o] = 0
            return np.add.reduce(taps, axis=1, out=out)
        taps = scratch.empty((a.taps, before, a.out, run), dtype)
        for k, tap in enumerate(taps):
            np.take(src, index[k], axis=1, out=_items(tap, before, item), mode="clip")
        if past_k.size:
            taps[past_k, :, past_o] = 0
        return np.add.reduce(taps, axis=0, out=out)

    return step


def _whole_step(shape: tuple[int, int, int]) -> Step:
    """Sum the middle axis of (before, length, 1), one window of all its data, as a product with a vector
    of ones (BLAS; a product with a 0/1 matrix would spread an inf or NaN to other windows as 0 * inf)."""
    before, length, _ = shape

    def step(src: np.ndarray, scratch: _Scratch) -> np.ndarray:
        out = scratch.empty((before, 1, 1), src.dtype)
        np.matmul(src.reshape(before, length), np.ones(length, src.dtype), out=out.reshape(-1))
        return out

    return step


def _joint_step(axes: Sequence[_Axis], shape: tuple[int, ...]) -> Step:
    """Every window's taps gathered by flat index into (batch, taps, windows) and added along the taps in
    row-major kernel order, OpenVINO's; taps outside the data read a zero appended to each channel."""
    batch, volume = shape[0] * shape[1], prod(shape[2:])
    strides = np.cumprod((1, *(a.length for a in reversed(axes))))[::-1][1:]
    index = np.zeros((1, 1), np.int64)
    for a, stride in zip(axes, strides, strict=True):  # (taps so far, windows so far) x this axis
        tap = np.where(a.index >= 0, a.index * stride, -(1 << 40)).T
        index = (index[:, None, :, None] + tap[None, :, None, :]).reshape(index.shape[0] * a.taps, -1)
    padded = bool((index < 0).any())
    index = _readonly(np.where(index < 0, volume, index))
    windows = index.shape[1]

    def step(src: np.ndarray, scratch: _Scratch) -> np.ndarray:
        src = src.reshape(batch, volume)
        if padded:
            framed = scratch.empty((batch, volume + 1), src.dtype)
            np.copyto(framed[:, :volume], src)
            framed[:, volume] = 0
            src = framed
        taps = scratch.empty((batch, index.shape[0], windows), src.dtype)
        np.take(src, index, axis=1, out=taps, mode="clip")
        return np.add.reduce(taps, axis=1, out=scratch.empty((batch, windows), src.dtype))

    return step


# --- plans -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Plan:
    """How to pool one input shape: steps that each take the previous one's result (the input first)."""

    parts: int  # of the batch (N*C), each pooled by the steps in turn
    shape: tuple[int, ...]  # a part's input shape, trailing axes of one window each merged into one
    out: tuple[int, ...]  # the output's spatial shape
    windows: tuple[int, ...]  # per axis of ``shape``
    sums: tuple[int, ...]  # the last step's result: (batch, windows per axis, some followed by junk)
    dtype: np.dtype  # the accumulation type
    steps: tuple[Step, ...]
    joint: bool  # OpenVINO's order of adds
    divisor: np.ndarray  # exact divisors in the accumulation type, output layout (0-d when uniform)
    # when only windows at the ends of axes have divisors of their own: the others' divisor, and per axis
    # the ranges of windows that differ (dividing by a number is a plain pass, by an array is not)
    common: np.ndarray | None
    borders: tuple[tuple[int, int, int], ...]  # (axis, lo, hi)


def _copy_cost(before: int, n: int, length: int, run: int, stride: int, pairs: bool) -> float:
    """Copying n of the ``length`` taps of each of ``before`` rows, along an axis followed by runs of ``run``."""
    elements, items = before * n * run, before * n
    if run > 1:
        return elements * _NS_COPY + items * _NS_ITEM + _NS_CALL
    rows = before * (n * stride != length)  # a copy of whole rows runs as one
    if stride == 2 and pairs:
        return elements * _NS_CAST + rows * _NS_ROW + _NS_CALL
    return elements * (_NS_COPY if stride == 1 else _NS_STRIDED) + rows * _NS_ROW + _NS_CALL


def _view_cost(elements: int, run: int, operands: int = 2) -> float:
    """An add of ``operands`` strided views with contiguous runs of ``run`` elements (a column when 1)."""
    if not elements:
        return 0.0
    if run == 1:
        return elements * _NS_COLUMN * operands + _NS_CALL
    if run >= 4096:  # numpy runs it without its buffer
        return elements * _NS_ADD * 1.3 + _NS_CALL
    return elements * (_NS_ADD + operands * _NS_VIEW) + elements / run * operands * _NS_ROW + _NS_CALL


def _pass_cost(method: str, before: int, a: _Axis, run: int, pairs: bool) -> float:
    """Estimated time of one pass over an input of (before, a.length, run)."""
    if method == "whole":
        return 2 * before * a.length * _NS_FLOP + _NS_CALL
    if method == "taps":
        elements = before * a.taps * a.out * run
        takes = 1 if a.out * run >= 256 else a.taps
        return elements * (_NS_COPY if run > 1 else _NS_GATHER) + elements * _NS_ADD + (takes + 2) * _NS_CALL
    fix = sum(max(1, len(taps) - 1) * _view_cost(before * run, run) for _, taps in a.borders())
    lo, hi = a.inner()
    if method == "views":
        views = before * (hi - lo) * run
        return max(1, a.taps - 1) * _view_cost(views, run * (hi - lo if a.stride == 1 else 1)) + fix
    if method == "sampled":
        sampled = _copy_cost(before, hi - lo, a.length, run, a.stride, pairs)
        return (a.taps - 1) * (before * a.length * run * _NS_ADD + _NS_CALL) + sampled + fix
    pitch = _offset_pitch(a)
    split = 0.0 if a.stride == 1 else a.stride * _copy_cost(before, pitch, a.length, run, a.stride, pairs)
    return split + max(1, a.taps - 1) * (before * pitch * run * _NS_ADD + _NS_CALL) + fix


def _offset_pitch(a: _Axis) -> int:
    return max(a.out, -(-a.length // a.stride))


def _methods(a: _Axis, run: int) -> list[str]:
    """The ways to pool an axis followed by runs of ``run`` elements."""
    if a.whole and run == 1:
        return ["whole"]
    if not a.stride:
        return ["taps"]
    if a.stride == 1:
        return ["views", "offsets"] if _offset_pitch(a) == a.length else ["views"]
    return ["views", "offsets", "sampled"] if a.taps > 1 else ["views", "offsets"]


def _best_passes(axes: Sequence[_Axis], shape: tuple[int, ...], pairs: bool) -> tuple[float, list[tuple]]:
    """The cheapest order and methods of passes: (estimated ns, [(axis, method, (before, length, run))])."""
    best: tuple[float, list[tuple]] = (float("inf"), [])
    for order in permutations(range(len(axes))):
        dims, cost, passes = [shape[0] * shape[1], *shape[2:]], 0.0, []
        for i in order:
            a, before, run = axes[i], prod(dims[: 1 + i]), prod(dims[2 + i :])
            costs = {m: _pass_cost(m, before, a, run, pairs and dims[1 + i] % 2 == 0) for m in _methods(a, run)}
            method = min(costs, key=costs.__getitem__)
            cost += costs[method]
            passes.append((i, method, (before, dims[1 + i], run)))
            dims[1 + i] = _offset_pitch(a) if method == "offsets" else a.out
        if cost < best[0]:
            best = (cost, passes)
    return best


def _joint_cost(axes: Sequence[_Axis], shape: tuple[int, ...]) -> float:
    """The joint sum, or inf where numpy would not add its taps in order: with one window per channel the
    reduction runs along contiguous taps, and numpy adds 8 or more of those pairwise."""
    taps, windows = prod(a.taps for a in axes), prod(a.out for a in axes)
    if windows == 1 and taps >= 8:
        return float("inf")
    gathered = shape[0] * shape[1] * taps * windows
    return gathered * (_NS_GATHER + _NS_ADD) + shape[0] * shape[1] * prod(shape[2:]) * _NS_COPY + 4 * _NS_CALL


def _make_plan(axes: Sequence[_Axis], shape: tuple[int, ...], out: tuple[int, ...], dtype: np.dtype,
               divisor: float | tuple[np.ndarray, ...]) -> _Plan:
    """The cheapest way by the cost estimate; a tie goes to the joint sum (OpenVINO's values)."""
    work = np.dtype(np.float32 if dtype.kind == "f" and dtype.itemsize <= 4 else np.float64)
    batch, size = shape[0] * shape[1], prod(shape) * work.itemsize
    need = -(-size // _PART_BYTES)  # equal parts only, and not many more than needed (a prime batch: one)
    parts = next((d for d in range(need, 2 * need + 1) if batch % d == 0), 1)
    shape = (1, batch // parts, *shape[2:])
    cost, passes = _best_passes(axes, shape, work == np.float32 and _LITTLE)
    exact = _readonly(np.asarray(divisor if isinstance(divisor, float) else _outer(divisor), work))
    common, borders = _divisor_borders(axes, divisor, work)
    if _joint_cost(axes, shape) <= cost:
        sums = (shape[0] * shape[1], *(a.out for a in axes))
        return _Plan(parts, shape, out, sums[1:], sums, work, (_joint_step(axes, shape),), True, exact, common,
                     borders)
    steps, dims = [], [shape[0] * shape[1], *shape[2:]]
    for i, method, shape3 in passes:
        a = axes[i]
        if method == "whole":
            steps.append(_whole_step(shape3))
        elif method == "taps":
            steps.append(_taps_step(a, shape3, work))
        elif method == "views":
            steps.append(_views_step(a, shape3))
        elif method == "sampled":
            steps.append(_sampled_step(a, shape3, work))
        else:
            steps.append(_offsets_step(a, shape3, work))
        dims[1 + i] = _offset_pitch(a) if method == "offsets" else a.out
    return _Plan(parts, shape, out, tuple(a.out for a in axes), tuple(dims), work, tuple(steps), False, exact,
                 common, borders)


def _divisor_borders(axes: Sequence[_Axis], divisor: float | tuple[np.ndarray, ...],
                     dtype: np.dtype) -> tuple[np.ndarray | None, tuple[tuple[int, int, int], ...]]:
    """(common divisor, border ranges) for _Plan when the windows with a divisor of their own (exclude-pad
    windows with taps outside the data) are at most a quarter, else (None, ())."""
    if isinstance(divisor, float) or not all(a.stride for a in axes):
        return None, ()
    borders, share = [], 0.0
    for i, (a, counts) in enumerate(zip(axes, divisor, strict=True)):
        lo, hi = a.inner()
        for first, last in ((0, lo), (hi, a.out)) if hi > lo else ((0, a.out),):
            if last > first and np.any(counts[first:last] != a.taps):
                borders.append((i, first, last))
                share += (last - first) / a.out
    if share > 0.25:
        return None, ()
    return _readonly(np.asarray(prod(a.taps for a in axes), dtype)), tuple(borders)


def _merge_whole(axes: list[_Axis], shape: tuple[int, ...]) -> tuple[list[_Axis], tuple[int, ...]]:
    """Trailing axes that are one window of all their data become one axis (one vector product)."""
    n = len(axes)
    while n and axes[n - 1].whole:
        n -= 1
    if len(axes) - n < 2:
        return axes, shape
    length = prod(a.length for a in axes[n:])
    return [*axes[:n], _regular(length, 1, length, 1, 1, 0)], (*shape[: 2 + n], length)


def _outer(vectors: tuple[np.ndarray, ...]) -> np.ndarray:
    m = np.ones(())
    for v in vectors:
        m = np.multiply.outer(m, v)
    return m


def _run(x: np.ndarray, plan: _Plan) -> np.ndarray:
    """Pool ``x`` (N, C, spatial...): sums in plan.dtype, then the averages in x's dtype."""
    n, c = x.shape[:2]
    converted, scratch = _Scratch(), _Scratch()
    if x.dtype == plan.dtype and x.flags.c_contiguous:
        data = x.reshape(plan.parts, -1)
    else:
        data = converted.empty((plan.parts, x.size // plan.parts), plan.dtype)
        np.copyto(data.reshape(x.shape), x, casting="unsafe")
    out = np.empty((n, c, *plan.out), x.dtype)
    parts = out.reshape(plan.parts, -1, *plan.windows)
    with np.errstate(all="ignore"):  # inf and NaN inputs give OpenVINO's inf and NaN, silently
        for acc, part in zip(data, parts, strict=True):
            for step in plan.steps:
                acc = step(acc, scratch)
            _finish(acc.reshape(plan.sums)[(slice(None), *(slice(0, w) for w in plan.windows))], plan, part)
            scratch.release()  # the next part reuses the same buffers, still in the cache
    converted.release()
    return out


def _finish(sums: np.ndarray, plan: _Plan, out: np.ndarray) -> None:
    """out = sums / divisor. Floats divide in the accumulation type and round once into out's type;
    integers round half to even, 0 for an empty window."""
    if out.dtype.kind == "f":
        np.divide(sums, plan.divisor if plan.common is None else plan.common, out=out, casting="same_kind")
        for axis, lo, hi in plan.borders:
            at = (slice(None),) * (1 + axis) + (slice(lo, hi),)
            np.divide(sums[at], plan.divisor[at[1:]], out=out[at], casting="same_kind")
        return
    q = sums / plan.divisor
    np.rint(q, out=q)
    q[np.isnan(q)] = 0
    np.copyto(out, q, casting="unsafe")


def _check_dtype(x: np.ndarray) -> None:
    if x.dtype.kind not in "fiu":
        raise TypeError(f"pooling needs a float or integer input, got {x.dtype}")


@lru_cache(maxsize=256)
def _pool_plan(
    shape: tuple[int, ...],
    dtype: np.dtype,
    kernel: tuple[int, ...],
    strides: tuple[int, ...],
    pads_begin: tuple[int, ...],
    pads_end: tuple[int, ...],
    exclude_pad: bool,
    rounding_type: str,
    auto_pad: str,
    dilations: tuple[int, ...],
) -> _Plan:
    if auto_pad not in AUTO_PADS:
        raise OpValidationError(f"auto_pad {auto_pad!r} is not one of {', '.join(AUTO_PADS)}")
    if rounding_type not in ROUNDING_TYPES:
        raise OpValidationError(f"rounding_type {rounding_type!r} is not one of {', '.join(ROUNDING_TYPES)}")
    geo = pool_geometry(
        tuple(Dim(n, n) for n in shape), kernel, strides, dilations, pads_begin, pads_end, auto_pad,
        rounding_type, exclude_pad,
    )
    axes = [_regular(length, geo.spatial[i].lo, kernel[i], strides[i], dilations[i], geo.pads_begin[i])
            for i, length in enumerate(shape[2:])]
    full, out = float(prod(kernel)), tuple(a.out for a in axes)
    if counts_padding(geo.pads_begin, geo.pads_end, exclude_pad):
        return _make_plan(*_merge_whole(axes, shape), out, dtype, full)
    counts = tuple(
        cpu_window_counts(a.length, kernel[i], a.stride, dilations[i], geo.pads_begin[i], a.out).astype(np.float64)
        for i, a in enumerate(axes)
    )
    if all(np.all(c == k) for c, k in zip(counts, kernel, strict=True)):
        return _make_plan(*_merge_whole(axes, shape), out, dtype, full)
    return _make_plan(axes, shape, out, dtype, counts)


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
    plan = _pool_plan(
        x.shape, x.dtype, tuple(kernel), tuple(strides), tuple(pads_begin), tuple(pads_end),
        bool(exclude_pad), rounding_type.lower(), auto_pad.lower(),  # OpenVINO reads enums case-insensitively
        tuple(dilations) if dilations is not None else (1,) * len(kernel),
    )
    return _run(x, plan)


@lru_cache(maxsize=256)
def _adaptive_plan(shape: tuple[int, ...], dtype: np.dtype, sizes: tuple[int, ...]) -> _Plan:
    if len(shape) not in (3, 4, 5):
        raise OpValidationError(f"expected a 3-D, 4-D or 5-D input, got rank {len(shape)}")
    if len(sizes) != len(shape) - 2:
        raise OpValidationError(f"output_size has {len(sizes)} values, expected {len(shape) - 2}")
    axes, counts = zip(*(adaptive_bins(n, o) for n, o in zip(shape[2:], sizes, strict=True)), strict=True)
    return _make_plan(axes, shape, sizes, dtype, counts)


def adaptive_avg_pool(x: np.ndarray, output_size: Sequence[int]) -> np.ndarray:
    """AdaptiveAvgPool-8 on an (N, C, spatial...) array; bins may hold a single element (upsampling).

    A size of 0 (or below, which OpenVINO reads as 0: measured) gives an empty output, as OpenVINO CPU does.
    """
    x = np.asarray(x)
    _check_dtype(x)
    sizes = tuple(int(v) for v in np.asarray(output_size).reshape(-1))
    if len(sizes) == x.ndim - 2 and x.ndim in (3, 4, 5) and any(v <= 0 for v in sizes):
        return np.zeros(x.shape[:2] + tuple(max(v, 0) for v in sizes), x.dtype)
    return _run(x, _adaptive_plan(x.shape, x.dtype, sizes))
