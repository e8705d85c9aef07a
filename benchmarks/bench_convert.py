"""convert-onnx against OpenVINO's own conversion, per network of the zoo.

Run ``python benchmarks/bench_convert.py [--rounds N] [--only NAME ...]`` after building the zoo
(``scripts/build_zoo.py``). For each ONNX classifier of the zoo it times, in the same run:

- ours: ``ir-tools convert-onnx MODEL.onnx -o OUT.xml`` (read, check, OpenVINO's conversion of
  the cut model, our pooling spliced in, validation, our writer), called in-process;
- OpenVINO: ``ov.save_model(ov.convert_model(MODEL.onnx), OUT.xml)`` (what ``ovc`` does).

Both compress weights to f16 (the default of each). Every measurement runs in a fresh
subprocess, after its imports, so that neither side profits from the other's caches; rounds are
interleaved and the best of each side is kept. The target is at most 1.5x on every model.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.zoo import HOW_TO_BUILD, ZOO_DIR, zoo_entries  # noqa: E402 (after the path is set)

TARGET = 1.5

WORKER = """
import json, sys, time
from pathlib import Path
side, model, out = sys.argv[1], sys.argv[2], sys.argv[3]
if side == "ours":
    from ir_tools.cli import main
    start = time.perf_counter()
    code = main(["convert-onnx", model, "-o", out])
    assert code == 0, code
else:
    import openvino as ov
    start = time.perf_counter()
    ov.save_model(ov.convert_model(model), out)
print(json.dumps(time.perf_counter() - start))
"""


def measure(side: str, model: Path, out: Path) -> float:
    done = subprocess.run([sys.executable, "-c", WORKER, side, str(model), str(out)], capture_output=True, text=True,
                          check=True)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None, help="model names (e.g. resnet18) to limit the run to")
    parser.add_argument("--all", action="store_true",
                        help="every classifier file (default: one per network, calibrated, opset 17, static spatial)")
    args = parser.parse_args()
    entries = [e for e in zoo_entries("classifier") if (args.only is None or e["model"] in args.only)
               and (args.all or (e["calibrated"] and e["opset"] == 17 and "_dyn" not in e["file"]))]
    if not entries:
        print(HOW_TO_BUILD)
        return 2
    print(f"zoo: {ZOO_DIR}; best of {args.rounds} interleaved rounds, one fresh process per measurement")
    print(f"{'file':<34}{'MB':>7}{'ours s':>9}{'OpenVINO s':>12}{'ratio':>8}")
    ratios = []
    with tempfile.TemporaryDirectory(prefix="bench-convert-") as tmp:
        for entry in entries:
            path = ZOO_DIR / entry["file"]
            best = {"ours": math.inf, "openvino": math.inf}
            for _ in range(args.rounds):
                for side in best:
                    best[side] = min(best[side], measure(side, path, Path(tmp) / f"{side}.xml"))
            ratio = best["ours"] / best["openvino"]
            ratios.append(ratio)
            print(f"{entry['file']:<34}{path.stat().st_size / 2**20:>7.1f}{best['ours']:>9.3f}"
                  f"{best['openvino']:>12.3f}{ratio:>7.2f}x")
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"geometric mean {geomean:.2f}x, worst {max(ratios):.2f}x (target: at most {TARGET}x on every model)")
    print(json.dumps({"geomean": round(geomean, 3), "worst": round(max(ratios), 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
