// Hedging when replicas are busy: p50 and p99 against load for no backups, a hedge
// and duplicating every request, under a chosen cancellation rule. Where a policy is unstable
// the chart shows a labelled band, never a curve. Without backups each replica is an M/G/1
// queue: the no-backup mean is drawn against its closed form (Pollaczek–Khinchine, the core's
// `noBackupMeanMs`).

import { formatCount, formatMs, formatPct } from "../../../format.js";
import { exportBar } from "../../../export.js";
import { POLICY_STYLE, drawLoaded } from "./draw.js";
import { mountMultiples } from "./multiples.js";
import { mountLoadedQueues } from "./queues.js";
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
  INTERVAL_NOTE,
  sectionContext,
} from "../../section.js";

/** The sweep's loads: 0.05 to 0.95 in steps of 0.05 (the slider's steps). */
export const LOADS = Array.from({ length: 19 }, (_, i) => Number((0.05 * (i + 1)).toFixed(2)));
/**
 * Each cancellation rule's name in the select and on its small multiple, short enough to be read
 * whole in a 320 px column; the rules themselves are the core's, and what each does in full is
 * `CANCELLATION_MEANINGS` (the section's note).
 */
export const CANCELLATION_LABELS = {
  backup: "cancel the backup (seed)",
  either: "cancel the loser, not mid-hiccup",
  "either-any": "cancel the loser, even mid-hiccup",
  queued: "remove a queued loser only",
  never: "never cancel",
};
/** What each cancellation rule does, in full. */
export const CANCELLATION_MEANINGS = {
  backup:
    "the backup is removed from its queue, or stopped even mid-hiccup, once the primary answers; the primary always runs to completion",
  either:
    "whichever copy loses is removed from its queue or stopped, except a copy in a hiccup, which holds its replica until the hiccup ends",
  "either-any": "whichever copy loses is removed from its queue or stopped, even mid-hiccup",
  queued: "a losing copy still waiting in a queue is removed; one in service runs to completion",
  never: "both copies always run to completion",
};
const BASIS_LABELS = {
  loaded: () => "p95 of latency at this load",
  idle: (lab) => `p95 of idle service (${formatMs(lab.loaded.idleDelayMs)})`,
};
/** The loads the M/G/1 mean is drawn at: 0.01 to 0.99 (it has no value at 1). */
const THEORY_LOADS = Array.from({ length: 99 }, (_, i) => (i + 1) / 100);
/** A name the section has no words for is shown as it is. */
export const labelOf = (labels, name) => (Object.hasOwn(labels, name) ? labels[name] : name);
export const REQUESTS = 200_000;
/** Added to the ranks of the other rules' points: after every full-size point on screen. */
const BACKGROUND = 3;
/** A small multiple's height (CSS px). */
const MULTIPLE_HEIGHT = 150;

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
export function mount(root, context) {
  const { client, api, values, prefix, onChange, link, seed, service, signal } =
    sectionContext(context);
  const lab = api.labDefaults();
  const start = initial(settingsOf(params, api), values);
  const POLICIES = lab.loaded.policies.map((name, i) => ({
    name,
    ...(Object.hasOwn(POLICY_STYLE, name)
      ? POLICY_STYLE[name]
      : { label: name, color: ["none", "hedge", "duplicate", "third"][i % 4], shape: "circle" }),
  }));
  const policyLabel = (name) => POLICIES.find((p) => p.name === name)?.label ?? name;
  const ui = panel(root, {
    chartHeight: 340,
    chartLabel: `Latency against load for ${POLICIES.length === 3 ? "three" : POLICIES.length} policies`,
  });
  const load = paramSlider(ui.controls, params, "loaded-load", {
    prefix,
    label: "load",
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
  let theoryMeans = [];
  /** The latency axis's bottom (ms): lower for a reader's data faster than the Lab's model. */
  let yMin;
  function followService() {
    theoryMeans = THEORY_LOADS.map((l) => api.noBackupMeanMs(l, service.value) ?? NaN);
    const value = service.value;
    const fastest = value && "empirical" in value ? value.empirical.ms[0] : undefined;
    yMin = fastest ? 10 ** Math.floor(Math.log10(fastest)) : undefined;
  }
  followService();
  let results = new SweepResults();
  /** Why the points are missing, when no worker could compute them (shown as "—", not "…"). */
  let failure = null;
  const RULES = lab.loaded.cancellations;
  const multiples = mountMultiples(ui.canvas, {
    rules: RULES,
    label: (rule) => labelOf(CANCELLATION_LABELS, rule),
    height: MULTIPLE_HEIGHT,
    onChoose: (rule) => {
      if (cancel.value === rule) return;
      cancel.value = rule;
      cancel.dispatchEvent(new Event("change"));
    },
  });

  const key = (l, p, rule) => `${rule}|${l}|${p}`;
  const chosenLoad = () => Number(Number(load.input.value).toFixed(2));

  /** The answer at (load, policy) under rule `rule` (the chosen one by default), if any. */
  const at = (l, p, rule = cancel.value) => results.get(key(l, p, rule));

  function draw(canvas = ui.canvas) {
    drawLoaded(canvas, {
      loads: LOADS,
      policies: POLICIES,
      get: (l, p) => at(l, p),
      highlight: policy.value,
      marker: chosenLoad(),
      theory: { xs: THEORY_LOADS, ys: theoryMeans },
      means: true,
      yMin,
    });
  }

  /** One rule's points: at full size, with any answer, of all. */
  function progressOf(rule) {
    let done = 0,
      drafted = 0;
    for (const l of LOADS)
      for (const p of POLICIES) {
        const k = key(l, p.name, rule);
        if (!results.get(k)) continue;
        drafted++;
        if (!results.drafts.has(k)) done++;
      }
    return { done, drafted, total: LOADS.length * POLICIES.length };
  }

  /** One rule's key numbers at the chosen load, in words (a small multiple's description). */
  function describe(rule) {
    const l = chosenLoad();
    const parts = POLICIES.map((p) => {
      const x = at(l, p.name, rule);
      if (!x) return `${p.label} pending`;
      return x.stable
        ? `${p.label} p50 ${formatMs(x.p50)}, p99 ${formatMs(x.p99)}`
        : `${p.label} unstable`;
    });
    const unstable = POLICIES.map((p) => {
      const first = LOADS.find((x) => at(x, p.name, rule)?.stable === false);
      return first === undefined ? "" : `${p.label} unstable from ${formatPct(first, 0)} load`;
    }).filter(Boolean);
    return `at load ${formatPct(l, 0)}, ${parts.join("; ")}.${unstable.length ? ` ${unstable.join("; ")}.` : ""}`;
  }

  /** The small multiple of `rule`, on its own canvas. */
  function drawMultiple(rule) {
    const canvas = multiples.canvas(rule);
    if (!canvas) return;
    drawLoaded(canvas, {
      loads: LOADS,
      policies: POLICIES,
      get: (l, p) => at(l, p, rule),
      highlight: policy.value,
      yMin,
      marker: chosenLoad(),
      compact: true,
      height: MULTIPLE_HEIGHT,
    });
  }

  function drawMultiples() {
    for (const rule of RULES) drawMultiple(rule);
    multiples.show(cancel.value, progressOf, describe);
  }

  function showChosen() {
    onChange({
      "loaded-load": chosenLoad(),
      "loaded-policy": policy.value,
      "loaded-cancel": cancel.value,
      "loaded-basis": basis.value,
    });
    const pending = failure ? "—" : "…";
    const none = at(chosenLoad(), "none");
    const theoryMean = api.noBackupMeanMs(chosenLoad(), service.value);
    r.noneMean.set(
      !none ? pending : none.stable ? formatMs(none.mean) : "unstable",
      `M/G/1 theory ${formatMs(theoryMean)}`,
    );
    const x = at(chosenLoad(), policy.value);
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
      `${ui.canvas.dataset.bands ? `${ui.canvas.dataset.bands}. ` : ""}p50 and p99 against load for no backups, a hedge and duplicates (cancellation: ${labelOf(CANCELLATION_LABELS, cancel.value)}), highlighted: ${policyLabel(policy.value)}. At load ${formatPct(x.load, 0)}, ${policyLabel(policy.value)}: ` +
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
    drawMultiples();
  });

  /** The calls of one rule's sweep, the chosen load first. */
  function callsOf(rule) {
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
            cancellation: rule,
            delayBasis: basis.value,
            requests: REQUESTS,
            seed: seed.value,
            ...(service.own && { service: service.value }),
          },
        ],
      })),
    );
    return calls;
  }
  /** A point's key, from its call (its result does not name its rule). */
  const keyOf = (call) => key(call.args[0].load, call.args[0].policy, call.args[0].cancellation);

  /**
   * The other rules' sweeps (the small multiples) run behind everything on screen: their ranks
   * come after every other section's full-size points, before any section out of view.
   */
  const background = {
    cached: (call) => client.cached(call),
    run: (calls, handlers) =>
      client.run(calls, {
        ...handlers,
        ranks: (handlers.ranks ?? []).map((rank) => rank + BACKGROUND),
      }),
  };
  let generation = 0;

  /**
   * Runs the chosen rule's sweep (drafts, then full size; its progress is the section's), then,
   * once it is complete, the other rules' sweeps for the small multiples, with their own
   * drafts. A point already computed is answered from the client's cache, not recomputed.
   */
  function sweep() {
    results = new SweepResults();
    failure = null;
    const mine = ++generation;
    const rule = cancel.value;
    const calls = callsOf(rule);
    let started = false;
    const others = () => {
      if (started || mine !== generation) return;
      started = true;
      const rest = lab.loaded.cancellations.filter((c) => c !== rule).flatMap(callsOf);
      runSweep(/** @type {any} */ (background), multiples, rest, {
        size: "requests",
        onResult: (x, final, i) => results.set(keyOf(rest[i]), x, final),
        onDiscard: (i) => results.discard(keyOf(rest[i])),
        onError: (error, i) => multiples.fail(rest[i].args[0].cancellation, error),
        redraw: refresh,
      });
    };
    multiples.reset();
    runSweep(
      client,
      {
        progress: (done, total, drafted, tenth) => {
          ui.progress(done, total, drafted, tenth);
          // The chosen rule is complete: the others start (after this answer's handling).
          if (done >= total) queueMicrotask(others);
        },
      },
      calls,
      {
        size: "requests",
        onResult: (x, final, i) => results.set(keyOf(calls[i]), x, final),
        onDiscard: (i) => results.discard(keyOf(calls[i])),
        onError: (error) => {
          failure = error;
          r.state.set("error", error);
        },
        redraw: refresh,
      },
    );
  }

  const RULES_NOTE = `The cancellation rules: ${RULES.map((c) => `${labelOf(CANCELLATION_LABELS, c)}: ${labelOf(CANCELLATION_MEANINGS, c)}`).join("; ")}. The small charts show every rule on the same axes (the chosen one is the large chart; choose another by its small chart); the other rules are computed after the chosen one.`;
  const NOTE = `${formatCount(REQUESTS)} requests per point on ${lab.loaded.replicas} FIFO replicas; the hedge's delay is recalibrated at every load. The chosen policy is drawn thick, the others faded; each policy has its own marker (no backups a circle, the hedge a square, duplicates a triangle). A line joins two loads only once both are computed. Where a policy is at capacity its median keeps growing with the length of the run, so a longer run gives a larger median: read such a point as "enormous", not as one number. Without backups each replica is an M/G/1 queue: the dotted line is its mean, Pollaczek–Khinchine's E[S] + λE[S²]/(2(1 − ρ)), and the plus signs are the simulated no-backup means. ${RULES_NOTE}`;
  const BARS_NOTE =
    "A bar is drawn only where the interval reaches past its marker; a marker with no bar holds its whole interval.";
  function updateNote() {
    const found = LOADS.map((l) => [at(l, "duplicate"), at(l, "none")]).find(
      ([dup, none]) => dup?.atCapacity && none?.stable,
    );
    const on = service.own
      ? `Every service time is drawn from ${service.label}, and the M/G/1 line uses its mean and second moment. `
      : "";
    ui.note.textContent = found
      ? `${on}${NOTE} ${INTERVAL_NOTE} ${BARS_NOTE} In this run, at ${formatPct(found[0].load, 0)} load, duplicating's median is ${(found[0].p50 / found[1].p50).toFixed(1)}× the no-backup median.`
      : `${on}${NOTE} ${INTERVAL_NOTE} ${BARS_NOTE}`;
  }
  updateNote();
  // The chart answers the pointer and the keyboard (web/touch.js): every policy's p50 and p99 at
  // the nearest computed load, and the load marker moves the load slider.
  touchChart(ui.canvas, {
    xs: () => LOADS.filter((l) => POLICIES.some((p) => at(l, p.name))),
    read: (l) => {
      const lines = [`load ${formatPct(l, 0)} (${cancel.value})`];
      const marks = [];
      for (const p of POLICIES) {
        const x = at(l, p.name);
        if (!x) lines.push(`${p.label}: pending`);
        else if (!x.stable) lines.push(`${p.label}: unstable`);
        else {
          lines.push(`${p.label}: p50 ${formatMs(x.p50)}, p99 ${formatMs(x.p99)}`);
          marks.push({ y: x.p50, color: p.color }, { y: x.p99, color: p.color });
        }
      }
      return { lines, marks };
    },
    marker: {
      input: load.input,
      value: chosenLoad,
      toControl: (v) => String(Math.min(0.95, Math.max(0.05, Math.round(v * 20) / 20))),
    },
    redraw: perFrame(draw),
  });

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
        .filter((x) => x.cancellation === cancel.value)
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
          api.noBackupMeanMs(x.load, service.value),
        ]),
    }),
  });
  load.input.addEventListener("input", refresh);
  policy.addEventListener("change", () => {
    showChosen();
    draw();
    drawMultiples();
  });
  cancel.addEventListener("change", sweep);
  basis.addEventListener("change", sweep);
  seed.watch(sweep, signal);
  service.watch(() => {
    followService();
    sweep();
    followQueues();
  }, signal);
  redrawOnResize(ui.canvas, draw, signal);
  for (const rule of RULES)
    redrawOnResize(multiples.canvas(rule), () => drawMultiple(rule), signal);
  sweep();
  // The replicas' queues, animated (queues.js): a trace at the chosen load, policy and rule.
  const queues = mountLoadedQueues(root, signal);
  function followQueues() {
    queues.follow({
      load: chosenLoad(),
      policy: policy.value,
      cancellation: cancel.value,
      delayBasis: basis.value,
      seed: seed.value,
      ...(service.own && { service: service.value }),
    });
  }
  load.input.addEventListener("change", followQueues);
  for (const control of [policy, cancel, basis]) control.addEventListener("change", followQueues);
  seed.watch(followQueues, signal);
  followQueues();
}
