// The coordinated-omission section in real Chromium: it shows the classic worked example's two
// shares (99.99% closed loop, 50.00% corrected), its readouts are the API's numbers at the same
// settings, and with random stalls the open loop's closed form sits beside the simulation
// within a tolerance from the number of stalls.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { formatMs, formatPct } from "../../web/format.js";
import { options } from "../../web/lab/sections/omission/section.js";
import { loadPackage, openLabSection } from "../support.mjs";

const pkg = await loadPackage();
let page, problems, settled, control, close;

const root = "[data-section=omission]";
const readout = (name) => page.textContent(`${root} [data-readout="${name}"]`);
const theory = (name) => page.textContent(`${root} [data-theory="${name}"]`);

/** The section's settings as the URL holds them. */
const DEFAULTS = {
  "omission-stall": 5,
  "omission-share": 0.5,
  "omission-interval": 1,
  "omission-gaps": "fixed",
  "omission-load": 0.5,
};

before(async () => {
  ({ page, problems, settled, control, close } = await openLabSection("omission"));
});

after(() => close?.());

test("the worked example reads 99.99% closed loop and 50.00% corrected", async () => {
  assert.equal(await readout("classic-raw"), "99.99%");
  assert.equal(await readout("classic-corrected"), "50.00%");
  // The default setting is the same cycle for an hour: the same two shares.
  assert.equal(await readout("raw-le-1ms"), "99.99%");
  assert.equal(await readout("corrected-le-1ms"), "50.00%");
  assert.equal(await readout("open-le-1ms"), "50.00%");
  // Fixed stalls have no closed form drawn: no theory beside the open loop.
  assert.equal(await theory("open-p99"), "");
});

test("its readouts are the API's numbers at the same settings, and the closed form follows random stalls", async () => {
  await page.selectOption(control("omission-gaps"), "random");
  for (const [id, v] of [
    ["omission-stall", "3"],
    ["omission-share", "0.05"],
  ])
    await page.$eval(
      control(id),
      (el, value) => {
        /** @type {HTMLInputElement} */ (el).value = value;
        el.dispatchEvent(new Event("input", { bubbles: true }));
      },
      v,
    );
  await settled();
  const settings = {
    ...DEFAULTS,
    "omission-gaps": "random",
    "omission-stall": 3,
    "omission-share": 0.05,
  };
  const r = pkg.simulateOmission(options(settings, 1));
  assert.equal(await readout("raw-p99"), formatMs(r.rawP99));
  assert.equal(await readout("corrected-p99"), formatMs(r.correctedP99));
  assert.equal(await readout("open-p99"), formatMs(r.openP99));
  assert.equal(await readout("probe-raw-p99"), formatMs(r.probeRawP99));
  assert.equal(await readout("open-le-1ms"), formatPct(r.openFracLe1ms, 2));
  assert.equal(await theory("open-le-1ms"), `theory ${formatPct(r.theoryOpenFracLe1ms, 2)}`);
  // 1 s stalls 5% of the time at random, some 180 an hour: the share of sends that meet one
  // is a sum over the stalls, so its standard error is about π(1 − π)/√stalls · (a renewal
  // factor under 2); four of those.
  const pi = r.stalledShare;
  const tol = (4 * 2 * pi * (1 - pi)) / Math.sqrt(Math.max(1, r.stalls));
  assert.ok(
    Math.abs(r.openFracLe1ms - r.theoryOpenFracLe1ms) <= tol,
    `${r.openFracLe1ms} vs ${r.theoryOpenFracLe1ms} ± ${tol}`,
  );
  // The closed loop hides the stalls: its p99 is the work itself, the truth is the stall's.
  assert.ok(r.rawP99 < 1.1 && r.openP99 > 100, `${r.rawP99} ${r.openP99}`);
  assert.deepEqual(problems, []);
});
