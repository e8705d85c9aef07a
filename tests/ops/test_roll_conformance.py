"""Roll-7 (ops/movement.py) against the installed OpenVINO.

(a) Shape rules: seeded nodes (static, dynamic, interval and unbounded data dims, a dynamic rank; shift and axes
scalars or 1-D, i32, i64 or another type, Constants or Parameters; axes in and out of range) built by OpenVINO's
NodeFactory and by our registry path: the same element type and partial shape, or both reject.

(b) Kernels: seeded cases (ranks 1-4, shifts beyond the dim and negative, repeated and negative axes, scalar shift and
axis; f32, f16, i32, u8 data) batched into one model compiled once for OpenVINO CPU: equal. (The CPU plugin refuses a
scalar shift for several axes, which the shape rule allows: "'shift' and 'axes' dimensions mismatch".)
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import openvino as ov
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.base.dims import Dim
from ir_tools.ops.spec import TensorType

from .conformance import Case, run_cases
from .test_elementwise_conformance import ShapeCase, compare_shapes, random_shape

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 7007


def roll_shape_cases(seed: int, count: int) -> list[ShapeCase]:
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        data = random_shape(rng)
        rank = 2 if data is None else max(len(data), 1)
        length = rng.randint(1, 3)
        axes_values = np.array([rng.randint(-rank - 1, rank) for _ in range(length)],
                               rng.choice((np.int32, np.int64)))
        scalar_shift = rng.random() < 0.3
        shift_length = length if rng.random() < 0.85 else length + 1
        shift_values = np.array(rng.randint(-9, 9) if scalar_shift else [rng.randint(-9, 9)] * shift_length,
                                rng.choice((np.int32, np.int64)))
        shift: TensorType | np.ndarray = shift_values
        axes: TensorType | np.ndarray = axes_values
        if rng.random() < 0.3:
            shift = TensorType(rng.choice(("i32", "i64", "i64", "f32")),
                               () if scalar_shift else (Dim(shift_length, shift_length),))
        if rng.random() < 0.3:
            axes = TensorType(rng.choice(("i32", "i64", "i64", "u8")), (Dim(length, length),))
        cases.append(ShapeCase("opset7", "Roll", [TensorType(rng.choice(("f32", "i32", "f16")), data), shift, axes]))
    return cases


def test_roll_shape_rules() -> None:
    cases = roll_shape_cases(SEED, 600)
    failures, rejected = compare_shapes(cases)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:25])
    assert 0.1 * len(cases) < rejected < 0.6 * len(cases), f"{rejected} of {len(cases)} rejected: a poor mix"


def roll_cases(rng: np.random.Generator, count: int) -> list[Case]:
    cases = []
    types = (np.float32, np.float16, np.int32, np.uint8)
    for i in range(count):
        rank = int(rng.integers(1, 5))
        shape = tuple(int(n) for n in rng.integers(1, 6, rank))
        dtype = types[i % len(types)]
        data = (rng.standard_normal(shape) * 10).astype(dtype) if dtype in (np.float32, np.float16) else \
            rng.integers(0, 100, shape).astype(dtype)
        axes = rng.integers(-rank, rank, int(rng.integers(1, 4)))
        shift = rng.integers(-12, 13, len(axes))  # the CPU plugin wants as many shifts as axes
        if i % 5 == 0:  # a scalar shift of a scalar axis
            axes, shift = axes[:1].reshape(()), shift[:1].reshape(())
        index = (np.int32, np.int64)[i % 2]
        cases.append(Case(f"Roll {dtype.__name__}{list(shape)} shift {shift.tolist()} axes {axes.tolist()}",
                          [data, shift.astype(index), axes.astype(index)], _roll, consts=(1, 2)))
    return cases


def _roll(ins: list[ov.Node]) -> ov.Node:
    return NodeFactory("opset7").create("Roll", [node.output(0) for node in ins], {})


def test_roll_kernels(tmp_path: Path) -> None:
    cases = roll_cases(np.random.default_rng(SEED), 240)
    failures = run_cases(cases, tmp_path)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:25])
