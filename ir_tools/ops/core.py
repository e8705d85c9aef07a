"""Parameter, Const, Convert (and ConvertLike), Result and Identity: the plumbing every IR has.

Identity-16 (opset16 only) is a copy: OpenVINO's shape inference gives the input's element type (any, string and
dynamic included) and partial shape; CPU returns the input bit for bit (NaN payloads, -0, f64, empty and scalar
tensors; tests/ops/test_identity_conformance.py). OpenVINO's ONNX frontend writes it for an ONNX Identity it keeps,
as inside a Scan's or Loop's body.

ConvertPromoteTypes-14 converts both its inputs into the type OpenVINO's promotion table gives them (``promoted_type``),
each by Convert's kernel and rounding rule (CONVERT_PROMOTE_TYPES_14)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import Dim, Shape, format_shape, parse_shape
from ..base.dtypes import ELEMENT_TYPES, REAL_TYPES, byte_size, element_type, is_signed
from ..base.errors import OpValidationError
from ..base.packed import element_type_of, is_bf16, ov_bfloat16, to_bf16, unpack, value_dtype
from . import attrs as A
from .bounds import converted
from .rounding import EXACT, elementwise, is_exact, moves, output_rounding, unit
from .spec import Kernel, OpSpec, TensorType, never


def _element(text: str) -> str:
    """An element type as OpenVINO's reader reads one: in any case, not stripped (as ``attrs.enum``)."""
    et = element_type(text)
    if et is None or text.lower() != et.name:
        raise ValueError(text)
    return et.name


def _const_element(text: str) -> str:
    """A Const's element type, in lower case exactly: OpenVINO's reader builds it from the text by element::Type's
    constructor, which refuses 'F32' (measured on 2026.4; a Parameter's or a Convert's 'F32' is read)."""
    if _element(text) != text:
        raise ValueError(text)
    return text


ELEMENT = A.Codec("an element type such as f32, f16, i64", _element, str)
CONST_ELEMENT = A.Codec(ELEMENT.what, _const_element, str)
PARTIAL_SHAPE = A.Codec("a shape such as '1,3,224,224', '?,3,1..10,-1' or '...'", parse_shape, format_shape)


@dataclass(frozen=True, slots=True)
class ParameterAttrs:
    shape: Shape = A.attr("shape", PARTIAL_SHAPE, ())  # (omitted: a scalar, as OpenVINO's reader reads it)
    element_type: str = A.attr("element_type", ELEMENT, kw_only=True)


@dataclass(frozen=True, slots=True)
class ConstAttrs:
    element_type: str = A.attr("element_type", CONST_ELEMENT)
    shape: tuple[int, ...] = A.attr("shape", A.UINT_LIST)
    offset: int = A.attr("offset", A.PLACEMENT)
    size: int = A.attr("size", A.PLACEMENT)


@dataclass(frozen=True, slots=True)
class ConvertAttrs:
    destination_type: str = A.attr("destination_type", ELEMENT)


@dataclass(frozen=True, slots=True)
class NoAttrs:
    pass


