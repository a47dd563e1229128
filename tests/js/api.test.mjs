// The wasm API in node, against the native command and the Rust value vectors (read from
// tests/golden/vectors.json, which Rust generates and checks: no bits copied by hand).

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  bits,
  dtsInterfaces,
  goldenVectors,
  loadPackage,
  nativeReport,
  plain,
  readDts,
} from "../support.mjs";

const pkg = await loadPackage();
const REQUESTS = 20_000;
const GOLDEN = goldenVectors();

for (const seed of [1, 7]) {
  test(`TailRun reproduces tail-lab report --json bit for bit (seed ${seed})`, () => {
    const report = nativeReport(seed, REQUESTS);
    const t = report.tail;
    const run = (profile, fix) => {
      const r = new pkg.TailRun({ fanout: 100, profile, fix, seed });
      r.run(REQUESTS);
      return r;
    };
    const base = run("default", "none");
    assert.equal(base.leafPercentile(0.99), t.leaf_p99);
    assert.equal(base.parentPercentile(0.5), t.parent_p50);
    assert.equal(base.parentPercentile(0.99), t.parent_p99);
    assert.equal(pkg.parentQuantile(0.5, 100, { seed }), t.theory_parent_p50);
    assert.equal(pkg.parentQuantile(0.99, 100, { seed }), t.theory_parent_p99);
    const hedge = run("default", "hedge-p95");
    assert.equal(hedge.parentPercentile(0.99), t.hedge_parent_p99);
    assert.equal(hedge.hedgeCost().extraRequests, t.hedge_extra_requests);
    assert.equal(hedge.hedgeCost().extraWork, t.hedge_extra_work);
    assert.equal(run("default", "drop-1").parentPercentile(0.99), t.drop1_parent_p99);
    assert.equal(run("default", "drop-5").parentPercentile(0.99), t.drop5_parent_p99);
    assert.equal(run("gc-pause", "none").parentPercentile(0.99), t.gc_parent_p99);
    assert.equal(run("gc-pause", "hedge-p95").parentPercentile(0.99), t.gc_hedge_parent_p99);
    const tight = run("tight", "none");
    assert.equal(tight.leafPercentile(0.99), t.tight_leaf_p99);
    assert.equal(tight.parentPercentile(0.99), t.tight_parent_p99);
    assert.equal(pkg.slowShare(report.fanout.p, report.fanout.n), report.fanout.theory);
    assert.equal(pkg.crossover(0.5, 0.99), t.crossover_n);
    assert.equal(pkg.parentLevel(0.5, 100), t.parent_p50_leaf_level);
    assert.equal(pkg.parentLevel(0.99, 100), t.parent_p99_leaf_level);
  });

  test(`simulateLoaded and simulateBalance reproduce the report's queueing sections (seed ${seed})`, () => {
    const report = nativeReport(seed, REQUESTS);
    for (const l of report.loaded) {
      const r = pkg.simulateLoaded({ load: l.load, policy: l.policy, requests: REQUESTS, seed });
      assert.equal(r.stable, l.stable);
      assert.equal(r.p50, l.p50);
      assert.equal(r.p99, l.p99);
      assert.equal(r.p999, l.p999);
      assert.equal(r.extraRequests, l.extra_requests);
      assert.equal(r.extraWork, l.extra_work);
      assert.equal(r.capacityCost, l.capacity_cost);
    }
    for (const b of report.balance) {
      // The report runs 5 arrivals per requested request.
      const r = pkg.simulateBalance({ lambda: b.lambda, d: b.d, arrivals: 5 * REQUESTS, seed });
      assert.equal(r.meanTime, b.mean_time);
      assert.equal(r.p99, b.p99);
      assert.equal(r.theory, b.theory);
    }
  });
}

test("leafSample gives the bits the Rust value-stability test pins", () => {
  assert.ok(GOLDEN.leaf_samples.length >= 12, "every profile at every address");
  for (const v of GOLDEN.leaf_samples) {
    const at = `${v.profile} (${v.seed}, ${v.request}, ${v.leaf}, ${v.attempt})`;
    assert.equal(bits(pkg.leafSample(v.seed, v.request, v.leaf, v.attempt, v.profile)), v.bits, at);
    // A bigint seed is the same seed.
    const big = pkg.leafSample(BigInt(v.seed), v.request, v.leaf, v.attempt, v.profile);
    assert.equal(bits(big), v.bits, `${at}, bigint seed`);
  }
  const p = GOLDEN.paused_leaf; // a leaf on the pause path
  assert.equal(bits(pkg.leafSample(p.seed, p.request, p.leaf, p.attempt, p.profile)), p.bits);
  assert.ok(pkg.leafSample(p.seed, p.request, p.leaf, p.attempt, p.profile) > 40, "a pause");
});

