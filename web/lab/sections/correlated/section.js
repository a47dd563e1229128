// Correlated stragglers: a shared slow episode that hits many of a request's leaves at once while
// every leaf keeps its own latency law. The parent's survival with no fix, with its slowest leaves
// dropped and with a hedge, correlated (solid) against independent (dashed), simulated dots on the
// closed forms; and the hedge's gain as the backup's chance of landing in the same episode rises.

import {
  atLogX,
  formatCount,
  formatMs,
  formatPct,
  formatProb,
  formatTickMs,
} from "../../../format.js";
import { chart } from "../../plot.js";
import { plain } from "../../../latency-input.js";
import { touchChart } from "../../../touch.js";
import { exportBar } from "../../../export.js";
import { FANOUT_STOPS, fanoutControl, fanoutOf } from "../fanout/section.js";
import {
  LabService,
  el,
  initial,
  panel,
  perFrame,
  readout,
  redrawOnResize,
  runSweep,
  paramSlider,
  slider,
  sectionContext,
} from "../../section.js";

/** Leaf draws in a run: requests × n, about a fifth of a second in a worker at any fan-out. */
const LEAVES = 2_000_000;
/** Requests in a run at fan-out `n`: 20,000, or fewer so that requests × n stays within LEAVES. */
export const correlatedRequests = (n) => Math.min(20_000, Math.floor(LEAVES / n));
/** The slow level: a leaf is slow above its p99. */
export const SLOW_LEVEL = 0.01;
/** The fixes, in the result's order: key suffix, label, colour, dot shape. */
const FIXES = /** @type {const} */ ([
  ["None", "no fix", "none", "circle"],
  ["Drop", "drop slowest", "third", "square"],
  ["Hedge", "hedged", "hedge", "diamond"],
]);
/** The curves' keys in `result.curves.sim` (and the rest), by fix. */
const CURVE = ["none", "drop", "hedge"];

/** The section's settings, as URL parameters and embed attributes. */
export const params = [
  { name: "corr-n", type: "int", min: 1, max: 1000, default: 100, control: fanoutControl },
  { name: "corr-c", type: "float", min: 0, max: 1, step: 0.01, default: 0.3 },
  { name: "corr-cr", type: "float", min: 0, max: 1, step: 0.01, default: 0.5 },
  { name: "corr-drop", type: "float", min: 0, max: 0.2, step: 0.01, default: 0.05 },
  { name: "corr-delayq", type: "float", min: 0.5, max: 0.999, step: 0.001, default: 0.95 },
];

/** The core's options for the settings `v` (no requests or seed: the closed forms take these). */
export const optionsOf = (v) => ({
  n: Number(v["corr-n"]),
  c: Number(v["corr-c"]),
  cr: Number(v["corr-cr"]),
  drop: Number(v["corr-drop"]),
  delayQ: Number(v["corr-delayq"]),
  p: SLOW_LEVEL,
});

/** A gain as a ratio: "36.7×", "1.10×". */
const times = (v) => (Number.isFinite(v) ? `${v >= 10 ? v.toFixed(1) : v.toFixed(2)}×` : "—");
/** A share as a readout shows it: two significant digits at least. */
const share = (v) => formatPct(v, v > 0 && v < 0.01 ? 3 : 1);

/**
 * Builds the section inside `root` (see lab/section.js for the context).
 * @param {HTMLElement} root
 * @param {import("../../section.js").SectionContext & { service?: LabService }} context
 */
