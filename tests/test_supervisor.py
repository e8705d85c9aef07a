"""``ir-tools`` runs its command in a forked child (``ir_tools/supervisor.py``): a crash in native code is E-CRASH
naming the signal and the call, exit 2, nothing written and no temporary file left; any other end is passed on."""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset12 as o
import pytest

from ir_tools import read_ir

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the supervisor forks (POSIX only)")


def ir_tools(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    """``python -m ir_tools ARGS``, its temporary files in ``tmp``."""
    tmp.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "ir_tools", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TMPDIR": str(tmp)})


def supervise(code: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    """``supervised`` running ``code`` (the body of a function returning the exit code) in a process of its own."""
    tmp.mkdir(exist_ok=True)
    script = ("import ctypes, os, signal\nfrom ir_tools.supervisor import supervised\n"
              f"def command():\n    {code}\nos._exit(supervised(command))\n")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "TMPDIR": str(tmp)})


def scalar_broadcast(path: Path) -> Path:
    """A scalar input broadcast to the shape [] (a Const of no element) as a model output (measured: the CPU plugin of
    OpenVINO 2026.4 dies of SIGSEGV compiling it; its shape rule takes it, and so does check), beside a Pad-12 of
    another input, which ``migrate --target 2023.0`` rewrites. A Pad whose negative pads crop more than an axis holds
    crashed it too, running, but check refuses that one (E-OP)."""
    x, y = o.parameter([], np.float32, name="x"), o.parameter([2], np.float32, name="y")
    broadcast = ov.opset3.broadcast(x, ov.op.Constant(ov.Type.i64, ov.Shape([0]), []))
    pad = o.pad(y, np.array([1], np.int64), np.array([1], np.int64), "constant")
    ov.save_model(ov.Model([broadcast, pad], [x, y], "scalar_broadcast"), path, compress_to_fp16=False)
    return path


@pytest.mark.openvino  # (in a child process)
def test_openvino_crashing_on_a_model_is_a_diagnostic(tmp_path: Path) -> None:
    model = scalar_broadcast(tmp_path / "broadcast.xml")
    child = subprocess.run([sys.executable, "-c", "import sys, numpy as np, openvino as ov\n"
                            "ov.Core().compile_model(sys.argv[1], 'CPU')"
                            "({'x': np.ones((), np.float32), 'y': np.ones(2, np.float32)})",
                            str(model)], capture_output=True, timeout=300)
    if child.returncode >= 0:
        pytest.skip(f"this OpenVINO runs the scalar broadcast (exit {child.returncode}): nothing crashes")
    runs = {"compare": ["compare", str(model)],
            "migrate --check": ["migrate", str(model), "--target", "2023.0", "--check", "-o", str(tmp_path / "m.xml")]}
    for name, args in runs.items():
        done = ir_tools(args, tmp_path / "tmp")
        assert done.returncode == 2, (name, done.returncode, done.stderr)
        assert f"error[E-CRASH]: `ir-tools {args[0]} {model}" in done.stderr, (name, done.stderr)
        assert "died of SIG" in done.stderr and "OpenVINO crashed" in done.stderr, (name, done.stderr)
        assert "Traceback" not in done.stderr and "Fatal Python error" not in done.stderr, (name, done.stderr)
        assert not list((tmp_path / "tmp").iterdir()), name  # what the command staged is gone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broadcast.bin", "broadcast.xml", "tmp"]


def test_a_crash_names_its_signal_and_call(tmp_path: Path) -> None:
    done = supervise("return ctypes.string_at(0)", tmp_path)
    assert done.returncode == 2
    assert "error[E-CRASH]: " in done.stderr and "died of SIGSEGV (segmentation fault) in native code called from " \
        "string_at" in done.stderr, done.stderr
    assert "OpenVINO" not in done.stderr and "Fatal Python error" not in done.stderr
    assert not list(tmp_path.iterdir())


def test_a_crash_outside_a_library_that_ran_a_model_names_it(tmp_path: Path) -> None:
    """Memory OpenVINO corrupts is often found only when it is freed, in a frame of ours (CI: the deep crop aborted
    in ``munmap_chunk`` from ``cli._main``, after OpenVINO's refusal): the library that ran a model is named."""
    done = supervise("from ir_tools.base import crash_notes; crash_notes.ran('OpenVINO'); "
                     "return ctypes.string_at(0)", tmp_path)
    assert done.returncode == 2
    assert "died of SIGSEGV (segmentation fault) in native code called from string_at" in done.stderr, done.stderr
    assert ": most likely OpenVINO crashed (it ran a model in this process" in done.stderr, done.stderr
    assert "--until openvino-fails" in done.stderr and "ir_tools ran" not in done.stderr
    assert not list(tmp_path.iterdir())


