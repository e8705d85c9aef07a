"""The embedding bags (ops/embedding.py: EmbeddingBagOffsetsSum-3, EmbeddingBagPackedSum-3, EmbeddingSegmentsSum-3,
EmbeddingBagOffsets-15, EmbeddingBagPacked-15) and SegmentMax-16 (ops/segments.py) against OpenVINO.

Kernels: seeded cases (f32 and f16 tables and weights with NaN, infinities, signed zeros and subnormals among values
of scales 10^-3 to 10^3; i8, u8, i16, u16, i32, u32, i64 and u64 values that wrap; i32 and i64 indices; empty bags,
default_index absent, -1 or a row, per_sample_weights, sum and mean; segment ids out of range and not grouped;
SegmentMax of every fill_mode, num_segments absent, below or above the ids, Const or fed) batched 60 to a model,
compiled once per model for OpenVINO CPU: bit for bit (NaN payloads and signs of zeros too): 240 embedding layers and
120 SegmentMax layers. f64 tables, which the CPU sums in f32: 40 layers within the rounding rule's bound (the worst
measured 0.40 of it). Shape rules: 200 seeded nodes per family on Parameters (partial
shapes, element types, dynamic ones, known value inputs) must give our rule's output, or both refuse.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset3 as ops3
import openvino.opset15 as ops15
import openvino.opset16 as ops16
import pytest

from ir_tools.base.errors import OpValidationError
from ir_tools.ops import attrs as A
from ir_tools.ops.embedding import EMBEDDING_BAG_PACKED_15, EMBEDDING_SEGMENTS_SUM_3
from ir_tools.ops.opsets import lookup

from .conformance import (
    Case,
    Operand,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    check_versions,
    openvino_outcome,
    our_outcome,
    pick,
    random_bounds,
    rule_limits,
)

pytestmark = pytest.mark.openvino

SEED = 3316
CASES_PER_MODEL = 60
FLOATS = (np.float32, np.float16)
INTEGERS = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)
OPS = ("offsets3", "packed3", "segments3", "offsets15", "packed15")


def values(rng: np.random.Generator, dtype: type, shape: list[int], special: float = 0.1) -> np.ndarray:
    """A table or weights: floats N(0, 1) times 10^-3 to 10^3 (f16 up to 10^1) with ``special`` of them NaN, +-inf,
    +-0 or subnormal; integers over the type's whole range (sums wrap)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    top = 2 if dtype == np.float16 else 4
    x = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, top, shape)
    tiny = float(np.finfo(dtype).tiny)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, tiny / 4, -tiny / 2])
    at = rng.random(shape) < special
    x[at] = rng.choice(specials, int(at.sum()))
    return x.astype(dtype)


def table_type(rng: np.random.Generator, i: int) -> type:
    return FLOATS[i % 2] if i % 4 < 3 else pick(rng, INTEGERS)


def embedding_case(rng: np.random.Generator, op: str, dtype: type, special: float = 0.1) -> Case:
    """One layer of ``op`` on a table of ``dtype``, fed (indices and the like Const or fed, i32 or i64), ``special``
    of its float values special (``values``)."""
    index = pick(rng, [np.int32, np.int64])
    rows = int(rng.integers(1, 9))
    table = values(rng, dtype, [rows, *(int(n) for n in rng.integers(1, 4, int(rng.integers(0, 3))))], special)
    mean = op.endswith("15") and rng.random() < 0.5
    weighted = not mean and rng.random() < 0.6
    reduction = "mean" if mean else "sum"
    if op.startswith("packed"):
        indices = rng.integers(0, rows, (int(rng.integers(0, 5)), int(rng.integers(1, 7)))).astype(index)
        inputs = [table, indices] + ([values(rng, dtype, list(indices.shape), special)] if weighted else [])
        build = (lambda ns: ops3.embedding_bag_packed_sum(*ns)) if op == "packed3" else \
            (lambda ns: ops15.embedding_bag_packed(*ns, reduction=reduction))
        what = f"{op} {reduction} {table.dtype}{list(table.shape)} indices {indices.tolist()}"
        return _case(what, inputs, build, _consts(rng, inputs))
    n = int(rng.integers(1, 13))
    indices = rng.integers(0, rows, n).astype(index)
    weights = [values(rng, dtype, [n], special)] if weighted else []
    if op.startswith("offsets"):
        offsets = np.sort(rng.integers(0, n, int(rng.integers(0, 7)))).astype(index)
        if offsets.size and rng.random() < 0.7:
            offsets[0] = 0
        default = [np.array(pick(rng, [-1, int(rng.integers(0, rows))]), index)] if weighted or rng.random() < 0.6 \
            else []
        inputs = [table, indices, offsets, *default, *weights]
        if weighted and not default:
            inputs.insert(3, np.array(-1, index))
        build = (lambda ns: ops3.embedding_bag_offsets_sum(*ns)) if op == "offsets3" else \
            (lambda ns: ops15.embedding_bag_offsets(*ns, reduction=reduction))
        what = f"{op} {reduction} {table.dtype}{list(table.shape)} indices {indices.tolist()} offsets " \
               f"{offsets.tolist()} default {[int(d) for d in default]} weighted {weighted}"
        return _case(what, inputs, build, _consts(rng, inputs))
    count = int(rng.integers(1, 7))
    ids = np.sort(rng.integers(-1, count + 2, n)) if rng.random() < 0.7 else rng.integers(0, count, n)
    default = [np.array(rng.integers(0, rows), index)] if weighted or rng.random() < 0.5 else []
    inputs = [table, indices, ids.astype(index), np.array(count, index), *default, *weights]
    what = f"{op} {table.dtype}{list(table.shape)} indices {indices.tolist()} ids {ids.tolist()} count {count} " \
           f"default {[int(d) for d in default]} weighted {weighted}"
    consts = sorted({3, *_consts(rng, inputs)}) if rng.random() < 0.6 else _consts(rng, inputs)
    return _case(what, inputs, lambda ns: ops3.embedding_segments_sum(*ns), consts)


