"""Model inputs and outputs without tensor names: IR v10 (named after layers, as OpenVINO names them) and
IR v11 (unnamed): compare runs them, migrate v10 -> v11 keeps the names OpenVINO gave, and --check passes."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import openvino as ov
import pytest

from ir_tools.cli import main
from tests.conftest import SAMPLES

pytestmark = pytest.mark.openvino


def _unnamed(tmp_path: Path, version: int) -> Path:
    """samples/avgpool14_ceil_torch.xml with every ``names`` and ``output_names`` attribute removed, as IR
    ``version``."""
    xml = tmp_path / f"unnamed_v{version}.xml"
    text = re.sub(r' (output_)?names="[^"]*"', "", (SAMPLES / "avgpool14_ceil_torch.xml").read_text())
    xml.write_text(text.replace('<net name="avgpool14_ceil_torch" version="11">',
                                f'<net name="avgpool14_ceil_torch" version="{version}">'))
    shutil.copy(SAMPLES / "avgpool14_ceil_torch.bin", xml.with_suffix(".bin"))
    return xml


@pytest.mark.parametrize("version", [10, 11])
def test_compare_feeds_inputs_without_names(version: int, tmp_path: Path, capsys) -> None:
    xml = _unnamed(tmp_path, version)
    assert f'version="{version}"' in xml.read_text()
    assert main(["compare", str(xml)]) == 0, capsys.readouterr()


def test_migrate_v10_to_v11_keeps_openvinos_names(tmp_path: Path, capsys) -> None:
    xml = _unnamed(tmp_path, 10)
    before = ov.Core().read_model(xml)
    out = tmp_path / "migrated.xml"
    assert main(["migrate", str(xml), "-o", str(out), "--check"]) == 0, capsys.readouterr()
    after = ov.Core().read_model(out)
    assert [p.get_names() for p in after.inputs] == [p.get_names() for p in before.inputs] == [{"input"}]
    assert [p.get_names() for p in after.outputs] == [p.get_names() for p in before.outputs]


def test_migrate_v10_to_v11_keeps_the_names_openvino_gives_after_layers(tmp_path: Path, capsys) -> None:
    """An IR v10 input and output whose ports are named ('z_in', 'z_out') beside their layers ('a_in', 'a_relu'):
    OpenVINO reports both names, the layer's as ``get_any_name``; written as v11 they lost the layer's (only an
    unnamed port was given it). And a Result's ``output_names`` ('other'), which no release reads in v10, named the
    v11 output instead of its tensor."""
    import numpy as np
    import openvino.opset8 as o8

    x = o8.parameter([2], np.float32, name="a_in")
    x.output(0).set_names({"z_in"})
    relu = o8.relu(x, name="a_relu")
    relu.output(0).set_names({"z_out"})
    ov.save_model(ov.Model([o8.result(relu, name="r")], [x]), tmp_path / "m.xml")
    text = (tmp_path / "m.xml").read_text().replace('version="11"', 'version="10"', 1)
    text = re.sub(r' output_names="[^"]*"', "", text).replace('name="r"', 'name="r" output_names="other"')
    v10 = tmp_path / "m_v10.xml"
    v10.write_text(text)
    shutil.copy(tmp_path / "m.bin", v10.with_suffix(".bin"))

    def names(xml: Path) -> list[list[str]]:
        read = ov.Core().read_model(xml)
        return [sorted(t.get_names()) for t in [*read.inputs, *read.outputs]]

    assert names(v10) == [["a_in", "z_in"], ["a_relu", "z_out"]]
    out = tmp_path / "m_v11.xml"
    assert main(["migrate", str(v10), "--ir-version", "11", "-o", str(out), "--check"]) == 0, capsys.readouterr()
    assert 'version="11"' in out.read_text()
    assert names(out) == names(v10)


def test_migrate_v11_to_v10_keeps_the_names_openvino_reports(tmp_path: Path, capsys) -> None:
    """IR v10 adds a layer-derived name to each input and output, and OpenVINO reports the smallest name: layers
    whose derived name would sort first (``__module.lm_head`` before ``logits``, ``a_split.0`` before ``y_first``)
    are renamed, so the v10 file reports v11's names, on the current OpenVINO and on each older one installed."""
    import numpy as np
    import openvino.opset8 as o8

    from tests.test_target import side_pythons

    x = o8.parameter([2, 3], np.float32, name="a_input")
    x.output(0).get_tensor().set_names({"input_ids"})
    head = o8.matmul(x, o8.constant(np.ones((3, 4), np.float32)), False, False, name="__module.lm_head/MatMul")
    head.output(0).get_tensor().set_names({"logits"})
    split = o8.split(head, o8.constant(np.int64(1)), 2, name="a_split")
    split.output(0).get_tensor().set_names({"y_first"})
    split.output(1).get_tensor().set_names({"z_second"})
    results = [o8.result(head, name="r0"), o8.result(split.output(0), name="r1"), o8.result(split.output(1), name="r2")]
    model = tmp_path / "named.xml"
    ov.save_model(ov.Model(results, [x], "named"), model, compress_to_fp16=False)
    out = tmp_path / "named_v10.xml"
    assert main(["migrate", str(model), "--ir-version", "10", "-o", str(out), "--check"]) == 0, capsys.readouterr()
    assert 'version="10"' in out.read_text()
    names = "import sys, openvino.runtime as ov; m = ov.Core().read_model(sys.argv[1]); " \
            "print(' '.join(t.get_any_name() for t in [*m.inputs, *m.outputs]))"
    want = "input_ids logits y_first z_second"
    read = ov.Core().read_model(out)
    assert " ".join(t.get_any_name() for t in [*read.inputs, *read.outputs]) == want
    for python in side_pythons().values():
        answer = subprocess.run([python, "-c", names, str(out)], capture_output=True, text=True, check=True)
        assert answer.stdout.split() == want.split(), python


