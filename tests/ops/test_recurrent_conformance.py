"""LSTMSequence-5, GRUSequence-5 and RNNSequence-5 (ops/recurrent.py) against OpenVINO: shape rule, CPU kernel and
rounding rule, with the harness of tests/ops/conformance.py.

Kernel: 200 seeded f32 cases per op (batch 1 to 3, seq_len 1 to 8, input and hidden sizes 1 to 16, every direction,
sequence lengths below seq_len (0 included) for some batches, GRU with and without linear_before_reset, a clip for
some) in one model per op compiled once for OpenVINO CPU; every element of every output must be within the rounding
rule's bound alone. Shape rule: 400 seeded nodes per op on Parameters of partial shapes (static, dynamic, interval
and unbounded dims, dynamic ranks, wrong ranks, dims that do not match, element types that differ or are dynamic)
must give our rule's output partial shapes and element types, or both refuse. The rounding rule's propagation:
inputs moved anywhere within their bounds move the exact result by no more than the bound.
"""

from __future__ import annotations

import numpy as np
import openvino.opset5 as ops5
import pytest

from ir_tools.ops.recurrent import GRU_SEQUENCE_5, LSTM_SEQUENCE_5, RNN_SEQUENCE_5
from ir_tools.ops.rounding import EXACT

from .conformance import (
    Bounds,
    Case,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_shapes_agree,
    blur,
    check_versions,
    floats,
    openvino_outcome,
    our_outcome,
    parameters,
    pick,
    rule_limits,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 20655
DIRECTIONS = ("forward", "reverse", "bidirectional")
#: op -> (spec, gates, states, builder)
OPS = {
    "LSTMSequence": (LSTM_SEQUENCE_5, 4, 2, ops5.lstm_sequence),
    "GRUSequence": (GRU_SEQUENCE_5, 3, 1, ops5.gru_sequence),
    "RNNSequence": (RNN_SEQUENCE_5, 1, 1, ops5.rnn_sequence),
}


#: The activations OpenVINO's builders write (an omitted list OpenVINO reads as none, which its CPU cannot compile).
ACTIVATIONS = {"LSTMSequence": "sigmoid, tanh, tanh", "GRUSequence": "sigmoid, tanh", "RNNSequence": "tanh"}


def _raw(op: str, hidden: int, direction: str, clip: float, lbr: bool) -> dict[str, str]:
    raw = {"hidden_size": str(hidden), "direction": direction, "clip": repr(clip), "activations": ACTIVATIONS[op]}
    if op == "GRUSequence":
        raw["linear_before_reset"] = str(lbr).lower()
    return raw


def _build(op: str, hidden: int, direction: str, clip: float, lbr: bool):
    builder = OPS[op][3]
    extra = {"linear_before_reset": lbr} if op == "GRUSequence" else {}
    return lambda ps: builder(*ps, hidden, direction, clip=clip, **extra)


def _inputs(rng: np.random.Generator, op: str, batch: int, steps: int, size: int, hidden: int, direction: str,
            lbr: bool, dtype=np.float32) -> list[np.ndarray]:
    _, gates, states, _ = OPS[op]
    nd = 2 if direction == "bidirectional" else 1
    lengths = np.full(batch, steps, np.int32)
    if rng.random() < 0.5:
        lengths = rng.integers(0 if rng.random() < 0.3 else 1, steps + 1, batch).astype(np.int32)
    scale = 1.0 / np.sqrt(max(size, hidden))  # torch's init range, times a few
    return [floats(rng, (batch, steps, size), dtype),
            *[floats(rng, (batch, nd, hidden), dtype) for _ in range(states)],
            lengths,
            floats(rng, (nd, gates * hidden, size), dtype, 2 * scale),
            floats(rng, (nd, gates * hidden, hidden), dtype, 2 * scale),
            floats(rng, (nd, (gates + lbr) * hidden), dtype, scale)]


def recurrent_cases(rng: np.random.Generator, op: str, count: int) -> list[Case]:
    spec = OPS[op][0]
    cases = []
    for _ in range(count):
        batch, steps = int(rng.integers(1, 4)), int(rng.integers(1, 9))
        size, hidden = int(rng.integers(1, 17)), int(rng.integers(1, 17))
        direction = pick(rng, DIRECTIONS)
        lbr = op == "GRUSequence" and bool(rng.random() < 0.5)
        clip = float(pick(rng, [0.0] * 4 + [0.5, 2.0]))
        inputs = _inputs(rng, op, batch, steps, size, hidden, direction, lbr)
        raw = _raw(op, hidden, direction, clip, lbr)
        what = (f"{op} x{list(inputs[0].shape)} hidden={hidden} {direction} clip={clip} lbr={lbr} "
                f"lengths={inputs[OPS[op][2] + 1].tolist()}")
        cases.append(Case(what, inputs, _build(op, hidden, direction, clip, lbr), rule_limits(spec, raw, inputs)))
    return cases


@pytest.mark.parametrize("op", ["LSTMSequence", "GRUSequence", "RNNSequence"])
def test_kernel_within_its_rounding_bound(op, tmp_path):
    assert_all_pass(recurrent_cases(np.random.default_rng(SEED + len(op)), op, 200), tmp_path)


def test_opset_versions(tmp_path):
    nodes, params = {}, []
    for op in OPS:
        inputs = _inputs(np.random.default_rng(0), op, 1, 2, 3, 2, "forward", False)
        ps = [ops5.parameter(list(x.shape), x.dtype) for x in inputs]
        nodes[op] = _build(op, 2, "forward", 0.0, False)(ps)
        params += ps
    assert not check_versions(nodes, params, tmp_path)


# --- shape rule ------------------------------------------------------------------------------------


def _blurred(rng: np.random.Generator, shape: list[int]) -> Bounds:
    if rng.random() < 0.05:
        return None
    if rng.random() < 0.03:
        return tuple(blur(rng, n) for n in shape[:-1] or [1, 1])  # a wrong rank
    return tuple(blur(rng, n, statics=5) for n in shape)


def recurrent_shape_case(rng: np.random.Generator, op: str):
    _, gates, states, builder = OPS[op]
    batch, steps, size, hidden = (int(v) for v in rng.integers(1, 6, 4))
    direction = pick(rng, DIRECTIONS)
    lbr = op == "GRUSequence" and bool(rng.random() < 0.5)
    nd = 2 if direction == "bidirectional" else 1
    shapes = [[batch, steps, size], *[[batch, nd, hidden] for _ in range(states)], [batch],
              [nd, gates * hidden, size], [nd, gates * hidden, hidden], [nd, (gates + lbr) * hidden]]
    for shape in shapes:
        if rng.random() < 0.05:  # a dim that may not fit
            shape[int(rng.integers(0, len(shape)))] += int(rng.integers(1, 3))
    bounds = [_blurred(rng, s) for s in shapes]
    elements: list[str | None] = ["f32"] * len(shapes)
    elements[1 + states] = pick(rng, ["i32", "i32", "i64", "f32"])
    if rng.random() < 0.1:
        elements[int(rng.integers(0, len(shapes)))] = pick(rng, ["f16", "i32", None])
    if rng.random() < 0.05:
        elements = [e if i == 1 + states else pick(rng, [None, "f16"]) for i, e in enumerate(elements)]
    hidden_attr = hidden if rng.random() < 0.9 else hidden + 1
    what = f"{op} {direction} lbr={lbr} " + " ".join(f"{e}{show(s)}" for e, s in zip(elements, bounds, strict=True))
    extra = {"linear_before_reset": lbr} if op == "GRUSequence" else {}

    def theirs():
        return openvino_outcome(lambda: builder(
            *parameters(elements, bounds),
            hidden_attr, direction, **extra))

    def ours():
        inputs = tensor_types(elements, bounds)
        return our_outcome(op, "opset5", _raw(op, hidden_attr, direction, 0.0, lbr), inputs, [None] * len(inputs))

    return what, theirs, ours


@pytest.mark.parametrize("op", ["LSTMSequence", "GRUSequence", "RNNSequence"])
def test_shape_rule(op):
    rng = np.random.default_rng(SEED + 1 + len(op))
    cases = [recurrent_shape_case(rng, op) for _ in range(400)]
    assert_shapes_agree(cases)


@pytest.mark.parametrize("op", ["LSTMSequence", "GRUSequence", "RNNSequence"])
def test_input_bounds_move_through_the_rule(op):
    """X, the initial states, W, R and B moved anywhere within their bounds (a random sign per element) move the
    exact result by no more than the rule's bound with those input bounds: 100 seeded f32 cases per op."""
    spec, _, states, _ = OPS[op]
    rng = np.random.default_rng(SEED + 2 + len(op))
    for _ in range(100):
        batch, steps = int(rng.integers(1, 4)), int(rng.integers(1, 7))
        size, hidden = int(rng.integers(1, 9)), int(rng.integers(1, 9))
        direction = pick(rng, DIRECTIONS)
        lbr = op == "GRUSequence" and bool(rng.random() < 0.5)
        clip = float(pick(rng, [0.0] * 3 + [1.0]))
        inputs = _inputs(rng, op, batch, steps, size, hidden, direction, lbr)
        scale = float(rng.choice([1e-6, 1e-3, 1e-1]))
        bounds = [EXACT if x.dtype.kind != "f" else np.abs(rng.standard_normal(x.shape)) * scale for x in inputs]
        assert_bounds_carry_moves(spec, _raw(op, hidden, direction, clip, lbr), inputs, bounds, rng,
                                  (op, direction, lbr, clip, inputs[0].shape, hidden))
