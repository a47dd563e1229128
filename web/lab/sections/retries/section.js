// Retries against hedges, and a retry storm: goodput, p99 and amplification per second of
// simulated time through a load spike, for timeout-then-retry without a budget, with a ratio
// budget, and a hedge with the same budget, the spike shaded and the budget's bound drawn.

import { formatMs, formatPct, formatTickMs } from "../../../format.js";
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

/** The three clients, in drawing order: [key, label, colour, options beyond the settings]. */
export const CLIENTS = /** @type {const} */ ([
  ["retry", "retries, no budget", "duplicate", { policy: "retry" }],
  ["budget", "retries with a budget", "hedge", { policy: "retry", budget: true }],
  ["hedge", "hedge with a budget", "third", { policy: "hedge", budget: true }],
]);

/** The section's settings, as URL parameters and embed attributes (defaults: the core's). */
export const params = [
  {
    name: "retries-timeout",
    type: "float",
    min: 200,
    max: 3000,
    step: 50,
    default: (/** @type {any} */ lab) => lab.retries.timeoutMs,
  },
  {
    name: "retries-backoff",
    type: "enum",
    values: (/** @type {any} */ lab) => lab.retries.backoffs,
    default: (/** @type {any} */ lab) => lab.retries.backoffs[0],
  },
  {
    name: "retries-budget",
    type: "float",
    min: 0.01,
    max: 1,
    step: 0.01,
    default: (/** @type {any} */ lab) => lab.retries.budget,
  },
  {
    name: "retries-spike",
    type: "float",
    min: 1,
    max: 4,
    step: 0.1,
    default: (/** @type {any} */ lab) => lab.retries.spike,
  },
];

/**
 * The options of one client's run from the section's settings (`values`, keyed by the params'
 * names): the claims use the same function, so the prose states what the page runs.
 * @param {Record<string, any>} values
 * @param {readonly [string, string, string, { readonly policy: string, readonly budget?: boolean }]} client
 * @param {number | bigint} seed
 */
export function optionsOf(values, client, seed) {
  const [, , , extra] = client;
  return {
    policy: extra.policy,
    timeoutMs: Number(values["retries-timeout"]),
    backoff: String(values["retries-backoff"]),
    spike: Number(values["retries-spike"]),
    budget: "budget" in extra ? Number(values["retries-budget"]) : null,
    seed,
  };
}

const BACKOFF_TEXT = { none: "none", exponential: "exponential", jitter: "exponential + jitter" };

/**
 * Builds the section inside `root` (see lab/section.js for the context).
 * @param {HTMLElement} root
 * @param {import("../../section.js").SectionContext} context
 */
