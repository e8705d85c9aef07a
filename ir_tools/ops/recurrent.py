"""LSTMSequence-5, GRUSequence-5 and RNNSequence-5 (opset5 to opset16), and their cells LSTMCell-1 (opset1 to 3),
LSTMCell-4 (opset4 to 16), GRUCell-3 (opset3 to 16) and RNNCell-1 (opset1 and 3 to 16: opset2 lacks it): shape rule,
reference kernel and rounding rule.

A torch nn.LSTM / nn.GRU / nn.RNN exported to ONNX and converted by OpenVINO gives one of these per layer. Inputs:
X [batch, seq_len, input], the initial hidden state [batch, nd, hidden] (and, for LSTM, the initial cell state),
sequence_lengths [batch], W [nd, gates * hidden, input], R [nd, gates * hidden, hidden], B [nd, gates * hidden]
(GRU with linear_before_reset: [nd, 4 * hidden]); nd is 2 when bidirectional, else 1. Outputs: Y [batch, nd,
seq_len, hidden], Ho [batch, nd, hidden] (and Co). Per step (OpenVINO's specification, reference/lstm_cell.hpp,
gru_cell.hpp, rnn_cell.hpp), with g = W x_t + R h + B split along the gates:

- LSTM, gates f, i, c, o: c' = sigmoid(f) c + sigmoid(i) tanh(c~), h' = sigmoid(o) tanh(c');
- GRU, gates z, r, h: z, r = sigmoid(...), h~ = tanh(W_h x + R_h (r h) + B_h) (linear_before_reset:
  tanh(W_h x + r (R_h h + B_rh) + B_wh)), h' = (1 - z) h~ + z h;
- RNN, one gate: h' = tanh(g).

``clip`` > 0 clamps every gate's pre-activation to [-clip, clip].

Measured on openvino 2026.4.1 CPU (tests/ops/test_recurrent_conformance.py), beyond the specification:

- gate orders f, i, c, o (LSTM) and z, r, h (GRU) in W, R and B;
- a layer without ``direction`` is forward (OpenVINO's default, which its IR reader keeps; files in use omit it);
- sequence_lengths: a batch runs its first ``len`` steps (reverse: from step len - 1 down to 0, its first len
  steps reversed, as ReverseSequence); Y is 0 at the steps past len; Ho (Co) are the state after the last step
  run, and 0 (not the initial state) for a length of 0;
- shape inference (rnn_base_shape_inference.hpp): ranks 3 (X, states, W, R), 1 (sequence_lengths) and 2 (B);
  batch merged over X, the states and sequence_lengths; hidden over the states' last dims and R's last dim (the
  hidden_size attribute is not read); num_directions over the direction, the states' second dims and W, R, B's
  first; with a static hidden, W's and R's second dims must be compatible with gates * hidden and B's with
  (gates + linear_before_reset) * hidden; otherwise W's and R's second dims divided by the gates (the interval
  [ceil(lo / g), floor(hi / g)], hi = 2^63 when unbounded, computed in doubles; an empty one refuses) are merged
  into hidden, but only where that input's first dim (num_directions) is static. Element types of X, the states,
  W, R and B must be equal (any type); sequence_lengths' is free.
- The rounding rule's bound is the worst case, which grows with |R| at every step: 1e-7 relative for one step, up
  to some 1e-2 after 8 steps of 16 hidden units, where OpenVINO CPU's error stays near 1e-6.

A cell is one step of its sequence, batch-major and of one direction: X [batch, input], H (and C) [batch, hidden],
W [gates * hidden, input], R [gates * hidden, hidden], B [gates * hidden] (GRU with linear_before_reset: 4 * hidden);
outputs Ho (and Co) [batch, hidden]. The kernel and the rounding rule run the sequence's step (``_step``), the same
gate orders. Measured on openvino 2026.4.1 CPU (tests/ops/test_cell_conformance.py: 48 seeded cases per op version,
every output element within the rounding rule's bound; OpenVINO CPU's error reaches 0.11 of it at most, and 49% of
the elements are equal bit for bit):

- the IR reader's defaults for an omitted attribute: hidden_size 0, activations sigmoid, tanh, tanh (GRU: sigmoid,
  tanh; RNN: tanh), not the sequences' none; LSTMCell-1's input_forget false and weights_format ifco;
- activations: relu, sigmoid and tanh in any place and any case are computed (the layer's first one for f, its
  second for g, LSTM's third for h), the names after those the cell reads are not read, nor are activations_alpha
  and activations_beta; fewer names than the cell reads, or another name ("leakyrelu"), the reader reads and the
  CPU plugin cannot compile (``_cell_crashes``: ``check`` refuses them);
- clip > 0 clamps every gate's pre-activation, not LSTM's cell state before h, as the sequences;
- LSTMCell-1 is computed as LSTMCell-4: its peepholes P and input_forget are not applied (the outputs are those of
  P = 0 and input_forget false, whatever they hold, Parameters or Constants; OpenVINO's own evaluator refuses the
  layer), nor is weights_format (W, R and B are read f, i, c, o whatever it says). The kernel refuses peepholes other
  than 0 and input_forget (compare lists such a layer as not checked) and reads weights_format as the CPU does;
- LSTMCell-1 without B or P (5 or 6 inputs) gets zeros of 4 * hidden_size (3 * hidden_size) made of the attribute,
  of X's element type (a dynamic one: refused);
- shape inference (rnn_base_shape_inference.hpp ``cell_base_shape_infer``, lstm_cell_shape_inference.hpp): ranks 2
  (X, the states, W, R) and 1 (B); batch merged over X and the states, hidden over the states' second dims and R's;
  W's, R's and B's first dims against it as the sequences' second (``_gate_dims``); an LSTMCell's hidden that is
  not static is then its hidden_size attribute; LSTMCell-1's P must have a first dim (any rank), compatible with
  3 * hidden where static. Element types: X, the states, W, R and B must be equal, but GRUCell's W (and LSTMCell-1's
  P) may be of any type.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..base.dims import Dim
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .activations import sigmoid
from .arithmetic import merge_dim
from .attrs import FLOAT
from .intervals import ddiv, is_empty, iv, to_dim
from .rounding import APPROXIMATION, EXACT, gamma, is_exact, may_differ, output_rounding
from .spec import Kernel, OpSpec, TensorType, never

_DIRECTION = A.enum("forward", "reverse", "bidirectional")


def _strings(text: str) -> tuple[str, ...]:
    return tuple(p.strip().lower() for p in text.split(",") if p.strip())


def _floats(text: str) -> tuple[float, ...]:
    return tuple(FLOAT.parse(p) for p in text.split(",") if p.strip())


STRINGS = A.Codec("a comma-separated list of names", _strings, lambda v: ", ".join(v))
FLOATS = A.Codec("a comma-separated list of numbers", _floats, lambda v: ", ".join(map(repr, v)))


@dataclass(frozen=True, slots=True)
class LSTMSequenceAttrs:
    """Defaults (of the three sequences) are OpenVINO's for an omitted attribute, which its IR reader reads (measured
    on 2026.4.1: tests/test_read_by_design.py): hidden_size 0 (not read), no activations (which its CPU
    plugin cannot compile: ``_too_few_activations``)."""

    hidden_size: int = A.attr("hidden_size", A.UINT, 0)
    direction: str = A.attr("direction", _DIRECTION, "forward")
    activations: tuple[str, ...] = A.attr("activations", STRINGS, ())
    activations_alpha: tuple[float, ...] = A.attr("activations_alpha", FLOATS, ())
    activations_beta: tuple[float, ...] = A.attr("activations_beta", FLOATS, ())
    clip: float = A.attr("clip", FLOAT, 0.0)


@dataclass(frozen=True, slots=True)
class GRUSequenceAttrs:
    hidden_size: int = A.attr("hidden_size", A.UINT, 0)
    direction: str = A.attr("direction", _DIRECTION, "forward")
    activations: tuple[str, ...] = A.attr("activations", STRINGS, ())
    activations_alpha: tuple[float, ...] = A.attr("activations_alpha", FLOATS, ())
    activations_beta: tuple[float, ...] = A.attr("activations_beta", FLOATS, ())
    clip: float = A.attr("clip", FLOAT, 0.0)
    linear_before_reset: bool = A.attr("linear_before_reset", A.BOOL, False)


@dataclass(frozen=True, slots=True)
class RNNSequenceAttrs:
    hidden_size: int = A.attr("hidden_size", A.UINT, 0)
    direction: str = A.attr("direction", _DIRECTION, "forward")
    activations: tuple[str, ...] = A.attr("activations", STRINGS, ())
    activations_alpha: tuple[float, ...] = A.attr("activations_alpha", FLOATS, ())
    activations_beta: tuple[float, ...] = A.attr("activations_beta", FLOATS, ())
    clip: float = A.attr("clip", FLOAT, 0.0)


@dataclass(frozen=True)
class _Kind:
    gates: int
    states: int  # 2 for LSTM (hidden and cell), 1 otherwise
    activations: tuple[str, ...]  # the only list the kernel runs


_LSTM = _Kind(4, 2, ("sigmoid", "tanh", "tanh"))
_GRU = _Kind(3, 1, ("sigmoid", "tanh"))
_RNN = _Kind(1, 1, ("tanh",))

_UNKNOWN = Dim(0, None)


def _directions(a: Any) -> int:
    return 2 if a.direction == "bidirectional" else 1


def _divided(d: Dim, by: int) -> Dim | None:
    """OpenVINO's ``Dimension / by`` (ops/intervals.ddiv); None for an empty interval."""
    quotient = ddiv(iv(d), by)
    return None if is_empty(quotient) else to_dim(quotient)


