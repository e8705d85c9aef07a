"""The OpenVINO runner: CPU, inference precision pinned to f32, configuration recorded.

The only module of the package that imports ``openvino``. OpenVINO reads the user's own files
when there are any (``ModelFiles``), so what is compared is what OpenVINO makes of the file,
not of our re-serialisation; a graph built in memory is handed over as the bytes the writer
would write. Whatever OpenVINO refuses becomes an E-OPENVINO error naming the file and quoting
OpenVINO's own words.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import openvino as ov

from ..base.crash_notes import ran
from ..base.dims import Dim, Shape
from ..base.dtypes import element_type
from ..base.errors import IrToolsError, SourceLoc
from ..ir.model import Graph, Layer
from ..ir.names import input_name, output_names
from ..ir.writer import to_bytes
from ..ops.spec import TensorType
from .openvino_infer import ON_INPUTS, InferenceRefused, infer, infer_steps, supported

#: The version of this process's OpenVINO.
OPENVINO_VERSION: str = ov.get_version()

#: The compile configuration every run uses, where the release has the setting; reports print it. It pins every CPU
#: setting that moves numbers: f32 inference (not bf16 or f16 where the CPU has them), no dynamic quantization of
#: the activations of compressed-weight MatMuls (by default in groups of 32, to int8), a KV cache in f32 (not u8).
CPU_CONFIG: dict[str, str] = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0",
                              "KV_CACHE_PRECISION": "f32", "KEY_CACHE_PRECISION": "f32", "VALUE_CACHE_PRECISION": "f32"}

def cpu_settings() -> list[str]:
    """The settings this OpenVINO's CPU plugin takes (``compare --config KEY=VALUE``)."""
    return sorted(ov.Core().get_property("CPU", "SUPPORTED_PROPERTIES"))


def refused_setting(key: str, value: str) -> str | None:
    """The CPU plugin's words refusing ``key=value`` (it checks a value only when it compiles: a one-layer model is
    compiled with it), None when it takes it."""
    import numpy as np
    import openvino.opset8 as ops

    x = ops.parameter([1], np.float32)
    try:
        ov.Core().compile_model(ov.Model([ops.relu(x)], [x]), "CPU", {key: value})
    except RuntimeError as exc:
        return openvino_words(exc)
    return None


#: OpenVINO's messages lead with where in its sources they were raised; the user needs the rest.
_SOURCE_LINE = re.compile(r"^(Exception from \S+|Check '.*' failed at \S+)[:]?\s*$")
#: A failed check of such a line, without its place: what is left of a message that says nothing else.
_FAILED_CHECK = re.compile(r"^(Check '.*' failed) at \S+[:]?\s*$")


@dataclass(frozen=True)
class ModelFiles:
    xml: Path
    bin: Path | None = None


@dataclass
class OpenVinoRun:
    outputs: dict[str, np.ndarray]  # keyed by output name (see runtime.naming)
    layers: dict[tuple[str, int], np.ndarray] = field(default_factory=dict)  # (layer id, port id) -> value
    config: dict[str, str] = field(default_factory=dict)
    version: str = OPENVINO_VERSION
    #: per layer: the layers whose kernel computes producers of theirs, each with the layers it reads (by name;
    #: ``openvino_infer.kernel_reads``)
    reads: dict[str, frozenset[str]] = field(default_factory=dict)


def openvino_words(exc: BaseException | str, limit: int = 400) -> str:
    """OpenVINO's message (an exception's, or its text) without the source locations it starts with, on one line."""
    lines = [line.strip() for line in str(exc).splitlines()]
    kept = [line for line in lines if line and not _SOURCE_LINE.match(line)] or \
        [found.group(1) for line in lines if (found := _FAILED_CHECK.match(line))]
    text = " ".join(kept) or (type(exc).__name__ if isinstance(exc, BaseException) else "no message")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def refused(what: str, graph: Graph, files: ModelFiles | None, exc: BaseException | str,
            who: str = "OpenVINO") -> IrToolsError:
    """The refusal as a diagnostic at the file OpenVINO (``who``) was given (the graph's own, for one built in
    memory)."""
    where = files.xml if files else graph.source
    return IrToolsError(f"{who} refused to {what}: {openvino_words(exc)}",
                        SourceLoc(str(where) if where else None),
                        code="E-OPENVINO")


def _refusal_line(files: ModelFiles | None, graph: Graph, words: str) -> int | None:
    """The line OpenVINO's message points at: a byte offset ("at offset 852"), a layer ("id:7") or an operation
    ("Operation name: x", as compile names one: the one layer of that name)."""
    if files is not None and (match := re.search(r"at offset (\d+)", words)):
        return files.xml.read_bytes()[: int(match.group(1))].count(b"\n") + 1
    if (match := re.search(r"\bid:(\S+)", words)) and graph.has_layer(match.group(1)):
        return graph.layer(match.group(1)).line
    if match := re.search(r"Operation name: (\S+)", words):
        named = [layer for layer in graph.layers() if layer.name == match.group(1)]
        return named[0].line if len(named) == 1 else None
    return None


