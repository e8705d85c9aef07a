"""Measure ``ir-tools compare A.xml --against B --per-layer`` on the zoos (issue 24's acceptance for part 1).

Runs in the project's environment (no torch), through ``ir_tools.cli.main`` with ``--format json``:

    python scripts/against_zoo.py [--only NAME ...] [--skip-target] [--skip-onnx] [--skip-defects]

- target zoo (``scripts/build_target_zoo.py``; ``$IR_TOOLS_TARGET_ZOO``, else ``~/.cache/ir_tools/target_zoo``): each
  ``X_f32.xml`` against its f16-compressed twin ``X_f16.xml``, at the manifest's first shapes (token ids below the
  vocabulary, masks of ones: ``tests/target_zoo.model_inputs``);
- IR zoo (``scripts/build_ir_zoo.py``; ``$IR_TOOLS_IR_ZOO``, else ``~/.cache/ir_tools/ir_zoo``): each IR (f32, and
  f16 weights ``f16w``) against the ONNX file it came from, at the manifest's first size;
- planted defects (``tests/defects.py``: a weight changed in its 4th digit, two output channels swapped, a pad
  moved, exclude-pad flipped: ``DEFECTS``) in a few f32 IRs, compared against the f32 original and the f16 twin
  (target zoo) and the ONNX source (IR zoo): is the changed layer, or the first matched tensor it feeds, the first
  drift? A stateful pair runs ``--steps STEPS`` (seeded) in place of ``--inputs``.

Per comparison: the exit code, the tolerance (derived: none of --atol/--rtol is given), the largest error over what
its tolerance allows of any output and of any matched tensor (the margin: below 1 passes), the largest over the
bound W alone, how many of A's named tensors matched
B's, how many of B's did not, and the time. The summary counts exit codes and the shares.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ir_tools import read_valid  # noqa: E402 (after the path is set)
from ir_tools.cli import main  # noqa: E402
from ir_tools.runtime.executor import stateful  # noqa: E402
from tests.defects import plant  # noqa: E402
from tests.target_zoo import TARGET_ZOO_DIR, entries, model_inputs  # noqa: E402

IR_ZOO = Path(__import__("os").environ.get("IR_TOOLS_IR_ZOO") or Path.home() / ".cache" / "ir_tools" / "ir_zoo")
#: The steps of a generation loop a stateful pair runs (compare --steps): the prompt, then three tokens.
STEPS = 4
ONNX_ZOO = Path(__import__("os").environ.get("IR_TOOLS_ZOO") or Path.home() / ".cache" / "ir_tools" / "zoo")


def compare(a: Path, b: Path, inputs: Path | None) -> tuple[int, dict | None, str, float]:
    """``ir-tools compare A --against B --per-layer --inputs F --format json``: exit code, report, stderr, seconds.
    ``inputs`` None (a stateful model): ``--steps STEPS`` instead, seeded (the prompt, then a token a step)."""
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    given = ["--inputs", str(inputs)] if inputs is not None else ["--steps", str(STEPS)]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["compare", str(a), "--against", str(b), "--per-layer", *given, "--format", "json"])
    seconds = time.perf_counter() - start
    try:
        report = json.loads(out.getvalue())
    except json.JSONDecodeError:
        report = None
    return code, report, err.getvalue().strip(), seconds


def margin(tensors: list[dict]) -> float:
    """The largest error over what the tolerance allows it, over ``tensors``: below 1 passes. An element may differ
    by its bound or by atol, so a tensor's is its max abs error / max(bound, atol) where the error is within its
    atol, else its largest error / bound (inf where an error meets a zero atol and no bound)."""
    ratios = []
    for t in tensors:
        if t["note"] is not None:
            continue
        error, atol, bound = t["max_abs_error"], t["atol"], t.get("error_to_bound")  # ("inf" in strict JSON)
        if error <= atol:
            ratios.append(error / max(atol, float(t.get("bound_max") or 0.0)) if error else 0.0)
        else:
            ratios.append(float(bound) if bound is not None else float("inf"))
    return max(ratios, default=0.0)


def line(label: str, code: int, report: dict | None, err: str, seconds: float) -> dict:
    """One comparison's line printed, and its numbers."""
    if report is None:
        print(f"{label:58s} exit {code}: {err[:300]}")
        return {"label": label, "code": code, "error": err}
    tensors = report["against"]["tensors"] or {"matched": 0, "by_layer_name": 0, "named": 0, "unmatched": [],
                                               "unmatched_against": []}
    by_name = tensors["matched"] - tensors["by_layer_name"]
    outputs = margin(report["outputs"])
    layers = margin([t for lay in report["layers"] for t in lay["outputs"]])
    tolerance = report["against"]["tolerance"]
    # the largest error over the derived bound W alone, where atol does not decide (how close W is to the errors)
    in_w = max((float(t["error_to_bound"]) for lay in report["layers"] for t in lay["outputs"]
                if t["note"] is None and t["error_to_bound"] is not None and t["bound_max"]), default=0.0)
    first = report["first_divergence"]
    drift = f" first drift {first['name']} ({first['type']}) tensor {first.get('tensor')}" if first else ""
    unit = tolerance["unit"] if tolerance else float("nan")
    print(f"{label:58s} exit {code} unit {unit:.3g} margin out {outputs:.3g} tensors {layers:.3g} (error/W "
          f"{in_w:.3g}); named "
          f"{by_name}/{tensors['named']}, +{tensors['by_layer_name']} by layer, B unmatched "
          f"{len(tensors['unmatched_against'])}; {seconds:.1f} s{drift}")
    return {"label": label, "code": code, "unit": unit, "margin_outputs": outputs, "margin_tensors": layers,
            "error_in_w": in_w,
            "named": tensors["named"], "matched_by_name": by_name, "by_layer_name": tensors["by_layer_name"],
            "unmatched_against": len(tensors["unmatched_against"]), "first": first}