test("requestAt is addressed: the first leaves do not depend on fan-out", () => {
  const a = pkg.requestAt(400, { fanout: 8, seed: 3 });
  const b = pkg.requestAt(400, { fanout: 200, seed: 3 });
  assert.deepEqual(Array.from(a.leaves.originalMs), Array.from(b.leaves.originalMs.slice(0, 8)));
  assert.equal(a.leaves.originalMs.length, 8);
  const max = Math.max(...a.leaves.resolvedMs);
  assert.equal(a.parentMs, max);
  assert.equal(a.leaves.resolvedMs[a.waitedOn], max);
  assert.equal(a.hedgeDelayMs, null);
});

test("a hedged request reports its duplicates and a dropped one its stragglers", () => {
  const h = pkg.requestAt(11, { fix: "hedge-p95" });
  // The calibrated leaf p95 at the defaults (fan-out 100, default profile, seed 1), exactly.
  const want = GOLDEN.tail_hedge_delay;
  assert.deepEqual([want.fanout, want.profile, want.seed], [100, "default", 1]);
  assert.equal(bits(h.hedgeDelayMs), want.delay_bits, `delay ${h.hedgeDelayMs}`);
  for (let i = 0; i < 100; i++) {
    const hedged = h.leaves.hedged[i] === 1;
    assert.equal(hedged, h.leaves.originalMs[i] > h.hedgeDelayMs);
    // No duplicate, no latency: 0 (never NaN), and `hedged` says which.
    assert.equal(h.leaves.retryMs[i] > 0, hedged);
  }
  const d = pkg.requestAt(11, { fix: "drop-5" });
  assert.equal(
    d.leaves.dropped.reduce((a, b) => a + b, 0),
    5,
  );
});

test("profiles and mitigations describe themselves", () => {
  assert.deepEqual(
    pkg.profiles().map((p) => p.name),
    ["default", "gc-pause", "tight"],
  );
  assert.equal(pkg.profiles()[2].pause, null);
  assert.deepEqual(
    pkg.mitigations().map((m) => m.name),
    ["none", "hedge-p95", "drop-1", "drop-5"],
  );
  const edges = pkg.binEdges();
  assert.equal(edges.length, 841);
  assert.equal(edges[0], 0.0625);
});

test("droppedLeaves: what each fix leaves out, as the simulated requests leave it out", () => {
  const percent = { "drop-1": 1, "drop-5": 5 };
  for (const fix of ["none", "hedge-p95", "drop-1", "drop-5"]) {
    const k = percent[fix] ?? 0;
    for (let n = 1; n <= 1024; n++) {
      const d = pkg.droppedLeaves(fix, n);
      const leaves = Math.floor((n * k) / 100);
      assert.deepEqual(
        d,
        { leaves, share: leaves / n, firstFanout: k ? Math.ceil(100 / k) : null },
        `${fix} at n = ${n}`,
      );
    }
  }
  // Below its first fan-out a drop fix drops nothing at all: 0 of 50 leaves for 1%.
  assert.deepEqual(pkg.droppedLeaves("drop-1", 50), { leaves: 0, share: 0, firstFanout: 100 });
  assert.deepEqual(pkg.droppedLeaves("drop-5", 19), { leaves: 0, share: 0, firstFanout: 20 });
  assert.deepEqual(pkg.droppedLeaves("drop-5", 100), { leaves: 5, share: 0.05, firstFanout: 20 });
  // The requests drop exactly that many leaves, slow or not: every request, not only slow ones.
  for (const [fix, n] of [
    ["drop-1", 50],
    ["drop-1", 99],
    ["drop-1", 100],
    ["drop-1", 256],
    ["drop-5", 19],
    ["drop-5", 20],
    ["drop-5", 100],
    ["none", 100],
    ["hedge-p95", 100],
  ]) {
    const want = pkg.droppedLeaves(fix, n).leaves;
    for (let k = 0; k < 40; k++) {
      const t = pkg.requestAt(k, { fanout: n, fix, seed: 3 });
      assert.equal(
        t.leaves.dropped.reduce((a, b) => a + b, 0),
        want,
        `${fix} n ${n} request ${k}`,
      );
    }
  }
  for (const [f, kind, message] of [
    [() => pkg.droppedLeaves("drop-1", 0), RangeError, /^fanout must be an integer in 1\.\.=1024/],
    [
      () => pkg.droppedLeaves("drop-1", 1025),
      RangeError,
      /^fanout must be an integer in 1\.\.=1024/,
    ],
    [() => pkg.droppedLeaves("drop-1", "50"), TypeError, /^fanout must be a number/],
    [() => pkg.droppedLeaves("drop-2", 50), RangeError, /^fix must be one of "none", "hedge-p95"/],
    [() => pkg.droppedLeaves(1, 50), TypeError, /^fix must be a string/],
  ])
    assert.throws(f, (e) => e instanceof kind && message.test(e.message), String(f));
});

