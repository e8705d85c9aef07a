"""ScatterElementsUpdate-12 with a reduction as a Loop-5 over its axis (releases without opset12: 2023.0 and older)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dtypes import F32_MAX, element_type
from ...ir.bodies import body_node
from ...ir.model import Graph, Layer, RtNode
from ...ops.operands import normalize_axis
from ...ops.spec import TensorType
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_of, origin_text, output_of, with_origin
from ..pattern import typed_attrs
from ..shapes import declared_type
from .base import Downgrade, non_negative, numpy_dtype, source
from .scatter import reduced
from .segment_max import LABEL as SEGMENT_MAX

LABEL = "ScatterElementsUpdate-12"
#: The origin of the layer a guard runs in its If's then body (``_guarded``), which ``_maybe_empty`` leaves.
GUARDED = f"{LABEL}, run by an If-8 only on updates of some elements"
#: The element types whose reductions the Loop reproduces bit for bit, measured on OpenVINO 2023.0 and 2026.4 CPU.
_EXACT_TYPES = ("f32", "i32")
#: Each reduction's neutral update (``acc op u == acc`` bit for bit, NaN included; min and max by ``u < acc ? u : acc``
#: and ``acc < u ? u : acc``, Minimum/Maximum on i32). f32 sum has none older releases keep: ``x + -0.0`` is ``x``, but
#: OpenVINO 2023.0 CPU reads a constant -0.0 as +0.0 (a Const or a Broadcast of one, Concat'ed: measured), so there
#: the first iteration keeps what it reads (Select-1 of Equal-1 of the iteration and 0; Select of f32 moves bits).
_NEUTRAL = {"sum": {"f32": None, "i32": 0}, "prod": {"f32": 1.0, "i32": 1},
            "min": {"f32": np.inf, "i32": np.iinfo(np.int32).max},
            "max": {"f32": -np.inf, "i32": np.iinfo(np.int32).min}}
#: What the current OpenVINO CPU starts each element the updates touch from where use_init_val is false (ops/scatter:
#: 0, 1, and for max and min -/+F32_MAX on f32, not an infinity: updates all -inf give -3.4e38), written there by
#: ScatterElementsUpdate-3 before the Loop.
_START = {"sum": {"f32": 0.0, "i32": 0}, "prod": {"f32": 1.0, "i32": 1},
          "min": {"f32": F32_MAX, "i32": np.iinfo(np.int32).max},
          "max": {"f32": -F32_MAX, "i32": np.iinfo(np.int32).min}}


def _min_max_float(graph: Graph, layer: Layer) -> bool:
    """True if the ScatterElementsUpdate-12 ``layer`` takes the min or max of f32 or f16 (use_init_val true or false),
    which 2023.1 to 2024.0 compute otherwise where a NaN or a signed zero meets another value
    (``scatter_min_max_nan_otherwise``; f16 is left, ``declines``); but one ``SegmentMaxTo12`` wrote (its origin
    SegmentMax-16), whose data and updates hold neither (its rule 2)."""
    attrs = typed_attrs(layer)
    return attrs.reduction in ("min", "max") and declared_type(layer.inputs[0]).element in (
        "f32", "f16") and not (origin_of(layer.rt_info) or "").startswith(SEGMENT_MAX)


def _max_no_init_float(graph: Graph, layer: Layer) -> bool:
    """True if the ScatterElementsUpdate-12 ``layer`` takes the max of f32 or f16 with use_init_val false, which 2023.1
    and 2023.2 start from f32's least positive normal (``scatter_max_no_init_wrong``)."""
    attrs = typed_attrs(layer)
    return attrs.reduction == "max" and not attrs.use_init_val and declared_type(layer.inputs[0]).element in (
        "f32", "f16")


def _integer_mean(graph: Graph, layer: Layer) -> bool:
    """True if the ScatterElementsUpdate-12 ``layer`` takes the mean of i16, i32 or i64 (those measured; 2023.1 to
    2024.0 compile none of i8 and u8), which 2023.1 to 2024.0 round down where negative
    (``scatter_mean_integer_floors``)."""
    return typed_attrs(layer).reduction == "mean" and declared_type(layer.inputs[0]).element in ("i16", "i32", "i64")


def _maybe_empty(graph: Graph, layer: Layer) -> bool:
    """True if the ScatterElementsUpdate-12 ``layer`` has a reduction and its updates may come with 0 elements (a dim
    not static and at least 1, or a dynamic rank), on which 2023.1 and 2023.2 fail at inference
    (``scatter_reduce_empty_fails``: an MoE's aten::index_add_ for an expert no token goes to); but the one a guard
    runs (``_guarded``: only on updates of some elements)."""
    shape = declared_type(layer.inputs[2]).shape
    return typed_attrs(layer).reduction != "none" and (shape is None or not all(
        d.is_static and d.lo >= 1 for d in shape)) and origin_of(layer.rt_info) != GUARDED


