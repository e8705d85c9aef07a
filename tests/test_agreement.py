"""check agrees with OpenVINO on seeded one-mutation variants of OpenVINO-saved models.

Whenever OpenVINO's read_model or compile refuses a variant, ``check`` exits non-zero; whenever
``check`` exits 0, OpenVINO reads and compiles it. (``check`` may be stricter: a wrong declared dim
OpenVINO ignores is an error here; scripts/check_agreement.py prints the whole confusion matrix.)
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import openvino as ov
import pytest

from ir_tools.cli import main
from tests.mutations import KINDS, mutate, openvino_accepts, source_models, zoo_sources
from tests.zoo import HOW_TO_BUILD

pytestmark = pytest.mark.openvino

VARIANTS = 180


def test_check_never_passes_what_openvino_refuses(tmp_path: Path, capsys) -> None:
    sources = source_models(tmp_path / "sources")
    missed = []
    for seed in range(VARIANTS):
        # Consecutive seeds take every mutation kind on one source before moving to the next.
        variant = mutate(sources[(seed // len(KINDS)) % len(sources)], tmp_path / f"v{seed}.xml", seed)
        code = main(["check", str(variant.path), "--compile"])
        capsys.readouterr()
        if code == 0 and not openvino_accepts(variant.path):
            missed.append(f"{variant.kind}: {variant.what}")
    assert not missed, f"check passed {len(missed)} variant(s) OpenVINO refuses: {missed[:10]}"


def test_check_never_passes_what_openvino_refuses_on_zoo_networks(tmp_path: Path, capsys) -> None:
    """The same on a real network converted by OpenVINO (dynamic batch and spatial dims, shape arithmetic),
    f16-compressed and f32; and with --no-openvino too, ir_tools' own rules alone."""
    sources = zoo_sources(tmp_path, ("squeezenet1_1_op17_dyn",))
    if not sources:
        pytest.skip(HOW_TO_BUILD)
    missed = []
    for seed in range(4 * len(KINDS)):
        variant = mutate(sources[(seed // len(KINDS)) % len(sources)], tmp_path / f"v{seed}.xml", seed)
        codes = [main(["check", str(variant.path), "--compile", *options]) for options in ([], ["--no-openvino"])]
        capsys.readouterr()
        if 0 in codes and not openvino_accepts(variant.path):
            missed.append(f"{variant.path.stem} {variant.kind}: {variant.what} (exit codes {codes})")
    assert not missed, f"check passed {len(missed)} variant(s) OpenVINO refuses: {missed[:10]}"


#: Seeded slicings of a TensorIterator's input or concatenated output (checked below).
SLICINGS = 60


def sliced_tensor_iterator(path: Path, length: int, part: int) -> str:
    """x f32[2,length,3] sliced on axis 1 into parts of ``part`` (0 to -1, stride ``part``), each part's mean added to
    a merged state f32[2,1,3]; outputs the last state and the means concatenated (0 to -1, stride 1): saved by
    OpenVINO; its text."""
    import openvino.opset8 as o8

    x, h = o8.parameter([2, length, 3], np.float32, name="x"), o8.parameter([2, 1, 3], np.float32, name="h")
    part_in, state = o8.parameter([2, part, 3], np.float32), o8.parameter([2, 1, 3], np.float32)
    mean = o8.reduce_mean(part_in, o8.constant(np.array([1], np.int64)), True)
    total = o8.add(state, mean)
    body = ov.Model([o8.result(total), o8.result(mean)], [part_in, state], "body")
    loop = o8.tensor_iterator()
    loop.set_body(body)
    loop.set_sliced_input(part_in, x.output(0), 0, part, part, -1, 1)
    loop.set_merged_input(state, h.output(0), total.output(0))
    outputs = [loop.get_iter_value(body.results[0].output(0), -1),
               loop.get_concatenated_slices(body.results[1].output(0), 0, 1, 1, -1, 1)]
    ov.save_model(ov.Model(outputs, [x, h], "m"), path)
    return path.read_text()


def test_check_agrees_with_openvino_cpu_on_tensor_iterator_slicings(tmp_path: Path, capsys) -> None:
    """A sliced input's or concatenated output's start, end and stride that OpenVINO reads and infers but its CPU
    plugin cannot iterate (ops/control_flow.py, ``_cpu_slicing``): check, also without OpenVINO, refuses exactly those
    that CPU refuses to compile (it passed them all)."""
    rng = random.Random(3)
    differ, refused = [], 0
    for seed in range(SLICINGS):
        length, part = rng.choice([4, 5, 6]), rng.choice([1, 2, 3])
        path = tmp_path / f"ti{seed}.xml"
        text = sliced_tensor_iterator(path, length, part)
        port = rng.choice(["input", "output"])
        step = part if port == "input" else 1
        drawn = {"start": rng.choice([0, 1, -1, -2, length - 1]), "end": rng.choice([-1, 0, -2, 2, length - 1]),
                 "stride": rng.choice([part, -part, 1, -1, 2])}
        cuts = rng.choice([{"start": 0, "end": -1, "stride": step}, {"start": -1, "end": 0, "stride": -step}, drawn])
        for name, value in cuts.items():
            text, count = re.subn(rf'(<{port} axis="1" [^>]*){name}="[^"]*"', rf'\g<1>{name}="{value}"', text)
            assert count == 1, name
        path.write_text(text)
        try:
            ov.Core().compile_model(str(path), "CPU")
            theirs = 0
        except RuntimeError:
            theirs, refused = 1, refused + 1
        ours = main(["check", "--no-openvino", str(path)])
        capsys.readouterr()
        if ours != theirs:
            differ.append(f"length {length}, part {part}, {port} {cuts}: check {ours}, OpenVINO CPU {theirs}")
    assert not differ, "\n".join(differ)
    assert 0.2 * SLICINGS < refused < 0.9 * SLICINGS, f"{refused} of {SLICINGS} refused: a poor mix"


#: Seeded Loops of a sliced input (checked below).
LOOPS = 60


def sliced_loop(path: Path, rng: random.Random, length: int, stride: int, trip: int, condition: str,
                execute: bool = True, second: int | None = None) -> None:
    """x f32[2,length,3] sliced on axis 1 by ``stride`` (part_size, start and end drawn: CPU ignores them), each
    part's mean added to a merged state f32[2,1,3] (and, with ``second``, that of y f32[2,second,3] sliced in parts of
    1); a Loop of Const trip count ``trip`` and execution condition ``execute``, its body condition a Const
    (``condition`` "true" or "false") or a Parameter the execution condition feeds ("input"); outputs the last state
    and the means concatenated. Saved by OpenVINO."""
    import openvino.opset8 as o8

    part = rng.choice([abs(stride), 1, 2])
    x, h = o8.parameter([2, length, 3], np.float32, name="x"), o8.parameter([2, 1, 3], np.float32, name="h")
    part_in, state = o8.parameter([2, part, 3], np.float32), o8.parameter([2, 1, 3], np.float32)
    axis_1 = o8.constant(np.array([1], np.int64))
    mean = o8.reduce_mean(part_in, axis_1, True)
    total = o8.add(state, mean)
    params, inputs = [part_in, state], [x, h]
    if second is not None:
        y, y_part = o8.parameter([2, second, 3], np.float32, name="y"), o8.parameter([2, 1, 3], np.float32)
        total = o8.add(total, o8.reduce_mean(y_part, axis_1, True))
        params.append(y_part)
        inputs.append(y)
    flag = o8.parameter([], np.bool_) if condition == "input" else None
    params += [] if flag is None else [flag]
    body = ov.Model([o8.result(total), o8.result(mean), o8.result(flag if flag is not None else
                                                                  o8.constant(condition == "true"))], params, "body")
    loop = o8.loop(o8.constant(np.int64(trip)), o8.constant(execute))
    loop.set_function(body)
    loop.set_special_body_ports([-1, 2])
    start, end = rng.choice([(0, -1), (-1, 0), (rng.randint(-3, 3), rng.randint(-3, 3))])
    loop.set_sliced_input(part_in, x.output(0), start, stride, part, end, 1)
    loop.set_merged_input(state, h.output(0), total.output(0))
    if second is not None:
        loop.set_sliced_input(y_part, y.output(0), 0, 1, 1, -1, 1)
    if flag is not None:
        loop.set_invariant_input(flag, loop.input_value(1))
    outputs = [loop.get_iter_value(body.results[0].output(0), -1),
               loop.get_concatenated_slices(body.results[1].output(0), 0, 1, 1, -1, 1)]
    ov.save_model(ov.Model(outputs, inputs, "m"), path)


def _runs(path: Path) -> bool:
    """Whether OpenVINO CPU compiles the model and runs it once on ones."""
    try:
        compiled = ov.Core().compile_model(str(path), "CPU")
        compiled({i: np.ones(tuple(p.get_shape()), np.float32) for i, p in enumerate(compiled.inputs)})
    except RuntimeError:
        return False
    return True


def test_check_agrees_with_openvino_cpu_on_loop_slicings(tmp_path: Path, capsys) -> None:
    """A Loop whose sliced inputs have fewer parts of |stride| than it runs iterations (its trip count, where its body
    condition is always true; 1 where always false; -1 is no end), or whose concatenated output follows no iteration
    (a false execution condition): OpenVINO reads and compiles it, its CPU plugin refuses it at every inference
    (ops/control_flow.py, ``_cpu_loop``); check, also without OpenVINO, refuses exactly those (it passed them all)."""
    rng = random.Random(5)
    differ, refused = [], 0
    for seed in range(LOOPS):
        length, stride = rng.randint(2, 7), rng.choice([1, 2, 3, -1, -2, -3])
        trip, condition = rng.choice([1, 2, 2, 3, 4, 6, -1]), rng.choice(["true", "true", "false", "input"])
        execute, second = rng.random() < 0.9, rng.choice([None, None, rng.randint(1, 7)])
        path = tmp_path / f"loop{seed}.xml"
        sliced_loop(path, rng, length, stride, trip, condition, execute, second)
        theirs = 0 if _runs(path) else 1
        refused += theirs
        ours = main(["check", "--no-openvino", str(path)])
        capsys.readouterr()
        if ours != theirs:
            differ.append(f"length {length}, stride {stride}, trip {trip}, condition {condition}, execute {execute}, "
                          f"second {second}: check {ours}, OpenVINO CPU {theirs}")
    assert not differ, "\n".join(differ)
    assert 0.2 * LOOPS < refused < 0.9 * LOOPS, f"{refused} of {LOOPS} refused: a poor mix"


@pytest.mark.parametrize(("stride", "trip", "words"), [
    (0, 2, "sliced with stride 0: OpenVINO CPU divides by it"),
    (1, 0, "its trip count is 0, its body condition always true"),
])
def test_a_loop_openvino_cpu_dies_of(stride: int, trip: int, words: str, tmp_path: Path, capsys) -> None:
    """A Loop whose sliced input has a stride of 0, or of trip count 0 and a body condition always true beside a
    concatenated output: OpenVINO reads and compiles it, and its CPU plugin divides by zero running it (the process
    dies of SIGFPE); check said the file was clean. (OpenVINO runs it in a child process.)"""
    import subprocess
    import sys

    path = tmp_path / "loop.xml"
    sliced_loop(path, random.Random(1), 6, stride, trip, "true")
    run = [sys.executable, "-c", "import sys, numpy as np, openvino as ov; c = ov.Core().compile_model(sys.argv[1], "
           "'CPU'); c({i: np.ones(tuple(p.get_shape()), np.float32) for i, p in enumerate(c.inputs)})", str(path)]
    assert subprocess.run(run, capture_output=True, timeout=120).returncode == -8  # SIGFPE
    code = main(["check", "--no-openvino", str(path)])
    out = capsys.readouterr().out
    assert code == 1 and "E-OP" in out and words in out, out


@pytest.mark.parametrize("op", ["TensorIterator", "Loop"])
@pytest.mark.parametrize(("axis", "refused"), [("-2", True), ("-1", True), ("1 ", True), ("+1", False), (" 1", False)])
def test_a_sliced_inputs_axis_is_unsigned(op: str, axis: str, refused: bool, tmp_path: Path, capsys) -> None:
    """OpenVINO's reader reads a port map <input>'s axis as an unsigned integer ("not an unsigned 64 bit integer":
    -1, or 1 with a blank after it; a sign or a blank before it read); check took -2 as axis 1 of 3, and reported
    nothing or only the declared dims."""
    path = tmp_path / "m.xml"
    if op == "Loop":
        sliced_loop(path, random.Random(2), 4, 1, 2, "true")
        text = path.read_text()
    else:
        text = sliced_tensor_iterator(path, 4, 1)
    text, count = re.subn(r'(<input axis=")1(")', rf"\g<1>{axis}\2", text)
    assert count == 1
    path.write_text(text)
    try:
        ov.Core().read_model(str(path))
        theirs = 0
    except RuntimeError as exc:
        assert "not an unsigned 64 bit integer" in str(exc)
        theirs = 1
    assert theirs == refused
    code = main(["check", "--no-openvino", str(path)])
    out = capsys.readouterr().out
    assert code == theirs and (not refused or f"has axis '{axis}': OpenVINO reads a sliced input's axis" in out), out
