"""ScatterUpdate-3 (ops/scatter.py) against OpenVINO: shape rule and CPU kernel.

Kernel: 400 seeded cases (f32 with NaN and -0, f16, i32, i64 within i32's range, i8, u8 and boolean data of rank 1 to
4; every axis, positive and negative, i32 and i64, scalar or of one element; indices i32 or i64 of rank 1 or 2, as CPU
compiles no scalar ones; half the cases with duplicate indices, some with 10 to 40 updates of a few slices; empty
indices) batched into one model, indices fed as Parameters, compiled once for OpenVINO CPU: every output must be
OpenVINO's bit for bit (the rounding rule moves values: exact). Duplicate indices carry equal updates: the order they
are written in is undefined (the specification; the CPU's threads wrote another one last under CI's load), and the
kernel writes the last. Shape
rule: 500 seeded nodes on Parameters (partial shapes and dynamic ranks of data, indices and updates, updates of the
right or a wrong rank or dim, the axis known or not, in range or not, of shape [], [1], [2] or [1,1]; element types
of indices and axis integral, f32, boolean or dynamic, of updates another than data's) must give our rule's output,
or both refuse. ``check_versions``: opset3..16 read ScatterUpdate-3.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset3 as ops3
import pytest

from .conformance import (
    ELEMENTS,
    Case,
    assert_all_pass,
    assert_compare_passes,
    assert_shapes_agree,
    check_versions,
    equal_duplicates,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    random_bounds,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 3131
DTYPES = (np.float32, np.float16, np.int32, np.int64, np.int8, np.uint8, np.bool_)


def values(rng: np.random.Generator, dtype: type, shape: list[int]) -> np.ndarray:
    if dtype is np.bool_:
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(np.int32 if dtype is np.int64 else dtype)  # CPU holds i64 as i32
        return rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
    x = rng.standard_normal(shape).astype(dtype)
    x[rng.random(shape) < 0.05] = np.nan
    x[rng.random(shape) < 0.05] = -0.0
    return x


def scatter_update_case(rng: np.random.Generator, dtype: type) -> Case:
    rank = int(rng.integers(1, 5))
    data = [int(n) for n in rng.integers(1, 5, rank)]
    axis = int(rng.integers(-rank, rank))
    n = data[axis]
    index_shape = [int(d) for d in rng.integers(1, 4, int(rng.integers(1, 3)))]  # CPU compiles no scalar indices
    if rng.random() < 0.15:
        index_shape = [int(rng.integers(10, 40))]  # many updates of a few slices
    if rng.random() < 0.05:
        index_shape = [0]
    count = int(np.prod(index_shape))
    if rng.random() < 0.5 or count > n:  # duplicates
        flat = rng.integers(0, n, count)
    else:
        flat = rng.choice(n, count, replace=False)
    idx = flat.reshape(index_shape).astype(pick(rng, [np.int32, np.int64]))
    a = axis % rank
    upd_shape = data[:a] + index_shape + data[a + 1:]
    x, upd = values(rng, dtype, data), values(rng, dtype, upd_shape)
    equal_duplicates(upd, flat.reshape(index_shape), a)
    axis_value = np.array(axis if rng.random() < 0.7 else [axis], pick(rng, [np.int32, np.int64]))
    what = f"ScatterUpdate {x.dtype}{data} axis {axis_value.tolist()} indices {idx.dtype}{idx.tolist()}"
    return Case(what, [x, idx, upd, axis_value], lambda p: ops3.scatter_update(*p), consts=(3,), bits=True)


def scatter_update_cases(rng: np.random.Generator, n: int) -> list[Case]:
    return [scatter_update_case(rng, DTYPES[i % len(DTYPES)]) for i in range(n)]


def test_values_bit_equal(tmp_path: Path) -> None:
    rng = np.random.default_rng(SEED)
    assert_all_pass(scatter_update_cases(rng, 400), tmp_path)


def test_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 1])
    cases = []
    for _ in range(500):
        rank = int(rng.integers(0, 4))
        data = [int(n) for n in rng.integers(1, 5, rank)]
        index = [int(n) for n in rng.integers(1, 4, int(rng.integers(0, 3)))]
        axis = int(rng.integers(-rank - 1, rank + 1)) if rank else 0
        a = axis % rank if rank and -rank <= axis < rank else 0
        upd = data[:a] + index + data[a + 1:]
        if rng.random() < 0.2 and upd:
            upd[int(rng.integers(len(upd)))] += 1
        if rng.random() < 0.1:
            upd = upd[:-1] if upd else [2]
        shapes = [None if rng.random() < 0.1 else random_bounds(rng, s) for s in (data, index, upd)]
        axis_shape = pick(rng, [(), (), ((1, 1),), ((2, 2),), ((1, 1), (1, 1)), ((0, None),)])
        known = rng.random() < 0.6 and axis_shape in ((), ((1, 1),))
        element = pick(rng, ["f32", "i32", "boolean", None])
        elements = [element, pick(rng, ["i32", "i64", "i64", "u8", "f32", "boolean", None]),
                    element if rng.random() < 0.85 else pick(rng, ["f16", None]),
                    pick(rng, ["i32", "i64", "i64", "f32", None])]
        axis_value = np.array(axis, np.int64).reshape([1] * len(axis_shape)) if known else None
        if known and elements[3] not in ("i32", "i64"):
            elements[3] = "i64"

        def theirs(shapes=shapes, elements=elements, axis_shape=axis_shape, axis_value=axis_value):
            ps = [ops3.parameter(partial_shape(s), ELEMENTS[e]) for s, e in zip(shapes, elements[:3], strict=True)]
            axis_node = (ops3.constant(axis_value.astype(np.dtype(elements[3].replace("i", "int"))))
                         if axis_value is not None else
                         ops3.parameter(partial_shape(axis_shape), ELEMENTS[elements[3]]))
            return openvino_outcome(lambda: ops3.scatter_update(*ps, axis_node))

        def ours(shapes=shapes, elements=elements, axis_shape=axis_shape, axis_value=axis_value):
            return our_outcome("ScatterUpdate", "opset3", {}, tensor_types(elements, [*shapes, axis_shape]),
                               [None, None, None, axis_value])

        cases.append((f"ScatterUpdate {elements} {[show(s) for s in shapes]} axis {show(axis_shape)} "
                       f"{None if axis_value is None else axis_value.tolist()}", theirs, ours))
    assert_shapes_agree(cases)


def test_opsets(tmp_path: Path) -> None:
    p = ops3.parameter([4, 3], np.float32)
    node = ops3.scatter_update(p, ops3.constant(np.array([1, 2], np.int64)), ops3.constant(np.ones((2, 3), np.float32)),
                               ops3.constant(np.int64(0)))
    assert check_versions({"ScatterUpdate": node}, [p], tmp_path) == []


def test_compare_checks_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A KV-cache style update (rows of a cache replaced at positions given as an input, then Relu) compared end to end
    and per layer, the positions seeded within the cache's rows (ScatterUpdate was not checked before)."""

    cache = ops3.parameter([2, 16, 8], np.float32, name="cache")
    positions = ops3.parameter([3], np.int64, name="positions")
    new = ops3.parameter([2, 3, 8], np.float32, name="new")
    y = ops3.relu(ops3.scatter_update(cache, positions, new, ops3.constant(np.int64(-2))))
    xml = tmp_path / "scatter.xml"
    ov.save_model(ov.Model([ops3.result(y)], [cache, positions, new], "scatter"), xml)
    assert_compare_passes(xml, capsys, {"ScatterUpdate@opset3"}, outputs=1)


