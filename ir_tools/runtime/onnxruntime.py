"""onnxruntime as the reference for converted ONNX models (``convert-onnx --check``), and an ONNX model as one side
of ``compare --against`` (``OnnxModel``: its inputs, its computed tensors, a run that returns them too)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..base.crash_notes import ran
from ..base.errors import IrToolsError, SourceLoc, needs_onnx

if TYPE_CHECKING:
    import onnx

#: The largest finite f16: float weights beyond it stay f32 in OpenVINO's compression.
_F16_MAX = 65504.0


def run_onnxruntime(path: Path, inputs: Mapping[str, np.ndarray], f16_weights: bool = False,
                    model: onnx.ModelProto | None = None, tensors: Sequence[str] = ()) -> dict[str, np.ndarray]:
    """The ONNX model's outputs on CPU, keyed by output name, and the values of ``tensors`` (names of tensors its
    nodes compute, made graph outputs of a copy of the model: onnxruntime returns nothing else).

    ``model``: the file's model, loaded already. ``f16_weights``: run it with its f32 initializers rounded to f16
    (those within f16's range), as OpenVINO's weight compression stores them, so that a comparison measures the
    conversion alone.
    """
    onnx, onnxruntime = _import()
    if model is None:
        model = onnx.load(str(path))
    elif f16_weights or tensors:
        model = _copy(model)  # the caller's stays as it is
    if f16_weights:
        _round_weights_to_f16(model)
    known = {out.name for out in model.graph.output}
    model.graph.output.extend(onnx.ValueInfoProto(name=name) for name in dict.fromkeys(tensors) if name not in known)
    ran("onnxruntime")
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL  # no fused rounding
    try:
        session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        names = [out.name for out in session.get_outputs()]
        return dict(zip(names, session.run(names, dict(inputs)), strict=True))
    except Exception as exc:  # noqa: BLE001 (onnxruntime raises its own exception types)
        raise IrToolsError(f"onnxruntime cannot run {path.name}: {exc}", code="E-ONNXRUNTIME") from None


def _import() -> tuple:
    """The onnx and onnxruntime modules, or E-USAGE saying how to install them."""
    try:
        import onnx
        import onnxruntime
    except ImportError as exc:
        raise needs_onnx("running an ONNX model", exc) from None
    return onnx, onnxruntime


def _copy(model: onnx.ModelProto) -> onnx.ModelProto:
    copy = type(model)()
    copy.CopyFrom(model)
    return copy


def _round_weights_to_f16(model) -> None:
    from onnx import TensorProto, numpy_helper

    for i, init in enumerate(model.graph.initializer):
        if init.data_type != TensorProto.FLOAT:
            continue
        value = numpy_helper.to_array(init)
        if value.size and np.all(np.abs(value) <= _F16_MAX):
            rounded = value.astype(np.float16).astype(np.float32)
            model.graph.initializer[i].CopyFrom(numpy_helper.from_array(rounded, init.name))


@dataclass(frozen=True)
class OnnxTensor:
    """A tensor an ONNX node computes: its name and the node's op type."""

    name: str
    op_type: str


class OnnxModel:
    """An ONNX model (``model``, loaded and checked from ``path``) run by onnxruntime on CPU: the other side of
    ``compare --against``."""

    def __init__(self, path: Path, model: onnx.ModelProto):
        self.path = path
        self.model = model
        onnx, onnxruntime = _import()
        self.name = f"onnxruntime {onnxruntime.__version__}"
        self._numpy_type = onnx.helper.tensor_dtype_to_np_dtype
        initialized = {init.name for init in model.graph.initializer}
        self.inputs = {value.name: value for value in model.graph.input if value.name not in initialized}

    def input_dtype(self, name: str) -> np.dtype:
        return np.dtype(self._numpy_type(self.inputs[name].type.tensor_type.elem_type))

    def check_inputs(self, inputs: Mapping[str, np.ndarray]) -> None:
        """Each input's rank and fixed dims as the model declares them (its dtype the caller has made right)."""
        for name, value in self.inputs.items():
            shape = value.type.tensor_type.shape
            dims = [d.dim_value if d.HasField("dim_value") else None for d in shape.dim]
            got = np.shape(inputs[name])
            if value.type.tensor_type.HasField("shape") and (
                    len(dims) != len(got) or any(d is not None and d != n for d, n in zip(dims, got, strict=True))):
                raise IrToolsError(f"input '{name}' has shape {list(got)}, {self.path.name} accepts "
                                   f"{['?' if d is None else d for d in dims]}", SourceLoc(str(self.path)),
                                   code="E-INPUT")

    def outputs(self) -> list[str]:
        return [value.name for value in self.model.graph.output]

    def tensors(self) -> list[OnnxTensor]:
        """The tensors computed from the inputs and used (consumed, or an output), in the graph's (topological)
        order: not the constants (an initializer, a Constant node and what nodes compute from those alone), which
        are weights, not activations."""
        constant = {init.name for init in self.model.graph.initializer} | {""}
        used = {name for node in self.model.graph.node for name in node.input} | set(self.outputs())
        found = []
        for node in self.model.graph.node:
            if all(name in constant for name in node.input):
                constant.update(node.output)
                continue
            found += [OnnxTensor(name, node.op_type) for name in node.output if name in used]
        return found

    def float_types(self) -> set[np.dtype]:
        """The float element types of its weights (initializers, Constant nodes) and of its inputs."""
        types = [init.data_type for init in self.model.graph.initializer]
        types += [attr.t.data_type for node in self.model.graph.node if node.op_type == "Constant"
                  for attr in node.attribute if attr.name == "value"]
        found = {np.dtype(self._numpy_type(t)) for t in types if t}
        found |= {self.input_dtype(name) for name in self.inputs}
        return {t for t in found if t.kind == "f"}

    def run(self, inputs: Mapping[str, np.ndarray], tensors: Sequence[str] = ()) -> dict[str, np.ndarray]:
        """The outputs, and the values of ``tensors``, by name."""
        return run_onnxruntime(self.path, inputs, model=self.model, tensors=tensors)
