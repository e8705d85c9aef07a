"""FakeConvert-13 (opset13, from 2023.3; NNCF's f8e4m3 and f8e5m2 quantization) migrated for 2023.0 and 2021.4 as
opset1 arithmetic (passes/downgrade/fake_convert.py): run on OpenVINO 2023.0 and the current one bit for bit equal to
the current OpenVINO on the original, on the seeded values of the op's conformance test (ties of the f8 and f16
grids, f16's carries, subnormals, saturation, NaN, infinities, signed zeros), scale and shift fed as Parameters and
as Consts. For 2024.0, which creates FakeConvert-13 but computes it otherwise (``fake_convert_otherwise``), the same
rewrite, run on 2024.0."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ir_tools.cli import main
from tests.downgrade.runs import (
    NEEDS_2023,
    assert_refused,
    assert_runs_equal,
    migrate,
    migrated_for_2021_4,
    migrated_runs,
)
from tests.ops.test_fake_convert_conformance import _targets, fake_convert_inputs
from tests.test_target import side_pythons

pytestmark = NEEDS_2023


def fake_convert_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` FakeConvert-13 layers, each on data of its own ([2, 3, 8]; every fourth f16, by Convert-1 from and
    into f32 around it: 2023.0 saturates f16 model inputs and outputs), f8e4m3 and f8e5m2 in turn, three in four with
    a shift; scale and shift Parameters in half of them, Consts in the other half; and the inputs fed."""
    import openvino as ov
    import openvino.opset13 as o13

    params, results, fed = [], [], {}
    for i in range(cases):
        dtype = np.float16 if i % 4 == 3 else np.float32
        dest = "f8e5m2" if i % 2 else "f8e4m3"
        values = fake_convert_inputs(rng, dtype, dest, i % 8 < 6)
        nodes = []
        for j, value in enumerate(values):
            if j == 0 or i % 16 < 8:
                p = o13.parameter(list(value.shape), np.float32, name=f"in{i}_{j}")
                params.append(p)
                fed[f"in{i}_{j}"] = value.astype(np.float32)
                nodes.append(p if dtype == np.float32 else o13.convert(p, "f16"))
            else:
                nodes.append(o13.constant(value))
        fake = o13.fake_convert(*nodes, destination_type=dest, name=f"fake{i}")
        results.append(o13.result(fake if dtype == np.float32 else o13.convert(fake, "f32"), name=f"y{i}"))
    ov.save_model(ov.Model(results, params, "fake_convert"), str(path), compress_to_fp16=False)
    return path, fed


def test_fake_convert_migrated_for_2023_runs_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """96 seeded FakeConvert-13 layers (24 in f16, 48 of Const scale and shift; 4608 values): bit for bit on 2023.0
    and on the current OpenVINO, the same NaN, the same sign of zero."""
    model, fed = fake_convert_model(tmp_path / "fake.xml", np.random.default_rng(13), 96)
    out, printed = migrate(model, capsys)
    assert "rewrote 96 x FakeConvert-13 -> opset1 arithmetic" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed) == 96


def test_fake_convert_migrated_for_2021_runs_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """24 seeded layers migrated for 2021.4 (IR v10): bit for bit on 2023.0 and on the current OpenVINO."""
    model, fed = fake_convert_model(tmp_path / "fake.xml", np.random.default_rng(2021), 24)
    out, printed = migrated_for_2021_4(model, "FakeConvert of opset13", 24, capsys)
    assert "rewrote 24 x FakeConvert-13 -> opset1 arithmetic" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed) == 24


def test_fake_convert_migrated_for_2024_runs_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """2024.0 creates FakeConvert-13 but computes it otherwise (NaN kept, +-inf, other roundings: 255 of 256 seeded
    layers somewhere): ``check --target 2024.0`` names each of 32 seeded layers, and migrated for it they run on
    2024.0 and on the current OpenVINO bit for bit as the current OpenVINO runs the original."""
    if "2024.0" not in side_pythons():
        pytest.skip("no OpenVINO 2024.0: set IR_TOOLS_RELEASE_PYTHONS")
    model, fed = fake_convert_model(tmp_path / "fake.xml", np.random.default_rng(2024), 32)
    assert main(["check", str(model), "--target", "2024.0"]) == 1
    said = capsys.readouterr().out
    assert "OpenVINO 2024.0 computes FakeConvert-13 otherwise than the current OpenVINO" in said, said
    assert "the next release without this defect is 2025.3" in said and "and 31 more like it" in said, said
    out, printed = migrate(model, capsys, "2024.0")
    assert "rewrote 32 x FakeConvert-13 -> opset1 arithmetic" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed, releases=("2024.0",)) == 32


