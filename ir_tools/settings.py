"""Which diagnostics a user asked to see, and how repeated ones are shown.

``--select`` and ``--ignore`` take codes or their prefixes (``W`` is every warning, ``E-ATTR`` every code of that
family), as ruff takes its rule codes; without them, ``[tool.ir-tools]`` ``select``/``ignore`` of the nearest
``pyproject.toml`` (from the working directory up) apply. A diagnostic that makes the input unusable (fatal) is
always shown. Repeated diagnostics (the same code and message at several layers, as a Model Optimizer file's
unknown attribute on every layer of a type) are one line with the count and where the others are; ``-v`` lists
them all. What a message says of where (a layer, tensor or port it names, an id) does not tell two diagnostics apart:
a tensor name on two ports is one finding at each place it occurs (W-NAME-DUP).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .base.codes import CODES, FATAL_CODES
from .base.diagnostics import Diagnostic
from .base.errors import IrToolsError, did_you_mean

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover (Python 3.10: the same parser, from PyPI)
    import tomli as tomllib

#: How many of a group's other lines a grouped line names.
SHOWN_LINES = 5

#: The parts of a message that say where (the layer, tensor or port named, an id), as ir_tools' messages name them.
_WHERE = re.compile(r"\b(layer|tensor name|tensor) '(?:[^'\\]|\\.)*'|\b(port|id) \d+")


@dataclass(frozen=True)
class Selection:
    """Codes (or prefixes) to show, none meaning all, and codes to leave out."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def keeps(self, diagnostic: Diagnostic) -> bool:
        code = diagnostic.code
        if code in FATAL_CODES:
            return True
        chosen = not self.select or any(_matches(code, s) for s in self.select)
        return chosen and not any(_matches(code, s) for s in self.ignore)

    def kept(self, diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
        return [d for d in diagnostics if self.keeps(d)]


def _matches(code: str, selector: str) -> bool:
    return code == selector or code.startswith(selector + "-")


def selectors(text: str | Sequence[str], where: str) -> tuple[str, ...]:
    """``"W-ATTR-UNKNOWN,E-SHAPE"`` (or a list) as selectors; E-USAGE, with a "did you mean", for one that matches
    no code."""
    items = text.split(",") if isinstance(text, str) else list(text)
    found = []
    for item in (str(i).strip().upper() for i in items):
        if not item:
            continue
        if not any(_matches(code, item) for code in CODES):
            raise IrToolsError(f"{where}: '{item}' matches no diagnostic code{did_you_mean(item, CODES)} (README: "
                               "Diagnostic codes)", code="E-USAGE")
        found.append(item)
    return tuple(found)


def selection(select: str | None, ignore: str | None, start: Path | None = None) -> Selection:
    """The options given, else the nearest pyproject.toml's ``[tool.ir-tools]``, else everything."""
    config, where = _config(start or Path.cwd())
    return Selection(
        selectors(select, "--select") if select is not None else selectors(config.get("select", []), where),
        selectors(ignore, "--ignore") if ignore is not None else selectors(config.get("ignore", []), where))


#: A line that may put keys in ``[tool.ir-tools]``: its table header (or a ``[tool]`` one), or a key from the top that
#: starts with ``tool`` (``tool.ir-tools.ignore = ...``, ``tool = {...}``); or an escape, which may spell either name.
#: A pyproject.toml with none has no such section and is not parsed (tomllib takes longer than a small migrate's write).
_MAY_CONFIGURE = re.compile(r"""^\ufeff?[ \t]*(?:\[\[?[ \t]*(?:tool|"tool"|'tool')[ \t]*"""
                            r"""(?:\]|\.[ \t]*(?:ir-tools|"ir-tools"|'ir-tools')[ \t]*[\].])"""
                            r"""|(?:tool|"tool"|'tool')[ \t]*[.=])|\\[uU]""", re.MULTILINE)


def _config(start: Path) -> tuple[dict, str]:
    """``[tool.ir-tools]`` of the nearest pyproject.toml, and where it is (for messages)."""
    for directory in (start, *start.parents):
        path = directory / "pyproject.toml"
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8")
                document = tomllib.loads(text) if _MAY_CONFIGURE.search(text) else {}
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                raise IrToolsError(f"{path}: cannot read it for [tool.ir-tools]: {exc}", code="E-USAGE") from None
            section = document.get("tool", {}).get("ir-tools", {})
            unknown = sorted(set(section) - {"select", "ignore"})
            if unknown:
                raise IrToolsError(f"{path}: [tool.ir-tools] has no setting {unknown[0]!r} (select, ignore)",
                                   code="E-USAGE")
            return section, f"{path} [tool.ir-tools]"
    return {}, ""


def grouped_lines(diagnostics: Sequence[Diagnostic], every: bool) -> list[tuple[Diagnostic, str]]:
    """Each diagnostic with the line to print; with ``every`` False, diagnostics of the same severity, code and
    message (but for where it says they are: ``_what``) after the first are folded into its line."""
    if every:
        return [(d, d.render()) for d in diagnostics]
    groups: dict[tuple[str, str, str], list[Diagnostic]] = {}
    for d in diagnostics:
        groups.setdefault((d.severity, d.code, _what(d.message)), []).append(d)
    lines = []
    for first, *rest in groups.values():
        text = first.render()
        if rest:
            where = ", ".join(str(d.loc.line) for d in rest[:SHOWN_LINES] if d.loc.line is not None)
            more = ", ..." if len(rest) > SHOWN_LINES else ""
            text += f" (and {len(rest)} more like it" + (f", at lines {where}{more}" if where else "") + \
                "; -v lists them)"
        lines.append((first, text))
    return lines


def _what(message: str) -> str:
    """A message without what it says of where: the key that groups repeated diagnostics."""
    return _WHERE.sub(lambda m: f"{m[1]} '...'" if m[1] else f"{m[2]} N", message)
