"""Planted defects: copies of an IR with one layer changed the way a real bug would change it.

Each keeps the changed model consistent (same dims, a valid file), so only outputs saved from the
original (or the original itself, ``compare --against``) reveal the change: a weight changed in its 4th
significant digit, two output channels of a Convolution swapped, a pooling's exclude-pad flipped, a pad moved
from one end of an axis to the other; and in a language model (issue 23): the largest weight of one attention
projection mirrored (``projection``), a state write fed from the wrong tensor (``state-write``), RoPE's sin and
cos swapped (``rope``). ``site`` finds where a language model's defect goes, ``named`` the layer a compare must
then name as the first divergence.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
from lxml import etree

from ir_tools.base.dtypes import element_type
from ir_tools.base.packed import unpack
from ir_tools.cli import main
from ir_tools.ir.reader import read_ir

#: The defects of a network's layers (a convolution, a pooling, a pad).
KINDS = ("weight", "channels", "exclude-pad", "pad")
#: The defects of a language model (issue 23), in the order scripts/gen_defects.py reports them.
LM_KINDS = ("projection", "state-write", "rope")
#: What an attention projection's MatMul is named, as transformers' modules name it: Llama's and Qwen2's query
#: projection, GPT-2's fused query-key-value one.
PROJECTIONS = ("self_attn.q_proj/", "attn.c_attn/")


def plant(kind: str, xml: Path, out: Path, layer_name: str) -> None:
    """Write ``out`` (.xml and .bin): ``xml`` with the defect ``kind`` planted in the layer ``layer_name``
    (a Convolution for "weight" and "channels"; any layer with pads for "pad"; a pooling for "exclude-pad"; a
    MatMul with weights for "projection"; an Assign for "state-write"; a Sin with a Cos of the same input for
    "rope": ``site`` finds them in a language model)."""
    if kind == "weight":
        _edit_weights(xml, out, layer_name, _fourth_digit)
    elif kind == "channels":
        _edit_weights(xml, out, layer_name, _swap_channels)
    elif kind == "exclude-pad":
        _edit_data(xml, out, layer_name, lambda d: {"exclude-pad": "false" if d["exclude-pad"] == "true" else "true"})
    elif kind == "pad":
        _edit_data(xml, out, layer_name, _moved_pad)
    elif kind == "projection":
        _mirror_weight(xml, out, layer_name)
    elif kind == "state-write":
        _edit_xml(xml, out, lambda root: _feed_from_twin(root, layer_name))
    else:
        _edit_xml(xml, out, lambda root: _swap_consumers(root, layer_name, _cos_of(root, layer_name)))


def site(kind: str, xml: Path) -> str | None:
    """Where a language model's defect ``kind`` goes (None: the model has no such place): the first attention
    projection's MatMul (in file order), the first Assign, or the Sin layer of the rotary embedding."""
    root = etree.parse(str(xml)).getroot()
    if kind == "projection":
        found = [e for e in root.iter("layer") if e.get("type") == "MatMul"
                 and any(p in e.get("name", "") for p in PROJECTIONS)]
    else:
        found = root.findall(f".//layer[@type='{'Assign' if kind == 'state-write' else 'Sin'}']")
    return found[0].get("name") if found else None


def named(kind: str, xml: Path, layer_name: str) -> str:
    """The layer a compare must name as the first divergence of ``kind`` planted at ``layer_name`` of ``xml`` (the
    original): the projection's MatMul, the Assign; for ``rope``, the first in topological order of the layers that
    read Sin or Cos (their inputs are what changed: Sin and Cos compute what they did)."""
    if kind != "rope":
        return layer_name
    graph = read_ir(xml)
    sin = next(layer for layer in graph.layers() if layer.name == layer_name)
    cos_name = _cos_of(etree.parse(str(xml)).getroot(), layer_name)
    cos = next(layer for layer in graph.layers() if layer.name == cos_name)
    readers = {edge.to_layer for layer in (sin, cos) for port in layer.outputs
               for edge in graph.consumers(layer.id, port.id)}
    return next(layer.name for layer in graph.topological_order() if layer.id in readers)


def _weights_const(xml: Path, layer_name: str) -> etree._Element:
    """The weights Const feeding the layer ``layer_name`` (port 1), up through port 0 of what decompresses them
    (a Convert of f16 weights; NNCF's Convert, Subtract, Multiply and Reshape of compressed ones): of the model's own
    layers and edges, not those of a body, whose ids repeat the model's."""
    root = etree.parse(str(xml)).getroot()
    layer, port = root.find(f"layers/layer[@name='{layer_name}']"), "1"
    while layer.get("type") != "Const":
        edge = _in_edge(root, layer.get("id"), port)
        layer, port = root.find(f"layers/layer[@id='{edge.get('from-layer')}']"), "0"
    return layer


