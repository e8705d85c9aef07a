"""AdaptiveAvgPool-8 and AdaptiveMaxPool-8 as opset1 gathers and reductions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np

from ...ir.model import Graph, Layer
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type
from .base import Downgrade, const_input, numpy_dtype, source


class AdaptiveAvgPoolTo1(Downgrade):
    """AdaptiveAvgPool-8 for releases before 2022.1. Output bin ``i`` of a spatial axis of length ``n`` and output
    size ``o`` averages ``[floor(i*n/o), ceil((i+1)*n/o))``; a bin is the product of one such interval per axis, so
    its mean is the mean, axis after axis, of the means over each interval. Each axis is pooled in turn: a Gather-1
    of every bin's indices (``_pool_axis``), the sum of each bin's own elements (Select-1, ReduceSum-1) over its
    width (Divide-1); the indices are constants on a static length and computed from ShapeOf-1 on a dynamic one.
    Needs a static rank and a constant output size of positive values; any other is left, for ``retarget`` to
    refuse."""

    rewrites = {"AdaptiveAvgPool-8": "into a Gather-1 of its bins, Select-1, ReduceSum-1 and Divide-1 per spatial "
                                     "axis (its output size a constant)"}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            sizes = _output_size(graph, layer)
            if sizes is None:
                continue
            builder.replace_layer(layer, lambda: [_averaged(builder, layer, sizes)],  # noqa: B023
                                  origin_text(layer, "AdaptiveAvgPool-8"))
            stats["AdaptiveAvgPool-8 -> Gather-1/Select-1/ReduceSum-1/Divide-1"] += 1
        return PassResult(graph, bool(stats), stats)


class AdaptiveMaxPoolTo1(Downgrade):
    """AdaptiveMaxPool-8 whose indices nothing reads, for releases before 2022.1: its bins are AdaptiveAvgPool's
    (``_pooled``, the maximum taken axis after axis). What OpenVINO CPU computes, measured on 2023.0 and 2026.4:

    1. an output size of all ones is ReduceMax-1 over the spatial axes (OpenVINO's own AdaptivePoolToReduce, which
       the current release runs): so it is rewritten;
    2. any other runs the adaptive pooling kernel, which starts from a bin's first element (row-major) and takes
       each later one that is greater: a NaN first element gives NaN, a later NaN is passed over, a bin of -inf gives
       -inf and a bin whose maximum is zero gives its first zero, -0 or +0; ReduceMax-1 starts from the lowest finite
       value (a bin of -inf gives -3.4e38), lets a NaN through by its place and picks a zero's sign otherwise. So the
       bin's maximum is taken over the data with each NaN made -inf (NotEqual-1, Select-1); a bin with nothing above
       -inf (the maximum, by ReduceMax-1 too, of Greater-1 converted) gives -inf; a zero gets the sign of the bin's
       first zero (``_first_zero_negative``); and a bin whose first element (a Gather-1 of one index per axis) is
       NaN gives that element.

    600 seeded layers (NaN, infinities and signed zeros among the values, f16, dynamic dims): bit for bit on 2023.0
    and 2026.4. Needs f32 or f16 data, a static rank and a constant output size of positive values; any other is
    left, for ``retarget`` to refuse (as is one whose indices are read: no older op gives them)."""

    rewrites = {"AdaptiveMaxPool-8": "into Gather-1s of its bins, ReduceMax-1 and Select-1 per spatial axis, as its "
                                     "kernel takes NaN, -inf and signed zeros (its output size a constant, its "
                                     "indices unused)"}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        if graph.output_read(layer, 1):
            return "its indices output is read, which no older op gives"
        data = source(graph, layer, 0)
        if declared_type(graph.layer(data[0]).output(data[1])).element not in _FLOATS:
            return "its data is not f32 or f16"
        return None

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            sizes = _output_size(graph, layer)
            if sizes is None:
                continue
            layer.outputs = layer.outputs[:1]
            rule = "ReduceMax-1" if all(size == 1 for size in sizes) else "Gather-1/ReduceMax-1/Select-1"
            builder.replace_layer(layer, lambda: [_max_pooled(builder, layer, sizes)],  # noqa: B023
                                  origin_text(layer, "AdaptiveMaxPool-8"))
            stats[f"AdaptiveMaxPool-8 -> {rule}"] += 1
        return PassResult(graph, bool(stats), stats)


def _averaged(builder: GraphBuilder, layer: Layer, sizes: list[int]) -> Output:
    """AdaptiveAvgPool-8's values (``AdaptiveAvgPoolTo1``); a no-op Convert-1 where every axis has a bin per element
    (the output a port of its own)."""
    data = source(builder.graph, layer, 0)
    pooled = _pooled(_Bins(builder, data, sizes, layer.name), data, layer.name, "ReduceMean")
    return pooled if pooled != data else output_of(builder.convert(data, builder.type_of(data).element, layer.name))


#: The element types AdaptiveMaxPoolTo1 rewrites (those with NaN and -inf, which it reproduces).
_FLOATS = frozenset({"f32", "f16"})


def _max_pooled(builder: GraphBuilder, layer: Layer, sizes: list[int]) -> Output:
    """AdaptiveMaxPool-8's values as OpenVINO CPU computes them (``AdaptiveMaxPoolTo1``)."""
    graph, name = builder.graph, layer.name
    data = source(graph, layer, 0)
    if all(size == 1 for size in sizes):
        axes = builder.const(np.arange(2, len(sizes) + 2, dtype=np.int64), f"{name}/axes")
        return output_of(builder.add("ReduceMax", "opset1", builder.attrs("ReduceMax", "opset1", keep_dims=True),
                                     [data, axes], name))
    bins = _Bins(builder, data, sizes, name)
    element, dtype = bins.element, bins.dtype

    def add(op_type: str, inputs: list[Output], what: str) -> Output:
        return output_of(builder.add(op_type, "opset1", None, inputs, f"{name}/{what}"))

    def value(number: float, what: str) -> Output:
        return builder.const(np.array(number, dtype), f"{name}/{what}")

    lowest = value(-np.inf, "minus_inf")
    cleaned = add("Select", [add("NotEqual", [data, data], "nan"), lowest, data], "nan_as_minus_inf")
    top = _pooled(bins, cleaned, f"{name}/top", "ReduceMax")
    above = output_of(builder.convert(add("Greater", [cleaned, lowest], "above"), element, f"{name}/above_f"))
    seen = output_of(builder.convert(_pooled(bins, above, f"{name}/seen", "ReduceMax"), "boolean",
                                     f"{name}/seen_any"))
    found = add("Select", [seen, top, lowest], "found")
    signed_zero = add("Select", [_first_zero_negative(bins, f"{name}/zero_sign"),
                                 value(-0.0, "negative_zero"), value(0.0, "positive_zero")], "signed_zero")
    zero_signed = add("Select", [add("Equal", [found, value(0.0, "zero")], "found_zero"), signed_zero, found],
                      "zero_signed")
    first = _pooled(bins, data, f"{name}/first", None)
    return output_of(builder.add("Select", "opset1", None, [add("NotEqual", [first, first], "first_nan"), first,
                                                             zero_signed], name))


