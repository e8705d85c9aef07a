"""Convolution-1 and GroupConvolution-1: reference kernels (no shape rules yet: declared dims are trusted).

Float results are IEEE-rounded from the exact value (float64 accumulation), as checked against
OpenVINO CPU by tests/ops/test_support_kernels.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np

from ..base.errors import OpValidationError
from . import attrs as A
from .pool_geometry import AUTO_PADS, dilated, same_pads
from .spec import Kernel, OpSpec


@dataclass(frozen=True, slots=True)
class ConvolutionAttrs:
    """Convolution-1 and GroupConvolution-1. Negative pads are refused: OpenVINO CPU cannot compile them."""

    strides: tuple[int, ...] = A.attr("strides", A.UINT_LIST)
    dilations: tuple[int, ...] = A.attr("dilations", A.UINT_LIST)
    pads_begin: tuple[int, ...] = A.attr("pads_begin", A.UINT_LIST, ())
    pads_end: tuple[int, ...] = A.attr("pads_end", A.UINT_LIST, ())
    auto_pad: str = A.attr("auto_pad", A.enum(*AUTO_PADS), "explicit")


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
    def run(a: ConvolutionAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
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
            A.per_axis(what, values, len(kernel))
        if a.auto_pad == "valid":
            pads_begin = pads_end = (0,) * len(kernel)
        elif a.auto_pad in ("same_upper", "same_lower"):
            pads = [same_pads(n, k, s, d, a.auto_pad == "same_upper")
                    for n, k, s, d in zip(lengths, kernel, a.strides, a.dilations, strict=True)]
            pads_begin, pads_end = [b for b, _ in pads], [e for _, e in pads]
        return [convolution(x, w, groups, a.strides, a.dilations, pads_begin, pads_end)]

    return run


CONVOLUTION_1 = OpSpec("Convolution", "Convolution-1", ConvolutionAttrs, (2, 2), 1, kernel=_conv_kernel(grouped=False))
GROUP_CONVOLUTION_1 = OpSpec("GroupConvolution", "GroupConvolution-1", ConvolutionAttrs, (2, 2), 1,
                             kernel=_conv_kernel(grouped=True))
