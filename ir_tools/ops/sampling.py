"""GridSample-9 (opset9 to opset16): shape rule, reference kernel and rounding rule.

GridSample samples data [N, C, H, W] at the points of a grid [N, H_out, W_out, 2] of normalized (x, y) in [-1, 1]
(torch.nn.functional.grid_sample; optical flow networks such as RAFT warp with it); the output is [N, C, H_out,
W_out] of data's element type. Semantics (OpenVINO's specification and reference, reference/grid_sample.hpp): a
normalized g becomes ``(g + 1) (L - 1) / 2`` with align_corners, else ``((g + 1) L - 1) / 2``, for the length L of
its axis; bilinear weighs the 2x2 pixels around it, bicubic the 4x4 ones (Keys' kernel, A = -0.75), nearest picks
the pixel at ``lrint`` of it (half to even). Padding applies to each integer pixel index the interpolation reads:
zeros gives 0 outside, border clamps it, reflection folds it (about -0.5 and L - 0.5 without align_corners, about 0
and L - 1 with it).

Measured on openvino 2026.4.1 (tests/ops/test_grid_sample_conformance.py), beyond the specification: shape
inference takes the batch from the merge of the two (an empty intersection refuses), channels from data, H_out and
W_out from the grid, each unknown when its input's rank is; the last dim of the grid need only be compatible with 2
(an interval holding 2), ranks only compatible with 4; data may be of any element type (booleans and integers
pass), the grid must be a floating point type (or dynamic). The CPU plugin agrees with the reference within the
rounding rule, nearest's exact halves included. The kernel refuses integer data (the reference rounds every step
into it) and non-finite grids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .arithmetic import merge_dim
from .rounding import ACCUMULATION_UNIT, is_exact, output_rounding
from .spec import Kernel, OpSpec, TensorType, on

MODES = ("bilinear", "bicubic", "nearest")
PADDINGS = ("zeros", "border", "reflection")
_CUBIC_A = -0.75
#: Beyond this many pixels a coordinate is off every image: clipped there (no int64 overflow), the result unchanged.
_FAR = 2.0**40


@dataclass(frozen=True, slots=True)
class GridSampleAttrs:
    align_corners: bool = A.attr("align_corners", A.BOOL, False)
    mode: str = A.attr("mode", A.enum(*MODES), "bilinear")
    padding_mode: str = A.attr("padding_mode", A.enum(*PADDINGS), "zeros")


def _infer(a: GridSampleAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, grid = inputs
    if grid.element is not None and grid.element not in REAL_TYPES:
        raise OpValidationError(f"the grid's element type must be a floating point type, got {grid.element}")
    for t, what in ((data, "data"), (grid, "grid")):
        if t.shape is not None and len(t.shape) != 4:
            raise OpValidationError(f"the {what} must be 4-D, got rank {len(t.shape)}")
    out = [DYNAMIC] * 4
    if grid.shape is not None:
        if merge_dim(grid.shape[3], Dim(2, 2)) is None:
            raise OpValidationError(f"the last dim of the grid must be 2, got {grid.shape[3]}")
        out[0], out[2], out[3] = grid.shape[0], grid.shape[1], grid.shape[2]
        if data.shape is not None:
            batch = merge_dim(grid.shape[0], data.shape[0])
            if batch is None:
                raise OpValidationError(f"the data's batch {data.shape[0]} does not match the grid's {grid.shape[0]}")
            out[0], out[1] = batch, data.shape[1]
    elif data.shape is not None:
        out[0], out[1] = data.shape[0], data.shape[1]
    return [TensorType(data.element, tuple(out))]


# --- kernel ----------------------------------------------------------------------------------------


def _operands(args: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    x, grid = np.asarray(args[0]), np.asarray(args[1])
    if x.ndim != 4 or grid.ndim != 4 or grid.shape[3] != 2 or grid.shape[0] != x.shape[0]:
        raise OpValidationError(f"GridSample of data {list(x.shape)} on a grid {list(grid.shape)}: needs [N, C, H, W] "
                                "and [N, H_out, W_out, 2]")
    if x.dtype.kind != "f":
        raise UnsupportedError(f"GridSample of {x.dtype} data")
    if grid.dtype.kind != "f":
        raise OpValidationError(f"GridSample of a {grid.dtype} grid: it must be floating point")
    if not np.all(np.isfinite(grid)):
        raise UnsupportedError("GridSample on a grid with infinities or NaN")
    if (x.shape[2] == 0 or x.shape[3] == 0) and x.shape[1] and grid[..., 0].size:
        raise UnsupportedError(f"GridSample of empty data {list(x.shape)}")
    return x, grid.astype(np.float64)


def _scale(a: GridSampleAttrs, length: int) -> float:
    """d(position)/d(normalized coordinate)."""
    return (length - 1) / 2.0 if a.align_corners else length / 2.0


def _positions(a: GridSampleAttrs, grid: np.ndarray, shape: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The exact unnormalized (y, x) of every grid point, [N, H_out, W_out] each."""
    out = []
    for g, length in ((grid[..., 1], shape[2]), (grid[..., 0], shape[3])):
        p = (g + 1.0) * (length - 1) / 2.0 if a.align_corners else ((g + 1.0) * length - 1.0) / 2.0
        out.append(np.clip(p, -_FAR, _FAR))
    return out[0], out[1]


