"""Time and peak memory of reading an IR: ir_tools (read + graph + shapes) against OpenVINO's read_model.

Run ``python benchmarks/bench_read.py``. It saves residual chains of about 1k, 10k and 50k
layers with OpenVINO (Convolution, Add, Relu, AvgPool, AdaptiveAvgPool; f16 Consts + Convert
as ``save_model`` writes them) into a temporary folder, then measures, in one run:

- ours: ``ir_tools.read_ir`` + ``ir_tools.passes.shapes.propagate``
- OpenVINO: ``openvino.Core().read_model`` (parses, builds the ov::Model, infers types)

Every measurement runs in a fresh subprocess, so one side's allocator state or caches cannot
help the other. Each worker first imports its library and reads a small sample (loading the
IR frontend, registering ops), then resets the process's peak RSS (``/proc/self/clear_refs``)
and reports the peak RSS growth over the first read: RSS, because OpenVINO allocates in C++
where tracemalloc cannot see. Time is the best of all reads (wall clock: OpenVINO may use
threads). ``--profile`` adds per-stage CPU times (GC on and off) and a cProfile of our side
at the largest size.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WARMUP = ROOT / "samples" / "mixed_network.xml"
TARGETS = {"time": 1.5, "memory": 1.0}  # at the largest size: ours / OpenVINO at most


# -- building the models ---------------------------------------------------------------------------
def build(path: Path, layers: int) -> None:
    """A residual chain of ~``layers`` layers: 11 per block (incl. Consts and Converts)."""
    import numpy as np
    import openvino as ov
    import openvino.opset1 as ops1
    import openvino.opset8 as ops8

    rng = np.random.default_rng(0)
    x = ops1.parameter([1, 4, 8, 8], np.float32, name="input")
    size = np.array([8, 8], np.int64)
    y = x
    for i in range(max(1, (layers - 3) // 11)):
        w = ops1.constant(rng.standard_normal((4, 4, 1, 1)).astype(np.float32), name=f"b{i}/w")
        b = ops1.constant(rng.standard_normal((1, 4, 1, 1)).astype(np.float32), name=f"b{i}/b")
        conv = ops1.convolution(y, w, [1, 1], [0, 0], [0, 0], [1, 1], name=f"b{i}/conv")
        act = ops1.relu(ops1.add(conv, b, name=f"b{i}/bias"), name=f"b{i}/relu")
        pool = ops1.avg_pool(act, [1, 1], [1, 1], [1, 1], [3, 3], True, name=f"b{i}/pool")
        adaptive = ops8.adaptive_avg_pool(pool, ops1.constant(size, name=f"b{i}/size"), name=f"b{i}/adaptive")
        y = ops1.add(adaptive, y, name=f"b{i}/residual")
    ov.save_model(ov.Model([ops1.result(y, name="output")], [x], f"chain{layers}"), path)


# -- one measurement in a fresh process -----------------------------------------------------------
def _reset_peak() -> None:
    """Make ru_maxrss start again from the current RSS (Linux >= 4.0; elsewhere a no-op)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def _peak_kb() -> int:
    """This process's peak RSS in KiB.

    VmHWM, not ru_maxrss: after fork+exec, ru_maxrss also covers the parent's RSS at fork
    time (kept in the signal struct, which clear_refs does not reset), so a worker started by
    a big driver would see no growth at all.
    """
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def worker(side: str, xml: Path, repeat: int) -> dict:
    """Read ``xml`` ``repeat`` times with one side; peak RSS growth of the first read, every time."""
    if side == "ours":
        import ir_tools
        from ir_tools.passes.shapes import propagate

        def read(path: Path) -> object:
            graph = ir_tools.read_ir(path)
            return graph, propagate(graph)
    else:
        import openvino as ov

        core = ov.Core()

        def read(path: Path) -> object:
            return core.read_model(path)

    read(WARMUP)
    gc.collect()
    _reset_peak()
    base = _peak_kb()
    times, peak = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = read(xml)
        times.append(time.perf_counter() - start)
        if peak is None:
            peak = _peak_kb() - base
        del result
        gc.collect()
    return {"times": times, "peak_kb": peak}


def measure(side: str, xml: Path, runs: int, repeat: int) -> tuple[float, float]:
    """(best seconds, median peak MiB) over ``runs`` fresh subprocesses."""
    times, peaks = [], []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, __file__, "--worker", side, str(xml), "--repeat", str(repeat)],
            check=True, capture_output=True, text=True,
        ).stdout
        data = json.loads(out.strip().splitlines()[-1])
        times += data["times"]
        peaks.append(data["peak_kb"] / 1024)
    return min(times), statistics.median(peaks)


