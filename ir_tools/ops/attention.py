"""ScaledDotProductAttention-13 (opset13 to opset16): shape rule, reference kernel and rounding rule.

OpenVINO's frontends fuse the attention of transformers (vit, swin, maxvit's blocks) into this one op, so a
converted transformer holds one per attention block. Semantics (OpenVINO's specification and its decomposition,
transformations/op_conversions/scaled_dot_product_attention_decomposition.cpp):
``softmax((Q * scale) @ K^T + mask, -1) @ V``, where ``scale`` is input 4 or else 1 / sqrt(E) computed in the
element type; a boolean mask lets True take part (False adds -inf); ``causal`` ignores input 3 and masks every
key after the query's own position (j > i, from the top left). Batch dims of Q, K, V and the mask broadcast.

The shape rule is scaled_dot_product_attention_shape_inference.hpp; checked with the kernel by
tests/ops/test_attention_conformance.py. Measured on openvino 2026.4.1, beyond the specification:

- The mask's dims broadcast into the output's: its second last into L (a query of L = 1 with a mask of 5 rows
  gives 5 rows), its batch dims into the batch dims; a scalar mask (rank 0) is not checked.
- Element types: Q, K, V, a float mask and the scale must be equal (a dynamic one takes the others'), and real;
  a boolean mask, or any mask when causal, is not merged; an integer mask is refused unless causal.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.dims import Dim, Shape
from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError
from . import attrs as A
from .arithmetic import broadcast_dim, broadcast_shapes, merge_dim
from .matmul import MATMUL_1, MatMulAttrs, column_floor
from .rounding import ACCUMULATION_UNIT, any_differs, is_exact
from .softmax import SOFTMAX_8, Softmax8Attrs
from .spec import Kernel, OpSpec, RoundingRule, TensorType, never


@dataclass(frozen=True, slots=True)
class AttentionAttrs:
    causal: bool = A.attr("causal", A.BOOL, False)


def _element(a: AttentionAttrs, inputs: Sequence[TensorType]) -> str | None:
    """The output's element type: input 0's merged with every other but a boolean (or causal) mask's."""
    mask = inputs[3].element if len(inputs) > 3 else None
    if len(inputs) > 3 and not a.causal and mask is not None and mask != "boolean" and mask not in REAL_TYPES:
        raise OpValidationError(f"an attention mask of element type {mask}: it must be a float type or boolean")
    element = inputs[0].element
    for i, t in enumerate(inputs[1:], 1):
        if i == 3 and (a.causal or t.element == "boolean") or t.element is None:
            continue
        if element is not None and t.element != element:
            raise OpValidationError(f"inputs of element types {element} and {t.element}: they must be equal")
        element = t.element
    if element is not None and element not in REAL_TYPES:
        raise OpValidationError(f"inputs of element type {element}: it must be a float type")
    return element


def _matrices(shape: tuple[Dim, ...], what: str) -> tuple[tuple[Dim, ...], Dim, Dim]:
    """The batch dims, rows and columns of a query, key or value (of rank 3 or more)."""
    if len(shape) < 3:
        raise OpValidationError(f"a {what} of rank {len(shape)}: it must be 3 or more")
    return shape[:-2], shape[-2], shape[-1]


def _merge_batch(batch: Shape, other: Shape, what: str) -> Shape:
    try:
        return broadcast_shapes(batch, other)
    except OpValidationError:
        raise OpValidationError(f"the {what}'s batch dims do not broadcast with the query's") from None


