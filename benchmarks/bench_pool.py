"""Time ir_tools' numpy pooling kernels against OpenVINO CPU (1 and 2 threads) and onnxruntime.

Run ``python benchmarks/bench_pool.py``. Each case first checks that our output matches OpenVINO's
(and that the onnxruntime model is an equivalent one), so a fast but wrong kernel cannot pass; the
"=OV" column says whether ours equals OpenVINO's bit for bit, else the largest difference in ulps of
the window's mean |x| (the scale of its rounding; ulps of a result near 0 would say little).
Times are the best of several interleaved rounds (so load changes hit every runner alike); the
table gives ours / theirs, below 1.0 means ours is faster. Our kernels run on one thread: numpy's
element-wise loops are single-threaded and every BLAS and OpenMP pool is pinned to one thread here
(before numpy loads them), so OV-1 (INFERENCE_NUM_THREADS 1) is the fair comparison. onnxruntime
also runs with one thread; it has no AdaptiveAvgPool.
"""

from __future__ import annotations

import os

for _pool in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # before numpy loads BLAS
    os.environ[_pool] = "1"

import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import openvino as ov  # noqa: E402
import openvino.opset1 as ops1  # noqa: E402
import openvino.opset8 as ops8  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ir_tools.ops import adaptive_avg_pool, avg_pool  # noqa: E402

ROUNDS = 15
ROUND_SECONDS = 0.01  # each round calls a runner repeatedly for about this long; a round's time is the mean


@dataclass
class Case:
    name: str
    shape: tuple[int, ...]
    kernel: list[int] = field(default_factory=list)
    stride: list[int] = field(default_factory=list)
    pads: list[int] = field(default_factory=list)
    exclude_pad: bool = True
    rounding: str = "floor"
    adaptive: list[int] | None = None


def _case(name, shape, k, s, p, exclude_pad=True, rounding="floor") -> Case:
    n = len(shape) - 2
    return Case(name, shape, [k] * n, [s] * n, [p] * n, exclude_pad, rounding)


CASES = [
    _case("k3 s2 p1 excl 112", (1, 64, 112, 112), 3, 2, 1, True),
    _case("k3 s1 p1 incl 56", (1, 256, 56, 56), 3, 1, 1, False),
    _case("k2 s2 14 N8", (8, 512, 14, 14), 2, 2, 0),
    _case("k7 global 7x7", (1, 2048, 7, 7), 7, 1, 0),
    _case("3-D k3 s2 p1", (1, 32, 16, 64, 64), 3, 2, 1, True),
    _case("k3 s2 ceil 112", (1, 64, 112, 112), 3, 2, 0, True, "ceil"),
    Case("adaptive 13->7", (1, 512, 13, 13), adaptive=[7, 7]),
    Case("adaptive 100->6", (1, 64, 100, 100), adaptive=[6, 6]),
]


def ours_runner(case: Case, x: np.ndarray) -> Callable[[], np.ndarray]:
    if case.adaptive is not None:
        return lambda: adaptive_avg_pool(x, case.adaptive)
    return lambda: avg_pool(x, case.kernel, case.stride, case.pads, case.pads, case.exclude_pad, case.rounding)


def openvino_runner(case: Case, x: np.ndarray, threads: int) -> Callable[[], np.ndarray]:
    """An infer call on a request whose input tensor shares ``x`` (no copy is timed)."""
    p = ops1.parameter(x.shape, ov.Type.f32)
    if case.adaptive is not None:
        node = ops8.adaptive_avg_pool(p, ops1.constant(np.array(case.adaptive, np.int64)))
    else:
        node = ops1.avg_pool(p, case.stride, case.pads, case.pads, case.kernel, case.exclude_pad, case.rounding)
    config = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": threads}
    request = ov.Core().compile_model(ov.Model([node.output(0)], [p]), "CPU", config).create_infer_request()
    request.set_input_tensor(ov.Tensor(x, shared_memory=True))

    def run() -> np.ndarray:
        request.infer()
        return request.get_output_tensor().data

    return run


