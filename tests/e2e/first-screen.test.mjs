// The first screen (issue 20): on both pages, at a desktop's 1280×800 and a phone's 390×844, a
// chart lies wholly within the first viewport and has been drawn (the request it shows is in its
// data attributes and its label), and its counter has counted requests against the closed form.
// And the Tail page's link names the request on screen, so a reload shows the same one.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { SITE, launchChromium, loadPackage, serveWeb } from "../support.mjs";

const pkg = await loadPackage();
let server, browser;
before(async () => {
  server = await serveWeb(SITE);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const SIZES = [
  [1280, 800],
  [390, 844],
];

for (const [path, chart] of [
  ["index.html", "#hero canvas"],
  ["tail.html", "#arena"],
]) {
  for (const [width, height] of SIZES) {
    test(`${path} at ${width}×${height}: a drawn chart in the first screen, with its counter`, async () => {
      const page = await browser.newPage({ viewport: { width, height } });
      await page.goto(new URL(path, server.url).href);
      await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
      // The counter has counted (it counts a batch of requests a frame).
      await page.waitForFunction(
        () => Number(document.querySelector("[data-part=counter]")?.dataset.counted) > 0,
        null,
        { timeout: 30_000 },
      );
      const seen = await page.$eval(chart, (c) => {
        const box = c.getBoundingClientRect();
        const counter = /** @type {HTMLElement} */ (document.querySelector("[data-part=counter]"));
        const cbox = counter.getBoundingClientRect();
        return {
          top: box.top,
          bottom: box.bottom,
          left: box.left,
          right: box.right,
          width: box.width,
          counterBottom: cbox.bottom,
          request: c.dataset.request,
          parentMs: c.dataset.parentMs,
          label: c.getAttribute("aria-label"),
          counted: Number(counter.dataset.counted),
          slow: Number(counter.dataset.slow),
          theory: Number(counter.dataset.theory),
          text: counter.textContent,
          innerHeight,
          innerWidth,
        };
      });
      await page.close();
      // Wholly within the first viewport, and as wide as a chart should be.
      assert.ok(seen.top >= 0 && seen.left >= 0, JSON.stringify(seen));
      assert.ok(
        seen.bottom <= seen.innerHeight,
        `chart bottom ${seen.bottom} > ${seen.innerHeight}`,
      );
      assert.ok(seen.right <= seen.innerWidth, JSON.stringify(seen));
      assert.ok(seen.width >= 300, `chart width ${seen.width}`);
      // The counter is in the first screen too, at the desktop size.
      if (width === 1280) assert.ok(seen.counterBottom <= seen.innerHeight, seen.text);
      // Drawn: the request it shows, with its numbers (never NaN).
      assert.match(seen.request ?? "", /^\d+$/);
      assert.ok(Number(seen.parentMs) > 0, seen.parentMs);
      assert.match(
        seen.label ?? "",
        /Request #\d+: 100 leaves; the parent answered at [\d.]+ (ms|s)/,
      );
      // The counter: the share it has counted beside the closed form for n = 100.
      assert.ok(seen.counted > 0 && seen.slow <= seen.counted);
      assert.equal(seen.theory, pkg.slowShare(0.01, 100));
      assert.match(seen.text, /63\.4%/);
      assert.doesNotMatch(seen.text, /NaN/);
    });
  }
}

test("the counter counts the run's requests as the core draws them", async () => {
  // The same count in node: requests 0, 1, … of the default run, a leaf slower than its p99.
  const run = new pkg.TailRun({});
  const p99 = run.leafQuantile(0.99);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(new URL("tail.html?speed=paused", server.url).href);
  await page.waitForFunction(
    () => Number(document.querySelector("[data-part=counter]")?.dataset.counted) >= 10_000,
    null,
    { timeout: 60_000 },
  );
  const { counted, slow } = await page.$eval("[data-part=counter]", (c) => ({
    counted: Number(c.dataset.counted),
    slow: Number(c.dataset.slow),
  }));
  await page.close();
  let expected = 0;
  for (let k = 0; k < counted; k++)
    if (run.requestAt(k).leaves.originalMs.some((ms) => ms > p99)) expected += 1;
  run.free();
  assert.equal(slow, expected);
  // Within sampling error of 1 − 0.99¹⁰⁰ (the quantile is measured, so a little slack).
  const share = slow / counted;
  assert.ok(Math.abs(share - pkg.slowShare(0.01, 100)) < 0.05, String(share));
});

test("the Tail link names the request on screen, and a reload shows the same one", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(new URL("tail.html?speed=paused", server.url).href);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  for (let i = 0; i < 3; i++) await page.click("#next-request");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("request") === "3");
  const before = await page.$eval("#arena", (c) => ({ ...c.dataset }));
  assert.equal(before.request, "3");
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  const after = await page.$eval("#arena", (c) => ({ ...c.dataset }));
  assert.equal(after.request, "3");
  assert.equal(after.firstLeaves, before.firstLeaves);
  assert.equal(after.parentMs, before.parentMs);
  assert.match(await page.textContent("#arena-caption"), /^Request #3:/);
  // Clamped like every parameter, with a notice.
  await page.goto(new URL("tail.html?speed=paused&request=-4", server.url).href);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
  assert.equal(await page.$eval("#arena", (c) => c.dataset.request), "0");
  assert.match(await page.textContent("#url-notice"), /request/);
  await page.close();
});

test("the arena's text names only the speeds the reader has: no slow sweep under reduced motion", async () => {
  for (const reducedMotion of ["reduce", "no-preference"]) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.emulateMedia({ reducedMotion });
    await page.goto(new URL("tail.html", server.url).href);
    await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
    // The text that is rendered, which is what a screen reader is given (display: none is neither).
    const text = await page.$eval("#tail", (root) => {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      const parts = [];
      for (let n = walker.nextNode(); n; n = walker.nextNode())
        if (n.parentElement?.checkVisibility()) parts.push(n.textContent);
      return parts.join("").replace(/\s+/g, " ");
    });
    const speeds = await page.$$eval("#speed option", (os) => os.map((o) => o.value));
    await page.close();
    if (reducedMotion === "reduce") {
      assert.ok(!speeds.includes("slow"), speeds.join());
      assert.doesNotMatch(text, /slow the speed down/i);
      assert.match(text, /press next request/);
    } else {
      assert.ok(speeds.includes("slow"), speeds.join());
      assert.match(text, /Slow the speed down/);
      assert.doesNotMatch(text, /With reduced motion/);
    }
  }
});
