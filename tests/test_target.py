"""``check --target RELEASE`` and the table of releases behind it (ir_tools/ops/openvino_releases.json).

The table's facts are held here against what the releases themselves answered when measured; with older releases
installed in side virtual environments (``IR_TOOLS_RELEASE_PYTHONS="2023.0=/venv/bin/python,..."``), every sample
and every file of tests/data/networks' IR fixtures is read by each release, and ``check --target`` must say
"no E-TARGET" exactly where that release reads the file.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.base.errors import IrToolsError
from ir_tools.cli import main
from ir_tools.ops.releases import oldest_creating, release, releases
from tests.conftest import SAMPLES
from tests.ops.control_flow_cases import if_of
from tests.target_zoo import side_pythons

FLOOR = {"rounding_type": "floor"}
CEIL_TORCH = {"rounding_type": "ceil_torch"}


def test_the_table_knows_when_each_op_version_came() -> None:
    assert list(releases())[:5] == ["2021.4", "2022.1", "2022.2", "2022.3", "2023.0"]
    assert oldest_creating("MaxPool", "opset14", FLOOR) == "2024.0"
    assert oldest_creating("MaxPool", "opset14", CEIL_TORCH) == "2024.1"  # 2024.0 refuses the value
    assert oldest_creating("ScaledDotProductAttention", "opset13", {}) == "2023.3"  # opset13 came in 2023.2 without it
    assert oldest_creating("Pad", "opset12", {}) == "2023.1"
    assert oldest_creating("MaxPool", "opset8", {}) == "2022.1"
    assert oldest_creating("ReLU", "opset1", {}) == "2021.4"  # the reader's spelling rule: any case
    assert oldest_creating("NoSuchOp", "opset1", {}) is None
    assert release("2023.0.2") is release("2023.0")
    assert release("2021.4").ir_versions == (10,) and 11 in release("2022.1").ir_versions
    # two layers of the same name: "Invalid IR! same name is not unique!" up to 2024.0, read from 2024.1 on (v10, v11)
    assert release("2023.0").reads_duplicate_layer_names == frozenset() == release("2024.0").reads_duplicate_layer_names
    assert release("2025.0").reads_duplicate_layer_names == {10, 11}
    assert next(r.name for r in releases().values() if r.reads_duplicate_layer_names == {10, 11}) == "2024.1"
    assert release("opset8").reads_duplicate_layer_names == release("2026.4").reads_duplicate_layer_names
    eight = release("opset8")
    assert eight.creates("MaxPool", "opset8", {}) and not eight.creates("MaxPool", "opset14", FLOOR)
    with pytest.raises(IrToolsError, match="unknown target '1999.1'"):
        release("1999.1")


def test_check_target_names_each_layer_the_release_cannot_create(capsys) -> None:
    model = SAMPLES / "avgpool14_ceil_torch.xml"
    assert main(["check", str(model), "--no-openvino", "--target", "2024.0"]) == 1
    out = capsys.readouterr().out
    assert "avgpool14_ceil_torch.xml:15: error[E-TARGET]: layer 'pool' (id 1, AvgPool@opset14): OpenVINO 2024.0 " \
           "cannot create AvgPool of opset14 with rounding_type=\"ceil_torch\"; the oldest release that creates it " \
           "is 2024.1; `ir-tools migrate` rewrites it into opset8 AvgPool (exactly, on static spatial dims" in out, out
    assert main(["check", str(model), "--no-openvino", "--target", "2024.1"]) == 0
    # an opsetN target is no release: it said "OpenVINO opset8 cannot create ..." (found by a QA run)
    assert main(["check", str(model), "--no-openvino", "--target", "opset8"]) == 1
    out = capsys.readouterr().out
    assert "(id 1, AvgPool@opset14): the target opset8 (opsets 1-8) cannot create AvgPool of opset14" in out, out
    assert "OpenVINO opset" not in out
    capsys.readouterr()
    assert main(["check", str(model), "--no-openvino", "--target", "2023.0", "--format", "json"]) == 1
    (found,) = json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]
    assert (found["code"], found["line"], found["layer_name"]) == ("E-TARGET", 15, "pool")
    assert [d.code for d in ir_tools.check(model, openvino=False, target="2023.0")] == ["E-TARGET"]
    assert main(["check", str(model), "--no-openvino", "--target", "1999.1"]) == 2
    assert "unknown target" in capsys.readouterr().err


@pytest.mark.openvino
def test_random_uniform_of_pytorch_alignment_is_named_where_a_release_draws_tensorflow_s(tmp_path: Path,
                                                                                        capsys) -> None:
    """RandomUniform-8 of alignment "pytorch", seeds fixed: 2023.0 to 2024.2 read the attribute and ignore it, drawing
    the "tensorflow" sequence, and 2024.3 to 2024.6 do not compile it (the release table's values, probed so). check
    --target names the layer for those releases, migrate --target refuses it (no exact form: another generator),
    nothing written; "tensorflow" is created by all. Each release installed draws the two alignments alike exactly
    where the table says it lacks the value, and the current one draws them otherwise."""
    import openvino as ov
    import openvino.opset8 as o8

    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    models = {}
    for alignment in ("tensorflow", "pytorch"):
        bounds = (o8.constant(np.float32(-1)), o8.constant(np.float32(3)))
        drawn = o8.random_uniform(o8.constant(np.array([4, 6], np.int64)), *bounds, "f32", 7, 11, name="noise")
        drawn.set_attribute("alignment", alignment)
        models[alignment] = tmp_path / f"{alignment}.xml"
        ov.save_model(ov.Model([o8.result(drawn, name="y")], [], alignment), str(models[alignment]))
    oldest = oldest_creating("RandomUniform", "opset8", {"alignment": "pytorch"})
    assert oldest is not None and not release("2024.1").creates("RandomUniform", "opset8", {"alignment": "pytorch"})
    assert main(["check", str(models["pytorch"]), "--no-openvino", "--target", "2023.0"]) == 1
    out = capsys.readouterr().out
    assert "layer 'noise' (id 5, RandomUniform@opset8): OpenVINO 2023.0 cannot create RandomUniform of opset8 with " \
           f'alignment="pytorch"; the oldest release that creates it is {oldest}; no exact form of it exists in ' \
           "older ops: it draws PyTorch's sequence of random numbers" in out, out
    assert main(["check", str(models["pytorch"]), "--no-openvino", "--target", oldest]) == 0
    assert main(["check", str(models["tensorflow"]), "--no-openvino", "--target", "2023.0"]) == 0
    out_file = tmp_path / "out.xml"
    assert main(["migrate", str(models["pytorch"]), "--target", "2023.0", "-o", str(out_file)]) == 2
    assert "layer 'noise'" in capsys.readouterr().err and not out_file.exists()

    def draws(runner_of) -> list[np.ndarray]:
        return [next(iter(runner_of(ir_tools.read_valid(m), ModelFiles(m, m.with_suffix(".bin"))).run({}).values()))
                for m in models.values()]

    tensorflow, pytorch = draws(OpenVinoRunner)
    assert not np.array_equal(tensorflow, pytorch)
    for name, python in side_pythons().items():
        lacks = not release(name).creates("RandomUniform", "opset8", {"alignment": "pytorch"})
        try:
            tensorflow, pytorch = draws(lambda graph, files: ChildOpenVinoRunner(python, graph, files))  # noqa: B023
        except IrToolsError as refused:  # (2024.3 to 2024.6: "Only TENSORFLOW alignment mode is supported")
            assert lacks and "TENSORFLOW alignment" in refused.message, (name, refused.message)
            continue
        assert np.array_equal(tensorflow, pytorch) == lacks, name


READS = """
import sys
try:
    import openvino as ov
    ov.Core
except (ImportError, AttributeError):
    import openvino.runtime as ov
for path in sys.argv[1:]:
    try:
        ov.Core().read_model(path)
        print("reads")
    except Exception:
        print("refuses")
"""


@pytest.mark.openvino
@pytest.mark.skipif(not side_pythons(), reason="no older OpenVINO: set IR_TOOLS_RELEASE_PYTHONS=2023.0=/venv/python")
def test_check_target_agrees_with_each_release_installed(tmp_path: Path) -> None:
    """The clean samples as they are and migrated (opset8 AvgPool), in IR v11 and v10."""
    models = [m for m in sorted(SAMPLES.glob("*.xml"))
              if not [d for d in ir_tools.check(m, openvino=False) if d.severity == "error"]]
    for model in list(models):
        graph = ir_tools.read_valid(model)
        ir_tools.migrate(graph)
        for version in (10, 11):
            ir_tools.write_ir(graph, tmp_path / f"{model.stem}_v{version}.xml", ir_version=version)
            models.append(tmp_path / f"{model.stem}_v{version}.xml")
    assert len(models) >= 20
    _named_exactly_when_refused(models)


def _named_exactly_when_refused(models: list[Path]) -> None:
    """Each model has an E-TARGET for each installed release exactly when that release refuses to read it (a measured
    defect aside: that names a layer the release reads, and compiles or computes wrongly)."""
    for name, python in side_pythons().items():
        answers = subprocess.run([python, "-c", READS, *map(str, models)], capture_output=True, text=True,
                                 timeout=600, check=True).stdout.split()
        for model, answer in zip(models, answers, strict=True):
            refused = [d for d in ir_tools.check(model, openvino=False, target=name) if d.code == "E-TARGET"
                       and "(measured)" not in d.message]
            assert (answer == "reads") == (not refused), (name, model.name, answer, refused)


def _interface_models(folder: Path) -> list[Path]:
    """Models a release may refuse for what their top level's op versions do not show: a dim of 0 at a model input,
    at an output and (read by all) inside; a Parameter, and a Convert, of each element type some release cannot
    read; an op version it cannot create inside an If's and a Loop's body."""
    import openvino as ov
    import openvino.opset8 as o
    import openvino.opset13 as o13
    import openvino.opset16 as o16

    def empty(x: ov.Node) -> ov.Node:
        return o.slice(x, *(o.constant(np.array([v], np.int64)) for v in (0, 0, 1)))

    x = o.parameter([2, 3], np.float32, name="x")
    models = {"zero_inside": ov.Model([o.concat([x, o.relu(empty(x))], 0)], [x]),
              "zero_output": ov.Model([empty(x)], [x])}
    zero = o.parameter([0, 3], np.float32, name="zero")
    models["zero_input"] = ov.Model([o.reduce_sum(zero, o.constant(np.array([0], np.int64)))], [zero])
    for element in ("nf4", "f8e4m3", "f8e5m2", "f4e2m1", "string"):
        typed = o.parameter([2, 4], getattr(ov.Type, element), name="typed")
        models[f"parameter_{element}"] = ov.Model([o.convert(typed, "f32") if element != "string" else typed],
                                                  [typed])
        if element != "string":
            models[f"convert_{element}"] = ov.Model([o.convert(o.convert(x, getattr(ov.Type, element)), "f32")], [x])
    q = o.parameter([1, 2, 4, 8], np.float32, name="q")
    cond = o.parameter([], np.bool_, name="cond")
    inner = o.parameter([1, 2, 4, 8], np.float32)
    then = ov.Model([o.result(o13.scaled_dot_product_attention(inner, inner, inner, causal=True))], [inner])
    other = o.parameter([1, 2, 4, 8], np.float32)
    models["if_sdpa13"] = ov.Model([o.result(if_of(cond.output(0), q.output(0), then,
                                                   ov.Model([o.result(o.relu(other))], [other])))], [q, cond])
    count, go = o.constant(np.int64(2)), o.constant(np.bool_(True))
    body_x = o.parameter([2, 3], np.float32)
    body = ov.Model([o.result(o.constant(np.bool_(True))), o.result(o16.identity(body_x))], [body_x])
    loop = o.loop(count, go)
    loop.set_function(body)
    loop.set_special_body_ports([-1, 0])
    loop.set_merged_input(body_x, x.output(0), body.results[1].output(0))
    models["loop_identity16"] = ov.Model([o.result(loop.get_iter_value(body.results[1].output(0), -1))], [x])
    twice = o.relu(x, name="relu")
    twice.output(0).get_tensor().set_names({"x"})
    models["names_twice"] = ov.Model([twice], [x])
    for name, model in models.items():
        ov.save_model(model, folder / f"{name}.xml", compress_to_fp16=False)
    v10 = folder / "names_twice_v10.xml"  # (the input's name on the output too, as IR v10: refused before 2025.1)
    v10.write_text((folder / "names_twice.xml").read_text().replace('version="11"', 'version="10"', 1))
    v10.with_suffix(".bin").write_bytes(b"")
    return [folder / f"{name}.xml" for name in models] + [v10]


@pytest.mark.openvino
@pytest.mark.skipif(not side_pythons(), reason="no older OpenVINO: set IR_TOOLS_RELEASE_PYTHONS=2023.0=/venv/python")
def test_check_target_names_the_inputs_and_outputs_a_release_refuses(tmp_path: Path) -> None:
    """check --target named element types it cannot read on Consts only, not a dim of 0 at a model input or output
    (2023.0 and 2023.1 refuse the file: 'has zero dimension which is not allowed'), and nothing inside a body; found
    by QA runs. Each model is named exactly when the release refuses to read it."""
    models = _interface_models(tmp_path)
    assert len(models) == 16
    _named_exactly_when_refused(models)
    assert "refuses a model input with a dim of 0 ([0,3]: 'has zero dimension which is not allowed'); the oldest " \
           "release that reads it is 2023.2" in str(ir_tools.check(tmp_path / "zero_input.xml", target="2023.0"))
    # 2025.0 reads Identity-16 inside a Loop's body and does not compile it (measured: 'Unsupported operation of type:
    # Identity'), as at the top level: named (migrate --target rewrites it, tests/downgrade/test_in_bodies.py)
    (defect,) = ir_tools.check(tmp_path / "loop_identity16.xml", openvino=False, target="2025.0")
    assert re.fullmatch(r"Loop_\d+/body/Identity_\d+", defect.loc.layer_name or ""), defect
    assert "reads Identity-16 but its CPU plugin does not compile it" in defect.message


def max_pool_14_model(path: Path, rng: np.random.Generator, cases: int) -> Path:
    """Parameters each into one MaxPool-14 (ceil_torch, ceil or floor; pads, dilations, strides drawn), both outputs
    (values and indices) as results."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset14 as o14

    params, results = [], []
    for i in range(cases):
        rank = int(rng.integers(1, 3))
        kernel = [int(k) for k in rng.integers(1, 4, rank)]
        strides = [int(s) for s in rng.integers(1, 4, rank)]
        dilations = [int(d) for d in rng.integers(1, 3, rank)]
        begin = [int(rng.integers(0, k)) for k in kernel]
        end = [int(rng.integers(0, k)) for k in kernel]
        lengths = [int(rng.integers((k - 1) * d + 1, 12)) for k, d in zip(kernel, dilations, strict=True)]
        x = o1.parameter([1, 2, *lengths], np.float32, name=f"x{i}")
        rounding = ("ceil_torch", "ceil_torch", "ceil", "floor")[i % 4]
        pool = o14.max_pool(x, strides, dilations, begin, end, kernel, rounding, "explicit", name=f"pool{i}")
        params.append(x)
        results += [o1.result(pool.output(0), name=f"y{i}"), o1.result(pool.output(1), name=f"i{i}")]
    ov.save_model(ov.Model(results, params, "max_pools"), str(path), compress_to_fp16=False)
    return path


@pytest.mark.openvino
@pytest.mark.skipif("2023.0" not in side_pythons(), reason="no OpenVINO 2023.0: set IR_TOOLS_RELEASE_PYTHONS")
def test_migrate_target_rewrites_max_pool_14_for_2023(tmp_path: Path, capsys) -> None:
    """MaxPool-14 (80 seeded layers, ceil_torch on half) migrated with --target 2023.0: loads on 2023.0, holds no
    E-TARGET, and its values and indices equal the current OpenVINO's on the original, exactly."""
    from ir_tools.runtime.inputs import random_inputs
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    rng = np.random.default_rng(7)
    model = max_pool_14_model(tmp_path / "pools.xml", rng, 80)
    out = tmp_path / "pools_2023.xml"
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out)]) == 0
    assert "rewrote 40 x MaxPool-14 (ceil_torch as floor) -> MaxPool-8" in capsys.readouterr().out
    assert not [d for d in ir_tools.check(out, openvino=False, target="2023.0") if d.severity == "error"]
    graph = ir_tools.read_valid(model)
    before = {layer.name: layer.attrs["pads_end"] for layer in graph.by_type("MaxPool")}
    moved = [lay for lay in ir_tools.read_ir(out).by_type("MaxPool") if lay.attrs["pads_end"] != before[lay.name]]
    assert len(moved) >= 10  # ceil_torch dropping a window: floor with a shorter pads_end (16 with this seed)
    inputs = random_inputs(graph, 0, {})
    want = OpenVinoRunner(graph, ModelFiles(model, model.with_suffix(".bin"))).run(inputs)
    migrated = ir_tools.read_valid(out)
    got = ChildOpenVinoRunner(side_pythons()["2023.0"], migrated, ModelFiles(out, out.with_suffix(".bin"))).run(inputs)
    assert set(got) == set(want) and len(want) == 160
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


