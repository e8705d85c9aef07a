"""A Reduce op over an axis of static length 0 as a Const of what the current OpenVINO gives there, for a release that
computes it from whatever its output's memory held (``reduce_empty_axis_wrong``: 2023.0 to 2024.5), or ReduceMax and
ReduceMin of i16 from other starts (``reduce_empty_integers_otherwise``: 2024.6 to 2025.3, -32768 and 32767).

What the current OpenVINO CPU gives (measured on 2026.4.1 for each op and element type, the empty input a Parameter
of [3, 0], a Parameter [3, 4] sliced to [3, 0] by StridedSlice-1, and a Parameter [?, ?] fed [3, 0]: alike in the
three; ``EMPTY_START``): ReduceSum, ReduceMean, ReduceL1 and ReduceL2 0, ReduceProd 1, ReduceLogicalAnd True and
ReduceLogicalOr False in every type; ReduceMax and ReduceMin start from the extremes of the type the CPU computes in,
cast to the element type: f32's for f32 and f64 (-/+3.4028235e38), i32's for i32, i64, u32 and u64 (ReduceMax of
u32 2^31, of u64 2^64 - 2^31, of i64 -2^31; ReduceMin of each 2^31 - 1), and for i16 i32's truncated (ReduceMax 0,
ReduceMin -1); i8's, u8's and u16's own. Where the input is computed from Consts alone, OpenVINO folds the layer by
its reference implementation instead (ReduceMin of f32 gives inf, ReduceMax of u32 0; 2023.0 folds ReduceMax of i16
as -32768 where 2026.4 gives 0): those are left. Each release of the defect, 2023.0 to 2024.5, gives other numbers
at each inference (measured on 2023.0, 2024.0 and 2024.5: values of earlier tensors, 1.0 of the sliced input, 0)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dims import Dim, Shape
from ...base.dtypes import F32_MAX, element_type
from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.opsets import type_key
from ..base import PassResult
from ..builder import GraphBuilder, origin_text
from ..shapes import declared_type
from .base import Downgrade, source
from .float_convert import constant

_I32 = np.iinfo(np.int32)
_SUMS = {e: 0 for e in ("f32", "f16", "f64", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64")}

#: What the current OpenVINO CPU gives for each Reduce op over an empty axis, by element type (the module's
#: docstring); an op and type not listed is left: bf16 (not measured), f16's ReduceMax and ReduceMin (-/+3.4e38 held
#: in f32 inside the model, -/+inf as an output: no f16 Const is both), ReduceMax of u32 and u64 (2^31 and 2^64 - 2^31:
#: every release, the current one too, gives a u32 or u64 Const of 2^31 or more as 2^31 - 1, read through i32).
EMPTY_START: dict[str, dict[str, float | int | bool]] = {
    "ReduceMax": {"f32": -F32_MAX, "f64": -F32_MAX, "i8": -128, "u8": 0, "i16": 0, "u16": 0, "i32": int(_I32.min),
                  "i64": int(_I32.min)},
    "ReduceMin": {"f32": F32_MAX, "f64": F32_MAX, "i8": 127, "u8": 255, "i16": -1, "u16": 65535, "i32": int(_I32.max),
                  "u32": int(_I32.max), "i64": int(_I32.max), "u64": int(_I32.max)},
    "ReduceSum": _SUMS, "ReduceMean": _SUMS, "ReduceL1": _SUMS, "ReduceL2": _SUMS,
    "ReduceProd": {e: 1 for e in _SUMS},
    "ReduceLogicalAnd": {"boolean": True}, "ReduceLogicalOr": {"boolean": False},
}

#: Why an op and type measured is left (``EMPTY_START``'s comment).
_F16 = ("the current OpenVINO holds its start in f32 (-/+3.4e38 inside the model, -/+inf as an output), which no f16 "
        "Const is")
_U32 = ("the current OpenVINO gives 2^31 (computed in i32; 2^64 - 2^31 on u64), which every release reads from a Const "
        "as 2^31 - 1")
_LEFT = {("ReduceMax", "f16"): _F16, ("ReduceMin", "f16"): _F16, ("ReduceMax", "u32"): _U32, ("ReduceMax", "u64"): _U32}

#: Every Reduce op of opset1 and opset4 (``EMPTY_START``'s), its op version: the one list of them (``REDUCE_OPS``:
#: how a layer's type spells one, in any case).
REDUCE_LABELS = {"ReduceMax": "ReduceMax-1", "ReduceMin": "ReduceMin-1", "ReduceSum": "ReduceSum-1",
                 "ReduceMean": "ReduceMean-1", "ReduceProd": "ReduceProd-1", "ReduceL1": "ReduceL1-4",
                 "ReduceL2": "ReduceL2-4", "ReduceLogicalAnd": "ReduceLogicalAnd-1",
                 "ReduceLogicalOr": "ReduceLogicalOr-1"}
REDUCE_OPS = {type_key(op): op for op in REDUCE_LABELS}
#: The element types each op is rewritten on, in words (``rewrites``), where not every float and integer type.
_TYPES = {"ReduceMax": ", on f32, f64 and integers but u32 and u64", "ReduceMin": ", on f32, f64 and integers",
          "ReduceLogicalAnd": "", "ReduceLogicalOr": ""}


def reduced_lengths(graph: Graph, layer: Layer, dims: Shape | None) -> list[Dim] | None:
    """The lengths, of ``dims`` (the Reduce ``layer``'s input), of the axes it reduces: every axis where its axes are
    not a Const; None where the rank is not known."""
    if dims is None:
        return None
    axes = graph.producer(layer.id, layer.input_ids()[1]) if len(layer.inputs) > 1 else None
    if axes is None or not axes[0].is_a("Const"):
        return list(dims)
    values = {int(a) for a in graph.const_array(axes[0]).reshape(-1).tolist()}
    return [dims[a + len(dims) if a < 0 else a] for a in sorted(values) if -len(dims) <= a < len(dims)]


#: Element-wise ops of two inputs: where one has an axis of 0 and the other 1 there (numpy broadcasting), none.
_BROADCAST_READERS = ("Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum")


def unseen_when_empty(graph: Graph, layer: Layer) -> bool:
    """Whether what the Reduce ``layer`` gives over an empty axis reaches no element: it keeps its dims, and each of
    its readers is an element-wise op of two inputs (numpy broadcasting) whose other input is the reduction's own,
    as in ``x - max(x)`` (a row maximum taken before a SoftMax, a mean before a normalization): that reader's output
    is empty where the reduction read nothing."""
    if not A.flag(layer.attrs, "keep_dims", False) or len(layer.inputs) < 1:
        return False
    data = graph.producer_key(layer.id, layer.input_ids()[0])
    readers = [edge for port in layer.output_ids() for edge in graph.consumers(layer.id, port)]
    for edge in readers:
        reader = graph.layer(edge.to_layer)
        others = [graph.producer_key(reader.id, port) for port in reader.input_ids() if port != edge.to_port]
        if (not any(reader.is_a(kind) for kind in _BROADCAST_READERS) or others != [data]
                or reader.attrs.get("auto_broadcast", "numpy").lower() != "numpy"):
            return False
    return bool(readers)


def reduces_empty(graph: Graph, layer: Layer) -> bool:
    """Whether the Reduce ``layer`` reduces an axis of static length 0 into an output of one element or more, which a
    release of ``reduce_empty_axis_wrong`` computes from whatever its memory held (an output of none holds nothing
    to compute). By its declared dims: in a graph ``check`` passed (and as a rewrite leaves it) a declared static
    length is the inferred one, and a declared -1 is never a static one (``base.dims.declared_within``)."""
    dims = declared_type(layer.inputs[0]).shape if layer.inputs else None
    if dims is None or not any(d.is_static and d.lo == 0 for d in dims):
        return False  # (most layers: no axis of length 0 at all, the axes not read)
    lengths = reduced_lengths(graph, layer, dims)
    if lengths is None or not any(d.is_static and d.lo == 0 for d in lengths):
        return False
    out = declared_type(layer.outputs[0]).shape if layer.outputs else None
    return out is None or not any(d.is_static and d.lo == 0 for d in out)


#: The ops and element types whose start over an empty axis 2024.6 to 2025.3 give otherwise
#: (``reduce_empty_integers_otherwise``: -32768, 32767 and 0 where the current OpenVINO gives 0, -1 and 2^31).
_INTEGER_STARTS = {("ReduceMax", "i16"), ("ReduceMin", "i16"), ("ReduceMax", "u32"), ("ReduceMax", "u64")}


def reduces_empty_integers(graph: Graph, layer: Layer) -> bool:
    """Whether the Reduce ``layer`` is one of ``_INTEGER_STARTS`` that ``reduces_empty``."""
    element = declared_type(layer.outputs[0]).element if layer.outputs else None
    return (REDUCE_OPS.get(type_key(layer.type)), element) in _INTEGER_STARTS and reduces_empty(graph, layer)


class EmptyReductionConst(Downgrade):
    """A Reduce op over an axis of static length 0 (``reduces_empty``), for a release that computes it from garbage,
    or ReduceMax and ReduceMin of i16 (ReduceMax of u32 and u64) with other starts (``reduces_empty_integers``), as a
    Const of its output's shape holding ``EMPTY_START``'s value, what the current OpenVINO CPU gives: the input is
    empty, so the output depends on its shape alone.

    Left (``declines``): an input computed from Consts alone (OpenVINO folds the layer by its reference
    implementation, with other values), an output of a dynamic shape, and the ops and types ``EMPTY_START`` lacks
    (f16 ReduceMax and ReduceMin, u32 and u64 ReduceMax, bf16)."""

    rewrites = {label: "into a Const of what the current OpenVINO gives, where it reduces an axis of static length 0 "
                       "into an output of static shape and its input is not computed from constants alone"
                       + _TYPES.get(op, ", on f32, f16, f64 and integers") for op, label in REDUCE_LABELS.items()}
    repairs = {"reduce_empty_axis_wrong": reduces_empty, "reduce_empty_integers_otherwise": reduces_empty_integers}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        if constant(graph, source(graph, layer, 0)):
            return ("its input is computed from constants, which OpenVINO folds with its reference implementation, "
                    "other start values")
        out = declared_type(layer.outputs[0])
        if out.shape is None or not all(d.is_static for d in out.shape):
            return "its output's shape is not static"
        op, element = REDUCE_OPS[type_key(layer.type)], out.element or ""
        if element not in EMPTY_START[op]:
            return _LEFT.get((op, element), f"what the current OpenVINO gives on {element or 'an unknown type'} is "
                                            "not measured")
        return None

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            if not reduces_empty(graph, layer):  # (without a target ``layers`` gives every Reduce layer)
                continue
            op = REDUCE_OPS[type_key(layer.type)]
            out = declared_type(layer.outputs[0])
            value = np.full([d.lo for d in out.shape], EMPTY_START[op][out.element],
                            element_type(out.element).numpy)
            builder.replace_layer(layer, lambda: [builder.const(value, layer.name)],  # noqa: B023
                                  origin_text(layer, REDUCE_LABELS[op]))
            stats[f"{REDUCE_LABELS[op]} over an empty axis -> Const"] += 1
        return PassResult(graph, bool(stats), stats)
