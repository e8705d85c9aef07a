"""MaxPool-8 with dilation or with its indices read, for releases before 2022.1: one slice per kernel tap."""

from __future__ import annotations

from collections import Counter
from math import prod

import numpy as np

from ...base.dims import show_shape
from ...ir.model import Graph, Layer
from ...ops.movement import StridedSliceAttrs
from ...ops.operands import normalize_axis
from ...ops.pool_geometry import dilated
from ...ops.pooling import MaxPool8Attrs, max_pool_geometry
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..pattern import typed_attrs
from ..shapes import declared_type
from .base import Downgrade, source


class MaxPoolTapsTo1(Downgrade):
    """MaxPool-8 that MaxPool-1 cannot be (a dilation, or its indices read), for releases before 2022.1, as OpenVINO
    CPU's kernel computes it (ops/pooling.py: each window starts from the lowest f32, a tap replaces it only when
    strictly greater, so NaN and -inf are never taken, the first maximum in row-major window order wins, its zero
    keeps its sign, and a window with nothing taken gives -3.4e38 and index 0 of its channel): the data padded with
    -inf (Pad-1, never taken), per kernel tap in row-major order a StridedSlice-1 of it, and a chain of Less-1 (the
    window's maximum so far less than the tap: false where either is NaN, as the CPU's Greater-1 is not, ops/arithmetic)
    and Select-1 from a constant lowest f32, which carries the values and, where the indices are read, which tap won:

    1. on static spatial dims, the tap's flattened positions, constants counted from ``axis`` (plus each batch item's
       or channel's offset for axis 0 or 1);
    2. on dynamic ones (explicit or valid pads; ceil as floor with ``stride - 1`` more padding at the end, which adds
       no tap), the slices' ends counted from the end of the padded data, and the tap's ordinal, made a position by a
       Gather-1 of each tap's offset within the window plus each window's first position (Range-4 of the window
       counts, times the lengths from ShapeOf-3), times 0 where the window took nothing (its maximum -3.4e38; a
       Select-1 there dies of SIGSEGV on 2023.0); indices from axis 2 only.

    Indices in i32 (as OpenVINO CPU holds i64), Converted to i64 at the end where the type asks it. The original
    measured on 2023.0 and 2026.4 over 59 seeded layers (NaN, infinities, signed zeros, ties; indices read or not):
    the same kernel; the rewrite bit for bit on both over 960 seeded layers, 288 of dynamic spatial dims.

    Declined: data other than f32 (OpenVINO CPU pools f16 in f32, where a window of nothing taken gives -3.4e38,
    which no f16 constant holds), indices counted from axis 0 or 1 over a dynamic batch or channel dim, inputs of
    2**31 elements or more (the positions in i32), and on dynamic spatial dims auto_pad same_upper or same_lower
    (pads that depend on the length) and indices from another axis than 2."""

    rewrites = {"MaxPool-8": "into Pad-1, and StridedSlice-1, Less-1 and Select-1 per kernel tap, where it has "
                             "a dilation or its indices are read (f32 data)"}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        a: MaxPool8Attrs = typed_attrs(layer)
        read = graph.output_read(layer, 1)
        if not read and all(d == 1 for d in a.dilations_or_ones):
            return None  # (MaxPoolTo1's)
        key = source(graph, layer, 0)
        data = declared_type(graph.layer(key[0]).output(key[1]))
        if data.shape is None:
            return "its input's rank is dynamic; the rewrite per kernel tap needs it"
        if data.element != "f32":
            return (f"its data is {data.element}; the rewrite per kernel tap is f32 only (OpenVINO CPU pools f16 in "
                    "f32, and a window with nothing taken gives -3.4e38, which no f16 constant holds)")
        axis = normalize_axis(a.axis, len(data.shape))
        if not all(d.is_static for d in data.shape[2:]):
            if a.auto_pad in ("same_upper", "same_lower"):
                return (f"its input {show_shape(data.shape)} has a dynamic spatial dim and auto_pad {a.auto_pad}; the "
                        "rewrite per kernel tap needs static spatial dims there (the pads depend on the length)")
            if read and axis != 2:
                return (f"its indices count from axis {a.axis} and its input {show_shape(data.shape)} has a dynamic "
                        "spatial dim; the rewrite per kernel tap counts them from axis 2 only there")
            return None
        if read and not all(d.is_static for d in data.shape[axis:2]):
            return (f"its indices count from axis {a.axis} over the dynamic dims of its input "
                    f"{show_shape(data.shape)}; the rewrite per kernel tap needs them static")
        if read and prod(d.lo for d in data.shape[axis:]) >= 2**31:
            return (f"its indices from axis {a.axis} reach 2**31 (input {show_shape(data.shape)}); the rewrite per "
                    "kernel tap computes them in i32")
        return None

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            a: MaxPool8Attrs = typed_attrs(layer)
            read = graph.output_read(layer, 1)
            if not read and all(d == 1 for d in a.dilations_or_ones):
                continue
            if not read:
                layer.outputs = layer.outputs[:1]
            data = builder.type_of(source(graph, layer, 0))
            static = all(d.is_static for d in data.shape[2:])
            build = _static_pooled if static else _dynamic_pooled
            builder.replace_layer(layer, lambda: build(builder, layer, a, read),  # noqa: B023
                                  origin_text(layer, "MaxPool-8"))
            what = ("indices read" if read else "dilated, indices unused") + ("" if static else ", dynamic")
            stats[f"MaxPool-8 ({what}) -> Pad-1/StridedSlice-1/Less-1/Select-1 per kernel tap"] += 1
        return PassResult(graph, bool(stats), stats)


