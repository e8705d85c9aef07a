"""Passes run inside the bodies of TensorIterator, Loop and If: each body rewritten as a graph of its own and put back
as its layer's children."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from ..ir.bodies import fresh_subgraphs, with_bodies
from ..ir.model import Graph
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
    3. the gate after this pass checks the model, whose shape walk re-infers each body with the shapes its layer
       feeds it (a body's findings named ``LAYER/BODY/INNER``).
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
