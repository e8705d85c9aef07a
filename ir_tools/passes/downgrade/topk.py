"""TopK-11 for releases before 2023.0, which have no opset11: stable false as TopK-3, stable with k = 1 (torch's
argmax and argmin) as Reduce ops taking the index the current OpenVINO CPU takes, and stable with another k (torch's
sort and argsort) as ranks counted over pairs of elements, ordered by TopK-3.

What the current OpenVINO CPU's TopK-11 stable with k = 1 and sort value gives (measured on 2026.4: 1920 seeded layers
of f32, f16, i32, i64, i8 and u8, ranks 1 to 4, axes of 1 to 4099 elements, ties, NaN, +-inf and signed zeros
planted; tests/downgrade/test_topk.py's 480, with dynamic dims and one output read alone, agree): the index of a scan
from the first element that moves on where mode max finds ``x > current`` and mode min ``not x >= current``, the
value the element there. So of tied elements the first (-0.0 and 0.0 tie); mode max takes a NaN only at index 0,
where it stays; mode min takes each NaN and the element after it, so it gives the first minimum after the last NaN,
or that NaN where it is the last element. i64 is scanned as its low 32 bits (2^40 + 1 as 1; a target holds i64
within i32 anyway). With sort index the CPU does not take the first of tied elements (105 of 480 seeded layers), and
a stable TopK with sort none does not validate.

With another k and sort value, the CPU's stable TopK (its JIT bubble sort: k elements kept, each next one bubbled up
through all of them; src/plugins/intel_cpu/src/nodes/topk.cpp) orders by value and, of equal values (-0.0 and 0.0
too), by index: i32 exactly, i64 as i32, f16 as f32. A NaN compares false in mode max, so never moves and no element
passes it: a NaN among the first k elements stays at its index and bounds a run of them sorted alone; the elements
from k on join the last run, a NaN among them is never taken. In mode min a NaN swaps with every element it meets
(``!(a <= b)``): each step moves every NaN it holds one place on, so the NaN at index p ends in place N - 1 - p,
and the other places hold a stream's survivors, not the least elements (``[1, NaN, 2, NaN, 0, 2]`` with k 2 gives
the indices 4 and 5: ``_streamed_ranked``). A simulation of those steps agreed with the CPU on 1200 seeded rows with
NaN (static and dynamic shapes, k 1 to 33), and the closed form of ``_streamed_ranked`` with the simulation on 3000;
with sort index and k of 7 or more below the axis's length the CPU keeps other tied elements (49 of 120 seeded
rows), with k of 6 or less the first."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dims import Dim
from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.operands import normalize_axis
from ...ops.spec import TensorType
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
#: The data types the rank form (rule 3) is measured on (the module's docstring).
_RANKED = ("f32", "f16", "i32", "i64")
#: The longest static axis rule 3 takes: it compares every pair of its elements.
_LONGEST = 4096


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
    3. ``stable="true"``, sort value and any other k (a Const or computed: torch.sort's length from ShapeOf), on
       f32, f16, i32 and i64 (held as i32), mode max or min: element i's rank is the count of the
       elements j ahead of it, x_j better for the mode or equal with j < i, from Unsqueeze-1'd copies of the data
       compared pairwise (Less-1 and Equal-1; i32 and i64 by halves, as rule 2; ReduceSum-1 of their Convert-1 in
       index_element_type). On floats in mode max the count is of i's run alone and starts where its run does (the
       module's docstring): the runs told apart by the count of NaN ahead of ``min(i, k)``, a NaN's rank its index;
       in mode min the rank is the place the sort's stream leaves i in (``_streamed_ranked``). TopK-3
       mode min, sort value of the ranks (distinct where below k) with k gives the indices, GatherElements-6 of the
       data at them the values. Exact: measured bit for bit on 2023.0 and 2026.4 over 1440 seeded layers (axes of 2
       to 700 elements; 200 in tests/downgrade/test_topk_stable.py). A dynamic axis is taken unbounded: its pairs
       are length^2 per row.

    Left (``declines``): stable with sort index (the CPU keeps other tied elements than the first), with k other
    than a Const 1 along a static axis of more than 4096 elements (its pairs), data of another type (not measured)
    or of a dynamic rank.
    """

    rewrites = {LABEL: "into TopK-3 where stable is false; where stable is true, sort value and k a constant 1 "
                       "(argmax, argmin) on f32, f16, i32, i64, i8 or u8, into ReduceMax-1 or ReduceMin-1 of the data "
                       "(i32 and i64 by halves, each exact in f32) and ReduceMin-1 of the positions of its first "
                       "extreme (NaN as the current OpenVINO CPU takes it); where stable is true, sort value and any "
                       "other k (sort, argsort) on f32, f16, i32 or i64, along a static axis of at most 4096 elements "
                       "or a dynamic one, into ranks counted by Less-1, Equal-1 and ReduceSum-1 over every pair of "
                       "elements (NaN as the current OpenVINO CPU's bubble sort orders it: CumSum-3 and Gather-1 in "
                       "mode min), TopK-3 of the ranks and GatherElements-6"}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        attrs = A.decode(TopK11Attrs, layer.attrs, layer.loc)
        if not attrs.stable:
            return None
        if attrs.sort != "value":
            return (f"it is stable with sort {attrs.sort}: the current OpenVINO CPU's stable TopK keeps other tied "
                    "elements there than the first (measured with k 1, and k of 7 or more below the axis's length)")
        data = declared_type(layer.inputs[0])
        if data.shape is None:
            return "its data's rank is not known"
        if _k_is_one(graph, layer):
            if data.element not in _MEASURED:
                return f"a stable TopK-11 on {data.element or 'an unknown element type'} is not measured"
            return None
        if data.element not in _RANKED:
            return (f"a stable TopK-11 with k other than a constant 1 on {data.element or 'an unknown element type'} "
                    "is not measured")
        length = data.shape[normalize_axis(attrs.axis, len(data.shape))]
        if length.is_static and length.lo > _LONGEST:
            return (f"it is stable with k other than a constant 1 along an axis of {length.lo} elements: the rewrite "
                    f"compares every pair of them, and more than {_LONGEST} are left")
        return None

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            attrs = A.decode(TopK11Attrs, layer.attrs, layer.loc)
            if attrs.stable:
                first = _k_is_one(graph, layer)
                build = _first_extreme if first else _ranked
                made = builder.replace_layer(layer, lambda: build(builder, layer, attrs),  # noqa: B023
                                             origin_text(layer, LABEL))
                drop_unused(graph, made)  # (what computes an output nothing reads: an argmax's values)
                if first:
                    stats[f"{LABEL} (stable, k 1, mode {attrs.mode}) -> Reduce{attrs.mode.capitalize()}-1"] += 1
                else:
                    stats[f"{LABEL} (stable, mode {attrs.mode}) -> ranks by pairs, TopK-3"] += 1
                continue
            respelled(graph, layer, "opset3")
            layer.attrs = {k: v for k, v in layer.attrs.items() if k != "stable"}
            stats[f"{LABEL} (stable false) -> TopK-3"] += 1
        return PassResult(graph, bool(stats), stats)


