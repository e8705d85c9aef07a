"""Einsum-7 with an ellipsis or a diagonal as Einsum-7 of distinct letters alone, for a release whose CPU plugin
compiles no other (``einsum_ellipsis_not_compiled``)."""

from __future__ import annotations

import string
from collections import Counter

import numpy as np

from ...base.dims import Dim, Shape
from ...base.errors import IrToolsError
from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.matmul import ELLIPSIS, EinsumAttrs, parse_equation
from ...ops.releases import op_label
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


def _labels_broadcast(graph: Graph, layer: Layer) -> bool:
    """True for an Einsum-7 with a label of static length 1 in one input and longer in another (``_stretched``),
    which the current OpenVINO broadcasts and 2023.0 to 2025.0 refuse to read ("label_to_shape ... compatible")."""
    labels = _labels(layer)
    return labels is not None and bool(_stretched(labels[0], [declared_type(port).shape for port in layer.inputs]))


def _stretched(inputs: tuple[tuple[str, ...], ...], shapes: list[Shape]) -> dict[str, int]:
    """Each label (the ellipsis aside) of static length 1 in some input and longer in another, with that length,
    of the inputs' ``shapes`` (an input of unknown rank, or of a rank its labels do not fit, left out)."""
    lengths: dict[str, set[int]] = {}
    for labels, shape in zip(inputs, shapes, strict=False):
        width = None if shape is None else len(shape) - len(labels) + 1
        if width is None or width < 0 or width != 1 and ELLIPSIS not in labels:
            continue
        for label, axis in zip(labels, _starts(labels, width), strict=True):
            if label != ELLIPSIS and shape[axis].is_static:  # type: ignore[index] (``width``: a known rank)
                lengths.setdefault(label, set()).add(shape[axis].lo)
    return {label: max(found) for label, found in lengths.items() if 1 in found and max(found) > 1}


