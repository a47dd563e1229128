// Correlated stragglers through the wasm API: simulateCorrelated against the native report entry
// for the same seed, correlatedTheory against the closed forms the simulation reports, the
// checks the model settles (c = 1 gives p, c = 0 gives 1 − (1 − p)^n), and bad options refused
// by name.

import assert from "node:assert/strict";
import { test } from "node:test";
import { camelCase, loadPackage, nativeReport } from "../support.mjs";

const pkg = await loadPackage();
const REQUESTS = 3_000;

for (const seed of [1, 7]) {
  test(`simulateCorrelated equals the report's correlated entry (seed ${seed})`, () => {
    const e = nativeReport(seed, REQUESTS).correlated;
    const r = pkg.simulateCorrelated({
      n: e.n,
      c: e.c,
      cr: e.cr,
      drop: e.drop,
      p: e.p,
      delayQ: 0.95,
      requests: e.requests,
      seed,
    });
    for (const [key, value] of Object.entries(e)) {
      if (typeof value !== "number") continue;
      assert.equal(r[camelCase(key)], value, key);
    }
    assert.deepEqual(Array.from(r.curves.sim.hedge), e.curves.sim.hedge);
    assert.deepEqual(Array.from(r.gain.theoryGain), e.gain.theory_gain);
  });
}

test("correlatedTheory is the closed form the simulation reports, at c and at 0", () => {
  const opts = { n: 40, c: 0.6, cr: 0.25, drop: 0.05, p: 0.02, delayQ: 0.9 };
  const r = pkg.simulateCorrelated({ ...opts, requests: 500, seed: 3 });
  const t = pkg.correlatedTheory(opts);
  const t0 = pkg.correlatedTheory({ ...opts, c: 0 });
  assert.equal(t.dropped, 2);
  assert.equal(t.delayMs, r.delayMs);
  assert.equal(t.slowMs, r.slowMs);
  assert.equal(t.leafP99, r.theoryLeafP99);
  for (const fix of ["none", "drop", "hedge"]) {
    const up = fix[0].toUpperCase() + fix.slice(1);
    assert.equal(t[fix].p99, r[`theoryP99${up}`], fix);
    assert.equal(t[fix].slowShare, r[`theorySlow${up}`], fix);
    assert.equal(t0[fix].p999, r[`theoryP999${up}Indep`], fix);
    assert.equal(t0[fix].slowShare, r[`theorySlow${up}Indep`], fix);
  }
});

test("the slider's ends: c = 1 gives p, c = 0 gives 1 − (1 − p)^n, and the leaf never moves", () => {
  for (const n of [1, 100, 1000]) {
    const one = pkg.correlatedTheory({ n, c: 1 });
    assert.ok(Math.abs(one.none.slowShare - 0.01) < 1e-12, `n=${n}`);
    const zero = pkg.correlatedTheory({ n, c: 0 });
    assert.ok(Math.abs(zero.none.slowShare - pkg.slowShare(0.01, n)) < 1e-12, `n=${n}`);
    assert.equal(one.leafP50, zero.leafP50);
  }
});

test("bad options are refused by name", () => {
  /** @type {[any, ErrorConstructor, string][]} */
  const bad = [
    [{ n: 0 }, RangeError, "n"],
    [{ n: 1001 }, RangeError, "n"],
    [{ c: 1.5 }, RangeError, "c"],
    [{ c: Number.NaN }, RangeError, "c"],
    [{ cr: -0.1 }, RangeError, "cr"],
    [{ drop: 0.6 }, RangeError, "drop"],
    [{ p: 0 }, RangeError, "p"],
    [{ delayQ: 1 }, RangeError, "delayQ"],
    [{ delayMs: -1 }, RangeError, "delayMs"],
    [{ delayQ: 0.9, delayMs: 10 }, TypeError, "delayQ or delayMs"],
    [{ c: "0.5" }, TypeError, "c"],
    [{ requests: 0 }, RangeError, "requests"],
    [{ n: 1000, requests: 1e7 }, RangeError, "4 × requests × n"],
    [{ colour: 1 }, TypeError, "colour"],
    [{ service: { body: { medianMs: -1, sigma: 0.5 } } }, RangeError, "service.body.medianMs"],
  ];
  for (const [opts, type, name] of bad) {
    assert.throws(
      () => pkg.simulateCorrelated(opts),
      (/** @type {any} */ e) => e instanceof type && e.message.includes(name),
      JSON.stringify(opts),
    );
  }
  // The closed forms take no requests or seed.
  assert.throws(() => pkg.correlatedTheory({ requests: 10 }), TypeError);
  assert.throws(() => pkg.correlatedTheory({ c: 2 }), RangeError);
});

test("a reader's own service model is taken", () => {
  const service = { body: { medianMs: 30, sigma: 0.4 } };
  const r = pkg.simulateCorrelated({ service, requests: 200, n: 10 });
  assert.ok(Math.abs(r.theoryLeafP50 - 30) < 1e-6);
  assert.equal(pkg.correlatedTheory({ service, n: 10 }).leafP50, r.theoryLeafP50);
});
