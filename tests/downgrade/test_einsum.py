"""Einsum-7 with an ellipsis or a diagonal (a label repeated in one input) migrated for OpenVINO 2023.0
(passes/downgrade/einsum.py: the diagonal taken by Transpose-1 and Gather-7, the ellipsis spelled as letters,
``einsum_ellipsis_not_compiled``): 2023.0 to 2025.0 read it but do not compile it ("Unsupported operation of type:
Einsum"), or refuse it when two inputs hold an ellipsis. Run on 2023.0 and on the current OpenVINO, equal to the
current OpenVINO on the original within f32 rounding (dims under the ellipsis that may broadcast are broadcast
first), and the seeded conformance cases of Einsum-7 that hold either within twice their rounding bound; an ellipsis
over a dynamic rank is refused."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from ir_tools.ops.matmul import EINSUM_7, ELLIPSIS, parse_equation
from tests.downgrade.runs import NEEDS_2023, assert_refused, migrate, migrated_runs
from tests.ops.test_einsum_conformance import kernel_case
from tests.ops.verdicts import mismatch, rule_limits

pytestmark = NEEDS_2023

#: (equation, declared input shapes (-1: a dynamic dim), the shapes run): an ellipsis in one input, in both (of one
#: rank and of two; dims equal, static and dynamic, and broadcast: a 1 against another length, declared or fed),
#: implicit mode, an ellipsis standing for no dim, and beside a label of its own, after one broadcast, broadcast
#: beside one of no dim, and the identity; diagonals: a trace, of a batch, of
#: dynamic dims, of three axes, two in one input, beside an ellipsis and under a product; labels that broadcast (a
#: summed one, a kept one, beside an ellipsis).
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
    ("b...d,b...d->b...", [[2, 1, 4], [2, 3, 4]], None),
    ("...d,...d,...d->...", [[1, 4], [3, 4], [4]], None),
    ("...->...", [[2, 3]], None),
    ("ii->", [[5, 5]], None),
    ("bii->bi", [[-1, -1, -1]], [[2, 3, 3]]),
    ("iii->i", [[3, 3, 3]], None),
    ("ijij->ij", [[2, 3, 2, 3]], None),
    ("i...i->...", [[3, 2, 5, 3]], None),
    ("ij,jii->j", [[3, 4], [4, 3, 3]], None),
    ("ij,jk->ik", [[2, 1], [3, 4]], None),
    ("bij,bjk->bik", [[1, 2, 3], [2, 3, 4]], None),
    ("...ij,jk->...ik", [[2, 3, 1], [4, 5]], None),
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
    diagonal = "Transpose-1 + Gather-7 + "
    for count, what in [(8, "(an ellipsis) -> Einsum-7 of letters"), (1, "(an ellipsis) -> Transpose-1"),
                        (1, "(an ellipsis) -> Reshape-1"), (7, "(an ellipsis) -> Broadcast-3 + Einsum-7 of letters"),
                        (2, f"(a diagonal) -> {diagonal}Einsum-7 of letters"),
                        (1, f"(a diagonal) -> {diagonal}Reshape-1"), (2, f"(a diagonal) -> {diagonal}Transpose-1"),
                        (1, f"(an ellipsis and a diagonal) -> {diagonal}Einsum-7 of letters"),
                        (2, "(labels broadcast) -> Broadcast-3 + Einsum-7 of letters"),
                        (1, "(an ellipsis and labels broadcast) -> Broadcast-3 + Einsum-7 of letters")]:
        assert f"rewrote {count} x Einsum-7 {what}\n" in printed, printed
    assert not any(_distinct(layer.attrs["equation"]) is False for layer in ir_tools.read_ir(out).by_type("Einsum"))
    want, runs = migrated_runs(model, out, inputs)
    for runner, got in runs.items():
        assert set(got) == set(want) and len(want) == len(CASES)
        for name, value in want.items():
            assert got[name].dtype == value.dtype and got[name].shape == value.shape, (runner, name)
            np.testing.assert_allclose(got[name], value, rtol=0, atol=1e-5 * float(np.abs(value).max()),
                                       err_msg=f"{runner}: {name}")


def _distinct(equation: str) -> bool:
    """Whether an equation is of distinct letters alone in each input (no ellipsis, no diagonal)."""
    return all(ELLIPSIS not in labels and len(set(labels)) == len(labels) for labels in parse_equation(equation)[0])


def _stretched(equation: str, xs: list[np.ndarray]) -> bool:
    """Whether a label is of length 1 in one input and longer in another (labels that broadcast)."""
    lengths: dict[str, set[int]] = {}
    for x, labels in zip(xs, parse_equation(equation)[0], strict=True):
        start = labels.index(ELLIPSIS) if ELLIPSIS in labels else len(labels)
        after = len(labels) - start - 1 if ELLIPSIS in labels else 0
        own = labels[:start] + labels[start + 1:]
        for label, n in zip(own, x.shape[:start] + x.shape[x.ndim - after:], strict=True):
            lengths.setdefault(label, set()).add(n)
    return any(1 in found and len(found) > 1 for found in lengths.values())


def _compiled(core: object, equation: str, xs: list[np.ndarray]) -> bool:
    """Whether the current OpenVINO CPU compiles an Einsum-7 of ``equation`` on inputs like ``xs`` (some diagonals
    it does not: "broadcast_merge_into" fails in its EinsumDecomposition, as "yj,p...yy,Oyr->rpOy..." of a label
    ``y`` of length 1 in one input and 3 in others, or "aba,a->..." of f16)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset7 as o7

    params = [o1.parameter(list(x.shape), x.dtype) for x in xs]
    try:
        core.compile_model(ov.Model([o7.einsum(params, equation)], params), "CPU")  # type: ignore[attr-defined]
    except RuntimeError:
        return False
    return True