def _fold(a: GridSampleAttrs, i: np.ndarray, length: int) -> tuple[np.ndarray, np.ndarray | None]:
    """Padding of integer indices along one axis: indices inside [0, length) and, for zeros, where they are valid."""
    if a.padding_mode == "zeros":
        return np.clip(i, 0, length - 1), (i >= 0) & (i < length)
    if a.padding_mode == "border":
        return np.clip(i, 0, length - 1), None
    if a.align_corners:
        period = 1 if length == 1 else 2 * (length - 1)
        m = np.abs(i) % period
        return np.where(m >= length, period - m, m), None
    m = i % (2 * length)
    return np.where(m >= length, 2 * length - 1 - m, m), None


def _pixels(a: GridSampleAttrs, x: np.ndarray, iy: np.ndarray, ix: np.ndarray) -> np.ndarray:
    """data[n, c, iy, ix] padded, for integer indices [N, H_out, W_out]: [N, C, H_out, W_out] in float64."""
    y, vy = _fold(a, iy, x.shape[2])
    xx, vx = _fold(a, ix, x.shape[3])
    n = np.arange(x.shape[0]).reshape(-1, 1, 1, 1)
    c = np.arange(x.shape[1]).reshape(1, -1, 1, 1)
    v = x[n, c, y[:, None], xx[:, None]].astype(np.float64)
    if vy is not None:
        v = np.where((vy & vx)[:, None], v, 0.0)
    return v


def _cubic(t: np.ndarray) -> list[np.ndarray]:
    """Keys' weights of the taps at -1, 0, 1, 2 for a fraction t in [0, 1)."""
    k = _CUBIC_A
    s, r = t + 1.0, 1.0 - t
    q = 2.0 - t
    return [((k * s - 5 * k) * s + 8 * k) * s - 4 * k,
            ((k + 2) * t - (k + 3)) * t * t + 1,
            ((k + 2) * r - (k + 3)) * r * r + 1,
            ((k * q - 5 * k) * q + 8 * k) * q - 4 * k]


def _taps(a: GridSampleAttrs, py: np.ndarray, px: np.ndarray) -> list[tuple[int, int, np.ndarray, np.ndarray]]:
    """(dy, dx, weight y, weight x) of each tap relative to the top-left pixel floor(p) (nearest: round(p))."""
    if a.mode == "nearest":
        one = np.ones_like(py)
        return [(0, 0, one, one)]
    ty, tx = py - np.floor(py), px - np.floor(px)
    if a.mode == "bilinear":
        wy, wx, offsets = [1.0 - ty, ty], [1.0 - tx, tx], (0, 1)
    else:
        wy, wx, offsets = _cubic(ty), _cubic(tx), (-1, 0, 1, 2)
    return [(oy, ox, wy[j], wx[i]) for j, oy in enumerate(offsets) for i, ox in enumerate(offsets)]


def _origin(a: GridSampleAttrs, p: np.ndarray) -> np.ndarray:
    return (np.rint(p) if a.mode == "nearest" else np.floor(p)).astype(np.int64)


def _sample(a: GridSampleAttrs, x: np.ndarray, grid: np.ndarray, absolute: bool = False) -> np.ndarray:
    """The exact result in float64 (``absolute``: with |weights|, the propagation of a bound given as ``x``)."""
    py, px = _positions(a, grid, x.shape)
    y0, x0 = _origin(a, py), _origin(a, px)
    out = np.zeros(x.shape[:2] + py.shape[1:])
    for oy, ox, wy, wx in _taps(a, py, px):
        w = wy * wx
        out += (np.abs(w) if absolute else w)[:, None] * _pixels(a, x, y0 + oy, x0 + ox)
    return out


