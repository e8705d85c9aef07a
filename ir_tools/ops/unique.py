"""Unique-10 (torch.unique, tf.unique): attributes, shape rule, a kernel computing what OpenVINO CPU gives, and its
rounding rule (exact: the outputs are data elements and indices).

Checked against the installed openvino by tests/ops/test_unique_istft_conformance.py. Measured on openvino 2026.4.1
(``passes/downgrade/unique.py`` reads the CPU's node, src/plugins/intel_cpu/src/nodes/unique.cpp, the same way):

- Unique-10 is in opset10..16. ``sorted`` (default true), ``index_element_type`` and ``count_element_type`` (i32 or
  i64, default i64; any other refused). Data of any element type; the optional axis an i32 or i64 Constant of shape
  [] or [1] (a Parameter, another type or shape refused: "must be connected to a Constant"), in [-r, r - 1] of a data
  of rank r >= 1.
- Shape inference (without the data's values): N the data's element count where its shape is static; the indices
  and counts [1..N] (N > 0) else [?]; the reverse indices [N] (N > 0) else [?]; the unique elements [1..N] (N > 0),
  [?] (N unknown), and a dim of the empty interval 1..0 where N = 0 (not re-inferred: no ``Dim`` holds that). With
  an axis (rank known): the data's shape with the axis dim d made [1..d] (d static > 0; reverse indices [d]), 0 (d =
  0: indices, reverse indices and counts [0]), [1..hi] (d an interval; reverse indices [d]) or ? (d dynamic; reverse
  indices [?]).
- Where the data is a Constant node, OpenVINO's shapes are exact (its reference's count: elements or slices equal by
  ``==``, NaN unique, -0 equal to 0, i64 compared whole; its sort's count of NaN its own), the axis not checked
  (flattened where it is not a Constant, which the rule refuses; a scalar or an axis out of range crashes it, as does
  empty data). Only a
  Constant node: a Convert of a Constant, which ``check`` folds (passes/shapes.py, rule 5), leaves them bounded. So
  the data is no value input here: the rule gives the bounds, which hold the exact shapes (``check`` takes a declared
  dim within them), and ``compare`` draws the data at random as any data (a value input it would take for one whose
  values shape the output).
- The CPU computes f32, i32, i8 and u8 data as they are, f16 as f32 and i64 as i32 (wrapped: 2^40 as 0, the unique
  elements given back as i64). Flattened, sorted false: the first occurrences in order (NaN each unique, -0 and 0 one,
  the first occurrence's value); sorted true: ascending (std::sort, then std::unique; NaN breaks the sort: refused,
  ``UnsupportedError``; the sign of a zero among -0 and 0 is the first occurrence's up to 16 elements, and std::sort's
  choice past that). With an axis: slices compared element by element in memory order, where a slice that matches a
  unique one in its first blocks of the outer dims (the dims before the axis) is compared with the next unique ones
  from that shifted place (its pointers not reset; the kernel does the same, and refuses where that reads past the
  data); sorted true orders the unique slices lexicographically (stable: ties in their order), a NaN among them
  refused. Slices of i8 and u8 (the CPU copies the indices by the data's element size: garbage) are refused.
- Empty data (of any dim 0, flattened or not, of a static or a dynamic shape) the CPU fails to run ("Cannot get dims
  for non static shape"): the kernel refuses it, and ``check`` a static empty shape (``cpu_refuses``).
- The CPU computes no output right when sorted is false, the data flattened, and its reverse indices are not read
  (the unique elements come out ``[3, 0, 0]`` for ``[3, 1, 3, 2, 1, 3]``): a fact of the graph, not of the layer, left
  to ``compare`` to report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .operands import normalize_axis, scalar_axis
from .rounding import exact
from .spec import OpSpec, TensorType, never

_INDEX_TYPES = A.enum("i32", "i64")
#: The element types the CPU's node computes, each as the type it compares in (i64 wrapped to i32).
_COMPARED = {np.dtype(np.float32): np.float32, np.dtype(np.float16): np.float32, np.dtype(np.int32): np.int32,
             np.dtype(np.int64): np.int32, np.dtype(np.int8): np.int8, np.dtype(np.uint8): np.uint8}
_EMPTY = "OpenVINO CPU fails to run it (\"Cannot get dims for non static shape\")"
_NUMPY = {"i32": np.int32, "i64": np.int64}
#: std::sort sorts this many elements or fewer by insertion (stable): past it, which of -0 and 0 is kept varies.
STABLE_SORT_MOST = 16


@dataclass(frozen=True, slots=True)
class UniqueAttrs:
    sorted: bool = A.attr("sorted", A.BOOL, True)
    index_element_type: str = A.attr("index_element_type", _INDEX_TYPES, "i64")
    count_element_type: str = A.attr("count_element_type", _INDEX_TYPES, "i64")


def _axis(inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> int | None:
    """The axis input's value (None: flattened), refused as OpenVINO refuses it."""
    if len(inputs) < 2:
        return None
    axis = inputs[1]
    if axis.element not in ("i32", "i64"):
        raise OpValidationError(f"the axis of element type {axis.element or 'dynamic'}: it must be i32 or i64")
    if axis.shape is None or len(axis.shape) > 1 or (axis.shape and axis.shape[0] != Dim(1, 1)):
        raise OpValidationError("the axis must be a scalar or a 1-D tensor of one element")
    if values[1] is None:
        raise OpValidationError("the axis must be a Constant: OpenVINO's Unique reads its value")
    return scalar_axis(values[1])


