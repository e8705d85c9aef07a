"""A Const of an element type a release cannot read (u2, u3, u6, f8e4m3, f8e5m2, f4e2m1) written as one of a wider
type that holds each of its values, where Converts alone read it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from ...base.dtypes import element_type
from ...ir.model import Graph, Layer
from ...ops.releases import Release
from ..base import PassResult
from ..builder import GraphBuilder, origin_text
from ..shapes import declared_type
from .base import Downgrade

#: Each element type with the readable one that holds every value of it exactly (u8: 0 to 63; f16: every f8e4m3,
#: f8e5m2 and f4e2m1 value, NaN, infinities and -0.0 included).
HOLDERS = {"u2": "u8", "u3": "u8", "u6": "u8", "f8e4m3": "f16", "f8e5m2": "f16", "f4e2m1": "f16"}

#: The Convert-1 destinations each holder converts as the narrow type does: an integer of 0 to 63 into any integer or
#: float type; a float exactly into f32 only (into f16 an f16 Const read by a Convert to f16 is a decompression that
#: a release before 2024.1 may fold otherwise, ``F32_DECOMPRESSION_FROM``).
_INTO = {"u8": frozenset({"u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f16", "bf16", "f32", "f64"}),
         "f16": frozenset({"f32"})}


def widened(graph: Graph, layer: Layer, target: Release) -> str | None:
    """The type ``WiderConst`` writes the Const ``layer`` in for ``target``: ``HOLDERS``' for an element type the
    target cannot read, where every consumer is a Convert-1 into a type of ``_INTO``; else None."""
    element = layer.attrs.get("element_type", "").lower()
    holder = HOLDERS.get(element)
    if holder is None or target.refuses_element_type(element) is None:
        return None
    readers = [graph.layer(edge.to_layer) for edge in graph.out_edges(layer.id)]
    if not readers or not all(reader.is_a("Convert") and reader.version == "opset1"
                              and declared_type(reader.outputs[0]).element in _INTO[holder] for reader in readers):
        return None
    return holder


class WiderConst(Downgrade):
    """For a target that cannot read a Const's element type (``Release.refuses_element_type``: f8e4m3 and f8e5m2
    before 2024.0, u2, u3 and u6 before 2024.1, f4e2m1 before 2024.3), the Const written in ``HOLDERS``' type with the
    same values, where it is read by Convert-1 layers alone (a compressed model's weights) into a type that converts
    each of them as from the narrow type (``widened``): the Converts compute the same numbers. Others are left, for
    ``retarget`` to refuse (``target_diagnostics``)."""

    repairs_weights = "writes it in a wider type holding each of its values (u8, or f16 read by a Convert to f32)"

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer, holder in self._widened(graph):
            element = layer.attrs.get("element_type", "").lower()
            values = graph.const_array(layer).astype(element_type(holder).numpy)
            builder.replace_layer(layer, lambda: [builder.const(values, layer.name)],  # noqa: B023
                                  origin_text(layer, f"a Const of {element}"))
            stats[f"{element} Const -> {holder} Const"] += 1
        return PassResult(graph, bool(stats), stats)

    def unrepaired(self, graph: Graph) -> Iterator[tuple[Layer, str]]:
        assert self.target is not None  # (``_widened`` yields none without one)
        for layer, _ in self._widened(graph):
            element = layer.attrs.get("element_type", "").lower()
            yield layer, (f"cannot read element type {element} (its reader refuses the file: 'Incorrect type'); the "
                          f"oldest release measured to read it is {self.target.refuses_element_type(element)}")

    def _widened(self, graph: Graph) -> Iterator[tuple[Layer, str]]:
        """The Consts ``widened`` writes in a wider type, with it (none without a target)."""
        if self.target is None:
            return
        for layer in list(graph.by_type("Const")):
            if layer.attrs.get("element_type", "").lower() not in HOLDERS:
                continue  # (most Consts: told without a call)
            holder = widened(graph, layer, self.target)
            if holder is not None:
                yield layer, holder
