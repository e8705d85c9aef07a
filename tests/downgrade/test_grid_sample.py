"""``migrate --target 2021.4`` on GridSample-9 (which releases before 2022.2 cannot create): opset1-7 arithmetic and
one GatherND-5 of every tap, run on OpenVINO 2023.0 and on the current one within GridSample's rounding bound of the
exact value, as the original is on the current OpenVINO (nearest equal to it bit for bit); a layer of integer
data is refused."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from ir_tools.cli import main
from ir_tools.ops.sampling import GRID_SAMPLE_9, MODES, PADDINGS, GridSampleAttrs
from tests.downgrade.runs import NEEDS_2023, assert_refused, migrated_for_2021_4, migrated_runs

pytestmark = NEEDS_2023

#: Every mode, padding and align_corners, this many times each.
ROUNDS = 10
COMBINATIONS = list(itertools.product(MODES, PADDINGS, (False, True)))
CASES = ROUNDS * len(COMBINATIONS)


def grid_values(rng: np.random.Generator, shape: tuple[int, ...], lengths: tuple[int, int], align: bool,
                kind: int) -> np.ndarray:
    """A grid of (x, y): ``kind`` 0-1 within [-1.2, 1.2], 2 a share of points up to 40 outside [-1, 1] and a few of
    1e3 to 1e30 (reflection folds them, zeros makes them 0), 3 positions at exact half pixels (nearest's ties) and
    whole pixels, 4 a share of NaN and infinities (bilinear and bicubic give NaN there, nearest some pixel)."""
    values = rng.uniform(-1.2, 1.2, shape)
    if kind == 2:
        far = rng.random(shape) < 0.4
        values = np.where(far, rng.uniform(-40, 40, shape), values)
        huge = rng.random(shape) < 0.1
        values = np.where(huge, np.sign(values) * 10.0 ** rng.uniform(3, 30, shape), values)
    elif kind == 3:
        for axis, length in enumerate(lengths):
            halves = rng.integers(-2 * length - 2, 4 * length + 2, shape[:-1]) / 2.0
            values[..., axis] = (2 * halves / (length - 1) - 1 if align and length > 1
                                 else (2 * halves + 1) / length - 1)
    elif kind == 4:
        undefined = np.array([np.nan, np.inf, -np.inf])[rng.integers(0, 3, shape)]
        values = np.where(rng.random(shape) < 0.15, undefined, values)
    return values.astype(np.float32)


def grid_sample_model(path: Path, rng: np.random.Generator,
                      ) -> tuple[Path, dict[str, np.ndarray], list[GridSampleAttrs]]:
    """Per case a GridSample-9 (``COMBINATIONS`` in turn) of data [1-2, 1-3, 1-6, 1-6] (f16 every fourth case, its
    output converted to f32: 2021.4 saturates an f16 output) on a grid [N, 1-4, 1-4, 2] (f16 every fifth, its points
    within f16's range); every third of dynamic dims but the channels and the grid's last. Returns the model, its
    inputs and each case's attributes."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset9 as o9

    params, results, inputs, cases = [], [], {}, []
    for i in range(CASES):
        mode, padding, align = COMBINATIONS[i % len(COMBINATIONS)]
        n, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
        height, width = (int(d) for d in rng.integers(1, 7, 2))
        out_h, out_w = (int(d) for d in rng.integers(1, 5, 2))
        data16, grid16, dynamic = i % 4 == 1, i % 5 == 2, i % 3 == 0
        data_type, grid_type = (np.float16 if data16 else np.float32), (np.float16 if grid16 else np.float32)
        x = o1.parameter([-1, c, -1, -1] if dynamic else [n, c, height, width], data_type, name=f"x{i}")
        g = o1.parameter([-1, -1, -1, 2] if dynamic else [n, out_h, out_w, 2], grid_type, name=f"g{i}")
        sampled = o9.grid_sample(x, g, {"align_corners": align, "mode": mode, "padding_mode": padding})
        sampled.set_friendly_name(f"gs{i}")
        params += [x, g]
        results.append(o1.result(o1.convert(sampled, np.float32) if data16 else sampled, name=f"y{i}"))
        inputs[f"x{i}"] = rng.standard_normal([n, c, height, width]).astype(data_type)
        kinds = 4 if grid16 else 5  # (2023.0 reads an f16 input's infinity as 65504)
        grid = grid_values(rng, (n, out_h, out_w, 2), (width, height), align, int(rng.integers(0, kinds)))
        inputs[f"g{i}"] = np.clip(grid, -6e4, 6e4).astype(grid_type)  # (f16: finite)
        cases.append(GridSampleAttrs(align_corners=align, mode=mode, padding_mode=padding))
    ov.save_model(ov.Model(results, params, "grid_sample"), str(path), compress_to_fp16=False)
    return path, inputs, cases


def test_grid_sample_migrated_for_2021_4_within_its_bound(tmp_path: Path, capsys) -> None:
    """180 seeded cases (every mode, padding and align_corners; far and huge grid points, nearest's ties, NaN and
    infinities; f16 data and grids; 60 of dynamic dims): ``check --target 2021.4`` names each layer and
    that migrate rewrites it; OUT names none, and runs on 2023.0 and on the current OpenVINO within GridSample-9's
    rounding bound of the exact (float64) value, as the original does on the current OpenVINO; bilinear and bicubic
    NaN where a point's grid is NaN or infinite, as the original; nearest equal to the original bit for bit."""
    model, inputs, cases = grid_sample_model(tmp_path / "grid_sample.xml", np.random.default_rng(9))
    out, printed = migrated_for_2021_4(model, "GridSample of opset9", CASES, capsys)
    assert f"rewrote {CASES} x GridSample-9 -> GatherND-5/ReduceSum-1" in printed
    assert main(["check", str(out), "--target", "2021.4"]) == 0
    assert "W-DEAD" not in capsys.readouterr().out  # (nothing built that the output does not read)
    original, runs = migrated_runs(model, out, inputs)
    runs = {"original": original, **runs}
    zero = np.zeros(())
    for i, a in enumerate(cases):
        name = f"y{i}"
        data, given = inputs[f"x{i}"], inputs[f"g{i}"]
        undefined = np.broadcast_to(~np.isfinite(given).all(-1)[:, None], original[name].shape)
        grid = np.where(np.isfinite(given), given, 0).astype(given.dtype)  # (each output reads its own point)
        exact = GRID_SAMPLE_9.kernel(a, [data.astype(np.float64), grid])[0]
        rounded = GRID_SAMPLE_9.kernel(a, [data, grid])
        bound = GRID_SAMPLE_9.rounding(GRID_SAMPLE_9.kernel, a, [data, grid], [zero, zero], rounded)[0]
        for run, got in runs.items():
            assert got[name].shape == exact.shape and got[name].dtype == np.float32, (run, name)
            error = np.abs(got[name].astype(np.float64) - exact)
            assert (error[~undefined] <= bound[~undefined]).all(), (run, name, a)
            if a.mode == "nearest":  # (where the grid is not a number: some pixel, not defined)
                np.testing.assert_array_equal(got[name][~undefined], original[name][~undefined],
                                              err_msg=f"{run}: {name}", strict=True)
            else:
                np.testing.assert_array_equal(np.isnan(got[name]), undefined, err_msg=f"{run}: {name}")


def test_grid_sample_of_integer_data_is_refused_for_2021_4(tmp_path: Path, capsys) -> None:
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset9 as o9

    x = o1.parameter([1, 2, 4, 5], np.int32, name="x")
    g = o1.parameter([1, 3, 3, 2], np.float32, name="g")
    model = tmp_path / "integer.xml"
    sampled = o9.grid_sample(x, g, {"mode": "bilinear", "padding_mode": "zeros"})
    sampled.set_friendly_name("gs")
    ov.save_model(ov.Model([sampled], [x, g], "integer"), str(model))
    assert_refused(model, "gs", "GridSample of opset9", capsys, target="2021.4")
    assert main(["check", str(model), "--target", "2021.4"]) == 1
    said = capsys.readouterr().out
    assert "no rewrite applies to this layer: its data (i32) or grid (f32) is not f32 or f16" in said, said
