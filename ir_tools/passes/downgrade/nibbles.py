"""u4 and i4 weights repacked for a release that reads the other nibble of a byte first."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...ir.model import Graph
from ..base import PassResult
from .base import Downgrade

#: The element types packed two to a byte whose order changed in 2023.2 (``ops/releases.LOW_NIBBLE_FIRST_FROM``).
NIBBLE_TYPES = ("u4", "i4")


class NibbleOrder(Downgrade):
    """The current OpenVINO writes the first of two u4 or i4 values of a byte in its low nibble; releases before 2023.2
    read it from the high one, so NNCF's int4 weights (a Const of u4 or i4 and its zero point) would load there and
    compute other numbers. For such a target every u4 and i4 Const gets its two nibbles swapped: the values that
    release reads are the ones written. Other targets, and no target, are left as they are."""

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        if self.target is None or not self.target.reads_high_nibble_first:
            return PassResult(graph, False, stats)
        for layer in graph.by_type("Const"):
            element = layer.attrs.get("element_type", "").lower()
            if element in NIBBLE_TYPES:
                packed = np.frombuffer(graph.const_bytes(layer), np.uint8)
                layer.data = ((packed & 0x0F) << 4 | packed >> 4).astype(np.uint8).tobytes()
                stats[f"{element} Const repacked high nibble first"] += 1
        return PassResult(graph, bool(stats), stats)
