"""FakeQuantize-1 (opset1 to opset16): shape rule, reference kernel and rounding rule.

FakeQuantize is how OpenVINO's int8 models (NNCF, POT, ONNX QuantizeLinear/DequantizeLinear pairs) say where and how
values are quantized. Semantics (OpenVINO's specification and reference, reference/fake_quantize.hpp): with n =
levels - 1, ``x <= min(il, ih)`` gives ``ol``, ``x > max(il, ih)`` gives ``oh``, and otherwise
``nearbyint((x - il) / (ih - il) * n) / n * (oh - ol) + ol`` (round half to even). The four ranges broadcast to the
data under ``auto_broadcast``.

Measured on openvino 2026.4.1 (tests/ops/test_fake_quantize_conformance.py), beyond the specification: shape
inference checks each range against the data's shape as it grows (a range may broadcast it: [1,3,4,4] with ranges
of [2,3,1,1] passes) but the output keeps the data's partial shape and element type; any element types and levels
pass it. The reference refuses what would change the output's shape, and computes neither integer data nor fewer
than 2 levels (which OpenVINO reads and runs: an omitted levels is 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .arithmetic import AUTO_BROADCAST, broadcast_shapes
from .rounding import ACCUMULATION_UNIT, is_exact, may_differ, output_rounding
from .spec import Kernel, OpSpec, TensorType, on_arithmetic


@dataclass(frozen=True, slots=True)
class FakeQuantizeAttrs:
    levels: int = A.attr("levels", A.UINT, 0)  # (OpenVINO's for an omitted one, which its reader reads)
    auto_broadcast: str = A.attr("auto_broadcast", AUTO_BROADCAST, "numpy")
    pdpd_axis: int | None = A.attr("auto_broadcast.auto_broadcast_axis", A.INT, None)  # None: OpenVINO's 0


def _mode(a: FakeQuantizeAttrs) -> str:
    return "none" if a.auto_broadcast == "explicit" else a.auto_broadcast


def _infer(a: FakeQuantizeAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    data = inputs[0].shape
    for t in inputs[1:]:
        data = broadcast_shapes(data, t.shape, _mode(a), a.pdpd_axis)
    return [TensorType(inputs[0].element, inputs[0].shape)]


def _operands(a: FakeQuantizeAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Data and ranges as float64, the ranges broadcast to the data (which must keep its shape)."""
    x = np.asarray(args[0])
    if x.dtype.kind != "f":
        raise UnsupportedError(f"FakeQuantize of {x.dtype} data")
    if a.levels < 2:  # (OpenVINO reads and runs them: levels omitted is 0)
        raise UnsupportedError(f"FakeQuantize of {a.levels} levels (fewer than 2)")
    shapes = [np.shape(v) for v in args]
    if _mode(a) == "none" and any(s != x.shape for s in shapes):
        raise OpValidationError(f"ranges of shapes {shapes[1:]} with auto_broadcast none: they must be {list(x.shape)}")
    try:
        grown = np.broadcast_shapes(*shapes)
    except ValueError:
        raise OpValidationError(f"ranges of shapes {shapes[1:]} do not broadcast to data {list(x.shape)}") from None
    if grown != x.shape:
        raise OpValidationError(f"ranges of shapes {shapes[1:]} broadcast data {list(x.shape)} to {list(grown)}: "
                                "the output keeps the data's shape")
    return [np.broadcast_to(np.asarray(v, np.float64), x.shape) for v in args]


def _quantized(a: FakeQuantizeAttrs, x, low, high, out_low, out_high) -> np.ndarray:
    n = a.levels - 1
    with np.errstate(all="ignore"):
        q = np.rint((x - low) / (high - low) * n) / n * (out_high - out_low) + out_low
    return np.where(x <= np.minimum(low, high), out_low, np.where(x > np.maximum(low, high), out_high, q))


