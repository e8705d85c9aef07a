"""ExtractImagePatches-3: attributes, shape rule, reference kernel and rounding rule (``moves``: it only moves
elements, and pads zeros).

Checked against the installed openvino (shape rule and CPU kernel) by tests/ops/test_extract_patches_conformance.py.
Measured on OpenVINO 2026.4.1:

- ExtractImagePatches-3 is in opset3..16. Data of any element type (the output takes it: a dynamic one, string, u1
  and i4 too), of rank 4 or a dynamic rank (which gives [?, ?, ?, ?]); another rank is refused.
- sizes, strides and rates must be two values each; a stride or a rate of 0 is refused, a size of 0 is not.
  auto_pad is valid, same_upper or same_lower in any case; explicit its reader reads and its shape inference refuses,
  as it refuses an omitted auto_pad, and omitted sizes, strides or rates (empty lists); notset its reader refuses.
- The output is [N, C * size_rows * size_cols, out_rows, out_cols], on intervals. With ``same_upper`` and
  ``same_lower`` an out dim is ceil(dim / stride); with ``valid`` it is ceil((dim - rate * (size - 1)) / stride),
  the subtraction clipped at 0 (a window wider than the dim gives 0 rows). A ceiled division keeps an unbounded
  maximum: [3, inf) / 2 is [2, inf). The sizes are unsigned: a size of 0 makes rate * (size - 1) wrap around 2^64,
  read as an int64 Dimension, so that a rate of 1 subtracts a dynamic dim (5 gives 0..5) and another rate 0 (the
  Dimension of a negative value); the channels times the product of the sizes likewise (a size of 0 gives 0).
- The output holds, at channel (kh * size_cols + kw) * C + c and position (oh, ow), the input element
  (c, oh * stride_rows + kh * rate_rows - pad_top, ow * stride_cols + kw * rate_cols - pad_left), or 0 outside the
  input. With ``valid`` no padding; otherwise, per spatial dim, the padding total
  P = (ceil(dim / stride) - 1) * stride + rate * (size - 1) + 1 - dim; its first part is P / 2 where P is even,
  (P - 1) / 2 with same_upper and (P + 1) / 2 with same_lower where it is odd, and none where P <= 0. CPU moves the
  elements bit for bit (NaN payloads, -0; f64, f16, i32, u16, i8, u8, boolean; i64 held in 32 bits, as elsewhere).
- CPU refuses to compile a ``valid`` layer with a size of 0 beside a rate of 1 (its out dim is 0..dim: "Destination
  memory is undefined"): ``cpu_refuses``, and the kernel refuses it too. Other sizes of 0 give an empty output.
- A CPU defect the kernel does not copy: with same_upper or same_lower, a kernel row (or column) all of whose taps
  fall in the padding (a dilated window much wider than the input: [1, 1, 1, 1] by sizes 4, rates 4) makes CPU
  write zeros past that row's part of the output, into other channels' and beyond the output buffer (seen as a heap
  corruption, "free(): invalid next size", in a model of several such layers); one such layer alone gave the
  kernel's values in 16 of 16 cases. The kernel gives the specification's zeros; the conformance tests leave such
  cases out (``cpu_overruns`` in tests/ops/test_extract_patches_conformance.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC
from ..base.errors import OpValidationError
from . import attrs as A
from .intervals import INF, Iv, Unmatched, dmul, dsub, guarded, is_empty, iv, size_dim, to_dim
from .rounding import moves
from .spec import OpSpec, TensorType, never

AUTO_PADS = ("explicit", "same_upper", "same_lower", "valid")  # ov::op::PadType's names but notset
_U64 = 1 << 64


@dataclass(frozen=True, slots=True)
class ExtractPatchesAttrs:
    """Each of sizes, strides and rates is [rows, cols]. The defaults are what OpenVINO's IR reader takes for an
    omitted attribute (measured on 2026.4.1): empty lists and ``explicit``, which its shape inference refuses."""

    sizes: tuple[int, ...] = A.attr("sizes", A.UINT_LIST, ())
    strides: tuple[int, ...] = A.attr("strides", A.UINT_LIST, ())
    rates: tuple[int, ...] = A.attr("rates", A.UINT_LIST, ())
    auto_pad: str = A.attr("auto_pad", A.enum(*AUTO_PADS), "explicit")


def _check_attrs(a: ExtractPatchesAttrs) -> None:
    """OpenVINO's attribute checks, in its order."""
    for name, values in (("sizes", a.sizes), ("strides", a.strides), ("rates", a.rates)):
        if len(values) != 2:
            raise OpValidationError(f"attribute {name} should be in [{name[:-1]}_rows, {name[:-1]}_cols] format")
        if name != "sizes" and 0 in values:
            raise OpValidationError(f"attribute {name} should be strictly greater than zeros in values")
    if a.auto_pad == "explicit":
        raise OpValidationError("attribute auto_pad should be valid, same_upper or same_lower")


