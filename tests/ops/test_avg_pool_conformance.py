"""The numpy pooling kernels against OpenVINO CPU, on thousands of seeded cases.

Every case is run by ``ir_tools.ops.avg_pool`` / ``adaptive_avg_pool`` and by OpenVINO CPU
(INFERENCE_PRECISION_HINT f32) on the same input. To stay fast, cases are batched: one ov.Model
holds a few hundred independent Parameter -> pool -> Result chains and is compiled once.

Random attribute sets are drawn for AvgPool-1, -14 and -16 (every auto_pad, floor/ceil/ceil_torch,
both exclude-pad settings, dilations, asymmetric pads, strides larger than the kernel so that ceil
rounding makes windows with no data) and AdaptiveAvgPool-8 (down- and upsampling). A drawn set
that OpenVINO's Python API rejects while building the node must make our kernel raise
OpValidationError, and only those.

Tolerances: f32 rtol 1e-5, atol 1e-6. The kernels add in f32 as OpenVINO CPU does: in its order
where they sum each window's taps jointly (then bit for bit equal, as every such case below is), axis
by axis otherwise, which rounds differently: by a few ulps of the window's mean |x| (at most 2 on the
cases below, under 0.4 of ops.rounding.accumulation's bound). f16: both sides compute in f32 and round
to f16 once at the end, so such a difference can move a result by one f16 ulp: rtol 2**-10 (one ulp
relative to the result), atol 2**-24 (the f16 subnormal step); on the cases below every f16 result is
equal. Integers must be equal.

OpenVINO CPU facts these tests rely on (openvino 2026.4.1):
- Integer inputs (i32, i8, u8) give the average rounded half to even.
- i32 AvgPool with dilations or with a window that has no data fails to compile ("Supported
  primitive descriptors list is empty"), so i32 cases avoid both; i8/u8 support them (0 there).
- Below AVX-512 some more i32 AvgPools do not compile, with the same words: one channel, and
  N * prod(min(input, output length)) over the spatial axes below 4. With C = 1 the plugin keeps i32 in a
  planar layout (it converts to f32 otherwise), which only oneDNN's jit_uni_i8i8_pooling takes (there is no
  s32 -> f32 ref kernel), and its AVX2/SSE4.1 versions refuse a tensor smaller than one vector of f32 outputs
  ("safe load-and-store not possible": 8 on AVX2, 4 on SSE4.1, the one tried last); AVX-512 has no such
  check. Measured on AVX2: 172 of 750 such cases refused, each as the rule says. Those cases are drawn
  (they are not counted among the i32 cases compared) and checked by
  test_i32_cases_openvino_cannot_compile_here: each must fail to compile, alone, with those words.
- opset16.avg_pool(..., dilations=None) builds a node that segfaults CPU compilation, so
  AvgPool-16 nodes always get explicit dilations.
- A float window with no data gives NaN or -0.0 (see pool_geometry.cpu_window_counts); NaN
  positions and the sign of zero results must match.
- u8 AdaptiveAvgPool to output size 1 saturates the sum in u8 and truncates (a defect: 4 x 100
  gives 63), so those cases are not compared; every other AdaptiveAvgPool size is exact.
- i32 AdaptiveAvgPool to output size 1 (on every axis) runs as a ReduceMean, whose i32 kernel truncates the
  mean toward zero below AVX-512 (measured on AVX2: 1538 of 1538 such means truncated, 711 of them not the
  nearest integer; AVX-512 gave the nearest on this seed's cases). Below AVX-512 those cases are compared with
  the truncated exact mean (expected_here); our kernel keeps the nearest (round half to even).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset8 as ops8
import openvino.opset14 as ops14
import openvino.opset16 as ops16
import pytest

from ir_tools.base.dims import Dim
from ir_tools.base.errors import OpValidationError
from ir_tools.ops import adaptive_avg_pool, avg_pool
from ir_tools.ops.pool_geometry import pool_geometry, window_counts
from ir_tools.runtime.openvino import CPU_CONFIG
from tests.cpu_isa import AVX512, openvino_cpu_isa

from .conformance import Case, assert_all_pass, run_cases, tolerance

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 20264
BATCH = 400  # cases per compiled ov.Model
TOLERANCES = {"f32": (1e-5, 1e-6), "f16": (2.0**-10, 2.0**-24), "i32": (0.0, 0.0), "i8": (0.0, 0.0), "u8": (0.0, 0.0)}
DTYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i8": np.int8, "u8": np.uint8}
AUTO_PADS = ("explicit", "same_upper", "same_lower", "valid")


@dataclass(frozen=True)
class PoolCase:
    """One AvgPool node: opset 1, 14 or 16 and its attributes, on an input of ``shape`` and ``dtype``."""

    opset: int
    shape: tuple[int, ...]
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    exclude_pad: bool
    rounding: str
    auto_pad: str
    dilations: tuple[int, ...] | None
    dtype: str = "f32"

    def node(self, data: ov.Node) -> ov.Node:
        args = (data, list(self.strides), list(self.pads_begin), list(self.pads_end), list(self.kernel),
                self.exclude_pad, self.rounding, None if self.auto_pad == "explicit" else self.auto_pad)
        if self.opset == 16:  # dilations=None builds a node whose compilation crashes the CPU plugin
            return ops16.avg_pool(*args, dilations=list(self.dilations or (1,) * len(self.kernel)))
        return (ops1 if self.opset == 1 else ops14).avg_pool(*args)

    def ours(self, x: np.ndarray) -> np.ndarray:
        return avg_pool(x, self.kernel, self.strides, self.pads_begin, self.pads_end, self.exclude_pad,
                        self.rounding, self.auto_pad, self.dilations)


@dataclass(frozen=True)
class AdaptiveCase:
    shape: tuple[int, ...]
    output_size: tuple[int, ...]
    dtype: str = "f32"

    def node(self, data: ov.Node) -> ov.Node:
        return ops8.adaptive_avg_pool(data, ops1.constant(np.array(self.output_size, np.int64)))

    def ours(self, x: np.ndarray) -> np.ndarray:
        return adaptive_avg_pool(x, self.output_size)


def random_input(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    if dtype == "i32":
        return rng.integers(-1000, 1001, shape).astype(np.int32)
    if dtype == "i8":
        return rng.integers(-128, 128, shape).astype(np.int8)
    if dtype == "u8":
        return rng.integers(0, 256, shape).astype(np.uint8)
    return rng.standard_normal(shape).astype(DTYPES[dtype])


def random_pool_case(rng: np.random.Generator, opset: int, dtype: str) -> PoolCase:
    """Small shapes, attributes around the edges of validity; about a third are invalid."""
    rank = int(rng.choice([1, 2, 3], p=[0.3, 0.45, 0.25]))
    top = {1: 14, 2: 10, 3: 6}[rank]
    shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4))) + tuple(int(n) for n in rng.integers(1, top, rank))
    kernel = tuple(int(k) for k in rng.integers(1, 5, rank))
    strides = tuple(int(s) for s in rng.integers(1, 5, rank))
    dilations = tuple(int(d) for d in rng.integers(1, 4, rank)) if opset == 16 and rng.random() < 0.6 else None
    pads_begin = tuple(int(p) for p in rng.integers(0, 4, rank))
    pads_end = tuple(int(p) for p in rng.integers(0, 4, rank))
    roundings = ["floor", "ceil"] + (["ceil_torch"] if opset >= 14 else [])
    return PoolCase(opset, shape, kernel, strides, pads_begin, pads_end, bool(rng.random() < 0.5),
                    str(rng.choice(roundings)), str(rng.choice(AUTO_PADS, p=[0.55, 0.15, 0.15, 0.15])),
                    dilations, dtype)


def random_adaptive_case(rng: np.random.Generator, dtype: str) -> AdaptiveCase:
    rank = int(rng.integers(1, 4))
    top = {1: 30, 2: 16, 3: 8}[rank]
    shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4))) + tuple(int(n) for n in rng.integers(1, top, rank))
    # output sizes from 1 to about twice the input length: upsampling included
    sizes = tuple(int(rng.integers(1, 2 * n + 2)) for n in shape[2:])
    return AdaptiveCase(shape, sizes, dtype)


def openvino_builds(case: PoolCase) -> bool:
    """Whether OpenVINO's Python API accepts the node (its shape inference validates the attributes)."""
    try:
        case.node(ops1.parameter(list(case.shape), ov.Type(DTYPES[case.dtype])))
    except RuntimeError:
        return False
    return True


