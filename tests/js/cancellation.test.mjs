// Cancellation delay through the wasm API: simulateCancellation and cancellationSweep against
// the native report's `cancellation` entries for the same seed and requests, and bad options
// refused by name.

import assert from "node:assert/strict";
import { test } from "node:test";
import { camelCase, loadPackage, nativeReport } from "../support.mjs";

const pkg = await loadPackage();
// Under the report's cap of 20,000 requests a run, so its entries run at this size too.
const REQUESTS = 12_000;

/** Every field of the report entry `e` equals the call's result `r`, by its camelCase key. */
function sameEntry(r, e, at) {
  for (const [key, value] of Object.entries(e)) {
    assert.deepEqual(r[camelCase(key)], value, `${at}: ${key}`);
  }
}

for (const seed of [1, 7]) {
  test(`cancellationSweep and simulateCancellation equal the report's entries (seed ${seed})`, () => {
    const entries = nativeReport(seed, REQUESTS).cancellation;
    assert.equal(entries.length, 10);
    const sweep = pkg.cancellationSweep({ requests: REQUESTS, seed });
    assert.equal(sweep.length, entries.length);
    for (const [i, e] of entries.entries()) sameEntry(sweep[i], e, `sweep point ${i}`);
    // The first and last delays through the one-point call: 0, and ∞ (null in the report).
    assert.equal(entries[0].cancel_delay_ms, 0);
    assert.equal(entries[9].cancel_delay_ms, null);
    assert.equal(entries[9].never_lands, true);
    sameEntry(
      pkg.simulateCancellation({ cancelDelayMs: 0, requests: REQUESTS, seed }),
      entries[0],
      "delay 0",
    );
    sameEntry(
      pkg.simulateCancellation({
        cancelDelayMs: Number.POSITIVE_INFINITY,
        requests: REQUESTS,
        seed,
      }),
      entries[9],
      "delay ∞",
    );
  });
}

test("a cancel that never lands leaves the duplicate past its (1 + h)ρ boundary at load 0.55", () => {
  const r = pkg.simulateCancellation({
    cancelDelayMs: Number.POSITIVE_INFINITY,
    load: 0.55,
    bisect: false,
  });
  assert.equal(r.neverCancelBoundary, 0.5);
  assert.equal(r.duplicateStable, false);
  assert.equal(r.duplicateP99, null);
  const soon = pkg.simulateCancellation({ cancelDelayMs: 0, load: 0.55, bisect: false });
  assert.equal(soon.duplicateStable, true);
  assert.equal(soon.crossingVerdict, "not-run");
  assert.equal(soon.crossingLoad, null);
});

test("bad options are refused by name", () => {
  /** @type {[any, ErrorConstructor, string][]} */
  const bad = [
    [{ cancelDelayMs: -1 }, RangeError, "cancelDelayMs"],
    [{ cancelDelayMs: Number.NaN }, RangeError, "cancelDelayMs"],
    [{ cancelDelayMs: 2e9 }, RangeError, "cancelDelayMs"],
    [{ cancelDelayMs: "10" }, TypeError, "cancelDelayMs"],
    [{ load: 0 }, RangeError, "load"],
    [{ cancellation: "sometimes" }, RangeError, "cancellation"],
    [{ bisect: "yes" }, TypeError, "bisect"],
    [{ requests: 10 }, RangeError, "requests"],
    [{ replicas: 1 }, RangeError, "replicas"],
    [{ colour: 1 }, TypeError, "colour"],
    [{ service: { body: { medianMs: -1, sigma: 0.5 } } }, RangeError, "service.body.medianMs"],
  ];
  for (const [opts, type, name] of bad) {
    assert.throws(
      () => pkg.simulateCancellation({ bisect: false, ...opts }),
      (/** @type {any} */ e) => e instanceof type && e.message.includes(name),
      JSON.stringify(opts),
    );
  }
  // The sweep sets the delay itself, and bounds its work.
  assert.throws(() => pkg.cancellationSweep({ cancelDelayMs: 5 }), TypeError);
  assert.throws(
    () => pkg.cancellationSweep({ requests: 1e6 }),
    (/** @type {any} */ e) => e instanceof RangeError && e.message.includes("requests"),
  );
});
