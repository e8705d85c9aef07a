"""The dims of layers our rules do not re-infer (an op without a rule, a rule answering None) after a change: a pass's
gate (``Pass.run``) never asks OpenVINO and leaves them as declared; ``ir-tools transform`` refreshes them from
OpenVINO's inference of the graph before it writes, and ``shapes --fix`` and ``ir_tools.fix_shapes`` write them and
re-infer what follows to a fixed point, so that ``check`` accepts what they write (QA finding F01: transform wrote
files check rejected, shapes --fix refused them with 76 errors where check listed 7). Inverse-14 stands for an op
without a rule of ours: ir_tools' own spec of it is set aside for each test (``unmodelled_inverse``)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools import Dim, GraphBuilder, Pass, TensorType
from ir_tools.base.dims import DYNAMIC
from ir_tools.cli import main
from ir_tools.ops.inverse import INVERSE_14
from ir_tools.ops.spec import OpSpec
from tests.conftest import ROOT, SAMPLES

TINY_LLAMA = ROOT / "tests" / "data" / "target" / "tiny_llama_stateful_f16.xml"
HERE = Path(__file__)


@pytest.fixture(autouse=True)
def unmodelled_inverse(set_aside: Callable[[OpSpec], None]) -> None:
    """ir_tools' Inverse-14 set aside: it stands for an op without a rule of ours."""
    set_aside(INVERSE_14)


class StaticInputs(Pass):
    """Every model input made static, as ``ov.Model.reshape`` is used for: batch 1, any other dynamic dim 16."""

    def apply(self, graph: ir_tools.Graph) -> bool:
        for p in graph.parameters():
            dims = p.attrs["shape"].split(",")
            p.attrs["shape"] = ",".join("1" if i == 0 else "16" if d.strip() in ("?", "-1") else d
                                        for i, d in enumerate(dims))
            graph.touch(p.id)
        return True


class AddInverse(Pass):
    """Adds inv(2*I) as a new output: Inverse-14 has no rule of ours, and its dims are declared wrong ([5,7])."""

    def apply(self, graph: ir_tools.Graph) -> bool:
        b = GraphBuilder(graph)
        m = b.const(np.eye(4, dtype=np.float32) * 2, "m")
        inv = b.add("Inverse", "opset14", {"adjoint": "false"}, [m], "inv",
                    outputs=[TensorType("f32", (Dim(5, 5), Dim(7, 7)))])
        b.result(inv, "inv/sink")
        return True


def errors(path: Path) -> list[str]:
    return [d.render() for d in ir_tools.check(path) if d.severity == "error"]


def inverted(tmp_path: Path) -> Path:
    """x [?,4,4] -> Inverse-14 (no rule of ours: OpenVINO infers its dims) -> Multiply, ReLU -> y."""
    graph = ir_tools.Graph("inverted")
    b = GraphBuilder(graph)
    x = b.parameter("x", "f32", (DYNAMIC, Dim(4, 4), Dim(4, 4)))
    inverse = b.add("Inverse", "opset14", {"adjoint": "false"}, [x], "inverse",
                    outputs=[TensorType("f32", (DYNAMIC, Dim(4, 4), Dim(4, 4)))])
    scaled = b.add("Multiply", "opset1", b.attrs("Multiply", "opset1"), [inverse, b.const(np.float32(2.0), "two")],
                   "scaled")
    b.result(b.output(b.add("ReLU", "opset1", b.attrs("ReLU", "opset1"), [scaled], "y")), "y/sink")
    path = tmp_path / "inverted.xml"
    ir_tools.write_ir(graph, path)
    return path


def stale_model(tmp_path: Path) -> Path:
    """``inverted`` made static through the library's gate alone, written as it leaves it: the Inverse keeps its
    dynamic declared dims, and so do the layers after it, which our rules infer from those."""
    graph = ir_tools.read_ir(inverted(tmp_path))
    StaticInputs().run(graph)  # the gate of the library, without OpenVINO, accepts it
    path = tmp_path / "stale.xml"
    ir_tools.write_ir(graph, path)
    return path


