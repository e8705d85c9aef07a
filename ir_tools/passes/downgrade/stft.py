"""STFT-15 (torch.stft) as Gather-1 of computed frame indices, Multiply-1 by the padded window and RDFT-9 (releases
before 2024.5 have no STFT)."""

from __future__ import annotations

import numpy as np

from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ...ops.spec import TensorType
from ..base import PassResult
from ..builder import GraphBuilder, Output, output_of
from ..shapes import declared_type
from .base import Downgrade, const_input, source
from .rdft import rewritten_for

LABEL = "STFT-15"
#: The signal types whose STFT the current OpenVINO CPU computes as the rewrite does, on 2023.0 and the current
#: release (measured): f32 and f16 as they are, bf16 and f64 ``WIDENED``.
TYPES = ("f32", "f16", "bf16", "f64")
#: The types converted to f32, transformed, and converted back, as the CPU's STFT computes them: a bf16 Multiply-1 of
#: its own rounds the products to bf16, and RDFT-9 takes no f64. (Not f16: 2023.0 writes an f16 output converted
#: from f32 beyond +-65504 as +-65504, its own f16 ops' overflow as the current release does.)
WIDENED = ("bf16", "f64")


class StftTo9(Downgrade):
    """STFT-15 (OpenVINO's reference, which the CPU follows: frame ``t`` of each signal row is ``signal[..., t*step :
    t*step + frame_size]`` for ``t < (length - frame_size) // step + 1``; the window, zero-padded to frame_size with
    ``(frame_size - window_length) // 2`` zeros before it, multiplies each frame; RDFT of the product, ``[...,
    frames, frame_size // 2 + 1, 2]``, bins and frames swapped with transpose_frames) exactly, by the same steps in
    ops 2023.0 has. The frame starts, Range-4(0, length - frame_size + 1, step) of the signal's length (ShapeOf-3:
    the length and batch may be dynamic, as torch exports them; the first start Concat-1 before Range-4 from step,
    so that OpenVINO's inference counts at least one frame, as STFT's own), plus ``arange(frame_size)``
    (Unsqueeze-1, Add-1) are the indices of a Gather-1 on the signal's last axis (of frame_size 1 the signal gets a
    zero appended first: 2023.0 fails to run a Gather of one index off an axis of length 1, measured); Pad-1 centres
    the window; Multiply-1, RDFT-9 on the last axis, and Transpose-1 with transpose_frames. ``WIDENED`` types go by
    way of f32 (Convert-1), as the CPU's STFT computes them. Bit for bit the current OpenVINO's STFT on 2023.0 and
    the current release (measured: the current CPU's STFT and its RDFT-9 of the frames give the same bits, as does
    2023.0's), so no rounding bound is needed. It needs Consts of frame_size and frame_step, a static signal rank
    and window length (``declines``), a signal of ``TYPES`` and a target with RDFT-9, or one where ``RealDftTo7``,
    after it in ``DOWNGRADES``, rewrites the RDFT-9 into DFT-7 (a frame_size a power of two, static dims, f32 or f16
    signals: those measured): then within the sum of the STFT's and DFT-7's rounding bounds, not bit for bit
    (measured, 720 layers of f32 and f16 on 2023.0 and 2026.4: at most 0.49 of it, f16's output rounding;
    tests/downgrade/test_rdft.py)."""

    rewrites = {LABEL: "into Gather-1 of computed frame indices, Pad-1, Multiply-1 and RDFT-9 (then Transpose-1 with "
                       "transpose_frames; bf16 and f64 by way of f32), where its frame_size and frame_step are Consts "
                       "and its signal's rank and window's length static, for a target with RDFT-9 (or, of a "
                       "frame_size a power of two, static dims and f32 or f16, with DFT-7: the RDFT-9 rewritten in "
                       "turn, as RDFT-9's row says)"}

    def apply(self, graph: Graph) -> PassResult:
        return self.replace_each(graph, _stft, LABEL, "Gather-1 + Multiply-1 + RDFT-9")

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        """A frame_size or frame_step not a Const, a signal rank or window length not static: the frame indices
        and the window's padding are built from them. A signal of a type not of ``TYPES`` (OpenVINO reads no other). A
        target without RDFT-9 (before 2022.2) where ``RealDftTo7`` would not rewrite it (``spectral_refusal``)."""
        found = _geometry(graph, layer)
        return spectral_refusal(self, layer, "RDFT", None if found is None else found[2], "signal", (
            "its frame_size or frame_step is not a Const, its signal's rank or its window's length is not static"),
            ("f32", "f16"))


