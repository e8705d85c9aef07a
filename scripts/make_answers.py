"""Regenerate tests/data/answers: OpenVINO's answers for every op version the opset table gives a shape rule or a
kernel, stored so that tests/ops/test_answers.py can check our rules and kernels without OpenVINO, in seconds.

Cases come from the conformance suites' own generators (tests/ops/*.py), seeded, at most ``PER_OP`` per op version.
Each source's cases are batched into one ov.Model (inputs fed as Parameters, or Constants where the generator says
so), every node output made a model output, compiled once for CPU (the runner's ``CPU_CONFIG``) and inferred. The
model is saved as IR and read back with ir_tools, which gives every layer's attributes as the IR spells them; for
each layer whose op version has a rule or kernel the file stores its input types and values, OpenVINO's inferred
output types, and (with a kernel) OpenVINO CPU's output values. Then, per layer, ``BLURS`` variants built with
NodeFactory on inputs of partial shapes around the real ones (and value inputs now known, now not) store OpenVINO's
inferred output types, or that it rejects the node. Ops of the table that no source covers are printed, and
tests/ops/test_answers.py fails naming them.

Left out, because the answer depends on this machine's CPU rather than on OpenVINO: cases with special float inputs
(NaN, infinities, -0, f32 subnormals: the CPU plugin's kernels treat them per ISA; on this AVX2 CPU a Greater
broadcast next to a NaN answers 2 > -0 false), cases whose result holds f32 subnormals, OpenVINO's or the exact one
(flushed to zero or not, per ISA), cases the CPU plugin does not compile here (some pooling forms: a batch that fails
to compile is compiled case by case and the failing ones dropped), and cases the generators mark as judged by
OpenVINO's evaluator rather than the CPU.

One file per source, ``tests/data/answers/<source>.npz``: ``cases``, a JSON text (records below), and one flat array
per element type holding every value, referred to as [dtype, offset, shape]. A record: op, version, attrs (raw);
``inputs``: [element, dims, source, value] with dims a list of ints or [lo, hi|null] pairs (null: a dynamic rank),
source "const" (OpenVINO's inference knows the value), "param" (it does not) or "node" (computed from a Parameter:
bounds OpenVINO may know and we do not, so the rule is not judged), value null where not stored; ``outputs``:
[element, dims, value] per output, or "rejects". Run it when the pinned openvino changes (about a minute):

    python scripts/make_answers.py

or with source names, to write only those files and leave the others as they are (a new op's cases, in a source of
their own, without rewriting the stored answers of the rest):

    python scripts/make_answers.py added
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset5 as ops5
import openvino.opset7 as ops7
import openvino.opset8 as ops8
from openvino.utils.node_factory import NodeFactory

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ir_tools import read_ir  # noqa: E402
from ir_tools.base.errors import IrToolsError  # noqa: E402
from ir_tools.ir.model import Layer  # noqa: E402
from ir_tools.ops import attrs as A  # noqa: E402
from ir_tools.ops.erfinv import factors as erfinv_factors  # noqa: E402
from ir_tools.ops.nms import ISAS as nms_isas  # noqa: E402
from ir_tools.ops.opsets import lookup, specs  # noqa: E402
from ir_tools.ops.spec import OpSpec  # noqa: E402
from ir_tools.runtime.openvino import CPU_CONFIG  # noqa: E402
from ir_tools.runtime.steps import as_variable  # noqa: E402
from tests.ops import (  # noqa: E402
    test_attention_conformance,
    test_avg_pool_conformance,
    test_bitwise_conformance,
    test_bucketize_conformance,
    test_cell_conformance,
    test_colour_conformance,
    test_convolution_conformance,
    test_ctc_conformance,
    test_cum_sum_conformance,
    test_deformable_conformance,
    test_detection_conformance,
    test_detectron_conformance,
    test_einsum_conformance,
    test_elementwise_conformance,
    test_embedding_conformance,
    test_eye_conformance,
    test_fake_convert_conformance,
    test_fake_quantize_conformance,
    test_fourier_conformance,
    test_gather_elements_conformance,
    test_gather_nd_conformance,
    test_grid_sample_conformance,
    test_group_normalization_conformance,
    test_hard_sigmoid_conformance,
    test_identity_conformance,
    test_interpolate_conformance,
    test_inverse_conformance,
    test_matmul_conformance,
    test_maxpool_conformance,
    test_movement_blocks_conformance,
    test_nms_conformance,
    test_nms_multiclass_conformance,
    test_non_zero_conformance,
    test_normalization_conformance,
    test_one_hot_conformance,
    test_promote_shift_conformance,
    test_proposals_conformance,
    test_recurrent_conformance,
    test_reduction_conformance,
    test_roi_align_conformance,
    test_roi_pooling_conformance,
    test_roll_conformance,
    test_scatter_elements_conformance,
    test_scatter_nd_conformance,
    test_scatter_update_conformance,
    test_search_scatter_conformance,
    test_selu_conformance,
    test_shaping_conformance,
    test_small_ops_conformance,
    test_softmax_conformance,
    test_space_depth_conformance,
    test_sparse_grouped_conformance,
    test_state_conformance,
    test_support_kernels,
    test_topk_conformance,
    test_trigonometric_conformance,
    test_unique_istft_conformance,
)
from tests.ops.conformance import Case, blur  # noqa: E402

OUT = ROOT / "tests" / "data" / "answers"
SEED = 20260
PER_OP = 8  # kernel cases kept per op version and source
BLURS = 3  # shape-only variants per kept case
MAX_ELEMENTS = 600  # a case whose inputs hold more is skipped (the stored set stays small)
TINY = float(np.finfo(np.float32).tiny)


@dataclass
class Recipe:
    """One node: ``build`` on Parameters (``fed``) or Constants holding ``inputs``."""

    inputs: list[np.ndarray]
    fed: list[bool]
    build: Callable[[list[ov.Node]], ov.Node]


def recipe(case: Case) -> Recipe | None:
    """A conformance suite's case as a Recipe (None: judged by OpenVINO's evaluator there, not by the CPU)."""
    if case.evaluator:
        return None
    return Recipe(list(case.inputs), [j not in case.consts for j in range(len(case.inputs))], case.build)


def recipes(cases: Iterable[Case]) -> list[Recipe]:
    return [r for r in map(recipe, cases) if r is not None]


def pooling(rng: np.random.Generator) -> list[Recipe]:
    k = test_avg_pool_conformance
    out = []
    for i in range(240):
        dtype = ("f32", "f16", "i32")[i % 3]
        case = k.random_pool_case(rng, (1, 14, 16)[i // 3 % 3], dtype)
        if k.openvino_builds(case) and (dtype != "i32" or k.i32_compiles(case)):
            out.append(Recipe([k.random_input(rng, case.shape, dtype)], [True], lambda ns, c=case: c.node(ns[0])))
    for i in range(24):
        case = k.random_adaptive_case(rng, ("f32", "f16")[i % 2])
        out.append(Recipe([k.random_input(rng, case.shape, case.dtype)], [True], lambda ns, c=case: c.node(ns[0])))
    return out + recipes(test_maxpool_conformance.max_pool_cases(rng, 60))


def elementwise(rng: np.random.Generator) -> list[Recipe]:
    e = test_elementwise_conformance
    hard = test_hard_sigmoid_conformance
    out = recipes([*e.binary_cases(rng, 400), *e.select_and_prelu_cases(rng, 60), *e.unary_cases(rng, 400),
                   *test_support_kernels.elementwise_cases(rng, 40)])
    for i in range(8):
        out.append(Recipe(list(hard._case(rng, (np.float32, np.float16)[i % 2])), [True, False, False],
                          lambda ns: ops1.hard_sigmoid(*ns)))
        out.append(Recipe([rng.random(int(rng.integers(1, 12))) < 0.5], [True], lambda ns: ops1.logical_not(ns[0])))
    for source, destination in [(np.float32, "f16"), (np.float32, "i32"), (np.float16, "f32"), (np.int32, "f32"),
                                (np.int64, "i32"), (np.float32, "boolean"), (np.uint8, "f32"), (np.int32, "i64")]:
        x = (rng.standard_normal(int(rng.integers(1, 12))) * 40).astype(source)
        out.append(Recipe([x], [True], lambda ns, d=destination: ops1.convert(ns[0], d)))
    return out


def bitwise(rng: np.random.Generator) -> list[Recipe]:
    return recipes(test_bitwise_conformance.bitwise_cases(rng, 120))


def reduction(rng: np.random.Generator) -> list[Recipe]:
    r = test_reduction_conformance
    return recipes([*r.reduce_cases(rng, 160), *test_softmax_conformance.softmax_cases(rng, 40)])


def matmul(rng: np.random.Generator) -> list[Recipe]:
    out = recipes([*test_matmul_conformance.matmul_cases(rng, 24),
                   *test_attention_conformance.attention_cases(rng, 16)])
    for i in range(16):
        equation, inputs = test_einsum_conformance.kernel_case(rng, (np.float32, np.float16, np.int32)[i % 3])
        out.append(Recipe(inputs, [True] * len(inputs), lambda ns, q=equation: ops7.einsum(ns, q)))
    return out


def promote_shift(rng: np.random.Generator) -> list[Recipe]:
    """ConvertPromoteTypes-14 (ops/core.py), BitwiseLeftShift-15 and BitwiseRightShift-15 (ops/bitwise.py), on CPU:
    promotions fed and of Constants, shifts where the CPU computes the specification."""
    k = test_promote_shift_conformance
    return recipes([*k.promote_cases(rng, 24), *k.promote_cases(rng, 8, consts=True), *k.shift_cases(rng, 48)])


def cells(rng: np.random.Generator) -> list[Recipe]:
    """LSTMCell-1, LSTMCell-4, GRUCell-3 and RNNCell-1 (ops/recurrent.py), on CPU."""
    return recipes(c for label in test_cell_conformance.OPS for c in test_cell_conformance.cell_cases(rng, label, 8))


def recurrent(rng: np.random.Generator) -> list[Recipe]:
    return recipes(c for op in ("LSTMSequence", "GRUSequence", "RNNSequence")
                   for c in test_recurrent_conformance.recurrent_cases(rng, op, 8))


def shaping(rng: np.random.Generator) -> list[Recipe]:
    s = test_shaping_conformance
    out = recipes(c for make, _ in s.KERNELS.values() for c in make(rng, 24))
    for i in range(16):
        version, x, idx, batch = test_gather_nd_conformance.kernel_case(rng, (np.float32, np.int32)[i % 2])
        out.append(Recipe([x, idx], [True, True],
                          lambda ns, v=version, b=batch: (ops5 if v == 5 else ops8).gather_nd(ns[0], ns[1], b)))
    scatter = test_scatter_nd_conformance
    return out + recipes(scatter.kernel_case(rng, (np.float32, np.int32)[i % 2]) for i in range(16))


def movement(rng: np.random.Generator) -> list[Recipe]:
    k = test_support_kernels
    return recipes([*k.pad_cases(rng, 40), *k.slice_cases(rng, 40), *k.strided_slice_cases(rng, 40),
                    *test_roll_conformance.roll_cases(rng, 24)])


def convolution(rng: np.random.Generator) -> list[Recipe]:
    c = test_convolution_conformance
    return recipes([*c.forward_cases(rng, 40), *c.backprop_cases(rng, 40)])


def interpolate(rng: np.random.Generator) -> list[Recipe]:
    i = test_interpolate_conformance
    return recipes([*i.interpolate_1_cases(rng, 16), *(c for v in (4, 11) for c in i.kernel_cases(rng, 16, v))])


def others(rng: np.random.Generator) -> list[Recipe]:
    return recipes([*test_normalization_conformance.normalization_kernel_cases(rng, 60),
                    *test_fake_quantize_conformance.fake_quantize_cases(rng, 12),
                    *test_grid_sample_conformance.grid_sample_cases(rng, 16)])


def state(rng: np.random.Generator) -> list[Recipe]:
    return recipes(test_state_conformance.state_cases(rng, 20))


def extra(rng: np.random.Generator) -> list[Recipe]:
    """The ops given kernels after the first answers: Identity-16, DepthToSpace-1, SpaceToDepth-1, Selu-1,
    CumSum-3, ScatterUpdate-3, TopK-1/3/11, NonZero-3, ExtractImagePatches-3."""
    import openvino.opset16 as ops16

    from tests.ops import test_extract_patches_conformance as patches

    ident = test_identity_conformance
    out = [Recipe([ident.values(rng, ident.DTYPES[i % len(ident.DTYPES)])], [True], lambda ns: ops16.identity(ns[0]))
           for i in range(16)]
    out += recipes(test_space_depth_conformance.kernel_case(rng, i) for i in range(32))
    out += recipes(test_selu_conformance.selu_cases(rng, 16))
    out += recipes(test_cum_sum_conformance.cum_sum_cases(rng, 24))
    out += recipes(test_scatter_update_conformance.scatter_update_cases(rng, 28))
    out += recipes(test_topk_conformance.topk_cases(rng, 48))
    out += recipes(test_non_zero_conformance.non_zero_cases(rng, 21))
    return out + recipes(patches.kernel_case(rng, i) for i in range(36))


def added(rng: np.random.Generator) -> list[Recipe]:
    """The ops given kernels after ``extra``: GatherElements-6, OneHot-1/16, ScatterElementsUpdate-3/12,
    GroupNormalization-12."""
    gather = test_gather_elements_conformance
    out = recipes(gather.kernel_case(rng, gather.DTYPES[i % len(gather.DTYPES)]) for i in range(32))
    one_hot = test_one_hot_conformance
    out += recipes(one_hot.kernel_case(rng, one_hot.VALUE_TYPES[i % len(one_hot.VALUE_TYPES)], version)
                   for version in (1, 16) for i in range(24))
    scatter = test_scatter_elements_conformance
    out += recipes(scatter.kernel_case(rng, scatter.DTYPES[i % len(scatter.DTYPES)]) for i in range(60))
    group = test_group_normalization_conformance
    return out + recipes(group.group_norm_cases(rng, 40, {kind: [] for kind in group.KINDS}))


def eye(rng: np.random.Generator) -> list[Recipe]:
    """Eye-9 (ops/eye.py), on CPU: every output type its kernel cases take but bf16 (which numpy does not hold)."""
    types = [t for t in test_eye_conformance.OUTPUT_TYPES if t != "bf16"]
    return recipes(test_eye_conformance.kernel_case(rng, types[i % len(types)]) for i in range(48))


def fake_convert(rng: np.random.Generator) -> list[Recipe]:
    """FakeConvert-13 (ops/fake_convert.py), f32 and f16, f8e4m3 and f8e5m2, on CPU."""
    return recipes(test_fake_convert_conformance.fake_convert_cases(rng, 48))


def blocks(rng: np.random.Generator) -> list[Recipe]:
    """ReverseSequence-1, ShuffleChannels-1, BatchToSpace-2 and SpaceToBatch-2 (ops/movement_blocks.py), on CPU."""
    return recipes(test_movement_blocks_conformance.kernel_cases(rng, 8))


def nms(rng: np.random.Generator) -> list[Recipe]:
    """NonMaxSuppression-1, -3, -4, -5 and -9 (ops/nms.py), hard (and -5 and -9 soft), on CPU. Soft NMS's result
    depends on the instruction set CPU's JIT kernel is built for: only the cases our kernel computes alike at every
    one of them (``nms.ISAS``) are kept, so that this machine's answers hold on any."""
    legacy = [test_nms_conformance.kernel_case(rng, versions=(1, 3, 4)) for _ in range(30)]

    def alike(case: Case) -> bool:
        """Whether the kernel's outputs (or its refusal) are the same at every instruction set."""
        return len({None if outs is None else tuple(x.tobytes() for x in outs)
                    for outs in (test_nms_conformance.kernel_at(case, isa) for isa in nms_isas)}) == 1

    return recipes(filter(alike, test_nms_conformance.kernel_cases(rng, 60))) + recipes(legacy)


