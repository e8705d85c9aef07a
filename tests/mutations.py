"""Seeded one-mutation variants of OpenVINO-saved IRs, and OpenVINO's verdict on each.

Used by tests/test_agreement.py (a few hundred variants) and scripts/check_agreement.py (as many as
asked, with the confusion matrix). A mutation is one of: a type renamed, an attribute dropped, an
attribute corrupted, an edge moved, a dim changed, a Const's offset or size changed. Each variant is
judged by OpenVINO (read_model, then compile on CPU) and by ``ir-tools check``.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset8 as ops
from lxml import etree

from tests.zoo import COMMITTED_DIR, ZOO_DIR

KINDS = ("type", "attr-drop", "attr-corrupt", "edge", "dim", "const")
_CORRUPT = ("abc", "-1", "1.5", "", "999999", "0")


@dataclass(frozen=True)
class Variant:
    path: Path
    kind: str
    what: str


def source_models(folder: Path) -> list[Path]:
    """Small networks saved by OpenVINO: convolutions, pooling, matmul, concat, reshape, reductions."""
    rng = np.random.default_rng(7)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []

    def save(name: str, build: Callable[[], ov.Model]) -> None:
        path = folder / f"{name}.xml"
        ov.save_model(build(), path)
        paths.append(path)

    def cnn() -> ov.Model:
        x = ops.parameter([1, 3, 16, 16], np.float32, name="x")
        w = ops.constant(rng.standard_normal((8, 3, 3, 3)).astype(np.float32))
        c = ops.relu(ops.convolution(x, w, [1, 1], [1, 1], [1, 1], [1, 1]))
        p = ops.avg_pool(c, [2, 2], [0, 0], [0, 0], [2, 2], True, "floor")
        m = ops.max_pool(p, [1, 1], [1, 1], [0, 0], [0, 0], [2, 2], "ceil")
        r = ops.reduce_mean(m.output(0), ops.constant(np.array([2, 3], np.int64)), True)
        f = ops.reshape(r, ops.constant(np.array([1, -1], np.int64)), True)
        y = ops.matmul(f, ops.constant(rng.standard_normal((8, 5)).astype(np.float32)), False, False)
        return ov.Model([ops.softmax(y, 1)], [x], "cnn")

    def branches() -> ov.Model:
        x = ops.parameter([2, 4, 8, 8], np.float32, name="x")
        a = ops.sigmoid(x)
        b = ops.multiply(x, ops.constant(np.float32(2)))
        c = ops.concat([a, b], 1)
        t = ops.transpose(c, ops.constant(np.array([0, 2, 3, 1], np.int64)))
        s = ops.split(t, ops.constant(np.int64(3)), 2)
        return ov.Model([ops.add(s.output(0), s.output(1))], [x], "branches")

    save("cnn", cnn)
    save("branches", branches)
    return paths


#: Zoo networks mutated with ``--zoo``: small enough to judge hundreds of variants, with static and dynamic inputs.
ZOO_NETWORKS = ("resnet18_op17", "squeezenet1_1_op17_dyn", "mobilenet_v3_small_op17", "shufflenet_v2_x0_5_op17",
                "googlenet_op11", "densenet121_op17_dyn")


def zoo_sources(folder: Path, networks: tuple[str, ...] = ZOO_NETWORKS) -> list[Path]:
    """Zoo networks converted by OpenVINO (``convert_model`` + ``save_model``), f16-compressed and f32; the
    committed copies stand in where the zoo is not built."""
    paths = []
    for name in networks:
        onnx = next((d / f"{name}.onnx" for d in (ZOO_DIR, COMMITTED_DIR) if (d / f"{name}.onnx").exists()), None)
        if onnx is None:
            continue
        model = ov.convert_model(str(onnx))
        for compress in (True, False):
            path = folder / f"{name}_{'f16' if compress else 'f32'}.xml"
            ov.save_model(model, path, compress_to_fp16=compress)
            paths.append(path)
    return paths


def mutate(source: Path, out: Path, seed: int) -> Variant:
    """One seeded mutation of ``source`` written to ``out`` (with a copy of its weights)."""
    rng = random.Random(seed)
    tree = etree.parse(str(source), etree.XMLParser(resolve_entities=False, no_network=True))
    root = tree.getroot()
    layers = root.findall("./layers/layer")
    edges = root.findall("./edges/edge")
    kind = KINDS[seed % len(KINDS)]
    what = _apply(kind, rng, layers, edges)
    if what is None:  # nothing of that kind in this model: change a dim instead
        kind, what = "dim", _apply("dim", rng, layers, edges)
    tree.write(str(out))
    shutil.copy(source.with_suffix(".bin"), out.with_suffix(".bin"))
    return Variant(out, kind, what or "")


def _apply(kind: str, rng: random.Random, layers: list, edges: list) -> str | None:
    if kind == "type":
        layer = rng.choice(layers)
        old = layer.get("type")
        new = rng.choice([old.lower(), old.upper(), old[:-1], old + "s", old[1:] + old[0], "AvgPooling", "Convolutoin"])
        layer.set("type", new)
        return f"layer {layer.get('id')}: type {old} -> {new}"
    with_data = [(lay, d) for lay in layers for d in lay.findall("data") if d.attrib]
    if kind in ("attr-drop", "attr-corrupt") and with_data:
        layer, data = rng.choice(with_data)
        name = rng.choice(sorted(data.attrib))
        if kind == "attr-drop":
            del data.attrib[name]
            return f"layer {layer.get('id')}: dropped {name}"
        value = rng.choice(_CORRUPT)
        data.set(name, value)
        return f"layer {layer.get('id')}: {name}={value!r}"
    if kind == "edge" and edges:
        edge = rng.choice(edges)
        field = rng.choice(["from-layer", "to-layer", "from-port", "to-port"])
        old = edge.get(field)
        new = rng.choice([lay.get("id") for lay in layers]) if "layer" in field else str(int(old) + rng.choice([-1, 1]))
        edge.set(field, new)
        return f"edge {field} {old} -> {new}"
    if kind == "dim":
        dims = [(lay, d) for lay in layers for d in lay.iter("dim")]
        if not dims:
            return None
        layer, dim = rng.choice(dims)
        old = dim.text
        dim.text = str(max(0, int(old) + rng.choice([-1, 1, 2])))
        return f"layer {layer.get('id')}: dim {old} -> {dim.text}"
    if kind == "const":
        consts = [lay for lay in layers if lay.get("type") == "Const"]
        if not consts:
            return None
        data = rng.choice(consts).find("data")
        field = rng.choice(["offset", "size"])
        old = int(data.get(field))
        data.set(field, str(rng.choice([old + 4, old * 2 + 1, max(0, old - 4), old + 10**6])))
        return f"Const {field} {old} -> {data.get(field)}"
    return None


def openvino_accepts(path: Path) -> bool:
    """OpenVINO reads the file and compiles it on CPU."""
    try:
        core = ov.Core()
        core.compile_model(core.read_model(path), "CPU")
        return True
    except Exception:  # noqa: BLE001 (any refusal counts)
        return False
