"""SoftSign-9, IsNaN/IsInf/IsFinite-10 and Identity-16 as opset1 ops."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dtypes import element_type
from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.releases import op_label
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, numpy_dtype, source


def _identity_16(graph: Graph, layer: Layer) -> bool:
    """True for an Identity-16 layer: 2025.0 to 2025.3 read it but do not compile it (any element type)."""
    return op_label(layer.type, layer.version) == "Identity-16"


class ElementwiseTo1(Downgrade):
    """Element-wise ops of opsets 9-16 as opset1 ops, exactly (docs/SEMANTICS.md):

    - SoftSign-9: ``x / (1 + |x|)`` (Abs, Add, Divide-1), on f32: OpenVINO CPU computes the same three roundings;
    - IsNaN-10: ``x != x`` (NotEqual-1: only NaN differs from itself);
    - IsInf-10: ``x == +inf`` or ``x == -inf``, as detect_positive and detect_negative ask (Equal-1, LogicalOr-1;
      neither asked: a false of x's shape, ``x != x`` and ``x == x`` anded); an f64 x converted to f32 first
      (Convert-1): OpenVINO CPU reads an f64 Const infinity as f32's largest value (measured on 2023.0 and 2026.4: an
      f64 inf computed inside the model equals no f64 Const inf, and 3.4028235e38 equals it), and computes f64 in f32;
    - IsFinite-10: ``x - x == 0`` (Subtract-1, Equal-1: inf - inf and NaN - NaN are NaN, any finite x gives 0,
      a subnormal too, as the specification and OpenVINO CPU on AVX2 say; on AVX-512 its IsFinite-10 calls an f32
      subnormal not finite, docs/SEMANTICS.md);
    - Identity-16: Convert-1 to its own element type (the input is not used in its place: the output must stay a
      tensor of its own, with its own names, or a model output fed by a Parameter would share the input's); not of
      string, which OpenVINO CPU does not convert.

    Any other element type is left, for ``retarget`` to refuse. For a target that reads Identity-16 but does not
    compile it (measured: 2025.0 to 2025.3, "Unsupported operation of type: Identity"), every Identity-16 is
    rewritten too, though the target creates it.
    """

    rewrites = {"SoftSign-9": "into Abs, Add and Divide-1 on f32", "IsNaN-10": "into NotEqual-1",
                "IsInf-10": "into Equal-1 and LogicalOr-1", "IsFinite-10": "into Subtract-1 and Equal-1",
                "Identity-16": "into Convert-1 to its own element type (not of string)"}
    repairs = {"identity_not_compiled": _identity_16}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            label = op_label(layer.type, layer.version)
            x = source(graph, layer, 0)
            if not _takes(label, declared_type(layer.inputs[0]).element):
                continue
            builder.replace_layer(layer, lambda: [_BUILD[label](builder, layer, x)],  # noqa: B023
                                  origin_text(layer, label))
            stats[f"{label} -> {self.rewrites[label].removeprefix('into ')}"] += 1
        return PassResult(graph, bool(stats), stats)


def _takes(label: str, element: str | None) -> bool:
    """Whether the rewrite of ``label`` is built for an input of ``element``: SoftSign-9's on f32, IsNaN/IsInf/
    IsFinite-10's on a float type, Identity-16's on any type but string, which no release's CPU converts (2025.0 and
    2026.4: "Unsupported operation of type: Convert", where 2026.4 runs Identity-16 of string)."""
    if label == "SoftSign-9":
        return element == "f32"
    return element != "string" if label == "Identity-16" else _is_float(element)


def _is_float(element: str | None) -> bool:
    et = element_type(element or "")
    return et is not None and et.numpy is not None and np.issubdtype(et.numpy, np.floating)


def _soft_sign(builder: GraphBuilder, layer: Layer, x: Output) -> Output:
    magnitude = builder.add("Abs", "opset1", None, [x], f"{layer.name}/abs")
    one = builder.const(np.ones((), numpy_dtype(builder, x)), f"{layer.name}/one")
    denominator = builder.add("Add", "opset1", None, [magnitude, one], f"{layer.name}/add")
    return output_of(builder.add("Divide", "opset1", None, [x, denominator], layer.name))


def _is_nan(builder: GraphBuilder, layer: Layer, x: Output) -> Output:
    return output_of(builder.add("NotEqual", "opset1", None, [x, x], layer.name))


def _is_inf(builder: GraphBuilder, layer: Layer, x: Output) -> Output:
    if numpy_dtype(builder, x) == np.float64:  # (an f64 Const inf would be read as f32's largest: in f32)
        x = output_of(builder.convert(x, "f32", f"{layer.name}/f32"))
    dtype = numpy_dtype(builder, x)
    asked = [sign for sign, attribute in ((np.inf, "detect_positive"), (-np.inf, "detect_negative"))
             if A.flag(layer.attrs, attribute, True)]
    if not asked:  # nothing is detected: false everywhere, of x's shape
        nan = builder.add("NotEqual", "opset1", None, [x, x], f"{layer.name}/nan")
        number = builder.add("Equal", "opset1", None, [x, x], f"{layer.name}/number")
        return output_of(builder.add("LogicalAnd", "opset1", None, [nan, number], layer.name))
    found = []
    for sign in asked:
        value = builder.const(np.array(sign, dtype), f"{layer.name}/{sign}/value")
        name = layer.name if len(asked) == 1 else f"{layer.name}/{sign}"
        found.append(builder.add("Equal", "opset1", None, [x, value], name))
    return output_of(found[0] if len(found) == 1 else builder.add("LogicalOr", "opset1", None, found, layer.name))


def _is_finite(builder: GraphBuilder, layer: Layer, x: Output) -> Output:
    difference = builder.add("Subtract", "opset1", None, [x, x], f"{layer.name}/difference")
    zero = builder.const(np.zeros((), numpy_dtype(builder, x)), f"{layer.name}/zero")
    return output_of(builder.add("Equal", "opset1", None, [difference, zero], layer.name))


def _identity(builder: GraphBuilder, layer: Layer, x: Output) -> Output:
    return output_of(builder.convert(x, builder.type_of(x).element, layer.name))


_BUILD = {"Identity-16": _identity, "SoftSign-9": _soft_sign, "IsNaN-10": _is_nan, "IsInf-10": _is_inf,
          "IsFinite-10": _is_finite}
