"""Write the README's "Diagnostic codes" table from ir_tools/base/codes.py, the one list of codes.

Only the table's rows under the heading ``### Diagnostic codes`` are rewritten; the rest of the README is left as it
is. tests/test_codes.py fails while the two differ; run this after changing a code:

    python scripts/make_codes_table.py
"""

from __future__ import annotations

import re
from pathlib import Path

from ir_tools.base.codes import CODES

README = Path(__file__).resolve().parents[1] / "README.md"
HEADING = "### Diagnostic codes\n"
#: How the README words each severity.
SEVERITY = {"fatal": "fatal (exit 2)", "error": "error", "warning": "warning"}
#: The first run of table lines.
_TABLE = re.compile(r"^\|.*\n(?:\|.*\n)*", re.MULTILINE)


def table() -> str:
    """The markdown table: a header, then one row per code in the order of ``CODES``."""
    rows = ["| code | severity | meaning |", "|---|---|---|"]
    rows += [f"| {c.code} | {SEVERITY[c.severity]} | {c.meaning} |" for c in CODES.values()]
    return "\n".join(rows) + "\n"


def section(readme: str) -> tuple[int, int]:
    """Where the "Diagnostic codes" section's text lies in ``readme``: from after its heading to the next heading."""
    start = readme.index(HEADING) + len(HEADING)
    following = re.compile(r"^#", re.MULTILINE).search(readme, start)
    return start, following.start() if following else len(readme)


def with_table(readme: str) -> str:
    """``readme`` with the table of its "Diagnostic codes" section written from ``CODES``."""
    start, end = section(readme)
    found = _TABLE.search(readme, start, end)
    if found is None:
        raise ValueError(f"no table under {HEADING.strip()!r}")
    return readme[: found.start()] + table() + readme[found.end():]


def main() -> None:
    text = README.read_text()
    updated = with_table(text)
    if updated != text:
        README.write_text(updated)
    print(f"{README}: {len(CODES)} codes{'' if updated != text else ', already up to date'}")


if __name__ == "__main__":
    main()
