// The Lab page in real Chromium: every section renders and answers its controls, its readouts
// are the API's numbers for the same settings (the page is seeded, so exactly), the seed's
// findings show, the unstable band is labelled, and dragging a slider while a sweep runs
// calls no simulation on the main thread. The sections and their settings come from the Lab's
// one list (web/lab/sections.js). The tests share one page, but each starts from the same state:
// every setting back at its default, at 1280 px (`reset`), so they pass in any order.

import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, beforeEach, test } from "node:test";
import { countWord, formatMs, formatNumber, formatPct } from "../../web/format.js";
import { SNIPPET_READOUTS } from "../../web/lab/sections/code/readouts.js";
import { SECTIONS } from "../../web/lab/sections.js";
import { ROOT, Z, downloadBytes, launchChromium, loadPackage, serveWeb } from "../support.mjs";

const SHOTS = join(ROOT, "tests", "screenshots");
const pkg = await loadPackage();
let server, browser, page;
const problems = [];

const sel = (section, name, attr = "readout") =>
  `[data-section=${section}] [data-${attr}="${name}"]`;
const text = (section, name, attr) => page.textContent(sel(section, name, attr));

/** Waits until every sweep on the page has answered every point. */
async function settled() {
  await page.waitForFunction(
    () =>
      [...document.querySelectorAll("[data-progress]")].every(
        (p) => p.dataset.total && p.dataset.done === p.dataset.total,
      ),
    null,
    { timeout: 120_000 },
  );
}
/** Sets a control as a reader would, then waits two frames: sliders update once per frame. */
async function setValue(id, value, event = "input") {
  await page.$eval(
    `#${id}`,
    (el, [v, e]) => {
      el.value = String(v);
      el.dispatchEvent(new Event(e, { bubbles: true }));
    },
    [value, event],
  );
  await page.evaluate(
    () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
  );
}
const setSelect = (id, value) => setValue(id, value, "change");
/** What a section shows: its chart, its readouts and which of its controls are visible. */
const fingerprint = (section) =>
  page.$eval(`[data-section=${section}]`, (root) => ({
    chart: root.querySelector("canvas")?.toDataURL() ?? null,
    readouts: [...root.querySelectorAll("[data-readout]")].map((e) => e.textContent).join("|"),
    controls: [...root.querySelectorAll("input, select")]
      .filter((e) => e.checkVisibility())
      .map((e) => e.id)
      .join(" "),
  }));

/**
 * In the page: every section's settings as the page reads them (lab/sections.js, with the
 * core's defaults filled in), `[{ section, specs }]`, and `apply(section, values)`, which moves
 * the section's controls as the embed's attributes do (section.js's applyValues).
 */
const IN_PAGE = `
  const [{ loadSections }, { closedForms }, { applyValues, settingsOf }, { loadCore }] = await Promise.all(
    ["./lab/sections.js", "./lab/api.js", "./lab/section.js", "./wasm.js"].map((m) => import(m)));
  const api = closedForms(await loadCore());
  const sections = (await loadSections()).map((s) => ({ section: s.name, specs: settingsOf(s.params, api) }));
  const apply = (name, values) => applyValues(document.querySelector(\`[data-section=\${name}]\`), "", sections.find((s) => s.section === name).specs, values);
`;
/** Every section's settings, without their functions. */
const settingsSpecs = () =>
  page.evaluate(`(async () => { ${IN_PAGE}
  return sections.map(({ section, specs }) => ({ section, specs: specs.map(({ control, ...spec }) => spec) })); })()`);
/** Moves `section`'s controls to `values` (settings by name), then waits two frames. */
async function applySettings(section, values) {
  await page.evaluate(
    `(async () => { ${IN_PAGE} apply(${JSON.stringify(section)}, ${JSON.stringify(values)}); })()`,
  );
  await page.evaluate(
    () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
  );
}

/** Every setting of every section back at its default, at 1280 px, with every sweep answered. */
async function reset() {
  await page.setViewportSize({ width: 1280, height: 1000 });
  // The page's seed too (the field at the top): back to 1 if a test moved it.
  if ((await page.inputValue("#seed")) !== "1" || (await page.textContent("#seed-error"))) {
    await page.fill("#seed", "1");
    await page.dispatchEvent("#seed", "change");
  }
  await page.evaluate(`(async () => { ${IN_PAGE}
    for (const { section, specs } of sections) {
      const root = document.querySelector(\`[data-section=\${section}]\`);
      const moved = specs.filter((spec) => {
        const control = root.querySelector(\`#\${CSS.escape(spec.name)}\`);
        return control && control.value !== (spec.control ? spec.control(spec.default) : String(spec.default));
      });
      apply(section, Object.fromEntries(moved.map((spec) => [spec.name, spec.default])));
    }
  })()`);
  await page.evaluate(
    () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
  );
  await settled();
}

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await serveWeb();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(server.url);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  await page.waitForSelector("[data-section=code][data-snippet-done=true]", { timeout: 60_000 });
  await settled();
});

