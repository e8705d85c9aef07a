"""`compare` on what the rewrites write: every layer now runs in the reference, so outputs are compared
end to end and nothing is left "not checked".

The rewrites emit Pad, Slice, StridedSlice, Add, Reshape, ShapeOf, Gather and Multiply besides AvgPool: the
migrated and converted samples hold Pad, StridedSlice, Add, Reshape and Gather, the last test builds Slice,
Multiply and ShapeOf with emit. mixed_network holds Convolution and ReLU. Each test also runs ``--per-layer`` so
that every one of those layers is compared on its own, fed OpenVINO's activations.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ir_tools import read_ir, write_ir
from ir_tools.base.dims import Dim
from ir_tools.cli import main
from ir_tools.ir.model import Graph
from ir_tools.ir.names import output_names
from ir_tools.passes.builder import GraphBuilder
from ir_tools.passes.exact_pool import WindowSpec, emit
from ir_tools.runtime.numeric_check import constant_layers
from tests.conftest import ROOT

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

PLUMBING = {"Parameter", "Const", "Result"}


def compare_json(capsys, *args: str) -> tuple[int, dict]:
    code = main(["compare", *args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def assert_compared_end_to_end(capsys, model: Path, support_ops: set[str]) -> dict:
    """Exit 0 with every output compared by running the whole model; per layer, every layer compared."""
    graph = read_ir(model)
    assert support_ops <= {layer.type for layer in graph.layers()}, "the model lacks the ops this test is about"
    code, report = compare_json(capsys, str(model))
    assert code == 0 and report["passed"], report
    assert report["not_checked"] == []
    assert report["layers"] == [], "a passing, executable model is compared end to end only"
    assert {o["name"] for o in report["outputs"]} == set(output_names(graph).values())
    assert all(o["passed"] for o in report["outputs"])
    code, per_layer = compare_json(capsys, str(model), "--per-layer")
    assert code == 0 and per_layer["not_checked"] == [], per_layer["not_checked"]
    checked = {lay["name"] for lay in per_layer["layers"]}
    folded = constant_layers(graph)  # constant subgraphs are computed, not compared, unless asked
    assert {layer.name for layer in graph.layers() if layer.type not in PLUMBING and layer.id not in folded} <= checked
    assert per_layer["folded_constants"] == sum(1 for lid in folded if not graph.layer(lid).is_a("Const"))
    code, everything = compare_json(capsys, str(model), "--per-layer", "--compare-constants")
    assert code == 0 and everything["folded_constants"] == 0
    assert {layer.name for layer in graph.layers() if layer.type not in PLUMBING} <= {
        lay["name"] for lay in everything["layers"]}
    return report


def test_migrated_avgpool14_16(tmp_path, capsys):
    migrated = tmp_path / "migrated.xml"
    assert main(["migrate", str(ROOT / "samples/avgpool14_16_mixed.xml"), "-o", str(migrated)]) == 0
    capsys.readouterr()
    assert_compared_end_to_end(capsys, migrated, {"Pad", "StridedSlice", "Add", "Reshape", "Gather"})


def test_converted_onnx(tmp_path, capsys):
    converted = tmp_path / "converted.xml"
    assert main(["convert-onnx", str(ROOT / "samples/tricky_avgpool.onnx"), "-o", str(converted)]) == 0
    capsys.readouterr()
    assert_compared_end_to_end(capsys, converted, {"Pad", "StridedSlice", "Add", "Reshape", "Gather"})


def test_mixed_network_runs_convolution_and_relu(capsys):
    assert_compared_end_to_end(capsys, ROOT / "samples/mixed_network.xml", {"Convolution", "ReLU"})


@pytest.mark.parametrize("spec, ops", [
    # pads_begin -1: no window reads element 0 of either axis, so emit slices it away
    (WindowSpec((8, 7), (2, 3), (2, 2), (1, 1), (-1, -1), (3, 2), False, (0, 0), (8, 7)), {"Slice"}),
    # dilation 2: the third window (taps 4 and 6) reads no data and must be NaN, 0 times 1/0 by a Multiply
    (WindowSpec((4, 4), (2, 2), (2, 2), (2, 2), (0, 0), (3, 3), False, (0, 0), (4, 4)), {"StridedSlice", "Multiply"}),
    # every window divided by the whole kernel: one AvgPool divides, a Reshape to the ShapeOf of the sums
    (WindowSpec((5, 5), (2, 2), (1, 1), (2, 2), (0, 0), (3, 3), True, (0, 0), (5, 5)), {"ShapeOf", "Reshape"}),
], ids=["slice", "no-tap", "one-count"])
def test_emitted_slice_and_windows_without_a_tap(tmp_path, capsys, spec, ops):
    """The ops emit writes that no sample holds, in a model built with emit and written as IR."""
    graph = Graph("emitted")
    builder = GraphBuilder(graph)
    x = builder.parameter("x", "f32", (Dim(1, 1), Dim(3, 3), *(Dim(n, n) for n in spec.lengths)))
    out = emit(builder, x, spec, "pool")
    graph.layer(out[0]).outputs[0].names = "y"
    builder.result(out, "y/sink")
    write_ir(graph, tmp_path / "emitted.xml")
    report = assert_compared_end_to_end(capsys, tmp_path / "emitted.xml", ops)
    if "Multiply" in ops:
        assert report["outputs"][0]["nan_expected"] > 0, "the case must have windows without data"
