"""BitwiseAnd/Or/Xor/Not-13 migrated for OpenVINO 2023.0 (passes/downgrade/bitwise.py): on booleans as
LogicalAnd/Or/Xor/Not-1, BitwiseNot on i8-i64, u8 and u16 as Subtract-1 from a constant; equal to the current
OpenVINO exactly. And/Or/Xor on integers, and Not on u32, are refused."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, migrate

pytestmark = NEEDS_2023

BINARY = ("BitwiseAnd", "BitwiseOr", "BitwiseXor")
#: BitwiseNot's integer types, with the range of their values (i64 within i32's: OpenVINO CPU computes it in i32).
INTEGERS = {np.int8: None, np.int16: None, np.int32: None, np.int64: (-2**31, 2**31 - 1), np.uint8: None,
            np.uint16: None}


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
    info = np.iinfo(dtype)
    lo, hi = INTEGERS[dtype] or (int(info.min), int(info.max))
    x = rng.integers(lo, hi, shape, dtype=dtype, endpoint=True)
    x.reshape(-1)[: 2] = [lo, hi][: x.size]
    return x


def bitwise_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray], Counter]:
    """``cases`` bitwise layers on Parameters: And/Or/Xor on booleans (numpy, none or pdpd broadcasting at any
    axis) and Not on booleans and on each type of INTEGERS; the path, the inputs (integers over their whole range)
    and the rewrites migrate should print."""
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
    ov.save_model(ov.Model(results, params, "bitwise"), str(path), compress_to_fp16=False)
    return path, inputs, expected


def test_bitwise_13_runs_on_2023_equal_to_the_current_openvino(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """420 seeded layers: half And/Or/Xor on booleans, half Not on booleans and six integer types."""
    model, inputs, expected = bitwise_model(tmp_path / "bitwise.xml", np.random.default_rng(13), 420)
    out, printed = migrate(model, capsys)
    for rewrite, count in expected.items():
        assert f"rewrote {count} x {rewrite}" in printed, (rewrite, printed)
    assert assert_runs_equal(model, out, inputs=inputs) == 420


@pytest.mark.parametrize(("op", "dtype"), [("BitwiseAnd", np.int32), ("BitwiseXor", np.uint8),
                                           ("BitwiseNot", np.uint32)])
def test_bitwise_13_refused_on_integers_without_an_exact_form(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               op: str, dtype: type) -> None:
    import openvino as ov
    import openvino.opset1 as o1
    from openvino.utils.node_factory import NodeFactory

    x = o1.parameter([2, 3], dtype, name="x")
    node = NodeFactory("opset13").create(op, [x.output(0)] * (1 if op == "BitwiseNot" else 2), {})
    node.set_friendly_name("bits")
    path = tmp_path / f"{op}.xml"
    ov.save_model(ov.Model([node], [x], op), str(path))
    assert_refused(path, "bits", f"{op} of opset13", capsys)
