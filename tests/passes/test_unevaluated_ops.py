"""The shape walk knows a value computed from Consts only where OpenVINO does (passes/shapes.py, rule 5;
``OpSpec.evaluates``): for every op version with a kernel, the layer built on Consts (the inputs of a stored case of
tests/data/answers, seeded by the conformance suites' generators) feeds, per output, a count of its nonzero elements
into a Broadcast's target shape (Convert to boolean, Convert to i64, ReduceSum, Unsqueeze: all folded by OpenVINO on
every element type). OpenVINO reads the model (read_model: validate_and_infer_types, no transformation) and saves
it; ``check --no-openvino`` of that file must report no E-SHAPE, and our inferred dims of each Broadcast must be
OpenVINO's: static where OpenVINO evaluated the op on its Consts, dynamic where it could not (no evaluate(), or one
refusing those element types). A SpaceToBatch's or BatchToSpace's block and pads are made i64: OpenVINO's evaluate()
reads others as i64 data, and refuses the file or crashes. Without Inverse-14's ``evaluates=never`` (or any op's of
the table), its case fails.

Measured on openvino 2026.4.1 (these cases, and each op's data inputs and then its other integer inputs swept over f32,
f16, bf16, f64, i8..i64, u8..u64 and boolean, then every product of those): 101 op versions are never evaluated (their
specs' ``evaluates`` is ``never``); 40 are evaluated on every type OpenVINO accepts (``always``); the other 82 on
some element types only (most unary and binary arithmetic not on f64, i8, i16, u8, u16; CumSum, GridSample,
SquaredDifference and MVN-6 on f32 alone; Gather on i32 and i64 indices alone...), which their specs' ``evaluates``
says. ``test_evaluated_types`` holds each of those to OpenVINO on every type the sweep meets: its cases' inputs cast
group by group to each type, and a seeded draw of mixed combinations, all in one model read once.

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
from ir_tools.base.dims import Dim, shape_from_ints
from ir_tools.base.errors import IrToolsError
from ir_tools.ir.model import Graph
from ir_tools.ops import attrs as A
from ir_tools.ops.opsets import specs
from ir_tools.ops.spec import OpSpec, TensorType, always, never
from ir_tools.passes.builder import Output, output_of
from ir_tools.runtime.verdict import check_model

from ..ops.test_answers import BY_LABEL

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

#: Cases per op version (the first ones of the stored answers that fit).
PER_OP = 2
#: Op versions without a case here (module doc).
UNCOVERED = {"TensorIterator-0", "Loop-5", "If-8", "BinaryConvolution-1", "NonZero-3", "NonMaxSuppression-5",
             "NonMaxSuppression-9", "MatrixNms-8", "MulticlassNms-8", "MulticlassNms-9", "NMSRotated-13",
             "GenerateProposals-9", "ReadValue-3", "ReadValue-6", "Assign-3", "Assign-6"}
#: The element types each group of a case's inputs is cast to (test_evaluated_types), and how numpy holds them (bf16:
#: as f32 values rounded down to bf16's).
TYPES = {"f32": np.float32, "f16": np.float16, "bf16": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
         "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
         "boolean": np.bool_}
#: Mixed combinations (each input group of another type) drawn per case from the product of the types each group
#: takes alone, and the seed of the draw.
MIXED, SEED = 8, 20261202
#: Combinations our rule accepts where OpenVINO's reader refuses the layer (not this test's: left out).
READER_REFUSES = {
    "MVN-6": lambda elements: elements[1] not in ("i32", "i64"),  # "Unexpected indices type"
    "TopK-1": lambda elements: elements[1] == "i16",  # "K input element type must be i8, i32 or i64 (got i16)."
}
#: Binary ops whose integer divisor (input 1) a case casts to zeros: made ones (division by zero is not this test's).
DIVIDES = {"Divide-1", "FloorMod-1", "Mod-1"}


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
SPECS = {spec.label: spec for spec in specs()}
#: Op versions OpenVINO evaluates on some element types only (module doc).
PER_TYPE = sorted(label for label in CASES if SPECS[label].evaluates not in (always, never))


def _stored(file, record: dict) -> tuple[list[str], list[np.ndarray]]:
    """A case's input element types and values. A SpaceToBatch's or BatchToSpace's block and pads made i64 (OpenVINO's
    evaluate reads another type as i64 data: it refuses the file, or crashes)."""
    elements = [e for e, *_ in record["inputs"]]
    values = [file.value(ref) for *_, ref in record["inputs"]]
    if record["op"] in ("SpaceToBatch", "BatchToSpace"):
        elements[1:] = ["i64"] * (len(elements) - 1)
        values[1:] = [v.astype(np.int64) for v in values[1:]]
    return elements, values


def _const(b: GraphBuilder, element: str, value: np.ndarray, name: str) -> Output:
    """A Const of ``value`` in ``element`` (bf16: from f32 values, their upper halves)."""
    if element != "bf16":
        return b.const(np.asarray(value).astype(TYPES[element]), name)
    bits = (np.asarray(value, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    attrs = b.attrs("Const", "opset1", element_type="bf16", shape=bits.shape, offset=0, size=bits.nbytes)
    return output_of(b.add("Const", "opset1", attrs, [], name, data=bits.tobytes()))


def _add(b: GraphBuilder, record: dict, elements: list[str], values: list[np.ndarray], outs: list[TensorType],
         tag: str) -> list[str]:
    """The layer on Consts of ``values`` in ``elements``, each output's count of nonzero elements as a Broadcast's
    target; the Broadcasts' names."""
    ins = [_const(b, e, v, f"{tag}_in{i}") for i, (e, v) in enumerate(zip(elements, values, strict=True))]
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


