"""This machine's CPU as OpenVINO CPU's kernels see it: where a kernel computes otherwise by instruction set (oneDNN's
``mayiuse``), the x86 feature flags it has and the cap ONEDNN_MAX_CPU_ISA sets, read as oneDNN reads them: once."""

from __future__ import annotations

import os
from functools import cache


@cache
def cpu_flags() -> frozenset[str] | None:
    """The feature flags of /proc/cpuinfo (``avx2``, ``avx512_fp16``...); None where it cannot be read."""
    try:
        with open("/proc/cpuinfo") as f:
            line = next((line for line in f if line.startswith("flags")), ":")
    except OSError:
        return None
    return frozenset(line.split(":", 1)[1].split())


@cache
def onednn_cap() -> str:
    """ONEDNN_MAX_CPU_ISA (else DNNL_MAX_CPU_ISA) in upper case: the best instruction set oneDNN may use; ALL where
    unset."""
    return (os.environ.get("ONEDNN_MAX_CPU_ISA") or os.environ.get("DNNL_MAX_CPU_ISA") or "ALL").upper()
