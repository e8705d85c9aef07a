"""``migrate --target`` on seven small IRs converted today (tests/data/target, made by ``scripts/build_target_zoo.py
--fixtures``): a CNN with MaxPool-14 ceil_torch, a vision transformer with ScaledDotProductAttention-13, a DeBERTa-v2
with an If-8 of a dynamic rank (which 2023.0 to 2025.4 do not compile as it is), two GPT-2s (one compressed by NNCF
to int8), and two Llamas exported stateful for text generation by optimum-intel (one f16, one compressed by NNCF to
int4).

Each, migrated with ``--target 2023.0``, ``2024.0`` and ``2025.0``: loads on that release (its OpenVINO in a side
virtual environment, ``IR_TOOLS_RELEASE_PYTHONS``), holds only op versions it creates, keeps its input and output
names, and its outputs equal the current OpenVINO's on the original within 1e-4 of max|output| at each run shape
of the fixtures' manifest (the Llama's boolean-mask attention, which 2024.0 and 2025.0 compute inverted, decomposed).
But the Llamas for 2023.0: their state has a dynamic shape, which 2023.0 cannot run (measured), so ``migrate --target
2023.0`` refuses them (exit 2, E-TARGET at each ReadValue, nothing written), and ``--stateless`` makes their state
inputs and outputs, which 2023.0 runs (``measure`` does so). And for every target of the table, ``migrate --target``
and ``check --target`` agree on each fixture (what one writes the other finds clean; what one refuses the other finds
errors in, at the same layers). No torch needed.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.target_zoo import FIXTURES_DIR, entries, measure, migrate, side_pythons

pytestmark = pytest.mark.openvino

FIXTURES = {e["model"]: e for e in entries(FIXTURES_DIR)}
RELEASES = ("2023.0", "2024.0", "2025.0")
#: (model, release): migrate --target refuses it, the model's ReadValue layers at fault (not with --stateless).
REFUSED = {("tiny_llama_stateful", "2023.0"), ("tiny_llama_int4_stateful", "2023.0")}


def test_the_fixtures_are_small_and_hold_what_they_are_for() -> None:
    assert set(FIXTURES) == {"tiny_pool_net", "tiny_vit", "tiny_deberta_v2", "tiny_llama_stateful", "tiny_gpt2",
                             "tiny_gpt2_int8", "tiny_llama_int4_stateful"}
    for entry in FIXTURES.values():
        path = Path(entry["path"])
        assert path.stat().st_size + path.with_suffix(".bin").stat().st_size <= 1 << 20, entry["file"]
    assert "ceil_torch" in Path(FIXTURES["tiny_pool_net"]["path"]).read_text()
    assert FIXTURES["tiny_pool_net"]["ops"]["MaxPool-opset14"] >= 2
    assert FIXTURES["tiny_vit"]["ops"]["ScaledDotProductAttention-opset13"] >= 1
    deberta = FIXTURES["tiny_deberta_v2"]["ops"]
    assert deberta["If-opset8"] >= 1 and deberta["BitwiseNot-opset13"] >= 1
    llama = FIXTURES["tiny_llama_stateful"]
    assert llama["stateful"] and llama["ops"]["ScaledDotProductAttention-opset13"] >= 1
    assert llama["ops"]["ReadValue-opset6"] == llama["ops"]["Assign-opset6"] >= 2
    int4 = FIXTURES["tiny_llama_int4_stateful"]
    assert int4["stateful"] and int4["weights"] == "int4_sym" and 'element_type="i4"' in Path(int4["path"]).read_text()
    assert FIXTURES["tiny_gpt2"]["ops"]["MatMul-opset1"] >= 8 and not FIXTURES["tiny_gpt2"]["stateful"]
    int8 = FIXTURES["tiny_gpt2_int8"]
    assert int8["weights"] == "int8" and 'element_type="u8"' in Path(int8["path"]).read_text()


@pytest.mark.parametrize(("model", "release"),
                         [(m, r) for m in sorted(FIXTURES) for r in RELEASES])
def test_migrated_fixture_runs_on_the_release_equal_to_the_current_openvino(model: str, release: str,
                                                                          tmp_path: Path) -> None:
    python = side_pythons().get(release)
    if python is None:
        pytest.skip(f"no OpenVINO {release}: set IR_TOOLS_RELEASE_PYTHONS={release}=/venv/bin/python")
    found = measure(FIXTURES[model], release, python, tmp_path)
    assert found.ok, f"{model} --target {release}: " + " | ".join(found.reasons)


@pytest.mark.parametrize(("model", "release"), sorted(REFUSED))
def test_migrate_refuses_a_fixture_the_release_cannot_run(model: str, release: str, tmp_path: Path) -> None:
    path = Path(FIXTURES[model]["path"])
    code, err = migrate(path, tmp_path / path.name, release)
    assert code == 2 and not (tmp_path / path.name).exists(), err
    reads = FIXTURES[model]["ops"]["ReadValue-opset6"]
    found = re.findall(rf"error\[E-TARGET\]: layer '[^']+' .*OpenVINO {release} cannot run a model whose state has a "
                       r"dynamic shape .*the oldest release that runs it is", err)
    assert len(found) == reads, err


#: A layer an E-TARGET names (``check --target -v`` names each, not "and N more like it").
_NAMED = re.compile(r"error\[E-TARGET\]: layer '([^']+)'")
#: What a refusal says of a layer a rewrite made: the layer it was made from, which ``check --target`` names.
_MADE_FROM = re.compile(r"error\[E-TARGET\]: layer '[^']+' .*rewrote it this far from \S+ \(\w+\) '([^']+)'$")


def test_migrate_and_check_target_agree_for_every_target_of_the_table(tmp_path: Path, capsys) -> None:
    """Each fixture, for every target of the table (each release, opset1 to opset17): ``migrate --target`` writes a
    file that ``check --target`` finds clean; or writes nothing, saying the model loads as it is, which ``check
    --target`` finds clean too; or refuses (exit 2, nothing written) a model ``check --target`` finds errors in (exit
    1), naming only layers it names, or layers a rewrite made of one it names. Never another exit."""
    from ir_tools.cli import main
    from ir_tools.ops.releases import releases

    def run(*args: str) -> tuple[int, str]:
        code = main([*args])
        out, err = capsys.readouterr()
        return code, out + err

    outcomes: Counter[str] = Counter()
    for entry in FIXTURES.values():
        path = Path(entry["path"])
        for target in [*releases(), *(f"opset{n}" for n in range(1, 18))]:
            out = tmp_path / f"{path.stem}-{target}.xml"
            code, said = run("migrate", str(path), "--target", target, "-o", str(out))
            checked, found = run("check", str(path), "--target", target, "--no-openvino", "-v")
            where = f"{path.name} --target {target}"
            if code == 0 and out.exists():
                outcomes["written"] += 1
                assert run("check", str(out), "--target", target, "--no-openvino")[0] == 0, where
            elif code == 0:
                outcomes["loads as it is"] += 1
                assert "nothing to migrate" in said and checked == 0, (where, said, found)
            else:
                outcomes["refused"] += 1
                assert code == 2 and checked == 1 and not out.exists(), (where, said, found)
                named = set(_NAMED.findall(found))
                for line in said.splitlines():
                    layer = _NAMED.search(line)
                    if layer and layer[1] not in named:
                        made = _MADE_FROM.search(line)
                        assert made and made[1] in named, (where, line)
    assert outcomes["written"] > 100 and outcomes["loads as it is"] > 100 and outcomes["refused"] > 40, outcomes
