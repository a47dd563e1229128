// traceSupermarket and traceLoaded (the queue animations' data) against the built package.

import assert from "node:assert/strict";
import { test } from "node:test";
import { loadPackage } from "../support.mjs";

const pkg = await loadPackage();

test("traceSupermarket: typed arrays, one row of lengths an event, each event moves one queue", () => {
  const t = pkg.traceSupermarket({ servers: 10, lambda: 0.9, d: 2, arrivals: 300, seed: 3 });
  assert.ok(t.times instanceof Float64Array);
  assert.ok(t.lengths instanceof Uint32Array && t.sampled instanceof Uint32Array);
  assert.ok(t.arrival instanceof Uint8Array && t.server instanceof Uint32Array);
  const events = t.times.length;
  assert.equal(t.lengths.length, events * 10);
  const arrivals = [...t.arrival].filter((a) => a === 1).length;
  assert.equal(arrivals, 300);
  assert.equal(t.sampled.length, 300 * 2);
  let j = 0;
  for (let i = 0; i < events; i++) {
    const row = t.lengths.subarray(i * 10, i * 10 + 10);
    if (t.arrival[i] === 1) {
      const picks = [...t.sampled.subarray(j * 2, j * 2 + 2)];
      assert.ok(picks.includes(t.server[i]), `arrival ${j} joined a sampled server`);
      // The joined queue was a shortest of the two before the arrival.
      const before = (s) => row[s] - (s === t.server[i] ? 1 : 0);
      assert.ok(picks.every((s) => before(t.server[i]) <= before(s)));
      j++;
    }
    if (i > 0) {
      const prev = t.lengths.subarray((i - 1) * 10, i * 10);
      const moved = [...row].filter((l, s) => l !== prev[s]);
      assert.equal(moved.length, 1);
    }
  }
  // The same arguments give the same trace (the animation's test compares against this).
  const again = pkg.traceSupermarket({ servers: 10, lambda: 0.9, d: 2, arrivals: 300, seed: 3 });
  assert.deepEqual([...again.lengths], [...t.lengths]);
  // policy names the same d.
  const named = pkg.traceSupermarket({
    servers: 10,
    lambda: 0.9,
    policy: "two",
    arrivals: 300,
    seed: 3,
  });
  assert.deepEqual([...named.sampled], [...t.sampled]);
});

test("traceLoaded: each replica's primaries and backups after each event; the summary is the run's", () => {
  const t = pkg.traceLoaded({
    load: 0.5,
    policy: "duplicate",
    requests: 400,
    warmup: 600,
    seed: 2,
  });
  assert.ok(t.times instanceof Float64Array && t.kind instanceof Uint8Array);
  assert.ok(t.primaries instanceof Uint32Array && t.backups instanceof Uint32Array);
  assert.equal(t.replicas, 10);
  assert.equal(t.primaries.length, t.times.length * 10);
  assert.equal([...t.kind].filter((k) => k === 0).length, 400);
  assert.ok(
    t.backups.some((b) => b > 0),
    "duplicates hold backups",
  );
  const run = pkg.simulateLoaded({ load: 0.5, policy: "duplicate", requests: 1000, seed: 2 });
  assert.equal(typeof run.p99, "number");
  assert.equal(t.summary.p99, run.p99);
  assert.equal(t.summary.mean, run.mean);
  assert.equal(t.summary.extraWork, run.extraWork);
  const none = pkg.traceLoaded({ load: 0.5, requests: 400, seed: 2 });
  assert.ok(none.backups.every((b) => b === 0));
});

test("bad arguments throw RangeError or TypeError naming the argument", () => {
  // Untyped: the wrong types are the point.
  const api = /** @type {any} */ (pkg);
  /** @type {[() => unknown, ErrorConstructor, RegExp][]} */
  const cases = [
    [
      () => api.traceSupermarket({ servers: 33 }),
      RangeError,
      /^servers must be an integer in 1\.\.=32/,
    ],
    [
      () => api.traceSupermarket({ lambda: 1 }),
      RangeError,
      /^lambda must be a rate in 0\.001\.\.<1/,
    ],
    [
      () => api.traceSupermarket({ servers: 4, d: 5 }),
      RangeError,
      /^d must be an integer in 1\.\.=servers/,
    ],
    [
      () => api.traceSupermarket({ arrivals: 50_001 }),
      RangeError,
      /^arrivals must be an integer in 1\.\.=50000/,
    ],
    [() => api.traceSupermarket({ warmup: -1 }), RangeError, /^warmup must be/],
    [() => api.traceSupermarket({ lambda: "0.5" }), TypeError, /^lambda/],
    [() => api.traceSupermarket({ servrs: 10 }), TypeError, /servrs/],
    [
      () => api.traceLoaded({ load: 0.995 }),
      RangeError,
      /^load must be a utilisation in 0\.001\.\.=0\.99/,
    ],
    [
      () => api.traceLoaded({ replicas: 17 }),
      RangeError,
      /^replicas must be an integer in 2\.\.=16/,
    ],
    [
      () => api.traceLoaded({ requests: 0 }),
      RangeError,
      /^requests must be an integer in 1\.\.=20000/,
    ],
    [() => api.traceLoaded({ policy: "sometimes" }), RangeError, /^policy must be one of/],
    [() => api.traceLoaded({ seed: "x" }), TypeError, /^seed/],
  ];
  for (const [call, type, message] of cases) {
    assert.throws(call, (e) => e instanceof type && message.test(e.message), String(message));
  }
});
