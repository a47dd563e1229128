// Balancer signals through the wasm API: simulateBalancerSignals against the native report's
// `balancer_signals` entries for the same seed, its checks as the page reads them, and bad
// options refused by name.

import assert from "node:assert/strict";
import { test } from "node:test";
import { camelCase, loadPackage, nativeReport } from "../support.mjs";

const pkg = await loadPackage();
const REQUESTS = 12_000;

for (const seed of [1, 7]) {
  test(`simulateBalancerSignals equals the report's entries (seed ${seed})`, () => {
    const entries = nativeReport(seed, REQUESTS).balancer_signals;
    assert.equal(entries.length, 12);
    for (const e of entries) {
      const r = pkg.simulateBalancerSignals({
        signal: e.signal,
        lambda: e.lambda,
        arrivals: e.arrivals,
        seed,
      });
      for (const [key, value] of Object.entries(e)) {
        assert.deepEqual(r[camelCase(key)], value, `${e.signal} λ=${e.lambda}: ${key}`);
      }
    }
  });
}

test("staleness 0 is fresh and staleness past the run is random, field for field", () => {
  const strip = (/** @type {any} */ r) => ({ ...r, signal: null, staleness: null });
  const at = { lambda: 0.8, arrivals: 10_000, slowFactor: 3, clients: 2 };
  assert.deepEqual(
    strip(pkg.simulateBalancerSignals({ ...at, signal: "stale", staleness: 0 })),
    strip(pkg.simulateBalancerSignals({ ...at, signal: "fresh" })),
  );
  assert.deepEqual(
    strip(pkg.simulateBalancerSignals({ ...at, signal: "stale", staleness: 1e6 })),
    strip(pkg.simulateBalancerSignals({ ...at, signal: "random" })),
  );
  const r = pkg.simulateBalancerSignals({ lambda: 0.5, signal: "random", arrivals: 1000 });
  assert.equal(r.randomTheory, 2);
  assert.ok(Math.abs(r.fixedPoint - 1.2656860360875726) < 1e-12);
});

test("bad options are refused by name", () => {
  /** @type {[any, ErrorConstructor, string][]} */
  const bad = [
    [{ signal: "jsq" }, RangeError, "signal"],
    [{ signal: 2 }, TypeError, "signal"],
    [{ lambda: 1 }, RangeError, "lambda"],
    [{ lambda: "high" }, TypeError, "lambda"],
    [{ servers: 1 }, RangeError, "servers"],
    [{ d: 0 }, RangeError, "d"],
    [{ d: 101 }, RangeError, "d"],
    [{ staleness: -1 }, RangeError, "staleness"],
    [{ clients: 0 }, RangeError, "clients"],
    [{ slowFactor: 0.5 }, RangeError, "slowFactor"],
    [{ tau: 0 }, RangeError, "tau"],
    [{ arrivals: 10 }, RangeError, "arrivals"],
    [{ colour: 1 }, TypeError, "colour"],
  ];
  for (const [opts, type, name] of bad) {
    assert.throws(
      () => pkg.simulateBalancerSignals(opts),
      (/** @type {any} */ e) => e instanceof type && e.message.includes(name),
      JSON.stringify(opts),
    );
  }
});
