"""ScaledDotProductAttention-13 migrated for OpenVINO 2023.0 (passes/downgrade/attention.py): MatMul-1, SoftMax-8 and
element-wise ops, run on OpenVINO 2023.0 and on the current OpenVINO, against the current OpenVINO on the original.

Seeded layers in one model (one compile per run): f32 and f16; query of rank 3 or 4, key and value of that rank or
lower, batch dims that broadcast; no mask, a float mask (some keys -inf), a boolean mask (some rows masked whole),
a scalar zero mask, masks of every rank from 2 up, of one row or one key; causal with L = S, L < S and L > S, its
mask input (ignored) a Parameter or a Const; the scale as input 4 (scalar or of one element, a Const or a
Parameter) or 1/sqrt(E); static shapes and Parameters of dynamic dims (-1) run at concrete shapes. The query keeps the
highest rank: OpenVINO 2026.4 CPU cannot compile a key or value of higher rank (tests/ops/test_attention_conformance).

The tolerance is the op's rounding rule (ops/attention.py: Q * scale, MatMul, the mask's add, SoftMax and MatMul, each
bounded by its own op's rule from ops/rounding.py) on the exact inputs, ``b`` per element: every run (the original
on the current OpenVINO, the migrated file on 2023.0 and on the current OpenVINO) must lie within ``b`` of the exact
result (our float64 kernel), so the migrated file within ``2 b`` of the original; NaN (a row masked whole) exactly
where the original has NaN.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.cli import main
from ir_tools.ops import attrs as A
from ir_tools.ops.attention import SCALED_DOT_PRODUCT_ATTENTION_13 as SDPA
from ir_tools.ops.rounding import EXACT
from tests.downgrade.runs import NEEDS_2023, migrate
from tests.ops.verdicts import mismatch
from tests.test_target import side_pythons

pytestmark = NEEDS_2023

SEED = 2213
STATIC_CASES = 320
DYNAMIC_CASES = 40


@dataclass
class Case:
    """One SDPA layer: its inputs' values, which of them are Consts, causal, and which dims of its Parameters are
    dynamic: none, the batch dims or all."""

    inputs: list[np.ndarray]
    causal: bool
    consts: tuple[int, ...]
    dynamic: str = ""


def _batch_of(rng: np.random.Generator, batch: list[int], rank: int) -> list[int]:
    """The last ``rank`` of ``batch``'s dims, some of them 1 (they broadcast)."""
    return [1 if rng.random() < 0.25 else d for d in batch[len(batch) - rank:]]


def _mask(rng: np.random.Generator, kind: str, batch: list[int], length: int, source: int, dtype: type,
          whole_rows: bool) -> np.ndarray | None:
    """A mask of ``kind``: rank 2 up to the query's, of one row or one key at times, of several rows for one query
    (the op's output then has the mask's rows); its batch dims may broadcast into the query's; a boolean one with
    a row masked whole at times, where ``whole_rows``."""
    if kind == "none":
        return None
    if kind == "scalar":
        return np.zeros((), dtype)
    rows = int(rng.integers(2, 5)) if length == 1 and rng.random() < 0.3 else 1 if rng.random() < 0.2 else length
    shape = [*_batch_of(rng, batch, int(rng.integers(0, len(batch) + 1))), rows,
             1 if rng.random() < 0.15 else source]
    if kind == "float":
        mask = (rng.standard_normal(shape) * 2.0).astype(dtype)
        if shape[-1] > 1 and rng.random() < 0.4:
            mask[..., 1:][rng.random(mask[..., 1:].shape) < 0.3] = -np.inf  # masked keys, never a whole row
        return mask
    keep = rng.random(shape) < 0.7
    keep[..., 0] = True
    if whole_rows and rng.random() < 0.3:  # a row masked whole: NaN, in the op and in the rewrite
        rows = keep.reshape(-1, shape[-1])
        rows[int(rng.integers(0, len(rows)))] = False
    return keep