def _first_zero_negative(bins: _Bins, name: str) -> Output:
    """Per bin, whether its first zero in the kernel's order (row-major) is -0. Each element gets a key in f32: -2
    times its position along the last axis, plus 1 for -0 (``1 / x < 0``), and -3.4e38 (the lowest f32) added where
    it is not zero; the keys are reduced by ReduceMax-1 over each bin along that axis (the largest key: the first
    zero; ReduceMax-1 gives a bin of none the lowest f32), then each bin that holds a zero is keyed anew by its
    position along the axis before, plus the parity of its key (FloorMod-1: the sign of its first zero), and so on to
    the first spatial axis. Every key is an integer of at most twice an axis' length, exact in f32, and the lowest f32
    plus one is the lowest f32. (Added, not chosen by a Select-1: OpenVINO 2023.0 CPU dies of SIGSEGV on a Select-1
    of Greater-1 over such a key on dynamic dims.)"""
    builder, data, rank = bins.builder, bins.data, bins.rank

    def add(op_type: str, inputs: list[Output], what: str) -> Output:
        return output_of(builder.add(op_type, "opset1", None, inputs, f"{name}/{what}"))

    def value(number: float, dtype: np.dtype | type, what: str) -> Output:
        # (of the data's rank: OpenVINO 2023.0 CPU failed to compile a scalar's broadcast in an earlier form of this
        # chain on dynamic dims, "Reorder node ... doesn't support case when input and output shapes have different
        # rank and dynamic")
        return builder.const(np.full([1] * rank, number, dtype), f"{name}/{what}")

    dtype = numpy_dtype(builder, data)
    zero = value(0, dtype, "zero")
    reciprocal = add("Divide", [value(1, dtype, "one"), data], "reciprocal")
    sign = output_of(builder.convert(add("Less", [reciprocal, zero], "negative"), "f32", f"{name}/negative_f"))
    held = add("Equal", [data, zero], "is_zero")
    one, two = value(1, np.float32, "one_f32"), value(2, np.float32, "two")
    highest = value(np.finfo(np.float32).max, np.float32, "highest")
    lowest: Output | None = None
    for axis in reversed(range(2, rank)):
        where = f"axis{axis}"
        absent = add("Multiply", [add("Subtract", [output_of(builder.convert(held, "f32", f"{name}/{where}/held")),
                                                   one], f"{where}/not_held"), highest], f"{where}/absent")
        keys = add("Add", [_positions(builder, data, axis, rank, f"{name}/{where}"), sign], f"{where}/keys")
        key = _pool_axis(bins, add("Add", [keys, absent], f"{where}/keyed"), axis, f"{name}/{where}", "ReduceMax")
        if axis > 2:  # (the zeros an axis before this one reads)
            if lowest is None:
                lowest = value(np.finfo(np.float32).min, np.float32, "lowest")
            held = add("Greater", [key, lowest], f"{where}/holds_zero")
        sign = add("FloorMod", [key, two], f"{where}/sign")
    return add("Equal", [sign, one], "first_negative")


