"""Time of ``ir-tools migrate MODEL --target 2023.0 -o OUT`` against OpenVINO's ``Core().read_model`` +
``save_model`` of the same model, per model of the target zoo, in one run.

Run ``python benchmarks/bench_migrate.py [--target 2023.0] [--runs 3] [--only NAME ...] [--floor] [--without PASS]
[--profile NAME]``.
The models: the target zoo that ``scripts/build_target_zoo.py`` builds (``$IR_TOOLS_TARGET_ZOO``, else
``~/.cache/ir_tools/target_zoo``), else the committed fixtures of tests/data/target. In this process, every side
warmed up once on the model, then interleaved, best of ``--runs`` each:

- ours: ``ir_tools.cli.main(["migrate", MODEL, "--target", T, "-o", OUT])`` (what the command does: read, validate,
  rewrite, check, write the .xml and .bin; with ``--stateless`` for a stateful model T cannot run), its printing
  sent nowhere;
- OpenVINO: ``ov.Core().read_model(MODEL)`` + ``ov.save_model(model, OUT, compress_to_fp16=False)`` (weights written
  as they are, as migrate writes them);
- with ``--floor``, also what every migrate does whatever it rewrites: ``read_ir``, the check's shape walk
  (``propagate``) and, where migrate writes (a model it leaves as it is it does not), ``write_ir``, and no more.
  Its ratio to OpenVINO's is the least migrate's can be with this reader, walker and writer; what is left of the
  goal is what the structural checks, the rewrites with their re-inference and gate, and the command around them
  may take;
- with ``--without PASS`` (a downgrade's class name, e.g. F32Decompression), also migrate with that pass rewriting
  nothing (and, a repair, finding nothing to repair): ours less this is what the pass costs in all, its rewrite, the
  re-inference and gate of what it changed, and their writing. Where migrate then refuses (marked: the op versions
  the pass rewrites are left), it writes nothing, and the difference is more than the pass costs.

Prints seconds and ratio per model, the median ratio against the target (at most 1.5x) and how many models are
within it. A model that migrate refuses (no rewrite yet) is timed all the same, to the refusal, and marked.
``--profile NAME`` runs pyinstrument (``pip install pyinstrument``) over one migrate of the first model whose file
name contains NAME.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.target_zoo import FIXTURES_DIR, TARGET_ZOO_DIR, entries, needs_stateless  # noqa: E402 (after the path is set)

GOAL = 1.5  # ours / OpenVINO at most


def ours(xml: Path, out: Path, target: str, stateless: bool = False) -> Callable[[], int]:
    from ir_tools.cli import main

    def run() -> int:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return main(["migrate", str(xml), "--target", target, "-o", str(out), *(["--stateless"] * stateless)])

    return run


def openvino(xml: Path, out: Path) -> Callable[[], int]:
    import openvino as ov

    def run() -> int:
        ov.save_model(ov.Core().read_model(xml), out, compress_to_fp16=False)
        return 0

    return run


def downgrade_named(name: str) -> type:
    """The downgrade class called ``name`` (``--without``); exits naming them all if there is none."""
    from ir_tools.passes.downgrade import DOWNGRADES

    found = next((d for d in DOWNGRADES if d.__name__ == name), None)
    if found is None:
        sys.exit(f"--without {name}: no such downgrade; one of {', '.join(d.__name__ for d in DOWNGRADES)}")
    return found


def without(run: Callable[[], int], downgrade: type) -> Callable[[], int]:
    """``run`` (ours) with ``downgrade`` rewriting nothing, and (a repair: ``Downgrade.unrepaired``) finding nothing
    left to repair."""
    from ir_tools.passes.base import PassResult

    def run_without() -> int:
        with mock.patch.object(downgrade, "apply", lambda self, graph: PassResult(graph, False)), \
                mock.patch.object(downgrade, "unrepaired", lambda self, graph: iter(())):
            return run()

    return run_without


def floor(xml: Path, out: Path, written: Path) -> Callable[[], int]:
    """Read, shape walk and, where migrate wrote ``written``, write."""
    from ir_tools.ir.reader import read_ir
    from ir_tools.ir.writer import write_ir
    from ir_tools.passes.shapes import propagate

    def run() -> int:
        graph = read_ir(xml)
        propagate(graph)
        if written.exists():
            write_ir(graph, out, graph.ir_version)
        return 0

    return run


def best(runs: dict[str, Callable[[], int]], rounds: int) -> tuple[dict[str, float], dict[str, int]]:
    """Best wall seconds per side over ``rounds`` interleaved rounds (after one warm-up each); each side's exit code."""
    codes = {side: run() for side, run in runs.items()}
    times: dict[str, list[float]] = {side: [] for side in runs}
    for i in range(rounds):
        for side in runs if i % 2 == 0 else reversed(runs):
            gc.collect()
            start = time.perf_counter()
            runs[side]()
            times[side].append(time.perf_counter() - start)
    return {side: min(t) for side, t in times.items()}, codes


