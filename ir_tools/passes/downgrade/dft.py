"""DFT-7 and IDFT-7 of a dynamic shape, which 2023.0 to 2025.1 read but do not compile
(``dft_dynamic_not_compiled``): each transformed axis of a static power-of-two length as RDFT-9 of the real and the
imaginary parts, the other half of the bins by conjugate symmetry; the others ``check --target`` names and ``migrate
--target`` refuses."""

from __future__ import annotations

from collections import Counter

import numpy as np

from ...base.dims import Dim
from ...ir.model import Graph, Layer
from ...ops.spec import TensorType
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, const_input, source

LABEL_DFT, LABEL_IDFT = "DFT-7", "IDFT-7"
REWRITE = ("into RDFT-9 of its real and imaginary parts per transformed axis, Gather-1 of the other half of the bins, "
           "Multiply-1 by their signs and Add-1 (within a rounding bound), where its input or output has a dynamic "
           "dim, its data is f32, its axes (and signal_size) are Consts and each transformed length a static power "
           "of two (of static dims written as it is)")


#: The defect of the releases whose CPU compiles no DFT-7 or IDFT-7 of a dynamic shape.
DYNAMIC_DEFECT = "dft_dynamic_not_compiled"


def dynamic(graph: Graph, layer: Layer) -> bool:
    """True for a DFT-7 or IDFT-7 whose data input or output has a dynamic dim or rank (the output's: a signal_size
    known only at inference): 2023.0 to 2025.1's CPU plugin does not compile it ("Doesn't support op with dynamic
    shapes"); of static dims it does. (Of another Fourier layer: whether a DFT-7 in its place would be one.)"""
    shapes = (declared_type(layer.inputs[0]).shape, declared_type(layer.outputs[0]).shape)
    return any(shape is None or not all(d.is_static for d in shape) for shape in shapes)


