"""BitwiseAnd/Or/Xor/Not-13 migrated for OpenVINO 2023.0 (passes/downgrade/bitwise.py): on booleans as
LogicalAnd/Or/Xor/Not-1, BitwiseNot on i8-i64, u8 and u16 as Subtract-1 from a constant, And/Or/Xor on i8, u8, i16,
u16 and i32 bit by bit; equal to the current OpenVINO exactly. And/Or/Xor on u32, i64 and u64, and Not on u32, are
refused."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from ir_tools.base.dtypes import from_numpy
from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, migrate

pytestmark = NEEDS_2023

BINARY = ("BitwiseAnd", "BitwiseOr", "BitwiseXor")
#: BitwiseNot's integer types, with the range of their values (i64 within i32's: OpenVINO CPU computes it in i32).
INTEGERS = {np.int8: None, np.int16: None, np.int32: None, np.int64: (-2**31, 2**31 - 1), np.uint8: None,
            np.uint16: None}
#: The integer types BitwiseAnd/Or/Xor are rewritten on (per bit).
PER_BIT = (np.int8, np.uint8, np.int16, np.uint16, np.int32)


def _shapes(rng: np.random.Generator, mode: str) -> tuple[list[int], list[int], int]:
    """Two shapes that broadcast under ``mode`` (pdpd: the second aligned at the end, axis -1; OpenVINO CPU
    compiles no other axis)."""
    target = [int(n) for n in rng.integers(1, 5, rng.integers(1, 5))]
    if mode == "none":
        return target, target, 0
    start = int(rng.integers(0, len(target) + 1))
    if mode == "pdpd":
        second = [1 if rng.random() < 0.3 else n for n in target[start:]]
        return target, second, -1
    second = [1 if rng.random() < 0.3 else n for n in target[start:]]
    first = [1 if rng.random() < 0.3 else n for n in target[int(rng.integers(0, len(target))):]]
    return (first, second, 0) if rng.random() < 0.5 else (second, first, 0)


def _integers(rng: np.random.Generator, shape: list[int], dtype: type) -> np.ndarray:
    """Values over the type's range (i64: i32's), its limits, -1 (or 1) and 0 first; near them a quarter of the
    rest."""
    info = np.iinfo(dtype)
    lo, hi = INTEGERS[dtype] or (int(info.min), int(info.max))
    x = rng.integers(lo, hi, shape, dtype=dtype, endpoint=True)
    edges = np.array([v for v in (lo, lo + 1, hi, hi - 1, -1, 0, 1, 2**15, 2**16 - 1, 2**16, -2**15 - 1, 2**24 + 1)
                      if lo <= v <= hi], dtype)
    x = np.where(rng.random(shape) < 0.25, rng.choice(edges, shape), x).astype(dtype)
    x.reshape(-1)[: 4] = [lo, hi, -1 if lo else 1, 0][: x.size]
    return x


def _every_pair(dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of values of an 8-bit ``dtype``; of a wider one, every value (16 bits: i32 near its limits, 0, 2^16
    and 2^24) with each of a few that set or clear the top, middle and bottom bits."""
    info = np.iinfo(dtype)
    if info.bits == 8:
        every = np.arange(int(info.min), int(info.max) + 1)
        x, y = np.meshgrid(every, every, indexing="ij")
        return x.ravel().astype(dtype), y.ravel().astype(dtype)
    every = np.arange(int(info.min), int(info.max) + 1) if info.bits == 16 else np.unique(np.concatenate([
        np.arange(-(2**31), -(2**31) + 2000), np.arange(2**31 - 2000, 2**31), np.arange(-2000, 2000),
        np.arange(2**16 - 1000, 2**16 + 1000), np.arange(-(2**16) - 1000, -(2**16) + 1000),
        np.arange(2**24 - 1000, 2**24 + 1000)]))
    few = np.array([v for v in (info.min, info.min + 1, -2, -1, 0, 1, 0x5555, 0xAAAA, 2**15, 0x55555555, 2**24 + 1,
                                info.max) if info.min <= v <= info.max])
    x, y = np.meshgrid(every, few, indexing="ij")
    return x.ravel().astype(dtype), y.ravel().astype(dtype)


