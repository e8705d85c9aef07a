"""ScaledDotProductAttention-13 (ops/attention.py) against OpenVINO: shape rule, CPU kernel and rounding rule, with
the harness of tests/ops/conformance.py.

Kernel: 400 seeded cases (f32 and f16; ranks 3 to 5 with batch dims that broadcast between query, key, value and
mask; no mask, a float mask, a boolean mask with every row keeping a key, a scalar mask; causal with L above and
below S; the scale as an input, scalar or of one element, or 1/sqrt(E)) in one model compiled once for OpenVINO CPU;
every element must be within the rounding rule's bound alone. Shape rule: 1,500 seeded nodes on Parameters of
partial shapes (static, dynamic, interval and unbounded dims, dynamic ranks, ranks below 3, depths and lengths
that differ, masks and batch dims that do not broadcast, scales of several elements, float, boolean, integer and
dynamic element types) must give our rule's output partial shape and element type, or both refuse. The rounding
rule's propagation: inputs moved anywhere within their bounds move the exact result by no more than the bound.

OpenVINO 2026.4.1 CPU cannot compile a value (or key) of higher rank than the query (its decomposed SoftMax then
reduces another axis than the last): the kernel cases keep the query's rank the highest.
"""

from __future__ import annotations

import numpy as np
import openvino.opset13 as ops13
import pytest

from ir_tools.ops.attention import SCALED_DOT_PRODUCT_ATTENTION_13 as SDPA

