"""Inverse-14 (ops/inverse.py) against OpenVINO: shape rule and CPU kernel.

Kernel: 480 seeded cases, 1,133 matrices (f32, f16, bf16 and f64 in turn, bf16 made by a Convert inside the model; n 0
to 8 in batch dims of rank 0 to 2, empty now and then; well-conditioned, small integers (often singular), near-singular,
rows and columns scaled apart, triangular, permutations, zeros; NaN of either sign, infinities, +-0, subnormals (not
bf16's, nor a Const's) and, in f64, values beyond f32's range; adjoint either way; a Const now and then) and 46 named
ones, bit for bit (NaNs' bits and zeros' signs too), batched 160 cases to a model, compiled once per model; and two
models of dynamic dims, each compiled once and run on 6 shapes. With its multiply-adds fused (FMAs), the kernel
differs from CPU on each of 200 random 8 x 8 matrices: CPU rounds each product. Shape rule: 600 seeded nodes on
Parameters (partial shapes of rank 0 to 5, square or not, intervals, dynamic ranks; element types real, integer,
boolean, nf4, string or dynamic; 353 of them refused) must give our rule's output, or both refuse; a refusal says what
OpenVINO says. ``check_versions``: opset14..16 read it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset13 as ops13
import openvino.opset14 as ops14
import pytest

from ir_tools import read_ir
from ir_tools.base.dims import show_shape
from ir_tools.base.errors import OpValidationError
from ir_tools.ops import inverse
from ir_tools.ops.inverse import INVERSE_14, InverseAttrs
from ir_tools.passes.shapes import propagate
from ir_tools.passes.validate import check
from ir_tools.runtime.executor import run
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import (
    Case,
    assert_all_pass,
    assert_compare_passes,
    assert_shapes_agree,
    bits_differ,
    blur,
    check_versions,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    show,
    tensor_types,
)
from .control_flow_cases import if_of

pytestmark = pytest.mark.openvino

SEED = 1414
CASES_PER_MODEL = 160
TYPES = ("f32", "f16", "bf16", "f64")
_NUMPY = {"f32": np.float32, "f16": np.float16, "bf16": np.float32, "f64": np.float64}
_SUBNORMAL = (1e-40, -3e-39)  # (in f32)
_SPECIAL = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, *_SUBNORMAL, 1e30], np.float64)
#: Element types the shape rule is asked about: OpenVINO's, by our names (None: dynamic).
ELEMENTS = {"f32": ov.Type.f32, "f16": ov.Type.f16, "bf16": ov.Type.bf16, "f64": ov.Type.f64,
            "f8e4m3": ov.Type.f8e4m3, "f4e2m1": ov.Type.f4e2m1, "i32": ov.Type.i32, "i64": ov.Type.i64,
            "u8": ov.Type.u8, "u1": ov.Type.u1, "boolean": ov.Type.boolean, "nf4": ov.Type.nf4,
            "string": ov.Type.string, None: ov.Type.dynamic}


def _matrices(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """float64 matrices of one family: well-conditioned, small integers (singular ones among them), near-singular (a
    row a mix of the others, moved by 1e-6), rows and columns scaled by up to 1e6 apart, triangular, a permutation
    (a zero pivot met first), or zeros."""
    n = shape[-1]
    family = pick(rng, ["normal", "normal", "integers", "near_singular", "scaled", "triangular", "permutation",
                        "zeros"])
    if family == "integers":
        return rng.integers(-3, 4, shape).astype(np.float64)
    x = rng.standard_normal(shape)
    if family == "near_singular" and n > 1:
        mix = rng.standard_normal(n - 1)
        x[..., -1, :] = np.einsum("k,...kj->...j", mix, x[..., :-1, :]) + 1e-6 * rng.standard_normal(shape[:-2] + (n,))
    elif family == "scaled":
        x = x * 10.0 ** rng.uniform(-3, 3, shape[:-1] + (1,)) * 10.0 ** rng.uniform(-3, 3, shape[:-2] + (1, n))
    elif family == "triangular":
        x = np.triu(x) if rng.random() < 0.5 else np.tril(x)
    elif family == "permutation":
        x = np.broadcast_to(np.eye(n)[rng.permutation(n)], shape) * rng.choice([1.0, -2.0, 0.5])
    elif family == "zeros":
        x = np.zeros(shape)
    return np.array(x)


def _inverse(kind: str, adjoint: bool):
    """Inverse of the input (made bf16 by a Convert, and back to f32 after, for ``kind`` bf16: numpy holds none)."""
    def build(ps: list[ov.Node]) -> ov.Node:
        x = ops1.convert(ps[0], "bf16") if kind == "bf16" else ps[0]
        node = ops14.inverse(x, adjoint)
        return ops1.convert(node, "f32") if kind == "bf16" else node
    return build


def inverse_case(rng: np.random.Generator, i: int) -> Case:
    kind = TYPES[i % len(TYPES)]
    n = 0 if rng.random() < 0.03 else int(rng.integers(1, 9))
    batch = tuple(int(d) for d in rng.integers(0 if rng.random() < 0.05 else 1, 4, int(rng.integers(0, 3))))
    shape = batch + (n, n)
    x = _matrices(rng, shape)
    if x.size and rng.random() < 0.3:  # special values: NaN, infinities, +-0, subnormals, large
        special = _SPECIAL if kind != "bf16" else _SPECIAL[~np.isin(_SPECIAL, _SUBNORMAL)]
        x = np.where(rng.random(shape) < 0.15, rng.choice(special, shape), x)
    if kind == "f64" and x.size and rng.random() < 0.3:  # beyond f32's range
        x = np.where(rng.random(shape) < 0.2, rng.choice([1e300, -1e300, 1e-300, 1e39]), x)
    if kind == "f16":
        x = x * pick(rng, [1.0, 1.0, 1e-3, 100.0])  # (results past 65504 overflow to inf)
    with np.errstate(over="ignore"):
        x = x.astype(_NUMPY[kind])
    adjoint = bool(rng.random() < 0.5)
    with np.errstate(over="ignore"):
        f32 = x.astype(np.float32)
        subnormal = np.any((f32 != 0) & (np.abs(f32) < np.float32(2.0**-126)))
    # A Const now and then: not of f16 (openvino's Python refuses its infinities) nor bf16 (a Convert of a Const CPU
    # folds by ov::bfloat16's rounding), nor holding f32 subnormals (CPU flushes a Const's to zero)
    const = rng.random() < 0.2 and kind in ("f32", "f64") and not subnormal
    return Case(f"Inverse {kind}{list(shape)} adjoint {adjoint}{' const' if const else ''}", [x],
                _inverse(kind, adjoint), consts=(0,) if const else (), bits=True)


@pytest.mark.parametrize("part", range(3))
def test_inverse_bit_for_bit(part: int, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, part])
    assert_all_pass([inverse_case(rng, i) for i in range(CASES_PER_MODEL)], tmp_path)


def named_matrices() -> list[np.ndarray]:
    """The edges the drawn cases seldom meet, as f64 values."""
    big = float(np.finfo(np.float32).max)
    return [
        np.zeros((1, 1)), np.array([[-0.0]]), np.array([[np.inf]]), np.array([[np.nan]]), np.array([[1e-45]]),
        np.eye(3), np.array([[0.0, 1.0], [1.0, 0.0]]),  # a zero pivot, swapped
        np.array([[1.0, 2.0], [2.0, 4.0]]),  # singular: 0 / 0
        np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),  # singular in exact arithmetic, not in f32
        np.array([[np.nan, 1.0], [5.0, 2.0]]),  # a NaN pivot candidate: never wins nor is beaten
        np.array([[2.0, 1.0], [np.nan, 3.0]]),
        np.array([[-3.0, 1.0], [3.0, 2.0]]),  # |tie|: the first row kept
        np.array([[1.0, np.inf], [0.0, 1.0]]), np.array([[big, big], [big, -big]]),  # inf - inf
        np.array([[1e-20, 1.0], [1.0, 1e-20]]), np.array([[1e20, 1.0], [1.0, 1e20]]),
        np.array([[1e300, 0.0], [0.0, 1e-300]]),  # (f64: saturated, then 1 / 0)
    ]


def test_named_cases(tmp_path: Path) -> None:
    """``named_matrices`` in f32, f64 and, where it holds them, f16, adjoint every other case."""
    cases = []
    for x in named_matrices():
        for kind in ("f32", "f64", "f16"):
            if kind == "f16" and not np.all(np.isnan(x) | (np.abs(x) <= 65504)):
                continue
            with np.errstate(over="ignore"):
                value = x.astype(_NUMPY[kind])
            adjoint = bool(len(cases) % 2)
            cases.append(Case(f"Inverse {kind} {x.tolist()} adjoint {adjoint}", [value], _inverse(kind, adjoint),
                              bits=True))
    assert len(cases) == 46
    assert_all_pass(cases, tmp_path)


def test_dynamic_dims(tmp_path: Path) -> None:
    """Two models of dynamic dims (an interval among them), each compiled once and run on 6 shapes: OpenVINO CPU's
    values and ours (the IR read back and run by the executor), bit for bit. (CPU compiles no Parameter of a dynamic
    rank.)"""
    rng = np.random.default_rng([SEED, 200])
    for dims, shapes in (([-1, ov.Dimension(1, 6), -1], ([2, 3, 3], [1, 1, 1], [4, 6, 6], [0, 2, 2], [3, 5, 5],
                                                          [1, 4, 4])),
                         ([-1, -1, -1, -1], ([1, 2, 3, 3], [2, 1, 8, 8], [1, 1, 1, 1], [2, 2, 0, 0], [3, 0, 2, 2],
                                             [1, 3, 7, 7]))):
        x = ops1.parameter(ov.PartialShape(dims), np.float32, name="x")
        node = ops14.inverse(x, True)
        node.output(0).get_tensor().set_names({"y"})
        model = ov.Model([node], [x], "dynamic")
        path = tmp_path / f"dynamic{len(dims)}.xml"
        ov.save_model(model, str(path), compress_to_fp16=False)
        graph = read_ir(path)
        compiled = ov.Core().compile_model(model, "CPU", CPU_CONFIG)
        for shape in shapes:
            value = _matrices(rng, tuple(shape)).astype(np.float32)
            assert bits_differ(run(graph, {"x": value})["y"], compiled([value])[0]) is None, (shape, dims)


def test_cpu_rounds_each_product() -> None:
    """200 random 8 x 8 matrices: CPU's inverse is the kernel's, bit for bit, and not what FMAs would give (on every
    one of them): OpenVINO's C++ computes ``a - b * c`` as a product and a difference, each rounded."""
    x = np.random.default_rng([SEED, 300]).standard_normal((200, 8, 8)).astype(np.float32)
    p = ops1.parameter([200, 8, 8], np.float32)
    theirs = ov.Core().compile_model(ov.Model([ops14.inverse(p, False)], [p]), "CPU", CPU_CONFIG)([x])[0]
    ours = INVERSE_14.compute(InverseAttrs(), [x])[0]
    assert bits_differ(ours, theirs) is None
    fused = inverse.lu_inverse(x, fused=True)
    assert np.all(np.any(fused != theirs, axis=(1, 2)))


