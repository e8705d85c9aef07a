"""ir_tools: validate, migrate, transform and numerically check OpenVINO IR files.

The public API (everything else is internal and may change):

- ``read_ir(xml_path, bin_path=None) -> Graph``; ``read_valid(...)`` also refuses what ``check`` rejects
- ``write_ir(graph, xml_path, ir_version=None)`` (the graph's own IR version unless given, which makes the graph that
  version first, the names OpenVINO reports kept, as ``--ir-version``; atomic; never over the input unless asked)
- ``check(xml_path, bin_path=None, openvino=True, compile_model=False, target=None) -> list[Diagnostic]``: what
  ``ir-tools check`` prints (``openvino=False`` is ``--no-openvino``, ``target`` is ``--target``); given a Graph
  rather than a path, the same of the graph as it is in memory (not read again), as ``onnx.checker`` takes a model
- ``infer_shapes(graph) -> list[Diagnostic]`` (our rules alone); ``fix_shapes(graph, openvino=True) -> int`` writes
  the re-inferred dims, as ``ir-tools shapes --fix`` (``openvino=False`` is ``--no-openvino``): ours, and OpenVINO's
  inference for the layers our rules do not re-infer, with what follows them re-inferred to a fixed point
- ``random_inputs(graph, seed=0, shapes=None) -> dict[str, numpy.ndarray]``: inputs that fit the model, as the
  commands seed them (token ids within the embedding's rows, masks of ones; ``shapes`` is ``--shape``)
- ``run(graph, inputs) -> dict[str, numpy.ndarray]`` (the numpy reference, keyed by output name)
- ``compare(graph, inputs, options=CompareOptions(), openvino=None) -> CompareReport``: OpenVINO against the
  reference, as ``ir-tools compare``; runners for every backend: ``OpenVinoRunner``, ``ChildOpenVinoRunner``
  (OpenVINO of another Python interpreter), ``OnnxRuntimeRunner``, ``ReferenceRunner``, and
  ``compare_outputs`` for two of them (these import OpenVINO on first use)
- ``compare_against(graph, against, inputs, tolerances=None, per_layer=False) -> CompareReport``: two models on
  OpenVINO, as ``ir-tools compare A --against B`` (every tensor matched by name, the first drifting layer, tolerances
  derived from how the weights differ unless given); ``compare_steps(graph, steps, options) -> CompareReport``: a
  stateful model over the steps of a generation loop, as ``compare --steps N``; ``random_steps(graph, count, seed)``
  draws the steps as the command does
- ``inspect(xml_path) -> dict``: inputs, outputs, op histogram, layers and diagnostics, as ``ir-tools inspect
  --format json`` (a broken file too; a Graph in memory too)
- ``migrate(graph_or_path, target=None, stateless=False) -> PassResult``: as ``ir-tools migrate [--target RELEASE]
  [--stateless]`` (every average pooling into opset8 AvgPool; with a target, an OpenVINO release or ``opsetN``,
  every layer it cannot create rewritten, or PassError naming each one left, and the IR version it reads; a legacy
  IR v7 file is lowered first)
- transformations: ``Pass``, ``PassManager``, ``PassResult``, ``PassError``; patterns ``Op``, ``AnyInput``,
  ``Const``, ``matches``, ``Match``; ``GraphBuilder`` to add layers (typed attributes: ``GraphBuilder.attrs``; the
  ``TensorType`` of a port, ``GraphBuilder.type_of``: an element type and a shape of ``Dim``s, each ``lo..hi``,
  ``is_static``, ``as_int()`` -1 where it is not);
  ``Graph.replace_all_uses`` and ``Graph.remove_dead``; ``Output`` (layer id, port id: what ``GraphBuilder.add``
  takes, ``const``/``parameter`` return, ``output_of(layer, i)`` gives), ``RtNode`` (an rt_info entry, such as the
  ``decompression`` mark OpenVINO keeps an f16 weight's Convert by); ``numpy_dtype("f16")`` and
  ``element_type_of(np.float16)``, between IR element types and numpy
- ``bodies(graph, layer) -> tuple[Graph, ...]``: a TensorIterator's, Loop's or If's bodies as graphs (passes,
  ``by_type`` and ``matches`` see the top level only); ``set_bodies(graph, layer, bodies)`` writes changed ones back
- ``rename_input(graph, input, name)``, ``rename_output(graph, output, name)``: a model input or output named as
  OpenVINO reads it (an output's name is its Result's ``output_names``, from OpenVINO 2025.1 on, and its tensor's)
- what the comparisons return: ``CompareReport`` (``outputs`` and ``layers``, ``TensorComparison``s and
  ``LayerComparison``s), ``OutputComparison`` (``compare_outputs``), ``Candidate`` (``Reduction.candidate``)
- ``reduce(graph, inputs, fails, saved=None) -> Reduction``: as ``ir-tools reduce``, the smallest part of a valid
  graph that still fails (``part``, the ``inputs`` it is fed, ``failure``, ``steps``), each part run by OpenVINO in
  a child process; ``fails`` says when a part fails: ``compare_fails(CompareOptions(...))`` (``--until
  compare-fails``), ``openvino_fails(matching=None)`` (``--until openvino-fails``) or ``against_fails(graph,
  original, tolerances)`` (``--against``; its ``original_part(found.candidate)`` is the original's same part);
  ``saved`` are activations ``compare --save-outputs`` wrote (``--load-outputs``); ReduceError (E-REDUCE) when the
  whole graph does not fail; an error of the comparison itself (E-INPUT, E-USAGE) is raised, never a part failing
- ``from_onnx(path, compress_to_fp16=True) -> Graph``: as ``ir-tools convert-onnx`` (needs ``onnx``)
- ``extract(graph, inputs, outputs) -> Graph``: as ``ir-tools extract``, the part of a valid graph between tensors
  (named as OpenVINO reports them: ``tensor_ports(graph)``; or given by output port ``(layer id, port id)``), each
  cut input a Parameter of its inferred type; ``CutError`` (E-CUT, with ``unfed``: the tensors to add to the cut
  inputs where that mends it) when the cut makes no model of its own

Whatever validates a graph first raises ``InvalidModelError``, which carries every diagnostic ``check``
gives, rather than act on a model ``check`` rejects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .base.diagnostics import Diagnostic
from .base.dims import Dim
from .base.errors import IrToolsError, SourceLoc, needs_onnx
from .base.packed import element_type_of, numpy_dtype
from .ir.model import Edge, Graph, Layer, Port, RtNode, UnknownLayerError
from .ir.reader import read_ir
from .ops.spec import TensorType
from .passes.base import Pass, PassError, PassManager, PassResult
from .passes.builder import GraphBuilder, Output, output_of
from .passes.extract import CutError, extract, tensor_ports
from .passes.in_bodies import bodies, set_bodies
from .passes.interface_names import rename_input, rename_output, write_ir
from .passes.pattern import AnyInput, Const, Match, Op, matches
from .passes.shapes import infer_shapes
from .passes.validate import InvalidModelError, read_valid
from .runtime.executor import run
from .runtime.inputs import random_inputs, random_steps
from .runtime.verdict import check, fix_shapes, migrate

if TYPE_CHECKING:
    import numpy as np

    from .runtime.compare import CompareReport, Tolerances
    from .runtime.numeric_check import CompareOptions
    from .runtime.openvino import ModelFiles
    from .runtime.reduce import Failure, Reduction
    from .runtime.runners import ActivationRunner

__version__ = "0.1.0"

__all__ = [
    "AnyInput",
    "Const",
    "CutError",
    "Diagnostic",
    "Dim",
    "Edge",
    "Graph",
    "GraphBuilder",
    "InvalidModelError",
    "IrToolsError",
    "Layer",
    "Match",
    "Op",
    "Pass",
    "PassError",
    "PassManager",
    "PassResult",
    "Port",
    "SourceLoc",
    "TensorType",
    "UnknownLayerError",
    "Output",
    "RtNode",
    "Candidate",
    "CompareReport",
    "LayerComparison",
    "OutputComparison",
    "TensorComparison",
    "ChildOpenVinoRunner",
    "CompareOptions",
    "OnnxRuntimeRunner",
    "OpenVinoRunner",
    "ReduceError",
    "Reduction",
    "ReferenceRunner",
    "Tolerances",
    "check",
    "against_fails",
    "bodies",
    "compare",
    "compare_against",
    "compare_fails",
    "compare_outputs",
    "compare_steps",
    "element_type_of",
    "extract",
    "fix_shapes",
    "from_onnx",
    "infer_shapes",
    "inspect",
    "matches",
    "migrate",
    "numpy_dtype",
    "openvino_fails",
    "output_of",
    "read_ir",
    "random_inputs",
    "random_steps",
    "read_valid",
    "reduce",
    "rename_input",
    "rename_output",
    "run",
    "set_bodies",
    "tensor_ports",
    "write_ir",
]


#: Public names whose modules import OpenVINO: imported on first use, so ``import ir_tools`` does not.
_LAZY = {"CompareOptions": "runtime.numeric_check", "OpenVinoRunner": "runtime.runners",
         "ChildOpenVinoRunner": "runtime.runners", "OnnxRuntimeRunner": "runtime.runners",
         "ReferenceRunner": "runtime.runners", "compare_outputs": "runtime.runners", "Tolerances": "runtime.compare",
         **dict.fromkeys(("CompareReport", "LayerComparison", "TensorComparison"), "runtime.compare"),
         "OutputComparison": "runtime.runners", "Candidate": "runtime.reduce",
         **dict.fromkeys(("Reduction", "ReduceError", "compare_fails", "openvino_fails", "against_fails"),
                         "runtime.reduce")}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'ir_tools' has no attribute {name!r}")


def compare(graph: Graph | str | Path, inputs: dict[str, np.ndarray], options: CompareOptions | None = None,
            openvino: ActivationRunner | ModelFiles | None = None) -> CompareReport:
    """OpenVINO CPU against the numpy reference on ``inputs`` (``runtime.numeric_check.compare_model``): a
    ``CompareReport`` per output, and per layer with ``CompareOptions(per_layer=True)``. ``openvino`` is a runner
    (``OpenVinoRunner``, ``ChildOpenVinoRunner``), by default this process's OpenVINO on ``graph``."""
    from .ir.reader import graph_of
    from .runtime.numeric_check import CompareOptions, compare_model

    return compare_model(graph_of(graph, read_valid), inputs, options or CompareOptions(), openvino)


