"""MaxPool-14 as MaxPool-8, MaxPool-8 as MaxPool-1 (AvgPool-14/16 go into opset8 by ``to_opset8``, the exact pooling
emitter)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from ...base.dims import DYNAMIC
from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.opsets import lookup
from ...ops.pool_geometry import dilated, out_length, windows_differ
from ...ops.pooling import MaxPool8Attrs, MaxPoolAttrs, max_pool_geometry
from ..base import PassResult
from ..shapes import declared_type
from .base import Downgrade, respelled, source


class MaxPoolTo8(Downgrade):
    """MaxPool-14 as MaxPool-8, exactly (docs/SEMANTICS.md: the two differ only in ceil_torch):

    1. rounding floor or ceil: the same attributes, spelled opset8;
    2. ceil_torch on static spatial dims: floor with ``pads_end = (out - 1)*S + dilated K - L - pb`` (at least 0),
       which gives ceil_torch's window count; a max ignores padding, so values and indices are unchanged;
    3. ceil_torch on dynamic spatial dims where it keeps every window ceil keeps, at every length the dims allow
       (proved on one period of lengths, as ``to_opset8`` proves it for AvgPool): ceil;
    4. any other ceil_torch is left, for ``retarget`` to refuse.
    """

    rewrites = {"MaxPool-14": "into MaxPool-8 (ceil_torch on static spatial dims, or where it is ceil at every "
                              "length)"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in self.layers(graph):
            a = A.decode(lookup(layer.type, layer.version).attrs, layer.attrs, layer.loc)
            if a.rounding_type == "ceil_torch":
                new = _floor_form(graph, layer, a)
                if new is None:
                    continue
                layer.attrs = A.encode(new)
                rule = "ceil_torch as floor" if new.rounding_type == "floor" else "ceil_torch as ceil"
            else:
                rule = a.rounding_type
            respelled(graph, layer, "opset8")
            stats[f"MaxPool-14 ({rule}) -> MaxPool-8"] += 1
        return PassResult(graph, bool(stats), stats)


def _floor_form(graph: Graph, layer: Layer, a: MaxPool8Attrs) -> MaxPool8Attrs | None:
    """Rules 2 and 3: attributes with ceil_torch's windows and another rounding, or None where there are none."""
    key = source(graph, layer, 0)
    data = declared_type(graph.layer(key[0]).output(key[1]))
    rank = len(a.kernel)
    spatial = data.shape[2:] if data.shape is not None else (DYNAMIC,) * rank
    if not all(d.is_static for d in spatial):
        pads = (a.pads_begin or (0,) * rank, a.pads_end or (0,) * rank)
        if any(windows_differ(n, k, s, d, b, e, a.auto_pad) is not None for n, k, s, d, b, e in zip(
                spatial, a.kernel, a.strides, a.dilations_or_ones, *pads, strict=True)):
            return None
        return replace(a, rounding_type="ceil")
    g = max_pool_geometry(a, data, "MaxPool-14")
    ends = []
    for i, (n, k, s, d) in enumerate(zip(spatial, a.kernel, a.strides, a.dilations_or_ones, strict=True)):
        out, begin = g.spatial[i].lo, g.pads_begin[i]
        end = max(0, (out - 1) * s + dilated(k, d) - n.lo - begin)
        if out_length(n.lo, k, s, d, begin, end, "floor") != out:
            return None
        ends.append(end)
    return MaxPool8Attrs(a.kernel, a.strides, tuple(g.pads_begin), tuple(ends), "explicit", "floor", a.dilations,
                         a.index_element_type, a.axis)


class MaxPoolTo1(Downgrade):
    """MaxPool-8 as MaxPool-1 (for releases before 2022.1): the same windows when there is no dilation and
    nothing reads the indices output, which MaxPool-1 does not have. Any other is left, for ``retarget`` to
    refuse."""

    rewrites = {"MaxPool-8": "into MaxPool-1 where it has no dilation and its indices are unused"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in self.layers(graph):
            a = A.decode(lookup(layer.type, layer.version).attrs, layer.attrs, layer.loc)
            if any(d != 1 for d in a.dilations_or_ones) or graph.consumers(layer.id, layer.outputs[1].id):
                continue
            respelled(graph, layer, "opset1")
            layer.attrs = A.encode(MaxPoolAttrs(a.kernel, a.strides, a.pads_begin, a.pads_end, a.auto_pad,
                                                a.rounding_type))
            layer.outputs = layer.outputs[:1]
            stats["MaxPool-8 (no dilation, indices unused) -> MaxPool-1"] += 1
        return PassResult(graph, bool(stats), stats)
