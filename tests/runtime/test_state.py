"""State across inferences: the reference executor's variables (runtime/executor.py) against OpenVINO's infer request
(``openvino.run_openvino_steps``: one request, reset, state carried), on the committed stateful Llama fixture run as
a generation loop (``inputs.generation_step``: the prompt, then one token a step); ``compare --steps`` over it
(runtime/steps.py), a planted defect (two state writes swapped) named with its step, and its refusals."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from ir_tools import read_ir
from ir_tools.base.errors import IrToolsError
from ir_tools.cli import main
from ir_tools.report import compare_html
from ir_tools.runtime.executor import BoundedInterpreter, Interpreter
from ir_tools.runtime.inputs import draw, generation_step, recipes
from ir_tools.runtime.openvino import ModelFiles, run_openvino_steps

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

FIXTURE = Path(__file__).parents[1] / "data" / "target" / "tiny_llama_stateful_f16.xml"
SAMPLES = Path(__file__).parents[2] / "samples"
STEPS = 4


def steps(graph, count: int = STEPS) -> list[dict[str, np.ndarray]]:
    made = recipes(graph, {})
    return [draw(generation_step(made, step), step) for step in range(count)]


def test_generation_steps_follow_the_prompt() -> None:
    """Step 0 is the prompt (sequence 8); each later step one token, the mask over the past and it, positions on."""
    fed = steps(read_ir(FIXTURE))
    assert [x["input_ids"].shape for x in fed] == [(1, 8), (1, 1), (1, 1), (1, 1)]
    assert [x["attention_mask"].shape for x in fed] == [(1, 8), (1, 9), (1, 10), (1, 11)]
    assert all((x["attention_mask"] == 1).all() for x in fed)
    assert [x["position_ids"].tolist() for x in fed] == [[list(range(8))], [[8]], [[9]], [[10]]]
    assert [x["beam_idx"].tolist() for x in fed] == [[0]] * STEPS


def test_the_reference_carries_state_as_openvino_does() -> None:
    """Each step's logits and every variable after it (the KV cache, growing by one position a step) within the
    rounding bound the reference propagates, state included; after reset_state the prompt gives what it gave."""
    graph = read_ir(FIXTURE)
    fed = steps(graph)
    theirs = run_openvino_steps(graph, fed, ModelFiles(FIXTURE, FIXTURE.with_suffix(".bin")))
    reference = BoundedInterpreter(graph)
    first = None
    for step, (inputs, (run, states)) in enumerate(zip(fed, theirs, strict=True)):
        outputs = reference.evaluate(inputs)
        first = first or outputs
        compared = [(name, *outputs[name], run.outputs[name]) for name in run.outputs]
        assert set(states) == set(reference.variables.values) and len(states) == 4
        compared += [(f"state {vid}", *reference.variables.values[vid], states[vid]) for vid in states]
        for what, ours, bound, want in compared:
            assert ours.shape == want.shape, (step, what)
            assert np.all(np.abs(ours.astype(np.float64) - want) <= bound), (step, what)
        assert {v.shape[2] for v, _ in reference.variables.values.values()} == {8 + step}
    reference.reset_state()
    again = reference.evaluate(fed[0])
    assert all(np.array_equal(again[name][0], first[name][0]) for name in first)


def test_a_failed_inference_changes_no_state() -> None:
    graph = read_ir(FIXTURE)
    fed = steps(graph, 2)
    reference = Interpreter(graph)
    reference.evaluate(fed[0])
    held = {vid: value.copy() for vid, value in reference.variables.values.items()}
    with pytest.raises(IrToolsError):
        reference.evaluate({name: value for name, value in fed[1].items() if name != "beam_idx"})
    assert held.keys() == reference.variables.values.keys()
    assert all(np.array_equal(held[vid], reference.variables.values[vid]) for vid in held)


def compare_json(capsys, *args: str) -> tuple[int, dict]:
    code = main(["compare", *args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def swap_state_writes(xml: Path, out: Path) -> tuple[str, str]:
    """``xml`` with the inputs of its first two Assigns swapped (each variable written from the other's tensor), as
    ``out`` (.xml and .bin); the two Assigns' names."""
    text = xml.read_text()
    (a, a_name), (b, b_name) = re.findall(r'<layer id="(\d+)" name="([^"]+)" type="Assign"', text)[:2]
    edges = {lid: re.search(rf'<edge from-layer="\d+" from-port="\d+" to-layer="{lid}" to-port="0"\s*/>', text).group(0)
             for lid in (a, b)}
    text = text.replace(edges[a], "\0A").replace(edges[b], "\0B")
    text = text.replace("\0A", edges[b].replace(f'to-layer="{b}"', f'to-layer="{a}"'))
    text = text.replace("\0B", edges[a].replace(f'to-layer="{a}"', f'to-layer="{b}"'))
    out.write_text(text)
    shutil.copy(xml.with_suffix(".bin"), out.with_suffix(".bin"))
    return a_name, b_name


def test_compare_runs_two_steps_of_a_stateful_model_by_default(capsys, check_report) -> None:
    code, report = compare_json(capsys, str(FIXTURE))
    check_report(report)
    assert code == 0 and report["passed"] and report["first_divergence"] is None
    assert [s["step"] for s in report["steps"]] == [1, 2] and report["config"]["steps"] == 2
    assert report["steps"][1]["inputs"] == {"input_ids": [1, 1], "attention_mask": [1, 9], "position_ids": [1, 1],
                                            "beam_idx": [1]}
    names = [o["name"] for o in report["outputs"]]
    assert names.count("logits (step 2)") == 1 and sum(n.startswith("state ") for n in names) == 8
    assert all(o["error_to_bound"] < 1 for o in report["outputs"])


def test_a_state_written_from_the_wrong_tensor_is_named_with_its_step(capsys, tmp_path, check_report) -> None:
    """Two Assigns' inputs swapped: against outputs and states saved from the original (--steps 4), compare fails
    at step 1 (the state written after the prompt), naming one of the two Assigns; the changed model agrees with
    its own reference."""
    saved, changed = tmp_path / "original.npz", tmp_path / "swapped.xml"
    swapped = swap_state_writes(FIXTURE, changed)
    assert main(["compare", str(FIXTURE), "--steps", "4", "--save-outputs", str(saved)]) == 0
    capsys.readouterr()
    code, report = compare_json(capsys, str(changed), "--steps", "4", "--load-outputs", str(saved))
    check_report(report)
    divergence = report["first_divergence"]
    assert code == 1 and divergence["step"] == 1 and divergence["name"] in swapped, divergence
    assert divergence["tensor"].startswith("state ") and divergence["tensor"].endswith("(step 1) (vs saved)")
    assert [s["passed"] for s in report["steps"]] == [False] * 4
    code, report = compare_json(capsys, str(changed), "--steps", "4")
    assert code == 0 and report["passed"], "the changed model agrees with its own reference"
    assert main(["compare", str(changed), "--steps", "2", "--load-outputs", str(saved)]) == 1
    out = capsys.readouterr().out
    assert "first divergence: step 1, tensor 'state " in out and "FAILED" in out


def test_a_state_takes_its_own_tolerance_by_its_variable_id(capsys, tmp_path) -> None:
    """A state is compared as ``state VARIABLE_ID (step K)`` under the tolerance of its variable id, but ``--atol
    VARIABLE_ID:V`` was refused ("no output or layer"), so no state could be given its own: the states the swapped
    writes changed pass with theirs, the logits they reach still fail."""
    saved, changed = tmp_path / "original.npz", tmp_path / "swapped.xml"
    swap_state_writes(FIXTURE, changed)
    assert main(["compare", str(FIXTURE), "--steps", "2", "--save-outputs", str(saved)]) == 0
    capsys.readouterr()
    loose = [x for vid in sorted(set(re.findall(r'variable_id="([^"]+)"', FIXTURE.read_text())))
             for x in ("--atol", f"{vid}:1e9")]
    code, report = compare_json(capsys, str(changed), "--steps", "2", "--load-outputs", str(saved), *loose)
    assert code == 1 and [o["name"] for o in report["outputs"] if not o["passed"]] == ["logits (step 2) (vs saved)"]


def test_steps_per_layer(capsys, check_report) -> None:
    """--per-layer: each step's layers fed OpenVINO's activations of that step, none left unchecked; a ReadValue
    from step 2 on is what OpenVINO's variable held after the step before, bit for bit."""
    code, report = compare_json(capsys, str(FIXTURE), "--steps", "3", "--per-layer")
    check_report(report)
    assert code == 0 and report["passed"] and report["not_checked"] == []
    names = [t["name"] for lay in report["layers"] for t in lay["outputs"]]
    assert {n.rsplit(" (step ", 1)[1] for n in names} == {"1)", "2)", "3)"}
    reads = [lay["outputs"][0] for lay in report["layers"] if lay["type"] == "ReadValue@opset6"]
    assert len(reads) == 4 * 3 and all(t["max_abs_error"] == 0 for t in reads if not t["name"].endswith("(step 1)"))
    assert not [lay for lay in report["layers"] if lay["type"].startswith("Assign")]


@pytest.mark.parametrize(("model", "args", "says"), [
    ("stateful", ["--steps", "0"], "--steps must be at least 1"),
    ("stateless", ["--steps", "2"], "holds no state"),
    ("stateful", ["--steps", "2", "--inputs", "INPUTS"], "--inputs feeds one inference"),
    ("stateful", ["--per-layer", "--compare-constants"], "does not take steps yet"),
    ("stateful", ["--load-outputs", "ONE"], "the saved outputs are of one inference, not of steps"),
    ("stateless", ["--load-outputs", "STEPS"], "none of the saved outputs or activations is of this model, so none "
                                                "would be compared: they are of the steps of a stateful model"),
    ("stateless", ["--load-outputs", "ONE_OTHER"], "none of the saved outputs or activations is of this model"),
])
def test_steps_refusals(capsys, tmp_path, model, args, says) -> None:
    path = FIXTURE if model == "stateful" else SAMPLES / "avgpool14_ceil_torch.xml"
    if "INPUTS" in args:
        np.savez(tmp_path / "in.npz", **steps(read_ir(FIXTURE), 1)[0])
        args = [str(tmp_path / "in.npz") if a == "INPUTS" else a for a in args]
    if "ONE" in args:  # outputs saved by a compare of one inference: none is named as a step's
        assert main(["compare", str(SAMPLES / "avgpool14_ceil_torch.xml"), "--save-outputs",
                     str(tmp_path / "one.npz"), "-q"]) == 0
        args = [str(tmp_path / "one.npz") if a == "ONE" else a for a in args]
    if "STEPS" in args:  # the other way round: a stateless model given a stateful one's steps (compared nothing)
        assert main(["compare", str(FIXTURE), "--steps", "2", "--per-layer", "--save-outputs",
                     str(tmp_path / "steps.npz"), "-q"]) == 0
        args = [str(tmp_path / "steps.npz") if a == "STEPS" else a for a in args]
    if "ONE_OTHER" in args:  # the outputs of another model, named otherwise
        assert main(["compare", str(SAMPLES / "mixed_network.xml"), "--save-outputs",
                     str(tmp_path / "other.npz"), "-q"]) == 0
        args = [str(tmp_path / "other.npz") if a == "ONE_OTHER" else a for a in args]
    assert main(["compare", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and "E-INTERNAL" not in err


def test_inputs_without_steps_run_one_step(capsys, tmp_path) -> None:
    """--inputs feed one inference: without --steps a stateful model runs that one step (the default 2 draws the
    second step's tokens, which --inputs do not hold), and compares it; an explicit --steps 2 stays refused."""
    np.savez(tmp_path / "in.npz", **steps(read_ir(FIXTURE), 1)[0])
    code, report = compare_json(capsys, str(FIXTURE), "--inputs", str(tmp_path / "in.npz"))
    assert code == 0 and [s["step"] for s in report["steps"]] == [1] and report["outputs"]


def test_html_keeps_a_layer_failed_at_any_step(capsys, check_report) -> None:
    """The HTML page of a --steps --per-layer report: a layer listed once a step shows every step's tensors, and
    stays failed when a later step passes (here the report says step 1 of one MatMul failed)."""
    _, report = compare_json(capsys, str(FIXTURE), "--steps", "2", "--per-layer")
    first = next(lay for lay in report["layers"] if lay["type"] == "MatMul@opset1")
    first["passed"] = first["outputs"][0]["passed"] = False
    check_report(report)
    page = compare_html(read_ir(FIXTURE), report)
    data = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S).group(1))
    i = next(k for k, node in enumerate(data["nodes"]) if node[0] == first["layer_id"])
    assert data["nodes"][i][-1] == "fail"
    assert [t["name"].rsplit(" (step ", 1)[1] for t in data["info"][i]["tensors"]] == ["1)", "2)"]


def test_a_stateful_ir_v10_model_is_compared_layer_by_layer(tmp_path: Path, capsys) -> None:
    """A stateful model written as IR v10: compare --per-layer (and so --against) passes. OpenVINO refused the model
    with every layer's output added ("Model operation names have collisions with tensor names"), which compare
    reported as the model's fault, though OpenVINO compiles the file."""
    v10 = tmp_path / "v10.xml"
    assert main(["migrate", str(FIXTURE), "--ir-version", "10", "-o", str(v10)]) == 0
    capsys.readouterr()
    assert main(["compare", str(v10), "--per-layer", "-q"]) == 0, capsys.readouterr()
    assert "PASSED" in capsys.readouterr().out
