"""Regenerate ir_tools/ops/openvino_opsets.json: the op types each opsetN of the installed OpenVINO holds.

OpenVINO has no call that lists an opset, so this asks it about every candidate name: each
CamelCase word (and each CamelCase tail of a word: the linker stores "AvgPool" inside
"AdaptiveAvgPool") found in libopenvino and its IR frontend is offered to
``NodeFactory("opsetN").create``, which succeeds exactly for the types of opsetN (the same tables
the IR reader uses). Constant, which NodeFactory refuses to build bare, is written "Const" as IR
files spell it and is placed by asking the IR reader. Takes about 30 s; run it when the pinned
openvino changes, and commit the JSON (tests/ops/test_openvino_opsets.py checks it).

    python scripts/make_opset_table.py
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import openvino as ov
from openvino.utils.node_factory import NodeFactory

OUT = Path(__file__).resolve().parents[1] / "ir_tools" / "ops" / "openvino_opsets.json"
MAX_PROBED = 20  # opsets past the last one OpenVINO has come out empty, which says where the list ends

CONST_IR = """<?xml version="1.0"?>
<net name="probe" version="11"><layers>
<layer id="0" name="c" type="Const" version="{version}"><data element_type="f32" shape="1" offset="0" size="4"/>
<output><port id="0" precision="FP32"><dim>1</dim></port></output></layer>
<layer id="1" name="r" type="Result" version="opset1"><input><port id="0" precision="FP32"><dim>1</dim></port></input>
</layer></layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>"""


def candidates() -> set[str]:
    libs = Path(ov.__file__).parent / "libs"
    words: set[str] = set()
    for lib in [*libs.glob("libopenvino.so*"), *libs.glob("libopenvino_ir_frontend.so*")]:
        words |= {m.decode() for m in re.findall(rb"[A-Za-z0-9_]{2,60}", lib.read_bytes())}
    return {w[i:] for w in words for i in range(len(w) - 1) if w[i].isupper()}


def reader_has_const(opset: str) -> bool:
    try:
        ov.Core().read_model(CONST_IR.format(version=opset), ov.Tensor(np.zeros(4, np.uint8)))
    except RuntimeError:
        return False
    return True


def has_type(factory: NodeFactory, name: str) -> bool:
    try:
        factory.create(name)
    except Exception:  # NodeFactory raises RuntimeError, TypeError... for a name its opset lacks
        return False
    return True


def measure() -> dict[str, list[str]]:
    names = sorted(candidates())
    table = {}
    for n in range(1, MAX_PROBED + 1):
        opset = f"opset{n}"
        try:
            factory = NodeFactory(opset)
        except Exception:
            break
        types = {name for name in names if name != "Constant" and has_type(factory, name)}
        if reader_has_const(opset):
            types.add("Const")
        if not types:
            break
        table[opset] = sorted(types)
    return table


def main() -> None:
    opsets = measure()
    lines = ",\n".join(f"  {json.dumps(name)}: {json.dumps(types)}" for name, types in opsets.items())
    OUT.write_text(f'{{"openvino": {json.dumps(ov.get_version())}, "opsets": {{\n{lines}\n}}}}\n')
    print(f"wrote {OUT}: " + ", ".join(f"{k} {len(v)}" for k, v in opsets.items()))


if __name__ == "__main__":
    main()
