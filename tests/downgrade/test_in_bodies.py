"""Layers inside TensorIterator, Loop and If bodies migrated with --target (passes/in_bodies.py): the downgrades of the
top level, inside every body, a body inside a body too; the written file run on the target and on the current
OpenVINO, against the current OpenVINO on the original.

One model: an If (a runtime condition) whose then body holds ScaledDotProductAttention-13 with a boolean mask (2024.0
computes it inverted, a measured defect) and whose else body holds Squeeze-15 (GroupNormalization-12 cannot stand
there: OpenVINO 2026.4's CPU plugin refuses it inside a body, "evaluate() is not implemented"); a Loop whose body
holds Pad-12 with a negative pad (Pad-1 and a StridedSlice, Consts the rewrite adds inside the body) and
Identity-16; a TensorIterator whose body holds MaxPool-14 ceil_torch; a Loop whose body holds an If whose bodies
hold Pad-12 and Identity-16. Exact ops are compared exactly, SDPA within its rounding bound
(tests/downgrade/test_attention.py); each If run with each condition.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from tests.downgrade.runs import NEEDS_2023, migrate
from tests.downgrade.test_attention import Case, exact_and_bound
from tests.ops.control_flow_cases import if_of
from tests.test_target import side_pythons

pytestmark = NEEDS_2023

F32 = np.float32


def bodies_model(path: Path, rng: np.random.Generator) -> tuple[Path, dict[str, np.ndarray]]:
    """The module's model; returns its path and its inputs (the Ifs' conditions true)."""
    import openvino as ov
    import openvino.opset8 as o
    import openvino.opset12 as o12
    import openvino.opset13 as o13
    import openvino.opset14 as o14
    import openvino.opset15 as o15
    import openvino.opset16 as o16

    feed: dict[str, np.ndarray] = {}
    params = []

    def param(name: str, value: np.ndarray) -> ov.Node:
        node = o.parameter(list(value.shape), value.dtype, name=name)
        node.output(0).get_tensor().set_names({name})
        params.append(node)
        feed[name] = value
        return node

    def pad12(x: ov.Output, begin: list[int], end: list[int]) -> ov.Node:
        return o12.pad(x, o.constant(np.array(begin, np.int64)), o.constant(np.array(end, np.int64)), "constant")

    # If: SDPA-13 (boolean mask) | Squeeze-15
    keep = rng.random((4, 6)) < 0.7
    keep[:, 0] = True
    q, k, v, mask = (param(n, a) for n, a in (("q", rng.standard_normal((2, 4, 8)).astype(F32) * 2),
                                               ("k", rng.standard_normal((2, 6, 8)).astype(F32) * 2),
                                               ("v", rng.standard_normal((2, 6, 5)).astype(F32)), ("mask", keep)))
    g, cond = param("g", rng.standard_normal((2, 4, 1, 5)).astype(F32)), param("cond", np.array(True))
    tq, tk, tv, tm = (o.parameter(list(feed[n].shape), feed[n].dtype) for n in ("q", "k", "v", "mask"))
    then = ov.Model([o.result(o13.scaled_dot_product_attention(tq, tk, tv, tm, name="sdpa"))], [tq, tk, tv, tm])
    eg = o.parameter([2, 4, 1, 5], F32)
    orelse = ov.Model([o.result(o15.squeeze(eg, o.constant(np.array([2], np.int64)), name="squeeze"))], [eg])
    branch = o.if_op(cond.output(0))
    branch.set_friendly_name("branch")
    branch.set_then_body(then)
    branch.set_else_body(orelse)
    for outer, inner in zip((q, k, v, mask), (tq, tk, tv, tm), strict=True):
        branch.set_input(outer.output(0), inner, None)
    branch.set_input(g.output(0), None, eg)
    outputs = {"attention": branch.set_output(then.results[0], orelse.results[0])}

    # Loop: Pad-12 (a negative pad) and Identity-16, three iterations
    x = param("x", rng.standard_normal((2, 5)).astype(F32))
    xi = o.parameter([2, 5], F32)
    step = o16.identity(o.add(pad12(xi, [0, -1], [0, 1]), xi), name="identity")
    body = ov.Model([o.result(step), o.result(o.constant(True))], [xi])
    loop = o.loop(o.constant(np.int64(3)), o.constant(True))
    loop.set_friendly_name("loop")
    loop.set_function(body)
    loop.set_special_body_ports([-1, 1])
    loop.set_merged_input(xi, x.output(0), body.results[0].output(0))
    outputs["loop"] = loop.get_iter_value(body.results[0].output(0), -1)

    # TensorIterator: MaxPool-14 ceil_torch on each part of two channels
    t = param("t", rng.standard_normal((1, 6, 7)).astype(F32))
    ti_x = o.parameter([1, 2, 7], F32)
    pooled = o14.max_pool(ti_x, [2], [1], [0], [0], [2], "ceil_torch", "explicit", name="pool").output(0)
    ti_body = ov.Model([o.result(pooled)], [ti_x])
    ti = o.tensor_iterator()
    ti.set_friendly_name("ti")
    ti.set_body(ti_body)
    ti.set_sliced_input(ti_x, t.output(0), 0, 2, 2, -1, 1)
    outputs["ti"] = ti.get_concatenated_slices(ti_body.results[0].output(0), 0, 2, 2, -1, 1)

    # a Loop whose body holds an If: Pad-12 | Identity-16, two iterations
    n, inner_cond = param("n", rng.standard_normal((3, 4)).astype(F32)), param("inner_cond", np.array(True))
    ni, ci = o.parameter([3, 4], F32), o.parameter([], np.bool_)
    a, b = o.parameter([3, 4], F32), o.parameter([3, 4], F32)
    inner_then = ov.Model([o.result(pad12(a, [-1, 0], [1, 0]))], [a])
    inner_else = ov.Model([o.result(o16.identity(o.multiply(b, o.constant(F32(2)))))], [b])
    made = if_of(ci.output(0), ni.output(0), inner_then, inner_else, "inner")
    outer_body = ov.Model([o.result(made), o.result(o.constant(True))], [ni, ci])
    nest = o.loop(o.constant(np.int64(2)), o.constant(True))
    nest.set_friendly_name("nest")
    nest.set_function(outer_body)
    nest.set_special_body_ports([-1, 1])
    nest.set_merged_input(ni, n.output(0), outer_body.results[0].output(0))
    nest.set_invariant_input(ci, inner_cond.output(0))
    outputs["nest"] = nest.get_iter_value(outer_body.results[0].output(0), -1)

    results = []
    for name, out in outputs.items():
        result = o.result(out, name=f"{name}/result")
        result.output(0).get_tensor().set_names({name})
        results.append(result)
    ov.save_model(ov.Model(results, params, "bodies"), str(path), compress_to_fp16=False)
    return path, feed


def _runs(model: Path, out: Path, target: str, feed: dict[str, np.ndarray]) -> dict[str, dict[str, np.ndarray]]:
    """The original on the current OpenVINO, the migrated file on ``target`` and on the current OpenVINO."""
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    migrated, files = ir_tools.read_valid(out), ModelFiles(out, out.with_suffix(".bin"))
    return {"original": OpenVinoRunner(ir_tools.read_valid(model), ModelFiles(model, model.with_suffix(".bin")))
            .run(feed),
            target: ChildOpenVinoRunner(side_pythons()[target], migrated, files).run(feed),
            "current": OpenVinoRunner(migrated, files).run(feed)}


@pytest.mark.parametrize("target", ["2023.0", "2024.0"])
def test_migrate_target_rewrites_inside_bodies(tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    """check --target names each layer inside a body at its own line, saying migrate rewrites it; migrate
    rewrites them (2024.0: the layers it cannot create, MaxPool-14 ceil_torch and Identity-16, and SDPA-13 with a
    boolean mask, which it computes inverted); the file written holds no E-TARGET and runs on the target and on the
    current OpenVINO as the current OpenVINO runs the original, with each condition of both Ifs."""
    if target not in side_pythons():
        pytest.skip(f"no OpenVINO {target}: set IR_TOOLS_RELEASE_PYTHONS")
    model, feed = bodies_model(tmp_path / "bodies.xml", np.random.default_rng(29))
    named = {d.loc.layer_name: d for d in ir_tools.check(model, openvino=False, target=target)}
    expected = {"ti/body/pool", "loop/body/identity", "nest/body/inner/else_body/Identity",
                "branch/else_body/squeeze"} | (
        {"branch/then_body/sdpa", "loop/body/Pad", "nest/body/inner/then_body/Pad"}
        if target == "2023.0" else {"branch/then_body/sdpa"})
    found = {re.sub(r"_\d+$", "", name) for name in named}
    assert found == expected, sorted(named)
    assert all(d.code == "E-TARGET" and "`ir-tools migrate --target` rewrites it" in d.message
               for d in named.values()), list(named.values())
    text = model.read_text().splitlines()  # (each at the start tag of the layer inside the body)
    assert all(f'name="{name.split("/")[-1]}"' in text[d.loc.line - 1] and "<layer " in text[d.loc.line - 1]
               for name, d in named.items()), [(name, d.loc.line) for name, d in named.items()]

    out, printed = migrate(model, capsys, target)
    rewrote = re.findall(r"rewrote (\d+) x (.+) \(inside bodies\)", printed)
    assert sum(int(count) for count, _ in rewrote) == len(expected), printed
    assert "MaxPool-14 (ceil_torch" in printed and "Identity-16" in printed
    for cond in (True, False):
        for inner_cond in (True, False):
            fed = {**feed, "cond": np.array(cond), "inner_cond": np.array(inner_cond)}
            runs = _runs(model, out, target, fed)
            want = runs.pop("original")
            for run, got in runs.items():
                assert set(got) == set(want) == {"attention", "loop", "ti", "nest"}
                for name in ("loop", "ti", "nest", *(() if cond else ("attention",))):
                    np.testing.assert_array_equal(got[name], want[name], err_msg=f"{run}: {name}", strict=True)
                if not cond:
                    continue
                limit = 2.0 * exact_and_bound(Case([fed[n] for n in ("q", "k", "v", "mask")], False, ()))[1]
                excess = np.abs(got["attention"].astype(np.float64) - want["attention"]) / limit
                assert got["attention"].shape == want["attention"].shape and np.all(excess <= 1.0), \
                    (run, cond, float(excess.max()))


def test_what_has_no_form_inside_a_body_is_still_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Multinomial-13 (no rewrite; 2023.2 the first to create it) in an If inside a Loop's body, beside a Pad-12 with
    a negative pad (rewritten): migrate --target 2023.0 refuses the file, E-TARGET at the line of the layer
    inside (after the Pad's rewrite too), naming it, nothing written; check --target says there is no rewrite for it."""
    import openvino as ov
    import openvino.opset8 as o
    import openvino.opset12 as o12
    import openvino.opset13 as o13

    x = o.parameter([3, 4], F32, name="x")
    xi, a, b = (o.parameter([3, 4], F32) for _ in range(3))
    then = ov.Model([o.result(o12.pad(a, o.constant(np.array([-1, 0])), o.constant(np.array([1, 0])), "constant"))],
                    [a])
    orelse = ov.Model([o.result(o13.multinomial(b, o.constant(np.int64(4)), "f32", False, False, 7, 7,
                                                name="fake"))], [b])
    body = ov.Model([o.result(if_of(o.constant(True), xi.output(0), then, orelse, "inner")),
                     o.result(o.constant(True))], [xi])
    loop = o.loop(o.constant(np.int64(2)), o.constant(True))
    loop.set_friendly_name("loop")
    loop.set_function(body)
    loop.set_special_body_ports([-1, 1])
    loop.set_merged_input(xi, x.output(0), body.results[0].output(0))
    model = tmp_path / "fake.xml"
    ov.save_model(ov.Model([loop.get_iter_value(body.results[0].output(0), -1)], [x], "fake"), str(model))
    (left,) = [d for d in ir_tools.check(model, openvino=False, target="2023.0")
               if d.loc.layer_name == "loop/body/inner/else_body/fake"]
    assert "cannot create Multinomial of opset13" in left.message and "no rewrite for it" in left.message
    out = tmp_path / "fake_2023.0.xml"
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    line = next(i for i, text in enumerate(model.read_text().splitlines(), 1) if ' name="fake" type=' in text)
    assert re.search(rf"fake\.xml:{line}: error\[E-TARGET\]: layer 'loop/body/inner/else_body/fake' .*Multinomial "
                     r"of opset13", err), err
    assert "Pad of opset12" not in err and not out.exists()


