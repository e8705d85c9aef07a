"""Structural checks of a Graph, each with its own stable diagnostic code.

Every code ``check`` can report is in ``base/codes.py``, with its severity, its meaning and the stage that finds
it (``reader``, ``checks`` here, ``shapes``, ``validate``); a new check adds its code there. The reader's fatal
codes (E-READ, E-XML-UNSAFE, E-IR-VERSION) stop reading; everything else is collected so that one run reports
every problem.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from itertools import pairwise

import numpy as np

from ..base.diagnostics import Diagnostic
from ..base.dims import INT64_MAX, show
from ..base.dtypes import PORT_PRECISIONS, byte_size, element_type
from ..base.errors import IrToolsError, SourceLoc
from ..ir.bodies import located, subgraphs
from ..ir.model import Graph, Layer, RtNode, Weights
from ..ir.reader import LFS_POINTER_HEAD, lfs_pointer_size
from ..ops import attrs as A
from ..ops.core import ConstAttrs
from ..ops.opsets import (
    MAX_OPSET,
    OPENVINO_OPSETS,
    crashing_types,
    lookup,
    nearest_types,
    openvino_opsets_of,
    openvino_type,
    required_spelling,
    specs,
)
from ..ops.pool_geometry import counts_padding
from ..ops.pooling import geometry as pool_geometry_of
from ..ops.quantization import stripped_by_cpu
from ..ops.spec import OpSpec, TensorType
from .interface_names import duplicate_tensor_names, v10_name_collisions
from .shapes import const_kind

_OPSET = re.compile(r"opset(\d+)")


def _edge_loc(edge: tuple, layer: Layer) -> SourceLoc:
    """The edge's line, naming the layer at the end that is wrong."""
    return SourceLoc(layer.file, edge[4], layer.id, layer.name, layer.kind)


def _edge_text(e: tuple) -> str:
    """An Edge or a link tuple of ``Graph.links`` in words."""
    return f"edge {e[0]}:{e[1]} -> {e[2]}:{e[3]}"


def in_scope(graph: Graph, layer_ids: Iterable[str]) -> dict[str, Layer]:
    """The layers of ``layer_ids`` still in the graph, by id: the ``scope`` a local check is given (made once for
    them all)."""
    return {lid: graph.layer(lid) for lid in layer_ids if graph.has_layer(lid)}


def _scoped(graph: Graph, scope: dict[str, Layer] | None) -> Iterable[Layer]:
    """The layers a check looks at: every one, or those of ``scope``."""
    return graph.layers() if scope is None else scope.values()


def _scoped_links(graph: Graph, scope: dict[str, Layer] | None) -> Iterable[tuple]:
    """The edges a check looks at: every one, or those into or out of the layers of ``scope`` (each once)."""
    if scope is None:
        return graph.links()
    in_links, out_links = graph.in_links, graph.out_links
    links: list[tuple] = []
    for lid in scope:
        links += in_links(lid)
        links += out_links(lid)
    return dict.fromkeys(links)


def _edges(graph: Graph, scope: dict[str, Layer] | None = None) -> Iterator[Diagnostic]:
    """Each edge starts and ends at ports its layers declare (E-EDGE-PORT), and the input port it ends at agrees with
    the output port it starts at: the same dims, and the same precision where the input port names one
    (E-EDGE-PRECISION, E-EDGE-DIMS). One pass over the edges for both."""
    layer = graph.layer
    # plain tuples, and port records: at 50k layers, Edge and Port objects took 0.5 s
    for e in _scoped_links(graph, scope):
        src_layer, dst_layer = layer(e[0]), layer(e[2])
        src, dst = src_layer.output_record(e[1]), dst_layer.input_record(e[3])
        if src is None or dst is None:
            if src is None:
                yield Diagnostic("error", "E-EDGE-PORT", f"{_edge_text(e)} starts at output port {e[1]}, but the "
                                 f"layer's output ports are {src_layer.output_ids()}", _edge_loc(e, src_layer))
            if dst is None:
                yield Diagnostic("error", "E-EDGE-PORT", f"{_edge_text(e)} ends at input port {e[3]}, but the "
                                 f"layer's input ports are {dst_layer.input_ids()}", _edge_loc(e, dst_layer))
            continue
        if dst[1] is not None and src[1] != dst[1] and not _same_type(src[1], dst[1]):  # (none: its producer's)
            yield Diagnostic("error", "E-EDGE-PRECISION", f"input port {dst[0]}: precision {dst[1]}, "
                             f"but its producer ({_edge_text(e)}) gives {src[1]}", dst_layer.line_loc(dst[6]))
        if src[2] != dst[2]:
            yield Diagnostic("error", "E-EDGE-DIMS", f"input port {dst[0]}: dims {show(dst[2])}, "
                             f"but its producer ({_edge_text(e)}) gives {show(src[2])}", dst_layer.line_loc(dst[6]))