def _run(a: FakeQuantizeAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [_quantized(a, *_operands(a, args)).astype(np.asarray(args[0]).dtype)]


def _rounding(kernel: Kernel, a: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
              outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """OpenVINO CPU computes the level as x * s + t (s = n / (ih - il), t = -il s, both rounded to f32) and the output
    as r * (oh - ol) / n + ol: the level's position is off by a few f32 roundings of its terms, plus the input's own
    error times |s|. Each rounding boundary (a half level) within that distance of the exact position may flip the
    level by one: a step |oh - ol| / n each; an end of an inverted input range, the whole output range; besides, the
    output's own roundings. Inexact output ranges move the output by at most their larger bound b (r / n weighs them),
    and each flip by at most b more (2 b a jump); inexact input ranges move every level: the output may then be
    anywhere in its range, |oh - ol| + b from y."""
    x, low, high, out_low, out_high = _operands(a, args)
    n = a.levels - 1
    with np.errstate(all="ignore"):
        scale = n / (high - low)
        position = (x - low) * scale
        slack = 4.0 * ACCUMULATION_UNIT * (np.abs(x * scale) + np.abs(low * scale) + 1.0)
        if not is_exact(bounds[0]):
            slack = slack + np.abs(scale) * bounds[0]
        flips = np.floor(position + slack + 0.5) - np.floor(position - slack + 0.5)
        step = np.abs(out_high - out_low) / n
        # an inverted input range jumps the whole output range at its ends (x <= ih gives ol where the formula
        # gives oh)
        jumps = (high < low) & ((np.abs(position) <= slack) | (np.abs(position - n) <= slack))
        y = np.asarray(outputs[0], np.float64)
        own = 4.0 * ACCUMULATION_UNIT * (np.abs(y) + np.abs(out_low) + step * n) + output_rounding(outputs[0])
        bound = own + flips * step + jumps * step * n
        if not all(is_exact(b) for b in bounds[1:]):
            b_low, b_high, b_out_low, b_out_high = (np.broadcast_to(np.broadcast_to(b, np.shape(v)), np.shape(y))
                                                    for v, b in zip(args[1:], bounds[1:], strict=True))
            spread = np.maximum(b_out_low, b_out_high)
            bound = bound + spread * (1.0 + flips + 2.0 * jumps)
            anywhere = own + step * n + spread
            bound = np.where(may_differ(low, b_low) | may_differ(high, b_high), np.maximum(bound, anywhere), bound)
    return [np.where(np.isfinite(bound), bound, np.inf)]


#: The levels OpenVINO's CPU plugin strips (its FQStripping pass: a FakeQuantize of equal input and output ranges,
#: at these levels, is taken out of the model as it compiles).
_STRIPPED_LEVELS = 65536
#: How close two range values must be for that pass to call the ranges equal.
_STRIPPED_EPSILON = 1e-6


def stripped_by_cpu(levels: int, ranges: Sequence[np.ndarray | None]) -> bool:
    """Whether OpenVINO's CPU plugin strips a FakeQuantize of ``levels`` whose four ranges are these Consts (None: not
    a Const): 65536 levels, and float ranges of one element type, the input ones equal to the output ones within
    1e-6 in that type's arithmetic, as the pass folds it (inf - inf is NaN: not equal; ranges that do not broadcast
    together fail its fold, and it leaves the layer)."""
    if levels != _STRIPPED_LEVELS or any(v is None for v in ranges) or \
            len({v.dtype for v in ranges}) != 1 or ranges[0].dtype.kind != "f":
        return False
    low, high, out_low, out_high = ranges
    epsilon = low.dtype.type(_STRIPPED_EPSILON)
    try:
        with np.errstate(all="ignore"):
            return bool(np.all(np.abs(low - out_low) < epsilon) and np.all(np.abs(high - out_high) < epsilon))
    except ValueError:
        return False


def _stripped_on_f16(a: FakeQuantizeAttrs, inputs: Sequence[TensorType], values) -> str | None:
    """An f16 FakeQuantize the CPU plugin strips (``stripped_by_cpu``): the pass computes levels - 1 as an f16
    constant and refuses to compile the model ("65535 assigned value out of range for f16"; measured on 2026.4, bf16
    and f32 ranges, or unequal ones, compile)."""
    if inputs[2].element != "f16" or not stripped_by_cpu(a.levels, values[1:5]):
        return None
    return (f"levels {a.levels} on f16 with equal input and output ranges: OpenVINO CPU refuses to compile it (its "
            f"pass stripping such a FakeQuantize cannot hold levels - 1 in f16)")


FAKE_QUANTIZE_1 = OpSpec("FakeQuantize", "FakeQuantize-1", FakeQuantizeAttrs, (5, 5), 1, _infer, _run,
                         rounding=_rounding, cpu_refuses=_stripped_on_f16, evaluates=on_arithmetic)
