"""AvgPool windows that count no tap, migrated (``to_opset8`` and ``exact_pool``; the same rewrite for every
``--target``): OpenVINO CPU divides such a window's sum, +0, by its own count (``pool_geometry.cpu_window_counts``,
multiplied over the axes), so it outputs NaN (a count of 0), -0.0 (negative) or +0.0 (two negative axes, or a
divisor of the whole kernel); the migrated file must give those bits where the original does, on OpenVINO 2023.0 and
on the current one, and every other value bit for bit too (docs/SEMANTICS.md sections 3 and 6).

Seeded AvgPool-1, -14 and -16 layers, each with at least one such window (some with every window of an axis so,
whose output does not depend on the input): 1 to 3 spatial axes, every rounding type and auto_pad, exclude-pad both
ways, dilations (on kernels longer than 1 and of 1), static spatial dims (the ceil_torch and dilated layers become
``exact_pool.emit``'s forms, the others AvgPool-1 as they are) and dynamic ones (AvgPool-1 as they are), f32 and
some f16, f32 inputs with NaN, infinities and signed zeros in a third (a NaN meeting another in a sum keeps the
tap's sign, as OpenVINO's pooling adds them). Many layers share a model, so that each side compiles once.

Left out, as OpenVINO 2023.0 and 2024.0 CPU compute the original AvgPool-1 otherwise (measured; 2025.0 on as the
current one): f16 infinities (read as +-65504: [inf, -inf] averages to 0, [-inf, 1] to -32752). Layers 2023.0 does
not compile (``avg_pool_pads_refused``: an axis of two windows or more whose first reaches past the data by other than
a multiple of the stride) are drawn on static dims, where ``migrate --target`` writes them in ``emit``'s rule 5 (6
of the 360); on dynamic dims, where it refuses them (tests/downgrade/test_avg_pool_pads.py), not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from ir_tools.base.dims import DYNAMIC, Dim
from ir_tools.base.errors import OpValidationError
from ir_tools.ops.pool_geometry import (
    counts_padding,
    cpu_refused_length,
    pool_geometry,
    window_counts,
    windows_differ,
)
from tests.downgrade.runs import NEEDS_2023, assert_runs_equal, migrate

pytestmark = NEEDS_2023

AUTO_PADS = ("explicit", "explicit", "same_upper", "same_lower", "valid")
SPECIAL = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan], np.float32)


@dataclass(frozen=True)
class Pool:
    """One AvgPool layer on an input of ``shape`` (its spatial dims declared dynamic when ``dynamic``)."""

    version: int  # 1, 14 or 16
    shape: tuple[int, ...]
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    auto_pad: str
    rounding: str
    exclude_pad: bool
    dynamic: bool
    dtype: str


def draw(rng: np.random.Generator, kind: str) -> Pool | None:
    """A random layer of ``kind`` (static, dynamic: its spatial dims declared so, dilated: AvgPool-16 with a dilated
    kernel on static dims), or None when OpenVINO rejects it, no window lacks data, it has an axis 2023.0 does not
    compile (module doc), or ``migrate`` has no form of it on dynamic dims (ceil_torch with fewer windows than ceil
    at some length)."""
    dynamic = kind == "dynamic"
    version = 16 if kind == "dilated" else int(rng.choice([1, 14, 16]))
    rank = int(rng.choice([1, 2, 3], p=[0.35, 0.45, 0.2]))

    def ints(lo: int, hi: int) -> tuple[int, ...]:
        return tuple(int(v) for v in rng.integers(lo, hi, rank))

    lengths = ints(1, {1: 12, 2: 9, 3: 6}[rank])
    dilations = ints(1, 4) if version == 16 and not dynamic and rng.random() < 0.7 else (1,) * rank
    pads = [ints(0, 4) if rng.random() < 0.7 else (0,) * rank for _ in range(2)]
    roundings = ("floor", "ceil", "ceil", "ceil") + (("ceil_torch",) * 2 if version > 1 else ())
    strides = ints(1, 8 if kind == "dilated" else 6)  # (long strides: windows past the data on two axes)
    pool = Pool(version, (int(rng.integers(1, 3)), int(rng.integers(1, 4)), *lengths), ints(1, 4), strides,
                dilations, *pads, str(rng.choice(AUTO_PADS)), str(rng.choice(roundings)), bool(rng.random() < 0.6),
                dynamic, "f16" if rng.random() < 0.1 else "f32")
    try:
        geo = pool_geometry(tuple(Dim(n, n) for n in pool.shape), pool.kernel, pool.strides, pool.dilations,
                            pool.pads_begin, pool.pads_end, pool.auto_pad, pool.rounding, pool.exclude_pad, version > 1)
    except OpValidationError:
        return None
    axes = list(zip(lengths, pool.kernel, pool.strides, pool.dilations, geo.pads_begin, geo.pads_end,
                    (d.lo for d in geo.spatial), strict=True))
    counts = [window_counts(n, k, s, d, b, o) for n, k, s, d, b, _, o in axes]
    if all(c.all() for c in counts):
        return None
    if kind == "dilated" and not any(k > 1 and d > 1 for k, d in zip(pool.kernel, pool.dilations, strict=True)):
        return None
    if dynamic and any(cpu_refused_length(DYNAMIC, k, s, pb, pe, pool.auto_pad, pool.rounding, pool.exclude_pad)
                       is not None for k, s, pb, pe in zip(pool.kernel, pool.strides, pool.pads_begin, pool.pads_end,
                                                           strict=True)):
        return None  # (2023.0 fails on it at some length: refused, tests/downgrade/test_avg_pool_pads.py)
    if dynamic and pool.rounding == "ceil_torch" and any(
            windows_differ(DYNAMIC, k, s, 1, pb, pe, pool.auto_pad) is not None
            for k, s, pb, pe in zip(pool.kernel, pool.strides, pool.pads_begin, pool.pads_end, strict=True)):
        return None
    return pool


def no_data(pool: Pool) -> tuple[np.ndarray, bool]:
    """True for each window with no tap inside the data (some axis has none); and whether the layer divides by the
    whole kernel."""
    geo = pool_geometry(tuple(Dim(n, n) for n in pool.shape), pool.kernel, pool.strides, pool.dilations,
                        pool.pads_begin, pool.pads_end, pool.auto_pad, pool.rounding, pool.exclude_pad,
                        pool.version > 1)
    out = tuple(d.lo for d in geo.spatial)
    empty = np.zeros(out, bool)
    for axis, (n, k, s, d, b, o) in enumerate(zip(pool.shape[2:], pool.kernel, pool.strides, pool.dilations,
                                                  geo.pads_begin, out, strict=True)):
        empty |= (window_counts(n, k, s, d, b, o) == 0).reshape([-1 if a == axis else 1 for a in range(len(out))])
    return empty, counts_padding(geo.pads_begin, geo.pads_end, pool.exclude_pad)


def pools_model(path: Path, rng: np.random.Generator, cases: int, kind: str
                ) -> tuple[Path, dict[str, np.ndarray], list[Pool]]:
    """``cases`` drawn layers, each on a Parameter of its own, in one model; returns it, its inputs and the layers."""
    return model_of_pools(path, rng, cases, lambda _: draw(rng, kind), 0.15)


def model_of_pools(path: Path, rng: np.random.Generator, cases: int, pick: Callable[[int], Pool | None],
                   special_share: float) -> tuple[Path, dict[str, np.ndarray], list[Pool]]:
    """``cases`` layers ``pick`` gives (told how many it gave; None: none this time), each on a Parameter of its own,
    in one model, every third f32 input ``special_share`` of special values; returns it, its inputs and the layers."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset14 as o14
    import openvino.opset16 as o16

    params, results, inputs, pools = [], [], {}, []
    while len(pools) < cases:
        pool = pick(len(pools))
        if pool is None:
            continue
        i = len(pools)
        dtype = np.float16 if pool.dtype == "f16" else np.float32
        declared = [*pool.shape[:2], *(-1 if pool.dynamic else n for n in pool.shape[2:])]
        x = o1.parameter(declared, dtype, name=f"x{i}")
        args = (x, list(pool.strides), list(pool.pads_begin), list(pool.pads_end), list(pool.kernel), pool.exclude_pad,
                pool.rounding, None if pool.auto_pad == "explicit" else pool.auto_pad)
        if pool.version == 16:  # (dilations=None builds a node that crashes CPU compilation)
            node = o16.avg_pool(*args, dilations=list(pool.dilations), name=f"pool{i}")
        else:
            node = (o1 if pool.version == 1 else o14).avg_pool(*args, name=f"pool{i}")
        value = rng.standard_normal(pool.shape).astype(dtype)
        if i % 3 == 0 and pool.dtype == "f32":
            special = rng.random(value.shape) < special_share
            value[special] = rng.choice(SPECIAL, int(special.sum())).astype(dtype)
        inputs[f"x{i}"] = value
        params.append(x)
        node.output(0).get_tensor().set_names({f"y{i}"})
        results.append(o1.result(node, name=f"y{i}/sink"))
        pools.append(pool)
    ov.save_model(ov.Model(results, params, path.stem), str(path), compress_to_fp16=False)
    return path, inputs, pools


