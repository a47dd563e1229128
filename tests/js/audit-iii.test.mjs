// The hostile audit of issue 32, against the built package: what a file, a link or a caller
// could do to the API that they no longer can. Each test failed before its fix. Complexity is
// checked by a ratio of times at two sizes (linear work grows 4× when the input does; the old
// quadratic search grew 16×), never by a wall-clock limit.

import assert from "node:assert/strict";
import { test } from "node:test";
import { loadPackage } from "../support.mjs";

const pkg = await loadPackage();
/** The package, untyped: these calls pass what a hostile caller passes. */
const api = /** @type {any} */ (pkg);

/**
 * How many times longer `large()` takes than `small()`: each timed seven times, interleaved
 * after a warm-up, and the fastest of each kept (the least disturbed by other work on the
 * machine, which only ever adds time).
 */
function timeRatio(small, large) {
  small();
  large();
  let [fastSmall, fastLarge] = [Infinity, Infinity];
  for (let i = 0; i < 7; i++) {
    let t = performance.now();
    small();
    fastSmall = Math.min(fastSmall, performance.now() - t);
    t = performance.now();
    large();
    fastLarge = Math.min(fastLarge, performance.now() - t);
  }
  return fastLarge / fastSmall;
}

/** A Prometheus exposition of `series` series of one metric, three buckets each. */
function manySeries(series) {
  let text = "";
  for (let i = 0; i < series; i++) {
    const pod = `pod="api-${i}"`;
    text += `rpc_seconds_bucket{${pod},le="0.005"} 1\nrpc_seconds_bucket{${pod},le="0.05"} 3\nrpc_seconds_bucket{${pod},le="+Inf"} 4\n`;
  }
  return text;
}

test("many Prometheus series are read in linear time: 4× the series take well under 16× as long", () => {
  const small = manySeries(5_000);
  const large = manySeries(20_000);
  const read = pkg.parseLatencies(large);
  assert.equal(read.series, 20_000);
  assert.equal(read.count, 2, "two points: 25% at 5 ms, 75% at 50 ms");
  const ratio = timeRatio(
    () => pkg.parseLatencies(small),
    () => pkg.parseLatencies(large),
  );
  // Linear: about 4. The search per line it replaces gave 16 (and 177 s for 100,000 series).
  assert.ok(ratio < 10, `20,000 series took ${ratio.toFixed(1)}× as long as 5,000`);
});

test("a level typed twice among many is refused in linear time, naming both lines", () => {
  const lines = (n) => {
    const out = [];
    for (let i = 1; i <= n; i++) out.push(`p${(i * 99.99) / n} ${i}`);
    out.push(`p${(Math.floor(n / 2) * 99.99) / n} ${n + 1}`);
    return out.join("\n");
  };
  const refused = (text) => assert.throws(() => pkg.parseLatencies(text), /given twice/);
  refused(lines(25_000));
  assert.throws(
    () => pkg.parseLatencies(lines(1000)),
    (/** @type {any} */ e) => /^line 1001: .*also on line 500\)$/.test(e.message),
  );
  const [small, large] = [lines(50_000), lines(200_000)];
  const ratio = timeRatio(
    () => assert.throws(() => pkg.parseLatencies(small)),
    () => assert.throws(() => pkg.parseLatencies(large)),
  );
  // n log n: about 4.5. Comparing every pair, as before, gave 16.
  assert.ok(ratio < 10, `200,000 lines took ${ratio.toFixed(1)}× as long as 50,000`);
});

test("a CSV cell may hold a quoted line break (RFC 4180)", () => {
  const r = pkg.parseLatencies('id,note,latency_ms\n1,"multi\nline",5\n2,"a ""quote""",7\n');
  assert.equal(r.count, 2);
  assert.equal(r.summary.minMs, 5);
  assert.throws(
    () => pkg.parseLatencies('id,latency\n1,"open\n2,3\n'),
    (/** @type {any} */ e) => e instanceof RangeError && /^line 2: .*never closed/.test(e.message),
  );
});

test("every link written from accepted data reads back (more digits where four say nothing)", () => {
  const narrow = Array.from({ length: 1000 }, (_, i) => (10 + (0.0039 * i) / 999).toFixed(7));
  const tiny = ["1e-320", ...Array.from({ length: 100 }, (_, i) => String(5 + (i % 3)))];
  for (const data of [narrow, tiny]) {
    const read = pkg.parseLatencies(data.join("\n"));
    assert.notEqual(read.percentiles, "", "a summary is written");
    assert.ok(read.percentiles.length <= 300);
    // The page reads a link's summary as typed percentiles: it must be accepted.
    const back = pkg.parseLatencies(read.percentiles, { format: "percentiles" });
    assert.equal(back.kind, "points");
    assert.doesNotMatch(read.percentiles, /:0,/, "no positive time written as 0");
  }
});

