"""ScaledDotProductAttention-13 as MatMul-1, SoftMax-8 and element-wise ops of opset1 (docs/SEMANTICS.md, section 7:
what OpenVINO does with each input, and the defects of OpenVINO 2023.0 and 2026.4 met on the way)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dims import Dim
from ...base.dtypes import element_type, from_numpy
from ...ir.model import Graph, Layer
from ...ops.arithmetic import broadcast_shapes
from ...ops.attention import AttentionAttrs
from ...ops.spec import TensorType
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..pattern import typed_attrs
from ..shapes import declared_type
from .base import Downgrade

LABEL = "ScaledDotProductAttention-13"


def _boolean_mask(graph: Graph, layer: Layer) -> bool:
    """True if the SDPA-13 ``layer`` is not causal and has a mask (input 3) of element type boolean."""
    ports = layer.input_ids()
    if typed_attrs(layer).causal or len(ports) < 4:
        return False
    source = graph.producer(layer.id, ports[3])
    return source is not None and element_type(source[1].precision or "") == element_type("boolean")


def _mask_beside_lengths(layer: Layer) -> list[tuple[Dim, Dim]]:
    """The last two dims of the mask (input 3) of the SDPA-13 ``layer``, each beside the length it broadcasts to (L,
    the query's dim -2; S, the key's), as the ports declare them; none where it is causal (which ignores the mask),
    has no mask, or a rank is not known."""
    ports = layer.input_ids()
    if typed_attrs(layer).causal or len(ports) < 4:
        return []
    query, key, mask = (declared_type(layer.inputs[i]).shape for i in (0, 1, 3))
    if query is None or key is None or mask is None or len(mask) < 2 or len(query) < 2 or len(key) < 2:
        return []
    return [(mask[-2], query[-2]), (mask[-1], key[-2])]


def _mask_broadcast(graph: Graph, layer: Layer) -> bool:
    """True if a static dim of the mask differs from the static L or S in its place: a 1 in the place of L or S
    other than 1, or several rows for a query of one (L = 1), each broadcast by the op, which 2023.3 to 2024.2 refuse
    to read (they ask each dim to equal L and S); or if the mask holds a static 1 in the place of a dynamic L (a
    BERT-like encoder's [?, 1, 1, ?]), which the same check reads as an L of 1: the output's L inferred 1, so that
    a Transpose after it (an attention's, merging its heads) fails at inference (measured on 2024.0 to 2024.2; 2024.3
    on run it right)."""
    beside = _mask_beside_lengths(layer)
    return any(m.is_static and d.is_static and m.lo != d.lo for m, d in beside) or (
        bool(beside) and beside[0][0] == Dim(1, 1) and not beside[0][1].is_static)


def _mask_broadcast_dynamic(graph: Graph, layer: Layer) -> bool:
    """True if the mask holds a static 1 in the place of a dynamic L or S (as a language model's are), which 2023.3
    reads and compiles, then fails to run once the lengths are known."""
    return any(m == Dim(1, 1) and not d.is_static for m, d in _mask_beside_lengths(layer))


def _scalar_mask_fed(graph: Graph, layer: Layer) -> bool:
    """True if the SDPA-13 ``layer`` (not causal) has a mask without dims (rank 0, or a dynamic rank: the IR writes
    both so) computed from more than Consts, beside a query of rank 3 or 4 whose batch dims may all be 1 and whose L
    may be 4 or more (static or dynamic), which 2023.3 to 2025.1 crash on at inference (SIGSEGV; measured: a batch or
    head dim of 2, L of 3 or less, a constant mask or a rank-5 query run right)."""
    ports = layer.input_ids()
    if typed_attrs(layer).causal or len(ports) < 4 or declared_type(layer.inputs[3]).shape:
        return False
    query = declared_type(layer.inputs[0]).shape
    if query is None or len(query) not in (3, 4) or any(d.is_static and d.lo != 1 for d in query[:-2]) or (
            query[-2].is_static and query[-2].lo < 4):
        return False
    mask = graph.producer_key(layer.id, ports[3])
    return mask is not None and not all(graph.layer(lid).is_a("Const") for lid in graph.ancestors([mask[0]])
                                        if not graph.in_edges(lid))


def _lower_rank_dims(layer: Layer) -> list[Dim] | None:
    """The declared dims of the query, key and value of the SDPA-13 ``layer`` where its query is of rank 4 and its
    key or value of rank 3 (which broadcast), all ranks known; None otherwise."""
    shapes = [declared_type(port).shape for port in layer.inputs[:3]]
    if any(shape is None for shape in shapes) or len(shapes[0]) != 4 or 3 not in (len(shapes[1]), len(shapes[2])):
        return None
    return [d for shape in shapes for d in shape]


def _lower_rank_static(graph: Graph, layer: Layer) -> bool:
    """True if the query is of rank 4, the key or value of rank 3, and every dim of the three static, which 2023.3
    and 2024.0 compute wrongly."""
    dims = _lower_rank_dims(layer)
    return dims is not None and all(d.is_static for d in dims)


def _lower_rank_dynamic(graph: Graph, layer: Layer) -> bool:
    """True if the query is of rank 4, the key or value of rank 3, and a dim of the three dynamic, which 2023.3
    fails on at inference."""
    dims = _lower_rank_dims(layer)
    return dims is not None and not all(d.is_static for d in dims)


def _value_width_dynamic(graph: Graph, layer: Layer) -> bool:
    """True if a dim of the query, key or value of the SDPA-13 ``layer`` is dynamic (or a rank unknown) and its value's
    last dim may differ from its query's (not both static and equal), which 2023.3 fails on at inference."""
    shapes = [declared_type(port).shape for port in layer.inputs[:3]]
    if any(shape is None or not shape for shape in shapes):
        return True
    query, value = shapes[0][-1], shapes[2][-1]
    widths_equal = query.is_static and value.is_static and query.lo == value.lo
    return not widths_equal and not all(d.is_static for shape in shapes for d in shape)


def _kv_cache(graph: Graph, layer: Layer) -> bool:
    """True if the key or value of the SDPA-13 ``layer`` is computed from a state (a ReadValue among what feeds it: a
    language model's KV cache), which 2023.3 computes from the keys and values rounded to f16."""
    feeding = [key[0] for key in graph.input_keys(layer.id, layer.input_ids()[1:3]) if key is not None]
    return any(graph.layer(lid).is_a("ReadValue") for lid in graph.ancestors(feeding))


class ScaledDotProductAttentionTo8(Downgrade):
    """ScaledDotProductAttention-13 as ``SoftMax-8((Q * scale) @ K^T + bias, -1) @ V``, what the op is
    (OpenVINO's specification; ops/attention.py holds the measured facts):

    1. scale: input 4 as it is (a scalar or of one element: Multiply broadcasts it); else 1 / sqrt(E) in the element
       type, a Const where E is static, else ShapeOf, Gather, Convert, Sqrt and Divide;
    2. bias: none without a mask; a float mask is added as it is (Add broadcasts it into the scores, its rows and
       batch dims included, as the op does); a boolean mask is added as Select(mask, 0, -inf), so that a row masked
       whole is NaN, as the op's; either, of rank 0, made [1, 1] first (``_matrix``); causal ignores input 3 and
       adds -inf where the key's index j exceeds the query's i (from the top left, L and S unequal too): a Const
       where L and S are static, else Select(Range(S) > Unsqueeze(Range(L), 1), -inf, 0);
    3. the scores are MatMul(Q * scale, K, transpose_b) and the result MatMul(SoftMax-8(scores, -1), V), batch dims
       broadcast by MatMul as by the op (a key or value of lower rank than the query first given leading dims of 1,
       ``_ranked``); the final MatMul keeps the layer's name, output names and rt_info;
    4. OpenVINO 2023.0 CPU fuses an Add of a constant of one row (every dim but the last 1) into the MatMul before
       it as a per-channel bias, and fails to compile where the MatMul's dims are dynamic ("data.size() == OC"): such
       a bias, on dynamic scores, is first broadcast (Broadcast-3 bidirectional) to the scores' last two dims,
       gathered from their ShapeOf, which OpenVINO cannot fold into a constant;
    5. for a target that computes this form as NaN in a row a finite mask takes out whole (``masked_attention_row_nan``:
       2023.0, whose CPU fuses it; measured: -1e30 and f32's least, a language model's padding), the masked scores
       less their row's maximum (ReduceMax-1, keep_dims; Subtract-1) are given to SoftMax-8, which breaks the fusion:
       a SoftMax subtracts that maximum anyway (a row masked whole by -inf stays NaN, as the op's).

    A mask input left unused (causal) goes too, with whatever computed only it (``replace_layer``; a model input
    stays). A bf16 layer is left, for ``retarget`` to refuse: ir_tools writes no bf16 constant. For a target that
    computes a boolean mask inverted (measured: 2023.3 to 2025.2), a layer with one (not causal: causal ignores the
    mask, and is right) is rewritten too, though the target creates SDPA-13; so is, for a target that refuses to read
    a mask broadcast in its last two dims (measured: 2023.3 to 2024.2), a layer (not causal) whose mask has a 1 in
    the place of L or S other than 1, or several rows for a query of one, or a 1 in the place of a dynamic L, whose
    output those releases infer of L 1 (rule 2 adds it as the op broadcasts it);
    and, for a target that computes a rank-4 query beside a key or value of rank 3 wrongly on static dims, or fails
    on it on dynamic ones (measured: 2023.3 and 2024.0; 2023.3), such a layer (rule 3 broadcasts them as the op
    does); and, for a target that crashes on a mask of rank 0 fed at inference beside a query of batch dims of 1 and
    4 rows or more (measured: 2023.3 to 2025.1), such a layer; and, for a target that computes a KV cache's keys and
    values rounded to f16 with no setting to keep them f32 (measured: 2023.3), a layer whose key or value is read
    from a state: the state then stays f32, as the current OpenVINO computes it (given up: that release's fused KV
    cache). A layer whose query, key or value has a dynamic rank is left (``declines``), for ``retarget`` to refuse.
    """

    rewrites = {LABEL: "into MatMul-1, SoftMax-8 and element-wise ops (masks, causal and scale included)"}
    repairs = {"sdpa_boolean_mask_inverted": _boolean_mask, "sdpa_mask_broadcast_refused": _mask_broadcast,
               "sdpa_mask_broadcast_dynamic_fails": _mask_broadcast_dynamic,
               "sdpa_lower_rank_wrong": _lower_rank_static, "sdpa_lower_rank_dynamic_fails": _lower_rank_dynamic,
               "sdpa_scalar_mask_crashes": _scalar_mask_fed, "sdpa_value_width_dynamic_fails": _value_width_dynamic,
               "kv_cache_f16": _kv_cache}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        shifted = self.target is not None and "masked_attention_row_nan" in self.target.miscomputes
        for layer in self.layers(graph):
            a = typed_attrs(layer)
            inputs = graph.input_keys(layer.id, layer.input_ids())  # (all fed: the graph was checked)
            dtype = element_type(builder.type_of(inputs[0]).element or "").numpy
            kind = _kind(builder, a, inputs)
            builder.replace_layer(layer, lambda: [_attention(builder, a, inputs, dtype, layer.name,  # noqa: B023
                                                             shifted)],
                                  origin_text(layer, LABEL))
            stats[f"{LABEL} ({kind}) -> MatMul-1 + SoftMax-8"] += 1
        return PassResult(graph, bool(stats), stats)


    def declines(self, graph: Graph, layer: Layer) -> str | None:
        """A query, key or value of a dynamic rank (the IR declares no dims for it; the op needs a rank of 3 or more):
        rules 1 and 2 read its last dims, and OpenVINO itself compiles no such layer (measured on 2026.4, each of the
        three and the mask alone of a dynamic rank: 'Cannot get length of dynamic dimension' in its SoftMax
        decomposition, or 'CPU plug-in doesn't support Parameter operation with dynamic rank'). A bf16 layer: ir_tools
        writes no bf16 constant."""
        types = [declared_type(port) for port in layer.inputs[:3]]
        unknown = [what for what, t in zip(("query", "key", "value"), types, strict=True) if len(t.shape or ()) < 3]
        if unknown:
            named = unknown[0] if len(unknown) == 1 else f"{', '.join(unknown[:-1])} and {unknown[-1]}"
            return (f"its {named} {'has' if len(unknown) == 1 else 'have'} a dynamic rank, which the rewrite needs "
                    "known (OpenVINO 2026.4 does not compile such a layer either: measured)")
        et = element_type(types[0].element or "")
        if et is None or et.numpy is None:
            return f"its element type is {types[0].element}, of which ir_tools writes no constant"
        return None


def _kind(builder: GraphBuilder, a: AttentionAttrs, inputs: list[Output]) -> str:
    """What the bias is, for the pass's stats."""
    if a.causal:
        return "causal"
    if len(inputs) < 4:
        return "no mask"
    return "boolean mask" if builder.type_of(inputs[3]).element == "boolean" else "float mask"


def _attention(builder: GraphBuilder, a: AttentionAttrs, inputs: list[Output], dtype: np.dtype, name: str,
               shifted: bool = False) -> Output:
    """Rules 1-5 on the layer's ``inputs`` (of element type ``dtype``): the output standing for the layer's;
    ``shifted``: rule 5's row maximum subtracted (a target of ``masked_attention_row_nan``)."""
    query, key, value = inputs[:3]
    rank = len(builder.type_of(query).shape)
    key, value = (_ranked(builder, x, rank, f"{name}/{what}") for x, what in ((key, "key"), (value, "value")))
    scale = inputs[4] if len(inputs) > 4 else _default_scale(builder, query, dtype, f"{name}/scale")
    scaled = builder.add("Multiply", "opset1", None, [query, scale], f"{name}/scaled_query")
    matmul = builder.attrs("MatMul", "opset1", transpose_b=True)
    scores = output_of(builder.add("MatMul", "opset1", matmul, [scaled, key], f"{name}/scores"))
    bias = _bias(builder, a, inputs, dtype, name)
    if bias is not None and builder.type_of(bias).shape == ():
        bias = _matrix(builder, bias, f"{name}/bias_matrix")
    if bias is not None and _fused_as_bias(builder, scores, bias):
        bias = _unfoldable(builder, scores, bias, f"{name}/bias_rows")
    if bias is not None:
        scores = output_of(builder.add("Add", "opset1", None, [scores, bias], f"{name}/masked_scores"))
        if shifted:
            axis = builder.const(np.array([-1], np.int64), f"{name}/row_axis")
            top = builder.add("ReduceMax", "opset1", builder.attrs("ReduceMax", "opset1", keep_dims=True),
                              [scores, axis], f"{name}/row_max")
            scores = output_of(builder.add("Subtract", "opset1", None, [scores, output_of(top)],
                                           f"{name}/shifted_scores"))
    weights = builder.add("SoftMax", "opset8", builder.attrs("SoftMax", "opset8", axis=-1), [scores],
                          f"{name}/weights")
    return output_of(builder.add("MatMul", "opset1", None, [weights, value], name))


def _ranked(builder: GraphBuilder, x: Output, rank: int, name: str) -> Output:
    """Rule 3's key or value: ``x`` given leading dims of 1 up to the query's ``rank`` (Unsqueeze-1), as the op and
    MatMul broadcast it. OpenVINO 2024.0 CPU fuses the MatMuls and SoftMax back into its own attention, which
    computes a rank-4 query beside a key or value of rank 3 wrongly (measured: ``sdpa_lower_rank_wrong``)."""
    missing = rank - len(builder.type_of(x).shape)
    if missing <= 0:
        return x
    axes = builder.const(np.arange(missing, dtype=np.int64), f"{name}/leading_axes")
    return output_of(builder.add("Unsqueeze", "opset1", None, [x, axes], f"{name}/ranked"))


def _matrix(builder: GraphBuilder, bias: Output, name: str) -> Output:
    """Rule 2's bias of rank 0 as a [1, 1] one (Unsqueeze-1), which broadcasts into the scores alike: OpenVINO 2023.3
    to 2025.0 CPU fuse the MatMuls, Add and SoftMax back into their own attention, and crash on its mask of rank 0
    fed at inference (measured: ``sdpa_scalar_mask_crashes``)."""
    axes = builder.const(np.array([0, 1], np.int64), f"{name}/axes")
    return output_of(builder.add("Unsqueeze", "opset1", None, [bias, axes], name))


def _fused_as_bias(builder: GraphBuilder, scores: Output, bias: Output) -> bool:
    """Rule 4's case: a bias of one row (every dim but the last 1, more than one key), computed from Consts only,
    added to scores of dynamic dims."""
    shape, row = builder.type_of(scores).shape, builder.type_of(bias).shape
    if all(d.is_static for d in shape) or not row or any(d != Dim(1, 1) for d in row[:-1]) or row[-1] == Dim(1, 1):
        return False
    graph = builder.graph
    return all(graph.layer(lid).is_a("Const") for lid in graph.ancestors([bias[0]]) if not graph.in_edges(lid))


def _unfoldable(builder: GraphBuilder, scores: Output, bias: Output, name: str) -> Output:
    """Rule 4: the bias broadcast to the scores' last two dims, [L, S] (the scores' batch dims stay 1). Its type is
    the bias's broadcast with the scores' [L, S], as OpenVINO infers it where L and S are static on dynamic batch
    dims (the rule, without the value of a ShapeOf of dynamic dims, would say [?, S])."""
    bias_type, scores_type = builder.type_of(bias), builder.type_of(scores)
    rank = len(scores_type.shape)
    i64 = builder.attrs("ShapeOf", "opset3", output_type="i64")
    shape = output_of(builder.add("ShapeOf", "opset3", i64, [scores], f"{name}/scores_shape"))
    last_two = builder.const(np.array([rank - 2, rank - 1], np.int64), f"{name}/last_two")
    rows = builder.add("Gather", "opset8", None, [shape, last_two, _scalar(builder, 0, np.int64, f"{name}/axis")],
                       f"{name}/rows_keys")
    both = builder.attrs("Broadcast", "opset3", mode="bidirectional")
    out = TensorType(bias_type.element, broadcast_shapes(bias_type.shape, scores_type.shape[-2:]))
    return output_of(builder.add("Broadcast", "opset3", both, [bias, output_of(rows)], name, outputs=[out]))


def _scalar(builder: GraphBuilder, value: float | int, dtype: np.dtype | type, name: str) -> Output:
    return builder.const(np.array(value, dtype), name)


def _dim(builder: GraphBuilder, x: Output, from_end: int, name: str) -> Output:
    """The dim ``from_end`` places from the end of ``x``'s shape (static rank), as an i64 scalar."""
    rank = len(builder.type_of(x).shape)
    i64 = builder.attrs("ShapeOf", "opset3", output_type="i64")
    shape = builder.add("ShapeOf", "opset3", i64, [x], f"{name}/shape")
    index = _scalar(builder, rank - from_end, np.int64, f"{name}/index")
    axis = _scalar(builder, 0, np.int64, f"{name}/axis")
    return output_of(builder.add("Gather", "opset8", None, [output_of(shape), index, axis], name))


def _default_scale(builder: GraphBuilder, query: Output, dtype: np.dtype, name: str) -> Output:
    """Rule 1: 1 / sqrt(E), in the element type."""
    depth = builder.type_of(query).shape[-1]
    one = dtype.type(1)
    if depth.is_static:
        return _scalar(builder, one / np.sqrt(dtype.type(depth.lo)), dtype, name)
    converted = _dim(builder, query, 1, f"{name}/depth")
    # into the element type through f32 (every release converts an integer into f32 as the current one does, and
    # f32 into f16 alike up to f16's largest; an integer into f16 is a pair 2023.0 to 2024.2 convert otherwise)
    for element in dict.fromkeys(("f32", from_numpy(dtype).name)):
        converted = builder.convert(converted, element, f"{name}/depth_{element}")
    root = builder.add("Sqrt", "opset1", None, [converted], f"{name}/sqrt")
    return output_of(builder.add("Divide", "opset1", None, [_scalar(builder, one, dtype, f"{name}/one"), root], name))


def _bias(builder: GraphBuilder, a: AttentionAttrs, inputs: list[Output], dtype: np.dtype,
          name: str) -> Output | None:
    """Rule 2: what is added to the scores, or None."""
    if a.causal:
        return _causal(builder, inputs[0], inputs[1], dtype, f"{name}/causal_bias")
    if len(inputs) < 4:
        return None
    mask = inputs[3]
    if builder.type_of(mask).element != "boolean":
        return mask
    zero = _scalar(builder, 0, dtype, f"{name}/zero")
    minus_inf = _scalar(builder, -np.inf, dtype, f"{name}/minus_inf")
    return output_of(builder.add("Select", "opset1", None, [mask, zero, minus_inf], f"{name}/mask_bias"))


def _causal(builder: GraphBuilder, query: Output, key: Output, dtype: np.dtype, name: str) -> Output:
    """Rule 2, causal: an [L, S] bias of -inf where j > i, else 0."""
    length, source = builder.type_of(query).shape[-2], builder.type_of(key).shape[-2]
    if length.is_static and source.is_static:
        later = np.arange(source.lo)[None, :] > np.arange(length.lo)[:, None]
        return builder.const(np.where(later, -np.inf, 0.0).astype(dtype), name)
    zero, one = (_scalar(builder, v, np.int64, f"{name}/{v}") for v in (0, 1))
    ranges = []
    for x, what in ((key, "keys"), (query, "queries")):
        stop = _dim(builder, x, 2, f"{name}/{what}")
        ranges.append(output_of(builder.add("Range", "opset4", builder.attrs("Range", "opset4", output_type="i64"),
                                            [zero, stop, one], f"{name}/{what}_range")))
    rows = builder.add("Unsqueeze", "opset1", None, [ranges[1], one], f"{name}/query_column")
    later = builder.add("Greater", "opset1", None, [ranges[0], rows], f"{name}/later_keys")
    minus_inf = _scalar(builder, -np.inf, dtype, f"{name}/minus_inf")
    return output_of(builder.add("Select", "opset1", None, [later, minus_inf, _scalar(builder, 0, dtype,
                                                                                        f"{name}/zero")], name))
