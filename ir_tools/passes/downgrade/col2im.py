"""Col2Im-15 (torch's nn.Fold) as Reshape-1, Pad-1, Transpose-1, Gather-1, Split-1 and a chain of Add-1 (releases
before 2024.2 have no Col2Im)."""

from __future__ import annotations

import numpy as np

from ...ir.model import Graph, Layer
from ...ops import attrs as A
from ..base import PassResult
from ..builder import GraphBuilder, Output, output_of
from ..shapes import declared_type
from .base import Downgrade, const_input, source

LABEL = "Col2Im-15"
#: The data types whose Col2Im the current OpenVINO CPU computes as the rewrite's Adds do, on 2023.0 and the current
#: release (measured: f32 in the reference's order; f16 and f64 summed in f32, as the CPU runs their Adds too; i32
#: wrapping). Not bf16 (summed otherwise), i8 and u8 (Col2Im wraps, Add saturates), nor i16, u16, u32 and i64 (2023.0
#: computes the rewrite of them otherwise).
TYPES = ("f32", "f16", "f64", "i32")


class Col2ImTo1(Downgrade):
    """Col2Im-15 (``out[n, c, h, w]``, +0.0, plus ``data[n, c*K + k, b]`` for each kernel offset ``k = ih*kw + iw`` in
    turn whose block ``b = (bh, bw)`` lands there, ``h = bh*s0 - pb0 + ih*d0``: OpenVINO's reference, which the CPU
    follows) exactly, by moving data and adding in the reference's order. The blocks ``[N, C, kh, kw, Lh, Lw]``
    (Reshape-1) get a zero block after each row and column of blocks and a zero kernel row before the first (Pad-1);
    a Gather-1 of constant indices lays each kernel row's blocks on the output rows (the zero where none lands), a
    second each kernel column's on the output columns (Transpose-1 and Reshape-1 between), giving ``[N, C, (1 + kh) *
    kw, H, W]``: slices of zeros, then the offsets in the reference's order, split (Split-1) and summed by a chain of
    Add-1 from the first zero slice, shaped ``[N, C, H, W]`` (``[C, H, W]`` unbatched). Adding +0.0 changes only
    -0.0, which the reference's sum, started at +0.0, never gives either; the zero is a slice of the data moved, not
    a Const a graph optimisation could fold away. The constants are ``O(kh*H + kw*W)``. It needs Consts of
    output_size and kernel_size and a static data rank (``declines``; the batch and channels may be dynamic), and
    data of ``TYPES``: the others' Col2Im OpenVINO CPU computes otherwise than their Adds. (A Gather-8 of batch_dims
    1 in place of the Reshapes crashed 2023.0 now and then: SIGSEGV, measured.)"""

    rewrites = {LABEL: "into Reshape-1, Pad-1, Transpose-1, Gather-1, Split-1 and one Add-1 per kernel offset, where "
                       "its output_size and kernel_size are Consts, its data's rank static and its data f32, f16, f64 "
                       "or i32"}

    def apply(self, graph: Graph) -> PassResult:
        return self.replace_each(graph, _col2im, LABEL, "Gather-1 + Split-1 + Add-1")

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        """Sizes that are not Consts or a data rank not static: the indices laying the blocks out are constants, and
        whether the data is batched is its rank. Data of a type not of ``TYPES``: OpenVINO CPU sums those otherwise
        than its Add-1."""
        if _geometry(graph, layer) is None:
            return "its output_size or kernel_size is not a Const, or its data's rank is not static"
        element = declared_type(layer.inputs[0]).element
        if element not in TYPES:
            return (f"its data is {element}, whose Col2Im OpenVINO CPU sums otherwise than its Add-1 (only f32, f16, "
                    "f64 and i32 alike)")
        return None


def _geometry(graph: Graph, layer: Layer) -> tuple[int, tuple[int, int], tuple[int, int],
                                                   tuple[tuple[int, int], ...]] | None:
    """``(data rank, output_size, kernel_size, (strides, dilations, pads_begin, pads_end))`` of the Col2Im ``layer``,
    None where a size is not a Const or the data's rank is not static (or an attribute unreadable: OpenVINO read
    them)."""
    dims = declared_type(layer.inputs[0]).shape
    if dims is None or len(dims) not in (2, 3):
        return None
    sizes = []
    for port in (1, 2):
        value = const_input(graph, layer, port)
        if value is None or value.size != 2:
            return None
        sizes.append((int(value.reshape(-1)[0]), int(value.reshape(-1)[1])))
    try:
        attrs = tuple(A.UINT_LIST.parse(layer.attrs.get(key, default)) for key, default in (
            ("strides", "1,1"), ("dilations", "1,1"), ("pads_begin", "0,0"), ("pads_end", "0,0")))
    except ValueError:
        return None
    if any(len(pair) != 2 for pair in attrs):
        return None
    return len(dims), sizes[0], sizes[1], attrs  # type: ignore[return-value]


