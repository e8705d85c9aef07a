"""The long run of the mutation fuzzer (tests/mutation_fuzz.py): every command on N seeded mutated IRs.

Run ``python scripts/fuzz_mutations.py --cases 3000 [--first 0] [--no-openvino]``. Prints how many cases it
tried, how long it took, and every promise a command broke (none, when all is well), with the seed that
rebuilds the case; exit 1 if any was broken. Each case runs in a forked child: a crash of OpenVINO is a broken
promise of that case (E-CRASH, where it crashed), and the run goes on.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import tempfile
import time
from collections import Counter
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.mutation_fuzz import apart, broken_promises, make_case  # noqa: E402


def import_once() -> None:
    """Import every module of ir_tools, and OpenVINO, here, once: each case's child would otherwise import again
    those its commands import. Nothing runs OpenVINO in this process (a fork of one whose OpenVINO started its
    threads may hang)."""
    import openvino  # noqa: F401 (imported for the children)

    import ir_tools

    for module in pkgutil.walk_packages(ir_tools.__path__, "ir_tools."):
        if not module.name.endswith("__main__"):  # (which runs the command line)
            importlib.import_module(module.name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--first", type=int, default=0, help="the first seed")
    parser.add_argument("--no-openvino", action="store_true", help="check as --no-openvino, and no compare")
    args = parser.parse_args()
    import_once()
    start = time.perf_counter()
    broken: list[str] = []
    kinds: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
        for seed in range(args.first, args.first + args.cases):
            case = make_case(seed, Path(tmp))
            kinds.update(what.split(":")[0] for what in case.what)
            for promise in apart(partial(broken_promises, case, openvino=not args.no_openvino)):
                broken.append(f"{case}\n    {promise}")
                print(broken[-1], flush=True)
            for p in sorted(case.xml.parent.rglob("*"), reverse=True):
                p.rmdir() if p.is_dir() else p.unlink()
            case.xml.parent.rmdir()
    seconds = time.perf_counter() - start
    print(f"{args.cases} cases (seeds {args.first}..{args.first + args.cases - 1}) in {seconds:.0f} s; mutations: "
          + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    print(f"{len(broken)} broken promise(s)")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