beforeEach(reset);

after(async () => {
  await browser?.close();
  await server?.close();
});

test("every section shows its simulation beside its closed form, as the API computes them", async () => {
  // Fan-out at p = 1%, n = 100: the simulated share within binomial error of 63.4%.
  const fan = pkg.simulateFanout({ p: 0.01, n: 100, requests: 100_000, seed: 1 });
  assert.equal(await text("fanout", "slow-share"), formatPct(fan.sim));
  assert.equal(await text("fanout", "slow-share", "theory"), "theory 63.4%");
  assert.ok(Math.abs(fan.sim - 0.634) <= Z * fan.stdErr + 0.0005, `${fan.sim}`);
  // Fan-out latency at the same p and n: the request (the slowest of n leaves) and one leaf,
  // each readout the API's number and each theory the closed form (checkLatency, below).
  await checkLatency(0.01, 100);
  // Idle hedge at p95: seed 000 quotes 1,555 → 34 ms. The simulated p99.9 from 200,000
  // requests has about 1.4% relative error; allow Z = 4.5 of it (6.3%).
  const h = pkg.simulateHedge({ delayQ: 0.95 });
  assert.equal(await text("hedge", "p999-before"), formatMs(h.p999Before));
  assert.equal(await text("hedge", "p999-after"), formatMs(h.p999After));
  assert.equal(await text("hedge", "extra-requests"), formatPct(h.extraRequests));
  assert.equal(await text("hedge", "extra-work"), formatPct(h.extraWork, 2));
  assert.equal(await text("hedge", "hedge-delay"), formatMs(h.delayMs));
  assert.equal(
    await text("hedge", "p999-after", "theory"),
    `theory ${formatMs(h.theoryP999After)}`,
  );
  assert.ok(
    Math.abs(h.p999Before / 1555 - 1) < Z * 0.014 && Math.abs(h.p999After / 34 - 1) < Z * 0.014,
    `${h.p999Before} → ${h.p999After}`,
  );
  // Extra requests against S(d) with its binomial error. (The seed's 4.7% is outside that
  // error: a p95 delay fires on 5% of requests by construction.)
  assert.ok(
    Math.abs(h.extraRequests - h.theoryExtraRequests) <= Z * Math.sqrt((0.05 * 0.95) / h.requests),
  );
  // One queue, default settings (4 servers at 80%), run as long as its precision needs
  // ("auto"): the readouts are the API's numbers, and the exact ones are the closed forms.
  const q = pkg.simulateQueue({ servers: 4, load: 0.8, requests: "auto", seed: 1 });
  assert.equal(await text("queue", "queue-mean"), formatNumber(q.mean));
  assert.equal(await text("queue", "queue-p99"), formatNumber(q.p99));
  assert.equal(await text("queue", "queue-waited"), formatPct(q.waitProbability));
  assert.equal(await text("queue", "queue-mean", "theory"), `theory ${formatNumber(q.theoryMean)}`);
  assert.equal(await text("queue", "queue-p99", "theory"), `theory ${formatNumber(q.theoryP99)}`);
  assert.equal(
    await text("queue", "queue-waited", "theory"),
    `Erlang C ${formatPct(q.theoryWaitProbability)}`,
  );
  // Its precision readout is the core's record of the planned run: the half-widths reached,
  // its length and what decided it.
  const pct = (v) => `±${(v * 100).toFixed(v < 0.1 ? 1 : 0)}%`;
  assert.equal(
    await text("queue", "queue-precision"),
    `${pct(q.precision.mean)} · ${pct(q.precision.p99)}`,
  );
  assert.match(
    await text("queue", "queue-precision", "theory"),
    new RegExp(
      `^${q.requests.toLocaleString("en-US")} requests, planned(: the floor|: the cap)?, ${q.precision.met ? "targets met" : "short of targets"}$`,
    ),
  );
  // Loaded, default settings (load 0.6, hedge).
  const l = pkg.simulateLoaded({ load: 0.6, policy: "hedge" });
  assert.equal(await text("loaded", "p50"), formatMs(l.p50));
  assert.equal(await text("loaded", "p99"), formatMs(l.p99));
  assert.equal(await text("loaded", "extra-work"), formatPct(l.extraWork));
  assert.equal(await text("loaded", "loaded-delay"), formatMs(l.delayMs));
  // Balance at λ = 0.9, best of two: seed 000 gives 2.63 against a predicted 2.61.
  const b = pkg.simulateBalance({ lambda: 0.9, policy: "two", arrivals: "auto" });
  assert.equal(await text("balance", "mean-time"), formatNumber(b.meanTime));
  assert.equal(await text("balance", "theory"), "2.61");
  assert.ok(Math.abs(b.meanTime - 2.63) < 0.1, `${b.meanTime}`);
  const all = await page.$$eval("[data-readout], [data-theory]", (els) =>
    els.map((e) => e.textContent).join(" "),
  );
  assert.ok(!/NaN|undefined|Infinity/.test(all), all);
  await page.screenshot({ path: join(SHOTS, "lab-1280.png"), fullPage: true });
  assert.deepEqual(problems, []);
});

