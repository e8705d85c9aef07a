"""What people expect of any command-line tool: --version, ``python -m``, a useful word on the wrong file type."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from ir_tools.cli import main
from tests.conftest import SAMPLES


def test_version_names_ir_tools_openvino_and_python(capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("ir_tools ") and f"openvino {version('openvino')}" in out and "Python 3." in out


def test_python_dash_m_runs_the_cli() -> None:
    command = [sys.executable, "-m", "ir_tools", "check", "--no-openvino", str(SAMPLES / "mixed_network.xml")]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "0 error(s)" in done.stdout


@pytest.mark.parametrize("suffix, words", [
    (".onnx", "is an ONNX model: `ir-tools convert-onnx` converts it"),
    (".pb", "TensorFlow"),
    (".pth", "PyTorch"),
    (".bin", "give the .xml beside it"),
])
def test_other_formats_are_named(suffix: str, words: str, tmp_path: Path, capsys) -> None:
    model = tmp_path / f"model{suffix}"
    model.write_bytes(b"\x08\x07\x12\x04not xml")
    assert main(["check", str(model)]) == 2
    err = capsys.readouterr()
    assert "error[E-READ]: not an IR file" in err.out + err.err and words in err.out + err.err
