"""Build the zoo of real networks as ONNX files: torchvision classifiers and small networks with disputed pooling.

Nothing is downloaded: every network has random weights from a fixed seed. The project never imports this
script (it needs torch); the tests and benchmarks that use the zoo only read the files and ``manifest.json``
it writes, and skip when the zoo is not built. CI never builds it.

Install by hand, in a virtual environment outside the repository. PyPI's torchvision wheel is built against
CUDA torch, hence ``--no-deps`` next to the CPU torch (its compiled ops then fail to load; the classifiers
do not use them, see the workaround at the imports):

    python -m venv ~/venv-torch && . ~/venv-torch/bin/activate
    pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
    pip install --no-deps torchvision==0.28.0
    pip install onnx onnxscript onnxruntime numpy
    python scripts/build_zoo.py [--out DIR]

Where: ``--out``, else ``$IR_TOOLS_ZOO``, else ``~/.cache/ir_tools/zoo``. The files are built in a
staging directory inside it and moved into place at the end; files an earlier manifest listed that this
build did not write are removed. About 2.8 GB (92 files); about 5 CPU-minutes, 3 to 8 minutes on 2 cores.

What:

- classifiers (``kind: classifier``): resnet18, googlenet, inception_v3, densenet121 (at an odd size),
  squeezenet1_1, mobilenet_v3_small, efficientnet_b0, shufflenet_v2_x0_5, alexnet and vgg11 (at sizes
  where AdaptiveAvgPool2d does not divide evenly), the transformers maxvit_t, swin_t and vit_b_16, and three small
  transformers made from torchvision's SwinTransformer, VisionTransformer and SwinTransformer3d (video, 4 frames)
  classes (``swin_small_test``, ``vit_small_test``, ``swin3d_small_test``: committed in tests/data/networks; a
  zero-initialised Linear, as ViT's head, gets seeded random weights), with torch.onnx's TorchScript exporter at
  opsets 11 and 17 and a dynamic batch (``<model>[_raw]_op<N>[_dyn].onnx``); resnet18, densenet121,
  squeezenet1_1, mobilenet_v3_small and googlenet also with dynamic height and width (``_dyn``, a
  separate entry). BatchNorm statistics are calibrated on random inputs so activations have a trained
  network's scale; the ``_raw`` variants keep BatchNorm's initial statistics (mean 0, variance 1; models
  without BatchNorm have no ``_raw`` variant). An export the exporter refuses is an entry with
  ``file: null`` and its message; where it refuses every opset, the dynamo exporter at opset 18 is tried
  (``_op18_dynamo.onnx``).
- disputed networks (``kind: disputed``, ``disputed_NN.onnx``): Conv/BatchNorm/ReLU stacks (1-D, 2-D and
  3-D) around one or two AvgPool with ``ceil_mode=True`` whose last window reaches past the end padding,
  most with count_include_pad=True: where OpenVINO's own conversion of AveragePool divides differently
  from ONNX. In the last two, PyTorch drops a last window that starts in the end padding (onnxruntime does
  too; the shapes the exporter declares after that pool are one too long).

``manifest.json`` lists every file with its input, the input shapes to run it at, whether onnxruntime
reproduced torch's output there (1e-3 relative), its ONNX op types and its AveragePool attributes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import shutil
import sys
import tempfile
import time
import warnings
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import torch
from torch import nn

# PyPI's torchvision is built against CUDA torch: its _C.so fails to load on the CPU wheel, and then
# `import torchvision` dies registering fake kernels for ops that do not exist (torchvision::nms).
# Registration is skipped during the import; the classification models use none of those ops.
_register_fake = torch.library.register_fake
torch.library.register_fake = lambda *a, **k: (lambda f: f)  # torchvision's C++ ops need CUDA torch; unused here
import torchvision  # noqa: E402 (after the workaround above)

torch.library.register_fake = _register_fake

DEFAULT_OUT = Path(os.environ.get("IR_TOOLS_ZOO") or Path.home() / ".cache" / "ir_tools" / "zoo")
OPSETS = (11, 17)
DYNAMO_OPSET = 18  # the dynamo exporter needs 18 or later
TOLERANCE = 1e-3  # onnxruntime against torch, relative to the largest output
CALIBRATION_BATCHES = 4


@dataclass(frozen=True)
class Classifier:
    """A torchvision classifier to export; ``side`` is the input's height and width, ``frames`` its length in time
    (video: 5-D). ``builder``: the torchvision function or class that makes it with ``kwargs`` (default: ``name``)."""

    name: str
    side: int
    dynamic_spatial: bool = False
    kwargs: tuple[tuple[str, Any], ...] = ()
    builder: str | None = None
    frames: int | None = None

    def shape(self, batch: int) -> list[int]:
        return [batch, 3, *([self.frames] if self.frames else []), self.side, self.side]


NO_AUX = (("aux_logits", False), ("init_weights", True))
CLASSIFIERS = (
    Classifier("resnet18", 96, True),
    Classifier("googlenet", 96, True, NO_AUX),
    Classifier("inception_v3", 107, False, NO_AUX),  # needs 75 or more
    Classifier("densenet121", 97, True),  # odd lengths into the transitions' AvgPool2d(2, 2)
    Classifier("squeezenet1_1", 96, True),
    Classifier("mobilenet_v3_small", 96, True),
    Classifier("efficientnet_b0", 96),
    Classifier("shufflenet_v2_x0_5", 96),
    Classifier("alexnet", 159),  # features 4x4 -> AdaptiveAvgPool2d((6, 6)): windows of 1 and 2, overlapping
    Classifier("vgg11", 80),  # features 2x2 -> AdaptiveAvgPool2d((7, 7))
    Classifier("maxvit_t", 224),  # attention; its window partition needs 224
    Classifier("swin_t", 96),  # shifted-window attention: ScaledDotProductAttention, ScatterNDUpdate for its masks
    Classifier("vit_b_16", 224),  # a plain vision transformer
    # small transformers (under 1 MB) committed in tests/data/networks, for CI without torch
    Classifier("swin_small_test", 32, kwargs=(("patch_size", [4, 4]), ("embed_dim", 16), ("depths", [2, 2]),
                                              ("num_heads", [2, 4]), ("window_size", [4, 4]), ("num_classes", 10)),
               builder="SwinTransformer"),
    Classifier("vit_small_test", 32, kwargs=(("image_size", 32), ("patch_size", 8), ("num_layers", 2), ("num_heads", 2),
                                             ("hidden_dim", 32), ("mlp_dim", 64), ("num_classes", 10)),
               builder="VisionTransformer"),
    # 3-D shifted windows larger than the input: empty tensors inside (OpenVINO CPU crashed compiling one as an output)
    Classifier("swin3d_small_test", 24, kwargs=(("patch_size", [2, 4, 4]), ("embed_dim", 8), ("depths", [2]),
                                                ("num_heads", [2]), ("window_size", [4, 4, 4]), ("num_classes", 10)),
               builder="video.SwinTransformer3d", frames=4),
)
#: (spatial dims, networks, whether the first pool's last window starts in the end padding and PyTorch drops it)
DISPUTED = ((2, 24, False), (1, 4, False), (3, 4, False), (2, 2, True))


def seed_of(name: str) -> int:
    """A seed that depends on the name only (adding a model leaves the others' weights alone)."""
    return zlib.crc32(name.encode())


def batch_norms(model: nn.Module) -> list[nn.modules.batchnorm._BatchNorm]:
    return [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]


def calibrate(model: nn.Module, shape: list[int], seed: int) -> None:
    """BatchNorm statistics of random normal inputs (cumulative averages): activations keep a trained scale."""
    for norm in batch_norms(model):
        norm.reset_running_stats()
        norm.momentum = None
    generator = torch.Generator().manual_seed(seed)
    model.train()
    with torch.no_grad():
        for _ in range(CALIBRATION_BATCHES):
            model(torch.randn(8, *shape[1:], generator=generator))
    model.eval()


def export(model: nn.Module, path: Path, shape: list[int], opset: int, axes: dict[int, str],
           dynamo: bool) -> str | None:
    """Write ``path`` with one exporter; None, or the exporter's refusal (then no file is left)."""
    before = set(path.parent.iterdir())
    try:
        with warnings.catch_warnings(), quiet():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(shape),), str(path), dynamo=dynamo, opset_version=opset,
                              input_names=["input"], output_names=["logits"], external_data=False,
                              dynamic_axes={"input": axes, "logits": {0: "batch"}})
    except Exception as exc:  # the exporters raise many types; each is a recorded refusal
        path.unlink(missing_ok=True)
        return refusal_text(exc)
    extra = set(path.parent.iterdir()) - before - {path}
    if extra:
        raise RuntimeError(f"the exporter wrote more than {path.name}: {sorted(p.name for p in extra)}")
    return None


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence file descriptors 1 and 2: the exporters' progress and, on a refusal, the TorchScript exporter's
    dump of the whole graph, which its C++ logger writes (torch 2.13 leaves that log always on)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1)
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)


