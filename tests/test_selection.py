"""Which diagnostics are shown (ir_tools/settings.py): repeated ones grouped, ``-v`` lists them, ``--select`` and
``--ignore`` (codes or prefixes), ``[tool.ir-tools]`` in pyproject.toml, and a "did you mean" for what matches no
code. A Model Optimizer IR's unknown attribute on every convolution was 55-60 identical lines (issue 25)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ir_tools.base.errors import IrToolsError
from ir_tools.cli import main
from ir_tools.settings import tomllib

pytestmark = pytest.mark.openvino  # the model is written by OpenVINO


@pytest.fixture
def six_convolutions(tmp_path: Path) -> Path:
    """Six Convolutions, each with Model Optimizer's ``output_padding`` (which OpenVINO ignores): W-ATTR-UNKNOWN x6."""
    import openvino as ov
    import openvino.opset1 as o1

    x = o1.parameter([1, 2, 8, 8], np.float32, name="x")
    y = x
    for i in range(6):
        y = o1.convolution(y, o1.constant(np.ones((2, 2, 1, 1), np.float32)), [1, 1], [0, 0], [0, 0], [1, 1],
                           name=f"conv{i}")
    path = tmp_path / "convs.xml"
    ov.save_model(ov.Model([y], [x], "convs"), str(path), compress_to_fp16=False)
    path.write_text(path.read_text().replace('<data strides="1, 1"', '<data output_padding="0, 0" strides="1, 1"'))
    return path


def test_repeated_diagnostics_are_one_line_and_v_lists_them(six_convolutions: Path, capsys) -> None:
    assert main(["check", str(six_convolutions), "--no-openvino"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "W-ATTR-UNKNOWN" in line]
    assert len(lines) == 1, lines
    assert re.search(r"layer 'conv0' .*unknown attribute 'output_padding'.* \(and 5 more like it, at lines \d+, \d+, "
                     r"\d+, \d+, \d+; -v lists them\)$", lines[0]), lines[0]
    assert main(["check", str(six_convolutions), "--no-openvino", "-v"]) == 0
    assert sum("W-ATTR-UNKNOWN" in line for line in capsys.readouterr().out.splitlines()) == 6


@pytest.mark.parametrize("option", [["--ignore", "W-ATTR-UNKNOWN"], ["--ignore", "w"], ["--select", "E"]])
def test_select_and_ignore_take_codes_and_prefixes(six_convolutions: Path, option: list[str], capsys) -> None:
    assert main(["check", str(six_convolutions), "--no-openvino", *option]) == 0
    out = capsys.readouterr().out
    assert "W-ATTR-UNKNOWN" not in out and "0 error(s), 0 warning(s)" in out


def test_pyproject_section_applies_and_options_override_it(six_convolutions: Path, tmp_path: Path, monkeypatch,
                                                           capsys) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.ir-tools]\nignore = ["W-ATTR-UNKNOWN"]\n')
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")  # the nearest pyproject.toml, from the working directory up
    assert main(["check", str(six_convolutions), "--no-openvino"]) == 0
    assert "W-ATTR-UNKNOWN" not in capsys.readouterr().out
    assert main(["check", str(six_convolutions), "--no-openvino", "--ignore", ""]) == 0
    assert "W-ATTR-UNKNOWN" in capsys.readouterr().out


@pytest.mark.parametrize(("setting", "words"), [
    ('ignore = ["W-ATTR-UNKNWON"]', "'W-ATTR-UNKNWON' matches no diagnostic code (did you mean W-ATTR-UNKNOWN?)"),
    ('ignores = ["W"]', "[tool.ir-tools] has no setting 'ignores' (select, ignore)")])
def test_a_setting_that_means_nothing_is_refused(six_convolutions: Path, tmp_path: Path, monkeypatch, capsys,
                                                 setting: str, words: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.ir-tools]\n{setting}\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", str(six_convolutions), "--no-openvino"]) == 2
    assert words in capsys.readouterr().err
    monkeypatch.chdir(Path(__file__).parent)
    assert main(["compare", str(six_convolutions), "--select", "E-SHAPES"]) == 2
    assert "'E-SHAPES' matches no diagnostic code (did you mean E-SHAPE?)" in capsys.readouterr().err


