"""ir_tools: validate, migrate and numerically check OpenVINO IR files.

The public API (everything else is internal and may change):

- ``read_ir(xml_path, bin_path=None) -> Graph``
- ``write_ir(graph, xml_path, ir_version=11)``
- ``infer_shapes(graph) -> list[Diagnostic]``
- ``check(xml_path) -> list[Diagnostic]``
- ``run(graph, inputs) -> dict[str, numpy.ndarray]`` (the numpy reference, keyed by output name)
- ``migrate(graph, target="opset8") -> PassResult`` (every average pooling into opset8 AvgPool)
- ``from_onnx(path) -> Graph`` (ONNX AveragePool / GlobalAveragePool models; needs ``onnx``)
"""

from pathlib import Path

from .diagnostics import Diagnostic
from .errors import IrToolsError, SourceLoc
from .ir.model import Edge, Graph, Layer, Port
from .ir.reader import read_ir
from .ir.writer import write_ir
from .passes.shapes import infer_shapes
from .passes.to_opset8 import migrate
from .runtime.executor import run
from .validate import check

__version__ = "0.1.0"

__all__ = [
    "Diagnostic",
    "Edge",
    "Graph",
    "IrToolsError",
    "Layer",
    "Port",
    "SourceLoc",
    "check",
    "from_onnx",
    "infer_shapes",
    "migrate",
    "read_ir",
    "run",
    "write_ir",
]


def from_onnx(path: str | Path) -> Graph:
    """Import an ONNX model; ``onnx`` is imported only here, so the rest works without it."""
    from .onnx.importer import from_onnx as import_onnx

    return import_onnx(path)
