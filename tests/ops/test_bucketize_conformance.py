"""Bucketize-3 (ops/bucketize.py) against OpenVINO: shape rule and CPU kernel.

Kernel: 480 seeded cases (data and buckets each of f32, f16, bf16, f64, i32, i64, i8, u8, i16, u16, u32 and u64,
the two types drawn apart; data of rank 0 to 4, empty now and then; 0 to 11 buckets with ties, infinities, +-0 and
NaNs, sorted (NaNs last) or, one in four, not sorted at all; data equal to buckets, beyond them, NaN; the 32- and
64-bit integers near 2^24 and the ends of i32's range, floats near 2^24 beside them; with_right_bound and output_type
either way; the buckets a Const now and then), bit for bit, dtype included, batched 160 cases to a model, compiled
once per model. Beyond i32's range CPU's answer depends on whether an input is fed (wrapped) or a Const (saturated),
which the kernel refuses. Shape rule: 400 seeded nodes on Parameters (partial shapes, dynamic ranks, buckets of rank 0
to 3, element types numeric, boolean or dynamic; output_type i32, i64 or another, refused) must give our rule's
output, or both refuse. ``check_versions``: opset3..16 read it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.base.errors import UnsupportedError
from ir_tools.ops.bucketize import BUCKETIZE_3, BucketizeAttrs
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import (
    ELEMENTS,
    Case,
    assert_all_pass,
    assert_compare_passes,
    assert_shapes_agree,
    check_versions,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    random_bounds,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 333
CASES_PER_MODEL = 160
OPSET3 = NodeFactory("opset3")

#: Bucketize's input types: numpy's, and bf16 made by a Convert inside the model (numpy holds none).
TYPES = ("f32", "f16", "bf16", "f64", "i32", "i64", "i8", "u8", "i16", "u16", "u32", "u64")
_NUMPY = {"f32": np.float32, "f16": np.float16, "bf16": np.float32, "f64": np.float64, "i32": np.int32,
          "i64": np.int64, "i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "u32": np.uint32,
          "u64": np.uint64}
ELEMENT_NAMES = {np.dtype(t): kind for kind, t in reversed(_NUMPY.items())}
_SPECIAL = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, 65504.0, 1e6, 2.0**24, 2.0**24 + 2,
                     float(np.finfo(np.float32).max), 3.5e38, 1e300, -1e300], np.float64)


def _numbers(rng: np.random.Generator, kind: str, shape: tuple[int, ...]) -> np.ndarray:
    """Numbers of ``kind``: a few distinct ones (ties), small or, for the 32- and 64-bit integers, near 2^24 and the
    ends of i32's range now and then; floats with +-0, infinities, subnormals (not bf16's: the Convert making them
    flushes f32 subnormals or not by instruction set), values near 2^24 and beyond f32's range (f64's)."""
    dtype = np.dtype(_NUMPY[kind])
    if dtype.kind == "f":
        value = np.asarray(rng.choice(rng.integers(-8, 9, 6), shape) * float(pick(rng, [1.0, 0.25, 1e3, 1e-3])))
        special = _SPECIAL if kind != "bf16" else _SPECIAL[_SPECIAL != 1e-40]
        value = np.where(rng.random(shape) < 0.2, rng.choice(special, shape), value)
        with np.errstate(over="ignore"):  # (1e6 is inf in f16, 1e300 in f32)
            return np.asarray(value.astype(dtype))
    info = np.iinfo(dtype)
    value = rng.integers(max(info.min, -9), min(info.max, 9), shape, endpoint=True)
    if dtype.itemsize >= 4 and rng.random() < 0.5:  # within i32's range: neighbours f32 would not tell apart
        base = int(pick(rng, [-2**31 + 8, -2**24, 2**24, 2**31 - 9] if info.min else [2**24, 2**31 - 9]))
        wide = (base + rng.integers(-8, 9, shape)).astype(dtype)
        return np.asarray(np.where(rng.random(shape) < 0.5, wide, value.astype(dtype)))
    return np.asarray(value.astype(dtype))


def _bucketize(kinds: tuple[str, str], right: bool, output_type: str):
    def build(ps: list[ov.Node]) -> ov.Node:
        inputs = [ops1.convert(p, "bf16") if kind == "bf16" else p for p, kind in zip(ps, kinds, strict=True)]
        return OPSET3.create("Bucketize", [x.output(0) for x in inputs],
                             {"output_type": output_type, "with_right_bound": right})
    return build


def bucketize_case(rng: np.random.Generator, i: int) -> Case:
    data_kind = TYPES[i % len(TYPES)]
    bucket_kind = data_kind if rng.random() < 0.3 else pick(rng, TYPES)
    n = 0 if rng.random() < 0.08 else int(rng.integers(1, 12))
    buckets = _numbers(rng, bucket_kind, (n,))
    shuffled = rng.random() < 0.25
    if not shuffled:
        buckets = np.sort(buckets)  # (NaNs last)
    shape = tuple(int(d) for d in rng.integers(0 if rng.random() < 0.1 else 1, 5, int(rng.integers(0, 5))))
    data = _numbers(rng, data_kind, shape)
    wide = buckets.astype(np.float64)
    held = buckets if data.dtype.kind == "f" else buckets[
        (wide >= max(np.iinfo(data.dtype).min, -2**31)) & (wide <= min(np.iinfo(data.dtype).max, 2**31 - 1))]
    if data.size and held.size:  # data equal to buckets, where its type holds them (within i32's range)
        flat = data.reshape(-1)
        picks = rng.random(flat.size) < 0.4
        with np.errstate(over="ignore"):
            flat[picks] = rng.choice(held, int(picks.sum())).astype(flat.dtype)
    if data.dtype.kind == "f" and data.size and rng.random() < 0.3:
        data.reshape(-1)[0] = np.nan
    right, output_type = bool(rng.random() < 0.5), pick(rng, ["i64", "i32"])
    what = (f"Bucketize {data_kind}{list(shape)} buckets {bucket_kind}{buckets.tolist()}"
            f"{' unsorted' if shuffled else ''} with_right_bound {right} {output_type}")
    # A Const of buckets now and then: not of f16 (openvino's Python refuses its infinities) nor bf16 (the Convert of
    # a Const CPU folds by ov::bfloat16's rounding), nor holding f32 subnormals (CPU flushes a Const's to zero)
    const = rng.random() < 0.25 and bucket_kind not in ("f16", "bf16") and not (buckets.dtype.kind == "f" and np.any(
        (np.abs(buckets) < 2.0**-126) & (buckets != 0)))
    return Case(what, [data, buckets], _bucketize((data_kind, bucket_kind), right, output_type),
                consts=(1,) if const else (), bits=True)


@pytest.mark.parametrize("part", range(3))
def test_bucketize_bit_for_bit(part: int, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, part])
    assert_all_pass([bucketize_case(rng, i) for i in range(CASES_PER_MODEL)], tmp_path)


def test_named_cases(tmp_path: Path) -> None:
    """The edges drawn cases seldom meet, named: f64 saturated into f32's range before it is compared (1e300 is the
    largest f32, below an f32 inf, equal to an f64 inf), integers compared with floats as floats (2^24 + 1 is 2^24),
    NaN data past every bucket with with_right_bound false, before every bucket with true."""
    big = float(np.finfo(np.float32).max)
    cases = []
    for data, buckets in [
        (np.array([1e300, -1e300, np.inf, -np.inf, big, 3.5e38, np.nan], np.float64),
         np.array([-np.inf, -big, 0.0, big, np.inf], np.float32)),
        (np.array([np.inf, -np.inf, big, -big, 1.0, np.nan], np.float32), np.array([-1e300, -1.0, 1e300], np.float64)),
        (np.array([np.inf, big], np.float64), np.array([3.5e38, np.inf], np.float64)),
        (np.array([2**24, 2**24 + 1, 2**24 + 2, 2**24 + 3], np.int32), np.array([16777216.0, 16777218.0], np.float32)),
        (np.array([16777216.0, 16777218.0, np.nan], np.float32), np.array([2**24 + 1, 2**24 + 2, 2**24 + 3], np.int64)),
        (np.array([2**24 + 1, 2**24 + 2], np.int64), np.array([2**24, 2**24 + 1, 2**24 + 2, 2**24 + 3], np.int32)),
        (np.array([[0.0, -0.0], [np.nan, 1.0]], np.float16), np.array([-0.0, 0.0, 0.0, np.nan], np.float16)),
    ]:
        for right in (True, False):
            for const in ((), (1,)):
                kinds = (ELEMENT_NAMES[data.dtype], ELEMENT_NAMES[buckets.dtype])
                if const and kinds[1] == "f16":
                    continue
                cases.append(Case(f"{data.tolist()} {buckets.tolist()} with_right_bound {right} const {bool(const)}",
                                  [data, buckets], _bucketize(kinds, right, "i64"), consts=const, bits=True))
    assert_all_pass(cases, tmp_path)


def test_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 100])
    cases = []
    for _ in range(400):
        data_rank, buckets_rank = int(rng.integers(0, 5)), 1 if rng.random() < 0.7 else int(rng.integers(0, 4))
        shapes = [None if rng.random() < 0.15 else random_bounds(rng, [int(d) for d in rng.integers(0, 6, rank)])
                  for rank in (data_rank, buckets_rank)]
        elements = [pick(rng, ["f32", "f16", "f64", "i32", "i64", "u8", "boolean", None]) for _ in range(2)]
        raw = {"output_type": pick(rng, ["i32", "i64", "i32", "i64", "f32", "u8"]),
               "with_right_bound": pick(rng, ["true", "false"])}

        def theirs(shapes=shapes, elements=elements, raw=raw):
            return openvino_outcome(lambda: OPSET3.create(
                "Bucketize", [ops1.parameter(partial_shape(s), ELEMENTS[e]).output(0) for s, e in
                              zip(shapes, elements, strict=True)],
                {"output_type": raw["output_type"], "with_right_bound": raw["with_right_bound"] == "true"}))

        def ours(shapes=shapes, elements=elements, raw=raw):
            return our_outcome("Bucketize", "opset3", raw, tensor_types(elements, shapes), [None, None])

        cases.append((f"Bucketize {elements} {show(shapes[0])} {show(shapes[1])} {raw}", theirs, ours))
    assert_shapes_agree(cases)


def test_opsets(tmp_path: Path) -> None:
    d, b = ops1.parameter([2, 3], np.float32), ops1.parameter([4], np.float32)
    node = OPSET3.create("Bucketize", [d.output(0), b.output(0)], {"output_type": "i64", "with_right_bound": True})
    assert check_versions({"Bucketize": node}, [d, b], tmp_path) == []


def test_compare_checks_bucketize(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A Relu -> Bucketize model (Const buckets) compared end to end and per layer: checked, nothing left unchecked
    (Bucketize was listed as not checked)."""
    x = ops1.parameter([2, 5], np.float32, name="x")
    edges = ops1.constant(np.array([-1.0, 0.0, 0.5, 2.0], np.float32))
    node = OPSET3.create("Bucketize", [ops1.relu(x).output(0), edges.output(0)],
                         {"output_type": "i32", "with_right_bound": False})
    xml = tmp_path / "bucketize.xml"
    ov.save_model(ov.Model([ops1.result(node)], [x], "bucketize"), xml)
    assert_compare_passes(xml, capsys, {"Bucketize@opset3"}, outputs=1)