def _body_edges(graph: Graph, scope: dict[str, Layer] | None = None) -> Iterator[Diagnostic]:
    """``_edges`` inside the bodies of each TensorIterator, Loop and If (of ``scope``, else every one), nested ones too,
    each finding named ``LAYER/BODY/INNER``: a body edge whose ends declare other dims was no error (a body's [2, 5]
    fed [2, 4]), where the same edge outside a body is. A body OpenVINO could not read is the shape stage's to
    report."""
    for owner in graph.layers() if scope is None else scope.values():
        if not owner.children:
            continue
        try:
            subs = subgraphs(graph, owner)
        except IrToolsError:
            continue
        for sub in subs:
            for d in (*_edges(sub.graph), *_body_edges(sub.graph)):
                yield Diagnostic(d.severity, d.code, d.message, located(owner, sub.graph, d.loc))


def _same_type(one: str | None, other: str | None) -> bool:
    """Whether two port precisions name one element type, however each is spelled ("FP32" and "f32", "BIN" and
    "U1": OpenVINO's serializer writes the precision, hand-written and other tools' files often the type's name)."""
    a, b = element_type(one or ""), element_type(other or "")
    return a is not None and a == b


def _fed_inputs(graph: Graph, scope: dict[str, Layer] | None = None) -> Iterator[Diagnostic]:
    """Every input port has one producer. An unfed port after the last fed one leaves an optional input out (a
    warning) where OpenVINO's op fills its default (``OpSpec.reads_unfed_ports``: Pad, Slice, NonMaxSuppression-1...);
    of another op of the table OpenVINO refuses the layer ("node index is out of range"), an error. Of an op
    ir_tools does not model, OpenVINO's verdict tells."""
    for layer in _scoped(graph, scope):
        ids = layer.input_ids()
        fed_ports = [link[3] for link in graph.in_links(layer.id)]
        if (fed_ports == ids or sorted(fed_ports) == sorted(ids)) and len(set(ids)) == len(ids):
            continue  # each port has one producer (the common case, told without Port or Edge objects)
        fed = [bool(graph.producers(layer.id, port.id)) for port in layer.inputs]
        count = len(fed) - fed[::-1].index(True) if any(fed) else 0  # inputs up to the last fed port
        spec = lookup(layer.type, layer.version)
        optional_from = max(count, spec.n_inputs[0] if spec else 0)
        for i, port in enumerate(layer.inputs):
            edges = graph.producers(layer.id, port.id)
            optional = not edges and i >= optional_from and (spec is None or i < spec.n_inputs[1])
            if optional and (spec is None or spec.reads_unfed_ports):
                yield Diagnostic("warning", "W-INPUT-UNFED", f"input port {port.id} is declared but nothing feeds it: "
                                 f"OpenVINO creates the op with {count} input(s), without this optional one",
                                 layer.port_loc(port))
            elif optional:
                yield Diagnostic("error", "E-INPUT-UNFED", f"input port {port.id} is declared but nothing feeds it: "
                                 f"OpenVINO refuses to read {spec.label} so ('node index is out of range'); leave the "
                                 f"port out for the op without this optional input", layer.port_loc(port))
            elif not edges:
                yield Diagnostic("error", "E-INPUT-UNFED", f"input port {port.id} needs one producer, found none "
                                 "(no edge ends there)", layer.port_loc(port))
            elif len(edges) > 1:
                sources = ", ".join(f"{e.from_layer}:{e.from_port}" for e in edges)
                yield Diagnostic("error", "E-INPUT-MULTI", f"input port {port.id} has {len(edges)} producers "
                                 f"({sources}); exactly one expected", layer.port_loc(port))


