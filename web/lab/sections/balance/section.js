// The power of two choices: mean time in system against λ for random assignment and
// best of 2 and 3, simulated on the core's servers (100), beside 1/(1 − λ) and Mitzenmacher's fixed point.

import { formatCount, formatNumber } from "../../../format.js";
import { chart } from "../../plot.js";
import { exportBar } from "../../../export.js";
import {
  LabSeed,
  choice,
  initial,
  panel,
  perFrame,
  readout,
  redrawOnResize,
  settingsOf,
  slider,
} from "../../section.js";

/** λ with a simulated dot for every d (the chosen λ is added). */
const DOT_LAMBDAS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99];
/** How each policy is drawn and named; the policies and their d are the core's (`labDefaults()`). */
const CHOICE_STYLE = {
  random: { label: "random (d = 1)", color: "none", shape: "circle" },
  two: { label: "best of two", color: "hedge", shape: "square" },
  three: { label: "best of three", color: "third", shape: "triangle" },
};
/** The core's balancing policies, `[{ d, policy, label, color, shape }]` in order of d. */
const choicesOf = (lab) =>
  Object.entries(lab.balance.policies)
    .sort((a, b) => a[1] - b[1])
    .map(([policy, d]) => ({
      d,
      policy,
      ...(Object.hasOwn(CHOICE_STYLE, policy)
        ? CHOICE_STYLE[policy]
        : { label: `best of ${d}`, color: "duplicate", shape: "circle" }),
    }));
const ARRIVALS = 1_000_000;

/** The section's settings, as URL parameters and embed attributes. */
export const params = [
  { name: "balance-lambda", type: "float", min: 0.1, max: 0.99, step: 0.01, default: 0.9 },
  {
    name: "balance-d",
    type: "enum",
    values: (lab) => choicesOf(lab).map((c) => String(c.d)),
    default: "2",
  },
];

/**
 * Builds the section inside `root` (see lab/section.js for the context).
 * @param {HTMLElement} root
 * @param {import("../../section.js").SectionContext} context
 */
