"""Kept child interpreters (``runtime/children.py``): one serves request after request with the outcome a one-shot
child gives; a request that ends a kept child after others is run again in a fresh child."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from ir_tools.base.errors import IrToolsError
from ir_tools.passes.validate import read_valid
from ir_tools.runtime.inputs import random_inputs
from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner
from tests.conftest import SAMPLES
from tests.runtime.test_reduce import crashing_model

pytestmark = pytest.mark.openvino

#: How long a run of the crashing model may take (it crashes in seconds): OpenVINO corrupts its heap on it and now and
#: then deadlocks in glibc's free instead of dying (seen in CI: a floors run waited on this test until stopped), which
#: is its failure on the model as well: the child is killed, and the test goes on.
HANG_SECONDS = 15
#: What a run of the crashing model ends with: a crash, or that hang.
CRASHED = r"failed \((killed by SIG|exit status)|did not finish within .* killed \(it hangs\)"


def starting(tmp_path: Path) -> tuple[Path, Path]:
    """An interpreter that is this one, writing a line to a log each time it starts: (it, the log)."""
    log = tmp_path / "starts.log"
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\necho "$$" >> "{log}"\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    return python, log


def starts(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_one_kept_child_serves_request_after_request(tmp_path: Path) -> None:
    """Five runs of two models (and the version asked) in one child, each equal to OpenVINO's in this process."""
    python, log = starting(tmp_path)
    for name in ("mixed_network.xml", "avgpool14_ceil_torch.xml"):
        graph = read_valid(SAMPLES / name)
        child, here = ChildOpenVinoRunner(python, graph), OpenVinoRunner(graph)
        assert child.version == here.version
        for seed in range(5 if name.startswith("mixed") else 1):
            inputs = random_inputs(graph, seed, {})
            got, want = child.run(inputs), here.run(inputs)
            assert got.keys() == want.keys()
            for key in want:
                np.testing.assert_array_equal(got[key], want[key])
    assert starts(log) == 1


def test_a_request_that_ends_a_kept_child_after_others_runs_again_in_a_fresh_one(tmp_path: Path) -> None:
    """A crash on a kept child's first request is its outcome; on a later one, a one-shot child runs it again and its
    crash is the outcome: the same error, in the child's words, either way. Another child starts in its place at once,
    which serves the next request."""
    python, log = starting(tmp_path)
    crash = read_valid(crashing_model(tmp_path / "crash.xml"))
    graph = read_valid(SAMPLES / "mixed_network.xml")
    inputs = random_inputs(graph, 0, {})
    with pytest.raises(IrToolsError, match=CRASHED) as first:
        ChildOpenVinoRunner(python, crash, timeout=HANG_SECONDS).run(random_inputs(crash, 0, {}))
    assert first.value.code == "E-OPENVINO"  # (the child in its place may not have started yet: not counted here)
    want = OpenVinoRunner(graph).run(inputs)
    assert ChildOpenVinoRunner(python, graph).run(inputs).keys() == want.keys() and starts(log) == 2
    with pytest.raises(IrToolsError, match=CRASHED):
        ChildOpenVinoRunner(python, crash, timeout=HANG_SECONDS).run(random_inputs(crash, 0, {}))
    got = ChildOpenVinoRunner(python, graph).run(inputs)
    assert starts(log) == 4  # the one-shot child that ran the crash again, and the one in the crashed one's place
    for key in want:
        np.testing.assert_array_equal(got[key], want[key])


def test_another_environment_gets_another_child(tmp_path: Path, monkeypatch) -> None:
    """A child sees the environment it started in: a request made in another replaces it."""
    python, log = starting(tmp_path)
    graph = read_valid(SAMPLES / "mixed_network.xml")
    inputs = random_inputs(graph, 0, {})
    ChildOpenVinoRunner(python, graph).run(inputs)
    monkeypatch.setenv("IR_TOOLS_CHILDREN_TEST", "1")
    ChildOpenVinoRunner(python, graph).run(inputs)
    monkeypatch.delenv("IR_TOOLS_CHILDREN_TEST")
    ChildOpenVinoRunner(python, graph).run(inputs)
    assert starts(log) == 3


def test_a_crash_is_seen_while_a_process_the_child_started_holds_its_output(tmp_path: Path) -> None:
    """A child's end is read from its status: a process it started (OpenVINO's telemetry forks one) may still hold
    the pipe of its answers after it crashed, and the crash is reported at once all the same."""
    import time

    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nsleep 30 &\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    crash = read_valid(crashing_model(tmp_path / "crash.xml"))
    start = time.perf_counter()
    with pytest.raises(IrToolsError, match=CRASHED):
        ChildOpenVinoRunner(python, crash, timeout=HANG_SECONDS).run(random_inputs(crash, 0, {}))
    assert time.perf_counter() - start < 20
