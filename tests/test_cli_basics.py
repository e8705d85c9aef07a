"""What people expect of any command-line tool: --version, ``python -m``, a useful word on the wrong file type."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from ir_tools.cli import main
from tests.conftest import SAMPLES


def test_version_names_ir_tools_openvino_and_python(capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("ir_tools ") and f"openvino {version('openvino')}" in out and "Python 3." in out


def test_python_dash_m_runs_the_cli() -> None:
    command = [sys.executable, "-m", "ir_tools", "check", "--no-openvino", str(SAMPLES / "mixed_network.xml")]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "0 error(s)" in done.stdout


def test_the_command_ends_with_mains_code_its_output_flushed_and_atexit_run(tmp_path: Path, capsys) -> None:
    """``cli.run`` ends the process without the interpreter's teardown: the exit code is what ``main`` returns, all
    it printed reaches the pipe, and the atexit handlers ran."""
    marker = tmp_path / "atexit-ran"
    argv = ["check", "--no-openvino", "--format", "json", str(SAMPLES / "wrong_dims.xml")]
    code = (f"import atexit, pathlib; atexit.register(pathlib.Path({str(marker)!r}).touch)\n"
            "from ir_tools.cli import run; run()")
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    expected = main(argv)
    assert expected == 1 and done.returncode == expected, done.stderr
    assert json.loads(done.stdout) == json.loads(capsys.readouterr().out)
    assert marker.exists()


@pytest.mark.parametrize("suffix, words", [
    (".onnx", "is an ONNX model: `ir-tools convert-onnx` converts it"),
    (".pb", "TensorFlow"),
    (".pth", "PyTorch"),
    (".bin", "give the .xml beside it"),
])
def test_other_formats_are_named(suffix: str, words: str, tmp_path: Path, capsys) -> None:
    """Named for what they are, bytes that are not UTF-8 too (a real .onnx or .bin was 'invalid UTF-8 at column 21';
    found by a QA run)."""
    model = tmp_path / f"model{suffix}"
    for payload in (b"\x08\x07\x12\x04not xml", b"\x08\x07\x12\x8d\xf3\xa6\xa5 not UTF-8"):
        model.write_bytes(payload)
        assert main(["check", str(model)]) == 2
        err = capsys.readouterr()
        assert "error[E-READ]: not an IR file" in err.out + err.err and words in err.out + err.err, err


def test_an_ir_given_to_convert_onnx_is_named(capsys) -> None:
    assert main(["convert-onnx", str(SAMPLES / "mixed_network.xml"), "-o", "unused.xml"]) == 2
    assert "error[E-ONNX-READ]: not an ONNX model: an XML document (an IR? `ir-tools check` reads it)" in \
        capsys.readouterr().err


@pytest.mark.parametrize(("argv", "words"), [
    (["compare", "samples/mixed_network.xml", "--atol", "nosuchlayer:1e-3"],
     "--atol nosuchlayer:...: the model has no output or layer 'nosuchlayer'"),
    (["compare", "samples/mixed_network.xml", "--rtol", "convv1:1e-3"],
     "--rtol convv1:...: the model has no output or layer 'convv1' (did you mean conv1?)"),
    (["run", "samples/mixed_network.xml", "-o", "{tmp}/out.npz", "--shape", "inptu:1,3,8,8"],
     "--shape inptu: the model has no input 'inptu' (did you mean input?); its inputs: input"),
    (["run", "samples/mixed_network.xml", "-o", "{tmp}/out.npz", "--inputs", "{tmp}/in.npz", "--seed", "3"],
     "--seed draws or shapes seeded inputs; --inputs gives them: use one or the other"),
    (["shapes", "samples/wrong_dims.xml", "-o", "{tmp}/fixed.xml"],
     "-o, --in-place and --ir-version write the corrected model: add --fix"),
    (["check", "samples/mixed_network.xml", "--jobs", "0"], "--jobs must be at least 1, got 0"),
    (["check", "samples/mixed_network.xml", "--jobs", "-1"], "--jobs must be at least 1, got -1"),
    (["migrate", "samples/mixed_network.xml", "--target", "2021.4", "--ir-version", "11", "-o", "{tmp}/out.xml"],
     "--ir-version 11: OpenVINO 2021.4 reads IR v10 only"),  # (it wrote v10, saying nothing)
    # found by a first-use QA run: each was taken without a word
    (["shapes", "samples/wrong_dims.xml", "--ir-version", "10"],
     "-o, --in-place and --ir-version write the corrected model: add --fix"),
    (["compare", "samples/mixed_network.xml", "--compare-constants"],
     "--compare-constants compares constant subgraphs layer by layer: add --per-layer"),
    (["migrate", "samples/avgpool1_same_upper.xml", "-o", "{tmp}/out.xml", "--seed", "3"],
     "--seed says what --check or --check-with runs the models on: give one, or drop it"),
    (["migrate", "samples/avgpool1_same_upper.xml", "-o", "{tmp}/out.xml", "--inputs", "{tmp}/in.npz"],
     "--inputs says what --check or --check-with runs the models on"),
    (["convert-onnx", "samples/tricky_avgpool.onnx", "-o", "{tmp}/out.xml", "--shape", "x:1,1,8,8"],
     "--shape says what --check runs the models on"),
    (["migrate", "samples/avgpool1_same_upper.xml", "-o", "{tmp}/out.xml", "--check", "--check-with", sys.executable],
     "--check runs the migrated model on this OpenVINO, --check-with on another: give one"),
    (["check", "samples/mixed_network.xml", "--compile", "--no-openvino"],
     "--compile asks OpenVINO to compile each clean file; --no-openvino asks it nothing"),
    (["run", "samples/mixed_network.xml", "-o", "{tmp}/out.npz", "--shape", "input:1,3,8,8", "--shape",
      "input:1,3,9,9"], "--shape input: given twice, as [1, 3, 8, 8] and [1, 3, 9, 9]"),
    (["check", "samples/mixed_network.xml", "-q", "-v"], "-q says less and -v says more: give one"),
])
def test_an_option_that_would_do_nothing_is_refused(argv: list[str], words: str, tmp_path: Path, capsys) -> None:
    """Issue 25, point 7: each was accepted and had no effect; now exit 2, the words, and nothing written."""
    import numpy as np

    np.savez(tmp_path / "in.npz", input=np.zeros((1, 3, 32, 32), np.float32))
    assert main([part.format(tmp=tmp_path) for part in argv]) == 2
    assert words in capsys.readouterr().err
    assert not [p for p in tmp_path.iterdir() if p.name != "in.npz"]


def test_migrate_with_nothing_to_do_writes_nothing_and_keeps_the_ir_version(tmp_path: Path, capsys) -> None:
    """Issue 25, point 8: a model with nothing to migrate was written anyway, IR v10 turned v11; -o naming the input
    printed the whole table before refusing."""
    import shutil

    model = tmp_path / "v10.xml"
    text = (SAMPLES / "mixed_network.xml").read_text().replace('version="11">', 'version="10">', 1)
    model.write_text(text)
    shutil.copy(SAMPLES / "mixed_network.bin", tmp_path / "v10.bin")
    done = tmp_path / "a.xml"
    assert main(["migrate", str(SAMPLES / "avgpool1_same_upper.xml"), "-o", str(tmp_path / "opset8.xml")]) == 0
    assert main(["migrate", str(tmp_path / "opset8.xml"), "--target", "2025.0", "-o", str(done)]) == 0
    assert "nothing to migrate: " in capsys.readouterr().out and not done.exists()
    assert main(["migrate", str(model), "-o", str(tmp_path / "b.xml")]) == 0  # its AvgPool-1 is spelled opset8
    assert 'version="10"' in (tmp_path / "b.xml").read_text()[:200]
    capsys.readouterr()
    assert main(["migrate", str(model), "-o", str(model)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "is the input model: give another path, or --in-place to overwrite it" in err


def test_every_option_says_what_it_does(capsys) -> None:
    """Issue 25, point 9: -o and --ir-version had no help text; the top-level --help showed a developer docstring."""
    from ir_tools.cli import build_parser

    parser = build_parser()
    assert "Exit codes: 0 clean" in parser.description and "argparse" not in parser.description
    for name, command in parser._subparsers._group_actions[0].choices.items():  # noqa: SLF001 (argparse's own)
        for action in command._actions:  # noqa: SLF001
            if action.option_strings and action.dest != "help":
                assert action.help, f"ir-tools {name} {action.option_strings[0]} has no help text"


def test_inspect_shows_a_broken_file_and_what_is_wrong(tmp_path: Path, capsys) -> None:
    """Issue 25, point 4: inspect refused a file with errors, when a user most wants to look inside it."""
    import shutil

    assert main(["inspect", str(SAMPLES / "wrong_dims.xml")]) == 1
    out = capsys.readouterr().out
    assert "pool1 [AvgPool@opset1] -> [1,3,9,9]" in out and "error[E-SHAPE]: layer 'pool1'" in out
    model = tmp_path / "no_bin.xml"
    shutil.copy(SAMPLES / "mixed_network.xml", model)  # its .bin left behind
    assert main(["inspect", str(model), "--format", "json"]) == 1
    import json

    info = json.loads(capsys.readouterr().out)
    assert info["layer_count"] == 14 and "E-BIN-MISSING" in {d["code"] for d in info["diagnostics"]}


@pytest.mark.openvino
def test_compare_says_what_it_is_doing_on_a_terminal_only(tmp_path: Path) -> None:
    """Issue 25, point 2: compare printed nothing for 18-40 s on a terminal. Under a pseudo-terminal it says what
    runs (on stderr); through a pipe nothing but the report."""
    import os
    import pty

    command = [sys.executable, "-m", "ir_tools", "compare", str(SAMPLES / "mixed_network.xml"), "--per-layer"]
    piped = subprocess.run(command, capture_output=True, text=True, check=True)
    assert piped.stderr == "" and "PASSED" in piped.stdout
    leader, follower = pty.openpty()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=follower, text=True, check=True)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert b"running OpenVINO and the numpy reference..." in seen and "PASSED" in done.stdout


def test_migrate_without_target_does_not_say_the_model_loads_anywhere(capsys) -> None:
    """Without --target migrate rewrites pooling only: it said a model holding MaxPool-14 or SDPA-13 'already loads on
    opset8 runtimes' (OpenVINO 2023.0 cannot create them), and dropped --check without a word (found by a QA run)."""
    model = Path(__file__).parent / "data" / "target" / "tiny_vit_f16.xml"  # ScaledDotProductAttention-13
    assert main(["migrate", str(model), "--dry-run", "--check"]) == 0
    out = capsys.readouterr().out
    assert "has no average pooling to rewrite, the one rewrite without --target" in out, out
    assert "nothing written, so nothing checked" in out and "already loads" not in out


