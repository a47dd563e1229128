// Balancer signals: best of d sampled servers when the balancer reads fresh or stale queue
// lengths, its own in-flight counts or a peak-EWMA of latency, beside round robin and random,
// with one server k× slower. Mean sojourn time against λ per signal, with the checks' closed
// forms drawn beside them: random's M/M/1 mean and the supermarket fixed point.

import { formatCount, formatNumber, formatPct } from "../../../format.js";
import { chart } from "../../plot.js";
import { exportBar } from "../../../export.js";
import {
  initial,
  panel,
  perFrame,
  readout,
  redrawOnResize,
  runSweep,
  settingsOf,
  slider,
  sectionContext,
  SweepResults,
} from "../../section.js";

/** Arrivals per run (the first tenth are warm-up). */
export const ARRIVALS = 50_000;
/** The arrival rates per server the section runs. */
export const LAMBDAS = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95];
/** The rate the readouts quote. */
export const QUOTED_LAMBDA = 0.9;
/** Servers (the core's default). */
export const SERVERS = 100;

/** The section's settings, as URL parameters and embed attributes. */
export const params = [
  { name: "bal-staleness", type: "float", min: 0, max: 200, step: 5, default: 50 },
  { name: "bal-slow", type: "float", min: 1, max: 10, step: 0.5, default: 1 },
  { name: "bal-d", type: "int", min: 1, max: 10, step: 1, default: 2 },
  { name: "bal-clients", type: "int", min: 1, max: 20, step: 1, default: 1 },
];

/** The signals drawn: name, label, colour, marker, hollow. */
export const SIGNALS = /** @type {const} */ ([
  ["fresh", "fresh queue lengths", "hedge", "circle", false],
  ["stale", "stale queue lengths", "duplicate", "triangle", false],
  ["inflight", "in-flight counts", "third", "diamond", true],
  ["ewma", "peak-EWMA latency", "third", "square", false],
  ["round-robin", "round robin", "none", "square", true],
  ["random", "random", "none", "circle", true],
]);

/** The λ axis. */
const X = {
  type: "linear",
  min: 0.475,
  max: 0.975,
  label: "λ, arrivals per server per mean service time",
  format: (v) => formatPct(v, 0),
};

/** A number for a readout: never NaN on screen. */
const num = (v) => (typeof v === "number" && Number.isFinite(v) ? formatNumber(v) : "—");

/**
 * Builds the section inside `root` (see lab/section.js for the context).
 * @param {HTMLElement} root
 * @param {import("../../section.js").SectionContext} context
 */
