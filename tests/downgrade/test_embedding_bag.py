"""EmbeddingBagOffsets-15 and EmbeddingBagPacked-15 migrated for OpenVINO 2023.0 (passes/downgrade/embedding_bag.py):
reduction sum as the -3 ops (a default_index of -1 taken care of), a packed float table's mean as Gather-1 and
ReduceMean-1; equal to the current OpenVINO exactly, on 2023.0 and on the current OpenVINO. An offsets mean, and an
integer table's packed mean, are refused, saying why."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ir_tools.cli import main
from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, migrate

pytestmark = NEEDS_2023

#: Table element types the CPU kernel computes (f16 in f32), each with how its values are drawn.
TABLES = (np.float32, np.float16, np.int32, np.int8, np.uint8)


def _table(rng: np.random.Generator, dtype: type, shape: list[int]) -> np.ndarray:
    """Values of a table or of weights: N(0, 1) times a power of ten (up to 1 for f16, whose sums stay finite: 2023.0
    and 2024.0 saturate an f16 result beyond 65504 where 2025.0 on give inf, whatever the op), small integers."""
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(shape) * 10.0 ** rng.integers(-2, 3 if dtype != np.float16 else 1)).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -100), min(info.max, 100) + 1, shape).astype(dtype)


def offsets_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray], int]:
    """``cases`` EmbeddingBagOffsets-15 (sum) layers, each on a table of its own (a Parameter, the types in turn, one
    to three trailing dims), i32 or i64 indices and offsets (Const or fed, one bag in three empty, none at the end:
    the CPU refuses an offset equal to the number of indices), default_index none, a Const (valid or -1) or fed (-1
    or valid), per_sample_weights none, Const or fed on a float table. Returns the path, the values fed, and how many
    layers may fill a bag with zeros though they have a default_index (-1, Const beside weights, or fed)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    params, results, fed, zero_filled = [], [], {}, 0
    for i in range(cases):
        dtype, index = TABLES[i % len(TABLES)], (np.int32, np.int64)[i // len(TABLES) % 2]
        rows = int(rng.integers(1, 9))
        shape = [rows, *(int(n) for n in rng.integers(1, 5, int(rng.integers(1, 4))))]
        table = o1.parameter(shape, dtype, name=f"table{i}")
        fed[f"table{i}"] = _table(rng, dtype, shape)
        count, bags = int(rng.integers(1, 10)), int(rng.integers(1, 6))
        indices = rng.integers(0, rows, count).astype(index)
        offsets = np.sort(rng.integers(0, count, bags)).astype(index)
        offsets[0] = 0 if i % 3 else offsets[0]
        inputs = [table]
        for name, value in (("indices", indices), ("offsets", offsets)):
            if i % 4 == 1:
                inputs.append(o1.parameter(list(value.shape), index, name=f"{name}{i}"))
                fed[f"{name}{i}"] = value
            else:
                inputs.append(o1.constant(value))
        kind = i // 5 % 4  # default_index: none, a Const, -1 Const, fed
        weighted = np.dtype(dtype).kind == "f" and i % 3 != 2
        if kind or weighted:
            default = np.array(-1 if kind in (0, 2) or i % 2 else int(rng.integers(0, rows)), index)
            if kind == 3:
                inputs.append(o1.parameter([], index, name=f"default{i}"))
                fed[f"default{i}"] = default
            else:
                inputs.append(o1.constant(default))
            zero_filled += kind == 3 or default == -1 and weighted
        if weighted:
            weights = _table(rng, dtype, [count])
            if i % 2:
                inputs.append(o1.parameter([count], dtype, name=f"weights{i}"))
                fed[f"weights{i}"] = weights
            else:
                inputs.append(o1.constant(weights))
        params += [x.node if hasattr(x, "node") else x for x in inputs if x.get_type_name() == "Parameter"]
        bag = o15.embedding_bag_offsets(*inputs, reduction="sum", name=f"bag{i}")
        results.append(o1.result(bag, name=f"y{i}"))
    ov.save_model(ov.Model(results, params, "offsets"), str(path), compress_to_fp16=False)
    return path, fed, zero_filled


def packed_model(path: Path, rng: np.random.Generator, cases: int,
                 reduction: str) -> tuple[Path, dict[str, np.ndarray], int]:
    """``cases`` EmbeddingBagPacked-15 layers of ``reduction`` on tables of their own (float ones for mean, every
    type for sum), i32 or i64 indices (Const or fed) of 1 to 12 per bag, per_sample_weights (sum of a float table)
    none, Const or fed; for mean, rows of 2 elements or more unless a bag holds one index. Returns the path, the
    values fed and how many layers have bags of one index."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    types = TABLES if reduction == "sum" else TABLES[:2]
    params, results, fed, single = [], [], {}, 0
    for i in range(cases):
        dtype, index = types[i % len(types)], (np.int32, np.int64)[i // len(types) % 2]
        rows, each = int(rng.integers(1, 9)), int(rng.integers(1, 13))
        shape = [rows, *(int(n) for n in rng.integers(1, 18, int(rng.integers(1, 4))))]
        if reduction == "mean" and each > 1 and np.prod(shape[1:]) < 2:
            shape[1] = 2
        table = o1.parameter(shape, dtype, name=f"table{i}")
        fed[f"table{i}"] = _table(rng, dtype, shape)
        indices = rng.integers(0, rows, [int(rng.integers(1, 6)), each]).astype(index)
        single += each == 1
        inputs = [table]
        if i % 3 == 1:
            inputs.append(o1.parameter(list(indices.shape), index, name=f"indices{i}"))
            fed[f"indices{i}"] = indices
        else:
            inputs.append(o1.constant(indices))
        if reduction == "sum" and np.dtype(dtype).kind == "f" and i % 3:
            weights = _table(rng, dtype, list(indices.shape))
            if i % 2:
                inputs.append(o1.parameter(list(weights.shape), dtype, name=f"weights{i}"))
                fed[f"weights{i}"] = weights
            else:
                inputs.append(o1.constant(weights))
        params += [x for x in inputs if x.get_type_name() == "Parameter"]
        bag = o15.embedding_bag_packed(*inputs, reduction=reduction, name=f"bag{i}")
        results.append(o1.result(bag, name=f"y{i}"))
    ov.save_model(ov.Model(results, params, "packed"), str(path), compress_to_fp16=False)
    return path, fed, single


def test_offsets_sum_runs_on_2023_equal_to_the_current_openvino(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """300 seeded EmbeddingBagOffsets-15 (sum) layers, every table type, empty bags, every kind of default_index
    (OpenVINO 2023.0 CPU fails at inference on a default_index of -1: those are made a Select of zeros) and of
    per_sample_weights."""
    model, fed, zero_filled = offsets_model(tmp_path / "offsets.xml", np.random.default_rng(15), 300)
    out, printed = migrate(model, capsys)
    assert "rewrote 300 x EmbeddingBagOffsets-15 (sum) -> EmbeddingBagOffsetsSum-3" in printed, printed
    assert zero_filled > 40
    assert assert_runs_equal(model, out, inputs=fed) == 300


@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_packed_runs_on_2023_equal_to_the_current_openvino(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          reduction: str) -> None:
    """300 seeded EmbeddingBagPacked-15 layers of each reduction: sum on every table type (per_sample_weights on float
    ones), mean on f32 and f16 tables (Gather-1 and ReduceMean-1, whose division is exact as the kernel's; bags of one
    index as a Gather of the rows)."""
    model, fed, single = packed_model(tmp_path / f"packed_{reduction}.xml", np.random.default_rng(16), 300, reduction)
    out, printed = migrate(model, capsys)
    if reduction == "sum":
        assert "rewrote 300 x EmbeddingBagPacked-15 (sum) -> EmbeddingBagPackedSum-3" in printed, printed
    else:
        assert 10 < single < 50
        assert f"rewrote {300 - single} x EmbeddingBagPacked-15 (mean) -> Gather-1 + ReduceMean-1" in printed, printed
        assert f"rewrote {single} x EmbeddingBagPacked-15 (mean, bags of one) -> Gather-1" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed) == 300


@pytest.mark.parametrize("op, dtype, row, why", [
    ("offsets", np.float32, 3, "its reduction is mean over bags of different lengths, which no older op divides"),
    ("packed", np.int32, 3, "its reduction is mean of a table of element type i32, which ir_tools has not measured"),
    ("packed", np.float32, 1, "its reduction is mean of a table whose rows hold one element, or a number not known")])
def test_mean_left_is_refused_saying_why(tmp_path: Path, capsys: pytest.CaptureFixture[str], op: str, dtype: type,
                                         row: int, why: str) -> None:
    """An offsets mean (OpenVINO CPU's Divide is not exact, and one ReduceMean divides every bag by one length), an
    integer table's packed mean, and a packed mean of rows of one element (which the CPU's ReduceMean sums in
    another order: 15 of 200 such layers differed, on 2023.0 and 2026.4): check --target and migrate --target say
    why at the layer; nothing written."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    table = o1.parameter([5, row], dtype, name="table")
    if op == "offsets":
        bag = o15.embedding_bag_offsets(table, o1.constant(np.array([0, 4, 2], np.int32)),
                                        o1.constant(np.array([0, 1], np.int32)), reduction="mean", name="bag")
    else:
        bag = o15.embedding_bag_packed(table, o1.constant(np.array([[0, 4], [2, 2]], np.int32)), reduction="mean",
                                       name="bag")
    path = tmp_path / "mean.xml"
    ov.save_model(ov.Model([bag], [table], "mean"), str(path))
    assert main(["check", str(path), "--no-openvino", "--target", "2023.0"]) == 1
    assert f"no rewrite applies to this layer: {why}" in capsys.readouterr().out
    label = "EmbeddingBagOffsets of opset15" if op == "offsets" else "EmbeddingBagPacked of opset15"
    assert_refused(path, "bag", label, capsys)