class EinsumLetters(Downgrade):
    """For a target whose CPU plugin compiles no Einsum-7 with an ellipsis or a diagonal
    (``einsum_ellipsis_not_compiled``, measured: 2023.0 to 2025.0), or reads none whose labels broadcast
    (``einsum_labels_broadcast_refused``), an Einsum-7 of distinct letters alone of equal lengths:

    1. each label repeated in one input (a diagonal) taken once, by a Transpose-1 bringing two of its axes to the
       front and a Gather-7 of ``range(n)`` on the second with batch_dims 1 (``x[i, i, ...]``, n of ShapeOf-3: dims
       may be dynamic), until no label repeats; that input's labels are then the diagonal's, then the others in
       their order;
    2. each label of length 1 in one input and n in another (``_stretched``, static) broadcast to n where it is 1,
       by Broadcast-3 (bidirectional, to a Const of 1s but n there);
    3. the ellipsis spelled as letters the equation does not use, one per dim it stands for, right-aligned across the
       inputs as the ellipsis broadcasts (implicit mode made explicit). Where those dims are held by one input only,
       or are static and equal in every input holding them, that is all; else (dynamic, or a 1 against another
       length) each input holding an ellipsis is first broadcast (Broadcast-3 bidirectional) to the others' dims
       under it, so that every one holds them all and alike;
    4. an equation of one input whose output only reorders its labels is a Transpose-1, the identity a Reshape-1 to
       its own dims (measured on 2023.0, of a model input: an Einsum-7 of the identity dies, SIGSEGV; a Transpose-1
       of one axis into a model output gives what its memory held).

    The diagonal and the broadcasts only move values, and the Einsum left computes what the original's does of them:
    the same numbers.
    Left (``declines``), for ``retarget`` to refuse: an input of dynamic rank under an ellipsis, and an equation that
    would need more than 52 letters."""

    rewrites = {"Einsum-7": "into Einsum-7 of letters alone (a diagonal taken by Transpose-1 and Gather-7, a label of "
                            "length 1 against a longer one broadcast by Broadcast-3, an ellipsis spelled as letters, "
                            "its dims broadcast by Broadcast-3 where not provably equal; a Transpose-1 or Reshape-1 "
                            "where it only reorders one input), on inputs of static rank under an ellipsis"}
    repairs = {"einsum_ellipsis_not_compiled": _not_compiled, "einsum_labels_broadcast_refused": _labels_broadcast}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        return _plan(layer)[1]

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            (widths, letters, equal), _ = _plan(layer)
            inputs, _ = _labels(layer) or ((), ())
            diagonal = any(len(set(labels)) < len(labels) for labels in inputs)
            ellipsis = any(ELLIPSIS in labels for labels in inputs)
            stretched = _labels_broadcast(graph, layer)
            new = builder.replace_layer(layer, lambda: [_spelled(builder, layer, widths, letters, equal)],  # noqa: B023
                                        origin_text(layer, "Einsum-7"))
            kinds = ["an ellipsis"] * ellipsis + ["a diagonal"] * diagonal + ["labels broadcast"] * stretched
            what = " and ".join(kinds)
            steps = ["Transpose-1 + Gather-7"] * diagonal + ["Broadcast-3"] * (stretched or not equal)
            last = "Einsum-7 of letters" if new[-1].is_a("Einsum") else op_label(new[-1].type, new[-1].version)
            stats[f"Einsum-7 ({what}) -> {''.join(f'{step} + ' for step in steps)}{last}"] += 1
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
    for i, (labels, w) in enumerate(zip(inputs, widths, strict=True)):
        sources[i], labels = _diagonals(builder, f"{name}/{i}", sources[i], labels, w)
        inputs = (*inputs[:i], labels, *inputs[i + 1:])
    stretched = _stretched(inputs, [builder.type_of(out).shape for out in sources])
    for i, labels in enumerate(inputs):
        sources[i] = _stretch(builder, f"{name}/{i}", sources[i], labels, stretched)
    if not equal:
        sources, widths = _broadcast(builder, name, inputs, sources, widths), \
            [len(letters) if w >= 0 else w for w in widths]
    width = len(letters)

    def spell(labels: tuple[str, ...], w: int) -> str:
        return "".join("".join(letters[width - w:]) if label == ELLIPSIS else label for label in labels)

    terms, result = [spell(labels, w) for labels, w in zip(inputs, widths, strict=True)], spell(output, width)
    if len(terms) == 1 and sorted(terms[0]) == sorted(result):  # (a permutation: step 3)
        order = [terms[0].index(label) for label in result]
        if order == sorted(order):
            zeros = builder.const(np.zeros(len(order), np.int64), f"{name}/dims")
            return output_of(builder.add("Reshape", "opset1", {"special_zero": "true"}, [sources[0], zeros], name))
        axes = builder.const(np.array(order, np.int64), f"{name}/order")
        return output_of(builder.add("Transpose", "opset1", None, [sources[0], axes], name))
    equation = f"{','.join(terms)}->{result}"
    return output_of(builder.add("Einsum", "opset7", {"equation": equation}, sources, name))


def _diagonals(builder: GraphBuilder, name: str, value: Output, labels: tuple[str, ...], width: int,
               ) -> tuple[Output, tuple[str, ...]]:
    """``value``, of ``labels`` (its ellipsis standing for ``width`` dims), with each label it repeats taken once (step
    1 of ``EinsumLetters``): its new output and labels."""
    taken = 0
    while repeated := next((label for label in labels if labels.count(label) > 1), None):
        taken += 1
        at = f"{name}/diagonal{taken}"
        first = labels.index(repeated)
        second = labels.index(repeated, first + 1)
        axes = [list(range(k, k + width)) if label == ELLIPSIS else [k] for k, label in
                zip(_starts(labels, width), labels, strict=True)]
        rest = [k for j, group in enumerate(axes) if j not in (first, second) for k in group]
        order = builder.const(np.array([axes[first][0], axes[second][0], *rest], np.int64), f"{at}/order")
        moved = output_of(builder.add("Transpose", "opset1", None, [value, order], f"{at}/front"))
        i64 = builder.attrs("ShapeOf", "opset3", output_type="i64")
        shape = output_of(builder.add("ShapeOf", "opset3", i64, [moved], f"{at}/shape"))
        zero = builder.const(np.array(0, np.int64), f"{at}/zero")
        length = output_of(builder.add("Gather", "opset7", None, [shape, zero, zero], f"{at}/length"))
        one = builder.const(np.array(1, np.int64), f"{at}/one")
        along = output_of(builder.add("Range", "opset4", builder.attrs("Range", "opset4", output_type="i64"),
                                      [zero, length, one], f"{at}/range"))
        value = output_of(builder.add("Gather", "opset7", builder.attrs("Gather", "opset7", batch_dims=1),
                                      [moved, along, one], at))
        labels = (repeated, *(label for j, label in enumerate(labels) if j not in (first, second)))
    return value, labels