def _positions(builder: GraphBuilder, data: Output, axis: int, rank: int, name: str) -> Output:
    """-2 times each index along ``axis`` of ``data``, in f32, laid along that axis of a tensor of ``rank``
    (a Const on a static length, else Range-4 of its length, from ShapeOf-1)."""
    laid = [1] * axis + [-1] + [1] * (rank - axis - 1)
    length = builder.type_of(data).shape[axis]
    if length.is_static:
        return builder.const((-2 * np.arange(length.lo, dtype=np.float32)).reshape(laid), f"{name}/positions")
    i64 = builder.const
    shape = builder.add("ShapeOf", "opset1", None, [data], f"{name}/positions_shape")
    dim = builder.add("Gather", "opset1", None, [shape, i64(np.array(axis, np.int64), f"{name}/positions_at"),
                                                 i64(np.array(0, np.int64), f"{name}/positions_axis")],
                      f"{name}/positions_length")
    indices = builder.add("Range", "opset4", builder.attrs("Range", "opset4", output_type="f32"),
                          [i64(np.array(0, np.int64), f"{name}/positions_start"), dim,
                           i64(np.array(1, np.int64), f"{name}/positions_step")], f"{name}/indices")
    doubled = builder.add("Multiply", "opset1", None, [indices, builder.const(np.array(-2, np.float32),
                                                                               f"{name}/minus_two")],
                          f"{name}/doubled")
    return output_of(builder.add("Reshape", "opset1", builder.attrs("Reshape", "opset1", special_zero=False),
                                 [doubled, i64(np.array(laid, np.int64), f"{name}/positions_laid")],
                                 f"{name}/positions"))


