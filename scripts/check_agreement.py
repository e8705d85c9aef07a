"""How often ``ir-tools check`` agrees with OpenVINO on seeded one-mutation variants of OpenVINO-saved models.

Run ``python scripts/check_agreement.py [--variants 500] [--zoo | --zoo-only]``. Each variant (tests/mutations.py:
a type renamed, an attribute dropped or corrupted, an edge moved, a dim changed, a Const's offset or
size changed) is judged by OpenVINO (read_model, then compile on CPU) and by ``check`` twice: with
OpenVINO's verdict (the default) and with ``--no-openvino`` (ir_tools' own rules alone). Prints the
confusion matrices, by mutation kind, and the variants where the two disagree.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ir_tools.cli import main as ir_tools  # noqa: E402
from tests.mutations import KINDS, mutate, openvino_accepts, source_models, zoo_sources  # noqa: E402


def check(path: Path, *options: str) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return ir_tools(["check", str(path), *options])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", type=int, default=500)
    parser.add_argument("--zoo", action="store_true", help="also mutate zoo networks, f16-compressed and f32 (needs "
                        "the zoo)")
    parser.add_argument("--zoo-only", action="store_true", help="mutate the zoo networks only")
    args = parser.parse_args()
    modes = ("with OpenVINO's verdict", "--no-openvino")
    with tempfile.TemporaryDirectory(prefix="agreement-") as tmp:
        sources = [] if args.zoo_only else source_models(Path(tmp) / "sources")
        sources += zoo_sources(Path(tmp)) if args.zoo or args.zoo_only else []
        matrix = {mode: Counter() for mode in modes}
        by_kind: dict[str, Counter] = {}
        disagreements = []
        for seed in range(args.variants):
            # Consecutive seeds take every mutation kind on one source before moving to the next.
            source = sources[(seed // len(KINDS)) % len(sources)]
            variant = mutate(source, Path(tmp) / f"v{seed}.xml", seed)
            accepted = openvino_accepts(variant.path)
            flags = []
            for mode, options in zip(modes, ([], ["--no-openvino"]), strict=True):
                flagged = check(variant.path, "--compile", *options) != 0
                matrix[mode][(accepted, flagged)] += 1
                flags.append(flagged)
            by_kind.setdefault(variant.kind, Counter())[(accepted, flags[0])] += 1
            if any(accepted == f for f in flags):
                which = " and ".join(m for m, f in zip(modes, flags, strict=True) if accepted == f)
                disagreements.append((source.stem, f"seed {seed}", variant.kind, variant.what,
                                      "OpenVINO accepts" if accepted else "OpenVINO refuses",
                                      f"check flags ({which})" if accepted else f"check passes ({which})"))
            variant.path.unlink()
            variant.path.with_suffix(".bin").unlink()
    print(f"{args.variants} variants of {len(sources)} OpenVINO-saved models: {', '.join(p.stem for p in sources)}")
    for mode, counts in matrix.items():
        print(f"\ncheck {mode}:            check exits non-zero   check exits 0")
        print(f"  OpenVINO refuses       {counts[(False, True)]:>20}   {counts[(False, False)]:>13}")
        print(f"  OpenVINO accepts       {counts[(True, True)]:>20}   {counts[(True, False)]:>13}")
    print("\nby mutation kind (with OpenVINO's verdict): refused+flagged, refused+passed, accepted+flagged, "
          "accepted+passed")
    for kind, counts in sorted(by_kind.items()):
        print(f"  {kind:<13} {counts[(False, True)]:>5} {counts[(False, False)]:>5} {counts[(True, True)]:>5} "
              f"{counts[(True, False)]:>5}")
    print(f"\ndisagreements ({len(disagreements)}):")
    for row in disagreements:
        print("  " + " | ".join(row))


if __name__ == "__main__":
    main()