def proposals(rng: np.random.Generator) -> list[Recipe]:
    """Proposal-1, Proposal-4, GenerateProposals-9, ExperimentalDetectronGenerateProposalsSingleImage-6 and
    ExperimentalDetectronDetectionOutput-6 (ops/proposals.py), on CPU: Proposal-4 only where every row is kept (CPU
    leaves the scores of the rows after the kept ones unwritten)."""
    k = test_proposals_conformance
    return recipes([*(k.proposal_case(rng, i, small=True) for i in range(60)),
                    *(k.generate_case(rng, i, small=True) for i in range(30)),
                    *(k.detectron_case(rng, i, small=True) for i in range(30)),
                    *(k.output_case(rng, i, small=True) for i in range(30))])


def nms_multiclass(rng: np.random.Generator) -> list[Recipe]:
    """MatrixNms-8 and MulticlassNms-8/-9 (ops/nms_multiclass.py), with and without roisnum, and NMSRotated-13
    (ops/nms.py), on CPU."""
    cases = test_nms_multiclass_conformance.kernel_cases(rng, 20, 30, 20)
    for case in cases[:20]:  # (MatrixNms's scores a Const: CPU fails where none is a candidate, on zeros)
        case.consts = [1]
    return recipes(cases)


def roi_align(rng: np.random.Generator) -> list[Recipe]:
    """ROIAlign-3 and ROIAlign-9 (ops/roi_align.py), every mode and aligned_mode, on CPU."""
    return recipes(test_roi_align_conformance.kernel_cases(rng, 6))


