"""OneHot-1 and OneHot-16 (ops/one_hot.py) against OpenVINO: shape rule and CPU kernel, each test per version.

Kernel: 400 seeded cases per version (indices i32, i64, i16, u16, u32 and u64 of rank 0 to 3, empty ones too, holding
indices in [0, depth), negative ones in and below [-depth, -1] (-depth - 1, -depth and -1 placed in half of the cases
with room) and ones at depth or beyond; depth 0 to 6 of i32, i64, i16, u8 or u64, a Const or fed beside indices that are
not scalars; on_value and off_value of f32 with NaN and -0, f16, i32, i64 within i32's range, i16, i8, u8 and boolean,
Consts or fed; every axis in [-r - 1, r]; OneHot-16's negative_indices_mode ignore_negative or normalize) batched into
one model, indices fed as Parameters, compiled once for OpenVINO CPU: every output must be OpenVINO's bit for bit (the
rounding rule moves values: exact). What CPU refuses (8-bit indices, a negative depth fed) the kernel refuses too; a
depth beyond 32 bits, which CPU reads in 32, it refuses. Shape rule: 600 seeded nodes per version (indices of partial
shapes and dynamic ranks; depth, on_value and off_value of shape [], [1], [?], [1..2], [1,?] or a dynamic rank; depth a
Const, negative, 0 or not, or a Parameter; element types integral, boolean, f32 or dynamic, on_value and off_value of
one type or two; axes in and out of range; either mode) must give our rule's output, or both refuse. Rounding rule: on
100 of the kernel's cases per version, on_value and off_value moved within their bounds stay within the rule's bound,
which is no wider than theirs, and an inexact index leaves the output unbounded. ``check_versions``: opset1..15 read
OneHot-1, opset16 OneHot-16. negative_indices_mode missing or spelled in other cases or wrongly is read (or refused) as
OpenVINO's reader does.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset16 as ops16
import pytest

from ir_tools import read_ir
from ir_tools.base.errors import AttrError, OpValidationError, UnsupportedError
from ir_tools.ops import attrs as A
from ir_tools.ops.one_hot import ONE_HOT_1, ONE_HOT_16
from ir_tools.ops.opsets import lookup
from ir_tools.ops.rounding import EXACT
from ir_tools.ops.spec import OpSpec

from .conformance import (
    ELEMENTS,
    Bounds,
    Case,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_shapes_agree,
    blur,
    check_versions,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 1101
INDEX_TYPES = (np.int32, np.int64, np.int16, np.uint16, np.uint32, np.uint64)
VALUE_TYPES = (np.float32, np.float16, np.int32, np.int64, np.int16, np.int8, np.uint8, np.bool_)
NUMPY = {"i32": np.int32, "i64": np.int64, "u8": np.uint8, "boolean": np.bool_, "f32": np.float32}
SPECS: dict[int, OpSpec] = {1: ONE_HOT_1, 16: ONE_HOT_16}
MODES = ("ignore_negative", "normalize")
versions = pytest.mark.parametrize("version", list(SPECS))


def mode_of(rng: np.random.Generator, version: int) -> str | None:
    """OneHot-16's negative_indices_mode, drawn (None for OneHot-1)."""
    return None if version == 1 else pick(rng, MODES)


def build(axis: int, mode: str | None) -> Callable[[list[ov.Node]], ov.Node]:
    """The node on (indices, depth, on_value, off_value): OneHot-1 (no mode) or OneHot-16 with ``mode``."""
    if mode is None:
        return lambda p: ops1.one_hot(*p, axis)
    return lambda p: ops16.one_hot(*p, axis, mode)


def raw_attrs(axis: int, mode: str | None) -> dict[str, str]:
    return {"axis": str(axis)} | ({} if mode is None else {"negative_indices_mode": mode})


def scalar(rng: np.random.Generator, dtype: type) -> np.ndarray:
    """One on_value or off_value: -0 among the floats, NaN too in f32 (openvino's Python constant() refuses an f16
    NaN), integers within i32's range (CPU holds i64 as i32)."""
    if dtype is np.bool_:
        return np.array(rng.random() < 0.5)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(np.int32 if dtype is np.int64 else dtype)
        return np.array(rng.integers(info.min, info.max, endpoint=True), dtype)
    nan = [np.nan] if dtype is np.float32 else []
    return np.array(pick(rng, [*nan, -0.0, 0.0, float(rng.standard_normal() * 100)]), dtype)


def kernel_inputs(rng: np.random.Generator, dtype: type) -> tuple[list[np.ndarray], int]:
    """Indices, depth, on_value and off_value, and the axis."""
    shape = [int(n) for n in rng.integers(1, 5, int(rng.integers(0, 4)))]
    if shape and rng.random() < 0.05:
        shape[int(rng.integers(len(shape)))] = 0
    depth = int(rng.integers(0, 7))
    index_type = pick(rng, INDEX_TYPES)
    signed = np.dtype(index_type).kind == "i"
    idx = rng.integers(-depth - 2 if signed else 0, depth + 3, shape)
    edges = [-depth - 1, -depth, -1] if signed else []
    if idx.size >= len(edges) + 1 and rng.random() < 0.5:  # (the ends of [-depth, -1] and just beyond, and depth)
        idx.reshape(-1)[rng.permutation(idx.size)[:len(edges) + 1]] = [*edges, depth]
    idx = idx.astype(index_type)
    depth_value = np.array(depth, pick(rng, [np.int32, np.int64, np.int64, np.int16, np.uint8, np.uint64]))
    axis = int(rng.integers(-len(shape) - 1, len(shape) + 1))
    return [idx, depth_value, scalar(rng, dtype), scalar(rng, dtype)], axis


