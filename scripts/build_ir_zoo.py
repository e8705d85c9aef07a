"""Build the IR zoo: OpenVINO IRs of the zoo's ONNX classifiers, as a user's converter would have written them.

Needs only the project's test environment (openvino, numpy, lxml), not torch: it reads the ONNX zoo that
``scripts/build_zoo.py`` built (``$IR_TOOLS_ZOO``, else ``~/.cache/ir_tools/zoo``) and writes into ``--out``,
else ``$IR_TOOLS_IR_ZOO``, else ``~/.cache/ir_tools/ir_zoo``:

    python scripts/build_ir_zoo.py [--out DIR] [--only NAME ...]

What (``<onnx stem>_<form>.xml`` + ``.bin``; about 2.5 GB, 61 IRs, under 2 minutes on 2 cores):

- one ONNX file per classifier network and calibration state (BatchNorm statistics calibrated, and the
  ``_raw`` variants with random-weight activations up to 1e8, where the network has BatchNorm): opset 17,
  else the dynamo exporter's opset 18 (alexnet, vgg11). Made static: the input reshaped to the manifest's
  first size (batch 1);
- the networks exported with dynamic height and width (resnet18, googlenet, densenet121, squeezenet1_1,
  mobilenet_v3_small, both calibration states) kept dynamic (``?,3,?,?``): run at the manifest's sizes, two
  or more;
- each saved by ``openvino.convert_model`` + ``openvino.save_model`` twice: ``f16w`` with
  ``compress_to_fp16=True`` (f16 weights and a Convert to f32 each, as ``ovc`` writes them) and ``f32``;
- ``f16t``: a few calibrated f32 IRs with every f32 tensor made f16, as Model Optimizer's FP16 IR v10 had
  them (Parameter and Const element types, the Consts' data converted, port precisions FP32 -> FP16,
  Convert destination types). Raw networks are left out: their activations overflow f16.

Every IR is read, compiled and run once per size by OpenVINO CPU before it is listed (outputs finite);
one that OpenVINO refuses is reported and left out. ``manifest.json`` lists, per IR: file, source (the
ONNX file), network, calibrated, compressed (f16 weights), f16_tensors, dynamic, input (name and declared
shape), sizes (the input shapes to run it at), layers and the op types. The files are written into a
staging directory and moved into place at the end; IRs an earlier manifest listed that this build did not
write are removed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import openvino as ov
from lxml import etree

ONNX_ZOO = Path(os.environ.get("IR_TOOLS_ZOO") or Path.home() / ".cache" / "ir_tools" / "zoo")
DEFAULT_OUT = Path(os.environ.get("IR_TOOLS_IR_ZOO") or Path.home() / ".cache" / "ir_tools" / "ir_zoo")
OPSET = 17  # one opset is enough; the dynamo exporter's 18 where TorchScript refused every opset
#: calibrated static IRs also written with every tensor f16 (Model Optimizer's FP16 IR v10)
F16_TENSORS = ("resnet18_op17", "mobilenet_v3_small_op17", "googlenet_op17", "efficientnet_b0_op17",
               "densenet121_op17_dyn")
#: element-type attributes that name a tensor's type (Parameter, Const, Convert, Range, ...)
TYPE_ATTRS = ("element_type", "destination_type", "output_type")


def select(entries: list[dict]) -> list[dict]:
    """One ONNX file per (network, calibrated, dynamic spatial): opset 17, else the newest available."""
    chosen: dict[tuple, dict] = {}
    for entry in entries:
        if entry.get("kind") != "classifier" or not entry.get("file"):
            continue
        key = (entry["model"], entry["calibrated"], entry["dynamic_spatial"])
        best = chosen.get(key)
        if best is None or (entry["opset"] == OPSET) > (best["opset"] == OPSET) or (
                (entry["opset"] == OPSET) == (best["opset"] == OPSET) and entry["opset"] > best["opset"]):
            chosen[key] = entry
    return sorted(chosen.values(), key=lambda e: (e["model"], not e["calibrated"], e["dynamic_spatial"]))


def to_f16_tensors(xml: Path, out: Path) -> None:
    """``xml`` (an f32 IR) rewritten at ``out`` with every f32 tensor f16: Parameter, Const (data converted),
    Convert destination type, port precisions. Consts that shared bytes in the ``.bin`` still share them."""
    tree = etree.parse(str(xml))
    blob = xml.with_suffix(".bin").read_bytes()
    written, placed = bytearray(), {}
    for layer in tree.getroot().iter("layer"):
        data = layer.find("data")
        if data is None:
            continue
        f32 = data.get("element_type") == "f32"
        for attr in TYPE_ATTRS:
            if data.get(attr) == "f32":
                data.set(attr, "f16")
        if layer.get("type") == "Const":
            offset, size = int(data.get("offset")), int(data.get("size"))
            key = (offset, size, f32)
            if key not in placed:
                values = blob[offset:offset + size]
                if f32:
                    values = np.frombuffer(values, np.float32).astype(np.float16).tobytes()
                placed[key] = (len(written), len(values))
                written += values
            data.set("offset", str(placed[key][0]))
            data.set("size", str(placed[key][1]))
    for port in tree.getroot().iter("port"):
        if port.get("precision") == "FP32":
            port.set("precision", "FP16")
    tree.write(str(out), xml_declaration=True, encoding="utf-8")
    out.with_suffix(".bin").write_bytes(bytes(written))


def verify(core: ov.Core, xml: Path, input_name: str, sizes: list[list[int]]) -> str | None:
    """None when OpenVINO reads, compiles and runs ``xml`` at every size with finite outputs; else why not."""
    try:
        compiled = core.compile_model(core.read_model(str(xml)), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        request = compiled.create_infer_request()
        element = compiled.inputs[0].get_element_type().to_dtype()
        for i, shape in enumerate(sizes):
            x = np.random.default_rng(i).standard_normal(shape).astype(element)
            request.infer({0: x})
            for k in range(len(compiled.outputs)):
                if not np.all(np.isfinite(request.get_output_tensor(k).data)):
                    return f"non-finite output at {shape}"
    except Exception as exc:  # OpenVINO raises RuntimeError and others
        return f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:300]}"
    return None


def describe(xml: Path) -> tuple[int, dict[str, int]]:
    root = etree.parse(str(xml)).getroot()
    types = Counter(layer.get("type") for layer in root.iter("layer"))
    return sum(types.values()), dict(sorted(types.items()))


def build(entries: list[dict], staging: Path) -> list[dict]:
    core = ov.Core()
    written = []
    for source in entries:
        onnx = ONNX_ZOO / source["file"]
        stem = onnx.stem
        dynamic = bool(source["dynamic_spatial"])
        name = source["input"]["name"]
        sizes = [list(s) for s in source["sizes"]] if dynamic else [[1, *source["sizes"][0][1:]]]
        forms = [("f32", False, False), ("f16w", True, False)]
        if stem in F16_TENSORS and source["calibrated"]:
            forms.append(("f16t", False, True))
        for form, compressed, f16_tensors in forms:
            start = time.perf_counter()
            xml = staging / f"{stem}_{form}.xml"
            if f16_tensors:
                to_f16_tensors(staging / f"{stem}_f32.xml", xml)
            else:
                model = ov.convert_model(str(onnx))
                if not dynamic:
                    model.reshape({name: sizes[0]})
                ov.save_model(model, str(xml), compress_to_fp16=compressed)
                del model
            refused = verify(core, xml, name, sizes)
            if refused:
                print(f"{xml.name}: left out, OpenVINO: {refused}", file=sys.stderr)
                for path in (xml, xml.with_suffix(".bin")):
                    path.unlink(missing_ok=True)
                continue
            layers, op_types = describe(xml)
            shape = ov.Core().read_model(str(xml)).inputs[0].get_partial_shape()
            written.append({
                "file": xml.name, "source": source["file"], "network": source["model"], "kind": "classifier",
                "opset": source["opset"], "calibrated": source["calibrated"], "compressed": compressed,
                "f16_tensors": f16_tensors, "dynamic": dynamic,
                "input": {"name": name, "shape": [d.get_length() if d.is_static else None for d in shape]},
                "sizes": sizes, "layers": layers,
                "megabytes": round((xml.stat().st_size + xml.with_suffix(".bin").stat().st_size) / 2**20, 1),
                "op_types": op_types,
            })
            print(f"{xml.name:<44}{layers:>6} layers {written[-1]['megabytes']:>8.1f} MB "
                  f"{time.perf_counter() - start:>6.1f} s", flush=True)
    return written


def install(staging: Path, out: Path, entries: list[dict], seconds: float, only: list[str] | None) -> None:
    """Move the built files into ``out``, remove those an earlier manifest listed and this build did not write
    (with ``only``: of those networks; the others' entries stay), then write the manifest."""
    manifest = out / "manifest.json"
    old = json.loads(manifest.read_text())["files"] if manifest.is_file() else []
    others = [e for e in old if only is not None and e["network"] not in only]
    keep = {e["file"] for e in entries + others}
    for entry in old:
        if entry["file"] not in keep:
            for path in (out / entry["file"], (out / entry["file"]).with_suffix(".bin")):
                path.unlink(missing_ok=True)
    for entry in entries:
        for name in (entry["file"], Path(entry["file"]).with_suffix(".bin").name):
            os.replace(staging / name, out / name)
    entries = sorted(others + entries, key=lambda e: e["file"])
    document = {"generator": "scripts/build_ir_zoo.py", "openvino": ov.get_version(), "onnx_zoo": str(ONNX_ZOO),
                "build_seconds": round(seconds), "files": entries}
    tmp = manifest.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(document, indent=1) + "\n")
    os.replace(tmp, manifest)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    parser.add_argument("--only", nargs="*", default=None, help="network names (e.g. resnet18) to build alone")
    args = parser.parse_args()
    onnx_manifest = ONNX_ZOO / "manifest.json"
    if not onnx_manifest.is_file():
        print(f"no ONNX zoo at {ONNX_ZOO}: run `python scripts/build_zoo.py` first (it needs torch)", file=sys.stderr)
        return 2
    entries = select(json.loads(onnx_manifest.read_text())["files"])
    if args.only is not None:
        entries = [e for e in entries if e["model"] in args.only]
    out = args.out.expanduser()
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=out))
    try:
        written = build(entries, staging)
        install(staging, out, written, time.perf_counter() - start, args.only)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    total = sum(e["megabytes"] for e in written)
    print(f"{len(written)} IRs ({sum(e['f16_tensors'] for e in written)} with f16 tensors, "
          f"{sum(e['dynamic'] for e in written)} dynamic), {total / 1024:.2f} GB in {out}, "
          f"{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
