"""Measure ``ir-tools reduce`` on the IR zoo (scripts/build_ir_zoo.py), as issue 24 asks: the four planted defects of
tests/runtime/test_zoo_compare.py (a weight changed in its 4th digit, two output channels swapped, exclude-pad
flipped, a convolution pad moved), each reduced with ``--until compare-fails --load-outputs`` activations saved from
the original; and swin3d_small_test with an empty tensor made an output, which crashes OpenVINO CPU at compile
time, reduced with ``--until openvino-fails``.

Run ``python scripts/reduce_zoo.py``. Prints per case: the computing layers of the model and of the part found,
whether the part holds the changed layer, the OpenVINO runs (one compile each) and the seconds.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ir_tools.cli import main  # noqa: E402
from tests.defects import plant  # noqa: E402
from tests.runtime.test_reduce import crashing_model  # noqa: E402
from tests.runtime.test_zoo_compare import PLANTED  # noqa: E402
from tests.zoo import HOW_TO_BUILD_IR, ir_zoo_entries  # noqa: E402


def quietly(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(argv)
    return code, out.getvalue()


def reduce(argv: list[str], changed_layer: str | None) -> str:
    start = time.perf_counter()
    code, printed = quietly(["reduce", *argv, "--format", "json"])
    seconds = time.perf_counter() - start
    if code != 0:
        return f"exit {code}"
    found = json.loads(printed)
    part = ROOT / found["output"] if not Path(found["output"]).is_absolute() else Path(found["output"])
    holds = "" if changed_layer is None else (
        f", holds the changed layer: {changed_layer in part.read_text()}")
    return (f"{found['original_layers']} -> {found['layers']} computing layers{holds}, "
            f"{found['openvino_runs']} OpenVINO runs, {seconds:.0f} s")


def main_() -> int:
    entries = {e["file"]: e for e in ir_zoo_entries()}
    if not entries:
        print(HOW_TO_BUILD_IR)
        return 1
    with tempfile.TemporaryDirectory(prefix="reduce-zoo-") as tmp:
        work = Path(tmp)
        for kind, file, layer in PLANTED:
            entry = entries[file]
            original, changed = Path(entry["path"]), work / f"{kind}.xml"
            plant(kind, original, changed, layer)
            shape = f"{entry['input']['name']}:{','.join(map(str, entry['sizes'][0]))}"
            saved = work / f"{kind}-original.npz"
            quietly(["compare", str(original), "--shape", shape, "--per-layer", "--save-outputs", str(saved)])
            result = reduce([str(changed), "-o", str(work / f"{kind}-min.xml"), "--shape", shape,
                             "--load-outputs", str(saved)], f'name="{layer}"')
            print(f"{kind:<12} {file:<28} {result}", flush=True)
        crash = crashing_model(work / "crash.xml")
        result = reduce([str(crash), "-o", str(work / "crash-min.xml"), "--until", "openvino-fails"], None)
        print(f"{'crash':<12} {'swin3d_small_test + empty':<28} {result}")
    return 0


if __name__ == "__main__":
    sys.exit(main_())
