"""Compressed weights decompressed as the current OpenVINO does, for a release that would compute them otherwise: in
f32 where it would fold them in f16, an i4 zero point as i8 where it computes one wrong, f16 weights of one output
channel folded where it fails to run them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np

from ...base.dtypes import INTEGER_TYPES, element_type
from ...ir.model import Edge, Graph, Layer
from ...ops import attrs as A
from ..base import PassResult
from ..builder import GraphBuilder, Output, drop_unused, origin_text, output_of, with_origin
from ..shapes import declared_type, decompression_mark, read_as_decompression
from .base import Downgrade, feed, source

#: The layers of a decompression chain between the integer weights and the Convert to f32.
_CHAIN = frozenset({"convert", "subtract", "multiply", "reshape"})


class F32Decompression(Downgrade):
    """NNCF writes compressed weights as integer Consts (u8, i8, u4, i4...) converted to f16, less a zero point,
    times an f16 scale, then converted to f32. The current OpenVINO CPU computes that product in f32, where it is
    exact (an integer of at most 9 bits times an 11-bit significand); releases before 2024.1 (``ops/releases
    .F32_DECOMPRESSION_FROM``) may fold it in f16, as the file says, and their logits then differ by about 4e-4 of
    their largest. For such a target each chain is made f32 where it is: the integer Consts converted to f32, the f16
    ones (scale, zero point) converted to f32 by a Convert each, the Subtract, Multiply and Reshape in f32, and the
    Convert to f32 at the end dropped, so the release computes the weights the current OpenVINO uses. The weights
    stay as compressed as they were (no Const is added); other targets, and no target, are left as they are.

    Not every reader is computed from the f32 product by the current OpenVINO (``_split_readers``): where the Convert
    to f32 is a decompression layer read by a layer other than a MatMul or a Gather, only its Gathers are, the
    others from the f16 one, as the file says. Then, for a target before 2024.1, only the Gathers read an f32 copy of
    the chain (the same Consts); for a target that computes the others in f32 (2024.1 to 2025.0:
    ``F32_DECOMPRESSION_READERS``) they read the chain's output rounded to f16 and back, by two Converts (exact on
    every release measured, 2023.0 to 2026.4)."""

    repairs_weights = "computes the chain as the current OpenVINO does"

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer, chain, in_f32, in_f16 in self._chains(graph):
            origin = origin_text(layer, "f16 weight decompression")
            if in_f16:
                rounded = _converted(builder, graph, output_of(layer), layer, origin, "f16")
                _read_by(graph, in_f16, _converted(builder, graph, rounded, layer, origin))
                stats["f16 weight decompression read in f16 -> rounded by Convert-1"] += 1
            if in_f32 is None:
                _in_f32(builder, graph, chain, layer, origin)
                _drop(graph, layer, chain, origin)
            elif in_f32:
                _read_by(graph, in_f32, _f32_copy(builder, graph, chain, layer, origin))
            if in_f32 != []:
                stats["f16 weight decompression -> f32"] += 1
        return PassResult(graph, bool(stats), stats)

    def unrepaired(self, graph: Graph) -> Iterator[tuple[Layer, str]]:
        for layer, _, in_f32, in_f16 in self._chains(graph):
            if in_f32 != []:
                yield layer, ("may compute this f16 weight decompression (NNCF's integer weights, zero point and "
                              "scale) in f16, where the current OpenVINO computes it in f32 (measured: logits up to "
                              "5.7e-4 of their largest away)")
            if in_f16:
                yield layer, (f"may compute this f16 weight decompression in f32 for {len(in_f16)} reader(s) the "
                              "current OpenVINO computes from it in f16, as the file says (its Convert is a "
                              "decompression layer read by other than a MatMul or a Gather; measured: OPT's logits "
                              "2.1e-4 of their largest away)")

    def _chains(self, graph: Graph) -> Iterator[tuple[Layer, Output, list[Edge] | None, list[Edge]]]:
        """Each Convert to f32 ending an f16 decompression chain whose readers the target may compute otherwise than
        the current OpenVINO, the chain's output, the readers to read it in f32 (None: all, the chain made f32 in
        place), and those to read it rounded to f16 (``_split_readers``); a snapshot: ``apply`` removes a Convert
        read by all in f32."""
        target = self.target
        if target is None or not (target.decompresses_in_f16 or target.widens_decompression_readers):
            return
        for layer in list(graph.by_type("Convert")):
            if graph.has_layer(layer.id) and _to_f32(layer):
                chain = source(graph, layer, 0)
                if not _is_decompression(graph, chain, multiplied=False):
                    continue
                split = _split_readers(graph, layer)
                if split is None:
                    if target.decompresses_in_f16:
                        yield layer, chain, None, []
                    continue
                in_f32 = split[0] if target.decompresses_in_f16 else []
                in_f16 = split[1] if target.widens_decompression_readers else []
                if in_f32 or in_f16:
                    yield layer, chain, in_f32, in_f16


def _to_f32(layer: Layer) -> bool:
    return layer.attrs.get("destination_type", "").lower() == "f32"


def _split_readers(graph: Graph, convert: Layer) -> tuple[list[Edge], list[Edge]] | None:
    """How the current OpenVINO CPU computes the readers of a decompression chain's Convert to f32: None where all
    from the f32 product, as the MatMul and Gather of its compressed weights do; else its Gathers so, and every
    other reader from the f16 product, as the file says, but those that read the same either way (a ShapeOf, a
    Convert to f16: the rounding ``apply`` adds). Not None where the Convert is a decompression layer
    (``read_as_decompression``) read by a layer other than a MatMul or a Gather (measured on 2026.4: u8 and grouped u4
    chains, a MatMul reading either input, Gather on either axis, and 19 other kinds, among them ShapeOf, Add, Concat,
    Multiply, Transpose, Reshape, Slice, Softmax, Select, Split) but a Transpose the CPU folds into the MatMuls that
    alone read it (``_folded_into_matmuls``: measured, those MatMuls read the f32 product)."""
    readers = graph.consumers(convert.id, convert.output_ids()[0])
    kinds = [graph.layer(edge.to_layer) for edge in readers]
    if not read_as_decompression(graph, convert) or all(
            k.is_a("MatMul") or k.is_a("Gather") or _folded_into_matmuls(graph, k) for k in kinds):
        return None
    alike = [k.is_a("ShapeOf") or k.is_a("Convert") and k.attrs.get("destination_type", "").lower() == "f16"
             for k in kinds]
    return ([edge for edge, k in zip(readers, kinds, strict=True) if k.is_a("Gather")],
            [edge for edge, k, same in zip(readers, kinds, alike, strict=True) if not (k.is_a("Gather") or same)])


def _folded_into_matmuls(graph: Graph, layer: Layer) -> bool:
    """Whether ``layer`` is a Transpose that OpenVINO's ``TransposeMatMul`` folds into a transpose flag of each MatMul
    reading it (a Const order swapping the last two of at least two axes) and that MatMuls alone read: the CPU does it
    before it looks at a decompression chain's readers, which are then those MatMuls. (With another reader the
    Transpose stays, a reader of the chain: the chain's readers are split, the MatMuls among the f16 ones.)"""
    if not layer.is_a("Transpose"):
        return False
    order = graph.layer(source(graph, layer, 1)[0])
    if not order.is_a("Const"):
        return False
    axes = graph.const_array(order).ravel().tolist()
    swapped = [*range(len(axes) - 2), len(axes) - 1, len(axes) - 2]
    readers = graph.consumers(layer.id, layer.output_ids()[0])
    return len(axes) >= 2 and axes == swapped and bool(readers) and all(
        graph.layer(edge.to_layer).is_a("MatMul") for edge in readers)


