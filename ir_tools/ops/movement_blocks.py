"""ReverseSequence-1, ShuffleChannels-1, BatchToSpace-2 and SpaceToBatch-2: attributes, shape rules, reference kernels
and rounding rule (``moves``: they only move elements, and SpaceToBatch pads zeros).

Checked against the installed openvino (shape rules and CPU kernels) by tests/ops/test_movement_blocks_conformance.py.
Measured on OpenVINO 2026.4.1, beyond the specification:

- Opsets: ReverseSequence opset1..16; ShuffleChannels opset1 and opset3..16 (opset2 lacks it); BatchToSpace and
  SpaceToBatch opset2..16. Data of any element type; the output takes data's element type.
- ReverseSequence: data of rank 2 or more; batch_axis (default 0) and seq_axis (default 1) in [-r, r-1], and they
  may be equal. seq_axis is always checked (a negative one on data of a dynamic rank is refused), batch_axis only
  where data and seq_lengths both have a static rank (else any value passes). seq_lengths must be 1-D, its dim
  merged (intersected) with data's batch dim, which the output takes; of any element type but boolean: floats are
  accepted (a dynamic type, string and nf4 too). CPU reads float lengths truncated toward zero (2.7 reads 2, -0.5
  reads 0) and integers wider than 32 bits wrapped to 32 (2^32 + 2 reads 2); it refuses when it runs ("Incorrect
  input 'seq_lengths' values!") a length above the seq axis's, a negative one and a NaN; 0 and 1 reverse nothing.
  The kernel truncates floats and refuses what CPU refuses, and a length above the axis's however wide (OpenVINO's
  reference refuses it; CPU may read it wrapped). With batch_axis == seq_axis CPU takes each element's length from
  its output position, OpenVINO's reference from its input position (leaving elements unwritten): the kernel refuses
  that case. CPU moves the data through f32: i32 data beyond 2^24 comes out rounded (2^31 - 1 as 2147483520) and i64
  data is held in 32 bits (2^40 + 1 comes out 1); the kernel moves every type bit for bit, as the specification and
  OpenVINO's reference do.
- ShuffleChannels: ``group`` (default 1) is int64 and must be 1 or more; data of rank 1 or more, ``axis`` (default 1)
  in [-r, r-1]; a static channel dim must be a multiple of group (an interval is not checked). The output is the
  input's partial shape.
- BatchToSpace: block_shape, crops_begin and crops_end are of one integer element type (a dynamic one takes the
  others'; floats and boolean are refused, string and nf4 are not); their shapes are merged, the result must be 1-D
  and, when static, as long as data's rank (2 or more). Known block values must be 1 or more: the batch dim is
  divided by their product (an interval divided as ``ddiv``; one holding no multiple refused), and unknown ones give
  a dynamic batch. Known crops must be 0 or more; each spatial dim is dim * block - crops_begin - crops_end, clipped
  at 0 on intervals, a static dim * block smaller than the crops refused (cropping to 0 is accepted, and CPU gives
  the empty tensor); with unknown blocks the dim is dim * [1, inf) - crops; unknown crops give dynamic spatial dims.
- SpaceToBatch: each of block_shape, pads_begin and pads_end must be of an integer type on its own (they may
  differ); their shapes are merged as BatchToSpace's, but their length is not checked against data's rank. The
  batch dim is multiplied by the product of every block value, block_shape[0] included and not checked (0 or a
  negative product gives 0, -1 a dynamic batch: OpenVINO's Dimension of a value); unknown blocks give a dynamic
  batch. With every value known, each spatial block must be 1 or more and the spatial dim is
  (dim + pads_begin + pads_end) / block, each pad taken as a Dimension (so -1 adds a dynamic dim, a pad below -1
  adds 0: negative pads are not refused) and divided as ``ddiv`` (refused when no multiple of the block lies within;
  an unbounded padded dim gives [ceil(lo / block), inf)); otherwise the spatial dims are dynamic. Known values
  shorter than data's rank are read past their end by OpenVINO: the rule declines (None) there.
- Both batch ops: the specification expects block_shape[0] = 1 and crops/pads of 0 on the batch dim, and CPU gives
  other shapes than OpenVINO's inference otherwise (BatchToSpace with block_shape[0] = 2 on [4, 2, 2]: CPU
  [4, 2, 2], inferred [2, 2, 2]; SpaceToBatch pads the batch dim too); with negative SpaceToBatch pads CPU's output
  is not the inferred shape either. The kernels refuse all of those. CPU runs ranks 2 to 7, block/crops/pads
  Constants or not; the data moves bit for bit (i64 held in 32 bits, as elsewhere on CPU).
- A CPU defect the kernel does not copy: SpaceToBatch of rank 4 or 5 (CPU's own kernel; other ranks run OpenVINO's
  reference) with a pad leaves some padded positions holding other elements' values instead of zeros (99 of 400
  seeded padded cases; every difference at a padded position). The kernel pads zeros, as the specification and
  OpenVINO's evaluator do, so ``compare`` may report such a layer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import INT64_MAX, Dim, Shape
from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError
from . import attrs as A
from .core import NoAttrs
from .intervals import ANY, INF, Iv, canon, dadd, ddiv, dmul, dsub, guarded, is_empty, is_static, iv, meet, to_dim
from .operands import ints, normalize_axis
from .rounding import moves
from .spec import OpSpec, TensorType, never


@dataclass(frozen=True, slots=True)
class ReverseSequenceAttrs:
    batch_axis: int = A.attr("batch_axis", A.INT, 0)
    seq_axis: int = A.attr("seq_axis", A.INT, 1)


@dataclass(frozen=True, slots=True)
class ShuffleChannelsAttrs:
    axis: int = A.attr("axis", A.INT, 1)
    group: int = A.attr("group", A.INT, 1)


# --- shared ------------------------------------------------------------------------------------------------------


def _integral_number(element: str | None, what: str) -> None:
    """OpenVINO's ``is_integral_number``: neither real nor boolean (a dynamic type, string and nf4 pass)."""
    if element is not None and (element in REAL_TYPES or element == "boolean"):
        raise OpValidationError(f"{what} must be of an integer element type, got {element}")


