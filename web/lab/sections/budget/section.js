// Hedge budgets and a disable switch through a partial outage: copies sent per request and the
// p99 of each window of simulated time, for no backups, the plain hedge, the hedge under a
// token bucket and under a disable rule, all on the same arrivals (core `budget`). The outage
// is shaded; the budget's long-run limit, 1 + its ratio, is drawn beside the simulation.

import { formatMs, formatNumber, formatPct, formatTickMs } from "../../../format.js";
import { chart } from "../../plot.js";
import { exportBar } from "../../../export.js";
import { touchChart } from "../../../touch.js";
import {
  choice,
  el,
  initial,
  panel,
  perFrame,
  readout,
  redrawOnResize,
  runSweep,
  sectionContext,
  settingsOf,
  paramSlider,
} from "../../section.js";
import { POLICIES, multipliers, outageMultiplier, outageP99, windowCentres } from "./derive.js";

/** The section's settings, as URL parameters and embed attributes. */
export const params = [
  { name: "budget-load", type: "float", min: 0.1, max: 0.95, step: 0.05, default: 0.5 },
  { name: "budget-slowdown", type: "float", min: 1, max: 50, step: 1, default: 10 },
  { name: "budget-ratio", type: "float", min: 0.02, max: 0.5, step: 0.01, default: 0.25 },
  { name: "budget-delay", type: "enum", values: ["fixed", "tracking"], default: "fixed" },
  { name: "budget-depth", type: "int", min: 0, max: 20, step: 1, default: 4 },
];

/** The setting the section's default run uses for `name` (claims.js reads them too). */
export const defaultOf = (name) => params.find((p) => p.name === name)?.default;

/**
 * The options of the call the section makes for settings `v` (a name → value map).
 * @returns {import("../../api.js").BudgetOptions}
 */
export function optionsOf(v, seed, service = undefined) {
  return {
    load: Number(v["budget-load"]),
    slowdown: Number(v["budget-slowdown"]),
    tokenRatio: Number(v["budget-ratio"]),
    delayRule: v["budget-delay"] === "tracking" ? "tracking" : "fixed",
    disableDepth: Number(v["budget-depth"]),
    seed,
    ...(service !== undefined && { service }),
  };
}

const p99Text = (run) => (run.stable && run.p99 != null ? formatMs(run.p99) : "unstable");
/** A factor as "10×" or "1.5×": at most three significant digits, no trailing zeros. */
const times = (v) => `${Number(Number(v).toPrecision(3))}×`;
const finite = (v, f) => (Number.isFinite(v) ? f(v) : "—");

/**
 * Builds the section inside `root` (see lab/section.js for the context).
 * @param {HTMLElement} root
 * @param {import("../../section.js").SectionContext} context
 */
