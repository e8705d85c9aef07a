"""Every ONNX backend node test of AveragePool and GlobalAveragePool, converted and run in OpenVINO.

The onnx package generates each case (model, inputs, expected outputs) in the modules of
``onnx.backend.test.case.node``, each registering its operator's cases when imported (what ``collect_testcases``
imports, every operator's, takes seconds at every collection); the expected values are ONNX's, never ours.
"""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.backend.test.case import node

from ir_tools.base.errors import IrToolsError
from ir_tools.cli import main
from ir_tools.onnx import from_onnx
from ir_tools.runtime.openvino import run_openvino
from tests.onnx.models import make_model

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

#: Cases whose expected values the onnx authors typed in rounded to four decimals (0.1511, 0.2841, 0.3572;
#: onnxruntime gives 0.151056, 0.284044, 0.357222, as we do): compared at rtol 1e-3.
ROUNDED_BY_HAND = {"test_averagepool_2d_ceil_last_window_starts_on_pad"}


def _cases_of(*modules: str) -> list:
    """The backend cases the onnx modules of these operators register as they are imported."""
    with warnings.catch_warnings():  # (generating cases may warn about overflows)
        warnings.simplefilter("ignore")
        for module in modules:
            importlib.import_module(f"{node.__name__}.{module}")
    return list(node._NodeTestCases)


ALL_CASES = _cases_of("averagepool", "globalaveragepool", "shrink", "sum", "pad")
CASES = [c for c in ALL_CASES if c.name.startswith(("test_averagepool", "test_globalaveragepool"))]
#: Cases whose converted model's input or output tensor holds several names, the ONNX one not first (an expanded
#: function's Identity merged into its Parameter; a Parameter that is an output).
ALIASED = [c for c in ALL_CASES if c.name.startswith(("test_shrink_hard_expanded", "test_sum_one_input"))]

#: onnx before 1.18 generated the expected values of ceil-mode cases with count_include_pad=1 by its old reference,
#: which counted the taps of a window that overhangs the end padding (OpenVINO's AvgPool-1 numbers); 1.18 cut the
#: window off at the padding's end first (docs/SEMANTICS.md section 3, onnxruntime since 1.29) and added
#: test_averagepool_2d_ceil_last_window_starts_on_pad.
ONNX_1_18 = tuple(int(part) for part in onnx.__version__.split(".")[:2]) >= (1, 18)
OLD_REFERENCE = set() if ONNX_1_18 else {"test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_True"}


def test_every_case_collected() -> None:
    """Report how many cases run; the onnx 1.23 suite (and 1.18's) has 20 AveragePool and 2 GlobalAveragePool cases,
    onnx 1.17's one AveragePool case fewer."""
    names = [c.name for c in CASES]
    print(f"{len(names)} ONNX backend cases: {sum(n.startswith('test_averagepool') for n in names)} AveragePool, "
          f"{sum(n.startswith('test_globalaveragepool') for n in names)} GlobalAveragePool")
    assert len(names) == (22 if ONNX_1_18 else 21)
    assert len(ALIASED) >= 2 and len(WRAP_PAD) == 1  # (the other operators' modules imported: ``_cases_of``)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_backend_case(case, tmp_path: Path) -> None:
    if case.name in OLD_REFERENCE:
        pytest.skip(f"onnx {onnx.__version__} expects the overhanging window's old divisor (fixed in onnx 1.18)")
    path = tmp_path / f"{case.name}.onnx"
    onnx.save(case.model, path)
    graph = from_onnx(path)
    rtol = 1e-3 if case.name in ROUNDED_BY_HAND else 1e-5
    for inputs, expected in case.data_sets:
        feed = {value.name: array for value, array in zip(case.model.graph.input, inputs, strict=True)}
        outputs = run_openvino(graph, feed).outputs
        for value, want in zip(case.model.graph.output, expected, strict=True):
            got = outputs[value.name]
            assert got.shape == want.shape, value.name
            np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-7, err_msg=value.name)


# What the backend cases cannot show: models with no exact opset8 form (or no ONNX output at all)
# are refused with one clear error naming the node, and the CLI turns it into exit 2.


def _model(path: Path, nodes: list, shape: list, initializers: tuple = ()) -> Path:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [None] * len(shape))
    graph = helper.make_graph(nodes, "g", [x], [y], initializer=list(initializers))
    model = make_model(graph, 22)
    onnx.save(model, path)
    return path


def _pool(name: str, source: str = "x", target: str = "y", **attrs) -> onnx.NodeProto:
    return helper.make_node("AveragePool", [source], [target], name=name, **attrs)