def test_any_index_on_data_of_no_element_is_openvinos(tmp_path: Path) -> None:
    """CPU gives data of no element back whatever the indices (-1, 5: measured on 2026.4); the kernel refused them as
    out of [0, -1] (E-OP), where it refuses them on data with elements as CPU does."""
    from ir_tools.cli import main

    data = ops3.parameter([-1, -1], np.float32, name="data")
    indices = ops3.parameter([2], np.int64, name="indices")
    updates = ops3.parameter([-1, -1], np.float32, name="updates")
    out = ops3.scatter_update(data, indices, updates, ops3.constant(np.int64(0)))
    xml = tmp_path / "scatter.xml"
    ov.save_model(ov.Model([ops3.result(out)], [data, indices, updates], "scatter"), xml)
    compiled = ov.Core().compile_model(xml, "CPU")
    for shape, fed, width in (((0, 3), [-1, 5], 3), ((2, 0), [-1, -7], 0)):
        given = {"data": np.ones(shape, np.float32), "indices": np.array(fed),
                 "updates": np.full((2, width), 7, np.float32)}
        assert compiled(given)[0].shape == shape
        np.savez(tmp_path / "given.npz", **given)
        assert main(["compare", str(xml), "--inputs", str(tmp_path / "given.npz"), "-q"]) == 0
    given = {"data": np.ones((2, 3), np.float32), "indices": np.array([-1, 0]), "updates": np.ones((2, 3), np.float32)}
    with pytest.raises(RuntimeError, match="non-existing output tensor element"):
        compiled(given)
    np.savez(tmp_path / "refused.npz", **given)
    assert main(["compare", str(xml), "--inputs", str(tmp_path / "refused.npz"), "-q"]) == 2
