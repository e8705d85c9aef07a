"""The HTML reports of ``compare`` and ``check`` (``ir_tools.report``), opened in a real browser.

Headless Chromium (Debian's /usr/bin/chromium, never a downloaded one) is driven by playwright. Where no
browser can be had (no /usr/bin/chromium, or playwright not importable) the browser tests skip and say
why; the two tests at the end need no browser. ``IR_TOOLS_SCREENSHOT=1`` also saves the compare report's
screenshots in docs/: compare-report.png (zoomed in on the first divergence), compare-report-fit.png and
compare-report-failures.png (the layer table filtered and sorted). Run with ``-s`` to see the sizes and timings.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from ir_tools.ir.model import Graph
from ir_tools.ops.inverse import INVERSE_14
from ir_tools.ops.spec import OpSpec
from ir_tools.passes.validate import check_file, read_valid
from ir_tools.report import check_html, compare_html
from ir_tools.report.layout import ASPECT, COL, EDGE_BACK, EDGE_FORWARD, ROW, layered_layout
from ir_tools.runtime.compare import CompareReport, LayerComparison, compare_tensors
from tests.conftest import ROOT

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1400, "height": 900}
SCREENSHOT = ROOT / "docs" / "compare-report.png"
BAD = ROOT / "tests" / "data" / "bad"


# -- the browser ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def browser(tmp_path_factory) -> Iterator[object]:
    """One headless Chromium (a fresh profile) for the module's tests; skips when none can be had."""
    if not CHROMIUM.is_file():
        pytest.skip(f"no browser: {CHROMIUM} is missing (apt-get install chromium)")
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError as exc:
        pytest.skip(f"no browser: playwright is not importable ({exc}); pip install 'ir_tools[test]'")
    with sync_playwright() as pw:
        try:
            context = pw.chromium.launch_persistent_context(
                tmp_path_factory.mktemp("chromium-profile"), executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                headless=True, viewport=VIEWPORT)
        except Error as exc:
            pytest.skip(f"no browser: {CHROMIUM} would not start ({exc.message.splitlines()[0]})")
        yield context
        context.close()


class Opened:
    """A report open in a tab, with everything the page complained about or tried to fetch."""

    def __init__(self, browser, path: Path):
        self.page = browser.new_page()
        self.problems: list[str] = []
        self.page.on("console", lambda m: self.problems.append(f"console.{m.type}: {m.text}")
                     if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.problems.append(f"uncaught: {e}"))
        self.page.on("request", lambda r: self.problems.append(f"fetched {r.url}")
                     if r.url != path.as_uri() and not r.url.startswith("data:") else None)
        start = time.perf_counter()
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("body[data-ready]", state="attached")
        self.next_frame()
        self.seconds = time.perf_counter() - start  # load to ready: parsed, drawn, first layer selected, painted

    def next_frame(self) -> None:
        """Wait until what was asked of the page so far has been painted."""
        self.page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    def details(self) -> str:
        return self.page.inner_text("#details")

    def node(self, layer_id: str) -> str:
        return f'#graph rect[data-id="{layer_id}"]'

    def transform(self) -> str:
        return self.page.get_attribute("#graph > g", "transform")

    def close(self) -> None:
        self.page.close()


@pytest.fixture
def open_report(browser) -> Iterator[Callable[[Path], Opened]]:
    tabs: list[Opened] = []

    def open_(path: Path) -> Opened:
        tabs.append(Opened(browser, path))
        return tabs[-1]

    yield open_
    for tab in tabs:
        tab.close()


def write_report(path: Path, render: Callable[[], str]) -> float:
    """Render and write a page; the seconds it took."""
    start = time.perf_counter()
    path.write_text(render(), encoding="utf-8")
    return time.perf_counter() - start


