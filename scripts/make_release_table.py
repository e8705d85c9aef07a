"""Write ir_tools/ops/openvino_releases.json: which OpenVINO release creates which op version (and the IR versions
and attribute values it reads), from what each release answered to scripts/probe_release.py.

Measured: every minor release with wheels for Python 3.11 (2023.0 on), each probed by the Python of its own
virtual environment (``pip install openvino==X "numpy<2"``). Older releases are documented only: their newest
opset from OpenVINO's "Available Operation Sets" page (docs.openvino.ai, 2021.4: opset7, 2022.1: opset8, 2022.2:
opset9, 2022.3: opset10), the contents of each opset from the oldest measured release, IR v11 from 2022.1 on
(its release notes: API 2.0 and IR v11). Const, the IR's spelling of Constant (opset1), which NodeFactory will not
build bare, is in every opset of every release: the IR reader takes it whatever the layer's opset.

Each release also lists the IR versions in which its reader takes two layers of the same ``name``
(``reads_duplicate_layer_names``; 2023.0 to 2024.0 refuse them, "Invalid IR! same name is not unique!", in v10
and v11 alike; 2024.1 on reads both). The
documented-only releases take the oldest measured release's answer, for the IR versions each reads.

Answers of each release's CPU plugin, from tiny IRs run: ``miscomputes`` lists the measured defects (keys of
ir_tools/ops/releases.py ``DEFECTS``; the documented-only releases take the oldest measured release's, unmeasured,
as its ``converts_otherwise``, ``converts_output_only`` and ``reduces_otherwise``: a file migrated for 2021.4 then
runs on 2023.0 as the current OpenVINO runs the original, each repair being exact on every release measured, where
with none it did not: a static MPT's logits, its f32 Convert into boolean left):

- ``sdpa_boolean_mask_inverted``: ScaledDotProductAttention-13 with a boolean mask computed with True taken as
  masked out (2023.3, the first with SDPA-13, to 2025.2);
- ``sdpa_mask_broadcast_refused``: its reader refuses SDPA-13 with a float mask of 1 in the place of L or S ([1, S],
  [L, 1], [1, 1, 1, S]), which the specification broadcasts (2023.3 to 2024.2; batch dims of 1 are read);
- ``sdpa_mask_broadcast_dynamic_fails``: its CPU plugin fails at inference on such a mask where the query's and the
  key's lengths are declared dynamic, as a language model's are (its reader takes them: 2023.3);
- ``sdpa_lower_rank_wrong``: SDPA-13 of a rank-4 query and a key or value of rank 3 (which broadcast) computed
  otherwise than the specification on static dims (2023.3, 2024.0); ``sdpa_lower_rank_dynamic_fails``: on dynamic
  dims not run ("expect_dims" at inference: 2023.3);
- ``sdpa_scalar_mask_crashes``: SDPA-13 of a mask of rank 0 fed at inference, batch dims of 1 and L = 4, crashes the
  process running it (SIGSEGV: 2023.3 to 2025.1);
- ``kv_cache_f16``: SDPA-13 over a KV cache computed from its keys and values rounded to f16, with no setting to keep
  them f32 (``kv_cache_f32``: 2023.3);
- ``rms_norm_fused_wrong``: an RMS norm as the PyTorch frontend writes it (Power, ReduceMean over axis -1, Add,
  Sqrt, Divide, Multiply by x and by gamma) fused into one node computed beyond its rounding bound (``rms_norm``:
  2024.4);
- ``scatter_min_max_nan_otherwise``: ScatterElementsUpdate-12 min and max of f32 computed otherwise where a NaN or
  a signed zero meets another value, with use_init_val or without (2023.1, the first with opset12, to 2024.0; f16
  alike, measured apart); ``scatter_max_no_init_wrong``: its
  max of floats with use_init_val false started from f32's least positive normal (2023.1, 2023.2);
  ``scatter_mean_integer_floors``: its mean of integers rounding a negative mean down (2023.1 to 2024.0; both
  ``scatter_no_init``); ``scatter_reduce_empty_fails``: ScatterElementsUpdate-12 of every reduction but none
  failing at inference where its indices and updates come with 0 elements (2023.1, 2023.2; ``scatter_empty``);
- ``reduce_empty_axis_wrong``: some Reduce op over an axis of length 0 gives other than the reduction's start the
  current one gives (whatever the output's memory held: 2023.0 to 2024.5; ``reduce_empty_axis``, some op of which
  may come out right by chance); ``reduce_empty_integers_otherwise``: where that is right, ReduceMax and ReduceMin
  of i16, and ReduceMax of u32 and u64, give other values there than the current one (2024.6 to 2025.3: -32768,
  32767 and 0 where the current one gives 0, -1, 2^31 and 2^64 - 2^31; ``reduce_empty_integers``);
- ``reduce_integers_otherwise``: some Reduce op of some integer type computed otherwise than the current one on the
  probe's seeded inputs (``reduce_integers``; the release's ``reduces_otherwise`` lists the pairs, "ReduceSum:i16"):
  2023.0 to 2024.3 on ReduceMean and ReduceL2 of every integer type (a mean rounded where the current one
  truncates), 2023.0 to 2024.2 on ReduceProd of every one, and 2023.0 to 2025.3 on ReduceSum, ReduceL1 and
  ReduceProd of i16, u16, u32 and u64 (an i16 sum saturated where the current one wraps), ReduceMean of u32 and u64
  and ReduceL2 of i16, u32 and u64; none on ReduceMax and ReduceMin (values within i32);
- ``identity_not_compiled``: Identity-16 read, but not compiled ("Unsupported operation of type: Identity"; 2025.0,
  the first with opset16, to 2025.3);
- ``einsum_ellipsis_not_compiled``: Einsum-7 "...ij,jk->...ik" read, but not compiled ("Unsupported operation of
  type: Einsum"; ``einsum_ellipsis``: 2023.0 to 2025.0);
- ``einsum_labels_broadcast_refused``: Einsum-7 whose labels broadcast (a label of length 1 in one input and 3 in
  another) refused when read, of static dims (``einsum_label_broadcast``: 2023.0 to 2025.0);
- ``dft_dynamic_not_compiled``: DFT-7 and IDFT-7 of an input of dynamic shape read, but not compiled ("Doesn't
  support op with dynamic shapes"; ``dft_dynamic``: 2023.0 to 2025.1);
- ``bitwise_unsigned_wrong``: BitwiseNot-13 on u16, u32 and u64 gives 0, BitwiseAnd/Or/Xor-13 on u32 are capped
  at 2^31-1 (2023.2, the first with opset13, to 2025.3; u8, i8, i16 and i32 right; i64 and u64 probed within i32,
  beyond which every release, the current one too, computes them wrongly); ``bitwise_not_boolean_wrong``: BitwiseNot-13
  on booleans gives True for every element (2023.2 only; And/Or/Xor on booleans right; ``bitwise_boolean``);
- ``segment_max_zero_fill_wrong``: SegmentMax-16 of fill_mode ZERO started from 0 (2025.1);
  ``segment_max_i16_lowest_wrong``: an empty i16 segment of fill_mode LOWEST -32768, not 0 (2025.1 to 2025.3; both
  ``segment_max``);
- ``left_shift_16_bit_saturates``: BitwiseLeftShift-15 on i16 and u16 saturating where the current one wraps (2024.4,
  the first with opset15, to 2025.3; ``left_shift_16``);
- ``integer_convert_saturates``: Convert-1 from an integer type computes other numbers than the newest release
  probed (the current one) on some pair of types, listed in the release's ``converts_otherwise`` ("u32->i64"; 2023.0
  to 2025.3 saturate where 2025.4 on wrap; 2023.0 to 2024.2 give 65504 into f16 where 2024.3 on give inf); the pairs
  probed are the document's ``converts_probed``; ConvertPromoteTypes-14 differs only where a Convert of one of its
  inputs to the promoted type does; ``converts_output_only`` those of its pairs into f16 it converts otherwise only
  where the f16 is a model output, as inside a model it computes them as the current one does (the probe's
  ``int_to_f16_inside``: 2023.0 to 2024.2 on i32, i64, u16 and u64, 2023.3 to 2024.2 on u32 too);
- ``squeeze_axis_not_one_refused``: its reader refuses Squeeze-1 with an axis whose static dim is not 1, which the
  current one skips (2023.0 to 2024.2: "Only axes of size 1 may be removed"; Unsqueeze-1 alike on every release);
- ``f16_io_saturates``: an infinity of an f16 model input read, and an f16 model output beyond f16's range written, as
  +-65504 (2023.0 to 2024.2; inside a model f16 is computed in f32 alike by every release);
- ``float_boolean_wrong``: Convert-1 of f32 or f16 into boolean False for some values of magnitude above 255
  (2023.0 to 2024.0); ``float_boolean_nan_true``: True for NaN (2024.1, 2024.2);
- ``integer_boolean_negative_false``: Convert-1 of i16, i32 and i64 into boolean False for every negative value
  (2023.0 to 2024.2; i8 and the unsigned types right; ``integer_boolean``);
- ``masked_attention_row_nan``: attention written as ops (Transpose, MatMul, Add of a mask, SoftMax-8, MatMul,
  Transpose: the form ScaledDotProductAttention-13 is migrated into) computed as NaN in a row whose every key a
  finite mask value takes out (``masked_attention_rows``: -1e30 or f32's least "nan", not uniform weights; 2023.0);
- ``v10_boolean_output_fails``: an IR v10 model whose output is IsNaN/IsInf/IsFinite-10's not compiled (2023.0);
- ``avg_pool_pads_refused``: its CPU plugin does not compile (on dynamic dims: fails at inference) the AvgPool-1
  layers ``pool_geometry.cpu_pads_refused`` says, and only those, of the probe's ``avg_pool_cases`` (2023.0 to
  2024.3: an axis of two windows or more whose first reaches past the data by other than a multiple of the stride);
- ``max_pool_ceil_torch_wrong``: MaxPool-14 with rounding_type ceil_torch computed with other windows than the
  current one's (2024.2; ``max_pool_ceil_torch``);
- ``fake_convert_otherwise``: FakeConvert-13 computed other numbers than the current one on the probe's seeded f32
  and f16 data, fed scale and shift (``fake_convert``, its digests: 2023.3, the first with it, to 2025.2);
  ``fake_convert_folded_otherwise``: one of Consts alone folded into other numbers (2023.3 to 2025.0);
- ``if_dynamic_rank_not_compiled``: an If-8 of bodies of two ranks whose condition is NotEqual of a tensor with
  itself (optimum's DeBERTa-v2) not compiled, where the current one folds it (2023.0 to 2025.4);

``runs_dynamic_state`` whether it runs a model whose ReadValue / Assign variable has a dynamic shape, and
``runs_static_init_state`` whether it runs one whose variable of dynamic shape has an init of static shape (2023.3 to
2024.4 fail at compilation or inference, and run one of a dynamic init or none; the documented-only releases take
2023.0's answers, unmeasured: their wheels do not install on our Python).

    PYTHONPATH=. python scripts/make_release_table.py PROBES_DIR   # probe_release.py's answers, X.Y.Z.json each
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ir_tools.base.dims import Dim  # noqa: E402
from ir_tools.ops.pool_geometry import cpu_refused_length  # noqa: E402
from ir_tools.ops.releases import FLOAT_BOOLEAN_EXACT_WITHIN, NEGATIVE_BOOLEAN_TYPES  # noqa: E402

OUT = ROOT / "ir_tools" / "ops" / "openvino_releases.json"
DOCUMENTED = {"2021.4": (7, [10]), "2022.1": (8, [10, 11]), "2022.2": (9, [10, 11]), "2022.3": (10, [10, 11])}
DOCS = "docs.openvino.ai, Available Operation Sets (newest opset per release); contents as measured in 2023.0"


def duplicate_names(answer: dict, ir_versions: list[int]) -> list[int]:
    """The IR versions (of ``ir_versions``) in which the probed release read two layers of the same name."""
    return [v for v in ir_versions if answer["duplicate_layer_names"][str(v)]]


#: The Bitwise ops and element types 2023.2 to 2025.3 compute wrongly (``bitwise_unsigned_wrong``), where the current
#: release is right: BitwiseNot on u16, u32 and u64 (0 for every element; u64 probed within i32, as every release
#: computes it), BitwiseAnd/Or/Xor on u32 (capped at 2^31-1).
BITWISE_WRONG = {("BitwiseNot", "u16"), ("BitwiseNot", "u32"), ("BitwiseNot", "u64"), ("BitwiseAnd", "u32"),
                 ("BitwiseOr", "u32"), ("BitwiseXor", "u32")}


def converts_otherwise(answer: dict, current: dict) -> list[str]:
    """The Convert-1 pairs of integer types ("u32->i64") on which the probed release computes other numbers than
    ``current``; SystemExit where its ConvertPromoteTypes-14 differs though no Convert of an input does (a defect no
    key describes)."""
    pairs: list[str] = []
    for question in ("integer_convert", "int_to_float"):
        mine, theirs = answer[question], current[question]
        pairs += [key for key, got in mine["convert"].items() if got != theirs["convert"][key]]
        for key, got in (mine["promote"] or {}).items():
            inputs, promoted = key.split("->")
            if got != theirs["promote"][key] and not {f"{t}->{promoted}" for t in inputs.split("+")} & set(pairs):
                sys.exit(f"{answer['version']}: ConvertPromoteTypes-14 {key} differs, its Converts do not: a defect no "
                         "key describes")
    return sorted(set(pairs))


def converts_output_only(answer: dict, current: dict) -> list[str]:
    """The pairs of the probed release's ``converts_otherwise`` into f16 that it computes otherwise only where the
    Convert's f16 is a model output (``int_to_float``): its ``int_to_f16_inside``, the f16 used inside the model by f16
    arithmetic on an input, gives ``current``'s numbers (2023.0 to 2024.2 write i32 70000 into an f16 output as 65504,
    and inside hold it as 70000, as the current one does). SystemExit where a Convert-1 into f16 differs inside on a
    pair it does not differ on as an output, or a ConvertPromoteTypes-14 into f16 inside where no Convert of its inputs
    does (a defect no key describes); [] for a probe made before the question was asked (not measured)."""
    mine, theirs = answer.get("int_to_f16_inside"), current.get("int_to_f16_inside")
    if mine is None or theirs is None:
        return []
    otherwise = set(answer["converts_otherwise"])
    inside = {key for key, got in mine["convert"].items() if got != theirs["convert"][key]}
    if inside - otherwise:
        sys.exit(f"{answer['version']}: Convert-1 {sorted(inside - otherwise)} differs inside a model, not as its "
                 "output: a defect no key describes")
    for key, got in (mine["promote"] or {}).items():
        inputs, promoted = key.split("->")
        if got != theirs["promote"][key] and not {f"{t}->{promoted}" for t in inputs.split("+")} & inside:
            sys.exit(f"{answer['version']}: ConvertPromoteTypes-14 {key} differs inside a model, its Converts do "
                     "not: a defect no key describes")
    return sorted(pair for pair in otherwise if pair in mine["convert"] and pair not in inside)


#: The answers that name a defect where they are False: (question, its part or None) -> the defect's key.
FALSE_MEANS = {
    ("scatter_min_max", None): "scatter_min_max_nan_otherwise",
    ("scatter_no_init", "max"): "scatter_max_no_init_wrong",
    ("scatter_no_init", "mean"): "scatter_mean_integer_floors",
    ("bitwise_boolean", "BitwiseNot"): "bitwise_not_boolean_wrong",
    ("identity", None): "identity_not_compiled",
    ("segment_max", "zero"): "segment_max_zero_fill_wrong",
    ("segment_max", "i16_lowest"): "segment_max_i16_lowest_wrong",
    ("one_channel_decompression", None): "one_channel_decompression_fails",
    ("kv_cache_f32", None): "kv_cache_f16",
    ("rms_norm", None): "rms_norm_fused_wrong",
}


def miscomputes(answer: dict, current: dict) -> list[str]:
    """The measured defects of the probed release (keys of ir_tools/ops/releases.py ``DEFECTS``); SystemExit for an
    answer no key describes (a defect not met before: describe it, then add its key)."""
    found = ["sdpa_boolean_mask_inverted"] if answer["sdpa_boolean_mask"] is False else []
    shapes = answer["sdpa_float_mask_shapes"] or {}
    if set(shapes.values()) - {"right", "refused"}:
        sys.exit(f"{answer['version']}: SDPA-13 float masks {shapes}: a defect no key describes")
    if "refused" in shapes.values():
        found.append("sdpa_mask_broadcast_refused")
    dynamic = answer.get("sdpa_float_mask_dynamic") or {}
    if set(dynamic.values()) - {"right", "fails"}:
        sys.exit(f"{answer['version']}: SDPA-13 float masks on dynamic lengths {dynamic}: a defect no key describes")
    if "fails" in dynamic.values():
        found.append("sdpa_mask_broadcast_dynamic_fails")
    lower = answer.get("sdpa_lower_rank") or {}  # (a probe made before the question was asked: not measured)
    if lower.get("static", "right") not in ("right", "wrong") or lower.get("dynamic", "right") not in ("right",
                                                                                                      "fails"):
        sys.exit(f"{answer['version']}: SDPA-13 of a rank-3 key and value {lower}: a defect no key describes")
    if lower.get("static") == "wrong":
        found.append("sdpa_lower_rank_wrong")
    if lower.get("dynamic") == "fails":
        found.append("sdpa_lower_rank_dynamic_fails")
    width = answer.get("sdpa_value_width") or {}  # (as sdpa_lower_rank: not measured before the question)
    if set(width.values()) - {"right", "fails"} or width.get("static", "right") != "right":
        sys.exit(f"{answer['version']}: SDPA-13 of a value narrower than the query {width}: a defect no key describes")
    if width.get("dynamic") == "fails":
        found.append("sdpa_value_width_dynamic_fails")
    scalar = answer.get("sdpa_scalar_mask")  # (as sdpa_lower_rank: not measured before the question)
    if scalar not in (None, "right", "crashes"):
        sys.exit(f"{answer['version']}: SDPA-13 of a scalar mask fed: {scalar}, a defect no key describes")
    if scalar == "crashes":
        found.append("sdpa_scalar_mask_crashes")
    rows = answer.get("masked_attention_rows") or {}  # (as sdpa_lower_rank: not measured before the question)
    if set(rows.values()) - {"right", "nan"} or rows.get("-inf", "right") != "right":
        sys.exit(f"{answer['version']}: attention rows masked whole {rows}: a defect no key describes")
    if "nan" in rows.values():
        found.append("masked_attention_row_nan")
    empty = answer.get("scatter_empty") or {}  # (as sdpa_lower_rank: not measured before the question)
    failing = {reduction for reduction, what in empty.items() if what != "right"}
    if set(empty.values()) - {"right", "fails"} or failing not in (set(), set(empty) - {"none"}):
        sys.exit(f"{answer['version']}: ScatterElementsUpdate-12 of 0 updates {empty}: a defect no key describes")
    if failing:
        found.append("scatter_reduce_empty_fails")
    for (question, part), key in FALSE_MEANS.items():  # (as sdpa_lower_rank: a question not asked names none)
        got = answer.get(question)
        if (got if part is None else (got or {}).get(part)) is False:
            found.append(key)
    wrong = {(op, element) for op, types in (answer["bitwise"] or {}).items() for element, right in types.items()
             if not right}
    if wrong == BITWISE_WRONG:
        found.append("bitwise_unsigned_wrong")
    elif wrong:
        sys.exit(f"{answer['version']}: Bitwise ops wrong on {sorted(wrong)}: a defect no key describes")
    logical = {op for op, right in (answer.get("bitwise_boolean") or {}).items() if not right} - {"BitwiseNot"}
    if logical:  # (BitwiseNot: FALSE_MEANS)
        sys.exit(f"{answer['version']}: Bitwise ops wrong on booleans {sorted(logical)}: a defect no key describes")
    if answer.get("left_shift_16") is False:  # (as sdpa_lower_rank: not measured before the question)
        found.append("left_shift_16_bit_saturates")
    if answer.get("i4_zero_point") is False:  # (a probe made before the question was asked: not measured)
        found.append("i4_zero_point_wrong")
    if answer.get("group_norm_2d") is False:
        found.append("group_norm_2d_not_compiled")
    if answer.get("einsum_ellipsis") is False:  # (as sdpa_lower_rank: not measured before the question)
        found.append("einsum_ellipsis_not_compiled")
    static = {key: said for key, said in (answer.get("einsum_label_broadcast") or {}).items() if "static" in key}
    if set(static.values()) == {"refused"}:
        found.append("einsum_labels_broadcast_refused")
    elif set(static.values()) - {"right"}:
        sys.exit(f"{answer['version']}: Einsum-7 of labels that broadcast {static}: a defect no key describes")
    if answer.get("dft_dynamic") is False:  # (as sdpa_lower_rank: not measured before the question)
        found.append("dft_dynamic_not_compiled")
    if answer.get("converts_otherwise"):
        found.append("integer_convert_saturates")
    if squeeze_refused(answer, current):
        found.append("squeeze_axis_not_one_refused")
    if avg_pool_refused(answer):
        found.append("avg_pool_pads_refused")
    if answer.get("max_pool_ceil_torch") is False:  # (as sdpa_lower_rank: not measured before the question)
        found.append("max_pool_ceil_torch_wrong")
    if answer.get("if_self_compare") is False:
        found.append("if_dynamic_rank_not_compiled")
    empty = {form for forms in (answer.get("reduce_empty_axis") or {}).values() for form in forms.values()}
    if empty - {"right", "wrong"}:  # (not asked: not measured)
        sys.exit(f"{answer['version']}: Reduce ops over an empty axis {answer['reduce_empty_axis']}: a defect no key "
                 "describes")
    if "wrong" in empty:
        found.append("reduce_empty_axis_wrong")
    elif answer.get("reduce_empty_integers") not in (None, current.get("reduce_empty_integers")):
        found.append("reduce_empty_integers_otherwise")  # (not asked: not measured)
    if reduces_otherwise(answer, current):
        found.append("reduce_integers_otherwise")
    fake = answer.get("fake_convert")  # (not asked: not measured; "not created" before 2023.3)
    if isinstance(fake, dict) and fake["fed"] != current["fake_convert"]["fed"]:
        found.append("fake_convert_otherwise")
    if isinstance(fake, dict) and fake["folded"] != current["fake_convert"]["folded"]:
        found.append("fake_convert_folded_otherwise")
    return found + float_defects(answer, current)


def reduces_otherwise(answer: dict, current: dict) -> list[str]:
    """The Reduce ops and integer types ("ReduceSum:i16") on which the probed release computes other numbers than
    ``current`` (``reduce_integers``: its digests of the same seeded inputs differ, or it fails where ``current``
    runs them); [] for a probe made before the question was asked (not measured)."""
    mine, theirs = answer.get("reduce_integers"), current.get("reduce_integers")
    if mine is None or theirs is None:
        return []
    return sorted(f"{op}:{element}" for op, types in mine.items() for element, got in types.items()
                  if got != theirs[op][element])


def avg_pool_refused(answer: dict) -> bool:
    """Whether the probed release refuses AvgPool-1 layers of scripts/probe_release.py's ``avg_pool_cases``
    (``avg_pool_pads``): False where it refuses none (or was not asked: not measured), True where it refuses exactly
    those ``pool_geometry.cpu_refused_length`` names (some axis, at its length, refused); SystemExit otherwise (a
    defect no key describes), or where the probe asked other cases than this script takes."""
    from probe_release import avg_pool_cases, pool_key

    pools = answer.get("avg_pool_pads")
    if pools is None:
        return False
    cases = avg_pool_cases()
    keys = [pool_key(*case) for case in cases]
    if pools["cases"] != len(cases) or pools["digest"] != hashlib.sha256("\n".join(keys).encode()).hexdigest()[:16]:
        sys.exit(f"{answer['version']}: avg_pool_pads asked {pools['cases']} other cases than avg_pool_cases' "
                 f"{len(cases)}: probe the release again")
    refused = set(pools["refused"])
    if not refused:
        return False
    ruled = {key for key, (shape, kernel, strides, pads, rounding, auto_pad, exclude, _) in zip(keys, cases,
                                                                                                strict=True)
             if any(cpu_refused_length(Dim(n, n), k, s, b, e, auto_pad, rounding, exclude) is not None
                    for n, k, s, b, e in zip(shape[2:], kernel, strides, *pads, strict=True))}
    if refused != ruled:
        sys.exit(f"{answer['version']}: AvgPool-1 refused otherwise than cpu_pads_refused says ({len(refused - ruled)} "
                 f"not ruled, e.g. {sorted(refused - ruled)[:3]}; {len(ruled - refused)} ruled but compiled, e.g. "
                 f"{sorted(ruled - refused)[:3]}): a defect no key describes")
    return True


def float_defects(answer: dict, current: dict) -> list[str]:
    """The measured float defects of the probed release, from its ``f16_io``, ``float_boolean``, ``float_convert`` and
    ``v10_boolean_outputs`` answers held against ``current``'s; SystemExit for a difference no key describes:

    - ``f16_io_saturates``: an infinity of an f16 model input read as +-65504 and an f16 model output beyond +-65504
      written as +-65504 (``f16_io``'s input and output; inside a model, a Const, f16 arithmetic and a Convert to f16
      and back are computed as the current one computes them), where ``current`` keeps +-inf;
    - ``float_boolean_wrong``: a Convert-1 of f32 or f16 into boolean gives False for some values of magnitude above
      ``FLOAT_BOOLEAN_EXACT_WITHIN`` (``float_boolean``: none within it);
    - ``float_boolean_nan_true``: it gives True for NaN;
    - ``integer_boolean_negative_false``: a Convert-1 of i16, i32 or i64 into boolean gives False for some negative
      values within i32 (``integer_boolean``: none but negative ones, and of no other type);
    - ``v10_boolean_output_fails``: an IR v10 model whose output is IsNaN/IsInf/IsFinite-10's is not compiled.

    ``float_convert`` (its 23 values) must differ from ``current``'s only as those keys say."""
    version, found = answer["version"], []
    mine, theirs = answer["f16_io"], current["f16_io"]
    differ = {key for key in mine if mine[key] != theirs[key]}
    if differ - {"input", "output"} or len(differ) == 1:
        sys.exit(f"{version}: f16 values {sorted(differ)} differ: a defect no key describes")
    for key in differ:  # (each difference an infinity of ``current``'s held at +-65504)
        if any(m != t and not (t in (INF, -INF) and m == math.copysign(65504.0, t))
               for m, t in zip(mine[key], theirs[key], strict=True)):
            sys.exit(f"{version}: f16 {key} {mine[key]}: a defect no key describes")
    if differ:
        found.append("f16_io_saturates")
    booleans, right = answer["float_boolean"], current["float_boolean"]
    if any(right[e]["wrong"] or right[e]["nan"] for e in right):
        sys.exit(f"{version}: the current release converts floats into boolean wrongly {right}")
    if any(booleans[e]["wrong"] for e in booleans):
        if any(booleans[e]["least"] is not None and booleans[e]["least"] <= FLOAT_BOOLEAN_EXACT_WITHIN
               for e in booleans):
            sys.exit(f"{version}: floats of magnitude {FLOAT_BOOLEAN_EXACT_WITHIN} or less into boolean {booleans}: a "
                     "defect no key describes")
        found.append("float_boolean_wrong")
    if any(booleans[e]["nan"] for e in booleans):
        found.append("float_boolean_nan_true")
    integers, right = answer["integer_boolean"], current["integer_boolean"]
    if any(right[e]["wrong"] for e in right):
        sys.exit(f"{version}: the current release converts integers into boolean wrongly {right}")
    wrong = {e for e in integers if integers[e]["wrong"]}
    if wrong:
        if wrong - NEGATIVE_BOOLEAN_TYPES or any(integers[e]["negative"] != integers[e]["wrong"] for e in wrong):
            sys.exit(f"{version}: integers into boolean {integers}: a defect no key describes")
        found.append("integer_boolean_negative_false")
    _float_convert_explained(answer, current, set(found))
    v10, v10_right = answer["v10_boolean_outputs"], current["v10_boolean_outputs"]
    failing = {op for op in v10 if v10[op] != v10_right[op]}
    if failing - {"IsNaN", "IsInf", "IsFinite"} or any(v10[op] != "fails" for op in failing):
        sys.exit(f"{version}: IR v10 boolean outputs {v10}: a defect no key describes")
    if failing:
        found.append("v10_boolean_output_fails")
    return found


