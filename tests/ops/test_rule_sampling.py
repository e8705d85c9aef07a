"""Rounding rules beyond element-wise ops bound what their inputs' errors do (tests/ops/test_elementwise_change.py's
kind of test, for rule families never sampled so): seeded small cases, input bounds from 2^-20 to a few times
1 + |value| per element, the kernel in float64 on inputs moved within their bounds against the kernel on the inputs
as they are; every change must be within the rule's (worst-case) bound on the f32 outputs, which adds the op's own
rounding as well (so the comparison is conservative). No OpenVINO.

- Interpolate-1, -4 and -11 (nearest in every nearest_mode and coordinate_transformation_mode, linear, linear_onnx,
  cubic; pads), errors on the data: the kernel is linear in its data, so each output's largest change, sum |slope| b,
  is found from the slopes (one input element moved at a time) and realised for the largest. Cubic's rule took the
  signed weights' sum of the errors and of |x| (a bound below the change by up to 69x, negative for some elements
  even with exact inputs); now the magnitudes'. An inexact scale (a few f32 ulps) moves nearest picks (asymmetric
  coordinates of a scale of 2 lie on integers and halves) and weights, an inexact size or axis the shape: no bound
  (before: the data's bound, 0 for exact data).
- Gather-1/7/8 and GatherND-5/8: data errors move with their elements (the bound is exact); an inexact index (a bound
  of 1 or more, or inf: a TopK's or MaxPool's index) may pick any element, so the elements it gives have no bound
  (before: the data's bound, 0 for exact data).
- LSTMSequence, GRUSequence (with and without linear_before_reset), RNNSequence: X, the states, W, R and B inexact
  at once, moved to both corners, random signs and uniform draws. An inexact sequence length runs other steps: no
  bound for its batch (before: ignored).
- GridSample, every mode, padding and align_corners: data and grid inexact (the grid by up to 5 pixels).
  Bicubic's 4 x 4 weights w_j w_i sum to (sum |w|)^2 in magnitude (1.89 at a half pixel): the data's errors with an
  inexact grid, and a grid off by a pixel or more, took one axis's sum (1.375), 1.36x below the change.
- BatchNormInference-1/5 (all five inputs), MVN-1/6 (the worst case, not the statistical variant, which aligned
  errors exceed by design), NormalizeL2-1, LRN-1: within their bounds; NormalizeL2 over no axes (0 for 0, 1
  otherwise) ignored its input's bound (0 where the output can change by 1).
- Every op that moves or sums data (``rounding.moves``, ``accumulation``) with an index, shift, pad, axis, order or
  count that may differ (a bound of 1 or more): no bound (before: the data's bound alone). A pad value's bound moves
  into the padded elements (before: taken as exact). Range, the bitwise ops and the logical reductions likewise
  (before: exact whatever their inputs).

Run with -s to see each op's largest sampled change over its bound per kind of case."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest

from ir_tools.ops.opsets import lookup
from ir_tools.ops.rounding import EXACT

SEED = 20261127

#: The float64 arithmetic of a moved value: a change is counted less this of |y| + |moved y| (x + b - x is not b).
SLACK = 1e-12

Run = Callable[[Sequence[np.ndarray]], list[np.ndarray]]


def _f64(args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.asarray(v, np.float64) if np.asarray(v).dtype.kind == "f" else np.asarray(v) for v in args]


def _change(moved: np.ndarray, y: np.ndarray) -> np.ndarray:
    """|moved - y|, less the float64 arithmetic's slack; NaN where either is (a case outside the kernel's domain)."""
    return np.maximum(np.abs(moved - y) - SLACK * (np.abs(moved) + np.abs(y)), 0.0)


def _moved(run: Run, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray], rng: np.random.Generator,
           draws: int) -> list[np.ndarray]:
    """Per output, the largest |run(args + d) - run(args)| found over perturbations |d| <= bounds of the float inputs
    (in float64): both corners (every input at +b, at -b), ``draws`` of random signs at the bounds and ``draws``
    uniform."""
    args = _f64(args)
    shaped = {i: np.broadcast_to(np.asarray(b, np.float64), args[i].shape) for i, b in enumerate(bounds)
              if args[i].dtype.kind == "f" and np.any(np.asarray(b) > 0)}
    base = run(args)
    found = [np.zeros(np.shape(y)) for y in base]

    def take(steps: dict[int, np.ndarray]) -> None:
        with np.errstate(all="ignore"):
            moved = run([v + steps[i] if i in steps else v for i, v in enumerate(args)])
        for k, (y, m) in enumerate(zip(base, moved, strict=True)):
            np.fmax(found[k], _change(m, y), out=found[k])

    for sign in (-1.0, 1.0):
        take({i: sign * b for i, b in shaped.items()})
    for _ in range(draws):
        take({i: rng.choice([-1.0, 1.0], b.shape) * b for i, b in shaped.items()})
        take({i: rng.uniform(-1.0, 1.0, b.shape) * b for i, b in shaped.items()})
    return found


def _bounds_of(spec, attrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The rule's (worst-case) bounds on the f32 outputs the kernel gives for ``args`` (as they are typed)."""
    outputs = spec.kernel(attrs, list(args))
    with np.errstate(all="ignore"):
        found = spec.rounding(spec.kernel, attrs, list(args), list(bounds), outputs)
    return [np.broadcast_to(np.where(np.isnan(b), np.inf, b), np.shape(y)) for b, y in zip(found, outputs,
                                                                                        strict=True)]


