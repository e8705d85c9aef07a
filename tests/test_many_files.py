"""check on many files at once: directories, globs, --jobs; the same diagnostics as one call per file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ir_tools.batch import model_paths
from ir_tools.cli import main
from tests.conftest import ROOT, SAMPLES

pytestmark = pytest.mark.openvino  # check asks OpenVINO's verdict on clean files

BAD = ROOT / "tests" / "data" / "bad"


@pytest.fixture(scope="module")
def zoo_of_files(tmp_path_factory) -> Path:
    """200+ IRs in nested folders: the samples and the broken corpus, several times over, beside other XML."""
    root = tmp_path_factory.mktemp("many")
    sources = sorted(SAMPLES.glob("*.xml")) + sorted(BAD.glob("*.xml"))
    copies = 0
    for round_ in range(3):
        for xml in sources:
            target = root / f"r{round_}" / xml.parent.name / xml.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(xml, target)
            if xml.with_suffix(".bin").exists():
                shutil.copy(xml.with_suffix(".bin"), target.with_suffix(".bin"))
            copies += 1
    (root / "r0" / "not_a_model.xml").write_text("<config><item/></config>")  # not an IR: skipped in a folder
    assert copies >= 200
    return root


def _one_by_one(paths: list[Path], capsys) -> tuple[list[str], int]:
    lines, worst = [], 0
    for path in paths:
        code = main(["check", str(path)])
        worst = max(worst, code)
        lines += capsys.readouterr().out.splitlines()
    return lines, worst


def test_directory_with_jobs_equals_one_call_per_file(zoo_of_files: Path, capsys) -> None:
    code = main(["check", str(zoo_of_files), "--jobs", "2"])
    out = capsys.readouterr().out.splitlines()
    paths = model_paths([zoo_of_files])
    assert len(paths) >= 200 and not any(p.name == "not_a_model.xml" for p in paths)
    assert out[-1] == f"{len(paths)} files: " + out[-1].split(": ", 1)[1]
    expected, worst = _one_by_one(paths, capsys)
    assert out[:-1] == expected
    assert code == worst == 2  # the worst of all files: some are unreadable


def test_globs_and_json_give_one_document(zoo_of_files: Path, capsys) -> None:
    pattern = str(zoo_of_files / "r1" / "samples" / "*.xml")
    code = main(["check", pattern, "--format", "json", "--jobs", "1"])
    report = json.loads(capsys.readouterr().out)
    assert sorted(Path(f["file"]).name for f in report["files"]) == sorted(p.name for p in SAMPLES.glob("*.xml"))
    assert code == 2  # legacy_v7_pooling.xml cannot be checked as IR


def test_nothing_found_is_a_usage_error(tmp_path: Path, capsys) -> None:
    assert main(["check", str(tmp_path)]) == 2
    assert "no IR .xml file" in capsys.readouterr().err
    assert main(["check", str(tmp_path / "*.xml")]) == 2
    assert "no file matches" in capsys.readouterr().err


def test_each_file_is_reported_as_it_is_checked(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """In text, each file's diagnostics and count are printed when its check is done, before the next file's
    result arrives (a directory of many models no longer prints nothing until the end); the total last."""
    import ir_tools.cli as cli

    models = sorted(str(p) for p in (ROOT / "samples").glob("*.xml"))[:3]
    checked = cli.map_files

    def one_by_one(work, paths, jobs):
        for i, found in enumerate(checked(work, paths, 1)):
            if i:
                assert f"{paths[i - 1]}: " in capsys.readouterr().out, i  # the file before is reported already
            yield found

    monkeypatch.setattr(cli, "map_files", one_by_one)
    main(["check", "--no-openvino", *models])
    assert capsys.readouterr().out.rstrip().splitlines()[-1].startswith("3 files: ")