def _infer(a: AttentionAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    element = _element(a, inputs)
    query, key, value = (t.shape for t in inputs[:3])
    unknown = Dim(0, None)
    batch: Shape = None
    length = depth = source = out_depth = unknown
    if query is not None:
        batch, length, depth = _matrices(query, "query")
    if key is not None:
        key_batch, source, key_depth = _matrices(key, "key")
        batch = _merge_batch(batch, key_batch, "key")
        depth = merge_dim(depth, key_depth)
        if depth is None:
            raise OpValidationError(f"the key's last dim {key_depth} differs from the query's")
    if value is not None:
        value_batch, value_rows, out_depth = _matrices(value, "value")
        batch = _merge_batch(batch, value_batch, "value")
        source = merge_dim(source, value_rows)
        if source is None:
            raise OpValidationError(f"the value's second last dim {value_rows} differs from the key's")
    if len(inputs) > 3 and not a.causal and inputs[3].shape:  # (a scalar mask, or one of dynamic rank: unchecked)
        mask = inputs[3].shape
        rows = broadcast_dim(length, mask[-2]) if len(mask) >= 2 else None
        columns = broadcast_dim(source, mask[-1]) if len(mask) >= 2 else None
        if rows is None or columns is None:
            raise OpValidationError(f"an attention mask of rank {len(mask)} whose last two dims do not broadcast "
                                    "to the query's rows and the key's rows")
        length = rows
        if len(mask) >= 3:
            batch = _merge_batch(batch, mask[:-2], "attention mask")
    if len(inputs) > 4 and inputs[4].shape is not None:
        scale = inputs[4].shape
        if not (len(scale) == 0 or len(scale) == 1 and merge_dim(scale[0], Dim(1, 1)) is not None):
            raise OpValidationError(f"a scale of shape {list(scale)}: it must be a scalar or have 1 element")
    return [TensorType(element, None if batch is None else (*batch, length, out_depth))]


def _scale(a: AttentionAttrs, args: Sequence[np.ndarray]) -> np.float64:
    """Input 4, else 1 / sqrt(E) computed in the element type, as OpenVINO's decomposition does."""
    q = np.asarray(args[0])
    if len(args) > 4:
        return np.float64(np.asarray(args[4]).reshape(-1)[0])
    one = q.dtype.type(1)
    return np.float64(one / np.sqrt(q.dtype.type(q.shape[-1])))


def _mask(a: AttentionAttrs, args: Sequence[np.ndarray], length: int, source: int) -> np.ndarray | None:
    """What is added to the scores, in float64: -inf where a key may not be attended."""
    if a.causal:
        return np.where(np.arange(source)[None, :] > np.arange(length)[:, None], -np.inf, 0.0)
    if len(args) < 4:
        return None
    mask = np.asarray(args[3])
    return np.where(mask, 0.0, -np.inf) if mask.dtype == np.bool_ else mask.astype(np.float64)


def _check_args(args: Sequence[np.ndarray]) -> None:
    q, k, v = (np.asarray(x) for x in args[:3])
    if q.dtype.kind != "f" or k.dtype != q.dtype or v.dtype != q.dtype:
        raise OpValidationError(f"query, key and value of element types {q.dtype}, {k.dtype} and {v.dtype}: they "
                                "must be one float type")
    if min(q.ndim, k.ndim, v.ndim) < 3 or q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise OpValidationError(f"query {list(q.shape)}, key {list(k.shape)} and value {list(v.shape)} do not fit "
                                "(ranks of 3 or more, query and key of one depth, key and value of one length)")


def _scores(a: AttentionAttrs, args: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(Q * scale, as float64), (Q * scale) @ K^T and the mask (float64, -inf where masked)."""
    _check_args(args)
    q, k = (np.asarray(x) for x in args[:2])
    scaled = q.astype(np.float64) * _scale(a, args)
    scores = np.matmul(scaled, np.swapaxes(k.astype(np.float64), -1, -2))
    return scaled, scores, _mask(a, args, q.shape[-2], k.shape[-2])


def _softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis; scores with no element (no query or no key: a prompt of length 0) have none to
    weigh, where np.max would raise (OpenVINO gives the empty output)."""
    if x.size == 0:
        return x.copy()
    with np.errstate(invalid="ignore"):  # a row masked whole is NaN, as 0/0
        e = x - np.max(x, axis=-1, keepdims=True)
        np.exp(e, out=e)  # (in place: the same values, no two more arrays of the scores' size)
        e /= np.sum(e, axis=-1, keepdims=True)
        return e


def _run(a: AttentionAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    scaled, scores, mask = _scores(a, args)
    summed = None if mask is None else scores + mask
    weights = _softmax(scores if summed is None else summed)
    out = np.matmul(weights, np.asarray(args[2]).astype(np.float64))
    _LAST_RUN.kept = _Kept(tuple(args), scaled, scores, mask, summed, weights)
    return [out.astype(np.asarray(args[0]).dtype)]


@dataclass(slots=True)
class _Kept:
    """What the kernel computed on ``args`` that the rounding rule computes again: Q * scale, (Q * scale) @ K^T and
    the mask (``_scores``), the scores plus the mask, and their softmax (the rule's scores and weights where the mask
    masks nothing: vit_b_16's is a scalar 0)."""

    args: tuple[np.ndarray, ...]
    scaled: np.ndarray
    scores: np.ndarray
    mask: np.ndarray | None
    summed: np.ndarray | None
    weights: np.ndarray


class _LastRun(threading.local):
    """The kernel's last ``_Kept`` in this thread: the executor and the per-layer check run the rounding rule right
    after the kernel, on the same arguments (the same arrays, which the rule checks), in the same thread."""

    kept: _Kept | None = None


_LAST_RUN = _LastRun()


def _kept(args: Sequence[np.ndarray]) -> _Kept | None:
    """The kernel's ``_Kept`` for exactly these argument arrays (taken: it is used once), else None."""
    kept, _LAST_RUN.kept = _LAST_RUN.kept, None
    if kept is None or len(kept.args) != len(args) or any(x is not y for x, y in zip(kept.args, args, strict=True)):
        return None
    return kept


_TRANSPOSED_B = MatMulAttrs(transpose_b=True)
_PLAIN = MatMulAttrs()
_LAST = Softmax8Attrs(axis=-1)


def _rounding(statistical: bool) -> RoundingRule:
    """The decomposition's steps, each bounded by its own op's rule and handing its bound to the next: Q * scale
    (one rounding, u |Q s|, whichever side of the product OpenVINO applies it), MatMul, the mask's add (one
    rounding), SoftMax, MatMul. Masked scores are kept finite far below their row's maximum, where exp is 0 on
    both sides, so that SoftMax's rule sees no infinity."""
    matmul = getattr(MATMUL_1.rounding, "statistical", MATMUL_1.rounding) if statistical else MATMUL_1.rounding
    softmax = SOFTMAX_8.rounding

    def rule(kernel: Kernel, a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        dtype = np.asarray(args[0]).dtype
        boolean_mask = len(args) > 3 and not a.causal and np.asarray(args[3]).dtype == np.bool_
        if boolean_mask and any_differs(args, bounds, (3,)):  # a score that may be -inf, or not
            return [np.full((), np.inf)]
        kept = _kept(args)
        scaled, scores, mask = (kept.scaled, kept.scores, kept.mask) if kept is not None else _scores(a, args)
        s = abs(_scale(a, args))
        scaled_bound = ACCUMULATION_UNIT * np.abs(scaled)
        if not is_exact(bounds[0]):
            scaled_bound = scaled_bound + s * bounds[0]
        if len(args) > 4 and not is_exact(bounds[4]):  # |Q| times the scale's own error
            scaled_bound = scaled_bound + np.abs(np.asarray(args[0], np.float64)) * np.reshape(bounds[4], -1)[0]
        k = np.asarray(args[1])
        score_bound = matmul(MATMUL_1.kernel, _TRANSPOSED_B, [scaled.astype(dtype), k], [scaled_bound, bounds[1]],
                             [scores.astype(dtype)])[0]
        reuse = kept is not None
        if mask is not None:
            masked = np.isneginf(mask)
            reuse = reuse and not masked.any()  # (then the kernel's scores + mask are these, and its softmax theirs)
            scores = kept.summed if reuse else scores + np.where(masked, 0.0, mask)
            score_bound = score_bound + ACCUMULATION_UNIT * np.abs(scores)
            if len(args) > 3 and not a.causal and not boolean_mask and not is_exact(bounds[3]):
                score_bound = score_bound + bounds[3]
            if not reuse:
                scores = np.where(masked, np.max(scores, axis=-1, keepdims=True) - 2000.0, scores)
                score_bound = np.where(masked, 0.0, score_bound)
        weights = kept.weights if reuse else _softmax(scores)
        weight_bound = _rows_bound(softmax, scores, score_bound, weights, dtype)
        return matmul(MATMUL_1.kernel, _PLAIN, [weights.astype(dtype), np.asarray(args[2])],
                      [weight_bound, bounds[2]], outputs)

    return rule


#: Scores SoftMax's rule bounds at a time, whole matrices (rows of one head): its float64 temporaries stay in cache
#: (vit_b_16's 12 heads of [197, 197]: 12.4 -> 9 ms a call).
_SCORES_BLOCK = 1 << 15


def _rows_bound(softmax: RoundingRule, scores: np.ndarray, bound: np.ndarray, weights: np.ndarray,
                dtype: np.dtype) -> np.ndarray:
    """SoftMax's rule along the last axis on the scores (rounded to ``dtype``) within ``bound``, a block of whole
    matrices at a time: the rule works row by row, so each element's bound is the same as on the whole."""
    shape = scores.shape
    rows, columns = shape[-2], shape[-1]
    matrices = math.prod(shape[:-2])
    step = max(1, _SCORES_BLOCK // max(rows * columns, 1))
    if matrices <= step:
        return softmax(SOFTMAX_8.kernel, _LAST, [scores.astype(dtype)], [np.broadcast_to(bound, shape)],
                       [weights.astype(dtype)])[0]
    flat = (matrices, rows, columns)
    scores, weights = scores.reshape(flat), weights.reshape(flat)
    bound = np.broadcast_to(bound, shape).reshape(flat)  # (a view where the bound has the scores' shape)
    out = np.empty(flat)
    for start in range(0, matrices, step):
        part = slice(start, start + step)
        out[part] = softmax(SOFTMAX_8.kernel, _LAST, [scores[part].astype(dtype)], [bound[part]],
                            [weights[part].astype(dtype)])[0]
    return out.reshape(shape)


def _shared_values(a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray]) -> np.ndarray | None:
    """What an error every key's row of V shares adds to the statistical bound (as ``matmul._shared_columns`` for
    the product of the probabilities and V, asked where two models' weights differ): a row's probabilities sum to
    1, so each column's least bound over the keys, whole (whisper's encoder against its f16 twin: its V bias's f16
    rounding, one error every frame shares, took its attention outputs 1.2 times beyond W). None where V is not a
    float matrix or its bound has no such part."""
    return column_floor(args[2], bounds[2])


_ROUNDING = _rounding(False)
_ROUNDING.statistical = _rounding(True)  # type: ignore[attr-defined]
_ROUNDING.shared = _shared_values  # type: ignore[attr-defined]

SCALED_DOT_PRODUCT_ATTENTION_13 = OpSpec("ScaledDotProductAttention", "ScaledDotProductAttention-13", AttentionAttrs,
                                         (3, 5), 1, _infer, _run, rounding=_ROUNDING, evaluates=never)
