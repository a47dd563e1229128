// Your own latencies in real Chromium (issue 21, item 3): the your-data section reads a small
// pasted sample in a worker and shows its check beside the numbers node computes from the same
// package; it refuses a bad paste with a visible message naming the line and keeps what it had;
// once used, the other sections run on the data and say so (the hedge's closed form is then the
// data's); a link carries the percentile summary and never the data, and restores the fit; and
// "back to the Lab's model" undoes it.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { SITE, launchChromium, loadPackage, serveWeb } from "../support.mjs";

let server, browser;
const pkg = await loadPackage();

before(async () => {
  server = await serveWeb(SITE);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const SECTION = '[data-section="your-data"]';
const STATUS = `${SECTION} [data-part=data-status]`;
/** A small, two-mode sample (ms): hits near 2 ms and misses near 20 ms. */
const SAMPLE = Array.from({ length: 400 }, (_, i) =>
  (i % 10 === 0 ? 20 + (i % 7) : 2 + (i % 13) / 10).toFixed(2),
).join("\n");

const statusText = (page) => page.locator(STATUS).textContent();
const readout = (page, section, name) =>
  page.locator(`[data-section="${section}"] [data-readout="${name}"]`).textContent();
const theory = (page, section, name) =>
  page.locator(`[data-section="${section}"] [data-theory="${name}"]`).textContent();

/** Waits until a section has finished its sweep at full size. */
const done = (page, section) =>
  page.waitForFunction(
    (sel) => {
      const p = document.querySelector(`[data-section="${sel}"] [data-progress]`);
      return p?.dataset.total && p.dataset.done === p.dataset.total;
    },
    section,
    { timeout: 300_000 },
  );

/** The page's ms formatting (format.js), for comparing a readout with a number from node. */
const { formatMs } = await import("../../web/format.js");

test("a pasted sample is read in a worker, checked, and runs the other sections; a bad one is refused by line", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${server.url}#your-data`);
  await page.locator(SECTION).scrollIntoViewIfNeeded();
  // Before anything is used: the example is previewed, not applied.
  await page.waitForFunction(
    (sel) => /not yet in use/.test(document.querySelector(sel)?.textContent ?? ""),
    STATUS,
  );

  await page.fill(`${SECTION} textarea`, SAMPLE);
  await page.click(`${SECTION} [data-action=use]`);
  await page.waitForFunction(
    (sel) => /Every section/.test(document.querySelector(sel)?.textContent ?? ""),
    STATUS,
  );
  assert.match(await statusText(page), /^400 latencies read as one latency per line/);
  await done(page, "your-data");
  // The check beside node's numbers for the same sample and seed.
  const parsed = pkg.parseLatencies(SAMPLE);
  const check = pkg.simulateEmpirical({
    service: parsed.service,
    requests: 20_000,
    fanout: 100,
    seed: 1,
  });
  assert.equal(await readout(page, "your-data", "data-p99"), formatMs(check.p99));
  assert.equal(
    await theory(page, "your-data", "data-p99"),
    `exact ${formatMs(parsed.summary.p99Ms)}`,
  );
  assert.equal(await readout(page, "your-data", "data-parent-p50"), formatMs(check.parentP50));
  // The link holds the summary only: no line of the sample.
  const url = new URL(page.url());
  assert.equal(url.searchParams.get("data"), parsed.percentiles);
  assert.ok(page.url().length < 1200, page.url());

  // The hedge section now runs on it, says so, and its closed form is the data's S(t).
  await page.locator('[data-section="hedge"]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-section="hedge"] [data-part=on-your-data]:not([hidden])');
  await done(page, "hedge");
  assert.equal(
    await theory(page, "hedge", "p999-before"),
    `theory ${formatMs(parsed.summary.p999Ms)}`,
  );

  // A bad paste: the message names the line, the sections keep the data they had.
  await page.locator(SECTION).scrollIntoViewIfNeeded();
  await page.fill(`${SECTION} textarea`, "3.1\n2.7\nfast\n");
  await page.click(`${SECTION} [data-action=use]`);
  await page.waitForFunction(
    (sel) => document.querySelector(sel)?.dataset.error === "true",
    STATUS,
  );
  const refusal = await statusText(page);
  assert.match(refusal, /line 3: “fast” is not a latency/);
  assert.match(refusal, /keep the data they had/);
  assert.ok(await page.locator(STATUS).isVisible());
  assert.equal(new URL(page.url()).searchParams.get("data"), parsed.percentiles);
  assert.equal(
    await theory(page, "your-data", "data-p99"),
    `exact ${formatMs(parsed.summary.p99Ms)}`,
  );

  // A CSV with no header naming the latencies: the last column holding numbers is read, the
  // status says so, and the column chooser offers the others (reading one again).
  await page.fill(`${SECTION} textarea`, "1,20,3.5\n2,21,4.5\n3,22,5.5\n");
  await page.click(`${SECTION} [data-action=use]`);
  await page.waitForFunction(
    (sel) => /column 3 \(no header/.test(document.querySelector(sel)?.textContent ?? ""),
    STATUS,
  );
  assert.equal(await page.locator(`${SECTION} #data-column option`).count(), 3);
  await page.selectOption(`${SECTION} #data-column`, "2");
  await page.waitForFunction(
    (sel) => /column 2 /.test(document.querySelector(sel)?.textContent ?? ""),
    STATUS,
  );
  await done(page, "your-data");
  assert.equal(await theory(page, "your-data", "data-p50"), "exact 21.0 ms");

  // Back to the Lab's model, from the keyboard: the hedge's closed form is the Lab's again, the
  // link drops data, and the focus stays in the section.
  await page.focus(`${SECTION} [data-action=reset]`);
  await page.keyboard.press("Space");
  assert.equal(await page.evaluate(() => document.activeElement?.id), "data-text");
  await page.waitForSelector('[data-section="hedge"] [data-part=on-your-data][hidden]', {
    state: "attached",
  });
  await done(page, "hedge");
  const lab = pkg.simulateHedge({ delayQ: 0.95, requests: 200_000, seed: 1 });
  assert.equal(
    await theory(page, "hedge", "p999-before"),
    `theory ${formatMs(lab.theoryP999Before)}`,
  );
  assert.equal(new URL(page.url()).searchParams.get("data"), "");
  assert.deepEqual(errors, []);
  await page.close();
});

test("a link's summary restores the fit at once, and one that does not read is refused and dropped", async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  const summary = "p50:4,p90:9,p99:40,p99.9:300";
  await page.goto(`${server.url}?data=${encodeURIComponent(summary)}#your-data`);
  await page.waitForFunction(
    (sel) => /From the link/.test(document.querySelector(sel)?.textContent ?? ""),
    STATUS,
  );
  await done(page, "your-data");
  assert.equal(await theory(page, "your-data", "data-p999"), "exact 300 ms");
  // The chart draws the fit over the four points.
  const labels = await page.locator(`${SECTION} .lab-panel > canvas`).getAttribute("aria-label");
  assert.match(labels, /p99\.9 300 ms/);

  await page.goto(`${server.url}?data=${encodeURIComponent("p50:9,p99:3")}#your-data`);
  await page.waitForFunction(
    (sel) => document.querySelector(sel)?.dataset.error === "true",
    STATUS,
  );
  assert.match(await statusText(page), /must rise/);
  await page.waitForFunction(() => new URL(location.href).searchParams.get("data") === "");
  // Markup in a link is never markup: refused by the parameter's own check, with a notice.
  await page.goto(`${server.url}?data=${encodeURIComponent("<img src=x onerror=alert(1)>")}`);
  await page.waitForSelector("#url-notice:not([hidden])");
  assert.match(await page.textContent("#url-notice"), /data: “<” is not allowed in it/);
  assert.equal(await page.locator(`${SECTION} img`).count(), 0);
  await page.close();
});
