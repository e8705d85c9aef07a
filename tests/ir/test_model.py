"""The Graph mutation API and the graph walker, directly (no OpenVINO)."""

from __future__ import annotations

import pytest

from ir_tools.base.errors import ExecutionError, OpValidationError
from ir_tools.ir.model import Edge, Graph, Layer, Port
from ir_tools.ir.walker import Walker


def layer(lid: str, op_type: str = "ReLU", n_in: int = 1, n_out: int = 1) -> Layer:
    return Layer(lid, f"l{lid}", op_type, "opset1", inputs=[Port(i) for i in range(n_in)],
                 outputs=[Port(n_in + j) for j in range(n_out)])


def chain(n: int) -> Graph:
    """Parameter 0 -> ReLU 1 -> ... -> ReLU n-1 -> Result n."""
    g = Graph()
    g.add_layer(layer("0", "Parameter", 0, 1))
    for i in range(1, n):
        g.add_layer(layer(str(i)))
        g.add_edge(Edge(str(i - 1), 0 if i == 1 else 1, str(i), 0))
    g.add_layer(layer(str(n), "Result", 1, 0))
    g.add_edge(Edge(str(n - 1), 1, str(n), 0))
    return g


def test_duplicate_ids_are_refused() -> None:
    g = chain(2)
    with pytest.raises(ValueError, match="duplicate layer id 1"):
        g.add_layer(layer("1"))


def test_new_ids_stay_above_every_numeric_id_ever_added() -> None:
    g = Graph()
    assert g.new_id() == "0"
    g.add_layer(layer("7"))
    g.add_layer(layer("x3"))  # not numeric: ignored
    assert g.new_id() == "8"
    g.remove_layer("7")
    assert g.new_id() == "8"  # never reused: an id a rewrite just removed is not handed out again
    g.add_layer(layer(g.new_id()))
    assert g.new_id() == "9"


def test_removing_a_layer_removes_its_edges() -> None:
    g = chain(3)
    g.remove_layer("1")
    assert not g.has_layer("1") and len(g) == 3
    assert g.producers("2", 0) == [] and g.consumers("0", 0) == []
    assert [(e.from_layer, e.to_layer) for e in g.edges()] == [("2", "3")]


def test_producers_consumers_and_redirect() -> None:
    g = chain(3)
    g.add_layer(layer("9"))
    g.add_edge(Edge("0", 0, "9", 0))
    assert [e.to_layer for e in g.consumers("0", 0)] == ["1", "9"]
    assert g.producer("2", 0)[0].id == "1"
    g.redirect_consumers(("0", 0), ("2", 1))
    assert g.consumers("0", 0) == []
    assert sorted(e.to_layer for e in g.consumers("2", 1)) == ["1", "3", "9"]
    assert g.find_cycle() is not None  # 1 -> 2 -> 1 now: the API does what it is told; check reports it


def test_by_type_follows_the_one_spelling_rule() -> None:
    g = Graph()
    for lid, op_type in enumerate(("Const", "const", "avgpool", "AvgPool", "Unknown")):
        g.add_layer(Layer(str(lid), f"l{lid}", op_type, "opset1"))
    assert [lay.type for lay in g.by_type("Const")] == ["Const"]  # "const" is no type OpenVINO knows
    assert [lay.type for lay in g.by_type("AvgPool")] == ["avgpool", "AvgPool"]
    assert g.layer("2").is_a("AvgPool") and not g.layer("1").is_a("Const")


def test_topological_order_keeps_file_order_among_ties() -> None:
    g = Graph()
    for lid in ("a", "b", "c"):
        g.add_layer(layer(lid, n_in=1))
    g.add_edge(Edge("c", 1, "a", 0))  # c must come before a
    assert [lay.id for lay in g.topological_order()] == ["b", "c", "a"]


class Depth(Walker[int]):
    """Each value is the number of layers on the longest path to it."""

    def missing(self, layer: Layer, port: Port) -> int:
        return 0

    def run_node(self, layer: Layer, args: list[int]) -> list[int]:
        if layer.id == "boom":
            raise OpValidationError("no")
        return [max(args, default=0) + 1 for _ in layer.outputs]


