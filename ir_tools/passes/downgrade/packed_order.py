"""u4, i4 and u2 weights repacked for a release that reads the values of a byte in the other order."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import cache

import numpy as np

from ...base.dtypes import element_type
from ...ir.model import Graph, Layer
from ...ops.releases import REVERSED_IN_BYTE_BEFORE
from ..base import PassResult
from ..builder import origin_of, with_origin, without_origin
from .base import Downgrade


class PackedOrder(Downgrade):
    """The current OpenVINO writes the first of the values packed in a byte in its low bits; some releases read the
    values of a byte the other way round (``ops/releases.REVERSED_IN_BYTE_BEFORE``: u4 and i4 before 2023.2, u2 in
    2025.0 to 2025.2), so NNCF's int4 weights (a Const of u4 or i4 and its zero point) would load there and compute
    other numbers. For such a target each of those Consts gets the order of the values in each byte reversed: the
    values that release reads are the ones written. Other targets, and no target, are left as they are. A repacked
    Const says so in its rt_info (``ir_tools_origin``, ``REPACKED``): nothing else tells its bytes from the current
    order's, and ``check --target`` tells each release whether it reads the values written; migrated for a release
    that reads the current order, such a Const is packed back."""

    repairs_weights = "repacks the values of each byte"

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer, element in self._read_otherwise(graph):
            bits = element_type(element).bits  # type: ignore[union-attr]
            layer.data = _reversed_in_byte(graph.const_bytes(layer), bits)
            layer.rt_info = without_origin(layer.rt_info) if _repacked(layer) else with_origin(layer.rt_info, REPACKED)
            graph.touch(layer.id)
            stats[f"{element} Const repacked, the values of each byte in reverse order"] += 1
        return PassResult(graph, bool(stats), stats)

    def unrepaired(self, graph: Graph) -> Iterator[tuple[Layer, str]]:
        for layer, element in self._read_otherwise(graph):
            yield layer, (f"reads the values of a {element} Const packed in a byte in the reverse order of this file's "
                          "(measured): it loads other weights" if not _repacked(layer) else
                          f"reads this {element} Const as written, and its values were repacked for a release that "
                          "reads them in reverse order (its rt_info says so): it loads other weights")

    def _read_otherwise(self, graph: Graph) -> Iterator[tuple[Layer, str]]:
        """The packed Consts ``target`` reads in another order than their bytes hold (repacked or not), with their
        element types (not one it cannot read at all: ``target_diagnostics`` says that)."""
        if self.target is None:
            return
        for layer in graph.by_type("Const"):
            element = layer.attrs.get("element_type", "").lower()
            if element in REVERSED_IN_BYTE_BEFORE and self.target.reads_reversed_in_byte(element) != _repacked(
                    layer) and self.target.refuses_element_type(element) is None:
                yield layer, element


#: The ``ir_tools_origin`` of a Const whose packed values ``PackedOrder`` reversed in each byte.
REPACKED = "the values of each byte repacked in reverse order, for a release that reads them so"


def _repacked(layer: Layer) -> bool:
    """Whether the Const's rt_info says its values were repacked (``REPACKED``)."""
    return origin_of(layer.rt_info) == REPACKED


#: Bytes ``_reversed_in_byte`` takes at once: its arrays stay in the CPU's cache (about three times as fast as whole).
_CHUNK = 1 << 18
#: Payloads shorter than this (NNCF's zero points, a small model's weights) are repacked through ``_byte_table``, a
#: byte at a time: below it that is faster than numpy's word-wide ops, whose fixed cost per call dominates.
_SMALL = 1 << 16


def _reversed_in_byte(payload: memoryview, bits: int) -> memoryview:
    """``payload`` with the ``8 // bits`` values of ``bits`` bits in each byte in reverse order, read-only: a payload
    of less than ``_SMALL`` bytes through ``_byte_table``; weights of tens of MB in numpy, eight bytes at a time as
    uint64 words, in chunks of ``_CHUNK``, into the one copy kept, the bytes past the last whole word through the
    table."""
    table = _byte_table(bits)
    if len(payload) < _SMALL:
        return memoryview(bytes(payload).translate(table))
    x = np.frombuffer(payload, np.uint8)
    out = np.empty_like(x)
    whole = len(x) - len(x) % 8
    words, done = x[:whole].view(np.uint64), out[:whole].view(np.uint64)
    step = _CHUNK // 8
    spare = np.empty(min(step, len(words)), np.uint64)
    for start in range(0, len(words), step):
        part = words[start:start + step]
        _reverse_values(part, done[start:start + step], spare[:len(part)], bits)
    out[whole:] = np.frombuffer(x[whole:].tobytes().translate(table), np.uint8)
    out.flags.writeable = False
    return memoryview(out)


@cache
def _byte_table(bits: int) -> bytes:
    """Each byte with its ``8 // bits`` values of ``bits`` bits in reverse order, at its own index (a
    ``bytes.translate`` table)."""
    n, mask = 8 // bits, (1 << bits) - 1
    return bytes(sum(((byte >> (bits * i)) & mask) << (bits * (n - 1 - i)) for i in range(n)) for byte in range(256))


def _reverse_values(x: np.ndarray, out: np.ndarray, spare: np.ndarray, bits: int) -> None:
    """``out`` = ``x`` (unsigned words: each byte on its own) with the values of ``bits`` bits in each byte in reverse
    order: each value shifted to its mirrored place and masked there, in every byte of the word (the mask also drops
    what a shift carries into the next byte). ``spare``: scratch of ``x``'s size."""
    n, word = 8 // bits, x.dtype.type
    every_byte = sum(1 << (8 * k) for k in range(x.itemsize))
    for i in range(n):
        shift = bits * (n - 1 - 2 * i)
        moved = out if i == 0 else spare
        if shift >= 0:
            np.left_shift(x, word(shift), out=moved)
        else:
            np.right_shift(x, word(-shift), out=moved)
        moved &= word((((1 << bits) - 1) << (bits * (n - 1 - i))) * every_byte)
        if i:
            out |= spare
