"""Which native library ran a model in this process, noted where a crash report reads it.

Memory a library corrupts while it runs a model is often found only later, when it is freed: a segmentation fault or
an abort in code of ours (the collector, a return that frees the library's objects), outside any call of the
library's. The supervisor (``ir_tools/supervisor.py``) points the notes at the file its crashed command leaves it
(``note_to``), and names the library that ran, most likely the one that crashed (``libraries_ran``).
"""

from __future__ import annotations

from typing import IO

_PREFIX = "ir_tools ran: "
_notes: IO[str] | None = None
_noted: set[str] = set()


def note_to(file: IO[str]) -> None:
    """Write the notes of this process (a command's, forked) to ``file`` from now on."""
    global _notes
    _notes = file
    _noted.clear()


def ran(library: str) -> None:
    """Note that ``library`` (``OpenVINO``, ``onnxruntime``) is given a model in this process; once per library."""
    if _notes is not None and library not in _noted:
        _noted.add(library)
        _notes.write(f"{_PREFIX}{library}\n")
        _notes.flush()


def libraries_ran(text: str) -> list[str]:
    """The libraries the notes in ``text`` (the file, with whatever else was written to it) name, in order."""
    return [line.removeprefix(_PREFIX) for line in text.splitlines() if line.startswith(_PREFIX)]
