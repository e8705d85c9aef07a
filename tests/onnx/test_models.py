"""Every ONNX model a test writes declares one IR version, tests/onnx/models.py's, which every onnxruntime that
pyproject.toml admits reads.

A test that called ``helper.make_model`` itself got the newest IR version of the installed onnx (IR 14 in onnx
1.23), which onnxruntime 1.31 refuses; the failure came back with each new test until it had one place.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper

from tests.onnx.models import IR_VERSION, MAX_OPSET, make_model

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
HOME = Path(__file__).with_name("models.py")

#: Calls that stamp an IR version of their own (the installed onnx's newest, or one given).
_MAKERS = {"make_model", "make_model_gen_version", "ModelProto"}


def _offences(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    if not any(isinstance(node, ast.Import) and any(a.name.split(".")[0] == "onnx" for a in node.names)
               or isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "onnx"
               for node in ast.walk(tree)):
        return []  # not an ONNX test: ir_version there is OpenVINO's
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "onnx":
            found += [f"{where}:{node.lineno}: imports {a.name} from {node.module}"
                      for a in node.names if a.name in _MAKERS]
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
        found += [f"{where}:{node.lineno}: sets ir_version" for t in targets
                  if isinstance(t, ast.Attribute) and t.attr == "ir_version"]
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            is_ours = isinstance(node.func, ast.Name) and name == "make_model"  # tests.onnx.models.make_model
            if name in _MAKERS and not is_ours:
                found.append(f"{where}:{node.lineno}: calls {ast.unparse(node.func)}")
            found += [f"{where}:{node.lineno}: passes ir_version to {ast.unparse(node.func)}"
                      for kw in node.keywords if kw.arg == "ir_version"]
    return found


def test_no_test_module_sets_the_onnx_ir_version_by_hand() -> None:
    """Models are built by tests.onnx.models.make_model only: no ``helper.make_model``, no ``ir_version =``."""
    offences = [line for path in sorted(TESTS.rglob("*.py")) if path != HOME for line in _offences(path)]
    assert not offences, "build ONNX models with tests.onnx.models.make_model:\n" + "\n".join(offences)


def test_the_guard_sees_what_it_forbids(tmp_path: Path) -> None:
    bad = tmp_path / "test_bad.py"
    bad.write_text("from onnx import helper\nm = helper.make_model(g)\nm.ir_version = 7\n"
                   "n = helper.make_model(g, ir_version=9)\nfrom onnx.helper import make_model\n")
    assert sorted(line.split(": ", 1)[1] for line in _offences(bad)) == sorted([
        "calls helper.make_model", "sets ir_version", "calls helper.make_model",
        "passes ir_version to helper.make_model", "imports make_model from onnx.helper"])
    good = tmp_path / "test_good.py"
    good.write_text("import onnx\nfrom tests.onnx.models import make_model\nm = make_model(g, 17)\n")
    assert _offences(good) == []


def test_the_ir_version_goes_with_the_onnxruntime_floor() -> None:
    """IR_VERSION (10) is one every admitted onnxruntime reads: pyproject.toml's floor, 1.29, reads up to IR 13 (IR 10
    since onnxruntime 1.20). The floor moving is when to look at it again."""
    text = (ROOT / "pyproject.toml").read_text()
    floors = set(re.findall(r'"onnxruntime(?:\[\w+\])?>=([0-9.]+)', text))
    assert floors == {"1.29"}, f"onnxruntime's floor moved to {floors}: check that it reads IR_VERSION"
    assert IR_VERSION == 10 and MAX_OPSET >= 22


@pytest.mark.parametrize("opset", [11, 17, MAX_OPSET])
def test_the_installed_onnxruntime_runs_a_model_at_that_ir_version(opset: int) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    model = make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y]), opset)
    assert model.ir_version == IR_VERSION
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = np.array([[-1, 0, 2], [3, -4, 5]], np.float32)
    np.testing.assert_array_equal(session.run(None, {"x": feed})[0], np.maximum(feed, 0))
    with pytest.raises(ValueError, match="raise IR_VERSION"):
        make_model(helper.make_graph([], "g", [], []), MAX_OPSET + 1)
