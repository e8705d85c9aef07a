"""Where the zoo of real networks lives, and what its manifest says (scripts/build_zoo.py builds it).

The zoo needs torch and torchvision, which neither the project nor CI installs: tests that use it
skip with a message saying how to build it, benchmarks say the same and stop.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

#: ``$IR_TOOLS_ZOO``, else ``~/.cache/ir_tools/zoo``.
ZOO_DIR = Path(os.environ.get("IR_TOOLS_ZOO") or Path.home() / ".cache" / "ir_tools" / "zoo")
#: Five zoo files committed so that CI covers whole real networks without torch.
COMMITTED_DIR = Path(__file__).parent / "data" / "networks"
HOW_TO_BUILD = ("the zoo of real networks is not built: run `python scripts/build_zoo.py` in an environment with "
                "torch and torchvision (its docstring says how to install them)")


def zoo_entries(kind: str | None = None) -> list[dict]:
    """The manifest's entries that have a file (optionally of one ``kind``); [] when there is no zoo."""
    manifest = ZOO_DIR / "manifest.json"
    if not manifest.is_file():
        return []
    entries = json.loads(manifest.read_text())
    entries = entries["files"] if isinstance(entries, dict) else entries
    return [e for e in entries if e.get("file") and (kind is None or e.get("kind") == kind)]


#: ``$IR_TOOLS_IR_ZOO``, else ``~/.cache/ir_tools/ir_zoo``: the zoo's classifiers as IR (scripts/build_ir_zoo.py).
IR_ZOO_DIR = Path(os.environ.get("IR_TOOLS_IR_ZOO") or Path.home() / ".cache" / "ir_tools" / "ir_zoo")
HOW_TO_BUILD_IR = ("the IR zoo is not built: run `python scripts/build_ir_zoo.py` (it converts the zoo of real "
                   "networks, which `python scripts/build_zoo.py` builds, with OpenVINO)")


def ir_zoo_entries(network: str | None = None) -> list[dict]:
    """The IR zoo manifest's entries whose ``.xml`` exists (optionally of one ``network``), each with ``path``
    added; [] when there is no IR zoo."""
    manifest = IR_ZOO_DIR / "manifest.json"
    if not manifest.is_file():
        return []
    entries = json.loads(manifest.read_text())["files"]
    return [dict(e, path=str(IR_ZOO_DIR / e["file"])) for e in entries
            if (IR_ZOO_DIR / e["file"]).is_file() and (network is None or e.get("network") == network)]
