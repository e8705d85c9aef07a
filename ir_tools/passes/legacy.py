"""Lowering legacy IR (v7 and older): each average ``Pooling`` becomes its exact opset8 form.

The ``LowerLegacy`` pass runs on a graph from ``ir.legacy.parse_legacy`` and replaces every legacy
Pooling through ``exact_pool.emit``; ``read_legacy_ir`` does both. ``legacy_window`` is the one
description of what a legacy Pooling computes, also used to evaluate one directly
(``runtime.legacy_reference``).

What a legacy Pooling means, as the Inference Engine that read these files computed it (sources
of openvinotoolkit/openvino, formerly dldt, 2019 R1 to 2020; paths as they were then):

- Attributes (``PoolingValidator::parseParams``, inference-engine/src/inference_engine/
  ie_layer_validators.cpp): spelling A ``kernel`` (required), ``strides`` (default 1),
  ``pads_begin`` (default 0), ``pads_end`` (default pads_begin), lists in spatial order;
  spelling B ``kernel-x``/``kernel-y`` (required, x is the last axis), ``stride-x``/``stride-y``
  (default 1, and 0 read as 1), ``pad-x``/``pad-y`` (default 0), ``pad-r``/``pad-b`` (default
  pad-x/pad-y). Both: ``exclude-pad`` default false, ``pool-method`` default max, ``auto_pad``
  default none. Spelling C (IR v1/v2) puts spelling B's attributes on a ``<pooling_data>``
  element instead of ``<data>``.
- Window count (``PoolingShapeProp``, inference-engine/src/inference_engine/shape_infer/
  built-in/ie_pool_shape_infer.hpp): ``rounding_type`` or ``rounding-type``, default **ceil**
  (Caffe's); after rounding, a last window that would start at or past ``L + pads_begin`` is
  dropped (``if ((O - 1)*S >= L + pb) --O``), so legacy ceil is today's ceil_torch.
  ``auto_pad="valid"``: no pads, floor; ``same_upper``: ceil(L/S) windows (floor rounding over
  OpenVINO's same_upper pads gives exactly that); ``same_lower`` (floor(L/S) windows there) is
  refused as unverifiable.
- Divisor (CPU plugin ``MKLDNNPoolingNode``, inference-engine/src/mkldnn_plugin/nodes/
  mkldnn_pooling_node.cpp, 2019): mkldnn's include-padding algorithm is used when exclude-pad is
  false and some pads_begin is non-zero; it counts the taps inside ``[-pb, L + pb)`` (the plugin
  resets the end padding to pads_begin "as Caffe does"). Otherwise only taps inside the data
  count. A window with no counted tap is NaN. (The 2021 plugin, built on ngraph's AvgPool,
  restores the declared pads_end instead.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..base.errors import AttrError, SourceLoc, UnsupportedError
from ..ir.legacy import parse_legacy
from ..ir.model import Graph, Layer
from ..ir.reader import IrVersionError
from ..ops import attrs as A
from ..ops.pool_geometry import out_length, same_pads
from .base import Pass, PassError, PassResult
from .builder import GraphBuilder, origin_text
from .exact_pool import WindowSpec, emit
from .validate import InvalidModelError, read_valid


@dataclass(frozen=True, slots=True)
class LegacyPooling:
    """A legacy Pooling layer's attributes with the Inference Engine's defaults applied (spatial order)."""

    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    exclude_pad: bool
    rounding: str  # floor or ceil
    auto_pad: str  # "", valid or same_upper


class LowerLegacy(Pass):
    """Replaces every legacy Pooling by its opset8 form; the graph becomes IR v11."""

    check_before = False

    def requires(self, graph: Graph) -> None:
        """A legacy graph (``ir.legacy.parse_legacy`` refuses what it cannot read exactly); ``check`` cannot
        judge one until it is lowered."""
        if not is_legacy(graph):
            raise PassError(f"{self.name} lowers legacy IR (v7 and older); this graph is IR v{graph.ir_version}",
                            SourceLoc(str(graph.source) if graph.source else None))

    def apply(self, graph: Graph) -> PassResult:
        builder = GraphBuilder(graph)
        stats: Counter[str] = Counter()
        for layer in graph.topological_order():
            if layer.type != "Pooling":
                continue
            x = graph.producer_key(layer.id, layer.inputs[0].id)
            dims = builder.type_of(x).shape
            window = legacy_window(layer, [d.lo for d in dims[2:]])
            origin = origin_text(layer, f"Pooling (IR v{graph.ir_version})")
            new = builder.replace_layer(layer, lambda: [emit(builder, x, window, layer.name)], origin)  # noqa: B023
            made = "+".join(sorted({lay.type for lay in new if not lay.is_a("Const")}))
            stats[f"Pooling (legacy) -> {made} (opset8)"] += 1
        graph.ir_version = 11
        return PassResult(graph, True, stats)


lower_legacy = LowerLegacy()


def is_legacy(graph: Graph) -> bool:
    """True for a graph of legacy IR (v7 and older), which only ``LowerLegacy`` makes current."""
    return graph.ir_version < 10


def read_migratable(xml_path: str | Path, bin_path: str | Path | None = None,
                    read: Callable[[Path, Path | None], Graph] = read_valid) -> Graph:
    """An IR file as a graph to migrate: IR v10/v11 read and validated by ``read`` (InvalidModelError), legacy IR
    (v7 and older) parsed as it is, for ``LowerLegacy``."""
    try:
        return read(Path(xml_path), Path(bin_path) if bin_path else None)
    except InvalidModelError as exc:
        if not any(d.code == IrVersionError.code for d in exc.diagnostics):
            raise
    return parse_legacy(xml_path)


def read_legacy_ir(xml_path: str | Path) -> Graph:
    """A legacy IR file as an IR v11 Graph with opset8 AvgPool."""
    return lower_legacy(parse_legacy(xml_path)).graph


def legacy_pooling(layer: Layer) -> LegacyPooling:
    """The attributes of a legacy Pooling layer, in any of the three spellings, with IE's defaults."""
    raw = layer.attrs
    # (blanks around a value taken, as before: no release with wheels reads IR v7, so none was measured)
    rounding, exclude = (lambda text, parse=parse: parse(text.strip()) for parse in (A.enum("floor", "ceil").parse,
                                                                                     A.BOOL.parse))
    try:
        common = (exclude(raw.get("exclude-pad", "false")),
                  rounding(raw.get("rounding_type", raw.get("rounding-type", "ceil"))),
                  raw.get("auto_pad", "").strip().lower())
        if "kernel" in raw:
            kernel = A.UINT_LIST.parse(raw["kernel"])
            ones, zeros = (1,) * len(kernel), (0,) * len(kernel)
            strides = A.UINT_LIST.parse(raw["strides"]) if "strides" in raw else ones
            begin = A.UINT_LIST.parse(raw["pads_begin"]) if "pads_begin" in raw else zeros
            end = A.UINT_LIST.parse(raw["pads_end"]) if "pads_end" in raw else begin
        else:
            def get(key: str, default: int | None = None) -> int:
                if key not in raw and default is None:
                    raise AttrError(f"missing attribute '{key}' (legacy Pooling needs 'kernel' or kernel-x/kernel-y)",
                                    layer.loc)
                if key not in raw:
                    return default
                (value,) = A.UINT_LIST.parse(raw[key])
                return value

            kernel = (get("kernel-y"), get("kernel-x"))
            strides = (get("stride-y", 1) or 1, get("stride-x", 1) or 1)
            begin = (get("pad-y", 0), get("pad-x", 0))
            end = (get("pad-b", begin[0]), get("pad-r", begin[1]))
    except ValueError as exc:
        raise AttrError(f"bad legacy Pooling attribute: {exc}", layer.loc) from None
    n = len(kernel)
    if not (len(strides) == len(begin) == len(end) == n) or not 1 <= n <= 3:
        raise AttrError(f"kernel {list(kernel)}, strides {list(strides)}, pads {list(begin)}/{list(end)} do not "
                        "describe 1 to 3 spatial axes", layer.loc)
    if any(s == 0 for s in strides) or any(k == 0 for k in kernel):
        raise AttrError(f"kernel {list(kernel)} and strides {list(strides)} must be positive", layer.loc)
    if common[2] not in ("", "explicit", "valid", "same_upper"):
        raise UnsupportedError(f"legacy auto_pad '{common[2]}' is not supported (valid and same_upper are)", layer.loc)
    return LegacyPooling(kernel, strides, begin, end, *common)


