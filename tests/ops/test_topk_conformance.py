"""TopK-1, TopK-3 and TopK-11 (ops/topk.py) against OpenVINO: shape rules and CPU kernels.

Kernels: 600 seeded cases (f32 with many ties and NaN, f16, i32, i64 within i32's range, i8 and u8 data of rank 1 to
4, rows of up to 2,000 elements; every axis positive and negative; k from 1 to the row's length; both modes, every
sort, both index types, the three versions and TopK-11 stable or not) batched into one model per 200, k a Const, and
compiled once per model for OpenVINO CPU: both outputs must be OpenVINO's bit for bit (ties by index, NaN largest:
the module doc). Shape rules: 400 seeded nodes on Parameters (partial shapes and dynamic ranks, scalar data, k of
rank 0 or 1, of i32, i64, u8, f32 or dynamic type, known or not, every axis in and out of range) must give our rule's
output, or both refuse (ours declines where k is unknown). ``check_versions``: TopK-1 in opset1..2, TopK-3 in
opset3..10, TopK-11 in opset11..16.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset3 as ops3
import openvino.opset11 as ops11
import pytest

from ir_tools.ops import attrs as A
from ir_tools.ops.opsets import lookup
from ir_tools.ops.rounding import EXACT, is_exact

from .conformance import (
    ELEMENTS,
    Case,
    assert_all_pass,
    assert_compare_passes,
    check_versions,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    random_bounds,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 1111
DTYPES = (np.float32, np.float16, np.int32, np.int64, np.int8, np.uint8)
VERSIONS = {1: "opset1", 3: "opset3", 11: "opset11"}


def build(version: int, axis: int, mode: str, sort: str, index_type: str, stable: bool):
    if version == 1:
        return lambda p: ops1.topk(p[0], p[1], axis, mode, sort)
    if version == 3:
        return lambda p: ops3.topk(p[0], p[1], axis, mode, sort, index_type)
    return lambda p: ops11.topk(p[0], p[1], axis, mode, sort, index_type, stable)


def data(rng: np.random.Generator, dtype: type, shape: list[int]) -> np.ndarray:
    if np.dtype(dtype).kind in "iu":
        if rng.random() < 0.5:  # many ties
            return rng.integers(0, 4, shape).astype(dtype)
        info = np.iinfo(np.int32 if dtype is np.int64 else dtype)  # CPU holds i64 as i32
        return rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
    if rng.random() < 0.5:
        x = rng.integers(-3, 4, shape).astype(dtype)  # many ties
    else:
        x = rng.standard_normal(shape).astype(dtype)
    return x


def topk_case(rng: np.random.Generator, dtype: type) -> Case:
    rank = int(rng.integers(1, 5))
    shape = [int(n) for n in rng.integers(1, 6, rank)]
    axis = int(rng.integers(-rank, rank))
    if rng.random() < 0.2:
        shape[axis] = int(rng.integers(20, 2000 if rank == 1 else 200))
    n = shape[axis]
    k = int(rng.integers(1, n + 1)) if rng.random() < 0.7 else int(pick(rng, [1, n, min(n, 2)]))
    version = int(pick(rng, [1, 3, 11, 11]))
    mode, sort = pick(rng, ["max", "min"]), pick(rng, ["value", "index", "none"])
    stable = version == 11 and sort != "none" and rng.random() < 0.5
    index_type = "i32" if version == 1 else pick(rng, ["i32", "i64"])
    x = data(rng, dtype, shape)
    what = (f"TopK-{version} {x.dtype}{shape} axis {axis} k {k} {mode} sort {sort} {index_type} stable {stable}")
    inputs = [x, np.array(k, pick(rng, [np.int32, np.int64]))]
    raw = {"axis": str(axis), "mode": mode, "sort": sort}
    if version != 1:
        raw["index_element_type"] = index_type
    if version == 11:
        raw["stable"] = str(stable).lower()
    spec = lookup("TopK", VERSIONS[version])
    attrs = A.decode(spec.attrs, raw)
    bounds = spec.rounding(spec.kernel, attrs, inputs, [EXACT, EXACT], spec.kernel(attrs, inputs))
    limits = tuple((lambda w, b=b: np.broadcast_to(b, w.shape)) if not is_exact(b) else None for b in bounds)
    return Case(what, inputs, build(version, axis, mode, sort, index_type, stable), limits, consts=(1,))


def topk_cases(rng: np.random.Generator, n: int) -> list[Case]:
    return [topk_case(rng, DTYPES[i % len(DTYPES)]) for i in range(n)]


@pytest.mark.parametrize("part", range(3))
def test_values_and_indices_bit_equal(part: int, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, part])
    assert_all_pass(topk_cases(rng, 200), tmp_path)


def test_shape_rules_agree() -> None:
    rng = np.random.default_rng([SEED, 9])
    cases = []
    for _ in range(400):
        version = int(pick(rng, [1, 3, 11]))
        rank = int(rng.integers(0, 5))
        lengths = [int(n) for n in rng.integers(1, 8, rank)]
        shape = None if rng.random() < 0.1 else random_bounds(rng, lengths)
        axis = int(rng.integers(-rank - 1, rank + 1))
        mode, sort = pick(rng, ["max", "min"]), pick(rng, ["value", "index", "none"])
        stable = version == 11 and rng.random() < 0.5
        index_type = "i32" if version == 1 else pick(rng, ["i32", "i64"])
        k_type = pick(rng, ["i64", "i64", "i32", "u8", "f32", None])
        k_shape = pick(rng, [(), (), ((1, 1),)])
        k_value = int(rng.integers(0, 9)) if rng.random() < 0.7 and k_type in ("i32", "i64", "u8") and \
            k_shape == () else None
        element = pick(rng, ["f32", "f16", "i32", "boolean", None])

        def theirs(version=version, shape=shape, axis=axis, mode=mode, sort=sort, stable=stable,
                   index_type=index_type, k_type=k_type, k_shape=k_shape, k_value=k_value, element=element):
            x = ops1.parameter(partial_shape(shape), ELEMENTS[element])
            k = (ops1.constant(np.array(k_value, np.dtype({"i64": np.int64, "i32": np.int32, "u8": np.uint8}[k_type])))
                 if k_value is not None else ops1.parameter(partial_shape(k_shape), ELEMENTS[k_type]))
            return openvino_outcome(lambda: build(version, axis, mode, sort, index_type, stable)([x, k]))

        def ours(version=version, shape=shape, axis=axis, mode=mode, sort=sort, stable=stable,
                 index_type=index_type, k_type=k_type, k_shape=k_shape, k_value=k_value, element=element):
            raw = {"axis": str(axis), "mode": mode, "sort": sort}
            if version != 1:
                raw["index_element_type"] = index_type
            if version == 11:
                raw["stable"] = str(stable).lower()
            value = None if k_value is None else np.array(k_value)
            return our_outcome("TopK", VERSIONS[version], raw, tensor_types([element, k_type], [shape, k_shape]),
                               [None, value])

        cases.append((f"TopK-{version} {element}{show(shape)} axis {axis} {mode} {sort} stable {stable} k {k_type}"
                      f"{show(k_shape)}={k_value}", theirs, ours))
    failures = [f for f in _compare(cases) if "ours declines" not in f or "rejects" in f.split(", ours")[0]]
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])


def _compare(cases) -> list[str]:
    from .conformance import compare_shapes

    return compare_shapes(cases)


def test_opsets(tmp_path: Path) -> None:
    p = ops1.parameter([4, 3], np.float32)
    k = ops1.constant(np.int64(2))
    nodes = {"TopK": ops11.topk(p, k, 0, "max", "value", "i32", False)}
    assert check_versions(nodes, [p], tmp_path) == []


def test_compare_checks_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A detection head's score selection (MatMul -> TopK-11 -> both outputs) compared end to end and per layer (TopK
    was not checked, the model's outputs not compared)."""

    rng = np.random.default_rng(4)
    x = ops11.parameter([2, 16], np.float32, name="x")
    scores = ops11.matmul(x, ops11.constant(rng.standard_normal((16, 100)).astype(np.float32)), False, False)
    top = ops11.topk(scores, ops11.constant(np.int64(5)), -1, "max", "value", "i64", True)
    xml = tmp_path / "topk.xml"
    ov.save_model(ov.Model([ops11.result(top.output(0)), ops11.result(top.output(1))], [x], "topk"), xml)
    assert_compare_passes(xml, capsys, {"TopK@opset11"}, outputs=2)


def test_what_cpu_does_not_determine_has_no_bound() -> None:
    """Rows of [k = 2 of 4]: one with NaN (no bound), one whose 2nd and 3rd values tie (values and indices free), one
    whose two chosen values tie (indices free unless stable), one without ties (exact)."""
    x = np.array([[1, np.nan, 3, 2], [5, 4, 4, 1], [7, 7, 1, 0], [4, 3, 2, 1]], np.float32)
    k = np.array(2, np.int64)
    for stable, free_indices in ((False, [True, True, True, False]), (True, [True, True, False, False])):
        spec = lookup("TopK", "opset11")
        attrs = A.decode(spec.attrs, {"axis": "1", "mode": "max", "sort": "value", "stable": str(stable).lower()})
        values, indices = spec.rounding(spec.kernel, attrs, [x, k], [EXACT, EXACT], spec.kernel(attrs, [x, k]))
        assert np.isinf(values[:, 0]).tolist() == [True, True, False, False]
        assert np.isinf(indices[:, 0]).tolist() == free_indices
