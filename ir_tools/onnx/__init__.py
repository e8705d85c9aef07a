"""ONNX import: AveragePool / GlobalAveragePool graphs -> Graph with ONNX's exact semantics."""

from .importer import from_onnx

__all__ = ["from_onnx"]
