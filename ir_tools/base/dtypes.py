"""One table: IR element types <-> port precisions <-> numpy dtypes <-> bit widths."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class ElementType:
    name: str  # as in <data element_type="...">
    precision: str  # as in <port precision="...">
    bits: int  # 0: variable size (string)
    numpy: np.dtype | None  # None: no numpy equivalent (packed or exotic)


def _table() -> dict[str, ElementType]:
    rows = [
        ("f16", "FP16", 16, np.float16),
        ("f32", "FP32", 32, np.float32),
        ("f64", "FP64", 64, np.float64),
        ("bf16", "BF16", 16, None),
        ("i4", "I4", 4, None),
        ("u4", "U4", 4, None),
        ("i8", "I8", 8, np.int8),
        ("u8", "U8", 8, np.uint8),
        ("i16", "I16", 16, np.int16),
        ("u16", "U16", 16, np.uint16),
        ("i32", "I32", 32, np.int32),
        ("u32", "U32", 32, np.uint32),
        ("i64", "I64", 64, np.int64),
        ("u64", "U64", 64, np.uint64),
        ("boolean", "BOOL", 8, np.bool_),
        ("u1", "U1", 1, None),
        ("u2", "U2", 2, None),
        ("u3", "U3", 3, None),
        ("u6", "U6", 6, None),
        ("nf4", "NF4", 4, None),
        ("f4e2m1", "F4E2M1", 4, None),
        ("f8e4m3", "F8E4M3", 8, None),
        ("f8e5m2", "F8E5M2", 8, None),
        ("f8e8m0", "F8E8M0", 8, None),
        ("string", "STRING", 0, None),
    ]
    return {n: ElementType(n, p, b, None if d is None else np.dtype(d)) for n, p, b, d in rows}


ELEMENT_TYPES: dict[str, ElementType] = _table()
#: The largest finite f32 (OpenVINO CPU starts its max/min reductions from it).
F32_MAX = float(np.finfo(np.float32).max)
#: What OpenVINO's element::Type::is_real() holds (nf4 is not real to it but an integral number).
REAL_TYPES = frozenset({"f16", "f32", "f64", "bf16", "f4e2m1", "f8e4m3", "f8e5m2", "f8e8m0"})
#: The integer element types proper (boolean, string and nf4 aside).
INTEGER_TYPES = frozenset({"i4", "i8", "i16", "i32", "i64", "u1", "u2", "u3", "u4", "u6", "u8", "u16", "u32", "u64"})
#: Port precisions OpenVINO reads beside the types' own: "BIN", how its IR v10 serializer wrote u1 (a ``<data
#: element_type>`` takes the types' names only, which the attribute codecs require).
_BY_PRECISION = {t.precision: t for t in ELEMENT_TYPES.values()} | {"BIN": ELEMENT_TYPES["u1"]}
_BY_NUMPY = {t.numpy: t for t in ELEMENT_TYPES.values() if t.numpy is not None}
#: The dynamic element type's spellings OpenVINO's reader takes as a port's precision: "UNSPECIFIED", as its serializer
#: writes an output of a dynamic type, "undefined" and "dynamic" (no element type of ours: never the inferred one).
DYNAMIC_PRECISIONS = frozenset({"UNSPECIFIED", "undefined", "dynamic"})
#: The spellings OpenVINO's reader takes as a port's precision: a type's own name or its precision, exactly, or the
#: dynamic type's (measured on 2026.4: "f32" and "FP32" are read, "F32", "fp32" and "DYNAMIC" are "Unsupported element
#: type"; ``element_type`` reads any).
PORT_PRECISIONS = frozenset(ELEMENT_TYPES) | frozenset(_BY_PRECISION) | DYNAMIC_PRECISIONS


def is_signed(name: str) -> bool:
    """OpenVINO's ``element::Type::is_signed``: the real types and the i* ones."""
    return name in REAL_TYPES or name.startswith("i")


def element_type(name: str) -> ElementType | None:
    """Look up ``f32``/``FP32``-style names (either spelling, any case); None if unknown."""
    key = name.strip()
    return ELEMENT_TYPES.get(key.lower()) or _BY_PRECISION.get(key.upper())


def from_numpy(dtype: np.dtype) -> ElementType:
    return _BY_NUMPY[np.dtype(dtype)]


def byte_size(et: ElementType, count: int) -> int:
    """Bytes needed to store ``count`` elements (packed types round up)."""
    return (count * et.bits + 7) // 8
