"""The current OpenVINO's Convert-1 between integer types (it wraps: i32 300 into u8 is 44) built from ops a release
that saturates instead (``integer_convert_saturates``) computes exactly, and the Converts no release can compute
otherwise (by the values their input provably holds, ``integer_bounds``)."""

from __future__ import annotations

import numpy as np

from ...base.dtypes import INTEGER_TYPES, element_type
from ...ir.model import Graph
from ..builder import GraphBuilder, Output, output_of
from .integer_bounds import integer_bounds

#: The destinations the wrap is built for: every value of them is a small i32 (2024.0's CPU holds no u32 or u64 of
#: 2^31 or more: a u64 Const of 2^63 selected comes out 0, a u64 input of 2^32 plus 0 comes out 2147483647).
_WRAPPED = frozenset({"i8", "u8", "i16", "u16"})


#: The sources the wrap is not built from: a saturating release holds none of their values of 2^31 or more (it reads
#: a u32 of 4000000000 as 2147483647 before any op sees it; measured on 2024.0: u64 2^31 + 5 into u8 through i32
#: gives 255 where the current OpenVINO gives 5; found by a QA run).
_UNHELD = frozenset({"u32", "u64"})


def wraps_exactly(pair: str) -> bool:
    """Whether ``wrapped`` builds the conversion ``pair`` ("i32->u8") exactly on every release: a destination of
    ``_WRAPPED`` and a source other than u32 and u64 (``_UNHELD``; i64 within i32, as the table measures it)."""
    source, destination = pair.split("->")
    return destination in _WRAPPED and source not in _UNHELD


def wrapped(builder: GraphBuilder, x: Output, destination: str, name: str) -> Output:
    """``x`` (an integer type, ``wraps_exactly`` into ``destination``) converted as the current OpenVINO does: x
    modulo 2^bits read in the destination's signedness. In i32 (every release computes a Convert of a value in the
    destination's range alike): x less a multiple of 2^bits near it, k * 2^(bits-1) twice, k = floor(x / 2^bits)
    in f32 (exact to 64 for |x| < 2^31, so the rest is below 2^24), for sources wider than 16 bits; then
    FloorMod by 2^bits (which every release computes through f32: exact below 2^24 only), for a signed destination
    of x + 2^(bits-1), less 2^(bits-1); then the Convert, now in range. Measured exact on 2023.0, 2023.1, 2023.3,
    2024.0, 2024.3, 2025.0, 2025.3 and 2026.4 over 4038 i32 values (limits, near 2^24 and 2^31, seeded), and,
    migrated, on each of 2023.0 to 2025.3 for every pair it builds (tests/downgrade/test_integer_convert.py)."""
    bits = element_type(destination).bits
    wide = element_type(builder.type_of(x).element).bits > 16

    def add(op: str, inputs: list[Output], suffix: str) -> Output:
        return output_of(builder.add(op, "opset1", None, inputs, f"{name}/{suffix}"))

    def convert(y: Output, element: str, suffix: str) -> Output:
        return output_of(builder.convert(y, element, f"{name}/{suffix}"))

    def const(value: int | float, dtype: type, suffix: str) -> Output:
        return builder.const(np.array(value, dtype), f"{name}/{suffix}")

    if builder.type_of(x).element != "i32":
        x = convert(x, "i32", "i32")
    if wide:
        k = add("Floor", [add("Multiply", [convert(x, "f32", "f32"), const(2.0 ** -bits, np.float32, "scale")],
                              "scaled")], "k")
        half = convert(add("Multiply", [k, const(2.0 ** (bits - 1), np.float32, "step")], "half_f32"), "i32", "half")
        x = add("Subtract", [add("Subtract", [x, half], "less_half"), half], "near")
    signed = destination.startswith("i")
    if signed:
        x = add("Add", [x, const(2 ** (bits - 1), np.int32, "shift")], "shifted")
    y = add("FloorMod", [x, const(2 ** bits, np.int32, "modulus")], "mod")
    if signed:
        y = add("Subtract", [y, const(2 ** (bits - 1), np.int32, "unshift")], "signed")
    return output_of(builder.convert(y, destination, name))


def converted_alike(graph: Graph, out: Output, destination: str) -> bool:
    """Whether every release converts what ``out`` carries into ``destination`` alike: each value
    (``integer_bounds``) is one of the integer type ``destination`` and of i32 (through which a saturating release
    reads u32: 4000000000 into u32 or i64 gives 2147483647)."""
    found = integer_bounds(graph, out)
    if found is None or destination not in INTEGER_TYPES:
        return False
    low, high = np.iinfo(element_type(destination).numpy), np.iinfo(np.int32)
    return max(low.min, high.min) <= found[0] and found[1] <= min(low.max, high.max)
