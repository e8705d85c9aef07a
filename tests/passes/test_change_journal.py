"""The gate after passes that record their changes (``Pass.records_changes``) checks only what changed: these tests
hold it to the whole graph's check. Each migration of the committed fixtures (and of the target zoo, when built), to
each release, must record every layer its passes change (``Graph.changes``), and end with a propagation, continued
from the check before, equal to a walk of the whole graph, and ports that a walk of the whole graph would not
correct."""

from __future__ import annotations

from collections import Counter

import pytest

from ir_tools.ir.model import Graph, Layer
from ir_tools.ir.reader import read_ir
from ir_tools.ops.releases import release
from ir_tools.passes.base import Pass, PassError, PassManager, PassResult
from ir_tools.passes.shapes import fix_dims, propagate
from ir_tools.passes.target import migrate_graph
from ir_tools.passes.to_opset8 import ToOpset8
from ir_tools.passes.validate import check_graph, last_passed, require_valid
from tests.target_zoo import FIXTURES_DIR, TARGET_ZOO_DIR, entries, needs_stateless

TARGETS = ["2021.4", "2023.0", "2024.0", "2025.0"]
MODELS = [e["path"] for e in entries(FIXTURES_DIR) + entries(TARGET_ZOO_DIR)]


def _fingerprint(layer: Layer) -> tuple:
    return (layer.type, layer.version, tuple(layer.attrs.items()), layer.name, tuple(layer.input_records()),
            tuple(layer.output_records()), layer.data, layer.rt_info)


def _findings(diagnostics: list) -> Counter:
    """The findings of a propagation but those ``fix_dims`` resolves (a gate's propagation holds them from before)."""
    return Counter((d.code, d.loc.layer_id, d.message) for d in diagnostics if d.code not in ("E-SHAPE", "E-TYPE"))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("path", MODELS, ids=[p.name for p in MODELS])
def test_the_gate_after_a_migration_sees_what_a_whole_check_sees(path, target, monkeypatch):
    unrecorded: list[str] = []
    applied = Pass.applied

    def recorded(self: Pass, graph: Graph, checked: bool = False) -> PassResult:
        before = {layer.id: _fingerprint(layer) for layer in graph.layers()}
        mark = len(graph.changes)
        result = applied(self, graph, checked)
        after = {layer.id: _fingerprint(layer) for layer in graph.layers()}
        changed = {lid for lid in before.keys() | after.keys() if before.get(lid) != after.get(lid)}
        if self.records_changes:
            unrecorded.extend(f"{self.name}: {lid}" for lid in changed - set(graph.changes[mark:]))
        return result

    monkeypatch.setattr(Pass, "applied", recorded)
    graph = read_ir(path)
    require_valid(graph)
    entry = next(e for e in entries(path.parent) if e["path"] == path)
    result = migrate_graph(graph, release(target), checked=True, stateless=needs_stateless(entry, target))
    assert not unrecorded
    gate, whole = last_passed(graph), propagate(graph)
    assert gate is not None
    if result.modified:
        assert gate.walked is not None and len(gate.walked) < len(graph)
    assert gate.types == whole.types
    assert gate.inferred == whole.inferred
    assert [layer.id for layer in gate.not_inferred] == [layer.id for layer in whole.not_inferred]
    assert _findings(gate.diagnostics) == _findings(whole.diagnostics)
    assert fix_dims(graph, whole) == 0  # the ports the gate's fix_dims wrote are the whole walk's


class _Breaks(Pass):
    """Gives the first ReLU an op version no opset has, and says so (``records_changes``)."""

    records_changes = True

    def apply(self, graph: Graph) -> bool:
        layer = next(layer for layer in graph.layers() if layer.type == "ReLU")
        layer.version = "opset99"
        graph.touch(layer.id)
        return True


def test_a_gate_of_what_changed_fails_as_the_whole_check_and_reports_all_it_finds():
    graph = read_ir(FIXTURES_DIR / "tiny_pool_net_f16.xml")
    require_valid(graph)
    with pytest.raises(PassError) as raised:
        _Breaks().run(graph, checked=True)
    whole, _ = check_graph(graph)
    assert [d.code for d in raised.value.diagnostics] == ["E-PASS", *(d.code for d in whole)]
    assert "E-OPSET" in {d.code for d in whole}


class _BreaksUnrecorded(Pass):
    """Gives the first ReLU an op version no opset has, and does not say so: a user's pass, as most are."""

    def apply(self, graph: Graph) -> bool:
        next(layer for layer in graph.layers() if layer.type == "ReLU").version = "opset99"
        return True


def test_a_pass_that_does_not_record_its_changes_is_gated_on_the_whole_graph():
    graph = read_ir(FIXTURES_DIR / "tiny_pool_net_f16.xml")
    require_valid(graph)
    assert last_passed(graph) is not None
    with pytest.raises(PassError) as raised:
        PassManager([_BreaksUnrecorded(), ToOpset8()], check_once=True).run(graph, checked=True)
    assert "E-OPSET" in {d.code for d in raised.value.diagnostics}
    assert last_passed(graph) is None  # forgotten when the pass changed the graph, until a check passes again