def compare_steps(graph: Graph, steps: Sequence[Mapping[str, np.ndarray]],
                  options: CompareOptions | None = None) -> CompareReport:
    """A stateful model (ReadValue/Assign) on OpenVINO CPU against the numpy reference over ``steps`` (each step's
    inputs by input name: ``random_steps``), as ``ir-tools compare --steps N``: one infer request and one reference
    carry the state; after each step every output and every variable (``state ID (step K)``) is compared, and the
    first failing step is named (``report.steps``, ``report.first_divergence``). One inference compares no state,
    which is why ``compare`` refuses such a model. The graph is validated first; E-USAGE for one without state."""
    from .passes.validate import require_valid
    from .runtime.numeric_check import CompareOptions
    from .runtime.steps import compare_steps as over_steps

    require_valid(graph)
    return over_steps(graph, steps, options or CompareOptions())


def compare_against(graph: Graph, against: Graph | str | Path,
                    inputs: Mapping[str, np.ndarray] | Sequence[Mapping[str, np.ndarray]],
                    tolerances: Tolerances | None = None, per_layer: bool = False) -> CompareReport:
    """``graph`` (A) against another model (B) on the same inputs, as ``ir-tools compare A --against B``: both on
    OpenVINO CPU (an ONNX B on onnxruntime), every output of A with B's of its name and, per layer (``per_layer``, or
    whenever an output fails), every tensor matched by name, the first drifting layer named. ``against``: a Graph, or
    the path of an IR (validated) or of an ONNX file (the onnx extra). ``tolerances``: None derives them from how the
    weights of the two differ (f16 against f32: each tensor's own bound, in the report's ``against``), else the
    caller's. ``inputs``: A's, by A's input names; for a stateful A the steps of a generation loop (``random_steps``),
    B holding the same variables, each step compared and then every variable. Both graphs are validated first."""
    from .passes.validate import require_valid
    from .runtime.against import IrModel
    from .runtime.against_steps import compare_models
    from .runtime.openvino import ModelFiles

    require_valid(graph)
    if isinstance(against, Graph):
        require_valid(against)
        other = IrModel(against)
    elif Path(against).suffix.lower() == ".onnx":
        try:
            from .onnx.reading import load_checked
            from .runtime.onnxruntime import OnnxModel
        except ImportError as exc:
            raise needs_onnx("compare_against an ONNX file", exc) from None
        other = OnnxModel(Path(against), load_checked(Path(against)))
    else:
        other = IrModel(read_valid(against), ModelFiles(Path(against), Path(against).with_suffix(".bin")))
    return compare_models(IrModel(graph), other, inputs, tolerances, per_layer)