def _merge_shapes(shapes: Sequence[Shape], what: str) -> Shape:
    """PartialShape::merge_into of each in turn: equal ranks (a dynamic one takes the other), dims intersected."""
    merged: Shape = None
    for shape in shapes:
        if shape is None:
            continue
        if merged is None:
            merged = shape
            continue
        if len(shape) != len(merged):
            raise OpValidationError(f"{what} must have the same shape, got ranks {len(merged)} and {len(shape)}")
        dims = [meet(iv(a), iv(b)) for a, b in zip(merged, shape, strict=True)]
        if any(is_empty(d) for d in dims):
            raise OpValidationError(f"{what} must have the same shape: dims {merged} and {shape} differ")
        merged = tuple(to_dim(d) for d in dims)
    if merged is not None and len(merged) != 1:
        raise OpValidationError(f"{what} must be 1-D, got rank {len(merged)}")
    return merged


def _int64s(value: np.ndarray) -> list[int]:
    """Values as OpenVINO reads a constant into int64 (wider unsigned ones wrap)."""
    return [int(v) for v in np.asarray(value).reshape(-1).astype(np.int64)]


def _dimension(value: int) -> Iv:
    """OpenVINO's Dimension(value): -1 is dynamic, another negative value the interval [0, 0]."""
    return ANY if value == -1 else canon(value, value)


def _product(values: Sequence[int]) -> int | None:
    """The int64 product OpenVINO accumulates; None where it would overflow (its answer is then not modelled)."""
    product = math.prod(values)
    return product if -INT64_MAX - 1 <= product <= INT64_MAX else None


def _divided(d: Iv, n: int, dividend: Iv) -> Iv:
    """check_divided_result: a quotient interval that is empty (no multiple of n within the dividend) is refused."""
    if is_empty(d):
        hi = "inf" if dividend[1] == INF else dividend[1]
        raise OpValidationError(f"dim {dividend[0]}..{hi} holds no multiple of the divisor {n}")
    return d


def _data_rank(data: TensorType, least: int) -> int | None:
    if data.shape is None:
        return None
    if len(data.shape) < least:
        raise OpValidationError(f"data of rank {len(data.shape)}: it must be {least} or more")
    return len(data.shape)


# --- ReverseSequence-1 -------------------------------------------------------------------------------------------


