"""AdaptiveAvgPool-8 and AdaptiveMaxPool-8 as opset1 slices, reductions and concatenations."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dims import DYNAMIC
from ...ir.model import Graph, Layer
from ...ops.movement import StridedSliceAttrs
from ...ops.spec import TensorType
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, const_input, numpy_dtype, source


class AdaptiveAvgPoolTo1(Downgrade):
    """AdaptiveAvgPool-8 for releases before 2022.1. Output bin ``i`` of a spatial axis of length ``n`` and output
    size ``o`` averages ``[floor(i*n/o), ceil((i+1)*n/o))``; a bin is the product of one such interval per axis, so
    its mean is the mean, axis after axis, of the means over each interval. Each axis is pooled in turn: one
    StridedSlice-1 and ReduceMean-1 (keep_dims) per output index, joined by Concat-1; the bounds are constants on a
    static length and computed from ShapeOf-1 on a dynamic one. Needs a static rank and a constant output size of
    positive values; any other is left, for ``retarget`` to refuse."""

    rewrites = {"AdaptiveAvgPool-8": "into StridedSlice-1, ReduceMean-1 and Concat-1 per output row and column "
                                     "(its output size a constant)"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            sizes = _output_size(graph, layer)
            if sizes is None:
                continue
            builder.replace_layer(
                layer, lambda: [_pooled(builder, source(graph, layer, 0), sizes, layer.name, "ReduceMean")],  # noqa: B023
                origin_text(layer, "AdaptiveAvgPool-8"))
            stats["AdaptiveAvgPool-8 -> StridedSlice-1/ReduceMean-1/Concat-1"] += 1
        return PassResult(graph, bool(stats), stats)


class AdaptiveMaxPoolTo1(Downgrade):
    """AdaptiveMaxPool-8 whose indices nothing reads, for releases before 2022.1: its bins are AdaptiveAvgPool's
    (``_pooled``, the maximum taken axis after axis). What OpenVINO CPU computes, measured on 2023.0 and 2026.4:

    1. an output size of all ones is ReduceMax-1 over the spatial axes (OpenVINO's own AdaptivePoolToReduce, which
       the current release runs): so it is rewritten;
    2. any other runs the adaptive pooling kernel, which starts from a bin's first element (row-major) and takes
       each later one that is greater: a NaN first element gives NaN, a later NaN is passed over, a bin of -inf gives
       -inf and a bin whose maximum is zero gives its first zero, -0 or +0; ReduceMax-1 starts from the lowest finite
       value (a bin of -inf gives -3.4e38), lets a NaN through by its place and picks a zero's sign otherwise. So the
       bin's maximum is taken over the data with each NaN made -inf (NotEqual-1, Select-1); a bin with nothing above
       -inf (the maximum, by ReduceMax-1 too, of Greater-1 converted) gives -inf; a zero gets the sign of the bin's
       first zero (``_first_zero_negative``); and a bin whose first element (a StridedSlice-1 of one element per
       axis) is NaN gives that element.

    200 seeded layers (NaN, infinities and signed zeros among the values, f16, dynamic dims): bit for bit on 2023.0
    and 2026.4. Needs f32 or f16 data, a static rank and a constant output size of positive values; any other is
    left, for ``retarget`` to refuse (as is one whose indices are read: no older op gives them)."""

    rewrites = {"AdaptiveMaxPool-8": "into StridedSlice-1, ReduceMax-1, Select-1 and Concat-1 per output row and "
                                     "column, as its kernel takes NaN, -inf and signed zeros (its output size a "
                                     "constant, its indices unused)"}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        if len(layer.outputs) > 1 and graph.consumers(layer.id, layer.outputs[1].id):
            return "its indices output is read, which no older op gives"
        data = source(graph, layer, 0)
        if declared_type(graph.layer(data[0]).output(data[1])).element not in _FLOATS:
            return "its data is not f32 or f16"
        return None

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            sizes = _output_size(graph, layer)
            if sizes is None:
                continue
            layer.outputs = layer.outputs[:1]
            rule = "ReduceMax-1" if all(size == 1 for size in sizes) else "StridedSlice-1/ReduceMax-1/Select-1/Concat-1"
            builder.replace_layer(layer, lambda: [_max_pooled(builder, layer, sizes)],  # noqa: B023
                                  origin_text(layer, "AdaptiveMaxPool-8"))
            stats[f"AdaptiveMaxPool-8 -> {rule}"] += 1
        return PassResult(graph, bool(stats), stats)


#: The element types AdaptiveMaxPoolTo1 rewrites (those with NaN and -inf, which it reproduces).
_FLOATS = frozenset({"f32", "f16"})


def _max_pooled(builder: GraphBuilder, layer: Layer, sizes: list[int]) -> Output:
    """AdaptiveMaxPool-8's values as OpenVINO CPU computes them (``AdaptiveMaxPoolTo1``)."""
    graph, name = builder.graph, layer.name
    data = source(graph, layer, 0)
    if all(size == 1 for size in sizes):
        axes = builder.const(np.arange(2, len(sizes) + 2, dtype=np.int64), f"{name}/axes")
        return output_of(builder.add("ReduceMax", "opset1", builder.attrs("ReduceMax", "opset1", keep_dims=True),
                                     [data, axes], name))
    element, dtype = builder.type_of(data).element, numpy_dtype(builder, data)

    def add(op_type: str, inputs: list[Output], what: str) -> Output:
        return output_of(builder.add(op_type, "opset1", None, inputs, f"{name}/{what}"))

    def value(number: float, what: str) -> Output:
        return builder.const(np.array(number, dtype), f"{name}/{what}")

    lowest = value(-np.inf, "minus_inf")
    cleaned = add("Select", [add("NotEqual", [data, data], "nan"), lowest, data], "nan_as_minus_inf")
    top = _pooled(builder, cleaned, sizes, f"{name}/top", "ReduceMax")
    above = output_of(builder.convert(add("Greater", [cleaned, lowest], "above"), element, f"{name}/above_f"))
    seen = output_of(builder.convert(_pooled(builder, above, sizes, f"{name}/seen", "ReduceMax"), "boolean",
                                     f"{name}/seen_any"))
    found = add("Select", [seen, top, lowest], "found")
    signed_zero = add("Select", [_first_zero_negative(builder, data, sizes, f"{name}/zero_sign"),
                                 value(-0.0, "negative_zero"), value(0.0, "positive_zero")], "signed_zero")
    zero_signed = add("Select", [add("Equal", [found, value(0.0, "zero")], "found_zero"), signed_zero, found],
                      "zero_signed")
    first = _pooled(builder, data, sizes, f"{name}/first", None)
    return output_of(builder.add("Select", "opset1", None, [add("NotEqual", [first, first], "first_nan"), first,
                                                             zero_signed], name))


