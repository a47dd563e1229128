// Hedging when replicas are busy: p50 and p99 against load for no backups, a hedge
// and duplicating every request, under a chosen cancellation rule. Where a policy is unstable
// the chart shows a labelled band, never a curve. Without backups each replica is an M/G/1
// queue: the no-backup mean is drawn against its closed form (Pollaczek–Khinchine, the core's
// `noBackupMeanMs`).

import { formatCount, formatMs, formatPct, formatTickMs } from "../../../format.js";
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
  runSweep,
  SweepResults,
  INTERVAL_NOTE,
} from "../../section.js";

/** The sweep's loads: 0.05 to 0.95 in steps of 0.05 (the slider's steps). */
export const LOADS = Array.from({ length: 19 }, (_, i) => Number((0.05 * (i + 1)).toFixed(2)));
/** How each policy is drawn and named; the policies themselves are the core's (`labDefaults()`). */
const POLICY_STYLE = {
  none: { label: "no backups", color: "none", shape: "circle" },
  hedge: { label: "hedge at p95", color: "hedge", shape: "square" },
  duplicate: { label: "duplicate all", color: "duplicate", shape: "triangle" },
};
/** What each cancellation rule means, in words; the rules themselves are the core's. */
const CANCELLATION_LABELS = {
  backup: "backup cancelled when the primary answers (seed)",
  either: "loser cancelled; a hiccup holds its replica",
  "either-any": "loser cancelled, even mid-hiccup",
  queued: "only a queued loser is removed",
  never: "never cancelled",
};
const BASIS_LABELS = {
  loaded: () => "p95 of latency at this load",
  idle: (lab) => `p95 of idle service (${formatMs(lab.loaded.idleDelayMs)})`,
};
/** The loads the M/G/1 mean is drawn at: 0.01 to 0.99 (it has no value at 1). */
const THEORY_LOADS = Array.from({ length: 99 }, (_, i) => (i + 1) / 100);
/** A name the section has no words for is shown as it is. */
const labelOf = (labels, name) => (Object.hasOwn(labels, name) ? labels[name] : name);
export const REQUESTS = 200_000;

