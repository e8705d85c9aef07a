"""Element-wise ops (ops/arithmetic.py, ops/activations.py) against the installed OpenVINO.

(a) Shape rules: seeded cases of every binary, unary and Select op (static, dynamic, interval and
unbounded dims, dynamic ranks, broadcasting that works and that does not, numpy/none/explicit/pdpd,
every element type) are built as one OpenVINO node on Parameters (``NodeFactory``, never compiled)
and through our registry path (IR attribute strings -> typed attrs -> shape rule): both must give the
same element type and partial shape, interval bounds included, or both must reject.

(b) Kernels: seeded cases batched into one ov.Model per test, saved as IR, read back and run by our
executor (which validates the model with our shape rules first) and compiled once for OpenVINO CPU
(INFERENCE_PRECISION_HINT f32). Special values (NaN, +-inf, -0, large magnitudes) are sprinkled in.
Tolerances: f32 rtol 1e-5 with atol 1e-6, f16 one ulp (rtol 2**-10, atol 2**-24); integers,
booleans and the rounding/sign/min-max ops must be equal, zero signs included. Wider, measured
tolerances where OpenVINO CPU approximates (f32, worst error over the generated cases and a dense
grid of [-30, 30]):

- SoftPlus: absolute error up to 1.9e-6 for x < -10 (the CPU's ``log(1 + exp(x))`` in f32 gives 0,
  multiples of 9.5e-7, even -1.9e-6 where the value is below 1e-5): atol 4e-6.
- Mish: absolute error up to 7.8e-7 around x = -15 (-0 from x < -16.6): atol 2e-6.
- Exp: up to 5 ulps (4.2e-7 relative), within rtol 1e-5; Erf: 3.5e-7 absolute; Gelu (erf): 9.5e-7
  absolute; HSwish 2.4e-7 absolute (x * (x + 3) / 6 in f32 near -3). All within the default.

OpenVINO behaviours measured here (openvino 2026.4.1), beyond the specification (the kernels follow
the CPU where its rule is a plain definition, and say so; they keep IEEE results where the CPU is
merely inaccurate, and the cases avoid those inputs):

- Maximum/Minimum are ``x > y ? x : y`` / ``x < y ? x : y``: a NaN in either input gives the second
  input, of two zeros the second (OpenVINO's evaluator gives the first input for a NaN in the second).
- Clamp(NaN) is min; HSigmoid(NaN) is 0 (HSwish(NaN) is NaN); ReLU(NaN) is 0.
- Round half_away_from_zero gives +0 for -0 (and -0 for -0.4); half_to_even keeps -0. Elu(-0) is +0.
- Exp: NaN gives +inf, and f32 overflows to inf from x = 88.38 (exp(88.72) still fits f32); the
  kernel keeps NaN and the exact value. Gelu(+-inf) is NaN and Gelu(x) overflows to inf for x > 1.7e38
  (0.5 * x * (1 + erf) in f32); the kernel keeps the exact value.
- FloorMod/Mod on f32 compute ``x - y * floor(x / y)`` in f32: cases keep |x / y| < 1000 and x / y
  away from integers, where that agrees with the exact remainder the kernel gives.
- Integer Power: a result out of the type's range is the minimum for i32 (x86's conversion), saturated
  for i8; negative exponents truncate (2 ** -1 = 0).
- Integer transcendental ops (Exp, Sigmoid, Sqrt...) are computed in f32 and rounded to nearest by the
  CPU and truncated by the evaluator (Sin on the evaluator gives 0): our kernels refuse them.
- Integer Mod and FloorMod by zero kill the process in OpenVINO's evaluator (SIGFPE); ours refuse.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.base.dims import Dim, Shape
from ir_tools.base.errors import IrToolsError, OpValidationError, UnsupportedError
from ir_tools.ops import attrs as A
from ir_tools.ops.opsets import lookup
from ir_tools.ops.spec import TensorType
from tests.cpu_isa import openvino_cpu_isa

from .conformance import Case, evaluate, run_cases, tolerance

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 20266
F16_TOL = (2.0**-10, 2.0**-24)
F32_TOL = (1e-5, 1e-6)

# ---------------------------------------------------------------------------------------------
# Shape rules: one node built by OpenVINO and by our registry


ELEMENTS = ("f32", "f16", "bf16", "f64", "i8", "i32", "i64", "u8", "u64", "boolean", "u1", "i4", "nf4",
            "f8e4m3", "string", None)


def ov_type(name: str | None) -> ov.Type:
    return ov.Type.dynamic if name is None else getattr(ov.Type, name)


def ov_shape(shape: Shape) -> ov.PartialShape:
    if shape is None:
        return ov.PartialShape.dynamic()
    return ov.PartialShape([ov.Dimension(d.lo, -1 if d.hi is None else d.hi) for d in shape])


def from_openvino(ps: ov.PartialShape) -> Shape:
    if ps.rank.is_dynamic:
        return None
    return tuple(Dim(d.get_min_length(), None if d.get_max_length() == -1 else d.get_max_length()) for d in ps)


def show(t: TensorType | None) -> str:
    if t is None:
        return "rejects"
    dims = "[...]" if t.shape is None else "[" + ",".join(str(d) for d in t.shape) + "]"
    return f"{t.element or 'dynamic'}{dims}"


def ir_spelling(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return str(value)


@dataclass
class ShapeCase:
    """One node: ``inputs`` are TensorTypes (Parameters) or arrays (Constants); ``attrs`` as NodeFactory takes
    them, ``late`` set with ``set_attribute`` afterwards (pdpd's axis, which NodeFactory cannot take)."""

    opset: str
    op: str
    inputs: list[TensorType | np.ndarray]
    attrs: dict = field(default_factory=dict)
    late: dict = field(default_factory=dict)

    def __str__(self) -> str:
        ins = ", ".join(show(i) if isinstance(i, TensorType) else f"const{i.tolist()}" for i in self.inputs)
        return f"{self.op}/{self.opset} ({ins}) {self.attrs | self.late}"

    def nodes(self) -> list[ov.Output]:
        return [ops1.parameter(ov_shape(i.shape), ov_type(i.element)).output(0) if isinstance(i, TensorType)
                else constant(i).output(0) for i in self.inputs]

    def openvino(self) -> TensorType | None:
        try:
            inputs = self.nodes()
            if self.late:  # built valid first, then given the attributes and its real inputs
                valid = [i if isinstance(i, np.ndarray) else TensorType(i.element, ()) for i in self.inputs]
                valid_inputs = ShapeCase(self.opset, self.op, valid).nodes()
                node = NodeFactory(self.opset).create(self.op, valid_inputs, self.attrs)
                for name, value in self.late.items():
                    node.set_attribute(name, value)
                for i, out in enumerate(inputs):
                    node.input(i).replace_source_output(out)
                node.validate_and_infer_types()
            else:
                node = NodeFactory(self.opset).create(self.op, inputs, self.attrs)
        except RuntimeError:
            return None
        et = node.get_output_element_type(0)
        shape = from_openvino(node.get_output_partial_shape(0))
        return TensorType(None if et == ov.Type.dynamic else et.to_string(), shape)

    def ours(self) -> TensorType | None:
        spec = lookup(self.op, self.opset)
        assert spec is not None, f"no {self.op} in {self.opset}"
        raw = {k: ir_spelling(v) for k, v in (self.attrs | self.late).items()}
        types = [i if isinstance(i, TensorType) else TensorType(str(ov_type_of(i)), tuple(Dim(n, n) for n in i.shape))
                 for i in self.inputs]
        values = [i if isinstance(i, np.ndarray) else None for i in self.inputs]
        try:
            return spec.infer(A.decode(spec.attrs, raw), types, values)[0]
        except (OpValidationError, IrToolsError):
            return None


def constant(x: np.ndarray) -> ov.Node:
    """A Constant holding ``x`` (opset1.constant refuses an empty one)."""
    if x.size:
        return ops1.constant(x)
    return ov.op.Constant(ov.Type(x.dtype), ov.Shape(list(x.shape)), [])


def ov_type_of(x: np.ndarray) -> str:
    return ov.Type(x.dtype).to_string()


def compare_shapes(cases: Sequence[ShapeCase]) -> tuple[list[str], int]:
    failures, rejected = [], 0
    for case in cases:
        theirs, ours = case.openvino(), case.ours()
        rejected += theirs is None
        if theirs != ours:
            failures.append(f"{case}: OpenVINO {show(theirs)}, ours {show(ours)}")
    return failures, rejected


def random_dim(rng: random.Random, length: int) -> Dim:
    """``length`` itself, or a dynamic / interval / unbounded dim around it."""
    roll = rng.random()
    if roll < 0.55:
        return Dim(length, length)
    if roll < 0.7:
        return Dim(0, None)
    if roll < 0.85:
        lo = rng.randint(0, length)
        return Dim(lo, rng.randint(max(lo, length), length + 3))
    return Dim(rng.randint(0, length), None)


def random_shape(rng: random.Random, rank: int | None = None) -> Shape:
    if rank is None:
        if rng.random() < 0.08:
            return None
        rank = rng.randint(0, 4)
    return tuple(random_dim(rng, rng.choice((0, 1, 1, 2, 3, 4))) for _ in range(rank))


def broadcast_pair(rng: random.Random) -> tuple[Shape, Shape]:
    """Two shapes that mostly broadcast (some dims 1, some dropped), sometimes not."""
    target = [rng.choice((1, 2, 3, 4)) for _ in range(rng.randint(0, 4))]
    shapes = []
    for _ in range(2):
        if rng.random() < 0.06:
            shapes.append(None)
            continue
        dims = target[rng.randint(0, len(target)):] if rng.random() < 0.4 else list(target)
        dims = [1 if rng.random() < 0.25 else rng.choice((0, 5)) if rng.random() < 0.06 else n for n in dims]
        shapes.append(tuple(random_dim(rng, n) for n in dims))
    return shapes[0], shapes[1]


BINARY_OPS = ("Add", "Subtract", "Multiply", "Divide", "Power", "Maximum", "Minimum", "SquaredDifference", "FloorMod",
              "Mod", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr",
              "LogicalXor")
UNARY_OPS = (("opset1", "Relu", {}), ("opset1", "Sigmoid", {}), ("opset1", "Tanh", {}), ("opset1", "Exp", {}),
             ("opset1", "Log", {}), ("opset1", "Sqrt", {}), ("opset1", "Erf", {}), ("opset1", "Sin", {}),
             ("opset1", "Cos", {}), ("opset1", "Abs", {}), ("opset1", "Negative", {}), ("opset1", "Floor", {}),
             ("opset1", "Ceiling", {}), ("opset1", "Sign", {}), ("opset5", "Round", {"mode": "half_to_even"}),
             ("opset1", "Clamp", {"min": -1.0, "max": 2.5}), ("opset1", "Elu", {"alpha": 0.5}), ("opset4", "Swish", {}),
             ("opset4", "HSwish", {}), ("opset5", "HSigmoid", {}), ("opset4", "Mish", {}), ("opset4", "SoftPlus", {}),
             ("opset2", "Gelu", {}), ("opset7", "Gelu", {"approximation_mode": "tanh"}), ("opset9", "SoftSign", {}),
             ("opset1", "LogicalNot", {}))


def element_pair(rng: random.Random, op: str) -> tuple[str | None, str | None]:
    logical = op.startswith("Logical")
    a = rng.choice(ELEMENTS) if rng.random() < 0.35 else ("boolean" if logical else rng.choice(("f32", "i32", "f16")))
    roll = rng.random()
    b = None if roll < 0.1 else rng.choice(ELEMENTS) if roll < 0.2 else a
    return a, b


def broadcast_attrs(rng: random.Random) -> tuple[dict, dict]:
    roll = rng.random()
    if roll < 0.6:
        return ({"auto_broadcast": "numpy"} if rng.random() < 0.7 else {}), {}
    if roll < 0.75:
        return {"auto_broadcast": rng.choice(("none", "explicit"))}, {}
    axis = rng.choice((-2, -1, 0, 1, 2, 3))
    return {"auto_broadcast": "pdpd"}, ({"auto_broadcast.auto_broadcast_axis": axis} if rng.random() < 0.8 else {})


def elementwise_shape_cases(seed: int, count: int) -> list[ShapeCase]:
    rng = random.Random(seed)
    cases = []
    for i in range(count):
        kind = i % 10
        if kind < 5:
            op = BINARY_OPS[i % len(BINARY_OPS)]
            (x, y), (a, b) = broadcast_pair(rng), element_pair(rng, op)
            attrs, late = broadcast_attrs(rng)
            cases.append(ShapeCase("opset1", op, [TensorType(a, x), TensorType(b, y)], attrs, late))
        elif kind < 9:
            opset, op, attrs = UNARY_OPS[(i // 10 * 4 + kind - 5) % len(UNARY_OPS)]
            attrs = dict(attrs)
            if op == "Clamp" and rng.random() < 0.2:
                attrs = {"min": 3.0, "max": rng.choice((2.0, 3.0))}
            x = TensorType(rng.choice(ELEMENTS), random_shape(rng))
            inputs: list = [x]
            if op == "Swish" and rng.random() < 0.5:  # beta: its type must equal the data's, its rank be 0
                b_type = x.element if rng.random() < 0.7 else rng.choice(ELEMENTS)
                inputs.append(TensorType(b_type, rng.choice(((), (), (Dim(1, 1),), None, (Dim(0, None),)))))
            cases.append(ShapeCase(opset, op, inputs, attrs))
        elif i % 20 == 9:  # Select: three-way broadcast
            (t, e), (a, b) = broadcast_pair(rng), element_pair(rng, "Select")
            c = random_shape(rng) if rng.random() < 0.3 else rng.choice((t, e))
            c_type = "boolean" if rng.random() < 0.8 else rng.choice(ELEMENTS)
            attrs, late = broadcast_attrs(rng)
            cases.append(ShapeCase("opset1", "Select", [TensorType(c_type, c), TensorType(a, t), TensorType(b, e)],
                                   attrs, late))
        else:  # PRelu: whatever the slope, the output is the data
            x = TensorType(rng.choice(ELEMENTS), random_shape(rng))
            cases.append(ShapeCase("opset1", "PRelu", [x, TensorType(rng.choice(ELEMENTS), random_shape(rng))]))
    return cases


@pytest.mark.parametrize("batch", range(3))
def test_elementwise_shape_rules(batch: int) -> None:
    cases = elementwise_shape_cases(SEED + batch, 700)
    failures, rejected = compare_shapes(cases)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:25])
    assert 0.1 * len(cases) < rejected < 0.6 * len(cases), f"{rejected} of {len(cases)} rejected: a poor mix"


def test_broadcast_rule_examples() -> None:
    """Intervals merge as OpenVINO's Dimension::broadcast_merge does (measured)."""
    spec = lookup("Add", "opset1")
    cases = {((1, 5), (3, 3)): (3, 3), ((0, 2), (2, 4)): (2, 4), ((2, 5), (4, 8)): (4, 5),
             ((0, None), (1, 1)): (0, None),
             ((0, 1), (0, 1)): (0, 1), ((1, 5), (1, 7)): (1, 7), ((2, 5), (0, 1)): (2, 5), ((0, 0), (0, 3)): (0, 0)}
    for (a, b), want in cases.items():
        out = spec.infer(A.decode(spec.attrs, {}), [TensorType("f32", (Dim(*a),)), TensorType("f32", (Dim(*b),))],
                         [None, None])
        assert out[0].shape == (Dim(*want),), f"{a} with {b}: {out[0].shape}"
    with pytest.raises(OpValidationError, match="do not broadcast"):
        spec.infer(A.decode(spec.attrs, {}), [TensorType("f32", (Dim(0, 0),)), TensorType("f32", (Dim(3, 3),))],
                   [None, None])


def test_auto_broadcast_spellings_as_the_reader_takes_them(tmp_path: Path) -> None:
    """"explicit" reads as none, "NUMPY" as numpy; pdpd's axis attribute defaults to 0."""
    spec = lookup("Add", "opset1")
    f32 = TensorType("f32", (Dim(2, 2), Dim(3, 3), Dim(4, 4)))
    tail = TensorType("f32", (Dim(3, 3), Dim(4, 4)))
    decode = lambda raw: A.decode(spec.attrs, raw)  # noqa: E731
    with pytest.raises(OpValidationError):
        spec.infer(decode({"auto_broadcast": "explicit"}), [f32, tail], [None, None])
    assert spec.infer(decode({"auto_broadcast": "NUMPY"}), [f32, tail], [None, None])[0].shape == f32.shape
    with pytest.raises(OpValidationError):  # axis 0: [3,4] against [2,3]
        spec.infer(decode({"auto_broadcast": "pdpd"}), [f32, tail], [None, None])
    raw = {"auto_broadcast": "pdpd", "auto_broadcast.auto_broadcast_axis": "1"}
    assert spec.infer(decode(raw), [f32, tail], [None, None])[0].shape == f32.shape


# ---------------------------------------------------------------------------------------------
# Kernels: many cases in one model, ours against OpenVINO CPU


def elementwise_case(what: str, inputs: list[np.ndarray], build: Callable[[list[ov.Node]], ov.Node],
                     consts: Sequence[int] = (), tol: tuple[float, float] | None = None, exact: bool = False,
                     evaluator: bool = False, bound: Callable[[], np.ndarray] | None = None,
                     here: Callable[[np.ndarray], np.ndarray] | None = None) -> Case:
    """A harness case: float results within ``tol`` (rtol, atol; None: F16_TOL for an f16 result, the first float
    input's type, else F32_TOL) plus ``bound()`` when given, or, ``exact``, equal with the sign of zeros."""
    dtype = next((x.dtype for x in inputs if x.dtype.kind == "f"), None)
    rtol, atol = tol or (F16_TOL if dtype == np.float16 else F32_TOL)
    limit = None if exact else tolerance(rtol, atol, bound)
    return Case(what, inputs, build, (limit,), consts, signed_zeros=exact, evaluator=evaluator, here=here)


def node(opset: str, op: str, attrs: dict | None = None) -> Callable[[list[ov.Node]], ov.Node]:
    return lambda ins: NodeFactory(opset).create(op, [i.output(0) for i in ins], attrs or {})


SPECIALS = {np.float32: (0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 3e38, -3e38, 1e-30),
            np.float16: (0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, -65504.0, 1e-3, -1e-3)}


def values(rng: np.random.Generator, shape, dtype, scale: float = 3.0, specials=None, low=-50, high=50) -> np.ndarray:
    """Normal values times ``scale`` (integers: uniform in [low, high)), a few special ones mixed in."""
    if np.dtype(dtype).kind in "iu":
        return rng.integers(low, high, shape).astype(dtype)
    if np.dtype(dtype) == np.bool_:
        return rng.random(shape) < 0.5
    x = (rng.standard_normal(shape) * scale).astype(dtype)
    pool = SPECIALS[np.dtype(dtype).type] if specials is None else specials
    if x.size and pool and rng.random() < 0.5:
        flat = x.reshape(-1)
        flat[rng.integers(0, x.size, min(3, x.size))] = rng.choice(np.array(pool, dtype), min(3, x.size))
    return x


def pair_shapes(rng: np.random.Generator, mode: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    target = tuple(int(n) for n in rng.integers(1, 5, rng.integers(0, 5)))
    if mode == "none":
        return target, target
    if mode == "pdpd":  # the second shape a run of the first's dims (some 1), aligned at the end
        start = int(rng.integers(0, len(target) + 1))
        return target, tuple(1 if rng.random() < 0.3 else n for n in target[start:])
    shapes = []
    for _ in range(2):
        dims = target[int(rng.integers(0, len(target) + 1)):]
        shapes.append(tuple(1 if rng.random() < 0.3 else n for n in dims))
    return shapes[0], shapes[1]


# --- binary ----------------------------------------------------------------------------------------


def binary_values(rng: np.random.Generator, op: str, shapes, dtype, pdpd: bool = False) -> list[np.ndarray]:
    """Inputs for ``op``; ``pdpd`` cases go to the evaluator, whose Maximum/Minimum/comparisons treat NaN otherwise."""
    (xs, ys), f = shapes, np.dtype(dtype).kind == "f"
    if pdpd:
        return [values(rng, xs, dtype, specials=()), values(rng, ys, dtype, specials=())]
    if op == "Power":
        if not f:
            x = rng.integers(-6, 7, xs).astype(dtype)
            return [x, rng.integers(-2, 8, ys).astype(dtype)]
        x = np.abs(values(rng, xs, dtype, 2.0, ())) + 0.05
        x = np.where(rng.random(xs) < 0.2, -x, x).astype(dtype)  # negative bases: NaN unless the power is whole
        y = np.where(rng.random(ys) < 0.3, np.round(values(rng, ys, dtype, 2.0, ())), values(rng, ys, dtype, 1.5, ()))
        return [values_with(rng, x, (0.0, -0.0, np.inf, np.nan, 1.0)), values_with(rng, y.astype(dtype), (0.0, np.nan))]
    if op in ("FloorMod", "Mod"):
        if not f:
            y = rng.integers(-9, 10, ys).astype(dtype)
            return [rng.integers(-100, 100, xs).astype(dtype), np.where(y == 0, 3, y).astype(dtype)]
        while True:  # |x / y| < 1000 and not within 1e-3 of an integer: see the module doc
            x, y = values(rng, xs, dtype, 5.0, ()), values(rng, ys, dtype, 2.0, ())
            y = np.where(np.abs(y) < 0.1, 0.5, y).astype(dtype)
            q = x.astype(np.float64) / y.astype(np.float64)
            if np.all(np.abs(q - np.round(q)) > 1e-3):
                break
        return [values_with(rng, x, (np.inf, np.nan)), values_with(rng, y, (np.inf, 0.0, np.nan))]
    if op == "Divide" and not f:
        y = rng.integers(-20, 20, ys).astype(dtype)
        return [rng.integers(0, 200, xs).astype(dtype), np.where(y <= 0, 7, y).astype(dtype)]
    if op in ("Maximum", "Minimum", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual") and f \
            and not pdpd:
        pool = np.array((0.0, -0.0, 1.0, -1.5, 2.0, np.inf, -np.inf, np.nan), dtype)  # ties, zeros and NaN meet
        return [rng.choice(pool, xs), rng.choice(pool, ys)]
    if op in ("Multiply", "SquaredDifference") and not f:  # wrap-around included
        return [values(rng, xs, dtype, low=-70000, high=70000), values(rng, ys, dtype, low=-70000, high=70000)]
    return [values(rng, xs, dtype), values(rng, ys, dtype)]


def values_with(rng: np.random.Generator, x: np.ndarray, pool: Sequence[float]) -> np.ndarray:
    if x.size and rng.random() < 0.4:
        x = x.copy()
        x.reshape(-1)[rng.integers(0, x.size)] = rng.choice(np.array(pool, x.dtype))
    return x


BINARY_DTYPES = {"Add": (np.float32, np.float16, np.int32), "Subtract": (np.float32, np.float16, np.int32),
                 "Multiply": (np.float32, np.float16, np.int32), "Divide": (np.float32, np.float16),
                 "Power": (np.float32, np.float16, np.int32), "Maximum": (np.float32, np.float16, np.int32),
                 "Minimum": (np.float32, np.float16, np.int32), "SquaredDifference": (np.float32, np.float16, np.int32),
                 "FloorMod": (np.float32, np.float16, np.int32), "Mod": (np.float32, np.float16, np.int32),
                 "Equal": (np.float32, np.float16, np.int32), "NotEqual": (np.float32, np.int32, np.float16),
                 "Less": (np.float32, np.int32), "LessEqual": (np.float32, np.int32),
                 "Greater": (np.float32, np.int32), "GreaterEqual": (np.float32, np.int32),
                 "LogicalAnd": (np.bool_,), "LogicalOr": (np.bool_,), "LogicalXor": (np.bool_,)}
EXACT_BINARY = ("Maximum", "Minimum")


def ordered_on_avx2(op: str, inputs: list[np.ndarray]) -> Callable[[np.ndarray], np.ndarray] | None:
    """Greater/GreaterEqual where an input is NaN: false on AVX2, true (our kernel) on AVX-512 and SSE4.1.

    OpenVINO CPU's JIT emitters (emitters/plugin/x64/jit_eltwise_emitters.cpp) compare with the predicates
    jit_emitter.hpp names _cmp_gt_os and _cmp_ge_os, which are oneDNN's _cmp_nle_us and _cmp_nlt_us
    (unordered: true on NaN), except on AVX2, where they emit vcmpgtps / vcmpgeps (GT_OS, GE_OS: ordered, false
    on NaN). Measured on AVX2: 13 of this test's cases, every NaN position false; with no NaN all agree."""
    if op not in ("Greater", "GreaterEqual") or inputs[0].dtype.kind != "f" or openvino_cpu_isa() != "avx2":
        return None
    nan = np.isnan(inputs[0]) | np.isnan(inputs[1])
    return lambda y: np.where(nan, False, y)


def binary_cases(rng: np.random.Generator, count: int) -> list[Case]:
    cases = []
    ops = list(BINARY_DTYPES)
    for i in range(count):
        op = ops[i % len(ops)]
        dtype = BINARY_DTYPES[op][(i // len(ops)) % len(BINARY_DTYPES[op])]
        mode = "none" if i % 11 == 0 else "numpy"
        if i % 13 == 0 and op in ("Add", "Subtract", "Multiply", "Maximum", "Minimum", "Equal", "Less"):
            mode, dtype = "pdpd", np.float32 if dtype == np.float16 else dtype  # the evaluator only: see Case
        shapes = pair_shapes(rng, mode)
        if mode == "pdpd" and not shapes[0]:  # the evaluator gives [1] for two scalars (shape inference: [])
            shapes = ((2,), shapes[1])
        attrs = {"auto_broadcast": mode}
        if mode == "pdpd":
            attrs["auto_broadcast.auto_broadcast_axis"] = -1
        if op == "Divide":
            attrs["m_pythondiv"] = True

        def build(ins, op=op, attrs=attrs):
            late = {k: v for k, v in attrs.items() if "." in k}
            early = {k: v for k, v in attrs.items() if "." not in k}
            n = NodeFactory("opset1").create(op, [ins[0].output(0)] * 2, early)
            for k, v in late.items():
                n.set_attribute(k, v)
            n.input(1).replace_source_output(ins[1].output(0))
            n.validate_and_infer_types()
            return n

        inputs = binary_values(rng, op, shapes, dtype, mode == "pdpd")
        cases.append(elementwise_case(f"{op} {np.dtype(dtype).name} {list(shapes[0])} {list(shapes[1])} {mode}",
                                      inputs, build, exact=op in EXACT_BINARY and mode != "pdpd",
                                      evaluator=mode == "pdpd", here=ordered_on_avx2(op, inputs)))
    return cases


def test_binary_kernels(tmp_path: Path) -> None:
    cases = binary_cases(np.random.default_rng(SEED), 440)
    failures = run_cases(cases, tmp_path)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])


def select_and_prelu_cases(rng: np.random.Generator, count: int) -> list[Case]:
    cases = []
    for i in range(count):
        dtype = (np.float32, np.float16, np.int32)[i % 3]
        if i % 2 == 0:
            mode = "none" if i % 10 == 0 else "numpy"
            t_shape, e_shape = pair_shapes(rng, mode)
            c_shape = pair_shapes(rng, "numpy")[0] if mode == "numpy" else t_shape
            c_shape = c_shape[max(0, len(c_shape) - max(len(t_shape), len(e_shape))):]  # never of a higher rank
            c_shape = tuple(1 if n not in (1, *t_shape[-len(c_shape):], *e_shape[-len(c_shape):]) else n
                            for n in c_shape) if mode == "numpy" else c_shape
            try:
                np.broadcast_shapes(c_shape, t_shape, e_shape)
            except ValueError:
                c_shape = ()
            ins = [rng.random(c_shape) < 0.5, values(rng, t_shape, dtype), values(rng, e_shape, dtype)]
            cases.append(elementwise_case(f"Select {list(c_shape)} {list(t_shape)} {list(e_shape)} "
                                          f"{np.dtype(dtype).name} {mode}", ins,
                                          node("opset1", "Select", {"auto_broadcast": mode}), exact=True))
            continue
        shape = tuple(int(n) for n in rng.integers(1, 5, rng.integers(1, 5)))
        channel = shape[1] if len(shape) > 1 else shape[0]
        kind = ("channel", "scalar", "one", "full", "tail")[(i // 2) % 5]
        slope_shape = {"channel": (channel,), "scalar": (), "one": (1,), "full": shape,
                       "tail": tuple(1 if rng.random() < 0.4 else n for n in shape[-2:])}[kind]
        slope = values(rng, slope_shape, dtype, 0.5, ()) if dtype != np.int32 else rng.integers(-3, 4, slope_shape)
        cases.append(elementwise_case(f"PRelu {list(shape)} slope {list(slope_shape)} {np.dtype(dtype).name}",
                                      [values(rng, shape, dtype), slope.astype(dtype)], node("opset1", "PRelu"),
                                      consts=(1,) if i % 4 == 1 else ()))
    return cases


def test_select_and_prelu_kernels(tmp_path: Path) -> None:
    cases = select_and_prelu_cases(np.random.default_rng(SEED + 1), 160)
    failures = run_cases(cases, tmp_path)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])


# --- unary -----------------------------------------------------------------------------------------

#: The default f32 tolerance, marking an op whose f16 results carry the CPU's f32 approximation error
#: (f16 is computed in f32 and rounded): their f16 tolerance is one ulp plus the f32 atol.
APPROXIMATE = F32_TOL

#: (opset, op, attrs, integer data too, exact, f32 tolerance or None, values to avoid: see the module doc)
UNARY_KERNELS = (
    ("opset1", "Relu", {}, True, True, None, ()),
    ("opset1", "Sigmoid", {}, False, False, None, ()),
    ("opset1", "Tanh", {}, False, False, None, ()),
    ("opset1", "Exp", {}, False, False, None, (np.nan, 3e38)),
    ("opset1", "Log", {}, False, False, None, ()),
    ("opset1", "Sqrt", {}, False, False, None, ()),
    ("opset1", "Erf", {}, False, False, APPROXIMATE, ()),
    ("opset1", "Sin", {}, False, False, None, (1e30, -1e30, 3e38, -3e38, 65504.0, -65504.0)),
    ("opset1", "Cos", {}, False, False, None, (1e30, -1e30, 3e38, -3e38, 65504.0, -65504.0)),
    ("opset1", "Abs", {}, True, True, None, ()),
    ("opset1", "Negative", {}, True, True, None, ()),
    ("opset1", "Floor", {}, True, True, None, ()),
    ("opset1", "Ceiling", {}, True, True, None, ()),
    ("opset1", "Sign", {}, True, True, None, ()),
    ("opset5", "Round", {"mode": "half_to_even"}, True, True, None, ()),
    ("opset5", "Round", {"mode": "half_away_from_zero"}, True, True, None, ()),
    ("opset1", "Clamp", None, True, True, None, ()),
    ("opset1", "Elu", None, False, False, APPROXIMATE, ()),
    ("opset4", "Swish", {}, False, False, APPROXIMATE, ()),
    ("opset4", "HSwish", {}, False, False, APPROXIMATE, ()),
    ("opset5", "HSigmoid", {}, False, False, None, ()),
    ("opset4", "Mish", {}, False, False, (1e-5, 2e-6), ()),
    ("opset4", "SoftPlus", {}, False, False, (1e-5, 4e-6), ()),
    ("opset2", "Gelu", {}, False, False, APPROXIMATE, (np.inf, -np.inf, 3e38, -3e38)),
    ("opset7", "Gelu", {"approximation_mode": "erf"}, False, False, APPROXIMATE, (np.inf, -np.inf, 3e38, -3e38)),
    ("opset7", "Gelu", {"approximation_mode": "tanh"}, False, False, APPROXIMATE, ()),
    ("opset9", "SoftSign", {}, False, False, None, ()),
)


def unary_attrs(rng: np.random.Generator, op: str, attrs: dict | None) -> dict:
    if op == "Clamp":
        lo = float(rng.choice((-2.5, -1.0, -0.3, 0.0, 0.7)))
        return {"min": lo, "max": lo + float(rng.choice((0.0, 0.5, 1.25, 3.7)))}
    if op == "Elu":
        return {"alpha": float(rng.choice((0.1, 0.7, 1.0, 2.5)))}
    return attrs or {}


def unary_cases(rng: np.random.Generator, count: int) -> list[Case]:
    cases = []
    for i in range(count):
        opset, op, attrs, integers, exact, tol, avoid = UNARY_KERNELS[i % len(UNARY_KERNELS)]
        dtypes = (np.float32, np.float16, np.int32) if integers else (np.float32, np.float16)
        dtype = dtypes[(i // len(UNARY_KERNELS)) % len(dtypes)]
        attrs = unary_attrs(rng, op, attrs)
        shape = tuple(int(n) for n in rng.integers(1, 6, rng.integers(0, 4)))
        pool = tuple(v for v in SPECIALS[dtype] if not any(v == a or (np.isnan(v) and np.isnan(a)) for a in avoid)) \
            if dtype != np.int32 else ()
        x = values(rng, shape, dtype, float(rng.choice((1.0, 3.0, 12.0))), pool)
        if op in ("Round", "Floor", "Ceiling") and dtype != np.int32:  # ties and near-ties
            with np.errstate(over="ignore"):
                x = (np.round(x * 2) / 2).astype(dtype) if rng.random() < 0.5 else x
        if op == "Exp":  # the CPU's f32 exp overflows from 88.38
            x = np.where(np.abs(x) > 88.3, np.sign(x) * 88.3, x).astype(dtype)
        inputs, consts, build = [x], (), node(opset, op, attrs)
        if op == "Swish" and i % 3:
            inputs.append(np.array(rng.choice((0.5, 1.0, 1.7, -0.4)), dtype))
            consts = (1,) if i % 3 == 1 else ()
        if tol is not None and dtype == np.float16:
            tol = (F16_TOL[0], F16_TOL[1] + tol[1])
        cases.append(elementwise_case(f"{op}{attrs or ''} {np.dtype(dtype).name}{list(shape)} {x.ravel()[:4]}",
                                      inputs, build, consts, tol if dtype != np.int32 else None, exact))
    return cases


def test_unary_kernels(tmp_path: Path) -> None:
    cases = unary_cases(np.random.default_rng(SEED + 2), 600)
    failures = run_cases(cases, tmp_path)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])


def test_logical_not_and_boolean_comparisons(tmp_path: Path) -> None:
    rng = np.random.default_rng(SEED + 3)
    cases = []
    for i in range(40):
        shape = tuple(int(n) for n in rng.integers(1, 5, rng.integers(0, 4)))
        a, b = rng.random(shape) < 0.5, rng.random(shape) < 0.5
        op = ("LogicalNot", "Equal", "NotEqual")[i % 3]
        cases.append(elementwise_case(f"{op} boolean{list(shape)}", [a] if op == "LogicalNot" else [a, b],
                                      node("opset1", op)))
    failures = run_cases(cases, tmp_path)
    assert not failures, "\n".join(failures[:20])


# --- integers the CPU plugin gets wrong, and what the kernels refuse ----------------------------------


def kernel(op: str, version: str, raw: dict | None = None) -> Callable[[list[np.ndarray]], np.ndarray]:
    spec = lookup(op, version)
    return lambda args: spec.kernel(A.decode(spec.attrs, raw or {}), args)[0]


def evaluate_op(op: str, opset: str, arrays: list[np.ndarray], attrs: dict | None = None) -> np.ndarray:
    """OpenVINO's own evaluator (its reference implementation) on Constants."""
    return evaluate(NodeFactory(opset).create(op, [ops1.constant(a).output(0) for a in arrays], attrs or {}))[0]


def test_integer_power_floor_mod_and_mod_follow_the_evaluator() -> None:
    rng = np.random.default_rng(SEED + 4)
    a = np.concatenate([rng.integers(-100, 100, 200), [2, -2, 46341, 1 << 20, -1, 1, 0, 0]]).astype(np.int32)
    b = np.concatenate([rng.integers(-7, 8, 200), [31, 31, 2, 3, 3, -5, 0, 3]]).astype(np.int32)
    np.testing.assert_array_equal(kernel("Power", "opset1")([a, b]), evaluate_op("Power", "opset1", [a, b]))
    b = np.where(b == 0, 5, b).astype(np.int32)
    for op in ("FloorMod", "Mod"):
        np.testing.assert_array_equal(kernel(op, "opset1")([a, b]), evaluate_op(op, "opset1", [a, b]), err_msg=op)
        with pytest.raises(OpValidationError, match="division by zero"):
            kernel(op, "opset1")([a, np.zeros_like(b)])


def test_integer_power_saturates_small_types() -> None:
    """i8 Power on CPU (the evaluator has none): 127 ** 2 -> 127, 3 ** 5 -> 127, (-2) ** 7 -> -128."""
    x, y = np.array([-128, 127, -7, 100, 3, 2, -2], np.int8), np.array([-1, 2, 2, -100, 5, 7, 7], np.int8)
    np.testing.assert_array_equal(kernel("Power", "opset1")([x, y]), [0, 127, 49, 0, 127, 127, -128])


def test_integer_transcendentals_are_refused() -> None:
    x = np.arange(-3, 4, dtype=np.int32)
    for op in ("Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Erf", "Sin", "Cos", "HSwish"):
        version = "opset4" if op == "HSwish" else "opset1"
        with pytest.raises(UnsupportedError, match="disagree on integers"):
            kernel(op, version)([x])
    np.testing.assert_array_equal(evaluate_op("Exp", "opset1", [np.array([1, 2], np.int32)]), [2, 7])  # truncates


def test_clamp_integer_bounds_and_validation() -> None:
    """Integer Clamp: min rounds up, max down, both saturate (OpenVINO's evaluator); min > max is refused."""
    x = np.array([-300, -3, -2, -1, 0, 1, 2, 3, 300], np.int32)
    got = kernel("Clamp", "opset1", {"min": "-2.5", "max": "2.5"})([x])
    np.testing.assert_array_equal(got, evaluate_op("Clamp", "opset1", [x], {"min": -2.5, "max": 2.5}))
    u = np.array([0, 5, 200, 255], np.uint8)
    np.testing.assert_array_equal(kernel("Clamp", "opset1", {"min": "-10", "max": "1e9"})([u]), u)
    with pytest.raises(OpValidationError, match="less than or equal"):
        kernel("Clamp", "opset1", {"min": "2", "max": "1"})([x])


@pytest.mark.parametrize("raw", [{"min": "1_0", "max": "2"}, {"min": "", "max": "2"}, {"min": "0x10", "max": "2"}])
def test_clamp_attribute_spellings(raw: dict) -> None:
    spec = lookup("Clamp", "opset1")
    with pytest.raises(IrToolsError, match="attribute 'min'"):
        A.decode(spec.attrs, raw)


def test_erf_within_three_ulps_of_math_erf() -> None:
    """The vectorised erf (Erf-1, Gelu-7 erf mode) against the C library's, over the whole range and its edges."""
    from ir_tools.ops.activations import erf

    rng = np.random.default_rng(7)
    x = np.concatenate([rng.standard_normal(200_000) * s for s in (0.01, 0.5, 1.0, 2.0, 4.0, 10.0)]
                       + [np.linspace(-6, 6, 101), np.array([-0.0, 30.0, np.inf, -np.inf, np.nan, 5e-324])])
    got = erf(x)
    want = np.array([math.erf(v) for v in x])
    assert np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(np.signbit(got), np.signbit(want))
    finite = ~np.isnan(want)
    assert np.max(np.abs(got - want)[finite] / np.spacing(np.abs(want[finite]))) <= 3
    assert erf(np.zeros((2, 0))).shape == (2, 0)


def test_f16_sums_and_products_round_once() -> None:
    """Add, Subtract and Multiply of f16 are exact in float64 and rounded once into f16 there: bit for bit numpy's own
    f16 arithmetic (which rounds its f32 result, also correctly rounded: 24 >= 2 * 11 + 2 bits), over every kind of
    f16 value (subnormals, infinities, NaN, overflow), broadcast too."""
    rng = np.random.default_rng(11)
    x, y = rng.integers(0, 1 << 16, (2, 300_000)).astype(np.uint16).view(np.float16)
    channels = rng.standard_normal((1, 8, 1, 1)).astype(np.float16)
    for op, fn in (("Add", np.add), ("Subtract", np.subtract), ("Multiply", np.multiply)):
        spec = lookup(op, "opset1")
        attrs = A.decode(spec.attrs, {})
        for a, b in ((x, y), (x.reshape(-1, 8, 75, 50), channels)):
            got = spec.kernel(attrs, [a, b])[0]
            with np.errstate(all="ignore"):
                want = fn(a, b)
            nan = np.isnan(want)
            assert got.dtype == np.float16 and got.shape == want.shape
            assert np.array_equal(np.isnan(got), nan)
            assert np.array_equal(got.view(np.uint16)[~nan], want.view(np.uint16)[~nan]), op


# --- opset ranges ----------------------------------------------------------------------------------

#: One valid node per modelled op version of ops/arithmetic.py, activations.py and normalization.py:
#: (the opset NodeFactory builds it from, type, inputs, attributes).
_SHAPE = (Dim(2, 2), Dim(3, 3), Dim(4, 4))
_F, _B, _C = TensorType("f32", _SHAPE), TensorType("boolean", _SHAPE), TensorType("f32", (Dim(3, 3),))
_AXES = np.array([1], np.int64)
OPSET_CASES = (
    *(("opset1", op, [_B, _B] if op.startswith("Logical") else [_F, _F], {}) for op in BINARY_OPS),
    ("opset1", "Select", [_B, _F, _F], {}), ("opset1", "PRelu", [_F, _C], {}), ("opset1", "LogicalNot", [_B], {}),
    *((opset, op, [_F], attrs) for opset, op, attrs in UNARY_OPS if op != "LogicalNot"),
    ("opset5", "Round", [_F], {"mode": "half_away_from_zero"}), ("opset7", "Gelu", [_F], {"approximation_mode": "erf"}),
    ("opset1", "BatchNormInference", [_C, _C, _F, _C, _C], {"epsilon": 1e-3}),
    ("opset5", "BatchNormInference", [_F, _C, _C, _C, _C], {"epsilon": 1e-3}),
    ("opset2", "MVN", [_F], {"eps": 1e-3, "across_channels": True, "normalize_variance": True}),
    ("opset6", "MVN", [_F, _AXES], {"eps": 1e-3, "normalize_variance": True, "eps_mode": "inside_sqrt"}),
    ("opset1", "NormalizeL2", [_F, _AXES], {"eps": 1e-6, "eps_mode": "add"}),
    ("opset1", "LRN", [_F, _AXES], {"alpha": 1e-4, "beta": 0.75, "bias": 1.0, "size": 3}),
)
REJECTED = ("unsupported opset", "doesn't contain the operation")
#: The IR reader takes MVN in version="opset1" (as MVN-1) although OpenVINO's opset1 table (opset1_tbl.hpp, and
#: so ops/openvino_opsets.json and our table) lacks it; ``check`` says E-OPSET there.
READER_EXTRAS = {("MVN", 1)}


@pytest.mark.parametrize("opset,op,inputs,attrs", OPSET_CASES, ids=[f"{c[1]}-{c[0]}" for c in OPSET_CASES])
def test_opset_ranges_match_the_reader(tmp_path: Path, opset: str, op: str, inputs: list, attrs: dict) -> None:
    """The IR, saved by OpenVINO, with the layer's version set to opset0..opset18: OpenVINO reads it exactly
    where our table has this spec (as one op version), and refuses it as unknown where we have no spec."""
    case = ShapeCase(opset, op, inputs, attrs)
    n = NodeFactory(opset).create(op, case.nodes(), attrs)
    n.set_friendly_name("target")
    params = [i.get_node() for i in n.input_values() if i.get_node().get_type_name() == "Parameter"]
    ov.save_model(ov.Model([n.output(0)], params), str(tmp_path / "m.xml"), compress_to_fp16=False)
    xml, weights = (tmp_path / "m.xml").read_text(), (tmp_path / "m.bin").read_bytes()
    layer = re.search(r'name="target" type="([^"]+)" version="([^"]+)"', xml)
    ours = lookup(layer.group(1), layer.group(2))
    assert ours is not None, f"{layer.group(1)}/{layer.group(2)} is not in the table"
    seen, problems = set(), []
    for k in range(19):
        text = xml.replace(layer.group(0), f'name="target" type="{layer.group(1)}" version="opset{k}"')
        spec = lookup(layer.group(1), f"opset{k}")
        try:
            model = ov.Core().read_model(text, ov.Tensor(np.frombuffer(weights or b"\0", np.uint8).copy()))
        except RuntimeError as exc:
            if spec is ours or (spec is None and not any(r in str(exc) for r in REJECTED)
                                and (layer.group(1), k) not in READER_EXTRAS):
                problems.append(f"opset{k}: OpenVINO refuses it ({str(exc).strip().splitlines()[-1][:100]})")
            continue
        if spec is None and (layer.group(1), k) not in READER_EXTRAS:
            problems.append(f"opset{k}: OpenVINO reads it, the table has no {layer.group(1)}")
        elif spec is ours:
            seen.add(next(o for o in model.get_ops() if o.get_friendly_name() == "target").get_type_info().version_id)
    assert len(seen) == 1 and not problems, f"{ours.label}: versions {seen}; " + "; ".join(problems)
