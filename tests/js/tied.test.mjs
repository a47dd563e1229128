// Tied requests in node: simulateTied reproduces the report's `tied` entries bit for bit,
// its references are the loaded model's runs, tiedTheory is the single queue's M/M/c scaled to
// ms, and bad options throw naming the option.

import assert from "node:assert/strict";
import { test } from "node:test";
import { loadPackage, nativeReport, readDts, reportRun } from "../support.mjs";

const pkg = await loadPackage();
const REQUESTS = 20_000;

const camel = (key) => key.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());

/** The options of a report entry's run, from the entry alone (support.mjs's reportRun). */
const tiedRun = reportRun(readDts(), "simulateTied");
const reportOptions = (entry, seed) => ({ ...tiedRun(entry), seed });

for (const seed of [1, 7]) {
  test(`simulateTied reproduces the report's tied entries field by field (seed ${seed})`, () => {
    const report = nativeReport(seed, REQUESTS);
    assert.equal(report.tied.length, 4);
    for (const [i, entry] of report.tied.entries()) {
      const r = pkg.simulateTied(reportOptions(entry, seed));
      for (const [key, value] of Object.entries(entry)) {
        assert.deepEqual(r[camel(key)], value, `entry ${i}: ${key}`);
      }
    }
  });
}

test("the references are the loaded model's runs, in the tied result's shape", () => {
  for (const policy of /** @type {const} */ (["none", "hedge", "duplicate"])) {
    const opts = { load: 0.4, requests: REQUESTS, seed: 3 };
    const t = pkg.simulateTied({ ...opts, policy });
    const l = pkg.simulateLoaded({ ...opts, policy });
    assert.equal(t.policy, policy);
    assert.equal(t.p99, l.p99);
    assert.equal(t.mean, l.mean);
    assert.equal(t.p99High, l.p99High);
    assert.equal(t.extraWork, l.capacityCost / 0.4);
    assert.equal(t.tie, null);
    assert.equal(t.lateCancellations, null);
  }
});

test("Infinity is a message delay that never lands", () => {
  const r = pkg.simulateTied({ load: 0.3, messageDelayMs: Infinity, requests: REQUESTS });
  assert.equal(r.messageDelayMs, null);
  assert.equal(r.lateCancellations, null);
  assert.equal(r.copiesStarted, 2);
  assert.equal(r.stable, true);
  // At tie · load ≥ 1 every copy runs and the replicas are past capacity.
  const over = pkg.simulateTied({ load: 0.5, messageDelayMs: Infinity, requests: REQUESTS });
  assert.equal(over.stable, false);
  assert.equal(over.p99, null);
  assert.match(over.unstableReason, /never land/);
});

test("tiedTheory is the single queue's M/M/c, in ms", () => {
  for (const [c, load] of [
    [2, 0.5],
    [10, 0.7],
  ]) {
    const t = pkg.tiedTheory(c, load, 10);
    const q = pkg.queueTheory(c, load);
    assert.ok(Math.abs(t.meanMs - 10 * q.mean) < 1e-12 * t.meanMs);
    assert.ok(Math.abs(t.p99Ms - 10 * q.p99) < 1e-9 * t.p99Ms);
    assert.equal(t.waitProbability, q.waitProbability);
    assert.ok(t.p50Ms < t.p99Ms && t.p99Ms < t.p999Ms);
  }
});

test("bad options throw, naming the option", () => {
  /** @type {[any, ErrorConstructor, RegExp][]} */
  const bad = [
    [{ policy: "tie" }, RangeError, /policy/],
    [{ policy: 2 }, TypeError, /policy/],
    [{ load: 0 }, RangeError, /load/],
    [{ load: Number.NaN }, RangeError, /load/],
    [{ replicas: 1 }, RangeError, /replicas/],
    [{ replicas: 101 }, RangeError, /replicas/],
    [{ tie: 1 }, RangeError, /tie/],
    [{ tie: 11 }, RangeError, /tie/],
    [{ tie: 2.5 }, RangeError, /tie/],
    [{ messageDelayMs: -1 }, RangeError, /messageDelayMs/],
    [{ messageDelayMs: Number.NaN }, RangeError, /messageDelayMs/],
    [{ messageDelayMs: -Infinity }, RangeError, /messageDelayMs/],
    [{ messageDelayMs: 2e9 }, RangeError, /messageDelayMs/],
    [{ messageDelayMs: "1" }, TypeError, /messageDelayMs/],
    [{ requests: 10 }, RangeError, /requests/],
    [{ exponentialMeanMs: 0 }, RangeError, /exponentialMeanMs/],
    [
      { exponentialMeanMs: 10, service: { body: { medianMs: 5, sigma: 0.5 } } },
      TypeError,
      /exponentialMeanMs/,
    ],
    [{ ties: 2 }, TypeError, /ties/],
  ];
  for (const [opts, type, name] of bad) {
    assert.throws(
      () => pkg.simulateTied({ requests: 1000, ...opts }),
      (e) => {
        assert.ok(e instanceof type, `${JSON.stringify(opts)}: ${e}`);
        assert.match(String(e.message), name);
        return true;
      },
    );
  }
  assert.throws(() => pkg.tiedTheory(1, 0.5, 10), /replicas/);
  assert.throws(() => pkg.tiedTheory(3, 1, 10), /load/);
  assert.throws(() => pkg.tiedTheory(3, 0.5, 0), /meanMs/);
});
