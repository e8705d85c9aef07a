"""Which `version="opsetN"` each layer type may carry: the registry against openvino's IR reader.

For every type we model and N in 0..18, a tiny IR with that one layer's version changed must load
in openvino exactly when ``opsets.lookup(type, f"opset{N}")`` finds a spec. The version is
matched exactly ("Opset14" is rejected); the type case-insensitively, except Const (see below).
"""

from __future__ import annotations

import numpy as np
import openvino as ov
import pytest

from ir_tools.ops import opsets

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

TYPES = ("Parameter", "Const", "Convert", "Result", "AvgPool", "AdaptiveAvgPool")
VALID = {"Parameter": "opset1", "Const": "opset1", "Convert": "opset1", "Result": "opset1", "AvgPool": "opset1",
         "AdaptiveAvgPool": "opset8"}  # what the other layers carry while one is varied
REJECTED = ("unsupported opset", "doesn't contain the operation")

IR = """<?xml version="1.0"?>
<net name="opsets" version="11"><layers>
<layer id="0" name="x" type="{t_Parameter}" version="{v_Parameter}"><data shape="1,3,8,8" element_type="f32"/>
<output><port id="0" precision="FP32"><dim>1</dim><dim>3</dim><dim>8</dim><dim>8</dim></port></output></layer>
<layer id="1" name="cv" type="{t_Convert}" version="{v_Convert}"><data destination_type="f32"/>
<input><port id="0" precision="FP32"><dim>1</dim><dim>3</dim><dim>8</dim><dim>8</dim></port></input>
<output><port id="1" precision="FP32"><dim>1</dim><dim>3</dim><dim>8</dim><dim>8</dim></port></output></layer>
<layer id="2" name="ap" type="{t_AvgPool}" version="{v_AvgPool}"><data kernel="2, 2" strides="2, 2"
 pads_begin="0, 0" pads_end="0, 0" exclude-pad="true" rounding_type="floor" auto_pad="explicit"/>
<input><port id="0" precision="FP32"><dim>1</dim><dim>3</dim><dim>8</dim><dim>8</dim></port></input>
<output><port id="1" precision="FP32"><dim>1</dim><dim>3</dim><dim>4</dim><dim>4</dim></port></output></layer>
<layer id="3" name="r0" type="{t_Result}" version="{v_Result}">
<input><port id="0" precision="FP32"><dim>1</dim><dim>3</dim><dim>4</dim><dim>4</dim></port></input></layer>
<layer id="4" name="c" type="{t_Const}" version="{v_Const}"><data element_type="i64" shape="2" offset="0" size="16"/>
<output><port id="0" precision="I64"><dim>2</dim></port></output></layer>
<layer id="5" name="aap" type="{t_AdaptiveAvgPool}" version="{v_AdaptiveAvgPool}">
<input><port id="0" precision="FP32"><dim>1</dim><dim>3</dim><dim>8</dim><dim>8</dim></port>
<port id="1" precision="I64"><dim>2</dim></port></input>
<output><port id="2" precision="FP32"><dim>1</dim><dim>3</dim><dim>2</dim><dim>2</dim></port></output></layer>
<layer id="6" name="r1" type="Result" version="opset1">
<input><port id="0" precision="FP32"><dim>1</dim><dim>3</dim><dim>2</dim><dim>2</dim></port></input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
<edge from-layer="2" from-port="1" to-layer="3" to-port="0"/>
<edge from-layer="0" from-port="0" to-layer="5" to-port="0"/>
<edge from-layer="4" from-port="0" to-layer="5" to-port="1"/>
<edge from-layer="5" from-port="2" to-layer="6" to-port="0"/>
</edges></net>"""


def read(op_type: str, spelling: str, version: str) -> ov.Model | str:
    """The model openvino reads with ``op_type``'s layer spelled and versioned so, or its error."""
    fields = {f"t_{t}": t for t in TYPES} | {f"v_{t}": v for t, v in VALID.items()}
    fields[f"t_{op_type}"], fields[f"v_{op_type}"] = spelling, version
    weights = ov.Tensor(np.array([2, 2], np.int64).view(np.uint8))
    try:
        return ov.Core().read_model(IR.format(**fields), weights)
    except RuntimeError as exc:
        return str(exc).strip().splitlines()[-1]


def openvino_reads(op_type: str, spelling: str, version: str) -> str | None:
    """None if openvino reads the IR, else its error."""
    model = read(op_type, spelling, version)
    return model if isinstance(model, str) else None


def test_template_reads() -> None:
    for op_type in TYPES:
        assert openvino_reads(op_type, op_type, VALID[op_type]) is None


@pytest.mark.parametrize("op_type", TYPES)
def test_opsets_match_openvino(op_type: str) -> None:
    spellings = {"Const": ["Const", "Constant"], "Result": ["Result"]}.get(  # see the tests below
        op_type, [op_type, op_type.lower(), op_type.upper()])
    checks = [(op_type, f"opset{n}") for n in range(19)]
    checks += [(s, version) for s in spellings[1:] for version in (VALID[op_type], "opset16", "opset17")]
    n = int(VALID[op_type].removeprefix("opset"))
    checks += [(op_type, v) for v in (f"Opset{n}", f"OPSET{n}", f"opset{n} ", f"opset0{n}", f"{n}", "")]
    mismatches, accepted = [], []
    for spelling, version in checks:
        error = openvino_reads(op_type, spelling, version)
        ours = opsets.lookup(spelling, version) is not None
        if error is None:
            accepted.append(f"{spelling}/{version}")
        elif version.startswith("opset") and spelling == op_type:
            assert any(text in error for text in REJECTED), f"{spelling}/{version}: unexpected error {error!r}"
        if ours != (error is None):
            mismatches.append(f"{spelling} version={version!r}: openvino {error or 'reads it'}, registry "
                              f"{'has' if ours else 'lacks'} it")
    assert not mismatches, f"{len(mismatches)} of {len(checks)} differ (openvino read {accepted}):\n" + "\n".join(
        mismatches)


def test_const_type_is_matched_exactly() -> None:
    for spelling in ("const", "CONST"):
        assert openvino_reads("Const", spelling, "opset1") is not None
        assert opsets.lookup(spelling, "opset1") is None, f"registry accepts type {spelling!r}"


def test_result_is_only_an_output_when_spelled_result() -> None:
    """OpenVINO finds outputs by the exact type "Result": a layer typed "result" is never built, whatever
    its version, and the branch feeding only it is dropped (so it "loads" even as opset0)."""
    for spelling, version in (("result", "opset0"), ("RESULT", "opset18"), ("result", "opset1")):
        model = read("Result", spelling, version)
        assert isinstance(model, ov.Model), f"{spelling}/{version}: {model}"
        assert [r.get_friendly_name() for r in model.get_results()] == ["r1"]
        assert "ap" not in {op.get_friendly_name() for op in model.get_ops()}
