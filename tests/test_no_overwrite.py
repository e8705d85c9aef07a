"""No command writes over a file it reads (only ``--in-place`` writes over the input model), nor two of its outputs
into one file: E-OVERWRITE before anything is read, every file as it was. Found by trying it: ``compare
--save-outputs MODEL.xml``, ``--html MODEL.bin``, ``run -o MODEL.xml`` and ``reduce -o`` onto its ``--against`` model
wrote over them and exited 0."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ir_tools.cli import main
from tests.conftest import SAMPLES

#: (command line with M for the model's path less ".xml" and D for the folder, what the refusal names)
CASES = [
    ("compare M.xml --save-outputs M.xml", "--save-outputs D/m.xml is the input model: give another path"),
    ("compare M.xml --save-outputs M.bin", "is the input model's weights"),
    ("compare M.xml --html M.xml", "--html D/m.xml is the input model"),
    ("compare M.xml --against D/b.xml --save-outputs D/b.xml", "is the --against model"),
    ("compare M.xml --against D/b.xml --html D/b.bin", "is the --against model's weights"),
    ("compare M.xml --inputs D/in.npz --save-outputs D/in.npz", "is the --inputs file"),
    ("compare M.xml --load-outputs D/in.npz --html D/in.npz", "is the --load-outputs file"),
    ("compare M.xml --save-outputs D/r.npz --html D/r.npz", "--html D/r.npz is also where --save-outputs writes"),
    ("compare M.xml --bin D/b.bin --save-outputs D/b.bin", "is the input model's weights"),
    ("run M.xml -o M.xml", "-o D/m.xml is the input model: give another path"),
    ("run M.xml --inputs D/in.npz -o D/in.npz", "is the --inputs file"),
    ("reduce M.xml --against D/b.xml -o D/b.xml", "-o D/b.xml is the --against model"),
    ("reduce M.xml --load-outputs D/in.npz -o D/in.xml", "-o (its inputs) D/in.npz is the --load-outputs file"),
    ("reduce M.xml -o D/b.xml --against D/c.xml --inputs D/b.npz", "-o (its inputs) D/b.npz is the --inputs file"),
    ("extract M.xml --inputs x --outputs y -o M.bin", "-o D/m.bin is the input model's weights"),
    ("migrate M.xml -o M.xml", "is the input model: give another path, or --in-place to overwrite it"),
    ("transform M.xml --pass x:y -o M.bin", "-o D/m.bin is the input model's weights"),
    ("shapes M.xml --fix -o M.xml", "or --in-place to overwrite it"),
    ("check M.xml --html M.xml", "--html D/m.xml is the input model"),
    ("convert-onnx D/in.npz -o D/in.npz", "-o D/in.npz is the input model"),
]


@pytest.mark.parametrize(("line", "words"), CASES)
def test_a_command_never_writes_over_what_it_reads(line: str, words: str, tmp_path: Path, capsys) -> None:
    shutil.copy(SAMPLES / "mixed_network.xml", tmp_path / "m.xml")
    shutil.copy(SAMPLES / "mixed_network.bin", tmp_path / "m.bin")
    for name in ("b.xml", "b.bin", "c.xml", "in.npz", "b.npz"):
        (tmp_path / name).write_bytes(b"kept")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    argv = line.replace("M.", f"{tmp_path}/m.").replace("D/", f"{tmp_path}/").split()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "error[E-OVERWRITE]" in err and words.replace("D/", f"{tmp_path}/") in err, err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_output_and_in_place_together_are_refused(tmp_path: Path, capsys) -> None:
    """``--in-place`` wrote over the input and ``-o`` was ignored without a word."""
    shutil.copy(SAMPLES / "mixed_network.xml", tmp_path / "m.xml")
    shutil.copy(SAMPLES / "mixed_network.bin", tmp_path / "m.bin")
    before = (tmp_path / "m.xml").read_bytes()
    assert main(["migrate", str(tmp_path / "m.xml"), "-o", str(tmp_path / "out.xml"), "--in-place"]) == 2
    assert "-o and --in-place both say where to write: give one" in capsys.readouterr().err
    assert (tmp_path / "m.xml").read_bytes() == before and not (tmp_path / "out.xml").exists()


@pytest.mark.openvino
def test_an_onnx_model_has_no_weights_file_to_keep(tmp_path: Path) -> None:
    """``convert-onnx m.onnx -o m.xml`` writes m.bin beside m.onnx, which does not read it: not a refusal."""
    shutil.copy(SAMPLES / "tricky_avgpool.onnx", tmp_path / "m.onnx")
    assert main(["convert-onnx", str(tmp_path / "m.onnx"), "-o", str(tmp_path / "m.xml"), "-q"]) == 0
    assert (tmp_path / "m.bin").exists()


@pytest.mark.parametrize("line", ["transform M.xml --pass x:y -o D/dir.xml", "migrate M.xml -o D/dir",
                                  "run M.xml -o D/dir.xml", "compare M.xml --html D/dir.xml"])
def test_an_output_that_is_a_directory_is_refused(line: str, tmp_path: Path, capsys) -> None:
    """transform -o onto a directory wrote the .bin beside it, then failed (E-INTERNAL)."""
    shutil.copy(SAMPLES / "mixed_network.xml", tmp_path / "m.xml")
    shutil.copy(SAMPLES / "mixed_network.bin", tmp_path / "m.bin")
    (tmp_path / "dir.xml").mkdir()
    (tmp_path / "dir").mkdir()
    argv = line.replace("M.", f"{tmp_path}/m.").replace("D/", f"{tmp_path}/").split()
    assert main(argv) == 2
    assert "is a directory: give a file's path" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "dir.xml", "m.bin", "m.xml"]


@pytest.mark.parametrize("line", ["migrate M.xml -o D/file/m.xml", "run M.xml -o D/file/sub/out.npz",
                                  "compare M.xml --html D/file/r.html", "shapes M.xml --fix -o D/file/m.xml"])
def test_an_output_that_cannot_be_written_is_refused_before_the_work(line: str, tmp_path: Path, capsys) -> None:
    """An output under a file (or in a folder without write permission) was E-INTERNAL ("please report this"), and
    only after the whole run (found by a QA run); now E-WRITE before the model is read."""
    shutil.copy(SAMPLES / "mixed_network.xml", tmp_path / "m.xml")
    shutil.copy(SAMPLES / "mixed_network.bin", tmp_path / "m.bin")
    (tmp_path / "file").write_text("a file, not a folder")
    argv = line.replace("M.", f"{tmp_path}/m.").replace("D/", f"{tmp_path}/").split()
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert f"error[E-WRITE]: {argv[argv.index(argv[-2])]} {argv[-1]} cannot be written: {tmp_path}/file is not a " \
           "folder" in err and "E-INTERNAL" not in err and out == "", (out, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "m.bin", "m.xml"]


@pytest.mark.openvino
def test_a_write_the_system_refuses_is_e_write(tmp_path: Path, capsys) -> None:
    """A write refused only when it happens (here a path /proc cannot hold) is E-WRITE naming the file, not
    E-INTERNAL."""
    assert main(["compare", str(SAMPLES / "mixed_network.xml"), "-q", "--html", "/proc/ir_tools_report.html"]) == 2
    assert "error[E-WRITE]: cannot write /proc/ir_tools_report.html: " in capsys.readouterr().err


@pytest.mark.parametrize("command", ["migrate", "shapes --fix", "transform", "extract"])
def test_a_model_is_written_to_an_xml_path_only(command: str, tmp_path: Path, capsys) -> None:
    """-o of a command that writes a model must end in .xml (ov.save_model refuses another): convert-onnx -o a.onnx
    wrote IR XML into a.onnx, and migrate -o out wrote 'out' and 'out.bin' (from a QA run)."""
    extra = {"transform": ["--pass", "ir_tools.passes.to_opset8:to_opset8"],
             "extract": ["--inputs", "input", "--outputs", "output"]}.get(command, [])
    argv = [*command.split(), str(SAMPLES / "mixed_network.xml"), *extra, "-o", str(tmp_path / "out.onnx")]
    assert main(argv) == 2
    assert "an IR is an .xml file with its .bin beside it" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
