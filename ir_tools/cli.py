"""``ir-tools``: thin argparse wrappers over the public API. Exit 0 clean, 1 problems found, 2 unusable input."""

from __future__ import annotations

import argparse
import atexit
import ctypes
import gc
import os
import re
import sys
import tempfile
from collections import Counter
from functools import cache, partial
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, NoReturn, TextIO

from .base import json_text
from .base.diagnostics import Diagnostic, has_errors, render_github, render_json, render_sarif
from .base.errors import IrToolsError, SourceLoc, did_you_mean, needs_onnx
from .base.files import same_file, unwritable, write_atomically, write_together
from .batch import map_files, model_paths
from .console import above_progress, paint, progress, progress_steps, status
from .ir.inspect import render_text, summary
from .ir.model import Graph
from .ir.reader import read_ir
from .ir.writer import ir_files, write_ir
from .passes.interface_names import set_ir_version
from .passes.shapes import Propagation
from .passes.validate import FATAL_CODES, InvalidModelError, read_valid, require_valid
from .settings import Selection, grouped_lines, selection
from .supervisor import died_of, supervised

if TYPE_CHECKING:  # the runtime is imported by the commands that run models only
    from .ops.releases import Release
    from .runtime.compare import CompareReport
    from .runtime.openvino import ModelFiles
    from .runtime.runners import ActivationRunner

EXIT_OK, EXIT_FOUND, EXIT_UNUSABLE = 0, 1, 2

#: What ``ir-tools --help`` says first (the module docstring is for developers).
DESCRIPTION = ("Validate, migrate, transform and numerically check OpenVINO IR files (.xml + .bin). Exit codes: 0 "
               "clean, 1 problems found (or outputs that differ), 2 unusable input or bad usage. "
               "`ir-tools COMMAND --help` describes each command.")


def _print_diagnostics(diags: list[Diagnostic], verbose: bool, quiet: bool = False,
                       stream: TextIO | None = None) -> None:
    """Diagnostics (as the user selected them: ``settings``), repeated ones grouped unless ``verbose``; on
    ``stream``, else stdout."""
    stream = stream or sys.stdout
    for d, line in grouped_lines(diags, every=verbose):
        if not (quiet and d.severity != "error"):
            print(paint(line, d.severity, stream), file=stream)


def _check_model(path: Path, bin_path: Path | None, args: argparse.Namespace,
                 ) -> tuple[list[Diagnostic], Graph | None, Propagation | None]:
    """``runtime.verdict.check_model`` with the command's options."""
    from .runtime.verdict import check_model

    done = check_model(path, bin_path, not args.no_openvino, getattr(args, "compile", False),
                       getattr(args, "target", None))
    return done.diagnostics, done.graph, done.propagation


def _check_diagnostics(path: Path, no_openvino: bool, compile_model: bool,
                       target: str | None) -> tuple[list[Diagnostic], str | None]:
    """One file's ``check`` diagnostics and what was re-inferred (a top-level function: worker processes run it)."""
    gc.disable()  # as in the main process (see main)
    options = argparse.Namespace(no_openvino=no_openvino, compile=compile_model, target=target)
    diags, graph, result = _check_model(path, None, options)
    return diags, None if graph is None or result is None else _inference_summary(graph, result)


def _crashed(path: Path, code: int) -> tuple[list[Diagnostic], None]:
    """``check``'s result for a file whose worker process died, and died again checking it alone (``map_files``)."""
    return [Diagnostic("error", "E-CRASH", f"the process checking this file {died_of(code)}, twice (the second time "
                       "checking it alone): a crash in native code (OpenVINO's, most likely), or the file changed "
                       "while it was read; the other files were checked", SourceLoc(str(path)))], None


def _inference_summary(graph: Graph, result: Propagation) -> str:
    """How each layer's dims were inferred, and how many were not (an error there or before: a Const without its
    weights leaves what it feeds unknown)."""
    trusted = ", ".join(sorted({lay.kind for lay in result.not_inferred})) or "none"
    unreached = len(graph) - len(result.inferred) - len(result.by_openvino) - len(result.not_inferred)
    return (f"{len(graph)} layers; re-inferred by ir_tools: {len(result.inferred)}, "
            f"by OpenVINO: {len(result.by_openvino)}, trusted: {len(result.not_inferred)} ({trusted})"
            + (f", not inferred (an error at or before them): {unreached}" if unreached > 0 else ""))


def _check_report(args: argparse.Namespace, path: str, diags: list[Diagnostic], summary: str | None,
                  ) -> list[Diagnostic]:
    """One file's diagnostics as the user selected them, printed at once in text and github formats (json and sarif
    print every file's at the end): the diagnostics, or their annotations, and the file's count of each."""
    kept = args.selection.kept(diags)
    if args.quiet:  # (errors only, in every format)
        kept = [d for d in kept if d.severity == "error"]
    if args.format not in ("text", "github"):
        return kept
    if args.format == "github":
        annotations = render_github({path: kept})
        if annotations:
            print(annotations)
    else:
        _print_diagnostics(kept, args.verbose, args.quiet)
    errors = sum(d.severity == "error" for d in kept)
    warnings = sum(d.severity == "warning" for d in kept)
    fatal = sum(d.fatal for d in kept)
    if errors or not args.quiet:
        unusable = f" ({fatal} fatal: the file could not be checked fully)" if fatal else ""
        print(f"{path}: {errors} error(s){unusable}, {warnings} warning(s)")
    if args.verbose and summary:
        print(f"{path}: {summary}")
    return kept


def cmd_check(args: argparse.Namespace) -> int:
    if args.jobs is not None and args.jobs < 1:
        raise IrToolsError(f"--jobs must be at least 1, got {args.jobs}", code="E-USAGE")
    if args.compile and args.no_openvino:
        raise IrToolsError("--compile asks OpenVINO to compile each clean file; --no-openvino asks it nothing: give "
                           "one", code="E-USAGE")
    if args.target:
        from .ops.releases import release

        release(args.target)  # an unknown release is a usage error before any file is read
    paths = model_paths(args.models, args.ir_only)
    readable = args.format in ("text", "github")  # (reported file by file, as each is checked)
    if not paths and not args.quiet:  # --ir-only left out every file: a hook handed other XML alone (pom.xml)
        print("--ir-only: none of the files named is IR (each file's root element is another than <net>): nothing "
              "to check", file=sys.stdout if readable else sys.stderr)
    results: dict[str, list[Diagnostic]] = {}
    if args.html:
        if len(paths) != 1:
            raise IrToolsError(f"check --html draws one model; {len(paths)} were given", code="E-USAGE")
        from .report import check_html

        diags, graph, result = _check_model(paths[0], None, args)
        _save_html(args.html, check_html(graph, str(paths[0]), diags))
        summary = None if graph is None or result is None else _inference_summary(graph, result)
        results[str(paths[0])] = _check_report(args, str(paths[0]), diags, summary)
    else:
        work = partial(_check_diagnostics, no_openvino=args.no_openvino, compile_model=args.compile,
                       target=args.target)
        checked = []
        with status(f"checking {paths[0].name}" if paths else "", _shows_progress(args) and len(paths) == 1):
            done = progress(map_files(work, paths, args.jobs, _crashed), len(paths), "checking",
                            _shows_progress(args) and len(paths) > 1)
            for path, (diags, summary) in zip(map(str, paths), done, strict=True):
                if readable and len(paths) > 1:
                    with above_progress():
                        results[path] = _check_report(args, path, diags, summary)
                else:
                    checked.append((path, diags, summary))
        for path, diags, summary in checked:  # (one file: after its status line is erased)
            results[path] = _check_report(args, path, diags, summary)
    if args.format == "json":
        print(render_json(results))
    elif args.format == "sarif":
        from . import __version__

        print(render_sarif(results, __version__))
    elif len(results) > 1:
        clean = sum(not has_errors(diags) for diags in results.values())
        print(f"{len(results)} files: {clean} without errors, {len(results) - clean} with errors")
    all_diags = [d for diags in results.values() for d in diags]
    if any(d.code in FATAL_CODES for d in all_diags):
        return EXIT_UNUSABLE
    return EXIT_FOUND if has_errors(all_diags) else EXIT_OK


def cmd_inspect(args: argparse.Namespace) -> int:
    """What the file holds, read as far as it can be, and then what ``check`` finds in it (exit 1 on an error): a
    broken file is when a user most wants to look inside."""
    from .passes.validate import check_graph
    from .runtime.verdict import judge_unmodelled

    graph = read_ir(args.model, args.bin)
    diags, result = check_graph(graph)
    if result is not None and not has_errors(diags):
        diags += judge_unmodelled(graph, result, args.model, args.bin)
    diags = args.selection.kept(diags)
    info = summary(graph)
    if args.format == "json":
        print(json_text.dumps({**info, "diagnostics": [d.to_dict() for d in diags]}, indent=2))
    else:
        print(render_text(info))
        _print_diagnostics(diags, args.verbose, args.quiet)
        if has_errors(diags) or (diags and not args.quiet):
            errors = sum(d.severity == "error" for d in diags)
            print(f"{args.model}: {errors} error(s), {len(diags) - errors} warning(s) (`ir-tools check` says the same)")
    if any(d.fatal for d in diags):
        return EXIT_UNUSABLE
    return EXIT_FOUND if has_errors(diags) else EXIT_OK


