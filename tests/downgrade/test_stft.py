"""STFT-15 (torch.stft) migrated for 2023.0 (no STFT before 2024.5) as Gather-1 of computed frame indices, Pad-1,
Multiply-1 and RDFT-9 (passes/downgrade/stft.py): run on OpenVINO 2023.0 and the current one exactly equal to the
current OpenVINO on the original (bit for bit, the sign of zero too), every output."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ir_tools
from tests.downgrade.runs import NEEDS_2023, assert_network_proved, assert_refused, assert_runs_equal, migrate

pytestmark = NEEDS_2023

#: The signal types drawn, each in turn (the rewrite's ``TYPES``; bf16 fed as f32 and converted in the model, and
#: its output converted back to f32, which is exact).
TYPES = ("f32", "f16", "bf16", "f64")
#: Frame sizes drawn: odd, even and powers of two, 1 to 512.
FRAME_SIZES = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 63, 64, 100, 128, 255, 256, 400, 512)


def spectral_values(rng: np.random.Generator, kind: str, shape: tuple[int, ...]) -> np.ndarray:
    """Values of mixed scales with -0.0, +0.0 and now and then a NaN or an infinity among them (no infinity in f16,
    whose model inputs 2023.0 reads as +-65504; f16 kept small enough that no frame's transform, nor an inverse's sum,
    overflows); all -0.0 now and then: an STFT's signal, an ISTFT's spectra (tests/downgrade/test_istft.py)."""
    scale = rng.choice([1.0, 1e-3, 8.0] if kind == "f16" else [1.0, 1e-3, 1e4, 1e20], shape)
    value = rng.standard_normal(shape) * scale
    picks = rng.random(shape) < 0.002
    special = [np.nan, -0.0, 0.0] if kind == "f16" else [np.nan, -0.0, 0.0, np.inf, -np.inf]
    value[picks] = rng.choice(special, int(picks.sum()))
    value[rng.random(shape) < 0.02] = -0.0
    if rng.random() < 0.05:
        value = np.full(shape, -0.0)
    return value.astype({"f16": np.float16, "f64": np.float64}.get(kind, np.float32))


def stft_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` STFT-15 layers, the types of ``TYPES`` in turn: frame sizes of ``FRAME_SIZES``, steps 1 to beyond
    the frame, windows of the frame's length or shorter (centred with an odd or even margin), a Const or an input;
    1-D and 2-D signals (batch 1 to 3) of exactly one frame to some eight; transpose_frames both ways; i32 or i64
    sizes; one signal in four of dynamic dims. Returns the model and its inputs."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    params, results, fed = [], [], {}
    for made in range(cases):
        kind = TYPES[made % len(TYPES)]
        frame = int(rng.choice(FRAME_SIZES))
        window = frame if rng.random() < 0.4 else int(rng.integers(1, frame + 1))
        step = int(rng.integers(1, frame + 3))
        length = frame + int(rng.integers(0, 8 * step if rng.random() < 0.8 else 2))
        shape = (int(rng.integers(1, 4)), length) if made % 2 else (length,)
        fed_type = np.float32 if kind == "bf16" else {"f16": np.float16, "f64": np.float64}.get(kind, np.float32)
        dims = [-1] * len(shape) if made % 4 == 3 else list(shape)
        signal = o1.parameter(dims, fed_type, name=f"x{made}")
        params.append(signal)
        fed[f"x{made}"] = spectral_values(rng, kind, shape).astype(fed_type)
        weights = (rng.random(window) * rng.choice([1.0, -2.0])).astype(fed_type)
        if made % 3:
            taper = o1.constant(weights)
        else:
            taper = o1.parameter([window], fed_type, name=f"w{made}")
            params.append(taper)
            fed[f"w{made}"] = weights
        if kind == "bf16":
            signal, taper = o1.convert(signal, "bf16"), o1.convert(taper, "bf16")
        index = np.int32 if made % 5 else np.int64
        stft = o15.stft(signal, taper, o1.constant(np.array(frame, index)), o1.constant(np.array(step, index)),
                        bool(rng.random() < 0.5), name=f"stft{made}")
        results.append(o1.result(o1.convert(stft, "f32") if kind == "bf16" else stft, name=f"y{made}"))
    ov.save_model(ov.Model(results, params, "stft"), str(path), compress_to_fp16=False)
    return path, fed


def test_stft_15_migrated_for_2023_0_runs_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """320 seeded STFT-15 layers: the same values, bit for bit, on 2023.0 and the current OpenVINO."""
    model, fed = stft_model(tmp_path / "stft.xml", np.random.default_rng(15), 320)
    out, printed = migrate(model, capsys)
    assert "rewrote 320 x STFT-15 -> Gather-1 + Multiply-1 + RDFT-9" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed) == 320


def test_stft_15_network_checked_on_2023_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A network as torch.stft exports it (the signal's dims dynamic, batched by a Reshape, a Hann window compressed
    to f16, transpose_frames): ``check --target 2023.0`` says migrate rewrites it, and ``migrate --target 2023.0
    --check-with`` the 2023.0 interpreter compares them equal."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    x = o1.parameter([-1, -1], np.float32, name="x")
    batched = o1.reshape(x, o1.constant(np.array([1, -1], np.int64)), False)
    hann = (np.sin(np.pi * np.arange(16) / 16) ** 2).astype(np.float32)
    stft = o15.stft(batched, o1.constant(hann), o1.constant(np.array(16, np.int64)),
                    o1.constant(np.array(4, np.int64)), True, name="stft")
    model = tmp_path / "stft_net.xml"
    ov.save_model(ov.Model([o1.result(stft, name="y")], [x], "stft_net"), str(model))
    assert_network_proved(model, "into Gather-1 of computed frame indices", "x:1,300", 1296, capsys)


def test_stft_15_frames_of_a_dynamic_signal_stay_at_least_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                              ) -> None:
    """STFT-15 counts at least one frame of a signal of any length (OpenVINO's inference: [1, ?]); the rewrite's
    Range-4 from 0 counted [0, ?], so a ReduceMax over the frames (a log-mel front end's, of the wide zoo) met
    2023.0's empty-axis defect in ``check --target 2023.0`` of the migrated file, W-TARGET, where the original has
    none. The first start is a Concat-1 before Range-4 from step: the same frames, at least one."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    x = o1.parameter([-1, -1], np.float32, name="x")
    stft = o15.stft(x, o1.constant(np.ones(16, np.float32)), o1.constant(np.array(16, np.int64)),
                    o1.constant(np.array(4, np.int64)), False, name="stft")
    peak = o1.reduce_max(stft, o1.constant(np.array([1], np.int64)), False, name="peak")
    model = tmp_path / "stft_peak.xml"
    ov.save_model(ov.Model([o1.result(peak, name="y")], [x], "stft_peak"), str(model))
    warned = [d.code for d in ir_tools.check(model, target="2023.0") if d.severity == "warning"]
    out, _ = migrate(model, capsys)
    assert [d.code for d in ir_tools.check(out, target="2023.0") if d.severity == "warning"] == warned
    assert "W-TARGET" not in warned
    assert_runs_equal(model, out, inputs={"x": spectral_values(np.random.default_rng(5), "f32", (2, 40))})


@pytest.mark.parametrize("case", ["size_fed", "step_fed", "rank", "window", "target"])
def test_stft_15_left_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    """A frame_size or frame_step fed by an input (the frame indices are built from them), a signal of a dynamic rank
    (batched or not cannot be told), a window of a dynamic length (its padding is a constant), and a target without
    RDFT-9 (2022.1) for a frame_size not a power of two (whose RDFT-9 no DFT-7 stands for: passes/downgrade/rdft.py):
    no rewrite, so migrate --target refuses."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    x = o1.parameter(ov.PartialShape.dynamic() if case == "rank" else [2, 64], np.float32, name="x")
    window = o1.parameter([-1 if case == "window" else 8], np.float32, name="w")
    params = [x, window]
    sizes = []
    for what, value in (("size", 12 if case == "target" else 16), ("step", 4)):
        if case == f"{what}_fed":
            sizes.append(o1.parameter([], np.int64, name=what))
            params.append(sizes[-1])
        else:
            sizes.append(o1.constant(np.array(value, np.int64)))
    stft = o15.stft(x, window, *sizes, False, name="stft")
    model = tmp_path / "left.xml"
    ov.save_model(ov.Model([o1.result(stft)], params, "left"), str(model))
    assert_refused(model, "stft", "STFT of opset15", capsys, target="2022.1" if case == "target" else "2023.0")