class Ratios:
    """The largest sampled change over the rule's bound per kind of case (printed with -s), and every case beyond
    the bound."""

    def __init__(self, name: str):
        self.name, self.worst, self.cases, self.over = name, {}, 0, []

    def add(self, kind: str, what: object, moved: Sequence[np.ndarray], limits: Sequence[np.ndarray]) -> None:
        self.cases += 1
        self.worst.setdefault(kind, 0.0)
        for k, (m, b) in enumerate(zip(moved, limits, strict=True)):
            if not np.size(m):
                continue
            beyond = m > b  # (a negative bound too, which nothing is within)
            with np.errstate(all="ignore"):
                ratio = np.where(beyond & (b <= 0), np.inf, np.where(m > 0, m / b, 0.0))
            at = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
            self.worst[kind] = max(self.worst[kind], float(ratio[at]))
            if not beyond.any() and np.any(b < 0):
                at = np.unravel_index(int(np.argmin(b)), b.shape)
            if beyond.any() or np.any(b < 0):
                self.over.append(f"{kind} {what} output {k} at {tuple(map(int, at))}: moved by {m[at]:.6g}, bound "
                                 f"{b[at]:.6g} (ratio {ratio[at]:.4g})")

    def check(self) -> None:
        worst = ", ".join(f"{kind} {ratio:.4g}" for kind, ratio in sorted(self.worst.items()))
        print(f"\n{self.name}: {self.cases} cases; largest change / bound: {worst}")
        assert not self.over, f"{len(self.over)} cases beyond the bound:\n" + "\n".join(self.over[:8])


def _input_bounds(rng: np.random.Generator, v: np.ndarray, low: float = -20.0, high: float = 0.0) -> np.ndarray:
    """Per element, 2^U(low, high) (1 + |v|); a scalar of that size for a fifth of the inputs."""
    v = np.asarray(v, np.float64)
    if rng.random() < 0.2:
        return np.asarray(2.0 ** rng.uniform(low, high) * (1.0 + float(np.abs(v).max(initial=0.0))))
    return 2.0 ** rng.uniform(low, high, v.shape) * (1.0 + np.abs(v))


def _linear_change(run: Run, args: Sequence[np.ndarray], data: int, bound: np.ndarray, rng: np.random.Generator,
                   realised: int = 6) -> np.ndarray:
    """For a kernel linear in input ``data`` (the others exact): per element of output 0, the largest change over
    |d| <= bound, sum |slope| b, with the slopes found by moving one input element at a time (the change is then
    exactly the slopes times d); ``realised`` of them (the largest) also run as the perturbation b sign(slope) itself,
    and the largest of those, of both corners and of random signs and uniform draws kept where it is more."""
    args = _f64(args)
    x = args[data]
    b = np.broadcast_to(np.asarray(bound, np.float64), x.shape)
    base = run(args)[0]

    def at(d: np.ndarray) -> np.ndarray:
        moved = list(args)
        moved[data] = x + d
        return run(moved)[0]

    slopes = np.empty((base.size, x.size))
    for j in range(x.size):
        unit = np.zeros(x.size)
        unit[j] = 1.0
        slopes[:, j] = (at(unit.reshape(x.shape)) - base).reshape(-1)
    worst = (np.abs(slopes) @ b.reshape(-1)).reshape(base.shape)
    for o in np.argsort(worst, axis=None)[::-1][:realised]:
        change = np.abs(at(np.sign(slopes[o]).reshape(x.shape) * b) - base).reshape(-1)[o]
        assert change >= worst.reshape(-1)[o] * (1.0 - 1e-9), "the kernel is not linear in its data"
    worst = np.maximum(worst - SLACK * (2.0 * np.abs(base) + worst), 0.0)
    for d in (b, -b, rng.choice([-1.0, 1.0], x.shape) * b, rng.uniform(-1.0, 1.0, x.shape) * b):
        worst = np.fmax(worst, _change(at(d), base))
    return worst


# --- Interpolate ----------------------------------------------------------------------------------------------------

TRANSFORMS = ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn", "align_corners")
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")
INTERPOLATE_COMBOS = [("nearest", t, n) for t in TRANSFORMS for n in NEAREST_MODES] + \
    [(m, t, "round_prefer_floor") for m in ("linear", "linear_onnx", "cubic") for t in TRANSFORMS]
SCALES = (0.5, 0.6, 0.75, 4 / 3, 1.5, 2.0, 2.5, 3.0)


def _interpolate_case(rng: np.random.Generator, version: int, mode: str, transform: str, nearest: str):
    """(spec, attrs, args) of an Interpolate-4 or -11 of a small f32 input (at most 48 elements) on 1 to 3 axes."""
    spec = lookup("Interpolate", f"opset{version}")
    rank = int(rng.integers(1, 5))
    shape = [int(v) for v in rng.integers(1, 5, rank)]
    while np.prod(shape) > 48:
        shape[int(np.argmax(shape))] -= 1
    axes = sorted(int(v) for v in rng.choice(rank, int(rng.integers(1, min(rank, 3) + 1)), replace=False))
    pads = [0] * rank, [0] * rank
    if rng.random() < 0.25:
        pads = tuple([int(v) for v in rng.integers(0, 2, rank)] for _ in range(2))
    padded = [n + p + q for n, p, q in zip(shape, *pads, strict=True)]
    calc = "scales" if rng.random() < 0.5 else "sizes"
    if calc == "sizes":
        value = np.array([max(1, int(rng.integers(1, 7))) for _ in axes], np.int64)
    else:
        value = np.array([rng.choice([s for s in SCALES if s * padded[a] >= 1]) for a in axes], np.float32)
    x = (rng.standard_normal(shape) * rng.choice([0.5, 2.0, 6.0])).astype(np.float32)
    attrs = spec.attrs(mode=mode, shape_calculation_mode=calc, coordinate_transformation_mode=transform,
                       nearest_mode=nearest, cube_coeff=float(rng.choice([-0.75, -0.5])), pads_begin=tuple(pads[0]),
                       pads_end=tuple(pads[1]))
    axes_v = np.array(axes, np.int64)
    if version == 11:
        return spec, attrs, [x, value, axes_v]
    other = np.ones(len(axes), np.float32) if calc == "sizes" else np.ones(len(axes), np.int64)
    return spec, attrs, [x, value, other, axes_v] if calc == "sizes" else [x, other, value, axes_v]


