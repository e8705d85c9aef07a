"""``ir-tools compare --per-layer`` against OpenVINO alone, per model of the IR zoo: wall time and peak memory.

Run ``python benchmarks/bench_compare.py [--runs N] [--only TEXT ...] [--first-size] [--verdicts]`` after
building the IR zoo (``scripts/build_ir_zoo.py``, from the zoo of ``scripts/build_zoo.py``). ``--generative``
takes instead the generative zoo: the language models of the target zoo (``scripts/build_target_zoo.py``: GPT-2,
Llama, Qwen2 and BERT, plain and stateful, f16, f32 and NNCF's int8/int4) and of ``--large DIR`` (default
``~/.cache/ir_tools/target_zoo_large``: ``build_target_zoo.py --only llama_50m --out DIR``, a 50M-parameter Llama
traced at 128 tokens); ``--sequence N`` runs the stateful ones at a prompt of N tokens (the traced ones only run
at the length they were traced at, their manifest's). A stateful model is compared over compare's default two
steps (the prompt, then one token), and OpenVINO alone infers the same two steps on one request. For each IR,
at each input size its manifest lists (two or more where the input is dynamic), two fresh processes:

- ours: ``ir-tools compare --per-layer MODEL.xml --seed 0 [--shape NAME:DIMS] --format json`` (the JSON
  form, so that the verdict is read from the timed run itself; the text report costs the same);
- OpenVINO: a Python process that reads the same file with ``openvino.Core().read_model``, adds every output
  of every op but Constants, Results and Assigns (which OpenVINO refuses) as a model output
  (``model.add_outputs``), compiles it on CPU with ``INFERENCE_PRECISION_HINT`` f32 and infers once (a stateful
  model: twice) on seeded inputs of that size made as compare makes them (token ids within the vocabulary, masks
  of ones, positions counting, beam indices): what a person would run to see every layer's activation.

Each is a whole process (interpreter start, imports, everything): wall time from start to exit, CPU time (user
and system, every thread's) and peak RSS (the child's ``ru_utime``, ``ru_stime`` and ``ru_maxrss`` from ``wait4``;
the driver imports neither library, so what the child inherits at fork is small). The sides alternate within each
of ``--runs`` rounds and the best of each is kept. The table gives per row ours / OpenVINO for time, CPU and memory
and their geometric means; the target is at most 2x (wall time) on every model. Ours runs the reference beside
OpenVINO on every core, so its wall time follows its CPU time over the cores; CPU time also moves less than wall
time with the machine's load. A model OpenVINO alone fails on (a crash fixture) gets a row saying so, with
compare's verdict and no ratio; such rows are counted apart and left out of the means. ``--verdicts`` also
prints, per row, compare's verdict (PASSED/FAILED or its error), the layers compared, the layers that failed,
the layers "not checked" and their op types, and the first divergence. ``--json FILE`` writes every figure.

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

from tests.target_zoo import TARGET_ZOO_DIR  # noqa: E402
from tests.target_zoo import entries as target_entries  # noqa: E402
from tests.zoo import HOW_TO_BUILD_IR, IR_ZOO_DIR, ir_zoo_entries  # noqa: E402 (after the path is set)

TARGET = 2.0
#: What is kept of each side's runs, the least of each.
_KEPT = ("seconds", "cpu", "mib")

LARGE_DIR = TARGET_ZOO_DIR.parent / "target_zoo_large"

#: OpenVINO alone; argv[1] is a JSON row: the file, each input's kind and shape, the vocabulary, the steps.
OPENVINO = """
import json
import sys
import numpy as np
import openvino as ov
row = json.loads(sys.argv[1])
core = ov.Core()
model = core.read_model(row["path"])
model.add_outputs([out for op in model.get_ordered_ops()
                   if op.get_type_name() not in ("Result", "Constant", "Assign") for out in op.outputs()])
compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
request = compiled.create_infer_request()
types = {name: port.get_element_type().to_dtype() for port in compiled.inputs for name in port.get_names()}
rng = np.random.default_rng(0)
for step in range(row["steps"]):
    feed = {}
    for name, (kind, shape) in row["feeds"].items():
        past = shape[-1] + step - 1 if step else 0
        if step and kind in ("tokens", "positions"):
            shape = [*shape[:-1], 1]
        elif step and kind == "mask":
            shape = [*shape[:-1], past + 1]
        dtype = types[name]
        feed[name] = (rng.standard_normal(shape).astype(dtype) if kind == "float" else
                      rng.integers(0, row["vocab"], shape).astype(dtype) if kind == "tokens" else
                      np.ones(shape, dtype) if kind == "mask" else
                      np.broadcast_to(np.arange(past, past + shape[-1]), shape).astype(dtype) if kind == "positions"
                      else np.arange(shape[0]).astype(dtype) if kind == "beam" else np.zeros(shape, dtype))
    request.infer(feed)
"""


def ir_tools_command() -> list[str]:
    script = Path(sys.executable).parent / "ir-tools"
    if script.is_file():
        return [str(script)]
    found = shutil.which("ir-tools")
    return [found] if found else [sys.executable, "-m", "ir_tools"]


def run_process(argv: list[str], timeout: float) -> dict:
    """Run ``argv`` to its end: exit code, wall seconds, CPU seconds (user and system), peak RSS in MiB, stdout, the
    tail of stderr."""
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
        return {"code": process.returncode, "seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime,
                "mib": usage.ru_maxrss / 1024,
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
    if "layers" not in report:  # a refusal (E-INPUT, E-OPENVINO, ...) in check's JSON form: its diagnostics
        errors = [d for f in report.get("files", ()) for d in f["diagnostics"] if d["severity"] == "error"]
        return {"verdict": f"exit {run['code']}",
                "error": f"error[{errors[0]['code']}]: {errors[0]['message'][:300]}" if errors else ""}
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


def rows(entries: list[dict], first_size: bool) -> list[dict]:
    """One measurement per IR zoo entry and size: the file, each input's kind and shape, whether --shape is needed."""
    return [{"path": e["path"], "file": e["file"], "feeds": {e["input"]["name"]: ["float", size]}, "vocab": 0,
             "steps": 1, "shaped": e["dynamic"], "label": label(e["file"], size, e["dynamic"])}
            for e in entries for size in (e["sizes"][:1] if first_size else e["sizes"])]


def generative_rows(entries: list[dict], first_size: bool, sequence: int | None) -> list[dict]:
    """One measurement per language model of the target zoo and run shape (its manifest's; a stateful one's
    sequence ``sequence`` when given): compare's default two steps on a stateful model."""
    out = []
    for e in entries:
        for shapes in e["shapes"][:1] if first_size else e["shapes"]:
            if sequence is not None and e["stateful"]:
                shapes = {name: [*shape[:-1], sequence] if e["inputs"][name] != "beam" else shape
                          for name, shape in shapes.items()}
            first = next(iter(shapes.values()))
            out.append({"path": str(e["path"]), "file": e["file"], "vocab": e["vocab"], "shaped": True,
                        "feeds": {name: [e["inputs"][name], shape] for name, shape in shapes.items()},
                        "steps": 2 if e["stateful"] else 1,
                        "label": f"{Path(e['file']).stem}@b{first[0]}s{first[-1]}"})
    return out


