"""The op table: which OpSpec each ``type`` + ``version="opsetN"`` of an IR layer means.

Built explicitly from one list of (spec, first opset, last opset), the way OpenVINO builds its
opsetN tables, and checked against OpenVINO's IR reader by tests/ops/test_opsets.py. Beside it,
``openvino_opsets.json`` lists every type each of OpenVINO's opsets holds, modelled here or not
(generated from the installed openvino by scripts/make_opset_table.py, checked by
tests/ops/test_openvino_opsets.py), so that ``check`` knows a typo from a real op. Measured on
openvino 2026.4.1:

- Versions are matched exactly ("Opset8", "opset08" and "8" are not opset8).
- Types are matched case-insensitively ("avgpool" is AvgPool), except Const, which must be
  spelled exactly so ("const" is no type OpenVINO knows).
- opset17 holds Parameter, Convert, ShapeOf, ErfInv, RGBtoNV12, BGRtoNV12 and GroupedMatMul among the ops modelled
  here, but not Const, Result or the others: their opset17 spellings are refused.
- A few layers are created from another opset than the one written (``read_opset``, from OpenVINO's
  IR deserializer): the experimental ops added to opset6 when written ``version="experimental"`` or
  ``"extension"``, and MVN, ROIPooling and ReorgYolo written ``opset1`` (from opset2); each type in
  this exact spelling only.
"""

from __future__ import annotations

import difflib
import json
from functools import lru_cache
from pathlib import Path

from ..base.errors import IrToolsError
from . import (
    activations,
    arithmetic,
    attention,
    bitwise,
    broadcast,
    bucketize,
    col2im,
    colour,
    concat,
    control_flow,
    convolution,
    core,
    ctc,
    cum_sum,
    deformable,
    detection,
    detectron,
    embedding,
    erfinv,
    extract_patches,
    eye,
    fake_convert,
    float_classes,
    fourier,
    gather,
    interpolate,
    inverse,
    matmul,
    movement,
    movement_blocks,
    nms,
    nms_multiclass,
    non_zero,
    normalization,
    one_hot,
    pooling,
    proposals,
    quantization,
    random,
    range_op,
    recurrent,
    reduction,
    reshape,
    roi_align,
    roi_pooling,
    sampling,
    scatter,
    search_sorted,
    segments,
    shape_of,
    softmax,
    space_depth,
    sparse,
    split,
    state,
    topk,
    transpose,
    unique,
)
from .spec import OpSpec

#: The highest opset OpenVINO knows; ``opsetN`` above it is refused whatever the type.
MAX_OPSET = 17

