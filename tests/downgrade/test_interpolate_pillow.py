"""Interpolate-11 in bilinear_pillow and bicubic_pillow mode migrated as a Gather-1, Multiply-1 and ReduceSum-1 of
each output's window (passes/downgrade/interpolate_pillow.py) for OpenVINO 2021.4, which lacks opset11: the migrated
file run on OpenVINO 2023.0 and on the current OpenVINO, against the current OpenVINO on the original. 240 seeded
layers in one model: both modes, sizes and scales, every coordinate_transformation_mode and two cube_coeff values
(OpenVINO CPU reads neither), axes [2, 3], [3, 2], all four and none, f32 and f16, 1 to 12 input elements to 1 to
16 output elements per spatial axis, one axis kept in some, an inf, -inf or NaN in every twelfth (which reaches the
outputs whose windows hold it, as on OpenVINO); each within twice the op's rounding bound (ops/interpolate.py: the
original and the rewrite each within it of the exact values). Refused: integer data, dynamic spatial dims.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ir_tools.cli import main
from ir_tools.ops import attrs as A
from ir_tools.ops import interpolate as interp
from tests.downgrade.runs import NEEDS_2023, assert_refused, migrated_runs

pytestmark = NEEDS_2023

TARGET = "2021.4"
CASES = 240


#: The axes inputs of the cases, by how they name the two spatial axes: the value of each (None: no axes input).
AXES = ([2, 3], [3, 2], [0, 1, 2, 3], None)


def pillow_cases(rng: np.random.Generator) -> list[dict]:
    """Seeded layers: data, the sizes or scales of its axes (batch and channels kept), and the attributes."""
    cases = []
    for i in range(CASES):
        calc = ("sizes", "scales")[i // 2 % 2]
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4)), *(int(n) for n in rng.integers(1, 13, 2))]
        if calc == "sizes":
            spatial = [int(n) for n in rng.integers(1, 17, 2)]
            if i % 7 == 3:
                spatial[i % 2] = shape[2 + i % 2]  # (an axis kept: copied)
            kept = shape[:2]
        else:
            spatial = [rng.choice([s for s in (0.25, 0.5, 0.6, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0)
                                   if s * n + 1e-6 >= 1]) for n in shape[2:]]
            kept = [1, 1]
        axes = AXES[i // 20 % len(AXES)]
        values = spatial[::-1] if axes == [3, 2] else spatial if axes == [2, 3] else kept + spatial
        dtype = np.float16 if i % 5 == 4 else np.float32
        attrs = {"mode": interp.PILLOW_MODES[i % 2], "shape_calculation_mode": calc,
                 "coordinate_transformation_mode": interp.TRANSFORMS[i // 4 % 5],
                 "cube_coeff": float(rng.choice([-0.75, -0.5]))}
        x = rng.standard_normal(shape)
        if i % 12 == 7:
            x.flat[int(rng.integers(x.size))] = (np.inf, -np.inf, np.nan)[i // 12 % 3]
        cases.append({"x": x.astype(dtype), "attrs": attrs, "axes": axes,
                      "value": np.array(values, np.int64 if calc == "sizes" else np.float32)})
    return cases


def pillow_model(path: Path, cases: list[dict]) -> tuple[Path, dict[str, np.ndarray]]:
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset11 as o11

    params, results, inputs = [], [], {}
    for i, case in enumerate(cases):
        x = o1.parameter(list(case["x"].shape), case["x"].dtype, name=f"x{i}")
        a = case["attrs"]
        axes = {} if case["axes"] is None else {"axes": o1.constant(np.array(case["axes"], np.int64))}
        node = o11.interpolate(x, o1.constant(case["value"]), a["mode"], a["shape_calculation_mode"], **axes,
                               coordinate_transformation_mode=a["coordinate_transformation_mode"],
                               cube_coeff=a["cube_coeff"], name=f"resize{i}")
        params.append(x)  # (an f16 layer's output read in f32: 2021.4 saturates an f16 model output)
        results.append(o1.result(node if case["x"].dtype == np.float32 else o1.convert(node, np.float32),
                                 name=f"y{i}"))
        inputs[f"x{i}"] = case["x"]
    ov.save_model(ov.Model(results, params, "pillow"), str(path), compress_to_fp16=False)
    return path, inputs


def rounding_bound(case: dict, want: np.ndarray) -> np.ndarray:
    """The op table's rounding bound of Interpolate-11 on the case, around OpenVINO's values ``want`` (of the data's
    type)."""
    a = A.decode(interp.InterpolateAttrs, {k: str(v) for k, v in case["attrs"].items()})
    args = [case["x"], case["value"]] + ([] if case["axes"] is None else [np.array(case["axes"], np.int64)])
    spec = interp.INTERPOLATE_11
    (bound,) = spec.rounding(spec.kernel, a, args, [np.zeros(())] * len(args), [want])
    return np.broadcast_to(bound, want.shape)


def test_pillow_modes_run_on_2023_within_their_rounding_bound(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    cases = pillow_cases(np.random.default_rng(111))
    model, inputs = pillow_model(tmp_path / "pillow.xml", cases)
    out = tmp_path / "pillow_old.xml"
    assert main(["migrate", str(model), "--target", TARGET, "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    rule = r"rewrote (\d+) x Interpolate-11 \(\w+_pillow\) -> Gather-1/Multiply-1/ReduceSum-1"
    counts = [int(n) for n in re.findall(rule, printed)]
    assert sum(counts) == CASES and len(counts) == 2, printed
    want, runs = migrated_runs(model, out, inputs)
    for runner, got in runs.items():
        assert set(got) == set(want) and len(want) == CASES
        failures = []
        for i, case in enumerate(cases):
            y, expected = got[f"y{i}"], want[f"y{i}"]
            assert y.dtype == expected.dtype and y.shape == expected.shape, (runner, i)
            bound = rounding_bound(case, expected.astype(case["x"].dtype))
            same = np.array_equal(y, expected, equal_nan=True) or \
                np.array_equal(np.isfinite(y), np.isfinite(expected)) and np.array_equal(y[~np.isfinite(y)],
                                                                                         expected[~np.isfinite(y)],
                                                                                         equal_nan=True)
            finite = np.isfinite(expected) & np.isfinite(bound)
            off = np.abs(y[finite].astype(np.float64) - expected[finite].astype(np.float64))
            if not same or np.any(off > 2 * bound[finite]):
                failures.append(f"{i} {case['attrs']} {case['x'].shape} -> {y.shape}: off {off.max()}")
        assert not failures, f"{runner}: {len(failures)} of {CASES} off:\n" + "\n".join(failures[:20])


def single_pillow(path: Path, dtype: type, shape: list[int]) -> Path:
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset11 as o11

    x = o1.parameter(shape, dtype, name="x")
    node = o11.interpolate(x, o1.constant(np.array([6, 6], np.int64)), "bilinear_pillow", "sizes",
                           axes=o1.constant(np.array([2, 3], np.int64)), name="resize")
    ov.save_model(ov.Model([node], [x], "pillow"), str(path))
    return path


@pytest.mark.parametrize(("dtype", "shape", "why"), [
    (np.uint8, [1, 1, 4, 4], "bilinear_pillow on u8 data"),
    (np.float32, [1, 1, -1, -1], "bilinear_pillow on spatial dims unknown from the declared shapes"),
])
def test_pillow_declined_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], dtype: type,
                                    shape: list[int], why: str) -> None:
    model = single_pillow(tmp_path / "one.xml", dtype, shape)
    assert_refused(model, "resize", f"no rewrite applies to this layer: {why}", capsys, target=TARGET)
