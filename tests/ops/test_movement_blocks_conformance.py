"""ReverseSequence-1, ShuffleChannels-1, BatchToSpace-2 and SpaceToBatch-2 (ops/movement_blocks.py) against OpenVINO:
shape rules and CPU kernels.

Kernels: 320 seeded cases per op judged by OpenVINO CPU (f32 with NaNs and -0, f16, i32, i64, i8, u8 and boolean
data of ranks 1 to 6 as each op takes them; ReverseSequence on every pair of distinct axes, negative ones too, with
seq_lengths of i32, i64, f32, f16 and u8, 0, the axis's length and truncated fractions included, integer data within
2^24 (CPU moves it through f32); ShuffleChannels on every axis with groups of 1 to 4; BatchToSpace and SpaceToBatch
with blocks of 1 to 3 per spatial dim, crops up to the whole dim and pads of 0 to 3, block/crops/pads of i32 or i64 as
Constants or, one case in five, Parameters), and 174 more SpaceToBatch cases of rank 4 or 5 with pads, which CPU
computes wrongly (``test_cpu_pads_defect``) and OpenVINO's evaluator judges, batched into one model, saved as IR,
read and run by ir_tools and compiled once for OpenVINO CPU: every output must be OpenVINO's bit for bit (the rounding
rule is ``moves``: exact), and our rule must give each case's static output. What CPU refuses or runs otherwise than
OpenVINO's inference or reference (lengths out of [0, n], one axis for batch and sequence, a batch block, crop or pad,
negative pads) is refused by the kernels, the cases avoid it, and ``test_kernels_refuse_lengths_cpu_refuses`` and
``test_kernels_refuse_what_cpu_runs_otherwise`` check it against CPU.
Shape rules: 360 seeded nodes per op on Parameters and Constants of partial shapes (static, dynamic, interval and
unbounded dims, dynamic ranks, ranks 0 to 5), value inputs known or not, of i32, i64, u8, f32, boolean or a dynamic
type, out-of-range axes, zero and negative groups, blocks, crops and pads, dims the blocks do not divide, must give
our rule's output partial shape and element type, or both refuse. ``check_versions``: each op in exactly its
opsets; ``compare`` checks a model of the four end to end and per layer.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset2 as ops2
import openvino.opset3 as ops3
import pytest

from ir_tools.base.dims import shape_from_ints
from ir_tools.base.errors import OpValidationError
from ir_tools.ops import attrs as A
from ir_tools.ops.movement_blocks import BATCH_TO_SPACE_2, REVERSE_SEQUENCE_1, SHUFFLE_CHANNELS_1, SPACE_TO_BATCH_2
from ir_tools.ops.rounding import EXACT
from ir_tools.ops.spec import OpSpec, TensorType
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import (
    Case,
    Operand,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    blur,
    check_versions,
    openvino_outcome,
    our_outcome,
    pick,
)

pytestmark = pytest.mark.openvino

SEED = 3132
PER_OP = 320  # kernel cases per op
SHAPE_CASES = 360  # shape-rule cases per op
DTYPES = (np.float32, np.float16, np.int32, np.int64, np.uint8, np.int8, np.bool_)
NAMES = {np.dtype(t): n for t, n in ((np.float32, "f32"), (np.float16, "f16"), (np.int32, "i32"), (np.int64, "i64"),
                                     (np.uint8, "u8"), (np.int8, "i8"), (np.bool_, "boolean"))}
#: ReverseSequence's CPU kernel moves data through f32 (ops/movement_blocks.py): integers within 2^24 only.
F32_EXACT = 2**24


def data(rng: np.random.Generator, dtype: type, shape: list[int], through_f32: bool = False) -> np.ndarray:
    if dtype is np.bool_:
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(np.int32 if dtype is np.int64 else dtype)  # CPU holds i64 as i32
        lo, hi = (max(info.min, -F32_EXACT), min(info.max, F32_EXACT)) if through_f32 else (info.min, info.max)
        return rng.integers(lo, hi, shape, dtype=dtype, endpoint=True)
    x = rng.standard_normal(shape).astype(dtype)
    x[rng.random(shape) < 0.05] = np.nan
    x[rng.random(shape) < 0.05] = -0.0
    return x


def checked(spec: OpSpec, raw: dict[str, str], inputs: list[np.ndarray], known: bool) -> None:
    """Our rule gives the kernel's output shape (value inputs known: all of them)."""
    attrs = A.decode(spec.attrs, raw)
    (want,) = spec.kernel(attrs, inputs)
    types = [TensorType(NAMES.get(x.dtype, "f64"), shape_from_ints(x.shape)) for x in inputs]
    values = [x if known and j in spec.value_inputs else None for j, x in enumerate(inputs)]
    (got,) = spec.infer(attrs, types, values)
    if known:
        assert got.shape == shape_from_ints(want.shape), (spec.label, got, want.shape)
    else:
        assert got.shape is not None and len(got.shape) == want.ndim


