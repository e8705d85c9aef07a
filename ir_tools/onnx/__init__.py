"""ONNX import: whole networks through OpenVINO's ONNX frontend, with ir_tools' exact average pooling."""

from __future__ import annotations

from pathlib import Path

from ..ir.model import Graph
from .importer import SUPPORTED, import_pooling
from .reading import load_checked


def from_onnx(path: str | Path, compress_to_fp16: bool = True) -> Graph:
    """Read, check and convert an ONNX model into an IR graph (validate it before writing).

    A graph of pooling alone (AveragePool, GlobalAveragePool, Identity) is imported without OpenVINO;
    any other goes through OpenVINO's ONNX frontend with the pooling cut out and spliced back
    (``network``). ``compress_to_fp16``: store float weights as f16, as ``ovc`` does by default.
    """
    path = Path(path)
    model = load_checked(path)
    if all(node.domain in ("", "ai.onnx") and node.op_type in SUPPORTED for node in model.graph.node):
        return import_pooling(model, path)
    from .network import convert_network  # imports openvino's frontend: only whole networks need it

    return convert_network(model, path, compress_to_fp16)


__all__ = ["from_onnx"]