#: (spec, first opset, last opset) for every op version modelled.
_RANGES: tuple[tuple[OpSpec, int, int], ...] = (
    (core.PARAMETER_1, 1, MAX_OPSET),
    (core.CONST_1, 1, 16),
    (core.CONVERT_1, 1, MAX_OPSET),
    (core.CONVERT_LIKE_1, 1, 16),
    (core.CONVERT_PROMOTE_TYPES_14, 14, 16),
    (core.RESULT_1, 1, 16),
    (core.IDENTITY_16, 16, 16),
    (pooling.AVG_POOL_1, 1, 13),
    (pooling.AVG_POOL_14, 14, 15),
    (pooling.AVG_POOL_16, 16, 16),
    (pooling.ADAPTIVE_AVG_POOL_8, 8, 16),
    (pooling.ADAPTIVE_MAX_POOL_8, 8, 16),
    (pooling.MAX_POOL_1, 1, 7),
    (pooling.MAX_POOL_8, 8, 13),
    (pooling.MAX_POOL_14, 14, 16),
    (reduction.REDUCE_SUM_1, 1, 16),
    (reduction.REDUCE_MEAN_1, 1, 16),
    (reduction.REDUCE_MAX_1, 1, 16),
    (reduction.REDUCE_MIN_1, 1, 16),
    (reduction.REDUCE_PROD_1, 1, 16),
    (reduction.REDUCE_L1_4, 4, 16),
    (reduction.REDUCE_L2_4, 4, 16),
    (reduction.REDUCE_LOGICAL_AND_1, 1, 16),
    (reduction.REDUCE_LOGICAL_OR_1, 1, 16),
    (softmax.SOFTMAX_1, 1, 7),
    (softmax.SOFTMAX_8, 8, 16),
    (softmax.LOG_SOFTMAX_5, 5, 16),
    (matmul.MATMUL_1, 1, 16),
    (matmul.EINSUM_7, 7, 16),
    (matmul.GROUPED_MATMUL_17, 17, MAX_OPSET),
    (attention.SCALED_DOT_PRODUCT_ATTENTION_13, 13, 16),
    (recurrent.LSTM_SEQUENCE_5, 5, 16),
    (recurrent.GRU_SEQUENCE_5, 5, 16),
    (recurrent.RNN_SEQUENCE_5, 5, 16),
    (recurrent.LSTM_CELL_1, 1, 3),
    (recurrent.LSTM_CELL_4, 4, 16),
    (recurrent.GRU_CELL_3, 3, 16),
    (recurrent.RNN_CELL_1, 1, 1),
    (recurrent.RNN_CELL_1, 3, 16),  # (opset2 lacks it)
    (movement.PAD_1, 1, 11),
    (movement.PAD_12, 12, 16),
    (movement.ROLL_7, 7, 16),
    (movement.REVERSE_1, 1, 1),
    (movement.SLICE_8, 8, 16),
    (movement.STRIDED_SLICE_1, 1, 16),
    (reshape.RESHAPE_1, 1, 16),
    (reshape.SQUEEZE_1, 1, 14),
    (reshape.SQUEEZE_15, 15, 16),
    (reshape.UNSQUEEZE_1, 1, 16),
    (transpose.TRANSPOSE_1, 1, 16),
    (topk.TOPK_1, 1, 2),
    (topk.TOPK_3, 3, 10),
    (topk.TOPK_11, 11, 16),
    (space_depth.DEPTH_TO_SPACE_1, 1, 16),
    (space_depth.SPACE_TO_DEPTH_1, 1, 16),
    (extract_patches.EXTRACT_IMAGE_PATCHES_3, 3, 16),
    (movement_blocks.REVERSE_SEQUENCE_1, 1, 16),
    (movement_blocks.SHUFFLE_CHANNELS_1, 1, 1),
    (movement_blocks.SHUFFLE_CHANNELS_1, 3, 16),  # (opset2 lacks it)
    (movement_blocks.BATCH_TO_SPACE_2, 2, 16),
    (movement_blocks.SPACE_TO_BATCH_2, 2, 16),
    (concat.CONCAT_1, 1, 16),
    (split.SPLIT_1, 1, 16),
    (split.VARIADIC_SPLIT_1, 1, 16),
    (gather.GATHER_1, 1, 6),
    (gather.GATHER_7, 7, 7),
    (gather.GATHER_8, 8, 16),
    (gather.GATHER_ND_5, 5, 7),
    (gather.GATHER_ND_8, 8, 16),
    (gather.GATHER_ELEMENTS_6, 6, 16),
    (one_hot.ONE_HOT_1, 1, 15),
    (one_hot.ONE_HOT_16, 16, 16),
    (eye.EYE_9, 9, 16),
    (embedding.EMBEDDING_BAG_OFFSETS_SUM_3, 3, 16),
    (embedding.EMBEDDING_BAG_PACKED_SUM_3, 3, 16),
    (embedding.EMBEDDING_SEGMENTS_SUM_3, 3, 16),
    (embedding.EMBEDDING_BAG_OFFSETS_15, 15, 16),
    (embedding.EMBEDDING_BAG_PACKED_15, 15, 16),
    (segments.SEGMENT_MAX_16, 16, 16),
    (scatter.SCATTER_ND_UPDATE_3, 4, 14),
    (scatter.SCATTER_ND_UPDATE_15, 15, 16),
    (scatter.SCATTER_UPDATE_3, 3, 16),
    (scatter.SCATTER_ELEMENTS_UPDATE_3, 3, 11),
    (scatter.SCATTER_ELEMENTS_UPDATE_12, 12, 16),
    (search_sorted.SEARCH_SORTED_15, 15, 16),
    (bucketize.BUCKETIZE_3, 3, 16),
    (inverse.INVERSE_14, 14, 16),
    (scatter.SLICE_SCATTER_15, 15, 16),
    (col2im.COL2IM_15, 15, 16),
    (shape_of.SHAPE_OF_1, 1, 2),
    (shape_of.SHAPE_OF_3, 3, MAX_OPSET),
    (erfinv.ERFINV_17, 17, MAX_OPSET),
    (colour.NV12_TO_RGB_8, 8, 16),
    (colour.NV12_TO_BGR_8, 8, 16),
    (colour.I420_TO_RGB_8, 8, 16),
    (colour.I420_TO_BGR_8, 8, 16),
    (colour.RGB_TO_NV12_17, 17, MAX_OPSET),
    (colour.BGR_TO_NV12_17, 17, MAX_OPSET),
    (broadcast.BROADCAST_1, 1, 2),
    (broadcast.BROADCAST_3, 3, 16),
    (broadcast.TILE_1, 1, 16),
    (range_op.RANGE_1, 1, 3),
    (range_op.RANGE_4, 4, 16),
    (random.RANDOM_UNIFORM_8, 8, 16),
    (random.MULTINOMIAL_13, 13, 16),
    (cum_sum.CUM_SUM_3, 3, 16),
    (fourier.DFT_7, 7, 16),
    (fourier.IDFT_7, 7, 16),
    (fourier.RDFT_9, 9, 16),
    (fourier.IRDFT_9, 9, 16),
    (fourier.STFT_15, 15, 16),
    (fourier.ISTFT_16, 16, 16),
    (non_zero.NON_ZERO_3, 3, 16),
    (unique.UNIQUE_10, 10, 16),
    (sparse.SPARSE_FILL_EMPTY_ROWS_16, 16, 16),
    (nms.NMS_1, 1, 2),
    (nms.NMS_3, 3, 3),
    (nms.NMS_4, 4, 4),
    (nms.NMS_5, 5, 8),
    (nms.NMS_9, 9, 16),
    (nms.NMS_ROTATED_13, 13, 16),
    (nms_multiclass.MATRIX_NMS_8, 8, 16),
    (nms_multiclass.MULTICLASS_NMS_8, 8, 8),
    (nms_multiclass.MULTICLASS_NMS_9, 9, 16),
    (convolution.CONVOLUTION_1, 1, 16),
    (convolution.BINARY_CONVOLUTION_1, 1, 16),
    (convolution.GROUP_CONVOLUTION_1, 1, 16),
    (convolution.CONVOLUTION_BACKPROP_DATA_1, 1, 16),
    (convolution.GROUP_CONVOLUTION_BACKPROP_DATA_1, 1, 16),
    (interpolate.INTERPOLATE_1, 1, 3),
    (interpolate.INTERPOLATE_4, 4, 10),
    (interpolate.INTERPOLATE_11, 11, 16),
    (arithmetic.ADD_1, 1, 16),
    (arithmetic.SUBTRACT_1, 1, 16),
    (arithmetic.MULTIPLY_1, 1, 16),
    (arithmetic.DIVIDE_1, 1, 16),
    (arithmetic.RELU_1, 1, 16),
    (arithmetic.POWER_1, 1, 16),
    (arithmetic.MAXIMUM_1, 1, 16),
    (arithmetic.MINIMUM_1, 1, 16),
    (arithmetic.SQUARED_DIFFERENCE_1, 1, 16),
    (arithmetic.FLOOR_MOD_1, 1, 16),
    (arithmetic.MOD_1, 1, 16),
    (arithmetic.EQUAL_1, 1, 16),
    (arithmetic.NOT_EQUAL_1, 1, 16),
    (arithmetic.LESS_1, 1, 16),
    (arithmetic.LESS_EQUAL_1, 1, 16),
    (arithmetic.GREATER_1, 1, 16),
    (arithmetic.GREATER_EQUAL_1, 1, 16),
    (arithmetic.LOGICAL_AND_1, 1, 16),
    (arithmetic.LOGICAL_OR_1, 1, 16),
    (arithmetic.LOGICAL_XOR_1, 1, 16),
    (arithmetic.XOR_1, 1, 1),
    (arithmetic.SELECT_1, 1, 16),
    (bitwise.BITWISE_AND_13, 13, 16),
    (bitwise.BITWISE_OR_13, 13, 16),
    (bitwise.BITWISE_XOR_13, 13, 16),
    (bitwise.BITWISE_NOT_13, 13, 16),
    (bitwise.BITWISE_LEFT_SHIFT_15, 15, 16),
    (bitwise.BITWISE_RIGHT_SHIFT_15, 15, 16),
    (state.READ_VALUE_3, 3, 5),
    (state.READ_VALUE_6, 6, 16),
    (state.ASSIGN_3, 3, 5),
    (state.ASSIGN_6, 6, 16),
    (control_flow.TENSOR_ITERATOR_0, 1, 16),
    (control_flow.LOOP_5, 5, 16),
    (control_flow.IF_8, 8, 16),
    (activations.SIGMOID_1, 1, 16),
    (activations.TANH_1, 1, 16),
    (activations.EXP_1, 1, 16),
    (activations.LOG_1, 1, 16),
    (activations.SQRT_1, 1, 16),
    (activations.ERF_1, 1, 16),
    (activations.SIN_1, 1, 16),
    (activations.COS_1, 1, 16),
    (activations.TAN_1, 1, 16),
    (activations.SINH_1, 1, 16),
    (activations.COSH_1, 1, 16),
    (activations.ASIN_1, 1, 16),
    (activations.ACOS_1, 1, 16),
    (activations.ATAN_1, 1, 16),
    (activations.ASINH_4, 4, 16),
    (activations.ACOSH_4, 4, 16),
    (activations.ATANH_4, 4, 16),
    (activations.ABS_1, 1, 16),
    (activations.NEGATIVE_1, 1, 16),
    (activations.FLOOR_1, 1, 16),
    (activations.CEILING_1, 1, 16),
    (activations.SIGN_1, 1, 16),
    (activations.ROUND_5, 5, 16),
    (activations.CLAMP_1, 1, 16),
    (activations.ELU_1, 1, 16),
    (activations.SELU_1, 1, 16),
    (activations.SWISH_4, 4, 16),
    (activations.HSWISH_4, 4, 16),
    (activations.HSIGMOID_5, 5, 16),
    (activations.MISH_4, 4, 16),
    (activations.SOFTPLUS_4, 4, 16),
    (activations.GELU_2, 2, 6),
    (activations.GELU_7, 7, 16),
    (activations.SOFTSIGN_9, 9, 16),
    (activations.LOGICAL_NOT_1, 1, 16),
    (activations.PRELU_1, 1, 16),
    (activations.HARD_SIGMOID_1, 1, 16),
    (normalization.BATCH_NORM_INFERENCE_1, 1, 4),
    (normalization.BATCH_NORM_INFERENCE_5, 5, 16),
    (normalization.MVN_1, 2, 5),
    (normalization.MVN_6, 6, 16),
    (normalization.GROUP_NORMALIZATION_12, 12, 16),
    (normalization.NORMALIZE_L2_1, 1, 16),
    (normalization.LRN_1, 1, 16),
    (normalization.GRN_1, 1, 16),
    (float_classes.IS_NAN_10, 10, 16),
    (float_classes.IS_INF_10, 10, 16),
    (float_classes.IS_FINITE_10, 10, 16),
    (quantization.FAKE_QUANTIZE_1, 1, 16),
    (fake_convert.FAKE_CONVERT_13, 13, 16),
    (sampling.GRID_SAMPLE_9, 9, 16),
    (roi_align.ROI_ALIGN_3, 3, 8),
    (roi_align.ROI_ALIGN_9, 9, 16),
    (roi_align.ROI_ALIGN_ROTATED_15, 15, 16),
    (detectron.PRIOR_GRID_GENERATOR_6, 6, 16),
    (detectron.ROI_FEATURE_EXTRACTOR_6, 6, 16),
    (detectron.TOP_K_ROIS_6, 6, 16),
    (roi_pooling.ROI_POOLING_2, 2, 16),
    (roi_pooling.PSROI_POOLING_1, 1, 16),
    (deformable.DEFORMABLE_CONVOLUTION_1, 1, 7),
    (deformable.DEFORMABLE_CONVOLUTION_8, 8, 16),
    (deformable.DEFORMABLE_PSROI_POOLING_1, 1, 16),
    (detection.REORG_YOLO_2, 2, 16),
    (detection.REGION_YOLO_1, 1, 16),
    (detection.PRIOR_BOX_CLUSTERED_1, 1, 16),
    (detection.PRIOR_BOX_1, 1, 7),
    (detection.PRIOR_BOX_8, 8, 16),
    (detection.DETECTION_OUTPUT_1, 1, 7),
    (detection.DETECTION_OUTPUT_8, 8, 16),
    (proposals.PROPOSAL_1, 1, 3),
    (proposals.PROPOSAL_4, 4, 16),
    (proposals.GENERATE_PROPOSALS_9, 9, 16),
    (proposals.DETECTRON_PROPOSALS_6, 6, 16),
    (proposals.DETECTRON_OUTPUT_6, 6, 16),
    (ctc.CTC_GREEDY_DECODER_1, 1, 16),
    (ctc.CTC_GREEDY_DECODER_SEQ_LEN_6, 6, 16),
    (ctc.CTC_LOSS_4, 4, 16),
    (ctc.GATHER_TREE_1, 1, 16),
)

