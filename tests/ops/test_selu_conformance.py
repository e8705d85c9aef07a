"""Selu-1 (ops/activations.py) against OpenVINO: shape rule and CPU kernel.

Kernel: 480 seeded cases (f32 and f16 data of rank 0 to 4 at scales 1e-3 to 30, tiny negatives, alpha and lambda
one-element Consts of rank 0 or 1: SELU's own constants, and random ones of either sign from 0.01 to 100) batched
40 to a model and compiled once per model for OpenVINO CPU; values within the rounding rule's bound alone. 40 more
hold NaN and infinities (NaN stays NaN, +inf gives lambda inf, -inf gives -alpha lambda). Shape rule: 300 seeded
nodes on Parameters (partial shapes of data, any shapes of alpha and lambda, element types f32, f16, i32, boolean,
dynamic, mixed) must give our rule's output, or both refuse. ``check_versions``: opset1..16 read Selu-1. CPU compiles
only constant alpha and lambda and reads their first element (the evaluator element i % size): the reference refuses
more elements (UnsupportedError), which compare lists as not checked.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import pytest

from ir_tools.base.errors import UnsupportedError
from ir_tools.ops.activations import SELU_1
from ir_tools.ops.core import NoAttrs

from .conformance import (
    ELEMENTS,
    Case,
    assert_all_pass,
    assert_compare_passes,
    assert_shapes_agree,
    check_versions,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    random_bounds,
    rule_limits,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 1701
CASES_PER_MODEL = 40


def selu_case(rng: np.random.Generator, dtype: type, special: bool = False) -> list[np.ndarray]:
    shape = [int(d) for d in rng.integers(1, 6, int(rng.integers(0, 5)))]
    x = rng.standard_normal(shape) * float(pick(rng, [1e-3, 0.3, 1.0, 5.0, 30.0 if dtype is np.float32 else 8.0]))
    if rng.random() < 0.2:
        x = -np.abs(x) * 1e-4  # where exp(x) - 1 cancels
    x = np.asarray(x).astype(dtype)
    if special and x.size:
        x.reshape(-1)[rng.random(x.size) < 0.5] = pick(rng, [np.nan, np.inf, -np.inf])
    if rng.random() < 0.4:
        alpha, lam = 1.6732632423543772, 1.0507009873554805
    else:
        alpha, lam = (float(pick(rng, [-1.0, 1.0]) * 10 ** rng.uniform(-2, 2)) for _ in range(2))
    shape = pick(rng, [(), (1,)])
    return [x, np.full(shape, alpha, dtype), np.full(shape, lam, dtype)]


def selu_cases(rng: np.random.Generator, n: int, special: bool = False) -> list[Case]:
    cases = []
    for i in range(n):
        inputs = selu_case(rng, (np.float32, np.float16)[i % 2], special)
        what = f"Selu {inputs[0].dtype}{list(inputs[0].shape)} alpha {inputs[1]} lambda {inputs[2]}"
        limits = rule_limits(SELU_1, {}, inputs)
        cases.append(Case(what, inputs, lambda ps: ops1.selu(*ps), limits, consts=(1, 2)))
    return cases


@pytest.mark.parametrize("part", range(12))
def test_values_within_the_bound(part: int, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, part])
    assert_all_pass(selu_cases(rng, CASES_PER_MODEL), tmp_path)


def test_nan_and_infinities(tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, 99])
    assert_all_pass(selu_cases(rng, 40, special=True), tmp_path)


def test_alpha_of_more_elements_is_refused() -> None:
    x = np.ones((2, 3), np.float32)
    with pytest.raises(UnsupportedError):
        SELU_1.kernel(NoAttrs(), [x, np.ones(3, np.float32), np.ones((), np.float32)])


def test_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 1])
    cases = []
    for _ in range(300):
        lengths = [int(n) for n in rng.integers(0, 6, int(rng.integers(0, 5)))]
        shapes = [None if rng.random() < 0.1 else random_bounds(rng, lengths)] + [
            pick(rng, [((1, 1),), (), ((3, 3),), None]) for _ in range(2)]
        first = pick(rng, ["f32", "f16", "i32", "boolean", None])
        elements = [first if rng.random() < 0.8 else pick(rng, ["f32", "f16", "i32", None]) for _ in range(3)]

        def theirs(shapes=shapes, elements=elements):
            return openvino_outcome(lambda: ops1.selu(*(ops1.parameter(partial_shape(s), ELEMENTS[e])
                                                        for s, e in zip(shapes, elements, strict=True))))

        def ours(shapes=shapes, elements=elements):
            return our_outcome("Selu", "opset1", {}, tensor_types(elements, shapes), [None] * 3)

        cases.append((f"Selu {elements} {[show(s) for s in shapes]}", theirs, ours))
    assert_shapes_agree(cases)


def test_opsets(tmp_path: Path) -> None:
    p = ops1.parameter([2, 3], np.float32)
    one = ops1.constant(np.float32(1.0))
    assert check_versions({"Selu": ops1.selu(p, one, one)}, [p], tmp_path) == []


def test_compare_checks_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A MatMul -> Selu model compared end to end and per layer (Selu was not checked, its output not compared)."""

    rng = np.random.default_rng(2)
    x = ops1.parameter([4, 16], np.float32, name="x")
    h = ops1.matmul(x, ops1.constant(rng.standard_normal((16, 8)).astype(np.float32)), False, False)
    y = ops1.selu(h, ops1.constant(np.float32(1.6732632)), ops1.constant(np.float32(1.0507010)))
    xml = tmp_path / "selu.xml"
    ov.save_model(ov.Model([ops1.result(y)], [x], "selu"), xml)
    assert_compare_passes(xml, capsys, {"Selu@opset1"}, outputs=1)