def reduce(graph: Graph, inputs: dict[str, np.ndarray], fails: Failure,
           saved: dict[str, np.ndarray] | None = None) -> Reduction:
    """The smallest part of ``graph`` found to fail as ``fails`` says, fed the activations of the whole graph on
    ``inputs`` (validated: E-INPUT), as ``ir-tools reduce`` finds it (``runtime.reduce``)."""
    from .runtime.inputs import check_inputs
    from .runtime.reduce import Runs, activations, judged_by_openvino_alone, reduce_model

    runs = Runs()
    fed = activations(graph, check_inputs(graph, inputs), saved or {}, runs, partial=judged_by_openvino_alone(fails))
    return reduce_model(graph, fed, fails, runs)


def inspect(source: Graph | str | Path, bin_path: str | Path | None = None) -> dict:
    """Inputs, outputs, op histogram and layers of a model (a file, or a Graph as it is in memory, as ``check``
    takes one), and the diagnostics ``check`` gives without OpenVINO (as dicts), as ``ir-tools inspect --format
    json``; a file that cannot be read raises IrToolsError."""
    from .ir.inspect import summary
    from .ir.reader import graph_of
    from .passes.validate import check_graph

    graph = graph_of(source, lambda path: read_ir(path, bin_path))
    return {**summary(graph), "diagnostics": [d.to_dict() for d in check_graph(graph)[0]]}


def from_onnx(path: str | Path, compress_to_fp16: bool = True) -> Graph:
    """An ONNX model as an IR graph, as ``ir-tools convert-onnx`` makes it (OpenVINO's frontend for every op, ours
    for average pooling); ``onnx`` is imported only here, so the rest works without it (IrToolsError, E-USAGE, says
    how to install it)."""
    try:
        from .onnx import from_onnx as convert
    except ImportError as exc:
        raise needs_onnx("from_onnx", exc) from None

    return convert(path, compress_to_fp16)
