"""GridSample-9 (ops/sampling.py) against OpenVINO: shape rule, CPU kernel and rounding rule, with the harness of
tests/ops/conformance.py.

Kernel: 324 seeded cases (f32, a quarter f16; every mode x padding_mode x align_corners, 18 cases each; images of 1
to 7 pixels a side; grid points inside [-1, 1], outside it up to 3 images away, and a third exactly on pixel centres
or half pixels, where nearest rounds and the folds of reflection lie) in one model compiled once for OpenVINO CPU;
every element must be within the rounding rule's bound alone. Shape rule: 500 seeded nodes on Parameters of partial
shapes (dynamic ranks, ranks 3 to 5, intervals, last grid dims and batches that may not match) with element types
that differ, must give our rule's output partial shape and element type, or both refuse. The rule's propagation:
data and grid moved within their bounds move the exact result by no more than the bound.
"""

from __future__ import annotations

import numpy as np
import openvino.opset9 as ops9
import pytest

from ir_tools.ops.rounding import EXACT
from ir_tools.ops.sampling import GRID_SAMPLE_9 as GS
from ir_tools.ops.sampling import MODES, PADDINGS

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

SEED = 20709
SETTINGS = [(mode, padding, align) for mode in MODES for padding in PADDINGS for align in (False, True)]


def _raw(mode: str, padding: str, align: bool) -> dict[str, str]:
    return {"align_corners": "true" if align else "false", "mode": mode, "padding_mode": padding}


def _case_values(rng: np.random.Generator, dtype, align: bool) -> list[np.ndarray]:
    """Data [N, C, H, W] and a grid [N, H_out, W_out, 2]: a third of its points on pixel centres or half pixels."""
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    h, w = int(rng.integers(1, 8)), int(rng.integers(1, 8))
    out = [int(rng.integers(1, 6)), int(rng.integers(1, 6))]
    x = (rng.standard_normal((n, c, h, w)) * float(pick(rng, [1.0, 1.0, 10.0, 0.01]))).astype(dtype)
    spread = float(pick(rng, [1.0, 1.0, 1.2, 3.0]))
    grid = rng.uniform(-spread, spread, (n, *out, 2))
    lengths = np.array([w, h], np.float64)
    halves = rng.integers(-2 * int(lengths.max()) - 2, 4 * int(lengths.max()) + 2, grid.shape) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        exact = 2.0 * halves / (lengths - 1) - 1.0 if align else (2.0 * halves + 1.0) / lengths - 1.0
    exact = np.where(np.isfinite(exact), exact, 0.0)
    grid = np.where(rng.random(grid.shape) < 0.35, exact, grid).astype(dtype)
    return [x, grid]


def grid_sample_cases(rng: np.random.Generator, count: int) -> list[Case]:
    cases = []
    for i in range(count):
        mode, padding, align = SETTINGS[i % len(SETTINGS)]
        dtype = np.float16 if i % 4 == 3 else np.float32
        inputs = _case_values(rng, dtype, align)

        def build(ps, mode=mode, padding=padding, align=align):
            return ops9.grid_sample(*ps, {"align_corners": align, "mode": mode, "padding_mode": padding})

        what = (f"GridSample {np.dtype(dtype).name} {[list(np.shape(v)) for v in inputs]} {mode} {padding} "
                f"align_corners={align}")
        cases.append(Case(what, inputs, build, rule_limits(GS, _raw(mode, padding, align), inputs)))
    return cases


def test_grid_sample_kernel_within_its_rounding_bound(tmp_path):
    assert_all_pass(grid_sample_cases(np.random.default_rng(SEED), 18 * len(SETTINGS)), tmp_path)


def test_opset_versions(tmp_path):
    x, grid = ops9.parameter([1, 2, 3, 4], np.float32), ops9.parameter([1, 2, 2, 2], np.float32)
    node = ops9.grid_sample(x, grid, {})
    assert not check_versions({"GridSample": node}, [x, grid], tmp_path)


def test_input_bounds_move_through_the_rule():
    """Data and grid moved anywhere within their bounds (a random sign per element) move the exact result by no more
    than the rule's bound with those input bounds: 216 seeded f32 cases."""
    rng = np.random.default_rng(SEED + 2)
    for i in range(12 * len(SETTINGS)):
        mode, padding, align = SETTINGS[i % len(SETTINGS)]
        x, grid = _case_values(rng, np.float32, align)
        scale = float(rng.choice([1e-6, 1e-3, 1e-1]))
        bounds = [np.abs(rng.standard_normal(x.shape)) * scale if rng.random() < 0.7 else EXACT,
                  np.abs(rng.standard_normal(grid.shape)) * scale if rng.random() < 0.7 else EXACT]
        assert_bounds_carry_moves(GS, _raw(mode, padding, align), [x, grid], bounds, rng, (mode, padding, align))


# --- shape rule ------------------------------------------------------------------------------------


def _shape(rng: np.random.Generator, dims: list[int]) -> Bounds:
    if rng.random() < 0.08:
        return None
    if rng.random() < 0.06:
        dims = dims[:-1] if rng.random() < 0.5 else [*dims, 2]
    return tuple(blur(rng, n) for n in dims)


def grid_sample_shape_case(rng: np.random.Generator):
    batch = int(rng.integers(1, 4))
    grid_batch = batch if rng.random() > 0.15 else int(rng.integers(1, 4))
    last = 2 if rng.random() > 0.1 else int(pick(rng, [1, 3]))
    shapes = [_shape(rng, [batch, *(int(n) for n in rng.integers(1, 6, 3))]),
              _shape(rng, [grid_batch, *(int(n) for n in rng.integers(1, 6, 2)), last])]
    elements = [pick(rng, ["f32"] * 5 + ["f16", "i32", "u8", "boolean", None]),
                pick(rng, ["f32"] * 6 + ["f16", "i32", "i64", None])]
    mode, padding, align = pick(rng, SETTINGS)
    what = "GridSample " + " ".join(f"{e}{show(s)}" for e, s in zip(elements, shapes, strict=True)) + f" {mode}"

    def theirs():
        return openvino_outcome(lambda: ops9.grid_sample(
            *parameters(elements, shapes),
            {"align_corners": align, "mode": mode, "padding_mode": padding}))

    def ours():
        inputs = tensor_types(elements, shapes)
        return our_outcome("GridSample", "opset9", _raw(mode, padding, align), inputs, [None] * 2)

    return what, theirs, ours


def test_grid_sample_shape_rule():
    rng = np.random.default_rng(SEED + 1)
    cases = [grid_sample_shape_case(rng) for _ in range(500)]
    assert_shapes_agree(cases)
