"""ScatterNDUpdate-3 and ScatterNDUpdate-15 (ops/scatter.py) against OpenVINO: shape rules and CPU kernels.

Kernels: 600 seeded cases (f32, f16 and i32 data, i32 and i64 indices, negative ones included, index tuples of
length 1 to the data rank, both versions, every reduction of version 15, duplicate indices for the reductions,
NaN for none/min/max, i32 sums and products that wrap) and 60 boolean ones, batched into one model per element
type, saved as IR, read and run by ir_tools and compiled once for OpenVINO CPU (the harness,
tests/ops/conformance.py); values must be within the rounding rule's bound alone (exact for none, min and max,
integers and booleans; sums and products within gamma(n) sum|terms| or gamma(n) prod|terms| plus one rounding
on each side). Our shape rule must also give each case's static output; 300 seeded cases check that inputs
moved within their bounds move the result within the rule's bound. Shape rules: 700 seeded nodes on
Parameters of partial shapes (static, dynamic, interval and unbounded dims, dynamic ranks, scalars, index
tuples longer than the data rank, updates of the wrong rank or dims, indices of u8, i16, f32, boolean and
dynamic types, updates of another or a dynamic type) must give our rule's output partial shape and element
type, or both refuse. ``check_versions``: opset4..14 read ScatterNDUpdate-3, opset15..16 ScatterNDUpdate-15.

OpenVINO 2026.4.1 behaviour measured here that its specification does not say (see also the docstring of
ir_tools/ops/scatter.py):

- Version 3 lives in opset4..14 (its type info says opset4), not in opset3; version 15 in opset15..16.
- Shape inference: indices must be i32 or i64 (or dynamic), updates of data's element type (a dynamic one
  merges); the output is data's partial shape as it is. Where the expected updates rank (data rank + indices
  rank - 1 - k) is 0, any updates shape passes, but CPU compiles only a scalar there.
- CPU counts a negative index in [-n, -1] from the end and refuses, when it runs, an index out of [-n, n - 1]
  (the reference raises OpValidationError). Index tuples of length 0 (indices [..., 0]) leave the data as it
  is on CPU, while the evaluator applies every update to the whole tensor: the reference refuses them.
- Duplicates: CPU writes reduction none's updates in parallel (the last one won in every run here, but the
  specification leaves it undefined: the generated none cases have no duplicates; the reference takes the
  last); the reductions run in index order, floats in f32 (f16 data too: 2048 + 64 * 1.0 gives 2112), integers
  wrapping. min keeps ``u < acc ? u : acc``, max ``acc < u ? u : acc``: NaN in data stays, NaN in updates is
  skipped.
- Boolean data is reduced as u8 and read back as nonzero: sum is or unless 256 trues wrap to 0, prod and min are
  and, max is or, and sub is (d - trues) mod 256 != 0 (True sub three trues is True; the evaluator's xor gives
  False). i64 data is computed as i32 by CPU (2**40 becomes 0): the reference keeps i64, the batches use i32.
"""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset4 as ops4
import openvino.opset15 as ops15
import pytest

from ir_tools.base.dims import shape_from_ints
from ir_tools.base.errors import OpValidationError
from ir_tools.ops import attrs as A
from ir_tools.ops.rounding import EXACT, is_exact
from ir_tools.ops.scatter import SCATTER_ND_UPDATE_3, SCATTER_ND_UPDATE_15, ScatterNDUpdate15Attrs
from ir_tools.ops.spec import OpSpec, TensorType
from ir_tools.runtime.openvino import CPU_CONFIG

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
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 20311
CASES_PER_MODEL = 200
REDUCTIONS = ("none", "sum", "sub", "prod", "min", "max")
NAMES = {np.float32: "f32", np.float16: "f16", np.int32: "i32", np.int64: "i64", np.bool_: "boolean"}
SPECS: dict[int, OpSpec] = {3: SCATTER_ND_UPDATE_3, 15: SCATTER_ND_UPDATE_15}


def build(version: int, reduction: str):
    """The node on (data, indices, updates): ScatterNDUpdate-3 (opset4) or -15 with ``reduction``."""
    if version == 3:
        return lambda p: ops4.scatter_nd_update(*p)
    return lambda p: ops15.scatter_nd_update(*p, reduction)


