"""ConvertPromoteTypes-14 (ops/core.py), BitwiseLeftShift-15 and BitwiseRightShift-15 (ops/bitwise.py) against
OpenVINO: shape rules and CPU kernels.

ConvertPromoteTypes' common type: every ordered pair of 21 element types (the 18 it takes, dynamic, and 2 it refuses)
under every attribute (promote_unsafe, pytorch_scalar_promotion, u64_integer_promotion_target f32 or i64) and rank
pattern (a static scalar beside a tensor either way or a dynamic rank, a dynamic rank beside a tensor, two tensors;
without pytorch_scalar_promotion, which alone reads ranks, two of them): OpenVINO's shape inference and our rule give
the same element type and partial shapes, or both refuse. Its values: 240 seeded cases over the 12 types numpy holds
(NaN, infinities, -0, subnormals, halves, values beyond the destination), fed and both inputs Constants (folded),
compiled for CPU: bit for bit.

The shifts: their shape rules on 400 seeded nodes (the binary ops' broadcasting, every element type) and dynamic
ranks; their values on every integer type, amounts negative, 0, bits - 1, the width and more, 31, 32, 2^31 and the
type's limits, numpy and none broadcasting, scalars: bit for bit, but where the CPU departs from the specification
(u32 ``>>`` of 2^31 or more, 64-bit values or results beyond i32, 64-bit amounts outside [0, 32)), which
``test_cpu_departures`` measures.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset14 as ops14
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.ops import attrs as A
from ir_tools.ops.bitwise import BITWISE_LEFT_SHIFT_15, BITWISE_RIGHT_SHIFT_15
from ir_tools.ops.core import CONVERT_PROMOTE_TYPES_14, ConvertPromoteTypesAttrs
from ir_tools.ops.spec import TensorType

from .conformance import (
    TINY,
    Bounds,
    Case,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    check_versions,
    describe,
    openvino_outcome,
    our_outcome,
    partial_shape,
    show,
    to_dims,
)
from .test_elementwise_conformance import ShapeCase, broadcast_attrs, broadcast_pair, compare_shapes

pytestmark = pytest.mark.openvino

SEED = 1415
#: The element types ConvertPromoteTypes takes; TYPES adds dynamic (None) and two it refuses.
PROMOTABLE = ("boolean", "f16", "f32", "f64", "bf16", "f8e4m3", "f8e5m2", "i4", "i8", "i16", "i32", "i64", "u1",
              "u4", "u8", "u16", "u32", "u64")
TYPES = (*PROMOTABLE, None, "string", "f8e8m0")
#: Rank patterns of the two inputs: a static scalar (()) beside a tensor either way or a dynamic rank (None), a
#: dynamic rank beside a tensor, two tensors.
RANKS = (((), ((2, 2),)), (((0, None),), ()), ((), None), (None, ((2, 2),)), (((2, 2), (0, 3)), ((1, None),)))
#: The types of the value cases (numpy's).
HELD = (np.bool_, np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
        np.uint32, np.uint64)


def _type(element: str | None) -> ov.Type:
    return ov.Type.dynamic if element is None else getattr(ov.Type, element)


def _promote_attrs() -> list[dict[str, object]]:
    """Every attribute combination: u64_integer_promotion_target matters only where promote_unsafe holds."""
    return [{"promote_unsafe": unsafe, "pytorch_scalar_promotion": pytorch, "u64_integer_promotion_target": target}
            for unsafe, pytorch in itertools.product((False, True), repeat=2)
            for target in (("f32", "i64") if unsafe else ("f32",))]


def _promote_nodes() -> Iterator[tuple[str | None, str | None, Bounds, Bounds, dict[str, object]]]:
    """Every pair of TYPES, every attribute combination and rank pattern (RANKS[::3] without
    pytorch_scalar_promotion): types, partial shapes and attributes."""
    for (t0, t1), attrs in itertools.product(itertools.product(TYPES, repeat=2), _promote_attrs()):
        for s0, s1 in RANKS if attrs["pytorch_scalar_promotion"] else RANKS[::3]:
            yield t0, t1, s0, s1, attrs


def test_promotion_table_agrees_with_openvino() -> None:
    """``_promote_nodes``: 21 * 21 * 21 nodes, OpenVINO's and ours alike."""
    failures, refused, total = [], 0, 0
    for t0, t1, s0, s1, attrs in _promote_nodes():
        def build(t0=t0, t1=t1, s0=s0, s1=s1, attrs=attrs):
            return ops14.convert_promote_types(ops1.parameter(partial_shape(s0), _type(t0)),
                                               ops1.parameter(partial_shape(s1), _type(t1)), **attrs)
        raw = {k: str(v).lower() for k, v in attrs.items()}
        want = openvino_outcome(build)
        got = our_outcome("ConvertPromoteTypes", "opset14", raw, [TensorType(t0, to_dims(s0)),
                                                                   TensorType(t1, to_dims(s1))], [None, None])
        total += 1
        refused += want == "rejects"
        if want != got:
            failures.append(f"{t0} {show(s0)}, {t1} {show(s1)} {raw}: OpenVINO {describe(want)}, ours {describe(got)}")
    assert not failures, f"{len(failures)} of {total} differ:\n" + "\n".join(failures[:20])
    assert 0.2 * total < refused < 0.8 * total, (refused, total)


