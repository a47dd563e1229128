// Hedged requests on idle replicas: latency survival P(T > t) without and with the
// hedge, simulated, with the closed forms S(t) and S(t)·S(t − d) drawn over them.

import {
  atLogX,
  formatCount,
  formatMs,
  formatPct,
  formatProb,
  formatTickMs,
} from "../../../format.js";
import { chart } from "../../plot.js";
import { touchChart } from "../../../touch.js";
import { exportBar } from "../../../export.js";
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
  slider,
  sectionContext,
} from "../../section.js";

export const REQUESTS = 200_000;

/**
 * The "your numbers" sliders: [id, label, min, max, step, format, default]. They start at the
 * Lab's own service model (the core's `labDefaults().service`).
 * @type {[string, string, number, number, number, (v: number) => string,
 *   (lab: import("../../api.js").LabDefaults) => number][]}
 */
const OWN = [
  [
    "hedge-body-median",
    "body median",
    1,
    100,
    0.1,
    (v) => `${v} ms`,
    (lab) => lab.service.body.medianMs,
  ],
  ["hedge-body-sigma", "body σ", 0.05, 1.5, 0.05, String, (lab) => lab.service.body.sigma],
  [
    "hedge-slow-p",
    "slow-mode probability",
    0,
    0.1,
    0.001,
    (v) => formatPct(v),
    (lab) => lab.service.slow.p,
  ],
  [
    "hedge-slow-median",
    "slow-mode median",
    20,
    5000,
    10,
    (v) => formatMs(v),
    (lab) => lab.service.slow.medianMs,
  ],
  ["hedge-slow-sigma", "slow-mode σ", 0.05, 1.5, 0.05, String, (lab) => lab.service.slow.sigma],
];

