// Chart text never collides, at any width from 320 px: every chart on the Lab and the Tail page
// places its text through web/labels.js and publishes the boxes it placed as `data-labels`. At
// 320, 390, 600 and 1280 px (light), once the sections have computed, every chart canvas has
// them, every box lies inside its canvas and no two overlap. The backing store is the drawn box
// (the canvas's content box times the pixel ratio), so text is sharp.
//
// It can fail: run it against a site whose charts draw text directly (the web/ before this
// change, `TAIL_LAB_WEB=/path/to/old/web`): no canvas has `data-labels` and the first check
// fails; and the overlap check is proved on two crafted boxes below.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { overlaps } from "../../web/labels.js";
import { SITE, launchChromium, serveWeb } from "../support.mjs";

const WIDTHS = [320, 390, 600, 1280];
let server, browser;
const problems = [];

before(async () => {
  server = await serveWeb(SITE);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** Two frames, so a resize's redraw has happened. */
const frames = (page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** Every chart canvas on the page: its labels, its CSS and backing sizes. */
const charts = (page) =>
  page.$$eval("canvas", (cs) =>
    cs
      .filter((c) => c.checkVisibility() && c.clientWidth > 0)
      .map((c) => ({
        name: c.closest("[data-section]")?.dataset.section ?? c.id ?? c.dataset.chart,
        labels: c.dataset.labels ?? null,
        // A Lab section's main chart (not a small multiple): it has a y axis title.
        titled: c.matches(".lab-panel > canvas"),
        width: c.clientWidth,
        height: c.clientHeight,
        backing: [c.width, c.height],
        dpr: devicePixelRatio,
      })),
  );

/** The problems with one chart's published boxes, as readable lines. */
function check(chart, width) {
  const out = [];
  const where = `${chart.name} at ${width} px`;
  if (chart.labels === null) return [`${where}: no data-labels`];
  const boxes = JSON.parse(chart.labels);
  if (boxes.length === 0) out.push(`${where}: no text placed`);
  // A label left out for want of room is silent: the y title (the one rotated box) must be there.
  if (chart.titled && !boxes.some((b) => b.h > 2 * b.w))
    out.push(`${where}: the y axis title was left out`);
  for (const b of boxes) {
    if (b.x < -0.1 || b.y < -0.1 || b.x + b.w > chart.width + 0.1 || b.y + b.h > chart.height + 0.1)
      out.push(`${where}: "${b.text}" outside the canvas ${JSON.stringify(b)}`);
  }
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++)
      if (overlaps(boxes[i], boxes[j]))
        out.push(`${where}: "${boxes[i].text}" overlaps "${boxes[j].text}"`);
  return out;
}

test("the overlap check catches two touching boxes and passes two apart", () => {
  assert.ok(overlaps({ x: 0, y: 0, w: 10, h: 10 }, { x: 5, y: 5, w: 10, h: 10 }));
  assert.ok(overlaps({ x: 0, y: 0, w: 10, h: 10 }, { x: 10.5, y: 0, w: 10, h: 10 }), "1 px gap");
  assert.ok(!overlaps({ x: 0, y: 0, w: 10, h: 10 }, { x: 12, y: 0, w: 10, h: 10 }));
  const crafted = {
    name: "crafted",
    labels: JSON.stringify([
      { text: "p50 4.01 ms", x: 10, y: 2, w: 60, h: 11 },
      { text: "this request", x: 50, y: 2, w: 60, h: 11 },
    ]),
    width: 300,
    height: 100,
  };
  assert.deepEqual(check(crafted, 300), [
    'crafted at 300 px: "p50 4.01 ms" overlaps "this request"',
  ]);
});

for (const [name, path, ready] of [
  [
    "the Lab",
    "index.html",
    () =>
      document.body.dataset.ready === "true" &&
      [...document.querySelectorAll("[data-progress]")].every(
        (p) => p.dataset.total && p.dataset.done === p.dataset.total,
      ),
  ],
  [
    "the Tail page",
    "tail.html?requests=100000",
    () => !!document.querySelector("[data-settled=true]"),
  ],
]) {
  test(`${name}: every chart's labels lie inside it and never overlap, at ${WIDTHS.join(", ")} px`, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto(`${server.url}${path}`);
    await page.waitForFunction(ready, null, { timeout: 240_000 });
    const found = [];
    let seen = 0;
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await frames(page);
      // The Tail page draws a chart only on screen: each is scrolled into view in turn.
      for (const c of await page.$$("canvas")) {
        await c.scrollIntoViewIfNeeded();
        await frames(page);
      }
      await frames(page);
      const all = await charts(page);
      assert.ok(
        all.length >= (path.startsWith("index") ? 5 : 3),
        `${all.length} charts at ${width}`,
      );
      for (const chart of all) {
        seen++;
        found.push(...check(chart, width));
        // The backing store is the drawn (content) box times the pixel ratio.
        const want = [Math.round(chart.width * chart.dpr), Math.round(chart.height * chart.dpr)];
        if (chart.backing.join("×") !== want.join("×"))
          found.push(
            `${chart.name} at ${width} px: backing store ${chart.backing.join("×")}, drawn ${want.join("×")}`,
          );
      }
    }
    assert.deepEqual(found, []);
    assert.ok(seen >= 12, `${seen} charts checked`);
    assert.deepEqual(problems, []);
    await page.close();
  });
}
