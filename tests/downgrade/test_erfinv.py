"""ErfInv-17 (opset17, from 2026.2; torch.erfinv) migrated for 2023.0 as Gather-1 of a table of the current CPU's
factors, Multiply-1 and Select-1 (passes/downgrade/erfinv.py): run on OpenVINO 2023.0 and the current one bit for bit
equal to the current OpenVINO on the original, on seeded values across (-1, 1), near and at +-1, beyond, signed
zeros, subnormals, NaN and infinities."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.cpu_isa import openvino_cpu_isa
from tests.downgrade.runs import NEEDS_2023, assert_network_proved, assert_refused, assert_runs_equal, migrate

pytestmark = NEEDS_2023


@pytest.fixture(autouse=True)
def _fma_kernels() -> None:
    """The table holds the factors of OpenVINO CPU's AVX2 and AVX-512 kernel, of FMAs; below AVX2 the current
    OpenVINO computes ErfInv without them, other values for 5.7% of f32 (measured with ONEDNN_MAX_CPU_ISA=SSE41)."""
    if openvino_cpu_isa() not in ("avx512", "avx2"):
        pytest.skip(f"OpenVINO CPU runs {openvino_cpu_isa()} kernels: its ErfInv has no FMAs, unlike the table's")

#: Values the emitter treats apart: +-0, +-1, beyond, NaN, infinities, subnormals, the f32 neighbours of +-1 and of
#: the branch at w = 5 (|x| near 0.99663), and the least normal.
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 1.0000001, -1.5, 2.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-45,
                    1e-39, -3e-39, 1.1754944e-38, 0.99999994, -0.99999994, 0.9999999, 0.99663, -0.996631, 0.9966305,
                    0.5, -0.70710677, 1e-20], np.float32)


def erfinv_values(rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` seeded f32 values: uniform in (-1, 1), 1 - 10^-k (k up to 8) of either sign, within 1e-3 of 0 and of
    the branch at w = 5, and the special values, shuffled."""
    parts = [rng.uniform(-1, 1, size), rng.choice([-1, 1], size) * (1 - 10.0 ** rng.uniform(-8, -0.5, size)),
             rng.uniform(-1e-3, 1e-3, size), rng.choice([-1, 1], size) * rng.uniform(0.9956, 0.9976, size)]
    values = np.concatenate([*parts, np.resize(SPECIAL, size)]).astype(np.float32)
    return rng.permutation(values)[:size]


def erfinv_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` ErfInv-17 layers, each on a Parameter of its own of 1 to 3 dims (every fourth dynamic; every third of
    f16, Convert-1 into f16 and back around it, which OpenVINO CPU at f32 precision computes in f32, the original and
    the rewrite alike), and the inputs fed: 1 to 1728 values each."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset17 as o17

    params, results, fed = [], [], {}
    for i in range(cases):
        shape = [int(n) for n in rng.integers(1, 13, int(rng.integers(1, 4)))]
        declared = [-1] * len(shape) if i % 4 == 3 else shape
        x = o1.parameter(declared, np.float32, name=f"x{i}")
        if i % 3 == 2:
            y = o1.convert(o17.erfinv(o1.convert(x, "f16")), "f32")
        else:
            y = o17.erfinv(x, name=f"erfinv{i}")
        params.append(x)
        results.append(o1.result(y, name=f"y{i}"))
        fed[f"x{i}"] = erfinv_values(rng, int(np.prod(shape))).reshape(shape)
    ov.save_model(ov.Model(results, params, "erfinv"), str(path), compress_to_fp16=False)
    return path, fed


def test_erfinv_migrated_for_2023_runs_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """60 seeded ErfInv-17 layers (20 in f16, 15 of dynamic dims; about 40000 values): bit for bit on 2023.0 and on
    the current OpenVINO, the same NaN, the same sign of zero."""
    model, fed = erfinv_model(tmp_path / "erfinv.xml", np.random.default_rng(17), 60)
    out, printed = migrate(model, capsys)
    assert "rewrote 60 x ErfInv-17 -> Gather-1 + Multiply-1 + Select-1" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed) == 60


def test_erfinv_of_f16_migrated_for_2025_runs_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ErfInv-17 of an f16 model input into an f16 output (2023.0 to 2024.2 saturate f16 infinities at the model's
    inputs and outputs, so 2025.0, which has no opset17 either): the current CPU computes it in f32 and rounds the
    result into f16, which the rewrite does by Convert-1 around it; bit for bit on 2025.0 and the current OpenVINO,
    +-inf at +-1 included."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset17 as o17

    values = erfinv_values(np.random.default_rng(16), 4096).astype(np.float16)
    x = o1.parameter([-1], np.float16, name="x")
    model = tmp_path / "erfinv_f16.xml"
    ov.save_model(ov.Model([o1.result(o17.erfinv(x, name="erfinv"), name="y")], [x], "erfinv_f16"), str(model),
                  compress_to_fp16=False)
    out, printed = migrate(model, capsys, "2025.0")
    assert "rewrote 1 x ErfInv-17 ->" in printed, printed
    assert assert_runs_equal(model, out, inputs={"x": values}, releases=("2025.0",)) == 1


def test_erfinv_network_proved(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A Box-Muller-like head (``sqrt(2) erfinv(tanh(x))`` into a MatMul, two ErfInv layers sharing the one table),
    of a dynamic batch: named by ``check --target 2023.0`` and migrated with ``--check-with`` 2023.0, every element
    equal."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset17 as o17

    x = o1.parameter([-1, 16], np.float32, name="x")
    weights = np.random.default_rng(3).normal(size=(16, 8)).astype(np.float32)
    normal = o1.multiply(o17.erfinv(o1.tanh(x)), o1.constant(np.float32(np.sqrt(2))))
    hidden = o1.matmul(normal, o1.constant(weights), False, False)
    y = o17.erfinv(o1.tanh(hidden))
    model = tmp_path / "flow.xml"
    ov.save_model(ov.Model([o1.result(y, name="z")], [x], "flow"), str(model), compress_to_fp16=False)
    assert_network_proved(model, "into Gather-1 of a table", "x:4,16", 32, capsys)


def test_erfinv_of_f64_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ErfInv-17 of f64: the current CPU computes it in f32 and gives +-1 as +-3.4028235e38, not +-inf (measured on
    2026.4), which the rewrite is not built for: refused, nothing written."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset17 as o17

    x = o1.parameter([4], np.float64, name="x")
    model = tmp_path / "erfinv_f64.xml"
    ov.save_model(ov.Model([o1.result(o17.erfinv(x, name="erfinv"), name="y")], [x], "erfinv_f64"), str(model))
    assert_refused(model, "erfinv", "ErfInv@opset17", capsys)
