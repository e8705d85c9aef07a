"""One way to say a tolerance (issue 25, point 9): every command that compares (compare, reduce, migrate --check,
convert-onnx --check) takes ``--atol``/``--rtol`` as ``V`` or ``NAME:V``, repeatable, with its default in its help;
a name the model has no output or layer of is refused with the nearest one, and a tolerance where nothing is
compared is refused."""

from __future__ import annotations

import pytest

from ir_tools.cli import build_parser, main
from tests.conftest import ROOT

SAMPLE = ROOT / "samples" / "avgpool14_ceil_torch.xml"
ONNX = ROOT / "samples" / "tricky_avgpool.onnx"


def test_every_comparing_command_takes_the_same_tolerance_options() -> None:
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # noqa: SLF001 (argparse keeps them there)
    for name in ("compare", "reduce", "migrate", "convert-onnx"):
        options = {action.dest: action for action in commands[name]._actions}  # noqa: SLF001
        for flag in ("atol", "rtol"):
            action = options[flag]
            assert action.metavar == "[NAME:]V" and action.default == [], (name, flag)
            assert "default" in action.help, (name, flag)
            assert "NAME: an output, layer or state variable name" in action.help, (name, flag)


@pytest.mark.openvino
def test_migrate_check_holds_each_output_to_its_own_tolerance(tmp_path, capsys) -> None:
    assert main(["migrate", str(SAMPLE), "--check", "--atol", "pool:0.5", "--dry-run"]) == 0
    assert "pool: same (0/24 elements differ, max abs error 0; atol 0.5, rtol 1e-05)" in capsys.readouterr().out
    assert main(["migrate", str(SAMPLE), "--check", "--atol", "pol:0.5", "--dry-run"]) == 2
    assert "the model has no output or layer 'pol' (did you mean pool?)" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["migrate", str(SAMPLE), "--atol", "1e-3"],
    ["convert-onnx", str(ONNX), "--rtol", "out:1e-3"],
])
def test_a_tolerance_where_nothing_is_compared_is_refused(argv: list[str], tmp_path, capsys) -> None:
    out = tmp_path / "out.xml"
    assert main([*argv, "-o", str(out)]) == 2
    assert "--atol and --rtol say how --check" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("value", ["nan", "inf", "pool:NaN", "-1e-3", "pool:-inf"])
def test_a_tolerance_that_cannot_fail_or_is_negative_is_refused(value: str, tmp_path, capsys) -> None:
    """``--atol nan`` passed every tensor, a planted defect included (NaN compares false): a check that cannot fail."""
    for flag in ("--atol", "--rtol"):
        assert main(["migrate", str(SAMPLE), "--check", f"{flag}={value}", "--dry-run"]) == 2
        assert f"{flag} must be a finite number of at least 0, got '{value}'" in capsys.readouterr().err


@pytest.mark.openvino
def test_an_output_takes_its_tolerance_by_any_of_its_names(tmp_path, capsys) -> None:
    """OpenVINO takes an output by any of its names (``compiled.output('huge')`` of an output ``big,huge``):
    ``--atol huge:V`` was E-USAGE (no output or layer 'huge'); it holds that output, a name given for the output's
    first name wins, and a layer of that name keeps it too."""
    import json

    import numpy as np
    import openvino as ov
    from openvino import opset13 as op

    x = op.parameter([2], np.float32, name="x")
    sin = op.sin(x)
    sin.set_friendly_name("huge")
    sin.output(0).set_names({"big", "huge"})
    model = tmp_path / "m.xml"
    ov.save_model(ov.Model([sin], [x]), model)

    def tolerances(*args: str) -> dict[str, float]:
        assert main(["compare", str(model), "--per-layer", "--format", "json", *args]) == 0
        report = json.loads(capsys.readouterr().out)
        return {**{f"output {o['name']}": o["atol"] for o in report["outputs"]},
                **{f"layer {layer['name']}": layer["outputs"][0]["atol"] for layer in report["layers"]}}

    assert tolerances("--atol", "huge:0.5") == {"output big": 0.5, "layer huge": 0.5}
    assert tolerances("--atol", "huge:0.5", "--atol", "big:0.25") == {"output big": 0.25, "layer huge": 0.5}