def _case(what: str, inputs: list[np.ndarray], build, consts: list[int]) -> Case:
    """A bit-for-bit case, the subnormals of its float Constants made zeros of their sign: OpenVINO CPU zeroes an f32
    Constant's subnormals (measured: weights of 1e-40 give 0 where fed ones give 1e-40), which the kernel, given the
    file's values, does not."""
    for j in consts:
        x = inputs[j]
        if x.dtype.kind == "f":
            x[(x != 0) & (np.abs(x) < np.finfo(x.dtype).tiny)] *= x.dtype.type(0)
    return Case(what, inputs, build, consts=consts, bits=True)


def _consts(rng: np.random.Generator, inputs: list[np.ndarray]) -> list[int]:
    """The inputs after the table held as Constants: each with even odds, but weights of i64, u32 and u64 (OpenVINO
    saturates such a Constant to i32 where it wraps a value fed: the kernel follows the latter)."""
    wide = inputs[0].dtype in (np.int64, np.uint32, np.uint64)
    return [j for j in range(1, len(inputs))
            if rng.random() < 0.5 and not (wide and inputs[j].dtype == inputs[0].dtype)]


def embedding_cases(rng: np.random.Generator, n: int, special: float = 0.1) -> list[Case]:
    return [embedding_case(rng, OPS[i % len(OPS)], table_type(rng, i // len(OPS)), special) for i in range(n)]


def segment_max_case(rng: np.random.Generator, dtype: type, special: float = 0.25) -> Case:
    """SegmentMax-16 on data of ``dtype`` (f64 of f32 values: the CPU computes it in f32)."""
    rows = int(rng.integers(1, 11))
    shape = [rows, *(int(n) for n in rng.integers(1, 4, int(rng.integers(0, 3))))]
    data = values(rng, np.float32 if dtype == np.float64 else dtype, shape, special).astype(dtype)
    if data.dtype.kind == "f":
        data[rng.random(shape) < 0.2] = rng.choice([-1.0, 0.0, 2.0])  # ties
    ids = np.sort(rng.integers(0, 6, rows)).astype(pick(rng, [np.int32, np.int64]))
    fill = pick(rng, ["ZERO", "LOWEST"])
    inputs = [data, ids]
    kind = pick(rng, ["none", "const", "fed"])
    if kind != "none":
        inputs.append(np.array(int(ids.max()) + int(rng.integers(-2, 3)) if ids.max() >= 2 else
                               int(rng.integers(1, 8)), pick(rng, [np.int32, np.int64])))
    consts = [j for j in (1, 2) if j < len(inputs) and (j == 2 and kind == "const" or j == 1 and rng.random() < 0.5)]
    what = f"SegmentMax {fill} {data.dtype}{shape} ids {ids.tolist()} num {[int(x) for x in inputs[2:]]}"
    return Case(what, inputs, lambda ns: ops16.segment_max(*ns, fill_mode=fill), consts=consts, bits=True)


def segment_max_cases(rng: np.random.Generator, n: int, special: float = 0.25) -> list[Case]:
    types = (np.float32, np.float16, np.float64, *INTEGERS)
    return [segment_max_case(rng, types[i % len(types)], special) for i in range(n)]


@pytest.mark.parametrize("part", range(4))
def test_embedding_bit_for_bit(part: int, tmp_path: Path) -> None:
    assert_all_pass(embedding_cases(np.random.default_rng([SEED, part]), CASES_PER_MODEL), tmp_path)


@pytest.mark.parametrize("part", range(2))
def test_segment_max_bit_for_bit(part: int, tmp_path: Path) -> None:
    assert_all_pass(segment_max_cases(np.random.default_rng([SEED, 10 + part]), CASES_PER_MODEL), tmp_path)


def test_f64_within_the_rule(tmp_path: Path) -> None:
    """f64 tables (of f32 values, without specials), which the CPU sums in f32 and the kernel in f64: within the
    rule's bound (gamma(n) sum|terms| plus both roundings)."""
    rng = np.random.default_rng([SEED, 20])
    cases = []
    for i in range(40):
        case = embedding_case(rng, OPS[i % len(OPS)], np.float32)
        case.inputs = [np.nan_to_num(x, posinf=1.0, neginf=-1.0).astype(np.float64) if x.dtype == np.float32 else x
                       for x in case.inputs]
        spec = lookup(*_op_type(OPS[i % len(OPS)]))
        raw = {"reduction": "mean"} if " mean " in case.what else {}
        case.limits, case.bits = rule_limits(spec, raw, case.inputs), False
        cases.append(case)
    assert_all_pass(cases, tmp_path)


def _op_type(op: str) -> tuple[str, str]:
    return {"offsets3": ("EmbeddingBagOffsetsSum", "opset3"), "packed3": ("EmbeddingBagPackedSum", "opset3"),
            "segments3": ("EmbeddingSegmentsSum", "opset3"), "offsets15": ("EmbeddingBagOffsets", "opset15"),
            "packed15": ("EmbeddingBagPacked", "opset15")}[op]


def test_the_bound_carries_moved_inputs() -> None:
    """Tables and weights moved within their bounds move the exact sums (and means) by no more than the rule's
    bound."""
    rng = np.random.default_rng([SEED, 30])
    for i in range(30):
        table = rng.standard_normal((6, 3)).astype(np.float32)
        indices = rng.integers(0, 6, (3, 4)).astype(np.int32)
        weights = [rng.standard_normal((3, 4)).astype(np.float32)] if i % 2 else []
        inputs = [table, indices, *weights]
        bounds = [np.abs(table) * 2.0**-10, np.zeros(()), *(np.abs(w) * 2.0**-8 for w in weights)]
        raw = {} if weights else {"reduction": pick(rng, ["sum", "mean"])}
        assert_bounds_carry_moves(EMBEDDING_BAG_PACKED_15, raw, inputs, bounds, rng, i)
        ids = np.sort(rng.integers(0, 4, 12)).astype(np.int32)
        flat = [table, indices.reshape(-1), ids, np.array(4, np.int32), np.array(2, np.int32), *(
            w.reshape(-1) for w in weights)]
        flat_bounds = [bounds[0], np.zeros(()), np.zeros(()), np.zeros(()), np.zeros(()), *(
            b.reshape(-1) for b in bounds[2:])]
        assert_bounds_carry_moves(EMBEDDING_SEGMENTS_SUM_3, {}, flat, flat_bounds, rng, i)


def test_refused_as_openvino_cpu_refuses() -> None:
    """What OpenVINO CPU refuses when it runs (measured): the kernel refuses too."""
    spec = lookup("EmbeddingBagOffsetsSum", "opset3")
    t = np.ones((4, 2), np.float32)
    i32 = np.int32
    for args in ([t, np.array([0, 4], i32), np.array([0], i32)],  # an index past the rows
                 [t, np.array([0, 1], i32), np.array([0, 2], i32)],  # an offset equal to the number of indices
                 [t, np.array([0, 1, 2], i32), np.array([0, 2, 1], i32)],  # offsets decreasing
                 [t, np.array([0, 1], i32), np.array([0, 0], i32), np.array(-2, i32)]):  # a default used, outside
        with pytest.raises(OpValidationError):
            spec.kernel(A.decode(spec.attrs, {}), args)
    segments = lookup("SegmentMax", "opset16")
    for args in ([t, np.array([0, 1, 0, 1], i32)], [t, np.array([-1, 0, 0, 1], i32)], [t[:0], np.zeros(0, i32)]):
        with pytest.raises(OpValidationError):
            segments.kernel(A.decode(segments.attrs, {"fill_mode": "zero"}), args)


# --- shape rules ----------------------------------------------------------------------------------------------------


def _index_element(rng: np.random.Generator) -> str | None:
    return pick(rng, ["i32"] * 4 + ["i64"] * 4 + ["f32", "u8", None])


def _bounds(rng: np.random.Generator, lengths: list[int]):
    return None if rng.random() < 0.1 else random_bounds(rng, lengths)


def embedding_shape_case(rng: np.random.Generator, op: str):
    """A node of ``op`` on Parameters (ranks at times wrong, element types at times dynamic or mismatched; a
    segment count known or not)."""
    element = pick(rng, ["f32", "f16", "u8", "i32", None])
    index = _index_element(rng)
    n, rows = int(rng.integers(0, 6)), int(rng.integers(1, 6))
    table = Operand(element, _bounds(rng, [rows, *(int(d) for d in rng.integers(1, 4, int(rng.integers(0, 3))))]))
    rank = lambda r: [n] * r if rng.random() < 0.9 else [n] * int(rng.integers(0, 3))  # noqa: E731
    other = lambda: index if rng.random() < 0.85 else _index_element(rng)  # noqa: E731
    weights_element = element if rng.random() < 0.85 else pick(rng, ["f32", "f16", None])
    reduction = pick(rng, ["sum", "mean"]) if op.endswith("15") else None
    if op.startswith("packed"):
        ops_ = [table, Operand(index, _bounds(rng, rank(2)))]
        if rng.random() < 0.5:
            ops_.append(Operand(weights_element, _bounds(rng, rank(2))))
    elif op.startswith("offsets"):
        ops_ = [table, Operand(index, _bounds(rng, rank(1))), Operand(other(), _bounds(rng, rank(1)))]
        extra = int(rng.integers(0, 3))
        if extra:
            ops_.append(Operand(other(), _bounds(rng, rank(0))))
        if extra == 2:
            ops_.append(Operand(weights_element, _bounds(rng, rank(1))))
    else:
        count_element = other()
        known = count_element in ("i32", "i64") and rng.random() < 0.5
        count = Operand(count_element, value=int(rng.integers(-1, 6))) if known else \
            Operand(count_element, _bounds(rng, rank(0)))
        ops_ = [table, Operand(index, _bounds(rng, rank(1))), Operand(other(), _bounds(rng, rank(1))), count]
        extra = int(rng.integers(0, 3))
        if extra:
            ops_.append(Operand(other(), _bounds(rng, rank(0))))
        if extra == 2:
            ops_.append(Operand(weights_element, _bounds(rng, rank(1))))
    op_type, version = _op_type(op)
    raw = {} if reduction is None else {"reduction": reduction}
    make = {"offsets3": ops3.embedding_bag_offsets_sum, "packed3": ops3.embedding_bag_packed_sum,
            "segments3": ops3.embedding_segments_sum, "offsets15": ops15.embedding_bag_offsets,
            "packed15": ops15.embedding_bag_packed}[op]

    def theirs(ops_=ops_, make=make, reduction=reduction):
        return openvino_outcome(lambda: make(*[o.node() for o in ops_], **({} if reduction is None else
                                                                          {"reduction": reduction})))

    def ours(ops_=ops_, op_type=op_type, version=version, raw=raw):
        found = [o.ours() for o in ops_]
        return our_outcome(op_type, version, raw, [t for t, _ in found], [v for _, v in found])

    return f"{op} {raw} " + " ".join(map(str, ops_)), theirs, ours


def segment_max_shape_case(rng: np.random.Generator):
    """A SegmentMax-16 node on Parameters, or Constants for its ids (sorted or not) and num_segments."""
    rows = int(rng.integers(0, 6))
    data = Operand(pick(rng, ["f32", "u8", "i64", None]), _bounds(rng, [rows, *(int(d) for d in rng.integers(
        1, 4, int(rng.integers(0, 3))))]))
    ids_element = _index_element(rng)
    if ids_element in ("i32", "i64") and rows and rng.random() < 0.5:  # (no empty Const: OpenVINO segfaults)
        ids = sorted(int(v) for v in rng.integers(0, 5, rows)) if rng.random() < 0.8 else \
            [int(v) for v in rng.integers(0, 5, rows)]
        segment_ids = Operand(ids_element, value=ids)
    else:
        segment_ids = Operand(ids_element, _bounds(rng, [rows] if rng.random() < 0.9 else [rows, 2]))
    ops_ = [data, segment_ids]
    if rng.random() < 0.6:
        element = ids_element if rng.random() < 0.8 else _index_element(rng)
        ops_.append(Operand(element, value=int(rng.integers(-1, 7))) if element in ("i32", "i64") and
                    rng.random() < 0.5 else Operand(element, _bounds(rng, [] if rng.random() < 0.9 else [1])))
    fill = pick(rng, ["ZERO", "LOWEST"])

    def theirs(ops_=ops_, fill=fill):
        return openvino_outcome(lambda: ops16.segment_max(*[o.node() for o in ops_], fill_mode=fill))

    def ours(ops_=ops_, fill=fill):
        found = [o.ours() for o in ops_]
        return our_outcome("SegmentMax", "opset16", {"fill_mode": fill}, [t for t, _ in found],
                           [v for _, v in found] + [None] * (3 - len(found)))

    return f"SegmentMax {fill} " + " ".join(map(str, ops_)), theirs, ours


@pytest.mark.parametrize("op", OPS)
def test_embedding_shape_rules_agree(op: str) -> None:
    rng = np.random.default_rng([SEED, 40, OPS.index(op)])
    assert_shapes_agree([embedding_shape_case(rng, op) for _ in range(200)])


def test_segment_max_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 50])
    assert_shapes_agree([segment_max_shape_case(rng) for _ in range(200)])


def test_opsets(tmp_path: Path) -> None:
    t = ops1.parameter([4, 2], np.float32)
    i = ops1.constant(np.array([0, 1], np.int32))
    nodes = {"EmbeddingBagOffsetsSum": ops3.embedding_bag_offsets_sum(t, i, ops1.constant(np.array([0], np.int32))),
             "EmbeddingBagPackedSum": ops3.embedding_bag_packed_sum(t, ops1.constant(np.array([[0, 1]], np.int32))),
             "EmbeddingSegmentsSum": ops3.embedding_segments_sum(t, i, i, ops1.constant(np.array(2, np.int32))),
             "EmbeddingBagOffsets": ops15.embedding_bag_offsets(t, i, ops1.constant(np.array([0], np.int32))),
             "EmbeddingBagPacked": ops15.embedding_bag_packed(t, ops1.constant(np.array([[0, 1]], np.int32))),
             "SegmentMax": ops16.segment_max(t, ops1.constant(np.array([0, 0, 1, 1], np.int32)), fill_mode="ZERO")}
    assert check_versions(nodes, [t], tmp_path) == []


def test_compare_checks_them(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A MatMul feeding every op's table, compared end to end and per layer (each was not checked before): the sums'
    bounds carry the MatMul's rounding."""
    rng = np.random.default_rng(3)
    x = ops1.parameter([8, 6], np.float32, name="x")
    table = ops1.matmul(x, ops1.constant(rng.standard_normal((6, 4)).astype(np.float32)), False, False)
    i32 = lambda v: ops1.constant(np.array(v, np.int32))  # noqa: E731
    weights = ops1.constant(rng.standard_normal(5).astype(np.float32))
    outs = [ops3.embedding_bag_offsets_sum(table, i32([1, 2, 7, 7, 0]), i32([0, 2, 2]), i32(3), weights),
            ops3.embedding_bag_packed_sum(table, i32([[0, 1, 2], [7, 7, 3]])),
            ops3.embedding_segments_sum(table, i32([1, 2, 7, 7, 0]), i32([0, 0, 1, 3, 3]), i32(4), i32(5), weights),
            ops15.embedding_bag_offsets(table, i32([1, 2, 7, 7, 0]), i32([0, 2, 2]), reduction="mean"),
            ops15.embedding_bag_packed(table, i32([[0, 1, 2], [7, 7, 3]]), reduction="mean"),
            ops16.segment_max(table, i32([0, 0, 1, 1, 1, 3, 3, 3]), fill_mode="LOWEST")]
    xml = tmp_path / "embedding.xml"
    ov.save_model(ov.Model([ops1.result(o) for o in outs], [x], "embedding"), xml)
    assert_compare_passes(xml, capsys, {"EmbeddingBagOffsetsSum@opset3", "EmbeddingBagPackedSum@opset3",
                                        "EmbeddingSegmentsSum@opset3", "EmbeddingBagOffsets@opset15",
                                        "EmbeddingBagPacked@opset15", "SegmentMax@opset16"}, outputs=6)

