"""SparseFillEmptyRows-16 (tf.sparse.fill_empty_rows): attributes (none), shape rule, a kernel computing what OpenVINO
CPU gives bit for bit, and its rounding rule (exact: the outputs are input elements, indices and flags).

Inputs: values [N], dense_shape [2] (rows, columns), indices [N, 2] (the values' places, any order) and default_value
[]; outputs output_indices [M, 2] (the indices' type), output_values [M] (the values' type) and empty_row_indicator
[rows] (boolean), M = N + the rows no index names. Checked against the installed openvino by
tests/ops/test_sparse_grouped_conformance.py. Measured on openvino 2026.4.1:

- SparseFillEmptyRows-16 is in opset16 only. dense_shape and indices merge their element types (a dynamic one takes
  the other's), which must then be i32, i64 or dynamic; output_indices takes the indices' type (dynamic where they
  are); values and default_value any type, not checked against each other.
- Shape inference (OpenVINO's sparse_fill_empty_rows_shape_inference.hpp): values of rank 1 (or dynamic), dense_shape
  [2] (a dim holding 2, or dynamic rank), indices [n, 2] (dims holding them, or dynamic rank) with n compatible with
  N where dense_shape's rank is known, default_value of rank 0 (or dynamic). M is [?] unless OpenVINO knows both
  dense_shape's and indices' values: then every index must lie in [0, rows) x [0, columns) (else refused: "Sparse
  tensor index out of bounds"), and output_indices is [n + E, 2], output_values [N + E] on intervals ([2..5] + 2 =
  [4..7], [?] + 2 = [2..]; a dynamic rank of values refused), E = rows - the distinct rows named. empty_row_indicator
  is [rows] where dense_shape is known, else [?]. A dense_shape value of -1 (either one) counts as unknown, one below
  -1 as 0.
- The CPU computes i64 indices and dense_shape as i32 (wrapped to their low 32 bits: 2^32 + 1 is 1; the output
  indices sign-extended back), then checks them when it runs as shape inference does (an index out of range, a
  negative dense_shape refused). It computes i64 and u64 values as i32 (wrapped, sign-extended back: u64 2^31 + 5
  comes out 2^64 - 2^31 + 5), f64 ones in f32 (saturated: 1e300 is 3.4028235e38; the kernel saturates them and
  leaves their rounding to f32 to the bound ``compare`` gives such inputs, ``rounding.taken_in``); other types as
  they are (NaN payloads, -0 and subnormals kept). A default_value of another type it converts into the values' (2.7
  into i32 is 3, 300.5 into u8 255): the kernel takes one that converts exactly and refuses others.
- The output lists the values' entries and one (row, 0) entry of default_value per empty row, sorted by (row,
  column) with libstdc++'s std::sort, which is no stable sort: past 16 entries, entries of equal (row, column) come
  out in its order (measured: 30 of 30 random cases of 17 to 60 duplicated entries differ from a stable sort). The
  kernel takes a stable sort where no two entries share a place, else replays std::sort's introsort (median of
  three, unguarded partition, final insertion sort), refusing the rare input whose recursion runs out of depth
  (heapsort, not modelled).
- Empty values of a static shape ([0]) with dense_shape and indices Constants (every shape static): the CPU never runs
  the layer, its outputs hold what their memory held (garbage indices): ``check`` refuses it (``cpu_refuses``). Fed
  empty values through a dynamic shape, or with dense_shape or indices Parameters, it computes them right.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.errors import OpValidationError, UnsupportedError
from .arithmetic import merge_elements
from .core import NoAttrs
from .embedding import as_i32, cpu_values
from .intervals import compatible, contains, dadd, iv, to_dim
from .rounding import EXACT, any_differs, is_exact
from .spec import Kernel, OpSpec, TensorType, never

#: std::sort sorts this many entries or fewer by insertion (stable), and leaves partitions of this size to it.
_THRESHOLD = 16
#: The value types the CPU computes as i32 (wrapped, sign-extended back).
_AS_I32 = (np.dtype(np.int64), np.dtype(np.uint64))


def _check_shapes(inputs: Sequence[TensorType]) -> None:
    """OpenVINO's checks of the input types and shapes (the module's docstring)."""
    values, dense, indices, default = inputs
    merged = merge_elements(dense.element, indices.element, "dense_shape and indices")
    if merged not in (None, "i32", "i64"):
        raise OpValidationError(f"dense_shape and indices of element type {merged}: they must be i32 or i64")
    if values.shape is not None and len(values.shape) != 1:
        raise OpValidationError("the values input must be 1-D")
    if dense.shape is not None and (len(dense.shape) != 1 or not contains(iv(dense.shape[0]), 2)):
        raise OpValidationError("dense_shape must be 1-D of 2 elements (only 2-D sparse tensors are supported)")
    if indices.shape is not None and (
            len(indices.shape) != 2 or not contains(iv(indices.shape[1]), 2) or (
                dense.shape is not None and values.shape is not None
                and not compatible(iv(indices.shape[0]), iv(values.shape[0])))):
        raise OpValidationError("indices must be [N, 2], N the length of values")
    if default.shape is not None and len(default.shape) != 0:
        raise OpValidationError("default_value must be a scalar")


def _dense(value: np.ndarray | None) -> tuple[int, int] | None:
    """dense_shape's value as OpenVINO's shape inference reads it: None where unknown or where it holds -1; a length
    below -1 as 0."""
    if value is None:
        return None
    rows, cols = (int(v) for v in np.asarray(value).reshape(-1))
    return None if -1 in (rows, cols) else (max(rows, 0), max(cols, 0))


def _out_of_bounds(indices: np.ndarray, rows: int, cols: int) -> str | None:
    """OpenVINO's message for the first index out of [0, rows) x [0, cols), or None."""
    pairs = indices.reshape(-1, 2)
    bad_row = (pairs[:, 0] < 0) | (pairs[:, 0] >= rows)
    bad = np.flatnonzero(bad_row | (pairs[:, 1] < 0) | (pairs[:, 1] >= cols))
    if not bad.size:
        return None
    what, at, n = ("row", 0, rows) if bad_row[bad[0]] else ("column", 1, cols)
    return f"Sparse tensor index out of bounds: {what} {pairs[bad[0], at]} is outside the valid range [0, {n - 1}]"


