"""Convert-1 and ConvertPromoteTypes-14 between integer types on releases that convert them otherwise than the current
OpenVINO (``integer_convert_saturates``, ``Release.converts_otherwise``; found by a QA run: ConvertPromoteTypes-14
of i32 and u32 with promote_unsafe, u32 4000000000 into i64, gives 2147483647 on 2024.0 and 2025.0, -294967296 on the
current OpenVINO, and migrate --target wrote it with exit 0).

Every pair of integer types (u8 to i64, into those and f32) as a Convert-1, and every pair as a ConvertPromoteTypes-14
with promote_unsafe (and lossy pytorch scalar promotions), on edge values (each type's limits and +-1 around them,
multiples of 2^8 and 2^16 and +-1, u32 of 2^31 and more; i64 and u64 within i32, beyond which every release, the
current one too, computes them through i32) and seeded ones: ``check --target`` names exactly the layers a release
converts otherwise; ``migrate --target`` rewrites those into i8, u8, i16 and u16 from a type but u32 and u64 as the
current OpenVINO's wrap (passes/downgrade/integer_wrap.py), which the release then computes exactly as the current
OpenVINO computes the original, and refuses the others (from u32 or u64, into u32 or u64), whose outputs the release
computes otherwise.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from ir_tools.ops.releases import release
from ir_tools.passes.downgrade.integer_wrap import wraps_exactly
from tests.test_target import side_pythons

TYPES = {"u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16, "u32": np.uint32, "i32": np.int32,
         "u64": np.uint64, "i64": np.int64}
#: Each type's limits, multiples of 2^8 and 2^16, 2^24 (where f32 stops holding every integer), values near 2^31, and
#: each of them +-1.
EDGES = sorted({sign * base + d for base in (0, 2**7, 2**8, 5 * 2**8, 2**15, 2**16, 7 * 2**16, 2**24, 123456789,
                                             2**31 - 64, 2**31, 3 * 2**30, 4000000000, 2**32)
                for sign in (1, -1) for d in (-1, 0, 1)})
N = 160
#: The releases measured, where installed (IR_TOOLS_RELEASE_PYTHONS).
TARGETS = ["2023.0", "2024.0", "2025.0"]


def _values(element: str, rng: np.random.Generator) -> np.ndarray:
    """``N`` values of ``element``: the edges it holds (of i64 and u64 those within i32), then seeded ones."""
    info = np.iinfo(TYPES[element])
    low, high = (max(info.min, -2**31), min(info.max, 2**31 - 1)) if info.bits == 64 else (info.min, info.max)
    edges = [v for v in EDGES if low <= v <= high]
    return np.array(edges + [int(v) for v in rng.integers(low, high, N - len(edges), endpoint=True)], TYPES[element])


def _unrepaired(conversions: set[str], target: str) -> bool:
    """Whether ``target`` converts one of ``conversions`` otherwise and migrate has no exact form for it."""
    return any(not wraps_exactly(pair) for pair in conversions & release(target).converts_otherwise)


def _models(folder: Path, left_out: str | None = None) -> tuple[dict[str, Path], dict[str, np.ndarray],
                                                                    dict[str, set[str]]]:
    """A model of every Convert-1 (``c_u32_i64``) and one of every ConvertPromoteTypes-14 with promote_unsafe
    (``p_i32_u32``) and of each lossy pytorch scalar promotion of an edge value (``s_u8_i32_3``: an i32 scalar into
    a u8 tensor), each layer on Parameters of its own, but those migrate has no exact form for on ``left_out`` (a
    target); the feed; each layer's conversions ("u32->i64")."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset14 as o14

    rng = np.random.default_rng(32)
    feed, conversions, models = {}, {}, {}
    results, params = [], []
    for s in TYPES:
        for d in [*TYPES, "f32"]:
            if left_out and _unrepaired({f"{s}->{d}"}, left_out):
                continue
            x = o1.parameter([N], TYPES[s], name=f"x_{s}_{d}")
            feed[f"x_{s}_{d}"] = _values(s, rng)
            results.append(o1.result(o1.convert(x, d, name=f"c_{s}_{d}"), name=f"c_{s}_{d}/out"))
            params.append(x)
            conversions[f"c_{s}_{d}"] = {f"{s}->{d}"}
    models["converts"] = folder / "converts.xml"
    ov.save_model(ov.Model(results, params, "converts"), str(models["converts"]), compress_to_fp16=False)
    results, params = [], []
    for a in TYPES:
        for b in TYPES:
            x, y = o1.parameter([N], TYPES[a], name=f"a_{a}_{b}"), o1.parameter([N], TYPES[b], name=f"b_{a}_{b}")
            node = o14.convert_promote_types(x, y, True, False, "f32", name=f"p_{a}_{b}")
            promoted = node.get_output_element_type(0).get_type_name()
            if left_out and (_unrepaired({f"{a}->{promoted}", f"{b}->{promoted}"}, left_out) or promoted == "f32"):
                continue  # (2023.0 has no opset14: an i64 or u64 into f32 is a lossy promotion, refused)
            feed[f"a_{a}_{b}"], feed[f"b_{a}_{b}"] = _values(a, rng), _values(b, rng)
            results += [o1.result(node.output(i), name=f"p_{a}_{b}/out{i}") for i in range(2)]
            params += [x, y]
            conversions[f"p_{a}_{b}"] = {f"{a}->{promoted}", f"{b}->{promoted}"}
            lossy = f"{b}->{a}"
            if a == b or lossy not in release("2024.0").converts_otherwise or (left_out and _unrepaired({lossy},
                                                                                                        left_out)):
                continue
            info = np.iinfo(TYPES[a])
            out = [v for v in _values(b, rng)  # (values a saturating release converts otherwise)
                   if np.array(v).astype(TYPES[a]) != np.clip(int(v), info.min, info.max)]
            for j, value in enumerate(rng.choice(out, min(6, len(out)), replace=False)):
                name = f"s_{a}_{b}_{j}"
                x = o1.parameter([3], TYPES[a], name=f"t_{a}_{b}_{j}")
                y = o1.parameter([], TYPES[b], name=f"v_{a}_{b}_{j}")
                node = o14.convert_promote_types(x, y, True, True, "f32", name=name)
                feed[f"t_{a}_{b}_{j}"], feed[f"v_{a}_{b}_{j}"] = _values(a, rng)[:3], np.array(value, TYPES[b])
                results += [o1.result(node.output(i), name=f"{name}/out{i}") for i in range(2)]
                params += [x, y]
                conversions[name] = {f"{a}->{a}", lossy}
    models["promotes"] = folder / "promotes.xml"
    ov.save_model(ov.Model(results, params, "promotes"), str(models["promotes"]), compress_to_fp16=False)
    return models, feed, conversions


