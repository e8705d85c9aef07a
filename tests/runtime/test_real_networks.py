"""`compare` on whole real networks, in CI: no false alarm, no layer unchecked, planted defects found.

tests/data/networks holds five ONNX files written by scripts/build_zoo.py (random weights, fixed seeds,
BatchNorm statistics calibrated): squeezenet1_1 with dynamic batch and spatial dims (4.9 MB), and a small
network whose count_include_pad AveragePool overhangs the padding (disputed_16). OpenVINO converts
squeezenet here (``convert_model`` + ``save_model``, f16-compressed and f32, and with every tensor f16 as
Model Optimizer's FP16 IRs had them); ``convert-onnx`` converts the other (its AvgPool has pads and
exclude-pad), and three small transformers (swin_small_test: shifted-window attention, whose masks OpenVINO builds
with ScatterNDUpdate; vit_small_test; swin3d_small_test, video), under 0.7 MB each. squeezenet is also quantized
here by onnxruntime (QDQ), which OpenVINO runs as FakeQuantize layers in int8.

A planted defect (a weight changed in its 4th significant digit, two output channels of a Convolution
swapped, exclude-pad flipped, a pad moved) must make ``compare --load-outputs`` against the original's
saved outputs exit 1 naming the changed layer as the first divergence, while plain ``compare`` of the
changed model passes: the changed model is consistent, only the saved outputs reveal the change.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import openvino as ov
import pytest
from lxml import etree
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, quantize_static

from ir_tools.cli import main
from tests.defects import KINDS, assert_pinned, plant
from tests.zoo import COMMITTED_DIR

pytestmark = pytest.mark.openvino

NETWORKS = COMMITTED_DIR
SQUEEZENET = NETWORKS / "squeezenet1_1_op17_dyn.onnx"
OVERHANG = NETWORKS / "disputed_16.onnx"
SQUEEZENET_SIZES = ("input:1,3,96,96", "input:2,3,113,89")
OVERHANG_SHAPE = "input:1,3,22,10"
#: Small transformers (torchvision's SwinTransformer, VisionTransformer and SwinTransformer3d classes): per file, the
#: input shape, the layer whose weights the planted defect changes (the first attention block's projection) and
#: the op types they must hold. swin3d's windows are larger than its input: empty tensors inside.
TRANSFORMERS = {
    "swin_small_test_op17.onnx": ("input:1,3,32,32", "/features/features.1/features.1.0/attn/MatMul",
                                  {"ScaledDotProductAttention@opset13": 3, "ScatterNDUpdate@opset15": 9}),
    "vit_small_test_op17.onnx": ("input:1,3,32,32", "/encoder/layers/encoder_layer_0/self_attention/MatMul",
                                 {"ScaledDotProductAttention@opset13": 2}),
    "swin3d_small_test_op17.onnx": ("input:1,3,4,24,24", "/features/features.0/features.0.0/attn/MatMul",
                                    {"ScaledDotProductAttention@opset13": 1, "ScatterNDUpdate@opset15": 18}),
}


def compare_json(capsys, *args: str) -> tuple[int, dict]:
    code = main(["compare", *args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def squeezenet(tmp_path_factory) -> dict[str, Path]:
    """squeezenet1_1 saved by OpenVINO with f16-compressed weights and with f32 weights."""
    out = tmp_path_factory.mktemp("squeezenet")
    model = ov.convert_model(str(SQUEEZENET))
    paths = {}
    for name, compress in (("f16_weights", True), ("f32", False)):
        paths[name] = out / f"{name}.xml"
        ov.save_model(model, str(paths[name]), compress_to_fp16=compress)
    paths["f16_tensors"] = out / "f16_tensors.xml"
    _to_f16_tensors(paths["f32"], paths["f16_tensors"])
    return paths


def _to_f16_tensors(xml: Path, out: Path) -> None:
    """Every f32 tensor made f16, as Model Optimizer's FP16 IRs had them: Parameters, Consts (their data
    converted), port precisions."""
    tree = etree.parse(str(xml))
    blob, written = xml.with_suffix(".bin").read_bytes(), bytearray()
    for layer in tree.getroot().iter("layer"):
        data = layer.find("data")
        f32 = data is not None and data.get("element_type") == "f32"
        if f32:
            data.set("element_type", "f16")
        if layer.get("type") == "Const":
            offset, size = int(data.get("offset")), int(data.get("size"))
            values = blob[offset:offset + size]
            if f32:
                values = np.frombuffer(values, np.float32).astype(np.float16).tobytes()
            data.set("offset", str(len(written)))
            data.set("size", str(len(values)))
            written += values
    for port in tree.getroot().iter("port"):
        if port.get("precision") == "FP32":
            port.set("precision", "FP16")
    tree.write(str(out))
    out.with_suffix(".bin").write_bytes(bytes(written))


@pytest.fixture(scope="module")
def transformers(tmp_path_factory) -> dict[str, Path]:
    """The small transformers converted by ``convert-onnx`` (f32 weights)."""
    out, paths = tmp_path_factory.mktemp("transformers"), {}
    for name in TRANSFORMERS:
        paths[name] = out / Path(name).with_suffix(".xml").name
        assert main(["convert-onnx", str(NETWORKS / name), "-o", str(paths[name]), "--no-compress-to-fp16"]) == 0
    return paths


@pytest.fixture(scope="module")
def overhang(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("overhang") / "overhang.xml"
    assert main(["convert-onnx", str(OVERHANG), "-o", str(out), "--no-compress-to-fp16"]) == 0
    return out


@pytest.mark.parametrize("weights", ["f16_weights", "f32", "f16_tensors"])
@pytest.mark.parametrize("shape", SQUEEZENET_SIZES)
def test_every_layer_of_squeezenet_passes_within_its_bound(capsys, squeezenet, weights, shape):
    code, report = compare_json(capsys, str(squeezenet[weights]), "--shape", shape, "--per-layer", "--seed", "3")
    assert code == 0 and report["passed"]
    assert report["not_checked"] == []
    convolutions = [lay for lay in report["layers"] if lay["type"].startswith("Convolution")]
    assert len(convolutions) == 26
    bounds = [o["bound_max"] for lay in convolutions for o in lay["outputs"]]
    (logits,) = report["outputs"]
    if weights == "f16_tensors":  # f16 rounding, 2^-11, dwarfs the default tolerances: the bound passes them
        assert all(bound is not None and bound > 0 for bound in bounds)  # (computed where a layer exceeds them)
        assert any(o["max_abs_error"] > 1e-3 for lay in convolutions for o in lay["outputs"])
        assert logits["error_to_bound"] < 1
    else:  # within atol/rtol: with every layer checked, no end-to-end bound is propagated
        assert logits["bound_max"] is None
    if weights == "f16_weights":
        assert report["folded_constants"] > 0  # the weight decompression is computed, not compared


@pytest.mark.parametrize("name", TRANSFORMERS)
def test_every_layer_of_a_transformer_passes_within_its_bound(capsys, transformers, name):
    """Attention (ScaledDotProductAttention), its shifted-window masks (ScatterNDUpdate), MVN and Gelu: every layer
    checked, end to end too (swin3d: OpenVINO CPU crashed the process compiling its empty tensors as outputs)."""
    shape, _, kinds_held = TRANSFORMERS[name]
    code, report = compare_json(capsys, str(transformers[name]), "--shape", shape, "--per-layer", "--seed", "3")
    assert code == 0 and report["passed"]
    assert report["not_checked"] == []
    kinds = Counter(lay["type"] for lay in report["layers"])
    assert {kind: kinds[kind] for kind in kinds_held} == kinds_held
    assert [(o["passed"], o["bound_max"]) for o in report["outputs"]] == [(True, None)]  # within atol/rtol


@pytest.mark.parametrize("name", TRANSFORMERS)
def test_a_weight_defect_in_attention_is_pinned_to_its_layer(capsys, tmp_path, transformers, name):
    shape, layer, _ = TRANSFORMERS[name]
    plant("weight", transformers[name], tmp_path / "changed.xml", layer)
    assert_pinned(capsys, transformers[name], tmp_path / "changed.xml", layer, shape)


def test_every_layer_of_a_quantized_network_passes_within_its_bound(capsys, tmp_path):
    """squeezenet quantized by onnxruntime (QuantizeLinear/DequantizeLinear pairs, static, calibrated on two seeded
    batches), which OpenVINO turns into FakeQuantize layers and runs in int8: every layer checked. (OpenVINO's int8
    result differs from onnxruntime's by a few percent, as OpenVINO's own conversion does: no --check.)"""

    class Batches(CalibrationDataReader):
        def __init__(self) -> None:
            self.rng = np.random.default_rng(5)
            self.left = 2

        def get_next(self) -> dict | None:
            self.left -= 1
            return {"input": self.rng.standard_normal((1, 3, 96, 96)).astype(np.float32)} if self.left >= 0 else None

    quantized, xml = tmp_path / "squeezenet_qdq.onnx", tmp_path / "squeezenet_qdq.xml"
    quantize_static(str(SQUEEZENET), str(quantized), Batches(), quant_format=QuantFormat.QDQ)
    assert main(["convert-onnx", str(quantized), "-o", str(xml), "--no-compress-to-fp16"]) == 0
    capsys.readouterr()
    code, report = compare_json(capsys, str(xml), "--shape", SQUEEZENET_SIZES[0], "--per-layer", "--seed", "3")
    assert code == 0 and report["passed"]
    assert report["not_checked"] == []
    assert Counter(lay["type"] for lay in report["layers"])["FakeQuantize@opset1"] >= 20


def _planted(kind: str, squeezenet: dict[str, Path], overhang: Path) -> tuple[Path, str, str]:
    """(original, the layer to change, input shape)."""
    if kind in ("weight", "channels"):
        conv = "/features/features.3/expand3x3/Conv/WithoutBiases"
        return squeezenet["f32" if kind == "weight" else "f16_weights"], conv, SQUEEZENET_SIZES[0]
    return overhang, etree.parse(str(overhang)).getroot().find(".//layer[@type='AvgPool']").get("name"), OVERHANG_SHAPE


@pytest.mark.parametrize("kind", KINDS)
def test_a_planted_defect_is_pinned_to_its_layer(capsys, tmp_path, squeezenet, overhang, kind):
    original, layer, shape = _planted(kind, squeezenet, overhang)
    plant(kind, original, tmp_path / "changed.xml", layer)
    assert_pinned(capsys, original, tmp_path / "changed.xml", layer, shape)


def test_per_layer_an_output_beyond_its_tolerances_gets_its_end_to_end_bound(capsys, squeezenet):
    """Per layer, the end-to-end walk propagates no bounds while the outputs are within --atol/--rtol; an output beyond
    them (at 0 and 0, any difference) is compared within the bound a walk that propagates them gives: the one a
    comparison of the outputs alone gives."""
    args = [str(squeezenet["f32"]), "--shape", SQUEEZENET_SIZES[0], "--seed", "3", "--atol", "0", "--rtol", "0"]
    code, whole = compare_json(capsys, *args)
    assert code == 0 and whole["layers"] == [] and whole["outputs"][0]["mismatches"] == 0
    code, layered = compare_json(capsys, *args, "--per-layer")
    assert code == 0 and len(layered["layers"]) > 26
    (logits,) = layered["outputs"]
    assert logits["max_abs_error"] > 0 and 0 < logits["error_to_bound"] < 1
    assert layered["outputs"] == whole["outputs"]


def test_a_loose_end_to_end_bound_is_pointed_out(capsys, squeezenet):
    """Bounds grow through every layer: at squeezenet's logits the end-to-end bound passes differences far above
    OpenVINO's, and the text report says so (per layer each bound is the layer's own: no note)."""
    args = [str(squeezenet["f32"]), "--shape", SQUEEZENET_SIZES[0], "--seed", "3"]
    _, report = compare_json(capsys, *args)
    (logits,) = report["outputs"]
    assert logits["bound_max"] > max(logits["atol"], 100 * logits["max_abs_error"])
    assert main(["compare", *args]) == 0
    assert "is loose" in capsys.readouterr().out
    assert main(["compare", *args, "--per-layer"]) == 0
    assert "is loose" not in capsys.readouterr().out
    assert main(["compare", str(Path(__file__).parents[2] / "samples" / "avgpool14_ceil_torch.xml")]) == 0
    assert "is loose" not in capsys.readouterr().out