test("hedgeCost is the run's traces added up: backups per leaf call, backup work over primary", () => {
  for (const [fanout, seed] of [
    [100, 1],
    [20, 7],
  ]) {
    const requests = 400;
    const run = new pkg.TailRun({ fanout, fix: "hedge-p95", seed });
    run.run(requests);
    let hedges = 0;
    let primary = 0;
    let backup = 0;
    for (let k = 0; k < requests; k++) {
      const t = run.requestAt(k);
      const l = t.leaves;
      for (let i = 0; i < fanout; i++) {
        primary += l.originalMs[i];
        if (l.hedged[i]) {
          hedges += 1;
          // The backup ran from the delay until it answered or the original won.
          backup += l.resolvedMs[i] - t.hedgeDelayMs;
        }
      }
    }
    const cost = run.hedgeCost();
    assert.equal(cost.extraRequests, hedges / (requests * fanout), `n ${fanout}`);
    assert.ok(
      Math.abs(cost.extraWork - backup / primary) <= 1e-12 * cost.extraWork,
      `n ${fanout}: ${cost.extraWork} vs ${backup / primary}`,
    );
    assert.ok(hedges > 0 && run.hedgeDelayMs > 0, `n ${fanout}`);
    run.free();
  }
  // Without a hedge there is no delay and no cost (0, not NaN), before and after requests.
  const plain = new pkg.TailRun({ fix: "drop-5" });
  assert.equal(plain.hedgeDelayMs, null);
  assert.deepEqual(plain.hedgeCost(), { extraRequests: 0, extraWork: 0 });
  plain.run(100);
  assert.deepEqual(plain.hedgeCost(), { extraRequests: 0, extraWork: 0 });
  plain.free();
});

test("bin views are live over wasm memory and go stale when memory grows", () => {
  const run = new pkg.TailRun({ fanout: 4 });
  run.run(100);
  const sum = (a) => a.reduce((x, y) => x + y, 0);
  const leaves = run.leafBins();
  const parents = run.parentBins();
  assert.equal(sum(leaves), 400);
  // Live: the same view, held across a call that does not grow memory, sees the new counts.
  run.run(100);
  assert.equal(sum(leaves), 800);
  assert.equal(sum(parents), 200);
  assert.equal(run.requests, 200);
  // Stale: a call that grows wasm memory (an unstable loaded run keeps most of its requests in
  // flight) detaches every view taken before it. Refetched, the counts are intact. (A larger
  // run if an earlier test already grew memory past what the first one needs.)
  const before = leaves.buffer.byteLength;
  assert.ok(before > 0);
  for (const requests of [200_000, 2_000_000]) {
    if (leaves.length > 0) pkg.simulateLoaded({ load: 2, requests });
  }
  assert.equal(leaves.length, 0, "the old view is detached, not silently pointing elsewhere");
  assert.equal(parents.length, 0);
  const fresh = run.leafBins();
  assert.ok(fresh.buffer.byteLength > before, "memory grew");
  assert.equal(sum(fresh), 800);
  run.reconfigure({ fanout: 9 });
  assert.equal(run.requests, 0);
  assert.equal(sum(run.leafBins()), 0);
  assert.deepEqual(run.config, { fanout: 9, profile: "default", fix: "none", seed: 1 });
  assert.equal(run.fanoutCurve(0.5, 256).length, 256);
});

