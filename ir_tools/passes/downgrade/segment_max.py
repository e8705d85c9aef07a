"""SegmentMax-16 (created from 2025.1) as ScatterElementsUpdate-12 with reduction max, for a target that has opset12
but not SegmentMax (2023.1 to 2025.0); a target without ScatterElementsUpdate-12 (2023.0 and older) keeps it.

What the current OpenVINO CPU computes (measured on 2026.4; its reference ``segment_max``): each output row starts
at the type's lowest value and takes ``std::max(acc, x)`` of its rows in order, so a NaN is skipped, a segment of
NaN or -inf gives f32's lowest (-3.4028235e38; f16 and f64 are computed in f32, f16 read as -inf only where a model
output), and of equal values the first is kept (-0.0 then 0.0 gives -0.0); an empty segment gives 0 (ZERO) or the
lowest (LOWEST: 0 on i16, which it computes in i32 and truncates); segment ids of num_segments or more are skipped.
i32, u32, i64 and u64 it computes in i32 (i64 2^40 is read as 0; u32 2^31 + 5 is less than 1).
ScatterElementsUpdate-12 max of the targets (measured on 2024.0, 2024.1 and 2025.0) differs: 2024.0 lets a NaN
update replace the maximum, keeps the last of equal values (0.0 after -0.0) and refuses i8 and u8 (2024.1 and 2025.0
do not), and 2024.0 and 2025.0 compute i32 through f32 (1621504236 gives 1621504256)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dtypes import ELEMENT_TYPES, F32_MAX
from ...ir.model import Graph, Layer
from ...ops.movement import StridedSliceAttrs
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, numpy_dtype, source
from .integer_wrap import wrapped

LABEL = "SegmentMax-16"
_FLOATS = ("f32", "f64")
#: The type each is scattered in (i8 and u8 in i16: 2024.0 refuses ScatterElementsUpdate on them).
_WORK = {"f32": "f32", "f64": "f64", "i16": "i16", "u16": "u16", "i8": "i16", "u8": "i16"}
#: What every output row starts from: the lowest value the current OpenVINO CPU starts from, in its output type.
_START = {"f32": -F32_MAX, "f64": -F32_MAX, "i16": -(2**15), "u16": 0, "i8": -128, "u8": 0}
#: An empty segment under fill_mode LOWEST (ZERO: 0).
_LOWEST = _START | {"i16": 0}
_LEFT = {
    "f16": "the current OpenVINO CPU computes SegmentMax on f16 in f32: a segment with no value but NaN or -inf (or "
           "an empty one, LOWEST) gives f32's lowest, -inf as an f16 model output but -3.4028235e38 to an f32 layer "
           "after it, which no f16 form reproduces",
    "i32": "OpenVINO 2024.0 and 2025.0 compute ScatterElementsUpdate-12 max on i32 through f32 (1621504236 gives "
           "1621504256)",
    "i64": "the current OpenVINO CPU computes SegmentMax on i64 in i32 (2^40 is read as 0), which a release that "
           "holds i64 saturated to i32 does not reproduce",
    "u32": "the current OpenVINO CPU computes SegmentMax on u32 in i32 (2^31 + 5 is less than 1), and 2024.0 reads a "
           "u32 of 2^31 or more as 2147483647",
    "u64": "the current OpenVINO CPU computes SegmentMax on u64 in i32, which no release before it reproduces",
}


def _zero_fill(graph: Graph, layer: Layer) -> bool:
    """True for a SegmentMax-16 of fill_mode ZERO (the default) on a signed or float type, which 2025.1 computes
    starting every segment from 0 (``segment_max_zero_fill_wrong``; an unsigned type's maximum is 0 or more)."""
    return _fill_mode(layer) == "zero" and not (declared_type(layer.inputs[0]).element or "u").startswith("u")


def _i16_lowest(graph: Graph, layer: Layer) -> bool:
    """True for a SegmentMax-16 of i16 and fill_mode LOWEST, whose empty segment 2025.1 to 2025.3 give -32768 where
    the current OpenVINO gives 0 (``segment_max_i16_lowest_wrong``)."""
    return _fill_mode(layer) == "lowest" and declared_type(layer.inputs[0]).element == "i16"


def _fill_mode(layer: Layer) -> str:
    """The layer's fill_mode in lower case, as OpenVINO reads it (absent: zero)."""
    return layer.attrs.get("fill_mode", "zero").lower()


class SegmentMaxTo12(Downgrade):
    """SegmentMax-16 as the current OpenVINO CPU computes it (the module's docstring), exactly:

    1. the rows: ``num_segments`` (read as i64), plus one for the ids it skips (``Minimum(ids, num_segments)``, the
       row dropped at the end by StridedSlice-1); without it ``ReduceMax(ids) + 1``;
    2. ScatterElementsUpdate-12 (axis 0, reduction max, use_init_val true) of the data (i8 and u8 converted to
       i16; a float's NaN replaced by the start value and -0.0 by 0.0, so that no update order matters) at the ids
       broadcast over the trailing dims (Broadcast-3), into the start value broadcast to ``[rows, ...]``;
    3. on a float, a row whose maximum is 0 takes the first zero of its segment, sign included: GatherElements-6 at
       the least row (ScatterElementsUpdate-12 min of the row numbers, in f32: exact below 2^24 rows) of a zero;
    4. where an empty segment's value is not the start value (ZERO on a signed or float type, LOWEST on i16),
       Select-1 on whether a segment has rows (ScatterElementsUpdate-3 of ones).

    Left (``declines``): a target without ScatterElementsUpdate-12, f16, i32, u32, i64, u64 and bf16 (unmeasured)
    data, data of dynamic rank.

    For a target that creates SegmentMax-16 but computes it otherwise (measured: ``segment_max_zero_fill_wrong``,
    2025.1 starts every segment of fill_mode ZERO from 0, so one of negative values gives 0;
    ``segment_max_i16_lowest_wrong``, 2025.1 to 2025.3 give an empty i16 segment of fill_mode LOWEST -32768, the
    current OpenVINO 0), such a layer is rewritten too, which they compute as the current one computes the op.
    """

    rewrites = {LABEL: "into ScatterElementsUpdate-12 with reduction max (then GatherElements-6 and Select-1) on f32, "
                       "f64, i8, u8, i16 and u16, for a target with opset12"}
    repairs = {"segment_max_zero_fill_wrong": _zero_fill, "segment_max_i16_lowest_wrong": _i16_lowest}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        if self.target is not None and not self.target.creates("ScatterElementsUpdate", "opset12",
                                                                {"reduction": "max"}):
            return "the target has no ScatterElementsUpdate-12 (opset12)"
        data = declared_type(layer.inputs[0])
        element = data.element or ""
        if element not in _WORK:
            return _LEFT.get(element, f"SegmentMax on {element or 'an unknown element type'} is not measured")
        if data.shape is None:
            return "its data's rank is not known"
        return None

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            build = lambda: [_segment_max(builder, layer)]  # noqa: B023, E731
            builder.replace_layer(layer, build, origin_text(layer, LABEL))
            stats[f"{LABEL} -> ScatterElementsUpdate-12 (max)"] += 1
        return PassResult(graph, bool(stats), stats)


def _segment_max(builder: GraphBuilder, layer: Layer) -> Output:
    """The class's rewrite of ``layer``: the output standing for its."""
    graph, name = builder.graph, layer.name
    data = declared_type(layer.inputs[0])
    element, rank = data.element or "", len(data.shape)
    work, floating = _WORK[element], element in _FLOATS

    def add(op: str, version: str, inputs: list[Output], suffix: str, attrs: object = None) -> Output:
        return output_of(builder.add(op, version, attrs, inputs, f"{name}/{suffix}"))

    def i64(values: object, suffix: str) -> Output:
        return builder.const(np.array(values, np.int64), f"{name}/{suffix}")

    def value(number: float, dtype: str, suffix: str) -> Output:
        return builder.const(np.array(number, ELEMENT_TYPES[dtype].numpy), f"{name}/{suffix}")

    def convert(x: Output, destination: str, suffix: str) -> Output:
        return output_of(builder.convert(x, destination, f"{name}/{suffix}"))

    def broadcast(x: Output, shape: Output, suffix: str) -> Output:
        return add("Broadcast", "opset3", [x, shape], suffix, builder.attrs("Broadcast", "opset3", mode="numpy"))

    def scatter(start: Output, index: Output, updates: Output, reduction: str, suffix: str) -> Output:
        return add("ScatterElementsUpdate", "opset12", [start, index, updates, i64(0, f"{suffix}_axis")], suffix,
                   builder.attrs("ScatterElementsUpdate", "opset12", reduction=reduction, use_init_val=True))

    x = source(graph, layer, 0)
    ids = source(graph, layer, 1)
    if numpy_dtype(builder, ids, "i64") != np.int64:
        ids = convert(ids, "i64", "ids_i64")
    count = None
    if len(layer.inputs) > 2:  # rule 1: the ids of num_segments or more into one row more
        count = add("Reshape", "opset1", [source(graph, layer, 2), i64([1], "one_dim")], "count",
                    builder.attrs("Reshape", "opset1", special_zero=False))
        if numpy_dtype(builder, count, "i64") != np.int64:
            count = convert(count, "i64", "count_i64")
        ids = add("Minimum", "opset1", [ids, count], "ids_kept")
        rows = add("Add", "opset1", [count, i64([1], "skipped_row")], "rows")
    else:
        top = add("ReduceMax", "opset1", [ids, i64([0], "ids_axis")], "top",
                  builder.attrs("ReduceMax", "opset1", keep_dims=True))
        rows = add("Add", "opset1", [top, i64([1], "one")], "rows")
    shape = add("ShapeOf", "opset3", [x], "shape", builder.attrs("ShapeOf", "opset3", output_type="i64"))
    tail = add("StridedSlice", "opset1", [shape, i64([1], "tail_begin"), i64([0], "tail_end"), i64([1], "tail_step")],
               "tail", StridedSliceAttrs(begin_mask=(0,), end_mask=(1,)))
    out_shape = add("Concat", "opset1", [rows, tail], "out_shape", builder.attrs("Concat", "opset1", axis=0))
    column = add("Reshape", "opset1", [ids, i64([-1] + [1] * (rank - 1), "column_shape")], "column",
                 builder.attrs("Reshape", "opset1", special_zero=False))
    index = broadcast(column, shape, "index")

    updates = x if work == element else convert(x, work, "wide")
    start = value(_START[element], work, "start")
    if floating:  # rule 2: no NaN, no -0.0
        nan = add("NotEqual", "opset1", [x, x], "nan")
        zero = add("Equal", "opset1", [x, value(0, work, "zero")], "is_zero")
        updates = add("Select", "opset1", [zero, value(0, work, "plus_zero"),
                                           add("Select", "opset1", [nan, start, x], "no_nan")], "updates")
    y = scatter(broadcast(start, out_shape, "starts"), index, updates, "max", "max")
    if floating:  # rule 3
        length = add("Gather", "opset1", [shape, i64(0, "first"), i64(0, "first_axis")], "length")
        numbers = add("Range", "opset4", [i64(0, "range_start"), length, i64(1, "range_step")], "row_numbers",
                      builder.attrs("Range", "opset4", output_type="f32"))
        big = builder.const(np.array(2.0**24, np.float32), f"{name}/no_zero")
        at = add("Select", "opset1", [zero, broadcast(add("Reshape", "opset1", [numbers, i64(
            [-1] + [1] * (rank - 1), "numbers_shape")], "numbers_column", builder.attrs(
            "Reshape", "opset1", special_zero=False)), shape, "numbers"), big], "zero_rows")
        first = scatter(broadcast(big, out_shape, "no_zeros"), index, at, "min", "first_zero")
        last = convert(add("Subtract", "opset1", [length, i64(1, "last_offset")], "last_i64"), "f32", "last")
        row = convert(add("Minimum", "opset1", [first, last], "first_in_range"), "i64", "first_row")
        signed_zero = add("GatherElements", "opset6", [x, row], "signed_zero",
                          builder.attrs("GatherElements", "opset6", axis=0))
        y = add("Select", "opset1", [add("Equal", "opset1", [y, value(0, work, "zero_max")], "max_is_zero"),
                                     signed_zero, y], "zero_signed")
    fill = 0 if _fill_mode(layer) == "zero" else _LOWEST[element]
    if fill != _START[element]:  # rule 4
        ones = broadcast(i64(1, "one_row"), add("ShapeOf", "opset3", [ids], "ids_shape",
                                                 builder.attrs("ShapeOf", "opset3", output_type="i64")), "ones")
        counted = add("ScatterElementsUpdate", "opset3", [broadcast(i64(0, "no_row"), rows, "no_rows"), ids, ones,
                                                          i64(0, "has_axis")], "has_rows")
        has = add("Reshape", "opset1", [add("NotEqual", "opset1", [counted, i64(0, "none")], "has"),
                                        i64([-1] + [1] * (rank - 1), "has_shape")], "has_column",
                  builder.attrs("Reshape", "opset1", special_zero=False))
        y = add("Select", "opset1", [has, y, value(fill, work, "fill")], "filled")
    if work != element:  # (in range: the wrap every release computes alike, which `check` can follow)
        y = wrapped(builder, y, element, f"{name}/narrow")
    out = [declared_type(layer.outputs[0])]
    if count is None:
        return output_of(builder.convert(y, element, name, outputs=out))
    return output_of(builder.add("StridedSlice", "opset1", StridedSliceAttrs(begin_mask=(0,), end_mask=(0,)),
                                 [y, i64([0], "kept_begin"), count, i64([1], "kept_step")], name, outputs=out))