def test_einsum_conformance_cases_run_on_2023(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The seeded Einsum-7 conformance cases (tests/ops/test_einsum_conformance.py: equations real exporters emit and
    random ones, f32, f16 and i32) that hold an ellipsis, a diagonal or labels that broadcast, 300 of them in one
    model: migrated for
    2023.0, each output on 2023.0 and on the current OpenVINO within twice the op's rounding bound of the current
    OpenVINO's on the original (each within it of the exact value; integers equal). Not drawn: a scalar input (under
    an ellipsis, the IR writes it as it writes a dynamic rank, which the rewrite declines; of no label, 2023.0 refuses
    to read the equation: "Equation must contain a number of subscripts equal to a number of Einsum inputs") and what
    the current OpenVINO does not compile (``_compiled``)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset7 as o7

    rng, core = np.random.default_rng(7), ov.Core()
    params, results, inputs, limits = [], [], {}, []
    while len(results) < 300:
        dtype = (np.float32, np.float16, np.int32)[len(results) % 3]
        equation, xs = kernel_case(rng, dtype)
        if _distinct(equation) and not _stretched(equation, xs) or any(x.ndim == 0 for x in xs) or \
                not _compiled(core, equation, xs):
            continue
        i = len(results)
        operands = [o1.parameter(list(x.shape), x.dtype, name=f"x{i}_{j}") for j, x in enumerate(xs)]
        inputs |= {f"x{i}_{j}": x for j, x in enumerate(xs)}
        params += operands
        results.append(o1.result(o7.einsum(operands, equation), name=f"y{i}"))
        limits.append((equation, rule_limits(EINSUM_7, {"equation": equation}, xs)[0]))
    model = tmp_path / "conformance.xml"
    ov.save_model(ov.Model(results, params, "conformance"), str(model), compress_to_fp16=False)
    out, printed = migrate(model, capsys)
    assert sum(int(n) for n in re.findall(r"rewrote (\d+) x Einsum-7", printed)) == 300, printed
    want, runs = migrated_runs(model, out, inputs)
    for runner, got in runs.items():
        failures = [f"{equation}: {problem}" for i, (equation, limit) in enumerate(limits)
                    if (problem := mismatch(got[f"y{i}"], want[f"y{i}"], lambda w, limit=limit: 2.0 * limit(w)))]
        assert not failures, f"{runner}: {len(failures)} of 300 differ:\n" + "\n".join(failures[:20])


@pytest.mark.parametrize(("equation", "shapes", "why"), [
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