@pytest.mark.openvino
@pytest.mark.skipif("2023.0" not in side_pythons(), reason="no OpenVINO 2023.0: set IR_TOOLS_RELEASE_PYTHONS")
def test_migrate_target_respells_scatter_nd_update_15_and_squeeze_15(tmp_path: Path, capsys) -> None:
    """ScatterNDUpdate-15 without a reduction and Squeeze-15 without allow_axis_skip run on 2023.0 as -3 and -1,
    equal to the current OpenVINO on the original (reductions: tests/downgrade/test_scatter.py)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    from ir_tools.runtime.inputs import random_inputs
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    def model(path: Path, reduction: str | None) -> Path:
        x = o1.parameter([4, 1, 3, 1], np.float32, name="x")
        u = o1.parameter([2, 1, 3, 1], np.float32, name="u")
        indices = o1.constant(np.array([[3], [1]], np.int64))
        scattered = o15.scatter_nd_update(x, indices, u, reduction, name="scatter")
        squeezed = o15.squeeze(scattered, o1.constant(np.array([1, 3], np.int64)), name="squeeze")
        ov.save_model(ov.Model([squeezed], [x, u], "respell"), str(path), compress_to_fp16=False)
        return path

    plain = model(tmp_path / "plain.xml", None)
    out = tmp_path / "plain_2023.xml"
    assert main(["migrate", str(plain), "--target", "2023.0", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "rewrote 1 x ScatterNDUpdate-15 (reduction none) -> ScatterNDUpdate-3" in printed
    assert "rewrote 1 x Squeeze-15 (allow_axis_skip false) -> Squeeze-1" in printed
    graph = ir_tools.read_valid(plain)
    inputs = random_inputs(graph, 0, {})
    want = OpenVinoRunner(graph, ModelFiles(plain, plain.with_suffix(".bin"))).run(inputs)
    got = ChildOpenVinoRunner(side_pythons()["2023.0"], ir_tools.read_valid(out),
                              ModelFiles(out, out.with_suffix(".bin"))).run(inputs)
    assert set(got) == set(want) and len(want) == 1
    for name in want:
        np.testing.assert_array_equal(got[name], want[name])



@pytest.mark.openvino
@pytest.mark.skipif("2023.0" not in side_pythons(), reason="no OpenVINO 2023.0: set IR_TOOLS_RELEASE_PYTHONS")
def test_migrate_check_with_runs_the_migrated_model_on_another_release(tmp_path: Path, capsys) -> None:
    """--check-with PYTHON: the migrated model on that interpreter's OpenVINO against ours on the original; written
    only when every output is the same. A model the release refuses (its words), or a Python without OpenVINO, is
    refused with nothing written."""
    python = side_pythons()["2023.0"]
    model = max_pool_14_model(tmp_path / "pools.xml", np.random.default_rng(3), 8)
    out = tmp_path / "pools_2023.xml"
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out), "--check-with", python]) == 0
    printed = capsys.readouterr().out
    assert "check: comparing OpenVINO 2023.0.0" in printed and printed.count(": same (") == 16, printed
    assert out.exists()

    kept = tmp_path / "pools_2025.xml"  # 2025.0 creates MaxPool-14: it stays (only the IR version changes), and
    assert main(["migrate", str(model), "--target", "2025.0", "--ir-version", "10", "-o", str(kept),  # 2023.0
                 "--check-with", python]) == 1  # refuses it
    captured = capsys.readouterr()
    printed = captured.out
    assert re.search(r"OpenVINO 2023\.0\.0\S* of \S+ refuses the migrated model: .*MaxPool.*opset14", printed), printed
    assert not kept.exists()
    # its last line says that it refused the file (it said the model 'does not compute what the original computes'),
    # and that 2023.0 is not the target (a warning first: the check says nothing of 2025.0)
    assert re.search(r"not written: OpenVINO 2023\.0\.0\S* refused to read the migrated model, so nothing was "
                     r"compared \(checked on 2023\.0, not on the target 2025\.0\)\n$", printed), printed
    assert "does not compute" not in printed
    assert re.search(r"warning: --check-with runs OpenVINO 2023\.0\.0\S* \(\S+\), not the target 2025\.0: the check "
                     r"says whether 2023\.0 computes what the original computes, nothing of 2025\.0", captured.err), \
        captured.err

    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out), "--check-with",
                 str(tmp_path / "no-python")]) == 2
    assert "--check-with" in capsys.readouterr().err


@pytest.mark.openvino
@pytest.mark.skipif("2023.0" not in side_pythons(), reason="no OpenVINO 2023.0: set IR_TOOLS_RELEASE_PYTHONS")
def test_migrate_check_with_runs_the_original_where_nothing_is_to_migrate(tmp_path: Path, capsys) -> None:
    """Nothing to migrate: --check-with said 'nothing written, so nothing checked', and a user who asked whether the
    model runs on that release heard nothing (a helper checked each such model there by hand). The original itself
    runs there against this OpenVINO: exit 0 where every output is the same, 1 where one differs (Gelu-7 erf rounds
    otherwise on 2023.0 than here: held to 0, it differs); nothing written either way. --check alone, which would run
    the file on this same OpenVINO, still checks nothing."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset7 as o7

    x = o1.parameter([4, 64], np.float32, name="x")
    model, out = tmp_path / "gelu.xml", tmp_path / "gelu_2023.xml"
    ov.save_model(ov.Model([o1.result(o7.gelu(x, "erf"), name="y"), o1.result(o1.exp(x), name="e")], [x], "gelu"),
                  model, compress_to_fp16=False)
    python = side_pythons()["2023.0"]
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out), "--check-with", python]) == 0
    printed = capsys.readouterr().out
    assert "nothing written, so --check-with runs the original" in printed and printed.count(": same (") == 2, printed
    assert re.search(r"checked: the original computes on OpenVINO 2023\.0\.0\S* what it computes here\n$", printed)
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out), "--check-with", python,
                 "--atol", "0", "--rtol", "0"]) == 1
    printed = capsys.readouterr().out
    assert "  y: DIFFERENT (" in printed and "  e: same (" in printed, printed
    assert "  the reference sides with both (within their rounding bounds)\n" in printed, printed
    assert re.search(r"checked: the original does not compute on OpenVINO 2023\.0\.0\S* what it computes here\n$",
                     printed), printed
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out), "--check"]) == 0
    assert "nothing written, so nothing checked" in capsys.readouterr().out
    assert not out.exists()


