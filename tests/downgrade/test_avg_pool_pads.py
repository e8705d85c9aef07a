"""AvgPool-1 layers OpenVINO 2023.0 to 2024.1 CPU do not compile (``avg_pool_pads_refused``; docs/SEMANTICS.md
sections 3 and 7): an axis of two windows or more whose first window reaches past the data by other than a multiple
of the stride (``pool_geometry.cpu_pads_refused``: the CPU plugin's end pad, computed with C's truncating division,
disagrees with oneDNN's window count), "Supported primitive descriptors list is empty"; on dynamic dims the layer
compiles and fails at inference.

1. The rule is what the releases refuse, beyond the range scripts/probe_release.py asks (longer axes, kernels, strides
   and pads): seeded layers compiled on 2023.0 and 2024.0 (a batch a model, bisected), and on 2025.0 none refused.
2. ``check --target`` names each such AvgPool-1, and each AvgPool-14/16 ``migrate`` would make one, in the other
   defects' words; ``migrate --target`` writes each (on static dims) as an AvgPool-1 of the input extended by zeros
   (where it divides by the whole kernel) or ``exact_pool``'s rule 5, which the release compiles, bit for bit the
   current OpenVINO on the original (NaN, -0.0 and +0.0 of the windows without data included), on the release and
   on the current OpenVINO; the original there does not compile (main wrote the AvgPool-1 as it was, exit 0). On
   dynamic dims it is refused, naming a length it fails at.
"""

from __future__ import annotations

import json
import random
import subprocess
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.base.dims import Dim
from ir_tools.base.errors import IrToolsError, OpValidationError
from ir_tools.cli import main
from ir_tools.ops.pool_geometry import cpu_refused_length, pool_geometry
from ir_tools.ops.releases import releases
from tests.downgrade.test_empty_windows import Pool, model_of_pools
from tests.test_target import side_pythons

ROOT = Path(__file__).resolve().parents[2]
REFUSAL = "Supported primitive descriptors list is empty"


def test_the_table_knows_the_releases_that_refuse_it() -> None:
    """scripts/probe_release.py's ``avg_pool_pads`` on 2023.0 to 2026.4: 2023.0 to 2024.1 refuse exactly the layers
    the rule names (make_release_table.py checks it), 2024.2 on none; the documented-only releases before 2023.0 take
    2023.0's answer."""
    having = [name for name, r in releases().items() if "avg_pool_pads_refused" in r.miscomputes]
    assert having == ["2021.4", "2022.1", "2022.2", "2022.3", *(f"2023.{n}" for n in range(4)), "2024.0", "2024.1"]


def ruled_refused(pool: Pool) -> bool:
    """Whether the rule says 2023.0 to 2024.1 refuse ``pool`` (as the AvgPool-1 of its windows)."""
    return any(cpu_refused_length(Dim(n, n), k, s, b, e, pool.auto_pad, pool.rounding, pool.exclude_pad) is not None
               for n, k, s, b, e in zip(pool.shape[2:], pool.kernel, pool.strides, pool.pads_begin, pool.pads_end,
                                        strict=True))


