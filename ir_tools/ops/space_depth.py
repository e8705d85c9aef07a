"""DepthToSpace-1 and SpaceToDepth-1: attributes, shape rules, reference kernels and rounding rule.

Checked against the installed openvino (shape rules and CPU kernels) by tests/ops/test_space_depth_conformance.py.
Measured on OpenVINO 2026.4.1:

- Both are in opset1..16. Data of any element type, rank 3 or more (a dynamic rank gives a dynamic rank).
- DepthToSpace: channels / block_size^k (k the spatial rank) and each spatial dim times block_size, on intervals
  (the lower bound of a division ceiled, the upper floored); channels holding no multiple of the divisor (static
  ones it does not divide, an interval 5..7 by 4) are refused, as is a block size of 0 (a divisor of 0).
- SpaceToDepth: channels times block_size^k and each spatial dim / block_size likewise; a block size of 0 and a
  spatial dim holding no multiple of block_size are refused.
- blocks_first: the block offsets are the outer part of the channel index (DepthToSpace reads channel
  (b_1 ... b_k) * C' + c); depth_first: the inner part (c * bs^k + b_1 ... b_k). The CPU moves elements bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.errors import OpValidationError
from . import attrs as A
from .intervals import Iv, ddiv, dmul, guarded, is_empty, iv, to_dim
from .rounding import moves
from .spec import OpSpec, TensorType


@dataclass(frozen=True, slots=True)
class SpaceDepthAttrs:
    """Defaults are OpenVINO's for an omitted attribute, which its IR reader reads (measured on 2026.4.1:
    tests/test_read_by_design.py): a block size of 0, which both refuse."""

    mode: str = A.attr("mode", A.enum("blocks_first", "depth_first"), "blocks_first")
    block_size: int = A.attr("block_size", A.UINT, 0)


def _divided(d: Iv, n: int, what: str) -> Iv:
    """d / n; OpenVINO refuses a dim no multiple of n lies within (an empty quotient: 5..7 / 4)."""
    out = ddiv(d, n)
    if is_empty(out):
        raise OpValidationError(f"{what} {d[0]}..{d[1]} holds no multiple of {n}")
    return out


def _rank_of(data: TensorType) -> int | None:
    if data.shape is None:
        return None
    if len(data.shape) < 3:
        raise OpValidationError(f"data of rank {len(data.shape)}: it must be 3 or more")
    return len(data.shape)


def _depth_to_space(a: SpaceDepthAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    (data,) = inputs
    rank = _rank_of(data)
    if rank is None:
        return [TensorType(data.element, None)]
    divisor = a.block_size ** (rank - 2)
    if divisor == 0:
        raise OpValidationError("block_size 0: the divisor block_size ** spatial rank must not be 0")
    channels = data.shape[1]
    if channels.is_static and channels.lo % divisor:
        raise OpValidationError(f"{channels.lo} channels are not divisible by block_size ** spatial rank ({divisor})")
    step = (a.block_size, a.block_size)
    dims = [data.shape[0], to_dim(_divided(iv(channels), divisor, "channels")),
            *(to_dim(dmul(iv(d), step)) for d in data.shape[2:])]
    return [TensorType(data.element, tuple(dims))]


def _space_to_depth(a: SpaceDepthAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    (data,) = inputs
    rank = _rank_of(data)
    if rank is None:
        return [TensorType(data.element, None)]
    if a.block_size == 0:
        raise OpValidationError("block_size 0: it must be greater than 0")
    for i, d in enumerate(data.shape[2:], 2):
        if d.is_static and d.lo % a.block_size:
            raise OpValidationError(f"dim {i} ({d.lo}) is not divisible by block_size {a.block_size}")
    factor = a.block_size ** (rank - 2)
    dims = [data.shape[0], to_dim(dmul(iv(data.shape[1]), (factor, factor))),
            *(to_dim(_divided(iv(d), a.block_size, "a spatial dim")) for d in data.shape[2:])]
    return [TensorType(data.element, tuple(dims))]


def _check_data(x: np.ndarray, a: SpaceDepthAttrs) -> int:
    if x.ndim < 3:
        raise OpValidationError(f"data of rank {x.ndim}: it must be 3 or more")
    if a.block_size == 0:
        raise OpValidationError("block_size must be greater than 0")
    return x.ndim - 2


def _run_depth_to_space(a: SpaceDepthAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """x [N, C, D1..Dk] as [N, bs.., C', D..] (blocks_first) or [N, C', bs.., D..] (depth_first), each block offset
    moved beside its spatial dim: [N, C', D1, bs, ..., Dk, bs]."""
    x = np.asarray(args[0])
    k = _check_data(x, a)
    n, c, *spatial = x.shape
    bs = a.block_size
    if c % bs**k:
        raise OpValidationError(f"{c} channels are not divisible by block_size ** spatial rank ({bs**k})")
    depth = c // bs**k
    if a.mode == "blocks_first":
        y = x.reshape(n, *[bs] * k, depth, *spatial)
        order = [0, k + 1] + [i for j in range(k) for i in (k + 2 + j, 1 + j)]
    else:
        y = x.reshape(n, depth, *[bs] * k, *spatial)
        order = [0, 1] + [i for j in range(k) for i in (k + 2 + j, 2 + j)]
    return [np.ascontiguousarray(y.transpose(order)).reshape(n, depth, *(d * bs for d in spatial))]


def _run_space_to_depth(a: SpaceDepthAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """DepthToSpace's inverse: x [N, C, D1..Dk] as [N, C, D1/bs, bs, ..., Dk/bs, bs], the block offsets moved in front
    of the channels (blocks_first) or behind them (depth_first)."""
    x = np.asarray(args[0])
    k = _check_data(x, a)
    n, c, *spatial = x.shape
    bs = a.block_size
    if any(d % bs for d in spatial):
        raise OpValidationError(f"spatial dims {spatial} are not divisible by block_size {bs}")
    y = x.reshape(n, c, *(v for d in spatial for v in (d // bs, bs)))
    blocks, dims = [3 + 2 * j for j in range(k)], [2 + 2 * j for j in range(k)]
    order = [0, *blocks, 1, *dims] if a.mode == "blocks_first" else [0, 1, *blocks, *dims]
    return [np.ascontiguousarray(y.transpose(order)).reshape(n, c * bs**k, *(d // bs for d in spatial))]


DEPTH_TO_SPACE_1 = OpSpec("DepthToSpace", "DepthToSpace-1", SpaceDepthAttrs, (1, 1), 1, guarded(_depth_to_space),
                          _run_depth_to_space, rounding=moves(0))
SPACE_TO_DEPTH_1 = OpSpec("SpaceToDepth", "SpaceToDepth-1", SpaceDepthAttrs, (1, 1), 1, guarded(_space_to_depth),
                          _run_space_to_depth, rounding=moves(0))
