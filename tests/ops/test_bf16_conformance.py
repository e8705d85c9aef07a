"""bf16 against OpenVINO CPU: seeded cases of what a bf16 language model computes (Convert to and from bf16, the
element-wise ops, MatMul, SoftMax, the reductions and movements of its attention and norms, and chains OpenVINO fuses),
batched into one model, compiled once; each case's output taken from the reference (``BoundedInterpreter``: its
value and its rounding bound) and from OpenVINO.

Every output lies within its bound, no tolerance; where the bound is 0 (movement, a conversion that changes no value)
it is equal to the bit. Where OpenVINO CPU rounds to bf16 as the reference does (AVX-512 BF16's vcvtneps2bf16:
``cpu_isa.BF16_FLUSH``), an op that rounds its f32 result once (Convert, Add, Subtract, Multiply, Divide, Maximum,
Minimum, Sqrt, ReLU, Negative, Abs) is equal to the bit, NaN payloads and zeros' signs included; its bound allows
the CPUs that round otherwise (``cpu_isa.openvino_bf16``) and constants OpenVINO folds by ``ov::bfloat16``'s rule
(``test_folded_constants_round_by_ov_bfloat16s_rule``). Where OpenVINO computes bf16 in f32 (AVX2) the cases' NaNs
are those that rule keeps NaNs (``_plain_nans``). Also run with ONEDNN_MAX_CPU_ISA=AVX512_CORE and AVX2."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset13 as o
import pytest

from ir_tools import read_ir
from ir_tools.base.packed import ov_bfloat16, to_bf16
from ir_tools.runtime.compare import compare_tensors
from ir_tools.runtime.executor import BoundedInterpreter
from ir_tools.runtime.openvino import ModelFiles, run_openvino
from tests.cpu_isa import BF16_FLUSH, BF16_IN_F32, openvino_bf16

pytestmark = pytest.mark.openvino

Build = Callable[[list[ov.Node]], ov.Node]


@dataclass
class Case:
    """One node built on Parameters fed ``inputs`` (f32, or the integers a Convert takes); ``once``: it rounds its
    f32 result to bf16 once, equal to the bit where OpenVINO rounds as the reference does."""

    what: str
    inputs: list[np.ndarray]
    build: Build
    once: bool = False


def bf16_values(rng: np.random.Generator, shape: tuple[int, ...], scale: float = 1.0, positive: bool = False
                ) -> np.ndarray:
    """Normal values times ``scale`` (their magnitudes where ``positive``), rounded to bf16, held as f32."""
    x = rng.standard_normal(shape) * scale
    return to_bf16(np.abs(x) + scale / 64 if positive else x).view(np.float32)


def bf16(node: ov.Node) -> ov.Node:
    return o.convert(node, "bf16")


def i64(values: list[int]) -> ov.Node:
    return o.constant(np.array(values, np.int64))


#: Binary element-wise ops on bf16: (name, builder, positive second input, rounds once).
BINARY: list[tuple[str, Callable[[ov.Node, ov.Node], ov.Node], bool, bool]] = [
    ("Add", o.add, False, True), ("Subtract", o.subtract, False, True), ("Multiply", o.multiply, False, True),
    ("Divide", o.divide, True, True), ("Maximum", o.maximum, False, True), ("Minimum", o.minimum, False, True),
    ("Power", lambda x, y: o.power(o.abs(x), y), False, False),
    ("SquaredDifference", o.squared_difference, False, False),
]
#: Unary ones: (name, builder, positive input, rounds once).
UNARY: list[tuple[str, Callable[[ov.Node], ov.Node], bool, bool]] = [
    ("Sqrt", o.sqrt, True, True), ("Relu", o.relu, False, True), ("Negative", o.negative, False, True),
    ("Abs", o.abs, False, True), ("Exp", o.exp, False, False), ("Sigmoid", o.sigmoid, False, False),
    ("Tanh", o.tanh, False, False), ("Swish", lambda x: o.swish(x, bf16(o.constant(np.float32(1.0)))), False, False),
    ("Gelu erf", lambda x: o.gelu(x, "erf"), False, False), ("Gelu tanh", lambda x: o.gelu(x, "tanh"), False, False),
]


def special_f32() -> np.ndarray:
    """f32 bit patterns at the edges of rounding to bf16: ties either way, just past them, the largest values, the
    infinities, NaNs of both signs and payloads (some in the low half alone, some all ones), subnormals and zeros."""
    highs = [0x3F80, 0x3F81, 0xBF80, 0xBF81, 0x7F7E, 0x7F7F, 0xFF7F, 0x0080, 0x8080, 0x0001, 0x0000, 0x8000, 0x007F]
    lows = [0x0000, 0x7FFF, 0x8000, 0x8001, 0xFFFF]
    bits = [h << 16 | lo for h in highs for lo in lows]
    bits += [0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FBFFFFF, 0xFF812345, 0x00800000, 0x7F800001,
             0xFF80FFFF, 0xFFFFC9C1, 0x7FFFC000]
    return np.array(bits, np.uint32).view(np.float32)


def _plain_nans(values: np.ndarray) -> np.ndarray:
    """``values`` with each NaN made 0x7FC0xxxx (its sign and low half kept): OpenVINO CPU hands a bf16 tensor over by
    ``ov::bfloat16``'s rule where it computes bf16 in f32 (AVX2), which makes a NaN whose payload lies in the low half
    infinite, and one whose high half is all ones zero (the half ulp it adds carries out); other NaNs stay NaNs."""
    bits = values.view(np.uint32)
    return np.where(np.isnan(values), bits & 0x8000FFFF | 0x7FC00000, bits).astype(np.uint32).view(np.float32)


def cases(seed: int, any_nan: bool = True) -> list[Case]:
    """The seeded cases; NaNs of every payload where ``any_nan``, else only those every CPU keeps (``_plain_nans``)."""
    rng = np.random.default_rng(seed)
    nans = (lambda v: v) if any_nan else _plain_nans
    out = [Case("Convert f32 special", [nans(special_f32())], lambda p: bf16(p[0]), once=True)]
    for k in range(64):  # every f32 bit pattern is as likely: all exponents, NaNs, subnormals
        bits = rng.integers(0, 2**32, 256, dtype=np.uint64).astype(np.uint32)
        out.append(Case(f"Convert f32 bits {k}", [nans(bits.view(np.float32))], lambda p: bf16(p[0]), once=True))
    for k in range(32):
        scale = 10.0 ** rng.uniform(-3, 3)
        out.append(Case(f"Convert f32 normal {k}", [(rng.standard_normal(128) * scale).astype(np.float32)],
                        lambda p: bf16(p[0]), once=True))
    for dtype, low, high in ((np.uint8, 0, 256), (np.int8, -128, 128), (np.int32, -2**31, 2**31 - 1),
                             (np.int64, -2**40, 2**40)):
        for k in range(4):
            ints = rng.integers(low, high, 256, dtype=np.int64).astype(dtype)
            out.append(Case(f"Convert {np.dtype(dtype).name} {k}", [ints], lambda p: bf16(p[0]), once=True))
    for target in ("f32", "f16", "i32"):
        out += [Case(f"Convert bf16 to {target} {k}", [bf16_values(rng, (256,), 30.0)],
                     lambda p, t=target: o.convert(bf16(p[0]), t)) for k in range(4)]
    for name, op, positive, once in BINARY:
        for k in range(40):
            shape, scale = (int(rng.integers(1, 9)), int(rng.integers(1, 65))), 10.0 ** rng.uniform(-2, 2)
            y_shape = shape if k % 3 else (1, shape[1])  # broadcast a row, as a scale or a bias
            inputs = [bf16_values(rng, shape, scale), bf16_values(rng, y_shape, scale if k % 2 else 1.0, positive)]
            if name == "Power":
                inputs[1] = to_bf16(rng.uniform(-2, 3, y_shape)).view(np.float32)
            out.append(Case(f"{name} {k}", inputs, lambda p, f=op: f(bf16(p[0]), bf16(p[1])), once=once))
    for name, op, positive, once in UNARY:
        for k in range(40):
            shape, scale = (int(rng.integers(1, 9)), int(rng.integers(1, 65))), 10.0 ** rng.uniform(-1, 1)
            out.append(Case(f"{name} {k}", [bf16_values(rng, shape, scale, positive)],
                            lambda p, f=op: f(bf16(p[0])), once=once))
    for k in range(120):  # attention's and the projections' products, some batched
        m, n, inner = (int(v) for v in rng.integers(1, 33, 3))
        inner = inner * int(rng.choice([1, 4, 16]))
        batch = [int(rng.integers(1, 4))] if k % 3 == 0 else []
        tb = bool(k % 2)
        x = bf16_values(rng, (*batch, m, inner))
        w = bf16_values(rng, (*batch, n, inner) if tb else (*batch, inner, n), 0.1)
        out.append(Case(f"MatMul {k}", [x, w], lambda p, t=tb: o.matmul(bf16(p[0]), bf16(p[1]), False, t)))
    for k in range(80):
        shape = (int(rng.integers(1, 5)), int(rng.integers(1, 9)), int(rng.integers(1, 129)))
        axis = int(rng.integers(-3, 3))
        out.append(Case(f"SoftMax {k}", [bf16_values(rng, shape, 10.0 ** rng.uniform(-1, 1.5))],
                        lambda p, a=axis: o.softmax(bf16(p[0]), a)))
    for name, op in (("ReduceMean", o.reduce_mean), ("ReduceSum", o.reduce_sum), ("ReduceMax", o.reduce_max)):
        for k in range(40):
            shape = (int(rng.integers(1, 9)), int(rng.integers(1, 257)))
            out.append(Case(f"{name} {k}", [bf16_values(rng, shape, 10.0 ** rng.uniform(-2, 2))],
                            lambda p, f=op: f(bf16(p[0]), i64([-1]), True)))
    for k in range(40):  # movements: exact
        x = bf16_values(rng, (8, 16, 4), 3.0)
        rows = rng.integers(0, 8, 5).astype(np.int32)
        out += [Case(f"Gather {k}", [x, rows], lambda p: o.gather(bf16(p[0]), p[1], i64([0]))),
                Case(f"Transpose {k}", [x], lambda p: o.transpose(bf16(p[0]), i64([2, 0, 1]))),
                Case(f"Concat {k}", [x, x[:3]], lambda p: o.concat([bf16(p[0]), bf16(p[1])], 0)),
                Case(f"Reshape {k}", [x], lambda p: o.reshape(bf16(p[0]), i64([16, -1]), False)),
                Case(f"StridedSlice {k}", [x], lambda p: o.strided_slice(bf16(p[0]), i64([0, 8, 0]), i64([8, 16, 4]),
                                                                        i64([1, 1, 1]), [0, 0, 0], [0, 0, 0]))]
    for k in range(40):  # chains OpenVINO fuses into one kernel (rounding in f32 between)
        x, y, z = (bf16_values(rng, (4, 32), 3.0) for _ in range(3))
        gamma = bf16_values(rng, (1, 32), 1.0)
        out += [Case(f"Multiply-Add {k}", [x, y, z], lambda p: o.add(o.multiply(bf16(p[0]), bf16(p[1])), bf16(p[2]))),
                Case(f"RMSNorm {k}", [x, gamma], lambda p: _rms_norm(bf16(p[0]), bf16(p[1])))]
    return out


def _rms_norm(x: ov.Node, gamma: ov.Node) -> ov.Node:
    """Llama's RMSNorm in x's type: x / sqrt(mean(x^2) + eps) * gamma."""
    square = o.power(x, bf16(o.constant(np.float32(2.0))))
    mean = o.add(o.reduce_mean(square, i64([-1]), True), bf16(o.constant(np.float32(1e-6))))
    return o.multiply(o.divide(x, o.sqrt(mean)), gamma)


def _model(batch: list[Case], path: Path) -> dict[str, np.ndarray]:
    """The cases as one IR at ``path`` (case i's inputs c{i}_{j}, its output c{i}); the feed."""
    params, outputs, feed = [], [], {}
    for i, case in enumerate(batch):
        ps = []
        for j, x in enumerate(case.inputs):
            p = o.parameter(list(x.shape), x.dtype, name=f"c{i}_{j}")
            p.output(0).get_tensor().set_names({f"c{i}_{j}"})
            feed[f"c{i}_{j}"] = x
            ps.append(p)
        node = case.build(ps)
        node.output(0).get_tensor().set_names({f"c{i}"})
        params += ps
        outputs.append(node.output(0))
    ov.save_model(ov.Model(outputs, params, "bf16_cases"), str(path), compress_to_fp16=False)
    return feed


def _bits(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v)
    return v.view(np.uint32) if v.dtype == np.float32 else v


@pytest.mark.parametrize("seed", [0])
def test_bf16_ops_against_openvino(seed: int, tmp_path: Path) -> None:
    batch = cases(seed, any_nan=openvino_bf16() != BF16_IN_F32)
    path = tmp_path / "bf16_cases.xml"
    feed = _model(batch, path)
    graph = read_ir(path)
    ours = BoundedInterpreter(graph).evaluate(feed)
    theirs = run_openvino(graph, feed, files=ModelFiles(path)).outputs
    rounds_as_ours = openvino_bf16() == BF16_FLUSH
    failures, equal = [], 0
    for i, case in enumerate(batch):
        value, bound = ours[f"c{i}"]
        got = theirs[f"c{i}"]
        within = compare_tensors(case.what, got, value, 0.0, 0.0, bound=bound)
        exact = bound is not None and not np.any(bound)
        if not within.passed:
            failures.append(f"{case.what}: beyond its bound: max abs {within.max_abs_error:.3g}, error/bound "
                            f"{within.error_to_bound}, {within.mismatches} of {within.elements}")
        elif (exact or (case.once and rounds_as_ours)) and not np.array_equal(_bits(got), _bits(value)):
            failures.append(f"{case.what}: not equal to the bit ({'bound 0' if exact else 'rounds once'})")
        equal += int(np.array_equal(_bits(got), _bits(value)))
    assert not failures, f"{len(failures)} of {len(batch)} cases:\n" + "\n".join(failures[:20])
    assert len(batch) > 1000 and (equal > len(batch) * 3 // 4 or not rounds_as_ours), (len(batch), equal)


def _bit_patterns(rng: np.random.Generator) -> np.ndarray:
    """f32 values of 8,192 random bit patterns (NaNs of every payload, subnormals, both zeros and infinities among
    them) and the edges: ties, the largest finite, signalling NaNs."""
    edges = [0x80000000, 0x7F800000, 0xFF800000, 0x7F800001, 0xFFBFFFFF, 0x7FC00000, 0x7F7FFFFF, 0x7F7F8000,
             0x00000001, 0x807FFFFF, 0x00008000, 0x00018000, 0x3F808000, 0x3F818000, 0x3F808001]
    bits = np.concatenate([rng.integers(0, 2**32, 8192, dtype=np.uint64).astype(np.uint32),
                           np.array(edges, np.uint32)])
    return bits.view(np.float32)


def test_folded_constants_round_by_ov_bfloat16s_rule(tmp_path: Path) -> None:
    """OpenVINO folds a bf16 Convert or product of constants at compile time by ``ov::bfloat16(float)``
    (``base.packed.ov_bfloat16``: truncated past a tie where the last kept bit is even), on every CPU; the reference
    folds the Convert so too (``core.convert_values``: bit for bit, NaNs and subnormals too), and rounds the product
    as the CPU rounds at run time (``to_bf16``), within the Multiply's bound. A bf16 constant converted to f32 is its
    value, exactly."""
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(4096) * 10.0 ** rng.uniform(-3, 3, 4096)).astype(np.float32)
    y = bf16_values(rng, (4096,), 1.0)
    stored = ov.Tensor(ov.Type.bf16, ov.Shape([4096]))
    stored.data.view(np.uint16)[:] = to_bf16(x).view(np.uint32) >> 16
    param = o.parameter([1], np.float32, name="unused")
    outputs = {"converted": bf16(o.constant(x)), "product": o.multiply(bf16(o.constant(x)), bf16(o.constant(y))),
               "decoded": o.convert(ov.op.Constant(stored), "f32"),
               "patterns": bf16(o.constant(_bit_patterns(rng)))}
    for name, node in outputs.items():
        node.output(0).get_tensor().set_names({name})
    path = tmp_path / "folded.xml"
    ov.save_model(ov.Model(list(outputs.values()), [param], "folded"), str(path), compress_to_fp16=False)
    graph = read_ir(path)
    feed = {"unused": np.zeros(1, np.float32)}
    ours = BoundedInterpreter(graph).evaluate(feed)
    theirs = run_openvino(graph, feed, files=ModelFiles(path)).outputs
    rule = {"converted": ov_bfloat16(x), "product": ov_bfloat16(ov_bfloat16(x).view(np.float32) * y),
            "decoded": to_bf16(x)}
    assert np.array_equal(_bits(theirs.pop("patterns")), _bits(ours.pop("patterns")[0]))
    for name in rule:
        value, bound = ours[name]
        assert np.array_equal(_bits(theirs[name]), _bits(rule[name])), name
        within = compare_tensors(name, theirs[name], value, 0.0, 0.0, bound=bound)
        assert within.passed, (name, within.max_abs_error, within.error_to_bound)
    assert np.array_equal(_bits(theirs["converted"]), _bits(ours["converted"][0]))
    assert not np.array_equal(_bits(theirs["product"]), _bits(ours["product"][0]))  # (the bound is needed)
    assert np.array_equal(_bits(theirs["decoded"]), _bits(ours["decoded"][0]))
