"""Legacy IR (v7 and older): average Pooling networks read into IR v11 with opset8 AvgPool.

OpenVINO 2022+ cannot read these files at all. ``parse_legacy`` turns one into a Graph that keeps
each legacy ``Pooling`` layer as it is (``Input`` becomes a Parameter, every unconsumed output gets
a Result); ``lower_legacy`` then replaces each Pooling by its exact opset8 form through
``exact_pool.emit``; ``read_legacy_ir`` does both. ``LegacyReference`` runs the parsed graph with
the numpy executor, Pooling evaluated from its WindowSpec, so a migration can be checked without
the old runtime.

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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from lxml import etree

from ..dtypes import element_type
from ..errors import AttrError, ReadError, SourceLoc, UnsupportedError
from ..ops import attrs as A
from ..ops.pool_geometry import out_length, same_pads
from ..passes.base import PassResult
from ..passes.exact_pool import WindowSpec, emit, reference
from ..passes.to_opset8 import origin_text, with_origin
from ..runtime.executor import Interpreter
from .builder import GraphBuilder
from .model import Edge, Graph, Layer, Port
from .reader import parse_xml

LEGACY_MAX_VERSION = 7


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


def parse_legacy(xml_path: str | Path) -> Graph:
    """Read a legacy IR file: Input -> Parameter, Pooling kept as is, Results added; other types refused."""
    xml_path = Path(xml_path)
    file = str(xml_path)
    root = parse_xml(xml_path).getroot()
    if root.tag != "net":
        raise ReadError(f"root element is <{root.tag}>, expected <net>", SourceLoc(file, root.sourceline))
    try:
        version = int(root.get("version", ""))
    except ValueError:
        raise ReadError(f"<net version> must be an integer, got '{root.get('version')}'",
                        SourceLoc(file, root.sourceline)) from None
    if version > LEGACY_MAX_VERSION:
        raise ReadError(f"IR version {version} is not legacy IR (v{LEGACY_MAX_VERSION} or older)",
                        SourceLoc(file, root.sourceline))
    for el in root.iter("pre-process"):
        raise UnsupportedError("<pre-process> (input mean/scale) is not supported by the legacy reader",
                               SourceLoc(file, el.sourceline))
    graph = Graph(root.get("name", "model"), version)
    graph.source = xml_path
    refused = []
    for el in root.iterfind("layers/layer"):
        layer = _layer(el, file)
        graph.add_layer(layer)
        if not _supported(layer):
            method = f" pool-method={layer.attrs.get('pool-method', 'max')}" if layer.type == "Pooling" else ""
            refused.append(f"'{layer.name}' ({layer.type}{method}, line {layer.line})")
    if refused:
        raise UnsupportedError(f"legacy IR: {len(refused)} layer(s) have no conversion (only Input and average "
                               f"Pooling do): {', '.join(refused)}", SourceLoc(file, root.sourceline))
    for el in root.iterfind("edges/edge"):
        try:
            edge = Edge(el.get("from-layer", ""), int(el.get("from-port", "")), el.get("to-layer", ""),
                        int(el.get("to-port", "")), el.sourceline)
        except ValueError:
            raise ReadError(f"<edge> needs integer ports: {dict(el.attrib)}", SourceLoc(file, el.sourceline)) from None
        for lid in (edge.from_layer, edge.to_layer):
            if not graph.has_layer(lid):
                raise ReadError(f"edge refers to missing layer {lid}", SourceLoc(file, el.sourceline))
        graph.add_edge(edge)
    cycle = graph.find_cycle()
    if cycle:
        raise ReadError(f"the layers form a cycle through ids {', '.join(cycle)}", SourceLoc(file, root.sourceline))
    builder = GraphBuilder(graph)
    for layer in list(graph.layers()):
        for port in layer.outputs:
            if not graph.consumers(layer.id, port.id):
                builder.result((layer.id, port.id), f"{port.names}/sink")
    return graph


def lower_legacy(graph: Graph) -> PassResult:
    """Replace every legacy Pooling by its opset8 form; the graph becomes IR v11."""
    builder = GraphBuilder(graph)
    stats: Counter[str] = Counter()
    for layer in graph.topological_order():
        if layer.type != "Pooling":
            continue
        edge = graph.producers(layer.id, layer.inputs[0].id)[0]
        x = (edge.from_layer, edge.from_port)
        dims = builder.type_of(x).shape
        window = legacy_window(layer, [d.lo for d in dims[2:]])
        before = {lay.id for lay in graph.layers()}
        out = emit(builder, x, window, layer.name)
        origin = origin_text(layer, f"Pooling (IR v{graph.ir_version})")
        for new in graph.layers():
            if new.id not in before:
                new.rt_info = with_origin(new.rt_info, origin)
                new.file, new.line = layer.file, layer.line
        graph.layer(out[0]).output(out[1]).names = layer.outputs[0].names
        graph.redirect_consumers((layer.id, layer.outputs[0].id), out)
        graph.remove_layer(layer.id)
        made = "+".join(sorted({lay.type for lay in graph.layers() if lay.id not in before and lay.type != "Const"}))
        stats[f"Pooling (legacy) -> {made} (opset8)"] += 1
    graph.ir_version = 11
    return PassResult(graph, bool(stats), stats)


def read_legacy_ir(xml_path: str | Path) -> Graph:
    """A legacy IR file as an IR v11 Graph with opset8 AvgPool."""
    return lower_legacy(parse_legacy(xml_path)).graph


def legacy_pooling(layer: Layer) -> LegacyPooling:
    """The attributes of a legacy Pooling layer, in any of the three spellings, with IE's defaults."""
    raw = layer.attrs
    rounding = A.enum("floor", "ceil").parse
    exclude = A.BOOL.parse
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


