"""FakeConvert-13 as opset1 arithmetic: the scale and shift as OpenVINO CPU applies them, the rounding to the f8
grid by Veltkamp splitting and a magic constant (releases before 2023.3 have no FakeConvert; 2023.3 to 2025.2 compute
it otherwise, ``fake_convert_otherwise``)."""

from __future__ import annotations

import numpy as np

from ...ir.model import Graph, Layer
from ...ops.fake_convert import (
    F16_CARRY_EXACT_FROM,
    F16_GRID,
    FAKE_CONVERT_13,
    FLOAT8,
    OMITTED_DESTINATION,
    FakeConvertAttrs,
    Float8,
    f16_doubles_carries,
)
from ..base import PassResult
from ..builder import GraphBuilder, Output, output_of
from ..shapes import declared_type
from .base import Downgrade, const_input, source

LABEL = "FakeConvert-13"

#: The element types rewritten: f32, and f16 by way of f32 (the current CPU computes f16 so: measured).
TYPES = ("f32", "f16")

#: The least normal f32: a scale of smaller magnitude has no finite f32 reciprocal (an infinite one, a zero one).
TINY = float(np.finfo(np.float32).tiny)

#: The powers of two ``2^k`` into which OpenVINO's ``float16(float)`` rounding carries wrongly where f8e5m2 keeps the
#: result (``ops/fake_convert.openvino_f16``; below 2^-17 the doubled value still rounds to zero).
CARRIES = (2.0**-15, 2.0**-16, 2.0**-17)


class FakeConvertTo1(Downgrade):
    """FakeConvert-13 as the current OpenVINO CPU computes it, bit for bit (docs/SEMANTICS.md): ``t = x * scale -
    shift`` (Multiply-1, Subtract-1, unfused), clamped to the f8 type's largest magnitude with NaN the lowest
    (Maximum-1, Minimum-1, Select-1 on ``t == t``); for f8e5m2, ``t`` doubled where OpenVINO's ``float16(float)``
    carries wrongly (where the current CPU rounds so: not on a CPU with AVX512-FP16, ``f16_doubles_carries``; the
    rewrite computes what the current OpenVINO computes on the machine that migrates); then rounded to f16 and to
    the f8 grid, each to nearest even in f32 arithmetic: ``p`` significant bits by Veltkamp's split (``c = t *
    (2^(24-p) + 1)``, ``c - (c - t)``), the subnormal range by adding and subtracting ``1.5 * 2^23`` quanta, zeros
    given ``t``'s sign (Select-1); back by Add-1 of the shift (its zeros as the CPU takes a fed or a Const shift)
    and Multiply-1 by Power-1(scale, -1), which OpenVINO folds from a Const as it folds the original's. f16 data
    goes by way of f32, as the current CPU computes it. A layer of Consts alone (weights), which the current
    OpenVINO folds by its reference evaluator, becomes the Const it folds it into (``FAKE_CONVERT_13.folded``, bit
    for bit). bf16 data, and a Const scale of one element whose reciprocal is not finite, are left (``declines``).
    The releases that create FakeConvert-13 but compute it otherwise (``fake_convert_otherwise``: 2023.3 to 2025.2)
    get the same rewrite, and those that fold a layer of Consts otherwise (``fake_convert_folded_otherwise``: 2023.3
    to 2025.0) its Const."""

    rewrites = {LABEL: "into Multiply-1, Subtract-1, Maximum-1, Minimum-1, Select-1, Add-1, Power-1 and the rounding "
                       "to the f16 and f8 grids in f32 arithmetic (Veltkamp splitting, a magic constant), on f32 and "
                       "f16 data; of Consts alone, into the Const the current OpenVINO folds it into"}
    repairs = {"fake_convert_otherwise": lambda graph, layer: not _folded(graph, layer),
               "fake_convert_folded_otherwise": lambda graph, layer: _folded(graph, layer)}

    def apply(self, graph: Graph) -> PassResult:
        return self.replace_each(graph, _fake_convert, LABEL, "opset1 arithmetic")

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        """Data of a type but f32 and f16 (bf16: not measured), a destination type OpenVINO does not know, Consts alone
        of which one is narrowed on the way (a Convert into a narrower type than its Const's, which OpenVINO folds by
        a rounding not modelled here), or, fed, a Const scale of one element whose f32 reciprocal is not finite and
        nonzero (0, a subnormal, inf or NaN: the CPU's ``r u + 0`` there gives NaN or +0 where the rewrite's Select-1
        does not)."""
        element = declared_type(layer.inputs[0]).element
        if element not in TYPES:
            return f"its data is {element or 'of an unknown type'}, where the rewrite is built and measured on f32 " \
                   "and f16"
        if _destination(layer) not in FLOAT8:
            return f"its destination_type is {_destination(layer)!r}, not f8e4m3 or f8e5m2"
        if _folded(graph, layer):
            narrowed = next((i for i in range(len(layer.inputs)) if _narrowed(graph, layer, i)), None)
            return None if narrowed is None else f"its inputs are all Consts, and input {narrowed}'s is narrowed " \
                "by a Convert, whose folding the rewrite does not model"
        scale = constant_value(graph, layer, 1)
        if scale is not None and scale.size == 1 and not TINY <= abs(float(scale.reshape(-1)[0])) < np.inf:
            return f"its scale is the Const {scale.reshape(-1)[0]}, whose f32 reciprocal is not finite and nonzero"
        return None