def _output_size(graph: Graph, layer: Layer) -> list[int] | None:
    """The output size per spatial axis; None unless it is a constant of positive values over a static rank."""
    data = source(graph, layer, 0)
    shape = declared_type(graph.layer(data[0]).output(data[1])).shape
    value = const_input(graph, layer, 1)
    if shape is None or value is None:
        return None
    raw = value.reshape(-1)
    sizes = [int(v) for v in (np.trunc(raw) if raw.dtype.kind == "f" else raw)]
    return sizes if len(sizes) == len(shape) - 2 and all(v > 0 for v in sizes) else None


def _pooled(bins: _Bins, data: Output, name: str, reduction: str | None) -> Output:
    """``data`` (of ``bins``' shape) pooled adaptively, axis after axis: each bin reduced by ``reduction``
    (ReduceMean, ReduceMax), or, None, its first element."""
    for axis in range(2, bins.rank):
        data = _pool_axis(bins, data, axis, f"{name}/axis{axis}", reduction)
    return data


def _pool_axis(bins: _Bins, data: Output, axis: int, name: str, reduction: str | None) -> Output:
    """``data`` pooled adaptively along ``axis`` (``reduction``: ``_pooled``'s): one Gather-1 lays the bins out along
    a new axis after ``axis``, reduced over it: ReduceMax-1 as it is (a repeated index changes no maximum),
    ReduceMean as ReduceSum-1 of each bin's own elements (Select-1 zeroes the repeats) over its width (Divide-1);
    None: each bin's first element. An axis with a bin per element is left as it is (OpenVINO 2023.0 CPU takes a
    Gather-1 of indices ``[1, 1]`` for a scalar's)."""
    if bins.one_per_element(axis):
        return data
    builder = bins.builder
    indices = bins.firsts(axis) if reduction is None else bins.indices(axis)
    gather_axis = bins.constant(axis, f"axis{axis}/gather_axis")
    gathered = output_of(builder.add("Gather", "opset1", None, [data, indices, gather_axis], f"{name}/bins"))
    if reduction is None:
        return gathered
    axes = bins.constant([axis + 1], f"axis{axis}/reduced_axes")
    if reduction != "ReduceMean":
        return output_of(builder.add(reduction, "opset1", builder.attrs(reduction, "opset1", keep_dims=False),
                                     [gathered, axes], f"{name}/{reduction}"))
    # (the zero of the gathered data's rank: ``_Bins.own``)
    zero = builder.const(np.zeros([1] * (bins.rank + 1), bins.dtype), f"{name}/zero")
    kept = builder.add("Select", "opset1", None, [bins.own(axis), gathered, zero], f"{name}/own_elements")
    summed = builder.add("ReduceSum", "opset1", builder.attrs("ReduceSum", "opset1", keep_dims=False), [kept, axes],
                         f"{name}/sum")
    return output_of(builder.add("Divide", "opset1", None, [summed, bins.widths(axis)], f"{name}/{reduction}"))