def i32_compiles(case: PoolCase) -> bool:
    """OpenVINO CPU compiles i32 AvgPool only without dilations and without windows that have no data."""
    return (case.dilations is None or set(case.dilations) == {1}) and not has_empty_window(case)


def compiles_on_this_cpu(case: PoolCase) -> bool:
    """False for the i32 AvgPools OpenVINO CPU cannot compile below AVX-512 (module doc): one channel and
    N * prod(min(input, output length)) < 4, the f32 vector of SSE4.1, the last kernel oneDNN tries."""
    if not isinstance(case, PoolCase) or case.dtype != "i32" or case.shape[1] != 1 or openvino_cpu_isa() == AVX512:
        return True
    out = case.node(ops1.parameter(list(case.shape), ov.Type(np.int32))).get_output_shape(0)
    return case.shape[0] * int(np.prod([min(n, o) for n, o in zip(case.shape[2:], out[2:], strict=True)])) >= 4


def has_empty_window(case: PoolCase) -> bool:
    """Some window has no data tap (ceil rounding can make them)."""
    dil = case.dilations or (1,) * len(case.kernel)
    geo = pool_geometry(tuple(Dim(n, n) for n in case.shape), case.kernel, case.strides, dil, case.pads_begin,
                        case.pads_end, case.auto_pad, case.rounding, case.exclude_pad)
    return any(
        np.any(window_counts(n, k, s, d, pb, o.lo) == 0)
        for n, k, s, d, pb, o in zip(case.shape[2:], case.kernel, case.strides, dil, geo.pads_begin, geo.spatial,
                                     strict=True)
    )