# --- kernels -------------------------------------------------------------------------------------------------------

#: A kernel case and what made it: the spec and its raw attributes.
Made = tuple[OpSpec, dict[str, str], Case]


def reverse_sequence_case(rng: np.random.Generator, i: int) -> Made:
    dtype = DTYPES[i % len(DTYPES)]
    rank = int(rng.integers(2, 6))
    shape = [int(rng.integers(1, 4)) for _ in range(rank)]
    batch, seq = (int(v) for v in rng.choice(rank, 2, replace=False))  # (distinct: the kernel refuses one axis)
    shape[seq] = int(rng.integers(1, 6))
    n = shape[seq]
    length_type = pick(rng, [np.int32, np.int64, np.float32, np.float16, np.uint8])
    lengths = rng.integers(0, n, shape[batch], endpoint=True).astype(np.float64)
    if np.dtype(length_type).kind == "f":  # fractions, truncated (and -0.5 reads 0): never past n
        lengths = np.where(rng.random(lengths.shape) < 0.4, lengths + np.round(rng.random(lengths.shape) * 0.8, 2),
                           lengths)
        lengths = np.where(rng.random(lengths.shape) < 0.1, -0.5, lengths)
        lengths = np.minimum(lengths, n)
    lengths = lengths.astype(length_type)
    batch_axis = batch - rank if rng.random() < 0.3 else batch
    seq_axis = seq - rank if rng.random() < 0.3 else seq
    x = data(rng, dtype, shape, through_f32=True)
    raw = {"batch_axis": str(batch_axis), "seq_axis": str(seq_axis)}
    checked(REVERSE_SEQUENCE_1, raw, [x, lengths], True)
    what = f"ReverseSequence {raw} {NAMES[np.dtype(dtype)]}{shape} lengths {lengths.tolist()}"
    return REVERSE_SEQUENCE_1, raw, Case(what, [x, lengths],
                                         lambda p: ops1.reverse_sequence(p[0], p[1], batch_axis, seq_axis), bits=True)


def shuffle_channels_case(rng: np.random.Generator, i: int) -> Made:
    dtype = DTYPES[i % len(DTYPES)]
    rank = int(rng.integers(1, 6))
    shape = [int(rng.integers(1, 4)) for _ in range(rank)]
    axis = int(rng.integers(-rank, rank))
    group = int(rng.integers(1, 5))
    shape[axis] = group * int(rng.integers(1, 4))
    x = data(rng, dtype, shape)
    raw = {"axis": str(axis), "group": str(group)}
    checked(SHUFFLE_CHANNELS_1, raw, [x], True)
    return SHUFFLE_CHANNELS_1, raw, Case(f"ShuffleChannels {raw} {NAMES[np.dtype(dtype)]}{shape}", [x],
                                         lambda p: ops3.shuffle_channels(p[0], axis, group), bits=True)