def kernel_case(rng: np.random.Generator, dtype: type, version: int) -> Case:
    (idx, depth, on, off), axis = kernel_inputs(rng, dtype)
    mode = mode_of(rng, version)
    consts = [2, 3] if rng.random() < 0.8 else []
    if rng.random() < 0.8 or idx.ndim == 0:  # (CPU compiles no scalar indices beside a fed depth)
        consts.append(1)
    what = (f"OneHot-{version} {raw_attrs(axis, mode)} indices {idx.dtype}{idx.tolist()} depth {depth!r} "
            f"{'Const' if 1 in consts else 'fed'}, on {on!r} off {off!r} {'Consts' if 2 in consts else 'fed'}")
    return Case(what, [idx, depth, on, off], build(axis, mode), consts=consts, bits=True)


@versions
def test_values_bit_equal(version: int, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, version])
    assert_all_pass([kernel_case(rng, VALUE_TYPES[i % len(VALUE_TYPES)], version) for i in range(400)], tmp_path)


@versions
def test_bounds_move_with_their_elements(version: int) -> None:
    """on_value and off_value moved anywhere within their bounds move the result by no more than the rule's bound
    (100 seeded f32 cases), which is no wider than the larger of theirs; where an index may differ, nothing is
    bounded."""
    rng, spec = np.random.default_rng([SEED, 2, version]), SPECS[version]
    for _ in range(100):
        inputs, axis = kernel_inputs(rng, np.float32)
        inputs[2:] = (np.nan_to_num(v, nan=1.0) for v in inputs[2:])
        raw = raw_attrs(axis, mode_of(rng, version))
        what = (raw, [v.tolist() for v in inputs])
        bounds = [EXACT, EXACT, *(np.array(abs(rng.standard_normal()) * rng.choice([1e-6, 1e-1])) for _ in "oo")]
        assert_bounds_carry_moves(spec, raw, inputs, bounds, rng, what)
        attrs = A.decode(spec.attrs, raw)
        outputs = spec.kernel(attrs, inputs)
        (found,) = spec.rounding(spec.kernel, attrs, inputs, bounds, outputs)
        assert np.all(found <= max(bounds[2:])), what
        (found,) = spec.rounding(spec.kernel, attrs, inputs, [np.ones(inputs[0].shape), *bounds[1:]], outputs)
        assert inputs[0].size == 0 or np.all(np.isinf(found)), what


def one_hot_with_depth_fed(indices: np.ndarray, version: int) -> ov.CompiledModel:
    """OneHot-1, or OneHot-16 with normalize, of ``indices`` and a fed i64 depth, compiled for OpenVINO CPU."""
    i, d = ops1.parameter(list(indices.shape), indices.dtype), ops1.parameter([], np.int64)
    node = build(-1, None if version == 1 else "normalize")([i, d, ops1.constant(np.float32(1)),
                                                            ops1.constant(np.float32(0))])
    return ov.Core().compile_model(ov.Model([node], [i, d]), "CPU")


def our_kernel(version: int, indices: np.ndarray, depth: np.ndarray) -> list[np.ndarray]:
    """Our kernel on what ``one_hot_with_depth_fed`` computes."""
    spec = SPECS[version]
    attrs = A.decode(spec.attrs, raw_attrs(-1, None if version == 1 else "normalize"))
    return spec.kernel(attrs, [indices, depth, np.float32(1), np.float32(0)])


@versions
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_])
def test_8_bit_indices_are_refused(version: int, dtype: type) -> None:
    """OpenVINO CPU compiles no 8-bit indices (its shape inference takes them): the kernel refuses them."""
    indices = np.array([0, 1, 1], dtype)
    with pytest.raises(RuntimeError, match="Only I32 is supported"):
        one_hot_with_depth_fed(indices, version)
    with pytest.raises(UnsupportedError):
        our_kernel(version, indices, np.int64(3))


@versions
def test_a_negative_depth_is_refused(version: int) -> None:
    indices = np.array([0, -1, 2], np.int32)
    with pytest.raises(RuntimeError, match="can't be negative"):
        one_hot_with_depth_fed(indices, version)([indices, np.array(-3, np.int64)])
    with pytest.raises(OpValidationError):
        our_kernel(version, indices, np.int64(-3))


