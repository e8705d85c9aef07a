"""Newer op versions that are an older one while the attribute they added has its default."""

from __future__ import annotations

from collections import Counter

from ...ir.model import Graph, Layer
from ...ops.releases import op_label
from ..base import PassResult
from .base import Downgrade

#: label -> (the added attribute, its default as OpenVINO reads it, the older op version's opset). The attribute
#: is read from the IR's text (an op ir_tools does not model has no typed attributes): absent means the default,
#: case is ignored, and a boolean may be written 0 or 1.
_SAME_AS_OLDER = {
    "ScatterNDUpdate-15": ("reduction", "none", "opset4"),  # -3's update
    "Squeeze-15": ("allow_axis_skip", "false", "opset1"),
    "ScatterElementsUpdate-12": ("reduction", "none", "opset3"),  # and Const indices, none negative
    "ROIAlign-9": ("aligned_mode", "asymmetric", "opset3"),
    "OneHot-16": ("negative_indices_mode", "ignore_negative", "opset1"),
}
#: What else a newer version adds that means nothing at the default of the one above (dropped with it).
_ALSO_DROPPED = {"ScatterElementsUpdate-12": ("use_init_val",)}
#: label -> the input that must be a Const with no negative value: ScatterElementsUpdate-3 of OpenVINO 2023.0 CPU
#: refuses negative indices ("indices value that points to non-existing output tensor element"), -12 reads them.
_NON_NEGATIVE_CONST = {"ScatterElementsUpdate-12": 1}
_BOOLEANS = {"0": "false", "1": "true"}


class Respell(Downgrade):
    """A layer of a newer op version whose added attribute has its default, written as the older version, which
    has no such attribute (ScatterNDUpdate-15 ``reduction="none"`` as -3, Squeeze-15 ``allow_axis_skip="false"``
    as -1...). Any other is left, for another downgrade or for ``retarget`` to refuse."""

    rewrites = {label: f"into {op_label(label.split('-')[0], opset)} where {attribute} is {default}"
                for label, (attribute, default, opset) in _SAME_AS_OLDER.items()}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in self.layers(graph):
            label = next(label for label in _SAME_AS_OLDER if label.split("-")[0].lower() == layer.type.lower())
            attribute, default, opset = _SAME_AS_OLDER[label]
            value = layer.attrs.get(attribute, default).strip().lower()
            if _BOOLEANS.get(value, value) != default or not _non_negative_const(graph, layer, label):
                continue
            dropped = (attribute, *_ALSO_DROPPED.get(label, ()))
            layer.version = opset
            layer.attrs = {name: text for name, text in layer.attrs.items() if name not in dropped}
            graph.touch(layer.id)
            stats[f"{label} ({attribute} {default}) -> {op_label(layer.type, opset)}"] += 1
        return PassResult(graph, bool(stats), stats)


def _non_negative_const(graph: Graph, layer: Layer, label: str) -> bool:
    """True unless ``label`` needs a non-negative Const input (``_NON_NEGATIVE_CONST``) that ``layer`` lacks."""
    if label not in _NON_NEGATIVE_CONST:
        return True
    key = graph.producer_key(layer.id, layer.input_ids()[_NON_NEGATIVE_CONST[label]])
    source = None if key is None else graph.layer(key[0])
    return source is not None and source.is_a("Const") and bool((graph.const_array(source) >= 0).all())
