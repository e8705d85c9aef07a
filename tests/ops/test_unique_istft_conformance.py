"""Unique-10 (ops/unique.py) against OpenVINO: shape rule and CPU kernel.

Kernel: 240 seeded cases (f32, f16, i32, i64, u8 and i8 data of rank 0 to 4 drawn from a few values: ties, NaN, +-inf,
+-0, subnormals, the i32 limits, 2^24 + 1, i64 values past i32; flattened or along an axis given as an i32 or i64
Const of shape [] or [1], negative too; sorted or not; i32 or i64 indices and counts; empty dims) batched 60 to a model
and compiled once per model for OpenVINO CPU: all four outputs bit for bit (NaN payloads and zeros' signs too), but the
sign of a zero where the CPU's std::sort picks it (sorted f32 and f16, flattened, more than 16 elements). A case our
kernel refuses (``UnsupportedError``: sorted floats holding NaN, a slice compared past the data, slices of i8 and u8)
is drawn again. Shape rule: 240 seeded nodes on Parameters (partial shapes, dynamic element types and ranks, axes of
every kind, bad ones too) must give our rule's output, or both refuse; on Const data OpenVINO's exact shapes must lie
within our rule's bounds (the data is no value input: ops/unique.py).

ISTFT-16 (ops/fourier.py): 80 seeded layers (f32 and f16 spectra of mixed scales and signed zeros, 3-D and 4-D; frame
sizes 1 to 128, powers of two and not; steps 1 to past the frame; windows of the frame's length or shorter, with zero
or 1e-30 tails; center and normalized each way; no length, a Const one shorter or longer than the signal) in one
model for OpenVINO CPU, within the rounding rule's bound (measured: at most 0.115 of it for f32, 0.66 for f16, over
900 layers); the bound carries moved spectra; the kernel refuses NaN and infinities, bad bins and lengths. Shape
rule: 240 seeded nodes (partial shapes, dynamic ranks and types, Const and Parameter sizes and lengths, bad ones too).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset10 as ops10
import openvino.opset16 as ops16
import pytest

from ir_tools.base.errors import UnsupportedError
from ir_tools.ops import attrs as A
from ir_tools.ops.fourier import ISTFT_16
from ir_tools.ops.unique import STABLE_SORT_MOST, UNIQUE_10
from tests.downgrade.test_istft import _window as istft_window
from tests.downgrade.test_stft import spectral_values

from .conformance import (
    Case,
    Operand,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    check_versions,
    openvino_outcome,
    our_outcome,
    pick,
    random_bounds,
    rule_limits,
)

pytestmark = pytest.mark.openvino

SEED = 1010
CASES_PER_MODEL = 60
DTYPES = (np.float32, np.float16, np.int32, np.int64, np.uint8, np.int8)


def pool(rng: np.random.Generator, dtype: type) -> np.ndarray:
    """A few values to draw data from (ties): small numbers and the special values of ``dtype``."""
    small = rng.integers(-3, 4, 3)
    if np.dtype(dtype).kind == "f":
        specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40 if dtype is np.float32 else 3e-8, 65504.0]
    elif dtype in (np.int32, np.int64):
        specials = [-2**31, 2**31 - 1, 2**24, 2**24 + 1, 65536]
        if dtype is np.int64:
            specials += [2**40, 2**40 + 3, 2**32 - 1, -2**31 - 1]  # (the CPU computes i64 as i32: wrapped)
    else:
        info = np.iinfo(dtype)
        small, specials = np.abs(small), [info.min, info.max, info.max - 1]
    values = np.array([*small, *specials], np.float64 if np.dtype(dtype).kind == "f" else np.int64)
    chosen = rng.choice(values, int(rng.integers(1, 6)), replace=False)
    if np.dtype(dtype).kind == "f":  # (the signed zeros together, and NaN, often)
        chosen = np.concatenate([chosen, [0.0, -0.0] if rng.random() < 0.4 else [], [np.nan] if rng.random() < 0.3
                                 else []])
    return chosen


def unique_data(rng: np.random.Generator, dtype: type) -> np.ndarray:
    """Data of rank 0 to 4 (dims up to 4, sometimes 0; or one dim of up to 40, past std::sort's insertion sort)."""
    shape = [int(n) for n in rng.integers(1, 5, int(rng.integers(0, 5)))]
    if shape and rng.random() < 0.25:
        shape[int(rng.integers(len(shape)))] = int(rng.integers(17, 41))
    if shape and rng.random() < 0.05:
        shape[int(rng.integers(len(shape)))] = 0
    return rng.choice(pool(rng, dtype), shape).astype(dtype)


def unique_cases(rng: np.random.Generator, n: int) -> list[Case]:
    """``n`` cases, the types of ``DTYPES`` in turn, each one our kernel computes (drawn again where it refuses)."""
    cases: list[Case] = []
    while len(cases) < n:
        dtype = DTYPES[len(cases) % len(DTYPES)]
        x = unique_data(rng, dtype)
        raw = {"sorted": pick(rng, ["true", "false"]), "index_element_type": pick(rng, ["i32", "i64"]),
               "count_element_type": pick(rng, ["i32", "i64"])}
        inputs = [x]
        if x.ndim and rng.random() < 0.6:
            axis = int(rng.integers(-x.ndim, x.ndim))
            inputs.append(np.array(axis if rng.random() < 0.5 else [axis], pick(rng, [np.int32, np.int64])))
        try:
            UNIQUE_10.kernel(A.decode(UNIQUE_10.attrs, raw), inputs)
        except UnsupportedError:
            continue
        picked = raw["sorted"] == "true" and x.dtype.kind == "f" and len(inputs) == 1 and x.size > STABLE_SORT_MOST
        what = f"Unique {x.dtype}{list(x.shape)} axis {inputs[1].tolist() if len(inputs) > 1 else None} {raw}"
        cases.append(Case(what, inputs, lambda ps, r=raw: ops10.unique(
            *ps, sorted=r["sorted"] == "true", index_element_type=r["index_element_type"],
            count_element_type=r["count_element_type"]), consts=(1,), bits=not picked,
            limits=(None, None, None, None)))
    return cases


def test_values_bit_equal(tmp_path: Path) -> None:
    cases = unique_cases(np.random.default_rng(SEED), 240)
    for start in range(0, len(cases), CASES_PER_MODEL):
        assert_all_pass(cases[start:start + CASES_PER_MODEL], tmp_path)


def test_kernel_refuses_what_the_cpu_gets_wrong(tmp_path: Path) -> None:
    """Sorted floats holding NaN (the CPU's std::sort: ``[3, NaN, -0, 1, NaN, 0, inf, -inf, 1, 3, 0, -0]`` gives 10
    "unique" elements), slices of u8, empty data (which the CPU fails to run) and slices compared past the data are
    refused; the CPU's shifted comparison is followed where it stays inside: ``[[1, 1, 1], [2, 3, 3]]`` along axis 1
    gives 3 unique slices, slice 2 compared with slice 1 from its second block on (the CPU's, bit for bit)."""
    attrs = A.decode(UNIQUE_10.attrs, {"sorted": "false"})
    with pytest.raises(UnsupportedError, match="NaN"):
        UNIQUE_10.kernel(A.decode(UNIQUE_10.attrs, {}), [np.array([3, np.nan, -0.0, 1], np.float32)])
    with pytest.raises(UnsupportedError, match="uint8"):
        UNIQUE_10.kernel(attrs, [np.zeros((2, 2), np.uint8), np.int64(0)])
    with pytest.raises(UnsupportedError, match="empty"):
        UNIQUE_10.kernel(attrs, [np.zeros((2, 0), np.float32)])
    with pytest.raises(UnsupportedError, match="past the data"):
        UNIQUE_10.kernel(attrs, [np.array([[1, 3, 1], [2, 4, 3]], np.int32), np.int64(1)])
    shifted = [np.array([[1, 1, 1], [2, 3, 3]], np.int32), np.array(1, np.int64)]
    assert UNIQUE_10.kernel(attrs, shifted)[3].tolist() == [1, 1, 1]
    assert_all_pass([Case("shifted", shifted, lambda ps: ops10.unique(*ps, sorted=False), consts=(1,), bits=True)],
                    tmp_path)
    p = ops1.parameter([2, 0], np.float32)
    request = ov.Core().compile_model(ov.Model(ops10.unique(p).outputs(), [p]), "CPU").create_infer_request()
    with pytest.raises(RuntimeError, match="non static shape"):
        request.infer([np.zeros((2, 0), np.float32)])


def shape_case(rng: np.random.Generator):
    """One shape-rule case: data a Parameter (partial shape, maybe a dynamic type or rank) or a Const; no axis, a Const
    axis (in range, out of it, of shape [] or [1], or [2], or f32), or a Parameter axis; attributes, bad ones too."""
    lengths = [int(n) for n in rng.integers(0, 5, int(rng.integers(0, 4)))]
    raw = {"sorted": pick(rng, ["true", "false"]), "index_element_type": pick(rng, ["i32", "i64", "i32", "u8"]),
           "count_element_type": pick(rng, ["i64", "i32", "i64", "f32"])}
    if rng.random() < 0.25:
        element = pick(rng, ["f32", "i32", "i64"])
        values = unique_data(rng, {"f32": np.float32, "i32": np.int32, "i64": np.int64}[element])
        if values.size == 0:  # (OpenVINO crashes on empty Const data)
            values = np.ones(1, values.dtype)
        data = Operand(element, value=values.tolist())
    else:
        data = Operand(pick(rng, ["f32", "i32", "u8", "boolean", None]),
                       None if rng.random() < 0.1 else random_bounds(rng, lengths))
    rank = None if data.shape is None else len(data.shape)
    kind = pick(rng, ["none", "none", "const", "const", "const", "const", "oob", "pair", "float", "parameter"])
    if data.value is not None and (kind != "const" or rank == 0):
        kind = "none"  # (OpenVINO checks no axis of Const data: it crashes, or flattens where the rule refuses)
    axis = None
    if kind == "const" or kind == "oob":
        r = max(rank or 1, 1)
        at = int(rng.integers(-r, r)) if kind == "const" else pick(rng, [r, -r - 1])
        axis = Operand(pick(rng, ["i32", "i64"]), value=at if rng.random() < 0.5 else [at])
    elif kind == "pair":
        axis = Operand("i64", value=[0, 0])
    elif kind == "float":
        axis = Operand("f32", value=0.0)
    elif kind == "parameter":
        axis = Operand("i64", ())
    operands = [data] if axis is None else [data, axis]

    def theirs():
        """OpenVINO's outcome; "declines" where it makes a dim of the empty interval 1..0 (the unique elements of
        data of a static shape holding no element), which no ``Dim`` holds: our rule answers None there."""
        outcome = openvino_outcome(lambda: ops10.unique(*[o.node() for o in operands], sorted=raw["sorted"] == "true",
                                                        index_element_type=raw["index_element_type"],
                                                        count_element_type=raw["count_element_type"]))
        empty = not isinstance(outcome, str) and any(lo < 0 for _, shape in outcome for lo, _ in shape or ())
        return "declines" if empty else outcome

    def ours():
        types, values = zip(*[o.ours() for o in operands], strict=True)
        return our_outcome("Unique", "opset10", raw, list(types), list(values))

    return f"Unique {' '.join(map(str, operands))} {raw}", theirs, ours, data.value is not None


def within(theirs: object, ours: object) -> bool:
    """Whether OpenVINO's outcome (exact shapes, of Const data) lies within ours: the same refusal, or the same
    element types and ranks, each of its dims within our dim's bounds."""
    if isinstance(theirs, str) or isinstance(ours, str):
        return theirs == ours
    return len(theirs) == len(ours) and all(
        e == f and s is not None and t is not None and len(s) == len(t) and all(
            lo >= a and (b is None or hi <= b) for (lo, hi), (a, b) in zip(s, t, strict=True))
        for (e, s), (f, t) in zip(theirs, ours, strict=True))


def test_shape_rule_agrees() -> None:
    """Parameters' outcomes equal; Const data's exact shapes (OpenVINO's reference's count) within our bounds."""
    rng = np.random.default_rng([SEED, 1])
    cases = [shape_case(rng) for _ in range(240)]
    assert_shapes_agree([(what, theirs, ours) for what, theirs, ours, const in cases if not const])
    outside = [what for what, theirs, ours, const in cases if const and not within(theirs(), ours())]
    assert sum(const for *_, const in cases) > 30 and not outside, outside[:10]


def test_opsets(tmp_path: Path) -> None:
    p = ops1.parameter([2, 3], np.float32)
    assert check_versions({"Unique": ops10.unique(p)}, [p], tmp_path) == []


def test_compare_checks_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Relu -> Unique (sorted, flattened) and Unique of slices along axis 1 of an i32 input, compared end to end and
    per layer: all eight outputs compared, nothing left unchecked."""
    x = ops1.parameter([3, 4], np.float32, name="x")
    k = ops1.parameter([1, 5, 2], np.int32, name="k")
    flat = ops10.unique(ops1.relu(x), sorted=True)
    slices = ops10.unique(k, ops1.constant(np.int64(1)), sorted=False, index_element_type="i32")
    xml = tmp_path / "unique.xml"
    ov.save_model(ov.Model([ops1.result(o) for o in (*flat.outputs(), *slices.outputs())], [x, k], "unique"), xml)
    assert_compare_passes(xml, capsys, {"Unique@opset10"}, outputs=8)


def istft_case(rng: np.random.Generator, f16: float) -> Case:
    """One ISTFT-16 of f32 or f16 spectra (``spectral_values``: mixed scales, signed zeros, now and then NaN or an
    infinity) [batch?, frame_size // 2 + 1, frames, 2], frame sizes powers of two and not, steps 1 to past the frame,
    windows of the frame's length or shorter; center and normalized each way; no length, or one shorter or longer
    than the signal (i32 or i64, a scalar or of one element); within the rounding rule's bound."""
    dtype = np.float16 if rng.random() < f16 else np.float32
    size = int(pick(rng, (1, 2, 3, 5, 8, 16, 17, 31, 32, 64, 100, 128)))
    step = int(rng.integers(1, size + 3))
    frames = int(rng.integers(1, 9))
    center, normalized = bool(rng.random() < 0.5), bool(rng.random() < 0.5)
    if center and frames == 1:
        frames = 2  # (an empty output without a length)
    shape = (size // 2 + 1, frames, 2) if rng.random() < 0.5 else (int(rng.integers(1, 4)), size // 2 + 1, frames, 2)
    x = spectral_values(rng, "f16" if dtype is np.float16 else "f32", shape)
    x[~np.isfinite(x)] = -0.0  # (a NaN or an infinity: the kernel refuses it, tested apart)
    window = istft_window(rng, size if rng.random() < 0.4 else int(rng.integers(1, size + 1)), dtype)
    index = pick(rng, [np.int32, np.int64])
    inputs = [x, window, np.array(size, index), np.array(step, index)]
    if rng.random() < 0.4:
        full = (frames - 1) * step + size
        wanted = np.array(int(rng.integers(1, full + size + 2)), index)
        inputs.append(wanted.reshape(1) if rng.random() < 0.3 else wanted)
    raw = {"center": str(center).lower(), "normalized": str(normalized).lower()}
    what = f"ISTFT {x.dtype}{list(shape)} window {window.shape[0]} step {step} length {inputs[4:]} {raw}"
    return Case(what, inputs, lambda p: ops16.istft(*p[:4], center, normalized, *p[4:]),
                rule_limits(ISTFT_16, raw, inputs), consts=(2, 3, 4))


def test_istft_values_within_the_bound(tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, 16])
    assert_all_pass([istft_case(rng, 0.25) for _ in range(80)], tmp_path)


def test_istft_refuses_what_it_does_not_model() -> None:
    """A NaN or an infinity among the spectra (its spread through the frame is CPU's FFT's own), bins other than
    frame_size // 2 + 1 and a length below 1 (CPU reads or writes past its tensors) are refused."""
    attrs = A.decode(ISTFT_16.attrs, {})
    x, window, size, step = np.zeros((3, 2, 2), np.float32), np.ones(4, np.float32), np.int64(4), np.int64(2)
    with pytest.raises(UnsupportedError, match="NaN"):
        ISTFT_16.kernel(attrs, [np.full((3, 2, 2), np.inf, np.float32), window, size, step])
    with pytest.raises(UnsupportedError, match="past"):
        ISTFT_16.kernel(attrs, [x, window, np.int64(6), step])
    with pytest.raises(UnsupportedError, match="past"):
        ISTFT_16.kernel(attrs, [x, window, size, step, np.int64(0)])


def test_istft_bounds_carry_moved_inputs() -> None:
    """Spectra moved within bounds of up to 1e-3 of their magnitude move the exact result within the rule's bound."""
    rng = np.random.default_rng([SEED, 17])
    for _ in range(40):
        case = istft_case(rng, 0.0)
        raw = {k: str(f"'{k}': 'true'" in case.what).lower() for k in ("center", "normalized")}
        bounds = [np.abs(case.inputs[0]).astype(np.float64) * float(rng.choice([0.0, 1e-6, 1e-3])) + 1e-9,
                  *[np.zeros(()) for _ in case.inputs[1:]]]
        assert_bounds_carry_moves(ISTFT_16, raw, case.inputs, bounds, rng, case.what)


def istft_shape_case(rng: np.random.Generator):
    """Data of rank 2 to 5 (partial shapes, dynamic ranks) and types real or not; windows of any length; frame_size
    and frame_step Consts (bad ones too) or Parameters; no length, a Const one (a scalar, [1] or [2]) or a Parameter."""
    rank = int(pick(rng, (3, 3, 3, 4, 4, 4, 2, 5)))
    size = int(rng.integers(-1, 40)) if rng.random() < 0.1 else int(rng.integers(1, 40))
    frames = int(rng.integers(0, 9))
    element = pick(rng, ["f32"] * 6 + ["f16", "f16", "i32", None])
    data = Operand(element, None if rng.random() < 0.1 else random_bounds(
        rng, [int(rng.integers(1, 4)) for _ in range(rank - 3)] + [max(size, 0) // 2 + 1, frames, 2][-rank:]))
    window_length = int(rng.integers(0, max(size, 1) + 2)) if rng.random() < 0.2 or size < 1 else \
        int(rng.integers(1, size + 1))
    window = Operand(element if rng.random() < 0.8 else pick(rng, ["f32", "f16", None]), pick(
        rng, [((window_length, window_length),)] * 4 + [((0, None),), None, ((1, 1), (window_length, window_length))]))
    frame_size = Operand(pick(rng, ["i64", "i32"]), value=size) if rng.random() < 0.8 else \
        Operand(pick(rng, ["i64", "i32", "i64", "f32"]), pick(rng, [(), (), None, ((1, 1),)]))
    frame_step = Operand(pick(rng, ["i64", "i32"]), value=int(rng.integers(-1, 6) if rng.random() < 0.1 else
                                                              rng.integers(1, 6))) if rng.random() < 0.8 else \
        Operand(pick(rng, ["i64", "i32", "i64", "f32"]), pick(rng, [(), (), None, ((1, 1),)]))
    operands = [data, window, frame_size, frame_step]
    kind = pick(rng, ["none", "none", "const", "const", "parameter"])
    if kind == "const":
        n = int(rng.integers(1, 60))
        operands.append(Operand(pick(rng, ["i64", "i32"]), value=pick(rng, [n, [n], [n, n]])))
    elif kind == "parameter":
        operands.append(Operand(pick(rng, ["i64", "i32", "i64", "f32"]), pick(rng, [(), (), None, ((1, 1),),
                                                                                  ((0, None),), ((2, 2),)])))
    center, normalized = bool(rng.random() < 0.5), bool(rng.random() < 0.5)

    def theirs():
        nodes = [o.node() for o in operands]
        return openvino_outcome(lambda: ops16.istft(*nodes[:4], center, normalized, *nodes[4:]))

    def ours():
        types, values = zip(*(o.ours() for o in operands), strict=True)
        return our_outcome("ISTFT", "opset16", {"center": str(center).lower(), "normalized": str(normalized).lower()},
                           list(types), list(values))

    return f"ISTFT {' '.join(str(o) for o in operands)} center {center}", theirs, ours


def test_istft_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 18])
    assert_shapes_agree([istft_shape_case(rng) for _ in range(240)])


def test_istft_opsets(tmp_path: Path) -> None:
    x, w = ops1.parameter([5, 3, 2], np.float32), ops1.parameter([8], np.float32)
    node = ops16.istft(x, w, ops1.constant(np.int64(8)), ops1.constant(np.int64(2)), False, False)
    assert check_versions({"ISTFT": node}, [x, w], tmp_path) == []


def test_compare_checks_istft(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """STFT then ISTFT (a centred Hann window, center, a Const length): the round trip compared end to end and per
    layer, nothing left unchecked."""
    import openvino.opset15 as ops15

    x = ops1.parameter([2, 300], np.float32, name="x")
    window = ops1.constant(np.hanning(34)[1:-1].astype(np.float32))
    size, step = ops1.constant(np.int64(32)), ops1.constant(np.int64(8))
    spectrum = ops15.stft(x, window, size, step, True)
    y = ops16.istft(spectrum, window, size, step, True, False, ops1.constant(np.int64(280)))
    xml = tmp_path / "istft.xml"
    ov.save_model(ov.Model([ops1.result(y)], [x], "istft"), xml)
    assert_compare_passes(xml, capsys, {"ISTFT@opset16"}, outputs=1)
