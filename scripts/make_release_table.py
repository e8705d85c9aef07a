"""Write ir_tools/ops/openvino_releases.json: which OpenVINO release creates which op version (and the IR versions
and attribute values it reads), from what each release answered to scripts/probe_release.py.

Measured: every minor release with wheels for Python 3.11 (2023.0 on), each probed by the Python of its own
virtual environment (``pip install openvino==X "numpy<2"``). Older releases are documented only: their newest
opset from OpenVINO's "Available Operation Sets" page (docs.openvino.ai, 2021.4: opset7, 2022.1: opset8, 2022.2:
opset9, 2022.3: opset10), the contents of each opset from the oldest measured release, IR v11 from 2022.1 on
(its release notes: API 2.0 and IR v11). Const, the IR's spelling of Constant (opset1), which NodeFactory will not
build bare, is in every opset of every release: the IR reader takes it whatever the layer's opset.

Each release also lists the IR versions in which its reader takes two layers of the same ``name``
(``reads_duplicate_layer_names``; 2023.0 to 2024.0 refuse them, "Invalid IR! same name is not unique!", in v10
and v11 alike; 2024.1 on reads both). The
documented-only releases take the oldest measured release's answer, for the IR versions each reads.

Answers of each release's CPU plugin, from tiny IRs run: ``miscomputes`` lists the measured defects (keys of
ir_tools/ops/releases.py ``DEFECTS``; the documented-only releases have none, nor any of the op versions they hit):

- ``sdpa_boolean_mask_inverted``: ScaledDotProductAttention-13 with a boolean mask computed with True taken as
  masked out (2023.3, the first with SDPA-13, to 2025.2);
- ``sdpa_mask_broadcast_refused``: its reader refuses SDPA-13 with a float mask of 1 in the place of L or S ([1, S],
  [L, 1], [1, 1, 1, S]), which the specification broadcasts (2023.3 to 2024.2; batch dims of 1 are read);
- ``sdpa_mask_broadcast_dynamic_fails``: its CPU plugin fails at inference on such a mask where the query's and the
  key's lengths are declared dynamic, as a language model's are (its reader takes them: 2023.3);
- ``identity_not_compiled``: Identity-16 read, but not compiled ("Unsupported operation of type: Identity"; 2025.0,
  the first with opset16, to 2025.3);
- ``bitwise_u16_u32_wrong``: BitwiseNot-13 on u16 and u32 gives 0, BitwiseAnd/Or/Xor-13 on u32 are capped at
  2^31-1 (2023.2, the first with opset13, to 2025.3; u8, i8, i16 and i32 right; u64 and i64 come out wrong on every
  release, the current one too, and are no defect of a release against it);
- ``integer_convert_saturates``: Convert-1 between integer types computes other numbers than the newest release
  probed (the current one) on some pair of types, listed in the release's ``converts_otherwise`` ("u32->i64"; 2023.0
  to 2025.3 saturate where 2025.4 on wrap); ConvertPromoteTypes-14 differs only where a Convert of one of its inputs
  to the promoted type does;

and ``runs_dynamic_state`` whether it runs a model whose ReadValue / Assign variable has a dynamic shape (the
documented-only releases take 2023.0's answer, unmeasured: their wheels do not install on our Python).

    python scripts/make_release_table.py PROBES_DIR   # the probe_release.py answers, one X.Y.Z.json per release
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "ir_tools" / "ops" / "openvino_releases.json"
DOCUMENTED = {"2021.4": (7, [10]), "2022.1": (8, [10, 11]), "2022.2": (9, [10, 11]), "2022.3": (10, [10, 11])}
DOCS = "docs.openvino.ai, Available Operation Sets (newest opset per release); contents as measured in 2023.0"


def duplicate_names(answer: dict, ir_versions: list[int]) -> list[int]:
    """The IR versions (of ``ir_versions``) in which the probed release read two layers of the same name."""
    return [v for v in ir_versions if answer["duplicate_layer_names"][str(v)]]


#: The Bitwise ops and element types 2023.2 to 2025.3 compute wrongly (``bitwise_u16_u32_wrong``), where the current
#: release is right: BitwiseNot on u16 and u32 (0 for every element), BitwiseAnd/Or/Xor on u32 (capped at 2^31-1).
BITWISE_WRONG = {("BitwiseNot", "u16"), ("BitwiseNot", "u32"), ("BitwiseAnd", "u32"), ("BitwiseOr", "u32"),
                 ("BitwiseXor", "u32")}
#: Computed wrongly by every release probed, the current one too (in i32): no defect of a release against the current.
EVERY_RELEASE_WRONG = {"u64", "i64"}


def converts_otherwise(answer: dict, current: dict) -> list[str]:
    """The Convert-1 pairs of integer types ("u32->i64") on which the probed release computes other numbers than
    ``current``; SystemExit where its ConvertPromoteTypes-14 differs though no Convert of an input does (a defect no
    key describes)."""
    mine, theirs = answer["integer_convert"], current["integer_convert"]
    pairs = sorted(key for key, got in mine["convert"].items() if got != theirs["convert"][key])
    for key, got in (mine["promote"] or {}).items():
        inputs, promoted = key.split("->")
        if got != theirs["promote"][key] and not {f"{t}->{promoted}" for t in inputs.split("+")} & set(pairs):
            sys.exit(f"{answer['version']}: ConvertPromoteTypes-14 {key} differs, its Converts do not: a defect no key "
                     "describes")
    return pairs


def miscomputes(answer: dict) -> list[str]:
    """The measured defects of the probed release (keys of ir_tools/ops/releases.py ``DEFECTS``); SystemExit for an
    answer no key describes (a defect not met before: describe it, then add its key)."""
    found = ["sdpa_boolean_mask_inverted"] if answer["sdpa_boolean_mask"] is False else []
    shapes = answer["sdpa_float_mask_shapes"] or {}
    if set(shapes.values()) - {"right", "refused"}:
        sys.exit(f"{answer['version']}: SDPA-13 float masks {shapes}: a defect no key describes")
    if "refused" in shapes.values():
        found.append("sdpa_mask_broadcast_refused")
    dynamic = answer.get("sdpa_float_mask_dynamic") or {}
    if set(dynamic.values()) - {"right", "fails"}:
        sys.exit(f"{answer['version']}: SDPA-13 float masks on dynamic lengths {dynamic}: a defect no key describes")
    if "fails" in dynamic.values():
        found.append("sdpa_mask_broadcast_dynamic_fails")
    if answer["identity"] is False:
        found.append("identity_not_compiled")
    wrong = {(op, element) for op, types in (answer["bitwise"] or {}).items() for element, right in types.items()
             if not right and element not in EVERY_RELEASE_WRONG}
    if wrong == BITWISE_WRONG:
        found.append("bitwise_u16_u32_wrong")
    elif wrong:
        sys.exit(f"{answer['version']}: Bitwise ops wrong on {sorted(wrong)}: a defect no key describes")
    if answer.get("i4_zero_point") is False:  # (a probe made before the question was asked: not measured)
        found.append("i4_zero_point_wrong")
    if answer.get("group_norm_2d") is False:
        found.append("group_norm_2d_not_compiled")
    if answer.get("converts_otherwise"):
        found.append("integer_convert_saturates")
    return found


def main(probes: Path) -> None:
    measured = {}
    for path in sorted(probes.glob("*.json"), key=lambda p: tuple(map(int, p.stem.split(".")))):
        answer = json.loads(path.read_text())
        name = ".".join(path.stem.split(".")[:2])
        measured[name] = answer  # the last patch release probed stands for its minor release
    tables: dict[str, list[str]] = {}  # one list per distinct opset contents, shared by the releases that have it

    def table_id(opset: str, types: dict[str, str]) -> str:
        entry = sorted(f"{t}:{v}" for t, v in {**types, "Const": "opset1"}.items())
        for key, known in tables.items():
            if key.startswith(f"{opset}/") and known == entry:
                return key
        key = f"{opset}/{sum(k.startswith(f'{opset}/') for k in tables)}"
        tables[key] = entry
        return key

    current = list(measured.values())[-1]
    for answer in measured.values():
        answer["converts_otherwise"] = converts_otherwise(answer, current)
    oldest = next(iter(measured.values()))
    releases = {}
    for name, (newest, ir_versions) in DOCUMENTED.items():
        releases[name] = {"source": DOCS, "ir_versions": ir_versions, "values": [],
                          "reads_duplicate_layer_names": duplicate_names(oldest, ir_versions),
                          "miscomputes": [], "converts_otherwise": [], "runs_dynamic_state": oldest["dynamic_state"],
                          "opsets": {f"opset{n}": table_id(f"opset{n}", oldest["opsets"][f"opset{n}"])
                                     for n in range(1, newest + 1)}}
    for name, answer in measured.items():
        releases[name] = {"source": f"measured: openvino {answer['version']}", "ir_versions": answer["ir_versions"],
                          "values": [[v["type"], v["opset"], v["attribute"], v["value"]] for v in answer["values"]],
                          "reads_duplicate_layer_names": duplicate_names(answer, answer["ir_versions"]),
                          "miscomputes": miscomputes(answer), "converts_otherwise": answer["converts_otherwise"],
                          "runs_dynamic_state": answer["dynamic_state"],
                          "opsets": {opset: table_id(opset, types) for opset, types in answer["opsets"].items()
                                     if types}}
    document = {"about": __doc__.split("\n\n")[0], "releases": releases, "opset_tables": tables}
    OUT.write_text(json.dumps(document, indent=0, sort_keys=False) + "\n")
    print(f"wrote {OUT}: {len(releases)} releases, {len(tables)} distinct opset tables")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
