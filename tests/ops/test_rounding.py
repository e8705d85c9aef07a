"""The rounding rules (ir_tools/ops/rounding.py and each op's ``rounding``) against OpenVINO CPU: the bound alone.

Every op version with a kernel has a rounding rule. Seeded cases over the op families of real networks
(SoftMax, LogSoftmax, BatchNormInference, MVN, NormalizeL2, LRN, reductions and CumSum, MatMul, Convolution, pooling,
activations, arithmetic, FloorMod and Mod, data movement: Transpose, Reshape, Concat, Gather, DepthToSpace,
SpaceToDepth, Identity, ScatterUpdate), f32 and f16, are batched into one model per family, saved as IR
and read back by ir_tools; ``BoundedInterpreter`` gives each output and its bound, OpenVINO CPU (f32
inference precision) runs the same model, and every element must lie within the bound with no tolerance
at all (atol = rtol = 0). Then each case gets a planted defect: its data inputs changed in the 4th
significant digit (3rd for f16, whose own rounding is of that size): a seeded half of the elements x
changed by DEFECT |x|, fed to ours only. The defect is visible where it moves the reference by more
than twice the bound (NormalizeL2 along an axis of one element, or a sum of three f16 values, hardly
moves): every visible defect must be flagged, and at least 80% of the cases must make it visible (bounds
tight enough to see a 4th digit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset2 as ops2
import openvino.opset3 as ops3
import openvino.opset4 as ops4
import openvino.opset5 as ops5
import openvino.opset6 as ops6
import openvino.opset7 as ops7
import openvino.opset8 as ops8
import openvino.opset16 as ops16
import pytest

from ir_tools import read_ir
from ir_tools.ops.opsets import specs
from ir_tools.runtime.compare import compare_tensors
from ir_tools.runtime.executor import BoundedInterpreter
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import equal_duplicates, named_parameters

pytestmark = pytest.mark.openvino

CASES_PER_FAMILY = 300
DEFECT = {np.dtype(np.float32): 1e-3, np.dtype(np.float16): 1e-2}


@dataclass
class Case:
    """Data inputs (Parameters, perturbed by the defect) and a builder of the node on them (constants inside)."""

    inputs: list[np.ndarray]
    build: Callable[[list[ov.Node]], ov.Node]


def test_every_kernel_has_a_rounding_rule() -> None:
    missing = [spec.label for spec in specs() if spec.kernel is not None and spec.rounding is None]
    assert not missing, f"kernels without a rounding rule: {missing}"


# --- case generators: (rng, dtype) -> Case ------------------------------------------------------------


def _shape(rng: np.random.Generator, lo_rank: int = 1, hi_rank: int = 4, hi: int = 7) -> list[int]:
    return [int(d) for d in rng.integers(1, hi, int(rng.integers(lo_rank, hi_rank + 1)))]


def _floats(rng: np.random.Generator, shape, dtype, scale: float = 1.0, offset: float = 0.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale + offset).astype(dtype)


def _scale(rng: np.random.Generator, dtype) -> float:
    """Activations of a trained network's scale, and of an uncalibrated one (1e4, 100 where f16 would overflow)."""
    return float(rng.choice([0.1, 1.0, 3.0, 100.0, 1e4 if dtype is np.float32 else 100.0]))


def softmax(rng, dtype) -> Case:
    shape = _shape(rng)
    if rng.random() < 0.2:
        shape[-1] = int(rng.integers(100, 1000))  # long rows: the sum's rounding grows
    axis = int(rng.integers(-len(shape), len(shape)))
    x = _floats(rng, shape, dtype, float(rng.choice([1.0, 5.0, 30.0])))
    kind = int(rng.integers(3))
    return Case([x], lambda p: (ops1.softmax(p[0], axis % len(shape)), ops8.softmax(p[0], axis),
                                ops5.log_softmax(p[0], axis))[kind])


def batch_norm(rng, dtype) -> Case:
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, 9)), *_shape(rng, 0, 2)]
    c = shape[1]
    gamma, beta, mean = (_floats(rng, [c], dtype, 2.0) for _ in range(3))
    var = np.abs(_floats(rng, [c], dtype, 3.0)) + dtype(0.01)
    scale = _scale(rng, dtype)
    x = _floats(rng, shape, dtype, scale, float(mean[0]) * scale)
    eps = float(rng.choice([1e-5, 1e-3]))
    return Case([x], lambda p: ops5.batch_norm_inference(p[0], *(ops1.constant(v) for v in (gamma, beta, mean, var)),
                                                         eps))