@versions
def test_a_depth_beyond_32_bits_is_refused(version: int) -> None:
    """OpenVINO CPU reads a fed depth in 32 bits (2^32 + 2 gives two columns, where its shape inference says 2^32 + 2):
    the kernel refuses such a depth rather than give either."""
    indices = np.array([0, -1, 2], np.int32)
    (found,) = one_hot_with_depth_fed(indices, version)([indices, np.array(2**32 + 2, np.int64)]).values()
    assert found.shape == (3, 2)
    with pytest.raises(UnsupportedError):
        our_kernel(version, indices, np.int64(2**32 + 2))


# --- shape rule ------------------------------------------------------------------------------------

SCALAR_SHAPES: tuple[Bounds, ...] = ((), ((1, 1),), ((0, None),), ((1, 2),), ((1, 1), (0, None)), None)


def shape_case(rng: np.random.Generator, version: int):
    mode = mode_of(rng, version)
    rank = int(rng.integers(0, 4))
    indices: Bounds = None if rng.random() < 0.1 else tuple(blur(rng, int(n)) for n in rng.integers(1, 5, rank))
    axis = int(rng.integers(-rank - 1, rank + 1)) if rng.random() < 0.85 else pick(rng, [-rank - 2, rank + 1, 5])
    value_type = pick(rng, ["f32", "f32", "f16", "i32", "boolean", None])
    odd = rng.random() < 0.3  # element types that may be refused
    elements = [pick(rng, ["u8", "boolean", "f32", None] if odd else ["i32", "i64"]),
                pick(rng, ["u8", "boolean", "f32", None] if odd else ["i32", "i64"]), value_type,
                value_type if rng.random() < 0.85 else pick(rng, ["f32", "i32", None])]
    shapes = [indices] + [() if rng.random() < 0.75 else pick(rng, SCALAR_SHAPES) for _ in range(3)]
    depth = None
    if rng.random() < 0.6 and shapes[1] in ((), ((1, 1),)) and elements[1] is not None:  # a Const depth
        unsigned = elements[1] in ("u8", "boolean")
        value = pick(rng, [0, 3, 5] if unsigned else [-1, -1, 0, 3, 5])
        depth = np.array(value, NUMPY[elements[1]]).reshape([1] * len(shapes[1]))
    what = (f"OneHot-{version} {raw_attrs(axis, mode)} indices {elements[0]}{show(indices)} depth "
            f"{elements[1]}{show(shapes[1])} {'fed' if depth is None else depth.tolist()} "
            f"on {elements[2]}{show(shapes[2])} off {elements[3]}{show(shapes[3])}")

    def theirs():
        def node():
            ps = [ops1.parameter(partial_shape(s), ELEMENTS[e]) for s, e in zip(shapes, elements, strict=True)]
            if depth is not None:
                ps[1] = ops1.constant(depth)
            return build(axis, mode)(ps)

        return openvino_outcome(node)

    def ours():
        return our_outcome("OneHot", f"opset{version}", raw_attrs(axis, mode), tensor_types(elements, shapes),
                           [None, depth, None, None])

    return what, theirs, ours


@versions
def test_shape_rule_agrees(version: int) -> None:
    rng = np.random.default_rng([SEED, 1, version])
    assert_shapes_agree([shape_case(rng, version) for _ in range(600)])


@pytest.mark.parametrize("mode", [None, *MODES])
def test_opsets(mode: str | None, tmp_path: Path) -> None:
    """opset1..15 read OneHot-1, opset16 OneHot-16, whichever version (and mode) the IR was written with."""
    p = ops1.parameter([2, 3], np.int64)
    node = build(-1, mode)([p, ops1.constant(np.int64(4)), ops1.constant(np.float32(1)), ops1.constant(np.float32(0))])
    assert check_versions({"OneHot": node}, [p], tmp_path) == []


@pytest.mark.parametrize("spelling", [None, *MODES, "NORMALIZE", "Normalize", "IGNORE_NEGATIVE", "", "bogus"])
def test_the_mode_is_read_as_openvino_reads_it(spelling: str | None, tmp_path: Path) -> None:
    """negative_indices_mode missing, in other cases or wrong: our attributes read it as OpenVINO's reader does."""
    p = ops1.parameter([3], np.int32)
    node = build(-1, "normalize")([p, ops1.constant(np.int64(4)), ops1.constant(np.float32(1)),
                                   ops1.constant(np.float32(0))])
    path = tmp_path / "one_hot.xml"
    ov.save_model(ov.Model([node], [p]), str(path))
    written = ' negative_indices_mode="normalize"'
    assert written in path.read_text()
    path.write_text(path.read_text().replace(written, "" if spelling is None else
                                             f' negative_indices_mode="{spelling}"'))
    layer = next(layer for layer in read_ir(path).layers() if layer.is_a("OneHot"))
    spec = lookup(layer.type, layer.version)
    assert spec is ONE_HOT_16
    try:
        model = ov.Core().read_model(str(path))
    except RuntimeError:
        with pytest.raises(AttrError):
            A.decode(spec.attrs, layer.attrs)
        return
    theirs = next(o for o in model.get_ops() if o.get_type_name() == "OneHot").get_attributes()
    assert A.decode(spec.attrs, layer.attrs).negative_indices_mode == theirs["negative_indices_mode"]
