"""Numpy reference kernels for AvgPool-1/14/16 and AdaptiveAvgPool-8 with OpenVINO CPU's values.

Geometry (validation, effective pads, output lengths) comes from pool_geometry, so these kernels
agree with shape inference by construction. Values follow docs/SEMANTICS.md sections 3 and 4 and are
checked against OpenVINO CPU by tests/ops/test_kernel_conformance.py:

- Sums accumulate in float64; the result is cast back to the input dtype.
- Integer results are rounded half to even, as OpenVINO CPU does.
- A window with no tap inside the data gives what OpenVINO CPU gives: NaN, or -0.0 when it starts
  more than one dilation past the end of the data (see cpu_window_counts); 0 for integers.

Speed: numpy pays per pass over memory, so the work is a few passes over cache-resident data.
Channels go in chunks that fit the L2 cache. A chunk is cast once into a zero-padded float64
frame; then either each spatial axis is summed by adding one strided slice per kernel tap (the
last axis over the flattened buffer, so that a slice is one long strided run), or every axis is
contracted by a matrix product that also moves it to the front (one BLAS call per axis, no
per-channel loop), whichever a cost estimate prefers. Plans are cached per shape and attributes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from math import prod

import numpy as np

from ..base.dims import Dim
from ..base.errors import OpValidationError
from .pool_geometry import AUTO_PADS, ROUNDING_TYPES, counts_padding, cpu_window_counts, dilated, pool_geometry

__all__ = ["adaptive_avg_pool", "avg_pool"]

# Cost estimate in nanoseconds (numpy 2.4 and OpenBLAS on a Xeon): an element-wise add per element,
# contiguous or strided, and per contiguous run it is split into; a matrix-product flop; a strided
# copy per element (moving the channel axis back after matrix products).
_NS_ADD, _NS_ADD_STRIDED, _NS_RUN, _NS_FLOP, _NS_MOVE = 0.3, 0.6, 6.0, 0.03, 1.0
_CHUNK_BYTES = 1 << 20  # float64 buffers of one chunk of channels: about half an L2 cache


@dataclass(frozen=True, slots=True)
class _Axis:
    """One spatial axis: the data sits at ``pad`` in a zero frame; window o sums frame[o*stride + taps]."""

    length: int  # input length
    pad: int  # frame index of data element 0 (the effective pad at the begin)
    frame: int  # the windows' extent; on the last axis rounded up to a multiple of the stride
    out: int
    stride: int
    taps: tuple[int, ...]  # frame offsets of the taps of window 0; empty for adaptive bins
    bins: np.ndarray | None = None  # (out, frame) 0/1 membership when windows are not tap patterns

    @property
    def data(self) -> int:
        """Data elements that land inside the frame."""
        return max(0, min(self.length, self.frame - self.pad))

    def matrix(self) -> np.ndarray:
        """(out, frame) 0/1 matrix: row o marks the frame positions window o sums."""
        if self.bins is not None:
            return self.bins
        m = np.zeros((self.out, self.frame))
        rows = np.arange(self.out)
        for t in self.taps:
            m[rows, rows * self.stride + t] = 1.0
        return m


@dataclass(frozen=True, slots=True)
class _Step:
    """Sum over one spatial axis in natural layout, by slices or (last axis only) a matrix product."""

    axis: int
    matmul: bool
    dims: tuple[int, ...]  # spatial shape of the output buffer (the last axis may keep unused columns)


@dataclass(frozen=True, slots=True)
class _Plan:
    """How to pool one input shape. Modes: "slices" (steps in natural layout), "rotate" (one matrix
    product per axis, each moving its axis to the front) and "kron" (one product over all axes)."""

    axes: tuple[_Axis, ...]
    mode: str
    steps: tuple[_Step, ...]  # "slices" only
    matrices: tuple[np.ndarray | None, ...]  # per axis; "kron": the one Kronecker product matrix
    folded: bool  # the divisor is in the matrices (floats without empty windows)
    scale: np.ndarray | float  # 1/divisor (inf for an empty window: 0 * inf is its NaN), laid out as acc
    divisor: np.ndarray | float  # the exact divisor, output layout, for integer results

    def buffer_elements(self, chunk: int) -> list[int]:
        """Elements of the buffer each step writes, for a chunk of ``chunk`` channels."""
        if self.mode == "slices":
            return [chunk * prod(s.dims) for s in self.steps]
        if self.mode == "kron":
            return [chunk * prod(a.out for a in self.axes)]
        dims, sizes = [chunk, *(a.frame for a in self.axes)], []
        for a in reversed(self.axes):
            dims = [a.out, *dims[:-1]]
            sizes.append(prod(dims))
        return sizes

    def chunk(self, channels: int) -> int:
        per_channel = 8 * (prod(a.frame for a in self.axes) + sum(self.buffer_elements(1)))
        return max(1, min(channels, _CHUNK_BYTES // max(1, per_channel)))


def _slices_plan(axes: Sequence[_Axis]) -> tuple[float, tuple[_Step, ...]]:
    """The cheapest axis order for slice sums (the last axis may use a matrix product), and its cost per channel."""
    last = len(axes) - 1
    best: tuple[float, tuple[_Step, ...]] = (float("inf"), ())
    for order in permutations(range(len(axes))):
        dims, total, steps = [a.frame for a in axes], 0.0, []
        for i in order:
            a = axes[i]
            frame, dims[i] = dims[i], a.out
            n = prod(dims)
            slices = float("inf")
            if a.taps:
                adds = max(1, len(a.taps) - 1)  # the first add takes two taps
                run = prod(dims[i + 1 :]) * (dims[i] if a.stride == 1 else 1)
                per = (_NS_ADD if a.stride == 1 else _NS_ADD_STRIDED) if i == last else _NS_ADD_STRIDED + _NS_RUN / run
                slices = adds * n * per
            matmul = 2 * frame * n * _NS_FLOP if i == last else float("inf")
            if i == last and slices <= matmul:
                dims[i] = frame // a.stride  # flat layout: rows keep their unused end columns
            steps.append(_Step(i, matmul < slices, tuple(dims)))
            total += min(slices, matmul)
        if total < best[0]:
            best = (total, tuple(steps))
    return best


def _rotate_cost(axes: Sequence[_Axis]) -> float:
    dims, total = [a.frame for a in axes], 0.0
    for i in reversed(range(len(axes))):
        frame, dims[i] = dims[i], axes[i].out
        total += 2 * frame * prod(dims) * _NS_FLOP
    return total + prod(dims) * _NS_MOVE


def _make_plan(axes: tuple[_Axis, ...], divisor: float | tuple[np.ndarray, ...], is_float: bool) -> _Plan:
    """Choose the cheapest mode; ``divisor`` is a scalar or one vector per axis (the divisor is their outer product)."""
    slices_cost, steps = _slices_plan(axes)
    costs = {
        "slices": slices_cost,
        "rotate": _rotate_cost(axes),
        "kron": 2 * prod(a.frame for a in axes) * prod(a.out for a in axes) * _NS_FLOP,
    }
    mode = min(costs, key=costs.__getitem__)
    with np.errstate(divide="ignore"):
        factors = 1.0 / divisor if isinstance(divisor, float) else tuple(1.0 / d for d in divisor)
    scale, exact = _outer(factors), _outer(divisor)
    if mode == "slices":
        if not isinstance(scale, float):  # laid out like the last step's buffer, unused columns included
            padded = np.zeros(steps[-1].dims)
            padded[tuple(slice(0, a.out) for a in axes)] = scale
            scale = padded
        used = {s.axis for s in steps if s.matmul}
        matrices = tuple(a.matrix() if i in used else None for i, a in enumerate(axes))
        return _Plan(axes, mode, steps, _readonly(matrices), False, _readonly((scale,))[0], exact)
    # the divisor can go into the matrix rows, axis by axis, unless a window has no data: its NaN (1/0)
    # and -0.0 (a negative count) need the sum multiplied afterwards
    folded = is_float and (isinstance(divisor, float) or all(np.all(d > 0) for d in divisor))
    matrices = tuple(a.matrix() for a in axes)
    if folded:
        if isinstance(factors, float):
            matrices = (matrices[0] * factors, *matrices[1:])
        else:
            matrices = tuple(m * f[:, None] for m, f in zip(matrices, factors, strict=True))
    if mode == "kron":
        kron = np.ones((1, 1))
        for m in matrices:
            rows, cols = kron.shape[0] * m.shape[0], kron.shape[1] * m.shape[1]
            kron = (kron[:, None, :, None] * m[None, :, None, :]).reshape(rows, cols)
        matrices = (kron,)
    return _Plan(axes, mode, (), _readonly(matrices), folded, _readonly((scale,))[0], exact)


def _outer(vectors: float | tuple[np.ndarray, ...]) -> float | np.ndarray:
    if isinstance(vectors, float):
        return vectors
    m = np.ones(())
    for v in vectors:
        m = np.multiply.outer(m, v)
    m.setflags(write=False)
    return m


def _readonly(arrays: tuple) -> tuple:
    """Plans are cached and shared, so their arrays must never change."""
    for m in arrays:
        if isinstance(m, np.ndarray):
            m.setflags(write=False)
    return arrays


def _run(x: np.ndarray, plan: _Plan) -> np.ndarray:
    """Pool ``x`` (N, C, spatial...) chunk by chunk of channels."""
    axes = plan.axes
    n, c = x.shape[:2]
    nc = n * c
    src = x.reshape((nc,) + x.shape[2:])
    out = np.empty((nc,) + tuple(a.out for a in axes), x.dtype)
    chunk = plan.chunk(nc)
    stage = _zero_frame((chunk,) + tuple(a.frame for a in axes), axes)
    stage_at = tuple(slice(a.pad, a.pad + a.data) for a in axes)
    data_at = tuple(slice(0, a.data) for a in axes)
    buffers = [np.empty(size) for size in plan.buffer_elements(chunk)]
    valid = (slice(None),) + tuple(slice(0, a.out) for a in axes)

    for c0 in range(0, nc, chunk):
        b = min(chunk, nc - c0)
        stage[(slice(0, b),) + stage_at] = src[(slice(c0, c0 + b),) + data_at]
        if plan.mode == "rotate":
            acc = np.moveaxis(_rotate(stage[:b], plan, buffers), -1, 0)
        elif plan.mode == "kron":
            acc = buffers[0][: b * plan.matrices[0].shape[0]].reshape(b, -1)
            np.matmul(stage[:b].reshape(b, -1), plan.matrices[0].T, out=acc)
            acc = acc.reshape((b,) + out.shape[1:])
        else:
            acc = stage[:b]
            for step, buf in zip(plan.steps, buffers, strict=True):
                dst = buf[: b * prod(step.dims)].reshape((b,) + step.dims)
                if step.matmul:
                    m = plan.matrices[step.axis]
                    np.matmul(acc.reshape(-1, m.shape[1]), m.T, out=dst.reshape(-1, m.shape[0]))
                else:
                    _slices_axis(acc, dst, 1 + step.axis, axes[step.axis])
                acc = dst
        _finish(acc, valid, plan, out[c0 : c0 + b])
    return out.reshape((n, c) + out.shape[1:])


def _zero_frame(shape: tuple[int, ...], axes: Sequence[_Axis]) -> np.ndarray:
    """An uninitialised frame with zeros where no data is ever copied (pads and unused ends)."""
    frame = np.empty(shape)
    for i, a in enumerate(axes):
        lead = (slice(None),) * (1 + i)
        frame[lead + (slice(0, a.pad),)] = 0.0
        frame[lead + (slice(a.pad + a.data, None),)] = 0.0
    return frame


def _rotate(acc: np.ndarray, plan: _Plan, buffers: list[np.ndarray]) -> np.ndarray:
    """Contract the last axis with a matrix product whose result puts the new axis first; repeat for
    every axis. (b, F1, .., Fn) becomes (O1, .., On, b) with one BLAS call per axis."""
    for m, buf in zip(reversed(plan.matrices), buffers, strict=True):
        rest = acc.shape[:-1]
        dst = buf[: m.shape[0] * prod(rest)].reshape(m.shape[0], -1)
        np.matmul(m, acc.reshape(-1, m.shape[1]).T, out=dst)
        acc = dst.reshape((m.shape[0],) + rest)
    return acc


def _slices_axis(src: np.ndarray, dst: np.ndarray, axis: int, a: _Axis) -> None:
    """dst = window sums along ``axis``, one add per tap; the last axis is strided over the flattened buffer."""
    if axis == src.ndim - 1:
        s, d = src.reshape(-1), dst.reshape(-1)
        views = [(d[: v.size], v) for v in (s[t :: a.stride] for t in a.taps)]
    else:
        lead = (slice(None),) * axis
        views = [(dst, src[lead + (slice(t, t + (a.out - 1) * a.stride + 1, a.stride),)]) for t in a.taps]
    if len(views) == 1:
        np.copyto(*views[0])
        return
    (_, v0), (d1, v1) = views[0], views[1]
    np.add(v0[: v1.size], v1, out=d1)
    if axis == src.ndim - 1:
        d[v1.size :] = 0.0  # unused columns the later taps do not reach: keep them finite
    for d_t, v in views[2:]:
        np.add(d_t, v, out=d_t)


def _finish(acc: np.ndarray, valid: tuple[slice, ...], plan: _Plan, out: np.ndarray) -> None:
    """Write the averages of the float64 sums ``acc`` into ``out``. Floats: multiply by 1/divisor in place
    (0 * inf is NaN for an empty window), then cast; integers: divide exactly, round half to even, and
    give 0 for an empty window."""
    if out.dtype.kind == "f":
        if not plan.folded:
            with np.errstate(invalid="ignore"):
                if plan.mode == "rotate":  # acc is a transposed view: scale while casting
                    np.multiply(acc, plan.scale, out=out, casting="same_kind")
                    return
                np.multiply(acc, plan.scale, out=acc)
        np.copyto(out, acc[valid], casting="same_kind")
        return
    with np.errstate(invalid="ignore", divide="ignore"):
        q = acc[valid] / plan.divisor
    np.rint(q, out=q)
    q[np.isnan(q)] = 0
    np.copyto(out, q, casting="unsafe")


def _check_dtype(x: np.ndarray) -> None:
    if x.dtype.kind not in "fiu":
        raise TypeError(f"pooling needs a float or integer input, got {x.dtype}")


@lru_cache(maxsize=256)
def _pool_plan(
    shape: tuple[int, ...],
    is_float: bool,
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
    axes = []
    for i, length in enumerate(shape[2:]):
        out, s = geo.spatial[i].lo, strides[i]
        extent = (out - 1) * s + dilated(kernel[i], dilations[i])
        frame = -(-extent // s) * s if i == len(kernel) - 1 else extent  # the last axis is strided flat
        axes.append(_Axis(length, geo.pads_begin[i], frame, out, s, tuple(k * dilations[i] for k in range(kernel[i]))))

    full = float(prod(kernel))
    if counts_padding(geo.pads_begin, geo.pads_end, exclude_pad):
        return _make_plan(tuple(axes), full, is_float)
    counts = tuple(
        cpu_window_counts(a.length, kernel[i], a.stride, dilations[i], a.pad, a.out).astype(np.float64)
        for i, a in enumerate(axes)
    )
    uniform = all(np.all(c == k) for c, k in zip(counts, kernel, strict=True))
    return _make_plan(tuple(axes), full if uniform else counts, is_float)


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
        x.shape, x.dtype.kind == "f", tuple(kernel), tuple(strides), tuple(pads_begin), tuple(pads_end),
        bool(exclude_pad), rounding_type.lower(), auto_pad.lower(),  # OpenVINO reads enums case-insensitively
        tuple(dilations) if dilations is not None else (1,) * len(kernel),
    )
    return _run(x, plan)


def _bins(length: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(size, length) 0/1 membership of the AdaptiveAvgPool bins [floor(i*L/O), ceil((i+1)*L/O)), and bin sizes."""
    i = np.arange(size)
    start = (i * length) // size
    end = -((-(i + 1) * length) // size)
    j = np.arange(length)
    return ((j >= start[:, None]) & (j < end[:, None])).astype(np.float64), (end - start).astype(np.float64)


@lru_cache(maxsize=256)
def _adaptive_plan(shape: tuple[int, ...], is_float: bool, sizes: tuple[int, ...]) -> _Plan:
    if len(shape) not in (3, 4, 5):
        raise OpValidationError(f"expected a 3-D, 4-D or 5-D input, got rank {len(shape)}")
    if len(sizes) != len(shape) - 2:
        raise OpValidationError(f"output_size has {len(sizes)} values, expected {len(shape) - 2}")
    axes, counts = [], []
    for n, o in zip(shape[2:], sizes, strict=True):
        member, count = _bins(n, o)
        axes.append(_Axis(n, 0, n, o, 1, (), member))
        counts.append(count)
    return _make_plan(tuple(axes), tuple(counts), is_float)


def adaptive_avg_pool(x: np.ndarray, output_size: Sequence[int]) -> np.ndarray:
    """AdaptiveAvgPool-8 on an (N, C, spatial...) array; bins may hold a single element (upsampling).

    A size of 0 (or below, which OpenVINO reads as 0: measured) gives an empty output, as OpenVINO CPU does.
    """
    x = np.asarray(x)
    _check_dtype(x)
    sizes = tuple(int(v) for v in np.asarray(output_size).reshape(-1))
    if len(sizes) == x.ndim - 2 and x.ndim in (3, 4, 5) and any(v <= 0 for v in sizes):
        return np.zeros(x.shape[:2] + tuple(max(v, 0) for v in sizes), x.dtype)
    return _run(x, _adaptive_plan(x.shape, x.dtype.kind == "f", sizes))
