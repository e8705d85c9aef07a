"""Convolution-1, GroupConvolution-1, ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1:
shape rules and reference kernels; BinaryConvolution-1: its shape rule (Convolution's on 4-D data), the cases
OpenVINO's CPU plugin refuses, and its kernel as OpenVINO CPU computes it (below).

The shape rules are OpenVINO's (convolution_shape_inference*.hpp, group_convolution*.hpp,
convolution_backprop_shape_inference*.hpp), down to its interval arithmetic (``ov::Iv``,
``ov::Dimension``), and are checked against the installed openvino by
tests/ops/test_convolution_conformance.py. Measured on openvino 2026.4.1, beyond the specification:

1. The number of spatial axes comes from the data rank (minus 2), else from the filters rank
   (minus 2, grouped minus 3), else (backprop) from the output_shape input's length, else from the
   first non-empty of strides, dilations, pads_begin, pads_end; when none says it the output is a
   dynamic rank and nothing is checked. A rank-1 data input counts as "none says it" (OpenVINO's
   unsigned rank - 2 wraps to its "undefined" marker): with all those attributes empty it is
   accepted with a dynamic-rank output.
2. Empty (or omitted) strides and dilations mean ones, empty pads and output_padding zeros.
3. A kernel (filter spatial dim) of 0 acts as 1: its dilated size is ``(0 - 1)`` clipped to 0,
   times the dilation, plus 1. A dynamic kernel dim dilates to ``1..``.
4. Iv dims follow ov::Iv: sums saturate at infinity, differences clip at 0, so an
   interval or dynamic input gives e.g. ``1..`` or ``1..3``; only static dims are checked against
   the kernel. same_upper/same_lower give ``ceil(L / stride)`` per bound, with pads of 0 on any axis
   whose data or kernel dim is not static.
5. GroupConvolution checks ``C / filter_cin`` (both bounds, in double precision, the upper one
   floored, the lower one ceiled) against the groups dim and takes the intersection; on a partly
   known channel dim that gives bounds such as ``2..4611686018427387904`` (2**63 / 2 in double).
6. ConvolutionBackpropData without output_shape: ``(L - 1)*S + (K - 1)*D + 1 - pb - pe + op`` per
   bound; a bound that comes out negative becomes unknown (a static axis gives ``?``, not an
   error). same_* pads are then zero. With an output_shape input: its values are the spatial dims
   (negative values are refused), same_* pads split ``(L-1)*S + Kd - out + op`` with the larger half
   at the *start* for same_upper (the reverse of the forward convolution); an output_shape
   OpenVINO cannot read gives that many dynamic dims, or, when its own length is unknown, no
   spatial dims at all (a rank-2 output).

Kernels: float results are IEEE-rounded once from float64 sums (BLAS matrix products over an
im2col buffer, chunked so it stays under ``IM2COL_BYTES``), integers are summed in int64 and wrap
to the element type. tests/ops/test_support_kernels.py and test_convolution_conformance.py check
them against OpenVINO CPU within the summation-error bound.

BinaryConvolution-1 (mode xnor-popcount), measured on openvino 2026.4.1 CPU (tests/ops/test_convolution_conformance.py),
where the specification says only "0/1 values, 0 means -1":

7. The data are binarised by sign: ``x > 0`` is 1 (+1), anything else (0, -0, NaN, negatives) is 0 (-1); a positive
   f32 subnormal is 1. f64 data are rounded to f32 first (an f64 value that underflows to an f32 zero is 0).
8. The u1 filters are read from their bytes least significant bit first, where OpenVINO's u1 element order (its
   Constant's values, ``base/packed.unpack``) is most significant bit first: the filter element at flat index
   ``i`` CPU pairs with the data is the u1 element ``8 (i // 8) + 7 - i % 8`` (whole bytes where CPU is right, on
   channels a multiple of 8, rule 11; the kernel reads a last partial byte's missing elements as 0).
9. Each tap inside the data adds +1 where its bit equals the filter's, else -1. A padded tap: with ``pad_value`` 0
   (or -0) it adds nothing (CPU excludes it); with ``pad_value`` exactly 1 (as an f32) it is a 1 bit; with any other
   value (0.5, 2, -1, NaN, inf) a 0 bit: not the value's sign.
10. The count is an integer converted to the output (the data's type) once: exact in f32 and f64 (below 2**24
    taps: CPU's popcount, an int32, goes through f32), and in f16 rounded to nearest even past 2048 (measured past
    4096) as numpy rounds it, so the rounding rule is exact where the data are (``_binary_rounding``).
11. CPU defects (values OpenVINO CPU gives otherwise, which the kernel does not reproduce): data of a channel count
    that is not a multiple of 8 (its reorder of the data to bits and its kernel disagree on where a pixel's bits
    lie: the count mixes other pixels' and batch items' bits); ``pad_value`` 0 with a width stride of 3 or 5 (its
    count of the taps it excludes is off by whole channels; measured on strides 1 to 6); ``pad_value`` 0 and an
    output row whose window holds no data row (dilated taps over a short height: the count is 0; CPU's is not, with
    a kernel 2 high and dilations of 2 to 5; a window of no data column it counts 0).
12. CPU refuses to compile ("has unsupported parameters", ``_binary_cpu_refuses``) a width pad at the start, or an
    overhang at the end of the last full block of output columns, larger than its block of ``ur_w`` columns (4 with
    AVX-512, else 2; fewer where the output is narrower), and a kernel wider than 7 with a pad at the start and a
    stride above 1 (bin_conv.cpp's ``args_ok``, measured on 626 cases with AVX-512).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np

from ..base.dims import DYNAMIC, Dim, Shape
from ..base.errors import OpValidationError
from . import attrs as A
from .cpu import mayiuse
from .intervals import ANY, INF, ONE, Iv, canon, dadd, ddiv, dmul, dsub, guarded, is_empty, is_static, iv, meet, to_dim
from .pool_geometry import AUTO_PADS, dilated, same_pads
from .rounding import (
    EXACT,
    accumulation,
    any_differs,
    is_exact,
    output_rounding,
    scaled_squares,
    square_scale,
    unscaled_squares,
)
from .spec import Kernel, OpSpec, RoundingRule, TensorType, never

#: The most the im2col buffer of one chunk may take (float64 / int64 elements, 8 bytes each).
IM2COL_BYTES = 64 << 20


@dataclass(frozen=True, slots=True)
class ConvolutionAttrs:
    """Convolution-1 and GroupConvolution-1. Negative pads are refused: OpenVINO CPU cannot compile them.

    Omitted or empty strides/dilations are ones and pads zeros, as OpenVINO reads them (rule 2).
    """

    strides: tuple[int, ...] = A.attr("strides", A.UINT_LIST, ())
    dilations: tuple[int, ...] = A.attr("dilations", A.UINT_LIST, ())
    pads_begin: tuple[int, ...] = A.attr("pads_begin", A.UINT_LIST, ())
    pads_end: tuple[int, ...] = A.attr("pads_end", A.UINT_LIST, ())
    auto_pad: str = A.attr("auto_pad", A.enum(*AUTO_PADS), "explicit")


@dataclass(frozen=True, slots=True)
class ConvolutionBackpropAttrs:
    """ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1; output_padding empty means zeros."""

    strides: tuple[int, ...] = A.attr("strides", A.UINT_LIST, ())
    dilations: tuple[int, ...] = A.attr("dilations", A.UINT_LIST, ())
    pads_begin: tuple[int, ...] = A.attr("pads_begin", A.UINT_LIST, ())
    pads_end: tuple[int, ...] = A.attr("pads_end", A.UINT_LIST, ())
    auto_pad: str = A.attr("auto_pad", A.enum(*AUTO_PADS), "explicit")
    output_padding: tuple[int, ...] = A.attr("output_padding", A.UINT_LIST, ())


@dataclass(frozen=True, slots=True)
class BinaryConvolutionAttrs:
    """BinaryConvolution-1: Convolution-1's attributes (negative pads refused likewise: OpenVINO CPU cannot compile
    them), with ``mode`` (one value) and the ``pad_value`` of its padding; OpenVINO reads either omitted."""

    strides: tuple[int, ...] = A.attr("strides", A.UINT_LIST, ())
    dilations: tuple[int, ...] = A.attr("dilations", A.UINT_LIST, ())
    pads_begin: tuple[int, ...] = A.attr("pads_begin", A.UINT_LIST, ())
    pads_end: tuple[int, ...] = A.attr("pads_end", A.UINT_LIST, ())
    mode: str = A.attr("mode", A.enum("xnor-popcount"), "xnor-popcount")
    pad_value: float = A.attr("pad_value", A.FLOAT, 0.0)
    auto_pad: str = A.attr("auto_pad", A.enum(*AUTO_PADS), "explicit")


# --- ov::util::dim helpers on intervals (ops/intervals.py) --------------------------------------


def _floor_div(a: Iv, divisor: int) -> Iv:
    """ov::util::dim::floor_div."""
    if is_static(a):
        return a[0] // divisor, a[0] // divisor
    if a[1] == INF:
        return a[0] // divisor, INF
    return a[0] // divisor, a[1] // divisor


def _ceil_div(a: Iv, divisor: int) -> Iv:
    """ov::util::dim::ceil_div."""
    def up(v: int) -> int:
        return 0 if v == 0 else 1 + (v - 1) // divisor

    if a[1] == INF:
        return up(a[0]), INF
    return up(a[0]), up(a[1])


def _dilated(kernel: Iv, dilation: int) -> Iv:
    """ov::util::dim::dilated on a dimension: (K - 1) * D + 1 in interval arithmetic (rule 3)."""
    return dadd(dmul(dsub(kernel, ONE), (dilation, dilation)), ONE)


def _padded(a: Iv, pad: int) -> Iv:
    """ov::util::dim::padded: a bound that would go negative becomes unknown."""
    if pad == 0:
        return a

    def bound(v: int) -> int:
        return -1 if v == INF or v + pad < 0 else v + pad

    hi = bound(a[1])
    if is_static(a):
        return ANY if hi == -1 else (hi, hi)
    lo = bound(a[0])
    return canon(0 if lo == -1 else lo, INF if hi == -1 else hi)


# --- shape rules -----------------------------------------------------------------------------------

_NOT_NUMERIC = ("boolean", "string")


def _element(inputs: Sequence[TensorType]) -> str | None:
    a, b = inputs[0].element, inputs[1].element
    if a is not None and b is not None and a != b:
        raise OpValidationError(f"data element type {a} and filters element type {b} differ")
    et = a if a is not None else b
    if et in _NOT_NUMERIC:
        raise OpValidationError(f"element type {et} is not numeric")
    return et


def _num_spatial(data: Shape, filters: Shape, filter_extra: int, a, out_len: int | None = None) -> int | None:
    """Rule 1: the number of spatial axes, or None when nothing says it."""
    ns = -1
    if data is not None:
        ns = len(data) - 2
        if ns < -1:
            raise OpValidationError(f"expected a 3-D, 4-D or 5-D input, got rank {len(data)}")
    elif filters is not None:
        ns = len(filters) - filter_extra
        if ns < -1:
            raise OpValidationError(f"the filters have rank {len(filters)}, expected at least {filter_extra + 1}")
    if ns == -1 and out_len:
        ns = out_len
    if ns == -1:
        ns = next((len(v) for v in (a.strides, a.dilations, a.pads_begin, a.pads_end) if v), -1)
    return None if ns == -1 else ns


def _check_attrs(a, ns: int, backprop: bool) -> tuple[tuple[int, ...], ...]:
    """OpenVINO's common_attributes check, after its resizing of empty lists (rule 2)."""
    strides = a.strides or (1,) * ns
    dilations = a.dilations or (1,) * ns
    pb, pe = a.pads_begin or (0,) * ns, a.pads_end or (0,) * ns
    if len(strides) != ns:
        raise OpValidationError(f"strides has {len(strides)} values, expected {ns} (one per spatial axis)")
    if len(dilations) != ns:
        raise OpValidationError(f"dilations has {len(dilations)} values, expected {ns} (one per spatial axis)")
    if len(pb) != ns or len(pe) != ns:
        bad, which = (pb, "pads_begin") if len(pb) != ns else (pe, "pads_end")
        raise OpValidationError(f"{which} has {len(bad)} values, expected {ns} (one per spatial axis)")
    if 0 in strides:
        raise OpValidationError(f"strides {list(strides)} contain a zero")
    if 0 in dilations:
        raise OpValidationError(f"dilations {list(dilations)} contain a zero")
    op = ()
    if backprop:
        op = a.output_padding or (0,) * ns
        if len(op) != ns:
            raise OpValidationError(f"output_padding has {len(op)} values, expected {ns} (one per spatial axis)")
    return strides, dilations, pb, pe, op


