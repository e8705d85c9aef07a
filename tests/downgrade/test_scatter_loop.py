"""ScatterElementsUpdate-12 with a reduction, any indices, migrated for 2023.0 (no opset12) as a Loop-5 of
ScatterElementsUpdate-3 steps (passes/downgrade/scatter_loop.py): run on OpenVINO 2023.0 and the current one equal to
the current OpenVINO on the original, every output, dtype and sign of zero included; and the layers it leaves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, migrate
from tests.test_target import side_pythons

pytestmark = NEEDS_2023

REDUCTIONS = ("sum", "prod", "min", "max")


def _values(rng: np.random.Generator, shape: tuple[int, ...], element: str, reduction: str) -> np.ndarray:
    """f32 of mixed magnitudes (so that another order of the additions rounds otherwise), with a few zeros of either
    sign, infinities and NaN; i32 across the whole range (sums and products wrap)."""
    if element[0] in "iu":
        info = np.iinfo({"i8": np.int8, "u8": np.uint8, "i32": np.int32, "i64": np.int64}[element])
        if reduction == "prod":
            return rng.integers(max(info.min, -70000), min(info.max, 70000), shape).astype(info.dtype)
        return rng.integers(info.min, info.max, shape, dtype=np.int64).astype(info.dtype)
    if reduction == "prod":
        values = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    else:
        values = rng.standard_normal(shape) * 10.0 ** rng.integers(-4, 6, shape)
    values = values.astype(np.float16 if element == "f16" else np.float32)
    flat = values.reshape(-1)
    for special in (0.0, -0.0, np.inf, -np.inf, np.nan):
        if flat.size and rng.random() < 0.15:
            flat[rng.integers(flat.size)] = special
    return values


def scatter_model(path: Path, rng: np.random.Generator, cases: int, elements: tuple[str, ...] = ("f32", "i32"),
                  use_init_val: bool | None = True, reductions: tuple[str, ...] = REDUCTIONS, longest: int = 7,
                  ) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` ScatterElementsUpdate-12 layers of ``use_init_val``: every reduction of ``reductions`` in turn,
    f32 and i32 data, ranks 1-3, every axis (negative at times), indices with many duplicates along a short axis and
    negative ones, narrower than the data off the axis at times, i32 or i64; data, indices and updates fed as
    Parameters of static or dynamic dims (an axis of updates of length 0 among them: the MoE expert no token went
    to) or computed (an Add, a Subtract, a Multiply); the axis an i32 or i64 Const. Without use_init_val no
    aten::index_add_ follows; None: true and false in turn. ``longest``: the updates' longest axis (the most updates
    an element may take)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset3 as o3
    import openvino.opset12 as o12

    params, results, fed = [], [], {}

    def fed_input(name: str, value: np.ndarray, dynamic: bool) -> object:
        shape = [-1 if dynamic and (k % 2 == 0 or n == 0) else n for k, n in enumerate(value.shape)]
        p = o1.parameter(shape, value.dtype, name=name)
        params.append(p)
        fed[name] = value
        return p

    for i in range(cases):
        reduction, element = reductions[i % len(reductions)], elements[i // len(reductions) % len(elements)]
        rank = 1 + i % 3
        axis = int(rng.integers(rank))
        data_shape = [int(n) for n in rng.integers(1, 5, rank)]
        index_shape = [int(rng.integers(1, n + 1)) if rng.random() < 0.3 else n for n in data_shape]
        index_shape[axis] = int(rng.integers(1, longest + 1)) if i % 11 else 0
        dynamic = i % 3 == 1 or index_shape[axis] == 0
        index_type = (np.int32, np.int64)[i // 7 % 2]
        n = data_shape[axis]
        indices = rng.integers(-n, n, index_shape).astype(index_type)
        data = _values(rng, tuple(data_shape), element, reduction)
        updates = _values(rng, tuple(index_shape), element, reduction)
        computed = i % 5 == 3
        if i % 7 == 5 and indices.size:  # (Const indices, negative ones among them)
            d, x = fed_input(f"data{i}", data, dynamic), o1.constant(indices)
            u = fed_input(f"updates{i}", updates, dynamic)
        elif i % 7 == 6 and indices.size and (reduction, element) != ("prod", "f32"):  # (Const data and updates;
            # OpenVINO folds the Convert of the updates; f32 prod of constant updates is left: test_left_layers)
            # (no -0.0: OpenVINO 2023.0 CPU reads a Const's -0.0 as 0.0 whatever the rewrite: a Concat of one)
            data, updates = (np.where(v == 0, np.zeros((), v.dtype), v) for v in (data, updates))
            d, x = o1.constant(data), fed_input(f"indices{i}", indices, dynamic)
            u = o1.convert(o1.constant(updates.astype(np.float64 if element == "f32" else np.int64)), element)
        elif computed:  # (the layer reads values computed from fed ones: indices shifted back by a Subtract)
            shift = np.array(1, index_type)
            d = o1.add(fed_input(f"data{i}", data, dynamic), o1.constant(np.zeros((), data.dtype)))
            x = o1.subtract(fed_input(f"indices{i}", (indices + shift).astype(index_type), dynamic),
                            o1.constant(shift))
            u = o1.multiply(fed_input(f"updates{i}", updates, dynamic),
                            o1.constant(np.ones((), updates.dtype)))
        else:
            d = fed_input(f"data{i}", data, dynamic)
            x = fed_input(f"indices{i}", indices, dynamic)
            u = fed_input(f"updates{i}", updates, dynamic)
        at = o1.constant(np.array(axis - rank if i % 4 == 2 else axis, (np.int64, np.int32)[i % 2]))
        init = bool(i % 2) if use_init_val is None else use_init_val
        scatter = o12.scatter_elements_update(d, x, u, at, reduction, init, name=f"scatter{i}")
        results.append(o1.result(scatter, name=f"y{i}"))
    for rows in (5, 0, 3) if use_init_val else ():  # (aten::index_add_ of an MoE expert: rows of tokens, none
        # where no token went to it; 3: static, the column a Const, the indices folded by OpenVINO, ShapeOf included)
        hidden = _values(rng, (4, 16), "f32", "sum")
        column = rng.integers(-4, 4, (rows, 1)).astype(np.int32)
        picked = _values(rng, (rows, 16), "f32", "sum")
        d = fed_input(f"hidden{rows}", hidden, rows != 3)
        c = o1.constant(column) if rows == 3 else fed_input(f"column{rows}", column, True)
        u = fed_input(f"picked{rows}", picked, rows != 3)
        x = o3.broadcast(c, o3.shape_of(u))
        scatter = o12.scatter_elements_update(d, x, u, o1.constant(np.array(0, np.int64)), "sum", True,
                                              name=f"index_add{rows}")
        results.append(o1.result(scatter, name=f"added{rows}"))
    ov.save_model(ov.Model(results, params, "scatter_loop"), str(path), compress_to_fp16=False)
    return path, fed


def test_reductions_migrated_for_2023_0_run_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Seeded ScatterElementsUpdate-12 layers: the same values, dtype and sign of zero on 2023.0 and the current
    OpenVINO."""
    cases = 300
    model, fed = scatter_model(tmp_path / "scatter.xml", np.random.default_rng(12), cases)
    out, printed = migrate(model, capsys)
    done = sum(int(line.split(" x ")[0].split()[-1]) for line in printed.splitlines()
               if "ScatterElementsUpdate-12 (" in line and "-> Loop-5" in line)
    assert done == cases + 3, printed
    assert "made unique" not in printed, printed
    assert assert_runs_equal(model, out, inputs=fed) == cases + 3


