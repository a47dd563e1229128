// The benchmark's JavaScript baselines simulate the same model as the core, or their speed
// would compare unequal work (the cell-map baseline is checked to make the recipe one's exact
// counts): both baselines' leaf and parent histograms are compared with a
// TailRun's, bin-edge CDF against bin-edge CDF, with a two-sample binomial tolerance (4.5
// standard errors), at the body's median, the leaf p99 and p99.9 (where the pause lives) and
// the parent's median and p99.

import assert from "node:assert/strict";
import { test } from "node:test";
import { fastRun, fastRunCellBins, prepareFast } from "../../web/bench/fast-reference.js";
import { referenceRun } from "../../web/bench/reference.js";
import { Z, loadPackage } from "../support.mjs";

const pkg = await loadPackage();
const edges = pkg.binEdges();

/** Fraction of `counts` at or below the bin edge nearest `t`. */
function below(counts, t) {
  let b = 0;
  while (b + 1 < edges.length && Math.abs(edges[b + 1] - t) < Math.abs(edges[b] - t)) b++;
  let acc = 0;
  for (let i = 0; i < b; i++) acc += counts[i];
  return acc / counts.reduce((x, y) => x + y, 0);
}

function agree(name, counts, reference, levels, n1, n2) {
  for (const t of levels) {
    const p1 = below(counts, t),
      p2 = below(reference, t);
    const p = (p1 * n1 + p2 * n2) / (n1 + n2);
    const tol = Z * Math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2)) + 1e-12;
    assert.ok(
      Math.abs(p1 - p2) <= tol,
      `${name} at ${t.toFixed(2)} ms: ${p1} vs the core's ${p2} ± ${tol}`,
    );
  }
}

test("both JS baselines draw the core's default-profile leaves and parents", () => {
  const requests = 20_000,
    fanout = 100;
  const run = new pkg.TailRun({ fanout, seed: 4 });
  run.run(requests);
  const leafLevels = [0.5, 0.99, 0.999].map((q) => run.leafPercentile(q));
  const parentLevels = [0.5, 0.99].map((q) => run.parentPercentile(q));
  const core = { leaf: Array.from(run.leafBins()), parent: Array.from(run.parentBins()) };
  for (const [name, result] of [
    ["performance-minded", fastRun(requests, fanout, 7, prepareFast())],
    ["seed-style", referenceRun(requests, fanout, 7)],
  ]) {
    agree(`${name} leaf`, result.leaf, core.leaf, leafLevels, requests * fanout, requests * fanout);
    agree(`${name} parent`, result.parent, core.parent, parentLevels, requests, requests);
  }
});

test("the cell-map JS baseline makes the same draws and bins as the recipe one", () => {
  // Its map is set-up, not a different model: every count must be the same, for two seeds.
  const tables = prepareFast();
  for (const seed of [3, 11]) {
    const a = fastRun(3_000, 100, seed, tables),
      b = fastRunCellBins(3_000, 100, seed, tables);
    assert.deepEqual(Array.from(b.leaf), Array.from(a.leaf));
    assert.deepEqual(Array.from(b.parent), Array.from(a.parent));
    assert.equal(
      a.leaf.reduce((x, y) => x + y, 0),
      300_000,
    );
  }
});
