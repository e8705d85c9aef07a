"""convert-onnx on the zoo of real torchvision networks (scripts/build_zoo.py; skipped when not built), and on
the zoo files committed in tests/data/networks (squeezenet1_1 with dynamic spatial dims, a disputed network, two
small transformers), which CI always runs.

Every classifier file converts; OpenVINO on the result equals onnxruntime on the ONNX file at each
input size the manifest lists (two or more where dims are dynamic), within rtol 1e-4 and an atol of
1e-4 times the output's largest magnitude: two f32 implementations of a deep network differ by more
than a fixed 1e-4 (on inception_v3, onnxruntime with and without its graph optimisations differ by
6e-4 on logits of magnitude 12, ``ov.convert_model`` from onnxruntime by 8e-4). The result holds no
average pooling but opset8 AvgPool and `check` finds it clean. The disputed
networks (ceil-mode AveragePool with an overhang, most with count_include_pad=1, 1-D to 3-D, and two
whose last window starts in the end padding and is dropped, inside Conv/ReLU stacks) equal onnxruntime
too, while OpenVINO's own conversion does not on some of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from ir_tools import read_ir
from ir_tools.cli import main
from ir_tools.runtime.onnxruntime import run_onnxruntime
from tests.zoo import COMMITTED_DIR, HOW_TO_BUILD, ZOO_DIR, zoo_entries

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

NETWORKS = COMMITTED_DIR
COMMITTED = [dict(e, path=str(NETWORKS / e["file"]))
             for e in json.loads((NETWORKS / "manifest.json").read_text())["files"]]
COMMITTED_CLASSIFIERS = [e for e in COMMITTED if e["kind"] == "classifier"]
CLASSIFIERS = zoo_entries("classifier")
DISPUTED = zoo_entries("disputed")
POOLING_TYPES = {"avgpool", "averagepool", "reducemean", "adaptiveavgpool", "globalaveragepool"}


def _feed(entry: dict, shape: list[int], seed: int) -> dict[str, np.ndarray]:
    return {entry["input"]["name"]: np.random.default_rng(seed).standard_normal(shape).astype(np.float32)}


def _openvino(xml: Path, feed: dict[str, np.ndarray]) -> np.ndarray:
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    return compiled(feed)[0]


def _atol(want: np.ndarray) -> float:
    return 1e-4 * max(1.0, float(np.max(np.abs(want))))


def _params(entries: list[dict]) -> list:
    if not entries:
        return [pytest.param(None, marks=pytest.mark.skip(reason=HOW_TO_BUILD))]
    return [pytest.param(e, id=Path(e["file"]).stem) for e in entries]


def _path(entry: dict) -> Path:
    return Path(entry.get("path") or ZOO_DIR / entry["file"])


@pytest.mark.parametrize("entry", [pytest.param(e, id=f"committed-{Path(e['file']).stem}")
                                   for e in COMMITTED_CLASSIFIERS]
                         + _params(CLASSIFIERS))
def test_zoo_network_converts_exactly(entry: dict, tmp_path: Path, capsys) -> None:
    path = _path(entry)
    xml = tmp_path / f"{path.stem}.xml"
    assert main(["convert-onnx", str(path), "-o", str(xml), "--no-compress-to-fp16"]) == 0, capsys.readouterr().err
    graph = read_ir(xml)
    pools = [layer for layer in graph.layers() if layer.type.lower() in POOLING_TYPES]
    assert all((layer.type, layer.version) == ("AvgPool", "opset8") or layer.type == "ReduceMean" for layer in pools)
    assert main(["check", str(xml)]) == 0, capsys.readouterr()
    for i, shape in enumerate(entry["sizes"]):
        feed = _feed(entry, shape, i)
        want = next(iter(run_onnxruntime(path, feed).values()))
        np.testing.assert_allclose(_openvino(xml, feed), want, rtol=1e-4, atol=_atol(want), err_msg=str(shape))


@pytest.mark.parametrize("entry", COMMITTED_CLASSIFIERS[:1] + CLASSIFIERS[:1])
def test_zoo_network_compressed_like_ovc(entry: dict, tmp_path: Path) -> None:
    """The default (f16 weights) equals onnxruntime with the same rounding of the weights."""
    path = _path(entry)
    xml = tmp_path / f"{path.stem}.xml"
    assert main(["convert-onnx", str(path), "-o", str(xml)]) == 0
    ovc = tmp_path / "ovc.xml"
    ov.save_model(ov.convert_model(str(path)), ovc)
    assert xml.with_suffix(".bin").stat().st_size <= ovc.with_suffix(".bin").stat().st_size * 1.01 + 4096
    feed = _feed(entry, entry["sizes"][0], 7)
    want = next(iter(run_onnxruntime(path, feed, f16_weights=True).values()))
    np.testing.assert_allclose(_openvino(xml, feed), want, rtol=1e-4, atol=_atol(want))


def test_committed_disputed_network(tmp_path: Path) -> None:
    """The committed disputed network: ours equals onnxruntime, OpenVINO's own conversion does not."""
    ours_wrong, theirs_wrong = _disputed([e for e in COMMITTED if e["kind"] == "disputed"], tmp_path)
    assert not ours_wrong and theirs_wrong


@pytest.mark.skipif(not DISPUTED, reason=HOW_TO_BUILD)
def test_disputed_pooling_inside_networks(tmp_path: Path, capsys) -> None:
    ours_wrong, theirs_wrong = _disputed(DISPUTED, tmp_path)
    with capsys.disabled():
        print(f"\ndisputed networks: {len(DISPUTED)}; ours differ from onnxruntime on {len(ours_wrong)}, "
              f"ov.convert_model alone on {len(theirs_wrong)}")
    assert not ours_wrong
    assert len(DISPUTED) >= 20 and theirs_wrong, "the cases must be ones OpenVINO's own conversion gets wrong"


def _disputed(entries: list[dict], tmp_path: Path) -> tuple[list[str], list[str]]:
    """The files on which ours, and OpenVINO's own conversion, differ from onnxruntime."""
    ours_wrong, theirs_wrong = [], []
    for entry in entries:
        path = _path(entry)
        xml = tmp_path / f"{path.stem}.xml"
        assert main(["convert-onnx", str(path), "-o", str(xml), "--no-compress-to-fp16"]) == 0
        feed = _feed(entry, entry["sizes"][0], 1)
        want = next(iter(run_onnxruntime(path, feed).values()))
        config = {"INFERENCE_PRECISION_HINT": "f32"}
        theirs = ov.Core().compile_model(ov.convert_model(str(path)), "CPU", config)(feed)[0]
        if not np.allclose(_openvino(xml, feed), want, rtol=1e-4, atol=1e-4):
            ours_wrong.append(entry["file"])
        if not np.allclose(theirs, want, rtol=1e-4, atol=1e-4):
            theirs_wrong.append(entry["file"])
    return ours_wrong, theirs_wrong
