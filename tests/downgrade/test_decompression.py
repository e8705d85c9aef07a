"""``migrate --target`` on NNCF's compressed weights: the current OpenVINO CPU computes their f16 decompression
(integer weights converted to f16, less a zero point, times an f16 scale) in f32; OpenVINO 2023.0 folds it in f16, as
the file says. Migrated for a release before 2024.1 the chain is written in f32, and 2023.0 computes the current
OpenVINO's numbers on the original."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from ir_tools.ops.releases import release
from tests.downgrade.runs import NEEDS_2023, migrate, migrated_runs
from tests.test_target import side_pythons

if TYPE_CHECKING:
    import openvino as ov

pytestmark = NEEDS_2023


def _compressed_model(path: Path, rng: np.random.Generator) -> None:
    """x [2, 64] times two weights as NNCF compresses them: u8 per row (a zero point, a scale) and u4 in groups of
    16 (a zero point and a scale per group, then a Reshape); seeded scales whose f16 products round."""
    import openvino as ov
    from openvino import opset8 as ops

    def const(element: str, values: np.ndarray) -> ov.Node:
        return ov.op.Constant(getattr(ov.Type, element), ov.Shape(list(values.shape)), values.ravel().tolist())

    def decompressed(element: str, shape: list[int], high: int) -> ov.Node:
        q = ops.convert(const(element, rng.integers(0, high, shape)), "f16")
        zero = ops.convert(const(element, rng.integers(0, high, [*shape[:-1], 1])), "f16")
        scale = ops.constant(rng.uniform(1e-3, 5e-2, [*shape[:-1], 1]).astype(np.float16))
        return ops.multiply(ops.subtract(q, zero), scale)

    x = ops.parameter([2, 64], np.float32, name="x")
    rows = ops.convert(decompressed("u8", [32, 64], 256), "f32")
    groups = ops.reshape(decompressed("u4", [32, 4, 16], 16), ops.constant(np.array([32, 64], np.int64)), False)
    y8 = ops.matmul(x, rows, False, True)
    y4 = ops.matmul(x, ops.convert(groups, "f32"), False, True)
    y8.output(0).set_names({"y8"})
    y4.output(0).set_names({"y4"})
    ov.save_model(ov.Model([y8, y4], [x], "compressed"), str(path), compress_to_fp16=False)


def test_f16_decompression_computed_in_f32_for_releases_before_2025(tmp_path: Path, capsys) -> None:
    """On 2023.0 the original differs from the current OpenVINO by more than 1e-4 of max|output| (its f16 rounding of
    the weights); the migrated file, with the same weights bytes, by less than 1e-6 (f32 rounding of the MatMul)."""
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    assert [release(r).decompresses_in_f16 for r in ("2021.4", "2023.0", "2024.0", "2024.1", "2025.0", "opset13")] == [
        True, True, True, False, False, False]
    model = tmp_path / "compressed.xml"
    _compressed_model(model, np.random.default_rng(7))
    graph = ir_tools.read_valid(model)
    inputs = {"x": np.random.default_rng(8).standard_normal((2, 64)).astype(np.float32)}
    want = OpenVinoRunner(graph, ModelFiles(model, model.with_suffix(".bin"))).run(inputs)
    before = ChildOpenVinoRunner(side_pythons()["2023.0"], graph, ModelFiles(model, model.with_suffix(".bin")))
    # check --target names each chain's Convert (its layer), for the releases that may fold it in f16 only
    for target, chains in (("2023.0", 2), ("2024.0", 2), ("2025.0", 0)):
        found = [d for d in ir_tools.check(model, openvino=False, target=target)
                 if d.code == "E-TARGET" and "Const" not in d.message]  # (its u4 Consts: test_packed_order)
        assert len(found) == chains and all("f16 weight decompression" in d.message and "computes the chain as the "
                                            "current OpenVINO does" in d.message and d.loc.layer_id for d in found), (
            target, found)
    out, printed = migrate(model, capsys)  # (which checks the written file --target 2023.0: no E-TARGET left)
    assert "rewrote 2 x f16 weight decompression -> f32" in printed
    assert out.with_suffix(".bin").stat().st_size == model.with_suffix(".bin").stat().st_size
    after = ChildOpenVinoRunner(side_pythons()["2023.0"], ir_tools.read_valid(out),
                                ModelFiles(out, out.with_suffix(".bin")))
    old, new = before.run(inputs), after.run(inputs)
    for name in ("y8", "y4"):
        scale = float(np.abs(want[name]).max())
        assert float(np.abs(old[name] - want[name]).max()) > 1e-4 * scale, name
        assert float(np.abs(new[name] - want[name]).max()) < 1e-6 * scale, name
    assert main(["migrate", str(model), "--target", "2025.0", "--dry-run"]) == 0
    assert "nothing to migrate" in capsys.readouterr().out


#: Run by a release's Python on a model file: the element types of the weights its CPU plugin's FullyConnected
#: layers read, sorted.
_COMPILED_WEIGHTS = """
import json, sys
from openvino.runtime import Core
model = Core().compile_model(sys.argv[1], "CPU", {"INFERENCE_PRECISION_HINT": "f32"}).get_runtime_model()
print(json.dumps(sorted(op.input(1).get_element_type().get_type_name() for op in model.get_ordered_ops()
                        if op.get_rt_info()["layerType"].astype(str) == "FullyConnected")))
