"""Model inputs and outputs without tensor names: IR v10 (named after layers, as OpenVINO names them) and
IR v11 (unnamed): compare runs them, migrate v10 -> v11 keeps the names OpenVINO gave, and --check passes."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import openvino as ov
import pytest

from ir_tools.cli import main
from tests.conftest import SAMPLES

pytestmark = pytest.mark.openvino


def _unnamed(tmp_path: Path, version: int) -> Path:
    """samples/avgpool14_ceil_torch.xml with every ``names`` attribute removed, as IR ``version``."""
    xml = tmp_path / f"unnamed_v{version}.xml"
    text = re.sub(r' names="[^"]*"', "", (SAMPLES / "avgpool14_ceil_torch.xml").read_text())
    xml.write_text(text.replace('<net name="avgpool14_ceil_torch" version="11">',
                                f'<net name="avgpool14_ceil_torch" version="{version}">'))
    shutil.copy(SAMPLES / "avgpool14_ceil_torch.bin", xml.with_suffix(".bin"))
    return xml


@pytest.mark.parametrize("version", [10, 11])
def test_compare_feeds_inputs_without_names(version: int, tmp_path: Path, capsys) -> None:
    xml = _unnamed(tmp_path, version)
    assert f'version="{version}"' in xml.read_text()
    assert main(["compare", str(xml)]) == 0, capsys.readouterr()


def test_migrate_v10_to_v11_keeps_openvinos_names(tmp_path: Path, capsys) -> None:
    xml = _unnamed(tmp_path, 10)
    before = ov.Core().read_model(xml)
    out = tmp_path / "migrated.xml"
    assert main(["migrate", str(xml), "-o", str(out), "--check"]) == 0, capsys.readouterr()
    after = ov.Core().read_model(out)
    assert [p.get_names() for p in after.inputs] == [p.get_names() for p in before.inputs] == [{"input"}]
    assert [p.get_names() for p in after.outputs] == [p.get_names() for p in before.outputs]


def test_migrate_v11_to_v10_keeps_the_names_openvino_reports(tmp_path: Path, capsys) -> None:
    """IR v10 adds a layer-derived name to each input and output, and OpenVINO reports the smallest name: layers
    whose derived name would sort first (``__module.lm_head`` before ``logits``, ``a_split.0`` before ``y_first``)
    are renamed, so the v10 file reports v11's names, on the current OpenVINO and on each older one installed."""
    import numpy as np
    import openvino.opset8 as o8

    from tests.test_target import side_pythons

    x = o8.parameter([2, 3], np.float32, name="a_input")
    x.output(0).get_tensor().set_names({"input_ids"})
    head = o8.matmul(x, o8.constant(np.ones((3, 4), np.float32)), False, False, name="__module.lm_head/MatMul")
    head.output(0).get_tensor().set_names({"logits"})
    split = o8.split(head, o8.constant(np.int64(1)), 2, name="a_split")
    split.output(0).get_tensor().set_names({"y_first"})
    split.output(1).get_tensor().set_names({"z_second"})
    results = [o8.result(head, name="r0"), o8.result(split.output(0), name="r1"), o8.result(split.output(1), name="r2")]
    model = tmp_path / "named.xml"
    ov.save_model(ov.Model(results, [x], "named"), model, compress_to_fp16=False)
    out = tmp_path / "named_v10.xml"
    assert main(["migrate", str(model), "--ir-version", "10", "-o", str(out), "--check"]) == 0, capsys.readouterr()
    assert 'version="10"' in out.read_text()
    names = "import sys, openvino.runtime as ov; m = ov.Core().read_model(sys.argv[1]); " \
            "print(' '.join(t.get_any_name() for t in [*m.inputs, *m.outputs]))"
    want = "input_ids logits y_first z_second"
    read = ov.Core().read_model(out)
    assert " ".join(t.get_any_name() for t in [*read.inputs, *read.outputs]) == want
    for python in side_pythons().values():
        answer = subprocess.run([python, "-c", names, str(out)], capture_output=True, text=True, check=True)
        assert answer.stdout.split() == want.split(), python
