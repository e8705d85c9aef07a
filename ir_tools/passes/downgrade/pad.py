"""Pad-12 as Pad-1, and Pad-12 with negative pads (a crop) as Pad-1 then StridedSlice-1."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dims import Dim
from ...ir.model import Graph, Layer
from ...ops.movement import StridedSliceAttrs
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, numpy_dtype, respelled, source
from .integer_bounds import integer_bounds


class PadTo1(Downgrade):
    """Pad-12 as Pad-1, exactly (docs/SEMANTICS.md):

    1. no pad negative (Consts, or computed pads no release computes negative, ``integer_bounds``: Swin's, the height
       and width up to the window's next multiple by FloorMod, where the window is a power of two or the shape
       static): the same op, spelled opset1;
    2. some pad negative: OpenVINO pads with the positive pads, then crops by the negative ones (a reflect or
       symmetric pad mirrors the data before the crop, so elements cropped at one end still show at the other):
       Pad-1 with ``max(pad, 0)`` (left out where none is positive), then StridedSlice-1 from ``max(-begin, 0)``
       to ``end`` where ``end < 0`` (else to the end); only where every output dim is at least 0 on every input
       the declared dims allow (OpenVINO CPU refuses a negative one when it runs; the crop would give 0);
    3. other pads that are not Consts, on a static rank: rule 2 with the pads computed, Pad-1 with
       ``Maximum(pad, 0)`` then StridedSlice-1 from ``Maximum(-begin, 0)`` to the padded shape plus
       ``Minimum(end, 0)``; each pad in its own element type (i32 pads_begin beside i64 pads_end, as OpenVINO takes
       them), one of neither i32 nor i64 made i64 first.
    """

    rewrites = {"Pad-12": "into Pad-1 (then StridedSlice-1 for negative pads, where no output dim can be negative, "
                          "or for computed pads that may be negative)"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            sources = _pads(graph, layer)
            if _never_negative(graph, layer):
                respelled(graph, layer, "opset1")
                stats["Pad-12 (pads >= 0) -> Pad-1"] += 1
                continue
            if not all(s.is_a("Const") for s in sources):
                builder.replace_layer(layer, lambda: [_computed_crop(builder, layer)],  # noqa: B023
                                      origin_text(layer, "Pad-12"))
                stats["Pad-12 (computed pads) -> Pad-1 + StridedSlice-1"] += 1
                continue
            begin, end = ([int(v) for v in graph.const_array(s).reshape(-1)] for s in sources)
            builder.replace_layer(layer, lambda: [_pad_then_crop(builder, layer, begin, end)],  # noqa: B023
                                  origin_text(layer, "Pad-12"))
            stats["Pad-12 (negative pads) -> Pad-1 + StridedSlice-1"] += 1
        return PassResult(graph, bool(stats), stats)

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        """Rules 2 and 3 need the data's rank; rule 2 also every output dim at least 0 on every input the declared
        dims allow."""
        if _never_negative(graph, layer):
            return None
        sources = _pads(graph, layer)
        computed = not all(s.is_a("Const") for s in sources)
        begin: list[int] = []
        end: list[int] = []
        if not computed:
            begin, end = ([int(v) for v in graph.const_array(s).reshape(-1)] for s in sources)
        shape = declared_type(layer.inputs[0]).shape or ()
        if not shape and declared_type(layer.inputs[1]).shape != (Dim(0, 0),):  # (no dims, yet pads: a dynamic rank)
            return (f"its data has a dynamic rank, which the crop by {'computed' if computed else 'negative'} pads "
                    "needs known")
        if computed:
            return None
        for axis, (d, b, e) in enumerate(zip(shape, begin, end, strict=True)):
            if d.lo + b + e < 0:
                return (f"pads {b} and {e} may leave axis {axis}, of length {d} as declared, a negative length, "
                        "which OpenVINO CPU refuses when it runs (the crop would give 0)")
        return None


def _pads(graph: Graph, layer: Layer) -> list[Layer]:
    """The layers feeding pads_begin and pads_end (the gate before a pass: every input is fed)."""
    return [graph.layer(source(graph, layer, port)[0]) for port in (1, 2)]


def _never_negative(graph: Graph, layer: Layer) -> bool:
    """Rule 1's test: no value of pads_begin or pads_end is negative on any release (Consts included)."""
    return all((integer_bounds(graph, source(graph, layer, port)) or (-1, -1))[0] >= 0 for port in (1, 2))


