"""Element types numpy has no dtype for (packed integers, nf4, 4- and 8-bit floats, bf16): their payload bytes
unpacked into the numpy type that holds their values exactly, as OpenVINO unpacks them (its element iterators and
conversions: the bit layouts below were measured by reading Consts of each type through a Convert to f32 on
OpenVINO, in tests/test_packed_types.py).

bf16 is also computed: the reference holds bf16 values as float32 arrays of the ``BF16`` dtype (float32 tagged bf16,
so that the rounding rules know the precision, ``ops.rounding.unit``) and rounds into it as OpenVINO CPU does
(``to_bf16``)."""

from __future__ import annotations

import numpy as np

from .dtypes import ElementType, element_type, from_numpy
from .errors import AttrError

#: OpenVINO's nf4 values (src/core/src/type/nf4.cpp), by 4-bit code.
NF4_VALUES = np.array([
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
    -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725, 0.24611230194568634,
    0.33791524171829224, 0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0], np.float32)


def _float_codes(exponent_bits: int, mantissa_bits: int, bias: int, nan: set[int]) -> np.ndarray:
    """The value of every code of a small float (sign, exponent, mantissa; subnormals at exponent 0; no infinity;
    NaN at the codes ``nan``, of the code's sign)."""
    codes = np.arange(2 ** (1 + exponent_bits + mantissa_bits))
    sign = np.where(codes >> (exponent_bits + mantissa_bits) & 1, -1.0, 1.0)
    exponent = codes >> mantissa_bits & (2**exponent_bits - 1)
    mantissa = (codes & (2**mantissa_bits - 1)) / 2**mantissa_bits
    value = sign * np.where(exponent == 0, mantissa * 2.0 ** (1 - bias), (1 + mantissa) * 2.0 ** (exponent - bias))
    value[list(nan)] = np.copysign(np.nan, sign[list(nan)])
    return value.astype(np.float32)


#: Values by code: f4e2m1 (no infinity or NaN), f8e4m3 (OpenVINO's is E4M3FN: NaN at S.1111.111, no infinity),
#: f8e5m2 (the high byte of an f16), f8e8m0 (2**(code-127), NaN at 255).
_CODES = {
    "f4e2m1": _float_codes(2, 1, 1, set()),
    "f8e4m3": _float_codes(4, 3, 7, {0x7F, 0xFF}),
    "f8e5m2": (np.arange(256, dtype=np.uint16) << 8).view(np.float16).astype(np.float32),
    "f8e8m0": np.append(2.0 ** (np.arange(255) - 127.0), np.nan).astype(np.float32),
    "nf4": NF4_VALUES,
}
#: The numpy type of an array of bf16 values: float32, which holds each exactly (a bf16 value is the upper half of an
#: f32 one), tagged bf16 in its metadata. numpy keeps the tag through views and most ufuncs and drops it in others
#: (``astype``, ``concatenate``), so it says nothing of a kernel's result: the executor rounds each output a layer
#: declares bf16 (``to_bf16``) and strips the tag from any other (``untagged``).
BF16 = np.dtype(np.float32, metadata={"element_type": "bf16"})

#: The numpy type each such element type's values are held in.
VALUE_DTYPES = {"u1": np.uint8, "u2": np.uint8, "u3": np.uint8, "u4": np.uint8, "u6": np.uint8, "i4": np.int8,
                "nf4": np.float32, "f4e2m1": np.float32, "f8e4m3": np.float32, "f8e5m2": np.float32,
                "f8e8m0": np.float32, "bf16": BF16}


def held_dtype(et: ElementType) -> np.dtype | None:
    """The numpy type the reference computes ``et`` in: numpy's own, ``BF16`` for bf16; None for the others (packed
    integers, f8, f4: held as values of Consts, not computed)."""
    return np.dtype(et.numpy) if et.numpy is not None else BF16 if et.name == "bf16" else None


def is_bf16(dtype: np.dtype) -> bool:
    """Whether ``dtype`` is ``BF16``: an array of bf16 values."""
    return dtype.metadata is not None and dtype.metadata.get("element_type") == "bf16"


def untagged(values: np.ndarray) -> np.ndarray:
    """``values`` without the bf16 tag (a float32 view), as anything but a bf16 tensor is held; others as they are."""
    dtype = getattr(values, "dtype", None)
    return values.view(np.float32) if dtype is not None and is_bf16(dtype) else values


def to_bf16(values: np.ndarray) -> np.ndarray:
    """``values`` rounded to bf16, as ``BF16``, as OpenVINO CPU's vcvtneps2bf16 rounds (measured on 2026.4 with
    AVX-512 BF16; tests/ops/test_bf16_conformance.py): in f32 first, then to nearest, ties to even, so that a value
    past bf16's largest by half an ulp or more is infinite; an f32 subnormal is a zero of its sign (the instruction
    treats subnormal inputs as zero); a NaN stays a NaN (quiet, its sign kept). Other CPUs and OpenVINO's constant
    folding round otherwise, within the rounding bound (``ops.rounding``, docs/SEMANTICS.md)."""
    x = np.asarray(values, np.float32)
    # computed 1-d (ascontiguousarray makes a scalar so): numpy 1.x gives a 0-d array's arithmetic as a scalar,
    # promoted to int64 beside a Python int
    bits = np.ascontiguousarray(x).view(np.uint32)
    out = bits >> 16
    out &= 1
    out += 0x7FFF
    out += bits  # (wraps only for a NaN of negative sign, replaced below)
    out &= 0xFFFF0000
    exponent = bits & 0x7F800000
    if exponent.size and exponent.min() == 0:  # zeros and subnormals: a zero of their sign
        np.bitwise_and(bits, 0x80000000, out=out, where=exponent == 0)
    if exponent.size and exponent.max() == 0x7F800000:  # infinities (rounded right above) and NaNs: quiet NaNs
        np.bitwise_and(bits | 0x00400000, 0xFFFF0000, out=out, where=(bits & 0x7FFFFFFF) > 0x7F800000)
    return out.reshape(x.shape).view(BF16)


