// The Lab's API in node: the seed's calls exactly as written, each call against its closed form
// with a tolerance from its sample size, bit for bit against `tail-lab report --json`, and bad
// arguments. Tolerances: `Z` (support.mjs, 4.5: per-check false alarm about 7e-6); t quantiles
// are for independent replications of autocorrelated queue outputs.

import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  reportRunOf,
  WEB,
  Z,
  camelKeys,
  conforms,
  dtsInterfaces,
  loadPackage,
  nativeReport,
  plain,
  readDts,
  unresolvedTypes,
} from "../support.mjs";

const pkg = await loadPackage();
const { callSource, loadSnippets, runSnippets, snippetSource, SNIPPET_SECTIONS } = await import(
  "../../web/lab/snippet.js"
);
const snippet = async () => runSnippets(await loadSnippets(), pkg);
const { SECTIONS, loadCalls } = await import("../../web/lab/sections.js");
const { closedFormNames, closedForms, fanoutInterval } = await import("../../web/lab/api.js");
/** The workers' dispatch table: every section's calls.js, for this package. */
const calls = await loadCalls(pkg);
/**
 * The core's simulations the sections ask the workers for. Besides them the table holds the
 * "In code" section's snippet and the your-data section's reading of a reader's latencies
 * (`parseLatencies`, which reads a dropped file in the worker first, and `exampleLatencies`).
 */
const READING = ["parseLatencies", "exampleLatencies"];
const simulations = Object.keys(calls).filter(
  (name) => calls[name] === pkg[name] && !READING.includes(name),
);
const REQUESTS = 20_000;

test("the seed's calls work exactly as written", async () => {
  assert.ok(Math.abs(pkg.slowShare(0.01, 100) - 0.6339676587267709) < 1e-12);
  const hedge = pkg.simulateHedge({ delayQ: 0.95 });
  assert.equal(hedge.requests, 200_000);
  assert.ok(hedge.p999After < hedge.p999Before / 20, JSON.stringify(hedge.p999After));
  const loaded = pkg.simulateLoaded({ load: 0.6, delay: 0 });
  assert.equal(loaded.policy, "duplicate");
  assert.equal(loaded.delayMs, 0);
  assert.equal(loaded.cancellation, "backup");
  assert.deepEqual(loaded, pkg.simulateLoaded({ load: 0.6, policy: "duplicate" }));
  const balance = pkg.simulateBalance({ lambda: 0.9, policy: "two" });
  assert.deepEqual(balance, pkg.simulateBalance({ lambda: 0.9, d: 2 }));
  assert.ok(Math.abs(balance.theory - 2.6140573773) < 1e-9);
  // The page's "In code" section runs the sections' snippet calls; they return the same objects.
  const out = await snippet();
  assert.equal(out.fanout, pkg.slowShare(0.01, 100));
  assert.equal(out.hedge.p999After, hedge.p999After);
  // Its busy-replicas call is the loaded section's default, a hedge (issue 20).
  assert.deepEqual(out.loaded, pkg.simulateLoaded({ load: 0.6, policy: "hedge" }));
  // Its queue and balance run as long as their precision needs, as the sections' dots do.
  assert.deepEqual(out.balance, pkg.simulateBalance({ lambda: 0.9, d: 2, arrivals: "auto" }));
  const rule = pkg.runLengths().find((r) => r.model === "balance");
  const length = out.balance.precision.length;
  assert.ok(length >= rule.floor && length <= rule.cap, `${length}`);
  assert.notEqual(out.balance.precision.lengthBy, "fixed");
});

