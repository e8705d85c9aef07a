"""``extract`` and ``ir-tools extract``: the part between named tensors equals the original, on real OpenVINO.

Seeded cut points (tests/cuts.py) over the committed networks: the IRs of tests/data/target and two ONNX
networks of tests/data/networks that OpenVINO converts here. Each part is written, read back, checked, and run by
OpenVINO CPU on the original's activations at its inputs; its outputs must equal the original's activations, both
runs OpenVINO's per-layer runs (every op an output): bit for bit, or where OpenVINO picked another kernel for a
layer of the part, within the rounding bound ops/rounding gives that difference (tests/cuts.py says how); its
``.bin`` must hold exactly the payloads of its Consts. Then what OpenVINO calls the tensors (the names a cut is made
by), the model's state, bodies, tensors without a name, and every refusal: exit 2, nothing written, the words.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from ir_tools import read_valid, write_ir
from ir_tools.cli import main
from ir_tools.ir.names import input_name, output_names
from ir_tools.passes.extract import CutError, extract, tensor_ports
from ir_tools.passes.interface_names import set_ir_version
from ir_tools.passes.validate import require_valid
from ir_tools.runtime.inputs import random_inputs
from ir_tools.runtime.openvino import ModelFiles
from ir_tools.runtime.runners import OpenVinoRunner
from tests.cuts import Cut, Original, cut_points, measure
from tests.target_zoo import FIXTURES_DIR, entries, model_inputs
from tests.zoo import COMMITTED_DIR

pytestmark = pytest.mark.openvino

POOL_NET = FIXTURES_DIR / "tiny_pool_net_f16.xml"
LLAMA = FIXTURES_DIR / "tiny_llama_stateful_f16.xml"
LOOP = Path(__file__).parent / "data" / "by_design" / "loop_trip_count_parameter.xml"
#: The ONNX networks OpenVINO converts here, and the input shape each runs at.
NETWORKS = {"squeezenet1_1_op17_dyn.onnx": (1, 3, 64, 64), "swin_small_test_op17.onnx": (1, 3, 32, 32)}
CUTS_PER_MODEL = 4


def original(xml: Path, inputs: dict[str, np.ndarray] | None = None) -> Original:
    graph = read_valid(xml)
    if inputs is None:
        entry = next(e for e in entries(FIXTURES_DIR) if e["file"] == xml.name)
        inputs = model_inputs(graph, entry, entry["shapes"][0], 0)
    return Original(graph, ModelFiles(xml, xml.with_suffix(".bin")), inputs, require_valid(graph))


@pytest.fixture(scope="module")
def networks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Original]:
    """The committed ONNX networks as OpenVINO converts them (f16-compressed weights, as ovc saves them)."""
    out = tmp_path_factory.mktemp("networks")
    found = {}
    for name, shape in NETWORKS.items():
        xml = out / Path(name).with_suffix(".xml").name
        ov.save_model(ov.convert_model(str(COMMITTED_DIR / name)), str(xml))
        graph = read_valid(xml)
        found[name] = original(xml, random_inputs(graph, 0, {input_name(graph, graph.parameters()[0]): shape}))
    return found


@pytest.mark.parametrize("model", [*(e["file"] for e in entries(FIXTURES_DIR)), *NETWORKS])
def test_parts_at_seeded_cut_points_equal_the_original(model: str, networks: dict[str, Original],
                                                         tmp_path: Path) -> None:
    whole = networks[model] if model in networks else original(FIXTURES_DIR / model)
    cuts, _ = cut_points(whole, CUTS_PER_MODEL, seed=len(model))
    for cut in cuts:
        found = measure(whole, cut, tmp_path)
        assert not found.unequal, (cut, found)
        assert found.bin_bytes == found.payload_bytes, (cut, found)  # only the weights the part uses
        assert found.layers < len(whole.graph), cut


def test_tensors_are_named_as_openvino_reports_them(tmp_path: Path) -> None:
    """Every name of every output port, in IR v11 and as IR v10 (layer-derived input and output names added); a name
    two ports carry (tiny_pool_net's 'input': the model's input and a Reshape's output) is the one OpenVINO keeps."""
    v10 = read_valid(POOL_NET)
    set_ir_version(v10, 10)
    write_ir(v10, tmp_path / "v10.xml", 10)
    for xml in (*(FIXTURES_DIR / e["file"] for e in entries(FIXTURES_DIR)), tmp_path / "v10.xml", LOOP):
        graph = read_valid(xml)
        by_name = {layer.name: layer for layer in graph.layers()}
        assert len(by_name) == len(graph), xml.name  # (friendly names tell the layers apart)
        openvino = {}
        for op in ov.Core().read_model(xml).get_ordered_ops():
            if op.get_type_name() != "Result":  # (its output is its input's tensor)
                layer = by_name[op.get_friendly_name()]
                for port, output in zip(layer.outputs, op.outputs(), strict=True):
                    openvino.update(dict.fromkeys(output.get_names(), (layer.id, port.id)))
        assert tensor_ports(graph) == openvino, xml.name
    assert tensor_ports(read_valid(POOL_NET))["input"] == ("0", 0)


def test_the_part_is_called_what_it_was_cut_at(tmp_path: Path) -> None:
    """A cut by a tensor's second name: the part's input carries it first (ir_tools calls the input by it), keeps the
    tensor's other names, and OpenVINO finds the input and the output by the names they were asked by."""
    graph = read_valid(POOL_NET)
    ports = tensor_ports(graph)
    assert ports["47"] == ports["input.7"] and ports["64"] == ports["input.15"]
    part = extract(graph, ["47"], ["64"])
    (parameter,), (result,) = part.parameters(), part.results()
    assert input_name(part, parameter) == "47" and output_names(part)[result.id] == "64"
    assert parameter.outputs[0].names == "47,input.7"
    write_ir(part, tmp_path / "part.xml")
    model = ov.Core().read_model(tmp_path / "part.xml")
    assert model.input("47").get_names() == {"47", "input.7"}
    assert model.output("64").get_names() == {"64", "input.15"}
    assert parameter.attrs["shape"] == "?,8,1..,1.."  # as shape propagation infers it: the batch and sizes dynamic


def test_a_name_two_tensors_carry_is_where_openvino_keeps_it_in_the_part(tmp_path: Path) -> None:
    """Two tensors named 's' (OpenVINO calls the second 's_1'): the part's inputs, its outputs and the tensors it keeps
    are called as in the original, whatever the order of the cut (they carried the written 's' both, or 's_1' and
    's' on one, and OpenVINO renamed them in the part's own order: fed the original's values by name, the part
    computed other values); a cut by port, as ``reduce`` cuts, and the hints name the second 's_1'."""
    x = ov.opset13.parameter([2, 3], np.float32, name="x")
    relu = ov.opset13.relu(x)
    sigmoid, tanh = ov.opset13.sigmoid(relu), ov.opset13.tanh(relu)
    out = ov.opset13.subtract(sigmoid, tanh)
    for tensor, names in ((x, "x"), (sigmoid, "s"), (tanh, "t"), (out, "out")):
        tensor.output(0).set_names({names})
    ov.save_model(ov.Model([out], [x]), tmp_path / "m.xml")
    xml = tmp_path / "dup.xml"
    xml.write_text((tmp_path / "m.xml").read_text().replace('names="t"', 'names="s"'))
    whole = ov.Core().read_model(xml)
    assert whole.get_ordered_ops()[3].output(0).get_names() == {"s_1"}  # (the Tanh)
    whole.add_outputs([op.output(0) for op in whole.get_ordered_ops()[1:4]])
    values = ov.Core().compile_model(whole, "CPU")({"x": np.random.default_rng(0).standard_normal((2, 3), np.float32)})
    by_name = {name: value for output, value in values.items() for name in output.get_names()}
    graph = read_valid(xml)
    ports = tensor_ports(graph)
    for cut in (["s_1", "s"], [ports["s_1"], ports["s"]]):
        write_ir(extract(graph, cut, ["out"]), tmp_path / "part.xml")
        part = ov.Core().compile_model(tmp_path / "part.xml", "CPU")
        assert sorted(name for port in part.inputs for name in port.get_names()) == ["s", "s_1"]
        fed = part({port.any_name: by_name[port.any_name] for port in part.inputs})
        np.testing.assert_array_equal(fed[part.output(0)], by_name["out"])
    write_ir(extract(graph, [graph.producer_key(ports["s_1"][0], 0)], ["s_1"]), tmp_path / "part.xml")
    assert ov.Core().read_model(tmp_path / "part.xml").output(0).get_names() == {"s_1"}  # (not 's': the Sigmoid's)
    with pytest.raises(CutError, match="add 's_1' to the cut inputs"):
        extract(graph, ["s"], ["out"])
    with pytest.raises(CutError, match="cut at a tensor it outputs \\(port 1: 's_1'\\)"):
        extract(graph, [graph.layer(ports["s_1"][0]).name], ["out"])


def test_state_is_refused_inside_the_part_and_fed_as_an_input(tmp_path: Path) -> None:
    """A part holding a ReadValue would read, at every inference, what an Assign outside it never writes: refused,
    naming the variable and the ReadValue's output to cut at. Cut there, the state is an input of the part, fed the
    original's value as every cut input is, and the part equals the original: OpenVINO CPU computes the attention
    reading the state with another kernel than the part's (measured: inputs equal bit for bit, outputs 1.1e-8 apart),
    so the logits lie within the rounding bound of the original's, not on them (tests/cuts.py)."""
    whole = original(LLAMA)
    sources = ["input_ids", "attention_mask", "position_ids", "beam_idx"]
    with pytest.raises(CutError, match=r"variable 'past_key_values\.(\d\.\w+)present\.\1'.*cut at its output "
                                       r"'past_key_values\.\1'.*; also variable 'past_key_values") as refused:
        extract(whole.graph, sources, ["logits"])
    assert refused.value.code == "E-CUT" and refused.value.loc.layer_name.startswith("ReadValue")
    states = [f"past_key_values.{i}.{kind}" for i in (0, 1) for kind in ("key", "value")]
    assert sorted(refused.value.unfed) == sorted(whole.ports[name] for name in states)
    cut = Cut([*sources, *states], ["logits"])
    assert not [layer for layer in extract(whole.graph, cut.inputs, cut.outputs).layers()
                if layer.type in ("ReadValue", "Assign")]
    found = measure(whole, cut, tmp_path)
    assert found.equal, found


def test_a_body_is_kept_whole_and_never_cut(tmp_path: Path) -> None:
    """A Loop's body goes into the part as it is, its Const relocated into the part's .bin; a name inside it is
    refused as such (IR v10: inputs and the output named after their layers)."""
    text = LOOP.read_text().replace('<port id="2" precision="FP32">\n\t\t\t\t\t\t\t\t<dim>1</dim>',
                                    '<port id="2" precision="FP32" names="inner">\n\t\t\t\t\t\t\t\t<dim>1</dim>', 1)
    assert 'names="inner"' in text
    xml = tmp_path / "loop.xml"
    xml.write_text(text)
    xml.with_suffix(".bin").write_bytes(LOOP.with_suffix(".bin").read_bytes())
    graph = read_valid(xml)
    with pytest.raises(CutError, match="'inner'.*inside the body of Loop@opset5 'Loop_17'"):
        extract(graph, ["x", "trip"], ["inner"])
    part = extract(graph, ["trip", "x"], ["Loop_17"])
    out, bin_path = write_ir(part, tmp_path / "part.xml", 10)
    assert bin_path.stat().st_size == LOOP.with_suffix(".bin").stat().st_size  # the body's Consts, nothing else
    inputs = {"trip": np.array(3, np.int64), "x": np.array([[1.0, -2.0]], np.float32)}
    want = OpenVinoRunner(graph, ModelFiles(xml, xml.with_suffix(".bin"))).run(inputs)
    got = OpenVinoRunner(read_valid(out), ModelFiles(out, bin_path)).run(inputs)
    assert list(got) == ["Loop_17"] and np.array_equal(got["Loop_17"], want["Loop_17"])


def test_a_tensor_without_a_name_is_cut_by_its_port(tmp_path: Path) -> None:
    """What ``reduce`` needs: a cut at an output port with no tensor name; its Parameter is called ``LAYER:PORT``
    (as compare names that tensor), a name extract takes on the original for the same port, and the part equals the
    original there. (Before, the part's input or output was called after the layer, ``Multiply_5480_`` for an
    output, a name the original has not.)"""
    whole = original(POOL_NET)
    graph = whole.graph
    unnamed = next((layer.id, port.id) for layer in graph.layers() if layer.is_a("Convolution")
                   for port in layer.outputs if not port.names)
    part = extract(graph, [unnamed], ["input.15"])
    parameter = part.parameters()[0]
    spelled = f"{graph.layer(unnamed[0]).name}:{unnamed[1]}"
    assert input_name(part, parameter) == spelled and parameter.name == spelled
    assert tensor_ports(part)[spelled] == (parameter.id, parameter.outputs[0].id)
    again = extract(graph, [spelled], ["input.15"])
    assert [layer.name for layer in again.layers()] == [layer.name for layer in part.layers()]
    model_input = graph.parameters()[0]
    out = extract(graph, [(model_input.id, model_input.outputs[0].id)], [unnamed])
    assert list(output_names(out).values()) == [spelled]
    feed = {input_name(part, parameter): whole.activations[unnamed]}
    got = OpenVinoRunner(part).infer(feed, per_layer=True).outputs
    assert np.array_equal(got["input.15"], whole.activations[whole.ports["input.15"]])


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["extract", *map(str, args)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "E-INTERNAL" not in out + err
    return code, out + err


def test_the_command_writes_the_part(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, said = run_cli(capsys, POOL_NET, "--inputs", "input.3", "--outputs", "input.15,input.11", "-o",
                         tmp_path / "part.xml")
    assert code == 0, said
    assert "wrote" in said and f"of {len(read_valid(POOL_NET))} layers" in said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["part.bin", "part.xml"]
    assert main(["check", str(tmp_path / "part.xml")]) == 0


#: Each refusal: the arguments after the model, and what the diagnostic must say.
REFUSALS = {
    "unknown name": (["--inputs", "input.3", "--outputs", "inpt.15"],
                     r"E-CUT.*no tensor is named 'inpt\.15' \(output\) \(did you mean input\.15\?\)"),
    "unknown input": (["--inputs", "input.3,bogus_tensor", "--outputs", "input.15"],
                      r"no tensor is named 'bogus_tensor'"),
    "input unfed": (["--inputs", "input.11", "--outputs", "input.15,input.7"],
                    r"E-CUT.*the cut leaves the model's input 'input' unfed, and this layer needs it"),
    "no outputs": (["--inputs", "input.3", "--outputs", ""], r"E-CUT.*no outputs"),
    "a constant": (["--inputs", "input.3,self.fc.weight", "--outputs", "logits"], r"E-CUT.*'self\.fc\.weight' is a "
                                                                                  r"constant"),
    "unread input": (["--inputs", "input.3,input.7", "--outputs", "input.7"], r"E-CUT.*both a cut input and an output"),
    "passed input": (["--inputs", "input.3,input.7", "--outputs", "input.15"],
                     r"E-CUT.*nothing in the part reads cut input\(s\) 'input\.3'"),
    # what inspect lists, and compare --per-layer names (LAYER:PORT): the layer, and the tensors it outputs
    "a layer's name": (["--inputs", "input.3", "--outputs", "__module.features.2/aten::relu_/Relu"],
                       r"E-CUT.*no tensor is named '__module\.features\.2/aten::relu_/Relu' \(output\): that is "
                       r"ReLU@opset1 layer '__module\.features\.2/aten::relu_/Relu' \(id 7\); cut at a tensor it "
                       r"outputs \(port 1: '41'\)"),
    # LAYER:PORT names an output port (its id, as compare names it): port 0 is the MaxPool's input
    "a layer's input port": (["--inputs", "__module.features.3/aten::max_pool2d/MaxPool:0", "--outputs", "input.15"],
                             r"that is MaxPool@opset14 layer '__module\.features\.3/aten::max_pool2d/MaxPool' "
                             r"\(id 8\); port 0 is not one of its outputs; cut at a tensor it outputs \(port 1: "
                             r"'47'; port 2: '__module\.features\.3/aten::max_pool2d/MaxPool:2'\)"),
    "a tensor twice": (["--inputs", "input.3", "--outputs", "input.15,input.15"],
                       r"E-CUT.*outputs: 'input\.15' given twice \(give it once\)"),
    "one tensor by two names": (["--inputs", "input.3", "--outputs", "input.15,64"],
                                r"E-CUT.*outputs: 'input\.15' and '64' name one tensor \(give it once\)"),
    "output the input": (["--inputs", "input.3", "--outputs", "input.15", "-o", POOL_NET],
                         r"E-OVERWRITE.*is the input model"),
}


@pytest.mark.parametrize("case", REFUSALS)
def test_bad_input_is_refused_with_exit_2_and_nothing_written(case: str, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    args, words = REFUSALS[case]
    before = POOL_NET.stat().st_mtime_ns
    code, said = run_cli(capsys, POOL_NET, *args, *([] if "-o" in args else ["-o", tmp_path / "part.xml"]))
    assert code == 2, said
    assert re.search(words, said, re.S), said
    assert not list(tmp_path.iterdir()) and POOL_NET.stat().st_mtime_ns == before


def test_an_unfed_input_names_the_tensor_and_the_layer_needing_it() -> None:
    graph = read_valid(POOL_NET)
    with pytest.raises(CutError) as refused:
        extract(graph, ["input.11"], ["input.15", "input.7"])
    first = graph.layer(refused.value.loc.layer_id)
    assert first.is_a("Convolution") and refused.value.loc.line == first.line
    assert refused.value.unfed == [tensor_ports(graph)["input"]]
    assert "'input' unfed" in refused.value.message


def test_inspect_names_the_tensor_each_layer_outputs(capsys: pytest.CaptureFixture[str]) -> None:
    """extract cuts at tensor names, which inspect listed nowhere but for the model's inputs and outputs."""
    import json

    assert main(["inspect", str(POOL_NET), "--format", "json"]) == 0
    layers = {lay["name"]: lay for lay in json.loads(capsys.readouterr().out)["layers"]}
    assert layers["__module.features.3/aten::max_pool2d/MaxPool"]["tensors"] == ["47", None]
    assert layers["x"]["tensors"] == ["input"] and layers["Multiply_3007"]["tensors"] == [None]
    assert main(["inspect", str(POOL_NET)]) == 0
    assert "__module.features.2/aten::relu_/Relu [ReLU@opset1] -> [?,8,?,?] '41'" in capsys.readouterr().out


def test_an_unfed_input_is_mended_by_the_tensors_nearest_the_cut(tmp_path: Path) -> None:
    """A residual branch around the cut: cut at 'b' for 'c' = b + a leaves the model input unfed through 'a'. The
    advice (and ``unfed``) names 'a', the tensor the part reads from outside the cut, not the model input 'x' (which
    would pull the whole branch into the part); cut at 'b' and 'a', the part is one layer. (Measured on the target
    zoo's vit_small_test: --inputs 90 --outputs 100 advised 'input', a 62-layer part; '78' gives 24 layers.)"""
    import openvino.opset13 as ops

    x = ops.parameter([1, 8], np.float32, name="x")
    x.output(0).set_names({"x"})
    named = {}
    for name, node in (("a", ops.relu(x)), ("a2", None), ("b", None), ("c", None)):
        if name == "a2":
            node = ops.sigmoid(named["a"])
        elif name == "b":
            node = ops.tanh(named["a2"])
        elif name == "c":
            node = ops.add(named["b"], named["a"])
        node.output(0).set_names({name})
        named[name] = node
    ov.save_model(ov.Model([named["c"]], [x], "residual"), str(tmp_path / "residual.xml"))
    graph = read_valid(tmp_path / "residual.xml")
    ports = tensor_ports(graph)
    with pytest.raises(CutError) as refused:
        extract(graph, ["b"], ["c"])
    assert refused.value.unfed == [ports["a"]], refused.value.unfed
    said = refused.value.message
    assert "the model's input 'x' unfed" in said and "add 'a' to the cut inputs" in said
    part = extract(graph, ["b", "a"], ["c"])
    assert sorted(layer.type for layer in part.layers()) == ["Add", "Parameter", "Parameter", "Result"]


def test_the_state_hint_names_an_unnamed_output_once(tmp_path: Path) -> None:
    """A ReadValue whose output has no name: the hint said "cut at its output output port 1 of ..." (found by a QA
    run)."""
    import openvino.opset6 as o
    from openvino.op.util import Variable, VariableInfo

    x = o.parameter([1, 4], np.float32, name="x")
    info = VariableInfo()
    info.data_shape, info.data_type, info.variable_id = ov.PartialShape([1, 4]), ov.Type.f32, "v"
    variable = Variable(info)
    total = o.add(o.read_value(x, variable), x)
    total.output(0).set_names({"y"})
    ov.save_model(ov.Model([o.result(total)], [o.assign(total, variable)], [x], "state"), tmp_path / "state.xml")
    with pytest.raises(CutError, match=r"\(cut at output port 1 of ReadValue@opset6 'ReadValue_\d+' \(id \d+\) to feed "
                                       r"the state as an input\)"):
        extract(read_valid(tmp_path / "state.xml"), ["x"], ["y"])
