"""Targets: the layers an OpenVINO release cannot create (``check --target``), and the rewrites that make a model
one it can (``migrate --target``).

Each refusal is one E-TARGET error at the layer's line: its op version, the oldest release that creates it, and
whether ir_tools rewrites it. ``retarget`` runs the rewrites (every AvgPool into opset8 by ``to_opset8``, then the
downgrades of ``passes/downgrade``) and refuses, with every E-TARGET, what is left.
"""

from __future__ import annotations

from ..base.diagnostics import Diagnostic
from ..base.errors import SourceLoc
from ..ir.model import Graph, Layer
from ..ops.releases import Release, oldest_creating, op_label
from .base import PassError, PassManager, PassResult
from .downgrade import DOWNGRADES
from .to_opset8 import to_opset8


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
                                f"{_rewrite(layer, target)}", layer.loc))
    return found


def _rewrite(layer: Layer, target: Release) -> str:
    """Which pass rewrites the layer's op version, and into what."""
    if layer.type.lower() == "avgpool" and target.creates("AvgPool", "opset8", {}):
        return "`ir-tools migrate` rewrites it into opset8 AvgPool"
    label = op_label(layer.type, layer.version)
    ways = [d.rewrites[label] for d in DOWNGRADES if label in d.rewrites]
    return f"`ir-tools migrate --target` rewrites it {'; or '.join(ways)}" if ways else \
        "ir_tools has no rewrite for it yet"


def retarget(graph: Graph, target: Release, checked: bool = False) -> PassResult:
    """Rewrite ``graph`` into op versions ``target`` creates; PassError with every E-TARGET for what is left."""
    result = PassManager([to_opset8, *(downgrade(target) for downgrade in DOWNGRADES)]).run(graph, checked)
    left = [d for d in target_diagnostics(graph, target) if d.loc.layer_id is not None]
    if left:
        raise PassError(f"{len(left)} layer(s) have no form OpenVINO {target.name} creates; nothing written",
                        SourceLoc(str(graph.source) if graph.source else None), left)
    return result