/** The fan-out section's latency readouts against the API at `p` and `n` (the section's
 * request count for `n` is its own `latencyRequests`, read from the page). */
async function checkLatency(p, n) {
  const requests = await page.evaluate(
    (k) => import("./lab/sections/fanout/section.js").then((m) => m.latencyRequests(k)),
    n,
  );
  const r = pkg.simulateFanoutLatency({ p, n, requests, seed: 1 });
  const exact = pkg.fanoutLatencyTheory(p, n);
  for (const [name, key, theory] of [
    ["parent-mean", "parentMean", "theoryParentMean"],
    ["parent-p50", "parentP50", "theoryParentP50"],
    ["parent-p99", "parentP99", "theoryParentP99"],
    ["leaf-mean", "leafMean", "theoryLeafMean"],
    ["leaf-p50", "leafP50", "theoryLeafP50"],
  ]) {
    assert.equal(r[theory], exact[key], `${name}: the result's closed form is the API's`);
    assert.equal(await text("fanout", name), formatMs(r[key]), `${name} at p=${p} n=${n}`);
    assert.equal(await text("fanout", name, "theory"), `theory ${formatMs(exact[key])}`, name);
  }
  return r;
}

test("the fan-out section's latency readouts are the API's at other settings too", async () => {
  await applySettings("fanout", { "fanout-p": 0.05, "fanout-n": 1000 });
  await settled();
  const r = await checkLatency(0.05, 1000);
  assert.equal(r.requests, 4000);
  await applySettings("fanout", { "fanout-p": 0.001, "fanout-n": 1 });
  await settled();
  // One leaf: the request is the leaf.
  const one = await checkLatency(0.001, 1);
  assert.equal(one.parentP50, one.leafP50);
  assert.equal(await text("fanout", "parent-p50"), await text("fanout", "leaf-p50"));
  assert.deepEqual(problems, []);
});

test("the page shows lab/sections.js's sections in its order, numbered, each with its heading and text", async () => {
  const shown = await page.$$eval("main [data-section]", (roots) =>
    roots.map((root) => ({
      name: root.dataset.section,
      number: root.querySelector("h2 .num")?.textContent,
      labelled: root.getAttribute("aria-labelledby") === root.querySelector("h2")?.id,
      heading: root.querySelector("h2")?.textContent.length > 5,
      text: root.querySelector("p.text")?.textContent.length > 0,
    })),
  );
  assert.deepEqual(
    shown,
    SECTIONS.map((name, i) => ({
      name,
      number: String(i + 1),
      labelled: true,
      heading: true,
      text: true,
    })),
  );
  // "The code below makes five of them": one call for each section above the code section.
  assert.equal(
    await page.textContent("[data-section=code] [data-count=sections-above]"),
    countWord(SECTIONS.indexOf("code")),
  );
});

test("the snippet's output equals the sections' readouts", async () => {
  // Every readout of the code section against the readout of the section its call stands for
  // (web/lab/sections/code/readouts.js). The loaded call is that section's default, a hedge
  // (issue 20): no setting to change.
  for (const { name, of } of SNIPPET_READOUTS) {
    const theirs = await text(of.section, of.readout, of.attr);
    assert.equal(
      await text("code", name),
      of.prefix ? theirs.replace(of.prefix, "") : theirs,
      `${name} against ${of.section}/${of.readout}`,
    );
  }
  assert.match(
    await page.textContent("[data-section=code] pre"),
    /simulateLoaded\(\{ load: 0\.6, policy: "hedge" \}\)/,
  );
});

/** The hedge section's readouts, as text, in the order `hedgeText` gives them. */
const hedgeReadouts = (p) =>
  Promise.all(
    ["p999-before", "p999-after", "extra-requests", "extra-work", "hedge-delay"].map((name) =>
      p.textContent(`[data-section=hedge] [data-readout="${name}"]`),
    ),
  );
/** What the hedge section shows for the API's result at `seed` (the section's defaults). */
const hedgeText = (seed) => {
  const h = pkg.simulateHedge({ delayQ: 0.95, requests: 200_000, seed });
  return [
    formatMs(h.p999Before),
    formatMs(h.p999After),
    formatPct(h.extraRequests),
    formatPct(h.extraWork, 2),
    formatMs(h.delayMs),
  ];
};
/** The fan-out section's simulated shares at its dots (defaults, p = 1%), as the API gives them. */
const FAN_DOTS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
const fanShares = (seed) =>
  FAN_DOTS.map((n) => pkg.simulateFanout({ p: 0.01, n, requests: 100_000, seed }).sim);