# -- the networks ------------------------------------------------------------------------------------------
def residual_chain(path: Path, blocks: int) -> None:
    """Convolution, Add (bias), Relu, AvgPool and a residual Add per block: 7 layers with its 2 Consts.

    The weights are small and the bias negative so that values stay near 1 however deep the chain, and
    saved without fp16 compression so that each Convolution reads its weights straight from a Const.
    """
    import openvino as ov
    import openvino.opset8 as o8

    rng = np.random.default_rng(0)
    x = o8.parameter([1, 4, 8, 8], np.float32, name="input")
    y = x
    for i in range(blocks):
        w = o8.constant((rng.standard_normal((4, 4, 1, 1)) * 0.05).astype(np.float32), name=f"b{i}/w")
        b = o8.constant((rng.standard_normal((1, 4, 1, 1)) * 0.1 - 0.1).astype(np.float32), name=f"b{i}/b")
        conv = o8.convolution(y, w, [1, 1], [0, 0], [0, 0], [1, 1], name=f"b{i}/conv")
        act = o8.relu(o8.add(conv, b, name=f"b{i}/bias"), name=f"b{i}/relu")
        pool = o8.avg_pool(act, [1, 1], [1, 1], [1, 1], [3, 3], False, name=f"b{i}/pool")
        y = o8.add(pool, y, name=f"b{i}/residual")
    ov.save_model(ov.Model([o8.result(y, name="output")], [x], f"chain{blocks}"), str(path), compress_to_fp16=False)


def layer_named(graph: Graph, name: str):
    return next(layer for layer in graph.layers() if layer.name == name)


@pytest.fixture(scope="module")
def defect(tmp_path_factory) -> tuple[Graph, dict]:
    """A 1,017-layer chain compared, with ``--load-outputs`` of the original, after one weight of
    ``b100/conv`` changed: the graph and the report (first divergence: b100/conv)."""
    from ir_tools.runtime.compare import Tolerances
    from ir_tools.runtime.inputs import random_inputs
    from ir_tools.runtime.numeric_check import CompareOptions, compare_model, saved_arrays
    from ir_tools.runtime.openvino import ModelFiles

    tmp = tmp_path_factory.mktemp("defect")
    original, edited = tmp / "chain.xml", tmp / "edited.xml"
    residual_chain(original, 145)
    graph = read_valid(original)
    inputs = random_inputs(graph, 0, {})
    golden = compare_model(graph, inputs, CompareOptions(per_layer=True),
                           ModelFiles(original, original.with_suffix(".bin")))
    assert golden.passed, "the original chain must pass before a defect is planted"

    shutil.copy(original, edited)
    weights = bytearray(original.with_suffix(".bin").read_bytes())
    w = layer_named(graph, "b100/w")
    offset, size = int(w.attrs["offset"]), int(w.attrs["size"])
    values = np.frombuffer(bytes(weights[offset:offset + size]), np.float32).copy()
    values[0] += 0.5
    weights[offset:offset + size] = values.tobytes()
    edited.with_suffix(".bin").write_bytes(bytes(weights))

    graph = read_valid(edited)
    # (tolerances of 0: every layer the reference computes otherwise is judged by its bound, the table's error / bound)
    report = compare_model(graph, inputs, CompareOptions(Tolerances(0.0, 0.0), saved=saved_arrays(golden)),
                           ModelFiles(edited, edited.with_suffix(".bin")))
    return graph, report.to_dict()


