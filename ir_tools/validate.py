"""``check``: everything wrong with an IR file, at once, as diagnostics."""

from __future__ import annotations

from pathlib import Path

from .diagnostics import Diagnostic
from .errors import IrToolsError, ReadError, SourceLoc
from .ir.checks import empty_window_warnings, structural_checks
from .ir.model import Graph
from .ir.reader import read_ir
from .passes.shapes import Propagation, propagate

#: Codes that mean "the input could not be read at all" (exit code 2 in the CLI).
FATAL_CODES = frozenset({ReadError.code, "E-XML-UNSAFE"})


def check_graph(graph: Graph) -> tuple[list[Diagnostic], Propagation | None]:
    """Reader findings, structural checks and shape propagation (skipped on a cycle)."""
    diags = list(graph.load_diagnostics) + structural_checks(graph)
    if any(d.code == "E-CYCLE" for d in diags):
        return diags, None
    result = propagate(graph)
    diags += result.diagnostics + empty_window_warnings(graph, result.types)
    return diags, result


def check(xml_path: str | Path, bin_path: str | Path | None = None) -> list[Diagnostic]:
    """All diagnostics for one IR file; an unreadable file gives one fatal diagnostic."""
    try:
        graph = read_ir(xml_path, bin_path)
    except IrToolsError as exc:
        loc = exc.loc if exc.loc.file else SourceLoc(str(xml_path))
        return [Diagnostic("error", exc.code, exc.message, loc)]
    return check_graph(graph)[0]