def roi_pooling(rng: np.random.Generator) -> list[Recipe]:
    """AdaptiveMaxPool-8 (ops/pooling.py), ROIPooling-2 and PSROIPooling-1 (ops/roi_pooling.py), every method and
    mode, on CPU."""
    return recipes(test_roi_pooling_conformance.amp_cases(rng, 26) + test_roi_pooling_conformance.roi_cases(rng, 8)
                   + test_roi_pooling_conformance.ps_cases(rng, 8))


def deformable(rng: np.random.Generator) -> list[Recipe]:
    """DeformableConvolution-1 and -8 (with and without a mask and bilinear pad) and DeformablePSROIPooling-1 (with and
    without offsets), ops/deformable.py, on CPU."""
    return recipes(test_deformable_conformance.dc_cases(rng, 30) + test_deformable_conformance.ps_cases(rng, 16))


def binary(rng: np.random.Generator) -> list[Recipe]:
    """BinaryConvolution-1 (ops/convolution.py), on CPU: f32 data of 8 or 16 channels, u1 filters (a Constant made by
    the build: numpy holds no u1), every auto_pad; explicit pads with pad_value 1 alone (CPU's defects, rule 11, are
    left out: other channel counts, pad_value 0 where a window may hold no data row)."""
    out = []
    for i in range(12):
        n, o, k = (int(v) for v in rng.integers(1, 4, 3))
        c = 8 * int(rng.integers(1, 3))
        h, w = (int(v) for v in rng.integers(k, k + 5, 2))
        strides, dilations = [int(v) for v in rng.integers(1, 3, 2)], [int(v) for v in rng.integers(1, 3, 2)]
        auto_pad = ("explicit", "valid", "same_upper", "same_lower")[i % 4]
        pad_value = 1.0 if auto_pad == "explicit" else float(rng.integers(0, 2))
        pads = [int(v) for v in rng.integers(0, 2, 4)]
        h, w = h + (k - 1) * (dilations[0] - 1), w + (k - 1) * (dilations[1] - 1)
        bits = [int(v) for v in rng.integers(0, 2, o * c * k * k)]

        def build(ns: list[ov.Node], shape=(o, c, k, k), bits=bits, strides=strides, dilations=dilations, pads=pads,
                  auto_pad=auto_pad, pad_value=pad_value) -> ov.Node:
            filters = ov.op.Constant(ov.Type.u1, ov.Shape(list(shape)), bits)
            return ops1.binary_convolution(ns[0], filters, strides, pads[:2], pads[2:], dilations, "xnor-popcount",
                                           pad_value, auto_pad)

        out.append(Recipe([rng.standard_normal((n, c, h, w)).astype(np.float32)], [True], build))
    return out


