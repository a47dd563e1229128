// The power of two choices: mean time in system against λ for random assignment and
// best of 2 and 3, simulated on the core's servers (100), beside 1/(1 − λ) and Mitzenmacher's fixed point.
// Below the chart, the fixed point itself at the chosen λ: the share sᵢ of servers holding at
// least i jobs for each d (the core's `fixedPointShare`), beside each run's measured share.

import { formatCount, formatNumber, superscript } from "../../../format.js";
import { chart } from "../../plot.js";
import { touchChart } from "../../../touch.js";
import { exportBar } from "../../../export.js";
import { mountBalanceQueues } from "./queues.js";
import {
  choice,
  el,
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
/** The levels i the fixed-point table shows (the runs measure a few more). */
const TABLE_LEVELS = [1, 2, 3, 4, 5, 6];
/**
 * A share of servers as the table shows it: a percentage down to 0.1%, then a power of ten
 * ("2.9 × 10⁻⁶"), "0" when no server ever held that many, "—" when absent.
 * @param {number | null | undefined} x
 */
export function formatShare(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return "—";
  if (x === 0) return "0";
  if (x >= 0.001) return `${(100 * x).toPrecision(3)}%`;
  const [mantissa, exponent] = x.toExponential(1).split("e");
  const power = superscript(Number(exponent));
  return `${mantissa} × 10${power}`;
}
/** Each dot's length is planned for a precision (the core's run-length rule for "balance"). */
const ARRIVALS = "auto";

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
export function mount(root, context) {
  const { client, api, values, prefix, onChange, link, seed, signal } = sectionContext(context);
  const lab = api.labDefaults();
  const CHOICES = choicesOf(lab);
  const servers = lab.balance.servers;
  const start = initial(settingsOf(params, api), values);
  const ui = panel(root, {
    chartHeight: 320,
    chartLabel: "Mean time in system against arrival rate",
  });
  const lambda = paramSlider(ui.controls, params, "balance-lambda", {
    prefix,
    label: "arrival rate λ",
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
    precision: readout(ui.readouts, {
      name: "balance-precision",
      label: "bars: mean · p99",
      theory: true,
    }),
  };
  const shares = shareTable(ui.note, CHOICES, servers, prefix);
  const results = new SweepResults();
  /** Why points are missing, when no worker could compute them (shown as "—", not "…"). */
  let failure = null;
  const key = (l, k) => `${l}|${k}`;
  const chosenLambda = () => Number(Number(lambda.input.value).toFixed(2));
  const xs = Array.from({ length: 200 }, (_, i) => 0.005 * (i + 1));
  const curves = CHOICES.map((c) => xs.map((l) => api.fixedPointMeanTime(l, c.d) ?? NaN));

  function draw(canvas = ui.canvas) {
    const c = chart(canvas, {
      legend: [
        ...CHOICES.map((ch) => ({
          label: `${ch.label}, simulated, 95% interval`,
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
      ],
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
        .map((x) => ({ x: x.lambda, y: x.meanTime, lo: x.meanLow, hi: x.meanHigh }));
      c.dots(pts, { color: ch.color, shape: ch.shape, r: 5 });
    }
    c.vline(chosenLambda(), `λ = ${chosenLambda().toFixed(2)}`);
    // The chosen point, larger, with its value.
    const chosen = CHOICES.find((ch) => ch.d === Number(d.value));
    const x = results.get(key(chosenLambda(), chosen.d));
    if (x?.stable) {
      c.dots([{ x: x.lambda, y: x.meanTime }], {
        color: chosen.color,
        shape: chosen.shape,
        r: 7.5,
      });
      c.label(x.lambda, x.meanTime, `d = ${chosen.d}: ${formatNumber(x.meanTime)}`, {
        color: chosen.color,
        align: x.lambda > 0.7 ? "right" : "left",
        dy: -10,
      });
    }
    c.done();
  }

  function showChosen() {
    const l = chosenLambda(),
      k = Number(d.value);
    onChange({ "balance-lambda": l, "balance-d": String(k) });
    const x = results.get(key(l, k));
    const theory = api.fixedPointMeanTime(l, k);
    r.theory.set(formatNumber(theory));
    r.mean.set(x ? formatNumber(x.meanTime) : failure ? "—" : "…");
    const reached = x?.stable && precisionText(x, x.precision.length, "arrivals");
    r.precision.set(reached ? reached.value : failure ? "—" : "…", reached ? reached.detail : "");
    shares.show(
      l,
      (dd, i) => api.fixedPointShare(l, dd, i),
      (dd) => results.get(key(l, dd)),
      failure ? "—" : "…",
    );
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
    results.startSweep();
    const chosen = chosenLambda();
    const lambdas = [chosen, ...DOT_LAMBDAS.filter((l) => l !== chosen)];
    const k = Number(d.value);
    // The chosen point first, then the other d at the chosen λ (the table's columns), then
    // the chosen d's dots, then the others.
    const order = [
      [chosen, k],
      ...CHOICES.filter((c) => c.d !== k).map((c) => [chosen, c.d]),
      ...lambdas.slice(1).map((l) => [l, k]),
      ...lambdas.slice(1).flatMap((l) => CHOICES.filter((c) => c.d !== k).map((c) => [l, c.d])),
    ];
    /** @type {import("../../sim.js").Call<"simulateBalance">[]} */
    const calls = order.map(([l, dd]) => ({
      fn: "simulateBalance",
      args: [{ lambda: l, d: dd, arrivals: ARRIVALS, seed: seed.value }],
    }));
    failure = null;
    runSweep(client, ui, calls, {
      size: "arrivals",
      onResult: (x, final) => results.set(key(x.lambda, x.d), x, final),
      onDiscard: (i) => results.discard(key(calls[i].args[0].lambda, calls[i].args[0].d)),
      onError: (error) => {
        failure = error;
        r.mean.set("error", error);
      },
      redraw: refresh,
    });
  }

  // The chart answers the pointer and the keyboard (web/touch.js): the exact values at the
  // nearest λ (the fixed points' grid and the dots), and the λ = marker moves the λ slider.
  touchChart(ui.canvas, {
    xs: () =>
      [
        ...new Set([
          ...xs.map((v) => Number(v.toFixed(3))),
          ...[...results.values()].map((x) => x.lambda),
        ]),
      ].sort((a, b) => a - b),
    read: (l) => ({
      lines: [
        // Two decimals as the slider shows λ, three on the fixed points' finer grid.
        `λ = ${Math.abs(l * 100 - Math.round(l * 100)) < 1e-6 ? l.toFixed(2) : l.toFixed(3)}`,
        ...CHOICES.map((ch) => {
          const x = results.get(key(l, ch.d));
          const theory = api.fixedPointMeanTime(l, ch.d);
          const sim = x?.stable ? `, simulated ${formatNumber(x.meanTime)}` : "";
          return `${ch.label}: ${ch.d === 1 ? "1/(1 − λ)" : "fixed point"} ${formatNumber(theory)}${sim}`;
        }),
      ],
      marks: CHOICES.map((ch) => ({ y: api.fixedPointMeanTime(l, ch.d) ?? NaN, color: ch.color })),
    }),
    marker: {
      input: lambda.input,
      value: chosenLambda,
      toControl: (v) => String(Math.min(0.99, Math.max(0.1, Math.round(v * 100) / 100))),
    },
    redraw: perFrame(draw),
  });

  const rule = api.runLengths().find((rl) => rl.model === "balance");
  ui.note.textContent = `${servers} servers with exponential service; the first tenth of each run is warm-up. ${plannedNote(api, "balance", "arrivals")} Random assignment makes every server an M/M/1 queue whatever their number, so its line is exact; for two and three choices the fixed point is the limit of infinitely many servers, and at ${servers} the dots sit slightly above it. Near λ = 1 random assignment relaxes slowly (its queues need of order 1/(1 − √λ)² service times to settle), so at the top of the slider even a run at the cap of ${formatCount(rule.cap)} arrivals falls well short of 1/(1 − λ). A run shorter than seventeen of those times has no bars (its batches would be correlated and the bars too narrow), such as every dot from λ = 0.95 up: there the dot alone is shown. In the table, the shares of long queues for two and three choices on ${servers} servers sit above the limit too, the more so the longer the queue. ${INTERVAL_NOTE_PLANNED} A bar narrower than its marker shows as the two caps either side of it.`;
  exportBar(ui.tools, {
    link,
    name: "balance",
    title: "Mean time in system against arrival rate",
    canvas: ui.canvas,
    draw,
    meta: () => ({
      seed: seed.value,
      servers,
      arrivals_per_dot: "planned per dot by the run-length rule (columns arrivals and length_by)",
      ...runLengthMeta(api, "balance"),
      time_unit: "mean service time",
    }),
    table: () => ({
      header: [
        "lambda",
        "d",
        "sim_mean_time",
        "sim_p99",
        "fixed_point_mean_time",
        "arrivals",
        "length_by",
        "mean_half_width",
        "p99_half_width",
        "targets_met",
      ],
      rows: results
        .finals()
        .sort((a, b) => a.lambda - b.lambda || a.d - b.d)
        .map((x) => [
          x.lambda,
          x.d,
          x.meanTime,
          x.p99,
          x.theory,
          x.precision.length,
          x.precision.lengthBy,
          x.precision.mean,
          x.precision.p99,
          x.precision.met,
        ]),
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
  // The queues themselves, animated (queues.js): a trace of ten servers at the chosen λ and d.
  const queues = mountBalanceQueues(root, signal);
  const followQueues = () => queues.follow(chosenLambda(), Number(d.value), seed.value);
  lambda.input.addEventListener("change", followQueues);
  d.addEventListener("change", followQueues);
  seed.watch(followQueues, signal);
  followQueues();
}

/**
 * The fixed-point table, put before `before`: for each level i (rows) and each d (column
 * pairs), Mitzenmacher's sᵢ and the run's time-averaged share of servers holding at least i
 * jobs. A real table (caption, column and row headers) in a focusable scroll region, so a
 * narrow screen scrolls it by keyboard too. Theory cells carry `data-theory="share-d{d}-i{i}"`,
 * simulated ones `data-readout="share-d{d}-i{i}"`, as the readouts do, and each its number in
 * full as `data-value` (empty while pending).
 * @param {HTMLElement} before
 * @param {{ d: number, label: string }[]} choices
 * @param {number} servers
 * @param {string} prefix
 */
function shareTable(before, choices, servers, prefix) {
  const captionId = `${prefix}balance-fixed-point-caption`;
  const caption = el("caption", { id: captionId });
  const cells = new Map();
  // Two header rows: each d spans its pair of columns, the fixed point and the run.
  const head = [
    el(
      "tr",
      {},
      el("th", { scope: "col", rowspan: 2, text: "i" }),
      ...choices.map((c) => el("th", { scope: "colgroup", colspan: 2, text: c.label })),
    ),
    el(
      "tr",
      {},
      ...choices.flatMap(() => [
        el("th", { scope: "col", text: "fixed point" }),
        el("th", { scope: "col", text: `${servers} servers` }),
      ]),
    ),
  ];
  const groups = [el("colgroup", {}, el("col")), ...choices.map(() => el("colgroup", { span: 2 }))];
  const rows = TABLE_LEVELS.map((i) =>
    el(
      "tr",
      {},
      el("th", { scope: "row", text: String(i) }),
      ...choices.flatMap((c) => {
        const name = `share-d${c.d}-i${i}`;
        const theory = el("td", { "data-theory": name, "data-d": c.d, "data-i": i, text: "—" });
        const simulated = el("td", { "data-readout": name, "data-d": c.d, "data-i": i, text: "—" });
        cells.set(name, { theory, simulated });
        return [theory, simulated];
      }),
    ),
  );
  const table = el(
    "table",
    { class: "lab-table", "data-table": "fixed-point" },
    caption,
    ...groups,
    el("thead", {}, ...head),
    el("tbody", {}, ...rows),
  );
  before.before(
    el(
      "div",
      { class: "lab-table-wrap", role: "region", "aria-labelledby": captionId, tabindex: 0 },
      table,
    ),
  );
  const set = (node, text) => {
    if (node.textContent !== text) node.textContent = text;
  };
  return {
    /**
     * Fills the table for `lambda`: `theory(d, i)` the fixed point, `result(d)` the run at
     * this λ (absent while pending: `pending` is shown).
     * @param {number} lambda
     * @param {(d: number, i: number) => number | undefined} theory
     * @param {(d: number) => { shareAtLeast: Float64Array } | undefined} result
     * @param {string} pending
     */
    show(lambda, theory, result, pending) {
      set(
        caption,
        `Share of servers holding at least i jobs at λ = ${lambda.toFixed(2)}: Mitzenmacher's fixed point sᵢ = λ^((dⁱ − 1)/(d − 1)) (λⁱ for d = 1, exact at any number of servers) beside the time-averaged share in each run on ${servers} servers.`,
      );
      for (const c of choices) {
        const run = result(c.d);
        for (const i of TABLE_LEVELS) {
          const cell = cells.get(`share-d${c.d}-i${i}`);
          const exact = theory(c.d, i);
          set(cell.theory, formatShare(exact));
          cell.theory.dataset.value = String(exact ?? "");
          const measured = run?.shareAtLeast[i - 1];
          set(cell.simulated, run ? formatShare(measured) : pending);
          cell.simulated.dataset.value = String(measured ?? "");
        }
      }
    },
  };
}
