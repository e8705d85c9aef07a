"""BitwiseAnd/Or/Xor/Not-13 on booleans as LogicalAnd/Or/Xor/Not-1; BitwiseNot-13 on integers as a subtraction;
BitwiseAnd/Or/Xor-13 on 8-, 16- and 32-bit signed integers and 8- and 16-bit unsigned ones bit by bit."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dtypes import ELEMENT_TYPES
from ...ir.model import Graph, Layer
from ...ops.opsets import lookup
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, source
from .integer_wrap import wrapped

_LOGICAL = {"BitwiseAnd": "LogicalAnd", "BitwiseOr": "LogicalOr", "BitwiseXor": "LogicalXor",
            "BitwiseNot": "LogicalNot"}
#: The integer types BitwiseNot is rewritten on, and the constant c with ~x = c - x (two's complement: -1 - x;
#: unsigned: MAX - x; no result overflows). i8 goes through i32: OpenVINO CPU's saturating 8-bit Subtract gives
#: -1 - (-128) = 126. u32 and u64 are left: OpenVINO CPU computes them in i32, and MAX - x comes out wrong.
_NOT_AS_SUBTRACT = {"i8": -1, "i16": -1, "i32": -1, "i64": -1, "u8": 255, "u16": 65535}
#: The integer types BitwiseAnd/Or/Xor are rewritten on, per bit (rule 3).
_BITS = ("i8", "u8", "i16", "u16", "i32")
#: Why an integer type is left (measured on 2023.0, 2024.0, 2024.1 and 2025.0 against 2026.4): a release before 2025.4
#: holds no bits of these beyond i32's range, where the current OpenVINO computes them.
_LEFT = {
    "u32": "OpenVINO 2023.0 to 2025.3 take a u32 through i32, one of 2^31 or more read as 2147483647 before any op "
           "sees it (0 + 3000000000 gives 2147483647), so no form of older ops has its bits",
    "i64": "the current OpenVINO CPU computes it on the low 32 bits, sign-extended (-1 & (2^40 + 5) gives 5), where "
           "OpenVINO 2023.0 to 2025.3 hold an i64 beyond i32 saturated to i32 before any op sees it (2147483647)",
    "u64": "the current OpenVINO CPU computes it on the low 32 bits, sign-extended (0 | 2^31 gives 2^64 - 2^31), "
           "where OpenVINO 2023.0 to 2025.3 hold a u64 of 2^31 or more as 2147483647 before any op sees it",
}


#: The (op, element type) pairs 2023.2 to 2025.3 compute wrongly (``bitwise_unsigned_wrong``): BitwiseNot on u16, u32
#: and u64 gives 0, BitwiseAnd/Or/Xor on u32 are capped at 2^31-1.
_WRONG = {("BitwiseNot", "u16"), ("BitwiseNot", "u32"), ("BitwiseNot", "u64"), ("BitwiseAnd", "u32"),
          ("BitwiseOr", "u32"), ("BitwiseXor", "u32")}


def _unsigned(graph: Graph, layer: Layer) -> bool:
    """True if the bitwise ``layer`` is one of ``_WRONG``: its op on its input's element type."""
    return (lookup(layer.type, layer.version).type, declared_type(layer.inputs[0]).element) in _WRONG


def _boolean_not(graph: Graph, layer: Layer) -> bool:
    """True if the bitwise ``layer`` is BitwiseNot on booleans, which 2023.2 computes as True for every element
    (``bitwise_not_boolean_wrong``)."""
    return lookup(layer.type, layer.version).type == "BitwiseNot" and declared_type(
        layer.inputs[0]).element == "boolean"


