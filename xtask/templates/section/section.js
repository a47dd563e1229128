// New model (made by the model scaffold, xtask/src/scaffold.rs): the mean and p99 of
// exponential service times against their mean, simulated in the workers, beside the closed
// forms (mean, ln(100) × mean).
// Replace the call, the chart and the readouts with the model's; keep the shape.

import { exportBar } from "../../../export.js";
import { formatMs } from "../../../format.js";
import { touchChart } from "../../../touch.js";
import { chart } from "../../plot.js";
import {
  initial,
  panel,
  paramSlider,
  perFrame,
  readout,
  redrawOnResize,
  runSweep,
  SweepResults,
  sectionContext,
  settingsOf,
} from "../../section.js";

/** Mean service times with a simulated dot (ms; the chosen one is added). */
const DOT_MEANS = [1, 2, 5, 10, 20, 50, 100];
/** Requests per dot. */
const REQUESTS = 100_000;
/** ln(100): the exponential's p99 over its mean. */
const P99_OVER_MEAN = Math.log(100);

/** The section's settings, as URL parameters and embed attributes. */
export const params = [
  { name: "new-model-mean", type: "float", min: 1, max: 100, step: 1, default: 10 },
];
const [SPEC] = params;

/**
 * Builds the section inside `root` (see lab/section.js for the context).
 * @param {HTMLElement} root
 * @param {import("../../section.js").SectionContext} context
 */
export function mount(root, context) {
  const { client, api, values, prefix, onChange, link, seed, signal } = sectionContext(context);
  const start = initial(settingsOf(params, api), values);
  const ui = panel(root, {
    chartHeight: 300,
    chartLabel: "Mean and p99 of exponential service times against their mean",
  });
  const mean = paramSlider(ui.controls, params, "new-model-mean", {
    prefix,
    label: "mean service time",
    value: start["new-model-mean"],
    format: (v) => `${v} ms`,
  });
  const r = {
    mean: readout(ui.readouts, { name: "new-model-mean", label: "mean", theory: true }),
    p99: readout(ui.readouts, { name: "new-model-p99", label: "p99", theory: true }),
  };
  const results = new SweepResults();
  let failure = null;
  const chosen = () => Number(mean.input.value);
  const xs = [1, 100];

  function draw(canvas = ui.canvas) {
    const c = chart(canvas, {
      legend: [
        { label: "mean, simulated", color: "hedge", shape: "circle" },
        { label: "p99, simulated", color: "duplicate", shape: "square" },
        { label: "mean, exact", color: "theory", width: 1.5 },
        { label: "p99, exact", color: "theory", width: 1.5, dash: [6, 3] },
      ],
      x: { type: "log", min: 1, max: 100, label: "mean service time (ms)" },
      y: { type: "log", min: 0.5, max: 1000, label: "time (ms)" },
    });
    c.axes();
    c.line(xs, xs, { color: "theory", width: 1.5 });
    c.line(
      xs,
      xs.map((x) => P99_OVER_MEAN * x),
      { color: "theory", width: 1.5, dash: [6, 3] },
    );
    const pts = [...results.values()];
    c.dots(
      pts.map((x) => ({ x: x.meanMs, y: x.mean })),
      { color: "hedge", shape: "circle", r: 5 },
    );
    c.dots(
      pts.map((x) => ({ x: x.meanMs, y: x.p99 })),
      { color: "duplicate", shape: "square", r: 5 },
    );
    c.vline(chosen(), `mean ${chosen()} ms`);
    c.done();
  }

  function showChosen() {
    const m = chosen();
    onChange({ "new-model-mean": m });
    const x = results.get(m);
    const pending = failure ? "—" : "…";
    r.mean.set(x ? formatMs(x.mean) : pending, `theory ${formatMs(m)}`);
    r.p99.set(x ? formatMs(x.p99) : pending, `theory ${formatMs(P99_OVER_MEAN * m)}`);
    ui.canvas.setAttribute(
      "aria-label",
      `Mean and p99 of exponential service times against their mean. At a mean of ${m} ms: mean ${x ? formatMs(x.mean) : "pending"} simulated, p99 ${x ? formatMs(x.p99) : "pending"} simulated, ${formatMs(P99_OVER_MEAN * m)} exact.`,
    );
  }

  const refresh = perFrame(() => {
    showChosen();
    draw();
  });

  function update() {
    results.startSweep();
    const means = [chosen(), ...DOT_MEANS.filter((m) => m !== chosen())];
    const calls = means.map((m) => ({
      fn: "simulateNewModel",
      args: [{ meanMs: m, requests: REQUESTS, seed: seed.value }],
    }));
    failure = null;
    runSweep(client, ui, calls, {
      size: "requests",
      onResult: (x, final) => results.set(x.meanMs, x, final),
      onDiscard: (i) => results.discard(calls[i].args[0].meanMs),
      onError: (error) => {
        failure = error;
        r.mean.set("error", error);
      },
      redraw: refresh,
    });
    refresh();
  }

  // The chart answers the pointer and the keyboard (web/touch.js): the closed forms at the
  // nearest dot, and its marker moves the slider.
  touchChart(ui.canvas, {
    xs: () => [...new Set([...DOT_MEANS, chosen()])].sort((a, b) => a - b),
    read: (m) => ({
      lines: [
        `mean service ${m} ms`,
        `mean: exact ${formatMs(m)}`,
        `p99: exact ${formatMs(P99_OVER_MEAN * m)}`,
      ],
      marks: [
        { y: m, color: "hedge" },
        { y: P99_OVER_MEAN * m, color: "duplicate" },
      ],
    }),
    marker: {
      input: mean.input,
      value: chosen,
      toControl: (v) => String(Math.min(SPEC.max, Math.max(SPEC.min, Math.round(v)))),
    },
    redraw: perFrame(draw),
  });

  ui.note.textContent =
    "Each dot is the given number of exponential draws; the lines are the closed forms.";
  exportBar(ui.tools, {
    link,
    name: "new-model",
    title: "Mean and p99 of exponential service times against their mean",
    canvas: ui.canvas,
    draw,
    meta: () => ({ seed: seed.value, requests_per_dot: REQUESTS }),
    table: () => ({
      header: ["mean_ms", "sim_mean", "theory_mean", "sim_p99", "theory_p99", "requests"],
      rows: results
        .finals()
        .sort((a, b) => a.meanMs - b.meanMs)
        .map((x) => [x.meanMs, x.mean, x.meanTheory, x.p99, x.p99Theory, x.requests]),
    }),
  });
  mean.input.addEventListener("input", perFrame(update));
  // Another seed: every dot is drawn again, none kept from the old one.
  seed.watch(() => {
    results.clear();
    update();
  }, signal);
  redrawOnResize(ui.canvas, draw, signal);
  update();
}
