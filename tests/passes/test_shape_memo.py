"""Shape propagation remembers a layer's answer by its op, attributes, input types and declared outputs: a layer
like one seen before must still report its own mismatches, at its own line. The types it hands out are interned, so
that a walk continued from another tells a changed type by identity."""

from __future__ import annotations

from pathlib import Path

from ir_tools.ir.reader import read_ir
from ir_tools.ops.releases import release
from ir_tools.passes.shapes import propagate
from ir_tools.passes.target import migrate_graph
from ir_tools.passes.validate import last_passed, require_valid
from tests.target_zoo import FIXTURES_DIR


def _port(pid: int, dims: tuple[int, ...]) -> str:
    return f'<port id="{pid}" precision="FP32">' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>\n"


def test_a_repeated_layer_reports_its_own_mismatch(tmp_path: Path) -> None:
    declared = [(1, 4), (1, 4), (1, 5), (1, 4), (1, 5), (1, 4)]  # what each Relu declares; (1, 4) is right
    layers = ['<layer id="0" name="x" type="Parameter" version="opset1">'
              '<data shape="1,4" element_type="f32"/><output>' + _port(0, (1, 4)) + "</output></layer>\n"]
    for i, dims in enumerate(declared, 1):
        layers.append(f'<layer id="{i}" name="r{i}" type="ReLU" version="opset1">\n<input>' + _port(0, (1, 4))
                      + "</input>\n<output>" + _port(1, dims) + "</output></layer>\n")
    edges = "".join(f'<edge from-layer="{i - 1}" from-port="{0 if i == 1 else 1}" to-layer="{i}" to-port="0"/>\n'
                    for i in range(1, len(declared) + 1))
    xml = tmp_path / "relus.xml"
    xml.write_text(f'<?xml version="1.0"?>\n<net name="m" version="11">\n<layers>\n{"".join(layers)}</layers>\n'
                   f"<edges>\n{edges}</edges>\n</net>\n")
    graph = read_ir(xml)
    result = propagate(graph)
    wrong = [graph.layer(str(i)).line + 3 for i, dims in enumerate(declared, 1) if dims != (1, 4)]
    assert [(d.code, d.loc.line) for d in result.diagnostics] == [("E-SHAPE", line) for line in wrong]
    assert len(result.inferred) == len(declared) + 1 and not result.not_inferred
    assert {result.types[(str(i), 1)].shape for i in range(1, len(declared) + 1)} == {result.types[("0", 0)].shape}


def test_the_types_of_a_propagation_and_of_one_continued_from_it_are_interned_alike() -> None:
    # ``ShapeWalker.spreads`` tells a type that changed by identity: equal types must be one object
    graph = read_ir(FIXTURES_DIR / "tiny_gpt2_int8.xml")
    require_valid(graph)
    before = dict(last_passed(graph).types)
    assert migrate_graph(graph, release("2023.0"), checked=True).modified
    gate = last_passed(graph)
    assert gate is not None and gate.walked
    types = [*before.values(), *gate.types.values()]
    assert len({id(t) for t in types}) == len(set(types))