def raw_attrs(version: int, reduction: str) -> dict[str, str]:
    return {} if version == 3 else {"reduction": reduction}


def geometry(rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """Data shape and the shape of indices[..., :-1] (the tuples' layout); k is chosen by the caller."""
    data = [int(n) for n in rng.integers(1, 5, int(rng.integers(1, 5)))]
    lead = [int(n) for n in rng.integers(1, 4, int(rng.integers(0, 3)))]
    return data, lead


def index_tuples(rng: np.random.Generator, data: list[int], k: int, count: int, duplicates: bool) -> np.ndarray | None:
    """``count`` index tuples into data[:k], some negative; distinct unless ``duplicates`` (then drawn from a few
    positions, so that several updates meet); None if there are not enough distinct positions."""
    positions = int(np.prod(data[:k]))
    if duplicates:
        pool = rng.choice(positions, size=min(positions, int(rng.integers(1, 4))), replace=False)
        flat = rng.choice(pool, size=count)
    elif count <= positions:
        flat = rng.choice(positions, size=count, replace=False)
    else:
        return None
    tuples = np.stack(np.unravel_index(flat, data[:k]), axis=-1).astype(np.int64).reshape(count, k)
    negative = rng.random(tuples.shape) < 0.4
    return np.where(negative, tuples - np.array(data[:k]), tuples)


def values(rng: np.random.Generator, dtype: type, shape: list[int], reduction: str) -> np.ndarray:
    if dtype is np.int32:
        if reduction in ("sum", "sub", "prod") and rng.random() < 0.3:  # wraps around
            return rng.integers(-(2**31), 2**31, shape, dtype=np.int64).astype(np.int32)
        return rng.integers(-9 if reduction == "prod" else -99, 10 if reduction == "prod" else 100, shape
                            ).astype(np.int32)
    if reduction == "prod":  # products of a few factors around 1: no overflow in f16
        x = np.asarray(rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape))
    else:
        x = np.asarray(rng.standard_normal(shape) * float(rng.choice([0.01, 1.0, 100.0])))
    if reduction in ("none", "min", "max") and rng.random() < 0.2:
        x[rng.random(shape) < 0.2] = np.nan
    return x.astype(dtype)


def kernel_case(rng: np.random.Generator, dtype: type) -> Case:
    while True:
        data, lead = geometry(rng)
        k = int(rng.integers(1, len(data) + 1))
        version = int(rng.choice([3, 15, 15, 15]))
        reduction = "none" if version == 3 else pick(rng, REDUCTIONS)
        duplicates = reduction != "none" and rng.random() < 0.7
        count = int(np.prod(lead))
        if duplicates and rng.random() < 0.5:  # long sums on a few positions
            lead = [int(rng.integers(4, 12))]
            count = lead[0]
        tuples = index_tuples(rng, data, k, count, duplicates)
        if tuples is not None:
            break
    idx = tuples.reshape(lead + [k]).astype(pick(rng, [np.int32, np.int64]))
    x = values(rng, dtype, data, reduction)
    upd = values(rng, dtype, lead + data[k:], reduction)
    spec = SPECS[version]
    attrs = A.decode(spec.attrs, raw_attrs(version, reduction))
    types = [TensorType(NAMES[v.dtype.type], shape_from_ints(v.shape)) for v in (x, idx, upd)]
    assert spec.infer(attrs, types, [None, None, None])[0].shape == shape_from_ints(x.shape)
    want = spec.kernel(attrs, [x, idx, upd])
    (bound,) = spec.rounding(spec.kernel, attrs, [x, idx, upd], [EXACT, EXACT, EXACT], want)
    what = (f"ScatterNDUpdate-{version} {reduction} {NAMES[dtype]}{list(x.shape)} indices {idx.dtype}"
            f"{idx.reshape(-1, k).tolist()}")
    full = np.broadcast_to(bound, x.shape)
    limit = None if is_exact(bound) else (lambda w: full)
    return Case(what, [x, idx, upd], build(version, reduction), (limit,))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_values_within_the_bound(tmp_path, dtype: type) -> None:
    rng = np.random.default_rng([SEED, list(NAMES).index(dtype)])
    assert_all_pass([kernel_case(rng, dtype) for _ in range(CASES_PER_MODEL)], tmp_path)


