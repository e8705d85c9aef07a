"""Which OpenVINO release creates which op version: the one table (``openvino_releases.json``, written by
``scripts/make_release_table.py`` from what each release answered, or from OpenVINO's documentation for the releases
without wheels for our Python; each entry names its source).

A release creates a layer ``type`` of ``version="opsetN"`` when its opsetN holds the type, and reads the layer's
attribute values: a value added after its op version (``rounding_type="ceil_torch"``: MaxPool-14 in 2024.0, the
value from 2024.1) counts only in the releases that were seen to read it, or, where older releases read the value and
ignore it, to compute by it (RandomUniform-8's ``alignment="pytorch"``: 2023.0 to 2024.2 draw the "tensorflow"
sequence, 2024.3 to 2024.6 do not compile it on CPU). ``opsetN`` names a target too: the opsets
1 to N as the newest release has them.

A release may also compute wrongly, or fail to read or compile, a layer of an op version it creates in general
(``Release.miscomputes``, the measured ``DEFECTS``), or fail to run a model it reads (``Release.runs_dynamic_state``):
``check --target`` reports both, ``migrate --target`` rewrites the first where an exact form exists (and refuses a
layer it leaves) and refuses the second.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

from ..base.errors import IrToolsError
from .opsets import lookup, read_opset

_TABLE = Path(__file__).with_name("openvino_releases.json")

#: An attribute value newer than its op version: (type, opset, attribute, value).
Value = tuple[str, str, str, str]

#: The measured defects a release of the table may have (``Release.miscomputes``): key -> what the release does, as
#: ``check --target`` says it; the downgrade that rewrites the op says which layers each hits (``Downgrade.repairs``).
DEFECTS: dict[str, str] = {
    "sdpa_boolean_mask_inverted": "computes ScaledDotProductAttention-13 with a boolean mask inverted, True taken "
                                  "as masked out",
    "sdpa_mask_broadcast_refused": "refuses to read ScaledDotProductAttention-13 with a mask whose last two dims are "
                                   "not the query's and the key's lengths (a 1 to broadcast in their place, or "
                                   "several rows for a query of one: 'attention_mask_input_correctness'), and "
                                   "reads one with a 1 in the place of a dynamic L as of L 1 (the output's L "
                                   "inferred 1: a Transpose after it fails at inference)",
    "sdpa_mask_broadcast_dynamic_fails": "fails at inference on ScaledDotProductAttention-13 with a mask whose last "
                                         "two dims hold a 1 where the query's or the key's length is declared "
                                         "dynamic ('attention_mask_input_correctness' once the lengths are known)",
    "sdpa_lower_rank_wrong": "computes ScaledDotProductAttention-13 of a rank-4 query and a key or value of rank 3 "
                             "otherwise than the specification, on static dims",
    "sdpa_lower_rank_dynamic_fails": "fails at inference on ScaledDotProductAttention-13 of a rank-4 query and a key "
                                     "or value of rank 3 with a dynamic dim ('expect_dims')",
    "sdpa_value_width_dynamic_fails": "fails at inference on ScaledDotProductAttention-13 whose value's last dim "
                                      "differs from the query's, with a dynamic dim ('expect_dims')",
    "kv_cache_f16": "computes ScaledDotProductAttention-13 of a KV cache (keys or values read from a state) from the "
                    "keys and values rounded to f16, and has no setting that keeps them f32 (KV_CACHE_PRECISION: "
                    "2024.0 on)",
    "rms_norm_fused_wrong": "computes an RMS norm written as Power(x, 2), ReduceMean-1 over axis -1, Add of eps, Sqrt, "
                            "1 / that, times x and times a constant gamma (which its CPU fuses into one node) up to "
                            "2.4e-4 relative off, and crashes (SIGSEGV) on rows of fewer than 64",
    "sdpa_scalar_mask_crashes": "crashes at inference (SIGSEGV) on ScaledDotProductAttention-13 with a mask of rank 0 "
                                "fed at inference beside a query of batch dims of 1 and 4 rows or more",
    "scatter_min_max_nan_otherwise": "computes ScatterElementsUpdate-12 min and max of f32 and f16 otherwise where a "
                                     "NaN or a signed zero meets another value (a NaN of the data given the update, a "
                                     "NaN update kept; +0.0 for -0.0), with use_init_val true or false",
    "scatter_max_no_init_wrong": "computes ScatterElementsUpdate-12 max of f32 and f16 with use_init_val false from "
                                 "f32's least positive normal, not from the updates alone (updates -1.5 and -2.5 give "
                                 "1.1754944e-38, f16 0, not -1.5)",
    "scatter_reduce_empty_fails": "fails at inference on ScatterElementsUpdate-12 of a reduction other than none "
                                  "whose indices and updates come with 0 elements ('Cannot get dims for non static "
                                  "shape')",
    "scatter_mean_integer_floors": "computes ScatterElementsUpdate-12 mean of integers rounding a negative mean down "
                                   "where the current OpenVINO rounds it toward zero (-3 / 2 gives -2, not -1)",
    "max_pool_ceil_torch_wrong": "computes MaxPool-14 with rounding_type ceil_torch otherwise than the current "
                                 "OpenVINO (other windows: on a length of 6, kernel 2, stride 2 and pads 1 and 0, 3 "
                                 "where it gives 4)",
    "left_shift_16_bit_saturates": "computes BitwiseLeftShift-15 on i16 and u16 saturating where the current "
                                   "OpenVINO wraps (i16 32767 << 1 gives 32767, not -2)",
    "segment_max_zero_fill_wrong": "computes SegmentMax-16 of fill_mode ZERO starting every segment from 0 (a "
                                   "segment of negative values gives 0)",
    "segment_max_i16_lowest_wrong": "gives an empty segment of SegmentMax-16 on i16 with fill_mode LOWEST -32768 "
                                    "where the current OpenVINO gives 0",
    "reduce_empty_integers_otherwise": "computes ReduceMax-1 and ReduceMin-1 of i16 over an axis of length 0 as "
                                       "-32768 and 32767, and ReduceMax-1 of u32 and u64 as 0, where the current "
                                       "OpenVINO gives 0, -1 and 2^31 (computed in i32 and cast)",
    "reduce_integers_otherwise": "computes this Reduce op on this integer type otherwise than the current OpenVINO "
                                 "(ReduceMean rounding where it truncates: -20082.6 gives -20083, not -20082; "
                                 "ReduceSum, ReduceL1 and ReduceProd of i16 and u16 saturating where it wraps; "
                                 "ReduceProd of i32 and i64 through f32: -69 * -41 * 67 * -55 * 50 gives "
                                 "-521243264, not -521243250; measured on seeded inputs)",
    "identity_not_compiled": "reads Identity-16 but its CPU plugin does not compile it ('Unsupported operation of "
                             "type: Identity')",
    "bitwise_unsigned_wrong": "computes BitwiseNot-13 on u16, u32 and u64 as 0 for every element, and "
                              "BitwiseAnd/Or/Xor-13 on u32 capped at 2^31-1",
    "bitwise_not_boolean_wrong": "computes BitwiseNot-13 on booleans as True for every element",
    "i4_zero_point_wrong": "computes NNCF's weight decompression of i4 weights less an i4 zero point up to twice the "
                           "largest output away",
    "one_channel_decompression_fails": "fails to run a MatMul of f16 weights of one output channel behind a "
                                       "decompression Convert (as save_model compresses them) in a model holding a "
                                       "KV-cache ScaledDotProductAttention-13, fed 5 rows or more at f32 ('could "
                                       "not create a primitive descriptor for an inner product')",
    "group_norm_2d_not_compiled": "reads GroupNormalization-12 of a 2-D input but its CPU plugin does not compile it "
                                  "('Cannot fallback on ngraph reference implementation')",
    "einsum_ellipsis_not_compiled": "reads Einsum-7 with an ellipsis or a label repeated in one input but does not "
                                    "compile it ('Unsupported operation of type: Einsum'; two inputs holding an "
                                    "ellipsis: refused when read)",
    "einsum_labels_broadcast_refused": "refuses to read Einsum-7 whose labels broadcast (a label of length 1 in one "
                                       "input and longer in another, which the current OpenVINO computes as numpy "
                                       "does: 'label_to_shape ... compatible')",
    "dft_dynamic_not_compiled": "reads DFT-7 and IDFT-7 of a dynamic shape (an input with a dynamic dim, or a "
                                "signal_size known only at inference) but does not compile them ('Unsupported "
                                "operation of type: DFT ... Doesn't support op with dynamic shapes')",
    "integer_convert_saturates": "computes Convert-1 from this layer's integer type saturating where the current "
                                 "OpenVINO wraps or overflows (i32 300 into u8: 255, not 44; u32 4000000000 into i64: "
                                 "2147483647, not -294967296; i32 70000 into f16 as a model output: 65504, not "
                                 "inf)",
    "squeeze_axis_not_one_refused": "refuses to read Squeeze-1 with an axis whose static dim is not 1, which the "
                                    "current OpenVINO skips ('Only axes of size 1 may be removed')",
    "f16_io_saturates": "reads an infinity of an f16 model input as +-65504 and writes an f16 model output beyond "
                        "+-65504 as +-65504, where the current OpenVINO keeps +-inf (70000 or inf out: 65504, not inf)",
    "float_boolean_wrong": "computes Convert-1 from a float into boolean as False for some values of magnitude above "
                           "255 (255.5, 256, 3e38, inf: False, not True)",
    "float_boolean_nan_true": "computes Convert-1 from a float into boolean as True for NaN, where the current "
                              "OpenVINO gives False",
    "integer_boolean_negative_false": "computes Convert-1 from i16, i32 or i64 into boolean as False for every "
                                      "negative value (-1: False, not True)",
    "masked_attention_row_nan": "computes attention written as Transpose, MatMul, Add of a mask, SoftMax-8, MatMul and "
                                "Transpose (which its CPU fuses) as NaN in a row whose every key the mask takes out "
                                "with a finite value (-1e30, or a language model's f32 least: NaN, not uniform "
                                "weights)",
    "v10_boolean_output_fails": "fails to compile a model where IsNaN-10, IsInf-10 or IsFinite-10 is read by other "
                                "than a single LogicalNot-1 or LogicalAnd-1 (a Select, a Reshape, a Convert; in IR "
                                "v10 a Result too: 'Eltwise node ... doesn't support BOOL precision')",
    "avg_pool_pads_refused": "does not compile AvgPool-1 with an axis of two windows or more whose first window "
                             "reaches past the data by other than a multiple of the stride (kernel - length - "
                             "pads_begin > 0 and not a multiple of it: 'Supported primitive descriptors list is "
                             "empty'; on dynamic dims it fails at inference)",
    "if_dynamic_rank_not_compiled": "does not compile an If-8 one of whose outputs has a dynamic rank (its bodies' "
                                    "differ), even where its condition compares a tensor with itself, which the "
                                    "current OpenVINO folds ('CPU plug-in doesn't support If operation with dynamic "
                                    "rank')",
    "fake_convert_otherwise": "computes FakeConvert-13 otherwise than the current OpenVINO (2023.3 to 2025.0: NaN "
                              "kept where it gives the f8 type's lowest, +-inf where it saturates, other roundings "
                              "to the f8 grid; 2025.1 and 2025.2: a division by the scale, 1 ulp off its "
                              "multiplication by the reciprocal, and -0.0 for +0.0; measured on seeded inputs)",
    "fake_convert_folded_otherwise": "folds FakeConvert-13 of Consts alone (compressed weights) into other numbers "
                                     "than the current OpenVINO (its reference evaluator's: NaN kept, other "
                                     "roundings; measured on seeded inputs)",
    "reduce_empty_axis_wrong": "computes a Reduce op (ReduceMax/Min/Sum/Prod/Mean/L1/L2/LogicalAnd/Or) over an axis of "
                               "length 0 as whatever its output's memory held, where the current OpenVINO gives "
                               "the reduction's start (-3.4e38 for ReduceMax of f32, 0 for ReduceSum, 1 for "
                               "ReduceProd, True for ReduceLogicalAnd)",
}

#: A Convert-1 of f32 or f16 into boolean of a value of at most this magnitude is computed right by every release
#: measured (``float_boolean_wrong``: 2023.0 to 2024.0 give False for some of magnitude 255.02 and above, none below,
#: on every f16 value and 274644 f32 ones).
FLOAT_BOOLEAN_EXACT_WITHIN = 255.0
#: The integer types whose Convert-1 into boolean ``integer_boolean_negative_false`` makes False of a negative value
#: (2023.0 to 2024.2; i8 and the unsigned types right on every release measured).
NEGATIVE_BOOLEAN_TYPES = frozenset({"i16", "i32", "i64"})


#: Element types packed several to a byte that a release reads in the reverse order within each byte, where the
#: current OpenVINO writes the first value in the low bits: each with the first release that reads the current order.
#: u4 and i4 changed in 2023.2 (OpenVINO pull request 20371; measured: 2023.0 and 2023.1 read the first in the high
#: nibble, 2023.2 and 2024.0 on the low one; the documented-only releases take 2023.0's answer); u2, which releases
#: read from 2024.1, in 2025.3 (measured on 4099 seeded values: 2025.0, 2025.1 and 2025.2 read a byte's four values
#: reversed, and on 64: 2024.1 to 2024.6 too; 2025.3, 2025.4 and 2026.0 to 2026.4 as written). u1, u3 and u6 read
#: the same in every release that reads them (measured on the same releases).
REVERSED_IN_BYTE_BEFORE: dict[str, tuple[int, int]] = {"u4": (2023, 2), "i4": (2023, 2), "u2": (2025, 3)}

#: The CPU computes NNCF's f16 weight decompression (integer weights converted to f16, less a zero point, times an f16
#: scale) in f32 from this release on, as the current one does; the releases before may fold it in f16 (measured on
#: the target zoo's compressed GPT-2, Llama and Qwen2: 2023.0 folds every one in f16, 2024.0 GPT-2's, 2025.0 none;
#: and bit for bit on seeded u8 chains read by a MatMul, a Gather, an Add, on every release with wheels: 2023.0 to
#: 2024.0 fold them in f16, 2024.1 to 2026.4 compute them in f32).
F32_DECOMPRESSION_FROM = (2024, 1)

#: The releases from the first up to the second that compute in f32 what the current one computes of such a chain in
#: f16: where its Convert to f32 is a decompression layer (rt_info) read by a layer other than a MatMul or a Gather
#: (OPT's tied embeddings: a ShapeOf), the current CPU computes the Gathers from the f32 product and every other reader
#: from the f16 one, as the file says (measured on seeded u8 chains on every release with wheels: 2024.1 to 2025.0
#: compute every reader in f32; 2023.0 to 2024.0 fold the chain in f16 for every reader; 2025.1 to 2026.4 as the
#: current one).
F32_DECOMPRESSION_READERS = ((2024, 1), (2025, 1))


#: A Result's own names (its ``output_names``, which two Results of one tensor may hold otherwise) name the model's
#: output from this release on (measured: 2025.1 writes and reads them; 2023.0, 2024.0 and 2025.0 name the output
#: after its producer's tensor; the releases between take 2025.0's answer).
RESULT_NAMES_FROM = (2025, 1)


#: Two tensors of one name in an IR v10 model are read from this release on, renamed as the current OpenVINO renames
#: them (``ir.names.resolved_names``): measured, 2023.0, 2023.3, 2024.0, 2024.6 and 2025.0 refuse the file ("Model
#: tensor names have collisions"), 2025.1, 2025.2, 2025.4 and 2026.4 read it (a UNet's input 'sample' and its output
#: 'sample' made IR v10). In IR v10 alone: the releases before read such an IR v11 file, reporting the name twice.
V10_REPEATED_TENSOR_NAMES_FROM = (2025, 1)


#: Element types a release cannot read ("Incorrect type"): each with the newest release that refuses it and the
#: oldest that reads it (measured by reading a model with a Const of each type on every release with wheels, 2023.0 to
#: 2025.4, and a Parameter of nf4, string, f8e4m3, f8e5m2 and f4e2m1 on 2023.0 to 2023.3, 2024.0 and 2025.0; the
#: releases before 2023.0, documented only, refuse what 2023.0 refuses).
ELEMENT_TYPES_FROM: dict[str, tuple[tuple[int, int], str]] = {
    "nf4": ((2023, 1), "2023.2"), "string": ((2023, 2), "2023.3"),
    "f8e4m3": ((2023, 3), "2024.0"), "f8e5m2": ((2023, 3), "2024.0"),
    "u2": ((2024, 0), "2024.1"), "u3": ((2024, 0), "2024.1"), "u6": ((2024, 0), "2024.1"),
    "f4e2m1": ((2024, 2), "2024.3"), "f8e8m0": ((2024, 2), "2024.3"),
}

#: A model input or output with a static dim of 0 is read from this release on (measured: 2023.0 and 2023.1 refuse
#: the file, "has zero dimension which is not allowed", the check of their legacy network wrapper; 2023.2 on read
#: it; the documented-only releases before 2023.0 take 2023.0's answer).
ZERO_DIMS_FROM = (2023, 2)

#: A document that ends within its first 512 bytes (a model of a layer or two) is read from this release on (measured:
#: 2023.0, 2024.0, 2024.1, 2024.2, 2024.3 and 2024.4 refuse it, "Unable to read the model", whatever blanks follow
#: ``</net>``, as their reader takes the IR version from a parse of a 512-byte header; 2024.5, 2024.6 and 2025.0 read
#: it; the documented-only releases before 2023.0 take 2023.0's answer). ``ir.writer`` writes every document longer.
SHORT_DOCUMENTS_FROM = (2024, 5)


@dataclass(frozen=True)
class Release:
    name: str  # "2023.0", or "opset8"
    source: str
    ir_versions: tuple[int, ...]
    opsets: Mapping[str, frozenset[str]]  # "opsetN" -> its types, lower case (the reader's spelling rule)
    values: frozenset[Value]  # the newer attribute values it reads
    reads_duplicate_layer_names: frozenset[int] = frozenset()
    """The IR versions (10, 11) in which the release's reader takes an IR where two layers have the same ``name``
    (measured: 2023.0 to 2024.0 refuse such an IR, v10 and v11 alike, "Invalid IR! same name is not unique!";
    2024.1 on reads both; the documented-only releases before 2023.0 take 2023.0's answer)."""
    miscomputes: frozenset[str] = frozenset()
    """The measured defects (keys of ``DEFECTS``) of its reader or CPU plugin: layers of op versions it creates, but
    computes wrongly, or does not read or compile (scripts/probe_release.py; the documented-only releases before
    2023.0 take 2023.0's, unmeasured, as its ``converts_otherwise`` and ``reduces_otherwise``):

    - ``sdpa_boolean_mask_inverted``: 2023.3, the first with SDPA-13, to 2025.2 take a True of its boolean mask as
      masked out, which the specification says takes part; 2025.3 on compute it right;
    - ``sdpa_mask_broadcast_refused``: 2023.3 to 2024.2 refuse to read SDPA-13 whose mask has a 1 in the place of
      L or S ([1, S], [L, 1], [1, 1, 1, S]; not causal), which the specification broadcasts: their shape inference
      asks the mask's last two dims to equal L and S, "Check 'attention_mask_input_correctness' failed" (OpenVINO
      pull request 24745 relaxed it); so is a mask of several rows for a query of one (L = 1: [2, S], [1, 1, 4, S];
      measured on 2023.3, 2024.0 and 2024.1, read by 2025.0; found by a helper reviewing the downgrades); batch dims
      of 1 are read by all; 2024.3 on read and compute it right; the same check reads a mask of a 1 in the place of
      a dynamic L (a BERT-like encoder's [?, 1, 1, ?]) as of L 1: the output's L inferred 1, a Transpose after it
      fails at inference ("conflicts with the reshape pattern"; measured on 2024.0, 2024.1 and 2024.2, 2023.3 fails
      to run it otherwise, 2024.3 on run it right; a 1 in the place of a dynamic S runs right; found by the third
      wide-zoo sweep, LayoutLM);
    - ``sdpa_mask_broadcast_dynamic_fails``: 2023.3 reads, and compiles, such a mask where the query's and the key's
      lengths are declared dynamic (a language model's), and fails at every inference ("Shape inference of
      ScaledDotProductAttention node ... attention_mask_input_correctness"); 2024.0 on run it right (measured on
      every release with SDPA-13; found after stop 51's notes);
    - ``sdpa_lower_rank_wrong``: 2023.3 and 2024.0 compute SDPA-13 of a rank-4 query and a key or value of rank 3
      (which the specification broadcasts, as the current one does) otherwise, every dim of the three static
      (outputs off by up to 3, causal, masked or not); ``sdpa_lower_rank_dynamic_fails``: 2023.3 fails at
      inference on such a layer with a dynamic dim ("m_dims=[2,6,8,] expect_dims=[1,6,8,8,]"), which 2024.0 runs
      right; 2024.1 on compute both right; a rank-5 query with a key of rank 4 is right on all (measured on every
      release with SDPA-13; found by a helper reviewing the downgrades);
    - ``sdpa_value_width_dynamic_fails``: 2023.3 fails at inference ("m_dims=[1,2,6,8,] expect_dims=[1,2,6,16,]")
      on SDPA-13 whose value's last dim (8) differs from the query's and key's (16), a dim of the three dynamic; of
      static dims it computes it right, as 2024.0 on do both (measured on every release with SDPA-13; found by the
      wide sweeps: LeViT's and Nystromformer's attention, the probe ``sdpa_value_width``);
    - ``kv_cache_f16``: 2023.3 computes SDPA-13 over a KV cache (ReadValue-6, Gather by beam index, Concat with the
      new keys or values, Assign-6, as optimum-intel exports a language model) from its keys and values rounded to
      f16, at f32 inference precision: one-token steps within 1e-7 of the f16-rounded attention, 8e-4 off the exact
      one; it has no KV_CACHE_PRECISION setting, which 2024.0 on have and compute f32 with (measured on every
      release with SDPA-13, the probe ``kv_cache_f32``; found by the wide sweeps: T5's and Whisper's stateful
      decoders, logits 1.3e-4 of their largest off at a step of one token, GPT-2's 1.4e-4);
    - ``rms_norm_fused_wrong``: 2024.4 fuses an RMS norm (Power(x, 2), ReduceMean-1 over axis -1, Add of eps, Sqrt,
      Divide(1, that) or Power(that, -1), Multiply by x, Multiply by an f32 gamma computed from Consts; Divide(x,
      that) too: OpenVINO's RMSFusion, run by its CPU) into one node, "RMS", whose kernel scales each row up to
      2.4e-4 relative off (mean 6.3e-5, rows of 64 to 1024; the rounding bound for 64: 37 units of 2^-24) and
      crashes (SIGSEGV) on rows of fewer than 64; 2024.3 does not fuse it, 2024.5 on fuse and compute it right; a
      norm of gamma all ones (folded away), or written with Power(that, -0.5), or reducing axis rank - 1, is not
      fused (measured on every release with wheels, the probe ``rms_norm``; found by the wide sweeps: T5's final
      norm, times 0.125, logits 1.0e-4 of their largest off);
    - ``sdpa_scalar_mask_crashes``: 2023.3 to 2025.1 crash (SIGSEGV) at inference on SDPA-13 (not causal) with a
      mask of rank 0 that is not a constant (a Parameter, or a Squeeze of one) beside a query of rank 3 or 4 whose
      batch dims are all 1 and whose L is 4 or more ([1, 1, 4, 8], [1, 4, 8], [1, 1, 16, 8]); a batch or head dim of
      2, L of 3 or less, a Const mask, a mask [1, 1] or a rank-5 query run right; 2025.2 on run it right (measured
      on every release with SDPA-13; found by a helper reviewing the downgrades);
    - ``scatter_min_max_nan_otherwise``: 2023.1 to 2024.0 compute ScatterElementsUpdate-12 min and max of f32 with
      use_init_val otherwise where a NaN or a signed zero meets another value: min of data NaN and update 2 gives 2
      (the current one NaN), of data 1 and update NaN gives NaN (the current one 1), of -0.0 and +0.0 gives +0.0 (the
      current one -0.0), max alike; 2024.1 on as the current one (measured on every release with opset12; found by
      a helper reviewing the downgrades); and with use_init_val false alike (updates 1 then NaN give NaN, the current
      one 1; -0.0 then +0.0 give +0.0, the current one -0.0), and f16 alike (measured on 2023.1, 2023.2, 2024.0 and
      2024.1, found by another; the probe's ``scatter_min_max`` asks f32 without use_init_val too);
    - ``scatter_max_no_init_wrong``: 2023.1 and 2023.2 compute ScatterElementsUpdate-12 max of f32 and f16 with
      use_init_val false starting from f32's least positive normal (1.1754944e-38; f16 0): a place whose updates are
      all negative gets it, not their maximum; min, sum, prod and mean of floats, and max of i32 and i64, right;
      2023.3 on as the current one; ``scatter_mean_integer_floors``: 2023.1 to 2024.0 compute its mean of i16, i32
      and i64 (use_init_val true or false) rounding a negative mean down (-3 / 2 gives -2), where the current one
      truncates (-1); 2024.1 on as the current one (measured on every release with opset12; i8 and u8 not compiled
      there; found by a helper reviewing the downgrades); ``scatter_reduce_empty_fails``: 2023.1 and 2023.2 fail at
      inference ("Cannot get dims for non static shape", in the next layer's shape inference or at the output) on
      ScatterElementsUpdate-12 of reduction sum, prod, min, max or mean (f32 and i32, use_init_val true or false)
      whose indices and updates, declared of a dynamic dim, come with 0 elements, along the axis or off it; reduction
      none runs right, 2023.3 on as the current one (measured on every release with opset12; found by the wide
      sweeps: aten::index_add_ of an MoE model, Mixtral's and Qwen2-MoE's, for an expert no token goes to);
    - ``max_pool_ceil_torch_wrong``: 2024.2 computes MaxPool-14 with rounding_type ceil_torch with other windows
      than the current one (a length of 6, kernel 2, stride 2, pads 1/0: 3, not 4; kernel 2, dilation 2, stride 1,
      pads 1/0: 4, not 5), values and indices; 2024.1 and 2024.3 on as the current one (measured on every release
      reading ceil_torch; found by a helper reviewing the downgrades);
    - ``left_shift_16_bit_saturates``: 2024.4, the first with opset15, to 2025.3 compute BitwiseLeftShift-15 on i16
      and u16 saturating where the current one wraps (32767 << 1 gives 32767, -32768 << 1 gives -32768, u16 65535 << 1
      gives 65535: 51212 of 60000 seeded i16 pairs); i8, u8 and i32, and every right shift, as the current one;
      2025.4 on as the current one (measured on every release with opset15; found by a helper reviewing the
      downgrades);
    - ``segment_max_zero_fill_wrong``: 2025.1, the first with SegmentMax-16, starts every segment of fill_mode ZERO
      from 0 (segments [-5, -3] and [-7] give 0 and 0, the current one -3 and -7; f32, f16 and every signed integer
      type); ``segment_max_i16_lowest_wrong``: 2025.1 to 2025.3 give an empty i16 segment of fill_mode LOWEST -32768,
      the current one 0; 2025.2 (ZERO) and 2025.4 (LOWEST) on as the current one (measured on every release with
      opset16; found by a helper reviewing the downgrades);
    - ``identity_not_compiled``: 2025.0, the first with Identity-16, to 2025.3 read it but do not compile it
      ("Unsupported operation of type: Identity"); 2025.4 on do;
    - ``bitwise_unsigned_wrong``: 2023.2, the first with opset13, to 2025.3 give 0 for BitwiseNot-13 on u16, u32 and
      u64 and cap BitwiseAnd/Or/Xor-13 on u32 at 2^31-1 (0 | 4294967295 gives 2147483647); all four are right on u8,
      i8, i16 and i32, and And/Or/Xor on u64 and all on i64; 2025.4 on compute them right (i64 and u64 probed within
      i32: beyond it every release, the current one too, computes them through i32; found u64 by a QA run);
    - ``bitwise_not_boolean_wrong``: 2023.2, the first with opset13, computes BitwiseNot-13 on booleans as True for
      every element (as a bitwise not of the byte, 1 giving 254); And/Or/Xor on booleans right, 2023.3 on as the
      current one (measured on every release with opset13; found by the wide sweeps: DeBERTa's attention mask,
      ``~mask.bool()``, masked every key);
    - ``i4_zero_point_wrong``: 2024.0 to 2025.3 compute i4 weights less an i4 zero point (each converted to f16,
      times an f16 scale, into a MatMul) up to twice the largest output away; 2023.2, 2023.3 and 2025.4 on right
      (u4 and u8 zero points, and i4 weights without one, right on all; found by a QA run);
    - ``one_channel_decompression_fails``: 2024.2 to 2025.1 fail at inference ("could not create a primitive
      descriptor for an inner product forward propagation primitive") on a MatMul of f16 weights [1, K] behind a
      decompression Convert, fed 5 rows or more at f32 inference precision (the default of a CPU without bf16), in a
      model holding a ScaledDotProductAttention-13 of a KV-cache (ReadValue-6, Concat, Assign-6); 2023.3 to 2024.1
      and 2025.2 on right (found by the wide language-model sweep: Qwen2-MoE's shared expert gate, exported stateful
      by optimum-intel, on 2025.0; the probe ``one_channel_decompression``);
    - ``group_norm_2d_not_compiled``: 2023.1, the first with GroupNormalization-12, to 2024.0 do not compile it on a
      2-D input ([3, 4], 2 groups); 2024.1 on compute it right (found by a QA run);
    - ``einsum_ellipsis_not_compiled``: 2023.0 to 2025.0 read Einsum-7 with an ellipsis ("...ij,jk->...ik") or a
      label repeated in one input ("bii->bi", a diagonal) but their CPU plugin does not compile it ("Unsupported
      operation of type: Einsum": their EinsumDecomposition takes neither), and refuse to read one where two inputs
      hold an ellipsis ("label_to_shape ... compatible"); letters alone they compile. Measured on every release
      from 2023.0 to 2026.4 (``einsum_ellipsis``: 2025.1 on compile and compute it), found by a helper converting
      torch models with ``torch.einsum``;
    - ``einsum_labels_broadcast_refused``: 2023.0 to 2025.0 refuse to read Einsum-7 whose labels broadcast
      ("ij,jk->ik" of [2, 1] and [3, 4]: a summed label; "bij,bjk->bik" of [1, 2, 3] and [2, 3, 4]: a kept one),
      declared of static dims ("label_to_shape[label].compatible"); declared dynamic and fed so, they compute the kept
      label's right and fail at inference on the summed one. Measured on every release from 2023.0 to 2026.4
      (``einsum_label_broadcast``: 2025.1 on compute all four right), found by the Einsum-7 conformance cases run on
      2023.0;
    - ``dft_dynamic_not_compiled``: 2023.0 to 2025.1 read DFT-7 and IDFT-7 of an input with a dynamic dim (any:
      the batch's, the transformed axis's) but their CPU plugin does not compile them ("Unsupported operation of
      type: DFT ... Doesn't support op with dynamic shapes"), with or without signal_size, nor those of a static
      input whose signal_size is a Parameter (a dynamic output); of static dims they do, and RDFT-9 and IRDFT-9 of a
      dynamic input too. Measured on every release from 2023.0 to 2026.4
      (``dft_dynamic``: 2025.2 on compile and compute them), found by a helper converting ``torch.fft.fft``;
    - ``integer_convert_saturates``: 2023.0 to 2025.3 compute Convert-1 on 35 of the 72 pairs of integer types
      probed (u8 to i64, into those and f32) otherwise than the current OpenVINO (36: u32 into f32 too, on 2023.0 to
      2023.2), ``converts_otherwise``: a value out of the destination's range saturated where 2025.4 on wrap it, and
      a u32 of 2^31 or more (which every release takes through i32) saturated to 2^31-1 where 2025.4 on wrap it to a
      negative i32, into i64 too; ConvertPromoteTypes-14 (2024.0 to 2025.3) differs on the 15 pairs with a u32
      input, each where a Convert of an input to the promoted type does (found by a QA run: i32 + u32 unsafe into
      i64). i64 and u64 are probed within i32: beyond it every release, the current one too, computes them through
      i32. Into f16 (every value of the 8- and 16-bit types, edges and 4000 seeded ones of the wider), 2023.0 to
      2024.2 differ on i32, i64, u16, u32 and u64 where the f16 is a model output (a value beyond f16's range: 65504
      where 2024.3 on give inf), and ConvertPromoteTypes-14 on 2024.0 to 2024.2 wherever its Convert does; every
      release converts u8, i8 and i16 into f16, and every integer type into f32 (u32 on 2023.3 on), as the current one
      does (found by a QA run). Inside the model (the f16 multiplied by an f16 input, then converted to f32) every
      release converts every integer type into f16 as the current one does, which holds the f16 in f32 (i32 70000
      stays 70000, 2049 stays 2049; Multiply, Add, Concat, Maximum and Convert to f32 or i32 alike), but u32 on 2023.0
      to 2023.2 (read through i32, as into f32: 1963 of 4188 values, 2^31 or more, 2147483648 where the current one
      keeps them): ``converts_output_only`` lists the pairs into f16 that differ as a model output only, so a Convert
      whose f16 feeds no Result is left (measured on every release 2023.0 to 2026.4, ``int_to_f16_inside``). 2023.1
      and 2023.2, without ``f16_io_saturates``, saturate an integer Convert-1 into f16 only where its output is a
      Result's (and then for its other consumers too), not where a Reshape stands between;
    - ``squeeze_axis_not_one_refused``: 2023.0 to 2024.2 refuse to read Squeeze-1 with an axis whose static dim is
      not 1 ([1, 3, 1, 4], axes [1], [-3] or [0, 1]: "Only axes of size 1 may be removed"), which 2024.3 on skip (as
      Squeeze-15 does, from 2024.5, allow_axis_skip true or false); Unsqueeze-1 is read and computed alike by every
      release, repeated axes too (found by a QA run);
    - ``f16_io_saturates``: 2023.0 to 2024.2 read an infinity of an f16 model input as +-65504 and write
      an f16 model output beyond +-65504 (infinities, 65520 and up) as +-65504, where 2023.1, 2023.2 and 2024.3 on
      keep +-inf; inside a model every release computes f16 in f32 alike (an f16 Const's infinity, a Convert to f16
      and back, f16 arithmetic beyond 65504: measured), and every finite input and every output within f16's range
      is bit for bit the current one's (every f16 value in, 367000 f32 values out);
    - ``float_boolean_wrong``: 2023.0 to 2024.0 compute Convert-1 of f32 and f16 into boolean as False for some values
      of magnitude above 255 (255.5, 256, 3e38, +-inf; 77543 of 274644 f32 values, 534 of the f16 ones, the least
      255.02), right for every value within +-255 (``FLOAT_BOOLEAN_EXACT_WITHIN``); 2024.1 on right;
    - ``float_boolean_nan_true``: 2024.1 and 2024.2 convert NaN into True (f32 and f16), the current one False;
    - ``integer_boolean_negative_false``: 2023.0 to 2024.2 compute Convert-1 of i16, i32 and i64 into boolean as
      False for every negative value (every negative i16, and the 10193 negative ones of 20407 i32 and i64 values
      within (-2^31, 2^31)), the current one True; i8 and the unsigned types right (``NEGATIVE_BOOLEAN_TYPES``;
      found by a helper migrating DeBERTa-v2, whose mask, fed integers, is multiplied and converted into boolean);
    - ``masked_attention_row_nan``: 2023.0 computes attention written as ops (Transpose, MatMul of the scaled query
      and the key, Add of a mask, SoftMax-8, MatMul with the value, Transpose: the form ScaledDotProductAttention-13
      is migrated into, which its CPU fuses) as NaN in a row whose every key a finite mask value takes out (-1e30,
      -3.4e38 as a language model's padding writes it; the probe ``masked_attention_rows``), where the specification
      and 2023.1 on give uniform weights; rows masked otherwise, and rows masked whole by -inf (NaN by the
      specification), it computes right (found by the fifth wide-zoo sweep: OPT fed a mask of left padding, migrated
      for 2023.0, gave NaN in every output element there);
    - ``v10_boolean_output_fails``: 2023.0 does not compile an IR v10 model whose output is IsNaN-10's, IsInf-10's or
      IsFinite-10's ("doesn't support BOOL precision"), nor a model of either IR version where such a layer is read
      by a Reshape, an Unsqueeze, a Concat, a Convert-1, a Select-1, a LogicalOr-1 or two LogicalNot-1 (it does
      where a single LogicalNot-1 or LogicalAnd-1 reads it, or in IR v11 a single Result; 2023.1 on, and 2024.0,
      2024.1 and 2025.0, compile all; the IR v11 readers found by the fifth wide-zoo sweep: an ONNX Llama's
      IsNaN read by a Select, migrated for 2023.0, was refused there); NotEqual-1's and LogicalNot-1's it does;
    - ``avg_pool_pads_refused``: 2023.0 to 2024.1 do not compile AvgPool-1 (on dynamic dims: fail at inference) with
      an axis of two windows or more where ``K - L - pads_begin`` is positive and not a multiple of the stride
      (``pool_geometry.cpu_pads_refused``: the CPU plugin's end pad, computed with C's truncating division, disagrees
      with oneDNN's window count; e.g. L=1, K=2, S=2, pads 0/2, ceil); 2024.2 on compile them (measured on 13,656
      1-D, 2-D and 3-D layers, static and dynamic, every auto_pad, rounding and exclude-pad);
    - ``fake_convert_otherwise``: 2023.3, the first with FakeConvert-13, to 2025.2 compute it otherwise than the
      current one on seeded f32 and f16 data, fed or Const scale and shift (the probe ``fake_convert``, its ``fed``
      digests; 2023.3 to 2025.0: 255 or 256 of 256 seeded layers somewhere, NaN kept, +-inf, other roundings; 2025.1
      and 2025.2: 158 and 141 of them, a division 1 ulp off and -0.0 for +0.0); ``fake_convert_folded_otherwise``:
      2023.3 to 2025.0 fold a FakeConvert-13 of Consts alone into other numbers (58 of 128 seeded layers, ``folded``);
      2025.3 on compute, and 2025.1 on fold, bit for bit as the current one (measured on every release with wheels;
      found by the helper writing ``FakeConvertTo1``, which repairs the first and names the second);
    - ``if_dynamic_rank_not_compiled``: 2023.0 to 2025.4 do not compile an If-8 whose output has a dynamic rank
      (bodies of two ranks) where its condition is NotEqual of a tensor with itself, as optimum's DeBERTa-v2 export
      has it; 2026.0 on fold the If away and run it (measured on every release with wheels; an If of an unknown
      condition and a dynamic rank no release compiles);
    - ``reduce_empty_axis_wrong``: 2023.0 to 2024.5 compute ReduceMax/Min/Sum/Prod/Mean-1, ReduceL1/L2-4 and
      ReduceLogicalAnd/Or-1 over an axis of length 0 (of a static input sliced empty, or a dynamic one fed [3, 0]) as
      whatever the output's memory held, other at each inference; 2024.6 on give the reduction's start, as the
      current one does (-3.4e38 for ReduceMax of f32, 3.4e38 for ReduceMin, 0 for ReduceSum, ReduceMean, ReduceL1 and
      ReduceL2, 1 for ReduceProd, True for ReduceLogicalAnd, False for ReduceLogicalOr; i32 alike, with its own
      extremes; every element type: ``passes/downgrade/empty_reduction.EMPTY_START``, which ``migrate --target``
      writes as a Const for an axis of static length 0); measured on every release with wheels, found by a helper
      reviewing the downgrades; ``reduce_empty_integers_otherwise``: 2024.6 to 2025.3 give ReduceMax-1 and
      ReduceMin-1 of i16 there as -32768 and 32767, and ReduceMax-1 of u32 and u64 as 0, where 2025.4 on give 0, -1,
      2^31 and 2^64 - 2^31 (computed in i32 and cast; measured on every release with wheels, found by another);
    - ``reduce_integers_otherwise``: the Reduce ops and integer types of ``reduces_otherwise`` computed otherwise than
      the current one (measured on every release with wheels on 200 rows of 5 values, each row's
      from [-7, 7], [-100, 100], [-100000, 100000] or i32's range, clipped to the type's; found by a helper
      reviewing the downgrades): 2023.0 to 2024.3 ReduceMean and ReduceL2 of every integer type (a mean rounded to
      the nearest where the current one truncates: -20082.6 gives -20083, not -20082), 2023.0 to 2024.2 ReduceProd
      of every integer type, and 2023.0 to 2025.3 ReduceSum, ReduceL1 and ReduceProd of i16, u16, u32 and u64 (i16
      and u16 saturating where the current one wraps), ReduceMean of u32 and u64 and ReduceL2 of i16, u32 and u64;
      2025.4 on as the current one; ReduceMax and ReduceMin alike on every release (``passes/downgrade/
      integer_reduction``: ReduceMean of i8 and u8 rewritten, the rest refused)."""
    runs_dynamic_state: bool = True
    """Whether its CPU plugin runs a model whose state (a ReadValue / Assign variable) has a dynamic shape (measured:
    2023.0 to 2023.2 fail at the first inference, "Evaluation failed ... ReadValue", and run a static one; 2023.3 on
    run it; the documented-only releases before 2023.0 take 2023.0's answer, unmeasured)."""
    runs_static_init_state: bool = True
    """Whether its CPU plugin runs a model whose state has a dynamic shape and an init (the ReadValue's input) of
    static shape (measured on a KV-cache in small, variables [?, ?], [1, ?] and [2, ?] concatenated with an input,
    three inferences: 2023.3 to 2024.4 fail to compile or run it where the init is a Broadcast to a Const shape
    [1, 0] or to one taken from a static dim of the input, "Cannot get dims for non static shape", and run it where
    the init's shape is dynamic or there is no init; 2024.5 on run all; 2023.0 to 2023.2 fail on every dynamic state;
    the documented-only releases take 2023.0's answer, unmeasured; found by a QA run: a language model reshaped to
    batch 1)."""
    converts_otherwise: frozenset[str] = frozenset()
    """The pairs of an integer type and another ("u32->i64", "i32->f16") on which its Convert-1 computes other numbers
    than the current OpenVINO's (``integer_convert_saturates``; the pairs probed: ``converts_probed``), where the
    converted value is a model output."""
    converts_output_only: frozenset[str] = frozenset()
    """The pairs of ``converts_otherwise`` (into f16) it converts otherwise only where the converted value is a model
    output: inside a model it computes them as the current OpenVINO does (``converts_otherwise_inside``)."""

    reduces_otherwise: frozenset[str] = frozenset()
    """The Reduce ops and integer types ("ReduceSum:i16") it computes otherwise than the current OpenVINO
    (``reduce_integers_otherwise``; scripts/probe_release.py ``reduce_integers``)."""

    @property
    def converts_otherwise_inside(self) -> frozenset[str]:
        """The pairs on which its Convert-1 computes other numbers than the current OpenVINO's where the converted
        value is used inside the model, not a model output (``converts_otherwise`` less ``converts_output_only``)."""
        return self.converts_otherwise - self.converts_output_only

    @property
    def called(self) -> str:
        """The target as messages name it: ``OpenVINO 2023.0``; an ``opsetN`` target is no release: ``the target
        opset8 (opsets 1-8)``."""
        return f"the target {self.name} ({self.source.split(' as ')[0]})" if self.number is None else \
            f"OpenVINO {self.name}"

    @cached_property
    def number(self) -> tuple[int, int] | None:
        """(year, minor) of a release, None for an ``opsetN`` target."""
        return None if self.name.startswith("opset") else (int(self.name.split(".")[0]), int(self.name.split(".")[1]))

    def refuses_element_type(self, element: str) -> str | None:
        """The oldest measured release that reads ``element`` where this release is known to refuse it, else None."""
        found = ELEMENT_TYPES_FROM.get(element)
        if found is None or self.number is None or self.number > found[0]:
            return None
        return found[1]

    def reads_reversed_in_byte(self, element: str) -> bool:
        """Whether it reads the values of ``element`` packed in a byte in the reverse of the current order
        (``REVERSED_IN_BYTE_BEFORE``)."""
        before = REVERSED_IN_BYTE_BEFORE.get(element)
        return before is not None and self.number is not None and self.number < before

    @property
    def decompresses_in_f16(self) -> bool:
        """Whether it may compute an f16 weight decompression in f16 (``F32_DECOMPRESSION_FROM``: before 2024.1),
        where the current OpenVINO computes it in f32."""
        return self.number is not None and self.number < F32_DECOMPRESSION_FROM

    @property
    def widens_decompression_readers(self) -> bool:
        """Whether it may compute in f32 the readers of a decompression chain that the current OpenVINO computes from
        the f16 product (``F32_DECOMPRESSION_READERS``: 2024.1 to 2025.0)."""
        return self.number is not None and F32_DECOMPRESSION_READERS[0] <= self.number < F32_DECOMPRESSION_READERS[1]

    @property
    def reads_zero_dims(self) -> bool:
        """Whether it reads a model input or output with a static dim of 0 (``ZERO_DIMS_FROM``)."""
        return self.number is None or self.number >= ZERO_DIMS_FROM

    @property
    def reads_short_documents(self) -> bool:
        """Whether it reads a document that ends within its first 512 bytes (``SHORT_DOCUMENTS_FROM``)."""
        return self.number is None or self.number >= SHORT_DOCUMENTS_FROM

    @property
    def reads_v10_repeated_tensor_names(self) -> bool:
        """Whether it reads an IR v10 model in which two tensors have one name (``V10_REPEATED_TENSOR_NAMES_FROM``)."""
        return self.number is None or self.number >= V10_REPEATED_TENSOR_NAMES_FROM

    @property
    def reads_result_names(self) -> bool:
        """Whether a Result's own names name the model's output (``RESULT_NAMES_FROM``)."""
        return self.number is None or self.number >= RESULT_NAMES_FROM

    def creates(self, op_type: str, version: str | None, attrs: Mapping[str, str]) -> bool:
        """True if this release creates a layer of ``op_type`` at ``version`` with these attributes."""
        types = self.opsets.get(read_opset(op_type, version))  # MVN of opset1 is read from opset2
        return types is not None and op_type.lower() in types and self.lacks_value(op_type, version, attrs) is None

    def lacks_value(self, op_type: str, version: str | None, attrs: Mapping[str, str]) -> str | None:
        """``attribute="value"`` when the release has the op version but not that attribute value, else None."""
        for v in _probed_values().get((op_type.lower(), version), ()):
            if attrs.get(v[2]) == v[3] and v not in self.values:
                return f'{v[2]}="{v[3]}"'
        return None


def has_probed_values(op_type: str, version: str | None) -> bool:
    """Whether some release lacks a value of an attribute of ``op_type`` at ``version`` (``Release.lacks_value``): only
    then does ``Release.creates`` depend on a layer's attributes."""
    return (op_type.lower(), version) in _probed_values()


@cache
def releases() -> dict[str, Release]:
    """Every release of the table, oldest first."""
    document = json.loads(_TABLE.read_text())
    tables = {key: frozenset(entry.split(":", 1)[0].lower() for entry in types)
              for key, types in document["opset_tables"].items()}
    return {name: Release(name, entry["source"], tuple(entry["ir_versions"]),
                          {opset: tables[key] for opset, key in entry["opsets"].items()},
                          frozenset(tuple(v) for v in entry["values"]),
                          frozenset(entry["reads_duplicate_layer_names"]), frozenset(entry["miscomputes"]),
                          runs_dynamic_state=entry["runs_dynamic_state"],
                          runs_static_init_state=entry["runs_static_init_state"],
                          converts_otherwise=frozenset(entry["converts_otherwise"]),
                          converts_output_only=frozenset(entry["converts_output_only"]),
                          reduces_otherwise=frozenset(entry["reduces_otherwise"]))
            for name, entry in document["releases"].items()}


@cache
def converts_probed() -> frozenset[str]:
    """The Convert-1 pairs of types ("i32->f16") every measured release was asked (``Release.converts_otherwise``
    lists those it computes otherwise): a pair not listed is converted alike only if it is one of these."""
    return frozenset(json.loads(_TABLE.read_text())["converts_probed"])


@cache
def _probed_values() -> dict[tuple[str, str], list[Value]]:
    """Every attribute value a release of the table is said to read or not, by (op type in lower case, opset): a
    layer's own few are looked at, not all of them (every layer is asked, in every downgrade pass)."""
    found: dict[tuple[str, str], list[Value]] = {}
    for v in sorted({v for r in releases().values() for v in r.values}):
        found.setdefault((v[0].lower(), v[1]), []).append(v)
    return found


def release(name: str) -> Release:
    """The release ``name`` names: ``2023.0`` (a patch release, ``2023.0.2``, stands for its minor release) or
    ``opsetN``; IrToolsError (E-USAGE) naming the known ones otherwise."""
    known = releases()
    newest = list(known.values())[-1]
    if not isinstance(name, str):  # (a number, 2023.0, would name 2023.0 and 2023 alike)
        raise IrToolsError(f"a target is a release's name, as '2023.0', or 'opsetN'; got {name!r}", code="E-USAGE")
    if name.startswith("opset") and name[5:].isdigit() and f"opset{int(name[5:])}" in newest.opsets:
        n = int(name[5:])
        opsets = {f"opset{i}": newest.opsets[f"opset{i}"] for i in range(1, n + 1)}
        values = frozenset(v for v in newest.values if int(v[1][5:]) <= n)
        return Release(name, f"opsets 1-{n} as OpenVINO {newest.name} has them", newest.ir_versions, opsets, values,
                       newest.reads_duplicate_layer_names, newest.miscomputes, newest.runs_dynamic_state,
                       newest.runs_static_init_state, newest.converts_otherwise, newest.converts_output_only,
                       newest.reduces_otherwise)
    minor = ".".join(name.split(".")[:2])
    if minor in known:
        return known[minor]
    raise IrToolsError(f"unknown target {name!r}: an OpenVINO release ({', '.join(known)}) or opset1 to "
                       f"opset{len(newest.opsets)}", code="E-USAGE")


@cache
def _labels() -> dict[tuple[str, str], str]:
    """(opsetN, type in lower case) -> the op version's label, ``TopK-11``, as the newest release has it."""
    document = json.loads(_TABLE.read_text())
    newest = list(document["releases"].values())[-1]
    labels = {}
    for opset, key in newest["opsets"].items():
        for entry in document["opset_tables"][key]:
            op_type, own = entry.split(":", 1)
            labels[opset, op_type.lower()] = f"{op_type}-{own.removeprefix('opset')}"
    return labels


def op_label(op_type: str, version: str | None) -> str | None:
    """The label of the op version a layer of ``op_type`` at ``version="opsetN"`` is (``TopK`` of opset13:
    ``TopK-11``), for every op OpenVINO has, ours or not (spelled as our op table spells it); None for a type the
    opset does not hold."""
    spec = lookup(op_type, version)
    return spec.label if spec is not None else _labels().get((version or "", op_type.lower()))


def own_opset(op_type: str, version: str | None) -> str | None:
    """The opset that introduced the op version a layer of ``op_type`` at ``version`` is (``AvgPool`` of opset8:
    ``opset1``), or None."""
    label = op_label(op_type, version)
    return None if label is None else f"opset{label.rsplit('-', 1)[1]}"


def oldest_creating(op_type: str, version: str | None, attrs: Mapping[str, str]) -> str | None:
    """The oldest release of the table that creates the layer, or None."""
    return next((r.name for r in releases().values() if r.creates(op_type, version, attrs)), None)