def _ratio(ours: float, theirs: float) -> float:
    """ours / theirs; infinite when OpenVINO's growth was too small to see (it reused freed memory)."""
    return ours / theirs if theirs > 0 else float("inf")


# -- profiling ----------------------------------------------------------------------------------
def phases(xml: Path, rounds: int = 3) -> str:
    """CPU seconds per stage (best of ``rounds``), with the cyclic GC on and off.

    cProfile's per-call overhead exaggerates call-heavy code, so stage timings and the GC
    share are the numbers to trust; the profile below says which functions sit inside them.
    """
    import ir_tools
    from ir_tools.ir.reader import parse_xml
    from ir_tools.passes.shapes import propagate

    propagate(ir_tools.read_ir(WARMUP))
    lines = []
    for label, collect in (("gc on", True), ("gc off", False)):
        best: dict[str, float] = {}
        for _ in range(rounds):
            gc.collect()
            if not collect:
                gc.disable()
            try:
                t0 = time.process_time()
                parse_xml(xml)
                t1 = time.process_time()
                graph = ir_tools.read_ir(xml)
                t2 = time.process_time()
                graph.topological_order()
                t3 = time.process_time()
                propagate(graph)
                t4 = time.process_time()
            finally:
                gc.enable()
            stages = {"lxml parse": t1 - t0, "read_ir (incl. parse)": t2 - t1, "topological_order": t3 - t2,
                      "propagate (incl. topo)": t4 - t3}
            best = {k: min(v, best.get(k, v)) for k, v in stages.items()}
            del graph
        lines.append(f"{label}: " + ", ".join(f"{k} {v:.3f}s" for k, v in best.items()))
    return "\n".join(lines)


def profile(xml: Path, top: int = 20) -> str:
    import ir_tools
    from ir_tools.passes.shapes import propagate

    propagate(ir_tools.read_ir(WARMUP))
    prof = cProfile.Profile()
    prof.enable()
    graph = ir_tools.read_ir(xml)
    propagate(graph)
    prof.disable()
    text = io.StringIO()
    stats = pstats.Stats(prof, stream=text).strip_dirs()
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return text.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 50_000])
    parser.add_argument("--runs", type=int, default=3, help="fresh subprocesses per side and size")
    parser.add_argument("--repeat", type=int, default=3, help="reads per subprocess")
    parser.add_argument("--profile", action="store_true", help="cProfile our side at the largest size")
    parser.add_argument("--worker", choices=("ours", "openvino"), help=argparse.SUPPRESS)
    parser.add_argument("xml", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.xml, args.repeat)))
        return

    sys.path.insert(0, str(ROOT))
    import ir_tools

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_read_") as tmp:
        for size in args.sizes:
            xml = Path(tmp) / f"chain{size}.xml"
            build(xml, size)
            layers = len(ir_tools.read_ir(xml))
            ours = measure("ours", xml, args.runs, args.repeat)
            theirs = measure("openvino", xml, args.runs, args.repeat)
            rows.append((layers, xml.stat().st_size / 2**20, ours, theirs))
        header = f"{'layers':>7} {'xml MiB':>8} | {'ours s':>7} {'OV s':>7} {'ratio':>6} | " \
                 f"{'ours MiB':>8} {'OV MiB':>7} {'ratio':>6}"
        print(header)
        print("-" * len(header))
        for layers, mib, (t_ours, m_ours), (t_ov, m_ov) in rows:
            print(f"{layers:>7} {mib:>8.1f} | {t_ours:>7.3f} {t_ov:>7.3f} {_ratio(t_ours, t_ov):>6.2f} | "
                  f"{m_ours:>8.1f} {m_ov:>7.1f} {_ratio(m_ours, m_ov):>6.2f}")
        layers, _, (t_ours, m_ours), (t_ov, m_ov) = rows[-1]
        for what, ratio in (("time", _ratio(t_ours, t_ov)), ("memory", _ratio(m_ours, m_ov))):
            verdict = "meets" if ratio <= TARGETS[what] else "MISSES"
            print(f"{layers} layers, {what}: ours/OpenVINO = {ratio:.2f}, "
                  f"{verdict} the target (<= {TARGETS[what]:g}x)")
        if args.profile:
            largest = Path(tmp) / f"chain{args.sizes[-1]}.xml"
            print(f"\nstages at {layers} layers (CPU time):\n{phases(largest)}\n")
            print(profile(largest))


if __name__ == "__main__":
    main()
