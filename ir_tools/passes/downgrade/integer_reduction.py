"""Reduce ops on integers that a release computes otherwise than the current OpenVINO (``reduce_integers_otherwise``:
2023.0 to 2025.3, the ops and types of each release's ``Release.reduces_otherwise``): ReduceMean of i8 and u8 (of
i32 and i64 within 2^24) rewritten as the current one computes it, the others named and left.

What differs (measured on every release with wheels against 2026.4, scripts/probe_release.py ``reduce_integers``):
2023.0 to 2024.3 round a ReduceMean and a ReduceL2 of every integer type to the nearest where the current one
truncates (-20082.6 gives -20083, not -20082); 2023.0 to 2024.2 overflow ReduceProd of every integer type otherwise;
2023.0 to 2025.3 saturate ReduceSum, ReduceL1 and ReduceProd of i16 and u16 where the current one wraps, and
compute them of u32 and u64, ReduceMean of u32 and u64 and ReduceL2 of i16, u32 and u64 otherwise where the result
leaves i32 or the type. ReduceMax and ReduceMin agree on every release (values within i32).

The current OpenVINO CPU computes an integer ReduceMean as its ReduceSum (which every release computes alike on i8,
u8, i32 and i64: in f32, saturated into the type, u8 72 + 41 + 90 + 41 + 93 giving 255), divided in f32 and
truncated (255 / 5 = 51; -100413 / 5 = -20082): so ``IntegerReduction`` builds it (measured equal, bit for bit, on
2023.0, 2024.0, 2024.3 and 2026.4, 1600 rows of each type of 2, 3, 5 and 7 values; i32 and i64 beyond 2^24 the
current one sums otherwise, in an order of its own)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dtypes import element_type
from ...ir.model import Graph, Layer
from ...ops.opsets import type_key
from ...ops.releases import Release
from ..base import PassResult
from ..builder import GraphBuilder, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, source
from .empty_reduction import REDUCE_LABELS, REDUCE_OPS, reduced_lengths
from .integer_bounds import integer_bounds

#: The op versions the defect may hit (every Reduce of opset1 and opset4 on numbers), by op type.
_LABELS = {op: label for op, label in REDUCE_LABELS.items() if "Logical" not in op}


def _element(layer: Layer) -> str | None:
    """The element type the Reduce ``layer`` reduces (its data input's, as declared)."""
    return declared_type(layer.inputs[0]).element if layer.inputs else None


def _pair(layer: Layer) -> str:
    """The layer's op and input element type as ``Release.reduces_otherwise`` spells them ("ReduceSum:i16")."""
    return f"{REDUCE_OPS.get(type_key(layer.type), layer.type)}:{_element(layer)}"


def _any_integer(graph: Graph, layer: Layer) -> bool:
    """Whether the layer reduces an integer type (``IntegerReduction.defect`` narrows it to the target's pairs)."""
    element = _element(layer)
    return element is not None and element[0] in "iu" and element[1:].isdigit()


def _reduced_count(graph: Graph, layer: Layer) -> int | None:
    """How many elements each output element of the Reduce ``layer`` reduces, where its axes are a Const and every
    axis they name has a static length (None otherwise)."""
    if len(layer.inputs) < 2 or not graph.layer(source(graph, layer, 1)[0]).is_a("Const"):
        return None
    lengths = reduced_lengths(graph, layer, declared_type(layer.inputs[0]).shape)
    if lengths is None or not all(d.is_static for d in lengths):
        return None
    return int(np.prod([d.lo for d in lengths]))


def _largest(graph: Graph, layer: Layer) -> int | None:
    """The largest magnitude the Reduce ``layer``'s input may hold (``integer_bounds``), None where unbounded."""
    found = integer_bounds(graph, source(graph, layer, 0))
    return None if found is None else max(abs(found[0]), abs(found[1]))


#: Within this magnitude (and the type's), every release computes ReduceSum, ReduceL1 and ReduceProd alike: each
#: difference measured is a result beyond it (2023.0 to 2024.2 compute ReduceProd of i32 and i64 through f32:
#: -69 * -41 * 67 * -55 * 50 gives -521243264, not -521243250), none on 8420 rows whose bound lies within it.
_ALIKE_WITHIN = 2**24

#: The ops whose differences are all beyond ``_ALIKE_WITHIN`` (a ReduceMean or ReduceL2 is rounded otherwise whatever
#: its values: 2023.0 to 2024.3).
_BOUNDED = {"ReduceSum": "sum", "ReduceL1": "sum", "ReduceProd": "product"}


def provably_alike(graph: Graph, layer: Layer) -> bool:
    """Whether every release computes the ReduceSum, ReduceL1 or ReduceProd ``layer`` as the current OpenVINO does:
    its input's values (``integer_bounds``) and the static number of elements it reduces bound every partial result
    within ``_ALIKE_WITHIN`` and its type (a product of a shape's static dims)."""
    kind = _BOUNDED.get(REDUCE_OPS.get(type_key(layer.type), ""))
    element = _element(layer) if kind else None
    count = _reduced_count(graph, layer) if element else None
    largest = _largest(graph, layer) if count is not None else None
    if count is None or largest is None:
        return False
    if kind == "sum":
        bound = count * largest
    else:
        bound = largest if largest <= 1 or count <= 1 else \
            (largest ** count if count < 25 else _ALIKE_WITHIN + 1)
    return bound <= min(_ALIKE_WITHIN, int(np.iinfo(element_type(element).numpy).max))


#: Ops each of whose output elements is one of their data inputs' (Gather and the slices: input 0), which a product of
#: dims (``counts_elements``) may pass through.
_PICKING = {"concat": None, "reshape": 0, "squeeze": 0, "unsqueeze": 0, "gather": 0, "stridedslice": 0, "slice": 0}


#: Integer types a dim keeps its value in, converted from one into another (a dim below 2^31).
_DIM_TYPES = ("i32", "i64")


def _converts_dims(made: Layer) -> bool:
    """Whether ``made`` is a Convert-1 between ``_DIM_TYPES``, which keeps a dim's value (the PyTorch frontend's
    ``aten::index`` converts a ShapeOf's i64 dims into i32 before their ReduceProd: CLIP's text model)."""
    return made.is_a("Convert") and bool(made.inputs) and bool(made.outputs) and \
        declared_type(made.inputs[0]).element in _DIM_TYPES and declared_type(made.outputs[0]).element in _DIM_TYPES


def counts_elements(graph: Graph, layer: Layer) -> bool:
    """Whether ``layer`` is a ReduceProd of dims: each value it multiplies is a ShapeOf's (through ops that only pick
    elements, ``_PICKING``, and Converts between i32 and i64, ``_converts_dims``) or a Const's, as a product of a
    tensor's dims, which the releases that compute ReduceProd of i32 and i64 otherwise (through f32: 2023.0 to
    2024.2) compute as the current OpenVINO does up to ``_ALIKE_WITHIN``, 16.7 million (a language model's batch
    times its sequence length): ``check --target`` warns of it, and ``migrate --target`` writes it as it is."""
    if REDUCE_OPS.get(type_key(layer.type)) != "ReduceProd" or not layer.inputs:
        return False
    pending, seen = [source(graph, layer, 0)], 0
    while pending:
        seen += 1
        made = graph.layer(pending.pop()[0])
        if made.is_a("ShapeOf") or made.is_a("Const"):
            continue
        data = 0 if _converts_dims(made) else _PICKING.get(made.type.lower(), -1)
        if data == -1 or seen > 64:
            return False
        ports = made.input_ids() if data is None else made.input_ids()[:1]
        pending += [key for port in ports if (key := graph.producer_key(made.id, port)) is not None]
    return True


def reduced_otherwise(graph: Graph, layer: Layer, target: Release) -> bool:
    """Whether ``target`` may compute the Reduce ``layer`` otherwise than the current OpenVINO: its op and element
    type are one of ``Release.reduces_otherwise``, and no bound proves it alike (``provably_alike``)."""
    return _pair(layer) in target.reduces_otherwise and not provably_alike(graph, layer)


#: The element types whose ReduceMean is rewritten (``_mean_declines``): i32 and i64 only within ``_ALIKE_WITHIN``.
_MEAN_TYPES = ("i8", "u8", "i32", "i64")


def _mean_declines(graph: Graph, layer: Layer, target: Release | None) -> str | None:
    """Why the ReduceMean ``layer`` is not rewritten (``IntegerReduction``), else None."""
    element = _element(layer) or ""
    if element not in _MEAN_TYPES or (target is not None and f"ReduceSum:{element}" in target.reduces_otherwise):
        return f"no exact form of its mean of {element or 'an unknown type'} is built: the release computes its sum " \
               "otherwise too"
    count = _reduced_count(graph, layer)
    if not count:
        return "its axes are not a constant, or an axis it reduces is of a dynamic length, or of 0"
    if element in ("i32", "i64"):
        largest = _largest(graph, layer)
        if largest is None or count * largest > _ALIKE_WITHIN:
            return (f"its {element} values may sum beyond 2^24, which the current OpenVINO sums otherwise (in f32, in "
                    "an order of its own)")
    return None


class IntegerReduction(Downgrade):
    """Names the Reduce layers of an op and integer type the target computes otherwise
    (``Release.reduces_otherwise``), but those ``provably_alike`` and the products of dims (``counts_elements``: a
    warning of ``passes/target``), and leaves them (``declines``), for ``check --target`` to report and
    ``migrate --target`` to refuse."""

    rewrites = {label: "in no form yet, where the target computes it otherwise on its integer type"
                for label in _LABELS.values()} | {
        "ReduceMean-1": "into ReduceSum-1 divided in f32 and truncated by Convert-1, as the current OpenVINO computes "
                        "it, on i8 and u8, and on i32 and i64 of values provably summing within 2^24, over axes of "
                        "static length"}
    repairs = {"reduce_integers_otherwise": _any_integer}

    def defect(self, graph: Graph, layer: Layer) -> str | None:
        """``reduce_integers_otherwise`` where the target computes the layer's op on its element type otherwise
        (``Release.reduces_otherwise``), else the base's answer."""
        key = super().defect(graph, layer)
        if key == "reduce_integers_otherwise":
            assert self.target is not None
            return key if not counts_elements(graph, layer) and reduced_otherwise(graph, layer, self.target) else None
        return key

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        if REDUCE_OPS.get(type_key(layer.type)) == "ReduceMean":
            return _mean_declines(graph, layer, self.target)
        return "no exact form of it in ops the release computes as the current OpenVINO does is built yet"

    def apply(self, graph: Graph) -> PassResult:
        """Each ReduceMean it takes as ReduceSum-1, Convert-1 into f32, Divide-1 by the count and Convert-1 back (the
        module's docstring); every other layer it names is left (``declines``), for ``retarget`` to refuse."""
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            if self.target is None:  # (without a target: every Reduce layer, none to repair)
                continue
            builder.replace_layer(layer, lambda: [_mean(builder, graph, layer)],  # noqa: B023
                                  origin_text(layer, "ReduceMean-1"))
            stats[f"ReduceMean-1 of {declared_type(layer.outputs[0]).element} -> ReduceSum-1 and Divide-1 in f32"] += 1
        return PassResult(graph, bool(stats), stats)


def _mean(builder: GraphBuilder, graph: Graph, layer: Layer) -> tuple[str, int]:
    """The ReduceMean ``layer`` as its ReduceSum (same axes, keep_dims) divided by the count in f32, truncated into
    its type by Convert-1."""
    name, out = layer.name, declared_type(layer.outputs[0])
    count = _reduced_count(graph, layer)
    assert count  # (``declines``)
    total = builder.add("ReduceSum", "opset1", dict(layer.attrs), [source(graph, layer, 0), source(graph, layer, 1)],
                        f"{name}/sum")
    wide = builder.convert(total, "f32", f"{name}/sum_f32")
    mean = builder.add("Divide", "opset1", None, [output_of(wide), builder.const(np.array(count, np.float32),
                                                                                 f"{name}/count")], f"{name}/mean_f32")
    return output_of(builder.convert(mean, out.element or "", name, outputs=[out]))