class ScatterElementsLoop(Downgrade):
    """ScatterElementsUpdate-12 with reduction sum, prod, min or max, exactly, whatever its indices
    (aten::index_add_ of MoE models: data-dependent ones):

    OpenVINO (its CPU plugin and reference) applies the updates of each line along the axis one after another in
    index order, ``acc = acc op u`` in the data's type (floats f32, i32 wrapping; min: ``u < acc ? u : acc``, max:
    ``acc < u ? u : acc``). A Loop-5 over the axis does the same: iteration ``i`` takes slice ``i`` of the indices and
    updates (Gather-1 at the current iteration, Unsqueeze-1 back), reads the accumulator there (GatherElements-6, of
    the accumulator sliced to the indices' extent off the axis by StridedSlice-1 where it may be longer), combines
    (Add-1, Multiply-1, Select-1 of Less-1 on f32, Minimum-1/Maximum-1 on i32: as ``scatter.reduced``) and writes back
    (ScatterElementsUpdate-3); one slice's elements write distinct positions, so each position sees its updates in
    index order. The accumulator is merged through a back edge (initially the data); the indices (made non-negative
    first: ``non_negative``) and updates are invariant; the trip count is the updates' axis length. Where that length
    may be 0, a first slice of the neutral update (``_NEUTRAL``) at index 0 is put before them: OpenVINO 2023.0 CPU
    gives a Loop of 0 iterations an output of 0 rows, not the merged input (measured; 2026.4 gives the data). Inputs
    computed from Consts alone are computed inside the body (``_body``), and the StridedSlice's end is a Const where
    the indices' dims off the axis are static: 2023.0 CPU fails one of static data whose end is a ShapeOf ("doesn't
    have compiled executor", measured). With use_init_val false, each element an update falls on starts from the
    current OpenVINO's start value (``_START``: 0, 1, -/+3.4028235e38 for f32's max and min, i32's extremes), written
    there by ScatterElementsUpdate-3 (every write of an element the same value) before the Loop, at the updates' own
    indices: a slice of the neutral update put first leaves the element it falls on as it is, started or not, so
    use_init_val false is rewritten whatever the updates' axis length (measured: lengths 0, 1, 3 and 7, NaN and signed
    zeros among the data, equal on 2023.0 and 2024.0; found by the wide vision sweep, a scatter_reduce of
    ``include_self=False`` over a dynamic axis).

    Reduction mean of f32 (``_mean``): the current OpenVINO CPU's is the Loop's f32 sum divided once, correctly rounded
    (400 seeded cases bit for bit), by how many values it summed: a second Loop counts them (or, indices a Const, they
    are counted here), and since Divide-1 of f32 is not correctly rounded on the CPU, ReduceMean-1 divides
    (``_divided``).

    Left (``declines``): an axis that is not a constant, data or indices of a dynamic rank, a mean of other than f32
    (the CPU's integer mean rounds in its own way), element types other than f32 and i32
    (measured: f16 differs on 2023.0; i8 and u8 saturate in the Loop's Add, where the scatter wraps; 2023.0 computes i64
    as i32), and f32 prod of constant updates (2026.4 CPU gave +0.0 for +0.0 times a constant -0.91 in the body).
    Reduction none is ``Respell``'s (ScatterElementsUpdate-3).

    For a target that computes f32 min and max otherwise where a NaN or a signed zero meets another value, with
    use_init_val true or false (measured: 2023.1 to 2024.0, f16 alike; the Loop runs there as the current OpenVINO),
    or the max of floats with use_init_val false (``scatter_max_no_init_wrong``: 2023.1 and 2023.2), such a layer is
    rewritten too, though the target creates ScatterElementsUpdate-12. One of f16 (the Loop's exact types lack it), or
    a mean of integers (``scatter_mean_integer_floors``: 2023.1 to 2024.0), is named too and left (``declines``), for
    ``retarget`` to refuse.

    For a target that fails at inference on one whose updates come with 0 elements (``scatter_reduce_empty_fails``:
    2023.1 and 2023.2, any reduction but none), such a layer (updates of a dim not static and 1 or more) hit by no
    other defect of the target is guarded instead (``_guarded``): an If-8 runs it, as it is, where its updates hold an
    element, and gives its data where they hold none (what the current OpenVINO gives: the probe's ``scatter_empty``),
    whatever its reduction and type (measured on 2023.1 and 2023.2: sum, mean and max fed 0 rows or some, bit for bit
    the current one's). One hit by another defect too is the Loop's, which runs there on 0 elements along the axis or
    off it (measured).
    """

    rewrites = {LABEL: "into a Loop-5 of Gather-1, GatherElements-6, Add-1/Multiply-1/Select-1/Minimum-1/Maximum-1 "
                       "and ScatterElementsUpdate-3, one iteration per index along its axis, where its reduction is "
                       "sum, prod, min or max (use_init_val false: first ScatterElementsUpdate-3 of the start value), "
                       "or mean of f32 (the sum's Loop, a count's, and a Loop-5 of ReduceMean-1 dividing them), "
                       "its axis a constant and its data f32 or i32 "
                       "(f32 prod: of updates that are not constants); for a release failing on updates of 0 "
                       "elements, into an If-8 running it only on updates of some"}
    repairs = {"scatter_min_max_nan_otherwise": _min_max_float, "scatter_max_no_init_wrong": _max_no_init_float,
               "scatter_mean_integer_floors": _integer_mean, "scatter_reduce_empty_fails": _maybe_empty}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        if self._guards(graph, layer):
            return None
        builder = GraphBuilder(graph)
        attrs = typed_attrs(layer)
        axis = graph.layer(source(graph, layer, 3)[0])
        if not axis.is_a("Const"):
            return "its axis is not a constant"
        if attrs.reduction == "none":
            return None  # (Respell's, which runs first)
        element = builder.type_of(source(graph, layer, 0)).element
        if attrs.reduction == "mean" and element != "f32":
            return (f"reduction mean of {element or 'a dynamic type'} (f32 only: the Loop's sum divided once, as the "
                    "current OpenVINO CPU divides)")
        if element not in _EXACT_TYPES:
            return (f"its data is {element or 'of a dynamic type'}, whose reductions OpenVINO CPU computes otherwise "
                    "than an older op step by step (f32 and i32 only)")
        if any(builder.type_of(source(graph, layer, i)).shape is None for i in (0, 1, 2)):
            return "its data, indices or updates are of a dynamic rank"
        if attrs.reduction == "prod" and element == "f32" and _constant(graph, source(graph, layer, 2)):
            return ("its f32 updates are constants, by which OpenVINO 2026.4 CPU multiplies otherwise in a Loop's "
                    "body (+0.0 times a constant -0.91 gave +0.0, not -0.0: measured)")
        if attrs.reduction == "mean" and (steps := _division_steps(builder, layer)) > _MOST_DIVISION_STEPS:
            return (f"reduction mean whose division would take {steps:.3g} element steps at most (the data's "
                    f"elements times the most updates an element may take, squared, over 2), more than "
                    f"{_MOST_DIVISION_STEPS:.3g}")
        return None

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            reduction = typed_attrs(layer).reduction
            if self._guards(graph, layer):
                builder.replace_layer(layer, lambda: [_guarded(builder, layer)],  # noqa: B023
                                      origin_text(layer, LABEL))
                stats[f"{LABEL} ({reduction}) -> If-8 on updates of some elements"] += 1
                continue
            if reduction == "none":
                continue
            if reduction == "mean":
                builder.replace_layer(layer, lambda: [_mean(builder, layer)], origin_text(layer, LABEL))  # noqa: B023
                stats[f"{LABEL} (mean) -> Loop-5 of ScatterElementsUpdate-3 (sum, count), Loop-5 of ReduceMean-1"] += 1
                continue
            builder.replace_layer(layer, lambda: [_loop(builder, layer, reduction)],  # noqa: B023
                                  origin_text(layer, LABEL))
            stats[f"{LABEL} ({reduction}) -> Loop-5 of ScatterElementsUpdate-3"] += 1
        return PassResult(graph, bool(stats), stats)

    def _guards(self, graph: Graph, layer: Layer) -> bool:
        """Whether ``layer`` is guarded (the class): the target creates it and, of its defects, only
        ``scatter_reduce_empty_fails`` hits it."""
        target = self.target
        if target is None or "scatter_reduce_empty_fails" not in target.miscomputes or not target.creates(
                layer.type, layer.version or "", layer.attrs):
            return False
        return {key for key, hits in self.repairs.items()
                if key in target.miscomputes and hits(graph, layer)} == {"scatter_reduce_empty_fails"}