class _Chain:
    """The Less-1/Select-1 chain over the taps of one MaxPool-8 layer: the window's maximum so far (``best``), and
    what each tap that replaced it marks (``index``: a position or a tap's ordinal, i32)."""

    def __init__(self, builder: GraphBuilder, name: str, rank: int, padded: Output, strides: tuple[int, ...]):
        self.builder, self.name, self.rank, self.padded = builder, name, rank, padded
        self.steps = builder.const(np.array([1, 1, *strides], np.int64), f"{name}/strides")
        self.lowest = builder.const(np.full([1] * rank, np.finfo(np.float32).min, np.float32), f"{name}/lowest")
        self.best = self.lowest
        self.index = builder.const(np.zeros([1] * rank, np.int32), f"{name}/no_index")

    def add(self, op_type: str, inputs: list[Output], what: str) -> Output:
        return output_of(self.builder.add(op_type, "opset1", None, inputs, f"{self.name}/{what}"))

    def take(self, tag: str, begin: list[int], end: list[int], mark: np.ndarray | None) -> None:
        """One tap: the padded data sliced from ``begin`` to ``end`` (0 there: to the end) by the strides; where it is
        greater than the maximum so far, it and ``mark`` (None: values only) replace them."""
        spatial = len(begin)
        ends_mask = (1, 1, *(int(e == 0) for e in end))
        attrs = StridedSliceAttrs(begin_mask=(1, 1) + (0,) * spatial, end_mask=ends_mask,
                                  new_axis_mask=(0,) * (spatial + 2), shrink_axis_mask=(0,) * (spatial + 2),
                                  ellipsis_mask=(0,) * (spatial + 2))
        i64 = self.builder.const
        tap = output_of(self.builder.add("StridedSlice", "opset1", attrs, [
            self.padded, i64(np.array([0, 0, *begin], np.int64), f"{self.name}/{tag}/begin"),
            i64(np.array([0, 0, *end], np.int64), f"{self.name}/{tag}/end"), self.steps], f"{self.name}/{tag}/tap"))
        better = self.add("Less", [self.best, tap], f"{tag}/better")
        self.best = self.add("Select", [better, tap, self.best], f"{tag}/best")
        if mark is not None:
            self.index = self.add("Select", [better, self.builder.const(mark, f"{self.name}/{tag}/mark"), self.index],
                                  f"{tag}/index")