def draw(rng: random.Random, versions: tuple[int, ...], wide: bool = False,
         roundings: tuple[str, ...] = ("floor", "ceil", "ceil_torch"), exclude_pad: bool | None = None,
         dynamic: bool | None = None) -> Pool | None:
    """A random AvgPool layer OpenVINO reads, or None: short axes and long pads, so that many are refused; ``wide``:
    lengths, kernels, strides and pads beyond those the probe asks; of one of ``roundings`` (ceil twice as often as
    floor), and with ``exclude_pad`` and ``dynamic`` where given. (Python's generator: most draws are rejected, and
    numpy's costs microseconds a number.)"""
    version = rng.choice(versions)
    rank = rng.choices((1, 2, 3), (2, 2, 1))[0]

    def ints(lo: int, hi: int) -> tuple[int, ...]:
        return tuple(rng.randrange(lo, hi) for _ in range(rank))

    top = 10 if wide else 6
    kernel = ints(1, 8 if wide else 5)
    lengths = tuple(rng.randrange(1, max(2, k + 1)) if rng.random() < 0.7 else rng.randrange(1, top) for k in kernel)
    weights = {"floor": 1, "ceil": 2, "ceil_torch": int(version > 1)}
    chosen = [r for r in roundings for _ in range(weights[r])]
    if not chosen:  # (ceil_torch alone, for an AvgPool-1)
        return None
    dilations = tuple(rng.randrange(1, 4) if k == 1 and version == 16 else 1 for k in kernel)
    pool = Pool(version, (rng.randrange(1, 3), rng.randrange(1, 4), *lengths), kernel,
                ints(1, 7 if wide else 5), dilations, ints(0, 7 if wide else 4), ints(0, 9 if wide else 6),
                rng.choice(["explicit"] * 4 + ["same_upper", "same_lower", "valid"]), rng.choice(chosen),
                rng.random() < 0.5 if exclude_pad is None else exclude_pad,
                rng.random() < 0.3 if dynamic is None else dynamic, "f16" if rng.random() < 0.1 else "f32")
    try:
        pool_geometry(tuple(Dim(n, n) for n in pool.shape), pool.kernel, pool.strides, pool.dilations,
                      pool.pads_begin, pool.pads_end, pool.auto_pad, pool.rounding, pool.exclude_pad, version > 1)
    except OpValidationError:
        return None
    return pool


def ruled_pools(pools: list[Pool]) -> list[Pool]:
    return [p for p in pools if ruled_refused(p)]


def _key(pool: Pool) -> str:
    """The layer as scripts/probe_release.py's ``pool_key`` names it."""
    def joined(values: tuple[int, ...]) -> str:
        return ",".join(map(str, values))

    return (f"{joined(pool.shape)} k{joined(pool.kernel)} s{joined(pool.strides)} p{joined(pool.pads_begin)}/"
            f"{joined(pool.pads_end)} {pool.rounding} {pool.auto_pad} {'exclude' if pool.exclude_pad else 'include'}"
            f"{' dynamic' if pool.dynamic else ''}")


def _refused_on(python: str, pools: list[Pool]) -> set[str]:
    """The keys of ``pools`` (AvgPool-1) that the OpenVINO of ``python`` does not compile or run: scripts/probe_release
    .py's ``refused_pools`` (a batch a model, bisected), in a child."""
    cases = [[list(p.shape), list(p.kernel), list(p.strides), [list(p.pads_begin), list(p.pads_end)], p.rounding,
              p.auto_pad, p.exclude_pad, p.dynamic] for p in pools]
    script = ("import json, sys; sys.path.insert(0, 'scripts'); import probe_release as p; "
              "cases = [tuple(c[:3]) + (tuple(c[3]),) + tuple(c[4:]) for c in json.load(sys.stdin)]; "
              "print(json.dumps([key for key, _ in p.refused_pools(cases)]))")
    done = subprocess.run([python, "-c", script], input=json.dumps(cases), capture_output=True, text=True, cwd=ROOT,
                          timeout=600, check=True)
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.openvino
@pytest.mark.parametrize("release", ["2023.0", "2024.0", "2025.0"])
def test_the_rule_is_what_the_releases_refuse(release: str) -> None:
    """1,000 seeded AvgPool-1 layers (1-3 axes, lengths to 9, kernels to 7, strides to 6, pads to 8, every auto_pad,
    rounding and exclude-pad, a third on dynamic dims), compiled and run on the release: 2023.0 and 2024.0 refuse
    exactly those the rule names (more than 50, some on dynamic dims), 2025.0 none."""
    if release not in side_pythons():
        pytest.skip(f"no OpenVINO {release}: set IR_TOOLS_RELEASE_PYTHONS")
    rng = random.Random(40)
    pools: list[Pool] = []
    while len(pools) < 1000:
        pool = draw(rng, (1,), wide=True)
        if pool is not None:
            pools.append(pool)
    ruled = {_key(p) for p in pools if ruled_refused(p)}
    refused = _refused_on(side_pythons()[release], pools)
    print(f"\n{release}: {len(refused)} of {len(pools)} refused; the rule names {len(ruled)}")
    assert refused == (set() if release == "2025.0" else ruled)
    assert len(ruled) > 50 and {len(p.kernel) for p in pools} == {1, 2, 3}
    assert any(p.dynamic for p in ruled_pools(pools))