class DftDynamic(Downgrade):
    """For a target whose CPU plugin compiles no DFT-7 or IDFT-7 of a dynamic input (``dft_dynamic_not_compiled``,
    measured: 2023.0 to 2025.1), which compiles RDFT-9 of one. The complex transform of ``z = a + ib`` along one axis
    of length N is ``A + iB``, A and B the transforms of the real a and b: RDFT-9 of ``z`` as a real tensor (its last
    axis, the pair, one more batch axis) gives their bins ``0 .. N/2``; a Gather-1 of ``min(k, N - k)`` gives every
    bin ``k``, whose imaginary part a Multiply-1 negates where ``2k > N`` (conjugate symmetry of a real signal's
    transform), and ``Re = Re A - Im B``, ``Im = Im A + Re B`` is one Add-1 (the signs in the same Multiply). The
    inverse is the conjugate's (``Im A``, ``Im B`` negated instead) times ``1/N``. Axes go one after another in
    ascending order, as the CPU's DFT; a signal_size trims (Slice-8) or zero-pads (Pad-1) each axis first, as the
    CPU's DFT copies its data. Every sign and ``1/N`` is a power of two, so each Multiply is exact.

    Not bit for bit the current CPU's DFT, a radix-2 FFT per axis with twiddles of its own. The bound, per complex
    output, of ``|rewrite - DFT|`` (modulus) is ``u * S * (17 * L + 2 * A)``: ``u = 2^-24``; ``S`` the sum of ``|z|``
    over the transformed axes (after signal_size; divided by ``N_1 * .. * N_A`` for the inverse); ``L`` the sum of
    ``log2 N`` over the ``A`` axes; no underflow. Each of the ``log2 N`` radix-2 stages adds at most ``c * u`` times
    the sum of ``|z|`` under a butterfly, which later stages carry with twiddles of modulus ``1 + O(u)`` (Higham,
    *Accuracy and Stability*, 24.1): the complex product ``w * o`` within ``2 sqrt(2) u |w| |o|``, the add within
    ``u``, plus the twiddle's own error: ``c <= 12`` for the DFT (a float angle ``pi * j / m`` within ``1.5 pi u``,
    then cosf and sinf within ``u``: ``sqrt(2) * 5.7 u`` in modulus), ``c <= 5`` for the RDFT (twiddles of double
    angles, rounded once). A later axis carries an earlier one's error with coefficients of modulus 1 summed over its
    length, so ``S`` and ``L`` add up over the axes; the combining Add rounds once per axis (``sqrt(2) u S``).
    Non-power-of-two lengths are declined: the CPU's DFT of them sums with twiddles ``cos(2 pi (n k) / N)`` of a float
    angle, off by up to ``2 pi N u``, 1.3e-4 x max|output| from the exact transform at N = 768 (FNet's hidden size)
    where RDFT-9 stays within 1e-6: the rewrite would differ as much, beyond ``migrate --check-with``'s 1e-4."""

    rewrites = {LABEL_DFT: REWRITE, LABEL_IDFT: REWRITE}
    repairs = {DYNAMIC_DEFECT: dynamic}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            label = LABEL_IDFT if layer.type == "IDFT" else LABEL_DFT
            builder.replace_layer(layer, lambda: [_dft(builder, layer)], origin_text(layer, label))  # noqa: B023
            stats[f"{label} -> RDFT-9 + Gather-1 + Multiply-1 + Add-1"] += 1
        return PassResult(graph, bool(stats), stats)

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        """Data not f32, axes or signal_size not Consts, a dynamic rank, or a transformed length (after signal_size)
        that is not a static power of two: the bins' indices and signs are constants, and the bound holds for the
        CPU's FFT only (see the class)."""
        if declared_type(layer.inputs[0]).element != "f32":
            return f"its data is {declared_type(layer.inputs[0]).element}, not f32"
        if _lengths(graph, layer) is None:
            return ("its axes or signal_size is not a Const, its data's rank is not static, or a transformed length "
                    "is not a static power of two (the current CPU's DFT of other lengths uses float twiddles off by "
                    "up to 1e-4 x max|output|, which RDFT-9 does not follow)")
        return None


def _lengths(graph: Graph, layer: Layer) -> list[tuple[int, int, int]] | None:
    """``(axis, input length, transformed length)`` of each axis the DFT ``layer`` transforms, in ascending order
    (an axis counted from the start of the complex dims), None where its data's rank is not static, its axes or
    signal_size is not a Const, an axis is out of range or repeated, an input length is not static, or a transformed
    length (signal_size's where it is not -1) is not a power of two."""
    dims = declared_type(layer.inputs[0]).shape
    given = [const_input(graph, layer, port) for port in range(1, len(layer.input_ids()))]
    if dims is None or len(dims) < 2 or any(value is None or value.dtype.kind not in "iu" for value in given):
        return None
    axes = [int(a) + (len(dims) - 1 if a < 0 else 0) for a in given[0].reshape(-1)]
    sizes = [int(n) for n in given[1].reshape(-1)] if len(given) > 1 else [-1] * len(axes)
    if len(set(axes)) != len(axes) or len(sizes) != len(axes) or \
            not all(0 <= a < len(dims) - 1 and dims[a].is_static for a in axes):
        return None
    found = sorted((a, dims[a].as_int(), dims[a].as_int() if n == -1 else n) for a, n in zip(axes, sizes, strict=True))
    return found if all(fft_length(n) for _, _, n in found) else None


def fft_length(n: int) -> bool:
    """Whether the current CPU's DFT-7 and IDFT-7 transform an axis of length ``n`` as a radix-2 FFT (a power of two),
    whose error ``DftDynamic`` bounds by ``O(u S log2 N)``; of another length their naive sum's float twiddles stray
    up to ``2 pi N u`` (1.3e-4 x max|output| from the exact transform at N = 768), so the rewrites into or out of
    them take powers of two only."""
    return n > 0 and n & (n - 1) == 0


