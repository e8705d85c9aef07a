"""GridSample-9 as opset1-7 arithmetic and one GatherND-5 of every tap (for releases before 2022.2)."""

from __future__ import annotations

import numpy as np

from ...ir.model import Graph, Layer
from ...ops.sampling import GridSampleAttrs
from ..base import PassResult
from ..builder import GraphBuilder, Output, output_of
from ..pattern import typed_attrs
from .base import Downgrade, const_input, numpy_dtype, source

#: The grid is clamped to this: beyond it every tap is padding for zeros and border, and reflection's position is
#: off by a pixel or more in f32 (GridSample's rounding rule bounds such an output by the image's range), so the
#: clamped grid computes the same within that rule, and the f32 positions stay finite.
_GRID_LIMIT = 2.0**21
#: Keys' cubic convolution constant (GridSample's bicubic, as ``ops/sampling``).
_CUBIC_A = -0.75
#: The tap offsets from the origin pixel (floor of the position, nearest's rounded one) per mode.
_OFFSETS = {"nearest": (0,), "bilinear": (0, 1), "bicubic": (-1, 0, 1, 2)}


class GridSampleTo8(Downgrade):
    """GridSample-9 for releases before 2022.2, every mode and padding, as ``ops/sampling``'s kernel computes it: the
    grid (its NaN read as 0, clamped to +-2^21) unnormalized in f32 to a position ``g * s + (L - 1) / 2`` per axis
    (``s``: (L - 1) / 2 with align_corners, else L / 2); the origin pixel its Floor-1 (nearest: Round-5 half to even,
    as the CPU rounds ties); each tap's integer index (the origin plus -1..2 for bicubic, 0..1 for bilinear) padded
    along its axis: zeros sends one outside to the zero row or column padded on (Pad-1), border clamps it,
    reflection folds it (FloorMod-1, Select-1: about -0.5 and L - 0.5, or 0 and L - 1 with align_corners); every tap
    is read by one GatherND-5 (batch_dims 1) of its (y, x) from the data laid [N, H + 1, W + 1, C] and, but for
    nearest, weighed (bilinear ``1 - t, t``, bicubic Keys' cubic, A = -0.75, of the fraction ``t`` per axis)
    and summed by ReduceSum-1 in f32 (f16 data converted in and out; nearest reads pixels in their own type).

    Measured on 2023.0 and 2026.4: bilinear and bicubic give NaN where a point's grid is NaN or infinite, every
    padding, and so does the rewrite (the sum of the point's ``g * 0`` added); nearest reads some pixel there, left as
    it comes (GridSample's result is not defined), its NaN read as 0 so that every index stays in range. Not Gather-7
    of batch_dims 1: the CPU read another pixel now and then, run after run on one input. 180 seeded layers over three
    seeds (every mode, padding and align_corners; grid points to 1e30; f16 data and grids): within GridSample's
    rounding bound (at most 0.09 of it), nearest bit for bit. The lengths are Consts on static dims, else from
    ShapeOf-1. Needs f32 or f16 data and grid of a known rank."""

    rewrites = {"GridSample-9": "into Floor-1 (Round-5 for nearest), padding by Select-1, Minimum-1 or FloorMod-1, one "
                                "GatherND-5 of every tap and ReduceSum-1 of the weighted taps (f32 or f16 data and "
                                "grid)"}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        builder = GraphBuilder(graph)
        data, grid = (builder.type_of(source(graph, layer, index)) for index in (0, 1))
        if data.element not in _FLOATS or grid.element not in _FLOATS:
            unknown = "of an unknown type"
            return f"its data ({data.element or unknown}) or grid ({grid.element or unknown}) is not f32 or f16"
        if data.shape is None or grid.shape is None or len(data.shape) != 4 or len(grid.shape) != 4:
            return "the rank of its data or grid is not known"
        value = const_input(graph, layer, 1)
        if value is not None and not np.all(np.isfinite(value)):
            return "its grid is a constant holding NaN or infinities, where GridSample's result is not defined"
        return None

    def apply(self, graph: Graph) -> PassResult:
        return self.replace_each(graph, _sampled, "GridSample-9", "GatherND-5/ReduceSum-1")


_FLOATS = frozenset({"f32", "f16"})


