"""If-8 of a condition known before it runs as its body (passes/downgrade/if_branch.py): for 2021.4, which has no
If-8, and for 2023.0 to 2025.4, which compile no If of an output of dynamic rank (``if_dynamic_rank_not_compiled``)
where the current OpenVINO folds it (optimum's DeBERTa-v2: NotEqual of a dim with itself); run equal to the current
OpenVINO on 2023.0. An If of an unknown condition is refused, saying why."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from tests.downgrade.runs import NEEDS_2023, assert_runs_equal, migrate
from tests.test_target import side_pythons

pytestmark = NEEDS_2023

#: The conditions: a comparison of a dim of the input's shape with itself (by op), or a Const.
KINDS = ("not_equal", "equal", "less", "greater", "less_equal", "greater_equal", "true", "false")
TAKES_THEN = {"equal", "less_equal", "greater_equal", "true"}


def if_model(path: Path, rng: np.random.Generator, cases: int, ranks_differ: bool, known: bool = True) -> Path:
    """``cases`` If-8 layers on inputs x [?,?,4,C] and m [1,1,?,?] (each their own), each condition of ``KINDS`` in
    turn (a Parameter's where not ``known``); the then body a Reshape of x (rank 3 where ``ranks_differ``, else 4)
    times a seeded Const, the else body Relu of m plus one; where ``ranks_differ``, every other If's output read by a
    Broadcast to its own ShapeOf (as DeBERTa-v2's, whose dims OpenVINO infers from the If's)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset3 as o3
    import openvino.opset8 as o8

    def i64(value: object) -> ov.Node:
        return o1.constant(np.array(value, np.int64))

    params, results = [], []
    for i in range(cases):
        channels = int(rng.integers(2, 9))
        x = o1.parameter([-1, -1, 4, channels], np.float32, name=f"x{i}")
        m = o1.parameter([1, 1, -1, -1], np.float32, name=f"m{i}")
        params += [x, m]
        kind = KINDS[i % len(KINDS)]
        if not known:
            condition = o1.parameter([], np.bool_, name=f"c{i}")
            params.append(condition)
        elif kind in ("true", "false"):
            condition = o1.constant(np.array(kind == "true"))
        else:
            dim = o1.squeeze(o8.gather(o3.shape_of(x, "i64"), i64([int(rng.integers(0, 2))]), i64(0)), i64([0]))
            condition = getattr(o1, kind)(dim, dim)
        then_x, else_m = o1.parameter([-1, -1, 4, channels], np.float32), o1.parameter([1, 1, -1, -1], np.float32)
        scale = o1.constant(rng.standard_normal(channels).astype(np.float32))
        shape = i64([1, -1, channels] if ranks_differ else [1, 1, -1, channels])
        then_body = ov.Model([o1.result(o1.multiply(o1.reshape(then_x, shape, True), scale))], [then_x])
        else_body = ov.Model([o1.result(o1.add(o1.relu(else_m), o1.constant(np.float32(1))))], [else_m])
        branch = o8.if_op(condition.output(0))
        branch.set_then_body(then_body)
        branch.set_else_body(else_body)
        branch.set_input(x.output(0), then_x, None)
        branch.set_input(m.output(0), None, else_m)
        out = branch.set_output(then_body.get_results()[0], else_body.get_results()[0])
        if ranks_differ and i % 2:  # (DeBERTa's: a layer our rules do not re-infer, of a dynamic rank until migrated)
            out = o3.broadcast(out, o3.shape_of(out, "i64"), "bidirectional").output(0)
        out.get_tensor().set_names({f"y{i}"})
        results.append(o1.result(out))
    ov.save_model(ov.Model(results, params, "ifs"), str(path), compress_to_fp16=False)
    return path


def _fed(model: Path, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Seeded inputs: x of [2..3, 1..4, 4, C], m of [1, 1, 1..4, 1..4]."""
    graph = ir_tools.read_valid(model)
    fed = {}
    for layer in graph.parameters():
        dims = layer.outputs[0].dims
        if layer.name.startswith("x"):
            shape = (int(rng.integers(2, 4)), int(rng.integers(1, 5)), 4, dims[-1])
        else:
            shape = (1, 1, *(int(v) for v in rng.integers(1, 5, 2)))
        fed[layer.name] = rng.standard_normal(shape).astype(np.float32)
    return fed


@pytest.mark.parametrize("target", ["2023.0", "2021.4"])
def test_if_of_a_known_condition_runs_as_its_body(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  target: str) -> None:
    """32 If layers of every condition kind. For 2023.0 those of an output of dynamic rank (the then body rank 3, the
    else rank 4), which 2023.0 does not compile: each of a comparison (a Const condition OpenVINO folds as it reads
    the model, giving the output the selected body's rank, which 2023.0 compiles: left); for 2021.4 every one, of
    one rank too (it has no If-8). The written model holds no If but those left, passes `check` with OpenVINO's
    verdict (the Broadcasts after the Ifs of a dynamic rank take OpenVINO's inference:
    ``verdict.refresh_rewritten``), and runs on 2023.0 and on the current OpenVINO equal to the current OpenVINO on
    the original (which folds each If)."""
    rng = np.random.default_rng(81)
    model = if_model(tmp_path / "ifs.xml", rng, 32, ranks_differ=target == "2023.0")
    out, printed = migrate(model, capsys, target)
    kinds = [KINDS[i % len(KINDS)] for i in range(32)]
    rewritten = [kind for kind in kinds if target == "2021.4" or kind not in ("true", "false")]
    taken = sum(kind in TAKES_THEN for kind in rewritten)
    assert f"rewrote {taken} x If-8 (condition always True) -> its then body" in printed, printed
    assert f"rewrote {len(rewritten) - taken} x If-8 (condition always False) -> its else body" in printed, printed
    written = ir_tools.read_ir(out)
    assert len(written.by_type("If")) == 32 - len(rewritten) and not written.by_type("NotEqual")
    assert len(written.by_type("ShapeOf")) == len(written.by_type("Broadcast"))  # (the conditions' are gone)
    assert assert_runs_equal(model, out, inputs=_fed(model, rng)) == 32


def test_if_of_one_rank_is_left_for_2023(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """2023.0 creates If-8 and compiles it where its outputs have one rank: left as it is (nothing to migrate)."""
    model = if_model(tmp_path / "one_rank.xml", np.random.default_rng(82), 8, ranks_differ=False)
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(tmp_path / "out.xml")]) == 0
    assert "nothing to migrate" in capsys.readouterr().out
    assert not (tmp_path / "out.xml").exists()


def test_if_of_a_static_rank_as_openvino_infers_it_is_left(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same Ifs of bodies of two ranks, the model made static by OpenVINO (each input given its dims, saved):
    OpenVINO infers each If's output of the rank of the body its condition selects, writes those dims, and 2023.0
    compiles and runs the model as it is. The bodies' Results still declare two ranks, and the Ifs were rewritten:
    needless, and the static DeBERTa-v2 export so rewritten 2025.0 refused to compile (its EliminateGather failing on
    a Gather of constants in an If left). Nothing to migrate now; run on 2023.0 equal to this OpenVINO."""
    import openvino as ov

    rng = np.random.default_rng(84)
    model = if_model(tmp_path / "ifs.xml", rng, 8, ranks_differ=True)
    fed = _fed(model, rng)
    static = ov.Core().read_model(model)
    for parameter in static.get_parameters():
        parameter.set_partial_shape(ov.PartialShape(list(fed[parameter.get_friendly_name()].shape)))
    static.validate_nodes_and_infer_types()
    ov.save_model(static, str(tmp_path / "static.xml"), compress_to_fp16=False)
    np.savez(tmp_path / "fed.npz", **fed)
    assert main(["migrate", str(tmp_path / "static.xml"), "--target", "2023.0", "-o", str(tmp_path / "out.xml"),
                 "--check-with", side_pythons()["2023.0"], "--inputs", str(tmp_path / "fed.npz")]) == 0
    printed = capsys.readouterr().out
    assert "nothing to migrate" in printed and printed.count(": same (") == 8, printed


@pytest.mark.parametrize("target", ["2023.0", "2021.4"])
def test_if_of_an_unknown_condition_is_refused_saying_why(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          target: str) -> None:
    """A condition fed by a Parameter: ``check --target`` names each If, what the release does not do, and why no
    rewrite applies; ``migrate --target`` refuses, exit 2, nothing written."""
    model = if_model(tmp_path / "unknown.xml", np.random.default_rng(83), 4, ranks_differ=True, known=False)
    out = tmp_path / "out.xml"
    assert main(["migrate", str(model), "--target", target, "-o", str(out), "-v"]) == 2
    err = capsys.readouterr().err
    assert not out.exists()
    found = re.findall(r"error\[E-TARGET\]: layer '[^']+' \(id \d+, If@opset8\): ([^\n]+)", err)
    assert len(found) == 4, err
    why = "no rewrite applies to this layer: its condition is not known before it runs"
    assert all(why in message for message in found), found[0]
    if target == "2023.0":
        assert all("does not compile an If-8 one of whose outputs has a dynamic rank" in m for m in found), found[0]


def test_what_only_the_other_body_read_goes_with_the_if(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The then body reads Sigmoid(x) alone; the condition chooses the else body: the Sigmoid goes with the If, as its
    condition does (``check`` finds no layer left unread but the model input x, kept as the interface)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset3 as o3
    import openvino.opset8 as o8

    x, m = o1.parameter([-1, 4], np.float32, name="x"), o1.parameter([1, 1, -1], np.float32, name="m")
    dim = o1.squeeze(o8.gather(o3.shape_of(x, "i64"), o1.constant(np.array([0])), o1.constant(0)), o1.constant(0))
    then_x, else_m = o1.parameter([-1, 4], np.float32), o1.parameter([1, 1, -1], np.float32)
    then_body = ov.Model([o1.result(o1.relu(then_x))], [then_x], "then")
    else_body = ov.Model([o1.result(o1.exp(else_m))], [else_m], "else")
    branch = o8.if_op(o1.not_equal(dim, dim).output(0))
    branch.set_then_body(then_body)
    branch.set_else_body(else_body)
    branch.set_input(o1.sigmoid(x).output(0), then_x, None)
    branch.set_input(m.output(0), None, else_m)
    out = branch.set_output(then_body.get_results()[0], else_body.get_results()[0])
    out.get_tensor().set_names({"y"})
    model = tmp_path / "other_body.xml"
    ov.save_model(ov.Model([o1.result(out)], [x, m], "other_body"), str(model), compress_to_fp16=False)
    out_path, printed = migrate(model, capsys)
    assert "rewrote 1 x If-8 (condition always False) -> its else body" in printed, printed
    written = ir_tools.read_ir(out_path)
    assert [layer.type for layer in written.layers() if layer.type not in ("Parameter", "Result")] == ["Exp"]
    dead = [d.loc.layer_name for d in ir_tools.check(out_path, openvino=False) if d.code == "W-DEAD"]
    assert dead == ["x"]
    assert assert_runs_equal(model, out_path, inputs={"x": np.ones((2, 4), np.float32),
                                                     "m": np.full((1, 1, 3), 0.5, np.float32)}) == 1


def always_true(x: object) -> object:
    """A dim of ``x`` (its first, dynamic) equal to itself: a condition known before the model runs that OpenVINO
    does not fold when it reads the model, so that an If of bodies of two ranks has an output of a dynamic rank (a
    Const condition it folds: the output has the selected body's rank, which every release compiles)."""
    import openvino.opset8 as o

    dim = o.squeeze(o.gather(o.shape_of(x), o.constant(np.array([0], np.int64)), o.constant(np.int64(0))),
                    o.constant(np.array([0], np.int64)))
    return o.equal(dim, dim)


def if_returning_one_tensor_twice(path: Path, orelse: Callable) -> None:
    """At ``path``: an If of a condition always true (``always_true``) of input 'x' [?, 3], whose then body returns
    relu(x) * 2 twice and else body ``orelse(x)``'s two tensors, as outputs named 'a' and 'b'."""
    import openvino as ov
    import openvino.opset8 as o

    x = o.parameter([-1, 3], np.float32, name="x")
    x.output(0).set_names({"x"})
    then_x, else_x = o.parameter([-1, 3], np.float32), o.parameter([-1, 3], np.float32)
    twice = o.multiply(o.relu(then_x), o.constant(np.float32(2)))
    branch = o.if_op(always_true(x).output(0))
    branch.set_then_body(ov.Model([o.result(twice), o.result(twice)], [then_x]))
    branch.set_else_body(ov.Model([o.result(t) for t in orelse(else_x)], [else_x]))
    branch.set_input(x.output(0), then_x, else_x)
    outs = [branch.set_output(*(body.get_results()[i] for body in (branch.get_then_body(), branch.get_else_body())))
            for i in (0, 1)]
    for out, name in zip(outs, "ab", strict=True):
        out.set_names({name})
    ov.save_model(ov.Model(outs, [x]), path, compress_to_fp16=False)


def test_two_outputs_of_one_tensor_of_the_body_keep_their_names(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """An IR v10 If-8 'b' (condition True, its outputs of two ranks) whose then body returns one tensor twice, as
    outputs 'a' and 'b': inlined, that tensor took both outputs' names one after the other ('a' lost) and fed two
    Results named on its port, which IR v10 may not hold (E-PASS, "IfBranch left the graph invalid"). The second
    output now reads a tensor of its own; every release reports the names OpenVINO gives the original."""
    import subprocess

    import openvino as ov
    import openvino.opset8 as o

    if_returning_one_tensor_twice(tmp_path / "m.xml", lambda x: [o.unsqueeze(x, o.constant(np.int64(0))),
                                                                  o.negative(x)])
    v10 = tmp_path / "m_v10.xml"
    assert main(["migrate", str(tmp_path / "m.xml"), "--ir-version", "10", "-o", str(v10)]) == 0
    want = [sorted(t.get_names()) for t in ov.Core().read_model(v10).outputs]
    assert want == [["a", "b.0"], ["b", "b.1"]]
    script = ("import sys\ntry:\n    import openvino as ov\n    ov.Core\nexcept (ImportError, AttributeError):\n"
              "    import openvino.runtime as ov\nc = ov.Core()\nm = c.read_model(sys.argv[1])\n"
              "c.compile_model(m, 'CPU')\nprint([sorted(o.get_names()) for o in m.outputs])")
    for version in ("10", "11"):
        out = tmp_path / f"m_2023.0_v{version}.xml"
        assert main(["migrate", str(v10), "--target", "2023.0", "--ir-version", version, "-o", str(out)]) == 0, \
            capsys.readouterr()
        for release, python in {"current": sys.executable, **side_pythons()}.items():
            done = subprocess.run([python, "-c", script, str(out)], capture_output=True, text=True, check=True)
            assert eval(done.stdout.strip().splitlines()[-1]) == want, (release, version)  # noqa: S307


def test_a_body_tensor_named_as_one_of_the_graph_loses_the_name(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A body names its tensors apart from the graph: the then body's Relu tensor 'x', as the model input. Inlined,
    the written model held 'x' twice (W-NAME-DUP: OpenVINO reads the Relu's as 'x_1'); it is dropped there."""
    import openvino as ov
    import openvino.opset8 as o

    x = o.parameter([-1, 3], np.float32, name="x")
    x.output(0).set_names({"x"})
    then_x, else_x = o.parameter([-1, 3], np.float32), o.parameter([-1, 3], np.float32)
    relu = o.relu(then_x)
    relu.output(0).set_names({"x"})
    branch = o.if_op(always_true(x).output(0))
    branch.set_then_body(ov.Model([o.result(o.multiply(relu, o.constant(np.float32(2))))], [then_x]))
    branch.set_else_body(ov.Model([o.result(o.unsqueeze(else_x, o.constant(np.int64(0))))], [else_x]))
    branch.set_input(x.output(0), then_x, else_x)
    out = branch.set_output(branch.get_then_body().get_results()[0], branch.get_else_body().get_results()[0])
    out.set_names({"y"})
    model = tmp_path / "m.xml"
    ov.save_model(ov.Model([out], [x]), model, compress_to_fp16=False)
    written, printed = migrate(model, capsys)
    assert "rewrote 1 x If-8 (condition always True) -> its then body" in printed, printed
    assert not [d for d in ir_tools.check(written, openvino=False) if d.code == "W-NAME-DUP"]
    assert assert_runs_equal(model, written, inputs={"x": np.arange(-3, 3, dtype=np.float32).reshape(2, 3)}) == 1
