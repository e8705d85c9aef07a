"""What ``ir-tools check`` and ``ir-tools shapes`` say, as digests: the guard of a speed-up of the reader, the checks or
shape propagation, which must not change a finding.

Run ``python benchmarks/check_digests.py --save BEFORE.json`` on the code before a change and
``python benchmarks/check_digests.py --compare BEFORE.json`` after it. For every IR of the target zoo
(``$IR_TOOLS_TARGET_ZOO``, else ``~/.cache/ir_tools/target_zoo``), of tests/data and of samples, it runs
``ir_tools.cli.main(["check", MODEL, "--format", "json", "--no-openvino"])`` and ``main(["shapes", MODEL,
"--no-openvino"])`` in this process and records the exit code and the SHA-256 of what was printed (the repository's
path made neutral). ``--compare`` prints each record that differs and exits 1 if any does.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.migrate_digests import saved_or_compared  # noqa: E402 (after the path is set)
from tests.target_zoo import TARGET_ZOO_DIR  # noqa: E402

COMMANDS = {"check": ["--format", "json", "--no-openvino"], "shapes": ["--no-openvino"]}


def record(xml: Path, command: str) -> dict[str, object]:
    """One run of ``command`` on ``xml``: its exit code and the digest of its words."""
    from ir_tools.cli import main

    words = io.StringIO()
    with contextlib.redirect_stdout(words), contextlib.redirect_stderr(words):
        code = main([command, str(xml), *COMMANDS[command]])
    text = words.getvalue().replace(str(ROOT), "ROOT")
    return {"exit": code, "words": hashlib.sha256(text.encode()).hexdigest()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--save", type=Path, metavar="JSON", help="write the records to JSON")
    action.add_argument("--compare", type=Path, metavar="JSON", help="compare the records with those of JSON")
    args = parser.parse_args()
    models = [xml for folder in (TARGET_ZOO_DIR, ROOT / "tests" / "data", ROOT / "samples") if folder.is_dir()
              for xml in sorted(folder.rglob("*.xml"))]
    records = {f"{xml.relative_to(ROOT) if xml.is_relative_to(ROOT) else xml.name} {command}": record(xml, command)
               for xml in models for command in COMMANDS}
    return saved_or_compared(records, args.save, args.compare, f"{len(models)} models x {len(COMMANDS)} commands")


if __name__ == "__main__":
    sys.exit(main())
