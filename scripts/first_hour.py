"""The "first hour" measurement (issue 25): every ir-tools command over every IR file of a directory.

Run ``python scripts/first_hour.py [DIR] [--json OUT.json]`` (DIR defaults to ~/.cache/ir_tools/public_irs).
Each command runs as ``python -m ir_tools ...`` in a subprocess of its own, in a fresh temporary directory, with a
time limit; the ir_tools measured is whichever that interpreter imports, so ``PYTHONPATH=/tmp/before`` measures a
clone of an older commit. Printed per file and command: the exit code, the lines on stdout and stderr, the seconds,
and what no command may do: a traceback, E-INTERNAL, a foreign (not ir_tools') line on stderr (OpenVINO's or a
frontend's log, a Python warning, a crash), a file written although the command failed. Totals at the end.
``--diff BEFORE.json AFTER.json`` prints the lines per file and command of two runs side by side.

How the corpus was gathered (the tool library is not on CI, so no fetch script lives here): 22 public IR files,
copied verbatim from the stored GitHub repositories of the session's search tool (``read_file``, the length of each
checked against the stored one) into ~/.cache/ir_tools/public_irs, with manifest.json beside them (repository, path,
commit, what it is, where its .bin came from). Open Model Zoo's age-gender-recognition-retail-0013 FP16 as its
downloader gave it (Model Optimizer 2020.2, IR v10 FP16, Convolutions with output_padding; a user's repository).
openvinotoolkit/model_server: the same network's demo (MO 2021.3, IR v10 FP32), the rm_lstm4f example (MO 2021.1 Kaldi,
ReadValue/Assign-3) and the src/test models (dummy, increment_1x3x4x5, summator, scalar, passthrough, identity,
binary_output_dummy, dummy_fp64, no_name_output: MO 2020.1-2023.0, IR v10 and v11, f32/f64/u8/i8, ReadValue/Assign,
CRLF line ends). openvinotoolkit/openvino: the reader tests' IRs of src/core/tests/models/ir (add_abc, nms5,
loop_2d_add, dynamic_variable, conv_with_rt_info, string_parameter, ExperimentalDetectronROIFeatureExtractor of
version "experimental"; pad_with_shape_of as the git LFS pointer a clone without git-lfs holds) and
src/frontends/ir/tests (test_model_wrong_shape, test_model_without_weights). A repository's .bin is binary, which the
library does not store: where the repository has one, a .bin was synthesized (Const values documented or implied by
the file, e.g. NMS's max boxes from its declared output, else seeded N(0, 0.05) floats); the manifest says which.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

DEFAULT_DIR = Path.home() / ".cache" / "ir_tools" / "public_irs"

# name -> arguments after `python -m ir_tools`; MODEL is the file, OUT a file in the command's own directory.
COMMANDS: dict[str, tuple[str, ...]] = {
    "check": ("check", "MODEL"),
    "check --no-openvino": ("check", "--no-openvino", "MODEL"),
    "check --format json": ("check", "--format", "json", "MODEL"),
    "check --target 2023.0": ("check", "--target", "2023.0", "MODEL"),
    "inspect": ("inspect", "MODEL"),
    "shapes": ("shapes", "MODEL"),
    "shapes --fix -o": ("shapes", "--fix", "-o", "OUT.xml", "MODEL"),
    "run -o": ("run", "-o", "OUT.npz", "MODEL"),
    "compare": ("compare", "MODEL"),
    "compare --per-layer": ("compare", "--per-layer", "MODEL"),
    "migrate -o": ("migrate", "-o", "OUT.xml", "MODEL"),
    "migrate --target 2023.0 --dry-run": ("migrate", "--target", "2023.0", "--dry-run", "MODEL"),
}

# Lines no ir_tools code writes: glog/absl (TensorFlow frontend), OpenVINO's bracketed log, Python warnings, crashes.
FOREIGN = re.compile(
    r"^[IWEF]\d{4} \d\d:\d\d:\d\d|^\[\s*(ERROR|WARNING|WARN|INFO|DEBUG)\s*\]|^(ERROR|WARNING|INFO): |\w+Warning: "
    r"|^\s*warnings\.warn"
    r"|Segmentation fault|core dumped|terminate called|^Fatal Python error"
)


@dataclass
class Result:
    """One command on one file: what it printed and whether it broke a promise."""

    file: str
    command: str
    exit: int | None  # None: killed at the time limit
    seconds: float
    stdout: str
    stderr: str
    written: list[str] = field(default_factory=list)

    @property
    def out_lines(self) -> int:
        return len(self.stdout.splitlines())

    @property
    def err_lines(self) -> int:
        return len(self.stderr.splitlines())

    @property
    def traceback(self) -> bool:
        return "Traceback (most recent call last)" in self.stdout + self.stderr

    @property
    def internal(self) -> bool:
        return "E-INTERNAL" in self.stdout + self.stderr

    @property
    def foreign(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if FOREIGN.search(line)]

    @property
    def wrote_on_failure(self) -> bool:
        return bool(self.written) and self.exit != 0

    def flags(self) -> list[str]:
        """The broken promises, in words."""
        found = [name for name, hit in (("TIMEOUT", self.exit is None), ("TRACEBACK", self.traceback),
                                        ("E-INTERNAL", self.internal), ("WROTE ON FAILURE", self.wrote_on_failure))
                 if hit]
        return found + ([f"FOREIGN x{len(self.foreign)}"] if self.foreign else [])


def run_one(model: Path, name: str, timeout: float) -> Result:
    """Run one command on `model` in a fresh directory; note what it printed and wrote."""
    with tempfile.TemporaryDirectory(prefix="first-hour-") as tmp:
        argv = [str(model) if a == "MODEL" else str(Path(tmp) / a) if a.startswith("OUT") else a
                for a in COMMANDS[name]]
        env = dict(os.environ, COLUMNS="120")
        start = time.perf_counter()
        try:
            done = subprocess.run([sys.executable, "-m", "ir_tools", *argv], capture_output=True, text=True,
                                  errors="replace", timeout=timeout, cwd=tmp, env=env)
            code, out, err = done.returncode, done.stdout, done.stderr
        except subprocess.TimeoutExpired as e:
            code = None
            out, err = (s.decode(errors="replace") if isinstance(s, bytes) else s or "" for s in (e.stdout, e.stderr))
        seconds = time.perf_counter() - start
        written = sorted(str(p.relative_to(tmp)) for p in Path(tmp).rglob("*") if p.is_file())
    return Result(model.name, name, code, round(seconds, 2), out, err, written)


def print_file(results: list[Result]) -> None:
    """One line per command, then the file's total lines."""
    for r in results:
        flags = "  " + " ".join(f"[{f}]" for f in r.flags()) if r.flags() else ""
        code = "-" if r.exit is None else r.exit
        print(f"  {r.command:36} exit {code}  out {r.out_lines:4}  err {r.err_lines:3}  {r.seconds:6.1f}s{flags}")
    print(f"  {'lines printed':36} {sum(r.out_lines + r.err_lines for r in results)}")


