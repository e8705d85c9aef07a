"""GroupNormalization-12 (ops/normalization.py) against OpenVINO: shape rule, CPU kernel and rounding rule.

Kernel: 360 seeded cases (f32 and f16 data of rank 2 to 5, 1 to 3 batches, 1 to 8 groups of 1 to 4 channels, groups
of 1 to 16,000 elements, means up to 10^4 times the spread where the f32 mean's error is divided by a small deviation,
a constant group now and then, epsilon from 0 to 10, scales from 0 to 100) batched 60 to a model and compiled once per
model for OpenVINO CPU: values within the rounding rule's bound alone; the largest error as a share of the bound is
printed per kind of case (centred, offset, f16), and must reach a floor for f32 (a bound grown loose fails). CPU takes
two paths: a snippets Subgraph where the batches times the groups reach its threads and a group fits its L1 cache,
else MVN (GroupNormalizationDecomposition); the cases take both. 40 more hold NaN, infinities and empty data. The
rule's propagation: 200 seeded cases with bounds on data, scale and bias. Shape rule: 400 seeded nodes on Parameters
(data of partial shapes and dynamic rank, scale and bias of ranks 0 to 2 and dynamic, interval lengths, num_groups -1
to 4, element types f32, f16, i32, dynamic) must give our rule's output, or both refuse. ``check_versions``:
opset12..16 read GroupNormalization-12.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset12 as ops12
import pytest

from ir_tools.ops import attrs as A
from ir_tools.ops.normalization import GROUP_NORMALIZATION_12
from ir_tools.ops.rounding import EXACT

from .conformance import (
    ELEMENTS,
    Case,
    Limit,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    check_versions,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    random_bounds,
    rule_limits,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 1212
CASES_PER_MODEL = 60
EPSILONS = (1e-9, 1e-6, 1e-5, 1e-3, 0.25, 10.0, 0.0)
#: The largest error as a share of the bound that each kind of f32 case must reach in each part: the bound is not
#: loose. (f16 results are mostly equal, both sides' f32 values rounding alike; the bound there is the two roundings.)
FLOORS = {"centred": 0.1, "offset": 0.05}
KINDS = ("centred", "offset", "f16")


def data(rng: np.random.Generator, dtype: type, groups: int) -> tuple[np.ndarray, str]:
    """Data [N, C, ...] with C a multiple of ``groups``, and its kind: centred, offset (a mean far above the spread,
    up to 10^4 times in f32, 10^2 in f16, whose data it quantises) or f16; now and then one group constant."""
    per, rank = int(rng.integers(1, 5)), int(rng.integers(2, 6))
    spatial = [int(n) for n in rng.integers(1, 6, rank - 2)]
    if spatial and rng.random() < 0.1:
        spatial[-1] = int(rng.integers(500, 4000))  # groups of up to 16,000 elements: beyond L1, CPU's MVN path
    shape = [int(rng.integers(1, 4)), groups * per, *spatial]
    half = dtype is np.float16
    spread = float(10 ** rng.uniform(-2, 1) if half else 10 ** rng.uniform(-3, 2))
    offset = float(pick(rng, [0.0, 0.0, 1.0, 30.0, 100.0] if half else [0.0, 0.0, 1.0, 100.0, 1e4])) * spread
    offset *= float(pick(rng, [-1.0, 1.0]))
    x = (offset + spread * rng.standard_normal(shape)).astype(dtype)
    if rng.random() < 0.15:
        x[:, :per] = dtype(offset)  # the first group of each batch constant: only epsilon under the root
    return x, "f16" if half else "offset" if abs(offset) > spread else "centred"


def epsilon(rng: np.random.Generator, x: np.ndarray, groups: int) -> float:
    """One of EPSILONS; 0 only where every group varies (a constant one is 0 / 0, and CPU's f32 mean may miss it)."""
    eps = float(pick(rng, EPSILONS))
    grouped = x.reshape(x.shape[0], groups, -1)
    return eps if eps or np.all(np.ptp(grouped, axis=-1) > 0) else 1e-5


def recorded_limits(raw: dict[str, str], inputs: list[np.ndarray], ratios: list[float]) -> tuple[Limit]:
    """The rule's bound as the Case limit, noting in ``ratios`` the largest |ours - OpenVINO's| / bound."""
    (limit,) = rule_limits(GROUP_NORMALIZATION_12, raw, inputs)
    ours = GROUP_NORMALIZATION_12.kernel(A.decode(GROUP_NORMALIZATION_12.attrs, raw), inputs)[0].astype(np.float64)

    def noted(want: np.ndarray) -> np.ndarray:
        bound = limit(want)
        with np.errstate(all="ignore"):
            ratio = np.abs(ours - want) / bound
        ratios.append(float(np.max(ratio, initial=0.0, where=np.isfinite(ratio))))
        return bound

    return (noted,)


def group_norm_case(inputs: list[np.ndarray], groups: int, eps: float, limits: Sequence[Limit]) -> Case:
    x, scale, _ = inputs
    what = (f"GroupNormalization {x.dtype}{list(x.shape)} groups {groups} eps {eps} scale {scale.dtype} "
            f"|x| <= {float(np.max(np.abs(x), initial=0.0)):.3g}")
    return Case(what, inputs, lambda ps: ops12.group_normalization(*ps, groups, eps), limits)


def group_norm_cases(rng: np.random.Generator, n: int, ratios: dict[str, list[float]]) -> list[Case]:
    cases = []
    for i in range(n):
        dtype = (np.float32, np.float32, np.float16)[i % 3]
        groups = int(pick(rng, [1, 1, 2, 3, 4, 8]))
        x, kind = data(rng, dtype, groups)
        channels = x.shape[1]
        scale = (rng.standard_normal(channels) * float(pick(rng, [1.0, 1.0, 0.01, 100.0]))).astype(dtype)
        scale[rng.random(channels) < 0.1] = 0
        bias = (rng.standard_normal(channels) * float(pick(rng, [0.0, 1.0, 100.0]))).astype(dtype)
        eps = epsilon(rng, x, groups)
        inputs = [x, scale, bias]
        raw = {"num_groups": str(groups), "epsilon": repr(eps)}
        cases.append(group_norm_case(inputs, groups, eps, recorded_limits(raw, inputs, ratios[kind])))
    return cases


@pytest.mark.parametrize("part", range(6))
def test_values_within_the_bound(part: int, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, part])
    ratios: dict[str, list[float]] = {kind: [] for kind in KINDS}
    assert_all_pass(group_norm_cases(rng, CASES_PER_MODEL, ratios), tmp_path)
    worst = {kind: max(found, default=0.0) for kind, found in ratios.items()}
    print("largest error / bound:", ", ".join(f"{kind} {ratio:.3g}" for kind, ratio in worst.items()))
    loose = [kind for kind, floor in FLOORS.items() if worst[kind] < floor]
    assert not loose, f"the bound is loose for {loose}: {worst}"


