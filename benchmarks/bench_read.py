"""Time and peak memory of reading an IR: ir_tools (read + graph + shapes) against OpenVINO's read_model.

Run ``python benchmarks/bench_read.py``. It saves residual chains of about 1k, 10k, 50k and 200k
layers with OpenVINO (Convolution, Add, Relu, AvgPool, AdaptiveAvgPool; f16 Consts + Convert
as ``save_model`` writes them) into a temporary folder, then measures, in one run:

- ours: ``ir_tools.read_ir`` + ``ir_tools.passes.shapes.propagate``
- OpenVINO: ``openvino.Core().read_model`` (parses, builds the ov::Model, infers types)

Every measurement runs in a fresh subprocess, so one side's allocator state or caches cannot
help the other, and the two sides alternate (best of interleaved runs). Each worker first
imports its library and reads a small sample (loading the IR frontend, registering ops), then
resets the process's peak RSS (``/proc/self/clear_refs``) and reports the peak RSS growth over
the first read: RSS, because OpenVINO allocates in C++ where tracemalloc cannot see. Time is the
best of all reads (wall clock: OpenVINO may use threads), with the cyclic GC left on as a host
program would have it; ours also reports the GC-tracked objects its read leaves and the
collections that ran during it. Per-layer time and memory show whether the cost is flat.

Then, at 50k layers, whole processes (interpreter start, imports, everything): ``ir-tools check
--no-openvino`` and ``ir-tools check`` (with OpenVINO's verdict), each against a process that only
runs ``read_model``. ``--profile`` adds per-stage CPU times (GC on and off) and a cProfile of our
side at the largest size.
"""

from __future__ import annotations

import argparse
import compileall
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
TARGETS = {"time": 1.2, "memory": 0.6, "check": 2.0}  # at TARGET_SIZE layers: ours / OpenVINO at most
TARGET_SIZE = 50_000
WARM_LAYERS = 20_000  # a worker reads a model of n layers at least WARM_LAYERS / n times


