"""check on many files at once: directories, globs, --jobs; the same diagnostics as one call per file."""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest

from ir_tools.base.errors import IrToolsError
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

    def one_by_one(work, paths, jobs, crashed):
        for i, found in enumerate(checked(work, paths, 1, crashed)):
            if i:
                assert f"{paths[i - 1]}: " in capsys.readouterr().out, i  # the file before is reported already
            yield found

    monkeypatch.setattr(cli, "map_files", one_by_one)
    main(["check", "--no-openvino", *models])
    assert capsys.readouterr().out.rstrip().splitlines()[-1].startswith("3 files: ")


def test_the_current_directory_is_searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """``check .`` (the usual CI call) searches the current directory, as ``ruff check .`` does: it failed with
    E-INTERNAL ("PosixPath('.') has an empty name")."""
    shutil.copy(SAMPLES / "mixed_network.xml", tmp_path / "model.xml")
    shutil.copy(SAMPLES / "mixed_network.bin", tmp_path / "model.bin")
    monkeypatch.chdir(tmp_path)
    assert main(["check", ".", "--no-openvino"]) == 0
    assert capsys.readouterr().out.splitlines() == ["model.xml: 0 error(s), 0 warning(s)"]


def test_a_directory_leaves_out_other_xml_only(tmp_path: Path, capsys) -> None:
    """A directory's .xml files are checked unless their root element is another than <net>: an empty file, a Git
    LFS pointer, a link to a file not fetched and a UTF-16 IR were left out without a word (the run passed); a
    pom.xml still is. Named, another XML is refused, unless --ir-only leaves it out (all of them: nothing checked,
    exit 0). A file named twice, or spelled two ways, is checked once."""
    shutil.copy(SAMPLES / "mixed_network.bin", tmp_path / "utf16.bin")
    (tmp_path / "utf16.xml").write_bytes((SAMPLES / "mixed_network.xml").read_text().replace(
        '<?xml version="1.0"?>', '<?xml version="1.0" encoding="UTF-16"?>').encode("utf-16"))
    (tmp_path / "empty.xml").write_bytes(b"")
    (tmp_path / "lfs.xml").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64 +
                                      "\nsize 3711\n")
    (tmp_path / "annexed.xml").symlink_to(tmp_path / ".git" / "annex" / "objects" / "model.xml")
    (tmp_path / "pom.xml").write_text('<?xml version="1.0"?>\n<!-- a build -->\n<project><modelVersion/></project>')
    assert main(["check", str(tmp_path), "--no-openvino", "--format", "json"]) == 2
    report = json.loads(capsys.readouterr().out)
    found = {Path(f["file"]).name: sorted({d["code"] for d in f["diagnostics"]}) for f in report["files"]}
    assert found == {"annexed.xml": ["E-READ"], "empty.xml": ["E-READ"], "lfs.xml": ["E-READ"], "utf16.xml": []}, found
    annexed = next(f["diagnostics"][0]["message"] for f in report["files"] if f["file"].endswith("annexed.xml"))
    assert "is a link to" in annexed and "does not exist" in annexed, annexed
    pom = tmp_path / "pom.xml"
    assert main(["check", str(pom), "--no-openvino"]) == 2
    assert main(["check", str(pom), str(tmp_path / "utf16.xml"), "--ir-only", "--no-openvino"]) == 0
    assert main(["check", str(pom), "--ir-only"]) == 0 and "none of the files named is IR" in capsys.readouterr().out
    twice = [str(tmp_path / "utf16.xml"), str(tmp_path / ".." / tmp_path.name / "utf16.xml")]
    assert main(["check", *twice, "--no-openvino"]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{twice[0]}: 0 error(s), 0 warning(s)"]


def test_a_directory_that_cannot_be_searched_is_an_error() -> None:
    """A subdirectory the user may not list was skipped without a word (pathlib's rglob ignores it), and the run
    passed with its files unchecked: it is E-READ naming it, before any file is checked. Searched by a forked
    child that, as root (who may list it), first becomes nobody (in a directory of /tmp nobody may enter)."""
    tmp_path = Path(tempfile.mkdtemp())
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        shutil.copy(SAMPLES / "mixed_network.xml", tmp_path / sub / "model.xml")
    os.chmod(tmp_path, 0o755)
    os.chmod(tmp_path / "b", 0)
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # (the child reports the outcome on the pipe and exits without pytest's teardown)
        try:
            if os.geteuid() == 0:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
            try:
                outcome = f"found {model_paths([tmp_path])}"
            except IrToolsError as exc:
                outcome = f"{exc.code}: {exc.message}"
            except BaseException as exc:  # (shown by the assertion below)
                outcome = repr(exc)
            os.write(writer, outcome.encode())
        finally:
            os._exit(0)
    os.close(writer)
    with os.fdopen(reader) as pipe:
        outcome = pipe.read()
    os.waitpid(child, 0)
    os.chmod(tmp_path / "b", 0o755)
    shutil.rmtree(tmp_path)
    assert outcome == f"E-READ: {tmp_path / 'b'}: cannot search this directory (Permission denied): its files " \
                      "would go unchecked", outcome


def test_quiet_leaves_out_warnings_in_every_format(capsys) -> None:
    """-q: errors only, in json, sarif and github as in text (github still annotated the warnings)."""
    model = str(BAD / "edge_layer.xml")
    assert main(["check", model, "--no-openvino", "--format", "json"]) == 1
    codes = {d["code"][0] for d in json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]}
    assert codes == {"E", "W"}, codes  # (the premise: the file has warnings)
    for fmt in ("json", "sarif", "github", "text"):
        main(["check", model, "--no-openvino", "-q", "--format", fmt])
        out = capsys.readouterr().out
        assert "W-" not in out and "E-" in out, (fmt, out)


def _dies_on_the_second(path: Path) -> str:
    """Work for map_files: the second file kills its process, as a crash in native code would."""
    if path.name == "b":
        os.kill(os.getpid(), signal.SIGSEGV)
    return path.name


def test_a_file_whose_worker_dies_is_reported_and_the_others_go_on() -> None:
    """A worker that dies on one file (SIGSEGV) ends neither the run nor the other files' results: that file is
    worked on again alone and, dying again, is reported as crashed with the signal (with -j2 the run ended in
    E-INTERNAL "BrokenProcessPool", with -j1 in one E-CRASH for all)."""
    from ir_tools.batch import map_files

    paths = [Path(name) for name in "abcde"]
    for jobs in (1, 2):
        found = list(map_files(_dies_on_the_second, paths, jobs, lambda path, code: f"{path.name} died ({code})"))
        assert found == ["a", f"b died ({-signal.SIGSEGV})", "c", "d", "e"], (jobs, found)
