// Fan-out: the share of requests that meet a slow leaf, 1 − (1 − p)^n, against the
// simulated share at several fan-outs with 95% binomial error bars; and, at the chosen p and n,
// the request's latency (the slowest of its n leaves) and one leaf's: mean, median and p99,
// simulated beside their closed forms (seed 004's "the average lies").

import { formatCount, formatMs, formatPct, formatTickMs } from "../../../format.js";
import { chart } from "../../plot.js";
import { touchChart } from "../../../touch.js";
import { exportBar } from "../../../export.js";
import { fanoutInterval } from "../../api.js";
import {
  initial,
  panel,
  perFrame,
  readout,
  redrawOnResize,
  runSweep,
  slider,
  sectionContext,
} from "../../section.js";

/** Fan-outs that get a simulated dot (the chosen one is added). */
const DOT_FANOUTS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
/** Requests per dot: a binomial standard error of at most 0.16 points. */
const REQUESTS = 100_000;
/** Leaf draws in the latency run: about 50 ms in a worker at any fan-out. */
const LATENCY_LEAVES = 4_000_000;
/** Requests in the latency run at fan-out `n`: 100,000, or fewer so that requests × n stays
 * within LATENCY_LEAVES (40,000 at n = 100, 4,000 at n = 1000). */
export const latencyRequests = (n) => Math.min(100_000, Math.floor(LATENCY_LEAVES / n));

/** The log slider's value (log10 p, 0.001 steps) → p, rounded to 3 significant digits. */
const pOf = (v) => Number((10 ** v).toPrecision(3));

/**
 * The fan-out slider's stops: every n to 10, then 1-1.2-1.5-2-2.5-3-4-5-6-7-8 per decade to
 * 1000, evenly spaced on the slider (a log slider: each decade about a third of its length, so
 * n = 5 is one stop among ten, not a fifth of a pixel). The slider holds a stop's index; a value
 * between two stops (a link's `fanout-n=37`) is held exactly as a fractional index, log-linear
 * between its neighbours, and read back as the same integer.
 */
export const FANOUT_STOPS = [
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 25, 30, 40, 50, 60, 70, 80, 100, 120, 150, 200, 250,
  300, 400, 500, 600, 700, 800, 1000,
];
/** The slider's value (a stop index, fractional between stops) → n. */
export function fanoutOf(v) {
  const last = FANOUT_STOPS.length - 1;
  const i = Math.min(last, Math.max(0, Math.floor(v + 1e-9)));
  const f = v - i;
  if (i === last || f < 1e-9) return FANOUT_STOPS[i];
  const a = FANOUT_STOPS[i],
    b = FANOUT_STOPS[i + 1];
  return Math.round(a * (b / a) ** f);
}
/** n → the slider's value: a stop's index, or the fractional index that reads back as n. */
export function fanoutControl(n) {
  const i = FANOUT_STOPS.filter((s) => s <= n).length - 1;
  if (i < 0) return "0";
  if (FANOUT_STOPS[i] === n || i === FANOUT_STOPS.length - 1) return String(i);
  const a = FANOUT_STOPS[i],
    b = FANOUT_STOPS[i + 1];
  return String(Number((i + Math.log(n / a) / Math.log(b / a)).toFixed(4)));
}
/** The stop nearest `n` on the slider (in log), as the slider's value. */
const nearestStop = (n) => {
  let best = 0;
  for (const [i, s] of FANOUT_STOPS.entries())
    if (Math.abs(Math.log(s / n)) < Math.abs(Math.log(FANOUT_STOPS[best] / n))) best = i;
  return best;
};

/** The section's settings, as URL parameters and embed attributes. */
export const params = [
  // The slider holds log10 p.
  {
    name: "fanout-p",
    type: "float",
    min: 0.001,
    max: 0.2,
    default: 0.01,
    control: (p) => Math.log10(p).toFixed(3),
  },
  // The slider holds a stop's index (FANOUT_STOPS); the URL the plain integer n.
  { name: "fanout-n", type: "int", min: 1, max: 1000, default: 100, control: fanoutControl },
];

/**
 * Builds the section inside `root` (see lab/section.js for the context).
 * @param {HTMLElement} root
 * @param {import("../../section.js").SectionContext} context
 */
