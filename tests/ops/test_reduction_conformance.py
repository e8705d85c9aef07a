"""Reduce* (ops/reduction.py) against OpenVINO: shape rules and CPU kernels.

Shape rules: seeded nodes built with openvino's Python API on Parameters of partial shapes (axes a
Constant, a Convert of one, or a Parameter) must give our rule's output partial shape and element
type, or both must refuse. Kernels: seeded cases batched into one model per test, saved as IR, read
by ir_tools and run by our executor, and compiled once for OpenVINO CPU (as
tests/ops/test_support_kernels.py does), with the harness the suites share (tests/ops/conformance.py).

Tolerances: sums in f32 are within n*u*sum|x| of the exact sum whatever the order (Higham, u = 2**-24),
our float64 result rounded adds u*|y|: ReduceSum/Mean/L1 get (n + 2)*u*sum|x| (divided by n for the
mean), ReduceProd and ReduceL2 (n + 2)*u*|y|; f16 adds one f16 ulp (2**-10*|y| + 2**-24), for CPU
computes in f32 and rounds to f16 once. ReduceMax/Min are exact.

OpenVINO 2026.4.1 behaviour measured here that its specification does not state (see also the
docstring of ir_tools/ops/reduction.py):
- Reduce axes out of [-r, r-1] (r = max(rank, 1)) are refused; a scalar takes axis 0/-1 only without
  keep_dims. Non-constant axes give a dynamic shape of the input rank (keep_dims), of rank - 1 when
  the axes hold one element (shape [] or [1]), else a dynamic rank.
- Arithmetic reductions refuse only boolean data; axes must not be real or boolean.
- CPU: ReduceMean of an empty reduction is 0, ReduceMax/Min give -/+3.4e38 there. The CPU plugin
  refuses to compile any reduction with empty axes and keep_dims false ("gets incorrect number of
  input/output dimensions"), which shape inference accepts (the output is the input).
- CPU ReduceMax/Min start from -/+3.4e38 (a reduction of -inf only gives -3.4e38, even over empty
  axes) and with NaN follow ``acc = acc > x ? acc : x`` element by element (the extreme of the
  elements after the last NaN) where they do not vectorise across the reduced elements; across them
  (the innermost non-unit axis reduced, more elements than a vector) the result depends on the lanes,
  so the generated NaN cases keep that axis.
- CPU ReduceProd multiplies in f32: a product whose partial products overflow is inf even when the
  exact product fits, and one that underflows to 0 before meeting inf is NaN (ours rounds the float64
  product once), so the generated float products stay small and meet no infinity; subnormal products
  may differ by the smallest normal.
- CPU integer reductions: i32 computed through f32 (3*2**30 sums to -2**31), i8/u8 sums saturate,
  u8 products wrap, i64 computed as i32; our kernels follow the specification (OpenVINO's evaluator)
  and the batches use small i32 values; test_integer_reductions_follow_the_evaluator checks the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset4 as ops4
import pytest

from ir_tools.base.errors import OpValidationError
from ir_tools.ops import attrs as A
from ir_tools.ops.core import convert_values
from ir_tools.ops.opsets import lookup
from ir_tools.ops.rounding import EXACT
from ir_tools.ops.spec import TensorType

from .conformance import (
    ELEMENTS,
    TINY,
    Bounds,
    Case,
    Limit,
    Outcome,
    U,
    assert_all_pass,
    assert_shapes_agree,
    check_versions,
    constant,
    f16_ulp,
    floats,
    i64,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    random_bounds,
    show,
    to_dims,
)

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 20266

# --- shape rules -----------------------------------------------------------------------------------

REDUCE_OPS = {
    "ReduceSum": (ops1.reduce_sum, "opset1"), "ReduceMean": (ops1.reduce_mean, "opset1"),
    "ReduceMax": (ops1.reduce_max, "opset1"), "ReduceMin": (ops1.reduce_min, "opset1"),
    "ReduceProd": (ops1.reduce_prod, "opset1"), "ReduceL1": (ops4.reduce_l1, "opset4"),
    "ReduceL2": (ops4.reduce_l2, "opset4"), "ReduceLogicalAnd": (ops1.reduce_logical_and, "opset1"),
    "ReduceLogicalOr": (ops1.reduce_logical_or, "opset1"),
}
LOGICAL = ("ReduceLogicalAnd", "ReduceLogicalOr")


def reduce_shape_cases(rng: np.random.Generator, count: int) -> list[tuple[str, Callable[[], Outcome],
                                                                          Callable[[], Outcome]]]:
    """(description, OpenVINO's outcome, ours) for seeded Reduce* nodes."""
    cases = []
    names = list(REDUCE_OPS)
    for i in range(count):
        op = names[i % len(names)]
        make, version = REDUCE_OPS[op]
        rank = int(rng.integers(0, 6))
        lengths = [int(n) for n in rng.integers(1, 7, rank)]
        data_shape = None if rng.random() < 0.08 else random_bounds(rng, lengths)
        element = ("boolean" if op in LOGICAL else "f32") if rng.random() < 0.85 else \
            pick(rng, ["f32", "i32", "boolean", "u8", None])
        keep = bool(rng.random() < 0.5)
        source = str(rng.choice(["const"] * 6 + ["convert", "param"]))
        axes_type = str(rng.choice(["i64", "i32", "i64", "i64"] + (["f32"] if rng.random() < 0.05 else [])))
        r = max(rank, 1)
        k = int(rng.integers(0, r + 2))
        axes = [int(a) for a in rng.integers(-r - (rng.random() < 0.1), r + (rng.random() < 0.1), k)]
        scalar = k == 1 and rng.random() < 0.3
        value = np.array(axes[0] if scalar else axes, {"i64": np.int64, "i32": np.int32, "f32": np.float32}[axes_type])
        if source == "param":
            choices: list[Bounds] = [(), ((1, 1),), ((2, 2),), ((0, None),), ((0, 0),), None, ((1, 3),),
                                     ((1, 1), (1, 1))]
            axes_shape = choices[int(rng.choice(len(choices), p=[.2, .2, .15, .1, .05, .1, .1, .1]))]
        else:
            axes_shape: Bounds = tuple((n, n) for n in value.shape)
        what = (f"{op} {element}{show(data_shape)} axes {source} {axes_type}{show(axes_shape)}"
                f"{'' if source == 'param' else ' = ' + str(value.tolist())} keep_dims={keep}")

        def theirs(make=make, data_shape=data_shape, element=element, source=source, value=value,
                   axes_type=axes_type, axes_shape=axes_shape, keep=keep):
            def build():
                data = ops1.parameter(partial_shape(data_shape), ELEMENTS[element])
                if source == "param":
                    axes_node = ops1.parameter(partial_shape(axes_shape), ELEMENTS[axes_type])
                elif source == "convert":
                    axes_node = ops1.convert(constant(value.astype(np.float32)), axes_type)
                else:
                    axes_node = constant(value)
                return make(data, axes_node, keep)

            return openvino_outcome(build)

        def ours(op=op, version=version, data_shape=data_shape, element=element, source=source, value=value,
                 axes_type=axes_type, axes_shape=axes_shape, keep=keep):
            raw = {"keep_dims": "true" if keep else "false"}
            given = None if source == "param" else value
            if source == "convert":
                given = convert_values(value.astype(np.float32), axes_type)
            inputs = [TensorType(element, to_dims(data_shape)), TensorType(axes_type, to_dims(axes_shape))]
            return our_outcome(op, version, raw, inputs, [None, given])

        cases.append((what, theirs, ours))
    return cases


def test_reduce_shape_rules():
    cases = reduce_shape_cases(np.random.default_rng(SEED), 900)
    assert_shapes_agree(cases)


# --- Reduce kernels --------------------------------------------------------------------------------

ARITHMETIC = ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2")


def reduce_limit(op: str, x: np.ndarray, axes: list[int], keep: bool) -> Limit | None:
    """The Higham-style bound of the module doc, per output element; None for the exact Max/Min."""
    if op in ("ReduceMax", "ReduceMin"):
        return None
    ulp = f16_ulp(x.dtype)
    r = max(x.ndim, 1)
    picked = tuple(sorted({a % r for a in axes})) if x.ndim else ()
    n = int(np.prod([x.shape[a] for a in picked])) if picked else 1
    with np.errstate(all="ignore"):
        if op in ("ReduceProd", "ReduceL2"):  # plus the smallest normal: the CPU may flush subnormal products
            return lambda w: (n + 2) * U * np.abs(w) + ulp(w) + TINY
        total = np.sum(np.abs(x.astype(np.float64)), axis=picked, keepdims=keep)
        if op == "ReduceMean":
            total = total / max(n, 1)
    return lambda w: (n + 2) * U * total + ulp(w)


def nan_safe(x_shape: tuple[int, ...], axes: list[int]) -> bool:
    """CPU ReduceMax/Min meet NaN one element at a time: the innermost axis longer than 1 is kept."""
    r = max(len(x_shape), 1)
    picked = {a % r for a in axes}
    inner = [i for i, n in enumerate(x_shape) if n > 1]
    return bool(inner) and inner[-1] not in picked


def sprinkle(rng: np.random.Generator, x: np.ndarray, p: float = 0.3,
             specials: Sequence[float] = (0.0, -0.0, np.inf, -np.inf, np.nan)) -> np.ndarray:
    """Put ``specials`` (NaN, infinities, zeros) into a float array, in about ``p`` of the cases."""
    if x.size and rng.random() < p:
        flat = x.reshape(-1)
        k = int(rng.integers(1, 4))
        flat[rng.integers(0, x.size, k)] = rng.choice(specials, k)
    return x


def reduce_cases(rng: np.random.Generator, count: int) -> list[Case]:
    cases = []
    names = list(REDUCE_OPS)
    for i in range(count):
        op = names[i % len(names)]
        make = REDUCE_OPS[op][0]
        rank = int(rng.choice([0, 1, 2, 3, 4, 5], p=[.04, .16, .25, .25, .2, .1]))
        shape = tuple(int(n) for n in rng.integers(1, 7, rank))
        if rank and rng.random() < 0.03:
            shape = shape[:-1] + (0,)  # an empty reduction
        keep = bool(rng.random() < 0.5)
        r = max(rank, 1)
        k = int(rng.integers(0, r + 1))
        axes = [int(a) for a in rng.permutation(r)[:k]] if rank else [int(rng.choice([0, -1]))] * min(k, 1)
        axes = [a - r if a >= 0 and rng.random() < 0.3 else a for a in axes]
        if axes and rng.random() < 0.1:
            axes.append(axes[0])  # a repeated axis
        if rank == 0 and axes:
            keep = False  # OpenVINO refuses keep_dims on a scalar with an axis
        if not axes:
            keep = True  # the CPU cannot compile empty axes without keep_dims (module doc)
        scalar = len(axes) == 1 and rng.random() < 0.3
        axes_value = np.array(axes[0] if scalar else axes, np.int32 if rng.random() < 0.3 else np.int64)
        if op in LOGICAL:
            dtype = np.bool_
            x = rng.random(shape) < rng.choice([0.1, 0.5, 0.9])
        else:
            dtype = (np.float32, np.float32, np.float16, np.int32)[(i // len(names)) % 4]
            if dtype is np.int32:
                low, high = {"ReduceProd": (-2, 3), "ReduceL2": (-20, 21)}.get(op, (-50, 51))
                x = rng.integers(low, high, shape).astype(np.int32)
            else:
                x = floats(rng, shape, dtype, scale=1.0 if op == "ReduceProd" else float(rng.choice([1.0, 10.0])))
                if op in ("ReduceMax", "ReduceMin"):
                    if nan_safe(shape, axes):
                        x = sprinkle(rng, x)
                elif op == "ReduceProd":  # no infinities: an f32 partial product may underflow to 0 first
                    x = sprinkle(rng, x, 0.15, (0.0, -0.0, np.nan))
                else:
                    x = sprinkle(rng, x, 0.15)
        limit = reduce_limit(op, x, axes, keep) if dtype not in (np.int32, np.bool_) else None

        def build(ps, make=make, axes_value=axes_value, keep=keep):
            return make(ps[0], constant(axes_value), keep)

        cases.append(Case(f"{op} {np.dtype(dtype).name}{list(shape)} axes {axes_value.tolist()} keep_dims={keep}",
                          [x], build, (limit,)))
    return cases


def test_reduce_kernels(tmp_path):
    cases = reduce_cases(np.random.default_rng(SEED + 2), 540)
    assert_all_pass(cases, tmp_path)


def test_integer_reductions_follow_the_evaluator():
    """Where OpenVINO CPU computes integers its own way (module doc), the kernels follow OpenVINO's evaluator:
    wrap-around sums and products, truncating mean and square root."""
    rng = np.random.default_rng(SEED + 3)
    checked = 0
    for op in ("ReduceSum", "ReduceMean", "ReduceProd", "ReduceL1", "ReduceMax", "ReduceMin"):  # L2: floats only
        for dtype in (np.int32, np.int64):
            x = rng.integers(-2**31 if dtype is np.int32 else -2**62, 2**31 - 1, (3, 5)).astype(dtype)
            if op == "ReduceProd":
                x = rng.integers(-70000, 70000, (3, 5)).astype(dtype)
            node = REDUCE_OPS[op][0](ops1.constant(x), i64([1]), False)
            want = evaluate(node)
            (got,) = lookup(op, "opset4").kernel(A.decode(lookup(op, "opset4").attrs, {}), [x, np.array([1])])
            np.testing.assert_array_equal(got, want, err_msg=f"{op} {np.dtype(dtype).name}")
            checked += 1
    x = np.array([[7, -7, 22], [-22, 3, 2]], np.int32)
    (got,) = lookup("ReduceMean", "opset1").kernel(A.decode(lookup("ReduceMean", "opset1").attrs, {}),
                                                 [x, np.array([1])])
    np.testing.assert_array_equal(got, [7, -5])  # 22 / 3 and -17 / 3, truncated
    assert checked == 12


def evaluate(node: ov.Node) -> np.ndarray:
    """OpenVINO's own evaluator (its reference implementation) on a node whose data inputs are Constants."""
    inputs = [ov.Tensor(node.input_value(i).get_node().get_data()) for i in range(node.get_input_size())]
    out = ov.Tensor(node.get_output_element_type(0), node.get_output_shape(0))
    assert node.evaluate([out], inputs), f"OpenVINO cannot evaluate {node}"
    return out.data.copy()


def test_reduce_max_nan_rule():
    """The sequential NaN rule (module doc) on rows that OpenVINO CPU reduces element by element."""
    x = np.array([[1, np.nan, 3], [5, 2, np.nan], [np.nan, 1, 0], [np.nan, np.nan, np.nan]], np.float32)
    kernel = lookup("ReduceMax", "opset1").kernel
    attrs = A.decode(lookup("ReduceMax", "opset1").attrs, {})
    (got,) = kernel(attrs, [x, np.array([1])])
    np.testing.assert_array_equal(got, np.array([3, np.nan, 1, np.nan], np.float32))
    (got,) = lookup("ReduceMin", "opset1").kernel(attrs, [x, np.array([1])])
    np.testing.assert_array_equal(got, np.array([3, np.nan, 0, np.nan], np.float32))


@pytest.mark.parametrize("op", ["ReduceMax", "ReduceMin"])
def test_picked_elements_carry_the_largest_bound(op):
    """Inputs moved anywhere within their (uneven) bounds move the result by no more than the rule's bound: 200
    seeded cases. A window's pick may move by the largest bound in it, not by the pick's own."""
    spec = lookup(op, "opset1")
    rng = np.random.default_rng(SEED + 7)
    for _ in range(200):
        x = rng.standard_normal([int(n) for n in rng.integers(1, 6, 3)])
        bound = np.abs(rng.standard_normal(x.shape)) * float(rng.choice([1e-3, 1e-1, 1.0]))
        axes = np.array(sorted(rng.choice(3, int(rng.integers(1, 4)), replace=False)))
        attrs = A.decode(spec.attrs, {"keep_dims": str(bool(rng.random() < 0.5)).lower()})
        (y,) = spec.kernel(attrs, [x, axes])
        (limit,) = spec.rounding(spec.kernel, attrs, [x, axes], [bound, EXACT], [y.astype(np.float32)])
        for _ in range(4):
            (moved,) = spec.kernel(attrs, [x + rng.choice([-1.0, 1.0], x.shape) * bound, axes])
            slack = 1e-12 * (np.abs(y) + np.abs(moved))  # (the float64 arithmetic of the moved values)
            assert np.all(np.abs(moved - y) <= limit + slack), (op, x.shape, axes)



# --- what OpenVINO refuses -------------------------------------------------------------------------


@pytest.mark.parametrize("op, version, raw, args", [
    ("ReduceSum", "opset1", {}, [np.zeros((2, 3), np.float32), np.array([2])]),
    ("ReduceSum", "opset1", {"keep_dims": "true"}, [np.zeros((), np.float32), np.array([0])]),
    ("ReduceSum", "opset1", {}, [np.zeros((2, 3), np.float32), np.array([[0]])]),
    ("ReduceSum", "opset1", {}, [np.zeros((2, 3), np.float32), np.array([0.0])]),
    ("ReduceMean", "opset1", {}, [np.zeros((2, 3), np.bool_), np.array([0])]),
    ("ReduceLogicalAnd", "opset1", {}, [np.zeros((2, 3), np.float32), np.array([0])]),
])
def test_kernels_refuse_what_openvino_refuses(op, version, raw, args):
    spec = lookup(op, version)
    with pytest.raises(OpValidationError):
        spec.kernel(A.decode(spec.attrs, raw), args)


def test_versions_match_openvinos_reader(tmp_path):
    """For each type and N in 0..18, OpenVINO reads version="opsetN" as the op version our table has there."""
    x = ops1.parameter([1, 2, 6], np.float32)
    b = ops1.parameter([1, 2, 6], np.bool_)
    nodes = {name: make(b if name in LOGICAL else x, i64([1]), True) for name, (make, _) in REDUCE_OPS.items()}
    mismatches = check_versions(nodes, [x, b], tmp_path)
    assert not mismatches, mismatches
