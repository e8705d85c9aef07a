"""SparseFillEmptyRows-16 (ops/sparse.py) and GroupedMatMul-17 (ops/matmul.py) against OpenVINO.

SparseFillEmptyRows kernel: 240 seeded cases (values f32, f16, f64, i32, i64, u64, u32, i8, u8, boolean with NaN, +-inf,
+-0, subnormals, f64 values past f32's range and i64/u64 ones past i32's; 0 to 40 rows, 1 to 6 columns, 0 to 60
entries in any order, duplicated places now and then; i32 or i64 indices, i64 ones wrapped past 2^32; dense_shape
and indices Parameters or Constants; a default_value of the values' type or another one holding it exactly) batched
60 to a model and compiled once per model for OpenVINO CPU: all three outputs bit for bit. Then 60 cases of 17 to 200
entries crowded onto few places (std::sort's own order of equal places): bit for bit. Shape rule: 400 seeded nodes on
Parameters and Constants (partial shapes, dynamic types and ranks, dense_shape values -1 and below, indices out of
range, duplicated rows) must give our rule's output, or both refuse. GroupedMatMul-17: a shape rule alone (OpenVINO
cannot compute it): 300 seeded nodes.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset16 as ops16
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.base.errors import OpValidationError, UnsupportedError
from ir_tools.ops.core import NoAttrs
from ir_tools.ops.matmul import GROUPED_MATMUL_17
from ir_tools.ops.sparse import SPARSE_FILL_EMPTY_ROWS_16
from ir_tools.ops.spec import TensorType
from ir_tools.passes.validate import check
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import (
    Case,
    U,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    check_versions,
    constant,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    random_bounds,
    show,
    tolerance,
)
from .verdicts import to_dims

pytestmark = pytest.mark.openvino

SEED = 1617
CASES_PER_MODEL = 60
VALUE_TYPES = (np.float32, np.float16, np.float64, np.int32, np.int64, np.uint64, np.uint32, np.int8, np.uint8,
               np.bool_)
FLOAT_SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-45, 65504.0, 1e300, -1e300, 1 + 2**-40])
INT_SPECIALS = np.array([2**31 - 1, -2**31, 2**31 + 5, 2**40 + 3, 2**32 - 1, -2**35 - 1, 0, 7], np.int64)
ATTRS = NoAttrs()


def sparse_values(rng: np.random.Generator, dtype: type, n: int) -> np.ndarray:
    """``n`` values of ``dtype``: small ones and its special values."""
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
        special = rng.random(n) < 0.3
        x[special] = rng.choice(FLOAT_SPECIALS, int(special.sum()))
        if dtype is not np.float64:
            x[np.abs(x) > 1e30] = np.inf
        return x.astype(dtype)
    if dtype is np.bool_:
        return rng.random(n) < 0.5
    info = np.iinfo(dtype)
    x = rng.integers(max(info.min, -100), min(info.max, 100), n, endpoint=True).astype(dtype)
    if dtype in (np.int64, np.uint64):
        special = rng.random(n) < 0.3
        x[special] = rng.choice(INT_SPECIALS, int(special.sum())).astype(dtype)
    return x


def default_value(rng: np.random.Generator, dtype: type) -> np.ndarray:
    """A scalar of ``dtype``, now and then of another type holding the same value exactly."""
    x = sparse_values(rng, dtype, 1).reshape(())
    if dtype in (np.float32, np.int32) and rng.random() < 0.2:
        other = np.float64 if dtype is np.float32 else np.int64
        return x.astype(other) if np.isfinite(x) else x
    return x


def places(rng: np.random.Generator, rows: int, cols: int, n: int, crowded: bool) -> np.ndarray:
    """``n`` (row, column) places in [0, rows) x [0, cols), in any order; repeated (``crowded``: onto a few)."""
    if crowded:
        pool = np.stack([rng.integers(0, max(rows, 1), 3), rng.integers(0, cols, 3)], 1)
        return pool[rng.integers(0, pool.shape[0], n)]
    return np.stack([rng.integers(0, rows, n), rng.integers(0, cols, n)], 1)


def sparse_case(rng: np.random.Generator, crowded: bool = False) -> Case:
    """One SparseFillEmptyRows case (the module's docstring), all three outputs bit for bit."""
    dtype = pick(rng, VALUE_TYPES)
    index = pick(rng, [np.int32, np.int64])
    rows = int(rng.integers(17, 41)) if rng.random() < 0.2 else int(rng.integers(1 if crowded else 0, 9))
    cols = int(rng.integers(1, 7))
    n = int(rng.integers(17, 201)) if crowded else 0 if rows == 0 else int(rng.integers(0, 61))
    at = places(rng, rows, cols, n, crowded or rng.random() < 0.2).astype(index)
    consts = (1, 2) if rng.random() < 0.25 and n else ()  # (empty values with them: test_empty_values_unwritten)
    if index is np.int64 and not consts and rng.random() < 0.3:
        at += np.int64(2**32) * rng.integers(-1, 2, at.shape)  # (the CPU reads i32: wrapped back in range)
    values = sparse_values(rng, dtype, n)
    inputs = [values, np.array([rows, cols], index), at.reshape(n, 2), default_value(rng, dtype)]
    what = f"SparseFillEmptyRows {values.dtype}[{n}] {index.__name__} dense {[rows, cols]} consts {consts}"
    wide = values.dtype == np.float64  # (rounded to f32 by the CPU, by the kernel not: rounding.taken_in)
    return Case(what, inputs, lambda ps: ops16.sparse_fill_empty_rows(*ps),
                limits=(None, tolerance(U, 2.0**-150) if wide else None, None), consts=consts, bits=not wide)


def sparse_cases(rng: np.random.Generator, n: int, crowded: bool = False) -> list[Case]:
    return [sparse_case(rng, crowded) for _ in range(n)]


@pytest.mark.parametrize("part", range(4))
def test_values_bit_for_bit(part: int, tmp_path: Path) -> None:
    cases = sparse_cases(np.random.default_rng([SEED, part]), CASES_PER_MODEL)
    assert_all_pass(cases, tmp_path)


def test_std_sorts_order_of_equal_places(tmp_path: Path) -> None:
    """17 to 200 entries on three places: where they tie, the CPU's std::sort order (the kernel replays it)."""
    cases = sparse_cases(np.random.default_rng([SEED, 9]), CASES_PER_MODEL, crowded=True)
    replayed = 0
    for case in cases:
        values = SPARSE_FILL_EMPTY_ROWS_16.kernel(ATTRS, case.inputs)[1]
        stable = np.lexsort((case.inputs[2][:, 1], case.inputs[2][:, 0]))
        replayed += not np.array_equal(values[:stable.size].view(np.uint8), case.inputs[0][stable].view(np.uint8))
    assert replayed > 20
    assert_all_pass(cases, tmp_path)


def test_kernel_refuses_what_the_cpu_refuses() -> None:
    """An index out of [0, rows) x [0, columns), a negative dense_shape (OpenVINO CPU refuses them when it runs: the
    error below), a default_value another type cannot hold exactly (the CPU's conversion is not modelled)."""
    run = SPARSE_FILL_EMPTY_ROWS_16.kernel
    values, dense, default = np.array([1, 2], np.float32), np.array([3, 2], np.int32), np.float32(9)
    for at in ([[0, 2], [1, 1]], [[3, 0], [1, 1]], [[-1, 0], [1, 1]]):
        with pytest.raises(OpValidationError, match="out of bounds"):
            run(ATTRS, [values, dense, np.array(at, np.int32), default])
    with pytest.raises(OpValidationError, match="negative"):
        run(ATTRS, [values, np.array([-3, 2], np.int32), np.array([[0, 0], [1, 1]], np.int32), default])
    with pytest.raises(UnsupportedError, match="conversion"):
        run(ATTRS, [np.array([1, 2], np.int32), dense, np.array([[0, 0], [1, 1]], np.int32), np.float32(2.5)])
    v, d, i = (ops1.parameter([-1], np.float32), ops1.parameter([2], np.int32), ops1.parameter([-1, 2], np.int32))
    fill = ops1.parameter([], np.float32)
    node = ops16.sparse_fill_empty_rows(v, d, i, fill)
    request = ov.Core().compile_model(ov.Model(node.outputs(), [v, d, i, fill]), "CPU", CPU_CONFIG)
    with pytest.raises(RuntimeError, match="out of bounds"):
        request([values, dense, np.array([[0, 2], [1, 1]], np.int32), np.float32(9)])


def test_empty_values_unwritten(tmp_path: Path) -> None:
    """Empty values of a static shape, dense_shape and indices Constants: OpenVINO CPU leaves the outputs unwritten
    (what their memory held), so ``check`` refuses the layer; with them Parameters the CPU computes it (bit for bit)."""
    x, fill = ops1.parameter([0], np.float32), ops1.parameter([], np.float32)
    node = ops16.sparse_fill_empty_rows(x, ops1.constant(np.array([3, 2], np.int32)),
                                        constant(np.zeros((0, 2), np.int32)), fill)
    model = ov.Model(node.outputs(), [x, fill])
    got = ov.Core().compile_model(model, "CPU", CPU_CONFIG)([np.zeros(0, np.float32), np.float32(7)])
    assert got[1].tolist() != [7.0] * 3
    xml = tmp_path / "empty.xml"
    ov.save_model(model, xml, compress_to_fp16=False)
    assert [d.code for d in check(xml)] == ["E-OP"]
    empty = [np.zeros(0, np.float32), np.array([3, 2], np.int32), np.zeros((0, 2), np.int32), np.float32(7)]
    assert_all_pass([Case("empty values", empty, lambda ps: ops16.sparse_fill_empty_rows(*ps), (None,) * 3,
                          bits=True)], tmp_path)


def _flags_as_u8(a: NoAttrs, args: list[np.ndarray]) -> list[np.ndarray]:
    """The kernel with empty_row_indicator as u8 (the harness subtracts outputs, which numpy refuses of booleans)."""
    places, values, flags = SPARSE_FILL_EMPTY_ROWS_16.kernel(a, args)
    return [places, values, flags.astype(np.uint8)]


FLAGS_AS_U8 = dataclasses.replace(SPARSE_FILL_EMPTY_ROWS_16, kernel=_flags_as_u8)


def test_the_bound_carries_moved_inputs() -> None:
    """Errors of the values and of default_value move with them to their places (crowded places too)."""
    rng = np.random.default_rng([SEED, 3])
    checked = 0
    while checked < 12:
        case = sparse_case(rng, crowded=checked % 4 == 0)
        if case.inputs[0].dtype not in (np.float32, np.float16):
            continue
        checked += 1
        values, dense, at, default = case.inputs
        bounds = [np.abs(rng.standard_normal(values.shape)), np.zeros(()), np.zeros(()),
                  np.float64(abs(rng.standard_normal()))]
        inputs = [np.nan_to_num(values, nan=1.0, posinf=2.0, neginf=-2.0), dense, at,
                  np.float32(default) if np.isfinite(default) else np.float32(0)]
        assert_bounds_carry_moves(FLAGS_AS_U8, {}, inputs, bounds, rng, case.what)


def _type(element: str | None) -> ov.Type:
    return ov.Type.dynamic if element is None else getattr(ov.Type, element)


def _parameter(element: str | None, shape) -> ov.Node:
    return ops1.parameter(partial_shape(shape), _type(element))


def sparse_shape_case(rng: np.random.Generator):
    """One shape-rule case: values a Parameter of a partial shape (a dynamic rank or type, rank 0 or 2 now and then);
    dense_shape a Parameter (of [2], [3], [?], a dynamic rank) or a Constant (-1, negative, 0, in range); indices a
    Parameter (partial shapes, bad ones too) or a Constant (in range, out of it, rows repeated); i32, i64, mixed,
    dynamic or i16; default_value of shape [], [1] or a dynamic rank."""
    n, rows, cols = int(rng.integers(0, 6)), int(rng.integers(0, 6)), int(rng.integers(1, 5))
    index = pick(rng, ["i32", "i64"] * 4 + [None, "i16"])
    other = index if rng.random() < 0.9 else pick(rng, ["i32", "i64", None])
    lengths = [n] if rng.random() < 0.95 else pick(rng, [[], [n, 1]])
    values = (pick(rng, ["f32", "i32", "u8", "boolean", None]),
              None if rng.random() < 0.1 else random_bounds(rng, lengths))
    dense_value = None
    if rng.random() < 0.6 and index in ("i32", "i64"):
        dense_value = [rows, cols] if rng.random() < 0.75 else [pick(rng, [rows, -1, -2, -4, 0]), pick(rng, [cols, -1,
                                                                                                            -3, 0])]
    dense_shape = ((2, 2),) if rng.random() < 0.85 else pick(rng, [((3, 3),), ((0, None),), None, ((1, 3),)])
    index_value = None
    if rng.random() < 0.6 and other in ("i32", "i64"):
        m = n if rng.random() < 0.95 else n + 1
        hi = max(rows, 1) + (1 if rng.random() < 0.1 else 0)
        index_value = np.stack([rng.integers(0, hi, m), rng.integers(-1 if rng.random() < 0.05 else 0, cols, m)], 1)
    index_shape = random_bounds(rng, [n, 2] if rng.random() < 0.95 else pick(rng, [[n, 3], [n], [n, 2, 1]]))
    index_shape = None if rng.random() < 0.1 else index_shape
    default_shape = pick(rng, [()] * 8 + [((1, 1),), None])
    numpy = {"i32": np.int32, "i64": np.int64}

    operands = [(values[0], values[1], None),
                (index, dense_shape, None) if dense_value is None else
                (index, ((2, 2),), np.array(dense_value, numpy[index])),
                (other, index_shape, None) if index_value is None else
                (other, tuple((k, k) for k in index_value.shape), index_value.astype(numpy[other])),
                (values[0] or "f32", default_shape, None)]

    def theirs():
        nodes = [_parameter(e, s) if v is None else constant(v) for e, s, v in operands]
        return openvino_outcome(lambda: ops16.sparse_fill_empty_rows(*nodes))

    def ours():
        return our_outcome("SparseFillEmptyRows", "opset16", {}, [TensorType(e, to_dims(s)) for e, s, _ in operands],
                           [v for *_, v in operands])

    what = " ".join(f"{e}{show(s)}" + ("" if v is None else f"={v.tolist()}") for e, s, v in operands)
    return f"SparseFillEmptyRows {what}", theirs, ours


def test_shape_rule_agrees() -> None:
    """400 nodes, among them more than 40 whose output counts OpenVINO knows (dense_shape and indices Constants)."""
    rng = np.random.default_rng([SEED, 1])
    cases = [sparse_shape_case(rng) for _ in range(400)]
    assert_shapes_agree(cases)
    outcomes = [theirs() for _, theirs, _ in cases]
    assert sum(not isinstance(o, str) and o[0][1] is not None and o[0][1][0][1] is not None for o in outcomes) > 40


def grouped_shape_case(rng: np.random.Generator):
    """One GroupedMatMul shape-rule case: 3D x 3D or 2D x 3D (other ranks now and then), partial shapes around
    matching or mismatched groups and inner dims, dynamic ranks and types; offsets absent, or of i32, i64, f32 or a
    dynamic type, of rank 1, 0, 2 or dynamic."""
    g, m, n, k = (int(v) for v in rng.integers(1, 5, 4))
    a_rank = pick(rng, [3, 2, 3, 2, 1, 4])
    b_rank = pick(rng, [3, 3, 3, 2])
    k_b = k if rng.random() < 0.85 else k + 1
    g_b = g if rng.random() < 0.85 else g + 1
    a = [g, m, k][3 - a_rank:] if a_rank <= 3 else [1, g, m, k]
    b = [g_b, n, k_b][3 - b_rank:]
    element = pick(rng, ["f32", "f16", "i32", "u8", "boolean", None])
    elements = [element, element if rng.random() < 0.9 else pick(rng, ["f32", "f16", None])]
    shapes = [None if rng.random() < 0.08 else random_bounds(rng, a), None if rng.random() < 0.08 else
              random_bounds(rng, b)]
    if rng.random() < 0.7 or a_rank == 2 and rng.random() < 0.9:
        elements.append(pick(rng, ["i32", "i64", "i32", "i64", None, "f32"]))
        shapes.append(pick(rng, [((g, g),), ((g, g),), ((0, None),), (), ((g, g), (1, 1)), None, ((0, 0),)]))

    def theirs():
        nodes = [_parameter(e, s) for e, s in zip(elements, shapes, strict=True)]
        return openvino_outcome(lambda: NodeFactory("opset17").create("GroupedMatMul", [x.output(0) for x in nodes],
                                                                      {}))

    def ours():
        return our_outcome("GroupedMatMul", "opset17", {}, [TensorType(e, to_dims(s)) for e, s in
                                                             zip(elements, shapes, strict=True)], [None] * len(shapes))

    return f"GroupedMatMul {' '.join(f'{e}{show(s)}' for e, s in zip(elements, shapes, strict=True))}", theirs, ours


def test_grouped_matmul_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 2])
    assert_shapes_agree([grouped_shape_case(rng) for _ in range(300)])