#: Every type of every opset of OpenVINO, keyed by lower case: {"opset8": {"avgpool": "AvgPool"}}. Spelled as the
#: opset tables name them, "Const" aside; OpenVINO's serializer writes a few in other cases (ReLU, SoftMax).
OPENVINO_OPSETS: dict[str, dict[str, str]] = {
    name: {t.lower(): t for t in types}
    for name, types in json.loads((Path(__file__).with_name("openvino_opsets.json")).read_text())["opsets"].items()
}

#: (type, version) -> the opset OpenVINO's IR deserializer creates the layer from instead, type spelled exactly so:
#: the experimental ops it added to opset6, and the three ops "missing in opset1" (read from opset2).
_READ_FROM: dict[tuple[str, str], str] = {
    **{(t, v): "opset6"
       for t in ("ExperimentalDetectronDetectionOutput", "ExperimentalDetectronGenerateProposalsSingleImage",
                 "ExperimentalDetectronPriorGridGenerator", "ExperimentalDetectronROIFeatureExtractor",
                 "ExperimentalDetectronTopKROIs", "GRUCell", "RNNCell", "Proposal")
       for v in ("experimental", "extension")},
    **{(t, "opset1"): "opset2" for t in ("MVN", "ROIPooling", "ReorgYolo")},
}