def cmd_shapes(args: argparse.Namespace) -> int:
    from .passes.shapes import fix_until_settled
    from .runtime.verdict import ask_openvino

    if args.fix and not (args.output or args.in_place):
        raise IrToolsError("--fix needs -o OUT.xml or --in-place", code="E-USAGE")
    if not args.fix and (args.output or args.in_place or args.ir_version):
        raise IrToolsError("-o, --in-place and --ir-version write the corrected model: add --fix", code="E-USAGE")
    diags, graph, result = _check_model(args.model, args.bin, args)
    shape_codes = {"E-SHAPE", "E-TYPE", "E-EDGE-DIMS", "E-EDGE-PRECISION", "E-BODY-SHAPE"}
    fixable = [d for d in diags if d.code in shape_codes]
    blocking = [d for d in diags if d.severity == "error" and d.code not in shape_codes]
    _print_diagnostics(args.selection.kept(fixable + blocking), args.verbose, args.quiet)
    if result is not None:
        _say(args, f"{args.model}: {_inference_summary(graph, result)}")
    if any(d.code in FATAL_CODES for d in diags):
        return EXIT_UNUSABLE
    if not args.fix:
        return EXIT_FOUND if fixable or blocking else EXIT_OK
    if blocking or result is None:
        print("not written: fix the errors above first (only declared dims and precisions can be corrected)")
        return EXIT_FOUND
    try:  # (OpenVINO's inference, adopted by the check, in every round; else asked once ours leave it clean)
        changed = fix_until_settled(graph, result, None if args.no_openvino else ask_openvino)
    except IrToolsError as exc:  # OpenVINO refuses the corrected model
        return _not_corrected(args, diags, [Diagnostic("error", exc.code, exc.message, exc.loc)])
    if not changed and args.ir_version in (None, graph.ir_version):
        if fixable:  # found where fix_dims writes nothing: inside a body the shape walk did not re-infer
            print("not written: none of the dims above could be corrected (inside the bodies of a Loop or an If whose "
                  "trip count or condition ir_tools cannot compute, ports are not)")
            return EXIT_FOUND
        print(f"nothing to fix: {args.model} declares the dims and precisions inferred (IR v{graph.ir_version}); "
              "nothing written")
        return EXIT_OK
    out = args.model if args.in_place else args.output
    moved = set_ir_version(graph, args.ir_version or graph.ir_version)
    try:  # the corrected model passes check (inferred dims may overflow int64), or nothing is written
        require_valid(graph)
    except InvalidModelError as exc:
        return _not_corrected(args, diags, exc.diagnostics)
    write_ir(graph, out, graph.ir_version, overwrite_input=args.in_place)
    print(f"wrote {out}: {changed} port(s) corrected"
          + (f", {moved} more inferred otherwise in IR v{graph.ir_version}" if moved else ""))
    return EXIT_OK


def _not_corrected(args: argparse.Namespace, diags: list[Diagnostic], corrected: list[Diagnostic]) -> int:
    """``shapes --fix`` refusing a corrected model ``check`` would reject: its errors, said to be its own, after the
    count ``check`` gives of the input (``diags``); nothing written."""
    _print_diagnostics(corrected, args.verbose, args.quiet)
    left = sum(d.severity == "error" for d in corrected)
    errors = sum(d.severity == "error" for d in diags)
    print(f"{args.model}: {errors} error(s), {len(diags) - errors} warning(s) (`ir-tools check` lists the same); "
          f"the model corrected would have the {left} error(s) just above: not written")
    return EXIT_FOUND


def _inputs(args: argparse.Namespace, graph, check: bool = True) -> tuple[dict, dict]:
    """The inputs of ``--inputs``, else seeded ones that fit the model, and how each seeded one was made
    (``runtime.inputs.recipes``); validated unless ``check`` is False (the caller's library call validates them:
    ``compare_model``)."""
    from .runtime.inputs import check_inputs, draw, load_inputs, parse_shape_overrides, recipes, unfitted

    seed = _seed(args)
    made = {}
    if args.inputs:
        inputs = load_inputs(args.inputs, graph)
    else:
        made = recipes(graph, parse_shape_overrides(args.shape))
        inputs = draw(made, seed)
        args.default_dims = [f"{r.name} {list(r.shape)}: {r.dims}" for r in made.values() if r.dims.endswith(
            "by default")]
        args.unfitted = unfitted(made)
    inputs = check_inputs(graph, inputs) if check else inputs
    if getattr(args, "save_inputs", None):
        _save_npz(args.save_inputs, inputs)
    return inputs, made


def _add_save_inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument("--save-inputs", type=Path, metavar="F.npz",
                   help="save the inputs fed (of the first inference), keyed by input name: --inputs takes them back")


def _add_tolerance_options(p: argparse.ArgumentParser, atol: str, rtol: str, what: str = "") -> None:
    """--atol and --rtol as every command that compares takes them: ``V`` or ``NAME:V``, repeatable; with their
    defaults as the command's help says them."""
    for flag, kind, default in (("--atol", "absolute", atol), ("--rtol", "relative", rtol)):
        p.add_argument(flag, action="append", default=[], metavar="[NAME:]V",
                       help=f"{what}{kind} tolerance, default {default} (repeatable; NAME: an output, layer or "
                            "state variable name)")


def _tolerances(args: argparse.Namespace, graph: Graph, *defaults: float):
    """``--atol``/``--rtol`` over the command's ``defaults`` (atol, rtol; else compare's); E-USAGE for a value that
    is no number or a name the model has no output or layer of."""
    from .runtime.compare import Tolerances
    from .runtime.numeric_check import named_tolerances

    return named_tolerances(graph, Tolerances.parse(args.atol, args.rtol, *defaults))


def _comparison_options_need(args: argparse.Namespace, given: object, options: str) -> None:
    """E-USAGE for --atol/--rtol, --seed, --shape and --inputs where nothing is run and compared (they would do
    nothing, without a word)."""
    if (args.atol or args.rtol) and not given:
        raise IrToolsError(f"--atol and --rtol say how {options} compares: give one, or drop them", code="E-USAGE")
    if (args.seed is not None or args.shape or args.inputs) and not given:
        flag = "--seed" if args.seed is not None else "--shape" if args.shape else "--inputs"
        raise IrToolsError(f"{flag} says what {options} runs the models on: give one, or drop it", code="E-USAGE")


def _seed(args: argparse.Namespace) -> int:
    """``--seed``, 0 by default; refused beside ``--inputs``, whose values it would not change."""
    if args.inputs and (args.seed is not None or args.shape):
        given = "--seed" if args.seed is not None else "--shape"
        raise IrToolsError(f"{given} draws or shapes seeded inputs; --inputs gives them: use one or the other",
                           code="E-USAGE")
    return 0 if args.seed is None else args.seed


#: The longest name an array of an .npz file may have: a zip entry name holds 65535 bytes, ".npy" included.
_NPZ_NAME_BYTES = 65535 - len(".npy")


def _save_npz(path: Path, arrays: dict) -> None:
    """``arrays`` written to ``path`` (atomic, ``_npz_arrays``)."""
    import numpy as np

    arrays = _npz_arrays(path, arrays)
    write_atomically(path, lambda f: np.savez(f, **arrays))


def _npz_bytes(path: Path, arrays: dict) -> bytes:
    """The .npz file ``path`` holding ``arrays`` (``_npz_arrays``), for ``write_together`` with other files."""
    import io

    import numpy as np

    buffer = io.BytesIO()
    np.savez(buffer, **_npz_arrays(path, arrays))
    return buffer.getvalue()


def _npz_arrays(path: Path, arrays: dict) -> dict:
    """``arrays`` as an .npz file at ``path`` holds them: the reference's bf16 values as the f32 values they are
    (numpy writes no dtype metadata: ``base.packed.BF16``); E-UNSUPPORTED for a name too long for it."""
    from .base.packed import untagged

    arrays = {name: untagged(value) for name, value in arrays.items()}
    for name in arrays:
        if len(name.encode("utf-8", "surrogatepass")) > _NPZ_NAME_BYTES:
            raise IrToolsError(f"cannot write {path}: the array '{name[:60]}...' has a name of {len(name)} characters, "
                               f"and an .npz file holds names of at most {_NPZ_NAME_BYTES} bytes (a zip entry name)",
                               code="E-UNSUPPORTED")
    return arrays


def _save_html(path: Path, page: str) -> None:
    write_atomically(path, lambda f: f.write(page.encode("utf-8")))
    print(f"wrote {path}", file=sys.stderr)


def cmd_run(args: argparse.Namespace) -> int:
    from .runtime.executor import Interpreter
    from .runtime.verdict import read_judged, weights_read_otherwise_here

    graph = read_judged(args.model, args.bin)
    _print_diagnostics(weights_read_otherwise_here(graph), args.verbose, args.quiet, sys.stderr)
    outputs = Interpreter(graph).evaluate(_inputs(args, graph)[0])
    _say(args, *(f"{name}: {value.dtype} {list(value.shape)}" for name, value in outputs.items()))
    _save_npz(args.output, outputs)
    print(f"wrote {args.output}")
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from .runtime.inputs import load_npz
    from .runtime.numeric_check import CompareOptions, compare_model
    from .runtime.openvino import ModelFiles
    from .runtime.runners import OpenVinoRunner
    from .runtime.steps import compare_steps
    from .runtime.verdict import read_judged, weights_read_otherwise_here

    text = _shows_progress(args)
    if args.compare_constants and not args.per_layer:
        raise IrToolsError("--compare-constants compares constant subgraphs layer by layer: add --per-layer",
                           code="E-USAGE")
    if args.against and (args.load_outputs or args.compare_constants):
        given = "--load-outputs" if args.load_outputs else "--compare-constants"
        raise IrToolsError(f"{given} compares OpenVINO with the numpy reference; --against compares two models: use "
                           "one or the other", code="E-USAGE")
    deployed = _deployment_settings(args)
    with status(f"reading and checking {args.model.name}", text):
        graph = read_judged(args.model, args.bin)
    _print_diagnostics(weights_read_otherwise_here(graph), args.verbose, args.quiet, sys.stderr)
    tolerances = _tolerances(args, graph)
    inputs, made = _inputs(args, graph, check=False)
    source = {"inputs": str(args.inputs)} if args.inputs else {"seed": _seed(args)}
    if args.against:
        return _compare_against(args, graph, inputs, made, tolerances if args.atol or args.rtol else None, source)
    saved = load_npz(args.load_outputs) if args.load_outputs else {}
    files = ModelFiles(args.model, args.bin or args.model.with_suffix(".bin"))
    steps = _compare_steps(args, graph, inputs, made)
    if steps is not None:
        options = CompareOptions(tolerances=tolerances, per_layer=args.per_layer,
                                 compare_constants=args.compare_constants, saved=saved, source=source, recipes=made,
                                 deployed=deployed)
        with status(f"running {len(steps)} step(s) on OpenVINO and the numpy reference", text):
            report = compare_steps(graph, steps, options, files)
        return _compare_report(args, graph, report)
    openvino = OpenVinoRunner(graph, files)
    with status("running OpenVINO and the numpy reference", text), \
            progress_steps(len(graph), "comparing layers", text) as step:
        options = CompareOptions(tolerances=tolerances, per_layer=args.per_layer,
                                 compare_constants=args.compare_constants, saved=saved, source=source, recipes=made,
                                 progress=step, deployed=deployed)
        report = compare_model(graph, inputs, options, openvino)
    return _compare_report(args, graph, report)


