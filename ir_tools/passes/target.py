"""Targets: the layers an OpenVINO release cannot create (``check --target``), and the rewrites that make a model
one it can (``migrate --target``).

Each refusal is one E-TARGET error at the layer's line: its op version, the oldest release that creates it, and
whether ir_tools rewrites it; or a layer the release creates but computes wrongly (a measured defect,
``ops/releases.DEFECTS``: rewritten too); or a ReadValue whose variable has a dynamic shape, which a release that
cannot run such a state (``Release.runs_dynamic_state``) fails on, whatever ir_tools rewrites. A layer inside a
TensorIterator's, Loop's or If's body is asked the same, at its own line. ``retarget`` runs the rewrites (every
AvgPool into opset8 by ``to_opset8``, then the downgrades of ``passes/downgrade``; then both inside bodies,
``passes/in_bodies``) and refuses, with every E-TARGET, what is left.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

from ..base.diagnostics import Diagnostic, Severity
from ..base.dims import show, show_shape
from ..base.errors import IrToolsError, SourceLoc
from ..ir.bodies import located, subgraphs
from ..ir.model import Graph, Layer
from ..ir.names import renamed_names, tensor_names
from ..ir.reader import HEADER_BYTES, ends_within_header, graph_of
from ..ops.control_flow import BODY_TAGS
from ..ops.opsets import type_key
from ..ops.releases import (
    DEFECTS,
    Release,
    Value,
    has_probed_values,
    oldest_creating,
    op_label,
    own_opset,
    release,
    releases,
)
from ..ops.spec import TensorType
from .base import PassError, PassManager, PassResult
from .builder import origin_of
from .downgrade import DOWNGRADES, Downgrade
from .downgrade.empty_reduction import REDUCE_OPS, reduced_lengths, unseen_when_empty
from .downgrade.float_convert import f16_io
from .downgrade.integer_reduction import counts_elements, reduced_otherwise
from .downgrade.names import repeated_names
from .downgrade.wider_const import widened
from .in_bodies import InBodies
from .interface_names import (
    interface_clashes,
    keep_v10_output_names,
    named_alike,
    own_names_shared,
    set_ir_version,
    unique_tensor_names,
    unshared_outputs,
    v10_output_names,
)
from .legacy import is_legacy, lower_legacy, read_migratable
from .shapes import declared_type, propagate
from .stateless import Stateless, variable_shape
from .to_opset8 import migration, to_opset8
from .validate import passed, require_valid


def target_diagnostics(graph: Graph, target: Release, rewritten: bool = False) -> list[Diagnostic]:
    """E-TARGET for every layer ``target`` cannot create or computes wrongly (inside bodies too), for an IR version it
    does not read, for each output it names otherwise and for each dynamic state it cannot run. ``rewritten``: the
    graph is what the rewrites left (``retarget``), so a layer of a version they rewrite is one they do not apply to,
    and one they rewrote part of the way names what it was."""
    found = [] if rewritten else _short_document(graph, target)
    if graph.ir_version not in target.ir_versions:
        versions = " or ".join(f"v{v}" for v in target.ir_versions)
        found.append(Diagnostic("error", "E-TARGET", f"{target.called} reads IR {versions}, the file is IR "
                                f"v{graph.ir_version} (write it with --ir-version {target.ir_versions[-1]})",
                                SourceLoc(str(graph.source) if graph.source else None, graph.line)))
    found += [*_op_versions(graph, target, rewritten), *_repeated_names(graph, target),
              *([] if rewritten else _repeated_tensor_names(graph, target))]
    if not target.reads_result_names:
        found += [Diagnostic("error", "E-TARGET", f"{target.called} names this output after its producer's "
                             f"tensor, not '{own[0]}' (the Result's output_names, read from 2025.1 on); "
                             + _own_tensor_text(graph, target, result, own), result.loc)
                  for result, own in unshared_outputs(graph)]
    inside = _in_bodies(graph, lambda body: [*_op_versions(body, target, rewritten), *_repeated_names(body, target),
                                             *_element_types(body, target),
                                             *weights_read_otherwise(body, target), *_dynamic_states(body, target),
                                             *_empty_reductions(body, target), *_element_counts(body, target)])
    return [*found, *inside, *_element_types(graph, target), *_zero_dims(graph, target),
            *weights_read_otherwise(graph, target), *_dynamic_states(graph, target), *_f16_io(graph, target),
            *_empty_reductions(graph, target), *_element_counts(graph, target)]


def _own_tensor_text(graph: Graph, target: Release, result: Layer, own: list[str]) -> str:
    """What ``migrate --target`` does to an output of ``unshared_outputs``: gives it a tensor of its own, but where
    the IR version it writes for ``target`` is v10 and that tensor would share a name with another output's
    (``own_names_shared``), which no release reads in IR v10: then it refuses the model."""
    written = graph.ir_version if graph.ir_version in target.ir_versions else target.ir_versions[-1]
    shared = own_names_shared(graph, result, own) if written == 10 else []
    if shared:
        return (f"no IR v10 file names it so ('{shared[0]}' names another output's tensor too, which no release "
                "reads in IR v10), so `ir-tools migrate --target` refuses the model")
    return "`ir-tools migrate --target` gives it a tensor of its own"


def _repeated_names(graph: Graph, target: Release) -> list[Diagnostic]:
    """E-TARGET for each layer of ``graph`` (its top level, or a body: a release that refuses two layers of one name
    refuses them inside one body too, "Invalid IR! NAME name is not unique!") named as one before it, where
    ``target`` refuses that. The first is named by its id, and its line where it has one of its own (a body's layer a
    rewrite made has its owner's, as the body graph has)."""
    if graph.ir_version in target.reads_duplicate_layer_names:
        return []
    oldest = next((r.name for r in releases().values() if graph.ir_version in r.reads_duplicate_layer_names), None)

    def first(layer: Layer) -> str:
        return f"id {layer.id}, at line {layer.line}" if layer.line != graph.line else f"id {layer.id} in its body"

    return [Diagnostic("error", "E-TARGET", f"{target.called} refuses two layers named '{name}' (the first is "
                       f"{first(layers[0])}); the oldest release that reads them is {oldest}; `ir-tools migrate "
                       "--target` renames them", layer.loc)
            for name, layers in repeated_names(graph).items() for layer in layers[1:]]


def _repeated_tensor_names(graph: Graph, target: Release) -> list[Diagnostic]:
    """E-TARGET for each output port of an IR v10 ``graph`` holding a tensor name an earlier tensor holds
    (``resolved_names``), where ``target`` refuses that (``Release.reads_v10_repeated_tensor_names``). Asked of a
    graph as read: ``migrate_graph`` renames them first, and refuses a name a rewrite's tensor repeats
    (E-NAME-COLLISION)."""
    if graph.ir_version != 10 or target.reads_v10_repeated_tensor_names:
        return []
    renamed = renamed_names(graph)
    oldest = next(r.name for r in releases().values() if r.reads_v10_repeated_tensor_names) if renamed else ""
    found = []
    for key, new in renamed.items():
        twice = ", ".join(f"'{n}'" for n in new)
        reads = ", ".join(repr(new.get(n, n)) for n in tensor_names(graph.layer(key[0]).output(key[1]).names))
        found.append(Diagnostic("error", "E-TARGET", f"output port {key[1]}: {target.called} refuses an IR v10 "
                                f"model in which two tensors have one name, as {twice} here ('Model tensor names "
                                f"have collisions'); the oldest release that reads it is {oldest}, which reads "
                                f"this tensor as {reads}; "
                                "`ir-tools migrate --target` renames it so", graph.layer(key[0]).loc))
    return found


def _op_versions(graph: Graph, target: Release, rewritten: bool) -> list[Diagnostic]:
    """E-TARGET for each layer of ``graph`` (its top level) whose op version ``target`` cannot create, or creates
    and computes wrongly (``target_diagnostics``' ``rewritten``)."""
    found = []
    repairing = [d(target) for d in DOWNGRADES if not target.miscomputes.isdisjoint(d.repairs)]  # (usually none)
    created: dict[tuple[str, str], bool] = {}  # (type, version) -> created, whatever the attributes (most ops)
    repairs: dict[tuple[str, str], list[Downgrade]] = {}  # (type, version) -> those of ``repairing`` rewriting it
    fine: set[tuple[str, str | None]] = set()  # (type, version) created whatever the attributes, and repaired by none
    for layer in graph.layers():
        kind = (layer.type, layer.version)
        if kind in fine:
            continue  # (most layers: told with one look-up)
        version = layer.version or ""
        if not version.startswith("opset"):
            continue
        creates = created.get(kind)
        if creates is None:
            creates = target.creates(layer.type, version, layer.attrs)
            if not has_probed_values(layer.type, version):
                created[kind] = creates
        mine = repairs.get(kind)
        if mine is None:
            label = op_label(layer.type, version)
            mine = repairs[kind] = [d for d in repairing if label in d.rewrites]
        if creates:
            if mine:
                found += _defects(graph, layer, target, mine, rewritten)
            elif kind in created:
                fine.add(kind)
            continue
        found.append(Diagnostic("error", "E-TARGET", f"{_cannot_create(layer, target)}; "
                                f"{_left(graph, layer, target) if rewritten else _rewrite(graph, layer, target)}",
                                layer.loc))
        if mine and layer.type.lower() == "avgpool":  # (AvgPool-14/16: what `migrate` makes of it, an AvgPool-1)
            found += _defects(graph, layer, target, mine, rewritten)
    return found


def _in_bodies(graph: Graph, ask: Callable[[Graph], list[Diagnostic]]) -> list[Diagnostic]:
    """What ``ask`` finds in each TensorIterator's, Loop's and If's body (nested ones too), each at its own line,
    the layer named ``LAYER/BODY/INNER``: ``target_diagnostics`` asks a body's layers what it asks the top level's
    (``migrate --target`` rewrites inside bodies with the same passes: ``passes/in_bodies``). A body OpenVINO cannot
    read either is left to ``check``, which names it."""
    found = []
    for owner in graph.of_types(t.lower() for t in BODY_TAGS):
        try:
            subs = subgraphs(graph, owner)
        except IrToolsError:
            continue
        for sub in subs:
            body = sub.graph
            found += [Diagnostic(d.severity, d.code, d.message, located(owner, body, d.loc))
                      for d in [*ask(body), *_in_bodies(body, ask)]]
    return found


def and_in_bodies(graph: Graph, ask: Callable[[Graph], list[Diagnostic]]) -> list[Diagnostic]:
    """What ``ask`` finds in ``graph``, then inside its bodies (``_in_bodies``)."""
    return [*ask(graph), *_in_bodies(graph, ask)]


def _cannot_create(layer: Layer, target: Release) -> str:
    """That ``target`` cannot create ``layer`` (its op version, and an attribute value it lacks), and the oldest
    release that does."""
    version = layer.version or ""
    value = target.lacks_value(layer.type, version, layer.attrs)
    what = f"{layer.type} of {version}" + (f" with {value}" if value else "")
    oldest = oldest_creating(layer.type, version, layer.attrs)
    since = f"the oldest release that creates it is {oldest}" if oldest else "no release of the table creates it"
    return f"{target.called} cannot create {what}; {since}"


#: The layers whose attribute declares an element type, by type: the attribute.
_TYPED = {"Const": "element_type", "Parameter": "element_type", "Convert": "destination_type",
          "ReadValue": "variable_type"}


def _element_types(graph: Graph, target: Release) -> list[Diagnostic]:
    """E-TARGET for each layer declaring an element type ``target`` cannot read (a Const, Parameter, Convert or
    ReadValue: its reader refuses the whole file), but a Const ``migrate --target`` writes in a wider type
    (``wider_const.widened``: ``weights_read_otherwise`` names it)."""
    found = []
    for layer in graph.by_type(*_TYPED):
        element = layer.attrs.get(_TYPED[type_key(layer.type)], "").lower()
        oldest = target.refuses_element_type(element)
        if oldest is not None and not (layer.is_a("Const") and widened(graph, layer, target)):
            found.append(Diagnostic("error", "E-TARGET", f"{target.called} cannot read element type {element} "
                                    f"(its reader refuses the file: 'Incorrect type'); the oldest release measured to "
                                    f"read it is {oldest}; `ir-tools migrate --target` has no rewrite for it",
                                    layer.loc))
    return found


def _too_short(graph: Graph, target: Release) -> bool:
    """Whether ``target`` refuses the file ``graph`` was read from for ending within its first bytes (any file
    ir_tools writes ends past them)."""
    source = graph.source
    return not target.reads_short_documents and source is not None and source.is_file() and ends_within_header(source)


def _short_document(graph: Graph, target: Release) -> list[Diagnostic]:
    """E-TARGET for the file, where ``target`` refuses it for ending within its first bytes (``_too_short``)."""
    if not _too_short(graph, target):
        return []
    oldest = next(r.name for r in releases().values() if r.reads_short_documents)
    return [Diagnostic("error", "E-TARGET", f"{target.called} refuses a document that ends within its first "
                       f"{HEADER_BYTES} bytes, as this one does ('Unable to read the model'); the oldest release that "
                       f"reads it is {oldest}; `ir-tools migrate --target` writes it longer",
                       SourceLoc(str(graph.source), graph.line))]


def _zero_dims(graph: Graph, target: Release) -> list[Diagnostic]:
    """E-TARGET for each model input and output with a static dim of 0, where ``target`` refuses the file for it."""
    if target.reads_zero_dims:
        return []
    oldest = next(r.name for r in releases().values() if r.reads_zero_dims)
    ports = [(p, "input", p.output_records()[0][2]) for p in graph.parameters() if p.output_records()]
    ports += [(r, "output", r.input_records()[0][2]) for r in graph.results() if r.input_records()]
    return [Diagnostic("error", "E-TARGET", f"{target.called} refuses a model {what} with a dim of 0 "
                       f"({show(dims)}: 'has zero dimension which is not allowed'); the oldest release that "
                       f"reads it is {oldest}; `ir-tools migrate --target` has no rewrite for it", layer.loc)
            for layer, what, dims in ports if dims is not None and 0 in dims]


def weights_read_otherwise(graph: Graph, target: Release, severity: Severity = "error",
                           code: str = "E-TARGET") -> list[Diagnostic]:
    """E-TARGET (or ``code``) for each layer whose weights ``target`` reads or computes otherwise, which a downgrade
    repairs in place (``Downgrade.unrepaired``: packed Consts, f16 weight decompression); plain ``check`` asks it of
    the installed OpenVINO (W-TARGET: a file migrated for another release)."""
    return [Diagnostic(severity, code, f"{target.called} {what}; `ir-tools migrate --target` "
                       f"{downgrade.repairs_weights}", layer.loc)
            for downgrade in DOWNGRADES if downgrade.repairs_weights
            for layer, what in downgrade(target).unrepaired(graph)]


def _defects(graph: Graph, layer: Layer, target: Release, repairing: list[Downgrade],
             rewritten: bool) -> list[Diagnostic]:
    """E-TARGET if a measured defect of ``target`` hits ``layer``, which it creates: the downgrade that rewrites it
    (one of ``repairing``, for ``target``, those of its op versions that repair a defect of ``target``) says so;
    ``rewritten`` (after the rewrites): a layer left has no rewrite that applies."""
    found = []
    for downgrade in repairing:
        key = downgrade.defect(graph, layer)
        if key is None:
            continue
        how = downgrade.rewrites[op_label(layer.type, layer.version)]
        why = downgrade.declines(graph, layer)
        fix = _not_applied([how], why) if rewritten or why else f"`ir-tools migrate --target` rewrites it {how}"
        since = _next_without(target, key, lambda release: type(downgrade)(release).defect(graph, layer) == key)  # noqa: B023
        found.append(Diagnostic("error", "E-TARGET", f"{target.called} {DEFECTS[key]} (measured); {since}; "
                                f"{fix}", layer.loc))
    return found


def _next_without(target: Release, key: str, hits: Callable[[Release], bool] | None = None) -> str:
    """The next release of the table without the defect ``key`` (``hits``: whose defect does not hit this layer, where
    it depends on the release's measured answers, not only on the key: the pairs of integer types each converts
    otherwise), in words."""
    table = list(releases().values())
    later = table[table.index(target) + 1:] if target in table else []
    newer = next((r.name for r in later if key not in r.miscomputes or (hits is not None and not hits(r))), None)
    return f"the next release without this defect is {newer}" if newer else "no newer release is without it"


def _f16_io(graph: Graph, target: Release) -> list[Diagnostic]:
    """For a target that saturates f16 at the model's boundary (``f16_io_saturates``, ``float_convert.f16_io``):
    E-TARGET at each f16 model output converted from a wider type whose values may lie beyond +-65504 (no rewrite
    makes the release write an infinity), W-TARGET at each other f16 output that may (only an f16 overflow meets it)
    and at each f16 model input (only an infinity fed): those are written as they are."""
    key = "f16_io_saturates"
    if key not in target.miscomputes:
        return []
    head = f"{target.called} {DEFECTS[key]} (measured); {_next_without(target, key)}; "
    found = []
    for layer, refused in f16_io(graph):
        if refused:
            found.append(Diagnostic("error", "E-TARGET", f"{head}this output is converted into f16 from a wider type "
                                    "and may lie beyond +-65504; no rewrite applies to this layer: the release "
                                    "converts every f16 output from f32 saturating, and no op makes it write an "
                                    "infinity", layer.loc))
        else:
            what = ("an infinity fed to this input is read as +-65504, a finite one exactly" if layer.is_a("Parameter")
                    else "this output differs only where f16 overflows (the current OpenVINO gives +-inf), and is "
                         "exact within +-65504")
            found.append(Diagnostic("warning", "W-TARGET", f"{head}{what}; `ir-tools migrate --target` writes it as "
                                    "it is", layer.loc))
    return found


def written_as_is(graph: Graph, target: Release) -> list[Diagnostic]:
    """The W-TARGET of ``target_diagnostics``: what ``target`` computes otherwise only for an infinity fed, an f16
    overflow, an empty axis fed or dims whose product exceeds 2^24, which ``migrate --target`` writes as it is, and
    says so."""
    return [d for d in [*_f16_io(graph, target), *_empty_reductions(graph, target), *_element_counts(graph, target),
                        *_in_bodies(graph, lambda body: [*_empty_reductions(body, target),
                                                         *_element_counts(body, target)])]
            if d.severity == "warning"]


def _element_counts(graph: Graph, target: Release) -> list[Diagnostic]:
    """For a target that computes some Reduce op of integers otherwise (``reduce_integers_otherwise``): W-TARGET at
    each ReduceProd of dims (``integer_reduction.counts_elements``) it may compute otherwise, which differs only where
    their product exceeds 2^24 (a tensor of more elements): written as it is."""
    key = "reduce_integers_otherwise"
    if key not in target.miscomputes:
        return []
    found = []
    for layer in graph.of_types(("reduceprod",)):
        if counts_elements(graph, layer) and reduced_otherwise(graph, layer, target):
            since = _next_without(target, key, lambda release: reduced_otherwise(graph, layer, release))  # noqa: B023
            found.append(Diagnostic("warning", "W-TARGET", f"{target.called} {DEFECTS[key]} (measured); {since}; "
                                    "this layer multiplies dims (of ShapeOf), which it computes as the current "
                                    "OpenVINO does where their product is at most 2^24; `ir-tools migrate --target` "
                                    "writes it as it is", layer.loc))
    return found


#: The op types ``reduce_empty_axis_wrong`` hits: every Reduce of opset1 and opset4.
REDUCTIONS = tuple(REDUCE_OPS)


def _empty_reductions(graph: Graph, target: Release) -> list[Diagnostic]:
    """For a target that computes a reduction over an axis of length 0 as whatever its output's memory held
    (``reduce_empty_axis_wrong``): W-TARGET at each Reduce layer one of whose reduced axes (every axis where they are
    fed) is dynamic and may be 0 by shape propagation (a sequence's length fed; not an image's height after a
    convolution, which is 1 or more), so an input fed empty meets it, unless what it gives there reaches no element
    (``unseen_when_empty``: ``x - max(x)``): written as it is. One of static length 0 is the downgrade's
    (``EmptyReductionConst``: rewritten, or an E-TARGET where it declines)."""
    key = "reduce_empty_axis_wrong"
    if key not in target.miscomputes:
        return []
    head = f"{target.called} {DEFECTS[key]} (measured); {_next_without(target, key)}; "
    found = []
    inferred: dict[tuple[str, int], TensorType] | None = None  # (propagated once, where a declared dim may be 0)
    for layer in graph.of_types(REDUCTIONS):
        dims = declared_type(layer.inputs[0]).shape if layer.inputs else None
        lengths = reduced_lengths(graph, layer, dims)
        if lengths is not None and all(d.lo > 0 for d in lengths) or unseen_when_empty(graph, layer):
            continue
        if inferred is None:
            inferred = _inferred(graph)
        source = graph.producer_key(layer.id, layer.input_ids()[0])
        lengths = reduced_lengths(graph, layer, inferred[source].shape if source in inferred else dims)
        if lengths is not None and any(d.is_static and d.lo == 0 for d in lengths):
            continue
        if lengths is None or any(d.lo == 0 for d in lengths):
            found.append(Diagnostic("warning", "W-TARGET", f"{head}an axis this layer reduces is dynamic, so an input "
                                    "fed empty there meets it; `ir-tools migrate --target` writes it as it is",
                                    layer.loc))
    return found


def _inferred(graph: Graph) -> dict[tuple[str, int], TensorType]:
    """The types shape propagation infers for ``graph`` as it is: those of its last check that passed where nothing
    changed since (``check --target``, ``retarget``'s gate), else propagated now."""
    known = passed(graph)
    return known.types if known is not None and known.revision == len(graph.changes) else propagate(graph).types


def _dynamic_states(graph: Graph, target: Release) -> list[Diagnostic]:
    """E-TARGET at each ReadValue whose variable has a dynamic shape, if ``target`` cannot run such a state, or one
    initialised with a static shape, if it cannot run that (``Release.runs_static_init_state``)."""
    if target.runs_dynamic_state:
        return _static_inits(graph, target)
    oldest = next((r.name for r in releases().values() if r.runs_dynamic_state), None)
    found = []
    for layer in graph.of_types(["readvalue"]):
        shape = variable_shape(layer)
        if shape is not None and all(d.is_static for d in shape):
            continue
        found.append(Diagnostic("error", "E-TARGET", f"{target.called} cannot run a model whose state has a "
                                f"dynamic shape (variable '{layer.attrs.get('variable_id', '')}' of shape "
                                f"{show_shape(shape)}; measured: its CPU plugin fails at inference); the oldest "
                                f"release that runs it is {oldest}; no rewrite makes a state static: `ir-tools "
                                "migrate --target --stateless` makes it inputs and outputs", layer.loc))
    return found


def _static_inits(graph: Graph, target: Release) -> list[Diagnostic]:
    """E-TARGET at each ReadValue whose variable has a dynamic shape and whose init (its input) a static one, if
    ``target`` cannot run such a state (a language model reshaped to a static batch: its KV-cache's init [1, 2, 0,
    32] folded from the batch)."""
    if target.runs_static_init_state:
        return []
    oldest = next((r.name for r in releases().values() if r.runs_static_init_state and r.runs_dynamic_state), None)
    found = []
    for layer in graph.of_types(["readvalue"]):
        shape = variable_shape(layer)
        init = declared_type(layer.inputs[0]).shape if layer.inputs else None
        if shape is None or all(d.is_static for d in shape) or init is None or not all(d.is_static for d in init):
            continue
        found.append(Diagnostic("error", "E-TARGET", f"{target.called} cannot run a model whose state of "
                                f"dynamic shape has an init of static shape (variable "
                                f"'{layer.attrs.get('variable_id', '')}' of shape {show_shape(shape)}, its init "
                                f"{show_shape(init)}; measured: its CPU plugin fails to compile or run it, 'Cannot "
                                f"get dims for non static shape'); the oldest release that runs it is {oldest}; no "
                                "rewrite makes the init's shape dynamic: `ir-tools migrate --target --stateless` "
                                "makes the state inputs and outputs", layer.loc))
    return found


def _rewrite(graph: Graph, layer: Layer, target: Release) -> str:
    """Which pass rewrites the layer's op version, and into what; or why none applies to this layer."""
    own = own_opset(layer.type, layer.version)
    if layer.type.lower() == "avgpool" and target.creates("AvgPool", "opset1", {}):
        spelled = "opset8" if target.creates("AvgPool", "opset8", {}) else "opset1"
        return (f"`ir-tools migrate` rewrites it into {spelled} AvgPool (exactly, on static spatial dims; on dynamic "
                "ones, where its windows are those of floor or ceil at every length, and with dilations where it "
                "has no pads, an f32 input and floor's windows at every length)")
    if own is not None and own != layer.version and target.creates(layer.type, own, layer.attrs):
        return f'`ir-tools migrate --target` writes it as version="{own}", the same op version'
    label = op_label(layer.type, layer.version)
    ways = [d.rewrites[label] for d in DOWNGRADES if label in d.rewrites]
    if not ways:
        return _no_rewrite(layer)
    why = _declined(graph, layer, target)
    return _not_applied(ways, why) if why else f"`ir-tools migrate --target` rewrites it {'; or '.join(ways)}"


def _declined(graph: Graph, layer: Layer, target: Release) -> str | None:
    """Why the downgrades of ``layer``'s op version leave it (``Downgrade.declines``, the first that says), else
    None."""
    label = op_label(layer.type, layer.version)
    return next((why for d in DOWNGRADES if label in d.rewrites
                 for why in [d(target).declines(graph, layer)] if why), None)


def _left(graph: Graph, layer: Layer, target: Release) -> str:
    """Why a layer of a version ``target`` cannot create is left after the rewrites: the conditions of those that
    rewrite its version (which this layer does not meet), and what it was where a rewrite took it part of the way
    (MaxPool-14 to MaxPool-8, which 2021.4 lacks: its indices are read)."""
    label = op_label(layer.type, layer.version)
    ways = [d.rewrites[label] for d in DOWNGRADES if label in d.rewrites]
    origin = origin_of(layer.rt_info)
    was = f"; `ir-tools migrate` rewrote it this far from {origin}" if origin else ""
    why = _declined(graph, layer, target) if ways else None
    return (_not_applied(ways, why) if ways else _no_rewrite(layer)) + was


#: Attribute values no rewrite can give a release lacking them, and why: (type, opset, attribute, value) -> why.
_NO_EXACT_FORM: dict[Value, str] = {
    ("RandomUniform", "opset8", "alignment", "pytorch"): "it draws PyTorch's sequence of random numbers, which no "
                                                         "other op draws",
}


def _no_rewrite(layer: Layer) -> str:
    """What a diagnostic says of a layer whose op version no downgrade rewrites: that no exact form exists where an
    attribute value of it has none (``_NO_EXACT_FORM``), else that ir_tools has no rewrite for it yet."""
    why = next((why for (op, version, name, value), why in _NO_EXACT_FORM.items()
                if layer.is_a(op) and layer.version == version and layer.attrs.get(name) == value), None)
    return f"no exact form of it exists in older ops: {why}" if why else "ir_tools has no rewrite for it yet"


def _not_applied(ways: list[str], why: str | None = None) -> str:
    """What a refusal says of a layer left though its op version has rewrites: why (``Downgrade.declines``) where a
    pass says, and their conditions, which it fails."""
    because = f": {why}" if why else ""
    return f"no rewrite applies to this layer{because} (`ir-tools migrate --target` rewrites it {'; or '.join(ways)})"


def migrate(source: Graph | str | Path, target: str | None = None, stateless: bool = False,
            checked: bool | None = None) -> PassResult:
    """As ``ir-tools migrate``: every average pooling into opset8 AvgPool; with ``target`` (an OpenVINO release,
    ``"2023.0"``, or ``"opsetN"``) every layer it cannot create rewritten too (``retarget``), PassError when one is
    left, and the graph made an IR version the target reads (v10 for 2021.4). ``stateless``: the state made inputs and
    outputs first (``passes/stateless``). ``source`` is a graph (changed in place) or an IR file; a legacy IR v7 file
    is lowered first. A graph or file ``check`` rejects raises
    InvalidModelError; an unknown target IrToolsError (E-USAGE). ``checked``: the graph passed ``check`` since it was
    read (None: a file read here did, a graph given may not have)."""
    wanted = None if target is None else release(target)
    graph = graph_of(source, read_migratable)
    checked = (not isinstance(source, Graph) if checked is None else checked) and not is_legacy(graph)
    readable = None if wanted is None or graph.ir_version in wanted.ir_versions else wanted.ir_versions[-1]
    return migrate_graph(graph, wanted, checked, stateless, readable)  # (as the CLI: an IR version it reads)


def migrate_graph(graph: Graph, target: Release | None, checked: bool, stateless: bool = False,
                  ir_version: int | None = None) -> PassResult:
    """``migrate`` on a graph read by ``read_migratable`` (``checked``: it passed ``check`` since), made IR
    ``ir_version`` (None: its own). With a target, a graph made another version is retargeted again at that version:
    what a release computes otherwise may depend on it (``v10_boolean_output_fails``). PassError where the migrated
    model's inputs and outputs report a name on two tensors that the original's did not (``interface_clashes``): for
    a target before 2025.1 in IR v11, that two of its inputs and outputs did not report (``named_alike``: those
    releases report two tensors of one name as named, 2025.1 on rename one; no release reads them in IR v10,
    ``own_names_shared``)."""
    clashes = interface_clashes(graph)
    alike = named_alike(graph) if target is not None and not target.reads_result_names else set()
    done = _migrated(graph, target, checked, stateless, ir_version)
    excused = clashes.keys() | (alike if graph.ir_version != 10 else set())
    made = {name: layers for name, layers in interface_clashes(graph).items() if name not in excused}
    if made:
        raise PassError("the migrated model's inputs and outputs would name two tensors alike; nothing written",
                        SourceLoc(str(graph.source) if graph.source else None),
                        [Diagnostic("error", "E-NAME-COLLISION", f"'{name}' names the tensors of "
                                    + " and ".join(f"'{layer.name}'" for layer in layers), layers[-1].loc)
                         for name, layers in made.items()])
    return done


def _migrated(graph: Graph, target: Release | None, checked: bool, stateless: bool,
              ir_version: int | None) -> PassResult:
    """``migrate_graph`` but the check of names."""
    if target is None:
        first = Stateless().run(graph, checked) if stateless else PassResult(graph, False)
        result = migration(graph).run(graph, checked and not first.modified)
        done = PassResult(graph, result.modified or first.modified, first.stats + result.stats)
        return _made_version(done, ir_version)
    lowered = lower_legacy.run(graph).stats if is_legacy(graph) else Counter()
    if (ir_version or graph.ir_version) == 10 and not target.reads_v10_repeated_tensor_names:
        lowered["a tensor name used twice -> renamed as OpenVINO 2025.1 on reads it"] += unique_tensor_names(graph)
    if _too_short(graph, target):  # (written, it ends past the header)
        lowered[f"document written past byte {HEADER_BYTES}"] += 1
    result = retarget(graph, target, checked=checked, stateless=stateless)
    read_as = graph.ir_version
    done = _made_version(PassResult(graph, result.modified or bool(lowered), lowered + result.stats), ir_version)
    if graph.ir_version != read_as:  # (valid: ``_made_version`` checked it; the pooling is done)
        done.stats += retarget(graph, target, checked=True, pooling=False).stats
    return done


def _made_version(done: PassResult, ir_version: int | None) -> PassResult:
    """``done``, its graph made IR ``ir_version`` (keeping the names OpenVINO reports, and valid: at another IR version
    the name rules differ); modified if it was another."""
    graph = done.graph
    if ir_version is None or graph.ir_version == ir_version:
        return done
    set_ir_version(graph, ir_version)
    require_valid(graph)
    return PassResult(graph, True, done.stats)


def retarget(graph: Graph, target: Release, checked: bool = False, stateless: bool = False,
             pooling: bool = True) -> PassResult:
    """Rewrite ``graph`` into op versions ``target`` creates and computes right (``stateless``: its state made inputs
    and outputs first; ``pooling``: every average pooling into opset8 AvgPool first, as without a target); PassError
    with every E-TARGET for what is left."""
    first = [to_opset8] if pooling else []
    passes = [*([Stateless()] if stateless else []), *first, *(downgrade(target) for downgrade in DOWNGRADES),
              InBodies(lambda: [*first, *(downgrade(target) for downgrade in DOWNGRADES if downgrade.in_bodies)])]
    named = v10_output_names(graph)
    result = PassManager(passes, check_once=True).run(graph, checked)
    keep_v10_output_names(graph, named)  # (a v10 output is named after the layer a rewrite replaced)
    left = [d for d in target_diagnostics(graph, target, rewritten=True)
            if d.loc.layer_id is not None and d.severity == "error"]
    if left:
        raise PassError(f"{len(left)} layer(s) have no form {target.called} creates and runs right; nothing "
                        "written",
                        SourceLoc(str(graph.source) if graph.source else None), left)
    return result
