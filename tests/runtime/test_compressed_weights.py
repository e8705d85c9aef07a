"""compare on MatMuls of compressed weights, as NNCF writes them (int8 per channel, int4 in groups, symmetric and
asymmetric: u8/u4/i4 Consts, Convert to f16, Subtract the zero point, Multiply by an f16 scale, Convert to f32):
OpenVINO CPU computes them its own way, and compare must neither fail them nor hide a real difference."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ir_tools.cli import main
from ir_tools.ir.reader import read_ir
from ir_tools.runtime.inputs import random_inputs
from tests.cpu_isa import setting_moves_outputs

pytestmark = pytest.mark.openvino

FEATURES, OUT, GROUP = 64, 48, 16


def compressed_model(path: Path, rng: np.random.Generator) -> Path:
    """x [1, 8, 64] times three compressed weights [48, 64]: u8 with a zero point per row, u4 with one per group of
    16, i4 without; each output its own."""
    import openvino as ov
    import openvino.opset13 as o

    x = o.parameter([1, 8, FEATURES], np.float32, name="x")
    outputs = []
    for kind, element, low, high, groups in (("int8", ov.Type.u8, 0, 256, 1), ("int4_asym", ov.Type.u4, 0, 16, 4),
                                             ("int4_sym", ov.Type.i4, -8, 8, 4)):
        shape = [OUT, groups, FEATURES // groups]
        codes = rng.integers(low, high, shape)
        weight = o.convert(ov.op.Constant(element, ov.Shape(shape), codes.reshape(-1).tolist()), "f16")
        if kind != "int4_sym":
            zero = rng.integers(low, high, [OUT, groups, 1])
            weight = o.subtract(weight, o.convert(ov.op.Constant(element, ov.Shape([OUT, groups, 1]),
                                                                 zero.reshape(-1).tolist()), "f16"))
        scale = o.constant((rng.random([OUT, groups, 1]) * 0.02 + 0.001).astype(np.float16))
        weight = o.reshape(o.multiply(weight, scale), o.constant(np.array([OUT, FEATURES], np.int64)), False)
        outputs.append(o.result(o.matmul(x, o.convert(weight, "f32"), False, True), name=kind))
    ov.save_model(ov.Model(outputs, [x], "compressed"), str(path), compress_to_fp16=False)
    return path


def test_compressed_weight_matmuls_pass_per_layer_with_the_settings_pinned(tmp_path: Path, capsys) -> None:
    """Every MatMul within its bound: compare pins DYNAMIC_QUANTIZATION_GROUP_SIZE to 0 (by default OpenVINO CPU
    quantizes the activations of such a MatMul to int8, in groups of 32: error/bound 300-400 on NNCF's int8 Llama)
    and bounds a weight decompressed in f32 by the rounding of the file's f16 Multiply (CPU skips that rounding:
    error/bound 13-15 before)."""
    model = compressed_model(tmp_path / "compressed.xml", np.random.default_rng(3))
    assert main(["compare", str(model), "--per-layer", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] and report["not_checked"] == []
    assert report["config"]["DYNAMIC_QUANTIZATION_GROUP_SIZE"] == "0"
    matmuls = [layer for layer in report["layers"] if layer["type"].startswith("MatMul")]
    assert len(matmuls) == 3
    ratios = [out["error_to_bound"] for layer in matmuls for out in layer["outputs"]]
    assert all(ratio is not None and ratio <= 1 for ratio in ratios), ratios



def test_deployment_settings_are_measured_not_judged(tmp_path: Path, capsys, check_report) -> None:
    """--config DYNAMIC_QUANTIZATION_GROUP_SIZE=32 (OpenVINO CPU's default, which compare pins to 0): the verdict is
    the pinned run's, and the report names each MatMul the setting moves beyond its bound, with how far; an unknown
    setting is refused with the nearest one; where the setting changes none of OpenVINO's outputs (an AVX2 CPU, which
    does not quantize activations), no MatMul moved and the report says the setting changes nothing there."""
    model = compressed_model(tmp_path / "compressed.xml", np.random.default_rng(3))
    setting = {"DYNAMIC_QUANTIZATION_GROUP_SIZE": "32"}
    moves = setting_moves_outputs(model, random_inputs(read_ir(model), 0, {}), setting)
    assert main(["compare", str(model), "--config", "DYNAMIC_QUANTIZATION_GROUP_SIZE=32", "--format", "json"]) == 0
    report = check_report(json.loads(capsys.readouterr().out))
    deployment = report["deployment"]
    assert report["passed"] and deployment["config"] == {"DYNAMIC_QUANTIZATION_GROUP_SIZE": "32"}
    assert deployment["layers_compared"] == 3
    moved = deployment["layers_moved"]
    assert bool(moved) == moves and (deployment["outputs_changed"] > 0) == moves, deployment
    assert all(m["type"].startswith("MatMul") and m["error_to_bound"] > 1 for m in moved), moved
    assert main(["compare", str(model), "--config", "DYNAMIC_QUANTIZATION_GROUP_SIZE=32"]) == 0
    assert ("these settings change no output bit on this CPU" in capsys.readouterr().out) == (not moves)
    assert main(["compare", str(model), "--config", "DYNAMIC_QUANTISATION_GROUP_SIZE=32"]) == 2
    assert "(did you mean DYNAMIC_QUANTIZATION_GROUP_SIZE?)" in capsys.readouterr().err
    # a value the plugin refuses, in its words, before anything runs (it was E-OPENVINO, 'refused the model')
    assert main(["compare", str(model), "--config", "INFERENCE_PRECISION_HINT=f64"]) == 2
    assert "error[E-USAGE]: --config INFERENCE_PRECISION_HINT=f64: OpenVINO's CPU plugin refuses it: Wrong value " \
           "f64" in capsys.readouterr().err