class _Steps:
    """Adds the rewrite's layers, each named after the GridSample layer."""

    def __init__(self, builder: GraphBuilder, name: str) -> None:
        self.builder, self.name = builder, name

    def add(self, op_type: str, inputs: list[Output], what: str, version: str = "opset1",
            attrs: object | None = None) -> Output:
        return output_of(self.builder.add(op_type, version, attrs, inputs, f"{self.name}/{what}"))

    def const(self, value: object, what: str, dtype: type = np.float32) -> Output:
        return self.builder.const(np.asarray(value, dtype), f"{self.name}/{what}")

    def axes(self, axes: list[int], what: str) -> Output:
        return self.const(axes, what, np.int64)

    def taken(self, tensor: Output, index: int, what: str) -> Output:
        """``tensor[:, :, :, index]`` (the grid's x at 0, y at 1): Gather-7 of a scalar index on axis 3."""
        return self.add("Gather", [tensor, self.const(index, f"{what}_at", np.int64), self.const(3, f"{what}_axis",
                                                                                                np.int64)],
                        what, "opset7")


class _Lengths:
    """The data's width and height (the grid's x, y order) and values made of them: constants on static dims, else
    computed from ShapeOf-1 of the data."""

    def __init__(self, step: _Steps, data: Output) -> None:
        self.step = step
        shape = step.builder.type_of(data).shape
        dims = (shape[3], shape[2])
        self.known = np.array([d.lo for d in dims], np.float32) if all(d.is_static for d in dims) else None
        if self.known is None:
            shape_of = step.add("ShapeOf", [data], "data_shape")
            self.dims = step.add("Gather", [shape_of, step.axes([3, 2], "width_height_at"),
                                            step.const(0, "shape_axis", np.int64)], "width_height", "opset7")
            self.lengths = output_of(step.builder.convert(self.dims, "f32", f"{step.name}/lengths_f32"))

    def affine(self, times: float, plus: float, what: str, column: bool = False, least: float | None = None) -> Output:
        """``times * L + plus`` per axis (at least ``least``), [2] or, for ``column``, [2, 1]."""
        step = self.step
        if self.known is not None:
            value = self.known * times + plus
            value = value if least is None else np.maximum(value, least)
            return step.const(value.reshape(2, 1) if column else value, what)
        value = self.lengths
        if times != 1:
            value = step.add("Multiply", [value, step.const(times, f"{what}_times")], f"{what}_scaled")
        if plus != 0:
            value = step.add("Add", [value, step.const(plus, f"{what}_plus")], f"{what}_value")
        if least is not None:
            value = step.add("Maximum", [value, step.const(least, f"{what}_least")], f"{what}_least_of")
        if not column:
            return value
        return step.add("Unsqueeze", [value, step.axes([1], f"{what}_column")], what)

    def last_indices(self) -> Output:
        """The largest index of the data padded by one row and column, (H, W) in i32 (GatherND's tuple order)."""
        step = self.step
        if self.known is not None:
            return step.const(self.known[::-1].astype(np.int32), "last_indices", np.int32)
        ordered = step.add("Gather", [self.dims, step.axes([1, 0], "height_width_at"),
                                      step.const(0, "dims_axis", np.int64)], "height_width", "opset7")
        return output_of(step.builder.convert(ordered, "i32", f"{step.name}/last_indices"))