def test_input_bounds_move_through_the_rule() -> None:
    """Data and updates moved anywhere within their bounds (corners, a random sign per element) move the exact
    result by no more than the rule's bound with those input bounds: 300 seeded f32 cases, every reduction."""
    rng = np.random.default_rng([SEED, 7])
    for i in range(300):
        reduction = REDUCTIONS[i % len(REDUCTIONS)]
        data, lead = geometry(rng)
        k = int(rng.integers(1, len(data) + 1))
        lead = [int(rng.integers(1, 8))]
        tuples = index_tuples(rng, data, k, lead[0], duplicates=reduction != "none")
        if tuples is None:
            continue
        idx = tuples.reshape(lead + [k])
        x, upd = (values(rng, np.float32, s, reduction) for s in (data, lead + data[k:]))
        x, upd = (np.nan_to_num(v, nan=1.0) for v in (x, upd))
        bx, bu = (np.abs(rng.standard_normal(np.shape(v))) * float(rng.choice([1e-6, 1e-3, 1e-1])) for v in (x, upd))
        attrs = ScatterNDUpdate15Attrs(reduction)
        run = SCATTER_ND_UPDATE_15.kernel
        (y,) = run(attrs, [x.astype(np.float64), idx, upd.astype(np.float64)])
        (bound,) = SCATTER_ND_UPDATE_15.rounding(run, attrs, [x, idx, upd], [bx, EXACT, bu], run(attrs, [x, idx, upd]))
        for _ in range(4):
            sx, su = (rng.choice([-1.0, 1.0], np.shape(v)) for v in (x, upd))
            (moved,) = run(attrs, [x + sx * bx, idx, upd + su * bu])
            slack = 1e-12 * (np.abs(y) + np.abs(moved))  # (the float64 arithmetic of the moved values)
            assert np.all(np.abs(moved - y) <= bound + slack), (reduction, x.tolist(), idx.tolist(), upd.tolist())


def test_boolean_data_is_reduced_as_u8(tmp_path) -> None:
    """Up to 300 updates on one element: sum wraps at 256 trues, sub is not xor (module doc)."""
    rng = np.random.default_rng([SEED, 9])
    cases = []
    for i in range(60):
        reduction = REDUCTIONS[i % len(REDUCTIONS)]
        n = int(rng.choice([1, 2, 3, 4, 5, 255, 256, 257, 300])) if reduction != "none" else 2
        x = rng.random(3) < 0.5
        flat = rng.integers(0, 3, n) if reduction != "none" else rng.choice(3, n, replace=False)
        idx = np.where(rng.random(n) < 0.3, flat - 3, flat).reshape(n, 1).astype(np.int64)
        upd = rng.random(n) < float(rng.choice([0.5, 1.0]))
        spec = SCATTER_ND_UPDATE_15
        attrs = A.decode(spec.attrs, {"reduction": reduction})
        assert is_exact(spec.rounding(spec.kernel, attrs, [x, idx, upd], [EXACT] * 3,
                                      spec.kernel(attrs, [x, idx, upd]))[0])
        cases.append(Case(f"boolean {reduction} {x.tolist()} {n} updates", [x, idx, upd], build(15, reduction)))
    assert_all_pass(cases, tmp_path)


def test_boolean_examples() -> None:
    run = SCATTER_ND_UPDATE_15.kernel
    one = np.zeros((3, 1), np.int64)
    trues = np.ones(3, bool)
    assert run(ScatterNDUpdate15Attrs("sub"), [np.array([True]), one, trues])[0].tolist() == [True]
    assert run(ScatterNDUpdate15Attrs("sum"), [np.array([False]), np.zeros((256, 1), np.int64),
                                               np.ones(256, bool)])[0].tolist() == [False]


def test_duplicates_without_reduction_take_the_last() -> None:
    x = np.zeros((3, 2), np.float32)
    idx = np.array([[1], [-2], [2], [1]], np.int32)
    upd = np.arange(8, dtype=np.float32).reshape(4, 2)
    (y,) = SCATTER_ND_UPDATE_3.kernel(A.decode(SCATTER_ND_UPDATE_3.attrs, {}), [x, idx, upd])
    np.testing.assert_array_equal(y, [[0, 0], [6, 7], [4, 5]])