export function mount(root, context) {
  const { client, api, values, prefix, onChange, link, seed, service, signal } =
    sectionContext(context);
  const specs = settingsOf(params, api);
  const start = initial(specs, values);
  const ui = panel(root, {
    chartHeight: 240,
    chartLabel: "Goodput per second through a load spike, per client",
    summary: () => summary(),
  });
  // Two more charts under the first, against the same time axis: p99 and amplification.
  const extra = ["p99 per second", "Amplification per second"].map((label) => {
    const canvas = el("canvas", { height: 200, role: "img", "aria-label": label });
    canvas.style.height = "200px";
    return canvas;
  });
  ui.canvas.after(...extra);
  const [p99Canvas, ampCanvas] = extra;

  const timeout = paramSlider(ui.controls, params, "retries-timeout", {
    prefix,
    label: "timeout",
    value: start["retries-timeout"],
    format: (v) => formatMs(v),
  });
  const backoff = choice(ui.controls, {
    id: `${prefix}retries-backoff`,
    label: "backoff",
    value: start["retries-backoff"],
    options: specs[1].values.map((/** @type {string} */ v) => [v, BACKOFF_TEXT[v] ?? v]),
  });
  const budget = paramSlider(ui.controls, params, "retries-budget", {
    prefix,
    label: "budget ratio",
    value: start["retries-budget"],
    format: (v) => formatPct(v, 0),
  });
  const spike = paramSlider(ui.controls, params, "retries-spike", {
    prefix,
    label: "spike",
    value: start["retries-spike"],
    format: (v) => `${v.toFixed(1)}×`,
  });

  const r = {
    retryRecovery: readout(ui.readouts, {
      name: "retry-recovery",
      label: "goodput after, no budget",
    }),
    retryAmp: readout(ui.readouts, {
      name: "retry-amplification",
      label: "amplification, no budget",
      theory: true,
    }),
    budgetRecovery: readout(ui.readouts, {
      name: "budget-recovery",
      label: "goodput after, budget",
    }),
    budgetAmp: readout(ui.readouts, {
      name: "budget-amplification",
      label: "amplification, budget",
      theory: true,
    }),
    hedgeRecovery: readout(ui.readouts, {
      name: "hedge-recovery",
      label: "goodput after, hedge",
    }),
    hedgeAmp: readout(ui.readouts, {
      name: "hedge-amplification",
      label: "amplification, hedge",
      theory: true,
    }),
    retryP99: readout(ui.readouts, { name: "retry-p99", label: "p99, no budget" }),
    budgetP99: readout(ui.readouts, { name: "budget-p99", label: "p99, budget" }),
    hedgeP99: readout(ui.readouts, { name: "hedge-p99", label: "p99, hedge" }),
  };
  /** @type {(any | null)[]} one result per client */
  let results = CLIENTS.map(() => null);

  const settings = () => ({
    "retries-timeout": Number(timeout.input.value),
    "retries-backoff": backoff.value,
    "retries-budget": Number(budget.input.value),
    "retries-spike": Number(spike.input.value),
  });

  /** The share of pre-spike goodput a run ends at, in words. */
  const recoveryText = (/** @type {any} */ res) => formatPct(res.recovery, 0);

  function summary() {
    const [a, b, h] = results;
    if (!a || !b || !h) return "";
    return `after the spike, goodput is ${recoveryText(a)} of before without a budget, ${recoveryText(b)} with one, ${recoveryText(h)} hedging.`;
  }

  /** Seconds from the run's start, one per window (the windows' middles). */
  const times = (/** @type {any} */ res) =>
    Array.from(res.windowGoodput, (_, i) => ((i + 0.5) * res.windowMs) / 1000);

  /** The common frame of the three charts: the time axis and the spike. */
  function frame(/** @type {any} */ c, /** @type {any} */ res) {
    if (res && res.spike > 1)
      c.band(res.spikeStartMs / 1000, res.spikeEndMs / 1000, `spike ${res.spike.toFixed(1)}×`);
  }

  const xAxis = (/** @type {any} */ res) => ({
    type: "linear",
    min: 0,
    max: res ? (res.windowMs * res.windowGoodput.length) / 1000 : 60,
    label: "time (s)",
  });

  function drawGoodput(canvas = ui.canvas) {
    const first = results.find(Boolean);
    const perSecond = (/** @type {any} */ res, /** @type {ArrayLike<number>} */ xs) =>
      Array.from(xs, (v) => (v * 1000) / res.windowMs);
    const top = Math.max(
      100,
      ...results.flatMap((res) => (res ? perSecond(res, res.windowRequests) : [])),
    );
    const c = chart(canvas, {
      legend: [
        ...CLIENTS.map(([, label, color]) => ({ label, color, width: 2.5 })),
        { label: "requests arriving", color: "none", width: 1, dash: [4, 3] },
      ],
      legendCorner: "right",
      x: xAxis(first),
      y: { type: "linear", min: 0, max: Math.ceil((top * 1.15) / 100) * 100, label: "goodput /s" },
    });
    c.axes();
    frame(c, first);
    if (first) {
      const xs = times(first);
      c.line(xs, perSecond(first, first.windowRequests), { color: "none", width: 1, dash: [4, 3] });
      for (const [i, [, , color]] of CLIENTS.entries()) {
        const res = results[i];
        if (res) c.line(times(res), perSecond(res, res.windowGoodput), { color, width: 2.5 });
      }
    }
    c.done();
  }

  function drawP99(canvas = p99Canvas) {
    const first = results.find(Boolean);
    const c = chart(canvas, {
      x: xAxis(first),
      y: { type: "log", min: 10, max: 100_000, label: "p99 latency", format: formatTickMs },
    });
    c.axes();
    frame(c, first);
    for (const [i, [, , color]] of CLIENTS.entries()) {
      const res = results[i];
      // A window with no answer has no p99 (the core reports NaN there): a gap.
      if (res) c.line(times(res), Array.from(res.windowP99), { color, width: 2 });
    }
    // The timeout: answers above it came from a retry (or were given up on).
    if (first?.timeoutMs) {
      const xs = [0, xAxis(first).max];
      c.line(xs, [first.timeoutMs, first.timeoutMs], { color: "theory", width: 1, dash: [5, 4] });
      c.lineLabel(xs, [first.timeoutMs, first.timeoutMs], "timeout", { color: "theory" });
    }
    c.done();
  }

  /** Per window: attempts over requests (NaN where none arrived). */
  const perRequest = (/** @type {any} */ res) =>
    Array.from(res.windowAttempts, (/** @type {number} */ a, /** @type {number} */ w) =>
      res.windowRequests[w] > 0 ? a / res.windowRequests[w] : NaN,
    );

  function ampTop() {
    const all = results.flatMap((res) => (res ? [res.maxAttempts, ...perRequest(res)] : [3]));
    const top = Math.max(...all.filter(Number.isFinite));
    return Math.min(10, Math.ceil(top + 0.5));
  }

  function drawAmplification(canvas = ampCanvas) {
    const first = results.find(Boolean);
    const c = chart(canvas, {
      x: xAxis(first),
      // Up to the most any window reached (a window after the spike sends retries for requests
      // that arrived in earlier ones), at most 10.
      y: { type: "linear", min: 0, max: ampTop(), label: "attempts ÷ requests" },
    });
    c.axes();
    frame(c, first);
    for (const [i, [, , color]] of CLIENTS.entries()) {
      const res = results[i];
      if (res) c.line(times(res), perRequest(res), { color, width: 2 });
    }
    // The checks: the budget's whole-run bound, and the storm's ceiling (every attempt sent).
    const b = results[1];
    if (b?.budgetBound) {
      const xs = [0, xAxis(b).max];
      c.line(xs, [b.budgetBound, b.budgetBound], { color: "theory", width: 1.5, dash: [5, 4] });
      c.lineLabel(xs, [b.budgetBound, b.budgetBound], `budget bound ${b.budgetBound.toFixed(2)}`, {
        color: "theory",
      });
    }
    if (first) {
      const xs = [0, xAxis(first).max];
      const m = first.maxAttempts;
      c.line(xs, [m, m], { color: "theory", width: 1, dash: [2, 3] });
      c.lineLabel(xs, [m, m], `every attempt: ${m}`, { color: "theory" });
    }
    c.done();
  }

  function draw(canvas = ui.canvas) {
    drawGoodput(canvas);
    if (canvas === ui.canvas) {
      drawP99();
      drawAmplification();
    }
  }

  const redrawSoon = perFrame(() => draw());

  /** The note under the charts, in the run's own numbers once one has come back. */
  function note(/** @type {any} */ res) {
    const how = `Runs on ${service.label}. A timed-out attempt stays in its replica's queue and is served anyway.`;
    if (!res) {
      ui.note.textContent = how;
      return;
    }
    const s = (/** @type {number} */ ms) => `${(ms / 1000).toFixed(0)} s`;
    const hedge = results[2]?.hedgeDelayMs;
    ui.note.textContent = `Loaded replicas at ${formatPct(res.load, 0)} load, a ${formatMs(res.timeoutMs)} timeout, ${res.maxAttempts} attempts, backoff ${BACKOFF_TEXT[res.backoff] ?? res.backoff}; the arrival rate ×${res.spike.toFixed(1)} from ${s(res.spikeStartMs)} to ${s(res.spikeEndMs)} of ${s(res.windowMs * res.windowGoodput.length)}, in windows of ${s(res.windowMs)}. "Goodput after" is goodput over the last quarter of the run against the windows before the spike.${hedge ? ` The hedge sends a backup after ${formatMs(hedge)} and gives up at the timeout.` : ""} ${how}`;
  }

  function describe() {
    const [a, b, h] = results;
    if (!a || !b || !h) return;
    ui.canvas.setAttribute(
      "aria-label",
      `Goodput per second through a ${a.spike.toFixed(1)}× load spike: without a budget it ends at ${recoveryText(a)} of its goodput before the spike, with a ${formatPct(b.budget, 0)} budget at ${recoveryText(b)}, hedging at ${recoveryText(h)}.`,
    );
    p99Canvas.setAttribute(
      "aria-label",
      `p99 per second: over the run ${formatMs(a.p99 ?? NaN)} without a budget, ${formatMs(b.p99 ?? NaN)} with one, ${formatMs(h.p99 ?? NaN)} hedging.`,
    );
    ampCanvas.setAttribute(
      "aria-label",
      `Attempts per request per second: ${a.amplification.toFixed(2)} over the run without a budget, ${b.amplification.toFixed(2)} with one (bound ${b.budgetBound?.toFixed(2)}), ${h.amplification.toFixed(2)} hedging.`,
    );
  }

  function update() {
    const values = settings();
    onChange(values);
    results = CLIENTS.map(() => null);
    const calls = CLIENTS.map((c) => {
      const opts = optionsOf(values, c, seed.value);
      return {
        fn: "simulateRetries",
        args: [service.own ? { ...opts, service: service.value } : opts],
      };
    });
    // One run per client (no drafts: a run's length is the spike's time axis, not a sample).
    runSweep(client, ui, calls, {
      onError: (error) => r.retryRecovery.set("error", error),
      onResult: (res, _final, point) => {
        results[point] = res;
        const p99 = (/** @type {any} */ x) => (x.p99 === null ? "—" : formatMs(x.p99));
        const amp = (/** @type {any} */ x) => `${x.amplification.toFixed(2)}×`;
        const [key] = CLIENTS[point];
        if (key === "retry") {
          r.retryRecovery.set(recoveryText(res));
          r.retryAmp.set(amp(res), `every attempt ${res.maxAttempts}×`);
          r.retryP99.set(p99(res));
        } else if (key === "budget") {
          r.budgetRecovery.set(recoveryText(res));
          r.budgetAmp.set(amp(res), `bound ${res.budgetBound.toFixed(2)}×`);
          r.budgetP99.set(p99(res));
        } else {
          r.hedgeRecovery.set(recoveryText(res));
          r.hedgeAmp.set(amp(res), `bound ${res.budgetBound.toFixed(2)}×`);
          r.hedgeP99.set(p99(res));
        }
        describe();
        note(results[0] ?? res);
      },
      redraw: redrawSoon,
    });
    note(null);
  }

  exportBar(ui.tools, {
    link,
    name: "retries",
    title: "Goodput, p99 and amplification per second through a load spike",
    canvas: ui.canvas,
    draw: drawGoodput,
    meta: () => ({ seed: seed.value, ...settings() }),
    table: () => ({
      header: [
        "t_s",
        ...CLIENTS.flatMap(([k]) => [
          `${k}_requests`,
          `${k}_attempts`,
          `${k}_goodput`,
          `${k}_p99_ms`,
        ]),
      ],
      rows: results.every(Boolean)
        ? times(results[0]).map((t, w) => [
            t,
            ...results.flatMap((res) => [
              res.windowRequests[w],
              res.windowAttempts[w],
              res.windowGoodput[w],
              res.windowP99[w],
            ]),
          ])
        : [],
    }),
  });
  // The three charts answer the pointer and the keyboard (web/touch.js): each client's number in
  // the window nearest the guide, as the chart draws it.
  /** Per second in window `w`. */
  const rate = (/** @type {any} */ res, /** @type {ArrayLike<number>} */ v, w) =>
    (v[w] * 1000) / res.windowMs;
  /** @type {[HTMLCanvasElement, string, (res: any, w: number) => number, (v: number) => string, () => void][]} */
  const readings = [
    [
      ui.canvas,
      "goodput",
      (res, w) => rate(res, res.windowGoodput, w),
      (v) => `${Math.round(v)}/s`,
      () => drawGoodput(),
    ],
    [
      p99Canvas,
      "p99",
      (res, w) => res.windowP99[w],
      (v) => (Number.isFinite(v) ? formatMs(v) : "no answer"),
      () => drawP99(),
    ],
    [
      ampCanvas,
      "attempts ÷ requests",
      (res, w) => perRequest(res)[w],
      (v) => (Number.isFinite(v) ? v.toFixed(2) : "—"),
      () => drawAmplification(),
    ],
  ];
  for (const [canvas, what, value, format, redraw] of readings)
    touchChart(canvas, {
      xs: () => {
        const first = results.find(Boolean);
        return first ? times(first) : [];
      },
      read: (t) => {
        const first = results.find(Boolean);
        if (!first) return null;
        const w = Math.round((t * 1000) / first.windowMs - 0.5);
        const sec = (/** @type {number} */ x) => String(Number(x.toFixed(2)));
        const half = first.windowMs / 2000;
        const lines = [`${sec(t - half)}–${sec(t + half)} s, ${what}`];
        /** @type {{ y: number, color: string }[]} */
        const marks = [];
        for (const [i, [, label, color]] of CLIENTS.entries()) {
          const res = results[i];
          if (!res) continue;
          const v = value(res, w);
          lines.push(`${label}: ${format(v)}`);
          marks.push({ y: v, color });
        }
        return { lines, marks };
      },
      redraw: perFrame(redraw),
    });
  for (const s of [timeout, budget, spike]) s.input.addEventListener("input", update);
  backoff.addEventListener("change", update);
  seed.watch(update, signal);
  service.watch(update, signal);
  redrawOnResize(ui.canvas, draw, signal);
  update();
}
