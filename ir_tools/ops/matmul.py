"""MatMul-1 (OpenVINO's v0::MatMul, in opset1 to opset16) and Einsum-7 (opset7 to opset16): shape rules
and reference kernels. GroupedMatMul-17 (opset17 only): a shape rule alone.

The shape rules are OpenVINO's matmul_shape_inference.hpp and einsum_shape_inference.hpp; checked with
the kernels by tests/ops/test_matmul_conformance.py and tests/ops/test_einsum_conformance.py. Measured
on openvino 2026.4.1, beyond the specification:

- transpose_a/transpose_b are ignored on 1-D operands; scalars are refused.
- The inner dims must intersect unless one of them is dynamic (then anything passes: [2..3] against
  [5..7] is accepted). Batch dims broadcast as Dimension::broadcast_merge does on intervals: two that
  both may be 1 give their hull ([1..3] and [0..5] give [0..5]), one that may be 1 gives the other
  ([1..3] and [2..5] give [2..5], [?] and [4] give [4]), else their intersection; no intersection
  is refused unless one is dynamic, and then the output dim is [?] ([2..3] and [5..6]).
- The element types must be equal (a dynamic one takes the other's).
- Floats are multiplied and summed in float64 (BLAS) and rounded once: OpenVINO CPU's f16 results
  are the exactly rounded ones too. Integers follow the specification (wrap around in the element
  type); the CPU plugin computes i32 through f32, saturates i8 and computes i64 as i32.
- Einsum: an equation is split at the first "->" and at every comma, so "ij," names two inputs (the
  second a scalar) and "" one; whitespace is refused (the IR reader does not strip it), a missing
  equation reads as "". Implicit mode outputs, sorted, the labels that appear in no other input,
  repeated ones included ("ii" gives [n, n], which CPU refuses to compile, as any output label
  repeated). A label shared by inputs broadcasts (Dimension::broadcast_merge: [2, 1] and [2, 3] in
  "ij,ij->ij" give [2, 3]); a label repeated in one input must merge (a diagonal). Ellipsis dims
  missing from the output are summed ("a...a->a"); an output "..." that no input has is dropped. A
  dynamic-rank input with "..." gives a dynamic rank at once when the output has "..." (inputs after
  it are not checked). Only boolean inputs are refused; the types must be equal, a dynamic one passes
  and the output takes input 0's. CPU computes integers through f32 as MatMul (the kernel wraps).
- GroupedMatMul-17 (Mixture of Experts): mat_a, mat_b and optional offsets, no attributes. mat_a [G, M, K] and mat_b
  [G, N, K] give [G, M, N] (G and K merged, each group's A times its B transposed); mat_a [T, K], mat_b [G, N, K] and
  offsets (cumulative end rows of the groups) give [T, N], where offsets must be given. Other ranks (2D x 2D, which
  OpenVINO's later sources add, 3D x 2D, 1-D) are refused, a dynamic rank of either matrix gives a dynamic rank at
  once. offsets must be i32, i64 or dynamic and of rank 1 or dynamic rank (its length is not checked against G, a
  [0] one passes); in the 3D x 3D case its type is checked but not its rank. The matrices' element types merge (any
  type, boolean too). OpenVINO 2026.4.1 has no evaluate for it and its CPU plugin cannot compile it ("Cannot fallback
  on ngraph reference implementation"): there is no kernel to check one against, so none here, and ``check`` refuses
  the layer (``cpu_refuses``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .arithmetic import broadcast_dim, broadcast_shapes, merge_dim, merge_elements
from .core import NoAttrs
from .rounding import (
    accumulation,
    gamma,
    is_exact,
    output_rounding,
    scaled_squares,
    square_scale,
    unscaled_squares,
)
from .spec import Kernel, OpSpec, RoundingRule, TensorType, never, on_arithmetic


@dataclass(frozen=True, slots=True)
class MatMulAttrs:
    transpose_a: bool = A.attr("transpose_a", A.BOOL, False)
    transpose_b: bool = A.attr("transpose_b", A.BOOL, False)


def _infer(a: MatMulAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    ta, tb = inputs
    if ta.element is not None and tb.element is not None and ta.element != tb.element:
        raise OpValidationError(f"inputs of element types {ta.element} and {tb.element}: they must be equal")
    element = ta.element if ta.element is not None else tb.element
    if ta.shape is None or tb.shape is None:
        return [TensorType(element, None)]
    if not ta.shape or not tb.shape:
        raise OpValidationError("scalars are not supported as MatMul inputs")
    x, y = list(ta.shape), list(tb.shape)
    if a.transpose_a and len(x) > 1:
        x[-2], x[-1] = x[-1], x[-2]
    if a.transpose_b and len(y) > 1:
        y[-2], y[-1] = y[-1], y[-2]
    if len(x) == 1:
        x.insert(0, Dim(1, 1))
    if len(y) == 1:
        y.append(Dim(1, 1))
    col, row = x[-1], y[-2]
    if merge_dim(col, row) is None and col.is_static and row.is_static:
        raise OpValidationError(f"the first input's columns ({col}) do not match the second input's rows ({row})")
    if len(x) < len(y):
        x = [Dim(1, 1)] * (len(y) - len(x)) + x
    y = [Dim(1, 1)] * (len(x) - len(y)) + y
    out = []
    for i, (p, q) in enumerate(zip(x[:-2], y[:-2], strict=True)):
        merged = broadcast_dim(p, q)
        if merged is None:
            if p.is_static and q.is_static:
                raise OpValidationError(f"batch dims {p} and {q} at index {i} do not broadcast")
            merged = DYNAMIC
        out.append(merged)
    out += [x[-2], y[-1]]
    if len(ta.shape) == 1:
        del out[-2]
    if len(tb.shape) == 1:
        del out[-1]
    return [TensorType(element, tuple(out))]


def _run(a: MatMulAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, y = (np.asarray(v) for v in args)
    if x.dtype != y.dtype:
        raise OpValidationError(f"inputs of element types {x.dtype} and {y.dtype}: they must be equal")
    if x.ndim == 0 or y.ndim == 0:
        raise OpValidationError("scalars are not supported as MatMul inputs")
    if a.transpose_a and x.ndim > 1:
        x = np.swapaxes(x, -1, -2)
    if a.transpose_b and y.ndim > 1:
        y = np.swapaxes(y, -1, -2)
    inner_x, inner_y = x.shape[-1], y.shape[-2] if y.ndim > 1 else y.shape[0]
    if inner_x != inner_y:
        raise OpValidationError(f"the first input's columns ({inner_x}) do not match the second input's rows "
                                f"({inner_y})")
    try:
        np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    except ValueError:
        raise OpValidationError(f"batch dims {list(x.shape[:-2])} and {list(y.shape[:-2])} do not broadcast") from None
    if x.dtype.kind == "f":
        return [_blocked_product(x, y, np.float64).astype(x.dtype)]
    return _integer_product(x, y)


#: Inner-dim rows of the second input cast to float64 at a time (a large weight matrix is not copied whole).
_BLOCK_ELEMENTS = 1 << 22


def _column_blocks(y: np.ndarray, dtype: type) -> Iterator[tuple[slice, np.ndarray, np.ndarray]]:
    """A column-major matrix y (a transposed weight matrix) a block of columns at a time, each a contiguous run of
    memory: (the block's columns, y's block, the one array of ``dtype`` every block is written into, at its shape)."""
    step = max(1, _BLOCK_ELEMENTS // y.shape[0])
    blocks = np.empty((y.shape[0], step), dtype, order="F")
    for j in range(0, y.shape[1], step):
        part = y[:, j:j + step]
        yield slice(j, j + step), part, blocks[:, :part.shape[1]]


def _blocked_product(x: np.ndarray, y: np.ndarray, dtype: type, exponent: int = 0,
                     scales: tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
    """x @ y summed in ``dtype`` (|x|^e @ |y|^e for an ``exponent`` e of 1 or 2). A large y is cast a block at a
    time, each block into the same array: casting a large weight matrix whole costs a fresh copy of it and its page
    faults, and so does a fresh block of 32 MB (glibc maps each allocation of that size anew). The blocks follow y's
    memory: a transposed weight matrix (a column-major y, transpose_b) goes a block of output columns at a time, each
    a contiguous run of memory cast in one pass with every sum whole; a row-major y a block of inner rows at a
    time. Squares in f32 are of x and y times ``scales`` (powers of 2 that keep them in range), at least
    rounding.SQUARE_FLOOR (an upper bound). A stack of x against one matrix y is one product of x's rows: numpy
    multiplies a stack matrix by matrix, and a stack of single rows (a sequence-first [197, 1, 768], vit_b_16's
    attention projections) reads the whole of y once per row, 8x slower than one product."""
    if y.ndim == 2 and x.ndim > 2 and math.prod(x.shape[:-2]) > 1:
        rows = x.reshape(-1, x.shape[-1])
        return _blocked_product(rows, y, dtype, exponent, scales).reshape(*x.shape[:-1], y.shape[1])

    def prepared(v: np.ndarray, scale: float, into: np.ndarray | None = None) -> np.ndarray:
        """v's terms in ``dtype`` (written ``into`` that array, of v's shape and layout, where given)."""
        if exponent == 2 and dtype == np.float32:
            return scaled_squares(v, scale, into)
        if exponent == 2:
            return np.square(v, dtype=dtype, out=into)  # one pass, cast and power together
        if exponent:
            return np.abs(v, dtype=dtype, out=into)
        if into is None:
            return v.astype(dtype, copy=False)
        np.copyto(into, v)
        return into

    wide = prepared(x, scales[0])
    if y.ndim != 2 or y.size <= _BLOCK_ELEMENTS:
        return np.matmul(wide, prepared(y, scales[1]))
    if y.strides[0] < y.strides[1]:
        out = np.empty((*wide.shape[:-1], y.shape[1]), dtype)
        for columns, part, into in _column_blocks(y, dtype):
            out[..., columns] = np.matmul(wide, prepared(part, scales[1], into))
        return out
    step = max(1, _BLOCK_ELEMENTS // y.shape[1])
    blocks = np.empty((step, y.shape[1]), dtype)
    out = np.matmul(wide[..., :step], prepared(y[:step], scales[1], blocks[:min(step, y.shape[0])]))
    for k in range(step, y.shape[0], step):
        part = y[k:k + step]
        out += np.matmul(wide[..., k:k + step], prepared(part, scales[1], blocks[:part.shape[0]]))
    return out


def _magnitude(a: MatMulAttrs, args: Sequence[np.ndarray], exponent: int) -> list[np.ndarray]:
    """|x|^e @ |y|^e in at least f32 (BLAS), for the rounding bound: no float64 copy, and no power, of a large
    weight matrix."""
    x, y = (np.asarray(v) for v in args)
    if x.dtype.kind != "f":
        return _run(a, [np.abs(x) ** exponent, np.abs(y) ** exponent])
    if a.transpose_a and x.ndim > 1:
        x = np.swapaxes(x, -1, -2)
    if a.transpose_b and y.ndim > 1:
        y = np.swapaxes(y, -1, -2)
    if exponent == 2:
        # squares in f32 scaled into range (unscaled they overflow or turn subnormal, which BLAS computes slowly): the
        # statistical bound's K(b^2, w^2) at sgemm's speed (vgg11's classifier: 0.29 -> 0.10 s)
        scales = (square_scale(x), square_scale(y))
        if None in scales:
            return [_blocked_product(x, y, np.float64, 2)]
        sx, sy = scales
        return [unscaled_squares(_blocked_product(x, y, np.float32, 2, (sx, sy)), sx, sy)]
    return [_blocked_product(x, y, np.promote_types(x.dtype, np.float32), exponent)]


def _integer_product(x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    if x.dtype.kind in "iu":
        wide = np.uint64 if x.dtype.kind == "u" else np.int64
        with np.errstate(all="ignore"):
            return [np.matmul(x.astype(wide), y.astype(wide)).astype(x.dtype)]
    raise UnsupportedError(f"MatMul of element type {x.dtype}")


def _inner(a: MatMulAttrs, args: Sequence[np.ndarray], outputs) -> int:
    """The length of each output's sum: the first input's columns (rows when transposed)."""
    shape = np.shape(args[0])
    return shape[-2] if a.transpose_a and len(shape) > 1 else shape[-1]


def _empty_operand(a: MatMulAttrs, inputs: Sequence[TensorType], values) -> str | None:
    """An operand with a dim of 0 (a batch dim, a row, a column or the summed dim; the others static or not): OpenVINO
    CPU refuses to compile the MatMul ("object is not initialized"; measured on 2026.4: f32, f16, i32, i8). Of two
    Consts it folds the layer away."""
    if values[0] is not None and values[1] is not None:
        return None
    for i, t in enumerate(inputs[:2]):
        if t.shape is not None and any(d.hi == 0 for d in t.shape):
            dims = ",".join(str(d) for d in t.shape)
            return (f"input {i} of shape [{dims}] holds no element: OpenVINO CPU refuses to compile a MatMul of an "
                    "empty operand")
    return None


def _shared_columns(a: MatMulAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray]) -> np.ndarray | None:
    """What an error every row of the second operand shares along the summed axis adds to the statistical bound,
    which adds the terms' errors in quadrature as if independent: such an error of column n is at most the column's
    least bound, s_n, and moves the sum by s_n |sum_k x[m, k]|. Where two models' weights differ (``compare
    --against``), an f16 bias of V is one rounding every token's row of V shares, which attention's probabilities
    (summing to 1) pass on whole, where the quadrature gave sqrt(sum p^2) of it: mobilevit against its f16 twin had
    two attention outputs 2-3% beyond their bound. Not for OpenVINO against the reference, whose errors are each
    element's own rounding (there it loosened gpt2's and llama's logits' bounds 1.6 and 2.8 times for nothing). None
    where an operand is not a float matrix or the second's bound has no such part."""
    x = np.asarray(args[0])
    common = column_floor(args[1], bounds[1], a.transpose_b)
    if x.dtype.kind != "f" or x.ndim < 2 or common is None:
        return None
    rows = np.abs(np.sum(x, axis=-2 if a.transpose_a else -1, keepdims=True, dtype=np.float64))
    return (np.swapaxes(rows, -1, -2) if a.transpose_a else rows) * common