@pytest.mark.parametrize("version", [4, 11])
def test_interpolate_data_errors_move_the_output_within_the_bound(version: int) -> None:
    rng = np.random.default_rng([SEED, version])
    ratios = Ratios(f"Interpolate-{version}")
    for i in range(2 * len(INTERPOLATE_COMBOS)):
        mode, transform, nearest = INTERPOLATE_COMBOS[i % len(INTERPOLATE_COMBOS)]
        spec, attrs, args = _interpolate_case(rng, version, mode, transform, nearest)
        bounds = [_input_bounds(rng, args[0], -20.0, 2.0)] + [EXACT] * (len(args) - 1)
        limits = _bounds_of(spec, attrs, args, bounds)
        moved = _linear_change(lambda a, spec=spec, attrs=attrs: spec.kernel(attrs, a), args, 0, bounds[0], rng)
        ratios.add(mode, (attrs, [list(np.shape(v)) if k == 0 else v.tolist() for k, v in enumerate(args)]),
                   [moved], limits)
    ratios.check()


def test_interpolate_1_data_errors_move_the_output_within_the_bound() -> None:
    """Interpolate-1 runs as the Interpolate-4 OpenVINO converts it to (linear: linear_onnx below rank 5)."""
    spec = lookup("Interpolate", "opset1")
    rng = np.random.default_rng([SEED, 1])
    ratios = Ratios("Interpolate-1")
    for i in range(48):
        mode = ("nearest", "linear", "linear_onnx", "cubic")[i % 4]
        rank = int(rng.integers(1, 6 if mode == "linear" else 5))
        shape = [int(v) for v in rng.integers(1, 5 if rank < 4 else 3, rank)]
        axes = tuple(sorted(int(v) for v in rng.choice(rank, int(rng.integers(1, min(rank, 3) + 1)), replace=False)))
        x = (rng.standard_normal(shape) * rng.choice([0.5, 2.0, 6.0])).astype(np.float32)
        sizes = np.array([int(rng.integers(1, 6)) for _ in axes], np.int64)
        attrs = spec.attrs(axes=axes, mode=mode, align_corners=bool(rng.random() < 0.5))
        bounds = [_input_bounds(rng, x, -20.0, 2.0), EXACT]
        limits = _bounds_of(spec, attrs, [x, sizes], bounds)
        moved = _linear_change(lambda a, attrs=attrs: spec.kernel(attrs, a), [x, sizes], 0, bounds[0], rng)
        ratios.add(mode, (attrs, shape, sizes.tolist()), [moved], limits)
    ratios.check()


@pytest.mark.parametrize("version", [4, 11])
@pytest.mark.parametrize("mode,transform,nearest", [("nearest", "asymmetric", "floor"),
                                                    ("nearest", "asymmetric", "round_prefer_floor"),
                                                    ("nearest", "half_pixel", "round_prefer_ceil"),
                                                    ("linear_onnx", "half_pixel", "round_prefer_floor"),
                                                    ("cubic", "asymmetric", "round_prefer_floor")])
def test_an_inexact_scale_moves_the_output_within_the_bound(version: int, mode: str, transform: str,
                                                            nearest: str) -> None:
    """Exact data, scales within a few f32 ulps (scales computed in f32, a Divide of two shapes): asymmetric
    coordinates of a scale of 2 lie on integers and halves, where floor and rounding pick another pixel as soon as
    the scale moves; the weights move too. Sampled at 17 scales over the interval (those keeping the output's
    shape), the output moves within the rule's bound."""
    spec = lookup("Interpolate", f"opset{version}")
    rng = np.random.default_rng([SEED, 40, version])
    attrs = spec.attrs(mode=mode, shape_calculation_mode="scales", coordinate_transformation_mode=transform,
                       nearest_mode=nearest)
    x = rng.standard_normal((1, 2, 4, 5)).astype(np.float32)
    scales = np.array([2.0, 2.5], np.float32)
    axes = np.array([2, 3], np.int64)
    args = [x, scales, axes] if version == 11 else [x, np.ones(2, np.int64), scales, axes]
    at = 1 if version == 11 else 2
    spread = 2.0**-20 * scales
    bounds = [EXACT] * len(args)
    bounds[at] = spread
    (limit,) = _bounds_of(spec, attrs, args, bounds)
    base = spec.kernel(attrs, _f64(args))[0]
    change = np.zeros(base.shape)
    for t in np.linspace(-1.0, 1.0, 17):
        moved = list(_f64(args))
        moved[at] = (scales + t * spread).astype(np.float32)
        out = spec.kernel(attrs, moved)[0]
        if out.shape == base.shape:
            change = np.fmax(change, _change(out, base))
    assert change.max() > 0, "no scale of the interval moved the output: the case shows nothing"
    assert np.all(change <= limit), f"moved by up to {change.max()}, bound {limit.min()} there"


@pytest.mark.parametrize("version,at", [(1, 1), (4, 1), (4, 3), (11, 1), (11, 2)])
def test_inexact_sizes_or_axes_leave_no_bound(version: int, at: int) -> None:
    """A size or an axis off by 1 changes the output's shape (or which axis is resized): no bound can hold; within a
    bound below 1 they are the reference's."""
    spec = lookup("Interpolate", f"opset{version}")
    x = np.random.default_rng([SEED, 41]).standard_normal((1, 2, 3, 4)).astype(np.float32)
    if version == 1:
        attrs, args = spec.attrs(axes=(2, 3), mode="linear"), [x, np.array([5, 6], np.int64)]
    else:
        attrs = spec.attrs(mode="linear_onnx", shape_calculation_mode="sizes")
        args = [x, np.array([5, 6], np.int64), np.array([2, 3], np.int64)]
        if version == 4:
            args.insert(2, np.ones(2, np.float32))
    bounds = [np.full(x.shape, 1e-3)] + [EXACT] * (len(args) - 1)
    bounds[at] = np.ones(np.shape(args[at]))
    assert np.all(_bounds_of(spec, attrs, args, bounds)[0] == np.inf)
    bounds[at] = np.full(np.shape(args[at]), 0.5)  # integers within 0.5 are equal
    assert np.all(np.isfinite(_bounds_of(spec, attrs, args, bounds)[0]))


# --- Gather and GatherND ------------------------------------------------------------------------------------------


