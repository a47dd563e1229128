// The cancellation-delay section in real Chromium: it renders its three charts, its readouts are
// the core's numbers for the page's runs, and they match its checks: the duplicate whose cancel
// never lands is stable exactly below the (1 + h)ρ boundary, and its crossing lies below it; the
// bisection's bracket holds the crossing; a later cancel costs more work.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { formatMs, formatPct } from "../../web/format.js";
import { loadPackage, openLabSection } from "../support.mjs";

const pkg = await loadPackage();
let page, problems, settled, setValue, link, close;

const root = "[data-section=cancellation]";
const text = (sel) => page.textContent(`${root} ${sel}`);

before(async () => {
  ({ page, problems, settled, setValue, link, close } = await openLabSection("cancellation", {
    ready: "canvas[data-chart=crossing]",
  }));
});

after(() => close?.());

/** The page's run at `delay` and `load`, in node: the same call, so the same numbers. */
const run = (delay, load = 0.5) =>
  pkg.simulateCancellation({
    load,
    cancellation: "either-any",
    cancelDelayMs: delay,
    requests: 20_000,
    seed: 1,
  });

test("the section renders its three charts and every readout is a number", async () => {
  const canvases = await page.$$eval(`${root} canvas`, (cs) =>
    cs.map((c) => ({ w: c.clientWidth, label: c.getAttribute("aria-label") })),
  );
  assert.equal(canvases.length, 3);
  for (const c of canvases) {
    assert.ok(c.w > 300, `${c.w}px`);
    assert.doesNotMatch(c.label, /NaN|undefined/);
  }
  const readouts = await page.$$eval(`${root} [data-readout]`, (es) =>
    es.map((e) => e.textContent),
  );
  assert.equal(readouts.length, 9);
  for (const r of readouts) assert.doesNotMatch(r, /NaN|undefined|…|—|error/, r);
  assert.deepEqual(problems, []);
});

test("the readouts are the core's numbers and match the checks", async () => {
  const now = run(0);
  const late = run(500);
  const never = run(Number.POSITIVE_INFINITY);
  assert.equal(await text("[data-readout=none-p99]"), formatMs(now.noneP99));
  assert.equal(await text("[data-readout=dup-p99-0]"), formatMs(now.duplicateP99));
  assert.equal(await text("[data-readout=dup-p99-late]"), formatMs(late.duplicateP99));
  assert.equal(await text("[data-readout=dup-work-0]"), formatPct(now.duplicateExtraWork));
  assert.equal(await text("[data-readout=dup-work-late]"), formatPct(late.duplicateExtraWork));
  // A later cancel costs more work (paired: the same arrivals and work at every delay).
  assert.ok(late.duplicateExtraWork > now.duplicateExtraWork);
  // Never landing: at 50% load the duplicate sits exactly on its boundary, unstable; the
  // theory readout says the boundary; the crossing lies below it, within its bracket.
  assert.equal(never.neverCancelBoundary, 0.5);
  assert.equal(await text("[data-readout=dup-p99-never]"), "unstable");
  assert.equal(await text("[data-theory=dup-p99-never]"), "theory unstable");
  assert.equal(never.crossingVerdict, "crossed");
  assert.ok(never.belowLoad < never.crossingLoad && never.crossingLoad < never.aboveLoad);
  assert.ok(never.aboveLoad <= never.neverCancelBoundary, "it stops winning before it is unstable");
  assert.equal(
    await text("[data-readout=crossing-never]"),
    `load ${formatPct(never.crossingLoad, 0)}`,
  );
  assert.equal(await text("[data-theory=crossing-never]"), "theory < 50%");
  // The crossing chart's description states each bracket.
  const described = await page.getAttribute(`${root} canvas[data-chart=crossing]`, "aria-label");
  assert.ok(
    described?.includes(
      `bracket ${formatPct(never.belowLoad, 1)}–${formatPct(never.aboveLoad, 1)}`,
    ),
    described ?? "",
  );
  // At once, it wins over the whole range; after 500 ms it crosses, above where it crosses
  // when never cancelled.
  assert.equal(now.crossingVerdict, "wins-throughout");
  assert.equal(await text("[data-readout=crossing-0]"), `above ${formatPct(now.belowLoad, 0)}`);
  assert.equal(late.crossingVerdict, "crossed");
  assert.equal(
    await text("[data-readout=crossing-late]"),
    `load ${formatPct(late.crossingLoad, 0)}`,
  );
  assert.ok(late.crossingLoad > never.crossingLoad);
});

test("the p99 chart's crosshair reads each policy at the nearest delay: the readouts' own", async () => {
  const reading = async () =>
    String(await page.$eval(`${root} canvas`, (c) => c.getAttribute("aria-valuetext")));
  const frames = () =>
    page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.focus(`${root} canvas`);
  await page.keyboard.press("Home");
  await frames();
  const first = await reading();
  assert.ok(first.startsWith("cancel after "), first);
  assert.ok(first.includes(`no backups: p99 ${await text("[data-readout=none-p99]")}`), first);
  assert.ok(first.includes(`duplicate all: p99 ${await text("[data-readout=dup-p99-0]")}`), first);
  assert.ok(
    first.includes(`duplicating's extra work ${await text("[data-readout=dup-work-0]")}`),
    first,
  );
  await page.keyboard.press("End");
  await frames();
  const last = await reading();
  assert.ok(last.startsWith("cancel never lands"), last);
  assert.ok(
    last.includes(`duplicate all: p99 ${await text("[data-readout=dup-p99-never]")}`),
    last,
  );
  assert.deepEqual(problems, []);
});

test("below the boundary the never-landing duplicate is stable, and the theory says so", async () => {
  await setValue("cancel-load", 0.4);
  await settled();
  const never = run(Number.POSITIVE_INFINITY, 0.4);
  assert.equal(never.duplicateStable, true);
  assert.equal(await text("[data-readout=dup-p99-never]"), formatMs(never.duplicateP99));
  assert.equal(await text("[data-theory=dup-p99-never]"), "theory stable");
  assert.match(await link(), /cancel-load=0\.4/);
  assert.deepEqual(problems, []);
});
