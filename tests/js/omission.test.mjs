// simulateOmission (core lab::omission) in node: its defaults are the classic worked example,
// the call equals the report's entries for other seeds, and bad options are refused by name.

import assert from "node:assert/strict";
import test from "node:test";
import { camelKeys, loadPackage, nativeReport, plain } from "../support.mjs";

const pkg = await loadPackage();

test("with no options it is the classic worked example: 99.99% raw, 50% corrected", () => {
  const r = pkg.simulateOmission();
  assert.equal(r.rawFracLe1ms, 10_000 / 10_001);
  assert.equal(r.correctedFracLe1ms, 0.5);
  assert.equal(r.openFracLe1ms, 0.5);
  assert.equal(r.rawSamples, 10_001);
  assert.equal(r.correctedSamples, 20_000);
  assert.equal(r.gaps, "fixed");
  assert.equal(r.theoryOpenP99, null);
  assert.equal(r.curves.theory.length, 0);
});

test("simulateOmission reproduces the report's entries, bit for bit (seed 4)", () => {
  const report = nativeReport(4, 1000);
  assert.equal(report.omission.length, 2);
  for (const e of report.omission) {
    const r = pkg.simulateOmission({
      intervalMs: e.interval_ms,
      stallMs: e.stall_ms,
      everyMs: e.every_ms,
      gaps: e.gaps,
      durationMs: e.duration_ms,
      workMs: e.work_ms,
      probeLoad: e.probe_load,
      probeMs: e.probe_ms,
      probes: e.probes,
      seed: 4,
    });
    assert.deepEqual(plain(r), camelKeys(e), e.gaps);
  }
});

test("random stalls carry the open loop's closed form beside it", () => {
  const r = pkg.simulateOmission({
    gaps: "random",
    stallMs: 1000,
    everyMs: 20_000,
    durationMs: 3_600_000,
  });
  assert.ok(r.theoryOpenP99 > 500 && r.theoryOpenP99 < 1001, String(r.theoryOpenP99));
  assert.equal(r.curves.theory.length, r.curves.tMs.length);
  // The raw closed loop reads its p99 at the work itself; the truth is hundreds of ms.
  assert.ok(r.rawP99 < 1.1 && r.openP99 > 500, `${r.rawP99} ${r.openP99}`);
  // Work drawn from the service model: the entry says so with a null.
  const s = pkg.simulateOmission({ workMs: "service", durationMs: 20_000, probes: 1000 });
  assert.equal(s.workMs, null);
});

test("bad options are refused, naming the option and its range", () => {
  /** @type {[any, ErrorConstructor, RegExp][]} */
  const cases = [
    [{ intervalMs: 0 }, RangeError, /intervalMs/],
    [{ intervalMs: Number.NaN }, RangeError, /intervalMs/],
    [{ stallMs: -1 }, RangeError, /stallMs/],
    [{ stallMs: 5000, everyMs: 5000 }, RangeError, /everyMs.*longer than stallMs/],
    [{ gaps: "poisson" }, RangeError, /gaps.*"fixed", "random"/],
    [{ gaps: 1 }, TypeError, /gaps/],
    [{ workMs: "slow" }, RangeError, /workMs/],
    [{ workMs: 0 }, RangeError, /workMs/],
    [{ durationMs: 1e9, intervalMs: 1 }, RangeError, /durationMs.*at most 10000000/],
    [
      { stallMs: 1e-6, everyMs: 1e-5, durationMs: 1e9, intervalMs: 1e6 },
      RangeError,
      /everyMs.*stalls/,
    ],
    [{ probeLoad: 0.99 }, RangeError, /probeLoad.*0\.95/],
    [{ probeMs: 1e9 }, RangeError, /probeMs.*arrivals/],
    [{ probes: 10 }, RangeError, /probes/],
    [{ bogus: 1 }, TypeError, /bogus/],
    // Work far longer than the gap between stalls: refused, not a walk of 10^12 steps.
    [
      { stallMs: 1, everyMs: 2, durationMs: 1e6, intervalMs: 1, workMs: 1e6 },
      RangeError,
      /workMs.*interrupted/,
    ],
    [
      { stallMs: 10, everyMs: 11, workMs: 1000, gaps: "random", durationMs: 1e5 },
      RangeError,
      /workMs/,
    ],
  ];
  for (const [opts, type, message] of cases) {
    assert.throws(
      () => pkg.simulateOmission(opts),
      (/** @type {any} */ e) => e instanceof type && message.test(e.message),
      JSON.stringify(opts),
    );
  }
});

test("a closed-loop probe with no sample after its warm-up reads null, never NaN", () => {
  // A probe every nanosecond: the closed loop's first answer outlasts the whole run.
  const r = pkg.simulateOmission({ probeMs: 1e-6, probes: 1000 });
  assert.equal(r.probeRawP99, null);
  assert.equal(r.probeCorrectedP99, null);
  assert.ok(Number.isFinite(r.probeOpenP99));
  for (const [k, v] of Object.entries(r))
    if (typeof v === "number") assert.ok(!Number.isNaN(v), `${k} is NaN`);
});