export function mount(
  root,
  { client, api, values, prefix = "", onChange = () => {}, link, seed = new LabSeed(), signal },
) {
  const lab = api.labDefaults();
  const CHOICES = choicesOf(lab);
  const servers = lab.balance.servers;
  const start = initial(settingsOf(params, api), values);
  const ui = panel(root, {
    chartHeight: 320,
    chartLabel: "Mean time in system against arrival rate",
  });
  const lambda = slider(ui.controls, {
    id: `${prefix}balance-lambda`,
    label: "arrival rate λ",
    min: 0.1,
    max: 0.99,
    step: 0.01,
    value: start["balance-lambda"],
    format: (v) => v.toFixed(2),
  });
  const d = choice(ui.controls, {
    id: `${prefix}balance-d`,
    label: "servers sampled d",
    value: String(start["balance-d"]),
    options: CHOICES.map((c) => [String(c.d), c.label]),
  });
  const r = {
    mean: readout(ui.readouts, { name: "mean-time", label: "mean time, simulated" }),
    theory: readout(ui.readouts, { name: "theory", label: "fixed point (N → ∞)" }),
  };
  const results = new Map();
  /** Why points are missing, when no worker could compute them (shown as "—", not "…"). */
  let failure = null;
  const key = (l, k) => `${l}|${k}`;
  const chosenLambda = () => Number(Number(lambda.input.value).toFixed(2));
  const xs = Array.from({ length: 200 }, (_, i) => 0.005 * (i + 1));
  const curves = CHOICES.map((c) => xs.map((l) => api.fixedPointMeanTime(l, c.d) ?? NaN));

  function draw(canvas = ui.canvas) {
    const c = chart(canvas, {
      x: {
        type: "linear",
        min: 0,
        max: 1,
        label: "arrival rate per server λ (service rate 1)",
        format: (v) => v.toFixed(1),
      },
      y: { type: "log", min: 1, max: 200, label: "mean time in system (service times)" },
    });
    c.axes();
    for (const [i, ch] of CHOICES.entries()) {
      c.line(xs, curves[i], { color: ch.color, width: 1.5, dash: ch.d === 1 ? [] : [6, 3] });
    }
    for (const ch of CHOICES) {
      const pts = [...results.values()]
        .filter((x) => x.d === ch.d && x.stable)
        .map((x) => ({ x: x.lambda, y: x.meanTime }));
      c.dots(pts, { color: ch.color, shape: ch.shape, r: 3.5 });
    }
    c.vline(chosenLambda(), `λ = ${chosenLambda().toFixed(2)}`);
    // The chosen point, larger, with its value.
    const chosen = CHOICES.find((ch) => ch.d === Number(d.value));
    const x = results.get(key(chosenLambda(), chosen.d));
    if (x?.stable) {
      c.dots([{ x: x.lambda, y: x.meanTime }], {
        color: chosen.color,
        shape: chosen.shape,
        r: 6.5,
      });
      c.label(x.lambda, x.meanTime, `d = ${chosen.d}: ${formatNumber(x.meanTime)}`, {
        color: chosen.color,
        align: x.lambda > 0.7 ? "right" : "left",
        dy: -10,
      });
    }
    c.legend([
      ...CHOICES.map((ch) => ({
        label: `${ch.label}, simulated`,
        color: ch.color,
        shape: ch.shape,
      })),
      { label: "1/(1 − λ)", color: "none", width: 1.5 },
      {
        label: `fixed point, d = ${CHOICES.filter((ch) => ch.d > 1)
          .map((ch) => ch.d)
          .join(", ")}`,
        color: "ink",
        dash: [6, 3],
        width: 1.5,
      },
    ]);
  }

  function showChosen() {
    const l = chosenLambda(),
      k = Number(d.value);
    onChange({ "balance-lambda": l, "balance-d": String(k) });
    const x = results.get(key(l, k));
    const theory = api.fixedPointMeanTime(l, k);
    r.theory.set(formatNumber(theory));
    r.mean.set(x ? formatNumber(x.meanTime) : failure ? "—" : "…");
    ui.canvas.setAttribute(
      "aria-label",
      `Mean time in system against λ for d = ${CHOICES.map((c) => c.d).join(", ")} on ${servers} servers. At λ = ${l.toFixed(2)}, d = ${k}: simulated ${x ? formatNumber(x.meanTime) : "pending"}, fixed point ${formatNumber(theory)}.`,
    );
  }

  const refresh = perFrame(() => {
    showChosen();
    draw();
  });

  function update() {
    const chosen = chosenLambda();
    const lambdas = [chosen, ...DOT_LAMBDAS.filter((l) => l !== chosen)];
    const k = Number(d.value);
    // The chosen point first, then the chosen d's dots, then the others.
    const order = [
      ...lambdas.map((l) => [l, k]),
      ...lambdas.flatMap((l) => CHOICES.filter((c) => c.d !== k).map((c) => [l, c.d])),
    ];
    /** @type {import("../../sim.js").Call<"simulateBalance">[]} */
    const calls = order.map(([l, dd]) => ({
      fn: "simulateBalance",
      args: [{ lambda: l, d: dd, arrivals: ARRIVALS, seed: seed.value }],
    }));
    failure = null;
    client.run(calls, {
      onPoint: (_, x, error) => {
        if (error) {
          failure = error;
          return r.mean.set("error", error);
        }
        results.set(key(x.lambda, x.d), x);
      },
      // One redraw per batch of answers (cached ones arrive together), not one per point.
      onProgress: (done, total) => {
        ui.progress(done, total);
        refresh();
      },
    });
  }

  ui.note.textContent = `${formatCount(ARRIVALS)} arrivals per dot on ${servers} servers with exponential service; the first tenth are warm-up. The fixed point is the limit of infinitely many servers, so at ${servers} the dots sit slightly above it. Near λ = 1 random assignment relaxes slowly (its queues need of order 1/(1 − √λ)² service times to settle): at λ = 0.99 a million arrivals fall well short of 1/(1 − λ) = 100.`;
  exportBar(ui.tools, {
    link,
    name: "balance",
    title: "Mean time in system against arrival rate",
    canvas: ui.canvas,
    draw,
    meta: () => ({
      seed: seed.value,
      servers,
      arrivals_per_dot: ARRIVALS,
      time_unit: "mean service time",
    }),
    table: () => ({
      header: ["lambda", "d", "sim_mean_time", "sim_p99", "fixed_point_mean_time"],
      rows: [...results.values()]
        .sort((a, b) => a.lambda - b.lambda || a.d - b.d)
        .map((x) => [x.lambda, x.d, x.meanTime, x.p99, x.theory]),
    }),
  });
  lambda.input.addEventListener("input", perFrame(update));
  d.addEventListener("change", update);
  // Another seed: every dot is drawn again, none kept from the old one.
  seed.watch(() => {
    results.clear();
    update();
  }, signal);
  redrawOnResize(ui.canvas, draw, signal);
  update();
}
