"""Generated conformance: our AvgPool-1/14/16 and AdaptiveAvgPool-8 shape rules against OpenVINO's.

A seeded generator makes a few thousand cases (valid ones, edge cases and ones meant to be
rejected). Each case is built twice from the same inputs: as a one-node OpenVINO graph (never
compiled) and through our registry path (IR attribute strings -> typed attrs -> shape rule).
Both must give the same output dims, interval bounds included, and the same effective pads, or
both must reject. The expected answers come from the installed openvino at test time, so a
change of OpenVINO's rules shows up here as a mismatch.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import openvino as ov
import openvino.opset1 as ov1
import openvino.opset8 as ov8
import openvino.opset14 as ov14
import openvino.opset16 as ov16
import pytest

from ir_tools.base.dims import Dim
from ir_tools.base.errors import IrToolsError
from ir_tools.ops import attrs as A
from ir_tools.ops import opsets
from ir_tools.ops.core import convert_values
from ir_tools.ops.pooling import geometry
from ir_tools.ops.spec import TensorType

from .conformance import partial_shape, show, to_dims

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

Bound = tuple[int, int | None]  # (lo, hi); hi None is unbounded
Bounds = tuple[Bound, ...] | None  # a partial shape; None is a dynamic rank

BATCHES = 20
POOL_CASES_PER_COMBO = 3  # per (version, rounding, auto_pad) and batch
ADAPTIVE_CASES_PER_BATCH = 30
MIN_CASES = 2000

VERSIONS = {1: range(1, 14), 14: range(14, 16), 16: range(16, 17)}  # AvgPool version -> opsets
ROUNDINGS = ("floor", "ceil", "ceil_torch")
AUTO_PADS = ("explicit", "same_upper", "same_lower", "valid")
MODES = ("static", "dynamic", "interval", "unbounded", "dynamic-nc", "mixed")
DYNAMISM = ("static", "dynamic", "interval", "unbounded", "dynamic-nc", "dynamic-rank")
RANKS = ("1d", "2d", "3d", "dynamic-rank", "bad-rank")
POOL_KINDS = {
    1: ("valid", "zero-stride", "pads-length", "empty-pads", "strides-length", "kernel-length", "rank",
        "zero-batch", "zero-channels", "kernel-too-large", "exclude-pad-in-padding", "zero-kernel",
        "ceil-torch-v1"),
}
POOL_KINDS[14] = tuple(k for k in POOL_KINDS[1] if k != "ceil-torch-v1")
POOL_KINDS[16] = (*POOL_KINDS[14], "zero-dilation", "dilations-length")
ADAPTIVE_KINDS = ("valid", "data-rank", "size-length", "size-scalar", "size-2d", "size-negative", "size-zero",
                  "size-float", "size-boolean")
SIZE_SOURCES = ("const", "convert", "param")


# ---------------------------------------------------------------------------------------------
# Outcomes: what one side answers for a case


#: Which check rejected a case: (category, OpenVINO's wording, ours). Same category = same meaning,
#: so the first failing check is the same one on both sides.
ERROR_MEANINGS = (
    ("pads-length", r"Expected pads_(begin|end) size", r"pads_(begin|end) has \d+ values"),
    ("data-rank", r"Expected a 3D, 4D or 5D tensor", r"expected a 3-D, 4-D or 5-D input"),
    ("strides-length", r"Expected strides size", r"strides has \d+ values"),
    ("dilations-length", r"Expected dilations size", r"dilations has \d+ values"),
    ("kernel-length", r"Expected kernel size", r"kernel has \d+ values"),
    ("zero-stride", r"Strides has zero", r"strides \[.*\] contain a zero"),
    ("zero-dilation", r"Kernel dilations has zero", r"dilations \[.*\] contain a zero"),
    ("ceil-torch", r"Rounding CEIL_TORCH is not supported", r"ceil_torch needs AvgPool-14"),
    ("zero-batch", r"Batch size is zero", r"batch dimension is zero"),
    ("zero-channels", r"Channel count is zero", r"channel dimension is zero"),
    # OpenVINO's dilated kernel of K=0 is 2**64 - 1, so it reports that as too large
    ("kernel-fit", r"larger than the data shape after padding", r"larger than the padded input|is empty"),
    ("kernel-in-padding", r"entirely in the padding area", r"exclude-pad, kernel \d+ fits entirely in the padding"),
    ("size-count", r"Output shape for spatial dimension not compatible|Number of spatial dimensions is not",
     r"output_size has .* values, expected"),
    ("size-scalar", r"Accessing out-of-range dimension", r"output_size is a scalar"),
    ("size-type", r"Element not supported", r"cannot be read as sizes"),
)


def meaning(message: str, side: int) -> str:
    """The category of a rejection (side 1: OpenVINO's wording, 2: ours); unknown ones stay as is."""
    return next((row[0] for row in ERROR_MEANINGS if re.search(row[side], message)), message)


@dataclass(frozen=True)
class Outcome:
    """Output dims and effective pads, or the rejection message."""

    shape: Bounds = None
    pads: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    error: str | None = None

    def same_as(self, ours: Outcome) -> bool:
        """``self`` is OpenVINO's outcome: same dims and pads, or a rejection that means the same."""
        if self.error is not None or ours.error is not None:
            both = self.error is not None and ours.error is not None
            return both and meaning(self.error, 1) == meaning(ours.error, 2)
        return self.shape == ours.shape and (self.pads is None or self.pads == ours.pads)

    def __str__(self) -> str:
        if self.error is not None:
            return f"rejects ({self.error})"
        return f"{show(self.shape)} pads {self.pads}" if self.pads else show(self.shape)


def from_openvino(ps: ov.PartialShape) -> Bounds:
    """OpenVINO's partial shape as bounds: a -1 max length is unbounded."""
    if ps.rank.is_dynamic:
        return None
    return tuple((d.get_min_length(), None if d.get_max_length() == -1 else d.get_max_length()) for d in ps)


def from_dims(shape: Sequence[Dim] | None) -> Bounds:
    return None if shape is None else tuple((d.lo, d.hi) for d in shape)


def openvino_outcome(build: Callable[[], ov.Node], with_pads: bool) -> Outcome:
    try:
        node = build()
    except RuntimeError as exc:  # NodeValidationFailure and friends
        return Outcome(error=str(exc).strip().splitlines()[-1])
    pads = (tuple(node.get_pads_begin()), tuple(node.get_pads_end())) if with_pads else None
    return Outcome(from_openvino(node.get_output_partial_shape(0)), pads)


# ---------------------------------------------------------------------------------------------
# Cases


@dataclass(frozen=True)
class PoolCase:
    version: int  # AvgPool version: 1, 14 or 16
    opset: int  # the IR `version="opsetN"`
    shape: Bounds
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    dilations: tuple[int, ...] | None  # AvgPool-16 only; None leaves the attribute out
    exclude_pad: bool
    rounding: str
    auto_pad: str
    kind: str  # "valid" or what the case was made to exercise
    raw: dict[str, str] = field(compare=False)  # the IR attribute spellings we decode

    @property
    def family(self) -> tuple[str, ...]:
        return (f"AvgPool-{self.version}", self.rounding, self.auto_pad, rank_tag(self.shape),
                *dynamism_tags(self.shape), f"exclude-pad={self.exclude_pad}", self.kind)

    def __str__(self) -> str:
        dil = f" D{list(self.dilations)}" if self.dilations is not None else ""
        return (f"AvgPool opset{self.opset} {show(self.shape)} K{list(self.kernel)} S{list(self.strides)}{dil} "
                f"pb{list(self.pads_begin)} pe{list(self.pads_end)} ex={self.exclude_pad} {self.rounding} "
                f"{self.auto_pad} [{self.kind}]")

    def openvino(self) -> Outcome:
        def build() -> ov.Node:
            data = ov1.parameter(partial_shape(self.shape), ov.Type.f32)
            args = (data, list(self.strides), list(self.pads_begin), list(self.pads_end), list(self.kernel),
                    self.exclude_pad, self.rounding, self.auto_pad)
            if self.version == 1:
                return ov1.avg_pool(*args)
            if self.version == 14:
                return ov14.avg_pool(*args)
            return ov16.avg_pool(*args, dilations=None if self.dilations is None else list(self.dilations))

        return openvino_outcome(build, with_pads=True)

    def ours(self) -> Outcome:
        spec = opsets.lookup("AvgPool", f"opset{self.opset}")
        assert spec is not None, f"no AvgPool in opset{self.opset}"
        data = TensorType("f32", to_dims(self.shape))
        try:
            attrs = A.decode(spec.attrs, self.raw)
            (out,) = spec.infer(attrs, [data], [None])
            g = geometry(attrs, data, spec.label)
        except IrToolsError as exc:
            return Outcome(error=exc.message)
        return Outcome(from_dims(out.shape), (g.pads_begin, g.pads_end))


@dataclass(frozen=True)
class AdaptiveCase:
    opset: int
    shape: Bounds  # data
    source: str  # how output_size is made: a Const, a Convert of a Const, or a Parameter
    element: str  # output_size element type (the Const's, or the Parameter's)
    size_shape: Bounds  # output_size's shape
    values: tuple[float, ...] | None  # output_size values (flattened); None for a Parameter
    kind: str

    @property
    def family(self) -> tuple[str, ...]:
        return ("AdaptiveAvgPool-8", rank_tag(self.shape), *dynamism_tags(self.shape), f"size:{self.source}",
                self.kind)

    def __str__(self) -> str:
        size = f"{self.source} {self.element}{show(self.size_shape)}"
        if self.values is not None:
            size += f" = {list(self.values)}"
        return f"AdaptiveAvgPool opset{self.opset} {show(self.shape)} output_size {size} [{self.kind}]"

    def _array(self) -> np.ndarray:
        assert self.values is not None and self.size_shape is not None
        dtype = {"i64": np.int64, "i32": np.int32, "f32": np.float32, "boolean": np.bool_}[self.element]
        return np.array(self.values, dtype=dtype).reshape([lo for lo, _ in self.size_shape])

    def openvino(self) -> Outcome:
        def build() -> ov.Node:
            data = ov1.parameter(partial_shape(self.shape), ov.Type.f32)
            if self.source == "param":
                size = ov1.parameter(partial_shape(self.size_shape), OV_TYPES[self.element])
            elif self.source == "convert":
                size = ov1.convert(ov1.constant(self._array()), "i64")
            else:
                size = ov1.constant(self._array())
            return ov8.adaptive_avg_pool(data, size)

        return openvino_outcome(build, with_pads=False)

    def ours(self) -> Outcome:
        spec = opsets.lookup("AdaptiveAvgPool", f"opset{self.opset}")
        assert spec is not None, f"no AdaptiveAvgPool in opset{self.opset}"
        element = "i64" if self.source == "convert" else self.element
        value = None
        if self.source == "const":
            value = self._array()
        elif self.source == "convert":
            value = convert_values(self._array(), "i64")
        inputs = [TensorType("f32", to_dims(self.shape)), TensorType(element, to_dims(self.size_shape))]
        try:
            (out,) = spec.infer(A.decode(spec.attrs, {}), inputs, [None, value])
        except IrToolsError as exc:
            return Outcome(error=exc.message)
        return Outcome(from_dims(out.shape))


Case = PoolCase | AdaptiveCase
OV_TYPES = {"i64": ov.Type.i64, "i32": ov.Type.i32, "f32": ov.Type.f32}


def rank_tag(shape: Bounds) -> str:
    if shape is None:
        return "dynamic-rank"
    return f"{len(shape) - 2}d" if 3 <= len(shape) <= 5 else "bad-rank"


def dynamism_tags(shape: Bounds) -> tuple[str, ...]:
    """Which kinds of dims the shape has: "static" only when every dim is static."""
    if shape is None:
        return ("dynamic-rank",)
    tags = set()
    for lo, hi in shape[2:]:
        if hi is None:
            tags.add("dynamic" if lo == 0 else "unbounded")
        elif lo != hi:
            tags.add("interval")
    if any(lo != hi for lo, hi in shape[:2]):
        tags.add("dynamic-nc")
    return tuple(sorted(tags)) or ("static",)


# ---------------------------------------------------------------------------------------------
# The generator


def _blur(rng: random.Random, length: int, mode: str) -> Bound:
    """A dim whose range contains ``length``, of the kind ``mode`` asks for."""
    if mode == "mixed":
        mode = rng.choice(("static", "dynamic", "interval", "unbounded"))
    if mode == "dynamic":
        return (0, None)
    if mode == "interval":
        lo = rng.randint(0, length)
        return (lo, max(lo + 1, length + rng.randint(0, 12)))
    if mode == "unbounded":
        return (rng.randint(min(1, length), length), None)
    return (length, length)


def _shape(rng: random.Random, lengths: Sequence[int], mode: str) -> Bounds:
    batch: list[Bound] = [(n, n) for n in (rng.randint(1, 4), rng.randint(1, 16))]
    if mode in ("dynamic-nc", "mixed"):
        i = rng.randrange(2)
        batch[i] = rng.choice(((0, None), (1, 8), (0, 3), (2, None)))
    spatial_mode = "static" if mode == "dynamic-nc" else mode
    return (*batch, *(_blur(rng, n, spatial_mode) for n in lengths))


def _spell_list(rng: random.Random, values: Sequence[int]) -> str:
    return rng.choice((", ", ",")).join(map(str, values))


def _resize(rng: random.Random, values: tuple[int, ...], fill: Callable[[], int]) -> tuple[int, ...]:
    """A list of one more or one fewer value (never empty)."""
    if len(values) > 1 and rng.random() < 0.5:
        return values[:-1]
    return (*values, fill())


def pool_case(rng: random.Random, version: int, rounding: str, auto_pad: str) -> PoolCase:
    rank = rng.choice((1, 2, 3))
    mode = rng.choice(MODES)
    dynamic_rank = rng.random() < 0.08
    kind = "ceil-torch-v1" if version == 1 and rounding == "ceil_torch" else "valid"
    if kind == "valid" and rng.random() < 0.4:
        kind = rng.choice([k for k in POOL_KINDS[version] if k not in ("valid", "ceil-torch-v1")])
    exclude_pad = rng.random() < 0.5

    kernel, strides, dilations, pb, pe, lengths = [], [], [], [], [], []
    for _ in range(rank):
        k, s = rng.randint(1, 5), rng.randint(1, 4)
        d = rng.randint(1, 3) if version == 16 else 1
        kd = d * (k - 1) + 1
        b, e = rng.randint(0, 3), rng.randint(0, 3)
        if exclude_pad:
            b, e = min(b, kd - 1), min(e, kd - 1)
        low = max(0, kd - b - e)
        lengths.append(low if rng.random() < 0.08 else rng.randint(max(low, 1), kd + 20))
        kernel.append(k)
        strides.append(s)
        dilations.append(d)
        pb.append(b)
        pe.append(e)

    axis = rng.randrange(rank)
    if kind == "zero-stride":
        strides[axis] = 0
    elif kind == "zero-dilation":
        dilations[axis] = 0
    elif kind == "zero-kernel":
        kernel[axis] = 0
    elif kind == "kernel-too-large":
        padded = lengths[axis] + pb[axis] + pe[axis]
        kernel[axis] = padded // dilations[axis] + rng.randint(2, 3)
    elif kind == "exclude-pad-in-padding":
        exclude_pad, auto_pad = True, "explicit"
        kd = dilations[axis] * (kernel[axis] - 1) + 1
        (pb if rng.random() < 0.5 else pe)[axis] = kd + rng.randint(0, 2)

    shape = _shape(rng, lengths, mode)
    if kind == "zero-batch":
        shape = ((0, 0), *shape[1:])
    elif kind == "zero-channels":
        shape = (shape[0], (0, 0), *shape[2:])
    elif kind == "rank":
        shape = tuple((n, n) for n in rng.choice(((), (4,), (4, 3), (1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 5, 6, 7))))
    if dynamic_rank and kind not in ("rank", "zero-batch", "zero-channels"):
        shape = None

    k_t, s_t, d_t, pb_t, pe_t = tuple(kernel), tuple(strides), tuple(dilations), tuple(pb), tuple(pe)
    if kind == "pads-length":
        if rng.random() < 0.5:
            pb_t = _resize(rng, pb_t, lambda: rng.randint(0, 2))
        else:
            pe_t = _resize(rng, pe_t, lambda: rng.randint(0, 2))
    elif kind == "empty-pads":
        pb_t, pe_t = rng.choice((((), ()), ((), pe_t), (pb_t, ())))
    elif kind == "strides-length":
        s_t = rng.choice(((), _resize(rng, s_t, lambda: rng.randint(1, 3))))
    elif kind == "dilations-length":
        d_t = _resize(rng, d_t, lambda: rng.randint(1, 3))
    elif kind == "kernel-length":  # every list follows the kernel, so only the rank disagrees
        extra = rng.random() < 0.5 or rank == 1
        cut = (lambda t: (*t, t[-1])) if extra else (lambda t: t[:-1])
        k_t, s_t, d_t, pb_t, pe_t = (cut(t) for t in (k_t, s_t, d_t, pb_t, pe_t))
    dil = d_t if version == 16 and (kind in ("zero-dilation", "dilations-length") or rng.random() < 0.8) else None

    raw = {"kernel": _spell_list(rng, k_t), "strides": _spell_list(rng, s_t),
           "pads_begin": _spell_list(rng, pb_t), "pads_end": _spell_list(rng, pe_t),
           "exclude-pad": rng.choice((("false", "true"), ("0", "1")))[exclude_pad]}
    for name in ("pads_begin", "pads_end") if kind == "empty-pads" else ():
        if raw[name] == "" and rng.random() < 0.5:  # OpenVINO reads an omitted pads list as empty
            del raw[name]
    if exclude_pad and rng.random() < 0.2:  # and an omitted exclude-pad as true
        del raw["exclude-pad"]
    if auto_pad != "explicit" or rng.random() < 0.7:
        raw["auto_pad"] = auto_pad if rng.random() < 0.8 else auto_pad.upper()
    if rounding != "floor" or rng.random() < 0.7:
        raw["rounding_type"] = rounding if rng.random() < 0.8 else rounding.upper()
    if dil is not None:
        raw["dilations"] = _spell_list(rng, dil)
    opset = rng.choice(VERSIONS[version])
    return PoolCase(version, opset, shape, k_t, s_t, pb_t, pe_t, dil, exclude_pad, rounding, auto_pad, kind, raw)


def adaptive_case(rng: random.Random, kind: str) -> AdaptiveCase:
    rank = rng.choice((1, 2, 3))
    lengths = [rng.randint(1, 20) for _ in range(rank)]
    shape: Bounds = _shape(rng, lengths, rng.choice(MODES))
    if rng.random() < 0.1:
        shape = None
    if kind == "data-rank":
        shape = tuple((n, n) for n in rng.choice(((), (4,), (4, 3), (1, 2, 3, 4, 5, 6))))
    source = rng.choice(SIZE_SOURCES)
    element = rng.choice(("i64", "i32"))
    values: list[float] = [rng.randint(1, 2 * n) for n in lengths]  # up- and down-sampling
    if kind == "size-negative":
        values[rng.randrange(rank)] = rng.choice((-1, -1, -2, -7))
    elif kind == "size-zero":
        values[rng.randrange(rank)] = 0
    elif kind == "size-float":
        element = "f32"
        values = [v + rng.choice((0.0, 0.25, 0.5, 0.75)) for v in values]
        values[rng.randrange(rank)] = rng.choice((-1.5, -1.0, -2.0, 0.4, 0.9, 3.5))
    elif kind == "size-boolean":
        source, element, values = "const", "boolean", [1] * rank
    elif kind == "size-length":
        values = values[:-1] if rank > 1 and rng.random() < 0.5 else [*values, 2]
    if source == "convert":
        element = "f32"
        if min(values) < 0:  # see test_computed_negative_output_size_is_rejected
            source = "const"
    size_shape: Bounds = ((len(values), len(values)),)
    if kind == "size-scalar":
        values, size_shape = values[:1], ()
    elif kind == "size-2d":
        size_shape = rng.choice((((len(values), len(values)), (1, 1)), ((1, 1), (len(values), len(values)))))
    if source == "param":
        n = len(values)
        if size_shape and rng.random() < 0.5:  # a partly known output_size shape
            size_shape = (rng.choice(((0, None), (max(0, n - 1), n + 1), (n + 1, n + 3))), *size_shape[1:])
        elif rng.random() < 0.1:
            size_shape = None
        element = rng.choice(("i64", "i32", "f32"))
        return AdaptiveCase(rng.randint(8, 16), shape, source, element, size_shape, None, kind)
    return AdaptiveCase(rng.randint(8, 16), shape, source, element, size_shape, tuple(values), kind)


def batch(index: int) -> list[Case]:
    """One seeded batch: every (version, rounding, auto_pad) a few times, then adaptive cases."""
    rng = random.Random(20260 + index)
    cases: list[Case] = [
        pool_case(rng, version, rounding, auto_pad)
        for version in VERSIONS
        for rounding in ROUNDINGS
        for auto_pad in AUTO_PADS
        for _ in range(POOL_CASES_PER_COMBO)
    ]
    kinds = [ADAPTIVE_KINDS[i % len(ADAPTIVE_KINDS)] if i % 2 else "valid" for i in range(ADAPTIVE_CASES_PER_BATCH)]
    cases += [adaptive_case(rng, kind) for kind in kinds]
    return cases


BATCH_CASES = [batch(i) for i in range(BATCHES)]
ALL_CASES = [c for cases in BATCH_CASES for c in cases]


# ---------------------------------------------------------------------------------------------
# Tests


@pytest.mark.parametrize("index", range(BATCHES), ids=[f"batch{i:02d}" for i in range(BATCHES)])
def test_batch_matches_openvino(index: int) -> None:
    cases = BATCH_CASES[index]
    mismatches, tally = [], Counter()
    for case in cases:
        want, got = case.openvino(), case.ours()
        tally["rejected" if want.error is not None else "accepted"] += 1
        if not want.same_as(got):
            mismatches.append(f"  {case}\n    openvino {want}\n    ours     {got}")
    assert not mismatches, (
        f"{len(mismatches)} of {len(cases)} cases differ from openvino "
        f"({tally['accepted']} accepted, {tally['rejected']} rejected by openvino):\n" + "\n".join(mismatches[:15])
    )


def test_generator_covers_every_family() -> None:
    """The batches are only evidence if they hold enough cases of every kind."""
    assert len(ALL_CASES) >= MIN_CASES, f"{len(ALL_CASES)} cases, want at least {MIN_CASES}"
    per_version: dict[str, Counter] = {}
    for case in ALL_CASES:
        per_version.setdefault(case.family[0], Counter()).update(case.family[1:])
    pool_combos = Counter((c.version, c.rounding, c.auto_pad) for c in ALL_CASES if isinstance(c, PoolCase))
    missing = [f"AvgPool-{v} {r} {p}" for v in VERSIONS for r in ROUNDINGS for p in AUTO_PADS
               if pool_combos[(v, r, p)] < 10]
    for version in VERSIONS:
        label = f"AvgPool-{version}"
        want = (*RANKS, *DYNAMISM, *POOL_KINDS[version], "exclude-pad=True", "exclude-pad=False")
        missing += [f"{label} {tag}" for tag in want if per_version[label][tag] < 3]
    want = (*RANKS, *DYNAMISM, *ADAPTIVE_KINDS, *(f"size:{s}" for s in SIZE_SOURCES))
    missing += [f"AdaptiveAvgPool-8 {tag}" for tag in want if per_version["AdaptiveAvgPool-8"][tag] < 3]
    spatial = Counter((rank_tag(c.shape), tag) for c in ALL_CASES for tag in dynamism_tags(c.shape))
    missing += [f"{r} {d}" for r in ("1d", "2d", "3d") for d in DYNAMISM[:-1] if spatial[(r, d)] < 10]
    breakdown = {v: dict(sorted(c.items())) for v, c in per_version.items()}
    assert not missing, f"{len(ALL_CASES)} cases; families missing or thin: {missing}\n{breakdown}"


def test_both_outcomes_occur_for_every_version() -> None:
    """Each version must see accepted and rejected cases, or agreement would prove little."""
    tally = Counter((c.family[0], c.openvino().error is None) for c in ALL_CASES)
    for version in ("AvgPool-1", "AvgPool-14", "AvgPool-16", "AdaptiveAvgPool-8"):
        accepted, rejected = tally[(version, True)], tally[(version, False)]
        assert accepted >= 100 and rejected >= 30, f"{version}: {accepted} accepted, {rejected} rejected"