test("the code section has a readout for each section above it, from a call of the snippet", async () => {
  const { SNIPPET_READOUTS } = await import("../../web/lab/sections/code/readouts.js");
  const above = SECTIONS.slice(0, SECTIONS.indexOf("code"));
  const covered = new Set(SNIPPET_READOUTS.map((r) => r.of.section));
  for (const name of above) assert.ok(covered.has(name), `no snippet readout stands for ${name}`);
  for (const name of covered)
    assert.ok(above.includes(name), `${name} is not above the code section`);
  assert.equal(new Set(SNIPPET_READOUTS.map((r) => r.name)).size, SNIPPET_READOUTS.length);
  const out = await snippet();
  for (const { name, show } of SNIPPET_READOUTS) {
    const text = show(out);
    assert.match(text, /^[0-9]/, `${name} shows ${text}`);
    assert.doesNotMatch(text, /NaN|Infinity|undefined/, name);
  }
});

test("the program the code section shows is the sections' own calls, as their source reads", async () => {
  const snippets = await loadSnippets();
  // One call for each section above "In code", in page order, from its folder's snippet.js.
  assert.deepEqual(
    snippets.map((s) => s.section),
    SNIPPET_SECTIONS,
  );
  assert.deepEqual(SNIPPET_SECTIONS, SECTIONS.slice(0, SECTIONS.indexOf("code")));
  const text = snippetSource(snippets);
  for (const s of snippets) {
    // The call's own text after its arrow (the formatter may break the line after `=>`).
    const source = s.call
      .toString()
      .replace(/^\(core\) =>\s*/, "")
      .trim();
    assert.ok(text.includes(`  ${s.key}: ${source}, // ${s.note}\n`), `${s.section}: ${source}`);
  }
  assert.match(
    text,
    /\n {2}loaded: core\.simulateLoaded\(\{ load: 0\.6, policy: "hedge" \}\), \/\/ hedge on busy replicas\n/,
  );
  assert.match(text, /\n {2}yourData: core\.simulateEmpirical\(\),/);
  // A call that is not an arrow on the core module is refused, not shown as something else.
  assert.throws(() => callSource(() => 1), /an arrow on core/);
  assert.equal(
    callSource((core) => core.slowShare(0.5, 2)),
    "core.slowShare(0.5, 2)",
  );
});

for (const seed of [1, 7]) {
  test(`every simulation reproduces every field of its report entries bit for bit (seed ${seed})`, () => {
    // Every model with a call (iterated from models(), not listed), every entry, every field:
    // the report's keys camelCased (describe::camel_case), no hand-written key pairs.
    const report = nativeReport(seed, REQUESTS);
    const models = pkg.models().filter((m) => m.call !== null);
    assert.ok(models.length >= 4);
    for (const model of models) {
      const entries = model.sweep ? report[model.key] : [report[model.key]];
      assert.ok(entries.length > 0, model.key);
      for (const e of entries) {
        const opts = { ...reportRunOf(model, readDts())(e, REQUESTS), seed };
        assert.deepEqual(
          plain(pkg[model.call](opts)),
          camelKeys(e),
          `${model.call}(${JSON.stringify(opts)})`,
        );
      }
    }
    // The duplicate policy is also reached by delay 0, with the same bits.
    const dup = report.loaded.find((l) => l.policy === "duplicate");
    assert.deepEqual(
      plain(pkg.simulateLoaded({ load: dup.load, delay: 0, requests: REQUESTS, seed })),
      camelKeys(dup),
    );
    // And balance's `policy` names the same d.
    const b = report.balance.find((x) => x.lambda === 0.9 && x.d === 2);
    assert.equal(
      pkg.simulateBalance({ lambda: 0.9, policy: "two", arrivals: 5 * REQUESTS, seed }).meanTime,
      b.mean_time,
    );
  });
}

test("simulateFanout: the simulated share against 1 − (1 − p)^n", () => {
  for (const [p, n, seed] of [
    [0.01, 100, 1],
    [0.01, 100, 2],
    [0.001, 1000, 3],
    [0.2, 3, 4],
    [0.05, 1, 5],
  ]) {
    const r = pkg.simulateFanout({ p, n, requests: 50_000, seed });
    assert.equal(r.theory, pkg.slowShare(p, n));
    assert.ok(Math.abs(r.theory - (1 - (1 - p) ** n)) < 1e-12);
    const se = Math.sqrt((r.theory * (1 - r.theory)) / r.requests);
    assert.ok(
      Math.abs(r.sim - r.theory) <= Z * se,
      `p=${p} n=${n}: ${r.sim} vs ${r.theory} ± ${Z * se}`,
    );
    assert.ok(Math.abs(r.stdErr - Math.sqrt((r.sim * (1 - r.sim)) / r.requests)) < 1e-15);
  }
});

