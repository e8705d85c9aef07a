"""Legacy IR v7: every Pooling spelling migrates to opset8 and runs with the legacy meaning.

OpenVINO cannot read the originals, so the migrated model is held against three things: our
numpy executor on it, the legacy semantics evaluated from the window spec (LegacyReference), and
a model built by hand with openvino's opset8 API that means the same.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset8 as ops8
import pytest

from ir_tools import read_ir, write_ir
from ir_tools.base.errors import AttrError, ReadError, UnsupportedError
from ir_tools.cli import main
from ir_tools.ir.legacy import parse_legacy
from ir_tools.ir.reader import IrVersionError
from ir_tools.passes.legacy import legacy_pooling, read_legacy_ir
from ir_tools.runtime.executor import run
from ir_tools.runtime.legacy_reference import LegacyReference
from ir_tools.runtime.openvino import CPU_CONFIG, run_openvino
from tests.conftest import ROOT

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SAMPLE = ROOT / "samples" / "legacy_v7_pooling.xml"


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-6, atol=1e-6, equal_nan=True))


def _hand_built(x: np.ndarray) -> dict[str, np.ndarray]:
    """The sample's meaning, written directly in opset8 (AvgPool-1) with openvino's Python API."""
    data = ops1.parameter(list(x.shape), np.float32)
    pools = {
        # legacy ceil over pads 1/2 keeps 6 windows, each inside [-1, 12): whole-kernel divisor
        "pool_a": ops8.avg_pool(data, [2, 2], [1, 1], [1, 1], [3, 3], False, "floor"),
        # legacy default ceil, exclude-pad: the 6th window is half outside the data
        "pool_b": ops8.avg_pool(data, [2, 2], [0, 0], [0, 0], [2, 2], True, "ceil"),
        # legacy default exclude-pad false with pads 1: whole-kernel divisor
        "pool_c": ops8.avg_pool(data, [1, 1], [1, 1], [1, 1], [3, 3], False, "floor"),
    }
    compiled = ov.Core().compile_model(ov.Model(list(pools.values()), [data]), "CPU", CPU_CONFIG)
    values = compiled(x)
    return {name: values[compiled.outputs[i]] for i, name in enumerate(pools)}


def _legacy_file(tmp_path: Path, layers: str, edges: str, name: str = "net.xml") -> Path:
    path = tmp_path / name
    path.write_text(f'<?xml version="1.0"?>\n<net name="t" version="7">\n<layers>\n{layers}</layers>\n'
                    f"<edges>\n{edges}</edges>\n</net>\n")
    return path


def _ports(dims: list[int], port_id: int) -> str:
    return f'<port id="{port_id}">' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>"


def _input(dims: list[int]) -> str:
    return f'<layer id="0" name="data" precision="FP32" type="Input"><output>{_ports(dims, 0)}</output></layer>\n'


def _pooling(lid: int, name: str, attrs: str, dims: list[int], tag: str = "data") -> str:
    return (f'<layer id="{lid}" name="{name}" precision="FP32" type="Pooling"><{tag} {attrs}/>'
            f"<input>{_ports(dims, 0)}</input><output>{_ports(dims, 1)}</output></layer>\n")


def test_sample_in_three_spellings_runs_with_its_legacy_meaning(tmp_path: Path) -> None:
    graph = read_legacy_ir(SAMPLE)
    assert graph.ir_version == 11
    kinds = sorted(layer.kind for layer in graph.layers())
    assert kinds == ["AvgPool@opset8"] * 3 + ["Parameter@opset1"] + ["Result@opset1"] * 3
    x = np.random.default_rng(0).standard_normal((1, 3, 11, 11)).astype(np.float32)
    got = run_openvino(graph, {"data": x}).outputs
    executor = run(graph, {"data": x})
    legacy = LegacyReference(parse_legacy(SAMPLE)).evaluate({"data": x})
    hand = _hand_built(x)
    assert sorted(got) == ["pool_a", "pool_b", "pool_c"]
    for name, value in got.items():
        assert _same(value, executor[name]) and _same(value, legacy[name]) and _same(value, hand[name]), name
    for version in (11, 10):
        out = tmp_path / f"legacy_v{version}.xml"
        write_ir(graph, out, version)
        again = run_openvino(read_ir(out), {"data": x}).outputs
        assert all(_same(again[name], got[name]) for name in got)


def test_caffe_ceil_overhang_counts_the_window_clipped_to_the_padding(tmp_path: Path) -> None:
    # 10x10, kernel 3, stride 2, pad 1, legacy defaults (ceil, exclude-pad false): 6 windows per
    # axis; the last covers 9, 10, 11 and Caffe divides by the 2 taps inside [-1, 11)
    path = _legacy_file(tmp_path, _input([1, 2, 10, 10]) + _pooling(
        1, "pool", 'kernel="3,3" strides="2,2" pads_begin="1,1" pool-method="avg"', [1, 2, 10, 10]),
        '<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>\n')
    graph = read_legacy_ir(path)
    assert {layer.type for layer in graph.layers()} >= {"Pad", "AvgPool"}
    ones = np.ones((1, 2, 10, 10), np.float32)
    per_axis = np.array([2 / 3, 1, 1, 1, 1, 1 / 2])  # data taps / counted taps
    got = run_openvino(graph, {"data": ones}).outputs["pool"]
    np.testing.assert_allclose(got[0, 0], np.outer(per_axis, per_axis), rtol=1e-6)
    x = np.random.default_rng(1).standard_normal((1, 2, 10, 10)).astype(np.float32)
    assert _same(run_openvino(graph, {"data": x}).outputs["pool"],
                 LegacyReference(parse_legacy(path)).evaluate({"data": x})["pool"])


@pytest.mark.parametrize("attrs, tag, expected", [
    ('kernel="3,2"', "data", ((3, 2), (1, 1), (0, 0), (0, 0), False, "ceil")),
    ('kernel="3,2" pads_begin="1,0" rounding_type="floor" exclude-pad="true"', "data",
     ((3, 2), (1, 1), (1, 0), (1, 0), True, "floor")),
    ('kernel-x="2" kernel-y="3" stride-x="0" pad-x="1" pad-b="2"', "data", ((3, 2), (1, 1), (0, 1), (2, 1), False,
                                                                          "ceil")),
    ('kernel-x="2" kernel-y="2" rounding-type="floor"', "pooling_data", ((2, 2), (1, 1), (0, 0), (0, 0), False,
                                                                        "floor")),
])
def test_legacy_defaults(tmp_path: Path, attrs: str, tag: str, expected: tuple) -> None:
    path = _legacy_file(tmp_path, _input([1, 1, 8, 8]) + _pooling(1, "p", attrs + ' pool-method="avg"',
                                                                 [1, 1, 8, 8], tag),
                        '<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>\n')
    p = legacy_pooling(parse_legacy(path).layer("1"))
    assert (p.kernel, p.strides, p.pads_begin, p.pads_end, p.exclude_pad, p.rounding) == expected


def test_other_legacy_layers_are_refused_in_one_message(tmp_path: Path) -> None:
    layers = (_input([1, 1, 8, 8])
              + '<layer id="1" name="conv1" precision="FP32" type="Convolution"><data kernel="3,3"/></layer>\n'
              + _pooling(2, "maxpool", 'kernel="2,2" pool-method="max"', [1, 1, 8, 8])
              + '<layer id="3" name="relu1" precision="FP32" type="ReLU"/>\n')
    path = _legacy_file(tmp_path, layers, "")
    with pytest.raises(UnsupportedError) as info:
        parse_legacy(path)
    text = str(info.value)
    for part in ("3 layer(s)", "'conv1' (Convolution, line 5)", "'maxpool' (Pooling pool-method=max, line 6)",
                 "'relu1' (ReLU, line 7)"):
        assert part in text, text


def test_bad_legacy_attributes_name_the_layer(tmp_path: Path) -> None:
    path = _legacy_file(tmp_path, _input([1, 1, 8, 8]) + _pooling(1, "p", 'kernel-x="a" kernel-y="2" pool-method="avg"',
                                                                 [1, 1, 8, 8]),
                        '<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>\n')
    with pytest.raises(AttrError) as info:
        read_legacy_ir(path)
    assert f"{path}:5: layer 'p' (id 1, Pooling): bad legacy Pooling attribute" in str(info.value)


def test_version_gates(tmp_path: Path) -> None:
    with pytest.raises(IrVersionError, match="legacy IR"):
        read_ir(SAMPLE)
    v11 = ROOT / "samples" / "avgpool14_ceil_torch.xml"
    with pytest.raises(ReadError, match="not legacy IR"):
        parse_legacy(v11)


def test_cli_migrates_legacy_and_checks_against_the_numpy_executor(tmp_path: Path, capsys) -> None:
    out = tmp_path / "migrated.xml"
    assert main(["migrate", str(SAMPLE), "-o", str(out), "--check"]) == 0
    text = capsys.readouterr().out
    assert "legacy IR, which OpenVINO cannot read" in text and "numpy executor" in text
    assert "Pooling                           3      0" in text
    assert [line for line in text.splitlines() if line.startswith("  pool_")] and "DIFFERENT" not in text
    assert {layer.version for layer in read_ir(out).by_type("AvgPool")} == {"opset8"}
