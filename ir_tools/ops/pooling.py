"""AvgPool-1/14/16, AdaptiveAvgPool-8, MaxPool-1/8/14 and AdaptiveMaxPool-8: attributes, shape rules and (MaxPool,
AdaptiveMaxPool) kernels.

MaxPool shares the window geometry of pool_geometry (without AvgPool's exclude-pad check) and is
checked against OpenVINO by tests/ops/test_maxpool_conformance.py. Measured on openvino 2026.4.1,
beyond the specification:

- MaxPool-8/14 check ``axis`` (in [-rank, rank-1]) before anything else, when the rank is known;
  index_element_type may be any element type for shape inference (the evaluator computes i32/i64).
- Values are what OpenVINO's reference computes, and the CPU too: each window starts from the
  lowest float32 (-3.4e38; -inf once rounded to f16) or the integer type's minimum, and a tap
  replaces it only when strictly greater, so the first maximum wins, NaN and -inf are never taken,
  padding is ignored, and a window with nothing taken gives that lowest value with index 0 (the
  channel's first element, plus the offset below).
- Indices count elements of the whole input from batch 0, channel 0 (i.e. n*C*H*W + c*H*W + h*W + w),
  then are taken modulo the product of the dims from ``axis`` on: axis 0 keeps them, axis 1 counts
  within the batch item, axis 2 within the channel.

AdaptiveMaxPool-8 takes AdaptiveAvgPool-8's bins (kernels: bin i of an axis of L into O covers
[floor(i L / O), ceil((i + 1) L / O))) and its shape rule, plus index_element_type, which must be i32 or i64; its
second output is each maximum's flat index within its spatial plane (d H W + h W + w). Checked by
tests/ops/test_roi_pooling_conformance.py. Measured on openvino 2026.4.1 (CPU):

- CPU refuses to compile the layer with index_element_type i64, the default ("CPU plugin does not support i64 for
  use with oneDNN"), whichever outputs the model reads: ``check`` refuses it (``crashes``).
- Each bin starts from its first element (in row-major order) and a later one replaces it only when strictly
  greater: ties keep the first, a NaN first element stays (its index 0 of the bin), a later NaN is never taken,
  +0 and -0 keep the first one's sign.
- CPU computes in f32: f64 is converted saturating (+-inf and beyond are +-3.4028235e38, NaN stays), the result an f64
  of an f32; integers go through f32 (i32 beyond 2^24 rounded, so 2^24 + 1 ties with 2^24 and the first wins),
  i64, u32 and u64 wrapped to i32 first (u32 2^31 + 5 is negative, i64 2^40 + 1 is 1), and back saturating at
  2147483520 (the largest f32 not above 2^31 - 1), then to the type (an i32 -1 is u32 4294967295, sign extended to
  u64). The kernel computes so, bit for bit; its rounding rule is a selection's (``moves``) on the unconverted
  values (a bound in f64 is not rounded to f32).
- Where the indices are not read and every output size is 1, CPU runs a ReduceMax instead (its AdaptivePoolToReduce):
  a bin of -inf gives -3.4e38, a NaN counts by its place, a zero's sign is another: only special values differ from
  the kernel, which cannot know the outputs read (passes/downgrade/adaptive_pool.py holds the same facts).
- 180 seeded cases (every element type above, ranks 3 to 5, specials, ties, sizes 0 and upsampling): values and
  indices bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import reduce
from math import prod

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .core import ELEMENT, NoAttrs
from .kernels import adaptive_avg_pool, adaptive_bins, avg_pool
from .operands import normalize_axis
from .pool_geometry import AUTO_PADS, ROUNDING_TYPES, PoolGeometry, dilated, pool_geometry
from .rounding import accumulation, is_exact, moves
from .spec import Evaluates, Kernel, OpSpec, TensorType, all_but, never, on, on_arithmetic


@dataclass(frozen=True, slots=True)
class AvgPoolAttrs:
    """AvgPool-1 attributes (also AvgPool-14, whose rounding_type may be ceil_torch).

    Defaults are OpenVINO's for an omitted attribute: no pads (read as zeros), exclude-pad true.
    """

    kernel: tuple[int, ...] = A.attr("kernel", A.UINT_LIST)
    strides: tuple[int, ...] = A.attr("strides", A.UINT_LIST)
    pads_begin: tuple[int, ...] = A.attr("pads_begin", A.UINT_LIST, ())
    pads_end: tuple[int, ...] = A.attr("pads_end", A.UINT_LIST, ())
    exclude_pad: bool = A.attr("exclude-pad", A.BOOL, True)
    auto_pad: str = A.attr("auto_pad", A.enum(*AUTO_PADS), "explicit")
    rounding_type: str = A.attr("rounding_type", A.enum(*ROUNDING_TYPES), "floor")

    @property
    def dilations_or_ones(self) -> tuple[int, ...]:
        return getattr(self, "dilations", None) or (1,) * len(self.kernel)


@dataclass(frozen=True, slots=True)
class AvgPool16Attrs(AvgPoolAttrs):
    dilations: tuple[int, ...] | None = A.attr("dilations", A.UINT_LIST, None)


def _no_dilations(a: AvgPool16Attrs, read: frozenset[int]) -> str | None:
    """OpenVINO's reader reads an AvgPool-16 whose dilations are omitted or empty (as none: its shape inference takes
    ones), but its CPU plugin crashes compiling it (a segmentation fault, whatever the rank, rounding_type and
    auto_pad; measured on 2026.4.1)."""
    if a.dilations:
        return None
    ones = ", ".join(["1"] * len(a.kernel))
    return (f"dilations is {'empty' if a.dilations is not None else 'omitted'}: OpenVINO reads the layer, but its CPU "
            f'plugin crashes compiling it (a segmentation fault); write dilations="{ones}"')


def geometry(a: AvgPoolAttrs, data: TensorType, label: str) -> PoolGeometry:
    """The resolved window geometry of an AvgPool layer (``label`` e.g. "AvgPool-14") with this input."""
    return pool_geometry(
        data.shape,
        a.kernel,
        a.strides,
        a.dilations_or_ones,
        a.pads_begin,
        a.pads_end,
        a.auto_pad,
        a.rounding_type,
        a.exclude_pad,
        label != "AvgPool-1",
    )


def _avg_pool(label: str):
    def infer(a: AvgPoolAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
        g = geometry(a, inputs[0], label)
        if g.spatial is None:
            return [TensorType(inputs[0].element, (DYNAMIC,) * (2 + len(a.kernel)))]
        return [TensorType(inputs[0].element, inputs[0].shape[:2] + g.spatial)]

    return infer


def _adaptive(a, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
    """OpenVINO's rule: it checks the data rank and output_size's first dim only, reads any numeric
    output_size (floats truncated), makes -1 a dynamic dim and other negatives 0."""
    data, size = inputs
    if data.shape is not None and len(data.shape) not in (3, 4, 5):
        raise OpValidationError(f"expected a 3-D, 4-D or 5-D input, got rank {len(data.shape)}")
    if data.shape is None:
        return [TensorType(data.element, None)]
    spatial = len(data.shape) - 2
    if size.shape is not None:
        if len(size.shape) == 0:
            raise OpValidationError("output_size is a scalar, expected one value per spatial axis")
        count = size.shape[0]
        if count.lo > spatial or (count.hi is not None and count.hi < spatial):
            raise OpValidationError(f"output_size has {count} values, expected {spatial}")
    if values[1] is None:
        return [TensorType(data.element, data.shape[:2] + (DYNAMIC,) * spatial)]
    raw = np.asarray(values[1]).reshape(-1)
    if raw.dtype.kind not in "iuf":
        raise OpValidationError(f"output_size of type {raw.dtype} cannot be read as sizes")
    sizes = [int(v) for v in (np.trunc(raw) if raw.dtype.kind == "f" else raw)]
    if len(sizes) != spatial:
        raise OpValidationError(f"output_size has {len(sizes)} values, expected {spatial}")
    if any(v >= 2**63 for v in sizes):
        raise OpValidationError(f"output_size {sizes} has a value beyond the i64 range")
    dims = tuple(DYNAMIC if v == -1 else Dim(max(v, 0), max(v, 0)) for v in sizes)
    return [TensorType(data.element, data.shape[:2] + dims)]


def _run_avg_pool(a: AvgPoolAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [avg_pool(args[0], a.kernel, a.strides, a.pads_begin, a.pads_end, a.exclude_pad, a.rounding_type,
                     a.auto_pad, a.dilations_or_ones)]


def _run_adaptive(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [adaptive_avg_pool(args[0], [int(v) for v in np.asarray(args[1]).reshape(-1)])]


def _avg_pool_spec(label: str, attrs: type,
                   crashes: Callable[[AvgPool16Attrs, frozenset[int]], str | None] | None = None) -> OpSpec:
    return OpSpec("AvgPool", label, attrs, (1, 1), 1, _avg_pool(label), _run_avg_pool,
                  rounding=accumulation(lambda a, args, outs: prod(a.kernel), data=(0,)), empty_windows=True,
                  crashes=crashes, evaluates=never)


AVG_POOL_1 = _avg_pool_spec("AvgPool-1", AvgPoolAttrs)
AVG_POOL_14 = _avg_pool_spec("AvgPool-14", AvgPoolAttrs)
AVG_POOL_16 = _avg_pool_spec("AvgPool-16", AvgPool16Attrs, _no_dilations)
ADAPTIVE_AVG_POOL_8 = OpSpec("AdaptiveAvgPool", "AdaptiveAvgPool-8", NoAttrs, (2, 2), 1, _adaptive, _run_adaptive, (1,),
                             rounding=accumulation(lambda a, args, outs: _largest_bin(args[0].shape, outs[0].shape),
                                                   data=(0,)), evaluates=never)


def _largest_bin(data: tuple[int, ...], out: tuple[int, ...]) -> int:
    """Taps of the largest adaptive bin: at most ceil(n / o) + 1 per axis."""
    return prod(-(-n // max(o, 1)) + 1 for n, o in zip(data[2:], out[2:], strict=True))


# --- MaxPool ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MaxPoolAttrs:
    """MaxPool-1 attributes; defaults are OpenVINO's for an omitted attribute (no pads, explicit, floor)."""

    kernel: tuple[int, ...] = A.attr("kernel", A.UINT_LIST)
    strides: tuple[int, ...] = A.attr("strides", A.UINT_LIST)
    pads_begin: tuple[int, ...] = A.attr("pads_begin", A.UINT_LIST, ())
    pads_end: tuple[int, ...] = A.attr("pads_end", A.UINT_LIST, ())
    auto_pad: str = A.attr("auto_pad", A.enum(*AUTO_PADS), "explicit")
    rounding_type: str = A.attr("rounding_type", A.enum(*ROUNDING_TYPES), "floor")

    @property
    def dilations_or_ones(self) -> tuple[int, ...]:
        return getattr(self, "dilations", None) or (1,) * len(self.kernel)