INF = float("inf")


def _float_convert_explained(answer: dict, current: dict, keys: set[str]) -> None:
    """SystemExit unless every difference of the probed release's ``float_convert`` from ``current``'s is one ``keys``
    say: +-65504 for an f16 input's infinity or an f16 output beyond f16's range (``f16_io_saturates``: IsInf of such
    an input False, IsFinite True, its boolean True), False for a value beyond +-``FLOAT_BOOLEAN_EXACT_WITHIN``
    converted into boolean (``float_boolean_wrong``), True for a NaN (``float_boolean_nan_true``). The positions
    are ``current``'s: the f16 inputs infinite where its IsInf is True, NaN where its IsNaN is."""
    mine, theirs = answer["float_convert"], current["float_convert"]
    infinite, nan = theirs["f16->IsInf"], theirs["f16->IsNaN"]
    f32_values = theirs["f32->f16"]  # (the f32 values as f16: +-inf beyond f16's range)
    saturates = "f16_io_saturates" in keys
    for key, got in mine.items():
        for i, (m, t) in enumerate(zip(got, theirs[key], strict=True)):
            if m == t:
                continue
            source, destination = key.split("->")
            held = saturates and (
                (key == "f32->f16" and t in (INF, -INF) and m == math.copysign(65504.0, t))
                or (source == "f16" and infinite[i] and (
                    (destination == "f32" and m == math.copysign(65504.0, t))
                    or (destination == "IsInf" and m is False) or (destination == "IsFinite" and m is True))))
            boolean = destination == "boolean" and (
                ("float_boolean_nan_true" in keys and nan[i] and m is True)
                or ("float_boolean_wrong" in keys and m is False and not nan[i]
                    and abs(f32_values[i]) > FLOAT_BOOLEAN_EXACT_WITHIN))
            if not (held or boolean):
                sys.exit(f"{answer['version']}: {key} of value {i} gives {m}, the current release {t}: a defect no "
                         "key describes")


