"""ScatterElementsUpdate-3 and -12 (ops/scatter.py) against OpenVINO: shape rules and CPU kernels.

Kernels: 900 seeded cases (f32 with NaN for none/min/max, f16, i32 with sums and products that wrap, i8 and u8 over
their whole range, i64 within what i32 holds; data of rank 1 to 4, every axis, positive and negative, a constant of
i32 or i64 of shape [], [1] or [2]; indices of i32, i64, i16 or u8 (non-negative), negative ones counted from the
end, off the axis within the data's dims, along it 0 to 40 long, so that many updates meet on one element; both
versions, every reduction of version 12 with use_init_val true or false) and 60 boolean ones (up to 300 updates of
one element), batched into one model per element type, saved as IR, read and run by ir_tools and compiled once for
OpenVINO CPU (the harness, tests/ops/conformance.py); values must be within the rounding rule's bound alone (exact
for none, min and max, integers and booleans; sums, means and products within gamma(n) sum|terms| or gamma(n)
prod|terms| plus one rounding on each side). Duplicates are drawn for none too: CPU applies a line's updates one
after another along the axis (ops/scatter.py), the last one wins. Our shape rule must also give each case's static
output; 300 seeded cases check that inputs moved within their bounds move the result within the rule's bound. Shape
rules: 700 seeded nodes on Parameters (partial shapes and dynamic ranks of data, indices and updates, scalars,
indices of another rank, updates of another dim or rank, indices longer than data; the axis a constant in range or
not, of shape [], [1] or [2], i32, i64, u8 or boolean, or a Parameter of shape [], [1], [2], [?], [1,1] or a dynamic
rank; element types real, boolean or dynamic; mean on boolean data) must give our rule's output partial shape and
element type, or both refuse. ``check_versions``: opset3..11 read ScatterElementsUpdate-3, opset12..16 -12. CPU's
refusal of an index of n or more is checked; one below -n and indices longer than data off the axis are only
refused by ours (CPU writes outside the tensor, and the process may abort).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset3 as ops3
import openvino.opset12 as ops12
import pytest

from ir_tools.base.dims import shape_from_ints
from ir_tools.base.errors import OpValidationError, UnsupportedError
from ir_tools.ops import attrs as A
from ir_tools.ops.rounding import EXACT, is_exact
from ir_tools.ops.scatter import SCATTER_ELEMENTS_UPDATE_3, SCATTER_ELEMENTS_UPDATE_12
from ir_tools.ops.spec import OpSpec, TensorType
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import (
    ELEMENTS,
    Bounds,
    Case,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    blur,
    check_versions,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 41213
CASES_PER_MODEL = 150
REDUCTIONS = ("none", "sum", "prod", "min", "max", "mean")
DTYPES = (np.float32, np.float16, np.int32, np.int8, np.uint8, np.int64)
NAMES = {np.float32: "f32", np.float16: "f16", np.int32: "i32", np.int8: "i8", np.uint8: "u8", np.int64: "i64",
         np.int16: "i16", np.bool_: "boolean"}
SPECS: dict[int, OpSpec] = {3: SCATTER_ELEMENTS_UPDATE_3, 12: SCATTER_ELEMENTS_UPDATE_12}


def build(version: int, reduction: str, use_init_val: bool):
    """The node on (data, indices, updates, axis): ScatterElementsUpdate-3 or -12 with its attributes."""
    if version == 3:
        return lambda p: ops3.scatter_elements_update(*p)
    return lambda p: ops12.scatter_elements_update(*p, reduction, use_init_val)


def raw_attrs(version: int, reduction: str, use_init_val: bool) -> dict[str, str]:
    return {} if version == 3 else {"reduction": reduction, "use_init_val": str(use_init_val).lower()}


def values(rng: np.random.Generator, dtype: type, shape: list[int], reduction: str) -> np.ndarray:
    if dtype in (np.int8, np.uint8) or (dtype is np.int32 and reduction in ("sum", "prod", "mean") and
                                        rng.random() < 0.3):  # the whole range: sums and products wrap
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
    if dtype in (np.int32, np.int64):  # (i64 within what CPU's i32 holds, products of a few factors too)
        if reduction == "prod":
            return rng.integers(-1 if dtype is np.int64 else -3, 2 if dtype is np.int64 else 4, shape).astype(dtype)
        return rng.integers(-(2**20), 2**20, shape).astype(dtype)
    if reduction == "prod":  # factors around 1: forty of them stay within f16's range
        x = np.asarray(rng.uniform(0.8, 1.25, shape) * rng.choice([-1.0, 1.0], shape))
    else:
        x = np.asarray(rng.standard_normal(shape) * float(rng.choice([0.01, 1.0, 100.0])))
    if reduction in ("none", "min", "max") and rng.random() < 0.2:
        x[rng.random(shape) < 0.2] = np.nan
    return x.astype(dtype)


def geometry(rng: np.random.Generator) -> tuple[list[int], int, list[int]]:
    """Data shape, axis (maybe negative) and indices shape: off the axis within the data's dims, along it 0 to 40."""
    rank = int(rng.integers(1, 5))
    data = [int(n) for n in rng.integers(1, 5, rank)]
    axis = int(rng.integers(-rank, rank))
    index = [int(rng.integers(1, n + 1)) for n in data]
    index[axis] = int(rng.integers(10, 41)) if rng.random() < 0.15 else 0 if rng.random() < 0.03 else \
        int(rng.integers(1, 7))
    return data, axis, index


