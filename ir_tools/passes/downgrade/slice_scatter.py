"""SliceScatter-15 as ScatterNDUpdate-3 of the flattened data at the sliced elements' flat indices (OpenVINO's own
ConvertSliceScatter), for releases before 2024.4."""

from __future__ import annotations

import numpy as np

from ...ir.model import Graph, Layer
from ..base import PassResult
from ..builder import GraphBuilder, Output, output_of
from ..shapes import declared_type
from .base import Downgrade, source

LABEL = "SliceScatter-15"


class SliceScatterTo3(Downgrade):
    """SliceScatter-15 (the data with the elements ``Slice-8(data, start, stop, step[, axes])`` selects replaced by the
    updates, in the order the slice reads them), exactly, as OpenVINO's own ConvertSliceScatter decomposes it: the
    flat index of every element (``Range-4`` up to the flattened data's length, reshaped to the data's shape) is
    sliced by the layer's own start, stop, step and axes (Slice-8, the same inputs), and those indices ([-1, 1])
    receive the flattened updates in the flattened data (ScatterNDUpdate-3: a slice selects each element once, so no
    two updates meet), reshaped back. The length is the ShapeOf of the flattened data, where ConvertSliceScatter takes
    the ReduceProd of the data's dims, which 2023.0 to 2024.2 compute through f32 (``check --target`` warns of it).
    Pure data movement; the data and updates may be computed and their dims dynamic.
    For releases before 2022.1 the Slice-8 is rewritten in turn (``SliceTo1``, where its axes are a constant).

    A layer whose start, stop, step or axes are not Consts is left (``declines``): the current OpenVINO CPU computes
    it otherwise than its specification, which the rewrite computes (measured on 2026.4, bounds fed by Parameters, one
    layer a model: the data given back without the updates on ranks 2 to 4, 106 of 106, SIGFPE on rank 1, 38 of 38,
    f32, f16, i64, i32, i8 and u8 alike), so no rewrite gives the original's numbers."""

    rewrites = {LABEL: "into Slice-8 of its elements' flat indices and ScatterNDUpdate-3 of the flattened data, "
                       "where its start, stop, step and axes are constants"}

    def apply(self, graph: Graph) -> PassResult:
        return self.replace_each(graph, _scattered, LABEL, "Slice-8 + ScatterNDUpdate-3")


    def declines(self, graph: Graph, layer: Layer) -> str | None:
        """Bounds (start, stop, step, axes) that are not Consts."""
        if all(graph.layer(source(graph, layer, port)[0]).is_a("Const") for port in range(2, len(layer.inputs))):
            return None
        return ("its start, stop, step or axes are computed, and the current OpenVINO computes such a SliceScatter-15 "
                "otherwise than its specification (measured on 2026.4: the data given back without the updates, or "
                "SIGFPE on data of rank 1), so no rewrite gives the original's numbers")


def _scattered(builder: GraphBuilder, layer: Layer) -> Output:
    """The class's rewrite of the SliceScatter-15 ``layer``: the output standing for its."""
    graph, name = builder.graph, layer.name
    data, updates = source(graph, layer, 0), source(graph, layer, 1)
    bounds = [source(graph, layer, port) for port in range(2, len(layer.inputs))]
    i64 = builder.attrs("ShapeOf", "opset3", output_type="i64")
    shape = output_of(builder.add("ShapeOf", "opset3", i64, [data], f"{name}/shape"))
    zero, one = (builder.const(np.array(v, np.int64), f"{name}/{what}") for v, what in ((0, "zero"), (1, "one")))
    unflat = builder.attrs("Reshape", "opset1", special_zero=False)
    line = builder.const(np.array([-1], np.int64), f"{name}/line_shape")
    data_line = builder.add("Reshape", "opset1", unflat, [data, line], f"{name}/data_line")
    count = builder.add("Squeeze", "opset1", None,
                        [output_of(builder.add("ShapeOf", "opset3", i64, [output_of(data_line)], f"{name}/length")),
                         zero], f"{name}/count")
    flat = builder.add("Range", "opset4", builder.attrs("Range", "opset4", output_type="i64"),
                       [zero, output_of(count), one], f"{name}/flat_indices")
    indices = builder.add("Reshape", "opset1", unflat, [flat, shape], f"{name}/indices")
    picked = builder.add("Slice", "opset8", None, [indices, *bounds], f"{name}/picked")
    column = builder.add("Reshape", "opset1", unflat, [picked, builder.const(np.array([-1, 1], np.int64),
                                                                            f"{name}/column_shape")],
                         f"{name}/picked_column")
    updates_line = builder.add("Reshape", "opset1", unflat, [updates, line], f"{name}/updates_line")
    scattered = builder.add("ScatterNDUpdate", "opset4", None, [data_line, column, updates_line], f"{name}/scattered")
    return output_of(builder.add("Reshape", "opset1", unflat, [scattered, shape], name,
                                 outputs=[declared_type(layer.outputs[0])]))
