"""The ``ir-tools`` process runs its command in a forked child and watches it: a crash in native code (OpenVINO,
onnxruntime, libxml2: a segmentation fault, an abort, the kernel's out-of-memory kill) is then a diagnostic naming
the signal and the call it happened in, not a process gone without a word; and what the command staged in temporary
files (its ``TMPDIR`` is the supervisor's) is removed whatever happens."""

from __future__ import annotations

import faulthandler
import math
import os
import re
import shlex
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import IO, Any

from .base.crash_notes import libraries_ran, note_to
from .base.diagnostics import Diagnostic
from .base.errors import SourceLoc

#: Signals that end a crashed process (faulthandler reports the first four).
_CRASHES = {signal.SIGSEGV: "segmentation fault", signal.SIGABRT: "abort", signal.SIGBUS: "bus error",
            signal.SIGFPE: "floating-point exception", signal.SIGILL: "illegal instruction",
            signal.SIGKILL: "killed: by the kernel when memory ran out, most likely"}
#: Signals the supervisor passes on to the command (it ends when the command ends).
_FORWARDED = (signal.SIGTERM, signal.SIGHUP)
_FRAME = re.compile(r'^\s+File "(?P<file>.*)", line (?P<line>\d+) in (?P<func>\S+)')
_PACKAGE = Path(__file__).resolve().parent
#: A signal's disposition, as ``signal.signal`` returns it.
_Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None


def _say_crash(text: str) -> None:
    """E-CRASH on stderr, where the command's own way of refusing is not known."""
    print(Diagnostic("error", "E-CRASH", text, SourceLoc()).render(), file=sys.stderr)


def supervised(command: Callable[[], int], crashed: Callable[[str], None] = _say_crash) -> int:
    """``command()`` (which flushes its output) run in a forked child, and its exit code; when it dies of a signal,
    exit 2 and ``crashed`` said the E-CRASH (``crash_text``), as the command reports a refusal (by default on
    stderr). Where there is no fork, or no temporary directory, ``command()`` itself."""
    if not hasattr(os, "fork"):
        return command()
    try:
        staging = tempfile.mkdtemp(prefix="ir-tools-")
        trace = tempfile.TemporaryFile("w+", dir=staging)
    except OSError:  # (no temporary directory to write: the command says so where it needs one)
        return command()
    sys.stdout.flush()
    sys.stderr.flush()
    watched = {signal.SIGCHLD, signal.SIGINT, *_FORWARDED}
    caught: list[int] = []  # (the signals another thread took, passed on by _wait)
    handlers = {number: signal.signal(number, lambda number, _: caught.append(number))
                for number in (signal.SIGINT, *_FORWARDED)}
    unwatched = signal.pthread_sigmask(signal.SIG_BLOCK, watched)  # (this thread's, from now on, sigtimedwait's)
    pid = os.fork()
    if pid == 0:  # the command
        _restore(handlers)
        signal.pthread_sigmask(signal.SIG_SETMASK, unwatched)
        os.environ["TMPDIR"] = tempfile.tempdir = staging
        faulthandler.enable(trace, all_threads=True)
        note_to(trace)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _interrupt)
        code = 2
        try:
            code = command()
        except SystemExit as exc:  # as the interpreter ends on it: a code, or a message on stderr and 1
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
            if not isinstance(exc.code, int | None):
                print(exc.code, file=sys.stderr)
        except KeyboardInterrupt:
            code = 130
        finally:
            os._exit(code)
    try:
        status = _wait(pid, watched, caught)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, unwatched)
        _restore(handlers)
    try:
        if not os.WIFSIGNALED(status):
            return os.waitstatus_to_exitcode(status)
        number = os.WTERMSIG(status)
        if number not in _CRASHES:  # (ended by a signal it was sent: as a shell reports it)
            return 128 + number
        trace.seek(0)
        crashed(crash_text(signal.Signals(number), trace))
        return 2
    finally:
        trace.close()
        shutil.rmtree(staging, ignore_errors=True)


_interrupted_at = -math.inf


def _interrupt(number: int, frame: object) -> None:
    """The command's SIGINT: KeyboardInterrupt, but once for a signal sent to the whole process group (``kill -INT
    -PGID``), which reaches the command both itself and through the supervisor, a moment apart."""
    global _interrupted_at
    now = time.monotonic()
    if now - _interrupted_at > _REPEATED:
        _interrupted_at = now
        raise KeyboardInterrupt


#: Seconds within which a second SIGINT is the first one again, passed on: on a loaded machine the supervisor may
#: pass it on half a second late (a person's second Ctrl-C, after seeing the first one's effect, comes later).
_REPEATED = 1.0