/** The section's settings, as URL parameters and embed attributes. */
export const params = [
  { name: "hedge-delayq", type: "float", min: 0.5, max: 0.999, step: 0.001, default: 0.95 },
  { name: "hedge-service", type: "enum", values: ["lab", "own"], default: "lab" },
  ...OWN.map(([name, , min, max, step, , value]) => ({
    name,
    type: "float",
    min,
    max,
    step,
    default: value,
  })),
];

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
    chartHeight: 320,
    chartLabel: "Latency survival with and without the hedge",
  });
  const delayQ = paramSlider(ui.controls, params, "hedge-delayq", {
    prefix,
    label: "hedge after quantile",
    value: start["hedge-delayq"],
    format: (v) => `p${(100 * v).toFixed(1).replace(/\.0$/, "")}`,
  });
  const preset = choice(ui.controls, {
    id: `${prefix}hedge-service`,
    label: "service",
    value: start["hedge-service"],
    options: [
      ["lab", "the Lab's model"],
      ["own", "your numbers"],
    ],
  });
  const own = el(
    "fieldset",
    { class: "lab-own", hidden: true },
    el("legend", { text: "your service model" }),
  );
  ui.controls.append(own);
  const ownData = el("p", { class: "data-status", "data-part": "on-your-data", hidden: true });
  ui.controls.append(ownData);
  const ownSliders = OWN.map(([id, label, min, max, step, format]) =>
    slider(own, { id: `${prefix}${id}`, label, min, max, step, value: start[id], format }),
  );
  const r = {
    before: readout(ui.readouts, {
      name: "p999-before",
      label: "p99.9 without hedge",
      theory: true,
    }),
    after: readout(ui.readouts, { name: "p999-after", label: "p99.9 with hedge", theory: true }),
    requests: readout(ui.readouts, {
      name: "extra-requests",
      label: "extra requests",
      theory: true,
    }),
    work: readout(ui.readouts, { name: "extra-work", label: "extra work", theory: true }),
    delay: readout(ui.readouts, { name: "hedge-delay", label: "hedge delay d" }),
  };
  let result = null;

  function draw(canvas = ui.canvas) {
    const c = chart(canvas, {
      legend: [
        { label: "simulated, no hedge", color: "none", width: 3 },
        { label: "simulated, hedged", color: "hedge", width: 3 },
        { label: "S(t)", color: "theory", dash: [5, 4], width: 1.5 },
        { label: "S(t)·S(t − d)", color: "theory", dash: [2, 3], width: 1.5 },
      ],
      legendCorner: "right",
      x: { type: "log", min: 1, max: 10_000, label: "latency t", format: formatTickMs },
      // Ticks as powers of ten, all of them (plot.js's one log format).
      y: { type: "log", min: 1e-5, max: 1, label: "P(latency > t)" },
    });
    c.axes();
    if (!result) return c.done();
    const { tMs, before, after, theoryBefore, theoryAfter } = result.curves;
    // Below a handful of samples the empirical tail is noise: drawn down to 5 / requests.
    const floor = 5 / result.requests;
    const clip = (arr) => Array.from(arr, (v) => (v >= floor ? v : NaN));
    c.line(tMs, clip(before), { color: "none", width: 3 });
    c.line(tMs, clip(after), { color: "hedge", width: 3 });
    c.line(tMs, theoryBefore, { color: "theory", width: 1.5, dash: [5, 4] });
    c.line(tMs, theoryAfter, { color: "theory", width: 1.5, dash: [2, 3] });
    c.vline(result.delayMs, `d = ${formatMs(result.delayMs)}`, { color: "hedge" });
    // Named on the curves too: the two simulated colours are close under deuteranopia.
    c.lineLabel(tMs, clip(before), "no hedge", { color: "none" });
    c.lineLabel(tMs, clip(after), "hedged", { color: "hedge" });
    c.done();
  }

  function options() {
    /** @type {import("../../api.js").HedgeOptions} */
    const opts = { delayQ: Number(delayQ.input.value), requests: REQUESTS, seed: seed.value };
    // The reader's own data, when the page runs on it, wins over this section's own model.
    if (service.own) opts.service = service.value;
    else if (preset.value === "own") {
      const [bm, bs, sp, sm, ss] = ownSliders.map((s) => Number(s.input.value));
      opts.service = {
        body: { medianMs: bm, sigma: bs },
        slow: { p: sp, medianMs: sm, sigma: ss },
      };
    }
    return opts;
  }

  /** One redraw per frame however many answers arrive in it. */
  const redrawSoon = perFrame(() => draw());

  function update() {
    own.hidden = preset.value !== "own" || service.own;
    preset.disabled = service.own;
    ownData.hidden = !service.own;
    ownData.textContent = `This section runs on ${service.label}; “back to the Lab's model” in the your-data section switches back.`;
    onChange({
      "hedge-delayq": Number(delayQ.input.value),
      "hedge-service": preset.value,
      ...Object.fromEntries(OWN.map(([id], i) => [id, Number(ownSliders[i].input.value)])),
    });
    // At 1/100 and 1/10 of the requests first (runSweep): the curves reach further down the
    // tail as the sample grows.
    runSweep(client, ui, [{ fn: "simulateHedge", args: [options()] }], {
      size: "requests",
      onError: (error) => r.delay.set("error", error),
      onResult: (res) => {
        result = res;
        r.before.set(formatMs(res.p999Before), `theory ${formatMs(res.theoryP999Before)}`);
        r.after.set(formatMs(res.p999After), `theory ${formatMs(res.theoryP999After)}`);
        r.requests.set(
          formatPct(res.extraRequests),
          `theory ${formatPct(res.theoryExtraRequests)}`,
        );
        r.work.set(formatPct(res.extraWork, 2), `theory ${formatPct(res.theoryExtraWork, 2)}`);
        r.delay.set(formatMs(res.delayMs));
        ui.canvas.setAttribute(
          "aria-label",
          `Latency survival on log-log axes: the hedge after ${formatMs(res.delayMs)} takes p99.9 from ${formatMs(res.p999Before)} to ${formatMs(res.p999After)}; S(t)·S(t − d) predicts ${formatMs(res.theoryP999After)}.`,
        );
      },
      redraw: redrawSoon,
    });
  }

  // The chart answers the pointer and the keyboard (web/touch.js): the four curves' values at
  // the nearest t, and the d = marker dragged or stepped moves the hedge quantile's slider.
  touchChart(ui.canvas, {
    xs: () => (result ? Array.from(result.curves.tMs) : []),
    read: (t) => {
      if (!result) return null;
      const cv = result.curves;
      const i = Array.prototype.indexOf.call(cv.tMs, t);
      if (i < 0) return null;
      const floor = 5 / result.requests;
      const sim = (v) => (v >= floor ? formatProb(v) : "below the sample's floor");
      return {
        lines: [
          `t = ${formatMs(t)}`,
          `no hedge ${sim(cv.before[i])}`,
          `hedged ${sim(cv.after[i])}`,
          `S(t) ${formatProb(cv.theoryBefore[i])}`,
          `S(t)·S(t − d) ${formatProb(cv.theoryAfter[i])}`,
        ],
        marks: [
          { y: cv.before[i], color: "none" },
          { y: cv.after[i], color: "hedge" },
        ],
      };
    },
    marker: {
      input: delayQ.input,
      value: () => result?.delayMs ?? NaN,
      // The quantile whose delay is t: 1 − S(t), on the core's S(t) for this service, log-linear
      // between its grid points, snapped to the slider's 0.001 steps.
      toControl: (t) => {
        if (!result) return delayQ.input.value;
        const s = atLogX(result.curves.tMs, result.curves.theoryBefore, t);
        const q = Math.min(0.999, Math.max(0.5, Math.round((1 - s) * 1000) / 1000));
        return String(q);
      },
      // Keys step the tail share 1 − q by a factor of 10^(1/20) an arrow (ten arrows, one
      // PageUp, a factor of √10), so each press moves the marker about as far on the log axis
      // from p50 to p99.9; at least one of the slider's 0.001 steps.
      step: (k) => {
        const q = Number(delayQ.input.value);
        const to = !Number.isFinite(k) ? (k < 0 ? 0.5 : 0.999) : 1 - (1 - q) * 10 ** (-k / 20);
        let r = Math.round(to * 1000) / 1000;
        if (Number.isFinite(k) && r === q) r = q + Math.sign(k) * 0.001;
        return String(Math.min(0.999, Math.max(0.5, Number(r.toFixed(3)))));
      },
    },
    redraw: redrawSoon,
  });

  ui.note.textContent = `${formatCount(REQUESTS)} requests on idle replicas. Extra work is the backups' service time until they answered or were cancelled, over the primaries' full service time. The product S(t)·S(t − d) holds for any service model as long as the two copies are slow independently of each other, as they are here, so it stays exact with your numbers too.`;
  exportBar(ui.tools, {
    link,
    name: "hedge",
    title: "Latency survival with and without the hedge",
    canvas: ui.canvas,
    draw,
    meta: () => {
      const own = preset.value === "own" ? ownSliders.map((x) => Number(x.input.value)) : null;
      return {
        seed: seed.value,
        // The run on screen: a draft's own size while the section refines.
        requests: result?.requests ?? REQUESTS,
        delay_q: delayQ.input.value,
        delay_ms: result?.delayMs,
        service: service.own ? "your data" : preset.value,
        ...(own && {
          body_median_ms: own[0],
          body_sigma: own[1],
          slow_p: own[2],
          slow_median_ms: own[3],
          slow_sigma: own[4],
        }),
      };
    },
    table: () => ({
      header: [
        "t_ms",
        "sim_survival_no_hedge",
        "sim_survival_hedged",
        "theory_S(t)",
        "theory_S(t)S(t-d)",
      ],
      rows: result
        ? Array.from(result.curves.tMs, (t, i) => [
            t,
            result.curves.before[i],
            result.curves.after[i],
            result.curves.theoryBefore[i],
            result.curves.theoryAfter[i],
          ])
        : [],
    }),
  });
  delayQ.input.addEventListener("input", update);
  preset.addEventListener("change", update);
  for (const s of ownSliders) s.input.addEventListener("input", update);
  seed.watch(update, signal);
  service.watch(update, signal);
  redrawOnResize(ui.canvas, draw, signal);
  update();
}
