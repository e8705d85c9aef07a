"""The shape walk knows a value computed from Consts only where OpenVINO does (passes/shapes.py, rule 5;
``OpSpec.unevaluated``): for every op version with a kernel, the layer built on Consts (the inputs of a stored case of
tests/data/answers, seeded by the conformance suites' generators) feeds, per output, a count of its nonzero elements
into a Broadcast's target shape (Convert to boolean, Convert to i64, ReduceSum, Unsqueeze: all folded by OpenVINO on
every element type). OpenVINO reads the model (read_model: validate_and_infer_types, no transformation) and saves
it; ``check --no-openvino`` of that file must report no E-SHAPE, and our inferred dims of each Broadcast must be
OpenVINO's: static where OpenVINO evaluated the op on its Consts, dynamic where it could not (no evaluate(), or one
refusing those element types). A SpaceToBatch's or BatchToSpace's block and pads are made i64: OpenVINO's evaluate()
reads others as i64 data, and refuses the file or crashes. Without Inverse-14's ``unevaluated`` flag (or any op's
of the table), its case fails.

Measured on openvino 2026.4.1 (these cases, and each op's data inputs and then its other integer inputs swept over f32,
f16, bf16, f64, i8..i64, u8..u64 and boolean): 101 op versions are never evaluated (their specs say
``unevaluated``); 37 are evaluated on every type OpenVINO accepts; the other 85 only on some element types (most
unary and binary arithmetic not on f64, i8, i16, u8, u16; CumSum, GridSample, SquaredDifference and MVN-6 on f32
alone; Gather on i32 and i64 indices alone...): ``PER_TYPE`` lists those whose stored cases here meet a type
OpenVINO does not evaluate, which ``unevaluated`` (one flag per op version) cannot say; they are expected to fail
until the op table says which element types OpenVINO evaluates.

Not covered (no stored case small enough to compute, or no Const-only form): TensorIterator, Loop, If (bodies),
BinaryConvolution (u1 weights), NonZero-3, NonMaxSuppression-5/-9, MatrixNms, MulticlassNms-8/-9, NMSRotated,
GenerateProposals-9 (no stored case of at most 1024 elements per tensor); ReadValue and Assign are covered by
``test_state_ops_are_not_evaluated``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from ir_tools import GraphBuilder, write_ir
from ir_tools.base.dims import Dim
from ir_tools.ir.model import Graph
from ir_tools.ops.opsets import specs
from ir_tools.ops.spec import TensorType
from ir_tools.runtime.verdict import check_model

from ..ops.test_answers import BY_LABEL

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

#: Cases per op version (the first ones of the stored answers that fit).
PER_OP = 2
#: Op versions without a case here (module doc).
UNCOVERED = {"TensorIterator-0", "Loop-5", "If-8", "BinaryConvolution-1", "NonZero-3", "NonMaxSuppression-5",
             "NonMaxSuppression-9", "MatrixNms-8", "MulticlassNms-8", "MulticlassNms-9", "NMSRotated-13",
             "GenerateProposals-9", "ReadValue-3", "ReadValue-6", "Assign-3", "Assign-6"}
#: Op versions OpenVINO evaluates on some element types only, whose cases here meet one it does not (module doc):
#: expected to fail until the op table models evaluate()'s element types.
PER_TYPE = {
    "BitwiseLeftShift-15": "evaluated on i32 alone (not u8, i8, u16, i16, u32, i64, u64)",
    "BitwiseRightShift-15": "evaluated on i32 alone (not u8, i8, u16, i16, u32, i64, u64)",
    "CumSum-3": "evaluated on f32 data alone",
    "MaxPool-1": "not evaluated on f64, i8, i16, u8, u16, boolean",
    "Mod-1": "not evaluated on floats (f32, f16, bf16, f64)",
    "ScatterElementsUpdate-12": "not evaluated on f64, i8, u8, u16 data, nor on i8 or u8 indices",
    "SoftMax-8": "evaluated on floats alone",
    "SquaredDifference-1": "evaluated on f32 alone",
    "OneHot-16": "evaluated on i32 and i64 indices alone",
    "TopK-3": "not evaluated on f64, i8, i16, u8, u16, boolean",
}


def _fits(record: dict) -> bool:
    """Every input value stored, every tensor at most 1024 elements (rule 5), OpenVINO accepted the case."""
    if record["outputs"] == "rejects" or not record["outputs"]:
        return False
    for element, _, _, ref in record["inputs"]:
        if ref is None or element == "u1" or math.prod(ref[2]) > 1024:
            return False
    return all(d is not None and all(isinstance(x, int) for x in d) and math.prod(d) <= 1024
               for _, d, _ in record["outputs"])


def _cases() -> dict[str, list[tuple]]:
    found: dict[str, list[tuple]] = {}
    for spec in specs():
        if spec.kernel is None or spec.label in UNCOVERED:
            continue
        found[spec.label] = [(f, r) for f, r in BY_LABEL.get(spec.label, []) if _fits(r)][:PER_OP]
    return found


CASES = _cases()


def _add(b: GraphBuilder, file, record: dict, tag: str) -> list[str]:
    """The case's layer on Consts, each output's count of nonzero elements as a Broadcast's target; the Broadcasts'
    names."""
    values = [file.value(ref) for *_, ref in record["inputs"]]
    if record["op"] in ("SpaceToBatch", "BatchToSpace"):  # (OpenVINO's evaluate reads a block or pads of another
        values[1:] = [v.astype(np.int64) for v in values[1:]]  # type as i64 data: it refuses the file, or crashes)
    ins = [b.const(v, f"{tag}_in{i}") for i, v in enumerate(values)]
    outs = [TensorType(e, tuple(Dim(x, x) for x in d)) for e, d, _ in record["outputs"]]
    layer = b.add(record["op"], record["version"], record["attrs"], ins, f"{tag}_op", outputs=outs)
    names = []
    for j, port in enumerate(layer.outputs):
        flags = b.convert(b.convert((layer.id, port.id), "boolean", f"{tag}_{j}_nonzero"), "i64", f"{tag}_{j}_ones")
        axes = b.const(np.arange(len(port.dims or ()), dtype=np.int64), f"{tag}_{j}_axes")
        count = b.add("ReduceSum", "opset1", {"keep_dims": "false"}, [flags, axes], f"{tag}_{j}_count")
        target = b.add("Unsqueeze", "opset1", None, [count, b.const(np.array([0], np.int64), f"{tag}_{j}_axis")],
                       f"{tag}_{j}_target")
        one = b.const(np.array(1.0, np.float32), f"{tag}_{j}_one")
        shape = b.add("Broadcast", "opset3", {"mode": "numpy"}, [one, target], f"{tag}_{j}_shape")
        b.result((shape.id, shape.outputs[0].id), f"{tag}_{j}_out")
        names.append(shape.name)
    return names


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory) -> dict[str, list[str]]:
    """Per op version, what differs between OpenVINO's inference and ours (empty: they agree)."""
    graph = Graph("unevaluated", ir_version=11)
    b = GraphBuilder(graph)
    owner: dict[str, str] = {}  # the name prefix of a case's layers -> its op version
    shapes: dict[str, str] = {}  # Broadcast name -> its op version
    for label, cases in CASES.items():
        for k, (file, record) in enumerate(cases):
            tag = f"{label.replace('-', '_')}_{k}"
            owner[tag] = label
            shapes.update(dict.fromkeys(_add(b, file, record, tag), label))
    tmp = tmp_path_factory.mktemp("unevaluated")
    write_ir(graph, tmp / "built.xml")
    model = ov.Core().read_model(str(tmp / "built.xml"))
    theirs = {n.get_friendly_name(): n.get_output_partial_shape(0) for n in model.get_ops() if n.get_friendly_name()
              in shapes}
    ov.save_model(model, str(tmp / "saved.xml"), compress_to_fp16=False)
    checked = check_model(Path(tmp / "saved.xml"), openvino=False)
    found: dict[str, list[str]] = defaultdict(list)
    by_name = {layer.name: layer for layer in checked.graph.layers()}
    for d in checked.diagnostics:
        if not d.code.startswith("E-"):  # (W-EMPTY-WINDOW of a pooling case, W-DEAD of an input a cell ignores)
            continue
        layer = checked.graph.layer(d.loc.layer_id) if d.loc.layer_id else None
        name = layer.name if layer is not None else "?"
        tag = next((t for t in owner if name.startswith(t + "_")), None)
        found[owner[tag] if tag else "?"].append(f"{d.code} at {name}: {d.message}")
    for name, label in shapes.items():
        layer = by_name[name]
        ours = checked.propagation.types[(layer.id, layer.outputs[0].id)].shape
        ov_dims = [d.get_length() if d.is_static else None for d in theirs[name]]
        our_dims = [d.lo if d.is_static else None for d in ours]
        if ov_dims != our_dims:
            found[label].append(f"{name}: OpenVINO infers {theirs[name]}, ours {our_dims}")
    return found


