"""Squeeze-15 with allow_axis_skip migrated for OpenVINO 2023.0 (passes/downgrade/squeeze.py): Squeeze-1 with the
listed axes whose dim is 1, an identity Reshape-1 where none is; equal to the current OpenVINO exactly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, migrate

pytestmark = NEEDS_2023


def squeeze_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, int]:
    """``cases`` Squeeze-15 (allow_axis_skip) on Parameters of ranks 1..5, half their dims 1; Const axes (i32 or i64,
    negative ones, repeats) listing 0 to rank axes, or none. Returns the path and how many layers list an axis of
    1."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    params, results, some = [], [], 0
    for i in range(cases):
        shape = [1 if rng.random() < 0.5 else int(rng.integers(2, 4)) for _ in range(int(rng.integers(1, 6)))]
        listed = [int(a) for a in rng.choice(len(shape), int(rng.integers(0, len(shape) + 1)))]
        listed = [a - len(shape) if rng.random() < 0.3 else a for a in listed]
        some += any(shape[a] == 1 for a in listed)
        x = o1.parameter(shape, np.float32, name=f"x{i}")
        axes = ov.op.Constant(np.array(listed, np.int32 if i % 2 else np.int64))  # empty too
        squeeze = o15.squeeze(x, axes, allow_axis_skip=True, name=f"squeeze{i}") if i % 10 else \
            o15.squeeze(x, allow_axis_skip=True, name=f"squeeze{i}")
        params.append(x)
        results.append(o1.result(squeeze, name=f"y{i}"))
    ov.save_model(ov.Model(results, params, "squeezes"), str(path), compress_to_fp16=False)
    return path, some


def test_squeeze_15_allow_axis_skip_runs_on_2023_equal_to_the_current_openvino(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """300 seeded layers; a tenth without axes."""
    model, some = squeeze_model(tmp_path / "squeezes.xml", np.random.default_rng(15), 300)
    out, printed = migrate(model, capsys)
    assert "-> Squeeze-1" in printed and "-> Reshape-1" in printed, printed
    assert some > 120
    assert assert_runs_equal(model, out) == 300


def test_squeeze_15_allow_axis_skip_refused_on_a_dynamic_input_or_fed_axes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    x = o1.parameter([-1, 1, 3], np.float32, name="x")
    a = o1.parameter([1], np.int64, name="a")
    dynamic = o15.squeeze(x, o1.constant(np.array([1], np.int64)), allow_axis_skip=True, name="dynamic")
    s = o1.parameter([2, 1, 3], np.float32, name="s")
    fed = o15.squeeze(s, a, allow_axis_skip=True, name="fed")
    for layer, node, params in (("dynamic", dynamic, [x]), ("fed", fed, [s, a])):
        path = tmp_path / f"{layer}.xml"
        ov.save_model(ov.Model([node], params, layer), str(path))
        assert_refused(path, layer, "Squeeze of opset15", capsys)
