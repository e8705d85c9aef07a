"""A Reduce op over an axis of static length 0 migrated for a release that computes it from garbage (2023.0 to 2024.5,
``reduce_empty_axis_wrong``) as a Const of the current OpenVINO's values (passes/downgrade/empty_reduction.py): the
values measured (``EMPTY_START``), every op and element type run on 2023.0 (2024.0, 2025.0 where set) and the current
OpenVINO equal to the current OpenVINO on the original, inside the model too; and the layers it leaves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.passes.downgrade.empty_reduction import EMPTY_START
from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, installed, migrate
from tests.test_target import side_pythons

pytestmark = NEEDS_2023

NUMPY = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i8": np.int8, "u8": np.uint8, "i16": np.int16,
         "u16": np.uint16, "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64, "boolean": bool}


def _reduce(op: str) -> object:
    import openvino.opset1 as o1
    import openvino.opset4 as o4

    return {"ReduceMax": o1.reduce_max, "ReduceMin": o1.reduce_min, "ReduceSum": o1.reduce_sum,
            "ReduceProd": o1.reduce_prod, "ReduceMean": o1.reduce_mean, "ReduceL1": o4.reduce_l1,
            "ReduceL2": o4.reduce_l2, "ReduceLogicalAnd": o1.reduce_logical_and,
            "ReduceLogicalOr": o1.reduce_logical_or}[op]


def empty_model(path: Path) -> tuple[Path, dict[str, np.ndarray], dict[str, tuple[str, str, bool]]]:
    """Each op and element type of ``EMPTY_START`` twice: a Parameter [3, 2, 4] sliced empty on axis 1 or 2
    (StridedSlice-1), reduced over that axis alone, with another, or all three, keep_dims true or false, its output a
    model output; and the same flattened and concatenated with an input of one element (the value used inside the
    model). Returns the model, what to feed, and each output's (op, element type, whether read inside)."""
    import openvino as ov
    import openvino.opset1 as o1

    params, results, feed, made = [], [], {}, {}
    i = 0
    for op, types in EMPTY_START.items():
        for element in types:
            dtype = NUMPY[element]
            for inside in (False, True):
                x = o1.parameter([3, 2, 4], dtype, name=f"x{i}")
                at = 1 + i % 2
                ends = np.array([0, 0, 0])
                empty = o1.strided_slice(x, np.zeros(3, np.int64), ends, np.ones(3, np.int64),
                                         [int(k != at) for k in range(3)], [int(k != at) for k in range(3)])
                axes = [[at], [at - 3], [0, at], [0, 1, 2]][i % 4]
                node = _reduce(op)(empty, o1.constant(np.array(axes, np.int64)), bool(i % 3))
                node.set_friendly_name(f"reduce{i}")
                params.append(x)
                feed[f"x{i}"] = np.ones([3, 2, 4], dtype)
                if inside:  # (Reshape-1 and Concat-1 move bits on every release; 2023.0 computes Select of i32
                    # in f32)
                    more = o1.parameter([1], dtype, name=f"more{i}")
                    params.append(more)
                    feed[f"more{i}"] = np.ones([1], dtype)
                    flat = o1.reshape(node, o1.constant(np.array([-1], np.int64)), False)
                    node = o1.concat([flat, more], 0)
                results.append(o1.result(node, name=f"y{i}"))
                made[f"y{i}"] = (op, element, inside)
                i += 1
    ov.save_model(ov.Model(results, params, "empty"), str(path), compress_to_fp16=False)
    return path, feed, made


