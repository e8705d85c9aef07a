"""ONNX import: whole networks through OpenVINO's ONNX frontend, with ir_tools' exact average pooling."""

from __future__ import annotations

from pathlib import Path

from google.protobuf.message import DecodeError
from onnx import TensorProto

from ..ir.model import Graph
from .importer import SUPPORTED, import_pooling
from .reading import load_checked, require_file, unreadable
from .wire import OnnxBytes


def from_onnx(path: str | Path, compress_to_fp16: bool = True) -> Graph:
    """Read, check and convert an ONNX model into an IR graph (validate it before writing).

    A graph of pooling alone (AveragePool, GlobalAveragePool, Identity) is imported without OpenVINO;
    any other goes through OpenVINO's ONNX frontend with the pooling cut out and spliced back
    (``network``). ``compress_to_fp16``: store float weights as f16, as ``ovc`` does by default.
    An Identity of f64 goes through OpenVINO's frontend too (Identity-16): the no-op Convert the importer gives
    it runs in f32 on the CPU (pi rounded to f32, 1e300 came out 0).
    """
    path = Path(path)
    require_file(path)
    try:
        source = OnnxBytes.read(path)
    except (ValueError, IndexError, DecodeError) as exc:  # not protobuf, or not an ONNX model's
        raise unreadable(path, exc) from None
    if all(node.domain in ("", "ai.onnx") and node.op_type in SUPPORTED for node in source.nodes) and not (
            any(node.op_type == "Identity" for node in source.nodes)
            and any(value.type.tensor_type.elem_type == TensorProto.DOUBLE for value in source.inputs)):
        return import_pooling(load_checked(path), path)
    from .network import convert_network  # imports openvino's frontend: only whole networks need it

    return convert_network(source, path, compress_to_fp16)


__all__ = ["from_onnx"]
