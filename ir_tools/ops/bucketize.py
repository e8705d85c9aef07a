"""Bucketize-3: attributes, shape rule, reference kernel and rounding rule (``exact``).

``y[...]`` is the bucket of ``data[...]`` among the 1-D ``buckets``: with_right_bound, the i with
buckets[i - 1] < x <= buckets[i] (std::lower_bound), else buckets[i - 1] <= x < buckets[i] (std::upper_bound).
Checked against the installed openvino by tests/ops/test_bucketize_conformance.py. Measured on openvino 2026.4.1:

- opset3..16 (not opset17). Attributes: output_type (i64 where omitted; i32 or i64, any other type refused) and
  with_right_bound (a flag, true where omitted). Shape inference: data and buckets of any element type but boolean
  (a dynamic type, string, nf4, u1 and f8 types pass; the two need not agree), buckets of rank 1 or a dynamic rank
  (any dim), the output data's partial shape (a scalar, a dynamic rank too) of output_type.
- CPU runs ``std::lower_bound`` (with_right_bound) or ``std::upper_bound`` over the buckets, so on buckets not sorted
  the answer is where that binary search ends (its probes are the kernel's, bit for bit). A NaN compares false: NaN
  data finds 0 with with_right_bound, len(buckets) without (upper_bound advances while not ``x < probe``); a NaN
  bucket sends the search left, or right; -0 equals +0; empty buckets give zeros, scalar and empty data are run.
  Floats are compared in f32 (f16 and bf16 exactly, f64 saturated into its range and rounded first: 1e300 and inf
  are the largest f32, Const or fed), integers in i32 (i64, u32 and u64 wrapped to their low 32 bits where fed,
  saturated where they are a Const, data or buckets alike, so the kernel refuses values beyond i32's range:
  UnsupportedError, compare lists the layer as not checked; the narrower ones exactly), an integer against a float as
  C++ compares them, in f32 (2^24 + 1 is 2^24). On 480 seeded cases, data and buckets each of 12 element types
  (f32, f16, bf16, f64, i32, i64, i8, u8, i16, u16, u32, u64, mostly two different ones), a quarter on unsorted
  buckets, and 26 named ones: bit for bit. (CPU flushes an f32 subnormal of a Const to zero and keeps a fed one: not
  modelled, as for every op. These are CPU's answers at ``INFERENCE_PRECISION_HINT`` f32, as ir_tools compiles: at
  the default bf16 of a CPU with AMX, f64 data beyond f32's range compared otherwise against a Const than a fed
  bucket.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.errors import OpValidationError
from . import attrs as A
from .rounding import exact
from .search_sorted import cpu_compared, probed
from .spec import OpSpec, TensorType, never


@dataclass(frozen=True, slots=True)
class BucketizeAttrs:
    output_type: str = A.attr("output_type", A.enum("i64", "i32"), "i64")
    with_right_bound: bool = A.attr("with_right_bound", A.BOOL, True)


def _infer(a: BucketizeAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """Bucketize::validate_and_infer_types and bucketize_shape_inference.hpp (the module doc)."""
    data, buckets = inputs
    for name, element in (("data", data.element), ("buckets", buckets.element)):
        if element == "boolean":
            raise OpValidationError(f"{name} must be of a numeric element type, got boolean")
    if buckets.shape is not None and len(buckets.shape) != 1:
        raise OpValidationError(f"buckets must be 1-D, got rank {len(buckets.shape)}")
    return [TensorType(a.output_type, data.shape)]


def _run(a: BucketizeAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Per element of data, ``std::lower_bound`` (with_right_bound: on while ``probe < x``) or ``std::upper_bound``
    (on while not ``x < probe``) over the buckets (``search_sorted.probed``): the answer on any buckets, sorted or
    not, NaNs included."""
    data, buckets = (np.asarray(v) for v in args)
    if data.dtype == np.bool_ or buckets.dtype == np.bool_:
        raise OpValidationError("Bucketize-3 of boolean inputs")
    if buckets.ndim != 1:
        raise OpValidationError(f"buckets must be 1-D, got {list(buckets.shape)}")
    edges, wanted = cpu_compared(buckets, LABEL), cpu_compared(data, LABEL).reshape(1, -1)
    if edges.dtype != wanted.dtype:  # (C++'s usual conversions: an int compared with a float becomes a float)
        edges, wanted = edges.astype(np.float32), wanted.astype(np.float32)
    first = probed(edges.reshape(1, -1), wanted,
                   np.less if a.with_right_bound else lambda probe, x: ~np.less(x, probe))
    return [first.astype(np.int32 if a.output_type == "i32" else np.int64).reshape(data.shape)]


LABEL = "Bucketize-3"
BUCKETIZE_3 = OpSpec("Bucketize", LABEL, BucketizeAttrs, (2, 2), 1, _infer, _run, rounding=exact, evaluates=never)
