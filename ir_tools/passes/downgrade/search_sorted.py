"""SearchSorted-15 as Unsqueeze-1, Less-1 (LessEqual-1), Convert-1 and ReduceSum-1 (releases before 2024.5 have no
opset15)."""

from __future__ import annotations

import numpy as np

from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ..base import PassResult
from ..builder import GraphBuilder, Output, output_of
from ..shapes import declared_type
from .base import Downgrade, numpy_dtype, source

LABEL = "SearchSorted-15"


class SearchSortedTo1(Downgrade):
    """SearchSorted-15 (``y[..., m]``: where ``values[..., m]`` goes into the sorted ``sorted_sequence[..., :]``, the
    first place, or with right_mode the last; OpenVINO's reference, which the CPU runs, is ``std::lower_bound`` by
    ``<``, or by ``<=``), exactly, as a count: the elements less than the value (``<=`` with right_mode), the
    booleans of Less-1 (LessEqual-1) of ``Unsqueeze(sorted, -2)`` ([..., 1, N]; a 1-D sequence as it is, for values
    of any rank) and ``Unsqueeze(values, -1)`` ([..., M, 1]) made the output type by Convert-1 and summed by
    ReduceSum-1 over the last axis. A NaN value is less than nothing, so it counts 0 in either mode, as the binary
    search gives (not ``NOT(v < s)``, which counts N). OpenVINO CPU compares i32 and i64 in f32 (2^24 + 1 < 2^24 + 2
    is false on 2023.0 to 2026.4: measured), where its SearchSorted is exact, so those are compared by the sign of a
    difference (``_wide_before``); every other type it compares exactly (f64 made f32 for the whole model, as for
    the op). u32 and u64 are left, as is a sequence of a dynamic rank (``declines``), for ``retarget`` to refuse."""

    rewrites = {LABEL: "into Unsqueeze-1, Less-1 (LessEqual-1 with right_mode), Convert-1 and ReduceSum-1 (on i32 "
                       "and i64 by the sign of a Subtract-1, Select-1) where its sorted_sequence's rank is static "
                       "and its inputs are not u32 or u64"}

    def apply(self, graph: Graph) -> PassResult:
        return self.replace_each(graph, _search, LABEL, "Less-1 + Convert-1 + ReduceSum-1")

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        """A sequence of a dynamic rank (the IR declares no dims for it, as for a scalar, which a sequence is never):
        a 1-D one, compared with values of any rank, cannot be told from others. u32 and u64 inputs: their difference
        has no sign, and 2023.0 converts them into a signed type saturating where the current OpenVINO wraps. The
        values' rank is not needed."""
        if not declared_type(layer.inputs[0]).shape:
            return ("its sorted_sequence has a dynamic rank, where a 1-D one, compared with values of any rank, cannot "
                    "be told from others")
        element = declared_type(layer.inputs[1]).element
        if element in ("u32", "u64"):
            return (f"its inputs are {element}, whose values OpenVINO CPU compares in f32 and whose difference has no "
                    "sign")
        return None


def _search(builder: GraphBuilder, layer: Layer) -> Output:
    """The class's rewrite of the SearchSorted-15 ``layer``: the output standing for its."""
    graph, name = builder.graph, layer.name
    ordered, values = source(graph, layer, 0), source(graph, layer, 1)
    if len(builder.type_of(ordered).shape or ()) > 1:
        ordered = output_of(builder.add("Unsqueeze", "opset1", None, [ordered, builder.const(
            np.array([-2], np.int64), f"{name}/sorted/axis")], f"{name}/sorted/row"))
    column = builder.add("Unsqueeze", "opset1", None, [values, builder.const(np.array([-1], np.int64),
                                                                             f"{name}/values/axis")],
                         f"{name}/values/column")
    right = A.flag(layer.attrs, "right_mode", False)  # (as OpenVINO reads it: "1" too)
    if numpy_dtype(builder, values).kind in "iu" and numpy_dtype(builder, values).itemsize >= 4:
        fixed = graph.layer(values[0]).is_a("Const") and not graph.layer(source(graph, layer, 0)[0]).is_a("Const")
        before = _wide_before(builder, name, ordered, column, right, fixed)
    else:
        before = builder.add("LessEqual" if right else "Less", "opset1", None, [ordered, column], f"{name}/before")
    element = declared_type(layer.outputs[0]).element or str(layer.attrs.get("output_type", "") or "i64").lower()
    counted = builder.convert(before, element, f"{name}/counted")
    return output_of(builder.add("ReduceSum", "opset1", builder.attrs("ReduceSum", "opset1", keep_dims=False),
                                 [counted, builder.const(np.array([-1], np.int64), f"{name}/axis")], name,
                                 outputs=[declared_type(layer.outputs[0])]))


def _wide_before(builder: GraphBuilder, name: str, ordered: Output, column: Output | Layer, right: bool,
                 fixed: bool) -> Layer:
    """``ordered < column`` (``<=`` with ``right``) of 32- and 64-bit integers, exactly though OpenVINO CPU compares
    them in f32 (2^24 + 1 < 2^24 + 2 false): by the sign of their difference (Subtract-1 is exact, and a difference
    keeps its sign, 0 its zero, made f32) where their signs agree, else by the first one's sign. The difference is
    ``column - ordered`` where the values are a Const (``fixed``) and the sequence is not: the CPU subtracts a Const
    by adding its negation, and -(-2^31) saturates in i32. Unsigned ones are left (``declines``)."""
    zero = builder.const(np.array(0, numpy_dtype(builder, column)), f"{name}/zero")
    negative = [builder.add("Less", "opset1", None, [side, zero], f"{name}/{what}_negative")
                for side, what in ((ordered, "sorted"), (column, "values"))]
    alike = builder.add("Equal", "opset1", None, negative, f"{name}/signs_alike")
    pair = [column, ordered] if fixed else [ordered, column]
    difference = builder.add("Subtract", "opset1", None, pair, f"{name}/difference")
    by_difference = builder.add("LessEqual" if right else "Less", "opset1", None,
                                [zero, difference] if fixed else [difference, zero], f"{name}/difference_before")
    return builder.add("Select", "opset1", None, [alike, by_difference, negative[0]], f"{name}/before")
