"""Eye-9 as Range-4, Subtract-1, Equal-1, Convert-1 and Broadcast-3 (releases before 2022.2 have no opset9)."""

from __future__ import annotations

import numpy as np

from ...base.dtypes import element_type
from ...ir.model import Graph, Layer
from ..base import PassResult
from ..builder import GraphBuilder, Output, output_of
from ..shapes import declared_type
from .base import Downgrade, numpy_dtype, source

LABEL = "Eye-9"


class EyeTo4(Downgrade):
    """Eye-9 (``y[..., r, c] = 1 if c - r == diagonal_index else 0``, as the specification and OpenVINO's reference
    say), exactly: the differences ``Range(num_columns) - Unsqueeze(Range(num_rows), 1)`` (Range-4, i64, from each
    count read as a scalar: Reshape-1 to []) are compared with the diagonal index (Convert-1 to i64, read as a scalar)
    by Equal-1, the booleans made the output type by Convert-1 (0 and 1 in every type), and with batch_shape the
    matrix is broadcast (Broadcast-3, numpy) to ``batch_shape + [num_rows, num_columns]``. A diagonal beyond the matrix
    gives zeros, as Eye does. OpenVINO's own EyeDecomposition pads a 1-D eye by negative pads, which Pad-1 of older
    releases lacks."""

    rewrites = {LABEL: "into Range-4, Subtract-1, Equal-1 and Convert-1 (then Broadcast-3 to its batch_shape)"}

    def apply(self, graph: Graph) -> PassResult:
        return self.replace_each(graph, _eye, LABEL, "Range-4 + Equal-1 + Convert-1")


def _scalar(builder: GraphBuilder, value: Output, name: str) -> Output:
    """``value`` (a scalar or of one element, as Eye takes its counts and diagonal index) as a scalar."""
    empty = builder.const(np.zeros(0, np.int64), f"{name}/scalar_shape")
    return output_of(builder.add("Reshape", "opset1", builder.attrs("Reshape", "opset1", special_zero=False),
                                 [value, empty], f"{name}/scalar"))


def _eye(builder: GraphBuilder, layer: Layer) -> Output:
    """The class's rewrite of the Eye-9 ``layer``: the output standing for its."""
    graph, name = builder.graph, layer.name
    counts = []
    for port, what in ((0, "rows"), (1, "columns")):
        count = _scalar(builder, source(graph, layer, port), f"{name}/{what}")
        dtype = numpy_dtype(builder, count, "i64")
        start, step = (builder.const(np.array(v, dtype), f"{name}/{what}/{label}") for v, label in ((0, "start"),
                                                                                                (1, "step")))
        counts.append(output_of(builder.add("Range", "opset4", builder.attrs("Range", "opset4", output_type="i64"),
                                            [start, count, step], f"{name}/{what}/range")))
    rows = builder.add("Unsqueeze", "opset1", None, [counts[0], builder.const(np.array([1], np.int64),
                                                                              f"{name}/rows/axis")],
                       f"{name}/rows/column")
    shift = builder.add("Subtract", "opset1", None, [counts[1], rows], f"{name}/shift")
    diagonal = _scalar(builder, source(graph, layer, 2), f"{name}/diagonal")
    if numpy_dtype(builder, diagonal, "i64") != np.int64:
        diagonal = output_of(builder.convert(diagonal, "i64", f"{name}/diagonal_i64"))
    on = builder.add("Equal", "opset1", None, [shift, diagonal], f"{name}/on_diagonal")
    out = declared_type(layer.outputs[0])
    element = element_type(layer.attrs.get("output_type", "") or out.element or "f32")
    assert element is not None  # (the gate before: OpenVINO read the layer's output_type)
    if len(layer.inputs) < 4:
        return output_of(builder.convert(on, element, name, outputs=[out]))
    matrix = builder.convert(on, element, f"{name}/matrix")
    batch = source(graph, layer, 3)
    if numpy_dtype(builder, batch, "i64") != np.int64:
        batch = output_of(builder.convert(batch, "i64", f"{name}/batch_i64"))
    matrix_shape = builder.add("ShapeOf", "opset3", builder.attrs("ShapeOf", "opset3", output_type="i64"), [matrix],
                               f"{name}/matrix_shape")
    shape = builder.add("Concat", "opset1", builder.attrs("Concat", "opset1", axis=0), [batch, matrix_shape],
                        f"{name}/shape")
    return output_of(builder.add("Broadcast", "opset3", builder.attrs("Broadcast", "opset3", mode="numpy"),
                                 [matrix, shape], name, outputs=[out]))