def test_a_message_naming_where_it_is_still_groups(tmp_path: Path, capsys) -> None:
    """W-NAME-DUP names the tensor and the layer that also holds it: those say where, not what (issue 25)."""
    from tests.conftest import ROOT

    model = tmp_path / "dups.xml"
    text = (ROOT / "samples" / "mixed_network.xml").read_text()
    model.write_text(text.replace('names="relu1"', 'names="conv1"').replace('names="relu2"', 'names="conv2"'))
    (tmp_path / "dups.bin").write_bytes((ROOT / "samples" / "mixed_network.bin").read_bytes())
    assert main(["check", str(model), "--no-openvino"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "W-NAME-DUP" in line]
    assert len(lines) == 1 and re.search(r"tensor name 'conv1' .*\(and 1 more like it, at lines \d+; -v lists",
                                         lines[0]), lines
    assert main(["check", str(model), "--no-openvino", "-v"]) == 0
    assert sum("W-NAME-DUP" in line for line in capsys.readouterr().out.splitlines()) == 2


def test_every_command_that_reports_diagnostics_groups_and_selects(six_convolutions: Path, tmp_path: Path,
                                                                   monkeypatch, capsys) -> None:
    """Issue 25: grouping, -v, --ignore and [tool.ir-tools] hold wherever diagnostics are printed: check, inspect and
    every command that refuses a model for its errors (the warnings beside them); shapes prints errors alone."""
    text = six_convolutions.read_text()
    at = text.rindex("<dim>8</dim>")  # the Result's input: E-EDGE-DIMS, an error every command refuses
    six_convolutions.write_text(text[:at] + "<dim>9</dim>" + text[at + len("<dim>8</dim>"):])
    model, out = str(six_convolutions), tmp_path / "out"
    commands = {"check": ["check", model], "inspect": ["inspect", model],
                "run": ["run", model, "-o", f"{out}.npz"], "compare": ["compare", model],
                "migrate": ["migrate", model, "-o", f"{out}.xml"], "reduce": ["reduce", model, "-o", f"{out}.xml"],
                "extract": ["extract", model, "--inputs", "x", "--outputs", "conv5", "-o", f"{out}.xml"]}
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "pyproject.toml").write_text('[tool.ir-tools]\nignore = ["W-ATTR-UNKNOWN"]\n')
    for name, argv in commands.items():
        shown = {}
        for how, extra in (("grouped", []), ("all", ["-v"]), ("ignored", ["--ignore", "W-ATTR-UNKNOWN"]),
                           ("configured", None)):
            if extra is None:
                monkeypatch.chdir(tmp_path / "config")
            assert main(argv + (extra or [])) == 1, (name, how)
            monkeypatch.chdir(Path(__file__).parent)
            printed = capsys.readouterr()
            shown[how] = sum("W-ATTR-UNKNOWN" in line for line in (printed.out + printed.err).splitlines())
            assert "E-EDGE-DIMS" in printed.out + printed.err, (name, how)
        assert shown == {"grouped": 1, "all": 6, "ignored": 0, "configured": 0}, name
    assert not list(tmp_path.glob("out*"))


@pytest.mark.parametrize("text", [
    '[tool.ir-tools]\nignore = ["W"]\n',
    '\ufeff[tool.ir-tools]\nignore = ["W"]\n',
    ' [ tool . "ir-tools" ]\r\nignore = ["W"]\r\n',
    "[\"tool\".'ir-tools']\nignore = [\"W\"]\n",
    '[tool]\nir-tools = { ignore = ["W"] }\n',
    '[tool]\n"ir-tools".ignore = ["W"]\n',
    'tool.ir-tools.ignore = ["W"]\n[project]\nname = "x"\n',
    'tool = { "ir-tools" = { ignore = ["W"] } }\n',
    '[tool."ir\\u002dtools"]\nignore = ["W"]\n',
    '["t\\u006fol".ir-tools]\nignore = ["W"]\n',
    '[tool.ir-tools.more]\nx = 1\n',
    '[project]\nname = "x"\n[project.scripts]\nir-tools = "ir_tools.cli:run"\n[tool.ruff]\nline-length = 120\n',
    '[tool.ruff]\nx = 1\n# [tool.ir-tools]\n',
    'key = """\n[tool.ir-tools]\nignore = 1\n"""\n',
])
def test_the_section_is_what_tomllib_reads_parsed_or_not(tmp_path: Path, text: str) -> None:
    """A pyproject.toml is parsed only where a line may define ``[tool.ir-tools]`` (``settings._MAY_CONFIGURE``): each
    way TOML has to spell the section is read as tomllib reads it, and a file without one has none."""
    from ir_tools.settings import _config

    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8", newline="")
    try:
        expected = tomllib.loads(text).get("tool", {}).get("ir-tools", {})
    except tomllib.TOMLDecodeError:  # (a byte order mark: tomllib refuses the file, and so does the command)
        with pytest.raises(IrToolsError, match="cannot read it"):
            _config(tmp_path)
        return
    if set(expected) - {"select", "ignore"}:
        with pytest.raises(IrToolsError, match="has no setting"):
            _config(tmp_path)
        return
    assert _config(tmp_path)[0] == expected


def test_a_pyproject_without_the_section_is_not_parsed(tmp_path: Path) -> None:
    """Other projects' settings are theirs: a file that cannot define ``[tool.ir-tools]`` is not read as TOML, so a
    command run beside one that tomllib refuses goes on."""
    from ir_tools.settings import _config

    (tmp_path / "pyproject.toml").write_text('[tool.black]\nline-length = = 3\n')
    assert _config(tmp_path) == ({}, f"{tmp_path / 'pyproject.toml'} [tool.ir-tools]")