def spectral_refusal(downgrade: Downgrade, layer: Layer, transform: str, frame_size: int | None, data: str,
                     unframed: str, chained: tuple[str, ...]) -> str | None:
    """Why an STFT or ISTFT ``layer`` is not rewritten (``declines``), else None: its geometry is not one the rewrite
    builds from (``frame_size`` None: ``unframed`` says why), its ``data`` input is of a type not of ``TYPES``
    (OpenVINO reads no other), or the target has no ``transform``-9 and ``RealDftTo7``, after the rewrite in
    ``DOWNGRADES``, would not rewrite the one it builds into DFT-7 or IDFT-7 (a frame_size not a power of two, dynamic
    dims for a target whose CPU compiles no DFT-7 of them, or data of a type not ``chained``: those measured so)."""
    if frame_size is None:
        return unframed
    element = declared_type(layer.inputs[0]).element
    if element not in TYPES:
        return f"its {data} is {element}, not f32, f16, bf16 or f64"
    target = downgrade.target
    if target is not None and not target.creates(transform, "opset9", {}):
        shape = declared_type(layer.inputs[0]).shape
        static = shape is not None and all(d.is_static for d in shape)
        if element not in chained or not rewritten_for(target, frame_size, static):
            return (f"the target has no {transform}-9 (opset9), and its frame_size is not a power of two, its {data}'s "
                    f"dims are not static or its {data} is not {' or '.join(chained)} (no DFT-7 of it for the target)")
    return None


def _geometry(graph: Graph, layer: Layer) -> tuple[int, int, int, int, bool] | None:
    """``(signal rank, window length, frame_size, frame_step, transpose_frames)`` of the STFT ``layer``, None where a
    size is not a Const, the signal's rank or window's length is not static, or the sizes are not positive with the
    window no longer than the frame (or the attribute unreadable: OpenVINO read them)."""
    framed = framing(graph, layer, (1, 2))
    try:
        transpose = A.BOOL.parse(layer.attrs.get("transpose_frames", "false"))
    except ValueError:
        return None
    return None if framed is None else (*framed, transpose)


def framing(graph: Graph, layer: Layer, ranks: tuple[int, ...]) -> tuple[int, int, int, int] | None:
    """``(data rank, window length, frame_size, frame_step)`` of an STFT or ISTFT ``layer`` (data, window, frame_size,
    frame_step: inputs 0 to 3), None where its data's rank is not one of ``ranks``, its window's length is not static
    or is longer than the frame, or frame_size or frame_step is not a Const of one positive integer."""
    data, window = (declared_type(layer.inputs[i]).shape for i in (0, 1))
    if data is None or len(data) not in ranks or window is None or len(window) != 1 or not window[0].is_static:
        return None
    frame_size, frame_step = (const_count(graph, layer, port) for port in (2, 3))
    if frame_size is None or frame_step is None or frame_size < 1 or frame_step < 1 or \
            window[0].as_int() > frame_size:
        return None
    return len(data), window[0].as_int(), frame_size, frame_step


def const_count(graph: Graph, layer: Layer, port: int) -> int | None:
    """The one integer of the Const feeding ``layer``'s input ``port``, None where it is fed or holds another."""
    value = const_input(graph, layer, port)
    return int(value.reshape(-1)[0]) if value is not None and value.size == 1 and value.dtype.kind in "iu" else None


