"""`check` and `shapes` with OpenVINO: its verdict on a file otherwise clean, and its inference of the
ops ir_tools has no shape rule for (so no declared dim is trusted blindly)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset8 as o8
import pytest

from ir_tools.cli import main
from ir_tools.passes.validate import check

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier


def conv_model(path: Path) -> Path:
    """Parameter -> Convolution -> Sigmoid -> Result, as OpenVINO saves it (ir_tools has no rule for either op)."""
    x = o8.parameter([1, 3, 8, 8], np.float32, name="x")
    conv = o8.convolution(x, o8.constant(np.ones((4, 3, 3, 3), np.float32)), [1, 1], [0, 0], [0, 0], [1, 1],
                          name="conv")
    ov.save_model(ov.Model([o8.sigmoid(conv, name="act")], [x]), str(path), compress_to_fp16=False)
    return path


def test_declared_dims_of_ops_without_our_rule_are_checked_by_openvino(tmp_path, capsys) -> None:
    path = conv_model(tmp_path / "m.xml")
    six_by_six = "<dim>6</dim>\n\t\t\t\t\t<dim>6</dim>"
    assert path.read_text().count(six_by_six) == 4  # conv out, act in and out, Result in: all wrong alike
    path.write_text(path.read_text().replace(six_by_six, "<dim>7</dim>\n\t\t\t\t\t<dim>6</dim>"))
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert re.search(r"m\.xml:\d+: error\[E-SHAPE\]: layer 'conv' .*declared \[1,4,7,6\], OpenVINO infers \[1,4,6,6\]",
                     out), out
    assert main(["check", "--no-openvino", str(path)]) == 0  # trusted without OpenVINO: nothing to compare with
    assert main(["shapes", str(path)]) == 1
    assert "by OpenVINO: 2, trusted: 0" in capsys.readouterr().out
    fixed = tmp_path / "fixed.xml"
    assert main(["shapes", str(path), "--fix", "-o", str(fixed)]) == 0
    assert check(fixed) == [] and main(["check", str(fixed)]) == 0


def test_a_refusal_of_a_file_otherwise_clean_is_an_error_at_its_line(tmp_path, capsys) -> None:
    path = conv_model(tmp_path / "m.xml")
    path.write_text(path.read_text().replace('strides="1, 1"', 'strides="1"', 1))  # a 1-D stride on a 2-D conv
    assert [d.code for d in check(path) if d.severity == "error"] == []  # no rule of ours sees it
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    match = re.search(r"m\.xml:?(\d*): error\[E-OPENVINO\]: OpenVINO refused to read the model: (.+)", out)
    assert match and "Exception from" not in match[2], out
    assert main(["check", "--no-openvino", str(path)]) == 0
