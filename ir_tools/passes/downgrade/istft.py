"""ISTFT-16 (torch.istft) as IRDFT-9 of the frames, Multiply-1 by the padded window, an overlap-add of Pad-1 and Add-1
in frame order, and Divide-1 by the summed squared window (releases before 2025.0 have no ISTFT)."""

from __future__ import annotations

import numpy as np

from ...base.dims import Dim
from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.spec import TensorType
from ..base import PassResult
from ..builder import GraphBuilder, Output, output_of
from ..shapes import declared_type
from .base import Downgrade, const_input, source
from .stft import WIDENED, const_count, framing, spectral_refusal

LABEL = "ISTFT-16"


class IstftTo9(Downgrade):
    """ISTFT-16 (OpenVINO's reference, which the CPU runs in f32: data ``[batch?, frame_size // 2 + 1, frames, 2]``;
    each frame's IRDFT, ``frame_size`` long, times the window zero-padded to frame_size as STFT pads it, added at ``t *
    step`` into a row of ``(frames - 1) * step + frame_size`` that starts at +0.0, frame after frame; the window's
    squares added alike; each sum, times ``sqrt(frame_size)`` where normalized, divided by its squares' sum, 0 where
    that is 0; then ``frame_size // 2`` samples skipped where center, and ``length`` samples kept (zeros past the
    data), else all but the last ``frame_size & ~1`` where center) by the same steps in ops 2023.0 has. Transpose-1
    puts frames before bins and IRDFT-9 transforms each (bit for bit the CPU's ISTFT's, measured); the frames and the
    window broadcast to them (Broadcast-3 of ShapeOf-3), stacked (Concat-1), are multiplied by the window at once
    (Multiply-1): the windowed frames and the window's squares, computed when the model runs (a product of Consts
    alone is folded when it is compiled, in f16 for f16). The overlap-add: each frame, zero-padded to ``(K + 1) *
    step`` for ``K = ceil(frame_size / step)``, is parted into ``K + 1`` chunks of ``step`` (Reshape-1, Split-1);
    chunk ``k`` of frame ``t`` lands in block ``t + k`` of the row, so chunk ``k`` of every frame, shifted ``k`` blocks
    down (Pad-1 on the frames' axis), is one addend, and the addends summed from the last ``k`` to the first add each
    sample's frames in the reference's order, from the all-zero chunk ``K`` (a Pad's zeros, not a Const a graph
    optimisation folds away: the reference's sum starts at +0.0, which turns a first -0.0 into +0.0). Linear in the
    signal: ``K + 1`` adds of a row each. Every sum is the ISTFT's to the bit (measured; but the sign of a NaN where
    two meet, which OpenVINO CPU's Add-1 takes from one operand or the other as the shapes are static or not); then
    Divide-1 (Multiply-1 by ``sqrt(frame_size)`` first where normalized), which OpenVINO CPU computes as a product by
    the rounded reciprocal (every release measured), so the quotients are within 3u (1 + u) of the ISTFT's (u =
    2^-24; one ulp for f16 and bf16), not bit for bit; Select-1 of Equal-1 where the squares sum to 0; Slice-8 trims
    (Pad-1 first for a ``length``). ``WIDENED`` types
    go by way of f32 (Convert-1), as the CPU computes them. It needs Consts of frame_size and frame_step, a static data
    rank and window length and a Const length, if any, of at least 1 (``declines``), data of ``TYPES`` and a target
    with IRDFT-9, or one where ``RealDftTo7``, after it in ``DOWNGRADES``, rewrites the IRDFT-9 into IDFT-7 (a
    frame_size a power of two, static dims, f32 data: those measured): then not bit for bit but within the bound
    tests/downgrade/test_rdft.py derives from the IRDFT-9 and IDFT-7 rounding rules (measured, 720 layers of f32 on
    2023.0 and 2026.4: at most 0.026 of it)."""

    rewrites = {LABEL: "into IRDFT-9 of the frames, Multiply-1 by the padded window, an overlap-add of Pad-1 and Add-1 "
                       "and Divide-1 by the window's summed squares (bf16 and f64 by way of f32), where its frame_size "
                       "and frame_step are Consts and its data's rank and window's length static, for a target with "
                       "IRDFT-9 (or, of a frame_size a power of two, static dims and f32, with IDFT-7: the IRDFT-9 "
                       "rewritten in turn, as IRDFT-9's row says)"}

    def apply(self, graph: Graph) -> PassResult:
        return self.replace_each(graph, _istft, LABEL, "IRDFT-9 + Multiply-1 + Add-1 + Divide-1")

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        """A frame_size or frame_step not a Const, a data rank or window length not static, a Const length not
        positive (OpenVINO's CPU writes past its output then): the overlap-add and the window's padding are built from
        them. Data of a type not of ``TYPES`` (OpenVINO reads no other). A target without IRDFT-9 (before 2022.2) where
        ``RealDftTo7`` would not rewrite it (``spectral_refusal``)."""
        found = _geometry(graph, layer)
        return spectral_refusal(self, layer, "IRDFT", None if found is None else found[2], "data", (
            "its frame_size or frame_step is not a Const, its data's rank or its window's length is not static, or "
            "its length is a Const not positive"),
            ("f32",))


