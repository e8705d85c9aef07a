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