def _gather_case(rng: np.random.Generator, version: int):
    """(spec, attrs, args) of a Gather-1, -7 or -8 of small f32 data; Gather-8's indices negative too, and out of
    range (zeros) for some."""
    spec = lookup("Gather", f"opset{version}")
    rank = int(rng.integers(1, 4))
    shape = [int(v) for v in rng.integers(1, 5, rank)]
    axis = int(rng.integers(0, rank))
    batch = int(rng.integers(0, axis + 1)) if version > 1 else 0
    idx_shape = shape[:batch] + [int(v) for v in rng.integers(1, 4, int(rng.integers(0, 3)))]
    n = shape[axis]
    low = -n - 1 if version == 8 else 0
    high = n + 1 if version == 8 else n
    idx = rng.integers(low, high, idx_shape).astype(rng.choice([np.int32, np.int64]))
    x = (rng.standard_normal(shape) * rng.choice([0.5, 2.0, 6.0])).astype(np.float32)
    attrs = spec.attrs() if version == 1 else spec.attrs(batch_dims=batch - len(idx_shape) if rng.random() < 0.2 and
                                                           batch else batch)
    return spec, attrs, [x, idx, np.array(axis - rank if rng.random() < 0.3 else axis, np.int64)]


def _gather_nd_case(rng: np.random.Generator, version: int):
    spec = lookup("GatherND", f"opset{version}")
    batch = int(rng.integers(0, 3))
    k = int(rng.integers(1, 3))
    rank = batch + k + int(rng.integers(0, 2))
    shape = [int(v) for v in rng.integers(1, 4, rank)]
    idx_shape = shape[:batch] + [int(v) for v in rng.integers(1, 3, int(rng.integers(0, 2)))] + [k]
    lengths = np.array(shape[batch:batch + k])
    idx = rng.integers(-lengths, lengths, idx_shape).astype(np.int64)
    x = (rng.standard_normal(shape) * rng.choice([0.5, 2.0, 6.0])).astype(np.float32)
    return spec, spec.attrs(batch_dims=batch), [x, idx]


GATHERS = [("Gather", 1), ("Gather", 7), ("Gather", 8), ("GatherND", 5), ("GatherND", 8)]


@pytest.mark.parametrize("op,version", GATHERS)
def test_gather_data_errors_move_the_output_within_the_bound(op: str, version: int) -> None:
    rng = np.random.default_rng([SEED, 50, version, len(op)])
    ratios = Ratios(f"{op}-{version}")
    for _ in range(60):
        spec, attrs, args = (_gather_case if op == "Gather" else _gather_nd_case)(rng, version)
        bounds = [_input_bounds(rng, args[0], -20.0, 2.0)] + [EXACT] * (len(args) - 1)
        limits = _bounds_of(spec, attrs, args, bounds)
        moved = _linear_change(lambda a, spec=spec, attrs=attrs: spec.kernel(attrs, a), args, 0, bounds[0], rng)
        ratios.add("data", (attrs, list(args[0].shape), args[1].tolist()), [moved], limits)
    ratios.check()


@pytest.mark.parametrize("op,version", GATHERS)
def test_an_inexact_index_may_pick_any_element(op: str, version: int) -> None:
    """Indices within 1, 2 or any (inf) of the reference's, data exact or not: every index moved to each other value
    in its interval the kernel takes (one index at a time), and all the inexact ones at once to random values, moves
    the output within the rule's bound. Bounds below 1 leave integers equal: the bound stays the data's."""
    rng = np.random.default_rng([SEED, 60, version, len(op)])
    ratios = Ratios(f"{op}-{version} inexact indices")
    for case in range(40):
        spec, attrs, args = (_gather_case if op == "Gather" else _gather_nd_case)(rng, version)
        x, idx = args[0], args[1]
        index_bound = rng.choice([0.0, 0.0, 0.5, 1.0, 2.0, np.inf], idx.shape)
        bounds = [_input_bounds(rng, x) if case % 2 else EXACT, index_bound] + [EXACT] * (len(args) - 2)
        limits = _bounds_of(spec, attrs, args, bounds)
        base = spec.kernel(attrs, _f64(args))[0]
        change = np.zeros(base.shape)

        def take(moved_idx: np.ndarray, spec=spec, attrs=attrs, args=args, base=base, change=change) -> None:
            try:
                out = spec.kernel(attrs, [args[0].astype(np.float64), moved_idx, *args[2:]])[0]
            except Exception:  # an index the kernel refuses (out of range, negative before Gather-8)
                return
            np.fmax(change, _change(out, base), out=change)

        reach = np.minimum(index_bound, 2 * max(x.shape) + 2)
        for j in np.ndindex(idx.shape):
            for step in range(1, int(reach[j]) + 1):
                for sign in (-1, 1):
                    moved_idx = idx.copy()
                    moved_idx[j] += sign * step
                    take(moved_idx)
        for _ in range(8):
            take(idx + (rng.integers(-2 * max(x.shape) - 2, 2 * max(x.shape) + 3, idx.shape) *
                        (index_bound >= 1)).astype(idx.dtype))
        if not np.any(index_bound >= 1):
            assert np.all(np.isfinite(limits[0]))
        ratios.add("indices", (attrs, list(x.shape), idx.tolist(), index_bound.tolist()), [change], limits)
    ratios.check()


# --- LSTMSequence, GRUSequence, RNNSequence ------------------------------------------------------------------------

#: op -> (gates, states, activations)
RECURRENT = {"LSTMSequence": (4, 2, ("sigmoid", "tanh", "tanh")), "GRUSequence": (3, 1, ("sigmoid", "tanh")),
             "RNNSequence": (1, 1, ("tanh",))}