def _geometry(graph: Graph, layer: Layer) -> tuple[int, int, int, int, bool, bool, int | None] | None:
    """``(data rank, window length, frame_size, frame_step, center, normalized, Const length)`` of the ISTFT ``layer``
    (the length None where none is given or it is fed), None where a size is not a Const, the data's rank or window's
    length is not static, the sizes are not positive with the window no longer than the frame, the data's static
    bins are not ``frame_size // 2 + 1``, or a Const length is not one positive value (or an attribute is
    unreadable: OpenVINO read them)."""
    framed = framing(graph, layer, (3, 4))
    length = None
    if len(layer.inputs) == 5 and const_input(graph, layer, 4) is not None:
        length = const_count(graph, layer, 4)
        if length is None or length < 1:
            return None
    try:
        center, normalized = (A.BOOL.parse(layer.attrs.get(name, "false")) for name in ("center", "normalized"))
    except ValueError:
        return None
    if framed is None:
        return None
    bins = declared_type(layer.inputs[0]).shape[-3]  # type: ignore[index] (``framing``: of a known rank)
    if bins.is_static and bins.as_int() != framed[2] // 2 + 1:
        return None
    return *framed, center, normalized, length


def _istft(builder: GraphBuilder, layer: Layer) -> Output:
    """The class's rewrite of the ISTFT-16 ``layer``: the output standing for its."""
    graph, name = builder.graph, layer.name
    found = _geometry(graph, layer)
    assert found is not None  # (``declines`` left the others)
    rank, window_length, frame_size, step, center, normalized, length = found
    element = declared_type(layer.inputs[0]).element
    compute = "f32" if element in WIDENED else element
    data, window = source(graph, layer, 0), source(graph, layer, 1)
    if element in WIDENED:
        data = output_of(builder.convert(data, "f32", f"{name}/data_f32"))
        window = output_of(builder.convert(window, "f32", f"{name}/window_f32"))

    def i64(value: int | list[int], what: str) -> Output:
        return builder.const(np.array(value, np.int64), f"{name}/{what}")

    def pad(value: Output, begin: list[int], end: list[int] | Output, what: str) -> Output:
        ends = end if isinstance(end, tuple) else i64(end, f"{what}/pads_end")
        return output_of(builder.add("Pad", "opset1", None, [value, i64(begin, f"{what}/pads_begin"), ends],
                                     f"{name}/{what}"))

    # each frame's samples, [batch?, frames, frame_size], windowed
    batch = rank - 3  # (the leading axes before the frames': 1 batched, 0 not)
    shape = declared_type(layer.inputs[0]).shape
    assert shape is not None
    order = [0, 2, 1, 3] if batch else [1, 0, 2]
    frames = builder.add("Transpose", "opset1", None, [data, i64(order, "order")], f"{name}/frames_first")
    samples = TensorType(compute, (*shape[:batch], shape[-2], Dim.of(frame_size)))
    signal = builder.add("IRDFT", "opset9", {}, [frames, i64([-1], "irdft/axes"), i64([frame_size], "irdft/size")],
                         f"{name}/irdft", outputs=[samples])
    before = (frame_size - window_length) // 2
    if window_length < frame_size:
        window = pad(window, [before], [frame_size - window_length - before], "window")
    # the frames and the window broadcast to them, stacked, times the window: [2, batch?, frames, frame_size] of the
    # windowed frames and the window's squares (one Multiply-1 of the data: a product of Consts alone, folded when
    # the model is compiled, would be rounded to f16 for f16)
    dims = builder.add("ShapeOf", "opset3", builder.attrs("ShapeOf", "opset3", output_type="i64"), [signal],
                       f"{name}/shape")
    windows = builder.add("Broadcast", "opset3", None, [window, dims], f"{name}/windows")
    stacked = builder.add("Concat", "opset1", builder.attrs("Concat", "opset1", axis=0), [
        builder.add("Unsqueeze", "opset1", None, [part, i64([0], f"{what}/axis")], f"{name}/{what}")
        for part, what in ((signal, "signal_stacked"), (windows, "windows_stacked"))], f"{name}/stacked")
    stacked = builder.add("Multiply", "opset1", None, [stacked, window], f"{name}/windowed")
    # the overlap-add: K + 1 chunks of step per frame (the last all zeros), chunk k shifted k blocks down, summed
    # from the zero chunk and the last k: [2, batch?, frames + K - 1, 1, step] (the addend first: where two NaNs meet,
    # the ISTFT keeps the later frame's, as OpenVINO CPU's Add-1 of static shapes does, measured)
    chunks = -(-frame_size // step)
    lead = 1 + batch  # (the axes before the frames': the stack's, the batch's)
    padded = pad(output_of(stacked), [0] * (lead + 2), [0] * (lead + 1) + [(chunks + 1) * step - frame_size],
                 "frames_padded")
    parted = builder.add("Reshape", "opset1", builder.attrs("Reshape", "opset1", special_zero=True),
                         [padded, i64([0] * lead + [-1, chunks + 1, step], "chunks/shape")], f"{name}/chunked")
    split = builder.add("Split", "opset1", builder.attrs("Split", "opset1", num_splits=chunks + 1),
                        [parted, i64(lead + 1, "chunks/axis")], f"{name}/chunks")

    def shifted(k: int, down: int) -> Output:
        part = output_of(split, k)
        if chunks == 1:
            return part
        zeros = [0] * (lead + 3)
        return pad(part, zeros[:lead] + [down] + zeros[lead + 1:],
                   zeros[:lead] + [chunks - 1 - down] + zeros[lead + 1:], f"chunk{k}")

    total = shifted(chunks, 0)
    for k in reversed(range(chunks)):
        total = output_of(builder.add("Add", "opset1", None, [shifted(k, k), total], f"{name}/sum{k}"))
    rows = builder.add("Reshape", "opset1", builder.attrs("Reshape", "opset1", special_zero=True),
                       [total, i64([0] * lead + [-1], "rows/shape")], f"{name}/rows")
    summed, squared = (builder.add("Gather", "opset1", None, [rows, i64(index, f"{what}/index"),
                                                              i64(0, f"{what}/axis")], f"{name}/{what}")
                       for index, what in ((0, "overlap_added"), (1, "squares_summed")))
    # each sum (times sqrt(frame_size), an f32 as the reference's, where normalized: of f16 data by way of f32, as
    # inside a model every release computes f16 in f32, and a Const of f16 would round it) over its squares', 0 where
    # they sum to 0
    if normalized:
        root = builder.const(np.array(np.sqrt(frame_size), np.float32), f"{name}/root")
        if compute == "f32":
            summed = builder.add("Multiply", "opset1", None, [summed, root], f"{name}/normalized")
        else:
            wide = builder.convert(summed, "f32", f"{name}/overlap_added_f32")
            wide = builder.add("Multiply", "opset1", None, [wide, root], f"{name}/normalized_f32")
            summed = builder.convert(wide, compute, f"{name}/normalized")
    zero = builder.const(np.zeros((), np.float32 if compute == "f32" else np.float16), f"{name}/zero")
    if compute == "f32":
        quotient = _scaled_quotient(builder, output_of(summed), output_of(squared), f"{name}/quotient")
    else:  # (f16's squares lie far within f32's normal range)
        quotient = builder.add("Divide", "opset1", None, [summed, squared], f"{name}/quotient")
    empty = builder.add("Equal", "opset1", None, [squared, zero], f"{name}/no_window")
    result = output_of(builder.add("Select", "opset1", None, [empty, zero, quotient], f"{name}/divided"))
    # the centre's margin skipped, length samples kept (zeros past the data) or all but the centre's
    margin = frame_size // 2 if center else 0
    out = declared_type(layer.outputs[0])
    last = [rank - 3]
    if len(layer.inputs) == 5:
        if length is not None:
            fill: list[int] | Output = [0] * batch + [length]
            stop: Output = i64([margin + length], "stop")
        else:
            fed = output_of(builder.add("Reshape", "opset1", None, [
                builder.convert(source(graph, layer, 4), "i64", f"{name}/length_i64"), i64([1], "length/shape")],
                f"{name}/length"))
            fill = output_of(builder.add("Concat", "opset1", builder.attrs("Concat", "opset1", axis=0),
                                         [i64([0] * batch, "fill/lead"), fed], f"{name}/fill")) if batch else fed
            stop = output_of(builder.add("Add", "opset1", None, [fed, i64([margin], "margin")], f"{name}/stop"))
        result = pad(result, [0] * (batch + 1), fill, "filled")
    else:
        cut = chunks * step - frame_size + ((frame_size & ~1) if center else 0) - margin
        stop = i64([-cut if cut else np.iinfo(np.int64).max], "stop")
    if element in WIDENED:
        sliced = builder.add("Slice", "opset8", None, [result, i64([margin], "start"), stop, i64([1], "step"),
                                                       i64(last, "axes")], f"{name}/trimmed")
        return output_of(builder.convert(sliced, element, name, outputs=[out]))
    return output_of(builder.add("Slice", "opset8", None, [result, i64([margin], "start"), stop, i64([1], "step"),
                                                           i64(last, "axes")], name, outputs=[out]))


def _scaled_quotient(builder: GraphBuilder, dividend: Output, divisor: Output, name: str) -> Layer:
    """``dividend / divisor`` of f32 as OpenVINO CPU's Divide-1 computes it, a product by the rounded reciprocal,
    with a divisor below f32's normal range (window values below 1e-19: the reciprocal would overflow to inf) or
    above 2^126 (the reciprocal would lose bits below the normal range) scaled by 2^64 or 2^-64 before, and the
    quotient by the same after: both exact, so the quotient stays within the reciprocal's rounding bound."""
    def f32(value: float, what: str) -> Output:
        return builder.const(np.array(value, np.float32), f"{name}/{what}")

    tiny = builder.add("Less", "opset1", None, [divisor, f32(2.0**-126, "tiny")], f"{name}/tiny")
    huge = builder.add("Greater", "opset1", None, [divisor, f32(2.0**126, "huge")], f"{name}/huge")
    scale = builder.add("Select", "opset1", None, [huge, f32(2.0**-64, "down"), f32(1.0, "one")], f"{name}/down")
    scale = builder.add("Select", "opset1", None, [tiny, f32(2.0**64, "up"), scale], f"{name}/scale")
    scaled = builder.add("Multiply", "opset1", None, [divisor, scale], f"{name}/divisor")
    quotient = builder.add("Divide", "opset1", None, [dividend, scaled], f"{name}/scaled")
    return builder.add("Multiply", "opset1", None, [quotient, scale], name)
