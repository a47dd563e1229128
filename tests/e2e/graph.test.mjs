// The request graph section in Chromium: it renders, its readouts are the API's numbers for the
// same settings and sit beside their theory within the stated tolerances, the URL carries the
// edited stages (parsed strictly, clamped with a notice, never markup), the stage editor and
// the deadline marker answer the keyboard, and nothing reads NaN.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { formatMs, formatPct } from "../../web/format.js";
import { Z, launchChromium, loadPackage, serveWeb } from "../support.mjs";

const pkg = await loadPackage();
let server, browser, page;
const problems = [];
const REQUESTS = 20_000;

const readouts = () =>
  page.$$eval("[data-section=graph] .lab-readout", (boxes) =>
    Object.fromEntries(
      boxes.map((b) => [
        b.querySelector("[data-readout]")?.getAttribute("data-readout"),
        [b.querySelector(".v")?.textContent, b.querySelector(".t")?.textContent],
      ]),
    ),
  );

async function settled() {
  await page.waitForFunction(
    () => {
      const p = document.querySelector("[data-section=graph] [data-progress]");
      return p?.dataset.total && p.dataset.done === p.dataset.total;
    },
    null,
    { timeout: 120_000 },
  );
}

async function open(query = "") {
  await page.goto(`${server.url}${query}`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  await page.$eval("[data-section=graph]", (s) => s.scrollIntoView());
  await page.waitForSelector("[data-section=graph] .lab-panel", { timeout: 60_000 });
  await settled();
}

const pct = (text) => Number(text.replace(/^theory /, "").replace("%", "")) / 100;

before(async () => {
  server = await serveWeb();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("the default graph's readouts are simulateGraph's, beside their theory", async () => {
  await open();
  const got = await readouts();
  const r = pkg.simulateGraph({ preset: "search", deadlineMs: 100, requests: REQUESTS, seed: 1 });
  assert.deepEqual(got, {
    miss: [formatPct(r.miss, 2), `theory ${formatPct(r.theoryMiss, 2)}`],
    completeness: [formatPct(r.completeness, 2), `theory ${formatPct(r.theoryCompleteness, 2)}`],
    p50: [formatMs(r.p50), `theory ${formatMs(r.theoryP50)}`],
    p99: [formatMs(r.p99), `theory ${formatMs(r.theoryP99)}`],
    p999: [formatMs(r.p999), `theory ${formatMs(r.theoryP999)}`],
  });
  // Read back from the screen: the miss share within Z binomial errors plus the convolution's
  // stated bound (and the 0.005% of the text's rounding); completeness within Z · sqrt(1/4 / r).
  const [miss, missTheory] = got.miss.map(pct);
  const tol = Z * Math.sqrt((missTheory * (1 - missTheory)) / REQUESTS) + r.theoryCdfError + 1e-4;
  assert.ok(Math.abs(miss - missTheory) <= tol, `${miss} vs ${missTheory} ± ${tol}`);
  const [c, cTheory] = got.completeness.map(pct);
  assert.ok(Math.abs(c - cTheory) <= Z * Math.sqrt(0.25 / REQUESTS) + r.theoryCdfError + 1e-4);
  // The note says which service the run is on and the theory's bound.
  const note = await page.textContent("[data-section=graph] .lab-note");
  assert.match(note, /on the Lab's model/);
  assert.match(note, new RegExp(`within ${formatPct(r.theoryCdfError, 2).replace(".", "\\.")}`));
  // Both charts published their labels; nothing on the section reads NaN.
  const labelled = await page.$$eval("[data-section=graph] canvas", (cs) =>
    cs.map((c) => JSON.parse(c.dataset.labels ?? "[]").length),
  );
  assert.equal(labelled.length, 2);
  assert.ok(
    labelled.every((n) => n > 3),
    JSON.stringify(labelled),
  );
  assert.doesNotMatch(await page.textContent("[data-section=graph]"), /NaN|undefined/);
  assert.deepEqual(problems, []);
});

test("a link's stages are parsed strictly: clamped with a notice, unreadable dropped, never markup", async () => {
  await open("?graph-stages=p2000k5,s.e4&graph-deadline=60");
  // The width is clamped to 1000, and the URL notice says so.
  assert.equal(await page.inputValue("#graph-stage0-width"), "1000");
  assert.equal(await page.inputValue("#graph-stage0-k"), "5");
  assert.equal(await page.inputValue("#graph-stage1-mean"), "4");
  assert.equal(await page.inputValue("#graph-preset"), "custom");
  assert.match(
    await page.textContent("body"),
    /graph-stages: a width of 2000 is outside 1\.\.1000; using 1000/,
  );
  const r = pkg.simulateGraph({
    stages: [
      { kind: "parallel", width: 1000, k: 5 },
      { kind: "single", service: { exponentialMs: 4 } },
    ],
    deadlineMs: 60,
    requests: REQUESTS,
    seed: 1,
  });
  assert.equal((await readouts()).miss[0], formatPct(r.miss, 2));
  // Eight stages of 1000 children, as wide as the editor allows: the section runs fewer
  // requests (the call's work bound: 50,000,000 children a call) rather than an error.
  await open(`?graph-stages=${Array(8).fill("p1000k1").join(",")}`);
  const wide = pkg.simulateGraph({
    stages: Array(8).fill({ kind: "parallel", width: 1000, k: 1 }),
    deadlineMs: 100,
    requests: 6250,
    seed: 1,
  });
  assert.equal((await readouts()).miss[0], formatPct(wide.miss, 2));
  assert.match(await page.textContent("[data-section=graph] .lab-note"), /^6,250 requests/);
  // Markup in the parameter is text in a notice, and the preset stands.
  await open(`?graph-stages=${encodeURIComponent("<img src=x onerror=alert(1)>")}`);
  assert.equal(await page.$$eval("[data-section=graph] img", (i) => i.length), 0);
  assert.equal(await page.inputValue("#graph-preset"), "search");
  assert.match(
    await page.textContent("body"),
    /graph-stages: “<img src=x onerror=alert\(1\)>” is not a list of stages/,
  );
  assert.deepEqual(problems, []);
});

test("the editor is keyboard-usable and goes into the URL; the deadline marker moves by keys", async () => {
  await open("?graph-preset=quorum&graph-deadline=10");
  // Add a stage with the keyboard: focus lands on its first control.
  await page.focus("#graph-add");
  await page.keyboard.press("Enter");
  await settled();
  assert.equal(await page.evaluate(() => document.activeElement?.id), "graph-stage1-kind");
  await page.waitForFunction(
    () => new URLSearchParams(location.search).get("graph-stages") === "p5k3,p10",
  );
  assert.equal(await page.inputValue("#graph-preset"), "custom");
  // Choose the exponential service for it, by keyboard, and give it a mean.
  await page.focus("#graph-stage1-service");
  await page.selectOption("#graph-stage1-service", "exp");
  await page.fill("#graph-stage1-mean", "7");
  await page.press("#graph-stage1-mean", "Enter");
  await page.$eval("#graph-stage1-mean", (e) => e.dispatchEvent(new Event("change")));
  await settled();
  await page.waitForFunction(
    () => new URLSearchParams(location.search).get("graph-stages") === "p5k3,p10.e7",
  );
  const r = pkg.simulateGraph({
    stages: [
      { kind: "parallel", width: 5, k: 3 },
      { kind: "parallel", width: 10, service: { exponentialMs: 7 } },
    ],
    deadlineMs: 10,
    requests: REQUESTS,
    seed: 1,
  });
  assert.equal((await readouts()).completeness[0], formatPct(r.completeness, 2));
  // Labelled controls: every input and select of the editor has a label.
  const unlabelled = await page.$$eval(
    "[data-section=graph] .lab-graph-stages :is(input, select)",
    (es) => es.filter((e) => !(e.labels && e.labels.length > 0)).map((e) => e.id),
  );
  assert.deepEqual(unlabelled, []);
  // The chart's deadline marker: focused, an arrow moves the deadline a twentieth of a decade.
  const before = Number(await page.inputValue("#graph-deadline"));
  await page.focus("[data-section=graph] .lab-panel > canvas");
  await page.keyboard.press("ArrowRight");
  await page.waitForFunction(
    (was) => Number(document.querySelector("#graph-deadline")?.value) !== was,
    before,
  );
  assert.equal(
    Number(await page.inputValue("#graph-deadline")),
    Number((before + 0.05).toFixed(3)),
  );
  await settled();
  assert.equal((await readouts()).p99[0].length > 0, true);
  assert.deepEqual(problems, []);
});