def _unique(a: UniqueAttrs, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    """OpenVINO's inference of the four outputs without the data's values (the module's docstring)."""
    data = inputs[0]
    types = (data.element, a.index_element_type, a.index_element_type, a.count_element_type)
    axis = _axis(inputs, values)
    at = None
    if axis is not None and data.shape is not None:
        if len(data.shape) == 0:
            raise OpValidationError("Unique of a scalar takes no axis")
        at = normalize_axis(axis, len(data.shape))
    size = None if data.shape is None or not all(d.is_static for d in data.shape) else \
        int(np.prod([d.lo for d in data.shape]))
    if size == 0 and axis is None:
        return None  # (OpenVINO gives the unique elements a dim of the empty interval 1..0, which no Dim holds)
    some = (Dim(1, size),) if size else (DYNAMIC,)
    shapes = [None if axis is not None else some, some, (Dim(size, size),) if size else (DYNAMIC,), some]
    if at is not None:
        assert data.shape is not None
        d = data.shape[at]
        if d == Dim(0, 0):
            out, shapes[1], shapes[2], shapes[3] = d, (d,), (d,), (d,)
        else:
            out = DYNAMIC if d == DYNAMIC else Dim(1, d.hi)
            shapes[2] = (d,)
        shapes[0] = data.shape[:at] + (out,) + data.shape[at + 1:]
    return [TensorType(t, s) for t, s in zip(types, shapes, strict=True)]


def _groups(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per element of 1-D ``x``, the index of the first element equal to it (by ``==``: a NaN only to itself); and
    which are first occurrences."""
    first = np.arange(x.size)
    kept = ~np.isnan(x) if x.dtype.kind == "f" else np.ones(x.size, bool)
    _, at, back = np.unique(x[kept], return_index=True, return_inverse=True)
    first[kept] = np.flatnonzero(kept)[at][back.reshape(-1)]
    return first, first == np.arange(x.size)


def _flattened(x: np.ndarray, w: np.ndarray, sorted_: bool) -> tuple[np.ndarray, ...]:
    """The CPU's outputs of flattened data ``x`` compared as ``w``: unique elements, first indices, reverse indices,
    counts."""
    first, is_first = _groups(w)
    firsts = np.flatnonzero(is_first)
    if sorted_:
        firsts = firsts[np.argsort(w[firsts], kind="stable")]
    place = np.empty(x.size, np.int64)
    place[firsts] = np.arange(firsts.size)
    reverse = place[first]
    return x[firsts], firsts, reverse, np.bincount(reverse, minlength=firsts.size)


def _cpu_match(blocks: np.ndarray, s: int, uniques: list[int]) -> int | None:
    """The place among ``uniques`` of the slice the CPU finds slice ``s`` of ``blocks`` (outer, axis, inner) equal to,
    or None: it compares block by block, and its pointer into slice ``s`` stays moved on by the blocks that matched
    for the next unique slice (UnsupportedError where that reads past the data)."""
    shift = 0
    for u, v in enumerate(uniques):
        for o in range(blocks.shape[0]):
            if not blocks.shape[2]:
                continue  # (empty blocks: equal, nothing read)
            if shift + o >= blocks.shape[0]:
                raise UnsupportedError("Unique-10 here: OpenVINO CPU compares a slice past the data (its pointers not "
                                       "reset after a partial match), what lies there decides")
            if not np.array_equal(blocks[shift + o, s], blocks[o, v]):
                shift += o
                break
        else:
            return u
    return None


def _sliced(x: np.ndarray, w: np.ndarray, at: int, sorted_: bool) -> tuple[np.ndarray, ...]:
    """The CPU's outputs of slices of ``x`` (compared as ``w``) along axis ``at``: its search for unique slices, its
    pointers not reset (the module's docstring), then a stable lexicographic sort where ``sorted_``."""
    count = x.shape[at]
    blocks = w.reshape(int(np.prod(x.shape[:at], dtype=np.int64)), count, -1)  # (outer, axis, inner)
    uniques, reverse, counts = [0], np.zeros(count, np.int64), np.ones(count, np.int64)
    for s in range(1, count):
        u = _cpu_match(blocks, s, uniques)
        if u is None:
            reverse[s] = len(uniques)
            uniques.append(s)
        else:
            counts[u] += 1
            reverse[s] = u
    firsts = np.array(uniques, np.int64)
    counts = counts[:firsts.size]
    if sorted_:
        keys = blocks[:, firsts].transpose(1, 0, 2).reshape(firsts.size, -1)
        if keys.dtype.kind == "f" and np.isnan(keys).any():
            raise UnsupportedError("Unique-10 sorted, of slices holding NaN: OpenVINO CPU's sort orders NaN as no "
                                   "kernel here can")
        order = np.lexsort(keys.T[::-1]) if keys.shape[1] else np.arange(firsts.size)
        place = np.empty(firsts.size, np.int64)
        place[order] = np.arange(firsts.size)
        firsts, counts, reverse = firsts[order], counts[order], place[reverse]
    return np.take(x, firsts, axis=at), firsts, reverse, counts


def _run(a: UniqueAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The four outputs OpenVINO CPU gives (the module's docstring); what it computes wrongly or not at all refused."""
    x = np.asarray(args[0])
    compared = _COMPARED.get(x.dtype)
    if compared is None:
        raise UnsupportedError(f"Unique-10 of element type {x.dtype}: only f32, f16, i32, i64, i8 and u8 are modelled "
                               "(ops/unique.py)")
    if x.size == 0:
        raise UnsupportedError(f"Unique-10 of empty data: {_EMPTY}")
    stored = x.astype(np.int32).astype(x.dtype) if x.dtype == np.int64 else x  # (the CPU computes i64 as i32)
    w = stored.astype(compared)
    if len(args) > 1:
        if x.dtype.itemsize == 1:
            raise UnsupportedError(f"Unique-10 of slices of {x.dtype}: OpenVINO CPU copies their indices by the "
                                   "data's element size, giving what its memory held")
        values, firsts, reverse, counts = _sliced(stored, w, normalize_axis(scalar_axis(args[1]), x.ndim), a.sorted)
    else:
        if a.sorted and x.dtype.kind == "f" and np.isnan(w).any():
            raise UnsupportedError("Unique-10 sorted, of floats holding NaN: OpenVINO CPU's std::sort orders NaN as "
                                   "no kernel here can")
        values, firsts, reverse, counts = _flattened(stored.reshape(-1), w.reshape(-1), a.sorted)
    index = _NUMPY[a.index_element_type]
    return [values, firsts.astype(index), reverse.astype(index), counts.astype(_NUMPY[a.count_element_type])]


def _empty(a: UniqueAttrs, inputs: Sequence[TensorType], values) -> str | None:
    """Data of a static shape holding no element, which OpenVINO CPU cannot run (and Const data of it crashes
    OpenVINO's shape inference)."""
    shape = inputs[0].shape
    if shape is None or not all(d.is_static for d in shape) or all(d.lo for d in shape):
        return None
    return f"its data [{','.join(str(d) for d in shape)}] holds no element: {_EMPTY}"


UNIQUE_10 = OpSpec("Unique", "Unique-10", UniqueAttrs, (1, 2), 4, _unique, _run, value_inputs=(1,), rounding=exact,
                   cpu_refuses=_empty, evaluates=never)
