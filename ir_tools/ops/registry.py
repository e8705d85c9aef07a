"""The op registry: one OpSpec per (type, version range) with typed attrs and a shape rule."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from ..ir.dims import Shape


@dataclass(frozen=True, slots=True)
class TensorType:
    """What flows along an edge: element type name (``f32``...) and partial shape."""

    element: str | None
    shape: Shape


#: A shape rule: (typed attrs, input types, constant input values or None) -> output types.
ShapeRule = Callable[[Any, Sequence[TensorType], Sequence["np.ndarray | None"]], list[TensorType]]


@dataclass(frozen=True, slots=True)
class OpSpec:
    type: str  # canonical IR spelling, e.g. "AvgPool"
    label: str  # "AvgPool-14": type and first version, used in messages
    opsets: tuple[str, ...]  # the `version` values that mean this op
    attrs: type  # frozen dataclass declared with ops.attrs.attr
    infer: ShapeRule
    n_inputs: tuple[int, int]  # (min, max) number of inputs
    n_outputs: int
    value_inputs: tuple[int, ...] = ()  # inputs whose constant values the shape rule reads
    kernel: Callable[..., Any] | None = field(default=None, compare=False)


def opset_range(first: int, last: int) -> tuple[str, ...]:
    return tuple(f"opset{i}" for i in range(first, last + 1))


_SPECS: dict[tuple[str, str], OpSpec] = {}
_TYPES: dict[str, list[OpSpec]] = {}


def register(spec: OpSpec) -> OpSpec:
    for opset in spec.opsets:
        _SPECS[(spec.type.lower(), opset)] = spec
    _TYPES.setdefault(spec.type.lower(), []).append(spec)
    lookup.cache_clear()
    return spec


#: Types OpenVINO's IR reader matches only in one exact spelling (measured: "const" is no Const).
_EXACT_SPELLING = {"const": "Const"}


@lru_cache(maxsize=1024)  # a model has few distinct (type, version) pairs; shape propagation asks per layer
def lookup(op_type: str, version: str | None) -> OpSpec | None:
    """The spec for a layer's type and ``version`` (type matched case-insensitively, version exactly)."""
    _ensure_loaded()
    key = op_type.lower()
    if _EXACT_SPELLING.get(key, op_type) != op_type:
        return None
    return _SPECS.get((key, version or ""))


def known_type(op_type: str) -> bool:
    """True if we model some version of this type (so a missing opset is a real error)."""
    _ensure_loaded()
    return op_type.lower() in _TYPES


def opsets_of(op_type: str) -> list[str]:
    _ensure_loaded()
    return [o for spec in _TYPES.get(op_type.lower(), []) for o in spec.opsets]


def specs() -> list[OpSpec]:
    _ensure_loaded()
    return [s for group in _TYPES.values() for s in group]


def _ensure_loaded() -> None:
    """Import the op modules, which register their specs (lazily, to avoid import cycles)."""
    from . import core, pooling  # noqa: F401
