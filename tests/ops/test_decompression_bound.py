"""The rounding bound of NNCF's weight decompression (u8/u4/i4 Consts, Convert to f16, Subtract the zero point,
Multiply by an f16 scale, Reshape, Convert to f32) in its short form, against OpenVINO CPU.

An integer of at most 9 bits less a zero point is exact in f16, so the Subtract's rule gives EXACT (its f16 result
is the exact difference); the product with an f16 scale is then exact in f32, so the one rounding left is the
Multiply's into f16, and the Convert to f32 moves that bound as it is. OpenVINO CPU skips that rounding (it
decompresses in f32): the rows it gathers from the decompressed weight must lie within the bound with no tolerance,
and differ from the reference's f16 values somewhere (the bound is needed)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ir_tools import read_ir
from ir_tools.ops.rounding import EXACT, output_rounding
from ir_tools.runtime.compare import compare_tensors
from ir_tools.runtime.executor import BoundedInterpreter
from ir_tools.runtime.openvino import CPU_CONFIG

pytestmark = pytest.mark.openvino

ROWS, FEATURES, GROUP = 96, 64, 16
#: (name, element type, code range, zero point, groups per row)
KINDS = (("int8", "u8", (0, 256), True, 1), ("int4_asym", "u4", (0, 16), True, FEATURES // GROUP),
         ("int4_sym", "i4", (-8, 8), False, FEATURES // GROUP))


def _model(path: Path, rng: np.random.Generator) -> Path:
    """Rows of each decompressed weight gathered by an index input: the weight values OpenVINO CPU computes."""
    import openvino as ov
    import openvino.opset13 as o

    rows = o.parameter([24], np.int32, name="rows")
    outputs = []
    for name, element, (low, high), zero_point, groups in KINDS:
        shape = [ROWS, groups, FEATURES // groups]
        codes = rng.integers(low, high, shape)
        weight = o.convert(ov.op.Constant(ov.Type(element), ov.Shape(shape), codes.reshape(-1).tolist()), "f16")
        if zero_point:
            zero = rng.integers(low, high, [ROWS, groups, 1])
            weight = o.subtract(weight, o.convert(ov.op.Constant(ov.Type(element), ov.Shape([ROWS, groups, 1]),
                                                                 zero.reshape(-1).tolist()), "f16"))
        scale = (rng.random([ROWS, groups, 1]) * 0.02 + 0.001).astype(np.float16)
        weight = o.reshape(o.multiply(weight, o.constant(scale)), o.constant(np.array([ROWS, FEATURES], np.int64)),
                           False)
        outputs.append(o.result(o.gather(o.convert(weight, "f32"), rows, o.constant(np.int64(0))), name=name))
    ov.save_model(ov.Model(outputs, [rows], "decompression"), str(path), compress_to_fp16=False)
    return path


@pytest.mark.parametrize("seed", range(3))
def test_decompressed_weights_within_the_final_f16_rounding(seed: int, tmp_path: Path) -> None:
    import openvino as ov

    rng = np.random.default_rng(seed)
    path = _model(tmp_path / "decompression.xml", rng)
    feed = {"rows": rng.integers(0, ROWS, 24).astype(np.int32)}
    graph = read_ir(path)
    interpreter = BoundedInterpreter(graph)
    ours = interpreter.evaluate(feed)
    subtracts = [layer for layer in graph.layers() if layer.is_a("Subtract")]
    assert len(subtracts) == 2
    compiled = ov.Core().compile_model(str(path), "CPU", CPU_CONFIG)
    theirs = compiled(feed)
    differs = 0
    for name, *_ in KINDS:
        value, bound = ours[name]
        assert value.dtype == np.float32
        # the short form: the one rounding of the f16 product, moved through the Reshape and the Convert
        assert np.array_equal(np.broadcast_to(bound, value.shape), output_rounding(value.astype(np.float16)))
        got = theirs[compiled.output(name)]
        result = compare_tensors(name, got, value, 0.0, 0.0, bound=bound)
        assert result.passed, f"{name}: {result}"
        differs += int(np.any(got != value))
    assert differs, "OpenVINO computed every decompressed value as the reference's f16 product"


def test_a_subtract_that_rounds_keeps_its_bound() -> None:
    """Only an exact f16 difference is EXACT: one that rounds keeps both sides' rounding."""
    from ir_tools.ops.opsets import lookup

    spec = lookup("Subtract", "opset1")
    attrs = spec.attrs()
    exact = [np.array([3.0, 250.0], np.float16), np.array([1.0], np.float16)]
    assert spec.rounding(spec.kernel, attrs, exact, [EXACT, EXACT], spec.kernel(attrs, exact))[0] is EXACT
    rounds = [np.array([2048.0, 0.1], np.float16), np.array([1.0], np.float16)]
    (bound,) = spec.rounding(spec.kernel, attrs, rounds, [EXACT, EXACT], spec.kernel(attrs, rounds))
    assert np.array_equal(bound, output_rounding(spec.kernel(attrs, rounds)[0]))
