// One queue: mean and p99 of the time in system against utilisation for an M/M/c queue,
// simulated in the workers, beside the closed forms (Erlang C), with M/M/1 for reference.

import { exportBar } from "../../../export.js";
import { formatNumber, formatPct } from "../../../format.js";
import { chart } from "../../plot.js";
import { touchChart } from "../../../touch.js";
import {
  choice,
  initial,
  panel,
  perFrame,
  readout,
  redrawOnResize,
  settingsOf,
  paramSlider,
  runSweep,
  SweepResults,
  INTERVAL_NOTE_PLANNED,
  plannedNote,
  precisionText,
  runLengthMeta,
  sectionContext,
} from "../../section.js";

/** Utilisations with a simulated dot (the chosen one is added). */
const DOT_LOADS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95];
/** Server counts a reader can pick. */
const SERVER_CHOICES = ["1", "2", "4", "8", "16", "64"];
/** Each dot's length is planned for a precision (the core's run-length rule for "queue"). */
const REQUESTS = "auto";

/** The section's settings, as URL parameters and embed attributes. */
export const params = [
  { name: "queue-load", type: "float", min: 0.05, max: 0.95, step: 0.01, default: 0.8 },
  { name: "queue-servers", type: "enum", values: SERVER_CHOICES, default: "4" },
];

/**
 * Builds the section inside `root` (see lab/section.js for the context).
 * @param {HTMLElement} root
 * @param {import("../../section.js").SectionContext} context
 */