def _k_is_one(graph: Graph, layer: Layer) -> bool:
    """Whether ``layer``'s k is a Const 1 (rule 2), else rule 3."""
    k = const_input(graph, layer, 1)
    return k is not None and k.size == 1 and int(k.reshape(-1)[0]) == 1


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


def _ranked(builder: GraphBuilder, layer: Layer, attrs: TopK11Attrs) -> list[Output]:
    """Rule 3 for ``layer``: its values and indices outputs. Element i is compared with each j of its row in a
    tensor of one more dim (i along the axis, j after it): ``ahead`` where j comes ahead of i; i's rank is the count
    of them (on floats: of its run, plus where its run starts), and TopK-3 mode min of the ranks orders the row."""
    graph, name = builder.graph, layer.name
    data, k = source(graph, layer, 0), source(graph, layer, 1)
    data_type = declared_type(layer.inputs[0])
    assert data_type.shape is not None
    rank, element = len(data_type.shape), data_type.element
    axis = normalize_axis(attrs.axis, rank)
    steps = _Steps(builder, name, axis, attrs.mode, attrs.index_element_type)
    positions, length = _positions(steps, data, data_type.shape[axis], rank)
    along_j = steps.builder.const(np.array([axis + 1], np.int64), f"{name}/along_j")
    pairs = _Pairs(steps, along_j)
    position_i, position_j = pairs.as_i(positions, "position", local=True), positions
    earlier = steps.add("Less", [position_j, position_i], "earlier")
    if element in _FLOATS:
        better, equal = _float_order(steps, pairs, data)
    else:
        better, equal = _wide_order(steps, pairs, data)
    ahead = steps.add("LogicalOr", [better, steps.add("LogicalAnd", [equal, earlier], "tied_earlier")], "ahead")
    if element in _FLOATS:
        count_k = output_of(builder.convert(k, attrs.index_element_type, f"{name}/k"))
        if attrs.mode == "max":
            ranks = _runs_ranked(steps, pairs, data, ahead, positions, position_i, position_j, count_k)
        else:
            ranks = _streamed_ranked(steps, pairs, data, ahead, positions, position_i, length, count_k)
    else:
        ranks = pairs.count(ahead, "rank")
    typed = builder.attrs("TopK", "opset3", axis=axis, mode="min", sort="value",
                          index_element_type=attrs.index_element_type)
    # (k may be computed: the shape the layer's values declare; its indices, which it may leave undeclared, share it)
    sorted_type = TensorType(attrs.index_element_type, declared_type(layer.outputs[0]).shape)
    order = output_of(builder.add("TopK", "opset3", typed, [ranks, k], f"{name}/order",
                                  outputs=[TensorType(attrs.index_element_type, sorted_type.shape), sorted_type]), 1)
    return [steps.add("GatherElements", [data, order], "values", version="opset6", axis=axis), order]