export function mount(root, context) {
  const { client, api, values, prefix, onChange, link, seed, signal } = sectionContext(context);
  const start = initial(settingsOf(params, api), values);
  const ui = panel(root, {
    chartHeight: 340,
    chartLabel: "Mean time in system against λ, per signal",
  });
  const staleness = slider(ui.controls, {
    id: `${prefix}bal-staleness`,
    label: "stale signal refreshed every (service times)",
    min: 0,
    max: 200,
    step: 5,
    value: start["bal-staleness"],
    format: (v) => (v === 0 ? "0 (fresh)" : String(v)),
  });
  const slow = slider(ui.controls, {
    id: `${prefix}bal-slow`,
    label: "one server slower by",
    min: 1,
    max: 10,
    step: 0.5,
    value: start["bal-slow"],
    format: (v) => `${v}×`,
  });
  const d = slider(ui.controls, {
    id: `${prefix}bal-d`,
    label: "servers sampled per arrival, d",
    min: 1,
    max: 10,
    step: 1,
    value: start["bal-d"],
  });
  const clients = slider(ui.controls, {
    id: `${prefix}bal-clients`,
    label: "balancers (clients)",
    min: 1,
    max: 20,
    step: 1,
    value: start["bal-clients"],
  });
  const q = formatPct(QUOTED_LAMBDA, 0);
  const r = {
    fresh: readout(ui.readouts, {
      name: "fresh-mean",
      label: `fresh, mean at λ = ${q}`,
      theory: true,
    }),
    stale: readout(ui.readouts, {
      name: "stale-mean",
      label: `stale, mean at λ = ${q}`,
      theory: true,
    }),
    random: readout(ui.readouts, {
      name: "random-mean",
      label: `random, mean at λ = ${q}`,
      theory: true,
    }),
    ewma: readout(ui.readouts, { name: "ewma-mean", label: `peak-EWMA, mean at λ = ${q}` }),
    slowEwma: readout(ui.readouts, {
      name: "ewma-slow-load",
      label: `slow server's load at λ = ${q}, peak-EWMA`,
      theory: true,
    }),
  };

  const results = new SweepResults();
  let pending = "…";
  const key = (s, i) => `${s}@${i}`;
  const qi = LAMBDAS.indexOf(QUOTED_LAMBDA);
  const quoted = (s) => results.get(key(s, qi));

  function show() {
    const [f, st, rn, ew] = ["fresh", "stale", "random", "ewma"].map(quoted);
    if (!f || !st || !rn || !ew) {
      for (const x of Object.values(r)) x.set(pending, "");
      return;
    }
    r.fresh.set(num(f.mean), `fixed point ${num(f.fixedPoint)}`);
    r.stale.set(num(st.mean), `random ${num(rn.mean)}`);
    r.random.set(
      num(rn.mean),
      rn.randomTheory === null ? "M/M/1: slow server overloaded" : `M/M/1 ${num(rn.randomTheory)}`,
    );
    r.ewma.set(num(ew.mean), "");
    r.slowEwma.set(num(ew.slowLoad), `random ${num(rn.slowLoad)}`);
  }

  const series = (s, f) =>
    LAMBDAS.map((_, i) => {
      const e = results.get(key(s, i));
      const v = e ? f(e) : null;
      return typeof v === "number" && Number.isFinite(v) ? v : Number.NaN;
    });

  function draw(canvas = ui.canvas) {
    const c = chart(canvas, {
      legend: [
        ...SIGNALS.map(([, label, color, shape, hollow]) => ({
          label,
          color,
          shape,
          hollow,
          width: 2,
        })),
        { label: "random, M/M/1", color: "theory", dash: [6, 4], width: 1.5 },
        { label: "fixed point", color: "theory", dash: [2, 3], width: 1.5 },
      ],
      legendCorner: "left",
      x: X,
      y: { type: "log", min: 1, max: 200, label: "mean time in system", format: formatNumber },
    });
    c.axes();
    const first = SIGNALS[0][0];
    c.line(
      LAMBDAS,
      series(first, (e) => e.randomTheory),
      { color: "theory", width: 1.5, dash: [6, 4] },
    );
    c.line(
      LAMBDAS,
      series(first, (e) => e.fixedPoint),
      { color: "theory", width: 1.5, dash: [2, 3] },
    );
    for (const [s, , color, shape, hollow] of SIGNALS) {
      const ys = series(s, (e) => e.mean);
      c.line(LAMBDAS, ys, { color, width: 2 });
      c.dots(
        LAMBDAS.map((x, i) => {
          const e = results.get(key(s, i));
          return { x, y: ys[i], lo: e?.meanLow ?? undefined, hi: e?.meanHigh ?? undefined };
        }),
        { color, shape, r: 4, hollow },
      );
    }
    c.done();
  }
  const redrawSoon = perFrame(() => draw());

  function describe() {
    const [f, st, rn] = ["fresh", "stale", "random"].map(quoted);
    if (!f || !st || !rn) return;
    ui.canvas.setAttribute(
      "aria-label",
      `Mean time in system against λ, per signal. At λ = ${q}: fresh ${num(f.mean)}, stale ${num(st.mean)}, random ${num(rn.mean)} mean service times.`,
    );
  }

  function update() {
    const v = {
      "bal-staleness": Number(staleness.input.value),
      "bal-slow": Number(slow.input.value),
      "bal-d": Number(d.input.value),
      "bal-clients": Number(clients.input.value),
    };
    onChange(v);
    results.clear();
    pending = "…";
    show();
    ui.note.textContent = `${formatCount(ARRIVALS)} arrivals a run on ${SERVERS} FIFO servers with exponential service of mean 1 (this model's own service, not the Lab's), split among ${v["bal-clients"]} balancer${v["bal-clients"] === 1 ? "" : "s"}; each arrival samples ${v["bal-d"]} server${v["bal-d"] === 1 ? "" : "s"}. The stale signal is refreshed every ${v["bal-staleness"]} service times; one server is ${v["bal-slow"]}× slower. Bars are 95% intervals by batch means. Dashed: random's closed form (every server M/M/1; none where the slow server is overloaded); dotted: the supermarket fixed point (best of d, fresh, identical servers, N → ∞).`;
    /** @type {{ s: string, i: number }[]} */
    const points = [];
    const calls = [];
    for (const [i, lambda] of LAMBDAS.entries()) {
      for (const [s] of SIGNALS) {
        points.push({ s, i });
        calls.push({
          fn: "simulateBalancerSignals",
          args: [
            {
              signal: s,
              lambda,
              d: v["bal-d"],
              staleness: v["bal-staleness"],
              slowFactor: v["bal-slow"],
              clients: v["bal-clients"],
              arrivals: ARRIVALS,
              seed: seed.value,
            },
          ],
        });
      }
    }
    ui.progress(0, calls.length);
    runSweep(client, ui, calls, {
      size: "arrivals",
      onError: (error) => {
        pending = "—";
        show();
        r.fresh.set("error", error);
      },
      onResult: (res, final, point) => {
        const p = points[point];
        results.set(key(p.s, p.i), res, final);
        show();
        describe();
      },
      onDiscard: (point) => results.discard(key(points[point].s, points[point].i)),
      redraw: redrawSoon,
    });
  }

  exportBar(ui.tools, {
    link,
    name: "balancer",
    title: "Mean time in system against λ, per signal",
    canvas: ui.canvas,
    draw,
    meta: () => ({
      seed: seed.value,
      arrivals: ARRIVALS,
      staleness: staleness.input.value,
      slow_factor: slow.input.value,
      d: d.input.value,
      clients: clients.input.value,
    }),
    table: () => ({
      header: ["signal", "lambda", "mean", "mean_low", "mean_high", "p99", "slow_share"],
      rows: results
        .finals()
        .sort((x, y) => x.lambda - y.lambda || x.signal.localeCompare(y.signal))
        .map((e) => [e.signal, e.lambda, e.mean, e.meanLow, e.meanHigh, e.p99, e.slowShare]),
    }),
  });
  for (const s of [staleness, slow, d, clients]) s.input.addEventListener("input", update);
  seed.watch(update, signal);
  redrawOnResize(ui.canvas, draw, signal);
  update();
}
