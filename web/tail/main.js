// Wiring for the Tail page: controls → the wasm TailRun, frame loop → drawing.
// Everything the page shows is computed by the core; this file decides only what to draw and
// when. No model logic lives here.

import init, { TailRun, binEdges, crossover, mitigations, profiles } from "../pkg/tail_lab.js";
import { drawArena, drawHistograms, drawStrip } from "./draw.js";
import { formatMs } from "../format.js";

/** Stop accumulating after this many parent requests (the histograms have long settled). */
const MAX_REQUESTS = 2_000_000;
/** Main-thread time per frame spent simulating (ms): with drawing, a frame stays near 16 ms, far from a 50 ms long task. */
const FRAME_BUDGET_MS = 13;
/** How long the arena shows each request in "live" mode, and the sweep lengths (ms). */
const SPEEDS = { live: { holdMs: 900 }, slow: { sweepMs: 3000, holdMs: 1200 }, slower: { sweepMs: 9000, holdMs: 1500 }, paused: {} };
const STRIP_MAX_FANOUT = 256;

const $ = (id) => document.getElementById(id);
const readout = (name) => document.querySelector(`[data-readout="${name}"]`);

function showNotice(message) {
  const el = $("notice");
  el.textContent = message;
  el.hidden = false;
}

// A Rust panic is a bug, never a response to input; the binding reports it here too.
globalThis.tailLabOnPanic = (message) => showNotice(message);
window.addEventListener("error", (e) => showNotice(`Error: ${e.message}`));
window.addEventListener("unhandledrejection", (e) => showNotice(`Error: ${e.reason?.message ?? e.reason}`));

const state = {
  run: null,
  edges: null,
  curves: null,
  shownRequest: 0,   // index of the request in the arena
  request: null,     // its trace
  shownSince: 0,     // when it appeared (ms, performance.now)
  chunk: 500,        // requests per run() call, adapted to the frame budget
};

function refreshCurves() {
  const run = state.run;
  state.curves = {
    p50: Array.from(run.fanoutCurve(0.5, STRIP_MAX_FANOUT)),
    p99: Array.from(run.fanoutCurve(0.99, STRIP_MAX_FANOUT)),
    leafP50: run.leafQuantile(0.5),
    leafP99: run.leafQuantile(0.99),
    crossoverN: crossover(0.5, 0.99),
  };
}

function showRequest(k, now) {
  state.shownRequest = k;
  state.request = state.run.requestAt(k);
  state.shownSince = now;
  const arena = $("arena");
  const r = state.request;
  arena.dataset.request = String(k);
  arena.dataset.parentMs = r.parentMs.toFixed(6);
  arena.dataset.waitedOn = String(r.waitedOn);
  arena.dataset.firstLeaves = Array.from(r.leaves.originalMs.slice(0, 8), (v) => v.toFixed(6)).join(",");
  const hedged = r.leaves.hedged.reduce((a, b) => a + b, 0);
  const dropped = r.leaves.dropped.reduce((a, b) => a + b, 0);
  const extras = [hedged ? `${hedged} hedged` : "", dropped ? `${dropped} dropped` : ""].filter(Boolean).join(", ");
  $("arena-caption").textContent =
    `Request #${k}: ${r.leaves.resolvedMs.length} leaves; the parent answered at ${formatMs(r.parentMs)}, ` +
    `waiting on leaf ${r.waitedOn}${extras ? ` (${extras})` : ""}.`;
}

function reconfigure(options) {
  state.run.reconfigure(options);
  refreshCurves();
  showRequest(state.shownRequest, performance.now());
  updateReadouts();
  document.body.dataset.settled = "false";
}

function setText(name, text) {
  const el = readout(name);
  if (el.textContent !== text) el.textContent = text;
}

function updateReadouts() {
  const run = state.run;
  const leafP50 = run.leafPercentile(0.5), leafP99 = run.leafPercentile(0.99);
  const parentP50 = run.parentPercentile(0.5), parentP99 = run.parentPercentile(0.99);
  setText("leaf-p50", formatMs(leafP50));
  setText("leaf-p99", formatMs(leafP99));
  setText("parent-p50", formatMs(parentP50));
  setText("parent-p99", formatMs(parentP99));
  const ratio = parentP99 / leafP99;
  setText("ratio", Number.isFinite(ratio) ? `${ratio.toFixed(1)}×` : "—");
  setText("requests", run.requests.toLocaleString("en-US"));
  return { leafP50, leafP99, parentP50, parentP99 };
}

