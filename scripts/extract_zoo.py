"""Measure ``extract`` on the target zoo (issue 24's acceptance for part 2): seeded cut points of five models, each
part equal to the original's activations.

Runs in the project's environment (no torch) on the target zoo that ``scripts/build_target_zoo.py`` built
(``$IR_TOOLS_TARGET_ZOO``, else ``~/.cache/ir_tools/target_zoo``):

    python scripts/extract_zoo.py [--models NAME ...] [--cuts 20] [--seed 0]

For each model: OpenVINO CPU's per-layer run of it at the manifest's first shapes (seeded inputs; token ids below the
vocabulary, attention masks of ones: ``tests/target_zoo.model_inputs``), then ``--cuts`` seeded cut points
(``tests/cuts.cut_points``: a named tensor, one or two named tensors it feeds, sometimes a second cut input, the
model inputs the part needs added as ``extract`` names them). Each part is written, read back and checked, and run
by OpenVINO on the original's activations at its inputs, per layer as the original was (``tests/cuts.measure``):
equal when every output equals the original's activation bit for bit, or, where OpenVINO picked another kernel for a
layer of the part, lies within the rounding bound (ops/rounding) of it, and its ``.bin`` holds exactly its Consts'
payloads. Also measured, not judged: a plain run of each part (only its outputs, so OpenVINO may fuse ops), its
largest distance from the original's activations in units of max|activation|. One line per model, then the totals.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ir_tools import read_valid  # noqa: E402 (after the path is set)
from ir_tools.passes.validate import require_valid  # noqa: E402
from ir_tools.runtime.openvino import ModelFiles  # noqa: E402
from tests.cuts import Measured, Original, cut_points, measure  # noqa: E402
from tests.target_zoo import HOW_TO_BUILD, TARGET_ZOO_DIR, entries, model_inputs  # noqa: E402

MODELS = ("resnet18_f32", "googlenet_f32", "vit_small_test_f32", "swin_small_test_f32", "gpt2_small_test_f32")


def measure_model(entry: dict, cuts: int, seed: int) -> tuple[list[Measured], int, int]:
    """The model's parts at ``cuts`` seeded cut points, the candidates ``extract`` refused, and its layer count."""
    xml = Path(entry["path"])
    graph = read_valid(xml)
    whole = Original(graph, ModelFiles(xml, xml.with_suffix(".bin")), model_inputs(graph, entry, entry["shapes"][0], 0),
                     require_valid(graph))
    points, refused = cut_points(whole, cuts, seed)
    with tempfile.TemporaryDirectory(prefix="extract-zoo-") as tmp:
        return [measure(whole, cut, Path(tmp), plain=True) for cut in points], refused, len(graph)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="*", default=list(MODELS), help="zoo models (file names without .xml)")
    parser.add_argument("--cuts", type=int, default=20, help="seeded cut points per model (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the cut points (default 0)")
    args = parser.parse_args()
    found = {e["file"].removesuffix(".xml"): e for e in entries(TARGET_ZOO_DIR)}
    missing = [name for name in args.models if name not in found]
    if missing:
        sys.exit(f"not in {TARGET_ZOO_DIR}: {', '.join(missing)}" + ("" if found else f" ({HOW_TO_BUILD})"))
    total, equal, exact, plain_exact, worst = 0, 0, 0, 0, 0.0
    for name in args.models:
        start = time.perf_counter()
        parts, refused, layers = measure_model(found[name], args.cuts, args.seed)
        sizes = sorted(part.layers for part in parts)
        distance = max(part.plain_distance for part in parts)
        for part in parts:
            if not part.equal or part.bounded:
                print(f"  {'within the bound' if part.equal else 'NOT EQUAL'} {name}: {part.cut} (bounded "
                      f"{part.bounded}, unequal {part.unequal}; .bin {part.bin_bytes} of {part.payload_bytes} bytes)")
        bit_exact = sum(part.equal and not part.bounded for part in parts)
        total += len(parts)
        equal += sum(part.equal for part in parts)
        exact += bit_exact
        plain_exact += sum(part.plain_distance == 0 for part in parts)
        worst = max(worst, distance)
        print(f"{name:<22} {layers:4} layers: {sum(p.equal for p in parts)}/{len(parts)} parts equal ({bit_exact} bit "
              f"for bit; {sizes[0]}-{sizes[-1]} layers each; {refused} candidates refused); plain run exact "
              f"{sum(p.plain_distance == 0 for p in parts)}/{len(parts)}, at most {distance:.2g} x max|activation| "
              f"({time.perf_counter() - start:.1f} s)", flush=True)
    print(f"\n{len(args.models)} models, {total} cut points: {equal}/{total} parts equal to the original's "
          f"activations ({exact} bit for bit, {equal - exact} within the rounding bound), .bin exactly their weights; "
          f"plain run exact {plain_exact}/{total}, at most {worst:.2g} x max|activation|")


if __name__ == "__main__":
    main()