class _Pairs:
    """Rule 3's pairwise tensors: a tensor of the data's shape as element i's (``as_i``: an Unsqueeze after the
    axis) or as element j's (``as_j``: an Unsqueeze at the axis); ``count`` sums a pairwise boolean over j."""

    def __init__(self, steps: _Steps, along_j: Output) -> None:
        self.steps, self.along_j = steps, along_j
        self.at_axis = steps.builder.const(np.array([steps.at], np.int64), f"{steps.name}/at_axis")
        self.first = steps.builder.const(np.array([1], np.int64), f"{steps.name}/after_first")

    def as_i(self, x: Output, what: str, local: bool = False) -> Output:
        """``x`` (``what``) as element i's; ``local``: a positions column ([length, 1, ...]), whose axis is its
        first."""
        return self.steps.add("Unsqueeze", [x, self.first if local else self.along_j], f"{what}_i")

    def as_j(self, x: Output, what: str) -> Output:
        return self.steps.add("Unsqueeze", [x, self.at_axis], f"{what}_j")

    def count(self, pairwise: Output, what: str) -> Output:
        """How many j a pairwise boolean holds for, per i (the index type: its ReduceSum, through f32 on the CPU,
        is exact up to 2^24)."""
        steps = self.steps
        ones = output_of(steps.builder.convert(pairwise, steps.index_element, f"{steps.name}/{what}_ones"))
        return steps.add("ReduceSum", [ones, self.along_j], what, keep_dims=False)


def _float_order(steps: _Steps, pairs: _Pairs, data: Output) -> tuple[Output, Output]:
    """Whether x_j is better than x_i for the mode (false where either is NaN), and whether they are equal (-0.0
    equals 0.0, as the CPU's compare takes them). Less-1 both ways: the CPU computes Greater-1 as not less-equal
    (1 > NaN is true, on 2023.0 and 2026.4), Less-1 and Equal-1 as IEEE compares."""
    x_i, x_j = pairs.as_i(data, "x"), pairs.as_j(data, "x")
    return steps.add("Less", _ordered(steps, x_j, x_i), "better"), steps.add("Equal", [x_j, x_i], "equal")


def _ordered(steps: _Steps, x_j: Output, x_i: Output) -> list[Output]:
    """Less-1's inputs for "x_j is better than x_i" in the mode: x_i < x_j for max, x_j < x_i for min."""
    return [x_i, x_j] if steps.reduce_type == "ReduceMax" else [x_j, x_i]