def _guarded(builder: GraphBuilder, layer: Layer) -> Output:
    """The class's guard of ``layer``: If-8 of ReduceMin-1 of its updates' dims above 0, its then body the layer as it
    is (its axis a Const there where it is one, else fed), its else body the data; the If's output, standing for the
    layer's (ReduceMin: a product of dims would be ReduceProd, which 2023.1 computes through f32)."""
    graph, name = builder.graph, layer.name
    ins = [source(graph, layer, i) for i in range(4)]
    sizes = builder.add("ShapeOf", "opset3", builder.attrs("ShapeOf", "opset3", output_type="i64"), [ins[2]],
                        f"{name}/updates_shape")
    least = builder.add("ReduceMin", "opset1", builder.attrs("ReduceMin", "opset1", keep_dims=False),
                        [sizes, _i64(builder, [0], f"{name}/all_dims")], f"{name}/least_dim")
    some = builder.add("Greater", "opset1", None, [least, _i64(builder, 0, f"{name}/zero")], f"{name}/some_updates")
    axis = graph.layer(ins[3][0])
    fed = ins[:3] if axis.is_a("Const") else ins
    then, keep = Graph(f"{name}/then_body", graph.ir_version), Graph(f"{name}/else_body", graph.ir_version)
    b = GraphBuilder(then)
    params = [b.parameter(f"{name}/{what}", t.element, t.shape)
              for what, t in zip(("data", "indices", "updates", "axis")[:len(fed)], map(builder.type_of, fed),
                                 strict=True)]
    inner_axis = params[3] if len(fed) == 4 else b.const(graph.const_array(axis), f"{name}/axis")
    inner = b.add(layer.type, layer.version or "", dict(layer.attrs), [*params[:3], inner_axis], name,
                  outputs=[declared_type(layer.outputs[0])])
    inner.rt_info = with_origin(inner.rt_info, GUARDED)
    ran = b.result(output_of(inner), f"{name}/ran")
    k = GraphBuilder(keep)
    kept = k.parameter(f"{name}/data", builder.type_of(ins[0]).element, builder.type_of(ins[0]).shape)
    given = k.result(kept, f"{name}/kept")
    guard = builder.add("If", "opset8", {}, [output_of(some), *fed], name, outputs=[declared_type(layer.outputs[0])])
    out_id = str(guard.outputs[0].id)

    def port(kind: str, external: int | str, internal: str) -> RtNode:
        return RtNode(kind, (("external_port_id", str(external)), ("internal_layer_id", internal)))

    guard.children = (
        RtNode("then_port_map", (), (*(port("input", i, p[0]) for i, p in enumerate(params, 1)),
                                     port("output", out_id, ran.id))),
        RtNode("else_port_map", (), (port("input", 1, kept[0]), port("output", out_id, given.id))),
        body_node(RtNode("then_body"), then), body_node(RtNode("else_body"), keep))
    return output_of(guard)


