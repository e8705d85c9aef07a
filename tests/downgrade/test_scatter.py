"""ScatterNDUpdate-15 with a reduction migrated for OpenVINO 2023.0 (passes/downgrade/scatter.py): rounds of
GatherND-5, the reduction and ScatterNDUpdate-3; equal to the current OpenVINO exactly, duplicates included."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from ir_tools.runtime.inputs import random_inputs
from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, migrate

pytestmark = NEEDS_2023

REDUCTIONS = ("sum", "sub", "prod", "min", "max")
SPECIAL = {np.float32: [np.nan, 0.0, -0.0, np.inf, -np.inf, 3e38, -3e38],
           np.int32: [2**31 - 1, -(2**31), 2**31 - 2, -(2**31) + 1, 2**24 + 1, 123456789, -1, 0, 65536]}


def scatter_model(path: Path, rng: np.random.Generator, cases: int) -> Path:
    """``cases`` ScatterNDUpdate-15 layers (each reduction in turn, f32 or i32) on Parameters of ranks 1..4, Const
    indices of tuple length 1..rank drawn from few values (duplicates, negative ones counted from the end) in 1 or 2
    leading dims."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    params, results = [], []
    for i in range(cases):
        dtype = (np.float32, np.int32)[i // 5 % 2]
        shape = [int(n) for n in rng.integers(1, 5, int(rng.integers(1, 5)))]
        k = int(rng.integers(1, len(shape) + 1))
        lead = [int(n) for n in rng.integers(1, 5, int(rng.integers(1, 3)))]
        indices = np.stack([rng.integers(-n, n, lead) for n in shape[:k]], axis=-1)
        x = o1.parameter(shape, dtype, name=f"x{i}")
        u = o1.parameter(lead + shape[k:], dtype, name=f"u{i}")
        index_type = np.int32 if i % 3 else np.int64
        scatter = o15.scatter_nd_update(x, o1.constant(indices.astype(index_type)), u, REDUCTIONS[i % 5],
                                        name=f"scatter{i}")
        params += [x, u]
        results.append(o1.result(scatter, name=f"y{i}"))
    ov.save_model(ov.Model(results, params, "scatters"), str(path), compress_to_fp16=False)
    return path


def with_specials(inputs: dict[str, np.ndarray], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The inputs with a third of their elements replaced by NaN, signed zeros, infinities and extremes (f32), or by
    the int32 limits and powers of two that overflow (i32)."""
    out = {}
    for name, value in inputs.items():
        special = np.array(SPECIAL[value.dtype.type], value.dtype)
        mask = rng.random(value.shape) < 1 / 3
        out[name] = np.where(mask, rng.choice(special, value.shape), value).astype(value.dtype)
    return out


def test_scatter_nd_update_15_reductions_run_on_2023_equal_to_the_current_openvino(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """300 seeded layers, 60 per reduction, half f32 and half i32; inputs once as drawn (N(0,1) floats, integers in
    [-50, 50): the products wrap) and once with NaN, signed zeros, infinities and the int32 limits."""
    rng = np.random.default_rng(15)
    model = scatter_model(tmp_path / "scatters.xml", rng, 300)
    out, printed = migrate(model, capsys)
    for reduction in REDUCTIONS:
        assert f"rewrote 60 x ScatterNDUpdate-15 ({reduction}) -> ScatterNDUpdate-3 rounds" in printed, printed
    drawn = random_inputs(ir_tools.read_valid(model), 0, {})
    assert assert_runs_equal(model, out, inputs=drawn) == 300
    assert assert_runs_equal(model, out, inputs=with_specials(drawn, rng)) == 300


def test_scatter_nd_update_15_reductions_refused_where_not_exact(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """f16 data (OpenVINO accumulates in f32, rounds once), i64 data, indices not Const; an index out of range, which
    OpenVINO CPU refuses when it runs, check refuses before migrate looks at it (E-OP, exit 1)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    def save(name: str, dtype: type, indices: object, params: list) -> Path:
        x = o1.parameter([4, 3], dtype, name="x")
        u = o1.parameter([2, 3], dtype, name="u")
        node = o15.scatter_nd_update(x, indices, u, "sum", name=name)
        path = tmp_path / f"{name}.xml"
        ov.save_model(ov.Model([node], [x, u, *params], name), str(path), compress_to_fp16=False)
        return path

    fixed = o1.constant(np.array([[1], [1]], np.int64))
    fed = o1.parameter([2, 1], np.int64, name="i")
    for path in (save("f16", np.float16, fixed, []), save("i64", np.int64, fixed, []),
                 save("fed", np.float32, fed, [fed])):
        assert_refused(path, path.stem, "ScatterNDUpdate of opset15", capsys)
    beyond = save("beyond", np.float32, o1.constant(np.array([[1], [4]], np.int64)), [])
    assert main(["migrate", str(beyond), "--target", "2023.0", "-o", str(tmp_path / "beyond_2023.0.xml")]) == 1
    assert "index 4 is outside data dim 0" in capsys.readouterr().err
    assert not (tmp_path / "beyond_2023.0.xml").exists()
