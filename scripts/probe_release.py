"""Print, as JSON, what the installed OpenVINO release creates: its version, the op types of each opsetN (with their
op versions), the IR
versions its reader takes, the attribute values of newer op versions it knows (``rounding_type="ceil_torch"``
came after opset14 itself: 2024.0 has MaxPool-14 but refuses that value), and whether its reader takes an IR (v10,
v11) in which two layers have the same ``name`` (2023.0 refuses one: "Invalid IR! same name is not unique!").

Runs with any OpenVINO release from 2023.0 on, with nothing but openvino (it is run by the Python of a
side virtual environment; ``scripts/make_release_table.py`` collects the answers). OpenVINO has no call listing an
opset, so every CamelCase word found in its libraries is offered to ``NodeFactory("opsetN").create``, which
succeeds exactly for the types of opsetN (Const, the IR's Constant, which NodeFactory will not build bare, is added
by scripts/make_release_table.py).

    /path/to/venv/bin/python scripts/probe_release.py > release.json
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

try:  # 2024.0 and later
    import openvino as ov
    from openvino.utils.node_factory import NodeFactory
except ImportError:  # 2023.x
    import openvino.runtime as ov
    from openvino.runtime.utils.node_factory import NodeFactory

MAX_PROBED = 30

LAYER = """<layer id="{id}" name="{name}" type="{type}" version="{version}">{data}
<input><port id="0" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></input>
<output>{outputs}</output></layer>"""
NET = """<?xml version="1.0"?>
<net name="probe" version="{ir}"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,1,4" element_type="f32"/>
<output><port id="0" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></output></layer>
{layer}
<layer id="2" name="r" type="Result" version="opset1"><input><port id="0" precision="FP32">{dims}</port></input>
</layer></layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges></net>"""
#: Parameter x -> ReLU "same" -> Exp "same" -> Result: two layers share a name.
DUPLICATE_NAMES = """<?xml version="1.0"?>
<net name="probe" version="{ir}"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,1,4" element_type="f32"/>
<output><port id="0" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></output></layer>
<layer id="1" name="same" type="ReLU" version="opset1">
<input><port id="0" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></input>
<output><port id="1" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></output></layer>
<layer id="2" name="same" type="Exp" version="opset1">
<input><port id="0" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></input>
<output><port id="1" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></output></layer>
<layer id="3" name="r" type="Result" version="opset1">
<input><port id="0" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
<edge from-layer="2" from-port="1" to-layer="3" to-port="0"/></edges></net>"""
#: Attribute values added after their op version: (type, opset, attribute, value, the layer's <data>).
VALUES = [
    ("MaxPool", "opset14", "rounding_type", "ceil_torch",
     '<data strides="1" dilations="1" pads_begin="0" pads_end="0" kernel="2" rounding_type="ceil_torch" '
     'auto_pad="explicit" index_element_type="i64" axis="0"/>'),
    ("AvgPool", "opset14", "rounding_type", "ceil_torch",
     '<data strides="1" pads_begin="0" pads_end="0" kernel="2" exclude-pad="false" rounding_type="ceil_torch" '
     'auto_pad="explicit"/>'),
]


def candidates() -> set[str]:
    package = Path(ov.__file__).parent
    libs = package / "libs" if (package / "libs").is_dir() else package.parent / "libs"  # (2023.x: openvino.runtime)
    words: set[str] = set()
    for lib in [*libs.glob("libopenvino.so*"), *libs.glob("libopenvino_ir_frontend.so*")]:
        words |= {m.decode() for m in re.findall(rb"[A-Za-z0-9_]{2,60}", lib.read_bytes())}
    return {w[i:] for w in words for i in range(len(w) - 1) if w[i].isupper()}


def reads(xml: str) -> bool:
    """True if the release reads this IR (from a file: releases before 2024 read no model from memory)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "probe.xml"
        path.write_text(xml)
        path.with_suffix(".bin").write_bytes(b"")
        try:
            ov.Core().read_model(str(path))
        except RuntimeError:
            return False
    return True


def opsets() -> dict[str, dict[str, str]]:
    """Each opsetN's types, each with its op version: the opset its class came in (``MaxPool`` of opset14 is
    ``opset14``, of opset8 ``opset8``), which says when two spellings are the same op."""
    names = sorted(candidates())
    table = {}
    for n in range(1, MAX_PROBED + 1):
        try:
            factory = NodeFactory(f"opset{n}")
        except RuntimeError:
            break
        found = {}
        for name in names:
            try:
                node = factory.create(name)
            except Exception:  # noqa: BLE001, S112 (not a type of this opset)
                continue
            found[node.get_type_info().name] = node.get_type_info().version_id
        table[f"opset{n}"] = dict(sorted(found.items()))
    return table


def values() -> list[dict[str, str]]:
    """The probed attribute values this release reads (a layer of that op version with that value)."""
    known = []
    for op_type, version, attribute, value, data in VALUES:
        outputs = '<port id="1" precision="FP32"><dim>1</dim><dim>1</dim><dim>3</dim></port>'
        if op_type == "MaxPool":
            outputs += '<port id="2" precision="I64"><dim>1</dim><dim>1</dim><dim>3</dim></port>'
        layer = LAYER.format(id=1, name="p", type=op_type, version=version, data=data, outputs=outputs)
        xml = NET.format(ir=11, layer=layer, dims="<dim>1</dim><dim>1</dim><dim>3</dim>")
        if reads(xml):
            known.append({"type": op_type, "opset": version, "attribute": attribute, "value": value})
    return known


def ir_versions() -> list[int]:
    layer = LAYER.format(id=1, name="a", type="ReLU", version="opset1", data="",
                         outputs='<port id="1" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port>')
    return [v for v in (10, 11) if reads(NET.format(ir=v, layer=layer, dims="<dim>1</dim><dim>1</dim><dim>4</dim>"))]


def duplicate_layer_names() -> dict[str, bool]:
    """Per IR version ("10", "11"): True if the reader takes an IR in which two layers have the same name."""
    return {str(v): reads(DUPLICATE_NAMES.format(ir=v)) for v in (10, 11)}


def main() -> None:
    json.dump({"version": ov.get_version(), "python": sys.version.split()[0], "ir_versions": ir_versions(),
               "opsets": opsets(), "values": values(), "duplicate_layer_names": duplicate_layer_names()},
              sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
