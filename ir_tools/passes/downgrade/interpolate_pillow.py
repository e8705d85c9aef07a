"""Interpolate-11's bilinear_pillow and bicubic_pillow as a weighed sum of each output's window of taps."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dtypes import element_type
from ...ir.model import Graph, Layer
from ...ops.interpolate import PILLOW_MODES, pillow_taps, pillow_unmeasured
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..pattern import typed_attrs
from .base import Downgrade, const_input, source


class InterpolatePillowTo1(Downgrade):
    """Interpolate-11 in bilinear_pillow or bicubic_pillow mode, which Interpolate-4 lacks, for releases before
    2023.0. OpenVINO CPU resamples the last axis, then the one before, each output a sum over a window of the input
    weighted by a float32 table fixed by the two lengths alone (``ops/interpolate.pillow_taps``); an axis whose
    length stays is copied. So each resized axis is a Gather-1 of every output's window, a Multiply-1 by its weights
    and a ReduceSum-1 over the window, in f32 (f16 data converted to f32 and back, as the CPU resamples it in f32):
    within the op's rounding rule for its order of summation, and an inf or NaN reaches the outputs whose windows
    hold it, as on OpenVINO. Declined: spatial dims unknown from the declared shapes, data other than f32 or f16, a
    rank other than 4, pads, a resized batch or channel axis (not measured), an empty output."""

    rewrites = {"Interpolate-11": "into Gather-1, Multiply-1 and ReduceSum-1 of each output's window per resized "
                                  "axis (bilinear_pillow and bicubic_pillow: f32 or f16 data of rank 4, static "
                                  "spatial dims, no pads)"}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        a = typed_attrs(layer)
        if a.mode not in PILLOW_MODES:
            return None  # (InterpolateTo4's)
        given, made = layer.inputs[0].dims, layer.outputs[0].dims
        if given is None or made is None or len(given) != len(made) or any(d < 0 for d in (*given[-2:], *made[-2:])):
            return f"{a.mode} on spatial dims unknown from the declared shapes: its weights depend on their lengths"
        element = element_type(layer.inputs[0].precision or "")
        if element is None or element.name not in ("f32", "f16"):
            return f"{a.mode} on {element.name if element else 'undeclared'} data: OpenVINO rounds each pass on " \
                   "integers, and only f32 and f16 are measured"
        why = pillow_unmeasured(given, made, a.pads_begin + a.pads_end, np.dtype(element.numpy))
        if why is not None:
            return f"{a.mode} where {why}: not measured"
        if 0 in made[-2:]:
            return f"{a.mode} with an empty output"
        axes = const_input(graph, layer, 2) if len(layer.inputs) == 3 else np.arange(len(given))
        if axes is None or any(given[axis] < 0 and axis in axes for axis in (0, 1)):
            return f"{a.mode} whose axes may resize its dynamic batch or channel axis"
        return None

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            mode = typed_attrs(layer).mode
            if mode not in PILLOW_MODES:
                continue
            builder.replace_layer(layer, lambda: [_resampled(builder, layer, mode)],  # noqa: B023
                                  origin_text(layer, "Interpolate-11"))
            stats[f"Interpolate-11 ({mode}) -> Gather-1/Multiply-1/ReduceSum-1"] += 1
        return PassResult(graph, bool(stats), stats)


def _resampled(builder: GraphBuilder, layer: Layer, mode: str) -> Output:
    """The layer's output: each resized axis (the last first) weighed as OpenVINO CPU weighs it, in f32: the data
    padded by one zero at the axis' end where a window is shorter than the longest, Gather-1 of every output's window
    (``pillow_taps``: the padding's index past the others), Multiply-1 by the weights and ReduceSum-1 over the taps."""
    name = layer.name
    data = source(builder.graph, layer, 0)
    given, made = layer.inputs[0].dims, layer.outputs[0].dims
    half = element_type(layer.inputs[0].precision or "").name == "f16"

    def add(op: str, inputs: list[Output], what: str, attrs: dict[str, str] | None = None) -> Output:
        return output_of(builder.add(op, "opset1", attrs, inputs, f"{name}/{what}"))

    def const(value: np.ndarray, what: str) -> Output:
        return builder.const(value, f"{name}/{what}")

    axes = [axis for axis in (3, 2) if made[axis] != given[axis]]
    if not axes:  # (OpenVINO copies the data: a Reshape-1 to its own shape)
        return output_of(builder.add("Reshape", "opset1", {"special_zero": "true"},
                                     [data, const(np.zeros(4, np.int64), "same_shape")], name))
    y = output_of(builder.convert(data, "f32", f"{name}/f32")) if half else data
    for step, axis in enumerate(axes):
        what = ("rows", "columns")[axis - 2]
        indices, weights = pillow_taps(mode, made[axis], given[axis])
        if (indices == given[axis]).any():
            ends = np.zeros(4, np.int64)
            ends[axis] = 1
            y = add("Pad", [y, const(np.zeros(4, np.int64), f"{what}/pads_begin"), const(ends, f"{what}/pads_end"),
                            const(np.array(0, np.float32), f"{what}/zero")], f"{what}/padded", {"pad_mode": "constant"})
        taps = add("Gather", [y, const(indices, f"{what}/taps"), const(np.array(axis, np.int64), f"{what}/axis")],
                   f"{what}/gathered")
        weighed = add("Multiply", [taps, const(weights.reshape(weights.shape + (1,) * (3 - axis)), f"{what}/weights")],
                      f"{what}/weighed")
        last = step == len(axes) - 1 and not half
        y = output_of(builder.add("ReduceSum", "opset1", {"keep_dims": "false"},
                                  [weighed, const(np.array([axis + 1], np.int64), f"{what}/tap_axis")],
                                  name if last else f"{name}/{what}"))
    return output_of(builder.convert(y, "f16", name)) if half else y