def block_case(rng: np.random.Generator, i: int, op: str) -> Made:
    dtype = DTYPES[i % len(DTYPES)]
    rank = int(rng.integers(2, 7 if rng.random() < 0.2 else 5))
    blocks = [1] + [int(rng.integers(1, 4 if rank <= 4 else 3)) for _ in range(rank - 1)]
    while math.prod(blocks) > 12:
        blocks[int(np.argmax(blocks))] -= 1
    value_type = pick(rng, [np.int32, np.int64])
    spatial = [int(rng.integers(1, 4)) for _ in range(rank - 1)]
    if op == "BatchToSpace":
        shape = [int(rng.integers(1, 3)) * math.prod(blocks), *spatial]
        full = [d * b for d, b in zip(spatial, blocks[1:], strict=True)]
        crops = [int(rng.integers(0, d + 1)) if rng.random() < 0.5 else 0 for d in full]  # (to nothing, too)
        begin = [0] + [int(rng.integers(0, c + 1)) for c in crops]
        end = [0] + [c - b for c, b in zip(crops, begin[1:], strict=True)]
    else:
        pads = [(-d) % b + b * int(rng.integers(0, 2)) for d, b in zip(spatial, blocks[1:], strict=True)]
        begin = [0] + [int(rng.integers(0, p + 1)) for p in pads]
        end = [0] + [p - b for p, b in zip(pads, begin[1:], strict=True)]
        shape = [int(rng.integers(1, 3)), *spatial]
    evaluator = op == "SpaceToBatch" and rank in (4, 5) and any(begin + end)  # CPU's defect: test_cpu_pads_defect
    if evaluator:
        value_type = np.int64  # (the evaluator reads the values as int64 whatever their type)
    x = data(rng, dtype, shape)
    values = [np.array(v, value_type) for v in (blocks, begin, end)]
    consts = (1, 2, 3) if rng.random() < 0.8 else ()
    spec, make = {"BatchToSpace": (BATCH_TO_SPACE_2, ops2.batch_to_space),
                  "SpaceToBatch": (SPACE_TO_BATCH_2, ops2.space_to_batch)}[op]
    checked(spec, {}, [x, *values], bool(consts))
    fed = "Constants" if consts else "Parameters"
    what = f"{op} {NAMES[np.dtype(dtype)]}{shape} blocks {blocks} {begin} {end} ({np.dtype(value_type)} {fed})"
    return spec, {}, Case(what, [x, *values], lambda p: make(*p), consts=consts, bits=True, evaluator=evaluator)


MAKERS = {"ReverseSequence": reverse_sequence_case, "ShuffleChannels": shuffle_channels_case,
          "BatchToSpace": lambda rng, i: block_case(rng, i, "BatchToSpace"),
          "SpaceToBatch": lambda rng, i: block_case(rng, i, "SpaceToBatch")}


def kernel_cases(rng: np.random.Generator, count: int) -> list[Case]:
    """``count`` cases of each op judged by OpenVINO CPU, and SpaceToBatch's judged by its evaluator besides."""
    cases = []
    for make in MAKERS.values():
        on_cpu = 0
        while on_cpu < count:
            cases.append(make(rng, len(cases))[2])
            on_cpu += not cases[-1].evaluator
    return cases


def test_values_bit_equal(tmp_path: Path) -> None:
    rng = np.random.default_rng(SEED)
    assert_all_pass(kernel_cases(rng, PER_OP), tmp_path)


def test_bounds_move_with_their_elements() -> None:
    """Data moved anywhere within its bounds moves each result by no more than the rule's bound (``moves``): 40 f32
    cases per op, the other inputs exact."""
    rng = np.random.default_rng([SEED, 2])
    for make in MAKERS.values():
        for _ in range(40):
            spec, raw, case = make(rng, 0)  # (f32)
            x = np.nan_to_num(case.inputs[0], nan=1.0)
            bound = np.abs(rng.standard_normal(x.shape)) * float(rng.choice([1e-6, 1e-3, 1e-1]))
            others = [EXACT] * (len(case.inputs) - 1)
            assert_bounds_carry_moves(spec, raw, [x, *case.inputs[1:]], [bound, *others], rng, case.what)


def compiled_run(node: ov.Node, params: list[ov.Node], feed: list[np.ndarray]) -> list[np.ndarray] | str:
    """OpenVINO CPU's outputs, or its error."""
    try:
        request = ov.Core().compile_model(ov.Model(node.outputs(), params), "CPU", CPU_CONFIG).create_infer_request()
        request.infer(feed)
    except RuntimeError as exc:
        return str(exc)
    return [request.get_output_tensor(k).data.copy() for k in range(node.get_output_size())]