def _read_by(graph: Graph, readers: list[Edge], out: Output) -> None:
    """Make ``readers`` read ``out``."""
    for edge in readers:
        graph.remove_edge(edge)
        graph.add_edge(Edge(*out, edge.to_layer, edge.to_port))


def _element(graph: Graph, out: Output) -> str:
    record = graph.layer(out[0]).output_record(out[1])  # (a record: no Port objects for the layers only looked at)
    et = element_type(record[1] or "") if record else None
    return et.name if et else ""


def _is_decompression(graph: Graph, out: Output, multiplied: bool) -> bool:
    """Whether ``out`` is an f16 value computed from Consts only by Convert (of an integer Const of at most 8 bits),
    Subtract, Multiply and Reshape (its shape input aside), with a Multiply on the way (``multiplied``: one was
    seen above), each layer of it read by the next alone."""
    layer = graph.layer(out[0])
    kind = layer.type.lower()
    if kind not in _CHAIN or _element(graph, out) != "f16" or \
            sum(link[1] == out[1] for link in graph.out_links(out[0])) != 1:  # (its readers, on links: no Edge objects)
        return False
    if kind == "convert":
        weights = graph.layer(source(graph, layer, 0)[0])
        et = element_type(weights.attrs.get("element_type", ""))
        return (multiplied and weights.is_a("Const") and et is not None and et.name in INTEGER_TYPES
                and et.bits <= 8)
    multiplied = multiplied or kind == "multiply"
    return all(graph.layer(i[0]).is_a("Const") and _element(graph, i) == "f16" and multiplied
               or _is_decompression(graph, i, multiplied) for i in _values(graph, layer))


