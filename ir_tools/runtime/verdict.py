"""``check`` as the library gives it and the CLI prints it: our checks, then OpenVINO's verdict.

On a file our checks find clean, OpenVINO reads it (and with ``compile_model`` compiles it on CPU); its
refusal is an E-OPENVINO error, and its inference of the layers we have no shape rule for is compared
with their declared dims (``shapes.adopt``). OpenVINO reads the file in a thread while our checks run
(its read releases the GIL); a file our reader refuses unparsed (a DOCTYPE, another format) is never
handed to it.

The same inference is what a graph changed in memory needs where our rules do not re-infer a layer: ``fix_shapes``
(``ir_tools.fix_shapes``) and ``refresh_after`` (``transform``, before it writes) have OpenVINO read the graph and
adopt its inference to a fixed point; a pass's gate (``passes/``) never asks OpenVINO.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING

from ..base.diagnostics import Diagnostic, has_errors
from ..base.errors import IrToolsError, SourceLoc
from ..ir.model import Graph, Layer, require_graph
from ..ir.reader import encoding_of, graph_of, parse_may_start
from ..ops import releases
from ..ops.opsets import lookup
from ..ops.spec import TensorType
from ..passes import target as passes_target
from ..passes.base import PassError, PassResult, check_after
from ..passes.builder import origin_of
from ..passes.checks import STATE_TYPES
from ..passes.legacy import read_migratable
from ..passes.shapes import Propagation, adopt, fix_until_settled, propagate
from ..passes.target import and_in_bodies, target_diagnostics, weights_read_otherwise
from ..passes.validate import (
    InvalidModelError,
    check_file,
    check_graph,
    forget_passed,
    last_passed,
    misfit_diagnostics,
    passed,
    require_valid,
)

if TYPE_CHECKING:
    import openvino as ov

    from .openvino import ModelFiles


@dataclass
class CheckResult:
    """Every diagnostic of one file, in the file's order (by line, as a compiler prints them; those of no line
    first), with the graph and shape propagation behind them (None where not reached)."""

    diagnostics: list[Diagnostic]
    graph: Graph | None
    propagation: Propagation | None

    def __post_init__(self) -> None:
        self.diagnostics = sorted(self.diagnostics, key=lambda d: d.loc.line or 0)


def check_model(source: Graph | str | Path, bin_path: str | Path | None = None, openvino: bool = True,
                compile_model: bool = False, target: str | None = None) -> CheckResult:
    """Everything wrong with one IR file, or with a Graph as it is in memory (as ``onnx.checker`` takes a
    ModelProto: not read again, OpenVINO reading it as ``write_ir`` would write it); with ``openvino`` (the default,
    as in the CLI), OpenVINO's verdict on a model otherwise clean and its inference of the ops ir_tools has no shape
    rule for; with ``target`` (an OpenVINO release or ``opsetN``), every layer that release cannot create
    (E-TARGET). E-USAGE for a ``bin_path`` given with a Graph (its weights are the graph's) or another source."""
    release = None if target is None else releases.release(target)  # an unknown target refuses before any work
    read = files = None
    if isinstance(source, Graph):
        if bin_path is not None:
            raise IrToolsError("check(graph, bin_path): a Graph's weights are its own; bin_path is for a path",
                               code="E-USAGE")
        graph = source
        misfits = misfit_diagnostics(graph)  # (a caller's graph: what the checks would fail on inside, or pass)
        diags, result = (misfits, None) if misfits else check_graph(graph)
    else:
        if not isinstance(source, str | PathLike):
            raise IrToolsError(f"check: expected a Graph or the path of an .xml file, not {type(source).__name__}",
                               code="E-USAGE")
        path = Path(source)
        openvino = openvino and parse_may_start(path)
        if openvino:
            from .openvino import ModelFiles, read_in_background

            files = ModelFiles(path, Path(bin_path) if bin_path else path.with_suffix(".bin"))
            read = None if _read_once_clean(path) else read_in_background(files)
        diags, graph, result = check_file(path, bin_path)
    if graph is not None and release is not None:
        diags = [*diags, *target_diagnostics(graph, release)]
    elif graph is not None and openvino:
        diags = [*diags, *weights_read_otherwise_here(graph)]
    if graph is None or result is None or has_errors(diags) or not openvino:
        if read is not None:
            _settled(read)
        return CheckResult(diags, graph, result)
    return CheckResult([*diags, *_verdict(graph, result, files, compile_model, read)], graph, result)


def _settled(read: Callable[[], object]) -> None:
    """Wait for OpenVINO's read in the background to end, its model or refusal unused: ``check`` returns only once
    nothing reads the files, which its caller may write next (a .bin OpenVINO maps, truncated under it, kills the
    process with SIGBUS: seen in a test that checks a file, then copies another over it)."""
    with contextlib.suppress(IrToolsError):
        read()


def weights_read_otherwise_here(graph: Graph) -> list[Diagnostic]:
    """W-TARGET at each layer whose weights the installed OpenVINO reads otherwise than the file was written for (a
    file migrated for another release: u4 repacked for 2023.0): ``check`` says it, and ``run`` and ``compare``, whose
    sides both read the bytes as written and so agree on weights nobody meant."""
    installed = installed_release()
    return and_in_bodies(graph, lambda g: weights_read_otherwise(g, installed, "warning", "W-TARGET"))


def installed_release() -> releases.Release:
    """The release of the table the installed OpenVINO is (the newest for one newer than the table)."""
    from .openvino import OPENVINO_VERSION

    try:
        return releases.release(OPENVINO_VERSION)
    except IrToolsError:
        return list(releases.releases().values())[-1]


def read_judged(xml_path: str | Path, bin_path: str | Path | None = None) -> Graph:
    """Read and validate an IR for a command that acts on it (``run``, ``migrate``): our checks, then OpenVINO's
    verdict where a layer has no shape rule of ours (an op ir_tools does not model is judged by OpenVINO alone);
    InvalidModelError with every diagnostic ``check`` gives otherwise (a gate: warnings are looked for only then)."""
    diags, graph, result = check_file(xml_path, bin_path, warnings=False)
    verdict = []
    if graph is not None and result is not None and not has_errors(diags):
        verdict = judge_unmodelled(graph, result, Path(xml_path), bin_path)
    if graph is None or result is None or has_errors([*diags, *verdict]):
        if graph is not None:
            diags = check_graph(graph)[0]
        raise InvalidModelError([*diags, *verdict])
    return graph


def judge_unmodelled(graph: Graph, result: Propagation, xml_path: Path,
                     bin_path: str | Path | None = None) -> list[Diagnostic]:
    """OpenVINO's verdict on a file our checks found clean, asked only where a layer is of an op version we have no
    shape rule for (our checks cannot tell what OpenVINO would refuse there); [] otherwise."""
    if not any(_unmodelled(layer) for layer in result.not_inferred) or not parse_may_start(xml_path):
        return []
    from .openvino import ModelFiles

    files = ModelFiles(xml_path, Path(bin_path) if bin_path else xml_path.with_suffix(".bin"))
    return _verdict(graph, result, files)


def fix_shapes(graph: Graph, openvino: bool = True) -> int:
    """Public entry, as ``ir-tools shapes --fix``: every port's re-inferred dims and precision written into ``graph``,
    ours where a rule of ours infers the layer, else (``openvino``, as the command by default) OpenVINO's inference of
    the graph as it is in memory, once our checks find it clean (``ask_openvino``), and what follows re-inferred from
    those until nothing changes (``shapes.fix_until_settled``); returns how many ports were corrected.
    ``openvino=False`` is ``--no-openvino``: a layer without a rule of ours keeps its declared dims. IrToolsError
    (E-OPENVINO) if OpenVINO refuses to read the graph (its dims are then those of our rules alone); E-USAGE for
    what is no Graph (a path: the graph is corrected in place, then ``write_ir`` writes it)."""
    require_graph(graph, "fix_shapes")
    return fix_until_settled(graph, propagate(graph), ask_openvino if openvino else None)


def ask_openvino(graph: Graph, result: Propagation) -> dict[tuple[str, int], TensorType] | None:
    """OpenVINO's inference of the layers ``result`` (a propagation whose dims ``fix_dims`` wrote) did not re-infer,
    asked only once our checks find the graph clean, as ``check`` hands OpenVINO a file (its reader may crash the
    process on what they refuse); None otherwise (``fix_until_settled``'s ``ask``). IrToolsError (E-OPENVINO) if it
    refuses to read the graph."""
    if not result.not_inferred or has_errors(check_graph(graph, result, warnings=False)[0]):
        return None
    return _openvino_inference(graph, result)


def refresh_after(graph: Graph, passes: list[str]) -> int:
    """What ``ir-tools transform`` does after its passes, before it writes, so that what it writes passes ``check``:
    ``check`` of the graph (``check_after``), then OpenVINO's verdict on it as it is in memory (its read, as ``check``
    asks of a file otherwise clean) and the dims of the layers our rules do not re-infer refreshed from OpenVINO's
    inference, to a fixed point (``shapes.fix_until_settled``; ``Pass.run``'s gate, which never asks OpenVINO, leaves
    them as declared); checked again if a port changed. Returns the ports corrected; PassError naming ``passes`` with
    OpenVINO's refusal (E-OPENVINO) or what ``check`` finds."""
    forget_passed(graph)  # (a user's pass may edit a layer in place, say nothing and tell the graph nothing)
    check_after(graph, None, passes)
    result = propagate(graph)
    try:
        adopt(result, _openvino_inference(graph, result))
    except IrToolsError as exc:
        raise PassError(f"OpenVINO refuses the graph {', '.join(passes)} left (1 error follows)", SourceLoc(
            str(graph.source) if graph.source else None), [Diagnostic("error", exc.code, exc.message, exc.loc)],
                        ) from None
    corrected = fix_until_settled(graph, result)
    if corrected:
        check_after(graph, None, passes)
    return corrected


#: The layers a check did not re-infer, each with the types of its inputs then (``inputs_not_inferred``).
Uninferred = dict[str, tuple[TensorType | None, ...]]


def inputs_not_inferred(graph: Graph) -> Uninferred | None:
    """The layers that ``graph``'s last passed check (as read, for ``migrate``) did not re-infer, whose dims OpenVINO
    judged then, each with the types of its inputs there; None if no check passed."""
    result = passed(graph)
    return None if result is None else {layer.id: _input_types(graph, result, layer) for layer in result.not_inferred}


def refresh_rewritten(graph: Graph, before: Uninferred | None = None) -> int:
    """The dims of the layers our rules do not re-infer that a rewrite built or gave other inputs, and of what follows
    them, refreshed from OpenVINO's inference of the graph as it is in memory (``fix_until_settled``), so that what
    ``migrate`` writes passes ``check``, which compares such a layer's dims with OpenVINO's: a rewrite on a computed
    shape declares [?,?,?,?] where OpenVINO bounds it [?,?,?,16] (a Pad-12 of pads that may be negative as Pad-1 and a
    crop, rule 3 of ``PadTo1``); DeBERTa's If of a dynamic rank made its body makes the Broadcast after it [?,?,?].
    ``before``: ``inputs_not_inferred`` of the graph as read; a layer there whose inputs have the same types now keeps
    the dims OpenVINO gave it then, as an exact rewrite keeps its outputs (Pad-12 respelled Pad-1). Without it, every
    layer a rewrite built (``ir_tools_origin``) counts. OpenVINO is asked nothing where no layer counts; returns the
    ports corrected."""
    since = last_passed(graph)  # (the gate after the rewrites, unless something changed the graph since)
    result = since if since is not None and since.revision == len(graph.changes) else propagate(graph, since)
    if not any(origin_of(layer.rt_info) if before is None
               else before.get(layer.id) != _input_types(graph, result, layer) for layer in result.not_inferred):
        return 0
    result = propagate(graph)  # (every port, not only those a continued walk went over: fix_dims writes those)
    adopt(result, _openvino_inference(graph, result))
    corrected = fix_until_settled(graph, result)
    if corrected:
        require_valid(graph)
    return corrected


def _input_types(graph: Graph, result: Propagation, layer: Layer) -> tuple[TensorType | None, ...]:
    return tuple(None if key is None else result.types.get(key) for key in graph.input_keys(layer.id,
                                                                                             layer.input_ids()))


def migrate(source: Graph | str | Path, target: str | None = None, stateless: bool = False) -> PassResult:
    """``ir_tools.migrate``, as ``ir-tools migrate`` writes: ``passes.target.migrate``, then ``refresh_rewritten``."""
    graph = graph_of(source, read_migratable)
    before = inputs_not_inferred(graph)
    result = passes_target.migrate(graph, target, stateless, checked=not isinstance(source, Graph))
    refresh_rewritten(result.graph, before)
    return result


def _openvino_inference(graph: Graph, result: Propagation) -> dict[tuple[str, int], TensorType]:
    """OpenVINO's inference of the layers ``result`` did not re-infer, from its read of ``graph`` as it is in memory
    (as the writer would write it); IrToolsError (E-OPENVINO) if it refuses to read it."""
    from .openvino import openvino_types

    return openvino_types(graph, None, result.not_inferred)


def _unmodelled(layer: Layer) -> bool:
    spec = lookup(layer.type, layer.version)
    return spec is None or spec.infer is None


def _verdict(graph: Graph, result: Propagation, files: ModelFiles | None, compile_model: bool = False,
             read: Callable[[], ov.Model] | None = None) -> list[Diagnostic]:
    """OpenVINO's refusal as an E-OPENVINO error, or its inference of the layers without a rule of ours compared
    with their declared dims."""
    from .openvino import openvino_types

    try:
        types = openvino_types(graph, files, result.not_inferred, compile_model=compile_model, read=read)
    except IrToolsError as exc:
        return [Diagnostic("error", exc.code, exc.message, exc.loc)]
    return adopt(result, types)


#: The layer types OpenVINO's reader may crash the process on, an attribute missing or empty (the state ops'
#: variable_id, ``checks.STATE_TYPES``; DetectionOutput's keep_top_k, ops/detection.py; Col2Im's strides, dilations and
#: pads, ops/col2im.py; ROIPooling's output_roi, ops/roi_pooling.py), as a file spells them (in any case).
_READER_CRASHES = ("DetectionOutput", "Col2Im", "ROIPooling", *STATE_TYPES)
_CRASHING_TYPE = re.compile(rb'type\s*=\s*["\'](?:%s)["\']' % b"|".join(t.encode() for t in _READER_CRASHES),
                            re.IGNORECASE)


def _read_once_clean(path: Path) -> bool:
    """True for a file handed to OpenVINO only once ``check`` has found it clean, not while our checks run: one in
    UTF-16 or UTF-32, which OpenVINO's IR frontend declines when it is not well-formed and has no weights beside it (its
    TensorFlow frontend then tries it and writes to stderr; measured on 2026.4, a UTF-8 one it refuses itself), and
    one holding a layer of a type its reader crashes the process on when an attribute is missing."""
    try:
        data = path.read_bytes()
    except OSError:
        return False
    return encoding_of(data).lower().startswith(("utf-16", "utf-32")) or _CRASHING_TYPE.search(data) is not None


def check(source: Graph | str | Path, bin_path: str | Path | None = None, openvino: bool = True,
          compile_model: bool = False, target: str | None = None) -> list[Diagnostic]:
    """The diagnostics ``ir-tools check`` prints for one file, or for a Graph in memory (``check_model``;
    ``openvino=False``: ``--no-openvino``; ``target``: ``--target``)."""
    return check_model(source, bin_path, openvino, compile_model, target).diagnostics
