"""Newer op versions with their added attribute at its default, respelled as the older version: the migrated
file runs on OpenVINO 2023.0 and the current one equal to the current OpenVINO on the original, bit for bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ir_tools.cli import main
from tests.downgrade.runs import NEEDS_2023, assert_runs_equal

pytestmark = NEEDS_2023


def respell_model(path: Path, rng: np.random.Generator, cases: int) -> Path:
    """Per case: ScatterElementsUpdate-12 (reduction none, use_init_val drawn, indices >= 0), ROIAlign-9
    (asymmetric, avg or max) and OneHot-16 (ignore_negative, negative and out-of-range indices)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset9 as o9
    import openvino.opset12 as o12
    import openvino.opset16 as o16

    params, results = [], []
    for i in range(cases):
        data = o1.parameter([3, 4, 5], np.float32, name=f"data{i}")
        updates = o1.parameter([2, 4, 5], np.float32, name=f"updates{i}")
        axis = int(rng.integers(-3, 3))
        # none negative (2023.0's ScatterElementsUpdate-3), and no element written twice: which of two updates of one
        # element wins is OpenVINO's thread order (seen: 2 of 60 outputs differing on 2023.0 under load)
        extents = [2, 4, 5]
        extents[axis] = [3, 4, 5][axis]
        indices = np.argsort(rng.random(extents), axis=axis).take(range(2) if axis % 3 == 0 else
                                                                    range(extents[axis]), axis=axis)
        scatter = o12.scatter_elements_update(data, o1.constant(indices.astype(np.int32)), updates,
                                              o1.constant(np.int64(axis)), "none", bool(i % 2), name=f"scatter{i}")
        image = o1.parameter([2, 3, 8, 9], np.float32, name=f"image{i}")
        boxes = np.sort(rng.uniform(0, 8, (4, 2, 2)), axis=1).reshape(4, 4)[:, [0, 2, 1, 3]].astype(np.float32)
        roi = o9.roi_align(image, o1.constant(boxes), o1.constant(rng.integers(0, 2, 4).astype(np.int32)),
                           int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(0, 3)),
                           float(rng.uniform(0.25, 2)), ("avg", "max")[i % 2], "asymmetric", name=f"roi{i}")
        hot = o16.one_hot(o1.constant(rng.integers(-6, 7, (3, 2)).astype(np.int64)), o1.constant(np.int64(5)),
                          o1.constant(np.float32(2.5)), o1.constant(np.float32(-1)), int(rng.integers(-3, 3)),
                          "ignore_negative", name=f"hot{i}")
        params += [data, updates, image]
        results += [o1.result(scatter, name=f"s{i}"), o1.result(roi, name=f"r{i}"), o1.result(hot, name=f"h{i}")]
    ov.save_model(ov.Model(results, params, "respell"), str(path), compress_to_fp16=False)
    return path


