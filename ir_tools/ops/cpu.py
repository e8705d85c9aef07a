"""This machine's CPU as OpenVINO CPU's kernels see it: where a kernel computes otherwise by instruction set, oneDNN's
``mayiuse`` here (the x86 feature flags the CPU has, and the cap ONEDNN_MAX_CPU_ISA sets), read as oneDNN reads
them: once. And its fused multiply-add (``fma``), which kernels compute by and numpy has no function for."""

from __future__ import annotations

import os
from functools import cache

import numpy as np

#: ONEDNN_MAX_CPU_ISA's values up to the instruction sets asked about, the least first (oneDNN's cpu_isa_t order); a
#: value not here (ALL, the AMX ones) caps none of them.
_CAPS_IN_ORDER = ("SSE41", "AVX", "AVX2", "AVX2_VNNI", "AVX2_VNNI_2", "AVX512_CORE", "AVX512_CORE_VNNI",
                  "AVX512_CORE_BF16", "AVX512_CORE_FP16")
#: The instruction sets asked about, as ONEDNN_MAX_CPU_ISA names them, and the flags (/proc/cpuinfo's names) each needs.
_NEEDS = {"SSE41": frozenset({"sse4_1"}), "AVX2": frozenset({"avx2"}),
          "AVX512_CORE": frozenset({"avx512f", "avx512bw", "avx512vl", "avx512dq"}),
          "AVX512_CORE_FP16": frozenset({"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_vnni", "avx512_bf16",
                                         "avx512_fp16"})}


def mayiuse(isa: str, unknown: bool = False) -> bool:
    """oneDNN's ``mayiuse`` of ``isa`` (a key of ``_NEEDS``) here: the CPU has its flags (``unknown`` where
    /proc/cpuinfo cannot be read) and ONEDNN_MAX_CPU_ISA (else DNNL_MAX_CPU_ISA) allows it."""
    flags = _cpu_flags()
    cap = _onednn_cap()
    allowed = cap not in _CAPS_IN_ORDER or _CAPS_IN_ORDER.index(isa) <= _CAPS_IN_ORDER.index(cap)
    return allowed and (unknown if flags is None else _NEEDS[isa] <= flags)


@cache
def _cpu_flags() -> frozenset[str] | None:
    """The feature flags of /proc/cpuinfo (``avx2``, ``avx512_fp16``...); None where it cannot be read."""
    try:
        with open("/proc/cpuinfo") as f:
            line = next((line for line in f if line.startswith("flags")), ":")
    except OSError:
        return None
    return frozenset(line.split(":", 1)[1].split())


@cache
def _onednn_cap() -> str:
    """ONEDNN_MAX_CPU_ISA (else DNNL_MAX_CPU_ISA) in upper case; ALL where unset."""
    return (os.environ.get("ONEDNN_MAX_CPU_ISA") or os.environ.get("DNNL_MAX_CPU_ISA") or "ALL").upper()


def fma(a: np.ndarray | np.float32, b: np.ndarray | np.float32, c: np.ndarray | np.float32) -> np.ndarray:
    """``a * b + c`` of f32 values rounded once to f32, as vfmadd: the f64 product is exact, and the f64 sum rounds to
    f32 as the exact sum does unless it lies on an f32 midpoint (or below the least normal f32, where midpoints lie
    elsewhere). Those few are rounded to odd in f64 (their TwoSum error moves an even sum one step towards it), which
    then rounds to f32 as the exact sum does (Boldo and Melquiond: round-to-odd in 53 >= 24 + 2 bits)."""
    product = np.asarray(np.multiply(a, b, dtype=np.float64))
    total = np.asarray(np.add(product, c, dtype=np.float64))
    near = (total.view(np.uint64) & np.uint64((1 << 29) - 1)) == np.uint64(1 << 28)
    near |= np.abs(total) < 2.0**-126
    out = total.astype(np.float32)
    if near.any():
        product, total = product[near], total[near]
        addend = np.broadcast_to(np.asarray(c, np.float64), near.shape)[near]
        back = total - product
        error = (product - (total - back)) + (addend - back)
        even = (total.view(np.int64) & 1) == 0
        odd = np.nextafter(total, np.where(error > 0, np.inf, -np.inf))
        out[near] = np.where((error != 0) & even, odd, total)
    return out
