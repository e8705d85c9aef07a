"""The runners (OpenVINO here and in a child interpreter, onnxruntime, the reference) and compare_model over them."""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from ir_tools.base.errors import IrToolsError
from ir_tools.ir.model import Graph
from ir_tools.passes.validate import read_valid
from ir_tools.runtime import numeric_check
from ir_tools.runtime.compare import Tolerances
from ir_tools.runtime.inputs import random_inputs
from ir_tools.runtime.numeric_check import CompareOptions, compare_model, saved_arrays
from ir_tools.runtime.openvino import OPENVINO_VERSION, ModelFiles
from ir_tools.runtime.runners import (
    ChildOpenVinoRunner,
    OnnxRuntimeRunner,
    OpenVinoRunner,
    ReferenceRunner,
    Runner,
    compare_outputs,
)
from tests.conftest import SAMPLES
from tests.test_target import side_pythons

MIXED = SAMPLES / "mixed_network.xml"
#: An interpreter with another OpenVINO (a venv of an older release: pip install 'openvino==2024.6.0' 'numpy<2'):
#: IR_TOOLS_OTHER_PYTHON, else the newest of the releases CI installs; the test using it runs only when there is one.
OTHER_PYTHON = os.environ.get("IR_TOOLS_OTHER_PYTHON") or max(side_pythons().items(), default=(None, None))[1]


def _files(xml: Path) -> ModelFiles:
    return ModelFiles(xml, xml.with_suffix(".bin"))


def _assert_same_outputs(runners: list[Runner], inputs: dict[str, np.ndarray]) -> None:
    first, *others = [runner.run(inputs) for runner in runners]
    for runner, outputs in zip(runners[1:], others, strict=True):
        assert outputs.keys() == first.keys(), runner.name
        for name, value in first.items():
            np.testing.assert_allclose(outputs[name], value, rtol=1e-5, atol=1e-5, err_msg=f"{runner.name}: {name}")


@pytest.mark.openvino
def test_every_runner_computes_the_onnx_models_outputs():
    from ir_tools.onnx import from_onnx

    onnx_file = SAMPLES / "tricky_avgpool.onnx"
    graph = from_onnx(onnx_file, compress_to_fp16=False)
    inputs = random_inputs(graph, 0, {})
    runners: list[Runner] = [OnnxRuntimeRunner(onnx_file), OpenVinoRunner(graph), ReferenceRunner(graph),
                             ChildOpenVinoRunner(sys.executable, graph)]
    _assert_same_outputs(runners, inputs)
    assert [runner.model for runner in runners] == [onnx_file, graph, graph, graph]
    assert [runner.name for runner in runners[:3]] == ["onnxruntime", f"OpenVINO {OPENVINO_VERSION}",
                                                       "the numpy reference"]


@pytest.mark.openvino
def test_child_runner_gives_what_openvino_here_gives_layer_by_layer():
    graph = read_valid(MIXED)
    inputs = random_inputs(graph, 0, {})
    hidden = frozenset(graph.layer(lid).name for lid in numeric_check.constant_layers(graph))
    here = OpenVinoRunner(graph, _files(MIXED)).infer(inputs, per_layer=True, hidden=hidden)
    child_runner = ChildOpenVinoRunner(sys.executable, graph, _files(MIXED))
    child = child_runner.infer(inputs, per_layer=True, hidden=hidden)
    assert child.version == here.version == child_runner.version == OpenVinoRunner(graph).version == OPENVINO_VERSION
    assert child.config == here.config and child.outputs.keys() == here.outputs.keys()
    assert child.layers.keys() == here.layers.keys() and len(here.layers) > 1
    for key, value in here.layers.items():
        np.testing.assert_array_equal(child.layers[key], value)
    assert child_runner.name == f"OpenVINO {OPENVINO_VERSION} ({sys.executable})"


@pytest.mark.openvino
def test_child_runner_reports_openvinos_refusal_in_its_words(tmp_path):
    garbage = tmp_path / "garbage.xml"
    garbage.write_text("<net><layers><layer id='0'</net>")
    with pytest.raises(IrToolsError) as caught:
        ChildOpenVinoRunner(sys.executable, Graph(), ModelFiles(garbage)).run({})
    assert caught.value.code == "E-OPENVINO" and caught.value.loc.file == str(garbage)
    assert caught.value.message.startswith(f"OpenVINO {OPENVINO_VERSION} of {sys.executable} refused to read the "
                                           "model: ")
    assert "Traceback" not in caught.value.message