def measure(row: dict, runs: int, timeout: float) -> dict:
    ours = [*ir_tools_command(), "compare", "--per-layer", row["path"], "--seed", "0", "--format", "json"]
    if row["shaped"]:
        ours += [arg for name, (_, shape) in row["feeds"].items()
                 for arg in ("--shape", f"{name}:{','.join(map(str, shape))}")]
    commands = {"ours": ours, "openvino": [sys.executable, "-c", OPENVINO, json.dumps(row)]}
    best: dict[str, dict] = {}
    last: dict[str, dict] = {}
    failed = False  # compare refused or crashed: that run alone says so, never its time beside a passing run's
    for i in range(runs * 2):
        side = list(commands)[(i + i // 2) % 2]  # ours, OpenVINO, then OpenVINO, ours, ...
        if side == "ours" and failed:
            continue
        run = run_process(commands[side], timeout)
        last[side] = run
        if side == "openvino" and run["code"] != 0:
            # OpenVINO alone cannot run the model (a crash fixture, say): no ratio, but a row saying so, with
            # what compare said of it (ours ran first), and the run goes on to the next model
            words = run["stderr"].strip().splitlines()
            error = (f"exit {run['code']}" + (" (timeout)" if run["timed_out"] else "")
                     + (f": {words[-1][-300:]}" if words else ""))
            return {"model": row["file"], "label": row["label"], "feeds": row["feeds"],
                    "ours": best.get("ours"), "openvino": None, "openvino_error": error,
                    "time_ratio": None, "memory_ratio": None,
                    "compare": verdict(last["ours"]) if "ours" in last else {"verdict": "not run", "error": ""}}
        failed = failed or (side == "ours" and run["code"] not in (0, 1))
        if side not in best or (failed and side == "ours"):
            best[side] = {k: run[k] for k in _KEPT}
        else:
            best[side] = {k: min(best[side][k], run[k]) for k in _KEPT}
        if failed and "openvino" in best:
            break
    return {"model": row["file"], "label": row["label"], "feeds": row["feeds"], "ours": best["ours"],
            "openvino": best["openvino"],
            "time_ratio": best["ours"]["seconds"] / best["openvino"]["seconds"],
            "cpu_ratio": best["ours"]["cpu"] / best["openvino"]["cpu"],
            "memory_ratio": best["ours"]["mib"] / best["openvino"]["mib"], "compare": verdict(last["ours"])}


def geomean(values: list[float]) -> float:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else math.nan


def label(file: str, size: list[int], dynamic: bool) -> str:
    name = Path(file).stem
    return f"{name}@{'x'.join(map(str, size[2:]))}b{size[0]}" if dynamic else name


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
    parser.add_argument("--generative", action="store_true",
                        help="the generative zoo (the language models of the target zoo and --large), not the IR zoo")
    parser.add_argument("--large", type=Path, default=LARGE_DIR,
                        help=f"with --generative, a target zoo holding llama_50m too (default {LARGE_DIR})")
    parser.add_argument("--sequence", type=int, metavar="N",
                        help="with --generative, the stateful models' prompt length (default: the manifest's shapes)")
    args = parser.parse_args()
    if args.generative:
        found = [e for directory in (TARGET_ZOO_DIR, args.large) for e in target_entries(directory)
                 if e.get("kind") == "language_model"]
        where = f"generative zoo: {TARGET_ZOO_DIR}, {args.large}"
    else:
        found, where = ir_zoo_entries(), f"IR zoo: {IR_ZOO_DIR}"
    entries = [e for e in found if (args.only is None or any(s in e["file"] for s in args.only))
               and not any(s in e["file"] for s in args.skip)]
    if not entries:
        print("the target zoo is not built: run scripts/build_target_zoo.py" if args.generative else HOW_TO_BUILD_IR)
        return 2
    compile_package()
    todo = (generative_rows(entries, args.first_size, args.sequence) if args.generative
            else rows(entries, args.first_size))
    print(f"{where}; {len(todo)} runs of {len(entries)} IRs; best of {args.runs} interleaved rounds, "
          f"one fresh process per measurement; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    header = (f"{'model':<42}{'ours s':>8}{'OV s':>8}{'ratio':>7}{'ours CPU':>10}{'OV CPU':>8}{'ratio':>7}"
              f"{'ours MiB':>10}{'OV MiB':>8}{'ratio':>7}  compare")
    print(header)
    results, refused = [], []
    for row in todo:
        result = measure(row, args.runs, args.timeout)
        ours, theirs = result["ours"], result["openvino"]
        if theirs is None:
            refused.append(result)
            print(f"{result['label']:<42}{ours['seconds'] if ours else math.nan:>8.2f}{'-':>8}{'-':>7}"
                  f"{ours['cpu'] if ours else math.nan:>10.2f}{'-':>8}{'-':>7}"
                  f"{ours['mib'] if ours else math.nan:>10.0f}{'-':>8}{'-':>7}  {result['compare']['verdict']}; "
                  f"OpenVINO alone failed ({result['openvino_error']})", flush=True)
            continue
        results.append(result)
        print(f"{result['label']:<42}{ours['seconds']:>8.2f}{theirs['seconds']:>8.2f}{result['time_ratio']:>6.2f}x"
              f"{ours['cpu']:>10.2f}{theirs['cpu']:>8.2f}{result['cpu_ratio']:>6.2f}x"
              f"{ours['mib']:>10.0f}{theirs['mib']:>8.0f}{result['memory_ratio']:>6.2f}x  "
              f"{result['compare']['verdict']}", flush=True)
    times = [r["time_ratio"] for r in results]
    memory = [r["memory_ratio"] for r in results]
    mean = {(side, k): geomean([r[side][k] for r in results]) for side in ("ours", "openvino") for k in _KEPT}
    print(f"{'geometric mean':<42}{mean['ours', 'seconds']:>8.2f}{mean['openvino', 'seconds']:>8.2f}"
          f"{geomean(times):>6.2f}x{mean['ours', 'cpu']:>10.2f}{mean['openvino', 'cpu']:>8.2f}"
          f"{geomean([r['cpu_ratio'] for r in results]):>6.2f}x"
          f"{mean['ours', 'mib']:>10.0f}{mean['openvino', 'mib']:>8.0f}{geomean(memory):>6.2f}x")
    print(f"worst: time {max(times, default=math.nan):.2f}x, memory {max(memory, default=math.nan):.2f}x; "
          f"over {TARGET}x: time on "
          f"{sum(t > TARGET for t in times)}, memory on {sum(m > TARGET for m in memory)} of {len(results)} "
          f"(target: at most {TARGET}x on every model); load average now {os.getloadavg()[0]:.2f}")
    if refused:
        print(f"OpenVINO alone failed on {len(refused)} more (no ratio, not in the means): "
              + ", ".join(r["label"] for r in refused))
    if args.verdicts:
        print()
        print(f"{'model':<42}{'verdict':>9}{'layers':>8}{'failed':>8}{'not checked':>13}  details")
        for result in results + refused:
            c = result["compare"]
            if "layers" not in c:
                print(f"{result['label']:<42}{c['verdict']:>9}  {c['error']}")
                continue
            details = []
            if c["failed_types"]:
                details.append("failed: " + ", ".join(f"{t} {n}" for t, n in c["failed_types"].items()))
            if c["first_divergence"]:
                details.append(f"first divergence {c['first_divergence']}")
            if c["not_checked_types"]:
                details.append("not checked: " + ", ".join(f"{t} {n}" for t, n in c["not_checked_types"].items()))
            print(f"{result['label']:<42}{c['verdict']:>9}{c['layers']:>8}"
                  f"{c['layers_failed']:>8}{c['not_checked']:>13}  {'; '.join(details)}")
        print(f"{sum(r['compare']['verdict'] == 'PASSED' for r in results + refused)} of {len(results + refused)} "
              f"PASSED; {sum(r['compare'].get('not_checked', 0) for r in results + refused)} layers not checked in all")
    if args.json:
        args.json.write_text(json.dumps({"load_average": os.getloadavg(), "results": results,
                                         "openvino_failed": refused}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