test("the fan-out strip's curves are F(t)^n on the measured leaves, crossing the leaf p99 at 69", () => {
  for (const profile of ["default", "gc-pause", "tight"]) {
    const run = new pkg.TailRun({ profile, seed: 5 });
    const p50 = run.fanoutCurve(0.5, 256);
    const p99 = run.fanoutCurve(0.99, 256);
    for (const n of [1, 8, 69, 100, 256]) {
      assert.equal(p50[n - 1], pkg.parentQuantile(0.5, n, { profile, seed: 5 }));
      assert.equal(p99[n - 1], pkg.parentQuantile(0.99, n, { profile, seed: 5 }));
    }
    assert.equal(p50[0], run.leafQuantile(0.5)); // at n = 1 the parent is a leaf
    // The median reaches the leaf p99 at n = 69 and not before, whatever the profile.
    const leafP99 = run.leafQuantile(0.99);
    assert.ok(
      p50[68] >= leafP99 && p50[67] < leafP99,
      `${profile}: ${p50[67]} ${p50[68]} vs ${leafP99}`,
    );
    for (let n = 1; n < 256; n++) assert.ok(p50[n] >= p50[n - 1] && p99[n] >= p99[n - 1]);
  }
});

test("bad arguments throw RangeError or TypeError naming the argument", () => {
  const cases = [
    [() => pkg.slowShare("0.1", 10), TypeError, /^p must be a number/],
    [
      () => pkg.slowShare(Number.NaN, 10),
      RangeError,
      /^p must be a probability in 0\.\.=1 \(got NaN\)/,
    ],
    [() => pkg.slowShare(0.1, 2000), RangeError, /^n must be an integer in 1\.\.=1024/],
    [() => pkg.crossover(0.5, 1), RangeError, /^leafQ must be/],
    [
      () => new pkg.TailRun({ fanout: 0 }),
      RangeError,
      /^fanout must be an integer in 1\.\.=1024 \(got 0\)/,
    ],
    [() => new pkg.TailRun({ fanout: 2.5 }), RangeError, /^fanout/],
    [() => new pkg.TailRun({ fanout: "8" }), TypeError, /^fanout must be a number/],
    [
      () => new pkg.TailRun({ profile: "fast" }),
      RangeError,
      /^profile must be one of "default", "gc-pause", "tight"/,
    ],
    [() => new pkg.TailRun({ fix: "retry" }), RangeError, /^fix must be one of/],
    [() => new pkg.TailRun({ seed: -1 }), RangeError, /^seed must be an integer/],
    [
      () => new pkg.TailRun({ seed: 2n ** 64n }),
      RangeError,
      /^seed must be an integer in 0\.\.=2\^64-1/,
    ],
    [() => new pkg.TailRun([]), TypeError, /^options must be a plain options object/],
    [
      () => new pkg.TailRun().run(1e8),
      RangeError,
      /^requests must be an integer in 0\.\.=10000000/,
    ],
    [() => new pkg.TailRun().parentPercentile(2), RangeError, /^q must be a quantile level/],
    [() => pkg.leafSample(1, -1, 0, 0, "default"), RangeError, /^k must be/],
    [() => pkg.leafSample(1, 0, 0, 0, 5), TypeError, /^profile must be a string/],
    [() => pkg.requestAt(0, { fanout: Infinity }), RangeError, /^fanout/],
    [
      () => pkg.simulateLoaded({ policy: "tied" }),
      RangeError,
      /^policy must be one of "none", "hedge", "duplicate"/,
    ],
    [
      () => pkg.simulateLoaded({ replicas: 1 }),
      RangeError,
      /^replicas must be an integer in 2\.\.=1000/,
    ],
    [() => pkg.simulateLoaded({ load: "high" }), TypeError, /^load must be a number/],
    [
      () => pkg.simulateLoaded({ load: 0 }),
      RangeError,
      /^load must be a utilisation in 0\.001\.\.=2 \(got 0\)/,
    ],
    [
      () => pkg.simulateBalance({ lambda: -1 }),
      RangeError,
      /^lambda must be a rate in 0\.001\.\.=100 \(got -1\)/,
    ],
    [
      () => pkg.simulateBalance({ d: 200, servers: 100 }),
      RangeError,
      /^d must be an integer in 1\.\.=servers/,
    ],
  ];
  for (const [f, kind, message] of cases) {
    assert.throws(f, (e) => e instanceof kind && message.test(e.message), String(f));
  }
  // After all that, the module still works: nothing trapped.
  assert.equal(pkg.crossover(0.5, 0.99), 69);
});