def _element(inputs: Sequence[TensorType], indices: Sequence[int]) -> str | None:
    """The one element type of X, the states, W, R and B (None: all dynamic); refuses two."""
    element = None
    for i in indices:
        e = inputs[i].element
        if e is None:
            continue
        if element is not None and e != element:
            raise OpValidationError(f"inputs of element types {element} and {e}: X, the states, W, R and B "
                                    "must be of one type")
        element = e
    return element


def _ranked(inputs: Sequence[TensorType], ranks: Sequence[int]) -> list[Any]:
    """The inputs' shapes, the first ``len(ranks)`` each of a dynamic rank or of its rank in ``ranks``."""
    shapes = [t.shape for t in inputs]
    for i, (shape, rank) in enumerate(zip(shapes[:len(ranks)], ranks, strict=True)):
        if shape is not None and len(shape) != rank:
            raise OpValidationError(f"input {i} of rank {len(shape)}: it must be {rank}")
    return shapes


def _merged(d: Dim | None, other: Dim, what: str) -> Dim:
    """OpenVINO's merge of two dims (None: an empty quotient), refused where they do not meet."""
    out = None if d is None else merge_dim(d, other)
    if out is None:
        raise OpValidationError(f"dimension {what} does not match between inputs")
    return out


def _gate_dims(kind: _Kind, a: Any, shapes: Sequence[Any], hidden: Dim, w: int, axis: int) -> Dim:
    """Hidden checked against the gate dims (along ``axis``) of W, R and B (inputs w, w + 1, w + 2): with a static
    hidden, each must be compatible with gates * hidden (B's with (gates + linear_before_reset) * hidden); otherwise
    W's and R's divided by the gates are merged into it, where the input's first dim is static (OpenVINO tests the
    first dim, and divides the one along ``axis``)."""
    if hidden.is_static:
        n = hidden.lo
        extra = 1 if getattr(a, "linear_before_reset", False) else 0
        for i, times in ((w, kind.gates), (w + 1, kind.gates), (w + 2, kind.gates + extra)):
            if shapes[i] is not None and merge_dim(shapes[i][axis], Dim(n * times, n * times)) is None:
                raise OpValidationError(f"input {i}'s gate dim {shapes[i][axis]} is not {n * times}")
        return hidden
    for i in (w, w + 1):
        if shapes[i] is not None and shapes[i][0].is_static:
            hidden = _merged(_divided(shapes[i][axis], kind.gates), hidden, "hidden_size")
    return hidden


