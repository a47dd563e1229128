// The loaded section's chart drawn in node on svg.js's recording context (web/lab/sections/loaded
// /draw.js): a line never crosses a load that is not computed (a drafted sweep shows no line
// that is not data), the chosen policy is drawn thick and opaque and the others faded, and the
// legend is a strip above the plot, clear of every point.

import assert from "node:assert/strict";
import { test } from "node:test";

// What the drawing needs from a page: the stylesheet's colours (each custom property's own
// name, so a stroke says whose it is) and nothing else.
globalThis.Element ??= /** @type {any} */ (class {});
globalThis.document ??= /** @type {any} */ ({ documentElement: {} });
globalThis.getComputedStyle ??= /** @type {any} */ (
  () => ({ getPropertyValue: (/** @type {string} */ name) => name })
);

const { drawLoaded, runs, POLICY_STYLE, X_AXIS } = await import(
  "../../web/lab/sections/loaded/draw.js"
);
const { svgCanvas } = await import("../../web/svg.js");

const LOADS = Array.from({ length: 19 }, (_, i) => Number((0.05 * (i + 1)).toFixed(2)));
const POLICIES = Object.entries(POLICY_STYLE).map(([name, s]) => ({ name, ...s }));

/** A stand-in canvas of `width` CSS px. */
function fakeCanvas(width = 640) {
  const attrs = { height: "340" };
  return {
    clientWidth: width,
    dataset: /** @type {Record<string, string>} */ ({}),
    style: {},
    getAttribute: (/** @type {string} */ k) => attrs[k] ?? null,
    closest: () => null,
  };
}

/** An answer at `load` (p50 and p99 growing with the load), stable unless said. */
const answer = (load, policy, stable = true) => ({
  load,
  policy,
  stable,
  atCapacity: false,
  p50: 5 + 20 * load,
  p99: 40 + 400 * load,
  p50Low: 4.9 + 20 * load,
  p50High: 5.1 + 20 * load,
  p99Low: 20 + 200 * load,
  p99High: 80 + 800 * load,
  mean: 10 + 30 * load,
});

/** Draws the chart with `computed[policy]` the indices of LOADS answered (stable below `unstableFrom`). */
function draw(computed, { highlight = "hedge", unstableFrom = {}, width = 640 } = {}) {
  const results = new Map();
  for (const [policy, indices] of Object.entries(computed))
    for (const i of indices)
      results.set(
        `${LOADS[i]}|${policy}`,
        answer(LOADS[i], policy, i < (unstableFrom[policy] ?? Number.POSITIVE_INFINITY)),
      );
  const stand = svgCanvas(fakeCanvas(width));
  const drawn = drawLoaded(stand, {
    loads: LOADS,
    policies: POLICIES,
    get: (l, p) => results.get(`${l}|${p}`),
    highlight,
    marker: 0.6,
    theory: null,
    means: true,
  });
  return { svg: stand.toString(), drawn, results };
}

/**
 * Every polyline stroked in `colour` (a path of one move and its lines: the data lines; error
 * bars and markers have several moves or a close), as lists of x pixels, with its attributes.
 */
function polylines(svg, colour, top = 0) {
  const out = [];
  for (const m of svg.matchAll(/<path d="([^"]*)" fill="none" stroke="([^"]*)"([^>]*)\/>/g)) {
    const [, d, stroke, rest] = m;
    if (stroke !== colour || !/^M[^MLZAa]+(L[^MLZAa]+)+$/.test(d)) continue;
    const xs = [...d.matchAll(/[ML](-?[\d.]+) (-?[\d.]+)/g)].map((v) => Number(v[1]));
    const ys = [...d.matchAll(/[ML](-?[\d.]+) (-?[\d.]+)/g)].map((v) => Number(v[2]));
    if (xs.every((x) => x === xs[0])) continue; // a vertical marker line, not data
    if (ys.every((y) => y < top)) continue; // the legend's swatch, above the plot
    out.push({ xs, rest });
  }
  return out;
}

test("runs: the stretches of finite values, split at every gap", () => {
  assert.deepEqual(runs([1, 2, Number.NaN, 4, undefined, 6, 7, 8]), [
    [0, 1],
    [3, 3],
    [5, 7],
  ]);
  assert.deepEqual(runs([]), []);
  assert.deepEqual(runs([Number.NaN, null]), []);
  assert.deepEqual(runs([1]), [[0, 0]]);
});