def kernel_case(rng: np.random.Generator, dtype: type) -> Case:
    data, axis, index = geometry(rng)
    n = data[axis]
    version = int(rng.choice([3, 12, 12, 12]))
    reduction = "none" if version == 3 else pick(rng, REDUCTIONS)
    use_init_val = version == 3 or bool(rng.random() < 0.5)
    itype = pick(rng, [np.int32, np.int64, np.int64, np.int16, np.uint8])
    idx = rng.integers(0 if itype is np.uint8 else -n, n, index).astype(itype)
    x, upd = values(rng, dtype, data, reduction), values(rng, dtype, index, reduction)
    axis_value = np.array(pick(rng, [axis, axis, [axis], [axis, int(rng.integers(-9, 9))]]),
                          pick(rng, [np.int32, np.int64]))
    spec = SPECS[version]
    attrs = A.decode(spec.attrs, raw_attrs(version, reduction, use_init_val))
    args = [x, idx, upd, axis_value]
    types = [TensorType(NAMES[v.dtype.type], shape_from_ints(v.shape)) for v in args]
    assert spec.infer(attrs, types, [None, None, None, axis_value])[0].shape == shape_from_ints(x.shape)
    (bound,) = spec.rounding(spec.kernel, attrs, args, [EXACT] * 4, spec.kernel(attrs, args))
    what = (f"ScatterElementsUpdate-{version} {reduction} use_init_val {use_init_val} {x.dtype}{data} axis "
            f"{axis_value.tolist()} indices {idx.dtype}{idx.tolist()}")
    full = np.broadcast_to(bound, x.shape)
    limit = None if is_exact(bound) else (lambda w: full)
    return Case(what, args, build(version, reduction, use_init_val), (limit,), consts=(3,))


@pytest.mark.parametrize("dtype", DTYPES, ids=[NAMES[t] for t in DTYPES])
def test_values_within_the_bound(tmp_path: Path, dtype: type) -> None:
    rng = np.random.default_rng([SEED, DTYPES.index(dtype)])
    assert_all_pass([kernel_case(rng, dtype) for _ in range(CASES_PER_MODEL)], tmp_path)


def test_boolean_data_is_reduced_as_u8(tmp_path: Path) -> None:
    """Up to 300 updates of one element: sum wraps at 256 trues, as the CPU's u8 does (module doc)."""
    rng = np.random.default_rng([SEED, 9])
    cases = []
    for i in range(60):
        reduction = REDUCTIONS[i % 5]  # (not mean: refused on boolean data)
        use_init_val = bool(rng.random() < 0.5)
        count = int(rng.choice([1, 2, 3, 255, 256, 257, 300]))
        x = rng.random((2, 3)) < 0.5
        pool = rng.choice(3, 1 if count > 3 else int(rng.integers(1, 4)), replace=False)  # (long ones on one element)
        idx = rng.choice(pool, (2, count))
        idx = np.where(rng.random(idx.shape) < 0.3, idx - 3, idx)
        upd = rng.random((2, count)) < float(rng.choice([0.5, 1.0]))
        spec = SCATTER_ELEMENTS_UPDATE_12
        attrs = A.decode(spec.attrs, raw_attrs(12, reduction, use_init_val))
        args = [x, idx, upd, np.array(1, np.int64)]
        assert is_exact(spec.rounding(spec.kernel, attrs, args, [EXACT] * 4, spec.kernel(attrs, args))[0])
        cases.append(Case(f"boolean {reduction} use_init_val {use_init_val} {x.tolist()} indices {idx.tolist()}",
                          args, build(12, reduction, use_init_val), consts=(3,)))
    assert_all_pass(cases, tmp_path)