function accumulate(frameStart) {
  const run = state.run;
  while (run.requests < MAX_REQUESTS && performance.now() - frameStart < FRAME_BUDGET_MS) {
    const n = Math.min(state.chunk, MAX_REQUESTS - run.requests);
    const t0 = performance.now();
    run.run(n);
    const dt = performance.now() - t0;
    // Aim each call at about a quarter of the budget.
    const target = (FRAME_BUDGET_MS / 4) * (n / Math.max(dt, 0.05));
    state.chunk = Math.max(50, Math.min(200_000, Math.round(0.5 * state.chunk + 0.5 * target)));
  }
  if (run.requests >= MAX_REQUESTS) document.body.dataset.settled = "true";
}

/** The sweep position (ms) for slow speeds, or null to show the whole request. */
function arenaSweep(now) {
  const speed = SPEEDS[$("speed").value];
  const elapsed = now - state.shownSince;
  if (speed.sweepMs === undefined) {
    if (speed.holdMs !== undefined && elapsed > speed.holdMs) showRequest(state.shownRequest + 1, now);
    return null;
  }
  // Sweep from 1 ms to a little past the parent in log time, then hold, then move on.
  const end = state.request.parentMs * 1.4;
  const f = elapsed / speed.sweepMs;
  if (f >= 1) {
    if (elapsed > speed.sweepMs + speed.holdMs) showRequest(state.shownRequest + 1, now);
    return null;
  }
  return Math.exp(f * Math.log(end));
}

function frame(now) {
  accumulate(now);
  const marks = updateReadouts();
  const sweep = arenaSweep(now);
  drawArena($("arena"), state.request, sweep);
  drawHistograms($("histograms"), {
    edges: state.edges,
    // Views over wasm memory: fetched fresh every frame, never kept across calls.
    leafBins: state.run.leafBins(),
    parentBins: state.run.parentBins(),
    marks,
    waitMs: sweep === null || sweep >= state.request.parentMs ? state.request.parentMs : NaN,
  });
  drawStrip($("strip"), { ...state.curves, fanout: Number($("fanout").value) });
  if (document.body.dataset.ready !== "true") {
    performance.mark("first-live-frame");
    document.body.dataset.ready = "true";
  }
  requestAnimationFrame(frame);
}

function fillSelect(select, items) {
  for (const { name, label } of items) {
    const option = document.createElement("option");
    option.value = name;
    option.textContent = label;
    select.append(option);
  }
}

function wireControls() {
  const fanout = $("fanout");
  fanout.addEventListener("input", () => {
    $("fanout-value").textContent = fanout.value;
    reconfigure({ fanout: Number(fanout.value) });
  });
  $("profile").addEventListener("change", (e) => reconfigure({ profile: e.target.value }));
  $("fix").addEventListener("change", (e) => reconfigure({ fix: e.target.value }));
  $("speed").addEventListener("change", () => { state.shownSince = performance.now(); });
  $("seed").addEventListener("change", (e) => {
    const error = $("seed-error");
    try {
      const text = e.target.value.trim();
      // Parse as an integer; the core validates the range and names the argument.
      reconfigure({ seed: /^\d+$/.test(text) ? Number(text) : Number.NaN });
      error.textContent = "";
    } catch (err) {
      error.textContent = err.message;
    }
  });
  $("reset").addEventListener("click", () => {
    state.run.reset();
    showRequest(0, performance.now());
    updateReadouts();
    document.body.dataset.settled = "false";
  });
}

async function main() {
  await init();
  fillSelect($("profile"), profiles());
  fillSelect($("fix"), mitigations());
  state.run = new TailRun({ fanout: Number($("fanout").value), profile: $("profile").value, fix: $("fix").value, seed: 1 });
  state.edges = binEdges();
  refreshCurves();
  showRequest(0, performance.now());
  wireControls();
  requestAnimationFrame(frame);
}

main().catch((e) => showNotice(`The simulation could not start: ${e.message}`));