def test_migrate_v11_to_v10_checks_an_unnamed_output(tmp_path: Path, capsys) -> None:
    """An output without a tensor name (a torchvision classifier as ``ov.convert_model`` gives it) is named after its
    Result in IR v11 and after its producer in v10: --check of a migration to v10 said it was MISSING and wrote
    nothing (found on convnext_tiny with --target 2021.4). The two are paired by their Result."""
    xml = _unnamed(tmp_path, 11)
    (result,) = [o.get_node().get_friendly_name() for o in ov.Core().read_model(xml).outputs]
    out = tmp_path / "v10.xml"
    assert main(["migrate", str(xml), "--ir-version", "10", "-o", str(out), "--check"]) == 0, capsys.readouterr()
    assert f"  {result}: same" in capsys.readouterr().out
    assert [o.get_names() for o in ov.Core().read_model(out).outputs] != [set()]  # (named in v10, by OpenVINO)


def test_migrate_v11_to_v10_checks_f16_outputs_as_the_original_gives_them(tmp_path: Path, capsys) -> None:
    """read_model gives an IR v10 model's f16 output as f32, unrounded: --check of an f16 model migrated to v10 (or
    for 2021.4, which reads v10 only) said it did not compute what the original computes (by up to half an f16 ulp)
    and wrote nothing. Rounded to f16, as the original gives it, each output is the original's, bit for bit."""
    import numpy as np
    import openvino.opset8 as o8

    rng = np.random.default_rng(0)
    x = o8.parameter([1, 3, 8, 8], np.float16, name="x")
    conv = o8.relu(o8.convolution(x, o8.constant(rng.standard_normal([4, 3, 3, 3]).astype(np.float16)), [1, 1],
                                  [1, 1], [1, 1], [1, 1]))
    flat = o8.reshape(conv, o8.constant(np.array([1, -1], np.int64)), False)
    logits = o8.matmul(flat, o8.constant((rng.standard_normal([256, 10]) * 0.1).astype(np.float16)), False, False)
    model = tmp_path / "f16.xml"
    ov.save_model(ov.Model([o8.softmax(logits, -1), logits], [x], "f16"), model, compress_to_fp16=False)
    for argv in (["--ir-version", "10"], ["--target", "2021.4"]):
        out = tmp_path / "f16_v10.xml"
        assert main(["migrate", str(model), *argv, "-o", str(out), "--check"]) == 0, capsys.readouterr()
        assert capsys.readouterr().out.count(": same (0/10 elements differ, max abs error 0;") == 2
        assert 'version="10"' in out.read_text()
        out.unlink()


def _two_names(folder: Path) -> Path:
    """x -> ReLU -> two Results of that one tensor, the outputs named 'first' and 'second' (each Result's
    ``output_names``, as the current OpenVINO writes them)."""
    import numpy as np
    import openvino.opset8 as o

    x = o.parameter([2, 3], np.float32, name="x")
    relu = o.relu(x)
    model = ov.Model([o.result(relu), o.result(relu)], [x], "two_names")
    model.outputs[0].set_names({"first"})
    model.outputs[1].set_names({"second"})
    ov.save_model(model, folder / "two_names.xml")
    return folder / "two_names.xml"


def test_a_results_own_names_name_the_output(tmp_path: Path, capsys) -> None:
    """Two Results of one tensor, named otherwise (OpenVINO writes each Result's ``output_names``, and reads them
    before the producer's names): ir_tools named both after the producer, so compare compared one output of two and
    said PASSED, and inspect listed the first name twice."""
    import json

    import numpy as np

    xml = _two_names(tmp_path)
    theirs = [sorted(out.get_names()) for out in ov.Core().read_model(xml).outputs]
    assert theirs == [["first"], ["second"]]  # (what the current OpenVINO reports: the test's premise)
    assert main(["inspect", str(xml), "--format", "json"]) == 0
    assert [out["name"] for out in json.loads(capsys.readouterr().out)["outputs"]] == ["first", "second"]
    assert main(["compare", str(xml), "--format", "json"]) == 0
    assert [out["name"] for out in json.loads(capsys.readouterr().out)["outputs"]] == ["first", "second"]
    assert main(["run", str(xml), "-o", str(tmp_path / "out.npz")]) == 0
    assert sorted(np.load(tmp_path / "out.npz")) == ["first", "second"]


def _names_on(python: str, xml: Path) -> list[list[str]]:
    """The output names OpenVINO of ``python`` reports for ``xml``."""
    script = ("import sys\ntry:\n    import openvino as ov\n    ov.Core\nexcept (ImportError, AttributeError):\n"
              "    import openvino.runtime as ov\n"
              "print([sorted(o.get_names()) for o in ov.Core().read_model(sys.argv[1]).outputs])")
    done = subprocess.run([python, "-c", script, str(xml)], capture_output=True, text=True, check=True)
    return eval(done.stdout.strip().splitlines()[-1])  # noqa: S307 (a list of lists of str, printed by the child)


