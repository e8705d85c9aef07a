"""DFT-7, IDFT-7, RDFT-9, IRDFT-9 and STFT-15 (ops/fourier.py) against OpenVINO: shape rules and CPU kernels.

Kernels: 400 seeded cases of the four transforms (data of rank 2 to 5, f32 and f16; one to three axes in any order,
negative ones too; transform lengths odd, even, prime and powers of two up to 257, so CPU runs both its FFT and its
naive DFT; no signal_size, or one of -1s, smaller and larger lengths) batched 50 to a model, and 120 of STFT (1-D and
batched signals, frame sizes 1 to 256, steps beyond the frame, windows shorter than it, transposed or not) 60 to a
model, each model compiled once for OpenVINO CPU: values within the rounding rule's bound alone. What CPU does not do
is left out: -1 signal sizes for RDFT and IRDFT and larger ones for RDFT (``cpu_refuses``), IRDFT's padding, a last
length of 1 and trimming over three axes (wrong on CPU: ops/fourier.py). The bound is not loose beyond use: on 140
more f32 cases the largest error is above a hundredth of it (measured 0.10 and 0.18). Shape rules: 400 seeded nodes
of the transforms and 300 of STFT on Parameters and Constants (partial shapes and dynamic ranks, axes, signal sizes,
frame sizes and steps known or not, of i32, i64 or another type, in and out of range) must give OpenVINO's output, or
both refuse. ``cpu_refuses`` names exactly the signal sizes CPU refuses (five nodes, compiled and run). Compare checks
each op end to end and per layer. ``check_versions``: opset7..16 read DFT and IDFT, opset9..16 RDFT and IRDFT,
opset15..16 STFT.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset9 as ops9
import openvino.opset15 as ops15
import pytest

from ir_tools.base.dims import Dim
from ir_tools.ops.opsets import lookup
from ir_tools.ops.spec import TensorType
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import (
    Case,
    Operand,
    assert_all_pass,
    assert_compare_passes,
    assert_shapes_agree,
    case_outputs,
    check_versions,
    openvino_outcome,
    our_outcome,
    pick,
    random_bounds,
    rule_limits,
)

pytestmark = pytest.mark.openvino

SEED = 7109
OPS = ("DFT", "IDFT", "RDFT", "IRDFT")
BUILD = {"DFT": ops9.dft, "IDFT": ops9.idft, "RDFT": ops9.rdft, "IRDFT": ops9.irdft}
OPSET = {"DFT": "opset7", "IDFT": "opset7", "RDFT": "opset9", "IRDFT": "opset9"}
LENGTHS = (1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 16, 17, 31, 32, 64, 97, 100, 128, 257)
#: The most elements one case transforms (the naive DFT's cost grows with the length times the block).
MOST = 4096


def case_inputs(rng: np.random.Generator, op: str, f16: float) -> tuple[list[np.ndarray], str]:
    """Data (f16 with probability ``f16``, else f32), axes and maybe signal_size for one case of ``op``, and what it
    is."""
    complex_in = op != "RDFT"
    rank = int(rng.integers(2, 6))
    complex_rank = rank - 1 if complex_in else rank
    shape = [int(pick(rng, (1, 2, 3))) for _ in range(complex_rank)]
    n_axes = int(rng.integers(1, min(3, complex_rank) + 1))
    axes = [int(a) for a in rng.permutation(complex_rank)[:n_axes]]
    budget = MOST // max(int(np.prod(shape)), 1)
    sizes = []
    for i, axis in enumerate(axes):
        length = int(pick(rng, [n for n in LENGTHS if n <= max(budget, 1)]))
        shape[axis] = length
        budget = max(budget // max(length, 1), 1)
        last = i == n_axes - 1
        size = length
        roll = rng.random()
        if roll < 0.3 and op in ("DFT", "IDFT"):  # (CPU refuses -1 for RDFT and IRDFT)
            size = -1
        elif roll < 0.55:
            size = int(rng.integers(1, length + 1))
        elif roll < 0.75 and not (op == "RDFT" or op == "IRDFT" and not last):
            size = length + int(rng.integers(1, 9))
        if op == "IRDFT" and not last and n_axes > 2:
            size = length  # (CPU trims wrongly over three axes or more)
        if op == "IRDFT" and last:
            longer = n_axes < 3 and rng.random() < 0.3
            shape[axis] = max(length // 2 + 1, 2) + (int(rng.integers(0, 3)) if longer else 0)
            if size // 2 + 1 != shape[axis] and (size // 2 + 1 > shape[axis] or n_axes > 2):
                size = 2 * (shape[axis] - 1)
            size = max(size, 2)  # (CPU computes a last length of 1 wrongly)
        sizes.append(size)
    data_shape = shape + [2] if complex_in else shape
    dtype = np.float16 if rng.random() < f16 else np.float32
    scale = float(pick(rng, [1e-2, 1.0, 30.0]))
    x = (rng.standard_normal(data_shape) * scale + float(pick(rng, [0.0, 0.0, 1.0])) * scale).astype(dtype)
    axes = [a - complex_rank if rng.random() < 0.4 else a for a in axes]
    index = pick(rng, [np.int32, np.int64])
    inputs = [x, np.array(axes, index)]
    if rng.random() < 0.6:
        inputs.append(np.array(sizes, pick(rng, [np.int32, np.int64])))
    signal = inputs[2].tolist() if len(inputs) > 2 else None
    return inputs, f"{op} {x.dtype}{list(x.shape)} axes {axes} signal_size {signal}"


def fourier_case(rng: np.random.Generator, op: str, f16: float) -> Case:
    spec = lookup(op, OPSET[op])
    inputs, what = case_inputs(rng, op, f16)
    return Case(what, inputs, lambda p, op=op: BUILD[op](*p), rule_limits(spec, {}, inputs),
                consts=tuple(range(1, len(inputs))))


def fourier_cases(rng: np.random.Generator, n: int, f16: float = 0.2) -> list[Case]:
    return [fourier_case(rng, OPS[i % len(OPS)], f16) for i in range(n)]


@pytest.mark.parametrize("part", range(8))
def test_values_within_the_bound(part: int, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, part])
    assert_all_pass(fourier_cases(rng, 50), tmp_path)


def error_ratios(cases: list[Case], tmp_path: Path) -> list[float]:
    """Per case, OpenVINO CPU's largest error against ours, as a part of the bound (above 1: beyond it); the cases in
    one model, saved, run by the executor and compiled once for CPU (``case_outputs``)."""
    ratios = []
    for case, (ours, theirs, _) in zip(cases, case_outputs(cases, tmp_path), strict=True):
        want = theirs[0].astype(np.float64)
        bound = np.broadcast_to(case.limits[0](want), want.shape)
        ratios.append(float(np.max(np.abs(ours[0].astype(np.float64) - want) / bound)))
    return ratios


def test_the_bound_is_tight_enough(tmp_path: Path) -> None:
    """Over 100 f32 cases of the four transforms and 40 of STFT (f16 ones are dominated by their output's rounding),
    the largest error is between a hundredth and the whole of the bound: a bound a hundred times too loose would pass
    broken kernels."""
    rng = np.random.default_rng([SEED, 99])
    ratios = error_ratios(fourier_cases(rng, 100, f16=0.0), tmp_path)
    assert 1e-2 < max(ratios) <= 1.0, max(ratios)
    ratios = error_ratios([stft_case(rng, 0.0) for _ in range(40)], tmp_path)
    assert 1e-2 < max(ratios) <= 1.0, max(ratios)


def shape_case(rng: np.random.Generator) -> tuple[str, object, object]:
    op = str(pick(rng, OPS))
    rank = int(rng.integers(0, 6))
    lengths = [int(n) for n in rng.integers(1, 9, rank)]
    if op != "RDFT" and rank and rng.random() < 0.85:
        lengths[-1] = 2
    data = Operand(pick(rng, ["f32", "f32", "f16", "i32", None]), None if rng.random() < 0.1 else
                   random_bounds(rng, lengths))
    n_axes = int(rng.integers(op in ("RDFT", "IRDFT"), 4))  # (no axes crash OpenVINO's RDFT and IRDFT inference)
    axis_values = [int(a) for a in rng.integers(-rank - 1, rank + 1, n_axes)]
    if rng.random() < 0.75:
        axes = Operand(pick(rng, ["i64", "i32"]), value=axis_values)
    else:
        axes = Operand(pick(rng, ["i64", "i32", "f32", None]), pick(rng, [((n_axes, n_axes),), ((0, None),), None,
                                                                          ((n_axes, n_axes), (1, 1))]))
    operands = [data, axes]
    roll = rng.random()
    if roll < 0.45:
        sizes = [int(pick(rng, [-1, 1, 2, 3, 5, 8, -2, 0])) for _ in range(n_axes + (rng.random() < 0.05))]
        operands.append(Operand(pick(rng, ["i64", "i32"]), value=sizes))
    elif roll < 0.7:
        operands.append(Operand(pick(rng, ["i64", "i32", "f32", None]),
                                pick(rng, [((n_axes, n_axes),), ((0, None),), None, ((n_axes + 1, n_axes + 1),)])))

    def theirs(operands=operands, op=op):
        return openvino_outcome(lambda: BUILD[op](*(o.node() for o in operands)))

    def ours(operands=operands, op=op):
        types, values = zip(*(o.ours() for o in operands), strict=True)
        return our_outcome(op, OPSET[op], {}, list(types), list(values))

    return f"{op} {' '.join(str(o) for o in operands)}", theirs, ours


def test_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 1])
    assert_shapes_agree([shape_case(rng) for _ in range(400)])


def test_opsets(tmp_path: Path) -> None:
    z = ops9.parameter([4, 6, 2], np.float32)
    x = ops9.parameter([4, 6], np.float32)
    axes = ops9.constant(np.array([0, 1], np.int64))
    nodes = {"DFT": ops9.dft(z, axes), "IDFT": ops9.idft(z, axes), "IRDFT": ops9.irdft(z, axes)}
    assert check_versions(nodes, [z], tmp_path) == []
    assert check_versions({"RDFT": ops9.rdft(x, axes)}, [x], tmp_path) == []
    stft = ops15.stft(x, ops15.constant(np.hanning(4).astype(np.float32)), ops15.constant(np.int64(4)),
                      ops15.constant(np.int64(2)), False)
    assert check_versions({"STFT": stft}, [x], tmp_path) == []


def test_compare_checks_them(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A global filter (RDFT over two axes, a product with a complex filter, IRDFT back) and FNet's mixing (DFT over
    the last two axes, the real part) compared end to end and per layer (all four were not checked, no output
    compared)."""
    x = ops9.parameter([2, 8, 12], np.float32, name="x")
    spectrum = ops9.rdft(x, ops9.constant(np.array([1, 2], np.int64)))
    weight = np.random.default_rng(0).standard_normal([8, 7, 2]).astype(np.float32)
    filtered = ops9.multiply(spectrum, ops9.constant(weight))
    back = ops9.irdft(filtered, ops9.constant(np.array([1, 2], np.int64)), ops9.constant(np.array([8, 12], np.int64)))
    pair = ops9.unsqueeze(back, ops9.constant(np.int64(-1)))
    mixed = ops9.dft(ops9.concat([pair, ops9.multiply(pair, ops9.constant(np.float32(0.5)))], -1),
                     ops9.constant(np.array([-2, -1], np.int64)))
    inverse = ops9.idft(mixed, ops9.constant(np.array([0], np.int64)), ops9.constant(np.array([3], np.int64)))
    xml = tmp_path / "fourier.xml"
    ov.save_model(ov.Model([ops9.result(inverse)], [x], "fourier"), xml)
    assert_compare_passes(xml, capsys, {"RDFT@opset9", "IRDFT@opset9", "DFT@opset7", "IDFT@opset7"}, outputs=1)


def stft_case(rng: np.random.Generator, f16: float) -> Case:
    from ir_tools.ops.fourier import STFT_15

    size = int(pick(rng, (1, 2, 3, 5, 8, 16, 17, 31, 32, 64, 100, 128, 256)))
    length = size + int(rng.integers(0, 3 * size + 20))
    shape = [length] if rng.random() < 0.3 else [int(rng.integers(1, 4)), length]
    dtype = np.float16 if rng.random() < f16 else np.float32
    x = (rng.standard_normal(shape) * float(pick(rng, [1e-2, 1.0, 30.0]))).astype(dtype)
    window = np.hanning(int(rng.integers(1, size + 1)) + 2)[1:-1].astype(dtype) if rng.random() < 0.7 else \
        rng.standard_normal(int(rng.integers(1, size + 1))).astype(dtype)
    index = pick(rng, [np.int32, np.int64])
    inputs = [x, window, np.array(size, index), np.array(int(rng.integers(1, size + 3)), index)]
    transpose = bool(rng.random() < 0.5)
    what = f"STFT {x.dtype}{shape} window {window.shape[0]} frame_size {size} step {int(inputs[3])} {transpose}"
    return Case(what, inputs, lambda p, t=transpose: ops15.stft(*p, t),
                rule_limits(STFT_15, {"transpose_frames": str(transpose).lower()}, inputs), consts=(2, 3))


@pytest.mark.parametrize("part", range(2))
def test_stft_values_within_the_bound(part: int, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, 50 + part])
    assert_all_pass([stft_case(rng, 0.2) for _ in range(60)], tmp_path)


