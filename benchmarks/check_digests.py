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
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.target_zoo import TARGET_ZOO_DIR  # noqa: E402 (after the path is set)

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
    if args.save:
        args.save.write_text(json.dumps(records, indent=1, sort_keys=True) + "\n")
        print(f"{len(records)} records ({len(models)} models x {len(COMMANDS)} commands) written to {args.save}")
        return 0
    before = json.loads(args.compare.read_text())
    differ = [key for key in records if records[key] != before.get(key)]
    for key in differ:
        print(f"DIFFERS {key}: before {before.get(key)}, now {records[key]}")
    print(f"{len(records) - len(differ)} of {len(records)} records equal")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
