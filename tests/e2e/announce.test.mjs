// What a screen reader hears while a Lab section computes (issue 20): the progress line moves
// with every point, but the live regions change at most twice a sweep ("computing", then a
// one-line summary of the result), and the summary carries the result's numbers.
//
// Counted: every live region in the section, live by its role (status, alert, log) or its
// `aria-live` (not "off"). `<output>` elements are left out: whether a slider's value is read
// is the sliders' business, not the progress line's.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { SITE, launchChromium, serveWeb } from "../support.mjs";

let server, browser;
before(async () => {
  server = await serveWeb(SITE);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** The live regions' selector (outputs aside, see above). */
const LIVE =
  '[role=status]:not(output), [role=alert]:not(output), [role=log]:not(output), [aria-live]:not([aria-live="off"]):not(output)';

/** Starts counting the text changes of every live region in section `name`: `window.__said`. */
function listen([name, live]) {
  const root = document.querySelector(`[data-section="${name}"]`);
  const regions = [...root.querySelectorAll(live)];
  /** @type {string[]} */
  const said = [];
  const last = new Map(regions.map((r) => [r, r.textContent]));
  const observer = new MutationObserver(() => {
    for (const r of regions) {
      const text = r.textContent;
      if (text !== last.get(r)) {
        last.set(r, text);
        if (text.trim()) said.push(text.trim());
      }
    }
  });
  for (const r of regions)
    observer.observe(r, { subtree: true, childList: true, characterData: true });
  Object.assign(window, { __said: said, __regions: regions.length });
}

/** Section `name`'s progress attributes: whether its sweep is done. */
const sweepDone = (name) => {
  const p = document.querySelector(`[data-section="${name}"] [data-progress]`);
  return p?.dataset.total !== undefined && p.dataset.done === p.dataset.total;
};

for (const [name, control, value] of [
  ["fanout", "fanout-p", "-1.5"],
  ["hedge", null, null],
]) {
  test(`one ${name} sweep is announced at most twice, ending with its result`, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.url}#${name}-title`);
    await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
    await page.waitForFunction(sweepDone, name, { timeout: 120_000 });
    await page.evaluate(listen, [name, LIVE]);
    assert.ok((await page.evaluate(() => window.__regions)) >= 1, "the section has a live region");
    if (control) {
      await page.$eval(
        `#${control}`,
        (input, v) => {
          input.value = v;
          input.dispatchEvent(new Event("input", { bubbles: true }));
        },
        value,
      );
    } else {
      // A new seed runs the sweep again (the page's field).
      await page.fill("#seed", "7");
      await page.press("#seed", "Enter");
    }
    await page.waitForFunction(
      (n) => {
        const p = document.querySelector(`[data-section="${n}"] [data-progress]`);
        return p.dataset.done !== p.dataset.total;
      },
      name,
      { timeout: 10_000 },
    );
    await page.waitForFunction(sweepDone, name, { timeout: 120_000 });
    // Two frames for anything that would speak after the last point.
    await page.evaluate(
      () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
    );
    const said = await page.evaluate(() => window.__said);
    // The section's first readout, as the result's summary should quote it.
    const first = await page.textContent(`[data-section="${name}"] [data-readout]`);
    await page.close();
    assert.ok(said.length >= 1, "the result is announced");
    assert.ok(
      said.length <= 2,
      `at most two announcements, heard ${said.length}:\n${said.join("\n")}`,
    );
    if (said.length === 2) assert.match(said[0], /computing/i);
    // The last is the result, with its numbers (never NaN).
    assert.ok(/\d/.test(first ?? ""), `the first readout shows a number: ${first}`);
    assert.ok(said.at(-1).includes(first), `"${said.at(-1)}" quotes the readout "${first}"`);
    assert.doesNotMatch(said.at(-1), /NaN|computing|refining/i);
  });
}