def harness_case(case: PoolCase | AdaptiveCase, x: np.ndarray) -> Case:
    """The case for ``run_cases``: within TOLERANCES, NaN positions and the sign of zeros (empty windows give -0.0
    or 0.0) equal, ours adjusted to this CPU (``here``)."""
    rtol, atol = TOLERANCES[case.dtype]
    return Case(str(case), [x], lambda ps: case.node(ps[0]), (tolerance(rtol, atol),), signed_zeros=True,
                here=here(case, x))


@dataclass
class Suite:
    """Generated cases split by outcome, with both implementations' results."""

    valid: list
    inputs: list[np.ndarray]
    invalid: list[PoolCase]
    uncompilable: list[PoolCase]  # valid, but OpenVINO CPU cannot compile them on this CPU (module doc)


def _pool_cases(rng: np.random.Generator, dtype: str, count: int, opsets: tuple[int, ...]) -> tuple[list, list, list]:
    valid, invalid, uncompilable = [], [], []
    while len(valid) < count:
        case = random_pool_case(rng, int(rng.choice(opsets)), dtype)
        if not openvino_builds(case):
            invalid.append(case)
        elif dtype != "i32" or i32_compiles(case):
            (valid if compiles_on_this_cpu(case) else uncompilable).append(case)
    return valid, invalid, uncompilable


@pytest.fixture(scope="module")
def suite() -> Suite:
    rng = np.random.default_rng(SEED)
    valid, invalid, uncompilable = [], [], []
    for dtype, count, opsets in (
        ("f32", 2600, (1, 14, 16)),
        ("f16", 300, (1, 14, 16)),
        ("i32", 150, (1, 14)),
        ("i8", 120, (1, 14, 16)),
        ("u8", 120, (1, 14, 16)),
    ):
        v, i, u = _pool_cases(rng, dtype, count, opsets)
        valid += v
        invalid += i
        uncompilable += u
    for dtype, count in (("f32", 500), ("f16", 60), ("i32", 40), ("u8", 40)):
        cases: list[AdaptiveCase] = []
        while len(cases) < count:
            case = random_adaptive_case(rng, dtype)
            # OpenVINO CPU computes an 8-bit AdaptiveAvgPool to size 1 as a mean that saturates the sum
            # in the input type and truncates (u8 4 x 100 gives 63): a defect we do not copy
            if dtype != "u8" or set(case.output_size) != {1}:
                cases.append(case)
        valid += cases
    inputs = [random_input(rng, case.shape, case.dtype) for case in valid]
    return Suite(valid, inputs, invalid, uncompilable)