def test_outputs_named_otherwise_than_their_tensor_keep_their_names_on_older_releases(tmp_path: Path,
                                                                                     capsys) -> None:
    """Two Results of one tensor, named otherwise: OpenVINO before 2025.1 names both after the tensor, and the
    current OpenVINO refuses such an IR v10 file ("Model tensor names have collisions"); migrate wrote both forms
    without a word. check --target names the output; migrate --target and --ir-version 10 give it a tensor of its
    own, and every release measured reports both names."""
    import ir_tools
    from tests.test_target import side_pythons

    def errors(target: str) -> list:
        return [d for d in ir_tools.check(xml, openvino=False, target=target) if d.severity == "error"]

    xml = _two_names(tmp_path)
    found = errors("2024.0")
    assert len(found) == 1 and "not 'second' (the Result's output_names" in found[0].message, found
    assert errors("2025.1") == []
    for args, out in ((["--target", "2024.0"], tmp_path / "v11.xml"), (["--ir-version", "10"], tmp_path / "v10.xml")):
        assert main(["migrate", str(xml), *args, "-o", str(out), "--check"]) == 0, capsys.readouterr()
        assert "Convert@opset1                    0      1" in capsys.readouterr().out
        assert [sorted(o.get_names()) for o in ov.Core().read_model(out).outputs] == [["first"], ["second"]]
        for release, python in side_pythons().items():
            assert _names_on(python, out) == [["first"], ["second"]], (release, out)


def test_names_keep_their_blanks_as_openvino_reads_them(tmp_path: Path, capsys) -> None:
    """Tensor names with blanks at their ends (' lead', 'trail ', ' out '): OpenVINO from 2025.1 on splits a ``names``
    attribute at unescaped commas only and keeps the blanks; ir_tools stripped them, so extract, rename_input and
    rename_output refused OpenVINO's names, and the CLI's extract wrote the input renamed ('lead')."""
    import numpy as np
    import openvino.opset13 as o

    import ir_tools

    x = o.parameter([2], np.float32, name="in")
    x.output(0).set_names({" lead", "trail "})
    relu = o.relu(x)
    relu.output(0).set_names({" out "})
    xml = tmp_path / "blanks.xml"
    ov.save_model(ov.Model([relu], [x]), xml)
    graph = ir_tools.read_ir(xml)
    assert set(ir_tools.tensor_ports(graph)) == {" lead", "trail ", " out "}
    assert [p.name for p in ir_tools.extract(graph, [" lead"], [" out "]).parameters()] == ["in"]
    ir_tools.rename_input(graph, " lead", "x")
    ir_tools.rename_output(graph, " out ", "y")
    part = tmp_path / "part.xml"
    args = ["extract", str(xml), "--inputs", " lead", "--outputs", " out ", "-o", str(part)]
    assert main(args) == 0, capsys.readouterr()
    read = ov.Core().read_model(part)
    assert [sorted(i.get_names()) for i in read.inputs] == [[" lead", "trail "]]
    assert [sorted(i.get_names()) for i in read.outputs] == [[" out "]]


def _names(python: str, xml: Path) -> object:
    """The input and output names OpenVINO of ``python`` reports for ``xml``, or its refusal's first words."""
    script = ("import sys\ntry:\n    import openvino as ov\n    ov.Core\nexcept (ImportError, AttributeError):\n"
              "    import openvino.runtime as ov\ntry:\n    m = ov.Core().read_model(sys.argv[1])\n"
              "except Exception as e:\n    print(repr('refused: ' + str(e).strip().splitlines()[-1][:60]))\nelse:\n"
              "    print([[sorted(t.get_names()) for t in m.inputs], [sorted(t.get_names()) for t in m.outputs]])")
    done = subprocess.run([python, "-c", script, str(xml)], capture_output=True, text=True, check=True)
    return eval(done.stdout.strip().splitlines()[-1])  # noqa: S307 (a list or a str, printed by the child)


