"""``migrate --target 2021.4`` on DeformableConvolution-8 (which 2021.4 cannot create): DeformableConvolution-1
where it has no mask and bilinear_interpolation_pad is false, run on OpenVINO 2023.0 and on the current one equal
bit for bit to the original on the current OpenVINO; one with a mask or the pad is refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ir_tools.cli import main
from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, migrated_for_2021_4

pytestmark = NEEDS_2023

CASES = 120


def deformable_model(path: Path, rng: np.random.Generator) -> tuple[Path, dict[str, np.ndarray]]:
    """Per case a DeformableConvolution-8 of 1 or 2 groups and deformable groups, kernels of 1-3, strides of 1-2,
    pads of 0-2 on each side, dilations of 1-2, offsets of up to 3 pixels either way (samples beyond the data
    among them); every fourth case's data and offsets of dynamic spatial dims. Returns the model and its inputs."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    params, results, inputs = [], [], {}
    for i in range(CASES):
        group, deformable_group = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        channels = 2 * group * deformable_group
        kernel = [int(k) for k in rng.integers(1, 4, 2)]
        strides, dilations = [int(s) for s in rng.integers(1, 3, 2)], [int(d) for d in rng.integers(1, 3, 2)]
        pads_begin, pads_end = [int(p) for p in rng.integers(0, 3, 2)], [int(p) for p in rng.integers(0, 3, 2)]
        spatial = [int(n) for n in rng.integers(5, 9, 2)]
        out = [(n + b + e - (k - 1) * d - 1) // s + 1
               for n, b, e, k, d, s in zip(spatial, pads_begin, pads_end, kernel, dilations, strides, strict=True)]
        shape, offsets_shape = [1, channels, *spatial], [1, 2 * deformable_group * kernel[0] * kernel[1], *out]
        dynamic = i % 4 == 3
        x = o1.parameter([1, channels, -1, -1] if dynamic else shape, np.float32, name=f"x{i}")
        offsets = o1.parameter([1, offsets_shape[1], -1, -1] if dynamic else offsets_shape, np.float32,
                               name=f"o{i}")
        filters = o1.constant(rng.standard_normal([2 * group, channels // group, *kernel]).astype(np.float32))
        conv = o8.deformable_convolution(x, offsets, filters, strides, pads_begin, pads_end, dilations, group=group,
                                         deformable_group=deformable_group, name=f"conv{i}")
        params += [x, offsets]
        results.append(o1.result(conv, name=f"y{i}"))
        inputs[f"x{i}"] = rng.standard_normal(shape).astype(np.float32)
        inputs[f"o{i}"] = (rng.random(offsets_shape) * 6 - 3).astype(np.float32)
    ov.save_model(ov.Model(results, params, "deformable"), str(path), compress_to_fp16=False)
    return path, inputs


def test_deformable_convolution_migrated_for_2021_4_runs_equal(tmp_path: Path, capsys) -> None:
    """120 seeded cases (30 of dynamic spatial dims): ``check --target 2021.4`` names each layer and that migrate
    rewrites it; OUT holds only what 2021.4 creates, names none, and runs on 2023.0 and on the current OpenVINO equal
    to the original bit for bit."""
    model, inputs = deformable_model(tmp_path / "deformable.xml", np.random.default_rng(21))
    out, printed = migrated_for_2021_4(model, "DeformableConvolution of opset8", CASES, capsys)
    assert f"rewrote {CASES} x DeformableConvolution-8 (no mask, no bilinear pad) -> DeformableConvolution-1" \
        in printed, printed
    assert main(["check", str(out), "--target", "2021.4"]) == 0, capsys.readouterr().out
    assert "DeformableConvolution" not in capsys.readouterr().out
    assert assert_runs_equal(model, out, inputs=inputs) == CASES


@pytest.mark.parametrize("case", ["mask", "bilinear_pad"])
def test_deformable_convolution_with_a_mask_or_the_pad_is_refused(case: str, tmp_path: Path, capsys) -> None:
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8

    x = o1.parameter([1, 2, 5, 5], np.float32, name="x")
    offsets = o1.parameter([1, 18, 3, 3], np.float32, name="offsets")
    mask = o1.parameter([1, 9, 3, 3], np.float32, name="mask")
    filters = o1.constant(np.ones([4, 2, 3, 3], np.float32))
    conv = o8.deformable_convolution(x, offsets, filters, [1, 1], [0, 0], [0, 0], [1, 1],
                                     mask=mask if case == "mask" else None,
                                     bilinear_interpolation_pad=case == "bilinear_pad", name="conv")
    model = tmp_path / f"{case}.xml"
    params = [x, offsets, *([mask] if case == "mask" else [])]
    ov.save_model(ov.Model([conv], params, case), str(model))
    assert_refused(model, "conv", "DeformableConvolution of opset8", capsys, target="2021.4")
    assert main(["check", str(model), "--target", "2021.4"]) == 1
    said = capsys.readouterr().out
    why = "a mask input" if case == "mask" else "bilinear_interpolation_pad true"
    assert f"no rewrite applies to this layer: it has {why}, which DeformableConvolution-1" in said, said