def _judge(graph: Graph, owner: dict[str, str], shapes: dict[str, str], tmp: Path) -> dict[str, list[str]]:
    """Per op version, what differs between OpenVINO's inference and ours of ``graph`` (empty: they agree): OpenVINO
    reads it and saves it, ``check --no-openvino`` of that file must report no error, and each Broadcast's dims
    (``shapes``: its name -> its op version) must be OpenVINO's; ``owner``: the name prefix of a case's layers -> its
    op version."""
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


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory) -> dict[str, list[str]]:
    """Per op version, what differs between OpenVINO's inference and ours of its stored cases (empty: they agree)."""
    graph = Graph("unevaluated", ir_version=11)
    b = GraphBuilder(graph)
    owner: dict[str, str] = {}  # the name prefix of a case's layers -> its op version
    shapes: dict[str, str] = {}  # Broadcast name -> its op version
    for label, cases in CASES.items():
        for k, (file, record) in enumerate(cases):
            tag = f"{label.replace('-', '_')}_{k}"
            owner[tag] = label
            outs = [TensorType(e, tuple(Dim(x, x) for x in d)) for e, d, _ in record["outputs"]]
            shapes.update(dict.fromkeys(_add(b, record, *_stored(file, record), outs, tag), label))
    return _judge(graph, owner, shapes, tmp_path_factory.mktemp("unevaluated"))


def test_every_op_with_a_kernel_has_a_case() -> None:
    missing = [label for label, cases in CASES.items() if not cases]
    assert not missing, f"no stored case fits (add them to UNCOVERED, or store one): {missing}"


@pytest.mark.parametrize("label", sorted(CASES))
def test_our_values_are_known_where_openvinos_are(verdicts, label: str) -> None:
    assert not verdicts.get("?"), verdicts["?"]  # (a diagnostic of no case's layer)
    problems = verdicts.get(label, [])
    assert not problems, "\n".join(problems[:6])


def _groups(spec: OpSpec, elements: list[str]) -> list[list[int]]:
    """A case's inputs as the sweep casts them together: the data (input 0 and the inputs of its type, but the
    index and value inputs), then the others by their element type."""
    special = {spec.index_input, *spec.value_inputs} - {None}
    data = [i for i, e in enumerate(elements) if e == elements[0] and i not in special] or [0]
    rest: dict[str, list[int]] = defaultdict(list)
    for i, e in enumerate(elements):
        if i not in data:
            rest[e].append(i)
    return [data, *rest.values()]