def stft_shape_case(rng: np.random.Generator) -> tuple[str, object, object]:
    rank = int(pick(rng, (1, 2, 2, 3, 0)))
    length = int(rng.integers(1, 40))
    signal = Operand(pick(rng, ["f32", "f32", "f16", None]), None if rng.random() < 0.1 else
                     random_bounds(rng, [int(rng.integers(1, 4)) for _ in range(rank - 1)] + [length][:rank]))
    size = int(rng.integers(-1, length + 3))
    window_length = int(rng.integers(0, max(size, 1) + 2))
    window = Operand(pick(rng, ["f32", "f32", None]), pick(rng, [((window_length, window_length),), ((0, None),),
                                                                   None, ((1, 1), (window_length, window_length))]))
    frame_size = Operand(pick(rng, ["i64", "i32"]), value=size) if rng.random() < 0.8 else \
        Operand(pick(rng, ["i64", "i32", "f32"]), pick(rng, [(), None, ((1, 1),)]))
    frame_step = Operand(pick(rng, ["i64", "i32"]), value=int(rng.integers(-1, 6))) if rng.random() < 0.8 else \
        Operand(pick(rng, ["i64", "i32", "f32"]), pick(rng, [(), None, ((1, 1),)]))
    transpose = bool(rng.random() < 0.5)
    operands = [signal, window, frame_size, frame_step]

    def theirs(operands=operands, transpose=transpose):
        return openvino_outcome(lambda: ops15.stft(*(o.node() for o in operands), transpose))

    def ours(operands=operands, transpose=transpose):
        types, values = zip(*(o.ours() for o in operands), strict=True)
        return our_outcome("STFT", "opset15", {"transpose_frames": str(transpose).lower()}, list(types), list(values))

    return f"STFT {' '.join(str(o) for o in operands)} {transpose}", theirs, ours


