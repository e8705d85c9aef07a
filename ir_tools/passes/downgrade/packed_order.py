"""u4, i4 and u2 weights repacked for a release that reads the values of a byte in the other order."""

from __future__ import annotations

from collections import Counter

from ...base.dtypes import element_type
from ...ir.model import Graph
from ..base import PassResult
from .base import Downgrade


class PackedOrder(Downgrade):
    """The current OpenVINO writes the first of the values packed in a byte in its low bits; some releases read the
    values of a byte the other way round (``ops/releases.REVERSED_IN_BYTE_BEFORE``: u4 and i4 before 2023.2, u2 in
    2025.0 to 2025.2), so NNCF's int4 weights (a Const of u4 or i4 and its zero point) would load there and compute
    other numbers. For such a target each of those Consts gets the order of the values in each byte reversed: the
    values that release reads are the ones written. Other targets, and no target, are left as they are."""

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        if self.target is None:
            return PassResult(graph, False, stats)
        for layer in graph.by_type("Const"):
            element = layer.attrs.get("element_type", "").lower()
            if self.target.reads_reversed_in_byte(element):
                bits = element_type(element).bits  # type: ignore[union-attr]
                layer.data = bytes(graph.const_bytes(layer)).translate(_REVERSED[bits])
                graph.touch(layer.id)
                stats[f"{element} Const repacked, the values of each byte in reverse order"] += 1
        return PassResult(graph, bool(stats), stats)


def _reversed_bytes(bits: int) -> bytes:
    """The byte each byte (its index) becomes with its ``8 // bits`` values of ``bits`` bits in reverse order."""
    n, mask = 8 // bits, (1 << bits) - 1
    return bytes(sum(((b >> (bits * i)) & mask) << (bits * (n - 1 - i)) for i in range(n)) for b in range(256))


#: Per width of the values packed in a byte (u4 and i4, u2): each byte reversed, for ``bytes.translate``.
_REVERSED = {bits: _reversed_bytes(bits) for bits in (4, 2)}