@pytest.mark.openvino
@pytest.mark.skipif("2023.0" not in side_pythons(), reason="no OpenVINO 2023.0: set IR_TOOLS_RELEASE_PYTHONS")
def test_migrate_check_with_asks_the_reference_which_release_is_right(tmp_path: Path, capsys) -> None:
    """The static T5 encoder f16 (tests/data/networks): OpenVINO CPU loses its position bias from 2023.2 on, 2023.0
    computes it. Migrated for 2023.0 and checked there, its output differed from this OpenVINO's on the original
    (0.229 for 2.9) and migrate wrote nothing: the check took this release's wrong output for the original's. Where the
    two differ, the reference now says which it sides with (compare on each): with 2023.0 on the migrated model, so
    the file is written and the difference named this OpenVINO's."""
    model = SAMPLES.parent / "tests" / "data" / "networks" / "t5_encoder_static_f16.xml"
    out = tmp_path / "t5_2023.xml"
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out), "--check-with",
                 side_pythons()["2023.0"]]) == 0
    printed = capsys.readouterr().out
    assert "  last_hidden_state: DIFFERENT (" in printed, printed
    assert re.search(r"the reference \(compare's rounding bounds\) sides with OpenVINO 2023\.0\.0\S* of \S+ on the "
                     r"migrated model, not with this OpenVINO on the original, which it computes otherwise "
                     r"\(last_hidden_state; ", printed), printed
    assert printed.endswith(f"wrote {out} (IR v11)\n") and out.exists(), printed


