"""ReadValue-3/6 and Assign-3/6 (ops/state.py) against the installed OpenVINO.

(a) Shape rules: seeded ReadValue-6 nodes (an init input or none; the variable's type unknown, the input's or
another; its shape unknown, relaxing the input's or not: static, dynamic, interval and unbounded dims, dynamic
ranks), ReadValue-3 and Assign-3/6 nodes, built by OpenVINO's Python API on a Variable and by our rule from the IR
attributes OpenVINO writes for it: the same element type and partial shape, or both reject.

(b) The stateful fixture read by OpenVINO: each ReadValue and Assign output is what our rule infers.

(c) Kernels, a model's first inference: seeded Assign(ReadValue(x)) pairs, one variable each (ReadValue-3/Assign-3 by
id, ReadValue-6/Assign-6 on a Variable of x's type and shape, static or dynamic), batched into one model compiled
once for OpenVINO CPU: ReadValue gives x (its variable unset after a reset), and the value Assign writes (OpenVINO's
``query_state`` after the inference, as ``steps.as_variable`` reads it) is ours too. scripts/make_answers.py stores
these cases' answers (``state``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset3 as ops3
import openvino.opset6 as ops6
import pytest
from openvino.op.util import Variable, VariableInfo

from ir_tools import read_ir
from ir_tools.base.dims import Dim, Shape, format_shape
from ir_tools.ops.spec import TensorType
from ir_tools.passes.shapes import propagate
from ir_tools.runtime.executor import Interpreter
from ir_tools.runtime.openvino import CPU_CONFIG
from ir_tools.runtime.steps import as_variable

from .conformance import Case, from_openvino, named_parameters, openvino_outcome
from .test_elementwise_conformance import ov_shape, ov_type, random_shape
from .verdicts import Outcome, describe, from_dims, our_outcome

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 20363
FIXTURE = Path(__file__).parents[1] / "data" / "target" / "tiny_llama_stateful_f16.xml"
TYPES = ("f32", "f16", "i64", "u8", "boolean")


def widen(rng: random.Random, shape: Shape) -> Shape:
    """A variable shape around ``shape``: often one that holds it (dims widened), sometimes not."""
    if shape is None or rng.random() < 0.1:
        return None if rng.random() < 0.7 else random_shape(rng)
    if rng.random() < 0.1:
        return shape[:-1]  # another rank
    dims = []
    for d in shape:
        roll = rng.random()
        if roll < 0.4:
            dims.append(d)
        elif roll < 0.6:
            dims.append(Dim(0, None))
        elif roll < 0.8:
            lo = max(d.lo - rng.randint(0, 2), 0)
            dims.append(Dim(lo, None if d.hi is None else max(lo, d.hi + rng.randint(-1, 2))))
        else:
            lo = d.lo + rng.randint(0, 2)
            dims.append(Dim(lo, lo + rng.randint(0, 2)))
    return tuple(dims)


def variable(var_type: str | None, var_shape: Shape) -> Variable:
    info = VariableInfo()
    info.variable_id, info.data_type, info.data_shape = "v", ov_type(var_type), ov_shape(var_shape)
    return Variable(info)


def state_case(rng: random.Random) -> tuple[str, Outcome, Outcome]:
    """(what, OpenVINO's outcome, ours) for one seeded node."""
    element = rng.choice(TYPES + (None,))
    shape = random_shape(rng)
    kind = rng.choice(("ReadValue-6",) * 6 + ("ReadValue-3", "Assign-3", "Assign-6"))
    what = f"{kind} on {element}[{format_shape(shape)}]"
    param = ops1.parameter(ov_shape(shape), ov_type(element))
    if kind == "ReadValue-3":
        return what, openvino_outcome(lambda: ops3.read_value(param, "v")), our_outcome(
            "ReadValue", "opset3", {"variable_id": "v"}, [_tt(element, shape)], [None])
    if kind.startswith("Assign"):
        opset = "opset" + kind[-1]
        build = (lambda: ops3.assign(ops3.read_value(param, "v"), "v")) if opset == "opset3" else \
            (lambda: ops6.assign(param, variable(element, shape)))  # Assign-3 finds its variable by a ReadValue
        return what, openvino_outcome(build), our_outcome("Assign", opset, {"variable_id": "v"},
                                                          [_tt(element, shape)], [None])
    roll = rng.random()
    var_type = None if roll < 0.3 else element if roll < 0.85 else rng.choice(TYPES)
    var_shape = widen(rng, shape)
    init = rng.random() < 0.85
    raw = {"variable_id": "v", "variable_type": var_type or "dynamic", "variable_shape": format_shape(var_shape)}
    what += f" variable {raw['variable_type']}[{raw['variable_shape']}]" + ("" if init else " without init")
    if init:
        theirs = openvino_outcome(lambda: ops6.read_value(param, variable(var_type, var_shape)))
    else:
        theirs = openvino_outcome(lambda: ops6.read_value(variable(var_type, var_shape)))
    return what, theirs, our_outcome("ReadValue", "opset6", raw, [_tt(element, shape)] if init else [],
                                     [None] if init else [])


def _tt(element: str | None, shape: Shape) -> TensorType:
    return TensorType(element, shape)


def test_state_shape_rules() -> None:
    rng = random.Random(SEED)
    cases = [state_case(rng) for _ in range(600)]
    failures = [f"{what}: OpenVINO {describe(theirs)}, ours {describe(ours)}"
                for what, theirs, ours in cases if theirs != ours]
    rejected = sum(theirs == "rejects" for _, theirs, _ in cases)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:25])
    assert 0.1 * len(cases) < rejected < 0.6 * len(cases), f"{rejected} of {len(cases)} rejected: a poor mix"


