"""BitwiseAnd/Or/Xor/Not-13 (ops/bitwise.py) against the installed OpenVINO.

(a) Shape rules: seeded nodes of each op (static, dynamic, interval and unbounded dims, dynamic ranks, numpy, none,
explicit and pdpd broadcasting that works and that does not, every element type) built by OpenVINO's NodeFactory and
by our registry path: the same element type and partial shape, or both reject.

(b) Kernels: seeded cases of every integer type and boolean batched into one model, compiled once for OpenVINO CPU:
equal. i64 and u64 values stay within i32's range, where the CPU (which computes them in i32) agrees with the
specification (ops/bitwise.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import openvino as ov
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.base.errors import OpValidationError
from ir_tools.ops import attrs as A
from ir_tools.ops.opsets import lookup
from ir_tools.ops.spec import TensorType

from .conformance import Case, run_cases
from .test_elementwise_conformance import (
    ELEMENTS,
    ShapeCase,
    broadcast_attrs,
    broadcast_pair,
    compare_shapes,
    node,
    pair_shapes,
    random_shape,
)

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 20313
BINARY = ("BitwiseAnd", "BitwiseOr", "BitwiseXor")
#: The types of the kernel cases, with the range their values are drawn from.
RANGES = {np.int8: None, np.int16: None, np.int32: None, np.uint8: None, np.uint16: None, np.uint32: None,
          np.int64: (-2**31, 2**31 - 1), np.uint64: (0, 2**31 - 1), np.bool_: None}


def bitwise_shape_cases(seed: int, count: int) -> list[ShapeCase]:
    rng = random.Random(seed)
    cases = []
    for i in range(count):
        a = rng.choice(ELEMENTS) if rng.random() < 0.5 else rng.choice(("i32", "u8", "boolean"))
        if i % 4 == 3:
            cases.append(ShapeCase("opset13", "BitwiseNot", [TensorType(a, random_shape(rng))]))
            continue
        (x, y), roll = broadcast_pair(rng), rng.random()
        b = None if roll < 0.1 else rng.choice(ELEMENTS) if roll < 0.2 else a
        attrs, late = broadcast_attrs(rng)
        cases.append(ShapeCase("opset13", BINARY[i % 4], [TensorType(a, x), TensorType(b, y)], attrs, late))
    return cases


def test_bitwise_shape_rules() -> None:
    cases = bitwise_shape_cases(SEED, 800)
    failures, rejected = compare_shapes(cases)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:25])
    assert 0.1 * len(cases) < rejected < 0.6 * len(cases), f"{rejected} of {len(cases)} rejected: a poor mix"


def test_real_types_are_refused() -> None:
    spec = lookup("BitwiseAnd", "opset13")
    f32 = TensorType("f32", ())
    with pytest.raises(OpValidationError, match="integer or boolean"):
        spec.infer(A.decode(spec.attrs, {}), [f32, f32], [None, None])


def draw(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """Values over the type's whole range (or RANGES'), its extremes, 0 and -1 mixed in."""
    if dtype is np.bool_:
        return rng.random(shape) < 0.5
    info = np.iinfo(dtype)
    lo, hi = RANGES[dtype] or (int(info.min), int(info.max))
    x = rng.integers(lo, hi, shape, dtype=dtype, endpoint=True)
    if x.size and rng.random() < 0.5:
        x.reshape(-1)[rng.integers(0, x.size, min(3, x.size))] = rng.choice(np.array([lo, hi, 0, hi // 2], dtype), 1)
    return x


def bitwise_cases(rng: np.random.Generator, count: int) -> list[Case]:
    """Each op on each type of RANGES, broadcast numpy, none or pdpd (OpenVINO's evaluator has no bitwise kernel: all
    on the CPU)."""
    cases, types = [], list(RANGES)
    for i in range(count):
        dtype = types[i % len(types)]
        if i % 4 == 3:
            shape = tuple(int(n) for n in rng.integers(1, 5, rng.integers(0, 4)))
            cases.append(Case(f"BitwiseNot {dtype.__name__}{list(shape)}", [draw(rng, shape, dtype)],
                              node("opset13", "BitwiseNot")))
            continue
        op, mode = BINARY[i % 4], ("numpy", "numpy", "none", "pdpd")[i // 4 % 4]
        xs, ys = pair_shapes(rng, mode)
        if mode == "pdpd" and not xs:  # the evaluator gives [1] for two scalars (shape inference: [])
            xs = (2,)
        cases.append(Case(f"{op} {dtype.__name__} {list(xs)} {list(ys)} {mode}",
                          [draw(rng, xs, dtype), draw(rng, ys, dtype)], _build(op, mode)))
    return cases


def _build(op: str, mode: str) -> Callable[[list[ov.Node]], ov.Node]:
    """The node, built on input 0 twice, then given pdpd's axis (which NodeFactory cannot take) and input 1."""

    def build(ins: list[ov.Node]) -> ov.Node:
        made = NodeFactory("opset13").create(op, [ins[0].output(0)] * 2, {"auto_broadcast": mode})
        if mode == "pdpd":
            made.set_attribute("auto_broadcast.auto_broadcast_axis", -1)
        made.input(1).replace_source_output(ins[1].output(0))
        made.validate_and_infer_types()
        return made

    return build


def test_bitwise_kernels(tmp_path: Path) -> None:
    cases = bitwise_cases(np.random.default_rng(SEED), 360)
    failures = run_cases(cases, tmp_path)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:25])