def _recurrent_case(rng: np.random.Generator, op: str, lbr: bool):
    """(spec, attrs, args) of a small sequence: batch 1 to 2, 1 to 4 steps, 1 to 3 inputs, 1 to 4 hidden units, any
    direction, lengths below the steps for some (0 included), a clip for some; weights of torch's initial range to
    four times it."""
    gates, states, activations = RECURRENT[op]
    spec = lookup(op, "opset5")
    batch, steps, size, hidden = (int(rng.integers(1, n)) for n in (3, 5, 4, 5))
    direction = str(rng.choice(["forward", "reverse", "bidirectional"]))
    nd = 2 if direction == "bidirectional" else 1
    lengths = np.full(batch, steps, np.int32)
    if rng.random() < 0.4:
        lengths = rng.integers(0 if rng.random() < 0.3 else 1, steps + 1, batch).astype(np.int32)
    clip = float(rng.choice([0.0, 0.0, 0.0, 0.5, 3.0]))
    scale = rng.choice([1.0, 2.0, 4.0]) / np.sqrt(max(size, hidden))

    def normal(shape, times=1.0) -> np.ndarray:
        return (rng.standard_normal(shape) * times).astype(np.float32)

    args = [normal((batch, steps, size), rng.choice([0.5, 1.0, 3.0])), *[normal((batch, nd, hidden))
                                                                       for _ in range(states)],
            lengths, normal((nd, gates * hidden, size), scale), normal((nd, gates * hidden, hidden), scale),
            normal((nd, (gates + lbr) * hidden), scale)]
    extra = {"linear_before_reset": lbr} if op == "GRUSequence" else {}
    attrs = spec.attrs(hidden_size=hidden, direction=direction, clip=clip, activations=activations, **extra)
    return spec, attrs, args


RECURRENT_CASES = [("LSTMSequence", False), ("GRUSequence", False), ("GRUSequence", True), ("RNNSequence", False)]


@pytest.mark.parametrize("op,lbr", RECURRENT_CASES)
def test_recurrent_input_errors_move_the_outputs_within_the_bound(op: str, lbr: bool) -> None:
    """X, the initial states, W, R and B all inexact at once (each exact for some cases), errors of 2^-23 to 2 times
    1 + |value| per element: moved together to both corners, to random signs at the bounds and uniformly (8 each),
    every output moves within the rule's bound."""
    rng = np.random.default_rng([SEED, 70, len(op), lbr])
    ratios = Ratios(f"{op}{' linear_before_reset' if lbr else ''}")
    for _ in range(24):
        spec, attrs, args = _recurrent_case(rng, op, lbr)
        level = rng.uniform(-20.0, 1.0)
        lengths_at = 1 + RECURRENT[op][1]
        bounds = [EXACT if i == lengths_at or rng.random() < 0.2 else _input_bounds(rng, v, level - 3.0, level)
                  for i, v in enumerate(args)]
        limits = _bounds_of(spec, attrs, args, bounds)
        moved = _moved(lambda a, spec=spec, attrs=attrs: spec.kernel(attrs, a), args, bounds, rng, 8)
        kind = f"2^{int(np.floor(level / 5)) * 5}"
        ratios.add(kind, (attrs, [list(np.shape(v)) for v in args], args[lengths_at].tolist()), moved, limits)
    ratios.check()


@pytest.mark.parametrize("op,lbr", RECURRENT_CASES)
def test_an_inexact_sequence_length_leaves_its_batch_no_bound(op: str, lbr: bool) -> None:
    """A length within 1 of the reference's runs a step more or less: that batch's outputs have no bound, the
    others' are what they were (a bound below 1 on integers changes nothing)."""
    rng = np.random.default_rng([SEED, 80, len(op), lbr])
    at = 1 + RECURRENT[op][1]
    for _ in range(6):
        spec, attrs, args = _recurrent_case(rng, op, lbr)
        args[0] = np.concatenate([args[0], args[0]])  # two batches at least
        for i in range(1, 1 + RECURRENT[op][1]):
            args[i] = np.concatenate([args[i], args[i]])
        steps = args[0].shape[1]
        args[at] = np.concatenate([args[at], args[at]]).astype(np.int64)
        bounds = [_input_bounds(rng, v, -20.0, -10.0) for v in args]
        bounds[at] = np.zeros(args[at].shape)
        bounds[at][0], bounds[at][-1] = 1.0, 0.5
        limits = _bounds_of(spec, attrs, args, bounds)
        exact_lengths = list(bounds)
        exact_lengths[at] = EXACT
        alike = _bounds_of(spec, attrs, args, exact_lengths)
        base = spec.kernel(attrs, _f64(args))
        for step in (-1, 1):
            lengths = args[at].copy()
            lengths[0] = np.clip(lengths[0] + step, 0, steps)
            moved = spec.kernel(attrs, [*_f64(args[:at]), lengths, *_f64(args[at + 1:])])
            for y, m, limit, before in zip(base, moved, limits, alike, strict=True):
                change = _change(m, y)
                assert np.all(change <= limit), f"{attrs}: moved by {change.max()}, bound {limit[change > limit]}"
                assert np.all(limit[0] == np.inf) and np.array_equal(limit[1:], before[1:])


# --- GridSample ---------------------------------------------------------------------------------------------------

GRID_SETTINGS = [(mode, padding, align) for mode in ("bilinear", "bicubic", "nearest")
                 for padding in ("zeros", "border", "reflection") for align in (False, True)]