/** A fresh page at `query`, once every sweep in `scope` (all by default) has answered. */
async function openLab(query, options = {}, scope = "") {
  const p = await browser.newPage({ viewport: { width: 1280, height: 1000 }, ...options });
  p.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
  });
  p.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  await p.goto(`${server.url}${query}`);
  await p.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  await p.waitForFunction(
    (within) =>
      [...document.querySelectorAll(`${within} [data-progress]`)].every(
        (e) => e.dataset.total && e.dataset.done === e.dataset.total,
      ),
    scope,
    { timeout: 240_000 },
  );
  return p;
}
/** The fan-out chart's CSV download: `{ meta: ["seed=7", …], shares: Map(n → sim_share) }`. */
async function fanoutCsv(p) {
  const [download] = await Promise.all([
    p.waitForEvent("download"),
    p.click("[data-section=fanout] [data-export=csv]"),
  ]);
  const lines = (await downloadBytes(download)).toString("utf8").trim().split("\n");
  const rows = lines.filter((l) => !l.startsWith("#") && !l.startsWith("n,"));
  return {
    meta: lines.filter((l) => l.startsWith("# ")).map((l) => l.slice(2)),
    shares: new Map(
      rows
        .map((l) => l.split(","))
        .filter((r) => r[2] !== "")
        .map((r) => [Number(r[0]), Number(r[2])]),
    ),
  };
}

test("?seed=7 runs every section at seed 7: the API's numbers at seed 7, not seed 1's", async () => {
  const p = await openLab("?seed=7", { acceptDownloads: true });
  assert.equal(await p.inputValue("#seed"), "7");
  assert.equal(await p.textContent("footer [data-lab-seed]"), "7");
  assert.equal(await p.$eval("#url-notice", (e) => e.hidden), true, "no notice for a good seed");
  // Hedge: every readout is the API's at seed 7, and they are not seed 1's.
  const seven = hedgeText(7);
  assert.deepEqual(await hedgeReadouts(p), seven);
  assert.notDeepEqual(seven, hedgeText(1));
  // Fan-out: the readout, and every dot to the last bit (the CSV carries full precision).
  const fan = pkg.simulateFanout({ p: 0.01, n: 100, requests: 100_000, seed: 7 });
  assert.equal(
    await p.textContent('[data-section=fanout] [data-readout="slow-share"]'),
    formatPct(fan.sim),
  );
  const csv = await fanoutCsv(p);
  assert.ok(csv.meta.includes("seed=7"), csv.meta.join(" | "));
  assert.deepEqual(
    FAN_DOTS.map((n) => csv.shares.get(n)),
    fanShares(7),
  );
  assert.notDeepEqual(fanShares(7), fanShares(1));
  // The other sections' readouts are the API's at seed 7 too.
  const q = pkg.simulateQueue({ servers: 4, load: 0.8, requests: "auto", seed: 7 });
  assert.equal(
    await p.textContent('[data-section=queue] [data-readout="queue-p99"]'),
    formatNumber(q.p99),
  );
  const b = pkg.simulateBalance({ lambda: 0.9, policy: "two", arrivals: "auto", seed: 7 });
  assert.equal(
    await p.textContent('[data-section=balance] [data-readout="mean-time"]'),
    formatNumber(b.meanTime),
  );
  const l = pkg.simulateLoaded({ load: 0.6, policy: "hedge", seed: 7 });
  assert.equal(await p.textContent('[data-section=loaded] [data-readout="p50"]'), formatMs(l.p50));
  assert.equal(
    await p.textContent('[data-section=loaded] [data-readout="extra-work"]'),
    formatPct(l.extraWork),
  );
  // The snippet names no seed: it says so, and which seed the sections above run at.
  assert.equal(await p.textContent('[data-section=code] [data-readout="snippet-seed"]'), "1");
  assert.match(
    await p.textContent("[data-section=code] [data-seed-note]"),
    /API's default, seed 1; the sections above run at seed 7/,
  );
  assert.equal(new URL(p.url()).searchParams.get("seed"), "7");
  await p.close();
  assert.deepEqual(problems, []);
});

test("a seed past 2^53 reaches the core exactly, as a BigInt", async () => {
  // 2^53 + 1 is no double: as a number it would be 2^53. The page's numbers are the API's at
  // the BigInt 2^53 + 1, which differ from those at 2^53.
  const big = 9007199254740993n;
  const p = await openLab(`?seed=${big}`, { acceptDownloads: true });
  assert.equal(await p.inputValue("#seed"), String(big));
  assert.deepEqual(await hedgeReadouts(p), hedgeText(big));
  assert.notDeepEqual(hedgeText(big), hedgeText(big - 1n));
  const csv = await fanoutCsv(p);
  assert.ok(csv.meta.includes(`seed=${big}`), csv.meta.join(" | "));
  assert.deepEqual(
    FAN_DOTS.map((n) => csv.shares.get(n)),
    fanShares(big),
  );
  assert.notDeepEqual(fanShares(big), fanShares(big - 1n));
  assert.equal(new URL(p.url()).searchParams.get("seed"), String(big));
  await p.close();
  assert.deepEqual(problems, []);
});

