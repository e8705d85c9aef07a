"""MatMul-1 (ops/matmul.py) against OpenVINO: shape rule and CPU kernel, with the harness of
tests/ops/conformance.py.

Shape rule: seeded MatMul nodes on Parameters of partial shapes (static, dynamic, interval and
unbounded dims, dynamic ranks, scalars, 1-D operands, transposes, mismatched and dynamic element
types) must give our rule's partial shape and element type, or both must refuse. Kernel: seeded
cases in one model on OpenVINO CPU. Each f32 element must be within (k + 1)*u*(|A| @ |B|) of
OpenVINO's (any order of k products and sums, u = 2**-24, plus our one rounding); f16 adds one f16
ulp; integers (small, so that the CPU's f32 computation is exact) must be equal.

OpenVINO 2026.4.1 behaviour measured here that its specification does not state (see also the
docstring of ir_tools/ops/matmul.py):
- Inner dims that do not intersect are refused only when both are static; batch dims broadcast as
  Dimension::broadcast_merge on intervals: two that may both be 1 give their hull ([1..3] with [0..5]
  gives [0..5]), one that may be 1 gives the other ([1..3] with [2..5] gives [2..5], [?] with [4]
  gives [4]), else their intersection; a failed merge with a dynamic side gives [?] ([2..3] with
  [5..6]).
- Element types must be equal; a dynamic one takes the other's.
- CPU integer MatMul goes through f32: i32 results beyond 2**24 are rounded, beyond 2**31 saturate
  (2**32 + 6 gives 2147483520), i8 saturates and i64 is computed as i32. The kernel wraps in the
  element type as the specification says (test_integer_matmul_wraps).
- CPU f16 MatMul (inference precision f32) gives the exactly rounded products.
"""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import pytest

from ir_tools.base.errors import OpValidationError
from ir_tools.ops import attrs as A
from ir_tools.ops.opsets import lookup
from ir_tools.ops.spec import TensorType

from .conformance import (
    ELEMENTS,
    Bounds,
    Case,
    U,
    assert_all_pass,
    assert_shapes_agree,
    blur,
    check_versions,
    f16_ulp,
    floats,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    show,
    tensor_types,
    to_dims,
)

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 20267


def operand_shapes(rng: np.random.Generator) -> tuple[list[int], list[int], bool, bool]:
    """Shapes of A and B (as stored, before the transposes) that multiply, with broadcast batch dims."""
    m, k, n = (int(v) for v in rng.integers(1, 9, 3))
    if rng.random() < 0.1:
        k = int(rng.integers(20, 200))  # long sums
    ta, tb = bool(rng.random() < 0.3), bool(rng.random() < 0.3)
    rank_a, rank_b = (int(v) for v in rng.choice([1, 2, 2, 3, 4], 2))
    batch = [int(v) for v in rng.integers(1, 4, 2)]
    a = [k] if rank_a == 1 else [*broadcastable(rng, batch, rank_a - 2), *((k, m) if ta else (m, k))]
    b = [k] if rank_b == 1 else [*broadcastable(rng, batch, rank_b - 2), *((n, k) if tb else (k, n))]
    return a, b, ta, tb


def broadcastable(rng: np.random.Generator, batch: list[int], rank: int) -> list[int]:
    dims = batch[len(batch) - rank:] if rank <= len(batch) else [int(v) for v in rng.integers(1, 3, rank - 2)] + batch
    return [1 if rng.random() < 0.3 else d for d in dims]


def matmul_cases(rng: np.random.Generator, count: int) -> list[Case]:
    cases = []
    for i in range(count):
        a_shape, b_shape, ta, tb = operand_shapes(rng)
        dtype = (np.float32, np.float32, np.float16, np.int32)[i % 4]
        if dtype is np.int32:
            a, b = (rng.integers(-20, 21, s).astype(np.int32) for s in (a_shape, b_shape))
            limit = None
        else:
            a, b = floats(rng, a_shape, dtype), floats(rng, b_shape, dtype)
            if rng.random() < 0.05:
                a.reshape(-1)[0] = rng.choice([np.nan, np.inf, -np.inf])
            limit = bound(a, b, ta, tb)

        def build(ps, ta=ta, tb=tb):
            return ops1.matmul(ps[0], ps[1], ta, tb)

        cases.append(Case(f"MatMul {np.dtype(dtype).name} A{a_shape} B{b_shape} transpose_a={ta} transpose_b={tb}",
                          [a, b], build, (limit,)))
    return cases


def bound(a: np.ndarray, b: np.ndarray, ta: bool, tb: bool):
    """(k + 1)*u*(|A| @ |B|), plus an f16 ulp (module doc)."""
    x, y = np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64))
    if ta and x.ndim > 1:
        x = np.swapaxes(x, -1, -2)
    if tb and y.ndim > 1:
        y = np.swapaxes(y, -1, -2)
    k = x.shape[-1]
    with np.errstate(invalid="ignore"):
        total = np.matmul(x, y)
    ulp = f16_ulp(a.dtype)
    return lambda w: (k + 1) * U * total * 1.0001 + ulp(w)


def test_matmul_kernel(tmp_path):
    cases = matmul_cases(np.random.default_rng(SEED), 300)
    assert_all_pass(cases, tmp_path)


