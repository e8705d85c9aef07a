"""ISTFT-16 (torch.istft) migrated for 2023.0 (no ISTFT before 2025.0) as IRDFT-9 of the frames, Multiply-1 by the
window, an overlap-add of Pad-1 and Add-1 and Divide-1 by the window's summed squares (passes/downgrade/istft.py):
run on OpenVINO 2023.0 and on the current one, the same bits on both, within the rounding bound of the current
OpenVINO on the original.

The bound, per element: the rewrite computes each frame's IRDFT, its product with the window, the overlap-add and
the window's summed squares ``s`` bit for bit as the CPU's ISTFT does (measured: the sums equal to the bit, -0.0
included; a NaN's sign aside, which OpenVINO CPU's Add-1 takes from one operand or the other as the shapes are static
or not), and so ``c``, the sum (times sqrt(frame_size) where normalized); only the last step differs: the ISTFT
divides, ``c / s`` rounded once, where OpenVINO CPU's Divide-1 multiplies by the rounded reciprocal, ``c * RN(1/s)``
rounded (measured on 2023.0 and 2026.4, inside a Loop-5 or If-8 body too). Each of those is within ``(1 + u)^2 - 1``
of ``c / s`` (u = 2^-24), the ISTFT's within u, so the two within 3u ``|c / s|``, which is at most 3u (1 + u) of the
ISTFT's value: f32, and f64 (computed in f32). f16 and bf16 are that f32 rounded once more, so neighbours at most:
one ulp of the type. Where the ISTFT gives a NaN, an infinity or a zero the rewrite gives the same, the sign of zero
too (a product by a finite positive reciprocal keeps them).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.downgrade.runs import NEEDS_2023, assert_network_proved, assert_refused, migrate, migrated_runs
from tests.downgrade.test_stft import FRAME_SIZES, TYPES, spectral_values

pytestmark = NEEDS_2023



def _window(rng: np.random.Generator, length: int, fed_type: type) -> np.ndarray:
    """A window of ``length``: random of either sign, a periodic Hann (zero at its start: samples no frame weighs
    are 0), all ones, with zeros at both ends, or a narrow Gaussian (tails down to 1e-30, whose squares' sums lie
    below f32's normal range); of f16 none with tails, whose quotients would overflow f16 (where 2023.0 writes 65504,
    ``f16_io_saturates``, which ``check --target`` warns of)."""
    pick = rng.choice([0, 2, 3] if fed_type is np.float16 else [0, 1, 2, 3, 4])
    if pick == 0:
        weights = rng.random(length) * rng.choice([1.0, -2.0])
    elif pick == 1:
        weights = np.sin(np.pi * np.arange(length) / length) ** 2
    elif pick == 2:
        weights = np.ones(length)
    elif pick == 3:
        weights = rng.random(length) + 0.1
        weights[:max(1, length // 4)] = 0.0
        weights[-max(1, length // 4):] = 0.0
    else:
        weights = np.exp(-0.5 * ((np.arange(length) - (length - 1) / 2) / max(1.0, length / 24)) ** 2)
    return weights.astype(fed_type)


def istft_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` ISTFT-16 layers, the types of ``TYPES`` in turn: frame sizes of ``FRAME_SIZES``, steps 1 to beyond
    the frame, windows (``_window``) of the frame's length or shorter, a Const or an input; 3-D and 4-D data (batch 1
    to 3) of one frame to eight; center and normalized each way; no length, a Const one (shorter or longer than the
    data, i32 or i64, a scalar or of one element) or a fed one (no output empty: 2023.0 refuses one); i32 or i64
    sizes; one data in four of dynamic dims. Returns the model and its inputs."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset16 as o16

    params, results, fed = [], [], {}
    for made in range(cases):
        kind = TYPES[made % len(TYPES)]
        frame = int(rng.choice(FRAME_SIZES))
        window = frame if rng.random() < 0.4 else int(rng.integers(1, frame + 1))
        step = int(rng.integers(1, frame + 3))
        center, normalized = bool(rng.random() < 0.5), bool(rng.random() < 0.5)
        frames = int(rng.integers(1, 9))
        if center and frames == 1 and frame % 2 == 0:
            frames = 2  # (else the output is empty without a length, which 2023.0 refuses to give)
        shape = (frame // 2 + 1, frames, 2)
        if made % 2:
            shape = (int(rng.integers(1, 4)), *shape)
        fed_type = np.float32 if kind == "bf16" else {"f16": np.float16, "f64": np.float64}.get(kind, np.float32)
        dims = [-1] * (len(shape) - 1) + [2] if rng.random() < 0.25 else list(shape)
        data = o1.parameter(dims, fed_type, name=f"x{made}")
        params.append(data)
        fed[f"x{made}"] = spectral_values(rng, kind, shape).astype(fed_type)
        weights = _window(rng, window, fed_type)
        if made % 3:
            taper = o1.constant(weights)
        else:
            taper = o1.parameter([window], fed_type, name=f"w{made}")
            params.append(taper)
            fed[f"w{made}"] = weights
        if kind == "bf16":
            data, taper = o1.convert(data, "bf16"), o1.convert(taper, "bf16")
        index = np.int32 if made % 5 else np.int64
        length = []
        pick = rng.random()
        if pick < 0.5:
            full = (frames - 1) * step + frame
            wanted = np.array(int(rng.integers(1, full + 2 * frame + 2)), index)
            if rng.random() < 0.3:
                wanted = wanted.reshape(1)
            if pick < 0.35:
                length = [o1.constant(wanted)]
            else:
                length = [o1.parameter(list(wanted.shape), index, name=f"n{made}")]
                params.append(length[0])
                fed[f"n{made}"] = wanted
        istft = o16.istft(data, taper, o1.constant(np.array(frame, index)), o1.constant(np.array(step, index)),
                          center, normalized, *length, name=f"istft{made}")
        results.append(o1.result(o1.convert(istft, "f32") if kind == "bf16" else istft, name=f"y{made}"))
    ov.save_model(ov.Model(results, params, "istft"), str(path), compress_to_fp16=False)
    return path, fed


def bound(want: np.ndarray, kind: str) -> np.ndarray:
    """The module doc's bound on the difference of the rewrite's value from the ISTFT's ``want`` (of type ``kind``,
    given as f32 for bf16), per element."""
    value = np.abs(want.astype(np.float64))
    limit = 3.0 * 2.0**-24 * (1.0 + 2.0**-24) * value
    if kind in ("f16", "bf16"):
        with np.errstate(divide="ignore"):
            exponent = np.floor(np.log2(np.where(value > 0, value, 1.0)))
        limit = np.maximum(limit, 2.0 ** (exponent - {"f16": 10, "bf16": 7}[kind]))
    return limit


def test_istft_16_migrated_for_2023_0_within_its_bound(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """320 seeded ISTFT-16 layers: the same values on 2023.0 and the current OpenVINO, within the module doc's bound
    of the current OpenVINO's ISTFT (NaN, infinities and zeros exactly, the zeros' signs too); the largest difference
    of each type as a share of the bound, printed."""
    model, fed = istft_model(tmp_path / "istft.xml", np.random.default_rng(16), 320)
    out, printed = migrate(model, capsys)
    assert "rewrote 320 x ISTFT-16 -> IRDFT-9 + Multiply-1 + Add-1 + Divide-1" in printed, printed
    want, runs = migrated_runs(model, out, fed)
    old, new = runs.values()
    assert set(old) == set(new) == set(want) and len(want) == 320
    worst: dict[str, float] = {}
    exact = 0
    for made in range(320):
        name, kind = f"y{made}", TYPES[made % len(TYPES)]
        np.testing.assert_array_equal(old[name], new[name], err_msg=name, strict=True)
        got, value = new[name], want[name]
        assert got.dtype == value.dtype and got.shape == value.shape, name
        special = ~np.isfinite(value) | (value == 0)
        np.testing.assert_array_equal(got[special], value[special], err_msg=name)
        number = ~np.isnan(value)
        np.testing.assert_array_equal(np.signbit(got[number]), np.signbit(value[number]), err_msg=name)
        finite = ~special
        excess = np.abs(got[finite].astype(np.float64) - value[finite]) / bound(value[finite], kind)
        assert np.all(excess <= 1.0), (name, float(excess.max()))
        worst[kind] = max(worst.get(kind, 0.0), float(excess.max(initial=0.0)))
        exact += bool(np.array_equal(got, value, equal_nan=True))
    shares = ", ".join(f"{kind} {share:.3f}" for kind, share in worst.items())
    print(f"largest difference as a share of the bound: {shares}; {exact} of 320 layers bit for bit")


def test_istft_16_network_checked_on_2023_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A network as torch.istft exports it (the data's dims dynamic, a Hann window, center, the length of a Const):
    ``check --target 2023.0`` says migrate rewrites it, and ``migrate --target 2023.0 --check-with`` the 2023.0
    interpreter compares them equal."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset16 as o16

    x = o1.parameter([-1, 9, -1, 2], np.float32, name="x")
    hann = (np.sin(np.pi * np.arange(16) / 16) ** 2).astype(np.float32)
    istft = o16.istft(x, o1.constant(hann), o1.constant(np.array(16, np.int64)), o1.constant(np.array(4, np.int64)),
                      True, False, o1.constant(np.array(300, np.int64)), name="istft")
    model = tmp_path / "istft_net.xml"
    ov.save_model(ov.Model([o1.result(istft, name="y")], [x], "istft_net"), str(model))
    assert_network_proved(model, "into IRDFT-9 of the frames", "x:2,9,76,2", 600, capsys)


@pytest.mark.parametrize("case", ["size_fed", "step_fed", "rank", "window", "length", "target"])
def test_istft_16_left_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    """A frame_size or frame_step fed by an input (the overlap-add is built from them), data of a dynamic rank
    (batched or not cannot be told), a window of a dynamic length (its padding is a constant), a Const length of 0
    (OpenVINO's CPU writes past its output) and a target without IRDFT-9 (2022.1) for a frame_size not a power of two
    (whose IRDFT-9 no IDFT-7 stands for: passes/downgrade/rdft.py): no rewrite, so migrate --target refuses."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset16 as o16

    x = o1.parameter(ov.PartialShape.dynamic() if case == "rank" else [2, 7 if case == "target" else 9, 5, 2],
                     np.float32, name="x")
    window = o1.parameter([-1 if case == "window" else 8], np.float32, name="w")
    params = [x, window]
    sizes = []
    for what, value in (("size", 12 if case == "target" else 16), ("step", 4)):
        if case == f"{what}_fed":
            sizes.append(o1.parameter([], np.int64, name=what))
            params.append(sizes[-1])
        else:
            sizes.append(o1.constant(np.array(value, np.int64)))
    length = [o1.constant(np.array(0, np.int64))] if case == "length" else []
    istft = o16.istft(x, window, *sizes, False, False, *length, name="istft")
    model = tmp_path / "left.xml"
    ov.save_model(ov.Model([o1.result(istft)], params, "left"), str(model))
    assert_refused(model, "istft", "ISTFT of opset16", capsys, target="2022.1" if case == "target" else "2023.0")