# -- compare -----------------------------------------------------------------------------------------------
@pytest.mark.openvino
def test_compare_report_names_the_planted_defect(open_report, defect, tmp_path, check_report):
    graph, report = defect
    check_report(report)
    assert len(graph) >= 1000 and report["first_divergence"]["name"] == "b100/conv"
    conv, relu = layer_named(graph, "b100/conv"), layer_named(graph, "b99/relu")
    page = tmp_path / "compare.html"
    seconds = write_report(page, lambda: compare_html(graph, report))
    tab = open_report(page)
    print(f"\ncompare report, {len(graph)} layers: {page.stat().st_size / 1e6:.2f} MB, written in {seconds:.2f} s, "
          f"ready in Chromium in {tab.seconds:.2f} s")
    assert tab.problems == []
    assert tab.page.locator("#graph rect.n").count() == len(graph)
    assert "first divergence 1" in tab.page.inner_text("#legend")

    # search finds a layer and centres it; a click on the failing layer shows its comparison
    tab.page.fill("#search", "b99/residual")
    tab.page.press("#search", "Enter")
    assert tab.details().startswith("b99/residual")
    tab.page.click(tab.node(conv.id))
    details = tab.details()
    assert details.startswith("b100/conv") and "first divergence" in details
    assert "[FAIL] b100/conv:2 (vs saved)" in details
    assert re.search(r"max abs error\s+\d", details) and "would pass with" in details
    assert f"line\t{conv.line}" in details

    # hover shows the same details in a tooltip
    tab.page.hover(tab.node(relu.id))
    assert tab.page.is_visible("#tip") and "b99/relu" in tab.page.inner_text("#tip")
    assert "passed" in tab.page.inner_text("#tip")

    # the error plot has a dot per compared layer; the failing one is marked
    assert tab.page.locator("#plot circle.pt").count() == len(report["layers"])
    assert tab.page.locator(f'#plot circle.pt.first[data-i="{list(graph.layers()).index(conv)}"]').count() == 1

    # wheel zooms, drag pans
    before = tab.transform()
    box = tab.page.locator("#graph").bounding_box()
    tab.page.mouse.move(box["x"] + 100, box["y"] + 100)
    tab.page.mouse.wheel(0, 400)
    zoomed = tab.transform()
    assert zoomed != before
    tab.page.mouse.down()
    tab.page.mouse.move(box["x"] + 250, box["y"] + 180, steps=5)
    tab.page.mouse.up()
    assert tab.transform() != zoomed and tab.details().startswith("b100/conv")  # a drag is not a click

    tab.page.fill("#search", "b100/conv")
    tab.page.press("#search", "Enter")
    tab.page.mouse.move(0, 0)
    shot = SCREENSHOT if os.environ.get("IR_TOOLS_SCREENSHOT") == "1" else tmp_path / "compare-report.png"
    tab.page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    assert tab.problems == []


# What a reader can read in the drawing: every text of the graph on screen at 10 px or more (its font size times
# the zoom it is drawn at), each one's first line, how many overlap another, and how many boxes are wholly on screen.
READABLE = """() => {
  const pane = document.querySelector("#graph").getBoundingClientRect();
  const inside = (r) => r.width > 0 && r.left >= pane.left && r.right <= pane.right && r.top >= pane.top
    && r.bottom <= pane.bottom;
  const shown = [];
  for (const t of document.querySelectorAll("#graph text")) {
    const r = t.getBoundingClientRect();
    if (inside(r) && parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a >= 10) {
      shown.push({ name: t.firstChild.textContent, r });
    }
  }
  let overlaps = 0;
  for (let a = 0; a < shown.length; a++) for (let b = a + 1; b < shown.length; b++) {
    const p = shown[a].r, q = shown[b].r;
    if (p.left < q.right - 1 && q.left < p.right - 1 && p.top < q.bottom - 1 && q.top < p.bottom - 1) overlaps++;
  }
  const boxes = [...document.querySelectorAll("#graph rect.n")].filter((e) => inside(e.getBoundingClientRect()));
  return { names: shown.map((s) => s.name), overlaps, boxes: boxes.length };
}"""

TABLE = """() => [...document.querySelectorAll("#layers tbody tr")].map((tr) =>
  [...tr.cells].map((td) => td.innerText.trim()))"""


def scale(tab: Opened) -> float:
    return float(re.search(r"scale\(([^)]+)\)", tab.transform()).group(1))


def shown_number(text: str) -> float | None:
    """A number as the table shows it ('-': none)."""
    return None if text == "-" else math.inf if text == "inf" else float(text)


