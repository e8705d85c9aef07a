"""GatherND-8 as GatherND-5 (and Reshape-1 where it keeps more than one batch dim)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...ir.model import Graph, Layer
from ...ops.movement import StridedSliceAttrs
from ..base import PassResult
from ..builder import GraphBuilder, Output, drop_unused, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, feed, non_negative, respelled, source


class GatherNDTo5(Downgrade):
    """GatherND-8 as GatherND-5 (for releases before 2022.1). They differ in the output's leading dims: GatherND-8
    keeps the ``batch_dims`` of the indices, GatherND-5 fuses them into their product where there are two or more.
    And OpenVINO 2023.0 CPU's GatherND-5 reads a negative index beyond its dim (garbage), where the current
    OpenVINO's GatherND-5 and -8 count one in [-dim, 0) from the end. So the indices in [-dim, 0) are made
    non-negative first (``non_negative``, each index of a tuple along its own axis: a new Const, or a Select), and
    then with batch_dims 0 or 1 the layer is GatherND-5 as it is (OpenVINO's own ConvertGatherND8ToGatherND5 takes
    batch_dims 0), and with more, GatherND-5 followed by a Reshape-1 to GatherND-8's shape: a Const where that shape
    is static, else the indices' batch dims (ShapeOf-1) before GatherND-5's other dims. Needs a static rank of the
    data and a static length of the index tuples (the CPU compiles no other); any other is left, for ``retarget`` to
    refuse. 180 seeded layers (batch_dims 0 to 2, -dim and dim - 1 among the indices): bit for bit on 2023.0 and
    2026.4."""

    rewrites = {"GatherND-8": "into GatherND-5 (its negative indices made non-negative first; and Reshape-1 to the "
                              "batch dims where batch_dims > 1)"}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        builder = GraphBuilder(graph)
        data, indices = (builder.type_of(source(graph, layer, index)) for index in (0, 1))
        if data.shape is None or not indices.shape or not indices.shape[-1].is_static:
            return "the rank of its data or the length of its index tuples is not known"
        return None

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            batch_dims = _batch_dims(layer)
            _counted_from_start(builder, layer, batch_dims)
            if batch_dims <= 1:
                respelled(graph, layer, "opset5")
                stats[f"GatherND-8 (batch_dims {batch_dims}) -> GatherND-5"] += 1
                continue
            builder.replace_layer(layer, lambda: [_reshaped(builder, layer, batch_dims)],  # noqa: B023
                                  origin_text(layer, "GatherND-8"))
            stats["GatherND-8 (batch_dims > 1) -> GatherND-5/Reshape-1"] += 1
        return PassResult(graph, bool(stats), stats)


def _batch_dims(layer: Layer) -> int:
    return int(layer.attrs.get("batch_dims", "0"))


def _counted_from_start(builder: GraphBuilder, layer: Layer, batch_dims: int) -> None:
    """Feed ``layer`` its indices with each one in [-dim, 0) made non-negative (unless they are a Const of none)."""
    graph = builder.graph
    data, indices = source(graph, layer, 0), source(graph, layer, 1)
    given = graph.layer(indices[0])
    if given.is_a("Const") and bool((graph.const_array(given) >= 0).all()):
        return
    tuple_length = builder.type_of(indices).shape[-1].lo
    feed(graph, layer, 1, non_negative(builder, layer.name, data, indices,
                                       list(range(batch_dims, batch_dims + tuple_length))))
    drop_unused(graph, [given])


def _reshaped(builder: GraphBuilder, layer: Layer, batch_dims: int) -> Output:
    """GatherND-5 of the layer's inputs, reshaped to GatherND-8's output shape (the batch dims unfused)."""
    graph, name = builder.graph, layer.name
    data, indices = source(graph, layer, 0), source(graph, layer, 1)
    fused = output_of(builder.add("GatherND", "opset5", builder.attrs("GatherND", "opset5", batch_dims=batch_dims),
                                  [data, indices], f"{name}/fused"))
    shape = declared_type(layer.outputs[0]).shape
    if shape is not None and all(d.is_static for d in shape):
        target = builder.const(np.array([d.lo for d in shape], np.int64), f"{name}/shape")
    else:
        batch = _sliced(builder, builder.add("ShapeOf", "opset1", None, [indices], f"{name}/indices_shape"),
                        0, batch_dims, f"{name}/batch")
        rest = _sliced(builder, builder.add("ShapeOf", "opset1", None, [fused], f"{name}/fused_shape"),
                       1, None, f"{name}/rest")
        target = output_of(builder.add("Concat", "opset1", builder.attrs("Concat", "opset1", axis=0), [batch, rest],
                                       f"{name}/shape"))
    return output_of(builder.add("Reshape", "opset1", builder.attrs("Reshape", "opset1", special_zero=False),
                                 [fused, target], name))


def _sliced(builder: GraphBuilder, shape: Output | Layer, begin: int, end: int | None, name: str) -> Output:
    """``shape[begin:end]`` of a 1-D shape (``end`` None: to its end)."""
    attrs = StridedSliceAttrs(begin_mask=(0,), end_mask=(int(end is None),), new_axis_mask=(0,),
                              shrink_axis_mask=(0,), ellipsis_mask=(0,))
    bounds = [builder.const(np.array([value], np.int64), f"{name}/{what}")
              for value, what in ((begin, "begin"), (end or 0, "end"), (1, "stride"))]
    return output_of(builder.add("StridedSlice", "opset1", attrs, [shape, *bounds], name))
