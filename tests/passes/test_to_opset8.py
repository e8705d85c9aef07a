"""to-opset8 proved by running: OpenVINO on the migrated IR must equal OpenVINO on the original.

Thousands of seeded AvgPool-1/14/16 layers (1-D to 3-D, every rounding and auto_pad, both
exclude-pad settings, asymmetric pads, dilations; only geometries OpenVINO accepts) are saved
with ``openvino.save_model``, migrated, written as IR v11 and v10 and run again. Many independent
Parameter -> AvgPool -> Result chains share one model so that each comparison costs one compile.
Equality: the same bits, NaN in the same places (``_differ``); ``emit`` against the numpy oracle, which adds in
f64: |emitted - oracle| <= 1e-6 + 1e-6*|oracle| elementwise, NaN in the same places.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset8 as ops8
import openvino.opset14 as ops14
import openvino.opset16 as ops16
import pytest

from ir_tools import IrToolsError, read_ir, write_ir
from ir_tools.base.dims import Dim
from ir_tools.base.errors import OpValidationError, UnsupportedError
from ir_tools.cli import main
from ir_tools.ir.model import Graph
from ir_tools.ops.pool_geometry import out_length, pool_geometry
from ir_tools.passes.builder import ORIGIN, GraphBuilder
from ir_tools.passes.exact_pool import WindowSpec, emit, reference
from ir_tools.passes.target import migrate
from ir_tools.passes.to_opset8 import to_opset8
from ir_tools.runtime import runners
from ir_tools.runtime.openvino import CPU_CONFIG, run_openvino
from tests.conftest import ROOT
from tests.ops.control_flow_cases import if_of

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

MODELS, CHAINS = 15, 150  # 2,250 layers
RTOL = ATOL = 1e-6


@dataclass(frozen=True)
class Case:
    version: int  # 1, 14 or 16
    lengths: tuple[int, ...]
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    auto_pad: str
    rounding: str
    exclude_pad: bool


def _random_case(rng: np.random.Generator) -> Case | None:
    """A random AvgPool layer, or None when OpenVINO would reject its geometry."""
    version = int(rng.choice([1, 14, 16]))
    n = int(rng.integers(1, 4))

    def ints(lo: int, hi: int) -> tuple[int, ...]:
        return tuple(int(v) for v in rng.integers(lo, hi, n))

    dilations = ints(1, 4) if version == 16 and rng.random() < 0.7 else (1,) * n
    auto_pad = str(rng.choice(["explicit"] * 5 + ["same_upper", "same_lower", "valid"]))
    roundings = ["floor", "ceil"] + (["ceil_torch"] * 3 if version > 1 else [])
    case = Case(version, ints(1, 10), ints(1, 5), ints(1, 4), dilations, ints(0, 4), ints(0, 4), auto_pad,
                str(rng.choice(roundings)), bool(rng.integers(2)))
    try:
        pool_geometry((Dim(1, 1), Dim(2, 2), *(Dim(v, v) for v in case.lengths)), case.kernel, case.strides,
                      case.dilations, case.pads_begin, case.pads_end, case.auto_pad, case.rounding, case.exclude_pad,
                      version > 1)
    except OpValidationError:
        return None
    return case


def _ov_pool(x: ov.Node, c: Case) -> ov.Node:
    args = (x, list(c.strides), list(c.pads_begin), list(c.pads_end), list(c.kernel), c.exclude_pad, c.rounding,
            None if c.auto_pad == "explicit" else c.auto_pad)
    if c.version == 16:
        return ops16.avg_pool(*args, dilations=list(c.dilations))
    return (ops14 if c.version == 14 else ops1).avg_pool(*args)


def _named(node: ov.Node, name: str) -> ov.Node:
    node.set_friendly_name(name)
    node.output(0).get_tensor().set_names({name})
    return node


def _save(cases: list[Case], path: Path) -> Path:
    params, results = [], []
    for i, c in enumerate(cases):
        x = _named(ops1.parameter([1, 2, *c.lengths], np.float32), f"in{i}")
        params.append(x)
        results.append(ops1.result(_named(_ov_pool(x, c), f"pool{i}"), name=f"pool{i}/sink"))
    ov.save_model(ov.Model(results, params, path.stem), path)
    return path


def _run_file(core: ov.Core, xml: Path, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run an IR file in OpenVINO CPU; outputs keyed by their tensor name."""
    compiled = core.compile_model(core.read_model(xml), "CPU", CPU_CONFIG)
    results = compiled(inputs)
    return {out.get_any_name(): results[out] for out in compiled.outputs}