def _stretch(builder: GraphBuilder, name: str, value: Output, labels: tuple[str, ...], stretched: dict[str, int],
             ) -> Output:
    """``value``, of ``labels``, broadcast to the length of each label of ``stretched`` where its length is 1 (step 2
    of ``EinsumLetters``); as it is where none is."""
    shape = builder.type_of(value).shape
    if shape is None:
        return value
    target = np.ones(len(shape), np.int64)
    for label, axis in zip(labels, _starts(labels, len(shape) - len(labels) + 1), strict=True):
        if label in stretched and shape[axis].is_static and shape[axis].lo == 1:
            target[axis] = stretched[label]
    if (target == 1).all():
        return value
    both = builder.attrs("Broadcast", "opset3", mode="bidirectional")
    return output_of(builder.add("Broadcast", "opset3", both, [value, builder.const(target, f"{name}/stretch_to")],
                                 f"{name}/stretched"))


def _starts(labels: tuple[str, ...], width: int) -> list[int]:
    """The first axis of each label (an ellipsis spans ``width`` axes)."""
    starts, k = [], 0
    for label in labels:
        starts.append(k)
        k += width if label == ELLIPSIS else 1
    return starts


def _broadcast(builder: GraphBuilder, name: str, inputs: tuple[tuple[str, ...], ...], sources: list[Output],
               widths: list[int]) -> list[Output]:
    """Each input holding an ellipsis broadcast (Broadcast-3 bidirectional) to every other such input's dims under it
    (of an ellipsis of some dims), between 1s for its own labels before and after: its dims under the ellipsis become
    their broadcast, of the widest's count (an input with labels before a narrower ellipsis first given the dims it
    lacks, 1s, by Unsqueeze-1, where the broadcast's right alignment cannot put them). No empty tensor is built: the
    CPU dies compiling a Gather of none (``check``'s E-OP)."""
    i64 = builder.attrs("ShapeOf", "opset3", output_type="i64")
    both = builder.attrs("Broadcast", "opset3", mode="bidirectional")
    width = max(widths)
    under: dict[int, Output] = {}  # input -> the 1-D shape of its dims under the ellipsis
    for i, (labels, w) in enumerate(zip(inputs, widths, strict=True)):
        if w > 0:
            shape = output_of(builder.add("ShapeOf", "opset3", i64, [sources[i]], f"{name}/shape{i}"))
            start = labels.index(ELLIPSIS)
            at = builder.const(np.arange(start, start + w, dtype=np.int64), f"{name}/under{i}")
            axis = builder.const(np.array(0, np.int64), f"{name}/axis{i}")
            under[i] = output_of(builder.add("Gather", "opset8", None, [shape, at, axis], f"{name}/ellipsis{i}"))
    out = list(sources)
    for i, w in enumerate(widths):
        if w < 0:
            continue
        start = inputs[i].index(ELLIPSIS)
        if start and w < width:
            axes = builder.const(np.arange(start, start + width - w, dtype=np.int64), f"{name}/widen{i}")
            out[i] = output_of(builder.add("Unsqueeze", "opset1", None, [out[i], axes], f"{name}/widened{i}"))
        for j, dims in under.items():
            if j != i:
                before = _ones(builder, start and start + width - widths[j], f"{name}/before{i}_{j}")
                after = _ones(builder, len(inputs[i]) - 1 - start, f"{name}/after{i}_{j}")
                target = output_of(builder.add("Concat", "opset1", {"axis": "0"}, [*before, dims, *after],
                                               f"{name}/to{i}_{j}"))
                out[i] = output_of(builder.add("Broadcast", "opset3", both, [out[i], target],
                                               f"{name}/broadcast{i}_{j}"))
    return out


def _ones(builder: GraphBuilder, count: int, name: str) -> list[Output]:
    """A Const of ``count`` 1s (i64) as a list, empty for none."""
    return [builder.const(np.ones(count, np.int64), name)] if count else []
