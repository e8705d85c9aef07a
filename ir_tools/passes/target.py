"""``check --target RELEASE``: the layers an OpenVINO release cannot create, and an IR version it cannot read.

Each refusal is one E-TARGET error at the layer's line: its op version, the oldest release that creates it, and
whether ir_tools rewrites it (today ``migrate`` rewrites average pooling into opset8 AvgPool; the other op versions
have no rewrite yet).
"""

from __future__ import annotations

from ..base.diagnostics import Diagnostic
from ..base.errors import SourceLoc
from ..ir.model import Graph
from ..ops.releases import Release, oldest_creating


def target_diagnostics(graph: Graph, target: Release) -> list[Diagnostic]:
    """E-TARGET for every layer ``target`` cannot create, and for an IR version it does not read."""
    found = []
    if graph.ir_version not in target.ir_versions:
        versions = " or ".join(f"v{v}" for v in target.ir_versions)
        found.append(Diagnostic("error", "E-TARGET", f"OpenVINO {target.name} reads IR {versions}, the file is IR "
                                f"v{graph.ir_version} (write it with --ir-version {target.ir_versions[-1]})",
                                SourceLoc(str(graph.source) if graph.source else None, graph.line)))
    for layer in graph.layers():
        version = layer.version or ""
        if not version.startswith("opset") or target.creates(layer.type, version, layer.attrs):
            continue
        value = target.lacks_value(layer.type, version, layer.attrs)
        what = f"{layer.type} of {version}" + (f" with {value}" if value else "")
        oldest = oldest_creating(layer.type, version, layer.attrs)
        since = f"the oldest release that creates it is {oldest}" if oldest else "no release of the table creates it"
        found.append(Diagnostic("error", "E-TARGET", f"OpenVINO {target.name} cannot create {what}; {since}; "
                                f"{_rewrite(layer.type, target)}", layer.loc))
    return found


def _rewrite(op_type: str, target: Release) -> str:
    if op_type.lower() == "avgpool" and target.creates("AvgPool", "opset8", {}):
        return "`ir-tools migrate` rewrites it into opset8 AvgPool"
    return "ir_tools has no rewrite for it yet"