def test_fake_convert_of_bf16_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """bf16 data (not measured) is left: ``check --target`` says why, and migrate refuses (exit 2), writing nothing."""
    import openvino as ov
    import openvino.opset13 as o13

    x = o13.parameter([2, 3], ov.Type.bf16, name="x")
    scale = o13.convert(o13.constant(np.array([0.5], np.float32)), ov.Type.bf16)
    fake = o13.fake_convert(x, scale, destination_type="f8e4m3", name="fake")
    model = tmp_path / "bf16.xml"
    ov.save_model(ov.Model([o13.result(fake)], [x]), str(model), compress_to_fp16=False)
    assert main(["check", str(model), "--target", "2023.0"]) == 1
    said = capsys.readouterr().out
    assert "its data is bf16, where the rewrite is built and measured on f32 and f16" in said, said
    assert_refused(model, "fake", "FakeConvert of opset13", capsys)
    assert main(["check", str(model), "--target", "2024.0"]) == 1
    said = capsys.readouterr().out
    assert "OpenVINO 2024.0 computes FakeConvert-13 otherwise" in said, said
    assert "no rewrite applies to this layer: its data is bf16" in said, said
    assert_refused(model, "fake", "computes FakeConvert-13 otherwise", capsys, "2024.0")


@pytest.mark.parametrize("dest", ["f8e4m3", "f8e5m2"])
def test_fake_convert_after_a_convolution_runs_equal(dest: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A FakeConvert of a Convolution's output plus a bias (as NNCF quantizes a residual block's batch norm): the
    rewrite's product by the scale must not be folded into the Convolution and its bias (OpenVINO folds a Multiply by
    a Const so, rounding it otherwise, and the f8 rounding makes that ulp a step of its grid: 17 and 104 of these
    4096 values differed, and 1 of resnet18's quantized to fp8_e4m3 by NNCF, enough for 1000 of its logits). Data
    aimed at the grid's ties through the convolution: bit for bit on 2023.0 and on the current OpenVINO."""
    import openvino as ov
    import openvino.opset13 as o13

    rng = np.random.default_rng(5)
    channels, side = 4, 32
    w, b = rng.uniform(0.5, 2, channels), rng.uniform(-1, 1, channels)
    scale = float(np.float32(rng.uniform(0.3, 3)))
    t = _targets(rng, dest, channels * side * side).reshape(1, channels, side, side)
    x = ((t / scale - b.reshape(1, -1, 1, 1)) / w.reshape(1, -1, 1, 1)).astype(np.float32)
    weights = np.zeros((channels, channels, 1, 1), np.float32)
    weights[range(channels), range(channels), 0, 0] = w
    p = o13.parameter([1, channels, side, side], np.float32, name="x")
    convolved = o13.convolution(p, o13.constant(weights), [1, 1], [0, 0], [0, 0], [1, 1])
    biased = o13.add(convolved, o13.constant(b.astype(np.float32).reshape(1, -1, 1, 1)))
    fake = o13.fake_convert(biased, o13.constant(np.array([scale], np.float32)), destination_type=dest, name="fake")
    model = tmp_path / "conv.xml"
    ov.save_model(ov.Model([o13.result(o13.relu(fake), name="y")], [p]), str(model), compress_to_fp16=False)
    out, printed = migrate(model, capsys)
    assert "rewrote 1 x FakeConvert-13 -> opset1 arithmetic" in printed, printed
    assert assert_runs_equal(model, out, inputs={"x": x}) == 1


