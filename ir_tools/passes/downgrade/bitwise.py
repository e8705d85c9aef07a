"""BitwiseAnd/Or/Xor/Not-13 on booleans as LogicalAnd/Or/Xor/Not-1; BitwiseNot-13 on integers as a subtraction."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dtypes import ELEMENT_TYPES
from ...ir.model import Graph, Layer
from ...ops.opsets import lookup
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade

_LOGICAL = {"BitwiseAnd": "LogicalAnd", "BitwiseOr": "LogicalOr", "BitwiseXor": "LogicalXor",
            "BitwiseNot": "LogicalNot"}
#: The integer types BitwiseNot is rewritten on, and the constant c with ~x = c - x (two's complement: -1 - x;
#: unsigned: MAX - x; no result overflows). i8 goes through i32: OpenVINO CPU's saturating 8-bit Subtract gives
#: -1 - (-128) = 126. u32 and u64 are left: OpenVINO CPU computes them in i32, and MAX - x comes out wrong.
_NOT_AS_SUBTRACT = {"i8": -1, "i16": -1, "i32": -1, "i64": -1, "u8": 255, "u16": 65535}


#: The (op, element type) pairs 2023.2 to 2025.3 compute wrongly (``bitwise_unsigned_wrong``): BitwiseNot on u16, u32
#: and u64 gives 0, BitwiseAnd/Or/Xor on u32 are capped at 2^31-1.
_WRONG = {("BitwiseNot", "u16"), ("BitwiseNot", "u32"), ("BitwiseNot", "u64"), ("BitwiseAnd", "u32"),
          ("BitwiseOr", "u32"), ("BitwiseXor", "u32")}


def _unsigned(graph: Graph, layer: Layer) -> bool:
    """True if the bitwise ``layer`` is one of ``_WRONG``: its op on its input's element type."""
    return (lookup(layer.type, layer.version).type, declared_type(layer.inputs[0]).element) in _WRONG


class BitwiseTo1(Downgrade):
    """Bitwise ops of opset13 in opset1, exactly (docs/SEMANTICS.md):

    1. on boolean inputs, BitwiseAnd/Or/Xor/Not are LogicalAnd/Or/Xor/Not-1, with the same auto_broadcast but
       pdpd: OpenVINO 2023.0 reads the IR's pdpd axis wrongly (it refuses a layer the current OpenVINO reads), so
       pdpd with axis -1 (the second input aligned at the end) is spelled numpy, the same broadcast there, and any
       other pdpd axis (which the current OpenVINO CPU does not compile either) is left;
    2. BitwiseNot on i8..i64, u8 and u16 is ``c - x`` (Subtract-1 from a Const c, -1 or the type's maximum);
    3. any other (And/Or/Xor on integers: no older op works on bits, and a decomposition into per-bit arithmetic
       is exact on OpenVINO CPU only for 8- and 16-bit types, which it computes through f32) is left, for
       ``retarget`` to refuse.

    For a target that computes BitwiseNot on u16, u32 and u64 as 0 and BitwiseAnd/Or/Xor on u32 capped at 2^31-1
    (measured: 2023.2 to 2025.3), those layers are taken too, though the target creates opset13: BitwiseNot on u16
    is rewritten by rule 2; the u32 and u64 ones have no exact form there (2024.0 and 2025.0 CPU compute ``MAX - x``
    on u32 wrongly, through i64 too: 4294967295 - 0 gives 2147483647; ~x of a u64 below 2^63 is 2^63 or more, which
    they hold in no type) and are left, for ``retarget`` to refuse.
    """

    rewrites = {f"{op}-13": f"into {logical}-1 on boolean inputs" + (
        " (on i8-i64, u8 and u16 into Subtract-1 from a constant)" if op == "BitwiseNot" else "")
        for op, logical in _LOGICAL.items()}
    repairs = {"bitwise_unsigned_wrong": _unsigned}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            op = lookup(layer.type, layer.version).type
            label = f"{op}-13"
            element = declared_type(layer.inputs[0]).element
            inputs = [graph.producer_key(layer.id, port) for port in layer.input_ids()]
            if element == "boolean" and not (_pdpd(layer) and not _at_the_end(layer)):
                logical = _LOGICAL[op]
                builder.replace_layer(layer, lambda: [_logical(builder, layer, logical, inputs)],  # noqa: B023
                                      origin_text(layer, label))
                stats[f"{label} (boolean) -> {logical}-1"] += 1
            elif op == "BitwiseNot" and element in _NOT_AS_SUBTRACT:
                builder.replace_layer(layer, lambda: [_not(builder, layer, inputs[0], element)],  # noqa: B023
                                      origin_text(layer, label))
                stats[f"{label} ({element}) -> Subtract-1"] += 1
        return PassResult(graph, bool(stats), stats)


def _logical(builder: GraphBuilder, layer: Layer, logical: str, inputs: list[Output]) -> Output:
    """Rule 1: the logical op, pdpd broadcasting spelled numpy."""
    attrs = dict(layer.attrs)
    if _pdpd(layer):
        attrs.pop("auto_broadcast.auto_broadcast_axis", None)
        attrs["auto_broadcast"] = "numpy"
    return output_of(builder.add(logical, "opset1", attrs, inputs, layer.name))


def _pdpd(layer: Layer) -> bool:
    return layer.attrs.get("auto_broadcast", "numpy").lower() == "pdpd"


def _at_the_end(layer: Layer) -> bool:
    """Whether pdpd's second input aligns with the first's last dims by axis -1."""
    return int(layer.attrs.get("auto_broadcast.auto_broadcast_axis", 0)) == -1


def _not(builder: GraphBuilder, layer: Layer, x: Output, element: str) -> Output:
    """Rule 2: ``c - x``, in i32 for i8."""
    name, wide = layer.name, "i32" if element == "i8" else element
    if wide != element:
        x = output_of(builder.convert(x, wide, f"{name}/wide"))
    c = builder.const(np.array(_NOT_AS_SUBTRACT[element], ELEMENT_TYPES[wide].numpy), f"{name}/all_ones")
    y = output_of(builder.add("Subtract", "opset1", None, [c, x], f"{name}/not"))
    if wide != element:
        y = output_of(builder.convert(y, element, f"{name}/narrow"))
    return y
