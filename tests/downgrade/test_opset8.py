"""``migrate --target 2021.4``: opset8's new op versions (MaxPool-8, SoftMax-8, Gather-8) into the opset1-7 ones that
release creates, run on OpenVINO 2023.0 and the current one equal to the current OpenVINO on the original; what has
no such form (a dilation or indices read on f16 data, a fed axis) is refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from tests.downgrade.runs import NEEDS_2023
from tests.test_target import side_pythons

pytestmark = NEEDS_2023


def opset8_model(path: Path, rng: np.random.Generator, cases: int) -> Path:
    """Per case: a MaxPool-8 or -14 (no dilation, values only), a SoftMax-8 on a negative or positive axis and a
    Gather-8 with Const indices in [-dim, dim) on a drawn axis, each from its own Parameter."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8
    import openvino.opset14 as o14

    params, results = [], []
    for i in range(cases):
        rank = int(rng.integers(1, 3))
        kernel = [int(k) for k in rng.integers(1, 4, rank)]
        strides = [int(s) for s in rng.integers(1, 3, rank)]
        begin = [int(rng.integers(0, k)) for k in kernel]
        end = [int(rng.integers(0, k)) for k in kernel]
        x = o1.parameter([1, 2, *(int(n) for n in rng.integers(3, 9, rank))], np.float32, name=f"x{i}")
        pool = (o8.max_pool if i % 2 else o14.max_pool)(x, strides, [1] * rank, begin, end, kernel,
                                                        ("floor", "ceil")[i % 3 == 0], "explicit", name=f"pool{i}")
        axis = int(rng.integers(-rank - 2, rank + 2))
        soft = o8.softmax(x, axis, name=f"softmax{i}")
        gather_axis = int(rng.integers(1, rank + 2)) - (rank + 2) * int(rng.integers(0, 2))  # not the batch dim:
        # OpenVINO 2023.0 CPU fails ("Dims and format are inconsistent") on a Gather of a dim-1 axis whose indices
        # are [[0]], Gather-7 or -8 alike (2024.0 runs it)
        dim = x.get_partial_shape()[gather_axis].get_length()
        indices = rng.integers(-dim, dim, tuple(int(n) for n in rng.integers(1, 4, int(rng.integers(0, 3)))))
        gather = o8.gather(x, o1.constant(indices.astype((np.int32, np.int64)[i % 2])),
                           o1.constant(np.int64(gather_axis)), name=f"gather{i}")
        params.append(x)
        results += [o1.result(pool.output(0), name=f"p{i}"), o1.result(gather, name=f"g{i}"),
                    o1.result(soft, name=f"s{i}")]
    ov.save_model(ov.Model(results, params, "opset8"), str(path), compress_to_fp16=False)
    return path


