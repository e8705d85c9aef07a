"""Adding an op is one module and one line of the opset table (docs/ARCHITECTURE.md, "Where new things go").

ShuffleChannels-1, which ir_tools does not model, is defined in a module outside the package (typed attributes, a
shape rule, a kernel and a rounding rule) and registered by one line, ``opsets.register``, undone after each test.
From then on the rest of ir_tools knows it: ``check_graph`` re-infers its shape and reports a wrong declared dim as
E-SHAPE, the numpy executor runs it, and ``compare`` checks it against OpenVINO CPU (which has ShuffleChannels) end
to end and per layer.
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
"""ShuffleChannels-1: attributes, shape rule, reference kernel and rounding rule."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ir_tools.base.errors import OpValidationError
from ir_tools.ops import attrs as A
from ir_tools.ops.rounding import moves
from ir_tools.ops.spec import OpSpec, TensorType


@dataclass(frozen=True, slots=True)
class ShuffleChannelsAttrs:
    axis: int = A.attr("axis", A.INT, 1)
    group: int = A.attr("group", A.UINT, 1)


def _infer(a: ShuffleChannelsAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    (data,) = inputs
    if data.shape is not None:
        if not -len(data.shape) <= a.axis < len(data.shape):
            raise OpValidationError(f"axis {a.axis} is out of a rank-{len(data.shape)} input")
        channels = data.shape[a.axis]
        if a.group == 0 or (channels.is_static and channels.lo % a.group):
            raise OpValidationError(f"group {a.group} does not divide the {channels} channels")
    return [TensorType(data.element, data.shape)]


def _run(a: ShuffleChannelsAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    (x,) = args
    axis = a.axis % x.ndim
    c = x.shape[axis]
    y = x.reshape(*x.shape[:axis], a.group, c // a.group, *x.shape[axis + 1:])
    return [np.swapaxes(y, axis, axis + 1).reshape(x.shape)]


SHUFFLE_CHANNELS_1 = OpSpec("ShuffleChannels", "ShuffleChannels-1", ShuffleChannelsAttrs, (1, 1), 1, _infer, _run,
                            rounding=moves(0))
'''


@pytest.fixture
def new_op(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The op's module, imported from outside the package and registered for opset1..16."""
    (tmp_path / "shuffle_channels_op.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("shuffle_channels_op")
    opsets.register(module.SHUFFLE_CHANNELS_1, 1, 16)  # the one line
    try:
        yield module
    finally:
        opsets.unregister(module.SHUFFLE_CHANNELS_1)
        sys.modules.pop("shuffle_channels_op", None)


def build(group: int) -> tuple[Graph, Layer]:
    """x f32[1,6,2,3] -> ShuffleChannels(axis 1, ``group``) -> y; the output dims come from the new shape rule."""
    graph = Graph()
    b = GraphBuilder(graph)
    x = b.parameter("x", "f32", tuple(Dim(n, n) for n in (1, 6, 2, 3)))
    attrs = b.attrs("ShuffleChannels", "opset1", axis=1, group=group)
    layer = b.add("ShuffleChannels", "opset1", attrs, [x], "shuffle", names="y")
    b.result(output_of(layer), "y")
    return graph, layer


def test_register_adds_the_op_and_unregister_removes_it(new_op: ModuleType) -> None:
    spec = new_op.SHUFFLE_CHANNELS_1
    assert opsets.lookup("shufflechannels", "opset16") is spec and opsets.lookup("ShuffleChannels", "opset1") is spec
    assert spec in opsets.specs()
    opsets.unregister(spec)
    assert opsets.lookup("ShuffleChannels", "opset1") is None and spec not in opsets.specs()
    opsets.register(spec, 1, 16)


def test_check_reinfers_the_shape_and_reports_a_wrong_dim(new_op: ModuleType) -> None:
    graph, layer = build(2)
    assert layer.outputs[0].dims == (1, 6, 2, 3)
    diags, result = check_graph(graph)
    assert [d for d in diags if d.severity == "error"] == []
    assert result is not None and layer not in result.not_inferred and layer.id in result.inferred
    layer.outputs[0].dims = (1, 6, 2, 4)
    (result_layer,) = graph.results()
    result_layer.inputs[0].dims = (1, 6, 2, 4)  # the edge agrees: only the rule can tell
    diags, _ = check_graph(graph)
    assert [d.code for d in diags if d.severity == "error"] == ["E-SHAPE"]


@pytest.mark.parametrize("group", [2, 3])
def test_the_executor_runs_it(new_op: ModuleType, group: int) -> None:
    graph, _ = build(group)
    x = np.arange(36, dtype=np.float32).reshape(1, 6, 2, 3)
    (y,) = run(graph, {"x": x}).values()
    assert y.shape == (1, 6, 2, 3)
    per_group = 6 // group
    for c in range(6):  # output channel i * group + j is input channel j * (6 / group) + i
        i, j = divmod(c, group)
        assert (y[0, c] == x[0, j * per_group + i]).all()


@pytest.mark.openvino
@pytest.mark.parametrize("group", [2, 3])
def test_compare_checks_it_against_openvino(new_op: ModuleType, group: int) -> None:
    from ir_tools.runtime.numeric_check import CompareOptions, compare_model

    graph, _ = build(group)
    x = np.random.default_rng(0).standard_normal((1, 6, 2, 3)).astype(np.float32)
    report = compare_model(graph, {"x": x}, CompareOptions(per_layer=True))
    assert report.passed, report.to_dict()
    checked = [lay for lay in report.layers if lay.name == "shuffle"]
    assert checked and all(lay.passed and lay.outputs for lay in checked)