def attention_case(rng: np.random.Generator, i: int, dynamic: str = "") -> Case:
    dtype = np.float16 if i % 4 == 3 else np.float32
    length, source, out_depth = (int(v) for v in rng.integers(1, 9, 3))
    if dynamic and rng.random() < 0.4:
        length = 1  # a decoder's step: a mask (or causal bias) of one row, rule 4 of the pass
    depth = int(rng.integers(1, 17)) if rng.random() < 0.85 else int(rng.integers(30, 80))
    if rng.random() < 0.15:
        source = int(rng.integers(20, 60))
    causal = bool(rng.random() < (0.5 if dynamic else 0.25))
    if causal and i % 3 == 0:
        source = length  # L = S a third of the time, L < S and L > S the rest
    rank = int(rng.integers(3, 5))
    batch = [int(v) for v in rng.integers(1, 4, rank - 2)]
    ranks = [rank, *(int(v) for v in rng.integers(3, rank + 1, 2))]
    shapes = [[*_batch_of(rng, batch, rank - 2), length, depth], [*_batch_of(rng, batch, ranks[1] - 2), source, depth],
              [*_batch_of(rng, batch, ranks[2] - 2), source, out_depth]]
    inputs = [(rng.standard_normal(s) * w).astype(dtype) for s, w in zip(shapes, (2.0, 2.0, 1.0), strict=True)]
    kinds = ["none", "float", "float", "boolean", "boolean", "scalar"]
    # (not with one key on dynamic batch dims: OpenVINO 2026.4 CPU's answer is then wrong, docs/SEMANTICS.md)
    whole_rows = not (dynamic == "batch" and source == 1)
    mask = _mask(rng, kinds[int(rng.integers(0, len(kinds)))], batch, length, source, dtype, whole_rows)
    scale_kind = ("none", "none", "scalar", "one")[int(rng.integers(0, 4))]
    if scale_kind != "none":
        value = np.float32(rng.uniform(0.05, 1.5))
        if mask is None:
            mask = np.zeros((), dtype)  # (the scale is input 4: a mask must stand before it)
        inputs += [mask, np.array(value if scale_kind == "scalar" else [value], dtype)]
    elif mask is not None:
        inputs.append(mask)
    consts = tuple(j for j in (3, 4) if j < len(inputs) and rng.random() < 0.5)
    return Case(inputs, causal, consts, dynamic)