@pytest.mark.parametrize("dtype", [np.int64, np.uint32, np.uint64])
def test_beyond_i32_is_not_modelled(dtype: type) -> None:
    """OpenVINO CPU compares these in i32: fed buckets wrapped (2^31 + 100 is negative), Const ones saturated
    (2^31 - 1): the kernel, which cannot tell them apart, refuses such values (compare lists the layer as not
    checked). Should a later OpenVINO compare them alike, this test fails."""
    buckets, data = np.array([5, 2**31 + 100, 2**31 + 200], dtype), np.array([7], dtype)
    answers = []
    for const in (False, True):
        b = ops1.constant(buckets) if const else ops1.parameter([3], dtype)
        d = ops1.parameter([1], dtype)
        node = OPSET3.create("Bucketize", [d.output(0), b.output(0)], {"output_type": "i64", "with_right_bound": True})
        params = [d] if const else [d, b]
        compiled = ov.Core().compile_model(ov.Model([node], params), "CPU", CPU_CONFIG)
        answers.append(int(compiled([data] if const else [data, buckets])[0][0]))
    assert answers == [3, 1]  # wrapped: [5, -2^31 + 100, -2^31 + 200]; saturated: [5, 2^31 - 1, 2^31 - 1]
    with pytest.raises(UnsupportedError):
        BUCKETIZE_3.kernel(BucketizeAttrs(), [data, buckets])