def _rule(kind: _Kind):
    def infer(a: Any, inputs: Sequence[TensorType], values) -> list[TensorType]:
        s = kind.states
        element = _element(inputs, (0, *range(1, 1 + s), 2 + s, 3 + s, 4 + s))
        shapes = _ranked(inputs, [3] * (1 + s) + [1, 3, 3, 2])

        def dim(i: int, k: int) -> Dim:
            return _UNKNOWN if shapes[i] is None else shapes[i][k]

        batch = dim(0, 0)
        for i in range(1, 2 + s):
            batch = _merged(batch, dim(i, 0), "batch_size")
        hidden = dim(1, 2)
        for i in range(2, 1 + s):
            hidden = _merged(hidden, dim(i, 2), "hidden_size")
        hidden = _merged(hidden, dim(3 + s, 2), "hidden_size")
        directions = Dim(_directions(a), _directions(a))
        for i, k in [(i, 1) for i in range(1, 1 + s)] + [(i, 0) for i in range(2 + s, 5 + s)]:
            directions = _merged(directions, dim(i, k), "num_directions (or the direction attribute)")
        hidden = _gate_dims(kind, a, shapes, hidden, 2 + s, 1)
        length = dim(0, 1)
        state = TensorType(element, (batch, directions, hidden))
        return [TensorType(element, (batch, directions, length, hidden)), *[state] * s]

    return infer


# --- kernel and rounding rule ------------------------------------------------------------------------


def _check(kind: _Kind, a: Any, args: Sequence[np.ndarray]) -> None:
    if tuple(a.activations) != kind.activations:
        raise UnsupportedError(f"activations {', '.join(a.activations)} (only {', '.join(kind.activations)} are run)")
    if a.activations_alpha or a.activations_beta:
        raise UnsupportedError("activations_alpha or activations_beta")
    _check_inputs(kind, a, args)