def test_grouped_matmul_has_no_cpu_kernel(tmp_path: Path) -> None:
    """OpenVINO's CPU plugin cannot compile it (nor evaluate it): no kernel, and ``check`` says why (E-OP)."""
    a, b = ops1.parameter([3, 2, 4], np.float32), ops1.parameter([3, 5, 4], np.float32)
    node = NodeFactory("opset17").create("GroupedMatMul", [a.output(0), b.output(0)], {})
    model = ov.Model(node.outputs(), [a, b])
    with pytest.raises(RuntimeError, match="Cannot fallback on ngraph reference"):
        ov.Core().compile_model(model, "CPU", CPU_CONFIG)
    assert GROUPED_MATMUL_17.kernel is None
    xml = tmp_path / "grouped.xml"
    ov.save_model(model, xml, compress_to_fp16=False)
    assert [d.code for d in check(xml)] == ["E-OP"]
    assert "GroupedMatMul" in check(xml)[0].message


def test_opsets(tmp_path: Path) -> None:
    v, d, i = ops1.parameter([3], np.float32), ops1.parameter([2], np.int32), ops1.parameter([3, 2], np.int32)
    fill = ops1.parameter([], np.float32)
    a, b, o = ops1.parameter([6, 4], np.float32), ops1.parameter([3, 5, 4], np.float32), ops1.parameter([3], np.int32)
    nodes = {"SparseFillEmptyRows": ops16.sparse_fill_empty_rows(v, d, i, fill),
             "GroupedMatMul": NodeFactory("opset17").create("GroupedMatMul", [a.output(0), b.output(0), o.output(0)],
                                                            {})}
    assert check_versions(nodes, [v, d, i, fill, a, b, o], tmp_path) == []


def test_compare_checks_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Relu -> SparseFillEmptyRows on Const places (dense_shape, indices, default_value), all three outputs, compared
    end to end and per layer: nothing left unchecked."""
    x = ops1.parameter([5], np.float32, name="x")
    node = ops16.sparse_fill_empty_rows(ops1.relu(x), ops1.constant(np.array([6, 3], np.int32)),
                                        ops1.constant(np.array([[4, 2], [0, 1], [4, 0], [2, 2], [0, 0]], np.int32)),
                                        ops1.constant(np.float32(-1)))
    xml = tmp_path / "sparse.xml"
    ov.save_model(ov.Model([ops1.result(o) for o in node.outputs()], [x], "sparse"), xml)
    assert_compare_passes(xml, capsys, {"SparseFillEmptyRows@opset16"}, outputs=3)
