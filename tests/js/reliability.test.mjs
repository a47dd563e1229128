// Inputs a hostile or careless caller gives the API (issue 10's found cases that this change
// fixes). Each test failed before its fix.

import assert from "node:assert/strict";
import { test } from "node:test";
import { loadPackage } from "../support.mjs";

const pkg = await loadPackage();
const throwsLike = (f, kind, message) =>
  assert.throws(f, (e) => e instanceof kind && message.test(e.message), String(f));

test("misspelt or unknown option keys are rejected, naming the key and the known ones", () => {
  throwsLike(
    () => new pkg.TailRun({ fanOut: 5 }),
    TypeError,
    /^options has an unknown key "fanOut"; the known ones are fanout, profile, fix, seed, leaves$/,
  );
  throwsLike(
    () => pkg.simulateLoaded({ polcy: "hedge" }),
    TypeError,
    /unknown key "polcy"; the known ones are load, policy, delay, delayBasis, cancellation/,
  );
  throwsLike(() => pkg.simulateBalance({ D: 3 }), TypeError, /unknown key "D"/);
  throwsLike(
    () => pkg.simulateHedge({ service: { body: { medianMs: 5, sigma: 0.3, mean: 4 } } }),
    TypeError,
    /^service\.body has an unknown key "mean"/,
  );
  throwsLike(() => pkg.requestAt(0, { seeds: 2 }), TypeError, /unknown key "seeds"/);
});

test("options must be plain objects, and a throwing getter's error comes through", () => {
  for (const bad of [new Map(), new Date(), Object(3), new Float64Array(2), [], () => {}]) {
    throwsLike(() => pkg.simulateLoaded(bad), TypeError, /^options must be a plain options object/);
  }
  // Objects with a null prototype are plain too.
  assert.equal(pkg.simulateFanout(Object.assign(Object.create(null), { n: 3, requests: 10 })).n, 3);
  const boom = new Error("boom");
  assert.throws(
    () =>
      pkg.simulateLoaded({
        get load() {
          throw boom;
        },
      }),
    (e) => e === boom,
  );
  // And the module still answers afterwards.
  assert.ok(Math.abs(pkg.slowShare(0.01, 100) - 0.634) < 1e-3);
});

test("a setter on Object.prototype never runs page code inside a call", () => {
  let calls = 0;
  Object.defineProperty(Object.prototype, "parentMs", {
    configurable: true,
    set() {
      calls++;
      pkg.requestAt(1, {});
    },
  });
  try {
    const r = pkg.requestAt(3, { fanout: 8 });
    assert.ok(Object.hasOwn(r, "parentMs") && r.parentMs > 0);
    assert.equal(calls, 0);
  } finally {
    delete Object.prototype.parentMs;
  }
});

test("no NaN: hedge costs without hedges are 0, percentiles before any request are null", () => {
  for (const fix of ["none", "drop-1", "drop-5", "hedge-p95"]) {
    const run = new pkg.TailRun({ fix });
    assert.deepEqual([run.leafPercentile(0.5), run.parentPercentile(0.99)], [null, null]);
    run.run(1000);
    const cost = run.hedgeCost();
    assert.ok(
      Number.isFinite(cost.extraWork) && Number.isFinite(cost.extraRequests),
      `${fix}: ${JSON.stringify(cost)}`,
    );
    if (fix !== "hedge-p95") assert.deepEqual(cost, { extraRequests: 0, extraWork: 0 });
    assert.ok(run.parentPercentile(0.5) > 0);
  }
  const leaves = pkg.requestAt(0, { fix: "none" }).leaves;
  assert.ok(leaves.retryMs.every((v) => v === 0));
});

test("tiny loads and arrival rates are refused with their lower bound, not answered with nonsense", () => {
  throwsLike(
    () => pkg.simulateBalance({ lambda: 1e-15 }),
    RangeError,
    /^lambda must be a rate in 0\.001\.\.=100 \(got 1e-15\)/,
  );
  throwsLike(
    () => pkg.simulateBalance({ lambda: 5e-324 }),
    RangeError,
    /^lambda must be a rate in 0\.001\.\.=100 \(got 5e-324\)/,
  );
  throwsLike(
    () => pkg.simulateLoaded({ load: 1e-9 }),
    RangeError,
    /^load must be a utilisation in 0\.001\.\.=2 \(got 1e-9\)/,
  );
  // At the bound the answer is right: an arrival almost always finds an empty server.
  const b = pkg.simulateBalance({ lambda: 0.001, d: 1, arrivals: 20_000 });
  assert.ok(Math.abs(b.meanTime - 1 / (1 - 0.001)) < 0.05, `${b.meanTime}`);
});

