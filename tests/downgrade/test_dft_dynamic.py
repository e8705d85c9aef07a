"""DFT-7 and IDFT-7 of an input of dynamic shape for OpenVINO 2023.0 to 2025.1 (passes/downgrade/dft.py,
``dft_dynamic_not_compiled``): those releases read it but their CPU plugin does not compile it ("Unsupported operation
of type: DFT ... Doesn't support op with dynamic shapes"; torch.fft.fft converted by ovc), so ``check --target``
names it and ``migrate --target`` refuses it, where both said it loads ("nothing to migrate"); so is one of a static
input whose signal_size is known only at inference (a dynamic output); of static dims, and for 2025.2 on, it is left
as it is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ir_tools.cli import main
from tests.downgrade.runs import assert_refused

pytestmark = pytest.mark.openvino


def dft_model(path: Path, shape: list[int], inverse: bool = False, fed_length: bool = False) -> Path:
    """One DFT-7 (IDFT-7) over axis 2 of a Parameter of ``shape`` (-1: a dynamic dim), named "d"; ``fed_length``:
    its signal_size a Parameter too (its output's length known only at inference)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset7 as o7

    x = o1.parameter(shape, np.float32, name="x")
    params = [x, *([o1.parameter([1], np.int32, name="n")] if fed_length else [])]
    node = (o7.idft if inverse else o7.dft)(x, o1.constant(np.array([2], np.int32)), *params[1:])
    node.set_friendly_name("d")
    ov.save_model(ov.Model([node], params, "dft"), str(path), compress_to_fp16=False)
    return path


@pytest.mark.parametrize(("shape", "inverse", "fed_length", "target"), [
    ([-1, -1, -1, 2], False, False, "2023.0"),
    ([-1, 3, 16, 2], False, False, "2025.0"),
    ([2, 3, -1, 2], True, False, "2025.1"),
    ([2, 3, 16, 2], False, True, "2024.0"),
])
def test_dft_of_a_dynamic_shape_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: list[int],
                                           inverse: bool, fed_length: bool, target: str) -> None:
    path = dft_model(tmp_path / "dft.xml", shape, inverse, fed_length)
    assert main(["check", str(path), "--target", target, "--no-openvino"]) == 1
    printed = capsys.readouterr().out
    assert "does not compile them" in printed and "the next release without this defect is 2025.2" in printed
    assert "no rewrite applies to this layer: its input or output has a dynamic dim" in printed, printed
    assert_refused(path, "d", "IDFT" if inverse else "DFT", capsys, target)


def test_dft_of_static_dims_or_for_a_newer_release_is_left(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    static = dft_model(tmp_path / "static.xml", [2, 3, 16, 2])
    assert main(["check", str(static), "--target", "2023.0", "--no-openvino"]) == 0
    dynamic = dft_model(tmp_path / "dynamic.xml", [-1, -1, -1, 2])
    assert main(["check", str(dynamic), "--target", "2025.2", "--no-openvino"]) == 0
    assert main(["migrate", str(dynamic), "--target", "opset7", "-o", str(tmp_path / "out.xml")]) == 0
    assert "nothing to migrate" in capsys.readouterr().out