def _reverse_sequence(a: ReverseSequenceAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data, lengths = inputs
    if lengths.element == "boolean":
        raise OpValidationError("seq_lengths must be of a numeric element type, got boolean")
    rank = _data_rank(data, 2)
    if lengths.shape is not None and len(lengths.shape) != 1:
        raise OpValidationError(f"seq_lengths must be 1-D, got rank {len(lengths.shape)}")
    if rank is None:
        if a.seq_axis < 0:
            raise OpValidationError("a negative seq_axis needs data of a static rank")
        return [TensorType(data.element, None)]
    normalize_axis(a.seq_axis, rank, "seq_axis")
    shape = list(data.shape)
    if lengths.shape is not None:
        batch = normalize_axis(a.batch_axis, rank, "batch_axis")
        merged = meet(iv(shape[batch]), iv(lengths.shape[0]))
        if is_empty(merged):
            raise OpValidationError(f"seq_lengths has {lengths.shape[0]} values, data's batch dim is {shape[batch]}")
        shape[batch] = to_dim(merged)
    return [TensorType(data.element, tuple(shape))]


def _sequence_lengths(lengths: np.ndarray, n: int) -> list[int]:
    """The lengths as CPU reads them (floats truncated), every one in [0, n]."""
    flat = np.asarray(lengths).reshape(-1)
    if flat.dtype == np.bool_:
        raise OpValidationError("seq_lengths must be of a numeric element type, got boolean")
    if flat.dtype.kind == "f" and not np.all(np.isfinite(flat)):
        raise OpValidationError("seq_lengths holds a NaN or an infinity (OpenVINO CPU refuses it)")
    out = ints(flat)
    bad = [v for v in out if not 0 <= v <= n]
    if bad:
        raise OpValidationError(f"seq_lengths {bad[:4]} are outside [0, {n}], the seq axis's length (OpenVINO CPU "
                                "refuses them)")
    return out


def _run_reverse_sequence(a: ReverseSequenceAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Along seq_axis, the first seq_lengths[b] elements of batch b reversed (0 and 1 reverse nothing)."""
    x, lengths = np.asarray(args[0]), args[1]
    if x.ndim < 2:
        raise OpValidationError(f"data of rank {x.ndim}: it must be 2 or more")
    batch = normalize_axis(a.batch_axis, x.ndim, "batch_axis")
    seq = normalize_axis(a.seq_axis, x.ndim, "seq_axis")
    if batch == seq:
        raise OpValidationError("batch_axis and seq_axis are one axis (OpenVINO CPU and its reference disagree)")
    if np.ndim(lengths) != 1 or np.size(lengths) != x.shape[batch]:
        raise OpValidationError(f"seq_lengths of shape {list(np.shape(lengths))}: data's batch dim is "
                                f"{x.shape[batch]}")
    n = x.shape[seq]
    length = np.array(_sequence_lengths(lengths, n), np.int64)
    position = np.arange(n)
    at = [1] * x.ndim
    at[batch], at[seq] = len(length), n
    lb = length[:, None] if batch < seq else length[None, :]
    pos = position[None, :] if batch < seq else position[:, None]
    source = np.where(pos < lb, lb - 1 - pos, pos).reshape(at)
    return [np.take_along_axis(x, np.broadcast_to(source, x.shape), axis=seq)]


# --- ShuffleChannels-1 -------------------------------------------------------------------------------------------


def _shuffle_channels(a: ShuffleChannelsAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    (data,) = inputs
    if a.group < 1:
        raise OpValidationError(f"group {a.group}: it must be 1 or more")
    rank = _data_rank(data, 1)
    if rank is not None:
        channels = data.shape[normalize_axis(a.axis, rank)]
        if channels.is_static and channels.lo % a.group:
            raise OpValidationError(f"{channels.lo} channels are not a multiple of group {a.group}")
    return [TensorType(data.element, data.shape)]


def _run_shuffle_channels(a: ShuffleChannelsAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The axis as [group, C / group], transposed: output channel i * group + j is input channel j * C / group + i."""
    x = np.asarray(args[0])
    if a.group < 1:
        raise OpValidationError(f"group {a.group}: it must be 1 or more")
    if x.ndim < 1:
        raise OpValidationError("data must not be a scalar")
    axis = normalize_axis(a.axis, x.ndim)
    c = x.shape[axis]
    if c % a.group:
        raise OpValidationError(f"{c} channels are not a multiple of group {a.group}")
    y = x.reshape(*x.shape[:axis], a.group, c // a.group, *x.shape[axis + 1:])
    return [np.ascontiguousarray(np.swapaxes(y, axis, axis + 1)).reshape(x.shape)]


# --- BatchToSpace-2 and SpaceToBatch-2 ---------------------------------------------------------------------------


def _batch_to_space(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    data, block_t, begin_t, end_t = inputs
    known = {t.element for t in (block_t, begin_t, end_t) if t.element is not None}
    if len(known) > 1:
        raise OpValidationError(f"block_shape, crops_begin and crops_end have element types {sorted(known)}: they "
                                "must be one")
    _integral_number(known.pop() if known else None, "block_shape and crops")
    same = _merge_shapes([begin_t.shape, end_t.shape, block_t.shape], "block_shape, crops_begin and crops_end")
    rank = _data_rank(data, 2)
    if rank is None:
        return [TensorType(data.element, None)]
    if same is not None and same[0].is_static and same[0].lo != rank:
        raise OpValidationError(f"block_shape and crops have {same[0].lo} values, data has rank {rank}")
    blocks = None if values[1] is None else _int64s(values[1])
    if blocks is not None:
        if len(blocks) != rank:
            return None
        if any(b < 1 for b in blocks):
            raise OpValidationError(f"block_shape {blocks}: every value must be 1 or more")
        divisor = _product(blocks)
        if divisor is None:
            return None
        dividend = iv(data.shape[0])
        batch = _divided(ddiv(dividend, divisor), divisor, dividend)
    else:
        batch = ANY
    dims = [to_dim(batch)]
    if values[2] is None or values[3] is None:
        dims += [Dim(0, None)] * (rank - 1)
        return [TensorType(data.element, tuple(dims))]
    begin, end = _int64s(values[2]), _int64s(values[3])
    if len(begin) != rank or len(end) != rank:
        return None
    if any(c < 0 for c in (*begin, *end)):
        raise OpValidationError(f"crops_begin {begin} and crops_end {end} must be 0 or more")
    for i in range(1, rank):
        crop = begin[i] + end[i]
        if crop > INT64_MAX:
            return None
        if blocks is None:
            grown = dmul(iv(data.shape[i]), (1, INF))
        else:
            grown = dmul(iv(data.shape[i]), (blocks[i], blocks[i]))
            if is_static(grown) and crop > grown[0]:
                raise OpValidationError(f"crops {begin[i]} + {end[i]} exceed dim {i} ({grown[0]}) times its block")
        dims.append(to_dim(dsub(grown, (crop, crop))))
    return [TensorType(data.element, tuple(dims))]


def _space_to_batch(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    data, block_t, begin_t, end_t = inputs
    for t, what in ((block_t, "block_shape"), (begin_t, "pads_begin"), (end_t, "pads_end")):
        _integral_number(t.element, what)
    _merge_shapes([begin_t.shape, end_t.shape, block_t.shape], "block_shape, pads_begin and pads_end")
    rank = _data_rank(data, 2)
    if rank is None:
        return [TensorType(data.element, None)]
    blocks = None if values[1] is None else _int64s(values[1])
    if blocks is not None:
        product = _product(blocks)
        if product is None:
            return None
        batch = dmul(iv(data.shape[0]), _dimension(product))
    else:
        batch = ANY
    dims = [to_dim(batch)]
    if blocks is None or values[2] is None or values[3] is None:
        return [TensorType(data.element, (*dims, *[Dim(0, None)] * (rank - 1)))]
    begin, end = _int64s(values[2]), _int64s(values[3])
    if min(len(blocks), len(begin), len(end)) < rank:
        return None  # OpenVINO reads past the values' end
    for i in range(1, rank):
        if blocks[i] < 1:
            raise OpValidationError(f"block_shape {blocks}: every spatial value must be 1 or more")
        padded = dadd(dadd(iv(data.shape[i]), _dimension(begin[i])), _dimension(end[i]))
        if padded[1] == INF:
            out = (-(-padded[0] // blocks[i]), INF)
        else:
            out = _divided(ddiv(padded, blocks[i]), blocks[i], padded)
        dims.append(to_dim(out))
    return [TensorType(data.element, tuple(dims))]


def _block_values(x: np.ndarray, args: Sequence[np.ndarray], names: tuple[str, str]) -> tuple[list[int], ...]:
    """block_shape and the two crops/pads as ints, checked as the kernels need them (CPU's reading on the batch dim
    differs from OpenVINO's inference: refused)."""
    if x.ndim < 2:
        raise OpValidationError(f"data of rank {x.ndim}: it must be 2 or more")
    for v in args:
        if np.asarray(v).dtype.kind not in "iu":
            raise OpValidationError(f"block_shape, {names[0]} and {names[1]} must be integers, got "
                                    f"{np.asarray(v).dtype}")
    blocks, begin, end = (ints(v) for v in args)
    if not len(blocks) == len(begin) == len(end) == x.ndim:
        raise OpValidationError(f"block_shape, {names[0]} and {names[1]} have {len(blocks)}, {len(begin)} and "
                                f"{len(end)} values: data has rank {x.ndim}")
    if any(b < 1 for b in blocks) or any(v < 0 for v in (*begin, *end)):
        raise OpValidationError(f"block_shape {blocks} must be 1 or more, {names[0]} {begin} and {names[1]} {end} "
                                "0 or more")
    if blocks[0] != 1 or begin[0] or end[0]:
        raise OpValidationError(f"block_shape[0] {blocks[0]}, {names[0]}[0] {begin[0]} and {names[1]}[0] {end[0]} "
                                "must be 1, 0 and 0 (OpenVINO CPU gives another shape than its inference)")
    return blocks, begin, end


def _run_batch_to_space(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """x [N, D1..Dk] read as [B1..Bk, N / prod(B), D1..Dk] (the block offsets outermost), each offset moved beside
    its dim ([N / prod(B), D1, B1, ..., Dk, Bk]), merged ([N / prod(B), D1 * B1, ...]) and cropped."""
    x = np.asarray(args[0])
    blocks, begin, end = _block_values(x, args[1:], ("crops_begin", "crops_end"))
    k = x.ndim - 1
    product = math.prod(blocks)
    if x.shape[0] % product:
        raise OpValidationError(f"batch {x.shape[0]} is not a multiple of the blocks' product {product}")
    n = x.shape[0] // product
    for i in range(1, x.ndim):
        if begin[i] + end[i] > x.shape[i] * blocks[i]:
            raise OpValidationError(f"crops {begin[i]} + {end[i]} exceed dim {i} ({x.shape[i]}) times its block")
    y = x.reshape(*blocks[1:], n, *x.shape[1:])
    order = [k] + [i for j in range(k) for i in (k + 1 + j, j)]
    y = np.ascontiguousarray(y.transpose(order)).reshape(n, *(d * b for d, b in zip(x.shape[1:], blocks[1:],
                                                                                   strict=True)))
    crop = tuple(slice(b, y.shape[i] - e) for i, (b, e) in enumerate(zip(begin, end, strict=True)))
    return [np.ascontiguousarray(y[crop])]


def _run_space_to_batch(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """x [N, D1..Dk] padded with zeros, read as [N, P1 / B1, B1, ..., Pk / Bk, Bk], the block offsets moved in front
    ([B1..Bk, N, P1 / B1, ...]) and merged into the batch: BatchToSpace's inverse."""
    x = np.asarray(args[0])
    blocks, begin, end = _block_values(x, args[1:], ("pads_begin", "pads_end"))
    k = x.ndim - 1
    padded = np.pad(x, list(zip(begin, end, strict=True)))
    if any(d % b for d, b in zip(padded.shape[1:], blocks[1:], strict=True)):
        raise OpValidationError(f"padded dims {list(padded.shape[1:])} are not multiples of block_shape "
                                f"{blocks[1:]}")
    n = x.shape[0]
    y = padded.reshape(n, *(v for d, b in zip(padded.shape[1:], blocks[1:], strict=True) for v in (d // b, b)))
    order = [2 + 2 * j for j in range(k)] + [0] + [1 + 2 * j for j in range(k)]
    return [np.ascontiguousarray(y.transpose(order)).reshape(n * math.prod(blocks),
                                                               *(d // b for d, b in zip(padded.shape[1:], blocks[1:],
                                                                                        strict=True)))]


REVERSE_SEQUENCE_1 = OpSpec("ReverseSequence", "ReverseSequence-1", ReverseSequenceAttrs, (2, 2), 1,
                            guarded(_reverse_sequence), _run_reverse_sequence, rounding=moves(0), index_input=1,
                            evaluates=never)
SHUFFLE_CHANNELS_1 = OpSpec("ShuffleChannels", "ShuffleChannels-1", ShuffleChannelsAttrs, (1, 1), 1,
                            guarded(_shuffle_channels), _run_shuffle_channels, rounding=moves(0))
BATCH_TO_SPACE_2 = OpSpec("BatchToSpace", "BatchToSpace-2", NoAttrs, (4, 4), 1, guarded(_batch_to_space),
                          _run_batch_to_space, (1, 2, 3), rounding=moves(0))
SPACE_TO_BATCH_2 = OpSpec("SpaceToBatch", "SpaceToBatch-2", NoAttrs, (4, 4), 1, guarded(_space_to_batch),
                          _run_space_to_batch, (1, 2, 3), rounding=moves(0))
