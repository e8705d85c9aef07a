"""``migrate --target 2021.4`` on MaxPool-8 (and MaxPool-14) with a dilation or with its indices read, which
MaxPool-1 cannot be: a Less-1/Select-1 chain over one StridedSlice-1 per kernel tap, run on OpenVINO 2023.0 and on
the current one bit for bit equal to the original on the current OpenVINO (values and indices); a layer the rewrite
cannot compute exactly is refused."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from ir_tools.cli import main
from ir_tools.ops.pool_geometry import dilated
from tests.downgrade.runs import NEEDS_2023, assert_refused, migrated_runs

pytestmark = NEEDS_2023

CASES = 240


def special_values(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Small integers (ties in most windows) with a share of NaN, -inf, +inf, +0 and -0; every third array mostly
    NaN and -inf (windows with nothing taken, a NaN first or later)."""
    values = rng.integers(-2, 3, shape).astype(np.float32)
    special = np.array([np.nan, -np.inf, np.inf, 0.0, -0.0], np.float32)
    share, weights = (0.8, [0.4, 0.5, 0.02, 0.04, 0.04]) if rng.integers(0, 3) == 0 else \
        (0.3, [0.15, 0.15, 0.1, 0.3, 0.3])
    picked = special[rng.choice(len(special), shape, p=np.array(weights) / sum(weights))]
    return np.where(rng.random(shape) < share, picked, values).astype(np.float32)