/** The section's settings, as URL parameters and embed attributes. */
export const params = [
  { name: "loaded-load", type: "float", min: 0.05, max: 0.95, step: 0.05, default: 0.6 },
  { name: "loaded-policy", type: "enum", values: (lab) => lab.loaded.policies, default: "hedge" },
  {
    name: "loaded-cancel",
    type: "enum",
    values: (lab) => lab.loaded.cancellations,
    default: (lab) => lab.loaded.cancellations[0],
  },
  {
    name: "loaded-basis",
    type: "enum",
    values: (lab) => lab.loaded.delayBases,
    default: (lab) => lab.loaded.delayBases[0],
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
  const start = initial(settingsOf(params, api), values);
  const POLICIES = lab.loaded.policies.map((name, i) => ({
    name,
    ...(Object.hasOwn(POLICY_STYLE, name)
      ? POLICY_STYLE[name]
      : { label: name, color: ["none", "hedge", "duplicate", "third"][i % 4], shape: "circle" }),
  }));
  const ui = panel(root, {
    chartHeight: 340,
    chartLabel: `Latency against load for ${POLICIES.length === 3 ? "three" : POLICIES.length} policies`,
  });
  const load = slider(ui.controls, {
    id: `${prefix}loaded-load`,
    label: "load",
    min: 0.05,
    max: 0.95,
    step: 0.05,
    value: start["loaded-load"],
    format: (v) => formatPct(v, 0),
  });
  const policy = choice(ui.controls, {
    id: `${prefix}loaded-policy`,
    label: "policy",
    value: start["loaded-policy"],
    options: POLICIES.map((p) => [p.name, p.label]),
  });
  const cancel = choice(ui.controls, {
    id: `${prefix}loaded-cancel`,
    label: "cancellation",
    value: start["loaded-cancel"],
    options: lab.loaded.cancellations.map((c) => [c, labelOf(CANCELLATION_LABELS, c)]),
  });
  const basis = choice(ui.controls, {
    id: `${prefix}loaded-basis`,
    label: "hedge delay",
    value: start["loaded-basis"],
    options: lab.loaded.delayBases.map((b) => [
      b,
      Object.hasOwn(BASIS_LABELS, b) ? BASIS_LABELS[b](lab) : b,
    ]),
  });
  const r = {
    p50: readout(ui.readouts, { name: "p50", label: "p50" }),
    p99: readout(ui.readouts, { name: "p99", label: "p99" }),
    work: readout(ui.readouts, { name: "extra-work", label: "extra work" }),
    delay: readout(ui.readouts, { name: "loaded-delay", label: "backup sent after" }),
    state: readout(ui.readouts, { name: "loaded-state", label: "replicas" }),
    noneMean: readout(ui.readouts, {
      name: "none-mean",
      label: "no backups: mean",
      theory: true,
    }),
  };
  /** Pollaczek–Khinchine's M/G/1 mean without backups (ms), from the core, at every drawn load. */
  const theoryMeans = THEORY_LOADS.map((l) => api.noBackupMeanMs(l) ?? NaN);
  let results = new SweepResults();
  /** Why the points are missing, when no worker could compute them (shown as "—", not "…"). */
  let failure = null;

  const key = (l, p) => `${l}|${p}`;
  const chosenLoad = () => Number(Number(load.input.value).toFixed(2));

  function draw(canvas = ui.canvas) {
    const c = chart(canvas, {
      x: {
        type: "linear",
        min: 0,
        max: 1,
        label: "load (offered work over capacity, before backups)",
        format: (v) => formatPct(v, 0),
      },
      y: { type: "log", min: 2, max: 100_000, label: "latency", format: formatTickMs },
    });
    c.axes();
    // Unstable regions: from the first unstable load upward, one labelled band per policy.
    const bands = [];
    for (const p of POLICIES) {
      const first = LOADS.find((l) => results.get(key(l, p.name))?.stable === false);
      if (first === undefined) continue;
      c.band(first - 0.025, 1, `${"\n".repeat(bands.length)}${p.label}: unstable`);
      bands.push(`${p.label}: unstable from ${formatPct(first, 0)} load`);
    }
    // The bands in words, for screen readers and tests (the canvas itself is pixels).
    canvas.dataset.bands = bands.join("; ");
    for (const p of POLICIES) {
      const pts = LOADS.map((l) => results.get(key(l, p.name))).filter(Boolean);
      const xs = pts.map((x) => x.load);
      const ys = (f) => pts.map((x) => (x.stable ? x[f] : NaN));
      c.line(xs, ys("p50"), { color: p.color, width: 2 });
      c.line(xs, ys("p99"), { color: p.color, width: 1.5, dash: [5, 4] });
      // Each mark carries its 95% batch-means interval (narrow at full size; wide on a draft).
      const marks = (f) =>
        pts
          .filter((x) => x.stable)
          .map((x) => ({ x: x.load, y: x[f], lo: x[`${f}Low`], hi: x[`${f}High`] }));
      c.dots(marks("p50"), { color: p.color, shape: p.shape, r: 3.5 });
      c.dots(marks("p99"), { color: p.color, shape: p.shape, r: 3, hollow: true });
      for (const x of pts.filter((x) => x.atCapacity))
        c.label(x.load, x.p50, "at capacity", { color: p.color, align: "left", dy: 14 });
    }
    // Without backups each replica is M/G/1: its mean against Pollaczek–Khinchine's.
    c.line(THEORY_LOADS, theoryMeans, { color: "theory", width: 1.5, dash: [2, 3] });
    const means = LOADS.map((l) => results.get(key(l, "none"))).filter((x) => x?.stable);
    c.dots(
      means.map((x) => ({ x: x.load, y: x.mean })),
      { color: "none", shape: "square", r: 2.5 },
    );
    c.vline(chosenLoad(), `load ${formatPct(chosenLoad(), 0)}`);
    c.legend([
      ...POLICIES.map((p) => ({ label: p.label, color: p.color, shape: p.shape })),
      { label: "p50 (solid), p99 (dashed)", color: "ink", dash: [5, 4], width: 1.5 },
      { label: "no backups: mean", color: "none", shape: "square" },
      { label: "M/G/1 mean (Pollaczek–Khinchine)", color: "theory", dash: [2, 3], width: 1.5 },
    ]);
  }

  function showChosen() {
    onChange({
      "loaded-load": chosenLoad(),
      "loaded-policy": policy.value,
      "loaded-cancel": cancel.value,
      "loaded-basis": basis.value,
    });
    const pending = failure ? "—" : "…";
    const none = results.get(key(chosenLoad(), "none"));
    const theoryMean = api.noBackupMeanMs(chosenLoad());
    r.noneMean.set(
      !none ? pending : none.stable ? formatMs(none.mean) : "unstable",
      `M/G/1 theory ${formatMs(theoryMean)}`,
    );
    const x = results.get(key(chosenLoad(), policy.value));
    if (!x) {
      for (const k of ["p50", "p99", "work", "delay", "state"]) r[k].set(pending);
      return;
    }
    r.p50.set(x.stable ? formatMs(x.p50) : "unstable");
    r.p99.set(x.stable ? formatMs(x.p99) : "unstable");
    r.work.set(formatPct(x.extraWork, 1));
    r.delay.set(
      x.delayMs === null ? "no backup" : x.delayMs === 0 ? "at once" : formatMs(x.delayMs),
    );
    r.state.set(
      !x.stable ? "unstable" : x.atCapacity ? "at capacity" : `${formatPct(x.utilisation, 0)} busy`,
    );
    ui.canvas.setAttribute(
      "aria-label",
      `${ui.canvas.dataset.bands ? `${ui.canvas.dataset.bands}. ` : ""}p50 and p99 against load for no backups, a hedge and duplicates (cancellation: ${cancel.value}). At load ${formatPct(x.load, 0)}, ${policy.value}: ` +
        (x.stable
          ? `p50 ${formatMs(x.p50)}, p99 ${formatMs(x.p99)}, extra work ${formatPct(x.extraWork, 1)}.`
          : "unstable.") +
        ` Without backups the mean is ${none?.stable ? formatMs(none.mean) : "pending"}; M/G/1 (Pollaczek–Khinchine) predicts ${formatMs(theoryMean)}.`,
    );
  }

  const refresh = perFrame(() => {
    updateNote();
    showChosen();
    draw();
  });

  function sweep() {
    results = new SweepResults();
    failure = null;
    const chosen = chosenLoad();
    const order = [chosen, ...LOADS.filter((l) => l !== chosen)];
    /** @type {import("../../sim.js").Call<"simulateLoaded">[]} */
    const calls = order.flatMap((l) =>
      POLICIES.map((p) => ({
        fn: "simulateLoaded",
        args: [
          {
            load: l,
            policy: p.name,
            cancellation: cancel.value,
            delayBasis: basis.value,
            requests: REQUESTS,
            seed: seed.value,
          },
        ],
      })),
    );
    runSweep(client, ui, calls, {
      size: "requests",
      onResult: (x, final) => results.set(key(x.load, x.policy), x, final),
      onDiscard: (i) => results.discard(key(calls[i].args[0].load, calls[i].args[0].policy)),
      onError: (error) => {
        failure = error;
        r.state.set("error", error);
      },
      redraw: refresh,
    });
  }

  const NOTE = `${formatCount(REQUESTS)} requests per point on ${lab.loaded.replicas} FIFO replicas; the hedge's delay is recalibrated at every load. Where a policy is at capacity its median keeps growing with the length of the run, so a longer run gives a larger median: read such a point as "enormous", not as one number. Without backups each replica is an M/G/1 queue: the dotted line is its mean, Pollaczek–Khinchine's E[S] + λE[S²]/(2(1 − ρ)), and the small squares are the simulated no-backup means.`;
  function updateNote() {
    const at = LOADS.map((l) => [
      results.get(key(l, "duplicate")),
      results.get(key(l, "none")),
    ]).find(([dup, none]) => dup?.atCapacity && none?.stable);
    ui.note.textContent = at
      ? `${NOTE} ${INTERVAL_NOTE} In this run, at ${formatPct(at[0].load, 0)} load, duplicating's median is ${(at[0].p50 / at[1].p50).toFixed(1)}× the no-backup median.`
      : `${NOTE} ${INTERVAL_NOTE}`;
  }
  updateNote();
  exportBar(ui.tools, {
    link,
    name: "loaded",
    title: "Latency against load on busy replicas",
    canvas: ui.canvas,
    draw,
    meta: () => ({
      seed: seed.value,
      requests_per_point: REQUESTS,
      replicas: lab.loaded.replicas,
      cancellation: cancel.value,
      delay_basis: basis.value,
    }),
    table: () => ({
      header: [
        "load",
        "policy",
        "delay_ms",
        "p50_ms",
        "p99_ms",
        "p999_ms",
        "extra_requests",
        "extra_work",
        "utilisation",
        "stable",
        "at_capacity",
        "mean_ms",
        "backups_completed",
        "mg1_no_backup_mean_ms",
      ],
      rows: results
        .finals()
        .sort((a, b) => a.load - b.load || a.policy.localeCompare(b.policy))
        .map((x) => [
          x.load,
          x.policy,
          x.delayMs,
          x.p50,
          x.p99,
          x.p999,
          x.extraRequests,
          x.extraWork,
          x.utilisation,
          x.stable,
          x.atCapacity,
          x.mean,
          x.backupsCompleted,
          api.noBackupMeanMs(x.load),
        ]),
    }),
  });
  load.input.addEventListener("input", refresh);
  policy.addEventListener("change", () => {
    showChosen();
    draw();
  });
  cancel.addEventListener("change", sweep);
  basis.addEventListener("change", sweep);
  seed.watch(sweep, signal);
  redrawOnResize(ui.canvas, draw, signal);
  sweep();
}
