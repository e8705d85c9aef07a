"""How many threads numpy's BLAS (OpenBLAS) uses while the reference runs next to OpenVINO.

After OpenVINO has compiled and inferred, its worker threads live on in the process; OpenBLAS's own
workers spin-wait on the same cores, and on a 2-core machine with any other load a small matrix
product (maxvit_t's 49 x 64 by 64 x 192 blocks, 1 ms alone) then stalls for up to a second. The
reference's products are many and mostly small, so one BLAS thread is what ``compare`` uses:
maxvit_t 26 s -> 12 s, resnet18 1.9 s -> 1.2 s on a loaded machine (benchmarks/bench_compare.py).

numpy has no call for this; OpenBLAS has ``openblas_set_num_threads`` (under a prefixed, suffixed
name in the scipy-openblas build numpy wheels ship). It is found among the libraries the process has
loaded (Linux); elsewhere, or with another BLAS, nothing changes.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import numpy as np  # noqa: F401  (loads the BLAS this module looks for)

#: (set, get) symbol names of OpenBLAS builds: scipy-openblas 64-bit and 32-bit ints, then plain OpenBLAS.
_SYMBOLS = (("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
            ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
            ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
            ("openblas_set_num_threads", "openblas_get_num_threads"))


@lru_cache(maxsize=1)
def _openblas() -> tuple[ctypes._CFuncPtr, ctypes._CFuncPtr] | None:
    """OpenBLAS's (set, get) thread-count functions, if the process has loaded OpenBLAS."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    paths = {line.split(None, 5)[5] for line in maps.splitlines()
             if line.count(" ") >= 5 and "openblas" in line.rsplit("/", 1)[-1].lower()}
    for path in sorted(paths):
        try:
            library = ctypes.CDLL(path.strip())
        except OSError:
            continue
        for set_name, get_name in _SYMBOLS:
            if hasattr(library, set_name) and hasattr(library, get_name):
                setter, getter = getattr(library, set_name), getattr(library, get_name)
                setter.argtypes, setter.restype, getter.restype = [ctypes.c_int], None, ctypes.c_int
                return setter, getter
    return None


@contextmanager
def blas_threads(count: int) -> Iterator[None]:
    """Run the block with ``count`` OpenBLAS threads, then restore the number it had."""
    found = _openblas()
    if found is None:
        yield
        return
    setter, getter = found
    before = getter()
    setter(count)
    try:
        yield
    finally:
        setter(before)