def test_input_bounds_move_through_the_rule() -> None:
    """Data and updates moved anywhere within their bounds (a random sign per element) move the exact result by no
    more than the rule's bound with those input bounds: 300 seeded f32 cases, every reduction, either use_init_val."""
    rng = np.random.default_rng([SEED, 7])
    for i in range(300):
        reduction = REDUCTIONS[i % len(REDUCTIONS)]
        use_init_val = bool(rng.random() < 0.5)
        data, axis, index = geometry(rng)
        n = data[axis]
        idx = rng.integers(-n, n, index)
        x, upd = (np.nan_to_num(values(rng, np.float32, s, reduction), nan=1.0) for s in (data, index))
        bounds = [np.abs(rng.standard_normal(np.shape(v))) * float(rng.choice([1e-6, 1e-3, 1e-1])) for v in (x, upd)]
        raw = raw_attrs(12, reduction, use_init_val)
        assert_bounds_carry_moves(SCATTER_ELEMENTS_UPDATE_12, raw, [x, idx, upd, np.array(axis)],
                                  [bounds[0], EXACT, bounds[1], EXACT], rng, (reduction, use_init_val, idx.tolist()))


def compiled(x: np.ndarray, idx: np.ndarray, upd: np.ndarray, axis: int) -> ov.CompiledModel:
    params = [ops12.parameter(list(v.shape), v.dtype) for v in (x, idx, upd)]
    node = ops12.scatter_elements_update(*params, ops12.constant(np.int64(axis)), "sum")
    return ov.Core().compile_model(ov.Model([node], params), "CPU", CPU_CONFIG)


@pytest.mark.parametrize("indices, axis", [([[2, 0, 1]], 0), ([[0, 1, 2], [5, 0, 0]], 0), ([[0, 3]], 1),
                                           ([[1], [9]], -1)])
def test_indices_past_the_axis_are_refused_as_by_cpu(indices, axis: int) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    idx = np.array(indices, np.int64)
    upd = np.ones(idx.shape, np.float32)
    with pytest.raises(RuntimeError, match="non-existing output tensor element"):
        compiled(x, idx, upd, axis)([x, idx, upd])
    with pytest.raises(OpValidationError, match="out of"):
        SCATTER_ELEMENTS_UPDATE_12.kernel(A.decode(SCATTER_ELEMENTS_UPDATE_12.attrs, {"reduction": "sum"}),
                                          [x, idx, upd, np.array(axis)])


@pytest.mark.parametrize("indices, axis", [([[-3, 0, 0]], 0), ([[0, 0, 0, 0]], 0), ([[0], [0], [0]], 1)])
def test_what_cpu_writes_outside_the_data_is_refused(indices, axis: int) -> None:
    """An index below -n, or indices longer than data off the axis: CPU checks neither and writes outside the tensor
    (not run here: glibc may abort the process)."""
    x = np.zeros((2, 3), np.float32)
    idx = np.array(indices, np.int64)
    with pytest.raises(OpValidationError, match="outside the data"):
        SCATTER_ELEMENTS_UPDATE_3.kernel(A.decode(SCATTER_ELEMENTS_UPDATE_3.attrs, {}),
                                         [x, idx, np.ones(idx.shape, np.float32), np.array(axis)])


def test_scalar_data_is_refused_as_by_cpu() -> None:
    x, idx, upd = np.array(1.0, np.float32), np.array(0, np.int64), np.array(2.0, np.float32)
    with pytest.raises(RuntimeError, match="scalar"):
        compiled(x, idx, upd, 0)
    with pytest.raises(UnsupportedError):
        SCATTER_ELEMENTS_UPDATE_12.kernel(A.decode(SCATTER_ELEMENTS_UPDATE_12.attrs, {}), [x, idx, upd, np.array(0)])


# --- shape rules -----------------------------------------------------------------------------------


