"""Adding an op is one module and one line of the opset table (docs/ARCHITECTURE.md, "Where new things go").

DepthToSpace-1, which ir_tools does not model, is defined in a module outside the package (typed attributes, a
shape rule on intervals, a kernel and a rounding rule) and registered by one line, ``opsets.register``, undone
after each test. From then on the rest of ir_tools knows it: ``check_graph`` re-infers its shape and reports a
wrong declared dim as E-SHAPE, the numpy executor runs it, and ``compare`` checks it against OpenVINO CPU (which
has DepthToSpace) end to end and per layer.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from ir_tools.base.dims import Dim
from ir_tools.ir.model import Graph, Layer
from ir_tools.ops import opsets
from ir_tools.passes.builder import GraphBuilder, output_of
from ir_tools.passes.validate import check_graph
from ir_tools.runtime.executor import run

#: The whole of the new op, as its module under ir_tools/ops/ would hold it.
MODULE = '''
"""DepthToSpace-1: attributes, shape rule, reference kernel and rounding rule."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ir_tools.base.errors import OpValidationError
from ir_tools.ops import attrs as A
from ir_tools.ops.intervals import ddiv, dims, dmul, iv
from ir_tools.ops.rounding import moves
from ir_tools.ops.spec import OpSpec, TensorType


@dataclass(frozen=True, slots=True)
class DepthToSpaceAttrs:
    mode: str = A.attr("mode", A.enum("blocks_first", "depth_first"))
    block_size: int = A.attr("block_size", A.UINT, 1)


def _infer(a: DepthToSpaceAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    (data,) = inputs
    if data.shape is None:
        return [TensorType(data.element, None)]
    if len(data.shape) < 3:
        raise OpValidationError(f"data of rank {len(data.shape)}: it must be at least 3")
    divisor = a.block_size ** (len(data.shape) - 2)
    channels = data.shape[1]
    if channels.is_static and channels.lo % divisor:
        raise OpValidationError(f"{channels.lo} channels are not divisible by block_size ** spatial rank ({divisor})")
    step = (a.block_size, a.block_size)
    out = [ddiv(iv(channels), divisor)] + [dmul(iv(d), step) for d in data.shape[2:]]
    return [TensorType(data.element, (data.shape[0], *dims(out)))]


def _run(a: DepthToSpaceAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    (x,) = args
    n, c, *spatial = x.shape
    k, bs = len(spatial), a.block_size
    depth = c // bs**k
    if a.mode == "blocks_first":
        y = x.reshape(n, *[bs] * k, depth, *spatial)
        order = [0, k + 1] + [i for j in range(k) for i in (k + 2 + j, 1 + j)]
    else:
        y = x.reshape(n, depth, *[bs] * k, *spatial)
        order = [0, 1] + [i for j in range(k) for i in (k + 2 + j, 2 + j)]
    return [y.transpose(order).reshape(n, depth, *(d * bs for d in spatial))]


DEPTH_TO_SPACE_1 = OpSpec("DepthToSpace", "DepthToSpace-1", DepthToSpaceAttrs, (1, 1), 1, _infer, _run,
                          rounding=moves(0))
'''


@pytest.fixture
def new_op(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The op's module, imported from outside the package and registered for opset1..16."""
    (tmp_path / "depth_to_space_op.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("depth_to_space_op")
    opsets.register(module.DEPTH_TO_SPACE_1, 1, 16)  # the one line
    try:
        yield module
    finally:
        opsets.unregister(module.DEPTH_TO_SPACE_1)
        sys.modules.pop("depth_to_space_op", None)


def build(mode: str) -> tuple[Graph, Layer]:
    """x f32[1,8,2,3] -> DepthToSpace(block_size 2) -> y; the output dims come from the new shape rule."""
    graph = Graph()
    b = GraphBuilder(graph)
    x = b.parameter("x", "f32", tuple(Dim(n, n) for n in (1, 8, 2, 3)))
    attrs = b.attrs("DepthToSpace", "opset1", mode=mode, block_size=2)
    layer = b.add("DepthToSpace", "opset1", attrs, [x], "d2s", names="y")
    b.result(output_of(layer), "y")
    return graph, layer


def test_register_adds_the_op_and_unregister_removes_it(new_op: ModuleType) -> None:
    spec = new_op.DEPTH_TO_SPACE_1
    assert opsets.lookup("depthtospace", "opset16") is spec and opsets.lookup("DepthToSpace", "opset1") is spec
    assert spec in opsets.specs()
    opsets.unregister(spec)
    assert opsets.lookup("DepthToSpace", "opset1") is None and spec not in opsets.specs()
    opsets.register(spec, 1, 16)


def test_check_reinfers_the_shape_and_reports_a_wrong_dim(new_op: ModuleType) -> None:
    graph, layer = build("blocks_first")
    assert layer.outputs[0].dims == (1, 2, 4, 6)
    diags, result = check_graph(graph)
    assert [d for d in diags if d.severity == "error"] == []
    assert result is not None and layer not in result.not_inferred and layer.id in result.inferred
    layer.outputs[0].dims = (1, 2, 4, 7)
    (result_layer,) = graph.results()
    result_layer.inputs[0].dims = (1, 2, 4, 7)  # the edge agrees: only the rule can tell
    diags, _ = check_graph(graph)
    assert [d.code for d in diags if d.severity == "error"] == ["E-SHAPE"]


@pytest.mark.parametrize("mode", ["blocks_first", "depth_first"])
def test_the_executor_runs_it(new_op: ModuleType, mode: str) -> None:
    graph, _ = build(mode)
    x = np.arange(48, dtype=np.float32).reshape(1, 8, 2, 3)
    (y,) = run(graph, {"x": x}).values()
    assert y.shape == (1, 2, 4, 6)
    for c in range(2):
        for h in range(4):
            for w in range(6):
                block = (h % 2) * 2 + w % 2
                source = block * 2 + c if mode == "blocks_first" else c * 4 + block
                assert y[0, c, h, w] == x[0, source, h // 2, w // 2]


@pytest.mark.openvino
@pytest.mark.parametrize("mode", ["blocks_first", "depth_first"])
def test_compare_checks_it_against_openvino(new_op: ModuleType, mode: str) -> None:
    from ir_tools.runtime.numeric_check import CompareOptions, compare_model

    graph, _ = build(mode)
    x = np.random.default_rng(0).standard_normal((1, 8, 2, 3)).astype(np.float32)
    report = compare_model(graph, {"x": x}, CompareOptions(per_layer=True))
    assert report.passed, report.to_dict()
    checked = [lay for lay in report.layers if lay.name == "d2s"]
    assert checked and all(lay.passed and lay.outputs for lay in checked)
