"""RandomUniform-8 and Multinomial-13 (ops/random.py) against OpenVINO: shape rules only (no kernels: their outputs
are pseudo-random).

Per op, 300 seeded nodes on Parameters and Consts (partial shapes, dynamic ranks, element types, shape and num_samples
values known or not, min and max known or not, refusals among them) must give our rule's output type and partial
shape, or both refuse; then 120 per op whose shape or num_samples input is computed from a ShapeOf of a partial shape
(Gather, Concat, i32 or i64), saved as one model: the shape walk (passes/shapes.py, OpenVINO's bounds of those values)
must infer each as OpenVINO does. A file holding both passes ``check`` with every layer re-inferred by us, and the
executor refuses to run it (no kernel).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset3 as ops3
import openvino.opset8 as ops8
import pytest
from openvino.utils.node_factory import NodeFactory

import ir_tools
from ir_tools import read_ir
from ir_tools.base.errors import UnsupportedError
from ir_tools.ops.spec import TensorType
from ir_tools.passes.shapes import propagate
from ir_tools.passes.validate import check_graph
from ir_tools.runtime.executor import run

from .conformance import (
    Bounds,
    Outcome,
    assert_shapes_agree,
    from_dims,
    from_openvino,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    random_bounds,
    show,
    to_dims,
)

pytestmark = pytest.mark.openvino

SEED = 813
CASES = 300
SHAPE_OF_CASES = 120
OPSET8 = NodeFactory("opset8")
OPSET13 = NodeFactory("opset13")
INT64_MAX = 2**63 - 1

#: Element types of the tensors the cases build (numpy's where a Const may hold one).
NUMPY = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
         "i8": np.int8, "u64": np.uint64, "boolean": np.bool_}
UNIFORM_TYPES = ("f32", "f16", "f64", "bf16", "i32", "i64", "f8e4m3", "u8", "i8", "boolean")
SHAPE_TYPES = ("i64",) * 6 + ("i32",) * 4 + (None, "u8", "f32")
PROBS_TYPES = ("f32",) * 6 + ("f16", "f64", "bf16", "f8e5m2", None, "i32", "boolean")
COUNT_TYPES = ("i64",) * 5 + ("i32", "i32", "u8", "i8", "u64", None, "u1", "f32", "boolean")


class Input:
    """A case's node input: a Constant of ``value`` (of ``element``) or a Parameter of ``element`` and ``shape``."""

    def __init__(self, element: str | None, shape: Bounds = None, value: np.ndarray | None = None):
        self.element, self.shape, self.value = element, shape, value
        if value is not None:
            self.shape = tuple((n, n) for n in value.shape)

    def node(self) -> ov.Node:
        if self.value is not None:
            return ov.op.Constant(self.value)
        return ops1.parameter(partial_shape(self.shape), ov.Type.dynamic if self.element is None else
                              getattr(ov.Type, self.element))

    def ours(self) -> tuple[TensorType, np.ndarray | None]:
        return TensorType(self.element, to_dims(self.shape)), self.value

    def __str__(self) -> str:
        return f"{self.element}{show(self.shape)}" + ("" if self.value is None else f"={self.value.tolist()}")


def case(op: str, version: str, attrs: dict[str, str], inputs: list[Input]):
    """(what, OpenVINO's outcome, ours) of one node."""
    factory = OPSET8 if op == "RandomUniform" else OPSET13

    def theirs() -> Outcome:
        return openvino_outcome(lambda: factory.create(op, [i.node().output(0) for i in inputs], attrs))

    def ours() -> Outcome:
        types, values = zip(*(i.ours() for i in inputs), strict=True)
        return our_outcome(op, version, {k: str(v) for k, v in attrs.items()}, list(types), list(values))

    return f"{op} {attrs} on {', '.join(map(str, inputs))}", theirs, ours


def one_element_shape(rng: np.random.Generator) -> Bounds:
    """A shape for a value of one element: mostly a scalar or [1], now and then [?], [0..3], [2], [1,1] or dynamic."""
    return pick(rng, [()] * 5 + [((1, 1),)] * 4 + [((0, None),), ((0, 3),), ((2, 2),), ((1, 1), (1, 1)), None])


def shape_value(rng: np.random.Generator, n: int) -> list[int]:
    """Shape values: small lengths, now and then -1, another negative one, 0 or INT64_MAX (an empty dim)."""
    return [int(pick(rng, [1, 2, 3, 5, 7, 0, -1, -3] + [INT64_MAX] * (rng.random() < 0.1))) for _ in range(n)]


