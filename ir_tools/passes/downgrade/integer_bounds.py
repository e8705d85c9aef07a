"""The least and greatest value an integer output provably carries on every release, from the ops that compute it:
what tells a Convert no release computes otherwise (``integer_wrap``) and computed pads no release reads as negative
(``pad``)."""

from __future__ import annotations

import weakref

import numpy as np

from ...base.dtypes import INTEGER_TYPES, element_type
from ...ir.model import Graph, Layer
from ..builder import Output
from ..shapes import declared_type

#: Ops each of whose output elements is an element of their input 0 (Concat: of one of its inputs).
_PICKING = ("Reshape", "Squeeze", "Unsqueeze", "Split", "VariadicSplit", "Transpose", "Concat")

#: Ops of two inputs whose bounds follow from their inputs' (where the output's type holds them).
_ARITHMETIC = ("Add", "Subtract", "Maximum", "Minimum")

#: Below this, an integer FloorMod computed through f32 (as OpenVINO CPU does) is exact: x / c rounds to no integer it
#: is not (measured on 2023.0 and 2026.4). Beyond it, CPU's FloorMod by 3, 5 or 7 of i32 and i64 values of 2^30 and more
#: gives -128 and 128 too; by a power of two, what it gives of any value lies in [0, c) (the division is exact).
_EXACT = 2**23

#: How deep the producers are followed (a shape subgraph is shallow; a long integer data path is not worth it).
_DEPTH = 32


def integer_bounds(graph: Graph, out: Output) -> tuple[int, int] | None:
    """The least and greatest value ``out`` (an integer type) may carry on any release: a Const's values; ShapeOf's
    of its input's declared dims; a Convert's input's where its type holds them; FloorMod's [0, c) by a positive c,
    both below 2^23 or c a power of two; Add's, Subtract's, Maximum's and Minimum's of their inputs'; the inputs' of an
    op that only picks elements (``_PICKING``; Gather of Const indices within a static axis); each where the output's
    type holds them, else the type's range (None for a type that is not an integer). Where no op upstream reads beyond
    its input (a Gather's index out of range: CPU reads what it finds, which no bound holds). Remembered per graph
    until its next change (``Graph.changes``: the downgrade passes that ask record theirs), as a pass and its
    ``declines`` ask of the same layers, and their pads share producers."""
    revision, known = _KNOWN.get(graph, (-1, {}))
    if revision != len(graph.changes):
        known = {}
        _KNOWN[graph] = (len(graph.changes), known)
    return _bounds(graph, out, _DEPTH, known)


#: Per graph: how many changes it had when ``integer_bounds`` last answered, and what it found then.
_KNOWN: weakref.WeakKeyDictionary[Graph, tuple[int, dict[tuple[Output, int], tuple[int, int] | None]]] = \
    weakref.WeakKeyDictionary()


def _bounds(graph: Graph, out: Output, depth: int, known: dict[tuple[Output, int], tuple[int, int] | None]
            ) -> tuple[int, int] | None:
    """``integer_bounds`` within ``depth`` producers, each output's once (``known``: a shape subgraph reads one
    output twice, Add(x, x), and a chain of such would otherwise be walked 2^depth times)."""
    if (out, depth) not in known:
        known[out, depth] = _bounds_of(graph, out, depth, known)
    return known[out, depth]


def _bounds_of(graph: Graph, out: Output, depth: int, known: dict[tuple[Output, int], tuple[int, int] | None]
               ) -> tuple[int, int] | None:
    layer = graph.layer(out[0])
    element = declared_type(layer.output(out[1])).element
    if element not in INTEGER_TYPES or element_type(element).numpy is None:
        return None
    info = np.iinfo(element_type(element).numpy)
    full = (int(info.min), int(info.max))
    if layer.is_a("Const"):
        value = graph.const_array(layer)
        return (int(value.min()), int(value.max())) if value.size else (0, 0)  # (no value: any bound holds)
    inputs = [graph.producer_key(layer.id, port) for port in layer.input_ids()]
    if depth == 0 or None in inputs:
        return full

    def of(index: int) -> tuple[int, int]:
        return _bounds(graph, inputs[index], depth - 1, known) or full  # type: ignore[arg-type]

    made = full
    if layer.is_a("ShapeOf"):
        dims = declared_type(layer.inputs[0]).shape
        if dims is not None:
            made = (min((d.lo for d in dims), default=0),
                    full[1] if any(d.hi is None for d in dims) else max((d.hi or 0 for d in dims), default=0))
    elif layer.is_a("FloorMod"):
        (x_lo, x_hi), (c_lo, c_hi) = of(0), of(1)
        exact = -_EXACT < x_lo and x_hi < _EXACT and c_hi < _EXACT
        power_of_two = c_lo == c_hi and c_lo & (c_lo - 1) == 0
        made = (0, c_hi - 1) if 0 < c_lo and (exact or power_of_two) else full
    elif layer.is_a("Convert"):
        made = of(0)
    elif (kind := next((k for k in _ARITHMETIC if layer.is_a(k)), None)) is not None:
        (a_lo, a_hi), (b_lo, b_hi) = of(0), of(1)
        made = {"Add": (a_lo + b_lo, a_hi + b_hi), "Subtract": (a_lo - b_hi, a_hi - b_lo),
                "Maximum": (max(a_lo, b_lo), max(a_hi, b_hi)), "Minimum": (min(a_lo, b_lo), min(a_hi, b_hi))}[kind]
    elif any(layer.is_a(kind) for kind in _PICKING):
        picked = [of(i) for i in (range(len(inputs)) if layer.is_a("Concat") else (0,))]
        made = (min(lo for lo, _ in picked), max(hi for _, hi in picked))
    elif layer.is_a("Gather") and _gathers_within(graph, layer, inputs):
        made = of(0)
    return made if full[0] <= made[0] and made[1] <= full[1] else full


def _gathers_within(graph: Graph, layer: Layer, inputs: list[Output | None]) -> bool:
    """Whether a Gather's Const indices all fall within its Const axis of static length (an index beyond it gives 0
    on the current OpenVINO and what it finds on an older one); batch_dims 0."""
    indices, axis = (graph.layer(key[0]) for key in inputs[1:3])  # type: ignore[index]
    shape = declared_type(layer.inputs[0]).shape
    if not (indices.is_a("Const") and axis.is_a("Const")) or shape is None or int(layer.attrs.get("batch_dims", 0)):
        return False
    axis_value = int(graph.const_array(axis).reshape(-1)[0])
    if not -len(shape) <= axis_value < len(shape) or shape[axis_value].hi != shape[axis_value].lo:
        return False
    n = shape[axis_value].lo
    values = graph.const_array(indices)
    low = -n if layer.version not in ("opset1", "opset7") else 0
    return bool(values.size == 0 or (low <= values.min() and values.max() < n))
