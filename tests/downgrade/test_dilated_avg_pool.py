"""AvgPool-16 with dilations on dynamic spatial dims (``to_opset8`` rule 5): without pads and with floor's windows at
every length, migrated into StridedSlice-1 per tap, Add-1 and an AvgPool-1 that divides, run on OpenVINO 2023.0 and
the current one bit for bit equal to the current OpenVINO on the original; the rest is refused, saying why."""

from __future__ import annotations

from math import prod
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from ir_tools.ops.pool_geometry import dilated
from tests.downgrade.runs import NEEDS_2023, assert_runs_equal, migrate

pytestmark = NEEDS_2023


def dilated_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray], int]:
    """Per case, one AvgPool-16 (1 to 3 spatial axes, kernel 1-3 with at least one dilated tap, strides 1-3,
    dilations 1-3, no pads, exclude-pad drawn; floor, or ceil/ceil_torch where their windows are floor's at every
    length: stride 1 on a dynamic axis) on three Parameters of the same attributes, each axis dynamic or static (one
    dynamic at least): lengths of one window exactly (L = Kd), of a window that would leave the input under ceil
    (L - Kd not a multiple of S), and drawn up to Kd + 3S; inputs with signed zeros, infinities and NaN in a third.
    Returns the model, its inputs and the number of ceil or ceil_torch layers."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset16 as o16

    params, results, inputs, ceils = [], [], {}, 0
    while len(results) < 3 * cases:
        i = len(results) // 3
        rank = int(rng.integers(1, 4))
        kernel = [int(k) for k in rng.integers(1, 4, rank)]
        dilations = [int(d) for d in rng.integers(1, 4, rank)]
        if prod(kernel) > 12 or not any(k > 1 and d > 1 for k, d in zip(kernel, dilations, strict=True)):
            continue
        rounding = ("floor", "ceil", "ceil_torch")[i % 3]
        static = [bool(rng.random() < 0.25) for _ in range(rank - 1)] + [False]  # (one axis dynamic at least)
        rng.shuffle(static)
        strides = [int(s) for s in rng.integers(1, 4, rank)]
        if rounding != "floor":
            strides = [s if fixed else 1 for s, fixed in zip(strides, static, strict=True)]
        spans = [dilated(k, d) for k, d in zip(kernel, dilations, strict=True)]
        lengths = [[n, n + 1 + int(rng.integers(0, max(1, s - 1))), n + int(rng.integers(0, 3 * s + 1))]
                   for n, s in zip(spans, strides, strict=True)]
        for axis, fixed in enumerate(static):  # a static axis: one length, where its windows are floor's
            if fixed:
                length = spans[axis] + strides[axis] * int(rng.integers(0, 3))
                lengths[axis] = [length] * 3
        ceils += rounding != "floor"
        exclude = bool(rng.integers(2))
        for j in range(3):
            shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4))]
            x = o1.parameter([*shape, *(lengths[a][0] if static[a] else -1 for a in range(rank))], np.float32,
                             name=f"x{i}_{j}")
            value = rng.standard_normal([*shape, *(lengths[a][j] for a in range(rank))]).astype(np.float32)
            if i % 3 == 0:
                special = rng.random(value.shape) < 0.1
                value[special] = rng.choice(np.array([-0.0, 0.0, np.inf, -np.inf, np.nan], np.float32),
                                            int(special.sum()))
            inputs[f"x{i}_{j}"] = value
            pool = o16.avg_pool(x, strides, [0] * rank, [0] * rank, kernel, exclude, rounding, None,
                                dilations=dilations, name=f"pool{i}_{j}")
            params.append(x)
            results.append(o1.result(pool, name=f"y{i}_{j}"))
    ov.save_model(ov.Model(results, params, "dilated"), str(path), compress_to_fp16=False)
    return path, inputs, ceils


def test_dilated_pools_on_dynamic_dims_migrated_for_2023_0_run_equal(tmp_path: Path, capsys) -> None:
    """300 seeded layers (100 attribute sets at three lengths, 66 of them ceil or ceil_torch): each rewritten, and the
    migrated file equal bit for bit on 2023.0 and on the current OpenVINO, NaN and signed zeros included (they were
    refused: "the dilated window sum needs static lengths")."""
    model, inputs, ceils = dilated_model(tmp_path / "dilated.xml", np.random.default_rng(17), 100)
    out, printed = migrate(model, capsys)
    done = {rounding: sum(int(line.split(" x ")[0].split()[-1]) for line in printed.splitlines()
                          if f"AvgPool-16 ({rounding}, dilated, dynamic)" in line)
            for rounding in ("floor", "ceil", "ceil_torch")}
    assert sum(done.values()) == 300 and done["floor"] == 300 - 3 * ceils, printed
    assert assert_runs_equal(model, out, inputs=inputs) == 300


@pytest.mark.parametrize(("case", "words"), [
    ("partial", "at length 6, ceil rounding adds a last window holding 2 of its 3 taps"),
    ("past", "at length 6, ceil rounding adds a last window past the data"),
    ("pads", "it pads (explicit, pads [1]/[0])"),
    ("f16", "sums in f32, and the input is f16"),
])
def test_what_has_no_form_at_every_length_is_refused_saying_why(case: str, words: str, tmp_path: Path,
                                                                 capsys) -> None:
    """A last window partial at some length (ceil, stride 2: divided by a count that varies with the length), one
    past the data (stride 6 over a dilated kernel of 5), pads, an f16 input: exit 2, the layer named and why."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset16 as o16

    x = o1.parameter([1, 2, -1], np.float16 if case == "f16" else np.float32, name="x")
    stride = {"partial": 2, "past": 6}.get(case, 1)
    pool = o16.avg_pool(x, [stride], [int(case == "pads")], [0], [3], True, "floor" if case in ("pads", "f16")
                        else "ceil", None, dilations=[2], name="layer")
    model = tmp_path / f"{case}.xml"
    ov.save_model(ov.Model([pool], [x], case), str(model), compress_to_fp16=False)
    said = [d.message for d in ir_tools.check(model, openvino=False, target="2023.0") if d.code == "E-TARGET"]
    assert len(said) == 1 and "and with dilations where it has no pads, an f32 input and floor's windows at every " \
        "length" in said[0], said  # (check --target's words: migrate rewrites it only then)
    out = tmp_path / f"{case}_2023.xml"
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "layer 'layer'" in err and "no opset8 form of it that holds at every length" in err and words in err, err
    assert not out.exists()
