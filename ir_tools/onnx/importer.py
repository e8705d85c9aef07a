"""ONNX AveragePool / GlobalAveragePool graphs -> Graph, with ONNX's exact semantics.

ONNX and OpenVINO disagree on details that change numbers (docs/SEMANTICS.md sections 3, 5, 6), so
each node is first described as an exact WindowSpec and ``exact_pool.emit`` realises it in
opset8. Rules, per spatial axis with length L, kernel K, stride S, dilation D, Kd = D(K-1)+1:

1. pads are [x1_begin, x2_begin, ..., x1_end, ...]; VALID means zero pads, ceil_mode still
   applying (as in ONNX shape inference and onnxruntime; the operator text's VALID formula,
   floor((L - Kd) / S) + 1 in both modes, disagrees with both). SAME_UPPER /
   SAME_LOWER: ``pool_geometry.same_pads`` (ONNX's total ``(ceil(L/S)-1)*S + Kd - L`` split in
   half, odd one at the end / begin; a negative total means no padding, never a negative pad),
   and ceil(L/S) windows whatever ceil_mode says.
2. Windows: floor, or with ceil_mode the ceil_torch rule (a last window may not start in the end
   padding). A kernel larger than the padded input has one window in ceil mode when
   ``Kd - P < S`` (ONNX still gives a value); otherwise ONNX's output is empty: an error.
3. Divisor: taps inside the data; with count_include_pad=1 also taps in the padding, but never
   taps past the end padding (count range [-pb, L + pe)).
4. GlobalAveragePool is one window the size of the whole plane.
5. Dynamic spatial dims: the exact form depends on L except for floor mode without dilations or
   SAME padding, which one AvgPool-1 states exactly for every L; anything else is an error.
6. Identity becomes a Convert to its own type (a no-op) so every ONNX tensor keeps its own port
   and name: the ONNX input name names the Parameter, the output name the port feeding the Result.
7. GlobalAveragePool on dynamic spatial dims is a ReduceMean over them (keep_dims): an AvgPool
   needs its kernel, the whole plane, to be known.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

from ..base.dims import DYNAMIC, Dim
from ..base.errors import AttrError, IrToolsError, OpValidationError, SourceLoc, UnsupportedError
from ..ir.model import Graph
from ..ir.names import names_attribute
from ..ops import attrs as A
from ..ops.pool_geometry import dilated, out_length, same_pads
from ..ops.pooling import AvgPoolAttrs
from ..ops.spec import TensorType
from ..passes.builder import GraphBuilder, Output, output_of
from ..passes.exact_pool import WindowSpec, emit
from .reading import default_opset, node_label

SUPPORTED = ("AveragePool", "GlobalAveragePool", "Identity")
AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")
_ELEMENTS = {TensorProto.FLOAT: "f32", TensorProto.FLOAT16: "f16", TensorProto.DOUBLE: "f64",
             TensorProto.BFLOAT16: "bf16"}


@dataclass(frozen=True, slots=True)
class Pooling:
    """An AveragePool node's attributes with ONNX's defaults filled in."""

    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    auto_pad: str
    ceil_mode: bool
    count_include_pad: bool


def _dims(value: onnx.ValueInfoProto) -> tuple[Dim, ...]:
    """Static dims stay, symbolic or missing ones become dynamic (the checker requires a shape)."""
    return tuple(Dim(d.dim_value, d.dim_value) if d.HasField("dim_value") else DYNAMIC
                 for d in value.type.tensor_type.shape.dim)


def import_pooling(model: onnx.ModelProto, path: Path) -> Graph:
    """An ONNX graph of AveragePool / GlobalAveragePool / Identity nodes as an opset8 IR graph, without OpenVINO."""
    importer = PoolingImporter(Graph(model.graph.name or path.stem, ir_version=11), path, default_opset(model, path))
    return importer.run(model.graph)


class PoolingImporter:
    """Builds the exact opset8 form of ONNX pooling nodes into a graph (``convert``); ``run`` imports a
    whole pooling-only ONNX graph. ``names``: layer names already taken in the graph."""

    def __init__(self, graph: Graph, path: Path, opset: int, names: Iterable[str] = ()):
        self.graph = graph
        self.builder = GraphBuilder(graph)
        self.path = path
        self.opset = opset
        self.values: dict[str, Output] = {}
        self.constants: set[str] = set()
        self.names: set[str] = set(names)

    def run(self, g: onnx.GraphProto) -> Graph:
        self.constants = {t.name for t in g.initializer} | {t.values.name for t in g.sparse_initializer}
        for value in g.input:
            if value.name not in self.constants:
                self._parameter(value)
        for index, node in enumerate(g.node):
            self.convert(node, index)
        for value in g.output:
            if value.name in self.constants:
                raise UnsupportedError(f"graph output '{value.name}' is an initializer (a constant)",
                                       SourceLoc(str(self.path)))
            self.builder.result(self.values[value.name], self._unique(f"{value.name}/sink_port_0"))
        return self.graph

    def _unique(self, name: str) -> str:
        """Layer names must be unique: the OpenVINO runner finds layers by name."""
        candidate, n = name, 1
        while candidate in self.names:
            candidate, n = f"{name}_{n}", n + 1
        self.names.add(candidate)
        return candidate

    def _parameter(self, value: onnx.ValueInfoProto) -> None:
        element = _ELEMENTS.get(value.type.tensor_type.elem_type)
        if element is None:
            kind = value.type.WhichOneof("value")
            if kind == "tensor_type":
                kind = TensorProto.DataType.Name(value.type.tensor_type.elem_type)
            raise UnsupportedError(f"graph input '{value.name}' has type {kind}; supported: float, float16, double, "
                                   "bfloat16 tensors", SourceLoc(str(self.path)))
        self._unique(value.name)
        self.values[value.name] = self.builder.parameter(value.name, element, _dims(value))

    def convert(self, node: onnx.NodeProto, index: int) -> Output:
        """Add ``node`` (fed by ``self.values``); its output, named for its ONNX tensor, goes to ``self.values``."""
        if node.domain not in ("", "ai.onnx") or node.op_type not in SUPPORTED:
            raise UnsupportedError(f"node '{node_label(node, index)}' ({node.op_type}) is not pooling; "
                                   f"this path converts {', '.join(SUPPORTED)}", SourceLoc(str(self.path)))
        schema = onnx.defs.get_schema(node.op_type, self.opset)
        kind = f"{node.op_type}-{schema.since_version}"
        loc = SourceLoc(str(self.path), None, str(index), node_label(node, index), kind)
        if node.input[0] in self.constants:
            raise UnsupportedError(f"input '{node.input[0]}' is an initializer; only graph inputs and node outputs "
                                   "can feed it", loc)
        x = self.values[node.input[0]]
        name = self._unique(node.name or node.output[0])
        try:
            if node.op_type == "Identity":
                out = x
            elif node.op_type == "GlobalAveragePool":
                out = self._global(x, name, loc)
            else:
                out = self._average_pool(x, _pooling(_attributes(node), loc), name, loc)
            self.values[node.output[0]] = self._name_output(out, node.output[0], name)
            return self.values[node.output[0]]
        except IrToolsError as exc:
            if exc.loc.file is None:  # raised below the importer (emit, a shape rule): name the node
                exc.loc = loc
            raise

    def _name_output(self, out: Output, tensor: str, name: str) -> Output:
        """Give ``out`` the ONNX tensor name; a port already named for another tensor (Identity) gets a
        Convert to its own type, a no-op, so that each tensor keeps its own port (rule 6)."""
        port = self.graph.layer(out[0]).output(out[1])
        if port.names:
            return output_of(self.builder.convert(out, self.builder.type_of(out).element, name,
                                                  names=names_attribute([tensor])))
        port.names = names_attribute([tensor])  # (a comma in an ONNX name escaped: one name, as OpenVINO writes it)
        return out

    def _spatial(self, x: Output, n: int, loc: SourceLoc) -> tuple[Dim, ...]:
        shape = self.builder.type_of(x).shape
        if len(shape) != n + 2:
            raise OpValidationError(f"input has rank {len(shape)}, expected {n + 2} for {n} spatial axes", loc)
        if n not in (1, 2, 3):
            raise UnsupportedError(f"{n} spatial axes: OpenVINO pools over 1, 2 or 3", loc)
        return shape[2:]

    def _global(self, x: Output, name: str, loc: SourceLoc) -> Output:
        """Rule 4; on dynamic spatial dims no AvgPool has the kernel, so a ReduceMean over them (rule 7)."""
        data = self.builder.type_of(x)
        spatial = self._spatial(x, len(data.shape) - 2 if data.shape else 0, loc)
        if not all(d.is_static for d in spatial):
            axes = self.builder.const(np.arange(2, 2 + len(spatial), dtype=np.int64), f"{name}/axes")
            out = TensorType(data.element, data.shape[:2] + (Dim(1, 1),) * len(spatial))
            keep = self.builder.attrs("ReduceMean", "opset1", keep_dims=True)
            return output_of(self.builder.add("ReduceMean", "opset1", keep, [x, axes], name, outputs=[out]))
        lengths = tuple(d.lo for d in spatial)
        n = len(lengths)
        spec = WindowSpec(lengths, lengths, (1,) * n, (1,) * n, (0,) * n, (1,) * n, False, (0,) * n, lengths, (0,) * n)
        return self._emit(x, spec, name, loc)

    def _average_pool(self, x: Output, p: Pooling, name: str, loc: SourceLoc) -> Output:
        spatial = self._spatial(x, len(p.kernel), loc)
        if all(d.is_static for d in spatial):
            return self._emit(x, _window_spec(tuple(d.lo for d in spatial), p, loc), name, loc)
        return self._direct(x, p, name, loc)

    def _emit(self, x: Output, spec: WindowSpec, name: str, loc: SourceLoc) -> Output:
        out = emit(self.builder, x, spec, name)
        want = self.builder.type_of(x).shape[:2] + tuple(Dim(n, n) for n in spec.out)
        got = self.builder.type_of(out).shape
        if got != want:
            raise IrToolsError(f"internal: the opset8 form gives dims {got}, ONNX gives {spec.out} spatially", loc)
        return out

    def _direct(self, x: Output, p: Pooling, name: str, loc: SourceLoc) -> Output:
        """Rule 5: one AvgPool-1 is exact for every L in floor mode without dilations or SAME padding."""
        reasons = [why for why, bad in (("ceil_mode=1", p.ceil_mode), ("dilations", any(d != 1 for d in p.dilations)),
                                        (p.auto_pad, p.auto_pad.startswith("SAME"))) if bad]
        if reasons:
            raise UnsupportedError(f"dynamic spatial dims with {' and '.join(reasons)}: the exact opset8 form "
                                   "depends on the input length; give the input a static shape", loc)
        pads = p.pads_begin + p.pads_end
        if not p.count_include_pad and any(pad >= k for pad, k in zip(pads, p.kernel * 2, strict=True)):
            raise UnsupportedError(f"pads {list(pads)} reach a whole kernel {list(p.kernel)}: "
                                   "windows entirely in padding need a static shape", loc)
        exclude_pad = not p.count_include_pad
        attrs = AvgPoolAttrs(p.kernel, p.strides, p.pads_begin, p.pads_end, exclude_pad, "explicit", "floor")
        return output_of(self.builder.add("AvgPool", "opset8", A.encode(attrs), [x], name))


def _ints(attrs: dict, attr: str, n: int, default: int, loc: SourceLoc) -> tuple[int, ...]:
    if attr not in attrs:
        return (default,) * n
    if len(attrs[attr]) != n:
        raise AttrError(f"{attr} has {len(attrs[attr])} values, expected {n}", loc)
    return tuple(int(v) for v in attrs[attr])


def output_dims(node: onnx.NodeProto, dims: tuple[int | None, ...]) -> tuple[int | None, ...] | None:
    """The output dims ONNX's AveragePool / GlobalAveragePool gives an input of ``dims`` (None: unknown), by
    rules 1-4; None if they cannot be told (a bad node, a rank of no pooling). Used to type a cut exactly."""
    spatial = dims[2:]
    if len(dims) < 3:
        return None
    if node.op_type == "GlobalAveragePool":
        return dims[:2] + (1,) * len(spatial)
    try:
        p = _pooling(_attributes(node), SourceLoc())
        if len(p.kernel) != len(spatial):
            return None
        if any(n is None for n in spatial):
            return dims[:2] + tuple(None for _ in spatial)  # only a static length has a known count
        return dims[:2] + _window_spec(tuple(spatial), p, SourceLoc()).out
    except IrToolsError:
        return None


def openvino_differs(node: onnx.NodeProto) -> bool:
    """Whether OpenVINO's ONNX frontend computes other numbers than ONNX for ``node``: an AveragePool counting its
    explicit padding in ceil mode, whose window past the end padding OpenVINO divides by the whole kernel and ONNX
    by the taps up to the end padding (docs/SEMANTICS.md sections 3 and 5). A node of bad attributes: False
    (OpenVINO's frontend says what is wrong with it)."""
    if node.op_type != "AveragePool":
        return False
    try:
        p = _pooling(_attributes(node), SourceLoc())
    except IrToolsError:
        return False
    return p.ceil_mode and p.count_include_pad and p.auto_pad == "NOTSET" and any(p.pads_begin + p.pads_end)


def _attributes(node: onnx.NodeProto) -> dict:
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _pooling(attrs: dict, loc: SourceLoc) -> Pooling:
    """The node's attributes, defaults filled in and validated (the checker knows which exist per opset)."""
    if "kernel_shape" not in attrs:
        raise AttrError("kernel_shape is required", loc)
    kernel = tuple(int(k) for k in attrs["kernel_shape"])
    n = len(kernel)
    strides = _ints(attrs, "strides", n, 1, loc)
    dilations = _ints(attrs, "dilations", n, 1, loc)
    pads = _ints(attrs, "pads", 2 * n, 0, loc)
    auto_pad = attrs.get("auto_pad", b"NOTSET").decode()
    for what, values, least in (("kernel_shape", kernel, 1), ("strides", strides, 1), ("dilations", dilations, 1),
                                ("pads", pads, 0)):
        if any(v < least for v in values):
            raise AttrError(f"{what} {list(values)} must all be >= {least}", loc)
    if auto_pad not in AUTO_PADS:
        raise AttrError(f"auto_pad '{auto_pad}' must be one of {', '.join(AUTO_PADS)}", loc)
    if auto_pad != "NOTSET" and any(pads):
        raise AttrError(f"pads {list(pads)} cannot be used together with auto_pad {auto_pad}", loc)
    if auto_pad == "VALID":
        pads = (0,) * (2 * n)
    return Pooling(kernel, strides, dilations, pads[:n], pads[n:], auto_pad,
                   bool(attrs.get("ceil_mode", 0)), bool(attrs.get("count_include_pad", 0)))


def _window_spec(lengths: tuple[int, ...], p: Pooling, loc: SourceLoc) -> WindowSpec:
    """Rules 1-3 on static lengths."""
    pads_begin, pads_end, out, count_lo, count_hi = [], [], [], [], []
    for i, (length, k, s, d) in enumerate(zip(lengths, p.kernel, p.strides, p.dilations, strict=True)):
        if p.auto_pad.startswith("SAME"):
            pb, pe = same_pads(length, k, s, d, p.auto_pad == "SAME_UPPER")
            windows = -(-length // s)
        else:
            pb, pe = p.pads_begin[i], p.pads_end[i]
            windows = _windows(length, k, s, d, pb, pe, p.ceil_mode)
        if windows < 1:
            raise OpValidationError(
                f"kernel {k} (dilated {dilated(k, d)}) is larger than the padded input {length + pb + pe} on spatial "
                f"axis {i}: ONNX's output would be empty", loc)
        pads_begin.append(pb)
        pads_end.append(pe)
        out.append(windows)
        count_lo.append(-pb if p.count_include_pad else 0)
        count_hi.append(length + pe if p.count_include_pad else length)
    return WindowSpec(lengths, p.kernel, p.strides, p.dilations, tuple(pads_begin), tuple(out), False,
                      tuple(count_lo), tuple(count_hi), tuple(pads_end))


def _windows(length: int, k: int, s: int, d: int, pb: int, pe: int, ceil_mode: bool) -> int:
    """Rule 2; ``out_length`` clamps at one window, so a kernel past the padded input is handled here."""
    short = dilated(k, d) - (length + pb + pe)
    if short > 0:
        return 1 if ceil_mode and short < s else 0
    return out_length(length, k, s, d, pb, pe, "ceil_torch" if ceil_mode else "floor")
