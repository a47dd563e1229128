// Tied requests on loaded replicas: p99 (or the mean) against load for no backups, the hedge,
// duplicating (the primary never cancelled, or whichever copy loses cancelled at once) and tied
// requests, optionally staggered, each point with its batch-means interval; beside it, the
// check: tied to all replicas with no message delay on exponential service is one M/M/c queue,
// simulated against Erlang C's closed forms.

import { formatCount, formatMs, formatPct, formatTickMs } from "../../../format.js";
import { chart } from "../../plot.js";
import { exportBar } from "../../../export.js";
import {
  INTERVAL_NOTE,
  SweepResults,
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
  slider,
} from "../../section.js";

/** Requests per point (drafts at a hundredth and a tenth first). */
export const REQUESTS = 100_000;
/** The loads of the sweep. */
export const LOADS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
/** The message delay's stops (ms), as the setting writes them: "inf" never lands. */
export const DELAYS = ["0", "0.1", "0.3", "1", "3", "10", "30", "100", "300", "1000", "inf"];
/** The delay (ms) a stop names. */
export const delayMs = (stop) => (stop === "inf" ? Infinity : Number(stop));
/** The check's exponential service mean (ms). */
export const CHECK_MEAN_MS = 10;
/** The policies drawn, in the core's names (the tied result's `policy`). */
export const POLICIES = ["none", "hedge", "duplicate", "duplicate-either-any", "tied"];
/** The stagger's settings: none, or the siblings sent two message delays after the first copy. */
export const STAGGERS = ["off", "2x"];
/** The stagger (ms) a setting gives at message delay `stop`: none when the delay is infinite. */
export const staggerMs = (stagger, stop) =>
  stagger === "2x" && Number.isFinite(delayMs(stop)) ? 2 * delayMs(stop) : 0;

/** How each policy is drawn and named. */
const STYLE = {
  none: { label: "no backups", color: "none", shape: "circle" },
  hedge: { label: "hedge at p95", color: "hedge", shape: "square" },
  duplicate: { label: "duplicate all", color: "duplicate", shape: "triangle" },
  "duplicate-either-any": {
    label: "duplicate, loser stopped",
    color: "duplicate",
    shape: "plus",
    dash: [5, 4],
  },
  tied: { label: "tied", color: "third", shape: "diamond" },
};

const delayText = (stop) => (stop === "inf" ? "∞ (never lands)" : formatMs(delayMs(stop)));