def _check_inputs(kind: _Kind, a: Any, args: Sequence[np.ndarray]) -> None:
    """The clip, the data's type and the inputs' shapes, of a sequence (or of a cell as one step)."""
    if a.clip < 0 or not math.isfinite(a.clip):
        raise UnsupportedError(f"clip {a.clip}")
    x = np.asarray(args[0])
    if x.dtype.kind != "f":
        raise UnsupportedError(f"a recurrent sequence of {x.dtype} data")
    s = kind.states
    batch, _, size = x.shape if x.ndim == 3 else (None, None, None)
    nd = _directions(a)
    w, r, b = (np.asarray(args[i]) for i in (2 + s, 3 + s, 4 + s))
    hidden = r.shape[-1] if r.ndim == 3 else -1
    bias = kind.gates + (1 if getattr(a, "linear_before_reset", False) else 0)
    want = [(batch, nd, hidden)] * s + [(batch,), (nd, kind.gates * hidden, size), (nd, kind.gates * hidden, hidden),
                                        (nd, bias * hidden)]
    got = [np.shape(v) for v in args[1:]]
    if x.ndim != 3 or got != want:
        raise OpValidationError(f"inputs of shapes {[list(x.shape), *map(list, got)]} do not fit a recurrent sequence "
                                f"of {nd} direction(s)")


class _Bounded:
    """A float64 value and a bound on its error (None: the kernel alone, no bound wanted)."""

    __slots__ = ("b", "v")

    def __init__(self, v: np.ndarray, b: np.ndarray | None):
        self.v, self.b = v, b


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


#: The activations OpenVINO's cells compute (its ``get_activation_function``), by name.
_ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {"relu": _relu, "sigmoid": sigmoid, "tanh": np.tanh}


def _act(name: str, g: _Bounded, clip: float) -> _Bounded:
    """An activation of pre-activations g (clamped to [-clip, clip] first when clip > 0): exact in f64; its error
    the change of the monotone function over [g - b, g + b] plus the approximation's APPROXIMATION |y| and a
    rounding on each side."""
    fn = _ACTIVATIONS[name]
    v = g.v if clip <= 0 else np.clip(g.v, -clip, clip)
    y = fn(v)
    if g.b is None:
        return _Bounded(y, None)
    lo, hi = g.v - g.b, g.v + g.b
    if clip > 0:
        lo, hi = np.clip(lo, -clip, clip), np.clip(hi, -clip, clip)
    change = np.maximum(y - fn(lo), fn(hi) - y)
    return _Bounded(y, change + (APPROXIMATION + 4.0 * 2.0**-24) * np.abs(y) + 2.0**-149)


def _mul(x: _Bounded, y: _Bounded) -> _Bounded:
    """x * y and, with bounds, (|x| + b_x)(|y| + b_y) - |x||y| plus one rounding of the product."""
    v = x.v * y.v
    if x.b is None:
        return _Bounded(v, None)
    ax, ay = np.abs(x.v), np.abs(y.v)
    return _Bounded(v, ax * y.b + ay * x.b + x.b * y.b + gamma(1) * (ax + x.b) * (ay + y.b))


