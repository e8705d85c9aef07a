"""Diagnostics: what `check` reports, rendered as compiler-style text or versioned JSON."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from . import json_text
from .codes import CODES, FATAL_CODES, known
from .errors import SourceLoc

Severity = Literal["error", "warning", "note"]

#: Version of the JSON document `check --format json` prints; bump on incompatible change.
JSON_SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding. Its code must be in ``codes.CODES``, and a warning's code a warning there (an error's an error
    or fatal one), so that what a tool matches on is always described, with the severity it is reported at."""

    severity: Severity
    code: str
    message: str
    loc: SourceLoc = field(default_factory=SourceLoc)
    #: It ended a command (a refusal raised while the command acted: exit 2), so fatal whatever its code's severity.
    ended: bool = False

    def __post_init__(self) -> None:
        entry = CODES[known(self.code)]
        if (self.severity == "warning") != (entry.severity == "warning"):
            raise ValueError(f"{self.code} is reported as {self.severity}, but ir_tools/base/codes.py makes it "
                             f"{entry.severity}")

    def render(self) -> str:
        """``model.xml:12: error[E-SHAPE]: layer 'p' (id 7, AvgPool-1): message``."""
        where = self.loc.prefix()
        layer = self.loc.layer_text()
        body = f"{layer}: {self.message}" if layer else self.message
        head = f"{self.severity}[{self.code}]: {body}"
        return f"{where}: {head}" if where else head

    @property
    def fatal(self) -> bool:
        """The input could not be checked, or a command could not act on it: exit 2 (``codes.FATAL_CODES``, or
        ``ended``)."""
        return self.ended or self.code in FATAL_CODES

    def to_dict(self) -> dict:
        """The diagnostic as ``check --format json`` prints it (severity, fatal, code, message, file, line, layer)."""
        return {
            "severity": self.severity,
            "fatal": self.fatal,
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


def render_json(results: dict[str | None, list[Diagnostic]]) -> str:
    """One JSON document for several checked files; schema in README ("check --format json"). A refusal of the
    command line itself (no file: an E-USAGE, an E-CRASH before a file was named) is keyed None: ``"file": null``."""
    files = []
    for path, diags in results.items():
        files.append(
            {
                "file": path,
                "errors": sum(d.severity == "error" for d in diags),
                "fatal": sum(d.fatal for d in diags),
                "warnings": sum(d.severity == "warning" for d in diags),
                "diagnostics": [d.to_dict() for d in diags],
            }
        )
    return json_text.dumps({"schema_version": JSON_SCHEMA_VERSION, "tool": "ir-tools", "files": files}, indent=2)


#: The SARIF version `check --format sarif` writes, and the schema it validates against.
SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def render_sarif(results: dict[str | None, list[Diagnostic]], tool_version: str) -> str:
    """One SARIF 2.1.0 log (code scanning's format): a rule per code, a result per diagnostic, each located by
    file and line, and by layer as a logical location. A diagnostic of no file (a refusal of the command line: code
    scanning places a result in a file) is a notification of the invocation, which is then unsuccessful, as is one
    that ended the command."""
    codes = sorted({d.code for diags in results.values() for d in diags})
    index = {code: i for i, code in enumerate(codes)}
    sarif_results, notifications = [], []
    for path, diags in results.items():
        for d in diags:
            text = f"{d.loc.layer_text()}: {d.message}" if d.loc.layer_id else d.message
            file = d.loc.file or path
            if file is None:
                notifications.append({"level": d.severity, "message": {"text": text},
                                      "descriptor": {"id": d.code, "index": index[d.code]}})
                continue
            region = {"region": {"startLine": d.loc.line}} if d.loc.line else {}
            result = {
                "ruleId": d.code,
                "ruleIndex": index[d.code],
                "level": d.severity,
                "message": {"text": text},
                "locations": [{"physicalLocation": {"artifactLocation": _artifact(file), **region}}],
            }
            if d.loc.layer_id is not None:
                result["locations"][0]["logicalLocations"] = [{
                    "name": d.loc.layer_name or d.loc.layer_id, "kind": "element",
                    "fullyQualifiedName": f"layer {d.loc.layer_id} ({d.loc.layer_kind or 'unknown type'})"}]
            sarif_results.append(result)
    ended = any(d.ended for diags in results.values() for d in diags)
    invocation = {"executionSuccessful": not (ended or notifications),
                  **({"toolExecutionNotifications": notifications} if notifications else {})}
    driver = {"name": "ir-tools", "version": tool_version, "rules": [_rule(code) for code in codes]}
    run = {"tool": {"driver": driver}, "results": sarif_results, "invocations": [invocation],
           "originalUriBaseIds": {_SRCROOT: {"uri": Path.cwd().as_uri().rstrip("/") + "/"}}}
    return json_text.dumps({"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}, indent=2)


def _rule(code: str) -> dict:
    """A code's SARIF rule, described as ``codes`` describes it (code scanning shows the descriptions atop an alert):
    the short one its meaning up to the first colon or semicolon."""
    entry = CODES[code]
    short = entry.meaning.split(": ", 1)[0].split("; ", 1)[0]
    return {"id": code, "name": code, "shortDescription": {"text": short}, "fullDescription": {"text": entry.meaning},
            "help": {"text": entry.meaning},
            "defaultConfiguration": {"level": "warning" if entry.severity == "warning" else "error"}}


#: The base every relative artifact URI is resolved against: the working directory (``originalUriBaseIds``).
_SRCROOT = "%SRCROOT%"


def _artifact(path: str) -> dict:
    """A SARIF artifactLocation: a file under the working directory as a URI relative to it (code scanning matches
    those to the repository, whose checkout the working directory of a workflow is), any other as an absolute
    ``file://`` URI (a path such as ``/tmp/m.xml`` is no URI: a consumer reads it as relative)."""
    from urllib.parse import quote

    file = Path(os.path.abspath(path))  # (normalised: a path through ".." is not under the working directory)
    try:
        relative = file.relative_to(Path.cwd())
    except ValueError:
        return {"uri": file.as_uri()}
    return {"uri": quote(relative.as_posix()), "uriBaseId": _SRCROOT}


def render_github(results: dict[str | None, list[Diagnostic]]) -> str:
    """GitHub Actions workflow commands: ``::error file=F,line=N,title=CODE::message`` per diagnostic (without
    ``file=`` for one of no file: a refusal of the command line)."""
    lines = []
    for path, diags in results.items():
        for d in diags:
            level = "notice" if d.severity == "note" else d.severity
            file = d.loc.file or path
            props = [] if file is None else [f"file={_escape_property(file)}"]
            if d.loc.line:
                props.append(f"line={d.loc.line}")
            props.append(f"title={_escape_property(d.code)}")
            body = f"{d.loc.layer_text()}: {d.message}" if d.loc.layer_id else d.message
            lines.append(f"::{level} {','.join(props)}::{_escape_data(body)}")
    return "\n".join(lines)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