def squeeze_refused(answer: dict, current: dict) -> bool:
    """Whether the probed release refuses Squeeze-1 on an axis whose static dim is not 1, which ``current`` skips
    (2023.0 to 2024.2: "Only axes of size 1 may be removed"); SystemExit for another difference (Squeeze-15 where the
    release has it, Unsqueeze-1: none measured)."""
    mine, theirs = answer["squeeze_axes"], current["squeeze_axes"]
    differ = {key for key, got in mine.items() if got is not None and got != theirs[key]}
    # (2024.2 to 2024.4 have an opset15 without Squeeze: "refused" for want of the op, no defect)
    differ -= {key for key in differ if key.startswith("Squeeze-15") and not creates(answer, "Squeeze", "opset15")}
    refused = {key for key in differ if key.startswith("Squeeze-1 ") and mine[key] == "refused"}
    if differ - refused:
        sys.exit(f"{answer['version']}: Squeeze/Unsqueeze {sorted(differ - refused)} differ: a defect no key describes")
    if SQUEEZE_ONES in refused:
        sys.exit(f"{answer['version']}: Squeeze-1 refused on axes of 1 only: a defect no key describes")
    return bool(refused)


def creates(answer: dict, op_type: str, opset: str) -> bool:
    """Whether the probed release's ``opset`` holds ``op_type``."""
    return op_type in (answer["opsets"].get(opset) or {})


