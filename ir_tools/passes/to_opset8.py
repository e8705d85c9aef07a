"""to-opset8: every AvgPool form becomes opset8 AvgPool (AvgPool-1 semantics) with identical output.

Runtimes older than 2024 cannot read AvgPool-14/16; OpenVINO's own downgrade maps ceil_torch to
ceil (one window too many) and pads include-pad layers symmetrically (wrong for asymmetric pads).
This pass rewrites exactly, by OpenVINO's rules (docs/SEMANTICS.md sections 2, 3 and 6):

1. AvgPool-1 (opset1..opset13): ``version="opset8"`` and an explicit rounding_type. With static
   spatial dims, auto_pad same_*/valid is resolved into explicit pads; with dynamic ones auto_pad
   stays (opset8 has it). A layer already in that form is left alone.
2. AvgPool-14 (opset14/15) and AvgPool-16 without dilations, with rounding floor or ceil: the
   same meaning as AvgPool-1, so rule 1.
3. ceil_torch or any dilation on static spatial dims: the layer is described as a WindowSpec (its windows and
   OpenVINO's divisor rule, ``openvino_counts``: a window with no data tap divided by OpenVINO CPU's own count,
   NaN, -0.0 or +0.0) and realised by ``exact_pool.emit``: plain ceil when no window is
   dropped, floor with ``pads_end = (out - 1)*S + K - L - pb`` when one is, a Pad layer where the
   divisor rule would otherwise change. What emit refuses is refused at the layer's line.
4. ceil_torch on dynamic spatial dims: ceil and ceil_torch differ periodically in the length L
   (period S once the kernel fits), so checking every admissible length up to one period past
   the kernel proves them equal for all lengths in the dim's range; then it is plain ceil (rule
   1). Otherwise UnsupportedError naming the layer and a length where they differ.
5. AvgPool-16 with dilations: on static spatial dims rule 3 (emit decomposes a dilated window
   sum exactly: a StridedSlice per tap of the zero-padded input, added in OpenVINO's order, divided by each
   window's count inside an AvgPool-1). On dynamic
   ones, where every window lies whole in the data at every length (no pads, and the rounding
   gives floor's windows: proved on one period, as rule 4), ``exact_pool.emit_dilated_floor``
   (f32: the same sums, divided by an AvgPool-1); where
   only kernel-1 axes are dilated, rule 2 (a dilation there means nothing when no window is
   empty: OpenVINO CPU's count of a window past the data, NaN or -0.0, depends on it). Otherwise
   UnsupportedError saying why (pads; a last window partial or past the
   data at some length, whose divisor varies with the length).
6. Every changed or new layer records its origin in rt_info (``ir_tools_origin``); the final
   layer keeps the original layer's name, output tensor names and rt_info, consumers are
   redirected to it and the original layer is removed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ..base.dims import DYNAMIC
from ..base.errors import IrToolsError, UnsupportedError
from ..ir.model import Graph, Layer
from ..ops import attrs as A
from ..ops.opsets import lookup
from ..ops.pool_geometry import counts_padding, out_length, window_counts, windows_differ
from ..ops.pooling import AvgPoolAttrs, geometry
from ..ops.spec import TensorType
from .base import Pass, PassError, PassManager, PassResult
from .builder import GraphBuilder, Output, origin_text, with_origin
from .exact_pool import WindowSpec, emit, emit_dilated_floor
from .in_bodies import InBodies
from .legacy import LowerLegacy, is_legacy
from .shapes import declared_type, propagate
from .validate import last_passed

TARGET = "opset8"


class ToOpset8(Pass):
    """Rewrites every AvgPool of the graph into opset8 AvgPool (plus helpers where needed), exactly."""

    records_changes = True

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        pools = graph.by_type("AvgPool")
        if not pools:
            return PassResult(graph, False, stats)
        types = propagate(graph, last_passed(graph)).types
        builder = GraphBuilder(graph)
        for layer in pools:
            change = _rewrite(builder, layer, _input(graph, types, layer))
            if change:
                stats[change] += 1
        return PassResult(graph, bool(stats), stats)

    def ensures(self, graph: Graph) -> None:
        """Every AvgPool is opset8's."""
        left = [layer for layer in graph.by_type("AvgPool") if layer.version != TARGET]
        if left:
            raise PassError(f"{len(left)} AvgPool layer(s) were not migrated: {left[0].name}", left[0].loc)


