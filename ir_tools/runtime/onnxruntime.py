"""onnxruntime as the reference for converted ONNX models (``convert-onnx --check``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..base.errors import IrToolsError

#: The largest finite f16: float weights beyond it stay f32 in OpenVINO's compression.
_F16_MAX = 65504.0


def run_onnxruntime(path: Path, inputs: Mapping[str, np.ndarray], f16_weights: bool = False) -> dict[str, np.ndarray]:
    """The ONNX model's outputs on CPU, keyed by output name.

    ``f16_weights``: run it with its f32 initializers rounded to f16 (those within f16's range), as
    OpenVINO's weight compression stores them, so that a comparison measures the conversion alone.
    """
    try:
        import onnx
        import onnxruntime
    except ImportError as exc:
        raise IrToolsError(f"--check needs onnxruntime: pip install 'ir_tools[onnx]' ({exc})", code="E-USAGE") from None
    model = onnx.load(str(path))
    if f16_weights:
        _round_weights_to_f16(model)
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL  # no fused rounding
    try:
        session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        names = [out.name for out in session.get_outputs()]
        return dict(zip(names, session.run(names, dict(inputs)), strict=True))
    except Exception as exc:  # noqa: BLE001 (onnxruntime raises its own exception types)
        raise IrToolsError(f"onnxruntime cannot run {path.name}: {exc}", code="E-ONNXRUNTIME") from None


def _round_weights_to_f16(model) -> None:
    from onnx import TensorProto, numpy_helper

    for i, init in enumerate(model.graph.initializer):
        if init.data_type != TensorProto.FLOAT:
            continue
        value = numpy_helper.to_array(init)
        if value.size and np.all(np.abs(value) <= _F16_MAX):
            rounded = value.astype(np.float16).astype(np.float32)
            model.graph.initializer[i].CopyFrom(numpy_helper.from_array(rounded, init.name))