test("simulateFanoutLatency: the parent (the max of n leaves) and the leaf against their closed forms", () => {
  // Means within Z of the run's own standard error; the closed forms in the result are
  // fanoutLatencyTheory's, bit for bit. (The percentiles are checked against the exact CDF in
  // the core's tests/it/fanout_latency.rs, where the CDF is at hand.)
  for (const [p, n, requests, seed] of [
    [0.01, 100, 20_000, 1],
    [0.01, 100, 20_000, 2],
    [0, 1, 50_000, 3],
    [1, 5, 20_000, 4],
    [0.2, 1000, 2_000, 5],
  ]) {
    const r = pkg.simulateFanoutLatency({ p, n, requests, seed });
    const t = pkg.fanoutLatencyTheory(p, n);
    assert.deepEqual([r.p, r.n, r.requests], [p, n, requests]);
    for (const k of ["ParentMean", "ParentP50", "ParentP99", "LeafMean", "LeafP50", "LeafP99"])
      assert.equal(r[`theory${k}`], t[k[0].toLowerCase() + k.slice(1)], k);
    for (const [sim, exact, se, what] of [
      [r.parentMean, t.parentMean, r.parentMeanStdErr, "parent"],
      [r.leafMean, t.leafMean, r.leafMeanStdErr, "leaf"],
    ]) {
      assert.ok(se > 0, `${what} std err ${se}`);
      assert.ok(
        Math.abs(sim - exact) <= Z * se,
        `p=${p} n=${n} ${what}: ${sim} vs ${exact} ± ${Z * se}`,
      );
    }
    if (n === 1) {
      // One leaf is the parent: the same draws in the same histogram.
      assert.equal(r.parentP50, r.leafP50);
      assert.equal(r.parentP99, r.leafP99);
      assert.ok(Math.abs(t.parentMean / t.leafMean - 1) < 1e-12);
    }
  }
  // The Lab's defaults (p = 1%, n = 100): the mean describes neither mode. The leaf's mean is
  // 2.5× its median; the parent's mean is below the parent's median, simulated as in theory.
  const t = pkg.fanoutLatencyTheory(0.01, 100);
  assert.ok(Math.abs(t.parentMean - 750.5318) < 1e-3, `${t.parentMean}`);
  assert.ok(Math.abs(t.parentP50 - 840.0511) < 1e-3, `${t.parentP50}`);
  assert.ok(Math.abs(t.leafMean / t.leafP50 - 2.4868) < 1e-4, `${t.leafMean / t.leafP50}`);
  const r = pkg.simulateFanoutLatency({ p: 0.01, n: 100, requests: 40_000, seed: 1 });
  assert.ok(r.parentMean + Z * r.parentMeanStdErr < r.parentP50, JSON.stringify(r));
  // Bad arguments, by name and range; the work bound, by its rule.
  for (const [f, kind, message] of [
    [
      () => pkg.simulateFanoutLatency({ p: -0.1 }),
      RangeError,
      /^p must be a probability in 0\.\.=1/,
    ],
    [
      () => pkg.simulateFanoutLatency({ n: 1025 }),
      RangeError,
      /^n must be an integer in 1\.\.=1024/,
    ],
    [
      () => pkg.simulateFanoutLatency({ requests: 1 }),
      RangeError,
      /^requests must be an integer in 2\.\.=10000000/,
    ],
    [() => pkg.simulateFanoutLatency({ p: "1%" }), TypeError, /^p must be a number/],
    [
      () => pkg.simulateFanoutLatency({ n: 1000, requests: 80_000 }),
      RangeError,
      /^2 × requests × n must be at most 150000000 work units per call/,
    ],
    [() => pkg.fanoutLatencyTheory(0.01, 0), RangeError, /^n must be an integer in 1\.\.=1024/],
    [() => pkg.fanoutLatencyTheory(2, 10), RangeError, /^p must be a probability in 0\.\.=1/],
  ])
    assert.throws(f, (e) => e instanceof kind && message.test(e.message), String(f));
});

