"""The terminal: colour and progress bars when a person is watching, plain text otherwise.

Colour follows the NO_COLOR convention (https://no-color.org) and is used only on a terminal.
Progress bars are tqdm's (a small, pure-Python, well-kept library that already knows terminal
widths, rates and remaining time) on stderr, only when stderr is a terminal and the output is
not a machine format, so nothing piped or parsed ever sees them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TextIO, TypeVar

T = TypeVar("T")

_COLOURS = {"error": "\033[1;31m", "warning": "\033[1;33m", "note": "\033[1;36m"}
_RESET = "\033[0m"


def colour_enabled(stream: TextIO) -> bool:
    return not os.environ.get("NO_COLOR") and stream.isatty()


def paint(text: str, severity: str, stream: TextIO = sys.stdout) -> str:
    """``text`` with its first ``severity[`` marker coloured, on a terminal that wants colour."""
    marker = f"{severity}["
    if severity not in _COLOURS or marker not in text or not colour_enabled(stream):
        return text
    return text.replace(marker, f"{_COLOURS[severity]}{severity}{_RESET}[", 1)


@contextmanager
def progress_steps(total: int | None, what: str, enabled: bool = True) -> Iterator[Callable[[str], None]]:
    """A function to call once per step, with what the step is about; a progress bar on stderr when it is a
    terminal (and ``enabled``), nothing otherwise (``total`` None: a count without an end)."""
    if not (enabled and sys.stderr.isatty()):
        yield lambda _: None
        return
    from tqdm import tqdm

    with tqdm(total=total, desc=what, unit="", leave=False, file=sys.stderr, dynamic_ncols=True) as bar:
        def step(label: str) -> None:
            bar.set_postfix_str(label[-40:], refresh=False)
            bar.update()

        yield step


@contextmanager
def status(what: str, enabled: bool = True) -> Iterator[None]:
    """``what...`` on stderr while a step with no count of its own runs (reading, compiling), erased after; only
    on a terminal (and ``enabled``)."""
    if not (enabled and sys.stderr.isatty()):
        yield
        return
    sys.stderr.write(f"{what}...\r")
    sys.stderr.flush()
    try:
        yield
    finally:
        sys.stderr.write("\r" + " " * (len(what) + 3) + "\r")
        sys.stderr.flush()


def progress(items: Iterable[T], total: int, what: str, enabled: bool = True) -> Iterator[T]:
    """``items`` with a progress bar on stderr when it is a terminal (and ``enabled``)."""
    if not (enabled and sys.stderr.isatty()):
        yield from items
        return
    from tqdm import tqdm

    with tqdm(items, total=total, desc=what, unit="", leave=False, file=sys.stderr, dynamic_ncols=True) as bar:
        yield from bar


@contextmanager
def above_progress() -> Iterator[None]:
    """Lines printed inside go above the progress bars being drawn (tqdm clears them and draws them again after), so
    a report can be printed as it comes."""
    tqdm = sys.modules.get("tqdm")
    if tqdm is None:
        yield
        return
    with tqdm.tqdm.external_write_mode(file=sys.stdout):
        yield
