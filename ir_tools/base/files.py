"""Writing files atomically, with the permissions a plain ``open`` would give them."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

from .errors import IrToolsError

#: A file's contents as the pieces written one after another.
Chunks = Sequence[bytes] | Sequence[memoryview]


def same_file(a: Path, b: Path) -> bool:
    """True if ``a`` and ``b`` name one file once links are resolved (False when either cannot be resolved). Two
    existing files of different inodes are told apart by two ``stat`` calls, without resolving every folder of both
    paths; only a path that does not exist yet (``a/sub/..`` names the input once a writer makes ``sub``), and one file
    reached twice, are resolved."""
    try:
        if not os.path.samefile(a, b):
            return False
    except (OSError, ValueError):  # (ValueError: a NUL byte in a path)
        pass
    try:
        return a.resolve() == b.resolve()
    except (OSError, ValueError):
        return False


def file_mode(target: Path) -> int:
    """The target's own mode when it exists, else what ``open`` gives a new file (0666 less the umask):
    a temporary file is created 0600, and a model or report others must read cannot stay so."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def unwritable(target: Path) -> str | None:
    """Why ``target`` cannot be written, where that can be told before writing (a folder on its way that is a file,
    or the nearest existing one without write permission); None otherwise."""
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"no permission to write in {folder}"
    return None


def cannot_write(target: Path, exc: OSError) -> IrToolsError:
    """E-WRITE for ``target``, in the system's words."""
    return IrToolsError(f"cannot write {target}: {exc.strerror or exc}", code="E-WRITE")


def temporary_beside(target: Path) -> tuple[int, str]:
    """A temporary file in the target's folder (so that a rename replaces the target atomically); IrToolsError
    (E-WRITE) where it cannot be made."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise cannot_write(target, exc) from None
    os.chmod(tmp, file_mode(target))
    return fd, tmp


def write_atomically(target: Path, write: Callable[[BinaryIO], None]) -> None:
    """Write ``target`` through a temporary file renamed into place: never half a file. IrToolsError (E-WRITE) when
    the system refuses (a full disk, a read-only file system)."""
    fd, tmp = temporary_beside(target)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, target)
    except OSError as exc:
        raise cannot_write(target, exc) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


#: Bytes per system call of a write: a weight mapped from the input ``.bin`` and not read yet (each page is faulted in
#: by the copy) takes twice as long written whole, tens of MB at once, as a MB at a time.
_WRITE_SLICE = 1 << 20
#: Most buffers one ``os.writev`` takes (Linux's ``IOV_MAX``).
_IOV_MAX = 1024


def _write_chunks(fd: int, chunks: Chunks) -> None:
    """Write ``chunks`` one after another, gathered into system calls of ``_WRITE_SLICE`` bytes at most: a model's
    many small payloads take one call per slice, not one each (a call costs more than copying a small payload)."""
    batch: list[memoryview] = []
    room = _WRITE_SLICE
    for chunk in chunks:
        view = memoryview(chunk)
        while view:
            piece, view = view[:room], view[room:]
            batch.append(piece)
            room -= len(piece)
            if not room or len(batch) == _IOV_MAX:
                _write_all(fd, batch)
                batch, room = [], _WRITE_SLICE
    _write_all(fd, batch)


def _write_all(fd: int, views: list[memoryview]) -> None:
    """``os.writev`` until every byte of ``views`` is written (a call may write fewer); empties ``views``."""
    while views:
        written = os.writev(fd, views)
        while views and written >= len(views[0]):
            written -= len(views.pop(0))
        if written:
            views[0] = views[0][written:]


def write_together(files: Sequence[tuple[Path, Chunks]]) -> None:
    """Write each file beside its target, then move them all into place; the old files are moved aside first and put
    back if a move fails, so the targets hold all the new files or all the old ones (an IR's pair, a command's outputs
    together). IrToolsError (E-OVERWRITE) where two targets are one file, E-WRITE where the system refuses.
    (Moved aside, not replaced: on ext4, a rename over an existing file starts writing the new one back to disk at
    once (``auto_da_alloc``), 30 ms for 100 MB.)"""
    for i, (target, _) in enumerate(files):
        if any(same_file(target, other) for other, _ in files[:i]):
            raise IrToolsError(f"{target} would be written twice (two of the files written together)",
                               code="E-OVERWRITE")
    temps: list[tuple[str, Path]] = []
    try:
        for target, chunks in files:
            fd, tmp = temporary_beside(target)
            temps.append((tmp, target))
            try:
                _write_chunks(fd, chunks)
            except OSError as exc:  # (a full disk)
                raise cannot_write(target, exc) from None
            finally:
                os.close(fd)
        try:
            aside = _move_aside([target for _, target in temps])
        except OSError as exc:
            raise cannot_write(Path(exc.filename or temps[0][1]), exc) from None
        placed: list[Path] = []
        try:
            for tmp, target in temps:
                os.replace(tmp, target)
                placed.append(target)
        except OSError as exc:
            for written in placed:  # (none of the new files is left: a .bin beside no .xml)
                os.unlink(written)
            _put_back(aside)  # the old files again: they still match each other
            raise cannot_write(target, exc) from None
        for _, old in aside:
            os.unlink(old)
    finally:
        for tmp, _ in temps:
            if os.path.exists(tmp):
                os.unlink(tmp)


def _move_aside(targets: list[Path]) -> list[tuple[Path, str]]:
    """Rename each existing target to a new name beside it, so a failed move into place can be undone."""
    aside: list[tuple[Path, str]] = []
    try:
        for target in targets:
            if target.is_file():
                fd, old = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".bak", dir=target.parent)
                os.close(fd)
                os.unlink(old)  # (a name of its own: a rename onto an existing file would start its writeback)
                os.replace(target, old)
                aside.append((target, old))
    except OSError:
        _put_back(aside)
        raise
    return aside


def _put_back(aside: list[tuple[Path, str]]) -> None:
    for target, old in aside:
        os.replace(old, target)