def test_two_layers_of_one_name_inside_a_body_are_renamed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A Loop whose body holds two layers named 'dup': OpenVINO 2023.0 refuses the file ("Invalid IR! dup name is
    not unique!"), which check --target 2023.0 passed and migrate --target 2023.0 left ("nothing to migrate"):
    UniqueNames looked at the top level only. Now check names it at its line in the body, and migrate renames one; the
    written file runs on 2023.0 equal to the current OpenVINO on the original."""
    import openvino as ov
    import openvino.opset8 as o

    from tests.downgrade.runs import assert_runs_equal

    x = o.parameter([2, 4], F32, name="x")
    xi = o.parameter([2, 4], F32)
    body = ov.Model([o.result(o.exp(o.relu(xi, name="dup"), name="dup")), o.result(o.constant(True))], [xi])
    loop = o.loop(o.constant(np.int64(2)), o.constant(True))
    loop.set_friendly_name("loop")
    loop.set_function(body)
    loop.set_special_body_ports([-1, 1])
    loop.set_merged_input(xi, x.output(0), body.results[0].output(0))
    model = tmp_path / "dup.xml"
    ov.save_model(ov.Model([loop.get_iter_value(body.results[0].output(0), -1)], [x], "dup"), str(model))
    (found,) = [d for d in ir_tools.check(model, openvino=False, target="2023.0") if d.severity == "error"]
    assert found.loc.layer_name == "loop/body/dup" and "refuses two layers named 'dup'" in found.message
    first, second = [i for i, text in enumerate(model.read_text().splitlines(), 1)
                     if "<layer " in text and 'name="dup"' in text]  # (each at its own line in the body)
    assert found.loc.line == second and f"(the first is id 2, at line {first})" in found.message
    out, printed = migrate(model, capsys)
    assert "a layer name used twice -> made unique (inside bodies)" in printed
    assert_runs_equal(model, out)