class LegacyReference(Interpreter):
    """The numpy executor over a parsed legacy graph: Pooling is evaluated from its WindowSpec."""

    def __init__(self, graph: Graph):
        # the base class refuses layer types it has no kernel for; Pooling is handled below
        self.graph = graph
        self.order = graph.topological_order()

    def run_layer(self, layer: Layer, args: list[np.ndarray]) -> list[np.ndarray]:
        if layer.type == "Pooling":
            return [reference(args[0], legacy_window(layer, args[0].shape[2:]))]
        return super().run_layer(layer, args)


def _supported(layer: Layer) -> bool:
    return layer.type == "Parameter" or (layer.type == "Pooling" and layer.attrs.get("pool-method") == "avg")


def _layer(el: etree._Element, file: str) -> Layer:
    """One legacy <layer>: Input becomes a Parameter; attributes of <data> or <pooling_data> are kept."""
    lid, name, kind = el.get("id", ""), el.get("name", ""), el.get("type", "")
    if not lid or not kind:
        raise ReadError("<layer> needs 'id' and 'type' attributes", SourceLoc(file, el.sourceline))
    layer = Layer(lid, name, kind, None, file=file, line=el.sourceline)
    precision = el.get("precision", "FP32")
    for child in el:
        if child.tag in ("data", "pooling_data"):
            layer.attrs.update(child.attrib)
        elif child.tag in ("input", "output"):
            ports = [_port(p, precision, file) for p in child if p.tag == "port"]
            if child.tag == "input":
                layer.inputs = ports
            else:
                layer.outputs = ports
                for port in ports:
                    port.names = name if len(ports) == 1 else f"{name}.{port.id}"
    if kind == "Input":
        port = layer.outputs[0] if len(layer.outputs) == 1 else None
        et = element_type(port.precision) if port else None
        if port is None or et is None or any(d < 1 for d in port.dims):
            raise ReadError("an Input layer needs one output port with a known precision and positive dims",
                            SourceLoc(file, el.sourceline))
        layer.type, layer.version = "Parameter", "opset1"
        layer.attrs = {"shape": ",".join(map(str, port.dims)), "element_type": et.name}
    elif kind == "Pooling" and (len(layer.inputs) != 1 or len(layer.outputs) != 1):
        raise ReadError("a Pooling layer needs one input and one output port", SourceLoc(file, el.sourceline))
    return layer


def _port(el: etree._Element, precision: str, file: str) -> Port:
    try:
        dims = tuple(int((d.text or "").strip()) for d in el if d.tag == "dim")
        port_id = int(el.get("id", ""))
    except ValueError:
        raise ReadError("port ids and <dim>s must be integers", SourceLoc(file, el.sourceline)) from None
    et = element_type(el.get("precision", precision))
    if et is None:
        raise ReadError(f"unknown precision '{el.get('precision', precision)}'", SourceLoc(file, el.sourceline))
    return Port(port_id, et.precision, dims, line=el.sourceline)

