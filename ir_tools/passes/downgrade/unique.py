"""Unique-10 (torch.unique, tf.unique) for releases before 2022.3, which have no Unique: the elements (or the slices
along the axis) compared pairwise, the first occurrences found by NonZero-3.

What the current OpenVINO CPU's Unique-10 gives (its src/plugins/intel_cpu/src/nodes/unique.cpp, measured on 2026.4:
200 seeded layers of f32, f16, i32, i64, and of i8 and u8 flattened, ranks 1 to 4, ties, NaN, +-inf, signed zeros
and the i32 limits planted, equal to this reading): elements compare as IEEE ``==`` (f16 as f32, i64 as i32: 2^40
as 0), so each NaN is unique (a slice holding a NaN too) and -0.0 and 0.0 are one, its value the first
occurrence's; ``indices`` holds each unique element's first occurrence; with sorted false the unique elements come
in the order of their first occurrences, with sorted true ascending (slices lexicographically, their elements in
memory order). Its forms no rewrite can match: sorted true on floats, whose std::sort orders NaN and the signs of
zero as it happens to (``[3, NaN, -0, 1, NaN, 0, inf, -inf, 1, 3, 0, -0]`` gives 10 "unique" elements, 1 and 3
twice); flattened with sorted false, outputs computed only where the reverse indices are read (without them
``[3, 1, 3, 2, 1, 3]`` gives the unique elements ``[3, 0, 0]``, counts of 1); slices of i8 and u8, whose outputs are
what the CPU's memory held (18 of 40 seeded layers: indices of 1005199616); slices along an axis after dims other
than 1, where a slice that matches a unique one in its first blocks is compared with the next unique ones from a
shifted place (its pointers not reset), past its data (1 of 240 seeded layers: ``[[[2147483646, 2147483646,
2147483646, 65536], [16777216, 65536, 2147483646, 2147483646]]]`` along axis 2 gave 3 unique slices of 4 there,
and 4 in a model of its own: what lies past the data decides). The rewrite: equal bit for bit on 2023.0 and 2026.4,
tests/downgrade/test_unique.py's 120 seeded layers and 336 more (96 of up to 1221 elements)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...ir.model import Graph, Layer
from ...ops.operands import normalize_axis
from ..base import PassResult
from ..builder import GraphBuilder, Output, drop_unused, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, const_input, source
from .integer_wrap import wrapped

LABEL = "Unique-10"
_FLOATS = ("f32", "f16")
#: The integer types the CPU's compares compute through f32, inexact beyond 2^24: compared by halves.
_WIDE_INTEGERS = ("i32", "i64")
#: The data types whose slices the CPU computes wrongly (the module's docstring): flattened only.
_BYTES = ("i8", "u8")
#: The data types measured (the module's docstring); others are left.
_MEASURED = (*_FLOATS, *_WIDE_INTEGERS, *_BYTES)
#: The most elements (or slices) compared: the rewrite compares every pair of them.
_LONGEST = 4096


class UniqueTo8(Downgrade):
    """Unique-10 as op versions of opset1 to opset4. The data as rows (flattened: one element each; with an axis,
    Transpose-1 and Reshape-1 to one slice a row), each element a key exact in f32 compares (i32 and i64 as two,
    ``x - low`` and ``low = x mod 2^16``, as topk.py's halves). Rows i and j compared pairwise (Equal-1,
    ReduceLogicalAnd-1 over the keys): row i repeats where it equals an earlier row; NonZero-3 of the others gives the
    first occurrences, in order. Sorted true: each first occurrence's rank, the count of first occurrences
    lexicographically less (Less-1 where the keys before are equal: CumSum-3 of NotEqual-1), and ScatterUpdate-3 of
    the first occurrences to their ranks. The reverse indices: ReduceSum-1 of the position among the uniques (CumSum-3
    of the first occurrences, or the rank) of the first occurrence each row equals (a row equals itself, NaN too); the
    counts: ReduceSum-1 of the rows equal to each; the unique elements: Gather-1 of the data at the indices.

    Left (``declines``): the CPU's forms no rewrite can match (the module's docstring), an axis not a Const (no
    OpenVINO validates one), data of a dynamic rank or of a type not measured, more than 4096 rows where their count
    is static (a dynamic count is taken: N^2 pairs per layer). Rows of zero elements (a static or fed dim of 0
    besides the axis) are not measured."""

    rewrites = {LABEL: "into its rows (elements, or slices along a constant axis) compared pairwise by Equal-1 and "
                       "ReduceLogicalAnd-1 (i32 and i64 by halves, each exact in f32), NonZero-3 of their first "
                       "occurrences, ranks by Less-1 and CumSum-3 ordered by ScatterUpdate-3 where sorted, and "
                       "ReduceSum-1 and Gather-1 for the reverse indices, counts and unique elements; on f32 and f16 "
                       "with sorted false, on i32 and i64, on i8 and u8 flattened; along an axis after dims of 1 only; "
                       "flattened with sorted false where its reverse indices are read; with at most 4096 rows or a "
                       "dynamic count"}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        data = declared_type(layer.inputs[0])
        if data.shape is None:
            return "its data's rank is not known"
        if data.element not in _MEASURED:
            return f"a Unique-10 on {data.element or 'an unknown element type'} is not measured"
        sorted_ = layer.attrs.get("sorted", "true") == "true"
        if sorted_ and data.element in _FLOATS:
            return ("it is sorted on floats: the current OpenVINO CPU's sort orders NaN and the signs of zero as no "
                    "rewrite can (a NaN among the data gives some unique elements twice)")
        if len(layer.inputs) > 1:
            axis = const_input(graph, layer, 1)
            if axis is None:
                return "its axis is not a constant"
            if data.element in _BYTES:
                return (f"it has slices of {data.element}: the current OpenVINO CPU gives what its memory held there "
                        "(indices of 1005199616)")
            at = normalize_axis(int(axis.reshape(-1)[0]), len(data.shape))
            if any(not d.is_static or d.lo != 1 for d in data.shape[:at]):
                return (f"it takes slices along axis {at} after dims other than 1 (or not known): the current "
                        "OpenVINO CPU compares a slice with the later unique ones from a shifted place there, past "
                        "its data")
            count = data.shape[at]
            if count.is_static and count.lo > _LONGEST:
                return (f"it has {count.lo} slices along its axis: the rewrite compares every pair of them, and more "
                        f"than {_LONGEST} are left")
            return None
        if not sorted_ and not graph.output_read(layer, 2):
            return ("it is flattened with sorted false and its reverse indices are not read: the current OpenVINO "
                    "CPU computes none of its outputs then (it gives other unique elements and counts of 1)")
        if all(d.is_static for d in data.shape) and (size := int(np.prod([d.lo for d in data.shape]))) > _LONGEST:
            return (f"it has {size} elements: the rewrite compares every pair of them, and more than {_LONGEST} are "
                    "left")
        return None

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            made = builder.replace_layer(layer, lambda: _unique(builder, layer),  # noqa: B023
                                         origin_text(layer, LABEL))
            drop_unused(graph, made)  # (what computes an output nothing reads)
            sorted_ = layer.attrs.get("sorted", "true")
            stats[f"{LABEL} (sorted {sorted_}) -> rows compared pairwise, NonZero-3"] += 1
        return PassResult(graph, bool(stats), stats)


def _unique(builder: GraphBuilder, layer: Layer) -> list[Output]:
    """``layer``'s four outputs: the unique elements, their first indices, the reverse indices and the counts."""
    graph, name = builder.graph, layer.name
    index_element = layer.attrs.get("index_element_type", "i64")
    index_type = np.dtype({"i32": np.int32, "i64": np.int64}[index_element])
    data = source(graph, layer, 0)
    data_type = declared_type(layer.inputs[0])
    assert data_type.shape is not None and data_type.element is not None
    rank = len(data_type.shape)

    def add(op_type: str, inputs: list[Output], what: str, version: str = "opset1", **attrs: object) -> Output:
        typed = builder.attrs(op_type, version, **attrs) if attrs else None
        return output_of(builder.add(op_type, version, typed, inputs, f"{name}/{what}"))

    def const(value: object, dtype: type | np.dtype, what: str) -> Output:
        return builder.const(np.array(value, dtype), f"{name}/{what}")

    def number(x: Output, element: str, what: str) -> Output:
        return output_of(builder.convert(x, element, f"{name}/{what}"))

    axis0, along_i, along_j, along_keys = (const(0, np.int64, "axis0"), const([0], np.int64, "along_i"),
                                           const([1], np.int64, "along_j"), const([2], np.int64, "along_keys"))
    rows_shape = const([0, -1], np.int64, "rows_shape")  # (Reshape-1 special_zero: the rows kept, the rest one)
    if len(layer.inputs) > 1:
        axis_value = const_input(graph, layer, 1)
        assert axis_value is not None
        axis = normalize_axis(int(axis_value.reshape(-1)[0]), rank)
        moved = data if axis == 0 else add("Transpose", [data, const(
            [axis, *(d for d in range(rank) if d != axis)], np.int64, "axis_order")], "axis_first")
        rows = add("Reshape", [moved, rows_shape], "rows", special_zero=True)
        gathered, gather_axis = data, const(axis, np.int64, "values_axis")
    else:
        gathered = add("Reshape", [data, const([-1], np.int64, "flat_shape")], "flat", special_zero=False)
        rows, gather_axis = add("Unsqueeze", [gathered, along_j], "rows"), axis0
    if data_type.element in _WIDE_INTEGERS:  # by halves, each exact in f32 (x - low a multiple of 2^16)
        x = rows if data_type.element == "i32" else number(rows, "i32", "i32")
        low = number(wrapped(builder, x, "u16", f"{name}/low_u16"), "i32", "low")
        high = add("Subtract", [x, low], "high")
        halves = add("Concat", [add("Unsqueeze", [high, along_keys], "high_key"),
                                add("Unsqueeze", [low, along_keys], "low_key")], "halves", axis=2)
        keys = add("Reshape", [halves, rows_shape], "keys", special_zero=True)
    else:
        keys = rows
    key_i, key_j = add("Unsqueeze", [keys, along_j], "key_i"), add("Unsqueeze", [keys, along_i], "key_j")
    equal = add("ReduceLogicalAnd", [add("Equal", [key_i, key_j], "key_equal"), along_keys], "equal",
                keep_dims=False)
    count = add("Gather", [add("ShapeOf", [rows], "rows_size", version="opset3", output_type=index_element),
                           axis0, axis0], "row_count")
    zero = const(0, index_type, "zero")
    positions = add("Range", [zero, count, const(1, index_type, "one")], "positions",
                    version="opset4", output_type=index_element)
    position_i, position_j = (add("Unsqueeze", [positions, along_j], "position_i"),
                              add("Unsqueeze", [positions, along_i], "position_j"))
    repeats = add("ReduceLogicalOr", [add("LogicalAnd", [equal, add("Less", [position_j, position_i], "earlier")],
                                          "equal_earlier"), along_j], "repeats", keep_dims=False)
    first = add("LogicalNot", [repeats], "is_first")
    first_j = add("Unsqueeze", [first, along_i], "first_j")
    firsts = add("Squeeze", [add("NonZero", [first], "first_at", version="opset3", output_type=index_element),
                             along_i], "firsts")
    if layer.attrs.get("sorted", "true") == "true":
        differ = number(add("NotEqual", [key_i, key_j], "key_differ"), index_element, "differ")
        before = add("CumSum", [differ, const(2, np.int64, "keys_axis")], "differ_before", version="opset3",
                     exclusive=True)
        decides = add("LogicalAnd", [add("Less", [key_j, key_i], "key_less"),
                                     add("Equal", [before, zero], "equal_before")], "decides")
        less = add("ReduceLogicalOr", [decides, along_keys], "less", keep_dims=False)
        place = add("ReduceSum", [number(add("LogicalAnd", [less, first_j], "first_less"), index_element,
                                         "first_less_number"), along_j], "rank", keep_dims=False)
        indices = add("ScatterUpdate", [firsts, add("Gather", [place, firsts, axis0], "first_ranks"), firsts, axis0],
                      "indices", version="opset3")
    else:
        place = add("CumSum", [number(first, index_element, "first_number"), axis0], "place", version="opset3",
                    exclusive=True)
        indices = firsts
    same = add("LogicalOr", [equal, add("Equal", [position_i, position_j], "itself")], "same")
    reverse = add("ReduceSum", [add("Select", [add("LogicalAnd", [same, first_j], "its_first"),
                                               add("Unsqueeze", [place, along_i], "place_j"), zero], "its_place"),
                                along_j], "reverse", keep_dims=False)
    counted = add("ReduceSum", [number(same, layer.attrs.get("count_element_type", "i64"), "same_number"), along_i],
                  "counted", keep_dims=False)
    counts = add("Gather", [counted, indices, axis0], "counts")
    return [add("Gather", [gathered, indices, gather_axis], "values"), indices, reverse, counts]
