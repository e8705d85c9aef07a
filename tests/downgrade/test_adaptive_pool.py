"""``migrate --target 2021.4`` on AdaptiveAvgPool-8 (which 2021.4 cannot create): opset1 gathers of its bins
and reductions, run on OpenVINO 2023.0 and on the current one within AdaptiveAvgPool's rounding bound of the exact
value, as the original is on the current OpenVINO; an output size that is not a constant is refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import ir_tools
from ir_tools.cli import main
from ir_tools.ops.core import NoAttrs
from ir_tools.ops.pooling import ADAPTIVE_AVG_POOL_8
from tests.downgrade.runs import NEEDS_2023, assert_refused
from tests.test_target import side_pythons

pytestmark = NEEDS_2023


def adaptive_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, tuple[int, ...]]]:
    """Per case an AdaptiveAvgPool-8 of 1-3 spatial axes of 1-9 elements to 1-10 bins (fewer, as many, more), from
    its own Parameter, every other one with dynamic spatial dims; returns the model and the shapes to run it at."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    params, results, shapes = [], [], {}
    for i in range(cases):
        spatial = int(rng.integers(1, 4))
        dims = [1, 2, *(int(n) for n in rng.integers(1, 10, spatial))]
        sizes = [int(n) for n in rng.integers(1, 11, spatial)]
        declared = dims if i % 2 else [1, 2, *([-1] * spatial)]
        x = o1.parameter(ov.PartialShape(declared), np.float32, name=f"x{i}")
        pool = o8.adaptive_avg_pool(x, o1.constant(np.array(sizes, (np.int32, np.int64)[i % 2])), name=f"pool{i}")
        params.append(x)
        results.append(o1.result(pool, name=f"p{i}"))
        shapes[f"x{i}"] = tuple(dims)
    ov.save_model(ov.Model(results, params, "adaptive"), str(path), compress_to_fp16=False)
    return path, shapes


def test_adaptive_avg_pool_migrated_for_2021_4_within_its_bound(tmp_path: Path, capsys) -> None:
    """120 seeded cases: OUT holds only what 2021.4 creates (IR v10) and runs on 2023.0 and on the current OpenVINO
    within AdaptiveAvgPool-8's rounding bound of the exact (float64) value, as the original does on the current
    OpenVINO: a bin's mean taken axis after axis is its mean, rounded differently."""
    from ir_tools.runtime.inputs import random_inputs
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    model, shapes = adaptive_model(tmp_path / "adaptive.xml", np.random.default_rng(8), 120)
    out = tmp_path / "adaptive_2021.xml"
    assert main(["migrate", str(model), "--target", "2021.4", "-o", str(out)]) == 0
    assert "rewrote 120 x AdaptiveAvgPool-8 -> Gather-1/Select-1/ReduceSum-1/Divide-1" in capsys.readouterr().out
    assert 'version="10"' in out.read_text()[:200]
    # no W-DEAD (the output sizes' Consts go with the layers, ``GraphBuilder.replace_layer``; alexnet's stayed), nor a
    # W-TARGET of a reduction over an axis that may be empty (2023.0's defect, which 2021.4 takes): a bin's indices
    # on a dynamic length are 1 or more to shape inference (``_Bins._steps``)
    assert ir_tools.check(out, openvino=False, target="2021.4") == []
    graph, migrated = ir_tools.read_valid(model), ir_tools.read_valid(out)
    inputs = random_inputs(graph, 0, shapes)
    files = ModelFiles(out, out.with_suffix(".bin"))
    runs = {"original": OpenVinoRunner(graph, ModelFiles(model, model.with_suffix(".bin"))).run(inputs),
            "migrated": OpenVinoRunner(migrated, files).run(inputs),
            "migrated on 2023.0": ChildOpenVinoRunner(side_pythons()["2023.0"], migrated, files).run(inputs)}
    pool = ADAPTIVE_AVG_POOL_8
    for i in range(120):
        x, name = inputs[f"x{i}"], f"p{i}"
        sizes = np.array(runs["original"][name].shape[2:], np.int64)
        exact = pool.kernel(NoAttrs(), [x.astype(np.float64), sizes])[0]
        bound = pool.rounding(pool.kernel, NoAttrs(), [x, sizes], [np.zeros(()), np.zeros(())], [exact])[0]
        for run, got in runs.items():
            assert got[name].shape == exact.shape and got[name].dtype == np.float32, (run, name)
            assert (np.abs(got[name].astype(np.float64) - exact) <= bound).all(), (run, name)


def test_a_fed_output_size_is_refused_for_2021_4(tmp_path: Path, capsys) -> None:
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    x = o1.parameter([1, 2, 5, 5], np.float32, name="x")
    size = o1.parameter([2], np.int64, name="size")
    model = tmp_path / "fed.xml"
    ov.save_model(ov.Model([o8.adaptive_avg_pool(x, size, name="pool")], [x, size], "fed"), str(model))
    assert_refused(model, "pool", "AdaptiveAvgPool of opset8", capsys, target="2021.4")



