// Fairness to a tenant that does not hedge through the wasm API: simulateFairness and
// fairnessSweep against the native report's `fairness` entries for the same seed and requests,
// the one-tenant ends, and bad options refused by name.

import assert from "node:assert/strict";
import { test } from "node:test";
import { camelCase, loadPackage, nativeReport } from "../support.mjs";

const pkg = await loadPackage();
const REQUESTS = 12_000;

/** Every field of the report entry `e` equals the call's result `r`, by its camelCase key. */
function sameEntry(r, e, at) {
  for (const [key, value] of Object.entries(e)) {
    assert.deepEqual(r[camelCase(key)], value, `${at}: ${key}`);
  }
}

for (const seed of [1, 7]) {
  test(`fairnessSweep and simulateFairness equal the report's entries (seed ${seed})`, () => {
    const entries = nativeReport(seed, REQUESTS).fairness;
    assert.equal(entries.length, 8);
    const sweep = pkg.fairnessSweep({ requests: REQUESTS, seed });
    for (const [i, e] of entries.entries()) sameEntry(sweep[i], e, `load ${e.load}`);
    const e = entries[4];
    sameEntry(pkg.simulateFairness({ load: e.load, requests: REQUESTS, seed }), e, "load 0.5");
  });
}

test("with every request tenant A's, A is the plain loaded run on the same streams", () => {
  // Everyone duplicates: the run is the whole service's, and B measured nothing.
  const r = pkg.simulateFairness({ shareA: 1, load: 0.3, requests: 5000 });
  assert.equal(r.bRequests, 0);
  assert.equal(r.bP99, null);
  assert.equal(r.extraRequests, 1);
  assert.ok(r.aP99 < r.baseAP99, "duplicating wins at load 0.3");
  // Nobody is A: nothing is sent, and both runs are the baseline.
  const n = pkg.simulateFairness({ shareA: 0, load: 0.3, requests: 5000 });
  assert.equal(n.extraRequests, 0);
  assert.equal(n.bP99, n.baseBP99);
  assert.equal(n.bMean, n.baseBMean);
});

test("bad options are refused by name", () => {
  /** @type {[any, ErrorConstructor, string][]} */
  const bad = [
    [{ shareA: -0.1 }, RangeError, "shareA"],
    [{ shareA: 1.5 }, RangeError, "shareA"],
    [{ shareA: "half" }, TypeError, "shareA"],
    [{ load: 3 }, RangeError, "load"],
    [{ policy: "tied" }, RangeError, "policy"],
    [{ cancellation: "sometimes" }, RangeError, "cancellation"],
    [{ requests: 10 }, RangeError, "requests"],
    [{ replicas: 1 }, RangeError, "replicas"],
    [{ colour: 1 }, TypeError, "colour"],
  ];
  for (const [opts, type, name] of bad) {
    assert.throws(
      () => pkg.simulateFairness(opts),
      (/** @type {any} */ e) => e instanceof type && e.message.includes(name),
      JSON.stringify(opts),
    );
  }
  assert.throws(() => pkg.fairnessSweep({ load: 0.5 }), TypeError);
});
