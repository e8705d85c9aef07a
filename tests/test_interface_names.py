"""Model inputs and outputs without tensor names: IR v10 (named after layers, as OpenVINO names them) and
IR v11 (unnamed): compare runs them, migrate v10 -> v11 keeps the names OpenVINO gave, and --check passes."""

from __future__ import annotations

import re
import shutil
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