def _first_zero_negative(builder: GraphBuilder, data: Output, sizes: list[int], name: str) -> Output:
    """Per bin, whether its first zero in the kernel's order (row-major) is -0. Each element gets a key in f32: -2
    times its position along the last axis, plus 1 for -0 (``1 / x < 0``), and -3.4e38 (the lowest f32) added where
    it is not zero; the keys are reduced by ReduceMax-1 over each bin along that axis (the largest key: the first
    zero; ReduceMax-1 gives a bin of none the lowest f32), then each bin that holds a zero is keyed anew by its
    position along the axis before, plus the parity of its key (FloorMod-1: the sign of its first zero), and so on to
    the first spatial axis. Every key is an integer of at most twice an axis' length, exact in f32, and the lowest f32
    plus one is the lowest f32. (Added, not chosen by a Select-1: OpenVINO 2023.0 CPU dies of SIGSEGV on a Select-1
    of Greater-1 over such a key on dynamic dims.)"""
    def add(op_type: str, inputs: list[Output], what: str) -> Output:
        return output_of(builder.add(op_type, "opset1", None, inputs, f"{name}/{what}"))

    rank = len(sizes) + 2

    def value(number: float, dtype: np.dtype | type, what: str) -> Output:
        # (of the data's rank: OpenVINO 2023.0 CPU failed to compile a scalar's broadcast in an earlier form of this
        # chain on dynamic dims, "Reorder node ... doesn't support case when input and output shapes have different
        # rank and dynamic")
        return builder.const(np.full([1] * rank, number, dtype), f"{name}/{what}")

    dtype = numpy_dtype(builder, data)
    zero = value(0, dtype, "zero")
    reciprocal = add("Divide", [value(1, dtype, "one"), data], "reciprocal")
    sign = output_of(builder.convert(add("Less", [reciprocal, zero], "negative"), "f32", f"{name}/negative_f"))
    held = add("Equal", [data, zero], "is_zero")
    one, two = value(1, np.float32, "one_f32"), value(2, np.float32, "two")
    lowest = value(np.finfo(np.float32).min, np.float32, "lowest")
    highest = value(np.finfo(np.float32).max, np.float32, "highest")
    for axis in reversed(range(2, rank)):
        where = f"axis{axis}"
        absent = add("Multiply", [add("Subtract", [output_of(builder.convert(held, "f32", f"{name}/{where}/held")),
                                                   one], f"{where}/not_held"), highest], f"{where}/absent")
        keys = add("Add", [_positions(builder, data, axis, rank, f"{name}/{where}"), sign], f"{where}/keys")
        key = _pool_axis(builder, add("Add", [keys, absent], f"{where}/keyed"), axis, sizes[axis - 2],
                         f"{name}/{where}", "ReduceMax")
        held = add("Greater", [key, lowest], f"{where}/holds_zero")
        sign = add("FloorMod", [key, two], f"{where}/sign")
    return add("Equal", [sign, one], "first_negative")