MAX_CASES = 120


def special_values(rng: np.random.Generator, shape: tuple[int, ...], dtype: type[np.floating]) -> np.ndarray:
    """Normal values with a share of NaN, -inf, +inf, +0 and -0; every third array mostly -inf and NaN (bins with
    nothing above -inf, a NaN first or later)."""
    values = rng.standard_normal(shape)
    special = np.array([np.nan, -np.inf, np.inf, 0.0, -0.0])
    weights = [0.3, 0.6, 0.02, 0.02, 0.02] if rng.integers(0, 3) == 0 else [0.1, 0.1, 0.03, 0.08, 0.08]
    drawn = rng.random(shape)
    picked = rng.choice(len(special), shape, p=np.array(weights) / sum(weights))
    return np.where(drawn < sum(weights), special[picked], values).astype(dtype)


def adaptive_max_model(path: Path, rng: np.random.Generator) -> tuple[Path, dict[str, np.ndarray], int]:
    """Per case an AdaptiveMaxPool-8 (its indices unused) of 1-3 spatial axes to fewer, as many or more bins (of
    uneven sizes): 1-9 elements to 1-10 bins on one axis, 1-5 to 1-6 on two, 1-3 to 1-4 on three (the rewrite's ops
    grow with the bins: up to 10 on each of three axes made the model 69,000 layers); every tenth to bins of one per
    axis; f32, every third f16 (Converts of f32 inputs and outputs: OpenVINO 2023.0 reads an IR v10 file's f16 input
    infinities as +-65504); every other with dynamic spatial dims. Returns the model, its inputs
    (``special_values``) and how many pool to bins of one."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    params, results, inputs, ones = [], [], {}, 0
    for i in range(MAX_CASES):
        spatial = int(rng.integers(1, 4))
        most = {1: 9, 2: 5, 3: 3}[spatial]
        dims = (1, 2, *(int(n) for n in rng.integers(1, most + 1, spatial)))
        sizes = [1] * spatial if i % 10 == 0 else [int(n) for n in rng.integers(1, most + 2, spatial)]
        ones += all(size == 1 for size in sizes)
        f16 = i % 3 == 0
        x = o1.parameter(ov.PartialShape(list(dims) if i % 2 else [1, 2, *([-1] * spatial)]), np.float32,
                         name=f"x{i}")
        data = o1.convert(x, "f16") if f16 else x
        pool = o8.adaptive_max_pool(data, o1.constant(np.array(sizes, (np.int32, np.int64)[i % 2])), "i32",
                                    name=f"pool{i}")
        params.append(x)
        results.append(o1.result(o1.convert(pool.output(0), "f32") if f16 else pool.output(0), name=f"p{i}"))
        inputs[f"x{i}"] = special_values(rng, dims, np.float16 if f16 else np.float32).astype(np.float32)
    ov.save_model(ov.Model(results, params, "adaptive_max"), str(path), compress_to_fp16=False)
    return path, inputs, ones


def test_adaptive_max_pool_migrated_for_2021_4_runs_equal(tmp_path: Path, capsys) -> None:
    """120 seeded cases (15 of bins of one, 40 f16, 60 of dynamic spatial dims; NaN, infinities and signed zeros
    among the values): ``check --target 2021.4`` names each layer and that migrate rewrites it; OUT names none, and
    runs on 2023.0 and on the current OpenVINO equal to the original on the current OpenVINO bit for bit."""
    from tests.downgrade.runs import assert_runs_equal, migrated_for_2021_4

    model, inputs, ones = adaptive_max_model(tmp_path / "adaptive_max.xml", np.random.default_rng(9))
    out, printed = migrated_for_2021_4(model, "AdaptiveMaxPool of opset8", MAX_CASES, capsys)
    assert f"rewrote {ones} x AdaptiveMaxPool-8 -> ReduceMax-1\n" in printed, printed
    rule = "AdaptiveMaxPool-8 -> Gather-1/ReduceMax-1/Select-1"
    assert f"rewrote {MAX_CASES - ones} x {rule}" in printed, printed
    main(["check", str(out), "--target", "2021.4"])
    said = capsys.readouterr().out
    assert "AdaptiveMaxPool" not in said and "W-DEAD" not in said, said
    assert assert_runs_equal(model, out, inputs=inputs) == MAX_CASES


def test_adaptive_max_pool_with_its_indices_read_is_refused(tmp_path: Path, capsys) -> None:
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    x = o1.parameter([1, 2, 5, 5], np.float32, name="x")
    pool = o8.adaptive_max_pool(x, o1.constant(np.array([2, 3], np.int64)), "i32", name="pool")
    model = tmp_path / "indices.xml"
    ov.save_model(ov.Model([pool.output(0), pool.output(1)], [x], "indices"), str(model))
    assert_refused(model, "pool", "AdaptiveMaxPool of opset8", capsys, target="2021.4")
    assert main(["check", str(model), "--target", "2021.4"]) == 1
    said = capsys.readouterr().out
    assert "no rewrite applies to this layer" in said and "its indices output is read" in said, said
