"""The op table: which OpSpec each ``type`` + ``version="opsetN"`` of an IR layer means.

Built explicitly from one list of (spec, first opset, last opset), the way OpenVINO builds its
opsetN tables, and checked against OpenVINO's IR reader by tests/ops/test_opsets.py. Beside it,
``openvino_opsets.json`` lists every type each of OpenVINO's opsets holds, modelled here or not
(generated from the installed openvino by scripts/make_opset_table.py, checked by
tests/ops/test_openvino_opsets.py), so that ``check`` knows a typo from a real op. Measured on
openvino 2026.4.1:

- Versions are matched exactly ("Opset8", "opset08" and "8" are not opset8).
- Types are matched case-insensitively ("avgpool" is AvgPool), except Const, which must be
  spelled exactly so ("const" is no type OpenVINO knows).
- opset17 holds Parameter and Convert among the ops modelled here, but not Const, Result or the
  others: their opset17 spellings are refused.
"""

from __future__ import annotations

import difflib
import json
from functools import lru_cache
from pathlib import Path

from . import arithmetic, convolution, core, movement, pooling
from .spec import OpSpec

#: The highest opset OpenVINO knows; ``opsetN`` above it is refused whatever the type.
MAX_OPSET = 17

#: (spec, first opset, last opset) for every op version modelled.
_RANGES: tuple[tuple[OpSpec, int, int], ...] = (
    (core.PARAMETER_1, 1, MAX_OPSET),
    (core.CONST_1, 1, 16),
    (core.CONVERT_1, 1, MAX_OPSET),
    (core.RESULT_1, 1, 16),
    (pooling.AVG_POOL_1, 1, 13),
    (pooling.AVG_POOL_14, 14, 15),
    (pooling.AVG_POOL_16, 16, 16),
    (pooling.ADAPTIVE_AVG_POOL_8, 8, 16),
    (movement.PAD_1, 1, 11),
    (movement.PAD_12, 12, 16),
    (movement.SLICE_8, 8, 16),
    (movement.STRIDED_SLICE_1, 1, 16),
    (convolution.CONVOLUTION_1, 1, 16),
    (convolution.GROUP_CONVOLUTION_1, 1, 16),
    (arithmetic.ADD_1, 1, 16),
    (arithmetic.SUBTRACT_1, 1, 16),
    (arithmetic.MULTIPLY_1, 1, 16),
    (arithmetic.DIVIDE_1, 1, 16),
    (arithmetic.RELU_1, 1, 16),
)

#: Every type of every opset of OpenVINO, keyed by lower case: {"opset8": {"avgpool": "AvgPool"}}. Spelled as the
#: opset tables name them, "Const" aside; OpenVINO's serializer writes a few in other cases (ReLU, SoftMax).
OPENVINO_OPSETS: dict[str, dict[str, str]] = {
    name: {t.lower(): t for t in types}
    for name, types in json.loads((Path(__file__).with_name("openvino_opsets.json")).read_text())["opsets"].items()
}

#: Types OpenVINO's reader matches in one exact spelling only.
_EXACT_SPELLING = frozenset({"Const"})

OPSETS: dict[str, dict[str, OpSpec]] = {f"opset{n}": {} for n in range(1, MAX_OPSET + 1)}
for _spec, _first, _last in _RANGES:
    for _n in range(_first, _last + 1):
        OPSETS[f"opset{_n}"][_spec.type] = _spec

_CANONICAL = {spec.type.lower(): spec.type for spec, _, _ in _RANGES}


def _read_as(op_type: str, names: dict[str, str]) -> str | None:
    """The one spelling rule: the name in ``names`` (keyed by lower case) OpenVINO reads ``op_type`` as."""
    found = names.get(op_type.lower())
    return None if found in _EXACT_SPELLING and found != op_type else found


@lru_cache(maxsize=1024)  # a model has few distinct type spellings
def canonical_type(op_type: str) -> str | None:
    """The modelled type OpenVINO reads ``op_type`` as ("avgpool" -> "AvgPool"), or None."""
    return _read_as(op_type, _CANONICAL)


def required_spelling(op_type: str) -> str | None:
    """"Const" for "const": the one spelling OpenVINO accepts, when ``op_type`` differs from it in case only."""
    found = _CANONICAL.get(op_type.lower())
    return found if found is not None and _read_as(op_type, _CANONICAL) is None else None


@lru_cache(maxsize=1024)  # shape propagation and the executor ask per layer
def lookup(op_type: str, version: str | None) -> OpSpec | None:
    """The spec a layer's type and ``version`` mean, or None if we model no such op version."""
    canonical = canonical_type(op_type)
    table = OPSETS.get(version or "")
    return None if canonical is None or table is None else table.get(canonical)


def openvino_type(op_type: str, version: str | None) -> str | None:
    """The type OpenVINO's opset ``version`` reads ``op_type`` as (any op, modelled or not), or None."""
    return _read_as(op_type, OPENVINO_OPSETS.get(version or "", {}))


@lru_cache(maxsize=1024)  # asked per layer by check; a model has few distinct types
def openvino_opsets_of(op_type: str) -> tuple[str, ...]:
    """OpenVINO's opsets that hold ``op_type`` (any op), in order."""
    return tuple(name for name in OPENVINO_OPSETS if openvino_type(op_type, name))


def nearest_types(op_type: str, version: str) -> list[str]:
    """Types of opset ``version`` spelled most like ``op_type`` ("AvgPooling" -> ["AvgPool"])."""
    table = OPENVINO_OPSETS.get(version, {})
    return [table[k] for k in difflib.get_close_matches(op_type.lower(), list(table), n=2, cutoff=0.75)]


def opsets_of(op_type: str) -> list[str]:
    """The opsets that contain a modelled type, in order (empty for a type we do not model)."""
    canonical = canonical_type(op_type)
    return [name for name, table in OPSETS.items() if canonical in table]


def specs() -> list[OpSpec]:
    """Every modelled op version once."""
    return list(dict.fromkeys(spec for spec, _, _ in _RANGES))