def test_a_crash_that_leaves_no_trace_still_names_the_library_that_ran_a_model(tmp_path: Path) -> None:
    """A crash faulthandler could write nothing of (the deep crop's, once in a CI run under load): E-CRASH said only
    "died of SIGSEGV". The library the notes say ran a model is named all the same."""
    done = supervise("import faulthandler; from ir_tools.base import crash_notes; crash_notes.ran('OpenVINO'); "
                     "faulthandler.disable(); os.kill(os.getpid(), signal.SIGSEGV)", tmp_path)
    assert done.returncode == 2
    assert "died of SIGSEGV (segmentation fault): most likely OpenVINO crashed" in done.stderr, done.stderr
    assert "--until openvino-fails" in done.stderr and not list(tmp_path.iterdir())


@pytest.mark.parametrize(("code", "exit_code"), [
    ("return 3", 3),  # the command's own code
    ("raise SystemExit(5)", 5),
    ("os.kill(os.getpid(), signal.SIGTERM)", 128 + signal.SIGTERM),  # ended by a signal it was sent: as a shell says
])
def test_other_ends_are_passed_on(code: str, exit_code: int, tmp_path: Path) -> None:
    done = supervise(code, tmp_path)
    assert (done.returncode, done.stderr) == (exit_code, "")
    assert not list(tmp_path.iterdir())


def test_an_exit_with_a_message_says_it(tmp_path: Path) -> None:
    """sys.exit("message"), as the interpreter ends on it: the message on stderr, exit 1 (it was dropped)."""
    done = supervise("raise SystemExit('configuration missing')", tmp_path)
    assert (done.returncode, done.stderr) == (1, "configuration missing\n")


def test_without_a_temporary_directory_the_command_runs_unsupervised(tmp_path: Path) -> None:
    """No temporary directory can be made (every candidate unwritable, as a read-only /tmp): the command runs in
    this process, as before the supervisor, not a traceback before anything ran."""
    script = ("import os, tempfile\nfrom ir_tools.supervisor import supervised\n"
              "def refuse(*args, **kwargs):\n    raise PermissionError(13, 'Permission denied')\n"
              "tempfile.mkdtemp = refuse\nos._exit(supervised(lambda: 4 if os.getpid() == PID else 5))\n")
    done = subprocess.run([sys.executable, "-c", f"PID = __import__('os').getpid()\n{script}"], capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stderr) == (4, ""), done.stderr  # (4: run in the process itself, not a child)


def _interruptible(tmp: Path, cleanup: float, threads: int = 0) -> tuple[subprocess.Popen[str], int]:
    """A supervised command in a session of its own, started (it printed its pid, which is returned): it sleeps a
    minute in steps of 50 ms, and on KeyboardInterrupt takes ``cleanup`` seconds, prints 'interrupted' and exits 130.
    SIGINT at its default, as a shell starts a command (a pytest worker may hand its children SIGINT ignored);
    ``threads`` more threads started in the supervisor's process before it runs the command, each sleeping.

    In steps, as a command runs Python between its native calls: a SIGINT that lands after the interpreter last looked
    for signals and before one long sleep's system call began is acted on only when that sleep ends (CPython's own
    window, not the supervisor's; with ``time.sleep(60)``, 8 of 50 runs on an idle machine ran their minute out)."""
    tmp.mkdir(exist_ok=True)
    script = ("import os, signal, sys, threading, time\nfrom ir_tools.supervisor import supervised\n"
              "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
              f"for _ in range({threads}):\n    threading.Thread(target=time.sleep, args=(120,), daemon=True).start()\n"
              "def command():\n    try:\n        print(os.getpid(), flush=True)\n        for _ in range(1200):\n"
              "            time.sleep(0.05)\n"
              "        return 0\n"
              f"    except KeyboardInterrupt:\n        time.sleep({cleanup})\n"
              "        print('interrupted', flush=True)\n"
              "        return 130\n"
              "os._exit(supervised(command))\n")
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "TMPDIR": str(tmp)}, start_new_session=True)
    return process, int(process.stdout.readline())


@pytest.mark.parametrize("group", [False, True])
def test_an_interrupt_sent_to_the_process_ends_the_command(group: bool, tmp_path: Path) -> None:
    """SIGINT sent to ``ir-tools`` by another process (``kill -INT``, an IDE's stop button; or to its whole process
    group): the command is interrupted, exit 130, once (the supervisor ignored a SIGINT, counting on the terminal's
    reaching the command too, and the command ran to its end, exit 0)."""
    process, _ = _interruptible(tmp_path, cleanup=0.5)
    if group:
        os.killpg(process.pid, signal.SIGINT)
    else:
        process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert (process.returncode, out, err) == (130, "interrupted\n", ""), err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(("number", "exit_code", "out"), [
    (signal.SIGINT, 130, "interrupted\n"), (signal.SIGTERM, 128 + signal.SIGTERM, "")])
