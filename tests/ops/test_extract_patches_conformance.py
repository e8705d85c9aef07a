"""ExtractImagePatches-3 (ops/extract_patches.py) against OpenVINO: shape rule, CPU kernel and what CPU refuses.

Kernels: 200 seeded cases (every auto_pad, sizes, strides and rates 1 to 4, batches 1 to 2, channels 1 to 3, spatial
dims 1 to 8; f32 with NaNs and -0, f16, i32, i64 within i32's range, u8 and i8) batched into one model, saved as IR,
read and run by ir_tools and compiled once for OpenVINO CPU: every output must be OpenVINO's bit for bit (the rounding
rule is ``moves``: exact), and our rule must give each case's static output. Left out: the cases where CPU writes past
its output (``cpu_overruns``: the module's docstring). Shape rule: 800 seeded Parameters of partial shapes (static,
interval, unbounded and dynamic dims, dynamic ranks; a fifth all static; ranks 3 to 5, dims 0 to 12), every auto_pad
and explicit, sizes 0 to 4, strides and rates 0 to 4 (now and then three values or one) must give our rule's output
partial shape and element type, or both refuse. ``check_versions``: opset3..16 read it.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset3 as ops3
import pytest

from ir_tools.base.dims import shape_from_ints
from ir_tools.ops import attrs as A
from ir_tools.ops.extract_patches import EXTRACT_IMAGE_PATCHES_3 as SPEC
from ir_tools.ops.extract_patches import _pad_before
from ir_tools.ops.spec import TensorType
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

SEED = 3303
PADS = ("valid", "same_upper", "same_lower")
DTYPES = (np.float32, np.float16, np.int32, np.int64, np.uint8, np.int8)
NAMES = {np.float32: "f32", np.float16: "f16", np.int64: "i64", np.int32: "i32", np.int8: "i8", np.uint8: "u8"}


def raw(sizes, strides, rates, pad: str) -> dict[str, str]:
    return {"sizes": ",".join(map(str, sizes)), "strides": ",".join(map(str, strides)),
            "rates": ",".join(map(str, rates)), "auto_pad": pad}


def data(rng: np.random.Generator, dtype: type, shape: list[int]) -> np.ndarray:
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(np.int32 if dtype is np.int64 else dtype)  # CPU holds i64 as i32
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    x = rng.standard_normal(shape).astype(dtype)
    x[rng.random(shape) < 0.05] = np.nan
    x[rng.random(shape) < 0.05] = -0.0
    return x


def cpu_overruns(dim: int, size: int, stride: int, rate: int, pad: str) -> bool:
    """Whether OpenVINO CPU's kernel writes past one kernel row's (column's) part of the output along this spatial
    dim: some row of the window lies in the padding at every output position (its count of leading padded positions
    exceeds the position its data ends at). Its own arithmetic, measured: every other case is bit for bit."""
    out = -(-dim // stride) if pad != "valid" else max(0, -(-(dim - rate * (size - 1)) // stride))
    before = _pad_before(dim, size, stride, rate, pad)
    for k in range(size):
        start = k * rate - before
        low = 0 if start >= 0 else math.ceil(-start / stride)
        high = math.ceil((dim - start) / stride)
        if high < 0 or low > min(out, high):
            return True
    return False


def kernel_case(rng: np.random.Generator, i: int) -> Case:
    """One seeded case CPU computes right (``cpu_overruns`` drawn again)."""
    dtype = DTYPES[i % len(DTYPES)]
    pad = PADS[i // len(DTYPES) % len(PADS)]
    while True:
        sizes, strides, rates = ([int(v) for v in rng.integers(1, 5, 2)] for _ in range(3))
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 9)), int(rng.integers(1, 9))]
        if not any(cpu_overruns(shape[2 + j], sizes[j], strides[j], rates[j], pad) for j in range(2)):
            break
    x = data(rng, dtype, shape)
    attrs = A.decode(SPEC.attrs, raw(sizes, strides, rates, pad))
    (want,) = SPEC.kernel(attrs, [x])
    types = [TensorType(NAMES[dtype], shape_from_ints(x.shape))]
    assert SPEC.infer(attrs, types, [None])[0].shape == shape_from_ints(want.shape)
    return Case(f"{pad} sizes {sizes} strides {strides} rates {rates} {NAMES[dtype]}{shape}", [x],
                lambda p: ops3.extract_image_patches(p[0], sizes, strides, rates, pad), bits=True)


def test_values_bit_equal(tmp_path: Path) -> None:
    rng = np.random.default_rng(SEED)
    assert_all_pass([kernel_case(rng, i) for i in range(200)], tmp_path)


def attribute(rng: np.random.Generator, low: int) -> list[int]:
    """Two values of ``low``..4 (now and then one or three)."""
    n = 2 if rng.random() < 0.95 else pick(rng, [1, 3])
    return [int(v) for v in rng.integers(low if rng.random() < 0.1 else 1, 5, n)]


def test_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 1])
    cases = []
    for _ in range(800):
        sizes, strides, rates = attribute(rng, 0), attribute(rng, 0), attribute(rng, 0)
        pad = pick(rng, [*PADS, *PADS, *PADS, "explicit"])
        rank = 4 if rng.random() < 0.9 else int(rng.integers(3, 6))
        lengths = [int(rng.integers(0, 13)) for _ in range(rank)]
        kind = rng.random()
        shape = None if kind < 0.08 else tuple((n, n) for n in lengths) if kind < 0.3 else random_bounds(rng, lengths)
        element = pick(rng, ["f32", "f16", "i32", "u8", "boolean", None])
        attrs = raw(sizes, strides, rates, pad)

        def theirs(shape=shape, element=element, sizes=sizes, strides=strides, rates=rates, pad=pad):
            return openvino_outcome(lambda: ops3.extract_image_patches(
                ops1.parameter(partial_shape(shape), ELEMENTS[element]), sizes, strides, rates, pad))

        def ours(shape=shape, element=element, attrs=attrs):
            return our_outcome("ExtractImagePatches", "opset3", attrs, tensor_types([element], [shape]), [None])

        cases.append((f"{pad} sizes {sizes} strides {strides} rates {rates} {element}{show(shape)}", theirs, ours))
    assert_shapes_agree(cases)


def test_wrapped_sizes_and_unbounded_dims() -> None:
    """The cases OpenVINO's unsigned arithmetic makes odd, named: a size of 0 beside a rate of 1 subtracts a dynamic
    dim (valid), beside another rate nothing; an unbounded dim ceiled keeps its unbounded maximum."""
    cases = []
    for shape, sizes, strides, rates, pad in [
        (((1, 1), (3, 3), (5, 5), (5, 5)), [0, 2], [1, 1], [1, 1], "valid"),
        (((1, 1), (3, 3), (5, 5), (5, 5)), [0, 0], [1, 1], [2, 3], "valid"),
        (((1, 1), (0, None), (5, 5), (5, 5)), [0, 3], [1, 1], [1, 1], "valid"),
        (((1, 1), (3, 3), (3, None), (7, None)), [2, 3], [2, 3], [1, 1], "valid"),
        (((1, 1), (3, 3), (3, None), (7, None)), [2, 3], [2, 3], [1, 1], "same_lower"),
        (((1, 1), (3, 3), (3, 9), (7, 11)), [2, 3], [2, 3], [2, 1], "valid"),
        (((1, 1), (3, 3), (5, 5), (5, 5)), [2**31, 1], [1, 1], [1, 1], "valid"),
        (((1, 1), (3, 3), (5, 5), (5, 5)), [2, 2], [2**40, 1], [2**62, 1], "valid"),
    ]:
        def theirs(shape=shape, sizes=sizes, strides=strides, rates=rates, pad=pad):
            return openvino_outcome(lambda: ops3.extract_image_patches(
                ops1.parameter(partial_shape(shape), ov.Type.f32), sizes, strides, rates, pad))

        def ours(shape=shape, sizes=sizes, strides=strides, rates=rates, pad=pad):
            return our_outcome("ExtractImagePatches", "opset3", raw(sizes, strides, rates, pad),
                               tensor_types(["f32"], [shape]), [None])

        cases.append((f"{pad} sizes {sizes} strides {strides} rates {rates} {show(shape)}", theirs, ours))
    assert_shapes_agree(cases)


@pytest.mark.parametrize(("sizes", "rates", "pad", "refused"), [
    ([0, 2], [1, 1], "valid", True), ([2, 0], [3, 1], "valid", True), ([0, 2], [2, 1], "valid", False),
    ([2, 0], [1, 1], "same_upper", False), ([2, 2], [1, 1], "valid", False)])
def test_what_cpu_refuses(sizes: list[int], rates: list[int], pad: str, refused: bool) -> None:
    """``cpu_refuses`` names exactly the layers CPU does not compile (a size of 0 beside a rate of 1 under valid);
    the others CPU runs, and the kernel gives its output (of 0 channels here, but for the last)."""
    x = np.arange(2 * 2 * 5 * 5, dtype=np.float32).reshape(2, 2, 5, 5)
    p = ops1.parameter(list(x.shape), np.float32)
    model = ov.Model([ops3.extract_image_patches(p, sizes, [1, 1], rates, pad)], [p])
    attrs = A.decode(SPEC.attrs, raw(sizes, [1, 1], rates, pad))
    assert (SPEC.cpu_refuses(attrs, [TensorType("f32", shape_from_ints(x.shape))], [None]) is not None) == refused
    if refused:
        with pytest.raises(RuntimeError, match="Destination memory is undefined"):
            ov.Core().compile_model(model, "CPU", CPU_CONFIG)
        return
    request = ov.Core().compile_model(model, "CPU", CPU_CONFIG).create_infer_request()
    request.infer([x])
    got = request.get_output_tensor(0).data
    (want,) = SPEC.kernel(attrs, [x])
    assert got.shape == want.shape and got.tobytes() == want.tobytes()


def test_opsets(tmp_path: Path) -> None:
    p = ops1.parameter([1, 2, 5, 5], np.float32)
    nodes = {"ExtractImagePatches": ops3.extract_image_patches(p, [2, 2], [1, 1], [1, 1], "same_upper")}
    assert check_versions(nodes, [p], tmp_path) == []


def test_a_model_compared_end_to_end_and_per_layer(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Patches of a convolution's output (Convolution -> ExtractImagePatches -> Relu) compared by ``compare``: every
    output and layer checked (ExtractImagePatches was listed as not checked)."""
    rng = np.random.default_rng(4)
    x = ops1.parameter([1, 3, 7, 7], np.float32, name="x")
    conv = ops1.convolution(x, ops1.constant(rng.standard_normal((4, 3, 3, 3)).astype(np.float32)), [1, 1], [1, 1],
                            [1, 1], [1, 1])
    patches = ops1.relu(ops3.extract_image_patches(conv, [3, 2], [2, 2], [1, 2], "same_lower"))
    xml = tmp_path / "patches.xml"
    ov.save_model(ov.Model([ops1.result(patches)], [x], "patches"), xml)
    assert_compare_passes(xml, capsys, {"ExtractImagePatches@opset3"}, outputs=1)
