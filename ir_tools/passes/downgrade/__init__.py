"""Downgrades: passes that rewrite op versions a release cannot create into older ones with the same numbers,
one module per op family; ``passes/target.retarget`` runs them in this order (``to_opset8`` first)."""

from __future__ import annotations

from .adaptive_pool import AdaptiveAvgPoolTo1, AdaptiveMaxPoolTo1
from .attention import ScaledDotProductAttentionTo8
from .base import Downgrade
from .bitwise import BitwiseTo1
from .bitwise_shift import BitwiseShiftTo1
from .col2im import Col2ImTo1
from .convert_promote_types import ConvertPromoteTypesTo1
from .decompression import F32Decompression, I4ZeroPoint, OneChannelDecompression
from .deformable_conv import DeformableConvolutionTo1
from .dft import DftDynamic
from .einsum import EinsumLetters
from .elementwise import ElementwiseTo1
from .embedding_bag import EmbeddingBagTo3
from .empty_reduction import EmptyReductionConst
from .erfinv import ErfInvTo1
from .eye import EyeTo4
from .fake_convert import FakeConvertTo1
from .float_convert import FloatChecksTo1
from .gather import GatherTo1, GatherTo7
from .gather_nd import GatherNDTo5
from .grid_sample import GridSampleTo8
from .if_branch import IfBranch
from .integer_reduction import IntegerReduction
from .interpolate import InterpolateTo4
from .interpolate_pillow import InterpolatePillowTo1
from .istft import IstftTo9
from .max_pool_taps import MaxPoolTapsTo1
from .names import OwnOutputTensors, UniqueNames
from .normalization import GroupNormalizationTo6, RmsNormUnfused
from .own_opset import OwnOpset
from .packed_order import PackedOrder
from .pad import PadTo1
from .pooling import AvgPoolCompiled, MaxPoolTo1, MaxPoolTo8
from .rdft import RealDftTo7
from .respell import Respell
from .same_op import SameOpTo
from .scatter import ScatterReduceTo3
from .scatter_loop import ScatterElementsLoop
from .search_sorted import SearchSortedTo1
from .segment_max import SegmentMaxTo12
from .slice import SliceTo1
from .slice_scatter import SliceScatterTo3
from .softmax import SoftMaxTo1
from .squeeze import SqueezeSkipTo1
from .stft import StftTo9
from .topk import TopKTo3OrReduce
from .unique import UniqueTo8
from .wider_const import WiderConst

#: Every downgrade, in the order ``retarget`` runs them.
DOWNGRADES: tuple[type[Downgrade], ...] = (
    # first, an If of a known condition as its body, whose layers the others then rewrite
    IfBranch,
    # into op versions of opset8 and older
    MaxPoolTo8, AvgPoolCompiled, PadTo1, Respell, ScaledDotProductAttentionTo8, ScatterReduceTo3, ScatterElementsLoop,
    SqueezeSkipTo1, TopKTo3OrReduce, ConvertPromoteTypesTo1, FloatChecksTo1, BitwiseTo1, GroupNormalizationTo6,
    InterpolateTo4, InterpolatePillowTo1, ElementwiseTo1, EmbeddingBagTo3, BitwiseShiftTo1, SegmentMaxTo12,
    GridSampleTo8, SameOpTo, EyeTo4, ErfInvTo1, FakeConvertTo1, EinsumLetters, DftDynamic, SliceScatterTo3,
    SearchSortedTo1, Col2ImTo1, StftTo9, IstftTo9, RealDftTo7, UniqueTo8, EmptyReductionConst, IntegerReduction,
    RmsNormUnfused,
    # opset8's own new versions, for releases before 2022.1 (MaxPool 14 -> 8 -> 1; SDPA's SoftMax-8 -> 1)
    GatherTo7, GatherTo1, SliceTo1, SoftMaxTo1, MaxPoolTo1, MaxPoolTapsTo1, AdaptiveAvgPoolTo1, AdaptiveMaxPoolTo1,
    GatherNDTo5, DeformableConvolutionTo1,
    # last, the op versions written with an opset the release has, and layer names it reads
    OwnOpset, UniqueNames, OwnOutputTensors, WiderConst, I4ZeroPoint, PackedOrder, F32Decompression,
    OneChannelDecompression,
)

__all__ = ["DOWNGRADES", "Downgrade"]
