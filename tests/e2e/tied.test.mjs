// The tied section in real Chromium: it renders its chart and readouts, the tied and reference
// readouts are the core's runs at the same settings, and the M/M/c check's readouts match Erlang
// C's closed forms within the run's own batch-means tolerance.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { formatMs } from "../../web/format.js";
import { loadPackage, openLabSection } from "../support.mjs";

const pkg = await loadPackage();
let page, problems, settled, setValue, control, link, close;

const root = "[data-section=tied]";
const text = (sel) => page.textContent(`${root} ${sel}`);

before(async () => {
  ({ page, problems, settled, setValue, control, link, close } = await openLabSection("tied", {
    timeout: 180_000,
  }));
});

after(() => close?.());

const DEFAULTS = { load: 0.5, replicas: 10, tie: 2, messageDelayMs: 1, requests: 100_000, seed: 1 };

test("the readouts are the core's runs at the section's settings", async () => {
  const tied = pkg.simulateTied(DEFAULTS);
  assert.equal(await text("[data-readout=tied-p99]"), formatMs(tied.p99));
  assert.equal(
    await text("[data-readout=tied-extra-work]"),
    `${(100 * tied.extraWork).toFixed(1)}%`,
  );
  const { load, replicas, requests, seed } = DEFAULTS;
  for (const policy of /** @type {const} */ ([
    "none",
    "hedge",
    "duplicate",
    "duplicate-either-any",
  ])) {
    const r = pkg.simulateTied({ policy, load, replicas, requests, seed });
    assert.equal(await text(`[data-readout=${policy}-p99]`), formatMs(r.p99));
  }
  // Every readout shows a number or a word, never NaN.
  const all = await page.$$eval(`${root} [data-readout]`, (els) => els.map((e) => e.textContent));
  assert.ok(
    all.every((t) => t && !t.includes("NaN")),
    all.join(" | "),
  );
  assert.deepEqual(problems, []);
});

test("the stagger sends the siblings two message delays later: the readouts are that run", async () => {
  await page.selectOption(control("tied-stagger"), "2x");
  await settled();
  const staggered = pkg.simulateTied({ ...DEFAULTS, staggerMs: 2 });
  const plain = pkg.simulateTied(DEFAULTS);
  assert.equal(await text("[data-readout=tied-p99]"), formatMs(staggered.p99));
  assert.equal(
    await text("[data-readout=tied-late]"),
    `${(100 * staggered.lateCancellations).toFixed(1)}%`,
  );
  // The point of the stagger: far fewer cancellations come too late.
  assert.ok(staggered.lateCancellations < plain.lateCancellations / 4);
  assert.match(await link(), /tied-stagger=2x/);
  await page.selectOption(control("tied-stagger"), "off");
  await settled();
  assert.equal(await text("[data-readout=tied-p99]"), formatMs(plain.p99));
  assert.deepEqual(problems, []);
});

/**
 * The check's readout `name` against its closed form: the simulated value within the tolerance
 * the run states for itself, its 95% batch-means interval widened to two-sided 0.1%
 * (t_{4, 0.9995}/t_{4, 0.975} = 8.610/2.776), and the text the formatted number.
 */
async function checkAgainstTheory(name, theory) {
  const el = await page.$(`${root} [data-readout=${name}]`);
  assert.ok(el);
  const d = await el.evaluate((e) => ({ .../** @type {HTMLElement} */ (e).dataset }));
  const [value, low, high, shown] = [
    Number(d.value),
    Number(d.low),
    Number(d.high),
    Number(d.theory),
  ];
  assert.equal(shown, theory, `${name}: the closed form shown is the core's`);
  assert.equal(await el.textContent(), formatMs(value));
  assert.equal(await text(`[data-theory=${name}]`), `Erlang C ${formatMs(theory)}`);
  const tolerance = ((high - low) / 2) * (8.61 / 2.776);
  assert.ok(tolerance > 0 && tolerance < 0.25 * theory, `${name}: tolerance ${tolerance}`);
  assert.ok(
    Math.abs(value - theory) <= tolerance,
    `${name}: simulated ${value} vs Erlang C ${theory} ± ${tolerance}`,
  );
}

test("the M/M/c check matches Erlang C within the run's tolerance, at two settings", async () => {
  for (const [replicas, load] of [
    [10, 0.5],
    [3, 0.6],
  ]) {
    await setValue("tied-replicas", replicas);
    await setValue("tied-load", load);
    await settled();
    const t = pkg.tiedTheory(replicas, load, 10);
    await checkAgainstTheory("check-mean", t.meanMs);
    await checkAgainstTheory("check-p99", t.p99Ms);
  }
  assert.deepEqual(problems, []);
});