export function mount(root, context) {
  const { client, api, values, prefix, onChange, link, seed, service, signal } =
    sectionContext(context);
  const start = initial(settingsOf(params, api), values);
  const ui = panel(root, {
    chartHeight: 260,
    chartLabel: "Copies sent per request in each window, through the outage",
  });
  const p99Canvas = /** @type {HTMLCanvasElement} */ (
    el("canvas", {
      height: 260,
      role: "img",
      "aria-label": "p99 latency of each window, through the outage",
      "data-chart": "p99",
    })
  );
  p99Canvas.style.height = "260px";
  ui.canvas.dataset.chart = "multiplier";
  ui.canvas.after(p99Canvas);

  const load = paramSlider(ui.controls, params, "budget-load", {
    prefix,
    label: "load",
    value: start["budget-load"],
    format: (v) => formatPct(v, 0),
  });
  const slowdown = paramSlider(ui.controls, params, "budget-slowdown", {
    prefix,
    label: "outage slowdown",
    value: start["budget-slowdown"],
    format: (v) => `${v}×`,
  });
  const ratio = paramSlider(ui.controls, params, "budget-ratio", {
    prefix,
    label: "token ratio",
    value: start["budget-ratio"],
    format: (v) => `${formatNumber(v, 2)} a request`,
  });
  const delay = choice(ui.controls, {
    id: `${prefix}budget-delay`,
    label: "hedge delay",
    value: start["budget-delay"],
    options: [
      ["fixed", "fixed: the service's p95"],
      ["tracking", "tracking the p95 of recent answers"],
    ],
  });
  const depth = paramSlider(ui.controls, params, "budget-depth", {
    prefix,
    label: "disable above queue depth",
    value: start["budget-depth"],
    format: (v) => `${v} copies`,
  });

  const r = {
    none: readout(ui.readouts, { name: "p99-none", label: "p99, no backups" }),
    hedge: readout(ui.readouts, { name: "p99-hedge", label: "p99, plain hedge" }),
    budgeted: readout(ui.readouts, { name: "p99-budgeted", label: "p99, budgeted hedge" }),
    disabled: readout(ui.readouts, { name: "p99-disabled", label: "p99, disable switch" }),
    fracHedge: readout(ui.readouts, { name: "fraction-hedge", label: "hedged, plain" }),
    fracBudgeted: readout(ui.readouts, {
      name: "fraction-budgeted",
      label: "hedged, budgeted",
      theory: true,
    }),
    fracDisabled: readout(ui.readouts, { name: "fraction-disabled", label: "hedged, disable" }),
    multHedge: readout(ui.readouts, {
      name: "outage-multiplier-hedge",
      label: "copies per request in the outage, plain",
    }),
    multBudgeted: readout(ui.readouts, {
      name: "outage-multiplier-budgeted",
      label: "copies per request in the outage, budgeted",
      theory: true,
    }),
    outageHedge: readout(ui.readouts, {
      name: "outage-p99-hedge",
      label: "worst window p99 in the outage, plain",
    }),
    outageBudgeted: readout(ui.readouts, {
      name: "outage-p99-budgeted",
      label: "worst window p99 in the outage, budgeted",
    }),
    delay: readout(ui.readouts, { name: "hedge-delay", label: "hedge delay (start)" }),
  };
  let result = null;

  const timeAxis = (res) => ({
    type: "linear",
    min: 0,
    max: res ? res.spanMs : 60_000,
    label: "simulated time",
    format: formatTickMs,
  });

  function drawMultiplier(canvas = ui.canvas) {
    const runs = result ? POLICIES.map(([key]) => multipliers(result[key])) : [];
    const top = Math.max(1.3, ...runs.flat().filter(Number.isFinite)) * 1.05;
    const c = chart(canvas, {
      legend: [
        ...POLICIES.map(([, color, label, dash]) => ({ label, color, dash, width: 2.5 })),
        { label: "budget's limit, 1 + ratio", color: "theory", dash: [5, 4], width: 1.5 },
      ],
      x: timeAxis(result),
      y: { type: "linear", min: 0.95, max: top, label: "copies per request" },
    });
    c.axes();
    if (!result) return c.done();
    c.band(result.outageStartMs, result.outageEndMs, `replica 0 ${times(result.slowdown)} slower`);
    const xs = windowCentres(result);
    for (const [i, [, color, , dash]] of POLICIES.entries())
      c.line(xs, runs[i], { color, dash, width: 2.5 });
    const limit = 1 + result.tokenRatio;
    c.line([0, result.spanMs], [limit, limit], { color: "theory", width: 1.5, dash: [5, 4] });
    c.done();
  }

  function drawP99(canvas = p99Canvas) {
    const all = result
      ? POLICIES.flatMap(([key]) => Array.from(result[key].windowP99Ms)).filter(Number.isFinite)
      : [];
    const hi = all.length ? Math.max(...all) : 10_000;
    const lo = all.length ? Math.min(...all) : 10;
    const c = chart(canvas, {
      legend: POLICIES.map(([, color, label, dash]) => ({ label, color, dash, width: 2.5 })),
      x: timeAxis(result),
      y: {
        type: "log",
        min: 10 ** Math.floor(Math.log10(lo)),
        max: 10 ** Math.ceil(Math.log10(hi)),
        label: "window p99",
        format: formatTickMs,
      },
    });
    c.axes();
    if (!result) return c.done();
    c.band(result.outageStartMs, result.outageEndMs, "outage");
    const xs = windowCentres(result);
    for (const [key, color, , dash] of POLICIES)
      c.line(xs, Array.from(result[key].windowP99Ms), { color, dash, width: 2.5 });
    c.done();
  }

  const draw = () => {
    drawMultiplier();
    drawP99();
  };
  const redrawSoon = perFrame(draw);

  function settings() {
    return {
      "budget-load": Number(load.input.value),
      "budget-slowdown": Number(slowdown.input.value),
      "budget-ratio": Number(ratio.input.value),
      "budget-delay": delay.value,
      "budget-depth": Number(depth.input.value),
    };
  }

  function show(res) {
    result = res;
    for (const key of ["none", "hedge", "budgeted", "disabled"]) r[key].set(p99Text(res[key]));
    r.fracHedge.set(formatPct(res.hedge.hedgeFraction));
    r.fracBudgeted.set(
      formatPct(res.budgeted.hedgeFraction),
      res.hedgeFractionBound == null ? "" : `bound ≤ ${formatPct(res.hedgeFractionBound)}`,
    );
    r.fracDisabled.set(formatPct(res.disabled.hedgeFraction));
    r.multHedge.set(finite(outageMultiplier(res, res.hedge), (v) => `${formatNumber(v, 3)}×`));
    r.multBudgeted.set(
      finite(outageMultiplier(res, res.budgeted), (v) => `${formatNumber(v, 3)}×`),
      `limit ${formatNumber(1 + res.tokenRatio, 3)}×`,
    );
    r.outageHedge.set(finite(outageP99(res, res.hedge), formatMs));
    r.outageBudgeted.set(finite(outageP99(res, res.budgeted), formatMs));
    r.delay.set(formatMs(res.delayMs));
    ui.canvas.setAttribute(
      "aria-label",
      `Copies sent per request in each window of simulated time: during the outage the plain hedge sends ${finite(outageMultiplier(res, res.hedge), (v) => formatNumber(v, 3))} per request, the budgeted hedge ${finite(outageMultiplier(res, res.budgeted), (v) => formatNumber(v, 3))}, against its limit of ${formatNumber(1 + res.tokenRatio, 3)}.`,
    );
    p99Canvas.setAttribute(
      "aria-label",
      `p99 latency of each window: the worst window in the outage is ${finite(outageP99(res, res.none), formatMs)} without backups, ${finite(outageP99(res, res.hedge), formatMs)} with the plain hedge and ${finite(outageP99(res, res.budgeted), formatMs)} with the budgeted one.`,
    );
  }

  function update() {
    const v = settings();
    onChange(v);
    ui.note.textContent = `Ten replicas on ${service.label}, ${formatTickMs(60_000)} of simulated time in ${30} windows; replica 0 serves ${times(v["budget-slowdown"])} slower for the middle third. The bucket holds ten tokens, starts full, gains the ratio per request and pays one per backup; no backup while it holds five or fewer. The disable switch refuses a backup to a replica holding more than ${v["budget-depth"]} copies, or while the offered utilisation (1 + h)ρ of the last second is above one. Whichever copy answers first cancels the other.`;
    runSweep(
      client,
      ui,
      [{ fn: "simulateBudget", args: [optionsOf(v, seed.value, service.value)] }],
      {
        onError: (error) => r.delay.set("error", error),
        onResult: (res) => show(res),
        redraw: redrawSoon,
      },
    );
  }

  exportBar(ui.tools, {
    link,
    name: "budget",
    title: "Hedge budgets through a partial outage",
    canvas: ui.canvas,
    draw: drawMultiplier,
    meta: () => ({ seed: seed.value, ...settings() }),
    table: () => ({
      header: [
        "window_start_ms",
        ...POLICIES.flatMap(([key]) => [
          `${key}_requests`,
          `${key}_backups`,
          `${key}_work_ms`,
          `${key}_p99_ms`,
        ]),
      ],
      rows: result
        ? Array.from(result.none.windowRequests, (_, i) => [
            i * result.windowMs,
            ...POLICIES.flatMap(([key]) => {
              const run = result[key];
              return [
                run.windowRequests[i],
                run.windowBackups[i],
                run.windowWorkMs[i],
                run.windowP99Ms[i] ?? "",
              ];
            }),
          ])
        : [],
    }),
  });
  // Both charts answer the pointer and the keyboard (web/touch.js): every policy's number in the
  // window nearest the guide, as the chart draws it.
  /** @type {[HTMLCanvasElement, string, (run: any, w: number) => number, (v: number) => string, () => void][]} */
  const readings = [
    [
      ui.canvas,
      "copies per request",
      (run, w) => multipliers(run)[w],
      (v) => (Number.isFinite(v) ? v.toFixed(3) : "—"),
      () => drawMultiplier(),
    ],
    [
      p99Canvas,
      "window p99",
      (run, w) => run.windowP99Ms[w],
      (v) => (Number.isFinite(v) ? formatMs(v) : "no answer"),
      () => drawP99(),
    ],
  ];
  for (const [canvas, what, value, format, redraw] of readings)
    touchChart(canvas, {
      xs: () => (result ? windowCentres(result) : []),
      read: (t) => {
        if (!result) return null;
        const w = Math.round(t / result.windowMs - 0.5);
        const lines = [
          `${formatTickMs(t - result.windowMs / 2)}–${formatTickMs(t + result.windowMs / 2)}, ${what}`,
        ];
        /** @type {{ y: number, color: string }[]} */
        const marks = [];
        for (const [key, color, label] of POLICIES) {
          // An unstable run has no windows: say so, as the readouts do.
          if (!result[key].stable) {
            lines.push(`${label}: unstable`);
            continue;
          }
          const v = value(result[key], w);
          lines.push(`${label}: ${format(v)}`);
          marks.push({ y: v, color });
        }
        return { lines, marks };
      },
      redraw: perFrame(redraw),
    });
  for (const s of [load, slowdown, ratio, depth]) s.input.addEventListener("input", update);
  delay.addEventListener("change", update);
  seed.watch(update, signal);
  service.watch(update, signal);
  redrawOnResize(ui.canvas, drawMultiplier, signal);
  redrawOnResize(p99Canvas, drawP99, signal);
  update();
}