@pytest.mark.openvino
def test_transform_refreshes_the_dims_of_a_layer_without_a_rule_it_adds(tmp_path: Path) -> None:
    out = tmp_path / "out.xml"
    assert main(["transform", str(SAMPLES / "mixed_network.xml"), "--pass", f"{HERE}:AddInverse", "-o", str(out),
                 "-q"]) == 0
    assert errors(out) == []  # E-SHAPE: declared [5,7], OpenVINO infers [4,4]
    inv = next(layer for layer in ir_tools.read_ir(out).layers() if layer.name == "inv")
    assert inv.outputs[0].dims == (4, 4)


@pytest.mark.openvino
def test_transform_making_a_stateful_llama_static_writes_what_check_accepts(tmp_path: Path, capsys) -> None:
    assert errors(TINY_LLAMA) == []
    out = tmp_path / "static.xml"
    assert main(["transform", str(TINY_LLAMA), "--pass", f"{HERE}:StaticInputs", "-o", str(out), "-q"]) == 0
    assert errors(out) == []  # (our rules, OpenVINO's bounds among them, re-infer every port of it)
    assert main(["shapes", str(out), "--fix", "-o", str(tmp_path / "again.xml"), "-q"]) == 0
    assert "nothing to fix" in capsys.readouterr().out


@pytest.mark.openvino
def test_shapes_fix_reaches_a_fixed_point_and_fix_shapes_writes_the_same(tmp_path: Path, capsys) -> None:
    stale = stale_model(tmp_path)
    found = errors(stale)
    assert len(found) == 1 and "OpenVINO infers [1,4,4]" in found[0], found
    fixed = tmp_path / "cli.xml"
    # (it wrote OpenVINO's dims into the Inverse's port, then refused the ports after it it left stale)
    assert main(["shapes", str(stale), "--fix", "-o", str(fixed)]) == 0
    assert re.search(r"wrote .*cli\.xml: \d+ port\(s\) corrected", capsys.readouterr().out)
    assert errors(fixed) == []

    graph = ir_tools.read_ir(stale)
    corrected = ir_tools.fix_shapes(graph)  # corrected 0 ports: it never asked OpenVINO
    ir_tools.write_ir(graph, tmp_path / "api.xml")
    # (the Inverse's output, then the input and output ports of the Multiply and ReLU and the Result's)
    assert corrected == 6 and (tmp_path / "api.xml").read_bytes() == fixed.read_bytes()
    graph = ir_tools.read_ir(stale)
    assert ir_tools.fix_shapes(graph, openvino=False) == 0  # --no-openvino: declared dims trusted, as check trusts them
    assert main(["shapes", "--no-openvino", str(stale), "--fix", "-o", str(tmp_path / "none.xml"), "-q"]) == 0
    assert not (tmp_path / "none.xml").exists()