def _infer(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    _check_shapes(inputs)
    data, _, indices, _ = inputs
    dense = _dense(values[1])
    rows = DYNAMIC if dense is None else Dim(dense[0], dense[0])
    if dense is not None and values[2] is not None:
        named = np.asarray(values[2]).reshape(-1, 2)
        problem = _out_of_bounds(named, *dense)
        if problem:
            raise OpValidationError(problem)
        if data.shape is None:
            raise OpValidationError("values of a dynamic rank: OpenVINO's shape inference fails on it here")
        assert indices.shape is not None
        empty = (dense[0] - np.unique(named[:, 0]).size,) * 2
        return [TensorType(indices.element, (to_dim(dadd(iv(indices.shape[0]), empty)), Dim(2, 2))),
                TensorType(data.element, (to_dim(dadd(iv(data.shape[0]), empty)),)), TensorType("boolean", (rows,))]
    return [TensorType(indices.element, (DYNAMIC, Dim(2, 2))), TensorType(data.element, (DYNAMIC,)),
            TensorType("boolean", (rows,))]


def _std_sort(keys: np.ndarray) -> np.ndarray:
    """The permutation libstdc++'s std::sort leaves ``keys`` in: introsort's partitions (median of three moved to the
    front, unguarded partition; the larger index side first), then the final insertion sort, which is stable."""
    order = list(range(keys.size))
    k = keys.tolist()
    pending = [(0, keys.size, 2 * (keys.size.bit_length() - 1))]
    while pending:
        first, last, depth = pending.pop()
        while last - first > _THRESHOLD:
            if depth == 0:
                raise UnsupportedError("SparseFillEmptyRows-16 here: OpenVINO CPU's std::sort falls back to heapsort, "
                                       "whose order of entries of one place is not modelled")
            depth -= 1
            a, b, c = first + 1, first + (last - first) // 2, last - 1
            ka, kb, kc = k[order[a]], k[order[b]], k[order[c]]
            if ka < kb:
                median = b if kb < kc else c if ka < kc else a
            else:
                median = a if ka < kc else c if kb < kc else b
            order[first], order[median] = order[median], order[first]
            pivot, lo, hi = k[order[first]], first + 1, last
            while True:
                while k[order[lo]] < pivot:
                    lo += 1
                hi -= 1
                while pivot < k[order[hi]]:
                    hi -= 1
                if lo >= hi:
                    break
                order[lo], order[hi] = order[hi], order[lo]
                lo += 1
            pending.append((lo, last, depth))  # (std::sort recurses into it first: the parts are disjoint)
            last = lo
    placed = np.array(order, np.int64)
    return placed[np.argsort(keys[placed], kind="stable")]


def _cpu_values(x: np.ndarray) -> np.ndarray:
    """Values as OpenVINO CPU holds them (the module's docstring)."""
    if x.dtype in _AS_I32:
        return x.astype(np.int32).astype(x.dtype)
    if x.dtype == np.float64:
        return cpu_values(x, np.dtype(np.float32))
    return x


def _layout(dense: np.ndarray, indices: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The CPU's (row, column) of the output entries, which entry each is (the values' n, then the empty rows' one
    each), and the empty rows' flags; refused as the CPU refuses."""
    rows, cols = (int(v) for v in as_i32(dense).reshape(-1))
    if rows < 0 or cols < 0:
        raise OpValidationError(f"dense_shape [{rows}, {cols}] holds a negative length (OpenVINO CPU refuses it)")
    at = as_i32(indices).reshape(-1, 2).astype(np.int64)
    if at.shape[0] != n:
        raise OpValidationError(f"indices name {at.shape[0]} places for {n} values")
    problem = _out_of_bounds(at, rows, cols)
    if problem:
        raise OpValidationError(f"{problem} (OpenVINO CPU refuses it)")
    empty = np.ones(rows, bool)
    empty[at[:, 0]] = False
    places = np.concatenate([at, np.stack([np.flatnonzero(empty), np.zeros(int(empty.sum()), np.int64)], 1)])
    keys = places[:, 0] << np.int64(32) | places[:, 1]
    stable = np.argsort(keys, kind="stable")
    if keys.size > _THRESHOLD and np.any(keys[stable][1:] == keys[stable][:-1]):
        stable = _std_sort(keys)
    return places[stable], stable, empty


def _run(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    values, dense, indices, default = (np.asarray(x) for x in args)
    if values.dtype.kind not in "biuf":
        raise UnsupportedError(f"SparseFillEmptyRows-16 of {values.dtype} values is not modelled (ops/sparse.py)")
    fill = default.astype(values.dtype)
    if default.dtype != values.dtype and not np.array_equal(fill.astype(default.dtype), default, equal_nan=True):
        raise UnsupportedError(f"SparseFillEmptyRows-16 of a {default.dtype} default_value {default} in {values.dtype} "
                               "values: OpenVINO CPU's conversion of it is not modelled")
    places, order, empty = _layout(dense, indices, values.size)
    entries = np.concatenate([_cpu_values(values.reshape(-1)), np.repeat(_cpu_values(fill.reshape(1)), empty.sum())])
    return [places.astype(indices.dtype), entries[order], empty]


def _rounding(kernel: Kernel, a: NoAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
              outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Exact; an error of a value or of default_value moves with it to its place (the places depend on dense_shape and
    indices alone); where those may differ, no bound."""
    if any_differs(args, bounds, (1, 2)):
        return [np.full((), np.inf) for _ in outputs]
    if is_exact(bounds[0]) and is_exact(bounds[3]):
        return [EXACT] * 3
    _, order, empty = _layout(np.asarray(args[1]), np.asarray(args[2]), np.size(args[0]))
    moved = np.concatenate([np.broadcast_to(np.asarray(bounds[0], np.float64), np.shape(args[0])).reshape(-1),
                            np.repeat(np.asarray(bounds[3], np.float64).reshape(1), empty.sum())])
    return [EXACT, moved[order], EXACT]


def _unwritten(a: NoAttrs, inputs: Sequence[TensorType], values) -> str | None:
    """Values of a static shape holding no element where dense_shape and indices are Consts (every shape static): the
    CPU never runs the layer, its outputs are whatever their memory held."""
    if inputs[0].shape == (Dim(0, 0),) and values[1] is not None and values[2] is not None:
        return ("its values [0] are empty and its dense_shape and indices Constants: OpenVINO CPU never runs such a "
                "layer, its outputs are left unwritten")
    return None


SPARSE_FILL_EMPTY_ROWS_16 = OpSpec("SparseFillEmptyRows", "SparseFillEmptyRows-16", NoAttrs, (4, 4), 3, _infer, _run,
                                   value_inputs=(1, 2), rounding=_rounding, cpu_refuses=_unwritten, evaluates=never)