test("crossover gives the true fan-out far past 2^32, and messages show values readably", () => {
  const leafQ = 1 - 1e-12;
  const n = pkg.crossover(0.5, leafQ);
  // The exact answer for the double nearest 1 − 1e-12 (1 − leafQ is exact there).
  assert.ok(Math.abs(n - Math.LN2 / (1 - leafQ)) <= 2, `${n}`);
  assert.ok(n > 2 ** 32);
  throwsLike(() => pkg.simulateLoaded({ load: Infinity }), RangeError, /\(got ∞\)$/);
  throwsLike(() => pkg.simulateLoaded({ load: 1e300 }), RangeError, /\(got 1e300\)$/);
  throwsLike(
    () => pkg.simulateLoaded({ requests: 26843546.5 }),
    RangeError,
    /\(got 26843546\.5\)$/,
  );
});

test("seeds above 2^53 − 1 round-trip as bigints", () => {
  const big = 2n ** 60n + 1n;
  const run = new pkg.TailRun({ seed: big });
  assert.equal(run.config.seed, big);
  run.reconfigure(run.config);
  assert.equal(run.config.seed, big);
  const a = new pkg.TailRun({ seed: 2n ** 53n }).config.seed;
  const b = new pkg.TailRun({ seed: 2n ** 53n + 1n }).config.seed;
  assert.notEqual(a, b);
  assert.equal(new pkg.TailRun({ seed: 7 }).config.seed, 7);
});

