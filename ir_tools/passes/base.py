"""Passes: the public way to transform a Graph, and the one every rewrite of ir_tools takes.

A ``Pass`` implements ``apply(graph)``; ``run(graph)`` wraps it in gates: ``requires`` before (by
default the graph must pass ``check``), then every port's dims and precision re-inferred when the pass
changed something, then ``ensures`` (by default ``check`` again). A pass therefore never starts from,
nor leaves behind, a graph OpenVINO would refuse, and a failure names the pass and the layer (file and
line of the model the layer came from). ``PassManager`` runs a sequence, optionally to a fixed point.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import traceback
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..base.diagnostics import Diagnostic
from ..base.errors import IrToolsError, SourceLoc
from ..ir.model import Graph, GraphMisuseError, Layer, require_graph
from .builder import refused_at
from .shapes import Propagation, fix_dims, propagate
from .validate import InvalidModelError, forget_passed, last_passed, require_valid


@dataclass
class PassResult:
    """What a pass did: the graph (changed in place), whether anything changed, and counts of its rewrites."""

    graph: Graph
    modified: bool
    stats: Counter[str] = field(default_factory=Counter)  # e.g. {"AvgPool-14 -> AvgPool-1": 3}


class PassError(InvalidModelError):
    """A pass failed, or left a graph ``check`` rejects: ``diagnostics`` holds one E-PASS naming the pass,
    then every problem ``check`` found."""

    def __init__(self, message: str, loc: SourceLoc | None = None, diagnostics: Iterable[Diagnostic] = ()):
        diagnostics = list(diagnostics)
        super().__init__([Diagnostic("error", "E-PASS", message, loc or SourceLoc()), *diagnostics])
        first = next((d for d in diagnostics if d.severity == "error"), None)  # (what an uncaught one should say)
        self.message = message if first is None else f"{message}; the first: {first.render()}"


class Pass:
    """A graph transformation. Subclasses implement ``apply``; callers use ``run`` (or call the pass).

    ``apply`` changes the graph in place and returns a PassResult, or just whether it changed anything (a pass that
    added, removed or rewired layers, or ``touch``ed one, changed it, whatever it returns). The
    gate is ``check``, before (``check_before``) and after (``check_after``); ``requires`` and ``ensures`` add a
    pass's own conditions (raising when one fails). A pass that starts from a graph ``check`` cannot judge
    (legacy IR) sets ``check_before`` False and says in ``requires`` what it needs instead.
    """

    check_before: bool = True
    check_after: bool = True
    #: The layer ``apply`` is rewriting now, where the pass says so (``Downgrade.layers`` does): a refusal or a
    #: failure inside ``apply`` is then reported at that layer (its line and name), which the user can look up.
    at: Layer | None = None
    #: True if ``apply`` tells the graph of every layer it edits in place (``Graph.touch``; adding, removing and
    #: re-wiring layers the graph records itself): the gate after it then re-checks only what changed.
    records_changes: bool = False

    @property
    def name(self) -> str:
        """The pass's name in messages and stats: its class name."""
        return type(self).__name__

    def apply(self, graph: Graph) -> PassResult | bool:
        """Change ``graph`` in place (the method a pass implements); return a PassResult, or whether anything changed.
        ``run`` calls it between its checks; called directly, nothing is checked. What the graph records (layers
        added, removed or re-wired, and those ``touch``ed) counts as a change whatever this returns; an edit in place
        it is not told of (an attribute, a port) cannot be seen: a pass that does not set ``records_changes`` is
        therefore checked after ``apply`` even when it reports no change."""
        raise NotImplementedError(f"{self.name} does not implement apply(graph)")

    def requires(self, graph: Graph) -> None:
        """What the pass needs besides ``check`` before ``apply``: nothing by default."""

    def ensures(self, graph: Graph) -> None:
        """What the pass promises besides ``check`` after ``apply``: nothing by default."""

    def run(self, graph: Graph, checked: bool = False) -> PassResult:
        """``check`` and ``requires``, ``apply``, shapes re-inferred if anything changed, ``check`` and ``ensures``;
        InvalidModelError for a graph refused before, PassError after. ``checked``: the caller saw the graph
        pass ``check`` since its last change, so it is not checked again."""
        result = self.applied(graph, checked)
        fixed = reinfer_shapes(graph) if result.modified else None
        if self.check_after and (result.modified or not self.records_changes or not (checked or self.check_before)):
            check_after(graph, fixed, [self.name], misfits=not _own(self))
        self.ensures(graph)
        return result

    def _failed(self, graph: Graph, exc: BaseException) -> PassError:
        """E-PASS for a bug of the pass (an exception of its own, or ir_tools called wrongly): the pass named, at the
        innermost line of its own code."""
        where = _culprit(traceback.extract_tb(exc.__traceback__))
        message = f"pass {self.name} failed: {type(exc).__name__}: {exc} (at {where.filename}:{where.lineno})"
        return PassError(message, self.at.loc if self.at is not None else SourceLoc(_file(graph)))

    def applied(self, graph: Graph, checked: bool = False) -> PassResult:
        """``run`` up to its re-inference and gate after: ``check`` (unless ``checked``) and ``requires``, then
        ``apply``; returns what ``apply`` did."""
        require_graph(graph, f"{self.name}.run")
        if self.check_before and not checked:
            require_valid(graph)
        self.requires(graph)
        revision = len(graph.changes)
        try:
            outcome = self.apply(graph)
        except InvalidModelError:
            raise  # (a gate inside the pass: it names the passes it gated)
        except IrToolsError as exc:  # a refusal (a builder's, a rewrite's): its code and layer, and the pass's name
            if isinstance(exc, GraphMisuseError):  # the pass naming a layer or edge there is not: its bug, at its line
                raise self._failed(graph, exc) from exc
            if not hasattr(exc, "pass_name"):  # (the innermost pass: a pass may run another)
                exc.pass_name = self.name
                if self.at is not None:
                    refused_at(exc, self.at)
                exc.message = f"{exc.message} (in pass {self.name})"
            raise
        except (Exception, SystemExit) as exc:  # the pass's own bug (or its sys.exit): name the pass, keep the cause
            raise self._failed(graph, exc) from exc
        finally:
            self.at = None
        if isinstance(outcome, PassResult) and outcome.graph is not graph:  # (its graph would be lost unsaid)
            raise PassError(f"pass {self.name} returned another graph; a pass changes the graph it is given "
                            "(in place, as onnx-ir's in-place passes must)", SourceLoc(_file(graph)))
        result = outcome if isinstance(outcome, PassResult) else PassResult(graph, bool(outcome))
        if not result.modified and len(graph.changes) > revision:  # it changed the graph, whatever it says: gated
            result = PassResult(graph, True, result.stats)
        if not self.records_changes:  # (it may have edited a layer in place, telling nobody: checked from scratch)
            forget_passed(graph)
        return result

    __call__ = run


