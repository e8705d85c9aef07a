"""``PackedOrder``'s repacking kernel against a value-by-value reference: seeded payloads of every length up to a few
words, around the length from which it repacks in numpy and around its chunk size, at odd offsets (unaligned words),
for 1, 2 and 4 bits. No OpenVINO: the repacked files are run on 2023.0 and 2025.0 by test_packed_order."""

from __future__ import annotations

import numpy as np
import pytest

from ir_tools.passes.downgrade.packed_order import _CHUNK, _SMALL, _reversed_in_byte


def reference(payload: bytes, bits: int) -> bytes:
    """Each byte's ``8 // bits`` values, the first in the low bits, written back last first."""
    data = np.frombuffer(payload, np.uint8).astype(np.int64)
    n, mask = 8 // bits, (1 << bits) - 1
    values = [(data >> (bits * k)) & mask for k in range(n)]
    return sum(value << (bits * (n - 1 - k)) for k, value in enumerate(values)).astype(np.uint8).tobytes()


@pytest.mark.parametrize("bits", [1, 2, 4])
def test_reversed_in_byte_is_the_reference(bits: int) -> None:
    rng = np.random.default_rng(bits)
    lengths = [*range(41), _SMALL - 1, _SMALL, _SMALL + 1, _SMALL + 7, _CHUNK - 1, _CHUNK, _CHUNK + 1, 3 * _CHUNK + 13]
    for length in lengths:
        for offset in (0, 1, 5):
            payload = memoryview(rng.integers(0, 256, length + offset, dtype=np.uint8).tobytes())[offset:]
            assert bytes(_reversed_in_byte(payload, bits)) == reference(bytes(payload), bits), (length, offset)
            assert bytes(_reversed_in_byte(_reversed_in_byte(payload, bits), bits)) == bytes(payload)