def _check_data_rank(data: Shape, binary: bool = False) -> None:
    """Data of 3 to 5 dims; a BinaryConvolution's of 4."""
    if data is not None and binary and len(data) != 4:
        raise OpValidationError(f"expected a 4-D input, got rank {len(data)}")
    if data is not None and len(data) not in (3, 4, 5):
        raise OpValidationError(f"expected a 3-D, 4-D or 5-D input, got rank {len(data)}")


def _check_ranks(data: Shape, filters: Shape, filter_extra: int) -> None:
    if data is not None and filters is not None and len(data) != max(0, len(filters) - filter_extra + 2):
        raise OpValidationError(f"the data rank {len(data)} does not fit filters of rank {len(filters)} "
                                f"(expected rank {len(data) + filter_extra - 2})")


def _channel(shape: Shape, axis: int, what: str) -> Iv:
    if len(shape) <= axis:
        raise OpValidationError(f"the {what} of rank {len(shape)} have no axis {axis}")
    return iv(shape[axis])


def _check_channels(data: Shape, filters: Shape, filter_axis: int) -> None:
    """Convolution / ConvolutionBackpropData: the data channels must be compatible with the filters'."""
    if data is None or filters is None:
        return
    c, f = _channel(data, 1, "data"), _channel(filters, filter_axis, "filters")
    if is_empty(meet(c, f)):
        raise OpValidationError(f"the data has {to_dim(c)} channels, the filters expect {to_dim(f)} input channels")