def _cycles(graph: Graph) -> Iterator[Diagnostic]:
    cycle = graph.find_cycle()
    if cycle:
        first = graph.layer(cycle[0])
        names = " -> ".join(f"'{graph.layer(i).name}' ({i})" for i in [*cycle, cycle[0]])
        yield Diagnostic("error", "E-CYCLE", f"the graph has a cycle: {names}", first.loc)


def _constants(graph: Graph, scope: dict[str, Layer] | None = None) -> Iterator[Diagnostic]:
    layers = list(_scoped(graph, scope))
    consts, made = [], []  # read from the .bin; made by a pass, their payload in memory
    for layer in graph.by_type("Const") if scope is None else (layer for layer in layers if layer.is_a("Const")):
        (consts if layer.data is None else made).append(layer)
    for layer in made:  # its payload holds what its element type and shape need
        try:
            a = A.decode(ConstAttrs, layer.attrs)
        except IrToolsError as exc:
            yield Diagnostic("error", exc.code, exc.message, layer.loc)
            continue
        et = element_type(a.element_type)
        needed = byte_size(et, math.prod(a.shape)) if et is not None and et.bits else None
        if needed is not None and len(layer.data) < needed:
            yield Diagnostic("error", "E-CONST-SIZE", f"its payload holds {len(layer.data)} bytes, "
                             f"{a.element_type}{list(a.shape)} needs {needed}", layer.loc)
    in_bodies = [layer for layer in layers if layer.children and _body_consts(layer.children)]  # TI, Loop, If
    if not consts and not in_bodies:
        return
    weights = graph.weights
    missing = "does not exist" if weights is None or not weights.exists else _unreadable(weights)
    if missing:
        name = weights.path if weights else "(none)"
        count = len(consts) + sum(_body_consts(layer.children) for layer in in_bodies)
        where = consts[0].loc if consts else in_bodies[0].loc
        inside = "" if consts else " (inside this layer's body)"
        yield Diagnostic("error", "E-BIN-MISSING", f"a Const{inside} reads weights file {name}, which {missing} "
                         f"({count} Const layer(s) need it)", where)
        return
    kinds: dict[tuple[str, str], tuple[str, tuple[int, ...], int | None]] = {}  # see below
    available = weights.size
    outside: list[tuple[Layer, int, int]] = []  # (Const, offset, end) of each whose bytes the .bin lacks
    for layer in consts:
        # (element type, shape) decoded and the bytes they need, remembered by their texts for Consts whose offset
        # and size are surely valid: decoding every Const's attributes took 0.07 s at 50k layers
        plain = const_kind(layer.attrs)
        kind = None if plain is None else kinds.get(plain)
        if kind is None:
            try:
                a = A.decode(ConstAttrs, layer.attrs)  # (the diagnostic names the layer: no SourceLoc per Const)
            except IrToolsError as exc:
                yield Diagnostic("error", exc.code, exc.message, layer.loc)
                continue
            et = element_type(a.element_type)
            kind = (a.element_type, a.shape, byte_size(et, math.prod(a.shape)) if et is not None and et.bits else None)
            if plain is not None:
                kinds[plain] = kind
            offset, size = a.offset, a.size
        else:
            offset, size = int(layer.attrs["offset"]), int(layer.attrs["size"])
        element, shape, needed = kind
        if offset + size > available:
            outside.append((layer, offset, offset + size))
        elif element == "string":
            wrong = _packed_strings_wrong(bytes(weights.read(offset, size)), math.prod(shape))
            if wrong:
                yield Diagnostic("error", "E-CONST-SIZE", f"its string tensor ({size} bytes at offset {offset}) is not "
                                 f"packed as OpenVINO reads strings: {wrong}", layer.loc)
        if needed is not None and size < needed:
            yield Diagnostic("error", "E-CONST-SIZE", f"size {size} is smaller than {element}"
                             f"{list(shape)} needs ({needed} bytes)", layer.loc)
    if outside:  # one finding, at the first: a .bin cut short (or another model's) puts hundreds of Consts outside
        layer, offset, end = outside[0]
        more = (f"; {len(outside)} Consts in all reach past its end, the farthest to byte "
                f"{max(e for _, _, e in outside)}: it is cut short, or another model's") if len(outside) > 1 else ""
        yield Diagnostic("error", "E-CONST-BOUNDS", f"bytes [{offset}, {end}) lie outside {weights.path.name} "
                         f"({weights.size} bytes){more}", layer.loc)