def test_a_signal_another_thread_takes_is_passed_on(number: int, exit_code: int, out: str, tmp_path: Path) -> None:
    """The kernel gives a process's signal to a thread that does not block it where the supervisor's is not waiting
    for it at that moment: a thread started before the supervisor blocked its signals (numpy's OpenBLAS workers, in
    every ``ir-tools`` process). CI: a ``kill -INT`` sent just after the command started was lost, the command ran its
    minute to the end; a SIGTERM there would end the supervisor and leave the command running. Sent to that thread
    itself (``tgkill``), it reaches the command all the same."""
    process, _ = _interruptible(tmp_path, cleanup=0.5, threads=1)
    threads = sorted(int(tid) for tid in os.listdir(f"/proc/{process.pid}/task") if int(tid) != process.pid)
    assert threads, "the supervisor has a thread besides its main one"
    assert ctypes.CDLL(None, use_errno=True).syscall(_TGKILL, process.pid, threads[0], number) == 0
    got, err = process.communicate(timeout=30)
    assert (process.returncode, got, err) == (exit_code, out, ""), err
    assert not list(tmp_path.iterdir())


#: The system call sending a signal to one thread of a process (x86-64's number; aarch64's is 131).
_TGKILL = {"x86_64": 234, "aarch64": 131}.get(os.uname().machine, 234)


def test_a_group_interrupt_passed_on_late_interrupts_once(tmp_path: Path) -> None:
    """A SIGINT sent to the whole process group, its copy passed on by the supervisor late, as on a loaded machine
    (once, under three benchmarks on two cores, after more than 0.2 s): the command is interrupted once, and its
    cleanup runs to its end (a second KeyboardInterrupt cut it short: exit 130 without a word)."""
    process, command = _interruptible(tmp_path, cleanup=1.5)
    os.kill(command, signal.SIGINT)  # (the group's signal, as the command has it)
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)  # (and as the supervisor has it, passed on late)
    out, err = process.communicate(timeout=30)
    assert (process.returncode, out, err) == (130, "interrupted\n", ""), err
    assert not list(tmp_path.iterdir())


def test_a_crash_in_a_native_thread_is_placed_at_the_python_call_that_waits_on_it() -> None:
    """faulthandler names no current thread where the crash is in a thread Python does not know (OpenVINO's worker,
    as CI met under load): the frames are those of the Python thread in OpenVINO's call, not of the main thread
    joining it, listed first (CI's E-CRASH then named ``_wait_for_tstate_lock`` and no OpenVINO)."""
    from ir_tools.supervisor import _crashing_frames

    trace = ('Fatal Python error: Aborted\n\nThread 0x00007f0000000001 (most recent call first):\n'
             '  File "/usr/lib/python3.12/threading.py", line 1139 in _wait_for_tstate_lock\n'
             '  File "/repo/ir_tools/runtime/numeric_check.py", line 210 in _compare_model\n\n'
             'Thread 0x00007f0000000000 (most recent call first):\n'
             '  File "/venv/openvino/_ov_api.py", line 12 in compile_model\n'
             '  File "/repo/ir_tools/runtime/openvino.py", line 5 in run\n')
    assert [frame[2] for frame in _crashing_frames(trace)] == ["compile_model", "run"]
    alone = trace.split("\n\nThread 0x00007f0000000000")[0]  # no thread in a native call: the first listed
    assert [frame[2] for frame in _crashing_frames(alone)] == ["_wait_for_tstate_lock", "_compare_model"]
    current = alone.replace("Thread 0x00007f0000000001", "Current thread 0x00007f0000000001") + trace[len(alone):]
    assert [frame[2] for frame in _crashing_frames(current)] == ["_wait_for_tstate_lock", "_compare_model"]


