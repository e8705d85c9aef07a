"""Interpolate-11 migrated as Interpolate-4 (passes/downgrade/interpolate.py) for OpenVINO 2022.3, which lacks
opset11 (2023.0 has it): the migrated file run on OpenVINO 2023.0 and on the current OpenVINO, against the current
OpenVINO on the original. The cases are the Interpolate conformance suite's (tests/ops/test_interpolate_conformance.py:
every mode, transform and nearest mode, sizes and scales, pads, f32, f16, u8 and i32) of rank 4 and 5, plus layers
without the axes input; each within twice the suite's bound (the original and the rewrite each within it of the exact
values). Ranks 2 and 3 are left out: OpenVINO 2023.0 CPU compiles no f32, f16 or u8 Interpolate of those ranks,
Interpolate-11 and -4 alike ("Supported primitive descriptors list is empty", measured on the same 300 cases).
bilinear_pillow and bicubic_pillow, which Interpolate-4 lacks, are test_interpolate_pillow's.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from tests.downgrade.runs import NEEDS_2023, migrated_runs
from tests.ops.conformance import Case
from tests.ops.test_interpolate_conformance import kernel_cases
from tests.ops.verdicts import mismatch

pytestmark = NEEDS_2023

TARGET = "2022.3"


def without_axes(rng: np.random.Generator, count: int) -> list[Case]:
    """Interpolate-11 on data and sizes or scales alone (every axis resized, batch and channels kept)."""
    import openvino.opset1 as o1
    import openvino.opset11 as o11

    cases = []
    for i in range(count):
        shape = [1, 2, *(int(n) for n in rng.integers(2, 6, 2))]
        calc, mode = ("sizes", "scales")[i % 2], ("nearest", "linear_onnx", "linear", "cubic")[i // 2 % 4]
        if calc == "sizes":
            value = np.array([1, 2, *(int(n * rng.choice([0.5, 1.5, 2])) or 1 for n in shape[2:])], np.int32)
        else:
            value = np.array([1, 1, *rng.choice([0.75, 1.5, 2.0], 2)], np.float32)
        x = rng.standard_normal(shape).astype(np.float32)
        cases.append(Case(f"Interpolate-11 {mode} {calc} {shape} {value} (no axes)", [x],
                          lambda ns, v=value, m=mode, c=calc: o11.interpolate(ns[0], o1.constant(v), m, c),
                          (lambda w: 8 * 16 * 2.0**-24 * (np.abs(w) + 4),)))
    return cases


def interpolate_model(path: Path, cases: list[Case]) -> tuple[Path, dict[str, np.ndarray]]:
    import openvino as ov
    import openvino.opset1 as o1

    params, results, inputs = [], [], {}
    for i, case in enumerate(cases):
        x = o1.parameter(list(case.inputs[0].shape), case.inputs[0].dtype, name=f"x{i}")
        node = case.build([x])
        node.set_friendly_name(f"resize{i}")
        params.append(x)
        results.append(o1.result(node, name=f"y{i}"))
        inputs[f"x{i}"] = case.inputs[0]
    ov.save_model(ov.Model(results, params, "resizes"), str(path), compress_to_fp16=False)
    return path, inputs


def test_interpolate_11_as_4_runs_on_2023_within_its_rounding_bound(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The conformance cases of rank 4 and 5 among 640 (335), and 40 without axes."""
    rng = np.random.default_rng(11)
    cases = [c for c in kernel_cases(rng, 640, 11) if c.inputs[0].ndim >= 4] + without_axes(rng, 40)
    assert len(cases) == 375
    model, inputs = interpolate_model(tmp_path / "resizes.xml", cases)
    out = tmp_path / "resizes_old.xml"
    assert main(["migrate", str(model), "--target", TARGET, "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    counts = [int(n) for n in re.findall(r"rewrote (\d+) x Interpolate-11 \((?:sizes|scales)\) -> Interpolate-4",
                                         printed)]
    assert sum(counts) == len(cases) and len(counts) == 2, printed
    assert not [d for d in ir_tools.check(out, openvino=False, target=TARGET) if d.severity == "error"]
    want, runs = migrated_runs(model, out, inputs)
    for runner, got in runs.items():
        assert set(got) == set(want) and len(want) == len(cases)
        failures = []
        for i, case in enumerate(cases):
            limit = case.limits[0]
            twice = None if limit is None else (lambda w, limit=limit: 2.0 * limit(w))
            problem = mismatch(got[f"y{i}"], want[f"y{i}"], twice)
            if problem:
                failures.append(f"{case.what}: {problem}")
        assert not failures, f"{runner}: {len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])