def _operands(layer: Layer) -> tuple[int, ...]:
    """The inputs of a chain's layer that it computes from: a Convert's or Reshape's data input (a Reshape's shape
    aside), a Subtract's or Multiply's two operands."""
    return (0,) if layer.type.lower() in ("convert", "reshape") else (0, 1)


def _values(graph: Graph, layer: Layer) -> list[Output]:
    """The outputs feeding a chain's layer's ``_operands``."""
    return [source(graph, layer, i) for i in _operands(layer)]


def _in_f32(builder: GraphBuilder, graph: Graph, out: Output, replaced: Layer, origin: str) -> None:
    """The chain ending at ``out`` made f32 in place: an integer Convert converts to f32, an f16 Const operand is read
    through a Convert to f32 (which records ``replaced``'s origin and line, as a layer built in its place), and every
    layer's operands and output are f32."""
    layer = graph.layer(out[0])
    if layer.type.lower() == "convert":  # of the integer weights: to f32 at once
        layer.attrs = {**layer.attrs, "destination_type": "f32"}
    else:
        for i, value in zip(_operands(layer), _values(graph, layer), strict=True):
            layer.inputs[i].precision = "FP32"
            if not graph.layer(value[0]).is_a("Const"):
                _in_f32(builder, graph, value, replaced, origin)
                continue
            port = layer.input_ids()[i]
            graph.remove_edge(Edge(value[0], value[1], layer.id, port))
            graph.add_edge(Edge(*_converted(builder, graph, value, replaced, origin), layer.id, port))
    layer.outputs[0].precision = "FP32"
    layer.rt_info = with_origin(layer.rt_info, origin)
    graph.touch(layer.id)


def _f32_copy(builder: GraphBuilder, graph: Graph, out: Output, replaced: Layer, origin: str) -> Output:
    """A copy of the chain ending at ``out`` as ``_in_f32`` makes it f32, reading the same Consts (its new layers
    record ``replaced``'s origin and line); returns its output."""
    layer = graph.layer(out[0])
    inputs = [source(graph, layer, i) for i in range(len(layer.input_ids()))]
    attrs = dict(layer.attrs)
    if layer.type.lower() == "convert":  # of the integer weights: to f32 at once
        attrs["destination_type"] = "f32"
    else:
        for i in _operands(layer):
            copy = _converted if graph.layer(inputs[i][0]).is_a("Const") else _f32_copy
            inputs[i] = copy(builder, graph, inputs[i], replaced, origin)
    return _built(builder.add(layer.type, layer.version, attrs, inputs, f"{layer.name}/f32"), replaced, origin)


def _converted(builder: GraphBuilder, graph: Graph, value: Output, replaced: Layer, origin: str,
               element: str = "f32") -> Output:
    """``value`` read through a new Convert to ``element``."""
    return _built(builder.convert(value, element, f"{graph.layer(value[0]).name}/{element}"), replaced, origin)


def _built(layer: Layer, replaced: Layer, origin: str) -> Output:
    """``layer``'s output, the layer recording ``replaced``'s origin and line, as a layer built in its place."""
    layer.rt_info = with_origin(layer.rt_info, origin)
    layer.file, layer.line = replaced.file, replaced.line
    return output_of(layer)


def _drop(graph: Graph, convert: Layer, chain: Output, origin: str) -> None:
    """Remove the Convert to f32 that ended the chain, an f32 one now: what it fed reads the chain, whose output takes
    its tensor names and rt_info, and whose layer its rt_info (as ``GraphBuilder.replace_layer`` hands them over)."""
    final = graph.layer(chain[0])
    old, new = convert.outputs[0], final.output(chain[1])
    new.names, new.rt_info = old.names, old.rt_info
    final.rt_info = with_origin(convert.rt_info, origin)
    graph.redirect_consumers((convert.id, old.id), chain)
    graph.remove_layer(convert.id)