test("simulateHedge: the simulated tails follow S(t) and S(t)·S(t − d), also for your own service", () => {
  const own = { body: { medianMs: 20, sigma: 0.8 }, slow: { p: 0.02, medianMs: 400, sigma: 0.5 } };
  for (const [options, seed] of [
    [{ delayQ: 0.95 }, 3],
    [{ delayQ: 0.9, service: own }, 4],
    [{ delayMs: 50, service: own }, 5],
  ]) {
    const r = pkg.simulateHedge({ ...options, requests: 100_000, seed });
    const c = r.curves;
    // Empirical survival at a bin edge is an exact binomial proportion.
    for (let i = 0; i < c.tMs.length; i++) {
      for (const [sim, exact] of [
        [c.before[i], c.theoryBefore[i]],
        [c.after[i], c.theoryAfter[i]],
      ]) {
        const se = Math.sqrt((exact * (1 - exact)) / r.requests);
        assert.ok(
          Math.abs(sim - exact) <= Z * se + 1e-12,
          `t=${c.tMs[i]}: ${sim} vs ${exact} ± ${Z * se}`,
        );
      }
    }
    const se = Math.sqrt((r.theoryExtraRequests * (1 - r.theoryExtraRequests)) / r.requests);
    assert.ok(Math.abs(r.extraRequests - r.theoryExtraRequests) <= Z * se);
    if (options.delayMs) {
      assert.equal(r.delayMs, 50);
      // A delay given in ms sits at the exact level 1 − S(d).
      assert.equal(r.delayQ, 1 - r.theoryExtraRequests);
    }
  }
});

test("simulateLoaded with your own service and no backups: each replica is M/G/1 (Pollaczek–Khinchine)", () => {
  // Lognormal service, median m, σ: E[S] = m e^(σ²/2), E[S²] = m² e^(2σ²). Mean time in system
  // E[S] + λE[S²] / (2(1 − ρ)) with λ = ρ / E[S] per replica.
  const [m, s, rho] = [10, 0.6, 0.7];
  const es = m * Math.exp((s * s) / 2),
    es2 = m * m * Math.exp(2 * s * s);
  const want = es + ((rho / es) * es2) / (2 * (1 - rho));
  const means = Array.from(
    { length: 10 },
    (_, i) =>
      pkg.simulateLoaded({
        load: rho,
        requests: 50_000,
        seed: 40 + i,
        service: { body: { medianMs: m, sigma: s } },
      }).mean,
  );
  const mean = means.reduce((a, b) => a + b) / means.length;
  const se = Math.sqrt(
    means.reduce((a, b) => a + (b - mean) ** 2, 0) / (means.length - 1) / means.length,
  );
  assert.ok(Math.abs(mean - want) <= 4.78 * se, `${mean} vs ${want} ± ${4.78 * se}`);
});