export function mount(root, context) {
  const { client, api, values, prefix, onChange, link, seed, service, signal } =
    sectionContext(context);
  const start = initial(params, values);
  const ui = panel(root, {
    chartHeight: 300,
    chartLabel: "Share of slow requests against fan-out",
  });
  const p = slider(ui.controls, {
    id: `${prefix}fanout-p`,
    label: "leaf slow probability p",
    min: -3,
    max: -0.699,
    step: 0.001,
    value: Math.log10(start["fanout-p"]).toFixed(3),
    format: (v) => formatPct(pOf(v), pOf(v) < 0.01 ? 2 : 1),
    valuetext: (v) => `p = ${formatPct(pOf(v), pOf(v) < 0.01 ? 2 : 1)}`,
  });
  const n = slider(ui.controls, {
    id: `${prefix}fanout-n`,
    label: "fan-out n",
    min: 0,
    max: FANOUT_STOPS.length - 1,
    // Fine enough to hold a link's n between two stops exactly; the reader's moves snap to stops.
    step: 0.0001,
    value: fanoutControl(start["fanout-n"]),
    format: (v) => String(fanoutOf(v)),
    valuetext: (v) => `n = ${fanoutOf(v)}`,
    // A small move (a key, assistive technology's increment) goes to the next stop its way; a
    // drag to the nearest stop.
    snap: (v, prev) =>
      Math.abs(v - prev) >= 0.5
        ? Math.round(v)
        : v > prev
          ? Math.ceil(v - 1e-9)
          : Math.floor(v + 1e-9),
  });
  const share = readout(ui.readouts, {
    name: "slow-share",
    label: "slow requests, simulated",
    theory: true,
  });
  // The request waits for all n leaves; its latency is the slowest one's.
  const latency = {
    parentMean: readout(ui.readouts, {
      name: "parent-mean",
      label: "request mean (slowest of n)",
      theory: true,
    }),
    parentP50: readout(ui.readouts, { name: "parent-p50", label: "request median", theory: true }),
    parentP99: readout(ui.readouts, { name: "parent-p99", label: "request p99", theory: true }),
    leafMean: readout(ui.readouts, { name: "leaf-mean", label: "one leaf's mean", theory: true }),
    leafP50: readout(ui.readouts, { name: "leaf-p50", label: "one leaf's median", theory: true }),
  };
  const { body, slow } = api.labDefaults().service;
  /** @type {import("../../api.js").FanoutLatencyResult | null} */
  let latencyResult = null;
  const dotNote = `Each dot is ${formatCount(REQUESTS)} simulated requests whose leaves are each slow with probability p, independently; the bar is its 95% binomial interval (narrower than the dot, it shows as the two caps either side of it).`;
  const dots = new Map();
  let theoryCurve = { xs: [], ys: [] };

  function draw(canvas = ui.canvas) {
    const c = chart(canvas, {
      legend: [
        { label: "1 − (1 − p)ⁿ", color: "theory" },
        { label: "simulated, 95% interval", color: "duplicate", shape: "square" },
      ],
      x: { type: "log", min: 1, max: 1000, label: "fan-out n (leaves per request)" },
      y: {
        type: "linear",
        min: 0,
        max: 1,
        label: "share of requests with a slow leaf",
        format: (v) => formatPct(v, 0),
      },
    });
    c.axes();
    c.line(theoryCurve.xs, theoryCurve.ys, { color: "theory", width: 2 });
    const points = [...dots.values()].map((d) => {
      const [lo, hi] = fanoutInterval(d);
      return { x: d.n, y: d.sim, lo, hi };
    });
    c.dots(points, { color: "duplicate", r: 5, shape: "square" });
    const chosen = nValue();
    c.vline(chosen, `n = ${chosen}`);
    c.done();
  }

  /** The chosen fan-out. */
  const nValue = () => fanoutOf(Number(n.input.value));

  const redraw = perFrame(() => draw());

  function update() {
    const pv = pOf(Number(p.input.value));
    const nv = nValue();
    onChange({ "fanout-p": pv, "fanout-n": nv });
    // The line depends on p alone: recomputed when p moves, not on every fan-out step.
    if (theoryCurve.p !== pv) {
      const xs = Array.from({ length: 121 }, (_, i) => Math.round(10 ** (i / 40)));
      theoryCurve = { p: pv, xs, ys: xs.map((k) => api.slowShare(pv, k)) };
    }
    const theory = api.slowShare(pv, nv);
    share.set("…", `theory ${formatPct(theory)}`);
    // The closed forms at once (under a millisecond); the simulated values as they arrive.
    // On the reader's own data the leaves are theirs, and p sets only the share of slow requests.
    const own = service.own;
    const exact = own
      ? api.fanoutLatencyTheory(pv, nv, service.value)
      : api.fanoutLatencyTheory(pv, nv);
    for (const [key, r] of Object.entries(latency)) r.set("…", `theory ${formatMs(exact[key])}`);
    latencyResult = null;
    const requests = latencyRequests(nv);
    ui.note.textContent = own
      ? `${dotNote} The latency readouts are ${formatCount(requests)} simulated requests of n leaves, each leaf drawn from ${service.label} (so p does not change them); a request takes as long as its slowest leaf.`
      : `${dotNote} The latency readouts are ${formatCount(requests)} simulated requests at this p and n, each leaf from the Lab's service model (a lognormal body around ${formatTickMs(body.medianMs)}, replaced with probability p by a slow mode around ${formatTickMs(slow.medianMs)}); a request takes as long as its slowest leaf.`;
    ui.canvas.setAttribute(
      "aria-label",
      `Share of requests with a slow leaf against fan-out, p = ${formatPct(pv, 2)}: theory ${formatPct(theory)} at n = ${nv}`,
    );
    dots.clear();
    const fanouts = [nv, ...DOT_FANOUTS.filter((k) => k !== nv)];
    // Call 0 is the latency run at the chosen (p, n); then the share's dots, the chosen n first.
    /** @type {import("../../sim.js").Call<"simulateFanoutLatency">} */
    const latencyCall = {
      fn: "simulateFanoutLatency",
      args: [
        own
          ? { service: service.value, n: nv, requests, seed: seed.value }
          : { p: pv, n: nv, requests, seed: seed.value },
      ],
    };
    /** @type {import("../../sim.js").Call<"simulateFanout">[]} */
    const shareCalls = fanouts.map((k) => ({
      fn: "simulateFanout",
      args: [{ p: pv, n: k, requests: REQUESTS, seed: seed.value }],
    }));
    const calls = [latencyCall, ...shareCalls];
    // Every call first at a hundredth and a tenth of its requests (runSweep): the dots' 95%
    // intervals shrink in place as the sample grows.
    runSweep(client, ui, calls, {
      size: "requests",
      onResult: (r, _final, i) => {
        if (i === 0) {
          const x = /** @type {import("../../api.js").FanoutLatencyResult} */ (r);
          latencyResult = x;
          for (const [key, out] of Object.entries(latency)) out.set(formatMs(x[key]));
          return;
        }
        const x = /** @type {import("../../api.js").FanoutResult} */ (r);
        dots.set(x.n, x);
        if (i === 1) share.set(formatPct(x.sim), `theory ${formatPct(x.theory)}`);
      },
      onError: (error, i) => {
        if (i !== 0) return share.set("error", error);
        for (const out of Object.values(latency)) out.set("—");
        latency.parentMean.set("error", error);
      },
      redraw,
    });
  }

  // The chart answers the pointer and the keyboard (web/touch.js): the exact values at the
  // nearest n, and the n = marker dragged or stepped moves the fan-out slider itself.
  touchChart(ui.canvas, {
    xs: () => [...new Set([...theoryCurve.xs, ...dots.keys()])].sort((a, b) => a - b),
    read: (k) => {
      const pv = pOf(Number(p.input.value));
      const theory = api.slowShare(pv, k);
      const d = dots.get(k);
      return {
        lines: [
          `n = ${k}`,
          `1 − (1 − p)ⁿ ${formatPct(theory)}`,
          ...(d ? [`simulated ${formatPct(d.sim)}`] : []),
        ],
        marks: [{ y: theory, color: "theory" }, ...(d ? [{ y: d.sim, color: "duplicate" }] : [])],
      };
    },
    marker: {
      input: n.input,
      value: nValue,
      toControl: (x) => String(nearestStop(x)),
      step: (k) => {
        const v = Number(n.input.value);
        const i = k > 0 ? Math.floor(v + 1e-9) : Math.ceil(v - 1e-9);
        return String(
          Math.min(
            FANOUT_STOPS.length - 1,
            Math.max(0, i + (Number.isFinite(k) ? k : k > 0 ? 1e9 : -1e9)),
          ),
        );
      },
    },
    redraw,
  });

  /** A dot at full size, or nothing: an export never writes a draft's numbers. */
  const full = (k) => {
    const d = dots.get(k);
    return d?.requests === REQUESTS ? d : undefined;
  };
  exportBar(ui.tools, {
    link,
    name: "fanout",
    title: "Share of slow requests against fan-out",
    canvas: ui.canvas,
    draw,
    meta: () => ({
      seed: seed.value,
      p: pOf(Number(p.input.value)),
      requests_per_dot: REQUESTS,
      // The latency run at the chosen n (ms), once it has answered.
      ...(latencyResult && {
        n: latencyResult.n,
        latency_requests: latencyResult.requests,
        request_mean_ms: latencyResult.parentMean,
        request_mean_std_err_ms: latencyResult.parentMeanStdErr,
        request_p50_ms: latencyResult.parentP50,
        request_p99_ms: latencyResult.parentP99,
        leaf_mean_ms: latencyResult.leafMean,
        leaf_p50_ms: latencyResult.leafP50,
        theory_request_mean_ms: latencyResult.theoryParentMean,
        theory_request_p50_ms: latencyResult.theoryParentP50,
        theory_request_p99_ms: latencyResult.theoryParentP99,
        theory_leaf_mean_ms: latencyResult.theoryLeafMean,
        theory_leaf_p50_ms: latencyResult.theoryLeafP50,
      }),
    }),
    table: () => ({
      header: ["n", "theory_share", "sim_share", "sim_std_err"],
      rows: [...new Set([...theoryCurve.xs, ...dots.keys()])]
        .sort((a, b) => a - b)
        .map((k) => [
          k,
          api.slowShare(pOf(Number(p.input.value)), k),
          full(k)?.sim,
          full(k)?.stdErr,
        ]),
    }),
  });
  const scheduled = perFrame(update);
  p.input.addEventListener("input", scheduled);
  n.input.addEventListener("input", scheduled);
  seed.watch(scheduled, signal);
  service.watch(scheduled, signal);
  redrawOnResize(ui.canvas, draw, signal);
  update();
}
