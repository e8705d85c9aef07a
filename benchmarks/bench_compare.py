"""``ir-tools compare --per-layer`` against OpenVINO alone, per model of the IR zoo: wall time and peak memory.

Run ``python benchmarks/bench_compare.py [--runs N] [--only TEXT ...] [--first-size] [--verdicts]`` after
building the IR zoo (``scripts/build_ir_zoo.py``, from the zoo of ``scripts/build_zoo.py``). For each IR,
at each input size its manifest lists (two or more where the input is dynamic), two fresh processes:

- ours: ``ir-tools compare --per-layer MODEL.xml --seed 0 [--shape NAME:DIMS] --format json`` (the JSON
  form, so that the verdict is read from the timed run itself; the text report costs the same);
- OpenVINO: a Python process that reads the same file with ``openvino.Core().read_model``, adds every output
  of every op but Constants and Results as a model output (``model.add_outputs``), compiles it on CPU with
  ``INFERENCE_PRECISION_HINT`` f32 and infers once on seeded random inputs of that size: what a person
  would run to see every layer's activation.

Each is a whole process (interpreter start, imports, everything): wall time from start to exit and peak
RSS (the child's ``ru_maxrss`` from ``wait4``; the driver imports neither library, so what the child
inherits at fork is small). The sides alternate within each of ``--runs`` rounds and the best of each is
kept. The table gives per row ours / OpenVINO for time and memory and their geometric means; the target
is at most 2x on every model. ``--verdicts`` also prints, per row, compare's verdict (PASSED/FAILED or its
error), the layers compared, the layers that failed, the layers "not checked" and their op types, and the
first divergence. ``--json FILE`` writes every figure.

Timing is noisy on a shared machine: say how loaded it was when quoting numbers.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_read import compile_package  # noqa: E402

from tests.zoo import HOW_TO_BUILD_IR, IR_ZOO_DIR, ir_zoo_entries  # noqa: E402 (after the path is set)

TARGET = 2.0

OPENVINO = """
import sys
import numpy as np
import openvino as ov
xml, dims = sys.argv[1], sys.argv[2]
core = ov.Core()
model = core.read_model(xml)
model.add_outputs([out for op in model.get_ordered_ops() if op.get_type_name() not in ("Result", "Constant")
                   for out in op.outputs()])
compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
shape = [int(d) for d in dims.split(",")]
x = np.random.default_rng(0).standard_normal(shape).astype(compiled.inputs[0].get_element_type().to_dtype())
compiled.create_infer_request().infer({0: x})
"""


def ir_tools_command() -> list[str]:
    script = Path(sys.executable).parent / "ir-tools"
    if script.is_file():
        return [str(script)]
    found = shutil.which("ir-tools")
    return [found] if found else [sys.executable, "-m", "ir_tools"]


def run_process(argv: list[str], timeout: float) -> dict:
    """Run ``argv`` to its end: exit code, wall seconds, peak RSS in MiB, stdout, the tail of stderr."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        timer = threading.Timer(timeout, process.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {"code": process.returncode, "seconds": seconds, "mib": usage.ru_maxrss / 1024,
                "stdout": out.read().decode(errors="replace"), "stderr": err.read().decode(errors="replace")[-2000:],
                "timed_out": seconds >= timeout}


def verdict(run: dict) -> dict:
    """What compare said: PASSED/FAILED from its JSON report, else its exit code and last words."""
    try:
        report = json.loads(run["stdout"])
    except ValueError:
        words = run["stderr"].strip().splitlines()
        return {"verdict": f"exit {run['code']}" + (" (timeout)" if run["timed_out"] else ""),
                "error": words[-1] if words else ""}
    failing = [lay for lay in report["layers"] if not lay["passed"]]
    divergence = report.get("first_divergence")
    return {
        "verdict": "PASSED" if report["passed"] else "FAILED",
        "code": run["code"],
        "outputs_failed": sum(not o["passed"] for o in report["outputs"]),
        "layers": len(report["layers"]),
        "layers_failed": len(failing),
        "failed_types": dict(Counter(lay["type"] for lay in failing).most_common()),
        "not_checked": len(report["not_checked"]),
        "not_checked_types": dict(Counter(lay["type"] for lay in report["not_checked"]).most_common()),
        "folded_constants": report["folded_constants"],
        "first_divergence": f"{divergence['name']} ({divergence['type']})" if divergence else None,
    }


def rows(entries: list[dict], first_size: bool) -> list[tuple[dict, list[int]]]:
    return [(e, size) for e in entries for size in (e["sizes"][:1] if first_size else e["sizes"])]


