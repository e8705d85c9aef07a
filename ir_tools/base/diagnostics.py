"""Diagnostics: what `check` reports, rendered as compiler-style text or versioned JSON."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from .errors import SourceLoc

Severity = Literal["error", "warning", "note"]

#: Version of the JSON document `check --format json` prints; bump on incompatible change.
JSON_SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: Severity
    code: str
    message: str
    loc: SourceLoc = field(default_factory=SourceLoc)

    def render(self) -> str:
        """``model.xml:12: error[E-SHAPE]: layer 'p' (id 7, AvgPool-1): message``."""
        where = self.loc.prefix()
        layer = self.loc.layer_text()
        body = f"{layer}: {self.message}" if layer else self.message
        head = f"{self.severity}[{self.code}]: {body}"
        return f"{where}: {head}" if where else head

    def to_dict(self) -> dict:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "file": self.loc.file,
            "line": self.loc.line,
            "layer_id": self.loc.layer_id,
            "layer_name": self.loc.layer_name,
            "layer_type": self.loc.layer_kind,
        }


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.severity == "error" for d in diagnostics)


def render_json(results: dict[str, list[Diagnostic]]) -> str:
    """One JSON document for several checked files; schema in README ("check --format json")."""
    files = []
    for path, diags in results.items():
        files.append(
            {
                "file": path,
                "errors": sum(d.severity == "error" for d in diags),
                "warnings": sum(d.severity == "warning" for d in diags),
                "diagnostics": [d.to_dict() for d in diags],
            }
        )
    return json.dumps({"schema_version": JSON_SCHEMA_VERSION, "tool": "ir-tools", "files": files}, indent=2)