def _gemv(m: np.ndarray, v: _Bounded, mb: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """m @ v per batch and direction (m [nd, G, K], v [batch, nd, K]): the value, the propagated error
    (|m| + b_m)(|v| + b_v) - |m||v| and sum|terms| |m||v|."""
    value = np.einsum("dgk,bdk->bdg", m, v.v)
    if v.b is None:
        return value, None, None
    am, av = np.abs(m), np.abs(v.v)
    size = np.einsum("dgk,bdk->bdg", am, av)
    wide_m = am if mb is None else am + mb
    moved = np.einsum("dgk,bdk->bdg", wide_m, av + v.b) - size
    return value, moved, size


class _Run:
    """The sequence, step by step, batch and directions at once; with ``bounds``, the error bound of every value."""

    def __init__(self, kind: _Kind, a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray] | None):
        self.kind, self.a = kind, a
        s = kind.states
        f64 = [np.asarray(v, np.float64) for v in args]
        self.x = f64[0]
        self.lengths = np.clip(np.asarray(args[1 + s]).astype(np.int64), 0, self.x.shape[1])
        self.w, self.r, self.bias = f64[2 + s], f64[3 + s], f64[4 + s]
        self.with_bounds = bounds is not None
        if bounds is not None:
            shaped = [np.broadcast_to(np.asarray(b, np.float64), np.shape(v)) for b, v in zip(bounds, args,
                                                                                                strict=True)]
            self.xb = shaped[0]
            self.states = [_Bounded(f64[1 + i], shaped[1 + i]) for i in range(s)]
            self.wb, self.rb, self.biasb = (None if is_exact(bounds[i]) else shaped[i] for i in (2 + s, 3 + s, 4 + s))
        else:
            self.xb = None
            self.states = [_Bounded(f64[1 + i], None) for i in range(s)]
            self.wb = self.rb = self.biasb = None
        self.hidden = self.r.shape[-1]

    def _inputs(self, step: int) -> tuple[_Bounded, np.ndarray, np.ndarray]:
        """x at this step per batch and direction [batch, nd, input], which batches still run [batch] and the time
        index each batch and direction reads [batch, nd]."""
        nd = _directions(self.a)
        reverse = np.array([self.a.direction == "reverse" or d == 1 for d in range(nd)])
        t = np.where(reverse[None, :], self.lengths[:, None] - 1 - step, step)
        t = np.clip(t, 0, max(self.x.shape[1] - 1, 0))
        rows = np.arange(self.x.shape[0])[:, None]
        xb = None if self.xb is None else self.xb[rows, t]
        return _Bounded(self.x[rows, t], xb), (step < self.lengths), t

    def _affine(self, x: _Bounded, h: _Bounded, rows: slice, bias_rows: slice | None = None,
                recurrent: bool = True) -> _Bounded:
        """W[rows] x + R[rows] h + B[bias_rows] (R's term left out when not ``recurrent``), with its bound: gamma(n)
        sum|terms| (n = input + hidden + 2) plus the inputs' errors propagated."""
        bias_rows = rows if bias_rows is None else bias_rows
        parts = [(self.w[:, rows], x, None if self.wb is None else self.wb[:, rows])]
        if recurrent:
            parts.append((self.r[:, rows], h, None if self.rb is None else self.rb[:, rows]))
        bias = self.bias[None, :, bias_rows]
        value = bias + 0.0
        size = np.abs(bias) + 0.0
        moved = None if self.biasb is None else self.biasb[None, :, bias_rows] + 0.0
        for m, v, mb in parts:
            val, mv, sz = _gemv(m, v, mb)
            value = value + val
            if sz is not None:
                size = size + sz
                moved = mv if moved is None else moved + mv
        if not self.with_bounds:
            return _Bounded(value, None)
        n = self.x.shape[-1] + (self.hidden if recurrent else 0) + 2
        bound = gamma(n) * size + (0.0 if moved is None else moved)
        return _Bounded(value, bound)

    def run(self) -> tuple[list[np.ndarray], list[np.ndarray] | None]:
        a = self.a
        batch, steps = self.x.shape[:2]
        nd, hsz = _directions(a), self.hidden
        y = np.zeros((batch, nd, steps, hsz))
        yb = np.zeros((batch, nd, steps, hsz)) if self.with_bounds else None
        states = list(self.states)
        clip = a.clip
        for step in range(steps):
            x, running, t = self._inputs(step)
            if not running.any():
                break
            new = self._cell(x, states, clip)
            keep = running[:, None, None]
            rows = np.arange(batch)[:, None]
            for i in range(len(states)):
                v = np.where(keep, new[i].v, states[i].v)
                b = None if new[i].b is None else np.where(keep, new[i].b, states[i].b)
                states[i] = _Bounded(v, b)
            direction = np.arange(nd)[None, :]
            y[rows, direction, t] = np.where(keep, states[0].v, y[rows, direction, t])
            if yb is not None:
                yb[rows, direction, t] = np.where(keep, states[0].b, yb[rows, direction, t])
        ran = (self.lengths > 0)[:, None, None]
        outs = [y] + [np.where(ran, st.v, 0.0) for st in states]
        if yb is None:
            return outs, None
        return outs, [yb] + [np.where(ran, st.b, 0.0) for st in states]

    def _cell(self, x: _Bounded, states: list[_Bounded], clip: float) -> list[_Bounded]:
        n = self.hidden
        h = states[0]
        acts = self.a.activations  # f, g, h for LSTM, f, g for GRU, f for RNN (those after are not read)
        if self.kind is _LSTM:
            f, i, c, o = (self._affine(x, h, slice(k * n, (k + 1) * n)) for k in range(4))
            f, i, o = (_act(acts[0], g, clip) for g in (f, i, o))
            c = _act(acts[1], c, clip)
            cell = _add(_mul(f, states[1]), _mul(i, c))
            hidden = _mul(o, _act(acts[2], cell, 0.0))
            return [hidden, cell]
        if self.kind is _RNN:
            return [_act(acts[0], self._affine(x, h, slice(0, n)), clip)]
        z = _act(acts[0], self._affine(x, h, slice(0, n)), clip)
        r = _act(acts[0], self._affine(x, h, slice(n, 2 * n)), clip)
        rows = slice(2 * n, 3 * n)
        if self.a.linear_before_reset:
            inner = self._affine(_Bounded(np.zeros_like(x.v), None if x.b is None else np.zeros_like(x.b)), h, rows,
                                 slice(3 * n, 4 * n))  # R_h h + B_rh (W's term is zero)
            outer = self._affine(x, h, rows, recurrent=False)  # W_h x + B_wh
            candidate = _act(acts[1], _add(outer, _mul(r, inner)), clip)
        else:
            gated = _mul(r, h)
            wx = self._affine(x, h, rows, recurrent=False)
            rh, moved, size = _gemv(self.r[:, rows], gated, None if self.rb is None else self.rb[:, rows])
            if moved is None:
                pre = _Bounded(wx.v + rh, None)
            else:
                pre = _Bounded(wx.v + rh, wx.b + moved + gamma(n + 1) * size)
            candidate = _act(acts[1], pre, clip)
        # h' = (1 - z) h~ + z h, in whichever form: the exact values' products against the perturbed ones, and
        # gamma(4) of every term's size for the roundings
        value = (1.0 - z.v) * candidate.v + z.v * h.v
        if z.b is None:
            return [_Bounded(value, None)]
        az, ac, ah = np.abs(z.v), np.abs(candidate.v), np.abs(h.v)
        moved = (z.b * (ac + candidate.b + ah + h.b) + np.abs(1.0 - z.v) * candidate.b + az * h.b)
        size = (ac + candidate.b) * (1.0 + az + z.b) + (az + z.b) * (ah + h.b)
        return [_Bounded(value, moved + gamma(4) * size)]