def _packed_strings_wrong(data: bytes, count: int) -> str | None:
    """What is wrong with a string Const's bytes, packed as OpenVINO reads them (an i32 count N, N + 1 i32 offsets
    into the characters that follow: string i from offset i to offset i + 1), for ``count`` strings, if anything
    (OpenVINO's own checks, measured on 2026.4: each such file refused, "Incorrect packed string tensor format"; fewer
    strings than the shape holds refused too, more read up to the shape's)."""
    if len(data) < 4:
        return f"{len(data)} bytes, no count of strings (4 bytes)"
    (held,) = struct.unpack_from("<i", data)
    if held < 0:
        return f"a count of {held} strings"
    header = 4 * (held + (1 if held == 0 else 2))
    if header > len(data):
        return f"{held} strings need a header of {header} bytes"
    if held < count:
        return f"it holds {held} strings, its shape {count}"
    offsets = struct.unpack_from(f"<{held + 1}i", data, 4) if held else ()
    for i, (begin, end) in enumerate(pairwise(offsets)):
        if begin < 0 or begin > end or end > len(data) - header:
            return f"string {i} runs from {begin} to {end} in {len(data) - header} bytes of characters"
    return None


def _unreadable(weights: Weights) -> str | None:
    """Why the ``.bin`` that exists cannot give its weights (OpenVINO fails to map it), if it cannot: not readable,
    or a git LFS pointer in its place (its first bytes, read once for both)."""
    if weights.mapped:
        return None
    try:
        with open(weights.path, "rb") as f:
            head = f.read(LFS_POINTER_HEAD)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or 'not readable'})"
    size = lfs_pointer_size(head)
    if size is not None:
        return (f"is a git LFS pointer to a file of {size} bytes, what a clone without git-lfs holds in its place "
                "(`git lfs pull` in its repository fetches it)")
    return None


def _opsets(graph: Graph, scope: dict[str, Layer] | None = None) -> Iterator[Diagnostic]:
    """Every layer's type must be in its opset, as OpenVINO's reader requires (ops.opsets holds its tables)."""
    domains: set[str] = set()  # extension domains already reported: once each, not as typos
    fine: set[tuple[str, str | None]] = set()  # (type, version) found without a problem: a model repeats a few
    for layer in _scoped(graph, scope):
        kind = (layer.type, layer.version)
        if kind in fine:
            continue
        problem = _opset_problem(*kind)
        if problem:
            yield Diagnostic("error", "E-OPSET", problem, layer.loc)
        elif (layer.version and not _OPSET.fullmatch(layer.version) and layer.version not in domains
              and openvino_type(layer.type, layer.version) is None):
            domains.add(layer.version)
            yield Diagnostic("error", "E-EXTENSION",
                             f"'{layer.type}' of domain '{layer.version}' is an extension op: OpenVINO reads it only "
                             "with that extension loaded (Core.add_extension); ir_tools can neither check nor run it",
                             layer.loc)
        else:
            fine.add(kind)


@lru_cache(maxsize=1024)  # asked per layer; a model has few types and versions
def _opset_problem(op_type: str, version: str | None) -> str | None:
    """Why OpenVINO's reader would refuse this type and version, or None."""
    everywhere = openvino_opsets_of(op_type)
    if version is None:
        return "no version attribute: OpenVINO needs one" + (f" ({op_type} is in {everywhere[0]}..{everywhere[-1]})"
                                                            if everywhere else "")
    if openvino_type(op_type, version) is not None:
        return None
    match = _OPSET.fullmatch(version)
    if match is None:
        # Not an opset: an extension's domain (custom ops) unless the type is one of OpenVINO's own.
        return f"version '{version}' is not an opset (opset1..opset{MAX_OPSET})" if everywhere else None
    if not 1 <= int(match.group(1)) <= MAX_OPSET:
        return f"unknown opset '{version}' (opset1..opset{MAX_OPSET} exist)"
    if spelling := required_spelling(op_type):
        return (f"type '{op_type}' is unknown to OpenVINO: types are matched regardless of case, except this one, "
                f"which must be spelled '{spelling}'")
    if everywhere:
        return f"opset '{version}' does not contain {op_type} (it is in {everywhere[0]}..{everywhere[-1]})"
    nearest = nearest_types(op_type, version) or _prefix_types(op_type, version)
    hint = f"; did you mean {' or '.join(nearest)}?" if nearest else ""
    return f"{version} has no op type '{op_type}'{hint}"