def test_nan_infinities_and_empty_data(tmp_path: Path) -> None:
    """A NaN or an infinity makes its whole group NaN (its mean is one), other groups untouched; empty data give
    empty results."""
    rng = np.random.default_rng([SEED, 99])
    cases = []
    for i in range(40):
        dtype = (np.float32, np.float16)[i % 2]
        groups = int(pick(rng, [1, 2, 4]))
        shape = [int(rng.integers(0 if i % 8 == 0 else 1, 3)), groups * int(rng.integers(1, 3)),
                 *(int(n) for n in rng.integers(0 if i % 8 == 4 else 1, 5, int(rng.integers(0, 3))))]
        x = rng.standard_normal(shape).astype(dtype)
        if x.size:
            x.reshape(-1)[rng.random(x.size) < 0.1] = pick(rng, [np.nan, np.inf, -np.inf])
        scale, bias = (rng.standard_normal(shape[1]).astype(dtype) for _ in range(2))
        inputs, eps = [x, scale, bias], float(pick(rng, EPSILONS[:-1]))
        limits = rule_limits(GROUP_NORMALIZATION_12, {"num_groups": str(groups), "epsilon": repr(eps)}, inputs)
        cases.append(group_norm_case(inputs, groups, eps, limits))
    assert_all_pass(cases, tmp_path)


