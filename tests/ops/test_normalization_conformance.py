"""BatchNormInference-1/-5, MVN-1/-6, NormalizeL2-1 and LRN-1 (ops/normalization.py) against the installed OpenVINO.

(a) Shape rules: seeded cases (dynamic and interval dims, dynamic ranks, channel vectors that fit and
that do not, axes as Constants of every kind and as Parameters, every element type) built as one
OpenVINO node and through our registry path; same output type and partial shape, or both reject.

(b) Kernels: seeded cases batched into one model per test, run by our executor and by OpenVINO CPU;
f32 rtol 1e-5 / atol 1e-6, f16 one ulp (the CPU computes f16 in f32: at most one rounding apart).
The kernels accumulate in float64. MVN adds a bound for the CPU's f32 arithmetic, which a flat
tolerance cannot express where the values of a window nearly cancel: the CPU's mean of n values is
within n*u*M of the exact one (u = 2**-24, M the window's largest magnitude; Higham), and that error
is divided by the window's deviation D; the variance's relative error is about n*u as well. So each
element may be off by 2*(n + 2)*u*(M / D + |y|) (D = 1 without normalize_variance). Special values
(NaN, +-inf, -0, large magnitudes) go into BatchNormInference's data, where each element stands
alone, and into NormalizeL2 with empty axes (test_normalize_l2_empty_axes).

OpenVINO behaviours measured here (openvino 2026.4.1), beyond the specification:

- MVN-1 on CPU (ConvertMVN1ToMVN6) ignores ``reduction_axes`` but for whether it holds axis 1: it
  normalizes over 1.. when it does (or, without reduction_axes, when ``across_channels``), else over
  2.. ; eps goes inside the square root and is rounded to f32 first (1e-50 becomes 0, and an all-zero
  window gives NaN). Our kernel reduces over ``reduction_axes`` as the specification says; the cases
  give axes 1.. or 2.. only. OpenVINO's reader also takes MVN in ``version="opset1"`` (as MVN-1),
  although its opset1 table lacks MVN.
- NormalizeL2 with empty axes gives 1 for NaN (``x != 0``), 0 for +-0. Axes may be a Parameter
  (OpenVINO no longer asks for a Constant), repeated, negative ([-r, r-1]).
- LRN on CPU truncates ``bias`` to an integer (bias 1.5 computes as 1, 0.5 as 0, 2.7 as 2): the
  kernel uses the bias as given and the cases use whole biases (test_lrn_cpu_truncates_bias keeps
  the measurement). The CPU runs LRN over axis [1] or the spatial axes only (others are not
  compiled: "evaluate() is not implemented"); the window along an axis is
  [i - (size-1)/2, i + (size-1)/2], so an even size sums size-1 elements.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.base.dims import Dim
from ir_tools.base.errors import OpValidationError
from ir_tools.ops import attrs as A
from ir_tools.ops.opsets import lookup
from ir_tools.ops.spec import TensorType
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import Case, assert_all_pass, run_cases
from .test_elementwise_conformance import (
    ELEMENTS,
    F16_TOL,
    ShapeCase,
    compare_shapes,
    elementwise_case,
    node,
    random_dim,
    random_shape,
    values,
)

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 20267
FLOATS = ("f32", "f16", "f32", "f32", "bf16", "f64")

# ---------------------------------------------------------------------------------------------
# Shape rules


def element(rng: random.Random) -> str | None:
    return rng.choice(FLOATS) if rng.random() < 0.8 else rng.choice(ELEMENTS)


def batch_norm_case(rng: random.Random, version: int) -> ShapeCase:
    data = random_shape(rng) if rng.random() < 0.2 else random_shape(rng, rng.randint(2, 5))
    channel = data[1] if data and len(data) > 1 else Dim(rng.randint(0, 4), None)
    length = channel.lo if channel.is_static else rng.randint(0, 4)
    et = element(rng) if rng.random() < 0.3 else "f32"
    params, fit = [], rng.random() < 0.7
    for _ in range(4):  # mostly fitting the channel dim, or one of its dynamic or interval versions
        roll = rng.random()
        if fit or roll < 0.6:
            shape = (random_dim(rng, length),)
        elif roll < 0.9:
            shape = (random_dim(rng, rng.randint(0, 5)),)
        else:
            shape = random_shape(rng)
        params.append(TensorType(et if rng.random() < 0.95 else element(rng), shape))
    eps = rng.choice((1e-5, 1e-3, 0.0, 1e-3, 1e-5, 1e-3, 0.0, 1e-3, 1e-2, -1e-3))
    inputs = [TensorType(et, data), *params]
    if version == 1:
        inputs = [inputs[1], inputs[2], inputs[0], inputs[3], inputs[4]]
    return ShapeCase(f"opset{version}", "BatchNormInference", inputs, {"epsilon": eps})


def axes_input(rng: random.Random, rank: int, scalar: bool = True) -> TensorType | np.ndarray:
    """Axes: mostly valid Constants, sometimes out of range, of rank 2, or a Parameter of some shape."""
    roll = rng.random()
    if roll < 0.2:
        shape = rng.choice(((), (Dim(1, 1),), (Dim(2, 2),), (Dim(0, None),), None, (Dim(1, 1), Dim(1, 1))))
        return TensorType(rng.choice(("i64", "i32", "i64", "f32", "boolean", None)), shape)
    r = max(rank, 1)
    count = rng.randint(0, min(r, 3))
    axes = [rng.randint(-r, r - 1) for _ in range(count)]
    if roll < 0.3 and axes:
        axes[0] = rng.choice((r, -r - 1, r + 2))
    dtype = rng.choice((np.int64, np.int32))
    if roll > 0.95:
        return np.array([axes or [0]], dtype)  # rank 2
    if scalar and count == 1 and rng.random() < 0.3:
        return np.array(axes[0], dtype)
    return np.array(axes, dtype)


def normalization_case(rng: random.Random, op: str) -> ShapeCase:
    data = random_shape(rng) if rng.random() < 0.15 else random_shape(rng, rng.randint(1, 5))
    x = TensorType(element(rng), data)
    rank = len(data) if data is not None else rng.randint(1, 4)
    if op == "MVN-1":
        attrs = {"eps": rng.choice((1e-9, 1e-3)), "across_channels": rng.random() < 0.5,
                 "normalize_variance": rng.random() < 0.5}
        if rng.random() < 0.4:
            attrs["reduction_axes"] = sorted({rng.randint(0, rank + 1) for _ in range(rng.randint(1, 3))})
        return ShapeCase("opset2", "MVN", [x], attrs)
    if op == "MVN-6":
        attrs = {"eps": 1e-3, "normalize_variance": rng.random() < 0.5,
                 "eps_mode": rng.choice(("inside_sqrt", "outside_sqrt"))}
        return ShapeCase("opset6", "MVN", [x, axes_input(rng, rank, scalar=rng.random() < 0.3)], attrs)
    if op == "NormalizeL2":
        return ShapeCase("opset1", "NormalizeL2", [x, axes_input(rng, rank)],
                         {"eps": 1e-6, "eps_mode": rng.choice(("add", "max"))})
    axes = axes_input(rng, rank, scalar=rng.random() < 0.3)
    if isinstance(axes, np.ndarray) and rng.random() < 0.3:
        axes = np.abs(axes)  # LRN refuses negative axes: mostly valid ones
    return ShapeCase("opset1", "LRN", [x, axes], {"alpha": 1e-4, "beta": 0.75, "bias": 1.0, "size": rng.randint(1, 5)})


def normalization_shape_cases(seed: int, count: int) -> list[ShapeCase]:
    rng = random.Random(seed)
    kinds = ("BN-1", "BN-5", "MVN-1", "MVN-6", "NormalizeL2", "LRN")
    cases = []
    for i in range(count):
        kind = kinds[i % len(kinds)]
        cases.append(batch_norm_case(rng, int(kind[-1])) if kind.startswith("BN") else normalization_case(rng, kind))
    return cases


@pytest.mark.parametrize("batch", range(2))
def test_normalization_shape_rules(batch: int) -> None:
    cases = normalization_shape_cases(SEED + batch, 600)
    failures, rejected = compare_shapes(cases)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:25])
    assert 0.1 * len(cases) < rejected < 0.7 * len(cases), f"{rejected} of {len(cases)} rejected: a poor mix"


# ---------------------------------------------------------------------------------------------
# Kernels


def shape_of(rng: np.random.Generator, low_rank: int = 2, high_rank: int = 5) -> tuple[int, ...]:
    return tuple(int(n) for n in rng.integers(1, 5, rng.integers(low_rank, high_rank + 1)))


def mvn_bound(x: np.ndarray, axes: Sequence[int], normalize: bool, eps: float,
              inside: bool) -> Callable[[], np.ndarray]:
    """The MVN error bound of the module doc, per element."""

    def bound() -> np.ndarray:
        w = x.astype(np.float64)
        axes_ = tuple(sorted({a % w.ndim for a in axes}))
        n = int(np.prod([w.shape[a] for a in axes_])) if axes_ else 1
        m = np.max(np.abs(w), axis=axes_, keepdims=True) if axes_ else np.abs(w)
        c = w - (np.mean(w, axis=axes_, keepdims=True) if axes_ else w)
        d = np.ones_like(m)
        if normalize:
            var = np.mean(c * c, axis=axes_, keepdims=True) if axes_ else c * c
            d = np.sqrt(var + eps) if inside else np.sqrt(var) + eps
        with np.errstate(all="ignore"):
            y = c / d
            return np.nan_to_num(2 * (n + 2) * 2.0**-24 * (m / d + np.abs(y)), nan=np.inf, posinf=np.inf)

    return bound


def normalization_kernel_cases(rng: np.random.Generator, count: int) -> list[Case]:
    cases = []
    for i in range(count):
        dtype = (np.float32, np.float32, np.float16)[i % 3]
        kind = i % 6
        if kind in (0, 1):  # BatchNormInference-1 and -5
            shape = shape_of(rng)
            c = shape[1]
            x = values(rng, shape, dtype)
            gamma, beta, mean = (values(rng, (c,), dtype, specials=()) for _ in range(3))
            var = (np.abs(values(rng, (c,), dtype, specials=())) + 0.05).astype(dtype)
            eps = float(rng.choice((1e-5, 1e-3, 0.1, 0.0)))
            ins = [x, gamma, beta, mean, var] if kind == 1 else [gamma, beta, x, mean, var]
            consts = tuple(j for j in range(5) if (j != (0 if kind == 1 else 2)) and rng.random() < 0.5)
            cases.append(elementwise_case(f"BatchNormInference-{5 if kind else 1} {np.dtype(dtype).name}"
                                          f"{list(shape)} eps {eps}", ins,
                                          node(f"opset{5 if kind else 1}", "BatchNormInference", {"epsilon": eps}),
                                          consts))
        elif kind == 2:  # MVN-1: axes 1.. or 2.., as across_channels or as reduction_axes
            shape = shape_of(rng, 3, 5)
            across = bool(rng.random() < 0.5)
            attrs = {"eps": float(rng.choice((1e-9, 1e-3, 0.5))), "normalize_variance": bool(rng.random() < 0.7)}
            if rng.random() < 0.5:
                attrs["across_channels"] = across
            else:
                attrs["reduction_axes"] = list(range(1 if across else 2, len(shape)))
            x = (values(rng, shape, dtype, float(rng.choice((1.0, 10.0))), specials=()) + rng.choice((0, 3)))
            x = x.astype(dtype)
            bound = mvn_bound(x, range(1 if across else 2, len(shape)), attrs["normalize_variance"],
                              float(np.float32(attrs["eps"])), inside=True)
            cases.append(elementwise_case(f"MVN-1 {np.dtype(dtype).name}{list(shape)} {attrs}", [x],
                                          node("opset2", "MVN", attrs), bound=bound))
        elif kind == 3:  # MVN-6
            shape = shape_of(rng, 1, 5)
            r = len(shape)
            axes = sorted({int(a) for a in rng.integers(-r, r, int(rng.integers(1, r + 1)))})
            attrs = {"eps": float(rng.choice((1e-9, 1e-3, 0.5))), "normalize_variance": bool(rng.random() < 0.7),
                     "eps_mode": str(rng.choice(("inside_sqrt", "outside_sqrt")))}
            x = (values(rng, shape, dtype, float(rng.choice((1.0, 10.0))), specials=()) + rng.choice((0, 3)))
            x = x.astype(dtype)
            bound = mvn_bound(x, axes, attrs["normalize_variance"], float(np.float32(attrs["eps"])),
                              attrs["eps_mode"] == "inside_sqrt")
            cases.append(elementwise_case(f"MVN-6 {np.dtype(dtype).name}{list(shape)} axes {axes} {attrs}",
                                          [x, np.array(axes, rng.choice((np.int64, np.int32)))],
                                          node("opset6", "MVN", attrs), consts=(1,), bound=bound))
        elif kind == 4:  # NormalizeL2
            shape = shape_of(rng, 1, 4)
            r = len(shape)
            axes = [int(a) for a in rng.integers(-r, r, int(rng.integers(1, r + 1)))]
            eps = float(rng.choice((1e-12, 1e-6, 0.5, 2.0)))
            attrs = {"eps": eps, "eps_mode": str(rng.choice(("add", "max")))}
            x = values(rng, shape, dtype, specials=())
            cases.append(elementwise_case(f"NormalizeL2 {np.dtype(dtype).name}{list(shape)} axes {axes} {attrs}",
                                          [x, np.array(axes, np.int64)], node("opset1", "NormalizeL2", attrs),
                                          consts=(1,)))
        else:  # LRN over the channels or the spatial axes
            shape = shape_of(rng, 3, 4)
            axes = [1] if rng.random() < 0.5 else list(range(2, len(shape)))
            attrs = {"alpha": float(rng.choice((1e-4, 0.1, 1.0))), "beta": float(rng.choice((0.5, 0.75, 1.0))),
                     "bias": float(rng.choice((1.0, 2.0))), "size": int(rng.integers(1, 6))}
            cases.append(elementwise_case(f"LRN {np.dtype(dtype).name}{list(shape)} axes {axes} {attrs}",
                                          [values(rng, shape, dtype, specials=()), np.array(axes, np.int64)],
                                          node("opset1", "LRN", attrs), consts=(1,)))
    return cases


def test_normalization_kernels(tmp_path: Path) -> None:
    cases = normalization_kernel_cases(np.random.default_rng(SEED), 300)
    failures = run_cases(cases, tmp_path)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])


def test_normalize_l2_empty_axes(tmp_path: Path) -> None:
    """x / x over no axis: 0 for +-0, 1 for anything else, NaN included (measured on CPU), of Const axes (known at
    shape inference: the spec's ``folded`` kernel)."""
    x = np.array([[0.0, -0.0, 1.5, -2.0], [np.nan, np.inf, -np.inf, 1e-30]], np.float32)
    empty = ov.op.Constant(ov.Type.i64, ov.Shape([0]), [])
    for mode in ("add", "max"):
        p = ops1.parameter([2, 4], np.float32)
        n = NodeFactory("opset1").create("NormalizeL2", [p.output(0), empty.output(0)], {"eps": 1e-6, "eps_mode": mode})
        want = ov.Core().compile_model(ov.Model([n.output(0)], [p]), "CPU", CPU_CONFIG)([x])[0]
        spec = lookup("NormalizeL2", "opset1")
        got = spec.compute(A.decode(spec.attrs, {"eps": "1e-6", "eps_mode": mode}), [x, np.zeros(0, np.int64)],
                           folded=True)[0]
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_normalize_l2_of_fed_axes(tmp_path: Path) -> None:
    """Axes fed when the model runs (empty ones among them), where CPU computes otherwise than of Const axes: x over
    its own norm over no axis (-2 is -1, 1e-4 with eps 1e-6 in max mode 0.1), a NaN sum as eps in max mode; as
    the executor runs it (``known_at_inference``), within f32 rounding."""
    x = np.array([[0.0, -0.0, 1.5, -2.0, 1e-4, -3e-4], [np.nan, np.inf, -np.inf, 1e-30, 0.5, -1e-3]], np.float32)
    cases = [Case(f"NormalizeL2 axes {axes} {mode} eps {eps}", [x, np.array(axes, np.int64)],
                  lambda ns, m=mode, e=eps: NodeFactory("opset1").create("NormalizeL2", [n.output(0) for n in ns],
                                                                         {"eps": e, "eps_mode": m}),
                  limits=(lambda w: 4e-7 * np.abs(w),))
             for axes in ([], [1], [-1, 0]) for mode in ("add", "max") for eps in (1e-6, 0.5)]
    assert_all_pass(cases, tmp_path)


def test_lrn_cpu_truncates_bias(tmp_path: Path) -> None:
    """OpenVINO CPU computes LRN with int(bias); the kernel keeps the bias, so they differ for bias 1.5."""
    x = values(np.random.default_rng(SEED), (1, 5, 3, 3), np.float32, specials=())
    spec = lookup("LRN", "opset1")
    axes = np.array([1], np.int64)

    def ours(bias: float) -> np.ndarray:
        raw = {"alpha": "0.1", "beta": "0.75", "bias": str(bias), "size": "3"}
        return spec.kernel(A.decode(spec.attrs, raw), [x, axes])[0]

    p = ops1.parameter(list(x.shape), np.float32)
    n = NodeFactory("opset1").create("LRN", [p.output(0), ops1.constant(axes).output(0)],
                                     {"alpha": 0.1, "beta": 0.75, "bias": 1.5, "size": 3})
    cpu = ov.Core().compile_model(ov.Model([n.output(0)], [p]), "CPU", CPU_CONFIG)([x])[0]
    np.testing.assert_allclose(cpu, ours(1.0), rtol=1e-5, atol=1e-6)
    assert np.max(np.abs(cpu - ours(1.5))) > 0.01


def test_mvn1_cpu_ignores_reduction_axes() -> None:
    """CPU: reduction_axes [0, 2] normalizes over 2.. (no axis 1 among them); the kernel follows the axes."""
    x = values(np.random.default_rng(SEED), (2, 3, 4, 5), np.float32, specials=())
    attrs = {"eps": 0.5, "normalize_variance": True, "reduction_axes": [0, 2]}
    p = ops1.parameter(list(x.shape), np.float32)
    n = NodeFactory("opset2").create("MVN", [p.output(0)], attrs)
    cpu = ov.Core().compile_model(ov.Model([n.output(0)], [p]), "CPU", CPU_CONFIG)([x])[0]
    spec = lookup("MVN", "opset2")
    mvn = lambda raw: spec.kernel(A.decode(spec.attrs, raw), [x])[0]  # noqa: E731
    on = {"eps": "0.5", "normalize_variance": "true"}
    np.testing.assert_allclose(cpu, mvn(on | {"across_channels": "false"}), rtol=1e-5, atol=1e-6)
    assert np.max(np.abs(cpu - mvn(on | {"reduction_axes": "0, 2"}))) > 0.1


def test_batch_norm_input_orders_and_refusals() -> None:
    rng = np.random.default_rng(SEED)
    x = values(rng, (2, 3, 4), np.float32, specials=())
    g, b, m = (values(rng, (3,), np.float32, specials=()) for _ in range(3))
    v = np.abs(values(rng, (3,), np.float32, specials=())) + 0.1
    v1, v5 = lookup("BatchNormInference", "opset4"), lookup("BatchNormInference", "opset5")
    attrs = A.decode(v5.attrs, {"epsilon": "0.001"})
    np.testing.assert_array_equal(v1.kernel(attrs, [g, b, x, m, v])[0], v5.kernel(attrs, [x, g, b, m, v])[0])
    want = (x - m[:, None]) / np.sqrt(v[:, None] + 0.001) * g[:, None] + b[:, None]
    np.testing.assert_allclose(v5.kernel(attrs, [x, g, b, m, v])[0], want, rtol=1e-6)
    with pytest.raises(OpValidationError):
        v5.kernel(attrs, [x, g[:2], b, m, v])
    assert F16_TOL[0] == 2.0**-10