def _prefix_types(op_type: str, version: str) -> list[str]:
    """Types of opset ``version`` that begin ``op_type`` or that it begins ("Concatenate" -> ["Concat"]), for the
    typos too long or too short for a close match; at most two, the longest first."""
    low = op_type.lower()
    if len(low) < 4:
        return []
    table = OPENVINO_OPSETS.get(version, {})
    found = [name for key, name in table.items() if len(key) >= 4 and (low.startswith(key) or key.startswith(low))]
    return sorted(found, key=lambda name: (-len(name), name))[:2]


def _body_consts(nodes: tuple[RtNode, ...]) -> int:
    """How many Const layers the verbatim subgraph bodies among ``nodes`` hold, at any depth, that read the ``.bin``
    (not those a rewrite made, whose payload is in memory: ``RtNode.payload``)."""
    return sum((node.tag == "layer" and dict(node.attrs).get("type") == "Const"
                and not any(c.tag == "data" and c.payload is not None for c in node.children))
               + _body_consts(node.children) for node in nodes)


def _dead_layers(graph: Graph) -> Iterator[Diagnostic]:
    live = graph.live_layers()
    for layer in graph.layers():
        if layer.id not in live:
            what = "model input" if layer.is_a("Parameter") else "layer"
            yield Diagnostic("warning", "W-DEAD", f"no Result depends on this {what}", layer.loc)


def empty_window_warnings(graph: Graph, types: dict[tuple[str, int], TensorType]) -> list[Diagnostic]:
    """W-EMPTY-WINDOW: pooling windows with no data tap (ceil rounding can create them), in the layers whose spec
    says ``empty_windows``."""
    out = []
    found: dict[tuple, list[str]] = {}  # (spec, raw attributes, input type) -> the warnings: a model repeats its pools
    for layer in graph.layers():
        spec = lookup(layer.type, layer.version)
        if spec is None or not spec.empty_windows:
            continue
        ids = layer.input_ids()
        key = graph.producer_key(layer.id, ids[0]) if ids else None
        data = None if key is None else types.get(key)
        if data is None or data.shape is None or not all(d.is_static for d in data.shape):
            continue
        memo = (id(spec), tuple(layer.attrs.items()), data)
        messages = found.get(memo)
        if messages is None:
            messages = found[memo] = _empty_window_messages(spec, layer.attrs, data)
        out += [Diagnostic("warning", "W-EMPTY-WINDOW", message, layer.loc) for message in messages]
    return out


def _empty_window_messages(spec: OpSpec, attrs: dict[str, str], data: TensorType) -> list[str]:
    """The W-EMPTY-WINDOW texts of an AvgPool with these attributes on a static input ``data``."""
    try:
        a = A.decode(spec.attrs, attrs)
        g = pool_geometry_of(a, data, spec.label)
    except IrToolsError:
        return []  # reported by shape propagation
    messages = []
    for axis, (dim, out_dim) in enumerate(zip(data.shape[2:], g.spatial, strict=True)):
        length, stride, dilation, pad = dim.lo, a.strides[axis], a.dilations_or_ones[axis], g.pads_begin[axis]
        empty = empty_windows(length, a.kernel[axis], stride, dilation, pad, out_dim.lo)
        if empty:
            counting = counts_padding(g.pads_begin, g.pads_end, a.exclude_pad)
            value = _empty_value(counting, length, stride, dilation, pad, out_dim.lo, empty)
            messages.append(
                f"{a.rounding_type} rounding makes {empty} window(s) on spatial axis {axis} with no data "
                f"(input {dim.lo}, kernel {a.kernel[axis]}, stride {a.strides[axis]}, pads "
                f"{g.pads_begin[axis]}/{g.pads_end[axis]}); OpenVINO CPU outputs {value} there")
    return messages


