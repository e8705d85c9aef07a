"""``ir_tools.check(path)`` gives what ``ir-tools check path`` prints: on every file of tests/data/bad, the samples
and the IR zoo (when built), OpenVINO's verdict included, and with ``openvino=False`` what ``--no-openvino`` prints."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import ir_tools
from ir_tools.cli import main
from ir_tools.ops.inverse import INVERSE_14
from ir_tools.ops.spec import OpSpec
from tests.conftest import ROOT, SAMPLES
from tests.test_openvino_verdict import refused as refused_text
from tests.test_openvino_verdict import unmodelled_model
from tests.zoo import ir_zoo_entries

BAD = Path(__file__).parent / "data" / "bad"

pytestmark = pytest.mark.openvino


def models(tmp_path: Path) -> list[Path]:
    """The corpus, the samples, the zoo, and a file only OpenVINO refuses (an Inverse of i32 data, where ir_tools'
    Inverse-14 is set aside)."""
    refused = unmodelled_model(tmp_path / "refused.xml")
    refused.write_text(refused_text(refused.read_text()))
    zoo = [Path(e["path"]) for e in ir_zoo_entries()]
    return [*sorted(BAD.glob("*.xml")), *sorted(SAMPLES.glob("*.xml")), *zoo, refused]


def cli_diagnostics(paths: list[Path], capsys, *options: str) -> dict[str, list[dict]]:
    """What ``ir-tools check --format json`` prints, per file."""
    main(["check", *map(str, paths), "--format", "json", *options])
    return {f["file"]: f["diagnostics"] for f in json.loads(capsys.readouterr().out)["files"]}


def stable(diagnostics: list[dict]) -> list[dict]:
    """The diagnostics less the numbers OpenVINO appends to the names it makes up (``Parameter_9``), which count
    the nodes made so far in the process."""
    return [dict(d, message=re.sub(r"(\w)_\d+\b", r"\1_N", d["message"])) if d["code"] == "E-OPENVINO" else d
            for d in diagnostics]


@pytest.mark.parametrize("openvino", [True, False])
def test_the_library_check_is_the_commands(tmp_path: Path, capsys, openvino: bool,
                                           set_aside: Callable[[OpSpec], None]) -> None:
    set_aside(INVERSE_14)  # (Inverse stands for an op without a rule of ours)
    paths = models(tmp_path)
    options = [] if openvino else ["--no-openvino"]
    # (the file only OpenVINO refuses checked alone, in this process, where Inverse-14 is set aside: the workers the
    # command checks many files in import ir_tools afresh)
    printed = cli_diagnostics(paths[:-1], capsys, *options) | cli_diagnostics(paths[-1:], capsys, *options)
    assert len(printed) == len(paths) >= 140
    differ = [p for p in paths
              if stable([d.to_dict() for d in ir_tools.check(p, openvino=openvino)]) != stable(printed[str(p)])]
    assert not differ, differ[:5]
    verdict = [d["code"] for d in printed[str(paths[-1])]]
    assert verdict == (["E-OPENVINO"] if openvino else [])


def test_check_takes_a_graph_as_it_is_in_memory(tmp_path: Path, set_aside: Callable[[OpSpec], None]) -> None:
    """``ir_tools.check(graph)`` raised TypeError (it took a path only; onnx.checker takes a ModelProto): now a Graph
    read from each file of the corpus and the samples is checked as the file is, OpenVINO's verdict included, and a
    change in memory is what is checked, not the file: the data of an Inverse (no rule of ours: its spec set aside)
    made i32, which only OpenVINO refuses, and back to f32 with the declared dims made wrong, which only OpenVINO's
    inference tells."""
    set_aside(INVERSE_14)
    paths = [*sorted(BAD.glob("*.xml")), *sorted(SAMPLES.glob("*.xml"))]
    for path in paths:
        try:
            graph = ir_tools.read_ir(path)
        except ir_tools.IrToolsError:
            continue  # (a file that cannot be read has no graph)
        for openvino in (True, False):
            ours = [d.to_dict() for d in ir_tools.check(graph, openvino=openvino)]
            assert stable(ours) == stable([d.to_dict() for d in ir_tools.check(path, openvino=openvino)]), path
    graph = ir_tools.read_ir(unmodelled_model(tmp_path / "inverse.xml"))
    assert ir_tools.check(graph) == []
    (inverse,) = graph.by_type("Inverse")
    (x,) = graph.parameters()
    ports = [x.outputs[0], inverse.inputs[0], inverse.outputs[0], graph.results()[0].inputs[0]]

    def data_of(element: str, precision: str) -> None:
        x.attrs["element_type"] = element
        for port in ports:
            port.precision = precision

    data_of("i32", "I32")
    assert [d.code for d in ir_tools.check(graph)] == ["E-OPENVINO"]
    assert ir_tools.check(graph, openvino=False) == []
    data_of("f32", "FP32")
    inverse.outputs[0].dims = (1, 4, 5)
    graph.results()[0].inputs[0].dims = (1, 4, 5)
    assert [(d.code, d.loc.layer_name) for d in ir_tools.check(graph)] == [("E-SHAPE", "inverse")]
    assert "OpenVINO infers [1,4,4]" in ir_tools.check(graph)[0].message
    with pytest.raises(ir_tools.IrToolsError, match="a Graph's weights are its own") as refused:
        ir_tools.check(graph, tmp_path / "inverse.bin")
    assert refused.value.code == "E-USAGE"


def test_the_library_compares_inspects_and_converts_as_the_commands_do(tmp_path: Path, capsys) -> None:
    from ir_tools.runtime.inputs import draw, recipes

    model = SAMPLES / "mixed_network.xml"
    graph = ir_tools.read_valid(model)
    made = recipes(graph, {})
    options = ir_tools.CompareOptions(per_layer=True, source={"seed": 0}, recipes=made)
    report = ir_tools.compare(graph, draw(made, 0), options).to_dict()
    assert main(["compare", str(model), "--per-layer", "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    for side in (report, printed):
        side.pop("timing", None)
    assert report == printed

    assert main(["inspect", str(model), "--format", "json"]) == 0
    assert ir_tools.inspect(model) == json.loads(capsys.readouterr().out)

    onnx_model = SAMPLES / "tricky_avgpool.onnx"
    ir_tools.write_ir(ir_tools.from_onnx(onnx_model), tmp_path / "api.xml")
    assert main(["convert-onnx", str(onnx_model), "-o", str(tmp_path / "cli.xml")]) == 0
    assert (tmp_path / "api.xml").read_bytes() == (tmp_path / "cli.xml").read_bytes()


def test_the_readme_python_example_runs(tmp_path: Path, monkeypatch, capsys) -> None:
    """The README's Python API block, run as written, from a folder holding a copy of the samples."""
    text = (ROOT / "README.md").read_text().split("## Python API", 1)[1]
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    shutil.copytree(SAMPLES, tmp_path / "samples")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102 (the README's code)
    assert "error[E-SHAPE]" in capsys.readouterr().out
    assert namespace["report"].passed and set(namespace["outputs"]) == {"adaptive_pool", "pool1"}
    assert 'version="10"' in (tmp_path / "old.xml").read_text()[:100] and namespace["legacy"].ir_version == 11
    assert namespace["wrong"] is not None and ir_tools.infer_shapes(namespace["wrong"]) == []
    assert set(namespace["seeded"]) == {"input"}
    assert all(layer.version == "opset8" for layer in namespace["legacy"].by_type("AvgPool"))


def test_migrate_for_a_target_makes_the_ir_version_it_reads(tmp_path) -> None:
    """ir_tools.migrate(graph, target='2021.4') left the graph IR v11, and write_ir wrote v11 by default: a file 2021.4
    cannot read, where the CLI writes v10 (found by a QA run of the library). A target given as a number is E-USAGE,
    not an AttributeError."""
    import pytest

    import ir_tools
    from tests.target_zoo import FIXTURES_DIR

    graph = ir_tools.read_valid(FIXTURES_DIR / "tiny_pool_net_f16.xml")
    assert graph.ir_version == 11 and ir_tools.migrate(graph, target="2021.4").modified and graph.ir_version == 10
    xml, _ = ir_tools.write_ir(graph, tmp_path / "v10.xml")
    assert 'version="10"' in xml.read_text()[:100]
    assert [d for d in ir_tools.check(xml, openvino=False, target="2021.4") if d.severity == "error"] == []
    with pytest.raises(ir_tools.IrToolsError) as caught:
        ir_tools.migrate(graph, target=2023.0)
    assert caught.value.code == "E-USAGE"


def test_write_ir_onto_a_directory_is_e_write_and_leaves_nothing(tmp_path) -> None:
    """write_ir(graph, 'outdir') raised a raw IsADirectoryError and left outdir.bin (found by a QA run of the
    library); E-CYCLE, not a bare ValueError, for a graph with a cycle asked for its order."""
    import pytest

    import ir_tools
    from tests.conftest import SAMPLES

    graph = ir_tools.read_valid(SAMPLES / "mixed_network.xml")
    (tmp_path / "outdir").mkdir()
    with pytest.raises(ir_tools.IrToolsError, match="cannot write .*outdir: Is a directory") as caught:
        ir_tools.write_ir(graph, tmp_path / "outdir")
    assert caught.value.code == "E-WRITE" and sorted(p.name for p in tmp_path.iterdir()) == ["outdir"]
    cyclic = ir_tools.read_ir(Path(__file__).parent / "data" / "bad" / "cycle.xml")
    for call in (ir_tools.infer_shapes, ir_tools.tensor_ports):
        with pytest.raises(ir_tools.IrToolsError, match="the graph has a cycle") as caught:
            call(cyclic)
        assert caught.value.code == "E-CYCLE"


def test_one_name_is_one_name_and_inputs_must_be_a_mapping() -> None:
    """extract(graph, 'conv1', 'relu1') cut at 'c', 'o', 'n'... ('no tensor is named 'c''), and compare(graph, None)
    raised a TypeError (found by a QA run of the library)."""
    import numpy as np
    import pytest

    import ir_tools
    from tests.conftest import SAMPLES

    graph = ir_tools.read_valid(SAMPLES / "mixed_network.xml")
    assert len(ir_tools.extract(graph, "conv1", "relu1")) == len(ir_tools.extract(graph, ["conv1"], ["relu1"]))
    for call in (ir_tools.run, ir_tools.compare):
        with pytest.raises(ir_tools.IrToolsError, match="inputs are a mapping of input name to array") as caught:
            call(graph, None)
        assert caught.value.code == "E-INPUT"
    assert ir_tools.run(graph, {"input": np.zeros((1, 3, 32, 32), np.float32)})


def test_the_library_seeds_inputs_and_fixes_dims_as_the_commands_do(tmp_path) -> None:
    """random_inputs and fix_shapes: the commands' seeded inputs (compare, run) and shapes --fix, from Python (there
    was no public way to either; found by a QA run of the library)."""
    import numpy as np

    import ir_tools
    from ir_tools.cli import main
    from tests.conftest import SAMPLES

    graph = ir_tools.read_valid(SAMPLES / "mixed_network.xml")
    assert main(["run", str(SAMPLES / "mixed_network.xml"), "--seed", "3", "-o", str(tmp_path / "cli.npz"), "-q"]) == 0
    ours = ir_tools.run(graph, ir_tools.random_inputs(graph, 3))
    theirs = np.load(tmp_path / "cli.npz")
    assert sorted(ours) == sorted(theirs) and all(np.array_equal(ours[k], theirs[k]) for k in ours)
    wrong = ir_tools.read_ir(SAMPLES / "wrong_dims.xml")
    assert [d.code for d in ir_tools.infer_shapes(wrong)] and ir_tools.fix_shapes(wrong) > 0
    assert ir_tools.infer_shapes(wrong) == []


def test_from_onnx_without_the_onnx_extra_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the onnx extra, from_onnx (and convert-onnx) raise E-USAGE naming the extra: from_onnx raised a bare
    ModuleNotFoundError ("No module named 'google'"), and the CLI ended its advice with those words."""
    import sys

    for name in [n for n in sys.modules if n == "ir_tools.onnx" or n.startswith("ir_tools.onnx.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "google.protobuf.message", None)  # (as if protobuf, and so onnx, were missing)
    with pytest.raises(ir_tools.IrToolsError) as raised:
        ir_tools.from_onnx("model.onnx")
    assert raised.value.code == "E-USAGE"
    assert raised.value.message == "from_onnx needs the onnx extra: pip install 'ir_tools[onnx]'"


def test_a_graph_editor_needs_no_private_import(tmp_path: Path) -> None:
    """What a pass writer needs is public (found by a QA run of the library: README's second example imported
    ``ir_tools.passes.builder.output_of``, rt_info needed ``ir_tools.ir.model.RtNode``, ``np.dtype("f16")`` is
    float128, and the comparisons' return types were not importable): weights compressed to f16, each Const
    followed by a Convert that carries OpenVINO's ``decompression`` mark, with public names only, and OpenVINO reads
    the mark; element types to numpy dtypes and back, E-ATTR for what has none."""
    import numpy as np
    import openvino as ov

    from ir_tools import AnyInput, Const, GraphBuilder, Op, Output, RtNode, matches, numpy_dtype, output_of

    graph = ir_tools.read_valid(Path(__file__).parent / "data" / "fuzz" / "dense.xml")  # a MatMul of f32 weights
    build, compressed = GraphBuilder(graph), 0
    for m in list(matches(graph, Op("MatMul", AnyInput("x"), Const("w")))):
        weights = m["w"]
        value = m.value("w").astype(numpy_dtype("f16"))
        assert ir_tools.element_type_of(value.dtype) == "f16"
        half: Output = build.const(value, f"{weights.name}/f16")
        widen = build.add("Convert", "opset1", build.attrs("Convert", "opset1", destination_type="f32"), [half],
                          f"{weights.name}/decompress")
        widen.rt_info = (RtNode("attribute", (("name", "decompression"), ("version", "0"))),)
        assert output_of(widen) == (widen.id, widen.outputs[0].id)
        graph.replace_all_uses(weights, widen)
        compressed += 1
    graph.remove_dead()
    written, _ = ir_tools.write_ir(graph, tmp_path / "f16.xml")
    assert ir_tools.check(written) == []
    model = ov.Core().read_model(written)
    marked = [op for op in model.get_ops()
              if op.get_type_name() == "Convert" and "decompression_0" in op.get_rt_info().keys()]
    assert len(marked) == compressed > 0
    for name in ("CompareReport", "TensorComparison", "LayerComparison", "OutputComparison", "Candidate"):
        assert isinstance(getattr(ir_tools, name), type) and getattr(ir_tools, name).__doc__
    assert [numpy_dtype(t) for t in ("f32", "FP16", "u4", "i4", "boolean")] == [
        np.float32, np.float16, np.uint8, np.int8, np.bool_]
    assert ir_tools.element_type_of(numpy_dtype("bf16")) == "bf16" and ir_tools.element_type_of(np.int64) == "i64"
    for wrong in ("f17", "string"):
        with pytest.raises(ir_tools.IrToolsError, match="not an element type") as caught:
            numpy_dtype(wrong)
        assert caught.value.code == "E-ATTR"
    with pytest.raises(ir_tools.IrToolsError, match=r"astype\('=f4'\)"):
        ir_tools.element_type_of(np.dtype(">f4"))


def _as_printed(report: dict) -> dict:
    """A report less what says where its inputs came from (the command records its seed and how it drew each input;
    the library is handed arrays) and its timing."""
    report.pop("timing", None)
    report["config"].pop("seed", None)
    for entry in report["inputs"]:
        entry.pop("dims"), entry.pop("values")
    return report


def _printed(capsys, *args: object) -> dict:
    main(["compare", *map(str, args), "--format", "json"])
    return _as_printed(json.loads(capsys.readouterr().out))


def test_the_library_compares_two_models_and_steps_as_the_commands_do(tmp_path: Path, capsys) -> None:
    """compare_against is ``compare A --against B`` (per layer, tolerances derived from the weights), also over the
    steps of a stateful model, and compare_steps is ``compare --steps N``: the library had neither (found by a QA run
    of the library), and ``compare`` refusing a stateful model pointed at the private runtime.steps.compare_steps."""
    from tests.target_zoo import FIXTURES_DIR

    model = SAMPLES / "mixed_network.xml"
    graph = ir_tools.read_valid(model)
    migrated, _ = ir_tools.write_ir(ir_tools.migrate(model).graph, tmp_path / "migrated.xml")
    report = ir_tools.compare_against(graph, migrated, ir_tools.random_inputs(graph), per_layer=True).to_dict()
    assert _as_printed(report) == _printed(capsys, model, "--against", migrated, "--per-layer")
    assert report["passed"] and report["layers"] and "weights f16 against f16" in report["config"]["tolerance"]
    against_graph = ir_tools.compare_against(graph, ir_tools.read_valid(migrated), ir_tools.random_inputs(graph))
    assert against_graph.passed and against_graph.to_dict()["against"]["model"] == str(migrated)

    llama = FIXTURES_DIR / "tiny_llama_stateful_f16.xml"
    stateful = ir_tools.read_valid(llama)
    steps = ir_tools.random_steps(stateful, 3)
    assert [s["input_ids"].shape for s in steps] == [(1, 8), (1, 1), (1, 1)]
    report = _as_printed(ir_tools.compare_steps(stateful, steps).to_dict())
    assert report == _printed(capsys, llama, "--steps", 3)
    assert report["passed"] and len(report["steps"]) == 3
    assert any(o["name"].startswith("state ") for o in report["outputs"])
    misspelt = ir_tools.CompareOptions(tolerances=ir_tools.Tolerances(atol_by_name={"logit": 1.0}))
    with pytest.raises(ir_tools.IrToolsError, match="the model has no output or layer 'logit'") as caught:
        ir_tools.compare_steps(stateful, steps, misspelt)  # (as compare --steps 3 --atol logit:1 refuses it)
    assert caught.value.code == "E-USAGE"
    other = tmp_path / "other.xml"
    shutil.copy(llama, other), shutil.copy(llama.with_suffix(".bin"), other.with_suffix(".bin"))
    report = _as_printed(ir_tools.compare_against(stateful, other, steps[:2]).to_dict())
    assert report == _printed(capsys, llama, "--against", other, "--steps", 2)
    assert report["passed"] and len(report["steps"]) == 2

    with pytest.raises(ir_tools.IrToolsError, match=r"\(ir_tools.compare_steps, compare --steps N\)"):
        ir_tools.compare(stateful, steps[0])
    for call in (lambda: ir_tools.compare_steps(graph, [ir_tools.random_inputs(graph)]),
                 lambda: ir_tools.compare_against(graph, migrated, [ir_tools.random_inputs(graph)])):
        with pytest.raises(ir_tools.IrToolsError, match="mixed_network.xml holds no state") as caught:
            call()
        assert caught.value.code == "E-USAGE"
    with pytest.raises(ir_tools.IrToolsError, match="mixed_network.xml holds none"):
        ir_tools.compare_against(stateful, model, steps)


def test_inputs_and_outputs_are_renamed_as_openvino_reads_them(tmp_path: Path) -> None:
    """rename_output names an output as OpenVINO reports it: renaming the tensor feeding a Result changed nothing
    OpenVINO, inspect or run showed (the name is the Result's ``output_names`` from OpenVINO 2025.1 on; found by a
    QA run of the library); a second Result of that tensor keeps its name; rename_input likewise, and in IR v10
    (where OpenVINO also names them after layers) too."""
    import openvino as ov

    from ir_tools import GraphBuilder, output_of

    graph = ir_tools.read_valid(SAMPLES / "mixed_network.xml")
    pool1 = graph.by_type("AvgPool")[0]
    GraphBuilder(graph).result(output_of(pool1), "pool1/again")
    ir_tools.rename_output(graph, "adaptive_pool", "logits")
    ir_tools.rename_output(graph, graph.results()[1], "pooled")
    ir_tools.rename_input(graph, "input", "pixels")
    written, _ = ir_tools.write_ir(graph, tmp_path / "renamed.xml")
    assert ir_tools.check(written) == []
    model = ov.Core().read_model(written)
    assert [o.get_names() for o in model.outputs] == [{"logits"}, {"pooled"}, {"pool1"}]
    assert [i.get_names() for i in model.inputs] == [{"pixels"}]
    assert [o["name"] for o in ir_tools.inspect(written)["outputs"]] == ["logits", "pooled", "pool1"]
    assert list(ir_tools.run(graph, ir_tools.random_inputs(graph))) == ["logits", "pooled", "pool1"]
    with pytest.raises(ir_tools.IrToolsError, match="tensor name 'relu1' is taken") as caught:
        ir_tools.rename_output(graph, "logits", "relu1")
    assert caught.value.code == "E-USAGE"
    with pytest.raises(ir_tools.IrToolsError, match=r"no input 'pixel' \(did you mean pixels\?\)"):
        ir_tools.rename_input(graph, "pixel", "x")

    old = ir_tools.migrate(SAMPLES / "avgpool14_16_mixed.xml", target="2021.4").graph
    assert old.ir_version == 10
    ir_tools.rename_output(old, "pool14", "first")
    ir_tools.rename_input(old, old.parameters()[0], "data")
    written, _ = ir_tools.write_ir(old, tmp_path / "v10.xml")
    model = ov.Core().read_model(written)
    assert [o.get_names() for o in model.outputs] == [{"first"}, {"pool16"}]
    assert [i.get_names() for i in model.inputs] == [{"data"}]


def test_a_pass_reaches_the_layers_of_a_loop_body(tmp_path: Path) -> None:
    """bodies gives a Loop's body as a Graph and set_bodies puts a changed one back: the layers inside bodies were out
    of the public API's reach (by_type, matches and passes see the top level; found by a QA run of the library). A
    pass turning the body's Add into a Multiply: the reference and OpenVINO both compute the change."""
    import numpy as np
    import openvino as ov

    from ir_tools import GraphBuilder, Op, Pass, matches

    class AddToMultiply(Pass):
        def apply(self, graph: ir_tools.Graph) -> bool:
            for loop in graph.by_type("Loop"):
                (body,) = ir_tools.bodies(graph, loop)
                for m in list(matches(body, Op("Add", name="add"))):
                    inputs = [(e.from_layer, e.from_port) for e in sorted(body.in_edges(m["add"].id),
                                                                          key=lambda e: e.to_port)]
                    body.replace_all_uses(m["add"], GraphBuilder(body).add("Multiply", "opset1", None, inputs,
                                                                           m["add"].name))
                body.remove_dead()
                ir_tools.set_bodies(graph, loop, [body])
            return True

    model = Path(__file__).parent / "data" / "by_design" / "loop_trip_count_parameter.xml"
    graph = ir_tools.read_valid(model)
    assert graph.by_type("Add") == [] and list(matches(graph, Op("Add"))) == []
    inputs = {"trip": np.array(3, np.int64), "x": np.array([[1.0, 2.0]], np.float32)}
    before = ir_tools.run(graph, inputs)["Loop_17"]
    (body,) = ir_tools.bodies(graph, graph.by_type("Loop")[0])
    assert [layer.type for layer in body.by_type("Add")] == ["Add"]
    AddToMultiply().run(graph)
    after = ir_tools.run(graph, inputs)["Loop_17"]
    written, _ = ir_tools.write_ir(graph, tmp_path / "multiplied.xml")
    assert ir_tools.check(written) == []
    assert not np.array_equal(before, after)
    assert np.array_equal(ov.Core().compile_model(str(written), "CPU")(inputs)[0], after)
    again = ir_tools.read_ir(written)
    (body,) = ir_tools.bodies(again, again.by_type("Loop")[0])
    assert body.by_type("Add") == [] and len(body.by_type("Multiply")) == 1
    with pytest.raises(ir_tools.IrToolsError, match="has 1 body, 2 given"):
        ir_tools.set_bodies(graph, graph.by_type("Loop")[0], [body, body])


def test_every_public_name_says_what_it_is() -> None:
    """Every name of ``ir_tools.__all__``, and every public method and property of its classes, has a docstring of its
    own (39 had none, GraphBuilder, Port and Pass.apply among them), and none points at numbered rules only the
    source holds ("rules 1-4"; found by a QA run of the library)."""
    import inspect

    missing, internal = [], []
    for name in ir_tools.__all__:
        obj = getattr(ir_tools, name)
        if hasattr(obj, "__origin__"):  # a type alias (Output)
            continue
        docs = [(name, obj.__dict__.get("__doc__") if inspect.isclass(obj) else obj.__doc__)]
        if inspect.isclass(obj):
            for attr, value in vars(obj).items():
                function = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
                if not attr.startswith("_") and (callable(function) or isinstance(value, property)):
                    docs.append((f"{name}.{attr}", function.__doc__))
        for what, doc in docs:
            if not doc or doc.startswith(what.split(".")[-1] + "("):  # none, or the dataclass's generated one
                missing.append(what)
            elif re.search(r"\brules? \d", doc):
                internal.append(what)
    assert not missing and not internal, (missing, internal)
def test_a_layer_inserted_after_a_model_input_leaves_the_input_its_name(tmp_path: Path) -> None:
    """replace_all_uses(parameter, convert), the README's way to insert a layer, moved the input's tensor name onto
    the Convert: OpenVINO's model.input("input") then failed on the file written (its replace_output_update_name
    keeps the name on the Parameter). A producer of a model output still hands its names on (the output keeps its)."""
    import openvino as ov

    graph = ir_tools.read_ir(SAMPLES / "mixed_network.xml")
    build = ir_tools.GraphBuilder(graph)
    (param,) = graph.parameters()
    cvt = build.add("Convert", "opset1", build.attrs("Convert", "opset1", destination_type="f32"), [param], "cvt")
    graph.replace_all_uses(param, cvt)
    assert (param.outputs[0].names, cvt.outputs[0].names) == ("input", None)
    ir_tools.write_ir(graph, tmp_path / "out.xml")
    model = ov.Core().read_model(tmp_path / "out.xml")
    assert model.input("input").get_node().get_friendly_name() == param.name
    assert [sorted(o.get_names()) for o in model.outputs] == [
        sorted(o.get_names()) for o in ov.Core().read_model(SAMPLES / "mixed_network.xml").outputs]


def test_a_layer_removed_before_an_output_leaves_the_output_its_name(tmp_path: Path) -> None:
    """Removing the layer that feeds a model output (``replace_all_uses(relu, its input)``, as onnx-graphsurgeon users
    rewire) lost the output's name in IR v10, whose outputs are named by the tensor feeding them: the names moved only
    onto a tensor without names of its own, and the Add's had 'add_t' (``model.output("relu_t")`` then failed on the
    file written). Now they join its names, as OpenVINO's ``Output.replace`` adds them: the file names each output
    as OpenVINO's own edit of the model does, in v10 and v11."""
    import numpy as np
    import openvino as ov
    import openvino.opset13 as ops

    x = ops.parameter([1, 4], np.float32, name="x")
    add = ops.add(x, ops.constant(np.ones((1, 4), np.float32)))
    add.output(0).set_names({"add_t"})
    relu = ops.relu(add)
    relu.output(0).set_names({"relu_t"})
    sigmoid = ops.sigmoid(add)
    sigmoid.output(0).set_names({"second"})
    ov.save_model(ov.Model([relu, sigmoid], [x]), tmp_path / "v11.xml")
    ir_tools.write_ir(ir_tools.read_ir(tmp_path / "v11.xml"), tmp_path / "v10.xml", ir_version=10)
    for version in ("v10", "v11"):
        graph = ir_tools.read_ir(tmp_path / f"{version}.xml")
        (relu_layer,) = graph.by_type("ReLU")
        graph.replace_all_uses(relu_layer, graph.producer_key(relu_layer.id, relu_layer.inputs[0].id))
        graph.remove_dead()
        ours, _ = ir_tools.write_ir(graph, tmp_path / f"ours_{version}.xml")
        model = ov.Core().read_model(tmp_path / f"{version}.xml")
        (ov_relu,) = [op for op in model.get_ops() if op.get_type_name() == "Relu"]
        ov_relu.output(0).replace(ov_relu.input_value(0))
        ov.save_model(model, tmp_path / f"theirs_{version}.xml")
        names = [[sorted(o.get_names()) for o in ov.Core().read_model(f).outputs] for f in (
            ours, tmp_path / f"theirs_{version}.xml")]
        assert names[0] == names[1] and "relu_t" in names[0][0], (version, names)
        assert ir_tools.check(ours) == []


def test_write_ir_refuses_weights_written_over_the_xml(tmp_path: Path) -> None:
    """write_ir(graph, X, bin_path=X) returned (X, X) and left an .xml whose weights it had written over
    (check: E-BIN-MISSING; OpenVINO refused it): E-OVERWRITE, and nothing written."""
    graph = ir_tools.read_valid(SAMPLES / "mixed_network.xml")
    for bin_path in (tmp_path / "model.xml", tmp_path / "sub" / ".." / "model.xml"):
        with pytest.raises(ir_tools.IrToolsError, match="is the .xml file") as caught:
            ir_tools.write_ir(graph, tmp_path / "model.xml", bin_path=bin_path)
        assert caught.value.code == "E-OVERWRITE"
    assert list(tmp_path.iterdir()) == []


def test_write_ir_at_another_ir_version_keeps_the_names_openvino_reports(tmp_path: Path) -> None:
    """write_ir(graph, path, ir_version=10) wrote a v11 graph's names as they were, which IR v10 reads otherwise: a
    file OpenVINO refused (an input's tensor named like the other input's layer: 'operation names have collisions with
    tensor names'), or one whose inputs and outputs gained names (resnet18's output reported as
    '__module.fc/aten::linear/Add'); --ir-version 10 made both right (set_ir_version), and now write_ir does."""
    import openvino as ov

    from ir_tools.ir.writer import write_ir as write_graph

    g = ir_tools.Graph("two_inputs")
    b = ir_tools.GraphBuilder(g)
    a, c = b.parameter("a", "f32", (1, 4)), b.parameter("b", "f32", (1, 4))
    g.layer(a[0]).outputs[0].names, g.layer(c[0]).outputs[0].names = "b_tensor", "a"
    total = b.add("Add", "opset1", None, [a, c], "sum")
    total.outputs[0].names = "sum"
    b.result(total, "sum/sink")
    for source in (g, ir_tools.read_ir(SAMPLES / "mixed_network.xml")):
        ir_tools.write_ir(source, tmp_path / "v11.xml")
        v11 = ov.Core().read_model(tmp_path / "v11.xml")
        ir_tools.write_ir(source, tmp_path / "v10.xml", ir_version=10)
        v10 = ov.Core().read_model(tmp_path / "v10.xml")
        assert source.ir_version == 10
        assert [p.get_any_name() for p in v10.inputs] == [p.get_any_name() for p in v11.inputs]
        assert [p.get_any_name() for p in v10.outputs] == [p.get_any_name() for p in v11.outputs]
    with pytest.raises(ir_tools.IrToolsError, match=r"the graph is IR v10, not v11: ir_tools.write_ir") as caught:
        write_graph(g, tmp_path / "raw.xml", 11)  # (the writer writes a graph at its own version: one rule)
    assert caught.value.code == "E-USAGE"


def test_random_inputs_refuses_shapes_the_command_refuses() -> None:
    """random_inputs(shapes=...) dropped a shape given for a misspelt input without a word, and drew an input of
    another rank than the model's; --shape refused both (its check is now the library's)."""
    graph = ir_tools.read_valid(SAMPLES / "mixed_network.xml")
    with pytest.raises(ir_tools.IrToolsError, match=r"no input 'inptu' \(did you mean input\?\)") as caught:
        ir_tools.random_inputs(graph, shapes={"inptu": (1, 3, 64, 64)})
    assert caught.value.code == "E-USAGE"
    with pytest.raises(ir_tools.IrToolsError, match=r"input 'input' has shape \[1, 3\], the model accepts") as caught:
        ir_tools.random_inputs(graph, shapes={"input": (1, 3)})
    assert caught.value.code == "E-INPUT"
    assert ir_tools.random_inputs(graph, shapes={"input": (1, 3, 32, 32)})["input"].shape == (1, 3, 32, 32)


def test_compare_takes_a_path_as_migrate_does() -> None:
    """compare(path, inputs) raised AttributeError ("'str' object has no attribute 'parameters'")."""
    graph = ir_tools.read_valid(SAMPLES / "mixed_network.xml")
    inputs = ir_tools.random_inputs(graph)
    assert not ir_tools.compare(str(SAMPLES / "mixed_network.xml"), inputs).failed


def test_inspect_spells_each_input_and_output_shape_as_openvino_reads_it() -> None:
    """An output's ``shape`` was null (only a Parameter has the attribute); it is now its dims spelled as OpenVINO's
    partial shape is, as an input's is: the same string OpenVINO's ``read_model`` gives, on the committed fixtures."""
    import openvino as ov

    fixtures = sorted((ROOT / "tests" / "data" / "target").glob("*.xml"))
    for xml in fixtures:
        model, info = ov.Core().read_model(xml), ir_tools.inspect(xml)
        ours = [f"[{t['shape']}]" for t in [*info["inputs"], *info["outputs"]]]
        assert ours == [str(port.partial_shape).replace(" ", "") for port in [*model.inputs, *model.outputs]], xml