def test_means_migrated_for_2023_0_run_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Seeded ScatterElementsUpdate-12 layers of reduction mean on f32, use_init_val true and false in turn, up to 40
    updates an element (a quotient by 1 to 41): the same values, dtype and sign of zero on 2023.0 and the current
    OpenVINO as the current OpenVINO's on the original (its mean divides once, correctly rounded, as no Divide-1
    does)."""
    cases = 120
    model, fed = scatter_model(tmp_path / "mean.xml", np.random.default_rng(14), cases, ("f32",), None, ("mean",),
                               longest=40)
    out, printed = migrate(model, capsys)
    assert f"rewrote {cases} x ScatterElementsUpdate-12 (mean) -> Loop-5" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed) == cases


@pytest.mark.parametrize("target", ["2023.0", "2023.1", "2024.0"])
def test_reductions_without_init_val_run_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               target: str) -> None:
    """Seeded ScatterElementsUpdate-12 layers with use_init_val false, which were refused (2023.0: no opset12; 2023.1
    and 2023.2: f32 max from f32's least positive normal) or written as they are though computed otherwise (f32 min
    and max where a NaN or a signed zero meets another value: 2023.1 to 2024.0): migrated for ``target`` (every layer
    for 2023.0, those of f32 min and max for the others) they run there and on the current OpenVINO as the current
    OpenVINO runs the original, bit for bit; an updates' axis of a dynamic length, 0 among them, too (a
    scatter_reduce of ``include_self=False``, once refused). 2023.1 where it is set."""
    if target not in side_pythons():
        pytest.skip(f"no OpenVINO {target}: set IR_TOOLS_RELEASE_PYTHONS")
    cases = 300
    model, fed = scatter_model(tmp_path / "scatter.xml", np.random.default_rng(13), cases, use_init_val=False)
    out, printed = migrate(model, capsys, target)
    done = sum(int(line.split(" x ")[0].split()[-1]) for line in printed.splitlines()
               if "ScatterElementsUpdate-12 (" in line and "-> Loop-5" in line)
    min_max_f32 = sum(1 for i in range(cases) if i % 4 >= 2 and i // 4 % 2 == 0)  # (REDUCTIONS, elements in turn)
    assert done == (cases if target == "2023.0" else min_max_f32), printed
    assert assert_runs_equal(model, out, inputs=fed, releases=(target,)) == cases


def test_left_layers_are_refused_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What the rewrite leaves, each named with why (``check --target``), and ``migrate --target 2023.0`` refuses the
    model: reduction mean of i32, f16 data (the CPU reduces it in f32, rounding once), an axis that is not a constant,
    f32 prod of constant updates, and a mean of f32 whose division would take too long (90,000 elements, up to 1000
    updates each)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset12 as o12

    import ir_tools

    rng = np.random.default_rng(3)
    params, results = [], []

    def fed(name: str, shape: list[int], dtype: type) -> object:
        params.append(o1.parameter(shape, dtype, name=name))
        return params[-1]

    axis0 = o1.constant(np.array(0, np.int64))
    made = {
        "mean": (fed("d1", [3, 4], np.int32), fed("x1", [5, 4], np.int32), fed("u1", [5, 4], np.int32), axis0,
                 "mean", True),
        "f16": (fed("d2", [3, 4], np.float16), fed("x2", [5, 4], np.int32), fed("u2", [5, 4], np.float16), axis0,
                "sum", True),
        "fed_axis": (fed("d3", [3, 4], np.float32), fed("x3", [5, 4], np.int32), fed("u3", [5, 4], np.float32),
                     fed("a3", [], np.int64), "max", True),
        "const_prod": (fed("d4", [3, 4], np.float32), fed("x4", [5, 4], np.int32),
                       o1.constant(rng.uniform(-2, 2, (5, 4)).astype(np.float32)), axis0, "prod", True),
        "long_mean": (fed("d5", [300, 300], np.float32), fed("x5", [1000, 300], np.int32),
                      fed("u5", [1000, 300], np.float32), axis0, "mean", False),
    }
    for name, (d, x, u, axis, reduction, init) in made.items():
        scatter = o12.scatter_elements_update(d, x, u, axis, reduction, init, name=name)
        results.append(o1.result(scatter, name=f"y_{name}"))
    model = tmp_path / "left.xml"
    ov.save_model(ov.Model(results, params, "left"), str(model), compress_to_fp16=False)
    why = {d.loc.layer_name: d.message for d in ir_tools.check(model, openvino=False, target="2023.0")
           if d.code == "E-TARGET"}
    assert sorted(why) == sorted(made), why
    for name, reason in (("mean", "reduction mean of i32"),
                         ("f16", "its data is f16"), ("fed_axis", "its axis is not a constant"),
                         ("const_prod", "its f32 updates are constants"),
                         ("long_mean", "reduction mean whose division would take 4.5e+10 element steps")):
        assert f"no rewrite applies to this layer: {reason}" in why[name], why[name]
        assert "into a Loop-5 of Gather-1" in why[name], why[name]
    assert_refused(model, "mean", "ScatterElementsUpdate of opset12", capsys)