def _run(python: str | None, model: Path, feed: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``model`` run on the current OpenVINO (``python`` None) or on the OpenVINO of ``python``."""
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    graph, files = ir_tools.read_valid(model), ModelFiles(model, model.with_suffix(".bin"))
    names = {p.name for p in graph.parameters()}
    wanted = {name: value for name, value in feed.items() if name in names}
    runner = OpenVinoRunner(graph, files) if python is None else ChildOpenVinoRunner(python, graph, files)
    return runner.run(wanted)


@pytest.mark.openvino
@pytest.mark.parametrize("target", TARGETS)
def test_layers_a_release_converts_otherwise_are_named_and_those_without_a_wrap_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    """``check --target`` names exactly the layers whose outputs the release computes otherwise; ``migrate
    --target`` refuses exactly those with a conversion from u32 or u64 or into u32 or u64, nothing written."""
    models, feed, conversions = _models(tmp_path)
    for kind, model in models.items():
        if not release(target).creates("ConvertPromoteTypes", "opset14", {}) and kind == "promotes":
            continue  # (2023.0 has no opset14: test_repaired_... runs its Converts)
        named = _refused(model, target)
        assert all(m.startswith(f"OpenVINO {target} computes Convert-1 from this layer's integer type saturating "
                                "where the current OpenVINO wraps or overflows")
                   # (u32 into f32: measured right from 2023.3, the other pairs from 2025.4)
                   and f"the next release without this defect is {'2023.3' if name == 'c_u32_f32' else '2025.4'}" in m
                   for name, m in named.items()), named
        layers = {layer.name for layer in ir_tools.read_ir(model).layers() if layer.name in conversions}
        converts = {name: {p for p in conversions[name] if len(set(p.split("->"))) > 1} for name in layers}  # (into
        # its own type: the identity on every release, which reads a u32 input of 2^31 or more as 2147483647 itself)
        assert set(named) == {name for name in layers if converts[name] & release(target).converts_otherwise}
        assert not _refused(model, "2025.4")
        out = tmp_path / f"{model.stem}_{target}.xml"
        assert main(["migrate", str(model), "--target", target, "-o", str(out), "-v"]) == 2
        err = capsys.readouterr().err
        refused = set(re.findall(rf"error\[E-TARGET\]: layer '(\w+)' \(id \d+, Convert\w*@opset1?4?\): OpenVINO "
                                 f"{target} computes Convert-1 from this layer's integer type saturating", err))
        assert refused == {name for name in named if _unrepaired(conversions[name], target)}, err
        assert "no rewrite applies to this layer" in err and "from a type but u32 and u64, as the current " \
            "OpenVINO's wrap (FloorMod-1 in i32, then Convert-1 in range; the target's CPU holds no u32 or u64 of " \
            "2^31 or more)" in err
        assert not out.exists()
        if target not in side_pythons():
            continue
        want, got = _run(None, model, feed), _run(side_pythons()[target], model, feed)
        differ = {name.split("/")[0] for name in want if not np.array_equal(got[name], want[name])}
        assert differ >= set(named), sorted(set(named) - differ)
        assert all("u32->u32" in conversions[name] for name in differ - set(named)), sorted(differ - set(named))
        assert len(differ) >= (15 if kind == "promotes" else 35) and layers - differ  # (the defect is real, not all)
        if kind == "promotes":  # (the QA run's case)
            i32_u32 = feed["b_i32_u32"]
            at = int(np.flatnonzero(i32_u32 == 4000000000)[0])
            assert (want["p_i32_u32/out1"][at], got["p_i32_u32/out1"][at]) == (-294967296, 2147483647)


@pytest.mark.openvino
@pytest.mark.parametrize("target", TARGETS)
def test_repaired_conversions_run_on_the_release_equal_to_the_current_openvino(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    """Every Convert-1 and ConvertPromoteTypes-14 but those refused: migrate writes the release's wrap of each
    conversion it computes otherwise, which the release (and the current OpenVINO) computes exactly as the current
    OpenVINO computes the original, every output, on every value."""
    if target not in side_pythons():
        pytest.skip(f"no OpenVINO {target}: set IR_TOOLS_RELEASE_PYTHONS")
    models, feed, conversions = _models(tmp_path, left_out=target)
    for kind, model in models.items():
        out = tmp_path / f"{model.stem}_{target}.xml"
        assert main(["migrate", str(model), "--target", target, "-o", str(out)]) == 0
        printed = capsys.readouterr().out
        wraps = sorted(pair for name, pairs in conversions.items() if name.startswith("c_")
                       for pair in pairs & release(target).converts_otherwise)
        if kind == "converts":
            assert len(wraps) == 15 and all(f"rewrote 1 x Convert-1 ({pair}) -> wrap in i32" in printed
                                            for pair in wraps), printed
        assert not [d for d in ir_tools.check(out, openvino=False, target=target) if d.severity == "error"]
        want = _run(None, model, feed)
        for python in (side_pythons()[target], None):
            got = _run(python, out, feed)
            assert set(got) == set(want)
            wrong = sorted(name for name in want if not np.array_equal(got[name], want[name]))
            assert not wrong, (python, wrong)
            assert all(got[name].dtype == want[name].dtype for name in want)
@pytest.mark.openvino
def test_the_qa_run_promotion_is_refused_for_2024(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ConvertPromoteTypes-14 of i32 and u32 (promote_unsafe, into i64) with a Convert-1 of u32 into i64 beside it:
    both refused for 2024.0 and 2025.0, nothing written; i32 with i16 (into i32) beside them is not."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset14 as o14

    x, y, z = (o1.parameter([4], t, name=n) for t, n in ((np.int32, "x"), (np.uint32, "y"), (np.int16, "z")))
    nodes = [o14.convert_promote_types(x, y, True, False, name="promote"), o1.convert(y, "i64", name="convert"),
             o14.convert_promote_types(x, z, False, False, name="safe")]
    model = tmp_path / "qa.xml"
    ov.save_model(ov.Model([o for node in nodes for o in node.outputs()], [x, y, z], "qa"), str(model))
    for target in ("2024.0", "2025.0"):
        assert set(_refused(model, target)) == {"promote", "convert"}
        out = tmp_path / f"qa_{target}.xml"
        assert main(["migrate", str(model), "--target", target, "-o", str(out)]) == 2
        assert "2 layer(s) have no form" in capsys.readouterr().err and not out.exists()
    assert not _refused(model, "2025.4")


def _refused(model: Path, target: str) -> dict[str, str]:
    """``check --target``'s E-TARGET messages, by layer name."""
    names = {layer.id: layer.name for layer in ir_tools.read_ir(model).layers()}
    return {names[d.loc.layer_id]: d.message for d in ir_tools.check(model, openvino=False, target=target)
            if d.code == "E-TARGET"}


@pytest.mark.openvino
@pytest.mark.parametrize("target", TARGETS)
def test_i32_into_u32_read_only_as_gather_indices_is_written_as_it_is(tmp_path: Path, target: str) -> None:
    """Torchvision's detection models converted today index their boxes by a Convert-1 of i32 into u32, which the
    saturating releases make 0 of a negative value: read only as Gathers' indices, those compute it as the current
    OpenVINO does (negative indices from the end, those out of range as zeros): not named, and ``migrate --target``
    writes it; the model runs on the release equal to the current OpenVINO (``check --target`` refused it, and
    ``migrate`` wrote nothing: Faster R-CNN, SSDlite and RetinaNet). The same Convert also read by a Result is
    named still."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset7 as o7
    import openvino.opset8 as o8

    data, index = o1.parameter([5, 6], np.float32, name="data"), o1.parameter([-1], np.int32, name="index")
    u32 = o1.convert(o1.add(index, o1.constant(np.array([0], np.int32))), "u32")
    axis = o1.constant(np.array(1, np.int64))
    gathers = [o8.gather(data, u32, o1.constant(np.array(0, np.int64))), o8.gather(data, u32, axis),
               o7.gather(data, u32, axis), o1.gather(data, u32, o1.constant(np.array(0, np.int64)))]
    model = tmp_path / "indices.xml"
    ov.save_model(ov.Model([o1.result(g, name=f"y{i}") for i, g in enumerate(gathers)], [data, index], "indices"),
                  model)
    assert not [d for d in ir_tools.check(model, openvino=False, target=target) if d.code == "E-TARGET"]
    out = tmp_path / "migrated.xml"
    assert main(["migrate", str(model), "--target", target, "-o", str(out)]) == 0
    if target in side_pythons():
        from ir_tools.runtime.openvino import ModelFiles
        from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

        graph, files = ir_tools.read_valid(model), ModelFiles(model, model.with_suffix(".bin"))
        rng = np.random.default_rng(32)
        inputs = {"data": rng.standard_normal((5, 6)).astype(np.float32),
                  "index": np.concatenate([np.array([-2**31, -7, -6, -1, 0, 4, 5, 6, 2**31 - 1]),
                                           rng.integers(-8, 8, 40)]).astype(np.int32)}
        want = OpenVinoRunner(graph, files).run(inputs)
        got = ChildOpenVinoRunner(side_pythons()[target], graph, files).run(inputs)
        for name in want:
            np.testing.assert_array_equal(got[name], want[name], err_msg=name, strict=True)
    shown = o1.result(u32, name="shown")
    ov.save_model(ov.Model([o1.result(gathers[0], name="y"), shown], [data, index], "shown"), model)
    assert [d.code for d in ir_tools.check(model, openvino=False, target=target) if d.code == "E-TARGET"] == [
        "E-TARGET"]