def _const_data(xml: Path, layer_name: str, numeric: bool = True) -> tuple[int, int, np.dtype | None, tuple[int, ...]]:
    """(offset, size, dtype, shape) of the weights Const feeding the layer ``layer_name`` (``_weights_const``); the
    dtype None for a type numpy has none for, unless ``numeric`` (then such a type is an error)."""
    data = _weights_const(xml, layer_name).find("data")
    shape = tuple(int(d) for d in data.get("shape").split(","))
    dtype = element_type(data.get("element_type")).numpy
    if dtype is None and numeric:
        raise ValueError(f"the weights of {layer_name} are {data.get('element_type')}: no numpy type")
    return int(data.get("offset")), int(data.get("size")), None if dtype is None else np.dtype(dtype), shape


def _edit_weights(xml: Path, out: Path, layer_name: str, change: Callable[[np.ndarray], None]) -> None:
    shutil.copy(xml, out)
    blob = bytearray(xml.with_suffix(".bin").read_bytes())
    offset, size, dtype, shape = _const_data(xml, layer_name)
    weights = np.frombuffer(blob, dtype, size // dtype.itemsize, offset).reshape(shape).copy()
    change(weights)
    blob[offset:offset + size] = weights.tobytes()
    out.with_suffix(".bin").write_bytes(bytes(blob))


def _fourth_digit(weights: np.ndarray) -> None:
    """One weight changed by one unit in its 4th significant digit (0.1234 -> 0.1235)."""
    flat = weights.reshape(-1)
    i = int(np.argmax(np.abs(flat)))
    flat[i] += np.sign(flat[i]) * 10.0 ** (np.floor(np.log10(abs(flat[i]))) - 3)


def _swap_channels(weights: np.ndarray) -> None:
    weights[[0, 1]] = weights[[1, 0]]


def _moved_pad(data: dict[str, str]) -> dict[str, str]:
    """One unit of end padding moved to the start of the first axis that has some: the same padded length, so
    the same output dims."""
    begin, end = ([int(v) for v in data[k].split(",")] for k in ("pads_begin", "pads_end"))
    axis = next(i for i, e in enumerate(end) if e > 0)
    begin[axis], end[axis] = begin[axis] + 1, end[axis] - 1
    return {"pads_begin": ",".join(map(str, begin)), "pads_end": ",".join(map(str, end))}


def _edit_data(xml: Path, out: Path, layer_name: str, change: Callable[[dict[str, str]], dict[str, str]]) -> None:
    def edit(root: etree._Element) -> None:
        data = root.find(f".//layer[@name='{layer_name}']/data")
        for key, value in change(dict(data.attrib)).items():
            data.set(key, value)

    _edit_xml(xml, out, edit)


def _edit_xml(xml: Path, out: Path, change: Callable[[etree._Element], None]) -> None:
    """``out``: ``xml`` with its tree changed by ``change``, the same weights."""
    tree = etree.parse(str(xml))
    change(tree.getroot())
    tree.write(str(out))
    shutil.copy(xml.with_suffix(".bin"), out.with_suffix(".bin"))


def _mirror_weight(xml: Path, out: Path, layer_name: str) -> None:
    """The largest stored weight (in magnitude) of the MatMul ``layer_name``'s weights mirrored: a float negated,
    a signed integer code negated (i4 7 -> -7), an unsigned one reflected in its range (u4 3 -> 12, u8 200 -> 55),
    which with the zero point near the middle that asymmetric compression stores nearly negates the weight. A
    change of twice the weight's size: an output of the MatMul moves by far more than any rounding."""
    offset, size, _, shape = _const_data(xml, layer_name, numeric=False)
    et = element_type(_weights_const(xml, layer_name).find("data").get("element_type"))
    blob = bytearray(xml.with_suffix(".bin").read_bytes())
    count = int(np.prod(shape))
    values = (np.frombuffer(blob, et.numpy, count, offset) if et.numpy is not None
              else unpack(et, memoryview(blob)[offset:offset + size], count)).astype(np.float64)
    signed = np.dtype(et.numpy).kind != "u" if et.numpy is not None else et.name == "i4"
    if signed:
        free = np.where(values == -2.0 ** (et.bits - 1), 0.0, values)  # the most negative code has no negation
        i = int(np.argmax(np.abs(free)))
        value = -values[i]
    else:
        top = 2.0 ** et.bits - 1
        i = int(np.argmax(np.abs(values - top / 2)))
        value = top - values[i]
    if et.numpy is not None:
        item = np.dtype(et.numpy).itemsize
        blob[offset + i * item:offset + (i + 1) * item] = np.array([value], et.numpy).tobytes()
    elif et.bits == 4:  # the first of two values in the low nibble (base/packed.py)
        code, at = int(value) & 15, offset + i // 2
        blob[at] = (blob[at] & 0xF0) | code if i % 2 == 0 else (blob[at] & 0x0F) | code << 4
    else:
        raise ValueError(f"weights of element type {et.name} are not mirrored here")
    shutil.copy(xml, out)
    out.with_suffix(".bin").write_bytes(bytes(blob))


def _feed_from_twin(root: etree._Element, assign_name: str) -> None:
    """The Assign ``assign_name`` fed from what the next Assign of the same input dims writes (a layer's key cache
    written from its value tensor): both then write one tensor, the model's outputs unchanged at the first step."""
    assigns = root.findall(".//layer[@type='Assign']")
    layer = next(a for a in assigns if a.get("name") == assign_name)
    dims = _input_dims(layer)
    twin = next(a for a in assigns[assigns.index(layer) + 1:] + assigns if a is not layer and _input_dims(a) == dims)
    edge = _in_edge(root, layer.get("id"), "0")
    source = _in_edge(root, twin.get("id"), "0")
    edge.set("from-layer", source.get("from-layer"))
    edge.set("from-port", source.get("from-port"))


def _cos_of(root: etree._Element, sin_name: str) -> str:
    """The Cos layer reading what the Sin ``sin_name`` reads (the rotary embedding's angles)."""
    sin = root.find(f".//layer[@name='{sin_name}']")
    angles = _in_edge(root, sin.get("id"), "0")
    for cos in root.findall(".//layer[@type='Cos']"):
        edge = _in_edge(root, cos.get("id"), "0")
        if (edge.get("from-layer"), edge.get("from-port")) == (angles.get("from-layer"), angles.get("from-port")):
            return cos.get("name")
    raise ValueError(f"no Cos reads what {sin_name} reads")


def _swap_consumers(root: etree._Element, a_name: str, b_name: str) -> None:
    """Every layer reading ``a_name`` reads ``b_name`` instead, and the other way round (one output port each)."""
    a, b = (root.find(f".//layer[@name='{n}']") for n in (a_name, b_name))
    ports = {a.get("id"): a.find("output/port").get("id"), b.get("id"): b.find("output/port").get("id")}
    other = {a.get("id"): b.get("id"), b.get("id"): a.get("id")}
    for edge in root.iter("edge"):
        source = edge.get("from-layer")
        if source in other:
            edge.set("from-layer", other[source])
            edge.set("from-port", ports[other[source]])


def _in_edge(root: etree._Element, layer_id: str, port: str) -> etree._Element:
    """The edge into port ``port`` of the model's layer ``layer_id`` (not a body's: their ids repeat the model's)."""
    return root.find(f"edges/edge[@to-layer='{layer_id}'][@to-port='{port}']")


def _input_dims(layer: etree._Element) -> list[str]:
    return [d.text for d in layer.find("input/port").iter("dim")]


def assert_pinned(capsys, original: Path, changed: Path, layer_name: str, shape: str) -> None:
    """``compare --load-outputs`` of ``changed`` against outputs saved from ``original`` exits 1 naming
    ``layer_name`` as the first divergence, while plain ``compare`` of ``changed`` passes."""
    saved = changed.with_name(f"{changed.stem}-original.npz")
    code, _ = _compare(capsys, original, "--shape", shape, "--per-layer", "--save-outputs", str(saved))
    assert code == 0
    code, report = _compare(capsys, changed, "--shape", shape, "--load-outputs", str(saved))
    assert code == 1 and report["first_divergence"]["name"] == layer_name, report["first_divergence"]
    code, report = _compare(capsys, changed, "--shape", shape, "--per-layer")
    assert code == 0 and report["passed"], "the changed model agrees with its own reference"


def _compare(capsys, xml: Path, *args: str) -> tuple[int, dict]:
    code = main(["compare", str(xml), *args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)