@pytest.mark.parametrize("indices", [[[3]], [[-4]], [[0, 2]], [[1, -3]]])
def test_out_of_range_indices_are_refused_as_by_cpu(indices) -> None:
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    idx = np.array(indices, np.int64)
    upd = np.ones((1,) + x.shape[idx.shape[-1]:], np.float32)
    params = [ops15.parameter(list(v.shape), v.dtype) for v in (x, idx, upd)]
    compiled = ov.Core().compile_model(ov.Model([ops15.scatter_nd_update(*params)], params), "CPU", CPU_CONFIG)
    with pytest.raises(RuntimeError, match="non-existing data tensor element"):
        compiled([x, idx, upd])
    with pytest.raises(OpValidationError, match="out of range"):
        SCATTER_ND_UPDATE_15.kernel(ScatterNDUpdate15Attrs(), [x, idx, upd])


@pytest.mark.parametrize("data, indices, updates, itype", [
    ((2, 3), (1, 2), (1, 1), np.int64),  # the expected updates rank is 0: shape inference passes, CPU refuses
    ((2, 3), (1, 1), (2, 3), np.int64),
    ((2, 3), (1, 3), (1,), np.int64),
    ((2, 3), (1, 1), (1, 3), np.int16),
])
def test_kernel_refuses_what_openvino_refuses(data, indices, updates, itype) -> None:
    params = [ops15.parameter(list(s), t) for s, t in ((data, np.float32), (indices, itype), (updates, np.float32))]
    with pytest.raises(RuntimeError):
        node = ops15.scatter_nd_update(*params)
        ov.Core().compile_model(ov.Model([node], params), "CPU", CPU_CONFIG)
    with pytest.raises(OpValidationError):
        SCATTER_ND_UPDATE_15.kernel(ScatterNDUpdate15Attrs(), [np.zeros(data, np.float32), np.zeros(indices, itype),
                                                               np.zeros(updates, np.float32)])


def test_empty_index_tuples_are_refused() -> None:
    """CPU leaves the data as it is, the evaluator adds the updates to the whole tensor: no value to match."""
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(OpValidationError, match="length 0"):
        SCATTER_ND_UPDATE_15.kernel(ScatterNDUpdate15Attrs("sum"), [x, np.zeros((2, 0), np.int64),
                                                                    np.ones((2, 2, 3), np.float32)])
    (y,) = SCATTER_ND_UPDATE_15.kernel(ScatterNDUpdate15Attrs("sum"), [x, np.zeros((0, 0), np.int64),
                                                                       np.ones((0, 2, 3), np.float32)])
    np.testing.assert_array_equal(y, x)


# --- shape rules -----------------------------------------------------------------------------------


def shape_case(rng: np.random.Generator):
    data, lead = geometry(rng)
    k = int(rng.integers(0 if rng.random() < 0.05 else 1, len(data) + 1))
    if rng.random() < 0.1:
        k += int(rng.integers(1, 3))  # longer than the data rank
    indices = lead + [k]
    updates = lead + data[min(k, len(data)):]
    roll = rng.random()
    if roll < 0.1:  # a wrong rank
        updates = updates[:-1] if updates and rng.random() < 0.5 else updates + [2]
    elif roll < 0.25 and updates:  # a wrong dim
        j = int(rng.integers(len(updates)))
        updates[j] += int(rng.integers(1, 3))
    elif roll < 0.3:  # a scalar (data or indices)
        data, indices = (data, []) if rng.random() < 0.5 else ([], indices)
    shapes: list[Bounds] = [None if rng.random() < 0.07 else tuple(blur(rng, n) for n in s)
                            for s in (data, indices, updates)]
    if shapes[1] and rng.random() < 0.8:  # a static tuple length, else nothing is checked
        shapes[1] = shapes[1][:-1] + ((indices[-1], indices[-1]),)
    elements = ["f32", "i64", "f32"]
    if rng.random() < 0.2:
        elements[1] = pick(rng, ["i32", "u8", "f32", "boolean", None])
    if rng.random() < 0.15:
        elements[0], elements[2] = pick(rng, [("i32", "i32"), ("boolean", "boolean"), (None, "f32"), ("f32", None),
                                              ("f32", "i32"), (None, None)])
    version = int(rng.choice([3, 15]))
    reduction = "none" if version == 3 else pick(rng, REDUCTIONS)
    what = (f"ScatterNDUpdate-{version} {elements[0]}{show(shapes[0])} indices {elements[1]}{show(shapes[1])} "
            f"updates {elements[2]}{show(shapes[2])}")

    def theirs():
        return openvino_outcome(lambda: build(version, reduction)(
            parameters(elements, shapes)))

    def ours():
        inputs = tensor_types(elements, shapes)
        opset = "opset4" if version == 3 else "opset15"
        return our_outcome("ScatterNDUpdate", opset, raw_attrs(version, reduction), inputs, [None, None, None])

    return what, theirs, ours


