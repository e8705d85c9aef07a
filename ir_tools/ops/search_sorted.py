"""SearchSorted-15 (torch.searchsorted): attributes, shape rule, reference kernel and rounding rule.

``y[..., m]`` is where ``values[..., m]`` goes into ``sorted_sequence[..., :]`` (a 1-D sequence for values of any rank,
else one row per leading index): the first such place, or with right_mode the last. Checked against the installed
openvino by tests/ops/test_search_scatter_conformance.py. Measured on openvino 2026.4.1:

- opset15..16. Attributes: right_mode (a flag, false where omitted) and output_type (i64 where omitted; i32 or i64,
  any other type refused). Shape inference: the two inputs' element types compatible (a dynamic one passes, any type
  otherwise), the output of output_type; the sequence no scalar; scalar values only beside a sequence of rank 1 (or a
  dynamic rank); a sequence of rank 2 or more as many dims as the values, each but the last merged with the values'
  (refused where they do not meet); the output is the values' partial shape, the merged dims in place, or with values
  of a dynamic rank the sequence's with its last dim dynamic (a dynamic rank beside a 1-D sequence).
- CPU runs the reference's ``std::lower_bound`` (by ``<``, right_mode ``<=``) over each row, so on a sequence that is
  not sorted the answer is where that binary search ends (its probes are the kernel's, bit for bit); a NaN compares
  false both ways (a NaN value finds 0, a NaN in the sequence sends the search left), -0 equals +0. Floats are
  compared in f32 (f16 and bf16 exactly, f64 saturated into its range and rounded first: 0.1 and 0.1 + 1e-12 are
  equal), integers in i32 (2^24 + 1 and 2^24 + 2 apart): i64, u32 and u64 wrapped to their low 32 bits where fed
  (2^33 is 0, 2^32 - 2 is -2), but saturated where they are a Const (2^31 + 100 is 2^31 - 1), so the kernel refuses
  such values (UnsupportedError: compare lists the layer as not checked); the narrower ones and booleans exactly. On
  320 seeded cases of 13 element types, a quarter of them on unsorted sequences: bit for bit. (CPU flushes an f32
  subnormal of a Const to zero, a Const of f64 rounded into one too, and keeps a fed one: not modelled, as for every
  op.)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .embedding import cpu_values
from .intervals import is_empty, iv, meet, to_dim
from .rounding import exact
from .spec import OpSpec, TensorType, never

_I32 = np.iinfo(np.int32)


@dataclass(frozen=True, slots=True)
class SearchSortedAttrs:
    right_mode: bool = A.attr("right_mode", A.BOOL, False)
    output_type: str = A.attr("output_type", A.enum("i64", "i32"), "i64")


def _infer(a: SearchSortedAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """search_sorted_shape_inference.hpp and SearchSorted::validate_and_infer_types (the module doc)."""
    ordered, found = inputs
    if ordered.element is not None and found.element is not None and ordered.element != found.element:
        raise OpValidationError(f"sorted_sequence of {ordered.element} and values of {found.element}: they must have "
                                "the same element type")
    if ordered.shape is not None and not ordered.shape:
        raise OpValidationError("sorted_sequence must not be a scalar")
    if found.shape is not None and not found.shape and ordered.shape is not None and len(ordered.shape) != 1:
        raise OpValidationError("scalar values need a 1-D sorted_sequence")
    if found.shape is None:
        shape = None if ordered.shape is None or len(ordered.shape) == 1 else (*ordered.shape[:-1], DYNAMIC)
        return [TensorType(a.output_type, shape)]
    shape = found.shape
    if ordered.shape is not None and len(ordered.shape) > 1:
        if len(ordered.shape) != len(shape):
            raise OpValidationError(f"sorted_sequence of rank {len(ordered.shape)} and values of rank {len(shape)}: "
                                    "the ranks must agree")
        lead = [meet(iv(s), iv(v)) for s, v in zip(ordered.shape[:-1], shape[:-1], strict=True)]
        if any(is_empty(d) for d in lead):
            raise OpValidationError(f"sorted_sequence {ordered.shape} and values {shape}: every dim but the last must "
                                    "agree")
        shape = (*(to_dim(d) for d in lead), shape[-1])
    return [TensorType(a.output_type, shape)]


def cpu_compared(x: np.ndarray, label: str) -> np.ndarray:
    """``x`` in the type OpenVINO CPU's binary searches (SearchSorted, Bucketize) compare it in: floats in f32 (f64
    saturated into its range and rounded), integers and booleans in i32; UnsupportedError for a wider integer beyond
    i32's range, which the CPU wraps where it is fed and saturates where it is a Const (the module doc): the kernel
    cannot tell which."""
    if x.dtype.kind == "f":
        return cpu_values(x, np.dtype(np.float32)).astype(np.float32)
    if x.dtype.kind in "iu" and x.dtype.itemsize >= 4 and x.size and (
            int(x.max()) > _I32.max or int(x.min()) < _I32.min):
        raise UnsupportedError(f"{label} of {x.dtype} values beyond i32's range: OpenVINO CPU compares them in i32, "
                               "wrapped where they are fed, saturated where they are a Const (ops/search_sorted.py)")
    return x.astype(np.int32)


def probed(rows: np.ndarray, wanted: np.ndarray, ahead: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """Per element of ``wanted`` (one row of it per row of ``rows``), where libstdc++'s binary search over its row
    ends, probe by probe (the middle of what is left; on past it while ``ahead(probe, value)``), all at once: the
    answer on any row, sorted or not, NaNs included."""
    n = rows.shape[-1]
    first = np.zeros(wanted.shape, np.int64)
    length = np.full(wanted.shape, n, np.int64)
    row = np.arange(rows.shape[0])[:, None]
    while length.any():
        half = length >> 1
        middle = first + half
        on = (length > 0) & ahead(rows[row, np.minimum(middle, n - 1)], wanted)
        first = np.where(on, middle + 1, first)
        length = np.where(on, length - half - 1, half)
    return first


def _run(a: SearchSortedAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Per value, ``std::lower_bound`` over its row of the sequence (``probed``: by ``<``, right_mode ``<=``): the
    answer on any sequence, sorted or not."""
    ordered, found = (np.asarray(v) for v in args)
    if ordered.dtype != found.dtype:
        raise OpValidationError(f"sorted_sequence of {ordered.dtype} and values of {found.dtype}")
    if ordered.ndim == 0 or (found.ndim == 0 and ordered.ndim != 1):
        raise OpValidationError(f"sorted_sequence of rank {ordered.ndim} for values of rank {found.ndim}")
    if ordered.ndim > 1 and ordered.shape[:-1] != found.shape[:-1]:
        raise OpValidationError(f"sorted_sequence {list(ordered.shape)} and values {list(found.shape)}: every dim "
                                "but the last must agree")
    n = ordered.shape[-1]
    rows = cpu_compared(ordered, LABEL).reshape(math.prod(ordered.shape[:-1]), n)
    wanted = cpu_compared(found, LABEL).reshape(rows.shape[0] if ordered.ndim > 1 else 1, -1)
    first = probed(rows, wanted, np.less_equal if a.right_mode else np.less)
    return [first.astype(np.int32 if a.output_type == "i32" else np.int64).reshape(found.shape)]


LABEL = "SearchSorted-15"
SEARCH_SORTED_15 = OpSpec("SearchSorted", LABEL, SearchSortedAttrs, (2, 2), 1, _infer, _run,
                          rounding=exact, evaluates=never)
