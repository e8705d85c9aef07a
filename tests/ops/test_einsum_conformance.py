"""Einsum-7 (ops/matmul.py) against OpenVINO: shape rule and CPU kernel.

Kernels: 330 seeded cases (f32, f16, and i32 small enough for the CPU's f32 arithmetic to be exact),
a third the equations real exporters emit (maxvit's attention, matmuls, transposes, reductions,
traces and diagonals, ellipsis batches, implicit mode, three operands) and the rest from a seeded
random label generator (upper and lower case, repeated labels, ellipses of 0 to 2 dims that
broadcast, labels of size 1 that broadcast, summed ellipses), in three models compiled once each for
OpenVINO CPU; values must be within the rounding rule's bound alone. Shape rule: 600 seeded nodes
(those equations and broken ones: bad characters, spaces, two ellipses, wrong input counts, output
labels no input has) on Parameters of partial shapes (static, dynamic, interval and unbounded dims,
dynamic ranks, dims that do not broadcast, boolean, mixed and dynamic element types) must give our
rule's output partial shape and element type, or both refuse.

OpenVINO 2026.4.1 behaviour measured here that its specification does not say: see the docstring
of ir_tools/ops/matmul.py (implicit mode keeps a label repeated in one input, which CPU then refuses
to compile; labels broadcast across inputs; whitespace is refused; only boolean inputs are refused).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset7 as ops7
import pytest

from ir_tools.base.dims import shape_from_ints
from ir_tools.base.errors import OpValidationError
from ir_tools.ops import attrs as A
from ir_tools.ops.matmul import EINSUM_7, parse_equation
from ir_tools.ops.spec import TensorType
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import (
    ELEMENTS,
    Bounds,
    Case,
    assert_all_pass,
    assert_shapes_agree,
    blur,
    check_versions,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    rule_limits,
    show,
    to_dims,
)

pytestmark = pytest.mark.openvino

SEED = 20307
CASES_PER_MODEL = 110
NAMES = {np.float32: "f32", np.float16: "f16", np.int32: "i32"}
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: Equations real exporters emit (maxvit's attention first).
REAL = ("BGHID,BGHJD->BGHIJ", "BGHIJ,BGHJD->BGHID", "ij,jk->ik", "bij,bjk->bik", "bhqd,bhkd->bhqk", "ij->ji",
        "nchw->nhwc", "ij->i", "ij->j", "ij->", "ii->i", "ii->", "bii->bi", "...ij,...jk->...ik", "...ij->...ji",
        "...ii->...i", "ij,jk", "ba", "i,i", "i,j->ij", "bn,anm,bm->ba", "ij,jk,kl->il", "i,i->i", "bi,bi->b")


def random_equation(rng: np.random.Generator) -> str:
    """1 to 3 inputs of up to 3 labels (repeats make diagonals), an ellipsis in some, an explicit output of
    distinct labels (the ellipsis kept or summed) or implicit mode where it has no repeated label."""
    pool = list(rng.choice(list(LETTERS), 5, replace=False))
    subscripts = [list(rng.choice(pool, int(rng.integers(0, 4)))) for _ in range(int(pick(rng, [1, 2, 2, 2, 3])))]
    if rng.random() < 0.3:
        for labels in subscripts:
            if rng.random() < 0.7:
                labels.insert(int(rng.integers(0, len(labels) + 1)), "...")
    equation = ",".join("".join(labels) for labels in subscripts)
    if rng.random() < 0.2 and len(set(parse_equation(equation)[1])) == len(parse_equation(equation)[1]):
        return equation
    labels = sorted({label for labels in subscripts for label in labels} - {"..."})
    out = list(rng.permutation(labels)[:int(rng.integers(0, len(labels) + 1))])
    if "..." in equation and rng.random() < 0.8:
        out.insert(int(rng.integers(0, len(out) + 1)), "...")
    return equation + "->" + "".join(out)


def shapes_for(rng: np.random.Generator, equation: str, broadcast: bool = True) -> list[list[int]]:
    """Input shapes that fit ``equation``: one size per label, an ellipsis of 0 to 2 dims right-aligned;
    with ``broadcast``, some label and ellipsis dims 1 in one input."""
    subscripts, _ = parse_equation(equation)
    size = {label: int(rng.integers(1, 5)) for label in LETTERS}
    size.update({"B": 1, "G": 4, "H": 2, "I": 7, "J": 7, "D": 8})  # maxvit's shapes, smaller
    lanes = [int(n) for n in rng.integers(1, 4, int(rng.integers(0, 3)))]
    shapes = []
    for labels in subscripts:
        ones = {label for label in labels if broadcast and rng.random() < 0.1}
        shape: list[int] = []
        for label in labels:
            if label == "...":
                w = int(rng.integers(0, len(lanes) + 1))
                shape += [1 if broadcast and rng.random() < 0.2 else n for n in lanes[len(lanes) - w:]]
            else:
                shape.append(1 if label in ones else size[label])
        shapes.append(shape)
    return shapes


def kernel_case(rng: np.random.Generator, dtype: type) -> tuple[str, list[np.ndarray]]:
    equation = pick(rng, REAL) if rng.random() < 1 / 3 else random_equation(rng)
    shapes = shapes_for(rng, equation)
    if dtype is np.int32:
        return equation, [rng.integers(-3, 4, s).astype(np.int32) for s in shapes]
    return equation, [(rng.standard_normal(s) * 4).astype(dtype) for s in shapes]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_values_within_the_bound(dtype: type, tmp_path: Path) -> None:
    """OpenVINO CPU's values within the rule's bound of ours (the executor also re-infers every output shape)."""
    rng = np.random.default_rng([SEED, list(NAMES).index(dtype)])
    cases = []
    for _ in range(CASES_PER_MODEL):
        equation, xs = kernel_case(rng, dtype)
        cases.append(Case(f"{equation} {[x.shape for x in xs]}", xs, lambda ps, eq=equation: ops7.einsum(ps, eq),
                          rule_limits(EINSUM_7, {"equation": equation}, xs)))
    assert_all_pass(cases, tmp_path)


def test_implicit_mode_keeps_repeated_labels() -> None:
    """"ii" is [n, n] to OpenVINO's shape inference (no trace, as numpy's), and CPU refuses to compile it."""
    x = ops7.parameter([3, 3], np.float32)
    node = ops7.einsum([x], "ii")
    assert node.get_output_partial_shape(0) == ov.PartialShape([3, 3])
    with pytest.raises(RuntimeError):
        ov.Core().compile_model(ov.Model([node], [x]), "CPU", CPU_CONFIG)
    attrs = A.decode(EINSUM_7.attrs, {"equation": "ii"})
    assert EINSUM_7.infer(attrs, [TensorType("f32", shape_from_ints((3, 3)))], [None])[0].shape == \
        shape_from_ints((3, 3))
    with pytest.raises(OpValidationError):
        EINSUM_7.kernel(attrs, [np.eye(3, dtype=np.float32)])


def test_integers_wrap() -> None:
    """The specification's integer arithmetic (wrapping in the element type), not the CPU's f32 one."""
    a = np.full((2, 3), 2**20, np.int32)
    b = np.full((3, 2), 2**11 + 1, np.int32)
    (got,) = EINSUM_7.kernel(A.decode(EINSUM_7.attrs, {"equation": "ij,jk->ik"}), [a, b])
    np.testing.assert_array_equal(got, (a.astype(np.int64) @ b).astype(np.int32))


@pytest.mark.parametrize("equation, shapes", [("ij,jk->ik", [(2, 3), (4, 5)]), ("ii->i", [(2, 3)]),
                                              ("ij->k", [(2, 3)]), ("ij,jk", [(2, 3)]), ("ij", [(2,)]),
                                              ("...ij,...jk->...ik", [(2, 2, 3), (3, 3, 4)])])
def test_kernel_refuses_what_openvino_refuses(equation: str, shapes: list[tuple[int, ...]]) -> None:
    with pytest.raises(RuntimeError):
        ops7.einsum([ops7.parameter(list(s), np.float32) for s in shapes], equation)
    with pytest.raises(OpValidationError):
        EINSUM_7.kernel(A.decode(EINSUM_7.attrs, {"equation": equation}), [np.zeros(s, np.float32) for s in shapes])


# --- shape rule ------------------------------------------------------------------------------------


def broken(rng: np.random.Generator, equation: str) -> str:
    """An equation OpenVINO may refuse: a bad character, a space, a second ellipsis or arrow, a stray label."""
    at = int(rng.integers(0, len(equation) + 1))
    return equation[:at] + pick(rng, [" ", ".", "1", "_", "...", "->", ",", "-", "Z", "é"]) + equation[at:]


def shape_case(rng: np.random.Generator):
    equation = pick(rng, REAL) if rng.random() < 0.3 else random_equation(rng)
    shapes = shapes_for(rng, equation)
    if rng.random() < 0.15:
        equation = broken(rng, equation)
    if rng.random() < 0.08:  # a wrong input count
        shapes = shapes[:-1] if len(shapes) > 1 and rng.random() < 0.5 else shapes + [[2]]
    for s in shapes:
        if s and rng.random() < 0.1:  # a dim that may not match its label's
            s[int(rng.integers(0, len(s)))] += int(rng.integers(1, 3))
    bounds: list[Bounds] = [None if rng.random() < 0.08 else tuple(blur(rng, n) for n in s) for s in shapes]
    elements = ["f32"] * len(shapes)
    if rng.random() < 0.15:
        elements[int(rng.integers(0, len(elements)))] = pick(rng, ["f16", "i32", "boolean", None])
    what = f"Einsum '{equation}' " + " ".join(f"{e}{show(b)}" for e, b in zip(elements, bounds, strict=True))

    def theirs():
        return openvino_outcome(lambda: ops7.einsum(
            [ops7.parameter(partial_shape(b), ELEMENTS[e]) for b, e in zip(bounds, elements, strict=True)], equation))

    def ours():
        inputs = [TensorType(e, to_dims(b)) for e, b in zip(elements, bounds, strict=True)]
        return our_outcome("Einsum", "opset7", {"equation": equation}, inputs, [None] * len(inputs))

    return what, theirs, ours


def test_shape_rule_matches_openvino() -> None:
    rng = np.random.default_rng(SEED + 1)
    cases = [shape_case(rng) for _ in range(600)]
    assert_shapes_agree(cases)


@pytest.mark.parametrize("equation, shapes, want", [
    ("ij,ij->ij", [((2, 2), (1, 1)), ((2, 2), (3, 3))], ((2, 2), (3, 3))),  # a label broadcasts across inputs
    ("i,i->i", [((0, 3),), ((2, 7),)], ((2, 7),)),  # one may be 1: the other
    ("i,i->i", [((0, 3),), ((1, 7),)], ((0, 7),)),  # both may be 1: the hull
    ("i,i->i", [((2, 3),), ((0, None),)], ((2, 3),)),
    ("ii,i->i", [((1, 5), (2, 3)), ((0, 1),)], ((2, 3),)),  # merged within the input, then broadcast
    ("...,...->...", [((1, 4), (2, 2)), ((3, 3), (1, 1))], ((3, 3), (2, 2))),
    ("a...a->a", [((2, 2), (3, 3), (2, 2))], ((2, 2),)),  # the ellipsis is summed
    ("ij->i...", [((2, 2), (3, 3))], ((2, 2),)),  # an output ellipsis no input has is dropped
    ("i,...i->...", [None, ((2, 2), (3, 3))], ((2, 2),)),
    ("...i,...i->...", [((2, 2), (3, 3)), None], None),  # a dynamic rank with an ellipsis: a dynamic rank
    ("ij,", [((2, 2), (3, 3)), ()], ((2, 2), (3, 3))),  # a trailing comma names a scalar input
])
def test_examples_of_the_docstring(equation: str, shapes: list[Bounds], want: Bounds) -> None:
    expected = (("f32", want),)
    assert openvino_outcome(lambda: ops7.einsum([ops7.parameter(partial_shape(s), ov.Type.f32) for s in shapes],
                                                equation)) == expected
    inputs = [TensorType("f32", to_dims(s)) for s in shapes]
    assert our_outcome("Einsum", "opset7", {"equation": equation}, inputs, [None] * len(shapes)) == expected


def test_versions_match_openvinos_reader(tmp_path) -> None:
    x = ops7.parameter([2, 3], np.float32)
    mismatches = check_versions({"Einsum": ops7.einsum([x], "ij->ji")}, [x], tmp_path)
    assert not mismatches, mismatches
