"""ir_tools: validate, migrate, transform and numerically check OpenVINO IR files.

The public API (everything else is internal and may change):

- ``read_ir(xml_path, bin_path=None) -> Graph``; ``read_valid(...)`` also refuses what ``check`` rejects
- ``write_ir(graph, xml_path, ir_version=11)`` (atomic; never over the input unless asked)
- ``check(xml_path, bin_path=None, openvino=True, compile_model=False) -> list[Diagnostic]``: what
  ``ir-tools check`` prints (``openvino=False`` is ``--no-openvino``)
- ``infer_shapes(graph) -> list[Diagnostic]``
- ``run(graph, inputs) -> dict[str, numpy.ndarray]`` (the numpy reference, keyed by output name)
- ``migrate(graph_or_path, target="opset8") -> PassResult`` (every average pooling into opset8 AvgPool;
  a legacy IR v7 file is lowered first)
- transformations: ``Pass``, ``PassManager``, ``PassResult``, ``PassError``; patterns ``Op``, ``AnyInput``,
  ``Const``, ``matches``, ``Match``; ``GraphBuilder`` to add layers (typed attributes: ``GraphBuilder.attrs``);
  ``Graph.replace_all_uses`` and ``Graph.remove_dead``
- ``from_onnx(path) -> Graph`` (needs ``onnx``)

Whatever validates a graph first raises ``InvalidModelError``, which carries every diagnostic ``check``
gives, rather than act on a model ``check`` rejects.
"""

from pathlib import Path

from .base.diagnostics import Diagnostic
from .base.errors import IrToolsError, SourceLoc
from .ir.model import Edge, Graph, Layer, Port
from .ir.reader import read_ir
from .ir.writer import write_ir
from .ops.spec import TensorType
from .passes.base import Pass, PassError, PassManager, PassResult
from .passes.builder import GraphBuilder
from .passes.pattern import AnyInput, Const, Match, Op, matches
from .passes.shapes import infer_shapes
from .passes.to_opset8 import migrate
from .passes.validate import InvalidModelError, read_valid
from .runtime.executor import run
from .runtime.verdict import check

__version__ = "0.1.0"

__all__ = [
    "AnyInput",
    "Const",
    "Diagnostic",
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
    "check",
    "from_onnx",
    "infer_shapes",
    "matches",
    "migrate",
    "read_ir",
    "read_valid",
    "run",
    "write_ir",
]


def from_onnx(path: str | Path) -> Graph:
    """Import an ONNX model; ``onnx`` is imported only here, so the rest works without it."""
    from .onnx.importer import from_onnx as import_onnx

    return import_onnx(path)
