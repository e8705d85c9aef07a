"""FakeConvert-13 (ops/fake_convert.py) against OpenVINO: CPU kernel bit for bit, shape rule, rounding rule, with the
harness of tests/ops/conformance.py.

Kernel: 320 seeded cases (f32 and f16 data; f8e4m3 and f8e5m2; with and without shift; scale and shift per tensor, per
channel or per element) in one model compiled once for OpenVINO CPU, every element bit for bit (zeros' signs and NaN
payloads too). The data aim ``x * scale - shift`` at the f8 grid's ties and its neighbours, at f16 ties (the CPU
rounds to f16 first), at the f16 subnormal values whose rounding carries (OpenVINO's ``float16(float)`` doubles
them), at the subnormal f8 range and below it, beyond the largest value (saturation), and at NaN, infinities and
-0.0; scales are powers of two (ties stay ties) or random.

Folded kernel (``OpSpec.folded``: OpenVINO's evaluate(), by which its CPU plugin folds a FakeConvert of Consts,
weights): the same seeded cases, bf16 ones too, against ``Node.evaluate`` bit for bit; and a model of FakeConverts
of Consts, compiled for CPU once, against both the folded kernel and ``run`` (the reference executor) bit for bit.
"""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset13 as ops13
import pytest

from ir_tools.base.packed import is_bf16, to_bf16
from ir_tools.ops.fake_convert import FAKE_CONVERT_13 as FC
from ir_tools.ops.fake_convert import FLOAT8
from ir_tools.ops.rounding import EXACT
from ir_tools.runtime.executor import run
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import (
    Case,
    assert_all_pass,
    assert_bounds_carry_moves,
    check_versions,
    openvino_outcome,
    our_outcome,
    tensor_types,
)

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 20613
SHAPE = [2, 3, 8]


def _targets(rng: np.random.Generator, dest: str, n: int) -> np.ndarray:
    """``n`` values of ``t = x * scale - shift`` for ``dest``: ties of its grid and their neighbours, f16 ties, the
    f16 carries, subnormals, saturation and specials, with random signs."""
    fmt = FLOAT8[dest]
    exponent = rng.integers(fmt.min_exponent - 3, int(np.log2(fmt.largest)) + 2, n).astype(np.float64)
    mantissa = rng.integers(0, 2 ** (fmt.bits - 1), n)
    on_grid = np.exp2(exponent) * (1 + mantissa / 2 ** (fmt.bits - 1))
    step = np.exp2(np.maximum(exponent, fmt.min_exponent) - (fmt.bits - 1))
    f16_step = np.exp2(np.maximum(exponent, -14) - 10)
    kind = rng.integers(0, 9, n)
    carry = np.exp2(rng.integers(-18, -13, n)) * (1 - rng.integers(1, 9, n) * 2.0**-15)
    values = np.select(
        [kind == 0, kind == 1, kind == 2, kind == 3, kind == 4, kind == 5, kind == 6],
        [on_grid + step / 2,  # a tie of the f8 grid
         on_grid + step / 2 + rng.choice([-1, 1], n) * f16_step / 2,  # an f16 tie beside it (double rounding)
         on_grid + step / 2 + rng.choice([-1, 1], n) * 2.0 ** (exponent - 20),  # just off the tie
         carry,  # rounds up into 2^k in f16's subnormal range
         rng.uniform(0, 4 * fmt.quantum, n),  # f8 subnormals and below
         fmt.largest * rng.uniform(0.9, 1.3, n),  # around saturation
         on_grid],
        np.exp2(rng.uniform(-20, 18, n)))
    values = values * rng.choice([-1.0, 1.0], n)
    special = rng.random(n) < 0.04
    values[special] = rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e30], int(special.sum()))
    return values


def fake_convert_inputs(rng: np.random.Generator, dtype: type, dest: str, shifted: bool) -> list[np.ndarray]:
    """Data, scale and (where ``shifted``) shift of one seeded case of shape ``SHAPE``: scale and shift per tensor,
    per channel or per element, the data aimed at ``_targets`` through them."""
    kind = rng.integers(0, 3)
    range_shape = [1, 1, 1] if kind == 0 else [1, SHAPE[1], 1] if kind == 1 else SHAPE
    size = int(np.prod(range_shape))
    exact = rng.random() < 0.5  # power-of-two scales and shifts on a coarse grid keep ties exact
    if exact:
        scale = np.exp2(rng.integers(-6, 7, size)) * rng.choice([1.0, -1.0], size, p=[0.9, 0.1])
        shift = rng.integers(-8, 9, size) / 4.0 if shifted else np.zeros(size)
    else:
        scale = np.exp2(rng.uniform(-6, 6, size)) * rng.choice([1.0, -1.0], size, p=[0.9, 0.1])
        shift = rng.standard_normal(size) * 3 if shifted else np.zeros(size)
    shift[rng.random(size) < 0.2] = rng.choice([0.0, -0.0])
    scale, shift = (np.asarray(v, dtype).astype(np.float64).reshape(range_shape) for v in (scale, shift))
    t = _targets(rng, dest, int(np.prod(SHAPE))).reshape(SHAPE)
    with np.errstate(all="ignore"):
        x = ((t + shift) / scale).astype(dtype)
    inputs = [x, scale.astype(dtype)]
    return inputs + [shift.astype(dtype)] if shifted else inputs


