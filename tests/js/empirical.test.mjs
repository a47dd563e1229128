// Your own latencies through the built package: `parseLatencies` on real-shaped inputs (a wrk2
// report, a Prometheus exposition, a CSV, typed percentiles) and on bad ones, the model it gives
// accepted by every call that takes a service, and its URL summary read back. The statistics
// (DKW, the fan-out's closed form) are the core's tests (crates/tail-lab-core/src/lab/empirical/it.rs);
// `simulateEmpirical` against the report is tests/js/contract.test.mjs's, as for every model.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT, loadPackage } from "../support.mjs";

const pkg = await loadPackage();
const data = (name) =>
  readFileSync(join(ROOT, "crates", "tail-lab-core", "tests", "it", "data", name), "utf8");

/**
 * The error `fn` throws, with its message and line.
 * @returns {any}
 */
function refusal(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail("no error");
}

test("a wrk2 report is read as its HdrHistogram spectrum, and the fit goes through every row", () => {
  const text = data("wrk2.txt");
  const r = pkg.parseLatencies(text);
  assert.equal(r.format, "hdrhistogram");
  assert.equal(r.kind, "points");
  // The spectrum's rows only: the rest of the report is skipped, not misread.
  const rows = text.split("\n").filter((l) => /^\s+\d+\.\d+\s+\d\.\d{6}\s+\d+\s+/.test(l));
  assert.equal(r.count, rows.length);
  const { levels, ms } = r.points;
  assert.equal(ms[0], Number(rows[0].trim().split(/\s+/)[0]));
  assert.equal(levels[levels.length - 1], 1);
  // The model's range is the table's minimum and maximum, its median the 0.5 row's value.
  const knots = r.service.empirical;
  assert.equal(knots.ms[0], ms[0]);
  assert.equal(knots.ms[knots.ms.length - 1], ms[ms.length - 1]);
  const half = rows.map((l) => l.trim().split(/\s+/)).find((f) => f[1] === "0.500000");
  assert.equal(r.summary.p50Ms, Number(half[0]));
  // The same bytes as a Uint8Array give the same model.
  const bytes = pkg.parseLatencies(new TextEncoder().encode(text));
  assert.deepEqual(bytes.service.empirical.ms, knots.ms);
});

test("a Prometheus exposition: two series of one histogram summed, seconds read as ms", () => {
  const r = pkg.parseLatencies(data("prometheus.txt"));
  assert.equal(r.format, "prometheus");
  assert.equal(r.unit, "s");
  assert.equal(r.series, 2);
  // The first finite bound, 5 ms, at the share of both series' counts at or below it.
  assert.equal(r.points.ms[0], 5);
  const total = 48211 + 120377;
  assert.ok(Math.abs(r.points.levels[0] * total - Math.round(r.points.levels[0] * total)) < 1e-6);
});

test("CSV: the latency column found by its name, or chosen; the unit from its name or the option", () => {
  const csv = "ts,route,duration_us\n1,/a,1500\n2,/b,2500\n3,/c,900\n";
  const r = pkg.parseLatencies(csv);
  assert.deepEqual([r.format, r.column, r.unit, r.count], ["csv", 3, "us", 3]);
  assert.deepEqual(r.columns, ["ts", "route", "duration_us"]);
  assert.equal(r.summary.maxMs, 2.5);
  // No header names the latencies: the last column holding numbers, and it says so.
  const guessed = pkg.parseLatencies("id,a,b\n1,2,3\n4,5,6\n");
  assert.deepEqual([guessed.column, guessed.columnGuessed, guessed.columnCount], [3, true, 3]);
  assert.equal(guessed.summary.maxMs, 6);
  assert.equal(pkg.parseLatencies(csv).columnGuessed, false);
  const chosen = pkg.parseLatencies("a,b\n1,2\n3,4\n", { column: "b", unit: "s" });
  assert.deepEqual([chosen.column, chosen.summary.minMs], [2, 2000]);
  assert.throws(() => pkg.parseLatencies(csv, { column: 9 }), /column 9 does not exist/);
  /** @type {any} The wrong kinds of arguments, on purpose. */
  const anyPkg = pkg;
  assert.throws(() => anyPkg.parseLatencies(csv, { unit: "minutes" }), RangeError);
  assert.throws(() => anyPkg.parseLatencies(csv, { delimiter: "," }), /delimiter/);
  assert.throws(() => anyPkg.parseLatencies(42), TypeError);
});

