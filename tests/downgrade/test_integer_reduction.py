"""ReduceMean of integers for a release that rounds it where the current OpenVINO truncates
(``reduce_integers_otherwise``: 2023.0 to 2024.3; passes/downgrade/integer_reduction.py): rewritten into ReduceSum-1,
Divide-1 in f32 and Convert-1, which the release computes as the current OpenVINO computes the original, bit for bit;
the others named and refused (tests/downgrade/test_release_defects.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from tests.test_target import side_pythons

pytestmark = pytest.mark.openvino

#: (input shape, axes, keep_dims) of each ReduceMean: one axis or two, negative, the scalar out.
_CASES = (([300, 5], [1], False), ([4, 6, 7], [1, 2], True), ([50, 3, 2], [0], False), ([9, 8], [-1], True),
          ([7], [0], False), ([40, 3], [1], False))


def _means(path: Path) -> dict[str, np.ndarray]:
    """ReduceMean of i8 and u8 over the full range, and of i32 converted from i16 (bound within 2^24), for each of
    ``_CASES``, seeded: 1,080 output values from 6,501 input values."""
    import openvino as ov
    import openvino.opset1 as o1

    rng = np.random.default_rng(5)
    params, results, feed = [], [], {}
    for dtype in (np.int8, np.uint8, np.int16):
        info = np.iinfo(dtype)
        for i, (shape, axes, keep) in enumerate(_CASES):
            name = f"x_{np.dtype(dtype).name}_{i}"
            x = o1.parameter(shape, dtype, name=name)
            params.append(x)
            feed[name] = rng.integers(info.min, int(info.max) + 1, shape).astype(dtype)
            data = o1.convert(x, np.int32) if dtype == np.int16 else x
            results.append(o1.result(o1.reduce_mean(data, o1.constant(np.array(axes, np.int64)), keep),
                                     name=f"y_{name}"))
    ov.save_model(ov.Model(results, params, "means"), path)
    return feed


@pytest.mark.parametrize("target", ["2023.0", "2024.0"])
def test_integer_means_are_rewritten_exactly(tmp_path: Path, target: str) -> None:
    """The original on the current OpenVINO, the rewrite on the release and on the current one: equal, every value;
    the original on the release differs (it rounds: -20082.6 gives -20083)."""
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    model, out = tmp_path / "means.xml", tmp_path / "migrated.xml"
    feed = _means(model)
    assert [d for d in ir_tools.check(model, openvino=False, target=target) if d.code == "E-TARGET"] != []
    assert main(["migrate", str(model), "--target", target, "-o", str(out)]) == 0
    migrated = ir_tools.read_valid(out)
    assert {layer.type for layer in migrated.layers()} >= {"ReduceSum", "Divide"}
    assert "ReduceMean" not in {layer.type for layer in migrated.layers()}
    assert not [d for d in ir_tools.check(out, openvino=False, target=target) if d.code == "E-TARGET"]
    original = ir_tools.read_valid(model)
    files, moved = ModelFiles(model, model.with_suffix(".bin")), ModelFiles(out, out.with_suffix(".bin"))
    want = OpenVinoRunner(original, files).run(feed)
    assert sum(v.size for v in want.values()) == 1080
    for got in (OpenVinoRunner(migrated, moved).run(feed),
                *([ChildOpenVinoRunner(side_pythons()[target], migrated, moved).run(feed)]
                  if target in side_pythons() else [])):
        for name, value in want.items():
            assert got[name].dtype == value.dtype and np.array_equal(got[name], value), name
    if target in side_pythons():
        old = ChildOpenVinoRunner(side_pythons()[target], original, files).run(feed)
        assert any(not np.array_equal(old[name], value) for name, value in want.items())


def test_unbounded_and_other_types_are_left(tmp_path: Path) -> None:
    """A ReduceMean of i32 whose values may sum beyond 2^24 (a Parameter), and one of i16 (whose sum the release
    computes otherwise too), are named with why, and ``migrate --target`` refuses them."""
    import openvino as ov
    import openvino.opset1 as o1

    axis = o1.constant(np.array([1], np.int64))
    params = [o1.parameter([4, 5], t, name=f"x_{np.dtype(t).name}") for t in (np.int32, np.int16)]
    model = tmp_path / "left.xml"
    ov.save_model(ov.Model([o1.result(o1.reduce_mean(p, axis, False)) for p in params], params, "left"), model)
    found = sorted(d.message.split("no rewrite applies to this layer: ")[1].split(" (`")[0]
                   for d in ir_tools.check(model, openvino=False, target="2024.0") if d.code == "E-TARGET")
    assert found == ["its i32 values may sum beyond 2^24, which the current OpenVINO sums otherwise (in f32, in an "
                     "order of its own)", "no exact form of its mean of i16 is built: the release computes its sum "
                     "otherwise too"]
    assert main(["migrate", str(model), "--target", "2024.0", "-o", str(tmp_path / "out.xml")]) == 2
    assert not (tmp_path / "out.xml").exists()


def test_a_product_of_dims_converted_into_i32_is_written_as_it_is(tmp_path: Path) -> None:
    """CLIP's text model (the PyTorch frontend's ``aten::index``) multiplies a ShapeOf's dims converted into i32: a
    product of dims as ``counts_elements`` takes one (W-TARGET, written as it is), where ``check --target 2024.0``
    refused it and ``migrate`` wrote nothing (found on a tiny CLIP text model, which migrated runs on 2023.0 and
    2024.0 equal to the current OpenVINO); a Convert of other values into i32 (of f32) stays refused."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset3 as o3
    import openvino.opset8 as o8

    x = o1.parameter([-1, -1, 8], np.float32, name="x")
    dims = o8.gather(o3.shape_of(x, "i64"), o1.constant(np.array([0, 1], np.int64)), o1.constant(np.array(0)))
    axis = o1.constant(np.array(0, np.int32))
    counted = o1.reduce_prod(o1.convert(dims, "i32"), axis, False)
    values = o1.reduce_prod(o1.convert(o1.reshape(x, o1.constant(np.array([-1], np.int64)), False), "i32"), axis, False)
    model = tmp_path / "dims.xml"
    ov.save_model(ov.Model([o1.result(counted, name="count"), o1.result(values, name="product")], [x], "dims"), model)
    found = {(d.code, ir_tools.read_ir(model).layer(d.loc.layer_id).inputs[0].dims)
             for d in ir_tools.check(model, openvino=False, target="2024.0")
             if d.code.endswith("-TARGET") and "on this integer type otherwise" in d.message}
    assert found == {("W-TARGET", (2,)), ("E-TARGET", (-1,))}, found
    ov.save_model(ov.Model([o1.result(counted, name="count")], [x], "dims"), model)
    assert main(["migrate", str(model), "--target", "2024.0", "-o", str(tmp_path / "out.xml")]) == 0