def fake_convert_cases(rng: np.random.Generator, count: int) -> list[Case]:
    cases = []
    for i in range(count):
        dtype = np.float16 if i % 4 == 3 else np.float32
        dest = "f8e5m2" if i % 2 else "f8e4m3"
        shifted = i % 8 < 6
        inputs = fake_convert_inputs(rng, dtype, dest, shifted)

        def build(ps, dest=dest):
            return ops13.fake_convert(*ps, destination_type=dest)

        what = f"FakeConvert {dest} {np.dtype(dtype).name} {[list(np.shape(v)) for v in inputs]}"
        cases.append(Case(what, inputs, build, bits=True))
    return cases


def test_fake_convert_kernel_is_the_cpus_bit_for_bit(tmp_path):
    assert_all_pass(fake_convert_cases(np.random.default_rng(SEED), 320), tmp_path)


def test_opset_versions(tmp_path):
    x = ops13.parameter([2, 3], np.float32)
    node = ops13.fake_convert(x, x, x, destination_type="f8e4m3")
    assert not check_versions({"FakeConvert": node}, [x], tmp_path)


def test_input_bounds_move_through_the_rule():
    """Inputs moved anywhere within their bounds move the kernel's result by no more than the rule's bound: 200
    seeded f32 cases."""
    rng = np.random.default_rng(SEED + 2)
    for i in range(200):
        dest = "f8e5m2" if i % 2 else "f8e4m3"
        inputs = fake_convert_inputs(rng, np.float32, dest, True)
        finite = [np.nan_to_num(v, nan=1.0, posinf=1.0, neginf=-1.0) for v in inputs]
        bounds = [np.abs(rng.standard_normal(np.shape(v))) * float(rng.choice([1e-6, 1e-3])) * np.abs(v)
                  for v in finite]
        assert_bounds_carry_moves(FC, {"destination_type": dest}, finite, bounds, rng, 3)


@pytest.mark.parametrize(("elements", "shapes"), [
    (("f32", "f32", "f32"), ([2, 3], [1], [1])),
    (("f16", "f16", "f16"), ([2, 3], [3], [3])),
    (("f32", "f32", "f32"), ([None, 3], [5, 1], [5, 1])),
    (("f32", "f32", "f32"), ([2, 3], [4, 2, 3], [4, 2, 3])),
    (("f32", "f32", "f32"), ([2, 3], [4], [4])),
    (("f32", "f32", "f32"), ([2, 3], [3], [2, 1])),
    (("f32", "f16", "f32"), ([2, 3], [1], [1])),
    (("i32", "i32", "i32"), ([2, 3], [1], [1])),
])
def test_shape_rule_agrees_with_openvino(elements, shapes):
    """Our rule's output type and shape, or a refusal, as OpenVINO's shape inference on Parameters."""
    numpy_types = {"f32": np.float32, "f16": np.float16, "i32": np.int32}
    bounds = [tuple((d, d) if d is not None else (0, None) for d in s) for s in shapes]
    theirs = openvino_outcome(lambda: ops13.fake_convert(
        *[ops13.parameter([-1 if d is None else d for d in s], numpy_types[e]) for e, s in zip(elements, shapes,
                                                                                                 strict=True)],
        destination_type="f8e4m3"))
    ours = our_outcome("FakeConvert", "opset13", {"destination_type": "f8e4m3"},
                       tensor_types(list(elements), bounds), [None] * 3)
    assert (theirs == "rejects") == (ours == "rejects"), (theirs, ours)
    if ours != "rejects":
        assert ours == theirs