export function mount(root, context) {
  const { client, api, values, prefix, onChange, link, seed, service, signal } =
    sectionContext(context);
  const start = initial(params, values);
  const ui = panel(root, {
    chartHeight: 340,
    chartLabel: "Parent latency survival with and without the fixes, correlated and independent",
  });
  const n = slider(ui.controls, {
    id: `${prefix}corr-n`,
    label: "fan-out n",
    min: 0,
    max: FANOUT_STOPS.length - 1,
    step: 0.0001,
    value: fanoutControl(start["corr-n"]),
    format: (v) => String(fanoutOf(v)),
    valuetext: (v) => `n = ${fanoutOf(v)}`,
    snap: (v, prev) =>
      Math.abs(v - prev) >= 0.5
        ? Math.round(v)
        : v > prev
          ? Math.ceil(v - 1e-9)
          : Math.floor(v + 1e-9),
  });
  const pct = (v) => `${Math.round(100 * v)}%`;
  const c = paramSlider(ui.controls, params, "corr-c", {
    prefix,
    label: "leaf correlation c",
    value: start["corr-c"],
    format: (v) => pct(v),
    valuetext: (v) => `c = ${pct(v)} of leaves share the episode`,
  });
  const cr = paramSlider(ui.controls, params, "corr-cr", {
    prefix,
    label: "replica correlation cᵣ",
    value: start["corr-cr"],
    format: (v) => pct(v),
    valuetext: (v) => `cᵣ = ${pct(v)} of backups land in the same episode`,
  });
  const drop = paramSlider(ui.controls, params, "corr-drop", {
    prefix,
    label: "drop slowest",
    value: start["corr-drop"],
    format: (v) => pct(v),
  });
  const delayQ = paramSlider(ui.controls, params, "corr-delayq", {
    prefix,
    label: "hedge after quantile",
    value: start["corr-delayq"],
    format: (v) => `p${(100 * v).toFixed(1).replace(/\.0$/, "")}`,
  });
  const readouts = Object.fromEntries(
    FIXES.map(([key, label]) => [
      key,
      readout(ui.readouts, {
        name: `slow-${key.toLowerCase()}`,
        label: `slow, ${label}`,
        theory: true,
      }),
    ]),
  );
  const gainOut = readout(ui.readouts, {
    name: "hedge-gain",
    label: "hedge's p99 gain",
    theory: true,
  });
  const leafOut = readout(ui.readouts, {
    name: "leaf-slow",
    label: "one leaf slow, at any c",
    theory: true,
  });

  // The full table: each fix's percentiles and slow share, at c and at c = 0, simulated (theory).
  const captionId = `${prefix}corr-table-caption`;
  const caption = el("caption", { id: captionId });
  const cells = new Map();
  const COLS = [
    ["slow", "slow share"],
    ["p50", "p50"],
    ["p99", "p99"],
    ["p999", "p99.9"],
  ];
  const rows = FIXES.flatMap(([key, label]) =>
    ["", "Indep"].map((ind) => {
      const tds = COLS.map(([col]) => {
        const td = el("td", {
          "data-readout": `table-${col}-${key}${ind}`.toLowerCase(),
          text: "—",
        });
        cells.set(`${col}${key}${ind}`, td);
        return td;
      });
      return el(
        "tr",
        {},
        el("th", { scope: "row", text: `${label}, ${ind ? "c = 0" : "chosen c"}` }),
        ...tds,
      );
    }),
  );
  // One leaf, at the chosen c: its own law, the same at every c.
  const leafCells = COLS.map(([col]) =>
    el("td", { "data-readout": `table-${col}-leaf`, text: "—" }),
  );
  rows.push(el("tr", {}, el("th", { scope: "row", text: "one leaf, chosen c" }), ...leafCells));
  const table = el(
    "table",
    { class: "lab-table" },
    caption,
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col", text: "parent" }),
        ...COLS.map(([, t]) => el("th", { scope: "col", text: t })),
      ),
    ),
    el("tbody", {}, ...rows),
  );
  const wrap = el(
    "div",
    { class: "lab-table-wrap", tabindex: 0, role: "region", "aria-labelledby": captionId },
    table,
  );
  ui.readouts.after(wrap);

  // The second chart: the hedge's gain against the replica correlation.
  const gainCanvas = el("canvas", {
    height: 240,
    role: "img",
    "aria-label": "The hedge's p99 gain against the replica correlation",
    "data-chart": "gain",
  });
  gainCanvas.style.height = "240px";
  ui.canvas.after(gainCanvas);

  /** @type {import("../../api.js").CorrelatedResult | null} */
  let result = null;
  /** What a readout shows while it has no simulated number: "…" while one is coming, "—"
   * when the run failed (no worker could compute it). */
  let pending = "…";
  /** @type {any} */
  let exact = null;
  /** @type {any} */
  let exactIndep = null;

  /** The settings the controls hold. */
  const settings = () => ({
    "corr-n": fanoutOf(Number(n.input.value)),
    "corr-c": Number(c.input.value),
    "corr-cr": Number(cr.input.value),
    "corr-drop": Number(drop.input.value),
    "corr-delayq": Number(delayQ.input.value),
  });

  function draw(canvas = ui.canvas) {
    const ch = chart(canvas, {
      legend: [
        { label: "no fix", color: "none", shape: "circle" },
        { label: "drop slowest", color: "third", shape: "square" },
        { label: "hedged", color: "hedge", shape: "diamond" },
        { label: "closed form, chosen c", color: "theory", width: 2 },
        { label: "closed form, c = 0", color: "theory", dash: [5, 4], width: 1.5 },
      ],
      legendCorner: "left",
      x: { type: "log", min: 1, max: 10_000, label: "latency t", format: formatTickMs },
      y: { type: "log", min: 1e-4, max: 1, label: "P(parent > t)" },
    });
    ch.axes();
    if (!result) return ch.done();
    const cv = result.curves;
    const floor = 5 / result.requests;
    for (const [i, [, , color, shape]] of FIXES.entries()) {
      const k = CURVE[i];
      ch.line(cv.tMs, cv.theory[k], { color, width: 2 });
      ch.line(cv.tMs, cv.theoryIndep[k], { color, width: 1.5, dash: [5, 4] });
      const at = (arr, hollow) =>
        ch.dots(
          Array.from(cv.tMs, (x, j) => ({ x, y: arr[j] >= floor && j % 2 === 0 ? arr[j] : NaN })),
          { color, r: 3, shape, hollow },
        );
      at(cv.sim[k], false);
      at(cv.simIndep[k], true);
    }
    ch.vline(result.slowMs, `tₚ = ${formatMs(result.slowMs)}`, { color: "theory" });
    ch.vline(result.delayMs, `d = ${formatMs(result.delayMs)}`, { color: "hedge" });
    ch.done();
  }

  function drawGain(canvas = gainCanvas) {
    const g = result?.gain;
    const top = g
      ? Math.max(2, ...Array.from(g.theoryGain), ...Array.from(g.simGain).filter(Number.isFinite))
      : 10;
    const ch = chart(canvas, {
      legend: [
        { label: "closed form", color: "hedge", width: 2 },
        { label: "simulated", color: "hedge", shape: "diamond" },
      ],
      legendCorner: "right",
      x: {
        type: "linear",
        min: 0,
        max: 1,
        label: "replica correlation cᵣ",
        format: (v) => `${Math.round(100 * v)}%`,
      },
      y: {
        type: "log",
        min: 1,
        max: 10 ** Math.ceil(Math.log10(top * 1.2)),
        label: "p99 without ÷ with the hedge",
      },
    });
    ch.axes();
    if (!g) return ch.done();
    ch.line(g.theoryCr, g.theoryGain, { color: "hedge", width: 2 });
    ch.dots(
      Array.from(g.cr, (x, j) => ({ x, y: g.simGain[j] })),
      { color: "hedge", r: 5, shape: "diamond" },
    );
    ch.vline(Number(cr.input.value), `cᵣ = ${pct(Number(cr.input.value))}`, { color: "hedge" });
    ch.done();
  }

  const redraw = perFrame(() => {
    draw();
    drawGain();
  });

  /** Writes the closed forms now (main thread, milliseconds) and the simulated values as they come. */
  function showTheory() {
    for (const [key] of FIXES) {
      const o = exact[key.toLowerCase()];
      const oi = exactIndep[key.toLowerCase()];
      readouts[key].set(
        result ? share(result[`slow${key}`]) : pending,
        `theory ${share(o.slowShare)}`,
      );
      for (const [ind, t] of [
        ["", o],
        ["Indep", oi],
      ]) {
        for (const [col] of COLS) {
          const th = col === "slow" ? share(t.slowShare) : formatMs(t[col]);
          const sim = result
            ? col === "slow"
              ? share(result[`slow${key}${ind}`])
              : formatMs(result[`${col}${key}${ind}`])
            : pending;
          cells.get(`${col}${key}${ind}`).textContent = `${sim} (${th})`;
        }
      }
    }
    const leafTheory = [SLOW_LEVEL, exact.leafP50, exact.leafP99, exact.leafP999];
    const leafSim = result
      ? [result.leafSlow, result.leafP50, result.leafP99, result.leafP999]
      : [NaN, NaN, NaN, NaN];
    for (const [i, td] of leafCells.entries()) {
      const f = i === 0 ? share : formatMs;
      td.textContent = `${result ? f(leafSim[i]) : pending} (${f(leafTheory[i])})`;
    }
    leafOut.set(result ? share(result.leafSlow) : pending, `theory ${share(SLOW_LEVEL)}`);
    if (result) {
      const j = Array.prototype.indexOf.call(result.gain.theoryCr, result.cr);
      const sim = result.p99None / result.p99Hedge;
      const th = exact.none.p99 / exact.hedge.p99;
      gainOut.set(times(sim), `theory ${times(j >= 0 ? result.gain.theoryGain[j] : th)}`);
    } else gainOut.set(pending, `theory ${times(exact.none.p99 / exact.hedge.p99)}`);
  }

  function update() {
    const v = settings();
    onChange(v);
    const opts = { ...optionsOf(v), ...(service.value && { service: service.value }) };
    try {
      exact = api.correlatedTheory(opts);
      exactIndep = api.correlatedTheory({ ...opts, c: 0 });
    } catch (error) {
      for (const r of Object.values(readouts)) r.set("error", String(error));
      return;
    }
    result = null;
    pending = "…";
    showTheory();
    const requests = correlatedRequests(v["corr-n"]);
    caption.textContent = `Each fix's parent at the chosen c and at c = 0: simulated (closed form). ${formatCount(requests)} requests; slow means later than tₚ, the leaf's p99.`;
    ui.note.textContent = `${formatCount(requests)} simulated requests of ${v["corr-n"]} leaves on ${service.label}. Each request has one shared draw, its episode; each leaf takes it with probability c, else its own draw, so every leaf keeps the service's own law at every c. A leaf is slow above its p99, tₚ = ${formatMs(exact.slowMs)}. The partial-results parent drops its slowest ${exact.dropped} of ${v["corr-n"]} leaves; the hedge sends a leaf's backup at d = ${formatMs(exact.delayMs)}, and the backup takes its primary's very time with probability cᵣ. Solid lines and filled dots are the chosen c, dashed lines and hollow dots c = 0; dots are drawn where at least five requests are later than t. Where a p99 falls in the gap between the service's two modes, its simulated value may land anywhere in the gap.`;
    ui.canvas.setAttribute(
      "aria-label",
      `Parent latency survival on log-log axes at n = ${v["corr-n"]}, c = ${pct(v["corr-c"])}: slow requests ${share(exact.none.slowShare)} with no fix (${share(exactIndep.none.slowShare)} at c = 0), ${share(exact.drop.slowShare)} dropping the slowest ${exact.dropped} (${share(exactIndep.drop.slowShare)}), ${share(exact.hedge.slowShare)} hedged (${share(exactIndep.hedge.slowShare)}).`,
    );
    gainCanvas.setAttribute(
      "aria-label",
      `The hedge's p99 gain against the replica correlation, at c = ${pct(v["corr-c"])}: ${times(exact.none.p99 / exact.hedge.p99)} at cᵣ = ${pct(v["corr-cr"])}.`,
    );
    runSweep(
      client,
      ui,
      [{ fn: "simulateCorrelated", args: [{ ...opts, requests, seed: seed.value }] }],
      {
        size: "requests",
        onError: (error) => {
          pending = "—";
          showTheory();
          readouts.None.set("error", plain(error));
        },
        onResult: (res) => {
          result = /** @type {import("../../api.js").CorrelatedResult} */ (res);
          showTheory();
        },
        redraw,
      },
    );
  }

  /** The curves' values at t, for the crosshair. */
  touchChart(ui.canvas, {
    xs: () => (result ? Array.from(result.curves.tMs).filter((t) => t >= 1 && t <= 10_000) : []),
    read: (t) => {
      if (!result) return null;
      const cv = result.curves;
      const i = Array.prototype.indexOf.call(cv.tMs, t);
      if (i < 0) return null;
      return {
        lines: [
          `t = ${formatMs(t)}`,
          ...FIXES.map(
            ([, label], f) =>
              `${label}: ${formatProb(cv.sim[CURVE[f]][i])} (theory ${formatProb(cv.theory[CURVE[f]][i])}; c = 0 ${formatProb(cv.theoryIndep[CURVE[f]][i])})`,
          ),
        ],
        marks: FIXES.map(([, , color], f) => ({ y: cv.theory[CURVE[f]][i], color })),
      };
    },
    marker: {
      input: delayQ.input,
      value: () => result?.delayMs ?? exact?.delayMs ?? NaN,
      // The quantile whose delay is t: 1 − S(t) on the core's leaf survival for this service,
      // log-linear between its grid points, snapped to the slider's 0.001 steps.
      toControl: (t) => {
        if (!result) return delayQ.input.value;
        const s = atLogX(result.curves.tMs, result.curves.leaf, t);
        return String(Math.min(0.999, Math.max(0.5, Math.round((1 - s) * 1000) / 1000)));
      },
    },
    redraw,
  });

  touchChart(gainCanvas, {
    xs: () => (result ? Array.from(result.gain.theoryCr) : []),
    read: (x) => {
      if (!result) return null;
      const g = result.gain;
      const i = Array.prototype.indexOf.call(g.theoryCr, x);
      const j = Array.prototype.indexOf.call(g.cr, x);
      if (i < 0) return null;
      return {
        lines: [
          `cᵣ = ${pct(x)}`,
          `closed form ${times(g.theoryGain[i])}`,
          ...(j >= 0 ? [`simulated ${times(g.simGain[j])}`] : []),
        ],
        marks: [{ y: g.theoryGain[i], color: "hedge" }],
      };
    },
    marker: {
      input: cr.input,
      value: () => Number(cr.input.value),
      toControl: (x) => String(Math.min(1, Math.max(0, Math.round(x * 100) / 100))),
    },
    redraw,
  });

  exportBar(ui.tools, {
    link,
    name: "correlated",
    title: "Parent latency survival, correlated and independent",
    canvas: ui.canvas,
    draw,
    meta: () => ({
      seed: seed.value,
      requests: result?.requests ?? correlatedRequests(settings()["corr-n"]),
      service: service.label,
      ...optionsOf(settings()),
      delay_ms: result?.delayMs,
      slow_ms: result?.slowMs,
    }),
    table: () => ({
      header: [
        "t_ms",
        ...CURVE.flatMap((k) => [`sim_${k}`, `theory_${k}`, `sim_${k}_c0`, `theory_${k}_c0`]),
      ],
      rows: result
        ? Array.from(result.curves.tMs, (t, i) => [
            t,
            ...CURVE.flatMap((k) => [
              result.curves.sim[k][i],
              result.curves.theory[k][i],
              result.curves.simIndep[k][i],
              result.curves.theoryIndep[k][i],
            ]),
          ])
        : [],
    }),
  });

  const scheduled = perFrame(update);
  for (const s of [n, c, cr, drop, delayQ]) s.input.addEventListener("input", scheduled);
  seed.watch(scheduled, signal);
  service.watch(scheduled, signal);
  redrawOnResize(ui.canvas, draw, signal);
  redrawOnResize(gainCanvas, drawGain, signal);
  update();
}
