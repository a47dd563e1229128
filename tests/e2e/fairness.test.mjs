// The fairness section in real Chromium: it renders both charts, its readouts are the core's
// numbers for the page's runs, and they match its check: with nobody hedging the two tenants'
// p99 intervals overlap, while A's duplicates pull A's p99 below B's.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { formatMs } from "../../web/format.js";
import { loadPackage, openLabSection } from "../support.mjs";

const pkg = await loadPackage();
let page, problems, settled, control, link, close;

const root = "[data-section=fairness]";
const text = (sel) => page.textContent(`${root} ${sel}`);

before(async () => {
  ({ page, problems, settled, control, link, close } = await openLabSection("fairness", {
    ready: "canvas[data-chart=p50]",
  }));
});

after(() => close?.());

const run = (opts = {}) =>
  pkg.simulateFairness({
    load: 0.5,
    shareA: 0.5,
    policy: "duplicate",
    requests: 40_000,
    seed: 1,
    ...opts,
  });

test("the section renders both charts and every readout is a number", async () => {
  const canvases = await page.$$eval(`${root} canvas`, (cs) =>
    cs.map((c) => ({ w: c.clientWidth, label: c.getAttribute("aria-label") })),
  );
  assert.equal(canvases.length, 2);
  for (const c of canvases) {
    assert.ok(c.w > 300, `${c.w}px`);
    assert.doesNotMatch(c.label, /NaN|undefined/);
  }
  const readouts = await page.$$eval(`${root} [data-readout]`, (es) =>
    es.map((e) => e.textContent),
  );
  assert.equal(readouts.length, 5);
  for (const r of readouts) assert.doesNotMatch(r, /NaN|undefined|…|—|error/, r);
  assert.deepEqual(problems, []);
});

test("the readouts are the core's numbers and match the check", async () => {
  const e = run();
  assert.equal(await text("[data-readout=a-p99]"), formatMs(e.aP99));
  assert.equal(await text("[data-theory=a-p99]"), `nobody hedging ${formatMs(e.baseAP99)}`);
  assert.equal(await text("[data-readout=b-p99]"), formatMs(e.bP99));
  assert.equal(await text("[data-readout=b-p50]"), formatMs(e.bP50));
  assert.equal(await text("[data-theory=b-p50]"), `nobody hedging ${formatMs(e.baseBP50)}`);
  // The check: nobody hedging, one distribution; the intervals overlap and the page says so.
  assert.ok(e.baseAP99Low !== null && e.baseBP99Low !== null, "each tenant has a p99 interval");
  assert.ok(e.baseAP99Low <= e.baseBP99High && e.baseBP99Low <= e.baseAP99High);
  assert.equal(
    await text("[data-readout=baseline-gap]"),
    formatMs(Math.abs(e.baseBP99 - e.baseAP99)),
  );
  assert.equal(await text("[data-theory=baseline-gap]"), "95% intervals overlap");
  // And intervals do separate the tenants when only A duplicates: their median intervals part,
  // A's below. (Their p99 intervals, over five batches of a run whose p99 the one-second
  // hiccups set, are wide and overlap: 1,031–4,016 ms against 2,386–7,568 at seed 1.)
  assert.ok(e.aP50High < e.bP50Low, "A's median interval lies below B's");
  assert.ok(e.aP99 < e.baseAP99 && e.bP50 > e.baseBP50);
});

test("both charts' crosshairs read each tenant's numbers at the nearest load: the readouts' own", async () => {
  // Focused, the guide stands on the middle load of eight (index 4: 50%, the quoted one).
  for (const [sel, q, names] of [
    ["canvas:not([data-chart])", "p99", ["a-p99", "b-p99"]],
    ["canvas[data-chart=p50]", "median", ["a-p50", "b-p50"]],
  ]) {
    await page.focus(`${root} ${sel}`);
    await page.evaluate(
      () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
    );
    const reading = String(
      await page.$eval(`${root} ${sel}`, (c) => c.getAttribute("aria-valuetext")),
    );
    assert.ok(reading.startsWith(`load 50%, ${q}`), reading);
    assert.ok(reading.includes(`A, which hedges: ${await text(`[data-readout=${names[0]}]`)}`));
    assert.ok(reading.includes(`B, which does not: ${await text(`[data-readout=${names[1]}]`)}`));
  }
  assert.deepEqual(problems, []);
});

test("moving A's share reruns the section and goes into the URL", async () => {
  const before = await text("[data-readout=a-p99]");
  await page.$eval(control("fair-share"), (el) => {
    /** @type {HTMLInputElement} */ (el).value = "0.3";
    el.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await settled();
  const e = run({ shareA: 0.3 });
  assert.equal(await text("[data-readout=a-p99]"), formatMs(e.aP99));
  assert.notEqual(await text("[data-readout=a-p99]"), before);
  assert.match(await link(), /fair-share=0\.3/);
  assert.deepEqual(problems, []);
});