def refusal_text(exc: Exception) -> str:
    """The exporter's message without the TorchScript graph dump that follows it."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text.split('  [Caused by')[0][:400]}"


def verify(model: nn.Module, path: Path, sizes: list[list[int]]) -> dict[str, Any]:
    """onnxruntime against torch at every size, with seeded inputs."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    options.log_severity_level = 3  # stale declared shapes (dropped ceil windows) warn on every run
    worst, scale, sensitivity = 0.0, 0.0, 0.0
    try:
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        for i, shape in enumerate(sizes):
            x = np.random.default_rng(i).standard_normal(shape).astype(np.float32)
            with torch.no_grad():
                want = model(torch.from_numpy(x)).numpy()
            got = session.run(None, {"input": x})[0]
            if got.shape != want.shape or not np.all(np.isfinite(got)):
                return {"verified": False, "max_rel_diff": None, "error": f"shape {got.shape} or not finite"}
            top = float(np.max(np.abs(want)))
            worst = max(worst, float(np.max(np.abs(got - want))) / (top or 1.0))
            scale = max(scale, top)
            sensitivity = max(sensitivity, float(np.max(np.abs(want - want[:1]))) / (top or 1.0))
    except Exception as exc:  # onnxruntime refusing the file is a result too
        return {"verified": False, "max_rel_diff": None, "error": refusal_text(exc)}
    # input_sensitivity: how much the outputs of different inputs in a batch differ, relative to the largest;
    # near 0 means the output hardly depends on the input (activations vanished, as in some _raw variants)
    return {"verified": worst <= TOLERANCE, "max_rel_diff": worst, "output_absmax": scale,
            "input_sensitivity": sensitivity}


