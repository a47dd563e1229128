// Balancer signals: best of d sampled servers when the balancer reads fresh or stale queue
// lengths, its own in-flight counts or a peak-EWMA of latency, beside round robin and random,
// with one server k× slower. Mean or p99 sojourn time against λ per signal, with the checks'
// closed forms drawn beside them: random's M/M/1 values and the supermarket fixed point's.
// A run whose slow server's queue grew all run (the core's `unbounded`) has no steady state to
// draw: its point is left out and named in the note.

import { formatCount, formatNumber, formatPct } from "../../../format.js";
import { chart } from "../../plot.js";
import { exportBar } from "../../../export.js";
import { touchChart } from "../../../touch.js";
import {
  choice,
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

/** The arrival rates per server the section runs. */
export const LAMBDAS = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95];
/**
 * The arrivals of the run at each of LAMBDAS (the first tenth are warm-up). Every run starts
 * empty, and random's queues (each M/M/1) take about 1/(1 − √λ)² service times to fill: a run
 * that ends too soon reads low. Each run here lasts at least five of those times (a node test
 * says so); 50,000 arrivals at λ = 0.9 lasted one and a half, and random's mean read 9.0
 * against 10 (eight seeds), where 200,000 read 9.9. Bars need seventeen (the core's
 * `BAR_RELAXATIONS`: shorter batches are correlated and their bars cover too little), which
 * every run up to λ = 0.9 lasts; the 1,000,000 at 0.95, the API's most, last seven, so the
 * points there have no bars.
 */
export const RUN_ARRIVALS = [50_000, 50_000, 50_000, 125_000, 600_000, 1_000_000];
/** The rate the readouts quote. */
export const QUOTED_LAMBDA = 0.9;
/** The arrivals of the quoted rate's runs. */
export const ARRIVALS = RUN_ARRIVALS[LAMBDAS.indexOf(QUOTED_LAMBDA)];
/** Servers (the core's default). */
export const SERVERS = 100;

/** The section's settings, as URL parameters and embed attributes. */
export const params = [
  { name: "bal-staleness", type: "float", min: 0, max: 200, step: 5, default: 50 },
  { name: "bal-slow", type: "float", min: 1, max: 10, step: 0.5, default: 1 },
  { name: "bal-d", type: "int", min: 1, max: 10, step: 1, default: 2 },
  { name: "bal-clients", type: "int", min: 1, max: 20, step: 1, default: 1 },
  { name: "bal-measure", type: "enum", values: ["mean", "p99"], default: "mean" },
];

