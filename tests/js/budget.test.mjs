// Hedge budgets through the wasm API: simulateBudget against the native report entry for the
// same seed (every field, every window), budgetHedgeBound against the budgeted run, and bad
// options refused by name.

import assert from "node:assert/strict";
import { test } from "node:test";
import { camelCase, loadPackage, nativeReport } from "../support.mjs";

const pkg = await loadPackage();
const POLICIES = ["none", "hedge", "budgeted", "disabled"];

/** A JSON value as the API gives it: arrays as Float64Array, null in a series as NaN. */
function same(api, json, at) {
  if (Array.isArray(json)) {
    assert.ok(api instanceof Float64Array, `${at} is a Float64Array`);
    assert.deepEqual(
      Array.from(api),
      json.map((x) => (x === null ? Number.NaN : x)),
      at,
    );
  } else if (json !== null && typeof json === "object") {
    for (const [k, v] of Object.entries(json)) same(api[camelCase(k)], v, `${at}.${k}`);
  } else assert.equal(api, json, at);
}

for (const seed of [1, 7]) {
  test(`simulateBudget equals the report's budget entry, every field and window (seed ${seed})`, () => {
    const e = nativeReport(seed, 1000).budget;
    const r = pkg.simulateBudget({ seed });
    same(r, e, "budget");
    assert.equal(Object.keys(r).length, Object.keys(e).length);
    for (const p of POLICIES) assert.equal(r[p].windowRequests.length, 30, p);
  });
}

test("budgetHedgeBound is the bound the budgeted run stays under", () => {
  const r = pkg.simulateBudget({ seed: 3, load: 0.8, tokenRatio: 0.05, spanMs: 20_000 });
  const bound = pkg.budgetHedgeBound(10, 0.05, r.budgeted.requests);
  assert.equal(bound / r.budgeted.requests, r.hedgeFractionBound);
  assert.ok(r.budgeted.backups <= bound);
  assert.ok(r.hedge.backups > bound, "the plain hedge would pass it: the budget binds");
  assert.equal(pkg.budgetHedgeBound(10, 0.1, 10_000), 1005);
  // Unlimited: no bound, and the budgeted run is the plain hedge's.
  const u = pkg.simulateBudget({ seed: 3, maxTokens: "unlimited", spanMs: 10_000 });
  assert.equal(u.hedgeFractionBound, null);
  assert.equal(u.budgeted.p99, u.hedge.p99);
  assert.deepEqual(Array.from(u.budgeted.windowBackups), Array.from(u.hedge.windowBackups));
});

test("bad options throw RangeError or TypeError naming the option", () => {
  /** @type {[any, ErrorConstructor, RegExp][]} */
  const cases = [
    [{ load: 0 }, RangeError, /load/],
    [{ load: "half" }, TypeError, /load/],
    [{ slowdown: 0.5 }, RangeError, /slowdown/],
    [{ replicas: 1 }, RangeError, /replicas/],
    [{ spanMs: -1 }, RangeError, /spanMs/],
    [{ spanMs: 600_000, load: 2 }, RangeError, /spanMs/],
    [{ outageStartMs: 70_000 }, RangeError, /outageStartMs/],
    [{ outageEndMs: 10_000 }, RangeError, /outageEndMs/],
    [{ windows: 2 }, RangeError, /windows/],
    [{ delayRule: "p95" }, RangeError, /delayRule/],
    [{ delayMs: 0 }, RangeError, /delayMs/],
    [{ maxTokens: 1 }, RangeError, /maxTokens/],
    // A string is a value maxTokens takes ("unlimited"): another word is a bad value, as a run
    // length's "often" is, not a wrong type.
    [
      { maxTokens: "lots" },
      RangeError,
      /maxTokens must be a whole number of tokens, or "unlimited"/,
    ],
    [{ tokenRatio: 0 }, RangeError, /tokenRatio/],
    [{ disableDepth: -1 }, RangeError, /disableDepth/],
    [{ disableUtilisation: "yes" }, TypeError, /disableUtilisation/],
    [{ seed: -1 }, RangeError, /seed/],
    [{ budget: 1 }, TypeError, /unknown key "budget"/],
  ];
  for (const [opts, type, message] of cases)
    assert.throws(
      () => pkg.simulateBudget(opts),
      { name: type.name, message },
      JSON.stringify(opts),
    );
  assert.throws(() => pkg.budgetHedgeBound(1, 0.1, 10), {
    name: "RangeError",
    message: /maxTokens/,
  });
  assert.throws(() => pkg.budgetHedgeBound(10, 2, 10), {
    name: "RangeError",
    message: /tokenRatio/,
  });
  assert.throws(() => pkg.budgetHedgeBound(10, 0.1, 1.5), {
    name: "RangeError",
    message: /requests/,
  });
});