def test_v10_of_an_input_that_is_an_output_or_a_tensor_of_two_outputs_reads_on_every_release(tmp_path: Path,
                                                                                            capsys) -> None:
    """A Parameter feeding a Result, a tensor feeding two Results: their names written on the port in IR v10, 2023.0-
    2024.6 read the file and 2025.0 on refuse it ('Model tensor names have collisions': each Result a tensor of its
    own), which check without OpenVINO passed. migrate --ir-version 10 now names such a tensor after its layer alone,
    and every release reports v11's names; check says E-NAME-COLLISION of the old form; several names are refused.
    TopK's indices 'ti' read by two Results were refused too (its layer adds 'L.1'): they now read a Convert 'ti'."""
    import sys

    import numpy as np
    import openvino.opset13 as o

    import ir_tools
    from ir_tools.ir.writer import write_ir as write_as_is
    from tests.test_target import side_pythons

    x = o.parameter([2], np.float32, name="x")
    ov.save_model(ov.Model([x.output(0)], [x]), tmp_path / "param_to_result.xml")
    x = o.parameter([2], np.float32, name="x")
    relu = o.relu(x)
    ov.save_model(ov.Model([o.result(relu), o.result(relu)], [x]), tmp_path / "two_results.xml")
    x = o.parameter([2, 6], np.float32, name="x")
    topk = o.topk(x, o.constant(np.int64(3)), 1, "max", "value", name="tk")
    topk.output(0).set_names({"tv"})
    topk.output(1).set_names({"ti"})
    ov.save_model(ov.Model([topk.output(0), topk.output(1), topk.output(1)], [x]), tmp_path / "topk_indices.xml")
    pythons = {"current": sys.executable, **side_pythons()}
    for model in ("param_to_result", "two_results", "topk_indices"):
        xml = tmp_path / f"{model}.xml"
        want = _names(sys.executable, xml)
        out = tmp_path / f"{model}_v10.xml"
        assert main(["migrate", str(xml), "--ir-version", "10", "-o", str(out)]) == 0, capsys.readouterr()
        assert 'version="10"' in out.read_text()
        capsys.readouterr()
        if model == "topk_indices":  # (and the name IR v10 adds after TopK 'tv', renamed so, to its values)
            want = [[["x"]], [["tv", "tv.0"], ["ti"], ["ti"]]]
        for release, python in pythons.items():
            assert _names(python, out) == want, (model, release)
        old = ir_tools.read_ir(xml)  # the form written before: the names on the port
        old.ir_version = 10
        write_as_is(old, tmp_path / f"{model}_old.xml")
        assert str(_names(sys.executable, tmp_path / f"{model}_old.xml")).startswith("refused: Model tensor names")
        assert [d.code for d in ir_tools.check(tmp_path / f"{model}_old.xml", openvino=False)] == ["E-NAME-COLLISION"]
    x = o.parameter([2], np.float32, name="x")
    x.output(0).set_names({"a", "b"})
    ov.save_model(ov.Model([x.output(0)], [x]), tmp_path / "two_names.xml")
    assert main(["migrate", str(tmp_path / "two_names.xml"), "--ir-version", "10", "-o", str(tmp_path / "n.xml")]) == 2
    assert "error[E-NAME-COLLISION]: IR v10 cannot name these tensors" in capsys.readouterr().err
    assert not (tmp_path / "n.xml").exists()


def test_a_v10_results_output_names_are_read_by_no_release(tmp_path: Path, capsys) -> None:
    """A Parameter feeding a Result (its ``output_names`` the input's name): written as IR v10 the tensor is named
    after its layer alone, the Result's ``output_names`` left, which no release reads in v10. OwnOutputTensors took
    them for a name the output lacked: check --target of the v10 file said E-TARGET, migrate --target of it, and
    migrate --target 2021.4 of the v11 original (retargeted again as v10), failed (E-PASS, 'x' on two tensors)."""
    import sys

    import numpy as np
    import openvino.opset13 as o

    import ir_tools
    from tests.test_target import side_pythons

    x = o.parameter([2], np.float32, name="x")
    x.output(0).set_names({"x"})
    ov.save_model(ov.Model([o.result(o.relu(x), name="relu"), o.result(x, name="echo")], [x]), tmp_path / "m.xml")
    want = _names(sys.executable, tmp_path / "m.xml")
    v10 = tmp_path / "m_v10.xml"
    assert main(["migrate", str(tmp_path / "m.xml"), "--ir-version", "10", "-o", str(v10)]) == 0
    assert 'output_names="x"' in v10.read_text()
    assert [d for d in ir_tools.check(v10, openvino=False, target="2023.0") if d.severity == "error"] == []
    assert main(["migrate", str(v10), "--target", "2023.0", "-o", str(tmp_path / "again.xml")]) == 0
    out = tmp_path / "m_2021.4.xml"
    assert main(["migrate", str(tmp_path / "m.xml"), "--target", "2021.4", "-o", str(out)]) == 0, capsys.readouterr()
    reported = [[min(names) for names in side] for side in want]  # (``get_any_name``: v10 adds 'relu_' to 'relu')
    for release, python in {"current": sys.executable, **side_pythons()}.items():
        assert [[min(names) for names in side] for side in _names(python, v10)] == reported, release
    assert [[min(names) for names in side] for side in _names(sys.executable, out)] == reported


