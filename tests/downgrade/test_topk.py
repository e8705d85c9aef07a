"""TopK-11 migrated for releases without opset11 (passes/downgrade/topk.py): stable false as TopK-3, stable with k 1
and sort value as Reduce ops taking the first extreme, run on OpenVINO 2023.0 and the current OpenVINO equal to the
current OpenVINO on the original; stable with sort index refused (stable with another k:
tests/downgrade/test_topk_stable.py)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from ir_tools.passes.downgrade import TopKTo3OrReduce
from ir_tools.runtime.inputs import random_inputs
from tests.downgrade.runs import NEEDS_2023, assert_runs_equal, migrate

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


#: The data types of the first-index rewrite (TopK-11 stable, k 1), each with the numpy type of its inputs.
_STABLE_TYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i64": np.int64, "i8": np.int8, "u8": np.uint8}


def _planted(rng: np.random.Generator, shape: list[int], dtype: type) -> np.ndarray:
    """Data drawn from a few values (ties), a seeded subset of small numbers, the type's limits and large values
    (integers: of i32 for i64, which a target holds within i32); on floats NaN, +-inf, signed zeros and the largest
    finite magnitudes (what a Reduce of a row of infinities gives): rows of NaN alone, of -inf alone and mixed."""
    if np.issubdtype(dtype, np.integer):
        limits = np.iinfo(np.int32) if dtype == np.int64 else np.iinfo(dtype)
        special = [limits.min, limits.max, limits.min + 1, limits.max - 1, *rng.integers(limits.min, limits.max, 2)]
    else:
        top = float(np.finfo(dtype).max)
        special = [np.nan, np.inf, -np.inf, 0.0, -0.0, top, -top]
    pool = np.array([*rng.integers(-3, 4, 3), *special], np.float64 if dtype in (np.float32, np.float16) else np.int64)
    chosen = rng.choice(pool, int(rng.integers(1, 5)), replace=False)
    return rng.choice(chosen, shape).astype(dtype)


def stable_argmax_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` TopK-11 layers of stable true, sort value and a Const k of 1 (i32 or i64), on Parameters of ranks
    1..4 (every type of ``_STABLE_TYPES`` in turn, and for each every combination of mode max or min, indices i32
    or i64, the values and the indices both read or one of them, and static dims, the axis's dynamic or another's;
    every axis, negative too);
    with seeded inputs for it (``_planted``). f16 data is an f32 model input converted inside the model, its values
    converted to f32 there: OpenVINO 2023.0, as the targets before 2024.3, reads an infinity of an f16 model input
    and writes one of an f16 output as +-65504 (``check --target`` says so, W-TARGET), not the rewrite's to keep."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset11 as o11

    params, results, inputs = [], [], {}
    for i in range(cases):
        dtype, j = list(_STABLE_TYPES.values())[i % len(_STABLE_TYPES)], i // len(_STABLE_TYPES)  # (j: of the type)
        rank = int(rng.integers(1, 5))
        shape = [int(n) for n in rng.integers(1, 4, rank)]
        axis = int(rng.integers(0, rank))
        shape[axis] = int(rng.choice([1, 2, 3, 7, 16, 17, 40, 300]))
        declared = list(shape)
        dynamic = j // 24 % 3
        if dynamic == 1:
            declared[axis] = -1
        elif dynamic == 2 and rank > 1:
            declared[(axis + 1) % rank] = -1
        x = o1.parameter(declared, np.float32 if dtype == np.float16 else dtype, name=f"x{i}")
        data = o1.convert(x, np.float16) if dtype == np.float16 else x  # (f16 data made inside: the docstring)
        k = o1.constant(np.array(1, (np.int64, np.int32)[j // 12 % 2]))
        topk = o11.topk(data, k, axis - rank * int(rng.integers(0, 2)), ("max", "min")[j // 3 % 2], "value",
                        ("i32", "i64")[j // 6 % 2], stable=True, name=f"topk{i}")
        read = ((0, 1), (1,), (0,))[j % 3]
        params.append(x)
        outputs = [topk.output(0), topk.output(1)]
        if dtype == np.float16:
            outputs[0] = o1.convert(outputs[0], np.float32).output(0)  # (f16 values read inside: the docstring)
        results += [o1.result(outputs[port], name=f"{'vi'[port]}{i}") for port in read]
        inputs[f"x{i}"] = _planted(rng, shape, dtype).astype(x.get_element_type().to_dtype())
    ov.save_model(ov.Model(results, params, "stable_topks"), str(path), compress_to_fp16=False)
    return path, inputs


def test_topk_11_stable_k1_runs_on_older_releases_equal_to_the_current_openvino(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """480 seeded layers (80 of each type): ``check --target 2021.4`` says migrate rewrites each and, migrated for
    2021.4, names none (its warnings are of the Reduce ops on a dynamic axis alone); migrated for 2022.1 (IR v11,
    whose outputs keep their types) they give the index the current OpenVINO CPU gives and the values bit for bit
    (NaN, the sign of zero) on 2023.0 and the current OpenVINO."""
    model, inputs = stable_argmax_model(tmp_path / "argmax.xml", np.random.default_rng(111), 480)
    assert main(["check", str(model), "--target", "2021.4"]) == 1
    said = capsys.readouterr().out
    assert f"TopK of opset11; the oldest release that creates it is 2023.0; `ir-tools migrate --target` rewrites it " \
           f"{TopKTo3OrReduce.rewrites['TopK-11']} (and 479 more like it" in said, said
    assert "no rewrite applies" not in said, said
    migrated, printed = migrate(model, capsys, "2021.4")
    assert "rewrote 246 x TopK-11 (stable, k 1, mode max) -> ReduceMax-1" in printed, printed
    assert "rewrote 234 x TopK-11 (stable, k 1, mode min) -> ReduceMin-1" in printed, printed
    left = [str(d) for d in ir_tools.check(migrated, target="2021.4") if d.code != "W-TARGET" or "TopK" in str(d)]
    assert not left, left[:3]  # (no E-TARGET, no W-DEAD: what computes an output nothing reads is dropped)
    out, _ = migrate(model, capsys, "2022.1")
    assert assert_runs_equal(model, out, inputs=inputs) == 642


def refused_model(path: Path) -> Path:
    """One TopK-11 stable layer, ``topk``, that the rewrite leaves: k 1 and sort index."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset11 as o11

    x = o1.parameter([3, 8], np.float32, name="x")
    topk = o11.topk(x, o1.constant(np.int64(1)), -1, "max", "index", "i64", stable=True, name="topk")
    ov.save_model(ov.Model([o1.result(topk.output(0)), o1.result(topk.output(1))], [x], "left"), str(path))
    return path


def test_topk_11_stable_sort_index_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Stable with sort index: refused (exit 2, nothing written), saying why (stable with another k:
    tests/downgrade/test_topk_stable.py)."""
    model = refused_model(tmp_path / "index.xml")
    out = tmp_path / "out.xml"
    assert main(["migrate", str(model), "--target", "2021.4", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert re.search(r"error\[E-TARGET\]: layer 'topk' .*TopK of opset11.*no rewrite applies to this layer: "
                     r"it is stable with sort index: the current OpenVINO CPU's stable TopK keeps other tied", err), err
    assert not out.exists()
