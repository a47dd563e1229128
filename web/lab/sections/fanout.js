// Section 1, fan-out: the share of requests that meet a slow leaf, 1 − (1 − p)^n, against the
// simulated share at several fan-outs with 95% binomial error bars.

import { formatPct } from "../../format.js";
import { COLORS, chart } from "../plot.js";
import { panel, readout, redrawOnResize, slider } from "../section.js";

/** Fan-outs that get a simulated dot (the chosen one is added). */
const DOT_FANOUTS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
/** Requests per dot: a binomial standard error of at most 0.16 points. */
const REQUESTS = 100_000;
const SEED = 1;

/** The log slider's value (log10 p, 0.001 steps) → p, rounded to 3 significant digits. */
const pOf = (v) => Number((10 ** v).toPrecision(3));

export function mount(root, { client, api }) {
  const ui = panel(root, { chartHeight: 300, chartLabel: "Share of slow requests against fan-out" });
  const p = slider(ui.controls, {
    id: "fanout-p", label: "leaf slow probability p", min: -3, max: -0.699, step: 0.001, value: -2,
    format: (v) => formatPct(pOf(v), pOf(v) < 0.01 ? 2 : 1),
  });
  const n = slider(ui.controls, { id: "fanout-n", label: "fan-out n", min: 1, max: 1000, step: 1, value: 100 });
  const share = readout(ui.readouts, { name: "slow-share", label: "slow requests, simulated", theory: true });
  const dots = new Map();
  let theoryCurve = { xs: [], ys: [] };

  function draw() {
    const c = chart(ui.canvas, {
      x: { type: "log", min: 1, max: 1000, label: "fan-out n (leaves per request)" },
      y: { type: "linear", min: 0, max: 1, label: "share of requests with a slow leaf", format: (v) => formatPct(v, 0) },
    });
    c.axes();
    c.line(theoryCurve.xs, theoryCurve.ys, { color: COLORS.theory, width: 2 });
    const points = [...dots.values()].map((d) => ({ x: d.n, y: d.sim, lo: d.sim - 1.96 * d.stdErr, hi: d.sim + 1.96 * d.stdErr }));
    c.dots(points, { color: COLORS.duplicate, r: 4, shape: "square" });
    const chosen = Number(n.input.value);
    c.vline(chosen, `n = ${chosen}`);
    c.legend([
      { label: "1 − (1 − p)^n", color: COLORS.theory },
      { label: "simulated, 95% interval", color: COLORS.duplicate, shape: "square" },
    ]);
  }

  function update() {
    const pv = pOf(Number(p.input.value));
    const nv = Number(n.input.value);
    const xs = Array.from({ length: 121 }, (_, i) => Math.round(10 ** (i / 40)));
    theoryCurve = { xs, ys: xs.map((k) => api.slowShare(pv, k)) };
    const theory = api.slowShare(pv, nv);
    share.set("…", `theory ${formatPct(theory)}`);
    ui.canvas.setAttribute("aria-label", `Share of requests with a slow leaf against fan-out, p = ${formatPct(pv, 2)}: theory ${formatPct(theory)} at n = ${nv}`);
    dots.clear();
    const fanouts = [nv, ...DOT_FANOUTS.filter((k) => k !== nv)];
    const calls = fanouts.map((k) => ({ fn: "simulateFanout", args: [{ p: pv, n: k, requests: REQUESTS, seed: SEED }] }));
    client.run(calls, {
      onPoint: (i, r, error) => {
        if (error) return share.set("error", error);
        dots.set(r.n, r);
        if (i === 0) share.set(formatPct(r.sim), `theory ${formatPct(r.theory)}`);
      },
      // One redraw per batch of answers (cached ones arrive together), not one per point.
      onProgress: (done, total) => { ui.progress(done, total); draw(); },
    });
  }

  ui.note.textContent = `Each dot is ${REQUESTS.toLocaleString("en-US")} simulated requests whose leaves are each slow with probability p, independently; the bar is its 95% binomial interval.`;
  p.input.addEventListener("input", update);
  n.input.addEventListener("input", update);
  redrawOnResize(ui.canvas, draw);
  update();
}
