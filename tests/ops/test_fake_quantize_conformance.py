"""FakeQuantize-1 (ops/quantization.py) against OpenVINO: shape rule, CPU kernel and rounding rule, with the harness of
tests/ops/conformance.py.

Kernel: 400 seeded cases (f32 and f16; ranks 1 to 4; ranges per tensor, per channel or per element; 2 to 256
levels; inverted input and output ranges; data around and outside the range, a third of it exactly on the half
levels where rounding decides) in one model compiled once for OpenVINO CPU; every element must be within the rounding
rule's bound alone (a level flip where the exact position lies within a few f32 roundings of a half level, else the
output's roundings). Shape rule: 600 seeded nodes on Parameters of partial shapes under numpy, pdpd and none
broadcasting, with element types that differ, must give our rule's output partial shape and element type, or both
refuse. The rule's propagation: data moved within its bound moves the exact result by no more than the bound.
"""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ops1
import pytest

from ir_tools.ops.quantization import FAKE_QUANTIZE_1 as FQ
from ir_tools.ops.rounding import EXACT

from .conformance import (
    Bounds,
    Case,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_shapes_agree,
    blur,
    check_versions,
    openvino_outcome,
    our_outcome,
    parameters,
    pick,
    rule_limits,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 20614
LEVELS = (2, 3, 15, 16, 255, 256)


def _range_shape(rng: np.random.Generator, shape: list[int]) -> list[int]:
    kind = pick(rng, ["tensor", "scalar", "channel", "channel", "element"])
    if kind == "scalar":
        return []
    if kind == "tensor" or len(shape) < 2:
        return [1] * len(shape)
    if kind == "channel":
        return [1, shape[1]] + [1] * (len(shape) - 2)
    return list(shape)


def _case_values(rng: np.random.Generator, dtype) -> tuple[list[np.ndarray], int]:
    """Data and the four ranges (the data's third on half levels), and the levels."""
    shape = [int(n) for n in rng.integers(1, 6, int(rng.integers(1, 5)))]
    levels = int(pick(rng, LEVELS))
    low = rng.uniform(-3, 1, _range_shape(rng, shape))
    width = rng.uniform(0.1, 4, np.shape(low)) * np.where(rng.random(np.shape(low)) < 0.1, -1, 1)
    out_low = rng.uniform(-3, 1, _range_shape(rng, shape))
    out_width = rng.uniform(0.1, 4, np.shape(out_low)) * np.where(rng.random(np.shape(out_low)) < 0.2, -1, 1)
    ranges = [low, low + width, out_low, out_low + out_width]
    ranges = [np.asarray(r).astype(dtype) for r in ranges]
    lo, hi = (np.broadcast_to(r.astype(np.float64), shape) for r in ranges[:2])
    x = lo + (hi - lo) * rng.uniform(-0.3, 1.3, shape)
    half = rng.random(shape) < 0.35
    on_half = lo + (hi - lo) * (rng.integers(0, levels - 1, shape) + 0.5) / (levels - 1)
    x = np.where(half, on_half, x).astype(dtype)
    return [x, *ranges], levels


def fake_quantize_cases(rng: np.random.Generator, count: int) -> list[Case]:
    cases = []
    for i in range(count):
        dtype = np.float16 if i % 4 == 3 else np.float32
        inputs, levels = _case_values(rng, dtype)

        def build(ps, levels=levels):
            return ops1.fake_quantize(*ps, levels)

        what = f"FakeQuantize {np.dtype(dtype).name} {[list(np.shape(v)) for v in inputs]} levels={levels}"
        cases.append(Case(what, inputs, build, rule_limits(FQ, {"levels": str(levels)}, inputs)))
    return cases


def test_fake_quantize_kernel_within_its_rounding_bound(tmp_path):
    assert_all_pass(fake_quantize_cases(np.random.default_rng(SEED), 400), tmp_path)


def test_opset_versions(tmp_path):
    x = ops1.parameter([2, 3], np.float32)
    node = ops1.fake_quantize(x, x, x, x, x, 256)
    assert not check_versions({"FakeQuantize": node}, [x], tmp_path)


def test_input_bounds_move_through_the_rule():
    """Data moved anywhere within its bound (a random sign per element) moves the exact result by no more than the
    rule's bound with that input bound: 300 seeded f32 cases."""
    rng = np.random.default_rng(SEED + 2)
    for _ in range(300):
        inputs, levels = _case_values(rng, np.float32)
        bound = np.abs(rng.standard_normal(inputs[0].shape)) * float(rng.choice([1e-6, 1e-3, 1e-1]))
        assert_bounds_carry_moves(FQ, {"levels": str(levels)}, inputs, [bound] + [EXACT] * 4, rng, levels)


# --- shape rule ------------------------------------------------------------------------------------


def fake_quantize_shape_case(rng: np.random.Generator):
    data = [int(n) for n in rng.integers(1, 5, int(rng.integers(0, 5)))]
    mode = pick(rng, ["numpy", "numpy", "pdpd", "none"])
    shapes: list[Bounds] = [tuple(blur(rng, n) for n in data) if rng.random() > 0.05 else None]
    for _ in range(4):
        ranged = _range_shape(rng, data) if mode != "none" else list(data)
        if rng.random() < 0.1 and ranged:
            ranged[int(rng.integers(0, len(ranged)))] += 1  # may not broadcast
        if rng.random() < 0.05:
            ranged = [2, *ranged]  # may broadcast the data beyond its shape
        shapes.append(None if rng.random() < 0.03 else tuple(blur(rng, n, statics=5) for n in ranged))
    elements = [pick(rng, ["f32"] * 6 + ["f16", "i32", None]) for _ in range(5)]
    levels = int(pick(rng, [*LEVELS, 0, 1]))
    what = "FakeQuantize " + " ".join(f"{e}{show(s)}" for e, s in zip(elements, shapes, strict=True)) + f" {mode}"

    def theirs():
        return openvino_outcome(lambda: ops1.fake_quantize(
            *parameters(elements, shapes),
            levels, auto_broadcast=mode))

    def ours():
        inputs = tensor_types(elements, shapes)
        return our_outcome("FakeQuantize", "opset1", {"levels": str(levels), "auto_broadcast": mode}, inputs,
                           [None] * 5)

    return what, theirs, ours


def test_fake_quantize_shape_rule():
    rng = np.random.default_rng(SEED + 1)
    cases = [fake_quantize_shape_case(rng) for _ in range(600)]
    assert_shapes_agree(cases)