def pools_model(path: Path, rng: np.random.Generator, cases: int, versions: tuple[int, ...], dynamic: bool = False,
                roundings: tuple[str, ...] = ("floor", "ceil", "ceil_torch"), exclude_only: bool = False,
                ) -> tuple[Path, dict[str, np.ndarray], list[Pool]]:
    """``cases`` drawn layers (of ``roundings``; ``exclude_only``: with exclude-pad), nine in ten of them refused by
    the rule, each on a Parameter of its own, in one model; returns it, its inputs and the layers."""
    layers = random.Random(int(rng.integers(2**32)))

    def pick(count: int) -> Pool | None:
        pool = draw(layers, versions, roundings=roundings, exclude_pad=True if exclude_only else None, dynamic=dynamic)
        return None if pool is None or ruled_refused(pool) != (count % 10 != 9) else pool

    return model_of_pools(path, rng, cases, pick, 0.2)


def _run(python: str | None, model: Path, feed: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    graph, files = ir_tools.read_valid(model), ModelFiles(model, model.with_suffix(".bin"))
    return (OpenVinoRunner(graph, files) if python is None else ChildOpenVinoRunner(python, graph, files)).run(feed)


def _target_errors(model: Path, target: str) -> dict[str, list[str]]:
    """``check --target``'s E-TARGET messages, by layer name."""
    names = {layer.id: layer.name for layer in ir_tools.read_ir(model).layers()}
    found: dict[str, list[str]] = {}
    for d in ir_tools.check(model, openvino=False, target=target):
        if d.code == "E-TARGET":
            found.setdefault(names[d.loc.layer_id], []).append(d.message)
    return found


DEFECT = ("does not compile AvgPool-1 with an axis of two windows or more whose first window reaches past the data by "
          "other than a multiple of the stride")


@pytest.mark.openvino
@pytest.mark.parametrize(("release", "seed", "exclude_only"),
                         [("2023.0", 50, False), ("2024.0", 51, False), ("2023.0", 60, True), ("2024.0", 61, True)])
def test_a_refused_avg_pool_is_named_and_migrated_bit_for_bit(release: str, seed: int, exclude_only: bool,
                                                              tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """200 seeded AvgPool-1, -14 and -16 layers on static dims, 180 of them refused by the rule (f32, some f16, a
    third with NaN, infinities and signed zeros in the input; ``exclude_only``: all with exclude-pad, which rule 5
    writes): check --target names each refused one in the defects' words and no other; migrated for the release
    (main wrote them as AvgPool-1, which it refuses), the file runs there and on the current OpenVINO bit for bit as
    the current OpenVINO runs the original (which the release does not compile:
    ``test_the_original_is_refused_there``)."""
    if release not in side_pythons():
        pytest.skip(f"no OpenVINO {release}: set IR_TOOLS_RELEASE_PYTHONS")
    model, feed, pools = pools_model(tmp_path / "pools.xml", np.random.default_rng(seed), 200, (1, 14, 16),
                                     exclude_only=exclude_only)
    errors = _target_errors(model, release)
    hit = {f"pool{i}" for i, p in enumerate(pools) if ruled_refused(p)}
    named = {name for name, messages in errors.items() if any(DEFECT in m for m in messages)}
    assert named == hit, (named ^ hit)
    for name in hit:
        message = next(m for m in errors[name] if DEFECT in m)
        assert message.startswith(f"OpenVINO {release} {DEFECT}") and "(measured); the next release without this " \
            "defect is 2024.2; `ir-tools migrate --target` rewrites it" in message and "rule 5" in message, message
    assert not any(DEFECT in m for ms in _target_errors(model, "2024.2").values() for m in ms)
    out = tmp_path / f"pools_{release}.xml"
    assert main(["migrate", str(model), "--target", release, "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    made = Counter()
    for line in printed.splitlines():
        if line.startswith("rewrote ") and f"(refused by {release})" in line:
            made[line.split(" -> ")[1]] += int(line.split()[1])
    assert sum(made.values()) == len(hit), printed
    assert not [d for d in ir_tools.check(out, openvino=False, target=release) if d.severity == "error"]
    want = _run(None, model, feed)
    empty = 0
    for run, python in (("current", None), (release, side_pythons()[release])):
        got = _run(python, out, feed)
        assert set(got) == set(want), run
        for name in want:
            np.testing.assert_array_equal(got[name], want[name], err_msg=f"{run}: {name}", strict=True)
            np.testing.assert_array_equal(np.signbit(got[name]), np.signbit(want[name]), err_msg=f"{run}: {name}")
            empty += int(np.isnan(want[name]).sum() + (want[name] == 0).sum())
    versions = Counter(p.version for p in pools if ruled_refused(p))
    print(f"\n{release}: {len(hit)} refused layers {dict(versions)} written as {dict(made)}; NaN or zero values "
          f"compared: {empty}")
    assert min(versions.values()) >= 20 and {len(p.kernel) for p in pools} == {1, 2, 3}
    concat = made.get("AvgPool+Concat", 0)  # (the divisor the whole kernel: the input extended by zeros)
    assert concat == 0 if exclude_only else concat >= 100 and len(hit) - concat >= 10, made
    assert {p.dtype for p in pools} == {"f32", "f16"} and {p.rounding for p in pools} >= {"floor", "ceil", "ceil_torch"}


@pytest.mark.openvino
def test_a_refused_avg_pool_on_dynamic_dims_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On dynamic spatial dims the layer compiles on 2023.0 and fails at inference where a length meets the rule: the
    exact form needs the lengths, so ``migrate --target 2023.0`` refuses it (exit 2, nothing written), naming the layer,
    a length and why; main wrote it as it was (exit 0), and 2023.0 failed on it."""
    model, feed, pools = pools_model(tmp_path / "dynamic.xml", np.random.default_rng(52), 10, (1, 14), dynamic=True)
    out = tmp_path / "dynamic_2023.0.xml"
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out), "-v"]) == 2
    err = capsys.readouterr().err
    assert not out.exists()
    for i, pool in enumerate(pools):
        if ruled_refused(pool):
            assert f"layer 'pool{i}'" in err and "is dynamic" in err, err
    assert "and at length" in err and "fails on it at inference; the exact form needs static spatial dims" in err, err
    if "2023.0" in side_pythons():
        with pytest.raises(IrToolsError):
            _run(side_pythons()["2023.0"], model, feed)


@pytest.mark.openvino
@pytest.mark.parametrize(("release", "version"), [("2023.0", 1), ("2024.0", 1), ("2024.0", 14)])
def test_the_original_is_refused_there(release: str, version: int, tmp_path: Path) -> None:
    """The defect is real: 20 such layers (18 refused by the rule), AvgPool-1 and, on 2024.0, which reads it,
    AvgPool-14 of floor and ceil (its CPU plugin makes it an AvgPool-1), are not compiled by the release."""
    if release not in side_pythons():
        pytest.skip(f"no OpenVINO {release}: set IR_TOOLS_RELEASE_PYTHONS")
    model, feed, _ = pools_model(tmp_path / "pools.xml", np.random.default_rng(53 + version), 20, (version,),
                                 roundings=("floor", "ceil"))
    with pytest.raises(IrToolsError, match=REFUSAL):
        _run(side_pythons()[release], model, feed)
