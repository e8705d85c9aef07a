"""Range-1 and Range-4: attributes, shape rules and reference kernels (the module is not named ``range``,
which would shadow the builtin where it is imported).

Shape rules are OpenVINO's shape inference (src/core/shape_inference), interval bounds included
(ops/intervals.py), checked against the installed openvino by tests/ops/test_shaping_conformance.py; kernels are
checked there against OpenVINO CPU. Measured on OpenVINO 2026.4.1, beyond its specification: Range-4
refuses a zero step as Range-1 does (its specification allows one), but a step that an integer
output_type truncates to zero (-0.75 to i64) gives 0 elements. Its output_type may be missing (the
output type is then dynamic), which the CPU plugin can neither compile nor run (check refuses it). Fed
start, stop and step the CPU counts ceil(|stop - start| / |step|) elements whichever way step points, and computes
float ones in f32 for an integer output type, rounded and clamped (``_run_fed``, the kernel; a value near a tie it
refuses); known at shape inference, OpenVINO folds
the layer as the shape rule counts (``_fold``, docs/SEMANTICS.md, ``OpSpec.folded``). A start, stop or step
OpenVINO bounds but cannot compute (ops/bounds.py) both versions read as unknown, ``[?]`` (``reads_bounds``: the rule
is given the bounds and reads none; tests/passes/test_value_bounds.py), an exact one as its constant.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.dtypes import INTEGER_TYPES, REAL_TYPES
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .core import ELEMENT, NoAttrs
from .intervals import guarded
from .operands import same_elements
from .rounding import exact
from .spec import OpSpec, TensorType

#: What Range takes: OpenVINO's integral numbers (nf4 among them) and real types.
_RANGE_TYPES = INTEGER_TYPES | REAL_TYPES | {"nf4"}


# --- Range ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Range4Attrs:
    output_type: str | None = A.attr("output_type", ELEMENT, None)


def _range_checks(values: Sequence[float | None]) -> None:
    """OpenVINO checks each known value: finite, and a step not zero (Range-4 too, whatever its spec says)."""
    for name, v in zip(("start", "stop", "step"), values, strict=True):
        if v is not None and not math.isfinite(v):
            raise OpValidationError(f"{name} {v} is not finite")
    if values[2] == 0:
        raise OpValidationError("step must not be zero")


def _range_count(start: float, stop: float, step: float, integral_out: bool) -> int | None:
    """OpenVINO's element count, max(ceil((stop - start) / step), 0) after truncating the inputs of an integer
    output; a step truncated to zero gives 0 elements (measured); None for a count beyond uint32."""
    if integral_out:
        start, stop, step = math.trunc(start), math.trunc(stop), math.trunc(step)
    if step == 0:
        return 0
    span = 0 if (step > 0 and start >= stop) or (step < 0 and start <= stop) else stop - start
    count = math.ceil(abs(span) / abs(step))
    return count if count < 2**32 else None


def _range_scalar(value: np.ndarray) -> float:
    flat = np.asarray(value).reshape(-1)
    if flat.size != 1:
        raise OpValidationError(f"expected a single value, got {flat.size}")
    return float(flat[0])


def _range(v4: bool):
    def infer(a, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
        for name, t in zip(("start", "stop", "step"), inputs, strict=True):
            if t.shape is not None and len(t.shape) != 0:
                raise OpValidationError(f"{name} must be a scalar, got rank {len(t.shape)}")
            if t.element is not None and t.element not in _RANGE_TYPES:
                raise OpValidationError(f"{name} must be numeric, got {t.element}")
        if v4:
            et = a.output_type
            if et is not None and et not in _RANGE_TYPES:
                raise OpValidationError(f"output_type must be numeric, got {et}")
        else:
            et = same_elements(inputs)
            if et in ("boolean", "u1", "i4", "u4"):
                raise OpValidationError(f"start, stop and step of element type {et} are not supported")
            if et is None:
                return [TensorType(None, (DYNAMIC,))]
        known = [_range_scalar(v) if isinstance(v, np.ndarray) else None for v in values]  # (bounds: not read)
        _range_checks(known)
        if any(v is None for v in known):
            return [TensorType(et, (DYNAMIC,))]
        integral_out = (et in INTEGER_TYPES) if v4 else (inputs[0].element in INTEGER_TYPES)
        count = _range_count(*known, integral_out)
        if count is None:
            return None
        return [TensorType(et, (Dim(count, count),))]

    return infer


def _output_dtype(a, args: Sequence[np.ndarray], v4: bool) -> np.dtype:
    """The numpy type of the output: Range-4's output_type, Range-1's inputs' one type."""
    if v4:
        if a.output_type is None:
            raise UnsupportedError("Range-4 without output_type has a dynamic output type")
        return np.dtype(_numpy_type(a.output_type))
    if len({x.dtype for x in args}) > 1:
        raise OpValidationError("start, stop and step of different element types")
    return args[0].dtype


