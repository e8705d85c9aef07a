"""BitwiseLeftShift-15 and BitwiseRightShift-15 (releases before 2024.2 have no opset15) as opset1 arithmetic on the
types where it is exact, measured on OpenVINO CPU (2026.4 the original; 2023.0, 2024.0, 2024.1 and 2026.4 the
rewrite).

What the current OpenVINO CPU computes (measured on 2026.4, docs/SEMANTICS.md): every type through i32, the shift
amount taken modulo 32 (x86: a negative amount, or one of the type's width or more, is not refused nor zero:
i8 1 << -1 is 1 << 31, truncated: 0; i32 x << 32 is x; i8 -128 >> 100 is -128 >> 4 = -8), the result truncated to
the type (i8 40 << 4 is -128). So on i8, u8, i16 and u16: ``y = wrap_T(x << (s & 31))``, ``y = x >> (s & 31)``
(arithmetic); on i32: the same in i32. u32 >> is arithmetic (3653403231 >> 1 gives 3974185263); i64 and u64 are
shifted as their low 32 bits, sign-extended (i64 2^32 << 0 gives 0), where 2023.0 and 2024.0 hold an i64 or u64
saturated to i32 (2^40 + 0 gives 2147483647; the current OpenVINO: 0)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dtypes import element_type
from ...ir.model import Graph, Layer
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, source
from .integer_wrap import wrapped

_OPS = {"BitwiseLeftShift": "left", "BitwiseRightShift": "right"}
#: The types rewritten through f32 (every value, and every product by 2^k below 2^47, exact in f32).
_NARROW = ("i8", "u8", "i16", "u16")
#: Why a type is left, per op (measured on 2026.4 for the original, on 2023.0, 2024.0 and 2026.4 for the candidates).
_LEFT = {
    "u32": "OpenVINO 2023.0 and 2024.0 read a u32 of 2^31 or more as 2147483647 before any op sees it (and the "
           "current OpenVINO CPU shifts u32 right arithmetically in i32: 3653403231 >> 1 gives 3974185263)",
    "i64": "the current OpenVINO CPU shifts the low 32 bits of an i64, sign-extended, which no exact form of older "
           "ops reproduces on a release that holds i64 saturated to i32",
    "u64": "the current OpenVINO CPU shifts the low 32 bits of a u64, sign-extended, which no exact form of older "
           "ops reproduces on a release that holds u64 saturated to i32",
}


def _element(layer: Layer) -> str:
    return declared_type(layer.inputs[0]).element or ""


def _left_16_bit(graph: Graph, layer: Layer) -> bool:
    """True for a BitwiseLeftShift-15 of i16 or u16, which 2024.4 to 2025.3 compute saturating where the current
    OpenVINO wraps (``left_shift_16_bit_saturates``)."""
    return layer.type.lower() == "bitwiseleftshift" and _element(layer) in ("i16", "u16")


class BitwiseShiftTo1(Downgrade):
    """BitwiseLeftShift/RightShift-15 as the current OpenVINO CPU computes them (the module's docstring), exactly:

    1. on i8, u8, i16 and u16, in f32: the input converted (Convert-1), multiplied by a factor taken by Gather-1 from
       a Const table indexed by the shift amount (Convert-1 to i32, plus 2^(bits-1) for a signed type, so that every
       value of the type is an index): for >>, ``2^-(s & 31)``, then Floor-1 (``floor(x / 2^k)`` is the arithmetic
       shift); for <<, ``2^(s & 31)`` where it is below 2^bits else 0, then the product wrapped to the type by
       ``p - floor((p + 2^(bits-1)) / 2^bits) * 2^bits`` (no offset for an unsigned type; every step exact in f32:
       |p| < 2^31 with at most 17 significant bits); Convert-1 back to the type, in range;
    2. << on i32: Multiply-1 in i32 (which wraps, measured on 2023.0, 2024.0 and 2026.4) by ``2^(s & 31)`` (2^31 as
       -2^31) taken by Gather-1 from a table of 256 indexed by ``s`` modulo 256 (``integer_wrap.wrapped`` into u8);
    3. >> on i32: not by Divide-1 (m_pythondiv), which 2023.0, 2024.0 and 2026.4 compute on i32 through f32 (11251 of
       20007 seeded floor divisions by 2^k wrong), but from the halves of x: ``low = x mod 2^16``
       (``integer_wrap.wrapped`` into u16), ``high = (x - low) * 2^-16`` (Subtract-1 in i32, a multiple of 2^16:
       exact in f32), and ``floor(high * 2^(16-k)) + floor(low * 2^-k)`` (each exact in f32, converted to i32 and
       added there), the factors taken by Gather-1 as in rule 2;
    4. the rest is left (``declines``, with the measured reason): u32, i64 and u64, and pdpd broadcasting.

    For a target that creates the ops but shifts i16 and u16 left saturating (``left_shift_16_bit_saturates``,
    measured: 2024.4 to 2025.3: 32767 << 1 gives 32767, not -2), such a layer is rewritten too (rule 1, which they
    compute as the current OpenVINO computes the op: 60000 seeded pairs a type).
    """

    rewrites = {
        "BitwiseLeftShift-15": "into Convert-1, Gather-1 of a table of powers of two, Multiply-1, Floor-1 and "
                               "Subtract-1 on i8, u8, i16 and u16 (on i32 into Multiply-1 by a power of two)",
        "BitwiseRightShift-15": "into Convert-1, Gather-1 of a table of powers of two, Multiply-1 and Floor-1 on i8, "
                                "u8, i16, u16 and i32 (its halves shifted apart)",
    }
    repairs = {"left_shift_16_bit_saturates": _left_16_bit}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        element = _element(layer)
        if layer.attrs.get("auto_broadcast", "numpy").lower() not in ("numpy", "none"):
            return "pdpd broadcasting is not rewritten"
        if element in _NARROW or element == "i32":
            return None
        return _LEFT.get(element, f"no exact form on {element or 'an unknown element type'}")

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            label, element = f"{layer.type}-15", _element(layer)
            build = _shift_narrow if element in _NARROW else _shift_left_i32 if _OPS[layer.type] == "left" \
                else _shift_right_i32
            builder.replace_layer(layer, lambda: [build(builder, layer)], origin_text(layer, label))  # noqa: B023
            stats[f"{label} ({element}) -> " + ("Multiply-1" if build is _shift_left_i32 else "Multiply-1 + Floor-1")] \
                += 1
        return PassResult(graph, bool(stats), stats)


def table(element: str, op: str) -> np.ndarray:
    """Rule 1's f32 factors, entry j for the shift amount ``j - 2^(bits-1)`` (signed) or ``j`` (unsigned)."""
    info = np.iinfo(element_type(element).numpy)
    k = np.arange(int(info.min), int(info.max) + 1, dtype=np.int64) & 31
    if op == "right":
        return np.ldexp(np.float32(1), -k).astype(np.float32)
    return np.where(k < info.bits, np.ldexp(np.float32(1), np.minimum(k, 31)), 0).astype(np.float32)


def _shift_narrow(builder: GraphBuilder, layer: Layer) -> Output:
    """Rule 1."""
    graph, name, element, op = builder.graph, layer.name, _element(layer), _OPS[layer.type]
    info = np.iinfo(element_type(element).numpy)
    signed, bits = info.min < 0, info.bits

    def add(op_type: str, inputs: list[Output], suffix: str) -> Output:
        return _step(builder, name, op_type, inputs, suffix)

    def f32(value: float, suffix: str) -> Output:
        return builder.const(np.array(value, np.float32), f"{name}/{suffix}")

    x = _convert(builder, name, source(graph, layer, 0), "f32", "x_f32")
    index = _convert(builder, name, source(graph, layer, 1), "i32", "amount")
    if signed:
        index = add("Add", [index, builder.const(np.array(2 ** (bits - 1), np.int32), f"{name}/offset")], "index")
    factor = add("Gather", [builder.const(table(element, op), f"{name}/powers"), index,
                            builder.const(np.array(0, np.int64), f"{name}/axis")], "factor")
    product = add("Multiply", [x, factor], "product")
    if op == "right":
        y = add("Floor", [product], "floor")
    else:
        shifted = add("Add", [product, f32(2.0 ** (bits - 1), "half")], "shifted") if signed else product
        wraps = add("Floor", [add("Multiply", [shifted, f32(2.0 ** -bits, "scale")], "scaled")], "wraps")
        y = add("Subtract", [product, add("Multiply", [wraps, f32(2.0 ** bits, "modulus")], "multiple")], "wrapped")
    return _convert(builder, name, y, element, "", outputs=[declared_type(layer.outputs[0])])


def _step(builder: GraphBuilder, name: str, op_type: str, inputs: list[Output], suffix: str, attrs: object = None,
          **kwargs: object) -> Output:
    """A layer of opset1 in a rewrite of the layer ``name`` (``_named``)."""
    return output_of(builder.add(op_type, "opset1", attrs, inputs, _named(name, suffix), **kwargs))


def _convert(builder: GraphBuilder, name: str, x: Output, destination: str, suffix: str, **kwargs: object) -> Output:
    """A Convert-1 of ``x`` to ``destination`` in a rewrite of the layer ``name`` (``_named``)."""
    return output_of(builder.convert(x, destination, _named(name, suffix), **kwargs))


def _named(name: str, suffix: str) -> str:
    """A layer's name in a rewrite of the layer ``name``: ``name/suffix`` (``name`` for the last one, no suffix)."""
    return f"{name}/{suffix}" if suffix else name


def _amount_i32(builder: GraphBuilder, layer: Layer) -> Output:
    """The shift amount of an i32 ``layer`` modulo 256 (``wrapped`` into u8), as i32: an index into a table of 256."""
    amount = wrapped(builder, source(builder.graph, layer, 1), "u8", f"{layer.name}/amount")
    return _convert(builder, layer.name, amount, "i32", "index")


def _shift_right_i32(builder: GraphBuilder, layer: Layer) -> Output:
    """Rule 3."""
    graph, name = builder.graph, layer.name

    def add(op_type: str, inputs: list[Output], suffix: str, **kwargs: object) -> Output:
        return _step(builder, name, op_type, inputs, suffix, **kwargs)

    def convert(x: Output, destination: str, suffix: str) -> Output:
        return _convert(builder, name, x, destination, suffix)

    x = source(graph, layer, 0)
    low = convert(wrapped(builder, x, "u16", f"{name}/low_u16"), "i32", "low")
    high = add("Multiply", [convert(add("Subtract", [x, low], "high_part"), "f32", "high_f32"),
                            builder.const(np.array(2.0**-16, np.float32), f"{name}/scale")], "high")
    index, k = _amount_i32(builder, layer), np.arange(256) & 31
    parts = []
    for part, value, powers in (("high", high, np.ldexp(np.float32(1), 16 - k)),
                                ("low", convert(low, "f32", "low_f32"), np.ldexp(np.float32(1), -k))):
        factor = add("Gather", [builder.const(powers.astype(np.float32), f"{name}/{part}_powers"), index,
                                builder.const(np.array(0, np.int64), f"{name}/{part}_axis")], f"{part}_factor")
        parts.append(convert(add("Floor", [add("Multiply", [value, factor], f"{part}_scaled")], f"{part}_floor"),
                             "i32", f"{part}_shifted"))
    return add("Add", parts, "", outputs=[declared_type(layer.outputs[0])])


def _shift_left_i32(builder: GraphBuilder, layer: Layer) -> Output:
    """Rule 2."""
    graph, name = builder.graph, layer.name
    index = _amount_i32(builder, layer)
    powers = (np.int64(1) << (np.arange(256, dtype=np.int64) & 31)).astype(np.uint32).view(np.int32)
    factor = builder.add("Gather", "opset1", None, [builder.const(powers, f"{name}/powers"), index,
                                                    builder.const(np.array(0, np.int64), f"{name}/axis")],
                         f"{name}/factor")
    return output_of(builder.add("Multiply", "opset1", None, [source(graph, layer, 0), output_of(factor)], name,
                                 outputs=[declared_type(layer.outputs[0])]))
