"""``reduce``: a failing model shrunk to a part of a few layers that still fails, each candidate run by OpenVINO in a
child process; the committed networks of tests/data/networks, with a planted defect and with an output that crashes
OpenVINO CPU at compile time."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from ir_tools.ir.names import input_name, output_names
from tests.defects import plant
from tests.target_zoo import FIXTURES_DIR
from tests.zoo import COMMITTED_DIR

pytestmark = pytest.mark.openvino

SQUEEZENET = COMMITTED_DIR / "squeezenet1_1_op17_dyn.onnx"
LLAMA = FIXTURES_DIR / "tiny_llama_stateful_f16.xml"
POOL_NET = FIXTURES_DIR / "tiny_pool_net_f16.xml"
SHAPE = "input:1,3,96,96"
CHANGED = "/features/features.3/expand3x3/Conv/WithoutBiases"


def reduce_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["reduce", *args, "--format", "json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if code == 0 else {"printed": out}


@pytest.fixture(scope="module")
def squeezenet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("squeezenet") / "squeezenet.xml"
    assert main(["convert-onnx", str(SQUEEZENET), "-o", str(path), "--no-compress-to-fp16"]) == 0
    return path


def test_a_planted_weight_defect_is_reduced_to_its_layer(capsys, tmp_path: Path, squeezenet: Path) -> None:
    """One weight of a Convolution changed in its 4th digit; activations saved from the original: the part found
    holds at most 3 computing layers, the changed one among them, in far fewer OpenVINO runs than layers; it checks
    clean and still fails compare against the saved activations, fed the inputs written beside it, as the command
    reduce prints does (with compare's options reduce was given: it left out --per-layer, --atol and --rtol)."""
    saved = tmp_path / "original.npz"
    assert main(["compare", str(squeezenet), "--shape", SHAPE, "--per-layer", "--save-outputs", str(saved)]) == 0
    changed = tmp_path / "changed.xml"
    plant("weight", squeezenet, changed, CHANGED)
    out = tmp_path / "min.xml"
    capsys.readouterr()
    code, found = reduce_json(capsys, str(changed), "-o", str(out), "--shape", SHAPE, "--load-outputs", str(saved),
                              "--per-layer", "--atol", "2e-5")
    assert code == 0, found
    assert found["reproduce"].endswith(f"--load-outputs {saved} --per-layer --atol 2e-5"), found["reproduce"]
    assert main(found["reproduce"].split()[1:]) == 1
    assert found["layers"] <= 3 and found["openvino_runs"] < found["original_layers"] / 2, found
    part = ir_tools.read_valid(out)
    assert CHANGED in {layer.name for layer in part.layers()}
    assert [d for d in ir_tools.check(out) if d.severity == "error"] == []
    inputs = out.with_suffix(".npz")
    assert main(["compare", str(out), "--inputs", str(inputs), "--load-outputs", str(saved)]) == 1


def test_a_defect_is_reduced_against_the_original(capsys, tmp_path: Path, squeezenet: Path) -> None:
    """Two output channels of a Convolution swapped; each part compared with the same part of the original (cut at
    the same tensors, fed the same values), exactly: the part found holds at most 3 computing layers, the changed
    one among them."""
    changed = tmp_path / "changed.xml"
    plant("channels", squeezenet, changed, CHANGED)
    out = tmp_path / "min.xml"
    code, found = reduce_json(capsys, str(changed), "-o", str(out), "--shape", SHAPE, "--against", str(squeezenet))
    assert code == 0, found
    assert found["layers"] <= 3 and CHANGED in {layer.name for layer in ir_tools.read_valid(out).layers()}, found
    assert all(step["cut"] == ("uncut" not in step) and not (step["fails"] and not step["cut"])
               for step in found["steps"]), found["steps"]
    # what shows the failure: the part alone passes compare; against the same part of the original, written beside
    # it with the part's input and output names, the command printed fails (no part of the original was written)
    assert found["original_part"] == str(tmp_path / "min_original.xml")
    inputs = str(out.with_suffix(".npz"))
    assert main(["compare", str(out), "--inputs", inputs]) == 0
    assert found["reproduce"].startswith("ir-tools compare ")
    assert main(found["reproduce"].split()[1:]) == 1
    # the part's inputs and outputs are called by names extract finds in the original again (an unnamed tensor
    # LAYER:PORT, as compare names it; reduce had written 'LAYER_', a name of no tensor)
    part, whole = ir_tools.read_valid(out), ir_tools.read_valid(squeezenet)
    again = ir_tools.extract(whole, [input_name(part, p) for p in part.parameters()],
                             list(output_names(part).values()))
    assert {layer.name for layer in again.layers() if not layer.is_a("Const")} >= {CHANGED}


def test_the_library_reduces_as_the_command(tmp_path: Path, squeezenet: Path) -> None:
    """``ir_tools.reduce`` with ``against_fails``: the part the command finds in the test above, the changed layer in
    at most 3 computing layers, fed inputs of its own; inputs that do not fit are E-INPUT before anything runs."""
    changed = tmp_path / "changed.xml"
    plant("channels", squeezenet, changed, CHANGED)
    graph, original = ir_tools.read_valid(changed), ir_tools.read_valid(squeezenet)
    inputs = ir_tools.random_inputs(graph, shapes={"input": (1, 3, 96, 96)})
    found = ir_tools.reduce(graph, inputs, ir_tools.against_fails(graph, original, ir_tools.Tolerances(0.0, 0.0)))
    assert isinstance(found, ir_tools.Reduction) and found.layers <= 3, found.steps
    assert CHANGED in {layer.name for layer in found.part.layers()}
    assert set(found.inputs) == set(ir_tools.random_inputs(found.part))  # (by the part's input names)
    with pytest.raises(ir_tools.IrToolsError) as refused:
        ir_tools.reduce(graph, {"input": np.zeros((1, 3, 96, 96), np.int32)}, ir_tools.openvino_fails())
    assert refused.value.code == "E-INPUT"


def crashing_model(path: Path) -> Path:
    """swin3d_small_test with one of its empty tensors (windows larger than the input) made a model output, which
    OpenVINO CPU crashes on compiling (SIGSEGV, SIGFPE or a glibc abort, from run to run)."""
    import openvino as ov

    model = ov.convert_model(str(COMMITTED_DIR / "swin3d_small_test_op17.onnx"))
    empty = [out for op in model.get_ordered_ops() if op.get_friendly_name().endswith("attn/Add_2")
             for out in op.outputs()]
    assert empty and 0 in list(empty[0].get_partial_shape().to_shape())
    model.add_outputs(empty)
    ov.save_model(model, str(path))
    return path


def test_a_model_that_crashes_openvino_is_reduced_to_a_few_layers(capsys, tmp_path: Path) -> None:
    """The crash of every candidate that holds it is a failure of that candidate, never of ir_tools: the part found
    holds at most 5 computing layers, checks clean and still crashes OpenVINO (in a child)."""
    from ir_tools.runtime.reduce import Candidate, Runs, openvino_fails

    model = crashing_model(tmp_path / "crash.xml")
    out = tmp_path / "min.xml"
    code, found = reduce_json(capsys, str(model), "-o", str(out), "--until", "openvino-fails")
    assert code == 0, found
    assert found["layers"] <= 5 and found["original_layers"] > 500, found
    assert [d for d in ir_tools.check(out) if d.severity == "error"] == []
    part = ir_tools.read_valid(out)
    fed = dict(np.load(out.with_suffix(".npz"))) if out.with_suffix(".npz").exists() else {}
    assert openvino_fails()(Candidate(part, fed, {}, []), Runs()) is not None


def test_what_reduce_refuses(capsys, tmp_path: Path, squeezenet: Path) -> None:
    """A model that does not fail (E-REDUCE), options of the other --until, -o naming the input: exit 2,
    nothing written."""
    out = tmp_path / "min.xml"
    cases = [(["--shape", SHAPE], 2, "E-REDUCE"),
             (["--shape", SHAPE, "--until", "openvino-fails", "--per-layer"], 2, "E-USAGE"),
             (["--shape", SHAPE, "--matching", "x"], 2, "E-USAGE"),
             (["--shape", SHAPE, "--until", "openvino-fails", "--matching", "("], 2, "E-USAGE")]
    for args, exit_code, diagnostic in cases:
        assert main(["reduce", str(squeezenet), "-o", str(out), *args]) == exit_code, args
        assert f"error[{diagnostic}]" in capsys.readouterr().err, args
        assert not out.exists() and not out.with_suffix(".npz").exists()
    assert main(["reduce", str(squeezenet), "-o", str(squeezenet)]) == 2
    assert "error[E-OVERWRITE]" in capsys.readouterr().err


def test_what_makes_the_whole_comparison_impossible_is_refused_before_reducing(capsys, tmp_path: Path,
                                                                                squeezenet: Path) -> None:
    """Errors of the comparison itself, which every part shares, were counted as the part failing: --load-outputs of
    a stateful model's steps (a stateful Llama reduced to a ShapeOf, exit 0), of another model (70 layers reduced to
    1), --against a model of another structure ('292 differs: max abs 0', exit 0). Each is refused before any part
    runs, in compare's words, exit 2, nothing written."""
    saved_steps, saved_other = tmp_path / "steps.npz", tmp_path / "other.npz"
    assert main(["compare", str(LLAMA), "--per-layer", "--save-outputs", str(saved_steps), "-q"]) == 0
    assert main(["compare", str(POOL_NET), "--shape", "input:1,3,32,32", "--per-layer", "--save-outputs",
                 str(saved_other), "-q"]) == 0
    out = tmp_path / "min.xml"
    cases = [([str(LLAMA), "--load-outputs", str(saved_steps)], "E-INPUT", "of the steps of a stateful model"),
             ([str(squeezenet), "--shape", SHAPE, "--load-outputs", str(saved_other)], "E-INPUT",
              "the saved activations are of another model or input"),
             ([str(squeezenet), "--shape", SHAPE, "--against", str(POOL_NET), "--atol", "1e-3"], "E-USAGE",
              "--against: the ")]
    capsys.readouterr()
    for args, diagnostic, words in cases:
        assert main(["reduce", *args, "-o", str(out)]) == 2, args
        err = capsys.readouterr().err
        assert f"error[{diagnostic}]" in err and words in err and "nothing reduced or written" in err, err
        assert not out.exists() and not out.with_suffix(".npz").exists()


def test_an_error_of_ir_tools_is_no_failure_of_the_part(squeezenet: Path) -> None:
    """A part fails where OpenVINO refuses or crashes on it; compare refusing its inputs (E-INPUT) is raised, not
    taken for the part failing (which reduced every QA case above to a meaningless part)."""
    from ir_tools.runtime.reduce import Candidate, Runs, compare_fails

    graph = ir_tools.read_valid(squeezenet)
    unfit = Candidate(graph, {"input": np.zeros((1, 3, 96, 96), np.int32)}, {}, [])
    with pytest.raises(ir_tools.IrToolsError) as raised:
        compare_fails(ir_tools.CompareOptions())(unfit, Runs())
    assert raised.value.code == "E-INPUT"


def test_a_part_that_cannot_be_cut_is_said_so_not_passed(squeezenet: Path) -> None:
    """A candidate no part can be cut for was reported as one that passes (on a stateful Llama, every 'inputs' step
    did, a 147-layer one among them): its step says why it was not run (JSON: cut false, and uncut)."""
    from ir_tools.runtime.inputs import random_inputs
    from ir_tools.runtime.reduce import Runs, _Reducer, activations, openvino_fails

    graph = ir_tools.read_valid(squeezenet)
    runs = Runs()
    fed = activations(graph, random_inputs(graph, 0, {"input": (1, 3, 96, 96)}), {}, runs)
    reducer = _Reducer(graph, fed, openvino_fails(), runs, lambda _: None)
    assert reducer.attempt("outputs", frozenset()) is None and runs.count == 1  # (the activations' run alone)
    assert reducer.steps[-1].uncut == "nothing it computes is read after it" and reducer.steps[-1].failure is None


def test_a_part_fed_a_tensor_the_original_gave_no_value_for_names_it(squeezenet: Path) -> None:
    """Where the original's activations stop (OpenVINO failed on the whole model and the reference stopped early),
    a part fed from past there is not run, and its step names the tensor and why (it said only "OpenVINO did not
    expose a tensor it is fed")."""
    from ir_tools.runtime.inputs import random_inputs
    from ir_tools.runtime.reduce import Runs, _Reducer, activations, openvino_fails

    graph = ir_tools.read_valid(squeezenet)
    runs = Runs()
    fed = activations(graph, random_inputs(graph, 0, {"input": (1, 3, 96, 96)}), {}, runs)
    reducer = _Reducer(graph, fed, openvino_fails(), runs, lambda _: None)
    stopped = reducer.order[len(reducer.order) // 2]
    stopped_at = graph.layer(stopped)
    reducer.fed = {key: value for key, value in fed.items() if key[0] != stopped}
    after = next(layer_id for layer_id in reducer.order if any(
        graph.producer_key(layer_id, port.id) == (stopped, stopped_at.outputs[0].id)
        for port in graph.layer(layer_id).inputs))
    assert reducer.attempt("inputs", frozenset([after])) is None
    assert reducer.steps[-1].uncut == (
        f"the original gave no value for '{stopped_at.name}:{stopped_at.outputs[0].id}', which it is fed (OpenVINO "
        "did not expose it or, where OpenVINO failed on the whole model, the reference stopped before it)")


def test_a_run_before_any_has_finished_is_bounded_too() -> None:
    """OpenVINO hung in glibc's ``free`` inside ``compile_model`` on the crashing model itself (a CI run of
    test_a_model_that_crashes_openvino_is_reduced_to_a_few_layers waited on it without end): a run before any has
    finished is killed after ``HANG_BEFORE_ANY_SECONDS``, later ones after ``HANG_FACTOR`` times the longest."""
    from ir_tools.runtime.reduce import HANG_BEFORE_ANY_SECONDS, HANG_FACTOR, HANG_SECONDS, Runs

    graph = ir_tools.read_valid(FIXTURES_DIR / "tiny_gpt2_f16.xml")
    runs = Runs()
    assert runs.runner(graph).timeout == HANG_BEFORE_ANY_SECONDS
    runs.longest = 2.0
    assert runs.runner(graph).timeout == max(HANG_SECONDS, HANG_FACTOR * 2.0)


def test_reduce_writes_its_files_together_or_none(capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write failing at the part's .bin (a full disk) leaves none of the command's files: its inputs .npz was left
    beside no part (written first, alone); an earlier run's files are put back as they were."""
    import errno
    import os

    import openvino as ov
    from openvino import opset13 as op

    def model(scale: float) -> ov.Model:
        x = op.parameter([1, 4], np.float32, name="x")
        added = op.add(x, op.constant(np.ones((1, 4), np.float32)))
        added.set_friendly_name("add")
        relu = op.relu(op.multiply(added, op.constant(np.full((1, 4), scale, np.float32))))
        relu.output(0).set_names({"y"})
        result = op.result(relu)
        result.set_friendly_name("y")
        return ov.Model([result], [x])

    ov.save_model(model(2.0), tmp_path / "a.xml", compress_to_fp16=False)
    ov.save_model(model(3.0), tmp_path / "b.xml", compress_to_fp16=False)
    (tmp_path / "min.npz").write_bytes(b"earlier")
    replace = os.replace

    def full_disk(src, dst, *args, **kwargs):
        if str(dst).endswith("min.bin") and str(src).endswith(".tmp"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", full_disk)
    assert main(["reduce", str(tmp_path / "a.xml"), "--against", str(tmp_path / "b.xml"),
                 "-o", str(tmp_path / "min.xml")]) == 2
    assert "error[E-WRITE]" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin", "a.xml", "b.bin", "b.xml", "min.npz"]
    assert (tmp_path / "min.npz").read_bytes() == b"earlier"
    monkeypatch.setattr(os, "replace", replace)
    assert main(["reduce", str(tmp_path / "a.xml"), "--against", str(tmp_path / "b.xml"),
                 "-o", str(tmp_path / "min.xml")]) == 0
    assert {p.name for p in tmp_path.iterdir()} >= {"min.npz", "min.xml", "min.bin", "min_original.xml",
                                                   "min_original.bin"}


def test_what_the_model_computes_from_its_inputs_stays_an_input_of_each_part() -> None:
    """Small integer cut inputs become constants of a part: shape arithmetic, which OpenVINO folds in the whole
    model too. Token ids and masks were made so as well, and a language model's whole part was a constant that
    OpenVINO folded when compiling, its CPU kernels never run: of a Funnel whose CPU Einsum fails compare (compiled
    at a static [1, 8]), reduce said "the model does not fail as asked". What the model computes from what it is
    fed stays an input of the part; shape arithmetic is still pinned."""
    from ir_tools.runtime.numeric_check import data_tensors
    from ir_tools.runtime.reduce import Candidate, Runs, _Reducer, activations

    graph = ir_tools.read_valid(FIXTURES_DIR / "tiny_gpt2_f16.xml")
    runs = Runs()
    fed = activations(graph, ir_tools.random_inputs(graph), {}, runs)
    seen: list[Candidate] = []

    def fails(candidate: Candidate, _: Runs) -> str:
        seen.append(candidate)
        return "fails"

    reducer = _Reducer(graph, fed, fails, runs, lambda _: None)
    assert reducer.attempt("whole model", frozenset(reducer.order)) == "fails"
    assert set(seen[-1].inputs) == {input_name(graph, p) for p in graph.parameters()}
    data = data_tensors(graph)
    shaped = next(layer_id for layer_id in reducer.order if any(
        (key := graph.producer_key(layer_id, port.id)) is not None and key not in data and key[0] in reducer.order
        and fed[key].dtype.kind == "i" for port in graph.layer(layer_id).inputs))
    assert reducer.attempt("one layer", frozenset([shaped])) == "fails"
    assert seen[-1].cuts and not any(fed_key in data for fed_key in seen[-1].cuts), seen[-1].cuts
    assert not seen[-1].inputs or all(v.dtype.kind == "f" for v in seen[-1].inputs.values())


def _projection_reduced(capsys: pytest.CaptureFixture[str], tmp_path: Path, model: Path, projection: str) -> dict:
    """What ``reduce --against MODEL`` finds in ``model`` with the projection defect planted in ``projection``: the
    changed layer, in at most 3 computing layers."""
    changed, out = tmp_path / "changed.xml", tmp_path / "min.xml"
    plant("projection", model, changed, projection)
    code, found = reduce_json(capsys, str(changed), "-o", str(out), "--against", str(model))
    assert code == 0, found
    assert found["layers"] <= 3 and projection in {layer.name for layer in ir_tools.read_valid(out).layers()}, found
    return found


def test_a_stateful_model_is_reduced(capsys, tmp_path: Path) -> None:
    """A stateful Llama's first query projection changed: each part was cut with its states fed their empty initial
    values at static dims, a static empty Gather (the beam reorder) OpenVINO CPU dies compiling, so that the whole
    model was no part ("not a valid model once fed the original's values") and reduce said "the model does not fail
    as asked". An empty dim is left dynamic: the part found is the projection, and the whole model's part, fed its
    states, runs and checks clean once its dims are settled (``settle_dims``: our rules left a Broadcast after the
    state [-1,2,2,-1,8], OpenVINO infers [1,2,2,8..,8])."""
    from ir_tools.runtime.reduce import Candidate, Runs, _Reducer, activations, settle_dims

    found = _projection_reduced(capsys, tmp_path, LLAMA, "__module.model.layers.0.self_attn.q_proj/aten::linear/MatMul")
    assert main(found["reproduce"].split()[1:]) == 1

    graph = ir_tools.read_valid(LLAMA)
    runs = Runs()
    fed = activations(graph, ir_tools.random_inputs(graph), {}, runs)
    reducer = _Reducer(graph, fed, lambda *_: None, runs, lambda _: None)
    whole = reducer.candidate(frozenset(reducer.order))
    assert isinstance(whole, Candidate), whole
    assert any(0 in value.shape for value in whole.inputs.values())
    runs.runner(whole.part).run(whole.inputs)
    settle_dims(whole.part)
    ir_tools.write_ir(whole.part, tmp_path / "whole.xml")
    assert [d for d in ir_tools.check(tmp_path / "whole.xml") if d.severity == "error"] == []


def test_a_whole_model_that_cannot_be_cut_is_said_so(squeezenet: Path) -> None:
    """Where the whole model's part cannot be cut or fed, nothing ran: reduce said "the model does not fail as
    asked" (of a stateful Llama that compare --against found failing); it says why no part was run."""
    from ir_tools.runtime.inputs import random_inputs
    from ir_tools.runtime.reduce import ReduceError, Runs, activations, openvino_fails, reduce_model

    graph = ir_tools.read_valid(squeezenet)
    runs = Runs()
    fed = activations(graph, random_inputs(graph, 0, {"input": (1, 3, 96, 96)}), {}, runs)
    parameter = next(iter(graph.parameters()))
    del fed[parameter.id, parameter.outputs[0].id]
    with pytest.raises(ReduceError) as refused:
        reduce_model(graph, fed, openvino_fails(), runs)
    assert refused.value.message.startswith("the whole model cannot be cut and fed as a part (the original gave no "
                                            f"value for '{parameter.name}:"), refused.value.message


def test_a_model_with_an_if_is_reduced(capsys, tmp_path: Path) -> None:
    """A DeBERTa (an If of relative positions) with its first query projection changed: a part's inputs were given
    their values' static dims, which the If's bodies then infer, while their ports keep the dims declared (fix_dims
    writes none inside a body: E-SHAPE), so that every part holding the If, the whole model first, was "not a valid
    model once fed the original's values" and nothing was reduced. A part holding a body keeps the dims the whole
    model gives its inputs: the part found is the projection. Its shape arithmetic is still pinned: the If alone,
    its condition left an input, OpenVINO CPU refuses ("If operation with dynamic rank"), a failure of a healthy
    model's part."""
    from ir_tools.runtime.reduce import Candidate, Runs, _Reducer, activations, openvino_fails

    deberta = FIXTURES_DIR / "tiny_deberta_v2_f16.xml"
    found = _projection_reduced(capsys, tmp_path, deberta,
                                "__module.model.encoder.layer.0.attention.self.query_proj/aten::linear/MatMul")
    assert not any(step.get("uncut") for step in found["steps"]), found["steps"]

    graph = ir_tools.read_valid(deberta)
    runs = Runs()
    reducer = _Reducer(graph, activations(graph, ir_tools.random_inputs(graph), {}, runs), openvino_fails(), runs,
                       lambda _: None)
    branch = reducer.candidate(frozenset(layer.id for layer in graph.layers() if layer.is_a("If")))
    assert isinstance(branch, Candidate) and openvino_fails()(branch, runs) is None


def test_saved_activations_of_another_data_dependent_shape_are_no_other_model(capsys, tmp_path: Path) -> None:
    """A dim that follows from the data (a NonZero's count, the boxes a Faster R-CNN keeps) may differ where the
    changed model differs: reduce refused the saved activations as "of another model or input" (the zoo's Faster
    R-CNN, a Convolution's channels swapped, kept 333 boxes for 318), though compare reports that as the difference it
    is. The part found is the changed Add; activations of another input shape are still refused."""
    import openvino as ov
    from openvino import opset13 as op

    def model(shift: float) -> ov.Model:
        x = op.parameter([1, -1], np.float32, name="x")
        added = op.add(x, op.constant(np.full((1, 1), shift, np.float32)))
        added.set_friendly_name("add")
        kept = op.non_zero(op.greater(added, op.constant(np.zeros((1, 1), np.float32))), "i64")
        kept.output(0).set_names({"kept"})
        return ov.Model([op.result(kept)], [x])

    ov.save_model(model(0.0), tmp_path / "original.xml", compress_to_fp16=False)
    ov.save_model(model(0.5), tmp_path / "changed.xml", compress_to_fp16=False)
    saved = tmp_path / "saved.npz"
    assert main(["compare", str(tmp_path / "original.xml"), "--shape", "x:1,64", "--per-layer", "--save-outputs",
                 str(saved), "-q"]) == 0
    out = tmp_path / "min.xml"
    capsys.readouterr()
    code, found = reduce_json(capsys, str(tmp_path / "changed.xml"), "-o", str(out), "--shape", "x:1,64",
                              "--load-outputs", str(saved))
    assert code == 0, found
    assert "add" in {layer.name for layer in ir_tools.read_valid(out).layers()} and found["layers"] == 1, found
    assert main(["reduce", str(tmp_path / "changed.xml"), "-o", str(out), "--load-outputs", str(saved), "--shape",
                 "x:1,32"]) == 2
    assert "the saved activations are of another model or input" in capsys.readouterr().err


def test_a_state_cut_as_an_input_is_no_output_nor_what_only_set_it(tmp_path: Path) -> None:
    """A part is cut at a state it holds the ReadValue of (fed the state as an input). That ReadValue's output was
    also an output of the part where a layer after it reads it: every prefix of a Whisper decoder's "outputs"
    bisection was "both a cut input and an output" (219 OpenVINO runs, 29 now), as is a stateful Llama's up to its
    first state. And a model input only the state's initial value is computed from (the Whisper decoder's
    encoder_hidden_states) was then a cut input nothing reads: the whole model was no part."""
    import openvino as ov
    from openvino import opset6
    from openvino import opset13 as op
    from openvino.op.util import Variable, VariableInfo

    from ir_tools.runtime.reduce import Candidate, Runs, _Reducer, activations

    def candidates(graph: ir_tools.Graph) -> _Reducer:
        runs = Runs()
        fed = activations(graph, ir_tools.random_inputs(graph), {}, runs)
        return _Reducer(graph, fed, lambda *_: None, runs, lambda _: None)

    llama = ir_tools.read_valid(LLAMA)
    reducer = candidates(llama)
    first_state = next(i for i, layer_id in enumerate(reducer.order) if llama.layer(layer_id).is_a("ReadValue"))
    assert isinstance(reducer.candidate(frozenset(reducer.order[:first_state + 1])), Candidate)

    info = VariableInfo()
    info.data_shape, info.data_type, info.variable_id = ov.PartialShape([1, 4]), ov.Type.f32, "cache"
    variable = Variable(info)
    x = op.parameter([1, 4], np.float32, name="x")
    encoded = op.parameter([1, 4], np.float32, name="encoded")
    state = opset6.read_value(op.multiply(encoded, op.constant(np.full((1, 4), 2.0, np.float32))), variable)
    added = op.add(x, state)
    added.output(0).set_names({"y"})
    model = ov.Model([op.result(added)], [opset6.assign(added, variable)], [x, encoded])
    ov.save_model(model, tmp_path / "stateful.xml", compress_to_fp16=False)
    reducer = candidates(ir_tools.read_valid(tmp_path / "stateful.xml"))
    assert isinstance(reducer.candidate(frozenset(reducer.order)), Candidate)


def test_a_part_cut_at_a_tensor_of_unknown_rank_is_cut() -> None:
    """A DeBERTa's If gives a tensor of a rank our rules do not infer: extract made the Parameter standing for it
    with no shape attribute (A.encode leaves out a field of None, a dynamic rank), so a scalar ("declared [...],
    inferred []"), and the part was invalid: the E-PASS ended the whole reduction of any part the search cut there."""
    from ir_tools.runtime.reduce import Candidate, Runs, _Reducer, activations

    graph = ir_tools.read_valid(FIXTURES_DIR / "tiny_deberta_v2_f16.xml")
    runs = Runs()
    fed = activations(graph, ir_tools.random_inputs(graph), {}, runs)
    reducer = _Reducer(graph, fed, lambda *_: None, runs, lambda _: None)
    branch = next(layer for layer in graph.layers() if layer.is_a("If"))
    readers = {edge.to_layer for port in branch.outputs for edge in graph.consumers(branch.id, port.id)}
    assert readers
    for reader in readers:
        assert isinstance(reducer.candidate(frozenset([reader])), Candidate), graph.layer(reader).name


def test_a_state_written_from_another_tensor_is_not_found_in_one_inference_and_reduce_says_where_it_is(
        capsys, tmp_path: Path) -> None:
    """A stateful Llama whose first Assign writes another tensor (its twin's key) computes every output of one
    inference as its original does: reduce, which runs one, rightly found nothing to reduce, but said only "the model
    does not fail as asked". It now says that the state was not compared and which command compares it; that command
    names the Assign."""
    changed = tmp_path / "changed.xml"
    assign = "Assign_37076"
    plant("state-write", LLAMA, changed, assign)
    assert main(["reduce", str(changed), "--against", str(LLAMA), "-o", str(tmp_path / "min.xml")]) == 2
    said = capsys.readouterr().err
    assert "E-REDUCE" in said and "not its state" in said and "compare MODEL --steps 2" in said, said
    assert not (tmp_path / "min.xml").exists()
    assert main(["compare", str(changed), "--against", str(LLAMA), "--steps", "2", "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["first_divergence"]["name"] == assign
