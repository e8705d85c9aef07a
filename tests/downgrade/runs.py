"""What the downgrade suites share: migrate a model for OpenVINO 2023.0 and hold the migrated file, run on 2023.0
and on the current OpenVINO, exactly equal to the current OpenVINO on the original."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from ir_tools.runtime.verdict import check_model
from tests.test_target import side_pythons

#: Marks of a suite that runs OpenVINO 2023.0 beside the current one.
NEEDS_2023 = [pytest.mark.openvino,
              pytest.mark.skipif("2023.0" not in side_pythons(),
                                 reason="no OpenVINO 2023.0: set IR_TOOLS_RELEASE_PYTHONS")]


def migrate(model: Path, capsys: pytest.CaptureFixture[str], target: str = "2023.0") -> tuple[Path, str]:
    """``migrate MODEL --target TARGET``: the written file (no E-TARGET left, and nothing else `check` refuses with
    OpenVINO's verdict) and what migrate printed."""
    out = model.with_name(f"{model.stem}_{target}.xml")
    assert main(["migrate", str(model), "--target", target, "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    checked = check_model(out, target=target)
    errors = [d for d in checked.diagnostics if d.severity == "error"]
    assert not errors, [str(d) for d in errors[:5]]
    global _last_checked
    _last_checked = (out, _stamp(out), checked.graph)
    return out, printed


#: The file ``migrate`` wrote and checked last, as it was then, with its graph: ``migrated_runs`` runs that graph
#: rather than read and check the file again (a large one takes seconds). One only: a worker runs many suites.
_last_checked: tuple[Path, tuple[int, int], ir_tools.Graph] | None = None


def _stamp(path: Path) -> tuple[int, int]:
    found = path.stat()
    return found.st_mtime_ns, found.st_size


def _valid(path: Path) -> ir_tools.Graph:
    """The graph of ``path``, read and checked, or as ``migrate`` checked it if the file is unchanged since."""
    if _last_checked is not None and _last_checked[:2] == (path, _stamp(path)):
        return _last_checked[2]
    return ir_tools.read_valid(path)


def migrated_for_2021_4(model: Path, label: str, count: int, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    """``check --target 2021.4`` names the ``count`` layers of ``label`` ("GridSample of opset9") and that migrate
    rewrites each; ``migrate --target 2021.4`` then writes IR v10: the written file and what migrate printed."""
    assert main(["check", str(model), "--target", "2021.4"]) == 1
    said = capsys.readouterr().out
    assert f"cannot create {label}" in said and f"and {count - 1} more like it" in said, said
    assert "no rewrite applies" not in said, said
    out = model.with_name(f"{model.stem}_2021.xml")
    assert main(["migrate", str(model), "--target", "2021.4", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert 'version="10"' in out.read_text()[:200]
    return out, printed

def left_for_2021_4(out: Path, op: str) -> list[str]:
    """What ``check --target 2021.4`` (without OpenVINO) still finds in ``out``, a file migrated for 2022.1 (IR v11,
    whose outputs 2023.0 runs with their types), beyond its IR version: its errors, and its W-TARGET naming ``op``."""
    return [str(d) for d in ir_tools.check(out, openvino=False, target="2021.4")
            if (d.code != "W-TARGET" or op in str(d)) and "reads IR v10, the file is IR v11" not in str(d)]


def installed(*releases: str) -> tuple[str, ...]:
    """Those of ``releases`` whose OpenVINO is installed on the side (``IR_TOOLS_RELEASE_PYTHONS``)."""
    return tuple(release for release in releases if release in side_pythons())


def migrated_runs(model: Path, out: Path, inputs: dict[str, np.ndarray], releases: Sequence[str] = ("2023.0",),
                  ) -> tuple[dict[str, np.ndarray], dict[str, dict[str, np.ndarray]]]:
    """The current OpenVINO's outputs of ``model`` on ``inputs``, and those of the migrated ``out`` by runner: on the
    OpenVINO of each of ``releases`` (its side interpreter) and on the current one (each model compiled once); skips
    the test, saying which, where a release is not installed on the side."""
    if missing := [release for release in releases if release not in side_pythons()]:
        pytest.skip(f"no OpenVINO {', '.join(missing)}: set IR_TOOLS_RELEASE_PYTHONS")
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    want = OpenVinoRunner(ir_tools.read_valid(model), ModelFiles(model, model.with_suffix(".bin"))).run(inputs)
    migrated, files = _valid(out), ModelFiles(out, out.with_suffix(".bin"))
    runners = (*(ChildOpenVinoRunner(side_pythons()[release], migrated, files) for release in releases),
               OpenVinoRunner(migrated, files))
    return want, {runner.name: runner.run(inputs) for runner in runners}


def assert_runs_equal(model: Path, out: Path, shapes: dict[str, tuple[int, ...]] | None = None,
                      inputs: dict[str, np.ndarray] | None = None, releases: Sequence[str] = ("2023.0",)) -> int:
    """The migrated ``out`` on the OpenVINO of each of ``releases`` (2023.0 unless given) and on the current one equals
    the current OpenVINO on ``model``, every output: the same dtype and shape, equal values, NaN where NaN, the same
    sign of zero; returns the number of outputs compared."""
    from ir_tools.runtime.inputs import random_inputs

    if inputs is None:
        inputs = random_inputs(ir_tools.read_valid(model), 0, shapes or {})
    want, runs = migrated_runs(model, out, inputs, releases)
    for runner, got in runs.items():
        assert set(got) == set(want), runner
        for name in want:
            np.testing.assert_array_equal(got[name], want[name], err_msg=f"{runner}: {name}", strict=True)
            if want[name].dtype.kind == "f":
                np.testing.assert_array_equal(np.signbit(got[name]), np.signbit(want[name]), err_msg=name)
    return len(want)


def assert_network_proved(model: Path, rewrite: str, shape: str, elements: int,
                          capsys: pytest.CaptureFixture[str]) -> None:
    """``check --target 2023.0`` on ``model`` says migrate rewrites its layers (``rewrite``: the start of what it
    rewrites them into) and names none it leaves; ``migrate --target 2023.0 --shape SHAPE --check-with`` the 2023.0
    interpreter then compares the ``elements`` of its outputs equal."""
    assert main(["check", str(model), "--target", "2023.0"]) == 1
    said = capsys.readouterr().out
    assert f"`ir-tools migrate --target` rewrites it {rewrite}" in said, said
    assert "no rewrite applies" not in said, said
    out = model.with_name(f"{model.stem}_2023.xml")
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out), "--shape", shape,
                 "--check-with", side_pythons()["2023.0"]]) == 0
    printed = capsys.readouterr().out
    assert f"0/{elements} elements differ" in printed, printed


def assert_refused(model: Path, layer: str, label: str, capsys: pytest.CaptureFixture[str],
                   target: str = "2023.0") -> None:
    """``migrate --target TARGET`` refuses ``model``: exit 2, E-TARGET at ``layer`` (an ``op of opsetN`` label),
    nothing written."""
    out = model.with_name(f"{model.stem}_{target}.xml")
    assert main(["migrate", str(model), "--target", target, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert re.search(rf"error\[E-TARGET\]: layer '{re.escape(layer)}' .*{re.escape(label)}", err), err
    assert not out.exists()