test("a bad seed in the link gets a notice naming it and runs seed 1", async () => {
  const one = hedgeText(1);
  for (const [bad, why] of [
    ["-1", /seed: “-1” is not a whole number from 0 to 18446744073709551615; using 1/],
    ["abc", /seed: “abc” is not a whole number from 0 to 18446744073709551615; using 1/],
    ["99999999999999999999", /seed: 99999999999999999999 is above 18446744073709551615; using 1/],
  ]) {
    const p = await openLab(`?seed=${bad}`, {}, "[data-section=hedge]");
    assert.match(await p.textContent("#url-notice"), why, bad);
    assert.equal(await p.inputValue("#seed"), "1", bad);
    assert.deepEqual(await hedgeReadouts(p), one, bad);
    await p.waitForFunction(() => new URLSearchParams(location.search).get("seed") === "1");
    assert.doesNotMatch(await p.textContent("main"), /NaN/);
    await p.close();
  }
  assert.deepEqual(problems, []);
});

test("the seed field re-runs every section, goes into the URL, and refuses a bad seed in words", async () => {
  const one = await hedgeReadouts(page);
  assert.deepEqual(one, hedgeText(1));
  const label = await page.$eval("#seed", (e) => e.labels[0]?.textContent ?? "");
  assert.match(label, /seed/);
  // Typed as a reader would, committed with Enter.
  await page.focus("#seed");
  await page.keyboard.press("Control+A");
  await page.keyboard.type("7");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("seed") === "7");
  await settled();
  assert.deepEqual(await hedgeReadouts(page), hedgeText(7));
  const fan = pkg.simulateFanout({ p: 0.01, n: 100, requests: 100_000, seed: 7 });
  assert.equal(await text("fanout", "slow-share"), formatPct(fan.sim));
  assert.equal(await page.textContent("footer [data-lab-seed]"), "7");
  // A bad seed: said beside the field, marked invalid, and nothing changes.
  await page.fill("#seed", "-1");
  await page.dispatchEvent("#seed", "change");
  assert.equal(
    await page.textContent("#seed-error"),
    "seed must be a whole number from 0 to 18446744073709551615; you typed “-1”",
  );
  assert.equal(await page.getAttribute("#seed", "aria-invalid"), "true");
  assert.equal(await page.getAttribute("#seed", "aria-describedby"), "seed-error seed-note");
  await page.waitForTimeout(300); // past the URL's 150 ms coalescing: nothing was written
  assert.equal(new URL(page.url()).searchParams.get("seed"), "7");
  assert.deepEqual(await hedgeReadouts(page), hedgeText(7));
  // Back to 1: the first numbers again (from the cache, as the same calls).
  await page.fill("#seed", "1");
  await page.dispatchEvent("#seed", "change");
  assert.equal(await page.textContent("#seed-error"), "");
  assert.equal(await page.getAttribute("#seed", "aria-invalid"), "false");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("seed") === "1");
  await settled();
  assert.deepEqual(await hedgeReadouts(page), one);
  assert.deepEqual(problems, []);
});

/** Calls of the core's `simulate*` functions counted by V8 in a page coverage `entries`:
 * `{ simulateLoaded: 2, … }`, only those called. */
function simulateCalls(entries) {
  const calls = {};
  for (const e of entries) {
    if (!e.url.endsWith("/pkg/tail_lab.js")) continue;
    for (const f of e.functions) {
      const count = f.ranges[0]?.count ?? 0;
      if (/^simulate/.test(f.functionName) && count > 0)
        calls[f.functionName] = (calls[f.functionName] ?? 0) + count;
    }
  }
  return calls;
}