#: The Squeeze-1 case of scripts/probe_release.py's ``SQUEEZES`` whose axes are all of dim 1 (every release reads it).
SQUEEZE_ONES = "Squeeze-1 [0,2]"


def runs_static_init_state(answer: dict, current: dict) -> bool:
    """Whether the probed release runs a model whose state has a dynamic shape and an init of static shape (a Const's
    [1, 0], or one taken from a static dim of x), which ``current`` runs (``state_shapes``: 2023.3 to 2024.4 fail,
    "Cannot get dims for non static shape", and run it from an init of dynamic shape or none); SystemExit where it
    fails otherwise than that (a defect no key describes), but for 2023.0 to 2023.2, which fail on every dynamic
    state (``runs_dynamic_state``)."""
    mine, theirs = answer["state_shapes"], current["state_shapes"]
    failing = {key for key, got in mine.items() if got != theirs[key] and theirs[key] == "right"}
    if not answer["dynamic_state"]:
        return not failing
    static_init = {key for key in mine if key.endswith(" const") or (key.endswith(" shape") and " x ?," not in key)}
    if failing - static_init:  # (where ``current`` fails, 2024.0 running it is no defect of 2024.0)
        sys.exit(f"{answer['version']}: stateful models {sorted(failing)}: a defect no key describes")
    if failing and failing != {key for key in static_init if theirs[key] == "right"}:
        sys.exit(f"{answer['version']}: stateful models {sorted(failing)} only: a defect no key describes")
    return not failing