def _run(a: GridSampleAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, grid = _operands(args)
    return [_sample(a, x, grid).astype(x.dtype)]


# --- rounding rule ---------------------------------------------------------------------------------


def _keys_constants() -> tuple[float, float]:
    """max over t of sum |w_i(t)| and of sum |w_i'(t)| for Keys' kernel, with a margin."""
    t = np.linspace(0.0, 1.0, 20001)
    h = 1e-6
    w = np.abs(np.array(_cubic(t))).sum(0)
    dw = np.abs((np.array(_cubic(t + h)) - np.array(_cubic(t - h))) / (2 * h)).sum(0)
    return 1.01 * float(w.max()), 1.01 * float(dw.max())


_KEYS_SUM, _KEYS_SLOPE = _keys_constants()
#: max sum |w_j w_i| over bicubic's 4 x 4 taps: the weights are products of one per axis, so (sum |w|)^2 (1.89 at a
#: half pixel in both axes, 1.375 per axis): what the data's errors, or a move between any two positions, can make of
#: an output beyond one axis's sum.
_KEYS_AREA = _KEYS_SUM**2


def _patch(a: GridSampleAttrs, x: np.ndarray, y0: np.ndarray, x0: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """The padded pixels at offsets lo..hi from (y0, x0): [rows, cols, N, C, H_out, W_out]."""
    span = range(lo, hi + 1)
    return np.array([[_pixels(a, x, y0 + j, x0 + i) for i in span] for j in span])


def _rounding(kernel: Kernel, a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
              outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """OpenVINO CPU unnormalizes the grid in f32: the position is off by a few f32 roundings of its terms (up to
    about the image's size), plus the grid's own error times the scale (L - 1) / 2 or L / 2. Bilinear and bicubic
    interpolants are continuous in the position: the output moves by that slack times their slope, bounded by the
    differences of the neighbouring (padded) pixels; nearest jumps where the position lies within the slack of a
    half pixel: then the largest difference between the candidate pixels. A slack of a pixel or more: the range of
    the image (with the zeros padding brings in), for bicubic times Keys' sum |w_j w_i| over its 4 x 4 taps, (sum
    |w|)^2 (an output is within half the range times that of the range's middle). Besides, the f32 weights and the
    weighted sum (a few u of sum |pixels|), the output's roundings, and data's bound through the |weights|."""
    x, grid = _operands(args)
    py, px = _positions(a, grid, x.shape)
    u = ACCUMULATION_UNIT
    slack = []
    for p, g, length, axis in ((py, grid[..., 1], x.shape[2], 1), (px, grid[..., 0], x.shape[3], 0)):
        s = 4.0 * u * (2.0 * np.abs(p) + (np.abs(g) + 1.0) * length + 2.0)
        if not is_exact(bounds[1]):
            s = s + _scale(a, length) * np.broadcast_to(bounds[1], grid.shape)[..., axis]
        slack.append(s[:, None])
    sy, sx = slack
    y0, x0 = np.floor(py).astype(np.int64), np.floor(px).astype(np.int64)
    if a.mode == "bicubic":
        patch = _patch(a, x, y0, x0, -2, 3)
    else:
        patch = _patch(a, x, y0, x0, -1, 2)
    if a.mode == "nearest":
        # a half pixel within the slack: any pixel of the 2x2 (or 3x3 at a pixel's centre, for a slack of a
        # pixel) candidates around it
        near = (np.abs(py - np.rint(py))[:, None] + sy >= 0.5) | (np.abs(px - np.rint(px))[:, None] + sx >= 0.5)
        chosen = _pixels(a, x, np.rint(py).astype(np.int64), np.rint(px).astype(np.int64))
        moved = np.abs(patch - chosen).max(axis=(0, 1))
        local = np.where(near, moved, 0.0)
        own = np.zeros_like(local)
    else:
        dx = np.abs(np.diff(patch, axis=1)).max(axis=(0, 1))
        dy = np.abs(np.diff(patch, axis=0)).max(axis=(0, 1))
        if a.mode == "bilinear":
            local = sx * dx + sy * dy
            own = 6.0 * u * np.abs(patch[1:3, 1:3]).sum(axis=(0, 1))
        else:
            spread = patch.max(axis=(0, 1)) - patch.min(axis=(0, 1))
            local = _KEYS_SUM * _KEYS_SLOPE * spread * (sx + sy)
            own = 40.0 * u * np.abs(patch[1:5, 1:5]).sum(axis=(0, 1))
    far = (sx >= 1.0) | (sy >= 1.0)
    if far.any():
        flat = x.reshape(x.shape[:2] + (-1,)).astype(np.float64)
        top, bottom = flat.max(-1), flat.min(-1)
        if a.padding_mode == "zeros":
            top, bottom = np.maximum(top, 0.0), np.minimum(bottom, 0.0)
        whole = ((top - bottom) * (_KEYS_AREA if a.mode == "bicubic" else 1.0))[..., None, None]
        local = np.where(far, np.broadcast_to(whole, local.shape), local)
    bound = local + own + output_rounding(outputs[0])
    if not is_exact(bounds[0]):
        b = np.broadcast_to(bounds[0], x.shape).astype(np.float64)
        if is_exact(bounds[1]):
            bound = bound + _sample(a, b, grid, absolute=True)
        else:  # the position moves too: the largest bound around it, times sum |w| (|w_j w_i| for bicubic)
            near_b = _patch(a, b, y0, x0, -2 if a.mode == "bicubic" else -1, 3 if a.mode == "bicubic" else 2)
            b_local = near_b.max(axis=(0, 1)) * (_KEYS_AREA if a.mode == "bicubic" else 1.0)
            b_far = np.broadcast_to(b.reshape(b.shape[:2] + (-1,)).max(-1)[..., None, None], bound.shape)
            bound = bound + np.where(far, b_far * (_KEYS_AREA if a.mode == "bicubic" else 1.0), b_local)
    return [np.where(np.isfinite(bound), bound, np.inf)]


GRID_SAMPLE_9 = OpSpec("GridSample", "GridSample-9", GridSampleAttrs, (2, 2), 1, _infer, _run, rounding=_rounding,
                       evaluates=on({"f32"}))