/** What the chart can show: the result's field, its closed forms' fields, the y axis's top. */
export const MEASURES = {
  mean: {
    label: "mean time in system",
    field: "mean",
    low: "meanLow",
    high: "meanHigh",
    random: "randomTheory",
    fixedPoint: "fixedPoint",
    max: 200,
  },
  p99: {
    label: "p99 time in system",
    field: "p99",
    low: "p99Low",
    high: "p99High",
    random: "randomTheoryP99",
    fixedPoint: "fixedPointP99",
    max: 1000,
  },
};

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
    chartLabel: "Mean or p99 time in system against λ, per signal",
  });
  const staleness = paramSlider(ui.controls, params, "bal-staleness", {
    prefix,
    label: "stale signal refreshed every (service times)",
    value: start["bal-staleness"],
    format: (v) => (v === 0 ? "0 (fresh)" : String(v)),
  });
  const slow = paramSlider(ui.controls, params, "bal-slow", {
    prefix,
    label: "one server slower by",
    value: start["bal-slow"],
    format: (v) => `${v}×`,
  });
  const d = paramSlider(ui.controls, params, "bal-d", {
    prefix,
    label: "servers sampled per arrival, d",
    value: start["bal-d"],
  });
  const clients = paramSlider(ui.controls, params, "bal-clients", {
    prefix,
    label: "balancers (clients)",
    value: start["bal-clients"],
  });
  const measure = choice(ui.controls, {
    id: `${prefix}bal-measure`,
    label: "chart shows",
    value: start["bal-measure"],
    options: [
      ["mean", "mean time in system"],
      ["p99", "p99 time in system"],
    ],
  });
  const q = formatPct(QUOTED_LAMBDA, 0);
  const r = {
    fresh: readout(ui.readouts, {
      name: "fresh-mean",
      label: `fresh, mean at λ = ${q}`,
      theory: true,
    }),
    freshP99: readout(ui.readouts, {
      name: "fresh-p99",
      label: `fresh, p99 at λ = ${q}`,
      theory: true,
    }),
    stale: readout(ui.readouts, {
      name: "stale-mean",
      label: `stale, mean at λ = ${q}`,
      theory: true,
    }),
    staleP99: readout(ui.readouts, {
      name: "stale-p99",
      label: `stale, p99 at λ = ${q}`,
      theory: true,
    }),
    random: readout(ui.readouts, {
      name: "random-mean",
      label: `random, mean at λ = ${q}`,
      theory: true,
    }),
    randomP99: readout(ui.readouts, {
      name: "random-p99",
      label: `random, p99 at λ = ${q}`,
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

  /** A run's value for a readout: its number, or what its unbounded queue makes of it. */
  const val = (e, v) => (e.unbounded ? "unbounded" : num(v));
  /** Random's closed form, or why there is none. */
  const randomForm = (v) => (v === null ? "none (overloaded)" : `closed form ${num(v)}`);

  function show() {
    const [f, st, rn, ew] = ["fresh", "stale", "random", "ewma"].map(quoted);
    if (!f || !st || !rn || !ew) {
      for (const x of Object.values(r)) x.set(pending, "");
      return;
    }
    r.fresh.set(val(f, f.mean), `fixed point ${num(f.fixedPoint)}`);
    r.freshP99.set(val(f, f.p99), `fixed point ${num(f.fixedPointP99)}`);
    r.stale.set(val(st, st.mean), `random ${val(rn, rn.mean)}`);
    r.staleP99.set(val(st, st.p99), `random ${val(rn, rn.p99)}`);
    r.random.set(val(rn, rn.mean), randomForm(rn.randomTheory));
    r.randomP99.set(val(rn, rn.p99), randomForm(rn.randomTheoryP99));
    r.ewma.set(val(ew, ew.mean), "");
    r.slowEwma.set(num(ew.slowLoad), `random ${num(rn.slowLoad)}`);
  }

  /** The values of `f` along λ; NaN (a gap) where there is no run yet or it is unbounded. */
  const series = (s, f) =>
    LAMBDAS.map((_, i) => {
      const e = results.get(key(s, i));
      const v = e && !e.unbounded ? f(e) : null;
      return typeof v === "number" && Number.isFinite(v) ? v : Number.NaN;
    });

  /** The y axis's top: the measure's usual top, or the next power of ten above a larger value. */
  function yTop(m) {
    let top = m.max;
    for (const [s] of SIGNALS)
      for (const v of series(s, (e) => Math.max(e[m.field], e[m.high] ?? 0)))
        if (Number.isFinite(v) && v > top) top = 10 ** Math.ceil(Math.log10(v * 1.05));
    return top;
  }

  function draw(canvas = ui.canvas) {
    const m = MEASURES[/** @type {"mean" | "p99"} */ (measure.value)];
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
      y: { type: "log", min: 1, max: yTop(m), label: m.label, format: formatNumber },
    });
    c.axes();
    // The closed forms depend on λ, d and k only: read them from any signal's runs.
    const first = SIGNALS[0][0];
    const form = (field) =>
      LAMBDAS.map((_, i) => {
        const v = results.get(key(first, i))?.[field];
        return typeof v === "number" && Number.isFinite(v) ? v : Number.NaN;
      });
    c.line(LAMBDAS, form(m.random), { color: "theory", width: 1.5, dash: [6, 4] });
    c.line(LAMBDAS, form(m.fixedPoint), { color: "theory", width: 1.5, dash: [2, 3] });
    for (const [s, , color, shape, hollow] of SIGNALS) {
      const ys = series(s, (e) => e[m.field]);
      c.line(LAMBDAS, ys, { color, width: 2 });
      c.dots(
        LAMBDAS.map((x, i) => {
          const e = results.get(key(s, i));
          return { x, y: ys[i], lo: e?.[m.low] ?? undefined, hi: e?.[m.high] ?? undefined };
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
    const m = MEASURES[/** @type {"mean" | "p99"} */ (measure.value)];
    const at = (e) => (e.unbounded ? "unbounded" : `${num(e[m.field])} service times`);
    ui.canvas.setAttribute(
      "aria-label",
      `${m.label[0].toUpperCase()}${m.label.slice(1)} against λ, per signal. At λ = ${q}: fresh ${at(f)}, stale ${at(st)}, random ${at(rn)}.`,
    );
    noteUnbounded();
  }

  /** The note, with the runs left off the chart because the slow server's queue grew all run. */
  let baseNote = "";
  function noteUnbounded() {
    const off = SIGNALS.flatMap(([s, label]) => {
      const at = LAMBDAS.filter((_, i) => results.get(key(s, i))?.unbounded);
      return at.length ? [`${label} at λ = ${at.map((l) => formatPct(l, 0)).join(", ")}`] : [];
    });
    const text = off.length
      ? `${baseNote} Not drawn, because a queue grew for the whole run (the slow server was sent as much as or more than it can serve, or all the servers together were), so the times measure the run's length, not a steady state: ${off.join("; ")}.`
      : baseNote;
    if (ui.note.textContent !== text) ui.note.textContent = text;
  }

  /** The settings as the URL and the embed attributes carry them. */
  const settings = () => ({
    "bal-staleness": Number(staleness.input.value),
    "bal-slow": Number(slow.input.value),
    "bal-d": Number(d.input.value),
    "bal-clients": Number(clients.input.value),
    "bal-measure": measure.value,
  });

  function update() {
    const v = settings();
    onChange(v);
    results.clear();
    pending = "…";
    show();
    baseNote = `${formatCount(RUN_ARRIVALS[0])} arrivals a run (${formatCount(ARRIVALS)} at λ = ${q}, ${formatCount(RUN_ARRIVALS.at(-1) ?? 0)} at ${formatPct(LAMBDAS.at(-1) ?? 0, 0)}, so that the queues settle from empty) on ${SERVERS} FIFO servers with exponential service of mean 1 (this model's own service, not the Lab's), split among ${v["bal-clients"]} balancer${v["bal-clients"] === 1 ? "" : "s"}; each arrival samples ${v["bal-d"]} server${v["bal-d"] === 1 ? "" : "s"}. The stale signal is ${v["bal-staleness"] === 0 ? "the fresh one (refreshed continuously)" : `refreshed every ${v["bal-staleness"]} service times`}; one server is ${v["bal-slow"]}× slower. Bars are 95% intervals by batch means over five batches of consecutive arrivals. Near saturation a queue remembers its past for a long time, so a run has bars only when it lasts seventeen relaxation times of its slowest queue, m/(1 − √ρ)² for a server of mean service m at load ρ (three a batch): over 200 seeds random's bars at λ = 90% then held its closed form in 94.5% of the runs (mean) and 93% (p99), where the 200,000-arrival runs before, one relaxation time a batch, held it in 88.5% and 86.5%. The runs at 95% last seven and have no bars; a run shorter than five has not settled from its empty start either. Dashed: random's closed form (every server M/M/1; none where the slow server is overloaded); dotted: the supermarket fixed point (best of d, fresh, identical servers, N → ∞).`;
    noteUnbounded();
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
              arrivals: RUN_ARRIVALS[i],
              seed: seed.value,
            },
          ],
        });
      }
    }
    ui.progress(0, calls.length);
    runSweep(client, ui, calls, {
      size: "arrivals",
      // The core's least run (`arrivals` 1,000..=10⁶): a 1/100 draft of 50,000 would be refused.
      minSize: 1000,
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
    title: "Time in system against λ, per signal",
    canvas: ui.canvas,
    draw,
    meta: () => ({
      seed: seed.value,
      arrivals: RUN_ARRIVALS.join(" "),
      staleness: staleness.input.value,
      slow_factor: slow.input.value,
      d: d.input.value,
      clients: clients.input.value,
      measure: measure.value,
    }),
    table: () => ({
      header: [
        "signal",
        "lambda",
        "unbounded",
        "mean",
        "mean_low",
        "mean_high",
        "p99",
        "p99_low",
        "p99_high",
        "slow_share",
        "random_theory",
        "random_theory_p99",
        "fixed_point",
        "fixed_point_p99",
      ],
      rows: results
        .finals()
        .sort((x, y) => x.lambda - y.lambda || x.signal.localeCompare(y.signal))
        .map((e) => [
          e.signal,
          e.lambda,
          e.unbounded,
          e.mean,
          e.meanLow,
          e.meanHigh,
          e.p99,
          e.p99Low,
          e.p99High,
          e.slowShare,
          e.randomTheory,
          e.randomTheoryP99,
          e.fixedPoint,
          e.fixedPointP99,
        ]),
    }),
  });
  // The chart answers the pointer and the keyboard (web/touch.js): every signal's value at the
  // nearest λ in the measure shown, "unbounded" where its queue grew all run, and the closed
  // forms.
  touchChart(ui.canvas, {
    xs: () => LAMBDAS.filter((_, i) => SIGNALS.some(([s]) => results.get(key(s, i)))),
    read: (l) => {
      const i = LAMBDAS.indexOf(l);
      if (i < 0) return null;
      const m = MEASURES[/** @type {"mean" | "p99"} */ (measure.value)];
      const first = results.get(key(SIGNALS[0][0], i));
      const lines = [`λ = ${formatPct(l, 0)}, ${m.label}`];
      /** @type {{ y: number, color: string }[]} */
      const marks = [];
      for (const [s, label, color] of SIGNALS) {
        const e = results.get(key(s, i));
        if (!e) continue;
        lines.push(`${label}: ${val(e, e[m.field])}`);
        if (!e.unbounded) marks.push({ y: e[m.field], color });
      }
      if (first) {
        lines.push(
          `random, closed form: ${first[m.random] === null ? "none (overloaded)" : num(first[m.random])}`,
        );
        lines.push(`fixed point: ${num(first[m.fixedPoint])}`);
      }
      return { lines, marks };
    },
    redraw: redrawSoon,
  });
  for (const s of [staleness, slow, d, clients]) s.input.addEventListener("input", update);
  // Switching the measure redraws what is there: the runs carry both.
  measure.addEventListener("change", () => {
    onChange(settings());
    redrawSoon();
    describe();
  });
  seed.watch(update, signal);
  redrawOnResize(ui.canvas, draw, signal);
  update();
}