def test_empty_reductions_are_consts_of_the_current_values(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The current OpenVINO gives ``EMPTY_START``'s value for each (the table is what it computes: i16's ReduceMax 0,
    ReduceMin -1, i64's -2^31 and 2^31 - 1, f64's f32 extremes); ``migrate --target 2023.0`` writes each layer as a
    Const, which 2023.0 (and 2024.0, 2025.0 where set) runs as the current OpenVINO runs the original, where 2023.0
    gives other numbers on it."""
    model, feed, made = empty_model(tmp_path / "empty.xml")
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    graph, files = ir_tools.read_valid(model), ModelFiles(model, model.with_suffix(".bin"))
    want = OpenVinoRunner(graph, files).run(feed)
    for name, (op, element, inside) in made.items():
        got = want[name][:-1] if inside else want[name]
        assert got.size and (got == np.array(EMPTY_START[op][element], NUMPY[element])).all(), (name, op, element, got)
    out, printed = migrate(model, capsys)
    assert sum(int(line.split(" x ")[0].split()[-1]) for line in printed.splitlines()
               if "over an empty axis -> Const" in line) == len(made), printed
    assert assert_runs_equal(model, out, inputs=feed, releases=installed("2023.0", "2024.0", "2025.0")) == len(made)
    original = ChildOpenVinoRunner(side_pythons()["2023.0"], graph, files).run(feed)
    assert [name for name in want if not np.array_equal(original[name], want[name])]  # (the defect is real)


def test_left_empty_reductions_are_refused_with_the_reason(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """What the rewrite leaves, each named with why (``check --target``), and ``migrate --target 2023.0`` refuses the
    model: an input computed from constants (OpenVINO folds it otherwise: ReduceMin of f32 gives inf), an output of a
    dynamic shape, ReduceMax of f16 and of u32; an empty output (nothing to compute) is not named."""
    import openvino as ov
    import openvino.opset1 as o1

    def sliced(source: object, rank: int) -> object:
        return o1.strided_slice(source, np.zeros(rank, np.int64), np.zeros(rank, np.int64), np.ones(rank, np.int64),
                                [1] * (rank - 1) + [0], [1] * (rank - 1) + [0])

    last = o1.constant(np.array([-1], np.int64))
    f32 = o1.parameter([3, 4], np.float32, name="f32")
    dynamic = o1.parameter([-1, 4], np.float32, name="dynamic")
    f16 = o1.parameter([3, 4], np.float16, name="f16")
    u32 = o1.parameter([3, 4], np.uint32, name="u32")
    row = o1.parameter([3], np.float32, name="row")
    made = {"folded": o1.add(o1.reduce_min(sliced(o1.constant(np.ones([3, 4], np.float32)), 2), last, False), row),
            "dynamic": o1.reduce_sum(sliced(dynamic, 2), last, False),
            "f16": o1.reduce_max(sliced(f16, 2), last, False),
            "u32": o1.reduce_max(sliced(u32, 2), last, False)}
    reduced = {"folded": made["folded"].input_value(0).get_node()}
    results = []
    for name, node in made.items():
        (reduced.get(name) or node).set_friendly_name(name)
        results.append(o1.result(node, name=f"y_{name}"))
    empty_out = o1.reduce_sum(sliced(f32, 2), o1.constant(np.array([0], np.int64)), False)  # [0]: nothing computed
    empty_out.set_friendly_name("empty_out")
    results.append(o1.result(o1.concat([empty_out, o1.constant(np.ones([3], np.float32))], 0), name="y_empty"))
    model = tmp_path / "left.xml"
    ov.save_model(ov.Model(results, [f32, row, dynamic, f16, u32], "left"), str(model), compress_to_fp16=False)
    why = {d.loc.layer_name: d.message for d in ir_tools.check(model, openvino=False, target="2023.0")
           if d.code == "E-TARGET" and "Reduce op" in d.message}
    assert sorted(why) == sorted(made), why
    for name, reason in (("folded", "its input is computed from constants"),
                         ("dynamic", "its output's shape is not static"),
                         ("f16", "the current OpenVINO holds its start in f32"),
                         ("u32", "the current OpenVINO gives 2^31")):
        assert f"no rewrite applies to this layer: {reason}" in why[name], why[name]
        assert "into a Const of what the current OpenVINO gives" in why[name], why[name]
    assert_refused(model, "folded", "Reduce op", capsys)


def test_empty_integer_extremes_are_consts_for_releases_that_start_them_otherwise(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """OpenVINO 2024.6 to 2025.3 give ReduceMax and ReduceMin of i16 over an empty axis as -32768 and 32767, ReduceMax
    of u32 as 0, where the current one gives 0, -1 and 2^31 (measured; ``reduce_empty_integers_otherwise``): `check
    --target 2025.0` said nothing of them and `migrate` wrote them as they are. Now it names the three (not ReduceMin
    of u32 nor ReduceMax of i32, right there), 2025.4 none; `migrate --target 2025.0` writes the i16 ones as Consts,
    which 2025.0 runs as the current OpenVINO runs the original, and refuses the u32 one (no u32 Const is 2^31)."""
    import openvino as ov
    import openvino.opset1 as o1

    params, results, feed = [], [], {}
    layers = (("ReduceMax", "i16"), ("ReduceMin", "i16"), ("ReduceMax", "u32"), ("ReduceMin", "u32"),
              ("ReduceMax", "i32"))
    for i, (op, element) in enumerate(layers):
        x = o1.parameter([3, 4], NUMPY[element], name=f"x{i}")
        zeros, ones = np.zeros(2, np.int64), np.ones(2, np.int64)
        node = _reduce(op)(o1.strided_slice(x, zeros, zeros, ones, [1, 0], [1, 0]),
                           o1.constant(np.array([1], np.int64)), False)
        node.set_friendly_name(f"reduce{i}")
        params.append(x)
        results.append(o1.result(node, name=f"y{i}"))
        feed[f"x{i}"] = np.ones([3, 4], NUMPY[element])
    model = tmp_path / "integers.xml"
    ov.save_model(ov.Model(results, params, "integers"), str(model), compress_to_fp16=False)
    named = {d.loc.layer_name: d.message for d in ir_tools.check(model, openvino=False, target="2025.0")
             if d.code == "E-TARGET"}
    assert sorted(named) == ["reduce0", "reduce1", "reduce2"], named
    assert all("OpenVINO 2025.0 computes ReduceMax-1 and ReduceMin-1 of i16 over an axis of length 0 as -32768"
               in message and "the next release without this defect is 2025.4" in message
               for message in named.values()), named
    assert "no rewrite applies to this layer: the current OpenVINO gives 2^31" in named["reduce2"]
    assert not [d for d in ir_tools.check(model, openvino=False, target="2025.4") if d.code == "E-TARGET"]
    assert_refused(model, "reduce2", "ReduceMax-1 and ReduceMin-1 of i16", capsys, "2025.0")
    keep = ov.Model([results[i] for i in (0, 1, 3, 4)], [params[i] for i in (0, 1, 3, 4)], "integers")
    ov.save_model(keep, str(model), compress_to_fp16=False)
    out, printed = migrate(model, capsys, "2025.0")
    assert "rewrote 1 x ReduceMax-1 over an empty axis -> Const" in printed, printed
    assert "rewrote 1 x ReduceMin-1 over an empty axis -> Const" in printed, printed
    fed = {name: value for name, value in feed.items() if name != "x2"}
    if "2025.0" in side_pythons():
        assert assert_runs_equal(model, out, inputs=fed, releases=("2025.0",)) == 4
        from ir_tools.runtime.openvino import ModelFiles
        from ir_tools.runtime.runners import ChildOpenVinoRunner

        original = ChildOpenVinoRunner(side_pythons()["2025.0"], ir_tools.read_valid(model),
                                       ModelFiles(model, model.with_suffix(".bin"))).run(fed)
        assert original["y0"].tolist() == [-32768] * 3 and original["y1"].tolist() == [32767] * 3  # (the defect)
