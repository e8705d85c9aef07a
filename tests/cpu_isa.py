"""Which x86 vector instruction set OpenVINO CPU runs its kernels with, as OpenVINO itself reports it.

Some OpenVINO CPU behaviours depend on it (docs/SEMANTICS.md, Corrections: "OpenVINO CPU by instruction
set"); tests that meet one ask here. The answer is read from the runtime model of a probe: the
primitiveType OpenVINO picked for an f32 AvgPool over 16 channels, ``jit_<isa>_f32``: ``avx512`` (what oneDNN
calls avx512_core), ``avx2``, ``avx`` or ``sse42``. This is what OpenVINO uses, not merely what the CPU has
(ONEDNN_MAX_CPU_ISA can lower it).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1

AVX512 = "avx512"


@functools.cache
def openvino_cpu_isa() -> str:
    param = ops1.parameter([1, 16, 8, 8], np.float32)
    pool = ops1.avg_pool(param, [1, 1], [0, 0], [0, 0], [2, 2], True)
    compiled = ov.Core().compile_model(ov.Model([pool], [param]), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    for op in compiled.get_runtime_model().get_ordered_ops():
        info = op.get_rt_info()
        if info["layerType"].astype(str) == "Pooling":
            kind = info["primitiveType"].astype(str)  # e.g. jit_avx2_f32
            parts = kind.split("_")
            if len(parts) >= 3 and parts[0] == "jit":
                return parts[1]
            raise AssertionError(f"OpenVINO ran the probe pooling as {kind!r}: not an x86 JIT kernel")
    raise AssertionError("the probe pooling is not in OpenVINO's runtime model")


def setting_moves_outputs(xml: Path, inputs: dict[str, np.ndarray], setting: dict[str, str]) -> bool:
    """Whether OpenVINO CPU's outputs of the model ``xml`` on ``inputs`` change when ``setting`` is added to the
    settings compare pins (``runtime.openvino.CPU_CONFIG``), read from two compilations of that file by OpenVINO
    alone. DYNAMIC_QUANTIZATION_GROUP_SIZE=32 moves a compressed-weight MatMul where the CPU quantizes activations
    (AVX-512 machines); on an AVX2 CPU without VNNI it changes no bit (docs/SEMANTICS.md)."""
    from ir_tools.runtime.openvino import CPU_CONFIG

    core = ov.Core()
    model = core.read_model(xml)
    found = []
    for config in (CPU_CONFIG, {**CPU_CONFIG, **setting}):
        request = core.compile_model(model, "CPU", config).create_infer_request()
        found.append([np.array(value) for value in request.infer(inputs).values()])
    return any(not np.array_equal(a, b, equal_nan=True) for a, b in zip(*found, strict=True))


#: How OpenVINO CPU rounds f32 to bf16 (``openvino_bf16``): in bf16 as AVX-512 BF16's vcvtneps2bf16 does (to
#: nearest, ties to even, an f32 subnormal to zero: as ``base.packed.to_bf16``), in bf16 keeping subnormals (AVX-512
#: without BF16), or not at all (AVX2: it computes bf16 tensors in f32 and rounds only what it exposes).
BF16_FLUSH, BF16_NEAREST, BF16_IN_F32 = "flush", "nearest", "f32"


@functools.cache
def openvino_bf16() -> str:
    """How OpenVINO CPU rounds to bf16 inside a model here (``BF16_FLUSH``, ``BF16_NEAREST`` or ``BF16_IN_F32``), read
    from a probe: f32 -> Convert bf16 -> Convert f32 on a value that rounds up and on a subnormal."""
    param = ops1.parameter([2], np.float32)
    back = ops1.convert(ops1.convert(param, "bf16"), "f32")
    compiled = ov.Core().compile_model(ov.Model([back], [param]), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    probe = np.array([1 + 2.0**-8 + 2.0**-20, 2.0**-130], np.float32)
    got = compiled({0: probe})[0]
    if got[0] == probe[0]:
        return BF16_IN_F32
    return BF16_FLUSH if got[1] == 0 else BF16_NEAREST