#: Types OpenVINO's reader matches in one exact spelling only.
_EXACT_SPELLING = frozenset({"Const"})

#: Op versions added by ``register`` (a plugin, a test), after those of ``_RANGES``.
_REGISTERED: list[tuple[OpSpec, int, int]] = []
OPSETS: dict[str, dict[str, OpSpec]] = {f"opset{n}": {} for n in range(1, MAX_OPSET + 1)}
_CANONICAL: dict[str, str] = {}


def _build() -> None:
    """Fill OPSETS and the spellings from ``_RANGES`` and ``_REGISTERED`` (in place: importers keep the dicts)."""
    for table in OPSETS.values():
        table.clear()
    _CANONICAL.clear()
    for spec, first, last in (*_RANGES, *_REGISTERED):
        for n in range(first, last + 1):
            OPSETS[f"opset{n}"][spec.type] = spec
        _CANONICAL[spec.type.lower()] = spec.type
    for cached in (canonical_type, type_key, type_query, reads_as, lookup, crashing_types, refusing_types):
        cached.cache_clear()


def register(spec: OpSpec, first: int, last: int) -> None:
    """Add an op version defined outside this package, as one more line of ``_RANGES`` would."""
    if not 1 <= first <= last <= MAX_OPSET:
        raise ValueError(f"{spec.label}: opsets {first}..{last} are not within 1..{MAX_OPSET}")
    _REGISTERED.append((spec, first, last))
    _build()