def _positions(builder: GraphBuilder, data: Output, axis: int, rank: int, name: str) -> Output:
    """-2 times each index along ``axis`` of ``data``, in f32, laid along that axis of a tensor of ``rank``
    (a Const on a static length, else Range-4 of its length, from ShapeOf-1)."""
    laid = [1] * axis + [-1] + [1] * (rank - axis - 1)
    length = builder.type_of(data).shape[axis]
    if length.is_static:
        return builder.const((-2 * np.arange(length.lo, dtype=np.float32)).reshape(laid), f"{name}/positions")
    i64 = builder.const
    shape = builder.add("ShapeOf", "opset1", None, [data], f"{name}/positions_shape")
    dim = builder.add("Gather", "opset1", None, [shape, i64(np.array(axis, np.int64), f"{name}/positions_at"),
                                                 i64(np.array(0, np.int64), f"{name}/positions_axis")],
                      f"{name}/positions_length")
    indices = builder.add("Range", "opset4", builder.attrs("Range", "opset4", output_type="f32"),
                          [i64(np.array(0, np.int64), f"{name}/positions_start"), dim,
                           i64(np.array(1, np.int64), f"{name}/positions_step")], f"{name}/indices")
    doubled = builder.add("Multiply", "opset1", None, [indices, builder.const(np.array(-2, np.float32),
                                                                               f"{name}/minus_two")],
                          f"{name}/doubled")
    return output_of(builder.add("Reshape", "opset1", builder.attrs("Reshape", "opset1", special_zero=False),
                                 [doubled, i64(np.array(laid, np.int64), f"{name}/positions_laid")],
                                 f"{name}/positions"))


def _output_size(graph: Graph, layer: Layer) -> list[int] | None:
    """The output size per spatial axis; None unless it is a constant of positive values over a static rank."""
    data = source(graph, layer, 0)
    shape = declared_type(graph.layer(data[0]).output(data[1])).shape
    value = const_input(graph, layer, 1)
    if shape is None or value is None:
        return None
    raw = value.reshape(-1)
    sizes = [int(v) for v in (np.trunc(raw) if raw.dtype.kind == "f" else raw)]
    return sizes if len(sizes) == len(shape) - 2 and all(v > 0 for v in sizes) else None


def _pooled(builder: GraphBuilder, data: Output, sizes: list[int], name: str, reduction: str | None) -> Output:
    """``data`` pooled adaptively to ``sizes``, axis after axis: each bin reduced by ``reduction`` (ReduceMean,
    ReduceMax), or, None, its first element."""
    for axis, size in enumerate(sizes, start=2):
        data = _pool_axis(builder, data, axis, size, f"{name}/axis{axis}", reduction)
    return data