def _dft(builder: GraphBuilder, layer: Layer) -> Output:
    """The class's rewrite of the DFT-7 or IDFT-7 ``layer``: the output standing for its."""
    graph, name = builder.graph, layer.name
    found = _lengths(graph, layer)
    assert found is not None  # (``declines`` left the others)
    rank, inverse = len(declared_type(layer.inputs[0]).shape or ()), layer.type == "IDFT"
    data = source(graph, layer, 0)

    def i64(value: int | list[int] | np.ndarray, what: str) -> Output:
        return builder.const(np.array(value, np.int64), f"{name}/{what}")

    for axis, length, n in found:
        at = f"axis{axis}"
        if n < length:  # signal_size trims: the first n
            bounds = [i64([0], f"{at}/start"), i64([n], f"{at}/stop"), i64([1], f"{at}/step"),
                      i64([axis], f"{at}/axes")]
            data = output_of(builder.add("Slice", "opset8", None, [data, *bounds], f"{name}/{at}/trimmed"))
        elif n > length:  # signal_size pads: zeros after
            pads = [0] * rank
            pads[axis] = n - length
            data = output_of(builder.add("Pad", "opset1", builder.attrs("Pad", "opset1", pad_mode="constant"),
                                         [data, i64([0] * rank, f"{at}/pads_begin"), i64(pads, f"{at}/pads_end"),
                                          builder.const(np.array(0, np.float32), f"{name}/{at}/zero")],
                                         f"{name}/{at}/padded"))
        # RDFT of the real tensor [..., N, ..., 2 (a, b)]: [..., N/2 + 1, ..., 2 (A, B), 2 (re, im)]; every bin k from
        # bin min(k, N - k), its imaginary part negated where 2k > N (for the inverse: where 2k <= N)
        dims = builder.type_of(data).shape
        assert dims is not None
        spectrum = TensorType("f32", (*dims[:axis], Dim(n // 2 + 1, n // 2 + 1), *dims[axis + 1:], Dim(2, 2)))
        half = builder.add("RDFT", "opset9", {}, [data, i64([axis], f"{at}/rdft_axes")], f"{name}/{at}/rdft",
                           outputs=[spectrum])
        k = np.arange(n)
        bins = builder.add("Gather", "opset1", None, [half, i64(np.minimum(k, n - k), f"{at}/bins"),
                                                      i64(axis, f"{at}/bins_axis")], f"{name}/{at}/full")
        conj = np.where(2 * k > n, -1.0, 1.0) * (-1.0 if inverse else 1.0)
        # per bin, [A, B] x [re, im] signs: Re = Re A + (-Im B), Im = Im A + Re B; times 1/N for the inverse
        signs = np.stack([np.stack([np.ones(n), conj], -1), np.stack([np.ones(n), -conj], -1)], -2)
        signs = (signs / (n if inverse else 1)).reshape((n,) + (1,) * (rank - 2 - axis) + (2, 2)).astype(np.float32)
        signed = builder.add("Multiply", "opset1", None, [bins, builder.const(signs, f"{name}/{at}/signs")],
                             f"{name}/{at}/signed")
        a_part, b_part = (builder.add("Gather", "opset1", None, [signed, i64(index, f"{at}/{part}_index"),
                                                                  i64(rank - 1, f"{at}/{part}_axis")],
                                      f"{name}/{at}/{part}") for index, part in enumerate("ab"))
        b_swapped = builder.add("Gather", "opset1", None, [b_part, i64([1, 0], f"{at}/swap"),
                                                           i64(rank - 1, f"{at}/swap_axis")], f"{name}/{at}/b_swapped")
        last = axis == found[-1][0]
        data = output_of(builder.add("Add", "opset1", None, [a_part, b_swapped], name if last else f"{name}/{at}/sum",
                                     outputs=[declared_type(layer.outputs[0])] if last else None))
    return data
