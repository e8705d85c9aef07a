"""HardSigmoid-1 against OpenVINO CPU: 240 seeded cases (f32 and f16, random ranks, alpha and beta),
batched 40 to a model (alpha and beta Consts, as the CPU plugin needs them); values within the
rounding rule's bound alone, and OpenVINO's refusals of non-scalar alpha/beta and mixed element
types are ours too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino.opset1 as ops
import pytest

from ir_tools.base.dims import shape_from_ints
from ir_tools.base.errors import OpValidationError
from ir_tools.ops.activations import HARD_SIGMOID_1
from ir_tools.ops.core import NoAttrs
from ir_tools.ops.spec import TensorType

from .conformance import Case, assert_all_pass, rule_limits

pytestmark = pytest.mark.openvino

CASES_PER_MODEL = 40


def _case(rng: np.random.Generator, dtype: type) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    shape = tuple(int(d) for d in rng.integers(1, 6, rng.integers(0, 5)))
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    alpha = np.asarray(rng.uniform(-1, 1), dtype)
    beta = np.asarray(rng.uniform(-1, 2), dtype)
    return x, alpha, beta


@pytest.mark.parametrize("seed", range(6))
def test_values_within_the_bound(seed: int, tmp_path: Path) -> None:
    """OpenVINO CPU's values within the rule's bound of ours (the executor also re-infers every output shape)."""
    rng = np.random.default_rng(seed)
    dtype = np.float16 if seed % 2 else np.float32
    cases = [Case(f"case {i}", list(inputs), lambda ps: ops.hard_sigmoid(*ps), rule_limits(HARD_SIGMOID_1, {}, inputs),
                  consts=(1, 2))  # the CPU wants constant alpha and beta
             for i, inputs in enumerate(_case(rng, dtype) for _ in range(CASES_PER_MODEL))]
    assert_all_pass(cases, tmp_path)


@pytest.mark.parametrize("alpha_shape, types", [((1,), ("f32", "f32", "f32")), ((), ("f32", "f16", "f32"))])
def test_refusals_agree(alpha_shape: tuple[int, ...], types: tuple[str, str, str]) -> None:
    numpy = {"f32": np.float32, "f16": np.float16}
    x = ops.parameter([2, 3], numpy[types[0]])
    alpha = ops.parameter(list(alpha_shape), numpy[types[1]])
    beta = ops.parameter([], numpy[types[2]])
    with pytest.raises(Exception):  # noqa: B017 (OpenVINO raises its own types)
        ops.hard_sigmoid(x, alpha, beta)
    shapes = [(2, 3), alpha_shape, ()]
    with pytest.raises(OpValidationError):
        inputs = [TensorType(t, shape_from_ints(s)) for t, s in zip(types, shapes, strict=True)]
        HARD_SIGMOID_1.infer(NoAttrs(), inputs, [None] * 3)
