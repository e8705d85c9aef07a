"""LSTMCell-1, LSTMCell-4, GRUCell-3 and RNNCell-1 (ops/recurrent.py: one step of the sequences) against OpenVINO: shape
rule, CPU kernel and rounding rule, with the harness of tests/ops/conformance.py.

Kernel: 48 seeded f32 cases per op version (batch 1 to 4, input and hidden sizes 1 to 16, GRU with and without
linear_before_reset, a clip for some, activations other than the defaults (relu, sigmoid, tanh in any case, more names
than read), alpha and beta (not read), LSTMCell-1 with 5, 6 or 7 inputs (zero peepholes) and every weights_format; and
one case in ten with special values in X: +-0, +-1e4 (saturating every gate), subnormals, the clips; NaN and infinities
are not compared, see ``_special``) in one model per op version compiled once for OpenVINO CPU; every element of every
output within the rounding rule's bound (the sequences' step). Shape rule: 200 seeded nodes per op version on Parameters
of partial shapes (static, dynamic, interval and unbounded dims, dynamic and wrong ranks, dims that do not fit, element
types that differ or are dynamic, LSTMCell-1 without B or P, hidden_size attributes that do not fit) must give our
rule's output partial shapes and element types, or both refuse. The rounding rule's propagation: inputs moved anywhere
within their bounds move the exact result by no more than the bound. LSTMCell-1's peepholes and input_forget, which
OpenVINO CPU does not apply, are refused. And a TensorIterator whose body holds an LSTMCell-4 (an ONNX or TF LSTM in an
older IR) through ``ir-tools compare``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset3 as ops3
import openvino.opset4 as ops4
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.base.errors import UnsupportedError
from ir_tools.ops import attrs as A
from ir_tools.ops.recurrent import GRU_CELL_3, LSTM_CELL_1, LSTM_CELL_4, RNN_CELL_1
from ir_tools.ops.rounding import EXACT

from .conformance import (
    Bounds,
    Case,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
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

SEED = 30417
#: label -> (spec, type, opset, gates, states, default activations)
OPS = {
    "LSTMCell-1": (LSTM_CELL_1, "LSTMCell", "opset1", 4, 2, ("sigmoid", "tanh", "tanh")),
    "LSTMCell-4": (LSTM_CELL_4, "LSTMCell", "opset4", 4, 2, ("sigmoid", "tanh", "tanh")),
    "GRUCell-3": (GRU_CELL_3, "GRUCell", "opset3", 3, 1, ("sigmoid", "tanh")),
    "RNNCell-1": (RNN_CELL_1, "RNNCell", "opset1", 1, 1, ("tanh",)),
}
FORMATS = ("fico", "icof", "ifco", "ifoc", "iofc")


def _raw(label: str, hidden: int, activations, clip: float, lbr: bool, weights_format: str = "ifco",
         alpha=(), beta=()) -> dict[str, str]:
    raw = {"hidden_size": str(hidden), "activations": ", ".join(activations), "clip": repr(clip),
           "activations_alpha": ", ".join(map(repr, alpha)), "activations_beta": ", ".join(map(repr, beta))}
    if label == "GRUCell-3":
        raw["linear_before_reset"] = str(lbr).lower()
    if label == "LSTMCell-1":
        raw["weights_format"] = weights_format
    return raw


def _build(label: str, raw: dict[str, str]):
    """The node, built by NodeFactory with the attributes ``raw`` spells (as OpenVINO's reader would read them)."""
    _, op, opset, *_ = OPS[label]
    attrs = A.decode(OPS[label][0].attrs, raw)
    values = {"hidden_size": attrs.hidden_size, "activations": list(raw["activations"].split(", ")),
              "activations_alpha": list(attrs.activations_alpha), "activations_beta": list(attrs.activations_beta),
              "clip": attrs.clip}
    if label == "GRUCell-3":
        values["linear_before_reset"] = attrs.linear_before_reset
    if label == "LSTMCell-1":
        values |= {"weights_format": attrs.weights_format, "input_forget": False}
    return lambda ps: NodeFactory(opset).create(op, [p.output(0) for p in ps], values)


def _inputs(rng: np.random.Generator, label: str, batch: int, size: int, hidden: int, lbr: bool,
            count: int | None = None) -> list[np.ndarray]:
    _, _, _, gates, states, _ = OPS[label]
    scale = 1.0 / np.sqrt(max(size, hidden))  # torch's init range, times a few
    values = [floats(rng, (batch, size)), *[floats(rng, (batch, hidden)) for _ in range(states)],
              floats(rng, (gates * hidden, size), scale=2 * scale), floats(rng, (gates * hidden, hidden),
                                                                             scale=2 * scale),
              floats(rng, ((gates + lbr) * hidden,), scale=scale)]
    if label == "LSTMCell-1":
        values.append(np.zeros(3 * hidden, np.float32))  # (peepholes: OpenVINO CPU computes 0 whatever they hold)
    return values[:count]


def _special(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """X with some elements special: +-0, +-1e4 (saturating the gates), f32 subnormals, +-0.5 and +-2 (the clips).
    Not NaN or infinities: OpenVINO CPU's relu and clamp give 0 and -clip for NaN (its max and min instructions),
    where the kernel propagates NaN."""
    specials = np.array([0.0, -0.0, 1e4, -1e4, 1e-40, -1e-40, 0.5, -0.5, 2.0, -2.0], np.float32)
    flat = x.reshape(-1).copy()
    at = rng.random(flat.size) < 0.3
    flat[at] = rng.choice(specials, int(at.sum()))
    return flat.reshape(x.shape)


def _activations(rng: np.random.Generator, defaults: tuple[str, ...]) -> tuple[str, ...]:
    """The defaults mostly; else relu, sigmoid or tanh for each, in any case, sometimes one more (not read)."""
    if rng.random() < 0.5:
        return defaults
    names = [pick(rng, ["relu", "sigmoid", "tanh", "Tanh", "RELU"]) for _ in defaults]
    return tuple(names + (["relu"] if rng.random() < 0.2 else []))


def cell_cases(rng: np.random.Generator, label: str, count: int) -> list[Case]:
    spec, *_, defaults = OPS[label]
    cases = []
    for k in range(count):
        batch, size, hidden = int(rng.integers(1, 5)), int(rng.integers(1, 17)), int(rng.integers(1, 17))
        lbr = label == "GRUCell-3" and bool(rng.random() < 0.5)
        clip = float(pick(rng, [0.0] * 4 + [0.5, 2.0]))
        activations = _activations(rng, defaults)
        alpha, beta = ((0.5,), (0.25,)) if rng.random() < 0.1 else ((), ())
        weights_format = pick(rng, FORMATS)
        count_in = int(rng.integers(5, 8)) if label == "LSTMCell-1" else None
        inputs = _inputs(rng, label, batch, size, hidden, lbr, count_in)
        if k % 10 == 9:
            inputs[0] = _special(rng, inputs[0])
        raw = _raw(label, hidden, activations, clip, lbr, weights_format, alpha, beta)
        what = (f"{label} x{list(inputs[0].shape)} hidden={hidden} {activations} clip={clip} lbr={lbr} "
                f"inputs={len(inputs)}")
        cases.append(Case(what, inputs, _build(label, raw), rule_limits(spec, raw, inputs)))
    return cases


@pytest.mark.parametrize("label", list(OPS))
def test_kernel_within_its_rounding_bound(label: str, tmp_path: Path) -> None:
    assert_all_pass(cell_cases(np.random.default_rng([SEED, len(label), ord(label[-1])]), label, 48), tmp_path)


def test_opset_versions(tmp_path: Path) -> None:
    nodes, params = {}, []
    for label in ("LSTMCell-4", "GRUCell-3", "RNNCell-1"):
        _, op, *_ = OPS[label]
        inputs = _inputs(np.random.default_rng(0), label, 1, 3, 2, False)
        ps = [ops1.parameter(list(x.shape), x.dtype) for x in inputs]
        nodes[op] = _build(label, _raw(label, 2, OPS[label][5], 0.0, False))(ps)
        params += ps
    assert not check_versions(nodes, params, tmp_path)


@pytest.mark.parametrize("what", ["input_forget", "peepholes"])
def test_lstm_cell_1_forms_openvino_cpu_does_not_compute_are_refused(what: str) -> None:
    """OpenVINO CPU computes an LSTMCell-1 as an LSTMCell-4: its peepholes and input_forget are not applied (measured
    on 2026.4.1: the outputs of P = 0 and input_forget false, whatever they are); the kernel refuses them, so that
    compare lists such a layer as not checked."""
    inputs = _inputs(np.random.default_rng(1), "LSTMCell-1", 2, 3, 4, False)
    raw = _raw("LSTMCell-1", 4, OPS["LSTMCell-1"][5], 0.0, False)
    if what == "input_forget":
        raw["input_forget"] = "true"
    else:
        inputs[6][1] = np.float32(0.5)
    with pytest.raises(UnsupportedError, match=what.rstrip("s")):
        LSTM_CELL_1.kernel(A.decode(LSTM_CELL_1.attrs, raw), inputs)


# --- shape rule ------------------------------------------------------------------------------------


def _blurred(rng: np.random.Generator, shape: list[int]) -> Bounds:
    if rng.random() < 0.05:
        return None
    if rng.random() < 0.03:
        return tuple(blur(rng, n) for n in [*shape, 1][:3 - len(shape)])  # a wrong rank
    return tuple(blur(rng, n, statics=5) for n in shape)


def cell_shape_case(rng: np.random.Generator, label: str):
    _, op, opset, gates, states, defaults = OPS[label]
    batch, size, hidden = (int(v) for v in rng.integers(1, 6, 3))
    lbr = label == "GRUCell-3" and bool(rng.random() < 0.5)
    shapes = [[batch, size], *[[batch, hidden] for _ in range(states)], [gates * hidden, size],
              [gates * hidden, hidden], [(gates + lbr) * hidden]]
    if label == "LSTMCell-1":
        shapes = [*shapes, [3 * hidden]][:int(rng.integers(5, 8))]
    for shape in shapes:
        if rng.random() < 0.05:  # a dim that may not fit
            shape[int(rng.integers(0, len(shape)))] += int(rng.integers(1, 3))
    bounds = [_blurred(rng, s) for s in shapes]
    elements: list[str | None] = ["f32"] * len(shapes)
    if rng.random() < 0.1:
        elements[int(rng.integers(0, len(shapes)))] = pick(rng, ["f16", "i32", None])
    if rng.random() < 0.05:
        elements = [pick(rng, [None, "f16"]) for _ in elements]
    hidden_attr = hidden if rng.random() < 0.8 else int(rng.integers(0, 7))
    raw = _raw(label, hidden_attr, defaults, 0.0, lbr)
    what = f"{label} lbr={lbr} hidden_size={hidden_attr} " + " ".join(
        f"{e}{show(s)}" for e, s in zip(elements, bounds, strict=True))

    def theirs():
        return openvino_outcome(lambda: _build(label, raw)(parameters(elements, bounds)))

    def ours():
        inputs = tensor_types(elements, bounds)
        return our_outcome(op, opset, raw, inputs, [None] * len(inputs))

    return what, theirs, ours


@pytest.mark.parametrize("label", list(OPS))
def test_shape_rule(label: str) -> None:
    rng = np.random.default_rng([SEED, 1, len(label), ord(label[-1])])
    assert_shapes_agree([cell_shape_case(rng, label) for _ in range(200)])


@pytest.mark.parametrize("label", list(OPS))
def test_input_bounds_move_through_the_rule(label: str) -> None:
    """X, the states, W, R and B moved anywhere within their bounds (a random sign per element) move the exact result
    by no more than the rule's bound with those input bounds: 100 seeded f32 cases per op version."""
    spec, *_, defaults = OPS[label]
    rng = np.random.default_rng([SEED, 2, len(label), ord(label[-1])])
    for _ in range(100):
        batch, size, hidden = int(rng.integers(1, 4)), int(rng.integers(1, 9)), int(rng.integers(1, 9))
        lbr = label == "GRUCell-3" and bool(rng.random() < 0.5)
        clip = float(pick(rng, [0.0] * 3 + [1.0]))
        activations = _activations(rng, defaults)
        inputs = _inputs(rng, label, batch, size, hidden, lbr)
        scale = float(rng.choice([1e-6, 1e-3, 1e-1]))
        bounds = [np.abs(rng.standard_normal(x.shape)) * scale for x in inputs]
        if label == "LSTMCell-1":
            bounds[6] = EXACT  # (peepholes other than 0 are refused)
        assert_bounds_carry_moves(spec, _raw(label, hidden, activations, clip, lbr), inputs, bounds, rng,
                                  (label, lbr, clip, activations, inputs[0].shape, hidden))


# --- compare, end to end ---------------------------------------------------------------------------


def test_compare_checks_a_tensor_iterator_of_lstm_cells(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """An LSTM as older IRs hold one (ONNX and TF LSTMs converted to a TensorIterator): X [2, 5, 3] sliced along its
    steps, H and C merged, an LSTMCell-4 in the body; and a GRUCell-3 and an RNNCell-1 after it. Compared end to end
    and per layer: every layer checked, the body's cells among them."""
    rng = np.random.default_rng([SEED, 3])
    batch, steps, size, hidden = 2, 5, 3, 4
    x = ops1.parameter([batch, steps, size], np.float32, name="x")
    h0 = ops1.parameter([batch, hidden], np.float32, name="h0")
    c0 = ops1.parameter([batch, hidden], np.float32, name="c0")
    xi = ops1.parameter([batch, 1, size], np.float32)
    hi, ci = ops1.parameter([batch, hidden], np.float32), ops1.parameter([batch, hidden], np.float32)
    w, r, b = (_inputs(rng, "LSTMCell-4", batch, size, hidden, False)[k] for k in (3, 4, 5))
    cell = ops4.lstm_cell(ops1.squeeze(xi, ops1.constant(np.array([1], np.int64))), hi, ci, ops1.constant(w),
                          ops1.constant(r), ops1.constant(b), hidden)
    body = ov.Model([ops1.result(cell.output(0)), ops1.result(cell.output(1)),
                     ops1.result(ops1.unsqueeze(cell.output(0), ops1.constant(np.array([1], np.int64))))],
                    [xi, hi, ci], "body")
    ti = ops1.tensor_iterator()
    ti.set_body(body)
    ti.set_sliced_input(xi, x.output(0), 0, 1, 1, -1, 1)
    ti.set_merged_input(hi, h0.output(0), body.results[0].output(0))
    ti.set_merged_input(ci, c0.output(0), body.results[1].output(0))
    last = ti.get_iter_value(body.results[0].output(0), -1)
    ys = ti.get_concatenated_slices(body.results[2].output(0), 0, 1, 1, -1, 1)
    gw, gr, gb = (_inputs(rng, "GRUCell-3", batch, hidden, hidden, False)[k] for k in (2, 3, 4))
    gru = ops3.gru_cell(last, h0, ops1.constant(gw), ops1.constant(gr), ops1.constant(gb), hidden)
    rw, rr, rb = (_inputs(rng, "RNNCell-1", batch, hidden, hidden, False)[k] for k in (2, 3, 4))
    rnn = ops3.rnn_cell(gru, h0, ops1.constant(rw), ops1.constant(rr), ops1.constant(rb), hidden, ["tanh"], [], [])
    xml = tmp_path / "ti_lstm.xml"
    ov.save_model(ov.Model([ops1.result(ys), ops1.result(rnn)], [x, h0, c0], "ti_lstm"), xml,
                  compress_to_fp16=False)
    assert_compare_passes(xml, capsys, {"TensorIterator@opset1", "GRUCell@opset3", "RNNCell@opset1"}, outputs=2)
