"""EmbeddingBagOffsets-15 and EmbeddingBagPacked-15 as EmbeddingBagOffsetsSum-3 and EmbeddingBagPackedSum-3 (sum),
and EmbeddingBagPacked-15 mean as Gather-1 and ReduceMean-1 (docs/SEMANTICS.md 7)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from ...base.dims import Dim
from ...base.dtypes import from_numpy
from ...ir.model import Graph, Layer
from ...ops.movement import StridedSliceAttrs
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, numpy_dtype, source

OFFSETS, PACKED = "EmbeddingBagOffsets-15", "EmbeddingBagPacked-15"
#: The element types of the table whose mean EmbeddingBagPacked-15 computes as Gather-1 and ReduceMean-1 do: the
#: float ones (OpenVINO CPU runs f16 and bf16 in f32); an integer table's is left (not measured equal).
_MEAN_TYPES = frozenset({"f32", "f16"})


def _reduction(layer: Layer) -> str:
    """The layer's reduction, as OpenVINO reads it (absent: sum)."""
    return layer.attrs.get("reduction", "sum").lower()  # (in any case, not stripped: ops/attrs.enum)


class EmbeddingBagTo3(Downgrade):
    """The two op versions of opset15 that added ``reduction`` to EmbeddingBagOffsetsSum-3 and
    EmbeddingBagPackedSum-3, exactly (the same CPU kernel sums the bag in order, ``acc += row * weight``):

    1. reduction sum: the -3 op with the same inputs, but for an EmbeddingBagOffsets-15 default_index that is, or
       may be, -1 ("fill an empty bag with zeros"), which OpenVINO 2023.0 CPU fails on at inference ("Check 'false'
       failed at src/inference/src/infer_request.cpp"): a Const -1 without per_sample_weights is left out (the -3
       op fills with zeros without one); otherwise the -3 op takes ``Maximum(default_index, 0)`` and its rows of an
       empty bag where default_index is -1 are made 0 (``Select``; a bag is empty where its offset equals the next,
       or the number of indices for the last);
    2. EmbeddingBagPacked-15 mean on a float table: ``ReduceMean-1(Gather-1(table, indices, 0), 1)``: OpenVINO CPU's
       ReduceMean over an axis with others after it sums in order and divides exactly, as the kernel's ``/=``
       (measured on 2023.0 and 2026.4, on rows of 2 elements or more: 400 of 400 layers of up to 47 indices a bag; not
       on rows of one, which it sums in another order; its Divide does not divide exactly: 773 of 4096 f32 quotients
       differed); bags of one index, the rows themselves (``_packed_mean``).

    EmbeddingBagOffsets-15 mean is left, for ``retarget`` to refuse (``declines``): its bags differ in length, so no
    one ReduceMean divides them, and Divide is not exact. So is an integer table's packed mean, and one of rows of one
    element (or of dims not known) in bags of more than one.
    """

    rewrites = {OFFSETS: "into EmbeddingBagOffsetsSum-3 (reduction sum)",
                PACKED: "into EmbeddingBagPackedSum-3 (reduction sum), or Gather-1 and ReduceMean-1 (reduction mean "
                        "of a float table)"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            packed = layer.type.lower() == "embeddingbagpacked"
            label, reduction = PACKED if packed else OFFSETS, _reduction(layer)
            build = _packed_mean if reduction == "mean" else _packed_sum if packed else _offsets_sum
            builder.replace_layer(layer, lambda: [build(builder, layer)], origin_text(layer, label))  # noqa: B023
            if reduction == "mean":
                into = "(mean, bags of one) -> Gather-1" if _one_each(layer) else "(mean) -> Gather-1 + ReduceMean-1"
            else:
                into = f"(sum) -> {'EmbeddingBagPackedSum-3' if packed else 'EmbeddingBagOffsetsSum-3'}"
            stats[f"{label} {into}"] += 1
        return PassResult(graph, bool(stats), stats)

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        """Reduction mean but of a packed float table (rule 2); a reduction OpenVINO does not name."""
        reduction = _reduction(layer)
        if reduction not in ("sum", "mean"):
            return f"its reduction is {reduction!r}"
        if reduction == "sum":
            return None
        if layer.type.lower() == "embeddingbagoffsets":
            return ("its reduction is mean over bags of different lengths, which no older op divides as its kernel "
                    "does (one ReduceMean divides every bag by one length; OpenVINO CPU's Divide does not divide "
                    "exactly: measured)")
        table = declared_type(layer.inputs[0])
        if table.element not in _MEAN_TYPES:
            return f"its reduction is mean of a table of element type {table.element}, which ir_tools has not measured"
        if _one_each(layer):
            return None
        row = table.shape[1:] if table.shape else None
        if not row or not all(d.is_static for d in row) or math.prod(d.lo for d in row) < 2:
            return ("its reduction is mean of a table whose rows hold one element, or a number not known, and OpenVINO "
                    "CPU's ReduceMean sums rows of one element in another order than the kernel (measured)")
        return None


def _one_each(layer: Layer) -> bool:
    """Whether the EmbeddingBagPacked-15 ``layer``'s bags hold one index each (a static 1 in its indices' dims)."""
    shape = declared_type(layer.inputs[1]).shape
    return shape is not None and len(shape) == 2 and shape[1] == Dim(1, 1)


def _same_inputs(builder: GraphBuilder, layer: Layer, op_type: str, inputs: list[Output]) -> Output:
    """The -3 op ``op_type`` on ``inputs``, of the layer's declared output type (ir_tools has no shape rule for it)."""
    return output_of(builder.add(op_type, "opset3", {}, inputs, layer.name,
                                 outputs=[declared_type(layer.outputs[0])]))


def _packed_sum(builder: GraphBuilder, layer: Layer) -> Output:
    """Rule 1, EmbeddingBagPacked-15: EmbeddingBagPackedSum-3 on the same inputs."""
    graph = builder.graph
    return _same_inputs(builder, layer, "EmbeddingBagPackedSum",
                        [source(graph, layer, i) for i in range(len(layer.inputs))])


def _offsets_sum(builder: GraphBuilder, layer: Layer) -> Output:
    """Rule 1, EmbeddingBagOffsets-15: EmbeddingBagOffsetsSum-3, its default_index of -1 taken care of."""
    graph = builder.graph
    inputs = [source(graph, layer, i) for i in range(len(layer.inputs))]
    if len(inputs) < 4:
        return _same_inputs(builder, layer, "EmbeddingBagOffsetsSum", inputs)
    default = graph.layer(inputs[3][0])
    value = int(graph.const_array(default).reshape(-1)[0]) if default.is_a("Const") else None
    if value is not None and value != -1:
        return _same_inputs(builder, layer, "EmbeddingBagOffsetsSum", inputs)
    if value == -1 and len(inputs) == 4:
        return _same_inputs(builder, layer, "EmbeddingBagOffsetsSum", inputs[:3])
    return _zero_filled(builder, layer, inputs)


def _zero_filled(builder: GraphBuilder, layer: Layer, inputs: list[Output]) -> Output:
    """Rule 1 where default_index may be -1 (a Const -1 beside per_sample_weights, or computed): the -3 op with
    ``Maximum(default_index, 0)``, then ``Select(empty & (default_index == -1), 0, sums)``, the mask unsqueezed to the
    rows' rank."""
    name = layer.name
    table, indices, offsets, default = inputs[:4]
    index_type = numpy_dtype(builder, offsets, "i64")
    default_type = numpy_dtype(builder, default, "i64")
    zero_index = builder.const(np.zeros((), default_type), f"{name}/default/zero")
    clamped = builder.add("Maximum", "opset1", None, [default, zero_index], f"{name}/default")
    sums = builder.add("EmbeddingBagOffsetsSum", "opset3", {}, [table, indices, offsets, output_of(clamped),
                                                                 *inputs[4:]],
                       f"{name}/sums", outputs=[declared_type(layer.outputs[0])])
    flags = (0,)
    later = builder.add("StridedSlice", "opset1",
                        StridedSliceAttrs(begin_mask=flags, end_mask=(1,), new_axis_mask=flags, shrink_axis_mask=flags,
                                          ellipsis_mask=flags),
                        [offsets, builder.const(np.array([1], np.int64), f"{name}/bags/second"),
                         builder.const(np.array([0], np.int64), f"{name}/bags/last"),
                         builder.const(np.array([1], np.int64), f"{name}/bags/step")], f"{name}/bags/later")
    counted = builder.attrs("ShapeOf", "opset3", output_type=from_numpy(index_type).name)
    total = builder.add("ShapeOf", "opset3", counted, [indices], f"{name}/bags/indices")
    ends = builder.add("Concat", "opset1", builder.attrs("Concat", "opset1", axis=0), [later, total],
                       f"{name}/bags/ends")
    empty = builder.add("Equal", "opset1", None, [ends, offsets], f"{name}/bags/empty")
    unset = builder.add("Equal", "opset1", None, [default, builder.const(np.array(-1, default_type),
                                                                         f"{name}/default/unset_value")],
                        f"{name}/default/unset")
    zeroed = builder.add("LogicalAnd", "opset1", None, [empty, unset], f"{name}/bags/zeroed")
    rank = len(declared_type(layer.outputs[0]).shape or ())
    rows = builder.add("Unsqueeze", "opset1", None, [zeroed, builder.const(np.arange(1, max(rank, 2), dtype=np.int64),
                                                                            f"{name}/bags/row_axes")],
                       f"{name}/bags/zeroed_rows") if rank > 1 else zeroed
    zero = builder.const(np.zeros((), numpy_dtype(builder, table, "f32")), f"{name}/zero")
    return output_of(builder.add("Select", "opset1", None, [rows, zero, sums], name))


def _packed_mean(builder: GraphBuilder, layer: Layer) -> Output:
    """Rule 2: ``ReduceMean-1(Gather-1(table, indices, 0), 1)``, the layer's name on the ReduceMean; bags of one index
    each (a static 1), whose mean is the row itself (``x / 1``), as ``Gather-1(table, Squeeze(indices, 1), 0)``:
    OpenVINO 2023.0 CPU fails to run ("Dims and format are inconsistent") a Gather of a one-row table by Const indices
    of shape [1, 1] followed by a ReduceMean, ReduceSum or Squeeze (measured)."""
    graph, name = builder.graph, layer.name
    table, indices = source(graph, layer, 0), source(graph, layer, 1)
    axis = builder.const(np.array(0, np.int64), f"{name}/axis")
    bag_axis = builder.const(np.array([1], np.int64), f"{name}/bag_axis")
    if _one_each(layer):
        each = builder.add("Squeeze", "opset1", None, [indices, bag_axis], f"{name}/indices")
        return output_of(builder.add("Gather", "opset1", None, [table, output_of(each), axis], name))
    rows = builder.add("Gather", "opset1", None, [table, indices, axis], f"{name}/rows")
    mean = builder.attrs("ReduceMean", "opset1", keep_dims=False)
    return output_of(builder.add("ReduceMean", "opset1", mean, [rows, bag_axis], name))
