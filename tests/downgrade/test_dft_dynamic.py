"""DFT-7 and IDFT-7 of an input of dynamic shape for OpenVINO 2023.0 to 2025.1 (passes/downgrade/dft.py,
``dft_dynamic_not_compiled``): those releases read it but their CPU plugin does not compile it ("Unsupported operation
of type: DFT ... Doesn't support op with dynamic shapes"; torch.fft.fft converted by ovc). ``migrate --target``
rewrites one of f32 whose transformed lengths are static powers of two into RDFT-9 per axis, within the rounding
bound its docstring derives of the current OpenVINO's DFT, on 2023.0 and the current release; it refuses the others
(a dynamic or non-power-of-two transformed length, a fed signal_size); of static dims, and for 2025.2 on, it is left
as it is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ir_tools.cli import main
from tests.downgrade.runs import NEEDS_2023, assert_network_proved, assert_refused, migrate, migrated_runs

pytestmark = pytest.mark.openvino

#: The unit roundoff of f32.
U = 2.0 ** -24
#: Why the rewrite declines a length or a fed input (``DftDynamic.declines``).
_NOT_A_POWER = ("its axes or signal_size is not a Const, its data's rank is not static, or a transformed length is not "
                "a static power of two")
#: Static lengths drawn for the complex dims.
LENGTHS = (1, 2, 4, 8, 16, 32, 64)


def dft_model(path: Path, shape: list[int], inverse: bool = False, fed_length: bool = False,
              element: type = np.float32) -> Path:
    """One DFT-7 (IDFT-7) over axis 2 of a Parameter of ``shape`` (-1: a dynamic dim) and ``element`` type, named
    "d"; ``fed_length``: its signal_size a Parameter too (its output's length known only at inference)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset7 as o7

    x = o1.parameter(shape, element, name="x")
    params = [x, *([o1.parameter([1], np.int32, name="n")] if fed_length else [])]
    node = (o7.idft if inverse else o7.dft)(x, o1.constant(np.array([2], np.int32)), *params[1:])
    node.set_friendly_name("d")
    ov.save_model(ov.Model([node], params, "dft"), str(path), compress_to_fp16=False)
    return path


def conformance_model(path: Path, rng: np.random.Generator, cases: int,
                      ) -> tuple[Path, dict[str, np.ndarray], list[tuple[str, list[int], list[int], bool]]]:
    """``cases`` DFT-7 and IDFT-7 layers, each on an input of its own ``[batch (dynamic), d1 .. dk, 2]`` (k of 1 to
    3, static lengths of ``LENGTHS``, some dims dynamic where not transformed), over 1 to 3 of the static axes in any
    order (negative now and then), with or without a signal_size trimming or zero-padding some (-1 keeping others;
    always a power of two), i32 or i64. Returns the model, its inputs (batch 1 to 3, standard normal values at scales
    1e-3 to 1e4) and each case's ``(input name, axes, transformed lengths, inverse)``."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset7 as o7

    params, results, fed, made = [], [], {}, []
    for case in range(cases):
        dims = [int(rng.choice(LENGTHS)) for _ in range(int(rng.integers(1, 4)))]
        while np.prod(dims) > 4096:
            dims[int(np.argmax(dims))] //= 2
        axes = sorted(int(a) + 1 for a in rng.choice(len(dims), int(rng.integers(1, len(dims) + 1)), replace=False))
        declared = [-1] + [-1 if i + 1 not in axes and rng.random() < 0.5 else d for i, d in enumerate(dims)] + [2]
        x = o1.parameter(declared, np.float32, name=f"x{case}")
        params.append(x)
        fed[f"x{case}"] = (rng.standard_normal((int(rng.integers(1, 4)), *dims, 2)) *
                           rng.choice([1e-3, 1.0, 1e4])).astype(np.float32)
        order = list(rng.permutation(axes))
        spelled = [a - len(dims) - 1 if rng.random() < 0.3 else a for a in order]
        index = np.int32 if case % 2 else np.int64
        inputs = [x, o1.constant(np.array(spelled, index))]
        lengths = {a: dims[a - 1] for a in axes}
        if rng.random() < 0.4:
            sizes = [int(rng.choice([-1, max(1, dims[a - 1] // 2), dims[a - 1] * 2])) for a in order]
            lengths = {a: dims[a - 1] if n == -1 else n for a, n in zip(order, sizes, strict=True)}
            inputs.append(o1.constant(np.array(sizes, index)))
        inverse = bool(rng.random() < 0.5)
        node = (o7.idft if inverse else o7.dft)(*inputs, name=f"d{case}")
        results.append(o1.result(node, name=f"y{case}"))
        made.append((f"x{case}", axes, [lengths[a] for a in axes], inverse))
    ov.save_model(ov.Model(results, params, "dft"), str(path), compress_to_fp16=False)
    return path, fed, made


def bound(x: np.ndarray, axes: list[int], lengths: list[int], inverse: bool) -> np.ndarray:
    """The class's bound on ``|rewrite - DFT|`` of each complex output: ``u * S * (17 * L + 2 * A)``, ``S`` the sum
    of ``|z|`` over the transformed axes of ``x`` trimmed or zero-padded to ``lengths`` (divided by their product for
    the inverse), ``L`` the sum of their log2."""
    modulus = np.hypot(x[..., 0].astype(np.float64), x[..., 1])
    for axis, n in zip(axes, lengths, strict=True):
        modulus = np.take(modulus, range(min(n, modulus.shape[axis])), axis=axis)
    total = modulus.sum(axis=tuple(axes), keepdims=True) / (np.prod(lengths) if inverse else 1)
    return U * total * (17 * sum(np.log2(lengths)) + 2 * len(axes))


@NEEDS_2023[1]
def test_dft_7_cases_migrated_for_2023_0_within_the_bound(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """240 seeded DFT-7 and IDFT-7 layers of dynamic shapes: migrated, on 2023.0 and the current OpenVINO, within
    the rounding bound of the current OpenVINO's DFT of the original, every complex output (measured, seeds 1 to 3 and
    7, on every release from 2023.0 to 2025.1 and the current one alike: the worst at 0.048 of it, 3.2 u S)."""
    model, fed, made = conformance_model(tmp_path / "dft.xml", np.random.default_rng(7), 240)
    out, printed = migrate(model, capsys)
    rewritten = sum(1 for *_, inverse in made if not inverse)
    assert f"rewrote {rewritten} x DFT-7 -> RDFT-9" in printed, printed
    assert f"rewrote {240 - rewritten} x IDFT-7 -> RDFT-9" in printed, printed
    want, runs = migrated_runs(model, out, fed)
    for runner, got in runs.items():
        for case, (name, axes, lengths, inverse) in enumerate(made):
            result, expected = got[f"y{case}"], want[f"y{case}"]
            assert result.shape == expected.shape and result.dtype == expected.dtype, (runner, case)
            off = np.hypot(*np.moveaxis(result.astype(np.float64) - expected, -1, 0))
            limit = bound(fed[name], axes, lengths, inverse)
            assert np.all(off <= limit), (runner, case, float((off / limit).max()))


@NEEDS_2023[1]
def test_dft_7_network_checked_on_2023_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An FNet-like block (the token mixing ``torch.fft.fft2(x).real``: the real input given a zero imaginary part,
    DFT-7 over the sequence and hidden axes, Gather-8 of the real part; a residual Add and a feed-forward MatMul),
    its batch dynamic: ``check --target 2023.0`` says migrate rewrites it, ``migrate --target 2023.0 --check-with``
    the 2023.0 interpreter compares them equal within its tolerance."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset7 as o7
    import openvino.opset8 as o8

    rng = np.random.default_rng(3)
    x = o1.parameter([-1, 64, 32], np.float32, name="x")
    embedded = o1.matmul(x, o1.constant((rng.standard_normal((32, 32)) / 6).astype(np.float32)), False, False)
    complex_ = o1.concat([o1.unsqueeze(embedded, o1.constant(np.array([-1], np.int64))),
                          o1.unsqueeze(o1.multiply(embedded, o1.constant(np.float32(0))),
                                       o1.constant(np.array([-1], np.int64)))], -1)
    mixed = o8.gather(o7.dft(complex_, o1.constant(np.array([1, 2], np.int64)), name="fft2"),
                      o1.constant(np.array(0, np.int64)), o1.constant(np.array(-1, np.int64)))
    mixed_in = o1.add(embedded, mixed)
    hidden = o1.relu(o1.matmul(mixed_in, o1.constant((rng.standard_normal((32, 32)) / 6).astype(np.float32)),
                               False, False))
    model = tmp_path / "fnet.xml"
    ov.save_model(ov.Model([o1.result(o1.add(mixed_in, hidden), name="y")], [x], "fnet"), str(model),
                  compress_to_fp16=False)
    assert_network_proved(model, "into RDFT-9 of its real and imaginary parts", "x:2,64,32", 4096, capsys)


@pytest.mark.parametrize(("shape", "inverse", "fed_length", "element", "target", "why"), [
    ([-1, -1, -1, 2], False, False, np.float32, "2023.0", _NOT_A_POWER),
    ([-1, 3, 12, 2], False, False, np.float32, "2025.0", _NOT_A_POWER),
    ([2, 3, -1, 2], True, False, np.float32, "2025.1", _NOT_A_POWER),
    ([2, 3, 16, 2], False, True, np.float32, "2024.0", _NOT_A_POWER),
    ([-1, 3, 16, 2], False, False, np.float16, "2023.0", "its data is f16, not f32"),
])
def test_dft_left_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: list[int], inverse: bool,
                             fed_length: bool, element: type, target: str, why: str) -> None:
    """Each layer the rewrite declines: ``check --target`` names it with the reason, ``migrate --target`` refuses
    it."""
    path = dft_model(tmp_path / "dft.xml", shape, inverse, fed_length, element)
    assert main(["check", str(path), "--target", target, "--no-openvino"]) == 1
    printed = capsys.readouterr().out
    assert "does not compile them" in printed and "the next release without this defect is 2025.2" in printed
    assert f"no rewrite applies to this layer: {why}" in printed, printed
    assert_refused(path, "d", "IDFT" if inverse else "DFT", capsys, target)


def test_dft_of_static_dims_or_for_a_newer_release_is_left(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    static = dft_model(tmp_path / "static.xml", [2, 3, 16, 2])
    assert main(["check", str(static), "--target", "2023.0", "--no-openvino"]) == 0
    dynamic = dft_model(tmp_path / "dynamic.xml", [-1, -1, -1, 2])
    assert main(["check", str(dynamic), "--target", "2025.2", "--no-openvino"]) == 0
    assert main(["migrate", str(dynamic), "--target", "opset7", "-o", str(tmp_path / "out.xml")]) == 0
    assert "nothing to migrate" in capsys.readouterr().out