def _parameter(a: ParameterAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    return [TensorType(a.element_type, a.shape)]


def _const(a: ConstAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    return [TensorType(a.element_type, tuple(Dim(n, n) for n in a.shape))]


def _convert(a: ConvertAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    return [TensorType(a.destination_type, inputs[0].shape)]


def _result(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    return []


_I32_MIN, _I32_END = -(2**31), 2**31


def convert_values(value: np.ndarray, destination: str, folded: bool = False) -> np.ndarray:
    """Convert as OpenVINO CPU does (measured on 2026.4): floats to integers truncate toward zero, then wrap, NaN and
    values beyond the type they go through becoming its minimum (x86's cvttps2dq, cvttss2si). The CPU takes an f32
    (or bf16) through i32 (3e9 and NaN give i32 and i64 -2147483648, u32 2147483648, u8 0; numpy's wrap gave
    -1294967296 in i32) and a float NaN to boolean false; ``folded``, a Convert of a constant OpenVINO folds
    (``static_cast``), takes any float through i32 into a type of 32 bits or less, through i64 into i64 and u64 (3e9
    stays 3e9), and NaN to boolean true. Floats to bf16 through f32 (``to_bf16``), integers and, ``folded``, floats by
    ``ov::bfloat16``'s rule (``ov_bfloat16``: measured on 2026.4, an f32 Const's Convert to bf16 on 8,192 random bit
    patterns and the edges, NaNs and subnormals included, tests/ops/test_bf16_conformance.py)."""
    et = element_type(destination)
    if et is not None and et.name == "bf16":
        return to_bf16(value) if value.dtype.kind == "f" and not folded else ov_bfloat16(value)
    if et is None or et.numpy is None:
        raise OpValidationError(f"cannot convert to {destination}: no numpy equivalent")
    if et.numpy == np.bool_ and value.dtype.kind == "f" and not folded:
        with np.errstate(invalid="ignore"):
            return np.asarray((value != 0) & ~np.isnan(value))
    if np.issubdtype(et.numpy, np.integer) and np.issubdtype(value.dtype, np.floating):
        with np.errstate(invalid="ignore"):
            whole = np.trunc(value)
            if et.numpy.itemsize <= 4 if folded else value.dtype == np.float32:
                whole = np.where((whole >= _I32_MIN) & (whole < _I32_END), whole, _I32_MIN)
            value = whole.astype(np.int64)
    return value.astype(et.numpy)


def _run_convert(a: ConvertAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [convert_values(args[0], a.destination_type)]


def _fold_convert(a: ConvertAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [convert_values(args[0], a.destination_type, folded=True)]


def const_value(a: ConstAttrs, data: memoryview | bytes) -> np.ndarray:
    """A Const's value from its payload bytes (a read-only view where possible)."""
    et = element_type(a.element_type)
    if et is None or value_dtype(et) is None:
        raise OpValidationError(f"Const of element type {a.element_type} has no numpy equivalent")
    count = math.prod(a.shape)  # exact: a huge declared shape must not wrap around
    if len(data) < byte_size(et, count):
        raise OpValidationError(
            f"Const payload is {len(data)} bytes, {a.element_type}{list(a.shape)} needs {byte_size(et, count)}",
            code="E-CONST-SIZE",
        )
    if et.numpy is None:  # packed or a float numpy lacks: unpacked into a type that holds its values
        return unpack(et, data, count).reshape(a.shape)
    return np.frombuffer(data, dtype=et.numpy, count=count).reshape(a.shape)


_CONVERT_ROUNDING = elementwise(rounds=False)


def _convert_rounding(kernel: Kernel, a: ConvertAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                      outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """A float converted to a float type that holds every value of its own (f16 or bf16 to f32: NNCF's decompressed
    weights) changes nothing: an input error moves with its element as it is, no f64 pass over the corners. Others as
    an element-wise op that rounds (or truncates) the same value the same way on both sides; but a conversion to a
    narrower float (f32 to f16 or bf16, integers to either) that changes a value rounds on each side in its own way:
    OpenVINO CPU at f32 precision keeps the f32 value of an f16 tensor (of a bf16 one too on a CPU without bf16
    instructions), and rounds a constant's by ``ov::bfloat16``'s rule (docs/SEMANTICS.md), so it adds each side's
    rounding there (``_narrowed``)."""
    x, y = np.asarray(args[0]), np.asarray(outputs[0])
    if x.dtype.kind == "f" and y.dtype.kind == "f" and _holds(y.dtype, x.dtype):
        return [bounds[0]]
    bound = _CONVERT_ROUNDING(kernel, a, args, bounds, outputs)[0]
    if unit(y.dtype) > unit(np.dtype(np.float32)):
        return [_narrowed(bound, x, y)]
    if is_exact(bounds[0]) or y.dtype.kind not in "biu":
        return [bound]
    return [np.maximum(bound, _jumps(x, y, np.broadcast_to(bounds[0], x.shape)))]


def _holds(wide: np.dtype, narrow: np.dtype) -> bool:
    """Whether float type ``wide`` holds every value of float type ``narrow`` (bf16, ``BF16``: f32 and f64 do)."""
    if is_bf16(wide) or is_bf16(narrow):
        return is_bf16(narrow) and (is_bf16(wide) or wide.itemsize >= 4)
    return bool(np.can_cast(narrow, wide, "safe"))


def _narrowed(bound: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``bound`` plus both sides' rounding (``output_rounding``) where the conversion of x to the narrower float y
    (f16, bf16) changed a value (NaN stays NaN); integers of one byte are exact in either (NNCF's weights)."""
    if x.dtype.kind in "iub" and x.dtype.itemsize == 1:
        return bound
    with np.errstate(invalid="ignore"):
        changed = x != y
        if x.dtype.kind == "f":
            changed &= ~np.isnan(x)
    if not changed.any():
        return bound
    return bound + np.where(changed, output_rounding(y), EXACT)


def _jumps(x: np.ndarray, y: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How far a conversion to an integer type or boolean can move past what the ends of [x - b, x + b] give: where
    the interval holds another wrap of the type (``convert_values`` wraps), the output can be any value of the type;
    where it holds 0 and y is true, false. 0 elsewhere."""
    with np.errstate(invalid="ignore", over="ignore"):
        if y.dtype.kind == "b":
            return np.where((x - b <= 0) & (x + b >= 0) & y, 1.0, 0.0)
        lo, hi = np.trunc(x - b), np.trunc(x + b)
        info = np.iinfo(y.dtype)
        span = float(info.max) - float(info.min) + 1.0
        wraps = np.floor((lo - info.min) / span) != np.floor((hi - info.min) / span)
        farthest = np.maximum(y.astype(np.float64) - info.min, info.max - y.astype(np.float64))
    return np.where(wraps, farthest, 0.0)


PARAMETER_1 = OpSpec("Parameter", "Parameter-1", ParameterAttrs, (0, 0), 1, _parameter)
CONST_1 = OpSpec("Const", "Const-1", ConstAttrs, (0, 0), 1, _const)
CONVERT_1 = OpSpec("Convert", "Convert-1", ConvertAttrs, (1, 1), 1, _convert, _run_convert,
                   rounding=_convert_rounding, folded=_fold_convert, bounds=converted, float_bounds=True)
RESULT_1 = OpSpec("Result", "Result-1", NoAttrs, (1, 1), 0, _result)


def _convert_like(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """ConvertLike-1: the data's partial shape in the element type of ``like`` (any type, dynamic included, on either
    input: measured on openvino 2026.4.1, string and u1 too)."""
    return [TensorType(inputs[1].element, inputs[0].shape)]


def _like(kernel: Kernel) -> Kernel:
    """Convert's ``kernel`` into the element type of the second input's values."""

    def run(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        return kernel(ConvertAttrs(element_type_of(np.asarray(args[1]).dtype)), args[:1])

    return run


def _convert_like_rounding(kernel: Kernel, a: NoAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                           outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Convert's rule into the element type of ``like``'s values, as the kernel: its values and bound move nothing."""
    attrs = ConvertAttrs(element_type_of(np.asarray(args[1]).dtype))
    return _convert_rounding(_run_convert, attrs, args[:1], bounds[:1], outputs)


#: ConvertLike-1 (opset1..16): Convert into the element type of its second input. OpenVINO CPU replaces it by that
#: Convert (``ConvertConvertLike``): measured on 2026.4.1, bit for bit Convert's results from f32 (NaN, +-inf, 3e9,
#: halves, 8-bit wraps) into i8/u8/i16/u16/i32/u32/i64/u64/boolean/f16/f64 and from i32/i64/u8/boolean/f16 into
#: f32/i8/u8/boolean/f16 (tests/ops/test_small_ops_conformance.py). A bf16 ``like`` reaches the kernel as f32 values
#: (the executor holds bf16 so), and the layer's bf16 output port rounds the result (``executor.as_held``); a packed
#: ``like`` (u4, i4, nf4...) reaches it as the bytes' type (u8, i8): not modelled. ``folded`` where both inputs are
#: known (the executor's rule); OpenVINO folds the Convert it makes of a Const data beside a fed ``like`` too.
CONVERT_LIKE_1 = OpSpec("ConvertLike", "ConvertLike-1", NoAttrs, (2, 2), 1, _convert_like, _like(_run_convert),
                        rounding=_convert_like_rounding, folded=_like(_fold_convert), evaluates=never)


@dataclass(frozen=True, slots=True)
class ConvertPromoteTypesAttrs:
    promote_unsafe: bool = A.attr("promote_unsafe", A.BOOL, False)
    pytorch_scalar_promotion: bool = A.attr("pytorch_scalar_promotion", A.BOOL, False)
    u64_integer_promotion_target: str = A.attr("u64_integer_promotion_target", ELEMENT, "f32")


#: The element types ConvertPromoteTypes-14 takes (``is_type_supported``; dynamic too): any other is refused.
_PROMOTABLE = frozenset({"boolean", "f16", "f32", "f64", "bf16", "f8e4m3", "f8e5m2", "i4", "i8", "i16", "i32", "i64",
                         "u1", "u4", "u8", "u16", "u32", "u64"})


def promoted_type(t0: str | None, t1: str | None, ranks: Sequence[int | None], a: ConvertPromoteTypesAttrs
                  ) -> str | None:
    """The element type ConvertPromoteTypes-14 converts both inputs into, as OpenVINO's ``evaluate_common_type``
    decides it (None: dynamic, where an input's is, and with pytorch_scalar_promotion where a rank is dynamic and the
    types are of one format, which a scalar would decide); OpValidationError where it refuses the pair. ``ranks``: the
    inputs' (None: dynamic)."""
    for t in (t0, t1):
        if t is not None and t not in _PROMOTABLE:
            raise OpValidationError(f"ConvertPromoteTypes of element type {t}: not one it promotes")
    if t0 is None or t1 is None:
        return None
    if t0 == t1 or t1 == "boolean":
        return t0
    if t0 == "boolean":
        return t1
    bits0, bits1 = _bits(t0), _bits(t1)
    if (t0 in REAL_TYPES) != (t1 in REAL_TYPES):
        real, integer = (t0, t1) if t0 in REAL_TYPES else (t1, t0)
        if not a.promote_unsafe and _bits(real) < 2 * _bits(integer):
            raise OpValidationError(f"ConvertPromoteTypes of {integer} and {real}: the integer cannot be safely "
                                    "promoted to the real type (promote_unsafe is false)")
        return real
    if a.pytorch_scalar_promotion and None in ranks:
        return None
    if a.pytorch_scalar_promotion and (ranks[0] == 0) != (ranks[1] == 0):
        target, scalar = (t1, t0) if ranks[0] == 0 else (t0, t1)
        if not a.promote_unsafe and not (
                (is_signed(target) == is_signed(scalar) and _bits(target) >= _bits(scalar))
                or (is_signed(target) and not is_signed(scalar) and 2 * _bits(target) >= _bits(scalar))):
            raise OpValidationError(f"ConvertPromoteTypes of a {scalar} scalar and a {target} tensor: the scalar "
                                    "cannot be aligned PyTorch-like by safe promotion")
        return target
    if is_signed(t0) != is_signed(t1):
        unsigned, signed = (bits1, bits0) if is_signed(t0) else (bits0, bits1)
        if unsigned <= 32 and (a.promote_unsafe or 2 * unsigned <= signed):
            return f"i{max(2 * unsigned, signed)}"
        if not a.promote_unsafe:
            raise OpValidationError(f"ConvertPromoteTypes of {t0} and {t1}: the unsigned type cannot be safely "
                                    "promoted into a signed one")
        return a.u64_integer_promotion_target
    if bits0 != bits1:
        return t0 if bits0 > bits1 else t1
    if a.promote_unsafe and {t0, t1} in ({"f8e4m3", "f8e5m2"}, {"f16", "bf16"}):
        return "f16" if bits0 == 8 else "f32"
    raise OpValidationError(f"ConvertPromoteTypes of {t0} and {t1}: no common type with these attributes")


def _bits(t: str) -> int:
    return ELEMENT_TYPES[t].bits  # (one of _PROMOTABLE)


def _rank(shape: Shape) -> int | None:
    return None if shape is None else len(shape)


def _convert_promote_types(a: ConvertPromoteTypesAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    target = promoted_type(inputs[0].element, inputs[1].element, [_rank(t.shape) for t in inputs], a)
    return [TensorType(target, t.shape) for t in inputs]


def _values_target(a: ConvertPromoteTypesAttrs, args: Sequence[np.ndarray]) -> str:
    """The common type of the inputs' values, by ``promoted_type`` as promote_unsafe (a pair the shape rule took
    promotes to the same type either way, and a bf16 input, held as f32, then promotes as bf16 does: see
    CONVERT_PROMOTE_TYPES_14)."""
    xs = [np.asarray(x) for x in args]
    target = promoted_type(*(element_type_of(x.dtype) for x in xs), [x.ndim for x in xs],
                           ConvertPromoteTypesAttrs(True, a.pytorch_scalar_promotion, a.u64_integer_promotion_target))
    assert target is not None  # (values have types)
    return target


def _run_convert_promote_types(a: ConvertPromoteTypesAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Convert's kernel of each input into the inputs' common type (``_values_target``); a float beyond the
    narrower float type (pytorch_scalar_promotion of an f32 scalar into f16) becomes its infinity, silently."""
    attrs = ConvertAttrs(_values_target(a, args))
    with np.errstate(over="ignore"):
        return [_run_convert(attrs, [x])[0] for x in args]


def _convert_promote_types_rounding(kernel: Kernel, a: ConvertPromoteTypesAttrs, args: Sequence[np.ndarray],
                                    bounds: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Convert's rule per output: each is its input converted into the common type."""
    attrs = ConvertAttrs(_values_target(a, args))
    return [_convert_rounding(_run_convert, attrs, [x], [b], [y])[0]
            for x, b, y in zip(args, bounds, outputs, strict=True)]


#: ConvertPromoteTypes-14 (opset14..16): both inputs converted into one element type (``promoted_type``), each
#: output of its input's partial shape. Measured on openvino 2026.4.1 (tests/ops/test_promote_shift_conformance.py):
#: the common type is ``evaluate_common_type``'s over every pair of the 18 types it takes, dynamic, and types it
#: refuses, every attribute and rank pattern; with pytorch_scalar_promotion, inputs of one format (both real or both
#: integer) and a dynamic rank on either side give a dynamic type (a scalar would decide it; an older revision of
#: OpenVINO's source tested for a static scalar only). OpenVINO CPU computes it as a Convert of each input
#: (``convert_values``): bit for bit on the 12 types numpy holds, fed and of Constants (folded); no float is ever
#: promoted into an integer type or boolean, where alone a folded Convert differs from a fed one, so one kernel does
#: for both. The kernel finds the common type from the values' types and ranks: a bf16 input, held as f32
#: (``executor.as_held`` rounds a bf16 output), promotes as f32 does with promote_unsafe, as bf16 does; a packed input
#: (u1, u4, i4, f8), held as the bytes' type, and an input of a dynamic rank that turns out a scalar under
#: pytorch_scalar_promotion, are not modelled.
CONVERT_PROMOTE_TYPES_14 = OpSpec("ConvertPromoteTypes", "ConvertPromoteTypes-14", ConvertPromoteTypesAttrs, (2, 2),
                                  2, _convert_promote_types, _run_convert_promote_types,
                                  rounding=_convert_promote_types_rounding, evaluates=never)

def _identity(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    return [TensorType(inputs[0].element, inputs[0].shape)]


def _run_identity(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.array(args[0], copy=True)]


IDENTITY_16 = OpSpec("Identity", "Identity-16", NoAttrs, (1, 1), 1, _identity, _run_identity, rounding=moves(),
                     evaluates=never)