def _i4_zero_point(graph: Graph, layer: Layer) -> bool:
    """True for the Convert of an i4 zero point: a Convert-1 of an i4 Const that a Subtract takes as input 1 from the
    Convert of i4 weights (NNCF's decompression of i4 weights less an i4 zero point, which 2024.0 to 2025.3 compute
    wrong: ``ops/releases.DEFECTS``)."""
    if not _of_i4(graph, layer):
        return False
    for edge in graph.consumers(layer.id, layer.output_ids()[0]):
        reader = graph.layer(edge.to_layer)
        if reader.is_a("Subtract") and edge.to_port == reader.input_ids()[1]:
            weights = graph.layer(source(graph, reader, 0)[0])
            if weights.is_a("Convert") and _of_i4(graph, weights):
                return True
    return False


def _of_i4(graph: Graph, convert: Layer) -> bool:
    """Whether ``convert`` converts an i4 Const."""
    const = graph.layer(source(graph, convert, 0)[0])
    return const.is_a("Const") and const.attrs.get("element_type", "").lower() == "i4"


class I4ZeroPoint(Downgrade):
    """For a release that computes i4 weights less an i4 zero point wrong (measured: 2024.0 to 2025.3, up to twice
    the largest output away; an i8 zero point of the same values, or an f16 one, right on each), the zero point is an
    i8 Const of the same values, converted as it was: exactly the same numbers, two bytes each for a group's zero
    point where it was one."""

    rewrites = {"Convert-1": "with its i4 zero point as an i8 Const of the same values"}
    repairs = {"i4_zero_point_wrong": _i4_zero_point}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        if self.target is None or "i4_zero_point_wrong" not in self.target.miscomputes:
            return PassResult(graph, False, stats)
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            zero = graph.layer(source(graph, layer, 0)[0])
            wider = builder.const(graph.const_array(zero).astype(np.int8), f"{zero.name}/i8")
            graph.layer(wider[0]).rt_info = with_origin((), origin_text(zero, "an i4 zero point"))
            feed(graph, layer, 0, wider)
            drop_unused(graph, [zero])
            graph.touch(layer.id)
            stats["i4 zero point -> i8 Const of the same values"] += 1
        return PassResult(graph, bool(stats), stats)


def _one_channel(graph: Graph, layer: Layer) -> bool:
    """Whether the Convert ``layer`` is a decompression layer (``read_as_decompression``) of f16 weights of one output
    channel (a Const [1, K] read with transpose_b, or [K, 1] without) that a MatMul reads as its second input, in a
    graph holding a ReadValue and a ScaledDotProductAttention: what a release of ``one_channel_decompression_fails``
    fails to run (the probe's model; without the state or the attention it runs, measured on 2025.0)."""
    if not read_as_decompression(graph, layer):
        return False
    weights = graph.layer(source(graph, layer, 0)[0])
    shape = declared_type(weights.outputs[0]).shape if weights.outputs else None
    if not weights.is_a("Const") or weights.attrs.get("element_type", "").lower() != "f16" or shape is None \
            or len(shape) != 2:
        return False
    for edge in graph.consumers(layer.id, layer.output_ids()[0]):
        reader = graph.layer(edge.to_layer)
        if reader.is_a("MatMul") and edge.to_port == reader.input_ids()[1]:
            channels = shape[0] if A.flag(reader.attrs, "transpose_b", False) else shape[1]
            if channels.is_static and channels.lo == 1:
                return bool(graph.of_types(["readvalue"])) and bool(graph.of_types(["scaleddotproductattention"]))
    return False


class OneChannelDecompression(Downgrade):
    """For a release that fails to run a MatMul of f16 weights of one output channel behind a decompression Convert
    in a model with a KV-cache attention (measured: 2024.2 to 2025.1, "could not create a primitive descriptor for an
    inner product", fed 5 rows or more at f32; Qwen2-MoE's shared expert gate), the Convert loses its decompression
    mark: OpenVINO then folds it into an f32 Const, the same numbers (f16 into f32 is exact), K values more."""

    rewrites = {"Convert-1": "of f16 weights of one output channel into a MatMul, its decompression mark dropped (the "
                             "Convert folded)"}
    repairs = {"one_channel_decompression_fails": _one_channel}

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        if self.target is None or "one_channel_decompression_fails" not in self.target.miscomputes:
            return PassResult(graph, False, stats)
        for layer in self.layers(graph):
            kept = tuple(node for node in layer.rt_info if not decompression_mark(node))
            layer.rt_info = with_origin(kept, origin_text(layer, "a decompression Convert"))
            graph.touch(layer.id)
            stats["f16 decompression of one output channel -> folded Convert-1"] += 1
        return PassResult(graph, bool(stats), stats)