def _pool_axis(builder: GraphBuilder, data: Output, axis: int, size: int, name: str,
               reduction: str | None) -> Output:
    """``data`` pooled adaptively to ``size`` along ``axis`` (``reduction``: ``_pooled``'s)."""
    given = builder.type_of(data)
    length = given.shape[axis]
    first_only = reduction is None
    begins, ends = (_static_bounds(builder, axis, length.lo, size, name, first_only) if length.is_static
                    else _dynamic_bounds(builder, data, axis, size, name, first_only))
    window_type = None if length.is_static else TensorType(given.element, given.shape[:axis] + (DYNAMIC,)
                                                           + given.shape[axis + 1:])
    mask = (1,) * axis + (0,)
    attrs = StridedSliceAttrs(begin_mask=mask, end_mask=mask, new_axis_mask=(0,) * (axis + 1),
                              shrink_axis_mask=(0,) * (axis + 1), ellipsis_mask=(0,) * (axis + 1))
    strides = builder.const(np.ones(axis + 1, np.int64), f"{name}/strides")
    bins = [output_of(builder.add("StridedSlice", "opset1", attrs, [data, begins[i], ends[i], strides],
                                  f"{name}/{i}/window", outputs=None if window_type is None else [window_type]))
            for i in range(size)]
    if reduction is not None:
        axes = builder.const(np.array([axis], np.int64), f"{name}/axes")
        kept = builder.attrs(reduction, "opset1", keep_dims=True)
        bins = [output_of(builder.add(reduction, "opset1", kept, [window, axes], f"{name}/{i}/{reduction}"))
                for i, window in enumerate(bins)]
    if size == 1:
        return bins[0]
    return output_of(builder.add("Concat", "opset1", builder.attrs("Concat", "opset1", axis=axis), bins, name))


def _static_bounds(builder: GraphBuilder, axis: int, length: int, size: int, name: str,
                   first_only: bool) -> tuple[list[Output], list[Output]]:
    """Each bin's begin and end (``first_only``: its begin plus one) as constants over the dims up to the axis (the
    others masked)."""
    begins, ends = [], []
    for i in range(size):
        begin = i * length // size
        for bounds, value, what in ((begins, begin, "begin"),
                                    (ends, begin + 1 if first_only else -(-(i + 1) * length // size), "end")):
            laid = np.zeros(axis + 1, np.int64)
            laid[-1] = value
            bounds.append(builder.const(laid, f"{name}/{i}/{what}"))
    return begins, ends


def _dynamic_bounds(builder: GraphBuilder, data: Output, axis: int, size: int, name: str,
                    first_only: bool) -> tuple[list[Output], list[Output]]:
    """Each bin's begin and end, computed from the axis' length: ``i*n // o`` and ``((i+1)*n + o-1) // o``
    (``first_only``: the begin plus one)."""
    i64 = builder.const
    gather_axis = i64(np.array(0, np.int64), f"{name}/gather_axis")
    shape = builder.add("ShapeOf", "opset1", None, [data], f"{name}/shape")
    length = builder.add("Gather", "opset1", None, [shape, i64(np.array([axis], np.int64), f"{name}/at"), gather_axis],
                         f"{name}/length")
    steps = i64(np.arange(size + 1, dtype=np.int64), f"{name}/steps")
    scaled = builder.add("Multiply", "opset1", None, [length, steps], f"{name}/scaled")
    divisor = i64(np.array([size], np.int64), f"{name}/size")
    starts = builder.add("Divide", "opset1", None, [scaled, divisor], f"{name}/starts")
    if first_only:
        stops = builder.add("Add", "opset1", None, [starts, i64(np.array([1], np.int64), f"{name}/one")],
                            f"{name}/stops")
        ends_at = 0
    else:
        rounded_up = builder.add("Add", "opset1", None, [scaled, i64(np.array([size - 1], np.int64),
                                                                      f"{name}/round")], f"{name}/scaled_up")
        stops = builder.add("Divide", "opset1", None, [rounded_up, divisor], f"{name}/stops")
        ends_at = 1
    leading = i64(np.zeros(axis, np.int64), f"{name}/leading")
    concat = builder.attrs("Concat", "opset1", axis=0)
    begins, ends = [], []
    for i in range(size):
        for bounds, table, at, what in ((begins, starts, i, "begin"), (ends, stops, i + ends_at, "end")):
            where = i64(np.array([at], np.int64), f"{name}/{i}/{what}_at")
            value = builder.add("Gather", "opset1", None, [table, where, gather_axis],
                                f"{name}/{i}/{what}_value")
            bounds.append(output_of(builder.add("Concat", "opset1", concat, [leading, value], f"{name}/{i}/{what}")))
    return begins, ends