def _deployment_settings(args: argparse.Namespace) -> dict[str, str]:
    """``--config KEY=VALUE``: OpenVINO CPU settings as deployed; E-USAGE for a malformed one, a key the CPU plugin
    does not take (with the nearest), a value it refuses (in its words), or beside --against."""
    if not args.config:
        return {}
    if args.against:
        raise IrToolsError("--config runs OpenVINO as deployed against the reference; --against compares two models",
                           code="E-USAGE")
    from .runtime.openvino import cpu_settings, refused_setting

    known = cpu_settings()
    settings = {}
    for given in args.config:
        key, sep, value = given.partition("=")
        if not sep or not key or not value:
            raise IrToolsError(f"--config expects KEY=VALUE, got '{given}'", code="E-USAGE")
        if key not in known:
            raise IrToolsError(f"--config {key}: OpenVINO's CPU plugin has no such setting{did_you_mean(key, known)}",
                               code="E-USAGE")
        refused = refused_setting(key, value)
        if refused is not None:  # (it was OpenVINO refusing the model, E-OPENVINO, after the reference had run)
            raise IrToolsError(f"--config {key}={value}: OpenVINO's CPU plugin refuses it: {refused}", code="E-USAGE")
        settings[key] = value
    return settings


def _compare_steps(args: argparse.Namespace, graph: Graph, inputs: dict, made: dict) -> list[dict] | None:
    """The inputs of each step of ``compare --steps`` (a stateful model: ``--steps``, else 2 on drawn inputs and 1 on
    ``--inputs``, which feed one inference), or None for a model without state (where ``--steps`` is refused); the
    first step is the inputs given or drawn, each later one drawn from its own seed (``--seed`` plus the step's index),
    one token longer."""
    from .runtime.executor import stateful
    from .runtime.inputs import later_steps

    if args.steps is not None and args.steps < 1:
        raise IrToolsError(f"--steps must be at least 1, got {args.steps}", code="E-USAGE")
    if not stateful(graph):
        if args.steps is not None:
            raise IrToolsError(f"--steps {args.steps}: {args.model} holds no state (no ReadValue or Assign): each "
                               "inference stands alone; leave --steps out", code="E-USAGE")
        return None
    count = args.steps if args.steps is not None else 2 if made else 1
    if count > 1 and not made:
        raise IrToolsError(f"--inputs feeds one inference; --steps {count} draws each step's inputs: give --steps 1 "
                           "with --inputs, or leave --inputs out", code="E-USAGE")
    seed = _seed(args)
    return [inputs, *later_steps(made, count, seed, inputs)]


def _compare_report(args: argparse.Namespace, graph: Graph, report: CompareReport) -> int:
    """Print (and save, as asked) compare's report; the exit code of its verdict."""
    from .runtime.compare import render_text, verdict
    from .runtime.numeric_check import saved_arrays

    if args.format == "json":
        print(json_text.dumps(report.to_dict(), indent=2))
    elif args.quiet:
        said = verdict(report.to_dict())
        print(f"{args.model}: {said['word']} ({said['compared']})")
    else:
        print(render_text(report, args.verbose))
    if args.save_outputs:
        _save_npz(args.save_outputs, saved_arrays(report))
    if args.html:
        from .report import compare_html

        _save_html(args.html, compare_html(graph, report.to_dict()))
    return EXIT_OK if report.passed else EXIT_FOUND


def _compare_against(args: argparse.Namespace, graph: Graph, inputs: dict, made: dict, tolerances,
                     source: dict) -> int:
    """``compare A.xml --against B.xml|B.onnx``: B read and checked (an IR as ``check`` does, an ONNX file by
    ``onnx.checker``), then ``runtime.against.compare_against``; the report as compare's."""
    from .runtime.against import IrModel
    from .runtime.against_steps import compare_models
    from .runtime.openvino import ModelFiles

    text, path = _shows_progress(args), args.against
    with status(f"reading and checking {path.name}", text):
        if path.suffix.lower() == ".onnx":
            try:
                from .onnx.reading import load_checked
                from .runtime.onnxruntime import OnnxModel
            except ImportError as exc:
                raise needs_onnx("--against an ONNX file", exc) from None
            against = OnnxModel(path, load_checked(path))
        else:
            try:
                against = IrModel(read_valid(path), ModelFiles(path, path.with_suffix(".bin")))
            except InvalidModelError as exc:
                return _report_invalid(exc, str(path), args)
    model = IrModel(graph, ModelFiles(args.model, args.bin or args.model.with_suffix(".bin")))
    steps = _compare_steps(args, graph, inputs, made)  # A holds state: both run as a generation loop
    doing = f"{len(steps)} step(s) of both models" if steps is not None else \
        f"both models{' and every tensor' if args.per_layer else ''}"
    with status(f"running {doing}", text):
        report = compare_models(model, against, inputs if steps is None else steps, tolerances, args.per_layer, source,
                                made)
    return _compare_report(args, graph, report)


def cmd_convert_onnx(args: argparse.Namespace) -> int:
    try:  # onnx is an optional dependency: only this command needs it
        from .onnx import from_onnx
    except ImportError as exc:
        raise needs_onnx("convert-onnx", exc) from None
    _comparison_options_need(args, args.check, "--check")
    text = _shows_progress(args)
    with status(f"converting {args.model.name}", text):
        graph = from_onnx(args.model, args.compress_to_fp16)
        set_ir_version(graph, args.ir_version)
        require_valid(graph)  # what we are about to write passes check, or nothing is written
    if args.check:
        with tempfile.TemporaryDirectory(prefix="ir-tools-convert-") as tmp:
            staged, staged_bin = write_ir(graph, Path(tmp) / "converted.xml", args.ir_version)
            if not _conversion_matches(args, graph, staged, staged_bin):
                print("not written: OpenVINO on the converted model does not compute what onnxruntime computes")
                return EXIT_FOUND
    xml, _ = write_ir(graph, args.output, args.ir_version)
    pooling = sum(1 for layer in graph.layers() if layer.is_a("AvgPool"))
    print(f"wrote {xml}: {len(graph)} layers ({pooling} AvgPool), IR v{args.ir_version}"
          f"{', weights compressed to f16' if args.compress_to_fp16 else ''}")
    return EXIT_OK


def _conversion_matches(args: argparse.Namespace, graph, xml: Path, bin_path: Path) -> bool:
    """onnxruntime on the ONNX file against OpenVINO on the converted model, on the same seeded inputs."""
    from .runtime.openvino import ModelFiles
    from .runtime.runners import OnnxRuntimeRunner, OpenVinoRunner, compare_outputs

    inputs, _ = _inputs(args, graph)
    weights = ("its float weights rounded to f16, as the conversion stored them" if args.compress_to_fp16
               else "its own weights")
    _say(args, f"check: OpenVINO on the converted model against onnxruntime on {args.model.name} with {weights}")
    with status("running onnxruntime and OpenVINO", _shows_progress(args)):
        found = compare_outputs(inputs, OnnxRuntimeRunner(args.model, f16_weights=args.compress_to_fp16,
                                                          converted=graph),
                                OpenVinoRunner(graph, ModelFiles(xml, bin_path)), _tolerances(args, graph, 1e-4, 1e-4))
    _say_outputs(args, found, "converted model")
    return all(output.passed for output in found)


def cmd_migrate(args: argparse.Namespace) -> int:
    from .passes.checks import STATE_TYPES
    from .passes.legacy import is_legacy, read_migratable
    from .passes.target import migrate_graph, written_as_is
    from .runtime.verdict import inputs_not_inferred, read_judged, refresh_rewritten

    if args.check and args.check_with:
        raise IrToolsError("--check runs the migrated model on this OpenVINO, --check-with on another: give one",
                           code="E-USAGE")
    _comparison_options_need(args, args.check or args.check_with, "--check or --check-with")
    if not (args.output or args.in_place or args.dry_run):
        raise IrToolsError("migrate needs -o OUT.xml, --in-place or --dry-run", code="E-USAGE")
    other = _other_openvino(args.check_with) if args.check_with else None
    target = None
    if args.target:
        from .ops.releases import release

        target = release(args.target)  # an unknown release is a usage error before the model is read
        if args.ir_version and args.ir_version not in target.ir_versions:
            raise IrToolsError(f"--ir-version {args.ir_version}: {target.called} reads IR "
                               f"{' or '.join(f'v{v}' for v in target.ir_versions)} only (drop --ir-version: migrate "
                               "--target writes one it reads)", code="E-USAGE")
    elsewhere = _checked_elsewhere(other, target)
    if elsewhere and not args.quiet:
        print(f"warning: --check-with runs OpenVINO {other} ({args.check_with}), not the target {target.name}: the "
              f"check says whether {elsewhere} computes what the original computes, nothing of {target.name}",
              file=sys.stderr)
    graph = read_migratable(args.model, args.bin, read=read_judged)
    if args.stateless and not args.quiet and not graph.by_type(*STATE_TYPES):
        print(f"warning: --stateless: {args.model} holds no state (no ReadValue or Assign), nothing to make inputs "
              "and outputs", file=sys.stderr)
    legacy = is_legacy(graph)
    ir_version = args.ir_version or (11 if legacy else graph.ir_version)
    if target is not None and ir_version not in target.ir_versions:
        ir_version = target.ir_versions[-1]
    before, read_version, judged = _op_counts(graph), graph.ir_version, inputs_not_inferred(graph)
    stats = migrate_graph(graph, target, checked=not legacy, stateless=args.stateless, ir_version=ir_version).stats
    refresh_rewritten(graph, judged)
    if target is not None:
        _print_diagnostics(written_as_is(graph, target), args.verbose, args.quiet, sys.stderr)
    if not stats and not legacy and read_version == ir_version:
        # --check would run the file on the OpenVINO that gave the original's outputs; --check-with runs it on
        # another, which the user asked to hear about: the original, as it is, there
        checked = ", so nothing checked" if args.check else ", so --check-with runs the original" if other else ""
        if target is not None:
            print(f"nothing to migrate: {args.model} already loads on {target.called} (IR v{ir_version}); "
                  f"nothing written{checked}")
        else:  # (it may hold op versions an older release cannot create: only --target says)
            print(f"nothing to migrate: {args.model} has no average pooling to rewrite, the one rewrite without "
                  f"--target (--target RELEASE rewrites what that release cannot create); nothing written{checked}")
        if other:
            differs = _migration_differs(args, graph, legacy, args.model, args.bin or args.model.with_suffix(".bin"),
                                         other, itself=True)
            if differs:
                print(f"checked: {differs}" + (f" (checked on {elsewhere}, not on the target {target.name})"
                                               if elsewhere else ""))
                return EXIT_FOUND
            print(f"checked: the original computes on OpenVINO {other} what it computes here"
                  + (f" (checked on {elsewhere}, not on the target {target.name})" if elsewhere else ""))
        return EXIT_OK
    args.ir_version = ir_version
    _print_histogram(args, before, _op_counts(graph), stats)
    if args.check or other:
        with tempfile.TemporaryDirectory(prefix="ir-tools-migrate-") as tmp:
            staged, staged_bin = write_ir(graph, Path(tmp) / args.model.name, args.ir_version)
            checked, staged, staged_bin = (graph, staged, staged_bin) if other else _as_read_here(args, graph, staged)
            differs = _migration_differs(args, checked, legacy, staged, staged_bin, other)
            if differs:
                print(f"not written: {differs}" + (f" (checked on {elsewhere}, not on the target {target.name})"
                                                   if elsewhere else ""))
                return EXIT_FOUND
    if args.dry_run:
        print("dry run: nothing written")
        return EXIT_OK
    out = args.model if args.in_place else args.output
    write_ir(graph, out, args.ir_version, overwrite_input=args.in_place)
    print(f"wrote {out} (IR v{args.ir_version}" + (f"; checked on OpenVINO {elsewhere}, not on the target "
                                                   f"{target.name})" if elsewhere else ")"))
    return EXIT_OK