from .conformance import (
    Bounds,
    Case,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_shapes_agree,
    blur,
    check_versions,
    floats,
    openvino_outcome,
    our_outcome,
    parameters,
    pick,
    rule_limits,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 20613


def _batch_of(rng: np.random.Generator, batch: list[int], rank: int) -> list[int]:
    """Batch dims of ``rank`` that broadcast with ``batch`` (some of them 1, fewer of them on the left)."""
    dims = batch[len(batch) - rank:] if rank <= len(batch) else [1] * (rank - len(batch)) + batch
    return [1 if rng.random() < 0.25 else d for d in dims]


def _layout(rng: np.random.Generator, query_widest: bool = False) -> tuple[list[int], list[int], list[int], int, int,
                                                                        int, int]:
    """Query, key and value shapes, and L, S, E, Ev; ``query_widest``: no rank above the query's (OpenVINO CPU
    cannot compile a value of higher rank: its SoftMax then reduces another axis than the last)."""
    length, source, depth, out_depth = (int(v) for v in rng.integers(1, 9, 4))
    if rng.random() < 0.15:
        source = int(rng.integers(30, 120))  # long rows
    if rng.random() < 0.15:
        depth = int(rng.integers(30, 100))  # long dot products
    batch = [int(v) for v in rng.integers(1, 4, int(rng.integers(1, 4)))]
    ranks = [int(v) for v in rng.integers(1, len(batch) + 1, 3)]
    if query_widest:
        ranks[0] = max(ranks)
    q = [*_batch_of(rng, batch, ranks[0]), length, depth]
    k = [*_batch_of(rng, batch, ranks[1]), source, depth]
    v = [*_batch_of(rng, batch, ranks[2]), source, out_depth]
    return q, k, v, length, source, depth, out_depth


def _mask(rng: np.random.Generator, length: int, source: int, batch: list[int], dtype) -> np.ndarray | None:
    kind = pick(rng, ["none", "float", "float", "boolean", "boolean", "scalar"])
    if kind == "none":
        return None
    if kind == "scalar":
        return floats(rng, (), dtype)
    shape = [*_batch_of(rng, batch, int(rng.integers(0, len(batch) + 1))), pick(rng, [length, 1]),
             pick(rng, [source, source, 1])]
    if kind == "float":
        mask = floats(rng, shape, dtype, 2.0)
        if shape[-1] > 1 and rng.random() < 0.3:
            mask[..., 1:][rng.random(mask[..., 1:].shape) < 0.3] = -np.inf  # masked keys, never a whole row
        return mask
    keep = rng.random(shape) < 0.7
    keep[..., 0] = True  # every row attends to something
    return keep


def _scale(rng: np.random.Generator, dtype) -> np.ndarray | None:
    kind = pick(rng, ["none", "none", "scalar", "one"])
    if kind == "none":
        return None
    value = np.float32(rng.uniform(0.05, 1.5))
    return np.array(value if kind == "scalar" else [value], dtype)


def attention_cases(rng: np.random.Generator, count: int) -> list[Case]:
    cases = []
    for i in range(count):
        dtype = np.float16 if i % 4 == 3 else np.float32
        q_shape, k_shape, v_shape, length, source, _, _ = _layout(rng, query_widest=True)
        batch = list(np.broadcast_shapes(tuple(q_shape[:-2]), tuple(k_shape[:-2]), tuple(v_shape[:-2])))
        inputs = [floats(rng, s, dtype, scale) for s, scale in ((q_shape, 2.0), (k_shape, 2.0), (v_shape, 1.0))]
        causal = bool(rng.random() < 0.2)
        mask, scale = _mask(rng, length, source, batch, dtype), _scale(rng, dtype)
        if scale is not None and mask is None:
            mask = np.zeros((), dtype)  # (the scale is input 4: a mask must stand before it)
        inputs += [x for x in (mask, scale) if x is not None]

        def build(ps, causal=causal):
            return ops13.scaled_dot_product_attention(*ps, causal=causal)

        what = (f"SDPA {np.dtype(dtype).name} q{q_shape} k{k_shape} v{v_shape} causal={causal} "
                f"mask={None if mask is None else (mask.dtype.name, list(mask.shape))} "
                f"scale={None if scale is None else list(scale.shape)}")
        cases.append(Case(what, inputs, build, rule_limits(SDPA, {"causal": str(causal).lower()}, inputs)))
    return cases


def test_attention_kernel_within_its_rounding_bound(tmp_path):
    assert_all_pass(attention_cases(np.random.default_rng(SEED), 400), tmp_path)


def test_opset_versions(tmp_path):
    q = ops13.parameter([1, 2, 3], np.float32)
    node = ops13.scaled_dot_product_attention(q, q, q)
    assert not check_versions({"ScaledDotProductAttention": node}, [q], tmp_path)


# --- shape rule ------------------------------------------------------------------------------------


def _blurred(rng: np.random.Generator, shape: list[int]) -> Bounds:
    if rng.random() < 0.06:
        return None
    if rng.random() < 0.04:
        return tuple(blur(rng, n) for n in shape[-2:])  # rank 2
    return tuple(blur(rng, n, statics=5) for n in shape)


def attention_shape_case(rng: np.random.Generator):
    q, k, v, length, source, _, _ = _layout(rng)
    for shape in (q, k, v):
        if rng.random() < 0.07:  # a depth, length or batch dim that may not fit
            shape[int(rng.integers(0, len(shape)))] += int(rng.integers(1, 3))
    causal = bool(rng.random() < 0.2)
    shapes: list[Bounds] = [_blurred(rng, s) for s in (q, k, v)]
    elements = ["f32"] * 3
    n_inputs = int(pick(rng, [3, 3, 4, 4, 5]))
    if n_inputs > 3:
        batch = [int(v) for v in rng.integers(1, 4, int(rng.integers(0, 4)))]
        mask = [*batch, pick(rng, [length] * 4 + [1, length + 1]), pick(rng, [source] * 4 + [1, source + 2])]
        shapes.append(None if rng.random() < 0.05 else () if rng.random() < 0.05 else
                      tuple(blur(rng, n, statics=3) for n in mask[int(rng.integers(0, 3)):]))
        elements.append(pick(rng, ["f32"] * 4 + ["boolean"] * 3 + ["f16", "i32", None]))
    if n_inputs > 4:
        shapes.append(pick(rng, [(), (), ((1, 1),), ((2, 2),), ((0, None),), None]))
        elements.append(pick(rng, ["f32"] * 4 + ["f16", None]))
    if rng.random() < 0.05:
        elements[int(rng.integers(0, 3))] = pick(rng, ["f16", "i32", None])
    what = "SDPA " + " ".join(f"{e}{show(s)}" for e, s in zip(elements, shapes, strict=True)) + f" causal={causal}"

    def theirs():
        return openvino_outcome(lambda: ops13.scaled_dot_product_attention(
            *parameters(elements, shapes),
            causal=causal))

    def ours():
        inputs = tensor_types(elements, shapes)
        return our_outcome("ScaledDotProductAttention", "opset13", {"causal": str(causal).lower()}, inputs,
                           [None] * len(inputs))

    return what, theirs, ours


def test_attention_shape_rule():
    rng = np.random.default_rng(SEED + 1)
    cases = [attention_shape_case(rng) for _ in range(1500)]
    assert_shapes_agree(cases)


def test_input_bounds_move_through_the_rule():
    """Query, key, value and a float mask moved anywhere within their bounds (a random sign per element) move the
    exact result by no more than the rule's bound with those input bounds: 200 seeded f32 cases."""
    rng = np.random.default_rng(SEED + 2)
    for _ in range(200):
        q_shape, k_shape, v_shape, length, source, _, _ = _layout(rng, query_widest=True)
        inputs = [floats(rng, s, np.float32, 2.0) for s in (q_shape, k_shape, v_shape)]
        causal = bool(rng.random() < 0.2)
        if rng.random() < 0.5:
            inputs.append(floats(rng, [length, source], np.float32, 2.0))
        bounds = [np.abs(rng.standard_normal(x.shape)) * float(rng.choice([1e-6, 1e-3, 1e-1])) for x in inputs]
        assert_bounds_carry_moves(SDPA, {"causal": str(causal).lower()}, inputs, bounds, rng,
                                  (q_shape, k_shape, v_shape, causal))


def test_no_query_gives_the_empty_output_as_openvino_does(tmp_path, capsys):
    """A query of length 0 (a prompt of no token): OpenVINO gives the empty output; the kernel's softmax took the
    maximum of no score and compare and run failed with E-EXEC."""
    import openvino as ov

    from ir_tools.cli import main

    q = ops13.parameter([1, 2, -1, 4], np.float32, name="q")
    path = tmp_path / "sdpa.xml"
    ov.save_model(ov.Model([ops13.scaled_dot_product_attention(q, q, q, causal=True)], [q], "sdpa"), path)
    got = ov.Core().compile_model(path, "CPU")({"q": np.zeros((1, 2, 0, 4), np.float32)})[0]
    assert got.shape == (1, 2, 0, 4)
    assert main(["compare", str(path), "--shape", "q:1,2,0,4", "--per-layer"]) == 0, capsys.readouterr()