def save_inputs(values: dict[str, np.ndarray], directory: Path) -> Path:
    path = directory / "inputs.npz"
    np.savez(path, **values)
    return path


def target_pairs(only: list[str]) -> list[tuple[dict, dict]]:
    """(f32 entry, f16 entry) of each target-zoo model."""
    found = {e["file"]: e for e in entries(TARGET_ZOO_DIR)}
    pairs = []
    for name, entry in sorted(found.items()):
        twin = found.get(name.replace("_f32.xml", "_f16.xml"))
        if name.endswith("_f32.xml") and twin is not None and (not only or entry["model"] in only):
            pairs.append((entry, twin))
    return pairs


def ir_zoo_pairs(only: list[str]) -> list[tuple[dict, Path]]:
    """(IR entry, its ONNX source) of each IR-zoo IR with f32 or f16 weights (not the all-f16 ``f16t``)."""
    manifest = IR_ZOO / "manifest.json"
    if not manifest.is_file():
        return []
    found = []
    for entry in json.loads(manifest.read_text())["files"]:
        source = ONNX_ZOO / entry["source"]
        if entry.get("f16_tensors") or not source.is_file() or (only and entry["network"] not in only):
            continue
        found.append((dict(entry, path=IR_ZOO / entry["file"]), source))
    return found


#: The planted defects measured (tests/defects.py) and where each goes: the Convolution this fraction of the way
#: through the model's Convolutions, or the first layer of a type with pads (a pad moved: the first padded
#: Convolution past the middle; exclude-pad flipped: the first padded AvgPool).
DEFECTS = (("weight", 0.5), ("channels", 0.3), ("pad", 0.5), ("exclude-pad", 0.0))


def defect_site(xml: Path, kind: str, fraction: float) -> str | None:
    """The name of the layer ``kind`` is planted in (None: the model has none)."""
    graph = read_valid(xml)
    kinds = {"exclude-pad": "AvgPool"}.get(kind, "Convolution")
    layers = [layer for layer in graph.topological_order() if layer.is_a(kinds)]
    if kind in ("pad", "exclude-pad"):
        layers = [layer for layer in layers if any(int(v) for v in str(layer.attrs.get("pads_end", "0")).split(","))]
    return layers[int(fraction * (len(layers) - 1))].name if layers else None


def defect_verdict(report: dict | None, xml: Path, changed: str) -> str:
    """Whether the first drift is the changed Convolution, or the first matched tensor downstream of it only."""
    if report is None or report["first_divergence"] is None:
        return "NOT FOUND (no drift)"
    first = report["first_divergence"]
    if first["name"] == changed:
        return "named (the changed layer itself)"
    graph = read_valid(xml)
    layer = next(lay for lay in graph.layers() if lay.name == changed)
    between = graph.ancestors([first["layer_id"]])
    if layer.id in between:
        path = [lay for lay in graph.layers() if lay.id in between and layer.id in graph.ancestors([lay.id])]
        return f"named through {first['name']} ({first['type']}), {len(path)} layers below the changed one"
    return f"WRONG: {first['name']}"


def side_of(against: str) -> str:
    """What a defect was compared against, from B's file name."""
    return "ONNX source" if against.endswith(".onnx") else "f16 twin" if "_f16" in against else "f32 original"