def here(case: PoolCase | AdaptiveCase, x: np.ndarray) -> Callable[[np.ndarray], np.ndarray] | None:
    """What OpenVINO CPU gives on this CPU instead of our kernel's result: for an i32 AdaptiveAvgPool to size 1
    below AVX-512, the exact mean truncated toward zero (module doc); None elsewhere."""
    if (isinstance(case, AdaptiveCase) and case.dtype == "i32" and set(case.output_size) == {1}
            and openvino_cpu_isa() != AVX512):
        mean = np.trunc(x.astype(np.float64).mean(axis=tuple(range(2, x.ndim)), keepdims=True)).astype(np.int32)
        return lambda y: mean
    return None


def _check(suite: Suite, select: Callable[[PoolCase | AdaptiveCase], bool], tmp_path: Path) -> tuple[int, list[str]]:
    cases = [harness_case(c, x) for c, x in zip(suite.valid, suite.inputs, strict=True) if select(c)]
    return len(cases), run_cases(cases, tmp_path, per_model=BATCH)


@pytest.mark.parametrize("dtype", ["f32", "f16", "i32", "i8", "u8"])
def test_avg_pool_matches_openvino(suite: Suite, dtype: str, tmp_path: Path) -> None:
    count, failures = _check(suite, lambda c: isinstance(c, PoolCase) and c.dtype == dtype, tmp_path)
    assert count >= 100
    assert not failures, f"{len(failures)} of {count} cases differ, e.g.\n" + "\n".join(failures[:5])


@pytest.mark.parametrize("dtype", ["f32", "f16", "i32", "u8"])
def test_adaptive_avg_pool_matches_openvino(suite: Suite, dtype: str, tmp_path: Path) -> None:
    count, failures = _check(suite, lambda c: isinstance(c, AdaptiveCase) and c.dtype == dtype, tmp_path)
    assert count >= 40
    assert not failures, f"{len(failures)} of {count} cases differ, e.g.\n" + "\n".join(failures[:5])


def test_suite_covers_the_semantics(suite: Suite) -> None:
    """The random cases reach every feature the kernels claim, including windows with no data."""
    pools = [(c, x) for c, x in zip(suite.valid, suite.inputs, strict=True) if isinstance(c, PoolCase)]
    assert len(suite.valid) >= 3000
    assert {c.opset for c, _ in pools} == {1, 14, 16}
    assert {c.auto_pad for c, _ in pools} == set(AUTO_PADS)
    assert {c.rounding for c, _ in pools} == {"floor", "ceil", "ceil_torch"}
    assert {len(c.kernel) for c, _ in pools} == {1, 2, 3}
    assert sum(c.dilations is not None and max(c.dilations) > 1 for c, _ in pools) >= 200
    assert sum(c.pads_begin != c.pads_end and c.auto_pad == "explicit" for c, _ in pools) >= 500
    assert sum(bool(np.isnan(c.ours(x)).any()) for c, x in pools if c.dtype == "f32") >= 50  # OpenVINO's too
    assert sum(has_empty_window(c) for c, _ in pools if c.dtype in ("i8", "u8")) >= 10
    adaptive = [c for c in suite.valid if isinstance(c, AdaptiveCase)]
    assert sum(any(o > n for o, n in zip(c.output_size, c.shape[2:], strict=True)) for c in adaptive) >= 100