def test_child_runner_reports_a_failing_interpreter_without_its_traceback(tmp_path):
    """An interpreter without openvino fails on import: its last words are the error, not its traceback."""
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\necho 'Traceback (most recent call last):' >&2\n"
                      "echo \"ModuleNotFoundError: No module named 'openvino'\" >&2\nexit 1\n")
    python.chmod(0o755)
    with pytest.raises(IrToolsError) as caught:
        ChildOpenVinoRunner(python, read_valid(MIXED), _files(MIXED)).version  # noqa: B018 (asks the child)
    assert caught.value.code == "E-OPENVINO"
    assert caught.value.message == (f"the OpenVINO of {python} failed (exit status 1): ModuleNotFoundError: No module "
                                     "named 'openvino'")
    with pytest.raises(IrToolsError, match="cannot start .* to run its OpenVINO") as caught:
        ChildOpenVinoRunner(tmp_path / "missing", read_valid(MIXED)).version  # noqa: B018
    assert caught.value.code == "E-OPENVINO"


@pytest.mark.openvino
def test_compare_outputs_names_a_missing_output():
    graph = read_valid(MIXED)
    inputs = random_inputs(graph, 0, {})
    tolerances = Tolerances(1e-4, 1e-4)
    found = compare_outputs(inputs, OpenVinoRunner(graph, _files(MIXED)), ReferenceRunner(graph), tolerances)
    assert found and all(output.passed for output in found)
    assert found[0].line("reference") == f"  {found[0].name}: same (0/{found[0].comparison.elements} " \
        f"elements differ, max abs error {found[0].comparison.max_abs_error:.3g}; atol 0.0001, rtol 0.0001)"

    class Renamed(ReferenceRunner):
        def run(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
            return {f"{name}.renamed": value for name, value in super().run(inputs).items()}

    (missing, *_) = compare_outputs(inputs, ReferenceRunner(graph), Renamed(graph), Tolerances(1e-4, 1e-4))
    assert not missing.passed
    assert missing.line("renamed model") == f"  {missing.name}: MISSING from the renamed model"


def test_a_peak_fraction_holds_an_integer_output_exactly():
    """--check-with's atol, a fraction of an output's max|value| (another release's kernels round otherwise), held an
    i32 output whose largest element is 4000000 to 400: a mean of -1 given as -2 passed as "same" (OpenVINO 2024.0's
    ScatterElementsUpdate-12 mean of i32, measured). An integer or boolean output is held exactly; a float one as
    before."""
    class Given:
        name, model = "given", Path("given.xml")

        def __init__(self, outputs: dict[str, np.ndarray]):
            self.outputs = outputs

        def run(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
            return self.outputs

    want = {"mean": np.array([-1, 4_000_000], np.int32), "mask": np.array([True, False]),
            "y": np.array([-1.0, 4_000_000.0], np.float32)}
    got = {"mean": np.array([-2, 4_000_000], np.int32), "mask": np.array([True, True]),
           "y": np.array([-2.0, 4_000_000.0], np.float32)}
    found = {o.name: o for o in compare_outputs({}, want, Given(got), Tolerances(1e-6, 1e-5), peak_fraction=1e-4)}
    assert not found["mean"].passed and found["mean"].comparison.atol == 0.0
    assert not found["mask"].passed
    assert found["y"].passed and found["y"].comparison.atol == pytest.approx(400.0 + 0.25)  # (f32's step at 4e6)


def test_a_peak_fraction_leaves_out_a_sentinel():
    """--check-with's atol, a fraction of max|value|, was 3.4e34 for an output holding f32's lowest (an empty
    SegmentMax segment, an empty ReduceMax): every other element passed whatever it held. A type's (or f32's) largest
    magnitude is a sentinel, held exactly with the rest at a fraction of theirs; an f16 output's 65504 likewise."""
    lowest = np.finfo(np.float32).min

    class Given:
        name, model = "given", Path("given.xml")

        def run(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
            return {"segments": np.array([lowest, 1.5, 2.0], np.float32), "half": np.array([65504, 3], np.float16),
                    "empty": np.array([lowest, -np.inf], np.float32)}

    want = {"segments": np.array([lowest, 1.0, 2.0], np.float32), "half": np.array([65504, 2], np.float16),
            "empty": np.array([lowest, -np.inf], np.float32)}
    found = {o.name: o for o in compare_outputs({}, want, Given(), Tolerances(1e-6, 1e-5), peak_fraction=1e-4)}
    assert not found["segments"].passed and found["segments"].comparison.atol == pytest.approx(2e-4 + 2**-22)
    assert not found["half"].passed and found["half"].comparison.atol == pytest.approx(2e-4 + 2**-9)
    assert found["empty"].passed and found["empty"].comparison.atol == 0.0



def test_a_peak_fraction_allows_an_f16_output_one_step_of_its_type():
    """--check-with's atol, 1e-4 of an output's max|value|, is below one f16 step there (5e-4 to 1e-3 of it): two
    releases whose f32 values agree within it may still round to neighbouring f16 values, and a migrated model with
    an f16 output was DIFFERENT for that. Its atol adds one step of the output's type at max|value|: one step off
    passes, two do not."""
    class Given:
        name, model = "given", Path("given.xml")

        def run(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
            top = np.float16(1000)
            return {"one": np.array([np.nextafter(top, np.float16(2000)), 3], np.float16),
                    "two": np.array([top + 2 * np.spacing(top), 3], np.float16)}

    want = {"one": np.array([1000, 3], np.float16), "two": np.array([1000, 3], np.float16)}
    found = {o.name: o for o in compare_outputs({}, want, Given(), Tolerances(1e-6, 1e-5), peak_fraction=1e-4)}
    assert found["one"].passed and found["one"].comparison.atol == pytest.approx(0.1 + 0.5)
    assert not found["two"].passed

@pytest.mark.openvino
def test_compare_model_with_the_child_runner_reports_the_same():
    graph = read_valid(MIXED)
    inputs = random_inputs(graph, 0, {})
    options = CompareOptions(per_layer=True, source={"seed": 0})
    here = compare_model(graph, inputs, options, _files(MIXED)).to_dict()
    child = compare_model(graph, inputs, options, ChildOpenVinoRunner(sys.executable, graph, _files(MIXED))).to_dict()
    assert here["passed"] and child == here and here["config"]["seed"] == 0


def _counting(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, calls: Counter) -> None:
    real: Callable = getattr(owner, name)

    def counted(*args, **kwargs):
        calls[name] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


@pytest.mark.openvino
def test_compare_model_validates_folds_and_sorts_once(monkeypatch):
    """End to end, per layer and against saved outputs (every walk compare has): the inputs are validated once, the
    constant layers found once and the topological order computed once, and handed to every walk."""
    graph = read_valid(MIXED)
    inputs = random_inputs(graph, 0, {})
    saved = saved_arrays(compare_model(graph, inputs, CompareOptions(per_layer=True), _files(MIXED)))
    calls: Counter = Counter()
    _counting(monkeypatch, Graph, "topological_order", calls)
    _counting(monkeypatch, numeric_check, "constant_layers", calls)
    _counting(monkeypatch, numeric_check, "check_inputs", calls)
    options = CompareOptions(per_layer=True, saved=saved)
    report = compare_model(graph, inputs, options, OpenVinoRunner(graph, _files(MIXED)))
    assert report.passed and report.outputs and report.layers
    assert calls == {"topological_order": 1, "constant_layers": 1, "check_inputs": 1}


@pytest.mark.openvino
@pytest.mark.skipif(not OTHER_PYTHON, reason="no interpreter with another OpenVINO: set IR_TOOLS_OTHER_PYTHON or "
                    "IR_TOOLS_RELEASE_PYTHONS")
def test_child_runner_runs_another_openvino():
    graph = read_valid(MIXED)
    inputs = random_inputs(graph, 0, {})
    other = ChildOpenVinoRunner(OTHER_PYTHON, graph, _files(MIXED))
    assert other.version != OPENVINO_VERSION
    run = other.infer(inputs, per_layer=True)
    assert run.version == other.version and run.layers
    _assert_same_outputs([OpenVinoRunner(graph, _files(MIXED)), other], inputs)
    report = compare_model(graph, inputs, CompareOptions(per_layer=True), other)
    assert report.passed and report.config["openvino"] == other.version


@pytest.mark.openvino
def test_per_layer_runs_an_ir_v10_model_whose_output_read_model_converts(tmp_path, capsys):
    """IR v10 NonMaxSuppression-5 with an i64 output, as OpenVINO's own test IR nms5.xml: read_model appends a Convert
    to i32 that takes the name ``NMS.0``; adding NMS's output 0 as a model output (per layer, and whenever compare
    goes per layer for a layer the reference cannot run) made compile_model refuse the model ("Model operation
    names have collisions with tensor names"), which compare reported as the user's model refused (E-OPENVINO)."""
    from ir_tools.cli import main

    source = Path(__file__).parents[1] / "data" / "by_design" / "nms5_upper_bound.xml"
    model = tmp_path / "nms5_i64.xml"
    model.write_text(source.read_text().replace('output_type="i32"', 'output_type="i64"')
                     .replace('precision="I32"', 'precision="I64"'))
    model.with_suffix(".bin").write_bytes(source.with_suffix(".bin").read_bytes())
    graph = read_valid(model)
    run = OpenVinoRunner(graph, _files(model)).infer(random_inputs(graph, 0, {}), per_layer=True)
    assert run.outputs and run.layers
    assert main(["compare", str(model), "--per-layer"]) == 0  # NonMaxSuppression-5's kernel (ops/nms.py), per layer
    said = "".join(capsys.readouterr())
    assert "E-OPENVINO" not in said and "PASSED" in said


def test_a_child_that_hangs_is_killed_after_its_timeout(tmp_path: Path) -> None:
    """A child that never answers (here an interpreter that sleeps, as OpenVINO waited on a futex after a crash in
    a reduction) is killed after ``timeout`` seconds: an E-OPENVINO error saying so, not a wait for ever."""
    import time

    hangs = tmp_path / "python"
    hangs.write_text("#!/bin/sh\nsleep 60\n")
    hangs.chmod(0o755)
    runner = ChildOpenVinoRunner(hangs, read_valid(SAMPLES / "avgpool14_ceil_torch.xml"), timeout=1)
    start = time.perf_counter()
    with pytest.raises(IrToolsError, match="did not finish within 1 s: killed") as caught:
        runner.version  # noqa: B018 (asking it runs the child)
    assert caught.value.code == "E-OPENVINO" and time.perf_counter() - start < 30


def test_an_output_line_counts_infinities_beside_the_finite_error() -> None:
    """inf against the largest f32 said 'max abs error 0' beside 3 differing elements (found by a QA run over onnx's
    Cast cases): the line counts each side's Inf and NaN."""
    from ir_tools.runtime.compare import compare_tensors
    from ir_tools.runtime.runners import OutputComparison

    top = np.finfo(np.float32).max
    expected = np.array([1.0, np.inf, -np.inf, np.nan], np.float32)
    actual = np.array([1.0, top, -top, np.nan], np.float32)
    line = OutputComparison("y", compare_tensors("y", actual, expected, 1e-6, 1e-5)).line("converted model")
    assert line == ("  y: DIFFERENT (2/4 elements differ, max abs error 0, NaN 1/1 (converted model/original), "
                    "Inf 0/2; atol 1e-06, rtol 1e-05)"), line


def test_a_message_of_failed_checks_alone_keeps_the_checks() -> None:
    """OpenVINO 2023.0 refused to compile a migrated DeBERTa-v2 with a message of two failed checks and their places
    only; with every such line dropped, migrate --check-with said it refused "str" (the type of the text the child
    sent). What failed is kept, without its places."""
    from ir_tools.runtime.openvino import openvino_words

    message = ("Check 'false' failed at src/inference/src/core.cpp:114:\n"
               "Check 'rank().is_static()' failed at src/core/include/openvino/core/partial_shape.hpp:314\n\n")
    assert openvino_words(message) == "Check 'false' failed Check 'rank().is_static()' failed"
    assert openvino_words("Exception from src/x.cpp:3:\n[CPU] it failed") == "[CPU] it failed"
