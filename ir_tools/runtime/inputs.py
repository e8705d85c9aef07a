"""Model inputs: from a dict, ``.npy``/``.npz`` files, or seeded random data."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..base.dims import parse_shape
from ..base.dtypes import element_type
from ..base.errors import IrToolsError
from ..ir.model import Graph
from ..ir.names import input_name
from ..ops.opsets import lookup


class InputError(IrToolsError):
    code = "E-INPUT"


def parse_shape_overrides(specs: list[str]) -> dict[str, tuple[int, ...]]:
    """``["x:1,3,224,224", ...]`` -> ``{"x": (1, 3, 224, 224)}``."""
    out = {}
    for spec in specs:
        name, sep, dims = spec.rpartition(":")
        try:
            if not sep or not name:
                raise ValueError
            out[name] = tuple(int(d) for d in dims.split(","))
        except ValueError:
            raise InputError(f"--shape expects NAME:D1,D2,... with integers, got '{spec}'") from None
    return out


def load_inputs(path: Path, graph: Graph) -> dict[str, np.ndarray]:
    """Inputs from an ``.npz`` (keys are input names) or an ``.npy`` (a model with one input)."""
    try:
        if path.suffix == ".npy":
            names = [input_name(graph, p) for p in graph.parameters()]
            if len(names) != 1:
                raise InputError(f"{path}: an .npy file can feed a model with one input; this one has {len(names)}")
            return {names[0]: np.load(path, allow_pickle=False)}
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read inputs from {path}: {exc}") from None
    return load_npz(path)


def load_npz(path: Path) -> dict[str, np.ndarray]:
    """Every array of an ``.npz`` file (no pickles)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read arrays from {path}: {exc}") from None


#: The input indexing into the first input of ops ir_tools has no OpSpec for (a modelled op's spec says it, in
#: ``index_input``): a random index there must be in range.
_UNMODELLED_INDEX_INPUTS = {"GatherElements": 1, "ScatterUpdate": 1, "ScatterElementsUpdate": 1, "ROIAlign": 2,
                            "EmbeddingBagOffsetsSum": 1, "EmbeddingBagPackedSum": 1, "EmbeddingSegmentsSum": 1}


def random_inputs(graph: Graph, seed: int, shapes: Mapping[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """Seeded data for every input: floats ~ N(0, 1), integers in [-50, 50) (unsigned [0, 100)); an integer
    input that indexes another tensor (a Gather's indices, ROIAlign's batch indices...) in [0, n), n the
    smallest dim of the tensor it indexes, so that every index is valid whatever the axis."""
    rng = np.random.default_rng(seed)
    out = {}
    for param in graph.parameters():
        name = input_name(graph, param)
        shape = shapes.get(name) or _static_shape(param.attrs.get("shape", ""), name)
        et = element_type(param.attrs.get("element_type", ""))
        if et is None or et.numpy is None:
            raise InputError(f"input '{name}' has element type {param.attrs.get('element_type')}: no numpy type")
        bound = _index_bound(graph, param) if np.issubdtype(et.numpy, np.integer) else None
        try:
            value = rng.integers(0, bound, shape) if bound else _random(rng, et.numpy, shape)
            out[name] = np.asarray(value).astype(et.numpy)
        except (MemoryError, ValueError):
            raise InputError(f"input '{name}' of shape {list(shape)} ({math.prod(shape)} elements) does not fit in "
                             "this machine's memory") from None
    return out


def _random(rng: np.random.Generator, dtype: type, shape: tuple[int, ...]) -> np.ndarray:
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape).astype(dtype)
    if np.issubdtype(dtype, np.unsignedinteger):
        return rng.integers(0, 100, shape).astype(dtype)
    return rng.integers(-50, 50, shape).astype(dtype)


def check_inputs(graph: Graph, inputs: Mapping[str, np.ndarray]) -> None:
    """Every model input present, with a compatible rank and dims; extra names are errors too."""
    names = {input_name(graph, p): p for p in graph.parameters()}
    missing = sorted(set(names) - set(inputs))
    extra = sorted(set(inputs) - set(names))
    if missing or extra:
        raise InputError(f"inputs do not match the model: missing {missing}, unexpected {extra}")
    for name, param in names.items():
        declared = parse_shape(param.attrs.get("shape", "..."))
        got = np.shape(inputs[name])
        if declared is None:
            continue
        ok = len(declared) == len(got) and all(
            d.lo <= n and (d.hi is None or n <= d.hi) for d, n in zip(declared, got, strict=True)
        )
        if not ok:
            raise InputError(f"input '{name}' has shape {list(got)}, the model accepts "
                             f"[{param.attrs.get('shape')}]")


def _static_shape(text: str, name: str) -> tuple[int, ...]:
    shape = parse_shape(text)
    if shape is None or not all(d.is_static for d in shape):
        raise InputError(f"input '{name}' has a dynamic shape [{text}]: give one with --shape {name}:D1,D2,...")
    return tuple(d.lo for d in shape)


def _index_bound(graph: Graph, param) -> int | None:
    """The smallest static dim of every tensor ``param`` indexes into, or None if it indexes nothing."""
    bounds = []
    for edge in graph.consumers(param.id, param.outputs[0].id) if param.outputs else []:
        consumer = graph.layer(edge.to_layer)
        spec = lookup(consumer.type, consumer.version)
        index_port = spec.index_input if spec is not None else _UNMODELLED_INDEX_INPUTS.get(consumer.type)
        if index_port is None or consumer.inputs.index(consumer.input(edge.to_port)) != index_port:
            continue
        dims = consumer.inputs[0].dims or ()
        bounds += [d for d in dims if d > 0]
    return min(bounds) if bounds else None