def _size_value(value: int) -> Iv:
    """OpenVINO's Dimension of an unsigned 64-bit value read as int64 (-1 dynamic, another negative value 0)."""
    value %= _U64
    return iv(size_dim(value - _U64 if value >= _U64 // 2 else value))


def _ceil_div(d: Iv, n: int) -> Iv:
    """ov::util::dim::ceil_div: both bounds ceiled, an unbounded maximum kept; an empty dim declines (``Unmatched``:
    what OpenVINO makes of it is not measured)."""
    if is_empty(d):
        raise Unmatched()
    return (-(-d[0] // n), INF if d[1] == INF else -(-d[1] // n))


def _out_dim(d: Iv, size: int, stride: int, rate: int, auto_pad: str) -> Iv:
    """One spatial dim of the output: ceil(d / stride), or with ``valid`` ceil((d - rate * (size - 1)) / stride)."""
    return _ceil_div(d if auto_pad != "valid" else dsub(d, _size_value(rate * (size - 1))), stride)


def _extract_image_patches(a: ExtractPatchesAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    (data,) = inputs
    if data.shape is not None and len(data.shape) != 4:
        raise OpValidationError(f"data of rank {len(data.shape)}: the input tensor must be 4D")
    _check_attrs(a)
    if data.shape is None:
        return [TensorType(data.element, (DYNAMIC,) * 4)]
    n, c, *spatial = data.shape
    channels = dmul(iv(c), _size_value(math.prod(a.sizes)))
    out = [to_dim(_out_dim(iv(d), *k, a.auto_pad)) for d, *k in zip(spatial, a.sizes, a.strides, a.rates, strict=True)]
    return [TensorType(data.element, (n, to_dim(channels), *out))]


def _pad_before(dim: int, size: int, stride: int, rate: int, auto_pad: str) -> int:
    """The padding before one spatial dim, as OpenVINO CPU computes it."""
    if auto_pad == "valid":
        return 0
    total = (-(-dim // stride) - 1) * stride + rate * (size - 1) + 1 - dim
    if total <= 0:
        return 0
    return (total + (total % 2) * (1 if auto_pad == "same_lower" else -1)) // 2


def _refused(a: ExtractPatchesAttrs) -> str | None:
    """Why OpenVINO CPU refuses the layer whatever its input: with ``valid``, a size of 0 beside a rate of 1 makes
    that out dim 0..dim even for a static input ("Destination memory is undefined" when it compiles)."""
    if a.auto_pad == "valid" and any(k == 0 and r == 1 for k, r in zip(a.sizes, a.rates, strict=False)):
        return ("a size of 0 beside a rate of 1 under auto_pad valid gives an output dim OpenVINO does not know "
                "(0..dim): its CPU plugin compiles no such layer")
    return None


def _cpu_refuses(a: ExtractPatchesAttrs, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]
                 ) -> str | None:
    return _refused(a)


def _run_extract_image_patches(a: ExtractPatchesAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each patch gathered from the zero-padded input: out[n, (kh * KW + kw) * C + c, oh, ow]."""
    x = np.asarray(args[0])
    if x.ndim != 4:
        raise OpValidationError(f"data of rank {x.ndim}: the input tensor must be 4D")
    _check_attrs(a)
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (rh, rw) = a.sizes, a.strides, a.rates
    reason = _refused(a)
    if reason:
        raise OpValidationError(reason)
    oh, ow = (_out_dim((d, d), k, s, r, a.auto_pad)[0] for d, k, s, r in ((h, kh, sh, rh), (w, kw, sw, rw)))
    out = np.zeros((n, c * kh * kw, oh, ow), x.dtype)
    if out.size == 0:
        return [out]
    top = _pad_before(h, kh, sh, rh, a.auto_pad)
    left = _pad_before(w, kw, sw, rw, a.auto_pad)
    rows = np.arange(oh)[:, None] * sh + np.arange(kh)[None, :] * rh - top  # [oh, kh]
    cols = np.arange(ow)[:, None] * sw + np.arange(kw)[None, :] * rw - left  # [ow, kw]
    row_in, col_in = (rows >= 0) & (rows < h), (cols >= 0) & (cols < w)
    # [n, c, oh, kh, ow, kw] gathered with indices clipped into range, then zeros where outside
    g = x[:, :, np.clip(rows, 0, h - 1)[:, :, None, None], np.clip(cols, 0, w - 1)[None, None, :, :]]
    inside = row_in[:, :, None, None] & col_in[None, None, :, :]
    g = np.where(inside, g, np.zeros((), x.dtype))
    out[...] = g.transpose(0, 3, 5, 1, 2, 4).reshape(n, kh * kw * c, oh, ow)
    return [out]


EXTRACT_IMAGE_PATCHES_3 = OpSpec("ExtractImagePatches", "ExtractImagePatches-3", ExtractPatchesAttrs, (1, 1), 1,
                                 guarded(_extract_image_patches), _run_extract_image_patches, rounding=moves(0),
                                 cpu_refuses=_cpu_refuses, evaluates=never)