def test_every_op_with_a_kernel_has_a_case() -> None:
    missing = [label for label, cases in CASES.items() if not cases]
    assert not missing, f"no stored case fits (add them to UNCOVERED, or store one): {missing}"


@pytest.mark.parametrize("label", sorted(CASES))
def test_our_values_are_known_where_openvinos_are(verdicts, label: str) -> None:
    assert not verdicts.get("?"), verdicts["?"]  # (a diagnostic of no case's layer)
    problems = verdicts.get(label, [])
    why = PER_TYPE.get(label)
    if why is not None:
        if problems:
            pytest.xfail(f"{why}: {problems[0]}")
        pytest.fail(f"{label} now agrees with OpenVINO: drop it from PER_TYPE")
    assert not problems, "\n".join(problems[:6])


@pytest.mark.parametrize("version", [3, 6])
def test_state_ops_are_not_evaluated(tmp_path, version: int) -> None:
    """A ReadValue of a Const initializer and an Assign of it: OpenVINO knows neither's value (no evaluate() it can
    run without a variable context), so a Broadcast to their count of nonzero elements stays dynamic; so must ours."""
    import openvino.opset1 as o1
    import openvino.opset3 as o3
    import openvino.opset6 as o6
    from openvino.op.util import Variable, VariableInfo

    init = o1.constant(np.array([1, 0, 3], np.int64))
    if version == 6:
        info = VariableInfo()
        info.data_shape, info.data_type, info.variable_id = ov.PartialShape([3]), ov.Type.i64, "v"
        variable = Variable(info)
        read, assign = o6.read_value(init, variable), o6.assign(init, variable)
    else:
        read = o3.read_value(init, "v")
        assign = o3.assign(read, "v")
    results = []
    for node in (read, assign):
        flags = o1.convert(o1.convert(node, "boolean"), "i64")
        count = o1.reduce_sum(flags, o1.constant(np.array([0], np.int64)), False)
        target = o1.unsqueeze(count, o1.constant(np.array([0], np.int64)))
        results.append(o1.result(o3.broadcast(o1.constant(np.float32(1)), target)))
    model = ov.Model(results, [assign], [], "state")
    assert all(r.get_output_partial_shape(0).is_dynamic for r in model.get_results())
    ov.save_model(model, str(tmp_path / "state.xml"))
    found = [f"{d.code}: {d.message}" for d in check_model(tmp_path / "state.xml", openvino=False).diagnostics]
    assert not found
