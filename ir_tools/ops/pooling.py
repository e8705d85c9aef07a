"""AvgPool-1, AvgPool-14, AvgPool-16 and AdaptiveAvgPool-8: attributes and shape rules."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.errors import OpValidationError
from . import attrs as A
from .core import NoAttrs
from .kernels import adaptive_avg_pool, avg_pool
from .pool_geometry import AUTO_PADS, ROUNDING_TYPES, PoolGeometry, pool_geometry
from .spec import OpSpec, TensorType


@dataclass(frozen=True, slots=True)
class AvgPoolAttrs:
    """AvgPool-1 attributes (also AvgPool-14, whose rounding_type may be ceil_torch).

    Defaults are OpenVINO's for an omitted attribute: no pads (read as zeros), exclude-pad true.
    """

    kernel: tuple[int, ...] = A.attr("kernel", A.UINT_LIST)
    strides: tuple[int, ...] = A.attr("strides", A.UINT_LIST)
    pads_begin: tuple[int, ...] = A.attr("pads_begin", A.UINT_LIST, ())
    pads_end: tuple[int, ...] = A.attr("pads_end", A.UINT_LIST, ())
    exclude_pad: bool = A.attr("exclude-pad", A.BOOL, True)
    auto_pad: str = A.attr("auto_pad", A.enum(*AUTO_PADS), "explicit")
    rounding_type: str = A.attr("rounding_type", A.enum(*ROUNDING_TYPES), "floor")

    @property
    def dilations_or_ones(self) -> tuple[int, ...]:
        return getattr(self, "dilations", None) or (1,) * len(self.kernel)


@dataclass(frozen=True, slots=True)
class AvgPool16Attrs(AvgPoolAttrs):
    dilations: tuple[int, ...] | None = A.attr("dilations", A.UINT_LIST, None)


def geometry(a: AvgPoolAttrs, data: TensorType, label: str) -> PoolGeometry:
    """The resolved window geometry of an AvgPool layer (``label`` e.g. "AvgPool-14") with this input."""
    return pool_geometry(
        data.shape,
        a.kernel,
        a.strides,
        a.dilations_or_ones,
        a.pads_begin,
        a.pads_end,
        a.auto_pad,
        a.rounding_type,
        a.exclude_pad,
        label != "AvgPool-1",
    )


def _avg_pool(label: str):
    def infer(a: AvgPoolAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
        g = geometry(a, inputs[0], label)
        if g.spatial is None:
            return [TensorType(inputs[0].element, (DYNAMIC,) * (2 + len(a.kernel)))]
        return [TensorType(inputs[0].element, inputs[0].shape[:2] + g.spatial)]

    return infer


def _adaptive(a, inputs: Sequence[TensorType], values: Sequence[np.ndarray | None]) -> list[TensorType]:
    """OpenVINO's rule: it checks the data rank and output_size's first dim only, reads any numeric
    output_size (floats truncated), makes -1 a dynamic dim and other negatives 0."""
    data, size = inputs
    if data.shape is not None and len(data.shape) not in (3, 4, 5):
        raise OpValidationError(f"expected a 3-D, 4-D or 5-D input, got rank {len(data.shape)}")
    if data.shape is None:
        return [TensorType(data.element, None)]
    spatial = len(data.shape) - 2
    if size.shape is not None:
        if len(size.shape) == 0:
            raise OpValidationError("output_size is a scalar, expected one value per spatial axis")
        count = size.shape[0]
        if count.lo > spatial or (count.hi is not None and count.hi < spatial):
            raise OpValidationError(f"output_size has {count} values, expected {spatial}")
    if values[1] is None:
        return [TensorType(data.element, data.shape[:2] + (DYNAMIC,) * spatial)]
    raw = np.asarray(values[1]).reshape(-1)
    if raw.dtype.kind not in "iuf":
        raise OpValidationError(f"output_size of type {raw.dtype} cannot be read as sizes")
    sizes = [int(v) for v in (np.trunc(raw) if raw.dtype.kind == "f" else raw)]
    if len(sizes) != spatial:
        raise OpValidationError(f"output_size has {len(sizes)} values, expected {spatial}")
    if any(v >= 2**63 for v in sizes):
        raise OpValidationError(f"output_size {sizes} has a value beyond the i64 range")
    dims = tuple(DYNAMIC if v == -1 else Dim(max(v, 0), max(v, 0)) for v in sizes)
    return [TensorType(data.element, data.shape[:2] + dims)]


def _run_avg_pool(a: AvgPoolAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [avg_pool(args[0], a.kernel, a.strides, a.pads_begin, a.pads_end, a.exclude_pad, a.rounding_type,
                     a.auto_pad, a.dilations_or_ones)]


def _run_adaptive(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [adaptive_avg_pool(args[0], [int(v) for v in np.asarray(args[1]).reshape(-1)])]


def _avg_pool_spec(label: str, attrs: type) -> OpSpec:
    return OpSpec("AvgPool", label, attrs, (1, 1), 1, _avg_pool(label), _run_avg_pool)


AVG_POOL_1 = _avg_pool_spec("AvgPool-1", AvgPoolAttrs)
AVG_POOL_14 = _avg_pool_spec("AvgPool-14", AvgPoolAttrs)
AVG_POOL_16 = _avg_pool_spec("AvgPool-16", AvgPool16Attrs)
ADAPTIVE_AVG_POOL_8 = OpSpec("AdaptiveAvgPool", "AdaptiveAvgPool-8", NoAttrs, (2, 2), 1, _adaptive, _run_adaptive, (1,))
