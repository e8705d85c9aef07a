/* ir-tools HTML report. Python computed the layout and each layer's status; this only draws them and lets
   you pan (drag), zoom (wheel), find a layer (search box), read its details (hover, click) and filter and sort
   the layer table. No libraries. */
(function () {
  "use strict";

  const D = JSON.parse(document.getElementById("data").textContent);
  const NODES = D.nodes; // [id, name, type, line, x, y, status], file order
  const NW = D.layout.node_w, NH = D.layout.node_h;
  const W = D.layout.width, H = D.layout.height;
  const STATUS = {
    first: "first divergence", fail: "failed", pass: "passed", unchecked: "not checked", none: "not compared",
    input: "input", const: "constant", error: "with errors", warning: "with warnings", clean: "clean",
  };
  const SHOWN = D.kind === "compare" ? ["first", "fail", "pass", "unchecked", "none", "input", "const"]
    : ["error", "warning", "clean"];
  const DARK = new Set(["first", "fail", "error"]);
  const WHY = { // why a layer has no comparison of its own (by status, or the ``why`` Python gave it)
    const: "constant, not compared: its values are the file's (OpenVINO does not expose them)",
    input: "model input, not compared here: the same values fed to both (the header says where they came from)",
    folded: "not compared: computed from constants alone (a constant subgraph; --compare-constants compares it)",
    outputs: "not compared: only the model's outputs were (--per-layer compares each layer)",
  };
  const $ = (id) => document.getElementById(id);

  // --- helpers ---------------------------------------------------------------------------------------------
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");

  function num(v) {
    if (v === null || v === undefined) return "-";
    if (typeof v === "string") return v; // "inf", "nan"
    const a = Math.abs(v);
    return v === 0 ? "0" : a >= 1e-3 && a < 1e5 ? String(+v.toPrecision(4)) : v.toExponential(2);
  }

  const swatch = (s) => `<span class="swatch s-${s}" style="background:var(--${s})"></span>`;
  const LIGHT = new Set(["none", "const", "clean", "unchecked", "warning"]); // backgrounds that need dark text
  const badge = (s) => `<span class="status${LIGHT.has(s) ? " light" : ""}" style="background:var(--${s})">` +
    `${esc(STATUS[s])}</span>`;
  const link = (i) => `<a href="#" data-go="${i}">${esc(NODES[i][1])}</a>`;
  const rows = (pairs) => "<table>" + pairs.filter((p) => p[1] !== undefined && p[1] !== null && p[1] !== "")
    .map(([k, v]) => `<tr><th>${esc(k)}</th><td>${v}</td></tr>`).join("") + "</table>";

  // --- neighbours (for edge highlighting and the details' links) --------------------------------------------
  const preds = NODES.map(() => []), succs = NODES.map(() => []);
  D.edges.forEach(([s, t], e) => { succs[s].push(e); preds[t].push(e); });

  // --- header, legend, side lists -----------------------------------------------------------------------------
  function header() {
    document.title = D.title;
    const s = D.summary;
    if (D.kind === "compare") {
      $("title").textContent = "compare: " + s.model;
      const first = s.first !== null ? `; first divergence: ${link(s.first)}` : "";
      const v = s.verdict;
      $("verdict").innerHTML = `<span class="${v.tone}">${esc(v.word)}</span>${first}` +
        `<span class="compared"> \u00b7 ${esc(v.compared)}</span>`;
      const c = s.config;
      const from = c.inputs ? "inputs " + c.inputs : c.seed !== undefined ? "seed " + c.seed : "";
      const by = (m) => Object.entries(m || {}).map(([k, v]) => `${k}:${num(v)}`).join(" ");
      // a tolerance --against derived (its atol and rtol are 0 then) is said as the text report says it
      const tolerance = c.tolerance ? [`tolerance (derived): ${c.tolerance}`]
        : [`atol ${num(c.atol)} ${by(c.atol_by_name)}`.trim(), `rtol ${num(c.rtol)} ${by(c.rtol_by_name)}`.trim()];
      $("config").textContent = [`openvino ${c.openvino} on ${c.device}`, `inference precision ${c.INFERENCE_PRECISION_HINT}`,
        ...tolerance, from].filter(Boolean).join(" \u00b7 ");
      $("inputs").textContent = (s.inputs || []).map((i) =>
        `input ${i.name}: ${i.element_type} [${i.shape.join(", ")}] (dims: ${i.dims}); ${i.values}`).join("\n");
    } else {
      $("title").textContent = "check: " + s.path;
      const bad = s.errors > 0;
      $("verdict").innerHTML = `<span class="${bad ? "bad" : "good"}">${s.errors} error(s), ${s.warnings} warning(s)` +
        (s.notes ? `, ${s.notes} note(s)` : "") + "</span>";
      $("config").textContent = s.readable ? "" : "the file could not be read as an IR: no graph to draw";
    }
    const counts = {};
    NODES.forEach((n) => { counts[n[6]] = (counts[n[6]] || 0) + 1; });
    $("legend").innerHTML = SHOWN.filter((s, j) => j < 3 || counts[s]) // the rarer kinds only when there are some
      .map((s) => `<span>${swatch(s)}${esc(STATUS[s])} ${counts[s] || 0}</span>`).join("");
  }

  function tensorHtml(t) {
    const pass = t.min_atol_to_pass === null || t.min_rtol_to_pass === null ? "no tolerance passes"
      : `atol \u2265 ${num(t.min_atol_to_pass)} or rtol \u2265 ${num(t.min_rtol_to_pass)}`;
    const special = (a, b) => (a || b ? `${a || 0} / ${b || 0} (OpenVINO / reference)` : null);
    return `<div class="tensor${t.passed ? "" : " failed"}"><b>[${t.passed ? "PASS" : "FAIL"}] ${esc(t.name)}</b>` + rows([
      ["note", t.note ? esc(t.note) : null],
      ["shape", t.shape ? esc(JSON.stringify(t.shape)) : null],
      ["max abs error", num(t.max_abs_error)],
      ["max rel error", num(t.max_rel_error)],
      ["mismatches", `${t.mismatches} / ${t.elements}`],
      ["tolerance", `atol ${num(t.atol)}, rtol ${num(t.rtol)}`],
      ["rounding bound", t.bound_max === undefined || t.bound_max === null ? null
        : `${num(t.bound_max)} (largest error / bound ${num(t.error_to_bound)})`],
      ["would pass with", t.passed ? null : pass],
      ["first mismatch", t.first_mismatch ? esc(JSON.stringify(t.first_mismatch)) : null],
      ["NaN", special(t.nan_actual, t.nan_expected)],
      ["Inf", special(t.inf_actual, t.inf_expected)],
    ]) + "</div>";
  }

  function detailsHtml(i, brief) {
    const [id, name, type, line, , , status] = NODES[i];
    const info = D.info[i] || {};
    const near = (edges, end) => {
      const names = edges.slice(0, brief ? 0 : 12).map((e) => link(D.edges[e][end]));
      return names.join(", ") + (edges.length > names.length ? ` \u2026 (${edges.length})` : "");
    };
    const diagLines = [...new Set((info.diags || []).map((d) => d.line).filter((l) => l !== null))];
    let html = `<h3>${esc(name)}</h3>${badge(status)}` + rows([
      ["type", esc(type)], ["id", esc(id)], ["layer at line", line === null ? "-" : line],
      ["diagnostics at line", diagLines.join(", ")],
      ["inputs from", brief ? null : near(preds[i], 0)], ["outputs to", brief ? null : near(succs[i], 1)],
    ]);
    if (info.reason) html += `<p>not checked: ${esc(info.reason)}</p>`;
    if (info.output !== undefined) {
      html += `<p>model output '${esc(info.output)}'${info.tensors.length ? "" : ": not compared"}</p>`;
    }
    const why = WHY[info.why] || (info.tensors ? null : WHY[status]);
    if (why) html += `<p class="muted">${esc(why)}</p>`;
    const tensors = info.tensors || [];
    html += tensors.slice(0, brief ? 2 : tensors.length).map(tensorHtml).join("");
    const diags = info.diags || [];
    html += diags.slice(0, brief ? 3 : diags.length).map((d) => `<pre class="${d.severity}">${esc(d.text)}</pre>`).join("");
    const hidden = (brief ? Math.max(0, tensors.length - 2) + Math.max(0, diags.length - 3) : 0);
    if (hidden) html += `<p class="muted">\u2026 ${hidden} more: click the layer</p>`;
    if (D.kind === "check" && !diags.length) html += '<p class="muted">no diagnostics</p>';
    if (D.kind === "compare" && !tensors.length && !info.reason && !why && info.output === undefined) {
      html += '<p class="muted">not compared</p>';
    }
    return html;
  }

  function listHtml(title, items, limit) {
    if (!items.length) return "";
    const more = items.length > limit ? `<li class="muted">\u2026 and ${items.length - limit} more (use the search box)</li>` : "";
    return `<h2>${esc(title)} (${items.length})</h2><ul>${items.slice(0, limit).join("")}${more}</ul>`;
  }

  function deployed(d) { // --config: what the settings moved beyond its bound, as the text report says it
    if (!d) return "";
    const settings = Object.entries(d.config).map(([k, v]) => `${k}=${v}`).join(", ");
    const ratio = (m) => m.error_to_bound === null ? "no bound" : `error/bound ${num(m.error_to_bound)}`;
    const moved = new Set(d.outputs_moved.map((m) => m.name));
    return `<h2>Deployed as ${esc(settings)}</h2><p class="muted">a measured deviation of these settings, not a ` +
      `defect; not in the verdict: ${d.layers_moved.length} of ${d.layers_compared} layers moved beyond their bound` +
      (d.outputs_changed ? "" : "; these settings change no output bit on this CPU") + "</p><ul>" +
      d.outputs.map((m) => `<li>output ${esc(m.name)}${moved.has(m.name) ? " moved beyond its bound" : ""}: max abs ` +
        `${num(m.max_abs_error)} (${ratio(m)})</li>`).join("") + "</ul>" +
      listHtml("Layers the settings moved", d.layers_moved.map((m) => `<li>${esc(m.name)} (${esc(m.type)}, line ` +
        `${m.line}): max abs ${num(m.max_abs_error)} (${ratio(m)})</li>`), 300);
  }

  function lists() {
    const s = D.summary;
    let html = "";
    const item = (i, text) => `<li data-go="${i}">${esc(NODES[i][1])}${text ? ": " + esc(text) : ""}</li>`;
    if (D.kind === "compare") {
      if (s.outputs.length) html += "<h2>Outputs</h2>" + s.outputs.map(tensorHtml).join("");
      html += listHtml("Computed otherwise compiled as it is", s.compiled_otherwise.map((t) =>
        `<li>${esc(t.name)}: max abs difference ${num(t.max_abs_difference)}, beyond the ${num(t.limit)} two ` +
        "implementations may differ by, from the run whose layers were checked</li>"), 100);
      html += deployed(s.deployment);
      const failed = [], unchecked = [];
      NODES.forEach((n, i) => {
        if (n[6] === "fail" || n[6] === "first") failed.push(i);
        if (n[6] === "unchecked") unchecked.push(item(i, D.info[i].reason));
      });
      // the failing layers in topological order, as compared
      const order = new Map(D.plot.map((p, j) => [p[0], j]));
      failed.sort((a, b) => order.get(a) - order.get(b));
      html += listHtml("Failed layers", failed.map((i) => item(i, "")), 300);
      html += listHtml("Not checked", unchecked, 300);
      html += listHtml("Not in the graph", s.other.map((o) => `<li>${esc(o.name)}: ${esc(o.text)}</li>`), 100);
    } else {
      const all = [];
      NODES.forEach((n, i) => (D.info[i] ? D.info[i].diags : []).forEach((d) =>
        all.push(item(i, `line ${d.line === null ? "-" : d.line}: ${d.severity}[${d.code}] ${d.message}`))));
      html += listHtml("Diagnostics of layers", all, 500);
      if (s.other.length) html += `<h2>Diagnostics of the file (${s.other.length})</h2>` +
        s.other.map((d) => `<pre class="${d.severity}">${esc(d.text)}</pre>`).join("");
    }
    $("lists").innerHTML = html;
  }

  // --- the graph -------------------------------------------------------------------------------------------
  const svg = $("graph");
  const NS = "http://www.w3.org/2000/svg";
  const add = (parent, tag, attrs) => {
    const e = document.createElementNS(NS, tag);
    for (const name in attrs) e.setAttribute(name, attrs[name]);
    parent.appendChild(e);
    return e;
  };
  const view = add(svg, "g", {});
  let k = 1, tx = 0, ty = 0; // screen = layout * k + t
  let selected = -1;

  function edgePath(list) {
    const parts = [];
    const lift = (NH / 2 + 8) / 0.75; // a skip over its own row arcs between the rows
    for (const e of list) {
      const [s, t, kind] = D.edges[e];
      const x1 = NODES[s][4] + NW, y1 = NODES[s][5] + NH / 2, x2 = NODES[t][4], y2 = NODES[t][5] + NH / 2;
      if (kind === 1) { // wrapped to a later band: a stub out of the source, a stub into the target
        parts.push(`M${x1} ${y1}H${W + 40}M-40 ${y2}H${x2}`);
      } else if (kind === 2) { // back edge (a cycle): a loop below
        parts.push(`M${x1} ${y1}C${x1 + 80} ${y1 + 90} ${x2 - 80} ${y2 + 90} ${x2} ${y2}`);
      } else if (y1 === y2 && x2 - x1 > NW) {
        parts.push(`M${x1} ${y1}C${x1 + 40} ${y1 - lift} ${x2 - 40} ${y2 - lift} ${x2} ${y2}`);
      } else {
        const mx = (x1 + x2) / 2;
        parts.push(`M${x1} ${y1}C${mx} ${y1} ${mx} ${y2} ${x2} ${y2}`);
      }
    }
    return parts.join("");
  }

  function drawGraph() {
    if (!NODES.length) {
      $("empty").hidden = false;
      $("empty").textContent = D.kind === "check" && !D.summary.readable ? "the file could not be read: no graph"
        : "the graph has no layers";
      return;
    }
    const bands = D.layout.bands.length > 1 ? D.layout.bands : [];
    for (const [top, height] of bands) add(view, "rect", { class: "band", x: -30, y: top - 25, width: W + 60, height: height + 50, rx: 8 });
    const byKind = [[], [], []];
    D.edges.forEach((e, i) => byKind[e[2]].push(i));
    ["edges", "edges wrapped", "edges back"].forEach((cls, kind) => {
      if (byKind[kind].length) add(view, "path", { class: cls, d: edgePath(byKind[kind]) });
    });
    view.litEdges = add(view, "path", { class: "edges lit", d: "" });
    const g = add(view, "g", {});
    g.innerHTML = NODES.map((n, i) =>
      `<rect class="n s-${n[6]}" x="${n[4]}" y="${n[5]}" width="${NW}" height="${NH}" rx="4" data-i="${i}" data-id="${esc(n[0])}"/>`).join("");
    view.firstRing = add(view, "rect", { class: "ring first" });
    view.selRing = add(view, "rect", { class: "ring sel" });
  }

  // a rounded frame around a layer, at least ~30 px across on screen however far out the zoom is
  function frame(ring, i, grow) {
    if (i === null || i === undefined || i < 0) return;
    const p = Math.max(6, 14 / k) * grow;
    const [x, y] = [NODES[i][4] - p, NODES[i][5] - p];
    ring.setAttribute("x", x);
    ring.setAttribute("y", y);
    ring.setAttribute("width", NW + 2 * p);
    ring.setAttribute("height", NH + 2 * p);
    ring.setAttribute("rx", Math.min(p + NH / 2, (NW + 2 * p) / 2));
  }

  let pending = 0;
  function apply() {
    if (!NODES.length) return;
    view.setAttribute("transform", `translate(${tx},${ty}) scale(${k})`);
    frame(view.firstRing, D.summary.first, 1);
    frame(view.selRing, selected, 1.5);
    if (!pending) pending = requestAnimationFrame(() => { pending = 0; labels(); });
  }

  // Labels live in screen space, so they are a readable size at any zoom; which layers get one is a level of
  // detail. Boxes tall enough hold their own name (and type); smaller boxes are labelled beside them, the most
  // telling layers first (first divergence, failures, not checked, inputs and outputs), as many as fit without
  // overlapping, so names appear as the user zooms in.
  const labelLayer = add(svg, "g", { id: "labels" });
  const CHAR = 6.4; // px per character of the 11px label font, a little more than system-ui's mean width
  const PRIORITY = { first: 0, fail: 1, error: 1, unchecked: 2, warning: 2, input: 3 };
  const priority = (n) => PRIORITY[n[6]] ?? (n[2].startsWith("Result@") ? 3 : n[6] === "const" ? 5 : 4);
  const BY_PRIORITY = NODES.map((_, i) => i).sort((a, b) => priority(NODES[a]) - priority(NODES[b]) || a - b);
  const cut = (s, n) => (s.length > n ? "\u2026" + s.slice(s.length - n + 1) : s); // a name's end tells most

  function labels() {
    const [w, h] = size();
    const sw = NW * k, sh = NH * k;
    const out = [];
    const onScreen = (x, y) => x < w && y < h && x + sw > 0 && y + sh > 0;
    if (sh >= 16 && sw >= 48) { // inside each box on screen
      const chars = Math.floor((sw - 8) / CHAR), two = sh >= 30;
      for (let i = 0; i < NODES.length && out.length < 3000; i++) {
        const n = NODES[i], x = n[4] * k + tx, y = n[5] * k + ty;
        if (!onScreen(x, y)) continue;
        const cls = DARK.has(n[6]) ? "label dark" : "label";
        const lx = Math.max(x + 4, Math.min(4, x + sw - 40)), fit = Math.min(chars, Math.floor((x + sw - lx - 4) / CHAR));
        out.push(`<text class="${cls}" x="${lx}" y="${y + sh / 2 + (two ? -2 : 4)}">${esc(cut(n[1], fit))}` +
          (two ? `<tspan class="t" x="${lx}" dy="12">${esc(cut(n[2], fit + 1))}</tspan>` : "") + "</text>");
      }
    } else { // beside the boxes: a grid of 8 x 7 px cells says where a label already is
      const cols = Math.ceil(w / 8) + 1, taken = new Uint8Array(cols * (Math.ceil(h / 7) + 2));
      for (let j = 0; j < BY_PRIORITY.length && out.length < 400; j++) {
        const n = NODES[BY_PRIORITY[j]], x = n[4] * k + tx, y = n[5] * k + ty;
        if (!onScreen(x, y) || y < 12) continue;
        const text = cut(n[1], 24), c0 = Math.max(0, Math.floor(x / 8)), r0 = Math.floor((y - 13) / 7);
        const c1 = Math.min(cols - 1, Math.floor((x + text.length * CHAR + 2) / 8)), r1 = Math.floor(y / 7);
        let free = true;
        for (let r = r0; r <= r1 && free; r++) for (let c = c0; c <= c1; c++) if (taken[r * cols + c]) { free = false; break; }
        if (!free) continue;
        for (let r = r0; r <= r1; r++) taken.fill(1, r * cols + c0, r * cols + c1 + 1);
        out.push(`<text class="label beside${DARK.has(n[6]) ? " bad" : ""}" x="${x}" y="${y - 2}">${esc(text)}</text>`);
      }
    }
    labelLayer.innerHTML = out.join("");
  }

  function size() { const b = svg.getBoundingClientRect(); return [b.width, b.height]; }

  function fit() {
    const [w, h] = size();
    k = Math.min(1.5, w / (W + 80), h / (H + 80));
    tx = (w - W * k) / 2;
    ty = (h - H * k) / 2;
    apply();
  }

  function zoomAt(mx, my, factor) {
    const [w, h] = size();
    const least = Math.min(0.5, w / (W + 80), h / (H + 80)) / 2;
    const next = Math.min(4, Math.max(least, k * factor));
    tx = mx - (mx - tx) * (next / k);
    ty = my - (my - ty) * (next / k);
    k = next;
    apply();
  }

  function centreOn(i) {
    const [w, h] = size();
    k = Math.max(k, 1);
    tx = w / 2 - (NODES[i][4] + NW / 2) * k;
    ty = h / 2 - (NODES[i][5] + NH / 2) * k;
    apply();
  }

  function select(i, centre) {
    selected = i;
    $("details").innerHTML = detailsHtml(i, false);
    view.litEdges.setAttribute("d", edgePath(preds[i].concat(succs[i])));
    document.querySelectorAll(".pt.sel").forEach((p) => p.classList.remove("sel"));
    const pt = document.querySelector(`.pt[data-i="${i}"]`);
    if (pt) pt.classList.add("sel");
    document.querySelectorAll("#layers tr.sel").forEach((r) => r.classList.remove("sel"));
    const row = document.querySelector(`#layers tr[data-go="${i}"]`);
    if (row) row.classList.add("sel");
    if (centre) centreOn(i); else apply();
  }

  // pan by dragging; a press that does not move is a click (on a layer: select it)
  let press = null;
  svg.addEventListener("pointerdown", (e) => {
    press = { x: e.clientX, y: e.clientY, tx, ty, target: e.target, moved: false };
    svg.setPointerCapture(e.pointerId);
  });
  svg.addEventListener("pointermove", (e) => {
    if (!press) return;
    const dx = e.clientX - press.x, dy = e.clientY - press.y;
    if (!press.moved && Math.hypot(dx, dy) < 4) return;
    press.moved = true;
    svg.classList.add("dragging");
    tip.hidden = true;
    tx = press.tx + dx;
    ty = press.ty + dy;
    apply();
  });
  const release = () => {
    if (press && !press.moved && press.target.dataset && press.target.dataset.i !== undefined) {
      select(+press.target.dataset.i, false);
    }
    press = null;
    svg.classList.remove("dragging");
  };
  svg.addEventListener("pointerup", release);
  svg.addEventListener("pointercancel", () => { press = null; svg.classList.remove("dragging"); });
  svg.addEventListener("wheel", (e) => {
    e.preventDefault();
    const b = svg.getBoundingClientRect();
    zoomAt(e.clientX - b.left, e.clientY - b.top, Math.exp(-e.deltaY * (e.deltaMode ? 0.05 : 0.002)));
  }, { passive: false });

  // hover: the same details in a tooltip
  const tip = $("tip");
  function hover(e) {
    const i = e.target.dataset ? e.target.dataset.i : undefined;
    if (i === undefined || press) { tip.hidden = true; return; }
    tip.innerHTML = detailsHtml(+i, true);
    tip.hidden = false;
    const x = e.clientX + 14, y = e.clientY + 14;
    tip.style.left = Math.min(x, innerWidth - tip.offsetWidth - 8) + "px";
    tip.style.top = Math.min(y, innerHeight - tip.offsetHeight - 8) + "px";
  }
  for (const el of [svg, $("plot")]) {
    el.addEventListener("pointerover", hover);
    el.addEventListener("pointerout", () => { tip.hidden = true; });
  }

  // links to layers anywhere in the page
  document.addEventListener("click", (e) => {
    const go = e.target.closest("[data-go]");
    if (!go) return;
    e.preventDefault();
    select(+go.dataset.go, true);
  });

  // --- search ----------------------------------------------------------------------------------------------
  const search = $("search"), matchList = $("matches");
  let matches = [], cursor = 0;
  function find() {
    const q = search.value.trim().toLowerCase();
    matches = [];
    cursor = 0;
    if (q) {
      const rank = (n) => (n[1].toLowerCase() === q || n[0] === q ? 0 : n[1].toLowerCase().startsWith(q) ? 1 : 2);
      NODES.forEach((n, i) => { if (n[0] === q || n[1].toLowerCase().includes(q)) matches.push(i); });
      matches.sort((a, b) => rank(NODES[a]) - rank(NODES[b]) || a - b);
    }
    $("found").textContent = q ? `${matches.length} match${matches.length === 1 ? "" : "es"}` : "";
    if (!matches.length) { matchList.hidden = true; return; }
    const b = search.getBoundingClientRect();
    matchList.style.top = b.bottom + 2 + "px";
    matchList.style.left = b.left + "px";
    matchList.innerHTML = matches.slice(0, 50).map((i) =>
      `<li data-go="${i}">${swatch(NODES[i][6])} ${esc(NODES[i][1])} <span class="muted">${esc(NODES[i][2])}</span></li>`).join("");
    matchList.hidden = false;
  }
  search.addEventListener("input", find);
  search.addEventListener("keydown", (e) => {
    if (e.key === "Escape") { matchList.hidden = true; return; }
    if (e.key !== "Enter" || !matches.length) return;
    select(matches[cursor % matches.length], true);
    cursor++;
    matchList.hidden = true;
  });
  matchList.addEventListener("click", () => { matchList.hidden = true; });
  document.addEventListener("pointerdown", (e) => { if (!matchList.contains(e.target) && e.target !== search) matchList.hidden = true; });
  $("fit").addEventListener("click", fit);

  // --- the error plot (compare): each compared layer's max abs error against its atol, log scale -----------
  function plot() {
    const P = D.plot || [];
    if (D.kind !== "compare" || !P.length) return;
    $("plot-pane").hidden = false;
    $("plot-note").textContent = "Dots: each compared layer's largest absolute error (over its outputs); dashed line: its " +
      "atol or largest rounding bound, whichever is larger. A layer fails where an element's error exceeds its own " +
      "rounding bound, atol and rtol \u00d7 |expected|, so a passing dot may sit above the line. Dots on the top line: no tolerance passes (NaN, Inf or a shape mismatch). Click a dot to " +
      "find its layer.";
    const el = $("plot");
    const w = el.clientWidth || 800, h = el.clientHeight || 200;
    const L = 70, R = 12, T = 14, B = 46;
    el.setAttribute("viewBox", `0 0 ${w} ${h}`);
    const values = [];
    for (const [, err, atol] of P) {
      if (typeof err === "number" && err > 0) values.push(err);
      if (atol > 0) values.push(atol);
    }
    const lo = Math.floor(Math.log10(values.length ? Math.min(...values) : 1e-7)) - 1;
    const hi = Math.max(Math.ceil(Math.log10(values.length ? Math.max(...values) : 1)), lo + 2);
    const X = (j) => L + (j + 0.5) * (w - L - R) / P.length;
    const Y = (v) => { // 0 on the bottom line, no tolerance passes (null, "inf", "nan") on the top line
      if (typeof v !== "number") return T;
      const d = v > 0 ? Math.max(lo, Math.min(hi, Math.log10(v))) : lo;
      return T + (hi - d) / (hi - lo) * (h - T - B);
    };
    const parts = [];
    const every = Math.ceil((hi - lo + 1) / Math.max(2, (h - T - B) / 14)); // a tick label every 14 px at most
    for (let d = lo; d <= hi; d += every) {
      const y = Y(10 ** d);
      parts.push(`<line class="grid" x1="${L}" x2="${w - R}" y1="${y}" y2="${y}"/>`,
        `<text class="tick" x="${L - 4}" y="${y + 3}" text-anchor="end">${d === lo ? "\u2264" : ""}1e${d}</text>`);
    }
    parts.push(`<line class="axis" x1="${L}" x2="${L}" y1="${T}" y2="${h - B}"/>`,
      `<line class="axis" x1="${L}" x2="${w - R}" y1="${h - B}" y2="${h - B}"/>`,
      `<text class="axis-title" x="${(L + w - R) / 2}" y="${h - 4}" text-anchor="middle">layer (${P.length} compared, ` +
      "in topological order)</text>",
      `<text class="axis-title" transform="translate(14 ${(T + h - B) / 2}) rotate(-90)" text-anchor="middle">` +
      "largest |error| (log)</text>");
    // the x axis names layers: one name per ~120 px, centred under its dot
    const names = Math.max(1, Math.min(P.length, Math.floor((w - L - R) / 120)));
    for (let t = 0; t < names; t++) {
      const j = Math.floor((t + 0.5) * P.length / names), x = X(j);
      parts.push(`<line class="axis" x1="${x}" x2="${x}" y1="${h - B}" y2="${h - B + 4}"/>`,
        `<text class="tick xname" x="${x}" y="${h - B + 15}" text-anchor="middle" data-go="${P[j][0]}">` +
        `${esc(cut(NODES[P[j][0]][1], 18))}</text>`);
    }
    const step = (w - L - R) / P.length / 2;
    parts.push(`<path class="tol" d="${P.map(([, , atol], j) => `${j ? "L" : "M"}${X(j) - step} ${Y(atol)}H${X(j) + step}`).join("")}"/>`);
    P.forEach(([i, err, , passed], j) => {
      const s = i === D.summary.first ? "first" : passed ? "pass" : "fail";
      const r = s === "first" ? 5 : s === "fail" ? 3 : 2.2;
      parts.push(`<circle class="pt ${s}${i === selected ? " sel" : ""}" cx="${X(j)}" cy="${Y(err)}" r="${r}" data-i="${i}" data-go="${i}"/>`);
    });
    const f = P.findIndex((p) => p[0] === D.summary.first);
    if (f >= 0) { // the first divergence named beside its dot
      const x = X(f), right = x < (L + w - R) / 2;
      parts.push(`<text class="tick first-name" x="${x + (right ? 8 : -8)}" y="${Math.max(T + 10, Y(P[f][1]) - 6)}" ` +
        `text-anchor="${right ? "start" : "end"}" data-go="${P[f][0]}">first divergence: ${esc(NODES[P[f][0]][1])}</text>`);
    }
    el.innerHTML = parts.join("");

  }

  // --- the layer table: every layer, filtered by status or name, sorted by any column ------------------------
  const value = (v) => (v === "inf" || v === "nan" ? Infinity : v); // the JSON's spelling of a non-finite number
  function worst(tensors, key) { // the largest of a number field over a layer's tensors, or null for none
    let most = null;
    for (const t of tensors || []) {
      const v = value(t[key]);
      if (typeof v === "number" && (most === null || v > most)) most = v;
    }
    return most;
  }
  const COLUMNS = D.kind === "compare" ? [
    { key: "status", title: "status", text: (r) => badge(r.status) },
    { key: "type", title: "type" }, { key: "name", title: "name" },
    { key: "ratio", title: "error / bound", num: true, tip: "largest error over the rounding bound (above 1 fails; -: within atol/rtol, no bound needed)" },
    { key: "err", title: "max abs error", num: true },
    { key: "line", title: "line", num: true },
  ] : [
    { key: "status", title: "status", text: (r) => badge(r.status) },
    { key: "type", title: "type" }, { key: "name", title: "name" },
    { key: "line", title: "layer at line", num: true }, { key: "codes", title: "diagnostics" },
  ];
  const FILTERS = D.kind === "compare" ? [
    ["all", "all layers", () => true],
    ["failed", "failed", (r) => r.status === "fail" || r.status === "first"],
    ["attention", "failed or not checked", (r) => r.status === "fail" || r.status === "first" || r.status === "unchecked"],
    ["unchecked", "not checked", (r) => r.status === "unchecked"],
    ["passed", "passed", (r) => r.status === "pass"],
    ["none", "not compared (inputs, constants too)", (r) => ["none", "input", "const"].includes(r.status)],
  ] : [
    ["all", "all layers", () => true],
    ["error", "with errors", (r) => r.status === "error"],
    ["diagnosed", "with errors or warnings", (r) => r.status !== "clean"],
  ];
  const SEVERITY = Object.fromEntries(SHOWN.map((s, j) => [s, j])); // sorting by status: the worst first
  let tableRows = null; // built on first use
  const sorting = { key: null, down: false };
  const TABLE_LIMIT = 500; // rows drawn at a time; the filter and the sort choose which

  function rowsOfTable() {
    if (!tableRows) {
      tableRows = NODES.map((n, i) => {
        const info = D.info[i] || {};
        return { i, status: n[6], type: n[2], name: n[1], line: n[3], ratio: worst(info.tensors, "error_to_bound"),
          err: worst(info.tensors, "max_abs_error"),
          codes: [...new Set((info.diags || []).map((d) => `${d.code} at line ${d.line === null ? "-" : d.line}`))]
            .join(", ") };
      });
    }
    return tableRows;
  }

  function cell(r, c) {
    if (c.text) return c.text(r);
    const v = r[c.key];
    if (v === null || v === undefined || v === "") return "-";
    return c.num ? (v === Infinity ? "inf" : c.key === "line" ? String(v) : num(v)) : esc(v);
  }

  function drawTable() {
    const filter = FILTERS.find((f) => f[0] === $("filter").value) || FILTERS[0];
    const q = $("table-find").value.trim().toLowerCase();
    let shown = rowsOfTable().filter((r) => filter[2](r) &&
      (!q || r.name.toLowerCase().includes(q) || r.type.toLowerCase().includes(q)));
    if (sorting.key) {
      const c = COLUMNS.find((col) => col.key === sorting.key), sign = sorting.down ? -1 : 1, key = sorting.key;
      const get = key === "status" ? (r) => SEVERITY[r.status] : (r) => r[key];
      shown = shown.slice().sort((a, b) => { // nothing to show (null) sorts last either way
        const x = get(a), y = get(b);
        if (x === null || x === undefined) return y === null || y === undefined ? a.i - b.i : 1;
        if (y === null || y === undefined) return -1;
        return (c.num || key === "status" ? (x - y) : String(x).localeCompare(String(y))) * sign || a.i - b.i;
      });
    }
    $("layers").tHead.innerHTML = "<tr>" + COLUMNS.map((c) => {
      const arrow = sorting.key === c.key ? (sorting.down ? " \u25bc" : " \u25b2") : "";
      return `<th data-sort="${c.key}"${c.tip ? ` title="${esc(c.tip)}"` : ""} aria-sort="${arrow ? (sorting.down ?
        "descending" : "ascending") : "none"}">${esc(c.title)}${arrow}</th>`;
    }).join("") + "</tr>";
    $("layers").tBodies[0].innerHTML = shown.slice(0, TABLE_LIMIT).map((r) =>
      `<tr data-go="${r.i}"${r.i === selected ? ' class="sel"' : ""}>` +
      COLUMNS.map((c) => `<td class="c-${c.key}">${cell(r, c)}</td>`).join("") + "</tr>").join("");
    $("table-count").textContent = shown.length > TABLE_LIMIT
      ? `the first ${TABLE_LIMIT} of ${shown.length} (of ${NODES.length}): filter or sort to see others`
      : `${shown.length} of ${NODES.length}`;
  }

  function table() {
    $("filter").innerHTML = FILTERS.map(([key, title]) => `<option value="${key}">${esc(title)}</option>`).join("");
    $("filter").addEventListener("change", drawTable);
    $("table-find").addEventListener("input", drawTable);
    $("layers").addEventListener("click", (e) => {
      const th = e.target.closest("th[data-sort]");
      if (!th) return;
      const key = th.dataset.sort, numeric = COLUMNS.find((c) => c.key === key).num;
      sorting.down = sorting.key === key ? !sorting.down : numeric && key !== "line"; // errors: the largest first
      sorting.key = key;
      drawTable();
    });
    drawTable();
  }

  // --- start -----------------------------------------------------------------------------------------------
  header();
  lists();
  table();
  drawGraph();
  plot();
  if (NODES.length) {
    fit();
    // start on what matters: the first divergence, or the first layer with an error
    const first = D.kind === "compare" ? D.summary.first : NODES.findIndex((n) => n[6] === "error");
    if (first !== null && first !== undefined && first >= 0) select(first, false);
  }
  let resizing = 0;
  addEventListener("resize", () => { clearTimeout(resizing); resizing = setTimeout(() => { plot(); apply(); }, 150); });
  window.irReport = { select, centreOn, fit, nodes: NODES };
  document.body.dataset.ready = String(Math.round(performance.now()));
})();
