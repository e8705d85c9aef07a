"""Measure ``ir-tools migrate --target RELEASE`` on the target zoo, for each older release installed on the side.

Runs in the project's environment (no torch): reads the target zoo that ``scripts/build_target_zoo.py`` built
(``$IR_TOOLS_TARGET_ZOO``, else ``~/.cache/ir_tools/target_zoo``; ``--fixtures`` takes tests/data/target instead),
and the releases of ``IR_TOOLS_RELEASE_PYTHONS="2023.0=/venv/bin/python,..."``:

    python scripts/zoo_targets.py [--only NAME ...] [--release 2023.0 ...] [--survey] [--fixtures]

For each IR and each release R (tests/target_zoo.py ``measure``): ``migrate --target R`` (in this process, through
``ir_tools.cli.main``), then whether the result holds only op versions R creates and passes check, OpenVINO's
verdict included (``ir_tools.check(out, target=R)``), keeps its input and output names (as the current OpenVINO
reports them), loads and runs on R (``ChildOpenVinoRunner``), and equals the current OpenVINO's outputs on the
original within 1e-4 of max|output| at every run shape of the manifest (seeded inputs; token ids below the
vocabulary, attention masks of ones, position ids a range). Prints one line per IR and release, the reason of each
failure, and per release: migrated, loads, only op versions it creates, names kept and equal, each out of the total.

``--survey`` prints instead, per op version above opset8, the IRs holding it, and what ``ir-tools check --target
R --no-openvino`` says of each (the layers refused, and whether ``migrate --target`` has a rewrite for them).
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import time
from collections import Counter, defaultdict
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.target_zoo import (  # noqa: E402 (after the path is set)
    FIXTURES_DIR,
    HOW_TO_BUILD,
    TARGET_ZOO_DIR,
    Measured,
    entries,
    measure,
    side_pythons,
)

VERDICTS = ("migrated", "loads", "creates", "names", "equal")


def newer_ops(entry: dict) -> list[str]:
    """The op versions above opset8 the IR holds (``Type-opsetN``)."""
    return sorted(op for op in entry["ops"] if int(op.rsplit("opset", 1)[1]) > 8)


def survey(files: list[dict], releases: list[str]) -> None:
    """Op version -> IRs holding it; then per release, what ``check --target`` refuses and whether a rewrite exists."""
    from ir_tools.cli import main

    holders: dict[str, list[str]] = defaultdict(list)
    for entry in files:
        for op in newer_ops(entry):
            holders[op].append(entry["file"].removesuffix(".xml"))
    print("op version above opset8 -> IRs holding it")
    for op, names in sorted(holders.items()):
        print(f"  {op} ({len(names)}): {', '.join(names)}")
    for name in releases:
        print(f"\ncheck --target {name} --no-openvino")
        said: dict[str, set[str]] = defaultdict(set)
        clean = 0
        for entry in files:
            out = io.StringIO()
            with redirect_stdout(out), redirect_stderr(io.StringIO()):
                code = main(["check", str(entry["path"]), "--no-openvino", "--target", name])
            clean += code == 0
            for line in out.getvalue().splitlines():
                found = re.search(r"cannot create (.+?); (.+?); (.+)$", line)
                if found and "E-TARGET" in line:
                    said[f"{found.group(1)}: {found.group(3)}"].add(entry["file"].removesuffix(".xml"))
        print(f"  {clean}/{len(files)} IRs with nothing refused")
        for what, names in sorted(said.items()):
            print(f"  {what} ({len(names)} IRs)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", default=[], help="only IRs whose file name contains one of these")
    parser.add_argument("--release", nargs="*", default=[], help="only these releases of IR_TOOLS_RELEASE_PYTHONS")
    parser.add_argument("--survey", action="store_true", help="the op versions above opset8 and check --target")
    parser.add_argument("--fixtures", action="store_true", help=f"measure {FIXTURES_DIR} instead of the zoo")
    args = parser.parse_args()
    directory = FIXTURES_DIR if args.fixtures else TARGET_ZOO_DIR
    files = [e for e in entries(directory) if not args.only or any(n in e["file"] for n in args.only)]
    if not files:
        sys.exit(HOW_TO_BUILD if not args.fixtures else f"no fixtures in {directory}")
    pythons = {r: p for r, p in side_pythons().items() if not args.release or r in args.release}
    if args.survey:
        survey(files, list(pythons) or ["2023.0", "2024.0", "2025.0"])
        return
    if not pythons:
        sys.exit("no older OpenVINO: set IR_TOOLS_RELEASE_PYTHONS=2023.0=/venv/bin/python,...")
    print(f"{len(files)} IRs of {directory}; releases {', '.join(pythons)}\n")
    results: dict[str, list[Measured]] = {r: [] for r in pythons}
    for entry in files:
        for release, python in pythons.items():
            start = time.perf_counter()
            found = measure(entry, release, python)
            results[release].append(found)
            verdict = "ok" if found.ok else "FAIL " + " | ".join(found.reasons)
            print(f"{entry['file']:<36} {release}  {time.perf_counter() - start:5.1f} s  {verdict}", flush=True)
    print("\nper release (out of the IRs measured):")
    for release, found in results.items():
        counts = Counter(v for m in found for v in VERDICTS if getattr(m, v))
        print(f"  {release}: " + ", ".join(f"{v} {counts[v]}/{len(found)}" for v in VERDICTS)
              + f"; all five {sum(m.ok for m in found)}/{len(found)}")


if __name__ == "__main__":
    main()
