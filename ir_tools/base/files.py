"""Writing files atomically, with the permissions a plain ``open`` would give them."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from .errors import IrToolsError


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
