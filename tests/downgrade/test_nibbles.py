"""``migrate --target`` on u4 and i4 weights: releases before 2023.2 read the first value of a byte from its high
nibble, where today's OpenVINO writes it in the low one (measured: 2023.0 and 2023.1 high first, 2023.2 and 2024.0 low
first); for them every u4 and i4 Const is repacked, and the migrated file computes on 2023.0 what the original does
on the current OpenVINO."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import ir_tools
from ir_tools.cli import main
from ir_tools.ops.releases import release
from tests.downgrade.runs import NEEDS_2023
from tests.test_packed_types import packed_model
from tests.test_target import side_pythons

pytestmark = NEEDS_2023


def test_int4_consts_repacked_for_releases_before_2023_2(tmp_path: Path, capsys) -> None:
    """u4, i4 and (left as it is) u1 Consts as tests/test_packed_types makes them (4099 seeded elements each, through
    a Convert to f32): migrated for 2023.0 the u4 and i4 Consts are repacked and 2023.0 computes the current
    OpenVINO's values on the original bit for bit; for 2024.0 nothing changes."""
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    assert [release(r).reads_high_nibble_first for r in ("2021.4", "2023.0", "2023.1", "2023.2", "2024.0")] == [
        True, True, True, False, False]
    model = tmp_path / "packed.xml"
    packed_model(model, np.random.default_rng(4), ("i4", "u1", "u4"))
    graph = ir_tools.read_valid(model)
    want = OpenVinoRunner(graph, ModelFiles(model, model.with_suffix(".bin"))).run({})
    out = tmp_path / "packed_2023.xml"
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "rewrote 1 x u4 Const repacked high nibble first" in printed
    assert "rewrote 1 x i4 Const repacked high nibble first" in printed
    migrated = ir_tools.read_valid(out)
    got = ChildOpenVinoRunner(side_pythons()["2023.0"], migrated, ModelFiles(out, out.with_suffix(".bin"))).run({})
    for name in ("u4", "i4", "u1"):
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    assert main(["migrate", str(model), "--target", "2024.0", "--dry-run"]) == 0
    assert "nothing to migrate" in capsys.readouterr().out


def test_element_types_2023_0_cannot_read_are_named_by_check_target(tmp_path: Path) -> None:
    """ops/releases.ELEMENT_TYPES_FROM against OpenVINO 2023.0 itself: each packed type, one Const through a Convert
    to f32 in a model of its own, loads there exactly when ``check --target 2023.0`` does not name it (E-TARGET)."""
    from ir_tools.base.errors import IrToolsError
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner
    from tests.test_packed_types import TYPES

    named, loads = set(), set()
    for element in TYPES:
        model = tmp_path / f"{element}.xml"
        packed_model(model, np.random.default_rng(5), (element,))
        if any(d.code == "E-TARGET" for d in ir_tools.check(model, openvino=False, target="2023.0")):
            named.add(element)
        runner = ChildOpenVinoRunner(side_pythons()["2023.0"], ir_tools.read_valid(model),
                                     ModelFiles(model, model.with_suffix(".bin")))
        try:
            runner.run({})
            loads.add(element)
        except IrToolsError as exc:
            assert "Incorrect type" in exc.message, exc.message
    assert named == set(TYPES) - loads and loads == {"u1", "u4", "i4", "bf16"}