@dataclass(frozen=True, slots=True)
class MaxPool8Attrs(MaxPoolAttrs):
    """MaxPool-8 and MaxPool-14: empty dilations mean ones; indices i64 counted from axis 0 by default."""

    dilations: tuple[int, ...] = A.attr("dilations", A.UINT_LIST, ())
    index_element_type: str = A.attr("index_element_type", ELEMENT, "i64")
    axis: int = A.attr("axis", A.INT, 0)


def max_pool_geometry(a: MaxPoolAttrs, data: TensorType, label: str) -> PoolGeometry:
    """The resolved window geometry of a MaxPool layer (``label`` e.g. "MaxPool-8") with this input."""
    if isinstance(a, MaxPool8Attrs) and data.shape is not None:
        normalize_axis(a.axis, len(data.shape))
    try:
        return pool_geometry(data.shape, a.kernel, a.strides, a.dilations_or_ones, a.pads_begin, a.pads_end,
                             a.auto_pad, a.rounding_type, False, label == "MaxPool-14")
    except OpValidationError as exc:
        if "ceil_torch" in exc.message:
            raise OpValidationError("rounding_type ceil_torch needs MaxPool-14 or later (opset14+)") from None
        raise


def _empty_dilations(a: MaxPool8Attrs, read: frozenset[int]) -> str | None:
    """What OpenVINO's CPU plugin does with empty dilations, which its reader and shape inference take for ones
    (measured on 2026.4): with ceil_torch (MaxPool-14) it crashes compiling the layer (a segmentation fault, on static
    and dynamic dims alike); where the model reads the indices (output 1) it runs OpenVINO's reference MaxPool, which
    refuses them at every inference ("One of the MaxPool params does not match the 3D implementation"), ceil_torch
    or not (then it does not crash)."""
    if a.dilations:
        return None
    ones = f'write dilations="{", ".join(["1"] * len(a.kernel))}"'
    if 1 in read:
        return (f"dilations is empty and the model reads the indices (output 1): OpenVINO reads it as ones, but its "
                f"CPU plugin runs the layer by its reference implementation, which refuses empty dilations at every "
                f"inference; {ones}")
    if a.rounding_type == "ceil_torch":
        return (f"dilations is empty with rounding_type ceil_torch: OpenVINO reads it as ones, but its CPU plugin "
                f"crashes compiling the layer (a segmentation fault); {ones}")
    return None