def _axis(graph: Graph, layer: Layer, rank: int) -> int:
    """The layer's axis (a Const, ``declines`` made sure), made non-negative."""
    return normalize_axis(int(graph.const_array(graph.layer(source(graph, layer, 3)[0])).reshape(-1)[0]), rank)


def _i64(builder: GraphBuilder, value: object, name: str) -> Output:
    return builder.const(np.array(value, np.int64), name)


def _loop(builder: GraphBuilder, layer: Layer, reduction: str, data: Output | None = None,
          updates: Output | None = None, use_init_val: bool | None = None, name: str | None = None) -> Output:
    """The class's rewrite of ``layer``: the Loop's output, standing for its. ``data``, ``updates`` and
    ``use_init_val`` in place of the layer's (``_mean``'s count of the updates each element takes), the Loop and its
    layers named after ``name`` (else the layer's)."""
    graph, name = builder.graph, name or layer.name
    data = source(graph, layer, 0) if data is None else data
    indices = source(graph, layer, 1)
    updates = source(graph, layer, 2) if updates is None else updates
    rank = len(builder.type_of(data).shape)
    axis = _axis(graph, layer, rank)
    indices = non_negative(builder, name, data, indices, axis)
    element = builder.type_of(data).element
    if use_init_val is None:
        use_init_val = typed_attrs(layer).use_init_val
    if not use_init_val:  # (each element the updates touch starts from _START, not the data)
        data = _started(builder, name, data, indices, updates, axis, _START[reduction][element])
    length = builder.type_of(updates).shape[axis]
    neutral, kept = _NEUTRAL[reduction][element], False
    if not (length.is_static and length.lo >= 1):  # (a Loop of 0 iterations: see the class)
        kept = neutral is None
        indices, updates = (_neutral_first(builder, f"{name}/{what}", value, axis, first) for what, value, first
                            in (("indices", indices, 0), ("updates", updates, 0 if kept else neutral)))
    steps = builder.type_of(updates).shape[axis]
    if steps.is_static:
        trip = _i64(builder, steps.lo, f"{name}/trip_count")
    else:
        sizes = builder.add("ShapeOf", "opset3", builder.attrs("ShapeOf", "opset3", output_type="i64"), [updates],
                            f"{name}/trip_shape")
        trip = output_of(builder.add("Gather", "opset1", None, [sizes, _i64(builder, axis, f"{name}/trip_at"),
                                                                _i64(builder, 0, f"{name}/trip_axis")],
                                     f"{name}/trip_count"))
    execute = builder.const(np.array(True), f"{name}/execute")
    ins = [data, indices, updates]
    held = [False] + [_constant(graph, value) for value in ins[1:]]
    body, (current, result, condition), params = _body(builder, name, reduction, ins, held, axis, kept)
    fed = [value for value, fixed in zip(ins, held, strict=True) if not fixed]
    loop = builder.add("Loop", "opset5", {}, [trip, execute, *fed], name, outputs=[declared_type(layer.outputs[0])])
    port_map = RtNode("port_map", (), (
        *(RtNode("input", (("external_port_id", str(port)), ("internal_layer_id", param)))
          for port, param in enumerate(params, 2)),
        RtNode("output", (("external_port_id", str(loop.outputs[0].id)), ("internal_layer_id", result))),
        RtNode("input", (("external_port_id", "-1"), ("internal_layer_id", current),
                         ("purpose", "current_iteration"))),
        RtNode("output", (("external_port_id", "-1"), ("internal_layer_id", condition),
                          ("purpose", "execution_condition")))))
    back_edges = RtNode("back_edges", (), (RtNode("edge", (("from-layer", result), ("to-layer", params[0]))),))
    loop.children = (port_map, back_edges, body_node(RtNode("body"), body))
    return output_of(loop)