@pytest.mark.parametrize("lengths", [[5, 1, 1], [-1, 2, 3], [np.nan, 1, 1], [2**31, 1, 1]],
                         ids=["past-the-axis", "negative", "nan", "i32-overflow"])
def test_kernels_refuse_lengths_cpu_refuses(lengths: list[float]) -> None:
    """CPU refuses, when it runs, a length past the seq axis, a negative one and a NaN ("Incorrect input 'seq_lengths'
    values!"); so does the kernel. (An i64 length of 2^32 + 2 CPU reads as 2, wrapped: the kernel refuses it.)"""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    dtype = np.float32 if np.isnan(lengths[0]) else np.int64
    seq = np.array(lengths, dtype)
    p, q = ops1.parameter([3, 4], np.float32), ops1.parameter([3], dtype)
    outcome = compiled_run(ops1.reverse_sequence(p, q, 0, 1), [p, q], [x, seq])
    assert isinstance(outcome, str) and "seq_lengths" in outcome, outcome
    attrs = A.decode(REVERSE_SEQUENCE_1.attrs, {"batch_axis": "0", "seq_axis": "1"})
    with pytest.raises(OpValidationError):
        REVERSE_SEQUENCE_1.kernel(attrs, [x, seq])
    with pytest.raises(OpValidationError):  # wrapped to 2 by CPU, refused by the reference
        REVERSE_SEQUENCE_1.kernel(attrs, [x, np.array([2**32 + 2, 1, 1], np.int64)])


def test_kernels_refuse_what_cpu_runs_otherwise() -> None:
    """What CPU runs otherwise than OpenVINO's inference or reference, refused by the kernels: one axis for batch and
    sequence (CPU's element lengths by output position), a batch block, batch crops or pads (CPU's output shape is
    not the inferred one), negative SpaceToBatch pads (likewise)."""
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    p, q = ops1.parameter([4, 4], np.float32), ops1.parameter([4], np.int32)
    lengths = np.array([2, 3, 4, 1], np.int32)
    cpu = compiled_run(ops1.reverse_sequence(p, q, 1, 1), [p, q], [x, lengths])
    assert cpu[0].tolist()[0] == [1, 1, 1, 3]  # the reference writes input column c at position lengths[c] - 1 - c
    with pytest.raises(OpValidationError, match="one axis"):
        REVERSE_SEQUENCE_1.kernel(A.decode(REVERSE_SEQUENCE_1.attrs, {"batch_axis": "1", "seq_axis": "-1"}),
                                  [x, lengths])
    y = np.arange(16, dtype=np.float32).reshape(4, 2, 2)
    for op, spec, make, values, inferred in (
            ("BatchToSpace", BATCH_TO_SPACE_2, ops2.batch_to_space, ([2, 1, 1], [0, 0, 0], [0, 0, 0]), [2, 2, 2]),
            ("BatchToSpace", BATCH_TO_SPACE_2, ops2.batch_to_space, ([1, 2, 1], [1, 0, 0], [0, 0, 0]), [2, 4, 2]),
            ("SpaceToBatch", SPACE_TO_BATCH_2, ops2.space_to_batch, ([2, 1, 1], [0, 0, 0], [0, 0, 0]), [8, 2, 2]),
            ("SpaceToBatch", SPACE_TO_BATCH_2, ops2.space_to_batch, ([1, 2, 1], [1, 0, 0], [0, 0, 0]), [8, 1, 2]),
            ("SpaceToBatch", SPACE_TO_BATCH_2, ops2.space_to_batch, ([1, 2, 1], [0, -2, 0], [0, 0, 0]), [8, 1, 2])):
        d = ops1.parameter([4, 2, 2], np.float32)
        node = make(d, *(ops1.constant(np.array(v, np.int64)) for v in values))
        assert [n.get_length() for n in node.get_output_partial_shape(0)] == inferred, (op, values)
        cpu = compiled_run(node, [d], [y])
        assert isinstance(cpu, str) or list(cpu[0].shape) != inferred, (op, values, cpu)
        with pytest.raises(OpValidationError):
            spec.kernel(A.decode(spec.attrs, {}), [y, *(np.array(v, np.int64) for v in values)])