@pytest.mark.openvino
@pytest.mark.skipif("2025.0" not in side_pythons(), reason="no OpenVINO 2025.0: set IR_TOOLS_RELEASE_PYTHONS")
def test_migrate_check_with_another_release_than_the_target_says_so(tmp_path: Path, capsys) -> None:
    """--target 2023.0 --check-with a 2025.0 Python checked the file on 2025.0 without a word (a QA run): it warns
    first, naming both releases, and its last line says where it was checked; written, as the check passed there
    (a file for 2023.0 may be meant for 2025.0 too: the check there is worth having, not to be read as 2023.0's). -q
    keeps the last line's words; a check on the target's own release says nothing of the kind."""
    model = max_pool_14_model(tmp_path / "pools.xml", np.random.default_rng(3), 4)
    out = tmp_path / "pools_2023.xml"
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out), "--check-with",
                 side_pythons()["2025.0"]]) == 0
    captured = capsys.readouterr()
    assert re.search(r"^warning: --check-with runs OpenVINO 2025\.0\.0\S* \(\S+\), not the target 2023\.0: the check "
                     r"says whether 2025\.0 computes what the original computes, nothing of 2023\.0$", captured.err,
                     re.M), captured.err
    assert captured.out.endswith(f"wrote {out} (IR v11; checked on OpenVINO 2025.0, not on the target 2023.0)\n")
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out), "-q", "--check-with",
                 side_pythons()["2025.0"]]) == 0
    captured = capsys.readouterr()
    assert not captured.err and "not on the target 2023.0" in captured.out
    if "2023.0" in side_pythons():
        assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out), "--check-with",
                     side_pythons()["2023.0"]]) == 0
        captured = capsys.readouterr()
        assert "warning" not in captured.err and "not on the target" not in captured.out


