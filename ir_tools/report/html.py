"""``compare --html`` and ``check --html``: one self-contained HTML file per report.

The page needs nothing but itself (inline CSS and JS, no network: its Content-Security-Policy
forbids any fetch), so it can be attached to a bug report or a CI artifact and opened years later.
Python does the thinking (the layout, each layer's status, the verdict); ``report.js`` only draws, pans,
zooms (choosing which names fit on screen), searches, shows details, and filters and sorts the layer table.
The data travels as one JSON blob in a ``<script type="application/json">``.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from importlib import resources
from typing import Any

from ..base.diagnostics import Diagnostic
from ..base.json_text import dumps, plain
from ..ir.model import Graph
from ..ir.names import output_names
from ..runtime.compare import verdict
from ..runtime.numeric_check import constant_layers
from .layout import NODE_H, NODE_W, Layout, layered_layout

# Node statuses; report.css colours them, report.js names them.
FIRST, FAILED, PASSED, NOT_CHECKED, NOT_COMPARED = "first", "fail", "pass", "unchecked", "none"
CONSTANT, INPUT = "const", "input"
ERROR, WARNING, CLEAN = "error", "warning", "clean"

_TENSOR_COUNTS = ("nan_expected", "nan_actual", "inf_expected", "inf_actual")


def compare_html(graph: Graph, report: dict) -> str:
    """The page for one ``compare`` report: ``report`` is ``CompareReport.to_dict()`` for ``graph``."""
    nodes, layout, index = _graph_data(graph)
    info: list[dict | None] = [None] * len(nodes)
    status = [NOT_COMPARED] * len(nodes)
    other: list[dict] = []  # entries naming no layer of this graph
    for entry in report["not_checked"]:
        i = index.get(entry["layer_id"])
        if i is None:
            other.append({"name": entry["name"], "text": f"not checked: {entry['reason']}"})
            continue
        status[i] = NOT_CHECKED
        info[i] = {"reason": entry["reason"]}
    plot = []
    for lay in report["layers"]:  # in topological order
        tensors = [_tensor(t) for t in lay["outputs"]]
        i = index.get(lay["layer_id"])
        if i is None:
            other.append({"name": lay["name"], "text": "compared, but not in the graph", "tensors": tensors})
            continue
        # compare --steps lists a layer once a step: its tensors gathered, a failure at any step kept
        status[i] = FAILED if status[i] == FAILED or not lay["passed"] else PASSED
        info[i] = {**(info[i] or {}), "tensors": (info[i] or {}).get("tensors", []) + tensors}
        if lay["outputs"]:
            plot.append([i, *_worst(lay["outputs"])])
    _ends(graph, report, index, status, info)
    first = report.get("first_divergence")
    first_index = index.get(first["layer_id"]) if first else None
    if first_index is not None:
        status[first_index] = FIRST
    for node, s in zip(nodes, status, strict=True):
        node.append(s)
    summary = {
        "model": report["model"],
        "passed": report["passed"],
        "verdict": verdict(report),
        "config": _number(report["config"]),  # ``--atol inf`` is a valid tolerance
        "inputs": report.get("inputs", []),
        "outputs": [_tensor(t) for t in report["outputs"]],
        "first": first_index,
        "other": other,
        # what the text report says besides: the outputs computed otherwise as the model is compiled, and --config's
        # deviation (not in the verdict)
        "compiled_otherwise": _number([t for t in report.get("compiled_as_is", []) if not t["passed"]]),
        "deployment": _number(report.get("deployment")),
    }
    title = f"ir-tools compare: {report['model']}"
    return _page(title, {"kind": "compare", "title": title, "summary": summary, "plot": plot, "info": info,
                         **_drawing(nodes, layout)})


def _by_output(outputs: list[dict]) -> dict[str, list[dict]]:
    """The report's output comparisons by the output they are of: an output's own (its name), and each of its
    steps or states (its name, then `` (``)."""
    by_output: dict[str, list[dict]] = {}
    for t in outputs:
        name = t["name"]
        for of in dict.fromkeys([name, *(name[:i] for i in range(len(name)) if name.startswith(" (", i))]):
            by_output.setdefault(of, []).append(t)
    return by_output


def _ends(graph: Graph, report: dict, index: dict[str, int], status: list[str], info: list[dict | None]) -> None:
    """What the layers without a comparison of their own were: a Result takes its output's comparisons (and their
    status), a Const and a Parameter their own status; a layer of a constant subgraph, or any layer when only the
    outputs were compared, says why (``why``: a key of report.js's ``WHY``, short for a 50k-layer page)."""
    compared = _by_output(report["outputs"])
    per_layer = bool(report["layers"]) or bool(report["not_checked"])
    constant, named = constant_layers(graph), output_names(graph)
    for layer in graph.layers():
        i = index[layer.id]
        if status[i] != NOT_COMPARED:
            continue
        if layer.is_a("Result"):
            name = named[layer.id]
            tensors = [_tensor(t) for t in compared.get(name, [])]
            info[i] = {"output": name, "tensors": tensors}
            if tensors:
                status[i] = (NOT_CHECKED if not all(t.get("comparable", True) for t in tensors)
                             else PASSED if all(t["passed"] for t in tensors) else FAILED)
        elif layer.is_a("Const"):
            status[i] = CONSTANT
        elif layer.is_a("Parameter"):
            status[i] = INPUT
        elif not per_layer:
            info[i] = {"why": "outputs"}
        elif layer.id in constant:
            info[i] = {"why": "folded"}


def check_html(graph: Graph | None, path: str, diagnostics: list[Diagnostic]) -> str:
    """The page for one ``check`` result; ``graph`` is None when the file could not be read at all."""
    nodes, layout, index = _graph_data(graph) if graph is not None else ([], layered_layout(0, [], []), {})
    info: list[dict | None] = [None] * len(nodes)
    other = []
    for d in diagnostics:
        entry = {"severity": d.severity, "code": d.code, "message": d.message, "line": d.loc.line,
                 "text": d.render()}
        i = index.get(d.loc.layer_id) if d.loc.layer_id is not None else None
        if i is None:
            other.append(entry)
        else:
            info[i] = info[i] or {"diags": []}
            info[i]["diags"].append(entry)
    for node, found in zip(nodes, info, strict=True):
        severities = {d["severity"] for d in found["diags"]} if found else set()
        node.append(ERROR if "error" in severities else WARNING if "warning" in severities else CLEAN)
    summary = {
        "path": path,
        "readable": graph is not None,
        "errors": sum(d.severity == "error" for d in diagnostics),
        "warnings": sum(d.severity == "warning" for d in diagnostics),
        "notes": sum(d.severity == "note" for d in diagnostics),
        "other": other,
    }
    title = f"ir-tools check: {path}"
    return _page(title, {"kind": "check", "title": title, "summary": summary, "info": info,
                         **_drawing(nodes, layout)})


def _graph_data(graph: Graph) -> tuple[list[list[Any]], Layout, dict[str, int]]:
    """Nodes as ``[id, name, type, line, x, y]`` in file order, their layout, and the index of each layer id."""
    layers = list(graph.layers())
    index = {layer.id: i for i, layer in enumerate(layers)}
    edges = [(index[e.from_layer], index[e.to_layer]) for e in graph.edges()]
    inputs = [i for i, layer in enumerate(layers) if layer.is_a("Parameter")]
    layout = layered_layout(len(layers), edges, inputs)
    nodes = [[layer.id, layer.name, layer.kind, layer.line, x, y]
             for layer, x, y in zip(layers, layout.x, layout.y, strict=True)]
    return nodes, layout, index


def _drawing(nodes: list[list[Any]], layout: Layout) -> dict:
    return {
        "nodes": nodes,
        "edges": layout.edges,
        "layout": {"width": layout.width, "height": layout.height, "node_w": NODE_W, "node_h": NODE_H,
                   "bands": layout.bands},
    }


def _tensor(t: dict) -> dict:
    """A tensor comparison without the fields that say nothing (zero NaN/Inf counts, no note)."""
    return {k: _number(v) for k, v in t.items()
            if not (v is None and k in ("note", "first_mismatch")) and not (k in _TENSOR_COUNTS and v == 0)}


def _worst(outputs: Sequence[dict]) -> tuple[float | str | None, float, bool]:
    """A layer's point in the error plot: (max abs error, or None when no tolerance passes; the larger of atol and
    the rounding bound; passed)."""
    worst = max(outputs, key=lambda t: (not t["passed"], t["max_abs_error"]))
    unbounded = not worst["passed"] and (worst["note"] is not None or worst["min_atol_to_pass"] is None)
    line = max(worst["atol"], worst.get("bound_max") or 0.0)
    return None if unbounded else _number(worst["max_abs_error"]), _number(line), worst["passed"]


def _number(value: Any) -> Any:
    """Floats (in containers too) as JSON can hold them: 6 significant digits, and non-finite ones as strict JSON
    writes them (``json_text.plain``: 'inf', 'nan'; the page shows them as they are)."""
    if isinstance(value, float):
        return float(f"{value:.6g}") if math.isfinite(value) else plain(value)
    if isinstance(value, dict):
        return {k: _number(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_number(v) for v in value]
    return value


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _page(title: str, data: dict) -> str:
    """The HTML document: inline style, data and script; ASCII only (non-ASCII names travel as JSON escapes)."""
    blob = dumps(data, separators=(",", ":"))
    blob = blob.replace("</", "<\\/").replace("<!--", "\\u003c!--")  # nothing in it can end the <script>
    parts = {"TITLE": html.escape(title).encode("ascii", "xmlcharrefreplace").decode(),
             "CSS": _asset("report.css"), "JS": _asset("report.js"), "DATA": blob}
    return re.sub(r"@(TITLE|CSS|JS|DATA)@", lambda m: parts[m.group(1)], _TEMPLATE)  # one pass: no part is rescanned


# The one page; report.js fills it. CSP: nothing may be fetched, only this page's inline style and script run.
_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
  content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>@TITLE@</title>
<style>
@CSS@
</style>
</head>
<body>
<header>
  <h1 id="title"></h1>
  <div id="verdict"></div>
  <div id="config"></div>
  <div id="inputs"></div>
</header>
<div id="toolbar">
  <input id="search" type="search" placeholder="find a layer by name or id (Enter: next match)" autocomplete="off"
    aria-label="find a layer">
  <span id="found"></span>
  <button id="fit" type="button" title="show the whole graph">fit</button>
  <span id="legend"></span>
  <span id="hint">drag: pan &middot; wheel: zoom &middot; click: details</span>
</div>
<ul id="matches" hidden></ul>
<main>
  <section id="graph-pane">
    <svg id="graph" xmlns="http://www.w3.org/2000/svg"></svg>
    <p id="empty" hidden></p>
  </section>
  <aside>
    <section id="details" aria-live="polite"><p class="muted">Click a layer (or hover it) to see its details.</p>
    </section>
    <section id="lists"></section>
  </aside>
</main>
<footer>
  <section id="table-pane">
    <div id="table-controls">
      <h2>Layers</h2>
      <label>show <select id="filter" aria-label="which layers the table shows"></select></label>
      <input id="table-find" type="search" placeholder="name or type contains" autocomplete="off"
        aria-label="filter the table by name or type">
      <span id="table-count" class="muted"></span>
    </div>
    <div id="table-wrap"><table id="layers"><thead></thead><tbody></tbody></table></div>
  </section>
  <section id="plot-pane" hidden>
    <h2>Error per layer, in topological order</h2>
    <svg id="plot" xmlns="http://www.w3.org/2000/svg"></svg>
    <p class="muted" id="plot-note"></p>
  </section>
</footer>
<div id="tip" hidden></div>
<script id="data" type="application/json">@DATA@</script>
<script>
@JS@
</script>
</body>
</html>
"""
