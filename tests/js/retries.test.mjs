// Retries and a retry storm through the wasm API: simulateRetries against the native report's
// entries for the same seed (every field, series included), retriesTheory against the numbers a
// run reports, and bad options refused by name.

import assert from "node:assert/strict";
import { test } from "node:test";
import { camelCase, loadPackage, nativeReport, plain } from "../support.mjs";

const pkg = await loadPackage();

/** The options that reproduce a report entry (the report's runs are the defaults but these). */
function optionsOf(/** @type {any} */ e, /** @type {number} */ seed) {
  return { policy: e.policy, budget: e.budget, seed };
}

for (const seed of [1, 7]) {
  test(`simulateRetries equals the report's retries entries (seed ${seed})`, () => {
    const entries = nativeReport(seed, 1000).retries;
    assert.equal(entries.length, 4);
    for (const e of entries) {
      const r = /** @type {Record<string, unknown>} */ (
        /** @type {unknown} */ (pkg.simulateRetries(optionsOf(e, seed)))
      );
      for (const [key, value] of Object.entries(e)) {
        const got = r[camelCase(key)];
        if (Array.isArray(value)) {
          assert.ok(got instanceof Float64Array, key);
          // A window with no answer has no p99: NaN in the call, null in the JSON.
          assert.deepEqual(plain(got), value, key);
        } else {
          assert.equal(got, value, `${e.policy} ${e.budget} ${key}`);
        }
      }
    }
  });
}

test("the report's default spike storms without a budget and recovers with one", () => {
  const [retry, budget, hedge] = nativeReport(1, 1000).retries;
  assert.ok(retry.recovery < 0.05, `${retry.recovery}`);
  assert.ok(budget.recovery > 0.8, `${budget.recovery}`);
  assert.ok(hedge.amplification <= hedge.budget_bound);
  assert.ok(budget.amplification <= budget.budget_bound);
});

test("retriesTheory is the bound and the loads a run is checked against", () => {
  const r = pkg.simulateRetries({ budget: 0.1, seed: 3 });
  const t = pkg.retriesTheory({ load: 0.4, maxAttempts: 3, budget: 0.1, requests: r.requests });
  assert.equal(t.amplificationBound, r.budgetBound);
  assert.ok(r.amplification <= /** @type {number} */ (t.amplificationBound));
  assert.ok(Math.abs(t.stormLoad - 1.2) < 1e-12);
  assert.ok(Math.abs(/** @type {number} */ (t.budgetStormLoad) - 0.44) < 1e-12);
  assert.equal(pkg.retriesTheory({ load: 0.4 }).budgetStormLoad, null);
});

test("bad options are refused by name", () => {
  /** @type {[any, ErrorConstructor, string][]} */
  const bad = [
    [{ load: 0 }, RangeError, "load"],
    [{ load: "x" }, TypeError, "load"],
    [{ timeoutMs: 0 }, RangeError, "timeoutMs"],
    [{ timeoutMs: Number.NaN }, RangeError, "timeoutMs"],
    [{ maxAttempts: 0 }, RangeError, "maxAttempts"],
    [{ maxAttempts: 1.5 }, RangeError, "maxAttempts"],
    [{ backoff: "linear" }, RangeError, "backoff"],
    [{ backoff: "jitter", backoffBaseMs: -1 }, RangeError, "backoffBaseMs"],
    [{ backoff: "exponential", backoffCapMs: 1e9 }, RangeError, "backoffCapMs"],
    [{ hedgeDelayMs: -1 }, RangeError, "hedgeDelayMs"],
    [{ budget: 11 }, RangeError, "budget"],
    [{ budget: 0.1, budgetBurst: -1 }, RangeError, "budgetBurst"],
    [{ spike: 0.5 }, RangeError, "spike"],
    [{ spikeStartMs: -1 }, RangeError, "spikeStartMs"],
    [{ spikeEndMs: 1e6 }, RangeError, "spikeEndMs"],
    [{ queueLimit: 0 }, RangeError, "queueLimit"],
    [{ durationMs: 1 }, RangeError, "durationMs"],
    [{ windows: 2 }, RangeError, "windows"],
    [{ replicas: 1 }, RangeError, "replicas"],
    [{ policy: "storm" }, RangeError, "policy"],
    [{ requests: 1000 }, TypeError, "requests"],
    [{ load: 2, durationMs: 3_600_000, replicas: 1000 }, RangeError, "expected requests"],
  ];
  for (const [opts, type, name] of bad) {
    assert.throws(
      () => pkg.simulateRetries(opts),
      (/** @type {Error} */ e) => e instanceof type && e.message.includes(name),
      JSON.stringify(opts),
    );
  }
  assert.throws(() => pkg.retriesTheory({ load: -1 }), RangeError);
  assert.throws(() => pkg.retriesTheory(/** @type {any} */ ({ nope: 1 })), TypeError);
});

test("labDefaults().retries is what simulateRetries runs with, and every backoff name is taken", () => {
  const lab = pkg.labDefaults().retries;
  const r = pkg.simulateRetries({ seed: 2 });
  assert.equal(r.timeoutMs, lab.timeoutMs);
  assert.equal(r.spike, lab.spike);
  assert.equal(r.backoff, lab.backoffs[0], "the default backoff comes first");
  for (const backoff of lab.backoffs)
    assert.equal(
      pkg.simulateRetries({ backoff, durationMs: 2000, windows: 4, spike: 1 }).backoff,
      backoff,
    );
  assert.equal(pkg.simulateRetries({ budget: lab.budget, seed: 2 }).budget, lab.budget);
});

test("a reader's own service model is taken", () => {
  const service = { body: { medianMs: 5, sigma: 0.3 } };
  /** @type {import("../../web/pkg/tail_lab.js").RetriesOptions} */
  const calm = { durationMs: 5000, windows: 5, spike: 1, policy: "none", timeoutMs: Infinity };
  const own = pkg.simulateRetries({ ...calm, service });
  const lab = pkg.simulateRetries(calm);
  // A 5 ms body with no slow mode: the median answer is below the Lab's (7.7 ms body, queued
  // behind its one-second hiccups).
  assert.ok(
    /** @type {number} */ (own.p50) < /** @type {number} */ (lab.p50),
    `${own.p50} ${lab.p50}`,
  );
});
