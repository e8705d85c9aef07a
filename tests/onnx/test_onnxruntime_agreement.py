"""Seeded ONNX AveragePool cases: OpenVINO on our IR equals onnxruntime.

2,400 cases (seed 20261122), 400 per opset 1, 7, 10, 11, 19 and 22, batched 200 to a model: one
onnxruntime session and one OpenVINO compile per batch. Per case: 1-D, 2-D or 3-D, kernel 1-4,
stride 1-3, asymmetric pads below the kernel (onnxruntime rejects pads >= kernel), auto_pad
NOTSET / SAME_UPPER / SAME_LOWER / VALID, and where the opset has them count_include_pad,
ceil_mode and dilations 1-3. Cases whose ONNX output would be empty are not drawn; kernels
larger than the padded input in ceil mode (ONNX gives one window) are.

onnxruntime has no AveragePool-1 kernel: opset 1 cases are compared with the same node under
opset 7, which only added count_include_pad (default 0), so the semantics are identical.

Exclusions, the onnxruntime defects of docs/SEMANTICS.md section 5, by rule and in this order:

- ``same_negative_pad`` (130 cases): SAME_* where onnxruntime's pad
  ``(ceil(L/S) - 1)*S + K - L`` is negative on an axis (it then reads from the wrong start, or
  fails with "padding values must be non-negative").
- ``same_dilations`` (75 more cases): SAME_* with a dilation > 1 (onnxruntime sizes the pads
  with the undilated kernel).

Not a defect but undefined: with count_include_pad=0 a dilated window can have no tap in the
data (0/0). onnxruntime gives 0 (onnx.reference NaN); our IR gives NaN, as the WindowSpec says.
Those windows are found with onnxruntime itself (on an all-ones input it gives 0 exactly there),
asserted to be NaN in ours, and every other element of those cases is compared as usual; 3
cases have such windows. 2,195 cases are compared.

An OpenVINO CPU defect below AVX-512: on a 1-channel 3-D input OpenVINO runs a dilated GroupConvolution as a
plain Convolution (jit_avx2_f32 on AVX2) that gives wrong numbers for some dilated kernels, not even the same ones
from run to run (measured on AVX2: 3 of 32 random 1-channel 3-D dilated convolutions off by 0.6 to 1e32; with 2
channels, or 2-D, none). Our IR summed dilated windows with a GroupConvolution; it now adds strided slices
(``exact_pool._tap_sum``), so no case should hit it (not yet measured on AVX2). Below AVX-512 a case of that form
(one channel, 3-D, a dilation > 1) that OpenVINO gets wrong is still counted in ``openvino_cpu_defect`` and its IR
is run by our reference executor instead, which must equal onnxruntime.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from ir_tools.onnx import from_onnx
from ir_tools.runtime.executor import run
from ir_tools.runtime.openvino import run_openvino
from tests.cpu_isa import AVX512, openvino_cpu_isa
from tests.onnx.models import make_model

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 20261122
OPSETS = (1, 7, 10, 11, 19, 22)
PER_OPSET = 400
BATCH = 200
EXPECTED_EXCLUDED = {"same_negative_pad": 130, "same_dilations": 75}
EXPECTED_ZERO_BY_ZERO = 3


@dataclass
class Case:
    opset: int
    shape: tuple[int, ...]
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads: tuple[int, ...]
    auto_pad: str
    ceil_mode: int
    count_include_pad: int
    attrs: dict = field(default_factory=dict)  # only what the node spells out (defaults left out)

    @property
    def lengths(self) -> tuple[int, ...]:
        return self.shape[2:]


def _draw(rng: np.random.Generator, opset: int) -> Case:
    """One random case whose ONNX output is not empty."""
    while True:
        n = int(rng.integers(1, 4))
        lengths = [int(rng.integers(1, {1: 13, 2: 9, 3: 6}[n])) for _ in range(n)]
        kernel = [int(rng.integers(1, 5 if n < 3 else 4)) for _ in range(n)]
        attrs: dict = {"kernel_shape": kernel}
        strides = [1] * n
        if rng.random() < 0.8:
            strides = attrs["strides"] = [int(rng.integers(1, 4)) for _ in range(n)]
        dilations = [1] * n
        if opset >= 19 and rng.random() < 0.5:
            dilations = attrs["dilations"] = [int(rng.integers(1, 4)) for _ in range(n)]
        auto_pad = str(rng.choice(["NOTSET"] * 5 + ["SAME_UPPER", "SAME_LOWER", "VALID"]))
        pads = [0] * (2 * n)
        if auto_pad != "NOTSET":
            attrs["auto_pad"] = auto_pad
        elif rng.random() < 0.8:
            pads = attrs["pads"] = [int(rng.integers(0, k)) for k in kernel * 2]
        flags = {}
        for flag, since in (("count_include_pad", 7), ("ceil_mode", 10)):
            flags[flag] = int(opset >= since and rng.random() < 0.5)
            if flags[flag]:
                attrs[flag] = 1
        case = Case(opset, (1, int(rng.integers(1, 3)), *lengths), tuple(kernel), tuple(strides), tuple(dilations),
                    tuple(pads), auto_pad, flags["ceil_mode"], flags["count_include_pad"], attrs)
        if not _empty(case):
            return case


def _empty(c: Case) -> bool:
    """ONNX's window count ``ceil_or_floor((P - Kd) / S) + 1`` is below 1 on some axis (SAME never is)."""
    if c.auto_pad.startswith("SAME"):
        return False
    n = len(c.kernel)
    for i in range(n):
        short = c.dilations[i] * (c.kernel[i] - 1) + 1 - (c.lengths[i] + c.pads[i] + c.pads[n + i])
        if short > 0 and not (c.ceil_mode and short < c.strides[i]):
            return True
    return False