def _run_fed(v4: bool):
    """OpenVINO CPU's Range on values fed when it runs (measured): ceil(|stop - start| / |step|) elements whichever
    way step points (Range(0, -3, 1) is [0, 1, 2]), in the inputs' arithmetic: integers exactly, floats in f32
    (start + i * step, rounded to nearest for an integer output_type: Range-4(0.5, 3.7, 0.9) to i32 is [0, 1, 2, 3])."""
    def run(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        dtype = _output_dtype(a, args, v4)
        start, stop, step = (_range_scalar(x) for x in args)
        _range_checks([start, stop, step])
        if all(x.dtype.kind in "iu" for x in args):
            first, last, delta = (int(x.reshape(())) for x in args)
            count = -(-abs(last - first) // abs(delta))
            if count >= 2**32:
                raise UnsupportedError(f"Range from {start} to {stop} by {step}: more than 2**32 elements")
            with np.errstate(over="ignore"):
                return [_saturated(first + np.arange(count, dtype=np.int64) * delta, dtype)]
        first, last, delta = (np.float32(v) for v in (start, stop, step))
        span = np.ceil(np.abs((last - first) / delta))
        if not span < 2**32:
            raise UnsupportedError(f"Range from {start} to {stop} by {step}: more than 2**32 elements")
        values = first + np.arange(int(span), dtype=np.float32) * delta
        if dtype.kind in "iu":
            _refuse_near_ties(values, float(first), float(delta))
            return [_saturated(np.rint(values), dtype)]
        return [values.astype(dtype)]

    return run


def _refuse_near_ties(values: np.ndarray, first: float, delta: float) -> None:
    """Refuse (not checked) float values rounded to an integer output that lie within the CPU's rounding of a tie
    (x.5): it adds the steps up per thread, so where f32 does not hold every value exactly its values may stray
    from ``values`` by an ulp a step and round the other way (measured: 4 of 200 fed cases, one element each)."""
    exact = first + np.arange(values.size, dtype=np.float64) * delta
    astray = values != exact
    if not astray.any():
        return
    band = values.size * np.finfo(np.float32).eps * float(np.max(np.abs(exact)))
    if np.any(astray & (np.abs(np.abs(exact - np.floor(exact)) - 0.5) <= band)):
        raise UnsupportedError("Range of float values to an integer type: a value lies within the CPU's rounding "
                               "of a tie (x.5), which it may round either way")


def _saturated(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``values`` in an integer ``dtype``, clamped to its range as the CPU's conversion of a fed Range's values
    clamps them (Range-4(-3, 2, 1) to u8 is [0, 0, 0, 0, 1], measured)."""
    if dtype.kind not in "iu":
        return values.astype(dtype)
    info = np.iinfo(dtype)
    return np.clip(values, max(info.min, -(2**63)), min(info.max, 2**63 - 1)).astype(dtype)


def _fold(v4: bool):
    """OpenVINO's Range on values known at shape inference (its evaluator, the shape rule's count)."""
    def run(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        dtype = _output_dtype(a, args, v4)
        start, stop, step = (_range_scalar(x) for x in args)
        _range_checks([start, stop, step])
        count = _range_count(start, stop, step, dtype.kind in "iu")
        if count is None:
            raise UnsupportedError(f"Range from {start} to {stop} by {step}: more than 2**32 elements")
        if dtype.kind in "iu":
            with np.errstate(over="ignore"):
                first = np.array(math.trunc(start) if v4 else int(args[0].reshape(())), np.int64)
                delta = np.array(math.trunc(step) if v4 else int(args[2].reshape(())), np.int64)
                return [(first + np.arange(count, dtype=np.int64) * delta).astype(dtype)]
        first = np.asarray(start, dtype) if v4 else args[0].reshape(()).astype(dtype)
        delta = np.asarray(step, dtype) if v4 else args[2].reshape(()).astype(dtype)
        with np.errstate(over="ignore"):
            return [(first + np.arange(count).astype(dtype) * delta).astype(dtype)]

    return run


def _numpy_type(name: str) -> type:
    table = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
             "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}
    if name not in table:
        raise UnsupportedError(f"Range output type {name} is not supported by the reference")
    return table[name]


# --- specs ------------------------------------------------------------------------------------------

def _without_output_type(a: Range4Attrs, read: frozenset[int]) -> str | None:
    """Range-4 without output_type: OpenVINO reads it, of a dynamic output type, but its CPU plugin cannot compile
    such a model (constant start, stop and step: "Tensor was not initialized") nor run it (Parameters: "Memory has
    not been allocated", or no kernel for what reads it), measured on 2026.4."""
    if a.output_type is not None:
        return None
    return ("output_type is missing: OpenVINO reads the layer with an output of a dynamic element type, which its "
            "CPU plugin cannot compile or run; write output_type (i64, f32, ...)")


RANGE_1 = OpSpec("Range", "Range-1", NoAttrs, (3, 3), 1, guarded(_range(False)), _run_fed(False), (0, 1, 2),
                 rounding=exact, folded=_fold(False), reads_bounds=True)
RANGE_4 = OpSpec("Range", "Range-4", Range4Attrs, (3, 3), 1, guarded(_range(True)), _run_fed(True), (0, 1, 2),
                 rounding=exact, crashes=_without_output_type, folded=_fold(True), reads_bounds=True)