def _grid_case(rng: np.random.Generator) -> list[np.ndarray]:
    """Data [N, C, H, W] of 1 to 5 pixels a side and a grid [N, H_out, W_out, 2] inside [-1, 1] or beyond, a third of
    its points on pixel centres or half pixels (where nearest rounds, and reflection folds)."""
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    h, w = int(rng.integers(1, 6)), int(rng.integers(1, 6))
    out = [int(rng.integers(1, 4)), int(rng.integers(1, 4))]
    x = (rng.standard_normal((n, c, h, w)) * rng.choice([0.5, 2.0, 6.0])).astype(np.float32)
    spread = float(rng.choice([1.0, 1.0, 1.5, 3.0]))
    grid = rng.uniform(-spread, spread, (n, *out, 2))
    halves = rng.integers(-2 * max(h, w) - 2, 4 * max(h, w) + 2, grid.shape) / 2.0
    lengths = np.array([w, h], np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        on = np.where(rng.random() < 0.5, 2.0 * halves / (lengths - 1) - 1.0, (2.0 * halves + 1.0) / lengths - 1.0)
    grid = np.where((rng.random(grid.shape) < 0.35) & np.isfinite(on), on, grid).astype(np.float32)
    return [x, grid]


@pytest.mark.parametrize("mode,padding,align", GRID_SETTINGS)
def test_grid_sample_input_errors_move_the_output_within_the_bound(mode: str, padding: str, align: bool) -> None:
    """Data and grid inexact (each exact for some cases), data's errors 2^-20 to 4 times 1 + |x|, the grid's 2^-26 to
    2 (a position off by up to 5 pixels, where a pixel or more takes the image's range): both corners, random signs
    at the bounds and uniform draws (6 each), the output moves within the rule's bound."""
    spec = lookup("GridSample", "opset9")
    attrs = spec.attrs(mode=mode, padding_mode=padding, align_corners=align)
    rng = np.random.default_rng([SEED, 90, GRID_SETTINGS.index((mode, padding, align))])
    ratios = Ratios(f"GridSample {mode} {padding} align_corners={align}")
    for case in range(12):
        args = _grid_case(rng)
        grid_level = rng.uniform(-24.0, 1.0)
        bounds = [_input_bounds(rng, args[0], -20.0, 2.0) if case % 4 != 1 else EXACT,
                  2.0 ** rng.uniform(grid_level - 2.0, grid_level, args[1].shape) if case % 4 != 2 else EXACT]
        limits = _bounds_of(spec, attrs, args, bounds)
        moved = _moved(lambda a: spec.kernel(attrs, a), args, bounds, rng, 6)
        kind = ("data and grid", "grid", "data", "data and grid")[case % 4]
        kind += "" if case % 4 == 2 else " (large)" if grid_level > -8.0 else " (small)"
        ratios.add(kind, ([list(v.shape) for v in args], args[1].tolist()), moved, limits)
    ratios.check()


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_bicubic_weighs_by_both_axes(padding: str) -> None:
    """Bicubic weighs 4 x 4 pixels by w_j w_i, whose magnitudes sum to (sum |w|)^2, 1.89 at a half pixel of Keys'
    kernel (1.375 per axis): data of +-1 in the weights' signs around one half pixel and the opposite signs 4 pixels
    below. A grid off by up to a whole image moves the output from 1.89 to -1.89 there; a grid off by 2^-20 and
    data off by 1 (each error in its weight's sign) move it by 1.89."""
    spec = lookup("GridSample", "opset9")
    attrs = spec.attrs(mode="bicubic", padding_mode=padding, align_corners=False)
    row = np.array([-1.0, 1.0, 1.0, -1.0, 1.0, -1.0, -1.0, 1.0])
    x = np.outer(row, row).astype(np.float32)[None, None]
    grid = np.array([[[[-0.5, -0.5]]]], np.float32)  # pixel (1.5, 1.5): taps 0..3 in both axes
    base = spec.kernel(attrs, [x.astype(np.float64), grid.astype(np.float64)])[0]
    assert float(base.squeeze()) == 1.375**2
    far = spec.kernel(attrs, [x.astype(np.float64), np.array([[[[-0.5, 0.5]]]])])[0]  # pixel (5.5, 1.5)
    (limit,) = _bounds_of(spec, attrs, [x, grid], [EXACT, np.array([[[[0.0, 1.0]]]])])
    assert float(np.abs(far - base).squeeze()) <= float(limit.squeeze())
    signs = np.sign(x) * np.sign(base)
    nudged = spec.kernel(attrs, [x + signs, grid.astype(np.float64) + 2.0**-20])[0]
    (limit,) = _bounds_of(spec, attrs, [x, grid], [np.ones(x.shape), np.full(grid.shape, 2.0**-20)])
    assert float(np.abs(nudged - base).squeeze()) <= float(limit.squeeze())


# --- BatchNormInference, MVN, NormalizeL2, LRN ---------------------------------------------------------------------


def _data(rng: np.random.Generator, shape) -> np.ndarray:
    return (rng.standard_normal(shape) * rng.choice([0.5, 2.0, 6.0])).astype(np.float32)


@pytest.mark.parametrize("version", [1, 5])
def test_batch_norm_input_errors_move_the_output_within_the_bound(version: int) -> None:
    """All five inputs inexact (data's errors 2^-20 to 4 times 1 + |x|; the variance's below 0.4 of itself, of at
    least 0.5): corners, random signs and uniform draws (10 each)."""
    spec = lookup("BatchNormInference", f"opset{version}")
    rng = np.random.default_rng([SEED, 100, version])
    ratios = Ratios(f"BatchNormInference-{version}")
    for _ in range(30):
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4)), *rng.integers(1, 4, int(rng.integers(0, 3)))]
        c = shape[1]
        x, gamma, beta, mean = _data(rng, shape), _data(rng, c), _data(rng, c), _data(rng, c)
        var = (np.abs(_data(rng, c)) + 0.5).astype(np.float32)
        level = rng.uniform(-20.0, 2.0)
        bx, bg, bb, bm = (_input_bounds(rng, v, level - 2.0, level) for v in (x, gamma, beta, mean))
        bv = np.minimum(_input_bounds(rng, var, level - 2.0, level), 0.4 * var)
        args, bounds = [x, gamma, beta, mean, var], [bx, bg, bb, bm, bv]
        if version == 1:
            args, bounds = [args[i] for i in (1, 2, 0, 3, 4)], [bounds[i] for i in (1, 2, 0, 3, 4)]
        attrs = spec.attrs(epsilon=float(rng.choice([1e-5, 1e-3, 0.0])))
        limits = _bounds_of(spec, attrs, args, bounds)
        moved = _moved(lambda a, attrs=attrs: spec.kernel(attrs, a), args, bounds, rng, 10)
        ratios.add(f"2^{int(np.floor(level / 8)) * 8}", (attrs, shape), moved, limits)
    ratios.check()


def _axes(rng: np.random.Generator, rank: int, empty: bool = False) -> np.ndarray:
    count = int(rng.integers(0 if empty else 1, rank + 1))
    return np.array(sorted(rng.choice(rank, count, replace=False)), np.int64)