def print_totals(results: list[Result], files: int) -> None:
    """Totals per command and over everything."""
    print(f"\nTotals over {files} files")
    for name in dict.fromkeys(r.command for r in results):
        rs = [r for r in results if r.command == name]
        codes = {c: sum(r.exit == c for r in rs) for c in sorted({r.exit for r in rs}, key=str)}
        lines = sum(r.out_lines + r.err_lines for r in rs)
        print(f"  {name:36} lines {lines:5}  exits {codes}  {sum(r.seconds for r in rs):7.1f}s")
    print(f"  lines printed: {sum(r.out_lines + r.err_lines for r in results)}; seconds: "
          f"{sum(r.seconds for r in results):.0f}")
    for flag in ("TIMEOUT", "TRACEBACK", "E-INTERNAL", "WROTE ON FAILURE", "FOREIGN"):
        hits = [r for r in results if any(f.startswith(flag) for f in r.flags())]
        print(f"  {flag}: {len(hits)}" + "".join(f"\n    {r.file}: {r.command}" for r in hits))


def diff(before: Path, after: Path) -> None:
    """Lines printed per file and command, before and after, from two --json outputs."""
    runs = [json.loads(p.read_text()) for p in (before, after)]
    lines = [{(r["file"], r["command"]): len(r["stdout"].splitlines()) + len(r["stderr"].splitlines())
              for r in run} for run in runs]
    exits = [{(r["file"], r["command"]): r["exit"] for r in run} for run in runs]
    files = sorted({f for f, _ in lines[0]} | {f for f, _ in lines[1]})
    print(f"{'file':60} {'before':>7} {'after':>7}")
    for f in files:
        b, a = (sum(n for (g, _), n in side.items() if g == f) for side in lines)
        print(f"{f:60} {b:7} {a:7}")
        for name in COMMANDS:
            key = (f, name)
            if lines[0].get(key) != lines[1].get(key) or exits[0].get(key) != exits[1].get(key):
                print(f"    {name:36} lines {lines[0].get(key)} -> {lines[1].get(key)}, "
                      f"exit {exits[0].get(key)} -> {exits[1].get(key)}")
    print(f"{'total':60} {sum(lines[0].values()):7} {sum(lines[1].values()):7}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir", nargs="?", type=Path, default=DEFAULT_DIR, help="directory of IR files")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per command (default 300)")
    parser.add_argument("--only", help="comma-separated command names (default: all)")
    parser.add_argument("--json", type=Path, help="also write every result, with its output, to this file")
    parser.add_argument("--diff", nargs=2, type=Path, metavar=("BEFORE.json", "AFTER.json"),
                        help="compare two --json outputs instead of running")
    args = parser.parse_args()
    if args.diff:
        diff(*args.diff)
        return
    names = args.only.split(",") if args.only else list(COMMANDS)
    unknown = [n for n in names if n not in COMMANDS]
    if unknown:
        parser.error(f"unknown command(s) {unknown}; known: {list(COMMANDS)}")
    which = subprocess.run([sys.executable, "-c", "import ir_tools; print(ir_tools.__file__)"],
                           capture_output=True, text=True).stdout.strip()
    models = sorted(args.dir.glob("*.xml"))
    print(f"ir_tools from {which}; {len(models)} files in {args.dir}")
    results: list[Result] = []
    for model in models:
        bin_note = "with .bin" if model.with_suffix(".bin").exists() else "no .bin"
        print(f"\n{model.name} ({bin_note})")
        mine = [run_one(model, name, args.timeout) for name in names]
        print_file(mine)
        results += mine
    print_totals(results, len(models))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1))


if __name__ == "__main__":
    main()