def _mean(builder: GraphBuilder, layer: Layer) -> Output:
    """Reduction mean of f32, as the current OpenVINO CPU takes it: the Loop's sum, divided once by how many values it
    summed (the updates an element takes, one more with use_init_val), correctly rounded (``_divided``); an element
    no update takes keeps the data. The counts are a second Loop's sums of ones over zeros, exact in f32."""
    graph, name = builder.graph, layer.name
    data, updates = source(graph, layer, 0), source(graph, layer, 2)
    total = _loop(builder, layer, "sum", name=f"{name}/sum")
    known = _constant_counts(builder, layer)
    if known is not None:
        counts = builder.const(known, f"{name}/counts")
    else:
        zeros, ones = (_filled(builder, value, fill, f"{name}/{what}")
                       for value, fill, what in ((data, 0.0, "uncounted"), (updates, 1.0, "ones")))
        counts = _loop(builder, layer, "sum", zeros, ones, use_init_val=True, name=f"{name}/count")
    if typed_attrs(layer).use_init_val:
        counts = output_of(builder.add("Add", "opset1", None, [counts, builder.const(np.array(1.0, np.float32),
                                                                                     f"{name}/init_val")],
                                       f"{name}/counted"))
    return _divided(builder, name, total, counts, data)


def _constant_counts(builder: GraphBuilder, layer: Layer) -> np.ndarray | None:
    """How many updates each element of the data takes (f32), where the indices are a Const and the data and updates
    static: a count Loop of constants alone would be folded by OpenVINO, and 2023.0 fails to evaluate its
    GatherElements of indices narrower than the data ("Evaluation failed", measured). None otherwise."""
    graph = builder.graph
    data, indices, updates = (builder.type_of(source(graph, layer, i)).shape for i in range(3))
    given = graph.layer(source(graph, layer, 1)[0])
    if not given.is_a("Const") or not all(d.is_static for d in (*data, *updates)):
        return None
    rank = len(data)
    axis = _axis(graph, layer, rank)
    where = graph.const_array(given).astype(np.int64)
    where = np.where(where < 0, where + data[axis].lo, where)
    counts = np.zeros([d.lo for d in data], np.float32)
    at = list(np.indices(where.shape))
    at[axis] = where
    np.add.at(counts, tuple(at), 1.0)
    return counts


#: The most element steps ``_divided``'s Loop may take, where the dims tell (2^32: seconds on a CPU).
_MOST_DIVISION_STEPS = 2**32


def _division_steps(builder: GraphBuilder, layer: Layer) -> float:
    """At most how many element steps ``_divided``'s Loop takes for the mean ``layer`` (the data's elements times the
    most updates an element may take, one more for use_init_val, squared, over 2), where its data's dims and its
    updates' axis are static; else 0 (not known: taken)."""
    graph = builder.graph
    data, updates = (builder.type_of(source(graph, layer, i)).shape for i in (0, 2))
    rank = len(data)
    length = updates[_axis(graph, layer, rank)]
    if not (length.is_static and all(d.is_static for d in data)):
        return 0.0
    most = length.lo + typed_attrs(layer).use_init_val
    return float(np.prod([d.lo for d in data], dtype=np.float64)) * most * most / 2


def _filled(builder: GraphBuilder, like: Output, value: object, name: str, dtype: np.dtype | type = np.float32
            ) -> Output:
    """A tensor of ``like``'s shape, every element ``value`` (of ``dtype``): Broadcast-3 to a Const of its dims where
    they are static, else to its ShapeOf-3."""
    shape = builder.type_of(like).shape
    if all(d.is_static for d in shape):
        size = _i64(builder, [d.lo for d in shape], f"{name}/shape")
    else:
        size = output_of(builder.add("ShapeOf", "opset3", builder.attrs("ShapeOf", "opset3", output_type="i64"),
                                     [like], f"{name}/shape"))
    return output_of(builder.add("Broadcast", "opset3", builder.attrs("Broadcast", "opset3", mode="numpy"),
                                 [builder.const(np.array(value, dtype), f"{name}/value"), size], name))


