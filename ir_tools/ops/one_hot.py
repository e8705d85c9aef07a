"""OneHot-1 and OneHot-16: attributes, shape rule, reference kernel and rounding rule (one of each: OneHot-16's
``negative_indices_mode`` decides negative indices in the kernel, nothing else).

Checked against the installed openvino (shape rule and CPU kernel) by tests/ops/test_one_hot_conformance.py.
Measured on OpenVINO 2026.4.1, beyond its specification:

- OneHot-1 is in opset1..15, OneHot-16 in opset16 (not opset17); a missing ``axis`` reads as 0. A missing
  ``negative_indices_mode`` reads as ignore_negative, any case of its two values is read ("NORMALIZE"), another
  value is refused (" normalize" too, which the shared enum codec reads). Both versions have one shape inference
  (``OneHotBase``).
- Shape inference takes indices and depth of any type but a real one (boolean, u1, i4, u8 and a dynamic type pass;
  a boolean Const depth it cannot read as a dim and refuses); on_value and off_value of one type (a dynamic one
  passes) and the output of on_value's, dynamic if on_value's is even where off_value's is known. depth, on_value
  and off_value must be scalars where their shape is static ([1] is refused); a dynamic one ([?]) passes. The axis
  is within [-r - 1, r] (r the indices' rank); the depth dim is inserted there, its value where depth is known (a
  negative one refused, 0 allowed), else dynamic; indices of a dynamic rank give a dynamic rank.
- CPU gives off_value where an index is negative or at depth or beyond (as the reference implementation does).
  It compiles no 8-bit indices (i8, u8, boolean: "Only I32 is supported"): the reference refuses them
  (UnsupportedError); i16, u16, u32, u64 and i64 it takes, fed indices in 32 bits (an i64 2^32 + 1 is 1 there, a
  Const one is folded by the evaluator and is out of range): the reference keeps their values. A fed depth of shape
  [?] it reads by its first element (one it is fed empty: by a stale value): the reference takes a depth of one
  element only, of any shape; a negative fed depth it refuses when it runs, as the reference does. It reads
  depth in 32 bits (a fed 2^32 + 2 is 2, a Const one it cannot allocate): the reference refuses a depth beyond
  2^31 - 1 (UnsupportedError). on_value and off_value of any type move bit for bit (NaN, -0.0; 64-bit integers
  within 32 bits: CPU saturates an i64 or u64 Const beyond them and wraps a fed one, f64 it holds in f32); fed of
  shape [?], they must be scalars when it runs. It refuses to compile scalar indices beside a fed depth ("incorrect
  number of input/output dimensions"), a graph fact the kernel does not see.
- OneHot-16 with normalize: CPU counts an index in [-depth, -1] from the end (depth + index) and gives off_value for
  one below -depth, as the reference implementation does; the rest is OneHot-1's (8-bit indices, depth, values).
  As it reads fed indices in 32 bits, a fed u32, u64 or i64 index whose low 32 bits are in [-depth, -1] is on
  there (u32 2^32 - 1 is depth - 1): the reference, as OpenVINO's evaluator and CPU on a Const, keeps their
  values, so no unsigned index is negative.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .operands import ints, normalize_axis
from .rounding import moves
from .spec import I32_I64, OpSpec, TensorType, on

#: The largest depth OpenVINO CPU reads (in 32 bits).
_DEPTH_MAX = 2**31 - 1


@dataclass(frozen=True, slots=True)
class OneHotAttrs:
    axis: int = A.attr("axis", A.INT, 0)


@dataclass(frozen=True, slots=True)
class OneHot16Attrs:
    axis: int = A.attr("axis", A.INT, 0)
    negative_indices_mode: str = A.attr("negative_indices_mode", A.enum("ignore_negative", "normalize"),
                                        "ignore_negative")


def _one_hot(a: OneHotAttrs | OneHot16Attrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """one_hot_shape_inference.hpp and OneHot::validate_and_infer_types (module doc)."""
    indices, depth, on, off = inputs
    for t, what in ((indices, "indices"), (depth, "depth")):
        if t.element in REAL_TYPES:
            raise OpValidationError(f"{what} must be of an integral element type, got {t.element}")
    if on.element is not None and off.element is not None and on.element != off.element:
        raise OpValidationError(f"on_value of {on.element} and off_value of {off.element}: they must be of one type")
    for t, what in ((depth, "depth"), (on, "on_value"), (off, "off_value")):
        if t.shape and all(d.is_static for d in t.shape):
            raise OpValidationError(f"{what} must be a scalar, got shape {[d.lo for d in t.shape]}")
    if indices.shape is None:
        return [TensorType(on.element, None)]
    axis = normalize_axis(a.axis, len(indices.shape) + 1)  # (of the output, which has the depth dim)
    dim = DYNAMIC
    if values[1] is not None:
        if values[1].dtype == np.bool_:
            raise OpValidationError("a boolean depth Const: OpenVINO cannot read it as a dim")
        lengths = ints(values[1])
        if any(n < 0 for n in lengths):
            raise OpValidationError(f"depth {lengths} is negative")
        if len(lengths) == 1:
            dim = Dim(lengths[0], lengths[0])
    return [TensorType(on.element, indices.shape[:axis] + (dim,) + indices.shape[axis:])]


def _run_one_hot(a: OneHotAttrs | OneHot16Attrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """on_value where the depth axis' position equals the index, off_value elsewhere (an index that is negative or
    at depth or beyond: off_value everywhere). With OneHot-16's normalize, a negative index counts from the end
    first (one below -depth stays negative)."""
    idx, depth_value, on_value, off_value = args
    if idx.dtype.kind not in "iub" or depth_value.dtype.kind not in "iub":
        raise OpValidationError(f"indices of {idx.dtype} and depth of {depth_value.dtype}: they must be integral")
    if idx.dtype.itemsize == 1:
        raise UnsupportedError(f"indices of {idx.dtype}: OpenVINO CPU compiles no 8-bit indices")
    if on_value.dtype != off_value.dtype or on_value.ndim or off_value.ndim:
        raise OpValidationError(f"on_value {on_value.dtype}{list(on_value.shape)} and off_value "
                                f"{off_value.dtype}{list(off_value.shape)}: they must be scalars of one type")
    if depth_value.size != 1:  # (CPU reads a depth of shape [1], fed as [?])
        raise OpValidationError(f"depth must hold one value, got shape {list(depth_value.shape)}")
    depth = int(depth_value.reshape(()))
    if depth < 0:
        raise OpValidationError(f"depth {depth} is negative")
    if depth > _DEPTH_MAX:
        raise UnsupportedError(f"depth {depth}: OpenVINO CPU reads it in 32 bits")
    axis = normalize_axis(a.axis, idx.ndim + 1)
    at = idx.astype(np.int64)  # (a u64 beyond i64 wraps negative: out of range either way)
    if getattr(a, "negative_indices_mode", "ignore_negative") == "normalize":
        at = np.where(idx < 0, at + depth, at)
    hot = np.expand_dims(at, axis) == np.arange(depth).reshape((depth,) + (1,) * (idx.ndim - axis))
    return [np.where(hot, on_value, off_value).astype(on_value.dtype, copy=False)]


ONE_HOT_1 = OpSpec("OneHot", "OneHot-1", OneHotAttrs, (4, 4), 1, _one_hot, _run_one_hot, (1,), rounding=moves(2, 3),
                   evaluates=on(I32_I64))
ONE_HOT_16 = OpSpec("OneHot", "OneHot-16", OneHot16Attrs, (4, 4), 1, _one_hot, _run_one_hot, (1,),
                    rounding=moves(2, 3), evaluates=on(I32_I64))