def test_a_name_two_tensors_hold_is_the_one_openvino_keeps(tmp_path: Path) -> None:
    """A pass puts a Multiply between 'logits' and its Result by rewiring the edge: the file keeps names="logits" on
    the ReLU and output_names="logits" on the Result. OpenVINO (2025.1 on) gives the Result's names to the Multiply's
    tensor, which keeps 'logits' (a tensor feeding a Result before one that does not), and calls the ReLU's
    'logits_1'; ir_tools said 'logits' was the ReLU's, so extract(['logits']) cut another tensor than OpenVINO's, and
    check said nothing."""
    import numpy as np
    import openvino.opset13 as o

    import ir_tools
    from ir_tools import Edge, GraphBuilder

    x = o.parameter([1, 4], np.float32, name="input")
    relu = o.relu(o.add(x, o.constant(np.float32(-0.5))))
    relu.output(0).set_names({"logits"})
    xml = tmp_path / "net.xml"
    ov.save_model(ov.Model([relu], [x]), xml)
    graph = ir_tools.read_ir(xml)
    result = graph.results()[0]
    source = graph.producer_key(result.id, 0)
    scale = GraphBuilder(graph).add("Multiply", "opset1", None, [source, GraphBuilder(graph).const(
        np.array(2, np.float32), "two")], "scale")
    for edge in graph.producers(result.id, 0):
        graph.remove_edge(edge)
    graph.add_edge(Edge(scale.id, scale.outputs[0].id, result.id, 0))
    scaled = tmp_path / "scaled.xml"
    ir_tools.write_ir(graph, scaled)
    theirs = {op.get_friendly_name(): sorted(op.output(0).get_names()) for op in ov.Core().read_model(scaled).get_ops()
              if op.get_friendly_name() in ("scale", graph.layer(source[0]).name)}
    assert theirs == {"scale": ["logits"], graph.layer(source[0]).name: ["logits_1"]}  # (the premise: 2025.1 on)
    graph = ir_tools.read_ir(scaled)
    ports = ir_tools.tensor_ports(graph)
    assert graph.layer(ports["logits"][0]).name == "scale" and ports["logits_1"] == source
    part = tmp_path / "part.xml"
    ir_tools.write_ir(ir_tools.extract(graph, ["input"], ["logits"]), part)
    feed = np.array([[-1, 0.25, 1, 3]], np.float32)
    full = ov.Core().compile_model(scaled, "CPU")(feed)
    want = next(value for out, value in full.items() if "logits" in out.get_names())
    assert np.array_equal(next(iter(ov.Core().compile_model(part, "CPU")(feed).values())), want)
    found = [d for d in ir_tools.check(scaled, openvino=False) if d.code == "W-NAME-DUP"]
    assert len(found) == 1 and "tensor name 'logits' is also on layer 'scale'" in found[0].message
    assert "OpenVINO reads this one as tensor name 'logits_1'" in found[0].message


def test_inputs_and_outputs_of_one_name_are_named_as_openvino_reads_them(tmp_path: Path, capsys) -> None:
    """A model whose output has its input's name (a UNet's 'sample'), and two outputs of other tensors named alike:
    OpenVINO (2025.1 on) reads the later ones renamed ('x_1', 'y_1'), and ir_tools called them 'x' and 'y' in inspect,
    run and compare (found by a sweep, with a UNet migrated for 2021.4). Every name is now OpenVINO's, and run's
    outputs are the compiled model's by those names."""
    import numpy as np
    import openvino.opset13 as o

    import ir_tools
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import OpenVinoRunner

    x = o.parameter([2, 3], np.float32, name="x")
    relu, exp, neg = o.relu(x), o.exp(x), o.negative(x)
    relu.output(0).set_names({"x"})
    exp.output(0).set_names({"y"})
    neg.output(0).set_names({"y"})
    xml = tmp_path / "twice.xml"
    ov.save_model(ov.Model([relu, exp, neg], [x]), xml, compress_to_fp16=False)
    model = ov.Core().read_model(xml)
    theirs = ([sorted(i.get_names()) for i in model.inputs], [sorted(o.get_names()) for o in model.outputs])
    assert theirs == ([["x"]], [["x_1"], ["y"], ["y_1"]])  # (the premise: 2025.1 on)
    info = ir_tools.inspect(xml)
    assert ([[i["name"]] for i in info["inputs"]], [[o["name"]] for o in info["outputs"]]) == theirs
    graph = ir_tools.read_valid(xml)
    feed = {"x": np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)}
    ours = OpenVinoRunner(graph, ModelFiles(xml, xml.with_suffix(".bin"))).run(feed)
    compiled = ov.Core().compile_model(model, "CPU")(feed["x"])
    assert list(ours) == ["x_1", "y", "y_1"]
    for out, value in compiled.items():
        np.testing.assert_array_equal(ours[out.get_any_name()], value)
    assert main(["compare", str(xml)]) == 0
    assert "[PASS] x_1 [2, 3]" in capsys.readouterr().out


def test_names_on_ports_that_repeat_an_id_are_no_internal_error(tmp_path: Path) -> None:
    """A TopK's two named outputs given one id (E-PORT: OpenVINO refuses the file): the names of one were taken for
    the other's, and the check of names on two tensors failed (E-INTERNAL, KeyError: 't16'; the mutation fuzzer's
    seed 58034)."""
    import ir_tools

    source = Path(__file__).parent / "data" / "fuzz" / "dense.xml"
    text = source.read_text()
    assert text.count('<port id="3" precision="I64" names="Result_20">') == 1
    model = tmp_path / "dense.xml"
    model.write_text(text.replace('<port id="3" precision="I64" names="Result_20">',
                                  '<port id="2" precision="I64" names="Result_20">'))
    shutil.copy(source.with_suffix(".bin"), tmp_path / "dense.bin")
    codes = {d.code for d in ir_tools.check(model, openvino=False)}
    assert "E-PORT" in codes and "E-INTERNAL" not in codes, codes


