"""check and compare on TensorIterator, Loop and If (issue 23, part 5): the bodies re-inferred, executed by the
reference and compared inside, on OpenVINO, iteration by iteration.

One model built by OpenVINO's Python API (tests/ops/control_flow_cases.each_kind: a TensorIterator, a Loop with a trip
count and the current iteration, a Loop ended by its body's condition, an If on a constant and one on a runtime
condition) and saved as IR; then a copy with one Const of a Loop body changed in its 4th significant digit, compared
against OpenVINO's outputs and activations saved from the original.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from ir_tools import read_ir
from ir_tools.cli import main
from ir_tools.ir.bodies import subgraphs
from ir_tools.ops.inverse import INVERSE_14
from ir_tools.ops.opsets import lookup
from ir_tools.ops.rounding import EXACT
from ir_tools.ops.spec import OpSpec
from ir_tools.passes.shapes import propagate
from ir_tools.runtime.executor import bind

from ..ops.control_flow_cases import each_kind, if_of

pytestmark = pytest.mark.openvino

BODY_OPS = ("TensorIterator", "Loop", "If")


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    xml = tmp_path_factory.mktemp("control_flow") / "each_kind.xml"
    ov.save_model(each_kind(3)[0], xml, compress_to_fp16=False)
    return xml


def _json(capsys: pytest.CaptureFixture, args: list[str]) -> tuple[int, dict]:
    capsys.readouterr()
    code = main([*args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_check_reinfers_every_body(model: Path, capsys: pytest.CaptureFixture) -> None:
    code, found = _json(capsys, ["check", str(model)])
    assert code == 0 and found["files"][0]["diagnostics"] == []
    result = propagate(read_ir(model))
    assert not result.diagnostics
    assert not [layer.name for layer in result.not_inferred]  # the three ops re-inferred, bodies included


def test_compare_per_layer_checks_inside_the_bodies(model: Path, capsys: pytest.CaptureFixture) -> None:
    code, report = _json(capsys, ["compare", str(model), "--per-layer"])
    assert code == 0 and report["passed"]
    assert report["not_checked"] == []
    bodies = {(b["layer"], b["body"]): b for b in report["bodies"]}
    assert set(bodies) == {("ti0", "body"), ("loop0", "body"), ("loop1", "body"), ("if0", "then_body"),
                           ("if1", "then_body" if report_cond(model) else "else_body")}
    for b in bodies.values():
        assert b["compared"] == list(range(b["iterations"])) and b["layers_compared"] > 0
    inner = [lay for lay in report["layers"] if "/iteration " in lay["name"] or "_body/" in lay["name"]]
    assert len(inner) == sum(b["layers_compared"] for b in bodies.values())
    many = [name for (name, _), b in bodies.items() if b["iterations"] > 1]
    assert many and all(any(lay["name"].startswith(f"{name}/iteration 1/") for lay in inner) for name in many)


def report_cond(model: Path) -> bool:
    return bool(each_kind(3)[1]["if1_c"])


def test_a_changed_body_constant_fails_and_is_named(model: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    saved = tmp_path / "saved.npz"
    assert main(["compare", str(model), "--per-layer", "--save-outputs", str(saved)]) == 0
    graph = read_ir(model)
    loop = next(layer for layer in graph.layers() if layer.name == "loop0")
    body = subgraphs(graph, loop)[0].graph
    multiply = next(layer for layer in body.layers() if layer.is_a("Multiply"))
    scale = next(body.layer(e.from_layer) for e in body.in_edges(multiply.id) if body.layer(e.from_layer).is_a("Const"))
    changed = tmp_path / "changed.xml"
    shutil.copy(model, changed)
    data = bytearray(model.with_suffix(".bin").read_bytes())
    offset = int(scale.attrs["offset"])
    value = np.frombuffer(bytes(data[offset:offset + 4]), np.float32)[0]
    data[offset:offset + 4] = np.float32(value * 1.001).tobytes()
    changed.with_suffix(".bin").write_bytes(bytes(data))
    code, report = _json(capsys, ["compare", str(changed), "--per-layer", "--load-outputs", str(saved)])
    assert code == 1 and not report["passed"]
    assert report["first_divergence"]["name"] == f"loop0/iteration 0/{multiply.name}"


def _onnx_loop_and_if(path: Path) -> None:
    """An ONNX model: a Loop of 4 iterations (y = 0.5 y + i, each y a scan output) and an If on the sign of x's sum."""
    from onnx import TensorProto as T
    from onnx import checker, helper, save

    from tests.onnx.models import make_model

    def info(name: str, kind: int, shape: list[int]):
        return helper.make_tensor_value_info(name, kind, shape)

    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["fi"], to=T.FLOAT),
         helper.make_node("Constant", [], ["half"], value=helper.make_tensor("h", T.FLOAT, [], [0.5])),
         helper.make_node("Mul", ["y_in", "half"], ["m"]), helper.make_node("Add", ["m", "fi"], ["y_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("Identity", ["y_out"], ["scan"])],
        "body", [info("i", T.INT64, []), info("cond_in", T.BOOL, []), info("y_in", T.FLOAT, [2, 3])],
        [info("cond_out", T.BOOL, []), info("y_out", T.FLOAT, [2, 3]), info("scan", T.FLOAT, [2, 3])])
    then = helper.make_graph([helper.make_node("Relu", ["x"], ["t"])], "then", [], [info("t", T.FLOAT, [2, 3])])
    orelse = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [], [info("e", T.FLOAT, [2, 3])])
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["M"], value=helper.make_tensor("M", T.INT64, [], [4])),
         helper.make_node("Constant", [], ["c"], value=helper.make_tensor("c", T.BOOL, [], [True])),
         helper.make_node("Loop", ["M", "c", "x"], ["y", "ys"], body=body),
         helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0), helper.make_node("Greater", ["s", "zero"], ["pos"]),
         helper.make_node("If", ["pos"], ["z"], then_branch=then, else_branch=orelse)],
        "loop_and_if", [info("x", T.FLOAT, [2, 3])],
        [info("y", T.FLOAT, [2, 3]), info("ys", T.FLOAT, [4, 2, 3]), info("z", T.FLOAT, [2, 3])],
        [helper.make_tensor("zero", T.FLOAT, [], [0.0])])
    model = make_model(graph, 13)
    checker.check_model(model)
    save(model, str(path))