def test_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 100])
    cases = []
    for _ in range(600):
        rank = int(pick(rng, [0, 1, 2, 2, 3, 3, 4, 5]))
        n = int(rng.integers(0, 6))
        lengths = [int(d) for d in rng.integers(0, 5, rank)]
        if rank >= 2:
            lengths[-2:] = [n, n] if rng.random() < 0.7 else [n, int(rng.integers(0, 6))]
        shape = None if rng.random() < 0.1 else tuple(blur(rng, d) for d in lengths)
        element = pick(rng, ["f32", "f32", "f32", "f16", "bf16", "f64", "f8e4m3", "f4e2m1", None, "i32", "i64", "u8",
                             "u1", "boolean", "nf4", "string"])
        raw = {"adjoint": pick(rng, ["true", "false"])}

        def theirs(shape=shape, element=element, raw=raw):
            return openvino_outcome(lambda: ops14.inverse(ops1.parameter(partial_shape(shape), ELEMENTS[element]),
                                                          raw["adjoint"] == "true"))

        def ours(shape=shape, element=element, raw=raw):
            return our_outcome("Inverse", "opset14", raw, tensor_types([element], [shape]), [None])

        cases.append((f"Inverse {element}{show(shape)} {raw}", theirs, ours))
    assert_shapes_agree(cases)
    assert sum(theirs() == "rejects" for _, theirs, _ in cases) == 353  # (ranks below 2, non-square, not real)