def test_i32_cases_openvino_cannot_compile_here(suite: Suite) -> None:
    """The drawn i32 cases the module doc says OpenVINO CPU cannot compile on this CPU (none on AVX-512; 18 of
    this seed on AVX2) fail to compile one by one, with the plugin's words; our kernel computes them."""
    assert all(compiles_on_this_cpu(c) for c in suite.valid)
    if openvino_cpu_isa() == AVX512:
        assert not suite.uncompilable
    core = ov.Core()
    for case in suite.uncompilable:
        param = ops1.parameter(list(case.shape), ov.Type(np.int32))
        with pytest.raises(RuntimeError, match="Supported primitive descriptors list is empty"):
            core.compile_model(ov.Model([ops1.result(case.node(param))], [param]), "CPU", CPU_CONFIG)
        assert case.ours(np.ones(case.shape, np.int32)).dtype == np.int32


def test_invalid_attributes_raise_exactly_when_openvino_does(suite: Suite) -> None:
    """Drawn attribute sets OpenVINO rejects must make our kernel raise; the accepted ones are checked above."""
    assert len(suite.invalid) >= 300
    silent = []
    for case in suite.invalid:
        x = np.zeros(case.shape, DTYPES[case.dtype])
        try:
            case.ours(x)
        except OpValidationError:
            continue
        silent.append(str(case))
    assert not silent, f"{len(silent)} cases OpenVINO rejects run without error, e.g.\n" + "\n".join(silent[:5])


WORKED_EXAMPLES = [  # docs/SEMANTICS.md section 3; x = 1, 2, 3, ...
    PoolCase(14, (1, 1, 4), (3,), (2,), (1,), (1,), False, "ceil_torch", "explicit", None),
    PoolCase(1, (1, 1, 5), (2,), (2,), (1,), (1,), True, "ceil", "explicit", None),
    PoolCase(1, (1, 1, 5), (2,), (2,), (1,), (1,), False, "ceil", "explicit", None),
    PoolCase(14, (1, 1, 5), (2,), (2,), (1,), (1,), True, "ceil_torch", "explicit", None),
    PoolCase(1, (1, 1, 2), (1,), (2,), (0,), (0,), True, "ceil", "same_upper", None),
    PoolCase(1, (1, 1, 9), (2,), (3,), (0,), (0,), True, "ceil", "explicit", None),
    PoolCase(1, (1, 1, 9), (2,), (3,), (0,), (0,), False, "ceil", "explicit", None),
    PoolCase(1, (1, 1, 6), (3,), (2,), (1,), (1,), False, "ceil", "explicit", None),
    # found while writing these tests: a window past the end gives -0.0, not NaN
    PoolCase(1, (1, 1, 3), (3,), (3,), (2,), (2,), True, "ceil", "explicit", None),
]


@pytest.mark.parametrize("case", WORKED_EXAMPLES, ids=lambda c: f"L{c.shape[-1]}-K{c.kernel[0]}-{c.rounding}")
def test_semantics_worked_examples(case: PoolCase, tmp_path: Path) -> None:
    x = np.arange(1, case.shape[-1] + 1, dtype=np.float32).reshape(case.shape)
    assert_all_pass([harness_case(case, x)], tmp_path)


def test_kernel_larger_than_padded_input_is_an_error() -> None:
    case = PoolCase(1, (1, 1, 2), (4,), (1,), (0,), (1,), False, "ceil", "explicit", None)
    assert not openvino_builds(case)
    with pytest.raises(OpValidationError):
        case.ours(np.ones(case.shape, np.float32))


@pytest.mark.parametrize("sizes", [[0, 3], [-2, 3], [2, 0]])
def test_adaptive_output_size_zero_is_an_empty_output(sizes: list[int]) -> None:
    """OpenVINO reads an output_size of 0 (or a negative one) as an empty axis and outputs an empty tensor."""
    x = np.arange(72, dtype=np.float32).reshape(1, 2, 6, 6)
    param = ops8.parameter(list(x.shape), np.float32)
    model = ov.Model([ops8.adaptive_avg_pool(param, ops1.constant(np.array(sizes, np.int64)))], [param])
    (want,) = ov.Core().compile_model(model, "CPU", CPU_CONFIG)(x).values()
    got = adaptive_avg_pool(x, sizes)
    assert got.shape == want.shape and got.dtype == want.dtype and got.size == 0