def test_the_stateful_fixture_is_inferred_as_openvino_reads_it() -> None:
    """Every ReadValue and Assign of the Llama fixture is re-inferred by our rule, as OpenVINO reads it."""
    graph = read_ir(FIXTURE)
    ours = propagate(graph)
    assert not [layer.name for layer in ours.not_inferred if layer.type in ("ReadValue", "Assign")]
    model = ov.Core().read_model(str(FIXTURE))
    theirs = {op.get_friendly_name(): op for op in model.get_ordered_ops()}
    checked = 0
    for layer in graph.layers():
        if layer.type not in ("ReadValue", "Assign"):
            continue
        node = theirs[layer.name]
        got = ours.types[(layer.id, layer.outputs[0].id)]
        assert (got.element, from_dims(got.shape)) == (node.get_output_element_type(0).get_type_name(),
                                                       from_openvino(node.get_output_partial_shape(0))), layer.name
        checked += 1
    assert checked == 8


#: The element types of the kernel cases: OpenVINO CPU refuses an i64 state at the first inference ("CPU plugin does
#: not support i64 for use with oneDNN", 2026.4).
STATE_TYPES = (np.float32, np.float16, np.int32, np.uint8, np.int8)


def state_cases(rng: np.random.Generator, count: int) -> list[Case]:
    """``count`` seeded Assign(ReadValue(x)) pairs, each on its own variable ``v{i}``, opset3 and opset6 in turn."""
    cases = []
    for i in range(count):
        dtype = STATE_TYPES[i % len(STATE_TYPES)]
        shape = tuple(int(n) for n in rng.integers(1, 4, int(rng.integers(0, 4))))
        x = (rng.standard_normal(shape) * 3).astype(dtype)
        opset = 3 if i % 2 == 0 else 6
        cases.append(Case(f"ReadValue/Assign-{opset} {np.dtype(dtype).name}{list(shape)}", [x],
                          _pair(opset, f"v{i}", bool(rng.random() < 0.5))))
    return cases


def _pair(opset: int, vid: str, dynamic: bool) -> Callable[[list[ov.Node]], ov.Node]:
    """The Assign of an Assign(ReadValue(x)) pair; at opset6 its Variable has x's type and shape (``dynamic``: dim 0
    left dynamic)."""

    def build(ins: list[ov.Node]) -> ov.Node:
        if opset == 3:
            return ops3.assign(ops3.read_value(ins[0], vid), vid)
        out = ins[0].output(0)
        shape = [-1 if dynamic and k == 0 else d.get_length() for k, d in enumerate(out.get_partial_shape())]
        info = VariableInfo()
        info.variable_id, info.data_type, info.data_shape = vid, out.get_element_type(), ov.PartialShape(shape)
        var = Variable(info)
        return ops6.assign(ops6.read_value(ins[0], var), var)

    return build