def _kernel(op: str, x: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Our kernel of ``op`` on ``x`` and ``s``, numpy broadcasting."""
    spec = BITWISE_LEFT_SHIFT_15 if op == SHIFTS[0] else BITWISE_RIGHT_SHIFT_15
    return spec.kernel(A.decode(spec.attrs, {}), [x, s])[0]


def _held_values(rng: np.random.Generator, dtype: type, shape: tuple[int, ...], magnitude: int,
                 subnormals: bool) -> np.ndarray:
    """Values of ``dtype`` as OpenVINO CPU holds them exactly (the CPU's treatment of inputs, not the op's: an f64
    computed in f32, i64 in its low 32 bits, u32 and u64 through i32; an f16 infinity given as f32's largest):
    f32 specials (NaN, +-inf, +-0, ``subnormals``, halves, 3e9, -1e20, 70000, 255.5) among normal values of several
    scales; f16 and f64 the finite f32 ones; integers the type's limits (within i32 and ``magnitude``), 0, -1, 1
    and values anywhere in them."""
    n = int(np.prod(shape))
    if dtype is np.bool_:
        return (rng.random(n) < 0.5).reshape(shape)
    if np.issubdtype(dtype, np.floating):
        special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -2.5, 3e9, -1e20, 7e4, 255.5, -128.5, 65535.0,
                            2.0**31, -(2.0**31), 2.0**63, *([TINY / 4, -TINY] if subnormals else [])], np.float32)
        x = (rng.standard_normal(n) * 10.0 ** rng.integers(0, 11, n)).astype(np.float32)
        x = np.where(rng.random(n) < 0.4, rng.choice(special, n), x)
        if dtype is np.float16:
            x = np.clip(np.nan_to_num(x), -6e4, 6e4)
        elif dtype is np.float64:
            x = np.where(np.isfinite(x), x, np.float32(1.5))
        return x.astype(dtype).reshape(shape)
    held = np.iinfo(np.int32 if dtype in (np.int64, np.uint64, np.uint32) else dtype)
    lo, hi = max(int(np.iinfo(dtype).min), int(held.min), -magnitude), min(int(held.max), magnitude)
    x = rng.integers(lo, hi, n, endpoint=True)
    edges = np.array([v for v in (lo, hi, 0, -1, 1, 255, 256, 65535) if lo <= v <= hi])
    return np.where(rng.random(n) < 0.4, rng.choice(edges, n), x).astype(dtype).reshape(shape)


def promote_cases(rng: np.random.Generator, count: int, consts: bool = False) -> list[Case]:
    """``count`` ConvertPromoteTypes cases over pairs of HELD that OpenVINO builds (attributes drawn until it does),
    scalars drawn for pytorch_scalar_promotion; fed (Convert's fed conversion) or both Constants (folded: f32
    subnormals left out, which the CPU's Constants flush, and integers beyond f16 into f16, which folding saturates:
    Convert's matters). Integers into f64 stay within 2^24 (the CPU computes f64 in f32)."""
    cases: list[Case] = []
    while len(cases) < count:
        t0, t1 = (HELD[int(i)] for i in rng.integers(0, len(HELD), 2))
        s0, s1 = ((() if rng.random() < 0.3 else tuple(int(n) for n in rng.integers(1, 5, int(rng.integers(1, 3)))))
                  for _ in range(2))
        attrs = _promote_attrs()[int(rng.integers(0, 6))]

        def build(ns: list[ov.Node], attrs=attrs) -> ov.Node:
            return ops14.convert_promote_types(ns[0], ns[1], **attrs)

        try:
            target = build([ops1.parameter(list(s0), t0), ops1.parameter(list(s1), t1)]).get_output_element_type(0)
        except RuntimeError:
            continue
        magnitude = 2**24 if target == ov.Type.f64 else 65504 if consts and target == ov.Type.f16 else 2**63
        x, y = (_held_values(rng, t, s, magnitude, not consts) for t, s in ((t0, s0), (t1, s1)))
        what = f"ConvertPromoteTypes {x.dtype}{list(s0)} {y.dtype}{list(s1)} {attrs}" + (" consts" if consts else "")
        cases.append(Case(what, [x, y], build, limits=(None, None), consts=(0, 1) if consts else (), bits=True))
    return cases


@pytest.mark.parametrize("consts", [False, True])
def test_promote_values_bit_for_bit(consts: bool, tmp_path: Path) -> None:
    """120 cases: each output Convert's (fed, or folded when both inputs are Constants), bit for bit."""
    assert_all_pass(promote_cases(np.random.default_rng([SEED, consts]), 120, consts), tmp_path)


def test_promote_bf16_held_as_f32() -> None:
    """A bf16 input reaches the kernel as f32 (the executor's): with an f16 scalar beside a bf16 tensor (pytorch, safe:
    bf16), and with a bf16 scalar beside an f16 tensor (f16), the kernel converts as OpenVINO's types say."""
    spec, attrs = CONVERT_PROMOTE_TYPES_14, ConvertPromoteTypesAttrs(False, True)
    held, f16 = np.array([1.5, 3.0], np.float32), np.array(2.0, np.float16)
    assert [y.dtype for y in spec.kernel(attrs, [held, f16])] == [np.float32, np.float32]  # (bf16 held as f32)
    assert [y.dtype for y in spec.kernel(attrs, [np.float32(2.0), np.ones(2, np.float16)])] == [np.float16] * 2


def test_the_bound_carries_moved_inputs() -> None:
    """Convert's rule per output: float inputs (f32, f16 and f64 tensors and scalars, pytorch promotion or not) moved
    within their bounds move each output by no more than the rule's bound."""
    rng = np.random.default_rng([SEED, 5])
    for t0, t1, scalar, attrs in [(np.float32, np.float16, 1, {}), (np.float16, np.float32, 0, {}),
                                  (np.float64, np.float32, 1, {"pytorch_scalar_promotion": "true"}),
                                  (np.float16, np.float32, 1, {"pytorch_scalar_promotion": "true",
                                                               "promote_unsafe": "true"})]:
        xs = [_held_values(rng, t, () if i == scalar else (40,), 2**24, True) for i, t in enumerate((t0, t1))]
        xs = [np.where(np.isfinite(x), x, x.dtype.type(1)) for x in xs]
        bounds = [np.abs(x.astype(np.float64)) * rng.uniform(0, 1e-3, x.shape) for x in xs]
        assert_bounds_carry_moves(CONVERT_PROMOTE_TYPES_14, attrs, xs, bounds, rng, (t0, t1, attrs))


# -- the shifts ------------------------------------------------------------------------------------------------------

SHIFTS = ("BitwiseLeftShift", "BitwiseRightShift")
INTEGERS = (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64)


def test_shift_shape_rules() -> None:
    """400 seeded nodes: the binary ops' broadcasting (numpy, none, pdpd), every element type (boolean refused)."""
    import random

    rng = random.Random(SEED)
    elements = ("i8", "u8", "i32", "i64", "u64", "boolean", "f32", "f16", None, "u1", "i4", "nf4", "string")
    cases = []
    for i in range(400):
        a = rng.choice(elements)
        (x, y), roll = broadcast_pair(rng), rng.random()
        b = None if roll < 0.1 else rng.choice(elements) if roll < 0.2 else a
        attrs, late = broadcast_attrs(rng)
        cases.append(ShapeCase("opset15", SHIFTS[i % 2], [TensorType(a, x), TensorType(b, y)], attrs, late))
    failures, rejected = compare_shapes(cases)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:25])
    assert 0.15 * len(cases) < rejected < 0.7 * len(cases), rejected


def test_shift_dynamic_rank() -> None:
    """A dynamic rank either side, and scalars: our rule as OpenVINO's."""
    cases = []
    for op, (s0, s1), t in itertools.product(SHIFTS, [(None, ()), ((), None), ((), ()), (None, None)],
                                             ("i8", "boolean", None)):
        def theirs(op=op, s0=s0, s1=s1, t=t):
            return openvino_outcome(lambda: NodeFactory("opset15").create(
                op, [ops1.parameter(partial_shape(s), _type(t)).output(0) for s in (s0, s1)], {}))

        def ours(op=op, s0=s0, s1=s1, t=t):
            return our_outcome(op, "opset15", {}, [TensorType(t, to_dims(s0)), TensorType(t, to_dims(s1))],
                               [None, None])

        cases.append((f"{op} {t} {show(s0)} {show(s1)}", theirs, ours))
    assert_shapes_agree(cases)


def _amounts(rng: np.random.Generator, dtype: type, shape: tuple[int, ...], within: bool) -> np.ndarray:
    """Shift amounts: edges (negative, 0, bits - 1, the width and more, 31, 32, 2^31, the type's limits) and values
    anywhere in the type; ``within``: in [0, 32) only."""
    info = np.iinfo(dtype)
    n = int(np.prod(shape))
    if within:
        return rng.choice(np.array([0, 1, 7, 8, 15, 16, 30, 31], dtype), n).reshape(shape)
    edges = np.array([v for v in (-200, -64, -33, -32, -31, -9, -8, -1, 0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63,
                                  64, 65, 100, 2**31 - 1, 2**31, 2**32 + 1, int(info.min), int(info.max))
                      if info.min <= v <= info.max], dtype)
    anywhere = rng.integers(int(info.min), int(info.max), n, dtype=dtype, endpoint=True)
    return np.where(rng.random(n) < 0.6, rng.choice(edges, n), anywhere).reshape(shape)


def _shifted_values(rng: np.random.Generator, dtype: type, shape: tuple[int, ...], narrow: int | None) -> np.ndarray:
    """Values anywhere in ``dtype`` with its limits, 0, -1 and 1, or in [-2^narrow, 2^narrow) (signed) or
    [0, 2^narrow) ``narrow`` bits."""
    info = np.iinfo(dtype)
    n = int(np.prod(shape))
    lo, hi = (int(info.min), int(info.max)) if narrow is None else (
        -(2**narrow) if info.min < 0 else 0, 2**narrow - 1)
    x = rng.integers(lo, hi, n, dtype=dtype, endpoint=True)
    edges = np.array([v for v in (lo, hi, 0, -1, 1) if lo <= v <= hi], dtype)
    return np.where(rng.random(n) < 0.2, rng.choice(edges, n), x).reshape(shape)


def _domain(dtype: type, op: str) -> tuple[int | None, bool]:
    """Where the CPU computes as the specification: every value and amount on the types of 16 bits or less and i32,
    and u32 <<; u32 >> of values below 2^31; the 64-bit types on values of 31 bits (>>) or 15 (<<, by amounts below
    16: the result within i32), amounts in [0, 32): (the values' bits or None, whether amounts are so kept)."""
    bits = np.iinfo(dtype).bits
    if bits <= 16 or dtype is np.int32 or (dtype is np.uint32 and op == SHIFTS[0]):
        return None, False
    if dtype is np.uint32:
        return 31, False
    return (15, True) if op == SHIFTS[0] else (31, True)


def shift_cases(rng: np.random.Generator, count: int) -> list[Case]:
    """Each op on each integer type in turn, shapes broadcast numpy or none (scalars among them), within ``_domain``;
    << on 64-bit types with amounts below 16 (value below 2^15: the result within i32)."""
    cases = []
    kinds = list(itertools.product(INTEGERS, SHIFTS))
    for i in range(count):
        dtype, op = kinds[i % len(kinds)]
        mode = ("numpy", "numpy", "none")[i // len(kinds) % 3]
        target = tuple(int(n) for n in rng.integers(1, 6, int(rng.integers(0, 4))))
        other = target if mode == "none" else tuple(1 if rng.random() < 0.3 else n
                                                    for n in target[int(rng.integers(0, len(target) + 1)):])
        xs, ss = (target, other) if rng.random() < 0.5 else (other, target)
        narrow, within = _domain(dtype, op)
        s = _amounts(rng, dtype, ss, within)
        if within and op == SHIFTS[0]:
            s = s & dtype(15)
        x = _shifted_values(rng, dtype, xs, narrow)
        cases.append(Case(f"{op} {np.dtype(dtype)} {list(xs)} {list(ss)} {mode}", [x, s], _shift(op, mode),
                          bits=True))
    return cases


def _shift(op: str, mode: str) -> Callable[[list[ov.Node]], ov.Node]:
    return lambda ns: NodeFactory("opset15").create(op, [n.output(0) for n in ns], {"auto_broadcast": mode})


def test_shift_values_bit_for_bit(tmp_path: Path) -> None:
    """160 cases (10 per op and type), in one model: bit for bit."""
    assert_all_pass(shift_cases(np.random.default_rng([SEED, 15]), 160), tmp_path)


def _cpu(op: str, x: np.ndarray, s: np.ndarray) -> np.ndarray:
    """OpenVINO CPU's shift, on the inputs' low 32 bits as i32 by ``s & 31``, truncated (sign-extended) to the type."""
    k = (s.astype(np.uint64) & np.uint64(31)).astype(np.int64)
    low = x.astype(np.uint64).astype(np.uint32).view(np.int32).astype(np.int64)
    y = (low << k) if op == SHIFTS[0] else (low >> k)
    y32 = y.astype(np.uint64).astype(np.uint32).view(np.int32)
    return y32.astype(np.int64).astype(x.dtype) if x.dtype.itemsize == 8 else y32.astype(x.dtype) \
        if x.dtype.itemsize < 4 else y32.view(x.dtype)


def test_cpu_departures(tmp_path: Path) -> None:
    """The measured CPU on every integer type, 4000 seeded pairs each, values and amounts anywhere: ``_cpu`` (i32,
    ``s & 31``) bit for bit; our kernel equal to it on the types of 16 bits and i32, u32 <<; on u32 >>, i64 and u64
    it computes the specification instead, which the CPU departs from."""
    rng = np.random.default_rng([SEED, 32])
    params, nodes, feed, kinds = [], [], {}, []
    for dtype, op in itertools.product(INTEGERS, SHIFTS):
        x, s = _shifted_values(rng, dtype, (4000,), None), _amounts(rng, dtype, (4000,), False)
        p, q = ops1.parameter([4000], dtype), ops1.parameter([4000], dtype)
        feed |= {len(params): x, len(params) + 1: s}
        params += [p, q]
        nodes.append(NodeFactory("opset15").create(op, [p.output(0), q.output(0)], {}))
        kinds.append((dtype, op, x, s))
    got = ov.Core().compile_model(ov.Model(nodes, params), "CPU")(feed)
    for k, (dtype, op, x, s) in enumerate(kinds):
        theirs, ours = got[k], _kernel(op, x, s)
        assert np.array_equal(theirs, _cpu(op, x, s)), (dtype, op)
        alike = np.iinfo(dtype).bits <= 32 and not (dtype is np.uint32 and op == SHIFTS[1])
        assert np.array_equal(ours, theirs) == alike, (dtype, op)


def test_examples() -> None:
    """The measured examples (ops/bitwise.py): i8 1 << -1 is 0, 40 << 4 is -128, -128 >> 100 is -8; i32 x << 32 is
    x; u32 3653403231 >> 1 is 1826701615 in the kernel (the CPU: 3974185263); i64 1 << 40 is 2^40 (the CPU: 256)."""
    left, right = SHIFTS
    assert _kernel(left, np.array([1, 40], np.int8), np.array([-1, 4], np.int8)).tolist() == [0, -128]
    assert _kernel(right, np.array(-128, np.int8), np.array(100, np.int8)) == -8
    assert _kernel(left, np.array(77, np.int32), np.array(32, np.int32)) == 77
    assert _kernel(right, np.array(3653403231, np.uint32), np.array(1, np.uint32)) == 1826701615
    assert _kernel(left, np.array(1, np.int64), np.array(40, np.int64)) == 2**40


def test_opsets(tmp_path: Path) -> None:
    x, y = ops1.parameter([2, 3], np.int32), ops1.parameter([3], np.int32)
    nodes = {op: NodeFactory("opset15").create(op, [x.output(0), y.output(0)], {}) for op in SHIFTS}
    nodes["ConvertPromoteTypes"] = ops14.convert_promote_types(x, y)
    assert check_versions(nodes, [x, y], tmp_path) == []


def test_compare_checks_them(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A model promoting an i32 input and an f32 MatMul's output into f32 (unsafe: Convert's rounding, and the
    MatMul's bound carried), then shifting the i32 input left and right by a fed i32 amount: compared end to end and
    per layer, nothing left unchecked."""
    rng = np.random.default_rng(3)
    x = ops1.parameter([4, 8], np.float32, name="x")
    n = ops1.parameter([4, 4], np.int32, name="n")
    s = ops1.parameter([4], np.int32, name="s")
    h = ops1.matmul(x, ops1.constant(rng.standard_normal((8, 4)).astype(np.float32)), False, False)
    promoted = ops14.convert_promote_types(n, h, promote_unsafe=True)
    left = NodeFactory("opset15").create("BitwiseLeftShift", [n.output(0), s.output(0)], {})
    right = NodeFactory("opset15").create("BitwiseRightShift", [left.output(0), s.output(0)], {})
    total = ops1.add(promoted.output(0), promoted.output(1))
    xml = tmp_path / "promote_shift.xml"
    ov.save_model(ov.Model([ops1.result(total), ops1.result(right)], [x, n, s], "promote_shift"), xml)
    assert_compare_passes(xml, capsys, {"ConvertPromoteTypes@opset14", "BitwiseLeftShift@opset15",
                                        "BitwiseRightShift@opset15"}, outputs=2)
