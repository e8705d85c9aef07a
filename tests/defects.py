"""Planted defects: copies of an IR with one layer changed the way a real bug would change it.

Each keeps the changed model consistent (same dims, a valid file), so only outputs saved from the
original reveal the change: a weight changed in its 4th significant digit, two output channels of a
Convolution swapped, a pooling's exclude-pad flipped, a pad moved from one end of an axis to the other.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
from lxml import etree

from ir_tools.base.dtypes import element_type
from ir_tools.cli import main

KINDS = ("weight", "channels", "exclude-pad", "pad")


def plant(kind: str, xml: Path, out: Path, layer_name: str) -> None:
    """Write ``out`` (.xml and .bin): ``xml`` with the defect ``kind`` planted in the layer ``layer_name``
    (a Convolution for "weight" and "channels"; any layer with pads for "pad"; a pooling for "exclude-pad")."""
    if kind == "weight":
        _edit_weights(xml, out, layer_name, _fourth_digit)
    elif kind == "channels":
        _edit_weights(xml, out, layer_name, _swap_channels)
    elif kind == "exclude-pad":
        _edit_data(xml, out, layer_name, lambda d: {"exclude-pad": "false" if d["exclude-pad"] == "true" else "true"})
    else:
        _edit_data(xml, out, layer_name, _moved_pad)


def _const_data(xml: Path, layer_name: str) -> tuple[int, int, np.dtype, tuple[int, ...]]:
    """(offset, size, dtype, shape) of the weights Const feeding the Convolution ``layer_name`` (port 1), through
    the Convert that decompresses f16 weights."""
    root = etree.parse(str(xml)).getroot()
    layer, port = root.find(f".//layer[@name='{layer_name}']"), "1"
    while layer.get("type") != "Const":
        edge = root.find(f".//edge[@to-layer='{layer.get('id')}'][@to-port='{port}']")
        layer, port = root.find(f".//layer[@id='{edge.get('from-layer')}']"), "0"
    data = layer.find("data")
    shape = tuple(int(d) for d in data.get("shape").split(","))
    return int(data.get("offset")), int(data.get("size")), np.dtype(element_type(data.get("element_type")).numpy), shape


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
    tree = etree.parse(str(xml))
    data = tree.getroot().find(f".//layer[@name='{layer_name}']/data")
    for key, value in change(dict(data.attrib)).items():
        data.set(key, value)
    tree.write(str(out))
    shutil.copy(xml.with_suffix(".bin"), out.with_suffix(".bin"))


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
