"""Float conversions a release computes otherwise than the current OpenVINO (``float_boolean_wrong``,
``float_boolean_nan_true``, ``f16_io_saturates``, ``v10_boolean_output_fails``: measured by scripts/probe_release.py),
and integer ones into boolean (``integer_boolean_negative_false``).

Seeded models of many layers each, one compile: ``check --target`` names exactly the layers whose outputs the release
computes otherwise (run there, against the current OpenVINO), ``migrate --target`` rewrites those with an exact form,
which the release and the current OpenVINO then compute as the current one computes the original, and refuses the f16
model outputs (no exact form), while an f16 model input (only an infinity fed differs) is a warning and written.
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

#: The releases measured, where installed (IR_TOOLS_RELEASE_PYTHONS): 2024.1 converts NaN into True, 2023.0 and
#: 2024.0 values beyond 255 into False, 2023.0 and 2024.0 saturate f16 at the model's boundary.
TARGETS = ["2023.0", "2024.0", "2024.1"]
N = 96
#: Values a Convert into boolean is fed first: zeros, NaN, infinities, 255 and just beyond, f16's and f32's limits.
EDGES = [0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0, 0.4, 1e-45, 255.0, -255.0, 255.02, 255.5, 256.0, -256.0,
         512.0, 1000.0, 65504.0, 70000.0, 3e38, -3e38, 2.0**31, 1e-8]


def _values(rng: np.random.Generator, dtype: type) -> np.ndarray:
    """``N`` values: ``EDGES`` (as ``dtype``), then seeded ones, half within +-300 and half of random bits."""
    with np.errstate(over="ignore"):
        edges = np.array(EDGES, np.float32).astype(dtype)
    rest = N - edges.size
    near = rng.uniform(-300, 300, rest // 2).astype(dtype)
    bits = rng.integers(0, 2 ** (8 * np.dtype(dtype).itemsize), rest - rest // 2, dtype=np.uint64)
    raw = bits.astype(np.uint32 if dtype == np.float32 else np.uint16).view(dtype)
    return np.concatenate([edges, near, raw])


def _boolean_model(path: Path) -> tuple[Path, dict[str, np.ndarray], set[str], set[str]]:
    """Convert-1 into boolean of f32 and f16 inputs (``b_f32_K``), of an input within +-255 (Clamp: ``clamped``), of
    Sigmoid (``sigmoid``: NaN, no magnitude above 1), of Consts beyond 255 and NaN (``folded``), and f16 made inside
    from f32 (``inside``); the feed; the layers the wrong and the NaN defect may hit."""
    import openvino as ov
    import openvino.opset10 as o

    rng = np.random.default_rng(71)
    feed, results, params = {}, [], []
    for k in range(3):
        for dtype, name in ((np.float32, "f32"), (np.float16, "f16")):
            x = o.parameter([N], dtype, name=f"x_{name}_{k}")
            feed[f"x_{name}_{k}"] = _values(rng, dtype)
            results.append(o.convert(x, "boolean", name=f"b_{name}_{k}"))
            params.append(x)
    x = o.parameter([N], np.float32, name="y")
    feed["y"] = _values(rng, np.float32)
    params.append(x)
    results += [o.convert(o.clamp(x, -255.0, 255.0), "boolean", name="clamped"),
                o.convert(o.sigmoid(x), "boolean", name="sigmoid"),
                o.convert(o.reshape(o.constant(np.array(EDGES, np.float32)), [len(EDGES)], False), "boolean",
                          name="folded"),
                o.convert(o.convert(x, "f16"), "boolean", name="inside")]
    ov.save_model(ov.Model(results, params, "to_boolean"), str(path), compress_to_fp16=False)
    converts = {f"b_{t}_{k}" for t in ("f32", "f16") for k in range(3)} | {"inside"}
    return path, feed, converts, converts | {"sigmoid", "clamped"}


def _run(python: str | None, model: Path, feed: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``model`` run on the current OpenVINO (``python`` None) or on the OpenVINO of ``python``."""
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    graph, files = ir_tools.read_valid(model), ModelFiles(model, model.with_suffix(".bin"))
    runner = OpenVinoRunner(graph, files) if python is None else ChildOpenVinoRunner(python, graph, files)
    return runner.run(feed)


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    """The same type, shape and values, NaN where NaN, the same sign of zero."""
    floats = want.dtype.kind == "f"
    return got.dtype == want.dtype and np.array_equal(got, want, equal_nan=floats) and (
        not floats or np.array_equal(np.signbit(got), np.signbit(want)))


