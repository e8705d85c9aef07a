"""AdaptiveAvgPool-8 as opset1 slices, means and concatenations."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dims import DYNAMIC
from ...ir.model import Graph, Layer
from ...ops.movement import StridedSliceAttrs
from ...ops.spec import TensorType
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, const_input, source


class AdaptiveAvgPoolTo1(Downgrade):
    """AdaptiveAvgPool-8 for releases before 2022.1. Output bin ``i`` of a spatial axis of length ``n`` and output
    size ``o`` averages ``[floor(i*n/o), ceil((i+1)*n/o))``; a bin is the product of one such interval per axis, so
    its mean is the mean, axis after axis, of the means over each interval. Each axis is pooled in turn: one
    StridedSlice-1 and ReduceMean-1 (keep_dims) per output index, joined by Concat-1; the bounds are constants on a
    static length and computed from ShapeOf-1 on a dynamic one. Needs a static rank and a constant output size of
    positive values; any other is left, for ``retarget`` to refuse."""

    rewrites = {"AdaptiveAvgPool-8": "into StridedSlice-1, ReduceMean-1 and Concat-1 per output row and column "
                                     "(its output size a constant)"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            sizes = _output_size(graph, layer)
            if sizes is None:
                continue
            builder.replace_layer(layer, lambda: [_pooled(builder, layer, sizes)],  # noqa: B023
                                  origin_text(layer, "AdaptiveAvgPool-8"))
            stats["AdaptiveAvgPool-8 -> StridedSlice-1/ReduceMean-1/Concat-1"] += 1
        return PassResult(graph, bool(stats), stats)


def _output_size(graph: Graph, layer: Layer) -> list[int] | None:
    """The output size per spatial axis; None unless it is a constant of positive values over a static rank."""
    data = source(graph, layer, 0)
    shape = declared_type(graph.layer(data[0]).output(data[1])).shape
    value = const_input(graph, layer, 1)
    if shape is None or value is None:
        return None
    raw = value.reshape(-1)
    sizes = [int(v) for v in (np.trunc(raw) if raw.dtype.kind == "f" else raw)]
    return sizes if len(sizes) == len(shape) - 2 and all(v > 0 for v in sizes) else None


def _pooled(builder: GraphBuilder, layer: Layer, sizes: list[int]) -> Output:
    out = source(builder.graph, layer, 0)
    for axis, size in enumerate(sizes, start=2):
        out = _pool_axis(builder, out, axis, size, f"{layer.name}/axis{axis}")
    return out


def _pool_axis(builder: GraphBuilder, data: Output, axis: int, size: int, name: str) -> Output:
    """``data`` pooled adaptively to ``size`` along ``axis``."""
    given = builder.type_of(data)
    length = given.shape[axis]
    begins, ends = (_static_bounds(builder, axis, length.lo, size, name) if length.is_static
                    else _dynamic_bounds(builder, data, axis, size, name))
    window_type = None if length.is_static else TensorType(given.element, given.shape[:axis] + (DYNAMIC,)
                                                           + given.shape[axis + 1:])
    mask = (1,) * axis + (0,)
    attrs = StridedSliceAttrs(begin_mask=mask, end_mask=mask, new_axis_mask=(0,) * (axis + 1),
                              shrink_axis_mask=(0,) * (axis + 1), ellipsis_mask=(0,) * (axis + 1))
    axes = builder.const(np.array([axis], np.int64), f"{name}/axes")
    strides = builder.const(np.ones(axis + 1, np.int64), f"{name}/strides")
    means = []
    for i in range(size):
        window = builder.add("StridedSlice", "opset1", attrs, [data, begins[i], ends[i], strides], f"{name}/{i}/window",
                             outputs=None if window_type is None else [window_type])
        means.append(output_of(builder.add("ReduceMean", "opset1", builder.attrs("ReduceMean", "opset1",
                                                                                keep_dims=True),
                                           [window, axes], f"{name}/{i}/mean")))
    if size == 1:
        return means[0]
    return output_of(builder.add("Concat", "opset1", builder.attrs("Concat", "opset1", axis=axis), means, name))


def _static_bounds(builder: GraphBuilder, axis: int, length: int, size: int,
                   name: str) -> tuple[list[Output], list[Output]]:
    """Each bin's begin and end as constants over the dims up to the axis (the others masked)."""
    begins, ends = [], []
    for i in range(size):
        for bounds, value, what in ((begins, i * length // size, "begin"),
                                    (ends, -(-(i + 1) * length // size), "end")):
            laid = np.zeros(axis + 1, np.int64)
            laid[-1] = value
            bounds.append(builder.const(laid, f"{name}/{i}/{what}"))
    return begins, ends


def _dynamic_bounds(builder: GraphBuilder, data: Output, axis: int, size: int,
                    name: str) -> tuple[list[Output], list[Output]]:
    """Each bin's begin and end, computed from the axis' length: ``i*n // o`` and ``((i+1)*n + o-1) // o``."""
    i64 = builder.const
    first = i64(np.array(0, np.int64), f"{name}/gather_axis")
    shape = builder.add("ShapeOf", "opset1", None, [data], f"{name}/shape")
    length = builder.add("Gather", "opset1", None, [shape, i64(np.array([axis], np.int64), f"{name}/at"), first],
                         f"{name}/length")
    steps = i64(np.arange(size + 1, dtype=np.int64), f"{name}/steps")
    scaled = builder.add("Multiply", "opset1", None, [length, steps], f"{name}/scaled")
    divisor = i64(np.array([size], np.int64), f"{name}/size")
    starts = builder.add("Divide", "opset1", None, [scaled, divisor], f"{name}/starts")
    rounded_up = builder.add("Add", "opset1", None, [scaled, i64(np.array([size - 1], np.int64), f"{name}/round")],
                             f"{name}/scaled_up")
    stops = builder.add("Divide", "opset1", None, [rounded_up, divisor], f"{name}/stops")
    leading = i64(np.zeros(axis, np.int64), f"{name}/leading")
    concat = builder.attrs("Concat", "opset1", axis=0)
    begins, ends = [], []
    for i in range(size):
        for bounds, table, at, what in ((begins, starts, i, "begin"), (ends, stops, i + 1, "end")):
            where = i64(np.array([at], np.int64), f"{name}/{i}/{what}_at")
            value = builder.add("Gather", "opset1", None, [table, where, first], f"{name}/{i}/{what}_value")
            bounds.append(output_of(builder.add("Concat", "opset1", concat, [leading, value], f"{name}/{i}/{what}")))
    return begins, ends
