// Cancellation delay: the cancel a request sends its losing copy lands some time after the
// answer, and the loser works until then. Against the delay: each policy's p99 (with its 95%
// interval) beside no backups, the extra work, and the load at which duplicating stops winning,
// found by bisection, beside the never-cancel stability boundary 1 / (1 + h) that a cancel which
// never lands must meet.

import { formatCount, formatMs, formatPct, formatTickMs } from "../../../format.js";
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
  settingsOf,
  paramSlider,
  sectionContext,
  SweepResults,
} from "../../section.js";

/** Requests per run (each delay makes 3 runs and 14 more for the bisection). */
export const REQUESTS = 20_000;
/** The delays the section runs (ms); the last never lands. */
export const DELAYS = [0, 2, 5, 10, 20, 50, 100, 200, 500, Number.POSITIVE_INFINITY];
/** The delay the prose and the readouts quote beside 0 and ∞. */
export const LATE_MS = 500;
/** The rules a landing cancel may apply (the core's names), the section's default first. */
export const RULES = ["either-any", "backup", "either", "queued"];
const RULE_TEXT = {
  "either-any": "stop either loser, even mid-hiccup",
  either: "stop either loser, a hiccup finishes",
  backup: "stop a losing backup only",
  queued: "drop a loser still queued only",
};

/** The section's settings, as URL parameters and embed attributes. */
export const params = [
  { name: "cancel-load", type: "float", min: 0.1, max: 0.9, step: 0.05, default: 0.5 },
  { name: "cancel-rule", type: "enum", values: RULES, default: "either-any" },
];

/** A delay as the axis and the readouts write it. */
export const delayText = (ms) => (Number.isFinite(ms) ? formatMs(ms) : "never");

/** The policies drawn, with their result key prefix, label, colour and marker. */
const POLICIES = /** @type {const} */ ([
  ["none", "no backups", "none", "circle"],
  ["hedge", "hedge at p95", "hedge", "square"],
  ["duplicate", "duplicate all", "duplicate", "triangle"],
]);

/**
 * The x axis on `canvas`: the delays by their place, labelled with their values. A wide chart
 * puts delay i at i, so every tick is a delay; a narrow one, whose ticks fall every fifth
 * unit, spreads them over 0..10 so that its ticks at 0 and 10 are the first delay and the last
 * (never). `at(i)` is delay i's position.
 * @param {HTMLCanvasElement} canvas
 */
function xAxis(canvas) {
  const unit = canvas.clientWidth >= 640 ? 1 : 10 / (DELAYS.length - 1);
  return {
    at: (/** @type {number} */ i) => i * unit,
    axis: {
      type: "linear",
      min: -0.4 * unit,
      max: (DELAYS.length - 0.6) * unit,
      label: "cancellation delay",
      format: (/** @type {number} */ v) => {
        const i = Math.round(v / unit);
        return Math.abs(i * unit - v) < 1e-9 && DELAYS[i] !== undefined
          ? shortDelay(DELAYS[i])
          : "";
      },
    },
  };
}

