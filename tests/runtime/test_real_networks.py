"""`compare` on whole real networks, in CI: no false alarm, no layer unchecked, planted defects found.

tests/data/networks holds two ONNX files written by scripts/build_zoo.py (random weights, fixed seeds,
BatchNorm statistics calibrated): squeezenet1_1 with dynamic batch and spatial dims (4.9 MB), and a small
network whose count_include_pad AveragePool overhangs the padding (disputed_16). OpenVINO converts
squeezenet here (``convert_model`` + ``save_model``, f16-compressed and f32, and with every tensor f16 as
Model Optimizer's FP16 IRs had them); ``convert-onnx`` converts the other (its AvgPool has pads and
exclude-pad).

A planted defect (a weight changed in its 4th significant digit, two output channels of a Convolution
swapped, exclude-pad flipped, a pad moved) must make ``compare --load-outputs`` against the original's
saved outputs exit 1 naming the changed layer as the first divergence, while plain ``compare`` of the
changed model passes: the changed model is consistent, only the saved outputs reveal the change.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import openvino as ov
import pytest
from lxml import etree

from ir_tools.base.dtypes import element_type
from ir_tools.cli import main
from tests.zoo import COMMITTED_DIR

pytestmark = pytest.mark.openvino

NETWORKS = COMMITTED_DIR
SQUEEZENET = NETWORKS / "squeezenet1_1_op17_dyn.onnx"
OVERHANG = NETWORKS / "disputed_16.onnx"
SQUEEZENET_SIZES = ("input:1,3,96,96", "input:2,3,113,89")
OVERHANG_SHAPE = "input:1,3,22,10"


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
    assert all(o["bound_max"] > 0 for lay in convolutions for o in lay["outputs"])
    assert [o["error_to_bound"] < 1 for o in report["outputs"]] == [True]
    if weights == "f16_tensors":  # f16 rounding, 2^-11, dwarfs the default tolerances: the bound passes them
        assert any(o["max_abs_error"] > 1e-3 for lay in convolutions for o in lay["outputs"])
    if weights == "f16_weights":
        assert report["folded_constants"] > 0  # the weight decompression is computed, not compared


def _const_data(xml: Path, layer_name: str) -> tuple[int, int, np.dtype, tuple[int, ...]]:
    """(offset, size, dtype, shape) of the weights Const feeding the Convolution ``layer_name`` (port 1), through
    the Convert that decompresses f16 weights."""
    root = etree.parse(str(xml)).getroot()
    layer, port = root.find(f".//layer[@name='{layer_name}']"), "1"
    while layer.get("type") != "Const":
        edge = root.find(f".//edge[@to-layer='{layer.get('id')}'][@to-port='{port}']")
        layer, port = root.find(f".//layer[@id='{edge.get('from-layer')}']"), "0"
    data = layer.find("data")
    shape = tuple(int(d) for d in data.get("shape").split(","))
    return int(data.get("offset")), int(data.get("size")), np.dtype(element_type(data.get("element_type")).numpy), shape


def _edit_weights(xml: Path, out: Path, layer_name: str, change: Callable[[np.ndarray], None]) -> None:
    shutil.copy(xml, out)
    blob = bytearray(xml.with_suffix(".bin").read_bytes())
    offset, size, dtype, shape = _const_data(xml, layer_name)
    weights = np.frombuffer(blob, dtype, size // dtype.itemsize, offset).reshape(shape).copy()
    change(weights)
    blob[offset:offset + size] = weights.tobytes()
    out.with_suffix(".bin").write_bytes(bytes(blob))


def _fourth_digit(weights: np.ndarray) -> None:
    """One weight changed by one unit in its 4th significant digit (0.1234 -> 0.1235)."""
    flat = weights.reshape(-1)
    i = int(np.argmax(np.abs(flat)))
    flat[i] += np.sign(flat[i]) * 10.0 ** (np.floor(np.log10(abs(flat[i]))) - 3)


def _swap_channels(weights: np.ndarray) -> None:
    weights[[0, 1]] = weights[[1, 0]]


def _edit_pool(xml: Path, out: Path, attrs: dict[str, str]) -> str:
    root = etree.parse(str(xml))
    pool = root.getroot().find(".//layer[@type='AvgPool']")
    for key, value in attrs.items():
        pool.find("data").set(key, value)
    root.write(str(out))
    shutil.copy(xml.with_suffix(".bin"), out.with_suffix(".bin"))
    return pool.get("name")


def _planted(kind: str, squeezenet: dict[str, Path], overhang: Path, out: Path) -> tuple[Path, Path, str, str]:
    """(original, changed, changed layer's name, input shape)."""
    conv = "/features/features.3/expand3x3/Conv/WithoutBiases"
    if kind == "weight":
        _edit_weights(squeezenet["f32"], out, conv, _fourth_digit)
        return squeezenet["f32"], out, conv, SQUEEZENET_SIZES[0]
    if kind == "channels":
        _edit_weights(squeezenet["f16_weights"], out, conv, _swap_channels)
        return squeezenet["f16_weights"], out, conv, SQUEEZENET_SIZES[0]
    pool = etree.parse(str(overhang)).getroot().find(".//layer[@type='AvgPool']/data")
    if kind == "exclude-pad":
        flipped = "false" if pool.get("exclude-pad") == "true" else "true"
        return overhang, out, _edit_pool(overhang, out, {"exclude-pad": flipped}), OVERHANG_SHAPE
    begin, end = ([int(v) for v in pool.get(k).split(",")] for k in ("pads_begin", "pads_end"))
    axis = next(i for i, e in enumerate(end) if e > 0)
    begin[axis], end[axis] = begin[axis] + 1, end[axis] - 1  # same padded length: same output dims
    name = _edit_pool(overhang, out, {"pads_begin": ",".join(map(str, begin)), "pads_end": ",".join(map(str, end))})
    return overhang, out, name, OVERHANG_SHAPE


@pytest.mark.parametrize("kind", ["weight", "channels", "exclude-pad", "pad"])
def test_a_planted_defect_is_pinned_to_its_layer(capsys, tmp_path, squeezenet, overhang, kind):
    original, changed, layer, shape = _planted(kind, squeezenet, overhang, tmp_path / "changed.xml")
    saved = tmp_path / "original.npz"
    code, _ = compare_json(capsys, str(original), "--shape", shape, "--per-layer", "--save-outputs", str(saved))
    assert code == 0
    code, report = compare_json(capsys, str(changed), "--shape", shape, "--load-outputs", str(saved))
    assert code == 1 and report["first_divergence"]["name"] == layer, report["first_divergence"]
    code, report = compare_json(capsys, str(changed), "--shape", shape, "--per-layer")
    assert code == 0 and report["passed"], "the changed model agrees with its own reference"
