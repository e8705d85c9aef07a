"""Convert-1 and ConvertPromoteTypes-14 between integer types on releases that convert them otherwise than the current
OpenVINO (``integer_convert_saturates``, ``Release.converts_otherwise``; found by a QA run: ConvertPromoteTypes-14
of i32 and u32 with promote_unsafe, u32 4000000000 into i64, gives 2147483647 on 2024.0 and 2025.0, -294967296 on the
current OpenVINO, and migrate --target wrote it with exit 0).

Every pair of integer types (u8 to i64, into those and f32) as a Convert-1, and every pair as a ConvertPromoteTypes-14
with promote_unsafe, on edge values (each type's limits, u32 of 2^31 and more; i64 and u64 within i32, beyond which
every release, the current one too, computes them through i32): on each release installed, the layers whose outputs
differ from the current OpenVINO's are exactly those ``check --target`` names with the defect and ``migrate --target``
refuses.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from ir_tools.ops.releases import release
from tests.test_target import side_pythons

TYPES = {"u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16, "u32": np.uint32, "i32": np.int32,
         "u64": np.uint64, "i64": np.int64}
EDGES = [0, 1, -1, 127, 128, 255, 256, -128, -129, 32767, 32768, 65535, 65536, -32768, -32769, 2**31 - 1, -2**31,
         2**31, 3 * 2**30, 4000000000, 2**32 - 1, 123456789, -123456789]
N = 24


def _values(element: str, rng: np.random.Generator) -> np.ndarray:
    """``N`` values of ``element``: the edges it holds (of i64 and u64 those within i32), then seeded ones."""
    info = np.iinfo(TYPES[element])
    low, high = (max(info.min, -2**31), min(info.max, 2**31 - 1)) if info.bits == 64 else (info.min, info.max)
    edges = [v for v in EDGES if low <= v <= high]
    return np.array(edges + [int(v) for v in rng.integers(low, high, N - len(edges), endpoint=True)], TYPES[element])


def _models(folder: Path) -> tuple[dict[str, Path], dict[str, np.ndarray], dict[str, set[str]]]:
    """A model of every Convert-1 (``c_u32_i64``) and one of every ConvertPromoteTypes-14 with promote_unsafe
    (``p_i32_u32``), each layer on Parameters of its own; the feed; each layer's conversions ("u32->i64")."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset14 as o14

    rng = np.random.default_rng(32)
    feed, conversions, models = {}, {}, {}
    results, params = [], []
    for s in TYPES:
        for d in [*TYPES, "f32"]:
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
            feed[f"a_{a}_{b}"], feed[f"b_{a}_{b}"] = _values(a, rng), _values(b, rng)
            node = o14.convert_promote_types(x, y, True, False, "f32", name=f"p_{a}_{b}")
            promoted = node.get_output_element_type(0).get_type_name()
            results += [o1.result(node.output(i), name=f"p_{a}_{b}/out{i}") for i in range(2)]
            params += [x, y]
            conversions[f"p_{a}_{b}"] = {f"{a}->{promoted}", f"{b}->{promoted}"}
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
@pytest.mark.parametrize("target", ["2023.0", "2024.0", "2025.0"])
def test_layers_a_release_converts_otherwise_are_named_and_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  target: str) -> None:
    models, feed, conversions = _models(tmp_path)
    for kind, model in models.items():
        if not release(target).creates("ConvertPromoteTypes", "opset14", {}) and kind == "promotes":
            continue  # (2023.0 has no opset14: its Converts, above, are what the rewrite would write)
        named = {name: m for name, m in _refused(model, target).items()}
        assert all(m.startswith(f"OpenVINO {target} computes Convert-1 between this layer's integer types saturating "
                                "where the current OpenVINO wraps") and "the next release without this defect is "
                                "2025.4" in m for m in named.values()), named
        layers = {layer.name for layer in ir_tools.read_ir(model).layers() if layer.name in conversions}
        assert not _refused(model, "2025.4")
        out = tmp_path / f"{model.stem}_{target}.xml"
        assert main(["migrate", str(model), "--target", target, "-o", str(out), "-v"]) == 2
        err = capsys.readouterr().err
        assert set(re.findall(r"error\[E-TARGET\]: layer '(\w+)' \(id \d+, Convert\w*@opset1?4?\): OpenVINO "
                              rf"{target} computes Convert-1 between this layer's integer types saturating", err)) \
            == set(named), err
        assert not out.exists()
        if target not in side_pythons():
            continue
        want, got = _run(None, model, feed), _run(side_pythons()[target], model, feed)
        differ = {name.split("/")[0] for name in want if not np.array_equal(got[name], want[name])}
        assert differ == set(named), (sorted(differ - set(named)), sorted(set(named) - differ))
        assert len(differ) >= (15 if kind == "promotes" else 35) and layers - differ  # (the defect is real, not all)
        if kind == "promotes":  # (the QA run's case)
            i32_u32 = feed["b_i32_u32"]
            at = int(np.flatnonzero(i32_u32 == 4000000000)[0])
            assert (want["p_i32_u32/out1"][at], got["p_i32_u32/out1"][at]) == (-294967296, 2147483647)


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