def unregister(spec: OpSpec) -> None:
    """Remove what ``register`` added for ``spec``."""
    _REGISTERED[:] = [r for r in _REGISTERED if r[0] is not spec]
    _build()


def _read_as(op_type: str, names: dict[str, str]) -> str | None:
    """The one spelling rule: the name in ``names`` (keyed by lower case) OpenVINO reads ``op_type`` as."""
    found = names.get(op_type.lower())
    return None if found in _EXACT_SPELLING and found != op_type else found


@lru_cache(maxsize=1024)  # a model has few distinct type spellings
def canonical_type(op_type: str) -> str | None:
    """The modelled type OpenVINO reads ``op_type`` as ("avgpool" -> "AvgPool"), or None."""
    return _read_as(op_type, _CANONICAL)


#: OpenVINO's Python names of ops (``op.get_type_name()``) that its IR reader does not read, and the IR's spelling.
_PYTHON_NAMES = {"constant": "Const"}


@lru_cache(maxsize=1024)  # a model has few distinct type spellings
def type_key(op_type: str) -> str:
    """What a layer of type ``op_type`` is found by (``Graph.by_type``, ``Layer.is_a``, ``Op``): the modelled type
    OpenVINO reads it as, else (an op ir_tools does not model) its spelling in lower case, as OpenVINO reads it."""
    return canonical_type(op_type) or op_type.lower()