def weights_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` FakeConvert-13 layers of Consts alone, weights fake-converted (the conformance test's seeded
    values; every third in f16, converted to f32; every fourth f32 one's data an f16 Const widened by a decompression
    Convert-1), each a model output (an arithmetic op after it may change a zero's sign: 2023.0 multiplies by a
    Parameter as ``x c + 0``); a Parameter passed through beside them, and what it is fed."""
    import openvino as ov
    import openvino.opset13 as o13

    x = o13.parameter([2, 3, 8], np.float32, name="x")
    results = [o13.result(o13.relu(x), name="x_out")]
    for i in range(cases):
        dtype = np.float16 if i % 3 == 2 else np.float32
        dest = "f8e5m2" if i % 2 else "f8e4m3"
        data, *others = fake_convert_inputs(rng, dtype, dest, i % 4 < 3)
        widened = dtype == np.float32 and i % 4 == 0
        with np.errstate(over="ignore"):  # (beyond f16's range: an infinite weight, as data)
            first = o13.convert(o13.constant(data.astype(np.float16)), "f32") if widened else o13.constant(data)
        fake = o13.fake_convert(first, *map(o13.constant, others), destination_type=dest, name=f"weights{i}")
        results.append(o13.result(fake if dtype == np.float32 else o13.convert(fake, "f32"), name=f"y{i}"))
    ov.save_model(ov.Model(results, [x], "weights"), str(path), compress_to_fp16=False)
    return path, {"x": np.ones((2, 3, 8), np.float32)}


def test_fake_convert_of_constants_migrated_runs_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """24 seeded FakeConverts of Consts alone (weights), which the current OpenVINO folds by its reference
    evaluator (otherwise than its CPU computes a fed layer): migrated for 2023.0 (no FakeConvert-13) and for 2024.0
    (which folds them otherwise: ``check --target`` names them) into the Consts the current one folds them into, bit
    for bit as it runs the original, on 2024.0 and the current OpenVINO; on 2023.0 the same values, NaN where NaN (it
    gives a Const's -0 as +0, any Const's, measured: a Const -0 as a model output comes out +0 there)."""
    model, fed = weights_model(tmp_path / "weights.xml", np.random.default_rng(8), 24)
    out, printed = migrate(model, capsys)
    assert "rewrote 24 x FakeConvert-13 -> opset1 arithmetic" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed, releases=()) == 25
    want, runs = migrated_runs(model, out, fed)
    for runner, got in runs.items():
        for name in want:
            np.testing.assert_array_equal(got[name], want[name], err_msg=f"{runner}: {name}", strict=True)
    if "2024.0" not in side_pythons():
        pytest.skip("no OpenVINO 2024.0: set IR_TOOLS_RELEASE_PYTHONS")
    assert main(["check", str(model), "--target", "2024.0"]) == 1
    said = capsys.readouterr().out
    assert "folds FakeConvert-13 of Consts alone (compressed weights) into other numbers" in said, said
    assert "`ir-tools migrate --target` rewrites it" in said, said
    out, printed = migrate(model, capsys, "2024.0")
    assert "rewrote 24 x FakeConvert-13 -> opset1 arithmetic" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed, releases=("2024.0",)) == 25


def test_fake_convert_of_a_narrowed_constant_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A FakeConvert of Consts whose data an f32 Const narrowed to f16 by a Convert-1 (a folding of its own, not
    modelled): left, and migrate refuses (exit 2, E-TARGET naming the layer), writing nothing."""
    import openvino as ov
    import openvino.opset13 as o13

    x = o13.parameter([2, 3], np.float16, name="x")
    narrowed = o13.convert(o13.constant(np.linspace(-3, 3, 6, dtype=np.float32).reshape(2, 3)), "f16")
    weights = o13.fake_convert(narrowed, o13.constant(np.array([[37.0], [41.0]], np.float16)),
                               destination_type="f8e4m3", name="weights")
    model = tmp_path / "weights.xml"
    ov.save_model(ov.Model([o13.result(o13.add(x, weights))], [x]), str(model), compress_to_fp16=False)
    assert main(["check", str(model), "--target", "2023.0"]) == 1
    assert "its inputs are all Consts, and input 0's is narrowed by a Convert" in capsys.readouterr().out
    assert_refused(model, "weights", "FakeConvert of opset13", capsys)