def _named(model: Path, target: str, code: str = "E-TARGET") -> dict[str, str]:
    """``check --target``'s diagnostics of ``code``, by layer name (a Result's by its producer's)."""
    graph = ir_tools.read_ir(model)
    names = {layer.id: layer.name for layer in graph.layers()}
    for result in graph.results():
        key = graph.producer_key(result.id, result.input_ids()[0])
        names[result.id] = names[key[0]] if key is not None else result.name
    return {names[d.loc.layer_id]: d.message for d in ir_tools.check(model, openvino=False, target=target)
            if d.code == code and d.loc.layer_id is not None}


def _producers(model: Path) -> dict[str, str]:
    """Each output's name -> the name of the layer whose value it is."""
    graph = ir_tools.read_ir(model)
    found = {}
    for result in graph.results():
        key = graph.producer_key(result.id, result.input_ids()[0])
        assert key is not None
        producer = graph.layer(key[0])
        for name in (producer.output(key[1]).names or "").split(","):
            found[name] = producer.name
    return found


@pytest.mark.openvino
@pytest.mark.parametrize("target", TARGETS)
def test_converts_into_boolean_a_release_computes_otherwise_are_named_and_rewritten(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    """``check --target`` names exactly the Converts into boolean whose outputs the release computes otherwise (on
    f32 and f16 inputs; not those within +-255, nor folded Consts); migrated, the release and the current OpenVINO
    compute every output as the current OpenVINO computes the original."""
    model, feed, wrong, nan = _boolean_model(tmp_path / "to_boolean.xml")
    keys = set(release(target).miscomputes) & {"float_boolean_wrong", "float_boolean_nan_true"}
    named = _named(model, target)
    want_named = (wrong if "float_boolean_wrong" in keys else set()) | (nan if "float_boolean_nan_true" in keys
                                                                        else set())
    assert keys and set(named) == want_named, named
    assert all("(measured); the next release without this defect is 2024." in m and "rewrites it from f32 or f16 "
               "into boolean as LogicalAnd-1" in m for m in named.values()), named
    assert not _named(model, "2024.3")
    differ = _migrated_equal(model, feed, target, len(want_named), capsys)
    assert differ and differ <= set(named), sorted(differ - set(named))  # (the defect is real, and named)


@pytest.mark.openvino
@pytest.mark.skipif("2023.0" not in side_pythons(), reason="no OpenVINO 2023.0: set IR_TOOLS_RELEASE_PYTHONS")
def test_converts_into_boolean_migrated_for_2021_4_run_on_2023_as_the_original(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A release before 2023.0, documented only, takes 2023.0's measured defects: migrate --target 2021.4 rewrites
    the Converts 2023.0 computes otherwise, and the file runs on 2023.0 as the current OpenVINO runs the original
    (found by a sweep: a static MPT's logits, 8187 of 8192 away on 2023.0, its Converts into boolean left)."""
    model, feed, wrong, _ = _boolean_model(tmp_path / "to_boolean.xml")
    assert set(_named(model, "2021.4")) == wrong
    out = tmp_path / "to_boolean_2021.4.xml"
    assert main(["migrate", str(model), "--target", "2021.4", "-o", str(out)]) == 0
    assert f"rewrote {len(wrong)} x Convert-1 -> comparisons" in capsys.readouterr().out
    want, migrated = _run(None, model, feed), _run(side_pythons()["2023.0"], out, feed)
    assert set(migrated) == set(want)  # (2023.0 gives an IR v10 model's boolean outputs as f32 0 and 1)
    assert not [name for name in want if not _same(migrated[name].astype(bool), want[name])]


def _migrated_equal(model: Path, feed: dict[str, np.ndarray], target: str, rewritten: int,
                    capsys: pytest.CaptureFixture[str]) -> set[str]:
    """``migrate --target TARGET`` of ``model`` rewrites ``rewritten`` Converts and leaves nothing ``check --target``
    refuses; the release and the current OpenVINO compute every output of the migrated model as the current OpenVINO
    computes the original. Returns the layers whose outputs the release computes otherwise in the original (skips
    where the release is not installed)."""
    out = model.with_name(f"{model.stem}_{target}.xml")
    assert main(["migrate", str(model), "--target", target, "-o", str(out)]) == 0
    assert f"rewrote {rewritten} x Convert-1 -> comparisons" in capsys.readouterr().out
    assert not [d for d in ir_tools.check(out, openvino=False, target=target) if d.severity == "error"]
    if target not in side_pythons():
        pytest.skip(f"no OpenVINO {target}: set IR_TOOLS_RELEASE_PYTHONS")
    want, got = _run(None, model, feed), _run(side_pythons()[target], model, feed)
    producers = _producers(model)
    for python in (side_pythons()[target], None):
        migrated = _run(python, out, feed)
        assert set(migrated) == set(want)
        assert not [name for name in want if not _same(migrated[name], want[name])], python
    return {producers[name] for name in want if not _same(got[name], want[name])}


#: Integer values a Convert into boolean is fed first (those within the input's type), all within (-2^31, 2^31).
INTEGER_EDGES = [0, 1, -1, -2, 127, -128, 255, 256, -256, 32767, -32768, 65535, -65536, 2**31 - 1, -(2**31 - 1)]


def _integer_boolean_model(path: Path) -> tuple[Path, dict[str, np.ndarray], set[str]]:
    """Convert-1 into boolean of an input of each integer type (``b_i16``), of an i64 input doubled (``computed``) and
    of negative i32 Consts (``folded``); the feed; the layers ``integer_boolean_negative_false`` may hit."""
    import openvino as ov
    import openvino.opset10 as o

    rng = np.random.default_rng(72)
    feed, results, params = {}, [], []
    for name in ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"):
        dtype = np.dtype(name.replace("i", "int").replace("u", "uint"))
        info = np.iinfo(dtype)
        low, high = max(info.min, -(2**31 - 1)), min(info.max, 2**31 - 1)
        edges = [v for v in INTEGER_EDGES if low <= v <= high]
        x = o.parameter([N], dtype, name=f"x_{name}")
        feed[f"x_{name}"] = np.concatenate([np.array(edges, dtype),
                                            rng.integers(low, high, N - len(edges), endpoint=True).astype(dtype)])
        results.append(o.convert(x, "boolean", name=f"b_{name}"))
        params.append(x)
    results += [o.convert(o.multiply(params[-2], o.constant(np.int64(2))), "boolean", name="computed"),
                o.convert(o.reshape(o.constant(np.array([-5, 0, -1, 7], np.int32)), [4], False), "boolean",
                          name="folded")]
    ov.save_model(ov.Model(results, params, "integer_boolean"), str(path))
    return path, feed, {"b_i16", "b_i32", "b_i64", "computed"}


@pytest.mark.openvino
@pytest.mark.parametrize("target", TARGETS)
def test_integer_converts_into_boolean_a_release_computes_otherwise_are_named_and_rewritten(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    """``check --target`` names exactly the Converts of i16, i32 and i64 into boolean (2023.0 to 2024.2 make False of
    every negative value: found by the fourth wide-zoo sweep, DeBERTa-v2's mask fed integers, multiplied and
    converted, which migrate then refused as computing otherwise); not i8's, the unsigned ones', nor folded Consts';
    migrated as NotEqual-1, the release and the current OpenVINO compute every output as the current OpenVINO
    computes the original."""
    model, feed, hit = _integer_boolean_model(tmp_path / "integer_boolean.xml")
    assert "integer_boolean_negative_false" in release(target).miscomputes
    named = _named(model, target)
    assert set(named) == hit, named
    assert all("the next release without this defect is 2024.3" in m and "from i16, i32 or i64 as NotEqual-1(x, 0)"
               in m for m in named.values()), named
    assert not _named(model, "2024.3")
    differ = _migrated_equal(model, feed, target, len(hit), capsys)
    assert differ == hit, differ  # (the defect is real, and named)


def _f16_model(path: Path, outputs: bool = True) -> Path:
    """An f16 input ``h`` (and an f32 one, ``x``) into: f16 outputs of h + h (``sum``), of x converted into f16
    (``half``), of Sigmoid (``unit``), of h itself (``same``), of a Clamp within f16's range (``kept``); and f32
    outputs of h converted (``wide``) and of h + h converted (``wide_sum``). Without ``outputs`` the f32 ones only."""
    import openvino as ov
    import openvino.opset10 as o

    h, x = o.parameter([N], np.float16, name="h"), o.parameter([N], np.float32, name="x")
    total = o.add(h, h, name="sum")
    f32 = [o.convert(h, "f32", name="wide"), o.convert(total, "f32", name="wide_sum")]
    f16 = [total, o.convert(x, "f16", name="half"), o.sigmoid(h, name="unit"), o.relu(h, name="same"),
           o.clamp(o.convert(x, "f16"), -60000.0, 60000.0, name="kept")]
    ov.save_model(ov.Model([*f32, *(f16 if outputs else [])], [h, x], "f16"), str(path), compress_to_fp16=False)
    return path


def _f16_feed(infinities: bool) -> dict[str, np.ndarray]:
    """Seeded f16 values of every magnitude (with +-inf and NaN where ``infinities``), and f32 ones beyond f16's."""
    rng = np.random.default_rng(16)
    h = rng.integers(0, 2**16, N, dtype=np.uint64).astype(np.uint16).view(np.float16)
    h = np.where(np.isinf(h), np.float16(40000), h)
    if infinities:
        h[:3] = [np.inf, -np.inf, np.nan]
    x = np.concatenate([np.array([70000, -70000, 65519, 65520, 3e38, np.inf, -np.inf, np.nan], np.float32),
                        rng.uniform(-1e5, 1e5, N - 8).astype(np.float32)])
    return {"h": h, "x": x}


@pytest.mark.openvino
@pytest.mark.parametrize("target", ["2023.0", "2024.0"])
def test_f16_outputs_beyond_its_range_are_refused_and_f16_inputs_warned(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    """For a release that saturates f16 at the model's boundary: E-TARGET at the f16 output converted from f32 data
    that may lie beyond +-65504, and migrate refuses it, nothing written; W-TARGET at the f16 output of f16
    arithmetic that may overflow and at the f16 input; those two are, for finite inputs, the outputs the release
    computes otherwise; a model without the refused output is written as it is and computed there as the current
    OpenVINO computes it for every finite input."""
    model = _f16_model(tmp_path / "f16.xml")
    assert set(_named(model, target)) == {"half"}
    assert all("writes an f16 model output beyond +-65504 as +-65504" in m and "converted into f16 from a wider "
               "type" in m and "no rewrite applies" in m for m in _named(model, target).values())
    assert set(_named(model, target, "W-TARGET")) == {"h", "sum"}
    assert not _named(model, "2024.3") and not _named(model, "2024.3", "W-TARGET")
    out = tmp_path / f"f16_{target}.xml"
    assert main(["migrate", str(model), "--target", target, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "1 layer(s) have no form" in err and re.search(r"error\[E-TARGET\]: layer '\w+' \(id \d+, Result@opset1\): "
                                                         "OpenVINO", err), err
    assert not out.exists()
    for kind, warned in (("f16_in", {"h"}), ("f16_sum", {"h", "sum"})):
        written = _f16_model(tmp_path / f"{kind}.xml", outputs=kind == "f16_sum")
        if kind == "f16_sum":  # (the f16 outputs but the refused one)
            written = _without(written, "half")
        assert set(_named(written, target, "W-TARGET")) == warned and not _named(written, target)
        assert main(["migrate", str(written), "--target", target, "-o", str(out)]) == 0
        printed = capsys.readouterr()
        assert "nothing to migrate" in printed.out and not out.exists()  # (no rewrite: written as it is)
        assert printed.err.count("warning[W-TARGET]") == len(warned) and "writes it as it is" in printed.err
    if target not in side_pythons():
        pytest.skip(f"no OpenVINO {target}: set IR_TOOLS_RELEASE_PYTHONS")
    finite = _f16_feed(infinities=False)
    want, got = _run(None, model, finite), _run(side_pythons()[target], model, finite)
    producers = _producers(model)
    assert {producers[name] for name in want if not _same(got[name], want[name])} == {"half", "sum"}
    inputs_only = tmp_path / "f16_in.xml"
    for feed, alike in ((finite, True), (_f16_feed(infinities=True), False)):
        want, got = _run(None, inputs_only, feed), _run(side_pythons()[target], inputs_only, feed)
        assert all(_same(got[name], want[name]) for name in want) is alike


def _without(model: Path, producer: str) -> Path:
    """``model`` without the output of ``producer`` (written beside it)."""
    import openvino as ov

    read = ov.Core().read_model(str(model))
    kept = [r for r in read.get_results() if r.input_value(0).get_node().get_friendly_name() != producer]
    out = model.with_name(f"{model.stem}_kept.xml")
    ov.save_model(ov.Model(kept, read.get_parameters(), "kept"), str(out), compress_to_fp16=False)
    return out


def _v10_model(path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    """IR v10: IsNaN-10, IsInf-10 (both signs, either, neither) and IsFinite-10 of f32, and of f16 made inside, each
    a model output, and an IsNaN read by a LogicalNot (not an output); the feed."""
    import openvino as ov
    import openvino.opset10 as o

    x = o.parameter([N], np.float32, name="x")
    half = o.convert(x, "f16")
    outs = []
    for source, kind in ((x, "f32"), (half, "f16")):
        outs += [o.is_nan(source, name=f"nan_{kind}"), o.is_finite(source, name=f"finite_{kind}"),
                 o.is_inf(source, {"detect_positive": True, "detect_negative": True}, name=f"inf_{kind}"),
                 o.is_inf(source, {"detect_positive": True, "detect_negative": False}, name=f"pos_{kind}"),
                 o.is_inf(source, {"detect_positive": False, "detect_negative": True}, name=f"neg_{kind}")]
    outs.append(o.logical_not(o.is_nan(x, name="inner")))
    v11 = path.with_name("v11.xml")
    ov.save_model(ov.Model(outs, [x], "checks"), str(v11), compress_to_fp16=False)
    assert main(["migrate", str(v11), "--ir-version", "10", "-o", str(path)]) == 0
    rng = np.random.default_rng(10)
    values = np.concatenate([np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 65504, 70000, -3e38, 1e-45], np.float32),
                             rng.standard_normal(N - 9).astype(np.float32) * 1e4])
    return path, {"x": values}


@pytest.mark.openvino
def test_v10_outputs_of_other_converts_are_left_for_2023(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An IR v10 model whose outputs are Convert-1's of f32 into i32 and of f16 into f32: ``v10_boolean_output_fails``
    is IsNaN/IsInf/IsFinite-10's alone, so ``check --target 2023.0`` names neither and migrate has nothing to do,
    and 2023.0 computes the model as the current OpenVINO (migrate made each a comparison into boolean: the outputs
    were booleans, exit 0)."""
    import openvino as ov
    import openvino.opset10 as o

    x = o.parameter([N], np.float32, name="x")
    outs = [o.convert(x, "i32", name="to_i32"), o.convert(o.convert(x, "f16"), "f32", name="to_f32")]
    v11 = tmp_path / "v11.xml"
    ov.save_model(ov.Model(outs, [x], "converts"), str(v11), compress_to_fp16=False)
    model, out = tmp_path / "converts.xml", tmp_path / "converts_2023.0.xml"
    assert main(["migrate", str(v11), "--ir-version", "10", "-o", str(model)]) == 0
    assert not _named(model, "2023.0")
    capsys.readouterr()
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out)]) == 0
    assert "nothing to migrate" in capsys.readouterr().out and not out.exists()
    if "2023.0" not in side_pythons():
        pytest.skip("no OpenVINO 2023.0: set IR_TOOLS_RELEASE_PYTHONS")
    feed = {"x": np.random.default_rng(12).uniform(-1e4, 1e4, N).astype(np.float32)}
    want, got = _run(None, model, feed), _run(side_pythons()["2023.0"], model, feed)
    assert set(got) == set(want) and all(_same(got[name], want[name]) for name in want)


@pytest.mark.openvino
def test_v10_outputs_of_is_nan_inf_finite_are_rewritten_for_2023(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An IR v10 model whose outputs are IsNaN/IsInf/IsFinite-10's: 2023.0 does not compile it; ``check --target
    2023.0`` names exactly the ten read by a Result, migrate writes them as comparisons, which 2023.0 and the current
    OpenVINO compute as the current one computes the original. But on a CPU without AVX-512 (AVX2, measured on
    2026.4), whose IsFinite-10 of an f32 subnormal is True where the rewrite follows the AVX-512 CPU's False: there
    IsFinite's outputs differ at the f32 subnormals fed, and only there (a defect left: docs/SEMANTICS.md)."""
    model, feed = _v10_model(tmp_path / "checks.xml")
    capsys.readouterr()
    named = _named(model, "2023.0")
    graph = ir_tools.read_ir(model)
    checks = {layer.name: layer for layer in graph.layers() if layer.type in ("IsNaN", "IsInf", "IsFinite")}
    read = {name for name, layer in checks.items()  # (v10's names: set_ir_version renamed the outputs' producers)
            if any(graph.layer(e.to_layer).type == "Result" for e in graph.out_edges(layer.id))}
    assert len(checks) == 11 and len(read) == 10 and set(named) == read, named
    assert all("single LogicalNot-1 or LogicalAnd-1" in m for m in named.values())
    assert not _named(model, "2023.1") and not _named(model.with_name("v11.xml"), "2023.0")
    out = tmp_path / "checks_2023.0.xml"
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert all(f"rewrote 2 x {label} -> comparisons" in printed for label in ("IsNaN-10", "IsFinite-10")), printed
    assert "rewrote 6 x IsInf-10 -> comparisons" in printed
    direct = tmp_path / "direct.xml"  # (the v11 original made v10 by this migrate: judged as the v10 it writes)
    assert main(["migrate", str(model.with_name("v11.xml")), "--target", "2023.0", "--ir-version", "10", "-o",
                 str(direct)]) == 0
    assert "rewrote 6 x IsInf-10 -> comparisons" in capsys.readouterr().out and not _named(direct, "2023.0")
    want = _run(None, model, feed)
    if "2023.0" not in side_pythons():
        pytest.skip("no OpenVINO 2023.0: set IR_TOOLS_RELEASE_PYTHONS")
    with pytest.raises(ir_tools.IrToolsError, match="BOOL precision"):
        _run(side_pythons()["2023.0"], model, feed)
    x = feed["x"]
    subnormal = (x != 0) & (np.abs(x) < np.finfo(np.float32).tiny)
    for python in (side_pythons()["2023.0"], None):
        got = _run(python, out, feed)
        assert set(got) == set(want), python
        for name in want:  # equal, but on a CPU whose IsFinite of an f32 subnormal is True (AVX2, see the note below)
            differs = got[name] != want[name]
            assert _same(got[name], want[name]) or (
                got[name].dtype == want[name].dtype and not (differs & ~subnormal).any()
                and want[name][differs].all() and not got[name][differs].any()), (python, name)


@pytest.mark.openvino
def test_v10_f16_inputs_and_outputs_are_f32_for_every_release(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """An IR v10 model's f16 inputs and outputs are f32 on every release (``read_model``'s legacy Converts): an f16
    input fed inf, and f16 outputs converted from f32 70000 and from i32 70000 and 2049, are kept as the current
    OpenVINO keeps them, on 2023.0 and 2024.0 (``f16_io_saturates``) too. So ``check --target`` names none of them
    (it refused both outputs, E-TARGET, and warned of the input) and migrate has nothing to do."""
    import openvino as ov
    import openvino.opset10 as o

    x, n, h = (o.parameter([6], dtype, name=name) for dtype, name in ((np.float32, "x"), (np.int32, "n"),
                                                                       (np.float16, "h")))
    outs = [o.convert(x, "f16", name="wide"), o.convert(n, "f16", name="integer"),
            o.multiply(h, o.constant(np.array(2, np.float16)), name="twice")]
    v11, model = tmp_path / "v11.xml", tmp_path / "f16_io.xml"
    ov.save_model(ov.Model(outs, [x, n, h], "f16_io"), str(v11), compress_to_fp16=False)
    assert main(["migrate", str(v11), "--ir-version", "10", "-o", str(model)]) == 0
    targets = ["2023.0", "2024.0"]
    assert all(_named(v11, target) for target in targets)  # (IR v11: f16 at the boundary, refused)
    for target in targets:
        assert not _named(model, target) and not _named(model, target, "W-TARGET"), target
        capsys.readouterr()
        assert main(["migrate", str(model), "--target", target, "-o", str(tmp_path / f"{target}.xml")]) == 0
        assert "nothing to migrate" in capsys.readouterr().out
    feed = {"x": np.array([70000, -1e6, np.inf, 65520, 1.5, 3e38], np.float32),
            "n": np.array([70000, 2049, -2**31, 65520, 3, 2**31 - 1], np.int32),
            "h": np.array([np.inf, -np.inf, 60000, 1, -0.0, np.nan], np.float16)}
    want = _run(None, model, feed)
    kept = np.concatenate(list(want.values()))  # (f32 outputs: 70000 and 2049 not rounded into f16, inf kept)
    assert all(v.dtype == np.float32 for v in want.values()) and {70000, 2049, np.inf} <= set(kept.tolist())
    ran = [target for target in targets if target in side_pythons()]
    if not ran:
        pytest.skip("no OpenVINO 2023.0 nor 2024.0: set IR_TOOLS_RELEASE_PYTHONS")
    for target in ran:
        got = _run(side_pythons()[target], model, feed)
        assert set(got) == set(want) and all(_same(got[name], want[name]) for name in want), target


@pytest.mark.openvino
def test_v10_checks_read_by_other_ops_are_rewritten_for_2023(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """``v10_boolean_output_fails`` is not a Result's alone: 2023.0 does not compile an IR v10 model where
    IsNaN/IsInf/IsFinite-10 is read by a Reshape, an Unsqueeze, a Concat, a Convert-1 (into u8 too) or two
    LogicalNot-1, but only where one LogicalNot-1 or LogicalAnd-1 reads it. ``check --target 2023.0`` named none of
    those (migrate wrote the model as it was: "doesn't support BOOL precision" there); now it names exactly them, and
    2023.0 computes the migrated model as the current OpenVINO computes the original."""
    import openvino as ov
    import openvino.opset10 as o

    x = o.parameter([8], np.float32, name="x")
    nan, inf, finite, twice = (o.is_nan(x, name="nan"), o.is_inf(x, name="inf"), o.is_finite(x, name="finite"),
                               o.is_nan(x, name="twice"))
    outs = [o.reshape(nan, [2, 4], False), o.unsqueeze(inf, [0]), o.convert(finite, "u8"),
            o.concat([o.is_inf(x, name="joined"), o.is_nan(x, name="joined2")], 0),
            o.logical_not(twice), o.logical_not(twice), o.logical_not(o.is_nan(x, name="fused")),
            o.logical_and(o.is_finite(x, name="anded"), o.constant(np.array(True)))]
    v11, model = tmp_path / "v11.xml", tmp_path / "readers.xml"
    ov.save_model(ov.Model(outs, [x], "readers"), str(v11), compress_to_fp16=False)
    assert main(["migrate", str(v11), "--ir-version", "10", "-o", str(model)]) == 0
    assert set(_named(model, "2023.0")) == {"nan", "inf", "finite", "joined", "joined2", "twice"}
    _assert_repaired_for_2023(model, tmp_path, capsys)


def _assert_repaired_for_2023(model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``migrate --target 2023.0`` of ``model`` (whose input ``x`` is 8 f32) leaves nothing ``check --target`` names;
    2023.0 refuses the original ("BOOL precision") and computes the migrated model, as the current OpenVINO does, as
    the current OpenVINO computes the original."""
    out = tmp_path / "readers_2023.0.xml"
    capsys.readouterr()
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out)]) == 0
    assert not _named(out, "2023.0")
    feed = {"x": np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -3e38, 65504], np.float32)}
    want = _run(None, model, feed)
    if "2023.0" not in side_pythons():
        pytest.skip("no OpenVINO 2023.0: set IR_TOOLS_RELEASE_PYTHONS")
    with pytest.raises(ir_tools.IrToolsError, match="BOOL precision"):
        _run(side_pythons()["2023.0"], model, feed)
    for python in (side_pythons()["2023.0"], None):
        got = _run(python, out, feed)
        assert set(got) == set(want) and all(_same(got[name], want[name]) for name in want), python


@pytest.mark.openvino
def test_v11_checks_read_by_other_ops_are_rewritten_for_2023(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """``v10_boolean_output_fails`` is not IR v10's alone: 2023.0 does not compile an IR v11 model where
    IsNaN/IsInf/IsFinite-10 is read by a Select-1, a Convert-1, a Reshape or a LogicalOr-1 either (found on an ONNX
    Llama's IsNaN read by a Select: ``check --target 2023.0`` named nothing and migrate wrote a model 2023.0 refuses,
    "doesn't support BOOL precision"); one read by a single Result, or a single LogicalNot-1, compiles and is left.
    Now the others are named and rewritten, and 2023.0 computes the migrated model as the current OpenVINO computes
    the original."""
    import openvino as ov
    import openvino.opset10 as o

    x = o.parameter([8], np.float32, name="x")
    zero = o.constant(np.float32(0))
    outs = [o.select(o.is_nan(x, name="nan"), zero, x), o.convert(o.is_finite(x, name="finite"), "f32"),
            o.reshape(o.is_inf(x, name="inf"), [2, 4], False),
            o.logical_or(o.is_nan(x, name="ored"), o.is_inf(x, name="ored2")),
            o.is_nan(x, name="alone"), o.logical_not(o.is_inf(x, name="fused"))]
    model = tmp_path / "readers.xml"
    ov.save_model(ov.Model(outs, [x], "readers"), str(model), compress_to_fp16=False)
    assert ir_tools.read_ir(model).ir_version == 11
    assert set(_named(model, "2023.0")) == {"nan", "finite", "inf", "ored", "ored2"}
    _assert_repaired_for_2023(model, tmp_path, capsys)
