"""`check` and `shapes` with OpenVINO: its verdict on a file otherwise clean, and its inference of the
ops ir_tools has no shape rule for (so no declared dim is trusted blindly)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset8 as o8
import openvino.opset14 as o14
import pytest

from ir_tools.cli import main
from ir_tools.ops.inverse import INVERSE_14
from ir_tools.ops.opsets import lookup
from ir_tools.ops.spec import OpSpec
from ir_tools.passes.validate import check

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier


#: An op ir_tools has no shape rule for (its own spec set aside for each test, ``unmodelled``): its declared dims can
#: only be checked against OpenVINO's inference.
UNMODELLED = "Inverse"


@pytest.fixture(autouse=True)
def unmodelled(set_aside: Callable[[OpSpec], None]) -> None:
    """ir_tools' Inverse-14 set aside: Inverse stands for an op without a rule of ours."""
    set_aside(INVERSE_14)
#: ``unmodelled_model``'s text of a port's dims [1,4,4], and that text made wrong: [1,4,5].
RIGHT_DIMS = "<dim>4</dim>\n\t\t\t\t\t<dim>4</dim>\n"
WRONG_DIMS = "<dim>4</dim>\n\t\t\t\t\t<dim>5</dim>\n"


def refused(text: str) -> str:
    """``unmodelled_model``'s text with data of a type OpenVINO refuses there (Inverse takes floats only): the
    Parameter's element type and every port's precision i32, so that the file is otherwise clean."""
    return text.replace('element_type="f32"', 'element_type="i32"').replace('precision="FP32"', 'precision="I32"')


def declared_wrong(text: str) -> str:
    """``unmodelled_model``'s text with its op's output dims and its Result's input dims (both alike, the last two
    ports) declared [1,4,5]; the Parameter's and the op's input stay [1,4,4]."""
    at = text.index("<output>", text.index(f'type="{UNMODELLED}"'))
    assert text[at:].count(RIGHT_DIMS) == 2, text
    return text[:at] + text[at:].replace(RIGHT_DIMS, WRONG_DIMS)


def unmodelled_model(path: Path) -> Path:
    """Parameter [1,4,4] -> Inverse (of each 4 x 4 matrix: [1,4,4]) -> Result, as OpenVINO saves it."""
    x = o8.parameter([1, 4, 4], np.float32, name="x")
    inverse = o14.inverse(x, adjoint=False)
    inverse.set_friendly_name("inverse")
    ov.save_model(ov.Model([inverse], [x]), str(path), compress_to_fp16=False)
    return path


def test_declared_dims_of_ops_without_our_rule_are_checked_by_openvino(tmp_path, capsys) -> None:
    assert lookup(UNMODELLED, "opset14") is None or lookup(UNMODELLED, "opset14").infer is None
    path = unmodelled_model(tmp_path / "m.xml")
    path.write_text(declared_wrong(path.read_text()))  # inverse out, Result in: both wrong alike
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert re.search(r"m\.xml:\d+: error\[E-SHAPE\]: layer 'inverse' .*declared \[1,4,5\], OpenVINO infers "
                     r"\[1,4,4\]", out), out
    assert main(["check", "--no-openvino", str(path)]) == 0  # trusted without OpenVINO: nothing to compare with
    assert main(["shapes", str(path)]) == 1
    assert "by OpenVINO: 1, trusted: 0" in capsys.readouterr().out
    fixed = tmp_path / "fixed.xml"
    assert main(["shapes", str(path), "--fix", "-o", str(fixed)]) == 0
    assert check(fixed) == [] and main(["check", str(fixed)]) == 0


def test_a_refusal_of_a_file_otherwise_clean_is_an_error_at_its_line(tmp_path, capsys) -> None:
    path = unmodelled_model(tmp_path / "m.xml")
    path.write_text(refused(path.read_text()))  # Inverse of i32 data
    assert [d.code for d in check(path) if d.severity == "error"] == []  # no rule of ours sees it
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    match = re.search(r"m\.xml:?(\d*): error\[E-OPENVINO\]: OpenVINO refused to read the model: (.+)", out)
    assert match and "Exception from" not in match[2], out
    assert main(["check", "--no-openvino", str(path)]) == 0


def test_openvino_reads_no_file_our_reader_refuses_unparsed(tmp_path, monkeypatch) -> None:
    # check hands the file to OpenVINO while its own checks run, but never one with a DOCTYPE (XXE, billion laughs)
    # nor a file of another format, which OpenVINO might spend long converting
    from ir_tools.runtime import openvino as runner

    handed = []
    read = runner.read_in_background
    monkeypatch.setattr(runner, "read_in_background", lambda files: handed.append(files) or read(files))
    bad = Path(__file__).parent / "data" / "bad"
    onnx = tmp_path / "m.onnx"
    onnx.write_bytes(b"\x08\x07")
    not_xml = tmp_path / "garbage.xml"  # OpenVINO would try its TensorFlow frontend on it, which writes to stderr
    not_xml.write_bytes(b"\x00\x01garbage")
    assert main(["check", str(bad / "unsafe_xxe.xml")]) == 2
    assert main(["check", str(onnx)]) == 2
    assert main(["check", str(not_xml)]) == 2
    assert handed == []
    assert main(["check", str(unmodelled_model(tmp_path / "m.xml"))]) == 0 and len(handed) == 1


def test_check_returns_only_once_openvino_no_longer_reads_the_files(tmp_path: Path, capsys) -> None:
    """check reads the file with OpenVINO in a thread while its own checks run; where they find an error it needs no
    verdict, and it returned with that thread still reading: a caller that wrote the .bin next (a test copying
    another file over it) killed its process with SIGBUS (OpenVINO maps the .bin). No such thread is left now."""
    import threading

    path = unmodelled_model(tmp_path / "m.xml")
    path.write_text(declared_wrong(path.read_text()).replace('element_type="f32"', 'element_type="f33"', 1))
    for _ in range(5):
        assert main(["check", str(path)]) == 1
        assert not [t for t in threading.enumerate() if t.name.startswith("openvino-read")]
    assert "error" in capsys.readouterr().out
