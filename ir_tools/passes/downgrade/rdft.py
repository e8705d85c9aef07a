"""RDFT-9 and IRDFT-9 as DFT-7 and IDFT-7 of the complex signal (releases before 2022.2 have no opset9 transforms), on
static power-of-two lengths, within the rounding bounds of both."""

from __future__ import annotations

import weakref
from collections import Counter

import numpy as np

from ...ir.model import Graph, Layer
from ...ops.releases import Release
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import ShapeWalker, declared_type
from .base import Downgrade, const_input, source
from .dft import DYNAMIC_DEFECT, dynamic, fft_length

LABEL_RDFT, LABEL_IRDFT = "RDFT-9", "IRDFT-9"
#: The data types the rewrite takes: those the CPU's DFT-7 computes in f32 and rounds once, as its RDFT-9.
TYPES = ("f32", "f16")
_WHERE = ("where its data is f32 or f16, its axes (and signal_size) are known when it compiles and its transformed "
          "lengths static powers of two, its shapes static for a target compiling no DFT-7 of dynamic ones (within "
          "the rounding bounds of both)")


class RealDftTo7(Downgrade):
    """RDFT-9 and IRDFT-9 for a target without them (before 2022.2), by OpenVINO's reference (``rdft.cpp``,
    ``irdft.cpp``): RDFT is the complex transform of ``x + 0i`` over the same axes and signal sizes (trimmed or
    zero-padded), its last named axis cut to ``N // 2 + 1`` bins; IRDFT is the complex inverse over all but the last
    axis, then the spectrum along the last one extended to its output length ``L`` (signal_size's, else
    ``2 (n - 1)``): bin ``k`` for ``k <= L // 2`` (zero past the data), the conjugate of bin ``L - k`` above, then
    its complex inverse, the real part. Here: Unsqueeze-1 and Pad-1 of a +0.0 imaginary part, DFT-7, StridedSlice-1;
    IDFT-7 of the outer axes, Pad-1 where the data holds fewer than ``L // 2 + 1`` bins, Gather-1 of ``min(k, L -
    k)``, Multiply-1 by the conjugate's signs (exact), IDFT-7 and Gather-1 of the real part.

    Not bit for bit: the CPU's RDFT-9 takes twiddles of a double angle, its DFT-7 of a float one. Both are within
    ``ops/fourier.py``'s rounding rule of the exact transform, so the rewrite is within the sum of the two rules
    (IRDFT: the rule of each IDFT-7 in turn, the first's bound carried by the second). On power-of-two lengths (the
    CPU's radix-2 FFT) that is ``O(u S log2 N)`` (``u = 2^-24``, ``S`` the transformed sum of |x|): measured, N = 8 to
    1024, within 1 u S of RDFT-9, 2e-7 x max|output|; over 720 seeded layers each of RDFT-9 and IRDFT-9 (ranks 1 to
    4, 1 to 3 axes, lengths 1 to 64, signal sizes) on 2023.0 and 2026.4, f32 at most 0.013 of the bound (3.4e-7 x
    max|output|), f16 0.45 (its output rounded on both sides). Other lengths are declined: the CPU's DFT-7 sums them
    with float-angle twiddles (``fft_length``), measured 16 u S from RDFT-9 at N = 14, 75 at N = 384 and 116 (5.8e-5
    x max|output|; 1.3e-4 on other data, ``DftDynamic``) at N = 768, where RDFT-9 stays within 8e-7 of the exact
    transform: beyond ``migrate --check-with``'s 1e-4 as N grows. A target whose CPU compiles no DFT-7 of a dynamic
    shape (``dft_dynamic_not_compiled``: every release without RDFT-9 takes 2023.0's) has the layers of dynamic dims
    declined. StftTo9 and IstftTo9 build RDFT-9 and IRDFT-9 for a target without them where this rewrites them
    (``rewritten_for``)."""

    rewrites = {LABEL_RDFT: f"into Pad-1 of a zero imaginary part, DFT-7 and StridedSlice-1 of the bins, {_WHERE}",
                LABEL_IRDFT: "into IDFT-7 of the outer axes, Gather-1 and Multiply-1 of the conjugate bins, IDFT-7 "
                             f"and Gather-1 of the real part, {_WHERE}"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        # (every layer's geometry from one shape walk, ``_walked``, of the graph before any is rewritten)
        for layer, geometry in self.decided(graph, lambda layer: _geometry(graph, layer)):
            assert geometry is not None  # (``declines`` left the others)
            if layer.type == "RDFT":
                label, into, build = LABEL_RDFT, "DFT-7 + StridedSlice-1", _rdft
            else:
                label, into, build = LABEL_IRDFT, "IDFT-7 + Gather-1 + Multiply-1", _irdft
            builder.replace_layer(layer, lambda: [build(builder, layer, geometry)],  # noqa: B023
                                  origin_text(layer, label))
            stats[f"{label} -> {into}"] += 1
        return PassResult(graph, bool(stats), stats)

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        """Data not of ``TYPES``; axes or signal_size not known when it compiles, a dynamic rank or transformed
        length, or a transformed length not a power of two (the bins' indices are constants, and the bound holds for
        the CPU's FFT only: see the class); a target without DFT-7, or dynamic dims for a target with
        ``dft_dynamic_not_compiled`` (``_target_refusal``)."""
        element = declared_type(layer.inputs[0]).element
        if element not in TYPES:
            return f"its data is {element}, not f32 or f16"
        if _geometry(graph, layer) is None:
            return ("its axes or signal_size is not known when it compiles, its data's rank or a transformed axis is "
                    "not static, or a transformed length is not a power of two (the CPU's DFT-7 of other lengths uses "
                    "float twiddles off by up to 1e-4 x max|output|, which RDFT-9 and IRDFT-9 are not)")
        return _target_refusal(self.target, _static(graph, layer))


def _target_refusal(target: Release | None, static: bool) -> str | None:
    """Why ``RealDftTo7`` leaves, for ``target``, a layer it otherwise rewrites, of ``static`` shapes or not: the target
    has no DFT-7, or its CPU compiles no DFT-7 of a dynamic shape; else None."""
    if target is None:
        return None
    if not target.creates("DFT", "opset7", {}):
        return "the target has no DFT-7 (opset7)"
    if not static and DYNAMIC_DEFECT in target.miscomputes:
        return "its data or output has a dynamic dim, and the target's CPU compiles no DFT-7 of one"
    return None


def rewritten_for(target: Release, length: int, static: bool) -> bool:
    """Whether ``RealDftTo7`` rewrites, for ``target``, an RDFT-9 or IRDFT-9 of f32 or f16 with Const axes and
    signal_size over one axis of transformed ``length``, its shapes ``static`` or not: a downgrade before it in
    ``DOWNGRADES`` may build such a layer for a target without opset9's (``stft.spectral_refusal``)."""
    return fft_length(length) and _target_refusal(target, static) is None


def _geometry(graph: Graph, layer: Layer) -> tuple[int, list[int], list[int]] | None:
    """``(complex rank, axes, transformed lengths)`` of the RDFT-9 or IRDFT-9 ``layer``: its axes counted from the
    start in the order given (the last named is RDFT's cut one, IRDFT's extended one), each length signal_size's
    where not -1, else its dim (IRDFT's last: ``2 (n - 1)``). None where the data's rank is not static, the axes or
    signal_size is not known when the model compiles (``_known``), an axis is out of range or repeated (or there is
    none), a transformed dim is not static, or a length is not a power of two."""
    shape = declared_type(layer.inputs[0]).shape
    given = [_known(graph, layer, port) for port in range(1, len(layer.input_ids()))]
    if shape is None or any(value is None or value.dtype.kind not in "iu" for value in given):
        return None
    real_in = layer.type == "RDFT"
    rank = len(shape) if real_in else len(shape) - 1
    axes = [int(a) + (rank if a < 0 else 0) for a in given[0].reshape(-1)]
    sizes = [int(n) for n in given[1].reshape(-1)] if len(given) > 1 else [-1] * len(axes)
    if not axes or len(set(axes)) != len(axes) or len(sizes) != len(axes) or \
            not all(0 <= a < rank and shape[a].is_static for a in axes):
        return None
    lengths = [shape[a].as_int() if n == -1 else n for a, n in zip(axes, sizes, strict=True)]
    if not real_in and sizes[-1] == -1:
        lengths[-1] = 2 * (lengths[-1] - 1)
    return (rank, axes, lengths) if all(fft_length(n) for n in lengths) else None


def _known(graph: Graph, layer: Layer, port: int) -> np.ndarray | None:
    """The value feeding ``layer``'s input ``port`` where OpenVINO knows it when it compiles the model: a Const's, or
    one computed from Consts and static dims (torch.fft.rfft2's signal_size, a Gather-8 of ShapeOf-3 of its data),
    as the shape walk computes it; else None."""
    value = const_input(graph, layer, port)
    return _walked(graph).value(source(graph, layer, port)) if value is None else value


def _static(graph: Graph, layer: Layer) -> bool:
    """Whether OpenVINO infers static dims for ``layer``'s data and output: as they are declared, or as the shape
    walk infers them where they are declared dynamic (a layer a rewrite just built declares what its builder knew:
    StftTo9's frames, counted by a Range-4 of the signal's length, are dynamic until the graph is inferred again)."""
    if not dynamic(graph, layer):
        return True
    inferred = _walked(graph).env
    found = (inferred.get(source(graph, layer, 0)), inferred.get((layer.id, layer.outputs[0].id)))
    return all(t is not None and t.shape is not None and all(d.is_static for d in t.shape) for t in found)


def _walked(graph: Graph) -> ShapeWalker:
    """The shape walk of ``graph`` as it is now: every port's type and the values OpenVINO knows (walked once per
    state of the graph, ``Graph.changes``: a layer's ``declines`` and its rewrite ask it several times)."""
    revision = len(graph.changes)
    found = _WALKS.get(graph)
    if found is None or found[0] != revision:
        walker = ShapeWalker(graph)
        walker.run()
        found = _WALKS[graph] = (revision, walker)
    return found[1]


#: The last shape walk of each graph, with the length of its ``changes`` then (``_walked``).
_WALKS: weakref.WeakKeyDictionary[Graph, tuple[int, ShapeWalker]] = weakref.WeakKeyDictionary()


def _i64(builder: GraphBuilder, value: int | list[int] | np.ndarray, name: str) -> Output:
    return builder.const(np.array(value, np.int64), name)


def _transform(builder: GraphBuilder, op: str, data: Output, axes: list[int], lengths: list[int], name: str) -> Output:
    """DFT-7 or IDFT-7 (``op``) of the complex ``data`` over ``axes``, a signal_size where a length is not its dim."""
    dims = builder.type_of(data).shape
    assert dims is not None
    inputs = [data, _i64(builder, axes, f"{name}/axes")]
    if any(dims[a].as_int() != n for a, n in zip(axes, lengths, strict=True)):
        inputs.append(_i64(builder, lengths, f"{name}/signal_size"))
    return output_of(builder.add(op, "opset7", None, inputs, name))


def _rdft(builder: GraphBuilder, layer: Layer, geometry: tuple[int, list[int], list[int]]) -> Output:
    """The class's rewrite of the RDFT-9 ``layer`` of ``geometry`` (``_geometry``): the output standing for its."""
    graph, name = builder.graph, layer.name
    rank, axes, lengths = geometry
    # x + 0i: [..., 2]
    real = builder.add("Unsqueeze", "opset1", None, [source(graph, layer, 0), _i64(builder, [rank], f"{name}/pair")],
                       f"{name}/real")
    paired = builder.add("Pad", "opset1", None, [real, _i64(builder, [0] * (rank + 1), f"{name}/pads_begin"),
                                                 _i64(builder, [0] * rank + [1], f"{name}/pads_end")],
                         f"{name}/complex")
    spectrum = _transform(builder, "DFT", output_of(paired), axes, lengths, f"{name}/dft")
    # the first N // 2 + 1 bins of the last named axis
    last = axes[-1]
    every = (1,) * last + (0,)
    attrs = builder.attrs("StridedSlice", "opset1", begin_mask=(1,) * (last + 1), end_mask=every,
                          new_axis_mask=(0,) * (last + 1), shrink_axis_mask=(0,) * (last + 1),
                          ellipsis_mask=(0,) * (last + 1))
    bounds = [_i64(builder, [0] * (last + 1), f"{name}/begin"),
              _i64(builder, [0] * last + [lengths[-1] // 2 + 1], f"{name}/end"),
              _i64(builder, [1] * (last + 1), f"{name}/strides")]
    return output_of(builder.add("StridedSlice", "opset1", attrs, [spectrum, *bounds], name,
                                 outputs=[declared_type(layer.outputs[0])]))


def _irdft(builder: GraphBuilder, layer: Layer, geometry: tuple[int, list[int], list[int]]) -> Output:
    """The class's rewrite of the IRDFT-9 ``layer`` of ``geometry`` (``_geometry``): the output standing for its."""
    graph, name = builder.graph, layer.name
    rank, axes, lengths = geometry
    data = source(graph, layer, 0)
    if len(axes) > 1:  # (the reference's order: the outer axes first, the conjugates taken of their inverse)
        data = _transform(builder, "IDFT", data, axes[:-1], lengths[:-1], f"{name}/outer")
    last, length = axes[-1], lengths[-1]
    held = builder.type_of(data).shape[last].as_int()  # type: ignore[index] (``_geometry``: static)
    if held < length // 2 + 1:  # (bins past the data are zeros)
        pads = [0] * (rank + 1)
        pads[last] = length // 2 + 1 - held
        data = output_of(builder.add("Pad", "opset1", None, [data, _i64(builder, [0] * (rank + 1), f"{name}/begin"),
                                                             _i64(builder, pads, f"{name}/end")], f"{name}/bins"))
    k = np.arange(length)
    mirrored = k > length // 2
    full = builder.add("Gather", "opset1", None, [data, _i64(builder, np.where(mirrored, length - k, k),
                                                             f"{name}/indices"),
                                                  _i64(builder, last, f"{name}/axis")], f"{name}/full")
    signs = np.stack([np.ones(length), np.where(mirrored, -1.0, 1.0)], -1)
    element = np.float16 if declared_type(layer.inputs[0]).element == "f16" else np.float32
    signs = signs.reshape((length,) + (1,) * (rank - 1 - last) + (2,)).astype(element)
    conjugated = builder.add("Multiply", "opset1", None, [full, builder.const(signs, f"{name}/signs")],
                             f"{name}/conjugated")
    signal = _transform(builder, "IDFT", output_of(conjugated), [last], [length], f"{name}/idft")
    return output_of(builder.add("Gather", "opset1", None, [signal, _i64(builder, 0, f"{name}/re"),
                                                            _i64(builder, rank, f"{name}/re_axis")], name,
                                 outputs=[declared_type(layer.outputs[0])]))