def _checked_elsewhere(other: str | None, target: Release | None) -> str | None:
    """The release (``2025.0``) that ``--check-with`` runs, where it is not ``target`` (a release, not ``opsetN``):
    its check then says nothing of the target, and migrate says so (a warning first, then with its verdict); None
    otherwise. Not a refusal: a file for 2023.0 may be meant for 2025.0 too, and its check there is worth having
    (and one for 2025.0 checked on 2023.0 shows what 2023.0 refuses); what must not happen is a check on the wrong
    release read as one on the target."""
    if other is None or target is None or target.number is None:
        return None
    ran = ".".join(other.split("-")[0].split(".")[:2])
    return None if ran == target.name else ran


def cmd_transform(args: argparse.Namespace) -> int:
    from .passes.base import PassManager, load_pass
    from .runtime.verdict import read_judged, refresh_after

    if not (args.output or args.in_place):
        raise IrToolsError("transform needs -o OUT.xml or --in-place", code="E-USAGE")
    passes = [load_pass(spec) for spec in args.passes]
    graph = read_judged(args.model, args.bin)
    before = _op_counts(graph)
    result = PassManager(passes, fixed_point=args.fixed_point).run(graph, checked=True)
    if not result.modified and args.ir_version in (None, graph.ir_version):  # (as migrate and shapes --fix)
        print(f"nothing to transform: no pass reported a change to {args.model} (a pass that edits a layer in place "
              "returns True or touches it); nothing written")
        return EXIT_OK
    set_ir_version(graph, args.ir_version or graph.ir_version)
    # what is written passes check, OpenVINO's verdict and its inference of the layers we do not re-infer included
    # (their dims refreshed from it), or nothing is written
    refresh_after(graph, [p.name for p in passes])
    _print_histogram(args, before, _op_counts(graph), result.stats)
    out = args.model if args.in_place else args.output
    write_ir(graph, out, graph.ir_version, overwrite_input=args.in_place)
    what = "changed" if result.modified else "unchanged but for the IR version"
    print(f"wrote {out} ({what}, IR v{graph.ir_version})")
    return EXIT_OK


def cmd_extract(args: argparse.Namespace) -> int:
    """The part of a model between tensors, as a model of its own (``passes.extract``)."""
    from .ir.names import tensor_names
    from .passes.extract import extract

    graph = read_valid(args.model, args.bin)
    inputs = [name for value in args.inputs for name in tensor_names(value)]
    outputs = [name for value in args.outputs for name in tensor_names(value)]
    part = extract(graph, inputs, outputs)
    xml, bin_path = write_ir(part, args.output, part.ir_version)
    weights = graph.weights.size if graph.weights is not None and graph.weights.exists else 0
    print(f"wrote {xml}: {len(part)} of {len(graph)} layers, {bin_path.stat().st_size} of {weights} weight bytes "
          f"(IR v{part.ir_version})")
    return EXIT_OK


def cmd_reduce(args: argparse.Namespace) -> int:
    """The smallest part of a failing model that still fails (``runtime.reduce``), written with the inputs it is
    fed; every refusal says that nothing was reduced or written."""
    try:
        return _reduce(args)
    except InvalidModelError:
        raise
    except IrToolsError as exc:
        raise IrToolsError(f"{exc.message}; nothing reduced or written", exc.loc, code=exc.code) from None


def _reduce(args: argparse.Namespace) -> int:
    from .runtime.against import weights_differ
    from .runtime.inputs import load_npz
    from .runtime.numeric_check import CompareOptions
    from .runtime.reduce import (
        Runs,
        activations,
        against_fails,
        compare_fails,
        judged_by_openvino_alone,
        openvino_fails,
        reduce_model,
        settle_dims,
    )

    if args.until == "openvino-fails" and (args.load_outputs or args.per_layer or args.atol or args.rtol
                                           or args.against):
        raise IrToolsError("--against, --load-outputs, --per-layer, --atol and --rtol say when compare fails: they "
                           "go with --until compare-fails", code="E-USAGE")
    if args.against and (args.load_outputs or args.per_layer):
        raise IrToolsError("--against compares each part with the same part of the original: --load-outputs and "
                           "--per-layer compare it with the reference", code="E-USAGE")
    if args.matching and args.until != "openvino-fails":
        raise IrToolsError("--matching says which OpenVINO failure counts: it goes with --until openvino-fails",
                           code="E-USAGE")
    try:
        pattern = re.compile(args.matching) if args.matching else None
    except re.error as exc:
        raise IrToolsError(f"--matching {args.matching}: {exc}", code="E-USAGE") from None
    graph = read_valid(args.model, args.bin)
    # --against: one part of two models of one structure runs one set of kernels, exactly alike
    tolerances = _tolerances(args, graph, *((0.0, 0.0) if args.against else ()))
    inputs, _ = _inputs(args, graph)
    saved = load_npz(args.load_outputs) if args.load_outputs else {}
    against = None
    if args.until == "openvino-fails":
        fails = openvino_fails(pattern.pattern if pattern else None)
    elif args.against:
        original = read_valid(args.against)
        differ = weights_differ(graph, original) if not (args.atol or args.rtol) else None
        if differ:
            raise IrToolsError(f"--against compares each part with the original's exactly (0 unless --atol/--rtol), "
                               f"and their weights differ in kind ({differ}), so every part would differ: give "
                               "--atol/--rtol, or reduce against a model of the same weights", code="E-USAGE")
        fails = against = against_fails(graph, original, tolerances)
    else:
        fails = compare_fails(CompareOptions(tolerances=tolerances, per_layer=args.per_layer, saved=saved))
    runs = Runs()
    text = _shows_progress(args)
    with status("running the original for the activations the parts are fed", text):
        fed = activations(graph, inputs, saved, runs, partial=judged_by_openvino_alone(fails))
    with progress_steps(None, "reducing", text) as step:
        found = reduce_model(graph, fed, fails, runs, lambda s: step(f"{s.phase}: {s.layers} layers"))
    staged = args.output.with_suffix(".npz")
    theirs = against.original_part(found.candidate) if against is not None else None
    if theirs is not None:
        settle_dims(theirs.part)
    files = [(staged, [_npz_bytes(staged, found.inputs)]), *ir_files(found.part, args.output)]
    if theirs is not None:
        files += ir_files(theirs.part, _original_part(args.output))
    write_together(files)  # (all or none: a part beside no inputs, or the original's part of another, misleads)
    steps = [{"phase": s.phase, "layers": s.layers, "fails": s.failure is not None, "why": s.failure,
              "cut": s.uncut is None, **({"uncut": s.uncut} if s.uncut else {}),
              "compared": s.not_compared is None, **({"not_compared": s.not_compared} if s.not_compared else {})}
             for s in found.steps]
    # (compare as reduce judged each part: the same saved activations, per-layer check and tolerances)
    again = "".join([f" --load-outputs {args.load_outputs}" if args.load_outputs else "",
                     " --per-layer" if args.per_layer else "", *(f" --atol {v}" for v in args.atol or []),
                     *(f" --rtol {v}" for v in args.rtol or [])])
    if theirs is not None:  # the part fails against the original's same part, not alone
        exact = [*(f"--atol {v}" for v in args.atol or ["0"]), *(f"--rtol {v}" for v in args.rtol or ["0"])]
        shows = (f"ir-tools compare {args.output} --against {_original_part(args.output)} --inputs {staged} "
                 f"{' '.join(exact)}")
    else:
        shows = f"ir-tools compare {args.output} --inputs {staged}{again}" if args.until == "compare-fails" else None
    summary = {"model": str(args.model), "until": args.until, "layers": found.layers,
               "original_layers": found.original_layers, "openvino_runs": found.runs, "failure": found.failure,
               "output": str(args.output), "inputs": str(staged),
               **({"original_part": str(_original_part(args.output))} if theirs is not None else {}),
               "reproduce": shows, "steps": steps}
    if args.format == "json":
        print(json_text.dumps(summary, indent=2))
        return EXIT_OK
    _say(args, *_collapsed([f"  {s.line()}" for s in found.steps]))
    print(f"reduced {found.original_layers} computing layers to {found.layers} in {found.runs} OpenVINO runs; "
          f"it fails: {found.failure}")
    beside = f", the same part of {args.against} {_original_part(args.output)}" if theirs is not None else ""
    print(f"wrote {args.output} and its inputs {staged}{beside}" + (f" (`{shows}` shows it)" if shows else ""))
    return EXIT_OK


def _original_part(output: Path) -> Path:
    """Where ``reduce --against`` writes the original's part beside the part found: MIN_original.xml."""
    return output.with_name(f"{output.stem}_original{output.suffix}")


def _collapsed(lines: list[str]) -> list[str]:
    """``lines`` with a run of equal ones said once, with its count."""
    runs = [(line, sum(1 for _ in run)) for line, run in groupby(lines)]
    return [line + (f"  (x{count})" if count > 1 else "") for line, count in runs]


