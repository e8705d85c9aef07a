"""``check``: everything wrong with an IR file, at once, as diagnostics; and the gate every
other command passes first.

Each stage (reading, every structural check, shape propagation, the empty-window warnings)
runs on its own: if one fails on an input nobody foresaw, that becomes an E-INTERNAL
diagnostic and the findings of the other stages are still reported. ``read_valid`` and
``require_valid`` raise InvalidModelError carrying the same diagnostics when there is any error,
so ``run``, ``compare``, ``migrate``, ``shapes --fix`` and ``convert-onnx`` never act on a model
``check`` rejects.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeVar

import numpy as np

from ..base.codes import FATAL_CODES
from ..base.diagnostics import Diagnostic, has_errors
from ..base.errors import IrToolsError, OpValidationError, SourceLoc
from ..ir.bodies import Subgraph, subgraphs
from ..ir.model import Graph, Layer
from ..ir.reader import ir_path, read_ir
from ..ops import attrs as A
from ..ops.control_flow import Bodies
from ..ops.core import ConstAttrs
from ..ops.opsets import lookup, refusing_types
from ..ops.spec import OpSpec, TensorType
from .checks import LOCAL_CHECKS, STRUCTURAL_CHECKS, WARNING_CHECKS, empty_window_warnings, in_scope
from .shapes import MAX_VALUE_ELEMENTS, Propagation, agreed_with, propagate

T = TypeVar("T")

#: Weights problems ``checks`` reports at each Const; shape propagation only repeats them at a consumer.
_WEIGHT_CODES = frozenset({"E-BIN-MISSING", "E-CONST-BOUNDS", "E-CONST-SIZE"})


#: What shape propagation reports that ``fix_dims`` resolves by writing the inferred dims and precisions.
_FIXED_CODES = frozenset({"E-SHAPE", "E-TYPE"})


def check_graph(graph: Graph, fixed: Propagation | None = None, warnings: bool = True, misfits: bool = False,
                ) -> tuple[list[Diagnostic], Propagation | None]:
    """Reader findings, structural checks and shape propagation (skipped on a cycle or if it fails). ``fixed``: a
    propagation of this graph whose dims and precisions ``fix_dims`` just wrote, used rather than propagating
    again (a pass's gate after it re-inferred the graph). ``warnings`` False: for a gate, which asks whether there
    is an error, the checks that only warn are left out. ``misfits``: whether to look first for fields a caller set to
    what the IR cannot hold (``misfit_diagnostics``): the gate after a user's pass; otherwise they are looked for only
    where a stage fails inside.

    A ``fixed`` continued from the propagation of the last check that passed (``last_passed``, ``Propagation.walked``)
    makes a gate of what changed since (``warnings`` must be False): the checks that look at each layer on its own
    look only at the layers walked and those ``fix_dims`` touched. No error found then means that the whole graph's
    check finds none; the errors found are not all there are (``require_valid`` then checks it all)."""
    file = str(graph.source) if graph.source else None
    diags = list(graph.load_diagnostics)
    scope = None if fixed is None or fixed.walked is None else \
        in_scope(graph, fixed.walked | set(graph.changes[fixed.revision:]))
    if scope is not None and warnings:
        raise ValueError("a propagation continued from another (Propagation.walked) makes a gate: warnings=False")
    found = misfit_diagnostics(graph, scope) if misfits else []
    if found:  # (what the other stages would fail on inside: said alone)
        return [*diags, *found], None
    for structural in STRUCTURAL_CHECKS:
        if not warnings and structural in WARNING_CHECKS:
            continue
        args = (graph, scope) if scope is not None and structural in LOCAL_CHECKS else (graph,)
        found, failed = _stage(file, structural.__name__.strip("_"), lambda c=structural, a=args: list(c(*a)))
        diags += (found or []) + failed
    result = None
    if not any(d.code == "E-CYCLE" for d in diags):
        result, failed = (fixed, []) if fixed is not None else _stage(file, "shape propagation",
                                                                     lambda: propagate(graph))
        diags += failed
    if result is not None:
        skipped = _WEIGHT_CODES | (_FIXED_CODES if fixed is not None else frozenset())
        diags += [d for d in result.diagnostics if d.code not in skipped]
        if warnings:
            found, failed = _stage(file, "empty windows", lambda: empty_window_warnings(graph, result.types))
            diags += (found or []) + failed
        if not has_errors(diags):  # like OpenVINO's verdict: on a file otherwise clean, not as a consequence
            refusals, failed = _stage(file, "rules on the known values", lambda: known_value_refusals(graph, result))
            diags += (refusals or []) + failed
            refusals, failed = _stage(file, "CPU rules on the constants", lambda: cpu_refusals(graph, result))
            diags += (refusals or []) + failed
    if any(d.code == "E-INTERNAL" for d in diags):  # (a caller's value of another type may fail a stage inside)
        found = misfit_diagnostics(graph)
        if found:
            return [*graph.load_diagnostics, *found], None
    if result is not None and not has_errors(diags):
        _PASSED[graph] = result
        agreed_with(graph, result)
    return list(dict.fromkeys(diags)), result  # the same finding reached twice is reported once


def misfit_diagnostics(graph: Graph, layer_ids: Iterable[str] | None = None) -> list[Diagnostic]:
    """E-USAGE at each layer (of ``layer_ids``, else every one) whose fields a caller set to what the IR cannot hold
    (``Layer.misfit``: an attribute an int, a port's names a list), which the checks fail on inside or pass. Asked by
    the gate after a user's pass, of a graph a caller hands ``check``, and where a stage failed inside (E-INTERNAL);
    not of a file just read, whose every field the reader made, nor after ir_tools' own passes."""
    return [Diagnostic("error", "E-USAGE", f"the layer cannot be written as IR: {found}", layer.loc)
            for layer, found in graph.misfits(layer_ids)]


#: The shape propagation of each graph's last check that found no error (``last_passed``).
_PASSED: weakref.WeakKeyDictionary[Graph, Propagation] = weakref.WeakKeyDictionary()


def last_passed(graph: Graph) -> Propagation | None:
    """The shape propagation of ``graph``'s last check that found no error, if none of its types is OpenVINO's
    (``adopt``) and every change since is in ``Graph.changes`` (``forget_passed``): what a propagation of the graph as
    it is now continues from (``propagate``'s ``since``), so that the re-inference after passes that record their
    changes walks what changed, and their gate checks it (``check_graph``)."""
    found = _PASSED.get(graph)
    return None if found is None or found.by_openvino else found


def passed(graph: Graph) -> Propagation | None:
    """The shape propagation of ``graph``'s last check that found no error, OpenVINO's types adopted or not (what a
    propagation continues from is ``last_passed``)."""
    return _PASSED.get(graph)


def forget_passed(graph: Graph) -> None:
    """Say that ``graph`` changed in a way ``Graph.changes`` may not hold (a pass that does not record its changes):
    ``last_passed`` is None until the next check that finds no error."""
    _PASSED.pop(graph, None)


def known_value_refusals(graph: Graph, result: Propagation) -> list[Diagnostic]:
    """E-OP for what a layer's rule refuses in the values already known, where the rule waited for a value it could
    not compute (shape propagation's rule 4: OpenVINO's inference of the layer is adopted instead); in a propagation
    continued from another, at the layers walked (``Propagation.walked``).

    A Slice whose start comes from shape arithmetic on a dynamic dim has no rule of ours, but its axes Const may
    already be out of range (OpenVINO refuses the file); so, also without OpenVINO, the rule runs once more with
    the Const values it reads and every other value unknown (None, as for a Parameter's). Only a refusal counts:
    the answer itself stays OpenVINO's, and a rule that cannot run on such partial knowledge says nothing.
    """
    found = []
    for layer, spec, keys, inputs in _typed_inputs(graph, result, result.not_inferred):
        if spec.infer is None or not spec.n_inputs[0] <= len(keys) <= spec.n_inputs[1]:
            continue
        try:
            values = [_const_value(graph, key) if i in spec.value_inputs else None for i, key in enumerate(keys)]
            spec.infer(A.decode(spec.attrs, layer.attrs), inputs, values)
        except OpValidationError as exc:
            found.append(Diagnostic("error", exc.code, exc.message, layer.loc))
        except Exception:  # noqa: BLE001, S112 (partial knowledge the rule was not written for: no finding)
            continue
    return found


def cpu_refusals(graph: Graph, result: Propagation) -> list[Diagnostic]:
    """E-OP for a layer OpenVINO reads and infers but its CPU plugin refuses, by the op's ``OpSpec.cpu_refuses`` on the
    layer's inferred input types and the Consts feeding it (``check --compile`` would hear it from OpenVINO; without
    it, and in a gate, only this tells); in a propagation continued from another, at the layers walked."""
    found = []
    for layer, spec, keys, inputs in _typed_inputs(graph, result, graph.by_type(*refusing_types())):
        if spec.cpu_refuses is None:
            continue
        try:  # (a TensorIterator's or Loop's rule is given its port maps, and what feeds its bodies' Results)
            subs = subgraphs(graph, layer) if spec.bodies else ()
            attrs = Bodies(tuple(s.port_map for s in subs), tuple(_ResultSources(s) for s in subs)) if spec.bodies \
                else A.decode(spec.attrs, layer.attrs)
        except IrToolsError:  # (reported by the shape walk)
            continue
        why = spec.cpu_refuses(attrs, inputs, [_readable_const(graph, key) for key in keys])
        if why is not None:
            found.append(Diagnostic("error", "E-OP", why, layer.loc))
    return found


class _ResultSources:
    """A body as ``OpSpec.cpu_refuses`` is told of it (``ops.control_flow.BodySources``): what feeds each Result."""

    def __init__(self, sub: Subgraph) -> None:
        self.sub = sub

    def source(self, result: int) -> tuple[np.ndarray | None, int | None]:
        """Body Result ``result``'s value where a small Const feeds it, and the Parameter feeding it, if one does."""
        body, layer = self.sub.graph, self.sub.results[result]
        found = body.producer(layer.id, layer.input_ids()[0]) if layer.input_ids() else None
        if found is None:
            return None, None
        producer = found[0]
        if producer.is_a("Parameter"):
            return None, next((i for i, p in enumerate(self.sub.parameters) if p.id == producer.id), None)
        return _readable_const(body, (producer.id, found[1].id)), None


def _typed_inputs(graph: Graph, result: Propagation, layers: Iterable[Layer],
                  ) -> Iterator[tuple[Layer, OpSpec, list[tuple[str, int]], list[TensorType]]]:
    """Each of ``layers`` (in a propagation continued from another, those walked) that ir_tools models, every input
    fed and typed by ``result``: with its spec, its inputs' keys (no Port objects made) and their types."""
    for layer in layers:
        if result.walked is not None and layer.id not in result.walked:
            continue
        spec = lookup(layer.type, layer.version)
        keys = graph.input_keys(layer.id, layer.input_ids())
        if spec is None or None in keys:
            continue
        inputs = [result.types.get(key) for key in keys]
        if None not in inputs:
            yield layer, spec, keys, inputs


def _readable_const(graph: Graph, key: tuple[str, int]):
    """``_const_value``, or None for a Const read as no array (the data of a rule that does not read it: strings)."""
    try:
        return _const_value(graph, key)
    except IrToolsError:
        return None


def _const_value(graph: Graph, key: tuple[str, int]):
    """The value of a small Const feeding a port, else None (unknown)."""
    layer = graph.layer(key[0])
    if not layer.is_a("Const"):
        return None
    record = layer.output_record(key[1])  # (run on a graph that passed the checks: its declared dims are its shape's)
    if record is not None and record[2] is not None and math.prod(record[2]) > MAX_VALUE_ELEMENTS:
        return None  # (weights, most often: not decoded)
    shape = A.decode(ConstAttrs, layer.attrs).shape
    return graph.const_array(layer) if math.prod(shape) <= MAX_VALUE_ELEMENTS else None


def check(xml_path: str | Path, bin_path: str | Path | None = None) -> list[Diagnostic]:
    """All diagnostics for one IR file; an unreadable file gives one fatal diagnostic."""
    return check_file(xml_path, bin_path)[0]


def check_file(xml_path: str | Path, bin_path: str | Path | None = None, warnings: bool = True,
               ) -> tuple[list[Diagnostic], Graph | None, Propagation | None]:
    """``check``'s diagnostics with the graph and shape propagation behind them (None where not reached);
    ``warnings``: as ``check_graph``."""
    graph, failed = _stage(str(xml_path), "read", lambda: read_ir(xml_path, bin_path))
    if graph is None:
        return failed, None, None
    diags, result = check_graph(graph, warnings=warnings)
    return diags, graph, result


class InvalidModelError(IrToolsError):
    """The model has errors; ``diagnostics`` are everything ``check`` reports for it."""

    def __init__(self, diagnostics: list[Diagnostic]):
        first = next(d for d in diagnostics if d.severity == "error")
        errors = sum(d.severity == "error" for d in diagnostics)
        super().__init__(f"the model has {errors} error(s); the first: {first.message}", first.loc, first.code)
        self.diagnostics = diagnostics

    @property
    def fatal(self) -> bool:
        """True if the input could not be checked fully (exit 2 rather than 1)."""
        return any(d.code in FATAL_CODES for d in self.diagnostics)


def require_valid(graph: Graph, fixed: Propagation | None = None, misfits: bool = False) -> Propagation:
    """Raise InvalidModelError unless ``check`` finds no error in ``graph``; returns its shape propagation
    (``fixed``, ``misfits``: as ``check_graph``). A gate: its warnings are not looked for, unless there is an error,
    which is raised with everything ``check`` reports (the whole graph's)."""
    diags, result = check_graph(graph, fixed, warnings=False, misfits=misfits)
    if has_errors(diags) or result is None:
        diags, result = check_graph(graph, None if fixed is None or fixed.walked is not None else fixed,
                                    misfits=misfits)
        if has_errors(diags) or result is None:
            raise InvalidModelError(diags)
    return result


def read_valid(xml_path: str | Path, bin_path: str | Path | None = None) -> Graph:
    """Read an IR and validate it as ``check`` does; InvalidModelError on any error (reading ones included).
    IrToolsError (E-USAGE) for what is no path (a Graph: ``check`` checks one)."""
    ir_path(xml_path, bin_path, "read_valid")
    graph, failed = _stage(str(xml_path), "read", lambda: read_ir(xml_path, bin_path))
    if graph is None:
        raise InvalidModelError(failed)
    require_valid(graph)
    return graph


def _stage(file: str | None, what: str, run: Callable[[], T]) -> tuple[T | None, list[Diagnostic]]:
    """Run one stage of ``check`` on ``file``; whatever it raises becomes a diagnostic, not the end of the check."""
    try:
        return run(), []
    except IrToolsError as exc:
        return None, [Diagnostic("error", exc.code, exc.message, exc.loc if exc.loc.file else SourceLoc(file))]
    except Exception as exc:  # a bug in ir_tools, not in the model: say so, keep the other stages' findings
        message = (f"the '{what}' stage failed unexpectedly ({type(exc).__name__}: {exc}); its findings are "
                   "missing, the others stand; please report this")
        return None, [Diagnostic("error", "E-INTERNAL", message, SourceLoc(file))]
