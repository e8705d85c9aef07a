"""Passes run inside the bodies of TensorIterator, Loop and If: each body rewritten as a graph of its own and put back
as its layer's children."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..base.errors import IrToolsError
from ..ir.bodies import fresh_subgraphs, subgraphs, with_bodies
from ..ir.model import Graph, Layer, require_graph
from ..ir.writer import refuse_misfits
from ..ops.control_flow import BODY_TAGS
from .base import Pass, PassResult, reinfer_shapes

#: What a rewrite inside a body adds to its name in the stats migrate prints ("rewrote 1 x Pad-12 -> Pad-1 (inside
#: bodies)"): the model's layer histogram counts its top level only.
INSIDE = " (inside bodies)"


class InBodies(Pass):
    """Runs the passes ``make`` builds inside every body of every TensorIterator, Loop and If, and inside the bodies
    of theirs (this pass runs among them):

    1. each body is a graph ``ir/bodies.fresh_subgraphs`` reads (its Consts read the model's ``.bin``); the passes
       run on it one after another, ungated (``Pass.applied``, as ``PassManager(check_once=True)`` runs them), then
       its dims are re-inferred from its Parameters' declared ones;
    2. a layer whose body changed gets its children again from the graphs (``bodies.with_bodies``: port maps kept, so
       a pass must keep a body's Parameters and Results; a Const it made carries its payload, which the writer lays
       out in the one ``.bin``) and is ``touch``ed;
    3. the re-inference after this pass writes each body's dims as the shapes its layer feeds it give them
       (``shapes.fix_dims``), and the gate checks the model, its shape walk re-inferring each body so (a body's
       findings named ``LAYER/BODY/INNER``).
    """

    records_changes = True

    def __init__(self, make: Callable[[], Sequence[Pass]]) -> None:
        self.make = make

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        changed = False
        for owner in graph.of_types(t.lower() for t in BODY_TAGS):
            subs = fresh_subgraphs(graph, owner)
            rewritten = False
            for sub in subs:
                body = sub.graph
                revision = len(body.changes)
                for body_pass in (*self.make(), self):
                    stats += Counter({f"{rule}{'' if rule.endswith(INSIDE) else INSIDE}": count
                                      for rule, count in body_pass.applied(body, checked=True).stats.items()})
                if len(body.changes) > revision:
                    reinfer_shapes(body)
                    rewritten = True
            if rewritten:
                owner.children = with_bodies(owner, subs)
                graph.touch(owner.id)
                changed = True
        return PassResult(graph, changed, stats)


def bodies(graph: Graph, layer: Layer) -> tuple[Graph, ...]:
    """The bodies of ``layer`` as graphs of the caller's own: a TensorIterator's or Loop's body, an If's then and else
    bodies (another layer has none: ``()``). Passes, ``Graph.by_type`` and ``matches`` see the top level of a model
    only; a body's layers are reached here (a body's Loop has bodies of its own). Read them, or change one and put it
    back with ``set_bodies``: changing the graphs changes nothing of the model by itself."""
    return tuple(sub.graph for sub in fresh_subgraphs(graph, require_graph(graph, "bodies").own(layer)))


def set_bodies(graph: Graph, layer: Layer, changed: Sequence[Graph]) -> None:
    """Write ``changed`` (``bodies(graph, layer)``, edited) back as ``layer``'s bodies: each body's dims re-inferred
    from its Parameters' declared ones, then written as the layer's children with its port maps as they were (a
    Const made in a body carries its bytes, which ``write_ir`` lays out in the model's ``.bin``), the layer
    ``touch``ed. The port maps name a body's Parameters and Results, so a body must keep them, their ids and order;
    E-PASS otherwise. Run it inside a pass: ``Pass.run`` then writes every body's dims as the shapes its layer feeds
    it give them, and its gate checks the model. E-USAGE, the layer untouched, for a body whose layers hold what the
    IR cannot (``writer.refuse_misfits``: they are written into the layer's children here)."""
    now = subgraphs(graph, require_graph(graph, "set_bodies").own(layer))  # (the Parameters and Results the maps name)
    if isinstance(changed, Graph) or not isinstance(changed, Sequence):
        raise IrToolsError(f"set_bodies takes a list of the layer's bodies ([body]: bodies(graph, layer) gives them), "
                           f"not {type(changed).__name__}", layer.loc, "E-USAGE")
    if len(changed) != len(now):
        raise IrToolsError(f"layer '{layer.name}' has {len(now)} {'body' if len(now) == 1 else 'bodies'}, "
                           f"{len(changed)} given", layer.loc, "E-USAGE")
    for body in changed:
        if not isinstance(body, Graph):
            raise IrToolsError(f"set_bodies takes the bodies as Graphs (bodies(graph, layer) gives them), not "
                               f"{body!r}", layer.loc, "E-USAGE")
        refuse_misfits(body)
    for body in changed:
        reinfer_shapes(body)
    layer.children = with_bodies(layer, [replace(sub, graph=body) for sub, body in zip(now, changed, strict=True)])
    graph.touch(layer.id)