@pytest.mark.openvino
def test_1000_layer_report_at_fit_then_zoomed_and_its_failures_sorted(open_report, defect, tmp_path):
    """The compare report of the 1,017-layer chain: at 'fit' the most telling names are readable (the first
    divergence among them), none overlapping; zooming in names more boxes until each box on screen holds its
    name; the layer table filtered to the failures and sorted by error/bound; the chart's axes named with
    layers; the inputs described; the output and the constants show what they were. Prints the time to first
    paint and per interaction."""
    graph, report = defect
    page = tmp_path / "compare.html"
    write_report(page, lambda: compare_html(graph, report))
    tab = open_report(page)
    # the paint entry is recorded after the frame is presented, which may come after the load event; polled from here
    # (wait_for_function polls a string by eval inside the page, which the report's policy refuses: 'unsafe-eval')
    for _ in range(200):
        if tab.page.evaluate("performance.getEntriesByName('first-contentful-paint').length > 0"):
            break
        tab.page.wait_for_timeout(25)
    paint = tab.page.evaluate("performance.getEntriesByName('first-contentful-paint')[0].startTime")
    shots = os.environ.get("IR_TOOLS_SCREENSHOT") == "1"

    def ms(act: Callable[[], None]) -> float:
        start = time.perf_counter()
        act()
        tab.next_frame()
        return (time.perf_counter() - start) * 1000

    # at fit: no box is big enough for its name, yet the first divergence and dozens of others are named
    at_fit = tab.page.evaluate(READABLE)
    assert len(at_fit["names"]) >= 30 and at_fit["overlaps"] == 0, at_fit
    assert "b100/conv" in at_fit["names"]
    if shots:
        tab.page.screenshot(path=str(SCREENSHOT.with_name("compare-report-fit.png")))

    # zoom in at the middle of the drawing: names appear until every box on screen holds its own
    box = tab.page.locator("#graph").bounding_box()
    tab.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    steps, zoom_ms = [(scale(tab), len(at_fit["names"]), at_fit["boxes"])], []
    while scale(tab) < 1:
        zoom_ms.append(ms(lambda: tab.page.mouse.wheel(0, -250)))
        seen = tab.page.evaluate(READABLE)
        assert seen["names"] and seen["overlaps"] == 0, seen
        steps.append((scale(tab), len(seen["names"]), seen["boxes"]))
    layers = {layer.name for layer in graph.layers()}
    assert 0 < seen["boxes"] <= len(seen["names"]) and all(
        name in layers or name.startswith("\u2026") for name in seen["names"])

    # the table: failures only, the largest error over its rounding bound first
    failing = {lay["name"] for lay in report["layers"] if not lay["passed"]}
    failing |= {layer.name for layer in graph.results() if any(not t["passed"] for t in report["outputs"])}
    filter_ms = ms(lambda: tab.page.select_option("#filter", "failed"))
    sort_ms = ms(lambda: tab.page.click('#layers th[data-sort="ratio"]'))
    rows = tab.page.evaluate(TABLE)
    header = tab.page.inner_text("#layers thead")
    columns = header.split("\t")
    assert [c.strip(" \u25bc\u25b2") for c in columns][:5] == ["status", "type", "name", "error / bound",
                                                               "max abs error"]
    assert "\u25bc" in columns[3]
    assert len(rows) == min(len(failing), 500) and {r[2] for r in rows} <= failing
    assert {r[0] for r in rows} <= {"failed", "first divergence"}
    ratios = [shown_number(r[3]) for r in rows]
    known = [v for v in ratios if v is not None]
    assert known == sorted(known, reverse=True) and ratios[:len(known)] == known  # none (no bound) last
    largest = max(t["error_to_bound"] for lay in report["layers"] if not lay["passed"] for t in lay["outputs"]
                  if t.get("error_to_bound") is not None)
    assert known[0] == pytest.approx(largest, rel=5e-3)  # shown to 4 significant digits
    tab.page.locator("#layers tbody tr").first.click()
    assert tab.details().startswith(rows[0][2])
    if shots:
        tab.page.screenshot(path=str(SCREENSHOT.with_name("compare-report-failures.png")))

    # the chart's axes: named, and the x axis names layers in topological order
    titles = tab.page.locator("#plot text.axis-title").all_text_contents()
    assert any("error" in t for t in titles) and any("layer" in t for t in titles)
    order = [lay["name"] for lay in report["layers"]]
    ticks = [t.lstrip("\u2026") for t in tab.page.locator("#plot text.xname").all_text_contents()]
    positions = [next(j for j, name in enumerate(order) if name.endswith(tick)) for tick in ticks]
    assert len(ticks) >= 4 and positions == sorted(positions)
    assert "first divergence: b100/conv" in tab.page.text_content("#plot")

    # the inputs are described: name, element type, shape, how their values were made
    header = tab.page.inner_text("header")
    assert report["inputs"] and all(
        f"input {given['name']}: {given['element_type']} [{', '.join(map(str, given['shape']))}]" in header
        and given["values"] in header for given in report["inputs"])

    # the output, a constant and the input say what they were
    result, const, param = next(iter(graph.results())), layer_named(graph, "b100/w"), next(iter(graph.parameters()))
    assert tab.page.get_attribute(tab.node(result.id), "class") == "n s-fail"
    assert tab.page.get_attribute(tab.node(const.id), "class") == "n s-const"
    assert tab.page.get_attribute(tab.node(param.id), "class") == "n s-pass"  # against the saved input
    tab.page.evaluate(f"irReport.select({list(graph.layers()).index(const)}, true)")
    assert "constant, not compared" in tab.details()
    tab.page.evaluate(f"irReport.select({list(graph.layers()).index(result)}, true)")
    assert "model output" in tab.details() and "[FAIL]" in tab.details()
    print(f"\n1017-layer compare report: first paint {paint:.0f} ms, ready {tab.seconds * 1000:.0f} ms; labels "
          "readable (zoom, labels, boxes wholly on screen): " + ", ".join(f"({k:.2f}, {n}, {b})" for k, n, b in steps) +
          f"; per interaction: zoom {sum(zoom_ms) / len(zoom_ms):.0f} ms, filter to failures {filter_ms:.0f} ms, "
          f"sort by error/bound {sort_ms:.0f} ms")
    assert tab.problems == []