def classes(model: Path, inputs: dict[str, np.ndarray], pools: list[Pool]) -> Counter[str]:
    """What the current OpenVINO gives on ``model`` in the windows with no data tap, counted: NaN, -0.0, +0.0 (of
    the whole kernel, or of two axes' negative counts)."""
    import ir_tools
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import OpenVinoRunner

    got = OpenVinoRunner(ir_tools.read_valid(model), ModelFiles(model, model.with_suffix(".bin"))).run(inputs)
    seen: Counter[str] = Counter()
    for i, pool in enumerate(pools):
        empty, whole = no_data(pool)
        y = got[f"y{i}"][..., empty]
        seen.update({"NaN": int(np.isnan(y).sum()), "-0.0": int((y == 0)[np.signbit(y)].sum()),
                     "+0.0" if whole else "+0.0 (-/-)": int((y == 0)[~np.signbit(y)].sum()),
                     "other": int((np.isfinite(y) & (y != 0)).sum())})
    return seen


@pytest.mark.parametrize(("kind", "cases", "seed"), [("static", 360, 16), ("dilated", 200, 17), ("dynamic", 150, 61)])
def test_windows_without_a_data_tap_migrate_bit_for_bit(kind: str, cases: int, seed: int, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Layers with windows that have no tap in the data, 360 on static dims, 200 dilated, 150 on dynamic dims:
    migrated for 2023.0, the file runs there and on the current OpenVINO equal to the current OpenVINO on the
    original, bits, NaN and the sign of zero included (main wrote NaN where OpenVINO computes -0.0, and divided the
    dilated sums by a reciprocal, ulps off)."""
    model, inputs, pools = pools_model(tmp_path / "empty.xml", np.random.default_rng(seed), cases, kind)
    out, printed = migrate(model, capsys)
    assert assert_runs_equal(model, out, inputs=inputs) == cases
    seen = classes(model, inputs, pools)
    made: Counter[str] = Counter()
    for line in printed.splitlines():
        if line.startswith("rewrote ") and " x AvgPool-" in line:
            made[line.split(" -> ")[1].removesuffix(" (opset8)")] += int(line.split()[1])
    print(f"\n{cases} layers ({kind}): windows without a data tap {dict(seen)}; written as {dict(made)}")
    assert seen["other"] == 0 and min(seen["NaN"], seen["-0.0"], seen["+0.0"]) >= 100, seen
    assert kind == "dilated" or seen["+0.0 (-/-)"] >= 5, seen  # (past the data by a dilation or more on two axes)
    # (ceil_torch on dynamic dims is migrated where it keeps ceil's windows at every length: rarely with empty ones)
    assert {p.rounding for p in pools} >= {"floor", "ceil"} | ({"ceil_torch"} if kind != "dynamic" else set())
    assert {len(p.kernel) for p in pools} == {1, 2, 3} and {p.dtype for p in pools} == {"f32", "f16"}
    assert {p.auto_pad for p in pools} == set(AUTO_PADS) and {p.exclude_pad for p in pools} == {False, True}
    divided = ("Add+AvgPool+Pad+Reshape+ShapeOf+StridedSlice", "Add+AvgPool+Multiply+Pad+Reshape+ShapeOf+StridedSlice",
               "Add+AvgPool+Gather+Multiply+Pad+Reshape+StridedSlice")  # (with a window that counts taps, divided)
    if kind == "dynamic":
        assert set(made) == {"AvgPool-1"}, made
    elif kind == "dilated":  # the sums divided by one count (the whole kernel, or each) or by each
        assert min(made[form] for form in divided) >= 15 and sum(made[form] for form in divided) == cases, made
    else:  # AvgPool-1 as it is or of other pads (ceil_torch, a dilation on a kernel of 1), and the dilated forms
        assert min(made["AvgPool-1"], made["AvgPool"], sum(made[form] for form in divided)) >= 25, made
