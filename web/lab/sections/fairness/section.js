// Fairness to a tenant that does not hedge: two tenants share the loaded replicas and only tenant
// A hedges or duplicates. Each tenant's p99 and median against the load, beside both tenants with
// nobody hedging on the same arrivals and work (the baseline, dashed): what A gains and what B
// pays for it.

import { formatCount, formatMs, formatPct, formatTickMs } from "../../../format.js";
import { chart } from "../../plot.js";
import { exportBar } from "../../../export.js";
import { touchChart } from "../../../touch.js";
import {
  choice,
  el,
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

/** Requests per run (each load makes two: A's policy, and nobody hedging): 40,000, so that each
 * tenant measures the 10,000 a p99 interval needs. */
export const REQUESTS = 40_000;
/** The loads the section runs. */
export const LOADS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];
/** The load the readouts quote. */
export const QUOTED_LOAD = 0.5;

/** The section's settings, as URL parameters and embed attributes. */
export const params = [
  { name: "fair-share", type: "float", min: 0.1, max: 0.9, step: 0.05, default: 0.5 },
  { name: "fair-policy", type: "enum", values: ["duplicate", "hedge"], default: "duplicate" },
];

/** The tenants drawn: result key prefix, label, colour, marker, dashed (the baseline). */
const LINES = /** @type {const} */ ([
  ["a", "A, which hedges", "hedge", "square", false],
  ["b", "B, which does not", "duplicate", "triangle", false],
  ["baseA", "A, nobody hedging", "hedge", "square", true],
  ["baseB", "B, nobody hedging", "duplicate", "triangle", true],
]);

/** The load axis: its span of 0.75 gives ticks every 25% on a narrow chart, every 10% on a wide one. */
const X = {
  type: "linear",
  min: 0.075,
  max: 0.825,
  label: "load",
  format: (v) => formatPct(v, 0),
};

/**
 * Builds the section inside `root` (see lab/section.js for the context).
 * @param {HTMLElement} root
 * @param {import("../../section.js").SectionContext} context
 */
