// The budget section in real Chromium: it renders both charts against time with their labels
// published, its readouts are the core's run for the page's settings (the same call in node
// gives the same numbers), the budgeted hedge fraction it shows is within the bound it shows
// beside it, and a control re-runs the model with the new setting.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { formatMs, formatNumber, formatPct } from "../../web/format.js";
import {
  multipliers,
  outageMultiplier,
  outageP99,
  POLICIES,
} from "../../web/lab/sections/budget/derive.js";
import { loadPackage, openLabSection } from "../support.mjs";

const pkg = await loadPackage();
let page, problems, settled, control, close;

const root = "[data-section=budget]";
const text = (sel) => page.textContent(`${root} ${sel}`);
const fraction = (s) => Number(s.replace("%", "")) / 100;

before(async () => {
  ({ page, problems, settled, control, close } = await openLabSection("budget", {
    ready: "canvas[data-chart=p99]",
    readout: "hedge-delay",
  }));
});

after(() => close?.());

const DEFAULTS = { load: 0.5, slowdown: 10, tokenRatio: 0.25, delayRule: "fixed", disableDepth: 4 };

test("the readouts are the core's run, and the budgeted fraction is within the bound shown", async () => {
  const r = pkg.simulateBudget({ ...DEFAULTS, seed: 1 });
  for (const p of ["none", "hedge", "budgeted", "disabled"])
    assert.equal(await text(`[data-readout=p99-${p}]`), formatMs(r[p].p99), p);
  assert.equal(await text("[data-readout=fraction-hedge]"), formatPct(r.hedge.hedgeFraction));
  const shown = await text("[data-readout=fraction-budgeted]");
  assert.equal(shown, formatPct(r.budgeted.hedgeFraction));
  const bound = await text("[data-theory=fraction-budgeted]");
  assert.equal(bound, `bound ≤ ${formatPct(r.hedgeFractionBound)}`);
  // The check, as the page shows it: the fraction at most the bound (both to 0.1%).
  assert.ok(fraction(shown) <= fraction(bound.replace("bound ≤ ", "")), `${shown} vs ${bound}`);
  // The default budget is sized above the plain hedge's rate plus one failure domain: the plain
  // hedge sends fewer copies per request through the outage than the budget's limit, and the
  // budgeted one no more than the limit (in the mean over the outage's windows, within one
  // window's tokens: ten tokens over ≈ 500 requests, 0.02). A budget that binds is checked in
  // tests/js/budget.test.mjs and crates/tail-lab-core/tests/it/budget.rs.
  const limit = 1 + r.tokenRatio;
  assert.equal(
    await text("[data-theory=outage-multiplier-budgeted]"),
    `limit ${formatNumber(limit, 3)}×`,
  );
  const plain = outageMultiplier(r, r.hedge);
  const budgeted = outageMultiplier(r, r.budgeted);
  assert.equal(await text("[data-readout=outage-multiplier-hedge]"), `${formatNumber(plain, 3)}×`);
  assert.equal(
    await text("[data-readout=outage-multiplier-budgeted]"),
    `${formatNumber(budgeted, 3)}×`,
  );
  assert.ok(plain < limit && budgeted <= limit + 0.02, `${plain} ${budgeted} ${limit}`);
  assert.equal(
    await text("[data-readout=outage-p99-budgeted]"),
    formatMs(outageP99(r, r.budgeted)),
  );
  assert.equal(await text("[data-readout=hedge-delay]"), formatMs(r.delayMs));
  // Every readout is a number, never NaN.
  const all = await page.$$eval(`${root} [data-readout]`, (els) => els.map((e) => e.textContent));
  assert.ok(all.length >= 12 && all.every((t) => t && !/NaN|undefined/.test(t)), all.join(" | "));
});

test("both charts are drawn against time, with their labels published", async () => {
  for (const chart of ["multiplier", "p99"]) {
    const labels = await page.$eval(`${root} canvas[data-chart=${chart}]`, (c) =>
      JSON.parse(/** @type {HTMLElement} */ (c).dataset.labels ?? "[]"),
    );
    const texts = labels.map((l) => l.text);
    assert.ok(texts.includes("simulated time"), `${chart}: ${texts}`);
  }
  const aria = await page.$eval(`${root} canvas[data-chart=multiplier]`, (c) =>
    c.getAttribute("aria-label"),
  );
  assert.match(aria ?? "", /during the outage the plain hedge sends/);
});

test("both charts' crosshairs read every policy's window as the core reports it", async () => {
  const r = /** @type {any} */ (pkg.simulateBudget({ ...DEFAULTS, seed: 1 }));
  const frames = () =>
    page.evaluate(
      () => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res))),
    );
  const canvases = await page.$$(`${root} canvas`);
  assert.equal(canvases.length, 2);
  // End: the last window, after the outage.
  const w = r.none.windowRequests.length - 1;
  const shows = [
    ["copies per request", (/** @type {any} */ run) => multipliers(run)[w].toFixed(3)],
    ["window p99", (/** @type {any} */ run) => formatMs(run.windowP99Ms[w])],
  ];
  for (const [i, c] of canvases.entries()) {
    await c.focus();
    await page.keyboard.press("End");
    await frames();
    const reading = String(await c.getAttribute("aria-valuetext"));
    const [what, show] = /** @type {[string, (run: any) => string]} */ (shows[i]);
    assert.ok(reading.includes(`, ${what}`), reading);
    for (const [key, , label] of POLICIES)
      assert.ok(reading.includes(`${label}: ${show(r[key])}`), `${reading} (${label})`);
  }
  assert.deepEqual(problems, []);
});

test("a control re-runs the model: the ratio moves the bound and the limit", async () => {
  await page.$eval(control("budget-ratio"), (el) => {
    /** @type {HTMLInputElement} */ (el).value = "0.05";
    el.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await page.waitForFunction(
    (sel) =>
      globalThis.sectionScope().querySelector(`${sel} [data-theory=outage-multiplier-budgeted]`)
        ?.textContent === "limit 1.05×",
    root,
    { timeout: 120_000 },
  );
  await settled();
  const r = pkg.simulateBudget({ ...DEFAULTS, tokenRatio: 0.05, seed: 1 });
  assert.equal(await text("[data-readout=fraction-budgeted]"), formatPct(r.budgeted.hedgeFraction));
  assert.equal(
    await text("[data-theory=fraction-budgeted]"),
    `bound ≤ ${formatPct(r.hedgeFractionBound)}`,
  );
  assert.ok(r.budgeted.hedgeFraction <= r.hedgeFractionBound);
  assert.deepEqual(problems, []);
});