test("a line joins two loads only when both are computed and stable: it breaks at every missing point", () => {
  // A draft in progress: some loads answered, others not yet; the hedge unstable from index 14.
  const computed = {
    none: [0, 1, 2, 5, 6, 10, 11, 12, 13, 18],
    hedge: [0, 2, 3, 4, 8, 9, 10, 13, 14, 15, 16],
    duplicate: [7],
  };
  const { svg, drawn } = draw(computed, { unstableFrom: { hedge: 14 } });
  const sx = drawn.chart.sx;
  const indexAt = (px) => {
    const i = LOADS.findIndex((l) => Math.abs(sx(l) - px) < 0.02);
    assert.ok(i >= 0, `a line vertex at x=${px} px is at no load of the sweep`);
    return i;
  };
  let checked = 0;
  for (const p of POLICIES) {
    const ok = new Set(
      computed[p.name].filter((i) => i < ({ hedge: 14 }[p.name] ?? Number.POSITIVE_INFINITY)),
    );
    for (const { xs } of polylines(svg, `--c-${p.name}`, drawn.chart.plot.top)) {
      const idx = xs.map(indexAt);
      for (const i of idx)
        assert.ok(ok.has(i), `${p.name}: a line through load ${LOADS[i]}, not computed`);
      for (let k = 1; k < idx.length; k++) {
        assert.equal(
          idx[k],
          idx[k - 1] + 1,
          `${p.name}: a line from ${LOADS[idx[k - 1]]} straight to ${LOADS[idx[k]]} crosses a missing load`,
        );
        checked++;
      }
    }
    // What the chart says it drew is what it drew: `segments`, per quantile.
    for (const f of ["p50", "p99"])
      for (const [a, b] of drawn.segments[p.name][f])
        for (const l of LOADS.filter((l) => l >= a && l <= b))
          assert.ok(ok.has(LOADS.indexOf(l)), `${p.name} ${f}: segment ${a}–${b} crosses ${l}`);
  }
  // none: 0–2, 5–6, 10–13 (2 + 1 + 3 joins), hedge: 2–4, 8–10 (2 + 2), twice (p50, p99).
  assert.equal(checked, 2 * (6 + 4), "every join between computed neighbours is drawn");
  assert.deepEqual(drawn.segments.none.p50, [
    [0.05, 0.15],
    [0.3, 0.35],
    [0.55, 0.7],
  ]);
  assert.deepEqual(drawn.segments.duplicate.p50, [], "a single point is a marker, not a line");
});

test("the chosen policy is drawn thick and opaque, the others faded: the chart differs by policy", () => {
  const all = Object.fromEntries(POLICIES.map((p) => [p.name, LOADS.map((_, i) => i)]));
  const drawnHedge = draw(all, { highlight: "hedge" });
  const hedge = drawnHedge.svg;
  const none = draw(all, { highlight: "none" }).svg;
  const top = drawnHedge.drawn.chart.plot.top;
  assert.notEqual(hedge, none);
  for (const [svg, chosen] of [
    [hedge, "hedge"],
    [none, "none"],
  ]) {
    for (const p of POLICIES) {
      const lines = polylines(svg, `--c-${p.name}`, top);
      assert.equal(lines.length, 2, `${p.name}: one p50 and one p99 line`);
      for (const { rest } of lines) {
        const faded = /opacity="0.3"/.test(rest);
        assert.equal(faded, p.name !== chosen, `${p.name} with ${chosen} chosen: ${rest}`);
      }
      const widths = lines.map(({ rest }) => Number(/stroke-width="([\d.]+)"/.exec(rest)?.[1]));
      if (p.name === chosen) assert.deepEqual(widths, [3, 2.25]);
      else assert.ok(Math.max(...widths) <= 1.5, `${p.name}: ${widths}`);
    }
  }
});

test("the legend is a strip above the plot at any width: no label box reaches into the data", () => {
  const all = Object.fromEntries(POLICIES.map((p) => [p.name, LOADS.map((_, i) => i)]));
  for (const width of [320, 390, 600, 1280]) {
    const { drawn } = draw(all, { width });
    const top = drawn.chart.plot.top;
    const canvas = fakeCanvas(width);
    const stand = svgCanvas(canvas);
    drawLoaded(stand, {
      loads: LOADS,
      policies: POLICIES,
      get: () => undefined,
      highlight: "hedge",
    });
    // The legend's items (the chart's ticks and axis titles are published with them).
    const boxes = JSON.parse(stand.dataset.labels).filter((b) =>
      /^(no backups|hedge at p95|duplicate all)( \(chosen\))?$|^p50 solid|^no backups: mean|^M\/G\/1/.test(
        b.text,
      ),
    );
    assert.ok(boxes.length >= POLICIES.length + 3, `${width}: every legend item placed`);
    for (const b of boxes) {
      assert.ok(
        b.y + b.h <= top,
        `${width} px: "${b.text}" ends at ${b.y + b.h}, the plot starts at ${top}`,
      );
      assert.ok(b.x >= 0 && b.x + b.w <= width, `${width} px: "${b.text}" inside the canvas`);
    }
    // The plot keeps its height: the canvas grows by the legend's rows.
    assert.equal(drawn.chart.plot.bottom - top, 340 - 14 - 40, `${width} px`);
    assert.equal(X_AXIS.min, 0);
  }
});
