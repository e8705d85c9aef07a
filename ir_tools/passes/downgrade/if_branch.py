"""If-8 whose condition is known before it runs, as the body it chooses: for a release without If-8 (2021.4), and
for one whose CPU plugin compiles no If of an output of dynamic rank, which the current OpenVINO folds where the
condition compares a tensor with itself (optimum's DeBERTa-v2)."""

from __future__ import annotations

from collections import Counter

from ...base.dtypes import INTEGER_TYPES
from ...ir.bodies import Subgraph, fresh_subgraphs, subgraphs
from ...ir.model import Edge, Graph, Layer
from ...ir.names import names_attribute, tensor_names
from ..base import PassResult
from ..builder import GraphBuilder, Output, drop_unused, origin_text, with_origin
from ..interface_names import own_tensor
from ..shapes import declared_type
from .base import Downgrade, source

#: A comparison of a value with itself: what it gives (every integer equals itself; a float NaN does not).
_SELF_COMPARED = {"equal": True, "notequal": False, "less": False, "greater": False, "lessequal": True,
                  "greaterequal": True}


def _ranks_differ(graph: Graph, layer: Layer) -> bool:
    """Whether an output of the If has a dynamic rank (``if_dynamic_rank_not_compiled``): it declares no dims (a
    dynamic rank, as OpenVINO writes one, or a scalar) and its two bodies' Results of it differ in rank, or one has a
    dynamic rank. An output of static rank is OpenVINO's inference of it (its condition known, the body it selects):
    the DeBERTa-v2 export made static, whose then bodies' Results declare rank 3 and else bodies' rank 4, compiles
    on 2025.0 as it is, where its Ifs rewritten did not (2025.0's EliminateGather failing on a Gather of constants
    of the If left)."""
    bodies = subgraphs(graph, layer)
    for position, port in enumerate(layer.outputs):
        if port.dims:
            continue
        ranks = set()
        for body in bodies:
            result = next((body.results[m.result] for m in body.port_map.outputs if m.output == position), None)
            shape = None if result is None else declared_type(result.inputs[0]).shape
            ranks.add(None if shape is None else len(shape))
        if len(ranks) > 1 or None in ranks:
            return True
    return False


class IfBranch(Downgrade):
    """If-8 as the body its condition chooses, where the condition is known before it runs: a Const, or a
    comparison (Equal, NotEqual, Less, Greater, LessEqual, GreaterEqual) of an integer tensor with itself. The chosen
    body's layers join the graph (each recording the If as its origin; a tensor name the graph holds dropped, which
    OpenVINO would read renamed, W-NAME-DUP), its Parameters' readers read what the If's inputs read, the If's
    outputs are what its Results read (their tensor names with them; two outputs of one tensor of the body each a
    tensor of its own, ``own_tensor``: one tensor named twice lost the first's names, and in IR v10 is refused), and
    what fed the If alone goes too (the condition; what only the other body read)."""

    rewrites = {"If-8": "into the body its condition chooses, where the condition is known before it runs (a "
                        "constant, or a comparison of an integer tensor with itself)"}
    repairs = {"if_dynamic_rank_not_compiled": _ranks_differ}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in self.layers(graph):
            condition = _condition(graph, layer)
            assert condition is not None  # (``declines`` leaves the others)
            _inline(graph, layer, fresh_subgraphs(graph, layer)[0 if condition else 1])
            stats[f"If-8 (condition always {condition}) -> its {'then' if condition else 'else'} body"] += 1
        return PassResult(graph, bool(stats), stats)

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        condition = _condition(graph, layer)
        if condition is None:
            return ("its condition is not known before it runs (neither a constant nor a comparison of an integer "
                    "tensor with itself)")
        body = subgraphs(graph, layer)[0 if condition else 1]
        if {m.param for m in body.port_map.inputs} != set(range(len(body.parameters))):
            return "a Parameter of the body its condition chooses is fed by no input of the If"
        read = {body.graph.producer_key(r.id, r.input_ids()[0]) for r in body.results}
        if any(key is None or body.graph.layer(key[0]).is_a("Parameter") for key in read):
            return "the body its condition chooses passes an input through as an output"
        return None


def _condition(graph: Graph, layer: Layer) -> bool | None:
    """The If's condition where known before it runs (``IfBranch``), else None."""
    key = source(graph, layer, 0)
    made = graph.layer(key[0])
    if made.is_a("Const"):
        value = graph.const_array(made)
        return bool(value.reshape(-1)[0]) if value.size == 1 else None
    kind = made.type.lower()
    if kind not in _SELF_COMPARED or len(made.inputs) != 2:
        return None
    first, second = (source(graph, made, i) for i in (0, 1))
    element = declared_type(made.inputs[0]).element
    if first != second or element not in (*INTEGER_TYPES, "boolean"):
        return None
    return _SELF_COMPARED[kind]


def _inline(graph: Graph, layer: Layer, body: Subgraph) -> None:
    """Replace the If ``layer`` by the layers of ``body`` (read afresh: they move into ``graph``, new ids given)."""
    origin = origin_text(layer, "If-8")
    parameters = {p.id: i for i, p in enumerate(body.parameters)}
    results = {r.id for r in body.results}
    fed = {m.param: source(graph, layer, m.input) for m in body.port_map.inputs}
    ids: dict[str, str] = {}
    held = {name for outside in graph.layers() for port in outside.outputs for name in tensor_names(port.names)}
    for inner in list(body.graph.layers()):
        if inner.id in parameters or inner.id in results:
            continue
        for port in inner.outputs:  # (a body names its tensors apart from the graph: one named alike loses the name)
            if held.intersection(tensor_names(port.names)):
                port.names = names_attribute([name for name in tensor_names(port.names) if name not in held])
        ids[inner.id] = inner.id = graph.new_id()
        inner.rt_info, inner.file, inner.line = with_origin(inner.rt_info, origin), layer.file, layer.line
        graph.add_layer(inner)

    def outer(key: Output) -> Output:
        return fed[parameters[key[0]]] if key[0] in parameters else (ids[key[0]], key[1])

    for edge in body.graph.edges():
        if edge.to_layer not in results:
            graph.add_edge(Edge(*outer((edge.from_layer, edge.from_port)), ids[edge.to_layer], edge.to_port))
    fed_it = [graph.layer(source(graph, layer, i)[0]) for i in range(len(layer.inputs))]
    builder = GraphBuilder(graph)
    named: set[Output] = set()
    for m in body.port_map.outputs:
        result = body.results[m.result]
        made = outer(body.graph.producer_key(result.id, result.input_ids()[0]))  # type: ignore[arg-type]
        old = layer.outputs[m.output]
        if made in named and (convert := own_tensor(builder, made, tensor_names(old.names),
                                                    f"{layer.name}/output_{old.id}", origin)) is not None:
            made = (convert.id, convert.outputs[0].id)  # (two outputs of one tensor of the body: each its names)
        new = graph.layer(made[0]).output(made[1])
        new.names, new.rt_info = old.names, old.rt_info
        named.add(made)
        graph.redirect_consumers((layer.id, old.id), made)
    graph.remove_layer(layer.id)
    drop_unused(graph, fed_it)  # (the condition, and what only the other body read)