def test_a_rewritten_v10_output_keeps_the_name_openvino_gives_after_its_layer(tmp_path: Path, capsys) -> None:
    """An IR v10 output is also named after the layer feeding it ('mypad', its ``get_any_name``): migrate --target
    2023.0 rewrote that Pad-12 into Pad-1 and a StridedSlice 'mypad/crop', which then named the output ('mypad'
    lost, on every release). The layer the rewrite ends in now takes the name."""
    import sys

    import numpy as np
    import openvino.opset8 as o8
    import openvino.opset12 as o12

    from tests.test_target import side_pythons

    x = o8.parameter([2, 5], np.float32, name="x")
    pads = [o8.constant(np.array(p, np.int64)) for p in ([0, -1], [0, 1])]
    pad = o12.pad(x, *pads, "constant", name="mypad")
    pad.output(0).set_names({"zout"})
    ov.save_model(ov.Model([o8.result(pad, name="r")], [x]), tmp_path / "m.xml", compress_to_fp16=False)
    v10 = tmp_path / "m_v10.xml"
    v10.write_text(re.sub(r' output_names="[^"]*"', "", (tmp_path / "m.xml").read_text())
                   .replace('version="11"', 'version="10"', 1))
    shutil.copy(tmp_path / "m.bin", v10.with_suffix(".bin"))
    want = _names(sys.executable, v10)
    assert want == [[["x"]], [["mypad", "zout"]]]
    out = tmp_path / "m_2023.0.xml"
    assert main(["migrate", str(v10), "--target", "2023.0", "-o", str(out), "--check"]) == 0, capsys.readouterr()
    assert "StridedSlice" in out.read_text()
    for release, python in {"current": sys.executable, **side_pythons()}.items():
        assert _names(python, out) == want, release


@pytest.mark.parametrize("body", ["topk", "named_as_the_if"])
def test_a_v10_output_of_an_inlined_if_keeps_its_name(tmp_path: Path, capsys, body: str) -> None:
    """An IR v10 If-8 'z' (condition always true, its outputs of two ranks: 2023.0-2025.4 compile no such If) whose
    output migrate --target inlines, on every release, in v10 and v11: OpenVINO named it after the body's layers.
    ``topk``: the body returns TopK 'tk''s values; the output was named 'tk.0' (its ``get_any_name``, before 'z');
    it now reads a tensor of its own, a Convert named 'z'. ``named_as_the_if``: a layer of the body before its last
    is named 'z' too; the output was named after the last, 'm'; that layer is now renamed 'z_'."""
    import sys

    import numpy as np
    import openvino.opset8 as o
    import openvino.opset11 as o11

    from tests.downgrade.test_if_branch import always_true
    from tests.test_target import side_pythons

    x = o.parameter([-1, 3], np.float32, name="x")
    x.output(0).set_names({"x"})
    then_x, else_x = o.parameter([-1, 3], np.float32), o.parameter([-1, 3], np.float32)
    if body == "topk":
        then_out = o11.topk(then_x, o.constant(np.int64(2)), 1, "max", "value", name="tk").output(0)
    else:
        then_out = o.multiply(o.relu(then_x, name="z"), o.constant(np.float32(2)), name="m").output(0)
    branch = o.if_op(always_true(x).output(0))
    branch.set_then_body(ov.Model([o.result(then_out)], [then_x]))
    branch.set_else_body(ov.Model([o.result(o.unsqueeze(else_x, o.constant(np.int64(0))))], [else_x]))
    branch.set_input(x.output(0), then_x, else_x)
    out = branch.set_output(branch.get_then_body().get_results()[0], branch.get_else_body().get_results()[0])
    out.set_names({"z"})
    ov.save_model(ov.Model([out], [x]), tmp_path / "m.xml", compress_to_fp16=False)
    v10 = tmp_path / "m_v10.xml"
    assert main(["migrate", str(tmp_path / "m.xml"), "--ir-version", "10", "-o", str(v10)]) == 0
    want = _names(sys.executable, v10)
    assert want == [[["x"]], [["z"]]]
    for version in ("10", "11"):
        written = tmp_path / f"m_2023.0_v{version}.xml"
        assert main(["migrate", str(v10), "--target", "2023.0", "--ir-version", version, "-o", str(written),
                     "--check"]) == 0, capsys.readouterr()
        assert 'type="If"' not in written.read_text()
        for release, python in {"current": sys.executable, **side_pythons()}.items():
            assert _names(python, written) == want, (release, version)


def test_an_output_named_by_one_of_its_tensors_names_gets_a_tensor_of_its_own(tmp_path: Path, capsys) -> None:
    """Two Results of a tensor named 'a', 'b', the second's output named 'b' alone (what ``save_model`` writes after
    ``model.outputs[1].set_names({'b'})``): the current OpenVINO reports ['a', 'b'] and ['b'], 2023.0-2025.0 both
    outputs ['a', 'b']. check --target 2023.0 promised a tensor of its own, and migrate refused ('b' on two tensors,
    E-NAME-COLLISION): the original reports 'b' twice already, and 2023.0-2025.0 report the written IR v11 file's
    outputs as the current one the original's. In IR v10 no release reads 'b' on two output tensors: check says
    migrate --target 2021.4 refuses the model, as it does."""
    import sys

    import numpy as np
    import openvino.opset8 as o

    import ir_tools
    from tests.test_target import side_pythons

    x = o.parameter([2], np.float32, name="x")
    relu = o.relu(x)
    relu.output(0).set_names({"a"})
    model = ov.Model([o.result(relu), o.result(relu)], [x])
    model.outputs[1].set_names({"b"})
    xml = tmp_path / "m.xml"
    ov.save_model(model, xml)
    want = _names_on(sys.executable, xml)
    assert want == [["a", "b"], ["b"]]
    (found,) = [d for d in ir_tools.check(xml, openvino=False, target="2023.0") if d.severity == "error"]
    assert "gives it a tensor of its own" in found.message
    out = tmp_path / "m_2023.0.xml"
    assert main(["migrate", str(xml), "--target", "2023.0", "-o", str(out)]) == 0, capsys.readouterr()
    for release, python in side_pythons().items():
        assert _names_on(python, out) == want, release
    found = [d for d in ir_tools.check(xml, openvino=False, target="2021.4") if d.loc.layer_id is not None]
    assert len(found) == 1 and "refuses the model" in found[0].message, found
    assert main(["migrate", str(xml), "--target", "2021.4", "-o", str(tmp_path / "v10.xml")]) == 2
    assert "E-NAME-COLLISION" in capsys.readouterr().err