class _Arithmetic:
    """The opset1 layers of one rewrite, named after the layer rewritten."""

    def __init__(self, builder: GraphBuilder, name: str) -> None:
        self.builder, self.name = builder, name

    def const(self, value: float, what: str) -> Output:
        return self.builder.const(np.array(value, np.float32), f"{self.name}/{what}")

    def op(self, op_type: str, inputs: list[Output], what: str) -> Output:
        return output_of(self.builder.add(op_type, "opset1", None, inputs, f"{self.name}/{what}"))

    def below(self, magnitude: Output, limit: float, what: str) -> Output:
        return self.op("Less", [magnitude, self.const(limit, f"{what}_limit")], what)

    def to_grid(self, t: Output, fmt: Float8, what: str) -> Output:
        """``t`` rounded to nearest even on ``fmt``'s grid: Veltkamp's split to ``fmt.bits`` bits at and above its
        smallest normal, else ``(t + C) - C`` with ``C`` 1.5 * 2^23 quanta (the sum's ulp is the quantum), whose zeros
        are +0 (the caller gives them ``t``'s sign)."""
        split = self.op("Multiply", [t, self.const(2.0 ** (24 - fmt.bits) + 1, f"{what}_splitter")], f"{what}_split")
        high = self.op("Subtract", [split, self.op("Subtract", [split, t], f"{what}_low")], f"{what}_high")
        magnitude = self.op("Abs", [t], f"{what}_abs")
        subnormal = self.below(magnitude, 2.0**fmt.min_exponent, f"{what}_subnormal")
        # the constant selected where it is used: both releases fold (t + C) - C of a Const C into t (measured)
        magic = self.op("Select", [subnormal, self.const(1.5 * 2.0**23 * fmt.quantum, f"{what}_magic_value"),
                                   self.const(0.0, f"{what}_no_magic")], f"{what}_magic")
        fixed = self.op("Subtract", [self.op("Add", [t, magic], f"{what}_lifted"), magic], f"{what}_fixed")
        return self.op("Select", [subnormal, fixed, high], what)