to_opset8 = ToOpset8()


def migration(graph: Graph) -> PassManager:
    """The passes that migrate ``graph``: the legacy lowering first when it is legacy IR; then every average pooling
    into opset8 AvgPool, inside TensorIterator, Loop and If bodies too (``InBodies``)."""
    return PassManager([*([LowerLegacy()] if is_legacy(graph) else []), to_opset8, InBodies(lambda: [to_opset8])])


def _input(graph: Graph, types: dict[tuple[str, int], TensorType], layer: Layer) -> tuple[Output, TensorType]:
    if not layer.inputs:
        raise IrToolsError("AvgPool has no input port", layer.loc, code="E-ARITY")
    edges = graph.producers(layer.id, layer.inputs[0].id)
    if len(edges) != 1:
        raise IrToolsError(f"AvgPool input port {layer.inputs[0].id} has {len(edges)} producers, expected 1",
                           layer.loc, code="E-INPUT-UNFED" if not edges else "E-INPUT-MULTI")
    source = (edges[0].from_layer, edges[0].from_port)
    return source, types.get(source, declared_type(layer.inputs[0]))


def _rewrite(builder: GraphBuilder, layer: Layer, source: tuple[Output, TensorType]) -> str | None:
    """Apply rules 1-6 to one AvgPool layer; returns a stats label, or None if it was already opset8."""
    spec = lookup(layer.type, layer.version)
    if spec is None:
        raise UnsupportedError(f"AvgPool version {layer.version!r} is unknown (opset1..opset16 exist)", layer.loc)
    a = A.decode(spec.attrs, layer.attrs, layer.loc)
    x, data = source
    try:
        geo = geometry(a, data, spec.label)
    except IrToolsError as exc:
        raise type(exc)(exc.message, layer.loc, exc.code) from None
    dilated_any = any(d != 1 for d in a.dilations_or_ones)
    dilated_taps = any(d != 1 and k != 1 for k, d in zip(a.kernel, a.dilations_or_ones, strict=True))
    lengths = None if geo.spatial is None else [d.lo if d.is_static else None for d in data.shape[2:]]
    static = lengths is not None and None not in lengths
    origin = origin_text(layer, spec.label)

    if static and (dilated_any or a.rounding_type == "ceil_torch"):
        window = WindowSpec(
            lengths=tuple(lengths), kernel=a.kernel, strides=a.strides, dilations=a.dilations_or_ones,
            pads_begin=geo.pads_begin, out=tuple(d.lo for d in geo.spatial),
            count_all=counts_padding(geo.pads_begin, geo.pads_end, a.exclude_pad),
            count_lo=(0,) * len(a.kernel), count_hi=tuple(lengths), prefer_pads_end=geo.pads_end,
            prefer_rounding="ceil" if a.rounding_type == "ceil_torch" else a.rounding_type, openvino_counts=True)
        return _replace(builder, layer, lambda: emit(builder, x, window, layer.name), origin, spec.label)
    if dilated_any:
        why = _not_whole(a, data, dilated_taps)
        if why is None and dilated_taps:
            return _replace(builder, layer, lambda: emit_dilated_floor(
                builder, x, a.kernel, a.strides, a.dilations_or_ones, declared_type(layer.outputs[0]), layer.name),
                origin, f"{spec.label} ({a.rounding_type}, dilated, dynamic)")
        if why is not None and (dilated_taps or a.rounding_type == "ceil"):
            raise UnsupportedError(
                f"{spec.label} with dilations {list(a.dilations_or_ones)} on dynamic spatial dims (input "
                f"{_show(data)}): ir_tools knows no opset8 form of it that holds at every length: {why}; give the "
                "input static spatial dims", layer.loc)

    rounding = a.rounding_type
    if rounding == "ceil_torch":
        _prove_ceil(layer, a, data, spec.label)
        rounding = "ceil"
    explicit = static and a.auto_pad != "explicit"
    new = AvgPoolAttrs(
        a.kernel, a.strides,
        geo.pads_begin if explicit else a.pads_begin,
        geo.pads_end if explicit else a.pads_end,
        a.exclude_pad, "explicit" if explicit else a.auto_pad, rounding)
    attrs = A.encode(new)
    if layer.version == TARGET and attrs == layer.attrs:
        return None
    layer.version, layer.attrs = TARGET, attrs
    layer.rt_info = with_origin(layer.rt_info, origin)
    builder.graph.touch(layer.id)
    return f"{spec.label} -> AvgPool-1 (opset8)"