def openvino_types(graph: Graph, files: ModelFiles | None, layers: Iterable[Layer], compile_model: bool = False,
                   read: Callable[[], ov.Model] | None = None) -> dict[tuple[str, int], TensorType]:
    """OpenVINO's own verdict on the file (on ``graph`` itself when ``files`` is None), and its inference of
    the output types of ``layers``, by (layer id, port id).

    ``read`` gives the model of ``files`` read already (see ``read_in_background``) or raises as ``load`` does.
    Layers are matched by name (OpenVINO keeps IR layer names as friendly names) and type (``_layer_op``); a
    name two layers share is left out. A refusal is an E-OPENVINO error at the line OpenVINO's message points at.
    """
    core = ov.Core()
    try:
        model = load(graph, core, files) if read is None else read()
        if compile_model:
            core.compile_model(model, "CPU", supported(core, CPU_CONFIG))
    except IrToolsError as exc:
        where = str(files.xml) if files else graph.name
        raise IrToolsError(exc.message, SourceLoc(where, _refusal_line(files, graph, exc.message)),
                           code=exc.code) from None
    except Exception as exc:  # compile refused the model
        words = openvino_words(exc)
        raise IrToolsError(f"OpenVINO refused to compile the model on CPU: {words}",
                           SourceLoc(str(files.xml) if files else graph.name, _refusal_line(files, graph, words)),
                           code="E-OPENVINO") from None
    wanted = {layer.name for layer in layers}
    if not wanted:  # (50k ops listed for nothing: 0.2 s)
        return {}
    names: dict[str, list[Layer]] = {}
    for layer in graph.layers():
        if layer.name in wanted:
            names.setdefault(layer.name, []).append(layer)
    types = {}
    for op in model.get_ordered_ops():
        found = names.get(op.get_friendly_name(), [])
        if len(found) != 1:
            continue
        op = _layer_op(op, found[0], graph.ir_version)
        if op is None or len(found[0].outputs) != op.get_output_size():
            continue
        for port, output in zip(found[0].outputs, op.outputs(), strict=True):
            shape = output.get_partial_shape()
            et = element_type(output.get_element_type().get_type_name())
            types[(found[0].id, port.id)] = TensorType(et.name if et else None, _shape(shape))
    return types


def _layer_op(op: ov.Node, layer: Layer, ir_version: int) -> ov.Node | None:
    """The op of OpenVINO's model that is ``layer``, given the op of its name: that op when its type is the layer's;
    for IR v10, the op feeding it when it is a Convert, since ``read_model`` converts an IR v10 output of f16,
    bool, i64... to f32 or i32 by a Convert that takes its producer's name (the producer keeps its own when it
    has several outputs: the Converts are ``name.N``); None for any other op (not this layer)."""
    op_type = op.get_type_name().lower()
    if op_type == _OPENVINO_TYPE.get(layer.type.lower(), layer.type.lower()):
        return op
    if ir_version == 10 and op_type == "convert":
        return _layer_op(op.input_value(0).get_node(), layer, ir_version)
    return None


#: IR type spellings whose OpenVINO type is named otherwise than by case (the IR reader's translation).
_OPENVINO_TYPE = {"const": "constant"}


def _shape(shape: ov.PartialShape) -> Shape:
    """An OpenVINO partial shape as ours, intervals kept (NonMaxSuppression's [0..10,3])."""
    if shape.rank.is_dynamic:
        return None
    return tuple(Dim(d.get_min_length(), None if d.get_max_length() < 0 else d.get_max_length()) for d in shape)


def read_in_background(files: ModelFiles) -> Callable[[], ov.Model]:
    """Start OpenVINO's ``read_model`` of ``files`` in a thread (it releases the GIL, so it overlaps our own checks);
    the function returned waits for the model and the thread's end, or raises what ``load`` would have raised."""
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="openvino-read")
    future = pool.submit(load, Graph(), ov.Core(), files)
    pool.shutdown(wait=False)

    def model() -> ov.Model:
        try:
            return future.result()
        finally:
            pool.shutdown(wait=True)

    return model


def load(graph: Graph, core: ov.Core, files: ModelFiles | None = None) -> ov.Model:
    """An ``ov.Model``: of ``files`` when given (``graph`` is their parse), else of ``graph`` itself."""
    ran("OpenVINO")
    try:
        if files is not None:
            bin_path = files.bin if files.bin is not None and files.bin.exists() else None
            return core.read_model(str(files.xml), str(bin_path) if bin_path else None)
        xml, blob = to_bytes(graph, graph.ir_version)
        weights = ov.Tensor(np.frombuffer(blob, dtype=np.uint8).copy()) if blob else ov.Tensor(np.empty(0, np.uint8))
        return core.read_model(xml.decode("utf-8"), weights)
    except Exception as exc:  # OpenVINO raises RuntimeError and others: each is a refusal of this input
        raise refused("read the model", graph, files, exc) from None


