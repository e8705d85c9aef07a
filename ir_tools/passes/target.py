"""Targets: the layers an OpenVINO release cannot create (``check --target``), and the rewrites that make a model
one it can (``migrate --target``).

Each refusal is one E-TARGET error at the layer's line: its op version, the oldest release that creates it, and
whether ir_tools rewrites it. Rewrites so far: every AvgPool into opset8 AvgPool (``ToOpset8``), MaxPool-14 into
MaxPool-8 (``MaxPoolTo8``), Pad-12 with pads >= 0 into Pad-1 (``PadTo1``), ScatterNDUpdate-15 and Squeeze-15 with
their new attribute at its default into -3 and -1 (``Respell``); ``retarget`` runs them and refuses, with every
E-TARGET, what is left.
"""

from __future__ import annotations

from collections import Counter

from ..base.diagnostics import Diagnostic
from ..base.errors import SourceLoc
from ..ir.model import Graph, Layer
from ..ops import attrs as A
from ..ops.opsets import lookup
from ..ops.pool_geometry import dilated, out_length
from ..ops.pooling import MaxPool8Attrs, max_pool_geometry
from ..ops.releases import Release, oldest_creating
from .base import Pass, PassError, PassManager, PassResult
from .shapes import declared_type
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
                                f"{_rewrite(layer.type, target)}", layer.loc))
    return found


def _rewrite(op_type: str, target: Release) -> str:
    if op_type.lower() == "avgpool" and target.creates("AvgPool", "opset8", {}):
        return "`ir-tools migrate` rewrites it into opset8 AvgPool"
    if op_type.lower() in ("scatterndupdate", "squeeze"):
        return "`ir-tools migrate --target` rewrites it into the older version where its new attribute has its default"
    if op_type.lower() == "pad":
        return "`ir-tools migrate --target` rewrites it into Pad-1 where its pads are constants, none negative"
    if op_type.lower() == "maxpool" and target.creates("MaxPool", "opset8", {}):
        return "`ir-tools migrate --target` rewrites it into MaxPool-8 (static spatial dims for ceil_torch)"
    return "ir_tools has no rewrite for it yet"


class MaxPoolTo8(Pass):
    """MaxPool-14 as MaxPool-8, exactly (docs/SEMANTICS.md: the two differ only in ceil_torch):

    1. rounding floor or ceil: the same attributes, spelled opset8;
    2. ceil_torch on static spatial dims: floor with ``pads_end = (out - 1)*S + dilated K - L - pb`` (at least 0),
       which gives ceil_torch's window count; a max ignores padding, so values and indices are unchanged;
    3. ceil_torch on dynamic spatial dims is left, for ``retarget`` to refuse.
    """

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in graph.by_type("MaxPool"):
            spec = lookup(layer.type, layer.version)
            if spec is None or spec.label != "MaxPool-14":
                continue
            a = A.decode(spec.attrs, layer.attrs, layer.loc)
            if a.rounding_type == "ceil_torch":
                new = _floor_form(graph, layer, a)
                if new is None:
                    continue
                layer.attrs = A.encode(new)
            layer.version = "opset8"
            stats[f"MaxPool-14 ({a.rounding_type}) -> MaxPool-8"] += 1
        return PassResult(graph, bool(stats), stats)


def _floor_form(graph: Graph, layer: Layer, a: MaxPool8Attrs) -> MaxPool8Attrs | None:
    """Rule 2: the floor-rounded attributes with ceil_torch's windows, or None on dynamic spatial dims."""
    key = graph.producer_key(layer.id, layer.input_ids()[0])
    data = declared_type(graph.layer(key[0]).output(key[1]))
    if data.shape is None or not all(d.is_static for d in data.shape[2:]):
        return None
    g = max_pool_geometry(a, data, "MaxPool-14")
    ends = []
    for i, (n, k, s, d) in enumerate(zip(data.shape[2:], a.kernel, a.strides, a.dilations_or_ones, strict=True)):
        out, begin = g.spatial[i].lo, g.pads_begin[i]
        end = max(0, (out - 1) * s + dilated(k, d) - n.lo - begin)
        if out_length(n.lo, k, s, d, begin, end, "floor") != out:
            return None
        ends.append(end)
    return MaxPool8Attrs(a.kernel, a.strides, tuple(g.pads_begin), tuple(ends), "explicit", "floor", a.dilations,
                         a.index_element_type, a.axis)


class PadTo1(Pass):
    """Pad-12 as Pad-1: the same op but that Pad-12 also takes negative pads (a crop); so a Pad-12 whose pads are
    Consts, none negative, is respelled opset1, and any other is left, for ``retarget`` to refuse."""

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in graph.by_type("Pad"):
            spec = lookup(layer.type, layer.version)
            if spec is None or spec.label != "Pad-12":
                continue
            pads = [graph.producer_key(layer.id, port) for port in layer.input_ids()[1:3]]
            sources = [graph.layer(key[0]) for key in pads if key is not None]
            if len(sources) != 2 or not all(s.is_a("Const") and (graph.const_array(s) >= 0).all() for s in sources):
                continue
            layer.version = "opset1"
            stats["Pad-12 (pads >= 0) -> Pad-1"] += 1
        return PassResult(graph, bool(stats), stats)


#: Op versions that mean an older one when an attribute has its default: label -> (attribute, default, the older
#: version's opset). ScatterNDUpdate-15 adds reductions (``none`` is -3's update); Squeeze-15 adds allow_axis_skip.
_SAME_AS_OLDER = {"ScatterNDUpdate-15": ("reduction", "none", "opset4"),
                  "Squeeze-15": ("allow_axis_skip", False, "opset1")}


class Respell(Pass):
    """A layer of a newer op version whose added attribute has its default, written as the older version (which
    has no such attribute): ScatterNDUpdate-15 ``reduction="none"`` as -3, Squeeze-15 ``allow_axis_skip="false"``
    as -1. Any other is left, for ``retarget`` to refuse."""

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in graph.layers():
            spec = lookup(layer.type, layer.version)
            same = None if spec is None else _SAME_AS_OLDER.get(spec.label)
            if same is None or getattr(A.decode(spec.attrs, layer.attrs, layer.loc), same[0]) != same[1]:
                continue
            older = lookup(layer.type, same[2])
            layer.version, layer.attrs = same[2], {}
            stats[f"{spec.label} ({same[0]} {same[1]}) -> {older.label}"] += 1
        return PassResult(graph, bool(stats), stats)


def retarget(graph: Graph, target: Release, checked: bool = False) -> PassResult:
    """Rewrite ``graph`` into op versions ``target`` creates; PassError with every E-TARGET for what is left."""
    result = PassManager([to_opset8, MaxPoolTo8(), PadTo1(), Respell()]).run(graph, checked)
    left = [d for d in target_diagnostics(graph, target) if d.loc.layer_id is not None]
    if left:
        raise PassError(f"{len(left)} layer(s) have no form OpenVINO {target.name} creates; nothing written",
                        SourceLoc(str(graph.source) if graph.source else None), left)
    return result