def _replace(builder: GraphBuilder, layer: Layer, build: Callable[[], Output], origin: str, label: str) -> str:
    """Rules 3 and 5: put what ``build`` emits in the layer's place; the stats label names what it is made of. What
    ``build`` refuses is refused at the layer's line."""
    try:
        new = builder.replace_layer(layer, lambda: [build()], origin)
    except IrToolsError as exc:
        if exc.loc.file is not None:
            raise
        raise type(exc)(exc.message.removeprefix(f"'{layer.name}': "), layer.loc, exc.code) from None
    made = "+".join(sorted({lay.type for lay in new if not lay.is_a("Const")}))
    return f"{label} -> {made} (opset8)"


def _prove_ceil(layer: Layer, a: AvgPoolAttrs, data: TensorType, label: str) -> None:
    """Rule 4: raise unless ceil_torch gives as many windows as ceil for every length of every axis."""
    dims = data.shape[2:] if data.shape is not None else (DYNAMIC,) * len(a.kernel)
    for i, dim in enumerate(dims):
        length = windows_differ(dim, a.kernel[i], a.strides[i], 1, a.pads_begin[i], a.pads_end[i], a.auto_pad)
        if length is not None:
            where = f"on spatial axis {i}, whose length is {dim}," if dim.is_static else \
                f"on dynamic spatial axis {i}, at length {length},"
            raise UnsupportedError(
                f"{label} rounding_type ceil_torch has no opset8 form here: {where} it has one window fewer than "
                "ceil, and with dynamic spatial dims no one window spec holds at every length; give the input static "
                "spatial dims", layer.loc)


def _not_whole(a: AvgPoolAttrs, data: TensorType, dilated_taps: bool) -> str | None:
    """Rule 5 on dynamic spatial dims: None where every window lies whole in the data at every length (no pads, and
    the rounding gives floor's windows), and an f32 input where taps are dilated (``emit_dilated_floor``); else why
    not, in the words of the refusal."""
    if data.shape is None:
        return "the input's rank is dynamic"
    if a.auto_pad in ("same_upper", "same_lower") or (a.auto_pad == "explicit" and any(a.pads_begin + a.pads_end)):
        return (f"it pads ({a.auto_pad}, pads {list(a.pads_begin)}/{list(a.pads_end)}), and ir_tools' dilated form "
                "for every length takes no pads")
    for i, dim in enumerate(data.shape[2:]):
        k, s, d = a.kernel[i], a.strides[i], a.dilations_or_ones[i]
        n = windows_differ(dim, k, s, d, 0, 0, a.auto_pad, a.rounding_type, "floor")
        if n is None:
            continue
        last = (out_length(n, k, s, d, 0, 0, a.rounding_type) - 1) * s
        taps = int(window_counts(n, k, s, d, -last, 1)[0])
        where = f"on spatial axis {i} ({dim}), at length {n}, {a.rounding_type} rounding adds a last window"
        if taps == 0:
            return f"{where} past the data (OpenVINO CPU gives it NaN or -0 by where it starts)"
        return (f"{where} holding {taps} of its {k} taps and divided by that count, which varies with the length; "
                "OpenVINO CPU divides by a count exactly only inside an AvgPool (its Divide multiplies by a rounded "
                "reciprocal), and AvgPool has no dilations before opset16")
    if dilated_taps and data.element != "f32":
        return f"ir_tools' dilated form for every length sums in f32, and the input is {data.element}"
    return None


def _show(t: TensorType) -> str:
    return "[...]" if t.shape is None else "[" + ",".join(str(d) for d in t.shape) + "]"