def _divided(builder: GraphBuilder, name: str, total: Output, counts: Output, data: Output) -> Output:
    """``total / counts`` (f32, counts whole numbers) correctly rounded, ``total`` where a count is 0 or 1, in
    ``data``'s shape. Divide-1 of f32 is not correctly rounded on the CPU (17456 of 100000 quotients off in the last
    bit, 2023.0 and 2026.4 alike: OpenVINO makes it a Multiply by a Power of -1); ReduceMean-1 of ``[t, 0, ..., 0]``
    over ``n`` elements is (measured: 342,000 quotients by 1 to 4093, magnitudes 1e-30 to 1e30, infinities and NaN,
    bit for bit on 2023.0 and 2026.4, but -0.0, which its sum makes +0.0, so a zero total is kept as it is). So a Loop-5
    of iterations ``n = 2 .. max(counts)`` (one at least: 2023.0 CPU gives a Loop of 0 iterations no output) takes, for
    the elements counting ``n``, the ReduceMean of their totals padded with ``n - 1`` zeros: time and memory of the
    elements times the largest count squared, over 2."""
    graph = builder.graph

    def add(op_type: str, version: str, inputs: list[Output], what: str, **attrs: object) -> Output:
        typed = builder.attrs(op_type, version, **attrs) if attrs else None
        return output_of(builder.add(op_type, version, typed, inputs, f"{name}/{what}"))

    def flat(value: Output, what: str, dtype: type = np.int64) -> Output:
        return add("Reshape", "opset1", [value, builder.const(np.array([-1], dtype), f"{name}/{what}_shape")], what,
                   special_zero=False)

    totals, counted = flat(total, "flat_total"), flat(counts, "flat_counts")
    # (a count of 1 among them: 2023.0 CPU reduces an axis of length 0 to whatever the memory held; a Pad, as 2023.0
    # makes a ReduceMax of a Concat a Maximum of its inputs, which fails where one is longer than 1)
    some = add("Pad", "opset1", [counted, _i64(builder, [0], f"{name}/no_pad"), _i64(builder, [1], f"{name}/one_pad"),
                                 builder.const(np.array(1.0, np.float32), f"{name}/one_count")], "some_counts",
               pad_mode="constant")
    most = output_of(builder.convert(add("ReduceMax", "opset1", [some, _i64(builder, [0], f"{name}/all")], "most",
                                         keep_dims=False), "i64", f"{name}/most_i64"))
    trip = add("Maximum", "opset1", [add("Subtract", "opset1", [most, _i64(builder, 1, f"{name}/one")], "above_one"),
                                     _i64(builder, 1, f"{name}/least_trips")], "divide_trips")
    held = _constant(graph, counted)  # (a Const: fed to a Loop, 2023.0 and 2026.4 refuse it; see ``_body``)
    body, (current, result, condition), params = _divide_body(builder, name, counted, held)
    # (the start a tensor of its own: fed the totals as its invariant and its merged input alike, a Loop gave another
    # element's memory on 2026.4 CPU, in one of 30 seeded layers; its shape spelled otherwise, so that OpenVINO does
    # not merge the two Reshapes)
    start = flat(total, "start", np.int32)
    fed = [totals, start, *([] if held else [counted])]
    loop = builder.add("Loop", "opset5", {}, [trip, builder.const(np.array(True), f"{name}/divide_execute"), *fed],
                       f"{name}/divided", outputs=[builder.type_of(totals)])

    def port(kind: str, external: int | str, internal: str, purpose: str | None = None) -> RtNode:
        return RtNode(kind, (("external_port_id", str(external)), ("internal_layer_id", internal),
                             *((("purpose", purpose),) if purpose else ())))

    loop.children = (
        RtNode("port_map", (), (*(port("input", i, p) for i, p in enumerate(params, 2)),
                                port("output", loop.outputs[0].id, result),
                                port("input", -1, current, "current_iteration"),
                                port("output", -1, condition, "execution_condition"))),
        RtNode("back_edges", (), (RtNode("edge", (("from-layer", result), ("to-layer", params[1]))),)),
        body_node(RtNode("body"), body))
    zero = add("Equal", "opset1", [totals, builder.const(np.array(0.0, np.float32), f"{name}/zero")], "zero_total")
    signed = add("Select", "opset1", [zero, totals, output_of(loop)], "quotients")
    shape = builder.type_of(data).shape
    if all(d.is_static for d in shape):
        back = _i64(builder, [d.lo for d in shape], f"{name}/data_shape")
    else:
        back = add("ShapeOf", "opset3", [data], "data_shape", output_type="i64")
    return output_of(builder.add("Reshape", "opset1", builder.attrs("Reshape", "opset1", special_zero=False),
                                 [signed, back], name))