def ov_bfloat16(values: np.ndarray) -> np.ndarray:
    """Integers (or finite normal floats) rounded to bf16 through f32 by OpenVINO's own ``ov::bfloat16(float)``
    (``round_to_nearest_even`` of openvino/core/type/bfloat16.hpp), as ``BF16``: it adds half an ulp only where the
    last bit kept is odd, so that a value past a tie whose last kept bit is even is truncated. OpenVINO CPU converts
    integers of 16 bits or more to bf16 with it (its reference Convert; measured on 4,000 values each of i16, u16, i32,
    u32, i64: all equal; 8-bit integers are exact), and folds bf16 constants with it (docs/SEMANTICS.md)."""
    bits = np.ascontiguousarray(np.asarray(values, np.float32)).view(np.uint32)  # (1-d: as ``to_bf16``)
    out = (bits & 0x00010000) >> 1
    out += bits
    out &= 0xFFFF0000
    return out.reshape(np.shape(values)).view(BF16)


def value_dtype(et: ElementType) -> np.dtype | None:
    """The numpy type that holds the values of ``et`` exactly; None for string."""
    if et.numpy is not None:
        return et.numpy
    found = VALUE_DTYPES.get(et.name)
    return None if found is None else np.dtype(found)


def numpy_dtype(name: str) -> np.dtype:
    """The numpy dtype that holds the values of the IR element type ``name`` exactly, as ir_tools decodes a Const
    (``Match.value``) and computes (``run``): ``f16`` float16, ``boolean`` bool, ``u4``/``u1`` uint8 and ``i4`` int8
    (one value per element, unpacked), ``nf4`` and the f4/f8 floats float32, ``bf16`` ``BF16`` (float32 tagged bf16).
    ``name`` as a ``<data element_type>`` or a port precision spells it (``f32``, ``FP32``). numpy has its own reading
    of such names (``np.dtype("f16")`` is float128), which is why this exists. E-ATTR for a name that is no element
    type, or ``string``."""
    et = element_type(name) if isinstance(name, str) else None  # (a number: AttributeError inside)
    dtype = None if et is None else value_dtype(et)
    if dtype is None:
        raise AttrError(f"{name!r} is not an element type numpy holds (f32, f16, bf16, i64, u4, boolean...)")
    return dtype


def element_type_of(dtype: np.dtype | type) -> str:
    """The IR element type of arrays of ``dtype``, as ``GraphBuilder.const`` writes them: float16 ``f16``, bool
    ``boolean``, ``BF16`` ``bf16``, uint8 ``u8`` (a packed type such as ``u4`` has no dtype of its own: its values
    are held as uint8). E-ATTR for a dtype no element type has (complex64, object, a byte order not the machine's)."""
    dtype = np.dtype(dtype)
    if is_bf16(dtype):
        return "bf16"
    try:
        return from_numpy(dtype).name
    except KeyError:
        hint = "" if dtype.isnative else f" (bytes not in this machine's order: astype('={dtype.str[1:]}') first)"
        raise AttrError(f"{dtype!r} is not an IR element type{hint}") from None


def unpack(et: ElementType, data: bytes | memoryview, count: int) -> np.ndarray:
    """The first ``count`` values of a payload of ``et`` (one numpy has no dtype for), flat, in ``value_dtype``."""
    raw = np.frombuffer(data, np.uint8, count=(count * et.bits + 7) // 8)
    if et.name == "bf16":
        return (np.frombuffer(raw.tobytes(), "<u2").astype(np.uint32) << 16).view(BF16)
    if et.bits == 8:
        return _CODES[et.name][raw]
    if et.name == "u1":  # the first element in the most significant bit
        return np.unpackbits(raw)[:count]
    if et.name == "u2":  # four per byte, the first in the least significant bits
        return (raw[:, None] >> np.array([0, 2, 4, 6], np.uint8) & 3).reshape(-1)[:count]
    if et.name == "u3":
        return _u3(raw, count)
    if et.name == "u6":
        return _u6(raw, count)
    nibbles = np.stack([raw & 15, raw >> 4], axis=1).reshape(-1)[:count]  # the first in the low nibble
    if et.name == "u4":
        return nibbles
    if et.name == "i4":
        return (nibbles.astype(np.int8) ^ 8) - 8
    return _CODES[et.name][nibbles]


def _u3(raw: np.ndarray, count: int) -> np.ndarray:
    """Eight values in three bytes: the low two bits of each in the first two (most significant pair first), the
    high bit of each in the third (most significant bit first)."""
    groups = np.pad(raw, (0, -len(raw) % 3)).reshape(-1, 3)
    low = (groups[:, :2, None] >> np.array([6, 4, 2, 0], np.uint8) & 3).reshape(-1, 8)
    high = np.unpackbits(groups[:, 2:], axis=1)
    return (high << 2 | low).reshape(-1)[:count]


def _u6(raw: np.ndarray, count: int) -> np.ndarray:
    """Four values in three bytes: the low four bits of each in the first two (high nibble first), the high two bits
    of each in the third (most significant pair first)."""
    groups = np.pad(raw, (0, -len(raw) % 3)).reshape(-1, 3)
    low = np.stack([groups[:, :2] >> 4, groups[:, :2] & 15], axis=2).reshape(-1, 4)
    high = groups[:, 2:] >> np.array([6, 4, 2, 0], np.uint8) & 3
    return (high << 4 | low).reshape(-1)[:count]