@pytest.mark.openvino
@pytest.mark.skipif("2023.0" not in side_pythons(), reason="no OpenVINO 2023.0: set IR_TOOLS_RELEASE_PYTHONS")
def test_migrate_check_with_blames_the_original_where_it_fails_here(tmp_path: Path, capsys) -> None:
    """Where the original fails on this OpenVINO (Pad-12 fed pads that leave a negative dim), --check-with reports
    that (E-OPENVINO of the original, exit 2, as --check does), not the release refusing the migrated model."""
    import openvino as ov
    import openvino.opset12 as ops

    x = ops.parameter([2, 3, 6, 7], np.float32, name="x")
    begin, end = (ops.parameter([4], np.int64, name=name) for name in ("begin", "end"))
    ov.save_model(ov.Model([ops.pad(x, begin, end, "constant")], [x, begin, end]), str(tmp_path / "pad.xml"))
    np.savez(tmp_path / "in.npz", x=np.ones((2, 3, 6, 7), np.float32), begin=np.array([0, 0, -9, 0]),
             end=np.zeros(4, np.int64))
    out = tmp_path / "out.xml"
    assert main(["migrate", str(tmp_path / "pad.xml"), "--target", "2023.0", "-o", str(out), "--inputs",
                 str(tmp_path / "in.npz"), "--check-with", side_pythons()["2023.0"]]) == 2
    captured = capsys.readouterr()
    assert "error[E-OPENVINO]" in captured.err and "refuses the migrated model" not in captured.out
    assert not out.exists()


def test_migrate_for_2021_4_writes_op_versions_with_the_opsets_it_has(tmp_path: Path, capsys) -> None:
    """2021.4 has no opset8: AvgPool-1, written opset8 by to_opset8, is respelled opset1 (OwnOpset), and check
    --target 2021.4 says so beforehand; the file written holds nothing 2021.4 cannot create, in IR v10."""
    model = SAMPLES / "avgpool14_ceil_torch.xml"
    graph = ir_tools.read_valid(model)
    ir_tools.migrate(graph)
    ir_tools.write_ir(graph, tmp_path / "opset8.xml")
    assert main(["check", str(tmp_path / "opset8.xml"), "--no-openvino", "--target", "2021.4"]) == 1
    assert 'OpenVINO 2021.4 cannot create AvgPool of opset8; the oldest release that creates it is 2022.1; ' \
           '`ir-tools migrate` rewrites it into opset1 AvgPool' in capsys.readouterr().out
    out = tmp_path / "old.xml"
    assert main(["migrate", str(model), "--target", "2021.4", "-o", str(out)]) == 0
    assert "rewrote 1 x AvgPool opset8 -> opset1 (the same op version)" in capsys.readouterr().out
    assert 'version="10"' in out.read_text()[:200]
    assert not ir_tools.check(out, openvino=False, target="2021.4")


def test_own_opset_asks_each_layer_whose_version_depends_on_its_attributes() -> None:
    """OwnOpset answers once per type and version, but where the target's answer depends on an attribute value
    (``has_probed_values``): 2024.0 has no opset15, and creates AvgPool-14 floor, not ceil_torch; of two AvgPools
    written opset15, the ceil_torch one (first) is left, the floor one respelled."""
    from ir_tools.ir.model import Graph, Layer
    from ir_tools.passes.downgrade import OwnOpset

    graph = Graph()
    for i, attrs in enumerate((CEIL_TORCH, FLOOR)):
        graph.add_layer(Layer(str(i), f"pool{i}", "AvgPool", "opset15", dict(attrs)))
    assert OwnOpset(release("2024.0")).apply(graph).modified
    assert [layer.version for layer in graph.layers()] == ["opset15", "opset14"]