def main_(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", default=[], help="model or network names")
    parser.add_argument("--skip-target", action="store_true")
    parser.add_argument("--skip-onnx", action="store_true")
    parser.add_argument("--skip-defects", action="store_true")
    parser.add_argument("--json", type=Path, help="also write every result as JSON")
    args = parser.parse_args(argv)
    results: dict[str, list[dict]] = {"twin": [], "onnx": [], "defect": []}
    with tempfile.TemporaryDirectory(prefix="against-zoo-") as tmp:
        work = Path(tmp)
        if not args.skip_target:
            print(f"== target zoo: X_f32 --against X_f16 ({TARGET_ZOO_DIR})")
            for f32, f16 in target_pairs(args.only):
                graph = read_valid(f32["path"])
                inputs = None if stateful(graph) else save_inputs(model_inputs(graph, f32, f32["shapes"][0], 0), work)
                label = f"{f32['file']}{f' --steps {STEPS}' if inputs is None else ''}"
                results["twin"].append(line(label, *compare(f32["path"], f16["path"], inputs)))
        if not args.skip_onnx:
            print(f"== IR zoo: IR --against the ONNX file it came from ({IR_ZOO})")
            for entry, source in ir_zoo_pairs(args.only):
                graph = read_valid(entry["path"])
                shapes = {entry["input"]["name"]: entry["sizes"][0]}
                inputs = save_inputs(model_inputs(graph, {"inputs": {}}, shapes, 0), work)
                results["onnx"].append(line(f"{entry['file']} vs {source.name}",
                                            *compare(entry["path"], source, inputs)))
        if not args.skip_defects:
            print("== planted defects: the changed f32 IR against the f32 original, the twin, the ONNX source")
            cases = []
            for f32, f16 in target_pairs(args.only):
                if f32["model"] in ("resnet18", "mobilenet_v2", "googlenet", "densenet121"):
                    graph = read_valid(f32["path"])
                    values = model_inputs(graph, f32, f32["shapes"][0], 0)
                    cases += [(f32["path"], f32["path"], values), (f32["path"], f16["path"], values)]
            manifest = json.loads((IR_ZOO / "manifest.json").read_text())["files"] if IR_ZOO.is_dir() else []
            for e, src in ir_zoo_pairs(args.only):
                if e["file"] in ("resnet18_op17_f32.xml", "squeezenet1_1_op17_f32.xml", "efficientnet_b0_op17_f32.xml",
                                 "mobilenet_v3_small_op17_f32.xml", "inception_v3_op17_f32.xml"):
                    m = next(m for m in manifest if m["file"] == e["file"])
                    values = model_inputs(read_valid(e["path"]), {"inputs": {}}, {m["input"]["name"]: m["sizes"][0]}, 0)
                    cases.append((e["path"], src, values))
            for xml, against, values in cases:
                for kind, fraction in DEFECTS:
                    changed = defect_site(xml, kind, fraction)
                    if changed is None:
                        continue
                    out = work / f"{xml.stem}-{kind}.xml"
                    plant(kind, xml, out, changed)
                    code, report, err, seconds = compare(out, against, save_inputs(values, work))
                    found = line(f"{xml.name} {kind} in {changed[-32:]} vs {Path(against).name}", code, report, err,
                                 seconds)
                    found["verdict"] = defect_verdict(report, xml, changed)
                    found["kind"], found["against"] = kind, Path(against).name
                    print(f"    -> {found['verdict']}")
                    results["defect"].append(found)
    print("== summary")
    for what, found in results.items():
        if not found:
            continue
        codes = {c: sum(1 for r in found if r["code"] == c) for c in sorted({r["code"] for r in found})}
        named = sum(r.get("named", 0) for r in found)
        matched = sum(r.get("matched_by_name", 0) for r in found)
        worst = max((r.get("margin_tensors", 0) for r in found if r["code"] == 0), default=0)
        share = f"{matched}/{named} ({100 * matched / named:.1f}%)" if named else "-"
        print(f"{what}: {len(found)} comparisons, exit codes {codes}; A's named tensors matched {share}; "
              f"largest error/atol of a passing comparison {worst:.3g}")
        if what == "defect":
            for kind, _ in DEFECTS:
                for side in ("f32 original", "f16 twin", "ONNX source"):
                    cases = [r for r in found if r.get("kind") == kind and side_of(r["against"]) == side]
                    if cases:
                        print(f"  {kind} against the {side}: first drift at the changed layer or the first matched "
                              f"tensor below it in {sum(r['verdict'].startswith('named') for r in cases)}/{len(cases)}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main_())