REFUSED = {
    # floor((P - K) / S) + 1 = 0 windows: ONNX itself has no output
    "kernel past the padded input, floor": (
        [_pool("big", kernel_shape=[5], pads=[1, 0])], [1, 1, 3], "E-OP", "big", ["larger than the padded input 4"]),
    # ceil keeps the window only while it starts inside: K - P = 3 is not below the stride 2
    "kernel past the padded input, ceil": (
        [_pool("big", kernel_shape=[6], strides=[2], ceil_mode=1)], [1, 1, 3], "E-OP", "big", ["would be empty"]),
    "ceil_mode on a symbolic length": (
        [_pool("p", kernel_shape=[2], ceil_mode=1)], [1, 1, "L"], "E-UNSUPPORTED", "p", ["ceil_mode=1", "static"]),
    "SAME on a symbolic length": (
        [_pool("p", kernel_shape=[2], auto_pad="SAME_LOWER")], [1, 1, "L"], "E-UNSUPPORTED", "p", ["SAME_LOWER"]),
    "kernel_shape of the wrong rank": (
        [_pool("p", kernel_shape=[2, 2])], [1, 1, 8], "E-OP", "p", ["rank 3, expected 4"]),
}


@pytest.mark.parametrize("nodes, shape, code, node, words", REFUSED.values(), ids=REFUSED.keys())
def test_refused_with_the_node_named(nodes, shape, code, node, words, tmp_path: Path, capsys) -> None:
    path = _model(tmp_path / "m.onnx", nodes, shape)
    with pytest.raises(IrToolsError) as info:
        from_onnx(path)
    assert info.value.code == code
    assert info.value.loc.layer_name == node
    assert all(w in info.value.message for w in words), info.value.message
    assert main(["convert-onnx", str(path), "-o", str(tmp_path / "out.xml")]) == 2
    assert f"error[{code}]" in capsys.readouterr().err
    assert not (tmp_path / "out.xml").exists()


def test_initializer_input_refused(tmp_path: Path) -> None:
    w = helper.make_tensor("w", TensorProto.FLOAT, [1, 1, 2], [1.0, 2.0])
    path = _model(tmp_path / "m.onnx", [_pool("pw", "w", "y", kernel_shape=[1])], [1, 1, 2], (w,))
    with pytest.raises(IrToolsError, match="initializer") as info:
        from_onnx(path)
    assert info.value.loc.layer_name == "pw"


def test_not_an_onnx_file(tmp_path: Path) -> None:
    path = tmp_path / "m.onnx"
    path.write_bytes(b"\x00not a protobuf\xff")
    with pytest.raises(IrToolsError) as info:
        from_onnx(path)
    assert info.value.code == "E-ONNX-READ"


@pytest.mark.parametrize("case", ALIASED, ids=[c.name for c in ALIASED])
def test_check_and_inputs_take_any_name_of_a_tensor(case, tmp_path: Path, capsys) -> None:
    """convert-onnx --check fed onnxruntime the converted model's first tensor name ('Required inputs (['x']) are
    missing') or found its output 'MISSING', and compare --inputs keyed by the ONNX name was refused (found by a QA run
    over the backend cases: 162 --check and 113 compare runs)."""
    path = tmp_path / f"{case.name}.onnx"
    onnx.save(case.model, path)
    out = tmp_path / "out.xml"
    assert main(["convert-onnx", str(path), "-o", str(out), "--check", "-q"]) == 0, capsys.readouterr()
    inputs, _ = case.data_sets[0]
    np.savez(tmp_path / "in.npz", **{v.name: a for v, a in zip(case.model.graph.input, inputs, strict=True)})
    assert main(["compare", str(out), "--inputs", str(tmp_path / "in.npz"), "-q"]) == 0, capsys.readouterr()


WRAP_PAD = [c for c in ALL_CASES if c.name == "test_wrap_pad"]


@pytest.mark.parametrize("case", WRAP_PAD, ids=[c.name for c in WRAP_PAD])
def test_an_unsupported_node_says_openvinos_reason(case, tmp_path: Path, capsys) -> None:
    """A mode or a type the frontend does not take: the node's diagnostic gives the frontend's reason, rather than
    calling the op one it cannot convert (found by a QA run: Pad's wrap mode, Cast to UINT2, Dropout's mask)."""
    path = tmp_path / f"{case.name}.onnx"
    onnx.save(case.model, path)
    assert main(["convert-onnx", str(path), "-o", str(tmp_path / "out.xml")]) == 2
    assert "E-ONNX-UNSUPPORTED]: Pad (OpenVINO's ONNX frontend cannot convert it here: Unsupported padding mode: " \
           "[wrap]): node 'y'" in capsys.readouterr().err