def _static_pooled(builder: GraphBuilder, layer: Layer, a: MaxPool8Attrs, read: bool) -> list[Output]:
    """Rule 1 of ``MaxPoolTapsTo1``: the values (and, ``read``, the indices) of ``layer`` on static spatial dims."""
    graph, name = builder.graph, layer.name
    key = source(graph, layer, 0)
    data = builder.type_of(key)
    lengths = tuple(d.lo for d in data.shape[2:])
    g = max_pool_geometry(a, data, "MaxPool-8")
    out = tuple(d.lo for d in g.spatial)
    rank, dilations = len(lengths), a.dilations_or_ones
    frame = [max(pb + n, (o - 1) * s + dilated(k, d)) for pb, n, o, s, k, d in zip(
        g.pads_begin, lengths, out, a.strides, a.kernel, dilations, strict=True)]
    padded = _padded(builder, key, g.pads_begin, [f - pb - n for f, pb, n in zip(frame, g.pads_begin, lengths,
                                                                                    strict=True)], name)
    chain = _Chain(builder, name, rank + 2, padded, a.strides)
    axis = normalize_axis(a.axis, rank + 2)
    places = np.cumprod((1, *lengths[:0:-1]))[::-1]
    modulus = prod(lengths[axis - 2:]) if axis >= 2 else None
    for taps in np.ndindex(*a.kernel):
        begin = [t * d for t, d in zip(taps, dilations, strict=True)]
        end = [b + (o - 1) * s + 1 for b, o, s in zip(begin, out, a.strides, strict=True)]
        mark = None
        if read:
            at = sum((np.arange(o, dtype=np.int64) * s - pb + t * d).reshape((-1,) + (1,) * (rank - 1 - i)) * int(p)
                     for i, (o, s, pb, t, d, p) in enumerate(zip(out, a.strides, g.pads_begin, taps, dilations, places,
                                                                 strict=True)))
            if modulus is not None:
                at = at % modulus
            mark = np.broadcast_to(at, out).reshape((1, 1, *out)).astype(np.int32)
        chain.take("_".join(map(str, taps)), begin, end, mark)
    if not read:
        return [chain.best]
    index = chain.index
    if axis < 2:
        dims = [d.lo for d in data.shape[axis:2]]
        offsets = np.arange(prod(dims), dtype=np.int32).reshape([1] * axis + dims + [1] * rank) * prod(lengths)
        index = chain.add("Add", [index, builder.const(offsets.astype(np.int32), f"{name}/channel_offsets")],
                          "indices_i32")
    return [chain.best, _typed(builder, index, a, name)]


def _dynamic_pooled(builder: GraphBuilder, layer: Layer, a: MaxPool8Attrs, read: bool) -> list[Output]:
    """Rule 2 of ``MaxPoolTapsTo1``: the values (and, ``read``, the indices from axis 2) of ``layer`` on dynamic
    spatial dims."""
    graph, name = builder.graph, layer.name
    key = source(graph, layer, 0)
    rank, dilations = len(a.kernel), a.dilations_or_ones
    explicit = a.auto_pad == "explicit"
    begins = tuple(a.pads_begin or (0,) * rank) if explicit else (0,) * rank
    ends = [(e if explicit else 0) + (s - 1 if a.rounding_type == "ceil" else 0)
            for e, s in zip(a.pads_end or (0,) * rank, a.strides, strict=True)]
    chain = _Chain(builder, name, rank + 2, _padded(builder, key, begins, ends, name), a.strides)
    for ordinal, taps in enumerate(np.ndindex(*a.kernel)):
        begin = [t * d for t, d in zip(taps, dilations, strict=True)]
        end = [b - dilated(k, d) + 1 for b, k, d in zip(begin, a.kernel, dilations, strict=True)]
        mark = np.full([1] * (rank + 2), ordinal, np.int32) if read else None
        chain.take("_".join(map(str, taps)), begin, end, mark)
    if not read:
        return [chain.best]
    return [chain.best, _typed(builder, _positions(builder, chain, key, a, begins), a, name)]


