"""MaxPool-14 as MaxPool-8, MaxPool-8 as MaxPool-1 (AvgPool-14/16 go into opset8 by ``to_opset8``, the exact pooling
emitter); an AvgPool-1 a release does not compile in another exact form (``exact_pool.emit``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from ...base.dims import DYNAMIC, Dim, show_shape
from ...base.dtypes import element_type
from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.opsets import lookup
from ...ops.pool_geometry import counts_padding, cpu_refused_length, dilated, out_length, windows_differ
from ...ops.pooling import AvgPoolAttrs, MaxPool8Attrs, MaxPoolAttrs, geometry, max_pool_geometry
from ..base import PassResult
from ..builder import GraphBuilder, origin_text
from ..exact_pool import WindowSpec, emit
from ..pattern import typed_attrs
from ..shapes import declared_type
from .base import Downgrade, respelled, source


def _ceil_torch(graph: Graph, layer: Layer) -> bool:
    """True for a MaxPool-14 of rounding_type ceil_torch, whose windows 2024.2 counts otherwise
    (``max_pool_ceil_torch_wrong``)."""
    return typed_attrs(layer).rounding_type == "ceil_torch"


class MaxPoolTo8(Downgrade):
    """MaxPool-14 as MaxPool-8, exactly (docs/SEMANTICS.md: the two differ only in ceil_torch):

    1. rounding floor or ceil: the same attributes, spelled opset8;
    2. ceil_torch on static spatial dims: floor with ``pads_end = (out - 1)*S + dilated K - L - pb`` (at least 0),
       which gives ceil_torch's window count; a max ignores padding, so values and indices are unchanged;
    3. ceil_torch on dynamic spatial dims where it keeps every window ceil keeps, at every length the dims allow
       (proved on one period of lengths, as ``to_opset8`` proves it for AvgPool): ceil;
    4. any other ceil_torch is left, for ``retarget`` to refuse.

    For a target that reads ceil_torch but counts its windows otherwise (``max_pool_ceil_torch_wrong``, measured:
    2024.2), such a layer is rewritten too, though the target creates MaxPool-14.
    """

    rewrites = {"MaxPool-14": "into MaxPool-8 (ceil_torch on static spatial dims, or where it is ceil at every "
                              "length)"}
    repairs = {"max_pool_ceil_torch_wrong": _ceil_torch}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in self.layers(graph):
            a = typed_attrs(layer)
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
            a = typed_attrs(layer)
            if any(d != 1 for d in a.dilations_or_ones) or graph.output_read(layer, 1):
                continue
            respelled(graph, layer, "opset1")
            layer.attrs = A.encode(MaxPoolAttrs(a.kernel, a.strides, a.pads_begin, a.pads_end, a.auto_pad,
                                                a.rounding_type))
            layer.outputs = layer.outputs[:1]
            stats["MaxPool-8 (no dilation, indices unused) -> MaxPool-1"] += 1
        return PassResult(graph, bool(stats), stats)


def _refused_axis(graph: Graph, layer: Layer) -> tuple[int, Dim, int] | None:
    """(spatial axis, its dim, a length of it) where the AvgPool ``layer`` (1, 14 or 16: what ``to_opset8`` makes of
    the last two is an AvgPool-1 of the same windows, unless a dilated kernel makes it window sums) is, as an AvgPool-1,
    one the target's CPU plugin refuses (``avg_pool_pads_refused``: ``pool_geometry.cpu_refused_length``); None
    where it is not, or its input's rank is not known."""
    spec = lookup(layer.type, layer.version)
    a = A.decode(spec.attrs, layer.attrs, layer.loc)
    shape = declared_type(layer.inputs[0]).shape if layer.inputs else None
    dilations = a.dilations_or_ones
    if shape is None or len(shape) != len(a.kernel) + 2 or any(d != 1 and k != 1 for k, d in zip(
            a.kernel, dilations, strict=True)):
        return None
    rank = len(a.kernel)
    pads = (a.pads_begin or (0,) * rank, a.pads_end or (0,) * rank)
    for i, (dim, k, s, b, e) in enumerate(zip(shape[2:], a.kernel, a.strides, *pads, strict=True)):
        n = cpu_refused_length(dim, k, s, b, e, a.auto_pad, a.rounding_type, a.exclude_pad)
        if n is not None:
            return i, dim, n
    return None


def _pads_refused(graph: Graph, layer: Layer) -> bool:
    return _refused_axis(graph, layer) is not None


