"""Broadcast and Tile: attributes, shape rules and reference kernels.

Shape rules are OpenVINO's shape inference (src/core/shape_inference), interval bounds included
(ops/intervals.py), checked against the installed openvino by tests/ops/test_shaping_conformance.py; kernels are
checked there against OpenVINO CPU. Measured on OpenVINO 2026.4.1, beyond its specification:

- Broadcast-1 and Broadcast-3 read mode case-insensitively, "none" as "explicit"; a missing mode is
  numpy for Broadcast-3 and explicit for Broadcast-1, and a Broadcast-1 with two inputs is numpy
  whatever its mode. The target shape of numpy mode is the output as given (a -1 there is a
  dynamic dim, another negative value 0). Mode pdpd is not modelled: the rule answers None.
- Tile reads negative repeats as 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import Dim
from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .bounds import Bounds
from .core import NoAttrs
from .intervals import (
    ANY,
    ONE,
    Iv,
    broadcast_merge,
    canon,
    compatible,
    dims,
    dmul,
    dynamic,
    guarded,
    is_static,
    iv,
    static_dims,
    to_dim,
)
from .operands import integral, ints, static_size
from .rounding import moves
from .spec import OpSpec, TensorType

# --- Broadcast --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Broadcast1Attrs:
    mode: str = A.attr("mode", A.enum("numpy", "explicit", "none", "pdpd"), "explicit")


@dataclass(frozen=True, slots=True)
class Broadcast3Attrs:
    mode: str = A.attr("mode", A.enum("numpy", "explicit", "none", "bidirectional", "pdpd"), "numpy")


def _mode(a) -> str:
    return "explicit" if a.mode == "none" else a.mode


def _target_dims(value: np.ndarray | Bounds) -> list[Iv] | None:
    """A target shape's values as dims: -1 is dynamic, another negative value 0; of a value OpenVINO bounds, the
    bounds (None where one is below 0, which OpenVINO refuses)."""
    if isinstance(value, Bounds):
        return value.dims()
    return [ANY if v == -1 else canon(v, v) for v in ints(value)]


def _broadcast(v3: bool):
    def infer(a, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
        mode = _mode(a)
        if v3 and mode == "explicit" and len(inputs) != 3:
            raise OpValidationError("explicit mode needs the axes_mapping input")
        if v3 and mode != "explicit" and len(inputs) != 2:
            raise OpValidationError(f"{mode} mode takes no axes_mapping input")
        if not v3 and mode == "explicit" and len(inputs) != 3:
            mode = "numpy"  # Broadcast-1 without axes_mapping is numpy, whatever its mode says
        data, target_t = inputs[0], inputs[1]
        integral(target_t, "the target shape")
        if target_t.shape is not None and len(target_t.shape) != 1:
            raise OpValidationError(f"the target shape must be 1-D, got rank {len(target_t.shape)}")
        if mode == "pdpd":
            return None
        target = None if values[1] is None else _target_dims(values[1])
        if target is None and values[1] is not None:
            return None
        n = None if target_t.shape is None or not target_t.shape[0].is_static else target_t.shape[0].lo
        shape = data.shape
        if mode == "explicit":
            axes_t = inputs[2]
            integral(axes_t, "axes_mapping")
            if axes_t.shape is not None and len(axes_t.shape) != 1:
                raise OpValidationError(f"axes_mapping must be 1-D, got rank {len(axes_t.shape)}")
            out = dims(target) if target is not None else dynamic(n)
            if shape is not None and target_t.shape is not None and static_size(axes_t) is not None:
                count = axes_t.shape[0].lo
                rank = 1 if len(shape) == 0 and count > 0 else len(shape)
                if count != rank:
                    raise OpValidationError(f"axes_mapping has {count} values, the input has rank {rank}")
                if target is not None and isinstance(values[2], np.ndarray):  # (bounds: not read)
                    _explicit_axes(shape, ints(values[2]), target)
            return [TensorType(data.element, out)]
        if mode == "numpy":
            if target is None:
                return [TensorType(data.element, dynamic(n))]
            if shape is not None:
                if len(target) < len(shape):
                    raise OpValidationError(f"the target shape has rank {len(target)}, less than the input's "
                                            f"{len(shape)}")
                for d, t in zip(shape, target[len(target) - len(shape):], strict=True):
                    di = iv(d)
                    if not (not d.is_static or not is_static(t) or compatible(di, ONE) or compatible(di, t)):
                        raise OpValidationError(f"input dim {d} cannot be broadcast to {to_dim(t)}")
            return [TensorType(data.element, dims(target))]
        # bidirectional
        if target is None:
            if shape is None or n is None:
                return [TensorType(data.element, None)]
            merged = _broadcast_merge([ANY] * n, [iv(d) for d in shape])
            return [TensorType(data.element, dims(merged))]
        if shape is None:
            return [TensorType(data.element, None)]
        return [TensorType(data.element, dims(_broadcast_merge(target, [iv(d) for d in shape])))]

    return infer


def _broadcast_merge(a: list[Iv], b: list[Iv]) -> list[Iv]:
    rank = max(len(a), len(b))
    a = [ONE] * (rank - len(a)) + a
    b = [ONE] * (rank - len(b)) + b
    out = []
    for x, y in zip(a, b, strict=True):
        m = broadcast_merge(x, y)
        if m is None:
            raise OpValidationError(f"dims {to_dim(x)} and {to_dim(y)} cannot be broadcast together")
        out.append(m)
    return out


def _explicit_axes(shape: tuple[Dim, ...], axes: list[int], target: list[Iv]) -> None:
    if axes != sorted(axes):
        raise OpValidationError(f"axes_mapping {axes} is not sorted")
    if any(v < 0 or v >= len(target) for v in axes):
        raise OpValidationError(f"axes_mapping {axes} reaches beyond the target rank {len(target)}")
    if len(shape) == 0 and axes and not compatible(target[axes[0]], ONE):
        raise OpValidationError(f"a scalar maps to target dim {to_dim(target[axes[0]])}, expected 1")
    if len(shape) > 0:
        for d, axis in zip(shape, axes, strict=False):
            if not (compatible(target[axis], iv(d)) or compatible(iv(d), ONE)):
                raise OpValidationError(f"input dim {d} maps to target dim {to_dim(target[axis])}")


def _run_broadcast(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, target = args[0], ints(args[1])
    mode = _mode(a)
    if mode == "explicit" and len(args) < 3:
        mode = "numpy"  # Broadcast-1 without axes_mapping (Broadcast-3's rule refuses that)
    if mode == "pdpd":
        raise UnsupportedError("Broadcast mode pdpd is not supported by the reference")
    if any(v < 0 for v in target):
        raise OpValidationError(f"target shape {target} has a negative value")
    if mode == "numpy":
        if len(target) < x.ndim or any(n not in (1, t) for n, t in zip(x.shape, target[len(target) - x.ndim:],
                                                                        strict=True)):
            raise OpValidationError(f"shape {list(x.shape)} cannot be broadcast to {target}")
        return [np.broadcast_to(x, target).copy()]
    if mode == "bidirectional":
        try:
            shape = np.broadcast_shapes(x.shape, tuple(target))
        except ValueError:
            raise OpValidationError(f"shapes {list(x.shape)} and {target} do not broadcast") from None
        return [np.broadcast_to(x, shape).copy()]
    axes = ints(args[2])
    if len(axes) != x.ndim and not (x.ndim == 0 and len(axes) == 1):
        raise OpValidationError(f"axes_mapping {axes} does not map the {x.ndim} input axes")
    _explicit_axes(static_dims(x.shape), axes, [(t, t) for t in target])
    lifted = [1] * len(target)
    for n, axis in zip(x.shape, axes, strict=False):
        if n not in (1, target[axis]):
            raise OpValidationError(f"input dim {n} maps to target dim {target[axis]}")
        lifted[axis] = n
    return [np.broadcast_to(x.reshape(lifted), target).copy()]


# --- Tile -------------------------------------------------------------------------------------------


def _repeats(value: np.ndarray | Bounds) -> list[Iv] | None:
    """Tile's repeats as dims (``get_input_const_data_as_shape``): a negative known one 0; of a value OpenVINO bounds,
    the bounds read as a partial shape (measured on 2026.4.1: ``[2..10]`` repeats of 10 are ``20..100``; None where
    one is below 0, which OpenVINO refuses)."""
    if isinstance(value, Bounds):
        return value.dims()
    return [(max(v, 0), max(v, 0)) for v in ints(value)]


def _tile(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    data, repeats_t = inputs
    integral(repeats_t, "repeats")
    if repeats_t.shape is not None and len(repeats_t.shape) != 1:
        raise OpValidationError(f"repeats must be 1-D, got rank {len(repeats_t.shape)}")
    shape, reps = data.shape, None if values[1] is None else _repeats(values[1])
    if values[1] is not None and reps is None:
        return None  # (OpenVINO reads the repeats before the data's rank)
    if shape is not None and reps is not None:
        rank = max(len(shape), len(reps))
        reps = [ONE] * (rank - len(reps)) + reps
        lead = rank - len(shape)
        return [TensorType(data.element, dims(reps[:lead] + [dmul(iv(d), r) for d, r in zip(shape, reps[lead:],
                                                                                               strict=True)]))]
    if shape is not None and repeats_t.shape is not None and repeats_t.shape[0].is_static:
        return [TensorType(data.element, dynamic(max(len(shape), repeats_t.shape[0].lo)))]
    return [TensorType(data.element, None)]


def _run_tile(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    x, repeats = args
    reps = [max(v, 0) for v in ints(repeats)]
    if len(reps) < x.ndim:
        reps = [1] * (x.ndim - len(reps)) + reps
    return [np.tile(x, reps)]


# --- specs ------------------------------------------------------------------------------------------

BROADCAST_1 = OpSpec("Broadcast", "Broadcast-1", Broadcast1Attrs, (2, 3), 1, guarded(_broadcast(False)),
                     _run_broadcast, (1, 2), rounding=moves(0), reads_unfed_ports=True, reads_bounds=True,
                     reads_concat=True)
BROADCAST_3 = OpSpec("Broadcast", "Broadcast-3", Broadcast3Attrs, (2, 3), 1, guarded(_broadcast(True)),
                     _run_broadcast, (1, 2), rounding=moves(0), reads_bounds=True, reads_concat=True)
TILE_1 = OpSpec("Tile", "Tile-1", NoAttrs, (2, 2), 1, guarded(_tile), _run_tile, (1,), rounding=moves(0),
                reads_bounds=True)