class BitwiseTo1(Downgrade):
    """Bitwise ops of opset13 in opset1, exactly (docs/SEMANTICS.md):

    1. on boolean inputs, BitwiseAnd/Or/Xor/Not are LogicalAnd/Or/Xor/Not-1, with the same auto_broadcast but
       pdpd: OpenVINO 2023.0 reads the IR's pdpd axis wrongly (it refuses a layer the current OpenVINO reads), so
       pdpd with axis -1 (the second input aligned at the end) is spelled numpy, the same broadcast there, and any
       other pdpd axis (which the current OpenVINO CPU does not compile either) is left;
    2. BitwiseNot on i8..i64, u8 and u16 is ``c - x`` (Subtract-1 from a Const c, -1 or the type's maximum);
    3. BitwiseAnd/Or/Xor on i8, u8, i16, u16 and i32 (no older op works on bits) bit by bit, in f32 (every value
       below 2^16 in magnitude, so every step exact), the bits along a new last axis: each input as 16-bit digits
       ``[..., d, 1]`` (8- and 16-bit types: the value itself, d = 1; i32: its low 16 bits, ``integer_wrap.wrapped``
       into u16, and ``(x - low) * 2^-16``, d = 2), ``floor(digit * 2^-k)`` for k along the last axis (an
       arithmetic shift, so a signed digit gives its two's complement bits), then And/Or as Minimum/Maximum-1 of the
       bits (FloorMod-1 by 2) and Xor as FloorMod-1 of the shifted digits' sum by 2; the bits summed back by
       ReduceSum-1 with weights 2^k (-2^(w-1) for the top bit of a signed type), then Convert-1 to the type (in
       range), or for i32 the two digits' sums converted to i32 and added as ``low + high * 2^16`` (Gather-1,
       Multiply-1, Add-1: 2023.0 computes ReduceSum of i32 through f32, -1 as 128). numpy and none broadcasting are
       the inputs' (the new axes are last), pdpd at -1 is numpy's; dynamic dims alike. u32, i64 and u64
       are left (``_LEFT``, ``declines``: a release before 2025.4 holds none of their bits beyond i32's range), for
       ``retarget`` to refuse, and so is any other type, and pdpd at another axis (rule 1).

    For a target that computes BitwiseNot on u16, u32 and u64 as 0 and BitwiseAnd/Or/Xor on u32 capped at 2^31-1
    (measured: 2023.2 to 2025.3), those layers are taken too, though the target creates opset13: BitwiseNot on u16
    is rewritten by rule 2; the u32 and u64 ones have no exact form there (they read a u32 of 2^31 or more as
    2147483647, ``_LEFT``; ~x of a u64 below 2^63 is 2^63 or more, which they hold in no type) and are left, for
    ``retarget`` to refuse. For a target that computes BitwiseNot on booleans as True for every element (measured:
    2023.2; And/Or/Xor on booleans right), those are taken too and rewritten by rule 1 (LogicalNot-1).
    """

    rewrites = {f"{op}-13": f"into {logical}-1 on boolean inputs" + (
        " (on i8-i64, u8 and u16 into Subtract-1 from a constant)" if op == "BitwiseNot" else
        " (on i8, u8, i16, u16 and i32 bit by bit: Floor-1 and FloorMod-1 of the inputs scaled by powers of two, "
        "summed back by ReduceSum-1); pdpd broadcasting at axis -1 only")
        for op, logical in _LOGICAL.items()}
    repairs = {"bitwise_unsigned_wrong": _unsigned, "bitwise_not_boolean_wrong": _boolean_not}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        op, element = lookup(layer.type, layer.version).type, declared_type(layer.inputs[0]).element or ""
        if _pdpd(layer) and not _at_the_end(layer):
            return "pdpd broadcasting at an axis other than -1 is not rewritten (the current OpenVINO CPU does not " \
                   "compile it either)"
        if element == "boolean" or element in (_NOT_AS_SUBTRACT if op == "BitwiseNot" else _BITS):
            return None
        return _LEFT.get(element, f"no exact form on {element or 'an unknown element type'}")

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            op, element = lookup(layer.type, layer.version).type, declared_type(layer.inputs[0]).element
            build, into = (_logical, f"{_LOGICAL[op]}-1") if element == "boolean" else \
                (_not, "Subtract-1") if op == "BitwiseNot" else (_per_bit, "per-bit FloorMod-1 + ReduceSum-1")
            builder.replace_layer(layer, lambda: [build(builder, layer)], origin_text(layer, f"{op}-13"))  # noqa: B023
            stats[f"{op}-13 ({element}) -> {into}"] += 1
        return PassResult(graph, bool(stats), stats)


def _logical(builder: GraphBuilder, layer: Layer) -> Output:
    """Rule 1: the logical op, pdpd broadcasting spelled numpy."""
    attrs = dict(layer.attrs)
    if _pdpd(layer):
        attrs.pop("auto_broadcast.auto_broadcast_axis", None)
        attrs["auto_broadcast"] = "numpy"
    inputs = [source(builder.graph, layer, index) for index in range(len(layer.input_ids()))]
    return output_of(builder.add(_LOGICAL[lookup(layer.type, layer.version).type], "opset1", attrs, inputs,
                                 layer.name))


def _pdpd(layer: Layer) -> bool:
    return layer.attrs.get("auto_broadcast", "numpy").lower() == "pdpd"


def _at_the_end(layer: Layer) -> bool:
    """Whether pdpd's second input aligns with the first's last dims by axis -1."""
    return int(layer.attrs.get("auto_broadcast.auto_broadcast_axis", 0)) == -1


