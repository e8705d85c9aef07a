"""NonMaxSuppression-9 as -5 and MulticlassNms-9 as -8, respelled (passes/downgrade/same_op.py), migrated for 2022.1
(the one release of the table with opset8 and without opset9: for 2021.4 the same rewrite, then IR v10, which 2023.0
reads with i64 outputs made i32): run on OpenVINO 2023.0 and the current one equal to the current OpenVINO on the
original, every output."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ir_tools.cli import main
from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, migrate

pytestmark = NEEDS_2023


def _boxes(rng: np.random.Generator, i: int, params: list, fed: dict[str, np.ndarray]) -> tuple:
    """Corner boxes and scores of a drawn batch, class count and box count (every third case's scores in quarters:
    ties), as Parameters named for case ``i``, their values put in ``fed``."""
    import openvino.opset1 as o1

    batch, count, classes = int(rng.integers(1, 3)), int(rng.integers(1, 30)), int(rng.integers(1, 4))
    corner = rng.uniform(0, 10, [batch, count, 2])
    fed[f"boxes{i}"] = np.concatenate([corner, corner + rng.uniform(0.5, 4, [batch, count, 2])], -1).astype(np.float32)
    scores = rng.uniform(0, 1, [batch, classes, count]).astype(np.float32)
    fed[f"scores{i}"] = np.round(scores * 4) / 4 if i % 3 == 0 else scores
    made = (o1.parameter([batch, count, 4], np.float32, name=f"boxes{i}"),
            o1.parameter([batch, classes, count], np.float32, name=f"scores{i}"))
    params += made
    return made


def nms_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` NonMaxSuppression-9 layers: every attribute drawn (corner boxes, sorted or not, i32 or i64 output),
    soft NMS (a sigma) on odd cases, each output a model output."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset9 as o9

    params: list = []
    results, fed = [], {}
    for i in range(cases):
        boxes, scores = _boxes(rng, i, params, fed)
        args = [boxes, scores, o1.constant(np.array(int(rng.integers(1, 10)), np.int64)),
                o1.constant(np.float32(rng.uniform(0.2, 0.7))), o1.constant(np.float32(rng.uniform(0, 0.3)))]
        if i % 2:
            args.append(o1.constant(np.float32(rng.uniform(0, 0.5))))
        nms = o9.non_max_suppression(*args, box_encoding="corner", sort_result_descending=bool(i % 4 < 2),
                                     output_type="i64" if i % 5 else "i32", name=f"nms{i}")
        results += [o1.result(nms.output(k), name=f"nms{i}_{k}") for k in range(3)]
    ov.save_model(ov.Model(results, params, "nms"), str(path), compress_to_fp16=False)
    return path, fed


def multiclass_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` MulticlassNms-9 layers of two inputs, every attribute drawn (no top-k of 0: 2023.0 refuses an output
    with a dim of 0)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset9 as o9

    params: list = []
    results, fed = [], {}
    for i in range(cases):
        boxes, scores = _boxes(rng, i, params, fed)
        nms = o9.multiclass_nms(boxes, scores, **_multiclass_attributes(rng, i), name=f"mc{i}")
        results += [o1.result(nms.output(k), name=f"mc{i}_{k}") for k in range(3)]
    ov.save_model(ov.Model(results, params, "multiclass"), str(path), compress_to_fp16=False)
    return path, fed


def _multiclass_attributes(rng: np.random.Generator, i: int) -> dict[str, object]:
    return dict(sort_result_type=("none", "classid", "score")[i % 3], sort_result_across_batch=bool(i % 2),
                output_type="i64" if i % 5 else "i32", iou_threshold=float(rng.uniform(0.2, 0.7)),
                score_threshold=float(rng.uniform(0, 0.3)), nms_top_k=int(rng.choice([-1, 2, 5, 9])),
                keep_top_k=int(rng.choice([-1, 1, 4, 9])), background_class=int(rng.integers(-1, 2)),
                nms_eta=(1.0, 0.7)[i % 2], normalized=bool(i % 4 < 2))


def test_non_max_suppression_9_migrated_for_2022_1_runs_equal(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """200 seeded NonMaxSuppression-9 layers, written NonMaxSuppression-5: the same three outputs on 2023.0 and the
    current OpenVINO."""
    model, fed = nms_model(tmp_path / "nms.xml", np.random.default_rng(9), 200)
    out, printed = migrate(model, capsys, "2022.1")
    assert "rewrote 200 x NonMaxSuppression-9 -> NonMaxSuppression-5" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed) == 600


def test_multiclass_nms_9_migrated_for_2022_1_runs_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """200 seeded MulticlassNms-9 layers of two inputs, written MulticlassNms-8 for 2022.1 (the one release with
    opset8 and without opset9); one with roisnum is refused, saying why."""
    model, fed = multiclass_model(tmp_path / "multiclass.xml", np.random.default_rng(8), 200)
    out, printed = migrate(model, capsys, "2022.1")
    assert "rewrote 200 x MulticlassNms-9 -> MulticlassNms-8" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed) == 600

    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset9 as o9

    inputs = [o1.parameter([2, 5, 4], np.float32, name="boxes"), o1.parameter([2, 5], np.float32, name="scores"),
              o1.parameter([3], np.int32, name="roisnum")]
    model = tmp_path / "roisnum.xml"
    nms = o9.multiclass_nms(*inputs, **_multiclass_attributes(np.random.default_rng(1), 0), name="mc")
    ov.save_model(ov.Model([o1.result(nms.output(k)) for k in range(3)], inputs, "roisnum"), str(model))
    assert main(["check", str(model), "--no-openvino", "--target", "2022.1"]) == 1
    assert "no rewrite applies to this layer: it has 3 inputs, which MulticlassNms-8 does not take" in \
        capsys.readouterr().out
    assert_refused(model, "mc", "MulticlassNms of opset9", capsys, "2022.1")
