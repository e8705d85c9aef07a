"""Files that are not IR get a diagnostic that says what they are: a git LFS pointer (OpenVINO's own test IRs, as a
clone without git-lfs holds them) was 'malformed XML: Start tag expected' at line 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from ir_tools.base.errors import ReadError
from ir_tools.cli import main
from ir_tools.ir.reader import read_ir

POINTER = ("version https://git-lfs.github.com/spec/v1\n"
           "oid sha256:7865a7d4cf42ea7378bb6c4c7dcd2d0fd0a484610dc263dbe523d2c48ec3dca5\nsize 2390\n")


def test_a_git_lfs_pointer_is_named(tmp_path: Path, capsys) -> None:
    model = tmp_path / "pad_with_shape_of.xml"
    model.write_text(POINTER)
    with pytest.raises(ReadError) as info:
        read_ir(model)
    assert "is a git LFS pointer to a file of 2390 bytes" in str(info.value) and "`git lfs pull`" in str(info.value)
    assert main(["check", str(model)]) == 2
    assert "pad_with_shape_of.xml:1: error[E-READ]: not an IR file" in capsys.readouterr().out


def test_other_malformed_text_is_still_malformed_xml(tmp_path: Path) -> None:
    model = tmp_path / "notes.xml"
    model.write_text(POINTER.replace("version https", "version: https"))
    with pytest.raises(ReadError, match="malformed XML: Start tag expected"):
        read_ir(model)