def test_the_gate_of_a_pass_asks_no_openvino(tmp_path: Path) -> None:
    """The fast tier: Pass.run re-infers with our rules alone, in a process where OpenVINO cannot be imported, and
    leaves what only OpenVINO infers as declared (what check then compares with OpenVINO's inference)."""
    code = f"""
import sys
sys.modules["openvino"] = None  # any import of it fails
sys.path.insert(0, {str(ROOT)!r})
import ir_tools
from ir_tools.ops import opsets
from ir_tools.ops.inverse import INVERSE_14
from tests.passes.test_unmodelled_dims import StaticInputs
opsets._RANGES = tuple(r for r in opsets._RANGES if r[0] is not INVERSE_14)  # (``set_aside``, in this process)
opsets._build()
graph = ir_tools.read_valid({str(inverted(tmp_path))!r})
assert StaticInputs().run(graph).modified
inverse, y = (next(layer for layer in graph.layers() if layer.name == name) for name in ("inverse", "y"))
print(inverse.outputs[0].dims, y.outputs[0].dims, ir_tools.fix_shapes(graph, openvino=False))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["(-1,", "4,", "4)", "(-1,", "4,", "4)", "0"]


def test_shapes_fix_refusing_counts_what_check_counts(tmp_path: Path, capsys) -> None:
    """A corrected model check would refuse is not written; the count said is check's (the input's), and the errors
    of the corrected model are said to be its own (the count was the corrected model's, claimed to be check's)."""
    g = ir_tools.Graph("m")
    b = GraphBuilder(g)
    x = b.parameter("x", "f32", (Dim(1, 1), Dim(3, 3), Dim(32, 32), Dim(32, 32)))
    huge = b.const(np.array([2**40, 2**40], np.int64), "size")  # 3 * 2**80 elements: more than int64 counts
    declared = [TensorType("f32", (Dim(1, 1), Dim(3, 3), Dim(16, 16), Dim(16, 16)))]
    pool = b.add("AdaptiveAvgPool", "opset8", None, [x, huge], "pool", outputs=declared)
    b.result(pool, "pool/sink")
    relu = b.add("ReLU", "opset1", None, [x], "relu", outputs=declared)  # declared [1,3,16,16], inferred [1,3,32,32]
    b.result(relu, "relu/sink")
    path = tmp_path / "m.xml"
    ir_tools.write_ir(g, path)
    assert main(["check", "--no-openvino", str(path)]) == 1
    counted = re.search(r"m\.xml: (\d+) error\(s\), (\d+) warning\(s\)", capsys.readouterr().out)
    assert counted[1] == "2"  # E-SHAPE at the pool and at the ReLU
    assert main(["shapes", "--no-openvino", str(path), "--fix", "-o", str(tmp_path / "out.xml")]) == 1
    out = capsys.readouterr().out
    assert f"m.xml: {counted[1]} error(s), {counted[2]} warning(s) (`ir-tools check` lists the same)" in out, out
    assert "error[E-SIZE]" in out and "the model corrected would have the 1 error(s) just above: not written" in out
    assert not (tmp_path / "out.xml").exists()


@pytest.mark.openvino
def test_shapes_fix_asks_openvino_once_our_rules_leave_the_model_clean(tmp_path: Path) -> None:
    """check hands a file to OpenVINO only when our checks find it clean, so on a file with an error of ours it says
    nothing of a layer without a rule of ours; shapes --fix then corrects ours, and asks OpenVINO of the model
    corrected (it wrote ours alone, and check of what it wrote found the Inverse's dims)."""
    graph = ir_tools.read_ir(SAMPLES / "wrong_dims.xml")
    AddInverse().apply(graph)  # (no gate: the file is wrong already)
    path = tmp_path / "m.xml"
    ir_tools.write_ir(graph, path)
    assert errors(path) and not any("OpenVINO infers" in e for e in errors(path))
    fixed = tmp_path / "fixed.xml"
    assert main(["shapes", str(path), "--fix", "-o", str(fixed), "-q"]) == 0
    assert errors(fixed) == []  # E-SHAPE: layer 'inv': declared [5,7], OpenVINO infers [4,4]
    graph = ir_tools.read_ir(path)
    assert ir_tools.fix_shapes(graph) > 0
    ir_tools.write_ir(graph, tmp_path / "api.xml")
    assert (tmp_path / "api.xml").read_bytes() == fixed.read_bytes()


class DataOfI32(Pass):
    """The data of the Inverse made i32 (the Parameter's type and every port's precision): no rule of ours judges it,
    OpenVINO refuses (Inverse takes floats only)."""

    def apply(self, graph: ir_tools.Graph) -> bool:
        (x,) = graph.parameters()
        x.attrs["element_type"] = "i32"
        for layer in graph.layers():
            for port in (*layer.inputs, *layer.outputs):
                port.precision = "I32"
            graph.touch(layer.id)
        return True


@pytest.mark.openvino
def test_transform_writes_nothing_openvino_refuses_and_reads_as_check(tmp_path: Path, capsys) -> None:
    from tests.test_openvino_verdict import declared_wrong, unmodelled_model

    model = unmodelled_model(tmp_path / "m.xml")
    out = tmp_path / "out.xml"
    assert main(["transform", str(model), "--pass", f"{HERE}:DataOfI32", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "error[E-PASS]: OpenVINO refuses the graph DataOfI32 left" in err and "error[E-OPENVINO]" in err
    assert not out.exists()  # written with exit 0: check then said E-OPENVINO
    stale = tmp_path / "stale.xml"  # its dims declared wrong: check finds it by OpenVINO's inference
    stale.write_text(declared_wrong(model.read_text()))
    assert main(["check", str(stale), "-q"]) == 1
    assert main(["transform", str(stale), "--pass", f"{HERE}:StaticInputs", "-o", str(out)]) == 1
    assert "OpenVINO infers [1,4,4]" in capsys.readouterr().err and not out.exists()
