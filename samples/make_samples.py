"""Regenerate the sample IRs in this folder with OpenVINO's own serializer.

Run ``python samples/make_samples.py``. The samples are real OpenVINO output (plus one
deliberate edit in ``wrong_dims.xml``), so they show what ir_tools meets in the field.
Every node, tensor and Result is named explicitly: OpenVINO's automatic names come from a
process-wide counter, and explicit names keep the files byte-identical from run to run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset8 as ops8
import openvino.opset14 as ops14
import openvino.opset16 as ops16

HERE = Path(__file__).resolve().parent


def _named(node: ov.Node, name: str) -> ov.Node:
    """Give a node and its (single) output tensor the same fixed name."""
    node.set_friendly_name(name)
    node.output(0).get_tensor().set_names({name})
    return node


def _model(outputs: list[ov.Node], params: list[ov.Node], name: str) -> ov.Model:
    results = [ops1.result(out, name=f"{out.get_friendly_name()}/sink") for out in outputs]
    return ov.Model(results, params, name)


def _param(shape: list[int] | ov.PartialShape, name: str = "input") -> ov.Node:
    return _named(ops1.parameter(shape, np.float32, name=name), name)


def avgpool1_same_upper() -> ov.Model:
    """AvgPool-1, auto_pad same_upper: 17 -> 9 with k3 s2 (pads 1/1 computed, not written)."""
    x = _param([1, 3, 17, 17])
    pool = ops1.avg_pool(x, [2, 2], [0, 0], [0, 0], [3, 3], True, "floor", "same_upper")
    return _model([_named(pool, "pool")], [x], "avgpool1_same_upper")


def adaptive_avgpool8() -> ov.Model:
    """AdaptiveAvgPool-8 halving 32x32 to 16x16; output_size is an i64 Const."""
    x = _param([1, 3, 32, 32])
    size = ops1.constant(np.array([16, 16], np.int64), name="output_size")
    size.output(0).get_tensor().set_names({"output_size"})
    pool = ops8.adaptive_avg_pool(x, size)
    return _model([_named(pool, "adaptive_pool")], [x], "adaptive_avgpool8")


def avgpool14_ceil_torch() -> ov.Model:
    """AvgPool-14 ceil_torch where it drops a window that ceil keeps.

    L=5 and L=7, K2, S2, pads 1/1: ceil gives 4x5, ceil_torch 3x4 (the last window would
    start in the end padding). exclude-pad=false, so the divisor counts padded taps.
    """
    x = _param([1, 2, 5, 7])
    pool = ops14.avg_pool(x, [2, 2], [1, 1], [1, 1], [2, 2], False, "ceil_torch")
    return _model([_named(pool, "pool")], [x], "avgpool14_ceil_torch")


def avgpool16_dilations() -> ov.Model:
    """AvgPool-16 with dilations 2,2: a k3 window spans 5 elements; 16 -> 7 with s2 p1."""
    x = _param([1, 3, 16, 16])
    pool = ops16.avg_pool(x, [2, 2], [1, 1], [1, 1], [3, 3], True, "floor", dilations=[2, 2])
    return _model([_named(pool, "pool")], [x], "avgpool16_dilations")


def wrong_dims_base() -> ov.Model:
    """Two chained AvgPool-1 layers; the first one's output dims get edited after saving."""
    x = _param([1, 3, 17, 17])
    pool1 = _named(ops1.avg_pool(x, [2, 2], [0, 0], [0, 0], [3, 3], True), "pool1")  # 17 -> 8
    pool2 = _named(ops1.avg_pool(pool1, [1, 1], [0, 0], [0, 0], [2, 2], True), "pool2")  # 8 -> 7
    return _model([pool2], [x], "wrong_dims")