class _Bins:
    """The bins of each spatial axis of one layer's ``data`` pooled to ``sizes``: bin ``i`` of an axis of length ``n``
    pooled to ``o`` is ``[i*n // o, ceil((i+1)*n / o))``. What ``_pool_axis`` gathers and reduces by, built once per
    axis and shared by every pooling of the layer (a bin depends on its axis' length alone): constants on a static
    length, else computed from ShapeOf-1 of ``data`` (Range-4 of the widest bin's width)."""

    def __init__(self, builder: GraphBuilder, data: Output, sizes: list[int], name: str):
        self.builder, self.data, self.sizes, self.name = builder, data, sizes, name
        given = builder.type_of(data)
        self.shape, self.element, self.dtype = given.shape, given.element, numpy_dtype(builder, data)
        self.rank = len(given.shape)
        self._built: dict[tuple[str, int], Output] = {}
        self._constants: dict[str, Output] = {}

    def one_per_element(self, axis: int) -> bool:
        """Whether ``axis`` has a static length of as many elements as bins."""
        return self.shape[axis].is_static and self.shape[axis].lo == self.sizes[axis - 2]

    def firsts(self, axis: int) -> Output:
        """``[size]``: each bin's first index."""
        return self._once("firsts", axis, lambda: self._static(axis)[0], lambda: self._bounds(axis)[0])

    def indices(self, axis: int) -> Output:
        """``[size, widest]``: each bin's indices, from its first to its last, the last repeated up to the widest
        bin's width."""
        def static() -> np.ndarray:
            firsts, widths, steps = self._static(axis)
            return np.minimum(firsts[:, None] + steps, (firsts + widths - 1)[:, None])

        def computed() -> Output:
            firsts, ends = self._bounds(axis)
            lasts = self._add("Subtract", [ends, self._i64([1], axis, "one")], axis, "lasts")
            taken = self._add("Add", [self._column(firsts, axis, "firsts"), self._steps(axis)], axis, "taken")
            return self._add("Minimum", [taken, self._column(lasts, axis, "lasts")], axis, "indices")

        return self._once("indices", axis, static, computed)

    def own(self, axis: int) -> Output:
        """Whether each of ``indices`` is its bin's own (not a repeat), laid along the gathered data's axes ``axis``
        and the next, of its rank (OpenVINO 2023.0 CPU fails to compile a Select-1 that broadcasts a lower rank here:
        "Input shape dimension equal 2 cannot be broadcasted")."""
        laid = [*range(axis), *range(axis + 2, self.rank + 1)]

        def static() -> np.ndarray:
            _, widths, steps = self._static(axis)
            return np.expand_dims(steps < widths[:, None], laid)

        def computed() -> Output:
            own = self._add("Less", [self._steps(axis), self._column(self._widths(axis), axis, "widths")], axis,
                            "own_indices")
            return self._add("Unsqueeze", [own, self._i64(laid, axis, "own_axes")], axis, "own")

        return self._once("own", axis, static, computed)

    def widths(self, axis: int) -> Output:
        """Each bin's width in the data's type, laid along the pooled data's ``axis``, of its rank."""
        laid = [*range(axis), *range(axis + 1, self.rank)]

        def static() -> np.ndarray:
            return np.expand_dims(self._static(axis)[1].astype(self.dtype), laid)

        def computed() -> Output:
            width = output_of(self.builder.convert(self._widths(axis), self.element,
                                                   f"{self.name}/axis{axis}/widths_f"))
            return self._add("Unsqueeze", [width, self._i64(laid, axis, "widths_axes")], axis, "widths")

        return self._once("widths", axis, static, computed)

    def constant(self, value: int | list[int], what: str) -> Output:
        """An i64 Const of ``value`` (axes) called ``what``, made once for the layer."""
        if what not in self._constants:
            self._constants[what] = self.builder.const(np.array(value, np.int64), f"{self.name}/{what}")
        return self._constants[what]

    def _static(self, axis: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Of a static length: each bin's first index and width, and 0 up to the widest width."""
        length, size = self.shape[axis].lo, self.sizes[axis - 2]
        firsts = np.arange(size) * length // size
        widths = -(-np.arange(1, size + 1) * length // size) - firsts
        return firsts, widths, np.arange(widths.max(initial=0))

    def _bounds(self, axis: int) -> tuple[Output, Output]:
        """Each bin's first index and its end, computed from the axis' length."""
        def computed() -> tuple[Output, Output]:
            size, length = self.sizes[axis - 2], self._length(axis)
            divisor = self._i64(size, axis, "size")
            scaled = self._add("Multiply", [length, self._i64(np.arange(size), axis, "steps")], axis, "scaled")
            scaled_up = self._add("Add", [self._add("Multiply", [length, self._i64(np.arange(1, size + 1), axis,
                                                                                    "next_steps")], axis,
                                                    "next_scaled"), self._i64(size - 1, axis, "round_up")],
                                  axis, "scaled_up")
            return (self._add("Divide", [scaled, divisor], axis, "firsts"),
                    self._add("Divide", [scaled_up, divisor], axis, "ends"))

        if ("ends", axis) not in self._built:
            self._built[("firsts", axis)], self._built[("ends", axis)] = computed()
        return self._built[("firsts", axis)], self._built[("ends", axis)]

    def _length(self, axis: int) -> Output:
        """The axis' length, a scalar, computed."""
        def computed() -> Output:
            shape = self._once("shape", 0, None, lambda: self._add("ShapeOf", [self.data], 0, "shape"))
            return self._add("Gather", [shape, self._i64(axis, axis, "at"), self._i64(0, axis, "shape_axis")], axis,
                             "length")

        return self._once("length", axis, None, computed)

    def _widths(self, axis: int) -> Output:
        """``[size]``, i64: each bin's width, computed."""
        def computed() -> Output:
            firsts, ends = self._bounds(axis)
            return self._add("Subtract", [ends, firsts], axis, "widths_i64")

        return self._once("widths_i64", axis, None, computed)

    def _steps(self, axis: int) -> Output:
        """``[widest]``: 0 up to a bound of the widest bin's width, computed: ``n // size + 2`` (a bin's width is
        below ``n / size + 2``), as 0 and a Range-4 from 1 (Concat-1): a length of 1 or more to shape inference (a
        Range-4's is any, as OpenVINO infers it), so that a reduction over it is not one over an axis that may be
        empty, which 2021.4 computes wrong (``target._empty_reductions``)."""
        def computed() -> Output:
            size = self.sizes[axis - 2]
            widest = self._add("Add", [self._add("Divide", [self._length(axis), self._i64(size, axis, "widest_size")],
                                                 axis, "per_bin"), self._i64(2, axis, "two")], axis, "widest")
            rest = self._add("Range", [self._i64(1, axis, "steps_start"), widest, self._i64(1, axis, "steps_step")],
                             axis, "steps_after_0", self.builder.attrs("Range", "opset4", output_type="i64"), "opset4")
            return self._add("Concat", [self._i64([0], axis, "step_0"), rest], axis, "steps_within",
                             self.builder.attrs("Concat", "opset1", axis=0))

        return self._once("steps", axis, None, computed)

    def _column(self, out: Output, axis: int, what: str) -> Output:
        """``out``, ``[size]``, as ``[size, 1]``."""
        return self._add("Unsqueeze", [out, self._i64([1], axis, f"{what}_column_axis")], axis, f"{what}_column")

    def _once(self, what: str, axis: int, static: Callable[[], np.ndarray] | None,
              computed: Callable[[], Output]) -> Output:
        """``what`` of ``axis``, built on first use: a Const of ``static()`` on a static length, else ``computed()``."""
        key = (what, axis)
        if key not in self._built:
            self._built[key] = (self.builder.const(static(), f"{self.name}/axis{axis}/{what}")
                                if static is not None and self.shape[axis].is_static else computed())
        return self._built[key]

    def _i64(self, value: object, axis: int, what: str) -> Output:
        return self.builder.const(np.array(value, np.int64), f"{self.name}/axis{axis}/{what}")

    def _add(self, op_type: str, inputs: list[Output], axis: int, what: str, attrs: object = None,
             version: str = "opset1") -> Output:
        return output_of(self.builder.add(op_type, version, attrs, inputs, f"{self.name}/axis{axis}/{what}"))
