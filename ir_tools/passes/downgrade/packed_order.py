"""u4, i4 and u2 weights repacked for a release that reads the values of a byte in the other order."""

from __future__ import annotations

from collections import Counter

import numpy as np

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
                layer.data = _reversed(np.frombuffer(graph.const_bytes(layer), np.uint8), bits).tobytes()
                graph.touch(layer.id)
                stats[f"{element} Const repacked, the values of each byte in reverse order"] += 1
        return PassResult(graph, bool(stats), stats)


#: Per width w of the groups swapped: the mask of the low group of each pair of groups of w bits in a byte.
_LOW_GROUPS = {2: np.uint8(0x33), 1: np.uint8(0x55)}


def _reversed(packed: np.ndarray, bits: int) -> np.ndarray:
    """Each byte with its ``8 // bits`` values of ``bits`` bits in reverse order: its two halves swapped, then the two
    halves of each half, down to groups of ``bits`` bits (a byte's own halves need no mask: the shifts drop what falls
    out): three passes over a u4 weight, not a pass per value and operation."""
    out = packed
    for width in (4, 2, 1)[:(4 // bits).bit_length()]:
        mask = _LOW_GROUPS.get(width)
        up = np.left_shift(out if mask is None else out & mask, width)
        down = np.right_shift(out, width)
        if mask is not None:
            down &= mask
        up |= down
        out = up
    return out