def run_openvino(
    graph: Graph,
    inputs: dict[str, np.ndarray],
    per_layer: bool = False,
    files: ModelFiles | None = None,
    hidden: frozenset[str] = frozenset(),
    deployed: Mapping[str, str] | None = None,
) -> OpenVinoRun:
    """Run the model on CPU. ``per_layer`` adds every layer's outputs to the model (one compile), but for the
    layers named in ``hidden`` (constant subgraphs, which OpenVINO then folds as it would); ``deployed``: settings
    over ``CPU_CONFIG``, as a user deploys the model."""
    core = ov.Core()
    model = load(graph, core, files)
    config = {**supported(core, CPU_CONFIG), **(deployed or {})}
    reads: dict[str, list[str]] = {}
    try:
        by_source = infer(core, model, parameter_inputs(graph, inputs), config, per_layer, hidden, reads)
    except InferenceRefused as exc:  # compiled, and these inputs refused
        raise refused(ON_INPUTS, graph, files, exc) from None
    except Exception as exc:  # compile refused this model
        raise refused("compile the model", graph, files, exc) from None
    run = openvino_run(graph, by_source, per_layer, {"device": "CPU", **config}, OPENVINO_VERSION)
    run.reads = {name: frozenset(names) for name, names in reads.items()}
    return run


def run_openvino_steps(graph: Graph, steps: list[Mapping[str, np.ndarray]], files: ModelFiles | None = None,
                       per_layer: bool = False, hidden: frozenset[str] = frozenset(),
                       deployed: Mapping[str, str] | None = None) -> list[tuple[OpenVinoRun, dict[str, np.ndarray]]]:
    """Run a stateful model on CPU over ``steps`` (each step's inputs, by input name) on one infer request, its state
    reset first and carried from step to step (``openvino_infer.infer_steps``): per step, the outputs (and with
    ``per_layer`` the activations, as ``run_openvino``) and what each variable holds after it, by variable id.
    ``deployed``: settings over ``CPU_CONFIG``, as ``run_openvino``'s."""
    core = ov.Core()
    model = load(graph, core, files)
    config = {**supported(core, CPU_CONFIG), **(deployed or {})}
    reads: dict[str, list[str]] = {}
    try:
        ran = infer_steps(core, model, [parameter_inputs(graph, inputs) for inputs in steps], config, per_layer,
                          hidden, reads)
    except InferenceRefused as exc:  # compiled, and these inputs refused
        raise refused(ON_INPUTS, graph, files, exc) from None
    except Exception as exc:  # compile refused this model
        raise refused("compile the model", graph, files, exc) from None
    out = []
    for by_source, states in ran:
        run = openvino_run(graph, by_source, per_layer, {"device": "CPU", **config}, OPENVINO_VERSION)
        run.reads = {name: frozenset(names) for name, names in reads.items()}
        out.append((run, states))
    return out


def parameter_inputs(graph: Graph, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``inputs`` (keyed by input name) keyed by the Parameter's layer name, as ``openvino_infer.infer`` takes them."""
    return {p.name: inputs[input_name(graph, p)] for p in graph.parameters()}


def openvino_run(graph: Graph, by_source: Mapping[tuple[str, int], np.ndarray], per_layer: bool,
                 config: dict[str, str], version: str) -> OpenVinoRun:
    """What ``openvino_infer.infer`` gave (by op name and output index) as the outputs of ``graph``'s Results (by
    the Result's name where no other Result has it: producers may share a name) and, with ``per_layer``, the
    activations of its layers."""
    layers = {}
    for layer in graph.layers():
        for index, port in enumerate(layer.outputs):
            if (layer.name, index) in by_source:
                layers[(layer.id, port.id)] = by_source[(layer.name, index)]
    outputs = {}
    named, output_name_of = Counter(result.name for result in graph.results()), output_names(graph)
    for result in graph.results():
        found = graph.producer(result.id, result.inputs[0].id) if result.inputs else None
        value = by_source.get((result.name, -1)) if named[result.name] == 1 else None
        if value is None:
            value = layers.get((found[0].id, found[1].id)) if found else None
        if value is None:
            raise IrToolsError("OpenVINO's model has no output for this Result (OpenVINO dropped or renamed "
                               "its producer)", result.loc, code="E-OPENVINO")
        outputs[output_name_of[result.id]] = value
    return OpenVinoRun(outputs, layers if per_layer else {}, config, version)
