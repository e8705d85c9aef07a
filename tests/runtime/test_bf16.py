"""bf16 models compared: OpenVINO's Python API gives a bf16 tensor as an f16 array of its raw bits, which ir_tools reads
as the values they are; the reference computes bf16 as OpenVINO CPU does (``base.packed.to_bf16``), so a bf16 layer
is checked like any other, and an NNCF language model whose weight decompression is bf16 (a bf16 checkpoint's export:
integer weights converted to bf16, less a bf16 zero point, times a bf16 scale) compares its outputs and every layer.
A scale moved by a few bf16 ulps in a copy still fails against the original, at the MatMul it feeds."""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset8 as o
import pytest
from lxml import etree

import ir_tools
from ir_tools.base.packed import to_bf16
from ir_tools.cli import main
from tests.defects import site
from tests.target_zoo import FIXTURES_DIR

pytestmark = pytest.mark.openvino

#: The committed NNCF int8 GPT-2 (u8 weights, u8 zero points, f16 scales), made bf16 by ``bf16_copy``.
GPT2_INT8 = FIXTURES_DIR / "tiny_gpt2_int8.xml"


@functools.cache
def bf16_cpu() -> bool:
    """Whether this CPU computes bf16 (OpenVINO says BF16: AVX-512 or its bf16 instructions). Without (AVX2), OpenVINO
    CPU holds a bf16 tensor in f32 and rounds what it exposes otherwise than ``to_bf16``'s rule, within a bf16 ulp
    (measured on an AVX2 CPU with 2026.4: some of 256 values toward zero where to nearest is away, others away). Asked
    when a test needs it, not at collection: the fast tier runs no OpenVINO."""
    return "BF16" in ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")


def bf16(values: np.ndarray) -> np.ndarray:
    """f32 values rounded to bf16 (to nearest, ties to even), as f32."""
    return to_bf16(values).view(np.float32)