def _sampled(builder: GraphBuilder, layer: Layer) -> Output:
    """GridSample-9's output (``GridSampleTo8``)."""
    graph = builder.graph
    a: GridSampleAttrs = typed_attrs(layer)
    step = _Steps(builder, layer.name)
    data, grid = source(graph, layer, 0), source(graph, layer, 1)
    element = builder.type_of(data).element
    converted = element != "f32" and a.mode != "nearest"  # (nearest only reads pixels: in their own type)
    if converted:
        data = output_of(builder.convert(data, "f32", f"{layer.name}/data_f32"))
    if builder.type_of(grid).element != "f32":
        grid = output_of(builder.convert(grid, "f32", f"{layer.name}/grid_f32"))
    lengths = _Lengths(step, data)
    # (a NaN point read as 0: every index stays in range, as GatherND-5 on 2023.0 reads beyond its data otherwise)
    numbers = step.add("Select", [step.add("Equal", [grid, grid], "grid_number"), grid, step.const(0, "grid_nan")],
                       "grid_numbers")
    clamped = step.add("Clamp", [numbers], "grid_clamped",
                       attrs=builder.attrs("Clamp", "opset1", min=-_GRID_LIMIT, max=_GRID_LIMIT))
    scale = lengths.affine(0.5, -0.5 if a.align_corners else 0.0, "scale")
    position = step.add("Add", [step.add("Multiply", [clamped, scale], "scaled"), lengths.affine(0.5, -0.5, "shift")],
                        "position")
    if a.mode == "nearest":
        origin = step.add("Round", [position], "origin", "opset5", builder.attrs("Round", "opset5"))
    else:
        origin = step.add("Floor", [position], "origin")
    offsets = _OFFSETS[a.mode]
    taps = step.add("Add", [step.add("Unsqueeze", [origin, step.axes([4], "tap_axis")], "origin_taps"),
                            step.const(offsets, "offsets")], "taps")  # [N, H_out, W_out, 2, K]
    indices = _indices(step, _padded(step, a, taps, lengths), lengths, len(offsets) ** 2)
    laid = step.add("Transpose", [data, step.axes([0, 2, 3, 1], "channels_last")], "pixels")  # [N, H, W, C]
    zero_pad = (step.axes([0, 0, 0, 0], "pad_begin"), step.axes([0, 1, 1, 0], "pad_end"),
                step.const(0, "pad_value", numpy_dtype(builder, data)))
    pixels = step.add("Pad", [laid, *zero_pad], "pixels_and_zeros")  # (the zeros: zeros' outside)
    read = step.add("GatherND", [pixels, indices], "read", "opset5",
                    builder.attrs("GatherND", "opset5", batch_dims=1))  # [N, H_out, W_out, taps, C]
    channels_first = step.axes([0, 3, 1, 2], "channels_first")
    if a.mode == "nearest":
        picked = step.add("Squeeze", [read, step.axes([3], "one_tap")], "picked")
        return step.add("Transpose", [picked, channels_first], "sampled")
    weights = _weights(step, a, step.add("Subtract", [position, origin], "fraction"))
    weighed = step.add("Multiply", [read, weights], "weighed")
    summed = step.add("ReduceSum", [weighed, step.axes([3], "tap_sum")], "summed",
                      attrs=builder.attrs("ReduceSum", "opset1", keep_dims=False))
    # NaN where the point's grid holds NaN or an infinity, as the CPU gives (0 elsewhere: the sum of g * 0)
    undefined = step.add("ReduceSum", [step.add("Multiply", [grid, step.const(0, "zero_times")], "grid_zeroed"),
                                       step.axes([3], "point_axis")], "undefined",
                         attrs=builder.attrs("ReduceSum", "opset1", keep_dims=True))
    summed = step.add("Add", [summed, undefined], "summed_or_nan")
    out = step.add("Transpose", [summed, channels_first], "sum" if converted else "sampled")
    if converted:
        out = output_of(builder.convert(out, element, f"{layer.name}/sampled"))
    return out


def _padded(step: _Steps, a: GridSampleAttrs, taps: Output, lengths: _Lengths) -> Output:
    """Each tap's index along its axis (``taps``: [N, H_out, W_out, 2, K], x then y) padded as ``ops/sampling``'s
    ``_fold``: zeros sends one outside to L (the zero row or column padded on), border clamps it into [0, L - 1],
    reflection folds it; a fold of an index beyond 2^22 in f32 may be off, so it is clamped into [0, L - 1] too (its
    position is off by more than a pixel: any pixel is within the rounding rule)."""
    if a.padding_mode != "border":
        length = lengths.affine(1.0, 0.0, "lengths", column=True)
    if a.padding_mode == "zeros":
        inside = step.add("LogicalAnd", [step.add("GreaterEqual", [taps, step.const(0, "zero")], "from_start"),
                                         step.add("Less", [taps, length], "before_end")], "inside")
        return step.add("Select", [inside, taps, length], "tap_index")
    if a.padding_mode == "reflection":
        if a.align_corners:
            period = lengths.affine(2.0, -2.0, "period", column=True, least=1.0)
            folded = step.add("FloorMod", [step.add("Abs", [taps], "magnitude"), period], "folded")
            mirror = period
        else:
            period = lengths.affine(2.0, 0.0, "period", column=True)
            folded = step.add("FloorMod", [taps, period], "folded")
            mirror = lengths.affine(2.0, -1.0, "mirror", column=True)
        beyond = step.add("GreaterEqual", [folded, length], "beyond")
        taps = step.add("Select", [beyond, step.add("Subtract", [mirror, folded], "mirrored"), folded], "reflected")
    above = step.add("Maximum", [taps, step.const(0, "zero")], "from_zero")
    return step.add("Minimum", [above, lengths.affine(1.0, -1.0, "last", column=True)], "tap_index")


