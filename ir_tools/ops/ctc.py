"""CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6, GatherTree-1 and CTCLoss-4: shape rules and kernels, checked by
tests/ops/test_ctc_conformance.py. The decoders and GatherTree compute as OpenVINO CPU does, exactly: their outputs are
choices (class indices, decoded lengths, beam tokens), exact where the inputs are, no bound where an input may differ
(``rounding.exact``). CTCLoss's kernel takes the CPU's steps in float64, and its rounding rule bounds the CPU's f32.

Measured on openvino 2026.4.1 (CPU):

- The argmax over the classes of a step is the first maximum: the class 0 value is taken, then each later one replaces
  it only where strictly larger (``>``), so equal values (-0.0 and 0.0 too) keep the first, a NaN later on is skipped,
  and a NaN at class 0 is never replaced (class 0). Data are read in f32 (f16 and f64 converted; f64 rounded, which can
  make a tie); integer data are refused when compiling (``cpu_refuses``); bf16 is not modelled.
- CTCGreedyDecoder-1: data [T, N, C], sequence mask [T, N] (f32, f16 or f64; integer types refused when compiling); a
  sequence ends at its first mask value equal to 0 (NaN is not 0); blank is class C - 1, classes C - 1 and up are
  dropped, and with ctc_merge_repeated a class equal to the step before's (a blank between resets it) too. Output [N, T,
  1, 1] of the data's element type, the decoded classes then -1. Shape inference checks no element type.
- CTCGreedyDecoderSeqLen-6: data [N, T, C], sequence_length [N] (integers of 16 bits or more; floats, i8 and u8 refused
  when compiling; read in i32, an i64 by its low 32 bits: 2^32 + 3 is 3; u32 and u64 not modelled), an optional
  blank_index (an integer type, a scalar or one element; low 32 bits too; default C - 1). A step is dropped where its
  class equals the blank (any value: -1 or C + 2 drops nothing) or, with merge_repeated, the step before's class.
  Outputs the decoded classes [N, T] then -1, and their counts [N], computed in i32 and converted to classes_index_type
  and sequence_length_type (any element type is read; u8 saturates -1 to 0; the kernel models i32, i64, i16, u8 and
  f32). A length above T is refused when it runs; a negative one crashes the process; C = 0 gives whatever memory holds:
  the kernel refuses all three.
- GatherTree-1: step_ids and parent_ids [T, B, W], max_seq_len [B], end_token a scalar, one element type. Computed in
  i32 (integers of 16 bits or more; values beyond i32 not modelled) or f32 (f32, f16, f64); i8, u8 and bf16 refused when
  compiling. Per batch and beam: L = min(T, max_seq_len) (a float truncated); steps L and up are end_token; down from
  step L - 1, the beam follows its parents (``step_ids[t, b, parent]``, then ``parent = parent_ids[t, b, parent]``
  truncated), a parent outside [0, W) before a step refused when it runs ("Wrong parent index"; the parent read at step
  0 is never used, nor checked); then, from step 0, every step after the first end_token is end_token (NaN equals
  nothing). L of 0 or less leaves the output unwritten (whatever memory holds): refused by the kernel.
- CTCLoss-4: logits [N, T, C] (f32, f16, f64, read in f32), logit_length [N], labels [N, T], label_length [N] and an
  optional blank_index (default C - 1), read in i32 (every integer type compiles; the kernel models those of up to 16
  bits, i32 and i64, by its low 32 bits); an omitted ctc_merge_repeated is read as false. Per batch, the labels (each
  label's first occurrence alone with unique, which then ignores preprocess_collapse_repeated; else with
  preprocess_collapse_repeated a label equal to the one before dropped) make the states blank, l1, blank, ..., blank.
  The log probabilities are x - log(sum of expf(x)) (the exps summed in double, no maximum subtracted: a logit past
  88.72 overflows expf, the step's log probabilities -inf or NaN), rounded to f32; then Graves' backward recursion in
  f32, from the last two states at 0 at step T - 1 down, visiting only the states that can still reach the end and be
  reached from the start, each log-sum-exp taken as max + log1pf(expf(min - max)); a state is kept from one step to the
  next only where ctc_merge_repeated or it is a blank, and a label skips the blank after it only where not
  ctc_merge_repeated or the next label differs. The loss is minus the log-sum-exp of the first two states at step 0:
  +inf where no alignment fits. An f64 output is that f32 converted saturating (inf is 3.4028235e38); an f16 one keeps
  inf. A logit length above T, or a label length above it or negative, is refused when it runs; a label length of 0
  writes outside the CPU's buffers, and a label or blank outside [0, C) reads outside the logits: the kernel refuses
  them.
  The rounding rule: the log probabilities each within 3u + u |lp| (u = 2^-24: expf within an ulp, the sum and log in
  double, one rounding), their errors adding along a path; each step's additions within u R and its two log-sum-exps
  within u R + 4u each (expf within an ulp and log1pf within two, the difference's rounding at most u/e), R the sum over
  steps of the largest |log probability| of a state, which bounds every value the recursion holds (they lie in [-R, 0]);
  a log-sum-exp moves by at most the largest move of its terms, so errors add over the T steps: within u (11 T + R (1 +
  3 T)). Measured on 240 suite cases and 300 others: OpenVINO's loss at most 13% (17%) of that bound from the kernel's,
  the CPU's error at most about 4 u max(|loss|, 1). A batch with a step whose f32 exp sum overflows or is not normal
  gets no bound (an exp there is past the range where expf is within an ulp, or overflows on one side only).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.dtypes import F32_MAX, INTEGER_TYPES, REAL_TYPES
from ..base.errors import OpValidationError, UnsupportedError
from ..base.packed import is_bf16
from . import attrs as A
from .arithmetic import merge_dim, merge_elements, merge_shapes
from .core import ELEMENT, NoAttrs
from .rounding import any_differs, exact, output_rounding, taken_in
from .spec import CpuRule, OpSpec, TensorType, never

_ONE = Dim(1, 1)


def _rank(t: TensorType, rank: int, what: str) -> None:
    """Refuse a static rank other than ``rank`` (``rank().compatible``)."""
    if t.shape is not None and len(t.shape) != rank:
        raise OpValidationError(f"{what} must be of rank {rank}, got rank {len(t.shape)}")


def _merged(a: Dim, b: Dim, what: str) -> Dim:
    found = merge_dim(a, b)
    if found is None:
        raise OpValidationError(f"{what}: {a} and {b} differ")
    return found


def _cpu_types(allowed: Sequence[frozenset[str]]) -> CpuRule:
    """A ``cpu_refuses`` rule: OpenVINO CPU refuses to compile the layer where an input's element type is outside its
    ``allowed`` set (the inputs after ``allowed``'s: any), unless every input is a Const (the layer folded away)."""

    def refuses(a: object, inputs: Sequence[TensorType], values) -> str | None:
        if all(v is not None for v in values):
            return None
        for i, (t, kinds) in enumerate(zip(inputs, allowed, strict=False)):
            if t.element is not None and t.element not in kinds:
                return f"OpenVINO CPU takes input {i} of {', '.join(sorted(kinds))} only, not {t.element}"
        return None

    return refuses


#: The element types OpenVINO CPU compiles each op's inputs of (measured: module doc).
_FLOATS = frozenset({"f32", "f16", "f64", "bf16"})
_LENGTHS = frozenset({"i16", "u16", "i32", "u32", "i64", "u64"})
_TREE = frozenset({"f32", "f16", "f64", "i16", "u16", "i32", "u32", "i64", "u64"})


# --- CTCGreedyDecoder-1 ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GreedyDecoderAttrs:
    ctc_merge_repeated: bool = A.attr("ctc_merge_repeated", A.BOOL, True)


def _greedy_decoder(a: GreedyDecoderAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """[N, T, 1, 1] of the data's type: T and N from data [T, N, C] and the mask [T, N], merged."""
    data, mask = inputs
    _rank(data, 3, "the logits")
    _rank(mask, 2, "the sequence mask")
    time, batch = (DYNAMIC, DYNAMIC) if data.shape is None else data.shape[:2]
    if mask.shape is not None:
        time = _merged(time, mask.shape[0], "the first dims of logits and sequence mask")
        batch = _merged(batch, mask.shape[1], "the second dims of logits and sequence mask")
    return [TensorType(data.element, (batch, time, _ONE, _ONE))]


def _floats(x: np.ndarray, what: str) -> np.ndarray:
    """Float data OpenVINO CPU takes (f32, f16, f64, which it reads in f32); integer (and bf16, not modelled)
    refused."""
    if x.dtype.kind != "f" or is_bf16(x.dtype):
        raise UnsupportedError(f"{what} of element type {x.dtype}: OpenVINO CPU takes f32, f16 or f64 (ops/ctc.py)")
    return x


def _in_f32(x: np.ndarray, what: str) -> np.ndarray:
    """Float data as OpenVINO CPU reads it, in f32."""
    return _floats(x, what).astype(np.float32)


def _first_max(x: np.ndarray) -> np.ndarray:
    """Per row of the last axis, the index of its first maximum as the CPU finds it (module doc): class 0's value,
    replaced by each later one strictly larger (a NaN never replaces, nor is replaced)."""
    if x.shape[-1] == 0:
        raise OpValidationError("no classes (C = 0): OpenVINO CPU reads whatever memory holds")
    best, at = x[..., 0].copy(), np.zeros(x.shape[:-1], np.int64)
    for c in range(1, x.shape[-1]):
        larger = x[..., c] > best
        best[larger], at[larger] = x[..., c][larger], c
    return at


def _collapse(classes: np.ndarray, length: int, blank: int, merge: bool, below_blank: bool) -> list[int]:
    """The classes of one sequence's first ``length`` steps, blanks dropped (every class from it on, ``below_blank``)
    and, with ``merge``, a class equal to the step before's."""
    kept, before = [], -1
    for k in (int(c) for c in classes[:length]):
        dropped = k >= blank if below_blank else k == blank
        if not dropped and not (merge and k == before):
            kept.append(k)
        before = k
    return kept


def _run_greedy_decoder(a: GreedyDecoderAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, mask = np.asarray(args[0]), np.asarray(args[1])
    data, ends = _in_f32(x, "CTCGreedyDecoder data"), _in_f32(mask, "CTCGreedyDecoder sequence mask")
    steps, batch, classes = data.shape
    argmax = _first_max(data)
    zero = ends == 0
    lengths = np.where(zero.any(axis=0), zero.argmax(axis=0), steps)
    out = np.full((batch, steps), -1.0, np.float32)
    for b in range(batch):
        kept = _collapse(argmax[:, b], int(lengths[b]), classes - 1, a.ctc_merge_repeated, True)
        out[b, :len(kept)] = kept
    return [out.astype(x.dtype).reshape(batch, steps, 1, 1)]


# --- CTCGreedyDecoderSeqLen-6 ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GreedyDecoderSeqLenAttrs:
    merge_repeated: bool = A.attr("merge_repeated", A.BOOL, True)
    classes_index_type: str = A.attr("classes_index_type", ELEMENT, "i32")
    sequence_length_type: str = A.attr("sequence_length_type", ELEMENT, "i32")


def _greedy_decoder_seq_len(a: GreedyDecoderSeqLenAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """[N, T] of classes_index_type and [N] of sequence_length_type, from data [N, T, C] and sequence_length [N]."""
    data, lengths = inputs[:2]
    if len(inputs) == 3:
        blank = inputs[2]
        if blank.element is not None and blank.element not in INTEGER_TYPES:
            raise OpValidationError(f"the blank index must be of an integer type, got {blank.element}")
        shape = blank.shape
        if shape is not None and all(d.is_static for d in shape) and [d.lo for d in shape] not in ([], [1]):
            raise OpValidationError(f"the blank index must be a scalar or hold one element, got {list(shape)}")
    _rank(data, 3, "the logits")
    _rank(lengths, 1, "the sequence lengths")
    batch, time = (DYNAMIC, DYNAMIC) if data.shape is None else data.shape[:2]
    if lengths.shape is not None:
        batch = _merged(batch, lengths.shape[0], "the first dims of logits and sequence lengths")
    return [TensorType(a.classes_index_type, (batch, time)), TensorType(a.sequence_length_type, (batch,))]


#: The integer types the kernel reads a blank index (and CTCLoss's lengths and labels) of, as OpenVINO CPU reads them
#: in i32 (an i64 by its low 32 bits; u32 and u64 not modelled); and a CTCGreedyDecoderSeqLen's lengths.
_INTEGERS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16)
_LENGTH_TYPES = (np.int16, np.int32, np.int64, np.uint16)

#: The output types the kernel gives, as OpenVINO CPU converts its i32 results to them (u8 saturating: -1 is 0).
_INDEX_OUTPUTS = {"i32": np.int32, "i64": np.int64, "i16": np.int16, "u8": np.uint8, "f32": np.float32}


def _low_32(x: np.ndarray, what: str, types: tuple[type, ...] = _INTEGERS) -> np.ndarray:
    """Integer values as OpenVINO CPU reads them, in i32 (an i64 by its low 32 bits); types besides ``types``
    refused."""
    if x.dtype not in types:
        taken = ", ".join(np.dtype(t).name for t in types)
        raise UnsupportedError(f"{what} of element type {x.dtype}: OpenVINO CPU takes {taken} (ops/ctc.py)")
    return x.astype(np.int64).astype(np.int32)


def _index_output(values: np.ndarray, element: str) -> np.ndarray:
    dtype = _INDEX_OUTPUTS.get(element)
    if dtype is None:
        raise UnsupportedError(f"CTCGreedyDecoderSeqLen output of element type {element} is not modelled "
                               "(ops/ctc.py)")
    if np.dtype(dtype).kind in "iu":
        limits = np.iinfo(dtype)
        values = np.clip(values, limits.min, limits.max)
    return values.astype(dtype)


def _run_greedy_decoder_seq_len(a: GreedyDecoderSeqLenAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    data = _in_f32(np.asarray(args[0]), "CTCGreedyDecoderSeqLen data")
    lengths = _low_32(np.asarray(args[1]), "CTCGreedyDecoderSeqLen sequence_length", _LENGTH_TYPES)
    batch, steps, classes = data.shape
    blank = int(_low_32(np.asarray(args[2]), "CTCGreedyDecoderSeqLen blank_index").reshape(-1)[0]) \
        if len(args) > 2 else classes - 1
    if lengths.size and (lengths.min() < 0 or lengths.max() > steps):
        raise OpValidationError(f"sequence lengths {lengths.tolist()} must be within [0, {steps}] (OpenVINO CPU "
                                "refuses one above, crashes on a negative one)")
    argmax = _first_max(data)
    decoded = np.full((batch, steps), -1, np.int64)
    counts = np.zeros(batch, np.int64)
    for b in range(batch):
        kept = _collapse(argmax[b], int(lengths[b]), blank, a.merge_repeated, False)
        decoded[b, :len(kept)], counts[b] = kept, len(kept)
    return [_index_output(decoded, a.classes_index_type), _index_output(counts, a.sequence_length_type)]


# --- GatherTree-1 ---------------------------------------------------------------------------------------------------


def _gather_tree(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """step_ids' shape merged with parent_ids' (rank 3), its dim 1 with max_seq_len's [B]; end_token a scalar; one
    numeric element type."""
    step, parent, longest, end = inputs
    element = None
    for t in inputs:
        element = merge_elements(element, t.element, "GatherTree inputs")
    if element is not None and element not in REAL_TYPES | INTEGER_TYPES:
        raise OpValidationError(f"GatherTree inputs of element type {element}: they must be numeric")
    shape = merge_shapes(step.shape, parent.shape)
    _rank(TensorType(element, shape), 3, "step_ids and parent_ids")
    _rank(longest, 1, "max_seq_len")
    if shape is not None and longest.shape is not None:
        shape = (shape[0], _merged(shape[1], longest.shape[0], "max_seq_len and the batch of step_ids"), shape[2])
    _rank(end, 0, "end_token")
    return [TensorType(element, shape)]


def _gather_tree_work(x: np.ndarray) -> np.dtype:
    """The type OpenVINO CPU computes GatherTree in: i32 for integers of 16 bits or more (values beyond i32 not
    modelled), f32 for f32, f16 and f64; i8, u8 and bf16 it refuses."""
    if x.dtype.kind in "iu" and x.dtype.itemsize >= 2:
        if x.size and (x.min() < np.iinfo(np.int32).min or x.max() > np.iinfo(np.int32).max):
            raise UnsupportedError(f"GatherTree of {x.dtype} values beyond i32 is not modelled (ops/ctc.py)")
        return np.dtype(np.int32)
    if x.dtype in (np.float32, np.float16, np.float64) and not is_bf16(x.dtype):
        return np.dtype(np.float32)
    raise UnsupportedError(f"GatherTree of element type {x.dtype}: OpenVINO CPU takes f32, f16, f64 or integers of 16 "
                           "bits or more (ops/ctc.py)")


def _truncated(v: np.ndarray, what: str) -> np.ndarray:
    """Values cast to i32 as the CPU casts them (floats truncated toward zero); NaN and values beyond i32 refused."""
    if v.dtype.kind == "f":
        if not np.all(np.isfinite(v)) or np.any(np.abs(v) >= 2.0**31):
            raise OpValidationError(f"{what} {v.tolist()}: not finite or beyond i32")
        v = np.trunc(v)
    return v.astype(np.int64)


def _run_gather_tree(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x = np.asarray(args[0])
    work = _gather_tree_work(x)
    step, parents, longest, end = (np.asarray(v).astype(work) for v in args)
    steps, batch, beams = step.shape
    end = end.reshape(())
    lengths = np.minimum(steps, _truncated(longest.reshape(-1), "max_seq_len"))
    if lengths.size and lengths.min() <= 0:
        raise OpValidationError(f"max_seq_len {longest.tolist()}: one of 0 or less leaves OpenVINO CPU's output "
                                "unwritten")
    out = np.empty_like(step)
    for b in range(batch):
        length = int(lengths[b])
        for w in range(beams):
            out[length:, b, w] = end
            parent = w
            for t in range(length - 1, -1, -1):
                if not 0 <= parent < beams:
                    raise OpValidationError(f"parent index {parent} at step {t}, batch {b} is outside [0, {beams}) "
                                            "(OpenVINO CPU refuses it: 'Wrong parent index')")
                out[t, b, w] = step[t, b, parent]
                if t:  # (the parent read at step 0 the CPU never uses)
                    parent = int(_truncated(parents[t, b, parent:parent + 1], "parent index")[0])
            ended = np.flatnonzero(out[:length, b, w] == end)
            if ended.size:
                out[ended[0] + 1:length, b, w] = end
    return [out.astype(x.dtype)]


CTC_GREEDY_DECODER_1 = OpSpec("CTCGreedyDecoder", "CTCGreedyDecoder-1", GreedyDecoderAttrs, (2, 2), 1,
                              _greedy_decoder, _run_greedy_decoder, rounding=exact,
                              cpu_refuses=_cpu_types([_FLOATS, _FLOATS]), evaluates=never)
CTC_GREEDY_DECODER_SEQ_LEN_6 = OpSpec("CTCGreedyDecoderSeqLen", "CTCGreedyDecoderSeqLen-6", GreedyDecoderSeqLenAttrs,
                                      (2, 3), 2, _greedy_decoder_seq_len, _run_greedy_decoder_seq_len,
                                      rounding=exact, index_input=1, lengths_axis=1,
                                      cpu_refuses=_cpu_types([_FLOATS, _LENGTHS]), evaluates=never)

GATHER_TREE_1 = OpSpec("GatherTree", "GatherTree-1", NoAttrs, (4, 4), 1, _gather_tree, _run_gather_tree,
                       rounding=exact, cpu_refuses=_cpu_types([_TREE] * 4), evaluates=never)


# --- CTCLoss-4 ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CtcLossAttrs:
    """An omitted ctc_merge_repeated OpenVINO's reader reads as false (its constructors' default is true)."""

    preprocess_collapse_repeated: bool = A.attr("preprocess_collapse_repeated", A.BOOL, False)
    ctc_merge_repeated: bool = A.attr("ctc_merge_repeated", A.BOOL, False)
    unique: bool = A.attr("unique", A.BOOL, False)


def _ctc_loss(a: CtcLossAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """[N] of the logits' type: N the logits' dim 0 merged with the first dims of logit_length, labels and
    label_length; the labels' dim 1 compatible with the logits' time."""
    logits, logit_length, labels, label_length = inputs[:4]
    if logits.element not in REAL_TYPES:  # (a dynamic type too: OpenVINO's is_real)
        raise OpValidationError(f"the logits must be of a floating point type, got {logits.element or 'dynamic'}")
    names = ("logits", "logit length", "labels", "label length", "blank index")
    for t, what in zip(inputs[1:], names[1:], strict=False):
        if t.element is not None and t.element not in INTEGER_TYPES:
            raise OpValidationError(f"the {what} must be of an integer type, got {t.element}")
    for t, rank, what in zip(inputs, (3, 1, 2, 1, 0), names, strict=False):
        _rank(t, rank, what)
    batch, time = (DYNAMIC, DYNAMIC) if logits.shape is None else logits.shape[:2]
    for t, what in ((logit_length, "logit length"), (labels, "labels"), (label_length, "label length")):
        if t.shape is not None:
            batch = _merged(batch, t.shape[0], f"the first dims of the logits and the {what}")
    if labels.shape is not None and merge_dim(labels.shape[1], time) is None:
        raise OpValidationError(f"the second dim of the labels, {labels.shape[1]}, must be the logits' time, {time}")
    return [TensorType(logits.element, (batch,))]


def _targets(a: CtcLossAttrs, labels: np.ndarray, blank: int) -> list[int]:
    """One batch's labels as the lattice's states: each label after a blank, and a blank at the end; with ``unique``
    each label's first occurrence alone, else with preprocess_collapse_repeated a label equal to the one before
    dropped."""
    kept: list[int] = []
    for k in (int(v) for v in labels):
        if (a.unique and k in kept) or (not a.unique and a.preprocess_collapse_repeated and kept and k == kept[-1]):
            continue
        kept.append(k)
    return [state for k in kept for state in (blank, k)] + [blank]


def _sum_logs(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """OpenVINO CPU's log(e^p + e^q): the larger plus log1p(exp(smaller - larger)), an -inf giving the other as it is
    (NaN, and +inf with +inf, give NaN as there)."""
    first = p > q
    hi, lo = np.where(first, p, q), np.where(first, q, p)
    with np.errstate(invalid="ignore"):  # (-inf - -inf: taken as the other below)
        r = hi + np.log1p(np.exp(lo - hi))
    return np.where(p == -np.inf, q, np.where(q == -np.inf, p, r))


def _ctc_inputs(args: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The logits in float64 (an f64 one as it is, which OpenVINO CPU rounds to f32: the rule's ``taken_in``), the
    logit and label lengths, the labels, the blank;
    what it refuses when it runs, or leaves undefined (a length of 0, a label or blank outside the classes: memory
    read), refused."""
    x = _floats(np.asarray(args[0]), "CTCLoss logits").astype(np.float64)
    batch, steps, classes = x.shape
    logit_length, labels, label_length = (_low_32(np.asarray(v), f"CTCLoss {what}").astype(np.int64) for v, what in
                                          zip(args[1:4], ("logit_length", "labels", "label_length"), strict=True))
    blank = int(_low_32(np.asarray(args[4]), "CTCLoss blank_index").reshape(-1)[0]) if len(args) > 4 else classes - 1
    if np.any(logit_length > steps) or np.any(label_length > logit_length) or np.any(label_length < 0):
        raise OpValidationError(f"logit lengths {logit_length.tolist()} and label lengths {label_length.tolist()}: "
                                f"a logit length above {steps}, or a label length above it or negative, is refused")
    if np.any(label_length < 1):
        raise OpValidationError(f"label lengths {label_length.tolist()}: one of 0 makes OpenVINO CPU write outside its "
                                "buffers")
    used = np.concatenate([labels[b, :n] for b, n in enumerate(label_length)] + [np.array([blank])])
    if used.min() < 0 or used.max() >= classes:
        raise OpValidationError(f"labels or blank index outside [0, {classes}): OpenVINO CPU reads outside the logits")
    return x, logit_length, labels, label_length, blank


def _log_probabilities(x: np.ndarray) -> np.ndarray:
    """log softmax along the classes as OpenVINO CPU takes it: x - log(sum of f32 exp(x)) (exp rounded to f32, so that
    it overflows and underflows where the CPU's does; the sum and the log in float64), no maximum subtracted."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return x - np.log(np.exp(x).astype(np.float32).astype(np.float64).sum(axis=-1, keepdims=True))


def _run_ctc_loss(a: CtcLossAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Per batch, the negative log of the probability of its labels over every alignment, by the CPU's backward
    recursion (Graves et al., (10)) in float64, the states it visits in the order it visits them."""
    x, logit_length, labels, label_length, blank = _ctc_inputs(args)
    loss = np.empty(x.shape[0])
    for b in range(x.shape[0]):
        target = np.array(_targets(a, labels[b, :label_length[b]], blank))
        steps, states = int(logit_length[b]), target.size
        lp = _log_probabilities(x[b, :steps])[:, target]  # [t, s]
        stay = a.ctc_merge_repeated | (target == blank)
        skip = np.zeros(states, bool)
        skip[:-2] = (target[:-2] != blank) & (~a.ctc_merge_repeated | (target[:-2] != target[2:]))
        after = np.full(states, -np.inf)
        after[-2:] = 0.0
        for t in range(steps - 2, -1, -1):
            now = np.full(states, -np.inf)
            lo, hi = max(0, states - 2 * (steps - t)), min(states, 2 * (t + 1))
            s = np.arange(lo, hi)
            nxt = after + lp[t + 1]
            v = now[s]
            v = np.where(stay[s], _sum_logs(v, nxt[s]), v)
            one = s + 1 < states
            v[one] = _sum_logs(v[one], nxt[s[one] + 1])
            two = s + 2 < states
            two[two] &= skip[s[two]]
            v[two] = _sum_logs(v[two], nxt[s[two] + 2])
            now[s] = v
            after = now
        first = after[0] + lp[0, 0], after[1] + lp[0, 1]
        loss[b] = -_sum_logs(np.array(first[0]), np.array(first[1]))
    dtype = np.asarray(args[0]).dtype
    if dtype == np.float64:  # (its f32 result converted saturating: inf is 3.4028235e38)
        np.clip(loss, -F32_MAX, F32_MAX, out=loss)
    return [loss.astype(dtype)]


#: f32's unit roundoff, and the error of one of the CPU's log-sum-exps beside the rounding of its result, in units of
#: it (module doc): expf within an ulp (u, once through log1p), log1pf within two ulps of at most ln 2 (2u), the
#: difference rounded (u |d| e^d <= u/e).
_U = 2.0**-24
_SUM_LOGS = 4.0


def _ctc_loss_rounding(kernel, a: CtcLossAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                       outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Per batch, the CPU's f32 loss within u (11 T + R (1 + 3 T)) of the kernel's, T its logit length and R the sum
    over its steps of the largest |log probability| of a target class (module doc); and an input moved by at most b
    moves it by at most 2 sum_t max_c b[t, c] (each step's gradient, softmax minus the alignments' occupancy, sums to
    at most 2 in absolute value). No bound where a step's f32 exp sum overflows or is not normal, nor where a length,
    label or blank may differ."""
    if any_differs(args, bounds, range(1, len(args))):
        return [np.full((), np.inf)]
    with np.errstate(all="ignore"):  # (an f32 exp sum past f32: no bound)
        return [_loss_bounds(a, args, bounds) + output_rounding(np.asarray(outputs[0]))]


def _loss_bounds(a: CtcLossAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray]) -> np.ndarray:
    """``_ctc_loss_rounding``'s bound per batch, the output's own rounding aside."""
    x, logit_length, labels, label_length, blank = _ctc_inputs(args)
    moved = np.broadcast_to(np.asarray(bounds[0], np.float64) + taken_in(np.asarray(args[0])), x.shape)
    out = np.empty(x.shape[0])
    for b in range(x.shape[0]):
        steps = int(logit_length[b])
        target = _targets(a, labels[b, :label_length[b]], blank)
        sums = np.exp(x[b, :steps]).astype(np.float32).astype(np.float64).sum(axis=-1)
        largest = np.abs(_log_probabilities(x[b, :steps])[:, target]).max(axis=-1)
        total = float(largest.sum())
        normal = np.all((sums >= float(np.finfo(np.float32).tiny)) & (sums <= float(np.finfo(np.float32).max)))
        out[b] = _U * (11 * steps + total * (1 + 3 * steps)) if normal else np.inf
        out[b] += 2.0 * float(moved[b, :steps].max(axis=-1).sum())
    out[np.isnan(out)] = np.inf
    return out


CTC_LOSS_4 = OpSpec("CTCLoss", "CTCLoss-4", CtcLossAttrs, (4, 5), 1, _ctc_loss, _run_ctc_loss,
                    rounding=_ctc_loss_rounding, evaluates=never)