def _indices(axis: int, size: tuple[int, int], kernel: tuple[int, int], attrs: tuple[tuple[int, int], ...],
             blocks: tuple[int, int], first: int) -> np.ndarray:
    """The Gather indices ``[first + kernel[axis], size[axis]]`` along ``axis`` (0: rows, 1: columns) into the kernel
    offsets' blocks, each offset's followed by a zero (``blocks[axis] + 1`` of them, ``first`` more before those, of
    zeros): the block landing at each output position, else that offset's zero."""
    strides, dilations, pads_begin, _ = attrs
    count = blocks[axis] + 1
    table = [np.full(size[axis], count - 1, np.int64)] * first
    for offset in range(kernel[axis]):
        shifted = np.arange(size[axis]) + pads_begin[axis] - offset * dilations[axis]
        block = shifted // strides[axis]
        lands = (shifted >= 0) & (shifted % strides[axis] == 0) & (block < blocks[axis])
        table.append((first + offset) * count + np.where(lands, block, blocks[axis]))
    return np.stack(table).astype(np.int32)


def _col2im(builder: GraphBuilder, layer: Layer) -> Output:
    """The class's rewrite of the Col2Im-15 ``layer``: the output standing for its."""
    graph, name = builder.graph, layer.name
    found = _geometry(graph, layer)
    assert found is not None  # (``declines`` left the others)
    rank, size, kernel, attrs = found
    strides, dilations, pads_begin, pads_end = attrs
    blocks = tuple((size[a] + pads_begin[a] + pads_end[a] - (dilations[a] * (kernel[a] - 1) + 1)) // strides[a] + 1
                   for a in (0, 1))
    kh, kw = kernel

    def i64(values: list[int], what: str) -> Output:
        return builder.const(np.array(values, np.int64), f"{name}/{what}")

    def reshape(x: Output | Layer, shape: list[int], what: str, **kwargs: object) -> Output:
        """``x`` reshaped, its first two dims (the batch and channels, which may be dynamic) copied by a 0."""
        return output_of(builder.add("Reshape", "opset1", builder.attrs("Reshape", "opset1", special_zero=True),
                                     [x, i64(shape, f"{what}/shape")], what if what == name else f"{name}/{what}",
                                     **kwargs))

    def transpose(x: Output | Layer, order: list[int], what: str) -> Layer:
        return builder.add("Transpose", "opset1", None, [x, i64(order, f"{what}/order")], f"{name}/{what}")

    def gather(x: Output, axis: int, first: int, what: str) -> Layer:
        table = builder.const(_indices(axis, size, kernel, attrs, blocks, first), f"{name}/{what}/indices")
        return builder.add("Gather", "opset1", None, [x, table, builder.const(np.array(2, np.int64),
                                                                               f"{name}/{what}/axis")],
                           f"{name}/{what}")

    # [B, C, kh, kw, Lh, Lw] (unbatched data has a batch of 1), a zero block after each row and column of blocks and
    # a zero kernel row before the first: [B, C, 1 + kh, kw, Lh + 1, Lw + 1]
    blocked = reshape(source(graph, layer, 0), [0 if rank == 3 else 1, -1, *kernel, *blocks], "blocks")
    padded = builder.add("Pad", "opset1", None, [blocked, i64([0, 0, 1, 0, 0, 0], "pad_begin"),
                                                 i64([0, 0, 0, 0, 1, 1], "pad_end")], f"{name}/with_zeros")
    # each kernel row's blocks laid on the output rows ([B, C, 1 + kh, H, kw, Lw + 1]), then each kernel column's on
    # the output columns ([B, C, kw, W, 1 + kh, H]), and the offsets put in the reference's order
    by_rows = reshape(transpose(padded, [0, 1, 2, 4, 3, 5], "row_major"), [0, 0, (kh + 1) * (blocks[0] + 1), kw,
                                                                             blocks[1] + 1], "by_rows")
    rows = gather(by_rows, 0, 1, "rows")
    by_columns = reshape(transpose(rows, [0, 1, 4, 5, 2, 3], "column_major"), [0, 0, kw * (blocks[1] + 1), kh + 1,
                                                                                 size[0]], "by_columns")
    laid = gather(by_columns, 1, 0, "columns")
    grid = reshape(transpose(laid, [0, 1, 4, 2, 5, 3], "offset_major"), [0, 0, (kh + 1) * kw, *size], "grid")
    # [B, C, (1 + kh) * kw, H, W]: kw slices of zeros, then the offsets in turn; summed from the first zero slice
    parts = builder.add("Split", "opset1", builder.attrs("Split", "opset1", num_splits=(kh + 1) * kw),
                        [grid, builder.const(np.array(2, np.int64), f"{name}/split_axis")], f"{name}/by_offset")
    total = output_of(parts, 0)
    for k in range(kw, (kh + 1) * kw):
        total = output_of(builder.add("Add", "opset1", None, [total, output_of(parts, k)], f"{name}/sum{k - kw + 1}"))
    out = declared_type(layer.outputs[0])
    return reshape(total, [0, 0, *size] if rank == 3 else [-1, *size], name, outputs=[out])