test("the Lab's bad arguments throw RangeError or TypeError naming the argument", () => {
  const cases = [
    [
      () => pkg.simulateLoaded({ cancellation: "sometimes" }),
      RangeError,
      /^cancellation must be one of "backup", "either", "either-any", "queued", "never"/,
    ],
    [
      () => pkg.simulateLoaded({ delayBasis: "busy" }),
      RangeError,
      /^delayBasis must be one of "loaded", "idle"/,
    ],
    [() => pkg.simulateLoaded({ delay: -1 }), RangeError, /^delay must be a delay in ms/],
    [() => pkg.simulateLoaded({ delay: "soon" }), TypeError, /^delay must be a number/],
    [
      () => pkg.simulateLoaded({ service: { body: { medianMs: -1, sigma: 0.5 } } }),
      RangeError,
      /^service\.body\.medianMs must be a number of milliseconds in 1e-6\.\.=1e9 \(got -1\)/,
    ],
    [
      () => pkg.simulateLoaded({ service: {} }),
      TypeError,
      /^service\.body \(\{ medianMs, sigma \}\) is required/,
    ],
    [() => pkg.simulateHedge({ delayQ: 0.9, delayMs: 10 }), TypeError, /delayQ or delayMs/],
    [
      () => pkg.simulateHedge({ delayQ: 1 }),
      RangeError,
      /^delayQ must be a quantile level in \(0, 1\)/,
    ],
    [
      () =>
        pkg.simulateHedge({
          service: { body: { medianMs: 5, sigma: 0.3 }, slow: { p: 2, medianMs: 9, sigma: 0.3 } },
        }),
      RangeError,
      /^service\.slow\.p must be a fraction in 0\.\.=1/,
    ],
    [
      () => pkg.simulateBalance({ policy: "four" }),
      RangeError,
      /^policy must be one of "random", "two", "three"/,
    ],
    [
      () => pkg.simulateBalance({ policy: "two", d: 3 }),
      RangeError,
      /^policy "two" means d = 2, but d is 3/,
    ],
    [() => pkg.simulateFanout({ n: 0 }), RangeError, /^n must be an integer in 1\.\.=1024/],
    [() => pkg.simulateFanout({ p: 1.5 }), RangeError, /^p must be a probability in 0\.\.=1/],
    [() => pkg.fixedPointMeanTime(0, 2), RangeError, /^lambda must be a rate > 0/],
    [() => pkg.fixedPointShare(0, 2, 1), RangeError, /^lambda must be a rate > 0/],
    [() => pkg.fixedPointShare(0.5, 2, 0), RangeError, /^i must be an integer in 1\.\.=1000000/],
    [() => pkg.fixedPointShare(0.5, 0, 1), RangeError, /^d must be an integer in 1\.\.=100000/],
    [() => pkg.noBackupMeanMs(0), RangeError, /^load must be a utilisation in 0\.001\.\.=2/],
    [() => pkg.noBackupMeanMs("half"), TypeError, /^load must be a number/],
    [
      () => pkg.noBackupMeanMs(0.5, { body: { medianMs: 5, sigma: 9 } }),
      RangeError,
      /^service\.body\.sigma must be a number in \(0, 5\]/,
    ],
    [
      () => pkg.serviceMoments({}),
      TypeError,
      /^service\.body \(\{ medianMs, sigma \}\) is required/,
    ],
  ];
  for (const [f, kind, message] of cases) {
    assert.throws(f, (e) => e instanceof kind && message.test(e.message), String(f));
  }
  assert.equal(pkg.fixedPointMeanTime(1.2, 2), undefined);
  assert.equal(pkg.fixedPointShare(1.2, 2, 3), undefined);
  assert.equal(pkg.noBackupMeanMs(1), undefined);
});