def uniform_cases(rng: np.random.Generator, count: int) -> list:
    cases = []
    for _ in range(count):
        out = pick(rng, UNIFORM_TYPES) if rng.random() < 0.25 else pick(rng, ("f32", "i64", "i32", "f16"))
        element = pick(rng, SHAPE_TYPES)
        length = int(rng.integers(0, 5))
        if rng.random() < 0.35 and element in ("i32", "i64"):
            values = shape_value(rng, length)
            if element == "i32":
                values = [min(v, 2**31 - 1) for v in values]
            shape = Input(element, value=np.array(values, NUMPY[element]))
        else:
            shape = Input(element, pick(rng, [random_bounds(rng, [length])] * 12 + [None, (), ((2, 2), (1, 1))]))
        low_type = out if rng.random() < 0.9 else pick(rng, UNIFORM_TYPES + (None,))
        high_type = low_type if rng.random() < 0.95 else pick(rng, UNIFORM_TYPES + (None,))
        low = float(pick(rng, [0, -2, 1]))
        high = low + pick(rng, [1, 2.5, 7]) if rng.random() < 0.8 else pick(rng, [low, low - 1, np.nan, 2.0**53 + 1])
        if high == 2.0**53 + 1:
            low = 2.0**53  # (equal as doubles, apart as i64)
        bounds = []
        for element_of, value in ((low_type, low), (high_type, high)):
            if element_of in ("f32", "f16", "f64", "i32", "i64") and rng.random() < 0.5:
                value = int(value) if element_of in ("i32", "i64") and np.isfinite(value) else value
                value = 3 if element_of == "i32" and not np.isfinite(value) or element_of == "i32" and value > 2**31 \
                    else value
                if element_of == "i64" and not np.isfinite(value):
                    value = 3
                shape_of_value = pick(rng, [()] * 4 + [(1,)] * 3 + [(2,)])
                with np.errstate(over="ignore"):  # (2^53 is inf in f16)
                    bounds.append(Input(element_of, value=np.full(shape_of_value, value, NUMPY[element_of])))
            else:
                bounds.append(Input(element_of, one_element_shape(rng)))
        attrs = {"output_type": out, "global_seed": int(rng.integers(0, 9)), "op_seed": int(rng.integers(0, 9))}
        if rng.random() < 0.3:
            attrs["alignment"] = pick(rng, ["tensorflow", "pytorch"])
        cases.append(case("RandomUniform", "opset8", attrs, [shape, *bounds]))
    return cases


def multinomial_cases(rng: np.random.Generator, count: int) -> list:
    cases = []
    for _ in range(count):
        rank = pick(rng, [2] * 9 + [1, 3, None])
        probs = Input(pick(rng, PROBS_TYPES), None if rank is None else random_bounds(rng, [3, 5, 2][:rank]))
        element = pick(rng, COUNT_TYPES)
        if element in NUMPY and element not in ("f32", "boolean") and rng.random() < 0.5:
            value = int(pick(rng, [0, 1, 4, 9, -1, -5, INT64_MAX, INT64_MAX - 1, 2**64 - 1]))
            dtype = np.dtype(NUMPY[element])
            value = value if np.iinfo(dtype).min <= value <= np.iinfo(dtype).max else 4
            count_in = Input(element, value=np.full(pick(rng, [()] * 4 + [(1,)] * 4 + [(0,), (2,)]), value, dtype))
        else:
            count_in = Input(element, one_element_shape(rng))
        attrs = {"convert_type": pick(rng, ["i64", "i32", "f32", "u8", "f16"]),
                 "with_replacement": bool(rng.random() < 0.5), "log_probs": bool(rng.random() < 0.5),
                 "global_seed": int(rng.integers(0, 9)), "op_seed": int(rng.integers(0, 9))}
        cases.append(case("Multinomial", "opset13", attrs, [probs, count_in]))
    return cases


def assert_agree_or_declined(cases: list) -> None:
    """``assert_shapes_agree``, but where our rule declines (an INT64_MAX shape value: OpenVINO's empty dim, which a
    Dim cannot hold) OpenVINO must have inferred such a dim."""
    kept = []
    for what, theirs, ours in cases:
        if ours() == "declines":
            want = theirs()
            assert want != "rejects" and any(lo < 0 for _, shape in want for lo, _ in shape or ()), (what, want)
        else:
            kept.append((what, theirs, ours))
    assert len(kept) > 0.9 * len(cases)
    assert_shapes_agree(kept)


def test_random_uniform_shape_rule() -> None:
    cases = uniform_cases(np.random.default_rng(SEED), CASES)
    outcomes = [theirs() for _, theirs, _ in cases]
    assert 0.2 * CASES < sum(o == "rejects" for o in outcomes) < 0.7 * CASES  # (refusals and answers both)
    assert_agree_or_declined(cases)


def test_multinomial_shape_rule() -> None:
    cases = multinomial_cases(np.random.default_rng(SEED + 1), CASES)
    outcomes = [theirs() for _, theirs, _ in cases]
    assert 0.2 * CASES < sum(o == "rejects" for o in outcomes) < 0.7 * CASES
    assert_agree_or_declined(cases)


def shape_values(rng: np.random.Generator, x: ov.Node, length: int) -> ov.Node:
    """A 1-D value of ``length`` elements computed from x's shape (its dims in any order, Const ones among them),
    i32 or i64: OpenVINO bounds it by x's dims."""
    element = pick(rng, ["i64", "i32"])
    dtype = NUMPY[element]
    shape = ops3.shape_of(x, element)
    parts = []
    for _ in range(length):
        if rng.random() < 0.2:
            parts.append(ops1.constant(np.array([int(rng.integers(0, 4))], dtype)))
        else:
            parts.append(ops8.gather(shape, ops1.constant(np.array([int(rng.integers(0, 3))], np.int64)),
                                     ops1.constant(np.int64(0))))
    return parts[0] if length == 1 else ops1.concat(parts, 0)


