"""Col2Im-15 (torch's nn.Fold) migrated for 2023.0 (no Col2Im before 2024.2) as Reshape-1, Pad-1, Transpose-1,
Gather-1, Split-1 and a chain of Add-1 (passes/downgrade/col2im.py): run on OpenVINO 2023.0 and the current one
exactly equal to the current OpenVINO on the original (bit for bit, the sign of zero too), every output."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.downgrade.runs import NEEDS_2023, assert_network_proved, assert_refused, assert_runs_equal, migrate

pytestmark = NEEDS_2023

#: The data types drawn, each in turn (the rewrite's ``TYPES``).
TYPES = ("f32", "f16", "f64", "i32")


def _data(rng: np.random.Generator, kind: str, shape: tuple[int, ...]) -> np.ndarray:
    """Values of ``kind``: floats of mixed scales with -0.0, +0.0 and NaN among them (and infinities but in f16, whose
    model inputs 2023.0 reads as +-65504; f16's kept small enough that no sum overflows, which 2023.0 writes as
    65504); i32 over its whole range (sums wrap)."""
    if kind == "i32":
        return rng.integers(-2**31, 2**31, shape, dtype=np.int64, endpoint=False).astype(np.int32)
    scale = rng.choice([1.0, 1e-3, 64.0] if kind == "f16" else [1.0, 1e-3, 1e4, 1e30], shape)
    value = rng.standard_normal(shape) * scale
    special = np.array([np.nan, -0.0, 0.0] if kind == "f16" else [np.nan, -0.0, 0.0, np.inf, -np.inf])
    picks = rng.random(shape) < 0.08
    value[picks] = rng.choice(special, int(picks.sum()))
    if rng.random() < 0.1:  # now and then all -0.0: each sum is +0.0 (of a 1x1 kernel too)
        value = np.full(shape, -0.0)
    return value.astype(kind.replace("f", "float"))


def col2im_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` Col2Im-15 layers, the types of ``TYPES`` in turn: kernels of 1 to 4 by 1 to 3, strides 1 to 3 and
    dilations 1 to 3 (windows overlapping, touching, or with gaps between them), pads 0 to 2 at either end (blocks
    beyond the output dropped), batched ([N, C*K, L]) and unbatched ([C*K, L]) data, i32 or i64 sizes; one input in
    four of dynamic batch and channels. Returns the model and its inputs."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    params, results, fed = [], [], {}
    made = 0
    while made < cases:
        kind = TYPES[made % len(TYPES)]
        kernel = [int(rng.integers(1, 5)), int(rng.integers(1, 4))]
        strides, dilations = ([int(v) for v in rng.integers(1, 4, 2)] for _ in range(2))
        pads_begin, pads_end = ([int(v) for v in rng.integers(0, 3, 2)] for _ in range(2))
        span = [dilations[a] * (kernel[a] - 1) + 1 for a in (0, 1)]
        size = [int(rng.integers(max(1, span[a] - pads_begin[a] - pads_end[a]), 14)) for a in (0, 1)]
        blocks = [(size[a] + pads_begin[a] + pads_end[a] - span[a]) // strides[a] + 1 for a in (0, 1)]
        if min(blocks) < 1:
            continue
        channels, batch = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        rows, length = channels * kernel[0] * kernel[1], blocks[0] * blocks[1]
        shape = (batch, rows, length) if made % 2 else (rows, length)
        name = f"x{made}"
        dims = [-1 if made % 4 == 3 and axis < len(shape) - 1 else d for axis, d in enumerate(shape)]
        param = o1.parameter(dims, np.dtype(kind.replace("i", "int").replace("f", "float")), name=name)
        params.append(param)
        fed[name] = _data(rng, kind, shape)
        index = np.int32 if made % 3 else np.int64
        fold = o15.col2im(param, o1.constant(np.array(size, index)), o1.constant(np.array(kernel, index)), strides,
                          dilations, pads_begin, pads_end, name=f"fold{made}")
        results.append(o1.result(fold, name=f"y{made}"))
        made += 1
    ov.save_model(ov.Model(results, params, "col2im"), str(path), compress_to_fp16=False)
    return path, fed


def test_col2im_15_migrated_for_2023_0_runs_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """320 seeded Col2Im-15 layers: the same values, bit for bit, on 2023.0 and the current OpenVINO."""
    model, fed = col2im_model(tmp_path / "fold.xml", np.random.default_rng(15), 320)
    out, printed = migrate(model, capsys)
    assert "rewrote 320 x Col2Im-15 -> Gather-1 + Split-1 + Add-1" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed) == 320


def test_col2im_15_fold_network_checked_on_2023_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A network as torch's nn.Fold exports it (input dims all dynamic, strides and pads given, the block computed
    before it): ``check --target 2023.0`` says migrate rewrites it, and ``migrate --target 2023.0 --check-with``
    the 2023.0 interpreter compares them equal."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    x = o1.parameter([-1, -1, -1], np.float32, name="x")
    scaled = o1.multiply(x, o1.constant(np.array(0.5, np.float32)))
    fold = o15.col2im(scaled, o1.constant(np.array([8, 8], np.int64)), o1.constant(np.array([3, 3], np.int64)),
                      [2, 2], [1, 1], [1, 1], [1, 1], name="fold")
    model = tmp_path / "fold_net.xml"
    ov.save_model(ov.Model([o1.result(o1.relu(fold), name="y")], [x], "fold_net"), str(model))
    assert_network_proved(model, "into Reshape-1, Pad-1, Transpose-1, Gather-1", "x:2,18,16", 256, capsys)


@pytest.mark.parametrize("case", ["kernel_fed", "rank", "i8", "bf16"])
def test_col2im_15_left_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    """A kernel_size fed by an input (the indices are constants), data of a dynamic rank (batched or not cannot be
    told), i8 data (Col2Im wraps where Add saturates) and bf16 data (summed otherwise): no rewrite, so migrate
    --target 2023.0 refuses."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    element = {"i8": np.int8}.get(case, np.float32)
    x = o1.parameter(ov.PartialShape.dynamic() if case == "rank" else [1, 4, 9], element, name="x")
    params = [x]
    data = o1.convert(x, "bf16") if case == "bf16" else x
    kernel = o1.constant(np.array([2, 2], np.int64))
    if case == "kernel_fed":
        kernel = o1.parameter([2], np.int64, name="kernel")
        params.append(kernel)
    fold = o15.col2im(data, o1.constant(np.array([4, 4], np.int64)), kernel, name="fold")
    model = tmp_path / "left.xml"
    ov.save_model(ov.Model([o1.result(fold)], params, "left"), str(model))
    assert_refused(model, "fold", "Col2Im of opset15", capsys)
