// The Lab's drafts and its order of work, in real Chromium (issue 19): every section shows a
// complete draft before its full-size points, the sections on screen are computed first (a
// section below the fold has no full-size point until the one on screen is complete), and at
// full size the loaded section's points carry their 95% intervals, as the API computes them.
// One worker (`?workers=1`), so the order is the workers' ranks and nothing else.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { formatMs } from "../../web/format.js";
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

/** Records every section's progress attributes as they change: `window.__progress[section]`. */
function recordProgress() {
  window.__progress = {};
  new MutationObserver((records) => {
    for (const r of records) {
      const el = /** @type {HTMLElement} */ (r.target);
      const name = el.closest("[data-section]")?.dataset.section;
      if (!name || !el.matches("[data-progress]")) continue;
      window.__progress[name] ??= [];
      window.__progress[name].push({
        drafted: Number(el.dataset.drafted),
        tenth: Number(el.dataset.tenth),
        done: Number(el.dataset.done),
        total: Number(el.dataset.total),
        others: Object.fromEntries(
          [...document.querySelectorAll("[data-section] [data-progress]")].map((p) => [
            /** @type {HTMLElement} */ (p.closest("[data-section]")).dataset.section,
            Number(/** @type {HTMLElement} */ (p).dataset.done),
          ]),
        ),
      });
    }
  }).observe(document, {
    subtree: true,
    attributes: true,
    attributeFilter: ["data-done", "data-drafted", "data-tenth"],
  });
}

test("every sweep shows a complete draft before full size, and the sections on screen go first", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.addInitScript(recordProgress);
  await page.goto(`${server.url}?workers=1`);
  const sections = ["fanout", "queue", "loaded", "balance"];
  await page.waitForFunction(
    (names) =>
      names.every((n) => {
        const p = document.querySelector(`[data-section="${n}"] [data-progress]`);
        return p && Number(p.dataset.total) > 0 && p.dataset.done === p.dataset.total;
      }),
    sections,
    { timeout: 180_000 },
  );
  const log = await page.evaluate(() => window.__progress);
  for (const name of sections) {
    const steps = log[name];
    const total = steps.at(-1).total;
    const firstFull = steps.findIndex((s) => s.done > 0);
    const tenth = steps.findIndex((s) => s.tenth === total);
    const drafted = steps.findIndex((s) => s.drafted === total);
    assert.ok(drafted >= 0 && drafted <= tenth, `${name}: a complete rough draft first`);
    // Every point at a tenth of its sample before any is at full size (one worker runs a
    // section's drafts, ranked lower, before its full-size points).
    assert.ok(tenth >= 0 && tenth <= firstFull, `${name}: the 1/10 draft complete first`);
  }
  // The fan-out section is on the first screen; the loaded and balance sections are below the
  // fold: when the fan-out's last full-size point answered, theirs had not started.
  const fanoutDone = log.fanout.find((s) => s.done === s.total);
  // (A section not yet mounted then has no progress line at all: it had not started either.)
  assert.equal(fanoutDone.others.loaded ?? 0, 0, "loaded waited for the section on screen");
  assert.equal(fanoutDone.others.balance ?? 0, 0, "balance waited for the section on screen");
  await page.close();
});

test("at full size the loaded readouts are the API's, whose 95% intervals narrow with the sample", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await page.goto(`${server.url}?workers=1&loaded-load=0.5`);
  await page.locator('[data-section="loaded"]').scrollIntoViewIfNeeded();
  await page.waitForFunction(
    () => {
      const p = document.querySelector('[data-section="loaded"] [data-progress]');
      return p && Number(p.dataset.total) > 0 && p.dataset.done === p.dataset.total;
    },
    null,
    { timeout: 180_000 },
  );
  // The API's interval at the section's settings: narrow at full size, and around the point.
  const r = pkg.simulateLoaded({ load: 0.5, policy: "hedge", requests: 200_000, seed: 1 });
  assert.ok(r.p99Low <= r.p99 && r.p99 <= r.p99High, "p99 inside its interval");
  assert.ok(r.p50Low <= r.p50 && r.p50 <= r.p50High, "p50 inside its interval");
  assert.ok(
    (r.p99High - r.p99Low) / r.p99 < 0.2,
    `a full-size p99 interval is narrow: ${r.p99Low}–${r.p99High}`,
  );
  const draft = pkg.simulateLoaded({ load: 0.5, policy: "hedge", requests: 20_000, seed: 1 });
  assert.ok(
    draft.p99High - draft.p99Low > r.p99High - r.p99Low,
    "a 1/10 draft's p99 interval is wider than the full size's",
  );
  const rough = pkg.simulateLoaded({ load: 0.5, policy: "hedge", requests: 2_000, seed: 1 });
  assert.equal(
    rough.p99Low,
    null,
    "no p99 interval on a 1/100 draft (fewer than 5 a batch beyond it)",
  );
  assert.ok(rough.meanLow !== null && rough.p50Low !== null);
  // The readout is the full-size p99, as the API gives it (not a draft's).
  const shown = await page.textContent('[data-section="loaded"] [data-readout="p99"]');
  assert.equal(shown, formatMs(r.p99));
  await page.close();
});
