"""GroupNormalization-12 migrated for OpenVINO 2023.0 (passes/downgrade/normalization.py) as Reshape + MVN-6 + Reshape
+ Multiply + Add: run on 2023.0 and on the current OpenVINO, within the rounding bound of the current OpenVINO on the
original.

The bound, per element: both the original and the rewrite compute z = (x - mean) / sqrt(var + eps) in f32, each
within R of the exact z, R being MVN-6's rounding rule (ops/normalization.py: the f32 sums of the mean and the
variance, the square root, the division and the rounding of z) on the data grouped as [N, num_groups, rest]; then
y = z * scale + bias, two more f32 roundings (u |z scale| and u |y|, u = 2^-24). So each is within
|scale| R + 2u (|z scale| + |y|) of the exact y, and the two within twice that.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.ops import attrs as A
from ir_tools.ops.opsets import lookup
from ir_tools.ops.rounding import ACCUMULATION_UNIT, EXACT
from tests.downgrade.runs import NEEDS_2023, assert_refused, migrate, migrated_runs

pytestmark = NEEDS_2023

EPSILONS = (1e-5, 1e-3, 0.25, 1e-9)


def group_norm_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray], list]:
    """``cases`` GroupNormalization-12 layers on Parameters (data of rank 2 to 5, 1 to 3 batches, 1 to 4 groups of 1
    to 3 channels; an offset up to 100 and a spread from 1e-3 to 10, a constant group now and then; scale and bias
    fed; one in ten with dynamic batch and spatial dims); the path, the inputs and per case (num_groups, epsilon)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset12 as o12

    params, results, inputs, attrs = [], [], {}, []
    for i in range(cases):
        groups, per = int(rng.integers(1, 5)), int(rng.integers(1, 4))
        shape = [int(rng.integers(1, 4)), groups * per, *(int(n) for n in rng.integers(1, 6, i % 4))]
        offset, spread = float(rng.uniform(-100, 100)) * (i % 3 == 0), float(10 ** rng.uniform(-3, 1))
        x = (offset + spread * rng.standard_normal(shape)).astype(np.float32)
        if i % 7 == 0:
            x[:, :per] = np.float32(offset)  # the first group of each batch constant: var 0, only eps
        eps = EPSILONS[i % len(EPSILONS)]
        declared = [-1, shape[1], *[-1] * (len(shape) - 2)] if i % 10 == 9 else shape  # dynamic: ShapeOf back
        data, scale, bias = (o1.parameter(s, np.float32, name=f"{w}{i}")
                             for w, s in (("x", declared), ("s", [shape[1]]), ("b", [shape[1]])))
        node = o12.group_normalization(data, scale, bias, groups, eps, name=f"gn{i}")
        params += [data, scale, bias]
        results.append(o1.result(node, name=f"y{i}"))
        inputs |= {f"x{i}": x, f"s{i}": (rng.standard_normal(shape[1]) * 2).astype(np.float32),
                   f"b{i}": rng.standard_normal(shape[1]).astype(np.float32)}
        attrs.append((groups, eps))
    ov.save_model(ov.Model(results, params, "group_norms"), str(path), compress_to_fp16=False)
    return path, inputs, attrs


def bound(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, groups: int, eps: float) -> np.ndarray:
    """The module doc's bound on the difference of two f32 implementations of the layer."""
    spec = lookup("MVN", "opset6")
    a = A.decode(spec.attrs, {"eps": repr(eps), "normalize_variance": "true", "eps_mode": "inside_sqrt"})
    grouped = [x.reshape(x.shape[0], groups, -1), np.array([2], np.int64)]
    z = spec.kernel(a, [grouped[0].astype(np.float64), grouped[1]])[0]
    (r,) = spec.rounding(spec.kernel, a, grouped, [EXACT, EXACT], [z.astype(np.float32)])
    channels = (1, -1) + (1,) * (x.ndim - 2)
    z, r = z.reshape(x.shape), np.broadcast_to(r, z.shape).reshape(x.shape)
    s, b = scale.astype(np.float64).reshape(channels), bias.astype(np.float64).reshape(channels)
    y = z * s + b
    return 2.0 * (np.abs(s) * r + 2.0 * ACCUMULATION_UNIT * (np.abs(z * s) + np.abs(y)))


def test_group_normalization_12_runs_on_2023_within_its_rounding_bound(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """300 seeded layers; the largest difference as a share of the bound, printed."""
    model, inputs, attrs = group_norm_model(tmp_path / "group_norms.xml", np.random.default_rng(12), 300)
    out, printed = migrate(model, capsys)
    assert len(ir_tools.read_ir(out).by_type("ShapeOf")) == 30
    assert "rewrote 300 x GroupNormalization-12 -> Reshape-1 + MVN-6 + Reshape-1 + Multiply-1 + Add-1" in printed
    want, runs = migrated_runs(model, out, inputs)
    worst = 0.0
    for runner, got in runs.items():
        assert set(got) == set(want) and len(want) == 300
        for i, (groups, eps) in enumerate(attrs):
            limit = bound(inputs[f"x{i}"], inputs[f"s{i}"], inputs[f"b{i}"], groups, eps)
            g, w = got[f"y{i}"], want[f"y{i}"]
            assert g.dtype == w.dtype == np.float32 and g.shape == w.shape, (runner, i)
            excess = np.abs(g.astype(np.float64) - w) / limit
            assert np.all(excess <= 1.0), (runner, i, float(excess.max()))
            worst = max(worst, float(excess.max()))
    print(f"largest difference: {worst:.3f} of the bound")


def test_group_normalization_12_refused_on_a_dynamic_rank(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset12 as o12

    x = o1.parameter(ov.PartialShape.dynamic(), np.float32, name="x")
    s, b = (o1.parameter([4], np.float32, name=n) for n in "sb")
    path = tmp_path / "dynamic_rank.xml"
    ov.save_model(ov.Model([o12.group_normalization(x, s, b, 2, 1e-5, name="gn")], [x, s, b], "gn"), str(path))
    assert_refused(path, "gn", "GroupNormalization of opset12", capsys)


def test_group_normalization_12_without_epsilon(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A GroupNormalization-12 written without epsilon, which OpenVINO reads as 0 (tests/test_read_by_design.py):
    migrated into an MVN-6 of eps 0 (the pass looked the attribute up as written: a KeyError)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset12 as o12

    x, s, b = (o1.parameter(shape, np.float32, name=n) for n, shape in (("x", [2, 4, 3]), ("s", [4]), ("b", [4])))
    model = tmp_path / "no_epsilon.xml"
    ov.save_model(ov.Model([o12.group_normalization(x, s, b, 2, 1e-5, name="gn")], [x, s, b], "gn"), str(model))
    model.write_text(re.sub(r' epsilon="[^"]*"', "", model.read_text(), count=1))
    assert "epsilon" not in model.read_text()
    out, _ = migrate(model, capsys)
    assert [layer.attrs["eps"] for layer in ir_tools.read_ir(out).by_type("MVN")] == ["0.0"]
