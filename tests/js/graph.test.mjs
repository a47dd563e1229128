// simulateGraph and graphTheory (core lab::graph) in node: the call equals the report's entry
// for the same seed, the options are read strictly (RangeError/TypeError naming the option),
// and the readouts sit beside their theory.

import assert from "node:assert/strict";
import test from "node:test";
import { Z, camelKeys, loadPackage, nativeReport, plain } from "../support.mjs";

/** @typedef {import("../../web/pkg/tail_lab.js").GraphStageOptions} Stage */
/** @typedef {"fanout" | "search" | "quorum" | "chain"} Preset */

const pkg = await loadPackage();

test("simulateGraph reproduces every report entry, bit for bit (seeds 2 and 5)", () => {
  for (const seed of [2, 5]) {
    const report = nativeReport(seed, 3000);
    assert.deepEqual(
      report.graph.map((e) => e.preset),
      ["fanout", "search", "quorum", "chain"],
    );
    for (const e of report.graph) {
      const r = pkg.simulateGraph({
        preset: e.preset,
        deadlineMs: e.deadline_ms,
        requests: e.requests,
        seed,
      });
      assert.deepEqual(plain(r), camelKeys(e), `${e.preset} seed ${seed}`);
    }
  }
});

test("the deadline's readouts sit beside their theory, and graphTheory agrees with the call", () => {
  const requests = 20_000;
  for (const preset of /** @type {Preset[]} */ (["fanout", "search", "quorum", "chain"])) {
    const deadlineMs = preset === "quorum" ? 10 : 60;
    const r = pkg.simulateGraph({ preset, deadlineMs, requests, seed: 3 });
    const th = pkg.graphTheory({ preset, deadlineMs });
    // The closed form the page may call is the simulation's theory, to the last bit.
    assert.equal(th.miss, r.theoryMiss, preset);
    assert.equal(th.completeness, r.theoryCompleteness, preset);
    assert.equal(Math.min(th.p50, deadlineMs), r.theoryP50, preset);
    assert.equal(th.cdfError, r.theoryCdfError);
    assert.equal(th.exact, r.theoryExact);
    // Binomial tolerance on the miss share, plus the convolution's stated bound.
    const p = Math.min(Math.max(r.theoryMiss, 1e-4), 0.5);
    const tol = Z * Math.sqrt((p * (1 - p)) / requests) + r.theoryCdfError;
    assert.ok(Math.abs(r.miss - r.theoryMiss) <= tol, `${preset}: ${r.miss} vs ${r.theoryMiss}`);
    // Completeness per request lies in [0, 1]: variance at most 1/4.
    const tolC = Z * Math.sqrt(0.25 / requests) + r.theoryCdfError;
    assert.ok(Math.abs(r.completeness - r.theoryCompleteness) <= tolC, preset);
    assert.equal(r.sweep.deadlineMs.length, 24);
    for (const v of [r.p50, r.p99, r.p999, r.miss, r.completeness]) assert.ok(Number.isFinite(v));
  }
  // No deadline: nothing missed, all complete.
  const none = pkg.simulateGraph({ preset: "quorum", requests: 1000 });
  assert.equal(none.deadlineMs, null);
  assert.equal(none.miss, 0);
  assert.equal(none.completeness, 1);
});

