"""Adding an op is one module and one line of the opset table (docs/ARCHITECTURE.md, "Where new things go").

Bucketize-3 is defined in a module outside the package (typed attributes, a shape rule, a kernel and a rounding rule)
and registered by one line, ``opsets.register``, undone after each test. From then on the rest of ir_tools knows it:
``check_graph`` re-infers its shape and reports a wrong declared dim as E-SHAPE, the numpy executor runs it, and
``compare`` checks it against OpenVINO CPU (which has Bucketize) end to end and per layer. ir_tools models Bucketize
itself (ops/bucketize.py): the fixture sets that model aside for each test, so that Bucketize stands for an op
ir_tools lacks, as a user's own module would. (The example was ShuffleChannels-1 until ir_tools modelled it,
ops/movement_blocks.py.)
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from ir_tools.base.dims import Dim
from ir_tools.ir.model import Graph, Layer
from ir_tools.ops import opsets
from ir_tools.ops.bucketize import BUCKETIZE_3 as OWN
from ir_tools.ops.spec import OpSpec
from ir_tools.passes.builder import GraphBuilder, output_of
from ir_tools.passes.validate import check_graph
from ir_tools.runtime.executor import run

#: The whole of the new op, as its module under ir_tools/ops/ would hold it.
MODULE = '''
"""Bucketize-3: attributes, shape rule, reference kernel and rounding rule."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ir_tools.base.errors import OpValidationError
from ir_tools.ops import attrs as A
from ir_tools.ops.rounding import EXACT
from ir_tools.ops.spec import OpSpec, TensorType


@dataclass(frozen=True, slots=True)
class BucketizeAttrs:
    output_type: str = A.attr("output_type", A.enum("i64", "i32"), "i64")
    with_right_bound: bool = A.attr("with_right_bound", A.BOOL, True)


