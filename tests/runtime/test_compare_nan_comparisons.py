"""Greater and GreaterEqual at a NaN: OpenVINO CPU answers true on SSE4.1 and AVX-512, false on AVX2 (docs/SEMANTICS.md
Corrections), so their rounding rule allows either answer there and nowhere else; compare passes on any CPU."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ir_tools import Graph, GraphBuilder, write_ir
from ir_tools.base.dims import shape_from_ints
from ir_tools.cli import main
from ir_tools.ops.opsets import lookup


def operands() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.integers(-2, 3, (2, 3, 4)).astype(np.float32)
    y = rng.integers(-2, 3, (3, 1)).astype(np.float32)
    x[0, 1, 2] = x[1, 0, 0] = np.nan
    y[2, 0] = np.nan
    return x, y


@pytest.mark.parametrize("op", ["Greater", "GreaterEqual", "Less", "LessEqual", "Equal", "NotEqual"])
def test_the_bound_allows_either_answer_at_a_nan_only_where_the_cpus_disagree(op: str) -> None:
    spec = lookup(op, "opset1")
    x, y = operands()
    attrs = spec.attrs()
    outputs = spec.kernel(attrs, [x, y])
    (bound,) = spec.rounding(spec.kernel, attrs, [x, y], [np.zeros(()), np.zeros(())], outputs)
    nan = np.isnan(x) | np.isnan(y)
    want = nan.astype(float) if op in ("Greater", "GreaterEqual") else np.zeros(nan.shape)
    np.testing.assert_array_equal(np.broadcast_to(bound, nan.shape), want)
    assert nan.sum() == 10 and nan.sum() < nan.size  # 1 + 1 in x, a row of 4 in each x[i] from y


@pytest.mark.openvino
def test_compare_passes_comparisons_with_nans_on_this_cpu(tmp_path: Path, capsys) -> None:
    g = Graph("comparisons")
    b = GraphBuilder(g)
    x = b.parameter("x", "f32", shape_from_ints((2, 3, 4)))
    y = b.parameter("y", "f32", shape_from_ints((3, 1)))
    for op in ("Greater", "GreaterEqual", "Less", "Equal"):
        layer = b.add(op, "opset1", None, [x, y], op.lower())
        layer.outputs[0].names = op.lower()
        b.result((layer.id, layer.outputs[0].id), f"{op.lower()}/sink")
    write_ir(g, tmp_path / "m.xml")
    x_value, y_value = operands()
    np.savez(tmp_path / "in.npz", x=x_value, y=y_value)
    code = main(["compare", str(tmp_path / "m.xml"), "--inputs", str(tmp_path / "in.npz"), "--per-layer",
                 "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, [o for o in report["outputs"] if not o["passed"]]
    assert len(report["outputs"]) == 4