def legacy_window(layer: Layer, lengths: Sequence[int]) -> WindowSpec:
    """What a legacy average Pooling computes on inputs of these spatial lengths (see the module doc)."""
    p = legacy_pooling(layer)
    if len(lengths) != len(p.kernel):
        raise UnsupportedError(f"a {len(p.kernel)}-D kernel on an input with {len(lengths)} spatial axes", layer.loc)
    pb, pe, out = [], [], []
    for n, k, s, b, e in zip(lengths, p.kernel, p.strides, p.pads_begin, p.pads_end, strict=True):
        if p.auto_pad == "valid":
            b = e = 0
        elif p.auto_pad == "same_upper":
            b, e = same_pads(n, k, s, 1, True)
        if n + b + e < k:
            raise UnsupportedError(f"kernel {k} is larger than the padded input {n + b + e}", layer.loc)
        o = out_length(n, k, s, 1, b, e, p.rounding if p.auto_pad in ("", "explicit") else "floor")
        if p.auto_pad in ("", "explicit") and (o - 1) * s >= n + b:
            o -= 1  # Caffe's rule: no window starts in the end padding
        pb.append(b)
        pe.append(e)
        out.append(o)
    include = not p.exclude_pad and any(pb)
    return WindowSpec(
        lengths=tuple(lengths), kernel=p.kernel, strides=p.strides, dilations=(1,) * len(p.kernel),
        pads_begin=tuple(pb), out=tuple(out), count_all=False,
        count_lo=tuple(-b for b in pb) if include else (0,) * len(pb),
        count_hi=tuple(n + b for n, b in zip(lengths, pb, strict=True)) if include else tuple(lengths),
        prefer_pads_end=tuple(pe), prefer_rounding=p.rounding if p.auto_pad in ("", "explicit") else "floor")


