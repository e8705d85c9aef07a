"""Identity-16 (ops/core.py) against OpenVINO: shape rule and CPU kernel.

Kernel: 320 seeded cases (f32, f16, f64, i64, i32, i8, u8 and boolean data of rank 0 to 5, empty dims included;
i64 within i32's range, which CPU holds i64 in; floats with NaNs of random payloads and signs, infinities, -0 and
subnormals) batched into one model, saved as IR, read and run by ir_tools and compiled once for OpenVINO CPU: every
output must be OpenVINO's bit for bit (the rounding rule is ``moves``: exact).
Shape rule: 200 seeded Parameters of partial shapes (static, dynamic, interval
and unbounded dims, dynamic ranks) and element types (dynamic and string included) must give our rule's output.
``check_versions``: only opset16 reads Identity (as Identity-16).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset16 as ops16
import pytest

from ir_tools import read_ir
from ir_tools.ops.core import IDENTITY_16
from ir_tools.ops.rounding import EXACT, is_exact
from ir_tools.runtime.executor import run
from ir_tools.runtime.openvino import CPU_CONFIG

from .conformance import (
    ELEMENTS,
    assert_shapes_agree,
    check_versions,
    named_parameters,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    random_bounds,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 16016
DTYPES = (np.float32, np.float16, np.float64, np.int64, np.int32, np.int8, np.uint8, np.bool_)


def special_floats(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """A seeded fifth of the elements made NaN (random payload and sign), +-inf, -0 or a subnormal."""
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[x.itemsize]
    info = np.finfo(x.dtype)
    flat = x.reshape(-1)
    for i in np.flatnonzero(rng.random(flat.size) < 0.2):
        kind = int(rng.integers(4))
        if kind == 0:  # a NaN: all exponent bits set, a nonzero random mantissa
            mantissa = int(rng.integers(1, 2 ** info.nmant))
            sign = int(rng.integers(2)) << (8 * x.itemsize - 1)
            exponent = (2 ** (info.nexp) - 1) << info.nmant
            flat[i:i + 1].view(bits)[0] = sign | exponent | mantissa
        elif kind == 1:
            flat[i] = pick(rng, [np.inf, -np.inf])
        elif kind == 2:
            flat[i] = -0.0
        else:
            flat[i] = info.smallest_subnormal * int(rng.integers(1, 100))
    return x


def values(rng: np.random.Generator, dtype: type) -> np.ndarray:
    shape = [int(n) for n in rng.integers(1, 5, int(rng.integers(0, 6)))]
    if shape and rng.random() < 0.1:
        shape[int(rng.integers(len(shape)))] = 0
    if dtype is np.bool_:
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":  # i64 within i32's range: CPU holds i64 as i32 (2**40 + 3 fed comes back 3)
        info = np.iinfo(np.int32 if dtype is np.int64 else dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    x = (rng.standard_normal(shape) * float(pick(rng, [1e-3, 1.0, 1e3]))).astype(dtype)
    return special_floats(rng, x) if x.size and rng.random() < 0.5 else x


def test_values_bit_equal(tmp_path: Path) -> None:
    rng = np.random.default_rng(SEED)
    cases = [values(rng, DTYPES[i % len(DTYPES)]) for i in range(320)]
    params, outputs, feed = [], [], {}
    for i, x in enumerate(cases):
        (p,) = named_parameters(i, [x], feed)
        node = ops16.identity(p)
        node.output(0).get_tensor().set_names({f"c{i}_o0"})
        params.append(p)
        outputs.append(node.output(0))
    model = ov.Model(outputs, params, "cases")
    path = tmp_path / "identity.xml"
    ov.save_model(model, str(path), compress_to_fp16=False)
    ours = run(read_ir(path), feed)
    request = ov.Core().compile_model(model, "CPU", CPU_CONFIG).create_infer_request()
    request.infer(feed)
    failures = []
    for i, x in enumerate(cases):
        theirs, got = request.get_output_tensor(i).data, ours[f"c{i}_o0"]
        (bound,) = IDENTITY_16.rounding(IDENTITY_16.kernel, None, [x], [EXACT], [got])
        if not is_exact(bound):
            failures.append(f"case {i}: bound {bound} is not exact")
        if got.dtype != theirs.dtype or got.shape != theirs.shape or got.tobytes() != theirs.tobytes():
            failures.append(f"case {i} {x.dtype}{list(x.shape)}: ours {got.dtype}{list(got.shape)}, OpenVINO "
                            f"{theirs.dtype}{list(theirs.shape)}, bit-equal {got.tobytes() == theirs.tobytes()}")
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])


def test_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 1])
    cases = []
    for _ in range(200):
        lengths = [int(n) for n in rng.integers(0, 6, int(rng.integers(0, 5)))]
        shape = None if rng.random() < 0.1 else random_bounds(rng, lengths)
        element = pick(rng, ["f32", "f16", "i32", "i64", "boolean", "u8", "string", None])
        ov_type = ov.Type.string if element == "string" else ELEMENTS[element]

        def theirs(shape=shape, t=ov_type):
            return openvino_outcome(lambda: ops16.identity(ops16.parameter(partial_shape(shape), t)))

        def ours(shape=shape, element=element):
            return our_outcome("Identity", "opset16", {}, tensor_types([element], [shape]), [None])

        cases.append((f"Identity {element}{show(shape)}", theirs, ours))
    assert_shapes_agree(cases)


def test_opsets(tmp_path: Path) -> None:
    p = ops16.parameter([2, 3], np.float32)
    assert check_versions({"Identity": ops16.identity(p)}, [p], tmp_path) == []
