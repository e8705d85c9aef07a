"""ReadValue-3/6 and Assign-3/6 (ops/state.py) against the installed OpenVINO.

(a) Shape rules: seeded ReadValue-6 nodes (an init input or none; the variable's type unknown, the input's or
another; its shape unknown, relaxing the input's or not: static, dynamic, interval and unbounded dims, dynamic
ranks), ReadValue-3 and Assign-3/6 nodes, built by OpenVINO's Python API on a Variable and by our rule from the IR
attributes OpenVINO writes for it: the same element type and partial shape, or both reject.

(b) The stateful fixture read by OpenVINO: each ReadValue and Assign output is what our rule infers.
"""

from __future__ import annotations

import random
from pathlib import Path

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

from .conformance import from_openvino, openvino_outcome
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
