"""Eye-9: attributes, shape rule, reference kernel and rounding rule.

``y[..., r, c] = 1 if c - r == diagonal_index else 0`` of shape ``batch_shape + [num_rows, num_columns]``: a diagonal
index above 0 shifts the ones right, below 0 down, beyond the matrix it leaves zeros. Checked against the installed
openvino (shape rule and CPU kernel) by tests/ops/test_eye_conformance.py. Measured on OpenVINO 2026.4.1, beyond its
specification:

- Every input must be i32 or i64 (a dynamic element type is refused too). num_rows, num_columns and diagonal_index
  of a static shape must be scalars or of shape [1]; of a dynamic one ([?], [2..5], [?,?], a dynamic rank) they pass.
  batch_shape must be of rank 1 (a dynamic rank passes); of a shape not static ([?]) the output has a dynamic rank,
  and nothing more is checked (a negative Const num_rows passes).
- A known num_rows or num_columns below 0 is refused ("Value -1 not in range"); unknown, its dim is dynamic (bounds
  are not read: OpenVINO's bounds of a computed count leave the layer to OpenVINO, passes/shapes.py rule 4). A
  known batch_shape gives its dims as ``Dimension(v)`` does: -1 dynamic, another negative value 0, INT64_MAX the empty
  interval (which the rule cannot hold: None); unknown, that many dynamic dims.
- A missing output_type is read as a dynamic element type; any element type is read, but the CPU plugin compiles only
  f32, f16, bf16, f64, the integers of 8 bits or more and boolean (i4 and u4 it gives packed, which the reference
  does not hold), and no output of a dynamic rank.
- CPU reads every input in 32 bits: a fed i64 diagonal_index beyond them wraps (2^32 + 1 is 1), a Const one
  saturates (all zeros), and a count beyond them wraps (2^32 + 2 rows are 2). It refuses a negative num_rows,
  num_columns or batch_shape value when it runs ("Value -2 not in range"), and a count of shape [?] fed with other
  than one value. It does not run an Eye with an empty batch_shape unless all its inputs are Consts (folded): a node
  with an input of no element is skipped, its output left as the memory was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dtypes import element_type
from ..base.errors import OpValidationError, UnsupportedError
from ..base.packed import held_dtype
from . import attrs as A
from .core import ELEMENT
from .intervals import ANY, Iv, canon, guarded, to_dim
from .operands import ints
from .rounding import exact
from .spec import OpSpec, TensorType

#: The inputs' names, in order (OpenVINO's messages name them so).
_NAMES = ("num_rows", "num_columns", "diagonal_index", "batch_shape")
#: The output types OpenVINO CPU compiles an Eye of (its node's five, and those its precision conversion maps there).
_CPU_OUTPUT_TYPES = frozenset({"f32", "f16", "bf16", "f64", "i4", "u4", "i8", "u8", "i16", "u16", "i32", "u32", "i64",
                               "u64", "boolean"})
_INT32_MAX = 2**31 - 1


@dataclass(frozen=True, slots=True)
class EyeAttrs:
    output_type: str | None = A.attr("output_type", ELEMENT, None)


def _infer(a: EyeAttrs, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
    """eye_shape_inference.hpp and Eye::validate_and_infer_types (module doc)."""
    for name, t in zip(_NAMES, inputs, strict=False):
        if t.element not in ("i32", "i64"):
            raise OpValidationError(f"{name} must be of element type i32 or i64, got {t.element or 'a dynamic one'}")
    for name, t in zip(_NAMES[:3], inputs[:3], strict=True):
        if t.shape is not None and all(d.is_static for d in t.shape) and (len(t.shape) > 1 or
                                                                          any(d.lo != 1 for d in t.shape)):
            raise OpValidationError(f"{name} must be a scalar or of shape [1], got shape {[d.lo for d in t.shape]}")
    dims: list[Iv] = []
    if len(inputs) == 4:
        batch = inputs[3].shape
        if batch is not None and len(batch) != 1:
            raise OpValidationError(f"batch_shape must be 1-D, got rank {len(batch)}")
        if batch is None or not batch[0].is_static:
            return [TensorType(a.output_type, None)]
        dims = [ANY] * batch[0].lo if values[3] is None else [ANY if v == -1 else canon(v, v)  # (Dimension(v))
                                                              for v in ints(values[3])]
    for i in (0, 1):
        if values[i] is None:
            dims.append(ANY)
            continue
        count = _one_value(_NAMES[i], values[i])
        if count < 0:
            raise OpValidationError(f"{_NAMES[i]} {count} is negative")
        dims.append((count, count))
    return [TensorType(a.output_type, tuple(to_dim(d) for d in dims))]


def _one_value(name: str, value: np.ndarray) -> int:
    """The one value of a count or of the diagonal index (a scalar or of shape [1])."""
    found = ints(value)
    if len(found) != 1:
        raise OpValidationError(f"{name} must hold one value, got shape {list(np.shape(value))}")
    return found[0]


def _run_eye(a: EyeAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """OpenVINO CPU's Eye: ones where column - row is the diagonal index, repeated over batch_shape. What CPU reads
    otherwise than the specification (in 32 bits; an empty batch_shape it does not run) is refused (module doc)."""
    et = element_type(a.output_type or "")
    dtype = None if et is None else held_dtype(et)
    if dtype is None:
        raise UnsupportedError(f"Eye of output_type {a.output_type}: the reference holds no such values")
    for name, x in zip(_NAMES, args, strict=False):
        if x.dtype not in (np.int32, np.int64):
            raise OpValidationError(f"{name} must be of element type i32 or i64, got {x.dtype}")
    rows, columns, diagonal = (_one_value(name, x) for name, x in zip(_NAMES[:3], args[:3], strict=True))
    if len(args) == 4 and args[3].ndim != 1:
        raise OpValidationError(f"batch_shape must be 1-D, got shape {list(args[3].shape)}")
    batch = ints(args[3]) if len(args) == 4 else []
    for name, count in (("num_rows", rows), ("num_columns", columns), *(("batch_shape", n) for n in batch)):
        if count < 0:
            raise OpValidationError(f"{name} {count} is negative")
        if count > _INT32_MAX:
            raise UnsupportedError(f"{name} {count}: OpenVINO CPU reads it in 32 bits")
    if len(args) == 4 and not batch:
        raise UnsupportedError("Eye of an empty batch_shape: OpenVINO CPU does not run it (an input of no element) "
                               "unless all its inputs are Consts, and leaves its output as the memory was")
    wrapped = (diagonal + 2**31) % 2**32 - 2**31
    if wrapped != diagonal and np.eye(rows, columns, wrapped).any():
        raise UnsupportedError(f"diagonal_index {diagonal}: OpenVINO CPU reads a fed one in 32 bits ({wrapped}, on "
                               "the matrix), a Const one saturated (beyond it)")
    return [np.broadcast_to(np.eye(rows, columns, diagonal, dtype), (*batch, rows, columns)).copy()]


def _cpu_cannot_compile(a: EyeAttrs, read: frozenset[int]) -> str | None:
    """An output_type OpenVINO's CPU plugin has no Eye of ("doesn't support demanded output precision"; measured on
    2026.4): u1, u2, u3, u6, nf4, the f4 and f8 types, string, and a dynamic one (output_type missing)."""
    if a.output_type in _CPU_OUTPUT_TYPES:
        return None
    said = "missing (a dynamic element type)" if a.output_type is None else a.output_type
    return (f"output_type is {said}: OpenVINO's CPU plugin has no Eye of it (\"doesn't support demanded output "
            "precision\"); write f32, i32, i64, ...")


def _cpu_refuses(a: EyeAttrs, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> str | None:
    """What OpenVINO's CPU plugin refuses of an Eye its shape inference takes (measured on 2026.4): a batch_shape of a
    shape not static (the output's rank is dynamic: "doesn't support Eye operation with dynamic rank"), and a Const
    batch_shape holding a value below 0 ("Value -1 not in range" when it runs) but where every input is a Const and
    none is -1 (folded, a value below -1 as 0)."""
    if len(inputs) < 4:
        return None
    batch = inputs[3].shape
    if batch is None or (len(batch) == 1 and not batch[0].is_static):
        return ("batch_shape is of a shape not static: the output's rank is dynamic, and OpenVINO's CPU plugin "
                "compiles no Eye of a dynamic rank")
    given = [] if values[3] is None else ints(values[3])
    folded = all(v is not None for v in values) and -1 not in given
    if any(v < 0 for v in given) and not folded:
        return (f"batch_shape {given} holds a negative value: OpenVINO's CPU plugin refuses it when it runs (\"Value "
                f"{min(given)} not in range\")")
    return None


EYE_9 = OpSpec("Eye", "Eye-9", EyeAttrs, (3, 4), 1, guarded(_infer), _run_eye, (0, 1, 3), rounding=exact,
               crashes=_cpu_cannot_compile, cpu_refuses=_cpu_refuses)
