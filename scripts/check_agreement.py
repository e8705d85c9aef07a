"""How often ``ir-tools check`` agrees with OpenVINO on seeded one-mutation variants of OpenVINO-saved models.

Run ``python scripts/check_agreement.py [--variants 500] [--zoo]``. Each variant (tests/mutations.py:
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
from tests.mutations import mutate, openvino_accepts, source_models  # noqa: E402


def check(path: Path, *options: str) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return ir_tools(["check", str(path), *options])


def zoo_sources(folder: Path) -> list[Path]:
    """Two zoo networks converted by OpenVINO, if the zoo is built."""
    import openvino as ov

    from tests.zoo import ZOO_DIR

    paths = []
    for name in ("resnet18_96_op17.onnx", "densenet121_97_op17.onnx"):
        if (ZOO_DIR / name).exists():
            path = folder / name.replace(".onnx", ".xml")
            ov.save_model(ov.convert_model(str(ZOO_DIR / name)), path)
            paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", type=int, default=500)
    parser.add_argument("--zoo", action="store_true", help="also mutate two zoo networks (needs the zoo)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="agreement-") as tmp:
        sources = source_models(Path(tmp) / "sources") + (zoo_sources(Path(tmp)) if args.zoo else [])
        matrix = {mode: Counter() for mode in ("with OpenVINO's verdict", "--no-openvino")}
        disagreements = []
        for seed in range(args.variants):
            variant = mutate(sources[seed % len(sources)], Path(tmp) / f"v{seed}.xml", seed)
            accepted = openvino_accepts(variant.path)
            for mode, options in zip(matrix, ([], ["--no-openvino"]), strict=True):
                flagged = check(variant.path, "--compile", *options) != 0
                matrix[mode][(accepted, flagged)] += 1
                if accepted != (not flagged):
                    disagreements.append((mode, variant.kind, variant.what, "OpenVINO accepts" if accepted else
                                          "OpenVINO refuses", "check flags" if flagged else "check passes"))
    print(f"{args.variants} variants of {len(sources)} OpenVINO-saved models")
    for mode, counts in matrix.items():
        print(f"\ncheck {mode}:            check exits non-zero   check exits 0")
        print(f"  OpenVINO refuses       {counts[(False, True)]:>20}   {counts[(False, False)]:>13}")
        print(f"  OpenVINO accepts       {counts[(True, True)]:>20}   {counts[(True, False)]:>13}")
    print("\ndisagreements:")
    for row in disagreements:
        print("  " + " | ".join(row))


if __name__ == "__main__":
    main()
