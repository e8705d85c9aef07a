"""TopK-11 stable with k other than a Const 1 (torch.sort, argsort) migrated for releases without opset11
(passes/downgrade/topk.py rule 3: ranks by pairs, TopK-3), run on OpenVINO 2023.0 and the current OpenVINO equal to
the current OpenVINO on the original; sort index and too long an axis refused."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ir_tools.cli import main
from ir_tools.passes.downgrade import TopKTo3OrReduce
from tests.downgrade.runs import NEEDS_2023, assert_runs_equal, left_for_2021_4, migrate

pytestmark = NEEDS_2023

#: The data types of the rank rewrite, each with the numpy type of its inputs.
_TYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i64": np.int64}


def _planted(rng: np.random.Generator, shape: list[int], dtype: type) -> np.ndarray:
    """Data drawn from a few values (ties): small numbers and, on floats, NaN, +-inf and signed zeros (NaN in most
    rows), on integers the i32 limits and values near 2^24 and 2^31 (i64 within i32, as a target holds it)."""
    if np.issubdtype(dtype, np.integer):
        special = [-2**31, 2**31 - 1, -2**31 + 1, 2**31 - 2, 2**24, 2**24 + 1, 2**24 + 2, 65536, 65535]
        pool = np.array([*rng.integers(-3, 4, 3), *special], np.int64)
    else:
        pool = np.array([*rng.integers(-3, 4, 3), np.nan, np.nan, np.inf, -np.inf, 0.0, -0.0], np.float64)
    chosen = rng.choice(pool, int(rng.integers(1, 6)), replace=False)
    return rng.choice(chosen, shape).astype(dtype)


def stable_sort_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` TopK-11 layers of stable true and sort value on Parameters of ranks 1..4 (the types of ``_TYPES``
    in turn, mode max or min): k a Const (1 < k <= the axis's length, or the length) or computed as torch.sort
    does (the length, from ShapeOf-3), i32 or i64 indices, the values and the indices both read or one of them,
    static dims, the axis's dynamic or another's; with seeded inputs (``_planted``). f16 data is an f32 model
    input converted inside the model, its values converted to f32 there (as tests/downgrade/test_topk.py's)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset3 as o3
    import openvino.opset11 as o11

    params, results, inputs = [], [], {}
    for i in range(cases):
        dtype = list(_TYPES.values())[i % len(_TYPES)]
        j = i // len(_TYPES)
        rank = int(rng.integers(1, 5))
        shape = [int(n) for n in rng.integers(1, 4, rank)]
        axis = int(rng.integers(0, rank))
        shape[axis] = int(rng.choice([2, 3, 5, 7, 8, 9, 16, 33]))
        declared = list(shape)
        dynamic = j // 4 % 3
        if dynamic == 1:
            declared[axis] = -1
        elif dynamic == 2 and rank > 1:
            declared[(axis + 1) % rank] = -1
        x = o1.parameter(declared, np.float32 if dtype == np.float16 else dtype, name=f"x{i}")
        data = o1.convert(x, np.float16) if dtype == np.float16 else x
        if j % 3 == 2:  # (torch.sort: k the axis's length)
            k = o1.gather(o3.shape_of(x, "i64"), o1.constant(np.int64(axis)), o1.constant(np.int64(0)))
        else:
            k = o1.constant(np.array(int(rng.integers(2, shape[axis] + 1)) if j % 3 else shape[axis],
                                     (np.int64, np.int32)[j // 2 % 2]))
        topk = o11.topk(data, k, axis - rank * int(rng.integers(0, 2)), ("max", "min")[j % 2], "value",
                        ("i32", "i64")[j // 5 % 2], stable=True, name=f"topk{i}")
        read = ((0, 1), (1,), (0,))[j // 7 % 3]
        params.append(x)
        outputs = [topk.output(0), topk.output(1)]
        if dtype == np.float16:
            outputs[0] = o1.convert(outputs[0], np.float32).output(0)
        results += [o1.result(outputs[port], name=f"{'vi'[port]}{i}") for port in read]
        inputs[f"x{i}"] = _planted(rng, shape, dtype).astype(x.get_element_type().to_dtype())
    ov.save_model(ov.Model(results, params, "stable_sorts"), str(path), compress_to_fp16=False)
    return path, inputs


def test_topk_11_stable_sort_runs_on_older_releases_equal_to_the_current_openvino(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """200 seeded layers (50 of each type): ``check --target 2021.4`` says migrate rewrites each; migrated for 2022.1
    (IR v11, whose outputs keep their types) ``check --target 2021.4`` names none of their layers (only the IR
    version: migrate writes v10 for 2021.4), and they give the current OpenVINO CPU's order bit for bit (values and
    indices; NaN, the sign of zero) on 2023.0 and the current OpenVINO."""
    model, inputs = stable_sort_model(tmp_path / "sorts.xml", np.random.default_rng(311), 200)
    assert main(["check", str(model), "--target", "2021.4"]) == 1
    said = capsys.readouterr().out
    assert f"`ir-tools migrate --target` rewrites it {TopKTo3OrReduce.rewrites['TopK-11']} (and 199 more like " \
           "it" in said, said
    assert "no rewrite applies" not in said, said
    out, printed = migrate(model, capsys, "2022.1")
    assert "rewrote 100 x TopK-11 (stable, mode max) -> ranks by pairs, TopK-3" in printed, printed
    assert "rewrote 100 x TopK-11 (stable, mode min) -> ranks by pairs, TopK-3" in printed, printed
    left = left_for_2021_4(out, "TopK")
    assert not left, left[:3]
    assert assert_runs_equal(model, out, inputs=inputs) == 284


def refused_model(path: Path, how: str) -> Path:
    """One TopK-11 stable layer, ``topk``, that the rewrite leaves: sort index (``index``) or an axis of 5000
    elements (``long``), with k 3."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset11 as o11

    x = o1.parameter([2, 5000 if how == "long" else 8], np.float32, name="x")
    topk = o11.topk(x, o1.constant(np.int64(3)), -1, "max", "index" if how == "index" else "value", "i64",
                    stable=True, name="topk")
    ov.save_model(ov.Model([o1.result(topk.output(0)), o1.result(topk.output(1))], [x], "left"), str(path))
    return path


@pytest.mark.parametrize(("how", "why"), [
    ("index", "sort index: the current OpenVINO CPU's stable TopK keeps other tied elements"),
    ("long", "k other than a constant 1 along an axis of 5000 elements")])
def test_topk_11_stable_sort_left_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str,
                                             why: str) -> None:
    """Sort index, an axis over 4096 elements: refused (exit 2, nothing written), saying why."""
    model = refused_model(tmp_path / f"{how}.xml", how)
    out = tmp_path / "out.xml"
    assert main(["migrate", str(model), "--target", "2021.4", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert re.search(r"error\[E-TARGET\]: layer 'topk' .*TopK of opset11.*no rewrite applies to this layer: "
                     rf"it is stable with {re.escape(why)}", err), err
    assert not out.exists()