def _divide_body(outer: GraphBuilder, name: str, counted: Output, held: bool
                 ) -> tuple[Graph, tuple[str, str, str], list[str]]:
    """``_divided``'s Loop body; the ids of its current-iteration Parameter, its quotients and condition Results; and
    those of its Parameters fed (the totals, invariant, the quotients, merged, and, unless ``held``, the counts,
    invariant; ``held``: computed from constants, they are computed inside the body)."""
    body = Graph(f"{name}/divide_body", outer.graph.ir_version)
    b = GraphBuilder(body)
    length = outer.type_of(counted).shape
    total, acc = (b.parameter(f"{name}/{what}", "f32", length) for what in ("total", "quotient"))
    count = _copied(b, outer.graph, counted, {}) if held else b.parameter(f"{name}/count", "f32", length)
    current = b.parameter(f"{name}/iteration", "i64", ())

    def add(op_type: str, version: str, inputs: list[Output], what: str, **attrs: object) -> Output:
        typed = b.attrs(op_type, version, **attrs) if attrs else None
        return output_of(b.add(op_type, version, typed, inputs, what))

    width = add("Reshape", "opset1", [add("Add", "opset1", [current, _i64(b, 1, "one")], "zeros_wide"),
                                      _i64(b, [1], "one_dim")], "width", special_zero=False)
    shape = add("Concat", "opset1", [add("ShapeOf", "opset3", [total], "rows", output_type="i64"), width],
                "padding_shape", axis=0)
    padding = add("Broadcast", "opset3", [b.const(np.array(0.0, np.float32), "zero"), shape], "padding", mode="numpy")
    padded = add("Concat", "opset1", [add("Unsqueeze", "opset1", [total, _i64(b, [1], "column_axis")], "column"),
                                      padding], "padded", axis=1)
    quotient = add("ReduceMean", "opset1", [padded, _i64(b, [1], "row_axis")], "quotient", keep_dims=False)
    n = output_of(b.convert(add("Add", "opset1", [current, _i64(b, 2, "two")], "n"), "f32", "n_f32"))
    chosen = add("Select", "opset1", [add("Equal", "opset1", [count, n], "counts_n"), quotient, acc], "chosen")
    result = b.result(chosen, "quotient_next")
    condition = b.result(b.const(np.array(True), "again"), "condition")
    params = [total[0], acc[0], *([] if held else [count[0]])]
    return body, (current[0], result.id, condition.id), params


def _started(builder: GraphBuilder, name: str, data: Output, indices: Output, updates: Output, axis: int,
             start: object) -> Output:
    """``data`` with ``start`` written by ScatterElementsUpdate-3 at each element ``indices`` (non-negative) name along
    ``axis``: the accumulator a reduction without use_init_val starts from."""
    starts = _filled(builder, updates, start, f"{name}/starts", numpy_dtype(builder, data))
    return output_of(builder.add("ScatterElementsUpdate", "opset3", None, [
        data, indices, starts, _i64(builder, axis, f"{name}/start_axis")], f"{name}/started"))


def _neutral_first(builder: GraphBuilder, name: str, value: Output, axis: int, neutral: object) -> Output:
    """``value`` with a slice of ``neutral`` (of its element type) before it along ``axis``."""
    dtype = numpy_dtype(builder, value)
    shape = builder.type_of(value).shape
    if all(d.is_static for k, d in enumerate(shape) if k != axis):
        target = _i64(builder, [1 if k == axis else d.lo for k, d in enumerate(shape)], f"{name}/first_shape")
    else:
        ones = np.ones(len(shape), np.int64)
        ones[axis] = 0
        full = builder.add("ShapeOf", "opset3", builder.attrs("ShapeOf", "opset3", output_type="i64"), [value],
                           f"{name}/full_shape")
        off = builder.add("Multiply", "opset1", None, [full, builder.const(ones, f"{name}/kept")],
                          f"{name}/off_axis")
        target = output_of(builder.add("Add", "opset1", None, [off, builder.const(1 - ones, f"{name}/one")],
                                       f"{name}/first_shape"))
    first = builder.add("Broadcast", "opset3", builder.attrs("Broadcast", "opset3", mode="numpy"),
                        [builder.const(np.array(neutral, dtype), f"{name}/neutral"), target], f"{name}/first")
    return output_of(builder.add("Concat", "opset1", builder.attrs("Concat", "opset1", axis=axis), [first, value],
                                 f"{name}/with_first"))


def _static_shape(graph: Graph, layer: Layer) -> tuple[int, ...] | None:
    """The static shape a ShapeOf ``layer`` gives (OpenVINO folds it); None for another layer or a dynamic one."""
    if not layer.is_a("ShapeOf"):
        return None
    shape = declared_type(layer.inputs[0]).shape
    return None if shape is None or not all(d.is_static for d in shape) else tuple(d.lo for d in shape)


def _constant(graph: Graph, out: Output) -> bool:
    """Whether ``out`` is computed from Consts (and ShapeOfs of static shapes) alone: OpenVINO folds it into a Const.
    Depth first, ending at the first layer above it without inputs but a Const."""
    seen, todo = {out[0]}, [out[0]]
    while todo:
        layer_id = todo.pop()
        edges = graph.in_edges(layer_id)
        if _static_shape(graph, graph.layer(layer_id)) is not None:
            continue
        if not edges and not graph.layer(layer_id).is_a("Const"):
            return False
        for edge in edges:
            if edge.from_layer not in seen:
                seen.add(edge.from_layer)
                todo.append(edge.from_layer)
    return True