def measure(entry: dict, size: list[int], runs: int, timeout: float) -> dict:
    dims = ",".join(map(str, size))
    ours = [*ir_tools_command(), "compare", "--per-layer", entry["path"], "--seed", "0", "--format", "json"]
    if entry["dynamic"]:
        ours += ["--shape", f"{entry['input']['name']}:{dims}"]
    commands = {"ours": ours, "openvino": [sys.executable, "-c", OPENVINO, entry["path"], dims]}
    best: dict[str, dict] = {}
    last: dict[str, dict] = {}
    for i in range(runs):
        for side in commands if i % 2 == 0 else reversed(commands):
            run = run_process(commands[side], timeout)
            last[side] = run
            if side == "openvino" and run["code"] != 0:
                raise RuntimeError(f"OpenVINO alone failed on {entry['file']}: {run['stderr'].strip()[-500:]}")
            if side not in best:
                best[side] = {"seconds": run["seconds"], "mib": run["mib"]}
            else:
                best[side] = {k: min(best[side][k], run[k]) for k in ("seconds", "mib")}
            if side == "ours" and run["code"] not in (0, 1):
                break  # compare refused or crashed: one run says so
    return {"model": entry["file"], "size": size, "ours": best["ours"], "openvino": best["openvino"],
            "time_ratio": best["ours"]["seconds"] / best["openvino"]["seconds"],
            "memory_ratio": best["ours"]["mib"] / best["openvino"]["mib"], "compare": verdict(last["ours"])}


def geomean(values: list[float]) -> float:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else math.nan


def label(result: dict, entry: dict) -> str:
    name = Path(result["model"]).stem
    return f"{name}@{'x'.join(map(str, result['size'][2:]))}b{result['size'][0]}" if entry["dynamic"] else name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=2, help="rounds per model, sides alternating; best kept")
    parser.add_argument("--only", nargs="*", default=None,
                        help="run only the IRs whose file name contains one of these (e.g. resnet18 _f16t)")
    parser.add_argument("--skip", nargs="*", default=(), help="leave out the IRs whose file name contains one of these")
    parser.add_argument("--first-size", action="store_true", help="dynamic IRs at their first size only")
    parser.add_argument("--verdicts", action="store_true",
                        help="also print compare's verdict, failing and not-checked layers per model")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds before a process is killed")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args()
    entries = [e for e in ir_zoo_entries()
               if (args.only is None or any(s in e["file"] for s in args.only))
               and not any(s in e["file"] for s in args.skip)]
    if not entries:
        print(HOW_TO_BUILD_IR)
        return 2
    by_file = {e["file"]: e for e in entries}
    compile_package()
    todo = rows(entries, args.first_size)
    print(f"IR zoo: {IR_ZOO_DIR}; {len(todo)} runs of {len(entries)} IRs; best of {args.runs} interleaved rounds, "
          f"one fresh process per measurement; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    header = f"{'model':<42}{'ours s':>8}{'OV s':>8}{'ratio':>7}{'ours MiB':>10}{'OV MiB':>8}{'ratio':>7}  compare"
    print(header)
    results = []
    for entry, size in todo:
        result = measure(entry, size, args.runs, args.timeout)
        results.append(result)
        ours, theirs = result["ours"], result["openvino"]
        print(f"{label(result, entry):<42}{ours['seconds']:>8.2f}{theirs['seconds']:>8.2f}{result['time_ratio']:>6.2f}x"
              f"{ours['mib']:>10.0f}{theirs['mib']:>8.0f}{result['memory_ratio']:>6.2f}x  "
              f"{result['compare']['verdict']}", flush=True)
    times = [r["time_ratio"] for r in results]
    memory = [r["memory_ratio"] for r in results]
    mean = {(side, k): geomean([r[side][k] for r in results])
            for side in ("ours", "openvino") for k in ("seconds", "mib")}
    print(f"{'geometric mean':<42}{mean['ours', 'seconds']:>8.2f}{mean['openvino', 'seconds']:>8.2f}"
          f"{geomean(times):>6.2f}x{mean['ours', 'mib']:>10.0f}{mean['openvino', 'mib']:>8.0f}{geomean(memory):>6.2f}x")
    print(f"worst: time {max(times):.2f}x, memory {max(memory):.2f}x; over {TARGET}x: time on "
          f"{sum(t > TARGET for t in times)}, memory on {sum(m > TARGET for m in memory)} of {len(results)} "
          f"(target: at most {TARGET}x on every model); load average now {os.getloadavg()[0]:.2f}")
    if args.verdicts:
        print()
        print(f"{'model':<42}{'verdict':>9}{'layers':>8}{'failed':>8}{'not checked':>13}  details")
        for result in results:
            c = result["compare"]
            if "layers" not in c:
                print(f"{label(result, by_file[result['model']]):<42}{c['verdict']:>9}  {c['error']}")
                continue
            details = []
            if c["failed_types"]:
                details.append("failed: " + ", ".join(f"{t} {n}" for t, n in c["failed_types"].items()))
            if c["first_divergence"]:
                details.append(f"first divergence {c['first_divergence']}")
            if c["not_checked_types"]:
                details.append("not checked: " + ", ".join(f"{t} {n}" for t, n in c["not_checked_types"].items()))
            print(f"{label(result, by_file[result['model']]):<42}{c['verdict']:>9}{c['layers']:>8}"
                  f"{c['layers_failed']:>8}{c['not_checked']:>13}  {'; '.join(details)}")
        print(f"{sum(r['compare']['verdict'] == 'PASSED' for r in results)} of {len(results)} PASSED; "
              f"{sum(r['compare'].get('not_checked', 0) for r in results)} layers not checked in all")
    if args.json:
        args.json.write_text(json.dumps({"load_average": os.getloadavg(), "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
