"""SoftSign-9, IsNaN/IsInf/IsFinite-10 and Identity-16 migrated for 2021.4 (opset1 ops), run on OpenVINO 2023.0
and the current one equal to the current OpenVINO on the original, bit for bit, on drawn inputs and on NaN,
infinities, signed zeros, subnormals and the f32 limits."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ir_tools.cli import main
from tests.cpu_isa import AVX512, openvino_cpu_isa
from tests.downgrade.runs import NEEDS_2023, migrated_runs
from tests.test_target import side_pythons

pytestmark = NEEDS_2023

SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-39, 3.4028235e38, -3.4028235e38, 1.0,
                    -1.0, 1e20, -1e-20, 16777217.0], np.float32)


def elementwise_model(path: Path, rng: np.random.Generator, cases: int) -> Path:
    """Per case one Parameter (f32, or f16 for the IsX ops on odd cases) through SoftSign, IsNaN, IsInf (the
    detect attributes drawn; every third's spelled as OpenVINO skips them), IsFinite and Identity."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset9 as o9
    import openvino.opset10 as o10
    import openvino.opset16 as o16

    params, results = [], []
    for i in range(cases):
        shape = [int(n) for n in rng.integers(1, 6, int(rng.integers(1, 4)))]
        x = o1.parameter(shape, np.float32, name=f"x{i}")
        h = o1.parameter(shape, np.float16, name=f"h{i}")
        y = h if i % 2 else x
        positive, negative = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
        outs = [o9.softsign(x, name=f"softsign{i}"), o10.is_nan(y, name=f"isnan{i}"),
                o10.is_inf(y, {"detect_positive": positive, "detect_negative": negative}, name=f"isinf{i}"),
                o10.is_finite(y, name=f"isfinite{i}"), o16.identity(x, name=f"identity{i}")]
        params += [x, h]
        results += [o1.result(out, name=f"{kind}{i}_out")
                    for kind, out in zip(("softsign", "isnan", "isinf", "isfinite", "identity"), outs, strict=True)]
    ov.save_model(ov.Model(results, params, "elementwise"), str(path), compress_to_fp16=False)
    # every third IsInf's flags spelled as OpenVINO's reader skips them, for their default (true): " false", "yes"
    text = path.read_text()
    for i in range(0, cases, 3):
        text = re.sub(rf'(name="isinf{i}" type="IsInf" version="opset10">\s*<data) detect_negative="\w+" '
                      r'detect_positive="\w+"', r'\1 detect_negative=" false" detect_positive="yes"', text)
    path.write_text(text)
    return path


def test_elementwise_ops_migrated_for_2021_4_run_equal(tmp_path: Path, capsys) -> None:
    """200 seeded layers, on drawn inputs (N(0, 1) times powers of ten) and on special values: bit for bit on the
    current OpenVINO and on 2023.0 but for SoftSign, which is within twice SoftSign-9's rounding bound (each
    within the bound of the exact value: the CPU's Divide is an ulp off its SoftSign on a third of the values)."""
    import ir_tools
    from ir_tools.ops.activations import SOFTSIGN_9
    from ir_tools.runtime.inputs import random_inputs
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    model = elementwise_model(tmp_path / "elementwise.xml", np.random.default_rng(9), 40)
    out = tmp_path / "elementwise_2021.xml"
    assert main(["migrate", str(model), "--target", "2021.4", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    for rule in ("40 x SoftSign-9 ->", "40 x IsNaN-10 ->", "40 x IsInf-10 ->", "40 x IsFinite-10 ->",
                 "40 x Identity-16 ->"):
        assert rule in printed, printed
    graph, migrated = ir_tools.read_valid(model), ir_tools.read_valid(out)
    rng = np.random.default_rng(1)
    drawn = {name: (v * 10.0 ** rng.integers(-3, 4, v.shape)).astype(v.dtype)
             for name, v in random_inputs(graph, 0, {}).items()}
    with np.errstate(over="ignore"):  # the f32 limits are infinities in f16
        special = {name: np.resize(SPECIAL, v.shape).astype(v.dtype) for name, v in drawn.items()}
    files = ModelFiles(out, out.with_suffix(".bin"))
    for inputs in (drawn, special):
        want = OpenVinoRunner(graph, ModelFiles(model, model.with_suffix(".bin"))).run(inputs)
        now = OpenVinoRunner(migrated, files).run(inputs)
        old = ChildOpenVinoRunner(side_pythons()["2023.0"], migrated, files).run(inputs)
        assert set(now) == set(old) == set(want) and len(want) == 200
        for name, value in want.items():
            if not name.startswith("softsign"):  # IR v10: OpenVINO reads a boolean output as f32 (a legacy Convert)
                kept = _compared(name, inputs)
                for got in (now[name], old[name]):
                    assert got.dtype == (np.float32 if value.dtype == bool else value.dtype), name
                    np.testing.assert_array_equal(got.astype(value.dtype)[kept], value[kept], err_msg=name,
                                                  strict=True)
                continue
            x = inputs[f"x{name.removeprefix('softsign').removesuffix('_out')}"]
            exact = SOFTSIGN_9.kernel(None, [x.astype(np.float64)])[0]
            bound = SOFTSIGN_9.rounding(SOFTSIGN_9.kernel, None, [x], [np.zeros(())], [exact])[0]
            number = ~np.isnan(value)  # the CPU's SoftSign of an infinity is NaN, as inf / (1 + inf)
            for got in (now[name], old[name]):
                assert (np.isnan(got) == ~number).all(), name
                assert (np.abs(got.astype(np.float64) - value)[number] <= 2 * bound[number]).all(), name


def _compared(name: str, inputs: dict[str, np.ndarray]) -> np.ndarray:
    """The elements of output ``name`` compared bit for bit: all, but for IsFinite of an f32 subnormal on AVX-512,
    where OpenVINO CPU's IsFinite-10 calls it not finite, and the rewrite, as the specification and AVX2, finite."""
    case = name.removesuffix("_out").lstrip("abcdefghijklmnopqrstuvwxyz")
    x = inputs[f"{'h' if int(case) % 2 else 'x'}{case}"]
    if not name.startswith("isfinite") or x.dtype != np.float32 or openvino_cpu_isa() != AVX512:
        return np.ones(x.shape, bool)
    return ~((x != 0) & (np.abs(x) < np.finfo(np.float32).tiny))


def test_is_inf_of_f64_migrated_for_2022_1_runs_equal(tmp_path: Path, capsys) -> None:
    """IsInf-10 of f64 (an f64 input, and f32 made f64 inside), each sign and both: OpenVINO CPU reads an f64 Const
    infinity as f32's largest value, so ``x == inf`` in f64 was False for an infinity computed inside and True for
    3.4028235e38 (the current OpenVINO and 2023.0 alike): the rewrite compares in f32, equal to the original on
    both."""
    import openvino as ov
    import openvino.opset10 as o10

    x, d = o10.parameter([len(SPECIAL)], np.float32, name="x"), o10.parameter([len(SPECIAL)], np.float64, name="d")
    results = [o10.result(o10.is_inf(source, {"detect_positive": positive, "detect_negative": negative}),
                          name=f"isinf_{kind}_{int(positive)}{int(negative)}")
               for source, kind in ((o10.convert(x, "f64"), "inside"), (d, "input"))
               for positive, negative in ((True, True), (True, False), (False, True))]
    model, out = tmp_path / "isinf_f64.xml", tmp_path / "isinf_f64_2022.1.xml"
    ov.save_model(ov.Model(results, [x, d], "isinf_f64"), str(model), compress_to_fp16=False)
    assert main(["migrate", str(model), "--target", "2022.1", "-o", str(out)]) == 0
    assert "6 x IsInf-10 ->" in capsys.readouterr().out
    inputs = {"x": SPECIAL, "d": np.concatenate([SPECIAL[:-1], [1e300]])}
    want, runs = migrated_runs(model, out, inputs)
    assert want["isinf_inside_11"][1:3].all() and not want["isinf_inside_11"][8:10].any()  # (inf; f32's largest)
    for runner, got in runs.items():
        assert set(got) == set(want) and len(want) == 6
        for name in want:
            np.testing.assert_array_equal(got[name], want[name], err_msg=f"{runner}: {name}", strict=True)


def test_identity_of_string_is_refused(tmp_path: Path, capsys) -> None:
    """Identity-16 of a string input: the current OpenVINO runs it, but no release's CPU converts a string (2025.0
    and 2026.4: "Unsupported operation of type: Convert"), so its rewrite into Convert-1 compiled nowhere (migrate
    wrote it, exit 0): refused, for 2025.0 (which does not compile Identity-16) and 2024.0 (which has no opset16)."""
    import openvino as ov
    import openvino.opset16 as o16

    from tests.downgrade.runs import assert_refused

    x = o16.parameter([2], ov.Type.string, name="s")
    model = tmp_path / "identity_string.xml"
    ov.save_model(ov.Model([o16.identity(x, name="identity")], [x], "identity_string"), str(model))
    for target in ("2025.0", "2024.0"):
        assert_refused(model, "identity", "Identity@opset16", capsys, target)
