"""Convolution's rounding rule on int8 convolutions: OpenVINO CPU without VNNI (AVX2) sums each pair of adjacent
input channels' u8 x s8 products at a tap saturating to int16 (vpmaddubsw), so a quantized convolution may be off
by what the pairs beyond int16 lose (ops/convolution.py, ``_int8_saturation``). The rule must accept that and
nothing where the inputs are not on int8 grids.
"""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset8 as o
import pytest

from ir_tools.ops.convolution import CONVOLUTION_1, ConvolutionAttrs
from ir_tools.ops.rounding import accumulation
from ir_tools.runtime.openvino import CPU_CONFIG

#: (input channels, u8 zero point and step of the FakeQuantize's range, pads, stride, kernel)
CASES = [(3, 122, 0.033, 0, 2, 3), (16, 64, 1 / 64, 1, 1, 3), (4, 191, 1 / 64, 1, 1, 3), (5, 223, 0.0157, 2, 1, 3),
         (6, 128, 0.01, 1, 1, 3), (32, 0, 2 / 255, 0, 1, 1)]


def fq_range(zp: int, step: float) -> tuple[float, float]:
    """The range of a 256-level FakeQuantize with this zero point (exactly on its grid, as onnxruntime's are)."""
    return float(np.float32(-zp * step)), float(np.float32((255 - zp) * step))


def saturated(q: np.ndarray, j: np.ndarray, zp: int, pads: int, stride: int) -> np.ndarray:
    """What OpenVINO CPU's AVX2 int8 convolution sums (independently of the rule's code): u8 ``q`` (padding at
    ``zp``), s8 ``j``, pairs of adjacent channels saturated to int16, minus the zero point's share; 2-D."""
    n, c, h, w = q.shape
    cout, _, kh, kw = j.shape
    padded = np.full((n, c + c % 2, h + 2 * pads, w + 2 * pads), zp, np.int64)
    padded[:, c:] = 0
    padded[:, :c, pads:pads + h, pads:pads + w] = q
    weights = np.zeros((cout, c + c % 2, kh, kw), np.int64)
    weights[:, :c] = j
    oh, ow = (h + 2 * pads - kh) // stride + 1, (w + 2 * pads - kw) // stride + 1
    acc = np.zeros((n, cout, oh, ow), np.int64)
    for a in range(kh):
        for b in range(kw):
            taps = padded[:, :, a:a + stride * (oh - 1) + 1:stride, b:b + stride * (ow - 1) + 1:stride]
            pairs = np.einsum("npkhw,opk->nophw", taps.reshape(n, -1, 2, oh, ow),
                              weights[:, :, a, b].reshape(cout, -1, 2))
            acc += np.clip(pairs, -(2**15), 2**15 - 1).sum(axis=2)
    return acc - zp * j.sum(axis=(1, 2, 3))[None, :, None, None]


def bound(x: np.ndarray, w: np.ndarray, attrs: ConvolutionAttrs) -> tuple[np.ndarray, np.ndarray]:
    """The reference and the rule's bound on OpenVINO's inputs (exact: f32 activations and constants)."""
    (y,) = CONVOLUTION_1.kernel(attrs, [x, w])
    (b,) = CONVOLUTION_1.rounding(CONVOLUTION_1.kernel, attrs, [x, w], [np.zeros(()), np.zeros(())], [y])
    return y.astype(np.float64), b


def quantized_case(rng: np.random.Generator, c: int, zp: int, step: float, k: int):
    """Data on a u8 grid, weights of 127 at one tap of every output channel."""
    q = rng.integers(0, 256, (1, c, 9, 9))
    x = ((q - zp) * step).astype(np.float32)
    j = rng.integers(-127, 128, (8, c, k, k))
    j[:, :, 0, 0] = 127
    return q, zp, step, x, j


@pytest.mark.parametrize("case", CASES)
def test_the_bound_covers_saturated_pairs_and_the_f32_bound_did_not(case) -> None:
    c, zp, step, pads, stride, k = case
    q, zp, step, x, j = quantized_case(np.random.default_rng(c), c, zp, step, k)
    scale = np.float32(0.01)
    w = (j * scale).astype(np.float32)
    attrs = ConvolutionAttrs((stride, stride), (1, 1), (pads, pads), (pads, pads))
    y, b = bound(x, w, attrs)
    cpu = saturated(q, j, zp, pads, stride) * (step * float(scale))
    off = np.abs(cpu - y)
    assert off.max() > 1.0, "the case must saturate some pair"
    assert (off <= b).all(), f"{(off > b).sum()} elements beyond the bound"
    f32_rule = accumulation(lambda a, args, outputs: int(np.prod(np.shape(args[1])[1:])))  # the rule before
    (f32_bound,) = f32_rule(CONVOLUTION_1.kernel, attrs, [x, w], [np.zeros(()), np.zeros(())], [y.astype(np.float32)])
    assert (off > f32_bound).any()


def test_no_allowance_off_int8_grids() -> None:
    rng = np.random.default_rng(1)
    attrs = ConvolutionAttrs((1, 1), (1, 1), (1, 1), (1, 1))
    x = rng.standard_normal((1, 8, 9, 9)).astype(np.float32)
    w = rng.standard_normal((4, 8, 3, 3)).astype(np.float32)
    q, _, _, xq, j = quantized_case(rng, 8, 0, 2 / 255, 3)
    wq = (j[:4] * np.float32(0.01)).astype(np.float32)
    for data, weights in ((x, w), (xq, w), (x, wq)):
        y, b = bound(data, weights, attrs)
        assert b.max() < 1e-3 * np.abs(y).max(), "f32 operands get the f32 bound only"
    # 7-bit weights (NNCF's overflow fix, -63..63; with a -64 they would also be the even 8-bit levels of half the
    # scale): no pair leaves int16
    seven_bit = np.clip(j[:4], -63, 63) * np.float32(0.01)
    y, b = bound(xq, seven_bit.astype(np.float32), attrs)
    assert b.max() < 1e-3 * np.abs(y).max()


@pytest.mark.openvino
@pytest.mark.parametrize("case", CASES)
def test_openvino_cpu_within_the_bound(case) -> None:
    """FakeQuantize (u8) into a Convolution of dequantized i8 weights, which OpenVINO CPU runs in int8: its output
    within the rule's bound, on the FakeQuantize's own output."""
    c, zp, step, pads, stride, k = case
    _, _, _, _, j = quantized_case(np.random.default_rng(c), c, zp, step, k)
    lo, hi = fq_range(zp, step)
    scale = np.float32(0.01)
    p = o.parameter([1, c, 9, 9], np.float32)
    fq = o.fake_quantize(p, np.float32(lo), np.float32(hi), np.float32(lo), np.float32(hi), 256)
    w = o.multiply(o.convert(o.constant(j.astype(np.int8)), np.float32), o.constant(np.full((8, 1, 1, 1), scale)))
    conv = o.convolution(fq, w, [stride] * 2, [pads] * 2, [pads] * 2, [1, 1])
    compiled = ov.Core().compile_model(ov.Model([conv, fq], [p]), "CPU", CPU_CONFIG)
    x = np.random.default_rng(c + 100).uniform(lo, hi, (1, c, 9, 9)).astype(np.float32)
    result = compiled([x])
    got, seen = result[0].astype(np.float64), result[1]
    attrs = ConvolutionAttrs((stride, stride), (1, 1), (pads, pads), (pads, pads))
    y, b = bound(seen, (j * scale).astype(np.float32), attrs)
    assert (np.abs(got - y) <= b).all(), f"{(np.abs(got - y) > b).sum()} elements beyond the bound"