test("a seeded fuzzer: 2,000 calls mixing valid and invalid values never trap, never give NaN", () => {
  // mulberry32: a small seeded generator, so a failure replays exactly.
  let state = 0x5eed;
  const rand = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const junk = [
    undefined,
    null,
    NaN,
    Infinity,
    -Infinity,
    -1,
    0,
    0.5,
    1,
    2,
    1e300,
    5e-324,
    "x",
    "0.5",
    true,
    [],
    {},
    2n ** 70n,
    -3n,
  ];
  const value = (good) => (rand() < 0.6 ? pick(good) : pick(junk));
  let shared = new pkg.TailRun({ seed: 2n ** 64n - 1n });
  // Hostile options (issue 16): a revoked Proxy, Proxies whose traps throw, a throwing getter.
  const revoked = () => {
    const r = Proxy.revocable({}, {});
    r.revoke();
    return r.proxy;
  };
  const hostile = [
    revoked(),
    new Proxy(
      {},
      {
        ownKeys() {
          throw new TypeError("ownKeys trap");
        },
      },
    ),
    new Proxy(
      { n: 2 },
      {
        getPrototypeOf() {
          throw new TypeError("getPrototypeOf trap");
        },
      },
    ),
    new Proxy(
      { n: 2 },
      {
        get() {
          throw new RangeError("get trap");
        },
      },
    ),
    {
      get load() {
        throw new TypeError("getter");
      },
      get n() {
        throw new TypeError("getter");
      },
    },
  ];
  const entries = [
    pkg.simulateFanout,
    pkg.simulateLoaded,
    pkg.simulateBalance,
    pkg.simulateHedge,
    (o) => pkg.requestAt(1, o),
    (o) => new pkg.TailRun(o),
    (o) => shared.reconfigure(o),
  ];
  /** Runs `f` with little JS stack left (a RangeError there is an answer too). */
  const nearStackLimit = (f) => {
    let result;
    const dive = (d) => {
      try {
        dive(d + 1);
      } catch {
        if (result === undefined) result = { f: f() };
      }
    };
    dive(0);
    return result.f;
  };
  // Work-sizing arguments stay small: the fuzzer checks answers, not how long a big run takes.
  const calls = [
    () => pkg.slowShare(value([0, 0.01, 0.3, 1]), value([1, 100, 1024])),
    () => pkg.crossover(value([0.5, 0.9]), value([0.99, 0.999, 1 - 1e-12])),
    () => pkg.parentLevel(value([0.5, 0.99]), value([1, 69, 1024])),
    () => pkg.fixedPointMeanTime(value([0.5, 0.9, 0.999, 3]), value([1, 2, 3])),
    () => pkg.fixedPointShare(value([0.5, 0.9, 0.999, 3]), value([1, 2, 3]), value([1, 6, 1000])),
    () =>
      pkg.noBackupMeanMs(
        value([0.001, 0.5, 0.99, 1, 2]),
        pick([undefined, { body: { medianMs: value([3, 20]), sigma: value([0.2, 1]) } }]),
      ),
    () =>
      pkg.serviceMoments(
        pick([undefined, { body: { medianMs: value([3, 20]), sigma: value([0.2, 1]) } }]),
      ),
    () =>
      pkg.simulateFanout({
        p: value([0.01, 0.2]),
        n: value([1, 100, 1024]),
        requests: pick([1, 500]),
        seed: value([1, 7, 2n ** 60n]),
      }),
    () =>
      pkg.simulateHedge({
        delayQ: value([0.5, 0.95, 0.999]),
        requests: pick([1, 800]),
        seed: value([1, 3]),
      }),
    () =>
      pkg.simulateHedge({
        delayMs: value([0, 5, 50]),
        requests: 500,
        service: { body: { medianMs: value([3, 20]), sigma: value([0.2, 1]) } },
      }),
    () =>
      pkg.simulateLoaded({
        load: value([0.001, 0.3, 0.95, 1.5, 2]),
        policy: value(["none", "hedge", "duplicate"]),
        requests: 1000,
        replicas: value([2, 10]),
        cancellation: value(["backup", "either", "either-any", "queued", "never"]),
      }),
    () =>
      pkg.simulateLoaded({ load: value([0.2, 0.6]), delay: value([0, 1, 100]), requests: 1000 }),
    () =>
      pkg.simulateBalance({
        lambda: value([0.001, 0.5, 0.99, 1.2]),
        policy: value(["random", "two", "three"]),
        servers: value([1, 3, 100]),
        arrivals: 1000,
      }),
    () =>
      pkg.requestAt(value([0, 5, 2 ** 53 - 1]), {
        fanout: value([1, 100]),
        profile: value(["default", "tight"]),
        fix: value(["none", "drop-5"]),
      }),
    // One run, reconfigured: a new TailRun calibrates for ~70 ms, which would be most of the test.
    () => {
      shared.reconfigure({ fanout: value([1, 64]), fix: value(["none", "hedge-p95"]) });
      shared.run(value([0, 200]));
      return [shared.hedgeCost(), shared.parentPercentile(value([0.5, 0.99])), shared.config];
    },
    () => pick(entries)(pick(hostile)),
    // Pasted text (issue 32's audit): many Prometheus series, wide CSVs, long cells, quoted line
    // breaks, stray quotes. Refused or read, its message stays short.
    () => {
      const n = pick([1, 3, 40, 300]);
      const text = pick([
        () =>
          Array.from({ length: n }, (_, i) =>
            ["0.01", "0.1", "+Inf"]
              .map((le, j) => `m_bucket{pod="p${i}",le="${le}"} ${value([j + 1, 0, -1, "x"])}`)
              .join("\n"),
          ).join("\n"),
        () =>
          `${Array.from({ length: n }, (_, i) => `c${i}`).join(",")}\n${Array.from({ length: n }, (_, i) => i + 1).join(",")}\n`,
        () => `id,${"x".repeat(pick([40, 5000]))},latency_ms\n1,2,3\n4,5,6\n`,
        () => `id,note,latency_ms\n1,"multi\nline",5\n2,6" pipe,7\n3,"open,8\n`,
        () => Array.from({ length: n }, () => value([1, 2.5, "12ms", "p99 3"])).join("\n"),
      ])();
      try {
        return pkg.parseLatencies(
          text,
          pick([{}, { format: "csv" }, { column: value([1, 3, 200]) }, { format: "prometheus" }]),
        );
      } catch (e) {
        assert.ok(String(e?.message).length < 700, `${String(e?.message).length} characters`);
        throw e;
      }
    },
  ];
  const finiteOrNull = (x, path) => {
    if (typeof x === "number") assert.ok(Number.isFinite(x), `${path} is ${x}`);
    else if (x && typeof x === "object" && !ArrayBuffer.isView(x))
      for (const [k, v] of Object.entries(x)) finiteOrNull(v, `${path}.${k}`);
    else if (x instanceof Float64Array)
      assert.ok(x.every(Number.isFinite), `${path} has a non-finite entry`);
  };
  let answered = 0,
    refused = 0;
  for (let i = 0; i < 2000; i++) {
    // Each call draws from its own seed: a call cut short near the stack limit (whose depth
    // differs between machines and Node versions) leaves the calls after it unchanged.
    state = Math.imul(i + 1, 0x9e3779b1) ^ 0x5eed;
    const which = Math.floor(rand() * calls.length);
    try {
      const call = calls[which];
      finiteOrNull(rand() < 0.03 ? nearStackLimit(call) : call(), `call ${which} (#${i})`);
      answered++;
    } catch (e) {
      if (e instanceof assert.AssertionError) throw e;
      // A call that overflowed the stack inside the module resets it (the next call runs on a
      // fresh instance), and objects made before then say so.
      if (/stale object/.test(e?.message)) {
        shared = new pkg.TailRun({ seed: 2n ** 64n - 1n });
        refused++;
        continue;
      }
      assert.ok(
        e instanceof TypeError || e instanceof RangeError,
        `call ${which} (#${i}) threw ${e?.constructor?.name}: ${e?.message}`,
      );
      // Values in messages are readable: no "inf", no 300-digit numbers.
      assert.doesNotMatch(e.message, /\(got inf\)|\d{30}/, e.message);
      refused++;
    }
  }
  assert.ok(answered > 200 && refused > 200, `${answered} answered, ${refused} refused`);
  // Found by this fuzzer on another machine: a subnormal median made the hedge's expected extra
  // work Infinity. Medians are now at least 1 ns, and a service model's at least 0.125 ms.
  throwsLike(
    () =>
      pkg.simulateHedge({
        delayMs: 0,
        requests: 500,
        service: { body: { medianMs: 5e-324, sigma: 0.2 } },
      }),
    RangeError,
    /^service\.body\.medianMs must be a number of milliseconds in 1e-6\.\.=1e9 \(got 5e-324\)/,
  );
  throwsLike(
    () => pkg.simulateHedge({ requests: 500, service: { body: { medianMs: 0.05, sigma: 0.2 } } }),
    RangeError,
    /^service must be a model whose median is at least 0\.125 ms .*\(got 0\.05/,
  );
  // After all that the module still answers, exactly.
  assert.ok(Math.abs(pkg.slowShare(0.01, 100) - 0.6339676587267709) < 1e-12);
});

test("each call's work is bounded, and the error says the bound and how to stay under it", () => {
  throwsLike(
    () => new pkg.TailRun({ fanout: 100 }).run(10_000_000),
    RangeError,
    /^requests × fanout must be at most 150000000 work units per call, about 2 s \(got 1000000000\); split the work over several calls$/,
  );
  throwsLike(
    () => pkg.simulateFanout({ n: 1024, requests: 1e7 }),
    RangeError,
    /^requests × n must be at most 150000000 work units per call/,
  );
  // The supermarket counts its events: 8 units an arrival and its departure, 3 a server drawn
  // (d = 2 of 100 servers takes 2 + 1/99 draws).
  throwsLike(
    () => pkg.simulateBalance({ arrivals: 1e9 }),
    RangeError,
    /^arrivals × \(8 \+ 3 a server drawn, or 8 above 16384 servers\) must be at most 150000000 work units per call, about 2 s \(got 14030303030\.3\d*\)/,
  );
  throwsLike(
    () => pkg.simulateLoaded({ requests: 26843546 }),
    RangeError,
    /^requests must be an integer in 1000\.\.=2000000 \(got 26843546\)/,
  );
  // Large d is O(d) an arrival now (it was O(servers)): every one of 16,000 servers sampled.
  const r = pkg.simulateBalance({ servers: 16_000, d: 16_000, arrivals: 1000, lambda: 0.5 });
  assert.ok(r.stable && r.meanTime > 0.5 && r.meanTime < 2, JSON.stringify(r));
});