def mvn(rng, dtype) -> Case:
    shape = [int(rng.integers(1, 3)), *(int(d) for d in rng.integers(2, 9, int(rng.integers(2, 4))))]
    rank = len(shape)  # groups of two or more elements: MVN of one element is 0 whatever the input
    axes = sorted({int(a) for a in rng.integers(1, rank, int(rng.integers(1, rank)))}) or [rank - 1]
    # OpenVINO CPU gives NaN for f16 data, an axis of one element and an eps below f16's range (normalization.py)
    normalize, eps = bool(rng.random() < 0.8), float(rng.choice([1e-9 if dtype is np.float32 else 1e-5, 1e-5, 1e-3]))
    mode = str(rng.choice(["inside_sqrt", "outside_sqrt"]))
    x = _floats(rng, shape, dtype, _scale(rng, dtype), float(rng.choice([0.0, 3.0])))
    if rng.random() < 0.3:
        return Case([x], lambda p: ops2.mvn(p[0], bool(rng.random() < 0.5), normalize, eps))
    return Case([x], lambda p: ops6.mvn(p[0], ops1.constant(np.array(axes, np.int64)), normalize, eps, mode))


def normalize_l2(rng, dtype) -> Case:
    shape = _shape(rng, 2, 4)
    axes = sorted({int(a) for a in rng.integers(0, len(shape), int(rng.integers(1, len(shape) + 1)))})
    eps, mode = float(rng.choice([1e-12, 1e-6])), str(rng.choice(["add", "max"]))
    x = _floats(rng, shape, dtype, _scale(rng, dtype))
    return Case([x], lambda p: ops1.normalize_l2(p[0], ops1.constant(np.array(axes, np.int64)), eps, mode))


def lrn(rng, dtype) -> Case:
    shape = [1, int(rng.integers(2, 9)), *_shape(rng, 2, 2)]
    axes = [1] if rng.random() < 0.7 else [2, 3]
    size = int(rng.choice([3, 5]))
    alpha, beta, bias = float(rng.choice([1e-4, 1e-2])), float(rng.choice([0.75, 0.5])), float(rng.choice([1, 2]))
    x = _floats(rng, shape, dtype, float(rng.choice([1.0, 10.0])))
    return Case([x], lambda p: ops1.lrn(p[0], ops1.constant(np.array(axes, np.int64)), alpha, beta, bias, size))


_REDUCTIONS = (ops1.reduce_sum, ops1.reduce_mean, ops1.reduce_max, ops1.reduce_min, ops4.reduce_l1, ops4.reduce_l2,
               ops1.reduce_prod)


def reduction(rng, dtype) -> Case:
    shape = _shape(rng)
    if rng.random() < 0.2:
        shape[-1] = int(rng.integers(100, 2000))
    axes = sorted({int(a) for a in rng.integers(0, len(shape), int(rng.integers(1, len(shape) + 1)))})
    op = _REDUCTIONS[int(rng.integers(len(_REDUCTIONS)))]
    keep = bool(rng.random() < 0.5)
    if rng.random() < 0.15:  # CumSum: exclusive and reverse
        x = _floats(rng, shape, dtype, _scale(rng, dtype))
        axis, exclusive, reverse = int(axes[0]) - len(shape) * int(rng.integers(2)), *(bool(b) for b in
                                                                                      rng.integers(0, 2, 2))
        return Case([x], lambda p: ops3.cumsum(p[0], ops1.constant(np.int64(axis)), exclusive, reverse))
    x = _floats(rng, shape, dtype, 1.0 if op is ops1.reduce_prod else _scale(rng, dtype))
    if op is ops1.reduce_prod:  # small products: the CPU multiplies in f32 (test_reduction_conformance.py)
        x = (np.sign(x) * (0.5 + np.abs(x) % 1.0)).astype(dtype)
        shape = [min(d, 3) for d in shape]
        x = x[tuple(slice(0, d) for d in shape)]
    return Case([x], lambda p: op(p[0], ops1.constant(np.array(axes, np.int64)), keep))