@pytest.mark.parametrize(("argv", "words"), [
    (["compare", "samples/mixed_network.xml", "--per-layr"],
     ["usage: ir-tools compare ", "ir-tools compare: error: unrecognized arguments: --per-layr (did you mean "
                                  "--per-layer?)"]),
    (["chek", "samples/mixed_network.xml"], ["invalid choice: 'chek'", "(did you mean check?)"]),
])
def test_a_mistyped_name_gets_the_nearest_one(argv: list[str], words: list[str], capsys) -> None:
    """An option the command does not take was reported with the top level's usage (the list of commands), and
    neither it nor a mistyped command named the nearest (found by a first-use QA run)."""
    with pytest.raises(SystemExit) as caught:
        main(argv)
    err = capsys.readouterr().err
    assert caught.value.code == 2 and all(w in err for w in words), err


@pytest.mark.openvino
def test_a_run_failing_on_default_dims_says_they_were_defaults(tmp_path: Path, capsys) -> None:
    """A fixed-length model (a Reshape to 15 elements, as a language model's to 128, and one that no doubling of the
    sequence fits) run on the default sequence of 8: OpenVINO's refusal, or the reference's, named a Reshape and not
    the dims compare had picked (found by a QA run)."""
    import numpy as np
    import openvino as ov
    import openvino.opset8 as o

    x = o.parameter([-1, -1], np.float32, name="x")
    ov.save_model(ov.Model([o.reshape(x, o.constant(np.array([3, 5], np.int64)), False)], [x]), tmp_path / "m.xml")
    for argv in (["compare", str(tmp_path / "m.xml")], ["run", str(tmp_path / "m.xml"), "-o", str(tmp_path / "o.npz")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "(the inputs' dynamic dims took defaults: x [1, 8]: batch 1, sequence 8 by default; --shape " \
               "NAME:D1,D2,... gives others)" in err, err
    assert main(["run", str(tmp_path / "m.xml"), "-o", str(tmp_path / "o.npz"), "--shape", "x:3,5"]) == 0


@pytest.mark.openvino
def test_the_inference_summary_adds_up(tmp_path: Path, capsys) -> None:
    """Without its .bin, a layer fed by a weight is not inferred: the summary's counts did not add up to the layers
    (14 layers: 13 + 0 + 0; found by a QA run)."""
    import re
    import shutil

    shutil.copy(SAMPLES / "mixed_network.xml", tmp_path / "m.xml")
    main(["shapes", str(tmp_path / "m.xml")])
    line = capsys.readouterr().out.strip().splitlines()[-1]
    found = re.search(r": (\d+) layers; re-inferred by ir_tools: (\d+), by OpenVINO: (\d+), trusted: (\d+) \(.*\), "
                      r"not inferred \(an error at or before them\): (\d+)$", line)
    assert found and int(found[1]) == sum(map(int, found.groups()[1:])) and int(found[5]) > 0, line
