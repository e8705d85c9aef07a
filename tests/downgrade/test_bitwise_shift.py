"""BitwiseLeftShift/RightShift-15 migrated for OpenVINO 2023.0 (passes/downgrade/bitwise_shift.py): on i8, u8, i16
and u16 through f32 (a Gather-1 of powers of two, Multiply-1, Floor-1), << on i32 as a wrapping Multiply-1, >> on i32
from its 16-bit halves; run on 2023.0 (and 2024.0) and the current OpenVINO equal to the current OpenVINO on the
original, shift amounts negative, 0, bits - 1, of the width or more included. The u32, i64 and u64 shifts and pdpd
broadcasting are refused."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, installed, migrate

pytestmark = NEEDS_2023

OPS = ("BitwiseLeftShift", "BitwiseRightShift")
#: The types rewritten, per op.
TYPES = {np.int8: OPS, np.uint8: OPS, np.int16: OPS, np.uint16: OPS, np.int32: OPS}


def _name(dtype: type) -> str:
    return np.dtype(dtype).name.replace("uint", "u").replace("int", "i")


def _amounts(rng: np.random.Generator, shape: list[int], dtype: type) -> np.ndarray:
    """Shift amounts: half near the edges (negative, 0, bits - 1, bits, 31, 32, the type's limits), half anywhere."""
    info = np.iinfo(dtype)
    edges = [v for v in (-33, -32, -31, -9, -8, -1, 0, 1, info.bits - 1, info.bits, info.bits + 1, 31, 32, 33, 63,
                         100, info.min, info.min + 1, info.max, info.max - 1) if info.min <= v <= info.max]
    near = rng.choice(np.array(edges, np.int64), shape)
    anywhere = rng.integers(int(info.min), int(info.max), shape, dtype=np.int64, endpoint=True)
    return np.where(rng.random(shape) < 0.5, near, anywhere).astype(dtype)


def _values(rng: np.random.Generator, shape: list[int], dtype: type) -> np.ndarray:
    info = np.iinfo(dtype)
    x = rng.integers(int(info.min), int(info.max), shape, dtype=np.int64, endpoint=True)
    x.reshape(-1)[:4] = [int(info.min), int(info.max), -1 if info.min else 1, 0][: x.size]
    return x.astype(dtype)


def _every_pair(dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """Every value of ``dtype`` with every shift amount of a 8-bit type, or with a representative of each class of
    ``s & 31`` and the limits (16 and 32 bits), and every shift amount of a 16-bit type with a few values."""
    info = np.iinfo(dtype)
    if info.bits == 32:
        every = np.concatenate([np.arange(-5000, 5000), np.arange(2**31 - 5000, 2**31),
                                np.arange(-(2**31), -(2**31) + 5000), np.arange(2**24 - 5000, 2**24 + 5000)])
    else:
        every = np.arange(int(info.min), int(info.max) + 1)
    if info.bits == 8:
        x, s = np.meshgrid(every, every, indexing="ij")
        return x.ravel().astype(dtype), s.ravel().astype(dtype)
    amounts = np.array([v for v in [*range(-34, 35), info.min, info.min + 1, info.max, info.max - 1]
                        if info.min <= v <= info.max])
    x1, s1 = np.meshgrid(every, amounts, indexing="ij")
    few = np.array([v for v in (info.min, -1, 0, 1, 3, 77, info.max) if info.min <= v <= info.max])
    x2, s2 = np.meshgrid(few, every if info.bits == 16 else every[::7], indexing="ij")
    return (np.concatenate([x1.ravel(), x2.ravel()]).astype(dtype),
            np.concatenate([s1.ravel(), s2.ravel()]).astype(dtype))


def _shapes(rng: np.random.Generator) -> tuple[list[int], list[int], str]:
    """Shapes of x and the amounts that broadcast under numpy (or equal, for none)."""
    target = [int(n) for n in rng.integers(1, 6, rng.integers(0, 4))]
    if rng.random() < 0.25:
        return target, target, "none"
    second = [1 if rng.random() < 0.3 else n for n in target[int(rng.integers(0, len(target) + 1)):]]
    return (target, second, "numpy") if rng.random() < 0.5 else (second, target, "numpy")


def shift_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray], Counter]:
    """``cases`` seeded shift layers on Parameters (each op on each type of TYPES in turn, numpy or none
    broadcasting), then one layer per op and type over ``_every_pair``; the path, the inputs and the rewrites
    migrate should print."""
    import openvino as ov
    import openvino.opset1 as o1
    from openvino.utils.node_factory import NodeFactory

    kinds = [(op, dtype) for dtype, ops in TYPES.items() for op in ops]
    params, results, inputs, expected = [], [], {}, Counter()
    for i in range(cases + len(kinds)):
        op, dtype = kinds[i % len(kinds)]
        if i < cases:
            xs, ss, mode = _shapes(rng)
            x_value, s_value = _values(rng, xs, dtype), _amounts(rng, ss, dtype)
        else:
            x_value, s_value = _every_pair(dtype)
            mode = "numpy"
        x = o1.parameter(list(x_value.shape), dtype, name=f"x{i}")
        s = o1.parameter(list(s_value.shape), dtype, name=f"s{i}")
        node = NodeFactory("opset15").create(op, [x.output(0), s.output(0)], {"auto_broadcast": mode})
        node.set_friendly_name(f"shift{i}")
        params += [x, s]
        results.append(o1.result(node, name=f"y{i}"))
        inputs |= {f"x{i}": x_value, f"s{i}": s_value}
        element = _name(dtype)
        expected[f"{op}-15 ({element}) -> " + ("Multiply-1" if element == "i32" and op == OPS[0]
                                               else "Multiply-1 + Floor-1")] += 1
    ov.save_model(ov.Model(results, params, "shifts"), str(path), compress_to_fp16=False)
    return path, inputs, expected


def test_bitwise_shifts_15_run_on_2023_equal_to_the_current_openvino(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """360 seeded layers and 10 over every value (every pair on 8 bits), on 2023.0 and on 2024.0."""
    model, inputs, expected = shift_model(tmp_path / "shifts.xml", np.random.default_rng(15), 360)
    out, printed = migrate(model, capsys)
    for rewrite, count in expected.items():
        assert f"rewrote {count} x {rewrite}" in printed, (rewrite, printed)
    assert assert_runs_equal(model, out, inputs=inputs, releases=installed("2023.0", "2024.0")) == 370


@pytest.mark.parametrize(("op", "dtype", "mode"), [("BitwiseRightShift", np.uint32, "numpy"),
                                                   ("BitwiseLeftShift", np.uint32, "numpy"),
                                                   ("BitwiseRightShift", np.int64, "numpy"),
                                                   ("BitwiseLeftShift", np.uint64, "numpy"),
                                                   ("BitwiseLeftShift", np.uint8, "pdpd")])
def test_bitwise_shifts_15_refused_without_an_exact_form(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         op: str, dtype: type, mode: str) -> None:
    import openvino as ov
    import openvino.opset1 as o1
    from openvino.utils.node_factory import NodeFactory

    x, s = o1.parameter([2, 3], dtype, name="x"), o1.parameter([2, 3] if mode == "pdpd" else [3], dtype, name="s")
    node = NodeFactory("opset15").create(op, [x.output(0), s.output(0)], {"auto_broadcast": mode})
    node.set_friendly_name("shift")
    path = tmp_path / f"{op}.xml"
    ov.save_model(ov.Model([node], [x, s], op), str(path))
    assert_refused(path, "shift", f"{op} of opset15", capsys)