def _exclusion(c: Case) -> str | None:
    """The docs/SEMANTICS.md section 5 onnxruntime defect a case hits, by rule, or None."""
    if not c.auto_pad.startswith("SAME"):
        return None
    if any((-(-L // s) - 1) * s + k - L < 0 for L, k, s in zip(c.lengths, c.kernel, c.strides, strict=True)):
        return "same_negative_pad"
    if any(d > 1 for d in c.dilations):
        return "same_dilations"
    return None


def _model(cases: list[Case], opset: int) -> onnx.ModelProto:
    nodes, inputs, outputs = [], [], []
    for i, c in enumerate(cases):
        nodes.append(helper.make_node("AveragePool", [f"x{i}"], [f"y{i}"], name=f"pool{i}", **c.attrs))
        inputs.append(helper.make_tensor_value_info(f"x{i}", TensorProto.FLOAT, c.shape))
        outputs.append(helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, [None] * len(c.shape)))
    graph = helper.make_graph(nodes, f"batch_opset{opset}", inputs, outputs)
    return make_model(graph, opset)


def _onnxruntime(model: onnx.ModelProto, feeds: list[dict[str, np.ndarray]]) -> list[list[np.ndarray]]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return [session.run(None, feed) for feed in feeds]


@dataclass
class Outcome:
    compared: int = 0
    excluded: Counter = field(default_factory=Counter)
    zero_by_zero: int = 0
    mismatches: list[str] = field(default_factory=list)
    openvino_cpu_defect: list[str] = field(default_factory=list)  # module doc: checked with our executor
    coverage: Counter = field(default_factory=Counter)
    seconds: float = 0.0


def _coverage(c: Case) -> list[str]:
    n = len(c.kernel)
    tags = [f"{n}-D", f"opset{c.opset}", c.auto_pad]
    if c.ceil_mode and c.count_include_pad:
        tags.append("ceil_mode+count_include_pad")
    if c.pads[:n] != c.pads[n:]:
        tags.append("asymmetric pads")
    if any(d > 1 for d in c.dilations):
        tags.append("dilations")
    if any(c.dilations[i] * (c.kernel[i] - 1) + 1 > c.lengths[i] + c.pads[i] + c.pads[n + i] for i in range(n)):
        tags.append("kernel past padded input")
    return tags


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    start = time.perf_counter()
    rng = np.random.default_rng(SEED)
    result = Outcome()
    folder: Path = tmp_path_factory.mktemp("ort_agreement")
    for opset in OPSETS:
        drawn = [_draw(rng, opset) for _ in range(PER_OPSET)]
        for c in drawn:
            reason = _exclusion(c)
            if reason:
                result.excluded[reason] += 1
        kept = [c for c in drawn if _exclusion(c) is None]
        for first in range(0, len(kept), BATCH):
            batch = kept[first:first + BATCH]
            feed = {f"x{i}": rng.standard_normal(c.shape).astype(np.float32) for i, c in enumerate(batch)}
            ones = {name: np.ones_like(value) for name, value in feed.items()}
            path = folder / f"opset{opset}_{first}.onnx"
            onnx.save(_model(batch, opset), path)
            expected, on_ones = _onnxruntime(_model(batch, max(opset, 7)), [feed, ones])
            graph = from_onnx(path)
            got = run_openvino(graph, feed).outputs
            ours = None
            for i, c in enumerate(batch):
                result.compared += 1
                result.coverage.update(_coverage(c))
                if _defect_form(c) and not np.allclose(got[f"y{i}"], expected[i], rtol=1e-5, atol=1e-6,
                                                       equal_nan=True):
                    result.openvino_cpu_defect.append(str(c))
                    ours = run(graph, feed) if ours is None else ours
                    _compare(result, c, ours[f"y{i}"], expected[i], on_ones[i])
                    continue
                _compare(result, c, got[f"y{i}"], expected[i], on_ones[i])
    result.seconds = time.perf_counter() - start
    return result


def _defect_form(c: Case) -> bool:
    """The form OpenVINO CPU may compute wrongly below AVX-512 (module doc): one channel, 3-D, dilated."""
    return openvino_cpu_isa() != AVX512 and c.shape[1] == 1 and len(c.kernel) == 3 and max(c.dilations) > 1


def _compare(result: Outcome, c: Case, got: np.ndarray, want: np.ndarray, want_on_ones: np.ndarray) -> None:
    if got.shape != want.shape:
        result.mismatches.append(f"{c}: shape {got.shape}, onnxruntime {want.shape}")
        return
    undefined = (want_on_ones == 0) & (c.count_include_pad == 0)  # 0/0: no tap in the data
    if undefined.any():
        result.zero_by_zero += 1
        if not np.isnan(got[undefined]).all():
            result.mismatches.append(f"{c}: a window with no data is not NaN")
    try:
        np.testing.assert_allclose(got[~undefined], want[~undefined], rtol=1e-5, atol=1e-6)
    except AssertionError as exc:
        result.mismatches.append(f"{c}: {exc}")


def test_openvino_equals_onnxruntime(outcome: Outcome) -> None:
    print(f"\n{outcome.compared} cases compared in {outcome.seconds:.1f} s; excluded {dict(outcome.excluded)}; "
          f"{outcome.zero_by_zero} with 0/0 windows; coverage {dict(sorted(outcome.coverage.items()))}")
    assert not outcome.mismatches, "\n".join(outcome.mismatches[:10])
    assert outcome.compared + sum(outcome.excluded.values()) == PER_OPSET * len(OPSETS)
    assert outcome.compared == 2195
    assert len(outcome.openvino_cpu_defect) <= 5, outcome.openvino_cpu_defect  # a few, not a new defect


def test_exclusion_counts_as_documented(outcome: Outcome) -> None:
    assert dict(outcome.excluded) == EXPECTED_EXCLUDED
    assert outcome.zero_by_zero == EXPECTED_ZERO_BY_ZERO


def test_tricky_cases_covered(outcome: Outcome) -> None:
    wanted = ["1-D", "2-D", "3-D", "SAME_UPPER", "SAME_LOWER", "VALID", "ceil_mode+count_include_pad",
              "asymmetric pads", "dilations", "kernel past padded input", *(f"opset{o}" for o in OPSETS)]
    assert all(outcome.coverage[tag] >= 20 for tag in wanted), outcome.coverage


DYNAMIC = {
    "1-D count_include_pad, asymmetric pads": {"kernel_shape": [3], "strides": [2], "pads": [1, 2],
                                               "count_include_pad": 1},
    "2-D exclude pad": {"kernel_shape": [2, 3], "strides": [1, 2], "pads": [1, 0, 0, 2]},
    "2-D VALID": {"kernel_shape": [3, 2], "strides": [2, 1], "auto_pad": "VALID"},
}


@pytest.mark.parametrize("attrs", DYNAMIC.values(), ids=DYNAMIC.keys())
def test_symbolic_lengths_are_one_avgpool(attrs: dict, tmp_path: Path) -> None:
    """Floor mode without dilations or SAME does not depend on L: one AvgPool-1, exact for every length."""
    rank = len(attrs["kernel_shape"])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2, *(f"L{i}" for i in range(rank))])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [None] * (rank + 2))
    graph = helper.make_graph([helper.make_node("AveragePool", ["x"], ["y"], **attrs)], "g", [x], [y])
    model = make_model(graph, 11)
    onnx.save(model, tmp_path / "m.onnx")
    ir = from_onnx(tmp_path / "m.onnx")
    assert [layer.type for layer in ir.layers()] == ["Parameter", "AvgPool", "Result"]
    rng = np.random.default_rng(SEED)
    for length in range(3, 10):
        feed = {"x": rng.standard_normal((2, 2, *[length] * rank)).astype(np.float32)}
        (want,) = _onnxruntime(model, [feed])[0]
        np.testing.assert_allclose(run_openvino(ir, feed).outputs["y"], want, rtol=1e-5, atol=1e-6)