def _infer(a: BucketizeAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, buckets = inputs
    if buckets.shape is not None and len(buckets.shape) != 1:
        raise OpValidationError(f"buckets must be 1-D, got rank {len(buckets.shape)}")
    return [TensorType(a.output_type, data.shape)]


def _run(a: BucketizeAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, buckets = args  # bucket i holds buckets[i-1] < x <= buckets[i] (with_right_bound), else <= x <
    found = np.searchsorted(buckets, x, side="left" if a.with_right_bound else "right")
    return [found.astype(np.int64 if a.output_type == "i64" else np.int32)]


BUCKETIZE_3 = OpSpec("Bucketize", "Bucketize-3", BucketizeAttrs, (2, 2), 1, _infer, _run, rounding=EXACT)
'''

#: The buckets' bounds (sorted).
BOUNDS = np.array([-1.0, -0.25, 0.0, 0.5, 2.0], np.float32)


@pytest.fixture
def new_op(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           set_aside: Callable[[OpSpec], None]) -> Iterator[ModuleType]:
    """The op's module, imported from outside the package and registered for opset3..16, ir_tools' own Bucketize
    (``OWN``) set aside meanwhile, and the look-ups and spellings as they were after."""
    before = (opsets.specs(), bucketize_table())
    assert before[1] == [None] * 2 + [OWN] * 14 + [None] * (opsets.MAX_OPSET - 16)  # (Bucketize-3 is in opset3..16)
    set_aside(OWN)
    assert opsets.lookup("Bucketize", "opset3") is None and opsets.type_key("Bucketize") == "bucketize"
    (tmp_path / "bucketize_op.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("bucketize_op")
    opsets.register(module.BUCKETIZE_3, 3, 16)  # the one line
    try:
        yield module
    finally:
        opsets.unregister(module.BUCKETIZE_3)
        sys.modules.pop("bucketize_op", None)
        monkeypatch.undo()
        opsets._build()
        assert (opsets.specs(), bucketize_table()) == before and opsets.type_key("BUCKETIZE") == "Bucketize"


def bucketize_table() -> list[OpSpec | None]:
    """The spec a Bucketize layer of each opset means (None where none)."""
    return [opsets.lookup("bucketize", f"opset{n}") for n in range(1, opsets.MAX_OPSET + 1)]


def build(right: bool) -> tuple[Graph, Layer]:
    """x f32[1,6,2,3] -> Bucketize(``BOUNDS``, with_right_bound ``right``) -> y i64; the output dims and type come
    from the new shape rule."""
    graph = Graph()
    b = GraphBuilder(graph)
    x = b.parameter("x", "f32", tuple(Dim(n, n) for n in (1, 6, 2, 3)))
    attrs = b.attrs("Bucketize", "opset3", output_type="i64", with_right_bound=right)
    layer = b.add("Bucketize", "opset3", attrs, [x, b.const(BOUNDS, "bounds")], "bucketize", names="y")
    b.result(output_of(layer), "y")
    return graph, layer


def test_register_adds_the_op_and_unregister_removes_it(new_op: ModuleType) -> None:
    spec = new_op.BUCKETIZE_3
    assert opsets.lookup("bucketize", "opset16") is spec and opsets.lookup("Bucketize", "opset3") is spec
    assert spec in opsets.specs()
    opsets.unregister(spec)
    assert opsets.lookup("Bucketize", "opset3") is None and spec not in opsets.specs()
    opsets.register(spec, 3, 16)


def test_a_spelling_asked_before_register_is_read_as_the_op_after(new_op: ModuleType) -> None:
    """``type_key`` remembered its answers twice (two caches, one on the other) and ``register`` forgot one: a type
    spelled 'BUCKETIZE' asked before the op was registered stayed an op ir_tools does not model after it."""
    spec = new_op.BUCKETIZE_3
    opsets.unregister(spec)
    assert opsets.type_key("BUCKETIZE") == "bucketize"  # (not modelled: its spelling in lower case)
    opsets.register(spec, 3, 16)
    assert opsets.type_key("BUCKETIZE") == "Bucketize"


def test_check_reinfers_the_shape_and_reports_a_wrong_dim(new_op: ModuleType) -> None:
    graph, layer = build(True)
    assert layer.outputs[0].dims == (1, 6, 2, 3) and layer.outputs[0].precision == "I64"
    diags, result = check_graph(graph)
    assert [d for d in diags if d.severity == "error"] == []
    assert result is not None and layer not in result.not_inferred and layer.id in result.inferred
    layer.outputs[0].dims = (1, 6, 2, 4)
    (result_layer,) = graph.results()
    result_layer.inputs[0].dims = (1, 6, 2, 4)  # the edge agrees: only the rule can tell
    diags, _ = check_graph(graph)
    assert [d.code for d in diags if d.severity == "error"] == ["E-SHAPE"]


@pytest.mark.parametrize("right", [True, False])
def test_the_executor_runs_it(new_op: ModuleType, right: bool) -> None:
    graph, _ = build(right)
    x = np.resize(np.array([-2.0, -1.0, -0.5, -0.25, 0.0, 0.1, 0.5, 1.0, 2.0, 3.0], np.float32), (1, 6, 2, 3))
    (y,) = run(graph, {"x": x}).values()
    assert y.shape == (1, 6, 2, 3) and y.dtype == np.int64
    for value, bucket in zip(x.reshape(-1), y.reshape(-1), strict=True):  # the bounds below it, or at it too
        assert bucket == sum(bound < value if right else bound <= value for bound in BOUNDS)


@pytest.mark.openvino
@pytest.mark.parametrize("right", [True, False])
def test_compare_checks_it_against_openvino(new_op: ModuleType, right: bool) -> None:
    from ir_tools.runtime.numeric_check import CompareOptions, compare_model

    graph, _ = build(right)
    x = np.random.default_rng(0).standard_normal((1, 6, 2, 3)).astype(np.float32)
    report = compare_model(graph, {"x": x}, CompareOptions(per_layer=True))
    assert report.passed, report.to_dict()
    checked = [lay for lay in report.layers if lay.name == "bucketize"]
    assert checked and all(lay.passed and lay.outputs for lay in checked)