export function mount(root, context) {
  const { client, api, values, prefix, onChange, link, seed, service, signal } =
    sectionContext(context);
  const start = initial(settingsOf(params, api), values);
  const ui = panel(root, { chartHeight: 260, chartLabel: "Each tenant's p99 against the load" });
  const share = paramSlider(ui.controls, params, "fair-share", {
    prefix,
    label: "tenant A's share of requests",
    value: start["fair-share"],
    format: (v) => formatPct(v, 0),
  });
  const policy = choice(ui.controls, {
    id: `${prefix}fair-policy`,
    label: "tenant A",
    value: start["fair-policy"],
    options: [
      ["duplicate", "duplicates every request"],
      ["hedge", "hedges at the no-backup p95"],
    ],
  });
  const q = formatPct(QUOTED_LOAD, 0);
  const r = {
    aP99: readout(ui.readouts, { name: "a-p99", label: `A's p99 at ${q} load`, theory: true }),
    bP99: readout(ui.readouts, { name: "b-p99", label: `B's p99 at ${q} load`, theory: true }),
    aP50: readout(ui.readouts, { name: "a-p50", label: `A's median at ${q} load`, theory: true }),
    bP50: readout(ui.readouts, { name: "b-p50", label: `B's median at ${q} load`, theory: true }),
    same: readout(ui.readouts, {
      name: "baseline-gap",
      label: `nobody hedging, A's and B's p99 apart by`,
      theory: true,
    }),
  };

  const p50Canvas = el("canvas", {
    height: 220,
    role: "img",
    "aria-label": "Each tenant's median latency against the load",
    "data-chart": "p50",
  });
  p50Canvas.style.height = "220px";
  ui.canvas.after(p50Canvas);

  const results = new SweepResults();
  let pending = "…";
  const quoted = () => results.get(String(LOADS.indexOf(QUOTED_LOAD)));
  const ms = (v) => (typeof v === "number" && Number.isFinite(v) ? formatMs(v) : "unstable");
  const baseline = (v) => `nobody hedging ${ms(v)}`;

  function show() {
    const e = quoted();
    if (!e) {
      for (const x of Object.values(r)) x.set(pending, "");
      return;
    }
    r.aP99.set(ms(e.aP99), baseline(e.baseAP99));
    r.bP99.set(ms(e.bP99), baseline(e.baseBP99));
    r.aP50.set(ms(e.aP50), baseline(e.baseAP50));
    r.bP50.set(ms(e.bP50), baseline(e.baseBP50));
    // The check: with nobody hedging the tenants are one distribution, so their p99 intervals
    // overlap.
    const overlap =
      e.baseAP99Low !== null &&
      e.baseBP99Low !== null &&
      e.baseAP99Low <= e.baseBP99High &&
      e.baseBP99Low <= e.baseAP99High;
    const gap =
      e.baseAP99 !== null && e.baseBP99 !== null ? Math.abs(e.baseBP99 - e.baseAP99) : null;
    r.same.set(
      ms(gap),
      e.baseAP99Low === null || e.baseBP99Low === null
        ? "no intervals"
        : `95% intervals ${overlap ? "overlap" : "do not overlap"}`,
    );
  }

  const xs = LOADS;
  const series = (f) =>
    LOADS.map((_, i) => {
      const e = results.get(String(i));
      const v = e ? f(e) : null;
      return typeof v === "number" && Number.isFinite(v) ? v : Number.NaN;
    });

  function drawQuantile(canvas, q, label, min, max) {
    const c = chart(canvas, {
      legend: LINES.map(([, l, color, shape, dashed]) =>
        dashed
          ? { label: l, color, dash: [5, 4], width: 1.5, shape, hollow: true }
          : { label: l, color, shape, width: 2 },
      ),
      legendCorner: "left",
      x: X,
      y: { type: "log", min, max, label, format: formatTickMs },
    });
    c.axes();
    for (const [key, , color, shape, dashed] of LINES) {
      const ys = series((e) => e[`${key}${q}`]);
      c.line(xs, ys, { color, width: dashed ? 1.5 : 2, dash: dashed ? [5, 4] : [] });
      c.dots(
        xs.map((x, i) => {
          const e = results.get(String(i));
          return {
            x,
            y: ys[i],
            lo: e?.[`${key}${q}Low`] ?? undefined,
            hi: e?.[`${key}${q}High`] ?? undefined,
          };
        }),
        { color, shape, r: dashed ? 3 : 4, hollow: dashed },
      );
    }
    c.done();
  }

  const draw = (canvas = ui.canvas) => drawQuantile(canvas, "P99", "p99 latency", 10, 100_000);
  const drawP50 = (canvas = p50Canvas) => drawQuantile(canvas, "P50", "median latency", 1, 10_000);
  const redrawSoon = perFrame(() => {
    draw();
    drawP50();
  });

  function describe() {
    const e = quoted();
    if (!e) return;
    ui.canvas.setAttribute(
      "aria-label",
      `Each tenant's p99 against the load. At ${q} load A's p99 is ${ms(e.aP99)} (${ms(e.baseAP99)} with nobody hedging) and B's ${ms(e.bP99)} (${ms(e.baseBP99)}).`,
    );
    p50Canvas.setAttribute(
      "aria-label",
      `Each tenant's median against the load. At ${q} load A's median is ${ms(e.aP50)} (${ms(e.baseAP50)} with nobody hedging) and B's ${ms(e.bP50)} (${ms(e.baseBP50)}).`,
    );
  }

  function update() {
    const v = { "fair-share": Number(share.input.value), "fair-policy": policy.value };
    onChange(v);
    results.clear();
    pending = "…";
    show();
    ui.note.textContent = `${formatCount(REQUESTS)} requests a run on 10 FIFO replicas with ${service.label}. Each request is tenant A's with probability ${formatPct(v["fair-share"], 0)}; only A's requests send backups (a backup is cancelled when its primary answers). Solid: with A's backups; dashed, hollow: the same arrivals and work with nobody hedging. Bars are 95% intervals by batch means; a missing point is a run past its stability boundary.`;
    const calls = LOADS.map((load) => ({
      fn: "simulateFairness",
      args: [
        {
          load,
          shareA: v["fair-share"],
          policy: v["fair-policy"],
          requests: REQUESTS,
          seed: seed.value,
          ...(service.value && { service: service.value }),
        },
      ],
    }));
    // The sweep is under way from now: the progress line says so before the first answer.
    ui.progress(0, calls.length);
    runSweep(client, ui, calls, {
      size: "requests",
      onError: (error) => {
        pending = "—";
        show();
        r.aP99.set("error", error);
      },
      onResult: (res, final, point) => {
        results.set(String(point), res, final);
        show();
        describe();
      },
      onDiscard: (point) => results.discard(String(point)),
      redraw: redrawSoon,
    });
  }

  exportBar(ui.tools, {
    link,
    name: "fairness",
    title: "Each tenant's p99 against the load",
    canvas: ui.canvas,
    draw,
    meta: () => ({
      seed: seed.value,
      requests: REQUESTS,
      share_a: share.input.value,
      policy: policy.value,
      service: service.own ? "your data" : "lab",
    }),
    table: () => ({
      header: [
        "load",
        "a_p50_ms",
        "a_p99_ms",
        "b_p50_ms",
        "b_p99_ms",
        "base_a_p50_ms",
        "base_a_p99_ms",
        "base_b_p50_ms",
        "base_b_p99_ms",
      ],
      rows: results
        .finals()
        .sort((x, y) => x.load - y.load)
        .map((e) => [
          e.load,
          e.aP50,
          e.aP99,
          e.bP50,
          e.bP99,
          e.baseAP50,
          e.baseAP99,
          e.baseBP50,
          e.baseBP99,
        ]),
    }),
  });
  // Both charts answer the pointer and the keyboard (web/touch.js): each tenant's quantile at
  // the nearest load, with and without A's backups.
  for (const [canvas, q, what, redraw] of /** @type {const} */ ([
    [ui.canvas, "P99", "p99", draw],
    [p50Canvas, "P50", "median", drawP50],
  ]))
    touchChart(canvas, {
      xs: () => LOADS.filter((_, i) => results.get(String(i))),
      read: (load) => {
        const e = results.get(String(LOADS.indexOf(load)));
        if (!e) return null;
        return {
          lines: [
            `load ${formatPct(load, 0)}, ${what}`,
            ...LINES.map(([key, label]) => `${label}: ${ms(e[`${key}${q}`])}`),
          ],
          marks: LINES.map(([key, , color]) => ({ y: e[`${key}${q}`] ?? Number.NaN, color })),
        };
      },
      redraw: perFrame(() => redraw()),
    });
  share.input.addEventListener("input", update);
  policy.addEventListener("change", update);
  seed.watch(update, signal);
  service.watch(update, signal);
  redrawOnResize(ui.canvas, draw, signal);
  redrawOnResize(p50Canvas, drawP50, signal);
  update();
}