def _groups_channels(data: Shape, filters: Shape, cin_axis: int, cout_axis: int) -> Dim:
    """GroupConvolution(BackpropData): groups (merged with C / Cin) times the per-group output channels."""
    if filters is None:
        return DYNAMIC
    groups = _channel(filters, 0, "filters")
    if data is not None:
        cin = _channel(filters, cin_axis, "filters")
        if is_static(cin):
            quotient = ddiv(_channel(data, 1, "data"), cin[0])
            merged = meet(groups, quotient)
            if is_empty(merged):
                raise OpValidationError(f"the data's {to_dim(iv(data[1]))} channels do not make "
                                        f"{to_dim(groups)} group(s) of {cin[0]} input channel(s)")
            groups = merged
    return to_dim(dmul(groups, _channel(filters, cout_axis, "filters")))


def _spatial_dims(shape: Shape, ns: int, what: str) -> list[Iv]:
    """The last ``ns`` dims (all dynamic for a dynamic rank)."""
    if shape is None:
        return [ANY] * ns
    if len(shape) < ns:
        raise OpValidationError(f"the {what} of rank {len(shape)} have fewer than {ns} spatial dims")
    return [iv(d) for d in shape[len(shape) - ns:]]


def forward_pads(a: ConvolutionAttrs, data: Shape, filters: Shape, ns: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The pads OpenVINO resolves for a forward convolution (rule 4); ``a`` already checked."""
    strides, dilations = a.strides or (1,) * ns, a.dilations or (1,) * ns
    pb, pe = tuple(a.pads_begin or (0,) * ns), tuple(a.pads_end or (0,) * ns)
    if a.auto_pad == "valid":
        return (0,) * ns, (0,) * ns
    if a.auto_pad == "explicit" or data is None or filters is None:
        return pb, pe
    begin, end = [], []
    for d, k, s, dil in zip(_spatial_dims(data, ns, "data"), _spatial_dims(filters, ns, "filters"), strides,
                            dilations, strict=True):
        if is_static(d) and is_static(k):
            b, e = same_pads(d[0], k[0], s, dil, a.auto_pad == "same_upper")
        else:
            b = e = 0
        begin.append(b)
        end.append(e)
    return tuple(begin), tuple(end)


def _forward_rule(grouped: bool, binary: bool = False):
    """Convolution-1's rule, GroupConvolution-1's (``grouped``), or BinaryConvolution-1's (``binary``, from
    binary_convolution_shape_inference.hpp: Convolution's on 4-D data, the filters' element type, u1, aside: the
    output has the data's)."""
    extra = 3 if grouped else 2

    def infer(a: ConvolutionAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
        et = _element((inputs[0], inputs[0]) if binary else inputs)
        data, filters = inputs[0].shape, inputs[1].shape
        ns = _num_spatial(data, filters, extra, a)
        if ns is None:
            return [TensorType(et, None)]
        if not grouped:
            _check_ranks(data, filters, extra)
            _check_channels(data, filters, 1)
        _check_data_rank(data, binary)
        if grouped:
            _check_ranks(data, filters, extra)
        out = forward_spatial(a, data, filters, ns)
        batch = DYNAMIC if data is None else data[0]
        if grouped:
            channels = _groups_channels(data, filters, 2, 1)
        else:
            channels = DYNAMIC if filters is None else filters[0]
        return [TensorType(et, (batch, channels, *out))]

    return infer


def forward_spatial(a: ConvolutionAttrs, data: Shape, filters: Shape, ns: int) -> list[Dim]:
    """A forward convolution's output spatial dims (rule 4): ``a``'s lists checked against ``ns`` axes
    (``_check_attrs``), the pads resolved, each axis in interval arithmetic; a static dilated kernel larger than a
    static padded input is refused. (DeformableConvolution, ops/deformable.py, shares it.)"""
    strides, dilations, _, _, _ = _check_attrs(a, ns, backprop=False)
    pb, pe = forward_pads(a, data, filters, ns)
    out = []
    kernels = _spatial_dims(filters, ns, "filters")
    for i, (d, k) in enumerate(zip(_spatial_dims(data, ns, "data"), kernels, strict=True)):
        if a.auto_pad in ("same_upper", "same_lower"):
            out.append(to_dim(_ceil_div(d, strides[i])))
            continue
        padded = dadd(d, (pb[i] + pe[i], pb[i] + pe[i]))
        kd = _dilated(k, dilations[i])
        if is_static(padded) and is_static(kd) and kd[0] > padded[0]:
            raise OpValidationError(f"the dilated kernel {kd[0]} is larger than the padded input {padded[0]} "
                                    f"on spatial axis {i}")
        out.append(to_dim(dadd(_floor_div(dsub(padded, kd), strides[i]), ONE)))
    return out


def _binary_cpu_refuses(a: BinaryConvolutionAttrs, inputs: Sequence[TensorType], values) -> str | None:
    """Why OpenVINO CPU refuses to compile a BinaryConvolution its reader accepts (measured on 2026.4): filters not
    of u1 (it cannot convert them), data neither f32, f16 nor f64 (bf16 and integers: no reorder to its layout), a
    dim not static (it has no dynamic-shape kernel) or of 0 in the data or the filters, or pads its JIT kernel
    cannot take (rule 12)."""
    data, filters = inputs
    if filters.element != "u1":
        return f"filters of {filters.element}: OpenVINO CPU compiles a BinaryConvolution only on u1 filters"
    if data.element not in ("f32", "f16", "f64"):
        return f"data of {data.element}: OpenVINO CPU compiles a BinaryConvolution only on f32, f16 or f64 data"
    for what, t in (("data", data), ("filters", filters)):
        if t.shape is None or not all(d.is_static for d in t.shape):
            return f"the {what} dims are not all static: OpenVINO CPU has no BinaryConvolution for dynamic shapes"
        if any(d.lo == 0 for d in t.shape):
            return f"the {what} have a dim of 0: OpenVINO CPU refuses a BinaryConvolution on an empty tensor"
    if len(data.shape) == 4 and len(filters.shape) == 4:
        return _binary_jit_refuses(a, data.shape, filters.shape)
    return None


def _binary_jit_refuses(a: BinaryConvolutionAttrs, data: Shape, filters: Shape) -> str | None:
    """Rule 12: bin_conv.cpp's ``args_ok`` on the static dims (its JIT kernels, AVX-512's of 4 output columns a block,
    AVX2's and SSE4.1's of 2; a CPU without them runs its reference kernel, which takes any pads)."""
    block = 4 if mayiuse("AVX512_CORE") else 2 if mayiuse("SSE41") else None
    if block is None:
        return None
    strides, dilations, _, _, _ = _check_attrs(a, 2, backprop=False)
    pb, _ = forward_pads(a, data, filters, 2)
    (width, _), (ow, _), kw = iv(data[3]), iv(forward_spatial(a, data, filters, 2)[1]), filters[3].lo
    block = min(block, ow)
    overhang = max(0, (ow - ow % block - 1) * strides[1] + (kw - 1) * dilations[1] - (width + pb[1] - 1))
    if pb[1] > block or overhang > block:
        return (f"a width pad of {pb[1]} at the start and an overhang of {overhang} at the end: OpenVINO CPU's "
                f"BinaryConvolution takes at most {block} ('has unsupported parameters')")
    if kw > 7 and pb != (0, 0) and strides != (1, 1):
        return (f"a kernel {kw} wide, a pad at the start and strides {list(strides)}: OpenVINO CPU's BinaryConvolution "
                "refuses it ('has unsupported parameters')")
    return None


def _output_shape_value(inputs: Sequence[TensorType], values) -> tuple[Shape, bool]:
    """Backprop's output_shape input as spatial dims (None: unknown length), and whether it is given."""
    if len(inputs) < 3:
        return (), False
    t = inputs[2]
    if t.element is not None and t.element not in _INTEGERS:
        raise OpValidationError(f"output_shape must be of an integer type, got {t.element}")
    if t.shape is not None and len(t.shape) != 1:
        raise OpValidationError(f"output_shape must be 1-D, got rank {len(t.shape)}")
    value = values[2] if len(values) > 2 else None
    if value is not None:
        flat = [int(v) for v in np.asarray(value).reshape(-1)]
        if any(v < 0 for v in flat):
            raise OpValidationError(f"output_shape {flat} has a negative value")
        return tuple(Dim(v, v) for v in flat), True
    if t.shape is not None and t.shape[0].is_static:
        return (DYNAMIC,) * t.shape[0].lo, True
    return None, True


_INTEGERS = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "u1", "u2", "u3", "u4", "u6", "i4")


def backprop_pads(a: ConvolutionBackpropAttrs, data: Shape, filters: Shape, out_spatial: Shape, given: bool,
                  ns: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The pads OpenVINO resolves for a backprop convolution (rule 6); ``a`` already checked."""
    strides, dilations = a.strides or (1,) * ns, a.dilations or (1,) * ns
    op = a.output_padding or (0,) * ns
    same = a.auto_pad in ("same_upper", "same_lower")
    if same and given and data is not None and filters is not None:
        begin, end = [], []
        for i, (d, k) in enumerate(zip(_spatial_dims(data, ns, "data"), _spatial_dims(filters, ns, "filters"),
                                       strict=True)):
            if is_static(d) and is_static(k) and out_spatial is None:  # OpenVINO indexes the output_shape
                raise OpValidationError(f"output_shape, of unknown length, has no axis {i} to resolve same_* pads with")
            o = DYNAMIC if out_spatial is None else out_spatial[i]
            if is_static(d) and is_static(k) and o.is_static:
                kd = _dilated(k, dilations[i])[0]
                total = max((d[0] - 1) * strides[i] + kd - o.lo + op[i], 0)
                small, large = total // 2, total - total // 2
                b, e = (large, small) if a.auto_pad == "same_upper" else (small, large)
            else:
                b = e = 0
            begin.append(b)
            end.append(e)
        return tuple(begin), tuple(end)
    if same or a.auto_pad == "valid":
        return (0,) * ns, (0,) * ns
    return tuple(a.pads_begin or (0,) * ns), tuple(a.pads_end or (0,) * ns)


def _backprop_rule(grouped: bool):
    extra = 3 if grouped else 2

    def infer(a: ConvolutionBackpropAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
        et = _element(inputs)
        out_spatial, given = _output_shape_value(inputs, values)
        data, filters = inputs[0].shape, inputs[1].shape
        if not (given and values[2] is not None):  # OpenVINO sizes its guess of the output from a rank - 2
            rank = len(data) if data is not None else len(filters) if filters is not None else 2
            if rank < 2:
                raise OpValidationError(f"the rank-{rank} input leaves no spatial axes for the output")
        ns = _num_spatial(data, filters, extra, a, len(out_spatial) if out_spatial else None)
        if ns is None:
            return [TensorType(et, None)]
        if given and out_spatial is not None and len(out_spatial) != ns:
            raise OpValidationError(f"output_shape has {len(out_spatial)} values, expected {ns} (one per spatial "
                                    "axis)")
        if not grouped:
            _check_ranks(data, filters, extra)
            _check_channels(data, filters, 0)
        _check_data_rank(data)
        if grouped:
            _check_ranks(data, filters, extra)
        strides, dilations, _, _, op = _check_attrs(a, ns, backprop=True)
        pb, pe = backprop_pads(a, data, filters, out_spatial, given, ns)
        batch = DYNAMIC if data is None else data[0]
        if grouped:
            channels = _groups_channels(data, filters, 1, 2)
        else:
            channels = DYNAMIC if filters is None else to_dim(_channel(filters, 1, "filters"))
        if given:
            return [TensorType(et, (batch, channels, *(out_spatial or ())))]
        out = []
        for i, (d, k) in enumerate(zip(_spatial_dims(data, ns, "data"), _spatial_dims(filters, ns, "filters"),
                                       strict=True)):
            full = dadd(dmul(dsub(d, ONE), (strides[i], strides[i])), _dilated(k, dilations[i]))
            out.append(to_dim(_padded(full, op[i] - pb[i] - pe[i])))
        return [TensorType(et, (batch, channels, *out))]

    return infer


# --- kernels ---------------------------------------------------------------------------------------


def _accumulator(x: np.ndarray) -> type:
    return np.float64 if x.dtype.kind == "f" else np.int64


def _chunks(total: int, per_item: int) -> list[tuple[int, int]]:
    """Split ``range(total)`` so that each part holds at most IM2COL_BYTES of ``per_item``-element items."""
    step = max(1, (IM2COL_BYTES // 8) // max(1, per_item))
    return [(i, min(total, i + step)) for i in range(0, total, step)]


def convolution(x: np.ndarray, w: np.ndarray, groups: int, strides: Sequence[int], dilations: Sequence[int],
                pads_begin: Sequence[int], pads_end: Sequence[int], acc: type | None = None) -> np.ndarray:
    """Grouped convolution, weights [G*Cout/G, Cin/G, k...]; float64 (int64) sums unless ``acc`` says, in x's dtype.

    im2col: per chunk of batch items (or of rows of the first spatial output axis, for a large
    image), the kernel taps of every window are copied into a [Cin/G * prod(k), windows] buffer
    per group, one matrix product per group multiplies it with the weights (BLAS, for floats).
    """
    n_spatial = x.ndim - 2
    if w.ndim != x.ndim or not 1 <= n_spatial <= 3:
        raise OpValidationError(f"input rank {x.ndim} and weights rank {w.ndim}: expected both 3, 4 or 5")
    batch, channels = x.shape[:2]
    cout, cin, kernel = w.shape[0], w.shape[1], tuple(w.shape[2:])
    if channels != groups * cin or cout % groups:
        raise OpValidationError(f"{groups} group(s) of weights {list(w.shape)} do not fit {channels} input channels")
    acc = acc or _accumulator(x)
    lengths = [n + b + e for n, b, e in zip(x.shape[2:], pads_begin, pads_end, strict=True)]
    out = [(n - dilated(k, d)) // s + 1 for n, k, s, d in zip(lengths, kernel, strides, dilations, strict=True)]
    if any(o < 1 for o in out):
        raise OpValidationError(f"the dilated kernel {list(kernel)} does not fit the padded input {lengths}")
    og, taps, rest = cout // groups, math.prod(kernel), math.prod(out[1:])
    if cin == 1 and og == 1 and taps > 1 and np.dtype(acc).itemsize == 8 and x.dtype.itemsize <= 4:
        return _depthwise(x, w, strides, dilations, pads_begin, pads_end, (lengths[0], out), acc)
    weights = w.astype(acc, copy=False).reshape(groups, og, cin * taps)
    y = np.empty((batch, groups, og, out[0], rest), x.dtype)  # each chunk's sums rounded once, in place
    offsets = list(product(*(range(k) for k in kernel)))
    pointwise = taps == 1 and all(s == 1 for s in strides)  # its one window is the whole (padded) input: no copy
    row_items = channels * taps * rest  # im2col elements per batch item and output row
    if row_items * out[0] <= IM2COL_BYTES // 8:
        parts = [(b0, b1, 0, out[0]) for b0, b1 in _chunks(batch, row_items * out[0])]
    else:
        parts = [(b, b + 1, r0, r1) for b in range(batch) for r0, r1 in _chunks(out[0], row_items)]
    for b0, b1, r0, r1 in parts:
        rows = r1 - r0
        # the padded input rows this chunk reads, in the accumulator type
        first = r0 * strides[0]
        last = (r1 - 1) * strides[0] + dilated(kernel[0], dilations[0])
        part = _padded_rows(x[b0:b1], pads_begin, pads_end, first, last, acc)
        part = part.reshape(b1 - b0, groups, cin, *part.shape[2:])
        cols = part if pointwise else np.empty((b1 - b0, groups, cin, *kernel, rows, *out[1:]), acc)
        for offset in () if pointwise else offsets:
            cols[(slice(None),) * 3 + offset] = part[(..., *_window(offset, dilations, [rows, *out[1:]], strides))]
        flat = cols.reshape(b1 - b0, groups, cin * taps, rows * rest)
        with np.errstate(over="ignore", invalid="ignore"):
            y[b0:b1, :, :, r0:r1] = np.matmul(weights, flat).reshape(b1 - b0, groups, og, rows, rest)
    return y.reshape(batch, cout, *out)


def _window(offset: Sequence[int], dilations: Sequence[int], counts: Sequence[int], strides: Sequence[int],
            ) -> tuple[slice, ...]:
    """Per spatial axis, the padded input's elements kernel tap ``offset`` meets over ``counts`` output positions."""
    return tuple(slice(o * d, o * d + (m - 1) * s + 1, s)
                 for o, d, m, s in zip(offset, dilations, counts, strides, strict=True))


#: Output elements a depthwise convolution sums at a time (``_depthwise``): its float64 sums stay in cache.
DEPTHWISE_ELEMENTS = 1 << 15


def _depthwise(x: np.ndarray, w: np.ndarray, strides: Sequence[int], dilations: Sequence[int],
               pads_begin: Sequence[int], pads_end: Sequence[int], sizes: tuple[int, list[int]], acc: type,
               ) -> np.ndarray:
    """``convolution`` where each group is one input and one output channel (a depthwise one), of values of at most 32
    bits summed in float64 or int64 (``acc``), where each product is exact: tap after tap, each tap's products added
    to the sums of a block of channels, rather than im2col and one tiny matrix product per channel. The sums are
    those of the taps in im2col's order. f32 sums (the rounding rule's magnitudes) stay with sgemm, whose bits they
    are. ``sizes``: the padded length of the first spatial axis and the output's spatial dims, as ``convolution``
    found them."""
    (rows, out), (batch, channels), kernel = sizes, x.shape[:2], tuple(w.shape[2:])
    weights = w.astype(acc, copy=False).reshape(channels, *kernel, *([1] * len(kernel)))
    y = np.empty((batch, channels, *out), x.dtype)
    step = max(1, DEPTHWISE_ELEMENTS // (batch * math.prod(out)))
    for c0 in range(0, channels, step):
        block = slice(c0, c0 + step)
        padded = _padded_rows(x[:, block], pads_begin, pads_end, 0, rows, acc)
        sums = np.zeros((batch, padded.shape[1], *out), acc)
        term = np.empty_like(sums)
        with np.errstate(over="ignore", invalid="ignore"):
            for offset in product(*(range(k) for k in kernel)):
                window = _window(offset, dilations, out, strides)
                np.multiply(padded[(slice(None), slice(None), *window)], weights[(block, *offset)], out=term)
                sums += term
        y[:, block] = sums
    return y


def _padded_rows(x: np.ndarray, pads_begin: Sequence[int], pads_end: Sequence[int], first: int, last: int,
                 acc: type) -> np.ndarray:
    """Rows ``first:last`` of the first spatial axis of ``x`` padded with zeros, as ``acc``."""
    shape = [*x.shape[:2], last - first, *(n + b + e for n, b, e in zip(x.shape[3:], pads_begin[1:], pads_end[1:],
                                                                        strict=True))]
    out = np.zeros(shape, acc)
    lo, hi = max(first, pads_begin[0]), min(last, pads_begin[0] + x.shape[2])
    if lo < hi:
        inner = tuple(slice(b, b + n) for b, n in zip(pads_begin[1:], x.shape[3:], strict=True))
        out[(slice(None), slice(None), slice(lo - first, hi - first), *inner)] = \
            x[:, :, lo - pads_begin[0]:hi - pads_begin[0]]
    return out


def convolution_backprop(x: np.ndarray, w: np.ndarray, groups: int, strides: Sequence[int], dilations: Sequence[int],
                         pads_begin: Sequence[int], out: Sequence[int]) -> np.ndarray:
    """Grouped transposed convolution, weights [G*Cin/G, Cout/G, k...]: output ``out`` (spatial) read from
    the full result at offset ``pads_begin`` (zeros beyond it); float64 (int64) sums, in x's dtype."""
    n_spatial = x.ndim - 2
    if w.ndim != x.ndim or not 1 <= n_spatial <= 3:
        raise OpValidationError(f"input rank {x.ndim} and weights rank {w.ndim}: expected both 3, 4 or 5")
    batch, channels = x.shape[:2]
    cin, og, kernel = w.shape[0] // max(groups, 1), w.shape[1], tuple(w.shape[2:])
    if channels != w.shape[0] or w.shape[0] % groups:
        raise OpValidationError(f"{groups} group(s) of weights {list(w.shape)} do not fit {channels} input channels")
    acc = _accumulator(x)
    lengths = x.shape[2:]
    full = [(n - 1) * s + dilated(k, d) for n, k, s, d in zip(lengths, kernel, strides, dilations, strict=True)]
    taps, inner = math.prod(kernel), math.prod(lengths)
    # [G, Cout/G * taps, Cin/G]: each input element's contribution to every tap
    weights = w.astype(acc, copy=False).reshape(groups, cin, og * taps).transpose(0, 2, 1)
    result = np.zeros((batch, groups, og, *full), acc)
    offsets = list(product(*(range(k) for k in kernel)))
    for b0, b1 in _chunks(batch, og * groups * taps * inner):
        data = x[b0:b1].astype(acc, copy=False).reshape(b1 - b0, groups, cin, inner)
        cols = np.matmul(weights, data).reshape(b1 - b0, groups, og, *kernel, *lengths)
        for offset in offsets:
            window = tuple(slice(o * d, o * d + (n - 1) * s + 1, s)
                           for o, d, n, s in zip(offset, dilations, lengths, strides, strict=True))
            result[(slice(b0, b1), slice(None), slice(None), *window)] += cols[(slice(None),) * 3 + offset]
    y = np.zeros((batch, groups, og, *out), acc)
    src, dst = [], []
    for n, b, o in zip(full, pads_begin, out, strict=True):
        lo, hi = max(0, b), min(n, b + o)
        src.append(slice(lo, max(lo, hi)))
        dst.append(slice(lo - b, max(lo, hi) - b))
    y[(slice(None),) * 3 + tuple(dst)] = result[(slice(None),) * 3 + tuple(src)]
    with np.errstate(over="ignore", invalid="ignore"):
        return y.reshape(batch, groups * og, *out).astype(x.dtype)


def _conv_kernel(grouped: bool, exponent: int | None = None):
    """The kernel; with an ``exponent`` e, accumulation's magnitude K(|x|^e, |w|^e): for e = 1 summed in f32 (BLAS
    sgemm, faster than dgemm; all terms positive, so its own rounding is within gamma(n), which accumulation's
    scaling by 1 + gamma(n) covers), in f64 where f32 would overflow; squares in f32 scaled into range and kept normal
    (rounding.scaled_squares; unscaled they overflow, or turn subnormal, which BLAS computes slowly), else in f64."""
    def run(a: ConvolutionAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, w = args
        if grouped:
            if w.ndim != x.ndim + 1:
                raise OpValidationError(f"GroupConvolution weights {list(w.shape)} need rank {x.ndim + 1}")
            groups, w = w.shape[0], w.reshape(w.shape[0] * w.shape[1], *w.shape[2:])
        else:
            groups = 1
        ns = len(w.shape) - 2
        strides, dilations, _, _, _ = _check_attrs(a, ns, backprop=False)
        pb, pe = forward_pads(a, _static_shape(x), _static_shape(w), ns)
        if exponent is None:
            return [convolution(x, w, groups, strides, dilations, pb, pe)]
        if exponent == 1 and x.dtype.kind == "f" and x.dtype.itemsize <= 4:
            with np.errstate(over="ignore"):
                size = convolution(np.abs(x, dtype=np.float32), np.abs(w, dtype=np.float32), groups, strides,
                                   dilations, pb, pe, acc=np.float32)
            if np.isfinite(size).all():
                return [size]
        scales = (square_scale(x), square_scale(w)) if exponent == 2 else (None,)
        if None not in scales:  # K(b^2, w^2) of the statistical bound: f32 squares scaled into range, sgemm
            sx, sw = scales
            size = convolution(scaled_squares(x, sx), scaled_squares(w, sw), groups, strides, dilations, pb, pe,
                               acc=np.float32)
            return [unscaled_squares(size, sx, sw)]
        wide = np.abs(x, dtype=np.float64) if exponent == 1 else np.square(x, dtype=np.float64)
        return [convolution(wide, np.abs(w, dtype=np.float64) if exponent == 1 else np.square(w, dtype=np.float64),
                            groups, strides, dilations, pb, pe)]

    return run


def _conv_magnitude(grouped: bool):
    kernels = {e: _conv_kernel(grouped, e) for e in (1, 2)}

    def magnitude(a: ConvolutionAttrs, args: Sequence[np.ndarray], exponent: int) -> list[np.ndarray]:
        return kernels[exponent](a, args)

    return magnitude


def _static_shape(x: np.ndarray) -> Shape:
    return tuple(Dim(n, n) for n in x.shape)


def _backprop_kernel(grouped: bool) -> Kernel:
    rule = _backprop_rule(grouped)

    def run(a: ConvolutionBackpropAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, w = args[0], args[1]
        inputs = [TensorType(None, _static_shape(v)) for v in args]
        values = [None, None, *args[2:]]
        (t,) = rule(a, inputs, values)
        if grouped:
            groups, w = w.shape[0], w.reshape(w.shape[0] * w.shape[1], *w.shape[2:])
        else:
            groups = 1
        ns = w.ndim - 2
        strides, dilations, _, _, _ = _check_attrs(a, ns, backprop=True)
        out_spatial, given = _output_shape_value(inputs, values)
        pb, _ = backprop_pads(a, inputs[0].shape, inputs[1].shape, out_spatial, given, ns)
        out = [d.lo for d in t.shape[2:]]
        if not all(d.is_static for d in t.shape[2:]):
            raise OpValidationError(f"the output would have spatial dims {[str(d) for d in t.shape[2:]]}: a "
                                    "negative length")
        return [convolution_backprop(x, w, groups, strides, dilations, pb, out)]

    return run


def _terms(skip: int, summed: int):
    """The length of each output's sum: the weights' dims from ``skip`` on, but for ``summed``'s (a backprop sums
    over input channels and overlapping taps: at most channels times taps)."""
    def terms(a, args: Sequence[np.ndarray], outputs) -> int:
        shape = np.shape(args[1])
        return math.prod(shape[skip:]) if summed < 0 else shape[summed] * math.prod(shape[skip:])
    return terms


#: The int16 range vpmaddubsw saturates a pair of u8 x s8 products to.
_PAIR_MIN, _PAIR_MAX = -(2**15), 2**15 - 1
#: How far a value may be from its quantization grid (in steps); the highest u8 level.
_GRID_SLACK, _U8_TOP = 1e-3, 255
#: The most pair sums held at once (float64) while the pairs' saturation is summed.
_PAIR_ELEMENTS = 1 << 23


def _on_grid(v: np.ndarray, scale: np.ndarray, top: int) -> np.ndarray | None:
    """``v / scale`` as integers when each lies within _GRID_SLACK of one and within ``top`` in magnitude, else
    None (a zero scale: zeros)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(scale > 0, v / scale, 0.0)
    steps = np.rint(ratio)
    if not np.isfinite(ratio).all() or np.abs(ratio - steps).max(initial=0.0) > _GRID_SLACK \
            or np.abs(steps).max(initial=0.0) > top:
        return None
    return steps


def _int8_weights(w: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Weights on an int8 grid: the integers j and the scales s, one per output channel (w = j s; per tensor or per
    output channel, the largest |j| 127 or 128); else None. The first output channel alone refutes float weights
    (every element must lie on the grid): four passes over a whole weight tensor were 45% of compare's time on an f32
    resnet18. The float weights are not copied to float64: their magnitudes' maxima and their quotients by float64
    scales are the same either way."""
    w = np.asarray(w)
    per_channel = np.abs(w.reshape(w.shape[0], -1)).max(axis=1, initial=0.0).astype(np.float64)
    for largest in (np.full_like(per_channel, per_channel.max(initial=0.0)), per_channel):
        for top in (127, 128):
            scale = largest / top
            per_row = scale.reshape(-1, *(1,) * (w.ndim - 1))
            if _on_grid(w[:1], per_row[:1], 128) is None:
                continue
            steps = _on_grid(w, per_row, 128)
            if steps is not None:
                return steps, scale
    return None


def _u8_data(x: np.ndarray) -> tuple[np.ndarray, float, int, int] | None:
    """Data on a u8 grid holding zero (x = (q - zp) step, q in 0..255): the integers x / step, the step and the
    lowest and highest zero point the values allow (which levels the range ends at is not in the values); else None."""
    x = np.asarray(x, np.float64)
    levels = np.unique(x)
    if levels.size < 2 or not np.isfinite(levels).all():
        return None
    # the closest two levels give the step to f32 rounding (6e-6 of it): the ends in steps to a quarter, then the
    # step from the widest span
    ends = levels[[0, -1]] / float(np.diff(levels).min())
    if np.abs(ends).max() > _U8_TOP + 1 or np.abs(ends - np.rint(ends)).max() > 0.25:
        return None
    step = float((levels[-1] - levels[0]) / (np.rint(ends[1]) - np.rint(ends[0])))
    k = _on_grid(x, np.asarray(step), _U8_TOP)
    if k is None:
        return None
    low, high = max(0, -int(k.min())), _U8_TOP - max(0, int(k.max()))
    return (k, step, low, high) if low <= high else None


def _overflow(pairs: np.ndarray) -> np.ndarray:
    """What saturating each pair sum to int16 takes off it."""
    return pairs - np.clip(pairs, _PAIR_MIN, _PAIR_MAX)


def _pair_saturation(a: ConvolutionAttrs, k: np.ndarray, low: int, high: int, j: np.ndarray) -> np.ndarray:
    """Per output element (in units of step times weight scale), the most saturating the pair sums can take off the
    sum, for q = k + zp, zp in ``low..high`` (padding at q = zp, x = 0): the pairs are adjacent input channels at one
    tap (an odd last channel pairs with a zero). With one zero point, the signed sum's magnitude; else, the sum
    over pairs of the larger magnitude at the two ends (each pair's overflow is monotone in zp)."""
    ns = k.ndim - 2
    strides, dilations, _, _, _ = _check_attrs(a, ns, backprop=False)
    pb, pe = forward_pads(a, _static_shape(k), _static_shape(j), ns)
    if k.shape[1] % 2:
        k = np.concatenate([k, np.zeros((k.shape[0], 1, *k.shape[2:]))], axis=1)
        j = np.concatenate([j, np.zeros((j.shape[0], 1, *j.shape[2:]))], axis=1)
    padded = np.pad(k, [(0, 0), (0, 0), *zip(pb, pe, strict=True)])
    lengths, kernel = padded.shape[2:], j.shape[2:]
    out = [(n - dilated(t, d)) // s + 1 for n, t, s, d in zip(lengths, kernel, strides, dilations, strict=True)]
    batch, pairs, cout = k.shape[0], k.shape[1] // 2, j.shape[0]
    total = np.zeros((batch, cout, math.prod(out)))
    if np.abs(j).max(initial=0.0) * 2 * _U8_TOP <= _PAIR_MAX:
        return total.reshape(batch, cout, *out)  # no pair can leave int16
    block = max(1, _PAIR_ELEMENTS // max(1, batch * pairs * math.prod(out)))
    for offset in product(*(range(t) for t in kernel)):
        window = tuple(slice(o * d, o * d + (m - 1) * s + 1, s)
                       for o, d, m, s in zip(offset, dilations, out, strides, strict=True))
        taps = padded[(slice(None), slice(None), *window)].reshape(batch, 1, pairs, 2, -1)
        weights = j[(slice(None), slice(None), *offset)].reshape(1, cout, pairs, 2, 1)
        for o0 in range(0, cout, block):
            w = weights[:, o0:o0 + block]
            if np.abs(w).sum(axis=3).max(initial=0.0) * _U8_TOP <= _PAIR_MAX:
                continue
            at_low = (taps * w).sum(axis=3) + low * w.sum(axis=3)
            over = _overflow(at_low)
            if high == low:
                total[:, o0:o0 + block] += over.sum(axis=2)
            else:
                at_high = _overflow(at_low + (high - low) * w.sum(axis=3))
                total[:, o0:o0 + block] += np.maximum(np.abs(over), np.abs(at_high)).sum(axis=2)
    return np.abs(total).reshape(batch, cout, *out)


def _int8_saturation(a: ConvolutionAttrs, x: np.ndarray, w: np.ndarray) -> np.ndarray | None:
    """The most OpenVINO CPU's int8 convolution without VNNI (AVX2; oneDNN's jit_avx2_I8 and jit_avx2_1x1_I8) may be
    off, None where x and w are not on the u8 and s8 grids OpenVINO would run it on. It sums the u8 x s8 products
    of each pair of adjacent input channels at a tap with vpmaddubsw, saturating to int16, then the pairs in int32,
    then subtracts the zero point's share (exactly): a pair beyond int16 loses the excess. Measured on openvino
    2026.4.1 (tests/ops/test_int8_convolution.py): this model gives its output to f32 rounding, on squeezenet
    quantized by onnxruntime (u8 zero points 0 and 122) and on asymmetric and symmetric (zero point 128) ranges
    with and without padding (padding holds the zero point); with VNNI (vpdpbusd) nothing saturates."""
    if np.asarray(x).dtype.kind != "f" or np.asarray(w).dtype.kind != "f" or not 3 <= np.ndim(x) <= 5:
        return None
    weights = _int8_weights(w)
    if weights is None:
        return None
    j, scale = weights
    if np.abs(j).max(initial=0.0) * 2 * _U8_TOP <= _PAIR_MAX:
        return None  # 7-bit weights (NNCF's overflow fix): no pair can leave int16
    data = _u8_data(x)
    if data is None:
        return None
    k, step, low, high = data
    lost = _pair_saturation(a, k, low, high, j)
    return lost * (step * scale).reshape(1, -1, *(1,) * (lost.ndim - 2))


def _int8_aware(rule: RoundingRule) -> RoundingRule:
    """``rule`` plus, where the inputs are on int8 grids, what OpenVINO CPU's int8 convolution may lose to
    saturation (``_int8_saturation``); likewise its statistical variant."""

    def variant(inner: RoundingRule) -> RoundingRule:
        def wrapped(kernel: Kernel, a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                    outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
            found = inner(kernel, a, args, bounds, outputs)
            lost = _int8_saturation(a, args[0], args[1])
            return found if lost is None else [found[0] + lost]

        wrapped.outputs_last = getattr(inner, "outputs_last", False)  # type: ignore[attr-defined]
        return wrapped

    aware = variant(rule)
    aware.statistical = variant(getattr(rule, "statistical", rule))  # type: ignore[attr-defined]
    return aware


def _binary_signs(x: np.ndarray) -> np.ndarray:
    """Rule 7: the data as +1 and -1 (float64), f64 data rounded to f32 first."""
    with np.errstate(over="ignore"):
        return np.where(np.asarray(x).astype(np.float32, copy=False) > 0, 1.0, -1.0)


def _binary_filters(w: np.ndarray) -> np.ndarray:
    """Rule 8: the u1 filters (0/1, in OpenVINO's element order) as CPU pairs them with the data, as +1 and -1."""
    flat = np.zeros(-(-w.size // 8) * 8, np.float64)
    flat[:w.size] = np.asarray(w).reshape(-1)
    return (flat.reshape(-1, 8)[:, ::-1].reshape(-1)[:w.size] * 2.0 - 1.0).reshape(w.shape)


def _binary_geometry(a: BinaryConvolutionAttrs, x: np.ndarray, w: np.ndarray
                     ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Strides, dilations and the resolved pads of a 4-D BinaryConvolution on these arrays."""
    if x.ndim != 4 or w.ndim != 4:
        raise OpValidationError(f"BinaryConvolution data {list(x.shape)} and filters {list(w.shape)}: expected "
                                "both 4-D")
    strides, dilations, _, _, _ = _check_attrs(a, 2, backprop=False)
    pb, pe = forward_pads(a, _static_shape(x), _static_shape(w), 2)
    return strides, dilations, pb, pe


def _binary_kernel(a: BinaryConvolutionAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """BinaryConvolution-1 as OpenVINO CPU computes it (rules 7 to 10): the data's signs convolved with the filters'
    (float64 sums of +1 and -1: exact integers), padded taps 0 (excluded), +1 or -1 by ``pad_value``."""
    x, w = args
    strides, dilations, pb, pe = _binary_geometry(a, x, w)
    signs = _binary_signs(x)
    fill = float(np.float32(a.pad_value))
    if fill != 0.0:
        spatial = [(0, 0), (0, 0), *zip(pb, pe, strict=True)]
        signs = np.pad(signs, spatial, constant_values=1.0 if fill == 1.0 else -1.0)
        pb = pe = (0, 0)
    return [convolution(signs, _binary_filters(w), 1, strides, dilations, pb, pe).astype(x.dtype)]


def _binary_rounding(kernel: Kernel, a: BinaryConvolutionAttrs, args: Sequence[np.ndarray],
                     bounds: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Exact (rule 10) where the data are; a data element whose bound lets its sign change moves each count whose
    window holds it by 2 (and the count's rounding into the output type): 2 times the number of such taps in the
    window, plus two roundings of the output. Filters that may differ: no bound."""
    if any_differs(args, bounds, (1,)):
        return [np.full((), np.inf)]
    x, w = args
    if is_exact(bounds[0]):
        return [EXACT]
    near = np.asarray(x).astype(np.float32, copy=False).astype(np.float64)
    b = np.broadcast_to(np.asarray(bounds[0], np.float64), near.shape)
    with np.errstate(invalid="ignore"):
        flips = ((near > 0) != (near - b > 0)) | ((near > 0) != (near + b > 0))
    if not flips.any():
        return [EXACT]
    strides, dilations, pb, pe = _binary_geometry(a, x, w)
    window = np.ones((1, *np.shape(w)[1:]))
    taps = convolution(flips.astype(np.float64), window, 1, strides, dilations, pb, pe)
    return [2.0 * taps + output_rounding(outputs[0])]


CONVOLUTION_1 = OpSpec("Convolution", "Convolution-1", ConvolutionAttrs, (2, 2), 1, guarded(_forward_rule(False)),
                       _conv_kernel(grouped=False),
                       rounding=_int8_aware(accumulation(_terms(1, -1), magnitude=_conv_magnitude(grouped=False))),
                       evaluates=never)
BINARY_CONVOLUTION_1 = OpSpec("BinaryConvolution", "BinaryConvolution-1", BinaryConvolutionAttrs, (2, 2), 1,
                              guarded(_forward_rule(False, binary=True)), _binary_kernel,
                              rounding=_binary_rounding, cpu_refuses=_binary_cpu_refuses)
GROUP_CONVOLUTION_1 = OpSpec("GroupConvolution", "GroupConvolution-1", ConvolutionAttrs, (2, 2), 1,
                             guarded(_forward_rule(True)), _conv_kernel(grouped=True),
                             rounding=accumulation(_terms(2, -1), magnitude=_conv_magnitude(grouped=True)),
                             evaluates=never)
CONVOLUTION_BACKPROP_DATA_1 = OpSpec("ConvolutionBackpropData", "ConvolutionBackpropData-1", ConvolutionBackpropAttrs,
                                     (2, 3), 1, guarded(_backprop_rule(False)), _backprop_kernel(grouped=False), (2,),
                                     rounding=accumulation(_terms(2, 0)), evaluates=never)
GROUP_CONVOLUTION_BACKPROP_DATA_1 = OpSpec("GroupConvolutionBackpropData", "GroupConvolutionBackpropData-1",
                                           ConvolutionBackpropAttrs, (2, 3), 1, guarded(_backprop_rule(True)),
                                           _backprop_kernel(grouped=True), (2,), rounding=accumulation(_terms(3, 1)),
                                           evaluates=never)