def test_input_bounds_move_through_the_rule() -> None:
    """Data, scale and bias moved anywhere within their bounds (a random sign per element) move the exact result by
    no more than the rule's bound with those input bounds: 200 seeded f32 cases, bounds from 1e-6 to 1 of each one's
    spread."""
    rng = np.random.default_rng([SEED, 2])
    for _ in range(200):
        groups = int(pick(rng, [1, 2, 4]))
        x, _ = data(rng, np.float32, groups)
        scale, bias = (rng.standard_normal(x.shape[1]).astype(np.float32) for _ in range(2))
        spread = float(np.std(x.astype(np.float64))) or 1.0  # (scale and bias: standard normal)
        bounds = [np.abs(rng.standard_normal(v.shape)) * size * 10 ** rng.uniform(-6, 0) if rng.random() < 0.7
                  else EXACT for v, size in ((x, spread), (scale, 1.0), (bias, 1.0))]
        eps = epsilon(rng, x, groups)
        raw = {"num_groups": str(groups), "epsilon": repr(eps)}
        assert_bounds_carry_moves(GROUP_NORMALIZATION_12, raw, [x, scale, bias], bounds, rng, (list(x.shape), raw))


def test_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 1])
    cases = []
    for _ in range(400):
        groups = int(pick(rng, [1, 2, 2, 3, 4, 4, 0, -1]))
        channels = max(groups, 1) * int(rng.integers(1, 4)) if rng.random() < 0.85 else int(pick(rng, [0, 3, 5]))
        rank = int(pick(rng, [0, 1, 2, 2, 3, 3, 4, 4, 4]))
        lengths = [int(rng.integers(1, 4)), channels, *(int(n) for n in rng.integers(1, 5, 2))][:rank]
        data = None if rng.random() < 0.1 else random_bounds(rng, lengths)
        weights = [None if rng.random() < 0.1 else random_bounds(rng, [channels]) if rng.random() < 0.8 else
                   pick(rng, [((channels + 1, channels + 1),), (), ((channels, channels), (1, 1))]) for _ in range(2)]
        shapes = [data, *weights]
        first = pick(rng, ["f32", "f16", "i32", None])
        elements = [first if rng.random() < 0.8 else pick(rng, ["f32", "f16", "i32", None]) for _ in range(3)]
        eps = float(pick(rng, [1e-5, 0.0, -1.0]))

        def theirs(shapes=shapes, elements=elements, groups=groups, eps=eps):
            return openvino_outcome(lambda: ops12.group_normalization(
                *(ops1.parameter(partial_shape(s), ELEMENTS[e]) for s, e in zip(shapes, elements, strict=True)),
                groups, eps))

        def ours(shapes=shapes, elements=elements, groups=groups, eps=eps):
            return our_outcome("GroupNormalization", "opset12", {"num_groups": str(groups), "epsilon": repr(eps)},
                               tensor_types(elements, shapes), [None] * 3)

        cases.append((f"GroupNormalization groups {groups} {elements} {[show(s) for s in shapes]}", theirs, ours))
    assert_shapes_agree(cases)
    refused = sum(theirs() == "rejects" for _, theirs, _ in cases)
    assert 0.2 * len(cases) < refused < 0.8 * len(cases), f"{refused} of {len(cases)} refused: a poor mix"


def test_opsets(tmp_path: Path) -> None:
    p = ops1.parameter([2, 4, 3], np.float32)
    weights = ops1.constant(np.ones(4, np.float32))
    node = ops12.group_normalization(p, weights, weights, 2, 1e-5)
    assert check_versions({"GroupNormalization": node}, [p], tmp_path) == []


def test_compare_checks_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A Convolution -> GroupNormalization model compared end to end and per layer (GroupNormalization was not
    checked, its output not compared)."""

    rng = np.random.default_rng(3)
    x = ops1.parameter([1, 3, 16, 16], np.float32, name="x")
    h = ops1.convolution(x, ops1.constant(rng.standard_normal((8, 3, 3, 3)).astype(np.float32)), [1, 1], [1, 1],
                         [1, 1], [1, 1])
    y = ops12.group_normalization(h, ops1.constant(rng.standard_normal(8).astype(np.float32)),
                                  ops1.constant(rng.standard_normal(8).astype(np.float32)), 4, 1e-5)
    xml = tmp_path / "group_norm.xml"
    ov.save_model(ov.Model([ops1.result(y)], [x], "group_norm"), xml)
    assert_compare_passes(xml, capsys, {"GroupNormalization@opset12"}, outputs=1)