def column_floor(w: np.ndarray, bound: np.ndarray, transposed: bool = False) -> np.ndarray | None:
    """The least of ``bound`` (an error bound of the second operand of a product, ``w``) along the summed axis, per
    column of the product ([..., 1, N]): at most what an error every term of the column shares can be
    (``_shared_columns``). None where ``w`` is not a float matrix or that least is 0 everywhere."""
    w = np.asarray(w)
    if w.dtype.kind != "f" or w.ndim < 2 or is_exact(np.asarray(bound)):
        return None
    common = np.min(np.broadcast_to(np.asarray(bound, np.float64), w.shape), axis=-1 if transposed else -2,
                    keepdims=True)
    if not np.any(common > 0):
        return None
    return np.swapaxes(common, -1, -2) if transposed else common


_ROUNDING = accumulation(_inner, magnitude=_magnitude)
_ROUNDING.shared = _shared_columns  # type: ignore[attr-defined]
MATMUL_1 = OpSpec("MatMul", "MatMul-1", MatMulAttrs, (2, 2), 1, _infer, _run,
                  rounding=_ROUNDING, cpu_refuses=_empty_operand, evaluates=on_arithmetic)


# --- Einsum ------------------------------------------------------------------------------------------

ELLIPSIS = "..."


@dataclass(frozen=True, slots=True)
class EinsumAttrs:
    equation: str = A.attr("equation", A.STRING, "")