@pytest.mark.parametrize("shape, element", [([3], "f32"), ([], "f32"), ([2, 3], "f32"), ([4, 2, 5], "i32"),
                                            ([1], "i32"), ([2, 2], "i32"), ([2, 2], "boolean"), ([3, 3], "nf4")])
def test_refusals_say_what_openvino_says(shape: list[int], element: str) -> None:
    """Where OpenVINO refuses, ours refuses with OpenVINO's own words (the shape's first, then the element type's)."""
    with pytest.raises(RuntimeError) as theirs:
        ops14.inverse(ops1.parameter(shape, ELEMENTS[element]), False)
    with pytest.raises(OpValidationError) as ours:
        INVERSE_14.infer(InverseAttrs(), tensor_types([element], [tuple((d, d) for d in shape)]), [None])
    assert ours.value.message in str(theirs.value), (ours.value.message, str(theirs.value))
    assert ours.value.message in (inverse.NOT_A_MATRIX, inverse.NOT_SQUARE, inverse.NOT_REAL)


def test_openvino_neither_folds_nor_bounds_it(tmp_path: Path) -> None:
    """An Inverse of a Const is unknown to OpenVINO's shape inference (no evaluate()): a Reshape whose target it
    computes is [?,?] to OpenVINO, an If whose condition it computes merges both bodies ([1,2..4]). Our shape walk
    infers the same (``evaluates=never``): computing the value, it inferred [4,2] and [1,4], an E-SHAPE on OpenVINO's
    own file."""

    def inverted(values: list[list[float]]) -> ov.Node:
        return ops14.inverse(ops1.constant(np.array(values, np.float32)), False)

    x = ops1.parameter([8], np.float32, name="x")
    target = ops1.convert(ops1.reshape(inverted([[0.25, 0.0], [0.0, 0.5]]), ops1.constant(np.array([4])), False),
                          "i64")
    reshaped = ops1.reshape(x, ops1.gather(target, ops1.constant(np.array([0, 3])), ops1.constant(np.int64(0))),
                            False)
    y = ops13.parameter([1, 2], np.float32, name="y")
    tx, ex = ops13.parameter([1, 2], np.float32), ops13.parameter([1, 2], np.float32)
    then = ov.Model([ops13.result(ops13.concat([tx, tx], 1))], [tx], "then")
    orelse = ov.Model([ops13.result(ops13.exp(ex))], [ex], "else")
    condition = ops13.greater(ops13.squeeze(inverted([[2.0]]), ops13.constant(np.array([0, 1]))),
                            ops13.constant(np.float32(0.25)))
    chosen = if_of(condition.output(0), y.output(0), then, orelse)
    for node, parameter, theirs in ((reshaped, x, "[?,?]"), (chosen.get_node(), y, "[1,2..4]")):
        assert str(node.get_output_partial_shape(0)) == theirs
        node.set_friendly_name("out")
        path = tmp_path / f"{node.get_type_name()}.xml"
        ov.save_model(ov.Model([node.output(0)], [parameter]), str(path), compress_to_fp16=False)
        graph = read_ir(path)
        layer = next(layer for layer in graph.layers() if layer.name == "out")
        found = propagate(graph).types[(layer.id, layer.outputs[0].id)]
        assert check(path) == [] and show_shape(found.shape) == theirs, show_shape(found.shape)


def test_opsets(tmp_path: Path) -> None:
    x = ops1.parameter([2, 3, 3], np.float32)
    assert check_versions({"Inverse": ops14.inverse(x, False)}, [x], tmp_path) == []


def test_compare_checks_inverse(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """x -> Inverse (adjoint) -> Multiply compared end to end and per layer: checked, nothing left unchecked (Inverse
    was listed as not checked)."""
    x = ops1.parameter([2, 4, 4], np.float32, name="x")
    node = ops1.multiply(ops14.inverse(x, True), ops1.constant(np.float32(0.5)))
    xml = tmp_path / "inverse.xml"
    ov.save_model(ov.Model([ops1.result(node)], [x], "inverse"), xml)
    assert_compare_passes(xml, capsys, {"Inverse@opset14"}, outputs=1)