def max_pool_model(path: Path, rng: np.random.Generator) -> tuple[Path, dict[str, np.ndarray], Counter[str]]:
    """Per case a MaxPool-8 of 1-3 spatial axes of 2-7 elements, kernel 1-3, stride 1-3, dilation 1-3, explicit pads
    below the kernel (or auto_pad same_upper, same_lower, valid), floor or ceil, indices i32 or i64 from any axis;
    every fourth reads only the values (dilated), every tenth is a MaxPool-14 of ceil_torch, every fifth has a
    dynamic batch, every third (but MaxPool-14's) dynamic spatial dims (explicit or valid pads, indices from axis 2).
    Returns the model, its inputs and how many of each kind migrate's rewrite counts."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8
    import openvino.opset14 as o14

    params, results, inputs, kinds = [], [], {}, Counter()
    i = 0
    while len(params) < CASES:
        spatial = int(rng.integers(1, 4))
        dims = (int(rng.integers(1, 3)), int(rng.integers(1, 4)), *(int(n) for n in rng.integers(2, 8, spatial)))
        kernel = [int(n) for n in rng.integers(1, 4, spatial)]
        strides = [int(n) for n in rng.integers(1, 4, spatial)]
        dilations = [int(n) for n in rng.integers(1, 4, spatial)]
        pads_begin = [int(rng.integers(0, k)) for k in kernel]
        pads_end = [int(rng.integers(0, k)) for k in kernel]
        auto_pad = ["explicit", "explicit", "explicit", "same_upper", "same_lower", "valid"][int(rng.integers(0, 6))]
        if auto_pad == "valid":
            pads_begin = pads_end = [0] * spatial
        if any(n + b + e < dilated(k, d) for n, b, e, k, d in zip(dims[2:], pads_begin, pads_end, kernel,
                                                                  dilations, strict=True)):
            continue  # (OpenVINO refuses a kernel wider than the padded axis)
        values_only = i % 4 == 0
        if values_only and all(d == 1 for d in dilations):
            dilations[0] = 2
            if dims[2] + pads_begin[0] + pads_end[0] < dilated(kernel[0], 2):
                continue
        torch = i % 10 == 5
        rounding = "ceil_torch" if torch else ("floor", "ceil")[i % 2]
        axis = int(rng.integers(-len(dims), len(dims)))
        index_type = ("i32", "i64")[int(rng.integers(0, 2))]
        declared = list(dims) if i % 5 else [-1, *dims[1:]]
        if i % 5 == 0 and axis in (0, -len(dims)):
            axis = 2
        if i % 3 == 1 and not torch:  # dynamic spatial dims: explicit or valid pads, indices from axis 2
            auto_pad = "valid" if auto_pad == "valid" else "explicit"
            declared, axis = [*declared[:2], *([-1] * spatial)], 2
        x = o1.parameter(ov.PartialShape(declared), np.float32, name=f"x{i}")
        pool = (o14 if torch else o8).max_pool(x, strides, dilations, pads_begin, pads_end, kernel, rounding, auto_pad,
                                               index_type, axis, name=f"pool{i}")
        results.append(o1.result(pool.output(0), name=f"v{i}"))
        if not values_only:
            results.append(o1.result(pool.output(1), name=f"i{i}"))
        kinds[("dilated, indices unused" if values_only else "indices read") + (", dynamic" if -1 in declared[2:]
                                                                                   else "")] += 1
        params.append(x)
        inputs[f"x{i}"] = special_values(rng, dims)
        i += 1
    ov.save_model(ov.Model(results, params, "max_pool_taps"), str(path), compress_to_fp16=False)
    return path, inputs, kinds


def test_max_pool_with_dilation_or_indices_migrated_for_2021_4_runs_equal(tmp_path: Path, capsys) -> None:
    """240 seeded cases (NaN, infinities, signed zeros and ties among the values; windows over padding only; 60 of
    values only, 24 MaxPool-14 of ceil_torch, 48 of a dynamic batch, 72 of dynamic spatial dims): ``check --target
    2021.4`` says migrate rewrites them; OUT names none, and runs on 2023.0 and on the current OpenVINO equal to the
    original on the current OpenVINO bit for bit, values and indices (i64 indices as i32: OpenVINO reads an IR v10
    file's i64 outputs so)."""
    model, inputs, kinds = max_pool_model(tmp_path / "max_pool.xml", np.random.default_rng(14))
    assert main(["check", str(model), "--target", "2021.4"]) == 1
    said = capsys.readouterr().out
    assert "no rewrite applies" not in said, said
    out = tmp_path / "max_pool_2021.xml"
    assert main(["migrate", str(model), "--target", "2021.4", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    rule = "-> Pad-1/StridedSlice-1/Less-1/Select-1 per kernel tap"
    assert len(kinds) == 4, kinds
    for kind, count in kinds.items():
        assert f"rewrote {count} x MaxPool-8 ({kind}) {rule}" in printed, printed
    assert 'version="10"' in out.read_text()[:200]
    main(["check", str(out), "--target", "2021.4"])
    assert "MaxPool" not in capsys.readouterr().out
    want, runs = migrated_runs(model, out, inputs)
    assert len(want) == CASES + kinds["indices read"] + kinds["indices read, dynamic"]
    for runner, got in runs.items():
        assert set(got) == set(want), runner
        for name, value in want.items():
            assert got[name].dtype == (np.int32 if value.dtype == np.int64 else value.dtype), (runner, name)
            np.testing.assert_array_equal(got[name], value, err_msg=f"{runner}: {name}")
            if value.dtype.kind == "f":
                np.testing.assert_array_equal(np.signbit(got[name]), np.signbit(value), err_msg=f"{runner}: {name}")


def test_max_pool_with_indices_read_on_dynamic_or_f16_is_refused(tmp_path: Path, capsys) -> None:
    """Indices from axis 0 on dynamic spatial dims, and f16 data: exit 2, E-TARGET naming the layer and why,
    nothing written."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    for name, shape, element, why in (("dynamic", [1, 2, -1, 5], np.float32, "counts them from axis 2 only"),
                                      ("half", [1, 2, 5, 5], np.float16, "its data is f16")):
        x = o1.parameter(shape, element, name="x")
        pool = o8.max_pool(x, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2], "floor", "explicit", "i64", 0, name="pool")
        model = tmp_path / f"{name}.xml"
        ov.save_model(ov.Model([pool.output(0), pool.output(1)], [x], name), str(model))
        assert_refused(model, "pool", "MaxPool of opset8", capsys, target="2021.4")
        assert main(["check", str(model), "--target", "2021.4"]) == 1
        said = capsys.readouterr().out
        assert "no rewrite applies to this layer" in said and why in said, said