def test_float_blocks_are_refused() -> None:
    with pytest.raises(RuntimeError):
        ops2.batch_to_space(ops1.parameter([4, 2], np.float32), *(ops1.constant(np.array(v, np.float32))
                                                                  for v in ([1, 2], [0, 0], [0, 0])))
    with pytest.raises(OpValidationError):
        BATCH_TO_SPACE_2.kernel(A.decode(BATCH_TO_SPACE_2.attrs, {}),
                                [np.zeros((4, 2), np.float32), *(np.array(v, np.float32)
                                                                 for v in ([1, 2], [0, 0], [0, 0]))])


# --- shape rules ---------------------------------------------------------------------------------------------------

def around(rng: np.random.Generator, lengths: list[int], rank_p: float = 0.08, static_p: float = 0.3):
    """A partial shape around ``lengths``: static, each dim static, dynamic, an interval or unbounded, or a dynamic
    rank."""
    if rng.random() < rank_p:
        return None
    return tuple((n, n) if rng.random() < static_p else blur(rng, n) for n in lengths)


def shape_case(op: str, make, attrs: dict[str, object], operands: list[Operand]):
    raw = {k: str(v) for k, v in attrs.items()}
    what = f"{op} {raw} " + ", ".join(map(str, operands))
    opset = {"BatchToSpace": "opset2", "SpaceToBatch": "opset2"}.get(op, "opset1")

    def theirs():
        return openvino_outcome(lambda: make([o.node() for o in operands], **attrs))

    def ours():
        types, values = zip(*(o.ours() for o in operands), strict=True)
        return our_outcome(op, opset, raw, list(types), list(values))

    return what, theirs, ours


def reverse_sequence_shapes(rng: np.random.Generator) -> list:
    cases = []
    for _ in range(SHAPE_CASES):
        rank = int(rng.integers(0, 2)) if rng.random() < 0.08 else int(rng.integers(2, 6))
        lengths = [int(rng.integers(0, 7)) for _ in range(rank)]
        batch, seq = (int(rng.integers(-rank - 1, rank + 1)) if rng.random() < 0.08 else
                      int(rng.integers(-rank, max(rank, 1))) for _ in range(2))
        n = lengths[batch] if -rank <= batch < rank else 3
        if rng.random() < 0.1:
            n += int(rng.integers(1, 3))
        seq_rank = pick(rng, [1] * 12 + [0, 2])
        seq_shape = around(rng, [n] if seq_rank == 1 else [n] * seq_rank, static_p=0.6)
        elements = [pick(rng, ["f32", "i32", "boolean", None]),
                    pick(rng, ["i32", "i64", "f32", "f16", "u8", None] * 3 + ["boolean"])]
        operands = [Operand(elements[0], around(rng, lengths)), Operand(elements[1], seq_shape)]
        cases.append(shape_case("ReverseSequence", lambda ns, **a: ops1.reverse_sequence(*ns, **a),
                                {"batch_axis": batch, "seq_axis": seq}, operands))
    return cases


def shuffle_channels_shapes(rng: np.random.Generator) -> list:
    cases = []
    for _ in range(SHAPE_CASES):
        rank = int(rng.integers(0, 6))
        group = int(rng.integers(-1, 2)) if rng.random() < 0.1 else int(rng.integers(1, 5))
        axis = int(rng.integers(-rank - 1, rank + 1)) if rng.random() < 0.15 else int(rng.integers(-rank, max(rank,
                                                                                                            1)))
        lengths = [int(rng.integers(0, 7)) for _ in range(rank)]
        if -rank <= axis < rank and rng.random() < 0.6:
            lengths[axis] = max(group, 1) * int(rng.integers(0, 4))
        operand = Operand(pick(rng, ["f32", "i32", "boolean", None]), around(rng, lengths))
        cases.append(shape_case("ShuffleChannels", lambda ns, **a: ops3.shuffle_channels(*ns, **a),
                                {"axis": axis, "group": group}, [operand]))
    return cases