def test_stft_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 2])
    assert_shapes_agree([stft_shape_case(rng) for _ in range(300)])


def test_compare_checks_stft(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A log-magnitude spectrogram's front (STFT of a centred Hann window, frames transposed, its squares summed)
    compared end to end and per layer (STFT was not checked, no output compared)."""
    x = ops15.parameter([2, 400], np.float32, name="x")
    window = ops15.constant(np.hanning(52)[1:-1].astype(np.float32))
    spectrum = ops15.stft(x, window, ops15.constant(np.int64(64)), ops15.constant(np.int64(16)), True)
    power = ops15.reduce_sum(ops15.multiply(spectrum, spectrum), ops15.constant(np.int64(-1)), False)
    xml = tmp_path / "stft.xml"
    ov.save_model(ov.Model([ops15.result(power)], [x], "stft"), xml)
    assert_compare_passes(xml, capsys, {"STFT@opset15"}, outputs=1)


@pytest.mark.parametrize(("op", "shape", "sizes"), [("RDFT", [3, 6], [-1]), ("RDFT", [3, 6], [7]),
                                                    ("IRDFT", [3, 4, 2], [-1, 6]), ("RDFT", [3, 6], [6]),
                                                    ("IRDFT", [3, 4, 2], [3, 6])])
def test_cpu_refuses_what_it_cannot_run(op: str, shape: list[int], sizes: list[int]) -> None:
    """``cpu_refuses`` names exactly the signal sizes OpenVINO CPU refuses (-1, or RDFT's above the input's length),
    compiling or running."""
    spec = lookup(op, OPSET[op])
    axes = np.arange(len(sizes), dtype=np.int64) + (1 if op == "RDFT" and len(sizes) == 1 else 0)
    x = np.ones(shape, np.float32)
    p = ops9.parameter(shape, np.float32)
    node = BUILD[op](p, ops9.constant(axes), ops9.constant(np.array(sizes, np.int64)))
    try:
        ov.Core().compile_model(ov.Model([node], [p]), "CPU", CPU_CONFIG)(x)
        refused = False
    except RuntimeError:
        refused = True
    types = [TensorType("f32", tuple(Dim(n, n) for n in shape)), TensorType("i64", (Dim(len(sizes), len(sizes)),)),
             TensorType("i64", (Dim(len(sizes), len(sizes)),))]
    reason = spec.cpu_refuses(None, types, [None, axes, np.array(sizes, np.int64)])
    assert refused == (reason is not None), reason
