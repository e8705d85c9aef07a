"""Child interpreters running ``openvino_infer.py`` on requests (a directory each, ``openvino_infer.main``): one child
kept per interpreter serves request after request, so that a run costs its compile and not an interpreter's start
and ``import openvino`` (half a second a run here; ``reduce`` makes dozens, the downgrade tests hundreds). The kept
child started in the environment of the requests it serves: a request made in another replaces it.

A run's outcome is a one-shot child's: a kept child that a request ends (a crash) or that does not answer within the
timeout (killed) is dropped, and if it had served other requests first, the request runs again in a fresh one-shot
child, whose outcome is the one reported. A request that finds the kept child busy (another thread's) runs in a
one-shot child. A forked process starts its own.
"""

from __future__ import annotations

import atexit
import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from . import openvino_infer


def run_child(python: str, directory: Path, timeout: float | None) -> tuple[int, str]:
    """Run the request in ``directory`` with ``python``'s OpenVINO: the exit code (0: run, 1: refused, as
    ``openvino_infer.main`` says; a negative signal number or another code: the child failed) and, when the child
    ended, its stderr. subprocess.TimeoutExpired after ``timeout`` seconds (None: never); OSError if ``python`` cannot
    start."""
    environment = dict(os.environ)
    with _LOCK:
        kept = _KEPT.get(python)
        if kept is None or kept.environment != environment or kept.process.poll() is not None:
            if kept is not None:
                del _KEPT[python]
                if kept.busy.acquire(blocking=False):  # (else the end of the request it serves closes it)
                    kept.close()
            kept = _KEPT[python] = _Kept(python, environment)
        claimed = kept.busy.acquire(blocking=False)
    if not claimed:
        return _one_shot(python, directory, timeout)
    served = kept.served
    try:
        code, stderr = kept.run(directory, timeout)
    except subprocess.TimeoutExpired:
        _drop(python, kept, replaced=True)
        if served:
            return _one_shot(python, directory, timeout)
        raise
    except BaseException:
        _drop(python, kept)
        raise
    finally:
        kept.busy.release()
    if kept.process.returncode is None:
        if _KEPT.get(python) is not kept:  # (replaced meanwhile)
            kept.close()
        return code, stderr
    _drop(python, kept, replaced=True)
    return _one_shot(python, directory, timeout) if served else (code, stderr)


def _one_shot(python: str, directory: Path, timeout: float | None) -> tuple[int, str]:
    done = subprocess.run([python, _script(directory), str(directory)], cwd=directory, capture_output=True, text=True,
                          errors="replace", check=False, timeout=timeout)
    return done.returncode, done.stderr


def _script(directory: Path) -> str:
    """``openvino_infer.py`` copied into ``directory``, where the child runs it: run from its own directory,
    ``import openvino`` would find runtime/openvino.py."""
    return shutil.copy(openvino_infer.__file__, directory / "openvino_infer.py")


def _close_quietly(*streams) -> None:
    for stream in streams:
        try:
            stream.close()
        except OSError:
            pass


class _Kept:
    """A child serving requests: a directory per line of its stdin, answered by a line of its stdout (the exit code a
    one-shot child would end with); its stderr goes to a file, read back when a request ends it."""

    def __init__(self, python: str, environment: dict[str, str]):
        self.environment = environment  # (the child's: os.environ when it started)
        self.home = Path(tempfile.mkdtemp(prefix="ir-tools-child-"))
        script = _script(self.home)
        self.stderr = open(self.home / "stderr.txt", "w+", errors="replace")  # noqa: SIM115 (closed in ``close``)
        try:
            self.process = subprocess.Popen([python, script, "--serve"], cwd=self.home, stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=self.stderr, text=True, errors="replace")
        except BaseException:
            self.stderr.close()
            shutil.rmtree(self.home, ignore_errors=True)
            raise
        self.busy = threading.Lock()
        self.served = 0  # requests answered
        self.said = 0  # how much of its stderr came before the request it serves (what it said before it)

    def run(self, directory: Path, timeout: float | None) -> tuple[int, str]:
        """(the answer, "") when the child answers; (its exit code, what it wrote to stderr meanwhile) when it ended."""
        try:
            self.process.stdin.write(f"{directory}\n")  # type: ignore[union-attr]
            self.process.stdin.flush()  # type: ignore[union-attr]
        except OSError:  # (it ended: its stdout says so)
            pass
        # Its end is read from its status, not from the end of its stdout: a process it forked (OpenVINO's telemetry
        # sends from one) may hold that pipe open after it crashed.
        deadline = None if timeout is None else time.monotonic() + timeout
        while not select.select([self.process.stdout], [], [], _POLL_SECONDS)[0]:
            if self.process.poll() is not None:
                break
            if deadline is not None and time.monotonic() > deadline:
                self.process.kill()
                raise subprocess.TimeoutExpired(self.process.args, timeout or 0.0)
        else:
            answer = self.process.stdout.readline().strip()  # type: ignore[union-attr]
            if answer.lstrip("-").isdigit():
                self.served += 1
                self.said = os.fstat(self.stderr.fileno()).st_size
                return int(answer), ""
        try:
            code = self.process.wait(timeout=5)  # (it ended, or its stdout did: it is ending)
        except subprocess.TimeoutExpired:  # (an answer it should not give)
            self.process.kill()
            code = self.process.wait()
        self.stderr.seek(self.said)
        return code, self.stderr.read()

    def close(self) -> None:
        """End the child (at the end of its stdin, else killed) and remove its files."""
        _close_quietly(self.process.stdin, self.process.stdout)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.stderr.close()
        shutil.rmtree(self.home, ignore_errors=True)


#: How often a request's wait looks at whether the child still runs.
_POLL_SECONDS = 0.05

_LOCK = threading.Lock()
_KEPT: dict[str, _Kept] = {}  # by interpreter: the one kept child of each


def _drop(python: str, kept: _Kept, replaced: bool = False) -> None:
    """Close ``kept``; ``replaced``: a new child starts in its place at once (it starts while a one-shot child runs
    the request again, and the next request finds it ready: a reduction meets crash after crash)."""
    with _LOCK:
        if _KEPT.get(python) is kept:
            del _KEPT[python]
            if replaced:
                try:
                    _KEPT[python] = _Kept(python, kept.environment)
                except OSError:  # (the next request says why)
                    pass
    kept.close()


@atexit.register
def _close_all() -> None:
    with _LOCK:
        kept = list(_KEPT.values())
        _KEPT.clear()
    for k in kept:
        k.close()


def _forget_after_fork() -> None:
    """In a forked child: the parent's kept children are the parent's (their pipes closed here, so that they end
    when the parent closes its ends)."""
    global _LOCK
    _LOCK = threading.Lock()  # (another thread may have held it at the fork)
    for k in _KEPT.values():
        _close_quietly(k.process.stdin, k.process.stdout, k.stderr)
    _KEPT.clear()


os.register_at_fork(after_in_child=_forget_after_fork)
