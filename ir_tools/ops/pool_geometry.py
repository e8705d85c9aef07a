"""Pooling window geometry: the one place that decides output lengths, pads and divisors.

The shape rules, the numpy kernels and the opset8 rewrites all call this module, so they
cannot disagree. Rules (docs/SEMANTICS.md sections 2 and 3), per spatial axis with input length L,
kernel K, stride S, dilation D, pads pb/pe, P = L + pb + pe and Kd = D*(K-1) + 1:

1. floor: (P - Kd) // S + 1; ceil: ceil((P - Kd) / S) + 1.
2. ceil_torch: o = ceil((P - Kd) / S); o + 1 windows unless o*S >= L + pb > 0 (OpenVINO's
   unsigned test wraps at L + pb == 0 and keeps the window).
3. same_upper/same_lower: total = max(0, (ceil(L/S) - 1)*S + Kd - L) split lo = total // 2,
   hi = total - lo; same_upper puts hi at the end. valid: zero pads. Dynamic dims under
   same_* give a dynamic output dim and zero pads for that axis.
4. Dynamic dims: bounds are computed separately, the lower one clamped at one window.
5. Omitted or empty pads lists mean zeros; K = 0 is rejected on static axes only (OpenVINO's
   dilated kernel wraps to 2**64 - 1 on dynamic ones, which acts as no width).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim, Shape
from ..base.errors import OpValidationError

AUTO_PADS = ("explicit", "same_upper", "same_lower", "valid")
ROUNDING_TYPES = ("floor", "ceil", "ceil_torch")


@dataclass(frozen=True, slots=True)
class PoolGeometry:
    """The resolved geometry of one pooling layer."""

    spatial: tuple[Dim, ...] | None  # output spatial dims; None when the input rank is dynamic
    pads_begin: tuple[int, ...]  # effective pads (auto_pad resolved)
    pads_end: tuple[int, ...]


def dilated(kernel: int, dilation: int) -> int:
    return dilation * (kernel - 1) + 1


def same_pads(length: int, kernel: int, stride: int, dilation: int, upper: bool) -> tuple[int, int]:
    """(pad_begin, pad_end) that same_upper/same_lower choose for a static axis."""
    total = max(0, (-(-length // stride) - 1) * stride + dilated(kernel, dilation) - length)
    lo, hi = total // 2, total - total // 2
    return (lo, hi) if upper else (hi, lo)


def out_length(length: int, kernel: int, stride: int, dilation: int, pb: int, pe: int, rounding: str) -> int:
    """Number of windows on one axis of static length (rule 1 and 2); never less than 1.

    ceil_torch keeps the last window when ``length + pb == 0``: OpenVINO tests
    ``o*S > L + pb - 1`` in unsigned arithmetic, which wraps there.
    """
    span = max(0, length + pb + pe - dilated(kernel, dilation))
    if rounding == "floor":
        return span // stride + 1
    o = -(-span // stride)
    if rounding == "ceil":
        return o + 1
    return o if 0 < length + pb <= o * stride else o + 1


def windows_differ(dim: Dim, k: int, s: int, d: int, pb: int, pe: int, auto_pad: str, rounding: str = "ceil_torch",
                   other: str = "ceil") -> int | None:
    """A length in ``dim`` where ``rounding`` gives another window count than ``other`` (ceil_torch drops a window
    ceil keeps; ceil adds one floor lacks), or None if there is none.

    Once the dilated kernel fits (n >= dk), adding s to n adds one window in every rounding (same_* pads depend
    on n mod s only), so lengths up to max(lo, dk) + s - 1 decide every longer one.
    """
    lo = max(dim.lo, 1)
    hi = max(lo, dilated(k, d)) + s - 1
    if dim.hi is not None:
        hi = min(hi, dim.hi)
    for n in range(lo, hi + 1):
        if auto_pad in ("same_upper", "same_lower"):
            b, e = same_pads(n, k, s, d, auto_pad == "same_upper")
        else:
            b, e = (0, 0) if auto_pad == "valid" else (pb, pe)
        if n + b + e < dilated(k, d):
            continue  # OpenVINO rejects this length in both forms
        if out_length(n, k, s, d, b, e, other) != out_length(n, k, s, d, b, e, rounding):
            return n
    return None


def window_counts(length: int, kernel: int, stride: int, dilation: int, pb: int, out: int) -> np.ndarray:
    """Taps of each window on one axis that fall inside the data (the exclude-pad divisor)."""
    starts = np.arange(out, dtype=np.int64)[:, None] * stride - pb
    taps = starts + np.arange(kernel, dtype=np.int64)[None, :] * dilation
    return ((taps >= 0) & (taps < length)).sum(axis=1)


def cpu_window_counts(length: int, kernel: int, stride: int, dilation: int, pb: int, out: int) -> np.ndarray:
    """window_counts as OpenVINO CPU (oneDNN) computes them: the kernel minus the taps cut off at each end.

    Equal to window_counts wherever a window has data. For a window starting past the end of the data
    it is 0 when the start is less than one dilation past the end (the CPU divides 0 by 0: NaN) and
    negative further out (the CPU gives -0.0). Measured on openvino 2026.4.1, e.g. L=3, K=3, S=3,
    pads 2/2, exclude-pad, ceil gives [1, 2.5, -0.0] where L=4 gives [1, 3, NaN].
    """
    start = np.arange(out, dtype=np.int64) * stride - pb
    end = start + (kernel - 1) * dilation + 1
    before = np.where(start < 0, (-start - 1) // dilation + 1, 0)
    after = np.where(end > length, (end - length - 1) // dilation + 1, 0)
    return kernel - before - after


def cpu_pads_refused(length: int, kernel: int, stride: int, pad_begin: int, out: int) -> bool:
    """Whether OpenVINO 2023.0 to 2024.1 CPU refuse an AvgPool-1 axis of ``out`` windows (no dilation): its Pooling
    node gives oneDNN the end pad ``(out - c) * S`` where ``c = trunc((L - K + pb) / S) + 1`` (C's division, toward
    zero), and oneDNN takes the axis only where ``trunc((L - K + pb + that pad) / S) + 1 == out``. Where the first
    window reaches past the data (``L + pb < K``) by other than a multiple of S, with two windows or more, the two
    disagree: the layer does not compile ("Supported primitive descriptors list is empty"), or on dynamic dims fails at
    inference. Measured (``scripts/probe_release.py``'s ``avg_pool_pads``): equal to what 2023.0 to 2024.1 refuse of
    every probed layer, and 2024.2 on compile them all."""
    over = kernel - length - pad_begin
    return out >= 2 and over > 0 and over % stride != 0


def cpu_refused_length(dim: Dim, kernel: int, stride: int, pad_begin: int, pad_end: int, auto_pad: str,
                       rounding: str, exclude_pad: bool) -> int | None:
    """A length in ``dim`` at which an AvgPool-1 axis (``auto_pad`` resolved per length, as OpenVINO resolves it) is
    one ``cpu_pads_refused`` says those releases refuse, or None: only lengths below the kernel can be (``L + pb <
    K``), each one OpenVINO accepts (the kernel fits the padded axis; with exclude-pad, in neither pad)."""
    hi = kernel if dim.hi is None else min(dim.hi, kernel)
    for n in range(max(dim.lo, 1), hi + 1):
        if auto_pad in ("same_upper", "same_lower"):
            b, e = same_pads(n, kernel, stride, 1, auto_pad == "same_upper")
        else:
            b, e = (0, 0) if auto_pad == "valid" else (pad_begin, pad_end)
        if kernel > n + b + e or (exclude_pad and (kernel <= b or kernel <= e)):
            continue
        if cpu_pads_refused(n, kernel, stride, b, out_length(n, kernel, stride, 1, b, e, rounding)):
            return n
    return None


def counts_padding(pads_begin: Sequence[int], pads_end: Sequence[int], exclude_pad: bool) -> bool:
    """True when the divisor is the full kernel size (include-pad with any non-zero pad)."""
    return not exclude_pad and any(p != 0 for p in (*pads_begin, *pads_end))


def pool_geometry(
    data: Shape,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads_begin: Sequence[int],
    pads_end: Sequence[int],
    auto_pad: str,
    rounding: str,
    exclude_pad: bool,
    ceil_torch_allowed: bool = True,
) -> PoolGeometry:
    """Validate a pooling layer the way OpenVINO does and compute its output geometry.

    Raises OpValidationError, in OpenVINO's order of checks, for whatever it rejects.
    """
    n = len(kernel)
    pads_begin, pads_end = pads_begin or (0,) * n, pads_end or (0,) * n  # OpenVINO reads empty pads as zeros
    if len(pads_begin) != n or len(pads_end) != n:
        bad = pads_begin if len(pads_begin) != n else pads_end
        which = "pads_begin" if bad is pads_begin else "pads_end"
        raise OpValidationError(f"{which} has {len(bad)} values, expected {n} (one per kernel axis)")
    if data is not None and len(data) not in (3, 4, 5):
        raise OpValidationError(f"expected a 3-D, 4-D or 5-D input, got rank {len(data)}")
    if len(strides) != n:
        raise OpValidationError(f"strides has {len(strides)} values, expected {n} (one per kernel axis)")
    if len(dilations) != n:
        raise OpValidationError(f"dilations has {len(dilations)} values, expected {n} (one per kernel axis)")
    if data is not None and n != len(data) - 2:
        raise OpValidationError(f"kernel has {n} values, expected {len(data) - 2} for a rank-{len(data)} input")
    if any(s == 0 for s in strides):
        raise OpValidationError(f"strides {list(strides)} contain a zero")
    if any(d == 0 for d in dilations):
        raise OpValidationError(f"dilations {list(dilations)} contain a zero")
    if rounding == "ceil_torch" and not ceil_torch_allowed:
        raise OpValidationError("rounding_type ceil_torch needs AvgPool-14 or later (opset14+)")

    if auto_pad == "valid":
        pb, pe = [0] * n, [0] * n
    else:
        pb, pe = list(pads_begin), list(pads_end)
    if data is None:
        return PoolGeometry(None, tuple(pb), tuple(pe))

    for axis, what in ((0, "batch"), (1, "channel")):
        if data[axis].is_static and data[axis].lo == 0:
            raise OpValidationError(f"{what} dimension is zero")

    same = auto_pad in ("same_upper", "same_lower")
    out: list[Dim] = []
    for i, dim in enumerate(data[2:]):
        k, s, d = kernel[i], strides[i], dilations[i]
        if same:
            if not dim.is_static:
                pb[i] = pe[i] = 0
                out.append(DYNAMIC)
                continue
            pb[i], pe[i] = same_pads(dim.lo, k, s, d, auto_pad == "same_upper")
        kd = dilated(k, d)
        if dim.is_static:
            padded = dim.lo + pb[i] + pe[i]
            if kd < 1:
                raise OpValidationError(f"kernel {k} with dilation {d} is empty on spatial axis {i}")
            if kd > padded:
                raise OpValidationError(
                    f"kernel {k} (dilated {kd}) is larger than the padded input {padded} on spatial axis {i}"
                )
            if exclude_pad and (kd <= pb[i] or kd <= pe[i]):
                raise OpValidationError(
                    f"with exclude-pad, kernel {kd} fits entirely in the padding "
                    f"(pads {pb[i]}/{pe[i]}) on spatial axis {i}: a window would have no data"
                )
        b, e = pb[i], pe[i]
        if k == 0:  # OpenVINO's dilated kernel is then a dynamic dim: windows span 0..P
            out.append(Dim(1, None if dim.hi is None else out_length(dim.hi, 0, s, 1, b, e, rounding)))
            continue
        out.append(dim.map(lambda n, k=k, s=s, d=d, b=b, e=e: out_length(n, k, s, d, b, e, rounding)))
    return PoolGeometry(tuple(out), tuple(pb), tuple(pe))
