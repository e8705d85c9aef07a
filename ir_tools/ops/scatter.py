"""ScatterNDUpdate-3, ScatterNDUpdate-15, ScatterUpdate-3, ScatterElementsUpdate-3 and ScatterElementsUpdate-12:
attributes, shape rules, reference kernels and rounding rules.

Checked against the installed openvino (shape rules and CPU kernels) by tests/ops/test_scatter_nd_conformance.py,
tests/ops/test_scatter_update_conformance.py and tests/ops/test_scatter_elements_conformance.py. Measured on OpenVINO
2026.4.1, beyond its specification:

- ScatterUpdate-3 (opset3..16; data, indices, updates, axis): indices and axis of an integral type (not boolean; a
  dynamic one passes), axis of shape [] or [1] (compatible), within [-r, r - 1] where known (and r > 0); updates of
  data's element type (a dynamic one passes) and rank rank(data) + rank(indices) - 1, its dims data[:axis] + indices
  + data[axis+1:] (compatible) where the axis is known (scalar data: refused then); the output is data's element
  type and partial shape. CPU writes duplicate indices in order on a quiet machine, the last one wins (5,000 updates
  of one column: the last), but its threads may write another last under load (seen once in CI: the specification
  leaves the order undefined); the reference writes the last. It refuses a negative index and one out of range
  when it runs: the reference refuses both; but on data of no element, which it gives back whatever the indices
  (-1, 5), as the reference does (ScatterNDUpdate and ScatterElementsUpdate alike, every reduction). CPU compiles
  no scalar indices: the reference refuses them (UnsupportedError). Its bounds (scatter_update.cpp
  ``evaluate_lower``/``upper``): the op on data's and updates' lower bounds, then on their upper ones, where indices
  and axis are exact, else none (``bounds.moved``): the ends of a Slice-8 that ``migrate --target 2021.4`` writes as
  a StridedSlice-1 (``SliceTo1``) are such a ScatterUpdate of shape values.

- ScatterNDUpdate-3 is in opset4..14 (its type info says opset4), ScatterNDUpdate-15 in opset15..16. Indices
  must be i32 or i64, updates of data's element type (a dynamic one merges); where the expected updates rank
  (data rank + indices rank - 1 - k) is 0, shape inference takes any updates shape, CPU only a scalar.
- CPU counts a negative index in [-n, -1] from the end and refuses one out of [-n, n - 1] when it runs; it
  leaves the data as it is for index tuples of length 0 (the evaluator applies the updates to the whole
  tensor): the reference refuses both.
- Reduction none writes duplicates in parallel (undefined; the reference takes the last); the reductions run
  in index order, floats in f32 (f16 too), integers wrapping, min/max as ``u < acc ? u : acc`` (NaN in data
  stays, NaN in updates is skipped). Boolean data is reduced as u8 and read back as nonzero (sub of three
  trues from True is True, the evaluator's xor False; 256 trues sum to False). i64 data is computed as i32 by
  CPU; the reference keeps i64.

- ScatterElementsUpdate-3 (opset3..11) and -12 (opset12..16; data, indices, updates, axis): shape inference refuses
  indices or an axis of a real type (boolean and dynamic ones pass), updates of another element type than data's (a
  dynamic one merges: the output has the other's), an axis of rank 2 or more (of rank 1 any length: its first
  element is read), indices of another rank than data's, updates not compatible with the indices' shape, -12's mean
  on boolean data, and where the data rank r is known, an axis constant out of [-r, r - 1] (a scalar's: [-1, 0]) or
  boolean ("Element not supported"); the output has data's partial shape. Indices' dims are not checked against
  data's.
- CPU counts an index in [-n, -1] from the end and refuses one of n or more when it runs, but checks none below -n
  (it wrote outside the tensor: glibc aborted the process), nor indices longer than data off the axis (it wrote into
  the next row, or outside): the reference refuses all three. CPU compiles no scalar data (UnsupportedError).
- CPU shares the lines along the axis among its threads and applies each line's updates one after another in axis
  order: duplicates are deterministic, none's last wins (5,000 updates of one element; 900 runs under load of 256
  lines of 200 updates into 4 elements, along either axis: the last), and the reductions run in that order, floats
  in f32 (f16 too: 2048 + 64 * 1.0 gives 2112; f64 in f32), integers wrapping in their own type (i8 100 + 100 + 100
  gives 44; i16 and u32 likewise), min and max as ScatterNDUpdate's. Boolean data is reduced as u8 and read back
  as nonzero: 256 trues summed into False give False (the evaluator's or: True). i64 data is computed as i32 (2**40
  becomes 0): the reference keeps i64. Boolean indices are 0 and 1.
- use_init_val false: each element updated starts from 0 (sum, mean), 1 (prod), or for max and min -/+F32_MAX on
  floats (an element whose updates are all NaN ends there: -3.4e38, -inf in f16; the evaluator gives NaN) and the
  integer type's extremes; elements no update touches keep the data.
- mean: that sum divided by the number of updates (plus one with use_init_val) in double, cast back: integers are
  truncated toward zero (-7 / 2 gives -3, the evaluator's floor -4), after their sum wrapped (i8: 300 is 44, so 14).

- SliceScatter-15 (opset15..16; data, updates, start, stop, step[, axes]): the data with the elements Slice-8 selects
  replaced by the updates, in the order the slice reads them; checked by tests/ops/test_search_scatter_conformance.py.
  Shape inference: data and updates of one rank (the output takes the updates' rank where the data's is dynamic),
  not scalars; start, stop, step and axes integral (dynamic passes) and 1-D, as Slice-8 reads them (no more values
  than the rank, compatible lengths, no zero step, unique axes within the rank); the updates compatible with the
  slice's partial shape, every dim of it from 0 to its maximum where neither axes nor a known start says which axes
  are sliced; the updates' element type is not checked; the output is data's element type and partial shape. CPU,
  with Const bounds: bit for bit the specification (240 seeded cases, seven element types, i64 limits, empty
  slices). With bounds fed when it runs it gives the data back without the updates (rank 2 to 4; SIGFPE on rank 1:
  measured for passes/downgrade/slice_scatter.py): the kernel keeps the specification, so compare reports those
  layers as OpenVINO's error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..base.dims import DYNAMIC, Dim, show_shape
from ..base.dtypes import F32_MAX, INTEGER_TYPES, REAL_TYPES
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .bounds import moved
from .core import NoAttrs
from .intervals import Unmatched, compatible, guarded, iv
from .movement import SLICE_8, slice_infer
from .operands import outside_axis
from .rounding import EXACT, accumulation, moves
from .spec import ARITHMETIC, OpSpec, RoundingRule, TensorType, all_but, all_of, never, on

SCATTER_REDUCTIONS = ("none", "sum", "sub", "prod", "min", "max")
ELEMENTS_REDUCTIONS = ("none", "sum", "prod", "min", "max", "mean")


@dataclass(frozen=True, slots=True)
class ScatterNDUpdate15Attrs:
    reduction: str = A.attr("reduction", A.enum(*SCATTER_REDUCTIONS), "none")


def _scatter_nd(a, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """scatter_nd_base_shape_inference.hpp and ScatterNDBase::validate_and_infer_types: the output is data's
    partial shape as it is; updates are only checked (for rank and compatibility) where the ranks and k are known."""
    data, indices, updates = inputs
    if indices.element is not None and indices.element not in ("i32", "i64"):
        raise OpValidationError(f"indices must be i32 or i64, got {indices.element}")
    if data.element is not None and updates.element is not None and data.element != updates.element:
        raise OpValidationError(f"updates of element type {updates.element} differ from data of {data.element}")
    element = data.element if data.element is not None else updates.element
    for t, what in ((data, "data"), (indices, "indices")):
        if t.shape is not None and len(t.shape) == 0:
            raise OpValidationError(f"{what} must have rank 1 or more, got a scalar")
    if data.shape is None or indices.shape is None or not indices.shape[-1].is_static:
        return [TensorType(element, data.shape)]
    k = indices.shape[-1].lo
    if k > len(data.shape):
        raise OpValidationError(f"index tuples of length {k} exceed the data rank {len(data.shape)}")
    if updates.shape is not None:
        want = indices.shape[:-1] + data.shape[k:]  # rank 0: any updates pass (the CPU wants a scalar)
        if want and len(updates.shape) != len(want):
            raise OpValidationError(f"updates have rank {len(updates.shape)}, expected {len(want)}: the rank of "
                                    f"indices.shape[:-1] + data.shape[{k}:]")
        for i, (w, u) in enumerate(zip(want, updates.shape, strict=False)):
            if not compatible(iv(w), iv(u)):
                raise OpValidationError(f"updates dim {i} is {u}, expected {w} (indices.shape[:-1] + "
                                        f"data.shape[{k}:])")
    return [TensorType(element, data.shape)]


def _scatter_rows(x: np.ndarray, idx: np.ndarray, upd: np.ndarray) -> tuple[np.ndarray, int]:
    """The row of x.reshape(-1, slice) each index tuple updates (negative indices counted from the end), and the
    slice size; OpValidationError where OpenVINO CPU refuses the node or its indices."""
    if idx.dtype not in (np.int32, np.int64):
        raise OpValidationError(f"indices must be i32 or i64, got {idx.dtype}")
    if upd.dtype != x.dtype:
        raise OpValidationError(f"updates of element type {upd.dtype} differ from data of {x.dtype}")
    if x.ndim == 0 or idx.ndim == 0 or idx.shape[-1] > x.ndim:
        raise OpValidationError(f"indices {list(idx.shape)} do not fit data {list(x.shape)}")
    k = idx.shape[-1]
    want = idx.shape[:-1] + x.shape[k:]
    if upd.shape != want:
        raise OpValidationError(f"updates have shape {list(upd.shape)}, expected indices.shape[:-1] + "
                                f"data.shape[{k}:] = {list(want)}")
    n, size = math.prod(idx.shape[:-1]), math.prod(x.shape[k:])
    if n == 0 or x.size == 0:  # (CPU gives data of no element back, whatever the indices)
        return np.zeros(0, np.int64), size
    if k == 0:
        raise OpValidationError("index tuples of length 0 (OpenVINO CPU leaves the data as it is, its evaluator "
                                "applies every update to the whole tensor)")
    lengths = np.array(x.shape[:k], np.int64)
    flat = idx.reshape(n, k).astype(np.int64)
    if np.any((flat < -lengths) | (flat >= lengths)):
        raise OpValidationError(f"an index is out of range for dims {lengths.tolist()} (OpenVINO CPU refuses it)")
    flat = np.where(flat < 0, flat + lengths, flat)
    return np.ravel_multi_index(tuple(flat.T), x.shape[:k]).astype(np.int64), size


def _run_scatter_nd(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each index tuple's slice of updates reduced into the data (``_scattered``)."""
    x, idx, upd = args
    rows, size = _scatter_rows(x, idx, upd)
    if rows.size == 0 or size == 0:
        return [x.copy()]
    return [_scattered(x, rows, upd.reshape(-1, size), getattr(a, "reduction", "none"))]


