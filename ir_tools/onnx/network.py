"""Whole ONNX networks: OpenVINO's ONNX frontend converts every op but average pooling, which ir_tools owns.

The route (docs/ARCHITECTURE.md says why this one):
1. The ONNX graph is cut at every AveragePool / GlobalAveragePool node: the node goes, its input
   becomes an extra graph output and its output an extra graph input, typed by ONNX's shape
   inference (run on a copy without the large weights, which it does not need); where that types a
   pooling's input less exactly than OpenVINO's conversion of the cut, by OpenVINO's dims, converted again. The
   cut is made on
   the file's bytes (``wire``): the weights are never parsed into Python nor serialised again.
2. OpenVINO converts the cut model (as ``ov.convert_model`` would, from memory) and saves
   it, weights compressed to f16 as ``ovc`` does unless asked not to; ir_tools reads that IR.
3. Each cut is closed with the importer's exact opset8 pooling, from the producer of the extra
   output to the consumers of the extra input; both extras are removed, tensor names stay, and
   every layer made records the ONNX node it came from (rt_info ``ir_tools_origin``).
So OpenVINO never sees the main graph's pooling, and only one emitter (``passes/exact_pool``) exists. A subgraph's
(If, Loop, Scan) is OpenVINO's: one whose numbers OpenVINO's differ from ONNX's is refused (``_disputed_in_bodies``).

What OpenVINO's frontend cannot convert is reported before anything is written: ``onnx.checker``
says what is wrong with a broken file; otherwise the frontend's partial conversion names every node
it could not translate, and each distinct op type becomes one diagnostic naming its first node and
how many more. (The checker runs only then: on a file OpenVINO converts it would cost as much as
the conversion and change nothing.)
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import onnx
import openvino as ov
from onnx import helper
from openvino._offline_transformations import (
    apply_fused_names_cleanup,
    apply_moc_legacy_transformations,
    apply_moc_transformations,
    compress_quantize_weights_transformation,
)

from ..base.diagnostics import Diagnostic
from ..base.dtypes import element_type
from ..base.errors import IrToolsError, SourceLoc
from ..ir.model import Graph, Layer
from ..ir.names import tensor_names
from ..ir.reader import read_ir
from ..passes.base import Pass
from ..passes.builder import Output
from ..passes.validate import InvalidModelError
from .importer import PoolingImporter, openvino_differs, output_dims
from .reading import check_file, default_opset, is_owned, node_label
from .wire import OnnxBytes

#: Initializers larger than this are left out of the copy that ONNX shape inference types (bytes).
_SMALL_INITIALIZER = 4096
#: OpenVINO's message prefixes that name its own source files: not for users.
_SOURCE_PREFIX = re.compile(r"^(Check '.*' failed at \S+:\n?|Exception from \S+:\n?)", re.MULTILINE)


def convert_network(source: OnnxBytes, path: Path, compress_to_fp16: bool = True) -> Graph:
    """The ONNX model in ``source`` (the bytes of ``path``) as an IR graph: OpenVINO's conversion of every op
    but the pooling, and ours of the pooling spliced in."""
    disputed = _disputed_in_bodies(source.nodes, path)
    if disputed:
        raise InvalidModelError(disputed)
    owned = [(index, node) for index, node in enumerate(source.nodes) if is_owned(node)]
    types = _cut_types(source, owned)
    graph, cut_outputs = _converted(source, owned, types, path, compress_to_fp16)
    learned = _types_from_openvino(graph, owned, types)
    if learned:  # ONNX's inference left a pooling's output untyped; OpenVINO's conversion typed its input
        graph, cut_outputs = _converted(source, owned, _cut_types(source, owned, learned), path, compress_to_fp16)
    importer = PoolingImporter(graph, path, _default_opset(source, path), (lay.name for lay in graph.layers()))
    SplicePooling(owned, cut_outputs, importer).run(graph)
    return graph


def _disputed_in_bodies(nodes: list[onnx.NodeProto], path: Path, inside: str = "") -> list[Diagnostic]:
    """One E-ONNX-UNSUPPORTED per pooling inside a subgraph (If, Loop, Scan) whose numbers OpenVINO's frontend
    computes otherwise than ONNX (``openvino_differs``): the cut reaches the main graph's nodes alone, so OpenVINO
    converts a body's own pooling (measured: an If's AveragePool of ceil_mode and count_include_pad off by 0.19)."""
    found = []
    for index, node in enumerate(nodes):
        if inside and is_owned(node) and openvino_differs(node):
            name = node_label(node, index)
            found.append(Diagnostic(
                "error", "E-ONNX-UNSUPPORTED", f"AveragePool with ceil_mode=1 and count_include_pad=1 inside {inside}: "
                f"node '{name}' (ir_tools converts the main graph's pooling exactly; OpenVINO's frontend, which "
                "converts a subgraph's, divides a window past the end padding otherwise than ONNX)",
                SourceLoc(str(path), layer_name=name, layer_kind="AveragePool")))
        for attribute in node.attribute:
            for body in (*([attribute.g] if attribute.HasField("g") else []), *attribute.graphs):
                where = f"the {attribute.name} of {node.op_type} '{node_label(node, index)}'"
                found += _disputed_in_bodies(list(body.node), path, f"{where} in {inside}" if inside else where)
    return found


def _cut_types(source: OnnxBytes, owned: list[tuple[int, onnx.NodeProto]],
               fixed: dict[str, onnx.ValueInfoProto] | None = None) -> dict[str, onnx.ValueInfoProto]:
    """Every tensor's type, each pooling's output typed by ONNX's own rules rather than by ONNX's shape
    inference, which below opset 22 keeps a ceil-mode window that AveragePool itself (and onnxruntime, and
    PyTorch) drops because it starts in the end padding. A pooling's input may depend on an earlier one, so
    inference runs again, on the cut model, until the types settle (once more per pooling at most). ``fixed``:
    pooling outputs already typed (``_types_from_openvino``)."""
    fixed = dict(fixed or {})
    for _ in range(len(owned) + 1):
        types = _value_types(source, owned, fixed)
        changed = False
        for _, node in owned:
            x, y = node.input[0], node.output[0]
            dims = output_dims(node, _dims_of(types.get(x))) if _dims_of(types.get(x)) is not None else None
            current = _dims_of(types.get(y))
            if dims is None or current == dims or current is not None and _less_exact(dims, current):
                continue  # (nor is a type OpenVINO's conversion gave made less exact)
            element = types[x].type.tensor_type.elem_type
            fixed[y] = types[y] = helper.make_tensor_value_info(y, element, list(dims))
            changed = True
        if not changed:
            return types
    raise IrToolsError(f"internal: the types around the pooling of {source.name or 'the model'} do not settle")


def _types_from_openvino(graph: Graph, owned: list[tuple[int, onnx.NodeProto]],
                         types: dict[str, onnx.ValueInfoProto]) -> dict[str, onnx.ValueInfoProto]:
    """The output types of the poolings ONNX's inference typed less exactly than OpenVINO's conversion of the cut
    types their inputs (graph outputs there): none at all (swin_t at opset 11: everything after a Reshape to a
    computed shape), or dims it left unknown (raft_small's correlation pyramid)."""
    ports = {name: port for layer in graph.layers() for port in layer.outputs for name in tensor_names(port.names)}
    learned = {}
    for _, node in owned:
        port, typed = ports.get(node.input[0]), _dims_of(types.get(node.output[0]))
        known = element_type(port.precision or "") if port is not None and port.dims is not None else None
        dims = output_dims(node, tuple(None if d < 0 else d for d in port.dims)) if known is not None else None
        if dims is None or typed == dims or typed is not None and not _less_exact(typed, dims):
            continue
        element = helper.np_dtype_to_tensor_dtype(np.dtype(known.numpy))
        learned[node.output[0]] = helper.make_tensor_value_info(node.output[0], element, list(dims))
    return learned


def _less_exact(typed: tuple[int | None, ...], dims: tuple[int | None, ...]) -> bool:
    """Whether ``dims`` only fill in dims ``typed`` leaves unknown."""
    return len(typed) == len(dims) and all(t is None or t == d for t, d in zip(typed, dims, strict=True))


def _dims_of(value: onnx.ValueInfoProto | None) -> tuple[int | None, ...] | None:
    if value is None or not value.type.tensor_type.HasField("shape"):
        return None
    return tuple(d.dim_value if d.HasField("dim_value") else None for d in value.type.tensor_type.shape.dim)


def _converted(source: OnnxBytes, owned: list[tuple[int, onnx.NodeProto]], types: dict[str, onnx.ValueInfoProto],
               path: Path, compress_to_fp16: bool) -> tuple[Graph, list[str]]:
    """OpenVINO's conversion of the cut model, as our graph; and the graph outputs the cut added."""
    cut, cut_outputs = _cut(source, owned, types)
    ov_model = _convert(cut, source, path)
    with tempfile.TemporaryDirectory(prefix="ir-tools-onnx-") as tmp:
        xml = Path(tmp) / "converted.xml"
        ov.save_model(ov_model, xml, compress_to_fp16=compress_to_fp16)
        del ov_model
        graph = read_ir(xml)
        graph.weights.map()  # mapped now, the weights outlive the temporary file (POSIX unlink semantics)
    graph.name = source.name or path.stem
    for layer in graph.layers():  # a diagnostic names the ONNX file, not the temporary IR
        layer.file, layer.line = str(path), None
    return graph, cut_outputs


def _default_opset(source: OnnxBytes, path: Path) -> int:
    return default_opset(onnx.ModelProto(opset_import=source.opsets), path)


def _cut(source: OnnxBytes, owned: list[tuple[int, onnx.NodeProto]], types: dict[str, onnx.ValueInfoProto],
         ) -> tuple[bytes, list[str]]:
    """The model without the owned nodes, each one's input exposed as a graph output and its output as a
    graph input (typed by ``types``); and the graph outputs added (removed again after splicing)."""
    outputs = {value.name for value in source.outputs}
    added_inputs, added_outputs = [], []
    for _, node in owned:
        x, y = node.input[0], node.output[0]
        if x not in outputs:
            added_outputs.append(types.get(x) or helper.make_empty_tensor_value_info(x))
            outputs.add(x)
        added_inputs.append(types.get(y) or helper.make_empty_tensor_value_info(y))
    cut = source.rebuilt({index for index, _ in owned}, added_inputs, added_outputs)
    return cut, [value.name for value in added_outputs]


def _value_types(source: OnnxBytes, owned: list[tuple[int, onnx.NodeProto]] = (),
                 fixed: dict[str, onnx.ValueInfoProto] | None = None) -> dict[str, onnx.ValueInfoProto]:
    """Every tensor's type as ONNX shape inference gives it, inferred without the large weights (typed inputs
    instead: the shape-giving initializers are small and stay); with ``fixed``, on the model cut at those
    poolings' outputs, which are graph inputs of the given types."""
    fixed = fixed or {}
    drop = {index for index, node in owned if node.output[0] in fixed}
    light = onnx.ModelProto.FromString(source.rebuilt(drop, list(fixed.values()), light=_SMALL_INITIALIZER))
    try:
        inferred = onnx.shape_inference.infer_shapes(light, data_prop=True).graph
    except Exception:  # noqa: BLE001 (inference helps type the cut, it is no gate: OpenVINO still decides)
        inferred = light.graph
    types = {value.name: value for value in (*inferred.input, *inferred.value_info, *inferred.output)}
    return types | fixed  # a graph output's declared type, wrong or less exact, does not undo a cut's (it settles)


def _convert(cut: bytes, source: OnnxBytes, path: Path) -> ov.Model:
    """OpenVINO's conversion of the cut model; else why not: ``onnx.checker``'s objection to the file, or one
    diagnostic per op type the frontend cannot convert, or its own words."""
    try:
        return _as_ovc_converts(source, cut)
    except Exception as exc:  # noqa: BLE001 (OpenVINO raises several types; each becomes a diagnostic)
        refusal = exc
    check_file(path)  # a broken file is reported as such (ReadError), before what OpenVINO made of it
    diagnostics = _unconverted(source, cut, path, _reasons(refusal)) or [
        Diagnostic("error", "E-ONNX-CONVERT", f"OpenVINO cannot convert this model: {_words(refusal)}",
                   SourceLoc(str(path)))]
    raise InvalidModelError(diagnostics)


def _from_bytes(source: OnnxBytes, data: bytes, convert: str) -> ov.Model:
    """OpenVINO's ONNX frontend on ``data`` (``source`` cut), ``convert`` naming the method (``convert``,
    ``convert_partially``). Given bytes, the frontend reads external data from the current directory (a path
    outside it refused, "outside the base directory"), so a model of external data is converted in its own, as it is
    given the file. The current directory is the process's: changed, every relative path of another thread fails
    meanwhile, so it is changed only where ``data`` names a location (an external tensor's ``location`` key)."""
    frontend = ov.frontend.FrontEndManager().load_by_framework("onnx")
    with _in_directory(source.directory if _LOCATION in data else None):
        return getattr(frontend, convert)(frontend.load(io.BytesIO(data)))


#: The key every external tensor of an ONNX file has (``TensorProto.external_data``): bytes without it read nothing
#: from a directory.
_LOCATION = b"location"


@contextlib.contextmanager
def _in_directory(directory: Path | None) -> Iterator[None]:
    """The current directory made ``directory`` (None: left as it is) while the block runs (``contextlib.chdir``
    from Python 3.11 on)."""
    if directory is None:
        yield
        return
    here = os.getcwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(here)


def _as_ovc_converts(source: OnnxBytes, data: bytes) -> ov.Model:
    """What ``ov.convert_model`` makes of an ONNX model given without options: the frontend's conversion, then
    the transformations of ovc's ``moc_emit_ir`` (the same IR; its node names may differ). Without ovc's
    argument handling and telemetry it takes a third of the time."""
    model = _from_bytes(source, data, "convert")
    apply_moc_transformations(model, cf=False, smart_reshape=True)
    compress_quantize_weights_transformation(model)
    apply_moc_legacy_transformations(model, [])  # ovc does this for ONNX models only
    apply_fused_names_cleanup(model)
    return model


def _reasons(refusal: Exception) -> dict[str, str]:
    """Op type -> why OpenVINO's frontend failed to convert it, from its report ("-- Pad-25 with a message: ...
    Unsupported padding mode: [wrap]"): the last line of each message."""
    found = {}
    for op_type, message in _FAILED_OP.findall(str(refusal)):
        lines = [line.strip() for line in _SOURCE_PREFIX.sub("", message).splitlines() if line.strip()]
        if lines:
            found.setdefault(op_type, lines[-1])
    return found


#: One op of the report OpenVINO's ONNX frontend gives on a failed conversion: its type, and its message.
_FAILED_OP = re.compile(r"^-- (\w+)-\d+ with a message:\n(.*?)(?=^-- |^Summary:|\Z)", re.MULTILINE | re.DOTALL)


def _unconverted(source: OnnxBytes, data: bytes, path: Path, reasons: dict[str, str]) -> list[Diagnostic]:
    """One diagnostic per op type OpenVINO's frontend leaves unconverted: its first node and how many more, and why
    where the frontend said (``reasons``: a mode or a type it does not take, say)."""
    try:
        partial = _from_bytes(source, data, "convert_partially")
    except Exception:  # noqa: BLE001 (the caller reports the conversion's own message)
        return []
    left: dict[tuple[str, str], str] = {}  # (domain, type) -> the name OpenVINO gives its first node
    for node in partial.get_ordered_ops():
        if node.get_type_name() in ("ONNXFrameworkNode", "NotSupportedONNXNode"):
            attrs = node.get_attributes()
            op = (attrs.get("ONNX_META_domain", ""), attrs.get("ONNX_META_type", "?"))
            left.setdefault(op, node.get_friendly_name())
    diagnostics = []
    for (domain, op_type), ov_name in left.items():
        nodes = [(i, n) for i, n in enumerate(source.nodes) if (n.domain, n.op_type) == (domain, op_type)]
        name = node_label(nodes[0][1], nodes[0][0]) if nodes else ov_name  # else inside a subgraph
        more = f" and {len(nodes) - 1} more" if len(nodes) > 1 else ""
        what = f"{domain}.{op_type}" if domain else op_type
        why = (f"custom domain '{domain}', for which OpenVINO has no extension" if domain not in ("", "ai.onnx")
               else f"OpenVINO's ONNX frontend cannot convert it here: {reasons[op_type]}" if op_type in reasons
               else "an op OpenVINO's ONNX frontend cannot convert")
        diagnostics.append(Diagnostic("error", "E-ONNX-UNSUPPORTED", f"{what} ({why}): node '{name}'{more}",
                                      SourceLoc(str(path), layer_name=name, layer_kind=what)))
    return diagnostics


def _words(exc: Exception) -> str:
    """OpenVINO's message without its source-file prefixes, on one line."""
    text = _SOURCE_PREFIX.sub("", str(exc)).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " ".join(lines)[:500] or type(exc).__name__


class SplicePooling(Pass):
    """Closes every cut with our pooling (step 3), in ONNX order so that a pooling may feed the next; checked before
    and after like any pass (the cut model OpenVINO converted is a valid IR, the spliced one must be)."""

    def __init__(self, owned: list[tuple[int, onnx.NodeProto]], cut_outputs: list[str], importer: PoolingImporter):
        self.owned, self.cut_outputs, self.importer = owned, cut_outputs, importer

    def apply(self, graph: Graph) -> bool:
        tensors: dict[str, Output] = {}
        for layer in graph.layers():
            for port in layer.outputs:
                for name in tensor_names(port.names):
                    tensors.setdefault(name, (layer.id, port.id))
        for index, node in self.owned:
            x, y = node.input[0], node.output[0]
            if y not in tensors:  # the cut's input for it is gone: OpenVINO drops one nothing reads, as
                continue  # ov.convert_model drops the dead node (onnxruntime skips it); it was an internal error
            if x not in tensors:
                raise IrToolsError(f"internal: OpenVINO's conversion has no tensor '{x}' around ONNX node "
                                   f"'{node_label(node, index)}'")
            self.importer.values[x] = tensors[x]
            parameter = graph.layer(tensors[y][0])
            tensors[y] = _pool_in_place_of(parameter, node, index, self.importer)
            dims = graph.layer(tensors[y][0]).output(tensors[y][1]).dims
            if dims != parameter.outputs[0].dims:
                raise IrToolsError(f"internal: ONNX node '{node_label(node, index)}' gives dims {list(dims or ())}, "
                                   f"the cut typed its output {list(parameter.outputs[0].dims or ())}")
        for name in self.cut_outputs:
            for result in _results_of(graph, tensors[name]):
                graph.remove_layer(result.id)
        return bool(self.owned)


def _pool_in_place_of(parameter: Layer, node: onnx.NodeProto, index: int, importer: PoolingImporter) -> Output:
    """Replace the cut's Parameter by ``node``'s pooling (its input already in ``importer.values``)."""
    pooled: list[Output] = []

    def build() -> list[Output]:
        pooled.append(importer.convert(node, index))
        return pooled

    importer.builder.replace_layer(parameter, build, f"ONNX {node.op_type} '{node_label(node, index)}' (node #{index})")
    return pooled[0]


def _results_of(graph: Graph, source: Output) -> list[Layer]:
    consumers = (graph.layer(edge.to_layer) for edge in graph.consumers(*source))
    return [layer for layer in consumers if layer.is_a("Result")]