test("a run split into blocks over any number of runs merges to the same bits; a bad block is refused", () => {
  const options = { fanout: 30, fix: "hedge-p95", seed: 12 };
  const requests = 6000,
    size = 700;
  const merged = (workers) => {
    const pool = Array.from({ length: workers }, () => new pkg.TailRun(options));
    const main = new pkg.TailRun(options);
    for (let i = 0, first = 0; first < requests; i++, first += size) {
      const w = pool[i % workers];
      w.reset();
      w.runRange(first, Math.min(size, requests - first));
      main.absorb(w.block());
    }
    return main;
  };
  const single = new pkg.TailRun(options);
  single.run(requests);
  const bits = (r) => [...r.leafBins(), ...r.parentBins()].join();
  const one = merged(1);
  for (const workers of [2, 4]) {
    const many = merged(workers);
    assert.equal(bits(many), bits(one), `${workers} workers`);
    assert.deepEqual(many.hedgeCost(), one.hedgeCost());
  }
  assert.equal(bits(one), bits(single));
  assert.equal(one.requests, requests);
  assert.equal(one.parentPercentile(0.99), single.parentPercentile(0.99));
  assert.deepEqual(one.lastRequest(), single.lastRequest());

  const good = new pkg.TailRun(options);
  good.runRange(100, 10);
  const block = good.block();
  const main = new pkg.TailRun(options);
  const leafCounts = block.leafCounts.slice();
  leafCounts[5] += 1;
  assert.throws(
    () => main.absorb({ ...block, leafCounts }),
    /^RangeError: leafCounts must be 840 whole counts summing to fanout × requests/,
  );
  assert.throws(
    () => main.absorb({ ...block, parentCounts: new Float64Array(3) }),
    /^RangeError: parentCounts must hold 840 counts \(got 3\)/,
  );
  assert.throws(() => main.absorb({ ...block, parentCounts: [1, 2] }), TypeError);
  assert.throws(() => main.absorb({ ...block, requests: 1.5 }), RangeError);
  assert.throws(() => main.absorb({ ...block, extra: 1 }), /unknown key "extra"/);
  assert.equal(main.requests, 0, "nothing changed");
  main.absorb(block);
  assert.equal(main.requests, 10);
  assert.throws(() => main.runRange(-1, 5), RangeError);
  assert.throws(() => new pkg.TailRun({ fanout: 1024 }).runRange(0, 1e6), /count × fanout/);
});

test("heapBytes counts the core's live heap: a run adds to it, and freeing the run gives it all back", () => {
  // One run first, so lazily built statics (the shared bins) are not counted as the run's.
  new pkg.TailRun({ fanout: 50, profile: "gc-pause", seed: 3 }).free();
  const before = pkg.heapBytes();
  const run = new pkg.TailRun({ fanout: 50, profile: "gc-pause", seed: 3 });
  run.run(1000);
  const held = pkg.heapBytes() - before;
  // A run holds at least its two 840-bin f64 histograms and its sampling tables (> 50 KB).
  assert.ok(held > 2 * 840 * 8 + 50_000, `a run holds ${held} bytes`);
  run.free();
  assert.equal(pkg.heapBytes(), before);
});

test("labDefaults().calls holds each declared call's defaults, which the call runs with when given nothing", () => {
  const { calls } = pkg.labDefaults();
  const dts = readDts();
  const declared = Object.keys(calls);
  assert.ok(
    declared.includes("simulateQueue") && declared.includes("simulateLoaded"),
    declared.join(),
  );
  for (const [name, defaults] of Object.entries(calls)) {
    // Every default names an option of the call's generated interface.
    const signature = new RegExp(`export function ${name}\\(opts\\?: (\\w+)\\)`).exec(dts);
    assert.ok(signature, `${name} is declared`);
    const options = dtsInterfaces(dts)[signature[1]];
    for (const key of Object.keys(defaults))
      assert.ok(options[key], `${name}: ${key} is an option`);
  }
  // Given as options, the defaults are what the call runs with (small runs; the size options
  // shrunk alike on both sides).
  const small = { requests: 2000 };
  assert.deepEqual(
    plain(pkg.simulateQueue({ ...calls.simulateQueue, ...small })),
    plain(pkg.simulateQueue(small)),
  );
  assert.deepEqual(
    plain(pkg.simulateLoaded({ ...calls.simulateLoaded, ...small })),
    plain(pkg.simulateLoaded(small)),
  );
  // And they differ from another setting's: the comparison can fail.
  assert.notDeepEqual(
    plain(pkg.simulateQueue({ ...calls.simulateQueue, ...small, load: 0.7 })),
    plain(pkg.simulateQueue(small)),
  );
});
