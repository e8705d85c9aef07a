"""Write samples/tricky_avgpool.onnx: the ONNX AveragePool forms a naive converter gets wrong.

One opset-22 model, one graph input and output per case (see samples/README_onnx.md). The
bytes are the same on every run: ``python samples/make_onnx_sample.py``.
"""

from __future__ import annotations

from pathlib import Path

import onnx
from onnx import TensorProto, helper

OUT = Path(__file__).resolve().parent / "tricky_avgpool.onnx"

#: (name, input shape, op type, attributes)
CASES: list[tuple[str, list[int], str, dict]] = [
    # OpenVINO's AvgPool-14/16 divides the overhanging last window by the whole kernel; ONNX
    # clips it at the end padding (1-D: [1, 3, 5, 2] vs [1, 3, 5, 3] per axis).
    ("ceil_count_pad", [1, 2, 6, 6], "AveragePool",
     {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1, "count_include_pad": 1}),
    # Begin and end pads differ per axis; OpenVINO's own downgrade pads pads_begin on both sides.
    ("asymmetric_pads", [1, 2, 7, 5], "AveragePool",
     {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [0, 1, 2, 0], "count_include_pad": 1}),
    # ceil(L/S) windows, the odd pad at the end.
    ("same_upper", [1, 2, 8, 9], "AveragePool", {"kernel_shape": [3, 4], "strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    # No AvgPool-1 form: the taps added from strided slices, divided by each window's count in an AvgPool.
    ("dilations", [1, 2, 9, 9], "AveragePool",
     {"kernel_shape": [3, 3], "dilations": [2, 2], "pads": [1, 1, 2, 2], "ceil_mode": 1}),
    ("global", [1, 3, 5, 7], "GlobalAveragePool", {}),
]


def build() -> onnx.ModelProto:
    nodes, inputs, outputs = [], [], []
    for name, shape, op_type, attrs in CASES:
        nodes.append(helper.make_node(op_type, [f"x_{name}"], [f"y_{name}"], name=f"pool_{name}", **attrs))
        inputs.append(helper.make_tensor_value_info(f"x_{name}", TensorProto.FLOAT, shape))
        outputs.append(helper.make_tensor_value_info(f"y_{name}", TensorProto.FLOAT, [None] * len(shape)))
    graph = helper.make_graph(nodes, "tricky_avgpool", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)], producer_name="ir_tools samples")
    model.ir_version = 10  # the oldest IR version opset 22 allows, so older runtimes read it too
    onnx.checker.check_model(model, full_check=True)
    return model


if __name__ == "__main__":
    onnx.save(build(), OUT)
    print(f"wrote {OUT}")