def _empty_value(counting_padding: bool, length: int, stride: int, dilation: int, pad: int, out: int,
                 empty: int) -> str:
    """What OpenVINO CPU writes into empty windows (measured on 2026.4.1, see ``cpu_window_counts``).

    Counting padding, the divisor is the kernel size: 0. Otherwise the CPU divides 0 by its tap
    count, which is 0 (NaN) but negative (-0.0) for windows starting a dilation or more past the end.
    """
    if counting_padding:
        return "0"
    far = max(0, out - max(0, _ceil_div(pad + length + dilation, stride)))
    return "NaN" if far == 0 else "-0.0" if far == empty else "NaN or -0.0"


def empty_windows(length: int, kernel: int, stride: int, dilation: int, pad_begin: int, out: int) -> int:
    """How many of ``out`` windows on one axis have no tap inside the data, in O(log) time.

    Counting per window would allocate ``out`` x ``kernel`` taps, and a file can declare
    absurd lengths. Window o's taps are ``k*D - a`` with ``a = pb - o*S``, k in [0, K):
    1. first tap >= L, or last tap < 0: empty;
    2. first tap or last tap in [0, L): not empty;
    3. first < 0 and last >= L: the window spans the data, and misses it only when L < D and
       no multiple of D lies in [a, a + L - 1]; those are counted with ``_floor_sum``.
    """
    span = (kernel - 1) * dilation
    past_end = max(0, out - max(0, _ceil_div(pad_begin + length, stride)))  # rule 1, first tap >= L
    before = min(out, max(0, _ceil_div(pad_begin - span, stride)))  # rule 1, last tap < 0
    lo = min(out, max(0, _ceil_div(pad_begin - span + length, stride)))  # rule 3: o in [lo, hi)
    hi = min(out, max(0, _ceil_div(pad_begin, stride)))
    n = hi - lo
    if n <= 0 or length >= dilation:
        return past_end + before
    base = pad_begin - (hi - 1) * stride  # a of the last such window; a grows by S going back
    hits = _floor_sum(n, dilation, stride, base + length - 1) - _floor_sum(n, dilation, stride, base - 1)
    return past_end + before + n - hits


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _floor_sum(n: int, m: int, a: int, b: int) -> int:
    """sum(floor((a*i + b) / m) for i in range(n)) for non-negative a, b; Euclid-like, O(log m)."""
    total = 0
    while True:
        if a >= m:
            total += n * (n - 1) // 2 * (a // m)
            a %= m
        if b >= m:
            total += n * (b // m)
            b %= m
        y_max = a * n + b
        if y_max < m:
            return total
        n, b = divmod(y_max, m)
        m, a = a, m


def _ignored_attributes(graph: Graph) -> Iterator[Diagnostic]:
    """Attributes OpenVINO ignores silently, so that a user who believes in them gets other numbers than expected:
    those a modelled op version does not read (W-ATTR-UNKNOWN: dilations on AvgPool-14, say), and a flag written
    neither true nor false, nor 1 or 0 (W-ATTR-SKIPPED: " true", "yes"), which its reader skips for the default."""
    # (type, version) -> (the attributes its spec reads, its flags' defaults), None for an op not modelled
    read_by: dict[tuple[str, str | None], tuple[frozenset[str], dict[str, str]] | None] = {}
    for layer in graph.layers():
        kind = (layer.type, layer.version)
        if kind not in read_by:
            spec = lookup(*kind)
            read_by[kind] = None if spec is None else (frozenset(A.xml_names(spec.attrs)), A.flags(spec.attrs))
        known = read_by[kind]
        if known is None:
            continue
        read, flags = known
        for name, default in flags.items():
            value = layer.attrs.get(name)
            if value is not None and A.skips(value):
                yield Diagnostic("warning", "W-ATTR-SKIPPED", f"attribute '{name}' is '{value}', neither true nor "
                                 f"false (nor 1 or 0): OpenVINO's reader skips it and takes the default, {default}",
                                 layer.loc)
        if read.issuperset(layer.attrs):
            continue
        spec = lookup(layer.type, layer.version)
        names = A.xml_names(spec.attrs)
        for name in [k for k in layer.attrs if k not in read]:
            later = [s.label for s in specs() if s.type == spec.type and name in A.xml_names(s.attrs)]
            why = (f"it exists from {later[0]}; {spec.label} ignores it" if later else
                   f"{spec.label} reads {', '.join(names) if names else 'no attributes'}; OpenVINO ignores it")
            yield Diagnostic("warning", "W-ATTR-UNKNOWN", f"unknown attribute '{name}': {why}", layer.loc)


def _results(graph: Graph) -> Iterator[Diagnostic]:
    if not graph.results():
        what = "no layers at all" if len(graph) == 0 else f"{len(graph)} layer(s) but no Result"
        yield Diagnostic("error", "E-NO-RESULT", f"the model has {what}: it computes nothing a runtime can return",
                         SourceLoc(str(graph.source) if graph.source else None, graph.line))


#: The largest element count or byte size a tensor may have (OpenVINO counts both in int64 / size_t).
_MAX_SIZE = INT64_MAX


def _output_ports(graph: Graph, scope: dict[str, Layer] | None = None) -> Iterator[Diagnostic]:
    """An output port without a precision, or one spelled otherwise than OpenVINO reads it (E-PORT: its reader
    refuses the file, "missing mandatory attribute: precision", "Unsupported element type: fp32"); static output dims
    so large that the tensor's element count or byte size overflows int64 (E-SIZE)."""
    for layer in _scoped(graph, scope):
        for port_id, precision, dims, _, _, _, line in layer.output_records():
            for code, what in _port_problems(precision, dims):
                yield Diagnostic("error", code, f"output port {port_id}{what}", layer.line_loc(line))


@lru_cache(maxsize=4096)  # asked per port; a model repeats a few port types
def _port_problems(precision: str | None, dims: tuple[int, ...] | None) -> tuple[tuple[str, str], ...]:
    """The codes of ``_output_ports`` an output port of this precision and dims has, each with its message after
    "output port N"."""
    found = []
    if precision not in PORT_PRECISIONS:
        et = element_type(precision or "")
        read = f"'{et.name}' or '{et.precision}'" if et is not None else "a type's name, as 'f32', or precision"
        found.append(("E-PORT", " has no precision, which OpenVINO requires" if precision is None else
                      f": precision '{precision}' is not a spelling OpenVINO reads ({read})"))
    if dims and all(d >= 0 for d in dims):
        count = math.prod(dims)
        et = element_type(precision or "")
        size = byte_size(et, count) if et is not None and et.bits else count
        if max(count, size) > _MAX_SIZE:
            found.append(("E-SIZE", f": {show(dims)} has {count} elements ({size} bytes), more than int64 can count"))
    return tuple(found)


#: The state ops, whose variable OpenVINO's reader looks up by ``variable_id``: without one it crashes the process
#: (a segmentation fault in ``read_model``, measured on 2026.4 for ReadValue-6 and Assign-6). Their specs
#: (ops/state.py) require the attribute, so ``check`` reports E-ATTR before OpenVINO reads the file.
STATE_TYPES = ("ReadValue", "Assign")


def _unpaired_state(graph: Graph) -> Iterator[Diagnostic]:
    """E-STATE: a variable only read or only written. Measured on OpenVINO 2026.4: a ReadValue (3 or 6) whose
    variable no Assign writes is read and compiled, and every CPU inference fails ("ReadValue node ... doesn't have
    sibling output"); an Assign whose variable no ReadValue reads is refused by the reader ("map::at")."""
    state = [(layer, layer.attrs.get("variable_id")) for layer in graph.by_type(*STATE_TYPES)]
    read = {variable for layer, variable in state if layer.is_a("ReadValue")}
    written = {variable for layer, variable in state if layer.is_a("Assign")}
    for layer, variable in state:
        if variable is None:  # E-ATTR (ops/state.py)
            continue
        if layer.is_a("ReadValue") and variable not in written:
            yield Diagnostic("error", "E-STATE", f"variable '{variable}' is read here but no Assign writes it: "
                             "OpenVINO compiles the model, and every inference on CPU fails", layer.loc)
        elif layer.is_a("Assign") and variable not in read:
            yield Diagnostic("error", "E-STATE", f"variable '{variable}' is written here but no ReadValue reads it: "
                             "OpenVINO refuses to read the model", layer.loc)


def _crashing_attributes(graph: Graph, scope: dict[str, Layer] | None = None) -> Iterator[Diagnostic]:
    """E-ATTR for attribute values OpenVINO reads and infers but its CPU plugin crashes on or cannot run
    (``OpSpec.crashes``, told which of the layer's outputs the model reads): refused before OpenVINO is given the
    model (attributes that do not decode are the shape walk's to report). In a ``scope``, also at a layer that feeds
    one of it: a layer changed may newly read an output of one that is not (a MaxPool's indices)."""
    for layer in graph.by_type(*crashing_types()):
        if scope is not None and layer.id not in scope and \
                not any(link[2] in scope for link in graph.out_links(layer.id)):
            continue
        spec = lookup(layer.type, layer.version)
        if spec is None or spec.crashes is None:
            continue
        try:
            attrs = A.decode(spec.attrs, layer.attrs)
        except IrToolsError:
            continue
        links = graph.out_links(layer.id)  # (its readers, on links: no Port or Edge objects)
        read = frozenset(i for i, pid in enumerate(layer.output_ids()) if any(link[1] == pid for link in links))
        why = spec.crashes(attrs, read)
        if why is not None:
            yield Diagnostic("error", "E-ATTR", why, layer.loc)


def _stripped_ranges(graph: Graph, layer: Layer) -> list | None:
    """The ranges of a FakeQuantize OpenVINO's CPU plugin strips as it compiles (``stripped_by_cpu``, read from the
    Consts feeding it), else None."""
    spec = lookup(layer.type, layer.version)
    ports = layer.input_ids()
    if spec is None or spec.type != "FakeQuantize" or len(ports) != 5:
        return None
    try:
        levels = A.decode(spec.attrs, layer.attrs).levels
        sources = [graph.producer(layer.id, port) for port in ports[1:]]
        ranges = [graph.const_array(s[0]) if s is not None and s[0].is_a("Const") else None for s in sources]
    except IrToolsError:  # (an attribute or a Const the other checks report)
        return None
    return ranges if stripped_by_cpu(levels, ranges) else None


def _unstrippable_fake_quantize(graph: Graph) -> Iterator[Diagnostic]:
    """E-OP for a FakeQuantize OpenVINO's CPU plugin strips (``_stripped_ranges``) that a Result reads, fed (through
    others it strips) by a Parameter or by a layer of several outputs: the pass cannot give that producer the output's
    name, and refuses to compile the model ("FQ stripping failed"; measured on 2026.4, f32: fed by a ReLU or a Const,
    or read by no Result, it compiles). An f16 one it refuses wherever it is (``OpSpec.cpu_refuses``)."""
    for layer in graph.by_type("FakeQuantize"):
        if not any(graph.layer(link[2]).is_a("Result") for link in graph.out_links(layer.id)):
            continue
        ranges = _stripped_ranges(graph, layer)
        if ranges is None or ranges[0].dtype == np.float16:
            continue
        source, seen = layer, set()
        while source.is_a("FakeQuantize") and source.id not in seen and _stripped_ranges(graph, source) is not None:
            seen.add(source.id)
            found = graph.producer(source.id, source.input_ids()[0])
            if found is None:
                break
            source = found[0]
        if source.is_a("Parameter") or len(source.output_ids()) > 1:
            yield Diagnostic("error", "E-OP", f"levels 65536 with equal input and output ranges, read by a Result and "
                             f"fed by {source.type} '{source.name}': OpenVINO CPU strips such a FakeQuantize, cannot "
                             f"name that producer's output as the model's, and refuses to compile it", layer.loc)


#: The structural checks, in report order; ``validate.check_graph`` runs each one on its own.
STRUCTURAL_CHECKS: tuple[Callable[[Graph], Iterable[Diagnostic]], ...] = (
    _edges, _body_edges, _fed_inputs, _cycles, _constants, _opsets, _ignored_attributes, _crashing_attributes,
    _unstrippable_fake_quantize, _results, v10_name_collisions, duplicate_tensor_names, _output_ports, _unpaired_state,
    _dead_layers,
)
#: Those that look at each layer (and its edges) on its own, so that after a few layers changed in a graph that passed,
#: they find any new error among those layers: called with ``scope``, the layers changed (``in_scope``).
LOCAL_CHECKS: frozenset[Callable[..., Iterable[Diagnostic]]] = frozenset({
    _edges, _body_edges, _fed_inputs, _constants, _opsets, _crashing_attributes, _output_ports,
})
#: Those that only warn: a gate, which asks whether there is an error, need not run them.
WARNING_CHECKS: frozenset[Callable[..., Iterable[Diagnostic]]] = frozenset({
    _ignored_attributes, duplicate_tensor_names, _dead_layers,
})
