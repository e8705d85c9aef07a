"""The public pass API and `ir-tools transform`: the README's example and a Transpose fold, each run through the API
and the command line, checked against OpenVINO; passes that break the graph or fail are refused, nothing written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ir_tools import (
    AnyInput,
    Graph,
    GraphBuilder,
    IrToolsError,
    Op,
    Pass,
    PassError,
    PassManager,
    matches,
    read_ir,
    read_valid,
    write_ir,
)
from ir_tools.base.dims import shape_from_ints
from ir_tools.cli import main
from ir_tools.passes.to_opset8 import ToOpset8, to_opset8
from tests.conftest import ROOT, SAMPLES
from tests.passes.user_passes import FoldTransposes, UnfeedFirstRelu, UnfeedFirstReluSilently, ZeroStridesSilently

U = 2.0**-24  # f32 unit roundoff


def readme_pass_source() -> str:
    """The Python block of the README's Transformations section, as a user would copy it."""
    section = (ROOT / "README.md").read_text().split("## Transformations", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.fixture
def readme_pass(tmp_path: Path) -> Path:
    path = tmp_path / "my_passes.py"
    path.write_text(readme_pass_source())
    return path


def swish_model(path: Path) -> Path:
    """x -> Swish -> ReLU -> Swish -> Result, and x -> Swish(beta) -> Result (a Swish the pattern must not match)."""
    g = Graph("swish")
    b = GraphBuilder(g)
    x = b.parameter("x", "f32", shape_from_ints((2, 3, 4, 5)))
    first = b.add("Swish", "opset4", None, [x], "swish1")
    relu = b.add("ReLU", "opset1", None, [first], "relu")
    second = b.add("Swish", "opset4", None, [relu], "swish2")
    second.outputs[0].names = "y"
    b.result((second.id, second.outputs[0].id), "y/sink")
    beta = b.const(np.array(1.5, np.float32), "beta")
    third = b.add("Swish", "opset4", None, [x, beta], "swish_beta")
    third.outputs[0].names = "z"
    b.result((third.id, third.outputs[0].id), "z/sink")
    write_ir(g, path)
    return path


def transpose_model(path: Path) -> Path:
    """Three Transposes in a chain (folded into one) and a pair whose orders cancel (folded away)."""
    g = Graph("transposes")
    b = GraphBuilder(g)
    x = b.parameter("x", "f32", shape_from_ints((2, 3, 4, 5)))
    y = x
    for i, order in enumerate(([0, 2, 3, 1], [3, 1, 0, 2], [1, 0, 3, 2])):
        y = b.add("Transpose", "opset1", None, [y, b.const(np.array(order, np.int64), f"order{i}")], f"t{i}")
    y.outputs[0].names = "chain"
    b.result((y.id, y.outputs[0].id), "chain/sink")
    z = b.add("ReLU", "opset1", None, [x], "relu")
    for i, order in enumerate(([0, 2, 3, 1], [0, 3, 1, 2])):
        z = b.add("Transpose", "opset1", None, [z, b.const(np.array(order, np.int64), f"back{i}")], f"u{i}")
    z.outputs[0].names = "same"
    b.result((z.id, z.outputs[0].id), "same/sink")
    write_ir(g, path)
    return path


def openvino_outputs(path: Path, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    from ir_tools.runtime.openvino import ModelFiles, run_openvino

    return run_openvino(read_ir(path), inputs, files=ModelFiles(path, path.with_suffix(".bin"))).outputs


def kinds(path: Path) -> list[str]:
    return sorted(layer.type for layer in read_ir(path).layers())


@pytest.mark.openvino
def test_readme_pass_replaces_every_swish_through_the_api_and_the_cli(tmp_path: Path, readme_pass: Path) -> None:
    model = swish_model(tmp_path / "m.xml")
    namespace: dict = {}
    exec(compile(readme_pass.read_text(), str(readme_pass), "exec"), namespace)  # noqa: S102 (the README's code)
    graph = read_valid(model)
    result = namespace["SwishToSigmoid"]().run(graph)
    assert result.modified
    write_ir(graph, tmp_path / "api.xml")

    code = main(["transform", str(model), "--pass", f"{readme_pass}:SwishToSigmoid", "-o", str(tmp_path / "cli.xml")])
    assert code == 0
    for out in ("api.xml", "cli.xml"):
        types = kinds(tmp_path / out)
        assert types.count("Swish") == 1 and types.count("Sigmoid") == 2 and types.count("Multiply") == 2, types
    assert (tmp_path / "api.xml").read_bytes() == (tmp_path / "cli.xml").read_bytes()

    x = np.random.default_rng(0).normal(0, 4, (2, 3, 4, 5)).astype(np.float32)
    want = openvino_outputs(model, {"x": x})
    got = openvino_outputs(tmp_path / "cli.xml", {"x": x})
    assert set(got) == set(want) == {"y", "z"}  # output names kept
    for name in want:
        # Swish and Sigmoid are each within 2 ulps on OpenVINO CPU (ops/activations.py), the product rounds once
        bound = 6 * U * np.abs(want[name]) + np.finfo(np.float32).tiny
        assert np.all(np.abs(got[name] - want[name]) <= bound), name


@pytest.mark.openvino
def test_readme_pass_matches_swish_as_openvino_writes_it(tmp_path: Path, readme_pass: Path) -> None:
    """OpenVINO's ``opset4.swish(x)`` writes beta, 1.0, as a Const input: the README's pattern, Swish of one input,
    matched no Swish OpenVINO writes (found by a QA run). Its beta-1 form is replaced, another beta left alone."""
    import openvino as ov
    import openvino.opset4 as o

    x = o.parameter([2, 3, 4, 5], np.float32, name="x")
    plain, other = o.swish(x), o.swish(x, o.constant(np.float32(1.5)))
    plain.output(0).set_names({"y"})
    other.output(0).set_names({"z"})
    model = tmp_path / "ov_swish.xml"
    ov.save_model(ov.Model([plain, other], [x], "swish"), model, compress_to_fp16=False)
    assert [len(layer.inputs) for layer in read_ir(model).by_type("Swish")] == [2, 2]  # beta given, as written
    out = tmp_path / "o.xml"
    assert main(["transform", str(model), "--pass", f"{readme_pass}:SwishToSigmoid", "-o", str(out)]) == 0
    types = kinds(out)
    assert types.count("Swish") == 1 and types.count("Sigmoid") == 1 and types.count("Const") == 1, types
    inputs = {"x": np.random.default_rng(0).normal(0, 4, (2, 3, 4, 5)).astype(np.float32)}
    want, got = openvino_outputs(model, inputs), openvino_outputs(out, inputs)
    for name in ("y", "z"):
        bound = 6 * U * np.abs(want[name]) + np.finfo(np.float32).tiny
        assert np.all(np.abs(got[name] - want[name]) <= bound), name


@pytest.mark.openvino
def test_transpose_fold_through_the_api_and_the_cli(tmp_path: Path) -> None:
    model = transpose_model(tmp_path / "t.xml")
    graph = read_valid(model)
    result = FoldTransposes().run(graph)
    assert result.stats == {"Transpose pairs folded": 3}  # t1 onto t0, t2 onto that, u1 onto u0
    assert [layer.name for layer in graph.by_type("Transpose")] == ["t2"]
    write_ir(graph, tmp_path / "api.xml")

    spec = "tests.passes.user_passes:FoldTransposes"
    command = Path(sys.executable).with_name("ir-tools")  # the installed command: the module is found from cwd
    done = subprocess.run([str(command), "transform", str(model), "--pass", spec, "-o", str(tmp_path / "cli.xml")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rewrote 3 x Transpose pairs folded" in done.stdout
    assert (tmp_path / "api.xml").read_bytes() == (tmp_path / "cli.xml").read_bytes()

    x = np.random.default_rng(1).normal(size=(2, 3, 4, 5)).astype(np.float32)
    want, got = openvino_outputs(model, {"x": x}), openvino_outputs(tmp_path / "cli.xml", {"x": x})
    assert set(got) == {"chain", "same"}
    for name in want:
        np.testing.assert_array_equal(got[name], want[name])  # data movement: exact


def test_fixed_point_repeats_until_nothing_changes(tmp_path: Path) -> None:
    graph = read_valid(transpose_model(tmp_path / "t.xml"))
    calls = []

    class Counting(FoldTransposes):
        def apply(self, g: Graph):
            result = super().apply(g)
            calls.append(result.modified)
            return result

    result = PassManager([Counting()], fixed_point=True).run(graph)
    assert calls == [True, False] and result.modified


def test_a_pass_that_breaks_the_graph_is_refused_with_file_and_line(tmp_path: Path, capsys) -> None:
    model = transpose_model(tmp_path / "t.xml")
    out = tmp_path / "out.xml"
    code = main(["transform", str(model), "--pass", "tests.passes.user_passes:UnfeedFirstRelu", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists() and not out.with_suffix(".bin").exists()
    lines = model.read_text().splitlines()
    relu_start = next(i for i, line in enumerate(lines, 1) if 'name="relu"' in line)
    relu_end = next(i for i, line in enumerate(lines, 1) if i > relu_start and "</layer>" in line)
    assert "error[E-PASS]: pass UnfeedFirstRelu left the graph invalid" in err
    line = int(re.search(r"t\.xml:(\d+): error\[E-INPUT-UNFED\]: layer 'relu'", err).group(1))
    assert relu_start <= line <= relu_end, err  # the relu's input port, in the model's own file
    assert "Traceback" not in err

    with pytest.raises(PassError) as caught:
        UnfeedFirstRelu().run(read_valid(model))
    assert [d.code for d in caught.value.diagnostics][:2] == ["E-PASS", "E-INPUT-UNFED"]
    # str() is what an uncaught one prints: it said "the model has 2 error(s); the first: pass UnfeedFirstRelu left the
    # graph invalid (1 error(s) follow)", the layer and the error left out (found by a QA run of the library)
    assert str(caught.value) == (f"{model}: pass UnfeedFirstRelu left the graph invalid (1 error(s) follow); the "
                                 f"first: {caught.value.diagnostics[1].render()}")
    assert "error[E-INPUT-UNFED]: layer 'relu'" in str(caught.value)


def test_a_pass_that_breaks_the_graph_and_says_it_did_not_is_refused(tmp_path: Path, capsys) -> None:
    """A pass returning False (or nothing) after removing an edge skipped the gate after it, and transform wrote what
    OpenVINO refuses ("unchanged", exit 0); one editing a layer in place without a word is caught by transform's check
    of what it writes (found by a QA run)."""
    model = transpose_model(tmp_path / "t.xml")
    with pytest.raises(PassError) as caught:
        UnfeedFirstReluSilently().run(read_valid(model))
    assert [d.code for d in caught.value.diagnostics][:2] == ["E-PASS", "E-INPUT-UNFED"]
    conv = SAMPLES / "mixed_network.xml"
    # the library as the command: Pass.run accepted ZeroStridesSilently (modified False) and write_ir wrote a model
    # OpenVINO refuses ("Strides has zero dimension(s)"); a pass that does not record its changes is checked after
    for run in (lambda g: ZeroStridesSilently().run(g), lambda g: ZeroStridesSilently().run(g, checked=True),
                lambda g: PassManager([ZeroStridesSilently()], check_once=True).run(g),
                lambda g: PassManager([ZeroStridesSilently()], fixed_point=True).run(g)):
        with pytest.raises(PassError, match=r"pass(es)? ZeroStridesSilently left the graph invalid .*strides \[0, 0\] "
                           "contain a zero"):
            run(read_valid(conv))
    for spec, source, words in (("UnfeedFirstReluSilently", model, "E-INPUT-UNFED"),
                                ("ZeroStridesSilently", conv, "strides [0, 0] contain a zero"),
                                ("ShortConst", conv, "E-CONST-SIZE]: layer 'short' (id 14, Const@opset1): its payload "
                                                     "holds 4 bytes, f32[1, 8, 1, 1] needs 32")):
        out = tmp_path / f"{spec}.xml"
        assert main(["transform", str(source), "--pass", f"tests.passes.user_passes:{spec}", "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"error[E-PASS]: pass {spec} left the graph invalid" in err and words in err, err
        assert not out.exists() and not out.with_suffix(".bin").exists()


def test_check_once_checks_a_sequence_once_and_names_every_pass_that_changed_it(tmp_path: Path, monkeypatch) -> None:
    """PassManager(check_once=True), as migrate --target runs its downgrades: the same graph as a gate after each
    pass, one re-inference and one check instead of one per changing pass, and a graph left invalid names every pass
    since the check."""
    import ir_tools.passes.base as base

    class Touches(Pass):  # says it changed the graph, so that its gate runs
        def apply(self, graph: Graph) -> bool:
            return True

    checks, reinfers = [], []
    require_valid, reinfer_shapes = base.require_valid, base.reinfer_shapes
    monkeypatch.setattr(base, "require_valid", lambda *a, **k: checks.append(1) or require_valid(*a, **k))
    monkeypatch.setattr(base, "reinfer_shapes", lambda *a, **k: reinfers.append(1) or reinfer_shapes(*a, **k))
    model = transpose_model(tmp_path / "t.xml")
    written = {}
    for once in (False, True):
        graph = read_valid(model)
        checks.clear()
        reinfers.clear()
        result = PassManager([FoldTransposes(), Touches(), Touches()], check_once=once).run(graph, checked=True)
        written[once] = (len(checks), len(reinfers), result.stats,
                         write_ir(graph, tmp_path / f"{once}.xml")[0].read_bytes())
    assert written[False][:2] == (3, 3) and written[True][:2] == (1, 1)
    assert written[False][2:] == written[True][2:]

    with pytest.raises(PassError) as caught:
        PassManager([FoldTransposes(), Touches(), UnfeedFirstRelu()], check_once=True).run(read_valid(model))
    assert caught.value.diagnostics[0].message.startswith(
        "passes FoldTransposes, Touches, UnfeedFirstRelu left the graph invalid")
    assert [d.code for d in caught.value.diagnostics][:2] == ["E-PASS", "E-INPUT-UNFED"]


def test_a_pass_that_fails_is_named_and_nothing_is_written(tmp_path: Path, capsys) -> None:
    model = transpose_model(tmp_path / "t.xml")
    out = tmp_path / "out.xml"
    code = main(["transform", str(model), "--pass", "tests.passes.user_passes:Crashes", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert "error[E-PASS]: pass Crashes failed: KeyError: 'missing' (at " in err and "Traceback" not in err
    assert re.search(r"user_passes\.py:\d+\)", err), err


def test_a_pass_that_calls_sys_exit_is_named_and_nothing_is_written(tmp_path: Path, capsys) -> None:
    """sys.exit inside a pass exited the command with the pass's code, and without a word (found by a QA run)."""
    model = transpose_model(tmp_path / "t.xml")
    out = tmp_path / "out.xml"
    code = main(["transform", str(model), "--pass", "tests.passes.user_passes:Exits", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert "error[E-PASS]: pass Exits failed: SystemExit: 3 (at " in err, err


def test_a_refusal_inside_a_pass_keeps_its_code_and_names_the_pass(tmp_path: Path, capsys) -> None:
    """An IrToolsError raised inside apply (here the builder's) said nothing of the pass it came from."""
    model = transpose_model(tmp_path / "t.xml")
    out = tmp_path / "out.xml"
    code = main(["transform", str(model), "--pass", "tests.passes.user_passes:BuildsAnUnknownOp", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert "error[E-ATTR]: ir_tools does not model NoSuchOp@opset1" in err and err.rstrip().count(
        "(in pass BuildsAnUnknownOp)") == 1, err


def test_a_refusal_while_rewriting_a_layer_names_that_layer_and_its_line(tmp_path: Path, capsys) -> None:
    """A builder's refusal inside a pass named no layer and no line (a QA run's PadTo1: 'inputs of element types i64
    and i32' at the file alone): one inside ``replace_layer`` is at the layer replaced, and says what was built; a
    failure of a pass that says which layer it rewrites (``Pass.at``, as every downgrade does) is at that layer."""
    model = transpose_model(tmp_path / "t.xml")
    relu = next(layer for layer in read_ir(model).layers() if layer.name == "relu")
    out = tmp_path / "out.xml"
    code = main(["transform", str(model), "--pass", "tests.passes.user_passes:RewritesReluWrongly", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert f"t.xml:{relu.line}: error[E-OP]: layer 'relu' (id {relu.id}, ReLU@opset1): ir_tools cannot rewrite it: " \
        "the Add-1 layer 'added' it builds refuses its inputs (f32 [2,3,4,5], i32 [1]): " in err, err
    assert err.rstrip().endswith("(in pass RewritesReluWrongly)"), err
    code = main(["transform", str(model), "--pass", "tests.passes.user_passes:CrashesAtRelu", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert f"t.xml:{relu.line}: error[E-PASS]: layer 'relu' (id {relu.id}, ReLU@opset1): pass CrashesAtRelu failed: " \
        "IndexError" in err, err


def test_a_pass_returning_another_graph_is_refused(tmp_path: Path, capsys) -> None:
    """A pass changes the graph it is given: one returning ``PassResult(another_graph, True)`` had the graph it was
    given written, unchanged, without a word; E-PASS naming it, nothing written."""
    model = transpose_model(tmp_path / "t.xml")
    out = tmp_path / "out.xml"
    code = main(["transform", str(model), "--pass", "tests.passes.user_passes:ReturnsAnotherGraph", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists(), err
    assert "error[E-PASS]: pass ReturnsAnotherGraph returned another graph; a pass changes the graph it is given" \
        in err, err


def test_a_pass_file_imports_a_module_beside_it(tmp_path: Path, capsys) -> None:
    """``--pass FILE.py:Name`` loads the file with its folder first on ``sys.path``, as ``python FILE.py`` runs it
    (a module beside it could not be imported: E-USAGE), and takes that folder off again."""
    model = transpose_model(tmp_path / "t.xml")
    folder = tmp_path / "passes"
    folder.mkdir()
    (folder / "helper_beside_the_pass.py").write_text("from ir_tools import Pass\n\n\nclass Nothing(Pass):\n"
                                                      "    def apply(self, graph):\n        return False\n")
    (folder / "uses_helper.py").write_text("from helper_beside_the_pass import Nothing\n")
    code = main(["transform", str(model), "--pass", f"{folder / 'uses_helper.py'}:Nothing", "-o",
                 str(tmp_path / "out.xml")])
    assert code == 0 and "E-USAGE" not in capsys.readouterr().err
    assert str(folder) not in sys.path


@pytest.mark.parametrize("spec, words", [
    ("nothing", "expected MODULE:NAME"),
    ("no_such_module_anywhere:P", "could not be loaded: ModuleNotFoundError"),
    ("tests.passes.user_passes:Missing", "could not be loaded: AttributeError"),
    ("tests.passes.user_passes:np", "not an ir_tools.Pass"),
    ("missing_file.py:P", "could not be loaded: FileNotFoundError"),
])
def test_a_pass_that_cannot_be_loaded_is_a_usage_error(tmp_path: Path, capsys, spec: str, words: str) -> None:
    model = transpose_model(tmp_path / "t.xml")
    code = main(["transform", str(model), "--pass", spec, "-o", str(tmp_path / "out.xml")])
    err = capsys.readouterr().err
    assert code == 2 and "E-USAGE" in err and words in err, err


def test_a_pass_module_that_exits_while_loading_is_a_usage_error(tmp_path: Path, capsys) -> None:
    """sys.exit(0) at a pass module's top (a 'configuration missing' guard) ended transform with exit 0, no word and
    no file (found by a QA run): E-USAGE, exit 2, as a module that raises."""
    model = transpose_model(tmp_path / "t.xml")
    module = tmp_path / "guarded.py"
    module.write_text("import sys\nsys.exit(0)\n")
    code = main(["transform", str(model), "--pass", f"{module}:P", "-o", str(tmp_path / "out.xml")])
    err = capsys.readouterr().err
    assert code == 2 and "error[E-USAGE]" in err and "could not be loaded: it called sys.exit(0)" in err, err


def test_a_pass_failing_inside_ir_tools_is_named_at_its_own_line(tmp_path: Path, capsys) -> None:
    """A user's pass calling ir_tools wrongly (a layer id the graph lacks) was located at ir_tools' line that raised
    (ir/model.py), not at the pass's own (found by a QA run)."""
    model = transpose_model(tmp_path / "t.xml")
    module = tmp_path / "asks.py"
    module.write_text("from ir_tools import Pass\n\n\nclass Asks(Pass):\n    def apply(self, graph):\n"
                      "        return graph.layer('no-such-id') is None\n")
    code = main(["transform", str(model), "--pass", f"{module}:Asks", "-o", str(tmp_path / "out.xml")])
    err = capsys.readouterr().err
    assert code == 2 and (f"error[E-PASS]: pass Asks failed: UnknownLayerError: graph 'transposes' has no layer of "
                          f"id 'no-such-id' (at {module}:6)") in err, err


def test_patterns_take_attributes_as_the_ir_spells_them() -> None:
    """A string in the IR's case, a list for the typed tuple and the IR's attribute name match as the typed ones do;
    a misspelt name is E-ATTR with the op's attribute names (each matched nothing, silently; found by a QA run)."""
    graph = read_ir(SAMPLES / "avgpool14_16_mixed.xml")
    torch = {m.root.id for m in matches(graph, Op("AvgPool", attrs={"rounding_type": "ceil_torch"}))}
    assert torch and {m.root.id for m in matches(graph, Op("AvgPool", attrs={"rounding_type": "CEIL_TORCH"}))} == torch
    kernel = graph.by_type("AvgPool")[0].attrs["kernel"]
    as_list = [int(k) for k in kernel.split(",")]
    assert {m.root.id for m in matches(graph, Op("AvgPool", attrs={"kernel": as_list}))} == {
        m.root.id for m in matches(graph, Op("AvgPool", attrs={"kernel": tuple(as_list)}))} != set()
    assert {m.root.id for m in matches(graph, Op("AvgPool", attrs={"exclude-pad": True}))} == {
        m.root.id for m in matches(graph, Op("AvgPool", attrs={"exclude_pad": True}))}
    with pytest.raises(IrToolsError) as refused:
        list(matches(graph, Op("AvgPool", attrs={"rounding": "ceil"})))
    assert refused.value.code == "E-ATTR" and "has no attribute 'rounding'" in refused.value.message
    assert "rounding_type" in refused.value.message
    with pytest.raises(IrToolsError) as refused:  # the builder's typed attributes, likewise
        GraphBuilder.attrs("Clamp", "opset1", minimum=0.0, max=1.0)
    assert refused.value.code == "E-ATTR" and refused.value.message == (
        "Clamp-1 has no attribute 'minimum' (did you mean min?); its attributes: min, max")


@pytest.mark.openvino
def test_transform_never_overwrites_the_input_unless_asked(tmp_path: Path, capsys) -> None:
    model = transpose_model(tmp_path / "t.xml")
    before = model.read_bytes()
    assert main(["transform", str(model), "--pass", "tests.passes.user_passes:FoldTransposes"]) == 2
    assert model.read_bytes() == before
    assert main(["transform", str(model), "--pass", "tests.passes.user_passes:FoldTransposes", "--in-place"]) == 0
    assert kinds(model).count("Transpose") == 1
    # a second run folds nothing: the file was rewritten all the same ("no pass reported a change"), where migrate and
    # shapes --fix write nothing (found by a QA run); -o writes nothing then either
    capsys.readouterr()
    after, stamp = model.read_bytes(), model.stat().st_mtime_ns
    for where in (["--in-place"], ["-o", str(tmp_path / "out.xml")]):
        assert main(["transform", str(model), "--pass", "tests.passes.user_passes:FoldTransposes", *where]) == 0
        assert capsys.readouterr().out == (f"nothing to transform: no pass reported a change to {model} (a pass that "
                                           "edits a layer in place returns True or touches it); nothing written\n")
    assert (model.read_bytes(), model.stat().st_mtime_ns) == (after, stamp) and not (tmp_path / "out.xml").exists()
    assert main(["transform", str(model), "--pass", "tests.passes.user_passes:FoldTransposes", "--ir-version", "10",
                 "-o", str(tmp_path / "v10.xml")]) == 0  # (another IR version is a change)
    assert "unchanged but for the IR version, IR v10" in capsys.readouterr().out


def test_patterns_match_version_attributes_and_inputs() -> None:
    graph = read_ir(SAMPLES / "avgpool14_16_mixed.xml")
    every = list(matches(graph, Op("AvgPool", AnyInput("x"))))
    v14 = list(matches(graph, Op("AvgPool", version=14)))
    by_spelling = list(matches(graph, Op("AvgPool", version="opset14")))
    torch = list(matches(graph, Op("AvgPool", attrs={"rounding_type": "ceil_torch"})))
    wide = list(matches(graph, Op("AvgPool", attrs={"kernel": lambda k: max(k) >= 3})))
    pools = graph.by_type("AvgPool")
    assert [m.root for m in every] == [lay for lay in graph.topological_order() if lay.is_a("AvgPool")]
    assert {m.root.id for m in v14} == {p.id for p in pools if p.version in ("opset14", "opset15")}
    assert {m.root.id for m in by_spelling} == {p.id for p in pools if p.version == "opset14"}
    assert {m.root.id for m in torch} == {p.id for p in pools if p.attrs.get("rounding_type") == "ceil_torch"}
    assert {m.root.id for m in wide} == {p.id for p in pools if max(map(int, p.attrs["kernel"].split(","))) >= 3}
    assert v14 and torch and wide and len(torch) < len(every)
    for m in every:
        assert m["x"] == graph.producer_key(m.root.id, m.root.inputs[0].id)
    assert not list(matches(graph, Op("AvgPool", AnyInput(), AnyInput())))  # wrong arity: no match
    # a type in any case, as OpenVINO reads it (Op("Relu") matched none of resnet18's ReLUs: found by a QA run)
    assert [m.root for m in matches(graph, Op("avgPOOL", AnyInput("x")))] == [m.root for m in every]


def test_replace_all_uses_and_remove_dead() -> None:
    g = Graph()
    b = GraphBuilder(g)
    x = b.parameter("x", "f32", shape_from_ints((4,)))
    old = b.add("ReLU", "opset1", None, [x], "old")
    old.outputs[0].names = "y"
    b.result((old.id, old.outputs[0].id), "sink")
    unused = b.parameter("unused", "f32", shape_from_ints((1,)))
    new = b.add("Abs", "opset1", None, [x], "new")
    g.replace_all_uses(old, new)
    assert new.outputs[0].names == "y" and old.outputs[0].names is None
    assert g.remove_dead() == 1 and not g.has_layer(old.id)
    assert g.has_layer(unused[0])  # a model input stays


def test_a_layer_inserted_after_another_takes_its_uses() -> None:
    """relu -> sink; mul = Multiply(relu, 1) then replace_all_uses(relu, mul): the sink reads mul, and mul still reads
    relu (it read itself, a cycle, as the README's Swish example taught inserting; found by a QA run)."""
    g = Graph()
    b = GraphBuilder(g)
    x = b.parameter("x", "f32", shape_from_ints((4,)))
    relu = b.add("ReLU", "opset1", None, [x], "relu")
    sink = b.result((relu.id, relu.outputs[0].id), "sink")
    mul = b.add("Multiply", "opset1", None, [(relu.id, relu.outputs[0].id), b.const(np.ones((), np.float32), "one")],
                "times_one")
    g.replace_all_uses(relu, mul)
    assert g.producer_key(mul.id, mul.input_ids()[0]) == (relu.id, relu.outputs[0].id)
    assert g.producer_key(sink.id, sink.input_ids()[0]) == (mul.id, mul.outputs[0].id)
    assert g.find_cycle() is None


def test_the_toolkits_own_rewrites_are_passes() -> None:
    from ir_tools.onnx.network import SplicePooling
    from ir_tools.passes.legacy import LowerLegacy

    assert isinstance(to_opset8, ToOpset8) and issubclass(ToOpset8, Pass)
    assert issubclass(LowerLegacy, Pass) and issubclass(SplicePooling, Pass)