test("while sliders are dragged and sweeps run, the main thread calls no simulation: the workers do", async (t) => {
  // Simulations run in the workers; the main thread only draws. That is checked by what runs,
  // not by how long tasks take (which depends on the machine: `node tests/bench/browser.mjs`
  // measures the long tasks and prints them): V8's precise coverage counts every call of the
  // page's core module on the main thread (workers are isolates of their own, not counted).
  // The counting itself is checked first: one call made on purpose is seen, exactly once.
  await page.coverage.startJSCoverage({ resetOnNavigation: false });
  await page.evaluate(async () => {
    (await import("./pkg/tail_lab.js")).simulateFanout({ requests: 10 });
  });
  assert.deepEqual(simulateCalls(await page.coverage.stopJSCoverage()), { simulateFanout: 1 });

  await page.coverage.startJSCoverage({ resetOnNavigation: false });
  await setSelect("loaded-cancel", "queued"); // a fresh 57-point sweep, for the workers
  const progress = () =>
    page.$eval("[data-section=loaded] [data-progress]", (p) => ({
      done: Number(p.dataset.done),
      total: Number(p.dataset.total),
    }));
  const atStart = await progress();
  for (const id of ["balance-lambda", "loaded-load", "fanout-n"]) {
    await page.focus(`#${id}`);
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("ArrowRight");
      await page.waitForTimeout(25);
    }
  }
  await settled();
  const calls = simulateCalls(await page.coverage.stopJSCoverage());
  // How far the sweep had got when the drag began depends on the machine: printed, not checked.
  t.diagnostic(`loaded sweep at the drag's start: ${atStart.done}/${atStart.total} points`);
  assert.deepEqual(calls, {}, "no simulate* call on the main thread");
  // And the work was done: every point of every sweep answered, by the page's workers.
  const end = await progress();
  assert.ok(end.total >= 57 && end.done === end.total, JSON.stringify(end));
  const status = await page.evaluate(async () => (await import("./lab/sim.js")).labWorkStatus());
  assert.ok(status.workers >= 1, JSON.stringify(status));
  assert.equal(status.waiting, 0);
  assert.equal(await page.evaluate(async () => (await import("./lab/sim.js")).labWorkerJobs()), 0);
  assert.deepEqual(problems, []);
});

async function loadedAt(load, policy) {
  await setValue("loaded-load", load);
  await setSelect("loaded-policy", policy);
  const ms = (s) =>
    s === "unstable"
      ? Infinity
      : s.endsWith(" s")
        ? 1000 * Number.parseFloat(s)
        : Number.parseFloat(s);
  return {
    p50: ms(await text("loaded", "p50")),
    p99: ms(await text("loaded", "p99")),
    state: await text("loaded", "loaded-state"),
  };
}

test("the loaded section shows the seed's three findings, and the flip under another cancellation rule", async () => {
  await setSelect("loaded-cancel", "backup");
  await settled();
  // 1. The hedge costs about 3% extra work at every load.
  for (const load of [0.1, 0.5, 0.9]) {
    await loadedAt(load, "hedge");
    const work = Number.parseFloat(await text("loaded", "extra-work"));
    assert.ok(work >= 2 && work <= 4, `hedge extra work at ${load}: ${work}%`);
  }
  // 2. Duplicating has the lowest p50 and p99 at 20% load.
  const [n, h, d] = [
    await loadedAt(0.2, "none"),
    await loadedAt(0.2, "hedge"),
    await loadedAt(0.2, "duplicate"),
  ];
  assert.ok(
    d.p50 < Math.min(n.p50, h.p50) && d.p99 < Math.min(n.p99, h.p99),
    JSON.stringify({ n, h, d }),
  );
  // 3. At 70% duplicating is at capacity; beyond it the chart shows a labelled band.
  assert.equal((await loadedAt(0.7, "duplicate")).state, "at capacity");
  assert.equal((await loadedAt(0.9, "duplicate")).state, "unstable");
  const bands = await page.$eval("[data-section=loaded] canvas", (c) => c.dataset.bands);
  const from = Number(/duplicate all: unstable from (\d+)% load/.exec(bands)?.[1]);
  assert.ok(from > 70 && from <= 80, bands);
  assert.match(
    await page.$eval("[data-section=loaded] canvas", (c) => c.getAttribute("aria-label")),
    /duplicate all: unstable/,
  );
  // The note prints this run's at-capacity multiple; it is the API's for the same runs.
  const dup = pkg.simulateLoaded({ load: 0.7, delay: 0 });
  const none = pkg.simulateLoaded({ load: 0.7 });
  assert.ok(dup.atCapacity);
  assert.match(
    await page.textContent("[data-section=loaded] .lab-note"),
    new RegExp(
      `In this run, at 70% load, duplicating's median is ${(dup.p50 / none.p50).toFixed(1).replace(".", "\\.")}× the no-backup median\\.$`,
    ),
  );
  await (await page.$("[data-section=loaded]")).screenshot({
    path: join(SHOTS, "lab-loaded-backup.png"),
  });
  // The flip: when the losing copy is freed even mid-hiccup, duplicating wins at every load.
  await setSelect("loaded-cancel", "either-any");
  await settled();
  for (const load of [0.2, 0.5, 0.8]) {
    const [nn, hh, dd] = [
      await loadedAt(load, "none"),
      await loadedAt(load, "hedge"),
      await loadedAt(load, "duplicate"),
    ];
    assert.ok(
      dd.p50 < Math.min(nn.p50, hh.p50) && dd.p99 < Math.min(nn.p99, hh.p99),
      `${load}: ${JSON.stringify({ nn, hh, dd })}`,
    );
  }
  assert.doesNotMatch(
    await page.$eval("[data-section=loaded] canvas", (c) => c.dataset.bands),
    /duplicate/,
  );
  await (await page.$("[data-section=loaded]")).screenshot({
    path: join(SHOTS, "lab-loaded-either-any.png"),
  });
  await setSelect("loaded-cancel", "backup");
  await setValue("loaded-load", 0.6);
  await setSelect("loaded-policy", "hedge");
  await settled();
});

