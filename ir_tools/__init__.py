"""ir_tools: validate, migrate and numerically check OpenVINO IR files.

The public API (everything else is internal and may change):

- ``read_ir(xml_path, bin_path=None) -> Graph``
- ``write_ir(graph, xml_path, ir_version=11)``
- ``infer_shapes(graph) -> list[Diagnostic]``
- ``check(xml_path) -> list[Diagnostic]``
- ``run(graph, inputs) -> dict[str, numpy.ndarray]`` (the numpy reference, keyed by output name)
"""

from .diagnostics import Diagnostic
from .errors import IrToolsError, SourceLoc
from .ir.model import Edge, Graph, Layer, Port
from .ir.reader import read_ir
from .ir.writer import write_ir
from .passes.shapes import infer_shapes
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
    "infer_shapes",
    "read_ir",
    "run",
    "write_ir",
]