def describe(path: Path) -> dict[str, Any]:
    """The file's distinct op types and every AveragePool node's attributes."""
    graph = onnx.load(str(path)).graph
    pools = [{a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
             for node in graph.node if node.op_type == "AveragePool"]
    return {"op_types": sorted({node.op_type for node in graph.node}), "average_pools": pools}


def write_entry(model: nn.Module, path: Path, entry: dict[str, Any], axes: dict[int, str], dynamo: bool) -> dict:
    """Export, verify and describe one file; the manifest entry (``file: None`` when refused)."""
    start = time.perf_counter()
    refused = export(model, path, entry["sizes"][0], entry["opset"], axes, dynamo)
    entry |= {"file": None if refused else path.name, "refused": refused}
    if not refused:
        entry |= verify(model, path, entry["sizes"]) | describe(path)
    report(entry, path, time.perf_counter() - start)
    return entry


def report(entry: dict[str, Any], path: Path, seconds: float) -> None:
    if entry["refused"]:
        print(f"{path.name:<40} refused: {entry['refused'][:100]}", flush=True)
        return
    result = "ok" if entry["verified"] else "DIFFERS"
    diff = entry["max_rel_diff"]
    print(f"{path.name:<40} {path.stat().st_size / 2**20:7.1f} MB  onnxruntime {result} "
          f"(rel {diff if diff is None else f'{diff:.1e}'}, |out| {entry.get('output_absmax', 0):.2g})  "
          f"{seconds:4.1f} s", flush=True)


def build_classifier(spec: Classifier, calibrated: bool) -> nn.Module:
    torch.manual_seed(seed_of(spec.name))
    kwargs = dict(spec.kwargs) if spec.builder else {"weights": None, **dict(spec.kwargs)}
    factory: Any = torchvision.models
    for part in (spec.builder or spec.name).split("."):
        factory = getattr(factory, part)
    model = factory(**kwargs).eval()
    with torch.no_grad():  # torchvision zero-initialises ViT's head: its logits would be the bias alone
        for layer in model.modules():
            if isinstance(layer, nn.Linear) and not layer.weight.any():
                nn.init.normal_(layer.weight, std=layer.in_features**-0.5)
    if calibrated:
        calibrate(model, spec.shape(1), seed_of(spec.name) + 1)
    return model


def classifier_entries(spec: Classifier, model: nn.Module, calibrated: bool, out: Path) -> list[dict]:
    """Every export of one model variant: each opset, static and (for some) dynamic spatial dims."""
    stem = spec.name + ("" if calibrated else "_raw")
    entries = []
    for opset in OPSETS:
        for spatial in (False, True) if spec.dynamic_spatial else (False,):
            entry = classifier_entry(spec, opset, calibrated, spatial)
            axes = {0: "batch", 2: "height", 3: "width"} if spatial else {0: "batch"}
            file = out / f"{stem}_op{opset}{'_dyn' if spatial else ''}.onnx"
            entries.append(write_entry(model, file, entry, axes, dynamo=False))
    if all(e["refused"] for e in entries):
        entry = classifier_entry(spec, DYNAMO_OPSET, calibrated, False) | {"exporter": "dynamo"}
        entries.append(write_entry(model, out / f"{stem}_op{DYNAMO_OPSET}_dynamo.onnx", entry, {0: "batch"}, True))
    return entries


def classifier_entry(spec: Classifier, opset: int, calibrated: bool, spatial: bool) -> dict[str, Any]:
    side = spec.side
    sizes = [spec.shape(1), [2, 3, side + 17, side - 7] if spatial else spec.shape(2)]
    return {"file": None, "model": spec.name, "kind": "classifier", "opset": opset, "exporter": "torchscript",
            "calibrated": calibrated, "dynamic_spatial": spatial,
            "input": {"name": "input", "shape": [None, 3, None, None] if spatial else [None, *spec.shape(1)[1:]]},
            "output": "logits", "sizes": sizes}


def classifiers(out: Path) -> list[dict]:
    entries = []
    for spec in CLASSIFIERS:
        for calibrated in (True, False):
            model = build_classifier(spec, calibrated)
            if not calibrated and not batch_norms(model):
                print(f"{spec.name}: no BatchNorm, so no _raw variant", flush=True)
                continue
            entries += classifier_entries(spec, model, calibrated, out)
    return entries


@dataclass(frozen=True)
class Pool:
    """One AvgPool (ceil_mode=True) and the lengths it sees, per spatial dim."""

    kernel: tuple[int, ...]
    stride: tuple[int, ...]
    pad: tuple[int, ...]
    count_include_pad: bool
    lengths: tuple[int, ...]

    def outputs(self) -> tuple[int, ...]:
        return tuple(pooled_length(*dim)[0] for dim in self.dims())

    def dims(self) -> list[tuple[int, int, int, int]]:
        return list(zip(self.lengths, self.kernel, self.stride, self.pad, strict=True))

    def overhangs(self) -> list[bool]:
        """Per dim: the last window reaches past the end padding."""
        return [(out - 1) * s + k > n + 2 * p for (n, k, s, p), out in zip(self.dims(), self.outputs(), strict=True)]

    def drops(self) -> list[bool]:
        """Per dim: PyTorch dropped a last window that started in the end padding (the new last one cannot
        overhang: it ends before the end padding does)."""
        return [pooled_length(*dim)[1] for dim in self.dims()]

    def disputed(self, dropped: bool) -> bool:
        """Overhangs in every dim; or, when ``dropped``, drops a window in some dims and overhangs in the others."""
        if not dropped:
            return all(self.overhangs())
        return any(self.drops()) and all(o or d for o, d in zip(self.overhangs(), self.drops(), strict=True))

    def as_dict(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "stride": self.stride, "pad": self.pad,
                "count_include_pad": self.count_include_pad, "input": self.lengths, "output": self.outputs(),
                "overhang": self.overhangs(), "dropped_last_window": self.drops()}

    def module(self) -> nn.Module:
        cls = (nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d)[len(self.kernel) - 1]
        return cls(self.kernel, self.stride, self.pad, ceil_mode=True, count_include_pad=self.count_include_pad)


def pooled_length(n: int, k: int, s: int, p: int) -> tuple[int, bool]:
    """PyTorch's ceil-mode output length, and whether it dropped a last window starting in the end padding.

    ONNX shape inference (onnx 1.23) keeps that window before opset 22: ceil((n + 2p - k) / s) + 1. Where
    PyTorch drops it, the shapes the exporter declares after the pool are one too long; onnxruntime drops it.
    """
    out = -(-(n + 2 * p - k) // s) + 1
    dropped = (out - 1) * s >= n + p
    return out - dropped, dropped


def draw_pool(rng: np.random.Generator, lengths: tuple[int, ...], include: bool, dropped: bool = False) -> Pool | None:
    """A random pool over ``lengths``, if it is valid for PyTorch and disputed (see ``Pool.disputed``)."""
    kernel = tuple(int(rng.integers(2, min(5, n) + 1)) for n in lengths)
    stride = tuple(int(rng.integers(1, k + 1)) for k in kernel)
    pad = tuple(int(rng.integers(0, k // 2 + 1)) for k in kernel)
    pool = Pool(kernel, stride, pad, include, lengths)
    return pool if pool.disputed(dropped) else None


def draw_case(rng: np.random.Generator, dims: int, include: bool, two: bool,
              dropped: bool) -> tuple[tuple[int, ...], list[Pool]]:
    """Input lengths and one or two disputed pools (the second one sees the first one's output); ``dropped``:
    the first one drops a last window that starts in the end padding."""
    high = 24 if dims < 3 else 11
    while True:
        lengths = tuple(int(rng.integers(5, high)) for _ in range(dims))
        pools = [draw_pool(rng, lengths, include, dropped)]
        if pools[0] and two and min(pools[0].outputs()) >= 2:
            pools.append(draw_pool(rng, pools[0].outputs(), include))
        if all(pools) and (len(pools) == 2) == two:
            return lengths, pools


class Disputed(nn.Sequential):
    """Conv/BatchNorm/ReLU around each overhanging AvgPool, then a 1x1 conv and a linear layer on every value."""

    def __init__(self, pools: list[Pool], channels: int = 8):
        dims = len(pools[0].kernel)
        conv = (nn.Conv1d, nn.Conv2d, nn.Conv3d)[dims - 1]
        norm = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)[dims - 1]
        layers: list[nn.Module] = []
        for i, pool in enumerate(pools):
            layers += [conv(3 if i == 0 else channels, channels, 3, padding=1), norm(channels), nn.ReLU(),
                       pool.module()]
        features = channels * math.prod(pools[-1].outputs())
        super().__init__(*layers, conv(channels, channels, 1), nn.ReLU(), nn.Flatten(), nn.Linear(features, 10))


def disputed(out: Path) -> list[dict]:
    rng = np.random.default_rng(2026)
    entries: list[dict] = []
    for dims, count, dropped in DISPUTED:
        for _ in range(count):
            i = len(entries)
            include = i % 4 != 3  # most count padding, some do not
            lengths, pools = draw_case(rng, dims, include, i % 3 == 2, dropped)
            torch.manual_seed(1000 + i)
            model = Disputed(pools)
            shape = [1, 3, *lengths]
            calibrate(model, shape, 2000 + i)
            entry = {"file": None, "model": f"disputed_{dims}d", "kind": "disputed", "opset": 11 if i % 4 == 1 else 17,
                     "exporter": "torchscript", "calibrated": True, "dynamic_spatial": False,
                     "input": {"name": "input", "shape": [None, 3, *lengths]}, "output": "logits",
                     "sizes": [shape, [2, 3, *lengths]], "dims": dims, "pools": [p.as_dict() for p in pools]}
            entries.append(write_entry(model.eval(), out / f"disputed_{i:02d}.onnx", entry, {0: "batch"}, False))
    return entries


def install(staging: Path, out: Path, entries: list[dict], seconds: float) -> None:
    """Move the files into ``out``, write the manifest, remove what the previous manifest listed and we did not."""
    old = out / "manifest.json"
    listed = json.loads(old.read_text()) if old.is_file() else []
    previous = {e.get("file") for e in (listed.get("files", []) if isinstance(listed, dict) else listed)}
    written = {e["file"] for e in entries if e["file"]}
    for name in sorted(written):
        os.replace(staging / name, out / name)
    manifest = {"generator": "scripts/build_zoo.py", "torch": torch.__version__,
                "torchvision": torchvision.__version__, "onnxruntime": ort.__version__, "onnx": onnx.__version__,
                "build_seconds": round(seconds), "files": entries}
    (staging / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    os.replace(staging / "manifest.json", old)
    for name in sorted(n for n in previous - written if n and "/" not in n):
        (out / name).unlink(missing_ok=True)
        print(f"removed {name} (an earlier build's)")


def summary(out: Path, entries: list[dict], seconds: float) -> None:
    files = [e for e in entries if e["file"]]
    size = sum((out / e["file"]).stat().st_size for e in files)
    refused = [e for e in entries if e["refused"]]
    differs = [e["file"] for e in files if not e["verified"]]
    print(f"\n{len(files)} files, {size / 2**30:.2f} GB in {out}; {len(refused)} exports refused; "
          f"onnxruntime differs from torch on {len(differs)} {differs}; {seconds:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    out = parser.parse_args().out.expanduser()
    torch.set_num_threads(2)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=out))
    try:
        entries = classifiers(staging) + disputed(staging)
        install(staging, out, entries, time.perf_counter() - start)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    summary(out, entries, time.perf_counter() - start)


if __name__ == "__main__":
    main()