class Replay(Walker[int]):
    """Keeps the seeded values (as the per-layer comparison keeps OpenVINO's) and records what each layer read."""

    def run_node(self, layer: Layer, args: list[int]) -> list[int]:
        self.read = {**getattr(self, "read", {}), layer.id: args}
        return [self.env.get((layer.id, port.id), -1) for port in layer.outputs]


def test_walker_visits_in_order_and_can_be_seeded() -> None:
    g = chain(4)
    assert Depth(g).run()[("3", 1)] == 4
    replay = Replay(g)
    env = replay.run({("0", 0): 10, ("1", 1): 11, ("2", 1): 12})
    assert replay.read == {"0": [], "1": [10], "2": [11], "3": [12], "4": [-1]}  # layer 3 had no seed
    assert env[("2", 1)] == 12


def test_walker_frees_values_after_their_last_consumer() -> None:
    g = chain(4)
    assert Depth(g, free=True).run() == {}  # the Result consumed the last one; nothing else is left


def test_walker_errors_name_the_layer_and_keep_the_cause() -> None:
    g = chain(2)
    g.add_layer(layer("boom"))
    g.add_edge(Edge("1", 1, "boom", 0))
    with pytest.raises(ExecutionError) as info:
        Depth(g).run()
    assert info.value.loc.layer_id == "boom" and info.value.code == "E-OP"
    assert isinstance(info.value.__cause__, OpValidationError)


def test_an_unknown_layer_id_is_an_ir_tools_error_still_caught_as_before() -> None:
    """Graph.layer('999') raised a bare KeyError and remove_layer('999') a ValueError, neither an IrToolsError (found
    by a QA run of the library): E-USAGE now, naming the graph and the id (an int, where the id is its string, said so),
    and still the KeyError and ValueError a caller caught."""
    from ir_tools import IrToolsError

    g = chain(2)
    for look_up in (lambda: g.layer("999"), lambda: g.remove_layer("999"), lambda: g.layer(1)):
        with pytest.raises(IrToolsError) as caught:
            look_up()
        assert caught.value.code == "E-USAGE" and isinstance(caught.value, KeyError | ValueError)
    with pytest.raises(KeyError, match="ids are strings: '1'"):
        g.layer(1)
    with pytest.raises(ValueError, match="has no layer of id '999'"):
        g.remove_layer("999")


@pytest.mark.parametrize("n_ports", [0, 1, 2, 3])
def test_port_records_are_the_same_before_and_after_port_objects(n_ports: int) -> None:
    fields = tuple(f for i in range(n_ports) for f in (i, "FP32", (i + 1,), f"t{i}", None, (), 10 + i))
    read = Layer.from_records("1", "a", "Concat", "opset1", {}, fields, fields, (), None, (), None, 5)
    made = layer("1", "Concat", n_ports, 0)
    made.inputs = made.outputs = [Port(i, "FP32", (i + 1,), f"t{i}", line=10 + i) for i in range(n_ports)]
    assert read.input_records() == read.output_records() == made.input_records() == made.output_records()
    assert [r[0] for r in read.input_records()] == list(range(n_ports))
    assert read.declared_outputs() == made.declared_outputs()


@pytest.mark.parametrize("n_edges", [2, 3, 4, 5, 6])
def test_input_keys_are_each_port_s_producer_key(n_edges: int) -> None:
    # port 0 fed twice, port 1 not at all, the others once each
    g = Graph()
    for i in range(n_edges):
        g.add_layer(layer(f"s{i}", "Parameter", 0, 1))
    g.add_layer(layer("c", "Concat", n_edges, 1))
    fed = [0, 0, *range(2, n_edges)]
    for i, port in enumerate(fed):
        g.add_edge(Edge(f"s{i}", 0, "c", port))
    ids = g.layer("c").input_ids()
    assert g.input_keys("c", ids) == [g.producer_key("c", pid) for pid in ids]
    assert g.input_keys("c", ids)[:2] == [None, None]
    assert g.input_keys("c", ids)[2:] == [(f"s{i}", 0) for i in range(2, n_edges)]