@pytest.mark.openvino
def test_verdict_says_what_was_compared(open_report, tmp_path, check_report, set_aside: Callable[[OpSpec], None]):
    """A model the reference cannot run end to end (Inverse has no kernel: its spec set aside) has its layers
    compared but no output: the page never shows a green PASSED for it, and says what was compared."""
    import openvino as ov
    import openvino.opset8 as o8
    import openvino.opset14 as o14

    from ir_tools.runtime.inputs import random_inputs
    from ir_tools.runtime.numeric_check import CompareOptions, compare_model
    from ir_tools.runtime.openvino import ModelFiles

    set_aside(INVERSE_14)
    model = tmp_path / "inverse.xml"
    x = o8.parameter([1, 4, 4], np.float32, name="x")
    inverse = o14.inverse(o8.relu(x, name="relu"), adjoint=False, name="inverse")
    ov.save_model(ov.Model([o8.result(o8.relu(inverse, name="after"), name="out")], [x], "inverse"), str(model))
    graph = read_valid(model)
    report = check_report(compare_model(graph, random_inputs(graph, 0, {}), CompareOptions(),
                                        ModelFiles(model, model.with_suffix(".bin"))).to_dict())
    assert report["passed"] and report["outputs"] == [] and len(report["layers"]) == 2
    page = tmp_path / "inverse.html"
    write_report(page, lambda: compare_html(graph, report))
    tab = open_report(page)
    verdict = tab.page.inner_text("#verdict")
    assert not verdict.startswith("PASSED") and tab.page.locator("#verdict .good").count() == 0
    assert verdict.startswith("NO OUTPUT COMPARED") and "2 layer(s) compared" in verdict
    assert tab.page.get_attribute(tab.node(next(iter(graph.results())).id), "class") == "n s-none"
    assert tab.problems == []


