"""ScatterNDUpdate-15 with a reduction as rounds of GatherND-5, the reduction and ScatterNDUpdate-3."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.opsets import lookup
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from .base import Downgrade

#: The element types whose reductions the rewrite reproduces, measured on OpenVINO CPU (docs/SEMANTICS.md 7).
_EXACT_TYPES = ("f32", "i32")


class ScatterReduceTo3(Downgrade):
    """ScatterNDUpdate-15 with reduction sum, sub, prod, min or max, exactly, where its indices are a Const:

    OpenVINO applies the updates one after another in index order, ``acc = acc op u`` in the data's element
    type (min: ``u < acc ? u : acc``; max: ``acc < u ? u : acc``). Round ``r`` takes the ``r``-th update of
    each element row (no two of a round write the same row): ``ScatterNDUpdate-3(acc, idx_r, acc[idx_r] op
    u_r)``, ``acc[idx_r]`` a GatherND-5, ``u_r`` the round's updates (a GatherND-5 of the updates when there
    are several rounds); Add, Subtract, Multiply, and for min and max Select of Less on f32 (NaN and signed
    zeros as OpenVINO has them) and Minimum or Maximum on i32 (OpenVINO 2023.0 CPU computes Less and Select of
    i32 in f32), so every element sees its updates in index order, each step rounded (f32) or wrapped (i32) as
    OpenVINO does.

    Left, for ``retarget`` to refuse: indices that are not a Const; index tuples of length 0 or indices out of
    ``[-n, n - 1]`` (OpenVINO CPU runs those its own way) or negative ones on a dynamic dim; element types other
    than f32 and i32 (f16 and bf16 accumulate in f32 and round once; i64 is computed in i32 on CPU; boolean as
    a wrapping u8 read back as nonzero: no older op does the same per step).
    """

    rewrites = {"ScatterNDUpdate-15": "into GatherND-5, Add/Subtract/Multiply/Select and ScatterNDUpdate-3 "
                                      "where its reduction is sum, sub, prod, min or max, its indices a constant "
                                      "and its data f32 or i32"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            spec = lookup(layer.type, layer.version)
            reduction = A.decode(spec.attrs, layer.attrs, layer.loc).reduction
            ins = [graph.producer_key(layer.id, port) for port in layer.input_ids()]
            source = graph.layer(ins[1][0])
            rows = _rows(builder, ins[0], graph.const_array(source)) if source.is_a("Const") else None
            if reduction == "none" or rows is None or builder.type_of(ins[0]).element not in _EXACT_TYPES:
                continue
            builder.replace_layer(layer, lambda: [_rounds(builder, layer, ins, reduction, *rows)],  # noqa: B023
                                  origin_text(layer, spec.label))
            stats[f"ScatterNDUpdate-15 ({reduction}) -> ScatterNDUpdate-3 rounds"] += 1
        return PassResult(graph, bool(stats), stats)


def _rows(builder: GraphBuilder, data: Output, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The index tuples counted from the start ([n, k], i64) and each one's occurrence number (how many earlier
    tuples name the same element row); None where the rewrite declines (see the class)."""
    shape = builder.type_of(data).shape
    if indices.ndim == 0 or shape is None or not 1 <= indices.shape[-1] <= len(shape):
        return None
    k = indices.shape[-1]
    flat = indices.reshape(-1, k).astype(np.int64)
    lengths = [d.lo if d.is_static else None for d in shape[:k]]
    for axis, n in enumerate(lengths):
        column = flat[:, axis]
        if n is None:
            if column.size and column.min() < 0:
                return None
        elif column.size and (column.min() < -n or column.max() >= n):
            return None
        else:
            flat[:, axis] = np.where(column < 0, column + n, column)
    seen: Counter[tuple[int, ...]] = Counter()
    occurrence = np.zeros(len(flat), np.int64)
    for i, row in enumerate(map(tuple, flat.tolist())):
        occurrence[i] = seen[row]
        seen[row] += 1
    return flat.reshape(indices.shape), occurrence


def _rounds(builder: GraphBuilder, layer: Layer, ins: list[Output], reduction: str, indices: np.ndarray,
            occurrence: np.ndarray) -> Output:
    """The rounds of the class docstring, the last one's output standing for the layer's."""
    name, acc, updates = layer.name, ins[0], ins[2]
    lead = indices.shape[:-1]
    rounds = int(occurrence.max()) + 1 if occurrence.size else 1
    for r in range(rounds):
        where = f"{name}/round{r}"
        if rounds == 1:
            idx, upd = builder.const(indices, f"{where}/indices"), updates
        else:
            chosen = np.flatnonzero(occurrence == r)
            idx = builder.const(indices.reshape(-1, indices.shape[-1])[chosen], f"{where}/indices")
            at = np.stack(np.unravel_index(chosen, lead), axis=-1).astype(np.int64)  # several rounds: lead != ()
            upd = output_of(builder.add("GatherND", "opset5", None,
                                        [updates, builder.const(at, f"{where}/positions")], f"{where}/updates"))
        old = output_of(builder.add("GatherND", "opset5", None, [acc, idx], f"{where}/old"))
        new = reduced(builder, reduction, old, upd, where)
        acc = output_of(builder.add("ScatterNDUpdate", "opset4", None, [acc, idx, new], where))
    return acc


def reduced(builder: GraphBuilder, reduction: str, old: Output, upd: Output, where: str) -> Output:
    """``old op upd``: one step of a scatter's reduction as OpenVINO computes it (ScatterNDUpdate-15,
    ScatterElementsUpdate-12)."""
    if reduction in ("min", "max") and builder.type_of(old).element == "i32":
        op = "Minimum" if reduction == "min" else "Maximum"
        return output_of(builder.add(op, "opset1", None, [old, upd], f"{where}/{reduction}"))
    if reduction in ("min", "max"):
        smaller = (upd, old) if reduction == "min" else (old, upd)
        less = output_of(builder.add("Less", "opset1", None, list(smaller), f"{where}/less"))
        return output_of(builder.add("Select", "opset1", None, [less, upd, old], f"{where}/{reduction}"))
    op = {"sum": "Add", "sub": "Subtract", "prod": "Multiply"}[reduction]
    return output_of(builder.add(op, "opset1", None, [old, upd], f"{where}/{reduction}"))