def zero_trip_loop(path: Path) -> Path:
    """x -> Relu -> Exp -> Loop (trip count 0, its output concatenated) -> Sigmoid -> Tanh (measured: the CPU plugin of
    OpenVINO 2026.4 dies of SIGFPE compiling it; the reference refuses a Loop of zero iterations, E-UNSUPPORTED). Its
    body's condition is computed (2 > 1), which check's rule for such a Loop does not evaluate (a Const condition it
    names, E-OP: the model would not reach OpenVINO)."""
    import openvino.opset13 as op

    x = op.parameter([1, 4], np.float32, name="x")
    exp = op.exp(op.relu(x))
    inner = op.parameter([1, 4], np.float32)
    step = op.add(inner, op.constant(np.ones((1, 4), np.float32)))
    loop = op.loop(op.constant(np.int64(0)), op.constant(True))
    always = op.greater(op.constant(np.float32(2)), op.constant(np.float32(1)))
    loop.set_function(ov.Model([op.result(always), op.result(step)], [inner]))
    loop.set_special_body_ports([-1, 0])
    loop.set_merged_input(inner, exp.output(0), step.output(0))
    y = op.tanh(op.sigmoid(loop.get_concatenated_slices(step.output(0), 0, 1, 1, -1, 0)))
    ov.save_model(ov.Model([y], [x], "loop0"), path, compress_to_fp16=False)
    return path


def compiled(model: Path) -> int:
    """The exit code of a process that has this OpenVINO compile ``model`` on CPU (minus a signal's number)."""
    return subprocess.run([sys.executable, "-c", "import sys, openvino as ov\nov.Core().compile_model(sys.argv[1], "
                           "'CPU')", str(model)], capture_output=True, timeout=300).returncode


@pytest.fixture
def crashing_compile(tmp_path: Path) -> Path:
    """``zero_trip_loop``, where this OpenVINO dies compiling it (else the test is skipped: nothing crashes)."""
    model = zero_trip_loop(tmp_path / "loop0.xml")
    code = compiled(model)
    if code >= 0:
        pytest.skip(f"this OpenVINO compiles a Loop of zero iterations (exit {code}): nothing crashes")
    return model


@pytest.mark.openvino  # (in a child process)
@pytest.mark.parametrize("form", ["json", "sarif"])
def test_a_crash_is_reported_in_the_format_asked(form: str, crashing_compile: Path, tmp_path: Path) -> None:
    """check ONE.xml --compile --format json|sarif where OpenVINO crashes: the supervisor's E-CRASH was text on stderr
    alone, stdout empty (with two files it was a per-file result already; found by a QA run). It is now the document
    the command would print, the crash located at the file."""
    done = ir_tools(["check", str(crashing_compile), "--compile", "--format", form], tmp_path / "tmp")
    assert done.returncode == 2, done.stderr
    assert "error[E-CRASH]: `ir-tools check" in done.stderr and "OpenVINO crashed" in done.stderr
    document = json.loads(done.stdout)
    if form == "json":
        [entry] = document["files"]
        [crash] = entry["diagnostics"]
        assert (entry["file"], crash["code"], crash["fatal"]) == (str(crashing_compile), "E-CRASH", True)
    else:
        [result] = document["runs"][0]["results"]
        assert result["ruleId"] == "E-CRASH" and "died of SIGFPE" in result["message"]["text"]
        where = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert where == crashing_compile.as_uri()
        assert not document["runs"][0]["invocations"][0]["executionSuccessful"]


@pytest.mark.openvino  # (in a child process)
def test_reduce_until_openvino_fails_needs_no_reference(crashing_compile: Path, tmp_path: Path) -> None:
    """E-CRASH advises `reduce MODEL --until openvino-fails`; on this model reduce stopped with the reference's
    E-UNSUPPORTED (zero iterations), though OpenVINO failing needs no reference (found by a QA run). The parts are fed
    what the reference computed before the Loop: the part found is the Loop alone, and crashes OpenVINO still."""
    out = tmp_path / "min.xml"
    done = ir_tools(["reduce", str(crashing_compile), "--until", "openvino-fails", "-o", str(out), "--format", "json"],
                    tmp_path / "tmp")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert (found["layers"], found["original_layers"]) == (1, 5) and "SIGFPE" in found["failure"], found
    assert [layer.type for layer in read_ir(out).layers() if layer.type not in ("Parameter", "Const", "Result")] == [
        "Loop"]
    assert compiled(out) < 0  # the part crashes OpenVINO as the model did


@pytest.mark.openvino  # (in a child process)
def test_the_library_reduces_until_openvino_fails_without_the_reference(crashing_compile: Path) -> None:
    """``ir_tools.reduce(graph, inputs, openvino_fails())``, as the command above: it stopped with the reference's
    E-UNSUPPORTED (zero iterations), the parts not fed what the reference computed before the Loop as the command
    feeds them. It now finds the Loop alone, as the command does."""
    import ir_tools

    graph = ir_tools.read_valid(crashing_compile)
    found = ir_tools.reduce(graph, ir_tools.random_inputs(graph), ir_tools.openvino_fails())
    assert (found.layers, found.original_layers) == (1, 5) and "SIGFPE" in found.failure, found.steps
    assert [layer.type for layer in found.part.layers() if layer.type not in ("Parameter", "Const", "Result")] == [
        "Loop"]