def synthetic_report(graph: Graph, failing: str) -> dict:
    """A schema-valid report as ``--load-outputs`` gives it (two comparisons per executed layer) where
    ``failing`` and every layer after it fail: compare itself takes minutes on 5,000 layers."""
    rng = np.random.default_rng(1)
    expected = rng.standard_normal(64).astype(np.float32)
    close, far = expected + np.float32(1e-7), expected + np.float32(0.1)
    report = CompareReport(str(graph.source), {"openvino": "synthetic", "device": "CPU",
                                               "INFERENCE_PRECISION_HINT": "f32", "atol": 1e-5, "rtol": 1e-5,
                                               "atol_by_name": {}, "rtol_by_name": {}, "seed": 0})
    broken = False
    for layer in graph.topological_order():
        if layer.type in ("Const", "Parameter", "Result"):
            continue
        broken = broken or layer.name == failing
        name = f"{layer.name}:{layer.outputs[0].id}"
        report.layers.append(LayerComparison(layer.id, layer.name, layer.kind, layer.line, [
            compare_tensors(name, close, expected, 1e-5, 1e-5),
            compare_tensors(f"{name} (vs saved)", far if broken else close, expected, 1e-5, 1e-5)]))
    first = layer_named(graph, failing)
    report.first_divergence = {"layer_id": first.id, "name": first.name, "type": first.kind, "line": first.line}
    return report.to_dict()


@pytest.mark.openvino  # builds the network with OpenVINO's Python API
def test_5000_layer_report_draws_zooms_pans_and_finds(open_report, tmp_path, check_report):
    """A 5000-layer compare report draws every layer and finds one by name after a zoom and a pan, without a
    problem in the page; what each event takes is printed (speed is measured, not asserted, as the tests' rule is)."""
    model = tmp_path / "chain.xml"
    residual_chain(model, 714)
    graph = read_valid(model)
    assert len(graph) == 5000
    report = check_report(synthetic_report(graph, "b500/conv"))
    page = tmp_path / "compare5000.html"
    seconds = write_report(page, lambda: compare_html(graph, report))
    tab = open_report(page)
    assert tab.problems == []
    assert tab.page.locator("#graph rect.n").count() == 5000

    def frame_ms(act: Callable[[], None], times: int = 10) -> float:
        """Mean milliseconds from an input event to the frame after the one that painted it."""
        start = time.perf_counter()
        for _ in range(times):
            act()
            tab.next_frame()
        return (time.perf_counter() - start) / times * 1000

    idle = frame_ms(lambda: None)  # two frames and the round trips, nothing drawn
    box = tab.page.locator("#graph").bounding_box()
    tab.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    zoom_in = frame_ms(lambda: tab.page.mouse.wheel(0, -250))  # down to labelled boxes
    tab.page.mouse.down()
    pan = frame_ms(lambda: tab.page.mouse.move(box["x"] + 100 + 30 * np.random.rand(), box["y"] + 100), 10)
    tab.page.mouse.up()
    start = time.perf_counter()
    tab.page.fill("#search", "b650/pool")
    tab.page.press("#search", "Enter")
    find = time.perf_counter() - start
    assert tab.details().startswith("b650/pool")
    print(f"\ncompare report, 5000 layers: {page.stat().st_size / 1e6:.2f} MB, written in {seconds:.2f} s, "
          f"ready in Chromium in {tab.seconds:.2f} s; per event: zoom {zoom_in:.0f} ms, pan {pan:.0f} ms "
          f"(of which {idle:.0f} ms waiting for two frames and the round trips); "
          f"search {find * 1000:.0f} ms")
    assert tab.problems == []


# -- check -------------------------------------------------------------------------------------------------
CHECKED = {  # file: (layer with an error, or None, and a code it shows)
    "samples/wrong_dims.xml": ("pool1", "E-SHAPE"),
    "tests/data/bad/cycle_beside_valid.xml": ("p2", "E-CYCLE"),
    "tests/data/bad/dup_id.xml": (None, "E-EDGE-LAYER"),
    "tests/data/bad/read_malformed.xml": (None, "E-READ"),
    "tests/data/bad/zero_layers.xml": (None, "E-NO-RESULT"),
}


