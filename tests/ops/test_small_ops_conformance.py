"""IsNaN-10, IsInf-10, IsFinite-10 (ops/float_classes.py), ConvertLike-1 (ops/core.py), Reverse-1
(ops/movement.py), GRN-1 (ops/normalization.py) and Xor-1 (ops/arithmetic.py) against OpenVINO: shape rules and CPU
kernels.

Kernels: seeded cases batched 60 to a model, saved as IR, read and run by ir_tools and compiled once for OpenVINO
CPU, every output OpenVINO's bit for bit (NaN payloads and zeros' signs too): the float classes on f32 and f16 of
random bits (every class: NaNs of either sign and any payload, infinities, zeros, subnormals, f16 beyond 65504) and
on f64 (which CPU saturates into f32), every IsInf flag pair, fed and Const (folded by OpenVINO's evaluator);
ConvertLike from f32, f16, i32, i64, u8 and boolean into every integer type, boolean, f16 and f32 (NaN, +-inf, 3e9,
halves), fed and Const; Reverse in both modes on six element types (axes negative, repeated, empty, Const and fed);
GRN on f32 and f16 of rank 2 to 4 with specials (NaN, inf, 3e38 whose f32 norm overflows, subnormals) and
several biases; Xor on broadcast booleans. Then the float classes once more at AVX2 (ONEDNN_MAX_CPU_ISA, in a child),
where IsFinite takes f32 subnormals for finite. Shape rules: about 600 seeded nodes on Parameters (partial shapes,
element types real or not, dynamic) and Constants must give our rule's output, or both refuse.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset10 as ops10
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.base.packed import BF16
from ir_tools.ops import attrs as A
from ir_tools.ops.core import CONVERT_LIKE_1, NoAttrs
from ir_tools.ops.float_classes import IS_FINITE_10, IS_INF_10, IS_NAN_10, IsInfAttrs
from ir_tools.ops.normalization import GRN_1

from .conformance import (
    ELEMENTS,
    Case,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    constant,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    random_bounds,
    run_cases,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 1010
CASES_PER_MODEL = 60
FLAGS = [(n, p) for n in (True, False) for p in (True, False)]


def opset1(op: str, inputs: list[ov.Node], attrs: dict | None = None) -> ov.Node:
    return NodeFactory("opset1").create(op, [n.output(0) for n in inputs], attrs or {})


# --- the float classes ---------------------------------------------------------------------------------------------


def class_values(rng: np.random.Generator, dtype: type, n: int) -> np.ndarray:
    """``n`` values of every class: random bits of f32 and f16 (a subnormal and a NaN among the first), f64 around
    f32's limits and specials."""
    if dtype == np.float64:
        pool = np.array([np.inf, -np.inf, np.nan, -np.nan, 1e39, -1e300, 1e-40, -1e-45, 1e-300, 0.0, -0.0, 3.4028235e38,
                         3.4028236e38, 1.0, -2.5], np.float64)
        return np.where(rng.random(n) < 0.5, rng.choice(pool, n), rng.standard_normal(n) * 10.0 ** rng.integers(-50,
                                                                                                               50, n))
    bits = {np.float32: np.uint32, np.float16: np.uint16}[dtype]
    x = rng.integers(0, np.iinfo(bits).max, n, dtype=bits, endpoint=True).view(dtype)
    x[:2] = np.array([1, np.iinfo(bits).max], bits).view(dtype)[:n]  # the least subnormal, a negative NaN
    return x


def class_build(op: str, flags: tuple[bool, bool] = (True, True)):
    if op == "IsInf":
        return lambda ps: ops10.is_inf(ps[0], {"detect_negative": flags[0], "detect_positive": flags[1]})
    return lambda ps: getattr(ops10, {"IsNaN": "is_nan", "IsFinite": "is_finite"}[op])(ps[0])


