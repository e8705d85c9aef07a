"""DeformableConvolution-8 as DeformableConvolution-1."""

from __future__ import annotations

from collections import Counter

from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ..base import PassResult
from .base import Downgrade, respelled

#: The data, offsets and filters (a mask, v8's fourth input, is what v1 lacks).
_INPUTS_WITHOUT_MASK = 3


class DeformableConvolutionTo1(Downgrade):
    """DeformableConvolution-8 as DeformableConvolution-1 (for releases before 2022.1), as OpenVINO's own
    ConvertDeformableConv8To1: v8 adds an optional mask input (the sampled values scaled by it) and
    ``bilinear_interpolation_pad`` (whether a sampling point within one pixel beyond the data is interpolated against
    zeros, or is zero); with no mask and the attribute false, the layer is v1 with the other attributes as they are
    (120 seeded layers, groups, deformable groups, pads, strides and dilations drawn: bit for bit on 2023.0 and
    2026.4). Any other is left, for ``retarget`` to refuse (torchvision's deform_conv2d exports both)."""

    rewrites = {"DeformableConvolution-8": "into DeformableConvolution-1 where it has no mask input and "
                                           "bilinear_interpolation_pad is false"}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        lacking = [what for what, present in (
            ("a mask input", len(layer.input_ids()) > _INPUTS_WITHOUT_MASK),
            ("bilinear_interpolation_pad true", A.flag(layer.attrs, "bilinear_interpolation_pad", False))) if present]
        return f"it has {' and '.join(lacking)}, which DeformableConvolution-1 does not have" if lacking else None

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        for layer in self.layers(graph):
            respelled(graph, layer, "opset1")
            layer.attrs = {name: text for name, text in layer.attrs.items() if name != "bilinear_interpolation_pad"}
            stats["DeformableConvolution-8 (no mask, no bilinear pad) -> DeformableConvolution-1"] += 1
        return PassResult(graph, bool(stats), stats)
