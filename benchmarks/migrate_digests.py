"""What ``ir-tools migrate`` writes, as digests: the guard of bench_migrate.py's speed-ups, which must not change a
byte of migrate's output.

Run ``python benchmarks/migrate_digests.py --save BEFORE.json`` on the code before a change and
``python benchmarks/migrate_digests.py --compare BEFORE.json`` after it. For every model of the target zoo
(``$IR_TOOLS_TARGET_ZOO``, else ``~/.cache/ir_tools/target_zoo``) and of the committed fixtures (tests/data/target),
and for each ``--target`` (default: none, 2021.4, 2023.0, 2024.0, 2025.0), it runs ``ir_tools.cli.main(["migrate",
MODEL, "--target", T, "-o", OUT])`` in this process and records the exit code, the SHA-256 of what was printed (with
the paths of the temporary and the model's directory made neutral) and of the written ``.xml`` and ``.bin``.
``--compare`` prints each record that differs and exits 1 if any does.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.target_zoo import FIXTURES_DIR, TARGET_ZOO_DIR, entries  # noqa: E402 (after the path is set)

TARGETS = ["", "2021.4", "2023.0", "2024.0", "2025.0"]  # "" is migrate without --target


def digest(path: Path) -> str | None:
    """SHA-256 of a file's bytes, None where there is no file."""
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def record(xml: Path, target: str, tmp: Path) -> dict[str, object]:
    """One migrate of ``xml`` (to ``tmp``) for ``target``: exit code and digests of its words and files."""
    from ir_tools.cli import main

    out = tmp / xml.name
    argv = ["migrate", str(xml), "-o", str(out)] + (["--target", target] if target else [])
    words = io.StringIO()
    with contextlib.redirect_stdout(words), contextlib.redirect_stderr(words):
        code = main(argv)
    text = words.getvalue().replace(str(tmp), "TMP").replace(str(xml.parent), "MODELS")
    result = {"exit": code, "words": hashlib.sha256(text.encode()).hexdigest(),
              "xml": digest(out), "bin": digest(out.with_suffix(".bin"))}
    for file in tmp.iterdir():
        file.unlink()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--save", type=Path, metavar="JSON", help="write the records to JSON")
    action.add_argument("--compare", type=Path, metavar="JSON", help="compare the records with those of JSON")
    parser.add_argument("--target", nargs="*", default=TARGETS, help="releases ('' for none)")
    parser.add_argument("--only", nargs="*", default=[], help="only models whose file name contains one of these")
    args = parser.parse_args()
    models = [Path(e["path"]) for e in entries(TARGET_ZOO_DIR) + entries(FIXTURES_DIR)
              if not args.only or any(n in e["file"] for n in args.only)]
    records: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory(prefix="migrate-digests-") as tmp:
        for xml in models:
            for target in args.target:
                records[f"{xml.parent.name}/{xml.name} --target {target or '-'}"] = record(xml, target, Path(tmp))
    return saved_or_compared(records, args.save, args.compare, f"{len(models)} models x {len(args.target)} targets")


def saved_or_compared(records: dict[str, dict[str, object]], save: Path | None, compare: Path | None,
                      counted: str) -> int:
    """``records`` written to ``save`` (``counted``: what they are, in words), or compared with those of ``compare``:
    each that differs printed; the exit code (1 if any differs)."""
    if save:
        save.write_text(json.dumps(records, indent=1, sort_keys=True) + "\n")
        print(f"{len(records)} records ({counted}) written to {save}")
        return 0
    before = json.loads(compare.read_text())
    differ = [key for key in records if records[key] != before.get(key)]
    for key in differ:
        print(f"DIFFERS {key}: before {before.get(key)}, now {records[key]}")
    print(f"{len(records) - len(differ)} of {len(records)} records equal")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
