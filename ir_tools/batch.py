"""Many model files in one command: which files a command line names, and checking them in parallel."""

from __future__ import annotations

import gc
import glob
import multiprocessing
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import TypeVar

from .base.errors import IrToolsError
from .ir.reader import encoding_of

T = TypeVar("T")

_GLOB_CHARS = frozenset("*?[")
#: How far into a file the ``<net`` root element is looked for when a directory is searched.
_SNIFF_BYTES = 4096


def model_paths(specs: Iterable[Path], ir_only: bool = False) -> list[Path]:
    """Files as given (with ``ir_only``, but another kind of XML: ``other_xml``), directories searched recursively
    for the ``.xml`` files that are not another kind of XML, glob patterns expanded (for shells that leave them
    alone); in command-line order, each file once (two spellings of one file's path are one file)."""
    found: dict[Path, Path] = {}  # the file, resolved -> its path as the command line spells it
    for spec in specs:
        if spec.is_dir():
            matches = [p for p in _xml_files(spec) if not other_xml(p)]
            if not matches:
                raise IrToolsError(f"{spec}: no IR .xml file in this directory", code="E-USAGE")
        elif not spec.exists() and _GLOB_CHARS & set(str(spec)):
            matches = [Path(p) for p in sorted(glob.glob(str(spec), recursive=True)) if Path(p).is_file()]
            if not matches:
                raise IrToolsError(f"{spec}: no file matches this pattern", code="E-USAGE")
        else:  # a missing file is the command's to report (E-READ)
            matches = [] if ir_only and other_xml(spec) else [spec]
        for match in matches:
            found.setdefault(match.resolve(), match)
    return list(found.values())


def _xml_files(directory: Path) -> list[Path]:
    """The ``.xml`` files under ``directory`` and its subdirectories (not following links to directories), sorted;
    E-READ for a subdirectory that cannot be searched (its files would go unchecked without a word)."""
    def unsearchable(error: OSError) -> None:
        raise IrToolsError(f"{error.filename}: cannot search this directory ({error.strerror}): its files would go "
                           "unchecked", code="E-READ")

    return sorted(Path(root, name) for root, _, files in os.walk(directory, onerror=unsearchable)
                  for name in files if name.endswith(".xml"))


#: The root element's name after the prolog (declaration, comments, processing instructions, blanks).
_ROOT = re.compile(r"(?:\s+|<\?.*?\?>|<!--.*?-->)*<([A-Za-z_][\w.:-]*)", re.S)


def other_xml(path: Path) -> bool:
    """True for a file whose root element, found in its first bytes, is not ``<net>``: another kind of XML, which a
    directory may hold beside IR. A file that cannot be read, is empty, is not XML (a Git LFS pointer), or whose root
    is not found there is not known to be another kind: the command reads it and says what is wrong with it."""
    try:
        with open(path, "rb") as f:
            head = f.read(_SNIFF_BYTES)
    except OSError:
        return False
    root = _ROOT.match(head.decode(encoding_of(head), "ignore").lstrip("\ufeff"))
    return root is not None and root.group(1) != "net"


def _cpus() -> int:
    """The CPUs this process may run on (its affinity, as a CI runner's container sets it), else the machine's."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def map_files(work: Callable[[Path], T], paths: list[Path], jobs: int | None,
              crashed: Callable[[Path, int], T]) -> Iterator[T]:
    """``work`` on every path, results in order as they come; in ``jobs`` worker processes (default: the CPUs this
    process may use) when there is more than one file, each file's garbage collected after it (the command runs
    without the cyclic collector: the objects a file leaves would pile up). A file whose worker died (a crash in
    native code, OpenVINO's or a file changed while read) is worked on again alone, and if it dies again,
    ``crashed(path, exit code)`` is its result: the other files go on. Workers fork from this process while it has
    no threads (OpenVINO's would not survive a fork), else from a server that has imported ir_tools (a spawned
    worker would re-import everything): forked workers are the fastest of the three, spawned ones the slowest
    (benchmarks/bench_many.py compares them)."""
    if len(paths) == 1:
        yield work(paths[0])
        return
    jobs = min(jobs or _cpus(), len(paths))
    if "openvino" in sys.modules or threading.active_count() > 1:
        context = multiprocessing.get_context("forkserver")
        # Imported once for all workers: not ir_tools.cli, which may be __main__ (runpy warns if it is preloaded),
        # nor openvino, whose import leaves a child process the fork server then reaps with a warning.
        context.set_forkserver_preload(["ir_tools.passes.validate"])
    else:  # nothing here a fork could break: the workers start at once, with everything imported
        context = multiprocessing.get_context("fork")
    collected = partial(_collected, work)
    done = 0
    while done < len(paths):
        rest = paths[done:]
        try:
            with ProcessPoolExecutor(jobs, mp_context=context) as pool:
                for result in pool.map(collected, rest, chunksize=max(1, len(rest) // (8 * jobs))):
                    yield result
                    done += 1
        except BrokenProcessPool:  # the first file without a result, or one worked on beside it, died
            result, code = _alone(collected, paths[done], context)
            yield crashed(paths[done], code) if code else result
            done += 1


def _collected(work: Callable[[Path], T], path: Path) -> T:
    try:
        return work(path)
    finally:
        gc.collect(0)


def _alone(work: Callable[[Path], T], path: Path, context: BaseContext) -> tuple[T | None, int]:
    """``work(path)`` in a process of its own: its result and 0, or None and the process's exit code if it died
    (minus the signal's number)."""
    reader, writer = context.Pipe(duplex=False)
    process = context.Process(target=_send, args=(work, path, writer))
    process.start()
    writer.close()
    try:
        result = reader.recv()
    except EOFError:
        result = None
    process.join()
    return result, (process.exitcode or 0) if result is None else 0


def _send(work: Callable[[Path], T], path: Path, writer: Connection) -> None:
    writer.send(work(path))