class PassManager(Pass):
    """Runs passes in order, each with its own gates; with ``fixed_point``, repeats the sequence until no pass
    changes the graph. A graph one pass left checked is not checked again before the next.

    ``check_once``: the passes gated as by default (``check_before``, ``check_after``, ``Pass.run``) leave their
    changes to one re-inference of dims and one ``check`` after the sequence (or before a pass gated otherwise) rather
    than one after each. Each pass starts from the dims the one before left: a rewrite gives the layers it builds the
    dims their rules infer (``GraphBuilder``), so a re-inference in between would change nothing (measured over the
    target zoo, migrated to 2021.4, 2023.0 and 2024.0: 0 ports in 192 migrations of up to 8 changing passes). Not so
    for a pass that changes dims in place (a Parameter given another shape leaves the dims after it to the
    re-inference, which then runs only at the end): leave ``check_once`` off for such passes. The
    graph is checked before the sequence and after it; what is not checked is each state in between, which no
    command writes. A graph left invalid is a PassError naming every pass that changed it since the last check
    (``migrate --target`` runs ~20 downgrades, of which two to five change an NNCF model: one re-inference and one
    check, not five)."""

    def __init__(self, passes: Iterable[Pass], fixed_point: bool = False, max_rounds: int = 20,
                 check_once: bool = False):
        if isinstance(passes, Pass):
            raise IrToolsError(f"PassManager takes a list of passes, not one: PassManager([{passes.name}()])",
                               code="E-USAGE")
        self.passes = list(passes)
        for graph_pass in self.passes:
            if not isinstance(graph_pass, Pass):
                raise IrToolsError(f"PassManager runs ir_tools.Pass instances, not {graph_pass!r} (a "
                                   f"{type(graph_pass).__name__}): make it a Pass subclass's apply", code="E-USAGE")
        self.fixed_point = fixed_point
        self.max_rounds = max_rounds
        self.check_once = check_once

    def run(self, graph: Graph, checked: bool = False) -> PassResult:
        """Run the passes in order (each as ``Pass.run``, or with ``check_once`` one gate for all), repeated with
        ``fixed_point`` until none changes anything (E-PASS after ``max_rounds``); the combined result."""
        require_graph(graph, f"{self.name}.run")
        total = PassResult(graph, False)
        unchecked: list[str] = []  # with check_once: the passes whose changes no check has seen yet
        users = False  # (whether one of them is a user's: ``check_after``'s ``misfits``)
        for _ in range(self.max_rounds if self.fixed_point else 1):
            changed = False
            for graph_pass in self.passes:
                if self.check_once and _gated_by_default(graph_pass):
                    result = graph_pass.applied(graph, checked)
                    if result.modified or not graph_pass.records_changes:  # (as Pass.run gates it)
                        unchecked.append(graph_pass.name)
                        users = users or not _own(graph_pass)
                    graph_pass.ensures(graph)
                    checked = True  # (or its changes are in ``unchecked``)
                else:
                    if unchecked:
                        check_after(graph, reinfer_shapes(graph), unchecked, users)
                        unchecked, users = [], False
                    result = graph_pass.run(graph, checked)
                    checked = graph_pass.check_after or (checked and not result.modified)
                total.stats += result.stats
                changed = changed or result.modified
            total.modified = total.modified or changed
            if not (changed and self.fixed_point):
                if unchecked:
                    check_after(graph, reinfer_shapes(graph), unchecked, users)
                return total
        raise PassError(f"passes {', '.join(p.name for p in self.passes)} still changed the graph after "
                        f"{self.max_rounds} rounds (no fixed point)", SourceLoc(_file(graph)))

    __call__ = run