def _stft(builder: GraphBuilder, layer: Layer) -> Output:
    """The class's rewrite of the STFT-15 ``layer``: the output standing for its."""
    graph, name = builder.graph, layer.name
    found = _geometry(graph, layer)
    assert found is not None  # (``declines`` left the others)
    rank, window_length, frame_size, frame_step, transpose = found
    element = declared_type(layer.inputs[0]).element
    signal, window = source(graph, layer, 0), source(graph, layer, 1)
    if element in WIDENED:
        signal = output_of(builder.convert(signal, "f32", f"{name}/signal_f32"))
        window = output_of(builder.convert(window, "f32", f"{name}/window_f32"))

    def i64(value: int | list[int] | np.ndarray, what: str) -> Output:
        return builder.const(np.array(value, np.int64), f"{name}/{what}")

    # the frame starts 0, step, ... below length - frame_size + 1, each plus 0 .. frame_size - 1: [frames, frame_size]
    shape = builder.add("ShapeOf", "opset3", builder.attrs("ShapeOf", "opset3", output_type="i64"), [signal],
                        f"{name}/shape")
    length = builder.add("Gather", "opset1", None, [shape, i64([rank - 1], "last"), i64(0, "last/axis")],
                         f"{name}/length")
    stop = builder.add("Add", "opset1", None, [length, i64([1 - frame_size], "stop/offset")], f"{name}/stop")
    stop = builder.add("Squeeze", "opset1", None, [stop, i64([0], "stop/axis")], f"{name}/stop_scalar")
    # (0, then the starts after it: the same starts, whose count OpenVINO's inference bounds below by 1, as STFT's own
    # frame count; of Range-4 it knows no bound, and a Reduce of the frames then meets 2023.0's empty-axis defect in
    # check --target, where the original does not. Not Range-4 from step: OpenVINO counts |stop - start| / step, so
    # of one frame, its stop below its start, it gives a start where there is none; ops/range_op.py)
    every = builder.add("Range", "opset4", builder.attrs("Range", "opset4", output_type="i64"),
                        [i64(0, "start"), stop, i64(frame_step, "step")], f"{name}/every_start")
    later = builder.add("StridedSlice", "opset1", builder.attrs("StridedSlice", "opset1", begin_mask="0",
                                                                end_mask="1"),
                        [every, i64([1], "later/begin"), i64([0], "later/end"), i64([1], "later/stride")],
                        f"{name}/later_starts")
    starts = builder.add("Concat", "opset1", {"axis": "0"}, [i64([0], "first_start"), output_of(later)],
                         f"{name}/starts")
    starts = builder.add("Unsqueeze", "opset1", None, [starts, i64([1], "starts/axis")], f"{name}/starts_column")
    indices = builder.add("Add", "opset1", None, [starts, i64(np.arange(frame_size)[None, :], "offsets")],
                          f"{name}/indices")
    gathered = signal
    if frame_size == 1:  # (2023.0 CPU compiles a Gather of one index off an axis of 1 and fails to run it)
        gathered = output_of(builder.add("Pad", "opset1", None, [signal, i64([0] * rank, "signal/pads_begin"),
                                                                 i64([0] * (rank - 1) + [1], "signal/pads_end")],
                                         f"{name}/signal"))
    frames = builder.add("Gather", "opset1", None, [gathered, indices, i64(rank - 1, "frames/axis")],
                         f"{name}/frames")
    # the window centred in the frame, zeros about it
    before = (frame_size - window_length) // 2
    if window_length < frame_size:
        window = output_of(builder.add("Pad", "opset1", None, [window, i64([before], "window/pads_begin"),
                                                               i64([frame_size - window_length - before],
                                                                   "window/pads_end")], f"{name}/window"))
    windowed = builder.add("Multiply", "opset1", None, [frames, window], f"{name}/windowed")
    # RDFT over the frames' last axis ([..., frames, bins, 2]), bins before frames where transpose_frames; the last
    # layer named as the STFT and typed as its output
    out = declared_type(layer.outputs[0])
    steps = (["transposed"] if transpose else []) + (["converted"] if element in WIDENED else [])
    dims = out.shape
    if transpose and dims is not None:
        dims = (*dims[:-3], dims[-2], dims[-3], dims[-1])
    rdft = TensorType("f32" if element in WIDENED else element, dims)
    result = output_of(builder.add("RDFT", "opset9", {}, [windowed, i64([-1], "rdft/axes")],
                                   f"{name}/rdft" if steps else name, outputs=[rdft if steps else out]))
    if transpose:
        order = [0, 2, 1, 3] if rank == 2 else [1, 0, 2]
        last = steps[-1] == "transposed"
        result = output_of(builder.add("Transpose", "opset1", None, [result, i64(order, "order")],
                                       name if last else f"{name}/transposed", outputs=[out] if last else None))
    if element in WIDENED:
        result = output_of(builder.convert(result, element, name, outputs=[out]))
    return result
