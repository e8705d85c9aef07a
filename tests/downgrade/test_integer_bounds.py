"""``integer_bounds`` (passes/downgrade/integer_bounds.py) holds every value OpenVINO computes: 300 seeded shape
subgraphs (ShapeOf of inputs of static and dynamic dims, Consts, Add, Subtract, Maximum, Minimum, FloorMod of small
and of large values, Convert, Concat, Reshape, Split, Squeeze, Unsqueeze, Gather), run on the current OpenVINO and
on 2023.0 over inputs of seeded shapes. Not a Gather beyond its axis: CPU then reads what it finds, and values after
it (a FloorMod by 4, then an Add) fell outside any bound. What the bounds prove: Swin's pads non-negative
(tests/downgrade/test_pad.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.passes.downgrade.integer_bounds import integer_bounds
from tests.test_target import side_pythons

pytestmark = pytest.mark.openvino

#: The inputs' dims: (least, greatest), -1 unbounded (their IR ports say -1 for any dim not static).
DIMS = [[(1, 9), (2, 5), (3, 40), (0, 4)], [(4, 4), (1, 64), (7, 7), (1, -1)], [(2, 2), (3, 3), (5, 5), (2, 2)]]
CASES = 300


def _expression(rng: np.random.Generator, leaves: list, depth: int):  # noqa: ANN202 (openvino nodes)
    """A seeded i32 or i64 vector of length 4 computed from ``leaves`` (ShapeOf outputs) and Consts."""
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    if depth == 0 or rng.random() < 0.2:
        if rng.random() < 0.7:
            return leaves[int(rng.integers(len(leaves)))]
        return o1.constant(rng.integers(-20, 21, 4).astype(np.int64))

    def sub() -> object:
        return _expression(rng, leaves, depth - 1)

    def same(a: object, b: object) -> tuple[object, object]:
        return a, o1.convert(b, a.get_element_type())

    kind = str(rng.choice(["Add", "Subtract", "Maximum", "Minimum", "FloorMod", "FloorModConst", "FloorModLarge",
                           "Convert", "Concat", "Picks", "Gather"]))
    binary: dict[str, Callable] = {"Add": o1.add, "Subtract": o1.subtract, "Maximum": o1.maximum,
                                   "Minimum": o1.minimum, "FloorMod": o1.floor_mod}
    if kind in binary:
        return binary[kind](*same(sub(), sub()))
    if kind == "FloorModConst":
        x = sub()
        return o1.floor_mod(x, o1.constant(np.array(int(rng.integers(1, 9)), x.get_element_type().to_dtype())))
    if kind == "FloorModLarge":  # (CPU computes it through f32: of 2^30 and more, it gives -128 and 128 too)
        large = o1.add(o1.convert(sub(), "i64"), o1.constant(rng.integers(2**30, 2**40, 4).astype(np.int64)))
        return o1.floor_mod(large, o1.constant(np.int64(rng.integers(3, 8))))
    if kind == "Convert":
        return o1.convert(sub(), str(rng.choice(["i32", "i64"])))
    both = o1.concat(list(same(sub(), sub())), 0)  # length 8
    if kind == "Concat":
        return o8.gather(both, o1.constant(rng.integers(0, 8, 4).astype(np.int64)), o1.constant(np.int64(0)))
    if kind == "Picks":
        rows = o1.reshape(both, o1.constant(np.array([2, 4], np.int64)), False)
        first, second = o1.split(rows, o1.constant(np.int64(0)), 2).outputs()
        chosen = first if rng.random() < 0.5 else second
        return o1.squeeze(o1.unsqueeze(o1.squeeze(chosen, o1.constant(np.int64(0))), o1.constant(np.int64(1))),
                          o1.constant(np.int64(1)))
    return o8.gather(both, o1.constant(rng.integers(-8, 8, 4).astype(np.int64)), o1.constant(np.int64(0)))


def _model(path: Path) -> Path:
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset3 as o3

    rng = np.random.default_rng(31)
    params = [o1.parameter(ov.PartialShape([ov.Dimension(lo, hi) for lo, hi in dims]), np.float32, name=f"x{i}")
              for i, dims in enumerate(DIMS)]
    leaves = [o3.shape_of(p, t) for p in params for t in ("i32", "i64")]
    results = []
    for i in range(CASES):
        value = _expression(rng, leaves, int(rng.integers(1, 5)))
        named = o1.add(value, o1.constant(np.array(0, value.get_element_type().to_dtype())))  # (its own tensor)
        named.output(0).get_tensor().set_names({f"v{i}"})
        results.append(o1.result(named))
    ov.save_model(ov.Model(results, params, "bounds"), str(path))
    return path


def _shapes(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {f"x{i}": np.zeros([int(rng.integers(lo, (hi if hi >= 0 else lo + 6) + 1)) for lo, hi in dims],
                              np.float32) for i, dims in enumerate(DIMS)}


def test_integer_bounds_hold_every_value_openvino_computes(tmp_path: Path) -> None:
    import openvino as ov

    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner

    model = _model(tmp_path / "bounds.xml")
    graph = ir_tools.read_valid(model)
    by_name = {}
    for result in graph.results():
        producer = graph.producer_key(result.id, result.input_ids()[0])
        by_name[graph.layer(producer[0]).output(producer[1]).names] = integer_bounds(graph, producer)
    compiled = ov.Core().compile_model(str(model), "CPU")
    rng = np.random.default_rng(32)
    got = [{out.get_any_name(): value for out, value in compiled(_shapes(rng)).items()} for _ in range(12)]
    pythons = side_pythons()
    if "2023.0" in pythons:
        older = ChildOpenVinoRunner(pythons["2023.0"], graph, ModelFiles(model, model.with_suffix(".bin")))
        got += [older.run(_shapes(rng)) for _ in range(3)]
    assert all(len(values) == CASES for values in got)
    for values in got:
        for name, value in values.items():
            lo, hi = by_name[name]
            assert lo <= value.min() and value.max() <= hi, (name, value, (lo, hi))
    tight = sum(hi - lo < 2**20 for lo, hi in by_name.values())
    assert tight > CASES // 10, tight  # (the bounds say something: not only the types' ranges)


def test_each_output_is_bounded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chain of 20 Add(x, x) from a ShapeOf: each output is walked once per depth, not 2^20 times (a shape subgraph
    reads one output twice; no OpenVINO asked)."""
    from ir_tools import Graph, GraphBuilder, output_of
    from ir_tools.base.dims import Dim
    from ir_tools.passes.downgrade import integer_bounds as module

    graph = Graph()
    b = GraphBuilder(graph)
    x = b.parameter("x", "f32", (Dim(2, 2), Dim(3, 3)))
    value = output_of(b.add("ShapeOf", "opset3", {"output_type": "i64"}, [x], "shape"))
    for i in range(20):
        value = output_of(b.add("Add", "opset1", None, [value, value], f"twice{i}"))
    calls = []
    walked = module._bounds_of
    monkeypatch.setattr(module, "_bounds_of", lambda *args: calls.append(args[1]) or walked(*args))
    assert integer_bounds(graph, value) == (2 * 2**20, 3 * 2**20)
    assert len(calls) == 21  # (the 20 Adds and the ShapeOf)