def _raised(exc: BaseException) -> str:
    """What the user's code raised, or that it exited (``sys.exit``), in words."""
    return f"it called sys.exit({exc.code!r})" if isinstance(exc, SystemExit) else f"{type(exc).__name__}: {exc}"


def _culprit(frames: traceback.StackSummary) -> traceback.FrameSummary:
    """Where a pass failed: the innermost frame of its own code (a user's pass calling ir_tools wrongly is named at
    its line, not at ir_tools' that raised), else the innermost frame."""
    package = Path(__file__).resolve().parents[1]
    own = [frame for frame in frames if not Path(frame.filename).resolve().is_relative_to(package)]
    return own[-1] if own else frames[-1]


def _gated_by_default(graph_pass: Pass) -> bool:
    """Whether ``graph_pass`` is gated as ``Pass.run`` gates (its own ``run`` may gate otherwise)."""
    return graph_pass.check_before and graph_pass.check_after and type(graph_pass).run is Pass.run


def _own(graph_pass: Pass) -> bool:
    """Whether ``graph_pass`` is one of ir_tools' own, whose code sets no field to what the IR cannot hold."""
    return type(graph_pass).__module__.partition(".")[0] == "ir_tools"


def check_after(graph: Graph, fixed: Propagation | None, passes: list[str], misfits: bool = True) -> None:
    """The gate after ``passes`` changed ``graph`` (``fixed``: the re-inference after the last change): PassError
    naming them, then every error ``check`` finds, unless it finds none. ``misfits``: a user's pass is among them,
    which may have set a field to what the IR cannot hold (``validate.misfit_diagnostics``)."""
    try:
        require_valid(graph, fixed, misfits)
    except InvalidModelError as exc:
        errors = sum(d.severity == "error" for d in exc.diagnostics)
        who = f"pass {passes[0]}" if len(passes) == 1 else f"passes {', '.join(passes)}"
        raise PassError(f"{who} left the graph invalid ({errors} error(s) follow)", SourceLoc(_file(graph)),
                        exc.diagnostics) from None


