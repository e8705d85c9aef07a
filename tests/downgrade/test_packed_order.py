"""``migrate --target`` on u4, i4 and u2 weights: releases before 2023.2 read the first u4 or i4 value of a byte from
its high nibble, where today's OpenVINO writes it in the low one (measured: 2023.0 and 2023.1 high first, 2023.2 and
2024.0 low first), and 2025.0 to 2025.2 read the four u2 values of a byte in reverse order; for them those Consts are
repacked, and the migrated file computes there what the original does on the current OpenVINO."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

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

    assert [release(r).reads_reversed_in_byte("u4") for r in ("2021.4", "2023.0", "2023.1", "2023.2", "2024.0")] == [
        True, True, True, False, False]
    model = tmp_path / "packed.xml"
    packed_model(model, np.random.default_rng(4), ("i4", "u1", "u4"))
    graph = ir_tools.read_valid(model)
    want = OpenVinoRunner(graph, ModelFiles(model, model.with_suffix(".bin"))).run({})
    out = tmp_path / "packed_2023.xml"
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "rewrote 1 x u4 Const repacked, the values of each byte in reverse order" in printed
    assert "rewrote 1 x i4 Const repacked, the values of each byte in reverse order" in printed
    migrated = ir_tools.read_valid(out)
    got = ChildOpenVinoRunner(side_pythons()["2023.0"], migrated, ModelFiles(out, out.with_suffix(".bin"))).run({})
    for name in ("u4", "i4", "u1"):
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    assert main(["migrate", str(model), "--target", "2024.0", "--dry-run"]) == 0
    assert "nothing to migrate" in capsys.readouterr().out
    # check --target: the original's u4 and i4 Consts for 2023.0; the migrated file's (repacked, its rt_info says
    # so) for 2024.0, which reads them as written; migrated for 2024.0, they are packed back as the original's
    def repacked_named(path: Path, target: str) -> list[str]:
        return sorted(d.loc.layer_name for d in ir_tools.check(path, openvino=False, target=target)
                      if d.code == "E-TARGET" and "Const" in d.message)

    assert len(repacked_named(model, "2023.0")) == 2 and repacked_named(model, "2024.0") == []
    assert repacked_named(out, "2023.0") == [] and len(repacked_named(out, "2024.0")) == 2
    back = tmp_path / "packed_back.xml"
    assert main(["migrate", str(out), "--target", "2024.0", "-o", str(back)]) == 0
    assert "rewrote 1 x u4 Const repacked" in capsys.readouterr().out
    assert back.with_suffix(".bin").read_bytes() == model.with_suffix(".bin").read_bytes()
    assert repacked_named(back, "2024.0") == [] and 'value="the values of each byte' not in back.read_text()


def test_element_types_2023_0_cannot_read_are_named_by_check_target(tmp_path: Path) -> None:
    """ops/releases.ELEMENT_TYPES_FROM against OpenVINO 2023.0 itself: each packed type, one Const through a Convert
    to f32 in a model of its own, loads there exactly when ``check --target 2023.0`` does not say it cannot read it
    (E-TARGET); u4 and i4, which it reads in the other order within a byte, are named for that."""
    from ir_tools.base.errors import IrToolsError
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner
    from tests.test_packed_types import TYPES

    named, loads, reversed_ = set(), set(), set()
    for element in TYPES:
        model = tmp_path / f"{element}.xml"
        packed_model(model, np.random.default_rng(5), (element,))
        found = [d.message for d in ir_tools.check(model, openvino=False, target="2023.0") if d.code == "E-TARGET"]
        if any("cannot read element type" in m for m in found):
            named.add(element)
        if any("packed in a byte in the reverse order of this file's" in m for m in found):
            reversed_.add(element)  # (it loads, with other weights: migrate repacks them)
        runner = ChildOpenVinoRunner(side_pythons()["2023.0"], ir_tools.read_valid(model),
                                     ModelFiles(model, model.with_suffix(".bin")))
        try:
            runner.run({})
            loads.add(element)
        except IrToolsError as exc:
            assert "Incorrect type" in exc.message, exc.message
    assert named == set(TYPES) - loads and loads == {"u1", "u4", "i4", "bf16"} and reversed_ == {"u4", "i4"}


@pytest.mark.skipif("2025.0" not in side_pythons(), reason="no OpenVINO 2025.0: set IR_TOOLS_RELEASE_PYTHONS")
def test_u2_consts_repacked_for_2025_0_to_2025_2(tmp_path: Path, capsys) -> None:
    """u2 (and, left as they are, u3 and u6) Consts of 4099 seeded elements: the original read on 2025.0 gives other
    values than on the current OpenVINO; migrated for 2025.0 the u2 Const is repacked and 2025.0 computes the
    current values bit for bit; for 2025.3 nothing changes."""
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner

    assert [release(r).reads_reversed_in_byte("u2") for r in ("2025.0", "2025.2", "2025.3", "opset16")] == [
        True, True, False, False]
    model = tmp_path / "packed.xml"
    packed_model(model, np.random.default_rng(6), ("u2", "u3", "u6"))
    graph = ir_tools.read_valid(model)
    files = ModelFiles(model, model.with_suffix(".bin"))
    want = OpenVinoRunner(graph, files).run({})
    python = side_pythons()["2025.0"]
    assert not np.array_equal(ChildOpenVinoRunner(python, graph, files).run({})["u2"], want["u2"])
    out = tmp_path / "packed_2025.xml"
    assert main(["migrate", str(model), "--target", "2025.0", "-o", str(out)]) == 0
    assert "rewrote 1 x u2 Const repacked, the values of each byte in reverse order" in capsys.readouterr().out
    got = ChildOpenVinoRunner(python, ir_tools.read_valid(out), ModelFiles(out, out.with_suffix(".bin"))).run({})
    for name in ("u2", "u3", "u6"):
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    assert main(["migrate", str(model), "--target", "2025.3", "--dry-run"]) == 0
    assert "nothing to migrate" in capsys.readouterr().out