def _wide_order(steps: _Steps, pairs: _Pairs, data: Output) -> tuple[Output, Output]:
    """``_float_order`` on i32 and i64 (held as i32), whose compares the CPU computes through f32 (2147483646 equals
    2147483647 there): by halves, each exact in f32, the high half ``x - low`` (a multiple of 2^16) first, the low
    half ``x mod 2^16`` (``wrapped`` into u16) where the high halves are equal."""
    builder, name = steps.builder, steps.name
    x = data if builder.type_of(data).element == "i32" else output_of(builder.convert(data, "i32", f"{name}/i32"))
    low = output_of(builder.convert(wrapped(builder, x, "u16", f"{name}/low_u16"), "i32", f"{name}/low"))
    high = steps.add("Subtract", [x, low], "high")
    high_i, high_j = pairs.as_i(high, "high"), pairs.as_j(high, "high")
    low_i, low_j = pairs.as_i(low, "low"), pairs.as_j(low, "low")
    same_high = steps.add("Equal", [high_j, high_i], "same_high")
    low_better = steps.add("Less", _ordered(steps, low_j, low_i), "low_better")
    high_better = steps.add("Less", _ordered(steps, high_j, high_i), "high_better")
    by_low = steps.add("LogicalAnd", [same_high, low_better], "by_low")
    better = steps.add("LogicalOr", [high_better, by_low], "better")
    equal = steps.add("LogicalAnd", [same_high, steps.add("Equal", [low_j, low_i], "same_low")], "equal")
    return better, equal


def _runs_ranked(steps: _Steps, pairs: _Pairs, data: Output, ahead: Output, positions: Output, position_i: Output,
                 position_j: Output, k: Output) -> Output:
    """Rule 3's ranks on floats (mode max), as the CPU's bubble sort orders a NaN (the module's docstring): a NaN
    among the first k elements stays where it is and bounds a run, which is sorted alone; an element from k on
    joins the last run of the first k; a NaN from k on is never taken (its rank is its position, k or more). So
    element i's rank is where its run starts (after the last NaN before min(i, k)) plus the count of the elements
    of its run ahead of it. The start is ReduceMax-1 of ``j + 1`` over the NaN j bounding i's run (0 where none), not
    ReduceMax-1 of j plus 1, which the CPU fuses and gave as -1 on rows of no NaN (a dynamic dim, 2023.0 and
    2026.4)."""
    nan = steps.add("NotEqual", [data, data], "is_nan")
    limit = steps.add("Minimum", [position_i, k], "limit")
    bound = steps.add("LogicalAnd", [pairs.as_j(nan, "nan"), steps.add("Less", [position_j, limit], "ahead_of_limit")],
                      "bounding_nan")
    run = pairs.count(bound, "run")  # (how many NaN bound i's run: equal for the elements of one run)
    same_run = steps.add("Equal", [pairs.as_j(run, "run"), pairs.as_i(run, "run")], "same_run")
    in_run = pairs.count(steps.add("LogicalAnd", [ahead, same_run], "ahead_in_run"), "ahead_count")
    after = steps.add("Add", [position_j, steps.const(1, steps.index_type, "one")], "after_position")
    after_nan = steps.add("Select", [bound, after, steps.const(0, steps.index_type, "no_nan")], "after_nan")
    start = steps.add("ReduceMax", [after_nan, pairs.along_j], "run_start", keep_dims=False)
    ranked = steps.add("Add", [start, in_run], "ranked")
    return steps.add("Select", [nan, positions, ranked], "rank")