def reinfer_shapes(graph: Graph) -> Propagation | None:
    """Write every port's re-inferred dims and precision (a changed layer may change what follows it); returns
    the propagation, which the gate after the pass takes rather than propagating again. A graph whose shapes
    cannot be inferred is left as it is (None), for the gate to report. When the graph passed a check and only
    passes that ``records_changes`` changed it since (``last_passed``), that check's propagation is continued
    (``propagate``'s ``since``): what changed is walked, and the gate then checks that. A graph with a cycle, or a
    layer a pass set to what the IR cannot hold (``Graph.misfits``: the gate says which), is left as it is."""
    if graph.find_cycle() is not None:
        return None
    try:
        propagation = propagate(graph, last_passed(graph))
    except IrToolsError:
        return None
    except Exception:
        if graph.misfits():  # (a value of another type, failing inside: the gate says which)
            return None
        raise
    fix_dims(graph, propagation)
    return propagation


def _file(graph: Graph) -> str | None:
    return str(graph.source) if graph.source else None


@contextmanager
def _first_on_path(folder: str) -> Iterator[None]:
    """``folder`` first on ``sys.path`` meanwhile (unless it is there already), as Python puts a script's folder or,
    with ``-m``, the current directory: what a pass imports beside itself is found."""
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        yield
    finally:
        if added:
            sys.path.remove(folder)


def load_pass(spec: str) -> Pass:
    """The pass named by ``module:Name`` (an importable module, or a ``.py`` file): a Pass subclass, built with no
    arguments, or a Pass instance. IrToolsError (E-USAGE) says what is wrong with ``spec``."""
    module_name, _, attr = spec.rpartition(":")
    if not module_name or not attr:
        raise IrToolsError(f"--pass {spec!r}: expected MODULE:NAME or FILE.py:NAME", code="E-USAGE")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            loader = importlib.util.spec_from_file_location(f"ir_tools_user_pass_{path.stem}", path)
            if loader is None or not path.is_file():
                raise FileNotFoundError(f"no such file: {path}")
            module = importlib.util.module_from_spec(loader)
            with _first_on_path(str(path.resolve().parent)):  # (as ``python FILE.py`` runs it)
                loader.loader.exec_module(module)
        else:
            with _first_on_path(os.getcwd()):  # (as ``python -m``: an installed command does not have it)
                module = importlib.import_module(module_name)
        found = getattr(module, attr)
    except (Exception, SystemExit) as exc:  # the user's module: whatever it raises (or exits with) is reported
        raise IrToolsError(f"--pass {spec!r} could not be loaded: {_raised(exc)}", code="E-USAGE") from exc
    if isinstance(found, type) and issubclass(found, Pass):
        try:
            return found()
        except (Exception, SystemExit) as exc:
            message = f"--pass {spec!r}: {attr}() failed: {_raised(exc)}"
            raise IrToolsError(message, code="E-USAGE") from exc
    if isinstance(found, Pass):
        return found
    raise IrToolsError(f"--pass {spec!r}: {attr} is a {type(found).__name__}, not an ir_tools.Pass (a subclass or an "
                       "instance)", code="E-USAGE")