test("bad input: a RangeError whose message and `line` name the line, never a model", () => {
  /** @type {[string, number, RegExp][]} */
  const cases = [
    ["1\n2\nslow\n", 3, /“slow” is not a latency/],
    ["4\n-2\n", 2, /not above 0/],
    ["4\n0\n", 2, /not above 0/],
    ["", 0, /empty/],
    ["5ms\n2s\n", 2, /mixed units/],
    ["7\n7\n7\n", 0, /every latency is 7 ms/],
    ["p50 4\np99 3\n", 2, /must rise/],
    ['x_bucket{le="1"} 4\nx_bucket{le="2"} 2\nx_bucket{le="+Inf"} 4\n', 2, /cumulative/],
    // Values the Lab cannot measure, in the reader's words (a unit mistake, most likely).
    ["5000000\n6000000\n", 0, /reach 5999900 ms at their p99\.99.*check the unit/],
    ["0.001\n0.002\n", 0, /median of 0\.0015 ms.*check the unit/],
  ];
  for (const [text, line, message] of cases) {
    const e = refusal(() => pkg.parseLatencies(text));
    assert.ok(e instanceof RangeError, `${JSON.stringify(text)}: ${e}`);
    assert.equal(/** @type {any} */ (e).line, line, JSON.stringify(text));
    assert.match(e.message, message);
    if (line > 0) assert.match(e.message, new RegExp(`^line ${line}: `));
  }
});

test("the model is a service every call takes, and its closed forms are the fit's", () => {
  const r = pkg.parseLatencies(pkg.exampleLatencies());
  const service = r.service;
  const hedge = pkg.simulateHedge({ service, requests: 2000 });
  // S(t) at the fit's knots: the hedge's closed-form p99.9 without a hedge is the fit's p99.9.
  assert.equal(hedge.theoryP999Before, r.summary.p999Ms);
  const fan = pkg.simulateFanoutLatency({ service, n: 10, requests: 2000 });
  assert.equal(fan.theoryLeafP50, r.summary.p50Ms);
  assert.equal(fan.p, 0, "your data has no slow mode of its own");
  assert.throws(() => pkg.simulateFanoutLatency({ service, p: 0.01 }), /give p or service/);
  const loaded = pkg.simulateLoaded({ service, load: 0.3, requests: 2000 });
  assert.equal(loaded.load, 0.3);
  assert.equal(pkg.serviceMoments(service).meanMs, r.summary.meanMs);
  assert.equal(pkg.serviceMoments(service).bodyMeanMs, null);
  // Knots that are not a distribution are refused by name.
  const bad = (levels, ms) => ({
    empirical: { levels: new Float64Array(levels), ms: new Float64Array(ms) },
  });
  assert.throws(
    () => pkg.simulateHedge({ service: bad([0, 0.5], [1, 2]) }),
    /service\.empirical\.levels/,
  );
  assert.throws(
    () => pkg.simulateHedge({ service: bad([0, 1], [2, 1]) }),
    /service\.empirical\.ms/,
  );
  assert.throws(() => pkg.simulateHedge({ service: bad([0, 1, 1], [1, 2, 3]) }), RangeError);
  assert.throws(
    () =>
      pkg.simulateHedge({
        service: /** @type {any} */ ({ empirical: { levels: [0, 1], ms: [1, 2] } }),
      }),
    TypeError,
  );
  assert.throws(
    () =>
      pkg.simulateHedge({
        service: /** @type {any} */ ({ ...service, body: { medianMs: 1, sigma: 1 } }),
      }),
    /not both/,
  );
  assert.throws(
    () =>
      pkg.simulateEmpirical({
        service: /** @type {any} */ ({ body: { medianMs: 5, sigma: 0.5 } }),
      }),
    /your own latencies/,
  );
});

test("a link's summary reads back as the same distribution at its six points", () => {
  const r = pkg.parseLatencies(pkg.exampleLatencies());
  assert.match(
    r.percentiles,
    /^min:[\d.]+,p50:[\d.]+,p90:[\d.]+,p99:[\d.]+,p99\.9:[\d.]+,max:[\d.]+$/,
  );
  const back = pkg.parseLatencies(r.percentiles, { format: "percentiles" });
  assert.equal(back.count, 6);
  // Four significant digits each.
  for (const key of ["minMs", "p50Ms", "p90Ms", "p99Ms", "p999Ms", "maxMs"])
    assert.ok(Math.abs(back.summary[key] / r.summary[key] - 1) < 5e-4, key);
  // Read again, a summary is its own fixed point: the link is stable.
  assert.equal(
    pkg.parseLatencies(back.percentiles, { format: "percentiles" }).percentiles,
    back.percentiles,
  );
});

test("a million latencies become a model (timed, not asserted)", () => {
  const lines = Array.from({ length: 1_000_000 }, (_, i) =>
    (2 * Math.exp(Math.sin(i * 12.9898) * 1.1)).toFixed(3),
  ).join("\n");
  const bytes = new TextEncoder().encode(lines);
  const t0 = performance.now();
  const r = pkg.parseLatencies(bytes);
  const ms = performance.now() - t0;
  assert.equal(r.count, 1_000_000);
  assert.ok(r.service.empirical.levels.length < 65_538);
  console.log(
    `parseLatencies: 10^6 latencies (${bytes.length} bytes) in ${ms.toFixed(0)} ms in node`,
  );
});