def _mismatches(want: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> list[str]:
    bad = []
    for name, a in want.items():
        b = got[name]
        if a.shape != b.shape:
            bad.append(f"{name}: shape {a.shape} became {b.shape}")
        elif not np.array_equal(np.isnan(a), np.isnan(b)):
            bad.append(f"{name}: NaN positions differ")
        elif not np.allclose(b, a, rtol=RTOL, atol=ATOL, equal_nan=True):
            bad.append(f"{name}: max abs difference {np.nanmax(np.abs(a - b))}")
    return bad


def _differ(want: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> list[str]:
    """The outputs whose shapes, NaN positions or other bits (the sign of zero too) differ."""
    bad = []
    for name, a in want.items():
        b = got[name]
        if a.shape != b.shape or not np.array_equal(np.isnan(a), np.isnan(b)):
            bad.append(f"{name}: shape {a.shape} became {b.shape}, or NaN positions differ")
        elif not np.array_equal(np.nan_to_num(a).view(np.uint32), np.nan_to_num(b).view(np.uint32)):
            bad.append(f"{name}: bits differ, max abs difference {np.nanmax(np.abs(a - b))}")
    return bad


def _assert_only_opset8(xml: Path) -> None:
    pools = read_ir(xml).by_type("AvgPool")
    assert pools and all(layer.version == "opset8" for layer in pools)


def test_thousands_of_layers_run_identically(tmp_path: Path) -> None:
    core = ov.Core()
    stats: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    tested, failures = 0, []
    for m in range(MODELS):
        rng = np.random.default_rng(1000 + m)
        cases: list[Case] = []
        while len(cases) < CHAINS:
            case = _random_case(rng)
            if case is not None:
                cases.append(case)
        kinds.update(f"v{c.version}/{c.rounding}/{c.auto_pad}" for c in cases)
        original = _save(cases, tmp_path / f"model{m}.xml")
        inputs = {f"in{i}": rng.standard_normal((1, 2, *c.lengths)).astype(np.float32) for i, c in enumerate(cases)}
        want = _run_file(core, original, inputs)

        graph = read_ir(original)
        stats.update(migrate(graph).stats)
        for version in (11, 10):
            migrated = tmp_path / f"model{m}_v{version}.xml"
            write_ir(graph, migrated, version)
            _assert_only_opset8(migrated)
            failures += [f"model{m} v{version}: {b}" for b in _differ(want, _run_file(core, migrated, inputs))]
        tested += len(cases)
    print(f"\n{tested} layers, {len(failures)} mismatches; rewrites {dict(stats)}")
    assert tested >= 2000
    assert not failures, failures[:10]
    # every rule was exercised, and every kind of source layer was present
    assert all(kinds[f"v{v}/{r}/explicit"] for v in (14, 16) for r in ("floor", "ceil", "ceil_torch"))
    assert all(kinds[f"v1/{r}/{p}"] for r in ("floor", "ceil") for p in ("same_upper", "same_lower", "valid"))
    made = " ".join(stats)
    # OpenVINO's own divisor rule never needs a Pad (ONNX and legacy semantics do: see the emit tests)
    # (dilated sums divided by one count, by each through a Gather, and windows without a tap by a Multiply)
    for part in ("AvgPool-1 -> AvgPool-1", "AvgPool-14 -> AvgPool ", "+ShapeOf+StridedSlice", "+Gather+",
                 "+Multiply+"):
        assert part in made, (part, dict(stats))


def test_ceil_torch_dropping_a_window_becomes_floor_with_adjusted_pads(tmp_path: Path) -> None:
    # L=5, K2, S2, pads 1/1: ceil gives 4 windows, ceil_torch 3 (the last would start in the end padding)
    case = Case(14, (5,), (2,), (2,), (1,), (1,), (1,), "explicit", "ceil_torch", True)
    graph = read_ir(_save([case], tmp_path / "drop.xml"))
    result = to_opset8(graph)
    (pool,) = graph.by_type("AvgPool")
    assert result.modified and pool.version == "opset8" and pool.name == "pool0"
    assert (pool.attrs["rounding_type"], pool.attrs["pads_end"]) == ("floor", "0")
    assert pool.outputs[0].names == "pool0" and pool.outputs[0].dims == (1, 2, 3)
    origin = {k: v for node in pool.rt_info for k, v in node.attrs}
    assert origin == {"name": ORIGIN, "version": "0", "value": "AvgPool-14 (opset14) 'pool0'"}


def test_ceil_torch_keeping_every_window_stays_plain_ceil(tmp_path: Path) -> None:
    case = Case(14, (6,), (3,), (2,), (1,), (1,), (1,), "explicit", "ceil_torch", False)
    graph = read_ir(_save([case], tmp_path / "keep.xml"))
    to_opset8(graph)
    (pool,) = graph.by_type("AvgPool")
    assert (pool.attrs["rounding_type"], pool.attrs["pads_end"]) == ("ceil", "1")


def test_same_upper_is_resolved_into_explicit_pads(tmp_path: Path) -> None:
    case = Case(1, (17,), (3,), (2,), (1,), (0,), (0,), "same_upper", "floor", True)
    graph = read_ir(_save([case], tmp_path / "same.xml"))
    to_opset8(graph)
    (pool,) = graph.by_type("AvgPool")
    assert {k: pool.attrs[k] for k in ("auto_pad", "pads_begin", "pads_end", "rounding_type")} == {
        "auto_pad": "explicit", "pads_begin": "1", "pads_end": "1", "rounding_type": "floor"}


def test_already_opset8_is_not_modified(tmp_path: Path) -> None:
    case = Case(1, (8,), (2,), (2,), (1,), (0,), (0,), "explicit", "floor", True)
    graph = read_ir(_save([case], tmp_path / "plain.xml"))
    assert to_opset8(graph).modified
    assert not to_opset8(graph).modified


# -- dynamic spatial dims ------------------------------------------------------------------------
def _dynamic_model(path: Path, shape: ov.PartialShape, make) -> Path:
    x = _named(ops1.parameter(shape, np.float32), "in0")
    ov.save_model(ov.Model([ops1.result(_named(make(x), "pool0"), name="sink")], [x], path.stem), path)
    return path


@pytest.mark.parametrize("name, dim, make", [
    ("same_upper", ov.Dimension(), lambda x: ops1.avg_pool(x, [2], [0], [0], [3], True, "ceil", "same_upper")),
    # ceil_torch drops a window only if pads_end + S > K: never here, for any length
    ("no_pads", ov.Dimension(), lambda x: ops14.avg_pool(x, [2], [0], [0], [3], False, "ceil_torch")),
    ("interval", ov.Dimension(3, 20), lambda x: ops14.avg_pool(x, [2], [1], [1], [3], True, "ceil_torch")),
])
def test_dynamic_dims_keep_their_meaning(tmp_path: Path, name: str, dim: ov.Dimension, make) -> None:
    path = _dynamic_model(tmp_path / f"{name}.xml", ov.PartialShape([1, 2, dim]), make)
    graph = read_ir(path)
    migrate(graph)
    (pool,) = graph.by_type("AvgPool")
    assert pool.version == "opset8" and pool.attrs["rounding_type"] == "ceil"
    core = ov.Core()
    migrated = tmp_path / f"{name}_migrated.xml"
    write_ir(graph, migrated)
    for length in (3, 4, 5, 6, 7, 8, 13):
        inputs = {"in0": np.random.default_rng(length).standard_normal((1, 2, length)).astype(np.float32)}
        assert not _differ(_run_file(core, path, inputs), _run_file(core, migrated, inputs))


@pytest.mark.parametrize("name, make, words", [
    ("drops", lambda x: ops14.avg_pool(x, [2], [0], [0], [1], True, "ceil_torch"), "at length 2"),
    ("dilated", lambda x: ops16.avg_pool(x, [1], [1], [0], [2], True, "floor", dilations=[2]), "dilations [2]"),
])
def test_dynamic_dims_without_an_opset8_form_are_refused_by_name(tmp_path: Path, name: str, make, words: str) -> None:
    path = _dynamic_model(tmp_path / f"{name}.xml", ov.PartialShape([1, 2, -1]), make)
    graph = read_ir(path)
    with pytest.raises(UnsupportedError) as info:
        migrate(graph)
    text = str(info.value)
    line = next(i for i, s in enumerate(path.read_text().splitlines(), 1) if 'name="pool0"' in s)
    assert f"{path}:{line}: layer 'pool0'" in text and words in text


def test_migrate_rejects_unknown_targets() -> None:
    with pytest.raises(IrToolsError, match="unknown target '1999.1'"):
        migrate(Graph(), target="1999.1")


# -- emit on its own: ONNX-style and other specs against the numpy oracle ------------------------
def _random_spec(rng: np.random.Generator) -> WindowSpec | None:
    n = int(rng.integers(1, 4))

    def ints(lo: int, hi: int) -> tuple[int, ...]:
        return tuple(int(v) for v in rng.integers(lo, hi, n))

    lengths, kernel, strides, pb, pe = ints(1, 9), ints(1, 5), ints(1, 4), ints(0, 3), ints(0, 3)
    dilations = ints(1, 3) if rng.random() < 0.3 else (1,) * n
    rounding = str(rng.choice(["floor", "ceil", "ceil_torch"]))
    if any(n + b + e < d * (k - 1) + 1 for n, b, e, d, k in zip(lengths, pb, pe, dilations, kernel, strict=True)):
        return None
    out = tuple(out_length(*args, rounding) for args in zip(lengths, kernel, strides, dilations, pb, pe, strict=True))
    if rng.random() < 0.2:  # fewer windows than any pads give, or windows starting inside the data: a slice
        out = tuple(int(rng.integers(1, o + 1)) for o in out)
        pb = tuple(b - int(rng.integers(0, 3)) for b in pb)
    flavour = rng.integers(3)  # whole kernel, exclude-pad, ONNX count_include_pad
    lo = tuple(-b for b in pb) if flavour == 2 else (0,) * n
    hi = tuple(v + e for v, e in zip(lengths, pe, strict=True)) if flavour == 2 else lengths
    spec = WindowSpec(lengths, kernel, strides, dilations, pb, out, flavour == 0, lo, hi,
                      pe if rng.random() < 0.5 else None)
    # emit refuses an axis where no window reads any data (the whole output would be NaN or 0)
    reads = all(min(n, spec.tap_end(i)) > max(0, -b) for i, (n, b) in enumerate(zip(lengths, pb, strict=True)))
    return spec if reads else None


def test_emit_matches_the_window_spec_definition() -> None:
    rng = np.random.default_rng(7)
    graph = Graph("emit")
    builder = GraphBuilder(graph)
    specs, inputs = [], {}
    while len(specs) < 300:
        spec = _random_spec(rng)
        if spec is None:
            continue
        i = len(specs)
        x = builder.parameter(f"in{i}", "f32", (Dim(1, 1), Dim(2, 2), *(Dim(v, v) for v in spec.lengths)))
        out = emit(builder, x, spec, f"pool{i}")
        graph.layer(out[0]).outputs[0].names = f"pool{i}"
        builder.result(out, f"pool{i}/sink")
        inputs[f"in{i}"] = rng.standard_normal((1, 2, *spec.lengths)).astype(np.float32)
        specs.append(spec)
    assert all(layer.version in ("opset1", "opset8") for layer in graph.layers())
    got = run_openvino(graph, inputs).outputs
    want = {f"pool{i}": reference(inputs[f"in{i}"], spec) for i, spec in enumerate(specs)}
    assert not _mismatches(want, got)


def test_emit_reproduces_onnx_count_include_pad_with_a_ceil_overhang() -> None:
    # docs/SEMANTICS.md section 3: ONNX gives [1, 3, 5, 3] where OpenVINO's own AvgPool gives [1, 3, 5, 2]
    graph = Graph("onnx")
    builder = GraphBuilder(graph)
    x = builder.parameter("x", "f32", (Dim(1, 1), Dim(1, 1), Dim(6, 6)))
    spec = WindowSpec((6,), (3,), (2,), (1,), (1,), (4,), False, (-1,), (7,))
    out = emit(builder, x, spec, "pool")
    graph.layer(out[0]).outputs[0].names = "y"
    builder.result(out, "sink")
    assert sorted(layer.type for layer in graph.layers() if layer.type not in ("Const", "Parameter", "Result")) == [
        "AvgPool", "Pad"]
    y = run_openvino(graph, {"x": np.arange(1, 7, dtype=np.float32).reshape(1, 1, 6)}).outputs["y"]
    np.testing.assert_array_equal(y.ravel(), [1, 3, 5, 3])


def test_emit_refuses_more_windows_than_it_can_hold_divisors_for() -> None:
    """A legacy IR's pooling on an axis of 2**32 made migrate ask numpy for 16 GiB and more, and the process was killed
    for memory (the mutation fuzzer, seed 64873): ``emit`` refuses past MAX_WINDOWS windows, or taps on an axis,
    with UnsupportedError (E-UNSUPPORTED, the layer named by the pass). Just past it (128 MiB of divisors otherwise)."""
    from ir_tools.base.errors import UnsupportedError
    from ir_tools.passes.exact_pool import MAX_WINDOWS

    for lengths, kernel in (((MAX_WINDOWS + 1,), (1,)), ((MAX_WINDOWS // 2,), (3,))):
        graph = Graph("huge")
        builder = GraphBuilder(graph)
        x = builder.parameter("x", "f32", (Dim(1, 1), Dim(1, 1), Dim(lengths[0], lengths[0])))
        out = (lengths[0] - kernel[0] + 1,)
        spec = WindowSpec(lengths, kernel, (1,), (1,), (0,), out, False, (0,), lengths)
        with pytest.raises(UnsupportedError, match="at most 33,554,432 windows"):
            emit(builder, x, spec, "pool")


# -- the CLI -------------------------------------------------------------------------------------
MIXED = ROOT / "samples" / "avgpool14_16_mixed.xml"


def test_cli_prints_the_op_table_checks_and_writes(tmp_path: Path, capsys) -> None:
    out = tmp_path / "mixed.xml"
    assert main(["migrate", str(MIXED), "-o", str(out), "--check", "--seed", "3"]) == 0
    text = capsys.readouterr().out
    for row in ("AvgPool@opset14                   1      0", "AvgPool@opset16                   1      0",
                "AvgPool@opset8                    0      2", "StridedSlice@opset1               0      4",
                "rewrote 1 x AvgPool-14 -> AvgPool (opset8)", "pool14: same", "pool16: same", f"wrote {out}"):
        assert row in text, text
    _assert_only_opset8(out)


def test_cli_check_exits_1_when_outputs_differ_and_writes_nothing(tmp_path: Path, capsys,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # RandomUniform with seeds 0/0 draws new numbers on every compile: no rewrite can reproduce it. `--check` leaves
    # what it gives uncompared (test_target.py); taken here as if seeded, so that the outputs differ
    monkeypatch.setattr(runners, "unseeded_random", lambda graph: [])
    x = _named(ops1.parameter([1, 2, 5], np.float32), "in0")
    noise = ops8.random_uniform(ops1.constant(np.array([1, 2, 3], np.int64)), ops1.constant(np.float32(0)),
                                ops1.constant(np.float32(1)), "f32", 0, 0)
    pool = _named(ops14.avg_pool(x, [2], [1], [1], [2], True, "ceil_torch"), "pool0")
    y = _named(ops1.add(pool, noise), "y")
    model = tmp_path / "random.xml"
    ov.save_model(ov.Model([ops1.result(y, name="sink")], [x], "random"), model)
    out = tmp_path / "out.xml"
    assert main(["migrate", str(model), "-o", str(out), "--check"]) == 1
    text = capsys.readouterr().out
    assert "y: DIFFERENT" in text and "not written" in text and not out.exists()


def test_cli_refuses_to_overwrite_its_input_without_in_place(tmp_path: Path, capsys) -> None:
    model = tmp_path / "model.xml"
    model.write_bytes(MIXED.read_bytes())
    model.with_suffix(".bin").write_bytes(MIXED.with_suffix(".bin").read_bytes())
    before = model.read_bytes()
    assert main(["migrate", str(model), "-o", str(model)]) == 2
    assert "E-OVERWRITE" in capsys.readouterr().err and model.read_bytes() == before
    assert main(["migrate", str(model), "--in-place"]) == 0
    _assert_only_opset8(model)


def test_cli_dry_run_writes_nothing(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out.xml"
    assert main(["migrate", str(MIXED), "-o", str(out), "--dry-run", "--check"]) == 0
    assert "dry run: nothing written" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, code", [
    (["migrate", str(MIXED)], "E-USAGE"),
    (["migrate", "no_such_model.xml", "--dry-run"], "E-READ"),
    (["migrate", str(ROOT / "samples" / "README_migrate.md"), "--dry-run"], "E-READ"),
])
def test_cli_bad_input_is_a_diagnostic_and_exit_2(argv: list[str], code: str, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"error[{code}]" in err and "Traceback" not in err


def test_cli_unsupported_layer_is_named_with_file_and_line(tmp_path: Path, capsys) -> None:
    path = _dynamic_model(tmp_path / "dyn.xml", ov.PartialShape([1, 2, -1]),
                          lambda x: ops16.avg_pool(x, [1], [1], [0], [2], True, "floor", dilations=[2]))
    assert main(["migrate", str(path), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:" in err and "error[E-UNSUPPORTED]" in err and "layer 'pool0'" in err


def test_a_pad_before_the_pool_is_not_folded_into_a_different_divisor(tmp_path: Path) -> None:
    # OpenVINO folds a zero Pad into a following AvgPool-1 without pads (PadFusionAvgPool) and then
    # divides by the whole kernel; AvgPool-14 is not folded. Padded length 5, K2, S2, ceil_torch,
    # exclude-pad: the last window holds one element, so plain ceil without pads would be folded wrongly.
    x = _named(ops1.parameter([1, 2, 4], np.float32), "in0")
    padded = ops1.pad(x, ops1.constant(np.array([0, 0, 1], np.int64)), ops1.constant(np.array([0, 0, 0], np.int64)),
                      "constant")
    pool = _named(ops14.avg_pool(padded, [2], [0], [0], [2], True, "ceil_torch"), "pool0")
    path = tmp_path / "pad_pool.xml"
    ov.save_model(ov.Model([ops1.result(pool, name="sink")], [x], "pad_pool"), path)
    graph = read_ir(path)
    migrate(graph)
    (rewritten,) = graph.by_type("AvgPool")
    assert rewritten.attrs["pads_end"] != "0"  # a pad of its own keeps OpenVINO from folding the Pad in
    migrated = tmp_path / "migrated.xml"
    write_ir(graph, migrated)
    inputs = {"in0": np.arange(1, 9, dtype=np.float32).reshape(1, 2, 4)}
    core = ov.Core()
    assert not _differ(_run_file(core, path, inputs), _run_file(core, migrated, inputs))


def test_plain_migrate_rewrites_average_pooling_inside_bodies(tmp_path: Path) -> None:
    """An If whose then body holds AvgPool-14 ceil_torch and whose else body AvgPool-14 floor with pads: migrate
    without --target rewrites both into opset8 AvgPool (it left bodies as they were, while check --target said it
    rewrites them); the result computes, for either condition, what OpenVINO computes on the original, exactly."""
    from ir_tools.ir.bodies import body_layers

    x = ops8.parameter([1, 2, 9, 9], np.float32, name="x")
    condition = ops8.parameter([], np.bool_, name="c")
    tx, ex = ops8.parameter([1, 2, 9, 9], np.float32), ops8.parameter([1, 2, 9, 9], np.float32)
    then = ov.Model([ops8.result(ops14.avg_pool(tx, [2, 2], [0, 0], [0, 0], [3, 3], True, "ceil_torch"))], [tx])
    orelse = ov.Model([ops8.result(ops14.avg_pool(ex, [2, 2], [1, 1], [1, 1], [3, 3], False, "floor"))], [ex])
    model = tmp_path / "if_avgpool14.xml"
    ov.save_model(ov.Model([if_of(condition.output(0), x.output(0), then, orelse)], [x, condition]), model)
    done = migrate(str(model))
    inner = [lay for lay in done.graph.layers() if lay.is_a("If") for lay in body_layers(lay)]
    assert done.modified and sorted(f"{lay.type}@{lay.version}" for lay in inner if lay.is_a("AvgPool")) == [
        "AvgPool@opset8", "AvgPool@opset8"], inner
    out = tmp_path / "migrated.xml"
    write_ir(done.graph, out)
    value = np.random.default_rng(52).standard_normal((1, 2, 9, 9)).astype(np.float32)
    for taken in (True, False):
        feed = {"x": value, "c": np.array(taken)}
        want = ov.Core().compile_model(str(model), "CPU", CPU_CONFIG)(feed)[0]
        got = ov.Core().compile_model(str(out), "CPU", CPU_CONFIG)(feed)[0]
        assert np.array_equal(got, want), taken


def test_the_migrate_table_counts_the_layers_inside_bodies(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """migrate's before/after table counts the layers of an If's bodies too: the AvgPool-14 it rewrote there show as
    2 before and 0 after, the opset8 AvgPools as 0 and 2 (it counted the top level only, where neither is)."""
    x = ops8.parameter([1, 2, 9, 9], np.float32, name="x")
    condition = ops8.parameter([], np.bool_, name="c")
    bodies = []
    for rounding in ("ceil_torch", "floor"):
        inner = ops8.parameter([1, 2, 9, 9], np.float32)
        bodies.append(ov.Model([ops8.result(ops14.avg_pool(inner, [2, 2], [0, 0], [0, 0], [3, 3], True, rounding))],
                               [inner]))
    model = tmp_path / "if_avgpool14.xml"
    ov.save_model(ov.Model([if_of(condition.output(0), x.output(0), *bodies)], [x, condition]), model)
    assert main(["migrate", str(model), "-o", str(tmp_path / "out.xml")]) == 0
    table = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines() if "@opset" in line}
    assert table["AvgPool@opset14"] == ["2", "0"] and table["AvgPool@opset8"] == ["0", "2"], table
    assert table["If@opset8"] == ["1", "1"] and table["Parameter@opset1"] == ["4", "4"], table


def test_the_migrate_table_keeps_its_columns_for_long_op_names(capsys: pytest.CaptureFixture) -> None:
    """The before and after counts stand in their columns whatever the op's name: a name over 28 characters
    (ScaledDotProductAttention@opset13) pushed its row out of line (from a QA run)."""
    from ir_tools.cli import _print_histogram

    args = type("Args", (), {"quiet": False})()
    _print_histogram(args, Counter({"ScaledDotProductAttention@opset13": 2, "MatMul@opset1": 9}),
                     Counter({"SoftMax@opset8": 2, "MatMul@opset1": 13}), Counter())
    lines = capsys.readouterr().out.splitlines()
    assert len({len(line) for line in lines}) == 1, lines
