"""GroupNormalization-12 as Reshape + MVN-6 + Reshape + Multiply + Add."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.normalization import GroupNormAttrs
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade


def _on_2d(graph: Graph, layer: Layer) -> bool:
    """True for a GroupNormalization-12 of a 2-D input: 2023.1 to 2024.0 create it but their CPU plugin does not
    compile it ("Cannot fallback on ngraph reference implementation")."""
    shape = declared_type(layer.inputs[0]).shape
    return shape is not None and len(shape) == 2


class GroupNormalizationTo6(Downgrade):
    """GroupNormalization-12 in opset6, as OpenVINO's own GroupNormalizationDecomposition (docs/SEMANTICS.md): the
    data [N, C, ...] reshaped to [N, num_groups, rest], MVN-6 over the last axis (normalize_variance, epsilon inside
    the square root, read as f32 by both ops), reshaped back, times scale and plus bias unsqueezed to [C, 1, ...].
    A rank below 2 or unknown is left, for ``retarget`` to refuse (OpenVINO refuses it too). For a target that
    creates it but does not compile it on a 2-D input (measured: 2023.1 to 2024.0), such a layer is rewritten too."""

    rewrites = {"GroupNormalization-12": "into Reshape-1 + MVN-6 + Reshape-1 + Multiply-1 + Add-1"}
    repairs = {"group_norm_2d_not_compiled": _on_2d}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            shape = declared_type(layer.inputs[0]).shape
            if shape is None or len(shape) < 2:
                continue
            builder.replace_layer(layer, lambda: [_decomposed(builder, layer, len(shape))],  # noqa: B023
                                  origin_text(layer, "GroupNormalization-12"))
            stats["GroupNormalization-12 -> Reshape-1 + MVN-6 + Reshape-1 + Multiply-1 + Add-1"] += 1
        return PassResult(graph, bool(stats), stats)


def _decomposed(builder: GraphBuilder, layer: Layer, rank: int) -> Output:
    graph, name = builder.graph, layer.name
    data, scale, bias = (graph.producer_key(layer.id, port) for port in layer.input_ids())
    attrs = A.decode(GroupNormAttrs, layer.attrs, layer.loc)  # (epsilon may be omitted: OpenVINO's 0)
    groups = attrs.num_groups
    grouped = builder.const(np.array([0, groups, -1], np.int64), f"{name}/groups")
    x = builder.add("Reshape", "opset1", {"special_zero": "true"}, [data, grouped], f"{name}/grouped")
    axes = builder.const(np.array([2], np.int64), f"{name}/axes")
    mvn = builder.add("MVN", "opset6", {"eps": A.FLOAT.format(attrs.epsilon), "normalize_variance": "true",
                                        "eps_mode": "inside_sqrt"}, [x, axes], f"{name}/mvn")
    dims = declared_type(layer.inputs[0]).shape
    if all(d.is_static for d in dims):
        back = builder.const(np.array([d.lo for d in dims], np.int64), f"{name}/shape")
    else:
        back = output_of(builder.add("ShapeOf", "opset3", {"output_type": "i64"}, [data], f"{name}/shape"))
    # back to the data's shape, the layer's own type: the rule would say [?,?,?] of a ShapeOf's value that OpenVINO
    # bounds ([?,32,1..] in wav2vec2), and `check` would refuse the dims written
    y = builder.add("Reshape", "opset1", {"special_zero": "false"}, [output_of(mvn), back], f"{name}/normalized",
                    outputs=[declared_type(layer.outputs[0])])
    if rank > 2:
        channels = builder.const(np.arange(1, rank - 1, dtype=np.int64), f"{name}/channel_axes")
        scale, bias = (output_of(builder.add("Unsqueeze", "opset1", None, [v, channels], f"{name}/{what}"))
                       for v, what in ((scale, "scale"), (bias, "bias")))
    y = builder.add("Multiply", "opset1", None, [output_of(y), scale], f"{name}/scaled")
    return output_of(builder.add("Add", "opset1", None, [output_of(y), bias], name))