def _labels(subscript: str, what: str) -> tuple[str, ...]:
    """Einsum::extract_labels of a subscript is_subscript_correct accepts: ASCII letters and at most one "..."."""
    out: list[str] = []
    at = 0
    while at < len(subscript):
        if ELLIPSIS not in out and subscript.startswith(ELLIPSIS, at):
            out.append(ELLIPSIS)
            at += 3
        elif subscript[at].isascii() and subscript[at].isalpha():
            out.append(subscript[at])
            at += 1
        else:
            raise OpValidationError(f"{what} subscript '{subscript}' must be letters with at most one '...'")
    return tuple(out)


@lru_cache(maxsize=256)
def parse_equation(equation: str) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """Einsum::parse_equation: the labels of each input and of the output (implicit mode: the labels that
    appear in no other input, sorted, after "..." if an input has one)."""
    left, arrow, right = equation.partition("->")
    inputs = tuple(_labels(s, "input") for s in left.split(","))
    if arrow:
        return inputs, _labels(right, "output")
    alone = sorted(label for k, labels in enumerate(inputs) for label in labels
                   if label != ELLIPSIS and not any(label in other for j, other in enumerate(inputs) if j != k))
    return inputs, (ELLIPSIS,) * any(ELLIPSIS in labels for labels in inputs) + tuple(alone)