def test_an_onnx_loop_and_if_converted_by_openvino(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    _onnx_loop_and_if(tmp_path / "loop_and_if.onnx")
    xml = tmp_path / "loop_and_if.xml"
    ov.save_model(ov.convert_model(tmp_path / "loop_and_if.onnx"), xml)
    result = propagate(read_ir(xml))
    assert not result.diagnostics and not result.not_inferred
    code, report = _json(capsys, ["compare", str(xml), "--per-layer"])
    assert code == 0 and report["passed"] and report["not_checked"] == []
    bodies = {b["layer"]: b for b in report["bodies"]}
    assert bodies["ys"]["iterations"] == 4 and bodies["ys"]["compared"] == [0, 1, 2, 3]
    assert bodies["z"]["body"] in ("then_body", "else_body") and bodies["z"]["layers_compared"] == 1


def test_a_body_layer_without_a_kernel_leaves_its_layer_not_checked(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                                     set_aside: Callable[[OpSpec], None]) -> None:
    """The If is not checked, and the reason names the body layer the reference cannot run (``LAYER/BODY/INNER``, its
    op and its own line in the body, as a body's diagnostics name it) and why (an Inverse: ir_tools' Inverse-14 set
    aside)."""
    import openvino.opset8 as o
    import openvino.opset14 as o14

    set_aside(INVERSE_14)
    x, cond = o.parameter([2, 3, 1, 1], np.float32, name="x"), o.parameter([], np.bool_, name="c")
    tx, ex = o.parameter([2, 3, 1, 1], np.float32), o.parameter([2, 3, 1, 1], np.float32)
    patches = o14.inverse(tx, adjoint=False)  # no kernel of ours
    patches.set_friendly_name("patches")
    then = ov.Model([o.result(patches)], [tx], "then")
    orelse = ov.Model([o.result(o.exp(ex))], [ex], "else")
    out = if_of(cond.output(0), x.output(0), then, orelse, "if_patches")
    xml = tmp_path / "if_patches.xml"
    ov.save_model(ov.Model([o.result(out)], [x, cond], "if_patches"), xml)
    np.savez(tmp_path / "inputs.npz", x=np.ones((2, 3, 1, 1), np.float32), c=np.array(True))
    code, report = _json(capsys, ["compare", str(xml), "--per-layer", "--inputs", str(tmp_path / "inputs.npz")])
    line = next(n["line"] for n in report["not_checked"])
    lines = list(enumerate(xml.read_text().splitlines(), 1))
    assert line == next(i for i, text in lines if "<layer" in text and 'name="if_patches"' in text)
    inner = next(i for i, text in lines if "<layer" in text and 'name="patches"' in text)
    assert [(n["name"], n["reason"]) for n in report["not_checked"]] == [
        ("if_patches", f"if_patches/then_body/patches (Inverse@opset14, line {inner}) of its body: no "
                       "reference kernel for this op")]
    assert report["outputs"] == report["layers"] == [] and not report["compared"]
    assert code == 1  # verdict: NOTHING COMPARED, never PASSED, never exit 0


def _onnx_scan_with_identity(path: Path) -> None:
    """QA F6's model: an ONNX Scan whose body adds each slice to its state and passes the sum through an Identity,
    which OpenVINO's ONNX frontend keeps (Identity-16 inside the TensorIterator's body)."""
    from onnx import TensorProto as T
    from onnx import helper, save

    from tests.onnx.models import make_model

    def info(name: str, shape: list[int]):
        return helper.make_tensor_value_info(name, T.FLOAT, shape)

    body = helper.make_graph([helper.make_node("Add", ["s_in", "x_t"], ["s_out"]),
                              helper.make_node("Identity", ["s_out"], ["y_t"])], "body",
                             [info("s_in", [2, 3]), info("x_t", [2, 3])], [info("s_out", [2, 3]), info("y_t", [2, 3])])
    graph = helper.make_graph([helper.make_node("Scan", ["s0", "xs"], ["s_final", "ys"], body=body,
                                                num_scan_inputs=1)], "scan",
                              [info("s0", [2, 3]), info("xs", [6, 2, 3])],
                              [info("s_final", [2, 3]), info("ys", [6, 2, 3])])
    save(make_model(graph, 11), str(path))


def test_an_onnx_scan_whose_body_keeps_an_identity(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """QA F6: OpenVINO's ONNX frontend (read_model) keeps the body's Identity as Identity-16; compare checks the
    TensorIterator's outputs end to end and every body layer per iteration (it compared nothing before)."""
    _onnx_scan_with_identity(tmp_path / "scan.onnx")
    xml = tmp_path / "scan.xml"
    ov.save_model(ov.Core().read_model(tmp_path / "scan.onnx"), xml)
    assert 'type="Identity" version="opset16"' in xml.read_text()
    for args in ([], ["--per-layer"]):
        code, report = _json(capsys, ["compare", str(xml), *args])
        assert code == 0 and report["passed"] and report["not_checked"] == [], report["not_checked"]
        assert sorted(o["name"] for o in report["outputs"]) == ["s_final", "ys"]
    bodies = {b["layer"]: b for b in report["bodies"]}
    assert bodies["ys"]["iterations"] == 6 and bodies["ys"]["compared"] == [0, 1, 2, 3, 4, 5]


def test_a_wrong_dim_inside_a_body_is_named(model: Path, tmp_path: Path) -> None:
    graph = read_ir(model)
    loop = next(layer for layer in graph.layers() if layer.name == "loop0")
    inner = next(layer for layer in subgraphs(graph, loop)[0].graph.layers() if layer.is_a("Multiply"))
    text = model.read_text()
    at = text.index(f'name="{inner.name}"')
    start, end = text.index("<output>", at), text.index("</output>", at)
    bad = tmp_path / "bad.xml"
    bad.write_text(text[:start] + text[start:end].replace("<dim>2</dim>", "<dim>7</dim>", 1) + text[end:])
    shutil.copy(model.with_suffix(".bin"), bad.with_suffix(".bin"))
    found = [(d.code, d.loc.layer_name) for d in propagate(read_ir(bad)).diagnostics]
    assert found == [("E-SHAPE", f"loop0/body/{inner.name}")]


def test_a_body_inside_a_body(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A Loop of 3 iterations whose body holds an If on the sign of its state's sum: compared two levels down."""
    import openvino.opset8 as o

    x, state = o.parameter([2, 3], np.float32, name="x"), o.parameter([2, 3], np.float32)
    positive = o.greater(o.reduce_sum(state, o.constant(np.array([0, 1])), False), o.constant(np.float32(0)))
    tx, ex = o.parameter([2, 3], np.float32), o.parameter([2, 3], np.float32)
    then = ov.Model([o.result(o.multiply(tx, o.constant(np.float32(0.5))))], [tx], "then")
    orelse = ov.Model([o.result(o.add(ex, o.constant(np.float32(1.0))))], [ex], "else")
    value = if_of(positive.output(0), state.output(0), then, orelse, "inner_if")
    body = ov.Model([o.result(o.constant(True)), o.result(value)], [state], "body")
    loop = o.loop(o.constant(np.int64(3)), o.constant(True))
    loop.set_friendly_name("outer_loop")
    loop.set_function(body)
    loop.set_special_body_ports([-1, 0])
    loop.set_merged_input(state, x.output(0), value)
    xml = tmp_path / "nested.xml"
    ov.save_model(ov.Model([o.result(loop.get_iter_value(body.results[1].output(0), -1))], [x], "nested"), xml)
    code, report = _json(capsys, ["compare", str(xml), "--per-layer"])
    assert code == 0 and report["passed"] and report["not_checked"] == []
    names = [lay["name"] for lay in report["layers"]]
    assert all(f"outer_loop/iteration {k}/inner_if" in names for k in range(3))
    assert sum(name.startswith("outer_loop/iteration 2/inner_if/") for name in names) == 1
    assert {b["layer"] for b in report["bodies"]} == {"outer_loop", *(f"outer_loop/iteration {k}/inner_if"
                                                                      for k in range(3))}


def test_a_tensor_iterator_without_a_body_is_refused_by_our_checks(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture) -> None:
    """The fuzzer's AvgPool retyped TensorIterator: before TensorIterator had a rule, only OpenVINO refused it."""
    samples = Path(__file__).parents[2] / "samples"
    path = tmp_path / "model.xml"
    path.write_text((samples / "avgpool16_dilations.xml").read_text().replace(
        'type="AvgPool" version="opset16"', 'type="TensorIterator" version="opset1"'))
    code, found = _json(capsys, ["check", str(path)])
    errors = [d for d in found["files"][0]["diagnostics"] if d["severity"] == "error"]
    assert code == 1 and [d["code"] for d in errors] == ["E-OP"], errors
    assert "needs a <body>" in errors[0]["message"]


def test_a_broken_port_map_is_refused_where_the_layer_is_not_reinferred(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture) -> None:
    """An If whose condition OpenVINO may know and we cannot compute (the input's dynamic batch, from ShapeOf, through
    a Convert to u8, whose bounds OpenVINO evaluates and ops/bounds.py does not model) is not re-inferred (OpenVINO's
    inference adopted), but its port maps are still read: an else output naming no Result of the body is E-OP at the
    If, as OpenVINO refuses the file ('unordered_map::at'); check said nothing (QA run)."""
    import openvino.opset8 as o

    x = o.parameter([-1, 3], np.float32, name="x")
    batch = o.gather(o.shape_of(x), o.constant(np.int64(0)), o.constant(np.int64(0)))
    condition = o.greater(o.convert(o.convert(batch, "u8"), "i64"), o.constant(np.int64(1)))
    then_x, else_x = o.parameter([-1, 3], np.float32), o.parameter([-1, 3], np.float32)
    out = if_of(condition.output(0), x.output(0), ov.Model([o.result(o.exp(then_x))], [then_x]),
                ov.Model([o.result(o.negative(else_x))], [else_x]))
    path = tmp_path / "if.xml"
    ov.save_model(ov.Model([out], [x]), path, compress_to_fp16=False)
    capsys.readouterr()
    assert main(["shapes", str(path)]) == 0
    assert ", by OpenVINO: 1," in capsys.readouterr().out  # (the If: not by us)
    text = path.read_text()
    else_map = text[text.index("<else_port_map>"):text.index("</else_port_map>")]
    broken = re.sub(r'(<output [^>]*internal_layer_id=")\d+"', r'\g<1>42"', else_map)
    path.write_text(text.replace(else_map, broken))
    code, found = _json(capsys, ["check", "--no-openvino", str(path)])
    errors = [d for d in found["files"][0]["diagnostics"] if d["severity"] == "error"]
    assert code == 1 and [d["code"] for d in errors] == ["E-OP"], errors
    assert "names internal_layer_id 42, which is no Result of <else_body>" in errors[0]["message"]


def test_an_if_whose_condition_openvino_cannot_bound_is_reinferred(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture) -> None:
    """An If whose condition compares the input's dynamic batch (``[0..?] > 1``: OpenVINO evaluates Greater's bounds
    only on exact inputs, ops/bounds.py) is unknown to OpenVINO as to us: both bodies merged, re-inferred by our
    rules as OpenVINO infers it (``check`` with its verdict clean)."""
    import openvino.opset8 as o

    x = o.parameter([-1, 3], np.float32, name="x")
    batch = o.gather(o.shape_of(x), o.constant(np.int64(0)), o.constant(np.int64(0)))
    condition = o.greater(batch, o.constant(np.int64(1)))
    then_x, else_x = o.parameter([-1, 3], np.float32), o.parameter([-1, 3], np.float32)
    out = if_of(condition.output(0), x.output(0), ov.Model([o.result(o.exp(then_x))], [then_x]),
                ov.Model([o.result(o.concat([else_x, else_x], 1))], [else_x]))
    assert str(out.get_partial_shape()) == "[?,3..6]"  # (the bodies merged)
    path = tmp_path / "if.xml"
    ov.save_model(ov.Model([out], [x]), path, compress_to_fp16=False)
    capsys.readouterr()
    assert main(["shapes", str(path)]) == 0
    assert ", by OpenVINO: 0," in capsys.readouterr().out
    assert main(["check", str(path)]) == 0


def _layer_args(graph, layer, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The values of an outer layer's inputs: its producers are Consts and Parameters."""
    args = []
    for port in layer.inputs:
        producer = graph.layer(graph.producer_key(layer.id, port.id)[0])
        args.append(graph.const_array(producer) if producer.is_a("Const") else feed[producer.name])
    return args


@pytest.mark.parametrize("name,wide", [("if1", {0: 1.0}), ("loop1", {2: 100.0}), ("loop1", {1: 1.0})])
def test_a_condition_that_may_differ_leaves_no_bound(model: Path, name: str, wide: dict[int, float]) -> None:
    """If's condition, a Loop's execution condition or its body's condition (a comparison of a sum that may move
    by 100) that may be the other value may run another body or another number of iterations: no bound (before, the
    chosen body's bounds). Exact inputs, or x within 2^-30 of its value: finite bounds."""
    graph = read_ir(model)
    layer = next(layer for layer in graph.layers() if layer.name == name)
    spec = lookup(layer.type, layer.version)
    attrs = bind(graph, layer)
    args = _layer_args(graph, layer, each_kind(3)[1])
    outputs = spec.kernel(attrs, args)
    exact = [EXACT] * len(args)
    narrow = [np.full((), 2.0**-30) if i == len(args) - 1 else EXACT for i in range(len(args))]
    for bounds in (exact, narrow):
        assert all(np.all(np.isfinite(b)) for b in spec.rounding(spec.kernel, attrs, args, bounds, outputs))
    moved = [np.full((), wide[i]) if i in wide else EXACT for i in range(len(args))]
    assert all(np.all(np.isinf(b)) for b in spec.rounding(spec.kernel, attrs, args, moved, outputs))
