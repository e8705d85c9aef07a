"""SegmentMax-16 migrated for OpenVINO 2024.0 (opset12, no SegmentMax) as ScatterElementsUpdate-12 with reduction max
(passes/downgrade/segment_max.py): run on 2024.0 (2024.1 and 2025.0 too, where set) and on the current OpenVINO
equal to the current OpenVINO on the original, NaN, infinities, signed zeros, empty segments and skipped ids
included. i32 data, and any SegmentMax for 2023.0 (no opset12), are refused."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from tests.downgrade.runs import assert_refused, assert_runs_equal, installed, migrate
from tests.test_target import side_pythons

pytestmark = [pytest.mark.openvino,
              pytest.mark.skipif("2024.0" not in side_pythons(),
                                 reason="no OpenVINO 2024.0: set IR_TOOLS_RELEASE_PYTHONS")]

TYPES = (np.float32, np.float64, np.int8, np.uint8, np.int16, np.uint16)


def _data(rng: np.random.Generator, shape: list[int], dtype: type) -> np.ndarray:
    """Values of ``dtype`` with many ties; a float's NaN, infinities, signed zeros and limits, an integer's limits."""
    if np.dtype(dtype).kind == "f":
        edges = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, -0.0, 0.0, np.finfo(dtype).min, np.finfo(dtype).max,
                          -float(np.finfo(np.float32).max), 1.0, -1.0], np.float64)
        x = rng.integers(-4, 5, shape).astype(np.float64) / 2
    else:
        info = np.iinfo(dtype)
        edges = np.array([info.min, info.max, 0, 1], np.float64)
        x = rng.integers(int(info.min), int(info.max), shape, endpoint=True).astype(np.float64)
    picked = rng.random(shape) < 0.35
    x[picked] = rng.choice(edges, int(picked.sum()))
    with np.errstate(over="ignore"):
        return x.astype(dtype)


def segment_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` SegmentMax-16 layers: each type of TYPES in turn, fill_mode ZERO or LOWEST, data of rank 1 to 3 with
    1 to 12 rows, sorted ids (i32 or i64) with gaps (empty segments), num_segments absent, a Const or fed (i32 or
    i64; at times below the largest id, whose rows it skips)."""
    import openvino as ov
    import openvino.opset1 as o1
    from openvino.utils.node_factory import NodeFactory

    params, results, fed = [], [], {}
    for i in range(cases):
        dtype = TYPES[i % len(TYPES)]
        rows = int(rng.integers(1, 13))
        shape = [rows] + [int(n) for n in rng.integers(1, 4, int(rng.integers(0, 3)))]
        index = (np.int32, np.int64)[i // len(TYPES) % 2]
        ids = np.sort(rng.integers(0, int(rng.integers(1, 9)), rows)).astype(index)
        x = o1.parameter(shape, dtype, name=f"x{i}")
        s = o1.parameter([rows], index, name=f"ids{i}")
        inputs, fed = [x.output(0), s.output(0)], fed | {f"x{i}": _data(rng, shape, dtype), f"ids{i}": ids}
        params += [x, s]
        how = i // (2 * len(TYPES)) % 3
        if how:
            count = np.array(int(ids.max()) + int(rng.integers(-2, 4)), (np.int32, np.int64)[i % 2])
            count = np.maximum(count, 1)
            if how == 1:
                inputs.append(o1.constant(count).output(0))
            else:
                n = o1.parameter([], count.dtype, name=f"n{i}")
                params.append(n)
                inputs.append(n.output(0))
                fed[f"n{i}"] = count
        mode = ("ZERO", "LOWEST")[i // 3 % 2]
        node = NodeFactory("opset16").create("SegmentMax", inputs, {"fill_mode": mode})
        node.set_friendly_name(f"segment_max{i}")
        results.append(o1.result(node, name=f"y{i}"))
    ov.save_model(ov.Model(results, params, "segment_max"), str(path), compress_to_fp16=False)
    return path, fed


def test_segment_max_16_migrated_for_2024_0_runs_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """252 seeded layers: the same values, dtype and sign of zero on 2024.0 (2024.1, 2025.0) and the current
    OpenVINO."""
    model, fed = segment_model(tmp_path / "segment_max.xml", np.random.default_rng(16), 252)
    # every third ZERO layer without fill_mode, which OpenVINO reads as ZERO
    omitted = itertools.cycle([True, False, False])
    model.write_text(re.sub(r'<data fill_mode="zero" />', lambda found: "" if next(omitted) else found[0],
                            model.read_text()))
    out, printed = migrate(model, capsys, "2024.0")
    assert "rewrote 252 x SegmentMax-16 -> ScatterElementsUpdate-12 (max)" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed, releases=installed("2024.0", "2024.1", "2025.0")) == 252


@pytest.mark.parametrize(("dtype", "target"), [(np.int32, "2024.0"), (np.float16, "2024.0"), (np.float32, "2023.0")])
def test_segment_max_16_refused_without_an_exact_form(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      dtype: type, target: str) -> None:
    import openvino as ov
    import openvino.opset1 as o1
    from openvino.utils.node_factory import NodeFactory

    x, s = o1.parameter([4, 2], dtype, name="x"), o1.parameter([4], np.int32, name="ids")
    node = NodeFactory("opset16").create("SegmentMax", [x.output(0), s.output(0)], {"fill_mode": "ZERO"})
    node.set_friendly_name("segments")
    path = tmp_path / "segment_max.xml"
    ov.save_model(ov.Model([node], [x, s], "segment_max"), str(path))
    assert_refused(path, "segments", "SegmentMax of opset16", capsys, target)