def _pad_then_crop(builder: GraphBuilder, layer: Layer, begin: list[int], end: list[int]) -> Output:
    """Rule 2: Pad-1 with the positive pads (inputs 0 and 3 as they are), then StridedSlice-1 with the negative."""
    graph, name = builder.graph, layer.name
    x = source(graph, layer, 0)
    if max(begin + end) > 0:
        pads = [builder.const(np.maximum(np.array(v, np.int64), 0), f"{name}/pad/{what}")
                for v, what in ((begin, "begin"), (end, "end"))]
        rest = [source(graph, layer, 3)] if len(layer.inputs) == 4 else []
        x = output_of(builder.add("Pad", "opset1", {"pad_mode": layer.attrs.get("pad_mode", "constant")},
                                  [x, *pads, *rest], f"{name}/pad"))
    starts = builder.const(np.array([max(-b, 0) for b in begin], np.int64), f"{name}/crop/begin")
    stops = builder.const(np.array([min(e, 0) for e in end], np.int64), f"{name}/crop/end")
    attrs = StridedSliceAttrs(begin_mask=(0,) * len(begin), end_mask=tuple(int(e >= 0) for e in end),
                              new_axis_mask=(0,) * len(begin), shrink_axis_mask=(0,) * len(begin),
                              ellipsis_mask=(0,) * len(begin))
    ones = builder.const(np.ones(len(begin), np.int64), f"{name}/crop/strides")
    return output_of(builder.add("StridedSlice", "opset1", attrs, [x, starts, stops, ones], f"{name}/crop"))


def _computed_crop(builder: GraphBuilder, layer: Layer) -> Output:
    """Rule 3: Pad-1 with the positive parts of the computed pads, then StridedSlice-1 by the negative parts. Each pad
    keeps its element type (Pad-1 and StridedSlice-1 take i32 beside i64: measured on 2023.0 and 2026.4), so every
    op on it is given a zero of its own type; a pad of another integer type is first made i64 (Convert-1)."""
    graph, name = builder.graph, layer.name
    x = source(graph, layer, 0)
    begin, end = (_wide(builder, source(graph, layer, port), f"{name}/pad/{what}") for port, what in ((1, "begin"),
                                                                                                     (2, "end")))
    rank = len(builder.type_of(x).shape)
    zero = builder.const(np.zeros((), numpy_dtype(builder, begin, "i64")), f"{name}/zero")
    zeros = {_int_name(builder, begin): zero}
    if _int_name(builder, end) not in zeros:
        zeros[_int_name(builder, end)] = builder.const(np.zeros((), numpy_dtype(builder, end)), f"{name}/zero_end")
    pads = [builder.add("Maximum", "opset1", None, [v, zeros[_int_name(builder, v)]], f"{name}/pad/{what}")
            for v, what in ((begin, "begin"), (end, "end"))]
    rest = [source(graph, layer, 3)] if len(layer.inputs) == 4 else []
    padded = builder.add("Pad", "opset1", {"pad_mode": layer.attrs.get("pad_mode", "constant")},
                         [x, *pads, *rest], f"{name}/pad")
    negated = builder.add("Negative", "opset1", None, [begin], f"{name}/crop/negated")
    starts = builder.add("Maximum", "opset1", None, [negated, zero], f"{name}/crop/begin")
    shape = builder.add("ShapeOf", "opset3", builder.attrs("ShapeOf", "opset3", output_type=_int_name(builder, end)),
                        [padded], f"{name}/crop/shape")
    cut = builder.add("Minimum", "opset1", None, [end, zeros[_int_name(builder, end)]], f"{name}/crop/cut")
    stops = builder.add("Add", "opset1", None, [shape, cut], f"{name}/crop/end")
    ones = builder.const(np.ones(rank, numpy_dtype(builder, begin, "i64")), f"{name}/crop/strides")
    flags = (0,) * rank
    attrs = StridedSliceAttrs(begin_mask=flags, end_mask=flags, new_axis_mask=flags, shrink_axis_mask=flags,
                              ellipsis_mask=flags)
    return output_of(builder.add("StridedSlice", "opset1", attrs, [padded, starts, stops, ones], f"{name}/crop",
                                 outputs=[declared_type(layer.outputs[0])]))


def _wide(builder: GraphBuilder, pads: Output, name: str) -> Output:
    """``pads`` as they are if i32 or i64 (what ShapeOf-3 gives, for rule 3's crop), else converted to i64."""
    if _int_name(builder, pads) in ("i32", "i64"):
        return pads
    return output_of(builder.convert(pads, "i64", f"{name}_i64"))


def _int_name(builder: GraphBuilder, out: Output) -> str:
    """The element type of the integers ``out`` carries (i64 where not known)."""
    return builder.type_of(out).element or "i64"
