"""SliceScatter-15 migrated for OpenVINO 2023.0 (passes/downgrade/slice_scatter.py: Slice-8 of the flat indices and
ScatterNDUpdate-3 of the flattened data): with constant bounds, run on 2023.0 and the current OpenVINO equal to the
current OpenVINO on the original, every output, bit for bit; with fed bounds, which the current OpenVINO computes
otherwise than the specification, refused saying why."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, migrate

pytestmark = NEEDS_2023

TYPES = (np.float32, np.float16, np.int32, np.int64, np.int8, np.uint8)


def _bounds(rng: np.random.Generator, n: int) -> tuple[int, int, int]:
    """A start, stop and step on an axis of ``n`` that select at least one element (a model input with a dim of 0
    is refused by 2023.0): negative and beyond-the-end values, negative steps."""
    while True:
        step = int(rng.choice([-3, -2, -1, 1, 1, 2, 3]))
        start, stop = (int(v) for v in rng.integers(-n - 2, n + 3, 2))
        if len(range(n)[slice(start, stop, step)]):
            return start, stop, step


def slice_scatter_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` SliceScatter-15 layers on data of rank 1 to 4 (each type in turn), sliced along 1 to rank axes
    (given, negative ones too, or left out: the first ones), the bounds i32 or i64 Consts, the data declared dynamic
    one case in three."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    params, results, fed = [], [], {}
    for i in range(cases):
        dtype, index = TYPES[i % len(TYPES)], (np.int32, np.int64)[i // len(TYPES) % 2]
        shape = [int(n) for n in rng.integers(1, 7, int(rng.integers(1, 5)))]
        rank = len(shape)
        given = i % 2 == 0
        axes = sorted(rng.choice(rank, int(rng.integers(1, rank + 1)), replace=False).tolist()) if given else \
            list(range(int(rng.integers(1, rank + 1))))
        triples = [_bounds(rng, shape[a]) for a in axes]
        sliced = np.zeros(shape)[tuple(slice(*triples[axes.index(a)]) if a in axes else slice(None)
                                       for a in range(rank))].shape
        data = o1.parameter([-1] * rank if i % 3 == 1 else shape, dtype, name=f"data{i}")
        updates = o1.parameter(list(sliced), dtype, name=f"updates{i}")
        fed[f"data{i}"] = (rng.standard_normal(shape) * 50).astype(dtype)
        fed[f"updates{i}"] = (rng.standard_normal(sliced) * 50).astype(dtype)
        params += [data, updates]
        values = [np.array(column, index) for column in zip(*triples, strict=True)]
        if given:
            values.append(np.array([a - rank if j % 2 else a for j, a in enumerate(axes)], index))
        inputs = [o1.constant(value) for value in values]
        scatter = o15.slice_scatter(data, updates, *inputs, name=f"scatter{i}")
        results.append(o1.result(scatter, name=f"y{i}"))
    ov.save_model(ov.Model(results, params, "slice_scatter"), str(path), compress_to_fp16=False)
    return path, fed


def test_slice_scatter_15_runs_on_2023_equal_to_the_current_openvino(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """300 seeded SliceScatter-15 layers: every type, ranks 1-4, negative steps and bounds, axes given or not. The
    rewrite counts the elements without a ReduceProd of dims (which 2023.0 computes through f32), so the data's
    dynamic dims get no W-TARGET from check --target 2023.0."""
    model, fed = slice_scatter_model(tmp_path / "scatter.xml", np.random.default_rng(15), 300)
    out, printed = migrate(model, capsys)
    assert "rewrote 300 x SliceScatter-15 -> Slice-8 + ScatterNDUpdate-3" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed) == 300
    warned = [d.message for d in ir_tools.check(out, openvino=False, target="2023.0") if d.code == "W-TARGET"]
    assert not [message for message in warned if "multiplies dims" in message], warned[:1]
    assert len(warned) == 150  # (the f16 inputs and outputs, which 2023.0 converts through f32)


def test_slice_scatter_15_with_fed_bounds_is_refused_saying_why(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Bounds fed by Parameters: the current OpenVINO gives the data back without the updates (measured here; on rank 1
    data it dies of SIGFPE), where the rewrite (and 2023.0 running it) gives the specification's values,
    so no rewrite gives the original's numbers: check --target and migrate --target say why at the layer. Should a
    later OpenVINO compute it right, this test fails: the rewrite then applies to such layers too."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    from ir_tools.cli import main
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner

    data, updates = o1.parameter([4, 3], np.float32, name="data"), o1.parameter([4, 1], np.float32, name="updates")
    bounds = [o1.parameter([1], np.int64, name=name) for name in ("start", "stop", "step", "axes")]
    path = tmp_path / "fed.xml"
    ov.save_model(ov.Model([o15.slice_scatter(data, updates, *bounds, name="scatter")], [data, updates, *bounds],
                           "fed"), str(path))
    fed = {"data": np.arange(12, dtype=np.float32).reshape(4, 3), "updates": -np.ones((4, 1), np.float32),
           "start": np.array([1]), "stop": np.array([2]), "step": np.array([1]), "axes": np.array([1])}
    spec = fed["data"].copy()
    spec[:, 1:2] = fed["updates"]
    try:  # (in a child: the current OpenVINO may crash on it, SIGFPE or SIGSEGV, after other models in one process)
        got = ChildOpenVinoRunner(sys.executable, ir_tools.read_valid(path), ModelFiles(path, path.with_suffix(".bin")))
        assert not np.array_equal(next(iter(got.run(fed).values())), spec)  # (measured: the data as it was)
    except ir_tools.IrToolsError as exc:
        assert exc.code == "E-OPENVINO", exc
    assert main(["check", str(path), "--no-openvino", "--target", "2023.0"]) == 1
    assert "no rewrite applies to this layer: its start, stop, step or axes are computed, and the current OpenVINO " \
        "computes such a SliceScatter-15 otherwise than its specification" in capsys.readouterr().out
    assert_refused(path, "scatter", "SliceScatter of opset15", capsys)
