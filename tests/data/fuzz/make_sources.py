"""Regenerate the small IRs the mutation fuzzer starts from (tests/mutation_fuzz.py), with OpenVINO's serializer.

Run ``python tests/data/fuzz/make_sources.py``. Each is a few layers of the ops the samples lack: MatMul, Pad,
Reshape, Concat, Gather, TopK (two outputs), f16 weights decompressed by Convert, a dynamic batch.
Every node and tensor is named, so the files are byte-identical from run to run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset8 as ops
import openvino.opset14 as ops14

HERE = Path(__file__).resolve().parent


def _named(model: ov.Model) -> ov.Model:
    """Fixed names for every node and its first output (OpenVINO's own come from a process-wide counter)."""
    for i, node in enumerate(model.get_ordered_ops()):
        node.set_friendly_name(f"{node.get_type_name().lower()}_{i}")
        if node.get_output_size() and node.get_type_name() != "Result":
            node.output(0).get_tensor().set_names({f"t{i}"})
    return model


def dense() -> ov.Model:
    """Pad -> Convolution (f16 weights) -> MaxPool-14 -> Reshape -> MatMul -> Add -> SoftMax, and a TopK."""
    rng = np.random.default_rng(3)
    x = ops.parameter([1, 3, 6, 6], np.float32, name="x")
    pad = ops.pad(x, ops.constant(np.array([0, 0, 1, 1], np.int64)), ops.constant(np.array([0, 0, 1, 1], np.int64)),
                  "constant", ops.constant(np.float32(0)))
    weights = ops.convert(ops.constant(rng.standard_normal((4, 3, 3, 3)).astype(np.float16)), np.float32)
    conv = ops.convolution(pad, weights, [1, 1], [0, 0], [0, 0], [1, 1])
    pool = ops14.max_pool(conv, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2], "ceil_torch").output(0)
    flat = ops.reshape(pool, ops.constant(np.array([1, -1], np.int64)), False)
    dense_ = ops.matmul(flat, ops.constant(rng.standard_normal((36, 5)).astype(np.float32)), False, False)
    logits = ops.add(dense_, ops.constant(rng.standard_normal((1, 5)).astype(np.float32)))
    top = ops.topk(logits, ops.constant(np.int64(2)), 1, "max", "value", "i64")
    return _named(ov.Model([ops.softmax(logits, 1).output(0), top.output(1)], [x], "dense"))


def dynamic() -> ov.Model:
    """A dynamic batch: Concat, Gather with i32 indices, Transpose, ReduceMean, ShapeOf."""
    x = ops.parameter([-1, 4], np.float32, name="x")
    ids = ops.parameter([-1], np.int32, name="ids")
    both = ops.concat([x, ops.multiply(x, ops.constant(np.float32(2)))], 1)
    picked = ops.gather(both, ids, ops.constant(np.int64(1)))
    moved = ops.transpose(picked, ops.constant(np.array([1, 0], np.int64)))
    mean = ops.reduce_mean(moved, ops.constant(np.array([1], np.int64)), True)
    return _named(ov.Model([mean.output(0), ops.shape_of(x).output(0)], [x, ids], "dynamic"))


if __name__ == "__main__":
    for build in (dense, dynamic):
        ov.save_model(build(), HERE / f"{build.__name__}.xml", compress_to_fp16=False)