def test_a_u32_output_named_otherwise_gets_a_tensor_of_its_own(tmp_path: Path, capsys) -> None:
    """Two Results of one u32 tensor, named otherwise: the tensor of its own (a Convert u32 -> u32) was refused for
    2023.0-2025.0 as ``integer_convert_saturates`` (the table lists u32->u32: a u32 of 2^31 or more is read as
    2147483647). A Convert to its own type is the identity on every release (measured on 2023.0, 2024.0, 2024.1,
    2025.0: u32 and u64 through one equal those without); the file runs on each as the current OpenVINO the
    original, names too."""
    import sys

    import numpy as np
    import openvino.opset8 as o

    from tests.downgrade.runs import assert_runs_equal
    from tests.test_target import side_pythons

    x = o.parameter([2, 3], np.uint32, name="x")
    add = o.add(x, o.constant(np.arange(6, dtype=np.uint32).reshape(2, 3)))
    model = ov.Model([o.result(add), o.result(add)], [x], "u32")
    model.outputs[0].set_names({"first"})
    model.outputs[1].set_names({"second"})
    xml = tmp_path / "u32.xml"
    ov.save_model(model, xml)
    for release in side_pythons():
        out = tmp_path / f"u32_{release}.xml"
        assert main(["migrate", str(xml), "--target", release, "-o", str(out)]) == 0, capsys.readouterr()
        assert _names_on(side_pythons()[release], out) == _names_on(sys.executable, xml) == [["first"], ["second"]]
        assert assert_runs_equal(xml, out, releases=(release,)) == 2
        big = {"x": np.array([[0, 2**31 - 1, 2**31], [3000000000, 2**32 - 7, 5]], np.uint32)}  # (read as 2^31-1 there)
        got = [_run_on(side_pythons()[release], m, big) for m in (xml, out)]
        assert all(np.array_equal(got[0][k], got[1][k]) for k in ("first", "second")), got


def _run_on(python: str, xml: Path, inputs: dict) -> dict:
    """The outputs of ``xml`` on the OpenVINO of ``python``, fed ``inputs``."""
    import ir_tools
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner

    return ChildOpenVinoRunner(python, ir_tools.read_valid(xml), ModelFiles(xml, xml.with_suffix(".bin"))).run(inputs)


def test_run_and_compare_ignore_a_v10_results_output_names(tmp_path: Path, capsys) -> None:
    """An IR v10 Result with ``output_names`` 'zzz' beside its producer 'relu' of tensor 'a': every release (2023.0,
    2024.0, 2025.0, 2026.4 measured) reports ['a', 'relu'] and reads no ``output_names`` in v10, but run keyed the
    output 'zzz', and compare --load-outputs of the v11 original's saved outputs ('a') refused them."""
    import numpy as np
    import openvino.opset8 as o

    x = o.parameter([2], np.float32, name="x")
    relu = o.relu(x, name="relu")
    relu.output(0).set_names({"a"})
    ov.save_model(ov.Model([o.result(relu)], [x]), tmp_path / "m.xml")
    v10 = tmp_path / "m_v10.xml"
    v10.write_text(re.sub(r' output_names="[^"]*"', ' output_names="zzz"',
                          (tmp_path / "m.xml").read_text().replace('version="11"', 'version="10"', 1)))
    shutil.copy(tmp_path / "m.bin", v10.with_suffix(".bin"))
    assert [sorted(t.get_names()) for t in ov.Core().read_model(v10).outputs] == [["a", "relu"]]
    assert main(["run", str(v10), "-o", str(tmp_path / "out.npz")]) == 0
    assert sorted(np.load(tmp_path / "out.npz")) == ["a"]
    saved = tmp_path / "saved.npz"
    assert main(["compare", str(tmp_path / "m.xml"), "--save-outputs", str(saved)]) == 0
    assert main(["compare", str(v10), "--load-outputs", str(saved)]) == 0, capsys.readouterr()


