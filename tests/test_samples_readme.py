"""Run every command in samples/README*.md so the documentation cannot rot.

Commands sit in fenced ``sh`` blocks, one per line, run from the project root; a trailing
``# exit N`` gives the expected exit code (0 otherwise); ``$OUT`` is a temporary folder the test
owns. Blocks run in file order, commands in
order inside a block (a later command may use an earlier one's output).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

READMES = sorted((ROOT / "samples").glob("README*.md"))
_BLOCK = re.compile(r"^## (?P<title>.+?)$|^```sh\n(?P<body>.*?)^```", re.M | re.S)
_EXIT = re.compile(r"#\s*exit\s+(\d+)\s*$")
#: How to start each program a README command may name; the module form needs no console script on PATH.
PROGRAMS = {"ir-tools": [sys.executable, "-m", "ir_tools.cli"], "python": [sys.executable]}


def sh_blocks() -> list[tuple[str, list[tuple[str, int]]]]:
    """(section title, [(command, expected exit code)]) for every sh block, numbered within a section."""
    blocks: list[tuple[str, list[tuple[str, int]]]] = []
    for readme in READMES:
        blocks += _file_blocks(readme)
    return blocks


def _file_blocks(readme: Path) -> list[tuple[str, list[tuple[str, int]]]]:
    blocks: list[tuple[str, list[tuple[str, int]]]] = []
    title = readme.stem
    for m in _BLOCK.finditer(readme.read_text(encoding="utf-8")):
        if m.group("title"):
            title = f"{readme.stem}: {m.group('title').strip()}"
            continue
        commands = []
        for line in m.group("body").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                code = _EXIT.search(line)
                commands.append((line, int(code.group(1)) if code else 0))
        blocks.append((f"{title}#{sum(t.startswith(title + '#') for t, _ in blocks) + 1}", commands))
    return blocks


BLOCKS = sh_blocks()


def test_readme_has_commands():
    assert BLOCKS and all(commands for _, commands in BLOCKS)


def test_every_sample_is_documented():
    text = "".join(readme.read_text(encoding="utf-8") for readme in READMES)
    samples = [*(ROOT / "samples").glob("*.xml"), *(ROOT / "samples").glob("*.onnx")]
    missing = [p.name for p in sorted(samples) if f"samples/{p.name}" not in text]
    assert missing == []


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory) -> Path:
    """``$OUT`` of the READMEs: one folder for the whole file (a block may read what an earlier one wrote)."""
    return tmp_path_factory.mktemp("readme-out")


@pytest.mark.parametrize("commands", [c for _, c in BLOCKS], ids=[t for t, _ in BLOCKS])
def test_readme_block(commands: list[tuple[str, int]], out_dir: Path):
    for line, expected in commands:
        argv = shlex.split(line.replace("$OUT", str(out_dir)), comments=True)
        assert argv[0] in PROGRAMS, f"{line!r}: README commands may start with {sorted(PROGRAMS)}"
        proc = subprocess.run(
            PROGRAMS[argv[0]] + argv[1:], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        output = proc.stdout + proc.stderr
        assert proc.returncode == expected, f"{line!r} exited {proc.returncode}, expected {expected}:\n{output}"
        assert "Traceback" not in output and "E-INTERNAL" not in output, f"{line!r} crashed:\n{output}"
