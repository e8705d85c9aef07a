"""``migrate --target 2021.4`` on GatherND-8 (which 2021.4 cannot create): GatherND-5, and a Reshape-1 back to the
batch dims where batch_dims > 1, run on OpenVINO 2023.0 and on the current one equal bit for bit to the original on
the current OpenVINO."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import ir_tools
from ir_tools.cli import main
from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, migrated_for_2021_4

pytestmark = NEEDS_2023

CASES = 180


def gather_nd_model(path: Path, rng: np.random.Generator) -> tuple[Path, dict[str, np.ndarray]]:
    """Per case a GatherND-8 of batch_dims 0, 1 or 2 (in turn), index tuples of 1-3 elements drawn in [-dim, dim)
    with -dim and dim - 1 set at the first two places, i32 or i64, 0-2 further index dims and 0-2 trailing data
    dims; every fourth case's dims dynamic (but the tuple length: the CPU refuses an output of dynamic rank), every
    fifth's indices a Const. Returns the model and its inputs."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    params, results, inputs = [], [], {}
    for i in range(CASES):
        batch_dims = i % 3
        batch = [int(n) for n in rng.integers(1, 4, batch_dims)]
        tuple_length = int(rng.integers(1, 4))
        indexed = [int(n) for n in rng.integers(1, 5, tuple_length)]
        shape = batch + indexed + [int(n) for n in rng.integers(1, 4, int(rng.integers(0, 3)))]
        index_shape = batch + [int(n) for n in rng.integers(1, 4, int(rng.integers(0, 3)))] + [tuple_length]
        dims = np.array(indexed, np.int64)
        indices = (rng.random(index_shape) * 2 * dims - dims).astype(np.int64)
        flat = indices.reshape(-1, tuple_length)
        flat[0] = -dims
        if len(flat) > 1:
            flat[1] = dims - 1
        indices = flat.reshape(index_shape).astype((np.int32, np.int64)[i % 2])
        dynamic = i % 4 == 3
        x = o1.parameter([-1] * len(shape) if dynamic else shape, np.float32, name=f"x{i}")
        params.append(x)
        inputs[f"x{i}"] = rng.standard_normal(shape).astype(np.float32)
        if i % 5 == 0:
            fed = o1.constant(indices)
        else:
            declared = [-1] * (len(index_shape) - 1) + [tuple_length] if dynamic else index_shape
            fed = o1.parameter(declared, indices.dtype, name=f"i{i}")
            params.append(fed)
            inputs[f"i{i}"] = indices
        results.append(o1.result(o8.gather_nd(x, fed, batch_dims, name=f"gather{i}"), name=f"y{i}"))
    ov.save_model(ov.Model(results, params, "gather_nd"), str(path), compress_to_fp16=False)
    return path, inputs


def test_gather_nd_migrated_for_2021_4_runs_equal(tmp_path: Path, capsys) -> None:
    """180 seeded cases (60 each of batch_dims 0, 1 and 2; 36 of Const indices, 45 of dynamic dims): OUT holds only
    what 2021.4 creates, and runs on 2023.0 and on the current OpenVINO equal to the original bit for bit."""
    model, inputs = gather_nd_model(tmp_path / "gather_nd.xml", np.random.default_rng(5))
    out, printed = migrated_for_2021_4(model, "GatherND of opset8", CASES, capsys)
    for rule in ("60 x GatherND-8 (batch_dims 0) -> GatherND-5", "60 x GatherND-8 (batch_dims 1) -> GatherND-5",
                 "60 x GatherND-8 (batch_dims > 1) -> GatherND-5/Reshape-1"):
        assert rule in printed, printed
    assert not [d for d in ir_tools.check(out, openvino=False, target="2021.4") if d.severity == "error"]
    main(["check", str(out), "--target", "2021.4"])
    assert "GatherND" not in capsys.readouterr().out
    assert assert_runs_equal(model, out, inputs=inputs) == CASES


def test_gather_nd_of_indices_of_a_dynamic_rank_is_refused(tmp_path: Path, capsys) -> None:
    """Their tuples' length not known, no index can be made non-negative (and the CPU compiles no such GatherND):
    ``check --target`` says why no rewrite applies."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    x = o1.parameter([2, 3, 4, 5], np.float32, name="x")
    indices = o1.parameter(ov.PartialShape.dynamic(), np.int64, name="indices")
    model = tmp_path / "dynamic_rank.xml"
    ov.save_model(ov.Model([o8.gather_nd(x, indices, 2, name="gather")], [x, indices], "dynamic_rank"), str(model))
    assert_refused(model, "gather", "GatherND of opset8", capsys, target="2021.4")
    assert main(["check", str(model), "--target", "2021.4"]) == 1
    said = capsys.readouterr().out
    assert "no rewrite applies to this layer" in said and "length of its index tuples is not known" in said, said
