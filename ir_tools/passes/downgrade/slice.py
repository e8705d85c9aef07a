"""Slice-8 as StridedSlice-1."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...ir.model import Graph, Layer
from ...ops.movement import StridedSliceAttrs
from ...ops.operands import normalize_axis
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, const_input, numpy_dtype, source


class SliceTo1(Downgrade):
    """Slice-8 as StridedSlice-1 (for releases before 2022.1), as OpenVINO's own SliceToStridedSlice: with axes
    that are a Const (or absent: 0, 1... as many as the starts), made non-negative on a static rank, the starts,
    stops and steps are laid out over the dims 0..max(axes) (a ScatterUpdate-3 into zeros, and ones for the steps,
    where the axes are not exactly those dims in order; folded when they are Consts) and every other dim is masked
    in begin_mask and end_mask. Any other is left, for ``retarget`` to refuse, and so is one whose starts, stops or
    steps would need the ScatterUpdate-3 a target lacks (``opset1``, ``opset2``)."""

    rewrites = {"Slice-8": "into StridedSlice-1 where its axes are a constant"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            axes = _axes(graph, layer)
            assert axes is not None  # (``declines`` leaves the others)
            builder.replace_layer(layer, lambda: [_strided_slice(builder, layer, axes)],  # noqa: B023
                                  origin_text(layer, "Slice-8"))
            stats["Slice-8 -> StridedSlice-1"] += 1
        return PassResult(graph, bool(stats), stats)

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        axes = _axes(graph, layer)
        if axes is None:
            return "its axes are not a constant (or are negative on a dynamic rank)"
        if self.target is not None and not _aligned(axes) and not self.target.creates("ScatterUpdate", "opset3", {}) \
                and not all(graph.layer(source(graph, layer, i)[0]).is_a("Const") for i in (1, 2, 3)):
            return (f"{self.target.called} has no ScatterUpdate-3 to lay out its starts, stops or steps (not all "
                    "constants) over the dims its axes skip")
        return None


def _axes(graph: Graph, layer: Layer) -> list[int] | None:
    """The slice's axes, non-negative; None when they are not known (fed, or negative on a dynamic rank)."""
    data = source(graph, layer, 0)
    rank = declared_type(graph.layer(data[0]).output(data[1])).shape
    if len(layer.inputs) > 4:
        value = const_input(graph, layer, 4)
        if value is None:
            return None
        axes = [int(a) for a in value.reshape(-1)]
    else:
        starts = declared_type(layer.inputs[1]).shape
        if starts is None or not starts[0].is_static:
            return None
        axes = list(range(starts[0].lo))
    if any(a < 0 for a in axes):
        if rank is None:
            return None
        axes = [normalize_axis(a, len(rank)) for a in axes]
    return axes or None


def _aligned(axes: list[int]) -> bool:
    """Whether the axes are the dims 0..max(axes) in order (the starts, stops and steps then serve as they are)."""
    return axes == list(range(max(axes) + 1))


def _strided_slice(builder: GraphBuilder, layer: Layer, axes: list[int]) -> Output:
    graph, name = builder.graph, layer.name
    length = max(axes) + 1
    aligned = _aligned(axes)
    parts = []
    for index, (what, fill) in enumerate((("begin", 0), ("end", 0), ("strides", 1)), start=1):
        given = source(graph, layer, index)
        if aligned:
            parts.append(given)
            continue
        dtype = numpy_dtype(builder, given, "i64")
        producer = graph.layer(given[0])
        if producer.is_a("Const"):
            laid = np.full(length, fill, dtype)
            laid[axes] = graph.const_array(producer).reshape(-1)
            parts.append(builder.const(laid, f"{name}/{what}"))
            continue
        default = builder.const(np.full(length, fill, dtype), f"{name}/{what}/default")
        where = builder.const(np.array(axes, np.int64), f"{name}/{what}/axes")
        axis = builder.const(np.zeros(1, np.int32), f"{name}/{what}/axis")
        parts.append(output_of(builder.add("ScatterUpdate", "opset3", {}, [default, where, given, axis],
                                           f"{name}/{what}", outputs=[builder.type_of(default)])))
    mask = tuple(0 if i in axes else 1 for i in range(length))
    attrs = StridedSliceAttrs(begin_mask=mask, end_mask=mask, new_axis_mask=(0,) * length,
                              shrink_axis_mask=(0,) * length, ellipsis_mask=(0,) * length)
    data = source(graph, layer, 0)
    return output_of(builder.add("StridedSlice", "opset1", attrs, [data, *parts], name,
                                 outputs=[declared_type(layer.outputs[0])]))  # the same slice: the same type
