"""Many model files in one command: which files a command line names, and checking them in parallel."""

from __future__ import annotations

import glob
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TypeVar

from .base.errors import IrToolsError

T = TypeVar("T")

_GLOB_CHARS = frozenset("*?[")
#: How far into a file the ``<net`` root element is looked for when a directory is searched.
_SNIFF_BYTES = 4096


def model_paths(specs: Iterable[Path]) -> list[Path]:
    """Files as given, directories searched recursively for IR ``.xml`` files, glob patterns expanded
    (for shells that leave them alone); in command-line order, each file once."""
    found: dict[Path, None] = {}
    for spec in specs:
        if spec.is_dir():
            matches = [p for p in sorted(spec.rglob("*.xml")) if p.is_file() and _is_ir(p)]
            if not matches:
                raise IrToolsError(f"{spec}: no IR .xml file in this directory", code="E-USAGE")
        elif not spec.exists() and _GLOB_CHARS & set(str(spec)):
            matches = [Path(p) for p in sorted(glob.glob(str(spec), recursive=True)) if Path(p).is_file()]
            if not matches:
                raise IrToolsError(f"{spec}: no file matches this pattern", code="E-USAGE")
        else:
            matches = [spec]  # a missing file is the command's to report (E-READ)
        found.update(dict.fromkeys(matches))
    return list(found)


def _is_ir(path: Path) -> bool:
    """True if the file's root element looks like ``<net``: a directory may hold other XML files."""
    try:
        with open(path, "rb") as f:
            return b"<net" in f.read(_SNIFF_BYTES)
    except OSError:
        return True  # unreadable: let the command say so


def map_files(work: Callable[[Path], T], paths: list[Path], jobs: int | None) -> Iterator[T]:
    """``work`` on every path, results in order as they come; in ``jobs`` worker processes (default: the CPU count) when
    there is more than one file. Workers fork from this process while it has no threads (OpenVINO's would not
    survive a fork), else from a server that has imported ir_tools (a spawned worker would re-import everything):
    forked workers are the fastest of the three, spawned ones the slowest (benchmarks/bench_many.py compares them)."""
    jobs = min(jobs or os.cpu_count() or 1, len(paths))
    if jobs <= 1:
        yield from map(work, paths)
        return
    if "openvino" in sys.modules or threading.active_count() > 1:
        context = multiprocessing.get_context("forkserver")
        # Imported once for all workers: not ir_tools.cli, which may be __main__ (runpy warns if it is preloaded),
        # nor openvino, whose import leaves a child process the fork server then reaps with a warning.
        context.set_forkserver_preload(["ir_tools.passes.validate"])
    else:  # nothing here a fork could break: the workers start at once, with everything imported
        context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(jobs, mp_context=context) as pool:
        yield from pool.map(work, paths, chunksize=max(1, len(paths) // (8 * jobs)))