def _positions(builder: GraphBuilder, chain: _Chain, data: Output, a: MaxPool8Attrs,
               begins: tuple[int, ...]) -> Output:
    """Rule 2's indices from the winning taps' ordinals (``chain.index``): each tap's offset within its window (a
    Gather-1 of a table of them) plus the window's first position, and 0 where the window took nothing."""
    rank, name, add = len(a.kernel), chain.name, chain.add

    def i32(value: object, what: str) -> Output:
        return builder.const(np.array(value, np.int32), f"{name}/{what}")

    def dims_of(tensor: Output, what: str) -> list[Output]:
        shape = output_of(builder.add("ShapeOf", "opset3", builder.attrs("ShapeOf", "opset3", output_type="i32"),
                                      [tensor], f"{name}/{what}_shape"))
        return [add("Gather", [shape, i32(axis, f"{what}_at{axis}"), i32(0, f"{what}_axis{axis}")], f"{what}_{axis}")
                for axis in range(2, rank + 2)]

    lengths, windows = dims_of(data, "length"), dims_of(chain.best, "windows")
    places = [i32(1, "place_last")]
    for length in reversed(lengths[1:]):
        places.insert(0, add("Multiply", [places[0], length], f"place{len(lengths) - len(places)}"))
    taps = np.array(list(np.ndindex(*a.kernel)), np.int32).reshape(-1, rank)
    table, first = None, None
    for i, (place, count) in enumerate(zip(places, windows, strict=True)):
        along = add("Multiply", [i32(taps[:, i] * a.dilations_or_ones[i], f"tap_offsets{i}"), place], f"table{i}")
        table = along if table is None else add("Add", [table, along], f"table_to{i}")
        starts = output_of(builder.add("Range", "opset4", builder.attrs("Range", "opset4", output_type="i32"), [
            i32(0, f"range_start{i}"), count, i32(1, f"range_step{i}")], f"{name}/windows{i}"))
        shifted = add("Add", [add("Multiply", [starts, i32(a.strides[i], f"stride{i}")], f"starts{i}"),
                              i32(-begins[i], f"pad_begin{i}")], f"shifted{i}")
        laid = np.array([1] * (i + 2) + [-1] + [1] * (rank - 1 - i), np.int64)
        placed = output_of(builder.add("Reshape", "opset1", builder.attrs("Reshape", "opset1", special_zero=False), [
            add("Multiply", [shifted, place], f"placed{i}"), builder.const(laid, f"{name}/laid{i}")],
            f"{name}/first{i}"))
        first = placed if first is None else add("Add", [first, placed], f"first_to{i}")
    offset = add("Gather", [table, chain.index, i32(0, "table_axis")], "tap_offset")
    taken = builder.convert(add("Less", [chain.lowest, chain.best], "taken"), "i32", f"{name}/taken_i32")
    return add("Multiply", [add("Add", [first, offset], "position"), output_of(taken)], "indices_i32")


def _typed(builder: GraphBuilder, index: Output, a: MaxPool8Attrs, name: str) -> Output:
    """The i32 indices in ``index_element_type``."""
    return output_of(builder.convert(index, "i64", f"{name}/indices")) if a.index_element_type == "i64" else index


def _padded(builder: GraphBuilder, data: Output, begin: tuple[int, ...], end: list[int], name: str) -> Output:
    """``data`` with -inf (never greater than a window's start) laid before and after its spatial axes, as far as
    the windows reach; ``data`` itself where they reach no further."""
    if not any(begin) and not any(end):
        return data
    return output_of(builder.add("Pad", "opset1", builder.attrs("Pad", "opset1", pad_mode="constant"), [
        data, builder.const(np.array([0, 0, *begin], np.int64), f"{name}/pads_begin"),
        builder.const(np.array([0, 0, *end], np.int64), f"{name}/pads_end"),
        builder.const(np.array(-np.inf, np.float32), f"{name}/pad_value")], f"{name}/padded"))
