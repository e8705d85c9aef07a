"""GatherND-5 and GatherND-8 (ops/gather.py) against OpenVINO: shape rules and CPU kernels.

Kernels: 360 seeded cases (f32, f16 and i32 data, i32 and i64 indices, negative ones included,
batch_dims 0 to 2, both versions) in three models compiled once each for OpenVINO CPU; values must
be within the rounding rule's bound alone (``moves``: exact). Shape rules: 600 seeded nodes on
Parameters of partial shapes (static, dynamic, interval and unbounded dims, dynamic ranks, ranks
too small for batch_dims, index tuples too long, batch dims that differ, indices of float, boolean,
u8 and dynamic types) must give our rule's output partial shape and element type, or both refuse.

OpenVINO 2026.4.1 behaviour measured here that its specification does not say (see also the
docstring of ir_tools/ops/gather.py): CPU counts a negative index in [-n, -1] from the end in both
versions and reads whatever lies at the linear offset of an index out of [-n, n - 1]; it leaves the
output unwritten for index tuples of length 0 (test_undefined_indices_are_refused); GatherND has no
evaluator; a GatherND-5 with batch_dims > 1 fuses its batch dims into their product.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset5 as ops5
import openvino.opset8 as ops8
import pytest

from ir_tools.base.errors import OpValidationError
from ir_tools.ops import attrs as A
from ir_tools.ops.gather import GATHER_ND_5, GATHER_ND_8
from ir_tools.ops.spec import OpSpec, TensorType

from .conformance import (
    Bounds,
    Case,
    assert_all_pass,
    assert_shapes_agree,
    blur,
    check_versions,
    openvino_outcome,
    our_outcome,
    parameters,
    partial_shape,
    pick,
    rule_limits,
    show,
    tensor_types,
    to_dims,
)

pytestmark = pytest.mark.openvino

SEED = 20305
CASES_PER_MODEL = 120
VERSIONS: dict[int, tuple[OpSpec, object]] = {5: (GATHER_ND_5, ops5.gather_nd), 8: (GATHER_ND_8, ops8.gather_nd)}
NAMES = {np.float32: "f32", np.float16: "f16", np.int32: "i32", np.int64: "i64"}


def geometry(rng: np.random.Generator, empty_tuples: bool = False) -> tuple[list[int], list[int], int]:
    """Data and indices shapes that fit, and batch_dims; ``empty_tuples``: index tuples may have length 0."""
    batch = int(rng.choice([0, 0, 1, 2]))
    lead = [int(n) for n in rng.integers(1, 4, batch)]
    k = int(rng.integers(0 if empty_tuples and rng.random() < 0.1 else 1, 4))
    data = lead + [int(n) for n in rng.integers(1, 5, max(1, k + int(rng.integers(0, 3))))]
    middle = [int(n) for n in rng.integers(1, 4, int(rng.integers(0, 3)))]
    return data, lead + middle + [k], batch


def kernel_case(rng: np.random.Generator, dtype: type) -> tuple[int, np.ndarray, np.ndarray, int]:
    data_shape, index_shape, batch = geometry(rng)
    x = (rng.integers(-99, 100, data_shape) if dtype is np.int32 else rng.standard_normal(data_shape) * 8)
    lengths = np.array(data_shape[batch:batch + index_shape[-1]], np.int64)
    idx = rng.integers(-lengths, lengths, index_shape[:-1] + [len(lengths)])  # negative ones count from the end
    return int(rng.choice([5, 8])), x.astype(dtype), idx.astype(pick(rng, [np.int32, np.int64])), batch


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_values_within_the_bound(dtype: type, tmp_path: Path) -> None:
    """OpenVINO CPU's values within the rule's bound of ours (the executor also re-infers every output shape)."""
    rng = np.random.default_rng([SEED, list(NAMES).index(dtype)])
    cases = []
    for _ in range(CASES_PER_MODEL):
        version, x, idx, batch = kernel_case(rng, dtype)
        spec, build = VERSIONS[version]
        cases.append(Case(f"GatherND-{version} batch_dims={batch} data {x.shape} indices {idx.tolist()}", [x, idx],
                          lambda ps, build=build, batch=batch: build(*ps, batch),
                          rule_limits(spec, {"batch_dims": str(batch)}, [x, idx])))
    assert_all_pass(cases, tmp_path)


def test_batch_dims_fused_by_version_5() -> None:
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    idx = np.array([[[1], [-1], [0]], [[2], [0], [-2]]], np.int64)
    attrs = A.decode(GATHER_ND_5.attrs, {"batch_dims": "2"})
    (v5,) = GATHER_ND_5.kernel(attrs, [x, idx])
    (v8,) = GATHER_ND_8.kernel(attrs, [x, idx])
    assert v5.shape == (6, 5) and v8.shape == (2, 3, 5)
    np.testing.assert_array_equal(v5.reshape(2, 3, 5), v8)
    np.testing.assert_array_equal(v8[1, 2], x[1, 2, 2])


@pytest.mark.parametrize("indices", [[[3]], [[-4]], [[0, 3]], [[1, -4]], np.zeros((2, 0))])
def test_undefined_indices_are_refused(indices) -> None:
    """OpenVINO CPU reads beyond the indexed dim (the next row, or memory past the tensor) and leaves the output
    unwritten for index tuples of length 0: no value to match."""
    x = np.arange(24, dtype=np.float32).reshape(3, 2, 4)
    with pytest.raises(OpValidationError):
        GATHER_ND_8.kernel(A.decode(GATHER_ND_8.attrs, {}), [x, np.array(indices, np.int64)])


@pytest.mark.parametrize("data, indices, batch", [((2, 3), (2, 3), 0), ((2, 3), (3, 1), 1), ((2,), (1, 1), 1),
                                                  ((), (1, 0), 0), ((2, 3), (), 0)])
def test_kernel_refuses_what_openvino_refuses(data: tuple[int, ...], indices: tuple[int, ...], batch: int) -> None:
    with pytest.raises(RuntimeError):
        ops8.gather_nd(ops8.parameter(list(data), np.float32), ops8.parameter(list(indices), np.int64), batch)
    with pytest.raises(OpValidationError):
        GATHER_ND_8.kernel(A.decode(GATHER_ND_8.attrs, {"batch_dims": str(batch)}),
                           [np.zeros(data, np.float32), np.zeros(indices, np.int64)])


# --- shape rules -----------------------------------------------------------------------------------


def shape_case(rng: np.random.Generator):
    data, indices, batch = geometry(rng, empty_tuples=True)
    if rng.random() < 0.15:  # ranks that may not fit batch_dims, or tuples longer than the data rank
        batch = int(rng.integers(0, 4))
        indices[-1] += int(rng.integers(0, 3))
    if rng.random() < 0.1:
        data, indices = data[:int(rng.integers(0, len(data) + 1))], indices[:int(rng.integers(0, len(indices) + 1))]
    if rng.random() < 0.1 and batch:  # batch dims that differ
        data[0] += 1
    shapes: list[Bounds] = [None if rng.random() < 0.07 else tuple(blur(rng, n) for n in s) for s in (data, indices)]
    if shapes[1] and rng.random() < 0.8:  # a static tuple length, else the output rank is dynamic
        shapes[1] = shapes[1][:-1] + ((indices[-1], indices[-1]),)
    elements = ["f32", "i64"]
    if rng.random() < 0.2:
        elements[1] = pick(rng, ["i32", "u8", "f32", "boolean", None])
    if rng.random() < 0.1:
        elements[0] = pick(rng, ["i32", "boolean", None])
    version = int(rng.choice([5, 8]))
    what = (f"GatherND-{version} {elements[0]}{show(shapes[0])} indices {elements[1]}{show(shapes[1])} "
            f"batch_dims={batch}")

    def theirs():
        return openvino_outcome(lambda: VERSIONS[version][1](
            *parameters(elements, shapes), batch))

    def ours():
        inputs = tensor_types(elements, shapes)
        return our_outcome("GatherND", f"opset{version}", {"batch_dims": str(batch)}, inputs, [None, None])

    return what, theirs, ours


def test_shape_rules_match_openvino() -> None:
    rng = np.random.default_rng(SEED + 1)
    cases = [shape_case(rng) for _ in range(600)]
    assert_shapes_agree(cases)


@pytest.mark.parametrize("data, indices, want", [
    (((2, 3), (1, 4), (5, 5)), ((0, 2), (2, 3), (1, 1)), ((4, 6),)),  # merged ([2], [2..3]), then multiplied
    (((2, None), (3, 3), (5, 5)), ((0, None), (0, 4), (1, 1)), ((6, None),)),  # unbounded stays unbounded
    (((2, 1 << 62), (4, 4), (5, 5)), ((0, None), (4, 4), (1, 1)), ((8, None),)),  # 2**64 saturates: unbounded
])
def test_fused_interval_examples(data, indices, want) -> None:
    node = ops5.gather_nd(ops5.parameter(partial_shape(data), ov.Type.f32), ops5.parameter(partial_shape(indices),
                                                                                           ov.Type.i64), 2)
    expected = (("f32", want),)
    assert openvino_outcome(lambda: node) == expected
    inputs = [TensorType("f32", to_dims(data)), TensorType("i64", to_dims(indices))]
    assert our_outcome("GatherND", "opset5", {"batch_dims": "2"}, inputs, [None, None]) == expected


def test_versions_match_openvinos_reader(tmp_path) -> None:
    x = ops8.parameter([2, 3], np.float32)
    node = ops8.gather_nd(x, ops8.constant(np.array([[1]], np.int64)))
    mismatches = check_versions({"GatherND": node}, [x], tmp_path)
    assert not mismatches, mismatches

