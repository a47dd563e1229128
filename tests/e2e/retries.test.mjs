// The retries section in real Chromium: it renders its three charts against time, its readouts
// are the core's numbers for the same runs (the same calls in node), the storm and its recovery
// read as the checks say (no budget: goodput after the spike under 5% of before; a budget: over
// 80%, with amplification under the budget's bound, drawn beside it), and without the spike the
// storm is gone.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { formatMs, formatPct } from "../../web/format.js";
import { loadPackage, openLabSection } from "../support.mjs";

const pkg = await loadPackage();
let page, problems, settled, control, close;

const root = "[data-section=retries]";
const text = (/** @type {string} */ sel) => page.textContent(`${root} ${sel}`);

before(async () => {
  ({ page, problems, settled, control, close } = await openLabSection("retries"));
});

after(() => close?.());

const lab = pkg.labDefaults().retries;
const base = { timeoutMs: lab.timeoutMs, backoff: lab.backoffs[0], spike: lab.spike, seed: 1 };
const runs = {
  retry: pkg.simulateRetries({ ...base, policy: "retry", budget: null }),
  budget: pkg.simulateRetries({ ...base, policy: "retry", budget: lab.budget }),
  hedge: pkg.simulateRetries({ ...base, policy: "hedge", budget: lab.budget }),
};

test("the readouts are the core's runs, and the checks hold", async () => {
  for (const [key, r] of Object.entries(runs)) {
    assert.equal(await text(`[data-readout=${key}-recovery]`), formatPct(r.recovery, 0));
    assert.equal(
      await text(`[data-readout=${key}-amplification]`),
      `${r.amplification.toFixed(2)}×`,
    );
    assert.equal(await text(`[data-readout=${key}-p99]`), formatMs(/** @type {number} */ (r.p99)));
  }
  // The checks beside them: the storm's ceiling, and the budget's bound over the run.
  assert.equal(
    await text("[data-theory=retry-amplification]"),
    `every attempt ${runs.retry.maxAttempts}×`,
  );
  for (const key of ["budget", "hedge"]) {
    const r = runs[/** @type {"budget" | "hedge"} */ (key)];
    assert.equal(
      await text(`[data-theory=${key}-amplification]`),
      `bound ${r.budgetBound?.toFixed(2)}×`,
    );
    assert.ok(r.amplification <= /** @type {number} */ (r.budgetBound), key);
  }
  // The metastable default: no budget stays down; the budget recovers (tests/it/retries.rs).
  assert.ok(runs.retry.recovery < 0.05, `${runs.retry.recovery}`);
  assert.ok(runs.budget.recovery > 0.8, `${runs.budget.recovery}`);
  // Three charts, each with its labels published and none empty of text; no NaN anywhere.
  const canvases = await page.$$eval(`${root} canvas`, (cs) =>
    cs.map((c) => ({ labels: c.dataset.labels ?? "", aria: c.getAttribute("aria-label") ?? "" })),
  );
  assert.equal(canvases.length, 3);
  for (const c of canvases) {
    assert.ok(JSON.parse(c.labels || "[]").length > 0, "labels published");
    assert.doesNotMatch(c.aria, /NaN|undefined/);
  }
  assert.match(canvases[2].labels, /budget bound/);
  assert.doesNotMatch(await text(""), /NaN|undefined/);
  assert.deepEqual(problems, []);
});

test("each chart's crosshair reads every client's window as the core reports it", async () => {
  const frames = () =>
    page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const canvases = await page.$$(`${root} canvas`);
  assert.equal(canvases.length, 3);
  // Home: the first window. Its goodput per second, p99 and attempts per request, per client.
  const w = 0;
  const { windowMs } = runs.retry;
  const perSecond = (/** @type {number} */ v) => `${Math.round((v * 1000) / windowMs)}/s`;
  const expected = [
    ["goodput", (/** @type {any} */ r) => perSecond(r.windowGoodput[w])],
    ["p99", (/** @type {any} */ r) => formatMs(r.windowP99[w])],
    [
      "attempts ÷ requests",
      (/** @type {any} */ r) => (r.windowAttempts[w] / r.windowRequests[w]).toFixed(2),
    ],
  ];
  for (const [i, c] of canvases.entries()) {
    await c.focus();
    await page.keyboard.press("Home");
    await frames();
    const reading = String(await c.getAttribute("aria-valuetext"));
    const [what, show] = /** @type {[string, (r: any) => string]} */ (expected[i]);
    assert.ok(reading.startsWith(`0–${windowMs / 1000} s, ${what}`), reading);
    assert.ok(reading.includes(`retries, no budget: ${show(runs.retry)}`), reading);
    assert.ok(reading.includes(`retries with a budget: ${show(runs.budget)}`), reading);
    assert.ok(reading.includes(`hedge with a budget: ${show(runs.hedge)}`), reading);
  }
  assert.deepEqual(problems, []);
});

test("without the spike the storm is gone", async () => {
  await page.$eval(control("retries-spike"), (el) => {
    /** @type {HTMLInputElement} */ (el).value = "1";
    el.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await page
    .waitForFunction(
      (sel) =>
        globalThis.sectionScope().querySelector(`${sel} [data-progress]`)?.textContent !== "",
      root,
    )
    .catch(() => {});
  await settled();
  const calm = pkg.simulateRetries({ ...base, spike: 1, policy: "retry", budget: null });
  await page.waitForFunction(
    ([sel, want]) =>
      globalThis.sectionScope().querySelector(`${sel} [data-readout=retry-recovery]`)
        ?.textContent === want,
    [root, formatPct(calm.recovery, 0)],
    { timeout: 60_000 },
  );
  assert.ok(calm.recovery > 0.8);
  assert.equal(
    await text("[data-readout=retry-amplification]"),
    `${calm.amplification.toFixed(2)}×`,
  );
  assert.deepEqual(problems, []);
});