def _wait(pid: int, watched: set[signal.Signals], caught: list[int]) -> int:
    """The command's wait status, once it ended; meanwhile each signal the supervisor is sent is passed on to it: a
    SIGTERM or SIGHUP, and a SIGINT a process sent (``kill -INT``, an IDE's stop button), not the terminal's (Ctrl-C,
    which the kernel sends the whole foreground process group: the command has it already). The kernel gives a signal
    to another thread where it finds this one not waiting (numpy's OpenBLAS workers, started before the signals were
    blocked): its handler put it in ``caught``, with no word of its sender, so a SIGINT is passed on there whoever sent
    it (the command's ``_interrupt`` takes a terminal's twice as once), and a SIGCHLD is lost: hence a wake every
    ``_POLL`` seconds, to pass on what was caught and to look for the command's end."""
    while True:
        info = signal.sigtimedwait(watched, _POLL)
        while caught:
            os.kill(pid, caught.pop(0))
        if info is None or info.si_signo == signal.SIGCHLD:
            ended, status = os.waitpid(pid, os.WNOHANG)
            if ended:
                return status
        elif info.si_signo != signal.SIGINT or info.si_code <= 0:  # (sent by a process: SI_USER, SI_QUEUE, SI_TKILL)
            os.kill(pid, info.si_signo)


#: Seconds between two looks at what another thread caught and whether the command ended (see ``_wait``).
_POLL = 0.1


def _restore(handlers: dict[int, _Handler]) -> None:
    """The signal handlers ``handlers`` maps each signal to (``SIG_DFL`` for one not installed from Python)."""
    for number, handler in handlers.items():
        signal.signal(number, signal.SIG_DFL if handler is None else handler)


def died_of(code: int) -> str:
    """How a process that ended with exit ``code`` (minus the signal's number, as multiprocessing gives it) ended."""
    if code >= 0:
        return f"ended with exit code {code}"
    number = signal.Signals(-code)
    return f"died of {number.name}" + (f" ({_CRASHES[number]})" if number in _CRASHES else "")


def crash_text(number: signal.Signals, trace: IO[str]) -> str:
    """What E-CRASH says of a death by ``number``: the signal, the call faulthandler's ``trace`` shows the crashing
    thread in (the innermost Python frame, and ir_tools' own frame that led there), the library that crashed (the
    one called there; else, most likely, one that ran a model before: ``crash_notes``), and what to do."""
    text = trace.read()
    frames = _crashing_frames(text)
    where = hint = library = ""
    if frames:  # (faulthandler wrote the crashing thread's: a crash it could still report)
        innermost = frames[0]
        ours = next((f for f in frames if _ours(f[0])), None)
        where = f" in native code called from {_show(innermost)}"
        if ours is not None and ours is not innermost:
            where += f", from {_show(ours)}"
        library = _library(innermost[0])
        if library:
            where += f": {library} crashed, a bug of {library}'s rather than a problem ir_tools found in the file"
    if not library and (ran := libraries_ran(text)):  # (also where the crash left faulthandler nothing to write)
        library = ran[-1]
        where += (f": most likely {library} crashed (it ran a model in this process, and memory it corrupts is "
                  f"often found only when freed, outside its calls), a bug of {library}'s rather than a problem "
                  "ir_tools found in the file")
    if library == "OpenVINO":
        hint = ". `ir-tools reduce MODEL --until openvino-fails` cuts the model to a part that still crashes it"
    command = shlex.join(["ir-tools", *sys.argv[1:]])
    return f"`{command}` died of {number.name} ({_CRASHES[number]}){where}; nothing written{hint}"


def _crashing_frames(trace: str) -> list[tuple[str, int, str]]:
    """The (file, line, function) frames of the thread that crashed, innermost first; where it is no Python thread (a
    worker thread of OpenVINO's, under load), those of the Python thread in a call of OpenVINO's or onnxruntime's
    (not the main thread waiting on it), else of the first thread listed."""
    threads: list[tuple[bool, list[tuple[str, int, str]]]] = []
    for line in trace.splitlines():
        if line.startswith(("Current thread 0x", "Thread 0x")):
            threads.append((line.startswith("Current"), []))
        elif threads and (match := _FRAME.match(line)) is not None:
            threads[-1][1].append((match["file"], int(match["line"]), match["func"]))
    current = next((frames for is_current, frames in threads if is_current), None)
    calling = next((frames for _, frames in threads if any(_library(frame[0]) for frame in frames)), None)
    return current if current is not None else calling if calling is not None else threads[0][1] if threads else []


def _ours(file: str) -> bool:
    return Path(file).resolve().is_relative_to(_PACKAGE)


def _show(frame: tuple[str, int, str]) -> str:
    file, line, func = frame
    path = Path(file).resolve()
    shown = f"ir_tools/{path.relative_to(_PACKAGE)}" if path.is_relative_to(_PACKAGE) else path.name
    return f"{func} ({shown}:{line})"


#: The modules of ir_tools that call OpenVINO's native code (a crash in their frame is OpenVINO's).
_OPENVINO_CALLERS = frozenset({_PACKAGE / "runtime" / "openvino.py", _PACKAGE / "runtime" / "openvino_infer.py"})


def _library(file: str) -> str | None:
    """The library whose native code a frame called: OpenVINO's or onnxruntime's (their Python modules, or ir_tools'
    modules that call OpenVINO), if either."""
    path = Path(file).resolve()
    if "openvino" in path.parts or path in _OPENVINO_CALLERS:
        return "OpenVINO"
    return "onnxruntime" if "onnxruntime" in path.parts else None