test("the loaded and balance closed forms: Pollaczek–Khinchine from the service's moments, the fixed point's shares", () => {
  // The Lab's service model: body 7.7 ms (σ 0.5), replaced w.p. 1% by a 1 s (σ 0.35) hiccup.
  const m = pkg.serviceMoments();
  const lognormal = (median, sigma, k) => median ** k * Math.exp((k * k * sigma * sigma) / 2);
  const near = (a, b, what) => assert.ok(Math.abs(a / b - 1) < 1e-12, `${what}: ${a} vs ${b}`);
  near(m.bodyMeanMs, lognormal(7.7, 0.5, 1), "body mean");
  near(m.slowMeanMs, lognormal(1000, 0.35, 1), "slow mean");
  near(m.meanMs, 0.99 * m.bodyMeanMs + 0.01 * m.slowMeanMs, "mean");
  near(m.secondMomentMs2, 0.99 * lognormal(7.7, 0.5, 2) + 0.01 * lognormal(1000, 0.35, 2), "E[S²]");
  // E[T] = E[S] + λE[S²]/(2(1 − ρ)) with λ = ρ/E[S], per replica.
  for (const load of [0.1, 0.5, 0.9]) {
    const want = m.meanMs + ((load / m.meanMs) * m.secondMomentMs2) / (2 * (1 - load));
    near(pkg.noBackupMeanMs(load), want, `load ${load}`);
  }
  // A reader's own service model: exponential-free, so check against its own moments.
  const own = { body: { medianMs: 4, sigma: 0.3 } };
  const o = pkg.serviceMoments(own);
  near(o.meanMs, lognormal(4, 0.3, 1), "own mean");
  near(
    pkg.noBackupMeanMs(0.5, own),
    o.meanMs + ((0.5 / o.meanMs) * o.secondMomentMs2) / (2 * 0.5),
    "own P-K",
  );
  // sᵢ = λ^((dⁱ − 1)/(d − 1)), λ^i for one choice; (1/λ) Σ sᵢ is the fixed point's mean time.
  for (const [lambda, d] of [
    [0.9, 1],
    [0.9, 2],
    [0.5, 3],
  ]) {
    let sum = 0;
    for (let i = 1; i <= 2000; i++) {
      const s = pkg.fixedPointShare(lambda, d, i);
      const exponent = d === 1 ? i : (d ** i - 1) / (d - 1);
      if (i <= 6) near(s, lambda ** exponent, `λ ${lambda} d ${d} i ${i}`);
      sum += s;
    }
    assert.ok(Math.abs(sum / lambda / pkg.fixedPointMeanTime(lambda, d) - 1) < 1e-9);
  }
});

test("the generated .d.ts declares every option and result shape: no `any` in the public API", () => {
  const dts = readDts();
  // What follows InitInput is wasm-bindgen's description of the raw module exports.
  const publicApi = dts.slice(0, dts.indexOf("export type InitInput"));
  const offending = publicApi
    .split("\n")
    .filter((l) => /(?<![-"])\bany\b(?!["-])/.test(l) && !/^\s*(\*|\/\*\*)/.test(l));
  assert.deepEqual(offending, []);
  const interfaces = dtsInterfaces(publicApi);
  // Every interface's every field has a type made only of declared or built-in types.
  for (const [name, fields] of Object.entries(interfaces)) {
    for (const [key, { type }] of Object.entries(fields))
      assert.deepEqual(unresolvedTypes(type, publicApi), [], `${name}.${key}: ${type}`);
  }
  for (const shape of ["TailOptions", "RequestTrace"])
    assert.ok(Object.keys(interfaces[shape] ?? {}).length > 0, shape);
  // Every simulation a section runs declares its options and its result, with their shapes:
  // the options interface names exactly the keys the call accepts (the binding lists them when
  // given an unknown one), and a small run's result conforms to the result interface, every
  // key present, none extra, each value of its declared type.
  assert.ok(simulations.length > 0);
  for (const name of simulations) {
    const signature = new RegExp(`export function ${name}\\(opts\\?: (\\w+)\\): (\\w+);`).exec(
      publicApi,
    );
    assert.ok(signature, `${name} has no typed signature`);
    const [, options, result] = signature;
    assert.ok(interfaces[options], `${name}: export interface ${options}`);
    assert.ok(interfaces[result], `${name}: export interface ${result}`);
    let known;
    try {
      pkg[name]({ notAnOption: 1 });
    } catch (e) {
      known = /the known ones are (.*)$/.exec(e.message)?.[1].split(", ");
    }
    assert.ok(known, `${name} refuses an unknown option and names the known ones`);
    assert.deepEqual(Object.keys(interfaces[options]).sort(), known.sort(), `${name}: ${options}`);
    assert.ok(
      Object.values(interfaces[options]).every((f) => f.optional),
      `${name}: every option is optional (the call has defaults)`,
    );
    const small = Object.fromEntries(
      ["requests", "arrivals"].filter((k) => k in interfaces[options]).map((k) => [k, 1000]),
    );
    assert.deepEqual(conforms(pkg[name](small), result, interfaces, name), []);
  }
});