def _op_counts(graph: Graph) -> Counter[str]:
    """Layers per op version, those inside TensorIterator, Loop and If bodies (nested ones too) counted as well:
    ``migrate`` rewrites inside bodies, and its table says what."""
    from .ir.bodies import body_layers

    kinds: Counter[tuple[str, str | None]] = Counter()  # (type, version): a label made per kind, not per layer
    todo = list(graph.layers())
    while todo:
        kinds.update((layer.type, layer.version) for layer in todo)
        todo = [inner for layer in todo if layer.children for inner in body_layers(layer)]
    return Counter({f"{kind}@{version}" if version else kind: n for (kind, version), n in kinds.items()})


def _print_histogram(args: argparse.Namespace, before: Counter[str], after: Counter[str], stats: Counter[str]) -> None:
    """Layers per op version before and after a rewrite, and what each rule rewrote (not with ``-q``)."""
    kinds = sorted(before.keys() | after.keys())
    width = max(28, *(len(kind) + 1 for kind in kinds))  # (ScaledDotProductAttention@opset13 is 33)
    _say(args, f"{'op':<{width}}{'before':>7}{'after':>7}",
         *(f"{kind:<{width}}{before[kind]:>7}{after[kind]:>7}" for kind in kinds),
         *(f"rewrote {count} x {rule}" for rule, count in sorted(stats.items())))


def _say_outputs(args: argparse.Namespace, found: list, what: str) -> None:
    """One line per output compared (``runners.compare_outputs``); with ``-q`` only those that differ."""
    for output in found:
        if not (args.quiet and output.passed):
            print(output.line(what))


def _other_openvino(python: Path) -> str:
    """The version of the OpenVINO that ``--check-with PYTHON`` runs, asked before anything is migrated; E-USAGE
    when that interpreter cannot run OpenVINO."""
    from .ir.model import Graph
    from .runtime.runners import ChildOpenVinoRunner

    try:
        return ChildOpenVinoRunner(python, Graph("probe")).version
    except IrToolsError as exc:
        raise IrToolsError(f"--check-with {python}: cannot run OpenVINO there ({exc.message})",
                           code="E-USAGE") from None


#: --check-with: another release's kernels round differently (accumulation order, fused or decomposed ops), by an
#: amount that grows with depth and scales with the output: allowed up to this fraction of max|output|.
PEAK_FRACTION = 1e-4
#: migrate --stateless --check: the steps of a generation loop run on the original and its stateless form (the
#: prompt, then one token a step): a state fed back to the wrong input diverges from the second on.
STATELESS_STEPS = 3


def _as_read_here(args: argparse.Namespace, graph: Graph, staged: Path) -> tuple[Graph, Path, Path]:
    """What ``--check`` runs on this OpenVINO of ``graph``, migrated and written to ``staged``: the file, but with its
    weights repacked for a release that reads the values of a byte in the other order (``PackedOrder``) packed back,
    as this OpenVINO reads them (it would load other weights from the file as written; ``--check-with`` runs that on
    its release); a copy read back from ``staged``, only where there are such weights."""
    from .passes.downgrade.packed_order import PackedOrder
    from .runtime.verdict import installed_release

    here = PackedOrder(installed_release())
    if next(here.unrepaired(graph), None) is None:
        return graph, staged, staged.with_suffix(".bin")
    graph = read_ir(staged)
    repacked = here.apply(graph).stats
    _say(args, f"check: {sum(repacked.values())} packed Const(s) repacked for OpenVINO {args.target} run here as "
               f"OpenVINO {here.target.name} reads them, packed back (--check-with runs the file as written on that "
               "release)")
    xml, bin_path = write_ir(graph, staged.with_name(f"read_here_{staged.name}"), graph.ir_version)
    return graph, xml, bin_path


def _migration_differs(args: argparse.Namespace, graph, legacy: bool, xml: Path, bin_path: Path,
                       other: str | None, itself: bool = False) -> str | None:
    """Run the original and the migrated model (as written) on the same seeded inputs; one line per output. The
    migrated model runs on the OpenVINO of ``--check-with`` when given (``other``: its version), else on ours.
    None where every output is the same; else what went wrong, for migrate's last line: an output that differs, or
    the OpenVINO that refused to read, compile or run the migrated model (then nothing was compared). ``itself``: with
    nothing to migrate, the original itself run on the OpenVINO of ``--check-with``."""
    from .ir.legacy import parse_legacy
    from .runtime.executor import stateful
    from .runtime.inputs import later_steps
    from .runtime.legacy_reference import LegacyReference
    from .runtime.openvino import ModelFiles, run_openvino_steps
    from .runtime.runners import (
        ChildOpenVinoRunner,
        OpenVinoRunner,
        ReferenceRunner,
        Runner,
        as_original,
        compare_outputs,
        holding,
        unseeded_random,
        varying_outputs,
    )
    from .runtime.steps import compare_stateless_steps, initial_states

    source = graph if legacy else read_ir(args.model, args.bin)  # (inputs are seeded to fit the original's uses)
    inputs, made = _inputs(args, source)
    stepped = args.stateless and stateful(source)  # (its steps against the stateless form fed its own state)
    steps = [inputs, *later_steps(made, STATELESS_STEPS, _seed(args), inputs)] if stepped and made else [inputs]
    files = ModelFiles(args.model, args.bin or args.model.with_suffix(".bin"))
    original: Runner
    running = OpenVinoRunner(graph, ModelFiles(xml, bin_path)) if other is None else \
        ChildOpenVinoRunner(args.check_with, graph, ModelFiles(xml, bin_path))
    migrated = as_original(running, source, graph)  # (named and typed as the original's outputs)
    on = "OpenVINO" if other is None else f"OpenVINO {other} of {args.check_with}"
    ran = "original" if itself else "migrated model"
    if legacy:
        _say(args, f"check: {args.model} is legacy IR, which OpenVINO cannot read: comparing {on} on the migrated "
             "model with the numpy executor on the original (legacy Pooling evaluated from its window spec)")
        original = ReferenceRunner(parse_legacy(args.model), LegacyReference)
    else:
        _say(args, f"check: comparing {on} with this OpenVINO, both on the original" if itself else
             f"check: comparing {on} on the migrated model with OpenVINO on the original"
             + (f", over {len(steps)} steps (the stateless form fed the state it gave)" if stepped else ""))
        original = OpenVinoRunner(source, files)
    tolerances = _tolerances(args, graph, 1e-6, 1e-5)
    peak = PEAK_FRACTION if other is not None and not (args.atol or args.rtol) else None
    with status("running the original", _shows_progress(args)):  # (what fails here is the original's, said so)
        want = run_openvino_steps(source, steps, files) if stepped else original.run(inputs)
        first = initial_states(source, steps[0]) if stepped else {}
        random = [] if stepped else unseeded_random(source)  # (its outputs differ at each inference: run it again)
        varying = varying_outputs(want, original.run(inputs)) if random else []
    try:
        with status(f"running the {ran}", _shows_progress(args)):
            found = compare_stateless_steps(source, want, steps, first, migrated, holding(tolerances, peak)) \
                if stepped else compare_outputs(inputs, want, migrated, tolerances, peak_fraction=peak)
    except IrToolsError as exc:  # (the migrated model, staged in a temporary folder: named as such, not by its path)
        print(f"  {on} refuses the {ran}: {exc.message}")
        stage = re.search(r"refused to (read|compile|infer)", exc.message)
        verb = {"read": "read", "compile": "compile", "infer": "run"}[stage.group(1)] if stage else "run"
        who = "OpenVINO" if other is None else f"OpenVINO {other}"
        return f"{who} refused to {verb} the {ran}, so nothing was compared"
    if peak is not None:
        _say(args, f"  (each float output within atol {PEAK_FRACTION:g} x its max|value| plus one step of its type "
                   "there: another release rounds otherwise; integer and boolean outputs exactly)")
    for name in varying:
        print(f"  {name}: not compared (two inferences of the original differ: the model holds "
              f"{', '.join(repr(n) for n in random)}, a random op of seeds 0, other values at each inference)")
    found = [output for output in found if output.name not in varying]
    _say_outputs(args, found, f"original on OpenVINO {other}" if itself else "migrated model")
    if found and all(output.passed and output.comparison.elements == output.comparison.nan_expected
                     for output in found):
        # (a detector of random weights finds no box; a T5 whose mask input, of no name the seeded inputs know, is fed
        # integers of [-50, 50) gives NaN everywhere: its check ran both and compared no value; said so, as otherwise
        # "same" of every output reads as a value check)
        empty = all(output.comparison.elements == 0 for output in found)
        print(f"  (every output is {'empty' if empty else 'empty or NaN in every element'} on these inputs: both ran "
              f"and agree on each output's shape{'' if empty else ' and NaN where NaN'}, but no value was compared; "
              "--inputs, --seed or --shape give others)")
    if all(output.passed for output in found):
        return None
    if not (legacy or stepped) and _reference_sides_with(args, source, files, graph, running, inputs, on, ran):
        return None
    return f"the original does not compute on OpenVINO {other} what it computes here" if itself else \
        "the migrated model does not compute what the original computes"


def _reference_sides_with(args: argparse.Namespace, source: Graph, files: ModelFiles, graph: Graph,
                          running: ActivationRunner, inputs: dict, on: str, ran: str) -> bool:
    """Where the original on this OpenVINO and ``ran`` (``graph``, run by ``running``: ``on``) differ, which of the
    two the reference takes the side of: whether ``compare`` (each output within its rounding bound, the model as it
    is compiled held to the run checked) passes ``graph`` on ``running`` and fails the original here. Said either
    way; a check it settles so passes: the difference is this OpenVINO's, which computes the original wrongly (the
    static T5 encoder, whose position bias OpenVINO CPU loses from 2023.2 on, said DIFFERENT for 2023.0, which
    computes it right)."""
    from .runtime.numeric_check import CompareOptions, compare_model
    from .runtime.runners import OpenVinoRunner

    def failing(report: CompareReport) -> str:
        return ", ".join([t.name for t in report.outputs if not t.passed and t.comparable]
                         + [t["name"] for t in report.compiled_as_is if not t["passed"]]) or "its layers"

    with status("asking the reference which of the two computes the original", _shows_progress(args)):
        try:
            here = compare_model(source, inputs, CompareOptions(), OpenVinoRunner(source, files))
            there = compare_model(graph, inputs, CompareOptions(), running)
        except IrToolsError as exc:
            print(f"  the reference does not settle it: {exc.message}")
            return False
    if not here.passed and there.passed:
        print(f"  the reference (compare's rounding bounds) sides with {on} on the {ran}, not with this OpenVINO on "
              f"the original, which it computes otherwise ({failing(here)}; `ir-tools compare {args.model}` shows "
              "where): the difference is this OpenVINO's")
        return True
    sides = "both (within their rounding bounds)" if here.passed and there.passed else \
        "this OpenVINO on the original" if here.passed else "neither"
    print(f"  the reference sides with {sides}" + ("" if there.passed else f" ({on} on the {ran}: "
                                                   f"{failing(there)} computed otherwise)"))
    return False


