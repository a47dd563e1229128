// Coordinated omission: one stalling server measured four ways (closed loop raw, with
// HdrHistogram's expected-interval fills, from the intended send time, open loop), their
// latency survival curves with the open loop's closed form over them (random stalls), the
// classic worked example as the check, and a closed-loop probe of a loaded replica.

import { exportBar } from "../../../export.js";
import { formatCount, formatMs, formatPct, formatProb, formatTickMs } from "../../../format.js";
import { touchChart } from "../../../touch.js";
import { chart } from "../../plot.js";
import {
  choice,
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

/** The run the section measures: an hour of sends (ms). */
export const DURATION_MS = 3_600_000;

/** The section's settings, as URL parameters and embed attributes. */
export const params = [
  // The stall's length as log10 ms: 10 ms … 100 s.
  { name: "omission-stall", type: "float", min: 1, max: 5, step: 0.05, default: 5 },
  // The share of time the server is stalled: with 100 s stalls, 50% is the classic example's
  // 200 s period. A share rather than a period, so every length and share make a valid pair.
  { name: "omission-share", type: "float", min: 0.01, max: 0.5, step: 0.01, default: 0.5 },
  // The send interval as log10 ms: 1 ms … 1 s.
  { name: "omission-interval", type: "float", min: 0, max: 3, step: 0.05, default: 1 },
  { name: "omission-gaps", type: "enum", values: ["fixed", "random"], default: "fixed" },
  { name: "omission-load", type: "float", min: 0.1, max: 0.9, step: 0.05, default: 0.5 },
];

/** 10^x, rounded to three significant digits (a slider position as ms). */
const ms = (x) => Number((10 ** x).toPrecision(3));

/** The call's options at these settings (a stall every length ÷ share on average). */
export function options(s, seedValue, serviceValue) {
  /** @type {import("../../api.js").OmissionOptions} */
  const opts = {
    stallMs: ms(s["omission-stall"]),
    everyMs: ms(s["omission-stall"]) / s["omission-share"],
    intervalMs: ms(s["omission-interval"]),
    gaps: s["omission-gaps"],
    durationMs: DURATION_MS,
    probeLoad: s["omission-load"],
    seed: seedValue,
  };
  if (serviceValue) opts.service = serviceValue;
  return opts;
}

const WAYS = [
  ["raw", "closed loop, raw", "none"],
  ["corrected", "HdrHistogram-corrected", "hedge"],
  ["intended", "from intended time (wrk2)", "duplicate"],
  ["open", "open loop (truth)", "ink"],
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
    chartLabel: "Latency survival of one stalling server, measured four ways",
  });
  const stall = paramSlider(ui.controls, params, "omission-stall", {
    prefix,
    label: "stall length",
    value: start["omission-stall"],
    format: (v) => formatMs(ms(v)),
  });
  const share = paramSlider(ui.controls, params, "omission-share", {
    prefix,
    label: "time stalled",
    value: start["omission-share"],
    format: (v) =>
      `${formatPct(v, 0)} (a stall every ${formatMs(ms(Number(stall.input.value)) / v)})`,
  });
  const interval = paramSlider(ui.controls, params, "omission-interval", {
    prefix,
    label: "a send every",
    value: start["omission-interval"],
    format: (v) => formatMs(ms(v)),
  });
  const gaps = choice(ui.controls, {
    id: `${prefix}omission-gaps`,
    label: "stalls come",
    value: start["omission-gaps"],
    options: [
      ["fixed", "like clockwork"],
      ["random", "at random"],
    ],
  });
  const load = paramSlider(ui.controls, params, "omission-load", {
    prefix,
    label: "probed replica's load",
    value: start["omission-load"],
    format: (v) => formatPct(v, 0),
  });
  const r = {
    rawLe: readout(ui.readouts, { name: "raw-le-1ms", label: "≤ 1 ms, closed loop raw" }),
    correctedLe: readout(ui.readouts, {
      name: "corrected-le-1ms",
      label: "≤ 1 ms, HdrHistogram-corrected",
    }),
    openLe: readout(ui.readouts, { name: "open-le-1ms", label: "≤ 1 ms, open loop", theory: true }),
    rawP99: readout(ui.readouts, { name: "raw-p99", label: "p99, closed loop raw" }),
    correctedP99: readout(ui.readouts, { name: "corrected-p99", label: "p99, corrected" }),
    intendedP99: readout(ui.readouts, { name: "intended-p99", label: "p99, intended time" }),
    openP99: readout(ui.readouts, { name: "open-p99", label: "p99, open loop", theory: true }),
    classicRaw: readout(ui.readouts, {
      name: "classic-raw",
      label: "worked example: ≤ 1 ms raw",
    }),
    classicCorrected: readout(ui.readouts, {
      name: "classic-corrected",
      label: "worked example: ≤ 1 ms corrected",
    }),
    probeOpen: readout(ui.readouts, { name: "probe-open-p99", label: "replica p99, open loop" }),
    probeRaw: readout(ui.readouts, { name: "probe-raw-p99", label: "replica p99, closed loop" }),
    probeCorrected: readout(ui.readouts, {
      name: "probe-corrected-p99",
      label: "replica p99, corrected",
    }),
    probeMean: readout(ui.readouts, {
      name: "probe-mean",
      label: "replica mean, open loop",
      theory: true,
    }),
  };
  let result = null;

  function draw(canvas = ui.canvas) {
    const c = chart(canvas, {
      legend: [
        ...WAYS.map(([, label, color]) => ({ label, color, width: 2.5 })),
        ...(result?.curves.theory.length
          ? [{ label: "closed form, open loop", color: "theory", dash: [5, 4], width: 1.5 }]
          : []),
      ],
      legendCorner: "right",
      x: { type: "log", min: 0.5, max: 200_000, label: "latency t", format: formatTickMs },
      y: { type: "log", min: 1e-6, max: 1, label: "P(latency > t)" },
    });
    c.axes();
    if (!result) return c.done();
    const { tMs } = result.curves;
    for (const [key, , color] of WAYS) {
      const floor = 1 / result[`${key}Samples`];
      const ys = Array.from(result.curves[key], (v) => (v >= floor ? v : NaN));
      c.line(tMs, ys, { color, width: 2.5 });
    }
    if (result.curves.theory.length)
      c.line(tMs, result.curves.theory, { color: "theory", width: 1.5, dash: [5, 4] });
    c.vline(result.stallMs, `stall ${formatMs(result.stallMs)}`, { color: "ink" });
    c.done();
  }

  const redrawSoon = perFrame(() => draw());

  function settings() {
    return {
      "omission-stall": Number(stall.input.value),
      "omission-share": Number(share.input.value),
      "omission-interval": Number(interval.input.value),
      "omission-gaps": gaps.value,
      "omission-load": Number(load.input.value),
    };
  }

  function update() {
    const s = settings();
    onChange(s);
    const own = service.own ? service.value : undefined;
    const classic = { seed: seed.value, probes: 1000 };
    runSweep(
      client,
      ui,
      [
        { fn: "simulateOmission", args: [options(s, seed.value, own)] },
        { fn: "simulateOmission", args: [classic] },
      ],
      {
        onError: (error, point) => {
          if (point === 0) {
            result = null;
            for (const key of Object.keys(r)) if (!key.startsWith("classic")) r[key].set("—", "");
            r.rawLe.set("error", error);
          } else r.classicRaw.set("error", error);
        },
        onResult: (res, _final, point) => {
          if (point === 1) {
            r.classicRaw.set(formatPct(res.rawFracLe1ms, 2));
            r.classicCorrected.set(formatPct(res.correctedFracLe1ms, 2));
            return;
          }
          result = res;
          const th = (v, f) => (v === null ? "" : `theory ${f(v)}`);
          r.rawLe.set(formatPct(res.rawFracLe1ms, 2));
          r.correctedLe.set(formatPct(res.correctedFracLe1ms, 2));
          r.openLe.set(
            formatPct(res.openFracLe1ms, 2),
            th(res.theoryOpenFracLe1ms, (v) => formatPct(v, 2)),
          );
          r.rawP99.set(formatMs(res.rawP99));
          r.correctedP99.set(formatMs(res.correctedP99));
          r.intendedP99.set(formatMs(res.intendedP99));
          r.openP99.set(formatMs(res.openP99), th(res.theoryOpenP99, formatMs));
          r.probeOpen.set(formatMs(res.probeOpenP99));
          r.probeRaw.set(formatMs(res.probeRawP99));
          r.probeCorrected.set(formatMs(res.probeCorrectedP99));
          r.probeMean.set(formatMs(res.probeOpenMean), `P–K ${formatMs(res.probeTheoryMean)}`);
          ui.canvas.setAttribute(
            "aria-label",
            `Latency survival on log-log axes, ${formatMs(res.stallMs)} stalls: the closed loop reads p99 ${formatMs(res.rawP99)}, the open loop ${formatMs(res.openP99)}; HdrHistogram's correction reads ${formatMs(res.correctedP99)}.`,
          );
        },
        redraw: redrawSoon,
      },
    );
  }

  touchChart(ui.canvas, {
    xs: () => (result ? Array.from(result.curves.tMs) : []),
    read: (t) => {
      if (!result) return null;
      const cv = result.curves;
      const i = Array.prototype.indexOf.call(cv.tMs, t);
      if (i < 0) return null;
      return {
        lines: [
          `t = ${formatMs(t)}`,
          ...WAYS.map(([key, label]) => `${label} ${formatProb(cv[key][i])}`),
          ...(cv.theory.length ? [`closed form ${formatProb(cv.theory[i])}`] : []),
        ],
        marks: WAYS.map(([key, , color]) => ({ y: cv[key][i], color })),
      };
    },
    redraw: redrawSoon,
  });

  ui.note.textContent = `An hour of sends at each setting, 1 ms of work each; a stall freezes every worker of the server at once. The probed replica is the busy-replicas section's, one FIFO server with the Lab's service model, probed every 100 ms ${formatCount(200_000)} times.`;
  const showService = () => {
    if (service.own)
      ui.note.textContent = `An hour of sends at each setting, 1 ms of work each. The probed replica runs on ${service.label}.`;
  };
  exportBar(ui.tools, {
    link,
    name: "omission",
    title: "Latency survival of one stalling server, measured four ways",
    canvas: ui.canvas,
    draw,
    meta: () => ({ seed: seed.value, ...settings() }),
    table: () => ({
      header: ["t_ms", ...WAYS.map(([key]) => `${key}_survival`), "theory_open_survival"],
      rows: result
        ? Array.from(result.curves.tMs, (t, i) => [
            t,
            ...WAYS.map(([key]) => result.curves[key][i]),
            result.curves.theory.length ? result.curves.theory[i] : "",
          ])
        : [],
    }),
  });
  // The share's text names the period, which moves with the stall's length too.
  stall.input.addEventListener("input", () => share.show());
  for (const s of [stall, share, interval, load]) s.input.addEventListener("input", update);
  gaps.addEventListener("change", update);
  seed.watch(update, signal);
  service.watch(() => {
    showService();
    update();
  }, signal);
  showService();
  redrawOnResize(ui.canvas, draw, signal);
  update();
}
