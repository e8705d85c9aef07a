"""Issue 25, point 9: the same ``-q``/``-v``/``--format`` on every command (``cli.OUTPUT_OPTIONS``), each added by one
helper; ``--jobs`` where a command reads many files (``check`` alone)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ir_tools.cli import OUTPUT_OPTIONS, build_parser, main
from tests.conftest import ROOT

SAMPLES = ROOT / "samples"


def _commands() -> dict:
    return build_parser()._subparsers._group_actions[0].choices  # noqa: SLF001 (argparse's own)


def test_every_command_takes_quiet_verbose_and_the_selection() -> None:
    for name, command in _commands().items():
        flags = {flag for action in command._actions for flag in action.option_strings}  # noqa: SLF001
        assert {"-q", "--quiet", "-v", "--verbose", "--select", "--ignore"} <= flags, name
        assert ("--format" in flags) == bool(OUTPUT_OPTIONS[name].formats), name
        assert ("--jobs" in flags) == (name == "check"), name
    assert set(OUTPUT_OPTIONS) == set(_commands())


@pytest.mark.openvino
def test_quiet_says_one_line_where_a_command_says_many(tmp_path: Path, capsys) -> None:
    """Each command's ``-q`` against its default on a sample: fewer lines, and what is kept is the result."""
    mixed, pools = str(SAMPLES / "mixed_network.xml"), str(SAMPLES / "avgpool14_16_mixed.xml")
    runs = {
        "run": (["run", mixed, "-o", str(tmp_path / "o.npz")], "wrote "),
        "compare": (["compare", mixed], ": PASSED (2 output comparison(s))"),
        "migrate": (["migrate", pools, "-o", str(tmp_path / "m.xml"), "--check"], "wrote "),
        "shapes": (["shapes", mixed], None),
    }
    for name, (argv, kept) in runs.items():
        assert main(argv) == 0, name
        loud = capsys.readouterr().out.splitlines()
        assert main([*argv, "-q"]) == 0, name
        quiet = capsys.readouterr().out.splitlines()
        assert len(quiet) < len(loud), (name, loud, quiet)
        assert quiet == ([] if kept is None else [line for line in quiet if kept in line]) and len(quiet) <= 1, name


def test_quiet_leaves_out_the_warnings_of_a_refused_model(tmp_path: Path, capsys) -> None:
    """A model refused for its errors: every error shows, its warnings only without ``-q``."""
    text = (SAMPLES / "wrong_dims.xml").read_text()
    model = tmp_path / "m.xml"
    model.write_text(text.replace('<data ', '<data bogus="1" ', 1))
    (tmp_path / "m.bin").write_bytes((SAMPLES / "wrong_dims.bin").read_bytes())
    for quiet in (False, True):
        assert main(["run", str(model), "-o", str(tmp_path / "o.npz"), *(["-q"] if quiet else [])]) == 1
        err = capsys.readouterr().err
        assert "error[E-SHAPE]" in err and ("W-ATTR-UNKNOWN" in err) != quiet


@pytest.mark.openvino
def test_a_json_report_that_cannot_be_made_says_why_in_json(capsys, tmp_path: Path) -> None:
    """``--format json`` on a command that refuses its input (an invalid model, a missing file) or cannot act on it
    (OpenVINO refuses to compile a OneHot of a fed depth and scalar indices): stdout holds the diagnostics as ``check
    --format json`` gives them, not nothing, the exit code is the refusal's, and what ended the command is fatal
    whatever its code (E-OPENVINO was ``fatal: 0`` beside exit 2)."""
    import json

    import numpy as np
    import openvino as ov
    import openvino.opset8 as o

    bad = ROOT / "tests" / "data" / "bad" / "state_unassigned.xml"
    indices, depth = o.parameter([], np.int32, name="i"), o.parameter([], np.int32, name="d")
    one_hot = o.one_hot(indices, depth, o.constant(np.float32(1)), o.constant(np.float32(0)), -1)
    ov.save_model(ov.Model([one_hot], [indices, depth]), tmp_path / "one_hot.xml")
    for argv, code, fatal in ((["compare", str(bad)], 1, 0), (["reduce", str(bad), "-o", "/tmp/never.xml"], 1, 0),
                              (["compare", str(ROOT / "no_such_model.xml")], 2, 1),
                              (["compare", str(tmp_path / "one_hot.xml")], 2, 1)):
        assert main([*argv, "--format", "json"]) == code, argv
        out = capsys.readouterr()
        document = json.loads(out.out)
        [entry] = document["files"]
        assert entry["errors"] == 1 and entry["fatal"] == fatal, argv
        assert entry["diagnostics"][0]["code"] in out.err, argv


@pytest.mark.parametrize("argv", [
    ["compare", "MODEL", "--seed", "-3"], ["run", "MODEL", "--seed", "-1", "-o", "OUT.npz"],
    ["migrate", "MODEL", "--check", "--seed", "-2", "-o", "OUT.xml"],
    ["reduce", "MODEL", "--seed", "x", "-o", "OUT.xml"],
])
def test_a_seed_must_be_a_whole_number_of_0_or_more(argv: list[str], tmp_path: Path, capsys) -> None:
    """A negative --seed was E-INTERNAL (numpy's "expected non-negative integer") in five commands: a usage error,
    before the model is read; and the library's random_inputs says so in its own words."""
    import ir_tools

    model = ROOT / "samples" / "mixed_network.xml"
    argv = [str(model) if a == "MODEL" else str(tmp_path / a) if a.startswith("OUT") else a for a in argv]
    with pytest.raises(SystemExit) as ended:
        main(argv)
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert "is not a seed: give a whole number of 0 or more" in err and "E-INTERNAL" not in err, err
    with pytest.raises(ir_tools.IrToolsError, match="give a whole number of 0 or more"):
        ir_tools.random_inputs(ir_tools.read_ir(model), seed=-1)


def test_other_tools_spellings_point_to_ours(capsys) -> None:
    """Polygraphy's --load-inputs and --input-shapes were told the nearest of our spellings, which mean something
    else (--load-outputs, --inputs): they are pointed to --inputs and --shape."""
    model = str(ROOT / "samples" / "mixed_network.xml")
    for theirs, ours in (("--load-inputs", "--inputs"), ("--input-shapes", "--shape")):
        with pytest.raises(SystemExit):
            main(["compare", model, theirs, "x"])
        assert f"(did you mean {ours}?)" in capsys.readouterr().err


@pytest.mark.openvino
def test_saved_inputs_are_fed_back_by_inputs(tmp_path: Path, capsys) -> None:
    """--save-inputs writes the seeded inputs fed (Polygraphy's --save-inputs; there was no way to save them), keyed by
    input name: --inputs takes them back, and run computes the same outputs from them."""
    import numpy as np

    model = str(ROOT / "samples" / "mixed_network.xml")
    saved, seeded, fed = tmp_path / "in.npz", tmp_path / "seeded.npz", tmp_path / "fed.npz"
    assert main(["run", model, "--seed", "7", "--save-inputs", str(saved), "-o", str(seeded)]) == 0
    assert main(["run", model, "--inputs", str(saved), "-o", str(fed)]) == 0
    with np.load(seeded) as a, np.load(fed) as b:
        assert sorted(a.files) == sorted(b.files) and all(np.array_equal(a[k], b[k]) for k in a.files)
    assert main(["compare", model, "--inputs", str(saved), "-q"]) == 0