def _scattered(x: np.ndarray, rows: np.ndarray, new: np.ndarray, reduction: str,
               use_init_val: bool = True) -> np.ndarray:
    """A copy of x with each slice of ``new`` ([len(rows), slice]) reduced into its row of x.reshape(-1, slice), one
    after another in index order (none: the last write wins, where OpenVINO CPU writes ScatterNDUpdate's duplicates in
    parallel). Floats are reduced in float64 and rounded once; NaN in data stays, NaN in updates is skipped by min
    and max (the CPU's ``u < acc ? u : acc``). Integers wrap; booleans are reduced as u8 (wrapping) and read back as
    nonzero, as the CPU computes them. ``use_init_val`` false: the rows updated start from the reduction's neutral
    value (``_neutral``) in place of the data. mean: the sum divided by the number of its terms, integers truncated
    toward zero (the CPU's cast of its double quotient)."""
    out = x.copy()
    flat = out.reshape(-1, new.shape[1])
    if reduction == "none":
        _, first = np.unique(rows[::-1], return_index=True)  # each row's last update
        keep = rows.size - 1 - first
        flat[rows[keep]] = new[keep]
        return out
    if not use_init_val:
        with np.errstate(over="ignore"):  # (-/+F32_MAX is -/+inf in f16)
            flat[rows] = _neutral(reduction, x.dtype)
    kind = x.dtype.kind
    wide = np.float64 if kind == "f" else np.uint8 if kind == "b" else x.dtype
    acc, terms = flat.astype(wide), new.astype(wide)
    if kind == "f" and reduction in ("min", "max"):
        (np.fmin if reduction == "min" else np.fmax).at(acc, rows, terms)
        acc[np.isnan(flat)] = np.nan
    else:
        ufunc = {"sum": np.add, "sub": np.subtract, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
                 "mean": np.add}
        with np.errstate(over="ignore", invalid="ignore"):
            ufunc[reduction].at(acc, rows, terms)
    if reduction == "mean":
        counts = np.bincount(rows, minlength=len(flat))
        touched = counts > 0
        quotient = acc[touched] / (counts[touched] + int(use_init_val))[:, None]
        acc[touched] = quotient if kind == "f" else np.trunc(quotient)
    with np.errstate(over="ignore"):
        flat[...] = acc != 0 if kind == "b" else acc.astype(x.dtype)
    return out