def _indices(step: _Steps, index: Output, lengths: _Lengths, count: int) -> Output:
    """GatherND's (y, x) of every tap, [N, H_out, W_out, taps, 2] in i32 (rows, then columns), from each axis' tap
    indices ``index`` (each broadcast over the other's by adding it times 0: finite, exact); kept within the data
    padded by one row and column (an axis of 2^24 or more rounds its f32 index; an empty one has none)."""
    rows = step.add("Unsqueeze", [step.taken(index, 1, "y"), step.axes([4], "row_axis")], "rows")
    columns = step.add("Unsqueeze", [step.taken(index, 0, "x"), step.axes([3], "column_axis")], "columns")
    zero = step.const(0, "index_zero")
    pairs = [step.add("Unsqueeze", [step.add("Add", [mine, step.add("Multiply", [other, zero], f"{what}_zeros")],
                                             f"{what}_all"), step.axes([5], f"{what}_pair_axis")], f"{what}_pair")
             for mine, other, what in ((rows, columns, "rows"), (columns, rows, "columns"))]
    square = step.add("Concat", pairs, "tuples_square", attrs=step.builder.attrs("Concat", "opset1", axis=5))
    tuples = step.add("Reshape", [square, step.axes([0, 0, 0, count, 2], "tap_count")], "tuples",
                      attrs=step.builder.attrs("Reshape", "opset1", special_zero=True))
    within = step.add("Minimum", [output_of(step.builder.convert(tuples, "i32", f"{step.name}/tuples_i32")),
                                  lengths.last_indices()], "tuples_within")
    return step.add("Maximum", [within, step.const(0, "first_index", np.int32)], "indices")


def _weights(step: _Steps, a: GridSampleAttrs, fraction: Output) -> Output:
    """Each tap's weight, [N, H_out, W_out, taps, 1] in the order of the flat indices (rows, then columns):
    the product of its row's and its column's weights from the fraction ``t`` of the position per axis (bilinear
    ``1 - t, t``; bicubic Keys' cubic of the distance ``|t - offset|``, in ``ops/sampling._cubic``'s Horner form)."""
    t = step.add("Unsqueeze", [fraction, step.axes([4], "fraction_axis")], "fractions")  # [N, H_out, W_out, 2, 1]
    if a.mode == "bilinear":
        per_axis = step.add("Add", [step.add("Multiply", [t, step.const([-1, 1], "signs")], "signed"),
                                    step.const([1, 0], "starts")], "axis_weights")
    else:
        k = _CUBIC_A
        near = np.array([False, True, True, False])  # (the taps at offsets 0 and 1: distances below 1)
        coefficients = [np.where(near, k + 2, k), np.where(near, -(k + 3), -5 * k), np.where(near, 0, 8 * k),
                        np.where(near, 1, -4 * k)]
        offset = step.add("Subtract", [t, step.const(_OFFSETS["bicubic"], "tap_offsets")], "offset")
        distance = step.add("Abs", [offset], "distance")
        per_axis = step.const(coefficients[0], "cubic0")
        for i, c in enumerate(coefficients[1:], start=1):
            per_axis = step.add("Add", [step.add("Multiply", [per_axis, distance], f"cubic{i}_times"),
                                        step.const(c, f"cubic{i}")], f"cubic{i}_sum")
    rows = step.add("Unsqueeze", [step.taken(per_axis, 1, "row_weights"), step.axes([4], "row_weight_axis")],
                    "row_weight")
    columns = step.add("Unsqueeze", [step.taken(per_axis, 0, "column_weights"), step.axes([3], "column_weight_axis")],
                       "column_weight")
    count = len(_OFFSETS[a.mode]) ** 2
    product = step.add("Reshape", [step.add("Multiply", [rows, columns], "tap_weights"),
                                   step.axes([0, 0, 0, count], "weight_count")], "weights_flat",
                       attrs=step.builder.attrs("Reshape", "opset1", special_zero=True))
    return step.add("Unsqueeze", [product, step.axes([4], "channel_axis")], "weights")
