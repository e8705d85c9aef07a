"""ir_tools: validate, migrate and numerically check OpenVINO IR files.

The public API (everything else is internal and may change):

- ``read_ir(xml_path, bin_path=None) -> Graph``
- ``write_ir(graph, xml_path, ir_version=11)``
- ``infer_shapes(graph) -> list[Diagnostic]``
- ``check(xml_path) -> list[Diagnostic]``
- ``read_valid(xml_path, bin_path=None) -> Graph`` (``read_ir``, then refuse what ``check`` rejects)
- ``run(graph, inputs) -> dict[str, numpy.ndarray]`` (the numpy reference, keyed by output name)
- ``migrate(graph, target="opset8") -> PassResult`` (every average pooling into opset8 AvgPool)

``run`` and ``migrate`` validate the graph first and raise ``InvalidModelError``, which carries
every diagnostic ``check`` gives, rather than act on a model ``check`` rejects.
- ``from_onnx(path) -> Graph`` (ONNX AveragePool / GlobalAveragePool models; needs ``onnx``)
"""

from pathlib import Path

from .base.diagnostics import Diagnostic
from .base.errors import IrToolsError, SourceLoc
from .ir.model import Edge, Graph, Layer, Port
from .ir.reader import read_ir
from .ir.writer import write_ir
from .passes.shapes import infer_shapes
from .passes.to_opset8 import migrate
from .passes.validate import check
from .runtime.executor import run

__version__ = "0.1.0"

__all__ = [
    "Diagnostic",
    "Edge",
    "Graph",
    "InvalidModelError",
    "IrToolsError",
    "Layer",
    "Port",
    "SourceLoc",
    "check",
    "from_onnx",
    "infer_shapes",
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