def test_shape_rules_match_openvino() -> None:
    rng = np.random.default_rng(SEED + 1)
    cases = [shape_case(rng) for _ in range(700)]
    assert_shapes_agree(cases)


@pytest.mark.parametrize("data, indices, updates, want", [
    (((2, 2), (3, 3)), ((2, 2),), ((7, 9),), ((2, 2), (3, 3))),  # expected updates rank 0: any updates pass
    (((0, None), (3, 3)), ((4, 4), (1, 1)), ((2, 5), (0, 3)), ((0, None), (3, 3))),  # compatible, not narrowed
    (((1, 4), (3, 3)), ((5, 6), (1, 1)), ((7, 9), (3, 3)), "rejects"),  # [5..6] and [7..9] are not compatible
    (((2, 2), (3, 3)), ((4, 4), (0, 5)), ((1, 1),), ((2, 2), (3, 3))),  # k unknown: updates are not checked
])
def test_interval_examples(data, indices, updates, want) -> None:
    shapes = (data, indices, updates)
    expected = want if isinstance(want, str) else (("f32", want),)
    assert openvino_outcome(lambda: ops15.scatter_nd_update(
        *(ops15.parameter(partial_shape(s), t) for s, t in zip(shapes, (np.float32, np.int64, np.float32),
                                                                  strict=True)))) == expected
    inputs = tensor_types(("f32", "i64", "f32"), shapes)
    assert our_outcome("ScatterNDUpdate", "opset15", {}, inputs, [None, None, None]) == expected


def test_versions_match_openvinos_reader(tmp_path) -> None:
    """Version 3 carries type info opset4 (its first opset), version 15 opset15: our labels name the versions."""
    x = ops15.parameter([2, 3], np.float32)
    u = ops15.parameter([1, 3], np.float32)
    nodes = {"ScatterNDUpdate": ops15.scatter_nd_update(x, ops15.constant(np.array([[1]], np.int64)), u, "sum")}
    mismatches = check_versions(nodes, [x, u], tmp_path)
    assert mismatches == [f"ScatterNDUpdate opset{n}: OpenVINO reads opset4, we have ScatterNDUpdate-3"
                          for n in range(4, 15)], mismatches


@pytest.mark.parametrize("reduction", ["none", "sum"])
def test_any_index_on_data_of_no_element_is_openvinos(tmp_path, reduction: str) -> None:
    """CPU gives data of no element back whatever the indices ([[5]], [[-9]]: measured on 2026.4); the kernel refused
    them as out of range (E-OP)."""
    from ir_tools.cli import main

    data, indices = ops15.parameter([-1, -1], np.float32, name="data"), ops15.parameter([1, 1], np.int64,
                                                                                        name="indices")
    updates = ops15.parameter([1, -1], np.float32, name="updates")
    xml = tmp_path / "scatter.xml"
    ov.save_model(ov.Model([ops15.scatter_nd_update(data, indices, updates, reduction)], [data, indices, updates]), xml)
    compiled = ov.Core().compile_model(xml, "CPU")
    for shape, at in (((0, 3), 5), ((2, 0), -9), ((2, 0), 1)):
        given = {"data": np.ones(shape, np.float32), "indices": np.array([[at]]),
                 "updates": np.full((1, shape[1]), 7, np.float32)}
        assert compiled(given)[0].shape == shape
        np.savez(tmp_path / "given.npz", **given)
        assert main(["compare", str(xml), "--inputs", str(tmp_path / "given.npz"), "-q"]) == 0, (shape, at)
