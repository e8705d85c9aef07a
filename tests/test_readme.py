"""The README's quick start is executed here, so the documentation cannot rot."""

import re
import shlex
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def quick_start() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def test_quick_start_is_two_commands_install_then_run():
    commands = quick_start()
    assert len(commands) == 2
    assert commands[0].startswith("pip install . && ir-tools ")
    assert commands[1].startswith('pip install ".[test]" && ')


@pytest.mark.openvino
def test_main_job_runs_on_shipped_samples():
    """Runs the part after the install (the package is installed in the test environment)."""
    job = shlex.split(quick_start()[0].split("&&", 1)[1])
    assert job[0] == "ir-tools"
    done = subprocess.run([sys.executable, "-m", "ir_tools.cli", *job[1:]], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 error(s)" in done.stdout and "Traceback" not in done.stderr


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert quick_start()[1] in ci
