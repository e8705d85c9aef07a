"""TopK-11 for releases before 2023.0, which have no opset11: stable false as TopK-3, and stable with k = 1 (torch's
argmax and argmin) as Reduce ops taking the index the current OpenVINO CPU takes.

What the current OpenVINO CPU's TopK-11 stable with k = 1 and sort value gives (measured on 2026.4: 1920 seeded layers
of f32, f16, i32, i64, i8 and u8, ranks 1 to 4, axes of 1 to 4099 elements, ties, NaN, +-inf and signed zeros
planted; tests/downgrade/test_topk.py's 480, with dynamic dims and one output read alone, agree): the index of a scan
from the first element that moves on where mode max finds ``x > current`` and mode min ``not x >= current``, the
value the element there. So of tied elements the first (-0.0 and 0.0 tie); mode max takes a NaN only at index 0,
where it stays; mode min takes each NaN and the element after it, so it gives the first minimum after the last NaN,
or that NaN where it is the last element. i64 is scanned as its low 32 bits (2^40 + 1 as 1; a target holds i64
within i32 anyway). With sort index the CPU does not take the first of tied elements (105 of 480 seeded layers), and
a stable TopK with sort none does not validate."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dims import Dim
from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.operands import normalize_axis
from ...ops.topk import TopK11Attrs
from ..base import PassResult
from ..builder import GraphBuilder, Output, drop_unused, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, const_input, numpy_dtype, respelled, source
from .integer_wrap import wrapped

LABEL = "TopK-11"
#: The data types the first-index form is measured on (the module's docstring); others are left.
_MEASURED = ("f32", "f16", "i32", "i64", "i8", "u8")
_FLOATS = ("f32", "f16")
#: The integer types whose Reduce and Equal the CPU computes through f32, inexact beyond 2^24.
_WIDE_INTEGERS = ("i32", "i64")


class TopKTo3OrReduce(Downgrade):
    """TopK-11 as op versions of opset1 to opset6:

    1. ``stable="false"`` (the default): TopK-3, the same op without the attribute, respelled.
    2. ``stable="true"``, sort value and k a Const 1: the index the CPU takes (the module's docstring), as ReduceMin-1
       of ``Select(met, P, length)``, ``P`` the positions along the axis (a Const on a static axis, else Range-4 to
       its length from ShapeOf-3, reshaped to broadcast) in index_element_type, where the data's ReduceMax-1 or
       ReduceMin-1 (keep_dims) ``m`` is met:

       - i8 and u8: ``Equal(x, m)``; the values ``m``;
       - i32 and i64 (held as i32), whose Reduce and Equal the CPU computes through f32 (2147483646 equals
         2147483647; ReduceMax of 2147483647 gives -2147483648, on 2023.0 and 2026.4): by halves, each exact in f32
         (``_wide_candidates``); the values their extremes' sum;
       - floats: mode max of the data with a NaN made +inf at position 0 and -inf elsewhere; mode min of the data
         after its last NaN (``ReduceMax(Select(isnan, P, -1))``), +inf up to it, met only after it. The CPU's
         ReduceMax of a row of -inf gives -3.4028235e38 (f32, and f16 inside a model; ReduceMin of +inf alike),
         which no element meets: a row where none is met takes the first position considered (0; mode min
         ``min(last NaN + 1, length - 1)``). The values are GatherElements-6 of the data at the index (its NaN,
         its sign of zero).

       What computes an output nothing reads is dropped (``drop_unused``: an argmax's values).

    Left (``declines``): stable with k other than a Const 1 (the CPU's TopK-3 orders tied elements otherwise: docs/
    SEMANTICS.md 7), with sort index (the CPU does not take the first of tied elements), data of another type (not
    measured) or of a dynamic rank.
    """

    rewrites = {LABEL: "into TopK-3 where stable is false; where stable is true, sort value and k a constant 1 "
                       "(argmax, argmin) on f32, f16, i32, i64, i8 or u8, into ReduceMax-1 or ReduceMin-1 of the data "
                       "(i32 and i64 by halves, each exact in f32) and ReduceMin-1 of the positions of its first "
                       "extreme (NaN as the current OpenVINO CPU takes it)"}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        attrs = A.decode(TopK11Attrs, layer.attrs, layer.loc)
        if not attrs.stable:
            return None
        k = const_input(graph, layer, 1)
        if k is None or k.size != 1 or int(k.reshape(-1)[0]) != 1:
            return ("it is stable with k other than a constant 1, and TopK-3 on the CPU orders tied elements "
                    "otherwise than TopK-11 stable")
        if attrs.sort != "value":
            return (f"it is stable with sort {attrs.sort}: the current OpenVINO CPU takes the first of tied elements "
                    "with sort value only")
        data = declared_type(layer.inputs[0])
        if data.element not in _MEASURED:
            return f"a stable TopK-11 on {data.element or 'an unknown element type'} is not measured"
        if data.shape is None:
            return "its data's rank is not known"
        return None

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            attrs = A.decode(TopK11Attrs, layer.attrs, layer.loc)
            if attrs.stable:
                made = builder.replace_layer(layer, lambda: _first_extreme(builder, layer, attrs),  # noqa: B023
                                             origin_text(layer, LABEL))
                drop_unused(graph, made)  # (what computes an output nothing reads: an argmax's values)
                stats[f"{LABEL} (stable, k 1, mode {attrs.mode}) -> Reduce{attrs.mode.capitalize()}-1"] += 1
                continue
            respelled(graph, layer, "opset3")
            layer.attrs = {k: v for k, v in layer.attrs.items() if k != "stable"}
            stats[f"{LABEL} (stable false) -> TopK-3"] += 1
        return PassResult(graph, bool(stats), stats)


def _first_extreme(builder: GraphBuilder, layer: Layer, attrs: TopK11Attrs) -> list[Output]:
    """Rule 2 for ``layer``: its values and indices outputs."""
    graph, name = builder.graph, layer.name
    data = source(graph, layer, 0)
    data_type = declared_type(layer.inputs[0])
    assert data_type.shape is not None
    rank = len(data_type.shape)
    axis = normalize_axis(attrs.axis, rank)
    steps = _Steps(builder, name, axis, attrs.mode, attrs.index_element_type)
    positions, length = _positions(steps, data, data_type.shape[axis], rank)
    fallback = None
    if data_type.element in _FLOATS:
        candidate, extreme, fallback = _float_candidates(steps, data, positions, length)
    elif data_type.element in _WIDE_INTEGERS:
        candidate, extreme = _wide_candidates(steps, data)
    else:
        extreme = steps.reduce(data, "extreme")
        candidate = steps.add("Equal", [data, extreme], "is_extreme")
    at = steps.add("Select", [candidate, positions, length], "candidate_at")
    index = steps.add("ReduceMin", [at, steps.axis], "first_candidate" if fallback is not None else "index",
                      keep_dims=True)
    if fallback is not None:
        none = steps.add("Equal", [index, length], "no_candidate")
        index = steps.add("Select", [none, fallback, index], "index")
    if data_type.element in _FLOATS:  # the element itself: its NaN, its sign of zero
        return [steps.add("GatherElements", [data, index], "values", version="opset6", axis=axis), index]
    return [extreme, index]


class _Steps:
    """What each step of rule 2 shares: the builder, the layer's name (each new layer is ``name/what``), the axis
    (a Const), the mode's Reduce and the indices' element type (``index_element``; ``index_type``: its numpy
    type)."""

    def __init__(self, builder: GraphBuilder, name: str, axis: int, mode: str, index_element: str) -> None:
        self.builder, self.name, self.at, self.index_element = builder, name, axis, index_element
        self.index_type = np.dtype({"i32": np.int32, "i64": np.int64}[index_element])
        self.axis = builder.const(np.array([axis], np.int64), f"{name}/axis")
        self.reduce_type = "ReduceMax" if mode == "max" else "ReduceMin"

    def add(self, op_type: str, inputs: list[Output], what: str, version: str = "opset1", **attrs: object) -> Output:
        typed = self.builder.attrs(op_type, version, **attrs) if attrs else None
        return output_of(self.builder.add(op_type, version, typed, inputs, f"{self.name}/{what}"))

    def const(self, value: float, dtype: np.dtype | type, what: str) -> Output:
        return self.builder.const(np.array(value, dtype), f"{self.name}/{what}")

    def reduce(self, x: Output, what: str) -> Output:
        """The mode's extreme of ``x`` along the axis (keep_dims)."""
        return self.add(self.reduce_type, [x, self.axis], what, keep_dims=True)


def _positions(steps: _Steps, data: Output, length: Dim, rank: int) -> tuple[Output, Output]:
    """The positions along the axis of ``data``, shaped to broadcast against it ([length, 1, ...]), and its
    ``length`` (a scalar), of the index type: Consts where the length is static, else from ShapeOf-3 and Range-4."""
    dtype, trailing = steps.index_type, (1,) * (rank - 1 - steps.at)
    if length.is_static:
        return (steps.builder.const(np.arange(length.lo, dtype=dtype).reshape(length.lo, *trailing),
                                    f"{steps.name}/positions"), steps.const(length.lo, dtype, "length"))
    shape = steps.add("ShapeOf", [data], "shape", version="opset3", output_type=steps.index_element)
    count = steps.add("Gather", [shape, steps.const(steps.at, np.int64, "at"), steps.const(0, np.int64, "axis0")],
                      "length")
    along = steps.add("Range", [steps.const(0, dtype, "start"), count, steps.const(1, dtype, "step")], "range",
                      version="opset4", output_type=steps.index_element)
    column = steps.builder.const(np.array((-1, *trailing), np.int64), f"{steps.name}/column")
    return steps.add("Reshape", [along, column], "positions"), count


def _float_candidates(steps: _Steps, data: Output, positions: Output, length: Output
                      ) -> tuple[Output, Output, Output]:
    """Rule 2 on floats: where the element the CPU takes may be, the extreme it is (a NaN aside), and the position
    taken where none is (a row whose extreme is an infinity, which the Reduce gives as +-3.4028235e38)."""
    dtype = numpy_dtype(steps.builder, data)
    nan = steps.add("NotEqual", [data, data], "is_nan")
    if steps.reduce_type == "ReduceMax":  # a NaN at position 0 stays the maximum, one elsewhere is never taken
        first = steps.const(0, steps.index_type, "first")
        at_first = steps.add("Equal", [positions, first], "at_first")
        nan_as = steps.add("Select", [at_first, steps.const(np.inf, dtype, "inf"), steps.const(-np.inf, dtype,
                                                                                            "minus_inf")], "nan_as")
        scanned = steps.add("Select", [nan, nan_as, data], "scanned")
        extreme = steps.reduce(scanned, "extreme")
        return steps.add("Equal", [scanned, extreme], "is_extreme"), extreme, first
    nan_at = steps.add("Select", [nan, positions, steps.const(-1, steps.index_type, "no_nan")], "nan_at")
    last_nan = steps.add("ReduceMax", [nan_at, steps.axis], "last_nan", keep_dims=True)
    after = steps.add("Greater", [positions, last_nan], "after_last_nan")  # the minimum after the last NaN
    scanned = steps.add("Select", [after, data, steps.const(np.inf, dtype, "inf")], "scanned")
    extreme = steps.reduce(scanned, "extreme")
    equal = steps.add("Equal", [scanned, extreme], "is_extreme")
    one = steps.const(1, steps.index_type, "one")
    last = steps.add("Subtract", [length, one], "last_position")
    first_after = steps.add("Minimum", [steps.add("Add", [last_nan, one], "next_to_last_nan"), last], "first_after")
    return steps.add("LogicalAnd", [equal, after], "candidate"), extreme, first_after


def _wide_candidates(steps: _Steps, data: Output) -> tuple[Output, Output]:
    """Rule 2 on i32 and i64 (held as i32), whose Reduce and Equal the CPU computes through f32 (2147483646 equals
    2147483647 there): by halves, each exact in f32. The high half ``x - low`` (a multiple of 2^16) first, then, of
    the elements of the extreme high half, the low half ``x mod 2^16`` (``wrapped`` into u16); the value the sum of
    their extremes (Add-1 in i32)."""
    builder, name = steps.builder, steps.name
    x = data if builder.type_of(data).element == "i32" else output_of(builder.convert(data, "i32", f"{name}/i32"))
    low = output_of(builder.convert(wrapped(builder, x, "u16", f"{name}/low_u16"), "i32", f"{name}/low"))
    high = steps.add("Subtract", [x, low], "high")
    high_extreme = steps.reduce(high, "high_extreme")
    in_extreme_high = steps.add("Equal", [high, high_extreme], "in_extreme_high")
    outside = -1 if steps.reduce_type == "ReduceMax" else 2**16
    low_there = steps.add("Select", [in_extreme_high, low, steps.const(outside, np.int32, "outside")], "low_there")
    low_extreme = steps.reduce(low_there, "low_extreme")
    candidate = steps.add("Equal", [low_there, low_extreme], "is_extreme")
    extreme = steps.add("Add", [high_extreme, low_extreme], "extreme")
    if builder.type_of(data).element != "i32":
        extreme = output_of(builder.convert(extreme, builder.type_of(data).element or "", f"{name}/values"))
    return candidate, extreme