def matmul(rng, dtype) -> Case:
    m, k, n = (int(v) for v in rng.integers(1, 9, 3))
    if rng.random() < 0.3:
        k = int(rng.integers(100, 1000))
    batch = _shape(rng, 0, 2, 4)
    ta, tb = bool(rng.random() < 0.3), bool(rng.random() < 0.3)
    a = _floats(rng, [*batch, *((k, m) if ta else (m, k))], dtype, _scale(rng, dtype))
    b = _floats(rng, [*((n, k) if tb else (k, n))], dtype, 0.1)
    return Case([a], lambda p: ops1.matmul(p[0], ops1.constant(b), ta, tb))


def convolution(rng, dtype) -> Case:
    c, o, k = int(rng.integers(1, 17)), int(rng.integers(1, 9)), int(rng.choice([1, 3, 5]))
    size = int(rng.integers(k, k + 6))
    x = _floats(rng, [1, c, size, size], dtype, _scale(rng, dtype))
    w = _floats(rng, [o, c, k, k], dtype, float(1.0 / np.sqrt(c * k * k)))
    s, pad, dil = int(rng.integers(1, 3)), int(rng.integers(0, k)), 1
    return Case([x], lambda p: ops1.convolution(p[0], ops1.constant(w), [s, s], [pad, pad], [pad, pad], [dil, dil]))