def profile(entry: dict, target: str) -> None:
    from pyinstrument import Profiler

    xml = Path(entry["path"])
    with tempfile.TemporaryDirectory(prefix="bench-migrate-") as tmp:
        run = ours(xml, Path(tmp) / xml.name, target, needs_stateless(entry, target))
        run()
        profiler = Profiler(interval=0.0005)
        profiler.start()
        run()
        profiler.stop()
    print(profiler.output_text(unicode=False, color=False, show_all=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", default="2023.0")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per side and model (best is kept)")
    parser.add_argument("--only", nargs="*", default=[], help="only models whose file name contains one of these")
    parser.add_argument("--floor", action="store_true",
                        help="also time reading, the shape walk and writing alone, against OpenVINO's")
    parser.add_argument("--without", metavar="PASS",
                        help="also migrate with the downgrade PASS rewriting nothing: what the pass costs in all")
    parser.add_argument("--profile", metavar="NAME", help="pyinstrument over one migrate of that model")
    args = parser.parse_args()
    models = entries(TARGET_ZOO_DIR)
    source = TARGET_ZOO_DIR
    if not models:
        models, source = entries(FIXTURES_DIR), FIXTURES_DIR
        print(f"no target zoo in {TARGET_ZOO_DIR} (scripts/build_target_zoo.py builds it): the committed fixtures")
    models = [e for e in models if not args.only or any(n in e["file"] for n in args.only)]
    skipped = downgrade_named(args.without) if args.without else None
    if args.profile:
        profile(next(e for e in models if args.profile in e["file"]), args.target)
        return
    print(f"migrate --target {args.target} vs read_model + save_model, {len(models)} models of {source}, "
          f"best of {args.runs}\n")
    print(f"{'model':<36} {'MB':>7} {'ours s':>8} {'OV s':>8} {'ratio':>6}" + (f" {'floor':>6}" if args.floor else "")
          + (f" {'w/o':>6}" if args.without else ""))
    ratios, floors, withouts = [], [], []
    for entry in models:
        xml = Path(entry["path"])
        with tempfile.TemporaryDirectory(prefix="bench-migrate-") as tmp:
            runs = {"ours": ours(xml, Path(tmp) / "ours" / xml.name, args.target, needs_stateless(entry, args.target)),
                    "openvino": openvino(xml, Path(tmp) / "ov" / xml.name)}
            if args.floor:
                runs["floor"] = floor(xml, Path(tmp) / "floor" / xml.name, Path(tmp) / "ours" / xml.name)
            if skipped:
                runs["without"] = without(ours(xml, Path(tmp) / "without" / xml.name, args.target,
                                              needs_stateless(entry, args.target)), skipped)
            for side in runs:
                (Path(tmp) / side).mkdir()
            seconds, codes = best(runs, args.runs)
        ratio = seconds["ours"] / seconds["openvino"]
        ratios.append(ratio)
        size = (xml.stat().st_size + xml.with_suffix(".bin").stat().st_size) / 2**20
        note = ""
        if args.floor:
            floors.append(seconds["floor"] / seconds["openvino"])
            note += f" {floors[-1]:>6.2f}"
        if args.without:
            withouts.append(seconds["without"] / seconds["openvino"])
            note += f" {withouts[-1]:>6.2f}"
        refused = [f"{side} exit {codes[side]}" for side in ("ours", "without") if codes.get(side, 0) != 0]
        note += f"  (refused: {', '.join(refused)})" if refused else ""
        print(f"{entry['file']:<36} {size:>7.2f} {seconds['ours']:>8.3f} {seconds['openvino']:>8.3f} "
              f"{ratio:>6.2f}{note}", flush=True)
    median = statistics.median(ratios)
    verdict = "meets" if median <= GOAL else "MISSES"
    within = sum(ratio <= GOAL for ratio in ratios)
    print(f"\nmedian ratio {median:.2f} ({min(ratios):.2f} to {max(ratios):.2f}): {verdict} the goal (<= {GOAL:g}x); "
          f"{within} of {len(ratios)} models within it")
    if floors:
        print(f"floor (read, shape walk and write alone): median {statistics.median(floors):.2f}, "
              f"{min(floors):.2f} to {max(floors):.2f}")
    if withouts:
        print(f"without {args.without}: median {statistics.median(withouts):.2f}, {min(withouts):.2f} to "
              f"{max(withouts):.2f}; {sum(r <= GOAL for r in withouts)} of {len(withouts)} models within the goal")


if __name__ == "__main__":
    main()