export function mount(root, context) {
  const { client, api, values, prefix, onChange, link, seed, signal } = sectionContext(context);
  const start = initial(settingsOf(params, api), values);
  const ui = panel(root, {
    chartHeight: 320,
    chartLabel: "Time in system against utilisation for one queue",
  });
  const load = paramSlider(ui.controls, params, "queue-load", {
    prefix,
    label: "utilisation ρ",
    value: start["queue-load"],
    format: (v) => v.toFixed(2),
  });
  const servers = choice(ui.controls, {
    id: `${prefix}queue-servers`,
    label: "servers sharing the queue",
    value: String(start["queue-servers"]),
    options: SERVER_CHOICES.map((c) => [c, c === "1" ? "1 (M/M/1)" : `${c} (M/M/${c})`]),
  });
  const r = {
    mean: readout(ui.readouts, { name: "queue-mean", label: "mean time in system", theory: true }),
    p99: readout(ui.readouts, { name: "queue-p99", label: "p99 time in system", theory: true }),
    waited: readout(ui.readouts, {
      name: "queue-waited",
      label: "requests that waited",
      theory: true,
    }),
    precision: readout(ui.readouts, {
      name: "queue-precision",
      label: "bars: mean · p99",
      theory: true,
    }),
  };
  const results = new SweepResults();
  let failure = null;
  const key = (rho, c) => `${rho}|${c}`;
  const chosenLoad = () => Number(Number(load.input.value).toFixed(2));
  const chosenServers = () => Number(servers.value);
  // The closed forms on a fine grid of ρ (microseconds each, on the main thread).
  const xs = Array.from({ length: 99 }, (_, i) => 0.01 * (i + 1));
  // Computed once per server count (about 1.5 ms each), not at every slider step.
  const curveCache = new Map();
  const curvesFor = (c) => {
    if (!curveCache.has(c)) {
      const points = xs.map((x) => api.queueTheory(c, x));
      curveCache.set(c, { mean: points.map((p) => p.mean), p99: points.map((p) => p.p99) });
    }
    return curveCache.get(c);
  };
  const oneServer = curvesFor(1);
  let curves = curvesFor(chosenServers());

  function draw(canvas = ui.canvas) {
    const k = chosenServers();
    const c = chart(canvas, {
      legend: [
        { label: `mean, simulated (c = ${k}), 95% interval`, color: "hedge", shape: "circle" },
        { label: `p99, simulated (c = ${k}), 95% interval`, color: "duplicate", shape: "square" },
        { label: "mean, exact", color: "theory", width: 1.5 },
        { label: "p99, exact", color: "theory", width: 1.5, dash: [6, 3] },
        ...(k !== 1
          ? [{ label: "one server (M/M/1)", color: "none", width: 1, dash: [2, 3] }]
          : []),
      ],
      x: {
        type: "linear",
        min: 0,
        max: 1,
        label: "utilisation per server ρ",
        format: (v) => v.toFixed(1),
      },
      y: { type: "log", min: 0.5, max: 500, label: "time in system (mean service times)" },
    });
    c.axes();
    if (k !== 1) {
      c.line(xs, oneServer.mean, { color: "none", width: 1, dash: [2, 3] });
      c.line(xs, oneServer.p99, { color: "none", width: 1, dash: [2, 3] });
    }
    c.line(xs, curves.mean, { color: "theory", width: 1.5 });
    c.line(xs, curves.p99, { color: "theory", width: 1.5, dash: [6, 3] });
    const pts = [...results.values()].filter((x) => x.servers === k);
    c.dots(
      pts.map((x) => ({ x: x.load, y: x.mean, lo: x.meanLow, hi: x.meanHigh })),
      { color: "hedge", shape: "circle", r: 5 },
    );
    c.dots(
      pts.map((x) => ({ x: x.load, y: x.p99, lo: x.p99Low, hi: x.p99High })),
      { color: "duplicate", shape: "square", r: 5 },
    );
    c.vline(chosenLoad(), `ρ = ${chosenLoad().toFixed(2)}`);
    const x = results.get(key(chosenLoad(), k));
    if (x) {
      c.dots([{ x: x.load, y: x.p99 }], { color: "duplicate", shape: "square", r: 7.5 });
      c.label(x.load, x.p99, `p99 ${formatNumber(x.p99)}`, {
        color: "duplicate",
        align: x.load > 0.6 ? "right" : "left",
        dy: -10,
      });
    }
    c.done();
  }

  function showChosen() {
    const rho = chosenLoad();
    const k = chosenServers();
    onChange({ "queue-load": rho, "queue-servers": String(k) });
    const exact = api.queueTheory(k, rho);
    const x = results.get(key(rho, k));
    const pending = failure ? "—" : "…";
    r.mean.set(x ? formatNumber(x.mean) : pending, `theory ${formatNumber(exact.mean)}`);
    r.p99.set(x ? formatNumber(x.p99) : pending, `theory ${formatNumber(exact.p99)}`);
    r.waited.set(
      x ? formatPct(x.waitProbability) : pending,
      `Erlang C ${formatPct(exact.waitProbability)}`,
    );
    const reached = x && precisionText(x, x.requests, "requests");
    r.precision.set(reached ? reached.value : pending, reached ? reached.detail : "");
    ui.canvas.setAttribute(
      "aria-label",
      `Mean and p99 time in system against utilisation for ${k} server${k === 1 ? "" : "s"} sharing one queue. At ρ = ${rho.toFixed(2)}: mean ${x ? formatNumber(x.mean) : "pending"} simulated, ${formatNumber(exact.mean)} exact; p99 ${x ? formatNumber(x.p99) : "pending"} simulated, ${formatNumber(exact.p99)} exact.`,
    );
  }

  const refresh = perFrame(() => {
    showChosen();
    draw();
  });

  function update() {
    results.startSweep();
    const rho = chosenLoad();
    const k = chosenServers();
    curves = curvesFor(k);
    const loads = [rho, ...DOT_LOADS.filter((l) => l !== rho)];
    const calls = loads.map((l) => ({
      fn: "simulateQueue",
      args: [{ servers: k, load: l, requests: REQUESTS, seed: seed.value }],
    }));
    failure = null;
    runSweep(client, ui, calls, {
      size: "requests",
      onResult: (x, final) => results.set(key(x.load, x.servers), x, final),
      onDiscard: (i) => results.discard(key(calls[i].args[0].load, calls[i].args[0].servers)),
      onError: (error) => {
        failure = error;
        r.mean.set("error", error);
      },
      redraw: refresh,
    });
    refresh();
  }

  // The chart answers the pointer and the keyboard (web/touch.js): the exact values at the
  // nearest ρ (the closed forms' grid and the dots), and the ρ = marker moves the load slider.
  touchChart(ui.canvas, {
    xs: () =>
      [
        ...new Set([
          ...xs.map((v) => Number(v.toFixed(2))),
          ...[...results.values()].filter((x) => x.servers === chosenServers()).map((x) => x.load),
        ]),
      ].sort((a, b) => a - b),
    read: (rho) => {
      const k = chosenServers();
      const exact = api.queueTheory(k, rho);
      const x = results.get(key(rho, k));
      return {
        lines: [
          `ρ = ${rho.toFixed(2)}, c = ${k}`,
          `mean: exact ${formatNumber(exact.mean)}${x ? `, simulated ${formatNumber(x.mean)}` : ""}`,
          `p99: exact ${formatNumber(exact.p99)}${x ? `, simulated ${formatNumber(x.p99)}` : ""}`,
        ],
        marks: [
          { y: exact.mean, color: "hedge" },
          { y: exact.p99, color: "duplicate" },
        ],
      };
    },
    marker: {
      input: load.input,
      value: chosenLoad,
      toControl: (v) => String(Math.min(0.95, Math.max(0.05, Math.round(v * 100) / 100))),
    },
    redraw: perFrame(draw),
  });

  ui.note.textContent = `Poisson arrivals and exponential service; the first tenth of each run is warm-up. ${plannedNote(api, "queue", "requests")} Times are in mean service times: with a 1 ms service, read them as milliseconds. The dotted lines are one server at the same utilisation. ${INTERVAL_NOTE_PLANNED} A bar narrower than its dot shows as the two caps either side of it.`;
  exportBar(ui.tools, {
    link,
    name: "queue",
    title: "Time in system against utilisation for one queue",
    canvas: ui.canvas,
    draw,
    meta: () => ({
      seed: seed.value,
      requests_per_dot: "planned per dot by the run-length rule (columns requests and length_by)",
      ...runLengthMeta(api, "queue"),
      servers: chosenServers(),
      time_unit: "mean service time",
    }),
    table: () => ({
      header: [
        "load",
        "servers",
        "sim_mean",
        "theory_mean",
        "sim_p99",
        "theory_p99",
        "sim_wait_probability",
        "theory_wait_probability",
        "requests",
        "length_by",
        "mean_half_width",
        "p99_half_width",
        "targets_met",
      ],
      rows: results
        .finals()
        .sort((a, b) => a.servers - b.servers || a.load - b.load)
        .map((x) => [
          x.load,
          x.servers,
          x.mean,
          x.theoryMean,
          x.p99,
          x.theoryP99,
          x.waitProbability,
          x.theoryWaitProbability,
          x.requests,
          x.precision.lengthBy,
          x.precision.mean,
          x.precision.p99,
          x.precision.met,
        ]),
    }),
  });
  load.input.addEventListener("input", perFrame(update));
  servers.addEventListener("change", update);
  // Another seed: every dot is drawn again, none kept from the old one.
  seed.watch(() => {
    results.clear();
    update();
  }, signal);
  redrawOnResize(ui.canvas, draw, signal);
  update();
}