@pytest.mark.parametrize("relative", CHECKED)
def test_check_report_shows_each_diagnostic(relative, open_report, tmp_path):
    layer_name, code = CHECKED[relative]
    diagnostics, graph, _ = check_file(ROOT / relative)
    page = tmp_path / "check.html"
    write_report(page, lambda: check_html(graph, relative, diagnostics))
    tab = open_report(page)
    assert tab.problems == []
    errors = sum(d.severity == "error" for d in diagnostics)
    assert tab.page.inner_text("#verdict").startswith(f"{errors} error(s)")
    assert tab.page.locator("#graph rect.n").count() == (len(graph) if graph is not None else 0)
    if layer_name is not None:
        layer = layer_named(graph, layer_name)
        assert tab.page.get_attribute(tab.node(layer.id), "class") == "n s-error"
        tab.page.click("#fit")
        tab.page.click(tab.node(layer.id))
        details = tab.details()
        assert details.startswith(layer_name) and "with errors" in details
        assert f"error[{code}]" in details
        # the layer's own line is labelled as such, beside the lines its diagnostics point at (a port's, often)
        lines = list(dict.fromkeys(d.loc.line for d in diagnostics if d.loc.layer_id == layer.id))
        assert f"layer at line\t{layer.line}" in details
        assert f"diagnostics at line\t{', '.join(map(str, lines))}" in details
        assert f"{layer_name}: line {lines[0]}: error[{code}]" in tab.page.inner_text("#lists")
        assert f"{code} at line {lines[0]}" in tab.page.inner_text("#layers")
        assert not tab.page.is_visible("#plot-pane")  # check has no error chart
    else:
        assert f"error[{code}]" in tab.page.inner_text("#lists")
    if graph is None:
        assert tab.page.is_visible("#empty")


# -- without a browser -------------------------------------------------------------------------------------
def test_page_is_self_contained_and_its_data_cannot_escape(tmp_path):
    """No URL, no fetch; names that close a script or open a comment stay data; Infinity and NaN survive."""
    diagnostics, graph, _ = check_file(ROOT / "samples" / "wrong_dims.xml")
    hostile = "</script><script>alert(1)</script><!-- \u00e9"
    next(iter(graph.layers())).name = hostile
    nan = compare_tensors("x", np.array([np.nan, 1.0, 2.0]), np.array([1.0, 0.0, 2.0]), 1e-5, 1e-5)
    assert math.isinf(nan.max_rel_error)
    report = {"model": "m.xml", "passed": False, "config": {"atol": math.inf, "rtol": 1e-5}, "outputs": [nan.to_dict()],
              "layers": [{"layer_id": "1", "name": "pool1", "type": "AvgPool@opset1", "line": 15, "passed": False,
                          "outputs": [nan.to_dict()]}],
              "not_checked": [], "first_divergence": {"layer_id": "1", "name": "pool1", "type": "", "line": 15}}
    for page in (check_html(graph, "wrong_dims.xml", diagnostics), compare_html(graph, report)):
        assert page.isascii()
        assert page.count("</script>") == 2 and "<!--" not in page
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", page)  # the SVG namespace is a name, not a fetch
        assert not re.search(r"\b(src|href)=\"(?!data:|#)|@import|url\(|fetch\(|XMLHttpRequest|WebSocket", page)
        assert "default-src 'none'" in page
        blob = re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S).group(1)
        data = json.loads(blob)
        assert data["nodes"][0][1] == hostile
    assert data["summary"]["config"]["atol"] == "inf"
    tensor = data["info"][1]["tensors"][0]
    assert tensor["max_rel_error"] == "inf" and tensor["min_atol_to_pass"] is None
    assert data["plot"] == [[1, None, 1e-5, False]]  # no tolerance passes: drawn on the plot's top line