def _fake_convert(builder: GraphBuilder, layer: Layer) -> Output:
    """The class's rewrite of the FakeConvert-13 ``layer``."""
    graph, name = builder.graph, layer.name
    if _folded(graph, layer):
        return _folded_const(builder, layer)
    fmt = FLOAT8[_destination(layer)]
    element = declared_type(layer.inputs[0]).element or "f32"
    inputs = [source(graph, layer, i) for i in range(len(layer.inputs))]
    if element != "f32":
        inputs = [output_of(builder.convert(v, "f32", f"{name}/f32_{i}")) for i, v in enumerate(inputs)]
    x, scale, shift = inputs[0], inputs[1], inputs[2] if len(inputs) == 3 else None
    a = _Arithmetic(builder, name)
    product = a.op("Multiply", [x, scale], "scaled")
    # x read twice (x == x, no change: x NaN makes the product NaN): OpenVINO folds a Multiply by a Const into the
    # Convolution (and bias Add) making x, where nothing else reads x (measured: the compiled Convolution holds the
    # product's layer), rounding the product otherwise, and the rounding to the f8 grid turns that ulp into a step
    # of it (NNCF's f8e4m3 resnet18)
    number = a.op("LogicalAnd", [a.op("Equal", [product, product], "product_number"),
                                 a.op("Equal", [x, x], "data_number")], "number")
    t = product
    if shift is not None:
        # the product's second reader (Equal-1) keeps the current CPU from fusing Multiply-1 and Subtract-1 into an
        # FMA, which it does where the product has one (measured); 2023.0 fuses neither
        t = a.op("Subtract", [product, shift], "shifted")
        number = a.op("LogicalAnd", [number, a.op("Equal", [t, t], "shifted_number")], "numbers")
    largest = fmt.largest
    bounded = a.op("Minimum", [a.op("Maximum", [t, a.const(-largest, "lowest")], "at_least"),
                               a.const(largest, "largest")], "at_most")
    clamped = a.op("Select", [number, bounded, a.const(-largest, "nan_lowest")], "clamped")
    carried = clamped
    if fmt.quantum < F16_CARRY_EXACT_FROM and f16_doubles_carries():
        magnitude = a.op("Abs", [clamped], "magnitude")
        bands = [a.op("LogicalAnd", [
            a.op("GreaterEqual", [magnitude, a.const(power * (1 - 2.0**-12), f"carry{i}_from")], f"carry{i}_above"),
            a.below(magnitude, power, f"carry{i}_below")], f"carry{i}") for i, power in enumerate(CARRIES)]
        band = a.op("LogicalOr", [a.op("LogicalOr", bands[:2], "carry01"), bands[2]], "carries")
        carried = a.op("Select", [band, a.op("Multiply", [clamped, a.const(2.0, "two")], "doubled"), clamped],
                       "carried")
    rounded = a.to_grid(a.to_grid(carried, F16_GRID, "f16"), fmt, "f8")
    zero = a.const(0.0, "zero")
    signed_zero = a.op("Select", [a.op("Less", [clamped, zero], "negative"), a.const(-0.0, "negative_zero"),
                                  a.op("Select", [a.op("Equal", [clamped, zero], "is_zero"), clamped, zero],
                                       "positive_zero")], "signed_zero")
    u = a.op("Select", [a.op("Equal", [rounded, zero], "rounded_zero"), signed_zero, rounded], "f8_value")
    if shift is None:
        unshifted = u
    elif (shift_value := constant_value(graph, layer, 2)) is not None:
        # u - (-shift), the negation folded: u + shift; where shift is a zero, u, but +0 for u = -0 and shift +0 (a
        # mask of Consts: 2023.0 adds a -0 of a Const as +0, measured)
        zeros = shift_value == 0
        plus = builder.const(zeros & ~np.signbit(shift_value), f"{name}/plus_zero_shift")
        as_zero = a.op("Select", [a.op("LogicalAnd", [a.op("Equal", [u, zero], "zero_value"), plus], "made_plus"),
                                  zero, u], "zero_shifted")
        unshifted = a.op("Select", [builder.const(zeros, f"{name}/zero_shift"), as_zero,
                                    a.op("Add", [u, shift], "shifted_back")], "unshifted")
    else:  # u - (0 - shift), as the CPU's Negative computes it: u itself where shift is a zero
        unshifted = a.op("Select", [a.op("Equal", [shift, zero], "no_shift"), u,
                                    a.op("Add", [u, shift], "shifted_back")], "unshifted")
    reciprocal = a.op("Power", [scale, a.const(-1.0, "minus_one")], "reciprocal")
    outputs = [declared_type(layer.outputs[0])]
    wide_name = name if element == "f32" else f"{name}/wide"
    scale_value = constant_value(graph, layer, 1)
    if scale_value is None:
        wide = output_of(builder.add("Multiply", "opset1", None, [unshifted, reciprocal], wide_name,
                                     outputs=outputs if element == "f32" else None))
    else:
        # reading ``unshifted`` twice keeps the CPU from distributing the multiplication by a Const's reciprocal
        # over a Const shift (u r + shift r: measured); it multiplies by one such reciprocal but 1 as r x + 0 (a -0
        # comes out +0), by 1 not at all
        product = a.op("Multiply", [unshifted, reciprocal], "product")
        plus_zero = zero if scale_value.size == 1 and scale_value.reshape(-1)[0] != 1 else product
        wide = output_of(builder.add("Select", "opset1", None, [a.op("Equal", [unshifted, zero], "zero_product"),
                                                                 plus_zero, product], wide_name,
                                     outputs=outputs if element == "f32" else None))
    if element == "f32":
        return wide
    return output_of(builder.convert(wide, element, name, outputs=outputs))


def _folded_const(builder: GraphBuilder, layer: Layer) -> Output:
    """A FakeConvert of Consts alone as the Const the current OpenVINO folds it into (its reference evaluator:
    ``FAKE_CONVERT_13.folded``), in the data's type: the same numbers on a release without FakeConvert-13 or folding
    it otherwise. A Const read through a decompression Convert is taken widened, as the Convert makes it."""
    dtype = np.float16 if declared_type(layer.inputs[0]).element == "f16" else np.float32
    values = [np.asarray(constant_value(builder.graph, layer, i), dtype) for i in range(len(layer.inputs))]
    folded = FAKE_CONVERT_13.folded(FakeConvertAttrs(_destination(layer)), values)[0]  # type: ignore[misc]
    return builder.const(folded, layer.name)


def _narrowed(graph: Graph, layer: Layer, index: int) -> bool:
    """Whether ``layer``'s input ``index`` is a Const read through a Convert into a type narrower than its own."""
    producer = graph.layer(source(graph, layer, index)[0])
    return producer.is_a("Convert") and np.asarray(constant_value(graph, layer, index)).dtype.itemsize > \
        np.dtype(np.float16 if declared_type(layer.inputs[index]).element == "f16" else np.float32).itemsize


def _destination(layer: Layer) -> str:
    """The layer's destination_type, as OpenVINO reads it (an omitted one is f8e4m3)."""
    return layer.attrs.get("destination_type", OMITTED_DESTINATION)


def _folded(graph: Graph, layer: Layer) -> bool:
    """Whether every input of ``layer`` is a Const (``constant_value``), so that OpenVINO folds it."""
    return all(constant_value(graph, layer, i) is not None for i in range(len(layer.inputs)))


def constant_value(graph: Graph, layer: Layer, index: int) -> np.ndarray | None:
    """The value of a Const feeding ``layer``'s input ``index``, directly or by a Convert-1 (a decompression, which
    OpenVINO folds before the CPU plugin computes the layer), else None (``const_input``, through the Convert)."""
    producer = graph.layer(source(graph, layer, index)[0])
    return const_input(graph, producer, 0) if producer.is_a("Convert") else const_input(graph, layer, index)
