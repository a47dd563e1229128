// The Tail page on the reader's own latencies, in real Chromium: a small pasted sample becomes
// the leaves' distribution (the run's readouts are the same wasm's in node on the same knots, to
// the bit, and its parent median sits where F(t)^n of those knots puts it), a bad paste is
// refused with the line named and the run keeps what it had, and a link with
// `profile=yours&data=<summary>` restores the fit.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Z, launchChromium, loadPackage, serveWeb } from "../support.mjs";

const pkg = await loadPackage();
/** Fan-out and request cap the page runs at (its `fanout` and `requests` parameters). */
const N = 10;
const CAP = 20_000;
const SETTINGS = `fanout=${N}&requests=${CAP}&speed=paused&seed=1`;

/** 400 latencies (ms) of a bimodal service: a body around 3–6 ms and a 5% slow mode near 40. */
const SAMPLE = Array.from({ length: 400 }, (_, i) => {
  const u = ((i * 0.618_033_988_75) % 1) + 0.001;
  return i % 20 === 7 ? (30 + 25 * u).toFixed(2) : (3 + 3 * u * u).toFixed(3);
}).join("\n");

let server, browser, page;
const problems = [];

before(async () => {
  server = await serveWeb();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** The four percentile readouts' exact numbers (`data-ms`). */
const exact = (p = page) =>
  p.$$eval("[data-readout][data-ms]", (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.readout, Number(e.dataset.ms)])),
  );

/** Waits until the run on the new settings has settled at CAP requests. */
async function settled(p = page) {
  await p.waitForSelector('#tail[data-settled="true"]:not([data-preparing="true"])', {
    timeout: 120_000,
  });
}

/** What the same wasm gives in node for `leaves` at the page's settings after CAP requests. */
function nodeRun(leaves) {
  const run = new pkg.TailRun({ fanout: N, profile: "yours", leaves, seed: 1 });
  run.run(CAP);
  const out = {
    "leaf-p50": run.leafPercentile(0.5),
    "leaf-p99": run.leafPercentile(0.99),
    "parent-p50": run.parentPercentile(0.5),
    "parent-p99": run.parentPercentile(0.99),
  };
  run.free();
  return out;
}

/** `F(t)` of the knots: linear between them (the core's `EmpiricalDistribution::cdf`). */
function cdf({ levels, ms }, t) {
  if (t < ms[0]) return 0;
  for (let i = 0; i < ms.length - 1; i++) {
    if (t < ms[i + 1])
      return levels[i] + ((levels[i + 1] - levels[i]) * (t - ms[i])) / (ms[i + 1] - ms[i]);
  }
  return 1;
}

test("a pasted sample becomes the leaves: the run equals node's on the same knots, and F(t)^n puts its parent median where the page does", async () => {
  await page.goto(`${server.url}tail.html?${SETTINGS}`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  assert.equal(await page.isVisible("#data-text"), false, "the box is hidden on a preset");
  await page.selectOption("#profile", "yours");
  assert.equal(await page.isVisible("#data-text"), true, "choosing “your data” shows the box");
  await page.fill("#data-text", SAMPLE);
  await page.click('[data-action="use"]');
  await page.waitForFunction(() =>
    document.querySelector('[data-part="data-status"]')?.textContent?.includes("Every leaf"),
  );
  await settled();
  const got = await exact();
  const parsed = pkg.parseLatencies(SAMPLE);
  // The same wasm in node, on the same knots and seed: the same numbers, to the bit.
  assert.deepEqual(got, nodeRun(parsed.service));
  // And the closed form: the parent median t has F(t)^n = 1/2. The histogram's median is read
  // inside a shared log bin, so beside the binomial error of CAP parents (Z standard errors of
  // 1/2 over CAP) it may sit anywhere in its bin: allow the bin's own span of F^n.
  const knots = parsed.service.empirical;
  const t = got["parent-p50"];
  const edges = pkg.binEdges();
  const b = edges.findIndex((e, i) => e <= t && t < edges[i + 1]);
  const level = (x) => cdf(knots, x) ** N;
  const tolerance = Z * Math.sqrt(0.25 / CAP) + (level(edges[b + 1]) - level(edges[b]));
  assert.ok(
    Math.abs(level(t) - 0.5) <= tolerance,
    `F(${t})^${N} = ${level(t)}, not within ${tolerance} of 0.5`,
  );
  // The readouts on screen are numbers, never NaN.
  const texts = await page.$$eval("[data-readout]", (els) => els.map((e) => e.textContent));
  assert.ok(!texts.some((x) => /NaN|undefined/.test(x ?? "")), texts.join(" | "));
  // The link carries the summary, never the data.
  await page.waitForFunction(() => location.search.includes("profile=yours"));
  const url = new URL(page.url());
  assert.equal(url.searchParams.get("data"), parsed.percentiles);
  assert.ok(url.search.length < 400, url.search);
  assert.deepEqual(problems, []);
});

test("a bad paste is refused with its line named, and the run keeps the latencies it had", async () => {
  const before = await exact();
  const url = page.url();
  await page.fill("#data-text", "12.5\n9.1\nbanana\n4");
  await page.click('[data-action="use"]');
  const status = page.locator('[data-part="data-status"][data-error]');
  await status.waitFor({ timeout: 30_000 });
  const text = (await status.textContent()) ?? "";
  assert.match(text, /line 3/, text);
  assert.ok(await status.isVisible());
  assert.equal(await page.getAttribute('[data-part="data-status"]', "role"), "status");
  assert.equal(await page.inputValue("#profile"), "yours");
  assert.equal(await page.getAttribute("#tail", "data-preparing"), "false");
  assert.deepEqual(await exact(), before);
  assert.equal(page.url(), url);
});

test("a link with profile=yours&data=<summary> restores the fit", async () => {
  const summary = pkg.parseLatencies(SAMPLE).percentiles;
  const linked = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
  linked.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  await linked.goto(
    `${server.url}tail.html?${SETTINGS}&profile=yours&data=${encodeURIComponent(summary)}`,
  );
  await linked.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  await settled(linked);
  assert.equal(await linked.inputValue("#profile"), "yours");
  assert.equal(await linked.isVisible("#data-text"), true);
  assert.match((await linked.textContent('[data-part="data-status"]')) ?? "", /From the link/);
  const fit = pkg.parseLatencies(summary, { format: "percentiles" }).service;
  assert.deepEqual(await exact(linked), nodeRun(fit));
  // A link whose summary does not read keeps the default profile, and says why.
  await linked.goto(`${server.url}tail.html?${SETTINGS}&profile=yours&data=p50:banana`);
  await linked.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  assert.equal(await linked.inputValue("#profile"), "default");
  assert.match((await linked.textContent("#url-notice")) ?? "", /profile=yours/);
  await linked.close();
  assert.deepEqual(problems, []);
});
