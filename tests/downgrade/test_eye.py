"""Eye-9 migrated for 2022.1 (opset8, no opset9) as Range-4, Subtract-1, Equal-1, Convert-1 and Broadcast-3
(passes/downgrade/eye.py): run on OpenVINO 2023.0 and the current one equal to the current OpenVINO on the original,
every output, dtype included."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.downgrade.runs import NEEDS_2023, assert_runs_equal, migrate

pytestmark = NEEDS_2023

#: Output types of Eye (i64 and i32 among them: 2022.1's IR v11 keeps them).
TYPES = ("f32", "f16", "i32", "i64", "i8", "u8", "boolean", "f64")


def eye_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` Eye-9 layers: 1 to 9 rows and columns, a diagonal index from beyond the left edge to beyond the right,
    i32 or i64 inputs, scalars or of one element, Consts or fed (one case in four), every output type in turn, and
    batch_shape none, [2] or [2, 3] (a Const, or fed)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset9 as o9

    params, results, fed = [], [], {}
    for i in range(cases):
        index = (np.int32, np.int64)[i // len(TYPES) % 2]
        rows, columns = (int(n) for n in rng.integers(1, 10, 2))
        values = [rows, columns, int(rng.integers(-columns - 2, columns + 3))]
        inputs = []
        for what, value in zip(("rows", "columns", "diagonal"), values, strict=True):
            array = np.array(value if i % 3 else [value], index)
            if i % 4 == 1:
                inputs.append(o1.parameter(list(array.shape), index, name=f"{what}{i}"))
                params.append(inputs[-1])
                fed[f"{what}{i}"] = array
            else:
                inputs.append(o1.constant(array))
        batch = [None, [2], [2, 3]][i % 3]
        if batch is not None:
            array = np.array(batch, index)
            if i % 5 == 2:
                inputs.append(o1.parameter([len(batch)], index, name=f"batch{i}"))
                params.append(inputs[-1])
                fed[f"batch{i}"] = array
            else:
                inputs.append(o1.constant(array))
        eye = o9.eye(*inputs[:3], TYPES[i % len(TYPES)], inputs[3] if len(inputs) > 3 else None, name=f"eye{i}")
        results.append(o1.result(eye, name=f"y{i}"))
    ov.save_model(ov.Model(results, params, "eye"), str(path), compress_to_fp16=False)
    return path, fed


def test_eye_9_migrated_for_2022_1_runs_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """300 seeded Eye-9 layers: the same values and dtype on 2023.0 and the current OpenVINO."""
    model, fed = eye_model(tmp_path / "eye.xml", np.random.default_rng(9), 300)
    out, printed = migrate(model, capsys, "2022.1")
    assert "rewrote 300 x Eye-9 -> Range-4 + Equal-1 + Convert-1" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed) == 300