/** The section's settings, as URL parameters and embed attributes. */
export const params = [
  { name: "tied-load", type: "float", min: 0.1, max: 0.9, step: 0.1, default: 0.5 },
  { name: "tied-replicas", type: "int", min: 2, max: 20, default: 10 },
  { name: "tied-tie", type: "int", min: 2, max: 20, default: 2 },
  {
    name: "tied-delay",
    type: "enum",
    values: DELAYS,
    default: "1",
    control: (v) => String(DELAYS.indexOf(v)),
  },
  { name: "tied-stagger", type: "enum", values: STAGGERS, default: "off" },
  { name: "tied-metric", type: "enum", values: ["p99", "mean"], default: "p99" },
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
    chartHeight: 340,
    chartLabel: "Latency against load: no backups, hedge, duplicate and tied requests",
  });
  const load = paramSlider(ui.controls, params, "tied-load", {
    prefix,
    label: "load (readouts)",
    value: start["tied-load"],
    format: (v) => formatPct(v, 0),
  });
  const replicas = paramSlider(ui.controls, params, "tied-replicas", {
    prefix,
    label: "replicas c",
    value: start["tied-replicas"],
  });
  const tie = paramSlider(ui.controls, params, "tied-tie", {
    prefix,
    label: "tied to",
    value: start["tied-tie"],
    format: (v) => `${v} replicas`,
  });
  const delay = slider(ui.controls, {
    id: `${prefix}tied-delay`,
    label: "message delay",
    min: 0,
    max: DELAYS.length - 1,
    step: 1,
    value: Math.max(0, DELAYS.indexOf(start["tied-delay"])),
    format: (i) => delayText(DELAYS[i]),
  });
  const stagger = choice(ui.controls, {
    id: `${prefix}tied-stagger`,
    label: "siblings sent",
    value: start["tied-stagger"],
    options: [
      ["off", "with the first copy"],
      ["2x", "two message delays later"],
    ],
  });
  const metric = choice(ui.controls, {
    id: `${prefix}tied-metric`,
    label: "chart",
    value: start["tied-metric"],
    options: [
      ["p99", "p99 against load"],
      ["mean", "mean against load"],
    ],
  });
  const r = {
    tied: readout(ui.readouts, { name: "tied-p99", label: "tied p99" }),
    hedge: readout(ui.readouts, { name: "hedge-p99", label: "hedge p99" }),
    none: readout(ui.readouts, { name: "none-p99", label: "no backups p99" }),
    duplicate: readout(ui.readouts, { name: "duplicate-p99", label: "duplicate p99" }),
    stopped: readout(ui.readouts, {
      name: "duplicate-either-any-p99",
      label: "duplicate, loser stopped p99",
    }),
    work: readout(ui.readouts, { name: "tied-extra-work", label: "tied extra work" }),
    late: readout(ui.readouts, { name: "tied-late", label: "late cancellations" }),
    stagger: readout(ui.readouts, { name: "tied-stagger", label: "siblings sent" }),
    checkMean: readout(ui.readouts, { name: "check-mean", label: "check: mean", theory: true }),
    checkP99: readout(ui.readouts, { name: "check-p99", label: "check: p99", theory: true }),
  };
  const results = new SweepResults();
  /** The check run (tied to all, delay 0, exponential service) and its closed forms. */
  let check = null;
  let theory = null;

  const current = () => ({
    load: Number(load.input.value),
    replicas: Number(replicas.input.value),
    tie: Math.min(Number(tie.input.value), Number(replicas.input.value)),
    stop: DELAYS[Number(delay.input.value)],
    stagger: stagger.value === "2x" ? "2x" : "off",
    metric: metric.value === "mean" ? "mean" : "p99",
  });
  /** The settings as URL parameters. */
  const settings = () => {
    const s = current();
    return {
      "tied-load": s.load,
      "tied-replicas": s.replicas,
      "tied-tie": s.tie,
      "tied-delay": s.stop,
      "tied-stagger": s.stagger,
      "tied-metric": s.metric,
    };
  };
  const key = (policy, l) => `${policy}@${l}`;
  /** A drawable point: stable and not at capacity. */
  const usable = (res) => res?.stable && !res.atCapacity;

  function draw(canvas = ui.canvas) {
    const s = current();
    const c = chart(canvas, {
      legend: POLICIES.map((p) => ({
        label: STYLE[p].label,
        color: STYLE[p].color,
        dash: STYLE[p].dash,
        width: 3,
      })),
      x: { type: "linear", min: 0, max: 1, label: "load" },
      y: {
        type: "log",
        min: 5,
        max: 100_000,
        label: s.metric === "mean" ? "mean latency" : "p99 latency",
        format: formatTickMs,
      },
    });
    c.axes();
    for (const policy of POLICIES) {
      const st = STYLE[policy];
      const points = LOADS.map((l) => {
        const res = results.get(key(policy, l));
        if (!usable(res)) return { x: l, y: NaN };
        return s.metric === "mean"
          ? { x: l, y: res.mean, lo: res.meanLow ?? NaN, hi: res.meanHigh ?? NaN }
          : { x: l, y: res.p99, lo: res.p99Low ?? NaN, hi: res.p99High ?? NaN };
      });
      c.line(
        points.map((p) => p.x),
        points.map((p) => p.y),
        { color: st.color, width: policy === "tied" ? 2.5 : 1.5, dash: st.dash ?? [] },
      );
      c.dots(points, { color: st.color, shape: st.shape, r: policy === "tied" ? 5 : 4 });
    }
    c.vline(s.load, `load ${formatPct(s.load, 0)}`, { color: "ink" });
    c.done();
  }

  const redrawSoon = perFrame(() => draw());

  /** A p99 readout's text: the value, or why there is none. */
  const p99Text = (res) =>
    !res ? "—" : !res.stable ? "unstable" : res.atCapacity ? "at capacity" : formatMs(res.p99);

  function showReadouts() {
    const s = current();
    const at = (policy) => results.get(key(policy, s.load));
    r.tied.set(p99Text(at("tied")));
    r.hedge.set(p99Text(at("hedge")));
    r.none.set(p99Text(at("none")));
    r.duplicate.set(p99Text(at("duplicate")));
    r.stopped.set(p99Text(at("duplicate-either-any")));
    const t = at("tied");
    r.work.set(t ? formatPct(t.extraWork, 1) : "—");
    r.late.set(t && t.lateCancellations !== null ? formatPct(t.lateCancellations, 1) : "none sent");
    const gap = staggerMs(s.stagger, s.stop);
    r.stagger.set(
      gap > 0
        ? `${formatMs(gap)} after the first`
        : s.stagger === "off"
          ? "with the first"
          : `with the first (a ${delayText(s.stop)} delay leaves nothing to stagger)`,
    );
    const mean = ui.readouts.querySelector('[data-readout="check-mean"]');
    const p99 = ui.readouts.querySelector('[data-readout="check-p99"]');
    if (check?.stable && theory) {
      r.checkMean.set(formatMs(check.mean), `Erlang C ${formatMs(theory.meanMs)}`);
      r.checkP99.set(formatMs(check.p99), `Erlang C ${formatMs(theory.p99Ms)}`);
      // The exact numbers and the run's 95% intervals, for a test to read (never markup).
      Object.assign(mean.dataset, {
        value: String(check.mean),
        low: String(check.meanLow),
        high: String(check.meanHigh),
        theory: String(theory.meanMs),
      });
      Object.assign(p99.dataset, {
        value: String(check.p99),
        low: String(check.p99Low),
        high: String(check.p99High),
        theory: String(theory.p99Ms),
      });
    } else {
      r.checkMean.set("—", "");
      r.checkP99.set("—", "");
    }
    const tied = at("tied");
    const hedge = at("hedge");
    ui.canvas.setAttribute(
      "aria-label",
      `${s.metric === "mean" ? "Mean" : "p99"} latency against load on a log scale for no backups, the hedge, duplicating (primary never stopped, or the losing copy stopped) and tied requests (tied to ${s.tie} of ${s.replicas} replicas, message delay ${delayText(s.stop)}, siblings sent ${staggerMs(s.stagger, s.stop) > 0 ? `${formatMs(staggerMs(s.stagger, s.stop))} after the first copy` : "with it"}). At ${formatPct(s.load, 0)} load the tied p99 is ${p99Text(tied)} and the hedge's ${p99Text(hedge)}.`,
    );
  }

  function update() {
    const s = current();
    tie.input.max = String(s.replicas);
    if (Number(tie.input.value) > s.replicas) tie.input.value = String(s.replicas);
    tie.show();
    onChange(settings());
    const own = service.value === undefined ? {} : { service: service.value };
    const base = { replicas: s.replicas, requests: REQUESTS, seed: seed.value, ...own };
    const calls = [];
    const keys = [];
    for (const l of LOADS) {
      for (const policy of POLICIES) {
        const opts =
          policy === "tied"
            ? {
                ...base,
                load: l,
                tie: s.tie,
                messageDelayMs: delayMs(s.stop),
                staggerMs: staggerMs(s.stagger, s.stop),
              }
            : { ...base, load: l, policy };
        calls.push({ fn: "simulateTied", args: [opts] });
        keys.push(key(policy, l));
      }
    }
    // The check: tied to all c replicas, no message delay, exponential service.
    calls.push({
      fn: "simulateTied",
      args: [
        {
          replicas: s.replicas,
          tie: s.replicas,
          load: s.load,
          messageDelayMs: 0,
          exponentialMeanMs: CHECK_MEAN_MS,
          requests: REQUESTS,
          seed: seed.value,
        },
      ],
    });
    theory = api.tiedTheory(s.replicas, s.load, CHECK_MEAN_MS);
    check = null;
    results.startSweep();
    showReadouts();
    runSweep(client, ui, calls, {
      size: "requests",
      onResult: (res, final, point) => {
        if (point === keys.length) check = res;
        else results.set(keys[point], res, final);
        showReadouts();
      },
      onError: (error, point) => {
        if (point === keys.length) {
          check = null;
          r.checkMean.set("error", String(error));
        } else r.tied.set("error");
      },
      onDiscard: (point) => {
        if (point < keys.length) results.discard(keys[point]);
      },
      redraw: redrawSoon,
    });
    redrawSoon();
  }

  const note = () => {
    ui.note.textContent = `${formatCount(REQUESTS)} requests per point on ${service.label}. No backups, the hedge (after the p95 of no-backup latency at the same load) and the two duplicates are the loaded section's model at the same replicas and service: "duplicate all" cancels the backup when the primary answers and never the primary; "loser stopped" cancels whichever copy answers second at once, in its queue or mid-service, which a real server can do only if it can interrupt a started request. Tied: each request queues at the chosen number of distinct random replicas (with "two message delays later", the siblings are sent that long after the first copy, as Dean and Barroso suggest; a sibling whose cancellation arrived first is dropped); the first copy to start sends a cancellation that lands after the message delay, removing a sibling still waiting or aborting one that started meanwhile; the first copy to finish answers. Extra work, in every section, is server time beyond the requests' own service (a tied request's first copy's, a duplicate's primary's) over that service. A point that is unstable or at capacity is left out. ${INTERVAL_NOTE} The check runs tied to all c replicas with no delay on exponential service of mean ${formatMs(CHECK_MEAN_MS)}: one M/M/c queue, against Erlang C.`;
  };
  note();
  exportBar(ui.tools, {
    link,
    name: "tied",
    title: "Tied requests against load",
    canvas: ui.canvas,
    draw,
    meta: () => {
      const s = current();
      return {
        seed: seed.value,
        requests_per_point: REQUESTS,
        replicas: s.replicas,
        tie: s.tie,
        message_delay_ms: s.stop,
        stagger_ms: staggerMs(s.stagger, s.stop),
        service: service.own ? "your data" : "lab",
      };
    },
    table: () => ({
      header: [
        "load",
        "policy",
        "stable",
        "p50_ms",
        "p99_ms",
        "p99_low",
        "p99_high",
        "mean_ms",
        "extra_work",
      ],
      rows: results
        .finals()
        .map((x) => [
          x.load,
          x.policy,
          x.stable,
          x.p50,
          x.p99,
          x.p99Low,
          x.p99High,
          x.mean,
          x.extraWork,
        ]),
    }),
  });
  load.input.addEventListener("input", update);
  replicas.input.addEventListener("input", update);
  tie.input.addEventListener("input", update);
  delay.input.addEventListener("input", update);
  stagger.addEventListener("change", update);
  metric.addEventListener("change", () => {
    onChange(settings());
    draw();
    showReadouts();
  });
  seed.watch(update, signal);
  service.watch(() => {
    note();
    update();
  }, signal);
  redrawOnResize(ui.canvas, draw, signal);
  update();
}