def _cast(value: np.ndarray, element: str, data: bool) -> np.ndarray | None:
    """``value`` in ``element``: data as numpy casts it (wrapped, truncated), another integer input None where it does
    not survive the cast (a negative axis in an unsigned type, an index beyond i8)."""
    with np.errstate(all="ignore"):
        cast = value.astype(TYPES[element])
        if element == "bf16":
            cast = np.asarray(cast.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)  # (numpy 1: a 0-d int)
        if not data and value.dtype.kind in "iub" and not np.array_equal(cast.astype(np.float64),
                                                                          value.astype(np.float64)):
            return None
    return cast


def _typed(spec: OpSpec, record: dict, elements: list[str], values: list[np.ndarray], groups: list[list[int]],
           types: tuple[str, ...]) -> tuple[list[str], list[np.ndarray], list[TensorType]] | None:
    """The case with each group of inputs cast to its type of ``types``, and its output types by our rule; None where
    a value does not survive the cast, or our rule or OpenVINO's reader refuses the types, or our rule declines."""
    elements, values = list(elements), list(values)
    for g, (group, element) in enumerate(zip(groups, types, strict=True)):
        for i in (i for i in group if elements[i] != element):  # (a group of its stored type keeps its values)
            cast = _cast(values[i], element, g == 0)
            if cast is None:
                return None
            elements[i], values[i] = element, cast
    if spec.label in DIVIDES and elements[1] not in ("f32", "f16", "bf16", "f64"):
        values[1] = np.where(values[1] == 0, np.ones_like(values[1]), values[1])
    refuses = READER_REFUSES.get(spec.label)
    if refuses is not None and refuses(elements):
        return None
    try:
        ins = [TensorType(e, shape_from_ints(list(v.shape))) for e, v in zip(elements, values, strict=True)]
        outs = spec.infer(A.decode(spec.attrs, record["attrs"]), ins,
                          [v if i in spec.value_inputs else None for i, v in enumerate(values)])
    except IrToolsError:
        return None
    if outs is None or any(t.shape is None or not all(d.is_static for d in t.shape) for t in outs):
        return None
    return elements, values, list(outs)


def _typed_cases(rng: np.random.Generator) -> list[tuple[str, dict, tuple]]:
    """Every per-type op version's cases in each type per input group (the others as stored), and ``MIXED`` draws of
    the product of the types each group takes alone: (op version, record, ``_typed``'s answer)."""
    found = []
    for label in PER_TYPE:
        for file, record in CASES[label]:
            spec = SPECS[label]
            elements, values = _stored(file, record)
            groups = _groups(spec, elements)
            taken: list[list[str]] = [[] for _ in groups]
            for g in range(len(groups)):
                for element in TYPES:
                    types = tuple(element if j == g else elements[group[0]] for j, group in enumerate(groups))
                    typed = _typed(spec, record, elements, values, groups, types)
                    if typed is not None:
                        taken[g].append(element)
                        found.append((label, record, typed))
            if len(groups) > 1 and all(taken):
                for _ in range(MIXED):
                    types = tuple(str(rng.choice(t)) for t in taken)
                    typed = _typed(spec, record, elements, values, groups, types)
                    if typed is not None:
                        found.append((label, record, typed))
    return found


def test_evaluated_types(tmp_path) -> None:
    """Where OpenVINO evaluates an op on some element types only (``OpSpec.evaluates``), our walk knows a layer's values
    exactly where OpenVINO does, on each type the sweep meets (module doc): every case in each type, in one model."""
    graph = Graph("evaluated_types", ir_version=11)
    b = GraphBuilder(graph)
    owner: dict[str, str] = {}
    shapes: dict[str, str] = {}
    cases = _typed_cases(np.random.default_rng(SEED))
    for k, (label, record, (elements, values, outs)) in enumerate(cases):
        tag = f"{label.replace('-', '_')}_{k}"
        owner[tag] = label
        shapes.update(dict.fromkeys(_add(b, record, elements, values, outs, tag), label))
    assert {label for label, *_ in cases} == set(PER_TYPE)
    found = _judge(graph, owner, shapes, tmp_path)
    assert not found, "\n".join(f"{label}: {problems[0]} ({len(problems)})" for label, problems in found.items())


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