def attention_model(path: Path, cases: list[Case]) -> tuple[Path, dict[str, np.ndarray]]:
    """One SDPA-13 layer ``sdpa{i}`` per case, its Parameters ``c{i}_{j}`` (dims -1 where the case says, the last
    two of a batch-dynamic one static), its output ``y{i}``; returns the path and the inputs."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset13 as o13

    params, results, feed = [], [], {}
    for i, case in enumerate(cases):
        nodes = []
        for j, x in enumerate(case.inputs):
            if j in case.consts:
                nodes.append(o1.constant(x))
                continue
            name = f"c{i}_{j}"
            static = {"": x.ndim, "batch": min(x.ndim, 2), "all": 0}[case.dynamic]
            p = o1.parameter([-1] * (x.ndim - static) + list(x.shape[x.ndim - static:]), x.dtype, name=name)
            p.output(0).get_tensor().set_names({name})
            params.append(p)
            nodes.append(p)
            feed[name] = x
        node = o13.scaled_dot_product_attention(*nodes, causal=case.causal, name=f"sdpa{i}")
        node.output(0).get_tensor().set_names({f"y{i}"})
        results.append(o1.result(node, name=f"y{i}/result"))
    ov.save_model(ov.Model(results, params, "attention"), str(path), compress_to_fp16=False)
    return path, feed


def exact_and_bound(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """Our kernel's result (float64 inside, in the element type) and the rounding rule's bound on it."""
    attrs = A.decode(SDPA.attrs, {"causal": str(case.causal).lower()})
    outputs = SDPA.kernel(attrs, case.inputs)
    (bound,) = SDPA.rounding(SDPA.kernel, attrs, case.inputs, [EXACT] * len(case.inputs), outputs)
    return outputs[0], np.broadcast_to(bound, outputs[0].shape)


def test_attention_runs_on_2023_within_its_rounding_bound(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """360 seeded SDPA-13 layers in one model, 40 on Parameters of dynamic dims (all, or the batch dims)."""
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    rng = np.random.default_rng(SEED)
    cases = [attention_case(rng, i, "" if i < STATIC_CASES else ("all", "batch")[i % 2])
             for i in range(STATIC_CASES + DYNAMIC_CASES)]
    model, feed = attention_model(tmp_path / "attention.xml", cases)
    out, printed = migrate(model, capsys)
    rewrote = {kind: int(n) for n, kind in re.findall(r"rewrote (\d+) x ScaledDotProductAttention-13 \(([^)]+)\)",
                                                       printed)}
    assert sum(rewrote.values()) == len(cases) and set(rewrote) == {"no mask", "float mask", "boolean mask",
                                                                      "causal"}, printed
    graph, migrated = ir_tools.read_valid(model), ir_tools.read_valid(out)
    assert not migrated.by_type("ScaledDotProductAttention") and len(migrated.by_type("Broadcast")) >= 3
    files = ModelFiles(out, out.with_suffix(".bin"))
    want = OpenVinoRunner(graph, ModelFiles(model, model.with_suffix(".bin"))).run(feed)
    runs = {"original, current": want,
            "migrated, 2023.0": ChildOpenVinoRunner(side_pythons()["2023.0"], migrated, files).run(feed),
            "migrated, current": OpenVinoRunner(migrated, files).run(feed)}
    failures, nan_rows = [], 0
    for i, case in enumerate(cases):
        exact, bound = exact_and_bound(case)
        nan_rows += int(np.isnan(exact).any())
        for run, got in runs.items():
            y = got[f"y{i}"]
            problem = (mismatch(y, exact, lambda w, b=bound: b) or
                       mismatch(y, want[f"y{i}"], lambda w, b=bound: 2.0 * b))
            if problem:
                failures.append(f"case {i} ({run}): {problem}")
    assert not failures, f"{len(failures)} runs differ:\n" + "\n".join(failures[:20])
    assert nan_rows >= 10, nan_rows


@pytest.mark.parametrize("target", ["2023.0", "2024.0"])
def test_check_target_and_names(tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    """Before migrating, ``check --target 2023.0`` names the rewrite (2024.0 creates the op: E-TARGET and rewritten
    only where a defect of 2024.0 hits it, tests/downgrade/test_release_defects.py); after,
    no E-TARGET, and OpenVINO reports the original's input and output names, the final MatMul keeping the layer's
    name."""
    import openvino as ov

    rng = np.random.default_rng(SEED + 1)
    cases = [attention_case(rng, i, ("", "all", "batch")[i % 3]) for i in range(12)]
    model, _ = attention_model(tmp_path / "names.xml", cases)
    refused = [d for d in ir_tools.check(model, openvino=False, target=target) if d.code == "E-TARGET"]
    if target == "2024.0":
        # the layers its defects hit: a boolean mask (computed inverted), a mask with a 1 in place of L or S (refused
        # at read), a rank-3 key or value beside a rank-4 query (computed wrongly), a mask of rank 0 fed (crashes):
        # tests/downgrade/test_release_defects.py measures each
        from ir_tools.ops.releases import release
        from ir_tools.passes.downgrade import ScaledDotProductAttentionTo8

        graph = ir_tools.read_ir(model)
        hits = ScaledDotProductAttentionTo8(release(target))
        inverted = [f"sdpa{i}" for i, case in enumerate(cases)
                    if not case.causal and len(case.inputs) > 3 and case.inputs[3].dtype == bool]
        hit = [layer.name for layer in graph.by_type("ScaledDotProductAttention") if hits.defect(graph, layer)]
        assert 0 < len(inverted) and set(inverted) <= set(hit) and len(hit) < 12
        named = {layer.id: layer.name for layer in graph.layers()}
        assert [named[d.loc.layer_id] for d in refused] == hit
        assert all(("computes ScaledDotProductAttention-13 with a boolean mask inverted" in d.message) ==
                   (named[d.loc.layer_id] in inverted) for d in refused)
        others = ("refuses to read ScaledDotProductAttention-13 with a mask whose last two dims",
                  "computes ScaledDotProductAttention-13 of a rank-4 query and a key or value of rank 3",
                  "crashes at inference (SIGSEGV) on ScaledDotProductAttention-13 with a mask of rank 0")
        assert all(any(words in d.message for words in others) for d in refused
                   if named[d.loc.layer_id] not in inverted), refused
        assert main(["migrate", str(model), "--target", target, "-o", str(tmp_path / "kept.xml")]) == 0
        kept = ir_tools.read_ir(tmp_path / "kept.xml")
        assert sorted(layer.name for layer in kept.by_type("ScaledDotProductAttention")) == sorted(
            f"sdpa{i}" for i in range(12) if f"sdpa{i}" not in hit)
        return
    assert len(refused) == 12 and all("rewrites it into MatMul-1, SoftMax-8" in d.message for d in refused), refused
    out = tmp_path / "names_2023.xml"
    assert main(["check", str(model), "--no-openvino", "--target", target]) == 1
    assert main(["migrate", str(model), "--target", target, "-o", str(out)]) == 0
    capsys.readouterr()
    assert not [d for d in ir_tools.check(out, openvino=False, target=target) if d.code == "E-TARGET"]
    assert main(["check", str(out), "--no-openvino", "--target", target]) == 0
    before, after = (ov.Core().read_model(str(path)) for path in (model, out))
    assert [p.get_names() for p in after.inputs] == [p.get_names() for p in before.inputs]
    assert [r.get_names() for r in after.outputs] == [r.get_names() for r in before.outputs]
    named = {layer.name: layer.type for layer in ir_tools.read_ir(out).layers()}
    assert all(named[f"sdpa{i}"] == "MatMul" for i in range(12))


@pytest.mark.parametrize("dynamic", ["qkv", "q", "k", "v"])
def test_dynamic_rank_refused_with_why_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  dynamic: str) -> None:
    """A query, key or value of a dynamic rank: the rewrite reads their last dims, and OpenVINO 2026.4 compiles no
    such layer (measured here too). A QA run's migrate failed with 'IndexError: tuple index out of range' in the
    pass; now check --target and migrate --target refuse it, E-TARGET at its line, saying why, nothing written."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset13 as o13

    shapes = {"q": [2, 3, 5, 8], "k": [2, 3, 6, 8], "v": [2, 3, 6, 4]}
    params = {n: o1.parameter(ov.PartialShape.dynamic() if n in dynamic else s, np.float32, name=n)
              for n, s in shapes.items()}
    sdpa = o13.scaled_dot_product_attention(*params.values(), causal=dynamic == "q", name="attention")
    path = tmp_path / "dynamic_rank.xml"
    ov.save_model(ov.Model([sdpa], list(params.values()), "dynamic_rank"), str(path))
    with pytest.raises(RuntimeError):  # (the original: OpenVINO itself cannot compile it)
        ov.Core().compile_model(str(path), "CPU")
    named = {"qkv": "query, key and value have", "q": "query has", "k": "key has", "v": "value has"}[dynamic]
    why = f"no rewrite applies to this layer: its {named} a dynamic rank, which the rewrite needs known"
    line = next(layer.line for layer in ir_tools.read_ir(path).layers() if layer.name == "attention")
    assert main(["check", str(path), "--no-openvino", "--target", "2023.0"]) == 1
    assert why in capsys.readouterr().out
    out = tmp_path / "out.xml"
    assert main(["migrate", str(path), "--target", "2023.0", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert re.search(rf"dynamic_rank\.xml:{line}: error\[E-TARGET\]: layer 'attention' .*{re.escape(why)}", err), err
    assert "Error" not in err.replace("error[", "") and not out.exists()


def test_rows_masked_whole_by_a_finite_value_are_not_nan_on_2023(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``masked_attention_row_nan``: OpenVINO 2023.0 fuses the form SDPA-13 is migrated into (between the Transposes
    of an attention) and computes a row whose every key a finite mask value takes out as NaN, where the op (and the
    current OpenVINO) gives uniform weights: OPT fed a mask of left padding (a language model's f32 least), migrated
    for 2023.0, gave NaN in every output there. Rule 5 subtracts the row's maximum first: the migrated model, run on
    2023.0 and on the current OpenVINO, computes what the original computes, the rows masked whole by -inf NaN as
    the op's; a target without the defect gets the form without it."""
    import openvino as ov
    import openvino.opset13 as o

    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    length, heads, width = 8, 4, 8
    order = o.constant(np.array([0, 2, 1, 3], np.int64))
    params, outs = [], []
    for i, fill in enumerate((np.finfo(np.float32).min, -1e30, -np.inf)):  # (each its own Transposes, as fused)
        params += [o.parameter([1, length, heads, width], np.float32, name=f"{n}{i}") for n in "qkv"]
        q, k, v = (o.transpose(p, order) for p in params[-3:])
        mask = np.zeros((1, 1, length, length), np.float32)
        mask[..., :2] = fill  # (keys 0 and 1: left padding; with the causal part, rows 0 and 1 masked whole)
        mask[..., np.triu_indices(length, 1)[0], np.triu_indices(length, 1)[1]] = fill
        att = o.scaled_dot_product_attention(q, k, v, o.constant(mask), causal=False, name=f"att{i}")
        outs.append(o.transpose(att, order, name=f"y{i}"))
    model, out = tmp_path / "masked.xml", tmp_path / "masked_2023.0.xml"
    ov.save_model(ov.Model(outs, params, "masked"), str(model), compress_to_fp16=False)
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out)]) == 0
    migrated = ir_tools.read_valid(out)
    assert not migrated.by_type("ScaledDotProductAttention")
    rng = np.random.default_rng(5)
    feed = {f"{n}{i}": rng.standard_normal((1, length, heads, width)).astype(np.float32) for i in range(3)
            for n in "qkv"}
    want = OpenVinoRunner(ir_tools.read_valid(model), ModelFiles(model, model.with_suffix(".bin"))).run(feed)
    files = ModelFiles(out, out.with_suffix(".bin"))
    for python in (side_pythons()["2023.0"], None):
        got = (OpenVinoRunner(migrated, files) if python is None else
               ChildOpenVinoRunner(python, migrated, files)).run(feed)
        for name, value in want.items():
            assert np.array_equal(np.isnan(got[name]), np.isnan(value)), (python, name)
            assert np.allclose(got[name], value, rtol=0, atol=1e-5, equal_nan=True), (python, name)
    assert sorted(int(np.isnan(value).sum()) for value in want.values()) == [0, 0, 2 * heads * width]
    assert len(migrated.by_type("ReduceMax")) == 3
    other = tmp_path / "masked_2024.0.xml"
    assert main(["migrate", str(model), "--target", "opset12", "-o", str(other)]) == 0
    assert not ir_tools.read_valid(other).by_type("ReduceMax")