def _max_pool(label: str):
    def infer(a: MaxPoolAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
        data = inputs[0]
        g = max_pool_geometry(a, data, label)
        shape = (DYNAMIC,) * (2 + len(a.kernel)) if g.spatial is None else data.shape[:2] + g.spatial
        if not isinstance(a, MaxPool8Attrs):
            return [TensorType(data.element, shape)]
        return [TensorType(data.element, shape), TensorType(a.index_element_type, shape)]

    return infer


_INDEX_TYPES = {"i32": np.int32, "i64": np.int64}


def _run_max_pool(label: str):
    def run(a: MaxPoolAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = np.asarray(args[0])
        if isinstance(a, MaxPool8Attrs) and a.index_element_type not in _INDEX_TYPES:
            raise UnsupportedError(f"index_element_type {a.index_element_type}: the reference computes i32 and i64")
        g = max_pool_geometry(a, TensorType(None, tuple(Dim(n, n) for n in x.shape)), label)
        assert g.spatial is not None
        values, indices = max_pool(x, a.kernel, a.strides, a.dilations_or_ones, g.pads_begin,
                                   tuple(d.lo for d in g.spatial))
        if not isinstance(a, MaxPool8Attrs):
            return [values]
        axis = normalize_axis(a.axis, x.ndim)
        if axis:
            indices %= max(1, int(np.prod(x.shape[axis:], dtype=np.int64)))
        return [values, indices.astype(_INDEX_TYPES[a.index_element_type])]

    return run


def max_pool(x: np.ndarray, kernel: Sequence[int], strides: Sequence[int], dilations: Sequence[int],
             pads_begin: Sequence[int], out: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Max pooling with OpenVINO's values and indices counted from axis 0 (module doc), for ``out`` windows
    per spatial axis whose first starts ``pads_begin`` before the data."""
    if x.dtype.kind == "f":
        work, lowest, never = (np.float64 if x.dtype == np.float64 else np.float32), \
            -float(np.finfo(np.float32).max), np.nan
    elif x.dtype.kind in "iu":
        work, lowest = x.dtype, np.iinfo(x.dtype).min
        never = lowest  # never strictly greater than the start value
    else:
        raise UnsupportedError(f"MaxPool of element type {x.dtype}")
    n = len(kernel)
    lengths = x.shape[2:]
    frame = [max(pb + length, (o - 1) * s + dilated(k, d) if o else 0)
             for pb, length, o, s, k, d in zip(pads_begin, lengths, out, strides, kernel, dilations, strict=True)]
    padded = np.full(x.shape[:2] + tuple(frame), never, work)
    padded[(Ellipsis, *(slice(pb, pb + length) for pb, length in zip(pads_begin, lengths, strict=True)))] = x
    best = np.full(x.shape[:2] + tuple(out), lowest, work)
    index = np.zeros(x.shape[:2] + tuple(out), np.int64)
    place = np.cumprod((1,) + tuple(lengths[:0:-1]))[::-1]  # element strides of the spatial axes
    starts = [np.arange(o, dtype=np.int64) * s - pb for o, s, pb in zip(out, strides, pads_begin, strict=True)]
    for taps in np.ndindex(*kernel):
        view = padded[(Ellipsis, *(slice(t * d, t * d + (o - 1) * s + 1, s) if o else slice(0, 0)
                                   for t, d, o, s in zip(taps, dilations, out, strides, strict=True)))]
        better = view > best
        np.copyto(best, view, where=better)
        at = sum((starts[i] + taps[i] * dilations[i]).reshape((-1,) + (1,) * (n - 1 - i)) * int(place[i])
                 for i in range(n))
        np.copyto(index, np.broadcast_to(at, index.shape), where=better)
    batch, channels = x.shape[:2]
    index += (np.arange(batch * channels, dtype=np.int64) * int(np.prod(lengths, dtype=np.int64))).reshape(
        (batch, channels) + (1,) * n)
    with np.errstate(over="ignore"):  # -3.4e38 is -inf in f16, as on the CPU
        return best.astype(x.dtype), index


def _max_pool_spec(label: str, attrs: type, outputs: int, evaluates: Evaluates,
                   crashes: Callable[[MaxPool8Attrs, frozenset[int]], str | None] | None = None) -> OpSpec:
    return OpSpec("MaxPool", label, attrs, (1, 1), outputs, _max_pool(label), _run_max_pool(label),
                  rounding=moves(0), crashes=crashes, evaluates=evaluates)


#: What OpenVINO evaluates of MaxPool-8 and -14: data of any type but f64, i16, u16, boolean (MaxPool-1: not i8, u8).
_MAX_POOL_8_EVALUATES = on(all_but("f64", "i16", "u16", "boolean"))
MAX_POOL_1 = _max_pool_spec("MaxPool-1", MaxPoolAttrs, 1, on_arithmetic)
MAX_POOL_8 = _max_pool_spec("MaxPool-8", MaxPool8Attrs, 2, _MAX_POOL_8_EVALUATES, _empty_dilations)
MAX_POOL_14 = _max_pool_spec("MaxPool-14", MaxPool8Attrs, 2, _MAX_POOL_8_EVALUATES, _empty_dilations)


# --- AdaptiveMaxPool -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AdaptiveMaxPoolAttrs:
    """AdaptiveMaxPool-8: indices i64 by default."""

    index_element_type: str = A.attr("index_element_type", ELEMENT, "i64")


def _adaptive_max(a: AdaptiveMaxPoolAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    if a.index_element_type not in _INDEX_TYPES:
        raise OpValidationError(f"index_element_type must be i32 or i64, got {a.index_element_type}")
    out = _adaptive(a, inputs, values)[0]
    return [out, TensorType(a.index_element_type, out.shape)]


def _i64_indices(a: AdaptiveMaxPoolAttrs, read: frozenset[int]) -> str | None:
    """OpenVINO's CPU plugin cannot compile an AdaptiveMaxPool-8 of i64 indices (measured on 2026.4.1)."""
    if a.index_element_type != "i64":
        return None
    return ('index_element_type is i64 (the default): OpenVINO\'s CPU plugin refuses to compile the layer ("does '
            'not support i64 for use with oneDNN"); write index_element_type="i32"')


#: The largest f32 not above 2^31 - 1: where OpenVINO CPU saturates an f32 result converted back to i32.
_I32_TOP = np.float32(2147483520.0)
_F32_MAX = float(np.finfo(np.float32).max)


def adaptive_max_pool(x: np.ndarray, sizes: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Each adaptive bin's first largest element (strictly greater replaces) and its flat index within the spatial
    plane, computed in ``x``'s own type."""
    spatial = x.shape[2:]
    shape = x.shape[:2] + tuple(sizes)
    if not all(sizes) or not x.shape[0] * x.shape[1]:
        return np.zeros(shape, x.dtype), np.zeros(shape, np.int64)
    if not all(spatial):
        raise UnsupportedError(f"AdaptiveMaxPool of an empty plane {list(x.shape)} into bins {list(sizes)}")
    axes = [adaptive_bins(length, out)[0].index for length, out in zip(spatial, sizes, strict=True)]
    n = len(axes)
    best = np.zeros(shape, x.dtype)
    index = np.zeros(shape, np.int64)
    place = np.cumprod((1,) + tuple(spatial[:0:-1]))[::-1]  # element strides of the spatial axes
    for k, taps in enumerate(np.ndindex(*(ix.shape[1] for ix in axes))):
        at = [ix[:, t].reshape((-1,) + (1,) * (n - 1 - i)) for i, (ix, t) in enumerate(zip(axes, taps, strict=True))]
        valid = reduce(np.logical_and, [p >= 0 for p in at])
        view = x[(Ellipsis, *np.ix_(*(np.maximum(ix[:, t], 0) for ix, t in zip(axes, taps, strict=True))))]
        take = np.broadcast_to(valid, shape) if k == 0 else valid & (view > best)
        np.copyto(best, view, where=take)
        np.copyto(index, np.broadcast_to(sum(p * int(s) for p, s in zip(at, place, strict=True)), shape), where=take)
    return best, index


def _cpu_values(x: np.ndarray) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """``x`` as OpenVINO CPU pools it (module doc) and the way back to its type."""
    if x.dtype == np.float64:
        return np.clip(x, -_F32_MAX, _F32_MAX).astype(np.float32), lambda v: v.astype(np.float64)
    if x.dtype.kind == "f":
        return x, lambda v: v
    if x.dtype.kind not in "iu":
        raise UnsupportedError(f"AdaptiveMaxPool of element type {x.dtype}")
    if x.dtype.itemsize <= 2:
        return x.astype(np.float32), lambda v: v.astype(x.dtype)
    wrapped = x.astype(np.int64).astype(np.int32).astype(np.float32)
    return wrapped, lambda v: np.minimum(v, _I32_TOP).astype(np.int32).astype(x.dtype)


def _sizes(size: np.ndarray) -> list[int]:
    """output_size as OpenVINO CPU reads it: a negative size is 0."""
    return [max(int(v), 0) for v in np.asarray(size).reshape(-1)]


def _run_adaptive_max(a: AdaptiveMaxPoolAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(args[0])
    if a.index_element_type not in _INDEX_TYPES:
        raise UnsupportedError(f"index_element_type {a.index_element_type}: OpenVINO computes i32 and i64")
    work, back = _cpu_values(x)
    values, index = adaptive_max_pool(work, _sizes(args[1]))
    return [back(values), index.astype(_INDEX_TYPES[a.index_element_type])]


def _run_unconverted(a: AdaptiveMaxPoolAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The selection on the values themselves: what the rounding rule moves bounds through (in float64)."""
    values, index = adaptive_max_pool(np.asarray(args[0]), _sizes(args[1]))
    return [values, index]


_SELECTS = moves(0)


def _adaptive_max_rounding(kernel: Kernel, a: AdaptiveMaxPoolAttrs, args: Sequence[np.ndarray],
                           bounds: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """A selection's rule (``moves``), its bounds taken through the unconverted selection; the indices exact where
    the data are, else unbounded (a moved value may win its bin)."""
    values = _SELECTS(_run_unconverted, a, args, bounds, outputs)[0]
    return [values, values if is_exact(values) else np.full((), np.inf)]


ADAPTIVE_MAX_POOL_8 = OpSpec("AdaptiveMaxPool", "AdaptiveMaxPool-8", AdaptiveMaxPoolAttrs, (2, 2), 2, _adaptive_max,
                             _run_adaptive_max, (1,), rounding=_adaptive_max_rounding, crashes=_i64_indices,
                             evaluates=never)