def bf16_neighbours(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two bf16 values around each f32 value (toward zero, and one bf16 ulp further from it), as f32."""
    toward_zero = np.asarray(values, np.float32).view(np.uint32) & np.uint32(0xFFFF0000)
    return toward_zero.view(np.float32), (toward_zero + np.uint32(0x10000)).view(np.float32)


def compare(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, dict]:
    code = main(["compare", *map(str, args), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """x f32 -> Convert bf16 -> Multiply by a bf16 Const -> ReLU -> Convert f32."""
    x = o.parameter([4, 64], np.float32, name="x")
    scale = o.convert(o.constant(np.linspace(-3, 3, 64, dtype=np.float32)), "bf16")
    y = o.convert(o.relu(o.multiply(o.convert(x, "bf16"), scale)), "f32")
    path = tmp_path_factory.mktemp("bf16") / "bf16.xml"
    ov.save_model(ov.Model([y], [x], "bf16"), path, compress_to_fp16=False)
    return path


def test_bf16_activations_are_read_as_their_values(model: Path) -> None:
    graph = ir_tools.read_valid(model)
    x = np.random.default_rng(0).standard_normal((4, 64)).astype(np.float32) * 10
    run = ir_tools.OpenVinoRunner(graph).infer({"x": x}, per_layer=True)
    converted = next(layer for layer in graph.layers() if layer.is_a("Convert") and layer.outputs[0].precision
                     == "BF16" and graph.layer(graph.producer_key(layer.id, layer.inputs[0].id)[0]).is_a("Parameter"))
    value = run.layers[converted.id, converted.outputs[0].id]
    assert value.dtype == np.float32  # (it read x's bits as f16 numbers)
    if bf16_cpu():
        assert np.array_equal(value, bf16(x))
    else:  # (rounded otherwise, within the rounding bound: one of the two bf16 values around x)
        below, above = bf16_neighbours(x)
        assert np.all((value == below) | (value == above)), value


def test_compare_checks_bf16_layers(model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = compare(capsys, model, "--per-layer")
    assert code == 0 and report["passed"] and report["outputs"] and report["not_checked"] == [], report["not_checked"]
    kinds = {layer["type"] for layer in report["layers"]}
    assert {"Convert@opset1", "Multiply@opset1", "ReLU@opset1"} <= kinds, kinds


def bf16_copy(xml: Path, out: Path) -> Path:
    """``xml`` with its f16 tensors made bf16 as a bf16 checkpoint's export has them: each f16 Const's payload
    converted by value (to nearest, ties to even; both types are two bytes, so the .bin keeps its layout), and every
    f16 element type, Convert destination and port precision made bf16."""
    tree = etree.parse(str(xml))
    blob = bytearray(xml.with_suffix(".bin").read_bytes())
    for data in tree.getroot().iter("data"):
        if data.get("element_type") == "f16":
            offset, size = int(data.get("offset")), int(data.get("size"))
            values = np.frombuffer(bytes(blob[offset:offset + size]), np.float16).astype(np.float32)
            blob[offset:offset + size] = (to_bf16(values).view(np.uint32) >> 16).astype("<u2").tobytes()
            data.set("element_type", "bf16")
        if data.get("destination_type") == "f16":
            data.set("destination_type", "bf16")
    for port in tree.getroot().iter("port"):
        if port.get("precision") == "FP16":
            port.set("precision", "BF16")
    tree.write(str(out))
    out.with_suffix(".bin").write_bytes(bytes(blob))
    return out


def moved_scale(xml: Path, out: Path, matmul: str, ulps: int) -> str:
    """Copy ``xml`` to ``out`` with the largest value of the bf16 scale that decompresses ``matmul``'s weights (the
    Multiply's second input, up its port 1 and then port 0) moved by ``ulps`` bf16 ulps; the scale's name."""
    root = etree.parse(str(xml)).getroot()

    def producer(layer: etree._Element, port: str) -> etree._Element:
        edge = root.find(f".//edge[@to-layer='{layer.get('id')}'][@to-port='{port}']")
        return root.find(f".//layer[@id='{edge.get('from-layer')}']")

    layer = producer(root.find(f".//layer[@name='{matmul}']"), "1")
    while layer.get("type") != "Multiply":
        layer = producer(layer, "0")
    scale = producer(layer, "1")
    data = scale.find("data")
    assert data.get("element_type") == "bf16"
    offset, size = int(data.get("offset")), int(data.get("size"))
    blob = bytearray(xml.with_suffix(".bin").read_bytes())
    bits = np.frombuffer(bytes(blob[offset:offset + size]), "<u2").copy()
    i = int(np.argmax(np.abs((bits.astype(np.uint32) << 16).view(np.float32))))
    bits[i] += ulps
    blob[offset:offset + size] = bits.tobytes()
    shutil.copy(xml, out)
    out.with_suffix(".bin").write_bytes(bytes(blob))
    return scale.get("name")


def test_bf16_weight_decompression_compares_and_a_moved_scale_fails_at_its_matmul(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = bf16_copy(GPT2_INT8, tmp_path / "gpt2_bf16.xml")
    code, report = compare(capsys, original)
    assert code == 0 and report["passed"] and report["outputs"], report["outputs"]
    code, report = compare(capsys, original, "--per-layer", "--save-outputs", tmp_path / "saved.npz")
    assert code == 0 and report["passed"] and report["not_checked"] == [], report["not_checked"]
    assert any(layer["type"] == "MatMul@opset1" for layer in report["layers"])

    matmul = site("projection", original)
    changed = tmp_path / "gpt2_bf16_scale.xml"
    moved_scale(original, changed, matmul, 3)
    code, report = compare(capsys, changed)
    assert code == 0 and report["passed"], "the changed file agrees with its own reference"
    code, report = compare(capsys, changed, "--load-outputs", tmp_path / "saved.npz")
    assert code == 1 and report["first_divergence"]["name"] == matmul, report["first_divergence"]
    code, report = compare(capsys, changed, "--against", original, "--per-layer")
    assert code == 1 and report["first_divergence"]["name"] == matmul, report["first_divergence"]


def test_a_narrowing_convert_kept_in_f32_is_within_its_bound(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    """x -> Convert f16 -> Convert f32 -> MatMul: OpenVINO CPU keeps the f16 Convert's f32 value (every instruction
    set; a bf16 one likewise on AVX2), the reference rounds it, and the Convert's bound says so (it was exact: the
    MatMul's output failed at 3.75 times its bound)."""
    x = o.parameter([4, 256], np.float32, name="x")
    weights = o.constant(np.random.default_rng(0).standard_normal((256, 64)).astype(np.float32))
    y = o.matmul(o.convert(o.convert(x, "f16"), "f32"), weights, False, False)
    path = tmp_path / "narrowed.xml"
    ov.save_model(ov.Model([y], [x], "narrowed"), path, compress_to_fp16=False)
    code, report = compare(capsys, path)
    assert code == 0 and report["passed"] and report["outputs"], report["outputs"]


def test_a_bf16_input_is_fed_bf16_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bf16 model input: seeded values drawn in f32 and rounded to bf16, given ones rounded likewise (the reference's
    and OpenVINO's, which is fed their bits: its Python API reads an f32 array as raw bf16 bytes)."""
    x = o.parameter([2, 8], ov.Type.bf16, name="x")
    scale = np.arange(-4, 4, dtype=np.float32) / 2
    y = o.convert(o.multiply(x, o.convert(o.constant(scale), "bf16")), "f32")
    path = tmp_path / "bf16_input.xml"
    ov.save_model(ov.Model([y], [x], "bf16_input"), path, compress_to_fp16=False)
    code, report = compare(capsys, path, "--per-layer")
    assert code == 0 and report["passed"] and report["outputs"] and report["not_checked"] == [], report
    assert report["inputs"][0]["element_type"] == "bf16"
    given = tmp_path / "given.npz"
    np.savez(given, x=np.full((2, 8), 1 + 2.0**-8 + 2.0**-20, np.float32))  # (rounds up to 1 + 2^-7)
    code, report = compare(capsys, path, "--inputs", given)
    assert code == 0 and report["passed"], report["outputs"]
    graph = ir_tools.read_valid(path)
    got = ir_tools.OpenVinoRunner(graph).run({"x": bf16(np.full((2, 8), 1 + 2.0**-7, np.float32))})
    product = scale * (1 + 2.0**-7)  # (exact in f32; a CPU without bf16 holds the bf16 Multiply's result in f32)
    assert np.array_equal(next(iter(got.values())), np.broadcast_to(bf16(product) if bf16_cpu() else product, (2, 8)))
