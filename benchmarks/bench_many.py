"""``ir-tools check DIR --jobs N`` on a folder of IRs: the speed-up of parallel processes.

Run ``python benchmarks/bench_many.py [--files 200] [--layers 300]``. It saves ``--files`` IRs of
about ``--layers`` layers each with OpenVINO (the residual chains of bench_read.py) into a
temporary folder, then times the whole command, each in a fresh process, best of three
interleaved rounds: ``--jobs 1`` against ``--jobs 2`` (the target: at least 1.6x faster on 2 cores).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_read import build

TARGET = 1.6


def timed(folder: Path, jobs: int) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ir_tools", "check", str(folder), "--jobs", str(jobs)], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--layers", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-many-") as tmp:
        folder = Path(tmp) / "models"
        folder.mkdir()
        first = folder / "m000.xml"
        build(first, args.layers)
        for i in range(1, args.files):
            for suffix in (".xml", ".bin"):
                shutil.copy(first.with_suffix(suffix), (folder / f"m{i:03d}").with_suffix(suffix))
        best = {1: float("inf"), 2: float("inf")}
        for _ in range(args.rounds):
            for jobs in best:
                best[jobs] = min(best[jobs], timed(folder, jobs))
    speedup = best[1] / best[2]
    print(f"{args.files} IRs of ~{args.layers} layers: --jobs 1 {best[1]:.2f} s, --jobs 2 {best[2]:.2f} s, "
          f"speed-up {speedup:.2f}x (target at least {TARGET}x)")


if __name__ == "__main__":
    main()