def onnxruntime_runner(case: Case, x: np.ndarray) -> Callable[[], np.ndarray] | None:
    """onnxruntime AveragePool (1 thread) where its semantics equal OpenVINO's for this case, else None."""
    if case.adaptive is not None:
        return None
    import onnxruntime as ort
    from onnx import TensorProto, helper

    node = helper.make_node(
        "AveragePool",
        ["x"],
        ["y"],
        kernel_shape=case.kernel,
        strides=case.stride,
        pads=case.pads * 2,
        count_include_pad=int(not case.exclude_pad),
        ceil_mode=int(case.rounding == "ceil"),  # ONNX ceil_mode is ceil_torch: same windows when unpadded
    )
    graph = helper.make_graph(
        [node],
        "pool",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    model.ir_version = 9
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return lambda: session.run(None, {"x": x})[0]


def best_times(runners: dict[str, Callable[[], object]]) -> dict[str, float]:
    """Best per-call time of each runner over interleaved rounds."""
    repeats = {}
    for name, run in runners.items():
        run()
        t = time.perf_counter()
        run()
        repeats[name] = max(1, int(ROUND_SECONDS / max(time.perf_counter() - t, 1e-6)))
    best = {name: float("inf") for name in runners}
    for _ in range(ROUNDS):
        for name, run in runners.items():
            t = time.perf_counter()
            for _ in range(repeats[name]):
                run()
            best[name] = min(best[name], (time.perf_counter() - t) / repeats[name])
    return best


def main() -> None:
    rng = np.random.default_rng(0)
    load_before = os.getloadavg()[0]
    rows = []
    for case in CASES:
        x = rng.standard_normal(case.shape, dtype=np.float32)
        runners: dict[str, Callable[[], object]] = {
            "ours": ours_runner(case, x),
            "ov1": openvino_runner(case, x, 1),
            "ov2": openvino_runner(case, x, 2),
        }
        ort_run = onnxruntime_runner(case, x)
        if ort_run is not None:
            runners["ort"] = ort_run
        expected = np.array(runners["ov1"]())
        got = runners["ours"]()
        if got.shape != expected.shape or not np.allclose(got, expected, rtol=1e-5, atol=1e-6, equal_nan=True):
            raise SystemExit(f"{case.name}: our output differs from OpenVINO's")
        if ort_run is not None and not np.allclose(ort_run(), expected, rtol=1e-5, atol=1e-6):
            raise SystemExit(f"{case.name}: the onnxruntime case is not equivalent")
        ulps = np.max(np.abs(got - expected) / np.spacing(ours_runner(case, np.abs(x))()))
        rows.append((case, "yes" if np.array_equal(got, expected) else f"{ulps:.0f}ulp", best_times(runners)))

    print(f"{'case':<20} {'shape':<20} {'=OV':>6} {'ours us':>8} {'OV1 us':>8} {'OV2 us':>8} {'ORT us':>8}"
          f" {'/OV1':>6} {'/OV2':>6} {'/ORT':>6}")
    ratios: dict[str, list[float]] = {"ov1": [], "ov2": [], "ort": []}
    for case, bits, t in rows:
        cells = []
        for key in ratios:
            if key in t:
                ratios[key].append(t["ours"] / t[key])
                cells.append(f"{t['ours'] / t[key]:6.2f}")
            else:
                cells.append(f"{'-':>6}")
        ort_us = f"{t['ort'] * 1e6:8.0f}" if "ort" in t else f"{'-':>8}"
        print(f"{case.name:<20} {str(case.shape):<20} {bits:>6} {t['ours'] * 1e6:8.0f} {t['ov1'] * 1e6:8.0f}"
              f" {t['ov2'] * 1e6:8.0f} {ort_us} {' '.join(cells)}")
    means = [float(np.exp(np.mean(np.log(r)))) if r else float("nan") for r in ratios.values()]
    print(f"{'geometric mean':<76} {means[0]:6.2f} {means[1]:6.2f} {means[2]:6.2f}")
    worst = max(ratios["ov1"])
    print(f"target: geometric mean of ours/OV1 <= 1.0 and no case above 2.0; got {means[0]:.2f}, worst {worst:.2f}")
    print("threads: ours 1 (OPENBLAS/OMP/MKL_NUM_THREADS=1), OV1 and OV2 INFERENCE_NUM_THREADS 1 and 2, ORT 1;"
          f" 1-minute load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after ({os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
