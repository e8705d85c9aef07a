"""GroupNormalization-12 as Reshape + MVN-6 + Reshape + Multiply + Add; an RMS norm's ReduceMean-1 over axis -1 as
over its last axis counted from the start, for a release whose CPU fuses the norm and computes it wrongly."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.normalization import GroupNormAttrs
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, source
from .float_convert import constant


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


def _single(graph: Graph, out: Output) -> float | None:
    """The one value ``out`` holds where it is a Const of one element or a Convert of one (a compressed model's f16
    Const), else None."""
    layer = graph.layer(out[0])
    if layer.is_a("Convert"):
        layer = graph.layer(source(graph, layer, 0)[0])
    if not layer.is_a("Const"):
        return None
    value = graph.const_array(layer)
    return float(value.ravel()[0]) if value.size == 1 else None


def _readers(graph: Graph, layer: Layer, op_type: str) -> list[Layer]:
    """The layers of ``op_type`` reading ``layer``'s first output."""
    return [graph.layer(edge.to_layer) for edge in graph.consumers(layer.id, layer.output_ids()[0])
            if graph.layer(edge.to_layer).is_a(op_type)]


def _inputs(graph: Graph, layer: Layer) -> list[Output]:
    """The outputs feeding ``layer``'s inputs, in order (all fed: the graph was checked)."""
    return graph.input_keys(layer.id, layer.input_ids())


def _fused_rms(graph: Graph, layer: Layer) -> bool:
    """Whether the ReduceMean-1 ``layer`` is the mean of an RMS norm that OpenVINO's RMSFusion, which 2024.4's CPU
    runs, makes one node of (transformations/common_optimizations/rms_fusion.cpp): ``x * 1 / Sqrt(ReduceMean(Power(x,
    2), axis -1) + eps) * gamma``, the exponent, the axis and eps each a Const of one value (a Convert of one
    folds), x * 1 / s written with Divide(1, s) or Power(s, -1), or as Divide(x, s) (each fused: measured), gamma
    computed from Consts and the product f32."""
    power = graph.layer(source(graph, layer, 0)[0])
    if _single(graph, source(graph, layer, 1)) != -1 or not power.is_a("Power") or \
            _single(graph, source(graph, power, 1)) != 2:
        return False
    x = source(graph, power, 0)
    for add in _readers(graph, layer, "Add"):
        if not any(_single(graph, out) is not None for out in _inputs(graph, add) if out != output_of(layer)):
            continue
        for root in _readers(graph, add, "Sqrt"):
            s = output_of(root)
            scaled = [op for op in _readers(graph, root, "Divide") if _inputs(graph, op) == [x, s]]  # x / s
            inverses = [op for op in _readers(graph, root, "Divide") if _inputs(graph, op)[1] == s
                        and _single(graph, _inputs(graph, op)[0]) == 1]
            inverses += [op for op in _readers(graph, root, "Power") if _inputs(graph, op)[0] == s
                         and _single(graph, _inputs(graph, op)[1]) == -1]
            scaled += [m for op in inverses for m in _readers(graph, op, "Multiply") if x in _inputs(graph, m)]
            if any(_by_gamma(graph, m) for m in scaled):
                return True
    return False


def _by_gamma(graph: Graph, normal: Layer) -> bool:
    """Whether ``normal`` (x / s) is read by an f32 Multiply by gamma, a value computed from Consts alone (folded
    into a Const when the model is compiled)."""
    return any(declared_type(g.outputs[0]).element == "f32" and any(
        out != output_of(normal) and constant(graph, out) for out in _inputs(graph, g))
        for g in _readers(graph, normal, "Multiply"))


class RmsNormUnfused(Downgrade):
    """For a release whose CPU fuses an RMS norm into one node and computes it wrongly (measured: 2024.4, up to 2.4e-4
    relative off on rows of 64 or more, SIGSEGV on fewer; T5's final norm, times 0.125), the norm's ReduceMean-1
    reduces its last axis counted from the start (rank - 1) instead of -1: the same layer, which RMSFusion of 2024.4
    does not match (its axes pattern asks the value -1), so its ops run apart, each as the current OpenVINO's (within
    its rounding); the current OpenVINO fuses either (docs/SEMANTICS.md)."""

    rewrites = {"ReduceMean-1": "over axis rank - 1 instead of -1 (the same mean), where it is an RMS norm's "
                                "(x / Sqrt(ReduceMean(x^2, -1) + eps) * gamma) that the release fuses"}
    repairs = {"rms_norm_fused_wrong": _fused_rms}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        return "the rank of its input is unknown" if declared_type(layer.inputs[0]).shape is None else None

    def apply(self, graph: Graph) -> PassResult:
        if self.target is None or "rms_norm_fused_wrong" not in self.target.miscomputes:
            return PassResult(graph, False, Counter())
        return self.replace_each(graph, _counted_from_start, "ReduceMean-1", "ReduceMean-1 over axis rank - 1")


def _counted_from_start(builder: GraphBuilder, layer: Layer) -> Output:
    """``layer``, a ReduceMean-1 over axis -1, over axis rank - 1."""
    rank = len(declared_type(layer.inputs[0]).shape)
    axis = builder.const(np.array([rank - 1], np.int64), f"{layer.name}/axis")
    return output_of(builder.add("ReduceMean", "opset1", {"keep_dims": layer.attrs.get("keep_dims", "false")},
                                 [source(builder.graph, layer, 0), axis], layer.name,
                                 outputs=[declared_type(layer.outputs[0])]))
