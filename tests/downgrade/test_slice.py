"""Slice-8 migrated for 2021.4 as StridedSlice-1: run on OpenVINO 2023.0 and the current one equal to the current
OpenVINO on the original, bit for bit; fed axes are refused, and fed bounds over axes that skip a dim for a target
without ScatterUpdate-3 (opset2)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ir_tools.cli import main
from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal

pytestmark = NEEDS_2023

INT64 = np.iinfo(np.int64)


def _bound(rng: np.random.Generator, dim: int) -> int:
    """A start or stop: inside, past either end, or an extreme (a Slice's "to the end")."""
    return int(rng.choice([rng.integers(-dim, dim + 1), rng.integers(-3 * dim, 3 * dim + 1), INT64.max,
                           INT64.min, INT64.max - 1, INT64.min + 1]))


def slice_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """Per case a Slice-8 of a drawn rank-1..4 Parameter over a drawn subset of axes (in any order, negative or not,
    or no axes input), steps of either sign; every fourth case takes its starts from a Parameter. Returns the model
    and the fed starts."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    params, results, fed = [], [], {}
    for i in range(cases):
        shape = [int(n) for n in rng.integers(1, 6, int(rng.integers(1, 5)))]
        x = o1.parameter(shape, np.float32, name=f"x{i}")
        rank = len(shape)
        count = int(rng.integers(1, rank + 1))
        axes = [int(a) for a in rng.permutation(rank)[:count]]
        if rng.integers(0, 2) == 0:
            axes = sorted(axes)
        dims = [shape[a] for a in axes]
        starts = np.array([_bound(rng, d) for d in dims], np.int64)
        stops = np.array([_bound(rng, d) for d in dims], np.int64)
        steps = np.array([int(rng.choice([-3, -2, -1, 1, 2, 3])) for _ in dims], np.int64)
        ordered = rng.random(count) < 0.9  # mostly from start towards stop, so that most slices are not empty
        low, high = np.minimum(starts, stops), np.maximum(starts, stops)
        starts = np.where(ordered, np.where(steps > 0, low, high), starts)
        stops = np.where(ordered, np.where(steps > 0, high, low), stops)
        dtype = (np.int64, np.int32)[i % 3 == 0]
        if dtype == np.int32:
            starts, stops = (np.clip(v, -(2**31), 2**31 - 1) for v in (starts, stops))
        start = o1.constant(starts.astype(dtype))
        if i % 4 == 1:  # fed: OpenVINO 2026.4 CPU slices [5] from a fed start of INT64_MAX - 1 by -3 to 3 empty
            starts = np.clip(starts, -3 * np.array(dims), 3 * np.array(dims))  # (1 element when a Const): none
            start = o1.parameter([count], dtype, name=f"start{i}")
        given = [x, start, o1.constant(stops.astype(dtype)), o1.constant(steps.astype(dtype))]
        if axes != list(range(count)) or i % 2:
            axes_value = [a - rank if rng.integers(0, 2) else a for a in axes]
            given.append(o1.constant(np.array(axes_value, dtype)))
        window = [slice(None)] * rank
        for a, b, e, t in zip(axes, starts, stops, steps, strict=True):
            window[a] = slice(int(b), int(e), int(t))
        if np.empty(shape)[tuple(window)].size == 0:  # OpenVINO 2023.0 refuses an empty output of IR v10 ("has
            continue  # zero dimension which is not allowed")
        if i % 4 == 1:
            fed[f"start{i}"] = starts.astype(dtype)
            params.append(start)
        params.append(x)
        results.append(o1.result(o8.slice(*given, name=f"slice{i}"), name=f"y{i}"))
    ov.save_model(ov.Model(results, params, "slices"), str(path), compress_to_fp16=False)
    return path, fed


def test_slices_migrated_for_2021_4_run_equal(tmp_path: Path, capsys) -> None:
    """700 seeded Slice-8 cases less the empty ones: at least 250 layers, 50 with fed starts."""
    import ir_tools
    from ir_tools.runtime.inputs import random_inputs

    model, fed = slice_model(tmp_path / "slices.xml", np.random.default_rng(4), 700)
    out = tmp_path / "slices_2021.xml"
    assert main(["migrate", str(model), "--target", "2021.4", "-o", str(out)]) == 0
    count = int(re.search(r"rewrote (\d+) x Slice-8 -> StridedSlice-1", capsys.readouterr().out)[1])
    assert not [d.code for d in ir_tools.check(out, openvino=False, target="2021.4")]  # (W-DEAD: the Consts replaced)
    inputs = {**random_inputs(ir_tools.read_valid(model), 0, {}), **fed}
    assert assert_runs_equal(model, out, inputs=inputs) == count >= 250 and len(fed) >= 50


def test_fed_axes_are_refused(tmp_path: Path, capsys) -> None:
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    x = o1.parameter([4, 5], np.float32, name="x")
    axes = o1.parameter([1], np.int64, name="axes")
    sliced = o8.slice(x, o1.constant(np.array([1])), o1.constant(np.array([3])), o1.constant(np.array([1])), axes,
                      name="slice")
    model = tmp_path / "fed.xml"
    ov.save_model(ov.Model([sliced], [x, axes], "fed"), str(model), compress_to_fp16=False)
    assert_refused(model, "slice", "Slice of opset8", capsys, target="2021.4")
    assert main(["check", str(model), "--target", "2021.4", "--no-openvino"]) == 1
    assert "no rewrite applies to this layer: its axes are not a constant" in capsys.readouterr().out


def test_fed_stops_laid_out_by_scatter_update_are_refused_for_a_target_without_it(tmp_path: Path, capsys) -> None:
    """A Slice of axis 1 alone whose stops are fed: its rewrite lays them out over dims 0..1 with a ScatterUpdate-3,
    which opset2 lacks: check --target opset2 says so at the Slice, and migrate refuses it there (it wrote a
    ScatterUpdate-3 it then refused); for opset3 it is rewritten."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    x = o1.parameter([4, 5], np.float32, name="x")
    stop = o1.parameter([1], np.int64, name="stop")
    sliced = o8.slice(x, o1.constant(np.array([1])), stop, o1.constant(np.array([1])), o1.constant(np.array([1])),
                      name="slice")
    model = tmp_path / "fed_stop.xml"
    ov.save_model(ov.Model([sliced], [x, stop], "fed_stop"), str(model), compress_to_fp16=False)
    assert main(["check", str(model), "--target", "opset2", "--no-openvino"]) == 1
    assert re.search(r"layer 'slice' .*no rewrite applies to this layer: the target opset2 .* has no ScatterUpdate-3",
                     capsys.readouterr().out)
    assert_refused(model, "slice", "Slice of opset8", capsys, target="opset2")
    out = tmp_path / "opset3.xml"
    assert main(["migrate", str(model), "--target", "opset3", "-o", str(out)]) == 0
    assert 'type="ScatterUpdate"' in out.read_text() and 'type="Slice"' not in out.read_text()