def test_opset8_versions_migrated_for_2021_4_run_equal(tmp_path: Path, capsys) -> None:
    """120 seeded cases (40 pools, softmaxes and gathers): OUT holds only what 2021.4 creates, in IR v10, keeps
    its input and output names, and runs on the current OpenVINO equal to the original bit for bit; on 2023.0 the
    pools and gathers too, and each SoftMax within twice its rounding bound (each release within the bound of the
    exact value: their exp approximations differ)."""
    from ir_tools.ops.softmax import SOFTMAX_1, Softmax1Attrs
    from ir_tools.runtime.inputs import random_inputs
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    model = opset8_model(tmp_path / "opset8.xml", np.random.default_rng(11), 40)
    out = tmp_path / "opset8_2021.xml"
    assert main(["migrate", str(model), "--target", "2021.4", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    for rule in ("MaxPool-14 (floor) -> MaxPool-8", "MaxPool-8 (no dilation, indices unused) -> MaxPool-1",
                 "SoftMax-8 -> SoftMax-1", "Gather-8 -> Gather-7"):
        assert rule in printed, printed
    assert 'version="10"' in out.read_text()[:200]
    assert not [d for d in ir_tools.check(out, openvino=False, target="2021.4") if d.severity == "error"]
    graph, migrated = ir_tools.read_valid(model), ir_tools.read_valid(out)
    inputs = random_inputs(graph, 0, {})
    want = OpenVinoRunner(graph, ModelFiles(model, model.with_suffix(".bin"))).run(inputs)
    files = ModelFiles(out, out.with_suffix(".bin"))
    now = OpenVinoRunner(migrated, files).run(inputs)
    old = ChildOpenVinoRunner(side_pythons()["2023.0"], migrated, files).run(inputs)
    assert set(now) == set(old) == set(want) and len(want) == 120
    from ir_tools.ir.names import output_names

    named = output_names(migrated)
    producers = {named[r.id]: migrated.producer(r.id, r.inputs[0].id)[0] for r in migrated.results()}
    axes = {name: int(layer.attrs["axis"]) for name, layer in producers.items() if layer.is_a("SoftMax")}
    for name, value in want.items():
        np.testing.assert_array_equal(now[name], value, err_msg=name, strict=True)
        if not name.startswith("s"):
            np.testing.assert_array_equal(old[name], value, err_msg=name, strict=True)
            continue
        x = inputs[f"x{name[1:]}"]
        attrs = Softmax1Attrs(axes[name])
        exact = SOFTMAX_1.kernel(attrs, [x.astype(np.float64)])[0]
        bound = SOFTMAX_1.rounding(SOFTMAX_1.kernel, attrs, [x], [np.zeros(())], [exact])[0]
        assert (np.abs(old[name].astype(np.float64) - value) <= 2 * bound).all(), name


@pytest.mark.parametrize(("case", "label"), [("dilated", "MaxPool of opset8"), ("indices", "MaxPool of opset8"),
                                             ("indices14", "MaxPool of opset8"), ("fed_axis", "Gather of opset8"),
                                             ("softmax_dynamic_rank", "SoftMax of opset8")])
def test_what_2021_4_cannot_create_is_refused(case: str, label: str, tmp_path: Path, capsys) -> None:
    """Refused, saying that no rewrite applies to the layer (not that migrate rewrites it) and, for a MaxPool-14
    taken to MaxPool-8, what the file has (the refusal named MaxPool@opset8 alone, at a line saying opset14)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8
    import openvino.opset14 as o14

    # (a MaxPool of f16 data: MaxPoolTapsTo1 rewrites one of f32 with a dilation or its indices read)
    x = o1.parameter([1, 2, 6, 6], np.float32 if case in ("fed_axis", "softmax_dynamic_rank") else np.float16,
                     name="x")
    params = [x]
    if case == "fed_axis":
        params.append(o1.parameter([], np.int64, name="axis"))
        outs = [o8.gather(x, o1.constant(np.array([0, 5], np.int64)), params[1], name="layer")]
    elif case == "softmax_dynamic_rank":  # (a negative axis on a dynamic rank: it was E-PASS, an axis of -1 made)
        params = [o1.parameter(ov.PartialShape.dynamic(), np.float32, name="x")]
        outs = [o8.softmax(params[0], -1, name="layer")]
    else:
        pool = (o14 if case == "indices14" else o8).max_pool(
            x, [1, 1], [2, 2] if case == "dilated" else [1, 1], [0, 0], [0, 0], [2, 2], name="layer")
        outs = [pool.output(0), *([pool.output(1)] if case.startswith("indices") else [])]
    model = tmp_path / f"{case}.xml"
    ov.save_model(ov.Model(outs, params, case), str(model), compress_to_fp16=False)
    out = tmp_path / f"{case}_2021.xml"
    assert main(["migrate", str(model), "--target", "2021.4", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "error[E-TARGET]: layer 'layer'" in err and f"OpenVINO 2021.4 cannot create {label}" in err, err
    assert "no rewrite applies to this layer" in err and "(`ir-tools migrate --target` rewrites it into" in err, err
    assert ("rewrote it this far from MaxPool-14 (opset14) 'layer'" in err) == (case == "indices14"), err
    assert not out.exists()


def test_gathers_of_fed_indices_migrated_for_2021_4_run_equal(tmp_path: Path, capsys) -> None:
    """120 Gather-8 layers whose indices are fed, drawn in [-2 dim, 2 dim) (negative, outside the axis), i32 and
    i64, every fourth i32 converted into u32 (as torchvision's detectors index their boxes: read as the i32, a negative
    one from the end), batch_dims 0 or 1, on a static axis dim and on a dynamic one: Gather-7 after a Select, equal
    bit for bit on 2023.0 and current, and nothing ``check --target 2021.4`` calls an error (the Convert into u32,
    which a Select read, was one)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    from tests.downgrade.runs import assert_runs_equal

    rng = np.random.default_rng(13)
    params, results, inputs = [], [], {}
    for i in range(120):
        shape = [2, *(int(n) for n in rng.integers(2, 6, int(rng.integers(1, 3))))]
        batch = int(rng.integers(0, 2))
        axis = int(rng.integers(batch, len(shape)))
        dynamic = i % 3 == 0
        x = o1.parameter([-1 if dynamic else n for n in shape], np.float32, name=f"x{i}")
        dtype = (np.int64, np.int32)[i % 2]
        index_shape = [2, *(int(n) for n in rng.integers(1, 4, int(rng.integers(0, 2))))][1 - batch:]
        indices = o1.parameter(index_shape, dtype, name=f"i{i}")
        read = o1.convert(indices, "u32") if i % 4 == 1 else indices
        gather = o8.gather(x, read, o1.constant(np.int64(axis - len(shape) * int(rng.integers(0, 2)))), batch,
                           name=f"gather{i}")
        params += [x, indices]
        results.append(o1.result(gather, name=f"y{i}"))
        inputs[f"x{i}"] = rng.standard_normal(shape).astype(np.float32)
        inputs[f"i{i}"] = rng.integers(-2 * shape[axis], 2 * shape[axis], index_shape).astype(dtype)
    model = tmp_path / "fed.xml"
    ov.save_model(ov.Model(results, params, "fed"), str(model), compress_to_fp16=False)
    out = tmp_path / "fed_2021.xml"
    assert main(["migrate", str(model), "--target", "2021.4", "-o", str(out)]) == 0
    assert "rewrote 120 x Gather-8 -> Gather-7 (indices made non-negative by a Select)" in capsys.readouterr().out
    assert not [d for d in ir_tools.check(out, openvino=False, target="2021.4") if d.severity == "error"]
    assert assert_runs_equal(model, out, inputs=inputs) == 120


def test_gathers_migrated_for_opset6_run_equal(tmp_path: Path, capsys) -> None:
    """90 Gather-8 and Gather-7 layers (batch_dims 0, or -rank(indices) for a Gather-7), indices fed in [-2 dim,
    2 dim) or Const, migrated for opset6 (Gather-8 -> 7 -> 1): equal bit for bit on 2023.0 and current, and nothing
    ``check --target opset6`` calls an error; a Gather-7 of batch_dims 1 is refused saying why."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset7 as o7
    import openvino.opset8 as o8

    from tests.downgrade.runs import assert_runs_equal

    rng = np.random.default_rng(6)
    params, results, inputs = [], [], {}
    for i in range(90):
        shape = [int(n) for n in rng.integers(2, 6, int(rng.integers(1, 4)))]
        axis = int(rng.integers(0, len(shape)))
        x = o1.parameter([-1 if i % 3 == 0 else n for n in shape], np.float32, name=f"x{i}")
        index_shape = [int(n) for n in rng.integers(1, 4, int(rng.integers(0, 3)))]
        dtype = (np.int64, np.int32)[i % 2]
        drawn = rng.integers(-2 * shape[axis], 2 * shape[axis], index_shape).astype(dtype)
        if i % 5 == 0:
            indices = o1.constant(drawn)
        else:
            indices = o1.parameter(index_shape, dtype, name=f"i{i}")
            params.append(indices)
            inputs[f"i{i}"] = drawn
        written_axis = o1.constant(np.int64(axis - len(shape) * int(rng.integers(0, 2))))
        gather = o8.gather(x, indices, written_axis, name=f"gather{i}") if i % 2 else \
            o7.gather(x, indices, written_axis, -len(index_shape) if i % 4 == 0 else 0, name=f"gather{i}")
        params.append(x)
        results.append(o1.result(gather, name=f"y{i}"))
        inputs[f"x{i}"] = rng.standard_normal(shape).astype(np.float32)
    model = tmp_path / "gathers.xml"
    ov.save_model(ov.Model(results, params, "gathers"), str(model), compress_to_fp16=False)
    out = tmp_path / "gathers_opset6.xml"
    assert main(["migrate", str(model), "--target", "opset6", "-o", str(out)]) == 0
    assert "90 x Gather-7 -> Gather-1 (batch_dims 0)" in capsys.readouterr().out
    assert not [d for d in ir_tools.check(out, openvino=False, target="opset6") if d.severity == "error"]
    assert assert_runs_equal(model, out, inputs=inputs) == 90

    x, indices = o1.parameter([2, 3], np.float32, name="x"), o1.parameter([2, 1], np.int64, name="i")
    batched = tmp_path / "batched.xml"
    ov.save_model(ov.Model([o7.gather(x, indices, o1.constant(np.int64(1)), 1, name="batched")], [x, indices],
                           "batched"), str(batched))
    assert main(["migrate", str(batched), "--target", "opset6", "-o", str(tmp_path / "no.xml")]) == 2
    assert "its batch_dims is 1, and Gather-1 gathers along no batch dims" in capsys.readouterr().err
    assert not (tmp_path / "no.xml").exists()