def _copied(b: GraphBuilder, graph: Graph, out: Output, made: dict[str, Layer]) -> Output:
    """``out``, computed from constants alone in ``graph`` (``_constant``), computed alike in ``b``'s graph (its layers
    copied, named ``heldID/NAME``; a ShapeOf of a static shape as a Const of it)."""
    layer = graph.layer(out[0])
    if layer.id not in made:
        shape = _static_shape(graph, layer)
        if shape is not None:
            dtype = element_type(declared_type(layer.outputs[0]).element or "i64").numpy
            made[layer.id] = b.graph.layer(b.const(np.array(shape, dtype), f"held{layer.id}/{layer.name}")[0])
        elif layer.is_a("Const"):
            made[layer.id] = b.graph.layer(b.const(graph.const_array(layer), f"held{layer.id}/{layer.name}")[0])
        else:
            ins = [_copied(b, graph, source(graph, layer, i), made) for i in range(len(layer.inputs))]
            made[layer.id] = b.add(layer.type, layer.version, dict(layer.attrs), ins, f"held{layer.id}/{layer.name}",
                                   outputs=[declared_type(port) for port in layer.outputs])
            made[layer.id].children = layer.children
    return output_of(made[layer.id], layer.output_ids().index(out[1]))


def _body(outer: GraphBuilder, name: str, reduction: str, ins: list[Output], held: list[bool], axis: int,
          kept: bool) -> tuple[Graph, tuple[str, str, str], list[str]]:
    """The Loop's body; the ids of its current-iteration Parameter, its accumulator and condition Results; and those
    of its Parameters fed (the accumulator, merged, then the indices and updates, invariant). ``held``: which of
    data, indices and updates are computed from Consts alone: OpenVINO folds those, and a Loop fed a constant
    invariant input (or one merged through a Result of its Parameter) is refused by 2023.0 and 2026.4 CPU
    ("vector::_M_range_check", measured), so they are computed inside the body. ``kept``: the first iteration writes
    back what it reads."""
    graph = Graph(f"{name}/body", outer.graph.ir_version)
    b = GraphBuilder(graph)
    types = [outer.type_of(o) for o in ins]
    made: dict[str, Layer] = {}
    acc, idx, upd = (_copied(b, outer.graph, value, made) if fixed else b.parameter(f"{name}/{what}", t.element,
                                                                                     t.shape)
                     for what, value, t, fixed in zip(("acc", "indices", "updates"), ins, types, held, strict=True))
    params = [p[0] for p, fixed in zip((acc, idx, upd), held, strict=True) if not fixed]
    current = b.parameter(f"{name}/iteration", "i64", ())
    at, back = _i64(b, axis, "gather_axis"), _i64(b, [axis], "unsqueeze_axis")

    def slice_of(value: Output, what: str) -> Output:
        taken = b.add("Gather", "opset1", None, [value, current, at], f"{what}_slice")
        return output_of(b.add("Unsqueeze", "opset1", None, [taken, back], f"{what}_part"))

    where, part = slice_of(idx, "indices"), slice_of(upd, "updates")
    read = acc
    data_shape, index_shape = types[0].shape, types[1].shape
    if any(not (d.is_static and d == i) for k, (d, i) in enumerate(zip(data_shape, index_shape, strict=True))
           if k != axis):
        rank = len(data_shape)
        if all(d.is_static for k, d in enumerate(index_shape) if k != axis):  # (2023.0 CPU: see the class)
            ends = _i64(b, [0 if k == axis else d.lo for k, d in enumerate(index_shape)], "indices_shape")
        else:
            ends = output_of(b.add("ShapeOf", "opset3", b.attrs("ShapeOf", "opset3", output_type="i64"), [idx],
                                   "indices_shape"))
        read = output_of(b.add("StridedSlice", "opset1", b.attrs(
            "StridedSlice", "opset1", begin_mask=(1,) * rank, end_mask=tuple(int(k == axis) for k in range(rank))),
            [acc, _i64(b, [0] * rank, "begin"), ends, _i64(b, [1] * rank, "strides")], "acc_within",
            outputs=[TensorType(types[0].element, tuple(data_shape[k] if k == axis else index_shape[k]
                                                        for k in range(rank)))]))
    old = output_of(b.add("GatherElements", "opset6", b.attrs("GatherElements", "opset6", axis=axis), [read, where],
                          "old"))
    new = reduced(b, reduction, old, part, "step")
    if kept:
        first = b.add("Equal", "opset1", None, [current, _i64(b, 0, "zero")], "first")
        new = output_of(b.add("Select", "opset1", None, [first, old, new], "kept"))
    written = b.add("ScatterElementsUpdate", "opset3", None, [acc, where, new, _i64(b, axis, "axis")], "written")
    result = b.result(output_of(written), "acc_next")
    condition = b.result(b.const(np.array(True), "again"), "condition")
    return graph, (current[0], result.id, condition.id), params