def mixed_network() -> ov.Model:
    """Convolution, Relu, AvgPool and AdaptiveAvgPool with seeded f32 weights (saved as f16 + Convert)."""
    rng = np.random.default_rng(0)
    x = _param([1, 3, 32, 32])
    w1 = ops1.constant(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), name="conv1/weights")
    conv1 = _named(ops1.convolution(x, w1, [1, 1], [1, 1], [1, 1], [1, 1]), "conv1")
    relu1 = _named(ops1.relu(conv1), "relu1")
    pool1 = _named(ops1.avg_pool(relu1, [2, 2], [0, 0], [0, 0], [2, 2], True), "pool1")
    w2 = ops1.constant(rng.standard_normal((4, 8, 1, 1)).astype(np.float32), name="conv2/weights")
    conv2 = _named(ops1.convolution(pool1, w2, [1, 1], [0, 0], [0, 0], [1, 1]), "conv2")
    relu2 = _named(ops1.relu(conv2), "relu2")
    size = ops1.constant(np.array([4, 4], np.int64), name="output_size")
    adaptive = _named(ops8.adaptive_avg_pool(relu2, size), "adaptive_pool")
    return _model([adaptive, pool1], [x], "mixed_network")


def dynamic_avgpool() -> ov.Model:
    """AvgPool-1 on a dynamic batch, an interval height 16..64 and a dynamic width."""
    shape = ov.PartialShape([ov.Dimension(), ov.Dimension(3), ov.Dimension(16, 64), ov.Dimension(-1)])
    x = _param(shape)
    pool = ops1.avg_pool(x, [2, 2], [1, 1], [1, 1], [3, 3], True, "ceil")
    return _model([_named(pool, "pool")], [x], "dynamic_avgpool")


def _set_dims(xml: str, layer: str, section: str, dims: list[int]) -> str:
    """Replace the <dim>s of the first port in ``section`` (input/output) of layer ``layer``."""
    start = xml.index(f'name="{layer}"')
    end = xml.index("</layer>", start)
    block = xml[start:end]
    sec_start = block.index(f"<{section}>")
    port_end = block.index("</port>", sec_start)
    port = block[sec_start:port_end]
    indent = re.search(r"\n(\t*)<dim>", port).group(1)
    new_port = re.sub(r"(\n\t*<dim>\d+</dim>)+", "".join(f"\n{indent}<dim>{d}</dim>" for d in dims), port, count=1)
    return xml[:start] + block[:sec_start] + new_port + block[port_end:] + xml[end:]


def make_wrong_dims(path: Path) -> None:
    """Declare pool1's output (and pool2's input) as 9x9 where OpenVINO infers 8x8."""
    ov.save_model(wrong_dims_base(), path)
    xml = path.read_text()
    xml = _set_dims(xml, "pool1", "output", [1, 3, 9, 9])
    xml = _set_dims(xml, "pool2", "input", [1, 3, 9, 9])
    path.write_text(xml)
    model = ov.Core().read_model(path)  # OpenVINO ignores declared dims of known ops ...
    pool1 = next(op for op in model.get_ops() if op.get_friendly_name() == "pool1")
    assert pool1.get_output_partial_shape(0) == ov.PartialShape([1, 3, 8, 8]), pool1.get_output_partial_shape(0)
    assert "<dim>9</dim>" in xml  # ... so the wrong dims must survive only in the file


SAMPLES: dict[str, Callable[[], ov.Model]] = {
    "avgpool1_same_upper": avgpool1_same_upper,
    "adaptive_avgpool8": adaptive_avgpool8,
    "avgpool14_ceil_torch": avgpool14_ceil_torch,
    "avgpool16_dilations": avgpool16_dilations,
    "mixed_network": mixed_network,
    "dynamic_avgpool": dynamic_avgpool,
}


def main() -> None:
    for name, build in SAMPLES.items():
        path = HERE / f"{name}.xml"
        ov.save_model(build(), path)  # default compress_to_fp16: f32 Consts become f16 + Convert
        ov.Core().read_model(path)
        print(f"wrote {path.relative_to(HERE.parent)}")
    make_wrong_dims(HERE / "wrong_dims.xml")
    print(f"wrote {(HERE / 'wrong_dims.xml').relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