def compile_package() -> None:
    """Write ir_tools' bytecode once, as ``pip install`` does: under PYTHONDONTWRITEBYTECODE (set on some machines,
    this one included) every fresh process would otherwise compile the package anew, 0.1-0.15 s of each run."""
    compileall.compile_dir(ROOT / "ir_tools", quiet=1)


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
    """Read ``xml`` ``repeat`` times with one side; peak RSS growth of the first read, every time.

    Ours also reports the GC-tracked objects the first read + propagation left (``tracked``) and the
    collections that ran during it, per generation, with their CPU seconds (``collections``).
    """
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
    collections = {0: [0, 0.0], 1: [0, 0.0], 2: [0, 0.0]}
    started = [0.0]

    def count(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.process_time()
        else:
            entry = collections[info["generation"]]
            entry[0] += 1
            entry[1] += time.process_time() - started[0]

    _reset_peak()
    base, tracked = _peak_kb(), len(gc.get_objects())
    times, peak = [], None
    for i in range(repeat):
        if i == 0:
            gc.callbacks.append(count)
        start = time.perf_counter()
        result = read(xml)
        times.append(time.perf_counter() - start)
        if i == 0:
            gc.callbacks.remove(count)
            peak = _peak_kb() - base
            tracked = len(gc.get_objects()) - tracked
        del result
        gc.collect()
    return {"times": times, "peak_kb": peak, "tracked": tracked, "collections": collections}


def _run_worker(side: str, xml: Path, repeat: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--worker", side, str(xml), "--repeat", str(repeat)],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def measure(xml: Path, runs: int, repeat: int) -> dict[str, dict]:
    """Per side: best seconds, median peak MiB and ours' GC figures, over ``runs`` fresh subprocesses
    per side, the sides alternating."""
    data: dict[str, list[dict]] = {"ours": [], "openvino": []}
    for i in range(runs):
        for side in ("ours", "openvino") if i % 2 == 0 else ("openvino", "ours"):
            data[side].append(_run_worker(side, xml, repeat))
    summary = {}
    for side, results in data.items():
        summary[side] = {
            "time": min(t for r in results for t in r["times"]),
            "mib": statistics.median(r["peak_kb"] / 1024 for r in results),
            "tracked": results[0]["tracked"],
            "collections": results[0]["collections"],
        }
    return summary


def _process_seconds(argv: list[str], allowed: tuple[int, ...] = (0, 1)) -> float:
    """Wall seconds of one whole process (exit codes other than ``allowed`` are a failure)."""
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode not in allowed:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return seconds


def check_figures(xml: Path, runs: int) -> dict[str, float]:
    """Best wall seconds of whole processes, interleaved: ``ir-tools check`` with and without OpenVINO's
    verdict, and a process that only runs OpenVINO's ``read_model``."""
    commands = {
        "check --no-openvino": [sys.executable, "-m", "ir_tools.cli", "check", "--no-openvino", str(xml)],
        "check": [sys.executable, "-m", "ir_tools.cli", "check", str(xml)],
        "read_model": [sys.executable, "-c", "import sys, openvino; openvino.Core().read_model(sys.argv[1])",
                       str(xml)],
    }
    best: dict[str, float] = {}
    for i in range(runs):
        for name in commands if i % 2 == 0 else reversed(commands):
            seconds = _process_seconds(commands[name])
            best[name] = min(seconds, best.get(name, seconds))
    return best


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
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 50_000, 200_000])
    parser.add_argument("--runs", type=int, default=3, help="fresh subprocesses per side and size")
    parser.add_argument("--repeat", type=int, default=2, help="reads per subprocess (more for small models)")
    parser.add_argument("--check-runs", type=int, default=3, help="whole processes per command (0: skip)")
    parser.add_argument("--profile", action="store_true", help="cProfile our side at the largest size")
    parser.add_argument("--worker", choices=("ours", "openvino"), help=argparse.SUPPRESS)
    parser.add_argument("xml", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.xml, args.repeat)))
        return

    sys.path.insert(0, str(ROOT))
    import ir_tools

    compile_package()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_read_") as tmp:
        for size in args.sizes:
            xml = Path(tmp) / f"chain{size}.xml"
            build(xml, size)
            layers = len(ir_tools.read_ir(xml))
            # small models read more often: a process's first reads are slower (caches, allocator), which would
            # make a 1k-layer figure a measure of warming up rather than of a layer's cost
            repeat = max(args.repeat, -(-WARM_LAYERS // layers))
            rows.append((size, layers, xml, xml.stat().st_size / 2**20, measure(xml, args.runs, repeat)))
        header = (f"{'layers':>7} {'xml MiB':>8} | {'ours s':>7} {'OV s':>7} {'ratio':>6} | "
                  f"{'ours MiB':>8} {'OV MiB':>7} {'ratio':>6} | {'ours us/L':>9} {'OV us/L':>8} | "
                  f"{'ours KiB/L':>10} {'OV KiB/L':>8} | {'tracked':>8} {'/L':>4} | {'full GCs':>8} {'GC s':>5}")
        print(header)
        print("-" * len(header))
        for _, layers, _, mib, m in rows:
            ours, ov = m["ours"], m["openvino"]
            full = ours["collections"]["2"]
            gc_seconds = sum(c[1] for c in ours["collections"].values())
            time_ratio, mib_ratio = _ratio(ours["time"], ov["time"]), _ratio(ours["mib"], ov["mib"])
            print(f"{layers:>7} {mib:>8.1f} | {ours['time']:>7.3f} {ov['time']:>7.3f} {time_ratio:>6.2f} | "
                  f"{ours['mib']:>8.1f} {ov['mib']:>7.1f} {mib_ratio:>6.2f} | "
                  f"{ours['time'] / layers * 1e6:>9.1f} {ov['time'] / layers * 1e6:>8.1f} | "
                  f"{ours['mib'] * 1024 / layers:>10.2f} {ov['mib'] * 1024 / layers:>8.2f} | "
                  f"{ours['tracked']:>8} {ours['tracked'] / layers:>4.1f} | {full[0]:>8} {gc_seconds:>5.2f}")
        print("(tracked: GC-tracked objects our read + propagation left; full GCs and GC s: the generation-2\n"
              " collections and the CPU seconds of all collections during our first read, GC on)")
        for what, key in (("time", "time"), ("memory", "mib")):
            per_layer = [m["ours"][key] / layers for _, layers, _, _, m in rows]
            if len(per_layer) > 1:
                print(f"ours per layer, {rows[0][1]} to {rows[-1][1]} layers: {what} max/min = "
                      f"{max(per_layer) / min(per_layer):.2f}")
        target = min(rows, key=lambda r: abs(r[0] - TARGET_SIZE))
        layers, m = target[1], target[4]
        for what, key in (("time", "time"), ("memory", "mib")):
            ratio = _ratio(m["ours"][key], m["openvino"][key])
            verdict = "meets" if ratio <= TARGETS[what] else "MISSES"
            print(f"{layers} layers, {what}: ours/OpenVINO = {ratio:.2f}, {verdict} the target (<= {TARGETS[what]:g}x)")
        if args.check_runs:
            figures = check_figures(target[2], args.check_runs)
            base = figures["read_model"]
            print(f"\nwhole processes at {layers} layers (best of {args.check_runs}, interleaved): "
                  f"read_model alone {base:.2f} s")
            for name in ("check --no-openvino", "check"):
                ratio = _ratio(figures[name], base)
                verdict = "meets" if ratio <= TARGETS["check"] else "MISSES"
                print(f"  ir-tools {name:<20} {figures[name]:>6.2f} s = {ratio:.2f}x read_model, "
                      f"{verdict} the target (<= {TARGETS['check']:g}x)")
        if args.profile:
            largest = rows[-1][2]
            print(f"\nstages at {rows[-1][1]} layers (CPU time):\n{phases(largest)}\n")
            print(profile(largest))


if __name__ == "__main__":
    main()