def test_layout_ranks_follow_edges_and_wrap_a_deep_chain():
    """Ranks grow along every forward edge, a Const sits right before its consumer, a cycle becomes a back
    edge, and a 3,000-rank chain is wrapped into bands of about a screen's aspect ratio."""
    # 0 -> 1 -> ... -> n-1, with a Const feeding every tenth node
    n = 3000
    edges = [(i, i + 1) for i in range(n - 1)]
    consts = list(range(n, n + n // 10))
    edges += [(c, (c - n) * 10 + 5) for c in consts]
    layout = layered_layout(n + len(consts), edges, [0])
    assert all(layout.rank[u] < layout.rank[v] for u, v in edges)
    assert all(layout.rank[c] == layout.rank[(c - n) * 10 + 5] - 1 for c in consts)
    assert all(kind != EDGE_BACK for _, _, kind in layout.edges)
    assert layout.band_ranks < n and 0.5 * ASPECT < layout.width / layout.height < 2 * ASPECT
    assert {layout.y[i] for i in range(0, n, 7)} <= {top for top, _ in layout.bands}  # the chain is each band's top row
    assert layout.x[1] - layout.x[0] == COL and layout.y[consts[0]] - layout.y[5] == ROW

    cycle = layered_layout(3, [(0, 1), (1, 2), (2, 1), (2, 2)], [0])
    kinds = {(u, v): kind for u, v, kind in cycle.edges}
    assert kinds == {(0, 1): EDGE_FORWARD, (1, 2): EDGE_FORWARD, (2, 1): EDGE_BACK, (2, 2): EDGE_BACK}
    assert layered_layout(0, [], []).width == 0


@pytest.mark.openvino
def test_a_derived_tolerance_is_said_so_in_the_header(open_report, tmp_path: Path, capsys) -> None:
    """compare --against derives its tolerance (atol and rtol 0 in the config): the page's header says the derived
    tolerance, as the text report does; it said 'atol 0 · rtol 0' (from a QA run)."""
    from ir_tools.cli import main

    fixtures = ROOT / "tests" / "data" / "target"
    page = tmp_path / "against.html"
    assert main(["compare", str(fixtures / "tiny_gpt2_f16.xml"), "--against", str(fixtures / "tiny_gpt2_f16.xml"),
                 "--html", str(page), "-q"]) == 0
    capsys.readouterr()
    header = open_report(page).page.inner_text("#config")
    assert "tolerance (derived): " in header and "atol 0" not in header, header


@pytest.mark.openvino
def test_the_page_says_what_deployment_settings_move_and_what_is_computed_otherwise(open_report, tmp_path: Path,
                                                                                    capsys) -> None:
    """The text report says which layers and outputs --config's settings move and which outputs the model as it is
    compiled computes otherwise; the page said neither (its verdict names the latter). Both are listed now: the
    GPT-2 fixture deployed at bf16, and the static T5 encoder whose compiled model loses its position bias."""
    from ir_tools.cli import main

    page = tmp_path / "deployed.html"
    assert main(["compare", str(ROOT / "tests" / "data" / "target" / "tiny_gpt2_f16.xml"), "--config",
                 "INFERENCE_PRECISION_HINT=bf16", "--html", str(page), "--format", "json"]) == 0
    deployment = json.loads(capsys.readouterr().out)["deployment"]
    opened = open_report(page)
    lists = opened.page.inner_text("#lists")
    assert "Deployed as INFERENCE_PRECISION_HINT=bf16" in lists, lists
    assert f"{len(deployment['layers_moved'])} of {deployment['layers_compared']} layers moved" in lists, lists
    assert "output logits" in lists and not opened.problems, opened.problems
    page = tmp_path / "t5.html"
    assert main(["compare", str(ROOT / "tests" / "data" / "networks" / "t5_encoder_static_f16.xml"), "--html",
                 str(page), "-q"]) == 1
    lists = open_report(page).page.inner_text("#lists")
    assert "Computed otherwise compiled as it is (1)" in lists and "last_hidden_state: max abs difference" in lists