def value_operand(rng: np.random.Generator, values: list[int], element: str, rank: int) -> Operand:
    """A block/crops/pads input: mostly a Constant, else a Parameter of a shape around [rank]."""
    if rng.random() < 0.85 and element is not None and not (element == "u8" and min(values, default=0) < 0):
        return Operand(element, value=values)
    shape = around(rng, [len(values)], 0.1) if rng.random() < 0.9 else pick(rng, [(), ((rank, rank), (1, 1))])
    return Operand(element, shape)


def block_shapes(rng: np.random.Generator, op: str) -> list:
    make = ops2.batch_to_space if op == "BatchToSpace" else ops2.space_to_batch
    cases = []
    while len(cases) < SHAPE_CASES:
        rank = int(rng.integers(0, 6)) if rng.random() < 0.06 else int(rng.integers(2, 6))
        blocks = [1 if rng.random() < 0.85 else int(rng.integers(-1, 3))] + \
                 [int(rng.integers(1, 4)) if rng.random() < 0.96 else int(rng.integers(-1, 1)) for _ in range(rank - 1)]
        spatial = [int(rng.integers(0, 7)) for _ in range(rank - 1)]
        if op == "BatchToSpace":
            batch = int(rng.integers(0, 3)) * max(math.prod(blocks), 1) if rng.random() < 0.8 else int(
                rng.integers(0, 9))
            begin = [int(rng.integers(0, 3)) if rng.random() < 0.97 else -1 for _ in range(rank)]
            end = [int(rng.integers(0, 4)) if rng.random() < 0.97 else -1 for _ in range(rank)]
            for i in range(1, rank):  # mostly within the dim times its block
                if rng.random() < 0.7 and begin[i] + end[i] > spatial[i - 1] * blocks[i] >= 0:
                    begin[i], end[i] = 0, int(rng.integers(0, spatial[i - 1] * blocks[i] + 1))
        else:
            batch = int(rng.integers(0, 4))
            begin = [int(rng.integers(0, 3)) if rng.random() < 0.93 else int(rng.integers(-3, 0))
                     for _ in range(rank)]
            end = [int(rng.integers(0, 3)) if rng.random() < 0.93 else int(rng.integers(-3, 0)) for _ in range(rank)]
            for i in range(1, rank):  # mostly divisible
                if rng.random() < 0.7 and blocks[i] > 0:
                    end[i] += (-(spatial[i - 1] + begin[i] + end[i])) % blocks[i]
        if rng.random() < 0.06 and rank:  # values of another length than the rank
            cut = pick(rng, ["short", "long"])
            blocks, begin, end = ([v[:-1] if cut == "short" else [*v, 1] for v in (blocks, begin, end)])
        elements = [pick(rng, ["i64", "i64", "i32"])] * 3
        if rng.random() < 0.1:
            elements[int(rng.integers(3))] = pick(rng, ["i32", "i64", "u8", "f32", "boolean", None])
        operands = [Operand(pick(rng, ["f32", "i32", "boolean", None]), around(rng, [batch, *spatial], static_p=0.5)),
                    *(value_operand(rng, v, e, rank) for v, e in zip((blocks, begin, end), elements, strict=True))]
        known = all(o.value is not None for o in operands[1:])
        if op == "SpaceToBatch" and known and operands[0].shape is not None and \
                any(len(o.value) < len(operands[0].shape) for o in operands[1:]):
            continue  # OpenVINO reads the values past their end (undefined; our rule declines)
        cases.append(shape_case(op, lambda ns, m=make, **a: m(*ns), {}, operands))
    return cases


@pytest.mark.parametrize("op", ["ReverseSequence", "ShuffleChannels", "BatchToSpace", "SpaceToBatch"])
def test_shape_rules_agree(op: str) -> None:
    rng = np.random.default_rng([SEED, 1, len(op)])
    make = {"ReverseSequence": reverse_sequence_shapes, "ShuffleChannels": shuffle_channels_shapes}.get(
        op, lambda r: block_shapes(r, op))
    assert_shapes_agree(make(rng))


# --- tables and tools ----------------------------------------------------------------------------------------------