test("the loaded section shows the no-backup mean beside Pollaczek–Khinchine's, as the API computes them", async () => {
  // Without backups each replica is M/G/1: the readout is the run's mean (seed 1, as the page
  // runs it) and its theory slot the core's closed form, at the default load and another.
  for (const load of [0.6, 0.3]) {
    await setValue("loaded-load", load);
    await settled();
    const none = pkg.simulateLoaded({ load, policy: "none" });
    const theory = pkg.noBackupMeanMs(load);
    assert.ok(none.stable && theory > none.p50, `${load}: ${theory} vs p50 ${none.p50}`);
    assert.equal(await text("loaded", "none-mean"), formatMs(none.mean));
    assert.equal(await text("loaded", "none-mean", "theory"), `M/G/1 theory ${formatMs(theory)}`);
    assert.match(
      await page.$eval("[data-section=loaded] canvas", (c) => c.getAttribute("aria-label")),
      new RegExp(
        `Without backups the mean is ${formatMs(none.mean)}; M/G/1 \\(Pollaczek–Khinchine\\) predicts ${formatMs(theory)}\\.`,
      ),
    );
  }
  // The closed form is the one the core registers for the loaded model, and it is the
  // section's (the exported table carries it beside each run's mean).
  const loaded = pkg.models().find((m) => m.key === "loaded");
  assert.ok(loaded.closedForms.includes("noBackupMeanMs"), JSON.stringify(loaded));
  assert.equal(pkg.noBackupMeanMs(1.2), undefined);
  assert.deepEqual(problems, []);
});

test("the balance section's fixed-point table renders sᵢ as the API computes it, beside the runs' shares", async () => {
  const table = "[data-section=balance] table[data-table=fixed-point]";
  const read = () =>
    page.$eval(table, (t) => ({
      caption: t.caption?.textContent ?? "",
      colHeaders: [...t.tHead.querySelectorAll("th")].map((th) => [
        th.getAttribute("scope"),
        th.textContent,
      ]),
      rowHeaders: [...t.tBodies[0].querySelectorAll("th[scope=row]")].map((th) => th.textContent),
      cells: [...t.querySelectorAll("td")].map((td) => ({
        kind: td.hasAttribute("data-theory") ? "theory" : "simulated",
        name: td.dataset.theory ?? td.dataset.readout,
        d: Number(td.dataset.d),
        i: Number(td.dataset.i),
        value: td.dataset.value,
        text: td.textContent,
      })),
    }));
  const formatShare = (x) =>
    page.evaluate(
      async (v) => (await import("./lab/sections/balance/section.js")).formatShare(v),
      x,
    );
  for (const lambda of [0.9, 0.5]) {
    await setValue("balance-lambda", lambda);
    await settled();
    const t = await read();
    assert.match(t.caption, new RegExp(`at λ = ${lambda.toFixed(2)}: Mitzenmacher's fixed point`));
    assert.deepEqual(t.rowHeaders, ["1", "2", "3", "4", "5", "6"]);
    assert.deepEqual(
      t.colHeaders.filter(([scope]) => scope === "colgroup").map(([, label]) => label),
      ["random (d = 1)", "best of two", "best of three"],
    );
    assert.equal(t.cells.length, 6 * 3 * 2);
    const runs = new Map(
      [1, 2, 3].map((d) => [d, pkg.simulateBalance({ lambda, d, arrivals: "auto", seed: 1 })]),
    );
    for (const c of t.cells) {
      assert.equal(c.name, `share-d${c.d}-i${c.i}`);
      // Theory cells hold the API's closed form exactly; run cells the API's run.
      const want =
        c.kind === "theory"
          ? pkg.fixedPointShare(lambda, c.d, c.i)
          : runs.get(c.d).shareAtLeast[c.i - 1];
      assert.equal(c.value, String(want), `${c.kind} ${c.name}`);
      assert.equal(c.text, await formatShare(want), `${c.kind} ${c.name}`);
    }
  }
  // λ = 0.5: one choice falls geometrically (1/2, 1/4, …), two choices doubly exponentially
  // (1/2, 1/8, 1/128, …): the table says so in its own cells.
  const t = await read();
  const cell = (kind, d, i) => t.cells.find((c) => c.kind === kind && c.d === d && c.i === i);
  assert.equal(cell("theory", 1, 3).text, "12.5%");
  assert.equal(cell("theory", 2, 3).text, "0.781%");
  // A real table in a scroll region a keyboard can reach, named by the caption.
  const region = await page.$eval(`[data-section=balance] .lab-table-wrap`, (w) => {
    w.focus();
    return {
      role: w.getAttribute("role"),
      focused: document.activeElement === w,
      name: document.getElementById(w.getAttribute("aria-labelledby") ?? "")?.tagName,
    };
  });
  assert.deepEqual(region, { role: "region", focused: true, name: "CAPTION" });
  const fixed = pkg.models().find((m) => m.key === "balance");
  assert.ok(fixed.closedForms.includes("fixedPointShare"), JSON.stringify(fixed));
  await (await page.$("[data-section=balance]")).screenshot({
    path: join(SHOTS, "lab-balance-fixed-point.png"),
  });
  assert.deepEqual(problems, []);
});

