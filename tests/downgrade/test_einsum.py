"""Einsum-7 with an ellipsis migrated for OpenVINO 2023.0 (passes/downgrade/einsum.py: the ellipsis spelled as
letters, ``einsum_ellipsis_not_compiled``): 2023.0 to 2025.0 read it but do not compile it ("Unsupported operation of
type: Einsum"), or refuse it when two inputs hold an ellipsis. Run on 2023.0 and on the current OpenVINO, equal to the
current OpenVINO on the original within f32 rounding (dims under the ellipsis that may broadcast are broadcast
first); a diagonal (a label repeated in one input), which those releases do not compile either, and an ellipsis over
a dynamic rank are refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from tests.downgrade.runs import NEEDS_2023, assert_refused, migrate, migrated_runs

pytestmark = NEEDS_2023

#: (equation, declared input shapes (-1: a dynamic dim), the shapes run): an ellipsis in one input, in both (of one
#: rank and of two; dims equal, static and dynamic, and broadcast: a 1 against another length, declared or fed),
#: implicit mode, an ellipsis standing for no dim, and beside a label of its own.
CASES = [
    ("...ij,jk->...ik", [[2, 3, 4, 5], [5, 6]], None),
    ("...ij,jk->...ik", [[-1, 3, 4, 5], [5, 6]], [[2, 3, 4, 5], [5, 6]]),
    ("...ij,...jk->...ik", [[2, 3, 4, 5], [2, 3, 5, 6]], None),
    ("...ij,...jk->...ik", [[2, 3, 4, 5], [3, 5, 6]], None),
    ("...ij,...jk->...ik", [[2, 4, 5], [1, 5, 6]], None),
    ("...ij,...jk->...ik", [[-1, 4, 5], [-1, 5, 6]], [[2, 4, 5], [2, 5, 6]]),
    ("...ij,...jk->...ik", [[-1, 4, 5], [-1, 5, 6]], [[1, 4, 5], [3, 5, 6]]),
    ("...pd,...qd->...pq", [[-1, 6, 4], [-1, -1, -1]], [[2, 6, 4], [2, 3, 4]]),
    ("...d,...d->...", [[2, 3, 4], [2, 3, 4]], None),
    ("...d,...d->...", [[2, 1, 4], [3, 4]], None),
    ("...ij,jk", [[3, 4, 5], [5, 2]], None),
    ("...ij,jk->ik...", [[4, 5], [5, 2]], None),
    ("b...d,bd->b...", [[2, 3, 4, 5], [2, 5]], None),
    ("...i->i...", [[2, 3, 4]], None),
]


def einsum_model(path: Path, rng: np.random.Generator) -> tuple[Path, dict[str, np.ndarray]]:
    """One Einsum-7 per ``CASES`` on Parameters (f32), each its own output; the path and seeded inputs."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset7 as o7

    params, results, inputs = [], [], {}
    for i, (equation, shapes, run) in enumerate(CASES):
        operands = []
        for j, shape in enumerate(shapes):
            name = f"x{i}_{j}"
            operands.append(o1.parameter(shape, np.float32, name=name))
            inputs[name] = rng.standard_normal(run[j] if run else shape).astype(np.float32)
        params += operands
        results.append(o1.result(o7.einsum(operands, equation), name=f"y{i}"))
    ov.save_model(ov.Model(results, params, "einsums"), str(path), compress_to_fp16=False)
    return path, inputs


def test_einsum_with_an_ellipsis_runs_on_2023(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model, inputs = einsum_model(tmp_path / "einsums.xml", np.random.default_rng(7))
    assert main(["check", str(model), "--target", "2025.0", "--no-openvino"]) == 1
    assert f"{len(CASES)} error(s)" in capsys.readouterr().out
    out, printed = migrate(model, capsys)
    assert "rewrote 9 x Einsum-7 (an ellipsis) -> Einsum-7 of letters" in printed
    assert "rewrote 5 x Einsum-7 (an ellipsis) -> Broadcast-3 + Einsum-7 of letters" in printed
    assert not any("..." in layer.attrs["equation"] for layer in ir_tools.read_ir(out).by_type("Einsum"))
    want, runs = migrated_runs(model, out, inputs)
    for runner, got in runs.items():
        assert set(got) == set(want) and len(want) == len(CASES)
        for name, value in want.items():
            assert got[name].dtype == value.dtype and got[name].shape == value.shape, (runner, name)
            np.testing.assert_allclose(got[name], value, rtol=0, atol=1e-5 * float(np.abs(value).max()),
                                       err_msg=f"{runner}: {name}")


@pytest.mark.parametrize(("equation", "shapes", "why"), [
    ("bii->bi", [[2, 3, 3]], "a label is repeated in one input"),
    ("...ij,jk->...ik", [None, [5, 6]], "an input under '...' has a dynamic rank"),
])
def test_einsum_left_as_it_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], equation: str,
                                      shapes: list[list[int] | None], why: str) -> None:
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset7 as o7

    params = [o1.parameter(ov.PartialShape.dynamic() if shape is None else shape, np.float32, name=f"x{j}")
              for j, shape in enumerate(shapes)]
    path = tmp_path / "einsum.xml"
    ov.save_model(ov.Model([o7.einsum(params, equation, name="e")], params, "einsum"), str(path))
    assert_refused(path, "e", "Einsum", capsys)
    assert main(["check", str(path), "--target", "2024.0", "--no-openvino"]) == 1
    printed = capsys.readouterr().out
    assert "no rewrite applies to this layer: " in printed and why in printed


def test_einsum_without_an_ellipsis_is_left(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Letters alone (every release compiles them), and an ellipsis for a release without the defect: nothing to do."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset7 as o7

    a, b = o1.parameter([2, 3, 4], np.float32, name="a"), o1.parameter([4, 5], np.float32, name="b")
    path = tmp_path / "plain.xml"
    ov.save_model(ov.Model([o7.einsum([a, b], "bij,jk->bik")], [a, b], "plain"), str(path))
    assert main(["check", str(path), "--target", "2023.0", "--no-openvino"]) == 0
    ellipsis = tmp_path / "ellipsis.xml"
    ov.save_model(ov.Model([o7.einsum([a, b], "...ij,jk->...ik")], [a, b], "ellipsis"), str(ellipsis))
    assert main(["check", str(ellipsis), "--target", "2025.1", "--no-openvino"]) == 0


def test_an_equation_openvino_refuses_is_named_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An equation OpenVINO refuses ("..ij"): ``check --target`` names it at its layer (E-OP, exit 1), as ``check``
    does; asking whether the defect hits it raised the parse's error out of the target's checks (exit 2, no layer)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset7 as o7

    a, b = o1.parameter([2, 3, 4], np.float32, name="a"), o1.parameter([4, 5], np.float32, name="b")
    path = tmp_path / "refused.xml"
    ov.save_model(ov.Model([o7.einsum([a, b], "...ij,jk->...ik", name="e")], [a, b], "refused"), str(path))
    path.write_text(path.read_text().replace('equation="...ij,jk->...ik"', 'equation="..ij,jk->ik"'))
    assert main(["check", str(path), "--target", "2024.0", "--no-openvino"]) == 1
    printed = capsys.readouterr().out
    assert "layer 'e' (id 2, Einsum@opset7): input subscript '..ij' must be letters" in printed, printed