def _streamed_ranked(steps: _Steps, pairs: _Pairs, data: Output, ahead: Output, positions: Output,
                     position_i: Output, length: Output, k: Output) -> Output:
    """Rule 3's ranks on floats in mode min, as the CPU's bubble sort orders a NaN (a NaN swaps with every element:
    the module's docstring). Every step of the sort moves each NaN it holds one place on, so the NaN at index p ends
    in place ``N - 1 - p`` (N the axis's length), taken where that is below k; the other places hold, in order,
    the elements kept of a stream: after step t (from k - 1 on) the ``c(t)`` least so far that were never dropped,
    ``c(t)`` the count of elements other than NaN among the last k up to t, each step dropping the greatest. Element
    e (not NaN) is kept iff ``g(t) = P(t) - c(t)``, ``P(t)`` the count of the elements up to t ahead of it, is below
    ``max(0, g(s))`` over s from k - 1 to before ``max(e, k - 1)`` at every t from there on (the greatest of ``g``
    after is less than the greatest before, or than 0); it takes the r-th place of no NaN, r the count of the kept
    elements ahead of it. Agreed with a simulation of the sort on 3000 seeded rows."""
    dtype = steps.index_type
    nan = steps.add("NotEqual", [data, data], "is_nan")
    held = steps.add("LogicalNot", [nan], "not_nan")
    one = steps.const(1, dtype, "one")
    last_k = steps.add("Subtract", [k, one], "k_less_one")
    # c(t): elements other than NaN up to t less those up to t - k, by CumSum-3 along the axis and Gather-1 (a sum
    # over a pairwise window mask gave wrong counts past the first row, the CPU fusing a Multiply into its
    # ReduceSum: 2023.0 and 2026.4)
    flat = steps.add("Reshape", [positions, steps.const(np.array([-1]), np.int64, "flat_shape")], "flat_positions")
    held_number = output_of(steps.builder.convert(held, steps.index_element, f"{steps.name}/held_number"))
    along = steps.const(steps.at, np.int64, "along_axis")
    held_up_to = steps.add("CumSum", [held_number, along], "held_up_to", version="opset3")
    back = steps.add("Subtract", [flat, k], "window_start")
    zero = steps.const(0, dtype, "zero")
    shifted = steps.add("Gather", [held_up_to, steps.add("Maximum", [back, zero], "clamped_start"), along],
                        "held_up_to_start")
    started = steps.add("LogicalNot", [steps.add("Less", [steps.add("Subtract", [positions, k], "start_column"),
                                                          zero], "no_start")], "started")
    before_window = steps.add("Select", [started, shifted, zero], "before_window")
    capacity_j = pairs.as_j(steps.add("Subtract", [held_up_to, before_window], "capacity"), "capacity")
    ahead_up_to = steps.add("CumSum", [output_of(steps.builder.convert(ahead, steps.index_element,
                                                                       f"{steps.name}/ahead_number")),
                                       steps.const(steps.at + 1, np.int64, "along")], "ahead_up_to", version="opset3")
    g = steps.add("Subtract", [ahead_up_to, capacity_j], "surplus")
    enters = steps.add("Maximum", [position_i, last_k], "enters")
    late = steps.add("LogicalNot", [steps.add("Less", [positions, enters], "before_entering")], "from_entering")
    streamed = steps.add("LogicalNot", [steps.add("Less", [positions, last_k], "before_stream")], "in_stream")
    early = steps.add("LogicalAnd", [streamed, steps.add("Less", [positions, enters], "until_entering")], "early")
    floor = steps.const(-(2**20), dtype, "floor")
    late_most = steps.add("ReduceMax", [steps.add("Select", [late, g, floor], "late_surplus"), pairs.along_j],
                          "late_most", keep_dims=False)
    early_most = steps.add("ReduceMax", [steps.add("Select", [early, g, zero],
                                                   "early_surplus"), pairs.along_j], "early_most", keep_dims=False)
    kept = steps.add("LogicalAnd", [held, steps.add("Less", [late_most, early_most], "never_dropped")], "kept")
    order = pairs.count(steps.add("LogicalAnd", [ahead, pairs.as_j(kept, "kept")], "kept_ahead"), "kept_order")
    # F(s): the places of no NaN up to s, the count of elements other than NaN from N - 1 - s on
    last = steps.add("Subtract", [length, one], "last")
    held_from = steps.add("CumSum", [held_number, along], "held_from", version="opset3", reverse=True)
    free_up_to = steps.add("Gather", [held_from, steps.add("Subtract", [last, flat], "mirrored"), along],
                           "free_up_to")
    below = steps.add("LogicalNot", [steps.add("Less", [pairs.as_i(order, "order"), pairs.as_j(free_up_to, "free")],
                                               "order_below")], "free_at_most")
    place = pairs.count(below, "place")  # (F rises: the places at most r are a prefix; one of k or more is not taken)
    nan_place = steps.add("Subtract", [last, positions], "nan_place")
    dropped = steps.add("Select", [kept, place, length], "kept_place")  # (a rank of N: never taken)
    return steps.add("Select", [nan, nan_place, dropped], "rank")