@pytest.mark.parametrize("version,normalize_variance", [(1, True), (6, True), (6, False)])
def test_mvn_input_errors_move_the_output_within_the_bound(version: int, normalize_variance: bool) -> None:
    """The worst-case rule (not the statistical variant, which aligned errors exceed by design): errors 2^-20 to 4
    times 1 + |x|, corners, random signs and uniform draws (10 each)."""
    spec = lookup("MVN", f"opset{version}")
    rng = np.random.default_rng([SEED, 110, version, normalize_variance])
    ratios = Ratios(f"MVN-{version} normalize_variance={normalize_variance}")
    for _ in range(30):
        rank = int(rng.integers(2, 4))
        shape = [int(v) for v in rng.integers(1, 5, rank)]
        x = _data(rng, shape)
        level = rng.uniform(-20.0, 2.0)
        bounds = [_input_bounds(rng, x, level - 2.0, level)]
        eps = float(rng.choice([1e-9, 1e-5, 1e-2]))
        if version == 1:
            attrs, args = spec.attrs(eps=eps, across_channels=bool(rng.random() < 0.5),
                                     normalize_variance=normalize_variance), [x]
        else:
            attrs = spec.attrs(eps=eps, normalize_variance=normalize_variance,
                               eps_mode=str(rng.choice(["inside_sqrt", "outside_sqrt"])))
            args, bounds = [x, _axes(rng, rank)], [bounds[0], EXACT]
        limits = _bounds_of(spec, attrs, args, bounds)
        moved = _moved(lambda a, attrs=attrs: spec.kernel(attrs, a), args, bounds, rng, 10)
        ratios.add(f"2^{int(np.floor(level / 8)) * 8}", (attrs, shape, [v.tolist() for v in args[1:]]), moved,
                   limits)
    ratios.check()


#: NormalizeL2's and LRN's cases: a seed, the ranks drawn, and attributes drawn.
_NORMALIZATIONS = {
    "NormalizeL2": (120, (1, 4), lambda rng: {"eps": float(rng.choice([1e-12, 1e-6, 0.1])),
                                              "eps_mode": str(rng.choice(["add", "max"]))}),
    "LRN": (130, (2, 5), lambda rng: {"alpha": float(rng.choice([1e-4, 0.1, 1.0])),
                                      "beta": float(rng.choice([0.75, 0.5, 1.5])),
                                      "bias": float(rng.choice([1.0, 2.0, 0.5])), "size": int(rng.choice([1, 3, 5]))}),
}


@pytest.mark.parametrize("name", list(_NORMALIZATIONS))
def test_normalization_input_errors_move_the_output_within_the_bound(name: str) -> None:
    seed, ranks, draw = _NORMALIZATIONS[name]
    spec = lookup(name, "opset1")
    rng = np.random.default_rng([SEED, seed])
    ratios = Ratios(spec.label)
    for _ in range(40):
        rank = int(rng.integers(*ranks))
        shape = [int(v) for v in rng.integers(1, 5, rank)]
        x = _data(rng, shape)
        level = rng.uniform(-20.0, 2.0)
        attrs = spec.attrs(**draw(rng))
        args, bounds = [x, _axes(rng, rank)], [_input_bounds(rng, x, level - 2.0, level), EXACT]
        limits = _bounds_of(spec, attrs, args, bounds)
        moved = _moved(lambda a, attrs=attrs: spec.kernel(attrs, a), args, bounds, rng, 10)
        ratios.add(f"2^{int(np.floor(level / 8)) * 8}", (attrs, shape, args[1].tolist()), moved, limits)
    ratios.check()


def test_normalize_l2_over_no_axes_moves_where_the_interval_holds_zero() -> None:
    """Over no axes NormalizeL2 gives 0 for 0 and 1 for anything else: an input whose interval holds 0 (and is not
    {0}) may give either."""
    spec = lookup("NormalizeL2", "opset1")
    attrs = spec.attrs(eps=1e-12, eps_mode="add")
    x, b = np.array([0.0, 0.5, -2.0, 3.0], np.float32), np.array([0.1, 0.5, 2.0, 1.0])
    args = [x, np.array([], np.int64)]
    (limit,) = _bounds_of(spec, attrs, args, [b, EXACT])
    base = spec.kernel(attrs, _f64(args))[0]
    change = np.zeros(x.shape)
    for t in np.linspace(-1.0, 1.0, 9):
        change = np.fmax(change, _change(spec.kernel(attrs, [x + t * b, args[1]])[0], base))
    assert np.all(change[:3] > 0.99) and change[3] == 0.0
    assert np.all(change <= limit), f"moved by {change}, bound {limit}"


_X = np.arange(12, dtype=np.float32).reshape(3, 4)
#: (op, version, attributes, inputs, the input that is a choice, that input moved by 1)
_CHOICES = [
    ("Roll", "opset7", {}, [_X, np.array([1]), np.array([1])], 1, np.array([2])),
    ("Slice", "opset8", {}, [_X, np.array([0]), np.array([2]), np.array([1]), np.array([1])], 1, np.array([1])),
    ("StridedSlice", "opset1", {"begin_mask": [0], "end_mask": [0]}, [_X, np.array([1]), np.array([3]), np.array([1])],
     1, np.array([0])),
    ("Pad", "opset12", {"pad_mode": "constant"}, [_X, np.array([0, 1]), np.array([0, 1]), np.float32(0)], 1,
     np.array([0, 2])),
    ("Split", "opset1", {"num_splits": 2}, [_X.reshape(2, 6), np.array(1)], 1, np.array(0)),
    ("Tile", "opset1", {}, [_X, np.array([1, 2])], 1, np.array([2, 1])),
    ("Transpose", "opset1", {}, [_X.reshape(2, 2, 3), np.array([0, 2, 1])], 1, np.array([1, 0, 2])),
    ("ReduceMax", "opset1", {}, [_X, np.array([1])], 1, np.array([0])),
    ("ReduceSum", "opset1", {}, [_X, np.array([1])], 1, np.array([0])),
    ("ScatterNDUpdate", "opset4", {}, [_X, np.array([[1]]), np.ones((1, 4), np.float32)], 1, np.array([[2]])),
    ("ScaledDotProductAttention", "opset13", {"causal": False},
     [_X.reshape(1, 3, 4) / 8, _X.reshape(1, 3, 4) / 16, _X.reshape(1, 3, 4), np.eye(3, dtype=bool) | True], 3,
     np.eye(3, dtype=bool)),
]