test("stages given one by one: the preset's graph, its services, and the page's service", () => {
  const lab = pkg.labDefaults().service;
  /** @type {Stage[]} */
  const stages = [
    { kind: "single" },
    { kind: "parallel", width: 10 },
    { kind: "single", service: lab },
  ];
  const a = pkg.simulateGraph({ stages, deadlineMs: 80, requests: 2000 });
  const b = pkg.simulateGraph({ preset: "search", deadlineMs: 80, requests: 2000 });
  assert.equal(a.preset, "custom");
  assert.deepEqual({ ...plain(a), preset: "search" }, plain(b));
  // An exponential chain given as stages is the chain preset.
  /** @type {Stage[]} */
  const chain = [5, 10, 20].map((m) => ({ kind: "single", service: { exponentialMs: m } }));
  const c = pkg.simulateGraph({ stages: chain, requests: 2000 });
  const d = pkg.simulateGraph({ preset: "chain", requests: 2000 });
  assert.deepEqual({ ...plain(c), preset: "chain" }, plain(d));
  // The call's service replaces the Lab's model in every stage that names none.
  const slow = { body: { medianMs: 20, sigma: 0.5 } };
  const e = pkg.simulateGraph({ preset: "quorum", service: slow, requests: 2000 });
  assert.ok(e.p50 > 15, `${e.p50}`);
  assert.deepEqual(Array.from(e.stageWidth), [5]);
  assert.deepEqual(Array.from(e.stageK), [3]);
  // A sweep given by the caller.
  const s = pkg.simulateGraph({ preset: "quorum", sweepFromMs: 5, sweepToMs: 50, sweepPoints: 4 });
  assert.deepEqual(
    Array.from(s.sweep.deadlineMs, (x) => Number(x.toPrecision(12))),
    [5, 10.7721734502, 23.2079441681, 50],
  );
});

test("bad options throw RangeError or TypeError naming the option", () => {
  /** @type {[any, ErrorConstructor, RegExp][]} */
  const cases = [
    [{ preset: "star" }, RangeError, /preset/],
    [{ preset: "chain", stages: [] }, TypeError, /preset or stages/],
    [{ stages: [] }, RangeError, /stages\.length/],
    [{ stages: new Array(9).fill({ kind: "single" }) }, RangeError, /stages\.length.*1\.\.=8/],
    [{ stages: "single" }, TypeError, /stages/],
    [{ stages: [{ kind: "fork" }] }, RangeError, /stages\[0\]\.kind/],
    [{ stages: [{}] }, TypeError, /stages\[0\]\.kind is required/],
    [{ stages: [{ kind: "parallel" }] }, TypeError, /stages\[0\]\.width is required/],
    [{ stages: [{ kind: "parallel", width: 1001 }] }, RangeError, /stages\[0\]\.width.*1\.\.=1000/],
    [
      { stages: [{ kind: "parallel", width: 5, k: 6 }] },
      RangeError,
      /stages\[0\]\.k .*1\.\.=width \(5\)/,
    ],
    [{ stages: [{ kind: "single", width: 3 }] }, RangeError, /stages\[0\]\.width/],
    [
      { stages: [{ kind: "single", bogus: 1 }] },
      TypeError,
      /stages\[0\] has an unknown key "bogus"/,
    ],
    [
      { stages: [{ kind: "single", service: { exponentialMs: 0 } }] },
      RangeError,
      /stages\[0\]\.service\.exponentialMs.*0\.2\.\.=10000/,
    ],
    [
      { stages: [{ kind: "single", service: { body: { medianMs: -1, sigma: 0.5 } } }] },
      RangeError,
      /stages\[0\]\.service\.body\.medianMs/,
    ],
    [{ deadlineMs: 0 }, RangeError, /deadlineMs/],
    [{ deadlineMs: "10" }, TypeError, /deadlineMs/],
    [{ sweepFromMs: 5 }, TypeError, /sweepFromMs and sweepToMs/],
    [{ sweepFromMs: 5, sweepToMs: 1 }, RangeError, /sweepToMs/],
    [{ sweepFromMs: 1, sweepToMs: 5, sweepPoints: 65 }, RangeError, /sweepPoints/],
    [{ requests: 0 }, RangeError, /requests/],
    [{ preset: "fanout", requests: 1e7 }, RangeError, /3 × requests × children.*150000000/],
    [{ seeds: 1 }, TypeError, /unknown key "seeds"/],
  ];
  for (const [opts, kind, pattern] of cases) {
    assert.throws(
      () => pkg.simulateGraph(opts),
      (e) => {
        assert.ok(e instanceof kind, `${JSON.stringify(opts)}: ${e}`);
        assert.match(e.message, pattern, JSON.stringify(opts));
        return true;
      },
    );
  }
  assert.throws(() => pkg.graphTheory({ deadlineMs: -1 }), RangeError);
  assert.throws(() => pkg.graphTheory(/** @type {any} */ ({ requests: 10 })), TypeError);
});