@pytest.mark.openvino
@pytest.mark.skipif("2023.0" not in side_pythons(), reason="no OpenVINO 2023.0: set IR_TOOLS_RELEASE_PYTHONS")
def test_migrate_target_proves_dynamic_ceil_torch_max_pools_ceil(tmp_path: Path, capsys) -> None:
    """MaxPool-14 ceil_torch on dynamic spatial dims (as torchvision's googlenet and squeezenet convert): where it
    keeps every window ceil keeps at every length (proved on one period), MaxPool-8 ceil, equal bit for bit on
    2023.0 at three sizes; where a length drops a window, refused."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset14 as o14

    from ir_tools.base.dims import DYNAMIC
    from ir_tools.ops.pool_geometry import windows_differ
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    rng = np.random.default_rng(21)
    kept, dropped = [], []
    while len(kept) < 40 or not dropped:
        kernel, stride, dilation = (int(v) for v in (rng.integers(1, 5), rng.integers(1, 4), rng.integers(1, 3)))
        pb, pe = (int(rng.integers(0, kernel)) * int(rng.integers(0, 2)) for _ in range(2))
        case = (kernel, stride, dilation, pb, pe)
        (kept if windows_differ(DYNAMIC, *case, "explicit") is None else dropped).append(case)

    def model(path: Path, cases: list) -> Path:
        x = o1.parameter([1, 2, -1, -1], np.float32, name="x")
        pools = [o14.max_pool(x, [s, s], [d, d], [pb, pb], [pe, pe], [k, k], "ceil_torch", "explicit",
                              name=f"pool{i}").output(0) for i, (k, s, d, pb, pe) in enumerate(cases)]
        ov.save_model(ov.Model(pools, [x], "dynamic"), str(path), compress_to_fp16=False)
        return path

    good = model(tmp_path / "good.xml", kept[:40])
    out = tmp_path / "good_2023.xml"
    assert main(["migrate", str(good), "--target", "2023.0", "-o", str(out)]) == 0
    assert "rewrote 40 x MaxPool-14 (ceil_torch as ceil) -> MaxPool-8" in capsys.readouterr().out
    graph, migrated = ir_tools.read_valid(good), ir_tools.read_valid(out)
    files = ModelFiles(out, out.with_suffix(".bin"))
    for size in (9, 12, 17):
        inputs = {"x": rng.standard_normal((1, 2, size, size + 1)).astype(np.float32)}
        want = OpenVinoRunner(graph, ModelFiles(good, good.with_suffix(".bin"))).run(inputs)
        got = ChildOpenVinoRunner(side_pythons()["2023.0"], migrated, files).run(inputs)
        assert set(got) == set(want) and len(want) == 40
        for name in want:
            np.testing.assert_array_equal(got[name], want[name], err_msg=name, strict=True)
    bad = model(tmp_path / "bad.xml", dropped[:1])
    assert main(["migrate", str(bad), "--target", "2023.0", "-o", str(tmp_path / "bad_2023.xml")]) == 2
    assert "cannot create MaxPool of opset14 with rounding_type=\"ceil_torch\"" in capsys.readouterr().err


@pytest.mark.openvino
def test_two_layers_of_one_name_are_named_apart_for_releases_before_2024_1(tmp_path: Path, capsys) -> None:
    """check --target names the second layer of a name for 2024.0 and not for 2024.1; migrate --target 2023.0
    renames it (the layer whose name an IR v10 output takes keeps it), and the file loads and runs on 2023.0 and
    2024.0 where installed, equal to the current OpenVINO on the original."""
    import openvino as ov
    import openvino.opset1 as o1

    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    x = o1.parameter([2, 3], np.float32, name="x")
    first = o1.relu(x, name="same")
    second = o1.exp(first, name="same")
    first.output(0).get_tensor().set_names({"relu"})
    second.output(0).get_tensor().set_names({"exp"})
    model = tmp_path / "same.xml"
    ov.save_model(ov.Model([second, first], [x], "same"), str(model), compress_to_fp16=False)
    assert main(["check", str(model), "--no-openvino", "--target", "2024.0"]) == 1
    assert re.search(r"same\.xml:\d+: error\[E-TARGET\]: layer 'same' \(id \d+, Exp@opset1\): OpenVINO 2024\.0 "
                     r"refuses two layers named 'same' \(the first is id \d+, at line \d+\); the oldest release that "
                     r"reads them is 2024\.1", capsys.readouterr().out)
    assert main(["check", str(model), "--no-openvino", "--target", "2024.1"]) == 0
    out = tmp_path / "same_2023.xml"
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out)]) == 0
    assert "rewrote 1 x a layer name used twice -> made unique" in capsys.readouterr().out
    assert sorted(layer.name for layer in ir_tools.read_ir(out).layers() if layer.type in ("ReLU", "Exp")) == \
        ["same", "same_0"]
    graph = ir_tools.read_valid(model)
    inputs = {"x": np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)}
    want = OpenVinoRunner(graph, ModelFiles(model, model.with_suffix(".bin"))).run(inputs)
    migrated, files = ir_tools.read_valid(out), ModelFiles(out, out.with_suffix(".bin"))
    for python in [p for name, p in side_pythons().items() if name in ("2023.0", "2024.0")]:
        got = ChildOpenVinoRunner(python, migrated, files).run(inputs)
        assert set(got) == set(want) == {"relu", "exp"}
        for name in want:
            np.testing.assert_array_equal(got[name], want[name])


@pytest.mark.openvino
@pytest.mark.skipif("2023.0" not in side_pythons(), reason="no OpenVINO 2023.0: set IR_TOOLS_RELEASE_PYTHONS")
def test_two_tensors_of_one_name_are_named_apart_in_ir_v10(tmp_path: Path, capsys) -> None:
    """A model whose output has its input's name (a UNet's 'sample'), made IR v10 by migrate --target 2021.4: 2023.0
    to 2025.0 refused the file ('Model tensor names have collisions'; found by a sweep). The output is now named as
    the current OpenVINO reads the original ('x_1'), and 2023.0 reads and runs it so, equal to the current OpenVINO on
    the original. Such a file read as IR v10: check --target names it, migrate renames it so."""
    import openvino as ov

    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    original = next(m for m in _interface_models(tmp_path) if m.stem == "names_twice")
    assert [o.get_names() for o in ov.Core().read_model(str(original)).outputs] == [{"x_1"}]
    inputs = {"x": np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)}
    want = OpenVinoRunner(ir_tools.read_valid(original), ModelFiles(original, original.with_suffix(".bin"))).run(inputs)
    out = tmp_path / "names_twice_2021.4.xml"
    assert main(["migrate", str(original), "--target", "2021.4", "-o", str(out)]) == 0
    assert f"wrote {out} (IR v10)" in capsys.readouterr().out
    assert main(["check", str(out), "--no-openvino", "--target", "2023.0"]) == 0, capsys.readouterr().out
    got = ChildOpenVinoRunner(side_pythons()["2023.0"], ir_tools.read_valid(out),
                              ModelFiles(out, out.with_suffix(".bin"))).run(inputs)
    assert list(got) == ["x_1"]  # (named as the current OpenVINO names the original's output)
    np.testing.assert_array_equal(got["x_1"], *want.values())
    v10, again = tmp_path / "names_twice_v10.xml", tmp_path / "names_twice_v10_2023.0.xml"
    (named,) = [d for d in ir_tools.check(v10, openvino=False, target="2023.0") if d.code == "E-TARGET"]
    assert "refuses an IR v10 model in which two tensors have one name, as 'x' here" in named.message
    assert main(["migrate", str(v10), "--target", "2023.0", "-o", str(again)]) == 0
    assert "rewrote 1 x a tensor name used twice -> renamed as OpenVINO 2025.1 on reads it" in capsys.readouterr().out
    got = ChildOpenVinoRunner(side_pythons()["2023.0"], ir_tools.read_valid(again),
                              ModelFiles(again, again.with_suffix(".bin"))).run(inputs)
    assert list(got) == ["x_1"]


def test_the_migrate_readme_lists_every_downgrade() -> None:
    """samples/README_migrate.md's table of rewrites is each Downgrade's ``rewrites``, in the order they run."""
    from ir_tools.passes.downgrade import DOWNGRADES

    rows = [f"| {label} | {words} |" for downgrade in DOWNGRADES for label, words in downgrade.rewrites.items()]
    text = (SAMPLES / "README_migrate.md").read_text()
    assert [line for line in text.splitlines() if line.startswith("| ") and "-" in line.split("|")[1]
            and line.split("|")[1].strip()[-1].isdigit()] == rows


def test_forms_openvino_reads_by_design_are_created_by_older_releases_too() -> None:
    """MVN written opset1 (read from opset2) and the experimental ops (read from opset6): no E-TARGET for 2023.0."""
    files = sorted((Path(__file__).parent / "data" / "by_design").glob("*.xml"))
    assert len(files) >= 8
    for path in files:
        assert not [d for d in ir_tools.check(path, openvino=False, target="2023.0") if d.code == "E-TARGET"], path


@pytest.mark.openvino
def test_plain_check_warns_of_weights_repacked_for_an_older_release(tmp_path: Path, capsys) -> None:
    """A file migrated for 2023.0 holds u4 and i4 Consts repacked for it (their rt_info says so), which the installed
    OpenVINO reads as other weights: ``check`` without --target said nothing of it (found by a QA run); it now warns
    (W-TARGET, exit 0), and the original file gets no such warning."""
    import openvino as ov

    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import OpenVinoRunner
    from tests.test_packed_types import packed_model

    model, out = tmp_path / "packed.xml", tmp_path / "packed_2023.xml"
    packed_model(model, np.random.default_rng(4), ("i4", "u1", "u4"))
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out)]) == 0
    capsys.readouterr()
    # (the premise: the installed OpenVINO computes other values from the repacked file)
    runs = [OpenVinoRunner(ir_tools.read_valid(p), ModelFiles(p, p.with_suffix(".bin"))).run({}) for p in (model, out)]
    assert not np.array_equal(runs[0]["u4"], runs[1]["u4"]) and np.array_equal(runs[0]["u1"], runs[1]["u1"])
    warned = [d for d in ir_tools.check(out) if d.code == "W-TARGET"]
    assert sorted(d.loc.layer_name for d in warned) == ["i4_const", "u4_const"], warned
    installed = ".".join(ov.get_version().split(".")[:2])
    installed = installed if installed in releases() else list(releases())[-1]  # (one newer than the table: its newest)
    assert all(d.message.startswith(f"OpenVINO {installed} reads this ") and "were repacked" in d.message
               for d in warned), warned
    assert [d for d in ir_tools.check(model) if d.code == "W-TARGET"] == []
    assert main(["check", str(out)]) == 0
    assert "warning[W-TARGET]" in capsys.readouterr().out
    # run and compare read the bytes as written on both sides (they agree on weights nobody meant): they warn too
    assert main(["run", str(out), "-o", str(tmp_path / "run.npz")]) == 0
    assert capsys.readouterr().err.count("warning[W-TARGET]") == 2
    assert main(["compare", str(out), "-q"]) == 0
    assert capsys.readouterr().err.count("warning[W-TARGET]") == 0  # (-q: errors only)
    assert main(["compare", str(out)]) == 0
    assert capsys.readouterr().err.count("warning[W-TARGET]") == 2


@pytest.mark.openvino
def test_plain_check_warns_of_weights_repacked_inside_a_body(tmp_path: Path) -> None:
    """A u4 Const inside an If's body, repacked by ``migrate --target 2023.0``: plain ``check`` of the result warns
    of it (W-TARGET at the If's line, named inside the body), as of one at the top level; it asked the top level
    only."""
    import openvino as ov
    import openvino.opset8 as ops

    x, condition = ops.parameter([2, 4], np.float32, name="x"), ops.parameter([], np.bool_, name="c")
    bodies = []
    for i in range(2):
        inner = ops.parameter([2, 4], np.float32)
        weights = ops.constant(np.arange(8).reshape(2, 4) % 16, ov.Type.u4, name=f"u4_const{i}") if i == 0 else \
            ops.constant(np.ones((2, 4), np.float32))
        bodies.append(ov.Model([ops.result(ops.add(inner, ops.convert(weights, "f32") if i == 0 else weights))],
                               [inner]))
    model, out = tmp_path / "if_u4.xml", tmp_path / "if_u4_2023.xml"
    ov.save_model(ov.Model([if_of(condition.output(0), x.output(0), *bodies)], [x, condition]), model)
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out)]) == 0
    warned = [d for d in ir_tools.check(out) if d.code == "W-TARGET"]
    assert [d.loc.layer_name.rsplit("/", 1)[-1] for d in warned] == ["u4_const0"], warned
    assert warned[0].loc.layer_name.count("/") >= 2 and "were repacked" in warned[0].message, warned
    assert [d for d in ir_tools.check(model) if d.code == "W-TARGET"] == []


@pytest.mark.openvino
def test_check_runs_weights_repacked_for_the_target_as_this_openvino_reads_them(tmp_path: Path, capsys) -> None:
    """``migrate --target 2023.0 --check`` of an int4 model: the i4 weights repacked for 2023.0 are run here packed
    back, and the migrated model passes (it failed every output: this OpenVINO read the repacked bytes as other
    weights, while the file written is right for 2023.0); the file written keeps them repacked."""
    model = Path(__file__).parent / "data" / "target" / "tiny_llama_int4_stateful_int4_sym.xml"
    out = tmp_path / "migrated.xml"
    assert main(["migrate", str(model), "--target", "2023.0", "--stateless", "--check", "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "repacked for OpenVINO 2023.0 run here as OpenVINO" in said and "DIFFERENT" not in said, said
    assert [d.code for d in ir_tools.check(out) if d.code == "W-TARGET"], "the file written is 2023.0's"


@pytest.mark.openvino
@pytest.mark.parametrize("seed", [0, 5])
def test_check_leaves_outputs_of_an_unseeded_random_op(tmp_path: Path, capsys, seed: int) -> None:
    """``migrate --target 2023.0 --check`` of a model with RandomUniform-8 of seeds 0 (ViTMAE's patch shuffle, ovc
    today): OpenVINO draws other values at each inference, so what depends on it is not compared (it was DIFFERENT, the
    migrated model refused though its SDPA-13 rewrite is exact) and the other outputs are; seeded, it is compared."""
    import openvino as ov
    import openvino.opset8 as o8
    import openvino.opset13 as o13

    q = o8.parameter([1, 2, 4, 8], np.float32, name="q")
    noise = o8.random_uniform(o8.constant(np.array([1, 2, 4, 8], np.int64)), o8.constant(np.float32(0)),
                              o8.constant(np.float32(1)), "f32", global_seed=seed, op_seed=seed)
    attention = o13.scaled_dot_product_attention(q, q, q, causal=True)
    outputs = [o8.result(attention, name="attention"), o8.result(o8.add(attention, noise), name="noisy")]
    model, out = tmp_path / "noisy.xml", tmp_path / "noisy_2023.xml"
    ov.save_model(ov.Model(outputs, [q], "noisy"), model)
    assert main(["migrate", str(model), "--target", "2023.0", "--check", "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "DIFFERENT" not in said and out.exists(), said
    compared = re.findall(r"^  (\S+): same", said, re.M)
    assert compared == (["attention"] if seed == 0 else ["attention", "noisy"]), said
    assert ("not compared (two inferences of the original differ" in said) == (seed == 0), said


def _said_by_migrate_check(model: Path, results: list, x: object, capsys) -> str:
    """What ``migrate --target 2023.0 --check`` prints of a model of ``results`` on the input ``x``, saved at
    ``model`` (exit 0)."""
    import openvino as ov

    ov.save_model(ov.Model(results, [x], model.stem), model)
    out = model.with_name(f"{model.stem}_2023.xml")
    assert main(["migrate", str(model), "--target", "2023.0", "--check", "-o", str(out)]) == 0
    return capsys.readouterr().out


@pytest.mark.openvino
def test_check_says_when_every_output_is_empty(tmp_path: Path, capsys) -> None:
    """``migrate --target 2023.0 --check`` of a model whose every output is empty on the seeded inputs (a detector of
    random weights, FCOS's, finds no box: found by the third wide-zoo sweep): it said 'same' of each, as if values had
    been compared; it now says that none was. A model with one output not empty is compared as before."""
    import openvino.opset8 as o8
    import openvino.opset13 as o13

    x = o8.parameter([2, 3], np.float32, name="x")
    huge = o13.bitwise_and(o8.greater(x, o8.constant(np.float32(1e30))), o8.less(x, o8.constant(np.float32(1e31))))
    boxes = o8.result(o8.non_zero(huge, "i64"), name="boxes")
    for extra, empty in (([], True), ([o8.result(o8.relu(x), name="kept")], False)):
        said = _said_by_migrate_check(tmp_path / f"empty{len(extra)}.xml", [boxes, *extra], x, capsys)
        assert "boxes: same (0/0 elements differ" in said, said
        assert ("every output is empty on these inputs" in said) == empty, said


@pytest.mark.openvino
def test_check_says_when_every_output_is_nan(tmp_path: Path, capsys) -> None:
    """``migrate --target 2023.0 --check`` of a model whose every output is NaN in each element on the seeded inputs
    (a T5 whose attention mask input has a name the seeded inputs do not know is fed integers of [-50, 50): its
    softmax of -inf rows gives NaN everywhere; found by the fourth wide-zoo sweep): it said 'same' of each, NaN where
    NaN, as if values had been compared; it now says that none was. One output of a value is compared as before."""
    import openvino.opset8 as o8
    import openvino.opset13 as o13

    x = o8.parameter([2, 3], np.float32, name="x")
    inside = o13.bitwise_and(o8.greater(x, o8.constant(np.float32(0))), o8.less(x, o8.constant(np.float32(1))))
    flag = o8.convert(inside, "f32")  # (a layer 2023.0 cannot create: something to migrate)
    root = o8.sqrt(o8.subtract(o8.constant(np.float32(-1)), o8.multiply(x, x)))
    nan = o8.result(o8.add(root, flag), name="nan")
    for extra, none in (([], True), ([o8.result(o8.relu(x), name="kept")], False)):
        said = _said_by_migrate_check(tmp_path / f"nan{len(extra)}.xml", [nan, *extra], x, capsys)
        assert "nan: same (0/6 elements differ" in said, said
        assert ("every output is empty or NaN in every element on these inputs" in said) == none, said
        assert "every output is empty on" not in said, said


#: A model of two layers whose document OpenVINO's serializer ends within 512 bytes.
SHORTEST = """<?xml version="1.0"?>
<net name="t" version="11">
	<layers>
		<layer id="0" name="x" type="Parameter" version="opset1">
			<data shape="" element_type="f32" />
			<output>
				<port id="0" precision="FP32" />
			</output>
		</layer>
		<layer id="1" name="r" type="Result" version="opset1">
			<input>
				<port id="0" precision="FP32" />
			</input>
		</layer>
	</layers>
	<edges>
		<edge from-layer="0" from-port="0" to-layer="1" to-port="0" />
	</edges>
</net>
"""


def _shortest_written(folder: Path) -> list[Path]:
    """``SHORTEST`` as a file, then as ir_tools writes it (IR v10 and v11) and as ``migrate --target 2023.0`` does."""
    source = folder / "shortest.xml"
    source.write_text(SHORTEST)
    written = [source]
    for version in (10, 11):
        written.append(folder / f"v{version}.xml")
        ir_tools.write_ir(ir_tools.read_valid(source), written[-1], ir_version=version)
    written.append(folder / "migrated.xml")
    assert main(["migrate", str(source), "--target", "2023.0", "-o", str(written[-1])]) == 0
    return written


def test_a_document_that_ends_within_512_bytes_is_named_for_the_releases_that_refuse_it_and_written_longer(
        tmp_path: Path, capsys) -> None:
    """OpenVINO before 2024.5 refuses a document that ends within its first 512 bytes: ``check --target`` says so for
    those releases, and every document ir_tools writes (``migrate --target`` too) ends past byte 512, with blanks
    before ``</net>``."""
    source, *written = _shortest_written(tmp_path)
    assert "rewrote 1 x document written past byte 512" in capsys.readouterr().out
    assert len(SHORTEST) <= 512
    for path in written:
        data = path.read_bytes()
        assert data.rindex(b"</net>") + len(b"</net>") == 513, data
        assert ir_tools.check(path, openvino=False, target="2023.0") == []
    refused = [d for d in ir_tools.check(source, openvino=False, target="2024.4") if d.code == "E-TARGET"]
    assert [d.loc.line for d in refused] == [2] and "the oldest release that reads it is 2024.5" in refused[0].message
    assert ir_tools.check(source, openvino=False, target="2024.5") == []


@pytest.mark.openvino
@pytest.mark.skipif(not side_pythons(), reason="no older OpenVINO: set IR_TOOLS_RELEASE_PYTHONS=2023.0=/venv/python")
def test_a_document_that_ends_within_512_bytes_is_named_exactly_where_a_release_refuses_it(tmp_path: Path) -> None:
    """The releases installed refuse the short document where ``check --target`` says so, and read what ir_tools
    wrote of it (measured: 2023.0 and 2024.0 refuse it, 2025.0 reads it)."""
    _named_exactly_when_refused(_shortest_written(tmp_path))
