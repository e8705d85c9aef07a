"""``migrate --stateless``: a stateful language model's state as inputs and outputs (passes/stateless), the form
releases before 2023.3 run. On the committed stateful Llama, migrated with ``--target 2023.0 --stateless``: OpenVINO
2023.0 fed the initial state (``runtime/steps.initial_states``), then the state it gave, computes over three steps
of a generation loop what the current OpenVINO computes on the stateful original, carrying its state."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from ir_tools.runtime.inputs import draw, generation_step, recipes
from tests.target_zoo import FIXTURES_DIR, TOLERANCE
from tests.test_target import side_pythons

MODEL = FIXTURES_DIR / "tiny_llama_stateful_f16.xml"


def test_check_target_points_at_stateless(capsys) -> None:
    """2023.0 cannot run a dynamic state: each ReadValue's E-TARGET names the way out."""
    assert main(["check", str(MODEL), "--no-openvino", "--target", "2023.0"]) == 1
    assert "`ir-tools migrate --target --stateless` makes it inputs and outputs" in capsys.readouterr().out


@pytest.mark.openvino
def test_stateless_form_has_the_state_as_inputs_and_outputs(tmp_path: Path, capsys) -> None:
    out = tmp_path / "stateless.xml"
    assert main(["migrate", str(MODEL), "--stateless", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "rewrote 4 x ReadValue -> Parameter" in printed and "rewrote 4 x Assign -> Result" in printed
    graph = ir_tools.read_valid(out)
    assert not any(layer.is_a("ReadValue") or layer.is_a("Assign") for layer in graph.layers())
    original = ir_tools.read_valid(MODEL)
    names = {n for p in graph.parameters() for n in (p.outputs[0].names or "").split(",")}
    assert {"input_ids", "attention_mask", "position_ids", "beam_idx"} <= names
    assert {f"past_key_values.{i}.{kv}" for i in range(2) for kv in ("key", "value")} <= names
    assert len(graph.parameters()) == len(original.parameters()) + 4
    checked = tmp_path / "checked.xml"  # --check runs three steps, the stateless form fed the state it gave
    assert main(["migrate", str(MODEL), "--stateless", "--check", "-o", str(checked)]) == 0
    printed = capsys.readouterr().out
    assert all(f"  {name} (step {k}): same" in printed for k in (1, 2, 3)
               for name in ("logits", "present.0.key", "present.1.value")), printed


@pytest.mark.openvino
def test_stateless_check_finds_a_state_fed_back_wrong(tmp_path: Path, capsys, monkeypatch) -> None:
    """A stateless form whose two states' outputs are swapped (a defect planted in the pass's naming) computes the
    first step's logits right: --check compared those alone and wrote it (found by a QA run). It now compares each
    state output with the original's variable, and the steps after, fed back: nothing written, exit 1."""
    from ir_tools.passes import stateless

    swapped = {"present.0.key": "present.0.value", "present.0.value": "present.0.key"}
    named = stateless.state_names  # (the pass's, planted: the check's own stays as imported)
    monkeypatch.setattr(stateless, "state_names", lambda graph: {
        vid: (name, swapped.get(output, output)) for vid, (name, output) in named(graph).items()})
    out = tmp_path / "swapped.xml"
    assert main(["migrate", str(MODEL), "--stateless", "--check", "-o", str(out)]) == 1
    printed = capsys.readouterr().out
    assert "  logits (step 1): same" in printed and "  present.0.key (step 1): DIFFERENT" in printed, printed
    assert "  logits (step 2): DIFFERENT" in printed and not out.exists(), printed


def test_stateless_on_a_model_without_state_says_so(tmp_path: Path, capsys) -> None:
    """--stateless on a model that holds no state was taken without a word (an option ignored): a warning, which
    -q leaves out; the migration is the same."""
    sample = Path(__file__).parents[2] / "samples" / "avgpool14_ceil_torch.xml"
    assert main(["migrate", str(sample), "--stateless", "-o", str(tmp_path / "a.xml")]) == 0
    assert capsys.readouterr().err == (f"warning: --stateless: {sample} holds no state (no ReadValue or Assign), "
                                       "nothing to make inputs and outputs\n")
    assert main(["migrate", str(sample), "--stateless", "-q", "-o", str(tmp_path / "b.xml")]) == 0
    assert capsys.readouterr().err == ""
    assert (tmp_path / "a.xml").read_bytes() == (tmp_path / "b.xml").read_bytes()
    assert main(["migrate", str(MODEL), "--stateless", "-o", str(tmp_path / "c.xml")]) == 0
    assert capsys.readouterr().err == ""


def _unsupported(monkeypatch, op_type: str) -> None:
    """The reference made unable to run ``op_type``, as it is unable to run GPT-J's GatherElements-6 (found so)."""
    from ir_tools.runtime import executor

    runs = executor.supported
    monkeypatch.setattr(executor, "supported", lambda layer: not layer.is_a(op_type) and runs(layer))


def test_initial_states_run_only_what_the_state_reads(monkeypatch) -> None:
    """The state's initial values came from the reference run over the whole model, which refused GPT-J for its
    rotary embedding's GatherElements, a layer the state does not read; only the ReadValues' producers run now."""
    from ir_tools.base.errors import UnsupportedError
    from ir_tools.runtime.steps import initial_states

    original = ir_tools.read_valid(MODEL)
    inputs = draw(recipes(original, {"input_ids": (1, 5)}), 0)
    _unsupported(monkeypatch, "MatMul")
    assert [value.shape[2] for value in initial_states(original, inputs).values()] == [0] * 4  # empty caches
    _unsupported(monkeypatch, "Broadcast")  # (what makes the empty cache: the reference must run it)
    with pytest.raises(UnsupportedError, match="the state's initial values .* are the reference's to compute"):
        initial_states(original, inputs)


@pytest.mark.openvino
def test_stateless_check_says_whose_the_initial_state_is(tmp_path: Path, capsys, monkeypatch) -> None:
    """Where the reference cannot compute the initial state, --check said OpenVINO "refuses the migrated model" and
    "refused to run" it; it says it of the reference, before the migrated model runs (exit 2, nothing written)."""
    _unsupported(monkeypatch, "Broadcast")
    out = tmp_path / "out.xml"
    assert main(["migrate", str(MODEL), "--stateless", "--check", "-o", str(out)]) == 2
    printed = capsys.readouterr()
    assert "the state's initial values (what each ReadValue reads first) are the reference's to compute, and the " \
           "reference executor cannot run 4 layer(s)" in printed.err, printed
    assert "refuse" not in printed.out and not out.exists(), printed


@pytest.mark.skipif("2023.0" not in side_pythons(), reason="no OpenVINO 2023.0: set IR_TOOLS_RELEASE_PYTHONS")
@pytest.mark.openvino
def test_stateless_on_2023_0_computes_the_stateful_original_step_by_step(tmp_path: Path, capsys) -> None:
    from ir_tools.runtime.openvino import ModelFiles, run_openvino_steps
    from ir_tools.runtime.runners import ChildOpenVinoRunner
    from ir_tools.runtime.steps import initial_states

    out = tmp_path / "llama_2023.xml"
    assert main(["migrate", str(MODEL), "--target", "2023.0", "--stateless", "-o", str(out)]) == 0
    capsys.readouterr()
    original = ir_tools.read_valid(MODEL)
    made = recipes(original, {"input_ids": (1, 5)})
    steps = [draw(generation_step(made, step), step) for step in range(3)]
    want = [run.outputs for run, _ in run_openvino_steps(original, steps, ModelFiles(MODEL, MODEL.with_suffix(".bin")))]
    migrated = ir_tools.read_valid(out)
    runner = ChildOpenVinoRunner(side_pythons()["2023.0"], migrated, ModelFiles(out, out.with_suffix(".bin")))
    state = initial_states(original, steps[0])
    assert {value.shape[2] for value in state.values()} == {0}  # an empty cache
    for step, inputs in enumerate(steps):
        got = runner.run({**inputs, **state})
        logits = want[step]["logits"]
        error = float(np.abs(got["logits"] - logits).max())
        assert error <= TOLERANCE * float(np.abs(logits).max()), (step, error)
        state = {f"past_key_values.{name[len('present.'):]}": value for name, value in got.items()
                 if name.startswith("present.")}
        assert len(state) == 4


@pytest.mark.openvino
def test_stateless_names_the_state_input_and_output_apart(tmp_path: Path, capsys) -> None:
    """A ReadValue without tensor names whose state is also an output ('y'): --stateless made an input without a
    name (OpenVINO listed set(); ``input('acc')`` failed) and put the state's name and 'y' on the Add feeding both
    outputs, which the 2023.0 rewrite gave 'y' a Convert of its own: two outputs named 'y' on 2023.0 (2026.4 renamed
    one 'y_1'), and --check-with said "same". Now the input is the variable id, the state output a tensor of its own
    ('present.acc': the id is the input's name), on every release. A variable named as an output ('y') was refused
    (E-NAME-COLLISION): its input and output are now 'past.y' and 'present.y' (``state_names``; optimum-intel's BART
    decoder has a variable named as its input 'encoder_hidden_states')."""
    import sys

    import openvino as ov
    import openvino.opset13 as o
    from openvino.op.util import Variable, VariableInfo

    from tests.test_interface_names import _names

    def stateful(variable_id: str) -> Path:
        x = o.parameter([1, 4], np.float32, name="x")
        info = VariableInfo()
        info.data_shape, info.data_type, info.variable_id = ov.PartialShape([1, 4]), ov.Type.f32, variable_id
        variable = Variable(info)
        read = o.read_value(o.multiply(x, o.constant(np.float32(2))), variable)
        total = o.add(read, x)
        result = o.result(total)
        result.output(0).get_tensor().set_names({"y"})
        model = tmp_path / f"{variable_id}.xml"
        ov.save_model(ov.Model([result], [o.assign(total, variable)], [x]), model, compress_to_fp16=False)
        return model

    for variable, want in (("acc", [[["x"], ["acc"]], [["y"], ["present.acc"]]]),
                           ("y", [[["x"], ["past.y"]], [["y"], ["present.y"]]])):
        out = tmp_path / f"stateless_{variable}.xml"
        assert main(["migrate", str(stateful(variable)), "--target", "2023.0", "--stateless", "--check", "-o",
                     str(out)]) == 0, capsys.readouterr()
        for release, python in {"current": sys.executable, **side_pythons()}.items():
            assert _names(python, out) == want, (variable, release)
    out = tmp_path / "stateless_acc.xml"
    compiled = ov.Core().compile_model(out, "CPU")
    ones = np.ones((1, 4), np.float32)
    got = compiled({"x": ones, "acc": ones})
    assert np.array_equal(got[compiled.output("present.acc")], 2 * ones)
    assert ir_tools.check(out, openvino=False) == []


@pytest.mark.openvino
def test_stateless_keeps_the_name_of_a_state_read_as_an_output(tmp_path: Path, capsys) -> None:
    """A ReadValue whose tensor ('cache') is an output too: its input was named 'past.cache' (``state_names``) but
    kept 'cache' beside it, which the Result reading it names, so --stateless refused the model (E-NAME-COLLISION,
    'cache' on two tensors). Now that Result reads a tensor of its own named 'cache'; the input is 'past.cache' alone,
    and the first step computes the stateful original's. Its IR v10 form named the state's output after the
    Convert giving it a tensor of its own too ('Assign_5/own_tensor', OpenVINO's ``get_any_name``)."""
    import sys

    import openvino as ov
    import openvino.opset13 as o
    from openvino.op.util import Variable, VariableInfo

    from tests.test_interface_names import _names

    x = o.parameter([1, 4], np.float32, name="x")
    x.output(0).set_names({"x"})
    info = VariableInfo()
    info.data_shape, info.data_type, info.variable_id = ov.PartialShape([1, 4]), ov.Type.f32, "state"
    variable = Variable(info)
    read = o.read_value(o.multiply(x, o.constant(np.float32(2))), variable)
    read.output(0).set_names({"cache"})
    total = o.add(read, x)
    total.output(0).set_names({"y"})
    model = tmp_path / "stateful.xml"
    ov.save_model(ov.Model([o.result(total), o.result(read)], [o.assign(total, variable)], [x]), model,
                  compress_to_fp16=False)
    want = [[["x"], ["past.cache"]], [["y"], ["cache"], ["state"]]]
    v10 = tmp_path / "stateful_v10.xml"
    assert main(["migrate", str(model), "--ir-version", "10", "-o", str(v10)]) == 0
    for source, target in ((model, "2023.0"), (model, "2021.4"), (v10, "2023.0")):
        out = tmp_path / f"stateless_{source.stem}_{target}.xml"
        assert main(["migrate", str(source), "--target", target, "--stateless", "-o", str(out)]) == 0, \
            capsys.readouterr()
        for release, python in {"current": sys.executable, **side_pythons()}.items():
            assert _names(python, out) == want, (target, release)
    ones = np.ones((1, 4), np.float32)
    first = ov.Core().compile_model(model, "CPU")({"x": ones})
    stateless = ov.Core().compile_model(tmp_path / "stateless_stateful_2023.0.xml", "CPU")
    got = stateless({"x": ones, "past.cache": 2 * ones})
    assert [np.array_equal(first[i], got[i]) for i in range(2)] == [True, True]


def _seq2seq_decoder(path: Path) -> Path:
    """A seq2seq decoder as optimum-intel exports one stateful: a cross-attention state its ReadValue computes from
    ``encoder_hidden_states`` (which nothing else reads) at the first step and its Assign writes back as read (held),
    beside a state each step adds to and one written back as read but computed from ``inputs_embeds``, which the
    output reads too (not held: each step feeds another)."""
    import openvino as ov
    import openvino.opset13 as o
    from openvino.op.util import Variable, VariableInfo

    def variable(variable_id: str, shape: list[int]) -> Variable:
        info = VariableInfo()
        info.data_shape, info.data_type, info.variable_id = ov.PartialShape(shape), ov.Type.f32, variable_id
        return Variable(info)

    x = o.parameter([1, -1, 4], np.float32, name="inputs_embeds")
    encoded = o.parameter([1, -1, 4], np.float32, name="encoder_hidden_states")
    for param in (x, encoded):
        param.output(0).set_names({param.get_friendly_name()})
    weights = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)
    cross_state = variable("cross", [1, -1, 4])
    cross = o.read_value(o.matmul(encoded, o.constant(weights), False, False), cross_state)
    acc_state = variable("acc", [1, 4])
    acc = o.add(o.read_value(o.constant(np.zeros((1, 4), np.float32)), acc_state), o.reduce_sum(x, [1], False))
    first_state = variable("first", [1, -1, 4])  # (held, from an input each step changes: an input as any state)
    first = o.read_value(o.multiply(x, o.constant(np.float32(2))), first_state)
    logits = o.matmul(o.add(o.add(x, o.unsqueeze(acc, [1])), o.reduce_sum(first, [1], True)), cross, False, True)
    logits.output(0).set_names({"logits"})
    ov.save_model(ov.Model([o.result(logits)], [o.assign(cross, cross_state), o.assign(acc, acc_state),
                                                o.assign(first, first_state)], [x, encoded]), path,
                  compress_to_fp16=False)
    return path


@pytest.mark.openvino
def test_stateless_computes_a_held_state_at_each_step(tmp_path: Path, capsys) -> None:
    """optimum-intel's T5 and Whisper decoders hold each cross-attention key and value, computed from
    encoder_hidden_states at the first step. --stateless made each an input (with no way to give it at the first
    step) and dropped what computed it: encoder_hidden_states fed nothing (W-DEAD). Now the stateless form computes
    it at each step from encoder_hidden_states, which each step of a generation loop feeds alike (``later_steps``),
    and --check compares three such steps with the stateful original, on this OpenVINO and on 2023.0."""
    model = _seq2seq_decoder(tmp_path / "decoder.xml")
    steps = ir_tools.random_steps(ir_tools.read_valid(model), 3)
    assert all(np.array_equal(step["encoder_hidden_states"], steps[0]["encoder_hidden_states"]) for step in steps)
    assert not np.array_equal(steps[1]["inputs_embeds"][0, 0], steps[2]["inputs_embeds"][0, 0])
    out = tmp_path / "stateless.xml"
    assert main(["migrate", str(model), "--stateless", "--check", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "rewrote 1 x ReadValue held -> its initial value, computed at each step" in printed, printed
    assert all(f"  {name} (step {k}): same" in printed for k in (1, 2, 3)
               for name in ("logits", "present.acc", "present.first"))
    graph = ir_tools.read_valid(out)
    assert sorted(n for p in graph.parameters() for n in (p.outputs[0].names or "").split(",")) == \
        ["acc", "encoder_hidden_states", "first", "inputs_embeds"]
    assert ir_tools.check(out) == []  # (no W-DEAD: encoder_hidden_states feeds the cross state)
    python = side_pythons().get("2023.0")
    if python is None:
        pytest.skip("no OpenVINO 2023.0 on the side (IR_TOOLS_RELEASE_PYTHONS): checked on this OpenVINO only")
    assert main(["migrate", str(model), "--target", "2023.0", "--stateless", "--check-with", python, "-o",
                 str(tmp_path / "for_2023.xml")]) == 0, capsys.readouterr()