def shape_case(rng: np.random.Generator):
    rank = int(rng.integers(0, 4))
    data = [int(n) for n in rng.integers(1, 5, rank)]
    index = [int(n) for n in rng.integers(1, 6, rank)]  # (longer than data's dims too: not checked)
    roll = rng.random()
    if roll < 0.1:  # another rank
        index = index[:-1] if index and rng.random() < 0.5 else index + [2]
    updates = list(index)
    if roll > 0.85 and updates:  # another dim
        updates[int(rng.integers(len(updates)))] += int(rng.integers(1, 3))
    elif roll > 0.8:  # another rank
        updates = updates + [1]
    shapes: list[Bounds] = [None if rng.random() < 0.08 else tuple(blur(rng, n) for n in s)
                            for s in (data, index, updates)]
    if updates == index and rng.random() < 0.5:  # the indices' own bounds
        shapes[2] = shapes[1]
    element = pick(rng, ["f32", "f32", "i32", "boolean", None])
    elements = [element, pick(rng, ["i32", "i64", "i64"]) if rng.random() < 0.8 else
                pick(rng, ["u8", "boolean", "f32", None]),
                element if rng.random() < 0.85 else pick(rng, ["f32", "f16", None]), None]
    known = rng.random() < 0.6
    if known:
        axis_type = pick(rng, [np.int32, np.int64, np.int64, np.uint8]) if rng.random() < 0.9 else np.bool_
        axis_value = np.array(pick(rng, [int(rng.integers(-rank - 2, rank + 2))] * 3 + [[0], [0, 5]]))
        axis_value = (np.abs(axis_value) if axis_type is np.uint8 else axis_value).astype(axis_type)
        elements[3] = NAMES[axis_value.dtype.type]
        axis_shape: Bounds = tuple((n, n) for n in axis_value.shape)
    else:
        axis_value = None
        elements[3] = pick(rng, ["i32", "i64", "i64", "i64", "boolean", "f32", None])
        axis_shape = pick(rng, [(), ((1, 1),), ((2, 2),), ((0, None),), ((1, 1), (1, 1)), None])
    version = int(rng.choice([3, 12]))
    reduction = "none" if version == 3 else pick(rng, REDUCTIONS)
    use_init_val = bool(rng.random() < 0.5)
    what = (f"ScatterElementsUpdate-{version} {reduction} {elements[0]}{show(shapes[0])} indices "
            f"{elements[1]}{show(shapes[1])} updates {elements[2]}{show(shapes[2])} axis {elements[3]}"
            f"{show(axis_shape)} {None if axis_value is None else axis_value.tolist()}")

    def theirs():
        def node():
            params = [ops12.parameter(partial_shape(s), ELEMENTS[e]) for s, e in zip(shapes, elements[:3], strict=True)]
            axis = ops12.constant(axis_value) if axis_value is not None else \
                ops12.parameter(partial_shape(axis_shape), ELEMENTS[elements[3]])
            return build(version, reduction, use_init_val)([*params, axis])

        return openvino_outcome(node)

    def ours():
        inputs = tensor_types(elements, [*shapes, axis_shape])
        return our_outcome("ScatterElementsUpdate", f"opset{version}", raw_attrs(version, reduction, use_init_val),
                           inputs, [None, None, None, axis_value])

    return what, theirs, ours


def test_shape_rules_match_openvino() -> None:
    rng = np.random.default_rng([SEED, 1])
    assert_shapes_agree([shape_case(rng) for _ in range(700)])


def test_versions_match_openvinos_reader(tmp_path: Path) -> None:
    x = ops3.parameter([2, 3], np.float32)
    node = ops3.scatter_elements_update(x, ops3.constant(np.array([[1, 0, 1]], np.int64)),
                                        ops3.constant(np.ones((1, 3), np.float32)), ops3.constant(np.int64(0)))
    assert check_versions({"ScatterElementsUpdate": node}, [x], tmp_path) == []


def test_compare_checks_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """An MoE's index_add (expert outputs summed into their tokens' rows, then Relu), compared end to end and per
    layer, the token rows seeded within the data's dims (``index_input``; ScatterElementsUpdate was not checked
    before)."""

    hidden = ops12.parameter([6, 16], np.float32, name="hidden")
    rows = ops12.parameter([4, 16], np.int64, name="rows")
    experts = ops12.parameter([4, 16], np.float32, name="experts")
    y = ops12.relu(ops12.scatter_elements_update(hidden, rows, experts, ops12.constant(np.int64(0)), "sum"))
    xml = tmp_path / "index_add.xml"
    ov.save_model(ov.Model([ops12.result(y)], [hidden, rows, experts], "index_add"), xml)
    assert_compare_passes(xml, capsys, {"ScatterElementsUpdate@opset12"})


@pytest.mark.parametrize("reduction", ["none", "sum"])
def test_any_index_on_data_of_no_element_is_openvinos(tmp_path: Path, reduction: str) -> None:
    """CPU gives data of no element back whatever the indices (5, -1, and indices longer than data off the axis:
    measured on 2026.4); the kernel refused them (E-OP)."""
    from ir_tools.cli import main

    data, indices = ops12.parameter([-1, -1], np.float32, name="data"), ops12.parameter([1, 1], np.int64,
                                                                                        name="indices")
    updates = ops12.parameter([1, 1], np.float32, name="updates")
    out = ops12.scatter_elements_update(data, indices, updates, ops12.constant(np.int64(0)), reduction)
    xml = tmp_path / "scatter.xml"
    ov.save_model(ov.Model([out], [data, indices, updates]), xml)
    compiled = ov.Core().compile_model(xml, "CPU")
    for shape, at in (((0, 3), 5), ((0, 3), -1), ((2, 0), 0)):
        given = {"data": np.ones(shape, np.float32), "indices": np.array([[at]]),
                 "updates": np.ones((1, 1), np.float32)}
        assert compiled(given)[0].shape == shape
        np.savez(tmp_path / "given.npz", **given)
        assert main(["compare", str(xml), "--inputs", str(tmp_path / "given.npz"), "-q"]) == 0, (shape, at)
