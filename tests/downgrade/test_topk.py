"""TopK-11 migrated for OpenVINO 2022.3, which has no opset11 (passes/downgrade/topk.py): stable false as TopK-3,
run on OpenVINO 2023.0 and the current OpenVINO equal to the current OpenVINO on the original; stable true refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.runtime.inputs import random_inputs
from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, migrate

pytestmark = NEEDS_2023


def topk_model(path: Path, rng: np.random.Generator, cases: int, stable: bool = False) -> Path:
    """``cases`` TopK-11 layers on f32 Parameters of ranks 1..3 (axes of 1 to 300 elements, any k, max or min, sort by
    value, index or none, i32 or i64 indices), values and indices as results."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset11 as o11

    params, results = [], []
    for i in range(cases):
        shape = [int(n) for n in rng.integers(1, 5, int(rng.integers(1, 4)))]
        axis = int(rng.integers(0, len(shape)))
        shape[axis] = int(rng.choice([1, 2, 5, 8, 17, 33, 64, 100, 300]))
        k = int(rng.integers(1, shape[axis] + 1))
        x = o1.parameter(shape, np.float32, name=f"x{i}")
        sort = ("value", "index") if stable else ("value", "index", "none")
        topk = o11.topk(x, o1.constant(np.int64(k)), axis - len(shape) * int(i % 4 == 1), ("max", "min")[i % 2],
                        sort[i // 2 % len(sort)], ("i32", "i64")[i // 6 % 2], stable=stable, name=f"topk{i}")
        params.append(x)
        results += [o1.result(topk.output(0), name=f"v{i}"), o1.result(topk.output(1), name=f"i{i}")]
    ov.save_model(ov.Model(results, params, "topks"), str(path), compress_to_fp16=False)
    return path


def test_topk_11_unstable_runs_on_older_releases_equal_to_the_current_openvino(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """240 seeded layers, inputs once as drawn and once rounded to few values (ties)."""
    model = topk_model(tmp_path / "topks.xml", np.random.default_rng(11), 240)
    out, printed = migrate(model, capsys, "2022.3")
    assert "rewrote 240 x TopK-11 (stable false) -> TopK-3" in printed, printed
    drawn = random_inputs(ir_tools.read_valid(model), 0, {})
    assert assert_runs_equal(model, out, inputs=drawn) == 480
    assert assert_runs_equal(model, out, inputs={k: np.round(v) for k, v in drawn.items()}) == 480


def test_topk_11_stable_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = topk_model(tmp_path / "stable.xml", np.random.default_rng(11), 1, stable=True)
    assert_refused(model, "topk0", "TopK of opset11", capsys, "2022.3")