def _not(builder: GraphBuilder, layer: Layer) -> Output:
    """Rule 2: ``c - x``, in i32 for i8."""
    x, element = source(builder.graph, layer, 0), declared_type(layer.inputs[0]).element
    name, wide = layer.name, "i32" if element == "i8" else element
    if wide != element:
        x = output_of(builder.convert(x, wide, f"{name}/wide"))
    c = builder.const(np.array(_NOT_AS_SUBTRACT[element], ELEMENT_TYPES[wide].numpy), f"{name}/all_ones")
    y = output_of(builder.add("Subtract", "opset1", None, [c, x], f"{name}/not"))
    if wide != element:
        y = output_of(builder.convert(y, element, f"{name}/narrow"))
    return y


def _per_bit(builder: GraphBuilder, layer: Layer) -> Output:
    """Rule 3: the bits of each input along two new last axes (its 16-bit digits, their bits), combined bit by bit
    and summed back with their weights."""
    graph, name = builder.graph, layer.name
    op, element = lookup(layer.type, layer.version).type, declared_type(layer.inputs[0]).element
    bits = ELEMENT_TYPES[element].bits
    width, signed = min(bits, 16), element.startswith("i")

    def add(op_type: str, inputs: list[Output], suffix: str, attrs: dict[str, str] | None = None) -> Output:
        return output_of(builder.add(op_type, "opset1", attrs, inputs, f"{name}/{suffix}" if suffix else name,
                                     outputs=None if suffix else [declared_type(layer.outputs[0])]))

    def const(value: np.ndarray, suffix: str) -> Output:
        return builder.const(value, f"{name}/{suffix}")

    last_two = const(np.array([-2, -1], np.int64), "last_two")

    def digits(x: Output, part: str) -> Output:
        """``x`` in f32 as ``[..., digits, 1]``: itself (8 and 16 bits), or its low 16 bits and the rest (32)."""
        if bits <= 16:
            return add("Unsqueeze", [output_of(builder.convert(x, "f32", f"{name}/{part}_f32")), last_two],
                       f"{part}_digits")
        low = output_of(builder.convert(wrapped(builder, x, "u16", f"{name}/{part}_low_u16"), "i32",
                                        f"{name}/{part}_low"))
        high = add("Multiply", [output_of(builder.convert(add("Subtract", [x, low], f"{part}_high_part"), "f32",
                                                          f"{name}/{part}_high_f32")),
                                const(np.array(2.0 ** -16, np.float32), f"{part}_scale")], f"{part}_high")
        halves = [add("Unsqueeze", [value, last_two], f"{part}_{half}_digit")
                  for half, value in (("low", output_of(builder.convert(low, "f32", f"{name}/{part}_low_f32"))),
                                      ("high", high))]
        return add("Concat", halves, f"{part}_digits", {"axis": "-2"})

    def shifted(x: Output, part: str) -> Output:
        """``floor(digit / 2^k)``, k along the last axis (an arithmetic shift: two's complement for a signed one)."""
        powers = np.ldexp(np.float32(1), -np.arange(width)).astype(np.float32)
        return add("Floor", [add("Multiply", [digits(x, part), const(powers, f"{part}_powers")], f"{part}_scaled")],
                   f"{part}_shifted")

    two = const(np.array(2.0, np.float32), "two")
    first, second = (shifted(source(graph, layer, index), part) for index, part in enumerate(("a", "b")))
    if op == "BitwiseXor":
        combined = add("FloorMod", [add("Add", [first, second], "shifted_sum"), two], "bits")
    else:
        combined = add("Minimum" if op == "BitwiseAnd" else "Maximum",
                       [add("FloorMod", [first, two], "a_bits"), add("FloorMod", [second, two], "b_bits")], "bits")
    weights = np.tile(np.ldexp(np.float32(1), np.arange(width)), (bits // width, 1)).astype(np.float32)
    if signed:
        weights[-1, -1] = -weights[-1, -1]
    weighted = add("Multiply", [combined, const(weights, "weights")], "weighted")
    if bits <= 16:
        total = add("ReduceSum", [weighted, last_two], "total", {"keep_dims": "false"})
        return output_of(builder.convert(total, element, name, outputs=[declared_type(layer.outputs[0])]))
    sums = add("ReduceSum", [weighted, const(np.array([-1], np.int64), "last")], "digit_sums",
               {"keep_dims": "false"})
    placed = add("Multiply", [output_of(builder.convert(sums, "i32", f"{name}/digit_sums_i32")),
                              const(np.array([1, 2**16], np.int32), "places")], "placed")
    low, high = (add("Gather", [placed, const(np.array(index, np.int64), f"{half}_index"),
                                const(np.array(-1, np.int64), f"{half}_axis")], half)
                 for index, half in enumerate(("low", "high")))
    return add("Add", [low, high], "")