"""


@pytest.mark.skipif("2024.0" not in side_pythons(), reason="no OpenVINO 2024.0: set IR_TOOLS_RELEASE_PYTHONS")
def test_the_f32_chain_keeps_the_weights_compressed_on_2024(tmp_path: Path, capsys) -> None:
    """2024.0 compiles a chain its decompression pattern matches (the integer weights converted to a float, less a zero
    point, times a scale) into a FullyConnected that reads the integer weights, as the current OpenVINO does. The f32
    chain migrate writes must stay such a chain: a Convert to f32 between the Subtract and the Multiply, say, makes
    2024.0 fold the weights into f32 ones (measured: both FullyConnected layers then read f32), 8 times the memory of
    u4 ones."""
    model = tmp_path / "compressed.xml"
    _compressed_model(model, np.random.default_rng(7))
    out, printed = migrate(model, capsys, target="2024.0")
    assert "rewrote 2 x f16 weight decompression -> f32" in printed
    probe = subprocess.run([side_pythons()["2024.0"], "-c", _COMPILED_WEIGHTS, str(out)], capture_output=True,
                           text=True, check=True)
    assert json.loads(probe.stdout.splitlines()[-1]) == ["u4", "u8"]


def _chain(rng: np.random.Generator, name: str) -> ov.Node:
    """An NNCF u8 decompression chain of seeded weights [64, 32], a zero point and an f16 scale per row, ending in a
    Convert to f32 named ``name``."""
    from openvino import opset8 as ops

    q = ops.convert(ops.constant(rng.integers(0, 256, [64, 32]).astype(np.uint8)), "f16")
    zero = ops.convert(ops.constant(rng.integers(0, 256, [64, 1]).astype(np.uint8)), "f16")
    scale = ops.constant(rng.uniform(1e-3, 5e-2, [64, 1]).astype(np.float16))
    return ops.convert(ops.multiply(ops.subtract(q, zero), scale), "f32", name=name)


def _tied_model(path: Path, rng: np.random.Generator) -> None:
    """Three chains of u8 weights [64, 32] (a zero point and an f16 scale per row), each ending in a Convert to f32:
    ``marked`` read by a Gather (as an embedding), a MatMul (as a tied head) and a ShapeOf whose dim reshapes the
    MatMul's input (as OPT's embeddings are); ``no_gather`` read by a MatMul and an Add; ``plain`` read by a Gather, a
    MatMul and an Add. The first two Converts are decompression layers (rt_info, as OpenVINO's reader reads it)."""
    import openvino as ov
    from openvino import opset8 as ops

    ids = ops.parameter([-1, -1], np.int64, name="ids")
    x = ops.parameter([-1, -1, 32], np.float32, name="x")
    axis0 = ops.constant(np.array(0, np.int64))
    marked, no_gather, plain = (_chain(rng, name) for name in ("marked", "no_gather", "plain"))
    width = ops.gather(ops.shape_of(marked), ops.constant(np.array([1], np.int64)), axis0)
    flat = ops.reshape(x, ops.concat([ops.constant(np.array([0, -1], np.int64)), width], 0), True)
    outputs = {"marked_gather": ops.gather(marked, ids, axis0), "marked_matmul": ops.matmul(flat, marked, False, True),
               "no_gather_matmul": ops.matmul(x, no_gather, False, True),
               "no_gather_add": ops.add(no_gather, ops.constant(np.float32(1))),
               "plain_gather": ops.gather(plain, ids, axis0), "plain_matmul": ops.matmul(x, plain, False, True),
               "plain_add": ops.add(plain, ops.constant(np.float32(1)))}
    for name, node in outputs.items():
        node.output(0).set_names({name})
    ov.save_model(ov.Model(list(outputs.values()), [ids, x], "tied"), str(path), compress_to_fp16=False)
    text, marks = re.subn(r'(name="(?:marked|no_gather)" type="Convert" version="opset1">\s*<data [^>]*/>)',
                          r'\1<rt_info><attribute name="decompression" version="0" /></rt_info>', path.read_text())
    assert marks == 2
    path.write_text(text)


@pytest.mark.parametrize("target", ["2023.0", "2024.1", "2025.0"])
def test_each_reader_of_a_chain_computed_as_the_current_openvino_computes_it(target: str, tmp_path: Path,
                                                                              capsys) -> None:
    """The current OpenVINO CPU computes a decompression chain's Gathers in f32, and its MatMuls too where only
    MatMuls and Gathers read it; where the Convert ending it is a decompression layer and another layer reads it (a
    ShapeOf, an Add), it computes every reader but the Gathers from the f16 product. 2023.0 folds every reader in
    f16, 2024.1 and 2025.0 compute every one in f32. Migrated, the marked chain's Gather reads an f32 copy (before
    2024.1), the f16 readers read the chain rounded to f16 and back (2024.1, 2025.0), the plain chain is all f32
    (before 2024.1): the
    target and the current OpenVINO compute the current OpenVINO's numbers on the original (the f16 and f32 products
    of these weights differ by up to 1e-3 of their largest)."""
    if target not in side_pythons():
        pytest.skip(f"no OpenVINO {target}: set IR_TOOLS_RELEASE_PYTHONS")
    model = tmp_path / "tied.xml"
    _tied_model(model, np.random.default_rng(11))
    found = [d for d in ir_tools.check(model, openvino=False, target=target)
             if d.code == "E-TARGET" and "f16 weight decompression" in d.message]
    in_f32, widened = target == "2023.0", target != "2023.0"  # (2023.0 folds every reader as the file says)
    assert sorted(d.loc.layer_name for d in found) == sorted(
        ["marked", "no_gather"] * widened + ["marked", "plain"] * in_f32)
    out, printed = migrate(model, capsys, target)
    assert ("rewrote 2 x f16 weight decompression read in f16 -> rounded by Convert-1" in printed) == widened
    assert ("rewrote 2 x f16 weight decompression -> f32" in printed) == in_f32
    assert out.with_suffix(".bin").stat().st_size == model.with_suffix(".bin").stat().st_size
    rng = np.random.default_rng(12)
    inputs = {"ids": rng.integers(0, 64, (2, 5)), "x": rng.standard_normal((2, 5, 32)).astype(np.float32)}
    want, runs = migrated_runs(model, out, inputs, (target,))
    for runner, got in runs.items():
        for name, value in want.items():
            if name.endswith("_matmul"):  # (the MatMul's sums: f32 rounding of other kernels)
                assert float(np.abs(got[name] - value).max()) < 1e-6 * float(np.abs(value).max()), (runner, name)
            else:
                np.testing.assert_array_equal(got[name], value, err_msg=f"{runner}: {name}")


def _transposed_model(path: Path, rng: np.random.Generator) -> None:
    """Two marked u8 chains [64, 32] (as ``_tied_model``'s), each read by a Transpose [1, 0] that feeds a MatMul:
    ``folded``'s Transpose is read by the MatMul alone (the CPU folds it into the MatMul's transpose flag:
    ``TransposeMatMul``), ``shared``'s by the MatMul and a model output (so it stays a reader of the chain)."""
    import openvino as ov
    from openvino import opset8 as ops

    x = ops.parameter([-1, -1, 32], np.float32, name="x")
    swap = ops.constant(np.array([1, 0], np.int64))
    folded, shared = ops.transpose(_chain(rng, "folded"), swap), ops.transpose(_chain(rng, "shared"), swap)
    outputs = {"folded_matmul": ops.matmul(x, folded, False, False),
               "shared_matmul": ops.matmul(x, shared, False, False), "shared_transpose": shared}
    for name, node in outputs.items():
        node.output(0).set_names({name})
    ov.save_model(ov.Model(list(outputs.values()), [x], "transposed"), str(path), compress_to_fp16=False)
    text, marks = re.subn(r'(name="(?:folded|shared)" type="Convert" version="opset1">\s*<data [^>]*/>)',
                          r'\1<rt_info><attribute name="decompression" version="0" /></rt_info>', path.read_text())
    assert marks == 2
    path.write_text(text)


@pytest.mark.parametrize("target", ["2023.0", "2024.1", "2025.0"])
def test_a_transpose_folded_into_its_matmul_reads_as_the_matmul(target: str, tmp_path: Path, capsys) -> None:
    """The current OpenVINO CPU folds a Transpose of the last two axes into the MatMuls that alone read it before it
    looks at a chain's readers: ``folded``'s MatMul reads the f32 product (as one reading the chain itself), where
    ``shared``'s Transpose, also an output, makes the chain's readers f16 ones (measured on 2026.4). So 2023.0, which
    folds every reader in f16, gets ``folded`` made f32 and ``shared`` as it is; 2024.1 and 2025.0, which compute every
    reader in f32, get ``shared`` rounded to f16 and ``folded`` as it is; each computes the current OpenVINO's
    numbers on the original. (Taking the Transpose for an f16 reader, migrate refused ``folded`` for 2024.1 and 2025.0,
    which run it right, and left it for 2023.0, 3.4e-4 of the largest away.)"""
    if target not in side_pythons():
        pytest.skip(f"no OpenVINO {target}: set IR_TOOLS_RELEASE_PYTHONS")
    model = tmp_path / "transposed.xml"
    _transposed_model(model, np.random.default_rng(13))
    found = [d.loc.layer_name for d in ir_tools.check(model, openvino=False, target=target)
             if d.code == "E-TARGET" and "f16 weight decompression" in d.message]
    assert found == (["folded"] if target == "2023.0" else ["shared"])
    out, printed = migrate(model, capsys, target)
    assert ("rewrote 1 x f16 weight decompression -> f32" in printed) == (target == "2023.0")
    assert ("rewrote 1 x f16 weight decompression read in f16 -> rounded by Convert-1" in printed) == (
        target != "2023.0")
    inputs = {"x": np.random.default_rng(14).standard_normal((2, 5, 32)).astype(np.float32)}
    want, runs = migrated_runs(model, out, inputs, (target,))
    for runner, got in runs.items():
        for name, value in want.items():  # (the MatMuls' sums: f32 rounding of other kernels; the f16 and f32
            # products of these weights differ by up to 1e-3 of their largest)
            assert float(np.abs(got[name] - value).max()) <= 1e-6 * float(np.abs(value).max()), (runner, name)