def pooling(rng, dtype) -> Case:
    c, k = int(rng.integers(1, 9)), int(rng.choice([2, 3, 5]))
    size = int(rng.integers(k, k + 9))
    x = _floats(rng, [1, c, size, size], dtype, _scale(rng, dtype))
    s, pad = int(rng.integers(1, 3)), int(rng.integers(0, (k + 1) // 2))
    rounding = str(rng.choice(["floor", "ceil"]))
    if rng.random() < 0.5:
        exclude = bool(rng.random() < 0.5)
        return Case([x], lambda p: ops1.avg_pool(p[0], [s, s], [pad, pad], [pad, pad], [k, k], exclude, rounding))
    return Case([x], lambda p: ops8.max_pool(p[0], [s, s], [1, 1], [pad, pad], [pad, pad], [k, k], rounding)
                .output(0).get_node())


def _swish(x: ov.Node) -> ov.Node:
    return ops4.swish(x, ops1.constant(np.array(0.7, x.get_output_element_type(0).to_dtype())))


def _selu(x: ov.Node) -> ov.Node:
    dtype = x.get_output_element_type(0).to_dtype()
    return ops1.selu(x, ops1.constant(np.array(1.6732632, dtype)), ops1.constant(np.array(1.0507010, dtype)))


_ACTIVATIONS: tuple[tuple[Callable[[ov.Node], ov.Node], float], ...] = (
    (ops1.sigmoid, 0.0), (ops1.tanh, 0.0), (ops1.exp, 0.0), (ops1.log, 1.0), (ops1.sqrt, 1.0), (ops1.erf, 0.0),
    (lambda x: ops7.gelu(x, "erf"), 0.0), (lambda x: ops7.gelu(x, "tanh"), 0.0), (_swish, 0.0),
    (ops4.hswish, 0.0), (ops5.hsigmoid, 0.0), (ops4.mish, 0.0), (ops4.softplus, 0.0),
    (lambda x: ops1.elu(x, 0.7), 0.0), (lambda x: ops1.clamp(x, -0.5, 2.0), 0.0), (ops1.relu, 0.0), (_selu, 0.0))


def activation(rng, dtype) -> Case:
    op, positive = _ACTIVATIONS[int(rng.integers(len(_ACTIVATIONS)))]
    x = _floats(rng, _shape(rng), dtype, float(rng.choice([0.5, 2.0, 8.0])))
    if positive:
        x = (np.abs(x) + dtype(0.01)).astype(dtype)
    return Case([x], lambda p: op(p[0]))


_ARITHMETIC = (ops1.add, ops1.subtract, ops1.multiply, ops1.divide, ops1.maximum, ops1.minimum, ops1.power)


def arithmetic(rng, dtype) -> Case:
    op = _ARITHMETIC[int(rng.integers(len(_ARITHMETIC)))]
    shape = _shape(rng)
    other = [d if rng.random() < 0.6 else 1 for d in shape][int(rng.integers(len(shape))):]
    a = _floats(rng, shape, dtype, _scale(rng, dtype))
    b = _floats(rng, other, dtype, _scale(rng, dtype))
    if op is ops1.power:
        a, b = (np.abs(a) % 4 + dtype(0.1)).astype(dtype), (b % 3).astype(dtype)
    if op is ops1.divide:
        b = (np.sign(b) * (np.abs(b) + dtype(0.1))).astype(dtype)
    return Case([a, b], lambda p: op(p[0], p[1]))


def remainder(rng, dtype) -> Case:
    """FloorMod and Mod: quotients up to thousands, a share of them at integers or within an f32 rounding of one,
    where OpenVINO CPU's whole part of its f32 quotient can be one off (ops/arithmetic.py)."""
    op = (ops1.floor_mod, ops1.mod)[int(rng.integers(2))]
    shape = _shape(rng)
    y = _floats(rng, shape, dtype, _scale(rng, dtype))
    y = (np.sign(y) * (np.abs(y) + dtype(0.1))).astype(dtype)
    most = 3000 if dtype is np.float32 else 60  # (f16: within its range)
    whole = rng.integers(-most, most, shape) * (1.0 + rng.choice([0.0, 2.0**-24, -(2.0**-24)], shape))
    near = rng.random(shape) < 0.4
    x = np.where(near, y.astype(np.float64) * whole, _floats(rng, shape, np.float64, float(rng.choice([1.0, 30.0]))) *
                 np.abs(y))
    return Case([x.astype(dtype), y], lambda p: op(p[0], p[1]))


def movement(rng, dtype) -> Case:
    shape = _shape(rng, 2, 4)
    x = _floats(rng, shape, dtype, _scale(rng, dtype))
    kind = int(rng.integers(8))
    if kind == 7:  # ScatterUpdate along axis 0, duplicates included (with equal updates)
        idx = rng.integers(0, shape[0], int(rng.integers(1, 5))).astype(np.int64)
        upd = _floats(rng, [len(idx), *shape[1:]], dtype, _scale(rng, dtype))
        equal_duplicates(upd, idx, 0)
        return Case([x, upd], lambda p: ops3.scatter_update(p[0], ops1.constant(idx), p[1],
                                                            ops1.constant(np.int64(0))))
    if kind >= 4:  # DepthToSpace, SpaceToDepth, Identity
        bs = int(rng.integers(1, 4))
        x = _floats(rng, [int(rng.integers(1, 3)), int(rng.integers(1, 4)) * bs * bs, bs * int(rng.integers(1, 4)),
                          bs * int(rng.integers(1, 4))], dtype, _scale(rng, dtype))
        mode = str(rng.choice(["blocks_first", "depth_first"]))
        return Case([x], lambda p: (ops1.depth_to_space(p[0], mode, bs), ops1.space_to_depth(p[0], mode, bs),
                                    ops16.identity(p[0]))[kind - 4])
    if kind == 0:
        order = [int(v) for v in rng.permutation(len(shape))]
        return Case([x], lambda p: ops1.transpose(p[0], ops1.constant(np.array(order, np.int64))))
    if kind == 1:
        return Case([x], lambda p: ops1.reshape(p[0], ops1.constant(np.array([-1], np.int64)), False))
    if kind == 2:
        y = _floats(rng, shape, dtype)
        return Case([x, y], lambda p: ops1.concat([p[0], p[1]], int(rng.integers(len(shape)))))
    idx = rng.integers(0, shape[0], int(rng.integers(1, 5))).astype(np.int64)
    return Case([x], lambda p: ops8.gather(p[0], ops1.constant(idx), ops1.constant(np.int64(0))))


FAMILIES = {"softmax": softmax, "batch_norm": batch_norm, "mvn": mvn, "normalize_l2": normalize_l2, "lrn": lrn,
            "reduction": reduction, "matmul": matmul, "convolution": convolution, "pooling": pooling,
            "activation": activation, "arithmetic": arithmetic, "remainder": remainder, "movement": movement}


# --- the check -----------------------------------------------------------------------------------------


def _model(cases: list[Case]) -> tuple[ov.Model, dict[str, np.ndarray]]:
    params, outputs, feed = [], [], {}
    for i, case in enumerate(cases):
        ps = named_parameters(i, case.inputs, feed)
        node = case.build(ps)
        node.output(0).get_tensor().set_names({f"c{i}"})
        outputs.append(node.output(0))
        params += ps
    return ov.Model(outputs, params, "cases"), feed


def _defect(feed: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A seeded half of the elements x of each data input changed to x + DEFECT |x| (their 4th significant digit):
    not a scaling, which normalisations would undo, and no random signs, which long sums would average away."""
    rng = np.random.default_rng(0)
    return {name: (x + DEFECT[x.dtype] * np.abs(x) * (rng.random(x.shape) < 0.5)).astype(x.dtype)
            for name, x in feed.items()}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_openvino_within_the_bound_and_defects_flagged(family: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(sum(map(ord, family)))
    cases = [FAMILIES[family](rng, (np.float32, np.float16)[i % 4 == 3]) for i in range(CASES_PER_FAMILY)]
    model, feed = _model(cases)
    path = tmp_path / "cases.xml"
    ov.save_model(model, path, compress_to_fp16=False)
    interpreter = BoundedInterpreter(read_ir(path))
    ours, changed = interpreter.evaluate(feed), interpreter.evaluate(_defect(feed))
    compiled = ov.Core().compile_model(model, "CPU", CPU_CONFIG)
    theirs = compiled(feed)
    flagged_openvino, missed_defects, visible = [], [], 0
    for i, output in enumerate(compiled.outputs):
        node = model.outputs[i].get_node().input_value(0).get_node()
        what = f"case {i} {node.get_type_name()} {node.get_attributes()} {[list(x.shape) for x in cases[i].inputs]}"
        got = theirs[output]
        value, bound = ours[f"c{i}"]
        assert bound is not None, f"case {i}: no bound"
        result = compare_tensors(f"c{i}", got, value, 0.0, 0.0, bound=bound)
        if not result.passed:
            flagged_openvino.append(f"{what} {got.dtype}: {result}")
        wrong, wrong_bound = changed[f"c{i}"]
        with np.errstate(invalid="ignore"):
            moved = np.abs(wrong.astype(np.float64) - value) > 2.0 * bound
        if np.any(moved & ~np.isnan(value)):
            visible += 1
            if compare_tensors(f"c{i}", got, wrong, 0.0, 0.0, bound=wrong_bound).passed:
                missed_defects.append(f"{what} {got.dtype}")
    assert not flagged_openvino, f"{len(flagged_openvino)} of {len(cases)} flagged: " + "\n".join(flagged_openvino[:5])
    assert visible >= len(cases) * 0.8, f"the defect is visible in only {visible} of {len(cases)} cases"
    assert not missed_defects, f"{len(missed_defects)} of {visible} defects not flagged: {missed_defects[:10]}"


def test_rules_beside_their_kernels_give_the_same_bounds(tmp_path: Path, monkeypatch) -> None:
    """The end-to-end walk runs a large sum of products' rule beside its kernel (``BESIDE_ELEMENTS``): each output and
    bound is the one a rule run after its kernel gives, bit for bit (MatMuls, a Convolution and a ReduceSum, f32 and
    f16 weights)."""
    from ir_tools.runtime import executor

    rng = np.random.default_rng(5)
    x = ops8.parameter([1, 16, 48, 48], np.float32, name="x")
    conv = ops8.convolution(x, ops8.constant(rng.standard_normal((8, 16, 3, 3)).astype(np.float32)), [1, 1], [1, 1],
                            [1, 1], [1, 1])
    flat = ops8.reshape(conv, ops8.constant(np.array([1, 8, 2304], np.int64)), False)
    up = ops8.matmul(flat, ops8.constant(rng.standard_normal((2304, 64)).astype(np.float32)), False, False)
    halves = ops8.convert(ops8.constant(rng.standard_normal((96, 64)).astype(np.float16)), "f32")
    down = ops8.matmul(ops8.relu(up), halves, False, True)
    total = ops8.reduce_sum(down, ops8.constant(np.array([2], np.int64)), True)
    path = tmp_path / "sums.xml"
    ov.save_model(ov.Model([ops8.result(down), ops8.result(total)], [x], "sums"), path, compress_to_fp16=False)
    feed = {"x": rng.standard_normal((1, 16, 48, 48)).astype(np.float32)}
    awaited: list[object] = []
    original = executor._Awaited
    monkeypatch.setattr(executor, "_Awaited", lambda made: awaited.append(made) or original(made))
    beside = BoundedInterpreter(read_ir(path)).evaluate(feed)
    assert len(awaited) == 2  # the Convolution and the first MatMul (their largest inputs: 36864 and 147456 elements)
    monkeypatch.setattr(executor, "BESIDE_ELEMENTS", 1 << 62)
    after = BoundedInterpreter(read_ir(path)).evaluate(feed)
    assert beside.keys() == after.keys()
    for name, (value, bound) in beside.items():
        assert value.tobytes() == after[name][0].tobytes() and bound.tobytes() == after[name][1].tobytes(), name