def fourier(rng: np.random.Generator) -> list[Recipe]:
    """DFT-7, IDFT-7, RDFT-9, IRDFT-9 and STFT-15 (ops/fourier.py), f32 and f16, on CPU."""
    k = test_fourier_conformance
    return recipes(k.fourier_cases(rng, 120)) + recipes(k.stft_case(rng, 0.2) for _ in range(40))


def detectron(rng: np.random.Generator) -> list[Recipe]:
    """ExperimentalDetectron's PriorGridGenerator, ROIFeatureExtractor and TopKROIs (ops/detectron.py) and
    ROIAlignRotated-15 (ops/roi_align.py), on CPU: cases without special values."""
    cases = [*test_detectron_conformance.kernel_cases(rng, 16), *test_roi_align_conformance.rotated_cases(rng, 16)]
    return recipes(c for c in cases if all(np.isfinite(x).all() for x in c.inputs if x.dtype.kind == "f"))


def erfinv(rng: np.random.Generator) -> list[Recipe]:
    """ErfInv-17 (ops/erfinv.py), f32 and f16, on CPU: only values whose result the CPU's emitter gives alike by FMAs
    and without (AVX2 and up, SSE4.1), so that this machine's answers hold on any."""
    import openvino.opset17 as ops17

    out = []
    for i in range(16):
        x = rng.uniform(-1, 1, int(rng.integers(1, 40))).astype((np.float32, np.float16)[i % 2])
        w = x.astype(np.float32)
        v = np.float32(1) - w * w
        x = x[erfinv_factors(v, True).view(np.uint32) == erfinv_factors(v, False).view(np.uint32)]
        out.append(Recipe([x], [True], lambda ns: ops17.erfinv(ns[0])))
    return out