def main(probes: Path) -> None:
    measured = {}
    for path in sorted(probes.glob("*.json"), key=lambda p: tuple(map(int, p.stem.split(".")))):
        answer = json.loads(path.read_text())
        name = ".".join(path.stem.split(".")[:2])
        measured[name] = answer  # the last patch release probed stands for its minor release
    tables: dict[str, list[str]] = {}  # one list per distinct opset contents, shared by the releases that have it

    def table_id(opset: str, types: dict[str, str]) -> str:
        entry = sorted(f"{t}:{v}" for t, v in {**types, "Const": "opset1"}.items())
        for key, known in tables.items():
            if key.startswith(f"{opset}/") and known == entry:
                return key
        key = f"{opset}/{sum(k.startswith(f'{opset}/') for k in tables)}"
        tables[key] = entry
        return key

    current = list(measured.values())[-1]
    for answer in measured.values():
        answer["converts_otherwise"] = converts_otherwise(answer, current)
    oldest = next(iter(measured.values()))
    releases = {}
    for name, (newest, ir_versions) in DOCUMENTED.items():
        releases[name] = {"source": DOCS, "ir_versions": ir_versions, "values": [],
                          "reads_duplicate_layer_names": duplicate_names(oldest, ir_versions),
                          "miscomputes": miscomputes(oldest, current),
                          "converts_otherwise": oldest["converts_otherwise"],
                          "converts_output_only": converts_output_only(oldest, current),
                          "reduces_otherwise": reduces_otherwise(oldest, current),
                          "runs_dynamic_state": oldest["dynamic_state"],
                          "runs_static_init_state": runs_static_init_state(oldest, current),
                          "opsets": {f"opset{n}": table_id(f"opset{n}", oldest["opsets"][f"opset{n}"])
                                     for n in range(1, newest + 1)}}
    for name, answer in measured.items():
        releases[name] = {"source": f"measured: openvino {answer['version']}", "ir_versions": answer["ir_versions"],
                          "values": [[v["type"], v["opset"], v["attribute"], v["value"]] for v in answer["values"]],
                          "reads_duplicate_layer_names": duplicate_names(answer, answer["ir_versions"]),
                          "miscomputes": miscomputes(answer, current),
                          "converts_otherwise": answer["converts_otherwise"],
                          "converts_output_only": converts_output_only(answer, current),
                          "reduces_otherwise": reduces_otherwise(answer, current),
                          "runs_dynamic_state": answer["dynamic_state"],
                          "runs_static_init_state": runs_static_init_state(answer, current),
                          "opsets": {opset: table_id(opset, types) for opset, types in answer["opsets"].items()
                                     if types}}
    probed = sorted({*current["integer_convert"]["convert"], *current["int_to_float"]["convert"]})
    document = {"about": __doc__.split("\n\n")[0], "releases": releases, "opset_tables": tables,
                "converts_probed": probed}
    OUT.write_text(json.dumps(document, indent=0, sort_keys=False) + "\n")
    print(f"wrote {OUT}: {len(releases)} releases, {len(tables)} distinct opset tables")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
