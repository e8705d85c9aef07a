"""State across inferences: the reference executor's variables (runtime/executor.py) against OpenVINO's infer request
(``openvino.run_openvino_steps``: one request, reset, state carried), on the committed stateful Llama fixture run as
a generation loop (``inputs.generation_step``: the prompt, then one token a step)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ir_tools import read_ir
from ir_tools.base.errors import IrToolsError
from ir_tools.runtime.executor import BoundedInterpreter, Interpreter
from ir_tools.runtime.inputs import draw, generation_step, recipes
from ir_tools.runtime.openvino import ModelFiles, run_openvino_steps

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

FIXTURE = Path(__file__).parents[1] / "data" / "target" / "tiny_llama_stateful_f16.xml"
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