class AvgPoolCompiled(Downgrade):
    """An AvgPool-1 that the target's CPU plugin does not compile (``avg_pool_pads_refused``, measured: 2023.0 to
    2024.1, an axis of two windows or more whose first window reaches past the data by other than a multiple of the
    stride), exactly, as ``to_opset8`` writes an AvgPool-16 with dilations:

    1. on static spatial dims and a float input, its windows as a WindowSpec (OpenVINO's divisors, its CPU's counts of
       a window without data: NaN, -0.0 or +0.0) realised by ``exact_pool.emit`` without an AvgPool-1 the target
       refuses: every AvgPool-1 of those windows on that input has the same lengths, kernel, stride, pads_begin and
       window count, so where the divisor is the whole kernel (exclude-pad false with pads) it is an AvgPool-1 of the
       input extended by zeros as far as the windows reach (a Concat-1: a tap on a zero adds +0, as one in the padding
       does), and otherwise emit's rule 5, the window sums from StridedSlices divided inside an AvgPool-1 of other
       windows (and an empty window's +0 multiplied by 1/count);
    2. on dynamic spatial dims it is left, for ``retarget`` to refuse, saying at which length the target fails: the
       exact form needs the lengths; and so is one of an integer input (rule 5 sums in floats).

    An AvgPool-14/16 is an AvgPool-1 here: ``to_opset8`` runs first (its ``rewrites`` entries say so in ``check
    --target``)."""

    _how = ("where the release does not compile it (an axis whose first window reaches past the data), on static "
            "spatial dims and a float input, into an AvgPool-1 of the input extended by zeros (Concat-1) where it "
            "divides by the whole kernel, else into window sums from StridedSlice-1 divided inside an AvgPool-1 of "
            "other windows (exact_pool rule 5)")
    rewrites = {"AvgPool-1": _how, "AvgPool-14": f"(made an AvgPool-1 by `ir-tools migrate`) {_how}",
                "AvgPool-16": f"(made an AvgPool-1 by `ir-tools migrate`) {_how}"}
    repairs = {"avg_pool_pads_refused": _pads_refused}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        found = _refused_axis(graph, layer) if self.target is not None else None
        if found is None:
            return None
        axis, dim, n = found
        data = declared_type(layer.inputs[0])
        if not dim.is_static:
            return (f"its spatial axis {axis} is dynamic ({dim}), and at length {n} {self.target.called} fails "
                    f"on it at inference; the exact form needs static spatial dims (input {show_shape(data.shape)})")
        if not all(d.is_static for d in data.shape[2:]):
            return (f"its input {show_shape(data.shape)} has a dynamic spatial dim; the exact form needs static "
                    "spatial dims")
        et = element_type(data.element or "")
        if et is None or et.numpy is None or et.numpy.kind != "f":
            return f"its input is {data.element}, and the exact form sums in a floating-point type"
        return None

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            if self.defect(graph, layer) is None:  # (no target: the defect of none)
                continue
            spec = lookup(layer.type, layer.version)
            a = A.decode(spec.attrs, layer.attrs, layer.loc)
            key = source(graph, layer, 0)
            data = builder.type_of(key)
            geo = geometry(a, data, spec.label)
            lengths = tuple(d.lo for d in data.shape[2:])
            window = WindowSpec(
                lengths=lengths, kernel=a.kernel, strides=a.strides, dilations=a.dilations_or_ones,
                pads_begin=geo.pads_begin, out=tuple(d.lo for d in geo.spatial),
                count_all=counts_padding(geo.pads_begin, geo.pads_end, a.exclude_pad), count_lo=(0,) * len(a.kernel),
                count_hi=lengths, prefer_pads_end=geo.pads_end,
                prefer_rounding="ceil" if a.rounding_type == "ceil_torch" else a.rounding_type, openvino_counts=True)
            new = builder.replace_layer(layer, lambda: [emit(builder, key, window, layer.name,  # noqa: B023
                                                             _refused)], origin_text(layer, spec.label))
            made = "+".join(sorted({lay.type for lay in new if not lay.is_a("Const")}))
            stats[f"{spec.label} (refused by {self.target.name}) -> {made}"] += 1
        return PassResult(graph, bool(stats), stats)


def _refused(attrs: AvgPoolAttrs, lengths: tuple[int, ...]) -> bool:
    """Whether the release with ``avg_pool_pads_refused`` refuses an AvgPool-1 of explicit ``attrs`` on ``lengths``
    (``exact_pool.emit``'s ``refused``)."""
    return any(cpu_refused_length(Dim(n, n), k, s, b, e, "explicit", attrs.rounding_type, attrs.exclude_pad) is not None
               for n, k, s, b, e in zip(lengths, attrs.kernel, attrs.strides, attrs.pads_begin, attrs.pads_end,
                                        strict=True))
