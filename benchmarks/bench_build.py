"""Building graphs through GraphBuilder is linear: seconds per 1k layers at 10k and 50k layers.

Each layer is a Convert (so the builder runs its shape rule) fed by the previous one. A quadratic
step (such as scanning every id for a new one) shows as a per-layer time that grows with the size.
Printed twice: with Python's cyclic garbage collector paused (the algorithm's own cost; the CLI
pauses it too) and running (as a library caller sees it: full collections rescan every layer).

    python benchmarks/bench_build.py
"""

from __future__ import annotations

import gc
import time

from ir_tools.base.dims import Dim
from ir_tools.ir.model import Graph
from ir_tools.passes.builder import GraphBuilder, output_of


def build(n: int) -> float:
    start = time.perf_counter()
    builder = GraphBuilder(Graph())
    out = builder.parameter("x", "f32", (Dim(1, 1), Dim(8, 8)))
    for i in range(n):
        out = output_of(builder.add("Convert", "opset1", {"destination_type": "f32"}, [out], f"c{i}"))
    builder.result(out, "y")
    return time.perf_counter() - start


def main() -> None:
    for collector in ("paused", "running"):
        if collector == "paused":
            gc.disable()
        times = {n: min(build(n) for _ in range(3)) for n in (10_000, 50_000)}
        gc.enable()
        for n, seconds in times.items():
            print(f"gc {collector}: {n:>6} layers: {seconds:.3f} s ({1000 * seconds / n:.4f} ms per layer)")
        ratio = (times[50_000] / 50_000) / (times[10_000] / 10_000)
        print(f"gc {collector}: per-layer time, 50k vs 10k: {ratio:.2f}x (1.00x: linear)")


if __name__ == "__main__":
    main()