@lru_cache(maxsize=1024)
def type_query(op_type: str) -> str:
    """``type_key`` of a type a look-up asks for. IrToolsError (E-USAGE) for a Python name of OpenVINO's that no
    layer can have ("Constant": the IR's is "Const"), rather than finding nothing."""
    spelling = _PYTHON_NAMES.get(op_type.lower())
    if spelling is not None and op_type != spelling:
        raise IrToolsError(f"no layer has type '{op_type}': OpenVINO's IR reader does not read it (it is the name of "
                           f"OpenVINO's Python API); did you mean {spelling}?", code="E-USAGE")
    return type_key(op_type)


@lru_cache(maxsize=4096)  # (Layer.is_a, asked of every layer by every walk and pass)
def reads_as(op_type: str, asked: str) -> bool:
    """Whether OpenVINO reads a layer of type ``op_type`` as the type a look-up asks for (``type_query``)."""
    return type_key(op_type) == type_query(asked)


def required_spelling(op_type: str) -> str | None:
    """"Const" for "const": the one spelling OpenVINO accepts, when ``op_type`` differs from it in case only."""
    found = _CANONICAL.get(op_type.lower())
    return found if found is not None and _read_as(op_type, _CANONICAL) is None else None


def read_opset(op_type: str, version: str | None) -> str:
    """The opset OpenVINO's IR reader creates a layer of ``op_type`` written at ``version`` from (usually
    ``version`` itself; "" for none)."""
    return _READ_FROM.get((op_type, version or ""), version or "")


@lru_cache(maxsize=1024)  # shape propagation and the executor ask per layer
def lookup(op_type: str, version: str | None) -> OpSpec | None:
    """The spec a layer's type and ``version`` mean, or None if we model no such op version."""
    canonical = canonical_type(op_type)
    table = OPSETS.get(read_opset(op_type, version))
    return None if canonical is None or table is None else table.get(canonical)


def openvino_type(op_type: str, version: str | None) -> str | None:
    """The type OpenVINO's reader creates for ``op_type`` written at ``version`` (any op, modelled or not), or None."""
    return _read_as(op_type, OPENVINO_OPSETS.get(read_opset(op_type, version), {}))


@lru_cache(maxsize=1024)  # asked per layer by check; a model has few distinct types
def openvino_opsets_of(op_type: str) -> tuple[str, ...]:
    """OpenVINO's opsets that hold ``op_type`` (any op), in order."""
    return tuple(name for name in OPENVINO_OPSETS if openvino_type(op_type, name))


def nearest_types(op_type: str, version: str) -> list[str]:
    """Types of opset ``version`` spelled most like ``op_type`` ("AvgPooling" -> ["AvgPool"])."""
    table = OPENVINO_OPSETS.get(version, {})
    return [table[k] for k in difflib.get_close_matches(op_type.lower(), list(table), n=2, cutoff=0.75)]


def opsets_of(op_type: str) -> list[str]:
    """The opsets that contain a modelled type, in order (empty for a type we do not model)."""
    canonical = canonical_type(op_type)
    return [name for name, table in OPSETS.items() if canonical in table]


def specs() -> list[OpSpec]:
    """Every modelled op version once."""
    return list(dict.fromkeys(spec for spec, _, _ in (*_RANGES, *_REGISTERED)))


@lru_cache(maxsize=1)  # (asked by every check of a graph; the op table changes only through register/unregister)
def crashing_types() -> frozenset[str]:
    """The types of the op versions with attribute values OpenVINO's CPU plugin crashes on (``OpSpec.crashes``)."""
    return frozenset(spec.type for spec in specs() if spec.crashes is not None)


@lru_cache(maxsize=1)  # (asked by every check of a clean graph; cleared by register/unregister)
def refusing_types() -> frozenset[str]:
    """The types of the op versions OpenVINO's CPU plugin refuses on some constant inputs (``OpSpec.cpu_refuses``)."""
    return frozenset(spec.type for spec in specs() if spec.cpu_refuses is not None)


_build()