test("every section in lab/sections.js is a folder: section.js, calls.js, prose.html, claims.js and, above In code, snippet.js", () => {
  const folders = readdirSync(join(WEB, "lab", "sections"), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  assert.deepEqual(
    [...folders].sort(),
    [...SECTIONS].sort(),
    "a folder not in the list, or a name without a folder",
  );
  assert.equal(new Set(SECTIONS).size, SECTIONS.length);
  for (const name of SECTIONS) {
    const files = ["section.js", "calls.js", "prose.html", "claims.js"];
    if (SNIPPET_SECTIONS.includes(name)) files.push("snippet.js");
    for (const file of files)
      assert.ok(existsSync(join(WEB, "lab", "sections", name, file)), `${name} lacks ${file}`);
    assert.match(
      readFileSync(join(WEB, "lab", "sections", name, "prose.html"), "utf8"),
      /<h2>[^<]/,
      `${name}/prose.html has no heading`,
    );
  }
  // The workers' dispatch table is the union of the sections' calls: the core's simulations
  // and the "In code" section's snippet.
  for (const [name, fn] of Object.entries(calls)) assert.equal(typeof fn, "function", name);
  assert.deepEqual(
    Object.keys(calls)
      .filter((name) => !simulations.includes(name))
      .sort(),
    ["snippet", ...READING].sort(),
  );
  // Every model with a call is run by some section: a model registered in the core and shown
  // nowhere is a missing section.
  for (const model of pkg.models().filter((m) => m.call !== null))
    assert.ok(
      simulations.includes(model.call),
      `no section's calls.js runs ${model.call} (${model.key})`,
    );
  // A simulation's result, or a trace of one (the queue animations' traceSupermarket and
  // traceLoaded).
  assert.ok(
    simulations.every((name) => /^(simulate|trace)[A-Z]/.test(name)),
    simulations.join(),
  );
});

test("the sections' facade offers the core's closed forms only: no simulation on the main thread", () => {
  const api = closedForms(pkg);
  assert.deepEqual(Object.keys(api), closedFormNames(pkg));
  // The models' own closed forms are there, each from its model's registration.
  for (const name of [
    "slowShare",
    "crossover",
    "parentLevel",
    "fixedPointMeanTime",
    "fixedPointShare",
    "noBackupMeanMs",
    "serviceMoments",
    "queueTheory",
    "fanoutLatencyTheory",
  ]) {
    assert.ok(name in api, name);
  }
  // A model that declared a simulation as a closed form would be refused.
  const lying = { ...pkg, models: () => [{ closedForms: ["simulateQueue"] }] };
  assert.throws(() => closedForms(lying), /simulateQueue is not a closed form/);
  assert.equal(Object.getPrototypeOf(api), null);
  assert.ok(Object.isFrozen(api));
  for (const name of Object.keys(api)) {
    assert.equal(typeof api[name], "function", name);
    assert.doesNotMatch(
      name,
      /^simulate|TailRun|requestAt|leafSample|Quantile$|heapBytes|init/,
      `${name} is not a closed form`,
    );
  }
  for (const name of Object.keys(pkg).filter((k) => k.startsWith("simulate")))
    assert.ok(!(name in api), name);
  assert.equal(api.slowShare(0.01, 100), pkg.slowShare(0.01, 100));
  // A section reaches the core only through the facade (its mount context) and the workers
  // (calls.js gets the core as an argument): no file in a section folder imports the package
  // or the page's loader.
  for (const name of SECTIONS) {
    for (const file of readdirSync(join(WEB, "lab", "sections", name)).filter((f) =>
      f.endsWith(".js"),
    )) {
      // Type imports in JSDoc comments (`@typedef {import("…/pkg/tail_lab.js").X}`) load
      // nothing: only the code outside block comments is read.
      const source = readFileSync(join(WEB, "lab", "sections", name, file), "utf8").replace(
        /\/\*[\s\S]*?\*\//g,
        "",
      );
      for (const [, spec] of source.matchAll(
        /(?:\bfrom\s*|\bimport\s*\(?\s*)["'`]([^"'`]+)["'`]/g,
      )) {
        assert.doesNotMatch(spec, /(^|\/)pkg\/|(^|\/)wasm\.js$/, `${name}/${file} imports ${spec}`);
      }
    }
  }
});

test("labDefaults() is the core's own defaults: the Lab's service model, replicas, policies and servers", () => {
  const lab = closedForms(pkg).labDefaults();
  const few = { requests: 2_000, seed: 3 };
  // Passing the defaults explicitly changes no bit.
  assert.deepEqual(pkg.simulateHedge({ ...few, service: lab.service }), pkg.simulateHedge(few));
  assert.deepEqual(
    pkg.simulateLoaded({ ...few, load: 0.5, service: lab.service, replicas: lab.loaded.replicas }),
    pkg.simulateLoaded({ ...few, load: 0.5 }),
  );
  assert.deepEqual(
    pkg.simulateBalance({ lambda: 0.7, arrivals: 20_000, seed: 3, servers: lab.balance.servers }),
    pkg.simulateBalance({ lambda: 0.7, arrivals: 20_000, seed: 3 }),
  );
  // Every name is one the core accepts, and no other is.
  for (const policy of lab.loaded.policies)
    assert.equal(pkg.simulateLoaded({ ...few, load: 0.3, policy }).policy, policy);
  for (const cancellation of lab.loaded.cancellations)
    assert.equal(
      pkg.simulateLoaded({ ...few, load: 0.3, cancellation }).cancellation,
      cancellation,
    );
  for (const delayBasis of lab.loaded.delayBases)
    pkg.simulateLoaded({ ...few, load: 0.3, policy: "hedge", delayBasis });
  assert.equal(
    pkg.simulateLoaded({ ...few, load: 0.3 }).cancellation,
    lab.loaded.cancellations[0],
    "the default cancellation comes first",
  );
  assert.equal(lab.loaded.delayBases[0], "loaded", "the default delay basis comes first");
  for (const [policy, d] of Object.entries(lab.balance.policies))
    assert.equal(pkg.simulateBalance({ lambda: 0.5, arrivals: 1_000, policy }).d, d);
  // The idle p95 delay is calibrated at seed 1, whatever the run's length.
  assert.equal(
    pkg.simulateLoaded({ load: 0.3, policy: "hedge", delayBasis: "idle", requests: 1_000, seed: 1 })
      .delayMs,
    lab.loaded.idleDelayMs,
  );
});

test("a fan-out dot's 95% interval is the core's Wilson interval around sim", () => {
  const r = pkg.simulateFanout({ p: 0.01, n: 100, requests: 10_000, seed: 1 });
  const [low, high] = fanoutInterval(r);
  assert.deepEqual([low, high], [r.ciLow, r.ciHigh]);
  assert.ok(low < r.sim && r.sim < high);
  // Wilson: centre (sim + z²/2r)/(1 + z²/r), half-width z/(1 + z²/r)·√(sim(1 − sim)/r + z²/4r²).
  const z = 1.959963984540054,
    n = r.requests,
    z2 = z * z;
  const centre = (r.sim + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((r.sim * (1 - r.sim)) / n + z2 / (4 * n * n));
  assert.ok(Math.abs(low - (centre - half)) < 1e-15 && Math.abs(high - (centre + half)) < 1e-15);
  // No slow request at all: [0, z²/(r + z²)], not the empty [0, 0].
  const none = pkg.simulateFanout({ p: 0, n: 10, requests: 1000, seed: 1 });
  assert.deepEqual(fanoutInterval(none), [0, z2 / (1000 + z2)]);
});