def _einsum_element(inputs: Sequence[TensorType]) -> str | None:
    first = inputs[0].element
    if first == "boolean":
        raise OpValidationError("Einsum inputs must be numeric, got boolean")
    if first is not None and any(t.element not in (None, first) for t in inputs[1:]):
        raise OpValidationError(f"inputs of element types {[t.element for t in inputs]}: they must be equal")
    return first


def _einsum(a: EinsumAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    element = _einsum_element(inputs)
    subscripts, output = parse_equation(a.equation)
    if len(subscripts) != len(inputs):
        raise OpValidationError(f"the equation names {len(subscripts)} inputs, the layer has {len(inputs)}")
    known: dict[str, list[Dim]] = {}  # each label's dims (one, or the ellipsis' several)
    for t, labels in zip(inputs, subscripts, strict=True):
        if t.shape is None:
            if ELLIPSIS in labels and ELLIPSIS in output:
                return [TensorType(element, None)]
            for label in labels:
                known.setdefault(label, [DYNAMIC])
            continue
        rank = len(t.shape)
        if rank < len(labels) - 1 or (ELLIPSIS not in labels and rank != len(labels)):
            raise OpValidationError(f"an input of rank {rank} cannot have the labels {''.join(labels)}")
        own: dict[str, Dim] = {}
        at = 0
        for label in labels:
            if label == ELLIPSIS:
                width = rank - len(labels) + 1
                part = list(t.shape[at:at + width])
                known[label] = list(broadcast_shapes(tuple(known[label]), tuple(part))) if label in known else part
                at += width
                continue
            same = merge_dim(own[label], t.shape[at]) if label in own else t.shape[at]
            if same is None:
                raise OpValidationError(f"label {label} is repeated on dims {own[label]} and {t.shape[at]}")
            own[label] = same
            at += 1
        for label, d in own.items():
            merged = broadcast_dim(known[label][0], d) if label in known else d
            if merged is None:
                raise OpValidationError(f"label {label} has dims {known[label][0]} and {d}, which do not broadcast")
            known[label] = [merged]
    out: list[Dim] = []
    for label in output:
        if label not in known and label != ELLIPSIS:
            raise OpValidationError(f"output label {label} is in no input subscript")
        out += known.get(label, [])
    return [TensorType(element, tuple(out))]


def _sublists(a: EinsumAttrs, shapes: Sequence[tuple[int, ...]]) -> tuple[list[list[int]], list[int], list[int]]:
    """numpy's sublist form of the equation for inputs of ``shapes``: each input's axes and the output's as
    integer labels (an ellipsis spelled out, right-aligned), and the sizes of the labels summed away."""
    subscripts, output = parse_equation(a.equation)
    if len(subscripts) != len(shapes):
        raise OpValidationError(f"the equation names {len(subscripts)} inputs, got {len(shapes)}")
    widths = [len(shape) - len(labels) + 1 if ELLIPSIS in labels else 0
              for shape, labels in zip(shapes, subscripts, strict=True)]
    if any(w < 0 or (ELLIPSIS not in labels and len(shape) != len(labels))
           for shape, labels, w in zip(shapes, subscripts, widths, strict=True)):
        raise OpValidationError(f"inputs of shapes {[list(s) for s in shapes]} do not fit '{a.equation}'")
    letters = sorted({label for labels in subscripts for label in labels} - {ELLIPSIS})
    if any(label not in letters and label != ELLIPSIS for label in output) or len(set(output)) != len(output):
        raise OpValidationError(f"the output of '{a.equation}' repeats a label or names one no input has "
                                "(OpenVINO CPU refuses to compile it)")
    width = max(widths, default=0)
    if len(letters) + width > 52:
        raise UnsupportedError(f"Einsum '{a.equation}' has more than 52 labels (numpy's limit)")
    number = {label: [n] for n, label in enumerate(letters)}
    lanes = list(range(len(letters), len(letters) + width))
    axes = [[n for label in labels for n in (lanes[width - w:] if label == ELLIPSIS else number[label])]
            for labels, w in zip(subscripts, widths, strict=True)]
    out = [n for label in output for n in (lanes if label == ELLIPSIS else number[label])]
    sizes: dict[int, int] = {}
    for shape, ax in zip(shapes, axes, strict=True):
        for n, size in zip(ax, shape, strict=True):
            sizes[n] = size if sizes.get(n, 1) == 1 else sizes[n]  # a 1 broadcasts
    return axes, out, [size for n, size in sizes.items() if n not in out]


def _run_einsum(a: EinsumAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    if len({x.dtype for x in args}) > 1:
        raise OpValidationError(f"inputs of element types {[str(x.dtype) for x in args]}: they must be equal")
    axes, out, _ = _sublists(a, [x.shape for x in args])
    dtype = args[0].dtype
    if dtype.kind == "f":
        wide = np.float64
    elif dtype.kind in "iu":
        wide = np.uint64 if dtype.kind == "u" else np.int64
    else:
        raise UnsupportedError(f"Einsum of element type {dtype}")
    if len(args) == 2 and (product := _as_matmul(args[0].astype(wide, copy=False), axes[0],
                                                  args[1].astype(wide, copy=False), axes[1], out)) is not None:
        return [product.astype(dtype)]
    operands = [v for x, ax in zip(args, axes, strict=True) for v in (x.astype(wide, copy=False), ax)]
    try:  # numpy's path search pays off only beyond two operands
        with np.errstate(all="ignore"):
            return [np.asarray(np.einsum(*operands, out, optimize=len(args) > 2)).astype(dtype)]
    except ValueError as exc:  # dims of one label that neither match nor broadcast
        raise OpValidationError(f"inputs of shapes {[list(x.shape) for x in args]} do not fit '{a.equation}': "
                                f"{exc}") from None


def _as_matmul(x: np.ndarray, ax: list[int], y: np.ndarray, ay: list[int], out: list[int]) -> np.ndarray | None:
    """A two-input contraction as one batched matrix product (BLAS, where numpy's einsum loops in C without it);
    None where einsum itself must do it (a label
    repeated in an input, one that broadcasts, or one summed away from a single input)."""
    if len(set(ax)) != len(ax) or len(set(ay)) != len(ay):
        return None
    sizes: dict[int, int] = {}
    for shape, labels in ((x.shape, ax), (y.shape, ay)):
        if any(sizes.setdefault(n, size) != size for n, size in zip(labels, shape, strict=True)):
            return None
    if any(n not in out and (n in ax) != (n in ay) for n in sizes):
        return None
    batch = [n for n in out if n in ax and n in ay]
    left = [n for n in out if n in ax and n not in ay]
    right = [n for n in out if n in ay and n not in ax]
    inner = [n for n in ax if n in ay and n not in out]

    def block(v: np.ndarray, labels: list[int], rows: list[int], cols: list[int]) -> np.ndarray:
        order = [labels.index(n) for n in (*batch, *rows, *cols)]
        return v.transpose(order).reshape(math.prod(sizes[n] for n in batch), math.prod(sizes[n] for n in rows),
                                          math.prod(sizes[n] for n in cols))

    with np.errstate(all="ignore"):
        product = np.matmul(block(x, ax, left, inner), block(y, ay, inner, right))
    found = [*batch, *left, *right]
    return product.reshape([sizes[n] for n in found]).transpose([found.index(n) for n in out])


def _summed(a: EinsumAttrs, args: Sequence[np.ndarray], outputs) -> int:
    """The number of products summed into each output element: the sizes of the labels summed away."""
    return math.prod(_sublists(a, [np.shape(x) for x in args])[2])


def _many(kernel: Kernel, attrs: EinsumAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
          outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Beyond two inputs, where ``accumulation`` propagates the errors of two only: gamma(n + k - 2) K(|x_1|, ...,
    |x_k|) + the output's rounding. Each of the n terms is a product of k inputs, rounded k - 1 times, and then
    summed: n - 1 additions at most along any term's path, in whatever order OpenVINO contracts the inputs.
    Input errors b widen |x| to |x| + b (the worst case, statistically too: the rule is for rare equations)."""
    g = gamma(_summed(attrs, args, outputs) + len(args) - 2)
    size = np.asarray(kernel(attrs, [np.abs(np.asarray(x, np.float64)) for x in args])[0], np.float64)
    result = g * size + output_rounding(outputs[0])
    if all(is_exact(b) for b in bounds):
        return [result]
    widened = kernel(attrs, [np.abs(np.asarray(x, np.float64)) + b for x, b in zip(args, bounds, strict=True)])[0]
    return [result + (1.0 + g) * np.asarray(widened, np.float64) - size]


#: accumulation for one input (a transpose, a diagonal, a sum) and for two; _many beyond.
_BY_INPUTS = {1: accumulation(_summed, data=(0,)), 2: accumulation(_summed)}


def _einsum_rounding(statistical: bool) -> RoundingRule:
    def rule(kernel: Kernel, attrs: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        chosen = _BY_INPUTS.get(len(args), _many)
        if statistical and chosen is not _many:
            chosen = chosen.statistical  # type: ignore[attr-defined]
        return chosen(kernel, attrs, args, bounds, outputs)

    return rule


_EINSUM_ROUNDING = _einsum_rounding(False)
_EINSUM_ROUNDING.statistical = _einsum_rounding(True)  # type: ignore[attr-defined]

EINSUM_7 = OpSpec("Einsum", "Einsum-7", EinsumAttrs, (1, 1 << 30), 1, _einsum, _run_einsum,
                  rounding=_EINSUM_ROUNDING, evaluates=never)


# --- GroupedMatMul ------------------------------------------------------------------------------------


def _grouped(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """OpenVINO's GroupedMatMul-17 inference (the module's docstring): [G, M, N] of 3D x 3D, [T, N] of 2D x 3D."""
    x, w = inputs[:2]
    element = merge_elements(x.element, w.element, "mat_a and mat_b")
    offsets = inputs[2] if len(inputs) > 2 else None
    if offsets is not None and offsets.element not in (None, "i32", "i64"):
        raise OpValidationError(f"offsets of element type {offsets.element}: it must be i32 or i64")
    if x.shape is None or w.shape is None:
        return [TensorType(element, None)]
    ranks = (len(x.shape), len(w.shape))
    if ranks not in ((3, 3), (2, 3)):
        raise OpValidationError(f"mat_a of rank {ranks[0]} and mat_b of rank {ranks[1]}: GroupedMatMul takes 2D x 3D "
                                "and 3D x 3D")
    if merge_dim(x.shape[-1], w.shape[2]) is None:
        raise OpValidationError(f"mat_a's inner dim {x.shape[-1]} does not match mat_b's {w.shape[2]}")
    if ranks == (3, 3):
        groups = merge_dim(x.shape[0], w.shape[0])
        if groups is None:
            raise OpValidationError(f"mat_a's groups {x.shape[0]} do not match mat_b's {w.shape[0]}")
        return [TensorType(element, (groups, x.shape[1], w.shape[1]))]
    if offsets is None:
        raise OpValidationError("GroupedMatMul of a 2D mat_a needs the offsets input")
    if offsets.shape is not None and len(offsets.shape) != 1:
        raise OpValidationError(f"offsets of rank {len(offsets.shape)}: it must be 1-D")
    return [TensorType(element, (x.shape[0], w.shape[1]))]


def _no_grouped_kernel(a: NoAttrs, inputs: Sequence[TensorType], values) -> str:
    return ("OpenVINO 2026.4.1's CPU plugin has no GroupedMatMul (\"Cannot fallback on ngraph reference "
            "implementation\": it has no evaluate either)")


#: A shape rule alone: OpenVINO can compute it nowhere (so compare has nothing to check a kernel against).
GROUPED_MATMUL_17 = OpSpec("GroupedMatMul", "GroupedMatMul-17", NoAttrs, (2, 3), 1, _grouped,
                           cpu_refuses=_no_grouped_kernel)
