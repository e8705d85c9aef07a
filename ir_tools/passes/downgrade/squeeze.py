"""Squeeze-15 with allow_axis_skip as Squeeze-1 (or an identity Reshape-1); Squeeze-1 listing an axis whose static
dim is not 1 (which the current OpenVINO skips) as Squeeze-1 of the others, for a release that refuses it."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.opsets import lookup
from ...ops.reshape import ReshapeAttrs
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade


def _axes(graph: Graph, layer: Layer) -> list[int] | None:
    """The axes a Squeeze lists, as its Const says them (None without a Const)."""
    keys = [graph.producer_key(layer.id, port) for port in layer.input_ids()]
    source = graph.layer(keys[1][0]) if len(keys) == 2 and keys[1] is not None else None
    if source is None or not source.is_a("Const"):
        return None
    return [int(v) for v in graph.const_array(source).reshape(-1)]


def _not_one(graph: Graph, layer: Layer) -> bool:
    """True if the Squeeze-1 ``layer`` lists an axis (a Const) whose dim is static and not 1
    (``squeeze_axis_not_one_refused``)."""
    listed, shape = _axes(graph, layer), declared_type(layer.inputs[0]).shape
    if not listed or shape is None:
        return False
    return any(-len(shape) <= a < len(shape) and shape[a].is_static and shape[a].lo != 1 for a in listed)


class SqueezeSkipTo1(Downgrade):
    """Squeeze-15 with ``allow_axis_skip="true"`` on an input of static shape, exactly, where its axes are a Const
    (or absent):

    1. no axes, or none listed: Squeeze-15 squeezes every dim of 1 whatever allow_axis_skip, as Squeeze-1 does:
       respelled;
    2. axes listed: an axis whose dim is 1 is squeezed, any other skipped: Squeeze-1 with the axes whose dim is 1
       (2023.0's Squeeze-1 refuses an axis that is not 1), or where there is none, Reshape-1 to the input's own
       shape (a pattern of zeros with special_zero);
    3. a dynamic input is left, for ``retarget`` to refuse, as are axes that are not a Const: OpenVINO CPU
       (2026.4) refuses to compile Squeeze-15 with allow_axis_skip on any dynamic input ("Squeeze is not
       implemented"), so there is no behaviour to reproduce.

    For a target that refuses to read Squeeze-1 listing an axis whose static dim is not 1, which the current
    OpenVINO skips (``squeeze_axis_not_one_refused``, measured: 2023.0 to 2024.2; Squeeze-15 with allow_axis_skip
    false skips it too, and ``Respell`` makes it such a Squeeze-1 first), such a Squeeze-1 is taken too:

    4. Squeeze-1 with the listed axes but those whose dim is static and not 1 (a dynamic one kept, as it was), or
       where none is left, Reshape-1 to the input's own shape, as rule 2.
    """

    rewrites = {"Squeeze-15": "into Squeeze-1 (or an identity Reshape-1) where allow_axis_skip is true, its axes "
                              "constant and its input of static shape",
                "Squeeze-1": "into Squeeze-1 of the listed axes but those whose static dim is not 1 (or an identity "
                             "Reshape-1), which the current OpenVINO skips"}
    repairs = {"squeeze_axis_not_one_refused": _not_one}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            spec = lookup(layer.type, layer.version)
            if spec.label == "Squeeze-1":
                self._skip_not_one(graph, builder, layer, stats)
                continue
            if not A.decode(spec.attrs, layer.attrs, layer.loc).allow_axis_skip:
                continue  # Respell's
            keys = [graph.producer_key(layer.id, port) for port in layer.input_ids()]
            shape = builder.type_of(keys[0]).shape
            source = graph.layer(keys[1][0]) if len(keys) == 2 else None
            if shape is None or not all(d.is_static for d in shape) or (source and not source.is_a("Const")):
                continue
            listed = [] if source is None else [int(v) for v in graph.const_array(source).reshape(-1)]
            if not listed:
                layer.version, layer.attrs = "opset1", {}
                graph.touch(layer.id)
                stats["Squeeze-15 (allow_axis_skip, no axes) -> Squeeze-1"] += 1
                continue
            if not all(-len(shape) <= a < len(shape) for a in listed):
                continue
            squeezed = sorted({a % len(shape) for a in listed if shape[a].lo == 1})
            builder.replace_layer(layer, lambda: [_squeeze(builder, layer, keys[0], squeezed)],  # noqa: B023
                                  origin_text(layer, spec.label))
            stats[f"Squeeze-15 (allow_axis_skip) -> {'Squeeze-1' if squeezed else 'Reshape-1'}"] += 1
        return PassResult(graph, bool(stats), stats)

    def _skip_not_one(self, graph: Graph, builder: GraphBuilder, layer: Layer, stats: Counter[str]) -> None:
        """Rule 4, on a Squeeze-1 the target's defect hits (``layers``: its axes a Const, one of a static dim not
        1)."""
        keys = [graph.producer_key(layer.id, port) for port in layer.input_ids()]
        shape = builder.type_of(keys[0]).shape
        listed = _axes(graph, layer)
        if shape is None or listed is None or not all(-len(shape) <= a < len(shape) for a in listed):
            return
        kept = sorted({a % len(shape) for a in listed if not shape[a].is_static or shape[a].lo == 1})
        builder.replace_layer(layer, lambda: [_squeeze(builder, layer, keys[0], kept)],  # type: ignore[arg-type]
                              origin_text(layer, "Squeeze-1"))
        stats[f"Squeeze-1 (an axis not of 1) -> {'Squeeze-1' if kept else 'Reshape-1'}"] += 1


def _squeeze(builder: GraphBuilder, layer: Layer, data: Output, squeezed: list[int]) -> Output:
    name = layer.name
    if squeezed:
        axes = builder.const(np.array(squeezed, np.int64), f"{name}/axes")
        return output_of(builder.add("Squeeze", "opset1", None, [data, axes], name))
    rank = len(builder.type_of(data).shape or ())
    same = builder.const(np.zeros(rank, np.int64), f"{name}/same_shape")
    return output_of(builder.add("Reshape", "opset1", ReshapeAttrs(special_zero=True), [data, same], name))