def test_v10_names_added_after_layers_name_no_other_tensor(tmp_path: Path, capsys) -> None:
    """A v11 output 'res' whose Result is named 'res', so IR v10 names its producer 'res_' (v10 adds the layer's name
    to the output's): beside another output 'res_', migrate --ir-version 10 refused its own file (E-NAME-COLLISION),
    and beside an inner tensor 'res_' the output reported that name too. The producer is named 'res__'; every
    release reports the v11 names (and 'res__')."""
    import sys

    import numpy as np
    import openvino.opset8 as o

    from tests.test_target import side_pythons

    for other in ("output", "inner"):
        x = o.parameter([2], np.float32, name="x")
        before = o.exp(x, name="e")
        before.output(0).set_names({"res_"})
        relu = o.relu(before if other == "inner" else x, name="relu")
        relu.output(0).set_names({"res"})
        results = [o.result(relu, name="res"), *([o.result(before, name="r2")] if other == "output" else [])]
        xml = tmp_path / f"{other}.xml"
        ov.save_model(ov.Model(results, [x]), xml)
        out = tmp_path / f"{other}_v10.xml"
        assert main(["migrate", str(xml), "--ir-version", "10", "-o", str(out)]) == 0, capsys.readouterr()
        want = [["res", "res__"], *([["res_"]] if other == "output" else [])]
        for release, python in {"current": sys.executable, **side_pythons()}.items():
            assert _names_on(python, out) == want, (other, release)


def test_v10_names_added_after_a_layer_of_several_outputs_name_no_other_tensor(tmp_path: Path, capsys) -> None:
    """TopK 'B' of outputs 'a' and 'b' beside an output 'b.1': IR v10 names TopK's outputs after it too, so it was
    named 'b' (its outputs' largest smallest name), adding 'b.1', and migrate --ir-version 10 refused its own file
    (E-NAME-COLLISION, "fix the errors first"). It is named 'b_'; every release reports the v11 names (and 'b_.N')."""
    import sys

    import numpy as np
    import openvino.opset8 as o
    import openvino.opset11 as o11

    from tests.test_target import side_pythons

    x = o.parameter([2, 6], np.float32, name="x")
    relu = o.relu(x, name="A")
    relu.output(0).set_names({"b.1"})
    topk = o11.topk(x, o.constant(np.int64(3)), 1, "max", "value", name="B")
    topk.output(0).set_names({"a"})
    topk.output(1).set_names({"b"})
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([relu.output(0), topk.output(0), topk.output(1)], [x]), xml)
    out = tmp_path / "m_v10.xml"
    assert main(["migrate", str(xml), "--ir-version", "10", "-o", str(out)]) == 0, capsys.readouterr()
    want = [["b.1"], ["a", "b_.0"], ["b", "b_.1"]]
    for release, python in {"current": sys.executable, **side_pythons()}.items():
        assert _names_on(python, out) == want, release


def test_v10_of_an_if_whose_body_returns_one_tensor_twice_compiles(tmp_path: Path, capsys) -> None:
    """An If of a constant condition whose then body returns one tensor as two outputs: OpenVINO folds it, and from
    2025.0 on (2026.4 too) compiled no IR v10 form of it ("Model operation names have collisions with tensor names"),
    which migrate --ir-version 10 wrote, the v11 original compiling. The body's second Result now reads a Convert."""
    import openvino.opset8 as o

    from tests.downgrade.test_if_branch import if_returning_one_tensor_twice

    if_returning_one_tensor_twice(tmp_path / "m.xml", lambda x: [o.negative(x), o.exp(x)])
    out = tmp_path / "m_v10.xml"
    assert main(["migrate", str(tmp_path / "m.xml"), "--ir-version", "10", "-o", str(out), "--check"]) == 0, \
        capsys.readouterr()
    model = ov.Core().read_model(out)
    ov.Core().compile_model(model, "CPU")
    assert [sorted(o.get_names()) for o in model.outputs] == [["a", "b.0"], ["b", "b.1"]]


def test_v10_output_named_after_its_layer_as_an_inner_tensor_keeps_the_name_in_v11(tmp_path: Path, capsys) -> None:
    """An IR v10 output without names on its port, fed by layer 'r', beside an inner tensor named 'r': OpenVINO reports
    the output 'r'. Written as v11 it was not named 'r' (another port holds it), so it had no name at all on any
    release; the inner tensor gives the name up."""
    import sys

    import numpy as np
    import openvino.opset8 as o

    from tests.test_target import side_pythons

    x = o.parameter([2], np.float32, name="x")
    x.output(0).set_names({"x"})
    inner = o.exp(x, name="e")
    inner.output(0).set_names({"r"})
    relu = o.relu(inner, name="r")
    ov.save_model(ov.Model([o.result(relu, name="res")], [x]), tmp_path / "m.xml")
    v10 = tmp_path / "m_v10.xml"
    text = re.sub(r' output_names="[^"]*"', "", (tmp_path / "m.xml").read_text())
    text = text.replace('version="11"', 'version="10"', 1)
    v10.write_text(re.sub(r'(<layer id="\d+" name="r" type="ReLU".*?<output>\s*<port id="\d+" precision="FP32")'
                          r' names="[^"]*"', r"\1", text, flags=re.S))
    shutil.copy(tmp_path / "m.bin", v10.with_suffix(".bin"))
    want = _names(sys.executable, v10)
    assert want == [[["x"]], [["r"]]]
    out = tmp_path / "m_v11.xml"
    assert main(["migrate", str(v10), "--ir-version", "11", "-o", str(out), "--check"]) == 0, capsys.readouterr()
    for release, python in {"current": sys.executable, **side_pythons()}.items():
        assert _names(python, out) == want, release