def shape_of_model(rng: np.random.Generator, count: int) -> tuple[ov.Model, list[str]]:
    """``count`` RandomUniform and ``count`` Multinomial nodes whose shape or num_samples input is computed from a
    ShapeOf of a Parameter of a partial shape, in one model; their names."""
    params, outputs, names = [], [], []
    for i in range(count):
        x = ops1.parameter(partial_shape(random_bounds(rng, [2, 3, 4])), np.float32, name=f"x{i}")
        params.append(x)
        out = pick(rng, ["f32", "i64", "f16"])
        uniform = OPSET8.create("RandomUniform", [shape_values(rng, x, int(rng.integers(1, 4))).output(0),
                                                  ops1.constant(np.array(0, NUMPY[out])).output(0),
                                                  ops1.constant(np.array(9, NUMPY[out])).output(0)],
                                {"output_type": out, "global_seed": 1, "op_seed": i})
        probs = ops1.parameter(partial_shape(random_bounds(rng, [3, 5])), np.float32, name=f"p{i}")
        params.append(probs)
        count_in = shape_values(rng, x, 1)
        if rng.random() < 0.5:
            count_in = ops1.squeeze(count_in, ops1.constant(np.array([0], np.int64)))
        samples = OPSET13.create("Multinomial", [probs.output(0), count_in.output(0)],
                                 {"convert_type": "i64", "with_replacement": True, "log_probs": False,
                                  "global_seed": 1, "op_seed": i})
        for node, name in ((uniform, f"uniform{i}"), (samples, f"samples{i}")):
            node.set_friendly_name(name)
            outputs.append(node.output(0))
            names.append(name)
    return ov.Model(outputs, params, "bounded"), names


def test_values_from_a_shape_of_are_read_by_their_bounds(tmp_path: Path) -> None:
    """Shape and num_samples values OpenVINO bounds: the shape walk infers each node as OpenVINO does, intervals
    included, and re-infers every one."""
    model, names = shape_of_model(np.random.default_rng(SEED + 2), SHAPE_OF_CASES)
    path = tmp_path / "bounded.xml"
    ov.save_model(model, str(path), compress_to_fp16=False)
    theirs = {op.get_friendly_name(): from_openvino(op.get_output_partial_shape(0))
              for op in ov.Core().read_model(str(path)).get_ops()}
    graph = read_ir(path)
    result = propagate(graph)
    assert not result.diagnostics, [d.render() for d in result.diagnostics][:5]
    assert not [layer.name for layer in result.not_inferred]
    layers = {layer.name: layer for layer in graph.layers()}
    differ = []
    for name in names:
        layer = layers[name]
        ours = from_dims(result.types[(layer.id, layer.outputs[0].id)].shape)
        if ours != theirs[name]:
            differ.append(f"{name}: OpenVINO {show(theirs[name])}, ours {show(ours)}")
    assert not differ, f"{len(differ)} of {len(names)} differ:\n" + "\n".join(differ[:20])
    bounded = [b for b in theirs.values() if b is not None and any(lo != hi and hi is not None for lo, hi in b)]
    assert len(bounded) >= 20  # (intervals, not only static and dynamic dims)


def test_a_file_of_both_is_re_inferred_by_ir_tools_and_not_run(tmp_path: Path) -> None:
    """check passes with both layers re-inferred by our rules; the executor has no kernel for either."""
    x = ops1.parameter(ov.PartialShape([ov.Dimension(2, 6), 3]), np.float32, name="x")
    shape = ops3.shape_of(x, "i64")
    uniform = ops8.random_uniform(shape, ops1.constant(np.float32(0)), ops1.constant(np.float32(1)), "f32", 4, 5)
    probs = ops1.softmax(ops1.add(x, uniform), 1)
    samples = OPSET13.create("Multinomial", [probs.output(0), ops1.constant(np.int64(7)).output(0)],
                             {"convert_type": "i32", "with_replacement": True, "log_probs": False, "global_seed": 4,
                              "op_seed": 6})
    path = tmp_path / "random.xml"
    ov.save_model(ov.Model([samples.output(0)], [x], "random"), str(path), compress_to_fp16=False)
    assert [d for d in ir_tools.check(path) if d.severity == "error"] == []
    graph = read_ir(path)
    diagnostics, result = check_graph(graph)
    assert not diagnostics, diagnostics
    assert result is not None and not result.not_inferred, [layer.name for layer in result.not_inferred]
    types = {graph.layer(lid).type: t for (lid, _), t in result.types.items()}
    assert (show(from_dims(types["RandomUniform"].shape)), show(from_dims(types["Multinomial"].shape))) == \
        (show(((2, 6), (3, 3))), show(((2, 6), (7, 7))))
    with pytest.raises(UnsupportedError, match="cannot run"):
        run(graph, {"x": np.zeros((2, 3), np.float32)})