def test_state_kernels_of_a_first_inference(tmp_path: Path) -> None:
    cases = state_cases(np.random.default_rng(SEED), 40)
    feed: dict[str, np.ndarray] = {}
    params, sinks = [], []
    for i, case in enumerate(cases):
        ps = named_parameters(i, case.inputs, feed)
        sinks.append(case.build(ps))
        params += ps
    reads = [sink.input_value(0) for sink in sinks]
    for i, read in enumerate(reads):
        read.get_tensor().set_names({f"c{i}_o0"})
    model = ov.Model(reads, sinks, params, "state")
    request = ov.Core().compile_model(model, "CPU", CPU_CONFIG).create_infer_request()
    request.reset_state()
    request.infer(feed)
    written = {state.name: state.state.data.copy() for state in request.query_state()}
    path = tmp_path / "state.xml"
    ov.save_model(model, str(path), compress_to_fp16=False)
    reference = Interpreter(read_ir(path))
    ours = reference.evaluate(feed)
    failures = []
    for i, case in enumerate(cases):
        got, want, state = ours[f"c{i}_o0"], request.get_output_tensor(i).data, reference.variables.values[f"v{i}"]
        if got.dtype != want.dtype or not np.array_equal(got, want):
            failures.append(f"{case.what}: ReadValue {got} vs OpenVINO's {want}")
        if not np.array_equal(state, as_variable(written[f"v{i}"], state)):
            failures.append(f"{case.what}: Assign wrote {state} vs OpenVINO's {written[f'v{i}']}")
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])


def test_a_read_value_without_init_of_a_dynamic_variable_starts_empty(tmp_path: Path, capsys) -> None:
    """OpenVINO's MakeStateful turns a KV cache's past into a ReadValue-6 without an init input whose variable is
    [1,?,4]: CPU starts it as [1,0,4] (each dynamic dim 0, a bounded one too; measured on 2026.4) and the present's
    Concat grows it step by step. The kernel refused it ("needs a variable of static shape", E-OP)."""
    from openvino._offline_transformations import apply_make_stateful_transformation

    from ir_tools.cli import main

    x, past = ops6.parameter([1, -1, 4], np.float32, name="x"), ops6.parameter([1, -1, 4], np.float32, name="past")
    joined = ops6.concat([past, x], 1)
    present = ops6.result(joined)
    present.output(0).set_names({"present"})
    model = ov.Model([ops6.result(ops6.reduce_sum(joined, ops6.constant(np.int64(1)), False)), present], [x, past],
                     "cache")
    apply_make_stateful_transformation(model, {"past": "present"})
    ov.save_model(model, tmp_path / "cache.xml")
    request = ov.Core().compile_model(tmp_path / "cache.xml", "CPU").create_infer_request()
    request.infer({"x": np.ones((1, 2, 4), np.float32)})
    assert request.query_state()[0].state.shape == [1, 2, 4]  # (an empty past, then the 2 steps fed)
    assert main(["compare", str(tmp_path / "cache.xml"), "--steps", "3", "-q"]) == 0, capsys.readouterr()
    info = VariableInfo()
    info.data_shape, info.data_type, info.variable_id = ov.PartialShape([ov.Dimension(1, 4), 2]), ov.Type.f32, "rows"
    variable = Variable(info)
    rows = ops6.parameter([-1, 2], np.float32, name="rows")
    stacked = ops6.concat([ops6.read_value(variable), rows], 0)
    model = ov.Model([ops6.result(stacked)], [ops6.assign(stacked, variable)], [rows], "rows")
    ov.save_model(model, tmp_path / "rows.xml")
    request = ov.Core().compile_model(tmp_path / "rows.xml", "CPU").create_infer_request()
    assert request.infer({"rows": np.ones((1, 2), np.float32)})[0].shape == (1, 2)  # [1..4, 2] started as [0, 2]
    assert main(["compare", str(tmp_path / "rows.xml"), "--shape", "rows:1,2", "-q"]) == 0, capsys.readouterr()
