"""Newer op versions that are an older one while the attribute they added has its default (or, OneHot-16's
normalize, once negative indices are counted from the end)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.operands import normalize_axis
from ...ops.releases import op_label
from ..base import PassResult
from ..builder import GraphBuilder, Output, drop_unused, output_of
from .base import Downgrade, feed, from_start, non_negative, numpy_dtype, respelled

#: label -> (the added attribute, its default as OpenVINO reads it, the older op version's opset). The attribute
#: is read from the IR's text (an op ir_tools does not model has no typed attributes): absent means the default,
#: case is ignored, and a boolean may be written 0 or 1.
_SAME_AS_OLDER = {
    "ScatterNDUpdate-15": ("reduction", "none", "opset4"),  # -3's update
    "Squeeze-15": ("allow_axis_skip", "false", "opset1"),
    "ScatterElementsUpdate-12": ("reduction", "none", "opset3"),
    "ROIAlign-9": ("aligned_mode", "asymmetric", "opset3"),
    "OneHot-16": ("negative_indices_mode", "ignore_negative", "opset1"),
}
#: What else a newer version adds that means nothing at the default of the one above (dropped with it).
_ALSO_DROPPED = {"ScatterElementsUpdate-12": ("use_init_val",)}
#: The versions whose indices (input 1) the older one reads only non-negative, made so first: OpenVINO 2023.0 CPU's
#: ScatterElementsUpdate-3 refuses a negative index ("indices value that points to non-existing output tensor
#: element") and its ScatterNDUpdate-3 fails or writes elsewhere ("double free or corruption"; [-5] into a dim of 5
#: wrote another row), where -12 and -15 count one from the end of its axis.
_NON_NEGATIVE = frozenset({"ScatterNDUpdate-15", "ScatterElementsUpdate-12"})
#: Another value of the added attribute that the older version has once negative indices (input 0) are counted from
#: the end of the depth (input 1) first (``_one_hot_normalized``): OneHot-16's normalize reads index -k as depth - k,
#: and gives an index below -depth, as one at depth or above, a row all off (measured on 2026.4), as OneHot-1 does.
_NORMALIZED = {"OneHot-16": "normalize"}


def _read(layer: Layer, attribute: str, default: str) -> str:
    """The added attribute as OpenVINO reads it: a flag (a default of "true" or "false") by ``attrs.flag``, a value it
    skips taken as the default; an enum in any case, not stripped (``attrs.enum``)."""
    if default in ("true", "false"):
        return A.BOOL.format(A.flag(layer.attrs, attribute, default == "true"))
    return layer.attrs.get(attribute, default).lower()


class Respell(Downgrade):
    """A layer of a newer op version whose added attribute has its default, written as the older version, which
    has no such attribute (ScatterNDUpdate-15 ``reduction="none"`` as -3, Squeeze-15 ``allow_axis_skip="false"``
    as -1...), its indices made non-negative first where the older version reads no negative one (``_NON_NEGATIVE``:
    ``non_negative``, along ScatterElementsUpdate's axis, a Const, or each of ScatterNDUpdate's index tuples). Any
    other is left, for another downgrade or for ``retarget`` to refuse (a negative index whose axis is not known:
    a fed axis, an index tuple of dynamic length). OneHot-16 with normalize is OneHot-1 once its negative indices
    are counted from the end of the depth (``_NORMALIZED``, ``_one_hot_normalized``)."""

    rewrites = {label: f"into {op_label(label.split('-')[0], opset)} where {attribute} is {default}" + (
        f", or {_NORMALIZED[label]} (its negative indices plus depth first, where depth is a scalar)"
        if label in _NORMALIZED else "") for label, (attribute, default, opset) in _SAME_AS_OLDER.items()}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            label = next(label for label in _SAME_AS_OLDER if label.split("-")[0].lower() == layer.type.lower())
            attribute, default, opset = _SAME_AS_OLDER[label]
            value = _read(layer, attribute, default)
            if value != default and not (value == _NORMALIZED.get(label) and _one_hot_normalized(builder, layer)):
                continue
            if label in _NON_NEGATIVE and not _indices_made_non_negative(builder, layer):
                continue
            dropped = (attribute, *_ALSO_DROPPED.get(label, ()))
            respelled(graph, layer, opset)
            layer.attrs = {name: text for name, text in layer.attrs.items() if name not in dropped}
            stats[f"{label} ({attribute} {value}) -> {op_label(layer.type, opset)}"] += 1
        return PassResult(graph, bool(stats), stats)


def _indices_made_non_negative(builder: GraphBuilder, layer: Layer) -> bool:
    """Make a scatter's indices (input 1) non-negative where they may not be; False, changing nothing, where the axis
    each counts along is not known."""
    graph = builder.graph
    keys: list[Output] = [graph.producer_key(layer.id, port) for port in layer.input_ids()]  # (all fed: checked)
    source = graph.layer(keys[1][0])
    if source.is_a("Const") and bool((graph.const_array(source) >= 0).all()):
        return True
    shape, tuples = builder.type_of(keys[0]).shape, builder.type_of(keys[1]).shape
    if shape is None:
        return False
    if layer.type.lower() == "scatterndupdate":
        if tuples is None or not tuples or not tuples[-1].is_static or tuples[-1].lo > len(shape):
            return False
        axes: int | list[int] = list(range(tuples[-1].lo))
    else:
        axis = graph.layer(keys[3][0])
        if not axis.is_a("Const"):
            return False
        axes = normalize_axis(int(graph.const_array(axis).reshape(-1)[0]), len(shape))
    feed(graph, layer, 1, non_negative(builder, layer.name, keys[0], keys[1], axes))
    drop_unused(graph, [source])
    return True


def _one_hot_normalized(builder: GraphBuilder, layer: Layer) -> bool:
    """Feed a OneHot its indices (input 0) with each one in [-depth, 0) plus depth (input 1, of their element type:
    a Const, else a Convert where it has another); False, changing nothing, where depth is not a scalar or
    the indices' type is not known."""
    graph = builder.graph
    indices, depth = (graph.producer_key(layer.id, port) for port in layer.input_ids()[:2])  # (fed: checked)
    source, kind = graph.layer(indices[0]), builder.type_of(indices).element
    if builder.type_of(depth).shape != () or kind is None:
        return False
    dim: np.ndarray | Output
    if graph.layer(depth[0]).is_a("Const"):
        dim = graph.const_array(graph.layer(depth[0])).astype(numpy_dtype(builder, indices, "i64"))
    elif builder.type_of(depth).element == kind:
        dim = depth
    else:
        dim = output_of(builder.convert(depth, kind, f"{layer.name}/depth"))
    feed(graph, layer, 0, from_start(builder, layer.name, indices, dim))
    drop_unused(graph, [source])
    return True