/** A value for `spec` other than `current`: another name, or a point 30% (or 70%) along its range. */
function another(spec, current) {
  if (spec.type === "enum") return spec.values.find((v) => String(v) !== String(current));
  // A text setting (the graph's stages) names examples of itself.
  if (spec.type === "string") return spec.examples.find((v) => v !== current);
  const at = (f) => {
    const x = spec.min + f * (spec.max - spec.min);
    if (spec.type === "int") return Math.round(x);
    return spec.step
      ? Number((spec.min + Math.round((x - spec.min) / spec.step) * spec.step).toFixed(6))
      : Number(x.toPrecision(3));
  };
  return at(0.3) === current ? at(0.7) : at(0.3);
}

test("every setting of every section, moved, changes what the section shows and goes into the URL", async () => {
  const all = await settingsSpecs();
  assert.deepEqual(
    all.map((s) => s.section),
    SECTIONS,
  );
  let moved = 0;
  for (const { section, specs } of all) {
    // Within a section the settings move in turn from its defaults (so "your numbers" is on
    // before its sliders move).
    for (const spec of specs) {
      const value = another(spec, spec.default);
      const before = await fingerprint(section);
      await applySettings(section, { [spec.name]: value });
      await settled();
      assert.notDeepEqual(
        await fingerprint(section),
        before,
        `${spec.name}=${value}: the section shows the same`,
      );
      const tolerance =
        spec.type === "enum" || spec.type === "string"
          ? 0
          : Math.max(spec.step ?? 0, 0.01 * Math.abs(value)) + 1e-9;
      await page.waitForFunction(
        ([name, v, tol]) => {
          const got = new URLSearchParams(location.search).get(name);
          return typeof v === "string"
            ? got === v
            : got !== null && Math.abs(Number(got) - v) <= tol;
        },
        [spec.name, value, tolerance],
        { timeout: 5_000 },
      );
      moved += 1;
    }
  }
  assert.ok(moved >= 10, `${moved} settings`);
  assert.deepEqual(problems, []);
});

/** axe-core's violations on the page as it stands. */
async function axeViolations() {
  await page.addScriptTag({
    content: readFileSync(join(ROOT, "node_modules", "axe-core", "axe.min.js"), "utf8"),
  });
  const result = await page.evaluate(() =>
    window.axe.run(document, { resultTypes: ["violations"] }),
  );
  return result.violations.map(
    (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
  );
}

test("axe-core finds no accessibility violation at 1280 px", async () => {
  assert.deepEqual(await axeViolations(), []);
});

test("at 390 px every section still renders with readable readouts", async () => {
  await page.setViewportSize({ width: 390, height: 900 });
  await page.waitForTimeout(300);
  let charts = 0;
  for (const section of SECTIONS) {
    const width = await page.$eval(
      `[data-section=${section}]`,
      (root) => root.querySelector("canvas")?.clientWidth ?? null,
    );
    if (width === null) continue;
    charts += 1;
    assert.ok(width > 300 && width <= 390, `${section} canvas ${width}px`);
  }
  assert.ok(charts >= 4, `${charts} charts`);
  await page.screenshot({ path: join(SHOTS, "lab-390.png"), fullPage: true });
  assert.deepEqual(await axeViolations(), []);
  assert.deepEqual(problems, []);
});

test("the sweeps give the same readouts and charts on 1, 2 or 3 workers", async () => {
  // A sweep's points are dealt across the workers; each is a pure call of the core, so the
  // page must not change with the number of workers.
  const seen = [];
  for (const workers of [1, 2, 3]) {
    const p = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    p.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    await p.goto(`${server.url}?workers=${workers}&loaded-load=0.4&balance-lambda=0.8`);
    await p.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
    await p.waitForFunction(
      () =>
        [...document.querySelectorAll("[data-progress]")].every(
          (e) => e.dataset.total && e.dataset.done === e.dataset.total,
        ),
      null,
      { timeout: 120_000 },
    );
    seen.push(
      await p.$$eval("[data-section]", (roots) =>
        roots.map((root) => ({
          section: root.dataset.section,
          readouts: [...root.querySelectorAll("[data-readout]")]
            .map((e) => e.textContent)
            .join("|"),
        })),
      ),
    );
    await p.close();
  }
  assert.ok(seen[0].some((s) => s.readouts.length > 0));
  assert.deepEqual(seen[1], seen[0], "2 workers");
  assert.deepEqual(seen[2], seen[0], "3 workers");
  assert.deepEqual(problems, []);
});