def bitwise_model(path: Path, rng: np.random.Generator, cases: int,
                  per_bit: int = 0) -> tuple[Path, dict[str, np.ndarray], Counter]:
    """``cases`` bitwise layers on Parameters: And/Or/Xor on booleans (numpy, none or pdpd broadcasting at any
    axis) and Not on booleans and on each type of INTEGERS; then ``per_bit`` layers of And/Or/Xor on each type of
    PER_BIT (``_per_bit_layer``) and one per op and type over ``_every_pair``; the path, the inputs (integers over
    their whole range) and the rewrites migrate should print."""
    import openvino as ov
    import openvino.opset1 as o1
    from openvino.utils.node_factory import NodeFactory

    params, results, inputs, expected = [], [], {}, Counter()
    for i in range(cases):
        if i % 2:
            op, mode = BINARY[i // 2 % 3], ("numpy", "numpy", "none", "pdpd")[i // 6 % 4]
            xs, ys, axis = _shapes(rng, mode)
            x, y = o1.parameter(xs, bool, name=f"x{i}"), o1.parameter(ys, bool, name=f"y{i}")
            node = NodeFactory("opset13").create(op, [x.output(0), x.output(0)], {"auto_broadcast": mode})
            if mode == "pdpd":
                node.set_attribute("auto_broadcast.auto_broadcast_axis", axis)
            node.input(1).replace_source_output(y.output(0))
            node.validate_and_infer_types()
            fed = {f"x{i}": rng.random(xs) < 0.5, f"y{i}": rng.random(ys) < 0.5}
            expected[f"{op}-13 (boolean) -> Logical{op[7:]}-1"] += 1
        else:
            dtype = [bool, *INTEGERS][i // 2 % (len(INTEGERS) + 1)]
            shape = [int(n) for n in rng.integers(1, 5, rng.integers(0, 4))]
            x = o1.parameter(shape, dtype, name=f"x{i}")
            node = NodeFactory("opset13").create("BitwiseNot", [x.output(0)], {})
            fed = {f"x{i}": rng.random(shape) < 0.5 if dtype is bool else _integers(rng, shape, dtype)}
            element = "boolean" if dtype is bool else np.dtype(dtype).name.replace("int", "i").replace("ui", "u")
            expected["BitwiseNot-13 (boolean) -> LogicalNot-1" if dtype is bool
                     else f"BitwiseNot-13 ({element}) -> Subtract-1"] += 1
            y = None
        node.set_friendly_name(f"bitwise{i}")
        params += [x] if y is None else [x, y]
        results.append(o1.result(node, name=f"out{i}"))
        inputs |= fed
    kinds = [(op, dtype) for dtype in PER_BIT for op in BINARY]
    for i in range(cases, cases + per_bit + len(kinds)):
        op, dtype = kinds[(i - cases) % len(kinds)]
        layer_params, node, fed = _per_bit_layer(rng, i, op, dtype, i >= cases + per_bit)
        params += layer_params
        results.append(o1.result(node, name=f"out{i}"))
        inputs |= fed
        expected[f"{op}-13 ({from_numpy(np.dtype(dtype)).name}) -> per-bit FloorMod-1 + ReduceSum-1"] += 1
    ov.save_model(ov.Model(results, params, "bitwise"), str(path), compress_to_fp16=False)
    return path, inputs, expected


def _per_bit_layer(rng: np.random.Generator, i: int, op: str, dtype: type,
                   every_pair: bool) -> tuple[list, object, dict[str, np.ndarray]]:
    """One integer And/Or/Xor layer ``bitwise{i}`` on two Parameters: over ``_every_pair``, or of seeded shapes
    (numpy both ways, none, pdpd at -1; a third of them declared of dynamic dims; OpenVINO CPU compiles no Parameter
    of dynamic rank) and values (``_integers``)."""
    import openvino.opset1 as o1
    from openvino.utils.node_factory import NodeFactory

    if every_pair:
        x_value, y_value = _every_pair(dtype)
        mode, axis, dynamic = "numpy", 0, False
    else:
        mode = ("numpy", "numpy", "none", "pdpd")[i // 3 % 4]
        xs, ys, axis = _shapes(rng, mode)
        x_value, y_value, dynamic = _integers(rng, xs, dtype), _integers(rng, ys, dtype), rng.random() < 0.3
    x, y = (o1.parameter([-1] * value.ndim if dynamic else list(value.shape), dtype, name=f"{side}{i}")
            for side, value in (("x", x_value), ("y", y_value)))
    node = NodeFactory("opset13").create(op, [x.output(0), x.output(0)], {"auto_broadcast": mode})
    if mode == "pdpd":
        node.set_attribute("auto_broadcast.auto_broadcast_axis", axis)
    node.input(1).replace_source_output(y.output(0))
    node.validate_and_infer_types()
    node.set_friendly_name(f"bitwise{i}")
    return [x, y], node, {f"x{i}": x_value, f"y{i}": y_value}


def test_bitwise_13_runs_on_2023_equal_to_the_current_openvino(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """420 seeded layers (half And/Or/Xor on booleans, half Not on booleans and six integer types), 150 of And/Or/Xor
    on i8, u8, i16, u16 and i32 and 15 over every pair of 8-bit values (of 16 and 32 bits: many)."""
    model, inputs, expected = bitwise_model(tmp_path / "bitwise.xml", np.random.default_rng(13), 420, 150)
    out, printed = migrate(model, capsys)
    for rewrite, count in expected.items():
        assert f"rewrote {count} x {rewrite}" in printed, (rewrite, printed)
    assert assert_runs_equal(model, out, inputs=inputs) == 585


@pytest.mark.parametrize(("op", "dtype", "target"), [("BitwiseAnd", np.uint32, "2023.0"),
                                                     ("BitwiseOr", np.int64, "2023.0"),
                                                     ("BitwiseXor", np.uint64, "2023.0"),
                                                     ("BitwiseNot", np.uint32, "2023.0"),
                                                     ("BitwiseOr", np.uint32, "2024.0")])
def test_bitwise_13_refused_on_integers_without_an_exact_form(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               op: str, dtype: type, target: str) -> None:
    """u32 (read through i32 by 2023.0 to 2025.3, which compute And/Or/Xor on it capped), i64 and u64 (their bits
    beyond 32 held saturated) are left, for a target without opset13 and for one with the defect alike."""
    import openvino as ov
    import openvino.opset1 as o1
    from openvino.utils.node_factory import NodeFactory

    x = o1.parameter([2, 3], dtype, name="x")
    node = NodeFactory("opset13").create(op, [x.output(0)] * (1 if op == "BitwiseNot" else 2), {})
    node.set_friendly_name("bits")
    path = tmp_path / f"{op}.xml"
    ov.save_model(ov.Model([node], [x], op), str(path))
    assert_refused(path, "bits", f"{op} of opset13" if target == "2023.0" else "computes", capsys, target)