def test_respelled_for_2021_4_run_equal(tmp_path: Path, capsys) -> None:
    """60 seeded layers migrated for 2021.4 (ROIAlign-9 needs it: 2023.0 has opset9): each respelled."""
    model = respell_model(tmp_path / "respell.xml", np.random.default_rng(5), 20)
    out = tmp_path / "respell_2021.xml"
    assert main(["migrate", str(model), "--target", "2021.4", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    for rule in ("20 x ScatterElementsUpdate-12 (reduction none) -> ScatterElementsUpdate-3",
                 "20 x ROIAlign-9 (aligned_mode asymmetric) -> ROIAlign-3",
                 "20 x OneHot-16 (negative_indices_mode ignore_negative) -> OneHot-1"):
        assert rule in printed, printed
    assert assert_runs_equal(model, out) == 60


def negative_indices_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """Per case: ScatterNDUpdate-15 and ScatterElementsUpdate-12 (reduction none) with negative indices, a Const of
    them and an input (so a Select), on static and dynamic data; and the inputs, no element written twice (which of
    two updates wins is OpenVINO's thread order)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset12 as o12
    import openvino.opset15 as o15

    params, results, inputs = [], [], {}
    for i in range(cases):
        dynamic = bool(i % 2)
        data = o1.parameter([-1, -1, 3] if dynamic else [4, 5, 3], np.float32, name=f"data{i}")
        inputs[f"data{i}"] = rng.standard_normal((4, 5, 3)).astype(np.float32)
        rows = rng.permutation(20)[:6]  # distinct (row, column) pairs of the [4, 5] leading dims
        tuples = np.stack([rows // 5 - 4 * (rng.random(6) < 0.5), rows % 5 - 5 * (rng.random(6) < 0.5)], -1)
        updates = o1.constant(rng.standard_normal((6, 3)).astype(np.float32))
        const_nd = o15.scatter_nd_update(data, o1.constant(tuples.astype(np.int64)), updates, "none",
                                         name=f"nd_const{i}")
        fed = o1.parameter([6, 2], np.int32, name=f"tuples{i}")
        inputs[f"tuples{i}"] = tuples[::-1].astype(np.int32).copy()
        fed_nd = o15.scatter_nd_update(data, fed, updates, "none", name=f"nd_fed{i}")
        axis = int(rng.integers(-3, 3))
        extent = [4, 5, 3][axis]
        order = np.argsort(rng.random((4, 5, 3)), axis=axis).take(range(2), axis=axis)  # distinct along the axis
        negative = order - extent * (rng.random(order.shape) < 0.5)
        elements = [o12.scatter_elements_update(data, indices, o1.constant(rng.standard_normal(order.shape).astype(
            np.float32)), o1.constant(np.int64(axis)), "none", False, name=f"el{kind}{i}")
            for kind, indices in (("_const", o1.constant(negative.astype(np.int64))),
                                  ("_fed", o1.parameter(list(order.shape), np.int64, name=f"el_indices{i}")))]
        inputs[f"el_indices{i}"] = negative.astype(np.int64)
        params += [data, fed, elements[1].input_value(1).get_node()]
        results += [o1.result(op, name=op.get_friendly_name() + "_out") for op in (const_nd, fed_nd, *elements)]
    ov.save_model(ov.Model(results, params, "negative"), str(path), compress_to_fp16=False)
    return path, inputs


def test_negative_indices_are_made_non_negative_for_2023_0(tmp_path: Path, capsys) -> None:
    """2023.0's ScatterNDUpdate-3 crashed ("double free or corruption") or wrote another row on a negative index, and
    its ScatterElementsUpdate-3 refuses one: 40 seeded layers of each form run equal there, Const indices made a new
    Const and fed ones a Select, on static and dynamic data."""
    from tests.downgrade.runs import migrate

    model, inputs = negative_indices_model(tmp_path / "negative.xml", np.random.default_rng(11), 10)
    out, printed = migrate(model, capsys)
    for rule in ("20 x ScatterNDUpdate-15 (reduction none) -> ScatterNDUpdate-3",
                 "20 x ScatterElementsUpdate-12 (reduction none) -> ScatterElementsUpdate-3"):
        assert rule in printed, printed
    assert assert_runs_equal(model, out, inputs=inputs) == 40


def test_a_reduction_is_refused(tmp_path: Path, capsys) -> None:
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset12 as o12

    from tests.downgrade.runs import assert_refused

    data = o1.parameter([3, 2], np.int32, name="data")
    scatter = o12.scatter_elements_update(data, o1.constant(np.array([[1, 0]], np.int32)),
                                          o1.constant(np.ones((1, 2), np.int32)), o1.constant(np.int64(0)),
                                          "mean", name="scatter")  # (sum, and mean of f32: scatter_loop's Loop)
    model = tmp_path / "summed.xml"
    ov.save_model(ov.Model([scatter], [data], "summed"), str(model), compress_to_fp16=False)
    assert_refused(model, "scatter", "ScatterElementsUpdate of opset12", capsys)


def normalize_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """Per case, a OneHot-16 with negative_indices_mode normalize: indices i32 or i64 of rank 0 to 3 (a Parameter,
    its dims dynamic in half of them, or a Const in a fifth), depth 1 to 6 (a Const or a scalar Parameter, i32 or
    i64, its type the indices' or the other), on and off values of f32, i32 or f16, an axis drawn; indices drawn in
    [-depth - 2, depth + 2], each of -depth - 1, -depth, -1, depth and depth + 1 among them; and the inputs."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset16 as o16

    params, results, inputs = [], [], {}
    for i in range(cases):
        kind = (np.int32, np.int64)[i % 2]
        depth = int(rng.integers(1, 7))
        shape = [int(n) for n in rng.integers(1, 5, int(rng.integers(0, 4)))]
        edges = np.array([-depth - 1, -depth, -1, depth, depth + 1])
        values = rng.integers(-depth - 2, depth + 3, shape)
        if values.size >= 5:
            values.reshape(-1)[rng.permutation(values.size)[:5]] = edges
        values = values.astype(kind)
        fed_depth = i % 3 == 0 and bool(shape) and i % 5 != 4  # (OpenVINO CPU refuses a fed depth beside scalar or
        # Const indices, OneHot-1 and -16 alike: "incorrect number of input/output dimensions")
        if i % 5 == 4:
            indices = o1.constant(values)
        else:
            indices = o1.parameter([-1] * len(shape) if i % 4 < 2 else shape, kind, name=f"indices{i}")
            params.append(indices)
            inputs[f"indices{i}"] = values
        depth_kind = (kind, np.int32 if kind == np.int64 else np.int64)[int(rng.integers(0, 2))]
        if fed_depth:
            fed = o1.parameter([], depth_kind, name=f"depth{i}")
            params.append(fed)
            inputs[f"depth{i}"] = np.array(depth, depth_kind)
        else:
            fed = o1.constant(np.array(depth, depth_kind))
        value_kind = (np.float32, np.int32, np.float16)[i % 3]
        on, off = (o1.constant(np.array(v, value_kind)) for v in rng.integers(-9, 10, 2))
        hot = o16.one_hot(indices, fed, on, off, int(rng.integers(-len(shape) - 1, len(shape) + 1)), "normalize",
                          name=f"hot{i}")
        results.append(o1.result(hot, name=f"h{i}"))
    ov.save_model(ov.Model(results, params, "normalize"), str(path), compress_to_fp16=False)
    return path, inputs


def test_one_hot_normalize_is_one_hot_1_after_a_select_and_runs_equal(tmp_path: Path, capsys) -> None:
    """240 seeded OneHot-16 layers with normalize (it was refused: only ignore_negative was respelled): OneHot-1 fed
    the indices plus depth where negative, exactly equal on 2023.0 and the current OpenVINO, indices at -depth - 1,
    -depth, -1, depth and depth + 1 (a row all off below -depth and from depth on, as OneHot-16 gives), on static and
    dynamic index shapes, depth fed or a Const."""
    import ir_tools
    from tests.downgrade.runs import migrate

    model, inputs = normalize_model(tmp_path / "normalize.xml", np.random.default_rng(23), 240)
    said = {d.message.split("; ", 2)[-1] for d in ir_tools.check(model, openvino=False, target="2023.0")
            if d.code == "E-TARGET"}
    assert said == {"`ir-tools migrate --target` rewrites it into OneHot-1 where negative_indices_mode is "
                    "ignore_negative, or normalize (its negative indices plus depth first, where depth is a "
                    "scalar)"}, said
    out, printed = migrate(model, capsys)
    assert "240 x OneHot-16 (negative_indices_mode normalize) -> OneHot-1" in printed, printed
    assert assert_runs_equal(model, out, inputs=inputs) == 240


def test_a_flag_spelled_as_openvino_skips_it_is_read_as_its_default(tmp_path: Path, capsys) -> None:
    """Squeeze-15's allow_axis_skip written " true": OpenVINO's reader skips it for the default, false (the layer
    squeezes its dynamic axis), so it is Squeeze-1 for 2023.0. Read stripped (as before), it was true, and the layer,
    whose axis is dynamic, was refused."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    from tests.downgrade.runs import migrate

    x = o1.parameter([2, -1, 3], np.float32, name="x")
    squeezed = o15.squeeze(x, o1.constant(np.array([1], np.int64)), allow_axis_skip=False, name="squeeze")
    model = tmp_path / "skipped.xml"
    ov.save_model(ov.Model([o1.result(squeezed, name="y")], [x], "skipped"), str(model), compress_to_fp16=False)
    model.write_text(model.read_text().replace('allow_axis_skip="false"', 'allow_axis_skip=" true"'))
    assert not next(n for n in ov.Core().read_model(model).get_ops()
                    if n.get_friendly_name() == "squeeze").get_attributes()["allow_axis_skip"]
    out, printed = migrate(model, capsys)
    assert "rewrote 1 x Squeeze-15 (allow_axis_skip false) -> Squeeze-1" in printed, printed
    assert assert_runs_equal(model, out, inputs={"x": np.arange(6, dtype=np.float32).reshape(2, 1, 3)}) == 1