test("no result is read from under the histogram's floor: such services and graphs are refused by name", () => {
  assert.throws(
    () => pkg.simulateTied({ exponentialMeanMs: 1e-6 }),
    (/** @type {any} */ e) =>
      e instanceof RangeError &&
      /^exponentialMeanMs must be a mean in ms in 0\.2\.\.=/.test(e.message),
  );
  assert.throws(
    () =>
      pkg.simulateGraph({
        stages: [{ kind: "parallel", width: 1000, k: 1, service: { exponentialMs: 0.2 } }],
        requests: 1000,
      }),
    (/** @type {any} */ e) =>
      e instanceof RangeError &&
      /^stages must be a graph whose requests take a median of at least 0\.125 ms/.test(e.message),
  );
  // At the floor itself the median is read from above the first edge (0.0625 ms).
  const r = pkg.simulateTied({ exponentialMeanMs: 0.2, requests: 20_000 });
  assert.ok(r.p50 > 0.0625, `p50 ${r.p50}`);
});

test("a bound a message allows is accepted: spanMs 600000", () => {
  const r = pkg.simulateBudget({ spanMs: 600_000, windows: 60 });
  assert.equal(r.spanMs, 600_000);
  assert.throws(
    () => pkg.simulateBudget({ spanMs: 600_001 }),
    /spanMs must be a span in ms in \(0, 600000\]/,
  );
});

test("messages stay short: huge numbers in exponent form, a caller's long text cut to 40 characters", () => {
  const short = (f, pattern) =>
    assert.throws(
      f,
      (/** @type {any} */ e) => e.message.length < 220 && pattern.test(e.message),
      String(f),
    );
  short(() => pkg.simulateLoaded({ load: 1e308 }), /\(got 1e308\)/);
  short(() => api.simulateLoaded({ policy: "x".repeat(10_000) }), /\(got "x{40}"…\)/);
  short(() => api.simulateLoaded({ load: "y".repeat(10_000) }), /the string "y{40}"…/);
  short(() => pkg.simulateLoaded({ seed: 10n ** 400n }), /a bigint of 401 digits/);
  // An emoji at the cut is kept whole or dropped whole, never halved.
  assert.throws(
    () => api.simulateLoaded({ policy: `${"a".repeat(39)}😀😀` }),
    (/** @type {any} */ e) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(e.message),
  );
  short(() => api.simulateLoaded({ ["k".repeat(10_000)]: 1 }), /unknown key "k{40}"…/);
  short(
    () =>
      api.leafQuantile(0.5, {
        profile: "p".repeat(10_000),
        leaves: pkg.parseLatencies("1\n2\n3\n").service,
      }),
    /"p{40}"…/,
  );
  short(() => api.simulateOmission({ stallMs: 5e-301, everyMs: 1e-300 }), /2e305 stalls/);
  short(() => api.simulateOmission({ stallMs: 1e9, everyMs: 1e-300 }), /every 1e-300 ms/);
  // Knots are named as the caller wrote them.
  assert.throws(
    () =>
      pkg.simulateHedge({
        service: {
          empirical: { levels: new Float64Array([0, 0.5, 1]), ms: new Float64Array([1, 2]) },
        },
      }),
    (/** @type {any} */ e) => /^service\.empirical need as many levels as times/.test(e.message),
  );
});

test("a retries run whose requests wait out long backoffs counts their timers in its work, and is refused past the bound", () => {
  // 118,000 requests waiting out 10-minute jittered backoffs took 1.3 s, 4.5× the same run
  // without a backoff, while its work check passed (issue 32 item 7).
  const slow = {
    policy: "retry",
    load: 0.019,
    timeoutMs: 1,
    maxAttempts: 10,
    backoff: "jitter",
    backoffBaseMs: 600_000,
    backoffCapMs: 600_000,
    queueLimit: null,
    durationMs: 1_200_000,
    replicas: 100,
  };
  assert.throws(
    () => pkg.simulateRetries(/** @type {any} */ (slow)),
    (/** @type {any} */ e) =>
      e instanceof RangeError && /requests waiting out a backoff/.test(e.message),
  );
  // The same run without a backoff has nothing waiting, and stays under the bound.
  const plain = pkg.simulateRetries(/** @type {any} */ ({ ...slow, backoff: "none" }));
  assert.ok(plain.requests > 100_000, `${plain.requests} requests`);
});