def _add(x: _Bounded, y: _Bounded) -> _Bounded:
    v = x.v + y.v
    if x.b is None:
        return _Bounded(v, None)
    return _Bounded(v, x.b + y.b + gamma(1) * (np.abs(x.v) + x.b + np.abs(y.v) + y.b))


def _kernel(kind: _Kind):
    def run(a: Any, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        _check(kind, a, args)
        outs, _ = _Run(kind, a, args, None).run()
        dtype = np.asarray(args[0]).dtype
        return [v.astype(dtype) for v in outs]

    return run


def _rounding(kind: _Kind):
    def rule(kernel: Kernel, a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        _check(kind, a, args)
        bounds = list(bounds)
        at = 1 + kind.states
        inexact = may_differ(args[at], bounds[at])
        bounds[at] = EXACT
        _, out_bounds = _Run(kind, a, args, bounds).run()
        assert out_bounds is not None
        found = [b + output_rounding(y) for b, y in zip(out_bounds, outputs, strict=True)]
        if inexact.any():  # a batch whose length may differ from the reference's runs other steps: no bound
            found = [np.where(inexact.reshape((-1,) + (1,) * (b.ndim - 1)), np.inf, b) for b in found]
        return found

    return rule


def _too_few_activations(kind: _Kind) -> Callable[[Any, frozenset[int]], str | None]:
    """OpenVINO's reader reads any activations (none where the attribute is omitted or empty), but its CPU plugin
    cannot compile a sequence given fewer than the op's count (3 LSTM, 2 GRU, 1 RNN: "vector::_M_range_check"
    converting it; measured on 2026.4.1); more it compiles."""

    def crashes(a: Any, read: frozenset[int]) -> str | None:
        n = len(kind.activations)
        if len(a.activations) >= n:
            return None
        return (f"activations has {len(a.activations)} of the {n} names the op takes: OpenVINO reads it, but its CPU "
                f"plugin cannot compile the layer; write activations=\"{', '.join(kind.activations)}\"")

    return crashes


LSTM_SEQUENCE_5 = OpSpec("LSTMSequence", "LSTMSequence-5", LSTMSequenceAttrs, (7, 7), 3, _rule(_LSTM),
                         _kernel(_LSTM), rounding=_rounding(_LSTM), crashes=_too_few_activations(_LSTM), index_input=3,
                         lengths_axis=1, evaluates=never)
GRU_SEQUENCE_5 = OpSpec("GRUSequence", "GRUSequence-5", GRUSequenceAttrs, (6, 6), 2, _rule(_GRU), _kernel(_GRU),
                        rounding=_rounding(_GRU), crashes=_too_few_activations(_GRU), index_input=2, lengths_axis=1,
                        evaluates=never)
RNN_SEQUENCE_5 = OpSpec("RNNSequence", "RNNSequence-5", RNNSequenceAttrs, (6, 6), 2, _rule(_RNN), _kernel(_RNN),
                        rounding=_rounding(_RNN), crashes=_too_few_activations(_RNN), index_input=2, lengths_axis=1,
                        evaluates=never)


# --- cells: one step of a sequence ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LSTMCellAttrs:
    """LSTMCell-4's. The cells' defaults, which OpenVINO's IR reader takes for an omitted attribute (measured on
    2026.4.1), differ from the sequences': activations sigmoid, tanh, tanh (GRU: sigmoid, tanh; RNN: tanh)."""

    hidden_size: int = A.attr("hidden_size", A.UINT, 0)
    activations: tuple[str, ...] = A.attr("activations", STRINGS, _LSTM.activations)
    activations_alpha: tuple[float, ...] = A.attr("activations_alpha", FLOATS, ())
    activations_beta: tuple[float, ...] = A.attr("activations_beta", FLOATS, ())
    clip: float = A.attr("clip", FLOAT, 0.0)


@dataclass(frozen=True, slots=True)
class LSTMCell1Attrs(LSTMCellAttrs):
    """LSTMCell-1's: LSTMCell-4's, and input_forget and weights_format (which OpenVINO CPU does not apply)."""

    input_forget: bool = A.attr("input_forget", A.BOOL, False)
    weights_format: str = A.attr("weights_format", A.enum("fico", "icof", "ifco", "ifoc", "iofc"), "ifco")


@dataclass(frozen=True, slots=True)
class GRUCellAttrs:
    hidden_size: int = A.attr("hidden_size", A.UINT, 0)
    activations: tuple[str, ...] = A.attr("activations", STRINGS, _GRU.activations)
    activations_alpha: tuple[float, ...] = A.attr("activations_alpha", FLOATS, ())
    activations_beta: tuple[float, ...] = A.attr("activations_beta", FLOATS, ())
    clip: float = A.attr("clip", FLOAT, 0.0)
    linear_before_reset: bool = A.attr("linear_before_reset", A.BOOL, False)


@dataclass(frozen=True, slots=True)
class RNNCellAttrs:
    hidden_size: int = A.attr("hidden_size", A.UINT, 0)
    activations: tuple[str, ...] = A.attr("activations", STRINGS, _RNN.activations)
    activations_alpha: tuple[float, ...] = A.attr("activations_alpha", FLOATS, ())
    activations_beta: tuple[float, ...] = A.attr("activations_beta", FLOATS, ())
    clip: float = A.attr("clip", FLOAT, 0.0)


#: Per kind, the sequence a cell is one step of.
_SEQUENCE_ATTRS: dict[_Kind, type] = {_LSTM: LSTMSequenceAttrs, _GRU: GRUSequenceAttrs, _RNN: RNNSequenceAttrs}


def _defaulted(a: Any, inputs: Sequence[Any], make: Callable[[int], Any]) -> list[Any]:
    """LSTMCell-1's inputs with B and P, which OpenVINO makes of hidden_size where the layer has none (``make(n)``:
    n zeros, or their type)."""
    if not isinstance(a, LSTMCell1Attrs):
        return list(inputs)
    return [*inputs, *(make(n * a.hidden_size) for n in (4, 3)[len(inputs) - 5:])]


def _cell_rule(kind: _Kind):
    def infer(a: Any, inputs: Sequence[TensorType], values) -> list[TensorType]:
        s = kind.states
        if isinstance(a, LSTMCell1Attrs) and inputs[0].element is None and len(inputs) < 7:
            raise OpValidationError("no element type to make the default B and P of: X's is dynamic")
        inputs = _defaulted(a, inputs, lambda n: TensorType(inputs[0].element, (Dim(n, n),)))
        element = _element(inputs, [i for i in range(4 + s) if kind is not _GRU or i != 2])  # (GRUCell's W: any)
        shapes = _ranked(inputs, [2] * (1 + s) + [2, 2, 1])

        def dim(i: int, k: int) -> Dim:
            return _UNKNOWN if shapes[i] is None else shapes[i][k]

        batch = dim(0, 0)
        for i in range(1, 1 + s):
            batch = _merged(batch, dim(i, 0), "batch_size")
        hidden = dim(1, 1)
        for i in (*range(2, 1 + s), 2 + s):
            hidden = _merged(hidden, dim(i, 1), "hidden_size")
        hidden = _gate_dims(kind, a, shapes, hidden, 1 + s, 0)
        if kind is _LSTM and not hidden.is_static:  # (LSTMCell's: the hidden_size attribute then)
            hidden = Dim(a.hidden_size, a.hidden_size)
        if len(shapes) == 7:
            p = shapes[6]
            if p is None or not p:
                raise OpValidationError("P has no first dim")
            if p[0].is_static and merge_dim(p[0], Dim(3 * hidden.lo, 3 * hidden.lo)) is None:
                raise OpValidationError(f"P's dim {p[0]} is not 3 * hidden_size = {3 * hidden.lo}")
        return [TensorType(element, (batch, hidden))] * s

    return infer


def _step(kind: _Kind, a: Any, values: Sequence[np.ndarray], lengths: np.ndarray) -> tuple[Any, list[np.ndarray]]:
    """A cell as one step of its sequence: the sequence's attributes and its inputs (X [batch, 1, input], the states
    [batch, 1, hidden], sequence_lengths ``lengths``, W, R and B with one direction); a 0-d value (an exact bound)
    as it is."""
    s = kind.states
    extra = {"linear_before_reset": a.linear_before_reset} if kind is _GRU else {}
    sequence = _SEQUENCE_ATTRS[kind](hidden_size=a.hidden_size, activations=a.activations, clip=a.clip, **extra)

    def expanded(v: np.ndarray, axis: int) -> np.ndarray:
        return v if np.ndim(v) == 0 else np.expand_dims(v, axis)

    return sequence, [*(expanded(v, 1) for v in values[:1 + s]), lengths,
                      *(expanded(v, 0) for v in values[1 + s:4 + s])]


def _cell_check(kind: _Kind, a: Any, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The cell's inputs (LSTMCell-1's with its default B), refused where OpenVINO CPU cannot compile the layer or
    computes otherwise than the specification."""
    reason = _cell_crashes(kind)(a, frozenset())
    if reason is not None:
        raise UnsupportedError(reason)
    x = np.asarray(args[0])
    args = _defaulted(a, args, lambda n: np.zeros(n, x.dtype))
    if isinstance(a, LSTMCell1Attrs):
        if a.input_forget:
            raise UnsupportedError("LSTMCell-1 with input_forget: OpenVINO CPU computes it as without (measured)")
        if np.any(np.asarray(args[6]) != 0):
            raise UnsupportedError("LSTMCell-1 with peepholes other than 0: OpenVINO CPU computes the cell without "
                                   "them (measured)")
    return args[:4 + kind.states]


def _cell_kernel(kind: _Kind):
    def run(a: Any, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        args = _cell_check(kind, a, args)
        batch = np.shape(args[0])[0] if np.ndim(args[0]) == 2 else 0
        sequence, steps = _step(kind, a, args, np.ones(batch, np.int32))
        _check_inputs(kind, sequence, steps)
        outs, _ = _Run(kind, sequence, steps, None).run()
        dtype = np.asarray(args[0]).dtype
        return [v[:, 0].astype(dtype) for v in outs[1:]]

    return run


def _cell_rounding(kind: _Kind):
    def rule(kernel: Kernel, a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        args = _cell_check(kind, a, args)
        lengths = np.ones(np.shape(args[0])[0], np.int32)
        sequence, steps = _step(kind, a, args, lengths)
        _, step_bounds = _step(kind, a, list(bounds[:len(args)]) + [EXACT] * (len(args) - len(bounds)), lengths)
        step_bounds[1 + kind.states] = EXACT
        _, out_bounds = _Run(kind, sequence, steps, step_bounds).run()
        assert out_bounds is not None
        return [b[:, 0] + output_rounding(y) for b, y in zip(out_bounds[1:], outputs, strict=True)]

    return rule


def _cell_crashes(kind: _Kind) -> Callable[[Any, frozenset[int]], str | None]:
    """The sequences' count of activations, and names: OpenVINO's reader reads any, but its CPU plugin compiles only
    relu, sigmoid and tanh (in any case), "Unknown activation function" otherwise (measured on 2026.4.1)."""
    too_few = _too_few_activations(kind)

    def crashes(a: Any, read: frozenset[int]) -> str | None:
        reason = too_few(a, read)
        unknown = [n for n in a.activations[:len(kind.activations)] if n not in _ACTIVATIONS]
        if reason is None and unknown:
            return (f"activation {unknown[0]!r}: OpenVINO reads it, but its CPU plugin cannot compile the layer "
                    f"(it computes {', '.join(_ACTIVATIONS)})")
        return reason

    return crashes


def _cell(kind: _Kind, type_: str, label: str, attrs: type, n_inputs: tuple[int, int]) -> OpSpec:
    return OpSpec(type_, label, attrs, n_inputs, kind.states, _cell_rule(kind), _cell_kernel(kind),
                  rounding=_cell_rounding(kind), crashes=_cell_crashes(kind), evaluates=never)


LSTM_CELL_1 = replace(_cell(_LSTM, "LSTMCell", "LSTMCell-1", LSTMCell1Attrs, (5, 7)), reads_unfed_ports=True)
LSTM_CELL_4 = _cell(_LSTM, "LSTMCell", "LSTMCell-4", LSTMCellAttrs, (6, 6))
GRU_CELL_3 = _cell(_GRU, "GRUCell", "GRUCell-3", GRUCellAttrs, (5, 5))
RNN_CELL_1 = _cell(_RNN, "RNNCell", "RNNCell-1", RNNCellAttrs, (5, 5))