@pytest.mark.parametrize("case", _CHOICES, ids=[c[0] for c in _CHOICES])
def test_a_choice_input_that_may_differ_leaves_no_bound(case) -> None:
    """An index, shift, pad, axis, order, count or boolean mask off by 1 moves the output (or changes its shape): the
    rule gives no bound where such an input's bound is 1 or more (before: the data's bound alone, 0 for exact data)."""
    name, version, attrs, args, at, moved_by_one = case
    spec = lookup(name, version)
    attrs = spec.attrs(**attrs)
    outputs = spec.kernel(attrs, args)
    moved = spec.kernel(attrs, [moved_by_one if i == at else v for i, v in enumerate(args)])
    assert any(a.shape != b.shape or not np.array_equal(a, b) for a, b in zip(moved, outputs, strict=True))
    bounds = [np.ones(()) if i == at else EXACT for i in range(len(args))]
    assert all(np.all(np.isinf(b)) for b in spec.rounding(spec.kernel, attrs, args, bounds, outputs))
    within = [np.full((), 0.5) if i == at else EXACT for i in range(len(args))]  # (integers within 1/2: the same)
    exact = spec.rounding(spec.kernel, attrs, args, [EXACT] * len(args), outputs)
    assert all(np.array_equal(a, b) for a, b in zip(spec.rounding(spec.kernel, attrs, args, within, outputs), exact,
                                                    strict=True))


def test_an_inexact_pad_value_moves_the_padded_elements() -> None:
    spec = lookup("Pad", "opset12")
    attrs = spec.attrs(pad_mode="constant")
    args = [_X, np.array([0, 1]), np.array([1, 0]), np.float32(-3)]
    y = spec.kernel(attrs, args)[0]
    (bound,) = spec.rounding(spec.kernel, attrs, args, [EXACT, EXACT, EXACT, np.full((), 0.25)], [y])
    moved = spec.kernel(attrs, [*args[:3], np.float32(-3.25)])[0]
    assert np.array_equal(np.broadcast_to(bound, y.shape), np.abs(moved - y))  # 0.25 where padded, else 0


@pytest.mark.parametrize("name,version,args,at", [
    ("BitwiseAnd", "opset13", [np.array([True, False]), np.array([True, True])], 0),
    ("BitwiseXor", "opset13", [np.array([5, 6], np.int32), np.array([3, 3], np.int32)], 1),
    ("BitwiseNot", "opset13", [np.array([5, 6], np.int32)], 0),
    ("Range", "opset4", [np.array(0, np.int64), np.array(5, np.int64), np.array(1, np.int64)], 1),
    ("ReduceLogicalOr", "opset1", [np.array([[True, False], [False, False]]), np.array([1])], 0),
])
def test_integer_and_boolean_plumbing_that_may_differ_leaves_no_bound(name: str, version: str, args, at: int) -> None:
    """Exact ops of integers and booleans (a mask, a count) are exact only where their inputs are: an input within 1
    (a comparison that may flip) gives no bound (before: exact); within 1/2 (the same integer), exact. ShapeOf reads
    no values: exact whatever its input's bound."""
    spec = lookup(name, version)
    attrs = spec.attrs(output_type="i64") if name == "Range" else spec.attrs()
    outputs = spec.kernel(attrs, args)

    def bound_of(b: np.ndarray) -> list[np.ndarray]:
        return spec.rounding(spec.kernel, attrs, args, [b if i == at else EXACT for i in range(len(args))], outputs)

    assert all(np.all(np.isinf(b)) for b in bound_of(np.ones(())))
    assert all(np.all(b == 0) for b in bound_of(np.full((), 0.5)))
    shape_of = lookup("ShapeOf", "opset1")
    assert np.all(shape_of.rounding(shape_of.kernel, shape_of.attrs(), [args[0]], [np.full((), np.inf)],
                                    shape_of.kernel(shape_of.attrs(), [args[0]]))[0] == 0)


def test_integer_results_are_exact_where_their_inputs_are_the_same_integers() -> None:
    """A product or sum of integers (ReduceProd of a shape), a movement of them (Concat) and a sum of floats whose
    result lies below the normal range (1 - 1 of a mask) are exact on inputs that are the same: a bound above 0 there
    went on through Concat as no bound (an integer output), and through a shape into a Reshape as no bound at all
    (the target zoo's stateful Llama and GPT-2), or through a comparison with 0 into a Select (BERT's mask)."""
    prod, concat, sub = lookup("ReduceProd", "opset1"), lookup("Concat", "opset1"), lookup("Subtract", "opset1")
    shape = np.array([1, 8], np.int32)
    args = [shape, np.array([0])]
    y = prod.kernel(prod.attrs(), args)
    assert np.all(prod.rounding(prod.kernel, prod.attrs(), args, [EXACT, EXACT], y)[0] == 0)
    assert np.all(np.isinf(prod.rounding(prod.kernel, prod.attrs(), args, [np.ones(()), EXACT], y)[0]))
    parts = [np.array([8], np.int32), np.array([1], np.int32)]
    y = concat.kernel(concat.attrs(axis=0), parts)
    assert np.all(concat.rounding(concat.kernel, concat.attrs(axis=0), parts, [np.full((), 2.0**-20), EXACT], y)[0]
                  == 0)
    assert np.all(np.isinf(concat.rounding(concat.kernel, concat.attrs(axis=0), parts, [np.ones(()), EXACT], y)[0]))
    ones, mask = np.ones((), np.float32), np.array([1.0, 0.0], np.float32)
    y = sub.kernel(sub.attrs(), [ones, mask])
    bound = sub.rounding(sub.kernel, sub.attrs(), [ones, mask], [EXACT, EXACT], y)[0]
    assert bound[0] == 0 and bound[1] > 0