function shortDelay(ms) {
  return Number.isFinite(ms) ? formatTickMs(ms || 0).replace(/^0\s?ms$/, "0") : "∞";
}

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
    chartLabel: "p99 latency against the cancellation delay",
  });
  const load = paramSlider(ui.controls, params, "cancel-load", {
    prefix,
    label: "load",
    value: start["cancel-load"],
    format: (v) => formatPct(v, 0),
  });
  const rule = choice(ui.controls, {
    id: `${prefix}cancel-rule`,
    label: "a landing cancel",
    value: start["cancel-rule"],
    options: RULES.map((r) => [r, RULE_TEXT[r]]),
  });
  const r = {
    none: readout(ui.readouts, { name: "none-p99", label: "p99, no backups" }),
    dupNow: readout(ui.readouts, { name: "dup-p99-0", label: "p99, duplicate, cancel at once" }),
    dupLate: readout(ui.readouts, {
      name: "dup-p99-late",
      label: `p99, duplicate, cancel after ${formatMs(LATE_MS)}`,
    }),
    dupNever: readout(ui.readouts, {
      name: "dup-p99-never",
      label: "p99, duplicate, cancel never lands",
      theory: true,
    }),
    workNow: readout(ui.readouts, { name: "dup-work-0", label: "extra work, cancel at once" }),
    workLate: readout(ui.readouts, {
      name: "dup-work-late",
      label: `extra work, cancel after ${formatMs(LATE_MS)}`,
    }),
    crossNow: readout(ui.readouts, {
      name: "crossing-0",
      label: "duplicating stops winning, cancel at once",
    }),
    crossLate: readout(ui.readouts, {
      name: "crossing-late",
      label: `duplicating stops winning, cancel after ${formatMs(LATE_MS)}`,
    }),
    crossNever: readout(ui.readouts, {
      name: "crossing-never",
      label: "duplicating stops winning, cancel never lands",
      theory: true,
    }),
  };

  const workCanvas = el("canvas", {
    height: 200,
    role: "img",
    "aria-label": "Extra work against the cancellation delay",
    "data-chart": "work",
  });
  workCanvas.style.height = "200px";
  const crossCanvas = el("canvas", {
    height: 220,
    role: "img",
    "aria-label": "The load at which duplicating stops winning, against the cancellation delay",
    "data-chart": "crossing",
  });
  crossCanvas.style.height = "220px";
  ui.canvas.after(workCanvas, crossCanvas);

  const results = new SweepResults();
  /** What a readout shows while it has no number: "…" while one is coming, "—" on failure. */
  let pending = "…";
  const at = (i) => results.get(String(i));

  /** The crossing as text: a load, or what the bisection found instead. */
  function crossingText(res) {
    if (!res) return pending;
    switch (res.crossingVerdict) {
      case "crossed":
        return `load ${formatPct(res.crossingLoad, 0)}`;
      case "wins-throughout":
        return `above ${formatPct(res.belowLoad, 0)}`;
      case "never-wins":
        return `below ${formatPct(res.aboveLoad, 0)}`;
      default:
        return "—";
    }
  }

  /** What the bisection's bracket was, beside the crossing. */
  function bracketText(res) {
    if (!res) return "";
    switch (res.crossingVerdict) {
      case "crossed":
        return `bracket ${formatPct(res.belowLoad, 1)}–${formatPct(res.aboveLoad, 1)}`;
      case "wins-throughout":
        return `still wins at ${formatPct(res.belowLoad, 0)}`;
      case "never-wins":
        return `loses at ${formatPct(res.aboveLoad, 0)}`;
      default:
        return "";
    }
  }

  const p99Text = (res, key) =>
    !res ? pending : res[`${key}Stable`] ? formatMs(res[`${key}P99`]) : "unstable";

  function show() {
    const now = at(0);
    const late = at(DELAYS.indexOf(LATE_MS));
    const never = at(DELAYS.length - 1);
    r.none.set(p99Text(now, "none"));
    r.dupNow.set(p99Text(now, "duplicate"));
    r.dupLate.set(p99Text(late, "duplicate"));
    const boundary = never ? never.neverCancelBoundary : null;
    const rho = Number(load.input.value);
    r.dupNever.set(
      p99Text(never, "duplicate"),
      boundary === null ? "" : `theory ${rho < boundary ? "stable" : "unstable"}`,
    );
    r.workNow.set(now ? formatPct(now.duplicateExtraWork) : pending);
    r.workLate.set(late ? formatPct(late.duplicateExtraWork) : pending);
    r.crossNow.set(crossingText(now));
    r.crossLate.set(crossingText(late));
    r.crossNever.set(
      crossingText(never),
      boundary === null ? "" : `theory < ${formatPct(boundary, 0)}`,
    );
  }

  /** Index-aligned series of one result field, NaN where missing or unstable. */
  const series = (f) =>
    DELAYS.map((_, i) => {
      const res = at(i);
      const v = res ? f(res) : null;
      return typeof v === "number" && Number.isFinite(v) ? v : Number.NaN;
    });

  function draw(canvas = ui.canvas) {
    const { at: pos, axis: X } = xAxis(canvas);
    const xs = DELAYS.map((_, i) => pos(i));
    const c = chart(canvas, {
      legend: POLICIES.map(([, label, color, shape]) => ({ label, color, shape })),
      legendCorner: "left",
      x: X,
      y: { type: "log", min: 5, max: 20_000, label: "p99 latency", format: formatTickMs },
    });
    c.axes();
    for (const [key, , color, shape] of POLICIES) {
      const ys = series((res) => res[`${key}P99`]);
      c.line(xs, ys, { color, width: 2 });
      c.dots(
        xs.map((x, i) => {
          const res = at(i);
          return {
            x,
            y: ys[i],
            lo: res?.[`${key}P99Low`] ?? undefined,
            hi: res?.[`${key}P99High`] ?? undefined,
          };
        }),
        { color, shape, r: 4 },
      );
    }
    c.done();
  }

  function drawWork(canvas = workCanvas) {
    const { at: pos, axis: X } = xAxis(canvas);
    const xs = DELAYS.map((_, i) => pos(i));
    const c = chart(canvas, {
      legend: POLICIES.slice(1).map(([, label, color, shape]) => ({ label, color, shape })),
      legendCorner: "left",
      x: X,
      y: { type: "linear", min: 0, max: 1, label: "extra work", format: (v) => formatPct(v, 0) },
    });
    c.axes();
    for (const [key, , color, shape] of POLICIES.slice(1)) {
      const ys = series((res) => res[`${key}ExtraWork`]);
      c.line(xs, ys, { color, width: 2 });
      c.dots(
        xs.map((x, i) => ({ x, y: ys[i] })),
        { color, shape, r: 4 },
      );
    }
    c.done();
  }

  function drawCrossing(canvas = crossCanvas) {
    const { at: pos, axis: X } = xAxis(canvas);
    const xs = DELAYS.map((_, i) => pos(i));
    const c = chart(canvas, {
      legend: [
        { label: "duplicating stops winning (bisection)", color: "duplicate", shape: "triangle" },
        {
          label: "still winning at the range's top",
          color: "duplicate",
          shape: "triangle",
          hollow: true,
        },
        { label: "never-cancel boundary 1 / (1 + h)", color: "theory", dash: [5, 4], width: 1.5 },
      ],
      legendCorner: "left",
      x: X,
      y: { type: "linear", min: 0, max: 1, label: "load", format: (v) => formatPct(v, 0) },
    });
    c.axes();
    const never = at(DELAYS.length - 1);
    if (never) {
      const b = never.neverCancelBoundary;
      c.line([X.min, X.max], [b, b], { color: "theory", width: 1.5, dash: [5, 4] });
    }
    const crossed = xs.map((x, i) => {
      const res = at(i);
      return res?.crossingVerdict === "crossed"
        ? { x, y: res.crossingLoad, lo: res.belowLoad, hi: res.aboveLoad }
        : { x, y: Number.NaN };
    });
    c.dots(crossed, { color: "duplicate", shape: "triangle", r: 5 });
    const throughout = xs.map((x, i) => {
      const res = at(i);
      return { x, y: res?.crossingVerdict === "wins-throughout" ? res.belowLoad : Number.NaN };
    });
    c.dots(throughout, { color: "duplicate", shape: "triangle", r: 5, hollow: true });
    c.done();
  }

  const redrawSoon = perFrame(() => {
    draw();
    drawWork();
    drawCrossing();
  });

  function describe() {
    const now = at(0);
    const late = at(DELAYS.indexOf(LATE_MS));
    if (!now || !late) return;
    ui.canvas.setAttribute(
      "aria-label",
      `p99 latency against the cancellation delay, at load ${formatPct(now.load, 0)}: duplicating gives ${p99Text(now, "duplicate")} when the cancel lands at once and ${p99Text(late, "duplicate")} after ${formatMs(LATE_MS)}; no backups give ${p99Text(now, "none")}.`,
    );
    workCanvas.setAttribute(
      "aria-label",
      `Extra work against the cancellation delay: duplicating costs ${formatPct(now.duplicateExtraWork)} at once and ${formatPct(late.duplicateExtraWork)} after ${formatMs(LATE_MS)}.`,
    );
    crossCanvas.setAttribute(
      "aria-label",
      `The load at which duplicating stops winning: ${crossingText(now)} (${bracketText(now)}) with the cancel at once, ${crossingText(late)} (${bracketText(late)}) after ${formatMs(LATE_MS)}, ${crossingText(at(DELAYS.length - 1))} (${bracketText(at(DELAYS.length - 1))}) when it never lands; duplicates never cancelled are stable only below load ${formatPct(now.neverCancelBoundary, 0)}.`,
    );
  }

  function update() {
    const v = { "cancel-load": Number(load.input.value), "cancel-rule": rule.value };
    onChange(v);
    results.startSweep();
    results.clear();
    pending = "…";
    show();
    ui.note.textContent = `${formatCount(REQUESTS)} requests a run on 10 FIFO replicas with ${service.label}, load ${formatPct(v["cancel-load"], 0)}. When a request is answered it sends its losing copy a cancel that lands after the delay; until then the loser keeps its queue place or its server, and its work is counted. At each delay, the load at which duplicating's p99 stops beating no backups' is found by bisecting loads 5%–95% (bars: the bracket). The dashed line is where duplicates that are never cancelled stop being stable, (1 + h)ρ = 1 with h = 1.`;
    const calls = DELAYS.map((d) => ({
      fn: "simulateCancellation",
      args: [
        {
          load: v["cancel-load"],
          cancellation: v["cancel-rule"],
          cancelDelayMs: d,
          requests: REQUESTS,
          seed: seed.value,
          ...(service.value && { service: service.value }),
        },
      ],
    }));
    // The sweep is under way from now: the progress line says so before the first answer.
    ui.progress(0, calls.length);
    runSweep(client, ui, calls, {
      size: "requests",
      onError: (error) => {
        pending = "—";
        r.none.set("error", error);
        show();
      },
      onResult: (res, final, point) => {
        results.set(String(point), res, final);
        show();
        describe();
      },
      onDiscard: (point) => results.discard(String(point)),
      redraw: redrawSoon,
    });
  }

  exportBar(ui.tools, {
    link,
    name: "cancellation",
    title: "p99 latency against the cancellation delay",
    canvas: ui.canvas,
    draw,
    meta: () => ({
      seed: seed.value,
      requests: REQUESTS,
      load: load.input.value,
      cancellation: rule.value,
      service: service.own ? "your data" : "lab",
    }),
    table: () => ({
      header: [
        "cancel_delay_ms",
        "none_p99_ms",
        "hedge_p99_ms",
        "duplicate_p99_ms",
        "hedge_extra_work",
        "duplicate_extra_work",
        "crossing_verdict",
        "crossing_load",
      ],
      rows: results
        .finals()
        .sort((a, b) => (a.cancelDelayMs ?? Infinity) - (b.cancelDelayMs ?? Infinity))
        .map((res) => [
          res.cancelDelayMs ?? "never",
          res.noneP99,
          res.hedgeP99,
          res.duplicateP99,
          res.hedgeExtraWork,
          res.duplicateExtraWork,
          res.crossingVerdict,
          res.crossingLoad,
        ]),
    }),
  });
  // The p99 chart answers the pointer and the keyboard (web/touch.js): each policy's p99 and
  // duplicating's extra work at the nearest delay. Its x positions are the delays' places on
  // the axis as drawn (xAxis), so they follow the canvas's width.
  touchChart(ui.canvas, {
    xs: () => {
      const { at: pos } = xAxis(ui.canvas);
      return DELAYS.flatMap((_, i) => (at(i) ? [pos(i)] : []));
    },
    read: (x) => {
      const { at: pos } = xAxis(ui.canvas);
      const i = DELAYS.findIndex((_, j) => Math.abs(pos(j) - x) < 1e-9);
      const res = at(i);
      if (!res) return null;
      const delay = DELAYS[i];
      return {
        lines: [
          `cancel ${Number.isFinite(delay) ? `after ${formatMs(delay)}` : "never lands"}`,
          ...POLICIES.map(([key, label]) => `${label}: p99 ${p99Text(res, key)}`),
          `duplicating's extra work ${formatPct(res.duplicateExtraWork)}`,
        ],
        marks: POLICIES.map(([key, , color]) => ({
          y: res[`${key}Stable`] ? res[`${key}P99`] : Number.NaN,
          color,
        })),
      };
    },
    redraw: perFrame(() => draw()),
  });
  load.input.addEventListener("input", update);
  rule.addEventListener("change", update);
  seed.watch(update, signal);
  service.watch(update, signal);
  redrawOnResize(ui.canvas, draw, signal);
  redrawOnResize(workCanvas, drawWork, signal);
  redrawOnResize(crossCanvas, drawCrossing, signal);
  update();
}
