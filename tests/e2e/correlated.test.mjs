// The correlated-stragglers section in real Chromium: it renders both charts, its readouts and
// its table show the simulation beside the core's closed forms, the simulated shares sit within
// their binomial tolerance of theory, the closed forms follow the sliders at once, and the gain
// chart's marker moves the replica-correlation slider from the keyboard.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { formatMs, formatPct } from "../../web/format.js";
import { Z, loadPackage, openLabSection } from "../support.mjs";

const pkg = await loadPackage();
let page, problems, settled, setControl, control, close;

const root = "[data-section=correlated]";
const text = (sel) => page.textContent(`${root} ${sel}`);
/** A share as the section writes it: two significant digits at least. */
const share = (v) => formatPct(v, v > 0 && v < 0.01 ? 3 : 1);
/** A written percentage back as a fraction. */
const fraction = (s) => Number(s.replace("%", "")) / 100;

/** Moves a control as a drag does, then waits two frames: sliders update once per frame. */
async function setValue(id, value) {
  await setControl(id, value);
  await page.evaluate(
    () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
  );
}

before(async () => {
  ({
    page,
    problems,
    settled,
    setValue: setControl,
    control,
    close,
  } = await openLabSection("correlated", { ready: "canvas[data-chart=gain]" }));
});

after(() => close?.());

const DEFAULTS = { n: 100, c: 0.3, cr: 0.5, drop: 0.05, delayQ: 0.95, p: 0.01 };
const FIXES = [
  ["none", "None"],
  ["drop", "Drop"],
  ["hedge", "Hedge"],
];

test("the readouts and the table show the simulation beside the core's closed forms", async () => {
  const t = pkg.correlatedTheory(DEFAULTS);
  const t0 = pkg.correlatedTheory({ ...DEFAULTS, c: 0 });
  // The run the page made, in node: the same call, so the same numbers.
  const r = pkg.simulateCorrelated({ ...DEFAULTS, requests: 20_000, seed: 1 });
  for (const [key, up] of FIXES) {
    assert.equal(await text(`[data-theory=slow-${key}]`), `theory ${share(t[key].slowShare)}`);
    const shown = await text(`[data-readout=slow-${key}]`);
    assert.equal(shown, share(r[`slow${up}`]));
    // The simulated share within Z binomial standard errors of theory (plus the text's rounding).
    const tol = Z * Math.sqrt((t[key].slowShare * (1 - t[key].slowShare)) / 20_000) + 0.0005;
    assert.ok(Math.abs(fraction(shown) - t[key].slowShare) <= tol, `${key}: ${shown}`);
    assert.equal(
      await text(`[data-readout=table-p99-${key}indep]`),
      `${formatMs(r[`p99${up}Indep`])} (${formatMs(t0[key].p99)})`,
    );
    assert.equal(
      await text(`[data-readout=table-slow-${key}]`),
      `${share(r[`slow${up}`])} (${share(t[key].slowShare)})`,
    );
  }
  // The leaf's own law: the share of slow leaves is p at any c.
  assert.equal(await text("[data-theory=leaf-slow]"), "theory 1.0%");
  assert.equal(
    await text("[data-readout=table-p50-leaf]"),
    `${formatMs(r.leafP50)} (${formatMs(t.leafP50)})`,
  );
  // Correlation: the raw tail better, the drop worse (the section's point, as drawn).
  assert.ok(t.none.slowShare < t0.none.slowShare);
  assert.ok(t.drop.slowShare > 10 * t0.drop.slowShare);
  // Both charts drew labels (the labels test checks they never overlap).
  const labels = await page.$$eval(`${root} canvas`, (cs) =>
    cs.map((c) => JSON.parse(c.dataset.labels ?? "[]").length),
  );
  assert.ok(labels.length === 2 && labels.every((n) => n > 5), String(labels));
});

test("the closed forms follow the sliders at once; c = 1 makes the parent one leaf", async () => {
  await setValue("corr-c", 1);
  // Before the simulation answers, the closed forms are already there.
  const t = pkg.correlatedTheory({ ...DEFAULTS, c: 1 });
  assert.equal(await text("[data-theory=slow-none]"), `theory ${share(t.none.slowShare)}`);
  assert.equal(await text("[data-theory=slow-none]"), "theory 1.0%");
  assert.equal(await text("[data-theory=slow-drop]"), "theory 1.0%");
  await settled();
  const shown = fraction(await text("[data-readout=slow-none]"));
  assert.ok(
    Math.abs(shown - 0.01) <= Z * Math.sqrt((0.01 * 0.99) / 20_000) + 0.0005,
    String(shown),
  );
  await setValue("corr-c", DEFAULTS.c);
  await settled();
});

test("the gain chart's marker moves the replica correlation from the keyboard", async () => {
  const before = await page.inputValue(control("corr-cr"));
  await page.focus(`${root} canvas[data-chart=gain]`);
  await page.keyboard.press("ArrowRight");
  await page.evaluate(
    () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
  );
  const now = await page.inputValue(control("corr-cr"));
  assert.equal(Number(now), Number(before) + 0.01);
  const t = pkg.correlatedTheory({ ...DEFAULTS, cr: Number(now) });
  await settled();
  // Off the closed-form grid, the readout's theory is the closed forms' own p99 ratio.
  const gain = t.none.p99 / t.hedge.p99;
  const times = (v) => `${v >= 10 ? v.toFixed(1) : v.toFixed(2)}×`;
  assert.equal(await text("[data-theory=hedge-gain]"), `theory ${times(gain)}`);
  await setValue("corr-cr", DEFAULTS.cr);
  await settled();
  assert.deepEqual(problems, []);
});