def class_cases(rng: np.random.Generator, n: int) -> list[Case]:
    """``n`` cases of IsNaN, IsInf (each flag pair) and IsFinite in turn, on f32, f16 and f64 of rank 0 to 3; a
    Constant input one case in six (OpenVINO folds it by its evaluator)."""
    cases = []
    for i in range(n):
        op = ("IsNaN", "IsInf", "IsFinite")[i % 3]
        dtype = (np.float32, np.float16, np.float64)[(i // 3) % 3]
        shape = [int(d) for d in rng.integers(1, 9, int(rng.integers(0, 4)))]
        x = class_values(rng, dtype, int(np.prod(shape))).reshape(shape)
        flags = pick(rng, FLAGS)
        consts = (0,) if rng.random() < 1 / 6 else ()
        cases.append(Case(f"{op} {flags if op == 'IsInf' else ''} {x.dtype}{shape}{' const' if consts else ''}", [x],
                          class_build(op, flags), consts=consts, bits=True))
    return cases


def ordinary_class_cases(rng: np.random.Generator, n: int) -> list[Case]:
    """``n`` cases of the float classes on normal values of many scales (f64 ones beyond f32's range too, but none below
    its normal range), none special: the stored answers keep no special values."""
    cases = []
    for i in range(n):
        op, dtype = ("IsNaN", "IsInf", "IsFinite")[i % 3], (np.float32, np.float16, np.float64)[(i // 3) % 3]
        exponents = rng.integers(-30, 30, 6) if dtype == np.float32 else rng.integers(-4, 4, 6) \
            if dtype == np.float16 else rng.integers(-30, 60, 6)
        x = (rng.standard_normal(6) * 10.0 ** exponents).astype(dtype)
        cases.append(Case(f"{op} {x.dtype}", [x], class_build(op, pick(rng, FLAGS)), bits=True))
    return cases


# --- ConvertLike ---------------------------------------------------------------------------------------------------

LIKE_TYPES = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.bool_, np.float16,
              np.float32)
SOURCE_TYPES = (np.float32, np.float16, np.int32, np.int64, np.uint8, np.bool_)


def source_values(rng: np.random.Generator, dtype: type, n: int) -> np.ndarray:
    """Floats: normals of many scales, halves, NaN, +-inf, 3e9, 1e20; f16 finite (CPU and the kernel differ beyond:
    not ConvertLike's matter); integers over their type's range."""
    if dtype == np.bool_:
        return rng.random(n) < 0.5
    if np.dtype(dtype).kind in "iu":  # (i64 within i32's range, which CPU holds i64 in)
        info = np.iinfo(np.int32 if dtype == np.int64 else dtype)
        return rng.integers(info.min, info.max, n, endpoint=True).astype(dtype)
    pool = [0.5, -0.5, 2.5, -2.5, 255.5, 256.2, -128.9, 127.9, 65519.0, 70000.0, 3e9, -3e9, 1e20, np.nan, np.inf,
            -np.inf, -0.0, 1e-40]
    x = np.where(rng.random(n) < 0.4, rng.choice(pool, n), rng.standard_normal(n) * 10.0 ** rng.integers(0, 10, n))
    if dtype == np.float16:
        x = np.clip(np.nan_to_num(x), -60000.0, 60000.0)
    return x.astype(dtype)


def convert_like_cases(rng: np.random.Generator, n: int) -> list[Case]:
    """``n`` cases over every source and ``like`` type; one in eight with both inputs Constants (folded), into a type
    of at most 16 bits, f32 or i32 (CPU converts a folded u32, i64 or u64 to i32, saturating: not ConvertLike's
    matter)."""
    cases = []
    for i in range(n):
        source, like_type = SOURCE_TYPES[i % len(SOURCE_TYPES)], LIKE_TYPES[(i // len(SOURCE_TYPES)) % len(LIKE_TYPES)]
        shape = [int(d) for d in rng.integers(1, 7, int(rng.integers(0, 3)))]
        x = source_values(rng, source, int(np.prod(shape))).reshape(shape)
        like = np.zeros([int(d) for d in rng.integers(1, 3, int(rng.integers(0, 3)))], like_type)
        consts = (0, 1) if i % 8 == 7 and like_type not in (np.uint32, np.int64, np.uint64) else ()
        cases.append(Case(f"ConvertLike {x.dtype}{shape} like {like.dtype}{' const' if consts else ''}", [x, like],
                          lambda ps: ops1.convert_like(ps[0], ps[1]), consts=consts, bits=True))
    return cases


# --- Reverse -------------------------------------------------------------------------------------------------------

REVERSE_TYPES = (np.float32, np.int32, np.uint8, np.bool_, np.float16, np.int64)


def reverse_cases(rng: np.random.Generator, n: int) -> list[Case]:
    """``n`` cases: data of rank 1 to 4, index axes (i64 or i32, negative and repeated ones, empty ones) as Constants
    or fed, mask axes as Constants."""
    cases = []
    for i in range(n):
        dtype = REVERSE_TYPES[i % len(REVERSE_TYPES)]
        shape = [int(d) for d in rng.integers(1, 6, int(rng.integers(1, 5)))]
        x = (rng.standard_normal(shape) * 50).astype(dtype)
        rank = len(shape)
        if i % 3 == 0:
            mode, axes = "mask", rng.random(rank) < 0.5
        else:
            mode = "index"
            axes = rng.integers(-rank, rank, int(rng.integers(0, rank + 2))).astype(pick(rng, [np.int64, np.int32]))
        consts = (1,) if mode == "mask" or rng.random() < 0.7 else ()
        cases.append(Case(f"Reverse {mode} {axes.tolist()} of {x.dtype}{shape}{'' if consts else ' fed'}", [x, axes],
                          lambda ps, mode=mode: opset1("Reverse", ps, {"mode": mode}), consts=consts, bits=True))
    return cases


# --- GRN -----------------------------------------------------------------------------------------------------------

BIASES = (1.0, 0.0, 1e-6, 0.5, 2.5, 1e-50, 100.0)


def grn_values(rng: np.random.Generator, dtype: type, shape: list[int], specials: float) -> np.ndarray:
    """Normals of a random scale per case, a fraction ``specials`` of the elements special: NaN, +-inf, +-0, f32
    subnormals, 3e38 (f32: whose squares' sum's root overflows f32)."""
    scale = 10.0 ** float(rng.uniform(-3, 3) if dtype == np.float16 else rng.uniform(-30, 30))
    x = rng.standard_normal(shape) * scale
    pool = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-42, 3e38 if dtype == np.float32 else 60000.0]
    flat = x.reshape(-1)
    at = rng.random(flat.size) < specials
    flat[at] = rng.choice(pool, int(at.sum()))
    return x.astype(dtype)


def grn_cases(rng: np.random.Generator, n: int, specials: float = 0.1) -> list[Case]:
    cases = []
    for i in range(n):
        dtype = (np.float32, np.float16)[i % 2]
        shape = [int(d) for d in rng.integers(1, 6, int(rng.integers(2, 5)))]
        shape[1] = int(pick(rng, [1, 2, 3, 7, 40]))
        x = grn_values(rng, dtype, shape, specials)
        bias = float(pick(rng, BIASES))
        cases.append(Case(f"GRN bias {bias} {x.dtype}{shape}", [x], lambda ps, bias=bias: ops1.grn(ps[0], bias),
                          bits=True))
    return cases


# --- Xor -----------------------------------------------------------------------------------------------------------


def xor_cases(rng: np.random.Generator, n: int) -> list[Case]:
    """``n`` cases of booleans of rank 0 to 3, the second shape broadcast (numpy: dims of 1 and missing ones)."""
    cases = []
    for _ in range(n):
        shape = [int(d) for d in rng.integers(1, 5, int(rng.integers(0, 4)))]
        other = [d if rng.random() < 0.6 else 1 for d in shape][int(rng.integers(0, len(shape) + 1)):]
        x, y = rng.random(shape) < 0.5, rng.random(other) < 0.5
        cases.append(Case(f"Xor {shape} {other}", [x, y], lambda ps: opset1("Xor", ps), bits=True))
    return cases


def small_ops_cases(rng: np.random.Generator, n: int) -> list[Case]:
    """``n`` cases of each family (the float classes 2n), as the suite and the stored answers take them."""
    return [*class_cases(rng, 2 * n), *convert_like_cases(rng, n), *reverse_cases(rng, n), *grn_cases(rng, n),
            *xor_cases(rng, n)]


def test_values_bit_for_bit(tmp_path: Path) -> None:
    cases = small_ops_cases(np.random.default_rng([SEED, 0]), 60)
    failures = run_cases(cases, tmp_path, CASES_PER_MODEL)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])


#: Run in a child whose OpenVINO CPU may use AVX2 at most: the float classes by OpenVINO and by our kernel.
_AT_AVX2 = """
import json, sys
import numpy as np, openvino as ov, openvino.opset1 as ops1, openvino.opset10 as ops10
from ir_tools.ops.core import NoAttrs
from ir_tools.ops.float_classes import IS_FINITE_10, IS_INF_10, IS_NAN_10, IsInfAttrs
x = np.load(sys.argv[1])
p = ops1.parameter(list(x.shape), np.float32)
model = ov.Model([ops10.is_finite(p), ops10.is_nan(p), ops10.is_inf(p)], [p])
theirs = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})({0: x})
ours = [IS_FINITE_10.kernel(NoAttrs(), [x])[0], IS_NAN_10.kernel(NoAttrs(), [x])[0],
        IS_INF_10.kernel(IsInfAttrs(), [x])[0]]
print(json.dumps([int(np.count_nonzero(a != theirs[i])) for i, a in enumerate(ours)]))
"""


def test_float_classes_at_avx2(tmp_path: Path) -> None:
    """At AVX2 IsFinite compares ``x & inf`` with inf: an f32 subnormal is finite there (on AVX-512 ``vfpclassps``
    counts it among the non-finite), and the kernel follows the instruction set."""
    x = class_values(np.random.default_rng([SEED, 2]), np.float32, 20_000)
    x[2:1000] = (np.arange(2, 1000, dtype=np.uint32) * np.uint32(4099)).view(np.float32)  # subnormals of both signs
    x[500:1000] = -x[500:1000]
    np.save(tmp_path / "x.npy", x)
    env = {**os.environ, "ONEDNN_MAX_CPU_ISA": "AVX2"}
    done = subprocess.run([sys.executable, "-c", _AT_AVX2, str(tmp_path / "x.npy")], env=env, capture_output=True,
                          text=True, check=True, cwd=Path(__file__).resolve().parents[2])
    assert json.loads(done.stdout) == [0, 0, 0]


def test_float_class_bounds_carry_moves() -> None:
    """The rule: values moved anywhere within their bounds (every value of the input's type between the ends, for
    intervals of up to 16 ulps either side, near f32's and f16's largest values and the subnormals too) are classed
    as the output says wherever the rule's bound is 0."""
    rng = np.random.default_rng([SEED, 3])
    for dtype, top in ((np.float32, np.finfo(np.float32).max), (np.float16, np.float16(65504))):
        bits = {np.float32: np.int32, np.float16: np.int16}[dtype]
        x = np.concatenate([class_values(rng, dtype, 2000), np.full(200, top, dtype), np.full(200, -top, dtype),
                            np.array([0, 1, -1], bits).view(dtype)])
        steps = rng.integers(0, 17, x.size)
        with np.errstate(invalid="ignore", over="ignore"):
            bounds = np.where(np.isfinite(x), steps * np.spacing(np.abs(x)).astype(np.float64), 0.0)
        changed = 0
        for spec, attrs in ((IS_NAN_10, NoAttrs()), (IS_FINITE_10, NoAttrs()), (IS_INF_10, IsInfAttrs()),
                            (IS_INF_10, IsInfAttrs(True, False))):
            y = spec.kernel(attrs, [x])[0]
            limit = spec.rounding(spec.kernel, attrs, [x], [bounds], [y])[0]
            for k in range(-16, 17):
                with np.errstate(invalid="ignore", over="ignore"):
                    moved = (x.view(bits) + np.sign(x.view(bits)).astype(bits) * bits(k)).view(dtype)
                    within = np.abs(moved.astype(np.float64) - x.astype(np.float64)) <= bounds
                    within |= moved.view(bits) == x.view(bits)
                    within &= ~np.isnan(moved) | np.isnan(x)
                got = spec.kernel(attrs, [moved])[0]
                assert not np.any(within & (got != y) & (limit < 1)), (spec.label, k)
                changed += int(np.count_nonzero(within & (got != y)))
        assert changed > 0  # (some moved into another class: beyond the largest value, into the subnormals)
    top = np.array([0x7F7F0000], np.uint32).view(np.float32)  # bf16's largest value, 2^120 below the next one
    bound = np.array([0.6 * 2.0**120])
    for x, reach in ((top.view(BF16), 1.0), (top, 0.0)):  # (bf16: rounds to inf; f32 holds it)
        y = IS_INF_10.kernel(IsInfAttrs(), [x])[0]
        assert IS_INF_10.rounding(IS_INF_10.kernel, IsInfAttrs(), [x], [bound], [y])[0].tolist() == [reach]


def test_grn_bounds_carry_moves() -> None:
    rng = np.random.default_rng([SEED, 4])
    for shape in ([2, 5, 3], [3, 40], [1, 2, 2, 3]):
        x = rng.standard_normal(shape).astype(np.float32)
        bounds = np.abs(x) * 1e-3 * rng.random(shape)
        assert_bounds_carry_moves(GRN_1, {"bias": "0.5"}, [x], [bounds], rng, shape)


def test_convert_like_bounds_carry_moves() -> None:
    """Convert's rule, into the ``like``'s type: f32 moved within its bounds into f16, i32 (a truncation can step by
    one more) and boolean (0 can be crossed), the rule given the outputs in their own type (which
    ``assert_bounds_carry_moves`` hands over as f32)."""
    rng = np.random.default_rng([SEED, 5])
    x = (rng.standard_normal(400) * 100).astype(np.float32)
    x[:20] = rng.uniform(-0.1, 0.1, 20)
    bounds = np.abs(x) * 1e-2 + 1e-3
    for like in (np.zeros(1, np.float16), np.zeros(1, np.int32), np.zeros(1, np.bool_)):
        y = CONVERT_LIKE_1.kernel(NoAttrs(), [x, like])[0]
        limit = CONVERT_LIKE_1.rounding(CONVERT_LIKE_1.kernel, NoAttrs(), [x, like], [bounds, np.zeros(1)], [y])[0]
        exact = CONVERT_LIKE_1.kernel(NoAttrs(), [x.astype(np.float64), like])[0].astype(np.float64)
        for sign in (-1.0, -0.5, 0.5, 1.0):
            moved = CONVERT_LIKE_1.kernel(NoAttrs(), [x + sign * bounds, like])[0].astype(np.float64)
            assert np.all(np.abs(moved - exact) <= limit), like.dtype


# --- shape rules ---------------------------------------------------------------------------------------------------

ANY = ["f32", "f16", "bf16", "f64", "i32", "i64", "u8", "boolean", None]


def _shape(rng: np.random.Generator, ranks: tuple[int, int] = (0, 5)):
    return None if rng.random() < 0.1 else random_bounds(rng, [int(n) for n in rng.integers(0, 6,
                                                                                                int(rng.integers(*ranks)))])


def _class_shape_cases(rng: np.random.Generator) -> list:
    cases = []
    for i in range(200):
        op, flags = ("IsNaN", "IsInf", "IsFinite")[i % 3], pick(rng, FLAGS)
        shape, element = _shape(rng), pick(rng, ANY)
        raw = A.encode(IsInfAttrs(*flags)) if op == "IsInf" else {}

        def theirs(op=op, flags=flags, shape=shape, element=element):
            return openvino_outcome(lambda: class_build(op, flags)([ops1.parameter(partial_shape(shape),
                                                                                    ELEMENTS[element])]))

        def ours(op=op, raw=raw, shape=shape, element=element):
            return our_outcome(op, "opset10", raw, tensor_types([element], [shape]), [None])

        cases.append((f"{op} {element} {show(shape)}", theirs, ours))
    return cases


def _convert_like_and_grn_shape_cases(rng: np.random.Generator) -> list:
    cases = []
    for _ in range(100):
        shapes, elements = [_shape(rng), _shape(rng)], [pick(rng, ANY), pick(rng, ANY)]

        def theirs(shapes=shapes, elements=elements):
            return openvino_outcome(lambda: ops1.convert_like(*(ops1.parameter(partial_shape(s), ELEMENTS[e])
                                                                for s, e in zip(shapes, elements, strict=True))))

        def ours(shapes=shapes, elements=elements):
            return our_outcome("ConvertLike", "opset1", {}, tensor_types(elements, shapes), [None, None])

        cases.append((f"ConvertLike {elements} {[show(s) for s in shapes]}", theirs, ours))
    for _ in range(100):
        shape, element = _shape(rng, (0, 7)), pick(rng, ANY)

        def theirs(shape=shape, element=element):
            return openvino_outcome(lambda: ops1.grn(ops1.parameter(partial_shape(shape), ELEMENTS[element]), 1.0))

        def ours(shape=shape, element=element):
            return our_outcome("GRN", "opset1", {"bias": "1.0"}, tensor_types([element], [shape]), [None])

        cases.append((f"GRN {element} {show(shape)}", theirs, ours))
    return cases


def _reverse_shape_cases(rng: np.random.Generator) -> list:
    cases = []
    for _ in range(200):
        mode = pick(rng, ["index", "mask"])
        data, data_element = _shape(rng), pick(rng, ANY)
        if rng.random() < 0.5:  # Constant axes, of the mode's type or not
            n = int(rng.integers(0, 5))
            value = rng.random(n) < 0.5 if rng.random() < (0.8 if mode == "mask" else 0.1) else \
                rng.integers(-4, 5, n).astype(pick(rng, [np.int64, np.int32, np.uint8, np.float32]))
            axes_element, axes_shape = {np.dtype(np.bool_): "boolean", np.dtype(np.int64): "i64",
                                        np.dtype(np.int32): "i32", np.dtype(np.uint8): "u8",
                                        np.dtype(np.float32): "f32"}[value.dtype], ((n, n),)
        else:
            value = None
            axes_element = pick(rng, ["boolean", "i64", "i32", "u8", "f32", None])
            axes_shape = pick(rng, [None, ((0, None),), ((2, 4),), ((3, 3),), ((1, 1), (2, 2)), ()])

        def theirs(mode=mode, data=data, data_element=data_element, value=value, axes_element=axes_element,
                   axes_shape=axes_shape):
            def build() -> ov.Node:
                axes = constant(value) if value is not None else \
                    ops1.parameter(partial_shape(axes_shape), ELEMENTS[axes_element])
                return opset1("Reverse", [ops1.parameter(partial_shape(data), ELEMENTS[data_element]), axes],
                              {"mode": mode})
            return openvino_outcome(build)

        def ours(mode=mode, data=data, data_element=data_element, value=value, axes_element=axes_element,
                 axes_shape=axes_shape):
            return our_outcome("Reverse", "opset1", {"mode": mode},
                               tensor_types([data_element, axes_element], [data, axes_shape]), [None, value])

        cases.append((f"Reverse {mode} {data_element}{show(data)} axes {axes_element}{show(axes_shape)}="
                      f"{None if value is None else value.tolist()}", theirs, ours))
    return cases


def _xor_shape_cases(rng: np.random.Generator) -> list:
    cases = []
    for _ in range(60):
        shapes = [_shape(rng, (0, 4)), _shape(rng, (0, 4))]
        elements = [pick(rng, ["boolean", "boolean", "f32", "i32", None]) for _ in range(2)]

        def theirs(shapes=shapes, elements=elements):
            return openvino_outcome(lambda: opset1("Xor", [ops1.parameter(partial_shape(s), ELEMENTS[e])
                                                           for s, e in zip(shapes, elements, strict=True)]))

        def ours(shapes=shapes, elements=elements):
            return our_outcome("Xor", "opset1", {}, tensor_types(elements, shapes), [None, None])

        cases.append((f"Xor {elements} {[show(s) for s in shapes]}", theirs, ours))
    return cases


def test_shape_rules_agree() -> None:
    rng = np.random.default_rng([SEED, 1])
    assert_shapes_agree([*_class_shape_cases(rng), *_convert_like_and_grn_shape_cases(rng), *_reverse_shape_cases(rng),
                         *_xor_shape_cases(rng)])


def test_compare_checks_them(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """x -> Reverse -> the float classes of it times 3e38 (some overflow) -> Xor, and GRN of the reversed x
    ConvertLike an f16 Constant: compared end to end and per layer, nothing left unchecked."""
    x = ops1.parameter([2, 6, 3], np.float32, name="x")
    r = opset1("Reverse", [x, ops1.constant(np.array([2, 0], np.int64))], {"mode": "index"})
    big = ops1.multiply(r, ops1.constant(np.float32(3e38)))
    flags = opset1("Xor", [ops10.is_inf(big, {"detect_negative": False}), ops10.is_finite(big)])
    also = opset1("Xor", [flags, ops10.is_nan(big)])
    half = ops1.convert_like(ops1.grn(r, 0.5), ops1.constant(np.zeros(1, np.float16)))
    xml = tmp_path / "small_ops.xml"
    ov.save_model(ov.Model([ops1.result(also), ops1.result(half)], [x], "small_ops"), xml)
    assert_compare_passes(xml, capsys, {"GRN@opset1", "Reverse@opset1", "IsInf@opset10", "IsFinite@opset10",
                                        "IsNaN@opset10", "Xor@opset1", "ConvertLike@opset1"}, outputs=2)