def colour(rng: np.random.Generator) -> list[Recipe]:
    """NV12toRGB-8, NV12toBGR-8, I420toRGB-8 and I420toBGR-8 (ops/colour.py), u8, f32, f16 and f64, one input or
    planes, on CPU (cases with special values left out as everywhere); RGBtoNV12-17 and BGRtoNV12-17 (rules alone:
    the CPU plugin cannot compile them, ``rules_alone``), each single_plane value."""
    out = recipes(test_colour_conformance.colour_cases(rng, 160, special=0.0, largest=8))
    for i in range(16):
        shape = (int(rng.integers(1, 3)), 2 * int(rng.integers(1, 5)), 2 * int(rng.integers(1, 5)), 3)
        image = rng.integers(0, 256, shape).astype((np.uint8, np.float32)[i % 2])
        op, single = ("RGBtoNV12", "BGRtoNV12")[i % 4 // 2], i % 8 < 4
        out.append(Recipe([image], [True], lambda ns, op=op, single=single: NodeFactory("opset17").create(
            op, ns[0].outputs(), {"single_plane": single})))
    return out


def search_scatter(rng: np.random.Generator) -> list[Recipe]:
    """SearchSorted-15 (ops/search_sorted.py), SliceScatter-15 (ops/scatter.py) and Col2Im-15 (ops/col2im.py), on
    CPU (cases with special values left out as everywhere)."""
    k = test_search_scatter_conformance
    return recipes([*k.search_sorted_cases(rng, 52), *k.slice_scatter_cases(rng, 28), *k.col2im_cases(rng, 40)])


def trigonometric(rng: np.random.Generator) -> list[Recipe]:
    """Tan, Sinh, Cosh, Asin, Acos, Atan (opset1), Asinh, Acosh and Atanh (opset4) (ops/activations.py), f32 and f16,
    on CPU."""
    return recipes(test_trigonometric_conformance.trigonometric_cases(rng, 144, specials=False))


def small_ops(rng: np.random.Generator) -> list[Recipe]:
    """IsNaN-10, IsInf-10, IsFinite-10, ConvertLike-1, Reverse-1, GRN-1 and Xor-1 (test_small_ops_conformance), on CPU:
    the float classes and GRN on ordinary values (cases with special values are not stored, nor f64 values that are f32
    subnormals, which IsFinite takes for finite on AVX2 and not on AVX-512)."""
    k = test_small_ops_conformance
    return recipes([*k.ordinary_class_cases(rng, 36), *k.convert_like_cases(rng, 24), *k.reverse_cases(rng, 24),
                    *k.grn_cases(rng, 24, 0.0), *k.xor_cases(rng, 24)])


def embedding(rng: np.random.Generator) -> list[Recipe]:
    """EmbeddingBagOffsetsSum-3, EmbeddingBagPackedSum-3, EmbeddingSegmentsSum-3, EmbeddingBagOffsets-15,
    EmbeddingBagPacked-15 (ops/embedding.py) and SegmentMax-16 (ops/segments.py), on CPU: cases without special
    values."""
    k = test_embedding_conformance
    return recipes([*k.embedding_cases(rng, 120, special=0.0), *k.segment_max_cases(rng, 40, special=0.0)])


def detection(rng: np.random.Generator) -> list[Recipe]:
    """ReorgYolo-2, RegionYolo-1, PriorBoxClustered-1, PriorBox-1 and PriorBox-8 (ops/detection.py), on CPU; the
    priors' sizes as Parameters (CPU's nodes) or Constants (folded by OpenVINO's reference); DetectionOutput-1 and -8,
    on CPU."""
    k = test_detection_conformance
    return (recipes(k.reorg_case(rng, i) for i in range(16)) + recipes(k.region_case(rng, i) for i in range(16))
            + recipes(k.clustered_case(rng, i) for i in range(16)) + recipes(k.prior_case(rng, i) for i in range(32))
            + recipes(k.detection_output_case(rng, i) for i in range(16)))


def ctc(rng: np.random.Generator) -> list[Recipe]:
    """CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6, GatherTree-1 and CTCLoss-4 (ops/ctc.py), on CPU: cases without
    special values; CTCLoss's lengths and labels as Constants (a model of its answer run on zeros, a label length of 0,
    crashes OpenVINO CPU)."""
    k = test_ctc_conformance
    cases = [*k.greedy_decoder_cases(rng, 24, special=0.0), *k.seq_len_cases(rng, 24, special=0.0),
             *k.gather_tree_cases(rng, 24), *k.ctc_loss_cases(rng, 24, special=0.0, fixed=True)]
    return recipes(c for c in cases if all(np.isfinite(x).all() for x in c.inputs if x.dtype.kind == "f"))


def unique_istft(rng: np.random.Generator) -> list[Recipe]:
    """Unique-10 (ops/unique.py), flattened and along a Const axis, and ISTFT-16 (ops/fourier.py), f32 and f16, on
    CPU: cases without special values (NaN, infinities), and no Unique whose zero's sign the CPU's std::sort picks."""
    k = test_unique_istft_conformance
    cases = [*k.unique_cases(rng, 120), *(k.istft_case(rng, 0.25) for _ in range(40))]
    return recipes(c for c in cases if c.bits or c.what.startswith("ISTFT")
                   if all(np.isfinite(x).all() for x in c.inputs if x.dtype.kind == "f"))


def sparse_grouped(rng: np.random.Generator) -> list[Recipe]:
    """SparseFillEmptyRows-16 (ops/sparse.py), on CPU: cases without special values nor f64 values (which the CPU
    rounds to f32), places crowded (std::sort's order) or not; GroupedMatMul-17 (ops/matmul.py, a rule alone: the
    CPU plugin cannot compile it, ``rules_alone``), 3D x 3D and 2D x 3D with i32 or i64 offsets."""
    k = test_sparse_grouped_conformance
    cases = [*k.sparse_cases(rng, 60), *k.sparse_cases(rng, 8, crowded=True)]
    out = recipes(c for c in cases if c.inputs[0].dtype != np.float64
                  if all(np.isfinite(x).all() for x in c.inputs if x.dtype.kind == "f"))
    for i in range(12):
        g, m, n, k_ = (int(v) for v in rng.integers(1, 5, 4))
        a = rng.standard_normal((g, m, k_) if i % 2 else (g * m, k_)).astype(np.float32)
        w = rng.standard_normal((g, n, k_)).astype(np.float32)
        offsets = (np.arange(1, g + 1) * m).astype((np.int32, np.int64)[i // 2 % 2])
        inputs = [a, w] if i % 2 else [a, w, offsets]
        out.append(Recipe(inputs, [True] * len(inputs), lambda ns: NodeFactory("opset17").create(
            "GroupedMatMul", [x.output(0) for x in ns], {})))
    return out


def bucketize_random(rng: np.random.Generator) -> list[Recipe]:
    """Bucketize-3 (ops/bucketize.py), on CPU (cases with special values left out as everywhere); RandomUniform-8 and
    Multinomial-13 (ops/random.py, rules alone: their values are pseudo-random), a Const shape or sample count."""
    out = recipes(test_bucketize_conformance.bucketize_case(rng, i) for i in range(48))
    opset8, opset13 = NodeFactory("opset8"), NodeFactory("opset13")
    for i in range(8):
        shape = rng.integers(1, 5, int(rng.integers(0, 4))).astype((np.int64, np.int32)[i % 2])
        kind = ("f32", "f16", "i32", "i64")[i % 4]
        low, high = (np.array(v, NUMPY_OF[kind]) for v in (0, 10))
        out.append(Recipe([shape, low, high], [False] * 3, lambda ns, kind=kind: opset8.create(
            "RandomUniform", [n.output(0) for n in ns], {"output_type": kind, "global_seed": 7, "op_seed": 3})))
        probs = rng.random((int(rng.integers(1, 4)), int(rng.integers(1, 6)))).astype(np.float32)
        count = np.array(int(rng.integers(1, 6)), (np.int64, np.int32)[i % 2])
        out.append(Recipe([probs, count], [True, False], lambda ns, i=i: opset13.create(
            "Multinomial", [n.output(0) for n in ns], {"convert_type": ("i64", "i32")[i % 2],
                                                        "with_replacement": i % 4 < 2, "log_probs": False,
                                                        "global_seed": 7, "op_seed": 3})))
    return out


def inverse(rng: np.random.Generator) -> list[Recipe]:
    """Inverse-14 (ops/inverse.py), on CPU: f32, f16 and f64 matrices, fed or a Const (cases with special values left
    out as everywhere; bf16 too, which numpy does not hold: OpenVINO gives its values as f16 bits)."""
    k = test_inverse_conformance
    return recipes(k.inverse_case(rng, i) for i in range(64) if k.TYPES[i % len(k.TYPES)] != "bf16")


#: The numpy type of an element type a recipe's Const holds.
NUMPY_OF = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i64": np.int64}


SOURCES: dict[str, Callable[[np.random.Generator], list[Recipe]]] = {
    "pooling": pooling, "elementwise": elementwise, "bitwise": bitwise, "reduction": reduction, "matmul": matmul,
    "recurrent": recurrent, "shaping": shaping, "movement": movement, "convolution": convolution,
    "interpolate": interpolate, "others": others, "state": state,
    "extra": extra, "added": added, "blocks": blocks, "nms": nms, "roi_align": roi_align, "binary": binary,
    "eye": eye,
    "fourier": fourier,
    "fake_convert": fake_convert,
    "erfinv": erfinv,
    "detectron": detectron,
    "roi_pooling": roi_pooling,
    "deformable": deformable,
    "detection": detection,
    "embedding": embedding,
    "small_ops": small_ops,
    "trigonometric": trigonometric,
    "cells": cells,
    "promote_shift": promote_shift,
    "ctc": ctc,
    "search_scatter": search_scatter,
    "colour": colour,
    "unique_istft": unique_istft,
    "sparse_grouped": sparse_grouped,
    "nms_multiclass": nms_multiclass,
    "proposals": proposals,
    "bucketize_random": bucketize_random,
    "inverse": inverse,
}
#: State writes: a model holds them as sinks, their output is none OpenVINO CPU lets a model have; what one wrote is
#: the variable's value after the inference (``query_state``, as ``runtime.steps.as_variable`` reads it).
SINKS = ("Assign",)


# --- building and capturing ------------------------------------------------------------------------------------


def instantiate(r: Recipe, name: str, feed: dict[str, np.ndarray]) -> tuple[ov.Node, list[ov.Node]]:
    """The recipe's node, on Parameters named ``name_j`` (values added to ``feed``) and Constants; its Parameters."""
    ins, params = [], []
    for j, (x, fed) in enumerate(zip(r.inputs, r.fed, strict=True)):
        if fed:
            p = ops1.parameter(list(x.shape), ov.Type(x.dtype), name=f"{name}_{j}")
            p.output(0).get_tensor().set_names({f"{name}_{j}"})
            feed[f"{name}_{j}"] = x
            params.append(p)
            ins.append(p)
        else:
            ins.append(ov.op.Constant(np.array(x, order="C")))
    return r.build(ins), params


def op_key(node: ov.Node) -> tuple[str, str]:
    info = node.get_type_info()
    return info.name, info.version_id


def has_subnormals(arrays: Iterable[np.ndarray]) -> bool:
    return any(a.dtype == np.float32 and np.any((a != 0) & (np.abs(a) < TINY)) for a in map(np.asarray, arrays))


def has_specials(arrays: Iterable[np.ndarray]) -> bool:
    """NaN, an infinity, -0 or an f32 subnormal: values the CPU plugin's kernels treat per ISA."""
    return has_subnormals(arrays) or any(
        a.dtype.kind == "f" and np.any(~np.isfinite(a) | ((a == 0) & np.signbit(a))) for a in arrays)


def select(rs: list[Recipe]) -> list[Recipe]:
    """At most PER_OP small recipes per op version (by the node each builds)."""
    kept, seen = [], Counter()
    for r in rs:
        if sum(x.size for x in r.inputs) > MAX_ELEMENTS or has_specials(r.inputs):
            continue
        try:
            key = op_key(instantiate(r, "probe", {})[0])
        except RuntimeError:  # an invalid case (the suite checks the refusal)
            continue
        if seen[key] < PER_OP:
            seen[key] += 1
            kept.append(r)
    return kept


def compiles(r: Recipe) -> bool:
    node, params = instantiate(r, "c", {})
    try:
        ov.Core().compile_model(ov.Model(node.outputs(), params), "CPU", CPU_CONFIG)
    except RuntimeError:
        return False
    return True


def dims(ps: ov.PartialShape) -> list | None:
    """A partial shape as stored: an int per static dim, [lo, hi|None] otherwise; None for a dynamic rank."""
    if ps.rank.is_dynamic:
        return None
    return [d.get_length() if d.is_static else [d.get_min_length(), None if d.get_max_length() == -1 else
                                                  d.get_max_length()] for d in ps]


class Store:
    """The flat value arrays of one file, per element type."""

    def __init__(self) -> None:
        self.parts: dict[str, list[np.ndarray]] = {}
        self.sizes: Counter[str] = Counter()

    def add(self, value: np.ndarray) -> list:
        value = np.asarray(value)
        key = value.dtype.name
        self.parts.setdefault(key, []).append(value.ravel())
        self.sizes[key] += value.size
        return [key, self.sizes[key] - value.size, list(value.shape)]

    def arrays(self) -> dict[str, np.ndarray]:
        return {key: np.concatenate(parts) for key, parts in self.parts.items()}


def upstream_parameter(output: ov.Output) -> bool:
    node = output.get_node()
    return node.get_type_name() == "Parameter" or any(upstream_parameter(v) for v in node.input_values())


def source_of(output: ov.Output) -> str:
    if output.get_node().get_type_name() == "Parameter":
        return "param"
    return "node" if upstream_parameter(output) else "const"


def capture(rs: list[Recipe], store: Store, tmp: Path, rng: np.random.Generator) -> list[dict]:
    """Every layer of the recipes' batched model with a rule or kernel: OpenVINO's types and CPU values, and the
    blurred variants of each."""
    feed: dict[str, np.ndarray] = {}
    nodes, params = [], []
    for i, r in enumerate(rs):
        node, ps = instantiate(r, f"c{i}", feed)
        nodes.append(node)
        params += ps
    sinks = [n for n in nodes if n.get_type_name() in SINKS]
    ops = [n for n in ov.Model([o for n in nodes if n not in sinks for o in n.outputs()], sinks,
                               params).get_ordered_ops()
           if n.get_type_name() not in ("Parameter", "Constant", "Result", *SINKS)]
    outputs = [o for n in ops for o in n.outputs()]
    model = ov.Model(outputs, sinks, params, "answers")
    request = ov.Core().compile_model(model, "CPU", CPU_CONFIG).create_infer_request()
    request.infer(feed)
    values: dict[tuple[str, int], np.ndarray] = {}
    for k, o in enumerate(outputs):
        values[(o.get_node().get_friendly_name(), o.get_index())] = request.get_output_tensor(k).data.copy()
    written = {s.name: s.state.data.copy() for s in request.query_state()} if sinks else {}
    for sink in sinks:
        like = value_of(sink.input_value(0), values)  # (the value it wrote: its shape and type)
        values[(sink.get_friendly_name(), 0)] = as_variable(written[sink.get_variable_id()], like)
    for p in params:
        values[(p.get_friendly_name(), 0)] = feed[p.get_friendly_name()]
    path = tmp / "answers.xml"
    ov.save_model(model, str(path), compress_to_fp16=False)
    layers = {layer.name: layer for layer in read_ir(path).layers()}
    records = []
    for node in model.get_ordered_ops():
        layer = layers[node.get_friendly_name()]
        spec = lookup(layer.type, layer.version)
        if spec is None or (spec.infer is None and spec.kernel is None):
            continue
        if node.get_type_name() == "Constant":
            values[(node.get_friendly_name(), 0)] = constant_value(node)
        ins = [value_of(v, values) for v in node.input_values()]
        outs = [values.get((node.get_friendly_name(), k)) for k in range(len(layer.outputs))]
        if spec.kernel is not None and (has_specials(ins) or has_subnormals(outs) or cpu_defect(node, ins, outs)
                                        or exact_subnormals(spec, layer, ins)):
            continue
        inputs = []
        for v, x in zip(node.input_values(), ins, strict=True):
            stored = spec.kernel is not None or source_of(v) == "const"
            inputs.append([v.get_element_type().get_type_name(), dims(v.get_partial_shape()), source_of(v),
                           store.add(x) if stored and x is not None else None])
        kept = spec.kernel is not None and node.get_type_name() != "Parameter"
        records.append({"op": layer.type, "version": layer.version, "attrs": layer.attrs, "inputs": inputs,
                        "outputs": [[o.get_element_type().get_type_name(), dims(o.get_partial_shape()),
                                     store.add(y) if kept and y is not None else None]
                                    for o, y in zip(node.outputs()[:len(outs)], outs, strict=True)]})
        if spec.kernel is not None and node.get_type_name() not in ("ReadValue", *SINKS):  # (a Variable: no factory)
            records += blurred(node, layer.type, layer.attrs, ins, spec.value_inputs, store, rng)
    return records


def rules_alone(rs: list[Recipe], store: Store, tmp: Path) -> list[dict]:
    """Of recipes the CPU plugin does not compile, those of an op with a rule and no kernel (RGBtoNV12-17: OpenVINO has
    no CPU implementation nor evaluate): OpenVINO's inferred types, the model saved and read back without compiling it,
    and the blurred variants of each."""
    nodes, params = [], []
    for i, r in enumerate(rs):
        node, ps = instantiate(r, f"r{i}", {})
        nodes.append(node)
        params += ps
    path = tmp / "rules_alone.xml"
    ov.save_model(ov.Model([o for n in nodes for o in n.outputs()], params, "rules"), str(path), compress_to_fp16=False)
    layers = {layer.name: layer for layer in read_ir(path).layers()}
    records, rng = [], np.random.default_rng(SEED)
    for node in nodes:
        layer = layers[node.get_friendly_name()]
        spec = lookup(layer.type, layer.version)
        if spec is None or spec.infer is None or spec.kernel is not None:
            continue
        records.append({"op": layer.type, "version": layer.version, "attrs": layer.attrs,
                        "inputs": [[v.get_element_type().get_type_name(), dims(v.get_partial_shape()), source_of(v),
                                    None] for v in node.input_values()],
                        "outputs": [[o.get_element_type().get_type_name(), dims(o.get_partial_shape()), None]
                                    for o in node.outputs()]})
        records += blurred(node, layer.type, layer.attrs, [None] * node.get_input_size(), spec.value_inputs, store,
                           rng)
    return records


def exact_subnormals(spec: OpSpec, layer: Layer, ins: list[np.ndarray]) -> bool:
    """Whether the exact result (our kernel's) holds f32 subnormals; False where our kernel refuses the case (the
    test then says so)."""
    try:
        return has_subnormals(spec.kernel(A.decode(spec.attrs, layer.attrs), ins))
    except IrToolsError:
        return False


def cpu_defect(node: ov.Node, ins: list[np.ndarray], outs: list[np.ndarray]) -> bool:
    """Whether CPU's outputs stray from OpenVINO's own evaluator (its reference implementation) by more than 1e-3 of
    their scale: OpenVINO disagreeing with itself is a defect of the CPU plugin (on this CPU: an Einsum with an
    ellipsis in two inputs), not an answer to store."""
    evaluated = [ov.Tensor(node.get_output_element_type(k), ov.Shape(list(y.shape))) for k, y in enumerate(outs)]
    try:
        done = node.evaluate(evaluated, [ov.Tensor(np.array(x, order="C")) for x in ins])
    except (RuntimeError, MemoryError):  # (its evaluator refuses, or fails: std::bad_alloc on ReverseSequence)
        return False
    for y, t in zip(outs, evaluated, strict=True):
        if not done or y.dtype.kind != "f":
            continue
        ref = t.data.astype(np.float64)
        with np.errstate(invalid="ignore"):
            strays = np.abs(y - ref) > 1e-3 * (1.0 + np.max(np.abs(ref[np.isfinite(ref)]), initial=0.0))
        if np.any(strays):
            return True
    return False


def value_of(v: ov.Output, values: dict[tuple[str, int], np.ndarray]) -> np.ndarray | None:
    node = v.get_node()
    if node.get_type_name() == "Constant":
        return constant_value(node)
    return values.get((node.get_friendly_name(), v.get_index()))


def constant_value(node: ov.Node) -> np.ndarray:
    """A Constant's values; of a type under 8 bits (BinaryConvolution's u1 filters) one a byte, as numpy holds them."""
    if node.get_output_element_type(0).bitwidth < 8:
        return node.get_vector().reshape(node.get_output_shape(0))
    return node.get_data()


def blurred(node: ov.Node, op: str, attrs: dict[str, str], ins: list[np.ndarray | None], value_inputs: tuple[int, ...],
            store: Store, rng: np.random.Generator) -> list[dict]:
    """BLURS copies of ``node`` (NodeFactory, its attributes) on inputs of partial shapes around the real ones, a
    value input now a Constant of its value, now a Parameter; OpenVINO's inferred types or "rejects". None when
    NodeFactory cannot rebuild the node as it was."""
    name, version = op_key(node)
    factory = NodeFactory(version)
    try:
        again = factory.create(name, [v for v in node.input_values()], node.get_attributes())
    except RuntimeError:
        return []
    if [dims(o.get_partial_shape()) for o in again.outputs()] != [dims(o.get_partial_shape()) for o in node.outputs()]:
        return []
    records = []
    for _ in range(BLURS):
        new, inputs = [], []
        for j, (v, x) in enumerate(zip(node.input_values(), ins, strict=True)):
            element = v.get_element_type()
            if j in value_inputs and x is not None and rng.random() < 0.7:
                new.append(ov.op.Constant(np.array(x, order="C")).output(0))
                inputs.append([element.get_type_name(), list(x.shape), "const", store.add(x)])
                continue
            shape = v.get_partial_shape()
            if rng.random() < 0.08:
                bounds = ov.PartialShape.dynamic()
            else:
                bounds = ov.PartialShape([ov.Dimension(lo, -1 if hi is None else hi)
                                          for lo, hi in (blur(rng, d.get_length()) for d in shape)])
            new.append(ops1.parameter(bounds, element).output(0))
            inputs.append([element.get_type_name(), dims(bounds), "param", None])
        try:
            built = factory.create(name, new, node.get_attributes())
            outputs: list | str = [[o.get_element_type().get_type_name(), dims(o.get_partial_shape()), None]
                                   for o in built.outputs()]
        except RuntimeError:
            outputs = "rejects"
        records.append({"op": op, "version": version, "attrs": attrs, "inputs": inputs, "outputs": outputs})
    return records


def main(only: list[str]) -> None:
    """Every source's file, or only those named (``python scripts/make_answers.py state``)."""
    unknown = sorted(set(only) - set(SOURCES))
    if unknown:
        sys.exit(f"no source {', '.join(unknown)}; the sources: {', '.join(SOURCES)}")
    OUT.mkdir(parents=True, exist_ok=True)
    covered: Counter[str] = Counter()
    for source, make in SOURCES.items():
        if only and source not in only:
            continue
        rs = select(make(np.random.default_rng(SEED)))
        with tempfile.TemporaryDirectory() as tmp:
            store = Store()
            try:
                records = capture(rs, store, Path(tmp), np.random.default_rng(SEED))
            except RuntimeError:  # some case does not compile on this CPU: leave those out
                compiled = [r for r in rs if compiles(r)]
                print(f"{source}: {len(rs) - len(compiled)} case(s) not compiled by this CPU, left out")
                records = capture(compiled, store, Path(tmp), np.random.default_rng(SEED))
                records += rules_alone([r for r in rs if all(r is not c for c in compiled)], store, Path(tmp))
        meta = {"openvino": version("openvino"), "build": ov.get_version(), "seed": SEED, "cases": records}
        np.savez_compressed(OUT / f"{source}.npz", cases=np.array(json.dumps(meta, separators=(",", ":"))),
                            **store.arrays())
        labels = Counter(lookup(r["op"], r["version"]).label for r in records)
        covered.update(labels)
        print(f"{source}: {len(records)} records, {(OUT / f'{source}.npz').stat().st_size} bytes")
    if not only:
        missing = [s.label for s in specs() if (s.infer or s.kernel) and s.label not in covered]
        print("missing:", ", ".join(missing) or "none")


if __name__ == "__main__":
    main(sys.argv[1:])
