"""Einsum-7 with an ellipsis as Einsum-7 of letters alone, for a release whose CPU plugin compiles no other
(``einsum_ellipsis_not_compiled``)."""

from __future__ import annotations

import string
from collections import Counter

import numpy as np

from ...base.dims import Dim
from ...base.errors import IrToolsError
from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.matmul import ELLIPSIS, EinsumAttrs, parse_equation
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, source


def _labels(layer: Layer) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]] | None:
    """The labels of each input and of the output of the Einsum-7 ``layer`` (``parse_equation``), None for an equation
    OpenVINO refuses (``check`` names it: E-OP)."""
    try:
        return parse_equation(A.decode(EinsumAttrs, layer.attrs, layer.loc).equation)
    except IrToolsError:
        return None


def _not_compiled(graph: Graph, layer: Layer) -> bool:
    """True for an Einsum-7 whose equation has an ellipsis or a label repeated in one input (a diagonal): 2023.0 to
    2025.0 read it, but their CPU plugin's EinsumDecomposition takes neither ("Unsupported operation of type:
    Einsum"), or their reader refuses it where two inputs hold an ellipsis."""
    labels = _labels(layer)
    return labels is not None and any(ELLIPSIS in term or len(set(term)) < len(term) for term in labels[0])


class EinsumLetters(Downgrade):
    """For a target whose CPU plugin compiles no Einsum-7 with an ellipsis (``einsum_ellipsis_not_compiled``,
    measured: 2023.0 to 2025.0), the ellipsis spelled as letters the equation does not use, one per
    dim it stands for, right-aligned across the inputs as the ellipsis broadcasts (implicit mode made explicit).
    Where those dims are held by one input only, or are static and equal in every input holding them, that is all;
    else (dynamic, or a 1 against another length) each input holding an ellipsis is first broadcast
    (Broadcast-3 bidirectional) to the others' dims under it, so that every one holds them all and alike: the same
    numbers. Left (``declines``), for ``retarget`` to refuse: a label repeated in one input (a diagonal, which those
    releases do not compile either), an input of dynamic rank under an ellipsis, and an equation that would need
    more than 52 letters."""

    rewrites = {"Einsum-7": "into Einsum-7 of letters alone (an ellipsis spelled as letters, its dims broadcast by "
                            "Broadcast-3 where not provably equal), on inputs of static rank with no label repeated "
                            "in one input"}
    repairs = {"einsum_ellipsis_not_compiled": _not_compiled}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        inputs, _ = _labels(layer) or ((), ())  # (``repairs`` takes no layer whose equation is refused)
        if any(len(set(labels)) < len(labels) for labels in inputs):
            return "a label is repeated in one input (a diagonal), which these releases do not compile either"
        return _plan(layer)[1]

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            (widths, letters, equal), _ = _plan(layer)
            builder.replace_layer(layer, lambda: [_spelled(builder, layer, widths, letters, equal)],  # noqa: B023
                                  origin_text(layer, "Einsum-7"))
            stats[f"Einsum-7 (an ellipsis) -> {'' if equal else 'Broadcast-3 + '}Einsum-7 of letters"] += 1
        return PassResult(graph, bool(stats), stats)


#: What ``_plan`` finds: each input's count of dims under its ellipsis (-1: none), the letters spelling them all, and
#: whether they are provably equal wherever two inputs hold one.
Plan = tuple[list[int], list[str], bool]


def _plan(layer: Layer) -> tuple[Plan, str | None]:
    """How ``layer``'s ellipsis is spelled, and None; or why it cannot be (what ``declines`` says)."""
    inputs, output = _labels(layer) or ((), ())
    shapes = [declared_type(port).shape for port in layer.inputs]
    widths = []
    for labels, shape in zip(inputs, shapes, strict=False):
        if ELLIPSIS not in labels:
            widths.append(-1)
        elif not shape:  # (a port declared without dims: a dynamic rank, as OpenVINO's serializer writes it, or 0)
            return ([], [], True), "an input under '...' has a dynamic rank (or is a scalar)"
        else:
            widths.append(len(shape) - len(labels) + 1)
    width = max(widths, default=0)
    used = {label for labels in (*inputs, output) for label in labels}
    free = [c for c in string.ascii_letters if c not in used]
    if width > len(free):
        return ([], [], True), "an equation of more than 52 letters would be needed"
    letters = free[:max(width, 0)]
    held: dict[str, list[Dim]] = {letter: [] for letter in letters}
    for labels, shape, w in zip(inputs, shapes, widths, strict=False):
        if w > 0 and shape is not None:
            start = labels.index(ELLIPSIS)
            for letter, dim in zip(letters[width - w:], shape[start:start + w], strict=True):
                held[letter].append(dim)
    equal = all(len(dims) < 2 or (all(d.is_static for d in dims) and len({d.lo for d in dims}) == 1)
                for dims in held.values())
    return (widths, letters, equal), None


def _spelled(builder: GraphBuilder, layer: Layer, widths: list[int], letters: list[str], equal: bool) -> Output:
    """The Einsum-7 of letters alone in ``layer``'s place, its inputs broadcast first where not ``equal``."""
    graph, name = builder.graph, layer.name
    inputs, output = _labels(layer) or ((), ())
    sources = [source(graph, layer, i) for i in range(len(inputs))]
    if not equal:
        sources, widths = _broadcast(builder, name, inputs, sources, widths), \
            [len(letters) if w >= 0 else w for w in widths]
    width = len(letters)

    def spell(labels: tuple[str, ...], w: int) -> str:
        return "".join("".join(letters[width - w:]) if label == ELLIPSIS else label for label in labels)

    terms = [spell(labels, w) for labels, w in zip(inputs, widths, strict=True)]
    equation = f"{','.join(terms)}->{spell(output, width)}"
    return output_of(builder.add("Einsum", "opset7", {"equation": equation}, sources, name))


def _broadcast(builder: GraphBuilder, name: str, inputs: tuple[tuple[str, ...], ...], sources: list[Output],
               widths: list[int]) -> list[Output]:
    """Each input holding an ellipsis broadcast (Broadcast-3 bidirectional) to every other such input's dims under it
    followed by 1s for its own labels: its dims under the ellipsis become their broadcast, of the widest's count."""
    i64 = builder.attrs("ShapeOf", "opset3", output_type="i64")
    both = builder.attrs("Broadcast", "opset3", mode="bidirectional")
    under: dict[int, Output] = {}  # input -> the 1-D shape of its dims under the ellipsis
    for i, (labels, w) in enumerate(zip(inputs, widths, strict=True)):
        if w < 0:
            continue
        shape = output_of(builder.add("ShapeOf", "opset3", i64, [sources[i]], f"{name}/shape{i}"))
        start = labels.index(ELLIPSIS)
        at = builder.const(np.arange(start, start + w, dtype=np.int64), f"{name}/under{i}")
        axis = builder.const(np.array(0, np.int64), f"{name}/axis{i}")
        under[i] = output_of(builder.add("Gather", "opset8", None, [shape, at, axis], f"{name}/ellipsis{i}"))
    out = list(sources)
    for i in under:
        ones = builder.const(np.ones(len(inputs[i]) - 1, np.int64), f"{name}/ones{i}")
        for j, dims in under.items():
            if j != i:
                target = output_of(builder.add("Concat", "opset1", {"axis": "0"}, [dims, ones], f"{name}/to{i}_{j}"))
                out[i] = output_of(builder.add("Broadcast", "opset3", both, [out[i], target],
                                               f"{name}/broadcast{i}_{j}"))
    return out