def test_integer_matmul_wraps():
    """The specification's (and OpenVINO's evaluator's) integer product, not the CPU's f32 one."""
    spec = lookup("MatMul", "opset1")
    a = np.array([[2**20, 3], [7, -5]], np.int32)
    b = np.array([[2**12, 1], [2, 3]], np.int32)
    (got,) = spec.kernel(A.decode(spec.attrs, {}), [a, b])
    np.testing.assert_array_equal(got, (a.astype(np.int64) @ b).astype(np.int32))
    node = ops1.matmul(ops1.constant(a), ops1.constant(b), False, False)
    out = ov.Tensor(ov.Type.i32, [2, 2])
    assert node.evaluate([out], [ov.Tensor(a), ov.Tensor(b)])
    np.testing.assert_array_equal(got, out.data)


def test_one_dimensional_operands():
    spec = lookup("MatMul", "opset1")
    attrs = A.decode(spec.attrs, {"transpose_a": "true", "transpose_b": "true"})  # ignored on 1-D operands
    v = np.arange(3, dtype=np.float32)
    m = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    (dot,) = spec.kernel(attrs, [v, v])
    assert dot.shape == () and dot == 5
    (left,) = spec.kernel(A.decode(spec.attrs, {}), [v, m])
    np.testing.assert_array_equal(left, v @ m)
    assert spec.infer(attrs, [TensorType("f32", to_dims(((3, 3),))), TensorType("f32", to_dims(((3, 3),)))],
                      [None, None]) == [TensorType("f32", ())]


@pytest.mark.parametrize("a_shape, b_shape", [((2, 3), (4, 5)), ((2, 2, 3), (3, 3, 4)), ((), (3,))])
def test_kernel_refuses_what_openvino_refuses(a_shape, b_shape):
    a, b = np.zeros(a_shape, np.float32), np.zeros(b_shape, np.float32)
    with pytest.raises(RuntimeError):
        ops1.matmul(ops1.constant(a), ops1.constant(b), False, False)
    spec = lookup("MatMul", "opset1")
    with pytest.raises(OpValidationError):
        spec.kernel(A.decode(spec.attrs, {}), [a, b])


# --- shape rule ------------------------------------------------------------------------------------


def matmul_shape_case(rng: np.random.Generator):
    a_shape, b_shape, ta, tb = operand_shapes(rng)
    if rng.random() < 0.15:  # an inner dim that may not match
        (a_shape if rng.random() < 0.5 else b_shape)[-1] += 1
    if rng.random() < 0.1:  # batch dims that may not broadcast
        for s in (a_shape, b_shape):
            if len(s) > 2:
                s[0] = int(rng.integers(2, 5))
    shapes: list[Bounds] = []
    for s in (a_shape, b_shape):
        if rng.random() < 0.05:
            shapes.append(None)
        elif rng.random() < 0.03:
            shapes.append(())
        else:
            shapes.append(tuple(blur(rng, n, statics=2) for n in s))
    elements = ["f32", "f32"]
    if rng.random() < 0.1:
        elements[int(rng.integers(0, 2))] = pick(rng, ["f16", "i32", None])
    what = (f"MatMul {elements[0]}{show(shapes[0])} x {elements[1]}{show(shapes[1])} transpose_a={ta} "
            f"transpose_b={tb}")

    def theirs():
        return openvino_outcome(lambda: ops1.matmul(ops1.parameter(partial_shape(shapes[0]), ELEMENTS[elements[0]]),
                                                    ops1.parameter(partial_shape(shapes[1]), ELEMENTS[elements[1]]),
                                                    ta, tb))

    def ours():
        raw = {"transpose_a": str(ta).lower(), "transpose_b": str(tb).lower()}
        inputs = tensor_types(elements, shapes)
        return our_outcome("MatMul", "opset1", raw, inputs, [None, None])

    return what, theirs, ours


def test_matmul_shape_rule():
    rng = np.random.default_rng(SEED + 1)
    cases = [matmul_shape_case(rng) for _ in range(1500)]
    assert_shapes_agree(cases)


@pytest.mark.parametrize("a, b, want", [
    (((1, 3), (2, 2), (3, 3)), ((0, 5), (3, 3), (4, 4)), ((0, 5), (2, 2), (4, 4))),  # both may be 1: the hull
    (((1, 3), (2, 2), (3, 3)), ((2, 5), (3, 3), (4, 4)), ((2, 5), (2, 2), (4, 4))),  # one may be 1: the other
    (((0, None), (2, 2), (3, 3)), ((4, 4), (3, 3), (4, 4)), ((4, 4), (2, 2), (4, 4))),
    (((2, 3), (2, 2), (3, 3)), ((5, 6), (3, 3), (4, 4)), ((0, None), (2, 2), (4, 4))),  # no merge: dynamic
    (((2, 2), (2, 3)), ((5, 7), (4, 4)), ((2, 2), (4, 4))),  # inner dims that cannot match pass
])
def test_interval_examples_of_the_docstring(a, b, want):
    expected = (("f32", want),)
    def build():
        return ops1.matmul(ops1.parameter(partial_shape(a), ov.Type.f32), ops1.parameter(partial_shape(b), ov.Type.f32),
                           False, False)

    assert openvino_outcome(build) == expected
    assert our_outcome("MatMul", "opset1", {}, [TensorType("f32", to_dims(a)), TensorType("f32", to_dims(b))],
                       [None, None]) == expected


def test_versions_match_openvinos_reader(tmp_path):
    x = ops1.parameter([2, 3], np.float32)
    mismatches = check_versions({"MatMul": ops1.matmul(x, ops1.constant(np.ones((3, 4), np.float32)), False, False)},
                                [x], tmp_path)
    assert not mismatches, mismatches
