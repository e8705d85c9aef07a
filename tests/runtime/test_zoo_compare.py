"""`compare --per-layer` on the IR zoo (scripts/build_ir_zoo.py; skipped when not built).

The IR zoo holds the zoo's classifiers (calibrated and with uncalibrated random weights, static and
dynamic inputs) as OpenVINO saves them, with f16-compressed and f32 weights, and some with every
tensor f16 as Model Optimizer's FP16 IRs had them. At each input size its manifest lists (two where
dims are dynamic), `compare --per-layer` with the default tolerances must pass with no layer "not
checked". A planted defect in each of four networks is pinned to its layer (tests/defects.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ir_tools.cli import main
from tests.defects import assert_pinned, plant
from tests.zoo import HOW_TO_BUILD_IR, ir_zoo_entries

pytestmark = pytest.mark.openvino

ENTRIES = ir_zoo_entries()


def _params() -> list:
    if not ENTRIES:
        return [pytest.param(None, marks=pytest.mark.skip(reason=HOW_TO_BUILD_IR))]
    return [pytest.param(e, id=Path(e["file"]).stem) for e in ENTRIES]


@pytest.mark.parametrize("entry", _params())
def test_zoo_ir_compares_clean_per_layer(entry: dict, capsys) -> None:
    name = entry["input"]["name"]
    failures = []
    for shape in entry["sizes"]:
        code = main(["compare", entry["path"], "--per-layer", "--format", "json", "--seed", "1",
                     "--shape", f"{name}:{','.join(map(str, shape))}"])
        out = capsys.readouterr()
        report = json.loads(out.out) if out.out else {}
        if code != 0 or report.get("not_checked"):
            failing = [lay["name"] for lay in report.get("layers", []) if not lay["passed"]][:3]
            unchecked = sorted({n["type"] for n in report.get("not_checked", [])})
            failures.append(f"{shape}: exit {code}, failing {failing}, not checked {unchecked} {out.err.strip()[:300]}")
    assert not failures, "\n".join(failures)


#: (defect, IR zoo file, the layer changed): one network each, f32 and f16-compressed weights.
PLANTED = [("weight", "resnet18_op17_f32.xml", "/conv1/Conv/WithoutBiases"),
           ("channels", "googlenet_op17_f16w.xml", "/conv2/conv/Conv/WithoutBiases"),
           ("exclude-pad", "inception_v3_op17_f32.xml", "/Mixed_5b/AveragePool"),
           ("pad", "densenet121_op17_f32.xml", "/features/conv0/Conv/WithoutBiases")]


@pytest.mark.parametrize(("kind", "file", "layer"), PLANTED, ids=[p[0] for p in PLANTED])
def test_a_planted_defect_in_a_zoo_network_is_pinned_to_its_layer(capsys, tmp_path, kind, file, layer) -> None:
    entry = next((e for e in ENTRIES if e["file"] == file), None)
    if entry is None:
        pytest.skip(HOW_TO_BUILD_IR)
    original, changed = Path(entry["path"]), tmp_path / "changed.xml"
    plant(kind, original, changed, layer)
    shape = f"{entry['input']['name']}:{','.join(map(str, entry['sizes'][0]))}"
    assert_pinned(capsys, original, changed, layer, shape)
