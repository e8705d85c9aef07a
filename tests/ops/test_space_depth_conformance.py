"""DepthToSpace-1 and SpaceToDepth-1 (ops/space_depth.py) against OpenVINO: shape rules and CPU kernels.

Kernels: 400 seeded cases (both ops, both modes, block sizes 1 to 4, ranks 3 to 5, f32 with NaNs and -0, f16,
i64 within i32's range, i32, i8, u8 and boolean data) batched into one model, saved as IR, read and run by ir_tools
and compiled once for OpenVINO CPU: every output must be OpenVINO's bit for bit (the rounding rule is ``moves``:
exact), and our rule must give each case's static output. Shape rules: 600 seeded Parameters of partial shapes
(static, dynamic, interval and unbounded dims, dynamic ranks, ranks 1 to 5, channels and spatial dims the block
does not divide, block sizes 0 to 4) must give our rule's output partial shape and element type, or both refuse.
``check_versions``: opset1..16 read both.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import pytest

from ir_tools.base.dims import shape_from_ints
from ir_tools.ops import attrs as A
from ir_tools.ops.space_depth import DEPTH_TO_SPACE_1, SPACE_TO_DEPTH_1
from ir_tools.ops.spec import TensorType

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

SEED = 2121
MODES = ("blocks_first", "depth_first")
OPS = {"DepthToSpace": (DEPTH_TO_SPACE_1, ops1.depth_to_space), "SpaceToDepth": (SPACE_TO_DEPTH_1, ops1.space_to_depth)}
DTYPES = (np.float32, np.float16, np.int64, np.int32, np.int8, np.uint8, np.bool_)
NAMES = {np.float32: "f32", np.float16: "f16", np.int64: "i64", np.int32: "i32", np.int8: "i8", np.uint8: "u8",
         np.bool_: "boolean"}


def data(rng: np.random.Generator, dtype: type, shape: list[int]) -> np.ndarray:
    if dtype is np.bool_:
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(np.int32 if dtype is np.int64 else dtype)  # CPU holds i64 as i32
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    x = rng.standard_normal(shape).astype(dtype)
    x[rng.random(shape) < 0.05] = np.nan
    x[rng.random(shape) < 0.05] = -0.0
    return x


def kernel_case(rng: np.random.Generator, i: int) -> Case:
    op = ("DepthToSpace", "SpaceToDepth")[i % 2]
    dtype = DTYPES[i // 2 % len(DTYPES)]
    mode, bs = pick(rng, MODES), int(rng.integers(1, 5 if rng.random() < 0.3 else 3))
    rank = int(rng.integers(3, 6 if bs <= 2 else 5))
    k = rank - 2
    spatial = [int(rng.integers(1, 4)) for _ in range(k)]
    if op == "DepthToSpace":
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 3)) * bs**k, *spatial]
    else:
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4)), *(d * bs for d in spatial)]
    x = data(rng, dtype, shape)
    spec, make = OPS[op]
    attrs = A.decode(spec.attrs, {"mode": mode, "block_size": str(bs)})
    (want,) = spec.kernel(attrs, [x])
    types = [TensorType(NAMES[dtype], shape_from_ints(x.shape))]
    assert spec.infer(attrs, types, [None])[0].shape == shape_from_ints(want.shape)
    return Case(f"{op} {mode} block {bs} {NAMES[dtype]}{shape}", [x], lambda p: make(p[0], mode, bs), bits=True)


def test_values_bit_equal(tmp_path: Path) -> None:
    rng = np.random.default_rng(SEED)
    assert_all_pass([kernel_case(rng, i) for i in range(400)], tmp_path)


def test_shape_rules_agree() -> None:
    rng = np.random.default_rng([SEED, 1])
    cases = []
    for i in range(600):
        op = ("DepthToSpace", "SpaceToDepth")[i % 2]
        mode, bs = pick(rng, MODES), int(rng.integers(0, 5))
        rank = int(rng.integers(1, 6))
        lengths = [int(rng.integers(0, 13)) for _ in range(rank)]
        shape = None if rng.random() < 0.1 else random_bounds(rng, lengths)
        element = pick(rng, ["f32", "f16", "i32", "boolean", None])
        make = OPS[op][1]

        def theirs(shape=shape, element=element, make=make, mode=mode, bs=bs):
            return openvino_outcome(lambda: make(ops1.parameter(partial_shape(shape), ELEMENTS[element]), mode, bs))

        def ours(shape=shape, element=element, op=op, mode=mode, bs=bs):
            return our_outcome(op, "opset1", {"mode": mode, "block_size": str(bs)}, tensor_types([element], [shape]),
                               [None])

        cases.append((f"{op} {mode} block {bs} {element}{show(shape)}", theirs, ours))
    assert_shapes_agree(cases)


def test_opsets(tmp_path: Path) -> None:
    p = ops1.parameter([1, 8, 2, 2], np.float32)
    nodes = {"DepthToSpace": ops1.depth_to_space(p, "blocks_first", 2),
             "SpaceToDepth": ops1.space_to_depth(p, "depth_first", 2)}
    assert check_versions(nodes, [p], tmp_path) == []


def test_a_model_compared_end_to_end_and_per_layer(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A super-resolution tail (Convolution -> DepthToSpace, and SpaceToDepth -> Relu) compared by ``compare``: every
    output and layer checked (they were listed as not checked, the outputs not compared)."""

    rng = np.random.default_rng(3)
    x = ops1.parameter([1, 3, 6, 6], np.float32, name="x")
    conv = ops1.convolution(x, ops1.constant(rng.standard_normal((12, 3, 3, 3)).astype(np.float32)), [1, 1], [1, 1],
                            [1, 1], [1, 1])
    up = ops1.depth_to_space(conv, "depth_first", 2)
    down = ops1.relu(ops1.space_to_depth(x, "blocks_first", 3))
    xml = tmp_path / "sr.xml"
    ov.save_model(ov.Model([ops1.result(up), ops1.result(down)], [x], "sr"), xml)
    assert_compare_passes(xml, capsys, {"DepthToSpace@opset1", "SpaceToDepth@opset1"}, outputs=2)