def _neutral(reduction: str, dtype: np.dtype) -> float | int | bool:
    """Where OpenVINO CPU starts a reduction without the data (``use_init_val`` false): 0 (sum, mean), 1 (prod), and
    the lowest (max) or highest (min) value of the type it computes in: -/+F32_MAX for floats (f16 data is computed
    in f32), the type's own for integers, u8's for booleans (False, and True standing for 255)."""
    if reduction in ("sum", "mean"):
        return 0
    if reduction == "prod":
        return 1
    if dtype.kind == "f":
        low, high = -F32_MAX, F32_MAX
    elif dtype.kind == "b":
        low, high = False, True
    else:
        low, high = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    return low if reduction == "max" else high


def _updates_per_element(a, args: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> np.ndarray:
    """How many updates each output element accumulates (a sum of that many + 1 terms, rounded that many times)."""
    x, idx, upd = args
    rows, size = _scatter_rows(x, idx, upd)
    if size == 0:
        return np.zeros(x.shape, np.int64)
    counts = np.zeros(math.prod(x.shape) // size, np.int64)
    np.add.at(counts, rows, 1)
    return np.broadcast_to(counts[:, None], (counts.size, size)).reshape(x.shape)


def _scatter_sum_magnitude(a, args: Sequence[np.ndarray], exponent: int) -> list[np.ndarray]:
    """Sum |terms|^e per element (for sub too: the terms are subtracted, their magnitudes add)."""
    x, idx, upd = args
    return _run_scatter_nd(_SCATTER_SUM, [np.abs(np.asarray(x, np.float64)) ** exponent, idx,
                                          np.abs(np.asarray(upd, np.float64)) ** exponent])


_SCATTER_SUM = ScatterNDUpdate15Attrs("sum")
_SCATTER_MOVES = moves(0, 2)


def _scatter_rounding(sums: RoundingRule, products: RoundingRule) -> RoundingRule:
    """Integers and booleans: exact. none: elements move, their bounds with them. min and max pick one of an
    element's candidates: the largest of their bounds. sum, sub and mean: ``sums``; prod: ``products`` (both
    ``accumulation``: gamma(n) sum|terms| or gamma(n) prod|terms| (n the element's updates) + output rounding, input
    bounds added, worst case both for one layer and end to end: the terms are data, not products of two inputs)."""

    def rule(kernel, a, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        if np.asarray(outputs[0]).dtype.kind != "f":
            return [EXACT]
        reduction = getattr(a, "reduction", "none")
        if reduction == "none":
            return _SCATTER_MOVES(kernel, a, args, bounds, outputs)
        if reduction in ("min", "max"):
            return _SCATTER_MOVES(kernel, replace(a, reduction="max"), args, bounds, outputs)
        return (products if reduction == "prod" else sums)(kernel, a, args, bounds, outputs)

    return rule


# (a sum is linear in its data and updates together, not in each on its own: its inputs' errors go by the difference)
_scatter_nd_rounding = _scatter_rounding(
    accumulation(_updates_per_element, (0, 2), _scatter_sum_magnitude, linear=False),
    accumulation(_updates_per_element, (0, 2), linear=False))


def _nd_index_out_of_range(a, inputs: Sequence[TensorType], values) -> str | None:
    """A Const index tuple with an entry out of [-n, n - 1] of its data dim (the module doc): CPU refuses it when it
    runs."""
    indices = values[1]
    if indices is None or indices.ndim == 0:
        return None
    for j in range(indices.shape[-1]):
        bad = outside_axis(indices[..., j], inputs[0].shape, j, from_end=True)
        if bad is not None:
            return f"index {bad} is outside data dim {j}: OpenVINO CPU refuses it when it runs"
    return None


def _element_index_out_of_range(a, inputs: Sequence[TensorType], values) -> str | None:
    """A Const index of n or more on the axis (a Const): CPU refuses it when it runs (the module doc). One below -n it
    writes outside the tensor, aborting the process or not (measured: -9 on 4 rows once aborted, -5 ran): not said."""
    axis = values[3]
    if axis is None or axis.size != 1 or axis.dtype.kind not in "iu":
        return None
    bad = outside_axis(values[1], inputs[0].shape, int(axis.reshape(-1)[0]), from_end=True)
    return None if bad is None or bad < 0 else f"index {bad} is beyond the axis: OpenVINO CPU refuses it when it runs"


# --- specs ------------------------------------------------------------------------------------------

SCATTER_ND_UPDATE_3 = OpSpec("ScatterNDUpdate", "ScatterNDUpdate-3", NoAttrs, (3, 3), 1, guarded(_scatter_nd),
                             _run_scatter_nd, rounding=_scatter_nd_rounding, index_input=1,
                             cpu_refuses=_nd_index_out_of_range, evaluates=on(ARITHMETIC | {"boolean"}))
SCATTER_ND_UPDATE_15 = OpSpec("ScatterNDUpdate", "ScatterNDUpdate-15", ScatterNDUpdate15Attrs, (3, 3), 1,
                              guarded(_scatter_nd), _run_scatter_nd, rounding=_scatter_nd_rounding, index_input=1,
                              cpu_refuses=_nd_index_out_of_range, evaluates=on(ARITHMETIC | {"boolean"}))


def _scatter_update(a, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """ScatterUpdate-3's shape inference (module doc)."""
    data, indices, updates, axis = inputs
    for t, what in ((indices, "indices"), (axis, "axis")):
        if t.element is not None and t.element not in INTEGER_TYPES:
            raise OpValidationError(f"{what} of element type {t.element}: it must be an integral number type")
    if data.element is not None and updates.element is not None and data.element != updates.element:
        raise OpValidationError(f"updates of element type {updates.element} differ from data of {data.element}")
    if axis.shape is not None and (len(axis.shape) > 1 or (len(axis.shape) == 1 and not compatible(iv(axis.shape[0]),
                                                                                                  (1, 1)))):
        raise OpValidationError(f"axis of shape {list(axis.shape)}: it must be a scalar or of one element")
    out = [TensorType(data.element, data.shape)]
    known = len(values) > 3 and values[3] is not None
    value = int(np.asarray(values[3]).reshape(-1)[0]) if known else 0
    if known and data.shape and not -len(data.shape) <= value < len(data.shape):  # (not checked on a scalar)
        raise OpValidationError(f"axis {value} is out of [{-len(data.shape)}, {len(data.shape) - 1}]")
    if data.shape is None or indices.shape is None or updates.shape is None:
        return out
    r, k = len(data.shape), len(indices.shape)
    if len(updates.shape) != r + k - 1:
        raise OpValidationError(f"updates of rank {len(updates.shape)}: it must be rank(data) + rank(indices) - 1 = "
                                f"{r + k - 1}")
    if not known:
        return out
    if r == 0:  # updates then have rank(indices) - 1 dims where data[:axis] + indices + data[axis+1:] has rank(indices)
        raise OpValidationError("scalar data: updates cannot have the dims data[:axis] + indices + data[axis+1:]")
    value %= r
    want = (*data.shape[:value], *indices.shape, *data.shape[value + 1:])
    for i, (w, u) in enumerate(zip(want, updates.shape, strict=True)):
        if not compatible(iv(w), iv(u)):
            raise OpValidationError(f"updates dim {i} is {u}, expected {w} (data[:axis] + indices + data[axis+1:])")
    return out


def _run_scatter_update(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Slices of data along the axis replaced by those of updates, in index order (the last of duplicates wins, as
    on CPU, but for its threads racing under load: the module's note); negative and out-of-range indices refused
    (CPU refuses them when it runs), but on data of no element (CPU gives it back)."""
    x, idx, upd, axis_value = (np.asarray(v) for v in args)
    if idx.dtype.kind not in "iu" or axis_value.dtype.kind not in "iu":
        raise OpValidationError(f"indices of {idx.dtype} and axis of {axis_value.dtype}: they must be integers")
    if upd.dtype != x.dtype:
        raise OpValidationError(f"updates of element type {upd.dtype} differ from data of {x.dtype}")
    if axis_value.size != 1 or x.ndim == 0:
        raise OpValidationError(f"axis of shape {list(axis_value.shape)} on data of rank {x.ndim}")
    if idx.ndim == 0:
        raise UnsupportedError("scalar indices: OpenVINO CPU does not compile them")
    axis = int(axis_value.reshape(-1)[0])
    if not -x.ndim <= axis < x.ndim:
        raise OpValidationError(f"axis {axis} is out of [{-x.ndim}, {x.ndim - 1}]")
    axis %= x.ndim
    want = x.shape[:axis] + idx.shape + x.shape[axis + 1:]
    if upd.shape != want:
        raise OpValidationError(f"updates have shape {list(upd.shape)}, expected data[:axis] + indices + "
                                f"data[axis+1:] = {list(want)}")
    flat = idx.reshape(-1).astype(np.int64)
    if x.size == 0:  # (CPU writes nothing there, whatever the indices)
        return [x.copy()]
    if np.any((flat < 0) | (flat >= x.shape[axis])):
        raise OpValidationError(f"an index is out of [0, {x.shape[axis] - 1}] (OpenVINO CPU refuses it, negative ones "
                                "too)")
    out = x.copy()
    if flat.size == 0:
        return [out]
    _, first = np.unique(flat[::-1], return_index=True)
    keep = np.sort(flat.size - 1 - first)  # each index's last update
    rows = upd.reshape(x.shape[:axis] + (flat.size,) + x.shape[axis + 1:])
    target = [slice(None)] * x.ndim
    source = [slice(None)] * x.ndim
    target[axis], source[axis] = flat[keep], keep
    out[tuple(target)] = rows[tuple(source)]
    return [out]


def _index_out_of_range(a, inputs: Sequence[TensorType], values) -> str | None:
    """A Const index CPU refuses whatever data it runs on (the module doc): a negative one, or one beyond the axis
    dim's largest length (the axis a Const too)."""
    axis = values[3]
    known = axis is not None and axis.size == 1 and axis.dtype.kind in "iu"
    bad = outside_axis(values[1], inputs[0].shape, int(axis.reshape(-1)[0]) if known else None, from_end=False)
    if bad is None:
        return None
    return (f"index {bad} is {'negative' if bad < 0 else 'beyond the axis'}: OpenVINO CPU refuses it when it runs "
            f"(ScatterUpdate counts none from the end)")


SCATTER_UPDATE_3 = OpSpec("ScatterUpdate", "ScatterUpdate-3", NoAttrs, (4, 4), 1, guarded(_scatter_update),
                          _run_scatter_update, (3,), rounding=_SCATTER_MOVES, index_input=1,
                          cpu_refuses=_index_out_of_range, bounds=moved(_run_scatter_update, (0, 2)))


@dataclass(frozen=True, slots=True)
class ScatterElementsUpdate12Attrs:
    reduction: str = A.attr("reduction", A.enum(*ELEMENTS_REDUCTIONS), "none")
    use_init_val: bool = A.attr("use_init_val", A.BOOL, True)


def _scatter_elements(a, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    """ScatterElementsUpdateBase's validation and shape inference (module doc); None where the axis is a constant
    of no element (OpenVINO reads a first one past its end)."""
    data, indices, updates, axis = inputs
    if getattr(a, "reduction", "none") == "mean" and data.element == "boolean":
        raise OpValidationError("reduction mean of boolean data")
    for t, what in ((indices, "indices"), (axis, "axis")):
        if t.element in REAL_TYPES:
            raise OpValidationError(f"{what} of element type {t.element}: it must be an integral type")
    if data.element is not None and updates.element is not None and data.element != updates.element:
        raise OpValidationError(f"updates of element type {updates.element} differ from data of {data.element}")
    if axis.shape is not None and len(axis.shape) > 1:
        raise OpValidationError(f"axis of shape {list(axis.shape)}: it must be a scalar or 1D")
    if data.shape is not None and indices.shape is not None and len(data.shape) != len(indices.shape):
        raise OpValidationError(f"indices of rank {len(indices.shape)}: it must be the data's, {len(data.shape)}")
    if indices.shape is not None and updates.shape is not None and (
            len(indices.shape) != len(updates.shape) or
            not all(compatible(iv(i), iv(u)) for i, u in zip(indices.shape, updates.shape, strict=False))):
        raise OpValidationError(f"updates of shape {show_shape(updates.shape)}: it must be the indices', "
                                f"{show_shape(indices.shape)}")
    known = len(values) > 3 and values[3] is not None
    if known and data.shape is not None:
        value = np.asarray(values[3])
        if value.dtype.kind == "b":
            raise OpValidationError("a boolean axis: OpenVINO cannot read its value")
        if value.size == 0:
            return None
        rank = max(len(data.shape), 1)  # (a scalar's axis is 0 or -1)
        axis_value = int(value.reshape(-1)[0].astype(np.int64))
        if not -rank <= axis_value < rank:
            raise OpValidationError(f"axis {axis_value} is out of [{-rank}, {rank - 1}]")
    return [TensorType(data.element if data.element is not None else updates.element, data.shape)]


def _element_rows(x: np.ndarray, idx: np.ndarray, upd: np.ndarray, axis_value: np.ndarray) -> np.ndarray:
    """The flat position in x each element of updates goes to (in the updates' order, so each position's updates in
    the order of the axis), negative indices counted from the end; OpValidationError where OpenVINO refuses the
    node or CPU its indices, or writes outside its data."""
    if idx.dtype.kind not in "iub" or axis_value.dtype.kind not in "iu":
        raise OpValidationError(f"indices of {idx.dtype} and axis of {axis_value.dtype}: they must be integers")
    if upd.dtype != x.dtype:
        raise OpValidationError(f"updates of element type {upd.dtype} differ from data of {x.dtype}")
    if x.ndim == 0:
        raise UnsupportedError("scalar data: OpenVINO CPU does not compile it")
    if axis_value.size == 0:
        raise OpValidationError("an axis of no element")
    axis = int(axis_value.reshape(-1)[0].astype(np.int64))
    if not -x.ndim <= axis < x.ndim:
        raise OpValidationError(f"axis {axis} is out of [{-x.ndim}, {x.ndim - 1}]")
    axis %= x.ndim
    if idx.ndim != x.ndim or upd.shape != idx.shape:
        raise OpValidationError(f"indices {list(idx.shape)} and updates {list(upd.shape)}: both must have the shape "
                                f"of the indices, of the rank of data {list(x.shape)}")
    if x.size == 0:  # (CPU gives it back, whatever the indices)
        return np.zeros(0, np.int64)
    if any(i > n for d, (i, n) in enumerate(zip(idx.shape, x.shape, strict=True)) if d != axis):
        raise OpValidationError(f"indices {list(idx.shape)} exceed data {list(x.shape)} off the axis {axis} (OpenVINO "
                                "CPU writes outside the data there)")
    n = x.shape[axis]
    at = idx.astype(np.int64)
    if np.any((at < -n) | (at >= n)):
        raise OpValidationError(f"an index is out of [{-n}, {n - 1}] (OpenVINO CPU refuses one above, and writes "
                                "outside the data for one below)")
    grid = list(np.ogrid[tuple(slice(0, i) for i in idx.shape)])
    grid[axis] = np.where(at < 0, at + n, at)
    return np.ravel_multi_index(tuple(np.broadcast_arrays(*grid)), x.shape).reshape(-1)


def _run_scatter_elements(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each element of updates reduced into the data element its index names along the axis (``_scattered``: the
    updates of one element in the order of the axis, as OpenVINO CPU applies them, the last one for none)."""
    x, idx, upd, axis_value = (np.asarray(v) for v in args)
    reduction = getattr(a, "reduction", "none")
    if reduction == "mean" and x.dtype.kind == "b":
        raise OpValidationError("reduction mean of boolean data")
    rows = _element_rows(x, idx, upd, axis_value)
    if rows.size == 0:
        return [x.copy()]
    return [_scattered(x, rows, upd.reshape(-1, 1), reduction, getattr(a, "use_init_val", True))]


def _element_update_counts(a, args: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> np.ndarray:
    """How many updates each output element accumulates (``accumulation``'s n)."""
    x, idx, upd, axis_value = (np.asarray(v) for v in args)
    return np.bincount(_element_rows(x, idx, upd, axis_value), minlength=x.size).reshape(x.shape)


_ELEMENT_SUMS = accumulation(_element_update_counts, (0, 2), linear=False)
_scatter_elements_rounding = _scatter_rounding(_ELEMENT_SUMS, _ELEMENT_SUMS)

#: What OpenVINO's ScatterElementsUpdate evaluates: its data of any type but f64, i8, u8, u16, its indices of any
#: integer type (not boolean).
_SCATTER_ELEMENTS_EVALUATES = all_of(on(all_but("f64", "i8", "u8", "u16")), on(all_but("boolean"), 1))
SCATTER_ELEMENTS_UPDATE_3 = OpSpec("ScatterElementsUpdate", "ScatterElementsUpdate-3", NoAttrs, (4, 4), 1,
                                   guarded(_scatter_elements), _run_scatter_elements, (3,),
                                   rounding=_scatter_elements_rounding, index_input=1,
                                   cpu_refuses=_element_index_out_of_range, evaluates=_SCATTER_ELEMENTS_EVALUATES)
SCATTER_ELEMENTS_UPDATE_12 = OpSpec("ScatterElementsUpdate", "ScatterElementsUpdate-12", ScatterElementsUpdate12Attrs,
                                    (4, 4), 1, guarded(_scatter_elements), _run_scatter_elements, (3,),
                                    rounding=_scatter_elements_rounding, index_input=1,
                                    cpu_refuses=_element_index_out_of_range, evaluates=_SCATTER_ELEMENTS_EVALUATES)


def _slice_scatter(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """slice_scatter_shape_inference.hpp: data and updates of one rank (the output takes the updates' where the data's
    is dynamic), neither a scalar; start, stop, step and axes as Slice-8 reads them, whose slice of the data (Slice-8's
    rule) the updates must be compatible with; where neither axes nor a known start says which axes are sliced, any
    dim may be (each from 0 to its maximum), as where the data's rank is dynamic (its axes unread); a slice with an
    empty dim no updates of a known rank fit. The output is data's element type and shape."""
    data, updates = inputs[:2]
    if data.shape is not None and updates.shape is not None and len(data.shape) != len(updates.shape):
        raise OpValidationError(f"data of rank {len(data.shape)} and updates of rank {len(updates.shape)}: their ranks "
                                "must agree")
    shape = data.shape if data.shape is not None or updates.shape is None else (DYNAMIC,) * len(updates.shape)
    if shape is not None and not shape:
        raise OpValidationError("data and updates must not be scalars")
    known = [values[0], *values[2:5], *(values[5:] if data.shape is not None else [None] * len(values[5:]))]
    try:  # (axes are read where the data's own rank is known, not the updates')
        sliced = slice_infer(NoAttrs(), [TensorType(data.element, shape), *inputs[2:]], known)[0]
    except Unmatched:  # (a dim of the slice empty: no updates of a known rank are compatible with it)
        if updates.shape is not None:
            raise OpValidationError(f"updates {show_shape(updates.shape)} are not compatible with the slice of data "
                                    "(a dim of it is empty)") from None
        return [TensorType(data.element, shape)]
    if sliced.shape is not None and updates.shape is not None:
        if len(inputs) == 5 and values[2] is None:  # (no axes map: any dim may be sliced)
            sliced = TensorType(data.element, tuple(Dim(0, d.hi) for d in sliced.shape))
        for axis, (want, got) in enumerate(zip(sliced.shape, updates.shape, strict=True)):
            if not compatible(iv(want), iv(got)):
                raise OpValidationError(f"updates dim {axis} is {got}, the slice of data there {want}")
    return [TensorType(data.element, shape)]


def _run_slice_scatter(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The data with the elements Slice-8 (its kernel, on their flat indices) selects replaced by the updates, in the
    order the slice reads them, as OpenVINO's ConvertSliceScatter decomposes it."""
    x, updates = np.asarray(args[0]), np.asarray(args[1])
    if updates.dtype != x.dtype:
        raise OpValidationError(f"updates of element type {updates.dtype} differ from data of {x.dtype}")
    at = SLICE_8.kernel(NoAttrs(), [np.arange(x.size).reshape(x.shape), *args[2:]])[0]
    if at.shape != updates.shape:
        raise OpValidationError(f"updates of shape {list(updates.shape)}, the slice of data {list(at.shape)}")
    out = x.copy()
    out.reshape(-1)[at.reshape(-1)] = updates.reshape(-1)
    return [out]


SLICE_SCATTER_15 = OpSpec("SliceScatter", "SliceScatter-15", NoAttrs, (5, 6), 1, guarded(_slice_scatter),
                          _run_slice_scatter, (2, 3, 4, 5), rounding=moves(0, 1), evaluates=never)