def test_opsets(tmp_path: Path) -> None:
    p = ops1.parameter([4, 4, 2, 2], np.float32)
    blocks = [ops1.constant(np.array(v, np.int64)) for v in ([1, 2, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0])]
    nodes = {"ReverseSequence": ops1.reverse_sequence(p, ops1.constant(np.array([1, 2, 3, 4], np.int32)), 0, 1),
             "ShuffleChannels": ops3.shuffle_channels(p, 1, 2),
             "BatchToSpace": ops2.batch_to_space(p, *blocks), "SpaceToBatch": ops2.space_to_batch(p, *blocks)}
    assert check_versions(nodes, [p], tmp_path) == []


def test_a_model_compared_end_to_end_and_per_layer(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A dilated convolution as TensorFlow exports it (SpaceToBatch -> Convolution -> BatchToSpace), a channel
    shuffle (ShuffleChannels) and a bidirectional layer's reversal (ReverseSequence, lengths an input seeded within
    the sequence: ``index_input``) compared by ``compare``: every output and layer checked."""

    rng = np.random.default_rng(4)
    x = ops1.parameter([1, 4, 8, 8], np.float32, name="x")
    lengths = ops1.parameter([1], np.int64, name="lengths")
    s2b = ops2.space_to_batch(x, *(ops1.constant(np.array(v, np.int64)) for v in ([1, 1, 2, 2], [0, 0, 2, 2],
                                                                                  [0, 0, 2, 2])))
    conv = ops1.convolution(s2b, ops1.constant(rng.standard_normal((4, 4, 3, 3)).astype(np.float32)), [1, 1], [0, 0],
                            [0, 0], [1, 1])
    b2s = ops2.batch_to_space(conv, *(ops1.constant(np.array(v, np.int64)) for v in ([1, 1, 2, 2], [0, 0, 0, 0],
                                                                                     [0, 0, 0, 0])))
    shuffled = ops3.shuffle_channels(ops1.relu(b2s), 1, 2)
    reversed_ = ops1.reverse_sequence(ops1.reshape(shuffled, ops1.constant(np.array([1, 32, 8], np.int64)), False),
                                      lengths, 0, 1)
    xml = tmp_path / "blocks.xml"
    ov.save_model(ov.Model([ops1.result(reversed_)], [x, lengths], "blocks"), xml)
    assert_compare_passes(xml, capsys, {"SpaceToBatch@opset2", "BatchToSpace@opset2", "ShuffleChannels@opset1",
                                        "ReverseSequence@opset1"}, outputs=1)


def test_cpu_pads_defect() -> None:
    """OpenVINO CPU's SpaceToBatch of rank 4 or 5 (its own kernel; other ranks run OpenVINO's reference) leaves some
    padded positions holding other elements' values instead of zeros (measured: 99 of 400 seeded padded cases, every
    difference at a padded position). The kernel pads zeros as the specification and OpenVINO's evaluator do; CPU
    agrees with it at every position of the data."""
    x = np.arange(1, 9, dtype=np.float32).reshape(2, 1, 2, 2)
    values = [np.array(v, np.int64) for v in ([1, 3, 1, 1], [0, 1, 0, 0], [0, 1, 0, 0])]
    node = ops2.space_to_batch(ops1.constant(x), *(ops1.constant(v) for v in values))
    out = ov.Tensor(node.get_output_element_type(0), node.get_output_shape(0))
    assert node.evaluate([out], [ov.Tensor(x), *(ov.Tensor(v) for v in values)])
    (ours,) = SPACE_TO_BATCH_2.kernel(A.decode(SPACE_TO_BATCH_2.attrs, {}), [x, *values])
    assert ours.tobytes() == out.data.tobytes()
    p = ops1.parameter([2, 1, 2, 2], np.float32)
    (cpu,) = compiled_run(ops2.space_to_batch(p, *(ops1.constant(v) for v in values)), [p], [x])
    (padded,) = SPACE_TO_BATCH_2.kernel(A.decode(SPACE_TO_BATCH_2.attrs, {}), [np.ones_like(x), *values])
    assert cpu.shape == ours.shape and np.array_equal(cpu[padded == 1], ours[padded == 1])