def _seed_option(text: str) -> int:
    """A ``--seed``: a whole number of 0 or more (what numpy's generator takes)."""
    try:
        seed = int(text)
    except ValueError:
        seed = -1
    if seed < 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a seed: give a whole number of 0 or more")
    return seed


def _add_input_options(p: argparse.ArgumentParser, weights: bool = True) -> None:
    if weights:
        p.add_argument("--bin", type=Path, help="weights file (default: next to the .xml)")
    p.add_argument("--inputs", type=Path, metavar="F.npz", help="input values (.npz keyed by input name, or .npy)")
    p.add_argument("--seed", type=_seed_option, help="seed for random inputs (default 0)")
    p.add_argument("--shape", action="append", default=[], metavar="NAME:D1,D2,...",
                   help="concrete shape for an input with dynamic dims (repeatable)")


def _versions() -> str:
    """ir_tools, OpenVINO and Python versions: what a bug report needs (OpenVINO's without importing it)."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    from . import __version__

    try:
        openvino = version("openvino")
    except PackageNotFoundError:
        openvino = "not installed"
    return f"ir_tools {__version__} (openvino {openvino}, Python {platform.python_version()})"


#: Options of other tools (Polygraphy, benchmark_app) that are another name of ours: said rather than the nearest
#: spelling of ours, which may mean something else (--load-inputs is not --load-outputs).
_SPELLED_ELSEWHERE = {"--load-inputs": "--inputs", "--input-shapes": "--shape", "--input-shape": "--shape",
                      "-data_shape": "--shape", "-shape": "--shape", "-i": "--inputs"}


def _nearest(word: str, options: list[str]) -> str:
    """`` (did you mean X?)`` for a mistyped option: ours that another tool spells ``word``, else the nearest."""
    ours = _SPELLED_ELSEWHERE.get(word)
    return f" (did you mean {ours}?)" if ours in options else did_you_mean(word, options)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, with what git and ruff say beside a mistyped name: the nearest command or option; an option
    the command does not take is reported by that command, with its usage (argparse's top level listed the commands).
    It remembers its options and commands as they are added (argparse keeps them in private attributes)."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        self.options: list[str] = []  # (before argparse's own __init__, which adds -h)
        self.commands: dict[str, argparse.ArgumentParser] = {}
        super().__init__(*args, **kwargs)

    def add_argument(self, *args, **kwargs):  # type: ignore[no-untyped-def,override]
        action = super().add_argument(*args, **kwargs)
        self.options += action.option_strings
        return action

    def add_subparsers(self, **kwargs):  # type: ignore[no-untyped-def,override]
        action = super().add_subparsers(**kwargs)
        self.commands = action.choices
        return action

    def parse_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def,override]
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command: _Parser = getattr(parsed, "parser", self)
            near = next((hint for word in extras if word.startswith("-")
                         and (hint := _nearest(word.split("=", 1)[0], command.options))), "")
            command.error(f"unrecognized arguments: {' '.join(extras)}{near}")
        return parsed

    def error(self, message: str) -> NoReturn:
        chosen = re.match(r"argument command: invalid choice: '([^']*)'", message)
        if chosen:
            message += did_you_mean(chosen[1], self.commands)
        super().error(message)


@cache  # built once per process: every option is static, and parse_args leaves the parser as it was
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ir-tools", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=_versions())
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("check", help="report every problem of one or more IR files")
    p.add_argument("models", nargs="+", type=Path, metavar="MODEL.xml",
                   help="IR files, directories (searched recursively for .xml files, but those whose root element is "
                        "another than <net>) or glob patterns")
    p.add_argument("--ir-only", action="store_true",
                   help="leave out the files named whose root element is another than <net> (other kinds of XML), "
                        "as a directory's are: for a hook handed every .xml file")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                   help="check files in N processes (default: the CPUs it may run on; the other commands read one "
                        "model)")
    p.add_argument("--no-openvino", action="store_true",
                   help="skip OpenVINO's verdict and its inference of the ops ir_tools has no shape rule for")
    p.add_argument("--compile", action="store_true", help="also compile each clean file on OpenVINO CPU")
    p.add_argument("--target", metavar="RELEASE",
                   help="also report every layer that OpenVINO release (2021.4 ... the current one, or opsetN) cannot "
                        "create, and an IR version it does not read (E-TARGET)")
    p.add_argument("--html", type=Path, metavar="REPORT.html",
                   help="also write one self-contained HTML page: the graph coloured by errors and warnings")
    p.set_defaults(run=cmd_check)

    p = sub.add_parser("inspect", help="inputs, outputs, op histogram and layers of a model")
    p.add_argument("model", type=Path, metavar="MODEL.xml")
    p.add_argument("--bin", type=Path, help="weights file (default: next to the .xml)")
    p.set_defaults(run=cmd_inspect)

    p = sub.add_parser("shapes", help="re-infer every port's dims; --fix writes corrected dims")
    p.add_argument("model", type=Path, metavar="MODEL.xml")
    p.add_argument("--bin", type=Path, help="weights file (default: next to the .xml)")
    p.add_argument("--fix", action="store_true", help="write the model with inferred dims")
    p.add_argument("--no-openvino", action="store_true",
                   help="trust the declared dims of the ops ir_tools has no shape rule for")
    p.add_argument("-o", "--output", type=Path, metavar="OUT.xml",
                   help="with --fix: where to write the corrected model")
    p.add_argument("--in-place", action="store_true", help="with --fix: overwrite the input")
    p.add_argument("--ir-version", type=int, choices=(10, 11), help="IR version to write (default: the input's)")
    p.set_defaults(run=cmd_shapes)

    p = sub.add_parser("run", help="run the numpy reference executor and save its outputs")
    p.add_argument("model", type=Path, metavar="MODEL.xml")
    _add_input_options(p)
    p.add_argument("-o", "--output", type=Path, required=True, metavar="OUT.npz",
                   help="where to write the outputs (.npz keyed by output name)")
    _add_save_inputs(p)
    p.set_defaults(run=cmd_run)

    p = sub.add_parser("compare", help="compare OpenVINO CPU with the numpy reference, per output and per layer")
    p.add_argument("model", type=Path, metavar="MODEL.xml")
    _add_input_options(p)
    _add_tolerance_options(p, "1e-5", "1e-5")
    p.add_argument("--against", type=Path, metavar="B.xml|B.onnx",
                   help="compare with another model instead of the reference: B on OpenVINO CPU (an IR) or onnxruntime "
                        "(ONNX) on the same inputs, outputs by name; the tolerance is derived from the two models' "
                        "weight types unless --atol/--rtol are given")
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="an OpenVINO CPU setting as you deploy the model (repeatable; e.g. "
                        "DYNAMIC_QUANTIZATION_GROUP_SIZE=32, INFERENCE_PRECISION_HINT=bf16): compare pins every "
                        "setting that moves numbers, runs OpenVINO again with these, and says which layers and outputs "
                        "they move beyond their bound and by how much (a measured deviation, not in the verdict)")
    p.add_argument("--per-layer", action="store_true",
                   help="also compare every layer, fed OpenVINO's activations; with --against: every tensor of the "
                        "two models matched by name, and the first that drifts beyond the tolerance named")
    p.add_argument("--compare-constants", action="store_true",
                   help="per layer, also compare constant subgraphs (weight decompression, shape arithmetic), "
                        "which are otherwise computed once by the reference")
    p.add_argument("--steps", type=int, metavar="N",
                   help="a stateful model (ReadValue/Assign): run N steps as a generation loop does, the prompt then "
                        "one token a step (attention_mask, position_ids and beam_idx following), the state carried "
                        "on both sides from a reset, every output and every state compared after each step; the "
                        "report names the first step that diverged (default 2 for a stateful model, 1 with --inputs, "
                        "which feed one inference); with --against "
                        "both models run the steps, their states compared too; with --load-outputs of a --steps "
                        "--per-layer --save-outputs run, each step's activations are compared too")
    _add_save_inputs(p)
    p.add_argument("--save-outputs", type=Path, metavar="F.npz",
                   help="save OpenVINO's and the reference's outputs (and, with --per-layer, every activation)")
    p.add_argument("--load-outputs", type=Path, metavar="F.npz",
                   help="also compare OpenVINO with outputs saved earlier by --save-outputs")
    p.add_argument("--html", type=Path, metavar="REPORT.html",
                   help="also write one self-contained HTML page: the graph coloured by status, details on click, "
                        "the error per layer against its tolerance")
    p.set_defaults(run=cmd_compare)

    p = sub.add_parser("convert-onnx", help="convert an ONNX model to IR: OpenVINO's frontend for every op, "
                                            "ir_tools' exact opset8 AvgPool for AveragePool/GlobalAveragePool")
    p.add_argument("model", type=Path, metavar="MODEL.onnx")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="OUT.xml", help="where to write the IR")
    p.add_argument("--ir-version", type=int, choices=(10, 11), default=11, help="IR version to write (default 11)")
    p.add_argument("--compress-to-fp16", action=argparse.BooleanOptionalAction, default=True,
                   help="store float weights as f16, as ovc does (default: on)")
    p.add_argument("--check", action="store_true",
                   help="run onnxruntime on the ONNX file and OpenVINO on the result on seeded inputs; "
                        "exit 1 (and write nothing) if any output differs")
    _add_tolerance_options(p, "1e-4", "1e-4", "--check: ")
    _add_input_options(p, weights=False)
    p.set_defaults(run=cmd_convert_onnx)

    p = sub.add_parser("migrate", help="make a model loadable by the OpenVINO you deploy: every average pooling "
                                       "(AvgPool-1/14/16, legacy IR v7) as opset8 AvgPool, exactly; with --target "
                                       "RELEASE, every layer that release cannot create, with the same numbers")
    p.add_argument("model", type=Path, metavar="MODEL.xml")
    p.add_argument("-o", "--output", type=Path, metavar="OUT.xml", help="where to write the migrated model")
    p.add_argument("--ir-version", type=int, choices=(10, 11),
                   help="IR version to write (default: the input's, 11 for legacy IR; with --target, one it reads)")
    p.add_argument("--target", metavar="RELEASE",
                   help="also rewrite what that OpenVINO release (2021.4 ... the current one, or opsetN) cannot create "
                        "or would compute otherwise (samples/README_migrate.md lists the rewrites); refuse, writing "
                        "nothing, what has no rewrite")
    p.add_argument("--stateless", action="store_true",
                   help="make the model's state (ReadValue/Assign) inputs and outputs, as optimum-intel exported "
                        "language models before OpenVINO 2023.3 (releases before it cannot run a dynamic state)")
    p.add_argument("--check", action="store_true",
                   help="run original and migrated model on seeded inputs; exit 1 if any output differs")
    p.add_argument("--check-with", type=Path, metavar="PYTHON",
                   help="as --check, but run the migrated model on the OpenVINO of that Python interpreter (an older "
                        "release's virtual environment), within 1e-4 x max|output| plus one step of the output's "
                        "type there (an integer or boolean output exactly) unless --atol/--rtol are given; "
                        "exit 1, writing nothing, if it refuses the model or any output differs (a release other "
                        "than --target's is checked with a warning: the check says nothing of the target)")
    _add_tolerance_options(p, "1e-6 (--check-with: 1e-4 x max|output|)", "1e-5 (--check-with: 0)",
                           "--check, --check-with: ")
    p.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")
    p.add_argument("--in-place", action="store_true", help="overwrite the input model")
    _add_input_options(p)
    p.set_defaults(run=cmd_migrate)

    p = sub.add_parser("transform", help="run transformation passes (ir_tools.Pass) over a model, validated before "
                                         "and after each")
    p.add_argument("model", type=Path, metavar="MODEL.xml")
    p.add_argument("--bin", type=Path, help="weights file (default: next to the .xml)")
    p.add_argument("--pass", dest="passes", action="append", required=True, metavar="MODULE:NAME",
                   help="a Pass subclass or instance: an importable module or a FILE.py, then its name (repeatable; "
                        "run in order)")
    p.add_argument("--fixed-point", action="store_true", help="repeat the passes until none changes the model")
    p.add_argument("-o", "--output", type=Path, metavar="OUT.xml", help="where to write the transformed model")
    p.add_argument("--in-place", action="store_true", help="overwrite the input model")
    p.add_argument("--ir-version", type=int, choices=(10, 11), help="IR version to write (default: the input's)")
    p.set_defaults(run=cmd_transform)

    p = sub.add_parser("extract", help="write the part of a model between named tensors as a model of its own")
    p.add_argument("model", type=Path, metavar="MODEL.xml")
    p.add_argument("--bin", type=Path, help="weights file (default: next to the .xml)")
    p.add_argument("--inputs", action="append", required=True, metavar="NAME[,NAME]",
                   help="tensors to cut at, each becoming an input of the part (as OpenVINO names them; a comma inside "
                        "a name written \\,; repeatable). A model input the part needs must be among them")
    p.add_argument("--outputs", action="append", required=True, metavar="NAME[,NAME]",
                   help="tensors the part computes, each becoming an output (as --inputs; repeatable)")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="PART.xml",
                   help="where to write the part (and its .bin, holding only the weights it uses)")
    p.set_defaults(run=cmd_extract)
    p = sub.add_parser("reduce", help="shrink a failing model to a small part that still fails (bisection, then one "
                                      "layer at a time; each candidate run by OpenVINO in a child process)")
    p.add_argument("model", type=Path, metavar="MODEL.xml")
    _add_input_options(p)
    p.add_argument("-o", "--output", type=Path, required=True, metavar="MIN.xml",
                   help="where to write the part found (and MIN.npz: the original's activations it is fed)")
    p.add_argument("--until", choices=("compare-fails", "openvino-fails"), default="compare-fails",
                   help="what a part must still do: compare fails on it (default; OpenVINO against the reference, "
                        "and against --load-outputs), or OpenVINO refuses or crashes on it")
    p.add_argument("--matching", metavar="REGEX",
                   help="with --until openvino-fails: only a failure whose message matches counts")
    p.add_argument("--load-outputs", type=Path, metavar="F.npz",
                   help="activations saved from the original by `compare --per-layer --save-outputs`: the parts are "
                        "fed them, and compared with them")
    p.add_argument("--against", type=Path, metavar="ORIGINAL.xml",
                   help="compare each part with the same part of ORIGINAL (cut at the same tensors, by name, fed the "
                        "same values; both on OpenVINO), exactly unless --atol/--rtol say otherwise (parts of one "
                        "structure run the same kernels), rather than with the reference")
    _add_tolerance_options(p, "1e-5 (0 with --against)", "1e-5 (0 with --against)")
    p.add_argument("--per-layer", action="store_true", help="compare each part per layer too, as compare does")
    p.set_defaults(run=cmd_reduce)
    for name, p in sub.choices.items():
        _add_output_options(p, OUTPUT_OPTIONS[name])
        _add_selection_options(p)
        p.set_defaults(parser=p)
    return parser


class OutputOptions(NamedTuple):
    """What ``-q`` keeps and ``-v`` adds on one command, and its ``--format`` choices beyond text (with what they
    print): every command takes -q and -v, those with a report a program reads take --format."""

    quiet: str
    verbose: str = "list every repeated diagnostic"
    formats: tuple[str, ...] = ()
    formats_help: str = ""


_JSON = "json: one JSON document (README: check --format json, compare report)"
#: Per command, in ``build_parser``'s order.
OUTPUT_OPTIONS = {
    "check": OutputOptions(
        "no line for a file without errors (the total stays)",
        "list every repeated diagnostic; also say, per file, how many layers ir_tools and OpenVINO re-inferred "
        "and which were trusted",
        ("json", "sarif", "github"), "json: one document for all files; sarif: SARIF 2.1.0 for code scanning; "
        "github: workflow annotations (::error file=F,line=N,title=CODE::message) followed by the summary lines"),
    "inspect": OutputOptions("the model's summary and its errors", formats=("json",), formats_help=_JSON),
    "shapes": OutputOptions("no summary of what was re-inferred"),
    "run": OutputOptions("only the line saying what was written, not each output's type and shape"),
    "compare": OutputOptions("one line: the verdict and what it rests on (--html and --save-outputs as asked)",
                             "list every layer compared and every layer not checked, and every repeated diagnostic",
                             ("json",), _JSON),
    "convert-onnx": OutputOptions("only the outputs that differ and the line saying what was written"),
    "migrate": OutputOptions("no before/after table: only the outputs that differ and the line saying what was "
                             "written"),
    "transform": OutputOptions("no before/after table: only the line saying what was written"),
    "extract": OutputOptions("only the line saying what was written"),
    "reduce": OutputOptions("no steps: only the part found and what was written",
                            formats=("json",), formats_help="json: one document: the steps, the part found, how many "
                                                            "OpenVINO runs"),
}


def _add_output_options(p: argparse.ArgumentParser, options: OutputOptions) -> None:
    """``-q``, ``-v`` and (where the command has a report a program reads) ``--format``: the same everywhere."""
    p.add_argument("--quiet", "-q", action="store_true",
                   help=f"errors only: no warnings, no progress; {options.quiet}")
    p.add_argument("--verbose", "-v", action="store_true", help=options.verbose)
    if options.formats:
        p.add_argument("--format", choices=("text", *options.formats), default="text",
                       help=f"text (default); {options.formats_help}")


def _add_selection_options(p: argparse.ArgumentParser) -> None:
    """``--select`` and ``--ignore`` on a command (``settings``)."""
    p.add_argument("--select", metavar="CODE,...",
                   help="show only these diagnostic codes or prefixes (W: every warning); default: [tool.ir-tools] "
                        "select in the nearest pyproject.toml, else all. Errors that stop a command always show")
    p.add_argument("--ignore", metavar="CODE,...",
                   help="leave out these codes or prefixes (default: [tool.ir-tools] ignore); fatal ones always show")


def _say(args: argparse.Namespace, *lines: str) -> None:
    """Print what ``-q`` leaves out: tables, per-output lines, summaries."""
    if not args.quiet:
        for line in lines:
            print(line)


def _shows_progress(args: argparse.Namespace) -> bool:
    """Progress and status lines (on a terminal's stderr only: ``console``) for a text report, unless ``-q``."""
    return getattr(args, "format", "text") == "text" and not args.quiet


def _report_invalid(exc: InvalidModelError, model: str, args: argparse.Namespace) -> int:
    """The diagnostics ``check`` gives, on stderr, then why nothing was done (every error: the user's selection
    leaves out warnings only, since the command did not act)."""
    shown = [d for d in exc.diagnostics if d.severity != "warning" or args.selection.keeps(d)]
    _print_diagnostics(shown, args.verbose, args.quiet, stream=sys.stderr)
    _refusal_in_format(args, model, shown)
    errors = sum(d.severity == "error" for d in exc.diagnostics)
    warnings = len(exc.diagnostics) - errors
    if exc.diagnostics[0].code == "E-PASS":
        print(f"{model}: {errors} error(s), {warnings} warning(s); nothing written: a pass failed", file=sys.stderr)
        return EXIT_UNUSABLE
    hint = "" if model.endswith(".onnx") else " (`ir-tools check` lists the same)"
    print(f"{model}: {errors} error(s), {warnings} warning(s); nothing done: fix the errors first{hint}",
          file=sys.stderr)
    return EXIT_UNUSABLE if exc.fatal else EXIT_FOUND


def _refusal_in_format(args: argparse.Namespace, model: str | None, diagnostics: list[Diagnostic]) -> None:
    """With ``--format json`` (or check's ``sarif`` or ``github``), a command that refused its input or its command
    line prints on stdout what it printed on stderr, as ``check --format ...`` prints diagnostics, so a program
    reading its report learns why there is none (a SARIF upload gets a log, not an empty file; a workflow an
    annotation)."""
    form = getattr(args, "format", "text")
    if form == "json":
        print(render_json({model: diagnostics}))
    elif form == "sarif":
        from . import __version__

        print(render_sarif({model: diagnostics}, __version__))
    elif form == "github":
        print(render_github({model: diagnostics}))


def _refuse(args: argparse.Namespace, model: str | None, refusal: Diagnostic) -> int:
    """A refusal that ended the command: on stderr, and in the format asked on stdout (``_refusal_in_format``);
    exit 2."""
    print(refusal.render(), file=sys.stderr)
    _refusal_in_format(args, model, [refusal])
    return EXIT_UNUSABLE


def _model_named(args: argparse.Namespace) -> str | None:
    """The model the command line names, where it names one: a command's MODEL, check's one file."""
    model = getattr(args, "model", None)
    if model is None and len(getattr(args, "models", ())) == 1:
        try:
            paths = model_paths(args.models, args.ir_only)
        except IrToolsError:
            paths = []
        model = paths[0] if len(paths) == 1 else None
    return None if model is None else str(model)


def _crash_refusal(args: argparse.Namespace, text: str) -> None:
    """The supervisor's E-CRASH (``text``) as the command would have refused: at its model, in the format asked."""
    model = _model_named(args)
    _refuse(args, model, Diagnostic("error", "E-CRASH", text, SourceLoc(model), ended=True))


def _plain_pages() -> None:
    """numpy asks the kernel for transparent huge pages (madvise) for every array of 4 MB or more; where the kernel
    then compacts memory on the first touch of each (THP defrag ``madvise``, as on the 2-core VMs the benchmarks run
    on), the fresh float64 bounds of compressed weights (50M elements of a 50M-parameter model) cost more in page
    faults than in arithmetic. This process's arrays are made, used once or twice and dropped: plain pages, unless
    NUMPY_MADVISE_HUGEPAGE says otherwise. The library leaves numpy alone."""
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return
    import numpy as np

    setter = getattr(getattr(getattr(np, "_core", None), "multiarray", None), "_set_madvise_hugepage", None)
    if setter is not None:
        setter(False)


#: mallopt's options (malloc.h).
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3


@cache
def _kept_heap() -> None:
    """glibc gives the kernel back each freed block of 128 KB or more (the threshold then grows with what is freed) and
    trims the heap's top, so that the next such array costs page faults afresh, zeroing included; compare's walks make
    and drop arrays of every size, a few per layer. This process keeps what it frees for reuse: blocks below 32 MB come
    from the heap, which is not trimmed (fewer page faults for a somewhat higher peak RSS). Left to the user who sets
    glibc's malloc tunables (GLIBC_TUNABLES), and on a C library without ``mallopt``. The library leaves malloc
    alone."""
    if "GLIBC_TUNABLES" in os.environ:
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    for option, value in ((_M_MMAP_THRESHOLD, 32 << 20), (_M_TRIM_THRESHOLD, 2**31 - 1), (_M_TOP_PAD, 64 << 20)):
        mallopt(option, value)


#: The commands whose ``-o`` is a model: its ``.bin`` is written beside it (and ``reduce``'s inputs, MIN.npz).
_WRITES_A_MODEL = frozenset({"shapes", "convert-onnx", "migrate", "transform", "extract", "reduce"})


def _files_read(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """Every file the command reads, with what it is: its models and their weights, ``--inputs``, ``--load-outputs``
    and ``--against`` (and its weights)."""
    read: list[tuple[str, Path]] = []
    models = getattr(args, "models", None) or [getattr(args, "model", None)]
    for model in models:
        if model is not None:
            read.append(("the input model", model))
            if not getattr(args, "bin", None) and model.name and model.suffix.lower() != ".onnx":  # (an IR's
                # default weights; not of a folder named without a name, as ".", whose files are searched)
                read.append(("the input model's weights", model.with_suffix(".bin")))
    for option, what in (("bin", "the input model's weights"), ("inputs", "the --inputs file"),
                         ("load_outputs", "the --load-outputs file"), ("against", "the --against model")):
        value = getattr(args, option, None)
        if isinstance(value, Path):  # (extract's --inputs are tensor names)
            read.append((what, value))
    if isinstance(getattr(args, "against", None), Path) and args.against.suffix.lower() == ".xml":
        read.append(("the --against model's weights", args.against.with_suffix(".bin")))
    return read


def _files_written(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """Every file the command may write, with the option that names it."""
    written: list[tuple[str, Path]] = []
    output = getattr(args, "output", None)
    if output is not None:
        written.append(("-o", output))
        if args.command in _WRITES_A_MODEL:
            written.append(("-o (its .bin)", output.with_suffix(".bin")))
        if args.command == "reduce":
            written.append(("-o (its inputs)", output.with_suffix(".npz")))
            if getattr(args, "against", None) is not None:
                part = _original_part(output)
                written += [("-o (the original's part)", part), ("-o (its .bin)", part.with_suffix(".bin"))]
    for option in ("save_inputs", "save_outputs", "html"):
        value = getattr(args, option, None)
        if value is not None:
            written.append((f"--{option.replace('_', '-')}", value))
    return written


def _defaults_taken(args: argparse.Namespace, exc: IrToolsError) -> str:
    """Beside a model failing to run (OpenVINO's refusal, or a layer of the reference), the dynamic dims its seeded
    inputs took by default: a fixed-length language model reshapes to 128 where the default sequence is 8, and the
    error alone named a Reshape (found by a first-use QA run); and the seeded inputs drawn at random where the graph
    does not tell what fits (``runtime.inputs.unfitted``: a Reshape's target shape of [-11, 35], a TopK's k of -10,
    which the error named by its layer alone), whose values only the caller can give."""
    if exc.code not in ("E-OPENVINO", "E-OP", "E-EXEC"):
        return ""
    taken, unfit = getattr(args, "default_dims", None), getattr(args, "unfitted", None)
    said = f" (the inputs' dynamic dims took defaults: {'; '.join(taken)}; --shape NAME:D1,D2,... gives others)" \
        if taken else ""
    if unfit:
        said += (f" (inputs seeded at random where the model does not tell what fits: {'; '.join(unfit)}; give "
                 "values that fit with --inputs F.npz, keyed by input name)")
    return said


def _refuse_overwriting(args: argparse.Namespace) -> None:
    """E-OVERWRITE, before anything is read, where a file the command would write is one it reads (only
    ``--in-place`` writes over the input model), or where two of its outputs are one file; E-USAGE for ``-o`` with
    ``--in-place``, and for an output that is a directory (the ``.bin`` beside it was written, then the ``.xml``
    failed: E-INTERNAL); E-WRITE for one in a folder it cannot write in (found after the whole run, as E-INTERNAL)."""
    if getattr(args, "in_place", False) and getattr(args, "output", None) is not None:
        raise IrToolsError("-o and --in-place both say where to write: give one", code="E-USAGE")
    read, written = _files_read(args), _files_written(args)
    for i, (option, path) in enumerate(written):
        if path.is_dir():
            raise IrToolsError(f"{option} {path} is a directory: give a file's path", code="E-USAGE")
        why = unwritable(path)
        if why is not None:
            raise IrToolsError(f"{option} {path} cannot be written: {why}", code="E-WRITE")
        what = next((what for what, source in read if same_file(path, source)), None)
        if what is not None:
            hint = ", or --in-place to overwrite it" if hasattr(args, "in_place") and what == "the input model" else ""
            raise IrToolsError(f"{option} {path} is {what}: give another path{hint}", code="E-OVERWRITE")
        other = next((o for o, p in written[:i] if same_file(path, p)), None)
        if other is not None:
            raise IrToolsError(f"{option} {path} is also where {other} writes: give another path", code="E-OVERWRITE")
    output = getattr(args, "output", None)
    if output is not None and args.command in _WRITES_A_MODEL and output.suffix.lower() != ".xml":
        raise IrToolsError(f"-o {output}: an IR is an .xml file with its .bin beside it: give a path ending in .xml "
                           "(as ov.save_model requires)", code="E-USAGE")


def main(argv: list[str] | None = None) -> int:
    """The command line ``argv`` (else the process's) carried out: its exit code."""
    return _main(build_parser().parse_args(argv))


def _main(args: argparse.Namespace) -> int:
    """The command of parsed ``args`` carried out, every refusal a diagnostic: its exit code."""
    args.selection = Selection()
    # This process reads one or a few large graphs that hold no reference cycles: a cyclic collection
    # would only rescan them (a third of the reading time at 50k layers). The library leaves gc alone.
    gc.disable()
    _plain_pages()
    _kept_heap()
    try:
        args.selection = selection(args.select, args.ignore)
        if args.quiet and args.verbose:
            raise IrToolsError("-q says less and -v says more: give one", code="E-USAGE")
        _refuse_overwriting(args)
        return args.run(args)
    except InvalidModelError as exc:
        return _report_invalid(exc, str(getattr(args, "model", "")), args)
    except IrToolsError as exc:
        model = None if getattr(args, "model", None) is None else str(args.model)
        loc = exc.loc if exc.loc.file else SourceLoc(model)
        return _refuse(args, model, Diagnostic("error", exc.code, exc.message + _defaults_taken(args, exc), loc,
                                               ended=True))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader of our output went away (`| head`): stop quietly, as a pipe expects
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as exc:  # last resort: the CLI never shows a traceback to a user
        print(f"error[E-INTERNAL]: ir-tools failed unexpectedly ({type(exc).__name__}: {exc}); please report this",
              file=sys.stderr)
        return EXIT_UNUSABLE
    finally:
        gc.enable()


def run() -> NoReturn:
    """The ``ir-tools`` command (and ``python -m ir_tools``): ``main``, then the end of the process without the
    interpreter's teardown, which frees every array and object one by one and unloads OpenVINO's plugins only for the
    process to end (a few percent of a compare). The output is flushed and the atexit handlers run first (temporary
    directories left to a finalizer are removed there). The command line is parsed here, before the command's process
    forks: a crash of that process is then reported as the command would report a refusal (``--format``)."""
    args = build_parser().parse_args()
    os._exit(supervised(partial(_command, args), partial(_crash_refusal, args)))


def _command(args: argparse.Namespace) -> int:
    """``_main`` as the command ``run`` supervises: its output flushed and the atexit handlers run, then its code."""
    code = _main(args)
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # (as main: the reader went away)
        code = 141
    sys.stderr.flush()
    atexit._run_exitfuncs()
    return code


if __name__ == "__main__":
    run()
