"""Interpolate-1, Interpolate-4 and Interpolate-11 (ops/interpolate.py) against the installed openvino.

Shape rules: seeded cases of every mode, shape_calculation_mode, pads (omitted, short, exact, long),
axes (omitted, Const in any order, repeated, out of range, a Parameter), sizes and scales (Const
values including -1, -2, 0 and scales of 1, extra or missing values, Parameters), element types and
input ranks meant to be refused, on static, interval, dynamic and unbounded dims and dynamic ranks.
Each is built as an openvino node (never compiled) and run through our registry path; both must give
the same output dims and element type, or both refuse with the same check.

Kernels: seeded cases batched into one model per test, ours (on the IR openvino saves) against
OpenVINO CPU (INFERENCE_PRECISION_HINT f32), f32 and f16, plus u8/i32 for nearest. Tolerances:
nearest must be equal (it copies elements; measured: every transform and nearest_mode picks the same
element as ours). linear, linear_onnx and cubic: OpenVINO CPU computes the source coordinates (up to L,
the longest resized axis) and the weights in float32 in its own order, so a weight may be off by a
few ulps of L and an element by c*u*L*sum|x| over the taps it reads (u = 2**-24). Measured c: at most
0.9 for linear and linear_onnx, 2.9 for cubic (relative to sum|w*x| that is up to 2.7u for linear and
linear_onnx, but 37u with align_corners and 209u for cubic); the tolerance is c = 8, f16 one more
f16 ulp (2**-10 relative, 2**-24 absolute).

OpenVINO facts measured here (openvino 2026.4.1), beyond the specification (see also the rules in
ops/interpolate.py's docstring):
- Opsets: Interpolate-1 in opset1-3, Interpolate-4 in opset4-10, Interpolate-11 in opset11-16.
- OpenVINO CPU resizes at most the spatial axes of a 4-D/5-D input (2 of 4, 3 of 5; "only supports
  resize on spatial dimensions"), computes cubic wrongly when a rank-3 input is resized on axis 0 and
  another axis, or a rank-4 one on axes 1, 2 and 3, and corrupts its heap ("free(): invalid next
  size", the process aborts) on cubic with an output of length 0 on axis 0 of a rank-3 input: the
  generated cases resize spatial axes only, to non-empty outputs.
- Interpolate-1 with fewer sizes than axes reads past its sizes: garbage dims, or a segmentation
  fault (so it is not generated here; test_interpolate_1_reads_past_few_sizes checks our rule gives up).
- Interpolate-1 on CPU runs as the Interpolate-4 of ConvertInterpolate1ToInterpolate4 (nearest_mode
  simple; asymmetric coordinates, align_corners when set, half_pixel for linear without pads unless
  a 4-D input is resized on axes {2, 3}); its scales are output / input lengths.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.base.dims import Dim
from ir_tools.base.errors import IrToolsError
from ir_tools.ops import attrs as A
from ir_tools.ops import interpolate as interp
from ir_tools.ops import opsets
from ir_tools.ops.spec import TensorType

from .conformance import Case, from_openvino, partial_shape, run_cases, show, to_dims

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 20267
FACTORIES = {1: NodeFactory("opset1"), 4: NodeFactory("opset4"), 11: NodeFactory("opset11")}
OPSET_OF = {1: "opset1", 4: "opset4", 11: "opset11"}
SHAPE_BATCHES = 6
SHAPE_CASES_PER_BATCH = 240

Bound = tuple[int, int | None]
Bounds = tuple[Bound, ...] | None

# --- shape rules ------------------------------------------------------------------------------------

ERROR_MEANINGS = (
    ("data-type", r"Input element type must be", r"data element type .* is not one of"),
    ("sizes-type", r"Sizes element type must be|output shape must be an integral", r"sizes element type"),
    ("scales-type", r"Scales element type must be", r"scales element type"),
    ("axes-type", r"Axes element type must be", r"axes element type"),
    ("rank-1", r"Input \[\d\] is not rank 1", r"must be 1-D"),
    ("axes-range", r"All axes values should less than input rank", r"axes \[.*\] must lie in"),
    ("count", r"The number of elements in the '\w+' input does not match", r"values, fewer than the"),
    ("pillow-v4", r"Unsupported interpolation mode used with version 4", r"needs Interpolate-11"),
)


def meaning(message: str, side: int) -> str:
    return next((row[0] for row in ERROR_MEANINGS if re.search(row[side], message)), message)


@dataclass(frozen=True)
class Outcome:
    shape: Bounds = None
    element: str | None = None
    error: str | None = None
    skipped: bool = False  # our rule does not re-infer the case (answers None)

    def same_as(self, ours: Outcome) -> bool:
        if self.error is not None or ours.error is not None:
            return self.error is not None and ours.error is not None and \
                meaning(self.error, 1) == meaning(ours.error, 2)
        return self.shape == ours.shape and self.element == ours.element

    def __str__(self) -> str:
        return f"rejects ({self.error})" if self.error is not None else f"{show(self.shape)} {self.element}"


OV_TYPES = {"f32": ov.Type.f32, "f16": ov.Type.f16, "i32": ov.Type.i32, "i64": ov.Type.i64, "u8": ov.Type.u8,
            "u16": ov.Type.u16, "boolean": ov.Type.boolean, "u64": ov.Type.u64}
NP_TYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i64": np.int64, "u64": np.uint64}


@dataclass(frozen=True)
class Input:
    """A value input: a Const of ``value`` or a Parameter of ``shape``, of ``element``."""

    element: str
    value: tuple | None = None  # a nested tuple (the Const's values)
    shape: Bounds = ((1, 1),)

    def node(self) -> ov.Node:
        if self.value is not None:
            return ops1.constant(np.array(self.value, NP_TYPES[self.element]))
        return ops1.parameter(partial_shape(self.shape), OV_TYPES[self.element])

    def ours(self) -> tuple[TensorType, np.ndarray | None]:
        if self.value is not None:
            arr = np.array(self.value, NP_TYPES[self.element])
            return TensorType(self.element, tuple(Dim(n, n) for n in arr.shape)), arr
        return TensorType(self.element, to_dims(self.shape)), None

    def __str__(self) -> str:
        return f"{self.element}{list(self.value) if self.value is not None else show(self.shape)}"


@dataclass(frozen=True)
class ShapeCase:
    version: int
    data: Bounds
    element: str
    inputs: tuple[Input, ...]  # after the data
    attrs: dict  # openvino's attribute values
    raw: dict[str, str] = field(compare=False)  # the IR spellings we decode
    kind: str = "valid"

    def __str__(self) -> str:
        return (f"Interpolate-{self.version} {self.element}{show(self.data)} {[str(i) for i in self.inputs]} "
                f"{self.raw} [{self.kind}]")

    def openvino(self) -> Outcome:
        try:
            x = ops1.parameter(partial_shape(self.data), OV_TYPES[self.element])
            node = FACTORIES[self.version].create("Interpolate", [x.output(0)] + [i.node().output(0)
                                                                                 for i in self.inputs], self.attrs)
        except Exception as exc:
            return Outcome(error=str(exc).strip().splitlines()[-1])
        return Outcome(from_openvino(node.get_output_partial_shape(0)), node.get_output_element_type(0).get_type_name())

    def ours(self) -> Outcome:
        spec = opsets.lookup("Interpolate", OPSET_OF[self.version])
        types, values = [TensorType(self.element, to_dims(self.data))], [None]
        for i in self.inputs:
            t, v = i.ours()
            types.append(t)
            values.append(v)
        try:
            result = spec.infer(A.decode(spec.attrs, self.raw), types, values)
        except IrToolsError as exc:
            return Outcome(error=exc.message)
        if result is None:
            return Outcome(skipped=True)
        (out,) = result
        shape = None if out.shape is None else tuple((d.lo, d.hi) for d in out.shape)
        return Outcome(shape, out.element)


def _blur(rng: random.Random, n: int, mode: str) -> Bound:
    if mode == "mixed":
        mode = rng.choice(("static", "dynamic", "interval", "unbounded"))
    if mode == "dynamic":
        return (0, None)
    if mode == "interval":
        lo = rng.randint(0, n)
        return (lo, n + rng.randint(0, 9))
    if mode == "unbounded":
        return (rng.randint(0, n), None)
    return (n, n)


SCALES = (0.5, 1.0, 1.5, 2.0, 2.5, 1 / 3, 0.75, 0.6, 3.0, 0.1, 1.25, 0.7)
KINDS = ("valid",) * 10 + ("dynamic-rank", "axes-param", "axes-param-dynamic", "values-param", "no-axes",
                           "axes-unsorted", "axes-repeated", "axes-out-of-range", "axes-negative", "sizes-negative",
                           "scales-special", "extra-values", "few-values", "data-type", "sizes-type", "scales-type",
                           "axes-type", "rank-2-values", "rank-2-axes", "rank-2-unused", "pads-short", "pads-long",
                           "empty-pads")


def shape_case(rng: random.Random, version: int) -> ShapeCase:
    kind = rng.choice(KINDS if version != 1 else ("valid",) * 6 + ("dynamic-rank", "values-param", "axes-unsorted",
                                                                   "axes-repeated", "axes-out-of-range",
                                                                   "sizes-negative", "sizes-type", "extra-values"))
    rank = rng.randint(1, 5)
    lengths = [rng.randint(1, 9) for _ in range(rank)]
    mode = rng.choice(("static", "static", "dynamic", "interval", "unbounded", "mixed"))
    data: Bounds = tuple(_blur(rng, n, mode) for n in lengths)
    if kind == "dynamic-rank":
        data = None
    element = "f32" if kind != "data-type" else rng.choice(("boolean", "u16"))
    axes = sorted(rng.sample(range(rank), rng.randint(1, rank)))
    if kind == "axes-unsorted":
        rng.shuffle(axes)
    elif kind == "axes-repeated":
        axes = axes + [rng.choice(axes)]
    elif kind == "axes-out-of-range":
        axes = axes + [rank + rng.randint(0, 2)]
    elif kind == "axes-negative":
        axes = axes[:-1] + [-1]
    count = len(axes) if kind != "no-axes" else rank
    sizes = [rng.randint(0, 12) for _ in range(count)]
    scales = [rng.choice(SCALES) for _ in range(count)]
    if kind == "sizes-negative":
        sizes[rng.randrange(count)] = rng.choice((-1, -1, -2, -5))
    elif kind == "scales-special":
        scales[rng.randrange(count)] = rng.choice((0.0, -0.5, -1.0, 1e-7, 1.0000001))
    elif kind == "extra-values":
        sizes, scales = sizes + [3], scales + [2.0]
    elif kind == "few-values" and count > 1:
        sizes, scales = sizes[:-1], scales[:-1]
    elif kind == "few-values":  # an empty Const cannot be built: one axis more
        axes = axes + [a for a in range(rank) if a not in axes][:1] if len(axes) < rank else axes
        sizes, scales = sizes[:len(axes) - 1] or [3], scales[:len(axes) - 1] or [2.0]

    def values(vals, element, two_d=False) -> Input:
        if kind == "values-param":
            return Input(element, None, rng.choice((((len(vals), len(vals)),), ((0, None),), None)))
        return Input(element, tuple([tuple(vals)] if two_d else vals))

    size_type = rng.choice(("i64", "i32")) if kind != "sizes-type" else "f32"
    scale_type = "f32" if kind != "scales-type" else "i64"
    if version == 1:
        attrs = {"axes": axes, "mode": rng.choice(("nearest", "linear", "cubic", "area")),
                 "align_corners": rng.random() < 0.5, "antialias": False,
                 "pads_begin": [rng.randint(0, 2) for _ in range(rank)], "pads_end": []}
        raw = {"axes": ",".join(map(str, axes)), "mode": attrs["mode"],
               "align_corners": str(attrs["align_corners"]).lower(), "pads_begin": ",".join(map(str,
                                                                                               attrs["pads_begin"]))}
        if kind in ("axes-repeated", "axes-negative") or min(axes) < 0:
            axes = sorted(set(a for a in axes if a >= 0)) or [0]
            attrs["axes"], raw["axes"] = axes, ",".join(map(str, axes))
        return ShapeCase(1, data, element, (values(sizes, size_type),), attrs, raw, kind)
    calc = rng.choice(("sizes", "scales"))
    modes = interp.MODES if version == 11 or rng.random() < 0.2 else interp.MODES[:4]
    attrs = {"mode": rng.choice(modes), "shape_calculation_mode": calc,
             "coordinate_transformation_mode": rng.choice(interp.TRANSFORMS),
             "nearest_mode": rng.choice(interp.NEAREST_MODES), "antialias": False, "cube_coeff": -0.75}
    pb = [rng.randint(0, 2) for _ in range(rank)]
    pe = [rng.randint(0, 2) if rng.random() < 0.5 else 0 for _ in range(rank)]
    if kind == "pads-short":
        pb, pe = pb[:rng.randint(0, rank - 1)], pe[:rng.randint(0, rank - 1)]
    elif kind == "pads-long":
        pb, pe = pb + [1, 2], pe + [3]
    elif kind == "empty-pads":
        pb, pe = [], []
    attrs |= {"pads_begin": pb, "pads_end": pe}
    raw = {k: str(v) if not isinstance(v, list) else ",".join(map(str, v)) for k, v in attrs.items()
           if k not in ("antialias", "cube_coeff")}
    if not pb and rng.random() < 0.5:
        del raw["pads_begin"]  # omitted: read as empty
    raw["antialias"] = "false"
    axes_type = "i64" if kind != "axes-type" else "f32"
    if kind == "axes-param":
        axes_input = Input("i64", None, ((len(axes), len(axes)),))
    elif kind == "axes-param-dynamic":
        axes_input = Input("i32", None, rng.choice((((0, None),), None)))
    else:
        axes_input = Input(axes_type, tuple([tuple(axes)] if kind == "rank-2-axes" else axes)
                           if axes_type != "f32" else tuple(float(a) for a in axes))
    sizes_in = values(sizes, size_type, kind == "rank-2-values" and calc == "sizes")
    scales_in = values(scales, scale_type, kind == "rank-2-values" and calc == "scales")
    if kind == "rank-2-unused":  # Interpolate-4 checks the rank of the input its mode uses only
        if calc == "sizes":
            scales_in = Input(scale_type, (tuple(scales),))
        else:
            sizes_in = Input(size_type, (tuple(sizes),))
    if version == 4:
        inputs = (sizes_in, scales_in)
    else:
        inputs = (scales_in if calc == "scales" else sizes_in,)
    if kind != "no-axes":
        inputs += (axes_input,)
    return ShapeCase(version, data, element, inputs, attrs, raw, kind)


def shape_batch(index: int) -> list[ShapeCase]:
    rng = random.Random(SEED + index)
    return [shape_case(rng, (1, 4, 11, 4, 11)[i % 5]) for i in range(SHAPE_CASES_PER_BATCH)]


SHAPE_CASES = [shape_batch(i) for i in range(SHAPE_BATCHES)]


@pytest.mark.parametrize("index", range(SHAPE_BATCHES), ids=[f"batch{i}" for i in range(SHAPE_BATCHES)])
def test_shape_rules_match_openvino(index: int) -> None:
    mismatches, refused, skipped = [], 0, 0
    for case in SHAPE_CASES[index]:
        want, got = case.openvino(), case.ours()
        refused += want.error is not None
        if got.skipped:  # OpenVINO makes an empty interval of a negative scale
            assert case.kind == "scales-special", case
            skipped += 1
            continue
        if not want.same_as(got):
            mismatches.append(f"  {case}\n    openvino {want}\n    ours     {got}")
    assert not mismatches, (f"{len(mismatches)} of {len(SHAPE_CASES[index])} differ ({refused} refused by "
                            f"openvino):\n" + "\n".join(mismatches[:12]))


def test_shape_cases_cover_every_kind() -> None:
    cases = [c for batch in SHAPE_CASES for c in batch]
    outcomes = [(c, c.openvino()) for c in cases]
    for version in (1, 4, 11):
        mine = [o for c, o in outcomes if c.version == version]
        assert sum(o.error is None for o in mine) >= 150, version
        assert sum(o.error is not None for o in mine) >= 40, version
    assert set(KINDS) <= {c.kind for c in cases}
    dims = {"interval" if hi is not None and lo != hi else "dynamic" if hi is None else "static"
            for _, o in outcomes if o.error is None and o.shape is not None for lo, hi in o.shape}
    assert dims == {"interval", "dynamic", "static"}


def test_versions_match_openvinos_reader(tmp_path: Path) -> None:
    """Interpolate-1 is read in opset1-3, Interpolate-4 in opset4-10, Interpolate-11 in opset11-16."""
    x = ops1.parameter([1, 2, 4, 4], np.float32, name="x")

    def const(v, t=np.int64):
        return ops1.constant(np.array(v, t)).output(0)

    nodes = {1: FACTORIES[1].create("Interpolate", [x.output(0), const([8, 8])], {"axes": [2, 3], "mode": "nearest"}),
             4: FACTORIES[4].create("Interpolate", [x.output(0), const([8, 8]), const([2, 2], np.float32),
                                                    const([2, 3])], {"mode": "nearest"}),
             11: FACTORIES[11].create("Interpolate", [x.output(0), const([8, 8]), const([2, 3])], {"mode": "nearest"})}
    mismatches = []
    for version, node in nodes.items():
        path = tmp_path / f"v{version}.xml"
        ov.save_model(ov.Model([node], [x]), str(path), compress_to_fp16=False)
        text, weights = path.read_text(), ov.Tensor(np.fromfile(path.with_suffix(".bin"), np.uint8))
        for n in range(19):
            try:
                ov.Core().read_model(re.sub(r'(type="Interpolate" version=")opset\d+"', f'\\g<1>opset{n}"', text),
                                     weights)
                reads = True
            except RuntimeError:
                reads = False
            spec = opsets.lookup("Interpolate", f"opset{n}")
            ours = spec is not None and spec.label == f"Interpolate-{version}"
            if reads != ours:
                mismatches.append(f"Interpolate-{version} as opset{n}: OpenVINO {'reads' if reads else 'refuses'} it")
    assert not mismatches, mismatches


# --- kernels against OpenVINO CPU -------------------------------------------------------------------


def kernel_case(what: str, x: np.ndarray, build: Callable[[ov.Node], ov.Node], bound: Callable[[], np.ndarray]) -> Case:
    """A harness case of one Interpolate on ``x``, within ``bound()`` (a per-element tolerance)."""
    return Case(what, [x], lambda ps: build(ps[0]), (lambda w: bound(),))


def spatial_axes(rng: np.random.Generator, rank: int) -> list[int]:
    """Axes OpenVINO CPU resizes correctly (see the module docstring)."""
    first = 0 if rank <= 2 else 1 if rank == 3 else 2
    pool = list(range(first, rank))
    return sorted(int(a) for a in rng.choice(pool, int(rng.integers(1, len(pool) + 1)), replace=False))


def kernel_cases(rng: np.random.Generator, count: int, version: int) -> list[Case]:
    cases = []
    combos = [("nearest", t, n) for t in interp.TRANSFORMS for n in interp.NEAREST_MODES]
    combos += [(m, t, "round_prefer_floor") for m in ("linear_onnx", "linear", "cubic") for t in interp.TRANSFORMS]
    for i in range(count):
        mode, transform, nearest_mode = combos[i % len(combos)]
        rank = int(rng.integers(2, 6))
        shape = [int(v) for v in rng.integers(1, 7 if rank < 5 else 5, rank)]
        axes = spatial_axes(rng, rank)
        calc = ("sizes", "scales")[(i // len(combos)) % 2]
        dtype = np.float16 if i % 6 == 5 else np.float32
        if mode == "nearest" and i % 9 == 4:
            dtype = (np.uint8, np.int32)[i % 2]
        pb = [0] * rank
        pe = [0] * rank
        if rank >= 4 and i % 4 == 3:
            pb = [0, 0] + [int(v) for v in rng.integers(0, 3, rank - 2)]
            pe = [0, 0] + [int(v) for v in rng.integers(0, 3, rank - 2)]
        padded = [n + b + e for n, b, e in zip(shape, pb, pe, strict=True)]
        if calc == "sizes":
            values = [max(1, int(padded[a] * rng.choice([0.5, 0.75, 1, 1.5, 2, 2.5, 3]) + rng.integers(-1, 2)))
                      for a in axes]
        else:
            values = [float(rng.choice([s for s in SCALES if s * padded[a] + 1e-6 >= 1 and s > 0.2]))
                      for a in axes]
        if dtype in (np.uint8, np.int32):
            x = rng.integers(0, 200, shape).astype(dtype)
        else:
            x = rng.standard_normal(shape).astype(dtype)
        attrs = {"mode": mode, "shape_calculation_mode": calc, "coordinate_transformation_mode": transform,
                 "nearest_mode": nearest_mode, "antialias": False, "cube_coeff": float(rng.choice([-0.75, -0.5])),
                 "pads_begin": pb, "pads_end": pe}
        value = np.array(values, np.float32 if calc == "scales" else np.int64)

        def build(p, attrs=attrs, value=value, axes=axes, calc=calc):
            c = [ops1.constant(value).output(0), ops1.constant(np.array(axes, np.int64)).output(0)]
            if version == 4:
                other = np.ones(len(axes), np.float32) if calc == "sizes" else np.ones(len(axes), np.int64)
                c = [*((c[0], ops1.constant(other).output(0)) if calc == "sizes" else
                       (ops1.constant(other).output(0), c[0])), c[1]]
            return FACTORIES[version].create("Interpolate", [p.output(0), *c], attrs)

        def bound(x=x, attrs=attrs, value=value, axes=axes, calc=calc):
            if attrs["mode"] == "nearest":
                return np.zeros(1)
            a = A.decode(interp.InterpolateAttrs, {k: ",".join(map(str, v)) if isinstance(v, list) else str(v)
                                                   for k, v in attrs.items()})
            args = [x, value, np.ones(len(axes), np.float32), np.array(axes)] if version == 4 else [x, value,
                                                                                                     np.array(axes)]
            if version == 4 and calc == "scales":
                args[1], args[2] = np.ones(len(axes), np.int64), value
            out, axes_, scales = interp.resize_plan(version, a, args)
            y = np.abs(np.pad(x.astype(np.float64), list(zip(a.pads_begin, a.pads_end, strict=True))))
            longest = 1
            for axis, scale in zip(axes_, scales, strict=True):
                w = interp.weight_matrix(a.mode, a.coordinate_transformation_mode, out[axis], y.shape[axis], scale,
                                         a.cube_coeff)
                longest = max(longest, out[axis], y.shape[axis])
                y = np.moveaxis(np.tensordot((w != 0).astype(np.float64), y, axes=([1], [axis])), 0, axis)
            limit = 8 * longest * 2.0**-24 * y
            if x.dtype == np.float16:
                limit = limit + 2.0**-10 * np.abs(interp.interpolate(
                    x.astype(np.float32), out, axes_, scales, a.mode, a.coordinate_transformation_mode,
                    a.nearest_mode, a.cube_coeff, a.pads_begin, a.pads_end)) + 2.0**-24
            return limit

        cases.append(kernel_case(f"Interpolate-{version} {mode} {transform} {nearest_mode} {calc} "
                                f"{np.dtype(dtype).name}{shape} axes {axes} values {values} pads {pb}/{pe}", x, build,
                                bound))
    return cases


@pytest.mark.parametrize("version", [4, 11])
def test_interpolate_kernels(tmp_path: Path, version: int) -> None:
    cases = kernel_cases(np.random.default_rng(SEED + version), 250, version)
    failures = run_cases(cases, tmp_path)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])


def pillow_kernel_cases(rng: np.random.Generator, count: int) -> list[Case]:
    """The pillow modes where the kernel executes them (float data of rank 4, the last two axes, no pads): sizes
    and scales of 1 to 12 elements to 1 to 16, every transform and two cube_coeff (OpenVINO CPU reads neither), f32
    and f16, an inf, -inf or NaN in every tenth; within twice the op's rounding rule (ours and OpenVINO's each within
    it of the exact values)."""
    cases = []
    spec = interp.INTERPOLATE_11
    for i in range(count):
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4)), *(int(n) for n in rng.integers(1, 13, 2))]
        calc = ("sizes", "scales")[i // 2 % 2]
        values = [int(n) for n in rng.integers(1, 17, 2)] if calc == "sizes" else \
            [float(rng.choice([s for s in SCALES if s * n + 1e-6 >= 1])) for n in shape[2:]]
        x = rng.standard_normal(shape)
        if i % 10 == 3:  # (an inf or NaN reaches the outputs whose windows hold it)
            x.flat[int(rng.integers(x.size))] = (np.inf, -np.inf, np.nan)[i // 10 % 3]
        x = x.astype(np.float16 if i % 5 == 4 else np.float32)
        attrs = {"mode": interp.PILLOW_MODES[i % 2], "shape_calculation_mode": calc,
                 "coordinate_transformation_mode": interp.TRANSFORMS[i // 4 % len(interp.TRANSFORMS)],
                 "cube_coeff": float(rng.choice([-0.75, -0.5])), "antialias": False}
        value = np.array(values, np.float32 if calc == "scales" else np.int64)

        def build(p, attrs=attrs, value=value):
            c = [ops1.constant(value).output(0), ops1.constant(np.array([2, 3], np.int64)).output(0)]
            return FACTORIES[11].create("Interpolate", [p.output(0), *c], attrs)

        def bound(x=x, attrs=attrs, value=value):
            a = A.decode(interp.InterpolateAttrs, {k: str(v) for k, v in attrs.items()})
            args = [x, value, np.array([2, 3], np.int64)]
            ours = spec.kernel(a, args)
            return 2 * spec.rounding(spec.kernel, a, args, [np.zeros(())] * 3, ours)[0]

        cases.append(kernel_case(f"Interpolate-11 {attrs['mode']} {calc} {np.dtype(x.dtype).name}{shape} values "
                                 f"{values}", x, build, bound))
    return cases


def test_pillow_kernels(tmp_path: Path) -> None:
    cases = pillow_kernel_cases(np.random.default_rng(SEED), 200)
    failures = run_cases(cases, tmp_path)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])

def interpolate_1_cases(rng: np.random.Generator, count: int) -> list[Case]:
    cases = []
    for i in range(count):
        mode = ("nearest", "linear", "cubic", "linear_onnx")[i % 4]
        align = bool(i // 4 % 2)
        rank = int(rng.integers(2, 6))
        shape = [int(v) for v in rng.integers(1, 7 if rank < 5 else 5, rank)]
        axes = spatial_axes(rng, rank)
        sizes = [max(1, int(shape[a] * rng.choice([0.5, 1, 1.5, 2, 3]))) for a in axes]
        x = rng.standard_normal(shape).astype(np.float32)

        def build(p, mode=mode, align=align, axes=axes, sizes=sizes):
            return FACTORIES[1].create("Interpolate", [p.output(0), ops1.constant(np.array(sizes, np.int64)).output(0)],
                                       {"axes": axes, "mode": mode, "align_corners": align, "antialias": False,
                                        "pads_begin": [], "pads_end": []})

        def bound(x=x, mode=mode, shape=shape, sizes=sizes):
            if mode == "nearest":
                return np.zeros(1)
            return 8 * max(*shape, *sizes) * 2.0**-24 * 4**len(sizes) * np.max(np.abs(x))

        cases.append(kernel_case(f"Interpolate-1 {mode} align_corners {align} {shape} axes {axes} sizes {sizes}", x,
                                build, bound))
    return cases


def test_interpolate_1_kernel(tmp_path: Path) -> None:
    """Interpolate-1 as OpenVINO CPU runs it: converted to Interpolate-4 (see the module docstring)."""
    cases = interpolate_1_cases(np.random.default_rng(SEED + 1), 80)
    failures = run_cases(cases, tmp_path)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])


def test_what_the_kernel_does_not_execute() -> None:
    spec = opsets.lookup("Interpolate", "opset11")
    x = np.zeros((1, 1, 4, 4), np.float32)
    sizes, axes = np.array([8, 8]), np.array([2, 3])
    for raw in ({"mode": "bilinear_pillow", "pads_begin": "0,0,1,1"}, {"mode": "linear", "antialias": "true"}):
        with pytest.raises(IrToolsError, match="not|antialias|mode"):
            spec.kernel(A.decode(spec.attrs, raw), [x, sizes, axes])
    with pytest.raises(IrToolsError, match="repeated axes"):
        spec.kernel(A.decode(spec.attrs, {}), [x, np.array([8, 8]), np.array([2, 2])])


def test_interpolate_1_reads_past_few_sizes() -> None:
    """OpenVINO reads garbage (or crashes) there: our rule does not re-infer such a layer."""
    spec = opsets.lookup("Interpolate", "opset1")
    a = A.decode(spec.attrs, {"axes": "2,3", "mode": "linear"})
    data = TensorType("f32", to_dims(((1, 1), (2, 2), (4, 4), (5, 5))))
    assert spec.infer(a, [data, TensorType("i64", to_dims(((1, 1),)))], [None, np.array([8])]) is None
    (out,) = spec.infer(a, [data, TensorType("i64", to_dims(((2, 2),)))], [None, np.array([8, 3])])
    assert [d.lo for d in out.shape] == [1, 2, 8, 3]