def test_exact_inputs_have_the_reciprocals_ulp():
    """On exact inputs the bound is one f32 ulp of the output (a Const scale's folded reciprocal), never zero."""
    x, s, o = (np.array([1.3, -0.7], np.float32), np.array([0.37, 3.0], np.float32), np.zeros(2, np.float32))
    attrs = FC.attrs("f8e4m3")
    y = FC.kernel(attrs, [x, s, o])[0]
    bound = FC.rounding(FC.kernel, attrs, [x, s, o], [EXACT] * 3, [y])[0]
    assert np.all(bound >= 2.0**-24 * np.abs(y)) and np.all(bound <= 2.0**-21 * np.abs(y))


def _tensor(value: np.ndarray) -> ov.Tensor:
    """An OpenVINO tensor of ``value``'s values, bf16 where it holds bf16 (its upper halves, shared)."""
    if not is_bf16(value.dtype):
        return ov.Tensor(np.ascontiguousarray(value))
    halves = np.ascontiguousarray((np.asarray(value, np.float32).view(np.uint32) >> 16).astype(np.uint16))
    return ov.Tensor(halves, ov.Shape(list(halves.shape)), ov.Type.bf16)


def _bits(value: np.ndarray) -> np.ndarray:
    """The bit patterns of f32, f16 or bf16 ``value`` (bf16 as the upper halves of f32), to compare bit for bit."""
    value = np.asarray(value)
    return value.view(np.uint16 if value.dtype.itemsize == 2 else np.uint32)


def test_folded_kernel_is_openvinos_evaluate_bit_for_bit():
    """``FC.folded`` against OpenVINO's evaluate() (``Node.evaluate``) on 480 seeded cases: f32, f16 and bf16 data,
    both destinations, with and without shift, per tensor, channel or element; every element's bits."""
    rng = np.random.default_rng(SEED + 3)
    failures = []
    for i in range(480):
        dtype, element = [(np.float32, ov.Type.f32), (np.float16, ov.Type.f16), (np.float32, ov.Type.bf16)][i % 3]
        dest = "f8e5m2" if i % 2 else "f8e4m3"
        inputs = fake_convert_inputs(rng, dtype, dest, shifted=i % 4 < 3)
        if element == ov.Type.bf16:
            inputs = [to_bf16(v) for v in inputs]
        node = ops13.fake_convert(*[ops13.parameter(list(v.shape), element) for v in inputs], destination_type=dest)
        out = np.zeros(SHAPE, np.uint16 if element != ov.Type.f32 else np.float32)
        assert node.evaluate([ov.Tensor(out, ov.Shape(SHAPE), element)], [_tensor(v) for v in inputs])
        theirs = out if element != ov.Type.bf16 else out.astype(np.uint32) << 16
        ours = _bits(FC.folded(FC.attrs(dest), inputs)[0])
        if not np.array_equal(ours, _bits(theirs)):
            failures.append(f"case {i} {element} {dest}: {int((ours != _bits(theirs)).sum())} elements differ")
    assert not failures, failures


def test_cpu_folds_fake_converts_of_consts_by_evaluate(tmp_path):
    """FakeConverts of Consts (weights fake-converted), 48 seeded layers in one model compiled once for CPU: each
    output is the folded kernel's bit for bit (not the kernel's, which differs where the reference rounds otherwise:
    about one element in four), and so is the reference executor's, which runs the folded kernel on inputs known when
    OpenVINO compiles the model."""
    rng = np.random.default_rng(SEED + 4)
    outputs, expected = [], {}
    kernel_differs = 0  # (layers where the kernel's values are not the folded ones: what the test tells apart)
    for i in range(48):
        dtype = np.float16 if i % 3 == 2 else np.float32
        dest = "f8e5m2" if i % 2 else "f8e4m3"
        inputs = fake_convert_inputs(rng, dtype, dest, shifted=i % 4 < 3)
        folded = ops13.fake_convert(*[ops13.constant(v) for v in inputs], destination_type=dest)
        name = f"y{i}"
        outputs.append(ops13.result(folded, name=name))
        outputs[-1].output(0).get_tensor().set_names({name})
        expected[name] = _bits(FC.folded(FC.attrs(dest), inputs)[0])
        kernel_differs += not np.array_equal(expected[name], _bits(FC.kernel(FC.attrs(dest), inputs)[0]))
    path = tmp_path / "folded.xml"
    ov.save_model(ov.Model(outputs, [], "folded"), path, compress_to_fp16=False)
    cpu = ov.Core().compile_model(str(path), "CPU", CPU_CONFIG)({})
    ours = run(path, {})
    for name, bits in expected.items():
        assert np.array_equal(_bits(cpu[name]), bits), name
        assert np.array_equal(_bits(ours[name]), bits), name
    assert kernel_differs >= 24, kernel_differs
